"""``pymqe``: qmlite's stand-in for the C extension of ``pymqi`` (the pymqi 1.12 API).

pymqi loads its extension with ``from . import pymqe`` and, when that fails, falls back to a top-level
module named ``pymqe`` -- this one.  pymqi's C extension needs IBM's MQ headers and client library to
build; installed without them (``CC=true LDSHARED=true pip install pymqi``, see ``docs/pymqi.md``) pymqi
has no ``pymqi/pymqe*.so`` and imports this module, whose verbs are a second face of the ``ibmmqc``
transport: every call is translated to the arguments of ``ibmmqc`` (IBM's ``ibmmq`` extension shapes)
and handed to its functions, which run over qmlite's blocking client.  There is no MQI logic here,
only argument shapes, pymqe's structure size checks and its return tuples.

Conventions of pymqi's extension kept here:

* structures are native-layout ``bytes`` of exactly the size of the headers the extension was "built"
  with (see ``__mqlevels__``); another size raises :class:`error` ("MQOD wrong size. Given: 100,
  expected 424"), as ``pymqe.c``'s ``checkArgSize`` does;
* arguments parsed with ``PyArg_ParseTuple`` formats: ``l``/``L`` want integers, ``y#`` wants
  ``bytes`` (a ``str`` or ``bytearray`` is a ``TypeError``);
* MQ failures are returned (CompCode and Reason last), never raised.
"""

from __future__ import annotations

import ctypes
import operator
import struct
from importlib import metadata as _metadata

from ibmmqc import _mqi
from ibmmqc import extrules as _extrules
from ibmmqc import msghandles as _MH
from ibmmqc import native as _N
from qmlite.pcf import constants as _C

__all__ = [
    "MQBACK", "MQBEGIN", "MQCLOSE", "MQCMIT", "MQCONN", "MQCONNX", "MQCRTMH", "MQDISC", "MQDLTMH", "MQDLTMP",
    "MQGET", "MQINQ", "MQINQMP", "MQOPEN", "MQPUT", "MQPUT1", "MQSET", "MQSETMP", "MQSTAT", "MQSUB", "MQSUBRQ",
    "error", "mqaiExecute",
]


class error(Exception):  # noqa: N801 - the name pymqe.c gives it
    """pymqe's own exception: a structure of the wrong size, a bad MQSET value, bad MQAI arguments."""


error.__module__ = "pymqe"
globals()["pymqe.error"] = error  # pymqe.c stores its exception under this dictionary key


def _pymqi_version() -> str:
    try:
        return _metadata.version("pymqi")
    except _metadata.PackageNotFoundError:
        return "0"


__version__ = _pymqi_version()
__mqbuild__ = "client"
# The command levels pymqe.c lists (5.0 up to 8.0.1).  pymqi chooses its structure layouts from these:
# with '8.0.0' present it packs MQSCO v5 and no trailing pad in the MQCD; with '7.0' the MQOD v4 fields,
# the MQPMO v3 and MQGMO v4 fields.  The sizes below are what it then packs.
__mqlevels__ = ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5", "8.0.0", "8.0.1")

_PTR = struct.calcsize("P")
if _PTR != 8:  # pragma: no cover - qmlite's native layouts are those of 64-bit platforms
    raise ImportError("qmlite's pymqe supports 64-bit Python only")

# The sizes pymqe.c checks (PYMQI_MQ*_SIZEOF): the current structure versions, 64-bit, as pymqi packs
# them (no trailing rounding of the MQSCO).
SIZES = {
    "MQOD": _N.MQOD.size,  # 424, v4 (with the 4 trailing pad bytes pymqi adds)
    "MQMD": _N.MQMD.size,  # 364, v2
    "MQPMO": _N.MQPMO.size,  # 184, v3
    "MQGMO": _N.MQGMO.size,  # 112, v4
    "MQSD": _N.MQSD.size,  # 344
    "MQSRO": _N.MQSRO.size,  # 16
    "MQSTS": _N.MQSTS.size,  # 280, v2
    "MQSCO": 628,  # v5: StrucId .. CertificateLabel
    "MQCMHO": 12, "MQDMHO": 12, "MQDMPO": 12, "MQSMPO": 20, "MQIMPO": 64, "MQPD": 24,
}
MAX_CHARATTR_LENGTH = 257  # pymqe.c's buffer for one MQINQ/MQSET character attribute (+1 for a NUL)
_MQIA_FIRST, _MQIA_LAST = 1, 2000
_IMPO = struct.Struct("=4siiiiii4xQiiii8s")
_PD = struct.Struct("=4siiiii")
_MQCOPY_DEFAULT = 0x16  # MQPD CopyOptions: FORWARD | PUBLISH | REPLY | REPORT


