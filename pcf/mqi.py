"""MQI structures as they travel in FAP segments: MQMD, MQOD, MQPMO, MQGMO, MQSD, MQSRO, FOPA, MQRFH, MQRFH2.

Layouts follow docs/reference/fap.md (§13 MQOD/MQCHARV/FOPA, §15 MQMD/MQPMO, §16 MQGMO, §18 MQSD, §19 MQSRO): the
32-bit-pointer C layout, pointers travel as 4 bytes.  The generated ``MQxx_LENGTH_n`` constants are the
64-bit layouts of the wheel they came from (MQOD_LENGTH_4 = 424, MQSD_LENGTH_1 = 344, ...) and are
deliberately *not* used for wire sizes here.

Conventions shared by every class:

* ``@dataclass(slots=True)``, fields named exactly as in MQ, MQ's default values.  The StrucId is not a
  field (it is checked and written, never stored).  ``Version`` decides the wire length.
* MQCHAR[n] fields are ``str`` with trailing blanks/NULs removed (``encoding.decode_char``) and are written
  blank-padded; binary fields (MsgId, CorrelId, ...) are ``bytes`` of the exact length (``pack`` checks);
  single MQCHAR flags (MQGMO GroupStatus, ...) are ``int`` byte values, matching ``C.MQGS_*``.
* ``cls.unpack(buf, offset=0, order="<", codec="latin-1") -> (obj, end_offset)`` accepts bytes, bytearray
  or memoryview and raises only :class:`CodecError` (family MQRC, the structure's MQRC_*_ERROR, with the
  offset).  ``obj.pack(order="<", codec="latin-1") -> bytes`` raises ``ValueError`` (``CodecError`` is a
  subclass) for values that cannot be written.  ``order`` is ``"<"`` or ``">"``; ``codec`` is the Python
  codec of the segment's CCSID and must be a byte-oriented codec (not UTF-16).
* MQCHARV strings (:class:`MQCHARV`) are found only through VSOffset/VSLength, relative to the start of
  the containing structure; ``end_offset`` is the larger of the fixed end and the highest string end
  rounded up to 4.  ``pack`` places the strings after the fixed part in field order, each NUL-padded to 4.
"""

from __future__ import annotations

import operator
import struct
from dataclasses import dataclass, field, fields
from typing import ClassVar

from . import constants as C
from . import errors
from .encoding import codec_for_ccsid, decode_char, encode_char, pad4
from .errors import CodecError

__all__ = [
    "MQCHARV", "MQMD", "MQOD", "MQPMO", "MQGMO", "MQSD", "MQSRO", "FOPA", "MQRFH", "MQRFH2", "MQDLH",
    "unpack_rfh", "MQVS_NULL_TERMINATED", "MQVS_USE_VSLENGTH",
]

_MQRC = errors.MQRC
_ERR = "surrogateescape"

# IBM facts not present in the generated constants.
MQVS_NULL_TERMINATED = -1  # VSLength: the string ends at the first NUL
MQVS_USE_VSLENGTH = -1  # VSBufSize: "use VSLength" (input strings only)
MQACTP_NEW = 0
MQPUBLEVEL_DEFAULT = 9
MQRL_UNDEFINED = -1
MQOL_UNDEFINED = -1
MQHM_NONE = 0

_ZERO24 = bytes(24)
_ZERO32 = bytes(32)
_ZERO40 = bytes(40)
_ZERO16 = bytes(16)


def _structs(fmt: str) -> dict[str, struct.Struct]:
    return {"<": struct.Struct("<" + fmt), ">": struct.Struct(">" + fmt)}


_HEAD = _structs("4si")  # StrucId + Version, shared by every structure


def _head(buf, offset: int, strucid: bytes, reason: int, name: str, order: str) -> int:
    """Check StrucId, return Version.  Raises CodecError when fewer than 8 bytes remain."""
    if offset < 0 or len(buf) - offset < 8:
        raise CodecError(reason, family=_MQRC, offset=offset,
                         detail=f"{name}: {max(len(buf) - offset, 0)} bytes left, need at least 8")
    sid, version = _HEAD[order].unpack_from(buf, offset)
    if sid != strucid:
        raise CodecError(reason, family=_MQRC, offset=offset,
                         detail=f"{name}: StrucId {bytes(sid)!r}, expected {strucid!r}")
    return version


def _short(reason: int, name: str, version: int, need: int, have: int, offset: int) -> CodecError:
    return CodecError(reason, family=_MQRC, offset=offset,
                      detail=f"{name} version {version} needs {need} bytes, {max(have, 0)} left")


def _bad_version(reason: int, name: str, version: int, offset: int) -> CodecError:
    return CodecError(reason, family=_MQRC, offset=offset, detail=f"{name}: unknown Version {version}")


def _layout(buf, offset: int, strucid: bytes, reason: int, name: str, order: str, layouts: dict):
    """The structure's Version at ``offset`` and its layout for that version, with the whole structure
    present: StrucId, a known Version and enough bytes are checked first, each failing with ``reason``."""
    version = _head(buf, offset, strucid, reason, name, order)
    s = layouts[order].get(version)
    if s is None:
        raise _bad_version(reason, name, version, offset)
    if len(buf) - offset < s.size:
        raise _short(reason, name, version, s.size, len(buf) - offset, offset)
    return version, s


def _bin(value, length: int, name: str) -> bytes:
    """A fixed-length binary field for packing: exactly ``length`` bytes or ValueError."""
    if not isinstance(value, (bytes, bytearray, memoryview)) or len(value) != length:
        raise ValueError(f"{name} must be {length} bytes, got {value!r}")
    return bytes(value)


class Decoded(dict):
    """Field values of fixed-layout structures already decoded, by their bytes (issue 24, decision HP2).

    An application sends the same MQMD/MQPMO/MQGMO bytes call after call; decoding is a pure function
    of the bytes, the byte order and the codec, so the values decoded once are the answer every time
    (the structure itself is built afresh: the domain fills it in place).  Bounded: cleared when full."""

    __slots__ = ()
    LIMIT = 512

    def seen(self, buf, offset: int, size: int, order: str, codec: str) -> tuple:
        """The key of the structure's bytes at ``offset``, and the values remembered for it (or None)."""
        key = (bytes(buf[offset:offset + size]), order, codec)
        return key, self.get(key)

    def remember(self, key, values: tuple) -> None:
        if len(self) >= self.LIMIT:
            self.clear()
        self[key] = values


