"""qmlite.client.channel.ClientChannel on its own: bytes in, events out, no I/O, an injected clock.

The drivers (trio in tests/client/test_client_unit.py, blocking sockets in the ibmmq tests) are
tested elsewhere; here the state machine is driven byte by byte."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmlite.client import protocol as proto
from qmlite.client.channel import (NEED_DATA, ClientChannel, Connected, HeartbeatAck, HeartbeatAnswered, Reply,
                                   State)
from qmlite.client.errors import ConnectionBroken, MQIError
from qmlite.pcf import calls
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.encoding import LITTLE
from qmlite.pcf.framer import Framer
from tests.client.test_client_unit import ID_ACCEPTED_TSHM, ID_ERROR_TSH, id_reply, mqconn_reply, server_id


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def segments(data: bytes) -> list[fap.Segment]:
    return Framer(1 << 20).feed(data)


def new(**kw) -> tuple[ClientChannel, Clock]:
    clock = Clock()
    opts = proto.ConnectOptions(channel="DEV.APP.SVRCONN", qmgr="QM1", **kw)
    return ClientChannel(opts, clock=clock, reply_timeout=10), clock


def connect(ch: ClientChannel, *, heartbeat: int = 300, sharecnv: int = 10) -> None:
    first = segments(ch.initiate())
    assert [s.header.SegmentType for s in first] == [fap.INITIAL_DATA]
    ch.receive_data(id_reply(server_id(HeartbeatInterval=heartbeat, SharingConversations=sharecnv)))
    assert ch.next_event() is NEED_DATA
    sent = segments(ch.data_to_send())
    assert [s.header.SegmentType for s in sent] == [fap.USERID_DATA, fap.MQCONN]
    ch.receive_data(mqconn_reply(sent[1]))
    event = ch.next_event()
    assert isinstance(event, Connected) and ch.state == State.CONNECTED


def test_real_912_error_then_accept_switches_to_tshm_and_connects():
    ch, _ = new()
    ch.initiate()
    ch.receive_data(ID_ERROR_TSH.read_bytes())
    assert ch.next_event() is NEED_DATA
    repeat = segments(ch.data_to_send())
    assert repeat[0].header.StructId == fap.TSHM and repeat[0].header.SegmentType == fap.INITIAL_DATA
    ch.receive_data(ID_ACCEPTED_TSHM.read_bytes())
    assert ch.next_event() is NEED_DATA
    sent = segments(ch.data_to_send())
    assert [s.header.SegmentType for s in sent] == [fap.USERID_DATA, fap.MQCONN]
    assert all(s.header.StructId == fap.TSHM for s in sent) and ch.multiplexed
    ch.receive_data(mqconn_reply(sent[1]))
    assert isinstance(ch.next_event(), Connected)
    assert ch.agreement.id_rounds == 2


def test_credentials_wait_for_the_status_before_mqconn_and_a_refusal_is_2035():
    ch, _ = new(user="app", password="wrong")
    ch.initiate()
    ch.receive_data(id_reply(server_id()))
    ch.next_event()
    sent = segments(ch.data_to_send())
    assert [s.header.SegmentType for s in sent] == [fap.USERID_DATA, fap.CONAUTH_INFO]
    assert ch.state == State.AUTHENTICATING
    ch.receive_data(fap.encode_segment(fap.STATUS_DATA, fap.StatusData(ReturnCode=0).pack(LITTLE), struct_id=fap.TSH))
    assert ch.next_event() is NEED_DATA
    mqconn = segments(ch.data_to_send())
    assert [s.header.SegmentType for s in mqconn] == [fap.MQCONN]
    ch.receive_data(mqconn_reply(mqconn[0], comp=C.MQCC_FAILED, reason=C.MQRC_NOT_AUTHORIZED))
    with pytest.raises(MQIError) as info:
        ch.next_event()
    assert info.value.reason == C.MQRC_NOT_AUTHORIZED and ch.closed
    with pytest.raises(MQIError):  # and again: the error is sticky
        ch.next_event()


def test_heartbeat_request_is_answered_automatically_with_the_flag_flipped():
    ch, _ = new()
    connect(ch)
    request = fap.encode_segment(fap.HEARTBEAT, b"", struct_id=fap.TSHC,
                                 control_flags1=fap.heartbeat_request_flags(13))
    ch.receive_data(request)
    assert isinstance(ch.next_event(), HeartbeatAnswered)
    answer = segments(ch.data_to_send())
    assert answer[0].header.SegmentType == fap.HEARTBEAT
    assert answer[0].header.ControlFlags1 == fap.heartbeat_reply_flags(13)
    assert ch.heartbeats_answered == 1


def test_pipelined_calls_are_paired_with_their_replies_in_order():
    ch, _ = new()
    connect(ch)
    reqs = []
    for _ in range(3):
        reqs.extend(segments(ch.send_call(fap.MQPUT, 5, b"body")))
    assert ch.outstanding == 3
    ch.receive_data(b"".join(fap.api_reply(r.header, b"", comp_code=C.MQCC_FAILED if i == 1 else 0,
                                           reason=C.MQRC_Q_FULL if i == 1 else 0) for i, r in enumerate(reqs)))
    replies = [ch.next_event() for _ in range(3)]
    assert all(isinstance(r, Reply) for r in replies)
    assert [r.api.Reason for r in replies] == [0, C.MQRC_Q_FULL, 0]
    assert ch.outstanding == 0 and ch.next_event() is NEED_DATA


def test_a_reply_of_the_wrong_type_breaks_the_channel():
    ch, _ = new()
    connect(ch)
    req = segments(ch.send_call(fap.MQPUT, 5, b"x"))[0]
    ch.receive_data(fap.api_reply(req.header, b"", segment_type=fap.MQGET_REPLY))
    with pytest.raises(ConnectionBroken) as info:
        ch.next_event()
    assert info.value.reason == C.MQRC_CONNECTION_BROKEN
    with pytest.raises(ConnectionBroken):
        ch.send_call(fap.MQPUT, 5, b"x")


def test_timers_probe_a_quiet_server_then_break_when_the_probe_goes_unanswered():
    ch, clock = new()
    connect(ch, heartbeat=5)
    assert ch.next_deadline() == pytest.approx(clock.now + 5)
    clock.now += 5
    ch.on_timer()
    probe = segments(ch.data_to_send())
    assert probe[0].header.SegmentType == fap.HEARTBEAT and ch.probing
    assert ch.next_deadline() == pytest.approx(clock.now + 5)  # min(60, HeartbeatInterval)
    # an answer clears the probe
    ch.receive_data(fap.encode_segment(fap.HEARTBEAT, b"", struct_id=fap.TSHC,
                                       control_flags1=fap.heartbeat_reply_flags(13)))
    assert isinstance(ch.next_event(), HeartbeatAck) and not ch.probing
    clock.now += 5
    ch.on_timer()
    ch.data_to_send()
    clock.now += 5
    ch.on_timer()  # unanswered
    with pytest.raises(ConnectionBroken) as info:
        ch.next_event()
    assert "heartbeat" in info.value.detail


def test_an_overdue_reply_breaks_the_channel_and_a_waiting_get_extends_the_deadline():
    ch, clock = new()
    connect(ch, heartbeat=0)
    ch.send_call(fap.MQGET, 5, b"", wait_s=30)
    assert ch.next_deadline() == pytest.approx(clock.now + 10 + 30)
    clock.now += 39
    ch.on_timer()
    assert ch.next_event() is NEED_DATA
    clock.now += 2
    ch.on_timer()
    with pytest.raises(ConnectionBroken):
        ch.next_event()


def test_the_server_closing_is_2059_before_mqconn_and_2009_after():
    ch, _ = new()
    ch.initiate()
    ch.receive_data(b"")
    with pytest.raises(ConnectionBroken) as info:
        ch.next_event()
    assert info.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE
    ch, _ = new()
    connect(ch)
    ch.receive_data(b"")
    with pytest.raises(ConnectionBroken) as info:
        ch.next_event()
    assert info.value.reason == C.MQRC_CONNECTION_BROKEN


def test_a_split_reply_is_reassembled_into_one_reply():
    ch, _ = new()
    connect(ch)
    req = segments(ch.send_call(fap.MQGET, 5, b"", extra=100_000))[0]
    data = bytes(range(256)) * 300
    body = calls.MQGetReply(calls.MQMD(), calls.MQGMO(), data).pack(LITTLE)
    whole = fap.api_reply(req.header, body)
    header = fap.decode_header(whole, 0)
    pieces = fap.api_reply_segments(header, body, 32748)
    assert len(pieces) > 2
    for piece in pieces:
        ch.receive_data(piece)
    reply = ch.next_event()
    assert isinstance(reply, Reply)
    got = ch.decode(reply, calls.MQGetReply)
    assert got.Data == data


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_garbage_from_the_server_only_ever_raises_mq_errors(junk):
    ch, _ = new()
    connect(ch)
    ch.send_call(fap.MQINQ, 1, b"")
    ch.receive_data(junk)
    for _ in range(10):
        try:
            if ch.next_event() is NEED_DATA:
                break
        except MQIError:
            assert ch.closed
            break


# ------------------------------------------------------------------------------------------------
# The blocking driver's keepalive thread, against a scripted server on a real socket
# ------------------------------------------------------------------------------------------------

def test_an_idle_blocking_connection_is_heartbeated_by_the_keepalive_thread():
    import socket
    import threading

    from qmlite.client.sync import QueueManager

    listener = socket.create_server(("127.0.0.1", 0))
    heard = threading.Event()
    answered = threading.Event()

    def serve():
        conn, _ = listener.accept()
        framer = Framer(1 << 20)
        pending = []

        def next_segment():
            while not pending:
                try:
                    data = conn.recv(65536)
                except OSError:  # the client aborted
                    return None
                if not data:
                    return None
                pending.extend(framer.feed(data))
            return pending.pop(0)

        next_segment()  # ID
        conn.sendall(id_reply(server_id(HeartbeatInterval=1)))
        next_segment()  # UID
        conn.sendall(mqconn_reply(next_segment()))
        while True:
            seg = next_segment()
            if seg is None:
                break
            if seg.header.SegmentType == fap.HEARTBEAT and fap.is_heartbeat_request(seg.header.ControlFlags1, 13):
                heard.set()
                conn.sendall(fap.encode_segment(fap.HEARTBEAT, b"", struct_id=fap.TSHC,
                                                control_flags1=fap.heartbeat_reply_flags(13)))
                answered.set()
        conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    qm = QueueManager.connect("127.0.0.1", listener.getsockname()[1], "DEV.APP.SVRCONN", "QM1")
    try:
        assert qm.agreement.heartbeat_interval == 1
        # nobody calls: the process's keepalive thread must probe the quiet connection
        assert heard.wait(15) and answered.wait(15)
        assert qm.channel.heartbeats_sent >= 1 and qm.connected
    finally:
        qm.abort()
        listener.close()
        t.join(10)