# --------------------------------------------------------------------------------------------------
# Argument checks, as PyArg_ParseTuple and checkArgSize do them
# --------------------------------------------------------------------------------------------------

def _long(value, what: str) -> int:
    """An ``l`` argument: an integer (or anything with ``__index__``) that fits a C long."""
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: an integer is required, not {type(value).__name__}") from None
    if not -(1 << 63) <= n < (1 << 63):
        raise OverflowError(f"{what}: Python int too large to convert to C long")
    return n


def _mq(value, what: str) -> int:
    """An ``l`` argument pymqe.c casts to an MQLONG: wraps to 32 bits as the C cast does."""
    return _mqlong(_long(value, what))


def _bytes(value, what: str) -> bytes:
    """A ``y#`` argument: bytes (a read-only bytes-like object)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, memoryview) and value.readonly:
        return value.tobytes()
    raise TypeError(f"{what} must be read-only bytes-like object, not {type(value).__name__}")


def _sized(value, name: str, what: str) -> bytes:
    buf = _bytes(value, what)
    expected = SIZES[name]
    if len(buf) != expected:
        raise error(f"{name} wrong size. Given: {len(buf)}, expected {expected}")
    return buf


def _same_length(out, base: bytes) -> bytes:
    """pymqe hands back exactly the structure's size: keep the caller's length whatever the transport
    returned."""
    out = bytes(out)
    if len(out) == len(base):
        return out
    return out[:len(base)] + base[len(out):]


def _mqlong(n: int) -> int:
    """A C long cast to MQLONG (32 bits, wrapping), as pymqe.c's assignments do."""
    return (n + (1 << 31)) % (1 << 32) - (1 << 31)