class _Encoded(dict):
    """``encode_char(text, length, codec)`` remembered per text (HP2): the MQCHAR fields written on
    every reply (user, application name, format, put date) repeat; a miss asks encode_char itself."""

    __slots__ = ("length", "codec")
    LIMIT = 2048

    def __init__(self, length: int, codec: str) -> None:
        super().__init__()
        self.length, self.codec = length, codec

    def __missing__(self, text) -> bytes:
        raw = encode_char(text, self.length, self.codec)  # raises as encode_char does
        if len(self) >= self.LIMIT:
            self.clear()
        self[text] = raw
        return raw


_ENCODED: dict[str, dict[int, _Encoded]] = {}


def _encoders(codec: str) -> dict[int, _Encoded]:
    """The per-length MQCHAR encoders of ``codec``."""
    tables = _ENCODED.get(codec)
    if tables is None:
        tables = _ENCODED[codec] = {n: _Encoded(n, codec) for n in (4, 8, 12, 28, 32, 48)}
    return tables


def _bin24(value, name: str) -> bytes:
    return value if type(value) is bytes and len(value) == 24 else _bin(value, 24, name)


# --------------------------------------------------------------------------------------------------
# MQCHARV
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class MQCHARV:
    """A variable-length string (MQCHARV).  On the wire: VSPtr (0), VSOffset, VSBufSize, VSLength, VSCCSID.

    ``VSString`` holds the decoded text; VSOffset and VSLength are derived when packing.  The text is
    decoded with the codec of ``VSCCSID`` when qmlite knows it, otherwise (0, MQCCSI_APPL -3, unknown)
    with the segment codec.  VSBufSize is the size of the buffer the application offers (meaningful for
    output strings such as ResObjectString; MQVS_USE_VSLENGTH -1 is allowed for input strings).  When
    packing, VSBufSize is written as given when it is -1 or at least the encoded length, otherwise as the
    encoded length (a buffer never claims to be smaller than what it holds).
    """

    VSString: str = ""
    VSBufSize: int = 0
    VSCCSID: int = C.MQCCSI_APPL

    _json_type: ClassVar[str] = "MQCHARV"


def _vs_codec(ccsid: int, codec: str) -> str:
    if ccsid > 0:
        found = codec_for_ccsid(ccsid)
        if found is not None:
            return found
    return codec


def _get_charv(buf, base: int, fixed: int, vals, reason: int, name: str, codec: str):
    """Decode one MQCHARV given its 5 integers.  Returns (MQCHARV, end relative to ``base``)."""
    _ptr, off, bufsize, length, ccsid = vals
    if length == 0:
        return MQCHARV("", bufsize, ccsid), 0
    if off < fixed:
        raise CodecError(reason, family=_MQRC, offset=base,
                         detail=f"{name}: VSOffset {off} points into the fixed part ({fixed} bytes)")
    start = base + off
    size = len(buf)
    if length > 0:
        stop = start + length
        if stop > size:
            raise CodecError(reason, family=_MQRC, offset=base,
                             detail=f"{name}: VSOffset {off} + VSLength {length} beyond the {size - base} "
                                    f"bytes present")
        raw = bytes(buf[start:stop])
        end = off + length
    elif length == MQVS_NULL_TERMINATED:
        limit = size if bufsize <= 0 else min(size, start + bufsize)
        window = bytes(buf[start:limit]) if start < limit else b""
        nul = window.find(b"\0")
        if nul < 0:
            raise CodecError(reason, family=_MQRC, offset=base,
                             detail=f"{name}: VSLength -1 but no NUL terminator within bounds")
        raw = window[:nul]
        end = off + nul + 1
    else:
        raise CodecError(reason, family=_MQRC, offset=base, detail=f"{name}: VSLength {length}")
    try:
        text = raw.decode(_vs_codec(ccsid, codec), _ERR)
    except (UnicodeError, LookupError) as exc:
        raise CodecError(reason, family=_MQRC, offset=base + off,
                         detail=f"{name}: cannot decode with CCSID {ccsid}: {exc}") from None
    return MQCHARV(text, bufsize, ccsid), end


def _put_charvs(charvs, fixed: int, codec: str) -> tuple[list[int], bytes]:
    """Integers for each MQCHARV (5 each, in order) and the string bytes that follow the fixed part."""
    ints: list[int] = []
    tail: list[bytes] = []
    pos = fixed
    for cv in charvs:
        raw = cv.VSString.encode(_vs_codec(cv.VSCCSID, codec), _ERR)
        n = len(raw)
        bufsize = cv.VSBufSize
        if bufsize != MQVS_USE_VSLENGTH and bufsize < n:
            bufsize = n
        if n:
            padded = pad4(n)
            ints += (0, pos, bufsize, n, cv.VSCCSID)
            tail.append(raw + b"\0" * (padded - n))
            pos += padded
        else:
            ints += (0, 0, bufsize, 0, cv.VSCCSID)
    return ints, b"".join(tail)


# --------------------------------------------------------------------------------------------------
# MQMD
# --------------------------------------------------------------------------------------------------

_MD_ID = b"MD  "
_MD_V1 = "4s7i8s2i24s24si48s48s12s32s32si28s8s8s4s"
_MD_S = {1: _structs(_MD_V1), 2: _structs(_MD_V1 + "24s4i")}
_MD_S_LE = {v: s["<"] for v, s in _MD_S.items()}
_MD_S_BE = {v: s[">"] for v, s in _MD_S.items()}
_MD_BY_ORDER = {"<": _MD_S_LE, ">": _MD_S_BE}
_MD_SIZE = {1: 324, 2: 364}


