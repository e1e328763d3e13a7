"""FAP segments: the TSH/TSHC/TSHM segment header and the bodies of the connection-level flows.

Sans-IO and standard library only.  Layouts follow ``docs/reference/fap.md`` (section numbers below refer to it).

Conventions
-----------
* Every body class has ``unpack(buf, offset=0, order=">", end=None) -> (obj, next_offset)`` and
  ``pack(order) -> bytes``.  ``end`` bounds the parse (default ``len(buf)``); a whole-body parser
  consumes everything up to ``end`` and keeps bytes it does not understand in ``Trailer`` so that
  ``pack`` reproduces the input byte for byte.
* ``order`` is ``">"`` (ByteOrder 1) or ``"<"`` (ByteOrder 2), see :attr:`SegmentHeader.order`.
* Decoders raise only :class:`~qmlite.pcf.errors.CodecError` with ``family=errors.STATUS``; the
  reason is the STATUS code a server sends (ERROR|CLOSE_CHANNEL) before closing the channel:

  =============================================  ==========================================
  condition                                      STATUS code
  =============================================  ==========================================
  SegmentLength < header length or > maximum      11 PROTOCOL_LENGTH_ERROR
  a body structure runs past the segment end,     11 PROTOCOL_LENGTH_ERROR
  or a length field inside it (ErrorDataLength,
  UserIdLength, PasswordLength, ResolvedQName-
  Length) points past the bytes present
  StructId not ``TSH ``/``TSHC``/``TSHM``          13 PROTOCOL_SEGMENT_ERROR
  EBCDIC segment StructId (``E3 E2 C8 ..``)       0xF0 CCSID_NOT_SUPPORTED (EBCDIC peers refused)
  ByteOrder not 1 or 2                            0xF1 ENCODING_INVALID
  INITIAL_DATA body bad (eye-catcher, too short)  14 PROTOCOL_ID_ERROR
  other eye-catcher wrong (UID, CAUT, FCNO)       12 PROTOCOL_INVALID_DATA
  segment type unknown (``check_segment_type``)   10 PROTOCOL_SEGMENT_TYPE
  =============================================  ==========================================

  (The framer/reassembler add 13 for FIRST/LAST sequence errors and 18 MESSAGE_LENGTH_ERROR for a
  reassembled call above the maximum, see ``framer.py``.)
* CHAR[n] fields decode with trailing blanks/NULs stripped and re-encode blank-padded (latin-1);
  a field that was NUL-padded therefore re-encodes with blanks.  Every real byte string we have is
  blank-padded.  Fields that hold binary data or may be NUL-filled (LUW id, MsgToken, reconnection
  area, CAUT password, ConnTag) are kept as ``bytes``.

JSON
----
``jsonview.to_json`` works on every class here.  FAP-only enumerations have no family in
``constants``, so classes declare ``_fap_names: ClassVar[dict[str, Callable]]`` (field -> function
returning a name or a list of flag names) and :func:`to_json` in this module adds
``"<Field>_name"`` entries next to ``jsonview``'s output (recursively).
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Optional

from . import constants as C
from . import errors, jsonview
from .encoding import BIG, LITTLE, decode_char, encode_char

# ---------------------------------------------------------------------------------------------
# Name tables (section 5.1, 5.2, 6.2, 9, 21, 25)
# ---------------------------------------------------------------------------------------------

# Segment types (5.1).  A reply type is the request type | REPLY.
INITIAL_DATA = 0x01
RESYNC_DATA = 0x02
RESET_DATA = 0x03
MESSAGE_DATA = 0x04
STATUS_DATA = 0x05
SECURITY_DATA = 0x06
PING_DATA = 0x07
USERID_DATA = 0x08
HEARTBEAT = 0x09
CONAUTH_INFO = 0x0A
RENEGOTIATE_DATA = 0x0B
SOCKET_ACTION = 0x0C
ASYNC_MESSAGE = 0x0D
REQUEST_MSGS = 0x0E
NOTIFICATION = 0x0F
MQCONN = 0x81
MQDISC = 0x82
MQOPEN = 0x83
MQCLOSE = 0x84
MQGET = 0x85
MQPUT = 0x86
MQPUT1 = 0x87
MQSET = 0x88
MQINQ = 0x89
MQCMIT = 0x8A
MQBACK = 0x8B
SPI = 0x8C
MQSTAT = 0x8D
MQSUB = 0x8E
MQSUBRQ = 0x8F
XA_START = 0xA1
XA_END = 0xA2
XA_OPEN = 0xA3
XA_CLOSE = 0xA4
XA_PREPARE = 0xA5
XA_COMMIT = 0xA6
XA_ROLLBACK = 0xA7
XA_FORGET = 0xA8
XA_RECOVER = 0xA9
XA_COMPLETE = 0xAA
REPLY = 0x10

MQCONN_REPLY = MQCONN | REPLY
MQDISC_REPLY = MQDISC | REPLY
MQOPEN_REPLY = MQOPEN | REPLY
MQCLOSE_REPLY = MQCLOSE | REPLY
MQGET_REPLY = MQGET | REPLY
MQPUT_REPLY = MQPUT | REPLY
MQPUT1_REPLY = MQPUT1 | REPLY
MQSET_REPLY = MQSET | REPLY
MQINQ_REPLY = MQINQ | REPLY
MQCMIT_REPLY = MQCMIT | REPLY
MQBACK_REPLY = MQBACK | REPLY
SPI_REPLY = SPI | REPLY
MQSTAT_REPLY = MQSTAT | REPLY
MQSUB_REPLY = MQSUB | REPLY
MQSUBRQ_REPLY = MQSUBRQ | REPLY

_BASE_TYPES = {
    0x01: "INITIAL_DATA", 0x02: "RESYNC_DATA", 0x03: "RESET_DATA", 0x04: "MESSAGE_DATA",
    0x05: "STATUS_DATA", 0x06: "SECURITY_DATA", 0x07: "PING_DATA", 0x08: "USERID_DATA",
    0x09: "HEARTBEAT", 0x0A: "CONAUTH_INFO", 0x0B: "RENEGOTIATE_DATA", 0x0C: "SOCKET_ACTION",
    0x0D: "ASYNC_MESSAGE", 0x0E: "REQUEST_MSGS", 0x0F: "NOTIFICATION",
}
_MQI_TYPES = {
    0x81: "MQCONN", 0x82: "MQDISC", 0x83: "MQOPEN", 0x84: "MQCLOSE", 0x85: "MQGET", 0x86: "MQPUT",
    0x87: "MQPUT1", 0x88: "MQSET", 0x89: "MQINQ", 0x8A: "MQCMIT", 0x8B: "MQBACK", 0x8C: "SPI",
    0x8D: "MQSTAT", 0x8E: "MQSUB", 0x8F: "MQSUBRQ",
    0xA1: "XA_START", 0xA2: "XA_END", 0xA3: "XA_OPEN", 0xA4: "XA_CLOSE", 0xA5: "XA_PREPARE",
    0xA6: "XA_COMMIT", 0xA7: "XA_ROLLBACK", 0xA8: "XA_FORGET", 0xA9: "XA_RECOVER",
    0xAA: "XA_COMPLETE",
}
SEGMENT_TYPE_NAMES: dict[int, str] = dict(_BASE_TYPES)
for _t, _n in _MQI_TYPES.items():
    SEGMENT_TYPE_NAMES[_t] = _n
    SEGMENT_TYPE_NAMES[_t | REPLY] = _n + "_REPLY"
del _t, _n


def segment_type_name(value: int) -> Optional[str]:
    return SEGMENT_TYPE_NAMES.get(value)


def is_mqi_type(segment_type: int) -> bool:
    """MQI calls and replies (0x81-0x9F, 0xA1-0xBA): the types that carry an API header and may
    span several segments (5.3)."""
    return segment_type >= 0x80


def check_segment_type(segment_type: int) -> None:
    """CodecError(STATUS 10 PROTOCOL_SEGMENT_TYPE) for a type with no name in 5.1."""
    if segment_type not in SEGMENT_TYPE_NAMES:
        raise errors.CodecError(PROTOCOL_SEGMENT_TYPE, family=errors.STATUS,
                                detail=f"unknown segment type 0x{segment_type:02x}")


# ControlFlags1 / ControlFlags2 (5.2)
CF1_CONFIRM_REQUEST = 0x01
CF1_ERROR = 0x02
CF1_REQUEST_CLOSE = 0x04
CF1_CLOSE_CHANNEL = 0x08
CF1_FIRST = 0x10
CF1_LAST = 0x20
CF1_REQUEST_ACCEPTED = 0x40
CF1_DLQ_USED = 0x80
CF2_HDRCOMP = 0x01
CF2_MSGCOMP = 0x02
CF2_CSH = 0x04
CF2_CMIT_INTERVAL = 0x08

CONTROL_FLAGS1_NAMES = {
    0x01: "CONFIRM_REQUEST", 0x02: "ERROR", 0x04: "REQUEST_CLOSE", 0x08: "CLOSE_CHANNEL",
    0x10: "FIRST", 0x20: "LAST", 0x40: "REQUEST_ACCEPTED", 0x80: "DLQ_USED",
}
CONTROL_FLAGS2_NAMES = {0x01: "HDRCOMP", 0x02: "MSGCOMP", 0x04: "CSH", 0x08: "CMIT_INTERVAL"}

# ID flag bytes (6.2).  The E-variants use the same names as the CapFlags byte they mirror.
CAP_FLAGS1_NAMES = {
    0x01: "MSG_SEQ", 0x02: "CONVERSION_CAPABLE", 0x04: "SPLIT_MESSAGES", 0x08: "REQUEST_INITIATION",
    0x10: "REQUEST_SECURITY", 0x20: "MQREQUEST", 0x40: "SVRCONN_SECURITY", 0x80: "RUNTIME_APP",
}
CAP_FLAGS2_NAMES = {
    0x01: "DIST_LIST_CAPABLE", 0x02: "FAST_MESSAGES_REQUIRED", 0x04: "RESPONDER_CONVERSION",
    0x08: "DUAL_UOW", 0x10: "XAREQUEST", 0x20: "XARUNTIME_APP", 0x40: "SPIREQUEST",
    0x80: "TRACE_ROUTE_CAPABLE",
}
CAP_FLAGS3_NAMES = {
    0x01: "MSG_PROP_CAPABLE", 0x02: "MULTICAST_CAPABLE", 0x04: "MSG_PROP_INT_SEPARATE",
    0x08: "MULTIPLEX_SYNCGET", 0x10: "PROT_ALGORITHMS", 0x20: "GEN_CONNTAG_CAP",
}
INI_ERR_FLAGS1_NAMES = {
    0x01: "CCSID_NOT_SUPPORTED", 0x02: "ENCODING_INVALID", 0x04: "MAX_TRANSMISSION_SIZE",
    0x08: "FAP_LEVEL", 0x10: "MAX_MSG_SIZE", 0x20: "MAX_MSG_PER_BATCH", 0x40: "SEQ_WRAP_VALUE",
    0x80: "HEARTBEAT_INTERVAL",
}
INI_ERR_FLAGS2_NAMES = {0x01: "HDRCOMPLIST", 0x02: "MSGCOMPLIST", 0x04: "SSL_RESET"}

CF3_MULTIPLEX_SYNCGET = 0x08
IEF1_CCSID_NOT_SUPPORTED = 0x01
IEF1_ENCODING_INVALID = 0x02
IEF1_MAX_TRANSMISSION_SIZE = 0x04
IEF1_FAP_LEVEL = 0x08
IEF1_MAX_MSG_SIZE = 0x10
IEF1_MAX_MSG_PER_BATCH = 0x20
IEF1_SEQ_WRAP_VALUE = 0x40
IEF1_HEARTBEAT_INTERVAL = 0x80

# STATUS codes (9); names shared with errors.status_name.
NO_CHANNEL = 1
CHANNEL_WRONG_TYPE = 2
QM_UNAVAILABLE = 3
MSG_SEQUENCE_ERROR = 4
QM_TERMINATING = 5
CAN_NOT_STORE = 6
USER_CLOSED = 7
TIMEOUT_EXPIRED = 8
TARGET_Q_UNKNOWN = 9
PROTOCOL_SEGMENT_TYPE = 10
PROTOCOL_LENGTH_ERROR = 11
PROTOCOL_INVALID_DATA = 12
PROTOCOL_SEGMENT_ERROR = 13
PROTOCOL_ID_ERROR = 14
PROTOCOL_MSH_ERROR = 15
PROTOCOL_GENERAL = 16
BATCH_FAILURE = 17
MESSAGE_LENGTH_ERROR = 18
SEGMENT_NUMBER_ERROR = 19
SECURITY_FAILURE = 20
WRAP_VALUE_ERROR = 21
CHANNEL_UNAVAILABLE = 22
CLOSED_BY_EXIT = 23
CIPHER_SPEC = 24
PEER_NAME = 25
SSL_CLIENT_CERTIFICATE = 26
RMT_RSRCS_IN_RECOVERY = 27
SSL_REFRESHING = 28
INVALID_HOBJ = 29
CONV_ID_ERROR = 30
SOCKET_ACTION_TYPE = 31
STANDBY_Q_MGR = 32
PASSWORD_PROTECTION = 36
MAX_CONNS_LIMIT_REACHED = 37
CCSID_NOT_SUPPORTED = 0xF0
ENCODING_INVALID = 0xF1
FAP_LEVEL = 0xF2
NEGOTIATION_FAILED = 0xF3

STATUS_NAMES: dict[int, str] = {
    code: errors.status_name(code)
    for code in (*range(1, 33), 36, 37, 0xF0, 0xF1, 0xF2, 0xF3)
}


def status_code_name(code: int) -> Optional[str]:
    return STATUS_NAMES.get(code)


# SOCKET_ACTION types (21)
SA_START_CONV = 1
SA_END_CONV = 2
SA_STOP_QUIESCE = 3
SA_PAUSE_DATA_SENDS = 4
SA_DATA_SENDS_PAUSED = 5
SA_RESUME_DATA_SENDS = 6
SA_QM_QUIESCE = 7
SA_ACCEPT_CONV = 8
SA_RECONNECT_CLIENTS = 9
SOCKET_ACTION_NAMES = {
    1: "START_CONV", 2: "END_CONV", 3: "STOP_QUIESCE", 4: "PAUSE_DATA_SENDS",
    5: "DATA_SENDS_PAUSED", 6: "RESUME_DATA_SENDS", 7: "QM_QUIESCE", 8: "ACCEPT_CONV",
    9: "RECONNECT_CLIENTS",
}

# NOTIFICATION codes (25)
NOTIFICATION_NAMES = {
    1: "GET_INHIBITED", 2: "GET_ALLOWED", 3: "CONN_STATE", 4: "CONN_STATE_REPLY", 5: "Q_STATE",
    6: "Q_STATE_REPLY", 7: "QM_QUIESCING", 8: "TXN_ALLOWED", 9: "TXN_REVOKE",
    10: "TXN_REVOKE_REPLY", 11: "CHECK_MSG", 12: "BROWSE_FIRST", 13: "MESSAGE_TOO_LARGE",
    14: "STREAMING_FAILURE", 15: "CLIENT_ASYNC_EMPTY", 16: "STREAMING_TXN_PAUSED",
    17: "RECONNECTION_COMPLETE",
}
NOTIFY_CHECK_MSG = 11

# REQUEST_MSGS RequestFlags (23)
RMF_TXN_ALLOWED = 0x01
RMF_CHECK_MSG = 0x02
RMF_STOP_CONSUME = 0x04
RMF_MQGET_WAITING = 0x08
RMF_SET_SELECTION = 0x10
REQUEST_FLAGS_NAMES = {
    0x01: "TXN_ALLOWED", 0x02: "CHECK_MSG", 0x04: "STOP_CONSUME", 0x08: "MQGET_WAITING",
    0x10: "SET_SELECTION",
}


def flag_names(value: int, table: dict[int, str]) -> list[str]:
    """Names of the bits set in ``value``; unnamed bits appear as ``"0x.."``."""
    out = []
    bit = 1
    while bit <= value:
        if value & bit:
            out.append(table.get(bit, f"0x{bit:02x}"))
        bit <<= 1
    return out


def _flags(table: dict[int, str]) -> Callable[[int], list[str]]:
    return lambda v: flag_names(v, table)


def _named(table: dict[int, str]) -> Callable[[int], Optional[str]]:
    return table.get


def to_json(value: Any) -> Any:
    """``jsonview.to_json`` plus ``"<Field>_name"`` entries declared by ``_fap_names``."""
    out = jsonview.to_json(value)
    _annotate(value, out)
    return out


def _annotate(value: Any, out: Any) -> None:
    if isinstance(value, (list, tuple)) and isinstance(out, list):
        for v, o in zip(value, out):
            _annotate(v, o)
        return
    if not dataclasses.is_dataclass(value) or isinstance(value, type) or not isinstance(out, dict):
        return
    namers: dict = getattr(type(value), "_fap_names", {})
    for f in dataclasses.fields(value):
        if f.name.startswith("_"):
            continue
        _annotate(getattr(value, f.name), out.get(f.name))
    if namers:
        rebuilt: dict = {}
        for key, v in out.items():
            rebuilt[key] = v
            fn = namers.get(key)
            if fn is not None and isinstance(v, int):
                rebuilt[key + "_name"] = fn(v)
        out.clear()
        out.update(rebuilt)


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------

def _err(code: int, detail: str, offset: Optional[int] = None) -> errors.CodecError:
    return errors.CodecError(code, family=errors.STATUS, offset=offset, detail=detail)


_STRUCTS: dict[str, struct.Struct] = {}


def _S(fmt: str) -> struct.Struct:
    s = _STRUCTS.get(fmt)
    if s is None:
        s = _STRUCTS[fmt] = struct.Struct(fmt)
    return s


def _pair(fmt: str) -> dict[str, struct.Struct]:
    return {BIG: _S(">" + fmt), LITTLE: _S("<" + fmt)}


def _need(end: int, offset: int, n: int, what: str, code: int = PROTOCOL_LENGTH_ERROR) -> None:
    if offset + n > end:
        raise _err(code, f"{what}: needs {n} bytes, {max(end - offset, 0)} present", offset)


def _end(buf, end: Optional[int]) -> int:
    n = len(buf)
    if end is None or end > n:
        return n
    return end


def _check_order(order: str) -> None:
    if order not in (BIG, LITTLE):
        raise ValueError(f"order must be '>' or '<', not {order!r}")


def _char(buf, offset: int, n: int) -> str:
    return decode_char(bytes(buf[offset:offset + n]))


# ---------------------------------------------------------------------------------------------
# Segment header (3)
# ---------------------------------------------------------------------------------------------

TSH = "TSH "
TSHC = "TSHC"
TSHM = "TSHM"
TSH_LENGTH = 28
TSHM_LENGTH = 36
_STRUCT_IDS = {b"TSH ": TSH, b"TSHC": TSHC, b"TSHM": TSHM}
_STRUCT_ID_BYTES = {v: k for k, v in _STRUCT_IDS.items()}
EBCDIC_STRUCT_IDS = (b"\xe3\xe2\xc8\x40", b"\xe3\xe2\xc8\xc3", b"\xe3\xe2\xc8\xd4")

_PREFIX = struct.Struct(">4sI")          # StructId, SegmentLength
_CONVREQ = struct.Struct(">II")          # TSHM ConversationId, RequestId
_TAIL = {BIG: struct.Struct(">BBBB8sIHH"), LITTLE: struct.Struct("<BBBB8sIHH")}
_TSH_BE = struct.Struct(">4sIBBBB8sIHH")
_TSHM_BE = struct.Struct(">4sIIIBBBB8sIHH")
_LEN_CONV_REQ = struct.Struct(">III")
_ZERO_LUW = bytes(8)


def check_struct_id(raw: bytes, offset: Optional[int] = None) -> None:
    """CodecError unless ``raw`` (1..4 bytes) is a prefix of ``TSH ``/``TSHC``/``TSHM``."""
    n = len(raw)
    if n >= 4:
        if raw[:4] in _STRUCT_IDS:
            return
    elif raw == b"TSH"[:n]:
        return
    if n and any(e.startswith(raw[:4]) for e in EBCDIC_STRUCT_IDS):
        raise _err(CCSID_NOT_SUPPORTED, "EBCDIC segment header refused", offset)
    raise _err(PROTOCOL_SEGMENT_ERROR, f"not a segment header: {bytes(raw[:4])!r}", offset)


@dataclass(slots=True)
class SegmentHeader:
    """``TSH ``/``TSHC`` (28 bytes) or ``TSHM`` (36 bytes).  ConversationId/RequestId are 0 on
    TSH/TSHC.  SegmentLength, ConversationId, RequestId are big-endian; the rest in ByteOrder."""

    StructId: str = TSHM
    SegmentLength: int = 0
    ConversationId: int = 0
    RequestId: int = 0
    ByteOrder: int = 2
    SegmentType: int = 0
    ControlFlags1: int = 0
    ControlFlags2: int = 0
    LUWIdent: bytes = _ZERO_LUW
    Encoding: int = 0x222
    CCSID: int = 819
    Reserved: int = 0

    _json_type: ClassVar[str] = "TSH"
    _fap_names: ClassVar[dict] = {
        "SegmentType": _named(SEGMENT_TYPE_NAMES),
        "ControlFlags1": _flags(CONTROL_FLAGS1_NAMES),
        "ControlFlags2": _flags(CONTROL_FLAGS2_NAMES),
    }

    @property
    def header_length(self) -> int:
        return TSHM_LENGTH if self.StructId == TSHM else TSH_LENGTH

    @property
    def order(self) -> str:
        return BIG if self.ByteOrder == 1 else LITTLE

    @property
    def body_length(self) -> int:
        return self.SegmentLength - self.header_length

    @property
    def is_first(self) -> bool:
        return bool(self.ControlFlags1 & CF1_FIRST)

    @property
    def is_last(self) -> bool:
        return bool(self.ControlFlags1 & CF1_LAST)

    @classmethod
    def unpack(cls, buf, offset: int = 0, end: Optional[int] = None) -> tuple["SegmentHeader", int]:
        """Decode a header; checks StructId, ByteOrder and that SegmentLength >= header length.
        (Whether the body is present is the caller's business: see :func:`decode_segment`.)"""
        end = _end(buf, end)
        if offset + 8 > end:
            check_struct_id(bytes(buf[offset:end]), offset)
            raise _err(PROTOCOL_LENGTH_ERROR, "segment header truncated", offset)
        sid, seglen = _PREFIX.unpack_from(buf, offset)
        name = _STRUCT_IDS.get(sid)
        if name is None:
            check_struct_id(sid, offset)
        if name == TSHM:
            hl = TSHM_LENGTH
            if offset + hl > end:
                raise _err(PROTOCOL_LENGTH_ERROR, "segment header truncated", offset)
            conv, req = _CONVREQ.unpack_from(buf, offset + 8)
            p = offset + 16
        else:
            hl = TSH_LENGTH
            if offset + hl > end:
                raise _err(PROTOCOL_LENGTH_ERROR, "segment header truncated", offset)
            conv = req = 0
            p = offset + 8
        if seglen < hl:
            raise _err(PROTOCOL_LENGTH_ERROR, f"SegmentLength {seglen} < header {hl}", offset + 4)
        bo = buf[p]
        if bo == 2:
            t = _TAIL[LITTLE].unpack_from(buf, p)
        elif bo == 1:
            t = _TAIL[BIG].unpack_from(buf, p)
        else:
            raise _err(ENCODING_INVALID, f"ByteOrder {bo} is neither 1 nor 2", p)
        return cls(name, seglen, conv, req, *t), offset + hl

    def pack(self) -> bytes:
        sid = _STRUCT_ID_BYTES.get(self.StructId)
        if sid is None:
            raise ValueError(f"StructId must be one of {list(_STRUCT_ID_BYTES)}")
        if self.ByteOrder not in (1, 2):
            raise ValueError("ByteOrder must be 1 or 2")
        tail = _TAIL[self.order].pack(self.ByteOrder, self.SegmentType, self.ControlFlags1,
                                      self.ControlFlags2, self.LUWIdent, self.Encoding,
                                      self.CCSID, self.Reserved)
        if sid == b"TSHM":
            return (_PREFIX.pack(sid, self.SegmentLength)
                    + _CONVREQ.pack(self.ConversationId, self.RequestId) + tail)
        return _PREFIX.pack(sid, self.SegmentLength) + tail

    def copy(self, **changes) -> "SegmentHeader":
        return dataclasses.replace(self, **changes)


def decode_header(buf, offset: int = 0) -> SegmentHeader:
    """Fast path used by the framer: decode a header whose bytes are known to be present and
    whose StructId/SegmentLength were already checked."""
    sid = bytes(buf[offset:offset + 4])
    if sid == b"TSHM":
        bo = buf[offset + 16]
        if bo == 1:
            t = _TSHM_BE.unpack_from(buf, offset)
            return SegmentHeader(TSHM, *t[1:])
        if bo == 2:
            seglen, conv, req = _LEN_CONV_REQ.unpack_from(buf, offset + 4)
            return SegmentHeader(TSHM, seglen, conv, req, *_TAIL[LITTLE].unpack_from(buf, offset + 16))
        raise _err(ENCODING_INVALID, f"ByteOrder {bo} is neither 1 nor 2", offset + 16)
    return SegmentHeader.unpack(buf, offset)[0]


# ---------------------------------------------------------------------------------------------
# Segment
# ---------------------------------------------------------------------------------------------

@dataclass(slots=True)
class Segment:
    """One framed segment: its header and the body bytes after the header."""

    header: SegmentHeader
    body: bytes

    @property
    def segment_type(self) -> int:
        return self.header.SegmentType

    @property
    def order(self) -> str:
        return self.header.order

    def encode(self) -> bytes:
        """Bytes of the segment; SegmentLength is recomputed from the body."""
        h = self.header
        length = h.header_length + len(self.body)
        if h.SegmentLength != length:
            h = h.copy(SegmentLength=length)
        return h.pack() + self.body

    def decode_body(self, **kw) -> Any:
        return decode_body(self, **kw)


def decode_segment(data, offset: int = 0, end: Optional[int] = None) -> Segment:
    """One complete segment from ``data[offset:end]``; SegmentLength must equal that length."""
    end = _end(data, end)
    header, p = SegmentHeader.unpack(data, offset, end)
    if offset + header.SegmentLength != end:
        raise _err(PROTOCOL_LENGTH_ERROR,
                   f"SegmentLength {header.SegmentLength} but {end - offset} bytes", offset + 4)
    return Segment(header, bytes(data[p:end]))


def encode_segment(segment_type: int, body: bytes = b"", *, struct_id: str = TSHM,
                   conversation_id: int = 0, request_id: int = 0, byte_order: int = 2,
                   control_flags1: int = CF1_FIRST | CF1_LAST, control_flags2: int = 0,
                   luw: bytes = _ZERO_LUW, encoding: Optional[int] = None, ccsid: int = 819,
                   reserved: int = 0) -> bytes:
    """A whole segment.  SegmentLength is computed; Encoding defaults to 546 (LE) / 273 (BE)."""
    if struct_id != TSHM and (conversation_id or request_id):
        raise ValueError("ConversationId/RequestId need a TSHM header")
    if encoding is None:
        encoding = 0x222 if byte_order == 2 else 0x111
    hl = TSHM_LENGTH if struct_id == TSHM else TSH_LENGTH
    header = SegmentHeader(struct_id, hl + len(body), conversation_id, request_id, byte_order,
                           segment_type, control_flags1, control_flags2, luw, encoding, ccsid,
                           reserved)
    return header.pack() + bytes(body)


def reply_header(request: SegmentHeader, segment_type: Optional[int] = None, *,
                 control_flags1: int = CF1_FIRST | CF1_LAST, byte_order: int = 2,
                 encoding: int = 0x222, ccsid: int = 819) -> SegmentHeader:
    """Header template for a reply to ``request``: same StructId, ConversationId and RequestId;
    type = request type | REPLY for MQI calls (unchanged otherwise); the server's own byte order,
    Encoding and CCSID (4: the real server answers in its own order).  SegmentLength 0: the
    encoder fills it in."""
    if segment_type is None:
        t = request.SegmentType
        segment_type = t | REPLY if is_mqi_type(t) else t
    return SegmentHeader(request.StructId, 0, request.ConversationId, request.RequestId,
                         byte_order, segment_type, control_flags1, 0, _ZERO_LUW, encoding, ccsid, 0)


# ---------------------------------------------------------------------------------------------
# INITIAL_DATA (6)
# ---------------------------------------------------------------------------------------------

def id_length_for_fap(fap_level: int) -> int:
    """ID structure length written at a FAP level (6.1 table)."""
    if fap_level <= 2:
        return 44
    if fap_level == 3:
        return 48
    if fap_level <= 8:
        return 128
    if fap_level == 9:
        return 160
    if fap_level <= 12:
        return 208
    return 240


ID_MAX_LENGTH = 240
_ID_EYE = b"ID  "

# (name, offset, struct format) in layout order; a field is decoded when it ends within the body.
_ID_LAYOUT: list[tuple[str, int, str]] = [
    ("FapLevel", 4, "B"), ("CapFlags1", 5, "B"), ("ECapFlags1", 6, "B"), ("IniErrFlags1", 7, "B"),
    ("Reserved1", 8, "H"), ("MaxMsgsPerBatch", 10, "H"), ("MaxTransmissionSize", 12, "I"),
    ("MaxMessageSize", 16, "I"), ("SequenceWrapValue", 20, "I"), ("ChannelName", 24, "20s"),
    ("CapFlags2", 44, "B"), ("ECapFlags2", 45, "B"), ("CCSID", 46, "H"), ("QMgrName", 48, "48s"),
    ("HeartbeatInterval", 96, "I"), ("EFLLength", 100, "H"), ("IniErrFlags2", 102, "B"),
    ("Reserved2", 103, "B"), ("HdrCompList", 104, "2s"), ("MsgCompList", 106, "16s"),
    ("Reserved3", 122, "H"), ("SSLKeyResetCount", 124, "I"), ("SharingConversations", 128, "I"),
    ("CapFlags3", 132, "B"), ("ECapFlags3", 133, "B"), ("Reserved4", 134, "H"),
    ("ProcessId", 136, "I"), ("ThreadId", 140, "I"), ("TraceId", 144, "I"),
    ("ProductId", 148, "12s"), ("QMgrId", 160, "48s"), ("PAL", 208, "10H"), ("R", 228, "12s"),
]
_ID_CHAR = {"ChannelName": 20, "QMgrName": 48, "ProductId": 12, "QMgrId": 48}
# Pre-compiled: for each body length boundary, the struct covering all fields that end by then.
_ID_ENDS = sorted({off + _S(">" + fmt).size for _, off, fmt in _ID_LAYOUT})


def _id_struct(order: str, upto: int) -> tuple[struct.Struct, list[str]]:
    key = (order, upto)
    hit = _ID_CACHE.get(key)
    if hit is None:
        fmt, names, pos = order + "4s", [], 4
        for name, off, f in _ID_LAYOUT:
            size = _S(">" + f).size
            if off + size > upto:
                break
            assert off == pos
            fmt += f
            names.append(name)
            pos = off + size
        hit = _ID_CACHE[key] = (struct.Struct(fmt), names)
    return hit


_ID_CACHE: dict = {}


@dataclass(slots=True)
class InitialData:
    """INITIAL_DATA (``ID  ``), 6.1.  Fields absent at the decoded length keep their defaults;
    bytes after the last whole field (beyond 240, or a partial field) are kept in ``Trailer``."""

    FapLevel: int = 13
    CapFlags1: int = 0
    ECapFlags1: int = 0
    IniErrFlags1: int = 0
    Reserved1: int = 0
    MaxMsgsPerBatch: int = 0
    MaxTransmissionSize: int = 0
    MaxMessageSize: int = 0
    SequenceWrapValue: int = 0
    ChannelName: str = ""
    CapFlags2: int = 0
    ECapFlags2: int = 0
    CCSID: int = 0
    QMgrName: str = ""
    HeartbeatInterval: int = 0
    EFLLength: int = 0
    IniErrFlags2: int = 0
    Reserved2: int = 0
    HdrCompList: bytes = bytes(2)
    MsgCompList: bytes = bytes(16)
    Reserved3: int = 0
    SSLKeyResetCount: int = 0
    SharingConversations: int = 0
    CapFlags3: int = 0
    ECapFlags3: int = 0
    Reserved4: int = 0
    ProcessId: int = 0
    ThreadId: int = 0
    TraceId: int = 0
    ProductId: str = ""
    QMgrId: str = ""
    PAL: list = field(default_factory=lambda: [0] * 10)
    R: bytes = bytes(12)
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "ID"
    _fap_names: ClassVar[dict] = {
        "CapFlags1": _flags(CAP_FLAGS1_NAMES), "ECapFlags1": _flags(CAP_FLAGS1_NAMES),
        "IniErrFlags1": _flags(INI_ERR_FLAGS1_NAMES), "CapFlags2": _flags(CAP_FLAGS2_NAMES),
        "ECapFlags2": _flags(CAP_FLAGS2_NAMES), "IniErrFlags2": _flags(INI_ERR_FLAGS2_NAMES),
        "CapFlags3": _flags(CAP_FLAGS3_NAMES), "ECapFlags3": _flags(CAP_FLAGS3_NAMES),
    }

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["InitialData", int]:
        end = _end(buf, end)
        n = end - offset
        if n < 44:
            raise _err(PROTOCOL_ID_ERROR, f"ID body of {max(n, 0)} bytes (minimum 44)", offset)
        if bytes(buf[offset:offset + 4]) != _ID_EYE:
            raise _err(PROTOCOL_ID_ERROR, "ID StructId is not 'ID  '", offset)
        upto = 4
        for e in _ID_ENDS:
            if e <= n:
                upto = e
        s, names = _id_struct(order, upto)
        values = s.unpack_from(buf, offset)
        obj = cls()
        i = 1
        for name in names:
            if name == "PAL":
                obj.PAL = list(values[i:i + 10])
                i += 10
                continue
            v = values[i]
            i += 1
            if name in _ID_CHAR:
                v = decode_char(v)
            setattr(obj, name, v)
        obj.Trailer = bytes(buf[offset + upto:end])
        return obj, end

    def pack(self, order: str = BIG, length: Optional[int] = None) -> bytes:
        """``length`` = bytes of fields to write (default: the length for FapLevel, 6.1); fields
        ending beyond it are left out; ``Trailer`` is appended."""
        _check_order(order)
        if length is None:
            length = id_length_for_fap(self.FapLevel)
        length = min(length, ID_MAX_LENGTH)
        upto = 4
        for e in _ID_ENDS:
            if e <= length:
                upto = e
        s, names = _id_struct(order, upto)
        values: list = [_ID_EYE]
        for name in names:
            v = getattr(self, name)
            if name == "PAL":
                pal = list(v)
                if len(pal) != 10:
                    raise ValueError("PAL must have 10 entries")
                values.extend(pal)
                continue
            if name in _ID_CHAR:
                v = encode_char(v, _ID_CHAR[name])
            values.append(v)
        out = s.pack(*values)
        if upto < length:
            out += bytes(length - upto)
        return out + self.Trailer


# ---------------------------------------------------------------------------------------------
# USERID_DATA (7)
# ---------------------------------------------------------------------------------------------

_UID_EYE = b"UID "


@dataclass(slots=True)
class UserIdData:
    """USERID_DATA (``UID ``), 28 or 132 bytes.  LongUserId/UserSecurityId are None in a 28-byte
    UID; other lengths >= 28 are accepted, the bytes after the last whole part in ``Trailer``."""

    UserIdentifier: str = ""
    Password: str = ""
    LongUserId: Optional[str] = None
    UserSecurityId: Optional[bytes] = None
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "UID"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["UserIdData", int]:
        end = _end(buf, end)
        _need(end, offset, 28, "UID")
        if bytes(buf[offset:offset + 4]) != _UID_EYE:
            raise _err(PROTOCOL_INVALID_DATA, "UID StructId is not 'UID '", offset)
        obj = cls(_char(buf, offset + 4, 12), _char(buf, offset + 16, 12))
        p = offset + 28
        if end - offset >= 132:
            obj.LongUserId = _char(buf, p, 64)
            obj.UserSecurityId = bytes(buf[p + 64:p + 104])
            p += 104
        obj.Trailer = bytes(buf[p:end])
        return obj, end

    def pack(self, order: str = BIG) -> bytes:
        out = _UID_EYE + encode_char(self.UserIdentifier, 12) + encode_char(self.Password, 12)
        if self.LongUserId is not None or self.UserSecurityId is not None:
            sec = self.UserSecurityId if self.UserSecurityId is not None else bytes(40)
            if len(sec) != 40:
                raise ValueError("UserSecurityId must be 40 bytes")
            out += encode_char(self.LongUserId or "", 64) + sec
        return out + self.Trailer


# ---------------------------------------------------------------------------------------------
# CONAUTH_INFO (8)
# ---------------------------------------------------------------------------------------------

_CAUT_EYE = b"CAUT"
_CAUT = _pair("iiiII")


@dataclass(slots=True)
class ConAuthInfo:
    """CONAUTH_INFO (``CAUT``).  UserIdLength/PasswordLength are computed on pack; the password
    is bytes (clear text or protected, 8)."""

    AuthenticationType: int = 1
    UserIdMaxLength: int = 0
    PasswordMaxLength: int = 0
    UserId: str = ""
    Password: bytes = b""
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "CAUT"

    @property
    def UserIdLength(self) -> int:
        return len(self.UserId.encode("latin-1", "surrogateescape"))

    @property
    def PasswordLength(self) -> int:
        return len(self.Password)

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["ConAuthInfo", int]:
        end = _end(buf, end)
        _need(end, offset, 24, "CAUT")
        if bytes(buf[offset:offset + 4]) != _CAUT_EYE:
            raise _err(PROTOCOL_INVALID_DATA, "CAUT StructId is not 'CAUT'", offset)
        auth, umax, pmax, ulen, plen = _CAUT[order].unpack_from(buf, offset + 4)
        p = offset + 24
        if ulen > end - p:
            raise _err(PROTOCOL_LENGTH_ERROR, f"UserIdLength {ulen} exceeds the segment", offset + 16)
        if plen > end - p - ulen:
            raise _err(PROTOCOL_LENGTH_ERROR, f"PasswordLength {plen} exceeds the segment",
                       offset + 20)
        user = bytes(buf[p:p + ulen]).decode("latin-1")
        pw = bytes(buf[p + ulen:p + ulen + plen])
        return cls(auth, umax, pmax, user, pw, bytes(buf[p + ulen + plen:end])), end

    def pack(self, order: str = BIG) -> bytes:
        user = self.UserId.encode("latin-1", "surrogateescape")
        return (_CAUT_EYE + _CAUT[order].pack(self.AuthenticationType, self.UserIdMaxLength,
                                              self.PasswordMaxLength, len(user), len(self.Password))
                + user + self.Password + self.Trailer)


# ---------------------------------------------------------------------------------------------
# STATUS_DATA (9)
# ---------------------------------------------------------------------------------------------

_II = _pair("II")
_I = _pair("I")
_i = _pair("i")


@dataclass(slots=True)
class StatusData:
    """STATUS body ("ESH"): ErrorDataLength (covers the whole error data, itself included),
    ReturnCode, and Value when ErrorDataLength >= 12.  Bytes after the decoded integers are kept
    in ``Trailer``.  ErrorDataLength None = computed (8 or 12, + len(Trailer))."""

    ErrorDataLength: Optional[int] = None
    ReturnCode: int = 0
    Value: Optional[int] = None
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "ESH"
    _fap_names: ClassVar[dict] = {"ReturnCode": _named(STATUS_NAMES)}

    def __post_init__(self) -> None:
        if self.ErrorDataLength is None:
            self.ErrorDataLength = (8 if self.Value is None else 12) + len(self.Trailer)

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["StatusData", int]:
        end = _end(buf, end)
        _need(end, offset, 8, "STATUS data")
        edl, rc = _II[order].unpack_from(buf, offset)
        if edl < 8 or edl > end - offset:
            raise _err(PROTOCOL_LENGTH_ERROR,
                       f"ErrorDataLength {edl} outside 8..{end - offset}", offset)
        p = offset + 8
        value = None
        if edl >= 12:
            value = _I[order].unpack_from(buf, p)[0]
            p += 4
        return cls(edl, rc, value, bytes(buf[p:end])), end

    def pack(self, order: str = BIG) -> bytes:
        out = _II[order].pack(self.ErrorDataLength, self.ReturnCode)
        if self.Value is not None:
            out += _I[order].pack(self.Value)
        return out + self.Trailer


# ---------------------------------------------------------------------------------------------
# API header (10)
# ---------------------------------------------------------------------------------------------

API_HEADER_LENGTH = 16
_API_BE = struct.Struct(">Iiii")
_API_LE_TAIL = struct.Struct("<iii")
_BE_U32 = struct.Struct(">I")


@dataclass(slots=True)
class ApiHeader:
    """16 bytes after the segment header of the first segment of every MQI call (10).
    CallLength is big-endian always; CompCode, Reason, Hobj in the segment order."""

    CallLength: int = 0
    CompCode: int = 0
    Reason: int = 0
    Hobj: int = 0

    _json_type: ClassVar[str] = "API"
    _json_names: ClassVar[dict] = {"CompCode": "MQCC", "Reason": "MQRC"}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["ApiHeader", int]:
        end = _end(buf, end)
        _need(end, offset, 16, "API header")
        if order == BIG:
            return cls(*_API_BE.unpack_from(buf, offset)), offset + 16
        return (cls(_BE_U32.unpack_from(buf, offset)[0], *_API_LE_TAIL.unpack_from(buf, offset + 4)),
                offset + 16)

    def pack(self, order: str = BIG) -> bytes:
        if order == BIG:
            return _API_BE.pack(self.CallLength, self.CompCode, self.Reason, self.Hobj)
        _check_order(order)
        return _BE_U32.pack(self.CallLength) + _API_LE_TAIL.pack(self.CompCode, self.Reason, self.Hobj)


# ---------------------------------------------------------------------------------------------
# MQCONN body, FCNO (11)
# ---------------------------------------------------------------------------------------------

_FCNO_EYE = b"FCNO"
FCNO_LENGTHS = {1: 140, 2: 140, 3: 268, 4: 280}
RECONNECT_AREA_LENGTH = 72
MQCONN_FIXED_LENGTH = 120
_FCNO_HEAD = _pair("ii")
_FCNO_V4 = _pair("iii")
_CONN_INTS = _pair("i")
_CONN_OPTS = _pair("ii")


@dataclass(slots=True)
class Fcno:
    """FCNO ("F Connect Options"), 11.2.  ConnTag holds the 128 raw bytes (a reply's
    ConnectionId is its first 24); RetConnTag from v3; the three rebalancing ints from v4."""

    Version: int = 2
    CapabilityFlags: int = 0
    ConnTag: bytes = bytes(128)
    RetConnTag: Optional[bytes] = None
    RebalancingType: Optional[int] = None
    RebalancingTimeout: Optional[int] = None
    RebalancingOptions: Optional[int] = None

    _json_type: ClassVar[str] = "FCNO"

    @property
    def ConnectionId(self) -> bytes:
        return self.ConnTag[:24]

    @property
    def length(self) -> int:
        return FCNO_LENGTHS[self.Version]

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["Fcno", int]:
        """Versions 1-4 (other versions: CodecError 12, sizes unknown)."""
        end = _end(buf, end)
        _need(end, offset, 12, "FCNO")
        if bytes(buf[offset:offset + 4]) != _FCNO_EYE:
            raise _err(PROTOCOL_INVALID_DATA, "FCNO StructId is not 'FCNO'", offset)
        version, caps = _FCNO_HEAD[order].unpack_from(buf, offset + 4)
        size = FCNO_LENGTHS.get(version)
        if size is None:
            raise _err(PROTOCOL_INVALID_DATA, f"FCNO Version {version} unknown", offset + 4)
        _need(end, offset, size, f"FCNO v{version}")
        obj = cls(version, caps, bytes(buf[offset + 12:offset + 140]))
        if version >= 3:
            obj.RetConnTag = bytes(buf[offset + 140:offset + 268])
        if version >= 4:
            obj.RebalancingType, obj.RebalancingTimeout, obj.RebalancingOptions = \
                _FCNO_V4[order].unpack_from(buf, offset + 268)
        return obj, offset + size

    def pack(self, order: str = BIG) -> bytes:
        if self.Version not in FCNO_LENGTHS:
            raise ValueError(f"FCNO Version {self.Version} unknown")
        if len(self.ConnTag) != 128:
            raise ValueError("ConnTag must be 128 bytes")
        out = _FCNO_EYE + _FCNO_HEAD[order].pack(self.Version, self.CapabilityFlags) + self.ConnTag
        if self.Version >= 3:
            tag = self.RetConnTag if self.RetConnTag is not None else bytes(128)
            if len(tag) != 128:
                raise ValueError("RetConnTag must be 128 bytes")
            out += tag
        if self.Version >= 4:
            out += _FCNO_V4[order].pack(self.RebalancingType or 0, self.RebalancingTimeout or 0,
                                        self.RebalancingOptions or 0)
        return out


@dataclass(slots=True)
class MQConnBody:
    """MQCONN request/reply body after the API header (11.1, 11.3): the 120-byte fixed part,
    FCNO when the next bytes are ``FCNO`` (versions 1-4), the 72-byte reconnection area when at
    least 72 bytes follow, and any further bytes raw in ``Trailer``.  Bytes after the fixed part
    that are not an FCNO of a known version are all kept in ``Trailer``."""

    QMgrName: str = ""
    ApplName: str = ""
    ApplType: int = 0
    AccountingToken: bytes = bytes(32)
    Options: int = 0
    XOptions: int = 0
    Fcno: Optional[Fcno] = None
    ReconnectionId: Optional[bytes] = None
    ReconnectionQmId: Optional[bytes] = None
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "MQCONN"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["MQConnBody", int]:
        end = _end(buf, end)
        _need(end, offset, MQCONN_FIXED_LENGTH, "MQCONN")
        obj = cls(_char(buf, offset, 48), _char(buf, offset + 48, 28),
                  _CONN_INTS[order].unpack_from(buf, offset + 76)[0],
                  bytes(buf[offset + 80:offset + 112]),
                  *_CONN_OPTS[order].unpack_from(buf, offset + 112))
        p = offset + MQCONN_FIXED_LENGTH
        if end - p >= 12 and bytes(buf[p:p + 4]) == _FCNO_EYE:
            version = _FCNO_HEAD[order].unpack_from(buf, p + 4)[0]
            if version in FCNO_LENGTHS:
                obj.Fcno, p = Fcno.unpack(buf, p, order, end)
                if end - p >= RECONNECT_AREA_LENGTH:
                    obj.ReconnectionId = bytes(buf[p:p + 24])
                    obj.ReconnectionQmId = bytes(buf[p + 24:p + 72])
                    p += RECONNECT_AREA_LENGTH
        obj.Trailer = bytes(buf[p:end])
        return obj, end

    def pack(self, order: str = BIG) -> bytes:
        if len(self.AccountingToken) != 32:
            raise ValueError("AccountingToken must be 32 bytes")
        out = (encode_char(self.QMgrName, 48) + encode_char(self.ApplName, 28)
               + _CONN_INTS[order].pack(self.ApplType) + self.AccountingToken
               + _CONN_OPTS[order].pack(self.Options, self.XOptions))
        if self.Fcno is not None:
            out += self.Fcno.pack(order)
            if self.ReconnectionId is not None or self.ReconnectionQmId is not None:
                rid = self.ReconnectionId if self.ReconnectionId is not None else bytes(24)
                rq = self.ReconnectionQmId if self.ReconnectionQmId is not None else bytes(48)
                if len(rid) != 24 or len(rq) != 48:
                    raise ValueError("reconnection area must be 24 + 48 bytes")
                out += rid + rq
        return out + self.Trailer


# ---------------------------------------------------------------------------------------------
# SOCKET_ACTION (21)
# ---------------------------------------------------------------------------------------------

_SA = _pair("IIiii")


@dataclass(slots=True)
class SocketAction:
    """SOCKET_ACTION body: 20 bytes, plus QMgrName/QMgrId CHAR[48] when 116 bytes are present."""

    ConversationId: int = 0
    RequestId: int = 0
    Type: int = 0
    Parm1: int = 0
    Parm2: int = 0
    QMgrName: Optional[str] = None
    QMgrId: Optional[str] = None
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "SOCKET_ACTION"
    _fap_names: ClassVar[dict] = {"Type": _named(SOCKET_ACTION_NAMES)}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["SocketAction", int]:
        end = _end(buf, end)
        _need(end, offset, 20, "SOCKET_ACTION")
        obj = cls(*_SA[order].unpack_from(buf, offset))
        p = offset + 20
        if end - p >= 96:
            obj.QMgrName = _char(buf, p, 48)
            obj.QMgrId = _char(buf, p + 48, 48)
            p += 96
        obj.Trailer = bytes(buf[p:end])
        return obj, end

    def pack(self, order: str = BIG) -> bytes:
        out = _SA[order].pack(self.ConversationId, self.RequestId, self.Type, self.Parm1, self.Parm2)
        if self.QMgrName is not None or self.QMgrId is not None:
            out += encode_char(self.QMgrName or "", 48) + encode_char(self.QMgrId or "", 48)
        return out + self.Trailer


# ---------------------------------------------------------------------------------------------
# REQUEST_MSGS (23)
# ---------------------------------------------------------------------------------------------

_RM_FIXED = _pair("10i")
_RM_SEL = _pair("HHiiiii")
# MatchOptions bit -> (field, size), in wire order
_RM_MATCH = ((C.MQMO_MATCH_MSG_ID, "MsgId", 24), (C.MQMO_MATCH_CORREL_ID, "CorrelId", 24),
             (C.MQMO_MATCH_GROUP_ID, "GroupId", 24), (C.MQMO_MATCH_MSG_TOKEN, "MsgToken", 16))


@dataclass(slots=True)
class RequestMsgs:
    """REQUEST_MSGS body (23).  40 bytes; the selection part (SelectionIndex..MatchOptions, to 64
    bytes) when RequestFlags has SET_SELECTION or the body has >= 64 bytes; then MsgId,
    CorrelId, GroupId, MsgToken, each present when its MatchOptions bit is set."""

    Version: int = 1
    Hobj: int = 0
    ReceivedBytes: int = 0
    RequestedBytes: int = 0
    MaxMsgLength: int = 0
    GetMsgOptions: int = 0
    WaitInterval: int = 0
    QueueStatus: int = 0
    RequestFlags: int = 0
    GlobalMessageIndex: int = 0
    SelectionIndex: Optional[int] = None
    MQMDVersion: Optional[int] = None
    CodedCharSetId: Optional[int] = None
    Encoding: Optional[int] = None
    MsgSeqNumber: Optional[int] = None
    Offset: Optional[int] = None
    MatchOptions: Optional[int] = None
    MsgId: Optional[bytes] = None
    CorrelId: Optional[bytes] = None
    GroupId: Optional[bytes] = None
    MsgToken: Optional[bytes] = None
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "REQUEST_MSGS"
    _fap_names: ClassVar[dict] = {"RequestFlags": _flags(REQUEST_FLAGS_NAMES)}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["RequestMsgs", int]:
        end = _end(buf, end)
        _need(end, offset, 40, "REQUEST_MSGS")
        obj = cls(*_RM_FIXED[order].unpack_from(buf, offset))
        p = offset + 40
        if obj.RequestFlags & RMF_SET_SELECTION or end - offset >= 64:
            _need(end, offset, 64, "REQUEST_MSGS selection")
            (obj.SelectionIndex, obj.MQMDVersion, obj.CodedCharSetId, obj.Encoding,
             obj.MsgSeqNumber, obj.Offset, obj.MatchOptions) = _RM_SEL[order].unpack_from(buf, p)
            p += 24
            for bit, name, size in _RM_MATCH:
                if obj.MatchOptions & bit:
                    _need(end, p, size, f"REQUEST_MSGS {name}")
                    setattr(obj, name, bytes(buf[p:p + size]))
                    p += size
        obj.Trailer = bytes(buf[p:end])
        return obj, end

    def pack(self, order: str = BIG) -> bytes:
        out = _RM_FIXED[order].pack(self.Version, self.Hobj, self.ReceivedBytes, self.RequestedBytes,
                                    self.MaxMsgLength, self.GetMsgOptions, self.WaitInterval,
                                    self.QueueStatus, self.RequestFlags, self.GlobalMessageIndex)
        if self.MatchOptions is not None:
            out += _RM_SEL[order].pack(self.SelectionIndex or 0, self.MQMDVersion or 0,
                                       self.CodedCharSetId or 0, self.Encoding or 0,
                                       self.MsgSeqNumber or 0, self.Offset or 0, self.MatchOptions)
            for bit, name, size in _RM_MATCH:
                if self.MatchOptions & bit:
                    v = getattr(self, name)
                    v = bytes(size) if v is None else v
                    if len(v) != size:
                        raise ValueError(f"{name} must be {size} bytes")
                    out += v
        return out + self.Trailer


# ---------------------------------------------------------------------------------------------
# ASYNC_MESSAGE (24)
# ---------------------------------------------------------------------------------------------

_AM_HEAD = _pair("iiiiiHH")        # 24 bytes: present on every segment
_AM_FIRST = _pair("iii16sHB")      # 24..55: first segment only
ASYNC_SHORT_LENGTH = 24


@dataclass(slots=True)
class AsyncMessageHeader:
    """ASYNC_MESSAGE header (24).  The first segment of a message (SegmentIndex 0) has the full
    header: ... MsgToken, Status, ResolvedQNameLength, ResolvedQName, padding to a multiple of 4
    counted from offset 52; later segments (SegmentIndex > 0) only the 24-byte part, and the
    remaining fields are None.  ``unpack`` returns the offset where MQMD v2 (first segment) or
    the message data (later segments) starts."""

    Version: int = 1
    Hobj: int = 0
    MessageIndex: int = 0
    GlobalMessageIndex: int = 0
    SegmentLength: int = 0
    SegmentIndex: int = 0
    SelectionIndex: int = 0
    Reason: Optional[int] = 0
    TotalMsgLength: Optional[int] = 0
    ActualMsgLength: Optional[int] = 0
    MsgToken: Optional[bytes] = bytes(16)
    Status: Optional[int] = 0
    ResolvedQNameLength: Optional[int] = None
    ResolvedQName: Optional[str] = ""

    _json_type: ClassVar[str] = "ASYNC_MESSAGE"
    _json_names: ClassVar[dict] = {"Reason": "MQRC"}

    def __post_init__(self) -> None:
        if self.ResolvedQNameLength is None and self.ResolvedQName is not None:
            self.ResolvedQNameLength = len(self.ResolvedQName.encode("latin-1", "surrogateescape"))

    @property
    def is_first(self) -> bool:
        return self.MsgToken is not None

    @property
    def length(self) -> int:
        if not self.is_first:
            return ASYNC_SHORT_LENGTH
        return 52 + ((3 + (self.ResolvedQNameLength or 0) + 3) & ~3)

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG, end: Optional[int] = None,
               first: Optional[bool] = None) -> tuple["AsyncMessageHeader", int]:
        """``first`` None: full header when SegmentIndex == 0."""
        end = _end(buf, end)
        _need(end, offset, ASYNC_SHORT_LENGTH, "ASYNC_MESSAGE header")
        head = _AM_HEAD[order].unpack_from(buf, offset)
        if first is None:
            first = head[5] == 0
        if not first:
            return cls(*head, None, None, None, None, None, None, None), offset + ASYNC_SHORT_LENGTH
        _need(end, offset, 55, "ASYNC_MESSAGE header")
        reason, total, actual, token, status, qlen = _AM_FIRST[order].unpack_from(buf, offset + 24)
        size = 52 + ((3 + qlen + 3) & ~3)
        if offset + size > end:
            raise _err(PROTOCOL_LENGTH_ERROR,
                       f"ResolvedQNameLength {qlen} exceeds the segment", offset + 54)
        name = _char(buf, offset + 55, qlen)
        return cls(*head, reason, total, actual, token, status, qlen, name), offset + size

    def pack(self, order: str = BIG) -> bytes:
        out = _AM_HEAD[order].pack(self.Version, self.Hobj, self.MessageIndex,
                                   self.GlobalMessageIndex, self.SegmentLength, self.SegmentIndex,
                                   self.SelectionIndex)
        if not self.is_first:
            return out
        qlen = self.ResolvedQNameLength or 0
        if len(self.MsgToken) != 16:
            raise ValueError("MsgToken must be 16 bytes")
        out += _AM_FIRST[order].pack(self.Reason or 0, self.TotalMsgLength or 0,
                                     self.ActualMsgLength or 0, self.MsgToken, self.Status or 0, qlen)
        out += encode_char(self.ResolvedQName or "", qlen)
        return out + bytes(self.length - len(out))


