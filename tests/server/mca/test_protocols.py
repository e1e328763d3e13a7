"""server/mca/sender.py and receiver.py: the two protocol objects talk to each other through nothing but
bytes (no sockets): the ID exchange and its renegotiation, batches and their confirmation, resync,
reset, ping, heartbeats on an injected clock, and every refusal with the STATUS code IBM's agents send."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from qmlite.pcf import fap
from qmlite.pcf import msgchannel as MCF
from qmlite.pcf import mqi as S
from qmlite.server.mca.flows import (BatchEnded, Closed, Confirmed, MessageReceived, ResetRequested,
                                     ResyncRequested, Started)
from qmlite.server.mca.receiver import ReceiverProtocol
from qmlite.server.mca.sender import SenderProtocol

CHANNEL = "QM1.TO.QM2"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def events(proto) -> list:
    out = []
    while (e := proto.next_event()) is not None:
        out.append(e)
    return out


def pump(sender, receiver) -> tuple[list, list]:
    """Move bytes both ways until neither has any; the events each saw."""
    seen_s, seen_r = [], []
    while True:
        a, b = sender.data_to_send(), receiver.data_to_send()
        if not a and not b:
            return seen_s + events(sender), seen_r + events(receiver)
        if a:
            receiver.receive_data(a)
        if b:
            sender.receive_data(b)
        seen_s += events(sender)
        seen_r += events(receiver)


def xmit(body: bytes) -> bytes:
    return S.MQXQH(RemoteQName="TARGET", RemoteQMgrName="QM2", MsgDesc=S.MQMD()).pack("<") + body


@pytest.fixture
def clock():
    return Clock()


def started(clock, *, sender_batch=50, receiver_batch=50, **receiver):
    sender = SenderProtocol(MCF.Offer(CHANNEL, "QM1", batch_size=sender_batch, heartbeat_interval=60), clock)
    rcv = ReceiverProtocol(MCF.Offer(CHANNEL, "QM2", batch_size=receiver_batch, **receiver), clock)
    sender.start()
    return sender, rcv, pump(sender, rcv)


def test_the_id_exchange_agrees_in_a_second_round_on_the_lower_batch_and_higher_heartbeat(clock):
    sender, receiver, (es, er) = started(clock, sender_batch=100, receiver_batch=20)
    assert [type(e) for e in es] == [Started] and [type(e) for e in er] == [Started]
    assert es[0].agreed.batch_size == er[0].agreed.batch_size == 20
    assert es[0].agreed.heartbeat_interval == er[0].agreed.heartbeat_interval == 300
    assert es[0].agreed.partner_qmgr == "QM2" and er[0].agreed.partner_qmgr == "QM1"


def test_a_batch_travels_and_is_confirmed(clock):
    sender, receiver, _ = started(clock)
    luw = bytes(range(8))
    sender.send_message(1, xmit(b"a"), luw)
    sender.send_message(2, xmit(b"b" * 40000), luw, confirm=True)  # longer than MaxTransmissionSize
    _, er = pump(sender, receiver)
    assert er == [MessageReceived(1, xmit(b"a"), luw), MessageReceived(2, xmit(b"b" * 40000), luw),
                  BatchEnded(luw)]
    assert sender.awaiting_confirm
    receiver.confirm(2, luw)
    es, _ = pump(sender, receiver)
    assert es == [Confirmed(2, luw)] and not sender.awaiting_confirm


def test_a_batch_end_after_its_last_message_and_resync_and_reset(clock):
    sender, receiver, _ = started(clock)
    luw = b"L" * 8
    sender.send_message(7, xmit(b"x"), luw)
    sender.end_batch(luw)
    sender.resync(7, luw)
    sender.reset(1)
    _, er = pump(sender, receiver)
    assert er == [MessageReceived(7, xmit(b"x"), luw), BatchEnded(luw), ResyncRequested(7, luw), ResetRequested(1)]


def test_ping_is_echoed_and_heartbeats_flow_on_the_injected_clock(clock):
    sender, receiver, _ = started(clock)
    sender.ping(b"0123456789abcdef")
    pump(sender, receiver)
    assert sender.pings == [b"0123456789abcdef"]
    assert sender.on_timer(clock.now) == sender.last_sent + 300
    assert sender.data_to_send() == b""
    clock.now += 300
    sender.on_timer(clock.now)
    assert sender.awaiting_heartbeat
    pump(sender, receiver)
    assert not sender.awaiting_heartbeat  # the receiver answered


def test_a_heartbeat_answered_is_timed_from_its_request_for_nettime(clock):
    sender, receiver, _ = started(clock)
    sender.heartbeat_request()
    clock.now += 0.125
    receiver.receive_data(sender.data_to_send())  # answered at once; the answer takes 0.125 s more to arrive
    clock.now += 0.125
    sender.receive_data(receiver.data_to_send())
    assert sender.take_heartbeat_times() == [0.25] and sender.take_heartbeat_times() == []
    receiver.receive_data(fap.heartbeat(struct_id=fap.TSH, fap_level=sender.agreed.fap_level))  # not asked for
    sender.receive_data(receiver.data_to_send())
    assert sender.take_heartbeat_times() == []  # only an answer to this end's own request is a sample


def test_a_different_seqwrap_ends_the_channel_with_wrap_value_error(clock):
    sender, receiver, (es, er) = started(clock, seq_wrap=1000)
    assert es == [Closed(fap.WRAP_VALUE_ERROR, by_peer=False)]
    assert er == [Closed(fap.WRAP_VALUE_ERROR, by_peer=True)]


def test_a_sequence_error_reaches_the_sender_with_the_number_expected(clock):
    sender, receiver, _ = started(clock)
    sender.send_message(5, xmit(b"x"), bytes(8), confirm=True)
    pump(sender, receiver)
    receiver.refuse_sequence(2)
    es, er = pump(sender, receiver)
    assert es == [Closed(fap.MSG_SEQUENCE_ERROR, by_peer=True, cut=True, value=2)]
    assert er == [Closed(fap.MSG_SEQUENCE_ERROR, by_peer=False, value=2)]


def test_a_batch_cut_off_mid_segment_is_a_cut_close_with_nothing_confirmed(clock):
    sender, receiver, _ = started(clock)
    sender.send_message(1, xmit(b"a" * 100), bytes(8), confirm=True)
    data = sender.data_to_send()
    receiver.receive_data(data[:len(data) // 2])
    receiver.receive_data(b"")  # the connection ends
    assert events(receiver) == [Closed(fap.PROTOCOL_GENERAL, by_peer=True, cut=True, eof=True)]
    assert receiver.data_to_send() == b""


def test_a_client_id_at_a_receiver_is_channel_wrong_type(clock):
    receiver = ReceiverProtocol(MCF.Offer(CHANNEL, "QM2"), clock)
    client = fap.InitialData(FapLevel=13, CapFlags1=0x26, MaxTransmissionSize=32748, ChannelName=CHANNEL)
    receiver.receive_data(fap.encode_segment(fap.INITIAL_DATA, client.pack("<"), struct_id=fap.TSH))
    assert events(receiver) == [Closed(fap.CHANNEL_WRONG_TYPE, by_peer=False)]
    reply = fap.decode_segment(receiver.data_to_send())
    assert reply.segment_type == fap.STATUS_DATA
    assert fap.StatusData.unpack(reply.body, 0, reply.order)[0].ReturnCode == fap.CHANNEL_WRONG_TYPE


@pytest.mark.parametrize("segment, code", [
    (fap.encode_segment(fap.MESSAGE_DATA, b"", struct_id=fap.TSH), fap.PROTOCOL_SEGMENT_TYPE),  # before the ID
    (b"GET / HTTP/1.1\r\n\r\n", fap.PROTOCOL_SEGMENT_ERROR),
    (fap.encode_segment(fap.INITIAL_DATA, b"ID  " + bytes(4), struct_id=fap.TSH), fap.PROTOCOL_ID_ERROR),
    (fap.encode_segment(fap.INITIAL_DATA, b"", struct_id=fap.TSHM), fap.PROTOCOL_SEGMENT_ERROR),
])
def test_bad_bytes_before_the_id_get_their_status_code(clock, segment, code):
    receiver = ReceiverProtocol(MCF.Offer(CHANNEL, "QM2"), clock)
    receiver.receive_data(segment)
    (closed,) = events(receiver)
    assert closed.code == code and not closed.by_peer


@pytest.mark.parametrize("make, code", [
    (lambda: MCF.message_segments(1, b"x" * 600, luw=bytes(8), max_transmission_size=MCF.MIN_TRANSMISSION_SIZE)[1],
     fap.PROTOCOL_SEGMENT_ERROR),  # a continuation with no FIRST
    (lambda: fap.encode_segment(fap.MQPUT, bytes(16), struct_id=fap.TSH), fap.PROTOCOL_SEGMENT_TYPE),
    (lambda: MCF.id_segment(MCF.message_channel_id(MCF.Offer(CHANNEL, "QM1"))), fap.PROTOCOL_ID_ERROR),
])
def test_bad_segments_on_a_running_channel_get_their_status_code(clock, make, code):
    sender, receiver, _ = started(clock)
    receiver.receive_data(make())
    (closed,) = events(receiver)
    assert closed.code == code
    es, _ = pump(sender, receiver)
    assert es == [Closed(code, by_peer=True)]


@given(cuts=st.lists(st.integers(1, 5000), min_size=1, max_size=40), sizes=st.lists(st.integers(0, 70000),
       min_size=1, max_size=4))
@settings(max_examples=30, deadline=None)
def test_any_chunking_of_the_stream_gives_the_same_events(cuts, sizes):
    clock = Clock()
    sender, receiver, _ = started(clock)
    luw = b"C" * 8
    for seq, size in enumerate(sizes, 1):
        sender.send_message(seq, xmit(b"z" * size), luw, confirm=seq == len(sizes))
    data = sender.data_to_send()
    pos, i = 0, 0
    while pos < len(data):
        step = cuts[i % len(cuts)]
        receiver.receive_data(data[pos:pos + step])
        pos, i = pos + step, i + 1
    expected = [MessageReceived(seq, xmit(b"z" * size), luw) for seq, size in enumerate(sizes, 1)]
    assert events(receiver) == [*expected, BatchEnded(luw)]