@dataclass(slots=True)
class MQMD:
    """Message descriptor: v1 324 bytes, v2 364 bytes (docs/reference/fap.md §15.2)."""

    Version: int = C.MQMD_VERSION_1
    Report: int = C.MQRO_NONE
    MsgType: int = C.MQMT_DATAGRAM
    Expiry: int = C.MQEI_UNLIMITED
    Feedback: int = C.MQFB_NONE
    Encoding: int = C.MQENC_NATIVE
    CodedCharSetId: int = C.MQCCSI_Q_MGR
    Format: str = ""
    Priority: int = C.MQPRI_PRIORITY_AS_Q_DEF
    Persistence: int = C.MQPER_PERSISTENCE_AS_Q_DEF
    MsgId: bytes = _ZERO24
    CorrelId: bytes = _ZERO24
    BackoutCount: int = 0
    ReplyToQ: str = ""
    ReplyToQMgr: str = ""
    UserIdentifier: str = ""
    AccountingToken: bytes = _ZERO32
    ApplIdentityData: str = ""
    PutApplType: int = C.MQAT_NO_CONTEXT
    PutApplName: str = ""
    PutDate: str = ""
    PutTime: str = ""
    ApplOriginData: str = ""
    GroupId: bytes = _ZERO24
    MsgSeqNumber: int = 1
    Offset: int = 0
    MsgFlags: int = C.MQMF_NONE
    OriginalLength: int = MQOL_UNDEFINED

    _json_type: ClassVar[str] = "MQMD"
    _json_names: ClassVar[dict] = {"MsgType": "MQMT", "Feedback": "MQFB", "Persistence": "MQPER",
                                   "PutApplType": "MQAT"}

    def copy(self) -> MQMD:
        """A shallow copy (every field is immutable), much faster than ``dataclasses.replace``."""
        return MQMD(*MD_VALUES(self))

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        version, s = _layout(buf, offset, _MD_ID, C.MQRC_MD_ERROR, "MQMD", order, _MD_BY_ORDER)
        size = s.size
        key, values = _MD_SEEN.seen(buf, offset, size, order, codec)
        if values is not None:
            return cls(*values), offset + size
        v = s.unpack_from(buf, offset)
        dc = decode_char
        if version == 1:
            md = cls(1, v[2], v[3], v[4], v[5], v[6], v[7], dc(v[8], codec), v[9], v[10], v[11], v[12],
                     v[13], dc(v[14], codec), dc(v[15], codec), dc(v[16], codec), v[17], dc(v[18], codec),
                     v[19], dc(v[20], codec), dc(v[21], codec), dc(v[22], codec), dc(v[23], codec))
        else:
            md = cls(version, v[2], v[3], v[4], v[5], v[6], v[7], dc(v[8], codec), v[9], v[10], v[11],
                     v[12], v[13], dc(v[14], codec), dc(v[15], codec), dc(v[16], codec), v[17],
                     dc(v[18], codec), v[19], dc(v[20], codec), dc(v[21], codec), dc(v[22], codec),
                     dc(v[23], codec), v[24], v[25], v[26], v[27], v[28])
        _MD_SEEN.remember(key, MD_VALUES(md))
        return md, offset + size

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        s = _MD_BY_ORDER[order].get(self.Version)
        if s is None:
            raise CodecError(C.MQRC_MD_ERROR, family=_MQRC, detail=f"MQMD: unknown Version {self.Version}")
        e = _ENCODED.get(codec) or _encoders(codec)
        c8, c48 = e[8], e[48]
        # _bin24 and _bin, inline for the usual case (bytes of the right length): a reply packs two (HP6)
        msg_id, correl_id, token = self.MsgId, self.CorrelId, self.AccountingToken
        if type(msg_id) is not bytes or len(msg_id) != 24:
            msg_id = _bin(msg_id, 24, "MsgId")
        if type(correl_id) is not bytes or len(correl_id) != 24:
            correl_id = _bin(correl_id, 24, "CorrelId")
        if type(token) is not bytes or len(token) != 32:
            token = _bin(token, 32, "AccountingToken")
        head = (_MD_ID, self.Version, self.Report, self.MsgType, self.Expiry, self.Feedback, self.Encoding,
                self.CodedCharSetId, c8[self.Format], self.Priority, self.Persistence, msg_id, correl_id,
                self.BackoutCount, c48[self.ReplyToQ], c48[self.ReplyToQMgr], e[12][self.UserIdentifier], token,
                e[32][self.ApplIdentityData], self.PutApplType, e[28][self.PutApplName], c8[self.PutDate],
                c8[self.PutTime], e[4][self.ApplOriginData])
        if self.Version == 1:
            return s.pack(*head)
        group_id = self.GroupId
        if type(group_id) is not bytes or len(group_id) != 24:
            group_id = _bin(group_id, 24, "GroupId")
        return s.pack(*head, group_id, self.MsgSeqNumber, self.Offset, self.MsgFlags, self.OriginalLength)


# --------------------------------------------------------------------------------------------------
# MQOD
# --------------------------------------------------------------------------------------------------

_OD_ID = b"OD  "
_OD_V1 = "4s2i48s48s48s12s"
_OD_V2 = _OD_V1 + "8i"
_OD_V3 = _OD_V2 + "40s48s48s"
_OD_V4 = _OD_V3 + "15ii"
_OD_S = {"<": {}, ">": {}}
for _v, _f in ((1, _OD_V1), (2, _OD_V2), (3, _OD_V3), (4, _OD_V4)):
    for _o, _s in _structs(_f).items():
        _OD_S[_o][_v] = _s
_OD_MQOR = 96  # ObjectName + ObjectQMgrName
_OD_MQRR = 8  # CompCode + Reason



# Field by field in declaration order: ``MQMD(*MD_VALUES(md))`` copies one five times faster than
# ``dataclasses.replace`` (a publication's copies each start from its descriptor).
MD_VALUES = operator.attrgetter(*(f.name for f in fields(MQMD)))
_MD_SEEN = Decoded()


