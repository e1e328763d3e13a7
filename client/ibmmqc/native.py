"""MQI structures in the native C layout of this platform, as IBM's ``ibmmq`` package packs them.

``ibmmq`` builds every MQI structure with Python ``struct`` in native mode (no byte-order prefix, so
native alignment; ``MQLONG`` is ``i``, pointers ``P`` of 8 bytes, 64-bit integers ``q``) and hands the
bytes to its C extension.  This module describes those layouts field by field (names as in the MQ C
headers, which are also the names of :mod:`qmlite.pcf.mqi`'s dataclasses) and converts between them
and qmlite's dataclasses.

Layouts are derived from the MQ structure definitions (field order, sizes, version in which each field
appears) and checked against ``ibmmq``'s ``pack()`` output in ``tests/client/test_ibmmq_transport_native.py``.

Three conventions:

* Character fields decode to ``str`` with trailing NULs and blanks removed.  Encoding pads with NULs
  (what ``ibmmq`` itself writes), or with the ``pad`` given.
* ``encode(obj, base=...)`` starts from ``base`` (the caller's input bytes) and keeps each field's original
  bytes when its decoded value is unchanged, so an unchanged structure comes back byte for byte and
  fields qmlite does not model (pointers, reserved words, padding) survive.
* MQCHARV strings (``VSPtr``/``VSOffset``/``VSBufSize``/``VSLength``/``VSCCSID``) are read through the
  pointer when it is set (``ibmmq`` keeps the ctypes buffer alive for the duration of the call, exactly as
  the C library expects), else through the offset into the buffer.  Output strings (ResObjectString) are
  written into the caller's buffer when it offers one (``VSBufSize`` > 0); VSLength is always set.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, field, fields as dc_fields

from qmlite.pcf import constants as C
from qmlite.pcf import mqi

__all__ = [
    "Field", "Layout", "LAYOUTS", "MQMD", "MQOD", "MQPMO", "MQGMO", "MQSD", "MQSRO", "MQCNO", "MQCSP",
    "MQCD", "MQSTS", "NativeError", "read_pointer", "write_pointer",
]

_ALIGN = {"i": 4, "q": 8, "P": 8, "B": 1, "s": 1, "x": 1}


class NativeError(ValueError):
    """A native-layout buffer cannot be decoded; ``reason`` is the structure's MQRC_*_ERROR."""

    def __init__(self, reason: int, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Field:
    """One member.  ``kind``: int, int64, ptr, char (text), bin (bytes), byte (one MQCHAR as int),
    pad, charv (an MQCHARV group), ints (an MQLONG array)."""

    name: str
    kind: str
    size: int = 4  # bytes for char/bin/pad, element count for ints
    since: int = 1  # structure version that introduced the member
    offset: int = 0  # filled in by Layout
    # Derived once here, not on each use: ibmmq's every MQI call encodes and decodes its structures
    # member by member, and these were properties computed again each time (struct.calcsize included).
    code: str = field(init=False, repr=False, compare=False)  # the member's native struct code
    nbytes: int = field(init=False, repr=False, compare=False)
    align: int = field(init=False, repr=False, compare=False)
    packer: struct.Struct = field(init=False, repr=False, compare=False)  # "@" + code

    def __post_init__(self) -> None:
        code = _CODES[self.kind](self.size)
        packer = struct.Struct("@" + code)
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "nbytes", packer.size)
        object.__setattr__(self, "align", 8 if self.kind == "charv" else _ALIGN[code[-1]])
        object.__setattr__(self, "packer", packer)


_CODES = {"int": lambda n: "i", "int64": lambda n: "q", "ptr": lambda n: "P", "byte": lambda n: "B",
          "ints": lambda n: f"{n}i", "pad": lambda n: f"{n}x", "charv": lambda n: "P4i",
          "char": lambda n: f"{n}s", "bin": lambda n: f"{n}s"}


def I(name, since=1):  # noqa: E743 - MQLONG
    return Field(name, "int", 4, since)


def Q(name, since=1):  # MQINT64 / MQHMSG
    return Field(name, "int64", 8, since)