# ---------------------------------------------------------------------------------------------
# NOTIFICATION (25)
# ---------------------------------------------------------------------------------------------

_NOTIF = _pair("iiii")


@dataclass(slots=True)
class Notification:
    """NOTIFICATION body: Version, Hobj, Code, Value (16 bytes)."""

    Version: int = 1
    Hobj: int = 0
    Code: int = 0
    Value: int = 0
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "NOTIFICATION"
    _fap_names: ClassVar[dict] = {"Code": _named(NOTIFICATION_NAMES)}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = BIG,
               end: Optional[int] = None) -> tuple["Notification", int]:
        end = _end(buf, end)
        _need(end, offset, 16, "NOTIFICATION")
        return cls(*_NOTIF[order].unpack_from(buf, offset), bytes(buf[offset + 16:end])), end

    def pack(self, order: str = BIG) -> bytes:
        return _NOTIF[order].pack(self.Version, self.Hobj, self.Code, self.Value) + self.Trailer


# ---------------------------------------------------------------------------------------------
# Typed bodies: composite views for MQI calls and async messages, and the dispatcher
# ---------------------------------------------------------------------------------------------

@dataclass(slots=True)
class MqiCall:
    """Body of the first segment of an MQI call or reply: the API header, the part decoded here
    (``Call``: an :class:`MQConnBody` for MQCONN/MQCONN_REPLY, else None) and the raw rest
    (``Data``; MQOD/MQMD/... belong to ``mqi.py``)."""

    ApiHeader: ApiHeader
    Call: Any = None
    Data: bytes = b""

    _json_type: ClassVar[str] = "MQI"

    def pack(self, order: str = BIG) -> bytes:
        out = self.ApiHeader.pack(order)
        if self.Call is not None:
            out += self.Call.pack(order)
        return out + self.Data


