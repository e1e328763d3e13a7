"""Queue and channel status as monitoring agents read them, through IBM's ``ibmmq`` (ibmmqc transport),
after real traffic: puts, gets, a unit of work left uncommitted then backed out, browses.

The server runs on an injected clock the test moves (no sleeps, no time bounds): OldestMsgAge,
LastGet/LastPut, channel start and last-message times are exact.  Channel byte and buffer counters
are compared with what the client's socket carried, counted by a proxy between them
(tests/support/countingproxy.py).  Inquire Queue Status is sent with QType and every other parameter
IBM documents; MONQ(OFF) gives IBM's "not available" values.
"""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client._thread import TrioThread  # noqa: E402
from qmlite.client.protocol import PRODUCT_ID  # noqa: E402
from qmlite.registry.objects.definitions import mq_date, mq_time  # noqa: E402
from tests.support.countingproxy import CountingProxy  # noqa: E402

T0 = 1_700_000_000.0
Q = b"STATUS.DEPTH.Q"
APP_CHANNEL = "DEV.APP.SVRCONN"
NOT_AVAILABLE = -1  # MQMON_NOT_AVAILABLE


class Clock:
    """The queue manager's clock: the test moves it (``clock.t = T0 + 10``)."""

    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> float:
        return self.t


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import trio

    from qmlite.registry.qmgr import QueueManager
    from qmlite.server import config
    from qmlite.server.listener import running

    data_dir = tmp_path_factory.mktemp("status-depth")
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": data_dir,
                                             "monitor_interval": 3600.0})
    clock = Clock()
    qm = QueueManager.open(data_dir, cfg.qmgr_name, dev_objects=True, synchronous="NORMAL", clock=clock)
    loop = TrioThread(name="qmlite-status-depth").start()
    stop, done = trio.Event(), trio.Event()

    async def serve(task_status=trio.TASK_STATUS_IGNORED):
        try:
            async with running(cfg, qm=qm) as srv:
                task_status.started(srv)
                await stop.wait()
        finally:
            done.set()

    try:
        srv = loop.run(lambda: loop.nursery.start(serve))
        srv.conn_name = f"127.0.0.1({srv.port})"
        srv.clock = clock
        yield srv
        loop.run_sync(stop.set)
        loop.run(done.wait)
    finally:
        loop.stop()
        qm.shutdown()


@pytest.fixture(scope="module", autouse=True)
def status_queue(pcf):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_MONITORING_Q: CMQC.MQMON_MEDIUM})
    yield
    pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: Q, CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})


def _qstatus(pcf, extra=None):
    args = {CMQC.MQCA_Q_NAME: Q, CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_STATUS}
    args.update(extra or {})
    found = pcf.MQCMD_INQUIRE_Q_STATUS(args)
    assert len(found) == 1
    return found[0]


def _reason(fn, *args) -> int:
    try:
        fn(*args)
    except ibmmq.MQMIError as err:
        return err.reason
    return 0


def _text(value) -> str:
    return (value.decode() if isinstance(value, bytes) else str(value)).strip(" \x00")


