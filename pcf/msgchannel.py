"""The message-channel flows of FAP: what two queue managers' channel agents send each other.

Sans-IO and standard library only.  A message channel (SDR/RCVR, SVR/RQSTR) runs on ``TSH `` segments
(never TSHM: it has no conversations to multiplex) and uses segment types a client channel never
sends (docs/reference/fap.md 5.1, "queue-manager channels only").  Sources per fact: docs/decisions.md
MCA1-MCA18 ([WS] is Wireshark's MQ dissector, epan/dissectors/packet-mq.c; tshark 4.0.17 reads every
flow built here, tests/pcf/test_msgchannel.py).

==========================  ======================================================================
flow                        segment
==========================  ======================================================================
start                       INITIAL_DATA both ways (:func:`message_channel_id`, :func:`negotiate`):
                            MaxMsgsPerBatch, SequenceWrapValue, CapFlags1 without MQREQUEST
a message                   MESSAGE_DATA: ``MSH `` (:class:`MessageHeader`) + the transmission-queue
                            message (MQXQH + MQMD + data), split FIRST/.../LAST over segments of at
                            most MaxTransmissionSize; TSH LUWIdent = the batch's LUWID
end of batch                CONFIRM_REQUEST on the last segment of the batch's last message (or on a
                            header-only MESSAGE_DATA, :func:`batch_end`, when the batch is empty)
confirmation                STATUS_DATA ReturnCode 0, Value = the last sequence number committed,
                            LUWIdent = the batch's LUWID (:func:`confirm`)
in-doubt question           RESYNC_DATA (:class:`SequenceData`): the sender's last sequence number
                            and LUWID; answered by a confirm naming the receiver's last committed
RESET CHANNEL SEQNUM        RESET_DATA (:class:`SequenceData`) with the new number; answered by a
                            confirm
PING CHANNEL                PING_DATA (:class:`PingData`), echoed back
heartbeat                   HEARTBEAT, header only (fap.heartbeat), between batches
error                       STATUS_DATA ERROR|CLOSE_CHANNEL with the STATUS code (fap.status_segment)
normal end                  STATUS_DATA ReturnCode 0 with CLOSE_CHANNEL (:func:`close`)
==========================  ======================================================================
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass
from typing import ClassVar, Optional

from . import errors
from . import fap
from .encoding import BIG, LITTLE
from .fap import (CF1_CLOSE_CHANNEL, CF1_CONFIRM_REQUEST, CF1_FIRST, CF1_LAST, MESSAGE_DATA,
                  PROTOCOL_INVALID_DATA, PROTOCOL_LENGTH_ERROR, TSH, TSH_LENGTH, InitialData)

# ---- capability flags a message channel offers (docs/decisions.md MCA3) ----------------------------
CF1_MSG_SEQ = 0x01
CF1_CONVERSION_CAPABLE = 0x02
CF1_SPLIT_MESSAGES = 0x04
CF1_REQUEST_INITIATION = 0x08  # a requester's ID: it asks the partner to send (decision MCS1)
CF1_MQREQUEST = 0x20  # set by clients only: an ID with it is an MQI channel, not a message channel
MESSAGE_CHANNEL_CAPS1 = CF1_MSG_SEQ | CF1_CONVERSION_CAPABLE | CF1_SPLIT_MESSAGES
MESSAGE_CHANNEL_FAP = 13  # what qmlite's queue managers speak to each other (6.1: the 240-byte ID)

_ORDERS = {1: BIG, 2: LITTLE}


def _err(code: int, detail: str, offset: Optional[int] = None) -> errors.CodecError:
    return errors.CodecError(code, family=errors.STATUS, detail=detail, offset=offset)


# ---------------------------------------------------------------------------------------------
# MSH: the message segment header [WS]
# ---------------------------------------------------------------------------------------------

MSH_LENGTH = 20
# The first segment of a message holds its MSH and whole MQXQH (with the MQMD in it): Wireshark reads a
# MESSAGE_DATA segment alone, and an MQXQH cut short there is a malformed frame to it (decision MCA5).
MIN_TRANSMISSION_SIZE = 28 + MSH_LENGTH + 428
_MSH_EYE = b"MSH "
_MSH = {BIG: struct.Struct(">4sIIII"), LITTLE: struct.Struct("<4sIIII")}


@dataclass(slots=True)
class MessageHeader:
    """``MSH `` (20 bytes, integers in the segment's byte order) at the start of the first segment of a
    message: its sequence number, the bytes of the message this segment carries (DataLength, [WS]
    "Buffer length"), a reserved word ([WS] "Unknown1", written 0) and the whole message's length."""

    SeqNum: int = 0
    DataLength: int = 0
    Reserved: int = 0
    MsgLength: int = 0

    _json_type: ClassVar[str] = "MSH"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = LITTLE,
               end: Optional[int] = None) -> tuple["MessageHeader", int]:
        end = len(buf) if end is None else end
        if end - offset < MSH_LENGTH:
            raise _err(PROTOCOL_LENGTH_ERROR, f"MSH needs {MSH_LENGTH} bytes, {max(end - offset, 0)} present", offset)
        eye, seq, data_len, reserved, msg_len = _MSH[order].unpack_from(buf, offset)
        if eye != _MSH_EYE:
            raise _err(PROTOCOL_INVALID_DATA, f"MSH StructId is {eye!r}", offset)
        if data_len > msg_len:
            raise _err(PROTOCOL_LENGTH_ERROR, f"MSH DataLength {data_len} > MsgLength {msg_len}", offset + 8)
        return cls(seq, data_len, reserved, msg_len), offset + MSH_LENGTH

    def pack(self, order: str = LITTLE) -> bytes:
        return _MSH[order].pack(_MSH_EYE, self.SeqNum, self.DataLength, self.Reserved, self.MsgLength)


