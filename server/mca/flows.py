"""What the sending and receiving protocol objects share: framing, the bytes to send, the events, and the
answer to a segment that breaks the protocol (h11's shape: ``receive_data`` / ``next_event`` /
``data_to_send``; no sockets, no trio, no queue manager).

Events (one class each, the driver matches on them):

=====================  ===========================================================================
``Started``            the ID exchange agreed (``agreed``: pcf.msgchannel.Agreed)
``MessageReceived``    receiver: one whole message (sequence number, MQXQH + MQMD + data, LUWID)
``BatchEnded``         receiver: the sender asked for confirmation of the batch ``luw``
``ResyncRequested``    receiver: RESYNC_DATA (the sender's last number and LUWID)
``ResetRequested``     receiver: RESET_DATA (the next number to expect)
``Confirmed``          sender: the receiver committed up to ``seq`` (batch ``luw``)
``Closed``             the channel is over: ``code`` the STATUS code that ended it (0: a normal end),
                       ``by_peer`` whether the partner sent it, ``cut`` a batch or message was open
=====================  ===========================================================================
"""

from __future__ import annotations

import collections
from dataclasses import dataclass

from qmlite.pcf import errors, fap
from qmlite.pcf import msgchannel as MCF
from qmlite.pcf.framer import Framer


@dataclass(frozen=True, slots=True)
class Started:
    agreed: MCF.Agreed


@dataclass(frozen=True, slots=True)
class MessageReceived:
    seq: int
    data: bytes
    luw: bytes


@dataclass(frozen=True, slots=True)
class BatchEnded:
    luw: bytes


@dataclass(frozen=True, slots=True)
class ResyncRequested:
    seq: int
    luw: bytes


@dataclass(frozen=True, slots=True)
class ResetRequested:
    seq: int


@dataclass(frozen=True, slots=True)
class Confirmed:
    seq: int
    luw: bytes


@dataclass(frozen=True, slots=True)
class Closed:
    code: int
    by_peer: bool
    cut: bool = False
    value: int | None = None
    eof: bool = False  # the connection ended without a STATUS: the partner may have committed (in doubt)


AWAIT_ID, RUNNING, CLOSED = "awaiting ID", "running", "closed"


class Flows:
    """The common machinery: ``receive_data`` frames segments and hands each to ``_segment``."""

    def __init__(self, offer: MCF.Offer, clock) -> None:
        self.offer = offer
        self.clock = clock  # the injected clock: () -> seconds (the queue manager's, virtual in tests)
        self.state = AWAIT_ID
        self.agreed: MCF.Agreed | None = None
        self._framer = Framer()
        self._out = bytearray()
        self._events: collections.deque = collections.deque()
        self.last_sent = self.last_received = clock()
        self.bytes_sent = self.bytes_received = 0

    # ---- the h11 shape ----------------------------------------------------------------------------
    def receive_data(self, data: bytes) -> None:
        """Bytes from the partner; b"" when its end of the connection closed."""
        if self.state == CLOSED:
            return
        if not data:
            self._ended_by_eof()
            return
        self.bytes_received += len(data)
        self.last_received = self.clock()
        try:
            for segment in self._framer.feed(data):
                self._segment(segment)
                if self.state == CLOSED:
                    return
        except errors.CodecError as exc:
            self.fail(exc.reason if exc.family == errors.STATUS else fap.PROTOCOL_INVALID_DATA)

    def next_event(self):
        """The next event, or None."""
        return self._events.popleft() if self._events else None

    @property
    def pending(self) -> int:
        """Bytes waiting to be sent."""
        return len(self._out)

    def data_to_send(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    # ---- helpers ----------------------------------------------------------------------------------
    def _send(self, *segments: bytes) -> None:
        for segment in segments:
            self._out += segment
            self.bytes_sent += len(segment)
        self.last_sent = self.clock()

    def _agreed(self, agreed: MCF.Agreed) -> None:
        self.agreed = agreed
        self.state = RUNNING
        self._framer.max_segment_length = max(agreed.max_transmission_size, MCF.MIN_TRANSMISSION_SIZE)
        self._events.append(Started(agreed))

    def fail(self, code: int, value: int | None = None) -> None:
        """End the channel with STATUS ``code`` (ERROR|CLOSE_CHANNEL), as the channel agent does on an error."""
        if self.state == CLOSED:
            return
        self._send(fap.status_segment(code, value=value))
        self._close(Closed(code, by_peer=False, cut=self._cut(), value=value))

    def close(self) -> None:
        """The normal end: STATUS 0 with CLOSE_CHANNEL."""
        if self.state == CLOSED:
            return
        self._send(MCF.close())
        self._close(Closed(0, by_peer=False, cut=self._cut()))

    def _close(self, event: Closed) -> None:
        self.state = CLOSED
        self._events.append(event)

    def _ended_by_eof(self) -> None:
        # The partner went without a word: as IBM's AMQ9208 (error receiving), the batch is not confirmed.
        cut = self._cut() or self._framer.buffered > 0
        self._close(Closed(fap.PROTOCOL_GENERAL if self.state != RUNNING or cut else 0, by_peer=True, cut=cut,
                           eof=True))

    def _cut(self) -> bool:
        return False

    def _status(self, segment: fap.Segment) -> fap.StatusData:
        return fap.StatusData.unpack(segment.body, 0, segment.order)[0]

    def _heartbeat(self, segment: fap.Segment) -> bool:
        """Answer a heartbeat request; True when the segment was one."""
        if segment.segment_type != fap.HEARTBEAT:
            return False
        level = self.agreed.fap_level if self.agreed else MCF.MESSAGE_CHANNEL_FAP
        if fap.is_heartbeat_request(segment.header.ControlFlags1, level):
            self._send(fap.heartbeat(request=False, struct_id=fap.TSH, fap_level=level))
        return True

    def _segment(self, segment: fap.Segment) -> None:
        """One segment after the ID exchange: each end's own flows (SenderProtocol, ReceiverProtocol)."""
        raise NotImplementedError(f"{type(self).__name__} serves no segments of its own")