@dataclass(slots=True)
class AsyncMessage:
    """An ASYNC_MESSAGE body: the header and the raw rest (MQMD v2 + data on the first segment,
    data on later ones).  ``data_offset`` is where ``Data`` starts within the body."""

    Header: AsyncMessageHeader
    Data: bytes = b""

    _json_type: ClassVar[str] = "ASYNC_MESSAGE_BODY"

    @property
    def data_offset(self) -> int:
        return self.Header.length

    def pack(self, order: str = BIG) -> bytes:
        return self.Header.pack(order) + self.Data


_BODY_TYPES = {
    INITIAL_DATA: InitialData, USERID_DATA: UserIdData, CONAUTH_INFO: ConAuthInfo,
    SOCKET_ACTION: SocketAction, REQUEST_MSGS: RequestMsgs, NOTIFICATION: Notification,
}


def decode_body(segment: Segment, *, first: Optional[bool] = None) -> Any:
    """The typed body of a *single* segment, or None when the type has no body decoded here
    (HEARTBEAT and others) or the STATUS body is empty.  MQI types: :class:`MqiCall` when the
    segment is FIRST (or ``first=True``), the raw body bytes for middle/last segments.
    ASYNC_MESSAGE: :class:`AsyncMessage` (header form chosen by SegmentIndex unless ``first``)."""
    h = segment.header
    t = h.SegmentType
    body = segment.body
    order = h.order
    cls = _BODY_TYPES.get(t)
    if cls is not None:
        return cls.unpack(body, 0, order)[0]
    if t == STATUS_DATA:
        return StatusData.unpack(body, 0, order)[0] if body else None
    if t == ASYNC_MESSAGE:
        am, p = AsyncMessageHeader.unpack(body, 0, order, first=first)
        return AsyncMessage(am, body[p:])
    if is_mqi_type(t):
        if first is None:
            first = bool(h.ControlFlags1 & CF1_FIRST)
        if not first:
            return body
        api, p = ApiHeader.unpack(body, 0, order)
        call = None
        if t in (MQCONN, MQCONN_REPLY):
            call, p = MQConnBody.unpack(body, p, order)
        return MqiCall(api, call, body[p:])
    return None