# ---------------------------------------------------------------------------------------------
# RESET_DATA / RESYNC_DATA and PING_DATA bodies
# ---------------------------------------------------------------------------------------------

_SEQ = {BIG: struct.Struct(">II"), LITTLE: struct.Struct("<II")}
_LEN = {BIG: struct.Struct(">I"), LITTLE: struct.Struct("<I")}


@dataclass(slots=True)
class SequenceData:
    """RESET_DATA's body ([WS]: Length, SeqNum) and, by the same layout, RESYNC_DATA's (decision MCA6): Length 8
    and a message sequence number.  Bytes after the eight are kept in ``Trailer``."""

    SeqNum: int = 0
    Length: int = 8
    Trailer: bytes = b""

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = LITTLE,
               end: Optional[int] = None) -> tuple["SequenceData", int]:
        end = len(buf) if end is None else end
        if end - offset < 8:
            raise _err(PROTOCOL_LENGTH_ERROR, f"sequence data needs 8 bytes, {max(end - offset, 0)} present", offset)
        length, seq = _SEQ[order].unpack_from(buf, offset)
        if length < 8 or length > end - offset:
            raise _err(PROTOCOL_LENGTH_ERROR, f"sequence data Length {length} outside 8..{end - offset}", offset)
        return cls(seq, length, bytes(buf[offset + 8:end])), end

    def pack(self, order: str = LITTLE) -> bytes:
        return _SEQ[order].pack(8 + len(self.Trailer), self.SeqNum) + self.Trailer


@dataclass(slots=True)
class PingData:
    """PING_DATA's body ([WS]: Length, then the data): PING CHANNEL's DATALEN bytes, echoed back."""

    Data: bytes = b""

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = LITTLE,
               end: Optional[int] = None) -> tuple["PingData", int]:
        end = len(buf) if end is None else end
        if end - offset < 4:
            raise _err(PROTOCOL_LENGTH_ERROR, "ping data needs 4 bytes", offset)
        (length,) = _LEN[order].unpack_from(buf, offset)
        if length < 4 or length > end - offset:
            raise _err(PROTOCOL_LENGTH_ERROR, f"ping Length {length} outside 4..{end - offset}", offset)
        return cls(bytes(buf[offset + 4:offset + length])), end

    def pack(self, order: str = LITTLE) -> bytes:
        return _LEN[order].pack(4 + len(self.Data)) + self.Data


# ---------------------------------------------------------------------------------------------
# The ID exchange of a message channel
# ---------------------------------------------------------------------------------------------