def P(name, since=1):  # pointer
    return Field(name, "ptr", 8, since)


def S(name, size, since=1):  # MQCHAR[size]
    return Field(name, "char", size, since)


def B(name, size, since=1):  # MQBYTE[size]
    return Field(name, "bin", size, since)


def V(name, since=1):  # MQCHARV
    return Field(name, "charv", 24, since)


def C1(name, since=1):  # one MQCHAR, kept as its byte value
    return Field(name, "byte", 1, since)


def X(name, size, since=1):  # padding or reserved bytes
    return Field(name, "pad", size, since)


class Layout:
    """A structure's members at their native offsets."""

    def __init__(self, name: str, strucid: bytes | None, members: list[Field], *, reason: int,
                 model: type | None = None, keep_pointers: bool = False) -> None:
        self.name = name
        self.strucid = strucid
        self.reason = reason
        self.model = model
        self.keep_pointers = keep_pointers  # False for qmlite's dataclasses (32-bit wire pointer fields)
        placed: list[Field] = []
        off = 0
        for f in members:
            off = (off + f.align - 1) // f.align * f.align
            placed.append(Field(f.name, f.kind, f.size, f.since, off))
            off += f.nbytes
        self.fields = placed
        self.by_name = {f.name: f for f in placed}
        self.size = off  # the length ibmmq packs when every member is present (no trailing rounding)
        self._version = self.by_name.get("Version")
        self._sizes: dict[int, int] = {}
        # The model's members decode() fills, and whether each is a pointer it zeroes.
        if model is not None:
            names = {f.name for f in dc_fields(model)}
            self._model_members = tuple((f.name, f.kind == "ptr" and not keep_pointers)
                                        for f in placed if f.name in names)
        # One precompiled struct per prefix a buffer can hold (a structure of an earlier version is a
        # prefix): decoding is one unpack_from, not one call per member.
        self._prefixes: list[tuple[int, struct.Struct, list[tuple[Field, int, int]]]] = []
        for i, last in enumerate(placed):
            end = last.offset + last.nbytes
            if i + 1 < len(placed) and placed[i + 1].offset + placed[i + 1].nbytes == end:
                continue
            fmt, pos, slots, n = ["="], 0, [], 0
            for f in placed[:i + 1]:
                if f.offset > pos:
                    fmt.append(f"{f.offset - pos}x")
                code = f.code.replace("P", "Q")
                fmt.append(code)
                count = len(struct.unpack("=" + code, bytes(struct.calcsize("=" + code))))
                slots.append((f, n, n + count))
                n += count
                pos = f.offset + f.nbytes
            self._prefixes.append((end, struct.Struct("".join(fmt)), slots))

    # -- sizes ----------------------------------------------------------------------------------
    def size_of(self, version: int) -> int:
        """End of the last member of ``version`` (members of later versions excluded)."""
        end = self._sizes.get(version)
        if end is None:
            end = max((f.offset + f.nbytes for f in self.fields if f.since <= version), default=0)
            self._sizes[version] = end
        return end

    @property
    def min_size(self) -> int:
        return self.size_of(1)

    # -- raw member access ----------------------------------------------------------------------
    def read_raw(self, buf, f: Field):
        vals = f.packer.unpack_from(buf, f.offset)
        if f.kind in ("charv", "ints"):
            return tuple(vals)
        if f.kind == "pad":
            return bytes(buf[f.offset:f.offset + f.size])
        return vals[0]

    def present(self, buf) -> list[Field]:
        return [f for f in self.fields if f.offset + f.nbytes <= len(buf)]

    def check(self, buf) -> int:
        """Validate StrucId and minimum length; return Version (0 for structures without one)."""
        if not isinstance(buf, (bytes, bytearray, memoryview)):
            raise NativeError(self.reason, f"{self.name}: expected bytes, got {type(buf).__name__}")
        if len(buf) < self.size_of(1):
            raise NativeError(self.reason, f"{self.name}: {len(buf)} bytes, need at least {self.min_size}")
        if self.strucid is not None and bytes(buf[0:4]) != self.strucid:
            raise NativeError(self.reason, f"{self.name}: StrucId {bytes(buf[0:4])!r}")
        if self._version is None:
            return 0
        return self._version.packer.unpack_from(buf, self._version.offset)[0]

    # -- decode ---------------------------------------------------------------------------------
    def decode_fields(self, buf) -> dict:
        """Every member present in ``buf`` as Python values (char → str, charv → MQCHARV)."""
        self.check(buf)
        out = {}
        n = len(buf)
        prefix = None
        for p in self._prefixes:
            if p[0] <= n:
                prefix = p
            else:
                break
        if prefix is None:
            return out
        _end, layout, slots = prefix
        values = layout.unpack_from(buf)
        for f, a, b in slots:
            kind = f.kind
            if kind == "char":
                out[f.name] = _text(values[a])
            elif kind == "charv":
                out[f.name] = _read_charv(buf, values[a:b], self.reason, f.name)
            elif kind == "ints":
                out[f.name] = list(values[a:b])
            elif kind == "pad":
                out[f.name] = bytes(buf[f.offset:f.offset + f.size])
            else:
                out[f.name] = values[a]
        return out

    def decode(self, buf):
        """The model dataclass for ``buf``.  Pointer members are zeroed for qmlite's dataclasses (theirs
        are 32-bit wire values, meaningless here) and kept for the transport's own (CNO, CSP, CD)."""
        return self.model_of(self.decode_fields(buf))

    def model_of(self, vals: dict):
        """The model dataclass for members already decoded by :meth:`decode_fields`."""
        kwargs = {}
        for name, is_ptr in self._model_members:
            if name in vals:
                kwargs[name] = 0 if is_ptr else vals[name]
        return self.model(**kwargs)

    # -- encode ---------------------------------------------------------------------------------
    def encode(self, obj, base=None, *, pad: bytes = b"\0", length: int | None = None,
               old: dict | None = None) -> bytes:
        """Bytes for ``obj`` (a dataclass or a mapping).  See the module docstring for ``base``; ``old``:
        ``decode_fields(base)`` when the caller has it already (it is not decoded twice)."""
        get = obj.get if isinstance(obj, dict) else (lambda n, d=None: getattr(obj, n, d))
        if base is not None:
            out = bytearray(base)
            if old is None:
                old = self.decode_fields(base)
        else:
            out = bytearray(length if length is not None else self.size)
            old = {}
        room = len(out)
        for f in self.fields:
            if f.offset + f.nbytes > room:
                break  # members are in offset order: none after this one fits either
            name = f.name
            if name == "StrucId" and self.strucid is not None:
                out[0:4] = self.strucid
                continue
            kind = f.kind
            if kind == "pad":
                continue
            value = get(name, None)
            if value is None:
                continue
            if name in old and old[name] == value:
                continue  # unchanged: keep the caller's bytes (padding, pointers) exactly
            if kind == "charv":
                raw = self.read_raw(out, f) if base is not None else (0, 0, 0, 0, 0)
                f.packer.pack_into(out, f.offset, *_write_charv(raw, value))
                continue
            if kind == "ptr" and base is not None:
                continue  # never invent pointers into the caller's memory
            f.packer.pack_into(out, f.offset, *_member(f, value, pad))
        return bytes(out)

    def encode_default(self, *, pad: bytes = b"\0") -> bytes:
        """The structure as the MQ defaults (the model dataclass's defaults) would pack it."""
        return self.encode(self.model(), pad=pad)