def decode_call(segment: Segment) -> Any:
    """``decode_body(segment, first=True)`` for the first segment of an MQI call: the same
    :class:`MqiCall`, the common case (an API header and the raw rest: every call but MQCONN) read
    with one check and two unpacks (issue 24, decision HP3)."""
    h = segment.header
    body = segment.body
    t = h.SegmentType
    if t == MQCONN or t == MQCONN_REPLY or len(body) < API_HEADER_LENGTH or t < 0x80:
        return decode_body(segment, first=True)
    if h.ByteOrder == 1:
        api = ApiHeader(*_API_BE.unpack_from(body, 0))
    else:
        api = ApiHeader(_BE_U32.unpack_from(body, 0)[0], *_API_LE_TAIL.unpack_from(body, 4))
    return MqiCall(api, None, body[API_HEADER_LENGTH:])


# a TSHM's StructId, SegmentLength, ConversationId and RequestId: big-endian whatever its ByteOrder
_TSHM_IDS = struct.Struct(">4sIII")


def decode_whole_call(data: bytes) -> tuple[SegmentHeader, MqiCall] | None:
    """``data`` as one whole little-endian TSHM segment of an MQI call whose body holds at least the API
    header: its header and call, equal to ``decode_header(data)`` and ``decode_call`` of its segment (issue 35,
    decision HP8), read with four unpacks; None when the StructId is not TSHM or the SegmentLength is not
    ``len(data)``.  The caller has checked the rest: ByteOrder 2 (``data[16]``), at least 52 bytes, and
    what the segment's type and flags must be for it."""
    sid, length, conv, req = _TSHM_IDS.unpack_from(data)
    if sid != b"TSHM" or length != len(data):
        return None
    header = SegmentHeader(TSHM, length, conv, req, *_TAIL[LITTLE].unpack_from(data, 16))
    api = ApiHeader(_BE_U32.unpack_from(data, TSHM_LENGTH)[0], *_API_LE_TAIL.unpack_from(data, TSHM_LENGTH + 4))
    return header, MqiCall(api, None, data[TSHM_LENGTH + API_HEADER_LENGTH:])


