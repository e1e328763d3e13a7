"""Message handles and message properties, client-side, as IBM's MQ client keeps them.

IBM's MQ client holds a message handle's properties in the application's process: MQCRTMH, MQSETMP,
MQINQMP, MQDLTMP and MQDLTMH never reach the queue manager.  The properties travel only when the
handle is named on a put (``MQPMO.OriginalMsgHandle``/``NewMsgHandle``: an MQRFH2 in front of the
body) or filled by a get (``MQGMO.MsgHandle``: the property folders peeled off the message data).
This module is that client-side store: pure Python, no socket, one process-wide table under a lock.

The five verbs take the arguments and return the tuples of IBM's C extension (``ibmmq/ibmmqc.c``) so
``ibmmq.MessageHandle`` can call them unchanged:

* ``MQCRTMH(hconn, cmho) -> (hmsg, cc, rc)``
* ``MQDLTMH(hconn, hmsg, dmho) -> (cc, rc)``
* ``MQSETMP(hconn, hmsg, smpo, name, pd, type, value, value_length) -> (cc, rc)``
* ``MQINQMP(hconn, hmsg, impo, name, pd, type, max_value_length) -> (value, data_length, returned_name, cc, rc)``
* ``MQDLTMP(hconn, hmsg, dmpo, name) -> (cc, rc)``

``MQMHBUF``/``MQBUFMH`` (handle <-> MQRFH2 buffer) are here too, and the transport's integration API:
:func:`properties_of`, :func:`encode_for_put`, :func:`decode_from_get`, :func:`md_fields_of`,
:func:`md_from_get`, :func:`descriptor_of`, :func:`drop_connection`.  See ``docs/ibmmq.md`` ("Message handles").

Structures arrive as native-layout bytes (what ibmmq's ``pack()`` makes).  MQ failures are returned,
never raised; a wrong Python type for a value raises TypeError/OverflowError as the C conversions do.
"""

from __future__ import annotations

import itertools
import logging
import math
import re
import struct
import threading
from dataclasses import dataclass, field

from qmlite.client.locks import held as _held
from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR
from qmlite.pcf.errors import CodecError

__all__ = [
    "MQCRTMH", "MQDLTMH", "MQSETMP", "MQINQMP", "MQDLTMP", "MQMHBUF", "MQBUFMH",
    "properties_of", "encode_for_put", "decode_from_get", "md_fields_of", "md_from_get", "descriptor_of",
    "drop_connection", "set_hconn_validator", "set_connection_table", "handle_count",
]

log = logging.getLogger("qmlite.ibmmqc")

OK, WARNING, FAILED = C.MQCC_OK, C.MQCC_WARNING, C.MQCC_FAILED

# MQ constants (cmqc.h), spelled here so the module does not depend on which of them the generated
# constants carry.
MQHC_UNASSOCIATED_HCONN = -3
MQHM_NONE = 0
MQHM_UNUSABLE_HMSG = -1
MQCMHO_DEFAULT_VALIDATION, MQCMHO_NO_VALIDATION, MQCMHO_VALIDATE = 0, 1, 2
MQSMPO_SET_FIRST, MQSMPO_SET_PROP_UNDER_CURSOR, MQSMPO_SET_PROP_AFTER_CURSOR = 0, 1, 2
MQSMPO_APPEND_PROPERTY, MQSMPO_SET_PROP_BEFORE_CURSOR = 4, 8
MQIMPO_CONVERT_TYPE, MQIMPO_QUERY_LENGTH, MQIMPO_INQ_NEXT = 2, 4, 8
MQIMPO_INQ_PROP_UNDER_CURSOR, MQIMPO_CONVERT_VALUE = 16, 32
MQDMPO_DEL_FIRST, MQDMPO_DEL_PROP_UNDER_CURSOR = 0, 1
MQMHBO_PROPERTIES_IN_MQRFH2, MQMHBO_DELETE_PROPERTIES = 1, 2
MQBMHO_DELETE_PROPERTIES = 1
MQVL_NULL_TERMINATED, MQVL_EMPTY_STRING = -1, 0

MQTYPE_AS_SET, MQTYPE_NULL, MQTYPE_BOOLEAN, MQTYPE_BYTE_STRING = 0, 2, 4, 8
MQTYPE_INT8, MQTYPE_INT16, MQTYPE_INT32, MQTYPE_INT64 = 16, 32, 64, 128
MQTYPE_FLOAT32, MQTYPE_FLOAT64, MQTYPE_STRING = 256, 512, 1024

_KIND = {v: k for k, v in PR.MQTYPE.items()}  # MQTYPE_* -> the property model's type name
_FIXED_SIZE = {MQTYPE_BOOLEAN: 4, MQTYPE_INT8: 1, MQTYPE_INT16: 2, MQTYPE_INT32: 4, MQTYPE_INT64: 8,
               MQTYPE_FLOAT32: 4, MQTYPE_FLOAT64: 8, MQTYPE_NULL: 0}
_INT_BITS = {MQTYPE_INT8: 8, MQTYPE_INT16: 16, MQTYPE_INT32: 32, MQTYPE_INT64: 64}
_F32 = struct.Struct("=f")
_F32_MAX = 3.4028234663852886e38

# Native layouts (64-bit): StrucId, Version, Options, then per structure.
_CMHO = struct.Struct("=4sii")        # 12
_DMHO = _CMHO                          # 12
_DMPO = _CMHO                          # 12
_MHBO = _CMHO                          # 12
_BMHO = _CMHO                          # 12
_SMPO = struct.Struct("=4siiii")      # 20: + ValueEncoding, ValueCCSID
_PD = struct.Struct("=4siiiii")       # 24: Options, Support, Context, CopyOptions
_IMPO = struct.Struct("=4siiiiii4xQiiii8s")  # 64: ... Reserved1, ReturnedName MQCHARV, TypeString
_MD_HEAD = struct.Struct("=4siiiiiii8s")     # MQMD up to Format (40 bytes); Encoding @24, CCSID @28

# --------------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------------

_SQL_WORDS = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS",
                        "ESCAPE"})
