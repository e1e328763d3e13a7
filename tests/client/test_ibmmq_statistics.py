"""Statistics and accounting messages through IBM's ``ibmmq`` (ibmmqc transport): switches on, a
known number of MQI calls, the interval ended by Reset Q Mgr (Action MQACT_COLLECT_STATISTICS, by
PCF) or the connection's MQDISC, the messages got from SYSTEM.ADMIN.STATISTICS.QUEUE and
SYSTEM.ADMIN.ACCOUNTING.QUEUE and parsed by ibmmq's own PCF parsing (PCFExecute.unpack)."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

from tests.support.ibmmqkit import drain_admin  # noqa: E402
from tests.support.inprocess import serving  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
Q = "DEV.QUEUE.3"
STATQ = "SYSTEM.ADMIN.STATISTICS.QUEUE"
ACCTQ = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server started in the test's process (its clock never ends an interval here: STATINT and
    ACCTINT stay far away, so the test ends intervals with Reset Q Mgr and MQDISC)."""
    with serving(tmp_path_factory.mktemp("statistics"), "statistics", monitor_interval=3600.0) as srv:
        yield srv


def _change_qmgr(pcf, **switches) -> None:
    """Switch statistics and accounting as a monitoring agent does: PCF Change Q Mgr, by parameter
    name (``STATMQI=CMQC.MQMON_ON`` ...)."""
    pcf.MQCMD_CHANGE_Q_MGR({_QMGR_SWITCHES[name]: value for name, value in switches.items()})


def _change_queue(pcf, name: str, **switches) -> None:
    """A queue's own STATQ / ACCTQ by PCF Change Queue."""
    pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        **{_QUEUE_SWITCHES[k]: v for k, v in switches.items()}})


_QMGR_SWITCHES = {"STATMQI": CMQC.MQIA_STATISTICS_MQI, "STATQ": CMQC.MQIA_STATISTICS_Q,
                  "STATCHL": CMQC.MQIA_STATISTICS_CHANNEL, "STATINT": CMQC.MQIA_STATISTICS_INTERVAL,
                  "ACCTMQI": CMQC.MQIA_ACCOUNTING_MQI, "ACCTQ": CMQC.MQIA_ACCOUNTING_Q,
                  "ACCTCONO": CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE}
_QUEUE_SWITCHES = {"STATQ": CMQC.MQIA_STATISTICS_Q, "ACCTQ": CMQC.MQIA_ACCOUNTING_Q}
_OFF = {"STATMQI": CMQC.MQMON_OFF, "STATQ": CMQC.MQMON_OFF, "STATCHL": CMQC.MQMON_OFF,
        "ACCTMQI": CMQC.MQMON_OFF, "ACCTQ": CMQC.MQMON_OFF, "ACCTCONO": CMQC.MQMON_DISABLED}


def _drain(qmgr, name):
    """Every message on a system queue: [(CFH, params)] as ibmmq parses them."""
    return [(cfh, params) for _md, cfh, params in drain_admin(qmgr, name)]


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
def clean(server, qmgr, pcf):
    _drain(qmgr, STATQ)
    _drain(qmgr, ACCTQ)
    yield
    _change_qmgr(pcf, **_OFF)
    _change_queue(pcf, Q, STATQ=CMQC.MQMON_Q_MGR, ACCTQ=CMQC.MQMON_Q_MGR)
    _drain(qmgr, STATQ)
    _drain(qmgr, ACCTQ)


def _reset_statistics(pcf):
    pcf.MQCMD_RESET_Q_MGR({CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_COLLECT_STATISTICS})


def _interval_of_calls(server, qmgr, pcf):
    """One statistics interval holding one application's calls: a clean interval starts (RESET QMGR
    TYPE(STATISTICS), its messages drained), the application connects, calls and disconnects, and a
    second RESET QMGR ends the interval."""
    _reset_statistics(pcf)
    _drain(qmgr, STATQ)
    worker = _connect(server)
    _calls(worker)
    worker.disconnect()
    _reset_statistics(pcf)


