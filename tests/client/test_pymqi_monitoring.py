"""Monitoring through pymqi 1.12, unchanged, over qmlite's ``pymqe``: a monitoring set-up script in
MQSC run at start-up and read back by PCF; statistics and accounting messages got from their system
queues, parsed with pymqi's own PCF parsing (``PCFExecute.unpack``), their counts those of the calls
made; and a sample of every event category, raised when its switch is on and not when it is off.

pymqi's ``unpack`` raises on an MQCFH whose CompCode is not zero, and every event message carries
MQCC_WARNING (IBM "Event message MQCFH"), as a real queue manager's do: the events are read as a
pymqi monitoring script does, the MQCFH with ``pymqi.CFH`` and the parameters with ``unpack`` once the
CompCode has been set aside."""

from __future__ import annotations

import os

import pytest

if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
    import pymqi
else:
    pymqi = pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

from pymqi import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402

ADMIN, APP = "DEV.ADMIN.SVRCONN", "DEV.APP.SVRCONN"
STATQ, ACCTQ = b"SYSTEM.ADMIN.STATISTICS.QUEUE", b"SYSTEM.ADMIN.ACCOUNTING.QUEUE"
QMGR_EVENTS, PERFM_EVENTS = b"SYSTEM.ADMIN.QMGR.EVENT", b"SYSTEM.ADMIN.PERFM.EVENT"
CHANNEL_EVENTS, CONFIG_EVENTS = b"SYSTEM.ADMIN.CHANNEL.EVENT", b"SYSTEM.ADMIN.CONFIG.EVENT"
COMMAND_EVENTS = b"SYSTEM.ADMIN.COMMAND.EVENT"
ENABLED, DISABLED = CMQCFC.MQEVR_ENABLED, CMQCFC.MQEVR_DISABLED
Q = b"DEV.QUEUE.2"
DEPTH_Q = b"MON.DEPTH"

# What an operator's start-up script for a monitored queue manager sets (IBM's ALTER QMGR and
# DEFINE QLOCAL keywords): statistics and accounting on, intervals long enough that only the test ends
# them, every event switch on, and a queue watched for depth.
SCRIPT = """\
* Monitoring set-up
ALTER QMGR STATMQI(ON) STATQ(ON) STATCHL(HIGH) STATINT(604000) +
           ACCTMQI(ON) ACCTQ(ON) ACCTCONO(ENABLED) ACCTINT(604000) +
           MONQ(MEDIUM) MONCHL(MEDIUM) +
           AUTHOREV(ENABLED) INHIBTEV(ENABLED) LOCALEV(ENABLED) REMOTEEV(ENABLED) +
           PERFMEV(ENABLED) STRSTPEV(ENABLED) CHLEV(ENABLED) CONFIGEV(ENABLED) CMDEV(ENABLED)
DEFINE QLOCAL(MON.DEPTH) MAXDEPTH(5) QDEPTHHI(80) QDEPTHLO(20) +
       QDPHIEV(ENABLED) QDPLOEV(DISABLED) QDPMAXEV(DISABLED) STATQ(ON) ACCTQ(ON) MONQ(HIGH) REPLACE
"""
# Read back by Inquire Q Mgr: each parameter and the value the script gave it
SCRIPT_QMGR = {
    CMQC.MQIA_STATISTICS_MQI: CMQC.MQMON_ON, CMQC.MQIA_STATISTICS_Q: CMQC.MQMON_ON,
    CMQC.MQIA_STATISTICS_CHANNEL: CMQC.MQMON_HIGH, CMQC.MQIA_STATISTICS_INTERVAL: 604_000,
    CMQC.MQIA_ACCOUNTING_MQI: CMQC.MQMON_ON, CMQC.MQIA_ACCOUNTING_Q: CMQC.MQMON_ON,
    CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE: CMQC.MQMON_ENABLED, CMQC.MQIA_ACCOUNTING_INTERVAL: 604_000,
    CMQC.MQIA_MONITORING_Q: CMQC.MQMON_MEDIUM, CMQC.MQIA_MONITORING_CHANNEL: CMQC.MQMON_MEDIUM,
    CMQC.MQIA_AUTHORITY_EVENT: ENABLED, CMQC.MQIA_INHIBIT_EVENT: ENABLED, CMQC.MQIA_LOCAL_EVENT: ENABLED,
    CMQC.MQIA_REMOTE_EVENT: ENABLED, CMQC.MQIA_PERFORMANCE_EVENT: ENABLED,
    CMQC.MQIA_START_STOP_EVENT: ENABLED, CMQC.MQIA_CHANNEL_EVENT: ENABLED,
    CMQC.MQIA_CONFIGURATION_EVENT: ENABLED, CMQC.MQIA_COMMAND_EVENT: ENABLED,
}
SCRIPT_QUEUE = {
    CMQC.MQIA_MAX_Q_DEPTH: 5, CMQC.MQIA_Q_DEPTH_HIGH_LIMIT: 80, CMQC.MQIA_Q_DEPTH_LOW_LIMIT: 20,
    CMQC.MQIA_Q_DEPTH_HIGH_EVENT: ENABLED, CMQC.MQIA_Q_DEPTH_LOW_EVENT: DISABLED,
    CMQC.MQIA_Q_DEPTH_MAX_EVENT: DISABLED, CMQC.MQIA_STATISTICS_Q: CMQC.MQMON_ON,
    CMQC.MQIA_ACCOUNTING_Q: CMQC.MQMON_ON, CMQC.MQIA_MONITORING_Q: CMQC.MQMON_HIGH,
}