@dataclass(slots=True)
class MQOD:
    """Object descriptor: v1 168, v2 200, v3 336, v4 400 bytes + MQCHARV strings (docs/reference/fap.md §13.2).

    Distribution-list records (RecsPresent > 0 with ObjectRecOffset/ResponseRecOffset) are bounds-checked
    and counted in the end offset but not kept; ``pack`` writes the fields as they are and no records.
    """

    Version: int = C.MQOD_VERSION_1
    ObjectType: int = C.MQOT_Q
    ObjectName: str = ""
    ObjectQMgrName: str = ""
    DynamicQName: str = "AMQ.*"
    AlternateUserId: str = ""
    RecsPresent: int = 0
    KnownDestCount: int = 0
    UnknownDestCount: int = 0
    InvalidDestCount: int = 0
    ObjectRecOffset: int = 0
    ResponseRecOffset: int = 0
    ObjectRecPtr: int = 0
    ResponseRecPtr: int = 0
    AlternateSecurityId: bytes = _ZERO40
    ResolvedQName: str = ""
    ResolvedQMgrName: str = ""
    ObjectString: MQCHARV = field(default_factory=MQCHARV)
    SelectionString: MQCHARV = field(default_factory=MQCHARV)
    ResObjectString: MQCHARV = field(default_factory=MQCHARV)
    ResolvedType: int = C.MQOT_NONE

    _json_type: ClassVar[str] = "MQOD"
    _json_names: ClassVar[dict] = {"ObjectType": "MQOT", "ResolvedType": "MQOT"}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        reason = C.MQRC_OD_ERROR
        version = _head(buf, offset, _OD_ID, reason, "MQOD", order)
        s = _OD_S[order].get(version)
        if s is None:
            raise _bad_version(reason, "MQOD", version, offset)
        fixed = s.size
        if len(buf) - offset < fixed:
            raise _short(reason, "MQOD", version, fixed, len(buf) - offset, offset)
        v = s.unpack_from(buf, offset)
        dc = decode_char
        args = [version, v[2], dc(v[3], codec), dc(v[4], codec), dc(v[5], codec), dc(v[6], codec)]
        end = fixed
        if version >= 2:
            args += v[7:15]
            end = max(end, _od_records(buf, offset, v[7], v[11], v[12]))
        if version >= 3:
            args += (v[15], dc(v[16], codec), dc(v[17], codec))
        if version >= 4:
            obj, e1 = _get_charv(buf, offset, fixed, v[18:23], C.MQRC_OBJECT_STRING_ERROR,
                                 "ObjectString", codec)
            sel, e2 = _get_charv(buf, offset, fixed, v[23:28], C.MQRC_SELECTION_STRING_ERROR,
                                 "SelectionString", codec)
            res, e3 = _get_charv(buf, offset, fixed, v[28:33], C.MQRC_RES_OBJECT_STRING_ERROR,
                                 "ResObjectString", codec)
            args += (obj, sel, res, v[33])
            # the pad after the last string may be missing when the buffer ends there
            end = max(end, min(pad4(max(e1, e2, e3)), len(buf) - offset))
        return cls(*args), offset + end

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        version = self.Version
        s = _OD_S[order].get(version)
        if s is None:
            raise CodecError(C.MQRC_OD_ERROR, family=_MQRC, detail=f"MQOD: unknown Version {version}")
        ec = encode_char
        vals = [_OD_ID, version, self.ObjectType, ec(self.ObjectName, 48, codec),
                ec(self.ObjectQMgrName, 48, codec), ec(self.DynamicQName, 48, codec),
                ec(self.AlternateUserId, 12, codec)]
        tail = b""
        if version >= 2:
            vals += (self.RecsPresent, self.KnownDestCount, self.UnknownDestCount, self.InvalidDestCount,
                     self.ObjectRecOffset, self.ResponseRecOffset, self.ObjectRecPtr, self.ResponseRecPtr)
        if version >= 3:
            vals += (_bin(self.AlternateSecurityId, 40, "AlternateSecurityId"),
                     ec(self.ResolvedQName, 48, codec), ec(self.ResolvedQMgrName, 48, codec))
        if version >= 4:
            ints, tail = _put_charvs((self.ObjectString, self.SelectionString, self.ResObjectString),
                                     s.size, codec)
            vals += ints
            vals.append(self.ResolvedType)
        return s.pack(*vals) + tail


def _od_records(buf, base: int, recs: int, obj_off: int, resp_off: int) -> int:
    """End (relative to the OD) of the distribution-list records, bounds-checked; 0 when none."""
    if recs == 0:
        return 0
    if recs < 0:
        raise CodecError(C.MQRC_RECS_PRESENT_ERROR, family=_MQRC, offset=base, detail=f"RecsPresent {recs}")
    end = 0
    avail = len(buf) - base
    for off, size, reason in ((obj_off, _OD_MQOR, C.MQRC_OBJECT_RECORDS_ERROR),
                              (resp_off, _OD_MQRR, C.MQRC_RESPONSE_RECORDS_ERROR)):
        if off == 0:
            continue
        stop = off + recs * size
        if off < 0 or stop > avail:
            raise CodecError(reason, family=_MQRC, offset=base,
                             detail=f"{recs} records at offset {off} exceed the {avail} bytes present")
        end = max(end, stop)
    return end


# --------------------------------------------------------------------------------------------------
# MQPMO
# --------------------------------------------------------------------------------------------------

_PMO_ID = b"PMO "
_PMO_V1 = "4s7i48s48s"
_PMO_S = {"<": {}, ">": {}}
for _v, _f in ((1, _PMO_V1), (2, _PMO_V1 + "6i"), (3, _PMO_V1 + "6i2q2i")):
    for _o, _s in _structs(_f).items():
        _PMO_S[_o][_v] = _s


@dataclass(slots=True)
class MQPMO:
    """Put-message options: v1 128, v2 152, v3 176 bytes (docs/reference/fap.md §15.3).  Records are not interpreted."""

    Version: int = C.MQPMO_VERSION_1
    Options: int = C.MQPMO_NONE
    Timeout: int = -1
    Context: int = 0
    KnownDestCount: int = 0
    UnknownDestCount: int = 0
    InvalidDestCount: int = 0
    ResolvedQName: str = ""
    ResolvedQMgrName: str = ""
    RecsPresent: int = 0
    PutMsgRecFields: int = 0
    PutMsgRecOffset: int = 0
    ResponseRecOffset: int = 0
    PutMsgRecPtr: int = 0
    ResponseRecPtr: int = 0
    OriginalMsgHandle: int = MQHM_NONE
    NewMsgHandle: int = MQHM_NONE
    Action: int = MQACTP_NEW
    PubLevel: int = MQPUBLEVEL_DEFAULT

    _json_type: ClassVar[str] = "MQPMO"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        version, s = _layout(buf, offset, _PMO_ID, C.MQRC_PMO_ERROR, "MQPMO", order, _PMO_S)
        size = s.size
        key, values = _PMO_SEEN.seen(buf, offset, size, order, codec)
        if values is not None:
            return cls(*values), offset + size
        v = s.unpack_from(buf, offset)
        if version == 1:
            pmo = cls(1, v[2], v[3], v[4], v[5], v[6], v[7], decode_char(v[8], codec),
                      decode_char(v[9], codec))
        else:
            pmo = cls(version, v[2], v[3], v[4], v[5], v[6], v[7], decode_char(v[8], codec),
                      decode_char(v[9], codec), *v[10:])
        _PMO_SEEN.remember(key, PMO_VALUES(pmo))
        return pmo, offset + size

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        version = self.Version
        s = _PMO_S[order].get(version)
        if s is None:
            raise CodecError(C.MQRC_PMO_ERROR, family=_MQRC, detail=f"MQPMO: unknown Version {version}")
        c48 = (_ENCODED.get(codec) or _encoders(codec))[48]
        vals = [_PMO_ID, version, self.Options, self.Timeout, self.Context, self.KnownDestCount,
                self.UnknownDestCount, self.InvalidDestCount, c48[self.ResolvedQName], c48[self.ResolvedQMgrName]]
        if version >= 2:
            vals += (self.RecsPresent, self.PutMsgRecFields, self.PutMsgRecOffset, self.ResponseRecOffset,
                     self.PutMsgRecPtr, self.ResponseRecPtr)
        if version >= 3:
            vals += (self.OriginalMsgHandle, self.NewMsgHandle, self.Action, self.PubLevel)
        return s.pack(*vals)