def test_statistics_by_reset_qmgr(server, qmgr, pcf, clean):
    _change_qmgr(pcf, STATMQI=CMQC.MQMON_ON, STATQ=CMQC.MQMON_ON, STATCHL=CMQC.MQMON_HIGH, STATINT=100_000)
    _interval_of_calls(server, qmgr, pcf)
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


def test_accounting_on_mqdisc(server, qmgr, pcf, clean):
    _change_qmgr(pcf, ACCTMQI=CMQC.MQMON_ON, ACCTQ=CMQC.MQMON_ON)
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
def test_acctcono_enabled_honours_mqcno_options(server, qmgr, pcf, clean, opts, expected):
    _change_qmgr(pcf, ACCTCONO=CMQC.MQMON_ENABLED)
    worker = _connect(server, opts)
    _calls(worker)
    worker.disconnect()
    assert [cfh.Command for cfh, _ in _drain(qmgr, ACCTQ)] == expected


def test_switches_off_produce_nothing(server, qmgr, pcf, clean):
    worker = _connect(server, CMQC.MQCNO_ACCOUNTING_MQI_ENABLED)  # ACCTCONO DISABLED: ignored
    _calls(worker)
    worker.disconnect()
    _reset_statistics(pcf)
    assert _drain(qmgr, STATQ) == [] and _drain(qmgr, ACCTQ) == []


# --------------------------------------------------------------------------------------------------
# Every MQI verb the queue manager sees, counted exactly
# --------------------------------------------------------------------------------------------------

TOPIC = "qmlite/statistics/prices"
DURABLE = "STATS.DURABLE"


@pytest.fixture
def application_calls_only(monkeypatch):
    """ibmmq's OpenTelemetry layer (on whenever opentelemetry is installed, as in the dev extra)
    makes MQI calls of its own: at an MQOPEN for input it inquires MQIA_PROPERTY_CONTROL, on the
    application's handle when it was opened with MQOO_INQUIRE, else through an MQOPEN/MQINQ/MQCLOSE
    of its own; at an MQSUB with MQSO_MANAGED it inquires the managed queue (ibmmq ``mqotel.py``
    ``otel_open``).  A real queue manager counts those too.  The exact counts below are the
    application's, so the layer is set aside; test_the_otel_layer_makes_the_second_mqinq shows it."""
    for hook in ("open", "close", "disc", "put_trace_before", "put_trace_after", "get_trace_before",
                 "get_trace_after"):
        monkeypatch.setattr(ibmmq.OTelFunctions, hook, None)


def _sd(options, name=None, topic=TOPIC):
    sd = ibmmq.SD(Options=options)
    sd.set_vs("ObjectString", topic)
    if name:
        sd.set_vs("SubName", name)
    return sd


def _subscribe(qm, options, name=None):
    sub = ibmmq.Subscription(qm)
    sub.sub(sub_desc=_sd(options | CMQC.MQSO_MANAGED, name))
    return sub


