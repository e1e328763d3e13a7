"""The MQI verbs ``ibmmq`` calls on its C extension, implemented over qmlite's synchronous client.

Every function takes the arguments ``ibmmq`` passes and returns the tuple its callers index (the
shapes are listed in ``docs/ibmmq.md``): output structures as native-layout bytes, then CompCode and
Reason last.  MQ failures are returned, never raised, as the C extension does; Python exceptions escape
only for programming errors (wrong argument types, bugs).
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import sys
import threading
from dataclasses import dataclass, field, replace

from qmlite.pcf import constants as C

from . import native as N
from .native import NativeError

log = logging.getLogger("qmlite.ibmmqc")

OK, WARNING, FAILED = C.MQCC_OK, C.MQCC_WARNING, C.MQCC_FAILED
_UNUSABLE_HOBJ = -1
MQSTAT_TYPE_ASYNC_ERROR = 0  # cmqc.h; absent from the generated constants
_UNSUPPORTED = (FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)
_DEFAULT_PORT = 1414
_CONN = re.compile(r"^\s*(?P<host>[^()]+?)\s*(?:\(\s*(?P<port>\d+)\s*\))?\s*$")


@dataclass(slots=True)
class _Connection:
    qm: object  # qmlite.client.sync.QueueManager
    lock: threading.RLock = field(default_factory=threading.RLock)


_connections: dict[int, _Connection] = {}
_table_lock = threading.Lock()
_hconns = itertools.count(0x1001)  # any non-zero value; ibmmq tests the handle for truth
_callback = None  # what MQCBINIT registered (kept, never called: MQCB is not supported)
_modules: tuple = ()


def _client():
    """qmlite's sync client and its error types, imported on first use (so ``import ibmmq`` never
    depends on them) and kept (ibmmq's ``__del__`` may call MQDISC while the interpreter shuts down,
    when imports no longer work)."""
    global _modules
    if not _modules:
        from qmlite.client import errors, sync  # noqa: PLC0415
        _modules = (sync, errors)
    return _modules


# --------------------------------------------------------------------------------------------------
# Connection
# --------------------------------------------------------------------------------------------------

def parse_conn_name(text: str) -> list[tuple[str, int]]:
    """``host(port)[,host(port)...]`` → [(host, port)]; the port defaults to 1414."""
    out = []
    for part in text.split(","):
        if not part.strip():
            continue
        m = _CONN.match(part)
        if m is None:
            raise ValueError(f"bad connection name {part!r}")
        out.append((m.group("host"), int(m.group("port") or _DEFAULT_PORT)))
    return out


def _mqserver() -> N.CD | None:
    """The MQSERVER environment variable (``CHANNEL/TCP/host(port)``), as a real client reads it."""
    value = os.environ.get("MQSERVER")
    if not value:
        return None
    parts = value.split("/", 2)
    if len(parts) != 3 or parts[1].strip().upper() != "TCP":
        return None
    return N.CD(ChannelName=parts[0].strip(), Version=2, ConnectionName=parts[2].strip())


def _appl_name(cno: N.CNO | None) -> str:
    if cno is not None and cno.Version >= 7 and cno.ApplName:
        return cno.ApplName
    name = os.path.basename(sys.argv[0] or "") or "python"
    return name[-28:]


def _pointer_text(ptr: int, length: int) -> str | None:
    if not ptr:
        return None
    return N.read_pointer(ptr, length).decode("utf-8", "surrogateescape")


def _credentials(csp: N.CSP | None, cd: N.CD | None):
    if csp is not None and csp.AuthenticationType == C.MQCSP_AUTH_USER_ID_AND_PWD:
        user = _pointer_text(csp.CSPUserIdPtr, csp.CSPUserIdLength)
        password = _pointer_text(csp.CSPPasswordPtr, csp.CSPPasswordLength)
        return user, password if password is not None else ""
    if cd is not None and cd.Version >= 2 and cd.UserIdentifier:
        return cd.UserIdentifier, cd.Password  # MQCD UserIdentifier/Password (old style)
    return None, None


def MQCONN(name):
    """MQCONN: a client connection configured by MQSERVER (there is no local queue manager)."""
    return MQCONNX(name, None, None, None, None, None)


def MQCONNX(name, cno=None, cd=None, csp=None, sco=None, bno=None):
    """MQCONNX → (hconn, CompCode, Reason)."""
    try:
        cno_s = N.MQCNO.decode(cno) if cno else None
        if cd:
            cd_s = N.MQCD.decode(cd)
        elif cno_s is not None and cno_s.ClientConnPtr:
            cd_s = _read_cd_at(cno_s.ClientConnPtr)
        else:
            cd_s = _mqserver()
        csp_s = N.MQCSP.decode(csp) if csp else None
    except NativeError as exc:
        log.debug("MQCONNX: %s", exc)
        return 0, FAILED, exc.reason
    # TLS is not offered by qmlite: a cipher spec fails; an MQSCO alone (key repository...) is ignored.
    if cd_s is not None and cd_s.Version >= 7 and cd_s.SSLCipherSpec:
        return 0, FAILED, C.MQRC_SSL_INITIALIZATION_ERROR
    if cd_s is None or not cd_s.ConnectionName or cd_s.Version < 2:
        # No client channel definition: a real client would look for a local queue manager or a CCDT.
        return 0, FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE
    if cd_s.TransportType != C.MQXPT_TCP:
        return 0, FAILED, C.MQRC_HOST_NOT_AVAILABLE
    try:
        addresses = parse_conn_name(cd_s.ConnectionName)
    except ValueError:
        return 0, FAILED, C.MQRC_HOST_NOT_AVAILABLE
    qmgr = _text(name)
    if qmgr.startswith("*"):
        qmgr = qmgr[1:]
    user, password = _credentials(csp_s, cd_s)
    sync, errors = _client()
    reason = C.MQRC_HOST_NOT_AVAILABLE
    for host, port in addresses:
        try:
            qm = sync.QueueManager.connect(host, port, cd_s.ChannelName, qmgr, user=user, password=password,
                                           appl_name=_appl_name(cno_s))
        except errors.MQIError as exc:
            if exc.reason in (C.MQRC_HOST_NOT_AVAILABLE, C.MQRC_CONNECTION_BROKEN):
                reason = exc.reason
                continue  # try the next address, as a real client does with a list
            return 0, exc.comp, exc.reason
        except OSError as exc:
            log.debug("MQCONNX %s(%d): %s", host, port, exc)
            continue
        hconn = next(_hconns)
        with _table_lock:
            _connections[hconn] = _Connection(qm)
        return hconn, OK, C.MQRC_NONE
    return 0, FAILED, reason


def _read_cd_at(ptr: int) -> N.CD:
    head = N.read_pointer(ptr, 32)
    version = int.from_bytes(head[20:24], sys.byteorder, signed=True)
    return N.MQCD.decode(N.read_pointer(ptr, N.MQCD.size_of(max(1, min(version, 13)))))


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).split(b"\0", 1)[0].decode("latin-1")
    return value.strip()


def MQDISC(hconn):
    """MQDISC → (CompCode, Reason)."""
    with _table_lock:
        conn = _connections.pop(hconn, None)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    try:
        return _call(conn, lambda qm: qm.disc())[1:3]
    except Exception as exc:  # noqa: BLE001 - e.g. the client's thread is gone at interpreter exit
        log.debug("MQDISC: %r", exc)
        return FAILED, C.MQRC_CONNECTION_BROKEN


def _lookup(hconn) -> _Connection | None:
    with _table_lock:
        return _connections.get(hconn)


def _call(conn: _Connection, fn):
    """Run ``fn(qm)`` under the connection's lock → (result, CompCode, Reason, MQIError or None)."""
    _sync, errors = _client()
    with conn.lock:
        try:
            return fn(conn.qm), OK, C.MQRC_NONE, None
        except errors.MQIError as exc:
            return None, exc.comp, exc.reason, exc
        except OSError as exc:  # the socket went away under the client
            log.debug("connection broken: %s", exc)
            return None, FAILED, C.MQRC_CONNECTION_BROKEN, None


