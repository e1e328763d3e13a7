"""Assured delivery end to end (issue 34 item 2): the sending ``qmlite serve`` SIGKILLed at each point of a
batch, NPMSPEED(FAST) as IBM documents it, one fsync per batch at each end (counted on each committer), a
sequence-number mismatch and a batch cut off between two real processes, request/reply across queue
managers -- all through IBM's ibmmq.  The proxy is test_mqport.py's: it sees every segment and can kill a
process as a chosen one crosses."""

from __future__ import annotations

import pytest
import trio

from qmlite.pcf import fap
from qmlite.pcf import pcf as P
from qmlite.registry.mqsc import run_mqsc
from qmlite.server.listener import running
from tests.server.mca.test_mqport import ADMIN, CHANNEL, RECEIVING, Proxy, _cfg, _get, _mqsc, _put, _serve_qm2
from tests.server.mca.test_run import _depth, admitting, two_queue_managers
from tests.server.mca.test_run import _put as _put_in_test_run
from tests.registry.monitoring.test_events import values
from tests.support import amqerr, wire
from tests.support.served import Served

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402


@pytest.fixture(autouse=True)
def _reap():
    yield
    Served.reap_all()


def _sending_mqsc(port: int, extra: str) -> str:
    return f"""DEFINE QLOCAL(QM2) USAGE(XMITQ)
DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) DISCINT(0) {extra}
ALTER QMGR CHLEV(ENABLED)
"""


async def _serve(tmp_path, qmgr: str, mqsc: str = "") -> Served:
    """``qmgr`` in a ``qmlite serve`` of its own; ``mqsc``: its start-up MQSC, given on the first start only
    (a restart finds its objects in its data directory)."""
    extra = []
    if mqsc:
        directory = tmp_path / f"{qmgr.lower()}mqsc"
        directory.mkdir()
        (directory / "setup.mqsc").write_text(mqsc)
        extra = ["--mqsc-dir", str(directory)]
    return await trio.to_thread.run_sync(
        lambda: Served(tmp_path / qmgr.lower() / "data", "--qmgr", qmgr, *extra, qmgr=qmgr))


async def _serve_qm1(tmp_path, mqsc: str = "") -> Served:
    """QM1, the sending queue manager (the one the tests kill)."""
    return await _serve(tmp_path, "QM1", mqsc)


def _command(port: int, qmgr: str, command: str, params: dict) -> None:
    """A PCF command through ibmmq (START CHANNEL, RESET CHANNEL ... of a served queue manager)."""
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    pcf = ibmmq.PCFExecute(qm)
    try:
        getattr(pcf, command)(params)
    finally:
        pcf.disconnect()


def _start(port: int) -> None:
    _command(port, "QM1", "MQCMD_START_CHANNEL", {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})


def _channel_stopped(port: int) -> dict:
    """Wait for QM1's Channel Stopped event (CHLEV) and give its parameters."""
    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        queue = ibmmq.Queue(qm, "SYSTEM.ADMIN.CHANNEL.EVENT", CMQC.MQOO_INPUT_SHARED)
        while True:
            gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
            md = ibmmq.MD()
            event = P.decode(queue.get(None, md, gmo), md.Encoding, md.CodedCharSetId)
            if event.header.Reason == CMQC.MQRC_CHANNEL_STOPPED:
                return values(event)
    finally:
        qm.disconnect()


# ---- SIGKILL of the sending process ---------------------------------------------------------------
# Six persistent messages, BATCHSZ(4) and a BATCHINT of ten minutes: batch 1 is MESSAGE_DATA segments 1-4
# and its end, 5; the receiver's STATUS 2 confirms it; batch 2 is segments 6 and 7, then the sender waits
# for more with the batch open.  The sender is killed as (1) segment 7 crosses: batch 2 is open, its gets
# never hardened, and batch 1's commit -- made when its confirmation came, not waited for (decision MCD1)
# -- is lost with the process; (2) batch 1's end crosses: its in-doubt record is on disk, the receiver
# never commits it (it backs out when the connection drops); (3) the receiver committed batch 1 and its
# confirmation is held back.  Each time batch 1 is in doubt at the restart and the start's RESYNC settles
# it: committed in (1) and (3), backed out and sent again in (2).
SENDER_TRIPS = {
    "mid-batch, last commit not on disk": ((True, fap.MESSAGE_DATA, 7), 3),
    "in doubt, end not delivered": ((True, fap.MESSAGE_DATA, 5), 8),
    "committed, confirmation lost": ((False, fap.STATUS_DATA, 2), 3),
}
_LONG_BATCH = "BATCHSZ(4) BATCHINT(600000) SHORTRTY(120) SHORTTMR(1)"


