"""PCF structures: the MQCFH header and the MQCFxx parameter structures, decoded and encoded.

Sans-IO, standard library only.  ``decode`` turns the bytes of one whole PCF message (MQCFH plus its
parameters) into a :class:`PCFMessage`; ``encode`` does the reverse.  Layouts are those of docs/reference/pcf.md §4.

Decoding is strict and total: any malformed input raises :class:`~qmlite.pcf.errors.CodecError` carrying
the MQRCCF_* reason a queue manager answers (plus the offending parameter id and the byte offset of the
offending structure when known); no other exception escapes for any input bytes.  No length, count or
parameter count read from the input is trusted before it has been checked against the bytes that are
actually there, so hostile lengths fail fast and allocate nothing.

Decisions where the reference is silent (each one is also stated where it is implemented):

* Header: fewer than 36 bytes -> MSG_LENGTH_ERROR.  Type must be a message type (an MQCFT_* value that is
  not a parameter type and not NONE) -> else CFH_TYPE_ERROR.  StrucLength must be 36 -> CFH_LENGTH_ERROR.
  Version must be 1..3 -> CFH_VERSION_ERROR.  With ``strict``: MsgSeqNumber >= 1
  (CFH_MSG_SEQ_NUMBER_ERR) and Control 0 or 1 (CFH_CONTROL_ERROR).
* ParameterCount (header or group) negative, or larger than the remaining bytes can hold at 16 bytes per
  structure (the smallest parameter), -> CFH_PARM_COUNT_ERROR / CFGR_PARM_COUNT_ERROR, before any looping.
  Running out of bytes exactly at a structure boundary while parameters are still due gives the same
  reasons; a structure cut short, or bytes left after the last parameter, gives MSG_LENGTH_ERROR.
* A StrucLength below the fixed part, not a multiple of four, or inconsistent with the StringLength /
  Count fields -> the structure's *_LENGTH_ERROR (IBM: "not a multiple of four or inconsistent with the
  StringLength field value", 3010/3024).  A StrucLength that is valid in itself but runs past the end of
  the message -> MSG_LENGTH_ERROR.  StringLength / FilterValueLength / Count negative -> the structure's
  *_STRING_LENGTH_ERR / *_FILTER_VAL_LEN_ERR / *_COUNT_ERROR.  Per-parameter maxima (IBM's other cause
  of 3011/3027/3068/3069, and the only cause of MQRCCF_CFSL_TOTAL_LENGTH_ERROR 3067, "exceeds the
  maximum allowable for the parameter") belong to the command engine, so the codec never raises 3067.
* MQCFIN64 length errors use CFIN_LENGTH_ERROR and MQCFIL64 CFIL_LENGTH_ERROR / CFIL_COUNT_ERROR: IBM's
  pages for 3009 and 3028 say "The MQCFIN or MQCFIN64 ..." / "The MQCFIL or MQCFIL64 StrucLength ...".
* Fixed-size structures (MQCFIN 16, MQCFIN64 24, MQCFGR 16, MQCFIF 20) need their exact StrucLength.
  MQCFIL/MQCFIL64 need exactly 16 + n*Count with ``strict`` (every real sender writes that), at least
  that without.  String structures may be longer than needed (IBM: the bytes after the string "are not
  significant"); those bytes are ignored and re-encoding writes NULs.
* MQCFIN64's Reserved field is ignored on decode and written as 0.
* Filter operators must be one of the twelve MQCFOP_* values -> else CFIF/CFSF/CFBF_OPERATOR_ERROR.  Which
  operator makes sense for which filter type is left to the command engine.
* Text: the structure's CodedCharSetId if non-zero, else the message ``ccsid`` if non-zero, else UTF-8.
  A CCSID qmlite cannot decode -> MQRC_SOURCE_CCSID_ERROR (2111), documented by IBM as "the coded
  character-set identifier from which character data is to be converted is not valid or not supported";
  PCF replies may carry MQRC_* reasons.  Bytes that cannot be decoded even with surrogateescape (only
  possible with UTF-16, CCSID 1200, which is therefore decoded strictly so that every decoded value
  re-encodes to the same bytes) -> MQRC_NOT_CONVERTED (2119).  Values are never stripped.
* With ``strict`` only:
  - parameter-id families: MQCFIN/MQCFIN64/MQCFIL/MQCFIL64/MQCFIF 1..2000 (MQIA_FIRST..MQIA_LAST),
    MQCFST/MQCFSL/MQCFSF 2001..4000 (MQCA_FIRST..MQCA_LAST), MQCFBS/MQCFBF 6001..8000
    (MQBA_FIRST..MQBA_LAST, which contains MQBACF_*), MQCFGR >= 8001 (MQGACF_FIRST; the constants have no
    MQGACF_LAST) -> the structure's *_PARM_ID_ERROR.  MQCFIN64/MQCFIL64 report CFIN/CFIL_PARM_ID_ERROR.
  - duplicates at one nesting level, across structure types (an id is one parameter whatever structure
    carries it): CFIN_DUPLICATE_PARM for MQCFIN/MQCFIN64/MQCFIL/MQCFIL64 (there is no
    MQRCCF_CFIL_DUPLICATE_PARM; CFIL_DUPLICATE_VALUE 3026 means a repeated list element),
    CFST_DUPLICATE_PARM, CFSL_DUPLICATE_PARM, CFBS_DUPLICATE_PARM, chosen by the second occurrence's
    structure.  Groups may repeat (statistics messages repeat MQGACF_Q_STATISTICS_DATA) and filters are
    not counted (too many filters is the engine's MQRCCF_TOO_MANY_FILTERS).
  - header version needed by a structure: MQCFBS needs Version >= 2 (IBM MQCFBS page) and MQCFIF/MQCFSF
    need Version >= 3 (IBM MQCFIF q088630_ / MQCFSF q088660_: "must be MQCFH_VERSION_3 or higher");
    MQCFBF is treated like the other filters (>= 3).  Violation -> CFH_VERSION_ERROR with the
    structure's parameter id and offset.
* Groups nest at most ``MAX_GROUP_DEPTH`` (32) levels; a deeper MQCFGR -> STRUCTURE_TYPE_ERROR (a group
  where no further group is accepted).  The real fixtures nest one level.
* An MQCFSL whose StringLength is 0 costs no bytes per element, so its Count is bounded by the message
  length (else CFSL_COUNT_ERROR): decoded output stays linear in the input size.
* ``strict`` applies to every message type, MQCFT_USER included: the SPI OPEN reply's user PCF (fixture
  ``spi-open-reply-userpcf-*``) carries private ids (an MQCFST with id 6) and decodes only with
  ``strict=False``.
* A safety net turns any unexpected internal exception into MQRCCF_UNEXPECTED_ERROR (3238); the tests
  assert it never fires.
* List structures keep ``values`` (a tuple) as the field and expose ``.value`` as a read-only property
  returning the same tuple (properties work with slots); MQCFGR's ``.value`` is its ``parameters`` list.
* ``CodecError.offset`` is the offset of the offending structure from the start of the message (0 for
  header fields), or where the bytes ran out / where the trailing bytes start.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import ClassVar, Iterator

from . import constants as C
from .encoding import codec_for_ccsid, order_of_encoding, supported_ccsids
from .errors import CodecError

__all__ = [
    "CFH", "CFIN", "CFIN64", "CFIL", "CFIL64", "CFST", "CFSL", "CFBS", "CFGR", "CFIF", "CFSF", "CFBF",
    "PCFMessage", "decode", "encode", "MAX_GROUP_DEPTH", "PARAMETER_TYPES",
]

MAX_GROUP_DEPTH = 32

# ----------------------------------------------------------------------------------------------------
# Data model


@dataclass(slots=True)
class CFH:
    """MQCFH.  ``encode`` always writes StrucLength 36 and the real ParameterCount."""

    _json_type: ClassVar[str] = "MQCFH"
    _json_names: ClassVar[dict] = {
        "Type": "MQCFT", "Command": "MQCMD", "Control": "MQCFC", "CompCode": "MQCC", "Reason": ("MQRCCF", "MQRC"),
    }

    Type: int
    StrucLength: int = C.MQCFH_STRUC_LENGTH
    Version: int = C.MQCFH_VERSION_3
    Command: int = 0
    MsgSeqNumber: int = 1
    Control: int = C.MQCFC_LAST
    CompCode: int = 0
    Reason: int = 0
    ParameterCount: int = 0


@dataclass(slots=True)
class CFIN:
    _json_type: ClassVar[str] = "MQCFIN"
    parameter: int
    value: int


@dataclass(slots=True)
class CFIN64:
    _json_type: ClassVar[str] = "MQCFIN64"
    parameter: int
    value: int


@dataclass(slots=True)
class CFIL:
    """``values`` is a tuple after decode (encode accepts any sequence of ints); ``.value`` aliases it."""

    _json_type: ClassVar[str] = "MQCFIL"
    parameter: int
    values: tuple

    @property
    def value(self) -> tuple:
        return self.values


@dataclass(slots=True)
class CFIL64:
    _json_type: ClassVar[str] = "MQCFIL64"
    parameter: int
    values: tuple

    @property
    def value(self) -> tuple:
        return self.values


@dataclass(slots=True)
class CFST:
    """``value`` is exactly StringLength bytes decoded: blank padding of fixed-length attributes stays."""

    _json_type: ClassVar[str] = "MQCFST"
    parameter: int
    value: str
    ccsid: int = 0


@dataclass(slots=True)
class CFSL:
    _json_type: ClassVar[str] = "MQCFSL"
    parameter: int
    values: tuple
    ccsid: int = 0

    @property
    def value(self) -> tuple:
        return self.values


@dataclass(slots=True)
class CFBS:
    _json_type: ClassVar[str] = "MQCFBS"
    parameter: int
    value: bytes


@dataclass(slots=True)
class CFGR:
    """A group; ``parameters`` are its members (``.value`` aliases them)."""

    _json_type: ClassVar[str] = "MQCFGR"
    parameter: int
    parameters: list = field(default_factory=list)

    @property
    def value(self) -> list:
        return self.parameters

    def get(self, parameter_id: int, default=None):
        for p in self.parameters:
            if p.parameter == parameter_id:
                return p
        return default


@dataclass(slots=True)
class CFIF:
    _json_type: ClassVar[str] = "MQCFIF"
    _json_names: ClassVar[dict] = {"operator": "MQCFOP"}
    parameter: int
    operator: int
    value: int


@dataclass(slots=True)
class CFSF:
    _json_type: ClassVar[str] = "MQCFSF"
    _json_names: ClassVar[dict] = {"operator": "MQCFOP"}
    parameter: int
    operator: int
    value: str
    ccsid: int = 0


@dataclass(slots=True)
class CFBF:
    _json_type: ClassVar[str] = "MQCFBF"
    _json_names: ClassVar[dict] = {"operator": "MQCFOP"}
    parameter: int
    operator: int
    value: bytes


PARAMETER_TYPES = (CFIN, CFIN64, CFIL, CFIL64, CFST, CFSL, CFBS, CFGR, CFIF, CFSF, CFBF)


@dataclass(slots=True)
class PCFMessage:
    _json_type: ClassVar[str] = "PCF"
    header: CFH
    parameters: list = field(default_factory=list)

    def get(self, parameter_id: int, default=None):
        """The first top-level parameter structure with that id, else ``default``."""
        for p in self.parameters:
            if p.parameter == parameter_id:
                return p
        return default

    def __iter__(self) -> Iterator:
        return iter(self.parameters)


# ----------------------------------------------------------------------------------------------------
# Constants and precompiled structs

_T_INTEGER = C.MQCFT_INTEGER
_T_STRING = C.MQCFT_STRING
_T_INTEGER_LIST = C.MQCFT_INTEGER_LIST
_T_STRING_LIST = C.MQCFT_STRING_LIST
_T_BYTE_STRING = C.MQCFT_BYTE_STRING
_T_INTEGER_FILTER = C.MQCFT_INTEGER_FILTER
_T_STRING_FILTER = C.MQCFT_STRING_FILTER
_T_BYTE_STRING_FILTER = C.MQCFT_BYTE_STRING_FILTER
_T_GROUP = C.MQCFT_GROUP
_T_INTEGER64 = C.MQCFT_INTEGER64
_T_INTEGER64_LIST = C.MQCFT_INTEGER64_LIST

_PARAM_TYPE_VALUES = frozenset({
    _T_INTEGER, _T_STRING, _T_INTEGER_LIST, _T_STRING_LIST, _T_BYTE_STRING, _T_INTEGER_FILTER,
    _T_STRING_FILTER, _T_BYTE_STRING_FILTER, _T_GROUP, _T_INTEGER64, _T_INTEGER64_LIST,
})
# Every MQCFT_* value that is neither NONE nor a parameter structure is a message type.
_MESSAGE_TYPES = frozenset(
    v for n, v in vars(C).items()
    if n.startswith("MQCFT_") and isinstance(v, int) and v != C.MQCFT_NONE and v not in _PARAM_TYPE_VALUES
)
_OPERATORS = frozenset(v for n, v in vars(C).items() if n.startswith("MQCFOP_") and isinstance(v, int))

_INT_LO, _INT_HI = C.MQIA_FIRST, C.MQIA_LAST  # 1..2000
_STR_LO, _STR_HI = C.MQCA_FIRST, C.MQCA_LAST  # 2001..4000
_BYTE_LO, _BYTE_HI = C.MQBA_FIRST, C.MQBA_LAST  # 6001..8000 (MQBACF_FIRST 7001 lies inside)
_GROUP_LO = C.MQGACF_FIRST  # 8001

_CFH_LEN = C.MQCFH_STRUC_LENGTH  # 36
_MIN_PARAM = C.MQCFIN_STRUC_LENGTH  # 16: the smallest parameter structure
_VERSION_MIN, _VERSION_MAX = C.MQCFH_VERSION_1, C.MQCFH_VERSION_3

_SE = "surrogateescape"

# CCSID -> Python codec; 0 (no CCSID anywhere) means UTF-8.
_CODECS: dict = {c: codec_for_ccsid(c) for c in supported_ccsids()}
_CODECS[0] = "utf-8"


def _round_trips(codec: str) -> bool:
    sample = bytes(range(256)) + bytes(range(255, -1, -1))
    try:
        return sample.decode(codec, _SE).encode(codec, _SE) == sample
    except UnicodeError:
        return False


# Codecs where surrogateescape cannot keep arbitrary bytes (UTF-16: escaped bytes below 0x80 fail and
# escaped surrogates cannot be re-encoded).  Their text is decoded strictly, so every decoded value
# re-encodes to the same bytes; undecodable bytes -> MQRC_NOT_CONVERTED.
_STRICT_CODECS = frozenset(c for c in set(_CODECS.values()) if not _round_trips(c))
_BLANKS: dict = {}


class _Structs:
    __slots__ = ("order", "cfh", "u4", "i", "ii", "q", "p4", "p5", "p6", "p_in64")

    def __init__(self, order: str) -> None:
        self.order = order
        self.cfh = struct.Struct(order + "9i")
        self.u4 = struct.Struct(order + "4i")  # Type, StrucLength, Parameter, 4th field
        self.i = struct.Struct(order + "i")
        self.ii = struct.Struct(order + "2i")
        self.q = struct.Struct(order + "q")
        self.p4 = struct.Struct(order + "4i")
        self.p5 = struct.Struct(order + "5i")
        self.p6 = struct.Struct(order + "6i")
        self.p_in64 = struct.Struct(order + "4iq")


_STRUCTS = {">": _Structs(">"), "<": _Structs("<")}

# ----------------------------------------------------------------------------------------------------
# Decoding


def _err(reason: int, parameter=None, offset=None, detail: str = "") -> CodecError:
    return CodecError(reason, parameter=parameter, offset=offset, detail=detail)


def decode(data, encoding: int = 546, ccsid: int = 0, *, strict: bool = True) -> PCFMessage:
    """Decode one whole PCF message (MQCFH + parameters).

    ``encoding`` is the MQMD.Encoding that carried the message (only its integer part matters);
    ``ccsid`` the MQMD.CodedCharSetId, used for strings whose own CodedCharSetId is 0.
    """
    order = order_of_encoding(encoding)
    if order is None:
        raise _err(C.MQRCCF_ENCODING_ERROR, detail=f"encoding {encoding} has no defined integer order")
    if type(data) is not bytes:
        data = bytes(data)
    n = len(data)
    if n < _CFH_LEN:
        raise _err(C.MQRCCF_MSG_LENGTH_ERROR, offset=n, detail=f"{n} bytes cannot hold an MQCFH")
    S = _STRUCTS[order]
    typ, slen, version, command, seq, control, cc, rc, count = S.cfh.unpack_from(data, 0)
    if typ not in _MESSAGE_TYPES:
        raise _err(C.MQRCCF_CFH_TYPE_ERROR, offset=0, detail=f"MQCFH Type {typ}")
    if slen != _CFH_LEN:
        raise _err(C.MQRCCF_CFH_LENGTH_ERROR, offset=0, detail=f"MQCFH StrucLength {slen}")
    if not _VERSION_MIN <= version <= _VERSION_MAX:
        raise _err(C.MQRCCF_CFH_VERSION_ERROR, offset=0, detail=f"MQCFH Version {version}")
    if strict:
        if seq < 1:
            raise _err(C.MQRCCF_CFH_MSG_SEQ_NUMBER_ERR, offset=0, detail=f"MsgSeqNumber {seq}")
        if control != C.MQCFC_LAST and control != C.MQCFC_NOT_LAST:
            raise _err(C.MQRCCF_CFH_CONTROL_ERROR, offset=0, detail=f"Control {control}")
    if count < 0 or count * _MIN_PARAM > n - _CFH_LEN:
        raise _err(C.MQRCCF_CFH_PARM_COUNT_ERROR, offset=0,
                   detail=f"ParameterCount {count} with {n - _CFH_LEN} bytes of parameters")
    try:
        params, pos = _params(data, _CFH_LEN, n, count, 0, None, S, ccsid, version, strict)
    except CodecError:
        raise
    except (struct.error, IndexError, OverflowError, UnicodeError, RecursionError, MemoryError,
            TypeError, ValueError) as exc:  # pragma: no cover - safety net; tests assert it never fires
        raise _err(C.MQRCCF_UNEXPECTED_ERROR, detail=f"internal decoder error: {exc!r}") from None
    if pos != n:
        raise _err(C.MQRCCF_MSG_LENGTH_ERROR, offset=pos, detail=f"{n - pos} bytes after the last parameter")
    return PCFMessage(CFH(typ, slen, version, command, seq, control, cc, rc, count), params)


def _codec(ccsid: int, msg_ccsid: int, pid: int, pos: int) -> str:
    codec = _CODECS.get(ccsid or msg_ccsid)
    if codec is None:
        raise _err(C.MQRC_SOURCE_CCSID_ERROR, pid, pos, f"CCSID {ccsid or msg_ccsid} not supported")
    return codec


def _params(data: bytes, p: int, end: int, count: int, depth: int, group, S: _Structs,
            msg_ccsid: int, version: int, strict: bool):
    """Decode ``count`` parameter structures from ``data[p:end]``; return (list, new position).

    ``count`` has already been checked to be >= 0 and at most (end - p) // 16, so the loop is bounded by
    the input size.
    """
    out: list = []
    append = out.append
    seen: set = set()
    u4 = S.u4.unpack_from
    u1 = S.i.unpack_from
    u2 = S.ii.unpack_from
    uq = S.q.unpack_from
    order = S.order
    codecs_get = _CODECS.get
    strict_codecs = _STRICT_CODECS
    pid = None
    try:
        for _ in range(count):
            rem = end - p
            if rem < _MIN_PARAM:
                if rem == 0:
                    if group is None:
                        raise _err(C.MQRCCF_CFH_PARM_COUNT_ERROR, None, p,
                                   "message ended before ParameterCount structures")
                    raise _err(C.MQRCCF_CFGR_PARM_COUNT_ERROR, group, p,
                               "message ended before the group's ParameterCount structures")
                raise _err(C.MQRCCF_MSG_LENGTH_ERROR, None, p, f"{rem} bytes cannot hold a parameter")
            t, sl, pid, f4 = u4(data, p)

            if t == _T_STRING:  # MQCFST: f4 = CodedCharSetId
                if sl < 20 or sl & 3:
                    raise _err(C.MQRCCF_CFST_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if sl > rem:
                    raise _err(C.MQRCCF_MSG_LENGTH_ERROR, pid, p, f"StrucLength {sl} > {rem} bytes left")
                n = u1(data, p + 16)[0]
                if n < 0:
                    raise _err(C.MQRCCF_CFST_STRING_LENGTH_ERR, pid, p, f"StringLength {n}")
                if n > sl - 20:
                    raise _err(C.MQRCCF_CFST_LENGTH_ERROR, pid, p, f"StrucLength {sl}, StringLength {n}")
                codec = codecs_get(f4 or msg_ccsid)
                if codec is None:
                    codec = _codec(f4, msg_ccsid, pid, p)
                if strict:
                    if not _STR_LO <= pid <= _STR_HI:
                        raise _err(C.MQRCCF_CFST_PARM_ID_ERROR, pid, p)
                    if pid in seen:
                        raise _err(C.MQRCCF_CFST_DUPLICATE_PARM, pid, p)
                    seen.add(pid)
                errors = "strict" if codec in strict_codecs else _SE
                append(CFST(pid, data[p + 20:p + 20 + n].decode(codec, errors), f4))

            elif t == _T_INTEGER:  # MQCFIN: f4 = Value
                if sl != 16:
                    raise _err(C.MQRCCF_CFIN_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if strict:
                    if not _INT_LO <= pid <= _INT_HI:
                        raise _err(C.MQRCCF_CFIN_PARM_ID_ERROR, pid, p)
                    if pid in seen:
                        raise _err(C.MQRCCF_CFIN_DUPLICATE_PARM, pid, p)
                    seen.add(pid)
                append(CFIN(pid, f4))

            elif t == _T_INTEGER_LIST or t == _T_INTEGER64_LIST:  # f4 = Count
                size = 4 if t == _T_INTEGER_LIST else 8
                if sl < 16 or sl & 3:
                    raise _err(C.MQRCCF_CFIL_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if sl > rem:
                    raise _err(C.MQRCCF_MSG_LENGTH_ERROR, pid, p, f"StrucLength {sl} > {rem} bytes left")
                if f4 < 0:
                    raise _err(C.MQRCCF_CFIL_COUNT_ERROR, pid, p, f"Count {f4}")
                need = 16 + size * f4
                if sl < need or (strict and sl != need):
                    raise _err(C.MQRCCF_CFIL_LENGTH_ERROR, pid, p, f"StrucLength {sl}, Count {f4}")
                if strict:
                    if not _INT_LO <= pid <= _INT_HI:
                        raise _err(C.MQRCCF_CFIL_PARM_ID_ERROR, pid, p)
                    if pid in seen:
                        raise _err(C.MQRCCF_CFIN_DUPLICATE_PARM, pid, p)
                    seen.add(pid)
                if size == 4:
                    append(CFIL(pid, struct.unpack_from(f"{order}{f4}i", data, p + 16)))
                else:
                    append(CFIL64(pid, struct.unpack_from(f"{order}{f4}q", data, p + 16)))

            elif t == _T_BYTE_STRING:  # MQCFBS: f4 = StringLength
                if sl < 16 or sl & 3:
                    raise _err(C.MQRCCF_CFBS_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if sl > rem:
                    raise _err(C.MQRCCF_MSG_LENGTH_ERROR, pid, p, f"StrucLength {sl} > {rem} bytes left")
                if f4 < 0:
                    raise _err(C.MQRCCF_CFBS_STRING_LENGTH_ERR, pid, p, f"StringLength {f4}")
                if f4 > sl - 16:
                    raise _err(C.MQRCCF_CFBS_LENGTH_ERROR, pid, p, f"StrucLength {sl}, StringLength {f4}")
                if strict:
                    if not _BYTE_LO <= pid <= _BYTE_HI:
                        raise _err(C.MQRCCF_CFBS_PARM_ID_ERROR, pid, p)
                    if version < 2:
                        raise _err(C.MQRCCF_CFH_VERSION_ERROR, pid, p, "MQCFBS needs MQCFH Version >= 2")
                    if pid in seen:
                        raise _err(C.MQRCCF_CFBS_DUPLICATE_PARM, pid, p)
                    seen.add(pid)
                append(CFBS(pid, data[p + 16:p + 16 + f4]))

            elif t == _T_GROUP:  # MQCFGR: f4 = ParameterCount
                if sl != 16:
                    raise _err(C.MQRCCF_CFGR_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if f4 < 0 or f4 * _MIN_PARAM > rem - 16:
                    raise _err(C.MQRCCF_CFGR_PARM_COUNT_ERROR, pid, p,
                               f"ParameterCount {f4} with {rem - 16} bytes left")
                if strict and pid < _GROUP_LO:
                    raise _err(C.MQRCCF_CFGR_PARM_ID_ERROR, pid, p)
                if depth >= MAX_GROUP_DEPTH:
                    raise _err(C.MQRCCF_STRUCTURE_TYPE_ERROR, pid, p,
                               f"groups nested deeper than {MAX_GROUP_DEPTH} levels")
                members, p = _params(data, p + 16, end, f4, depth + 1, pid, S, msg_ccsid, version, strict)
                append(CFGR(pid, members))
                continue  # p already advanced past the members

            elif t == _T_STRING_LIST:  # MQCFSL: f4 = CodedCharSetId
                if sl < 24 or sl & 3:
                    raise _err(C.MQRCCF_CFSL_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if sl > rem:
                    raise _err(C.MQRCCF_MSG_LENGTH_ERROR, pid, p, f"StrucLength {sl} > {rem} bytes left")
                cnt, n = u2(data, p + 16)
                if cnt < 0:
                    raise _err(C.MQRCCF_CFSL_COUNT_ERROR, pid, p, f"Count {cnt}")
                if n < 0:
                    raise _err(C.MQRCCF_CFSL_STRING_LENGTH_ERR, pid, p, f"StringLength {n}")
                if cnt * n > sl - 24:
                    raise _err(C.MQRCCF_CFSL_LENGTH_ERROR, pid, p,
                               f"StrucLength {sl}, Count {cnt}, StringLength {n}")
                if n == 0 and cnt > end:  # empty strings cost no bytes: keep the output linear in the input
                    raise _err(C.MQRCCF_CFSL_COUNT_ERROR, pid, p, f"Count {cnt} of empty strings")
                codec = codecs_get(f4 or msg_ccsid)
                if codec is None:
                    codec = _codec(f4, msg_ccsid, pid, p)
                if strict:
                    if not _STR_LO <= pid <= _STR_HI:
                        raise _err(C.MQRCCF_CFSL_PARM_ID_ERROR, pid, p)
                    if pid in seen:
                        raise _err(C.MQRCCF_CFSL_DUPLICATE_PARM, pid, p)
                    seen.add(pid)
                b = p + 24
                errors = "strict" if codec in strict_codecs else _SE
                append(CFSL(pid, tuple([data[b + i * n:b + i * n + n].decode(codec, errors) for i in range(cnt)]), f4))

            elif t == _T_INTEGER64:  # MQCFIN64: f4 = Reserved
                if sl != 24:
                    raise _err(C.MQRCCF_CFIN_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if sl > rem:
                    raise _err(C.MQRCCF_MSG_LENGTH_ERROR, pid, p, f"StrucLength {sl} > {rem} bytes left")
                if strict:
                    if not _INT_LO <= pid <= _INT_HI:
                        raise _err(C.MQRCCF_CFIN_PARM_ID_ERROR, pid, p)
                    if pid in seen:
                        raise _err(C.MQRCCF_CFIN_DUPLICATE_PARM, pid, p)
                    seen.add(pid)
                append(CFIN64(pid, uq(data, p + 16)[0]))

            elif t == _T_STRING_FILTER:  # MQCFSF: f4 = Operator
                if sl < 24 or sl & 3:
                    raise _err(C.MQRCCF_CFSF_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if sl > rem:
                    raise _err(C.MQRCCF_MSG_LENGTH_ERROR, pid, p, f"StrucLength {sl} > {rem} bytes left")
                fccsid, n = u2(data, p + 16)
                if n < 0:
                    raise _err(C.MQRCCF_CFSF_FILTER_VAL_LEN_ERR, pid, p, f"FilterValueLength {n}")
                if n > sl - 24:
                    raise _err(C.MQRCCF_CFSF_LENGTH_ERROR, pid, p, f"StrucLength {sl}, FilterValueLength {n}")
                if f4 not in _OPERATORS:
                    raise _err(C.MQRCCF_CFSF_OPERATOR_ERROR, pid, p, f"Operator {f4}")
                codec = codecs_get(fccsid or msg_ccsid)
                if codec is None:
                    codec = _codec(fccsid, msg_ccsid, pid, p)
                if strict:
                    if not _STR_LO <= pid <= _STR_HI:
                        raise _err(C.MQRCCF_CFSF_PARM_ID_ERROR, pid, p)
                    if version < 3:
                        raise _err(C.MQRCCF_CFH_VERSION_ERROR, pid, p, "MQCFSF needs MQCFH Version >= 3")
                errors = "strict" if codec in strict_codecs else _SE
                append(CFSF(pid, f4, data[p + 24:p + 24 + n].decode(codec, errors), fccsid))

            elif t == _T_INTEGER_FILTER:  # MQCFIF: f4 = Operator
                if sl != 20:
                    raise _err(C.MQRCCF_CFIF_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if sl > rem:
                    raise _err(C.MQRCCF_MSG_LENGTH_ERROR, pid, p, f"StrucLength {sl} > {rem} bytes left")
                if f4 not in _OPERATORS:
                    raise _err(C.MQRCCF_CFIF_OPERATOR_ERROR, pid, p, f"Operator {f4}")
                if strict:
                    if not _INT_LO <= pid <= _INT_HI:
                        raise _err(C.MQRCCF_CFIF_PARM_ID_ERROR, pid, p)
                    if version < 3:
                        raise _err(C.MQRCCF_CFH_VERSION_ERROR, pid, p, "MQCFIF needs MQCFH Version >= 3")
                append(CFIF(pid, f4, u1(data, p + 16)[0]))

            elif t == _T_BYTE_STRING_FILTER:  # MQCFBF: f4 = Operator
                if sl < 20 or sl & 3:
                    raise _err(C.MQRCCF_CFBF_LENGTH_ERROR, pid, p, f"StrucLength {sl}")
                if sl > rem:
                    raise _err(C.MQRCCF_MSG_LENGTH_ERROR, pid, p, f"StrucLength {sl} > {rem} bytes left")
                n = u1(data, p + 16)[0]
                if n < 0:
                    raise _err(C.MQRCCF_CFBF_FILTER_VAL_LEN_ERR, pid, p, f"FilterValueLength {n}")
                if n > sl - 20:
                    raise _err(C.MQRCCF_CFBF_LENGTH_ERROR, pid, p, f"StrucLength {sl}, FilterValueLength {n}")
                if f4 not in _OPERATORS:
                    raise _err(C.MQRCCF_CFBF_OPERATOR_ERROR, pid, p, f"Operator {f4}")
                if strict:
                    if not _BYTE_LO <= pid <= _BYTE_HI:
                        raise _err(C.MQRCCF_CFBF_PARM_ID_ERROR, pid, p)
                    if version < 3:
                        raise _err(C.MQRCCF_CFH_VERSION_ERROR, pid, p, "MQCFBF needs MQCFH Version >= 3")
                append(CFBF(pid, f4, data[p + 20:p + 20 + n]))

            else:
                raise _err(C.MQRCCF_STRUCTURE_TYPE_ERROR, pid, p, f"parameter Type {t}")
            p += sl
    except UnicodeDecodeError:
        raise _err(C.MQRC_NOT_CONVERTED, pid, p, "text not decodable in its CCSID") from None
    return out, p



# ----------------------------------------------------------------------------------------------------
# Encoding

_NULS = (b"", b"\0", b"\0\0", b"\0\0\0")


def _blank(codec: str) -> bytes:
    b = _BLANKS.get(codec)
    if b is None:
        b = _BLANKS[codec] = " ".encode(codec)
    return b


def encode(msg: PCFMessage, encoding: int = 546, ccsid: int = 0) -> bytes:
    """Encode a message.  StrucLength and ParameterCount (header and groups) are computed, not taken
    from the objects; everything else in the header is written as given.

    Text of structures whose ccsid is 0 is encoded in ``ccsid`` (the carrying MQMD's CodedCharSetId)
    or, when that is 0 too, UTF-8 -- the same rule ``decode`` applies (and, as there, an unsupported
    ``ccsid`` only matters when some text needs it).  Strings are padded with NULs
    to a multiple of four; MQCFSL elements are blank-padded to the longest one.  Raises ValueError
    for objects that cannot be encoded.
    """
    order = order_of_encoding(encoding)
    if order is None:
        raise ValueError(f"encoding {encoding} has no defined integer order")
    S = _STRUCTS[order]
    h = msg.header
    params = msg.parameters
    buf = bytearray(_CFH_LEN)
    try:
        _enc(params, buf, S, ccsid)
        S.cfh.pack_into(buf, 0, h.Type, _CFH_LEN, h.Version, h.Command, h.MsgSeqNumber, h.Control,
                        h.CompCode, h.Reason, len(params))
    except (struct.error, TypeError, AttributeError, UnicodeError, KeyError) as exc:
        raise ValueError(f"cannot encode PCF message: {exc}") from exc
    return bytes(buf)


def _text_codec(ccsid: int, msg_ccsid: int) -> str:
    codec = _CODECS.get(ccsid or msg_ccsid)
    if codec is None:
        raise ValueError(f"CCSID {ccsid} not supported")
    return codec


def _raw(value) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise ValueError(f"byte-string value must be bytes, not {type(value).__name__}")


def _enc(params, buf: bytearray, S: _Structs, msg_ccsid: int, depth: int = 0) -> None:
    p4 = S.p4.pack
    p5 = S.p5.pack
    p6 = S.p6.pack
    order = S.order
    codecs_get = _CODECS.get
    for prm in params:
        cls = prm.__class__
        if cls is CFST:
            cc = prm.ccsid
            codec = codecs_get(cc or msg_ccsid) or _text_codec(cc, msg_ccsid)
            raw = prm.value.encode(codec, _SE)
            n = len(raw)
            pad = -n & 3
            buf += p5(_T_STRING, 20 + n + pad, prm.parameter, cc, n)
            buf += raw
            if pad:
                buf += _NULS[pad]
        elif cls is CFIN:
            buf += p4(_T_INTEGER, 16, prm.parameter, prm.value)
        elif cls is CFIL or cls is CFIL64:
            vals = prm.values
            k = len(vals)
            if cls is CFIL:
                buf += p4(_T_INTEGER_LIST, 16 + 4 * k, prm.parameter, k)
                buf += struct.pack(f"{order}{k}i", *vals)
            else:
                buf += p4(_T_INTEGER64_LIST, 16 + 8 * k, prm.parameter, k)
                buf += struct.pack(f"{order}{k}q", *vals)
        elif cls is CFBS:
            raw = _raw(prm.value)
            n = len(raw)
            pad = -n & 3
            buf += p4(_T_BYTE_STRING, 16 + n + pad, prm.parameter, n)
            buf += raw
            if pad:
                buf += _NULS[pad]
        elif cls is CFGR:
            if depth >= MAX_GROUP_DEPTH:
                raise ValueError(f"groups nested deeper than {MAX_GROUP_DEPTH} levels")
            members = prm.parameters
            buf += p4(_T_GROUP, 16, prm.parameter, len(members))
            _enc(members, buf, S, msg_ccsid, depth + 1)
        elif cls is CFSL:
            cc = prm.ccsid
            codec = codecs_get(cc or msg_ccsid) or _text_codec(cc, msg_ccsid)
            if isinstance(prm.values, (str, bytes)):
                raise ValueError("MQCFSL values must be a sequence of str")
            raws = [v.encode(codec, _SE) for v in prm.values]
            n = max(map(len, raws), default=0)
            k = len(raws)
            body = bytearray()
            blank = None
            for r in raws:
                body += r
                short = n - len(r)
                if short:
                    if blank is None:
                        blank = _blank(codec)
                    body += (blank * short)[:short]
            total = k * n
            pad = -total & 3
            buf += p6(_T_STRING_LIST, 24 + total + pad, prm.parameter, cc, k, n)
            buf += body
            if pad:
                buf += _NULS[pad]
        elif cls is CFIN64:
            buf += S.p_in64.pack(_T_INTEGER64, 24, prm.parameter, 0, prm.value)
        elif cls is CFIF:
            buf += p5(_T_INTEGER_FILTER, 20, prm.parameter, prm.operator, prm.value)
        elif cls is CFSF:
            cc = prm.ccsid
            codec = codecs_get(cc or msg_ccsid) or _text_codec(cc, msg_ccsid)
            raw = prm.value.encode(codec, _SE)
            n = len(raw)
            pad = -n & 3
            buf += p6(_T_STRING_FILTER, 24 + n + pad, prm.parameter, prm.operator, cc, n)
            buf += raw
            if pad:
                buf += _NULS[pad]
        elif cls is CFBF:
            raw = _raw(prm.value)
            n = len(raw)
            pad = -n & 3
            buf += p5(_T_BYTE_STRING_FILTER, 20 + n + pad, prm.parameter, prm.operator, n)
            buf += raw
            if pad:
                buf += _NULS[pad]
        else:
            raise ValueError(f"not a PCF parameter structure: {prm!r}")