# --------------------------------------------------------------------------------------------------
# Objects
# --------------------------------------------------------------------------------------------------

def MQOPEN(hconn, od, options):
    """MQOPEN → (hobj, od, CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return _UNUSABLE_HOBJ, od, FAILED, C.MQRC_HCONN_ERROR
    try:
        od_s = N.MQOD.decode(od)
    except NativeError as exc:
        return _UNUSABLE_HOBJ, od, FAILED, exc.reason
    res, cc, rc, _exc = _call(conn, lambda qm: qm.open(od_s, options))
    if res is None:
        return _UNUSABLE_HOBJ, od, cc, rc
    hobj, od_out = res
    return hobj, _encode_out(N.MQOD, od_out, od), cc, rc


def MQCLOSE(hconn, hobj, options):
    """MQCLOSE → (CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    if not isinstance(hobj, int):
        return FAILED, C.MQRC_HOBJ_ERROR  # (the sync client's close() without a handle would MQDISC)
    return _call(conn, lambda qm: qm.close(hobj, options))[1:3]


def _encode_out(layout: N.Layout, obj, base: bytes) -> bytes:
    """Output structure: the caller's bytes with changed fields rewritten (blank-padded, as MQ does)."""
    return layout.encode(obj, base, pad=b" ")


def _put_args(md, pmo):
    md_s = N.MQMD.decode(md)
    pmo_s = N.MQPMO.decode(pmo)
    return md_s, pmo_s


def _msg(msg) -> bytes:
    if msg is None:
        return b""
    if isinstance(msg, str):
        raise TypeError("message data must be bytes")
    return bytes(msg)


def MQPUT(hconn, hobj, md, pmo, msg):
    """MQPUT → (md, pmo, CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return md, pmo, FAILED, C.MQRC_HCONN_ERROR
    try:
        md_s, pmo_s = _put_args(md, pmo)
    except NativeError as exc:
        return md, pmo, FAILED, exc.reason
    data = _msg(msg)
    res, cc, rc, _exc = _call(conn, lambda qm: qm.put(hobj, md_s, pmo_s, data))
    if res is None:
        return md, pmo, cc, rc
    md_out, pmo_out = res
    return _encode_out(N.MQMD, md_out, md), _encode_out(N.MQPMO, pmo_out, pmo), cc, rc


def MQPUT1(hconn, od, md, pmo, msg):
    """MQPUT1 → (md, pmo, CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return md, pmo, FAILED, C.MQRC_HCONN_ERROR
    try:
        od_s = N.MQOD.decode(od)
        md_s, pmo_s = _put_args(md, pmo)
    except NativeError as exc:
        return md, pmo, FAILED, exc.reason
    data = _msg(msg)
    res, cc, rc, _exc = _call(conn, lambda qm: qm.put1(od_s, md_s, pmo_s, data))
    if res is None:
        return md, pmo, cc, rc
    md_out, pmo_out = res
    return _encode_out(N.MQMD, md_out, md), _encode_out(N.MQPMO, pmo_out, pmo), cc, rc


def MQGET(hconn, hobj, md, gmo, length):
    """MQGET → (data, md, gmo, DataLength, CompCode, Reason).

    On 2080 TRUNCATED_MSG_FAILED / 2079 TRUNCATED_MSG_ACCEPTED the returned MQMD and MQGMO are
    filled in and DataLength is the message's full length (ibmmq retries a 2080 with it)."""
    conn = _lookup(hconn)
    if conn is None:
        return b"", md, gmo, 0, FAILED, C.MQRC_HCONN_ERROR
    try:
        md_s = N.MQMD.decode(md)
        gmo_s = N.MQGMO.decode(gmo)
    except NativeError as exc:
        return b"", md, gmo, 0, FAILED, exc.reason
    length = int(length or 0)
    if length < 0:
        return b"", md, gmo, 0, FAILED, C.MQRC_BUFFER_LENGTH_ERROR
    res, cc, rc, exc = _call(conn, lambda qm: qm.get(hobj, md_s, gmo_s, length))
    if res is not None:
        md_out, gmo_out, data = res
        return (bytes(data), _encode_out(N.MQMD, md_out, md), _encode_out(N.MQGMO, gmo_out, gmo),
                len(data), cc, rc)
    if exc is None:
        return b"", md, gmo, 0, cc, rc
    md_b = _encode_out(N.MQMD, exc.md, md) if getattr(exc, "md", None) is not None else md
    gmo_b = _encode_out(N.MQGMO, exc.gmo, gmo) if getattr(exc, "gmo", None) is not None else gmo
    data = bytes(getattr(exc, "data", None) or b"")
    data_length = getattr(exc, "data_length", None)
    return data, md_b, gmo_b, data_length if data_length is not None else len(data), cc, rc


def MQINQ(hconn, hobj, selectors, int_attrs=None, int_count=0, char_count=0, char_length=0):
    """MQINQ → (IntAttrs list, CharAttrs bytes, CompCode, Reason).

    ``ibmmq`` passes (hconn, hobj, selectors, [], IntAttrCount, CharAttrCount, CharAttrLength); the
    count of character attributes is implied by the selectors and not needed."""
    conn = _lookup(hconn)
    if conn is None:
        return [], b"", FAILED, C.MQRC_HCONN_ERROR
    sels = [int(s) for s in selectors]
    res, cc, rc, _exc = _call(conn, lambda qm: qm.inq(hobj, sels, int(int_count), int(char_length)))
    if res is None:
        return [], b"", cc, rc
    ints, chars = res
    if isinstance(chars, str):
        chars = chars.encode("latin-1")
    return list(ints), bytes(chars), cc, rc


def MQSET(hconn, hobj, selectors, int_attrs, char_attrs):
    """MQSET → (CompCode, Reason); forwarded when the client offers ``set``."""
    conn = _lookup(hconn)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    if not hasattr(conn.qm, "set"):
        return _UNSUPPORTED
    sels = [int(s) for s in selectors]
    return _call(conn, lambda qm: qm.set(hobj, sels, list(int_attrs), bytes(char_attrs or b"")))[1:3]


# --------------------------------------------------------------------------------------------------
# Publish/subscribe
# --------------------------------------------------------------------------------------------------

def MQSUB(hconn, sd, hobj):
    """MQSUB → (sd, hobj, hsub, CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return sd, hobj, _UNUSABLE_HOBJ, FAILED, C.MQRC_HCONN_ERROR
    try:
        sd_s = N.MQSD.decode(sd)
    except NativeError as exc:
        return sd, hobj, _UNUSABLE_HOBJ, FAILED, exc.reason
    res, cc, rc, _exc = _call(conn, lambda qm: qm.sub(sd_s, hobj or 0))
    if res is None:
        return sd, hobj, _UNUSABLE_HOBJ, cc, rc
    hsub, hobj_out, sd_out = res
    return _encode_out(N.MQSD, sd_out, sd), hobj_out, hsub, cc, rc


def MQSUBRQ(hconn, hsub, action, sro):
    """MQSUBRQ → (sro, CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return sro, FAILED, C.MQRC_HCONN_ERROR
    try:
        sro_s = N.MQSRO.decode(sro)
    except NativeError as exc:
        return sro, FAILED, exc.reason
    res, cc, rc, _exc = _call(conn, lambda qm: qm.subrq(hsub, action, sro_s))
    if res is None:
        return sro, cc, rc
    return _encode_out(N.MQSRO, res, sro), cc, rc


# --------------------------------------------------------------------------------------------------
# Units of work and status
# --------------------------------------------------------------------------------------------------

def MQCMIT(hconn):
    """MQCMIT → (CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    return _call(conn, lambda qm: qm.cmit())[1:3]


def MQBACK(hconn):
    """MQBACK → (CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    return _call(conn, lambda qm: qm.back())[1:3]


def MQBEGIN(hconn):
    """MQBEGIN → (CompCode, Reason): global (XA) units of work are not offered."""
    if _lookup(hconn) is None:
        return FAILED, C.MQRC_HCONN_ERROR
    return _UNSUPPORTED


def MQSTAT(hconn, status_type, sts):
    """MQSTAT → (sts, CompCode, Reason).

    MQSTAT_TYPE_ASYNC_ERROR answers locally: this transport performs every put synchronously (an
    MQPMO_ASYNC_RESPONSE put fails or succeeds at once), so there are never asynchronous failures to
    report and the counts are zero.  Reconnection status types are not supported."""
    if _lookup(hconn) is None:
        return sts, FAILED, C.MQRC_HCONN_ERROR
    if status_type != MQSTAT_TYPE_ASYNC_ERROR:
        return sts, FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED
    try:
        sts_s = N.MQSTS.decode(sts)
    except NativeError as exc:
        return sts, FAILED, exc.reason
    out = replace(sts_s, CompCode=OK, Reason=C.MQRC_NONE, PutSuccessCount=0, PutWarningCount=0,
                  PutFailureCount=0)
    return _encode_out(N.MQSTS, out, sts), OK, C.MQRC_NONE


# --------------------------------------------------------------------------------------------------
# Not supported: asynchronous consume, message handles and properties
# --------------------------------------------------------------------------------------------------

def MQCB(hconn, operation, cbd, hobj, md, gmo):
    """MQCB → (CompCode, Reason): asynchronous consume is not supported."""
    return _UNSUPPORTED


def MQCTL(hconn, operation, ctlo):
    """MQCTL → (CompCode, Reason): asynchronous consume is not supported."""
    return _UNSUPPORTED


def MQCBINIT(function):
    """Remember ibmmq's callback dispatcher (called at ``import ibmmq``).  Never invoked."""
    global _callback
    _callback = function


def MQCRTMH(hconn, cmho):
    """MQCRTMH → (hmsg, CompCode, Reason): message handles are not supported."""
    return 0, *_UNSUPPORTED


def MQDLTMH(hconn, hmsg, dmho):
    """MQDLTMH → (CompCode, Reason)."""
    return _UNSUPPORTED


def MQSETMP(hconn, hmsg, smpo, name, pd, property_type, value, value_length):
    """MQSETMP → (CompCode, Reason)."""
    return _UNSUPPORTED


def MQINQMP(hconn, hmsg, impo, name, pd, property_type, max_value_length):
    """MQINQMP → (value, DataLength, returned name, CompCode, Reason)."""
    return None, 0, b"", *_UNSUPPORTED


def MQDLTMP(hconn, hmsg, dmpo, name):
    """MQDLTMP → (CompCode, Reason)."""
    return _UNSUPPORTED


def MQLOGCF(level, filename=None):
    """Native-layer logging configuration: there is no native layer; Python logging covers it."""
    log.debug("MQLOGCF(%r, %r) ignored", level, filename)