def _saved_status(port: int) -> tuple:
    """QM1's saved status of the channel: (INDOUBT, CURSEQNO, LSTSEQNO)."""
    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    pcf = ibmmq.PCFExecute(qm)
    try:
        (saved,) = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL,
                                                     CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE: CMQC.MQOT_SAVED_CHANNEL,
                                                     CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS: [CMQCFC.MQIACF_ALL]})
    finally:
        pcf.disconnect()
    return (saved[CMQCFC.MQIACH_INDOUBT_STATUS], saved[CMQCFC.MQIACH_CURRENT_SEQ_NUMBER],
            saved[CMQCFC.MQIACH_LAST_SEQ_NUMBER])


def _restart_batches(port: int) -> None:
    """After the restart: BATCHINT(0), so the open batch ends when the queue is empty; START CHANNEL."""
    _command(port, "QM1", "MQCMD_CHANGE_CHANNEL", {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL,
                                                   CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SENDER,
                                                   CMQCFC.MQIACH_BATCH_INTERVAL: 0})
    _start(port)


@pytest.mark.parametrize("trip, again", SENDER_TRIPS.values(), ids=SENDER_TRIPS.keys())
async def test_sigkill_of_the_sending_qmlite_serve_loses_and_doubles_no_persistent_message(tmp_path, trip, again):
    killed = trio.Event()
    qm1: list[Served] = []
    crossed = []  # MESSAGE_DATA segments counted when the kill came

    def kill() -> None:
        qm1[0].kill()  # SIGKILL: nothing of the sender's shutdown runs
        crossed.append(proxy.counts[(True, fap.MESSAGE_DATA)])
        killed.set()

    bodies = [(b"m%02d" % n, True) for n in range(6)]
    async with running(_cfg(tmp_path, "QM2"), synchronous="NORMAL") as qm2, trio.open_nursery() as nursery:
        _mqsc(qm2.qm, RECEIVING)
        proxy = Proxy(qm2.port, trip, kill)
        await proxy.start(nursery)
        qm1.append(await _serve_qm1(tmp_path, _sending_mqsc(proxy.port, _LONG_BATCH)))
        await trio.to_thread.run_sync(_put, qm1[0].port, bodies)
        await trio.to_thread.run_sync(_start, qm1[0].port)
        with trio.fail_after(60):
            await killed.wait()
        qm1[0] = await _serve_qm1(tmp_path)  # the same data directory
        saved = await trio.to_thread.run_sync(_saved_status, qm1[0].port)
        assert saved == (CMQCFC.MQCHIDS_INDOUBT, 4, 0)  # batch 1 in doubt, nothing committed before it
        await trio.to_thread.run_sync(_restart_batches, qm1[0].port)  # RESYNC settles batch 1
        got = await trio.to_thread.run_sync(_get, qm2.port, len(bodies))
        assert got == [(body, CMQC.MQPER_PERSISTENT) for body, _ in bodies]  # once each, in order
        # what went again: batch 2 (two messages and its end), after batch 1 when it was backed out
        assert proxy.counts[(True, fap.MESSAGE_DATA)] - crossed[0] == again
        nursery.cancel_scope.cancel()
    assert qm1[0].stop() == 0, qm1[0].stderr_tail()


