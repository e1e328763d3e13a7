"""Queue-manager events (registry/monitoring/events.py, configevents.py), in the domain on an injected clock.

For each event: its switch off, nothing; on, exactly IBM's message (MQMD, MQCFH, the documented
parameters in IBM's order) on the right SYSTEM.ADMIN.*.EVENT queue.  Switches are set on the model
(``qm.registry.qmgr.authority_event`` ..., the fields Change Q Mgr sets), one test at a time.
"""

from __future__ import annotations

import dataclasses

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.registry.admin.engine import Requester
from qmlite.registry.errors import MQIError
from qmlite.registry.monitoring import events as E
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.security import chlauth
from tests.support.pcfkit import command, i, st

ON, OFF = C.MQEVR_ENABLED, C.MQEVR_DISABLED
QMGR_SWITCHES = ("authority_event", "inhibit_event", "local_event", "remote_event", "performance_event",
                 "start_stop_event", "channel_event", "configuration_event", "command_event")


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    for switch in QMGR_SWITCHES:  # every switch off: each test turns on the one it is about
        setattr(manager.registry.qmgr, switch, OFF)
    yield manager
    manager.shutdown()


def events_on(qm, queue: str) -> list[tuple[S.MQMD, P.PCFMessage]]:
    """Every message on an event queue, taken off it, decoded."""
    reg = qm.registry
    contents = reg.messages.contents(queue)
    out = []
    while (msg := contents.first()) is not None:
        qm.take_message(queue, contents, msg)
        out.append((msg.md, P.decode(msg.data, msg.md.Encoding, msg.md.CodedCharSetId)))
    return out


def ids(msg: P.PCFMessage) -> list[int]:
    return [p.parameter for p in msg.parameters]


def values(msg) -> dict:
    return {p.parameter: (p.value.rstrip() if isinstance(p.value, str) else p.value) for p in msg.parameters}


def connect(qm, user="app", admin=False, channel="DEV.APP.SVRCONN"):
    return qm.connect("QM1", user=user, admin=admin, appl_name="events-test", appl_type=C.MQAT_UNIX,
                      channel=channel, conname="192.0.2.7")


def od(name: str, otype: int = C.MQOT_Q, string: str = "") -> S.MQOD:
    return S.MQOD(ObjectType=otype, ObjectName=name, ObjectString=S.MQCHARV(string))


def open_(qm, session, name, options, otype=C.MQOT_Q, string=""):
    return qm.open_object(session, od(name, otype, string), options)[0]


def put(qm, session, hobj, data=b"x", **md):
    return qm.put(session, hobj, S.MQMD(**md), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), data)


def get(qm, session, handle):
    return qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT), 1 << 20)


def define(qm, mqsc: str) -> None:
    results = run_mqsc(qm, mqsc)
    assert all(r.completion_code == C.MQCC_OK for r in results), [r.text for r in results]


