"""Every cell of the server channel's (state, segment) table (server/channel.py ``TABLE``), played at both
ends: against the sans-IO ``ServerChannel`` alone, and against a running server through a raw socket,
where a segment in a state that does not allow it gets its STATUS and the socket closes.  The client's
side of each refusal is the MQRC our client channel reports for that STATUS."""

from __future__ import annotations

import pytest

from qmlite.client import protocol as proto
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf import msgchannel as MCF
from qmlite.pcf.framer import Framer
from qmlite.server import negotiation
from qmlite.server.channel import (NEED_DATA, TABLE, TSH_WHEN_MULTIPLEXED, Call, ConversationStarted, IdOffered,
                                   Kind, MessageChannelOffered, PeerClosed, ProtocolError, Refuse, RequestMsgs,
                                   ServerChannel, State)
from qmlite.server.config import ChannelConfig

from tests.support.rawfap import RawPeer, client_id, connect_mq, handshake, running_server

ME = negotiation.ServerIdentity("QM1", "QM1_2026-11-29_08.00.00")
CHANNEL = ChannelConfig("DEV.ADMIN.SVRCONN")
OTHER_TYPE = 0x03  # a segment type no flow of a client channel uses

# What each flow's cell gives: the event's type (None: nothing, the channel answers or records it itself).
FLOW_EVENT = {"_initial_data": IdOffered, "_userid": None, "_conauth": None, "_heartbeat": None,
              "_socket_action": ConversationStarted, "_request_msgs": RequestMsgs, "_call": Call,
              "_peer_closed": PeerClosed}


def segment(kind: str, *, struct_id: str = fap.TSHM, conv: int = 1) -> bytes:
    """One segment of ``kind`` as a client sends it."""
    conv = conv if struct_id == fap.TSHM else 0
    if kind == Kind.INITIAL_DATA:
        body = client_id("DEV.ADMIN.SVRCONN", max_msg=4194304, cap3=0).pack(fap.BIG)  # values the server takes
        flags = fap.CF1_CONFIRM_REQUEST | fap.CF1_FIRST | fap.CF1_LAST
        return fap.encode_segment(fap.INITIAL_DATA, body, struct_id=struct_id, conversation_id=conv, byte_order=1,
                                  control_flags1=flags)
    if kind == Kind.HEARTBEAT:
        return fap.encode_segment(fap.HEARTBEAT, b"", struct_id=struct_id, conversation_id=conv,
                                  control_flags1=fap.heartbeat_request_flags(13))
    bodies = {
        Kind.USERID: (fap.USERID_DATA, fap.UserIdData(UserIdentifier="admin").pack(fap.LITTLE)),
        Kind.CONAUTH: (fap.CONAUTH_INFO, fap.ConAuthInfo(UserIdMaxLength=1024, PasswordMaxLength=1024, UserId="admin",
                                                         Password=b"passw0rd").pack(fap.LITTLE)),
        Kind.SOCKET_ACTION: (fap.SOCKET_ACTION, fap.SocketAction(ConversationId=3, RequestId=0, Type=fap.SA_START_CONV,
                                                                 Parm1=0, Parm2=0).pack(fap.LITTLE)),
        Kind.REQUEST_MSGS: (fap.REQUEST_MSGS, bytes(64)),
        Kind.MQI: (fap.MQINQ, fap.ApiHeader(CallLength=(36 if struct_id == fap.TSHM else 28) + 16).pack(fap.LITTLE)),
        Kind.STATUS: (fap.STATUS_DATA, None),
        Kind.OTHER: (OTHER_TYPE, b""),
    }
    segment_type, body = bodies[kind]
    if kind == Kind.STATUS:
        return fap.status_segment(fap.USER_CLOSED, struct_id=struct_id, conversation_id=conv)
    return fap.encode_segment(segment_type, body, struct_id=struct_id, conversation_id=conv)


def channel_in(state: str) -> ServerChannel:
    """A server channel brought to ``state`` by the flows that lead there (a shared, FAP 13 agreement)."""
    ch = ServerChannel()
    if state == State.AWAITING_ID:
        return ch
    ch.receive_data(segment(Kind.INITIAL_DATA, struct_id=fap.TSH))
    offer = ch.next_event()
    assert isinstance(offer, IdOffered)
    reply, agreement = negotiation.answer(offer.client, CHANNEL, ME)
    assert agreement.accepted and agreement.multiplexed
    ch.agree(offer, reply, agreement)
    assert ch.state == State.AGREED and ch.data_to_send()[:4] == b"TSH "
    if state == State.RUNNING:
        ch.opened()
    assert ch.state == state
    return ch


CELLS = [(state, kind) for state, row in TABLE.items() for kind in row]


def test_the_table_has_a_cell_for_every_state_and_kind():
    kinds = {v for k, v in vars(Kind).items() if not k.startswith("_")}
    assert set(TABLE) == {State.AWAITING_ID, State.AGREED, State.RUNNING}
    assert all(set(row) == kinds for row in TABLE.values())
    # Every flow a cell names is a method of the channel and its event is known here.
    assert {cell for row in TABLE.values() for cell in row.values() if not isinstance(cell, Refuse)} == set(FLOW_EVENT)