# ---- Inquire Queue Status after traffic ----------------------------------------------------------------
def test_queue_status_after_puts_gets_an_open_unit_of_work_and_browses(server, qmgr, pcf, conn_name):
    clock = server.clock
    sync = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    q = ibmmq.Queue(qmgr, Q, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE)
    other = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", conn_name, "admin", "passw0rd")
    uow = ibmmq.Queue(other, Q, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    try:
        clock.t = T0
        for n in range(3):
            q.put(b"m%d" % n)                                   # m0 m1 m2 at T0
        clock.t = T0 + 10
        assert q.get() == b"m0"                                 # on the queue 10 s
        clock.t = T0 + 12
        uow.put(b"uncommitted", ibmmq.MD(), sync)               # a put and a get in an open unit of work
        got = uow.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        assert got == b"m1"                                     # on the queue 12 s
        clock.t = T0 + 14
        assert q.get() == b"m2"                                 # on the queue 14 s
        clock.t = T0 + 15
        q.put(b"m3")                                            # the last put
        clock.t = T0 + 17
        browsed = q.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
        assert browsed == b"m3"                                 # a browse is no get
        clock.t = T0 + 20

        # QType as monitoring agents send it (Datadog: MQQT_ALL, earlier MQQT_MODEL), QStatusAttrs as
        # pymqi/ibmmq send one int (an MQCFIN), and every other documented parameter.
        for qtype in (CMQC.MQQT_ALL, CMQC.MQQT_LOCAL, CMQC.MQQT_MODEL):
            s = _qstatus(pcf, {CMQC.MQIA_Q_TYPE: qtype, CMQCFC.MQIACF_Q_STATUS_ATTRS: CMQCFC.MQIACF_ALL,
                                 CMQCFC.MQIACF_OPEN_TYPE: CMQCFC.MQQSOT_ALL, CMQCFC.MQCACF_COMMAND_SCOPE: b""})
            assert s[CMQCFC.MQIACF_Q_STATUS_TYPE] == CMQCFC.MQIACF_Q_STATUS
            assert s[CMQC.MQIA_CURRENT_Q_DEPTH] == 2            # m3 and the uncommitted put
            assert s[CMQCFC.MQIACF_UNCOMMITTED_MSGS] == 2       # one put, one get pending
            assert s[CMQCFC.MQIACF_OLDEST_MSG_AGE] == 5         # m3, put at T0 + 15
            assert (s[CMQC.MQIA_OPEN_INPUT_COUNT], s[CMQC.MQIA_OPEN_OUTPUT_COUNT]) == (2, 2)
            assert s[CMQC.MQIA_MONITORING_Q] == CMQC.MQMON_MEDIUM
            assert _text(s[CMQCFC.MQCACF_LAST_PUT_DATE]) == mq_date(T0 + 15)
            assert _text(s[CMQCFC.MQCACF_LAST_PUT_TIME]) == mq_time(T0 + 15)
            assert _text(s[CMQCFC.MQCACF_LAST_GET_DATE]) == mq_date(T0 + 14)
            assert _text(s[CMQCFC.MQCACF_LAST_GET_TIME]) == mq_time(T0 + 14)
            short, long_ = s[CMQCFC.MQIACF_Q_TIME_INDICATOR]
            # averages of 10, 12 and 14 s, in microseconds: the short period follows recent gets faster
            assert 10_000_000 <= long_ < short <= 14_000_000
        # the MONITOR selector (MQSC DISPLAY QSTATUS MONITOR) and OpenType INPUT
        mon = _qstatus(pcf, {CMQCFC.MQIACF_Q_STATUS_ATTRS: [CMQCFC.MQIACF_MONITORING],
                               CMQCFC.MQIACF_OPEN_TYPE: CMQCFC.MQQSOT_INPUT})
        assert CMQCFC.MQIACF_OLDEST_MSG_AGE in mon and CMQC.MQIA_CURRENT_Q_DEPTH not in mon
        # a filter on the status (IntegerFilterCommand), as IBM's tools send it
        deep = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: b"STATUS.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL},
                                          [ibmmq.Filter(CMQCFC.MQIACF_UNCOMMITTED_MSGS).greater(1)])
        assert [_text(d[CMQC.MQCA_Q_NAME]) for d in deep] == [Q.decode()]
        handles = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALL,
                                              CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_HANDLE,
                                              CMQCFC.MQIACF_OPEN_TYPE: CMQCFC.MQQSOT_OUTPUT})
        assert len(handles) == 2 and all(h[CMQCFC.MQIACF_Q_STATUS_TYPE] == CMQCFC.MQIACF_Q_HANDLE for h in handles)

        other.backout()                                          # m1 returns, the put vanishes
        clock.t = T0 + 21
        s = _qstatus(pcf)
        assert (s[CMQC.MQIA_CURRENT_Q_DEPTH], s[CMQCFC.MQIACF_UNCOMMITTED_MSGS]) == (2, 0)
        assert s[CMQCFC.MQIACF_OLDEST_MSG_AGE] == 21            # m1 again, put at T0
    finally:
        uow.close()
        other.disconnect()
        q.close()