def _scripts(directory, text: str):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "50-monitoring.mqsc").write_text(text)
    return directory


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    scripts = _scripts(tmp_path_factory.mktemp("mqsc"), SCRIPT)
    with running_qmlite(tmp_path_factory.mktemp("pymqi-monitoring"), mqsc_dir=scripts) as srv:
        yield srv


@pytest.fixture(scope="module")
def qmgr(server):
    qm = pymqi.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
    yield qm
    qm.disconnect()


@pytest.fixture(scope="module")
def pcf(qmgr):
    return pymqi.PCFExecute(qmgr)


def reason_of(fn, *args, **kwargs) -> int:
    with pytest.raises(pymqi.MQMIError) as info:
        fn(*args, **kwargs)
    return info.value.reason


def text(value) -> str:
    return (value.decode() if isinstance(value, bytes) else value).rstrip(" \x00")


def _messages(qmgr, queue: bytes) -> list[tuple[pymqi.MD, bytes]]:
    """Every message on a system queue, got with pymqi: [(MQMD, body)]."""
    q = pymqi.Queue(qmgr, queue, CMQC.MQOO_INPUT_SHARED)
    out = []
    try:
        while True:
            md = pymqi.MD()
            try:
                body = q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT))
            except pymqi.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            out.append((md, body))
    finally:
        q.close()


def read_records(qmgr, queue: bytes) -> list[tuple[int, dict]]:
    """Statistics or accounting messages, parsed by pymqi: [(MQCFH Command, parameters)]."""
    out = []
    for md, body in _messages(qmgr, queue):
        assert md.Format == CMQC.MQFMT_ADMIN and md.PutApplType == CMQC.MQAT_QMGR
        params, cfh = pymqi.PCFExecute.unpack(body)
        assert cfh.Type in (CMQCFC.MQCFT_STATISTICS, CMQCFC.MQCFT_ACCOUNTING)
        out.append((cfh.Command, params))
    return out


def read_events(qmgr, queue: bytes) -> list[tuple[pymqi.CFH, dict]]:
    """Event messages, parsed by pymqi: [(MQCFH, parameters)].  The CompCode (offset 24 of the MQCFH,
    MQCC_WARNING in every event) is set aside for ``unpack``, which raises on any other than 0."""
    out = []
    for md, body in _messages(qmgr, queue):
        assert md.Format.rstrip() == b"MQEVENT" and md.MsgType == CMQC.MQMT_DATAGRAM
        cfh = pymqi.CFH()
        cfh.unpack(body[:CMQCFC.MQCFH_STRUC_LENGTH])
        assert (cfh.Type, cfh.CompCode) == (CMQCFC.MQCFT_EVENT, CMQC.MQCC_WARNING)
        params, _ = pymqi.PCFExecute.unpack(body[:24] + bytes(4) + body[28:])
        out.append((cfh, params))
    return out