@pytest.mark.parametrize("state, kind", CELLS)
def test_cell_sans_io(state, kind):
    cell = TABLE[state][kind]
    ch = channel_in(state)
    ch.receive_data(segment(kind, struct_id=fap.TSH if state == State.AWAITING_ID else fap.TSHM))
    event = ch.next_event()
    if isinstance(cell, Refuse):
        assert isinstance(event, ProtocolError) and event.code == cell.code, event
        status = Framer().feed(ch.data_to_send())
        assert [s.header.SegmentType for s in status] == [fap.STATUS_DATA]
        assert fap.decode_body(status[0]).ReturnCode == cell.code
        assert ch.state == State.CLOSED
        return
    expected = FLOW_EVENT[cell]
    if expected is None:
        assert event is NEED_DATA
    else:
        assert isinstance(event, expected), event
    answers = [s.header.SegmentType for s in Framer(max_segment_length=1 << 20).feed(ch.data_to_send())]
    assert answers == {"_conauth": [fap.STATUS_DATA], "_heartbeat": [fap.HEARTBEAT],
                       "_socket_action": [fap.SOCKET_ACTION]}.get(cell, [])
    assert ch.state == (State.CLOSED if cell == "_peer_closed" else state)


@pytest.mark.parametrize("state", [State.AGREED, State.RUNNING])
@pytest.mark.parametrize("kind", [k for k in TABLE[State.AGREED] if k != Kind.INITIAL_DATA])
def test_tsh_on_a_multiplexed_channel_is_refused_before_the_table(state, kind):
    ch = channel_in(state)
    ch.receive_data(segment(kind, struct_id=fap.TSH))
    event = ch.next_event()
    assert isinstance(event, ProtocolError) and event.code == TSH_WHEN_MULTIPLEXED.code


def test_a_framing_error_is_the_codecs_status_after_what_came_before():
    ch = channel_in(State.RUNNING)
    ch.receive_data(segment(Kind.HEARTBEAT))
    assert ch.next_event() is NEED_DATA
    assert [s.header.SegmentType for s in Framer().feed(ch.data_to_send())] == [fap.HEARTBEAT]
    ch.receive_data(b"GET / HTTP/1.1\r\n\r\n")
    event = ch.next_event()
    assert isinstance(event, ProtocolError) and event.code == fap.PROTOCOL_SEGMENT_ERROR
    assert ch.state == State.CLOSED and ch.next_event() is NEED_DATA


def test_id_rounds_are_bounded():
    ch = ServerChannel()
    for _ in range(3):
        ch.receive_data(segment(Kind.INITIAL_DATA, struct_id=fap.TSH))
        offer = ch.next_event()
        reply, agreement = negotiation.answer(offer.client, CHANNEL, ME, max_fap=12)  # the client asked for 13
        assert not agreement.accepted
        ch.agree(offer, reply, agreement)
        assert ch.state == State.AWAITING_ID
    ch.receive_data(segment(Kind.INITIAL_DATA, struct_id=fap.TSH))
    event = ch.next_event()
    assert isinstance(event, ProtocolError) and event.code == fap.NEGOTIATION_FAILED


def test_a_message_channels_first_id_hands_over_every_byte_the_socket_brought():
    # No MQREQUEST in CapFlags1: a queue manager's channel agent, not a client (decision MCA3).
    ident = MCF.id_segment(MCF.message_channel_id(MCF.Offer("QM1.TO.QM2", "QM1")))
    after = b"TSH \x00\x00"  # whatever followed it in the same read: the agent's to read, not lost
    ch = ServerChannel()
    ch.receive_data(ident[:10])
    assert ch.next_event() is NEED_DATA
    ch.receive_data(ident[10:] + after)
    event = ch.next_event()
    assert isinstance(event, MessageChannelOffered) and event.data == ident + after
    assert event.client.ChannelName.rstrip() == "QM1.TO.QM2" and event.client.QMgrName.rstrip() == "QM1"
    assert ch.state == State.CLOSED and ch.data_to_send() == b"" and ch.next_event() is NEED_DATA


def test_a_clients_id_is_offered_as_a_clients_and_a_message_channels_after_it_is_an_id_error():
    ch = ServerChannel()
    ch.receive_data(segment(Kind.INITIAL_DATA, struct_id=fap.TSH))
    assert isinstance(ch.next_event(), IdOffered)  # MQREQUEST set: a client's
    ch.receive_data(MCF.id_segment(MCF.message_channel_id(MCF.Offer("QM1.TO.QM2", "QM1"))))
    event = ch.next_event()
    assert isinstance(event, ProtocolError) and event.code == fap.PROTOCOL_ID_ERROR


# ---- the other end: a running server, through a socket ------------------------------------------------
REFUSALS = [(state, kind) for state, kind in CELLS if isinstance(TABLE[state][kind], Refuse)]


@pytest.mark.parametrize("state, kind", REFUSALS)
async def test_refused_cell_through_the_server(tmp_path, state, kind):
    code = TABLE[state][kind].code
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        if state != State.AWAITING_ID:
            await handshake(peer)
        if state == State.RUNNING:
            assert (await connect_mq(peer)).CompCode == C.MQCC_OK
        await peer.send(segment(kind, struct_id=fap.TSH if state == State.AWAITING_ID else fap.TSHM))
        seg = await peer.receive()
        assert seg is not None and seg.header.SegmentType == fap.STATUS_DATA
        assert fap.decode_body(seg).ReturnCode == code
        assert await peer.closed()
    # ... and our client, reading that STATUS, reports what IBM's clients report for a protocol error
    # (STATUS codes 10-18, AMQ9504E at the queue manager): MQRC_CHANNEL_CONFIG_ERROR, connected or not.
    assert proto.status_reason(code, state == State.RUNNING) == C.MQRC_CHANNEL_CONFIG_ERROR


@pytest.mark.parametrize("state", [State.AGREED, State.RUNNING])
async def test_tsh_on_a_multiplexed_channel_through_the_server(tmp_path, state):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        if state == State.RUNNING:
            await connect_mq(peer)
        await peer.send(segment(Kind.HEARTBEAT, struct_id=fap.TSH))
        seg = await peer.receive()
        assert fap.decode_body(seg).ReturnCode == fap.PROTOCOL_SEGMENT_ERROR
        assert await peer.closed()
