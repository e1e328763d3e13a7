"""Application activity trace through IBM's ``ibmmq`` (ibmmqc transport): ACTVTRC(ON), or ACTVCONO with
the MQCNO activity options, a known sequence of MQI calls, and the activity trace messages got from
SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE (and from the $SYS/.../ActivityTrace topic) parsed by ibmmq's own PCF
parsing (PCFExecute.unpack), one operation group per call, matching the calls made.  Plus qmlite's call
log, reached from MQSC (DISPLAY/ALTER/CLEAR QMLTRACE)."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

from tests.support.ibmmqkit import drain_admin  # noqa: E402
from tests.support.inprocess import serving  # noqa: E402
from qmlite.pcf import constants as C  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
Q = "DEV.QUEUE.2"
TRACEQ = "SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE"
# cmqxc.h MQXF_* (ibmmq's CMQXC has them too, checked below)
MQXF = {"MQCONNX": 4, "MQDISC": 5, "MQOPEN": 6, "MQCLOSE": 7, "MQPUT1": 8, "MQPUT": 9, "MQGET": 10,
        "MQINQ": 12, "MQSET": 13, "MQCMIT": 15, "MQBACK": 16, "MQSUB": 22, "MQSUBRQ": 23}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server started in the test's process; its monitoring clock is far away, so a connection's
    trace message is written at its MQDISC (or after ActivityCount calls)."""
    with serving(tmp_path_factory.mktemp("activity"), "activity", monitor_interval=3600.0) as srv:
        # ActivityInterval out of reach: a connection's message is written by ActivityCount or MQDISC
        # alone, whatever the machine's speed (the interval is tested on the domain's clock)
        srv.loop.run_sync(lambda: setattr(srv.qm.activity, "interval", 3600.0))
        yield srv


def _set(server, **values):
    def apply():
        for name, value in values.items():
            setattr(server.qm.registry.qmgr, name, value)
    server.loop.run_sync(apply)