PMO_VALUES = operator.attrgetter(*(f.name for f in fields(MQPMO)))
_PMO_SEEN = Decoded()


# --------------------------------------------------------------------------------------------------
# MQGMO
# --------------------------------------------------------------------------------------------------

_GMO_ID = b"GMO "
_GMO_V1 = "4s5i48s"
_GMO_S = {"<": {}, ">": {}}
for _v, _f in ((1, _GMO_V1), (2, _GMO_V1 + "i4B"), (3, _GMO_V1 + "i4B16si"), (4, _GMO_V1 + "i4B16siiq")):
    for _o, _s in _structs(_f).items():
        _GMO_S[_o][_v] = _s


@dataclass(slots=True)
class MQGMO:
    """Get-message options: v1 72, v2 80, v3 100, v4 112 bytes (docs/reference/fap.md §16.2).

    GroupStatus, SegmentStatus, Segmentation and Reserved1 are single MQCHARs kept as byte values
    (``C.MQGS_NOT_IN_GROUP`` is 32, a blank).
    """

    Version: int = C.MQGMO_VERSION_1
    Options: int = C.MQGMO_NO_WAIT
    WaitInterval: int = 0
    Signal1: int = 0
    Signal2: int = 0
    ResolvedQName: str = ""
    MatchOptions: int = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
    GroupStatus: int = C.MQGS_NOT_IN_GROUP
    SegmentStatus: int = C.MQSS_NOT_A_SEGMENT
    Segmentation: int = C.MQSEG_INHIBITED
    Reserved1: int = 32
    MsgToken: bytes = _ZERO16
    ReturnedLength: int = MQRL_UNDEFINED
    Reserved2: int = 0
    MsgHandle: int = MQHM_NONE

    _json_type: ClassVar[str] = "MQGMO"
    _json_names: ClassVar[dict] = {"GroupStatus": "MQGS", "SegmentStatus": "MQSS", "Segmentation": "MQSEG"}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        version, s = _layout(buf, offset, _GMO_ID, C.MQRC_GMO_ERROR, "MQGMO", order, _GMO_S)
        size = s.size
        key, values = _GMO_SEEN.seen(buf, offset, size, order, codec)
        if values is not None:
            return cls(*values), offset + size
        v = s.unpack_from(buf, offset)
        gmo = cls(version, v[2], v[3], v[4], v[5], decode_char(v[6], codec), *v[7:])
        _GMO_SEEN.remember(key, GMO_VALUES(gmo))
        return gmo, offset + size

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        version = self.Version
        s = _GMO_S[order].get(version)
        if s is None:
            raise CodecError(C.MQRC_GMO_ERROR, family=_MQRC, detail=f"MQGMO: unknown Version {version}")
        vals = [_GMO_ID, version, self.Options, self.WaitInterval, self.Signal1, self.Signal2,
                (_ENCODED.get(codec) or _encoders(codec))[48][self.ResolvedQName]]
        if version >= 2:
            vals += (self.MatchOptions, self.GroupStatus, self.SegmentStatus, self.Segmentation,
                     self.Reserved1)
        if version >= 3:
            vals += (_bin(self.MsgToken, 16, "MsgToken"), self.ReturnedLength)
        if version >= 4:
            vals += (self.Reserved2, self.MsgHandle)
        return s.pack(*vals)


GMO_VALUES = operator.attrgetter(*(f.name for f in fields(MQGMO)))
_GMO_SEEN = Decoded()

# Sizes by Version (with ``Decoded`` and the ``*_VALUES`` getters above): what pcf/calls.py's MQPUT and
# MQGET requests need to decode an MQMD and its options as one (HP6).
MD_SIZES = {v: s.size for v, s in _MD_S_LE.items()}
PMO_SIZES = {v: s.size for v, s in _PMO_S["<"].items()}
GMO_SIZES = {v: s.size for v, s in _GMO_S["<"].items()}


# --------------------------------------------------------------------------------------------------
# MQSD
# --------------------------------------------------------------------------------------------------

_SD_ID = b"SD  "
_SD_S = _structs("4s2i48s12s40si5i5i5i24si32s32s5ii5i")
_SD_SIZE = 312


@dataclass(slots=True)
class MQSD:
    """Subscription descriptor, version 1: 312 bytes + MQCHARV strings (docs/reference/fap.md §18.2)."""

    Version: int = C.MQSD_VERSION_1
    Options: int = 0
    ObjectName: str = ""
    AlternateUserId: str = ""
    AlternateSecurityId: bytes = _ZERO40
    SubExpiry: int = C.MQEI_UNLIMITED
    ObjectString: MQCHARV = field(default_factory=MQCHARV)
    SubName: MQCHARV = field(default_factory=MQCHARV)
    SubUserData: MQCHARV = field(default_factory=MQCHARV)
    SubCorrelId: bytes = _ZERO24
    PubPriority: int = C.MQPRI_PRIORITY_AS_PUBLISHED
    PubAccountingToken: bytes = _ZERO32
    PubApplIdentityData: str = ""
    SelectionString: MQCHARV = field(default_factory=MQCHARV)
    SubLevel: int = 1
    ResObjectString: MQCHARV = field(default_factory=MQCHARV)

    _json_type: ClassVar[str] = "MQSD"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        reason = C.MQRC_SD_ERROR
        version = _head(buf, offset, _SD_ID, reason, "MQSD", order)
        if version != 1:
            raise _bad_version(reason, "MQSD", version, offset)
        if len(buf) - offset < _SD_SIZE:
            raise _short(reason, "MQSD", version, _SD_SIZE, len(buf) - offset, offset)
        v = _SD_S[order].unpack_from(buf, offset)
        f = _SD_SIZE
        obj, e1 = _get_charv(buf, offset, f, v[7:12], C.MQRC_OBJECT_STRING_ERROR, "ObjectString", codec)
        name, e2 = _get_charv(buf, offset, f, v[12:17], C.MQRC_SUB_NAME_ERROR, "SubName", codec)
        udata, e3 = _get_charv(buf, offset, f, v[17:22], C.MQRC_SUB_USER_DATA_ERROR, "SubUserData", codec)
        sel, e4 = _get_charv(buf, offset, f, v[26:31], C.MQRC_SELECTION_STRING_ERROR, "SelectionString",
                             codec)
        res, e5 = _get_charv(buf, offset, f, v[32:37], C.MQRC_RES_OBJECT_STRING_ERROR, "ResObjectString",
                             codec)
        sd = cls(version, v[2], decode_char(v[3], codec), decode_char(v[4], codec), v[5], v[6], obj, name,
                 udata, v[22], v[23], v[24], decode_char(v[25], codec), sel, v[31], res)
        return sd, offset + max(f, min(pad4(max(e1, e2, e3, e4, e5)), len(buf) - offset))

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        if self.Version != 1:
            raise CodecError(C.MQRC_SD_ERROR, family=_MQRC, detail=f"MQSD: unknown Version {self.Version}")
        ints, tail = _put_charvs((self.ObjectString, self.SubName, self.SubUserData, self.SelectionString,
                                  self.ResObjectString), _SD_SIZE, codec)
        head = _SD_S[order].pack(
            _SD_ID, self.Version, self.Options, encode_char(self.ObjectName, 48, codec),
            encode_char(self.AlternateUserId, 12, codec),
            _bin(self.AlternateSecurityId, 40, "AlternateSecurityId"), self.SubExpiry, *ints[0:15],
            _bin(self.SubCorrelId, 24, "SubCorrelId"), self.PubPriority,
            _bin(self.PubAccountingToken, 32, "PubAccountingToken"),
            encode_char(self.PubApplIdentityData, 32, codec), *ints[15:20], self.SubLevel, *ints[20:25])
        return head + tail