async def test_sigkill_of_the_sender_mid_batch_with_npmspeed_fast_doubles_no_nonpersistent_message(tmp_path):
    """IBM: a fast non-persistent message is sent outside the batch's unit of work -- the receiver puts it
    at once, before the batch ends; on a failure it may be lost, never sent twice."""
    bodies = [b"f%02d" % n for n in range(5)]
    async with running(_cfg(tmp_path, "QM2"), synchronous="NORMAL") as qm2, trio.open_nursery() as nursery:
        _mqsc(qm2.qm, RECEIVING)
        proxy = Proxy(qm2.port)
        await proxy.start(nursery)
        qm1 = await _serve_qm1(tmp_path, _sending_mqsc(proxy.port, f"{_LONG_BATCH} NPMSPEED(FAST)"))
        await trio.to_thread.run_sync(_put, qm1.port, [(body, False) for body in bodies])
        await trio.to_thread.run_sync(_start, qm1.port)
        with trio.fail_after(60):  # batch 1, and batch 2's one message while its batch is still open
            await _depth(qm2, "TARGET", 5)
        qm1.kill()
        qm1 = await _serve_qm1(tmp_path)
        await trio.to_thread.run_sync(_put, qm1.port, [(b"after", True)])
        await trio.to_thread.run_sync(_restart_batches, qm1.port)
        got = await trio.to_thread.run_sync(_get, qm2.port, len(bodies) + 1)
        # each once (then the queue is empty): the open batch's message was not sent again
        assert got == [(body, CMQC.MQPER_NOT_PERSISTENT) for body in bodies] + [(b"after", CMQC.MQPER_PERSISTENT)]
        nursery.cancel_scope.cancel()
    assert qm1.stop() == 0, qm1.stderr_tail()


# ---- one fsync per batch at each end ---------------------------------------------------------------
async def test_a_batch_costs_one_fsync_at_each_end(tmp_path):
    """Counted on each queue manager's group committer (a commit is one fsync of everything waiting): the
    receiver's commit of a batch's puts is the hardening point, the sender's in-doubt record the other;
    the sender's commit after the confirmation rides on the next batch's (decision MCD1)."""
    async with two_queue_managers(tmp_path, sdr="BATCHSZ(2)") as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_put_in_test_run, qm1.port, [(b"m%d" % n, True) for n in range(10)])
        before = qm1.committer.commits, qm2.committer.commits
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 10)
        sender = qm1.committer.commits - before[0]
        receiver = qm2.committer.commits - before[1]
        batches = qm2.qm.registry.running.message_channels[CHANNEL].batches
        assert batches == 5
        assert 0 < receiver <= batches and 0 < sender <= batches


# ---- bad input between two qmlite serve processes ----------------------------------------------------
def _depth_of(port: int, qmgr: str, queue: str) -> int:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    pcf = ibmmq.PCFExecute(qm)
    try:
        (answer,) = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: queue, CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_CURRENT_Q_DEPTH]})
        return answer[CMQC.MQIA_CURRENT_Q_DEPTH]
    finally:
        pcf.disconnect()


def _entries(served: Served, number: str) -> list:
    return [e for e in amqerr.read(served.data_dir / "errors" / "AMQERR01.LOG") if e.number == number]


