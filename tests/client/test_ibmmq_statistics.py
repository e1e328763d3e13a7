"""Statistics and accounting messages through IBM's ``ibmmq`` (ibmmqc transport): switches on, a
known number of MQI calls, the interval ended by Reset Q Mgr (Action MQACT_COLLECT_STATISTICS, by
PCF) or the connection's MQDISC, the messages got from SYSTEM.ADMIN.STATISTICS.QUEUE and
SYSTEM.ADMIN.ACCOUNTING.QUEUE and parsed by ibmmq's own PCF parsing (PCFExecute.unpack)."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

from qmlite.client._thread import TrioThread  # noqa: E402
from qmlite.pcf import constants as C  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
Q = "DEV.QUEUE.3"
STATQ = "SYSTEM.ADMIN.STATISTICS.QUEUE"
ACCTQ = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server started in the test's process (its clock never ends an interval here: STATINT and
    ACCTINT stay far away, so the test ends intervals with Reset Q Mgr and MQDISC)."""
    import trio

    from qmlite.server import config
    from qmlite.server.listener import running

    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "monitor_interval": 3600.0,
                                             "data_dir": tmp_path_factory.mktemp("statistics")})
    loop = TrioThread(name="qmlite-statistics").start()
    stop, done = trio.Event(), trio.Event()

    async def serve(task_status=trio.TASK_STATUS_IGNORED):
        try:
            async with running(cfg, synchronous="NORMAL") as srv:
                task_status.started(srv)
                await stop.wait()
        finally:
            done.set()

    try:
        srv = loop.run(lambda: loop.nursery.start(serve))
        srv.loop = loop
        srv.conn_name = f"127.0.0.1({srv.port})"
        yield srv
        loop.run_sync(stop.set)
        loop.run(done.wait)
    finally:
        loop.stop()


def _set(server, **values):
    def apply():
        for name, value in values.items():
            setattr(server.qm.registry.qmgr, name, value)
    server.loop.run_sync(apply)


def _drain(qmgr, name):
    """Every message on a system queue: [(CFH, params)] as ibmmq parses them."""
    queue = ibmmq.Queue(qmgr, name, CMQC.MQOO_INPUT_SHARED)
    out = []
    try:
        while True:
            md = ibmmq.MD()
            try:
                data = queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
            except ibmmq.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            assert md.Format == CMQC.MQFMT_ADMIN
            params, cfh = ibmmq.PCFExecute.unpack(data)
            out.append((cfh, params))
    finally:
        queue.close()