# ---- the message itself ---------------------------------------------------------------------------
def test_event_message_descriptor_and_header_are_ibms(qm):
    qm.registry.qmgr.start_stop_event = ON
    qm.events.qmgr_active()
    [(md, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert (md.Format, md.MsgType, md.Report, md.Expiry, md.Feedback) == (
        C.MQFMT_EVENT, C.MQMT_DATAGRAM, C.MQRO_NONE, C.MQEI_UNLIMITED, C.MQFB_NONE)
    assert (md.PutApplType, md.PutApplName.rstrip(), md.ReplyToQMgr.rstrip()) == (C.MQAT_QMGR, "QM1", "QM1")
    assert md.CorrelId == bytes(24) and md.MsgId != bytes(24) and md.ReplyToQ.strip() == ""
    assert md.Encoding == C.MQENC_NATIVE and md.CodedCharSetId == qm.registry.qmgr.ccsid
    # Priority and Persistence AS_Q_DEF: the event queue's own defaults
    assert (md.Priority, md.Persistence) == (0, C.MQPER_NOT_PERSISTENT)
    h = msg.header
    assert (h.Type, h.Version, h.Command, h.MsgSeqNumber, h.Control, h.CompCode, h.Reason) == (
        C.MQCFT_EVENT, 1, C.MQCMD_Q_MGR_EVENT, 1, C.MQCFC_LAST, C.MQCC_WARNING, C.MQRC_Q_MGR_ACTIVE)
    assert ids(msg) == [C.MQCA_Q_MGR_NAME] and values(msg)[C.MQCA_Q_MGR_NAME] == "QM1"


def test_event_takes_the_event_queues_persistence_and_priority(qm):
    define(qm, "ALTER QLOCAL(SYSTEM.ADMIN.QMGR.EVENT) DEFPSIST(YES) DEFPRTY(7)")
    qm.registry.qmgr.start_stop_event = ON
    qm.events.qmgr_not_active()
    [(md, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert (md.Persistence, md.Priority) == (C.MQPER_PERSISTENT, 7)
    assert msg.header.Reason == C.MQRC_Q_MGR_NOT_ACTIVE
    assert values(msg) == {C.MQCA_Q_MGR_NAME: "QM1", C.MQIACF_REASON_QUALIFIER: E.MQRQ_Q_MGR_QUIESCING}


@pytest.mark.parametrize("how", ["missing", "inhibited", "full"])
def test_an_event_the_queue_cannot_take_is_discarded_and_the_call_still_fails_only_for_its_own_reason(qm, how):
    reg = qm.registry
    if how == "missing":
        define(qm, "DELETE QLOCAL(SYSTEM.ADMIN.QMGR.EVENT)")
    elif how == "inhibited":
        define(qm, "ALTER QLOCAL(SYSTEM.ADMIN.QMGR.EVENT) PUT(DISABLED)")
    else:
        define(qm, "ALTER QLOCAL(SYSTEM.ADMIN.QMGR.EVENT) MAXDEPTH(0)")
    reg.qmgr.local_event = ON
    session = connect(qm)
    with pytest.raises(MQIError) as err:
        open_(qm, session, "NO.SUCH.QUEUE", C.MQOO_OUTPUT)
    assert err.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert reg.messages.depth("SYSTEM.ADMIN.QMGR.EVENT") == 0


# ---- authority events (AUTHOREV) --------------------------------------------------------------------
def test_not_authorized_type_1_connect(qm):
    reg = qm.registry
    for switch in (OFF, ON):
        reg.qmgr.authority_event = switch
        with pytest.raises(MQIError):
            qm.connect("QM1", user="nobody", admin=False, appl_name="rogue", appl_type=C.MQAT_UNIX,
                       channel="DEV.APP.SVRCONN", conname="192.0.2.9")
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert (msg.header.Command, msg.header.Reason) == (C.MQCMD_Q_MGR_EVENT, C.MQRC_NOT_AUTHORIZED)
    assert ids(msg) == [C.MQCA_Q_MGR_NAME, C.MQIACF_REASON_QUALIFIER, C.MQCACF_USER_IDENTIFIER, C.MQIA_APPL_TYPE,
                        C.MQCACF_APPL_NAME, C.MQCACH_CONNECTION_NAME, C.MQCACH_CHANNEL_NAME]
    v = values(msg)
    assert (v[C.MQIACF_REASON_QUALIFIER], v[C.MQCACF_USER_IDENTIFIER], v[C.MQCACF_APPL_NAME]) == (
        E.MQRQ_CONN_NOT_AUTHORIZED, "nobody", "rogue")
    assert (v[C.MQCACH_CONNECTION_NAME], v[C.MQCACH_CHANNEL_NAME]) == ("192.0.2.9", "DEV.APP.SVRCONN")


def test_not_authorized_type_1_csp_carries_the_csp_user(qm):
    qm.registry.qmgr.authority_event = ON
    qm.events.not_authorized_connect(user="app", appl_type=C.MQAT_UNIX, appl_name="a", channel="DEV.APP.SVRCONN",
                                     conname="h", qualifier=E.MQRQ_CSP_NOT_AUTHORIZED, csp_user="app")
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert ids(msg)[-1] == C.MQCACF_CSP_USER_IDENTIFIER
    assert values(msg)[C.MQIACF_REASON_QUALIFIER] == E.MQRQ_CSP_NOT_AUTHORIZED


@pytest.mark.parametrize("otype,name,string,last", [
    (C.MQOT_Q, "SYSTEM.DEFAULT.LOCAL.QUEUE", "", [C.MQCA_Q_NAME]),
    (C.MQOT_PROCESS, "SYSTEM.DEFAULT.PROCESS", "", [C.MQCA_PROCESS_NAME]),
    (C.MQOT_TOPIC, "", "secret/prices", [C.MQCA_TOPIC_STRING, C.MQCA_ADMIN_TOPIC_NAME]),
])
def test_not_authorized_type_2_open(qm, otype, name, string, last):
    reg = qm.registry
    session = connect(qm, user="app")  # the developer container's app: DEV objects only
    options = {C.MQOT_Q: C.MQOO_INPUT_SHARED, C.MQOT_PROCESS: C.MQOO_INQUIRE, C.MQOT_TOPIC: C.MQOO_OUTPUT}[otype]
    for switch in (OFF, ON):
        reg.qmgr.authority_event = switch
        with pytest.raises(MQIError) as err:
            open_(qm, session, name, options, otype, string)
        assert err.value.reason == C.MQRC_NOT_AUTHORIZED
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert ids(msg) == [C.MQCA_Q_MGR_NAME, C.MQIACF_REASON_QUALIFIER, C.MQIACF_OPEN_OPTIONS, C.MQCACF_USER_IDENTIFIER,
                        C.MQIA_APPL_TYPE, C.MQCACF_APPL_NAME, *last, C.MQCACH_CONNECTION_NAME, C.MQCACH_CHANNEL_NAME]
    v = values(msg)
    assert (v[C.MQIACF_REASON_QUALIFIER], v[C.MQIACF_OPEN_OPTIONS], v[C.MQCACF_USER_IDENTIFIER]) == (
        E.MQRQ_OPEN_NOT_AUTHORIZED, options, "app")
    if otype == C.MQOT_TOPIC:
        assert v[C.MQCA_TOPIC_STRING] == "secret/prices"
        assert [n.rstrip() for n in v[C.MQCA_ADMIN_TOPIC_NAME]] == ["SYSTEM.BASE.TOPIC"]
    else:
        assert v[last[0]] == name


def test_not_authorized_type_2_put1_too(qm):
    reg = qm.registry
    reg.qmgr.authority_event = ON
    session = connect(qm, user="app")
    with pytest.raises(MQIError):
        qm.put1(session, od("SYSTEM.DEFAULT.LOCAL.QUEUE"), S.MQMD(), S.MQPMO(), b"x")
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert values(msg)[C.MQIACF_OPEN_OPTIONS] & C.MQOO_OUTPUT


def test_not_authorized_type_4_command(qm):
    reg = qm.registry
    request = command(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "Q.BY.APP"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL))
    for switch in (OFF, ON):
        reg.qmgr.authority_event = switch
        [first, *_] = qm.engine.execute(request, Requester(user="app", admin=False))
        assert first.header.Reason == C.MQRC_NOT_AUTHORIZED
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert ids(msg) == [C.MQCA_Q_MGR_NAME, C.MQIACF_REASON_QUALIFIER, C.MQIACF_COMMAND, C.MQCACF_USER_IDENTIFIER]
    assert values(msg) == {C.MQCA_Q_MGR_NAME: "QM1", C.MQIACF_REASON_QUALIFIER: E.MQRQ_CMD_NOT_AUTHORIZED,
                           C.MQIACF_COMMAND: C.MQCMD_CREATE_Q, C.MQCACF_USER_IDENTIFIER: "app"}


def test_not_authorized_type_5_subscribe(qm):
    reg = qm.registry
    session = connect(qm, user="app")
    options = C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED
    for switch in (OFF, ON):
        reg.qmgr.authority_event = switch
        with pytest.raises(MQIError) as err:
            qm.subscribe(session, S.MQSD(Options=options, ObjectString=S.MQCHARV("private/x")), 0)
        assert err.value.reason == C.MQRC_NOT_AUTHORIZED
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert ids(msg) == [C.MQCA_Q_MGR_NAME, C.MQIACF_REASON_QUALIFIER, C.MQIACF_SUB_OPTIONS, C.MQCACF_USER_IDENTIFIER,
                        C.MQIA_APPL_TYPE, C.MQCACF_APPL_NAME, C.MQCA_TOPIC_STRING, C.MQCA_ADMIN_TOPIC_NAME,
                        C.MQCACH_CONNECTION_NAME, C.MQCACH_CHANNEL_NAME]
    v = values(msg)
    assert (v[C.MQIACF_REASON_QUALIFIER], v[C.MQIACF_SUB_OPTIONS], v[C.MQCA_TOPIC_STRING]) == (
        E.MQRQ_SUB_NOT_AUTHORIZED, options, "private/x")


# ---- inhibit events (INHIBTEV) ----------------------------------------------------------------------
def test_get_and_put_inhibited(qm):
    reg = qm.registry
    define(qm, "DEFINE QLOCAL(INH.Q) PUT(DISABLED) GET(DISABLED)")
    session = connect(qm, user="admin", admin=True, channel="DEV.ADMIN.SVRCONN")
    out = open_(qm, session, "INH.Q", C.MQOO_OUTPUT)
    inp = qm.input_handle(session, open_(qm, session, "INH.Q", C.MQOO_INPUT_SHARED).hobj, 0)
    for switch in (OFF, ON):
        reg.qmgr.inhibit_event = switch
        with pytest.raises(MQIError) as err:
            put(qm, session, out.hobj)
        assert err.value.reason == C.MQRC_PUT_INHIBITED
        with pytest.raises(MQIError) as err:
            get(qm, session, inp)
        assert err.value.reason == C.MQRC_GET_INHIBITED
    [(_, put_event), (_, get_event)] = events_on(qm, E.QMGR_QUEUE)
    client = [C.MQCACH_CONNECTION_NAME, C.MQCACH_CHANNEL_NAME]
    assert put_event.header.Reason == C.MQRC_PUT_INHIBITED
    assert ids(put_event) == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQIA_APPL_TYPE, C.MQCACF_APPL_NAME, *client]
    assert get_event.header.Reason == C.MQRC_GET_INHIBITED
    assert ids(get_event) == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQIA_APPL_TYPE, C.MQCACF_APPL_NAME, *client]
    assert values(get_event)[C.MQCA_Q_NAME] == values(put_event)[C.MQCA_Q_NAME] == "INH.Q"
    assert values(get_event)[C.MQCACF_APPL_NAME] == "events-test"


def test_put_inhibited_topic_names_the_topic_string(qm):
    define(qm, "DEFINE TOPIC(INH.T) TOPICSTR('inh/t') PUB(DISABLED)")
    qm.registry.qmgr.inhibit_event = ON
    session = connect(qm, user="admin", admin=True)
    with pytest.raises(MQIError):
        open_(qm, session, "INH.T", C.MQOO_OUTPUT, C.MQOT_TOPIC)
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert msg.header.Reason == C.MQRC_PUT_INHIBITED
    assert C.MQCA_Q_NAME not in ids(msg) and values(msg)[C.MQCA_TOPIC_STRING] == "inh/t"


# ---- local events (LOCALEV) -------------------------------------------------------------------------
def test_local_events(qm):
    reg = qm.registry
    define(qm, "DEFINE QALIAS(TO.NOWHERE) TARGET(NOT.THERE)\nDEFINE QALIAS(TO.ALIAS) TARGET(TO.NOWHERE)")
    session = connect(qm, user="admin", admin=True)
    cases = [("NO.SUCH.Q", C.MQRC_UNKNOWN_OBJECT_NAME), ("TO.NOWHERE", C.MQRC_UNKNOWN_ALIAS_BASE_Q),
             ("TO.ALIAS", C.MQRC_ALIAS_BASE_Q_TYPE_ERROR)]
    for switch in (OFF, ON):
        reg.qmgr.local_event = switch
        for name, reason in cases:
            with pytest.raises(MQIError) as err:
                open_(qm, session, name, C.MQOO_OUTPUT)
            assert err.value.reason == reason
    got = events_on(qm, E.QMGR_QUEUE)
    assert [m.header.Reason for _, m in got] == [r for _, r in cases]
    unknown, base, base_type = (m for _, m in got)
    client = [C.MQCACH_CONNECTION_NAME, C.MQCACH_CHANNEL_NAME]
    assert ids(unknown) == [C.MQCA_Q_MGR_NAME, C.MQIA_APPL_TYPE, C.MQCACF_APPL_NAME, C.MQCA_Q_NAME, *client]
    assert ids(base) == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQCA_BASE_OBJECT_NAME, C.MQIA_APPL_TYPE,
                         C.MQCACF_APPL_NAME, C.MQIA_BASE_TYPE, *client]
    assert (values(base)[C.MQCA_BASE_OBJECT_NAME], values(base)[C.MQIA_BASE_TYPE]) == ("NOT.THERE", C.MQOT_Q)
    assert ids(base_type) == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQCA_BASE_OBJECT_NAME, C.MQIA_Q_TYPE,
                              C.MQIA_APPL_TYPE, C.MQCACF_APPL_NAME, *client]
    assert values(base_type)[C.MQIA_Q_TYPE] == C.MQQT_ALIAS