def set_switch(pcf, parameter: int, value: int) -> None:
    pcf.MQCMD_CHANGE_Q_MGR({parameter: value})


def switched(pcf, qmgr, parameter: int, queue: bytes, provoke) -> list[tuple[pymqi.CFH, dict]]:
    """Provoke with the queue manager's switch off (no event), then on; the events of the second time.
    The events of setting the switch itself (configuration, command) are read away first."""
    set_switch(pcf, parameter, DISABLED)
    read_events(qmgr, queue)
    provoke()
    assert read_events(qmgr, queue) == []
    set_switch(pcf, parameter, ENABLED)
    read_events(qmgr, queue)
    provoke()
    return read_events(qmgr, queue)


# --------------------------------------------------------------------------------------------------
# The start-up script
# --------------------------------------------------------------------------------------------------

def test_monitoring_setup_script_read_back(pcf):
    [attrs] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: list(SCRIPT_QMGR)})
    assert {k: attrs[k] for k in SCRIPT_QMGR} == SCRIPT_QMGR
    [queue] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: DEPTH_Q, CMQCFC.MQIACF_Q_ATTRS: list(SCRIPT_QUEUE)})
    assert {k: queue[k] for k in SCRIPT_QUEUE} == SCRIPT_QUEUE


def test_start_and_stop_events_follow_the_scripts_strstpev(tmp_path):
    """STRSTPEV(ENABLED) by the script: the server's start raises Queue Manager Active and its stop
    Queue Manager Not Active (kept over the restart: the script made the event queue DEFPSIST(YES));
    the next start's script says DISABLED: that start raises nothing."""
    data = tmp_path / "data"
    on = _scripts(tmp_path / "on", "ALTER QMGR STRSTPEV(ENABLED)\n"
                                   "ALTER QLOCAL(SYSTEM.ADMIN.QMGR.EVENT) DEFPSIST(YES)\n")
    off = _scripts(tmp_path / "off", "ALTER QMGR STRSTPEV(DISABLED)\n")
    with running_qmlite(data, mqsc_dir=on) as srv:
        qm = pymqi.connect("QM1", ADMIN, srv.conn_name, "admin", "passw0rd")
        [(cfh, params)] = read_events(qm, QMGR_EVENTS)
        assert (cfh.Command, cfh.Reason) == (CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_Q_MGR_ACTIVE)
        assert text(params[CMQC.MQCA_Q_MGR_NAME]) == "QM1"
        qm.disconnect()
    with running_qmlite(data, mqsc_dir=off) as srv:
        qm = pymqi.connect("QM1", ADMIN, srv.conn_name, "admin", "passw0rd")
        assert [cfh.Reason for cfh, _ in read_events(qm, QMGR_EVENTS)] == [CMQC.MQRC_Q_MGR_NOT_ACTIVE]
        qm.disconnect()


# --------------------------------------------------------------------------------------------------
# Statistics and accounting, counted
# --------------------------------------------------------------------------------------------------

def _typed(**counts) -> list[int]:
    out = [0] * 13  # indexed by object type, MQOT_Q 1 ... MQOT_SERVICE 12
    for name, value in counts.items():
        out[getattr(CMQC, "MQOT_" + name)] = value
    return out


