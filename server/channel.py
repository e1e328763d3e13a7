"""The server's side of one client channel, sans-IO (h11's model): bytes in, events out, bytes to send.

:class:`ServerChannel` owns the FAP conversation (docs/reference/fap.md sections 6-12, 21, 22, 28): framing
and reassembly, the ID exchange and its rounds, the agreement, shared conversations (SOCKET_ACTION), the
user id and CONAUTH flows, heartbeat answers, and which segment may arrive in which state.  It performs no
I/O, knows no socket, no trio and no queue manager: the transport (server/connection.py) feeds it what the
socket read, sends what :meth:`data_to_send` holds, and acts on its events; what only the domain can decide
(which queue manager and channel an ID names, what to answer it) comes back through :meth:`agree` and
:meth:`refuse`.  The client's side is client/channel.py; both share ``pcf.agreement.Agreement``.

    ch = ServerChannel()
    ch.receive_data(sock.recv(65536))
    while (event := ch.next_event()) is not NEED_DATA:
        sock.sendall(ch.data_to_send())      # heartbeat answers, CONAUTH's STATUS, SOCKET_ACTION answers
        ... act on event (IdOffered -> ch.agree(...), Call -> the MQI, ProtocolError -> close) ...

What a segment does depends on the channel's state and the segment's kind: :data:`TABLE`, one cell for each
pair, is the whole rule (tests/server/test_channel_table.py plays every cell against both ends).  Two rules
hold in every state after the ID exchange: a TSH (not TSHM) segment on a multiplexed channel is STATUS
PROTOCOL_SEGMENT_ERROR, and a segment that cannot be decoded is STATUS with the codec's reason.

The socket's first ID says whose it is: a client's carries MQREQUEST in CapFlags1, a queue manager's channel
agent's does not (``pcf.msgchannel.is_message_channel_id``, decision MCA3).  A message channel's first ID is
:class:`MessageChannelOffered`, with every byte the socket brought so far, and the channel is over: the
socket's conversation belongs to the message channel agent (server/mca/), which reads the ID again itself.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.agreement import Agreement
from qmlite.pcf.errors import STATUS, CodecError
from qmlite.pcf.framer import Framer, Reassembler
from qmlite.pcf.msgchannel import is_message_channel_id

if TYPE_CHECKING:
    from qmlite.registry.messaging.sessions import Session

__all__ = ["ServerChannel", "State", "Kind", "TABLE", "NEED_DATA", "IdOffered", "MessageChannelOffered", "Call",
           "RequestMsgs", "ConversationStarted", "ConversationRefused", "ConversationEnded", "PeerClosed",
           "ProtocolError", "Ignored", "Conversation", "Counts", "Refuse", "kind_of"]

MAX_ID_ROUNDS = 3  # real clients give up after ten; we always converge in one
REPLY_ENCODING, REPLY_CCSID = C.MQENC_NATIVE, 819  # the real x86 server's own values (docs/reference/fap.md 4)
_MQI_REQUEST_MASK, _MQI_REQUEST = 0x80 | fap.REPLY, 0x80  # MQI requests: 0x80 and up, REPLY bit clear
_WHOLE = fap.CF1_FIRST | fap.CF1_LAST  # a one-segment call
_SHORTEST_CALL = fap.TSHM_LENGTH + fap.API_HEADER_LENGTH


# ---- the conversation and the counts -------------------------------------------------------------------
@dataclasses.dataclass(slots=True)
class Conversation:
    """Per-conversation state: what the client said about itself, and its session once connected."""

    conv_id: int
    user_id: str = ""  # from USERID_DATA
    uid_password: str = ""  # the UID's compatibility-mode password field
    auth_user: str | None = None  # from CONAUTH_INFO
    auth_password: bytes | None = None
    session: Session | None = None  # the queue manager's view of this MQCONN (the MQI sets it)
    wait_scope: object = None  # the transport's cancel scope of a GET waiting in the background

    @property
    def user(self) -> str:
        return self.session.user if self.session is not None else ""


@dataclasses.dataclass(slots=True)
class Counts:
    """What crossed the channel, as channel status counts it (BYTSSENT, BYTSRCVD, BUFSSENT, BUFSRCVD).
    A channel starts with its own; once the socket is a channel instance the transport hands the
    instance in (same four fields), which then takes every later byte and segment."""

    bytes_received: int = 0
    buffers_received: int = 0
    bytes_sent: int = 0
    buffers_sent: int = 0


# ---- events --------------------------------------------------------------------------------------------
class _NeedData:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA = _NeedData()


@dataclasses.dataclass(slots=True)
class IdOffered:
    """The client's ID (INITIAL_DATA): the transport finds its queue manager and channel, then answers
    with :meth:`ServerChannel.agree` or :meth:`ServerChannel.refuse`."""

    client: fap.InitialData
    header: fap.Header
    first: bool  # the socket's first ID (the channel instance does not exist yet)


@dataclasses.dataclass(slots=True)
class MessageChannelOffered:
    """The socket's first ID is a queue manager's channel agent's (no MQREQUEST): the transport hands the
    socket and ``data`` -- every byte it brought, the ID first -- to the message channel agent of the
    receiving channel the ID names.  The channel reads nothing more (state closed)."""

    client: fap.InitialData
    data: bytes


@dataclasses.dataclass(slots=True)
class Call:
    """A whole (reassembled) MQI request on a conversation."""

    conversation: Conversation
    segment: fap.Segment


@dataclasses.dataclass(slots=True)
class RequestMsgs:
    """REQUEST_MSGS: the client asks for messages of its read-ahead or MQCB consumers."""

    segment: fap.Segment


@dataclasses.dataclass(slots=True)
class ConversationStarted:
    conversation: Conversation


@dataclasses.dataclass(slots=True)
class ConversationRefused:
    """SOCKET_ACTION START_CONV refused (the STATUS is queued): an id in use, or SHARECNV reached."""

    conv_id: int
    limit: int


@dataclasses.dataclass(slots=True)
class ConversationEnded:
    """SOCKET_ACTION END_CONV: the transport releases what the conversation holds; ``last``: the client
    closes the socket after it, so the channel is over."""

    conversation: Conversation | None
    last: bool


@dataclasses.dataclass(slots=True)
class PeerClosed:
    """The client sent STATUS_DATA: it is closing."""


@dataclasses.dataclass(slots=True)
class Ignored:
    """A flow the server takes no action on (a SOCKET_ACTION type it does not serve)."""

    what: str
    value: int


@dataclasses.dataclass(slots=True)
class ProtocolError:
    """A fatal protocol error: the STATUS (ERROR|CLOSE_CHANNEL) is queued, and the socket must close."""

    code: int
    conv_id: int = 0
    detail: str = ""


# ---- the state table -----------------------------------------------------------------------------------
class State:
    AWAITING_ID = "awaiting ID"  # before an accepted ID exchange
    AGREED = "agreed"  # the ID agreed, no MQCONN answered yet
    RUNNING = "running"  # an MQCONN was answered on the socket
    CLOSED = "closed"


class Kind:
    """What a segment is, for the table: its type, grouped by what the states do with it."""

    INITIAL_DATA = "INITIAL_DATA"
    USERID = "USERID_DATA"
    CONAUTH = "CONAUTH_INFO"
    HEARTBEAT = "HEARTBEAT"
    SOCKET_ACTION = "SOCKET_ACTION"
    REQUEST_MSGS = "REQUEST_MSGS"
    MQI = "MQI request"
    STATUS = "STATUS_DATA"
    OTHER = "any other type"


_KIND_OF_TYPE = {fap.INITIAL_DATA: Kind.INITIAL_DATA, fap.USERID_DATA: Kind.USERID, fap.CONAUTH_INFO: Kind.CONAUTH,
                 fap.HEARTBEAT: Kind.HEARTBEAT, fap.SOCKET_ACTION: Kind.SOCKET_ACTION,
                 fap.REQUEST_MSGS: Kind.REQUEST_MSGS, fap.STATUS_DATA: Kind.STATUS}


def kind_of(segment_type: int) -> str:
    if segment_type & _MQI_REQUEST_MASK == _MQI_REQUEST:
        return Kind.MQI
    return _KIND_OF_TYPE.get(segment_type, Kind.OTHER)


@dataclasses.dataclass(frozen=True, slots=True)
class Refuse:
    """A cell that ends the channel: STATUS ``code`` (ERROR|CLOSE_CHANNEL) queued, then the socket closes."""

    code: int
    detail: str  # for the log; ``{type}`` is the segment's type


# A cell is what the channel does with a segment of that kind in that state: the name of the ServerChannel
# method of its flow, or a Refuse.  tests/server/test_channel_table.py plays every cell against both ends.
_BEFORE_ID = Refuse(fap.PROTOCOL_SEGMENT_TYPE, "segment before INITIAL_DATA was agreed")
_AFTER_ID = {
    Kind.INITIAL_DATA: Refuse(fap.PROTOCOL_ID_ERROR, "INITIAL_DATA after agreement"),
    Kind.USERID: "_userid", Kind.CONAUTH: "_conauth", Kind.HEARTBEAT: "_heartbeat",
    Kind.SOCKET_ACTION: "_socket_action", Kind.REQUEST_MSGS: "_request_msgs", Kind.MQI: "_call",
    Kind.STATUS: "_peer_closed", Kind.OTHER: Refuse(fap.PROTOCOL_SEGMENT_TYPE, "segment type 0x{type:02x}"),
}
TABLE: dict[str, dict[str, str | Refuse]] = {
    State.AWAITING_ID: {kind: _BEFORE_ID for kind in _AFTER_ID} | {Kind.INITIAL_DATA: "_initial_data"},
    State.AGREED: dict(_AFTER_ID),
    State.RUNNING: dict(_AFTER_ID),
}
# In every state after the ID exchange, before the table: a TSH segment on a multiplexed channel.
TSH_WHEN_MULTIPLEXED = Refuse(fap.PROTOCOL_SEGMENT_ERROR, "TSH on a multiplexed connection")


# ---- the channel ---------------------------------------------------------------------------------------
class ServerChannel:
    """One client channel's FAP conversation, server side.  See the module docstring."""

    def __init__(self) -> None:
        self.state = State.AWAITING_ID
        self.framer = Framer()
        self.reassembler = Reassembler()
        self.agreement: Agreement | None = None
        self.multiplexed = False  # agreed with SHARECNV > 0: every segment after the first ID is TSHM
        self.id_rounds = 0
        self.conversations: dict[int, Conversation] = {}
        self.counts: Counts = Counts()  # the channel instance once the transport hands it in
        self.segments_in = 0  # every segment the socket brought, for the connection's summary
        self._segments: deque[fap.Segment | None] = deque()  # None: where framing failed
        self._framing_error: CodecError | None = None
        # What the channel queued to send (its own answers; STATUS before a close): ``data_to_send`` takes it.
        # A transport may test it for emptiness before asking (a list's truth is cheaper than a call).
        self.outgoing: list[bytes] = []
        # What the socket brought until its first ID is read: a message channel's is handed on whole.
        self._opening: bytearray | None = bytearray()

    # ---- bytes in, bytes out ---------------------------------------------------------------------------
    def receive_data(self, data: bytes) -> None:
        """What the socket read.  A framing error is reported by the next :meth:`next_event`."""
        self.counts.bytes_received += len(data)
        if self._opening is not None:
            self._opening += data
        try:
            self._segments.extend(self.framer.feed(data))
        except CodecError as exc:
            self._framing_error = exc
            self._segments.append(None)  # the error takes its place after the segments framed before it

    def data_to_send(self) -> bytes:
        """The bytes the channel queued (answers it gives itself, and STATUS before a close)."""
        if not self.outgoing:
            return b""
        out = b"".join(self.outgoing)
        self.outgoing.clear()
        return out

    def whole_call(self, data) -> tuple[Conversation, fap.Segment, fap.MqiCall] | None:
        """The usual read of an agreed, shared-conversation channel, in one step (issue 35, decision HP8):
        ``data`` exactly one whole TSHM segment, little-endian, holding a one-segment MQI request (not MQCONN)
        for a conversation that exists, with nothing framed, buffered or queued before it.  Its conversation,
        segment and call (``fap.decode_call`` of the segment), the channel left exactly as ``receive_data(data)``
        and two ``next_event()`` calls (a :class:`Call`, then :data:`NEED_DATA`) leave it.  None for anything
        else, the channel untouched: the transport then hands ``data`` to :meth:`receive_data` as usual, and
        every rule (framing limits, reassembly, the table, the codec's errors) is the general path's."""
        n = len(data)
        # the segment's own bytes first (ByteOrder, ControlFlags1, SegmentType), then the channel's state
        if n < _SHORTEST_CALL or type(data) is not bytes or data[16] != 2 or data[18] & _WHOLE != _WHOLE:
            return None
        t = data[17]
        if t & _MQI_REQUEST_MASK != _MQI_REQUEST or t == fap.MQCONN:
            return None
        # (A framing error needs no test of its own: it leaves its place queued in _segments, and the channel
        # is closed once that is read.)
        framer = self.framer
        state = self.state
        if (self._segments or self.outgoing or framer.buffered or not self.multiplexed or self._opening is not None
                or n > framer.max_segment_length or state == State.AWAITING_ID or state == State.CLOSED):
            return None
        decoded = fap.decode_whole_call(data)  # None: not TSHM, or a SegmentLength that is not the read's
        if decoded is None:
            return None
        header, call = decoded
        conv_id = header.ConversationId
        conv = self.conversations.get(conv_id)
        reassembler = self.reassembler
        if conv is None or reassembler.pending(conv_id) or n - fap.TSHM_LENGTH > reassembler.max_call_length:
            return None
        counts = self.counts
        counts.bytes_received += n
        counts.buffers_received += 1
        self.segments_in += 1
        return conv, fap.Segment(header, data[fap.TSHM_LENGTH:]), call

    def next_event(self):
        """The next event, or :data:`NEED_DATA`.  A non-STATUS codec error (a bug in a structure the channel
        reads) is raised, as the transport treats any bug: the connection ends, logged."""
        segments = self._segments
        while segments:
            if self.state == State.CLOSED:
                segments.clear()
                break
            seg = segments.popleft()
            if seg is None:
                exc = self._framing_error
                return self.refuse(exc.reason, detail=exc.detail)
            self.segments_in += 1
            self.counts.buffers_received += 1  # IBM's BUFSRCVD: one per TSH segment
            h = seg.header
            t = h.SegmentType
            try:
                if t & _MQI_REQUEST_MASK == _MQI_REQUEST and self.state != State.AWAITING_ID \
                        and not (self.multiplexed and h.StructId == fap.TSH):
                    # An MQI request on an agreed channel (nearly every segment): TABLE's "_call" cell, taken
                    # before the table's lookup and written out here, one call the fewer (decision HP3).
                    whole = self.reassembler.add(seg)
                    if whole is None:
                        continue  # more segments of the call to come
                    conv = self.conversations.get(whole.header.ConversationId if self.multiplexed else 0)
                    if conv is not None:
                        return Call(conv, whole)
                    event = self.refuse(fap.CONV_ID_ERROR, conv_id=whole.header.ConversationId,
                                        detail="MQI call on no conversation")
                else:
                    event = self._dispatch(seg, t)
            except CodecError as exc:
                if exc.family != STATUS:
                    raise
                return self.refuse(exc.reason, conv_id=h.ConversationId, detail=exc.detail)
            if event is not None:
                return event
        return NEED_DATA

    def _dispatch(self, seg: fap.Segment, t: int):
        kind = kind_of(t)
        cell = TABLE[self.state][kind]
        if kind != Kind.INITIAL_DATA and self.multiplexed and seg.header.StructId == fap.TSH:
            cell = TSH_WHEN_MULTIPLEXED
        if type(cell) is Refuse:
            return self.refuse(cell.code, detail=cell.detail.format(type=t))
        return getattr(self, cell)(seg)

    # ---- what the transport decides ------------------------------------------------------------------
    def refuse(self, code: int, *, conv_id: int = 0, detail: str = "") -> ProtocolError:
        """End the channel with STATUS ``code`` (ERROR|CLOSE_CHANNEL), queued; the socket must close."""
        self.outgoing.append(self.status(code, conv_id))
        self.close()
        return ProtocolError(code, conv_id, detail)

    def agree(self, offer: IdOffered, reply: fap.InitialData, agreement: Agreement) -> None:
        """Answer the client's ID with ``reply`` (server/negotiation.py's); an accepting answer agrees the
        channel: from here on its limits frame the segments, and its first conversation exists."""
        h = offer.header
        self.agreement = agreement
        self.outgoing.append(fap.encode_segment(
            fap.INITIAL_DATA, reply.pack(fap.LITTLE), struct_id=h.StructId,
            conversation_id=h.ConversationId if h.StructId == fap.TSHM else 0,
            control_flags1=0 if agreement.accepted else fap.CF1_ERROR, encoding=REPLY_ENCODING, ccsid=REPLY_CCSID))
        if not agreement.accepted:
            return  # the client repeats its ID with our values
        self.state = State.AGREED
        self.multiplexed = agreement.multiplexed
        self.framer.max_segment_length = agreement.max_transmission_size
        self.reassembler = Reassembler(max_call_length=agreement.max_message_size + 65536)
        # The first conversation is implicit: the ID exchange and MQCONN run on it (id 1 when shared).
        first = 1 if self.multiplexed else 0
        self.conversations[first] = Conversation(first)

    def opened(self) -> None:
        """An MQCONN was answered on the channel."""
        if self.state == State.AGREED:
            self.state = State.RUNNING

    def close(self) -> None:
        """The transport ended the channel (quiesce, Stop Channel, a broken socket): nothing more is read."""
        self.state = State.CLOSED
        self._segments.clear()
        self._opening = None

    def conversation(self, conv_id: int) -> Conversation | None:
        return self.conversations.get(conv_id if self.multiplexed else 0)

    # ---- segments the server sends of its own ----------------------------------------------------------
    def status(self, code: int, conv_id: int = 0) -> bytes:
        """A STATUS segment with ERROR|CLOSE_CHANNEL, in TSHM on a multiplexed channel."""
        if self.multiplexed:
            return fap.status_segment(code, struct_id=fap.TSHM, conversation_id=conv_id)
        return fap.status_segment(code)

    def heartbeat_request(self) -> bytes:
        """A heartbeat request, its flags at the agreed FAP level (``fap.heartbeat_request_flags``)."""
        flags = fap.heartbeat_request_flags(self.agreement.fap_level)
        return fap.encode_segment(fap.HEARTBEAT, b"", struct_id=fap.TSHC if self.multiplexed else fap.TSH,
                                  control_flags1=flags, encoding=REPLY_ENCODING, ccsid=REPLY_CCSID)

    def reconnect_request(self, qmgr_name: str, qmgr_id: str) -> bytes:
        """SOCKET_ACTION RECONNECT_CLIENTS on each conversation, naming the queue manager to come back to
        (``endmqm -r``; docs/reconnect.md).  A channel in TSH has no SOCKET_ACTION: nothing (the socket just
        closes)."""
        if not self.multiplexed:
            return b""
        out = []
        for conv_id in sorted(self.conversations) or [1]:
            body = fap.SocketAction(conv_id, 0, fap.SA_RECONNECT_CLIENTS, 0, 0, QMgrName=qmgr_name,
                                    QMgrId=qmgr_id).pack(fap.LITTLE)
            out.append(fap.encode_segment(fap.SOCKET_ACTION, body, struct_id=fap.TSHM, conversation_id=conv_id,
                                          control_flags1=0, encoding=REPLY_ENCODING, ccsid=REPLY_CCSID))
        return b"".join(out)

    # ---- the table's flows -------------------------------------------------------------------------
    def _initial_data(self, seg: fap.Segment):
        self.id_rounds += 1
        if self.id_rounds > MAX_ID_ROUNDS:
            return self.refuse(fap.NEGOTIATION_FAILED, detail="the client would not take our values")
        try:
            client = fap.decode_body(seg)
        except CodecError as exc:
            return self.refuse(exc.reason if exc.family == STATUS else fap.PROTOCOL_ID_ERROR, detail=exc.detail)
        if is_message_channel_id(client):
            if self._opening is None:  # a client's exchange went on as a message channel's
                return self.refuse(fap.PROTOCOL_ID_ERROR, detail="a message channel's ID after a client's")
            data = bytes(self._opening)
            self.close()  # the conversation is the message channel agent's from its first byte
            return MessageChannelOffered(client, data)
        self._opening = None
        return IdOffered(client, seg.header, first=self.id_rounds == 1)

    def _call(self, seg: fap.Segment):
        whole = self.reassembler.add(seg)
        if whole is None:
            return None  # more segments of the call to come
        h = whole.header
        conv = self.conversations.get(h.ConversationId if self.multiplexed else 0)
        if conv is None:
            return self.refuse(fap.CONV_ID_ERROR, conv_id=h.ConversationId, detail="MQI call on no conversation")
        return Call(conv, whole)

    def _userid(self, seg: fap.Segment):
        conv = self.conversation(seg.header.ConversationId)
        if conv is not None:
            uid = fap.decode_body(seg)
            conv.user_id = uid.LongUserId.strip() if uid.LongUserId else uid.UserIdentifier
            conv.uid_password = uid.Password
        return None  # no reply: the client goes on with CONAUTH or MQCONN

    def _conauth(self, seg: fap.Segment):
        h = seg.header
        conv = self.conversation(h.ConversationId)
        if conv is None:
            return self.refuse(fap.CONV_ID_ERROR, conv_id=h.ConversationId)
        caut = fap.decode_body(seg)
        conv.auth_user = caut.UserId
        conv.auth_password = caut.Password
        # The client waits for a STATUS; ESH code 0 without ERROR is the accepted answer (docs/reference/fap.md
        # section 8; decision in docs/decisions.md).  The verdict comes with the MQCONN reply, as on a real one.
        on_conversation = h.StructId == fap.TSHM
        self.outgoing.append(fap.status_segment(
            0, struct_id=h.StructId, conversation_id=h.ConversationId if on_conversation else 0,
            request_id=h.RequestId if on_conversation else 0,
            control_flags1=fap.CF1_FIRST | fap.CF1_LAST if on_conversation else 0,
            encoding=REPLY_ENCODING, ccsid=REPLY_CCSID))
        return None

    def _heartbeat(self, seg: fap.Segment):
        h = seg.header
        level = self.agreement.fap_level
        if fap.is_heartbeat_request(h.ControlFlags1, level):
            self.outgoing.append(fap.encode_segment(
                fap.HEARTBEAT, b"", struct_id=h.StructId, control_flags1=fap.heartbeat_reply_flags(level),
                encoding=REPLY_ENCODING, ccsid=REPLY_CCSID))
        return None  # an answer to our own request: the read already moved the transport's watchdog

    def _socket_action(self, seg: fap.Segment):
        if not self.multiplexed:
            return self.refuse(fap.PROTOCOL_SEGMENT_TYPE, detail="SOCKET_ACTION on a connection without sharing")
        action = fap.decode_body(seg)
        if action.Type == fap.SA_START_CONV:
            conv_id = action.ConversationId
            limit = self.agreement.sharing_conversations
            if conv_id in self.conversations or conv_id <= 0 or len(self.conversations) >= limit:
                code = fap.CONV_ID_ERROR if conv_id in self.conversations else fap.MAX_CONNS_LIMIT_REACHED
                self.outgoing.append(fap.status_segment(code, struct_id=fap.TSHM, conversation_id=conv_id,
                                                    control_flags1=fap.CF1_ERROR))
                return ConversationRefused(conv_id, limit)
            conv = self.conversations[conv_id] = Conversation(conv_id)
            accept = fap.SocketAction(ConversationId=conv_id, RequestId=action.RequestId, Type=fap.SA_ACCEPT_CONV,
                                      Parm1=action.Parm1, Parm2=action.Parm2)
            self.outgoing.append(fap.encode_segment(fap.SOCKET_ACTION, accept.pack(fap.LITTLE), struct_id=fap.TSHM,
                                                conversation_id=conv_id, request_id=0, control_flags1=0,
                                                encoding=REPLY_ENCODING, ccsid=REPLY_CCSID))
            return ConversationStarted(conv)
        if action.Type == fap.SA_END_CONV:
            conv = self.conversations.pop(action.ConversationId, None)
            last = not self.conversations  # the client closes the socket after its last conversation
            if last:
                self.close()
            return ConversationEnded(conv, last)
        return Ignored("socket_action", action.Type)

    def _request_msgs(self, seg: fap.Segment):
        return RequestMsgs(seg)

    def _peer_closed(self, seg: fap.Segment):
        self.close()
        return PeerClosed()