# ---- performance events (PERFMEV and the queue's switches) -------------------------------------------
def _perf(qm, **attrs):
    define(qm, "DEFINE QLOCAL(PERF.Q) MAXDEPTH(10) QDEPTHHI(80) QDEPTHLO(20)")
    reg = qm.registry
    reg.put_queue(dataclasses.replace(reg.queues["PERF.Q"], **attrs))
    session = connect(qm, user="admin", admin=True)
    out = open_(qm, session, "PERF.Q", C.MQOO_OUTPUT)
    inp = qm.input_handle(session, open_(qm, session, "PERF.Q", C.MQOO_INPUT_SHARED).hobj, 0)
    return session, out, inp


def test_queue_depth_high_low_full_follow_ibms_switch_flipping(qm, clock):
    reg = qm.registry
    reg.qmgr.performance_event = ON
    session, out, inp = _perf(qm, q_depth_high_event=ON, q_depth_low_event=OFF, q_depth_max_event=OFF)
    reasons = []

    def seen():
        got = events_on(qm, E.PERFM_QUEUE)
        reasons.extend(m.header.Reason for _, m in got)
        return got

    for _ in range(7):
        put(qm, session, out.hobj)
    assert seen() == []  # 7 of 10 is under 80%
    put(qm, session, out.hobj)  # 8: Queue Depth High; it turns itself off, Low and Full on
    [(md, high)] = seen()
    assert high.header.Command == C.MQCMD_PERFM_EVENT and high.header.Reason == C.MQRC_Q_DEPTH_HIGH
    assert ids(high) == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQIA_TIME_SINCE_RESET, C.MQIA_HIGH_Q_DEPTH,
                         C.MQIA_MSG_ENQ_COUNT, C.MQIA_MSG_DEQ_COUNT]
    assert values(high)[C.MQIA_HIGH_Q_DEPTH] == 8 and values(high)[C.MQIA_MSG_ENQ_COUNT] == 8
    q = reg.queues["PERF.Q"]
    assert (q.q_depth_high_event, q.q_depth_low_event, q.q_depth_max_event) == (OFF, ON, ON)
    put(qm, session, out.hobj)
    put(qm, session, out.hobj)  # 10: full now, but no put refused yet
    assert seen() == []
    with pytest.raises(MQIError) as err:
        put(qm, session, out.hobj)
    assert err.value.reason == C.MQRC_Q_FULL
    [(_, full)] = seen()
    assert full.header.Reason == C.MQRC_Q_FULL
    # statistics were reset by the Depth High event: two puts since
    assert values(full)[C.MQIA_MSG_ENQ_COUNT] == 2 and values(full)[C.MQIA_HIGH_Q_DEPTH] == 10
    q = reg.queues["PERF.Q"]
    assert (q.q_depth_high_event, q.q_depth_low_event, q.q_depth_max_event) == (OFF, ON, OFF)
    with pytest.raises(MQIError):
        put(qm, session, out.hobj)
    assert seen() == []  # Full is off until Depth Low or High turns it on again
    for _ in range(7):
        get(qm, session, inp)
    assert seen() == []  # 3 left: over 20%
    get(qm, session, inp)  # 2 of 10: Queue Depth Low
    [(_, low)] = seen()
    assert low.header.Reason == C.MQRC_Q_DEPTH_LOW and values(low)[C.MQIA_MSG_DEQ_COUNT] == 8
    q = reg.queues["PERF.Q"]
    assert (q.q_depth_high_event, q.q_depth_low_event, q.q_depth_max_event) == (ON, OFF, ON)
    assert reasons == [C.MQRC_Q_DEPTH_HIGH, C.MQRC_Q_FULL, C.MQRC_Q_DEPTH_LOW]