# IBM "Property name restrictions": JMS synonyms an MQI application may use.  Settable ones with the
# MQTYPE their Java field type requires (MQRC_PROPERTY_TYPE_ERROR page), stored under the RFH2 name.
_JMS_SETTABLE = {
    "JMSCorrelationID": ("jms.Cid", MQTYPE_STRING),
    "JMSReplyTo": ("jms.Rto", MQTYPE_STRING),
    "JMSType": ("mcd.Type", MQTYPE_STRING),
    "JMSXGroupID": ("jms.Gid", MQTYPE_STRING),
    "JMSXGroupSeq": ("jms.Seq", MQTYPE_INT32),
}
_JMS_READ_ONLY = {
    "JMSDestination": "jms.Dst", "JMSExpiration": "jms.Exp", "JMSPriority": "jms.Pri",
    "JMSDeliveryMode": "jms.Dlv", "JMSTimestamp": "jms.Tms",
}
_SYNONYM_TO_NAME = {**{k: v for k, (v, _t) in _JMS_SETTABLE.items()}, **_JMS_READ_ONLY,
                    "MQTopicString": "mqps.Top", "MQSubUserData": "mqps.Sud", "MQIsRetained": "mqps.Ret"}
_NAME_TO_SYNONYM = {v: k for k, v in _SYNONYM_TO_NAME.items()}

# Root.MQMD.<field>: the message descriptor associated with a handle (MQCRTMH: "initially default
# values"; MQSETMP/MQINQMP set and inquire it; MQDLTMP resets a field).  (MQTYPE, length, default).
_L, _S, _B = MQTYPE_INT32, MQTYPE_STRING, MQTYPE_BYTE_STRING
_MD_FIELDS = {
    "Report": (_L, 4, 0), "MsgType": (_L, 4, 8), "Expiry": (_L, 4, -1), "Feedback": (_L, 4, 0),
    "Encoding": (_L, 4, C.MQENC_NATIVE), "CodedCharSetId": (_L, 4, 0), "Format": (_S, 8, ""),
    "Priority": (_L, 4, -1), "Persistence": (_L, 4, 2), "MsgId": (_B, 24, bytes(24)),
    "CorrelId": (_B, 24, bytes(24)), "BackoutCount": (_L, 4, 0), "ReplyToQ": (_S, 48, ""),
    "ReplyToQMgr": (_S, 48, ""), "UserIdentifier": (_S, 12, ""), "AccountingToken": (_B, 32, bytes(32)),
    "ApplIdentityData": (_S, 32, ""), "PutApplType": (_L, 4, 0), "PutApplName": (_S, 28, ""),
    "PutDate": (_S, 8, ""), "PutTime": (_S, 8, ""), "ApplOriginData": (_S, 4, ""),
    "GroupId": (_B, 24, bytes(24)), "MsgSeqNumber": (_L, 4, 1), "Offset": (_L, 4, 0),
    "MsgFlags": (_L, 4, 0), "OriginalLength": (_L, 4, -1),
}
_MD_PREFIX = "Root.MQMD."

def _java_part(part: str) -> bool:
    if not part or not (part[0].isalpha() or part[0] in "_$"):
        return False
    return all(c.isalnum() or c in "_$" for c in part)


def _element_part(part: str) -> bool:
    """What the MQRFH2 folder codec can write as an element name."""
    return PR._PART.fullmatch(part) is not None  # noqa: SLF001 (the codec's own rule)


def _name_problem(name: str, validate: bool) -> int | None:
    """The reason MQSETMP refuses ``name`` for (IBM "Property name restrictions" and the 2442/2513
    reason pages), or None."""
    if not name or len(name) > C.MQ_MAX_PROPERTY_NAME_LENGTH:
        return C.MQRC_PROPERTY_NAME_LENGTH_ERR
    if any(ord(c) > 0xFFFF or 0xD800 <= ord(c) <= 0xDFFF for c in name):
        return C.MQRC_PROPERTY_NAME_ERROR  # beyond the BMP
    parts = name.split(".")
    if any(not p for p in parts):  # leading/trailing '.', '..'
        return C.MQRC_PROPERTY_NAME_ERROR
    # Whatever the validation level, the name must be writable as MQRFH2 elements.
    if not all(_element_part(p) for p in parts):
        return C.MQRC_PROPERTY_NAME_ERROR
    if not validate:
        return None
    if not all(_java_part(p) for p in parts):
        return C.MQRC_PROPERTY_NAME_ERROR
    bare = name[4:] if name.startswith("usr.") else name
    if bare.upper() in _SQL_WORDS:
        return C.MQRC_PROPERTY_NAME_ERROR
    if bare.startswith("JMS") and name not in _JMS_SETTABLE:
        return C.MQRC_PROPERTY_NAME_ERROR
    if name.startswith(("Body", "Root")) and not name.startswith(_MD_PREFIX):
        return C.MQRC_PROPERTY_NAME_ERROR
    low = parts[0].lower()
    if low.startswith("mq") and low != "mq_usr" and len(parts) > 2:
        return C.MQRC_PROPERTY_NAME_ERROR
    return None


def _canonical(name: str) -> str:
    """The stored name: ``usr.X`` is ``X``; a JMS/MQ synonym is its MQRFH2 name."""
    if name.startswith("usr.") and len(name) > 4:
        name = name[4:]
    return _SYNONYM_TO_NAME.get(name, name)


def _folder_for(name: str) -> str:
    dot = name.find(".")
    return "usr" if dot < 0 else name[:dot]


def _full(name: str, folder: str) -> str:
    return f"usr.{name}" if folder == "usr" else name


def _returned_name(name: str, folder: str) -> str:
    """The name MQINQMP reports (MQINQMP "Name": usr. dropped, jms./mcd. as JMS names, mqps. as MQ
    names; a property with a synonym is returned once, under it)."""
    if folder == "usr":
        return name
    return _NAME_TO_SYNONYM.get(name, name)


# --------------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Prop:
    name: str      # canonical (see _canonical)
    folder: str    # MQRFH2 folder
    type: int      # MQTYPE_*, or 0 for a dt qmlite does not know (then ``dt`` holds it)
    value: object
    pd: tuple = (0, 1, 0, 22)  # MQPD Options, Support, Context, CopyOptions
    dt: str = ""


@dataclass(slots=True, eq=False)
class _Handle:
    hconn: int
    validate: bool
    props: list = field(default_factory=list)
    md: dict = field(default_factory=dict)  # Root.MQMD fields set on the handle
    cursor: _Prop | None = None             # the property last inquired (INQ_FIRST/INQ_NEXT)
    cursor_name: str | None = None          # the name that inquiry used
    cursor_gone: int | None = None          # where the cursor property was when it was deleted

    def reset_cursor(self) -> None:
        self.cursor = None
        self.cursor_name = None
        self.cursor_gone = None


