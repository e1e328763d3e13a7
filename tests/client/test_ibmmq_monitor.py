"""Resource-usage monitoring with IBM's ``ibmmq`` through the ``ibmmqc`` transport: discovery the
way amqsrua and IBM's exporter (mq-golang mqmetric) do it -- MQSUB (CREATE, NON_DURABLE, MANAGED)
on the retained metadata topics, MQGET with a wait -- then a subscription to a resource topic, and
one publication after the server's monitor publishes (driven here, not by its clock).
"""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC  # noqa: E402

from tests.support.inprocess import serving  # noqa: E402
from qmlite.pcf import constants as C  # noqa: E402
from qmlite.pcf import pcf as P  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
ROOT = "$SYS/MQ/INFO/QMGR/QM1/Monitor"
Q = "DEV.QUEUE.1"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server whose monitor clock never fires on its own (an hour's interval): the test publishes."""
    with serving(tmp_path_factory.mktemp("monitor"), "monitor", monitor_interval=3600.0) as srv:
        yield srv


def _sub(qmgr, topic):
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED | CMQC.MQSO_FAIL_IF_QUIESCING)
    sd.set_vs("ObjectString", topic)
    sub = ibmmq.Subscription(qmgr)
    sub.sub(sub_desc=sd)
    return sub


def _read(sub) -> P.PCFMessage:
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_CONVERT, WaitInterval=5000)
    data = sub.get(None, md, gmo)
    assert md.Format.strip() == b"MQADMIN"
    return P.decode(data, md.Encoding, md.CodedCharSetId, strict=False)


def _discover(qmgr, topic):
    sub = _sub(qmgr, topic)
    try:
        return _read(sub)
    finally:
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)


def _groups(msg, group_id):
    return [{p.parameter: p.value for p in g.parameters} for g in msg
            if isinstance(g, P.CFGR) and g.parameter == group_id]


def test_discover_classes_then_receive_a_statq_publication(server, qmgr):
    classes = {g[C.MQCAMO_MONITOR_CLASS]: g for g in _groups(_discover(qmgr, f"{ROOT}/METADATA/CLASSES"),
                                                              C.MQGACF_MONITOR_CLASS)}
    assert {"CPU", "STATMQI", "STATQ"} <= set(classes)
    types = {g[C.MQCAMO_MONITOR_TYPE]: g for g in _groups(
        _discover(qmgr, classes["STATQ"][C.MQCA_TOPIC_STRING]), C.MQGACF_MONITOR_TYPE)}
    elements = _discover(qmgr, types["PUT"][C.MQCA_TOPIC_STRING])
    object_topic = elements.get(C.MQCA_TOPIC_STRING).value
    assert object_topic == f"{ROOT}/STATQ/%s/PUT"
    count_index = next(g[C.MQIAMO_MONITOR_ELEMENT] for g in _groups(elements, C.MQGACF_MONITOR_ELEMENT)
                       if g[C.MQCAMO_MONITOR_DESC] == "MQPUT/MQPUT1 count")

    sub = _sub(qmgr, object_topic % Q)
    queue = ibmmq.Queue(qmgr, Q, CMQC.MQOO_OUTPUT)
    try:
        for _ in range(3):
            queue.put(b"metric", ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
        server.loop.run_sync(server.qm.monitor.publish_resource_usage)
        pub = _read(sub)
        assert pub.get(C.MQCA_Q_NAME).value.strip() == Q
        assert pub.get(C.MQIAMO_MONITOR_CLASS).value == classes["STATQ"][C.MQIAMO_MONITOR_CLASS]
        assert pub.get(C.MQIAMO_MONITOR_TYPE).value == types["PUT"][C.MQIAMO_MONITOR_TYPE]
        assert pub.get(count_index).value == 3
    finally:
        queue.close()
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)


def test_qmgr_level_publication_reaches_a_subscriber(server, qmgr):
    sub = _sub(qmgr, f"{ROOT}/STATMQI/CONNDISC")
    try:
        other = ibmmq.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
        other.disconnect()
        server.loop.run_sync(server.qm.monitor.publish_resource_usage)
        pub = _read(sub)
        assert pub.get(C.MQIAMO_MONITOR_CLASS).value == 2
        assert pub.get(C.MQIAMO64_MONITOR_INTERVAL).value > 0
        assert pub.get(0).value >= 1 and pub.get(3).value >= 1  # MQCONN and MQDISC counts
    finally:
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)


def test_what_mqmetric_inquires_before_it_subscribes(server, qmgr):
    # InitConnection: MQINQ on the queue manager; command level 9.0 or later enables publications.
    assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == b"QM1"
    assert qmgr.inquire(CMQC.MQIA_COMMAND_LEVEL) >= 900
    assert qmgr.inquire(CMQC.MQIA_PLATFORM) != CMQC.MQPL_ZOS
    assert qmgr.inquire(CMQC.MQIA_MAX_HANDLES) > 0
    qmgr.inquire(CMQC.MQIA_PERFORMANCE_EVENT)
    # VerifyConfig: its reply queue comes from a model queue, and it reads MAXDEPTH and DEFTYPE.
    reply = ibmmq.Queue(qmgr, ibmmq.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"MQMON.*"),
                        CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INQUIRE)
    try:
        assert reply.inquire(CMQC.MQIA_MAX_Q_DEPTH) > 0
        assert reply.inquire(CMQC.MQIA_DEFINITION_TYPE) != CMQC.MQQDT_PREDEFINED
    finally:
        reply.close()
