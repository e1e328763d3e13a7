"""Resource-usage monitoring (registry/monitoring/resource.py), called directly on an injected clock.

Subscribers take the publications the way amqsrua and IBM's exporter do: MQSUB (managed,
non-durable) on the metadata topics, which are retained, then on the resource topics they name, and
MQGET of PCF messages decoded with qmlite.pcf.
"""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.registry.monitoring import resource
from qmlite.registry.errors import MQIError
from qmlite.registry.qmgr import QueueManager

Q = "DEV.QUEUE.1"
ROOT = "$SYS/MQ/INFO/QMGR/QM1/Monitor"


class FakeHost:
    def __init__(self, **values: int) -> None:
        self.values = values

    def sample(self) -> dict[str, int]:
        return dict(self.values)


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    manager.monitor.host = FakeHost(cpu_user=1234, load1=56, ram_total_mb=2048, qm_cpu_user=7, qm_ram_mb=42)
    yield manager
    manager.shutdown()


def admin(qm):
    return qm.connect("QM1", user="admin", admin=True, appl_name="test")


def subscribe(qm, session, topic, options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED):
    sd = S.MQSD(Options=options | C.MQSO_FAIL_IF_QUIESCING, ObjectString=S.MQCHARV(topic))
    _hsub, _sd, hobj = qm.subscribe(session, sd, 0)
    return hobj


def take(qm, session, hobj):
    """Every message waiting for a subscription, decoded."""
    handle = qm.input_handle(session, hobj, C.MQGMO_NO_SYNCPOINT)
    out = []
    while True:
        got = qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT), 1 << 20)
        if got is None:
            return out
        assert got.md.Format.rstrip() == C.MQFMT_ADMIN.rstrip()
        # strict=False: an element index (0, 1, ...) is the Parameter, outside the MQIA_* id ranges.
        out.append(P.decode(got.data, got.md.Encoding, got.md.CodedCharSetId, strict=False))


def one(qm, session, hobj) -> P.PCFMessage:
    msgs = take(qm, session, hobj)
    assert len(msgs) == 1
    return msgs[0]


def groups(msg, group_id):
    return [{p.parameter: p.value for p in g.parameters} for g in msg if isinstance(g, P.CFGR)
            and g.parameter == group_id]


def elements(msg) -> dict[int, int]:
    """Element index -> value of a resource-usage publication."""
    return {p.parameter: p.value for p in msg if isinstance(p, P.CFIN64)
            and p.parameter != C.MQIAMO64_MONITOR_INTERVAL}


def put(qm, session, name, data, *, persistent=False, one_shot=False):
    md = S.MQMD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    pmo = S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT)
    if one_shot:
        qm.put1(session, S.MQOD(ObjectName=name), md, pmo, data)
        return
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=name), C.MQOO_OUTPUT)
    qm.put(session, handle.hobj, md, pmo, data)
    qm.close_object(session, handle.hobj, C.MQCO_NONE)


# ---- metadata ------------------------------------------------------------------------------------
def test_classes_are_retained_and_sent_at_mqsub(qm):
    assert qm.monitor.publish_metadata() > 3
    session = admin(qm)
    classes = one(qm, session, subscribe(qm, session, f"{ROOT}/METADATA/CLASSES"))
    found = groups(classes, C.MQGACF_MONITOR_CLASS)
    assert [(g[C.MQIAMO_MONITOR_CLASS], g[C.MQCAMO_MONITOR_CLASS]) for g in found] == [
        (0, "CPU"), (2, "STATMQI"), (3, "STATQ")]
    by_name = {g[C.MQCAMO_MONITOR_CLASS]: g for g in found}
    assert by_name["STATQ"][C.MQIAMO_MONITOR_FLAGS] == C.MQIAMO_MONITOR_FLAGS_OBJNAME
    assert by_name["CPU"][C.MQIAMO_MONITOR_FLAGS] == C.MQIAMO_MONITOR_FLAGS_NONE
    assert by_name["CPU"][C.MQCA_TOPIC_STRING] == f"{ROOT}/METADATA/CPU/TYPES"
    # Exactly the five parameters mqmetric accepts in a class group (it fails on any other).
    assert all(set(g) == {C.MQIAMO_MONITOR_CLASS, C.MQIAMO_MONITOR_FLAGS, C.MQCAMO_MONITOR_CLASS,
                          C.MQCAMO_MONITOR_DESC, C.MQCA_TOPIC_STRING} for g in found)
    assert classes.header.Type == C.MQCFT_STATISTICS