def _text(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("latin-1").rstrip(" ")


def _member(f: Field, value, pad: bytes) -> tuple:
    if f.kind == "char":
        raw = value.encode("latin-1") if isinstance(value, str) else bytes(value)
        if len(raw) > f.size:
            raise NativeError(C.MQRC_NONE, f"{f.name}: {len(raw)} bytes do not fit in {f.size}")
        return (raw + pad * (f.size - len(raw)),)
    if f.kind == "bin":
        raw = bytes(value)
        if len(raw) > f.size:
            raise NativeError(C.MQRC_NONE, f"{f.name}: {len(raw)} bytes do not fit in {f.size}")
        return (raw.ljust(f.size, b"\0"),)
    if f.kind == "byte":
        return (value[0] if isinstance(value, (bytes, bytearray)) else int(value),)
    if f.kind == "ints":
        return tuple(value)
    return (int(value),)


# -- MQCHARV and pointers -----------------------------------------------------------------------

def read_pointer(ptr: int, length: int) -> bytes:
    """``length`` bytes at ``ptr`` (``length`` < 0: up to the first NUL)."""
    if not ptr:
        return b""
    if length < 0:
        return ctypes.string_at(ptr)
    return ctypes.string_at(ptr, length)


def write_pointer(ptr: int, data: bytes) -> None:
    ctypes.memmove(ptr, data, len(data))


def _read_charv(buf, raw, reason: int, name: str) -> mqi.MQCHARV:
    ptr, offset, bufsize, length, ccsid = raw
    if length == 0:
        return mqi.MQCHARV("", bufsize, ccsid)
    if ptr:
        data = read_pointer(ptr, length)
    elif offset > 0:
        if length < 0:
            end = bytes(buf[offset:]).find(b"\0")
            if end < 0:
                raise NativeError(reason, f"{name}: VSLength -1 without a NUL")
            data = bytes(buf[offset:offset + end])
        elif offset + length > len(buf):
            raise NativeError(reason, f"{name}: VSOffset {offset} + VSLength {length} beyond the buffer")
        else:
            data = bytes(buf[offset:offset + length])
    elif length > 0:
        raise NativeError(reason, f"{name}: VSLength {length} but neither VSPtr nor VSOffset")
    else:
        data = b""
    return mqi.MQCHARV(data.decode("utf-8", "surrogateescape"), bufsize, ccsid)


def _write_charv(raw, value: mqi.MQCHARV) -> tuple:
    """New (VSPtr, VSOffset, VSBufSize, VSLength, VSCCSID) for an output string ``value``."""
    ptr, offset, bufsize, _length, ccsid = raw
    data = value.VSString.encode("utf-8", "surrogateescape")
    if ptr and bufsize > 0:
        write_pointer(ptr, data[:bufsize])
    return ptr, offset, bufsize, len(data), value.VSCCSID if value.VSCCSID else ccsid


# -- the structures -----------------------------------------------------------------------------

MQMD = Layout("MQMD", b"MD  ", [
    S("StrucId", 4), I("Version"), I("Report"), I("MsgType"), I("Expiry"), I("Feedback"), I("Encoding"),
    I("CodedCharSetId"), S("Format", 8), I("Priority"), I("Persistence"), B("MsgId", 24), B("CorrelId", 24),
    I("BackoutCount"), S("ReplyToQ", 48), S("ReplyToQMgr", 48), S("UserIdentifier", 12),
    B("AccountingToken", 32), S("ApplIdentityData", 32), I("PutApplType"), S("PutApplName", 28),
    S("PutDate", 8), S("PutTime", 8), S("ApplOriginData", 4),
    B("GroupId", 24, 2), I("MsgSeqNumber", 2), I("Offset", 2), I("MsgFlags", 2), I("OriginalLength", 2),
], reason=C.MQRC_MD_ERROR, model=mqi.MQMD)

MQOD = Layout("MQOD", b"OD  ", [
    S("StrucId", 4), I("Version"), I("ObjectType"), S("ObjectName", 48), S("ObjectQMgrName", 48),
    S("DynamicQName", 48), S("AlternateUserId", 12),
    I("RecsPresent", 2), I("KnownDestCount", 2), I("UnknownDestCount", 2), I("InvalidDestCount", 2),
    I("ObjectRecOffset", 2), I("ResponseRecOffset", 2), P("ObjectRecPtr", 2), P("ResponseRecPtr", 2),
    B("AlternateSecurityId", 40, 3), S("ResolvedQName", 48, 3), S("ResolvedQMgrName", 48, 3),
    V("ObjectString", 4), V("SelectionString", 4), V("ResObjectString", 4), I("ResolvedType", 4),
    X("Pad", 4, 4),
], reason=C.MQRC_OD_ERROR, model=mqi.MQOD)

MQPMO = Layout("MQPMO", b"PMO ", [
    S("StrucId", 4), I("Version"), I("Options"), I("Timeout"), I("Context"), I("KnownDestCount"),
    I("UnknownDestCount"), I("InvalidDestCount"), S("ResolvedQName", 48), S("ResolvedQMgrName", 48),
    I("RecsPresent", 2), I("PutMsgRecFields", 2), I("PutMsgRecOffset", 2), I("ResponseRecOffset", 2),
    P("PutMsgRecPtr", 2), P("ResponseRecPtr", 2),
    Q("OriginalMsgHandle", 3), Q("NewMsgHandle", 3), I("Action", 3), I("PubLevel", 3),
], reason=C.MQRC_PMO_ERROR, model=mqi.MQPMO)

MQGMO = Layout("MQGMO", b"GMO ", [
    S("StrucId", 4), I("Version"), I("Options"), I("WaitInterval"), I("Signal1"), I("Signal2"),
    S("ResolvedQName", 48),
    I("MatchOptions", 2), C1("GroupStatus", 2), C1("SegmentStatus", 2), C1("Segmentation", 2),
    C1("Reserved1", 2),
    B("MsgToken", 16, 3), I("ReturnedLength", 3),
    I("Reserved2", 4), Q("MsgHandle", 4),
], reason=C.MQRC_GMO_ERROR, model=mqi.MQGMO)

MQSD = Layout("MQSD", b"SD  ", [
    S("StrucId", 4), I("Version"), I("Options"), S("ObjectName", 48), S("AlternateUserId", 12),
    B("AlternateSecurityId", 40), I("SubExpiry"), V("ObjectString"), V("SubName"), V("SubUserData"),
    B("SubCorrelId", 24), I("PubPriority"), B("PubAccountingToken", 32), S("PubApplIdentityData", 32),
    V("SelectionString"), I("SubLevel"), V("ResObjectString"),
], reason=C.MQRC_SD_ERROR, model=mqi.MQSD)

MQSRO = Layout("MQSRO", b"SRO ", [
    S("StrucId", 4), I("Version"), I("Options"), I("NumPubs"),
], reason=C.MQRC_SRO_ERROR, model=mqi.MQSRO)


# Structures qmlite's client has no dataclass for: plain dataclasses holding what the transport needs.

@dataclass(slots=True)
class CNO:
    Version: int = C.MQCNO_VERSION_1
    Options: int = C.MQCNO_NONE
    ClientConnOffset: int = 0
    ClientConnPtr: int = 0
    ConnTag: bytes = bytes(128)
    SSLConfigPtr: int = 0
    SSLConfigOffset: int = 0
    ConnectionId: bytes = bytes(24)
    SecurityParmsOffset: int = 0
    SecurityParmsPtr: int = 0
    CCDTUrlPtr: int = 0
    CCDTUrlOffset: int = 0
    CCDTUrlLength: int = 0
    ApplName: str = ""
    BalanceParmsPtr: int = 0  # v8: the MQBNO (docs/extension-rules.md)


@dataclass(slots=True)
class CSP:
    Version: int = C.MQCSP_VERSION_1
    AuthenticationType: int = C.MQCSP_AUTH_NONE
    CSPUserIdPtr: int = 0
    CSPUserIdOffset: int = 0
    CSPUserIdLength: int = 0
    CSPPasswordPtr: int = 0
    CSPPasswordOffset: int = 0
    CSPPasswordLength: int = 0
    InitialKeyPtr: int = 0
    InitialKeyOffset: int = 0
    InitialKeyLength: int = 0
    TokenPtr: int = 0
    TokenOffset: int = 0
    TokenLength: int = 0


@dataclass(slots=True)
class CD:
    ChannelName: str = ""
    Version: int = 1
    ChannelType: int = 6  # MQCHT_CLNTCONN
    TransportType: int = 2  # MQXPT_TCP
    QMgrName: str = ""
    MaxMsgLength: int = 4194304
    UserIdentifier: str = ""
    Password: str = ""
    ConnectionName: str = ""
    HeartbeatInterval: int = 300
    SSLCipherSpec: str = ""
    SSLPeerNamePtr: int = 0
    SSLPeerNameLength: int = 0
    SharingConversations: int = 10
    DefReconnect: int = 0  # MQRCN_NO; MQCD v10+ (the client channel's DEFRECON)
    CertificateLabel: str = ""


@dataclass(slots=True)
class SCO:
    """MQSCO: the client's TLS configuration (cmqc.h), as far as qmlite's client uses it."""

    Version: int = 1
    KeyRepository: str = ""
    FipsRequired: int = 0  # accepted: Python's ssl uses what the OpenSSL build provides
    CertificateLabel: str = ""
    KeyRepoPasswordPtr: int = 0
    KeyRepoPasswordOffset: int = 0
    KeyRepoPasswordLength: int = 0


@dataclass(slots=True)
class STS:
    Version: int = C.MQSTS_VERSION_1
    CompCode: int = C.MQCC_OK
    Reason: int = C.MQRC_NONE
    PutSuccessCount: int = 0
    PutWarningCount: int = 0
    PutFailureCount: int = 0
    ObjectType: int = C.MQOT_Q
    ObjectName: str = ""
    ObjectQMgrName: str = ""
    ResolvedObjectName: str = ""
    ResolvedQMgrName: str = ""
    OpenOptions: int = 0
    SubOptions: int = 0


MQCNO = Layout("MQCNO", b"CNO ", [
    S("StrucId", 4), I("Version"), I("Options"), I("ClientConnOffset", 2), P("ClientConnPtr", 2),
    B("ConnTag", 128, 3), P("SSLConfigPtr", 4), I("SSLConfigOffset", 4), B("ConnectionId", 24, 5),
    I("SecurityParmsOffset", 5), P("SecurityParmsPtr", 5),
    P("CCDTUrlPtr", 6), I("CCDTUrlOffset", 6), I("CCDTUrlLength", 6), Q("Reserved", 6),
    S("ApplName", 28, 7), I("Reserved2", 7),
    P("BalanceParmsPtr", 8), I("BalanceParmsOffset", 8), I("Reserved3", 8),
], reason=C.MQRC_CNO_ERROR, model=CNO, keep_pointers=True)

MQCSP = Layout("MQCSP", b"CSP ", [
    S("StrucId", 4), I("Version"), I("AuthenticationType"), I("Reserved1"),
    P("CSPUserIdPtr"), I("CSPUserIdOffset"), I("CSPUserIdLength"), Q("Reserved2"),
    P("CSPPasswordPtr"), I("CSPPasswordOffset"), I("CSPPasswordLength"),
    Q("Reserved3", 2), P("InitialKeyPtr", 2), I("InitialKeyOffset", 2), I("InitialKeyLength", 2),
    Q("Reserved4", 3), P("TokenPtr", 3), I("TokenOffset", 3), I("TokenLength", 3),
], reason=C.MQRC_CSP_ERROR, model=CSP, keep_pointers=True)

_EXIT = 128  # MQ_EXIT_NAME_LENGTH on this platform
MQCD = Layout("MQCD", None, [
    S("ChannelName", 20), I("Version"), I("ChannelType"), I("TransportType"), S("Desc", 64),
    S("QMgrName", 48), S("XmitQName", 48), S("ShortConnectionName", 20), S("MCAName", 20),
    S("ModeName", 8), S("TpName", 64), I("BatchSize"), I("DiscInterval"), I("ShortRetryCount"),
    I("ShortRetryInterval"), I("LongRetryCount"), I("LongRetryInterval"), S("SecurityExit", _EXIT),
    S("MsgExit", _EXIT), S("SendExit", _EXIT), S("ReceiveExit", _EXIT), I("SeqNumberWrap"),
    I("MaxMsgLength"), I("PutAuthority"), I("DataConversion"), S("SecurityUserData", 32),
    S("MsgUserData", 32), S("SendUserData", 32), S("ReceiveUserData", 32),
    S("UserIdentifier", 12, 2), S("Password", 12, 2), S("MCAUserIdentifier", 12, 2), I("MCAType", 2),
    S("ConnectionName", 264, 2), S("RemoteUserIdentifier", 12, 2), S("RemotePassword", 12, 2),
    S("MsgRetryExit", _EXIT, 3), S("MsgRetryUserData", 32, 3), I("MsgRetryCount", 3),
    I("MsgRetryInterval", 3),
    I("HeartbeatInterval", 4), I("BatchInterval", 4), I("NonPersistentMsgSpeed", 4), I("StrucLength", 4),
    I("ExitNameLength", 4), I("ExitDataLength", 4), I("MsgExitsDefined", 4), I("SendExitsDefined", 4),
    I("ReceiveExitsDefined", 4), P("MsgExitPtr", 4), P("MsgUserDataPtr", 4), P("SendExitPtr", 4),
    P("SendUserDataPtr", 4), P("ReceiveExitPtr", 4), P("ReceiveUserDataPtr", 4),
    P("ClusterPtr", 5), I("ClustersDefined", 5), I("NetworkPriority", 5),
    I("LongMCAUserIdLength", 6), I("LongRemoteUserIdLength", 6), P("LongMCAUserIdPtr", 6),
    P("LongRemoteUserIdPtr", 6), B("MCASecurityId", 40, 6), B("RemoteSecurityId", 40, 6),
    S("SSLCipherSpec", 32, 7), P("SSLPeerNamePtr", 7), I("SSLPeerNameLength", 7), I("SSLClientAuth", 7),
    I("KeepAliveInterval", 7), S("LocalAddress", 48, 7), I("BatchHeartbeat", 7),
    Field("HdrCompList", "ints", 2, 8), Field("MsgCompList", "ints", 16, 8), I("CLWLChannelRank", 8),
    I("CLWLChannelPriority", 8), I("CLWLChannelWeight", 8), I("ChannelMonitoring", 8),
    I("ChannelStatistics", 8),
    I("SharingConversations", 9), I("PropertyControl", 9), I("MaxInstances", 9),
    I("MaxInstancesPerClient", 9), I("ClientChannelWeight", 9), I("ConnectionAffinity", 9),
    I("BatchDataLimit", 10), I("UseDLQ", 10), I("DefReconnect", 10),
    S("CertificateLabel", 64, 11),
    I("SPLProtection", 12), X("Pad", 4, 12),
    I("QuantumSafeAlgorithm", 13), I("QuantumSafeRequired", 13),
], reason=C.MQRC_CD_ERROR, model=CD, keep_pointers=True)

MQSCO = Layout("MQSCO", b"SCO ", [
    S("StrucId", 4), I("Version"), S("KeyRepository", 256), S("CryptoHardware", 256), I("AuthInfoRecCount"),
    I("AuthInfoRecOffset"), P("AuthInfoRecPtr"), I("KeyResetCount", 2), I("FipsRequired", 2),
    Field("EncryptionPolicySuiteB", "ints", 4, 3), I("CertificateValPolicy", 4), S("CertificateLabel", 64, 5),
    P("KeyRepoPasswordPtr", 6), I("KeyRepoPasswordOffset", 6), I("KeyRepoPasswordLength", 6),
    I("HTTPSCertValidation", 7), I("HTTPSCertRevocation", 7), P("HTTPSKeyStorePtr", 7),
    I("HTTPSKeyStoreOffset", 7), I("HTTPSKeyStoreLength", 7),
], reason=C.MQRC_SCO_ERROR, model=SCO, keep_pointers=True)

MQSTS = Layout("MQSTS", b"STAT", [
    S("StrucId", 4), I("Version"), I("CompCode"), I("Reason"), I("PutSuccessCount"), I("PutWarningCount"),
    I("PutFailureCount"), I("ObjectType"), S("ObjectName", 48), S("ObjectQMgrName", 48),
    S("ResolvedObjectName", 48), S("ResolvedQMgrName", 48),
    V("ObjectString", 2), V("SubName", 2), I("OpenOptions", 2), I("SubOptions", 2),
], reason=C.MQRC_STS_ERROR, model=STS, keep_pointers=True)

LAYOUTS = {lay.name: lay for lay in (MQMD, MQOD, MQPMO, MQGMO, MQSD, MQSRO, MQCNO, MQCSP, MQCD, MQSCO, MQSTS)}
