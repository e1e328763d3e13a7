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
import dataclasses
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
MAX_ID_ROUNDS = 3


class Flows:
    """The common machinery: ``receive_data`` frames segments and hands each to ``_segment``.

    Either end may open the ID exchange (``start``): a sender or server with a CONNAME, or a requester
    (the receiving end then starts it, decision MCS2); the other answers it (``_answer_id``).  Which
    end sends messages does not depend on which one started."""

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
        self._rounds = 0
        self._initiated = False  # this end sent the first ID

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

    # ---- the ID exchange, from whichever end starts it --------------------------------------------------
    def start(self) -> None:
        """Send this end's ID (it connected).  An ERROR reply with IniErrFlags1 set is adopted (the lower
        batch size, transmission and message sizes, FAP level, the higher heartbeat interval) and the
        ID sent again, at most three rounds; a different sequence wrap value ends the channel with
        STATUS WRAP_VALUE_ERROR (IBM AMQ9505); a STATUS instead of an ID (NO_CHANNEL,
        CHANNEL_WRONG_TYPE ...) is ``Closed`` with that code."""
        self._initiated = True
        self._rounds += 1
        self._send(MCF.id_segment(MCF.message_channel_id(self.offer)))

    def _id_segment(self, segment: fap.Segment) -> None:
        """An INITIAL_DATA while awaiting the ID: the answer to ours, or the partner's opening one."""
        if self._initiated:
            self._id_reply(segment)
        else:
            self._answer_id(segment)

    def _id_reply(self, segment: fap.Segment) -> None:
        reply = fap.InitialData.unpack(segment.body, 0, segment.order)[0]
        flags = reply.IniErrFlags1
        if flags & fap.IEF1_SEQ_WRAP_VALUE:
            self.fail(fap.WRAP_VALUE_ERROR)
            return
        if segment.header.ControlFlags1 & fap.CF1_ERROR or flags:
            if self._rounds >= MAX_ID_ROUNDS:
                self.fail(fap.NEGOTIATION_FAILED)
                return
            self.offer = dataclasses.replace(
                self.offer, fap_level=reply.FapLevel, batch_size=reply.MaxMsgsPerBatch or self.offer.batch_size,
                max_transmission_size=reply.MaxTransmissionSize or self.offer.max_transmission_size,
                max_msg_length=reply.MaxMessageSize or self.offer.max_msg_length,
                heartbeat_interval=reply.HeartbeatInterval)
            self.start()
            return
        offer = self.offer
        self._agreed(MCF.Agreed(min(reply.FapLevel, offer.fap_level), offer.batch_size, offer.seq_wrap,
                               offer.max_msg_length, offer.heartbeat_interval, offer.max_transmission_size,
                               reply.QMgrName))

    def _answer_id(self, segment: fap.Segment) -> None:
        theirs = fap.InitialData.unpack(segment.body, 0, segment.order)[0]
        if not MCF.is_message_channel_id(theirs):
            self.fail(fap.CHANNEL_WRONG_TYPE)  # an MQI client naming a message channel
            return
        reply, flags, agreed = MCF.negotiate(theirs, self.offer)
        self._rounds += 1
        if agreed is None:
            if self._rounds >= MAX_ID_ROUNDS:
                self.fail(fap.NEGOTIATION_FAILED)
                return
            self._send(MCF.id_segment(reply, error=True, request=False))
            return
        self._send(MCF.id_segment(reply, request=False))
        self._agreed(agreed)

    def _segment(self, segment: fap.Segment) -> None:
        """One segment after the ID exchange: each end's own flows (SenderProtocol, ReceiverProtocol)."""
        raise NotImplementedError(f"{type(self).__name__} serves no segments of its own")