def encode_body(obj: Any, order: str) -> bytes:
    """Inverse of :func:`decode_body`."""
    if obj is None:
        return b""
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj)
    return obj.pack(order)


# ---------------------------------------------------------------------------------------------
# Builders for the segments the server sends most
# ---------------------------------------------------------------------------------------------

def status_segment(code: int, *, struct_id: str = TSH, conversation_id: int = 0,
                   request_id: int = 0, byte_order: int = 2, encoding: Optional[int] = None,
                   ccsid: int = 819, value: Optional[int] = None,
                   control_flags1: int = CF1_ERROR | CF1_CLOSE_CHANNEL) -> bytes:
    """A STATUS_DATA segment (9): ERROR|CLOSE_CHANNEL and an 8-byte ESH (12 with ``value``).
    Use the peer's StructId (TSH before multiplexing, TSHM on a conversation)."""
    order = BIG if byte_order == 1 else LITTLE
    body = StatusData(ReturnCode=code, Value=value).pack(order)
    return encode_segment(STATUS_DATA, body, struct_id=struct_id, conversation_id=conversation_id,
                          request_id=request_id, byte_order=byte_order, control_flags1=control_flags1,
                          encoding=encoding, ccsid=ccsid)


# Multiplexing (26): shared conversations travel in TSHM, which FAP 10 brought.  Server and client
# both ask this function whether an agreed ID makes the conversation multiplexed.
def multiplexed(sharing_conversations: int, fap_level: int) -> bool:
    """Whether an agreement of SharingConversations and FAP level puts the conversation in TSHM."""
    return sharing_conversations > 0 and fap_level >= 10