def test_types_and_elements_name_the_resource_topics(qm):
    qm.monitor.publish_metadata()
    session = admin(qm)
    types = one(qm, session, subscribe(qm, session, f"{ROOT}/METADATA/STATQ/TYPES"))
    assert types.get(C.MQIAMO_MONITOR_CLASS).value == 3
    assert types.get(C.MQIAMO_MONITOR_FLAGS).value == C.MQIAMO_MONITOR_FLAGS_OBJNAME
    found = {g[C.MQCAMO_MONITOR_TYPE]: g for g in groups(types, C.MQGACF_MONITOR_TYPE)}
    assert set(found) == {"OPENCLOSE", "INQSET", "PUT", "GET", "GENERAL"}
    assert all(set(g) == {C.MQIAMO_MONITOR_TYPE, C.MQCAMO_MONITOR_TYPE, C.MQCAMO_MONITOR_DESC,
                          C.MQCA_TOPIC_STRING} for g in found.values())
    assert found["PUT"][C.MQCA_TOPIC_STRING] == f"{ROOT}/METADATA/STATQ/PUT"
    elems = one(qm, session, subscribe(qm, session, found["PUT"][C.MQCA_TOPIC_STRING]))
    assert elems.get(C.MQCA_TOPIC_STRING).value == f"{ROOT}/STATQ/%s/PUT"
    listed = {g[C.MQIAMO_MONITOR_ELEMENT]: g for g in groups(elems, C.MQGACF_MONITOR_ELEMENT)}
    assert listed[0][C.MQCAMO_MONITOR_DESC] == "MQPUT/MQPUT1 count"
    assert listed[0][C.MQIAMO_MONITOR_DATATYPE] == C.MQIAMO_MONITOR_DELTA
    assert all(set(g) == {C.MQIAMO_MONITOR_ELEMENT, C.MQIAMO_MONITOR_DATATYPE, C.MQCAMO_MONITOR_DESC}
               for g in listed.values())


def test_every_advertised_description_is_unique_per_level():
    # mqmetric turns descriptions into metric names and refuses duplicates (qmgr and per-object apart).
    for per_object in (False, True):
        names = [el.desc for cls in resource.CATALOGUE if cls.per_object == per_object
                 for typ in cls.types for el in typ.elements]
        assert len(names) == len(set(names))


# ---- resource usage ------------------------------------------------------------------------------
def test_nothing_is_built_for_topics_nobody_subscribes_to(qm, clock):
    clock.t += 10
    assert qm.monitor.publish_resource_usage() == 0


def test_statmqi_put_counts_the_interval(qm, clock):
    session = admin(qm)
    hobj = subscribe(qm, session, f"{ROOT}/STATMQI/PUT")
    for n in range(3):
        put(qm, session, Q, b"x" * 10)
    put(qm, session, Q, b"y" * 5, persistent=True, one_shot=True)
    clock.t += 10
    assert qm.monitor.publish_resource_usage() == 1
    msg = one(qm, session, hobj)
    assert msg.get(C.MQIAMO_MONITOR_CLASS).value == 2 and msg.get(C.MQIAMO_MONITOR_TYPE).value == 3
    assert msg.get(C.MQIAMO64_MONITOR_INTERVAL).value == 10_000_000  # microseconds
    assert msg.get(C.MQCA_Q_MGR_NAME).value.rstrip() == "QM1"
    values = elements(msg)
    assert values[0] == 4 and values[1] == 35  # MQPUT/MQPUT1 count and bytes
    assert values[2] == 3 and values[6] == 1 and values[8] == 30 and values[9] == 5
    clock.t += 10
    qm.monitor.publish_resource_usage()
    assert elements(one(qm, session, hobj))[0] == 0  # a DELTA: nothing new in the next interval


