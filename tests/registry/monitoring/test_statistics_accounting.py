"""Statistics and accounting messages (registry/monitoring/statistics.py, accounting.py) on an
injected clock: the switches, the interval, the counts of known calls, and the formats as IBM's
``ibmmq`` package parses them (PCFExecute.unpack)."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.registry.monitoring import records
from qmlite.registry.qmgr import QueueManager

ibmmq = pytest.importorskip("ibmmq")

Q = "DEV.QUEUE.1"
OUT_IN = C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE | C.MQOO_INQUIRE


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    yield manager
    manager.shutdown()


def switch(qm, **values):
    for name, value in values.items():
        setattr(qm.registry.qmgr, name, value)


def drain(qm, queue):
    """Every message on a system queue, parsed by ibmmq: [(CFH, params dict)]."""
    contents = qm.registry.messages.contents(queue)
    out = []
    for msg in list(contents.after(None)):
        assert msg.md.Format == C.MQFMT_ADMIN and msg.md.PutApplType == C.MQAT_QMGR
        params, cfh = ibmmq.PCFExecute.unpack(msg.data)
        out.append((cfh, params))
        contents.remove(msg)
    return out


def workload(qm, clock, session=None):
    """A known set of calls: 1 MQOPEN, 2 non-persistent + 1 persistent MQPUT, 1 MQPUT1, 1 browse,
    2 MQGET, 1 failed MQGET, 1 MQINQ, 1 MQCLOSE."""
    s = session or qm.connect("QM1", user="app", admin=False, appl_name="work")
    h, _ = qm.open_object(s, S.MQOD(ObjectName=Q), OUT_IN)
    for persistence, size in ((0, 10), (0, 30), (1, 100)):
        qm.put(s, h.hobj, S.MQMD(Persistence=persistence), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x" * size)
    qm.put1(s, S.MQOD(ObjectName=Q), S.MQMD(Persistence=1), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"y" * 7)
    clock.t += 3
    assert qm.get(s, h, S.MQMD(), S.MQGMO(Options=C.MQGMO_BROWSE_FIRST), 1000) is not None
    for _ in range(2):
        assert qm.get(s, h, S.MQMD(), S.MQGMO(Options=C.MQGMO_NO_SYNCPOINT), 1000) is not None
    h.stats.get_fails  # readable through the accounting tee too
    qm.get_failed(h, C.MQGMO_NO_SYNCPOINT)  # the server's answer when nothing came (2033)
    qm.inquire(s, h.hobj, [C.MQIA_CURRENT_Q_DEPTH], 1, 0)
    qm.close_object(s, h.hobj, 0)
    return s


def test_switches_off_write_nothing(qm, clock):
    s = workload(qm, clock)
    qm.disconnect(s, commit=True)
    clock.t += 3600
    assert qm.monitoring_tick() == 0
    assert s.acct is None
    assert drain(qm, records.STATISTICS_QUEUE) == [] and drain(qm, records.ACCOUNTING_QUEUE) == []


def test_mqi_and_queue_statistics_count_the_calls(qm, clock):
    switch(qm, statistics_mqi=C.MQMON_ON, statistics_q=C.MQMON_ON, statistics_interval=60)
    qm.statistics.collect()  # start a clean interval
    drain(qm, records.STATISTICS_QUEUE)
    s = workload(qm, clock)
    qm.disconnect(s, commit=True)
    clock.t += 30
    assert qm.monitoring_tick() == 0  # STATINT not yet passed
    clock.t += 30
    assert qm.monitoring_tick() == 2
    (mh, mqi), (qh, qstats) = drain(qm, records.STATISTICS_QUEUE)
    assert (mh.Type, mh.Command, mh.Version, mh.Control) == (C.MQCFT_STATISTICS, C.MQCMD_STATISTICS_MQI, 3,
                                                             C.MQCFC_LAST)
    assert qh.Command == C.MQCMD_STATISTICS_Q
    assert mqi[C.MQIAMO_CONNS] == 1 and mqi[C.MQIAMO_DISCS] == [1, 0, 0]
    assert mqi[C.MQIAMO_OPENS][C.MQOT_Q] == 1 and mqi[C.MQIAMO_CLOSES][C.MQOT_Q] == 1
    assert mqi[C.MQIAMO_INQS][C.MQOT_Q] == 1
    assert mqi[C.MQIAMO_PUTS] == [2, 1] and mqi[C.MQIAMO_PUT1S] == [0, 1]
    assert mqi[C.MQIAMO64_PUT_BYTES] == [40, 107]
    assert mqi[C.MQIAMO_GETS] == [2, 0] and mqi[C.MQIAMO_GETS_FAILED] == 1
    assert mqi[C.MQIAMO_BROWSES] == [1, 0]
    [group] = qstats[C.MQGACF_Q_STATISTICS_DATA]
    assert qstats[C.MQIAMO_OBJECT_COUNT] == 1
    assert group[C.MQCA_Q_NAME].strip() == Q.encode()
    assert group[C.MQIAMO_PUTS] == [2, 1] and group[C.MQIAMO_PUT1S] == [0, 1]
    assert group[C.MQIAMO_GETS] == [2, 0] and group[C.MQIAMO64_GET_BYTES] == [40, 0]
    assert group[C.MQIAMO_Q_MAX_DEPTH] == 4 and group[C.MQIAMO_Q_MIN_DEPTH] == 0
    assert group[C.MQIAMO64_AVG_Q_TIME] == [3_000_000, 0]
    assert list(group)[:8] == [C.MQCA_Q_NAME, C.MQCA_CREATION_DATE, C.MQCA_CREATION_TIME, C.MQIA_Q_TYPE,
                               C.MQIA_DEFINITION_TYPE, C.MQIAMO_Q_MIN_DEPTH, C.MQIAMO_Q_MAX_DEPTH,
                               C.MQIAMO64_AVG_Q_TIME]
    clock.t += 60
    qm.monitoring_tick()
    later = drain(qm, records.STATISTICS_QUEUE)
    assert [h.Command for h, _ in later] == [C.MQCMD_STATISTICS_MQI]  # no activity: no queue statistics


def test_queue_statq_off_and_many_queues_split_by_100(qm, clock):
    switch(qm, statistics_q=C.MQMON_ON)
    s = qm.connect("QM1", user="admin", admin=True)
    for n in range(150):
        name = f"STAT.Q{n:03d}"
        qm.registry.put_queue(qm.registry.queues[Q].__class__(name))
        h, _ = qm.open_object(s, S.MQOD(ObjectName=name), C.MQOO_OUTPUT)
        qm.put(s, h.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"z")
    qm.registry.queues["STAT.Q000"].statistics_q = C.MQMON_OFF
    qm.statistics.collect()
    msgs = drain(qm, records.STATISTICS_QUEUE)
    assert [(h.MsgSeqNumber, h.Control, p[C.MQIAMO_OBJECT_COUNT]) for h, p in msgs] == [
        (1, C.MQCFC_NOT_LAST, 100), (2, C.MQCFC_LAST, 49)]
    names = {g[C.MQCA_Q_NAME].strip() for _, p in msgs for g in p[C.MQGACF_Q_STATISTICS_DATA]}
    assert b"STAT.Q000" not in names and b"STAT.Q149" in names


def test_accounting_on_disconnect_and_at_the_interval(qm, clock):
    switch(qm, accounting_mqi=C.MQMON_ON, accounting_q=C.MQMON_ON, accounting_interval=100)
    s = workload(qm, clock)
    clock.t += 100
    assert qm.monitoring_tick() == 2  # an intermediate record for the long-running connection
    (mh, first), (qh, qfirst) = drain(qm, records.ACCOUNTING_QUEUE)
    assert (mh.Type, mh.Command, qh.Command) == (C.MQCFT_ACCOUNTING, C.MQCMD_ACCOUNTING_MQI, C.MQCMD_ACCOUNTING_Q)
    assert first[C.MQIACF_SEQUENCE_NUMBER] == 0 and C.MQIAMO_DISC_TYPE not in first
    assert first[C.MQBACF_CONNECTION_ID] == s.connection_id
    assert first[C.MQCACF_APPL_NAME].strip() == b"work" and first[C.MQCACF_USER_IDENTIFIER].strip() == b"app"
    assert first[C.MQIAMO_PUTS] == [2, 1] and first[C.MQIAMO_PUT1S] == [0, 1]
    assert first[C.MQIAMO_GETS] == [2, 0] and first[C.MQIAMO_GETS_FAILED] == 1
    assert first[C.MQIAMO_OPENS][C.MQOT_Q] == 1 and first[C.MQIAMO_INQS][C.MQOT_Q] == 1
    [group] = qfirst[C.MQGACF_Q_ACCOUNTING_DATA]
    assert group[C.MQIAMO_OPENS] == 1 and group[C.MQIAMO_PUTS] == [2, 1]
    assert group[C.MQIAMO_PUT_MIN_BYTES] == [10, 7] and group[C.MQIAMO_PUT_MAX_BYTES] == [30, 100]
    assert group[C.MQIAMO64_Q_TIME_MIN] == [3_000_000, 0]
    h, _ = qm.open_object(s, S.MQOD(ObjectName=Q), C.MQOO_OUTPUT)
    qm.put(s, h.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"q")
    qm.disconnect(s, commit=False)  # broken: IMPLICIT
    (_, last), (_, qlast) = drain(qm, records.ACCOUNTING_QUEUE)
    assert last[C.MQIACF_SEQUENCE_NUMBER] == 1 and last[C.MQIAMO_DISC_TYPE] == records.MQDISCONNECT_IMPLICIT
    assert last[C.MQIAMO_PUTS] == [1, 0] and last[C.MQIAMO_GETS] == [0, 0]
    assert qlast[C.MQGACF_Q_ACCOUNTING_DATA][0][C.MQIAMO_PUTS] == [1, 0]


@pytest.mark.parametrize("override, options, mqi, queue", [
    (C.MQMON_DISABLED, C.MQCNO_ACCOUNTING_MQI_ENABLED | C.MQCNO_ACCOUNTING_Q_ENABLED, False, False),
    (C.MQMON_ENABLED, C.MQCNO_ACCOUNTING_MQI_ENABLED, True, False),
    (C.MQMON_ENABLED, C.MQCNO_ACCOUNTING_Q_ENABLED, False, True),
    (C.MQMON_ENABLED, C.MQCNO_ACCOUNTING_MQI_ENABLED | C.MQCNO_ACCOUNTING_Q_ENABLED, True, True),
    (C.MQMON_ENABLED, 0, False, False),
])
def test_acctcono_and_mqcno_options(qm, clock, override, options, mqi, queue):
    switch(qm, accounting_conn_override=override)
    s = qm.connect("QM1", user="app", admin=False, options=options)
    workload(qm, clock, s)
    qm.disconnect(s, commit=True)
    commands = [h.Command for h, _ in drain(qm, records.ACCOUNTING_QUEUE)]
    assert commands == [C.MQCMD_ACCOUNTING_MQI] * mqi + [C.MQCMD_ACCOUNTING_Q] * queue


def test_mqcno_disabled_overrides_the_queue_manager(qm, clock):
    switch(qm, accounting_mqi=C.MQMON_ON, accounting_q=C.MQMON_ON, accounting_conn_override=C.MQMON_ENABLED)
    s = qm.connect("QM1", user="app", admin=False,
                   options=C.MQCNO_ACCOUNTING_MQI_DISABLED | C.MQCNO_ACCOUNTING_Q_DISABLED)
    assert s.acct is None


def test_queue_acctq_on_collects_under_qmgr_off_and_none_stops_it(qm, clock):
    qm.registry.queues[Q].accounting_q = C.MQMON_ON
    s = workload(qm, clock)
    qm.disconnect(s, commit=True)
    assert [h.Command for h, _ in drain(qm, records.ACCOUNTING_QUEUE)] == [C.MQCMD_ACCOUNTING_Q]
    switch(qm, accounting_q=C.MQMON_NONE)
    s = workload(qm, clock)
    qm.disconnect(s, commit=True)
    assert drain(qm, records.ACCOUNTING_QUEUE) == []


def test_reset_qmgr_statistics_by_pcf(qm, clock):
    from tests.support.pcfkit import command

    switch(qm, statistics_mqi=C.MQMON_ON)
    qm.registry.qmgr.statistics_interval = 100_000
    responses = qm.engine.execute(command(C.MQCMD_RESET_Q_MGR, P.CFIN(C.MQIACF_ACTION, C.MQACT_COLLECT_STATISTICS)))
    assert responses[-1].header.CompCode == 0
    assert [h.Command for h, _ in drain(qm, records.STATISTICS_QUEUE)] == [C.MQCMD_STATISTICS_MQI]
    bad = qm.engine.execute(command(C.MQCMD_RESET_Q_MGR, P.CFIN(C.MQIACF_ACTION, C.MQACT_ADVANCE_LOG)))
    assert bad[0].header.Reason == C.MQRCCF_ACTION_VALUE_ERROR
    missing = qm.engine.execute(command(C.MQCMD_RESET_Q_MGR))
    assert missing[0].header.Reason == C.MQRCCF_PARM_MISSING


def test_reset_qmgr_type_statistics_by_mqsc(qm):
    from qmlite.registry.mqsc import run_mqsc

    switch(qm, statistics_mqi=C.MQMON_ON)
    results = run_mqsc(qm, "RESET QMGR TYPE(STATISTICS)")
    assert "AMQ8079I" in str(results[0])
    assert [h.Command for h, _ in drain(qm, records.STATISTICS_QUEUE)] == [C.MQCMD_STATISTICS_MQI]


def test_channel_statistics_for_message_channels_only(qm, clock):
    from qmlite.registry.channels import monitoring as MON
    from qmlite.registry.channels.mcastatus import status_of
    from qmlite.registry.mqsc import run_mqsc
    from qmlite.registry.objects.channels import Channel

    switch(qm, statistics_channel=C.MQMON_HIGH)
    running = qm.registry.running
    run_mqsc(qm, "DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('10.0.0.2') XMITQ(QM2)")
    sender = qm.registry.objects("channel")["TO.QM2"]
    running.start_instance(Channel("DEV.APP.SVRCONN", C.MQCHT_SVRCONN), "127.0.0.1", clock.t).msgs = 9
    running.start_instance(sender, "10.0.0.2(1414)", clock.t)
    status = status_of(qm.registry, sender)
    status.conn_name, status.remote_qmgr = "10.0.0.2(1414)", "QM2"
    MON.message_moved(status.measures, 100)  # before the interval: not in it
    qm.statistics.collect()
    drain(qm, records.STATISTICS_QUEUE)
    for size in (100, 200, 300, 400, 500):
        MON.message_moved(status.measures, size)
    MON.batch_ended(status.measures, 3, full=True)
    MON.batch_ended(status.measures, 2, full=False)
    MON.round_trip(status.measures, 0.002)
    MON.round_trip(status.measures, 0.004)
    qm.statistics.collect()
    [(h, params)] = drain(qm, records.STATISTICS_QUEUE)
    assert h.Command == C.MQCMD_STATISTICS_CHANNEL
    [group] = params[C.MQGACF_CHL_STATISTICS_DATA]
    assert group[C.MQCACH_CHANNEL_NAME].strip() == b"TO.QM2" and group[C.MQIACH_CHANNEL_TYPE] == C.MQCHT_SENDER
    assert group[C.MQCA_REMOTE_Q_MGR_NAME].strip() == b"QM2"
    assert group[C.MQCACH_CONNECTION_NAME].strip() == b"10.0.0.2(1414)"
    assert group[C.MQIAMO_MSGS] == 5 and group[C.MQIAMO64_BYTES] == 1500
    assert (group[C.MQIAMO_FULL_BATCHES], group[C.MQIAMO_INCOMPLETE_BATCHES], group[C.MQIAMO_AVG_BATCH_SIZE]) == (
        1, 1, 2)  # 5 messages in 2 batches, rounded
    assert (group[C.MQIAMO_NET_TIME_MIN], group[C.MQIAMO_NET_TIME_AVG], group[C.MQIAMO_NET_TIME_MAX]) == (
        2000, 3000, 4000)
    # The next interval, ended by the clock at STATINT: a running channel still gets its group, empty.
    clock.t += qm.registry.qmgr.statistics_interval
    assert qm.statistics.tick() == 1
    [(h, params)] = drain(qm, records.STATISTICS_QUEUE)
    [group] = params[C.MQGACF_CHL_STATISTICS_DATA]
    assert (group[C.MQIAMO_MSGS], group[C.MQIAMO_FULL_BATCHES], group[C.MQIAMO_NET_TIME_MAX]) == (0, 0, 0)


def test_full_statistics_queue_loses_the_interval_without_failing(qm, clock):
    switch(qm, statistics_mqi=C.MQMON_ON)
    qm.registry.queues[records.STATISTICS_QUEUE].inhibit_put = C.MQQA_PUT_INHIBITED
    assert qm.statistics.collect() == 0  # the put's MQRC_PUT_INHIBITED is not the caller's failure
    assert drain(qm, records.STATISTICS_QUEUE) == []


def test_subscription_high_and_low_water_marks_over_the_interval(qm, clock):
    """DEFINE SUB makes an ADMIN subscription, an MQSUB an API one: the marks are the most and fewest
    of each type at any moment of the interval, and the next interval starts from those there are."""
    from qmlite.registry.mqsc import run_mqsc

    switch(qm, statistics_mqi=C.MQMON_ON)
    base = len(qm.registry.subs)  # a new queue manager's own (SYSTEM.DEFAULT.SUB), ADMIN and durable
    run_mqsc(qm, "DEFINE SUB(KEEP) TOPICSTR('marks/keep') DEST(DEV.QUEUE.1)")
    qm.statistics.collect()
    drain(qm, records.STATISTICS_QUEUE)
    run_mqsc(qm, "DEFINE SUB(A1) TOPICSTR('marks/a') DEST(DEV.QUEUE.1)\n"
                 "DEFINE SUB(A2) TOPICSTR('marks/b') DEST(DEV.QUEUE.1)")
    run_mqsc(qm, "DELETE SUB(A1)\nDELETE SUB(A2)\nDELETE SUB(KEEP)")
    s = qm.connect("QM1", user="admin", admin=True, appl_name="marks")
    sd = S.MQSD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED)
    sd.ObjectString.VSString = "marks/api"
    handle, _, _ = qm.subscribe(s, sd, C.MQHO_NONE)
    qm.statistics.collect()
    [(_, mqi)] = drain(qm, records.STATISTICS_QUEUE)
    assert (mqi[C.MQIAMO_SUB_DUR_HIGHWATER], mqi[C.MQIAMO_SUB_DUR_LOWWATER]) == ([0, base + 3, 0], [0, base, 0])
    assert (mqi[C.MQIAMO_SUB_NDUR_HIGHWATER], mqi[C.MQIAMO_SUB_NDUR_LOWWATER]) == ([1, 0, 0], [0, 0, 0])
    qm.close_object(s, handle.hobj, 0)
    qm.statistics.collect()
    [(_, mqi)] = drain(qm, records.STATISTICS_QUEUE)
    assert (mqi[C.MQIAMO_SUB_DUR_HIGHWATER], mqi[C.MQIAMO_SUB_DUR_LOWWATER]) == ([0, base, 0], [0, base, 0])
    assert (mqi[C.MQIAMO_SUB_NDUR_HIGHWATER], mqi[C.MQIAMO_SUB_NDUR_LOWWATER]) == ([1, 0, 0], [0, 0, 0])


def test_every_mqcmit_and_mqback_counts_an_implicit_one_only_with_work(qm, clock):
    """IBM's CommitCount counts commit requests with no outstanding work and the commit of MQDISC;
    BackCount the backout of a connection that ends without MQDISC.  An MQDISC or a broken connection
    with nothing in the unit counts nothing."""
    switch(qm, statistics_mqi=C.MQMON_ON, accounting_mqi=C.MQMON_ON)
    qm.statistics.collect()
    drain(qm, records.STATISTICS_QUEUE)
    counted = []
    for uncommitted, commit in ((False, True), (True, True), (False, False), (True, False)):
        s = qm.connect("QM1", user="app", admin=False, appl_name="units")
        qm.commit(s)
        qm.backout(s)
        if uncommitted:
            qm.put1(s, S.MQOD(ObjectName=Q), S.MQMD(), S.MQPMO(Options=C.MQPMO_SYNCPOINT), b"u")
        qm.disconnect(s, commit=commit)
        [(_, acct)] = drain(qm, records.ACCOUNTING_QUEUE)
        counted.append((acct[C.MQIAMO_COMMITS], acct[C.MQIAMO_BACKOUTS]))
    assert counted == [(1, 1), (2, 1), (1, 1), (1, 2)]
    qm.statistics.collect()
    [(_, mqi)] = drain(qm, records.STATISTICS_QUEUE)
    assert (mqi[C.MQIAMO_COMMITS], mqi[C.MQIAMO_BACKOUTS]) == (5, 5)