# --------------------------------------------------------------------------------------------------
# MQSRO
# --------------------------------------------------------------------------------------------------

_SRO_ID = b"SRO "
_SRO_S = _structs("4s3i")


@dataclass(slots=True)
class MQSRO:
    """Subscription-request options: 16 bytes (docs/reference/fap.md §19)."""

    Version: int = C.MQSRO_VERSION_1
    Options: int = 0
    NumPubs: int = 0

    _json_type: ClassVar[str] = "MQSRO"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        version = _head(buf, offset, _SRO_ID, C.MQRC_SRO_ERROR, "MQSRO", order)
        if version != 1:
            raise _bad_version(C.MQRC_SRO_ERROR, "MQSRO", version, offset)
        if len(buf) - offset < 16:
            raise _short(C.MQRC_SRO_ERROR, "MQSRO", version, 16, len(buf) - offset, offset)
        _sid, _ver, options, numpubs = _SRO_S[order].unpack_from(buf, offset)
        return cls(version, options, numpubs), offset + 16

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        if self.Version != 1:
            raise CodecError(C.MQRC_SRO_ERROR, family=_MQRC, detail=f"MQSRO: unknown Version {self.Version}")
        return _SRO_S[order].pack(_SRO_ID, self.Version, self.Options, self.NumPubs)


# --------------------------------------------------------------------------------------------------
# FOPA (MQOPEN private area, docs/reference/fap.md §13.4)
# --------------------------------------------------------------------------------------------------

_FOPA_ID = b"FOPA"
_FOPA_S = {"<": {}, ">": {}}
for _v, _f in ((1, "4s6i"), (2, "4s6i48s2i")):
    for _o, _s in _structs(_f).items():
        _FOPA_S[_o][_v] = _s
FOPA_REASON = C.MQRC_OD_ERROR  # no MQRC exists for this private structure; it travels with the MQOD


@dataclass(slots=True)
class FOPA:
    """MQOPEN private area: v1 28, v2 84 bytes.  ``Length`` is kept as sent (not recomputed).

    Defaults are the values docs/reference/fap.md §13.4 recommends for a reply (v2, real values, not the emulator's -1).
    """

    Version: int = 2
    Length: int = 84
    DefPersistence: int = C.MQPER_NOT_PERSISTENT
    DefPutResponseType: int = C.MQPRT_SYNC_RESPONSE
    DefReadAhead: int = C.MQREADA_NO
    PropertyControl: int = C.MQPROP_COMPATIBILITY
    PolicyErrorQueue: str = ""
    PolicyDataOffset: int = 84
    PolicyDataLength: int = 0

    _json_type: ClassVar[str] = "FOPA"
    _json_names: ClassVar[dict] = {"DefPersistence": "MQPER", "DefPutResponseType": "MQPRT",
                                   "DefReadAhead": "MQREADA", "PropertyControl": "MQPROP"}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        version = _head(buf, offset, _FOPA_ID, FOPA_REASON, "FOPA", order)
        s = _FOPA_S[order].get(version)
        if s is None:
            raise _bad_version(FOPA_REASON, "FOPA", version, offset)
        if len(buf) - offset < s.size:
            raise _short(FOPA_REASON, "FOPA", version, s.size, len(buf) - offset, offset)
        v = s.unpack_from(buf, offset)
        if version == 1:
            return cls(1, *v[2:7]), offset + s.size
        return cls(version, *v[2:7], decode_char(v[7], codec), v[8], v[9]), offset + s.size

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        s = _FOPA_S[order].get(self.Version)
        if s is None:
            raise CodecError(FOPA_REASON, family=_MQRC, detail=f"FOPA: unknown Version {self.Version}")
        vals = [_FOPA_ID, self.Version, self.Length, self.DefPersistence, self.DefPutResponseType,
                self.DefReadAhead, self.PropertyControl]
        if self.Version >= 2:
            vals += (encode_char(self.PolicyErrorQueue, 48, codec), self.PolicyDataOffset,
                     self.PolicyDataLength)
        return s.pack(*vals)


# --------------------------------------------------------------------------------------------------
# MQRFH (v1) and MQRFH2: message-data headers, integers in the order of the message's Encoding
# --------------------------------------------------------------------------------------------------

_RFH_ID = b"RFH "
_RFH1_S = _structs("4s4i8si")  # StrucId, Version, StrucLength, Encoding, CodedCharSetId, Format, Flags
_RFH2_S = _structs("4s4i8s2i")  # ... + NameValueCCSID
_NVLEN = _structs("i")
# NameValueCCSID values IBM allows; the UTF-16 ones are read big-endian (encoding.py's choice for 1200).
_RFH2_CODECS = {1208: "utf-8", 1200: "utf-16-be", 13488: "utf-16-be", 17584: "utf-16-be"}
_PAD_STRIP = " \x00"


def _rfh_text_codec(ccsid: int, codec: str) -> str:
    return _RFH2_CODECS.get(ccsid) or codec_for_ccsid(ccsid) or codec