def test_statq_publications_only_for_queues_subscribed_by_name(qm, clock):
    session = admin(qm)
    put_sub = subscribe(qm, session, f"{ROOT}/STATQ/{Q}/PUT")
    general = subscribe(qm, session, f"{ROOT}/STATQ/{Q}/GENERAL")
    wild = subscribe(qm, session, f"{ROOT}/STATQ/#")
    for _ in range(5):
        put(qm, session, Q, b"abc")
    put(qm, session, "DEV.QUEUE.2", b"other")
    clock.t += 10
    assert qm.monitor.publish_resource_usage() == 2
    msg = one(qm, session, put_sub)
    assert msg.get(C.MQCA_Q_NAME).value.rstrip() == Q
    assert msg.get(C.MQIACF_OBJECT_TYPE).value == C.MQOT_Q
    assert elements(msg)[0] == 5 and elements(msg)[1] == 15
    assert elements(one(qm, session, general))[3] == 5  # Queue depth
    # The wildcard subscription sees what others asked for, and starts nothing for DEV.QUEUE.2.
    seen = take(qm, session, wild)
    assert {m.get(C.MQCA_Q_NAME).value.rstrip() for m in seen} == {Q}


def test_statq_get_and_general(qm, clock):
    session = admin(qm)
    get_sub = subscribe(qm, session, f"{ROOT}/STATQ/{Q}/GET")
    general = subscribe(qm, session, f"{ROOT}/STATQ/{Q}/GENERAL")
    put(qm, session, Q, b"one")
    put(qm, session, Q, b"two!", persistent=True)
    md = S.MQMD(Persistence=C.MQPER_NOT_PERSISTENT, Expiry=1)  # a tenth of a second
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=Q), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    qm.put(session, handle.hobj, md, S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"short-lived")
    clock.t += 2
    browse = S.MQGMO(Version=2, Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_NO_SYNCPOINT)
    assert qm.get(session, handle, S.MQMD(), browse, 100).data == b"one"
    for _ in range(2):
        assert qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT), 100)
    clock.t += 8
    qm.monitor.publish_resource_usage()
    values = elements(one(qm, session, get_sub))
    assert values[0] == 2 and values[1] == 7  # destructive gets and their bytes
    assert values[2] == 1 and values[3] == 1 and values[6] == 1 and values[8] == 3
    general_values = elements(one(qm, session, general))
    assert general_values[0] == 1  # the expired message
    assert general_values[3] == 0  # depth now
    assert general_values[2] == 2_000_000  # average time on the queue of what was got, in microseconds


def test_statmqi_conndisc_openclose_and_failures(qm, clock):
    session = admin(qm)
    conndisc = subscribe(qm, session, f"{ROOT}/STATMQI/CONNDISC")
    openclose = subscribe(qm, session, f"{ROOT}/STATMQI/OPENCLOSE")
    other = admin(qm)
    qm.disconnect(other, commit=True)
    with pytest.raises(MQIError):
        qm.connect("QM9", user="admin", admin=True)
    with pytest.raises(MQIError):
        qm.open_object(session, S.MQOD(ObjectName="NO.SUCH.QUEUE"), C.MQOO_OUTPUT)
    clock.t += 10
    qm.monitor.publish_resource_usage()
    values = elements(one(qm, session, conndisc))
    assert values[0] == 2 and values[1] == 1 and values[3] == 1 and values[2] == 2
    opened = elements(one(qm, session, openclose))
    assert opened[1] == 1  # the failed MQOPEN
    assert opened[0] >= 0