# HEARTBEAT (22): from FAP 10 a request carries CONFIRM_REQUEST and the response does not; below
# FAP 10 the sense of the flag is inverted.  Server and client both ask these three functions.
def heartbeat_request_flags(fap_level: int) -> int:
    """ControlFlags1 of a heartbeat request at ``fap_level`` (CONFIRM_REQUEST from FAP 10, 0 below)."""
    return CF1_CONFIRM_REQUEST if fap_level >= 10 else 0


def heartbeat_reply_flags(fap_level: int) -> int:
    """ControlFlags1 of the response to a heartbeat request: the request's CONFIRM_REQUEST flipped."""
    return heartbeat_request_flags(fap_level) ^ CF1_CONFIRM_REQUEST


def is_heartbeat_request(control_flags1: int, fap_level: int) -> bool:
    """Whether a HEARTBEAT with ``control_flags1`` is a request (to be answered) at ``fap_level``."""
    return (control_flags1 & CF1_CONFIRM_REQUEST) == heartbeat_request_flags(fap_level)


def heartbeat(*, request: bool = True, struct_id: str = TSHC, byte_order: int = 2,
              encoding: Optional[int] = None, ccsid: int = 819, fap_level: int = 10) -> bytes:
    """Header-only HEARTBEAT (22), a request or a response at ``fap_level`` (by default FAP 10
    and later: CONFIRM_REQUEST set on a request, clear on a response).  TSHC when multiplexed,
    ``TSH `` otherwise."""
    flags = heartbeat_request_flags(fap_level) if request else heartbeat_reply_flags(fap_level)
    return encode_segment(HEARTBEAT, b"", struct_id=struct_id, byte_order=byte_order,
                          control_flags1=flags, encoding=encoding, ccsid=ccsid)