@dataclass(slots=True, frozen=True)
class Offer:
    """What one end of a message channel brings to the ID exchange (from its channel definition)."""

    channel: str
    qmgr: str
    batch_size: int = 50
    seq_wrap: int = 999_999_999
    max_msg_length: int = 4_194_304
    heartbeat_interval: int = 300
    max_transmission_size: int = 32_748
    ccsid: int = 819
    qmgr_id: str = ""
    fap_level: int = MESSAGE_CHANNEL_FAP
    requester: bool = False  # a RQSTR starting the channel: CapFlags1 REQUEST_INITIATION (decision MCS1)


def message_channel_id(offer: Offer) -> InitialData:
    """The INITIAL_DATA one end sends: the channel and its own queue manager's name, the batch size,
    the sequence wrap value, CapFlags1 MSG_SEQ|CONVERSION_CAPABLE|SPLIT_MESSAGES (and REQUEST_INITIATION
    from a requester) and SharingConversations 0."""
    caps = MESSAGE_CHANNEL_CAPS1 | (CF1_REQUEST_INITIATION if offer.requester else 0)
    return InitialData(FapLevel=offer.fap_level, CapFlags1=caps,
                       MaxMsgsPerBatch=min(offer.batch_size, 0xFFFF),
                       MaxTransmissionSize=offer.max_transmission_size, MaxMessageSize=offer.max_msg_length,
                       SequenceWrapValue=offer.seq_wrap, ChannelName=offer.channel, CCSID=offer.ccsid,
                       QMgrName=offer.qmgr, HeartbeatInterval=offer.heartbeat_interval,
                       HdrCompList=b"\x00\xff", MsgCompList=b"\x00" + b"\xff" * 15,
                       ProductId="MQMM09040000", QMgrId=offer.qmgr_id)


def is_message_channel_id(initial: InitialData) -> bool:
    """An ID from a queue manager's channel agent rather than an MQI client: no MQREQUEST (decision MCA3)."""
    return not initial.CapFlags1 & CF1_MQREQUEST


def is_requester_id(initial: InitialData) -> bool:
    """A requester's ID (a RQSTR started it): its partner, a SVR or SDR, is to be the sending end."""
    return bool(initial.CapFlags1 & CF1_REQUEST_INITIATION) and is_message_channel_id(initial)


@dataclass(slots=True, frozen=True)
class Agreed:
    """What both ends use once the ID exchange is over."""

    fap_level: int
    batch_size: int
    seq_wrap: int
    max_msg_length: int
    heartbeat_interval: int
    max_transmission_size: int
    partner_qmgr: str


def negotiate(theirs: InitialData, mine: Offer) -> tuple[InitialData, int, Optional[Agreed]]:
    """The receiving end's answer to an ID: (reply, IniErrFlags1, agreement or None).

    Per value (decision MCA4): the FAP level, MaxTransmissionSize, MaxMsgsPerBatch and MaxMessageSize are the
    lower of the two, HeartbeatInterval the higher; a value lowered or raised sets its IniErrFlags1
    bit and the reply carries ERROR for the sender to repeat its ID with it.  SequenceWrapValue must be
    equal: a different one sets SEQ_WRAP_VALUE and there is no agreement (the sender ends the channel
    with STATUS WRAP_VALUE_ERROR)."""
    fap_level = min(theirs.FapLevel, mine.fap_level)
    max_tr = min(theirs.MaxTransmissionSize or mine.max_transmission_size, mine.max_transmission_size)
    batch = min(theirs.MaxMsgsPerBatch or mine.batch_size, mine.batch_size)
    max_msg = min(theirs.MaxMessageSize or mine.max_msg_length, mine.max_msg_length)
    hbint = max(theirs.HeartbeatInterval, mine.heartbeat_interval)
    flags = 0
    if fap_level != theirs.FapLevel:
        flags |= fap.IEF1_FAP_LEVEL
    if max_tr != theirs.MaxTransmissionSize:
        flags |= fap.IEF1_MAX_TRANSMISSION_SIZE
    if batch != theirs.MaxMsgsPerBatch:
        flags |= fap.IEF1_MAX_MSG_PER_BATCH
    if max_msg != theirs.MaxMessageSize:
        flags |= fap.IEF1_MAX_MSG_SIZE
    if hbint != theirs.HeartbeatInterval:
        flags |= fap.IEF1_HEARTBEAT_INTERVAL
    wrap_ok = theirs.SequenceWrapValue == mine.seq_wrap
    if not wrap_ok:
        flags |= fap.IEF1_SEQ_WRAP_VALUE
    reply = message_channel_id(dataclasses.replace(
        mine, fap_level=fap_level, max_transmission_size=max_tr, batch_size=batch,
        max_msg_length=max_msg, heartbeat_interval=hbint, channel=theirs.ChannelName, requester=False))
    reply.IniErrFlags1 = flags
    agreed = None
    if not flags:
        agreed = Agreed(fap_level, batch, mine.seq_wrap, max_msg, hbint, max_tr, theirs.QMgrName)
    return reply, flags, agreed