def test_monq_off_gives_ibms_not_available_values(server, qmgr, pcf):
    clock = server.clock
    q = ibmmq.Queue(qmgr, Q, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    try:
        clock.t = T0 + 30
        q.put(b"x")
        clock.t = T0 + 31
        q.get()
    finally:
        q.close()
    pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MONITORING_Q: CMQC.MQMON_OFF})
    try:
        s = _qstatus(pcf, {CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALL})
        assert s[CMQC.MQIA_MONITORING_Q] == CMQC.MQMON_OFF
        assert s[CMQCFC.MQIACF_OLDEST_MSG_AGE] == NOT_AVAILABLE
        assert tuple(s[CMQCFC.MQIACF_Q_TIME_INDICATOR]) == (NOT_AVAILABLE, NOT_AVAILABLE)
        for stamp in (CMQCFC.MQCACF_LAST_GET_DATE, CMQCFC.MQCACF_LAST_GET_TIME, CMQCFC.MQCACF_LAST_PUT_DATE,
                      CMQCFC.MQCACF_LAST_PUT_TIME):
            assert _text(s[stamp]) == ""
        assert s[CMQCFC.MQIACF_UNCOMMITTED_MSGS] == 0            # not a monitoring value: still reported
        # MONQ(QMGR) takes the queue manager's level (OFF on a default queue manager)
        pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQIA_MONITORING_Q: CMQC.MQMON_Q_MGR})
        assert _qstatus(pcf)[CMQCFC.MQIACF_OLDEST_MSG_AGE] == NOT_AVAILABLE
    finally:
        pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQIA_MONITORING_Q: CMQC.MQMON_MEDIUM})


# ---- Inquire Channel Status after traffic, against the client's own socket --------------------------
def _app_instance(pcf):
    rows = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: APP_CHANNEL.encode(),
                                             CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS: [CMQCFC.MQIACF_ALL]})
    assert len(rows) == 1
    return rows[0]


def test_channel_status_counts_what_the_clients_socket_carried(server, pcf):
    clock = server.clock
    proxy = CountingProxy(server.port)
    try:
        clock.t = T0 + 100
        app = ibmmq.connect("QM1", APP_CHANNEL, proxy.conn_name)
        (flow,) = proxy.connections
        q = ibmmq.Queue(app, b"DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        clock.t = T0 + 105
        q.put(b"x" * 1000)
        first = _app_instance(pcf)  # the proxied connection is between calls: its counts are final
        assert first[CMQCFC.MQIACH_BYTES_RECEIVED] == flow.to_server.bytes
        assert first[CMQCFC.MQIACH_BYTES_SENT] == flow.to_client.bytes
        assert first[CMQCFC.MQIACH_BUFFERS_RECEIVED] == flow.to_server.segments
        assert first[CMQCFC.MQIACH_BUFFERS_SENT] == flow.to_client.segments

        clock.t = T0 + 110
        for n in range(4):
            q.put(b"y" * (100 * n))
        for _ in range(4):
            q.get()
        second = _app_instance(pcf)
        assert second[CMQCFC.MQIACH_MSGS] - first[CMQCFC.MQIACH_MSGS] == 8   # SVRCONN: one per MQI call
        assert second[CMQCFC.MQIACH_BYTES_RECEIVED] == flow.to_server.bytes
        assert second[CMQCFC.MQIACH_BYTES_SENT] == flow.to_client.bytes
        assert second[CMQCFC.MQIACH_BUFFERS_RECEIVED] == flow.to_server.segments
        assert second[CMQCFC.MQIACH_BUFFERS_SENT] == flow.to_client.segments
        assert second[CMQCFC.MQIACH_BUFFERS_RECEIVED] - first[CMQCFC.MQIACH_BUFFERS_RECEIVED] >= 8
        assert second[CMQCFC.MQIACH_BYTES_RECEIVED] - first[CMQCFC.MQIACH_BYTES_RECEIVED] > 600  # 0+100+200+300

        # every other field IBM returns for a running SVRCONN
        assert second[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_RUNNING
        assert second[CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC_SVRCONN
        assert second[CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE] == CMQC.MQOT_CURRENT_CHANNEL
        assert _text(second[CMQCFC.MQCACH_CONNECTION_NAME]) == "127.0.0.1"
        assert _text(second[CMQCFC.MQCACH_CHANNEL_START_DATE]) == mq_date(T0 + 100)
        assert _text(second[CMQCFC.MQCACH_CHANNEL_START_TIME]) == mq_time(T0 + 100)
        assert _text(second[CMQCFC.MQCACH_LAST_MSG_TIME]) == mq_time(T0 + 110)
        assert (second[CMQCFC.MQIACH_CURRENT_SHARING_CONVS], second[CMQCFC.MQIACH_MAX_SHARING_CONVS] >= 1) == (1, True)
        assert _text(second[CMQCFC.MQCACH_REMOTE_PRODUCT]) == PRODUCT_ID[:4]
        assert _text(second[CMQCFC.MQCACH_REMOTE_VERSION]) == PRODUCT_ID[4:]
        assert _text(second[CMQCFC.MQCACH_LOCAL_ADDRESS]) == f"127.0.0.1({server.port})"
        assert len(_text(second[CMQCFC.MQCACH_MCA_JOB_NAME])) == 16
        assert second[CMQCFC.MQIACH_MCA_STATUS] == CMQCFC.MQMCAS_RUNNING
        assert second[CMQCFC.MQIACH_STOP_REQUESTED] == CMQCFC.MQCHSR_STOP_NOT_REQUESTED
        assert second[CMQCFC.MQIACH_SSL_KEY_RESETS] == 0 and _text(second[CMQCFC.MQCACH_SSL_KEY_RESET_DATE]) == ""
        assert second[CMQCFC.MQIACH_HB_INTERVAL] >= 0 and second[CMQCFC.MQIACH_MAX_MSG_LENGTH] > 0
        assert second[CMQC.MQIA_MONITORING_CHANNEL] == CMQC.MQMON_OFF
        assert tuple(second[CMQCFC.MQIACH_EXIT_TIME_INDICATOR]) == (NOT_AVAILABLE, NOT_AVAILABLE)
        tag = _text(second[CMQCFC.MQCACH_REMOTE_APPL_TAG])
        conns = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b"")})
        assert tag and tag in {_text(c[CMQCFC.MQCACF_APPL_TAG]) for c in conns
                               if _text(c[CMQCFC.MQCACH_CHANNEL_NAME]) == APP_CHANNEL}
        q.close()
        app.disconnect()
    finally:
        proxy.close()


