"""A message channel's online monitoring (MONCHL: NETTIME, XQTIME, XBATCHSZ ...) and its statistics
messages (STATCHL), measured by its agents (registry/channels/monitoring.py) and read through IBM's
ibmmq: Inquire Channel Status with the MONITORING selector, and the MQCMD_STATISTICS_CHANNEL message
parsed by ibmmq's PCFExecute.unpack.  Two queue managers in one process (test_run.py's)."""

from __future__ import annotations

import pytest
import trio

from qmlite.registry.mqsc import run_mqsc
from tests.server.mca.test_chstatus import _batches, _inquire
from tests.server.mca.test_run import ADMIN, CHANNEL, _depth, _mqsc, _put, two_queue_managers
from tests.support.ibmmqkit import drain_admin

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

STATQ = "SYSTEM.ADMIN.STATISTICS.QUEUE"
# IBM "Channel statistics message data": the message's parameters, then ChlStatisticsData's.
STAT_HEAD = {CMQC.MQCA_Q_MGR_NAME, CMQCFC.MQCAMO_START_DATE, CMQCFC.MQCAMO_START_TIME, CMQCFC.MQCAMO_END_DATE,
             CMQCFC.MQCAMO_END_TIME, CMQC.MQIA_COMMAND_LEVEL, CMQCFC.MQIAMO_OBJECT_COUNT,
             CMQCFC.MQGACF_CHL_STATISTICS_DATA}
STAT_GROUP = {CMQCFC.MQCACH_CHANNEL_NAME: bytes, CMQCFC.MQIACH_CHANNEL_TYPE: int, CMQC.MQCA_REMOTE_Q_MGR_NAME: bytes,
              CMQCFC.MQCACH_CONNECTION_NAME: bytes, CMQCFC.MQIAMO_MSGS: int, CMQCFC.MQIAMO64_BYTES: int,
              CMQCFC.MQIAMO_NET_TIME_MIN: int, CMQCFC.MQIAMO_NET_TIME_AVG: int, CMQCFC.MQIAMO_NET_TIME_MAX: int,
              CMQCFC.MQIAMO_EXIT_TIME_MIN: int, CMQCFC.MQIAMO_EXIT_TIME_AVG: int,
              CMQCFC.MQIAMO_EXIT_TIME_MAX: int, CMQCFC.MQIAMO_FULL_BATCHES: int,
              CMQCFC.MQIAMO_INCOMPLETE_BATCHES: int, CMQCFC.MQIAMO_AVG_BATCH_SIZE: int,
              CMQCFC.MQIAMO_PUT_RETRIES: int}
# DISPLAY CHSTATUS MONITOR (IBM: "the set of online monitoring parameters"), with the always-returned ones.
MONITOR = (CMQCFC.MQIACH_COMPRESSION_RATE, CMQCFC.MQIACH_COMPRESSION_TIME, CMQCFC.MQIACH_EXIT_TIME_INDICATOR,
           CMQC.MQIA_MONITORING_CHANNEL, CMQCFC.MQIACH_NETWORK_TIME_INDICATOR,
           CMQCFC.MQIACH_BATCH_SIZE_INDICATOR, CMQCFC.MQIACH_XMITQ_MSGS_AVAILABLE,
           CMQCFC.MQIACH_XMITQ_TIME_INDICATOR)
NA = [-1, -1]  # MQMON_NOT_AVAILABLE: blanks in runmqsc


def _pcf(port: int, qmgr: str, command: str, args: dict) -> list[dict]:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    pcf = ibmmq.PCFExecute(qm)
    try:
        return getattr(pcf, command)(args)
    finally:
        pcf.disconnect()
        qm.disconnect()


def _monitoring(port: int, qmgr: str) -> dict:
    (shown,) = _inquire(port, qmgr, CMQC.MQOT_CURRENT_CHANNEL, CMQCFC.MQIACF_MONITORING)
    return shown


def _statistics(port: int, qmgr: str) -> list:
    """End the statistics interval (RESET QMGR TYPE(STATISTICS)) and read what it wrote."""
    _pcf(port, qmgr, "MQCMD_RESET_Q_MGR", {CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_COLLECT_STATISTICS})
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        return [(cfh, params) for _md, cfh, params in drain_admin(qm, STATQ)]
    finally:
        qm.disconnect()


