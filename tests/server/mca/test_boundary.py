"""A running sender's batch boundary (server/mca/boundary.py): BATCHHB against a partner of the test's
own that answers heartbeats or not, and RESET CHANNEL of a running sender sent as RESET_DATA, through
IBM's ibmmq PCF, between two queue managers hosted in one process (test_run.py's)."""

from __future__ import annotations

import pytest
import trio

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf import msgchannel as MCF
from qmlite.pcf.framer import Framer
from qmlite.registry.mqsc import run_mqsc
from qmlite.server.listener import running
from qmlite.server.mca import agents
from tests.server.mca.test_mqport import _cfg, _mqsc
from tests.server.mca.test_run import CHANNEL, _depth, _get_all, _put, two_queue_managers
from tests.server.mca.test_svr_rqstr import _pcf
from tests.support import wire

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQCFC  # noqa: E402

BODIES = [(b"hb%d" % n, True) for n in range(3)]


class Partner:
    """The receiving end of the test's own: answers the ID (HBINT(1)) and the RESYNC, then no idle
    heartbeat (it stays silent for BATCHHB); with ``answering`` it answers a heartbeat once messages
    came (the batch heartbeat) and confirms each batch, without it it is silent to the end.  ``seen``: the
    segments it got (type, ControlFlags1)."""

    def __init__(self, answering: bool) -> None:
        self.answering = answering
        self.seen: list[tuple[int, int]] = []
        self.heartbeat = trio.Event()  # the first HEARTBEAT request came
        self.confirmed = 0  # messages confirmed
        self.all_confirmed = trio.Event()
        self.port = 0

    async def handle(self, stream) -> None:
        framer, last = Framer(), 0
        async with stream:
            while data := await stream.receive_some(65536):
                for seg in framer.feed(data):
                    flags = seg.header.ControlFlags1
                    self.seen.append((seg.segment_type, flags))
                    out = b""
                    if seg.segment_type == fap.INITIAL_DATA:
                        theirs = fap.InitialData.unpack(seg.body, 0, seg.order)[0]
                        reply, _, _ = MCF.negotiate(theirs, MCF.Offer(CHANNEL, "QM2", heartbeat_interval=1))
                        out = MCF.id_segment(reply, request=False)
                    elif seg.segment_type == fap.RESYNC_DATA:
                        out = MCF.confirm(0, bytes(8))
                    elif seg.segment_type == fap.HEARTBEAT:
                        self.heartbeat.set()
                        if self.answering and last:
                            out = fap.heartbeat(request=False, struct_id=fap.TSH, fap_level=MCF.MESSAGE_CHANNEL_FAP)
                    elif seg.segment_type == fap.MESSAGE_DATA:
                        if flags & fap.CF1_FIRST:
                            last = MCF.MessageHeader.unpack(seg.body, 0, seg.order)[0].SeqNum
                        if flags & fap.CF1_CONFIRM_REQUEST and self.answering:
                            out = MCF.confirm(last, seg.header.LUWIdent)
                            self.confirmed = last
                            if last >= len(BODIES):
                                self.all_confirmed.set()
                    if out:
                        await stream.send_all(out)


def _batch_ends(seen: list[tuple[int, int]]) -> int:
    return sum(1 for kind, flags in seen if kind == fap.MESSAGE_DATA and flags & fap.CF1_CONFIRM_REQUEST)


@pytest.mark.parametrize("answering", [False, True], ids=["silent", "answering"])
async def test_batchhb_checks_a_silent_partner_before_the_batch_ends(tmp_path, answering):
    async with running(_cfg(tmp_path, "QM1"), synchronous="NORMAL") as qm1, trio.open_nursery() as nursery:
        partner = Partner(answering)
        listeners = await nursery.start(trio.serve_tcp, partner.handle, 0)
        port = listeners[0].socket.getsockname()[1]
        ended = trio.Event()
        agents.register(qm1, nursery, on_end=lambda channel: ended.set())
        _mqsc(qm1.qm, f"""
            DEFINE QLOCAL(QM2) USAGE(XMITQ)
            DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
            DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) +
                   HBINT(1) BATCHHB(500) SHORTRTY(0) LONGRTY(0) DISCINT(0)""")
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            # An idle heartbeat goes out after HBINT of the sender's silence: the partner has then been
            # silent for more than BATCHHB too, so the batch put now is preceded by a batch heartbeat.
            await partner.heartbeat.wait()
            await trio.to_thread.run_sync(_put, qm1.port, BODIES)
            if answering:
                await partner.all_confirmed.wait()
                _mqsc(qm1.qm, f"STOP CHANNEL({CHANNEL})")
            await ended.wait()
        status = qm1.qm.registry.running.message_channels[CHANNEL]
        assert status.status == C.MQCHS_STOPPED and not status.in_doubt
        heartbeats_before_end = [kind for kind, _ in partner.seen[:next(
            (i for i, (kind, flags) in enumerate(partner.seen)
             if kind == fap.MESSAGE_DATA and flags & fap.CF1_CONFIRM_REQUEST), len(partner.seen))]]
        assert heartbeats_before_end.count(fap.HEARTBEAT) >= 2  # the idle one and the batch's
        if answering:
            assert qm1.qm.registry.messages.depth("QM2") == 0 and partner.confirmed == len(BODIES)
        else:
            # No answer within HBINT: the batch backed out before its end was asked for, nothing in doubt
            assert qm1.qm.registry.messages.depth("QM2") == len(BODIES)
            assert _batch_ends(partner.seen) == 0
        nursery.cancel_scope.cancel()


async def test_reset_channel_of_a_running_sender_goes_as_reset_data_at_the_batch_boundary(tmp_path):
    async with two_queue_managers(tmp_path, own_hook=False) as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True), (b"two", True)])
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 2)
        await trio.to_thread.run_sync(_get_all, qm2.port)
        reset = await trio.to_thread.run_sync(_pcf, qm1.port, "QM1", "MQCMD_RESET_CHANNEL",
                                              {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL,
                                               CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER: 100})
        assert not isinstance(reset, int)  # accepted while the channel runs
        await trio.to_thread.run_sync(_put, qm1.port, [(b"three", True)])
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 1)
        assert await trio.to_thread.run_sync(_get_all, qm2.port) == [(b"three", 1)]
        (shown,) = run_mqsc(qm2.qm, f"DISPLAY CHSTATUS({CHANNEL}) ALL")
        assert shown.objects[0]["LSTSEQNO"] == "100" and shown.objects[0]["STATUS"] == "RUNNING", shown.text
        (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL}) ALL")
        assert shown.objects[0]["CURSEQNO"] == "100", shown.text
        _mqsc(qm1.qm, f"STOP CHANNEL({CHANNEL})")
    result = wire.dissect(receiving.capture, ["mq.msh.seqnum", "mq.tsh.type"])
    assert result.malformed == [] and result.expert == []
    assert result.values("mq.msh.seqnum") == ["1", "2", "100"]
    assert f"0x{fap.RESET_DATA:02x}" in result.values("mq.tsh.type")