def _connect(server, opts=0):
    cd = ibmmq.CD(ChannelName=ADMIN.encode(), ConnectionName=server.conn_name.encode(),
                  ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options("QM1", user="admin", password="passw0rd", cd=cd, opts=opts)
    return qm


def _calls(qm):
    """MQOPEN, 2 non-persistent + 1 persistent MQPUT, 1 persistent MQPUT1, 4 MQGET, 1 failed MQGET
    (2033), 1 MQINQ, MQCLOSE."""
    queue = ibmmq.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    for persistence, size in ((CMQC.MQPER_NOT_PERSISTENT, 10), (CMQC.MQPER_NOT_PERSISTENT, 20),
                              (CMQC.MQPER_PERSISTENT, 30)):
        queue.put(b"m" * size, ibmmq.MD(Persistence=persistence))
    qm.put1(Q, b"p" * 5, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    for _ in range(4):
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    with pytest.raises(ibmmq.MQMIError) as failed:
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    assert failed.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    queue.close()


@pytest.fixture
def clean(server, qmgr):
    _drain(qmgr, STATQ)
    _drain(qmgr, ACCTQ)
    yield
    _set(server, statistics_mqi=C.MQMON_OFF, statistics_q=C.MQMON_OFF, statistics_channel=C.MQMON_OFF,
         accounting_mqi=C.MQMON_OFF, accounting_q=C.MQMON_OFF, accounting_conn_override=C.MQMON_DISABLED)
    _drain(qmgr, STATQ)
    _drain(qmgr, ACCTQ)


def _reset_statistics(qmgr):
    pcf = ibmmq.PCFExecute(qmgr)
    try:
        pcf.MQCMD_RESET_Q_MGR({CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_COLLECT_STATISTICS})
    finally:
        pcf.disconnect()


def test_statistics_by_reset_qmgr(server, qmgr, clean):
    _set(server, statistics_mqi=C.MQMON_ON, statistics_q=C.MQMON_ON, statistics_channel=C.MQMON_ON,
         statistics_interval=100_000)
    _reset_statistics(qmgr)  # a clean interval starts here
    _drain(qmgr, STATQ)
    worker = _connect(server)
    _calls(worker)
    worker.disconnect()
    _reset_statistics(qmgr)
    messages = _drain(qmgr, STATQ)
    by_command = {cfh.Command: params for cfh, params in messages}
    assert {cfh.Type for cfh, _ in messages} == {CMQCFC.MQCFT_STATISTICS}
    assert CMQCFC.MQCMD_STATISTICS_CHANNEL not in by_command  # server-connection channels have none (IBM)
    mqi = by_command[CMQCFC.MQCMD_STATISTICS_MQI]
    assert mqi[CMQCFC.MQIAMO_CONNS] >= 1 and mqi[CMQCFC.MQIAMO_DISCS][0] >= 1
    stats = by_command[CMQCFC.MQCMD_STATISTICS_Q]
    [group] = [g for g in stats[CMQCFC.MQGACF_Q_STATISTICS_DATA] if g[CMQC.MQCA_Q_NAME].strip() == Q.encode()]
    assert group[CMQCFC.MQIAMO_PUTS] == [2, 1]
    assert group[CMQCFC.MQIAMO_PUT1S] == [0, 1]
    assert group[CMQCFC.MQIAMO64_PUT_BYTES] == [30, 35]
    assert group[CMQCFC.MQIAMO_GETS] == [2, 2]
    assert group[CMQCFC.MQIAMO64_GET_BYTES] == [30, 35]
    assert group[CMQCFC.MQIAMO_GETS_FAILED] == 1
    assert group[CMQCFC.MQIAMO_Q_MAX_DEPTH] == 4 and group[CMQCFC.MQIAMO_Q_MIN_DEPTH] == 0


def test_accounting_on_mqdisc(server, qmgr, clean):
    _set(server, accounting_mqi=C.MQMON_ON, accounting_q=C.MQMON_ON)
    worker = _connect(server)
    _calls(worker)
    worker.disconnect()
    messages = _drain(qmgr, ACCTQ)
    assert [cfh.Command for cfh, _ in messages] == [CMQCFC.MQCMD_ACCOUNTING_MQI, CMQCFC.MQCMD_ACCOUNTING_Q]
    (_, mqi), (_, queues) = messages
    assert mqi[CMQCFC.MQIAMO_DISC_TYPE] == 0  # MQDISCONNECT_NORMAL
    assert mqi[CMQCFC.MQCACH_CHANNEL_NAME].strip() == ADMIN.encode()
    assert mqi[CMQCFC.MQCACF_USER_IDENTIFIER].strip() == b"admin"
    assert mqi[CMQCFC.MQIAMO_OPENS][CMQC.MQOT_Q] == 1 and mqi[CMQCFC.MQIAMO_CLOSES][CMQC.MQOT_Q] == 1
    assert mqi[CMQCFC.MQIAMO_PUTS] == [2, 1] and mqi[CMQCFC.MQIAMO_PUT1S] == [0, 1]
    assert mqi[CMQCFC.MQIAMO_GETS] == [2, 2] and mqi[CMQCFC.MQIAMO_GETS_FAILED] == 1
    [group] = queues[CMQCFC.MQGACF_Q_ACCOUNTING_DATA]
    assert group[CMQC.MQCA_Q_NAME].strip() == Q.encode()
    assert group[CMQCFC.MQIAMO_OPENS] == 1
    assert group[CMQCFC.MQIAMO_PUT_MIN_BYTES] == [10, 5] and group[CMQCFC.MQIAMO_PUT_MAX_BYTES] == [20, 30]


@pytest.mark.parametrize("opts, expected", [
    (CMQC.MQCNO_ACCOUNTING_MQI_ENABLED, [CMQCFC.MQCMD_ACCOUNTING_MQI]),
    (CMQC.MQCNO_ACCOUNTING_Q_ENABLED, [CMQCFC.MQCMD_ACCOUNTING_Q]),
    (CMQC.MQCNO_ACCOUNTING_MQI_ENABLED | CMQC.MQCNO_ACCOUNTING_Q_ENABLED,
     [CMQCFC.MQCMD_ACCOUNTING_MQI, CMQCFC.MQCMD_ACCOUNTING_Q]),
    (CMQC.MQCNO_NONE, []),
])
def test_acctcono_enabled_honours_mqcno_options(server, qmgr, clean, opts, expected):
    _set(server, accounting_conn_override=C.MQMON_ENABLED)
    worker = _connect(server, opts)
    _calls(worker)
    worker.disconnect()
    assert [cfh.Command for cfh, _ in _drain(qmgr, ACCTQ)] == expected


def test_switches_off_produce_nothing(server, qmgr, clean):
    worker = _connect(server, CMQC.MQCNO_ACCOUNTING_MQI_ENABLED)  # ACCTCONO DISABLED: ignored
    _calls(worker)
    worker.disconnect()
    _reset_statistics(qmgr)
    assert _drain(qmgr, STATQ) == [] and _drain(qmgr, ACCTQ) == []