def test_performance_events_need_perfmev(qm):
    reg = qm.registry
    session, out, inp = _perf(qm, q_depth_high_event=ON, q_depth_low_event=ON, q_depth_max_event=ON,
                              q_service_interval_event=C.MQQSIE_HIGH, q_service_interval=0)
    for _ in range(10):
        put(qm, session, out.hobj)
    with pytest.raises(MQIError):
        put(qm, session, out.hobj)
    for _ in range(10):
        get(qm, session, inp)
    assert events_on(qm, E.PERFM_QUEUE) == []
    assert reg.queues["PERF.Q"].q_depth_high_event == ON  # nothing flipped either


def test_queue_service_interval_high_then_ok(qm, clock):
    reg = qm.registry
    reg.qmgr.performance_event = ON
    session, out, inp = _perf(qm, q_service_interval_event=C.MQQSIE_HIGH, q_service_interval=1000)
    put(qm, session, out.hobj)  # timer starts: a put to an empty queue
    clock.t += 0.5
    put(qm, session, out.hobj)
    assert events_on(qm, E.PERFM_QUEUE) == []  # within the interval
    clock.t += 1.0
    put(qm, session, out.hobj)  # 1.5 s and no get: Service Interval High at this put
    [(_, high)] = events_on(qm, E.PERFM_QUEUE)
    assert high.header.Reason == C.MQRC_Q_SERVICE_INTERVAL_HIGH
    assert ids(high)[:2] == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME] and values(high)[C.MQIA_MSG_ENQ_COUNT] == 3
    assert reg.queues["PERF.Q"].q_service_interval_event == C.MQQSIE_OK
    clock.t += 0.2
    get(qm, session, inp)  # 1.7 s since the timer started: no OK (the timer restarts: messages left)
    assert events_on(qm, E.PERFM_QUEUE) == []
    clock.t += 0.5
    get(qm, session, inp)  # 0.5 s since the last get: within the interval, Service Interval OK
    [(_, ok)] = events_on(qm, E.PERFM_QUEUE)
    assert ok.header.Reason == C.MQRC_Q_SERVICE_INTERVAL_OK
    assert reg.queues["PERF.Q"].q_service_interval_event == C.MQQSIE_HIGH
    clock.t += 0.5  # the get restarted the timer (messages left)
    get(qm, session, inp)
    assert events_on(qm, E.PERFM_QUEUE) == []  # HIGH armed, and 0.5 s is within 1 s