_lock = threading.RLock()
_handles: dict[int, _Handle] = {}
_ids = itertools.count(0x0000_0001_0000_0001)  # non-zero, beyond 32 bits (MQHMSG is an MQINT64)
_hconn_validator = None


def _no_connections(hconn: int) -> bool:
    return False


# Whether an hconn is one of the transport's live connections: _mqi hands its table over when it is
# imported (set_connection_table), so this module does not import _mqi.
_connection_table = _no_connections


def set_connection_table(fn) -> None:
    """The transport's ``fn(hconn) -> bool`` (set by ``_mqi`` at import)."""
    global _connection_table
    _connection_table = fn


def set_hconn_validator(fn) -> None:
    """``fn(hconn) -> bool``: whether ``hconn`` is a live connection (None: the transport's table)."""
    global _hconn_validator
    _hconn_validator = fn


def _hconn_ok(hconn: int) -> bool:
    if not isinstance(hconn, int) or hconn in (0, -1):
        return False
    fn = _hconn_validator or _connection_table
    try:
        return bool(fn(hconn))
    except Exception:  # a validator that fails says "no"
        return False


def handle_count() -> int:
    with _lock:
        return len(_handles)


def drop_connection(hconn: int) -> int:
    """Delete the handles created on ``hconn`` (MQCRTMH: when the connection ceases to be valid, its
    handles are deleted implicitly; MQHC_UNASSOCIATED_HCONN handles are never).  Returns how many.
    MQDISC's, so a finalizer's: at interpreter exit it does not wait for a stopped thread's lock."""
    with _held(_lock):
        gone = [h for h, st in _handles.items() if st.hconn == hconn and hconn != MQHC_UNASSOCIATED_HCONN]
        for h in gone:
            del _handles[h]
        return len(gone)


def _lookup(hconn: int, hmsg: int) -> tuple[_Handle | None, int]:
    """(handle, reason): the Hconn is checked first (2018), then the handle (2460)."""
    if hconn != MQHC_UNASSOCIATED_HCONN and not _hconn_ok(hconn):
        return None, C.MQRC_HCONN_ERROR
    st = _handles.get(hmsg) if isinstance(hmsg, int) else None
    if st is None:
        return None, C.MQRC_HMSG_ERROR
    if st.hconn != MQHC_UNASSOCIATED_HCONN and st.hconn != hconn:
        return None, C.MQRC_HMSG_ERROR  # a handle is usable only on the connection that made it
    return st, C.MQRC_NONE


def _struct(data, layout: struct.Struct, strucid: bytes, reason: int, exact: bool = True):
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return None
    data = bytes(data)
    if (len(data) != layout.size) if exact else (len(data) < layout.size):
        return None
    v = layout.unpack_from(data)
    if v[0] != strucid or v[1] != 1:
        return None
    return v