async def test_a_sequence_number_mismatch_is_amq9526_at_both_ends_and_stops_the_sender_until_reset(tmp_path):
    qm2 = await _serve(tmp_path, "QM2", RECEIVING)
    async with trio.open_nursery() as nursery:
        proxy = Proxy(qm2.port)
        await proxy.start(nursery)
        qm1 = await _serve_qm1(tmp_path, _sending_mqsc(proxy.port, "SHORTRTY(3) SHORTTMR(1)"))
        # The receiver expects 50 (its records reset); the sender sends 1.
        await trio.to_thread.run_sync(_command, qm2.port, "QM2", "MQCMD_RESET_CHANNEL",
                                      {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL, CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER: 50})
        await trio.to_thread.run_sync(_put, qm1.port, [(b"kept", True)])
        await trio.to_thread.run_sync(_start, qm1.port)
        stopped = await trio.to_thread.run_sync(_channel_stopped, qm1.port)
        # Not retried (SHORTRTY(3) left alone): no retry helps until RESET CHANNEL (decision MCA10)
        assert (stopped[CMQCFC.MQIACF_REASON_QUALIFIER], stopped[CMQCFC.MQIACF_ERROR_IDENTIFIER]) == (
            CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED, 9526)
        (received,) = _entries(qm2, "AMQ9526E")
        (sent,) = _entries(qm1, "AMQ9526E")
        for entry in (received, sent):
            assert entry.text == f"Message sequence number error for channel '{CHANNEL}'."
            assert "A message with sequence number 1 has been sent when sequence number 50 was expected" in \
                entry.explanation
        assert await trio.to_thread.run_sync(_depth_of, qm1.port, "QM1", "QM2") == 1  # still on the xmitq
        await trio.to_thread.run_sync(_command, qm1.port, "QM1", "MQCMD_RESET_CHANNEL",
                                      {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL, CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER: 50})
        await trio.to_thread.run_sync(_start, qm1.port)
        assert await trio.to_thread.run_sync(_get, qm2.port, 1) == [(b"kept", CMQC.MQPER_PERSISTENT)]
        nursery.cancel_scope.cancel()
    for served in (qm1, qm2):
        assert served.stop() == 0, served.stderr_tail()
    # The refusal on the wire, as Wireshark's MQ dissector reads it: message 1, STATUS MSG_SEQUENCE_ERROR
    refused = wire.dissect(proxy.captures[0], ["mq.msh.seqnum", "mq.status.code"])
    assert refused.malformed == [] and refused.expert == []
    assert refused.values("mq.msh.seqnum") == ["1"]
    # the RESYNC's answer, then the refusal of message 1 (the sender's close follows)
    assert refused.values("mq.status.code")[:2] == ["0", str(fap.MSG_SEQUENCE_ERROR)]
    delivered = wire.dissect(proxy.captures[1], ["mq.msh.seqnum"])
    assert delivered.values("mq.msh.seqnum") == ["50"] and delivered.malformed == []


@pytest.mark.parametrize("definition", ["CHLTYPE(SVRCONN)", "CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(X)"],
                         ids=["svrconn", "sdr"])