# ---- start and stop (STRSTPEV) ----------------------------------------------------------------------
def test_start_stop_switch(qm):
    qm.events.qmgr_active()
    qm.events.qmgr_not_active()
    assert events_on(qm, E.QMGR_QUEUE) == []
    qm.registry.qmgr.start_stop_event = ON
    qm.events.qmgr_active()
    qm.events.qmgr_not_active(quiescing=False)
    got = [m for _, m in events_on(qm, E.QMGR_QUEUE)]
    assert [m.header.Reason for m in got] == [C.MQRC_Q_MGR_ACTIVE, C.MQRC_Q_MGR_NOT_ACTIVE]
    assert values(got[1])[C.MQIACF_REASON_QUALIFIER] == E.MQRQ_Q_MGR_STOPPING


# ---- channel events (CHLEV) -------------------------------------------------------------------------
def test_channel_started_and_stopped_by_user(qm):
    reg = qm.registry
    define(qm, "DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('qm2(1414)') XMITQ(QM2)")
    for switch in (OFF, ON):
        reg.qmgr.channel_event = switch
        define(qm, "START CHANNEL(TO.QM2)\nSTOP CHANNEL(TO.QM2)")
    got = [m for _, m in events_on(qm, E.CHANNEL_QUEUE)]
    assert [(m.header.Command, m.header.Reason) for m in got] == [
        (C.MQCMD_CHANNEL_EVENT, C.MQRC_CHANNEL_STARTED), (C.MQCMD_CHANNEL_EVENT, C.MQRC_CHANNEL_STOPPED_BY_USER)]
    assert ids(got[0]) == [C.MQCA_Q_MGR_NAME, C.MQCACH_CHANNEL_NAME, C.MQCACH_XMIT_Q_NAME, C.MQCACH_CONNECTION_NAME]
    assert values(got[0])[C.MQCACH_XMIT_Q_NAME] == "QM2"
    assert values(got[1]) == {C.MQCA_Q_MGR_NAME: "QM1", C.MQIACF_REASON_QUALIFIER: E.MQRQ_CHANNEL_STOPPED_DISABLED,
                              C.MQCACH_CHANNEL_NAME: "TO.QM2"}


@pytest.mark.parametrize("rule,qualifier", [
    ("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('10.9.*') ACTION(REPLACE)", E.MQRQ_CHANNEL_BLOCKED_ADDRESS),
    ("SET CHLAUTH('DEV.APP.SVRCONN') TYPE(BLOCKUSER) USERLIST('app') ACTION(REPLACE)", E.MQRQ_CHANNEL_BLOCKED_USERID),
    ("SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('10.9.*') USERSRC(NOACCESS) ACTION(REPLACE)",
     E.MQRQ_CHANNEL_BLOCKED_NOACCESS),
])
def test_chlauth_verdict_names_the_block(qm, rule, qualifier):
    define(qm, rule)
    verdict = chlauth.check(qm.registry, channel="DEV.APP.SVRCONN", address="10.9.8.7", client_user="app",
                            channel_mcauser="app")
    assert not verdict.allowed and verdict.blocked == qualifier
    warned = chlauth.check(qm.registry, channel="DEV.APP.SVRCONN", address="10.1.1.1", client_user="x",
                           channel_mcauser="someone")
    assert warned.allowed and warned.blocked == 0


def test_channel_blocked_event(qm):
    reg = qm.registry
    for switch in (OFF, ON):
        reg.qmgr.channel_event = switch
        for qualifier in (E.MQRQ_CHANNEL_BLOCKED_ADDRESS, E.MQRQ_CHANNEL_BLOCKED_USERID):
            qm.events.channel_blocked(qualifier=qualifier, warning=False, channel="DEV.APP.SVRCONN",
                                      conname="10.9.8.7", user="app")
    qm.events.channel_blocked(qualifier=E.MQRQ_CHANNEL_BLOCKED_NOACCESS, warning=True, channel="DEV.APP.SVRCONN",
                              conname="10.9.8.7")
    address, userid, warn = (m for _, m in events_on(qm, E.CHANNEL_QUEUE))
    assert address.header.Reason == userid.header.Reason == C.MQRC_CHANNEL_BLOCKED
    assert ids(address) == [C.MQCA_Q_MGR_NAME, C.MQIACF_REASON_QUALIFIER, C.MQCACH_CONNECTION_NAME]
    assert ids(userid) == [C.MQCA_Q_MGR_NAME, C.MQIACF_REASON_QUALIFIER, C.MQCACH_CHANNEL_NAME,
                           C.MQCACF_USER_IDENTIFIER, C.MQCACH_CONNECTION_NAME]
    assert warn.header.Reason == C.MQRC_CHANNEL_BLOCKED_WARNING


