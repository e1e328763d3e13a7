"""The client side of one MQ client channel, sans-IO (h11's model): bytes in, events out, bytes to send.

:class:`ClientChannel` holds every rule of the conversation -- ID negotiation, UID, CAUT, MQCONN,
request/reply pairing, reassembly of split replies, heartbeats both ways, timers, STATUS handling --
and performs no I/O.  A driver only moves bytes:

    ch = ClientChannel(opts)
    sock.sendall(ch.initiate())
    while True:
        event = ch.next_event()              # raises MQIError / ConnectionBroken when it is over
        if event is NEED_DATA:
            sock.sendall(ch.data_to_send())  # heartbeat answers and handshake steps queue here
            ch.receive_data(sock.recv(65536))
        elif isinstance(event, Connected):
            break

    sock.sendall(ch.send_call(fap.MQPUT, hobj, body))
    ... next_event() until a Reply ...

Timers: :meth:`next_deadline` says when the channel must be woken (a reply overdue, a quiet server to
probe, a probe unanswered); the driver calls :meth:`on_timer` then, and sends :meth:`data_to_send`.
The clock is injected (``clock=``): trio's driver passes ``trio.current_time`` so tests can jump it.

Several calls may be outstanding at once (pipelined MQPUTs with MQPMO_ASYNC_RESPONSE): replies come
back in the order the requests went, as the server answers one conversation in order; each is paired
with the oldest outstanding call and must be of its type.

The byte-level work is :mod:`qmlite.pcf`'s; which values to send is :mod:`qmlite.client.protocol`'s
(the docs/reference/fap.md section numbers are there).  Heartbeat flag rules are shared with the server
(``fap.heartbeat_*``), as is the rule for when a conversation is multiplexed (``fap.multiplexed``).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Optional, Union

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.encoding import LITTLE, codec_for_ccsid
from qmlite.pcf.errors import CodecError
from qmlite.pcf.framer import INITIAL_MAX_SEGMENT_LENGTH, Framer, Reassembler

from . import protocol as proto
from .errors import ConnectionBroken, MQIError

__all__ = [
    "ClientChannel", "NEED_DATA", "Connected", "Reply", "AsyncMessage", "Notification",
    "HeartbeatAnswered", "HeartbeatAck", "State",
]


# ------------------------------------------------------------------------------------------------
# Events
# ------------------------------------------------------------------------------------------------

class _NeedData:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA = _NeedData()


@dataclass(slots=True)
class Connected:
    """MQCONN succeeded: the agreed values and the ConnectionId the server gave."""

    agreement: proto.Agreement
    connection_id: bytes


@dataclass(slots=True)
class Reply:
    """The (reassembled) reply to the oldest outstanding call."""

    segment: fap.Segment
    api: fap.ApiHeader
    body_offset: int  # where the call's body starts in ``segment.body`` (after the API header)

    @property
    def segment_type(self) -> int:
        return self.segment.header.SegmentType


@dataclass(slots=True)
class AsyncMessage:
    segment: fap.Segment


@dataclass(slots=True)
class Notification:
    segment: fap.Segment


@dataclass(slots=True)
class HeartbeatAnswered:
    """The server asked for a heartbeat; the answer is queued in :meth:`ClientChannel.data_to_send`."""


@dataclass(slots=True)
class HeartbeatAck:
    """The server answered our heartbeat request."""


Event = Union[_NeedData, Connected, Reply, AsyncMessage, Notification, HeartbeatAnswered, HeartbeatAck]


class State:
    NEGOTIATING = "negotiating"  # ID sent, waiting for the server's
    AUTHENTICATING = "authenticating"  # CAUT sent, waiting for its STATUS
    CONNECTING = "connecting"  # MQCONN sent
    CONNECTED = "connected"
    CLOSED = "closed"


@dataclass(slots=True)
class _Outstanding:
    reply_type: int
    deadline: float


# ------------------------------------------------------------------------------------------------

class ClientChannel:
    """One conversation over one socket.  See the module docstring."""

    def __init__(self, opts: proto.ConnectOptions, *, clock: Callable[[], float] = time.monotonic,
                 reply_timeout: float = 60.0) -> None:
        opts.validate()
        self.opts = opts
        self.clock = clock
        self.reply_timeout = reply_timeout
        self.codec = opts.codec
        self.link = proto.Link(ccsid=opts.ccsid)
        self.state = State.NEGOTIATING
        self.agreement: Optional[proto.Agreement] = None
        self.connection_id = bytes(24)
        self.heartbeats_answered = 0
        self.heartbeats_sent = 0
        self._framer = Framer(INITIAL_MAX_SEGMENT_LENGTH)
        self._reassembler = Reassembler(max_call_length=opts.max_message_length + 65536)
        self._segments: deque[fap.Segment] = deque()
        self._out = bytearray()
        self._calls: deque[_Outstanding] = deque()
        self._error: Optional[MQIError] = None
        self._ours: Optional[fap.InitialData] = None
        self._round = 0
        self._handshake_deadline = 0.0
        now = clock()
        self.last_heard = now
        self.last_sent = now
        self._probe_deadline: Optional[float] = None

    # -- properties ---------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.state == State.CONNECTED

    @property
    def closed(self) -> bool:
        return self.state == State.CLOSED

    @property
    def error(self) -> Optional[MQIError]:
        return self._error

    @property
    def outstanding(self) -> int:
        """Calls sent whose replies have not been returned yet."""
        return len(self._calls)

    @property
    def multiplexed(self) -> bool:
        return self.link.multiplexed

    # -- bytes out ----------------------------------------------------------------------------

    def _queue(self, data: bytes) -> None:
        self._out += data
        self.last_sent = self.clock()

    def data_to_send(self) -> bytes:
        """Everything queued to go to the server (handshake steps, heartbeat answers, probes)."""
        if not self._out:
            return b""
        out = bytes(self._out)
        self._out.clear()
        return out

    def initiate(self) -> bytes:
        """The first ID (docs/reference/fap.md 6.3); the start of the handshake."""
        if self._ours is not None:
            raise RuntimeError("initiate() was called already")
        self._ours = proto.first_id(self.opts)
        self._round = 1
        self._handshake_deadline = self.clock() + self.reply_timeout
        self._queue(self.link.id_segment(self._ours, struct_id=fap.TSH))
        return self.data_to_send()

    def send_call(self, segment_type: int, hobj: int, body: bytes, *, extra: int = 0,
                  wait_s: float = 0.0) -> bytes:
        """Queue one MQI request and return every byte to send (queued heartbeat answers first).
        ``extra``: what the reply may bring back beyond the request (CallLength, docs/reference/fap.md 10);
        ``wait_s``: how long the server may legitimately hold the reply (an MQGET's wait)."""
        self.check_usable()
        segments = self.link.mqi(segment_type, hobj, body, extra=extra)
        deadline = self.clock() + self.reply_timeout + wait_s
        self._calls.append(_Outstanding(segment_type | fap.REPLY, deadline))
        for seg in segments:
            self._out += seg
        self.last_sent = self.clock()
        return self.data_to_send()

    def end(self) -> bytes:
        """How we leave after MQDISC: SOCKET_ACTION END_CONV or STATUS CLOSE_CHANNEL.  The channel
        is closed afterwards."""
        data = self.link.end() if self.state == State.CONNECTED else b""
        self._close(MQIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR, "disconnected"))
        return data

    def check_usable(self) -> None:
        if self._error is not None:
            raise self._sticky()
        if self.state != State.CONNECTED:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR, f"channel is {self.state}")

    def _sticky(self) -> MQIError:
        err = self._error
        if isinstance(err, ConnectionBroken):
            return ConnectionBroken(err.reason, f"connection broken earlier: {err.detail}",
                                    status_code=err.status_code)
        return MQIError(err.comp, err.reason, err.detail)

    # -- bytes in -----------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Bytes from the server; ``b""`` means the server closed the socket."""
        if self.state == State.CLOSED:
            return
        if not data:
            reason = self._lost() if self.state != State.NEGOTIATING else C.MQRC_Q_MGR_NOT_AVAILABLE
            self._break(reason, "the server closed the connection")
            return
        self.last_heard = self.clock()
        self._probe_deadline = None
        try:
            self._segments.extend(self._framer.feed(data))
        except CodecError as exc:
            self._break(self._lost(), f"unreadable data from the server: {exc}")

    def next_event(self) -> Event:
        """The next event, or NEED_DATA.  Raises the connection's error once it is over (every
        later call raises it again)."""
        while True:
            if self._error is not None and self.state == State.CLOSED and not self._segments:
                raise self._raise_once()
            if not self._segments:
                if self._error is not None:
                    raise self._raise_once()
                return NEED_DATA
            seg = self._segments.popleft()
            event = self._handle(seg)
            if event is not None:
                return event

    def _raise_once(self) -> MQIError:
        err = self._error
        if getattr(err, "_raised", False):
            return self._sticky()
        err._raised = True  # type: ignore[attr-defined]
        return err

    # -- timers -------------------------------------------------------------------------------

    def next_deadline(self) -> Optional[float]:
        """When :meth:`on_timer` must run, or None when nothing is timed (idle, no heartbeats)."""
        if self.state == State.CLOSED:
            return None
        if self.state != State.CONNECTED:
            return self._handshake_deadline
        candidates = []
        if self._calls:
            candidates.append(self._calls[0].deadline)
        if self._probe_deadline is not None:
            candidates.append(self._probe_deadline)
        else:
            hb = self.agreement.heartbeat_interval if self.agreement else 0
            if hb > 0:
                # quiet time counts from the last byte either way (docs/reference/fap.md 22, the Java client's rule)
                candidates.append(max(self.last_heard, self.last_sent) + hb)
        return min(candidates) if candidates else None

    def on_timer(self, now: Optional[float] = None) -> None:
        """Act on whatever deadline has passed: break the channel (reply overdue, probe
        unanswered) or queue a heartbeat request to a quiet server."""
        if self.state == State.CLOSED:
            return
        now = self.clock() if now is None else now
        if self.state != State.CONNECTED:
            if now >= self._handshake_deadline:
                self._break(self._lost(), "no reply from the server in time")
            return
        if self._calls and now >= self._calls[0].deadline:
            self._break(self._lost(), "no reply from the server in time")
            return
        if self._probe_deadline is not None:
            if now >= self._probe_deadline:
                self._break(self._lost(), "the server did not answer a heartbeat request")
            return
        hb = self.agreement.heartbeat_interval if self.agreement else 0
        if hb > 0 and now >= max(self.last_heard, self.last_sent) + hb:
            self._probe(min(60, hb), now)

    def _probe(self, timeout: float, now: float) -> None:
        self._queue(self.link.heartbeat_request())
        self.heartbeats_sent += 1
        self._probe_deadline = now + timeout

    def send_heartbeat_request(self, timeout: float) -> bytes:
        """A heartbeat request to send now (with anything else queued); unanswered within
        ``timeout`` seconds the channel breaks."""
        self.check_usable()
        self._probe(timeout, self.clock())
        return self.data_to_send()

    @property
    def probing(self) -> bool:
        return self._probe_deadline is not None

    # -- failure ------------------------------------------------------------------------------

    def _lost(self) -> int:
        """2059 Q_MGR_NOT_AVAILABLE while connecting, 2009 CONNECTION_BROKEN once connected
        (docs/reference/fap.md 9)."""
        return C.MQRC_CONNECTION_BROKEN if self.state == State.CONNECTED else C.MQRC_Q_MGR_NOT_AVAILABLE

    def _break(self, reason: int, detail: str, *, status_code: Optional[int] = None) -> None:
        self._close(ConnectionBroken(reason, detail, status_code=status_code))

    def _close(self, error: MQIError) -> None:
        if self._error is None:
            self._error = error
        self.state = State.CLOSED
        self._segments.clear()
        self._calls.clear()

    def abort(self, detail: str = "connection closed") -> None:
        """The driver lost the socket (or gave up on it): the channel is broken from now on."""
        if self.state != State.CLOSED:
            self._break(self._lost(), detail)

    # -- segment handling ---------------------------------------------------------------------

    def _handle(self, seg: fap.Segment) -> Optional[Event]:
        h = seg.header
        t = h.SegmentType
        if t == fap.HEARTBEAT:
            if self.link.is_heartbeat_request(h):
                self._out += self.link.heartbeat_answer(h)
                self.heartbeats_answered += 1
                return HeartbeatAnswered()
            self._probe_deadline = None
            return HeartbeatAck()
        if t == fap.STATUS_DATA:
            return self._status(seg)
        if self.state == State.NEGOTIATING:
            if t == fap.INITIAL_DATA:
                return self._initial_data(seg)
            self._break(self._lost(), f"unexpected {fap.segment_type_name(t) or hex(t)} during negotiation")
            return None
        if fap.is_mqi_type(t):
            try:
                whole = self._reassembler.add(seg)
            except CodecError as exc:
                self._break(self._lost(), f"bad reply segments: {exc}")
                return None
            if whole is None:
                return None
            return self._reply(whole)
        if t == fap.ASYNC_MESSAGE:
            return AsyncMessage(seg)
        if t == fap.NOTIFICATION:
            return Notification(seg)
        if t == fap.SOCKET_ACTION and self._reconnect_requested(seg):
            # the queue manager is ending and asks reconnectable clients to reconnect (endmqm -r):
            # the connection is over now, and no STATUS said "do not come back" (docs/reconnect.md)
            self._break(C.MQRC_CONNECTION_BROKEN, "the queue manager asked clients to reconnect")
            return None
        # other SOCKET_ACTIONs and the rest: nothing this client asked for
        return None

    @staticmethod
    def _reconnect_requested(seg: fap.Segment) -> bool:
        try:
            action = fap.SocketAction.unpack(seg.body, 0, seg.order)[0]
        except CodecError:
            return False
        return action.Type == fap.SA_RECONNECT_CLIENTS

    def _status(self, seg: fap.Segment) -> Optional[Event]:
        code = 0
        if seg.body:
            try:
                code = fap.StatusData.unpack(seg.body, 0, seg.order)[0].ReturnCode
            except CodecError:
                code = 0
        flags = seg.header.ControlFlags1
        if self.state == State.AUTHENTICATING and not flags & (fap.CF1_ERROR | fap.CF1_CLOSE_CHANNEL):
            if code:
                self._break(proto.status_reason(code, False),
                            f"STATUS {fap.status_code_name(code) or code} after CAUT", status_code=code)
                return None
            self._send_mqconn()
            return None
        if flags & (fap.CF1_ERROR | fap.CF1_CLOSE_CHANNEL) or code:
            name = fap.status_code_name(code) or code
            self._break(proto.status_reason(code, self.state == State.CONNECTED),
                        f"STATUS {name} from the server", status_code=code)
        return None

    def _initial_data(self, seg: fap.Segment) -> Optional[Event]:
        try:
            server = fap.decode_body(seg)
        except CodecError as exc:
            self._break(self._lost(), f"bad ID from the server: {exc}")
            return None
        opts = self.opts
        if seg.header.ControlFlags1 & fap.CF1_ERROR:
            if self._round >= proto.MAX_ID_ROUNDS:
                self._break(C.MQRC_CHANNEL_CONFIG_ERROR,
                            f"ID negotiation did not converge in {proto.MAX_ID_ROUNDS} rounds")
                return None
            self._ours = proto.repeat_id(self._ours, server)
            struct_id = fap.TSH
            if fap.multiplexed(server.SharingConversations, server.FapLevel) and self._ours.SharingConversations > 0:
                struct_id = fap.TSHM
            self._round += 1
            self._queue(self.link.id_segment(self._ours, struct_id=struct_id))
            return None
        ag = proto.agreement_from(server, self._round, self._ours.CCSID)
        self.agreement = ag
        if ag.fap_level < proto.MIN_FAP_LEVEL or ag.fap_level > opts.fap_level:
            self._break(C.MQRC_CHANNEL_CONFIG_ERROR, f"server agreed FAP level {ag.fap_level}")
            return None
        if ag.max_transmission_size < 512:
            self._break(C.MQRC_CHANNEL_CONFIG_ERROR, f"server agreed MaxTransmissionSize {ag.max_transmission_size}")
            return None
        self.link = proto.Link(ccsid=ag.ccsid, multiplexed=ag.multiplexed,
                               max_transmission_size=ag.max_transmission_size, fap_level=ag.fap_level)
        self.codec = codec_for_ccsid(ag.ccsid) or self.codec
        # replies are split at the agreed size; a little slack for peers that count differently
        self._framer.max_segment_length = max(ag.max_transmission_size, INITIAL_MAX_SEGMENT_LENGTH) + 64
        self._reassembler = Reassembler(max_call_length=max(ag.max_message_size, opts.max_message_length) + 65536)
        # UID: no reply (docs/reference/fap.md 7); CAUT: a STATUS comes back (docs/reference/fap.md 8)
        self._queue(self.link.segment(fap.USERID_DATA, proto.uid_body()))
        if opts.user is not None or opts.password is not None:
            self._queue(self.link.segment(fap.CONAUTH_INFO, proto.caut_body(opts.user, opts.password, self.codec)))
            self.state = State.AUTHENTICATING
            return None
        self._send_mqconn()
        return None

    def _send_mqconn(self) -> None:
        self.state = State.CONNECTING
        for seg in self.link.mqi(fap.MQCONN, 0, proto.mqconn_body(self.opts, self.agreement.fap_level)):
            self._queue(seg)

    def _reply(self, seg: fap.Segment) -> Optional[Event]:
        t = seg.header.SegmentType
        try:
            api, pos = fap.ApiHeader.unpack(seg.body, 0, seg.order)
        except CodecError as exc:
            self._break(self._lost(), f"malformed reply: {exc}")
            return None
        if self.state == State.CONNECTING:
            if t != fap.MQCONN_REPLY:
                self._break(self._lost(), f"unexpected {fap.segment_type_name(t) or hex(t)} from the server")
                return None
            if api.CompCode != C.MQCC_OK:
                # a refused MQCONN may carry the API header alone
                self._close(MQIError(api.CompCode, api.Reason, "MQCONN"))
                return None
            try:
                conn, _ = fap.MQConnBody.unpack(seg.body, pos, seg.order)
            except CodecError as exc:
                self._break(self._lost(), f"bad MQCONN reply: {exc}")
                return None
            if conn.Fcno is not None:
                self.connection_id = conn.Fcno.ConnectionId
            self.state = State.CONNECTED
            return Connected(self.agreement, self.connection_id)
        if not self._calls or self._calls[0].reply_type != t:
            self._break(self._lost(), f"unexpected {fap.segment_type_name(t) or hex(t)} from the server")
            return None
        self._calls.popleft()
        return Reply(seg, api, pos)

    # -- reply decoding (shared by the drivers) -----------------------------------------------

    def decode(self, reply: Reply, cls) -> object:
        """The body object of a reply (None for ``cls`` None).  A body that cannot be decoded is an
        error only when the call succeeded (failed calls may carry the API header alone)."""
        if cls is None:
            return None
        seg = reply.segment
        codec = codec_for_ccsid(seg.header.CCSID) or self.codec
        try:
            obj, _ = cls.unpack(seg.body, reply.body_offset, seg.order, codec)
        except CodecError as exc:
            if reply.api.CompCode == C.MQCC_OK:
                raise MQIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR,
                               f"malformed {fap.segment_type_name(seg.header.SegmentType)}: {exc}") from None
            return None
        return obj


LITTLE_ENDIAN = LITTLE  # re-exported for drivers that pack structures themselves