def _blank_pad(raw: bytes, codec: str) -> bytes:
    """``raw`` padded to a multiple of 4 with blanks in ``codec`` (NULs when a blank does not fit)."""
    pad = pad4(len(raw)) - len(raw)
    if not pad:
        return raw
    blank = " ".encode(codec)
    if pad % len(blank) == 0:
        return raw + blank * (pad // len(blank))
    return raw + b"\0" * pad


def _rfh_common(buf, offset: int, order: str, want_version: int, fixed: int, name: str):
    reason = C.MQRC_RFH_ERROR
    version = _head(buf, offset, _RFH_ID, reason, name, order)
    if version != want_version:
        raise _bad_version(reason, name, version, offset)
    if len(buf) - offset < fixed:
        raise _short(reason, name, version, fixed, len(buf) - offset, offset)
    v = (_RFH1_S if fixed == 32 else _RFH2_S)[order].unpack_from(buf, offset)
    struc_len = v[2]
    if struc_len < fixed or struc_len > len(buf) - offset:
        raise CodecError(reason, family=_MQRC, offset=offset,
                         detail=f"{name}: StrucLength {struc_len} (fixed part {fixed}, "
                                f"{len(buf) - offset} bytes present)")
    return v, struc_len


@dataclass(slots=True)
class MQRFH:
    """Rules-and-formatting header version 1: 32 bytes + NameValueString, StrucLength in all.

    The NameValueString is decoded with the caller's codec (the CCSID of the data the header sits in);
    trailing blanks/NULs are padding.  ``pack`` pads it with blanks to a multiple of 4 and computes
    StrucLength.  Integers follow the message data's Encoding: pass ``order`` accordingly.
    """

    Encoding: int = C.MQENC_NATIVE
    CodedCharSetId: int = C.MQCCSI_UNDEFINED
    Format: str = ""
    Flags: int = C.MQRFH_NO_FLAGS
    NameValueString: str = ""

    Version: ClassVar[int] = 1
    _json_type: ClassVar[str] = "MQRFH"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        v, struc_len = _rfh_common(buf, offset, order, 1, 32, "MQRFH")
        raw = bytes(buf[offset + 32:offset + struc_len])
        try:
            text = raw.decode(codec, _ERR).rstrip(_PAD_STRIP)
        except UnicodeError as exc:
            raise CodecError(C.MQRC_RFH_ERROR, family=_MQRC, offset=offset, detail=f"MQRFH: {exc}") from None
        return cls(v[3], v[4], decode_char(v[5], codec), v[6], text), offset + struc_len

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        body = _blank_pad(self.NameValueString.encode(codec, _ERR), codec)
        return _RFH1_S[order].pack(_RFH_ID, 1, 32 + len(body), self.Encoding, self.CodedCharSetId,
                                   encode_char(self.Format, 8, codec), self.Flags) + body


@dataclass(slots=True)
class MQRFH2:
    """Rules-and-formatting header version 2: 36 bytes + folders (NameValueLength i32 + NameValueData).

    ``Folders`` are the NameValueData strings decoded with NameValueCCSID (1208 UTF-8, 1200/13488/17584
    UTF-16BE, other known CCSIDs via encoding.py, else the caller's codec), trailing blanks/NULs removed.
    ``pack`` blank-pads each folder to a multiple of 4 and computes NameValueLength and StrucLength.
    Integers follow the message data's Encoding: pass ``order`` accordingly.
    """

    Encoding: int = C.MQENC_NATIVE
    CodedCharSetId: int = C.MQCCSI_INHERIT
    Format: str = ""
    Flags: int = C.MQRFH_NO_FLAGS
    NameValueCCSID: int = 1208
    Folders: list[str] = field(default_factory=list)

    Version: ClassVar[int] = 2
    _json_type: ClassVar[str] = "MQRFH2"

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        reason = C.MQRC_RFH_ERROR
        v, struc_len = _rfh_common(buf, offset, order, 2, 36, "MQRFH2")
        text_codec = _rfh_text_codec(v[7], codec)
        nvlen = _NVLEN[order]
        pos = offset + 36
        end = offset + struc_len
        folders: list[str] = []
        while pos < end:
            if end - pos < 4:
                raise CodecError(reason, family=_MQRC, offset=pos, detail="MQRFH2: truncated NameValueLength")
            (n,) = nvlen.unpack_from(buf, pos)
            pos += 4
            if n < 0 or n > end - pos:
                raise CodecError(reason, family=_MQRC, offset=pos - 4,
                                 detail=f"MQRFH2: NameValueLength {n}, {end - pos} bytes left")
            try:
                folders.append(bytes(buf[pos:pos + n]).decode(text_codec, _ERR).rstrip(_PAD_STRIP))
            except (UnicodeError, LookupError) as exc:
                raise CodecError(reason, family=_MQRC, offset=pos, detail=f"MQRFH2: {exc}") from None
            pos += n
        return cls(v[3], v[4], decode_char(v[5], codec), v[6], v[7], folders), end

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        text_codec = _rfh_text_codec(self.NameValueCCSID, codec)
        nvlen = _NVLEN[order]
        parts = []
        for folder in self.Folders:
            data = _blank_pad(folder.encode(text_codec, _ERR), text_codec)
            parts.append(nvlen.pack(len(data)))
            parts.append(data)
        body = b"".join(parts)
        return _RFH2_S[order].pack(_RFH_ID, 2, 36 + len(body), self.Encoding, self.CodedCharSetId,
                                   encode_char(self.Format, 8, codec), self.Flags,
                                   self.NameValueCCSID) + body


def unpack_rfh(buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
    """MQRFH or MQRFH2, chosen by the Version field."""
    version = _head(buf, offset, _RFH_ID, C.MQRC_RFH_ERROR, "MQRFH", order)
    if version == 2:
        return MQRFH2.unpack(buf, offset, order, codec)
    return MQRFH.unpack(buf, offset, order, codec)


# --------------------------------------------------------------------------------------------------
# MQDLH: the dead-letter header, integers in the order of the message data's Encoding
# --------------------------------------------------------------------------------------------------

_DLH_ID = b"DLH "
_DLH_S = _structs("4s2i48s48s2i8si28s8s8s")
MQDLH_VERSION_1 = 1
MQDLH_LENGTH_1 = 172


@dataclass(slots=True)
class MQDLH:
    """Dead-letter header, version 1: 172 bytes (IBM "MQDLH - Dead letter header").

    Encoding, CodedCharSetId and Format describe the data that follows the header (the original
    message's); the header itself is in the Encoding/CCSID of whatever precedes it (usually the MQMD), so
    pass ``order`` and ``codec`` accordingly.  Initial values are IBM's: Reason MQRC_NONE, Encoding 0,
    CodedCharSetId MQCCSI_UNDEFINED, Format MQFMT_NONE, PutApplType 0, the names blank.  ``unpack`` checks
    StrucId, Version and length (MQRC_DLH_ERROR); it does not judge CodedCharSetId, which IBM checks on
    MQPUT.
    """

    Version: int = MQDLH_VERSION_1
    Reason: int = C.MQRC_NONE
    DestQName: str = ""
    DestQMgrName: str = ""
    Encoding: int = 0
    CodedCharSetId: int = C.MQCCSI_UNDEFINED
    Format: str = ""
    PutApplType: int = 0
    PutApplName: str = ""
    PutDate: str = ""
    PutTime: str = ""

    _json_type: ClassVar[str] = "MQDLH"
    _json_names: ClassVar[dict] = {"Reason": ("MQRC", "MQFB"), "PutApplType": "MQAT"}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        reason = C.MQRC_DLH_ERROR
        version = _head(buf, offset, _DLH_ID, reason, "MQDLH", order)
        if version != MQDLH_VERSION_1:
            raise _bad_version(reason, "MQDLH", version, offset)
        if len(buf) - offset < MQDLH_LENGTH_1:
            raise _short(reason, "MQDLH", version, MQDLH_LENGTH_1, len(buf) - offset, offset)
        v = _DLH_S[order].unpack_from(buf, offset)
        dc = decode_char
        dlh = cls(version, v[2], dc(v[3], codec), dc(v[4], codec), v[5], v[6], dc(v[7], codec), v[8],
                  dc(v[9], codec), dc(v[10], codec), dc(v[11], codec))
        return dlh, offset + MQDLH_LENGTH_1

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        if self.Version != MQDLH_VERSION_1:
            raise CodecError(C.MQRC_DLH_ERROR, family=_MQRC, detail=f"MQDLH: unknown Version {self.Version}")
        ec = encode_char
        return _DLH_S[order].pack(
            _DLH_ID, self.Version, self.Reason, ec(self.DestQName, 48, codec),
            ec(self.DestQMgrName, 48, codec), self.Encoding, self.CodedCharSetId, ec(self.Format, 8, codec),
            self.PutApplType, ec(self.PutApplName, 28, codec), ec(self.PutDate, 8, codec),
            ec(self.PutTime, 8, codec))


_XQH_ID = b"XQH "
_XQH_S = _structs("4si48s48s")
MQXQH_VERSION_1 = 1
MQXQH_LENGTH_1 = 428  # 104 bytes of header and the embedded version-1 MQMD (324)


@dataclass(slots=True)
class MQXQH:
    """Transmission-queue header, version 1: 428 bytes (IBM "MQXQH - Transmission-queue header").

    What a queue manager puts in front of a message bound for another queue manager, on the transmission
    queue a sender channel reads: the destination queue and queue manager, and the message's own MQMD
    (version 1; ``MsgDesc``).  The message on the transmission queue has Format MQFMT_XMIT_Q_HEADER.
    """

    Version: int = MQXQH_VERSION_1
    RemoteQName: str = ""
    RemoteQMgrName: str = ""
    MsgDesc: MQMD = field(default_factory=MQMD)

    _json_type: ClassVar[str] = "MQXQH"
    _json_names: ClassVar[dict] = {}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        reason = C.MQRC_XQH_ERROR
        version = _head(buf, offset, _XQH_ID, reason, "MQXQH", order)
        if version != MQXQH_VERSION_1:
            raise _bad_version(reason, "MQXQH", version, offset)
        if len(buf) - offset < MQXQH_LENGTH_1:
            raise _short(reason, "MQXQH", version, MQXQH_LENGTH_1, len(buf) - offset, offset)
        v = _XQH_S[order].unpack_from(buf, offset)
        md, end = MQMD.unpack(buf, offset + _XQH_S[order].size, order, codec)
        return cls(version, decode_char(v[2], codec), decode_char(v[3], codec), md), end

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        if self.Version != MQXQH_VERSION_1:
            raise CodecError(C.MQRC_XQH_ERROR, family=_MQRC, detail=f"MQXQH: unknown Version {self.Version}")
        md = self.MsgDesc.copy()
        md.Version = C.MQMD_VERSION_1  # the header embeds a version-1 MQMD
        ec = encode_char
        return _XQH_S[order].pack(_XQH_ID, self.Version, ec(self.RemoteQName, 48, codec),
                                  ec(self.RemoteQMgrName, 48, codec)) + md.pack(order, codec)


_TM_ID = b"TM  "
_TM_S = _structs("4si48s48s64si256s128s128s")
MQTM_VERSION_1 = 1
MQTM_LENGTH_1 = 684


@dataclass(slots=True)
class MQTM:
    """Trigger message, version 1: 684 bytes (IBM "MQTM - Trigger message"), the body of a message of
    Format MQFMT_TRIGGER a queue manager puts on an initiation queue for a trigger monitor: the queue
    that triggered, its process definition's fields and its TriggerData."""

    Version: int = MQTM_VERSION_1
    QName: str = ""
    ProcessName: str = ""
    TriggerData: str = ""
    ApplType: int = 0
    ApplId: str = ""
    EnvData: str = ""
    UserData: str = ""

    _json_type: ClassVar[str] = "MQTM"
    _json_names: ClassVar[dict] = {"ApplType": "MQAT"}

    @classmethod
    def unpack(cls, buf, offset: int = 0, order: str = "<", codec: str = "latin-1"):
        reason = C.MQRC_TM_ERROR
        version = _head(buf, offset, _TM_ID, reason, "MQTM", order)
        if version != MQTM_VERSION_1:
            raise _bad_version(reason, "MQTM", version, offset)
        if len(buf) - offset < MQTM_LENGTH_1:
            raise _short(reason, "MQTM", version, MQTM_LENGTH_1, len(buf) - offset, offset)
        v = _TM_S[order].unpack_from(buf, offset)
        dc = decode_char
        return cls(version, dc(v[2], codec), dc(v[3], codec), dc(v[4], codec), v[5], dc(v[6], codec),
                   dc(v[7], codec), dc(v[8], codec)), offset + MQTM_LENGTH_1

    def pack(self, order: str = "<", codec: str = "latin-1") -> bytes:
        if self.Version != MQTM_VERSION_1:
            raise CodecError(C.MQRC_TM_ERROR, family=_MQRC, detail=f"MQTM: unknown Version {self.Version}")
        ec = encode_char
        return _TM_S[order].pack(_TM_ID, self.Version, ec(self.QName, 48, codec), ec(self.ProcessName, 48, codec),
                                 ec(self.TriggerData, 64, codec), self.ApplType, ec(self.ApplId, 256, codec),
                                 ec(self.EnvData, 128, codec), ec(self.UserData, 128, codec))


del _v, _f, _o, _s