# ---- configuration events (CONFIGEV) ----------------------------------------------------------------
def test_configuration_events_create_change_delete(qm):
    reg = qm.registry
    define(qm, "DEFINE QLOCAL(CFG.OFF)")
    assert events_on(qm, E.CONFIG_QUEUE) == []
    reg.qmgr.configuration_event = ON
    define(qm, "DEFINE QLOCAL(CFG.Q) MAXDEPTH(100)\nALTER QLOCAL(CFG.Q) MAXDEPTH(200)\nDELETE QLOCAL(CFG.Q)")
    got = [m for _, m in events_on(qm, E.CONFIG_QUEUE)]
    assert [(m.header.Reason, m.header.MsgSeqNumber, m.header.Control) for m in got] == [
        (C.MQRC_CONFIG_CREATE_OBJECT, 1, C.MQCFC_LAST),
        (C.MQRC_CONFIG_CHANGE_OBJECT, 1, C.MQCFC_NOT_LAST), (C.MQRC_CONFIG_CHANGE_OBJECT, 2, C.MQCFC_LAST),
        (C.MQRC_CONFIG_DELETE_OBJECT, 1, C.MQCFC_LAST)]
    for m in got:
        assert (m.header.Command, m.header.Version, m.header.CompCode) == (C.MQCMD_CONFIG_EVENT, 2, C.MQCC_WARNING)
        assert ids(m)[:6] == [C.MQCACF_EVENT_USER_ID, C.MQIACF_EVENT_ORIGIN, C.MQCACF_EVENT_Q_MGR,
                              C.MQIACF_OBJECT_TYPE, C.MQCA_Q_NAME, C.MQIA_Q_TYPE]
        assert values(m)[C.MQIACF_EVENT_ORIGIN] == E.MQEVO_CONSOLE and values(m)[C.MQCA_Q_NAME] == "CFG.Q"
    assert [values(m)[C.MQIA_MAX_Q_DEPTH] for m in got] == [100, 100, 200, 200]


def test_define_replace_is_a_change_and_a_failed_command_raises_none(qm):
    qm.registry.qmgr.configuration_event = ON
    define(qm, "DEFINE QLOCAL(CFG.R)")
    events_on(qm, E.CONFIG_QUEUE)
    define(qm, "DEFINE QLOCAL(CFG.R) DESCR('again') REPLACE")
    assert [m.header.Reason for _, m in events_on(qm, E.CONFIG_QUEUE)] == [C.MQRC_CONFIG_CHANGE_OBJECT] * 2
    run_mqsc(qm, "DEFINE QLOCAL(CFG.R)")  # exists, no REPLACE: fails
    assert events_on(qm, E.CONFIG_QUEUE) == []


@pytest.mark.parametrize("mqsc,object_type", [
    ("DEFINE TOPIC(CFG.T) TOPICSTR('cfg/t')", C.MQOT_TOPIC),
    ("DEFINE CHANNEL(CFG.C) CHLTYPE(SVRCONN)", C.MQOT_CHANNEL),
    ("DEFINE NAMELIST(CFG.N)", C.MQOT_NAMELIST),
    ("DEFINE PROCESS(CFG.P)", C.MQOT_PROCESS),
    ("DEFINE AUTHINFO(CFG.A) AUTHTYPE(IDPWOS)", C.MQOT_AUTH_INFO),
    ("DEFINE LISTENER(CFG.L) TRPTYPE(TCP)", C.MQOT_LISTENER),
    ("DEFINE SERVICE(CFG.S)", C.MQOT_SERVICE),
    ("DEFINE COMMINFO(CFG.CI)", C.MQOT_COMM_INFO),
])
def test_create_object_event_for_every_object_type(qm, mqsc, object_type):
    qm.registry.qmgr.configuration_event = ON
    define(qm, mqsc)
    [(_, msg)] = events_on(qm, E.CONFIG_QUEUE)
    assert msg.header.Reason == C.MQRC_CONFIG_CREATE_OBJECT and values(msg)[C.MQIACF_OBJECT_TYPE] == object_type
    assert len(msg.parameters) > 5  # the object's attributes follow its name


def test_change_queue_manager_and_configev_turning_on_refreshes(qm):
    reg = qm.registry
    reg.qmgr.configuration_event = ON
    define(qm, "ALTER QMGR DESCR('events')")
    before, after = (m for _, m in events_on(qm, E.CONFIG_QUEUE))
    assert values(before)[C.MQIACF_OBJECT_TYPE] == C.MQOT_Q_MGR
    assert values(before)[C.MQCA_Q_MGR_DESC] == "" and values(after)[C.MQCA_Q_MGR_DESC] == "events"
    # IBM: a Refresh Queue Manager TYPE(CONFIGEV) is made when CONFIGEV goes from DISABLED to ENABLED
    reg.qmgr.configuration_event = OFF
    [response] = qm.engine.execute(command(C.MQCMD_CHANGE_Q_MGR, i(C.MQIA_CONFIGURATION_EVENT, ON)))
    assert response.header.CompCode == C.MQCC_OK
    got = [m for _, m in events_on(qm, E.CONFIG_QUEUE)]
    # the change itself (CONFIGEV on after it: before and after), then a Refresh Object for each object
    assert [m.header.Reason for m in got[:2]] == [C.MQRC_CONFIG_CHANGE_OBJECT] * 2
    assert values(got[1])[C.MQIA_CONFIGURATION_EVENT] == ON and values(got[0])[C.MQIA_CONFIGURATION_EVENT] == OFF
    refreshed = {values(m).get(C.MQCA_Q_NAME) for m in got[2:] if values(m)[C.MQIACF_OBJECT_TYPE] == C.MQOT_Q}
    assert {m.header.Reason for m in got[2:]} == {C.MQRC_CONFIG_REFRESH_OBJECT}
    assert refreshed == {name for name, q in reg.queues.items() if q.definition_type != C.MQQDT_TEMPORARY_DYNAMIC}