def _workload(qm):
    """The counted calls, beside _calls' queue traffic:

    - MQINQ 1 and MQSET 1 on the queue (its handle opened with INQUIRE and SET);
    - units of work: MQPUT under syncpoint + MQCMIT, MQGET under syncpoint + MQBACK, the same
      MQGET again + MQCMIT, then an MQCMIT and an MQBACK with no outstanding work (3 MQCMIT,
      2 MQBACK);
    - a retained publication (MQOPEN of the topic, MQPUT with MQPMO_RETAIN, MQCLOSE);
    - durable MQSUB created, resumed, altered, each MQCLOSEd, the last with MQCO_REMOVE_SUB;
    - non-durable MQSUB, MQCLOSEd; one with MQSO_PUBLICATIONS_ON_REQUEST, MQSUBRQ, MQCLOSE;
    - a failed MQSUB (resume of no subscription, 2428) and a failed MQSUBRQ (a subscription not
      made with MQSO_PUBLICATIONS_ON_REQUEST, 2046)."""
    queue = ibmmq.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    queue.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    syncpoint = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    queue.put(b"u" * 7, ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    queue.get(None, ibmmq.MD(), syncpoint)
    qm.backout()
    queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.commit()
    qm.commit()  # nothing outstanding: IBM counts it all the same
    qm.backout()
    queue.close()

    topic = ibmmq.Topic(qm, topic_string=TOPIC)
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"retained", ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT),
              ibmmq.PMO(Options=CMQC.MQPMO_RETAIN | CMQC.MQPMO_NO_SYNCPOINT))
    topic.close()

    durable = CMQC.MQSO_DURABLE
    _subscribe(qm, CMQC.MQSO_CREATE | durable, DURABLE).close(close_sub_queue=True)
    _subscribe(qm, CMQC.MQSO_RESUME | durable, DURABLE).close(close_sub_queue=True)
    _subscribe(qm, CMQC.MQSO_ALTER | durable, DURABLE).close(sub_close_options=CMQC.MQCO_REMOVE_SUB,
                                                              close_sub_queue=True)
    with pytest.raises(ibmmq.MQMIError) as failed:
        _subscribe(qm, CMQC.MQSO_RESUME | durable, DURABLE)
    assert failed.value.reason == CMQC.MQRC_NO_SUBSCRIPTION

    plain = _subscribe(qm, CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE)
    with pytest.raises(ibmmq.MQMIError) as failed:
        plain.subrq()
    assert failed.value.reason == CMQC.MQRC_OPTIONS_ERROR
    plain.close(close_sub_queue=True)
    on_request = _subscribe(qm, CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_PUBLICATIONS_ON_REQUEST)
    on_request.subrq()
    on_request.close(close_sub_queue=True)


def _typed(**counts) -> list[int]:
    """An array indexed by object type (MQOT_Q 1 ... MQOT_SERVICE 12), as the Open/Close/Inq/Set
    counts are."""
    out = [0] * 13
    for name, value in counts.items():
        out[getattr(CMQC, "MQOT_" + name)] = value
    return out