def _workload(qm) -> None:
    """MQOPEN; MQPUT non-persistent 10 and persistent 20 bytes; MQPUT1 non-persistent 5; 3 MQGET and
    one that fails (2033); MQINQ; MQSET; MQPUT under syncpoint + MQCMIT, MQGET under syncpoint + MQBACK,
    the same MQGET + MQCMIT, an MQCMIT with nothing to commit; MQCLOSE; a durable subscription created,
    MQCLOSEd, resumed, MQCLOSEd with MQCO_REMOVE_SUB; a non-durable one, MQCLOSEd; a failed MQSUB."""
    queue = pymqi.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
    queue.put(b"n" * 10, pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    queue.put(b"p" * 20, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    qm.put1(Q, b"1" * 5, pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    for _ in range(3):
        queue.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    assert reason_of(queue.get, None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)) == \
        CMQC.MQRC_NO_MSG_AVAILABLE
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    queue.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_ALLOWED)
    queue.put(b"u" * 7, pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    queue.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.backout()
    queue.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.commit()
    qm.commit()
    queue.close()

    def subscribe(options, name=None):
        sd = pymqi.SD(Options=options | CMQC.MQSO_MANAGED)
        sd.set_vs("ObjectString", b"qmlite/pymqi/monitoring")
        if name:
            sd.set_vs("SubName", name)
        sub = pymqi.Subscription(qm)
        sub.sub(sub_desc=sd)
        return sub

    subscribe(CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE, b"MON.DURABLE").close(close_sub_queue=True)
    subscribe(CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE, b"MON.DURABLE").close(
        sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    subscribe(CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE).close(close_sub_queue=True)
    assert reason_of(subscribe, CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE, b"MON.DURABLE") == CMQC.MQRC_NO_SUBSCRIPTION


WORKER = {
    CMQCFC.MQIAMO_OPENS: _typed(Q=1), CMQCFC.MQIAMO_OPENS_FAILED: _typed(),
    CMQCFC.MQIAMO_CLOSES: _typed(Q=1 + 3, TOPIC=3),  # 3 managed queues closed by close_sub_queue
    CMQCFC.MQIAMO_INQS: _typed(Q=1), CMQCFC.MQIAMO_SETS: _typed(Q=1),
    CMQCFC.MQIAMO_PUTS: [2, 1], CMQCFC.MQIAMO_PUT1S: [1, 0], CMQCFC.MQIAMO64_PUT_BYTES: [10 + 5 + 7, 20],
    CMQCFC.MQIAMO_GETS: [4, 1], CMQCFC.MQIAMO_GETS_FAILED: 1, CMQCFC.MQIAMO64_GET_BYTES: [10 + 5 + 7 + 7, 20],
    CMQCFC.MQIAMO_COMMITS: 3, CMQCFC.MQIAMO_BACKOUTS: 1,
    CMQCFC.MQIAMO_SUBS_DUR: [1, 0, 1], CMQCFC.MQIAMO_SUBS_NDUR: [1, 0, 0], CMQCFC.MQIAMO_SUBS_FAILED: 1,
    CMQCFC.MQIAMO_UNSUBS_DUR: [1, 0, 0], CMQCFC.MQIAMO_UNSUBS_NDUR: [1, 0, 0],
}
# The admin's Reset Q Mgr that ends the interval: the command queue's MQOPEN/MQPUT/MQCLOSE, the reply's MQGET
# (an MQCFH and one MQCFIN, 52 bytes; the reply an MQCFH, 36)
RESET = {CMQCFC.MQIAMO_OPENS: _typed(Q=1), CMQCFC.MQIAMO_CLOSES: _typed(Q=1), CMQCFC.MQIAMO_PUTS: [1, 0],
         CMQCFC.MQIAMO64_PUT_BYTES: [52, 0], CMQCFC.MQIAMO_GETS: [1, 0], CMQCFC.MQIAMO64_GET_BYTES: [36, 0]}


def _reset_statistics(pcf) -> None:
    pcf.MQCMD_RESET_Q_MGR({CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_COLLECT_STATISTICS})


def test_statistics_and_accounting_count_the_calls(server, qmgr, pcf):
    _reset_statistics(pcf)
    read_records(qmgr, STATQ)
    read_records(qmgr, ACCTQ)
    _reset_statistics(pcf)  # the interval starts with nothing but this command's reply to read
    worker = pymqi.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
    _workload(worker)
    worker.disconnect()
    _reset_statistics(pcf)

    accounting = read_records(qmgr, ACCTQ)
    assert [command for command, _ in accounting] == [CMQCFC.MQCMD_ACCOUNTING_MQI, CMQCFC.MQCMD_ACCOUNTING_Q]
    (_, mqi_acct), (_, q_acct) = accounting
    assert {k: mqi_acct[k] for k in WORKER} == WORKER
    assert mqi_acct[CMQCFC.MQIAMO_DISC_TYPE] == 0  # MQDISCONNECT_NORMAL
    [group] = q_acct[CMQCFC.MQGACF_Q_ACCOUNTING_DATA]
    assert (group[CMQC.MQCA_Q_NAME].strip(), group[CMQCFC.MQIAMO_OPENS], group[CMQCFC.MQIAMO_PUTS],
            group[CMQCFC.MQIAMO_PUT1S], group[CMQCFC.MQIAMO_GETS], group[CMQCFC.MQIAMO_PUT_MAX_BYTES]) == (
        Q, 1, [2, 1], [1, 0], [4, 1], [10, 20])

    statistics = dict(read_records(qmgr, STATQ))
    mqi = statistics[CMQCFC.MQCMD_STATISTICS_MQI]
    for key, value in WORKER.items():
        extra = RESET.get(key)
        if extra is not None:
            value = [a + b for a, b in zip(value, extra)]
        assert mqi[key] == value, key
    assert (mqi[CMQCFC.MQIAMO_CONNS], mqi[CMQCFC.MQIAMO_DISCS]) == (1, [1, 0, 0])
    [q_stats] = [g for g in statistics[CMQCFC.MQCMD_STATISTICS_Q][CMQCFC.MQGACF_Q_STATISTICS_DATA]
                 if g[CMQC.MQCA_Q_NAME].strip() == Q]
    assert (q_stats[CMQCFC.MQIAMO_PUTS], q_stats[CMQCFC.MQIAMO_GETS], q_stats[CMQCFC.MQIAMO_GETS_FAILED],
            q_stats[CMQCFC.MQIAMO_Q_MAX_DEPTH], q_stats[CMQCFC.MQIAMO_Q_MIN_DEPTH]) == ([2, 1], [4, 1], 1, 3, 0)


# --------------------------------------------------------------------------------------------------
# One event of every category, with its switch on and off
# --------------------------------------------------------------------------------------------------

def test_authority_event(server, pcf, qmgr):
    def provoke():
        assert reason_of(pymqi.connect, "QM1", ADMIN, server.conn_name, "admin", "wrong") == CMQC.MQRC_NOT_AUTHORIZED

    [(cfh, params)] = switched(pcf, qmgr, CMQC.MQIA_AUTHORITY_EVENT, QMGR_EVENTS, provoke)
    assert (cfh.Command, cfh.Reason) == (CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED)
    assert text(params[CMQCFC.MQCACF_USER_IDENTIFIER]) == "admin"
    assert text(params[CMQCFC.MQCACH_CHANNEL_NAME]) == ADMIN


def test_inhibit_event(pcf, qmgr):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"MON.INHIBITED", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    queue = pymqi.Queue(qmgr, b"MON.INHIBITED", CMQC.MQOO_OUTPUT)
    try:
        def provoke():
            assert reason_of(queue.put, b"x") == CMQC.MQRC_PUT_INHIBITED

        [(cfh, params)] = switched(pcf, qmgr, CMQC.MQIA_INHIBIT_EVENT, QMGR_EVENTS, provoke)
    finally:
        queue.close()
    assert cfh.Reason == CMQC.MQRC_PUT_INHIBITED and text(params[CMQC.MQCA_Q_NAME]) == "MON.INHIBITED"


def test_local_event(pcf, qmgr):
    def provoke():
        assert reason_of(pymqi.Queue, qmgr, b"MON.NO.SUCH.QUEUE", CMQC.MQOO_OUTPUT) == CMQC.MQRC_UNKNOWN_OBJECT_NAME

    [(cfh, params)] = switched(pcf, qmgr, CMQC.MQIA_LOCAL_EVENT, QMGR_EVENTS, provoke)
    assert cfh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME and text(params[CMQC.MQCA_Q_NAME]) == "MON.NO.SUCH.QUEUE"


def test_performance_depth_high_then_low(pcf, qmgr):
    """MON.DEPTH (the script's: MAXDEPTH 5, high 80%, low 20%): the fourth put reaches the high limit,
    which turns QDPHIEV off and QDPLOEV on (IBM); getting down to one message reaches the low limit."""
    def provoke():
        pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: DEPTH_Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQIA_Q_DEPTH_HIGH_EVENT: ENABLED, CMQC.MQIA_Q_DEPTH_LOW_EVENT: DISABLED})
        queue = pymqi.Queue(qmgr, DEPTH_Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        try:
            for _ in range(4):
                queue.put(b"d")
            for _ in range(4):
                queue.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        finally:
            queue.close()

    got = switched(pcf, qmgr, CMQC.MQIA_PERFORMANCE_EVENT, PERFM_EVENTS, provoke)
    assert [(cfh.Command, cfh.Reason) for cfh, _ in got] == [
        (CMQCFC.MQCMD_PERFM_EVENT, CMQC.MQRC_Q_DEPTH_HIGH), (CMQCFC.MQCMD_PERFM_EVENT, CMQC.MQRC_Q_DEPTH_LOW)]
    assert {text(params[CMQC.MQCA_Q_NAME]) for _, params in got} == {"MON.DEPTH"}
    assert got[0][1][CMQC.MQIA_HIGH_Q_DEPTH] == 4


def test_channel_blocked_event(server, pcf, qmgr):
    record = {CMQCFC.MQCACH_CHANNEL_NAME: APP.encode(), CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_BLOCKUSER}
    pcf.MQCMD_SET_CHLAUTH_REC({**record, CMQCFC.MQCACH_MCA_USER_ID_LIST: [b"app"],
                               CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REPLACE})
    try:
        def provoke():
            assert reason_of(pymqi.connect, "QM1", APP, server.conn_name, "app", "") == CMQC.MQRC_NOT_AUTHORIZED

        [(cfh, params)] = switched(pcf, qmgr, CMQC.MQIA_CHANNEL_EVENT, CHANNEL_EVENTS, provoke)
    finally:
        pcf.MQCMD_SET_CHLAUTH_REC({**record, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVEALL})
    assert (cfh.Command, cfh.Reason) == (CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_BLOCKED)
    assert text(params[CMQCFC.MQCACH_CHANNEL_NAME]) == APP
    assert text(params[CMQCFC.MQCACF_USER_IDENTIFIER]) == "app"


def test_configuration_event(pcf, qmgr):
    def provoke():
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"MON.CONFIG", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQIA_MAX_Q_DEPTH: 42, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
        pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"MON.CONFIG"})

    got = switched(pcf, qmgr, CMQC.MQIA_CONFIGURATION_EVENT, CONFIG_EVENTS, provoke)
    assert [(cfh.Command, cfh.Reason) for cfh, _ in got] == [
        (CMQCFC.MQCMD_CONFIG_EVENT, CMQC.MQRC_CONFIG_CREATE_OBJECT),
        (CMQCFC.MQCMD_CONFIG_EVENT, CMQC.MQRC_CONFIG_DELETE_OBJECT)]
    assert [(text(p[CMQC.MQCA_Q_NAME]), p[CMQC.MQIA_MAX_Q_DEPTH]) for _, p in got] == [("MON.CONFIG", 42)] * 2


def test_command_event(pcf, qmgr):
    def provoke():
        pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQCA_Q_DESC: b"watched"})

    [(cfh, params)] = switched(pcf, qmgr, CMQC.MQIA_COMMAND_EVENT, COMMAND_EVENTS, provoke)
    assert (cfh.Command, cfh.Reason) == (CMQCFC.MQCMD_COMMAND_EVENT, CMQC.MQRC_COMMAND_PCF)
    [context] = params[CMQCFC.MQGACF_COMMAND_CONTEXT]
    [data] = params[CMQCFC.MQGACF_COMMAND_DATA]
    assert context[CMQCFC.MQIACF_COMMAND] == CMQCFC.MQCMD_CHANGE_Q
    assert text(context[CMQCFC.MQCACF_EVENT_USER_ID]) == "admin"
    assert text(data[CMQC.MQCA_Q_DESC]) == "watched"