def test_refresh_queue_manager_selects_by_type_name_and_interval(qm, clock):
    reg = qm.registry
    define(qm, "DEFINE QLOCAL(RF.A)\nDEFINE QLOCAL(RF.B)\nDEFINE QALIAS(RF.C) TARGET(RF.A)")
    define(qm, "REFRESH QMGR TYPE(CONFIGEV)")
    assert events_on(qm, E.CONFIG_QUEUE) == []  # CONFIGEV off: nothing
    reg.qmgr.configuration_event = ON
    define(qm, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL) NAME(RF.*)")
    got = [m for _, m in events_on(qm, E.CONFIG_QUEUE)]
    assert [values(m)[C.MQCA_Q_NAME] for m in got] == ["RF.A", "RF.B"]
    assert {m.header.Reason for m in got} == {C.MQRC_CONFIG_REFRESH_OBJECT}
    clock.t += 3600
    define(qm, "ALTER QLOCAL(RF.B) DESCR('new')")
    events_on(qm, E.CONFIG_QUEUE)
    define(qm, "REFRESH QMGR TYPE(CONFIGEV) NAME(RF.*) INCLINT(10)")
    assert [values(m)[C.MQCA_Q_NAME] for _, m in events_on(qm, E.CONFIG_QUEUE)] == ["RF.B"]


# ---- command events (CMDEV) -------------------------------------------------------------------------
def test_command_events_pcf_mqsc_and_inquiries(qm):
    reg = qm.registry
    define(qm, "DEFINE QLOCAL(CMD.OFF)")
    assert events_on(qm, E.COMMAND_QUEUE) == []
    reg.qmgr.command_event = C.MQEVR_NO_DISPLAY
    request = command(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "CMD.Q"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL))
    qm.engine.execute(request)
    qm.engine.execute(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "CMD.Q")))  # NODISPLAY: none
    define(qm, "DISPLAY QLOCAL(CMD.Q)\nALTER QLOCAL(CMD.Q) MAXDEPTH(9)")
    run_mqsc(qm, "DELETE QLOCAL(NOT.THERE)")  # fails: none
    got = [m for _, m in events_on(qm, E.COMMAND_QUEUE)]
    assert [m.header.Reason for m in got] == [C.MQRC_COMMAND_PCF, C.MQRC_COMMAND_MQSC]
    pcf, mqsc = got
    assert (pcf.header.Command, pcf.header.Version, len(pcf.parameters)) == (C.MQCMD_COMMAND_EVENT, 3, 2)
    context, data = pcf.parameters
    assert (context.parameter, data.parameter) == (C.MQGACF_COMMAND_CONTEXT, C.MQGACF_COMMAND_DATA)
    assert [p.parameter for p in context.parameters] == [C.MQCACF_EVENT_USER_ID, C.MQIACF_EVENT_ORIGIN,
                                                         C.MQCACF_EVENT_Q_MGR, C.MQIACF_COMMAND]
    assert context.get(C.MQIACF_COMMAND).value == C.MQCMD_CREATE_Q
    assert [(p.parameter, p.value) for p in data.parameters] == [(C.MQCA_Q_NAME, "CMD.Q"),
                                                                 (C.MQIA_Q_TYPE, C.MQQT_LOCAL)]
    assert mqsc.parameters[0].get(C.MQIACF_COMMAND).value == C.MQCMD_CHANGE_Q
    assert mqsc.parameters[1].get(C.MQIA_MAX_Q_DEPTH).value == 9
    reg.qmgr.command_event = ON  # ENABLED: inquiries too
    qm.engine.execute(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "CMD.Q")))
    [(_, inquiry)] = events_on(qm, E.COMMAND_QUEUE)
    assert inquiry.parameters[0].get(C.MQIACF_COMMAND).value == C.MQCMD_INQUIRE_Q


def test_command_event_from_a_command_message_carries_its_context(qm):
    reg = qm.registry
    reg.qmgr.command_event = ON
    md = S.MQMD(UserIdentifier="admin", AccountingToken=b"\x01" * 32, ApplIdentityData="ident",
                PutApplType=C.MQAT_UNIX, PutApplName="tool", ApplOriginData="orig")
    qm.engine.execute(command(C.MQCMD_PING_Q_MGR), Requester(user="admin", origin=E.MQEVO_MSG, md=md))
    [(_, msg)] = events_on(qm, E.COMMAND_QUEUE)
    context = msg.parameters[0]
    assert [p.parameter for p in context.parameters] == [
        C.MQCACF_EVENT_USER_ID, C.MQIACF_EVENT_ORIGIN, C.MQCACF_EVENT_Q_MGR, C.MQBACF_EVENT_ACCOUNTING_TOKEN,
        C.MQCACF_EVENT_APPL_IDENTITY, C.MQIACF_EVENT_APPL_TYPE, C.MQCACF_EVENT_APPL_NAME, C.MQCACF_EVENT_APPL_ORIGIN,
        C.MQIACF_COMMAND]
    assert context.get(C.MQBACF_EVENT_ACCOUNTING_TOKEN).value == b"\x01" * 32
    assert context.get(C.MQCACF_EVENT_APPL_NAME).value.rstrip() == "tool"
    assert context.get(C.MQIACF_EVENT_ORIGIN).value == E.MQEVO_MSG


