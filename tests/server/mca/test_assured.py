"""Assured delivery end to end (issue 34 item 2): the sending ``qmlite serve`` SIGKILLed at each point of a
batch, NPMSPEED(FAST) as IBM documents it, one fsync per batch at each end (counted on each committer), a
sequence-number mismatch and a batch cut off between two real processes, request/reply across queue
managers -- all through IBM's ibmmq.  The proxy is test_mqport.py's: it sees every segment and can kill a
process as a chosen one crosses."""

from __future__ import annotations

import pytest
import trio

from qmlite.pcf import fap
from qmlite.registry.mqsc import run_mqsc
from qmlite.server.listener import running
from tests.server.mca.test_mqport import ADMIN, CHANNEL, RECEIVING, Proxy, _cfg, _get, _mqsc, _put, _serve_qm2
from tests.server.mca.test_run import _depth, two_queue_managers
from tests.support import amqerr
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


async def _serve_qm1(tmp_path, mqsc: str = "") -> Served:
    """QM1 in a ``qmlite serve`` of its own (the one the tests kill); ``mqsc``: its start-up MQSC, given on
    the first start only (a restart finds its objects in its data directory)."""
    extra = []
    if mqsc:
        directory = tmp_path / "qm1mqsc"
        directory.mkdir()
        (directory / "sending.mqsc").write_text(mqsc)
        extra = ["--mqsc-dir", str(directory)]
    return await trio.to_thread.run_sync(
        lambda: Served(tmp_path / "qm1" / "data", "--qmgr", "QM1", *extra, qmgr="QM1"))


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
            params, cfh = ibmmq.PCFExecute.unpack(queue.get(None, ibmmq.MD(), gmo))
            if cfh.Reason == CMQC.MQRC_CHANNEL_STOPPED:
                return params
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
        held = await trio.to_thread.run_sync(_take_until, qm2.port, b"after")
        assert held == bodies  # each once: the open batch's message was not sent again
        nursery.cancel_scope.cancel()
    assert qm1.stop() == 0, qm1.stderr_tail()


def _take_until(port: int, last: bytes) -> list[bytes]:
    """The bodies got from QM2's TARGET, each waited for, up to ``last`` (left out); then the queue is empty."""
    qm = ibmmq.connect("QM2", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        queue = ibmmq.Queue(qm, "TARGET")
        out = []
        while True:
            gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
            body = queue.get(None, ibmmq.MD(), gmo)
            if body == last:
                break
            out.append(body)
        with pytest.raises(ibmmq.MQMIError) as empty:
            queue.get(None, ibmmq.MD())
        assert empty.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        return out
    finally:
        qm.disconnect()