async def test_a_sender_against_the_wrong_channel_type_stops_and_keeps_its_messages(tmp_path, definition):
    qm2 = await _serve(tmp_path, "QM2", f"DEFINE CHANNEL({CHANNEL}) {definition}\n")
    qm1 = await _serve_qm1(tmp_path, _sending_mqsc(qm2.port, "SHORTRTY(0) LONGRTY(0)"))
    await trio.to_thread.run_sync(_put, qm1.port, [(b"kept", True)])
    await trio.to_thread.run_sync(_start, qm1.port)
    stopped = await trio.to_thread.run_sync(_channel_stopped, qm1.port)
    assert stopped[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED
    assert f"STATUS {fap.CHANNEL_WRONG_TYPE}" in stopped[CMQCFC.MQCACF_AUX_ERROR_DATA_STR_1]
    assert await trio.to_thread.run_sync(_depth_of, qm1.port, "QM1", "QM2") == 1  # nothing lost
    for served in (qm1, qm2):
        assert served.stop() == 0, served.stderr_tail()


async def test_a_batch_cut_off_mid_segment_is_backed_out_and_sent_again_after_resync(tmp_path):
    """The connection drops inside the second segment of a message spanning four (100,000 bytes over 32 KiB
    segments), that segment cut short: the receiver backs the batch out, the sender retries,
    resynchronises and sends it again."""
    bodies = [(b"small", True), (b"L" * 100_000, True), (b"last", True)]
    qm2 = await _serve(tmp_path, "QM2", RECEIVING)
    async with trio.open_nursery() as nursery:
        proxy = Proxy(qm2.port, (True, fap.MESSAGE_DATA, 3), lambda: None, cut=True)  # the long one's 2nd
        await proxy.start(nursery)
        qm1 = await _serve_qm1(tmp_path, _sending_mqsc(proxy.port, "SHORTRTY(10) SHORTTMR(1)"))
        await trio.to_thread.run_sync(_put, qm1.port, bodies)
        await trio.to_thread.run_sync(_start, qm1.port)
        got = await trio.to_thread.run_sync(_get, qm2.port, len(bodies))
        assert got == [(body, CMQC.MQPER_PERSISTENT) for body, _ in bodies]  # once each, in order
        assert len(proxy.captures) == 2  # cut, then the retry's connection
        nursery.cancel_scope.cancel()
    for served in (qm1, qm2):
        assert served.stop() == 0, served.stderr_tail()
    again = wire.dissect(proxy.captures[1], ["mq.msh.seqnum"])  # numbered again from the last committed
    assert again.values("mq.msh.seqnum") == ["1", "2", "3"] and again.malformed == [] and again.expert == []


# ---- request/reply across queue managers -----------------------------------------------------------
def _request_reply_mqsc(port: int, here: str, there: str) -> str:
    """One side of the pair: a transmission queue named for the other queue manager (IBM's default route
    for a reply naming it), its sender channel, the receiver of the other's and the CHLAUTH records that
    admit it."""
    return f"""
        DEFINE QLOCAL({there}) USAGE(XMITQ)
        DEFINE CHANNEL({here}.TO.{there}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ({there}) DISCINT(0)
        DEFINE CHANNEL({there}.TO.{here}) CHLTYPE(RCVR)
        """ + admitting(f"{there}.TO.{here}", there)


def _requester(port: int) -> tuple[bytes, ibmmq.MD, bytes]:
    """The app on QM1: a request to SERVICE (on QM2) naming REPLY on QM1, then the reply, waited for."""
    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        # ReplyToQMgr left blank: QM1 puts its own name there, as IBM's queue manager does
        request = ibmmq.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY", Persistence=CMQC.MQPER_PERSISTENT)
        ibmmq.Queue(qm, "SERVICE").put(b"what time is it?", request)
        reply = ibmmq.MD(CorrelId=request.MsgId)
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000,
                        MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        return request.MsgId, reply, ibmmq.Queue(qm, "REPLY", CMQC.MQOO_INPUT_SHARED).get(None, reply, gmo)
    finally:
        qm.disconnect()


def _responder(port: int) -> ibmmq.MD:
    """The app on QM2: the request, waited for; the reply put to its ReplyToQ on its ReplyToQMgr."""
    qm = ibmmq.connect("QM2", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        md = ibmmq.MD()
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
        assert ibmmq.Queue(qm, "SERVICE", CMQC.MQOO_INPUT_SHARED).get(None, md, gmo) == b"what time is it?"
        od = ibmmq.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
        reply = ibmmq.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId, Persistence=CMQC.MQPER_PERSISTENT)
        ibmmq.Queue(qm, od, CMQC.MQOO_OUTPUT).put(b"teatime", reply)
        return md
    finally:
        qm.disconnect()


async def test_a_request_on_qm1_is_answered_by_an_app_on_qm2_through_the_reply_channel(tmp_path):
    async with running(_cfg(tmp_path, "QM1", qmgrs=("QM2",)), synchronous="NORMAL") as qm1:
        qm2 = qm1.servers["QM2"]
        _mqsc(qm2.qm, "DEFINE QLOCAL(SERVICE)\n" + _request_reply_mqsc(qm1.port, "QM2", "QM1"))
        _mqsc(qm1.qm, "DEFINE QLOCAL(REPLY)\nDEFINE QREMOTE(SERVICE) RNAME(SERVICE) RQMNAME(QM2) XMITQ(QM2)\n"
              + _request_reply_mqsc(qm1.port, "QM1", "QM2"))
        # START CHANNEL through each queue manager's command server (a hosted one's tasks start at its
        # first connection: docs/multiqm.md)
        for here, there in (("QM1", "QM2"), ("QM2", "QM1")):
            await trio.to_thread.run_sync(_command, qm1.port, here, "MQCMD_START_CHANNEL",
                                          {CMQCFC.MQCACH_CHANNEL_NAME: f"{here}.TO.{there}"})
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, _responder, qm1.port)
            msg_id, reply, body = await trio.to_thread.run_sync(_requester, qm1.port)
        assert body == b"teatime"
        assert qm2.qm.registry.running.message_channels["QM1.TO.QM2"].msgs == 1  # the request, received
        assert qm1.qm.registry.running.message_channels["QM2.TO.QM1"].msgs == 1  # the reply
        assert reply.MsgType == CMQC.MQMT_REPLY and reply.CorrelId == msg_id
        for qm, channel in ((qm1.qm, "QM1.TO.QM2"), (qm2.qm, "QM2.TO.QM1")):
            _mqsc(qm, f"STOP CHANNEL({channel})")