def _text_arg(value, what: str):
    """pymqe.c's Py23BytesOrText_AsString: bytes as they are, str as UTF-8, anything else None."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return None


# --------------------------------------------------------------------------------------------------
# Connections
# --------------------------------------------------------------------------------------------------

def MQCONN(name):
    """MQCONN(name) → (hconn, CompCode, Reason).  A client connection configured by MQSERVER, a CCDT or
    the client configuration file (docs/ccdt.md)."""
    return _mqi.MQCONN(_text_arg(name, "name") or b"")


def MQCONNX(name, options, cd, user_password, sco=None):
    """MQCONNX(name, options, cd, {'user', 'password'}, sco) → (hconn, CompCode, Reason).

    As pymqe.c (docs/extension-rules.md): an MQCNO v5 is built here with ``options`` (nothing else of
    it: no CCDTUrl, ApplName or MQBNO), ``ClientConnPtr`` = the MQCD (``None``: the channel IBM's
    client would find: MQSERVER, a CCDT, the client configuration file; docs/ccdt.md),
    ``SecurityParmsPtr`` = an MQCSP v1 with the user and password when the dictionary is not empty,
    ``SSLConfigPtr`` = the MQSCO as given (pymqe.c checks no size here: the MQI reads it, 2380
    SCO_ERROR for one it cannot).  None of their versions is raised (pymqi raises the MQCD's to 7 for
    an SSLCipherSpec itself)."""
    qmgr = _bytes(name, "MQCONNX() argument 1")
    opts = _mq(options, "MQCONNX() argument 2")
    if cd is not None and not isinstance(cd, bytes):
        if isinstance(cd, str):
            cd = cd.encode("utf-8")
        else:
            cd = _bytes(cd, "MQCONNX() argument 3")
    if sco is not None:
        sco = _bytes(sco, "MQCONNX() argument 5")
    keep = []  # the ctypes buffers the MQCSP points at, alive until the call returns
    csp = None
    if user_password:
        if not isinstance(user_password, dict):
            raise TypeError(f"MQCONNX() argument 4 must be a dict, not {type(user_password).__name__}")
        user, password = user_password.get("user"), user_password.get("password")
        user_b, password_b = _text_arg(user, "user"), _text_arg(password, "password")
        if (user is not None and user_b is None) or (password is not None and password_b is None):
            raise error("Failed to parse user/password. Check they are bytes or string.")
        fields = {"Version": 1, "AuthenticationType": _C.MQCSP_AUTH_USER_ID_AND_PWD}
        for key, value in (("CSPUserId", user_b), ("CSPPassword", password_b)):
            if value is None:
                continue
            buf = ctypes.create_string_buffer(value, len(value) + 1)
            keep.append(buf)
            fields[key + "Ptr"] = ctypes.addressof(buf)
            fields[key + "Length"] = len(value)
        csp = _N.MQCSP.encode(fields, length=_N.MQCSP.size_of(1))
    result = _mqi.connx(qmgr, _extrules.pymqe_cno(opts), cd, csp, sco, None)
    del keep
    return result


def MQDISC(hconn):
    """MQDISC(hconn) → (CompCode, Reason)."""
    return _mqi.MQDISC(_mq(hconn, "MQDISC() argument 1"))


# --------------------------------------------------------------------------------------------------
# Objects and messages
# --------------------------------------------------------------------------------------------------

def MQOPEN(hconn, od, options):
    """MQOPEN(hconn, od, options) → (hobj, od, CompCode, Reason)."""
    h = _mq(hconn, "MQOPEN() argument 1")
    od_b = _sized(od, "MQOD", "MQOPEN() argument 2")
    opts = _mq(options, "MQOPEN() argument 3")
    hobj, od_out, cc, rc = _mqi.MQOPEN(h, od_b, opts)
    return hobj, _same_length(od_out, od_b), cc, rc


def MQCLOSE(hconn, hobj, options):
    """MQCLOSE(hconn, hobj, options) → (CompCode, Reason)."""
    return _mqi.MQCLOSE(_mq(hconn, "MQCLOSE() argument 1"), _mq(hobj, "MQCLOSE() argument 2"),
                        _mq(options, "MQCLOSE() argument 3"))


def MQPUT(hconn, hobj, md, pmo, msg):
    """MQPUT(hconn, hobj, md, pmo, msg) → (md, pmo, CompCode, Reason)."""
    h = _mq(hconn, "MQPUT() argument 1")
    o = _mq(hobj, "MQPUT() argument 2")
    md_b = _bytes(md, "MQPUT() argument 3")
    pmo_b = _bytes(pmo, "MQPUT() argument 4")
    data = _bytes(msg, "MQPUT() argument 5")
    _sized(md_b, "MQMD", "")
    _sized(pmo_b, "MQPMO", "")
    md_out, pmo_out, cc, rc = _mqi.MQPUT(h, o, md_b, pmo_b, data)
    return _same_length(md_out, md_b), _same_length(pmo_out, pmo_b), cc, rc


def MQPUT1(hconn, od, md, pmo, msg):
    """MQPUT1(hconn, od, md, pmo, msg) → (md, pmo, CompCode, Reason)."""
    h = _mq(hconn, "MQPUT1() argument 1")
    od_b = _bytes(od, "MQPUT1() argument 2")
    md_b = _bytes(md, "MQPUT1() argument 3")
    pmo_b = _bytes(pmo, "MQPUT1() argument 4")
    data = _bytes(msg, "MQPUT1() argument 5")
    _sized(od_b, "MQOD", "")
    _sized(md_b, "MQMD", "")
    _sized(pmo_b, "MQPMO", "")
    md_out, pmo_out, cc, rc = _mqi.MQPUT1(h, od_b, md_b, pmo_b, data)
    return _same_length(md_out, md_b), _same_length(pmo_out, pmo_b), cc, rc


def MQGET(hconn, hobj, md, gmo, maxlen):
    """MQGET(hconn, hobj, md, gmo, maxlen) → (data, md, gmo, DataLength, CompCode, Reason).

    ``data`` holds at most ``maxlen`` bytes; DataLength is the message's length (more than ``maxlen``
    with 2079/2080)."""
    h = _mq(hconn, "MQGET() argument 1")
    o = _mq(hobj, "MQGET() argument 2")
    md_b = _bytes(md, "MQGET() argument 3")
    gmo_b = _bytes(gmo, "MQGET() argument 4")
    length = _long(maxlen, "MQGET() argument 5")
    _sized(md_b, "MQMD", "")
    _sized(gmo_b, "MQGMO", "")
    if length < 0:
        raise error("No memory for message")  # pymqe.c: malloc(maxlen) failed
    if length > 0x7FFFFFFF:  # does not fit MQGET's MQLONG BufferLength
        return b"", md_b, gmo_b, 0, _C.MQCC_FAILED, _C.MQRC_BUFFER_LENGTH_ERROR
    data, md_out, gmo_out, data_length, cc, rc = _mqi.MQGET(h, o, md_b, gmo_b, length)
    return (bytes(data[:length]), _same_length(md_out, md_b), _same_length(gmo_out, gmo_b), data_length,
            cc, rc)


# --------------------------------------------------------------------------------------------------
# Units of work
# --------------------------------------------------------------------------------------------------

def MQBEGIN(hconn):
    """MQBEGIN(hconn) → (CompCode, Reason): 2298, there are no global units of work."""
    return _mqi.MQBEGIN(_mq(hconn, "MQBEGIN() argument 1"))


def MQCMIT(hconn):
    """MQCMIT(hconn) → (CompCode, Reason)."""
    return _mqi.MQCMIT(_mq(hconn, "MQCMIT() argument 1"))


def MQBACK(hconn):
    """MQBACK(hconn) → (CompCode, Reason)."""
    return _mqi.MQBACK(_mq(hconn, "MQBACK() argument 1"))


# --------------------------------------------------------------------------------------------------
# MQINQ / MQSET: one attribute at a time
# --------------------------------------------------------------------------------------------------

def _is_int_selector(selector: int) -> bool:
    return _MQIA_FIRST <= selector <= _MQIA_LAST


def MQINQ(hconn, hobj, selector):
    """MQINQ(hconn, hobj, selector) → (value, CompCode, Reason).

    An integer selector (MQIA_*) gives an ``int``; any other a character attribute as ``bytes`` (the
    queue manager's blank-padded value, up to 256 bytes)."""
    h = _mq(hconn, "MQINQ() argument 1")
    o = _mq(hobj, "MQINQ() argument 2")
    sel = _mq(selector, "MQINQ() argument 3")
    if _is_int_selector(sel):
        ints, _chars, cc, rc = _mqi.MQINQ(h, o, [sel], [], 1, 0, 0)
        return (ints[0] if ints else 0), cc, rc
    _ints, chars, cc, rc = _mqi.MQINQ(h, o, [sel], [], 0, 1, MAX_CHARATTR_LENGTH - 1)
    # pymqe.c hands MQINQ a zeroed 257-byte buffer and returns it up to the first NUL: the attribute
    # at its MQ length.  qmlite's queue manager fills the rest of the 256 bytes with blanks, so the
    # value is cut to the attribute's length here.
    chars = bytes(chars[:_char_attr_length(sel)]).split(b"\0", 1)[0]
    return chars, cc, rc


_char_lengths: dict[int, int] = {}


def _char_attr_length(selector: int) -> int:
    """The MQ_*_LENGTH of a character attribute, from qmlite's attribute tables (the queue manager's
    own description of MQINQ's answers); pymqe's whole buffer (256) for one it does not know or a list."""
    if not _char_lengths:
        from qmlite.registry.messaging import inquire  # noqa: PLC0415 - first use only
        from qmlite.registry.admin.commands import namelists
        from qmlite.registry.admin.commands import processes
        from qmlite.registry.admin.commands import qmgr
        from qmlite.registry.admin.commands import queues
        from qmlite.registry.admin.commands import topics  # noqa: PLC0415
        from qmlite.registry.admin.params import STR_LIST  # noqa: PLC0415
        for table in (qmgr.TABLE, queues.TABLE, namelists.TABLE, processes.TABLE, topics.TOPIC_TABLE):
            for attr in table.attrs:
                if not _is_int_selector(attr.id) and attr.kind != STR_LIST:
                    _char_lengths.setdefault(attr.id, inquire.attr_length(attr) or MAX_CHARATTR_LENGTH - 1)
    return min(_char_lengths.get(selector, MAX_CHARATTR_LENGTH - 1), MAX_CHARATTR_LENGTH - 1)


def MQSET(hconn, hobj, selector, value):
    """MQSET(hconn, hobj, selector, value) → (CompCode, Reason).

    An integer selector needs an ``int`` value, any other ``bytes`` (up to the first NUL, at most 257
    bytes); otherwise :class:`error` is raised, as pymqe.c does."""
    h = _mq(hconn, "MQSET() argument 1")
    o = _mq(hobj, "MQSET() argument 2")
    sel = _mq(selector, "MQSET() argument 3")
    if _is_int_selector(sel):
        if not isinstance(value, int):
            raise error("Arg is not a long integer")
        return _mqi.MQSET(h, o, [sel], [_mqlong(value)], b"")
    if not isinstance(value, bytes):
        raise error("Arg is not a byte-string")
    chars = value[:MAX_CHARATTR_LENGTH].split(b"\0", 1)[0]
    return _mqi.MQSET(h, o, [sel], [], chars)


# --------------------------------------------------------------------------------------------------
# Publish/subscribe
# --------------------------------------------------------------------------------------------------

def MQSUB(hconn, sd, hobj):
    """MQSUB(hconn, sd, hobj) → (sd, hobj, hsub, CompCode, Reason)."""
    h = _mq(hconn, "MQSUB() argument 1")
    sd_b = _bytes(sd, "MQSUB() argument 2")
    o = _mq(hobj, "MQSUB() argument 3")
    _sized(sd_b, "MQSD", "")
    sd_out, hobj_out, hsub, cc, rc = _mqi.MQSUB(h, sd_b, o)
    return _same_length(sd_out, sd_b), hobj_out, hsub, cc, rc


def MQSUBRQ(hconn, hsub, action, sro):
    """MQSUBRQ(hconn, hsub, action, sro) → (sro, CompCode, Reason).  Not in pymqe.c 1.12: given here
    with the same conventions (pymqi does not call it)."""
    h = _mq(hconn, "MQSUBRQ() argument 1")
    s = _mq(hsub, "MQSUBRQ() argument 2")
    a = _mq(action, "MQSUBRQ() argument 3")
    sro_b = _sized(sro, "MQSRO", "MQSUBRQ() argument 4")
    sro_out, cc, rc = _mqi.MQSUBRQ(h, s, a, sro_b)
    return _same_length(sro_out, sro_b), cc, rc


def MQSTAT(hconn, status_type, sts):
    """MQSTAT(hconn, type, sts) → (sts, CompCode, Reason).  Not in pymqe.c 1.12 (see MQSUBRQ)."""
    h = _mq(hconn, "MQSTAT() argument 1")
    t = _mq(status_type, "MQSTAT() argument 2")
    sts_b = _sized(sts, "MQSTS", "MQSTAT() argument 3")
    sts_out, cc, rc = _mqi.MQSTAT(h, t, sts_b)
    return _same_length(sts_out, sts_b), cc, rc


# --------------------------------------------------------------------------------------------------
# Message handles and properties (kept client-side by ibmmqc.msghandles)
# --------------------------------------------------------------------------------------------------

def MQCRTMH(hconn, cmho):
    """MQCRTMH(hconn, cmho) → (hmsg, CompCode, Reason)."""
    h = _mq(hconn, "MQCRTMH() argument 1")
    cmho_b = _sized(cmho, "MQCMHO", "MQCRTMH() argument 2")
    return _MH.MQCRTMH(h, cmho_b)


def MQSETMP(hconn, hmsg, smpo, name, pd, property_type, value, value_length):
    """MQSETMP(hconn, hmsg, smpo, name, pd, type, value, value_length) → (CompCode, Reason).

    The value is read per type as pymqe.c reads it (BOOLEAN through ``float()``, integers wrap to their
    width, STRING a ``str`` sent as UTF-8, BYTE_STRING ``bytes``, NULL none)."""
    h = _mq(hconn, "MQSETMP() argument 1")
    m = _long(hmsg, "MQSETMP() argument 2")
    smpo_b = _bytes(smpo, "MQSETMP() argument 3")
    name_b = _bytes(name, "MQSETMP() argument 4")
    pd_b = _bytes(pd, "MQSETMP() argument 5")
    ptype = _mq(property_type, "MQSETMP() argument 6")
    vlen = _mq(value_length, "MQSETMP() argument 8")
    _sized(smpo_b, "MQSMPO", "")
    _sized(pd_b, "MQPD", "")
    return _MH.MQSETMP(h, m, smpo_b, name_b, pd_b, ptype, value, vlen)


def MQINQMP(hconn, hmsg, impo_options, name, pd_options, property_type, value_length):
    """MQINQMP(hconn, hmsg, impo_options, name, pd_options, type, value_length) →
    (value, DataLength, CompCode, Reason).

    As pymqe.c: the MQIMPO and MQPD are built here (defaults, with the given Options); the value's
    Python type follows the property's type (BOOLEAN and integers ``int``, floats ``float``, STRING
    ``str``, BYTE_STRING ``bytes``, NULL ``None``), strings and byte strings cut to ``value_length``."""
    h = _mq(hconn, "MQINQMP() argument 1")
    m = _long(hmsg, "MQINQMP() argument 2")
    iopts = _mq(impo_options, "MQINQMP() argument 3")
    name_b = _bytes(name, "MQINQMP() argument 4")
    popts = _mq(pd_options, "MQINQMP() argument 5")
    ptype = _mq(property_type, "MQINQMP() argument 6")
    vlen = _mq(value_length, "MQINQMP() argument 7")
    impo = _IMPO.pack(b"IMPO", 1, iopts, _C.MQENC_NATIVE, _C.MQCCSI_APPL, _C.MQENC_NATIVE, 0,
                      0, 0, 0, 0, _C.MQCCSI_APPL, b"        ")
    pd = _PD.pack(b"PD  ", 1, popts, _C.MQPD_SUPPORT_OPTIONAL, _C.MQPD_NO_CONTEXT, _MQCOPY_DEFAULT)
    value, data_length, _returned_name, cc, rc = _MH.MQINQMP(h, m, impo, name_b, pd, ptype, vlen)
    return value, data_length, cc, rc


def MQDLTMH(hconn, hmsg, dmho):
    """MQDLTMH(hconn, hmsg, dmho) → (CompCode, Reason).  Not in pymqe.c 1.12 (see MQSUBRQ)."""
    h = _mq(hconn, "MQDLTMH() argument 1")
    m = _long(hmsg, "MQDLTMH() argument 2")
    return _MH.MQDLTMH(h, m, _sized(dmho, "MQDMHO", "MQDLTMH() argument 3"))


def MQDLTMP(hconn, hmsg, dmpo, name):
    """MQDLTMP(hconn, hmsg, dmpo, name) → (CompCode, Reason).  Not in pymqe.c 1.12 (see MQSUBRQ)."""
    h = _mq(hconn, "MQDLTMP() argument 1")
    m = _long(hmsg, "MQDLTMP() argument 2")
    dmpo_b = _sized(dmpo, "MQDMPO", "MQDLTMP() argument 3")
    return _MH.MQDLTMP(h, m, dmpo_b, _bytes(name, "MQDLTMP() argument 4"))


# --------------------------------------------------------------------------------------------------
# mqaiExecute: pymqe.c's MQAI call (mqExecute), over the connection's PCF command flow
# --------------------------------------------------------------------------------------------------

def mqaiExecute(hconn, command, args=None, filters=None):  # noqa: N802 - pymqe.c's name
    """mqaiExecute(hconn, command[, args[, filters]]) → (list of dicts, CompCode, Reason).

    ``args`` maps MQCA*/MQIA* selectors to ``int`` (MQCFIN), ``bytes`` (MQCFST), a list of ints (an
    MQCFIL, the inquiry attribute list) or a ``pymqi.ByteString`` (MQCFBS); ``filters`` are pymqi's
    filter objects (``selector``, ``operator``, ``value``, ``_pymqi_filter_type``).  Each response
    becomes a dictionary from selector to value (``int`` or ``bytes``; a repeated selector or a list
    parameter gives a list).  A command the queue manager refuses gives ``([], CompCode, Reason)`` with
    the reason of its first failed response, as MQAI does for MQRCCF_COMMAND_FAILED."""
    from qmlite.pcf import pcf as P  # noqa: PLC0415

    h = _mq(hconn, "mqaiExecute() argument 1")
    cmd = _mq(command, "mqaiExecute() argument 2")
    if args is not None and not isinstance(args, dict):
        raise error("'argDict' is not a dictionary")
    if filters is not None and not isinstance(filters, list):
        raise error("'filters' is not a list")
    params: list = []
    for flt in filters or []:
        try:
            selector, op, value = flt.selector, flt.operator, flt.value
            kind = flt._pymqi_filter_type  # noqa: SLF001 - pymqi's attribute
        except AttributeError as exc:
            raise error(f"'{exc.name}' object is NULL.") from None
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind == "string":
            params.append(P.CFSF(int(selector), int(op), _b2s(value)))
        elif kind == "integer":
            params.append(P.CFIF(int(selector), int(op), int(value)))
        else:
            raise error(f"Unrecognized filter type [{kind}].")
    for key, value in (args or {}).items():
        if not isinstance(key, int):
            raise error(f"Argument: {key} is not integer")
        if isinstance(value, int):
            params.append(P.CFIN(key, value))
        elif isinstance(value, bytes):
            params.append(P.CFST(key, _b2s(value.split(b"\0", 1)[0])))
        elif isinstance(value, list):
            params.append(P.CFIL(key, [int(v) for v in value if isinstance(v, int)]))
        elif hasattr(value, "pymqi_byte_string"):
            params.append(P.CFBS(key, bytes(value.value)))
        else:
            raise error(f"Value {value!r} for key {key} is not a long, bytes nor a pymqi.ByteString instance")
    conn = _mqi._lookup(h)  # noqa: SLF001 - the transport's connection table
    if conn is None:
        return [], _C.MQCC_FAILED, _C.MQRC_HCONN_ERROR
    res, cc, rc, exc = _mqi._call(conn, lambda qm: qm.pcf(cmd, params))  # noqa: SLF001
    if res is None:
        return [], cc, rc
    return [_bag(msg) for msg in res], cc, rc


def _b2s(value) -> str:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return str(value)


def _bag(msg) -> dict:
    from qmlite.pcf import pcf as P  # noqa: PLC0415

    out: dict = {}

    def add(key, value):
        if key in out:
            old = out[key]
            out[key] = old + [value] if isinstance(old, list) else [old, value]
        else:
            out[key] = value

    for p in msg.parameters:
        if isinstance(p, (P.CFIN, P.CFIN64)):
            add(p.parameter, p.value)
        elif isinstance(p, P.CFST):
            add(p.parameter, p.value.encode("latin-1", "replace"))
        elif isinstance(p, P.CFBS):
            add(p.parameter, bytes(p.value))
        elif isinstance(p, (P.CFIL, P.CFIL64)):
            for v in p.values:
                add(p.parameter, v)
        elif isinstance(p, P.CFSL):
            for v in p.values:
                add(p.parameter, v.encode("latin-1", "replace"))
        else:
            raise error("Bag in a Bag. Send clue to http://packages.python.org/pymqi/support-consulting-contact.html")
    return out