def test_cpu_reports_what_the_host_gives_and_omits_the_rest(qm, clock):
    session = admin(qm)
    system = subscribe(qm, session, f"{ROOT}/CPU/SystemSummary")
    qmgr = subscribe(qm, session, f"{ROOT}/CPU/QMgrSummary")
    clock.t += 10
    qm.monitor.publish_resource_usage()
    assert elements(one(qm, session, system)) == {0: 1234, 2: 56, 6: 2048}
    assert elements(one(qm, session, qmgr)) == {0: 7, 2: 42}


def test_publish_and_subscribe_counts(qm, clock):
    session = admin(qm)
    publish = subscribe(qm, session, f"{ROOT}/STATMQI/PUBLISH")
    subscribe(qm, session, "app/news")
    handle, _ = qm.open_object(session, S.MQOD(ObjectType=C.MQOT_TOPIC, ObjectString=S.MQCHARV("app/news")),
                               C.MQOO_OUTPUT)
    qm.put(session, handle.hobj, S.MQMD(Persistence=C.MQPER_NOT_PERSISTENT), S.MQPMO(), b"hello")
    clock.t += 10
    qm.monitor.publish_resource_usage()
    values = elements(one(qm, session, publish))
    assert values[0] == 1 and values[1] == 5 and values[2] == 1 and values[3] == 5 and values[4] == 1


def test_real_host_usage_is_in_the_advertised_units():
    from qmlite.registry.monitoring.hostusage import HostUsage

    values = HostUsage().sample()
    assert all(isinstance(v, int) and v >= 0 for v in values.values())
    if "ram_total_mb" in values:
        assert values["ram_total_mb"] > 0


def test_purged_messages_and_a_deleted_queues_counts(qm, clock):
    from tests.support.pcfkit import command, i, st

    session = admin(qm)
    general = subscribe(qm, session, f"{ROOT}/STATQ/{Q}/GENERAL")
    totals = subscribe(qm, session, f"{ROOT}/STATMQI/PUT")
    for _ in range(4):
        put(qm, session, Q, b"gone")
    assert qm.engine.execute(command(C.MQCMD_CLEAR_Q, st(C.MQCA_Q_NAME, Q)))[0].header.Reason == 0
    qm.engine.execute(command(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "TEMP.Q"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL)))
    put(qm, session, "TEMP.Q", b"12345678")
    assert qm.engine.execute(command(C.MQCMD_DELETE_Q, st(C.MQCA_Q_NAME, "TEMP.Q"),
                                     i(C.MQIACF_PURGE, C.MQPO_YES)))[0].header.Reason == 0
    clock.t += 10
    qm.monitor.publish_resource_usage()
    assert elements(one(qm, session, general))[1] == 4  # messages purged by Clear Queue
    values = elements(one(qm, session, totals))
    assert values[0] == 5 and values[1] == 16 + 8  # the deleted queue's put still counts
    clock.t += 10
    qm.monitor.publish_resource_usage()
    assert elements(one(qm, session, totals))[0] == 0  # and is not taken back later


def test_a_queue_name_with_a_slash_is_written_with_an_ampersand(qm, clock):
    from tests.support.pcfkit import command, i, st

    qm.engine.execute(command(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "APP/IN"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL)))
    session = admin(qm)
    hobj = subscribe(qm, session, f"{ROOT}/STATQ/APP&IN/PUT")
    put(qm, session, "APP/IN", b"x")
    clock.t += 10
    qm.monitor.publish_resource_usage()
    msg = one(qm, session, hobj)
    assert msg.get(C.MQCA_Q_NAME).value.rstrip() == "APP/IN" and elements(msg)[0] == 1


def test_no_publication_for_a_subscribed_queue_that_does_not_exist(qm, clock):
    session = admin(qm)
    subscribe(qm, session, f"{ROOT}/STATQ/NO.SUCH.Q/PUT")
    clock.t += 10
    assert qm.monitor.publish_resource_usage() == 0