def test_change_queue_manager_command_event_when_cmdev_is_on_before_or_after(qm):
    reg = qm.registry
    reg.qmgr.command_event = ON
    define(qm, "ALTER QMGR DESCR('x')")
    assert len(events_on(qm, E.COMMAND_QUEUE)) == 1
    reg.qmgr.command_event = OFF
    define(qm, "ALTER QMGR DESCR('y')")
    assert events_on(qm, E.COMMAND_QUEUE) == []


def test_every_switch_off_costs_no_event_at_all(qm, clock):
    """A sweep: every condition provoked with every switch off leaves every event queue empty."""
    session = connect(qm, user="admin", admin=True)
    for name in ("NO.SUCH.Q",):
        with pytest.raises(MQIError):
            open_(qm, session, name, C.MQOO_OUTPUT)
    with pytest.raises(MQIError):
        qm.connect("QM1", user="nobody", admin=False)
    define(qm, "DEFINE QLOCAL(SW.Q) PUT(DISABLED)\nREFRESH QMGR TYPE(CONFIGEV)\nDISPLAY QMGR")
    out = open_(qm, session, "SW.Q", C.MQOO_OUTPUT)
    with pytest.raises(MQIError):
        put(qm, session, out.hobj)
    qm.events.qmgr_active()
    for queue in E.EVENT_QUEUES:
        assert qm.registry.messages.depth(queue) == 0, queue


# ---- remote events (REMOTEEV) ------------------------------------------------------------------------
def test_unknown_remote_queue_manager(qm):
    reg = qm.registry
    define(qm, "DEFINE QREMOTE(TO.ELSEWHERE) RNAME(THEIR.Q) RQMNAME(QM2)")
    session = connect(qm, user="admin", admin=True)
    for switch in (OFF, ON):
        reg.qmgr.remote_event = switch
        with pytest.raises(MQIError) as err:
            open_(qm, session, "TO.ELSEWHERE", C.MQOO_OUTPUT)
        assert err.value.reason == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert (msg.header.Command, msg.header.Reason) == (C.MQCMD_Q_MGR_EVENT, C.MQRC_UNKNOWN_REMOTE_Q_MGR)
    assert ids(msg) == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQIA_APPL_TYPE, C.MQCACF_APPL_NAME,
                        C.MQCACH_CONNECTION_NAME, C.MQCACH_CHANNEL_NAME]
    assert values(msg)[C.MQCA_Q_NAME] == "TO.ELSEWHERE"


def test_mqset_raises_a_change_object_event_with_origin_mqset(qm):
    reg = qm.registry
    session = connect(qm, user="admin", admin=True)
    handle = open_(qm, session, "DEV.QUEUE.2", C.MQOO_SET)
    for switch in (OFF, ON):
        reg.qmgr.configuration_event = switch
        qm.set(session, handle.hobj, [C.MQIA_INHIBIT_PUT], [C.MQQA_PUT_INHIBITED if switch else C.MQQA_PUT_ALLOWED], "")
    before, after = (m for _, m in events_on(qm, E.CONFIG_QUEUE))
    assert [(m.header.Reason, m.header.MsgSeqNumber) for m in (before, after)] == [
        (C.MQRC_CONFIG_CHANGE_OBJECT, 1), (C.MQRC_CONFIG_CHANGE_OBJECT, 2)]
    assert values(before)[C.MQIACF_EVENT_ORIGIN] == E.MQEVO_MQSET and values(before)[C.MQCACF_EVENT_USER_ID] == "admin"
    assert (values(before)[C.MQIA_INHIBIT_PUT], values(after)[C.MQIA_INHIBIT_PUT]) == (
        C.MQQA_PUT_ALLOWED, C.MQQA_PUT_INHIBITED)


def test_not_authorized_type_4_for_an_inquire_of_an_object_the_user_may_not_display(qm):
    qm.registry.qmgr.authority_event = ON
    from qmlite.registry.security import authrecs
    from qmlite.registry.security import vocab as A

    # app may run commands (dsp on the queue manager) but not display SYSTEM queues
    request = command(C.MQCMD_SET_AUTH_REC, st(C.MQCACF_AUTH_PROFILE_NAME, "QM1"),
                      i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q_MGR), P.CFSL(C.MQCACF_PRINCIPAL_ENTITY_NAMES, ("app",)),
                      P.CFIL(C.MQIACF_AUTH_ADD_AUTHS, (A.MQAUTH_DISPLAY,)))
    assert qm.engine.execute(request)[0].header.CompCode == C.MQCC_OK
    assert authrecs.has(qm.registry, "app", C.MQOT_Q_MGR, "QM1", A.MQAUTH_DISPLAY)
    [first, *_] = qm.engine.execute(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "SYSTEM.DEFAULT.LOCAL.QUEUE")),
                                    Requester(user="app", admin=False))
    assert first.header.Reason == C.MQRC_NOT_AUTHORIZED
    [(_, msg)] = events_on(qm, E.QMGR_QUEUE)
    assert values(msg)[C.MQIACF_COMMAND] == C.MQCMD_INQUIRE_Q