# What _calls + _workload make one connection do, by IBM's parameter (MQI accounting and statistics)
WORKER = {
    CMQCFC.MQIAMO_OPENS: _typed(Q=2, TOPIC=1),
    CMQCFC.MQIAMO_OPENS_FAILED: _typed(),
    # the five managed queues are closed by ibmmq's close_sub_queue; each subscription handle is a topic's
    CMQCFC.MQIAMO_CLOSES: _typed(Q=2 + 5, TOPIC=1 + 5),
    CMQCFC.MQIAMO_CLOSES_FAILED: _typed(),
    CMQCFC.MQIAMO_INQS: _typed(Q=2), CMQCFC.MQIAMO_INQS_FAILED: _typed(),
    CMQCFC.MQIAMO_SETS: _typed(Q=1), CMQCFC.MQIAMO_SETS_FAILED: _typed(),
    CMQCFC.MQIAMO_PUTS: [3, 1], CMQCFC.MQIAMO_PUTS_FAILED: 0,
    CMQCFC.MQIAMO_PUT1S: [0, 1], CMQCFC.MQIAMO_PUT1S_FAILED: 0,
    CMQCFC.MQIAMO64_PUT_BYTES: [10 + 20 + 7, 30 + 5],
    CMQCFC.MQIAMO_GETS: [4, 2], CMQCFC.MQIAMO_GETS_FAILED: 1,
    CMQCFC.MQIAMO64_GET_BYTES: [10 + 20 + 7 + 7, 30 + 5],
    CMQCFC.MQIAMO_BROWSES: [0, 0], CMQCFC.MQIAMO_BROWSES_FAILED: 0, CMQCFC.MQIAMO64_BROWSE_BYTES: [0, 0],
    CMQCFC.MQIAMO_COMMITS: 3, CMQCFC.MQIAMO_COMMITS_FAILED: 0, CMQCFC.MQIAMO_BACKOUTS: 2,
    CMQCFC.MQIAMO_SUBS_DUR: [1, 1, 1],  # [created, altered, resumed] (docs/decisions.md T7)
    CMQCFC.MQIAMO_SUBS_NDUR: [2, 0, 0],
    CMQCFC.MQIAMO_SUBS_FAILED: 1,
    CMQCFC.MQIAMO_UNSUBS_DUR: [1, 0, 0],  # only the MQCLOSE with MQCO_REMOVE_SUB
    CMQCFC.MQIAMO_UNSUBS_NDUR: [2, 0, 0],
    CMQCFC.MQIAMO_UNSUBS_FAILED: 0,
    CMQCFC.MQIAMO_SUBRQS: 1, CMQCFC.MQIAMO_SUBRQS_FAILED: 1,
    # MQCB/MQCTL/MQSTAT run in qmlite's client (docs/decisions.md K3, T7): the queue manager sees none
    CMQCFC.MQIAMO_CBS: [0, 0, 0, 0], CMQCFC.MQIAMO_CBS_FAILED: 0,
    CMQCFC.MQIAMO_CTLS: [0, 0, 0], CMQCFC.MQIAMO_CTLS_FAILED: 0,
    CMQCFC.MQIAMO_STATS: 0, CMQCFC.MQIAMO_STATS_FAILED: 0,
    CMQCFC.MQIAMO_TOPIC_PUTS: [1, 0], CMQCFC.MQIAMO_TOPIC_PUTS_FAILED: 0,
    CMQCFC.MQIAMO_TOPIC_PUT1S: [0, 0], CMQCFC.MQIAMO_TOPIC_PUT1S_FAILED: 0,
    CMQCFC.MQIAMO64_TOPIC_PUT_BYTES: [len(b"retained"), 0],
}
# The admin connection's Reset Q Mgr that ends the interval: MQOPEN, MQPUT (52 bytes: an MQCFH and
# one MQCFIN) and MQCLOSE of the command queue, then the MQGET of its reply (an MQCFH, 36 bytes)
RESET = {CMQCFC.MQIAMO_OPENS: _typed(Q=1), CMQCFC.MQIAMO_CLOSES: _typed(Q=1), CMQCFC.MQIAMO_PUTS: [1, 0],
         CMQCFC.MQIAMO64_PUT_BYTES: [52, 0], CMQCFC.MQIAMO_GETS: [1, 0], CMQCFC.MQIAMO64_GET_BYTES: [36, 0]}


def _plus(counts: dict, extra: dict) -> dict:
    out = dict(counts)
    for key, value in extra.items():
        out[key] = [a + b for a, b in zip(out[key], value)] if isinstance(value, list) else out[key] + value
    return out