def id_segment(initial: InitialData, *, error: bool = False, request: bool = True, byte_order: int = 2) -> bytes:
    """An INITIAL_DATA segment in a ``TSH ``: a request carries CONFIRM_REQUEST, a reply asking for
    another round ERROR (docs/reference/fap.md 5.2, 6.3)."""
    flags = (fap.CF1_ERROR if error else 0) | (CF1_CONFIRM_REQUEST if request else 0)
    order = _ORDERS[byte_order]
    return fap.encode_segment(fap.INITIAL_DATA, initial.pack(order), struct_id=TSH, byte_order=byte_order,
                              control_flags1=flags)


# ---------------------------------------------------------------------------------------------
# Messages, batches and their confirmation
# ---------------------------------------------------------------------------------------------

def message_segments(seq: int, message: bytes, *, luw: bytes, max_transmission_size: int,
                     confirm: bool = False, byte_order: int = 2) -> list[bytes]:
    """One transmission-queue message (MQXQH + MQMD + data) as MESSAGE_DATA segments: ``MSH`` first,
    FIRST on the first segment, LAST on the last (one segment: both), CONFIRM_REQUEST on the last when
    it ends a batch; the batch's LUWID in every TSH."""
    order = _ORDERS[byte_order]
    room = max_transmission_size - TSH_LENGTH
    if max_transmission_size < MIN_TRANSMISSION_SIZE:
        raise ValueError(f"max_transmission_size {max_transmission_size} < {MIN_TRANSMISSION_SIZE}")
    first_room = room - MSH_LENGTH
    chunks = [message[:first_room]]
    rest = message[first_room:]
    while rest:
        chunks.append(rest[:room])
        rest = rest[room:]
    out = []
    last = len(chunks) - 1
    for i, chunk in enumerate(chunks):
        flags = (CF1_FIRST if i == 0 else 0) | (CF1_LAST if i == last else 0)
        if confirm and i == last:
            flags |= CF1_CONFIRM_REQUEST
        body = chunk
        if i == 0:
            body = MessageHeader(seq, len(chunk), 0, len(message)).pack(order) + chunk
        out.append(fap.encode_segment(MESSAGE_DATA, body, struct_id=TSH, byte_order=byte_order,
                                      control_flags1=flags, luw=luw))
    return out


def batch_end(luw: bytes, *, byte_order: int = 2) -> bytes:
    """A header-only MESSAGE_DATA with CONFIRM_REQUEST: the end of a batch whose last message already
    went (BATCHINT ran out, or the transmission queue emptied after it)."""
    return fap.encode_segment(MESSAGE_DATA, b"", struct_id=TSH, byte_order=byte_order,
                              control_flags1=CF1_CONFIRM_REQUEST, luw=luw)


def confirm(last_seq: int, luw: bytes, *, byte_order: int = 2) -> bytes:
    """The receiver's answer to a batch end, a RESYNC_DATA or a RESET_DATA: STATUS 0 with the last
    sequence number it committed and that batch's LUWID."""
    body = fap.StatusData(ReturnCode=0, Value=last_seq).pack(_ORDERS[byte_order])
    return fap.encode_segment(fap.STATUS_DATA, body, struct_id=TSH, byte_order=byte_order,
                              control_flags1=0, luw=luw)


