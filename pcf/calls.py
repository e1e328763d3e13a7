"""MQI call bodies: what follows the 16-byte API header (docs/reference/fap.md §10) in MQI request and reply segments.

Each body is a ``@dataclass(slots=True)`` whose fields carry the MQI call's parameter names (ObjDesc,
MsgDesc, PutMsgOpts, GetMsgOpts, SubDesc, SubRqOpts, Selectors, ...) with
``cls.unpack(buf, offset=0, order="<", codec="latin-1") -> (body, end_offset)`` and
``body.pack(order="<", codec="latin-1") -> bytes``.  ``buf`` is the whole, reassembled call (the framer
joins multi-segment calls first), starting at ``offset`` right after the API header.  Decoders raise only
:class:`CodecError` (family MQRC).

Every count or length read from the wire is checked against the bytes present before it is used, and
negative values are rejected.  Message data is always returned as ``bytes`` (a copy of the slice, also
for bytearray/memoryview input) of exactly the declared length.  Bytes after the declared body
are ignored, except after MQOPEN where they are kept in ``Trailer`` (e.g. the optional FCMI structure).

``REQUEST_BODIES`` / ``REPLY_BODIES`` map a FAP segment type (docs/reference/fap.md §5.1) to its body class.  MQCONN,
MQDISC and SPI are decoded elsewhere.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import ClassVar

from . import constants as C
from . import errors
from .encoding import decode_text, encode_text
from .errors import CodecError
from .mqi import (FOPA, GMO_SIZES, GMO_VALUES, MD_SIZES, MD_VALUES, MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO, PMO_SIZES,
                  PMO_VALUES, Decoded)

__all__ = [
    "EmptyBody", "MQOpenRequest", "MQOpenReply", "MQCloseRequest", "MQPutRequest", "MQPutReply",
    "MQPut1Request", "MQPut1Reply", "MQGetRequest", "MQGetReply", "MQInqRequest", "MQInqReply",
    "MQSubRequest", "MQSubReply", "MQSubRqRequest", "MQSubRqReply", "REQUEST_BODIES", "REPLY_BODIES",
    "unpack_body",
]

_MQRC = errors.MQRC
_I = {"<": struct.Struct("<i"), ">": struct.Struct(">i")}
_III = {"<": struct.Struct("<3i"), ">": struct.Struct(">3i")}
_II = {"<": struct.Struct("<2i"), ">": struct.Struct(">2i")}


def _int(buf, pos: int, order: str, reason: int, name: str) -> int:
    if len(buf) - pos < 4:
        raise CodecError(reason, family=_MQRC, offset=pos,
                         detail=f"{name} missing ({max(len(buf) - pos, 0)} bytes left)")
    return _I[order].unpack_from(buf, pos)[0]


def _data(buf, pos: int, order: str, name: str = "DataLength") -> tuple[int, bytes, int]:
    """DataLength + exactly that many bytes.  Returns (length, data, end)."""
    n = _int(buf, pos, order, C.MQRC_DATA_LENGTH_ERROR, name)
    pos += 4
    if n < 0 or n > len(buf) - pos:
        raise CodecError(C.MQRC_DATA_LENGTH_ERROR, family=_MQRC, offset=pos - 4,
                         detail=f"{name} {n}, {len(buf) - pos} bytes present")
    return n, bytes(buf[pos:pos + n]), pos + n


def _ints(buf, pos: int, count: int, order: str) -> list[int]:
    """``count`` i32 values; the caller has checked that 4*count bytes exist."""
    if count == 0:
        return []
    return list(struct.unpack_from(f"{order}{count}i", buf, pos))


def _fixed(buf, offset: int, order: str, sizes: dict[int, int]) -> int:
    """Bytes of the MQMD at ``offset`` and of the options structure after it (``sizes`` by Version: MQPMO's
    or MQGMO's), read from their Version fields; 0 when a Version is unknown or the bytes are not all
    there (the structures' own decoding then says why)."""
    if offset < 0:
        return 0
    unpack = _I[order].unpack_from
    try:
        md = MD_SIZES[unpack(buf, offset + 4)[0]]
        fixed = md + sizes[unpack(buf, offset + md + 4)[0]]
    except (KeyError, struct.error):  # a Version unknown, or its bytes not there
        return 0
    return fixed if len(buf) - offset >= fixed else 0


# An MQPUT's MQMD+MQPMO and an MQGET's MQMD+MQGMO decoded as one, by their bytes (issue 35, HP6): an
# application sends the same structures call after call, and each decoding is a pure function of the bytes,
# the byte order and the codec (HP2), so one look-up answers both structures; each call still gets
# structures of its own (the domain fills them in place).  A key's bytes include both StrucIds and Versions:
# only bytes the structures' own decoding accepted are ever remembered.
_PUTS = Decoded()
_GETS = Decoded()


def _pack_ints(values, order: str) -> bytes:
    return struct.pack(f"{order}{len(values)}i", *values) if values else b""


# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class EmptyBody:
    """Nothing after the API header: MQCLOSE/MQCMIT/MQBACK replies, MQCMIT/MQBACK requests."""

    _json_type: ClassVar[str] = "EMPTY"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        return cls(), offset

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        return b""


# --------------------------------------------------------------------------------------------------
# MQOPEN (docs/reference/fap.md §13)
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class MQOpenRequest:
    """MQOD [+ records] [+ MQCHARV strings] + Options (4) [+ FOPA] [+ Trailer].

    Options are found after the OD's highest string/record end aligned to 4.  A FOPA is recognised by its
    StrucId; anything after it (or after Options when there is no FOPA) is kept verbatim in ``Trailer``.
    """

    ObjDesc: MQOD = field(default_factory=MQOD)
    Options: int = 0
    Fopa: FOPA | None = None
    Trailer: bytes = b""

    _json_type: ClassVar[str] = "MQOPEN"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        od, pos = MQOD.unpack(buf, offset, order, codec)
        options = _int(buf, pos, order, C.MQRC_OPTIONS_ERROR, "MQOPEN Options")
        pos += 4
        fopa = None
        if len(buf) - pos >= 4 and buf[pos:pos + 4] == b"FOPA":
            fopa, pos = FOPA.unpack(buf, pos, order, codec)
        trailer = bytes(buf[pos:])
        return cls(od, options, fopa, trailer), len(buf)

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        out = self.ObjDesc.pack(order, codec) + _I[order].pack(self.Options)
        if self.Fopa is not None:
            out += self.Fopa.pack(order, codec)
        return out + bytes(self.Trailer)


@dataclass(slots=True)
class MQOpenReply(MQOpenRequest):
    """Same shape as the request: the OD (ObjectName = created dynamic queue), Options, FOPA."""

    _json_type: ClassVar[str] = "MQOPEN_REPLY"


# --------------------------------------------------------------------------------------------------
# MQCLOSE (docs/reference/fap.md §14)
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class MQCloseRequest:
    Options: int = C.MQCO_NONE

    _json_type: ClassVar[str] = "MQCLOSE"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        return cls(_int(buf, offset, order, C.MQRC_OPTIONS_ERROR, "MQCLOSE Options")), offset + 4

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        return _I[order].pack(self.Options)


# --------------------------------------------------------------------------------------------------
# MQPUT / MQPUT1 (docs/reference/fap.md §15)
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class MQPutRequest:
    """MQMD + MQPMO + DataLength (4) + data.  ``Data`` is exactly DataLength bytes."""

    MsgDesc: MQMD = field(default_factory=MQMD)
    PutMsgOpts: MQPMO = field(default_factory=MQPMO)
    Data: bytes = b""

    _json_type: ClassVar[str] = "MQPUT"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        fixed = _fixed(buf, offset, order, PMO_SIZES)
        if fixed:
            key, seen = _PUTS.seen(buf, offset, fixed, order, codec)
            if seen is not None:
                _n, data, pos = _data(buf, offset + fixed, order)
                return cls(MQMD(*seen[0]), MQPMO(*seen[1]), data), pos
        md, pos = MQMD.unpack(buf, offset, order, codec)
        pmo, pos = MQPMO.unpack(buf, pos, order, codec)
        if fixed:
            _PUTS.remember(key, (MD_VALUES(md), PMO_VALUES(pmo)))
        _n, data, pos = _data(buf, pos, order)
        return cls(md, pmo, data), pos

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        data = self.Data
        return b"".join((self.MsgDesc.pack(order, codec), self.PutMsgOpts.pack(order, codec),
                         _I[order].pack(len(data)), data))


def _reply_length(buf, pos: int, order: str) -> tuple[int | None, int]:
    """The optional trailing DataLength of a PUT reply: None when the body ends here."""
    if len(buf) - pos == 0:
        return None, pos
    n = _int(buf, pos, order, C.MQRC_DATA_LENGTH_ERROR, "DataLength")
    if n < 0:
        raise CodecError(C.MQRC_DATA_LENGTH_ERROR, family=_MQRC, offset=pos, detail=f"DataLength {n}")
    return n, pos + 4


@dataclass(slots=True)
class MQPutReply:
    """MQMD as stored + MQPMO + DataLength (the length put; the emulator echoes it) and no data.

    ``DataLength`` None means the reply ends after the PMO.
    """

    MsgDesc: MQMD = field(default_factory=MQMD)
    PutMsgOpts: MQPMO = field(default_factory=MQPMO)
    DataLength: int | None = 0

    _json_type: ClassVar[str] = "MQPUT_REPLY"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        md, pos = MQMD.unpack(buf, offset, order, codec)
        pmo, pos = MQPMO.unpack(buf, pos, order, codec)
        n, pos = _reply_length(buf, pos, order)
        return cls(md, pmo, n), pos

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        out = self.MsgDesc.pack(order, codec) + self.PutMsgOpts.pack(order, codec)
        if self.DataLength is not None:
            out += _I[order].pack(self.DataLength)
        return out


@dataclass(slots=True)
class MQPut1Request:
    """MQOD [+ strings] + MQMD + MQPMO + DataLength (4) + data."""

    ObjDesc: MQOD = field(default_factory=MQOD)
    MsgDesc: MQMD = field(default_factory=MQMD)
    PutMsgOpts: MQPMO = field(default_factory=MQPMO)
    Data: bytes = b""

    _json_type: ClassVar[str] = "MQPUT1"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        od, pos = MQOD.unpack(buf, offset, order, codec)
        md, pos = MQMD.unpack(buf, pos, order, codec)
        pmo, pos = MQPMO.unpack(buf, pos, order, codec)
        _n, data, pos = _data(buf, pos, order)
        return cls(od, md, pmo, data), pos

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        data = self.Data
        return b"".join((self.ObjDesc.pack(order, codec), self.MsgDesc.pack(order, codec),
                         self.PutMsgOpts.pack(order, codec), _I[order].pack(len(data)), data))


@dataclass(slots=True)
class MQPut1Reply:
    """MQOD + MQMD + MQPMO [+ DataLength]; no data."""

    ObjDesc: MQOD = field(default_factory=MQOD)
    MsgDesc: MQMD = field(default_factory=MQMD)
    PutMsgOpts: MQPMO = field(default_factory=MQPMO)
    DataLength: int | None = 0

    _json_type: ClassVar[str] = "MQPUT1_REPLY"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        od, pos = MQOD.unpack(buf, offset, order, codec)
        md, pos = MQMD.unpack(buf, pos, order, codec)
        pmo, pos = MQPMO.unpack(buf, pos, order, codec)
        n, pos = _reply_length(buf, pos, order)
        return cls(od, md, pmo, n), pos

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        out = self.ObjDesc.pack(order, codec) + self.MsgDesc.pack(order, codec) + \
            self.PutMsgOpts.pack(order, codec)
        if self.DataLength is not None:
            out += _I[order].pack(self.DataLength)
        return out


# --------------------------------------------------------------------------------------------------
# MQGET (docs/reference/fap.md §16)
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class MQGetRequest:
    """MQMD (selection fields) + MQGMO + BufferLength (4)."""

    MsgDesc: MQMD = field(default_factory=MQMD)
    GetMsgOpts: MQGMO = field(default_factory=MQGMO)
    BufferLength: int = 0

    _json_type: ClassVar[str] = "MQGET"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        fixed = _fixed(buf, offset, order, GMO_SIZES)
        key, seen = _GETS.seen(buf, offset, fixed, order, codec) if fixed else (None, None)
        if seen is not None:
            md, gmo, pos = MQMD(*seen[0]), MQGMO(*seen[1]), offset + fixed
        else:
            md, pos = MQMD.unpack(buf, offset, order, codec)
            gmo, pos = MQGMO.unpack(buf, pos, order, codec)
            if fixed:
                _GETS.remember(key, (MD_VALUES(md), GMO_VALUES(gmo)))
        n = _int(buf, pos, order, C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
        if n < 0:
            raise CodecError(C.MQRC_BUFFER_LENGTH_ERROR, family=_MQRC, offset=pos, detail=f"BufferLength {n}")
        return cls(md, gmo, n), pos + 4

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        return self.MsgDesc.pack(order, codec) + self.GetMsgOpts.pack(order, codec) + \
            _I[order].pack(self.BufferLength)


@dataclass(slots=True)
class MQGetReply:
    """MQMD + MQGMO + DataLength (4) + data.

    DataLength is the message's full length; after a truncation (reason 2080/2079) fewer bytes follow
    (at most the request's BufferLength).  So ``Data`` is min(DataLength, bytes present) bytes and
    ``DataLength`` is None when it equals ``len(Data)``, else the full length.  A DataLength larger
    than the bytes present is therefore accepted here; negative values are rejected.
    """

    MsgDesc: MQMD = field(default_factory=MQMD)
    GetMsgOpts: MQGMO = field(default_factory=MQGMO)
    Data: bytes = b""
    DataLength: int | None = None

    _json_type: ClassVar[str] = "MQGET_REPLY"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        md, pos = MQMD.unpack(buf, offset, order, codec)
        gmo, pos = MQGMO.unpack(buf, pos, order, codec)
        n = _int(buf, pos, order, C.MQRC_DATA_LENGTH_ERROR, "DataLength")
        pos += 4
        if n < 0:
            raise CodecError(C.MQRC_DATA_LENGTH_ERROR, family=_MQRC, offset=pos - 4, detail=f"DataLength {n}")
        present = min(n, len(buf) - pos)
        data = bytes(buf[pos:pos + present])
        return cls(md, gmo, data, None if present == n else n), pos + present

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        data = self.Data
        n = len(data) if self.DataLength is None else self.DataLength
        if n < len(data):
            raise ValueError(f"DataLength {n} is smaller than the {len(data)} data bytes")
        return b"".join((self.MsgDesc.pack(order, codec), self.GetMsgOpts.pack(order, codec),
                         _I[order].pack(n), data))


# --------------------------------------------------------------------------------------------------
# MQINQ (docs/reference/fap.md §17)
# --------------------------------------------------------------------------------------------------


def _inq_head(buf, offset: int, order: str) -> tuple[int, int, int, int]:
    if len(buf) - offset < 12:
        raise CodecError(C.MQRC_SELECTOR_COUNT_ERROR, family=_MQRC, offset=offset,
                         detail=f"MQINQ: {max(len(buf) - offset, 0)} bytes, need 12")
    sc, ic, cl = _III[order].unpack_from(buf, offset)
    pos = offset + 12
    if sc < 0 or 4 * sc > len(buf) - pos:
        raise CodecError(C.MQRC_SELECTOR_COUNT_ERROR, family=_MQRC, offset=offset,
                         detail=f"SelectorCount {sc}, {len(buf) - pos} bytes present")
    if ic < 0:
        raise CodecError(C.MQRC_INT_ATTR_COUNT_ERROR, family=_MQRC, offset=offset + 4,
                         detail=f"IntAttrCount {ic}")
    if cl < 0:
        raise CodecError(C.MQRC_CHAR_ATTR_LENGTH_ERROR, family=_MQRC, offset=offset + 8,
                         detail=f"CharAttrLength {cl}")
    return sc, ic, cl, pos


@dataclass(slots=True)
class MQInqRequest:
    """SelectorCount, IntAttrCount, CharAttrLength (4 each) + Selectors.  SelectorCount = len(Selectors).

    IntAttrCount and CharAttrLength are what the caller can accept back; they are not followed by data.
    """

    Selectors: list[int] = field(default_factory=list)
    IntAttrCount: int = 0
    CharAttrLength: int = 0

    _json_type: ClassVar[str] = "MQINQ"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        sc, ic, cl, pos = _inq_head(buf, offset, order)
        return cls(_ints(buf, pos, sc, order), ic, cl), pos + 4 * sc

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        return _III[order].pack(len(self.Selectors), self.IntAttrCount, self.CharAttrLength) + \
            _pack_ints(self.Selectors, order)


@dataclass(slots=True)
class MQInqReply:
    """The request's three counts + Selectors + IntAttrs (IntAttrCount) + CharAttrs (CharAttrLength bytes).

    ``CharAttrs`` is the concatenation of the fixed-length character values as one string, decoded with
    the segment codec and not stripped (each value keeps its blank padding).
    """

    Selectors: list[int] = field(default_factory=list)
    IntAttrs: list[int] = field(default_factory=list)
    CharAttrs: str = ""

    _json_type: ClassVar[str] = "MQINQ_REPLY"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        sc, ic, cl, pos = _inq_head(buf, offset, order)
        left = len(buf) - pos - 4 * sc
        if 4 * ic > left:
            raise CodecError(C.MQRC_INT_ATTR_COUNT_ERROR, family=_MQRC, offset=offset + 4,
                             detail=f"IntAttrCount {ic}, {left} bytes left after the selectors")
        if cl > left - 4 * ic:
            raise CodecError(C.MQRC_CHAR_ATTR_LENGTH_ERROR, family=_MQRC, offset=offset + 8,
                             detail=f"CharAttrLength {cl}, {left - 4 * ic} bytes left after IntAttrs")
        selectors = _ints(buf, pos, sc, order)
        pos += 4 * sc
        ints = _ints(buf, pos, ic, order)
        pos += 4 * ic
        chars = decode_text(bytes(buf[pos:pos + cl]), codec)
        return cls(selectors, ints, chars), pos + cl

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        chars = encode_text(self.CharAttrs, codec)
        return b"".join((_III[order].pack(len(self.Selectors), len(self.IntAttrs), len(chars)),
                         _pack_ints(self.Selectors, order), _pack_ints(self.IntAttrs, order), chars))


# --------------------------------------------------------------------------------------------------
# MQSUB (docs/reference/fap.md §18) and MQSUBRQ (§19)
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class MQSubRequest:
    """Hsub (4) + 4 bytes (0 from the clients seen; kept as ``Reserved``) + MQSD + strings."""

    Hsub: int = 0
    Reserved: int = 0
    SubDesc: MQSD = field(default_factory=MQSD)

    _json_type: ClassVar[str] = "MQSUB"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        if offset < 0 or len(buf) - offset < 8:
            raise CodecError(C.MQRC_SD_ERROR, family=_MQRC, offset=offset,
                             detail="MQSUB: truncated before MQSD")
        hsub, reserved = _II[order].unpack_from(buf, offset)
        sd, pos = MQSD.unpack(buf, offset + 8, order, codec)
        return cls(hsub, reserved, sd), pos

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        return _II[order].pack(self.Hsub, self.Reserved) + self.SubDesc.pack(order, codec)


@dataclass(slots=True)
class MQSubReply:
    """Returned Hsub (4) + DefReadAhead (4) + MQSD (ResObjectString filled) + strings."""

    Hsub: int = 0
    DefReadAhead: int = C.MQREADA_NO
    SubDesc: MQSD = field(default_factory=MQSD)

    _json_type: ClassVar[str] = "MQSUB_REPLY"
    _json_names: ClassVar[dict] = {"DefReadAhead": "MQREADA"}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        if offset < 0 or len(buf) - offset < 8:
            raise CodecError(C.MQRC_SD_ERROR, family=_MQRC, offset=offset, detail="MQSUB reply: truncated")
        hsub, readahead = _II[order].unpack_from(buf, offset)
        sd, pos = MQSD.unpack(buf, offset + 8, order, codec)
        return cls(hsub, readahead, sd), pos

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        return _II[order].pack(self.Hsub, self.DefReadAhead) + self.SubDesc.pack(order, codec)


@dataclass(slots=True)
class MQSubRqRequest:
    """Action (4; 1 = MQSR_ACTION_PUBLICATION) + MQSRO."""

    Action: int = C.MQSR_ACTION_PUBLICATION
    SubRqOpts: MQSRO = field(default_factory=MQSRO)

    _json_type: ClassVar[str] = "MQSUBRQ"
    _json_names: ClassVar[dict] = {"Action": "MQSR"}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        action = _int(buf, offset, order, C.MQRC_SRO_ERROR, "MQSUBRQ Action")
        sro, pos = MQSRO.unpack(buf, offset + 4, order, codec)
        return cls(action, sro), pos

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        return _I[order].pack(self.Action) + self.SubRqOpts.pack(order, codec)


@dataclass(slots=True)
class MQSubRqReply(MQSubRqRequest):
    """Same shape as the request, NumPubs filled."""

    _json_type: ClassVar[str] = "MQSUBRQ_REPLY"


# --------------------------------------------------------------------------------------------------

REQUEST_BODIES: dict[int, type] = {
    0x83: MQOpenRequest,
    0x84: MQCloseRequest,
    0x85: MQGetRequest,
    0x86: MQPutRequest,
    0x87: MQPut1Request,
    0x89: MQInqRequest,
    0x8A: EmptyBody,  # MQCMIT
    0x8B: EmptyBody,  # MQBACK
    0x8E: MQSubRequest,
    0x8F: MQSubRqRequest,
}

REPLY_BODIES: dict[int, type] = {
    0x93: MQOpenReply,
    0x94: EmptyBody,  # MQCLOSE reply
    0x95: MQGetReply,
    0x96: MQPutReply,
    0x97: MQPut1Reply,
    0x99: MQInqReply,
    0x9A: EmptyBody,  # MQCMIT reply
    0x9B: EmptyBody,  # MQBACK reply
    0x9E: MQSubReply,
    0x9F: MQSubRqReply,
}


def unpack_body(segment_type: int, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
    """Decode the body of an MQI segment type; ``None`` when the type has no body class here."""
    cls = REQUEST_BODIES.get(segment_type) or REPLY_BODIES.get(segment_type)
    if cls is None:
        return None
    return cls.unpack(buf, offset, order, codec)[0]