def test_every_mqi_verb_counted_exactly(server, qmgr, pcf, clean, application_calls_only):
    """Switched on by PCF as a monitoring agent does, every verb of a known workload appears in the
    MQI statistics (the whole queue manager) and in the worker's MQI and queue accounting with
    exactly the counts IBM's parameters describe."""
    # DEFINE SUB's subscriptions (type ADMIN, always durable) are there all along: high = low
    admin_subs = len(pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"*",
                                                     CMQCFC.MQIACF_SUB_TYPE: CMQCFC.MQSUBTYPE_ADMIN}))
    _change_qmgr(pcf, STATMQI=CMQC.MQMON_ON, STATQ=CMQC.MQMON_ON, STATINT=604_000,
                 ACCTMQI=CMQC.MQMON_ON, ACCTQ=CMQC.MQMON_ON)
    _reset_statistics(pcf)
    _drain(qmgr, STATQ)
    _reset_statistics(pcf)  # the interval starts with nothing but this command's reply to read
    worker = _connect(server)
    _calls(worker)
    _workload(worker)
    worker.disconnect()
    _reset_statistics(pcf)

    (_, mqi_acct), (_, q_acct) = _drain(qmgr, ACCTQ)
    assert {k: mqi_acct[k] for k in WORKER} == WORKER
    [group] = q_acct[CMQCFC.MQGACF_Q_ACCOUNTING_DATA]
    assert group[CMQC.MQCA_Q_NAME].strip() == Q.encode()
    assert {k: group[k] for k in (
        CMQCFC.MQIAMO_OPENS, CMQCFC.MQIAMO_PUTS, CMQCFC.MQIAMO_PUT1S, CMQCFC.MQIAMO64_PUT_BYTES,
        CMQCFC.MQIAMO_PUT_MIN_BYTES, CMQCFC.MQIAMO_PUT_MAX_BYTES, CMQCFC.MQIAMO_GETS, CMQCFC.MQIAMO_GETS_FAILED,
        CMQCFC.MQIAMO64_GET_BYTES, CMQCFC.MQIAMO_GET_MIN_BYTES, CMQCFC.MQIAMO_GET_MAX_BYTES,
        CMQCFC.MQIAMO_BROWSES)} == {
        CMQCFC.MQIAMO_OPENS: 2, CMQCFC.MQIAMO_PUTS: [3, 1], CMQCFC.MQIAMO_PUT1S: [0, 1],
        CMQCFC.MQIAMO64_PUT_BYTES: [37, 35], CMQCFC.MQIAMO_PUT_MIN_BYTES: [7, 5],
        CMQCFC.MQIAMO_PUT_MAX_BYTES: [20, 30], CMQCFC.MQIAMO_GETS: [4, 2], CMQCFC.MQIAMO_GETS_FAILED: 1,
        CMQCFC.MQIAMO64_GET_BYTES: [44, 35], CMQCFC.MQIAMO_GET_MIN_BYTES: [7, 5],
        CMQCFC.MQIAMO_GET_MAX_BYTES: [20, 30], CMQCFC.MQIAMO_BROWSES: [0, 0]}

    by_command = {cfh.Command: params for cfh, params in _drain(qmgr, STATQ)}
    mqi = by_command[CMQCFC.MQCMD_STATISTICS_MQI]
    expected = _plus(WORKER, RESET)
    assert {k: mqi[k] for k in expected} == expected
    assert (mqi[CMQCFC.MQIAMO_CONNS], mqi[CMQCFC.MQIAMO_CONNS_FAILED], mqi[CMQCFC.MQIAMO_CONNS_MAX],
            mqi[CMQCFC.MQIAMO_DISCS]) == (1, 0, 2, [1, 0, 0])
    # the worker's durable API subscription existed for a while and then went: high 1, low 0
    assert mqi[CMQCFC.MQIAMO_SUB_DUR_HIGHWATER] == [1, admin_subs, 0]
    assert mqi[CMQCFC.MQIAMO_SUB_DUR_LOWWATER] == [0, admin_subs, 0]
    assert mqi[CMQCFC.MQIAMO_SUB_NDUR_HIGHWATER] == [1, 0, 0]  # one non-durable at a time
    assert mqi[CMQCFC.MQIAMO_SUB_NDUR_LOWWATER] == [0, 0, 0]
    [q_stats] = [g for g in by_command[CMQCFC.MQCMD_STATISTICS_Q][CMQCFC.MQGACF_Q_STATISTICS_DATA]
                 if g[CMQC.MQCA_Q_NAME].strip() == Q.encode()]
    assert {k: q_stats[k] for k in (CMQCFC.MQIAMO_PUTS, CMQCFC.MQIAMO_PUT1S, CMQCFC.MQIAMO64_PUT_BYTES,
                                    CMQCFC.MQIAMO_GETS, CMQCFC.MQIAMO64_GET_BYTES, CMQCFC.MQIAMO_GETS_FAILED)} == {
        k: WORKER[k] for k in (CMQCFC.MQIAMO_PUTS, CMQCFC.MQIAMO_PUT1S, CMQCFC.MQIAMO64_PUT_BYTES,
                               CMQCFC.MQIAMO_GETS, CMQCFC.MQIAMO64_GET_BYTES, CMQCFC.MQIAMO_GETS_FAILED)}