def _name_text(name) -> str | None:
    if isinstance(name, str):
        raise TypeError("property name must be bytes (ibmmq passes bytes)")
    if not isinstance(name, (bytes, bytearray, memoryview)):
        raise TypeError(f"property name must be bytes, not {type(name).__name__}")
    raw = bytes(name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


# --------------------------------------------------------------------------------------------------
# MQCRTMH / MQDLTMH
# --------------------------------------------------------------------------------------------------


def MQCRTMH(hconn, cmho):
    """MQCRTMH -> (hmsg, CompCode, Reason); hmsg is MQHM_UNUSABLE_HMSG (-1) on failure."""
    v = _struct(cmho, _CMHO, b"CMHO", C.MQRC_CMHO_ERROR)
    if v is None:
        return MQHM_UNUSABLE_HMSG, FAILED, C.MQRC_CMHO_ERROR
    if hconn != MQHC_UNASSOCIATED_HCONN and not _hconn_ok(hconn):
        return MQHM_UNUSABLE_HMSG, FAILED, C.MQRC_HCONN_ERROR
    options = v[2]
    if options not in (MQCMHO_DEFAULT_VALIDATION, MQCMHO_NO_VALIDATION, MQCMHO_VALIDATE):
        return MQHM_UNUSABLE_HMSG, FAILED, C.MQRC_OPTIONS_ERROR
    with _lock:
        hmsg = next(_ids)
        _handles[hmsg] = _Handle(hconn, options != MQCMHO_NO_VALIDATION)
    return hmsg, OK, C.MQRC_NONE


def MQDLTMH(hconn, hmsg, dmho):
    """MQDLTMH -> (CompCode, Reason)."""
    v = _struct(dmho, _DMHO, b"DMHO", C.MQRC_DMHO_ERROR)
    if v is None:
        return FAILED, C.MQRC_DMHO_ERROR
    if v[2] != 0:
        return FAILED, C.MQRC_OPTIONS_ERROR
    with _held(_lock):  # a finalizer's: ibmmq's MQDISC (its OTel layer deletes the handles it made)
        st, reason = _lookup(hconn, hmsg)
        if st is None:
            return FAILED, reason
        del _handles[hmsg]
    return OK, C.MQRC_NONE


# --------------------------------------------------------------------------------------------------
# MQSETMP
# --------------------------------------------------------------------------------------------------


def _wrap(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _to_float32(value: float) -> float:
    if math.isnan(value) or math.isinf(value):
        return value
    if abs(value) > _F32_MAX:  # what a C (float) cast of a too-large double gives
        rounded = _F32.unpack(_F32.pack(math.copysign(_F32_MAX, value)))[0]
        if abs(value) >= 3.4028235677973366e38:  # beyond the rounding boundary
            return math.copysign(math.inf, value)
        return rounded
    return _F32.unpack(_F32.pack(value))[0]


def _c_long(value) -> int:
    """PyLong_AsLong/AsLongLong: an int (or __index__); OverflowError beyond 64 bits."""
    if isinstance(value, float) or not hasattr(value, "__index__"):
        raise TypeError(f"an integer is required, not {type(value).__name__}")
    number = value.__index__()
    if not -(1 << 63) <= number < (1 << 63):
        raise OverflowError("Python int too large to convert to C long")
    return number


def _c_double(value) -> float:
    """PyFloat_AsDouble: a float, int or anything with __float__/__index__."""
    if isinstance(value, (str, bytes, bytearray)) or value is None:
        raise TypeError(f"must be real number, not {type(value).__name__}")
    if hasattr(value, "__float__"):
        return float(value)
    if hasattr(value, "__index__"):
        return float(value.__index__())
    raise TypeError(f"must be real number, not {type(value).__name__}")


def _set_value(ptype: int, value, value_length: int) -> tuple[object, int]:
    """(stored value, reason) for MQSETMP, converting ``value`` as IBM's C extension does."""
    if ptype == MQTYPE_BOOLEAN:
        return bool(int(_c_double(value))), C.MQRC_NONE  # (MQBOOL) of the double
    if ptype in _INT_BITS:
        return _wrap(_c_long(value), _INT_BITS[ptype]), C.MQRC_NONE
    if ptype == MQTYPE_FLOAT64:
        return _c_double(value), C.MQRC_NONE
    if ptype == MQTYPE_FLOAT32:
        return _to_float32(_c_double(value)), C.MQRC_NONE
    if ptype == MQTYPE_NULL:
        return None, C.MQRC_NONE
    if ptype == MQTYPE_STRING:
        if not isinstance(value, str):
            raise TypeError(f"a string property value must be str, not {type(value).__name__}")
        raw = value.encode("utf-8", "ignore")
        if value_length == MQVL_NULL_TERMINATED:
            nul = raw.find(b"\0")
            if nul >= 0:
                raw = raw[:nul]
        elif value_length < 0:
            return None, C.MQRC_BUFFER_LENGTH_ERROR
        else:
            raw = raw[:value_length]
        return raw.decode("utf-8", "ignore"), C.MQRC_NONE
    if ptype == MQTYPE_BYTE_STRING:
        if not isinstance(value, bytes):
            raise TypeError(f"a byte-string property value must be bytes, not {type(value).__name__}")
        if value_length < 0:
            return None, C.MQRC_BUFFER_LENGTH_ERROR  # MQVL_NULL_TERMINATED is for strings only
        return value[:value_length], C.MQRC_NONE
    return None, C.MQRC_PROPERTY_TYPE_ERROR


def _mixed_content(st: _Handle, name: str, folder: str, skip: _Prop | None) -> bool:
    """Setting "a.b" beside "a.b.c" (or the reverse) makes mixed content, which MQ refuses."""
    full = _full(name, folder)
    for p in st.props:
        if p is skip or p.name == name:
            continue
        other = _full(p.name, p.folder)
        if other.startswith(full + ".") or full.startswith(other + "."):
            return True
    return False


def _parent(name: str, folder: str) -> str:
    return _full(name, folder).rpartition(".")[0]


def _after_hierarchy(st: _Handle, name: str, folder: str) -> int:
    """Where MQSMPO_SET_FIRST adds a new property: after the last one in the same group."""
    parent = _parent(name, folder)
    at = len(st.props)
    for i, p in enumerate(st.props):
        if _parent(p.name, p.folder) == parent:
            at = i + 1
    return at


def _set_md(st: _Handle, field_name: str, ptype: int, value) -> int:
    spec = _MD_FIELDS.get(field_name)
    if spec is None:
        return C.MQRC_PROPERTY_NAME_ERROR
    want, size, _default = spec
    if ptype != want:
        return C.MQRC_PROPERTY_TYPE_ERROR
    if want == MQTYPE_STRING:
        if len(value.encode("utf-8")) > size:
            return C.MQRC_PROPERTY_VALUE_TOO_BIG
        value = value.rstrip(" ")
    elif want == MQTYPE_BYTE_STRING:
        if len(value) > size:
            return C.MQRC_PROPERTY_VALUE_TOO_BIG
        value = value.ljust(size, b"\0")
    st.md[field_name] = value
    return C.MQRC_NONE


def MQSETMP(hconn, hmsg, smpo, name, pd, property_type, value, value_length):
    """MQSETMP -> (CompCode, Reason)."""
    text = _name_text(name)
    ptype = int(property_type)
    if ptype in _KIND:
        stored, reason = _set_value(ptype, value, int(value_length))
    else:
        stored, reason = None, C.MQRC_PROPERTY_TYPE_ERROR
    sv = _struct(smpo, _SMPO, b"SMPO", C.MQRC_SMPO_ERROR)
    if sv is None:
        return FAILED, C.MQRC_SMPO_ERROR
    pv = _struct(pd, _PD, b"PD  ", C.MQRC_PD_ERROR)
    if pv is None:
        return FAILED, C.MQRC_PD_ERROR
    options = sv[2]
    location = options & ~MQSMPO_APPEND_PROPERTY
    if options & ~0xF or location not in (MQSMPO_SET_FIRST, MQSMPO_SET_PROP_UNDER_CURSOR,
                                          MQSMPO_SET_PROP_AFTER_CURSOR, MQSMPO_SET_PROP_BEFORE_CURSOR):
        return FAILED, C.MQRC_OPTIONS_ERROR
    with _lock:
        st, why = _lookup(hconn, hmsg)
        if st is None:
            return FAILED, why
        if text is None:
            return FAILED, C.MQRC_PROPERTY_NAME_ERROR
        problem = _name_problem(text, st.validate)
        if problem is not None:
            return FAILED, problem
        if reason != C.MQRC_NONE:
            return FAILED, reason
        if text.startswith(_MD_PREFIX):
            rc = _set_md(st, text[len(_MD_PREFIX):], ptype, stored)
            return (OK, rc) if rc == C.MQRC_NONE else (FAILED, rc)
        if text in _JMS_SETTABLE and ptype != _JMS_SETTABLE[text][1]:
            return FAILED, C.MQRC_PROPERTY_TYPE_ERROR
        canon = _canonical(text)
        pdv = (pv[2], pv[3], pv[4], pv[5])
        if location == MQSMPO_SET_FIRST and not options & MQSMPO_APPEND_PROPERTY:
            target = next((p for p in st.props if p.name == canon), None)
            folder = target.folder if target is not None else (
                "usr" if text.startswith("usr.") else _folder_for(canon))
            if _mixed_content(st, canon, folder, target):
                return FAILED, C.MQRC_PROPERTY_NAME_ERROR
            if target is not None:
                target.type, target.value, target.pd, target.dt = ptype, stored, pdv, ""
            else:  # "after all other properties with a matching hierarchy" (MQSMPO_SET_FIRST)
                st.props.insert(_after_hierarchy(st, canon, folder), _Prop(canon, folder, ptype, stored, pdv))
            return OK, C.MQRC_NONE
        folder = "usr" if text.startswith("usr.") else _folder_for(canon)
        if location == MQSMPO_SET_FIRST:  # MQSMPO_APPEND_PROPERTY: a new property at the end
            if _mixed_content(st, canon, folder, None):
                return FAILED, C.MQRC_PROPERTY_NAME_ERROR
            st.props.append(_Prop(canon, folder, ptype, stored, pdv))
            return OK, C.MQRC_NONE
        cur = st.cursor
        if cur is None or st.cursor_gone is not None or cur not in st.props:
            return FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE
        if location == MQSMPO_SET_PROP_UNDER_CURSOR:  # the cursor's property, whatever the name
            cur.type, cur.value, cur.pd, cur.dt = ptype, stored, pdv, ""
            return OK, C.MQRC_NONE
        if _mixed_content(st, canon, folder, None):
            return FAILED, C.MQRC_PROPERTY_NAME_ERROR
        at = st.props.index(cur) + (1 if location == MQSMPO_SET_PROP_AFTER_CURSOR else 0)
        st.props.insert(at, _Prop(canon, folder, ptype, stored, pdv))
        return OK, C.MQRC_NONE


# --------------------------------------------------------------------------------------------------
# MQINQMP
# --------------------------------------------------------------------------------------------------


def _matcher(text: str):
    """A predicate on _Prop for an MQINQMP/MQDLTMP name: exact (with synonyms) or ending in '%'."""
    if text.endswith("%"):
        prefix = text[:-1]
        if "%" in prefix:
            return None

        def match(p: _Prop) -> bool:
            if p.folder == "usr":
                return p.name.startswith(prefix) or f"usr.{p.name}".startswith(prefix)
            shown = _returned_name(p.name, p.folder)
            return p.name.startswith(prefix) or shown.startswith(prefix)
        return match
    if "%" in text:
        return None
    canon = _canonical(text)
    usr_only = text.startswith("usr.")

    def exact(p: _Prop) -> bool:
        return p.name == canon and (not usr_only or p.folder == "usr")
    return exact


_INT_TEXT = re.compile(r"[ ]*([+-]?[0-9]+)[ ]*")
_FLOAT_TEXT = re.compile(r"[ ]*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[ ]*")

# IBM MQINQMP "Type": the conversions MQIMPO_CONVERT_TYPE supports (numeric widening without loss,
# anything to a string, a string to anything but a byte string, boolean to a byte string).
_CONVERSIONS = {
    MQTYPE_BOOLEAN: {MQTYPE_STRING, MQTYPE_BYTE_STRING},
    MQTYPE_BYTE_STRING: {MQTYPE_STRING},
    MQTYPE_INT8: {MQTYPE_STRING, MQTYPE_INT16, MQTYPE_INT32, MQTYPE_INT64},
    MQTYPE_INT16: {MQTYPE_STRING, MQTYPE_INT32, MQTYPE_INT64},
    MQTYPE_INT32: {MQTYPE_STRING, MQTYPE_INT64},
    MQTYPE_INT64: {MQTYPE_STRING},
    MQTYPE_FLOAT32: {MQTYPE_STRING, MQTYPE_FLOAT64},
    MQTYPE_FLOAT64: {MQTYPE_STRING},
    MQTYPE_STRING: {MQTYPE_BOOLEAN, MQTYPE_INT8, MQTYPE_INT16, MQTYPE_INT32, MQTYPE_INT64,
                    MQTYPE_FLOAT32, MQTYPE_FLOAT64},
}


def _convert(ptype: int, value, want: int) -> tuple[int, object, int]:
    """(type, value, reason) of ``value`` (of ``ptype``) converted to ``want``."""
    if want == MQTYPE_AS_SET or want == ptype or ptype == MQTYPE_NULL:
        return ptype, value, C.MQRC_NONE
    if want not in _CONVERSIONS.get(ptype, ()):
        return ptype, value, C.MQRC_PROP_CONV_NOT_SUPPORTED
    if want == MQTYPE_STRING:
        if ptype == MQTYPE_BOOLEAN:
            return want, "TRUE" if value else "FALSE", C.MQRC_NONE
        if ptype == MQTYPE_BYTE_STRING:
            return want, value.hex().upper(), C.MQRC_NONE
        if ptype in (MQTYPE_FLOAT32, MQTYPE_FLOAT64):
            return want, PR.float_text(value, PR.FLOAT32 if ptype == MQTYPE_FLOAT32 else PR.FLOAT64), C.MQRC_NONE
        return want, str(value), C.MQRC_NONE
    if ptype == MQTYPE_BOOLEAN:  # to a byte string
        return want, b"\x01" if value else b"\x00", C.MQRC_NONE
    if ptype != MQTYPE_STRING:  # numeric widening
        return want, float(value) if want == MQTYPE_FLOAT64 else value, C.MQRC_NONE
    if want == MQTYPE_BOOLEAN:
        word = value.strip(" ").upper()
        if word in ("TRUE", "1"):
            return want, True, C.MQRC_NONE
        if word in ("FALSE", "0"):
            return want, False, C.MQRC_NONE
        return ptype, value, C.MQRC_PROP_NUMBER_FORMAT_ERROR
    if want in _INT_BITS:
        m = _INT_TEXT.fullmatch(value)
        if m is None or len(m.group(1)) > 24:
            return ptype, value, C.MQRC_PROP_NUMBER_FORMAT_ERROR
        number = int(m.group(1))
        bits = _INT_BITS[want]
        if not -(1 << (bits - 1)) <= number < (1 << (bits - 1)):
            return ptype, value, C.MQRC_PROP_NUMBER_FORMAT_ERROR
        return want, number, C.MQRC_NONE
    m = _FLOAT_TEXT.fullmatch(value)
    if m is None or len(m.group(1)) > 64:
        return ptype, value, C.MQRC_PROP_NUMBER_FORMAT_ERROR
    number = float(m.group(1))
    if want == MQTYPE_FLOAT32:
        number = _to_float32(number)
    return want, number, C.MQRC_NONE


def _data_length(ptype: int, value) -> int:
    if ptype in _FIXED_SIZE:
        return _FIXED_SIZE[ptype]
    if ptype == MQTYPE_BYTE_STRING:
        return len(value)
    return len(str(value).encode("utf-8"))


def _shape(ptype: int, value):
    """The Python object IBM's extension builds for a value of ``ptype`` (BOOLEAN is an int)."""
    if ptype == MQTYPE_BOOLEAN:
        return int(bool(value))
    return value


def _truncated(ptype: int, value, limit: int):
    """As much of the value as fits in ``limit`` bytes (2469: "Value contains as much as fits")."""
    if ptype == MQTYPE_BYTE_STRING:
        return value[:max(limit, 0)]
    if ptype == MQTYPE_STRING or ptype == MQTYPE_AS_SET:
        return str(value).encode("utf-8")[:max(limit, 0)].decode("utf-8", "ignore")
    return None  # a fixed-size value that does not fit is not returned


@dataclass(slots=True)
class Inquiry:
    """What MQINQMP produced (the C extension returns only some of it; the rest is IMPO output)."""

    cc: int
    rc: int
    type: int = MQTYPE_AS_SET
    value: object = None
    data_length: int = 0
    returned_name: str | None = None
    type_string: str = ""


def inquire(hconn, hmsg, impo, name, pd, property_type, max_value_length) -> Inquiry:
    """MQINQMP with every output (ReturnedName, TypeString, the output Type)."""
    text = _name_text(name)
    wildcard = text is not None and "%" in text
    iv = _struct(impo, _IMPO, b"IMPO", C.MQRC_IMPO_ERROR)
    if iv is None:
        return Inquiry(FAILED, C.MQRC_IMPO_ERROR, returned_name="" if wildcard else None)
    rn = "" if wildcard else None
    if _struct(pd, _PD, b"PD  ", C.MQRC_PD_ERROR) is None:
        return Inquiry(FAILED, C.MQRC_PD_ERROR, returned_name=rn)
    options = iv[2]
    location = options & (MQIMPO_INQ_NEXT | MQIMPO_INQ_PROP_UNDER_CURSOR)
    if options & ~0x3E or location == (MQIMPO_INQ_NEXT | MQIMPO_INQ_PROP_UNDER_CURSOR):
        return Inquiry(FAILED, C.MQRC_OPTIONS_ERROR, returned_name=rn)
    want = int(property_type)
    if want != MQTYPE_AS_SET and want not in _KIND:
        return Inquiry(FAILED, C.MQRC_PROPERTY_TYPE_ERROR, want, returned_name=rn)
    if int(max_value_length) < 0:
        return Inquiry(FAILED, C.MQRC_BUFFER_LENGTH_ERROR, want, returned_name=rn)
    with _lock:
        st, why = _lookup(hconn, hmsg)
        if st is None:
            return Inquiry(FAILED, why, want, returned_name=rn)
        if text is None:
            return Inquiry(FAILED, C.MQRC_PROPERTY_NAME_ERROR, want, returned_name=rn)
        if not text or len(text) > C.MQ_MAX_PROPERTY_NAME_LENGTH:
            return Inquiry(FAILED, C.MQRC_PROPERTY_NAME_LENGTH_ERR, want, returned_name=rn)
        if text.startswith(_MD_PREFIX) and not wildcard:
            spec = _MD_FIELDS.get(text[len(_MD_PREFIX):])
            if spec is None:
                return Inquiry(FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE, want)
            found = _Prop(text, "Root", spec[0], st.md.get(text[len(_MD_PREFIX):], spec[2]))
            move_cursor = False
        else:
            match = _matcher(text)
            if match is None:
                return Inquiry(FAILED, C.MQRC_PROPERTY_NAME_ERROR, want, returned_name=rn)
            found = None
            if location == MQIMPO_INQ_PROP_UNDER_CURSOR:
                cur = st.cursor
                if cur is not None and st.cursor_gone is None and cur in st.props:
                    found = cur
            else:
                start = 0
                if location == MQIMPO_INQ_NEXT and st.cursor_name == text and (
                        st.cursor is not None or st.cursor_gone is not None):
                    if st.cursor_gone is not None:
                        start = st.cursor_gone
                    elif st.cursor in st.props:
                        start = st.props.index(st.cursor) + 1
                found = next((p for p in st.props[start:] if match(p)), None)
            move_cursor = location != MQIMPO_INQ_PROP_UNDER_CURSOR
        if found is None:
            return Inquiry(FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE, want, returned_name=rn)
        shown = _returned_name(found.name, found.folder) if wildcard else None
        if found.type == 0:  # a dt qmlite does not know: its text, as a string, with a warning
            ptype, value, reason = MQTYPE_STRING, str(found.value), C.MQRC_PROP_TYPE_NOT_SUPPORTED
            type_string = found.dt.encode("utf-8")[:8].decode("utf-8", "ignore")
        else:
            type_string = ""
            ptype, value, reason = (_convert(found.type, found.value, want) if options & MQIMPO_CONVERT_TYPE
                                    else (found.type, found.value, C.MQRC_NONE))
        if reason not in (C.MQRC_NONE, C.MQRC_PROP_TYPE_NOT_SUPPORTED):
            return Inquiry(FAILED, reason, found.type, returned_name=shown, type_string=type_string)
        length = _data_length(ptype, value)
        if move_cursor:
            st.cursor, st.cursor_name, st.cursor_gone = found, text, None
        if options & MQIMPO_QUERY_LENGTH:
            return Inquiry(OK if reason == C.MQRC_NONE else WARNING, reason, ptype, None, length, shown,
                           type_string)
        if length > int(max_value_length):
            return Inquiry(FAILED, C.MQRC_PROPERTY_VALUE_TOO_BIG, ptype,
                           _truncated(ptype, value, int(max_value_length)), length, shown, type_string)
        return Inquiry(OK if reason == C.MQRC_NONE else WARNING, reason, ptype, _shape(ptype, value), length,
                       shown, type_string)


def MQINQMP(hconn, hmsg, impo, name, pd, property_type, max_value_length):
    """MQINQMP -> (value, DataLength, returned name, CompCode, Reason).

    The value's Python type follows the property's (output) type as IBM's extension builds it: bool ->
    int 0/1, bytes, int, float, str, None for NULL (and on failure).  The returned name is None unless
    ``name`` contains ``%``; then it is the matched property's name (``""`` when none matched).
    """
    r = inquire(hconn, hmsg, impo, name, pd, property_type, max_value_length)
    return r.value, r.data_length, r.returned_name, r.cc, r.rc


# --------------------------------------------------------------------------------------------------
# MQDLTMP
# --------------------------------------------------------------------------------------------------


def _remove(st: _Handle, prop: _Prop) -> None:
    at = st.props.index(prop)
    del st.props[at]
    if st.cursor is prop:
        st.cursor_gone = at


def MQDLTMP(hconn, hmsg, dmpo, name):
    """MQDLTMP -> (CompCode, Reason)."""
    text = _name_text(name)
    v = _struct(dmpo, _DMPO, b"DMPO", C.MQRC_DMPO_ERROR)
    if v is None:
        return FAILED, C.MQRC_DMPO_ERROR
    if v[2] not in (MQDMPO_DEL_FIRST, MQDMPO_DEL_PROP_UNDER_CURSOR):
        return FAILED, C.MQRC_OPTIONS_ERROR
    with _lock:
        st, why = _lookup(hconn, hmsg)
        if st is None:
            return FAILED, why
        if text is None:
            return FAILED, C.MQRC_PROPERTY_NAME_ERROR
        if not text or len(text) > C.MQ_MAX_PROPERTY_NAME_LENGTH:
            return FAILED, C.MQRC_PROPERTY_NAME_LENGTH_ERR
        if v[2] == MQDMPO_DEL_PROP_UNDER_CURSOR:
            cur = st.cursor
            if cur is None or st.cursor_gone is not None or cur not in st.props:
                return FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE
            _remove(st, cur)
            return OK, C.MQRC_NONE
        if text.startswith(_MD_PREFIX):
            field_name = text[len(_MD_PREFIX):]
            if field_name not in _MD_FIELDS:
                return FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE
            st.md.pop(field_name, None)  # back to the default
            return OK, C.MQRC_NONE
        match = _matcher(text)
        if match is None or "%" in text:  # MQDLTMP: wildcards are not allowed
            return FAILED, C.MQRC_PROPERTY_NAME_ERROR
        target = next((p for p in st.props if match(p)), None)
        if target is None:  # MQDLTMP lists 2471 under MQCC_WARNING
            return WARNING, C.MQRC_PROPERTY_NOT_AVAILABLE
        _remove(st, target)
        return OK, C.MQRC_NONE


# --------------------------------------------------------------------------------------------------
# Transport integration
# --------------------------------------------------------------------------------------------------


def _to_model(props: list) -> PR.Properties:
    out = PR.Properties()
    for p in props:
        if p.name in out:
            continue  # duplicates (APPEND/BEFORE/AFTER): the first is the one MQINQMP finds
        if p.type == 0:
            out.put_known(p.name, p.dt, p.value, p.folder)
        else:
            out.put_known(p.name, _KIND[p.type], p.value, p.folder)
    return out


def _from_model(props: PR.Properties) -> list:
    out = []
    for name, prop in props.items():
        folder = props.folder(name)
        mqtype = PR.MQTYPE.get(prop.type)
        if mqtype is None:
            out.append(_Prop(name, folder, 0, prop.value, dt=prop.type))
        else:
            out.append(_Prop(name, folder, mqtype, prop.value))
    return out


def properties_of(hmsg: int) -> PR.Properties | None:
    """The properties a put naming ``hmsg`` sends (a copy); None for 0 or an unknown handle."""
    with _lock:
        st = _handles.get(hmsg) if hmsg else None
        if st is None:
            return None
        return _to_model(st.props)


def md_fields_of(hmsg: int) -> dict | None:
    """The ``Root.MQMD.*`` fields set on the handle (field -> value); None for 0/unknown."""
    with _lock:
        st = _handles.get(hmsg) if hmsg else None
        return None if st is None else dict(st.md)


def descriptor_of(hmsg: int) -> dict | None:
    """Every ``Root.MQMD.*`` field of the handle (the ones set or got, else MQMD's defaults): the
    message descriptor a put with MQPMO_MD_FOR_OUTPUT_ONLY is composed from; None for 0/unknown."""
    with _lock:
        st = _handles.get(hmsg) if hmsg else None
        if st is None:
            return None
        return {name: st.md.get(name, default) for name, (_t, _n, default) in _MD_FIELDS.items()}


def md_from_get(hmsg: int, md) -> None:
    """An MQGET into the handle: its ``Root.MQMD.*`` fields become the retrieved message's descriptor.

    IBM (MQGMO MsgHandle): "On return from the MQGET call, the properties and message descriptor
    associated with this message handle are updated to reflect the state of the message retrieved".
    ``md`` is the MQMD the caller got back (an object with the MQMD's field names as attributes)."""
    fields = {}
    for name, (ptype, size, default) in _MD_FIELDS.items():
        value = getattr(md, name, default)
        if ptype == MQTYPE_STRING:
            value = (value.decode("latin-1") if isinstance(value, bytes) else str(value)).rstrip(" \0")
        elif ptype == MQTYPE_BYTE_STRING:
            value = bytes(value)[:size].ljust(size, b"\0")
        else:
            value = _wrap(int(value), 32)
        fields[name] = value
    with _lock:
        st = _handles.get(hmsg) if hmsg else None
        if st is not None:
            st.md = fields


def encode_for_put(hmsg: int, md_format: str, encoding: int, ccsid: int, body: bytes) -> tuple[bytes, str]:
    """MQRFH2 (the handle's properties) + ``body`` and the new MQMD Format ``'MQHRF2  '``; ``(body,
    md_format)`` unchanged when the handle is 0, unknown or has no properties.  Resets the handle's
    property cursor (MQ does so when the handle is named on a put)."""
    with _lock:
        st = _handles.get(hmsg) if hmsg else None
        if st is None:
            return body, md_format
        st.reset_cursor()
        props = _to_model(st.props)
    if not props:
        return body, md_format
    return PR.join(props, body, md_format, encoding, ccsid)


def decode_from_get(hmsg: int, data: bytes, md_format: str, encoding: int, ccsid: int) -> tuple[bytes, str, int, int]:
    """Peel the MQRFH2 property folders off ``data`` into the handle (replacing its properties) and
    return ``(body, Format, Encoding, CodedCharSetId)`` of what follows.

    Folders that hold no properties (psc, pscr, ...) stay in the data, in one MQRFH2 in front of the
    body.  Data whose RFH headers do not parse, or that holds an MQRFH version 1, is returned unchanged
    (the handle then has no properties).  With hmsg 0 or unknown nothing changes.
    """
    with _lock:
        st = _handles.get(hmsg) if hmsg else None
        if st is None:
            return data, md_format, encoding, ccsid
        st.reset_cursor()
        st.props = []
    try:
        s = PR.split(data, md_format, encoding, ccsid)
    except CodecError as exc:
        log.debug("message handle %#x: properties not read: %s", hmsg, exc)
        return data, md_format, encoding, ccsid
    if any(not isinstance(h, PR.MQRFH2) for h in s.headers):
        return data, md_format, encoding, ccsid
    if not s.headers:
        return data, md_format, encoding, ccsid
    with _lock:
        st = _handles.get(hmsg)
        if st is not None:
            st.props = _from_model(s.properties)
    body, fmt = bytes(s.body), s.fmt
    if s.folders:
        body, fmt = PR.join(None, body, fmt, s.encoding, s.ccsid, folders_extra=s.folders)
    return body, fmt.ljust(8) if fmt else C.MQFMT_NONE, s.encoding, s.ccsid


# --------------------------------------------------------------------------------------------------
# MQMHBUF / MQBUFMH
# --------------------------------------------------------------------------------------------------


def _md_head(md) -> tuple | None:
    if not isinstance(md, (bytes, bytearray, memoryview)) or len(md) < 324:
        return None
    v = _MD_HEAD.unpack_from(bytes(md))
    if v[0] != b"MD  ":
        return None
    return v


def _md_with(md: bytes, encoding: int, ccsid: int, fmt: str) -> bytes:
    out = bytearray(md)
    struct.pack_into("=ii8s", out, 24, encoding, ccsid, fmt.encode("ascii", "replace").ljust(8)[:8])
    return bytes(out)


def MQMHBUF(hconn, hmsg, mhbo, name, md, buffer_length):
    """MQMHBUF: the handle's properties matching ``name`` as an MQRFH2 ->
    ``(buffer, md, DataLength, CompCode, Reason)``.

    ``md`` (native MQMD bytes) describes the data the MQRFH2 will precede; the returned MQMD's Format
    becomes ``MQHRF2``.  MQMHBO_PROPERTIES_IN_MQRFH2 is required; MQMHBO_DELETE_PROPERTIES removes
    the converted properties from the handle.  A buffer shorter than the MQRFH2 fails with 2469 and the
    length needed in DataLength.
    """
    text = _name_text(name)
    v = _struct(mhbo, _MHBO, b"MHBO", C.MQRC_MHBO_ERROR)
    if v is None:
        return b"", md, 0, FAILED, C.MQRC_MHBO_ERROR
    if not v[2] & MQMHBO_PROPERTIES_IN_MQRFH2 or v[2] & ~0x3:
        return b"", md, 0, FAILED, C.MQRC_OPTIONS_ERROR
    head = _md_head(md)
    if head is None:
        return b"", md, 0, FAILED, C.MQRC_MD_ERROR
    with _lock:
        st, why = _lookup(hconn, hmsg)
        if st is None:
            return b"", md, 0, FAILED, why
        if text is not None and (not text or len(text) > C.MQ_MAX_PROPERTY_NAME_LENGTH):
            return b"", md, 0, FAILED, C.MQRC_PROPERTY_NAME_LENGTH_ERR
        match = _matcher(text) if text else None
        if match is None:
            return b"", md, 0, FAILED, C.MQRC_PROPERTY_NAME_ERROR
        chosen = [p for p in st.props if match(p)]
        if not chosen:
            return b"", md, 0, FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE
        fmt = head[8].decode("ascii", "replace").rstrip("\0 ")
        buf, new_fmt = PR.join(_to_model(chosen), b"", fmt, head[6], head[7])
        if len(buf) > int(buffer_length):
            return b"", md, len(buf), FAILED, C.MQRC_PROPERTY_VALUE_TOO_BIG
        if v[2] & MQMHBO_DELETE_PROPERTIES:
            for p in chosen:
                _remove(st, p)
    return buf, _md_with(bytes(md), head[6], head[7], new_fmt), len(buf), OK, C.MQRC_NONE


def MQBUFMH(hconn, hmsg, bmho, md, buffer):
    """MQBUFMH: the MQRFH2 property folders at the front of ``buffer`` (described by ``md``) into the
    handle (added to, or replacing, its properties of the same names) ->
    ``(buffer, md, DataLength, CompCode, Reason)``.

    With MQBMHO_DELETE_PROPERTIES the property folders leave the buffer and the returned MQMD describes
    what follows (folders that hold no properties stay in an MQRFH2); without it buffer and MQMD come back
    unchanged.
    """
    v = _struct(bmho, _BMHO, b"BMHO", C.MQRC_BMHO_ERROR)
    if v is None:
        return buffer, md, 0, FAILED, C.MQRC_BMHO_ERROR
    if v[2] & ~MQBMHO_DELETE_PROPERTIES:
        return buffer, md, 0, FAILED, C.MQRC_OPTIONS_ERROR
    head = _md_head(md)
    if head is None:
        return buffer, md, 0, FAILED, C.MQRC_MD_ERROR
    data = bytes(buffer)
    fmt = head[8].decode("ascii", "replace")
    try:
        s = PR.split(data, fmt, head[6], head[7])
    except CodecError:
        return buffer, md, len(data), FAILED, C.MQRC_RFH_ERROR
    with _lock:
        st, why = _lookup(hconn, hmsg)
        if st is None:
            return buffer, md, len(data), FAILED, why
        for new in _from_model(s.properties):
            old = next((p for p in st.props if p.name == new.name), None)
            if old is not None:
                old.type, old.value, old.folder, old.dt = new.type, new.value, new.folder, new.dt
            else:
                st.props.append(new)
    if not v[2] & MQBMHO_DELETE_PROPERTIES or not s.headers or any(
            not isinstance(h, PR.MQRFH2) for h in s.headers):
        return buffer, md, len(data), OK, C.MQRC_NONE
    body, new_fmt = s.body, s.fmt
    if s.folders:
        body, new_fmt = PR.join(None, body, new_fmt, s.encoding, s.ccsid, folders_extra=s.folders)
    return body, _md_with(bytes(md), s.encoding, s.ccsid, new_fmt or ""), len(body), OK, C.MQRC_NONE
