"""The protocol objects with the roles swapped (server/mca/flows.py ``start`` from either end): a
requester (ReceiverProtocol) opens the ID exchange with CapFlags1 REQUEST_INITIATION and a server
(SenderProtocol) answers it, then sends; and the sender's batch heartbeat request (BATCHHB) answered
by the receiver mid-batch.  Bytes only, no sockets (test_protocols.py's pump)."""

from __future__ import annotations

from qmlite.pcf import fap
from qmlite.pcf import msgchannel as MCF
from qmlite.pcf.framer import Framer
from qmlite.server.mca.flows import BatchEnded, Confirmed, MessageReceived, ResyncRequested, Started
from qmlite.server.mca.receiver import ReceiverProtocol
from qmlite.server.mca.sender import SenderProtocol
from tests.server.mca.test_protocols import Clock, pump, xmit

CHANNEL = "QM2.FROM.QM1"


def _segments(data: bytes):
    return Framer().feed(data)


def _requested(requester_batch: int = 50, server_batch: int = 50):
    clock = Clock()
    requester = ReceiverProtocol(MCF.Offer(CHANNEL, "QM2", batch_size=requester_batch, requester=True), clock)
    server = SenderProtocol(MCF.Offer(CHANNEL, "QM1", batch_size=server_batch), clock)
    requester.start()
    first = requester.data_to_send()
    (segment,) = _segments(first)
    ident = fap.InitialData.unpack(segment.body, 0, segment.order)[0]
    server.receive_data(first)
    return requester, server, ident


def test_a_requester_starts_the_exchange_and_the_server_it_reaches_sends():
    requester, server, ident = _requested()
    assert ident.CapFlags1 & MCF.CF1_REQUEST_INITIATION and MCF.is_requester_id(ident)
    assert ident.ChannelName.rstrip() == CHANNEL and ident.QMgrName.rstrip() == "QM2"
    seen_s, seen_r = pump(server, requester)
    (s_started,) = seen_s
    (r_started,) = seen_r
    assert isinstance(s_started, Started) and s_started.agreed.partner_qmgr.rstrip() == "QM2"
    assert isinstance(r_started, Started) and r_started.agreed.partner_qmgr.rstrip() == "QM1"
    # The server, which answered, is the sending end: resync, one message, the batch's end, confirmed.
    luw = b"L" * 8
    server.resync(0, bytes(8))
    _, seen_r = pump(server, requester)
    assert seen_r == [ResyncRequested(0, bytes(8))]
    requester.confirm(0, bytes(8))
    seen_s, _ = pump(server, requester)
    assert seen_s == [Confirmed(0, bytes(8))]
    server.send_message(1, xmit(b"one"), luw, confirm=True)
    _, seen_r = pump(server, requester)
    assert seen_r == [MessageReceived(1, xmit(b"one"), luw), BatchEnded(luw)]
    requester.confirm(1, luw)
    seen_s, _ = pump(server, requester)
    assert seen_s == [Confirmed(1, luw)]


def test_a_requester_takes_the_servers_lower_batch_size_in_a_second_round():
    requester, server, _ = _requested(requester_batch=50, server_batch=2)
    seen_s, seen_r = pump(server, requester)
    assert [type(e) for e in seen_s] == [Started] and [type(e) for e in seen_r] == [Started]
    assert seen_r[0].agreed.batch_size == seen_s[0].agreed.batch_size == 2


def test_the_answer_to_a_requester_does_not_carry_request_initiation():
    requester, server, _ = _requested()
    (answer,) = _segments(server.data_to_send())
    reply = fap.InitialData.unpack(answer.body, 0, answer.order)[0]
    assert not reply.CapFlags1 & MCF.CF1_REQUEST_INITIATION and not MCF.is_requester_id(reply)


def test_a_batch_heartbeat_mid_batch_is_answered_by_the_receiver():
    clock = Clock()
    sender = SenderProtocol(MCF.Offer("QM1.TO.QM2", "QM1"), clock)
    receiver = ReceiverProtocol(MCF.Offer("QM1.TO.QM2", "QM2"), clock)
    sender.start()
    pump(sender, receiver)
    luw = b"B" * 8
    sender.send_message(1, xmit(b"one"), luw)
    pump(sender, receiver)
    clock.now += 5
    sender.heartbeat_request()
    assert sender.awaiting_heartbeat
    seen_s, seen_r = pump(sender, receiver)
    assert not sender.awaiting_heartbeat and sender.last_received == clock.now
    assert seen_s == [] and seen_r == []  # a heartbeat is no event: the batch is still open
    sender.end_batch(luw)
    _, seen_r = pump(sender, receiver)
    assert seen_r == [BatchEnded(luw)]