async def test_monitoring_fields_and_a_statistics_message_per_channel_after_traffic(tmp_path):
    # The sender's MONCHL and STATCHL its own; the receiver's from its queue manager's (MONCHL(QMGR)).
    async with two_queue_managers(tmp_path, sdr="BATCHSZ(2) MONCHL(HIGH) STATCHL(HIGH)") as (qm1, qm2, _, _e):
        _mqsc(qm2, f"ALTER QMGR MONCHL(MEDIUM) STATCHL(LOW)\nALTER CHANNEL({CHANNEL}) CHLTYPE(RCVR) MONCHL(QMGR)")
        _mqsc(qm1, "ALTER QMGR STATCHL(OFF)")  # a channel's own STATCHL collects under the QMGR's OFF
        await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True), (b"two", True), (b"three", False)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 3)
            await _batches(qm1, 2)

        sender = await trio.to_thread.run_sync(_monitoring, qm1.port, "QM1")
        receiver = await trio.to_thread.run_sync(_monitoring, qm2.port, "QM2")
        for shown in (sender, receiver):
            assert all(pid in shown for pid in MONITOR), [pid for pid in MONITOR if pid not in shown]
            assert not {CMQCFC.MQIACH_MSGS, CMQCFC.MQIACH_BATCHES} & set(shown)  # the MONITOR set only
            for pid in (CMQCFC.MQIACH_COMPRESSION_RATE, CMQCFC.MQIACH_COMPRESSION_TIME,
                        CMQCFC.MQIACH_EXIT_TIME_INDICATOR):
                assert shown[pid] == [0, 0]  # nothing compressed, no exits: measured as nothing
        assert (sender[CMQC.MQIA_MONITORING_CHANNEL], receiver[CMQC.MQIA_MONITORING_CHANNEL]) == (
            CMQC.MQMON_HIGH, CMQC.MQMON_MEDIUM)
        # NETTIME: the batches' confirmations (and the resync) took time; XQTIME: the messages waited
        # on QM2 (the transmission queue) from their put until the channel started.
        assert all(v > 0 for v in sender[CMQCFC.MQIACH_NETWORK_TIME_INDICATOR]), sender
        assert all(v > 0 for v in sender[CMQCFC.MQIACH_XMITQ_TIME_INDICATOR]), sender
        # XBATCHSZ: a batch of 2 (BATCHSZ) and one of 1, at both ends.
        for shown in (sender, receiver):
            assert all(1 <= v <= 2 for v in shown[CMQCFC.MQIACH_BATCH_SIZE_INDICATOR]), shown
        # A receiving end asks nothing and has no transmission queue.
        assert receiver[CMQCFC.MQIACH_NETWORK_TIME_INDICATOR] == NA
        assert receiver[CMQCFC.MQIACH_XMITQ_TIME_INDICATOR] == NA

        # The statistics interval: one MQCMD_STATISTICS_CHANNEL message at each end, IBM's parameters.
        for server, qmgr, partner, channel_type in ((qm1, "QM1", "QM2", CMQXC.MQCHT_SENDER),
                                                    (qm2, "QM2", "QM1", CMQXC.MQCHT_RECEIVER)):
            written = await trio.to_thread.run_sync(_statistics, server.port, qmgr)
            channel_stats = [params for cfh, params in written if cfh.Command == CMQCFC.MQCMD_STATISTICS_CHANNEL]
            assert len(channel_stats) == 1, [cfh.Command for cfh, _ in written]
            (params,) = channel_stats
            assert set(params) == STAT_HEAD and params[CMQCFC.MQIAMO_OBJECT_COUNT] == 1
            (group,) = params[CMQCFC.MQGACF_CHL_STATISTICS_DATA]
            assert set(group) == set(STAT_GROUP), (set(STAT_GROUP) - set(group), set(group) - set(STAT_GROUP))
            assert all(isinstance(group[pid], kind) for pid, kind in STAT_GROUP.items())
            assert group[CMQCFC.MQCACH_CHANNEL_NAME].strip() == CHANNEL.encode()
            assert group[CMQCFC.MQIACH_CHANNEL_TYPE] == channel_type
            assert group[CMQC.MQCA_REMOTE_Q_MGR_NAME].strip() == partner.encode()
            assert group[CMQCFC.MQIAMO_MSGS] == 3 and group[CMQCFC.MQIAMO64_BYTES] > 3 * 428  # MQXQH + data
            assert (group[CMQCFC.MQIAMO_FULL_BATCHES], group[CMQCFC.MQIAMO_INCOMPLETE_BATCHES]) == (1, 1)
            assert group[CMQCFC.MQIAMO_AVG_BATCH_SIZE] == 2  # 3 messages in 2 batches, rounded half to even
            assert group[CMQCFC.MQIAMO_PUT_RETRIES] == 0
            assert group[CMQCFC.MQIAMO_EXIT_TIME_MAX] == 0
            net = (group[CMQCFC.MQIAMO_NET_TIME_MIN], group[CMQCFC.MQIAMO_NET_TIME_AVG],
                   group[CMQCFC.MQIAMO_NET_TIME_MAX])
            if channel_type == CMQXC.MQCHT_SENDER:  # the resync and two batches' round trips
                assert 0 < net[0] <= net[1] <= net[2], net
            else:
                assert net == (0, 0, 0)

        # MONCHL(OFF): the indicators are not available.
        _mqsc(qm1, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) MONCHL(OFF)")
        sender = await trio.to_thread.run_sync(_monitoring, qm1.port, "QM1")
        for pid in (CMQCFC.MQIACH_NETWORK_TIME_INDICATOR, CMQCFC.MQIACH_XMITQ_TIME_INDICATOR,
                    CMQCFC.MQIACH_BATCH_SIZE_INDICATOR, CMQCFC.MQIACH_EXIT_TIME_INDICATOR):
            assert sender[pid] == NA, pid
        # runmqsc's DISPLAY CHSTATUS MONITOR shows the set, blanks for what is not available.
        _mqsc(qm1, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) MONCHL(LOW)")
        (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL}) MONITOR")
        o = shown.objects[0]
        assert {"NETTIME", "XQTIME", "XBATCHSZ", "MONCHL", "XQMSGSA", "EXITTIME", "COMPTIME", "COMPRATE"} <= set(o)
        assert o["MONCHL"] == "LOW" and "MSGS" not in o, shown.text
        assert all(int(v) > 0 for v in o["NETTIME"].split(",")), shown.text