def test_a_queues_own_statq_and_acctq_by_change_queue(server, qmgr, pcf, clean, application_calls_only):
    """The queue manager's STATQ and ACCTQ OFF, the queue's ON by PCF Change Queue: that queue (and
    only queues that say ON) is reported; then the queue's OFF under the queue manager's ON hides it."""
    _change_qmgr(pcf, STATQ=CMQC.MQMON_OFF, ACCTQ=CMQC.MQMON_OFF, STATINT=604_000)
    _change_queue(pcf, Q, STATQ=CMQC.MQMON_ON, ACCTQ=CMQC.MQMON_ON)
    _interval_of_calls(server, qmgr, pcf)
    [(_, stats)] = [(cfh, p) for cfh, p in _drain(qmgr, STATQ) if cfh.Command == CMQCFC.MQCMD_STATISTICS_Q]
    assert [g[CMQC.MQCA_Q_NAME].strip() for g in stats[CMQCFC.MQGACF_Q_STATISTICS_DATA]] == [Q.encode()]
    [(cfh, acct)] = _drain(qmgr, ACCTQ)
    assert cfh.Command == CMQCFC.MQCMD_ACCOUNTING_Q
    assert [g[CMQC.MQCA_Q_NAME].strip() for g in acct[CMQCFC.MQGACF_Q_ACCOUNTING_DATA]] == [Q.encode()]

    _change_qmgr(pcf, STATQ=CMQC.MQMON_ON, ACCTQ=CMQC.MQMON_ON)
    _change_queue(pcf, Q, STATQ=CMQC.MQMON_OFF, ACCTQ=CMQC.MQMON_OFF)
    _interval_of_calls(server, qmgr, pcf)
    for cfh, params in _drain(qmgr, STATQ):
        if cfh.Command == CMQCFC.MQCMD_STATISTICS_Q:
            assert Q.encode() not in [g[CMQC.MQCA_Q_NAME].strip() for g in params[CMQCFC.MQGACF_Q_STATISTICS_DATA]]
    assert _drain(qmgr, ACCTQ) == []  # ACCTMQI is OFF and the one queue used says OFF


def test_the_otel_layer_makes_the_second_mqinq(server, qmgr, pcf, clean, monkeypatch):
    """One ``queue.inquire()`` showed as two MQINQs at the queue manager: the second is ibmmq's
    OpenTelemetry layer, which inquires MQIA_PROPERTY_CONTROL on the handle at an MQOPEN for input
    with MQOO_INQUIRE (``mqotel.otel_open``).  With the layer on, 2; with it set aside, 1: the
    ibmmqc transport sends one MQINQ per call."""
    # The dev extra installs opentelemetry, so ibmmq's layer is on in the suite (test_ibmmq_otel.py checks it too)
    assert getattr(ibmmq, "otel_enabled", False) and ibmmq.OTelFunctions.open, "ibmmq's OpenTelemetry layer is off"
    _change_qmgr(pcf, ACCTMQI=CMQC.MQMON_ON)
    inqs = []
    for layer in (True, False):
        if not layer:
            monkeypatch.setattr(ibmmq.OTelFunctions, "open", None)
            monkeypatch.setattr(ibmmq.OTelFunctions, "close", None)
        worker = _connect(server)
        queue = ibmmq.Queue(worker, Q, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
        queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        queue.close()
        worker.disconnect()
        [(_, mqi)] = _drain(qmgr, ACCTQ)
        inqs.append(mqi[CMQCFC.MQIAMO_INQS][CMQC.MQOT_Q])
    assert inqs == [2, 1]