def heartbeat_response(request: SegmentHeader, *, byte_order: int = 2,
                       encoding: Optional[int] = None, ccsid: int = 819, fap_level: int = 10) -> bytes:
    """The answer to a heartbeat request: same StructId, CONFIRM_REQUEST flipped."""
    return heartbeat(request=False, struct_id=request.StructId, byte_order=byte_order,
                     encoding=encoding, ccsid=ccsid, fap_level=fap_level)


_API_TAIL = {BIG: struct.Struct(">iii"), LITTLE: struct.Struct("<iii")}


def api_reply(request: SegmentHeader, body: bytes = b"", *, comp_code: int = 0, reason: int = 0,
              hobj: int = 0, segment_type: Optional[int] = None, byte_order: int = 2,
              encoding: int = 0x222, ccsid: int = 819) -> bytes:
    """A one-segment MQI reply (FIRST|LAST) to ``request``: same StructId/ConversationId/
    RequestId, type | REPLY, API header with CallLength = SegmentLength - 8 (10, what the real
    server writes) followed by ``body``.  Replies longer than MaxTransmissionSize must be built
    with :func:`api_reply_segments` instead.  Packed directly: every MQI reply passes here."""
    return api_reply_head(request, len(body), comp_code=comp_code, reason=reason, hobj=hobj,
                          segment_type=segment_type, byte_order=byte_order, encoding=encoding, ccsid=ccsid) + body