def sequence_segment(segment_type: int, seq: int, luw: bytes = bytes(8), *, byte_order: int = 2) -> bytes:
    """RESYNC_DATA or RESET_DATA carrying ``seq`` (and, for RESYNC, the in-doubt batch's LUWID)."""
    if segment_type not in (fap.RESYNC_DATA, fap.RESET_DATA):
        raise ValueError("a sequence segment is RESYNC_DATA or RESET_DATA")
    return fap.encode_segment(segment_type, SequenceData(seq).pack(_ORDERS[byte_order]), struct_id=TSH,
                              byte_order=byte_order, control_flags1=CF1_CONFIRM_REQUEST, luw=luw)


def ping_segment(data: bytes, *, reply: bool = False, byte_order: int = 2) -> bytes:
    return fap.encode_segment(fap.PING_DATA, PingData(data).pack(_ORDERS[byte_order]), struct_id=TSH,
                              byte_order=byte_order, control_flags1=0 if reply else CF1_CONFIRM_REQUEST)


def close(*, byte_order: int = 2) -> bytes:
    """The normal end of a channel (DISCINT, STOP CHANNEL MODE(QUIESCE)): STATUS 0 with CLOSE_CHANNEL."""
    return fap.status_segment(0, byte_order=byte_order, control_flags1=CF1_CLOSE_CHANNEL)


@dataclass(slots=True)
class Message:
    """One message reassembled from its segments."""

    seq: int
    data: bytes
    luw: bytes
    confirm: bool  # the batch ends with it


class MessageAssembler:
    """MESSAGE_DATA segments in, whole messages out (FIRST with its MSH, middle, LAST).

    Errors, as the receiving end answers them (STATUS code): a FIRST while a message is open, or a
    continuation without one, 13 PROTOCOL_SEGMENT_ERROR; an MSH that does not decode, its own code; a
    message longer than ``max_msg_length`` or than its MsgLength says, 18 MESSAGE_LENGTH_ERROR."""

    __slots__ = ("max_msg_length", "_parts", "_have", "_msh", "_luw")

    def __init__(self, max_msg_length: int) -> None:
        self.max_msg_length = max_msg_length
        self._parts: list[bytes] = []
        self._have = 0
        self._msh: Optional[MessageHeader] = None
        self._luw = bytes(8)

    @property
    def open(self) -> bool:
        """Whether a message has started and not ended (a batch cut here is cut mid-message)."""
        return self._msh is not None

    def feed(self, segment: fap.Segment) -> Optional[Message]:
        header = segment.header
        flags = header.ControlFlags1
        body = segment.body
        if flags & CF1_FIRST:
            if self._msh is not None:
                raise _err(fap.PROTOCOL_SEGMENT_ERROR, "FIRST while a message is open")
            msh, p = MessageHeader.unpack(body, 0, header.order)
            if msh.MsgLength > self.max_msg_length:
                raise _err(fap.MESSAGE_LENGTH_ERROR, f"message of {msh.MsgLength} bytes > {self.max_msg_length}")
            self._msh, self._luw = msh, header.LUWIdent
            body = body[p:]
        elif self._msh is None:
            raise _err(fap.PROTOCOL_SEGMENT_ERROR, "message continuation without FIRST")
        self._have += len(body)
        if self._have > self._msh.MsgLength:
            raise _err(fap.MESSAGE_LENGTH_ERROR, f"message longer than its MsgLength {self._msh.MsgLength}")
        self._parts.append(bytes(body))
        if not flags & CF1_LAST:
            return None
        msh = self._msh
        data = b"".join(self._parts)
        self._parts, self._have, self._msh = [], 0, None
        if len(data) != msh.MsgLength:
            raise _err(fap.MESSAGE_LENGTH_ERROR, f"message of {len(data)} bytes, MsgLength {msh.MsgLength}")
        return Message(msh.SeqNum, data, self._luw, bool(flags & CF1_CONFIRM_REQUEST))


def next_seq(seq: int, wrap: int) -> int:
    """The sequence number after ``seq``: 1 follows SEQWRAP (IBM: numbers run 1..SEQWRAP, then wrap)."""
    return 1 if seq >= wrap else seq + 1