def _connect(server, opts=0):
    cd = ibmmq.CD(ChannelName=ADMIN.encode(), ConnectionName=server.conn_name.encode(),
                  ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options("QM1", user="admin", password="passw0rd", cd=cd, opts=opts)
    return qm


def _drain(qmgr, name=TRACEQ):
    return drain_admin(qmgr, name)


@pytest.fixture
def clean(server, qmgr):
    _drain(qmgr)
    yield
    _set(server, activity_trace=C.MQMON_OFF, activity_conn_override=C.MQMON_DISABLED)
    _drain(qmgr)


def _calls(qm):
    """MQOPEN, MQPUT x2, MQPUT1, MQGET x3, MQGET failing 2033, MQINQ, MQCLOSE."""
    queue = ibmmq.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    put_ids = []
    for size in (10, 20):
        md = ibmmq.MD()
        queue.put(b"m" * size, md)
        put_ids.append(md.MsgId)
    md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
    qm.put1(Q, b"p" * 5, md)
    put_ids.append(md.MsgId)
    for _ in range(3):
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    with pytest.raises(ibmmq.MQMIError) as failed:
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    assert failed.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    queue.close()
    return put_ids


# ibmmq's Queue() makes an MQINQ of its own right after the MQOPEN: a call the application made, so traced
EXPECTED = ["MQCONNX", "MQOPEN", "MQINQ", "MQPUT", "MQPUT", "MQPUT1", "MQGET", "MQGET", "MQGET", "MQGET", "MQINQ",
            "MQCLOSE",
            "MQDISC"]


def _ops(params):
    return params[CMQCFC.MQGACF_ACTIVITY_TRACE]


def test_mqxf_values_are_ibms():
    for name, value in MQXF.items():
        ibm = getattr(CMQXC, "MQXF_" + name[2:], None)
        assert ibm is None or ibm == value, name


def test_actvtrc_on_one_group_per_call(server, qmgr, clean):
    _set(server, activity_trace=C.MQMON_ON)
    worker = _connect(server)
    put_ids = _calls(worker)
    worker.disconnect()
    _set(server, activity_trace=C.MQMON_OFF)
    messages = _drain(qmgr)
    assert len(messages) == 1
    md, cfh, params = messages[0]
    assert cfh.Type == CMQCFC.MQCFT_APP_ACTIVITY and cfh.Command == CMQCFC.MQCMD_ACTIVITY_TRACE
    assert cfh.Version == 3 and cfh.Control == CMQCFC.MQCFC_LAST and cfh.MsgSeqNumber == 1
    assert params[CMQC.MQCA_Q_MGR_NAME].strip() == b"QM1"
    assert params[CMQCFC.MQIACF_SEQUENCE_NUMBER] == 0
    assert params[CMQCFC.MQCACF_USER_IDENTIFIER].strip() == b"admin"
    assert params[CMQCFC.MQCACH_CHANNEL_NAME].strip() == ADMIN.encode()
    assert params[CMQCFC.MQIACF_TRACE_DETAIL] == 2  # MQACTV_DETAIL_MEDIUM
    for pid in (CMQCFC.MQCACF_HOST_NAME, CMQCFC.MQCAMO_START_DATE, CMQCFC.MQCAMO_START_TIME,
                CMQCFC.MQCAMO_END_DATE, CMQCFC.MQCAMO_END_TIME, CMQC.MQIA_COMMAND_LEVEL, CMQCFC.MQCACF_APPL_NAME,
                CMQC.MQIA_APPL_TYPE, CMQCFC.MQIACF_PROCESS_ID, CMQCFC.MQIACF_API_CALLER_TYPE,
                CMQCFC.MQIACF_API_ENVIRONMENT, CMQCFC.MQIACF_POINTER_SIZE, CMQC.MQIA_PLATFORM):
        assert pid in params, pid
    ops = _ops(params)
    assert [op[CMQCFC.MQIACF_OPERATION_ID] for op in ops] == [MQXF[v] for v in EXPECTED]
    # the correlation identifier is the connection's ConnectionId (IBM's activity trace MQMD)
    connect = ops[0]
    assert md.CorrelId == connect[CMQCFC.MQBACF_CONNECTION_ID]
    for op in ops:
        assert {CMQCFC.MQIACF_COMP_CODE, CMQCFC.MQIACF_REASON_CODE, CMQCFC.MQCACF_OPERATION_DATE,
                CMQCFC.MQCACF_OPERATION_TIME, CMQCFC.MQIACF_THREAD_ID} <= set(op)
    opened = ops[1]
    assert opened[CMQCFC.MQCACF_OBJECT_NAME].strip() == Q.encode()
    assert opened[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_Q
    assert opened[CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE
    hobj = opened[CMQCFC.MQIACF_HOBJ]
    puts = ops[3:5]
    assert [p[CMQCFC.MQIACF_MSG_LENGTH] for p in puts] == [10, 20]
    assert [p[CMQCFC.MQBACF_MSG_ID] for p in puts] == put_ids[:2]
    assert all(p[CMQCFC.MQIACF_HOBJ] == hobj for p in puts)
    assert all(p[CMQCFC.MQCACF_RESOLVED_Q_NAME].strip() == Q.encode() for p in puts)
    put1 = ops[5]
    assert put1[CMQCFC.MQCACF_OBJECT_NAME].strip() == Q.encode() and put1[CMQCFC.MQIACF_MSG_LENGTH] == 5
    assert put1[CMQCFC.MQBACF_MSG_ID] == put_ids[2]
    assert put1[CMQCFC.MQIACF_PERSISTENCE] == CMQC.MQPER_PERSISTENT
    gets = ops[6:10]
    assert [g[CMQCFC.MQIACF_REASON_CODE] for g in gets[:3]] == [0, 0, 0]
    assert [g[CMQCFC.MQBACF_MSG_ID] for g in gets[:3]] == put_ids
    assert [g[CMQCFC.MQIACF_MSG_LENGTH] for g in gets[:3]] == [10, 20, 5]
    assert gets[3][CMQCFC.MQIACF_COMP_CODE] == CMQC.MQCC_FAILED
    assert gets[3][CMQCFC.MQIACF_REASON_CODE] == CMQC.MQRC_NO_MSG_AVAILABLE
    assert all(g[CMQCFC.MQIACF_GET_OPTIONS] & CMQC.MQGMO_NO_SYNCPOINT for g in gets)
    assert ops[10][CMQCFC.MQIACF_SELECTORS] == [CMQC.MQIA_CURRENT_Q_DEPTH]
    assert ops[11][CMQCFC.MQIACF_CLOSE_OPTIONS] == CMQC.MQCO_NONE and ops[11][CMQCFC.MQIACF_HOBJ] == hobj


def test_failed_open_traced_with_its_reason(server, qmgr, clean):
    _set(server, activity_trace=C.MQMON_ON)
    worker = _connect(server)
    with pytest.raises(ibmmq.MQMIError) as failed:
        ibmmq.Queue(worker, "NO.SUCH.QUEUE", CMQC.MQOO_OUTPUT)
    assert failed.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    worker.disconnect()
    [(_, _, params)] = _drain(qmgr)
    opened = _ops(params)[1]
    assert opened[CMQCFC.MQIACF_OPERATION_ID] == MQXF["MQOPEN"]
    assert opened[CMQCFC.MQIACF_COMP_CODE] == CMQC.MQCC_FAILED
    assert opened[CMQCFC.MQIACF_REASON_CODE] == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert opened[CMQCFC.MQCACF_OBJECT_NAME].strip() == b"NO.SUCH.QUEUE"


@pytest.mark.parametrize("actvtrc, actvcono, opts, traced", [
    (C.MQMON_OFF, C.MQMON_DISABLED, 0, False),
    (C.MQMON_ON, C.MQMON_DISABLED, 0, True),
    (C.MQMON_OFF, C.MQMON_DISABLED, CMQC.MQCNO_ACTIVITY_TRACE_ENABLED, False),  # ACTVCONO off: ignored
    (C.MQMON_ON, C.MQMON_DISABLED, CMQC.MQCNO_ACTIVITY_TRACE_DISABLED, True),
    (C.MQMON_OFF, C.MQMON_ENABLED, CMQC.MQCNO_ACTIVITY_TRACE_ENABLED, True),
    (C.MQMON_ON, C.MQMON_ENABLED, CMQC.MQCNO_ACTIVITY_TRACE_DISABLED, False),
    (C.MQMON_ON, C.MQMON_ENABLED, 0, True),
])
def test_actvcono_and_mqcno_options(server, qmgr, clean, actvtrc, actvcono, opts, traced):
    _set(server, activity_trace=actvtrc, activity_conn_override=actvcono)
    worker = _connect(server, opts)
    worker.disconnect()
    _set(server, activity_trace=C.MQMON_OFF)
    messages = _drain(qmgr)
    assert len(messages) == (1 if traced else 0)
    if traced:
        assert [op[CMQCFC.MQIACF_OPERATION_ID] for op in _ops(messages[0][2])] == [MQXF["MQCONNX"], MQXF["MQDISC"]]


def test_activity_count_splits_messages(server, qmgr, clean):
    """ActivityCount (100): the 100th call writes a message; the rest go at MQDISC, SeqNumber + 1."""
    _set(server, activity_trace=C.MQMON_ON)
    worker = _connect(server)
    queue = ibmmq.Queue(worker, Q, CMQC.MQOO_INQUIRE)
    for _ in range(120):
        queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    queue.close()
    worker.disconnect()
    messages = _drain(qmgr)
    assert [len(_ops(params)) for _, _, params in messages] == [100, 24]  # CONNX+OPEN+120 INQ+CLOSE+DISC
    assert [params[CMQCFC.MQIACF_SEQUENCE_NUMBER] for _, _, params in messages] == [0, 1]


def test_published_on_the_sys_topic(server, qmgr, clean):
    """A subscriber to $SYS/MQ/INFO/QMGR/QM1/ActivityTrace/ApplName/<name> gets the same messages
    (and the connection collects for it while ACTVTRC is OFF)."""
    # the ApplName ibmmq sends is this process's program name: read it from a traced connection's message
    _set(server, activity_trace=C.MQMON_ON)
    _connect(server).disconnect()
    _set(server, activity_trace=C.MQMON_OFF)
    [(_, _, params)] = _drain(qmgr)
    worker_name = params[CMQCFC.MQCACF_APPL_NAME].decode().strip()
    sub = ibmmq.Subscription(qmgr)
    topic = f"$SYS/MQ/INFO/QMGR/QM1/ActivityTrace/ApplName/{worker_name}"
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    sub.sub(sub_desc=sd)
    try:
        worker = _connect(server)
        ibmmq.Queue(worker, Q, CMQC.MQOO_INQUIRE).close()
        worker.disconnect()
        md = ibmmq.MD()
        data = sub.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        params, cfh = ibmmq.PCFExecute.unpack(data)
        assert cfh.Type == CMQCFC.MQCFT_APP_ACTIVITY
        assert [op[CMQCFC.MQIACF_OPERATION_ID] for op in _ops(params)] == [
            MQXF["MQCONNX"], MQXF["MQOPEN"], MQXF["MQCLOSE"], MQXF["MQDISC"]]
        assert _drain(qmgr) == []  # ACTVTRC OFF: nothing on the queue
    finally:
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