def api_reply_head(request: SegmentHeader, body_length: int, *, comp_code: int = 0, reason: int = 0,
                   hobj: int = 0, segment_type: Optional[int] = None, byte_order: int = 2,
                   encoding: int = 0x222, ccsid: int = 819) -> bytes:
    """The segment header and API header of :func:`api_reply` for a body of ``body_length`` bytes: what
    comes before the body, so a caller holding the body in pieces joins them once (issue 35, HP4)."""
    if segment_type is None and request.StructId == TSHM and byte_order == 2 and encoding == 0x222 and ccsid == 819:
        # A reply on a shared conversation with every default (nearly every reply): its fixed part by the
        # request's type, no key built (issue 35, decision HP9); equal to the general path below.
        total = TSHM_LENGTH + API_HEADER_LENGTH + body_length
        return b"".join((_TSHM_IDS.pack(b"TSHM", total, request.ConversationId, request.RequestId),
                         _TSHM_REPLY_FIXED[request.SegmentType], _BE_U32.pack(total - 8),
                         _API_LE_TAIL.pack(comp_code, reason, hobj)))
    if segment_type is None:
        t = request.SegmentType
        segment_type = t | REPLY if is_mqi_type(t) else t
    order = BIG if byte_order == 1 else LITTLE
    if request.StructId == TSHM:
        total = TSHM_LENGTH + API_HEADER_LENGTH + body_length
        head = _LEN_CONV_REQ.pack(total, request.ConversationId, request.RequestId)
        sid = b"TSHM"
    else:
        total = TSH_LENGTH + API_HEADER_LENGTH + body_length
        head = _BE_U32.pack(total)
        sid = _STRUCT_ID_BYTES[request.StructId]
    # The header's fixed part (ByteOrder to Reserved): the same for every reply of a type, packed once (HP4)
    key = (segment_type, byte_order, encoding, ccsid)
    fixed = _REPLY_FIXED.get(key)
    if fixed is None:
        fixed = _TAIL[order].pack(byte_order, segment_type, CF1_FIRST | CF1_LAST, 0, _ZERO_LUW, encoding, ccsid, 0)
        if len(_REPLY_FIXED) >= 1024:  # bounded: callers' encodings are few, but any int is accepted
            _REPLY_FIXED.clear()
        _REPLY_FIXED[key] = fixed
    return b"".join((sid, head, fixed, _BE_U32.pack(total - 8), _API_TAIL[order].pack(comp_code, reason, hobj)))


_REPLY_FIXED: dict[tuple[int, int, int, int], bytes] = {}
# The same fixed part for a reply with every default (little-endian, the server's encoding and CCSID), by the
# request's SegmentType (0-255): what the general path packs, packed once for every type (HP9).
_TSHM_REPLY_FIXED = tuple(_TAIL[LITTLE].pack(2, t | REPLY if is_mqi_type(t) else t, CF1_FIRST | CF1_LAST, 0, _ZERO_LUW,
                                             0x222, 819, 0) for t in range(256))


def split_call(header: SegmentHeader, body: bytes, max_transmission_size: int) -> list[bytes]:
    """Encode one logical call as segments of at most ``max_transmission_size`` bytes.

    ``header`` is the template (StructId, ids, type, order, flags; SegmentLength is ignored);
    ``body`` is everything after the segment header of a one-segment call (API header first).
    The first segment gets FIRST, the last LAST (a single segment both); other
    ControlFlags1 bits are kept on every segment.  The API header is not modified: it travels
    once, at the start of the first segment.
    """
    hl = header.header_length
    room = max_transmission_size - hl
    if room <= 0:
        raise ValueError(f"max_transmission_size {max_transmission_size} leaves no room for a body")
    base = header.ControlFlags1 & ~(CF1_FIRST | CF1_LAST)
    body = bytes(body)
    n = len(body)
    count = max(1, -(-n // room))
    out = []
    for i in range(count):
        chunk = body[i * room:(i + 1) * room]
        flags = base
        if i == 0:
            flags |= CF1_FIRST
        if i == count - 1:
            flags |= CF1_LAST
        h = header.copy(SegmentLength=hl + len(chunk), ControlFlags1=flags)
        out.append(h.pack() + chunk)
    return out


def api_reply_segments(request: SegmentHeader, body: bytes, max_transmission_size: int, **kw
                       ) -> list[bytes]:
    """:func:`api_reply`, split over several segments when longer than MaxTransmissionSize.
    CallLength stays (header + API header + body) - 8, i.e. the length of the logical call."""
    one = api_reply(request, body, **kw)
    if len(one) <= max_transmission_size:
        return [one]
    header = SegmentHeader.unpack(one)[0]
    return split_call(header, one[header.header_length:], max_transmission_size)