CMQXC_SVRCONN = 7  # cmqxc.h MQCHT_SVRCONN


# ---- Inquire Pub/Sub Status, MQSC DISPLAY PUBSUB, BLOCKUSER as one MQCFST ------------------------------
def test_pubsub_status_and_display_pubsub(pcf):
    local = pcf.MQCMD_INQUIRE_PUBSUB_STATUS({CMQCFC.MQIACF_PS_STATUS_TYPE: CMQCFC.MQPSST_LOCAL})
    assert len(local) == 1
    ps = local[0]
    assert _text(ps[CMQC.MQCA_Q_MGR_NAME]) == "QM1" and ps[CMQCFC.MQIACF_PS_STATUS_TYPE] == CMQCFC.MQPSST_LOCAL
    assert ps[CMQCFC.MQIACF_PUBSUB_STATUS] == 3  # MQPS_STATUS_ACTIVE
    assert ps[CMQC.MQIA_SUB_COUNT] >= 1 and ps[CMQC.MQIA_TOPIC_NODE_COUNT] >= 1
    everything = pcf.MQCMD_INQUIRE_PUBSUB_STATUS({})
    assert everything == local  # no hierarchy: ALL is the local entry
    text = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC, CMQCFC.MQCACF_ESCAPE_TEXT: b"DIS PUBSUB ALL"})
    lines = b"".join(r[CMQCFC.MQCACF_ESCAPE_TEXT] for r in text).decode()
    assert "QMNAME(QM1)" in lines and "TYPE(LOCAL)" in lines and "STATUS(ACTIVE)" in lines
    assert f"SUBCOUNT({ps[CMQC.MQIA_SUB_COUNT]})" in lines and f"TPCOUNT({ps[CMQC.MQIA_TOPIC_NODE_COUNT]})" in lines


def test_set_chlauth_blockuser_with_one_user_as_an_mqcfst(pcf):
    """ibmmq sends a bytes value as an MQCFST: IBM takes it for the documented MQCFSL user list."""
    rule = {CMQCFC.MQCACH_CHANNEL_NAME: b"STATUS.BLOCK.*", CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_BLOCKUSER}
    pcf.MQCMD_SET_CHLAUTH_REC({**rule, CMQCFC.MQCACH_MCA_USER_ID_LIST: b"baduser",
                               CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REPLACE})
    try:
        found = pcf.MQCMD_INQUIRE_CHLAUTH_RECS(rule)
        assert len(found) == 1
        users = found[0][CMQCFC.MQCACH_MCA_USER_ID_LIST]
        assert [_text(u) for u in (users if isinstance(users, list) else [users])] == ["baduser"]
    finally:
        pcf.MQCMD_SET_CHLAUTH_REC({**rule, CMQCFC.MQCACH_MCA_USER_ID_LIST: b"baduser",
                                   CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVE})
    assert _reason(pcf.MQCMD_INQUIRE_CHLAUTH_RECS, rule) != 0  # removed: nothing left to find
