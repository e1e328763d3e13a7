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
import struct
import sys
import threading
from dataclasses import dataclass, field, replace

from qmlite.client.locks import held as _held
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.errors import CodecError

from . import consume as _consume
from . import extrules as _extrules
from . import msghandles as _msghandles
from . import native as N
from . import resolve as _resolve
from . import structs as ST
from .native import NativeError

log = logging.getLogger("qmlite.ibmmqc")

OK, WARNING, FAILED = C.MQCC_OK, C.MQCC_WARNING, C.MQCC_FAILED
_UNUSABLE_HOBJ = -1
_UNUSABLE_HCONN = -1  # MQHC_UNUSABLE_HCONN: what a failed MQCONN/MQCONNX returns
MQSTAT_TYPE_ASYNC_ERROR = 0  # cmqc.h; absent from the generated constants
MQSTAT_TYPE_RECONNECTION = 1
MQSTAT_TYPE_RECONNECTION_ERROR = 2
_UNSUPPORTED = (FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)


@dataclass(slots=True)
class _Object:
    name: str
    type: int


@dataclass(slots=True)
class _Connection:
    qm: object  # qmlite.client.sync.QueueManager (it serialises the connection's calls itself)
    objects: dict = field(default_factory=dict)  # hobj -> _Object, for MQSTAT's error fields
    # How the connection was made, for automatic reconnect: the plan (the channels to try again, in
    # order), the channel that connected, and the reconnect settings (client/reconnect.py Settings).
    plan: object = None
    channel: object = None
    reconnect: object = None


_connections: dict[int, _Connection] = {}
# Re-entrant, and taken with locks.held where a finalizer (MQDISC) takes it: the garbage collector may
# run ibmmq's __del__ on a thread inside MQCONNX's block, and at interpreter exit a stopped thread may
# hold it (docs/decisions.md FN1).
_table_lock = threading.RLock()
_hconns = itertools.count(0x1001)  # any non-zero value; ibmmq tests the handle for truth
_modules: tuple = ()


def _client():
    """qmlite's sync client and its error types, imported on first use (so ``import ibmmq`` never
    depends on them) and kept (ibmmq's ``__del__`` may call MQDISC while the interpreter shuts down,
    when imports no longer work)."""
    global _modules
    if not _modules:
        from qmlite.client import errors, sync, verbs  # noqa: PLC0415
        _modules = (sync, errors, verbs)
    return _modules[:2]


def _get_wait_s(options: int, wait_interval: int) -> float:
    """How long the server may hold an MQGET's reply: the verbs' one rule (the client is loaded by then)."""
    return _modules[2].get_wait_s(options, wait_interval)


# --------------------------------------------------------------------------------------------------
# Connection
# --------------------------------------------------------------------------------------------------

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
    """MQCONN: a client connection configured by MQSERVER (there is no local queue manager).  A name
    that is neither bytes nor str is no name (ibmmqc.c's PyBytesOrText_AsString gives NULL)."""
    return connx(name if isinstance(name, (bytes, bytearray, str)) else None, None, None, None, None, None)


def MQCONNX(name, cno=None, cd=None, csp=None, sco=None, bno=None):
    """MQCONNX as ``ibmmq`` calls it: the structures adjusted as ibmmqc.c adjusts them (versions raised
    for the fields set, the MQBNO pointed at: ``extrules.ibmmq_connx``), then ``connx``."""
    if not isinstance(name, bytes):  # ibmmqc.c parses the name with "y"
        raise TypeError(f"MQCONNX() argument 1 must be bytes, not {type(name).__name__}")
    s = _extrules.ibmmq_connx(cno, cd, csp, sco, bno)
    return connx(name, s.cno, s.cd, s.csp, s.sco, s.bno)


def connx(name, cno=None, cd=None, csp=None, sco=None, bno=None):
    """The MQI's MQCONNX → (hconn, CompCode, Reason), with the structures as the MQI receives them (an
    MQCD, MQCSP, MQSCO or MQBNO given here is the one the MQCNO points at).  The channel comes from the
    first place IBM's client looks (an MQCD, the MQCNO's CCDT URL, MQSERVER, the client configuration
    file, MQCCDTURL, MQCHLLIB/MQCHLTAB ...: ``resolve.py``); a CCDT's candidates are tried in IBM's
    order, each channel's connection list in order, until one connects.  A failure's hconn is
    MQHC_UNUSABLE_HCONN (-1), as ibmmqc.c initialises it."""
    try:
        cno_s = N.MQCNO.decode(cno) if cno else None
        if cd:
            cd_s = N.MQCD.decode(cd)
        elif cno_s is not None and cno_s.ClientConnPtr:
            cd_s = _read_cd_at(cno_s.ClientConnPtr)
        else:
            cd_s = None
        csp_s = N.MQCSP.decode(csp) if csp else None
        sco_s = N.MQSCO.decode(sco) if sco else None
        if bno is None and cno_s is not None and cno_s.Version >= 8 and cno_s.BalanceParmsPtr:
            bno = _extrules.read_bno_at(cno_s.BalanceParmsPtr)
        balance = _extrules.balance(bno)
    except (NativeError, _extrules.BnoError) as exc:
        log.debug("MQCONNX: %s", exc)
        return _UNUSABLE_HCONN, FAILED, exc.reason
    qmgr = _text(name)
    try:
        plan = _resolve.plan(qmgr, cno_s, cd_s)
    except _resolve.PlanError as exc:
        log.debug("MQCONNX %r: %s", qmgr, exc.detail)
        return _UNUSABLE_HCONN, FAILED, exc.reason
    user, password = _credentials(csp_s, cd_s)
    sync, errors = _client()
    from qmlite.client import reconnect  # noqa: PLC0415 - loaded with the client, on first use
    cno_options = cno_s.Options if cno_s is not None else 0  # reconnect options; ACCTCONO's reach the server
    client_settings = _clientconf().reconnect_client_settings(plan.config)
    try:  # more than one MQCNO_RECONNECT option: refused before anything connects
        reconnect.resolve(cno_options, client=client_settings)
    except reconnect.OptionsError:
        return _UNUSABLE_HCONN, FAILED, C.MQRC_OPTIONS_ERROR
    appl_name = _appl_name(cno_s)
    made: dict = {}  # the channel that connected, for the connection's record

    def connect():
        """The plan's channels in IBM's order, each one's connection list in order, as IBM's client tries
        them: at MQCONNX and at each automatic reconnection."""
        reason = C.MQRC_HOST_NOT_AVAILABLE
        for channel in plan.channels:
            tls = None
            if channel.cipher_spec:
                try:
                    tls = _tls(channel, sco_s, plan.config)
                except Exception as exc:  # TLSSetupError: the reason IBM's client gives for its TLS set-up
                    tls_reason = getattr(exc, "reason", None)
                    if tls_reason is None:
                        raise
                    log.warning("MQCONNX: TLS set-up for channel %s failed, reason %d: %s", channel.name,
                                tls_reason, exc)
                    raise errors.MQIError(FAILED, tls_reason, str(exc)) from exc
            if channel.exits:
                log.warning("MQCONNX: channel %s names exits %s, which qmlite's client does not run",
                            channel.name, ", ".join(channel.exits))
            for host, port in channel.connections:
                try:
                    qm = sync.QueueManager.connect(
                        host, port, channel.name, plan.send_name, user=user, password=password,
                        appl_name=appl_name, sharing_conversations=channel.sharing_conversations,
                        heartbeat_interval=channel.heartbeat_interval, max_message_length=channel.max_message_length,
                        tls=tls, cno_options=cno_options, balance=balance)
                except errors.MQIError as exc:
                    if exc.reason in _TRY_NEXT:
                        log.debug("MQCONNX %s(%d) channel %s: reason %d", host, port, channel.name, exc.reason)
                        reason = exc.reason
                        continue  # the next address, then the next channel, as IBM's client does
                    raise
                except OSError as exc:
                    log.debug("MQCONNX %s(%d): %s", host, port, exc)
                    continue
                made["channel"] = channel
                return qm
            plan.demote(channel)
        raise errors.MQIError(FAILED, reason, "no channel of the connection plan answered")

    try:
        qm = connect()
    except errors.MQIError as exc:
        return _UNUSABLE_HCONN, exc.comp, exc.reason
    channel = made["channel"]
    settings = reconnect.resolve(cno_options, channel.default_reconnect, client=client_settings)
    hconn = next(_hconns)
    if settings.reconnects:
        qm = reconnect.ReconnectingQueueManager(
            qm, connect, settings, on_event=lambda cc, rc, h=hconn: _consume.notify_event(h, cc, rc))
    with _table_lock:
        _connections[hconn] = _Connection(qm, plan=plan, channel=channel, reconnect=settings)
    return hconn, OK, C.MQRC_NONE


# Why one address or channel failing sends the connect on to the next (a queue manager that is not
# there), rather than ending it (a refusal by the queue manager that answered).
_TRY_NEXT = frozenset({C.MQRC_HOST_NOT_AVAILABLE, C.MQRC_CONNECTION_BROKEN, C.MQRC_Q_MGR_NOT_AVAILABLE})


def _clientconf():
    from qmlite.client import clientconf  # noqa: PLC0415

    return clientconf


def _tls(channel, sco: N.SCO | None, config):
    """The client's TLS set-up for a channel (its CipherSpec, certificate label and peer name, from an
    MQCD or a CCDT's transmissionSecurity), the MQSCO (KeyRepository, KeyRepoPassword,
    CertificateLabel; FipsRequired accepted), the environment (MQSSLKEYR, MQKEYRPWD, MQCERTLABL) and
    the client configuration file's SSL stanza (SSLKeyRepository, SSLKeyRepositoryPassword,
    CertificateLabel, OutboundSNI), each overriding the next as on IBM's client (docs/tls.md,
    docs/ccdt.md)."""
    from qmlite.client import tls  # noqa: PLC0415

    ssl = config.ssl
    key_repository = ((sco.KeyRepository.strip() if sco is not None else "") or os.environ.get("MQSSLKEYR", "")
                      or ssl.key_repository or "")
    password = None
    if sco is not None and sco.Version >= 6 and sco.KeyRepoPasswordPtr and sco.KeyRepoPasswordLength:
        password = _pointer_text(sco.KeyRepoPasswordPtr, sco.KeyRepoPasswordLength)
    if password is None:
        password = os.environ.get("MQKEYRPWD") or ssl.key_repository_password or None
    label = (channel.certificate_label or (sco.CertificateLabel.strip() if sco is not None and sco.Version >= 5
                                           else "") or os.environ.get("MQCERTLABL", "") or ssl.certificate_label or "")
    return tls.client_tls(channel=channel.name, cipher_spec=channel.cipher_spec, key_repository=key_repository,
                          password=password, cert_label=label or None, peer_name=channel.peer_name,
                          outbound_sni=ssl.outbound_sni or "CHANNEL")


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


def _on_event_loop() -> bool:
    """True on a thread that runs a trio event loop, such as the pytest plugin's in-process queue
    manager: a finalizer (ibmmq's ``__del__``) that the garbage collector happens to run there would
    wait, on a blocking socket, for the very loop it is blocking to answer."""
    trio = sys.modules.get("trio")  # never imported: no loop can be running
    if trio is None:
        return False
    try:
        trio.lowlevel.current_trio_token()
    except RuntimeError:
        return False
    return True


_deferred: list[threading.Thread] = []  # calls handed off the event loop's thread (joinable by tests)


def _off_the_loop(name: str, fn) -> None:
    """Run ``fn`` on a thread of its own: an MQDISC or MQCLOSE asked for on an event loop's thread."""
    thread = threading.Thread(target=fn, name=f"ibmmqc-{name}", daemon=True)
    _deferred[:] = [t for t in _deferred if t.is_alive()] + [thread]
    thread.start()


def MQDISC(hconn):
    """MQDISC → (CompCode, Reason).  Asked for on an event loop's thread (a finalizer run there by the
    garbage collector), the disconnect goes on a thread of its own and MQDISC answers at once."""
    with _held(_table_lock):
        conn = _connections.pop(hconn, None)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    _msghandles.drop_connection(hconn)
    _consume.drop_connection(hconn)
    if _on_event_loop():
        _off_the_loop("MQDISC", lambda: _call(conn, lambda qm: qm.disc()))
        return OK, C.MQRC_NONE
    try:
        return _call(conn, lambda qm: qm.disc())[1:3]
    except Exception as exc:  # noqa: BLE001 - e.g. at interpreter exit, when imports no longer work
        if not sys.is_finalizing():  # (logging's locks may be held by a thread stopped at exit)
            log.debug("MQDISC: %r", exc)
        return FAILED, C.MQRC_CONNECTION_BROKEN


def _lookup(hconn) -> _Connection | None:
    return _connections.get(hconn)


def _call(conn: _Connection, fn):
    """Run ``fn(qm)`` → (result, CompCode, Reason, MQIError or None)."""
    _sync, errors = _client()
    try:
        return fn(conn.qm), OK, C.MQRC_NONE, None
    except errors.MQIError as exc:
        return None, exc.comp, exc.reason, exc
    except OSError as exc:  # the socket went away under the client
        log.debug("connection broken: %s", exc)
        return None, FAILED, C.MQRC_CONNECTION_BROKEN, None
    except CodecError as exc:  # a structure the client cannot send (an MQOD Version 0, ...): its reason
        return None, FAILED, exc.reason, None
    except Exception:
        # ibmmq's finalizers close objects while the interpreter shuts down, when module globals
        # are already gone: the connection is going anyway
        if sys.is_finalizing():
            return None, FAILED, C.MQRC_CONNECTION_BROKEN, None
        raise


# --------------------------------------------------------------------------------------------------
# Objects
# --------------------------------------------------------------------------------------------------

def MQOPEN(hconn, od, options):
    """MQOPEN → (hobj, od, CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return _UNUSABLE_HOBJ, od, FAILED, C.MQRC_HCONN_ERROR
    try:
        od_fields = N.MQOD.decode_fields(od)  # kept: the reply's MQOD is written over these
        od_s = N.MQOD.model_of(od_fields)
    except NativeError as exc:
        return _UNUSABLE_HOBJ, od, FAILED, exc.reason
    res, cc, rc, _exc = _call(conn, lambda qm: qm.open(od_s, options))
    if res is None:
        return _UNUSABLE_HOBJ, od, cc, rc
    hobj, od_out = res
    conn.objects[hobj] = _Object(od_out.ObjectName or od_s.ObjectName, od_s.ObjectType)
    return hobj, _encode_out(N.MQOD, od_out, od, od_fields), cc, rc


def MQCLOSE(hconn, hobj, options):
    """MQCLOSE → (CompCode, Reason).  From a finalizer (ibmmq's ``__del__``) on a busy connection the
    close is deferred to the end of the current call (see ``qmlite.client.sync``)."""
    conn = _lookup(hconn)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    if not isinstance(hobj, int):
        return FAILED, C.MQRC_HOBJ_ERROR  # (the sync client's close() without a handle would MQDISC)
    _consume.forget(hconn, hobj)
    if _on_event_loop():  # a finalizer on an event loop's thread: as MQDISC
        conn.objects.pop(hobj, None)
        _off_the_loop("MQCLOSE", lambda: _call(conn, lambda qm: qm.close(hobj, options)))
        return OK, C.MQRC_NONE
    result = _call(conn, lambda qm: qm.close(hobj, options))[1:3]
    conn.objects.pop(hobj, None)
    return result


def _encode_out(layout: N.Layout, obj, base: bytes, old: dict | None = None) -> bytes:
    """Output structure: the caller's bytes with changed fields rewritten (blank-padded, as MQ does);
    ``old``: the caller's structure as decoded already."""
    return layout.encode(obj, base, pad=b" ", old=old)


def _msg(msg) -> bytes:
    if msg is None:
        return b""
    if isinstance(msg, str):
        raise TypeError("message data must be bytes")
    return bytes(msg)


# --------------------------------------------------------------------------------------------------
# MQPUT / MQPUT1 / MQGET: whole structures at once.  On a little-endian machine the native MQMD and
# MQGMO are byte for byte the wire's (no pointers; qmlite's client speaks little-endian), and the
# MQPMO differs only in its two pointers (8 bytes native, 4 on the wire): the requests are built by
# slicing the caller's bytes, and the replies' structures are handed back the same way.
# --------------------------------------------------------------------------------------------------

_LE = sys.byteorder == "little"
_I32 = struct.Struct("<i")
_MD_SIZES, _GMO_SIZES = ST.MD_SIZES, ST.GMO_SIZES
_PMO_WIRE_SIZES, _PMO_NATIVE_SIZES = ST.PMO_WIRE_SIZES, ST.PMO_NATIVE_SIZES
_ZERO8 = bytes(8)
_ZERO16 = bytes(16)
_MD_FORMAT = slice(32, 40)
_PMO_HANDLES = struct.Struct("=qq")  # OriginalMsgHandle, NewMsgHandle at native offset 160
_GMO_HANDLE = struct.Struct("=q")  # MsgHandle at 104 (GMO v4)
_PROPERTY_OPTIONS = (C.MQGMO_PROPERTIES_AS_Q_DEF | C.MQGMO_PROPERTIES_IN_HANDLE | C.MQGMO_NO_PROPERTIES
                     | C.MQGMO_PROPERTIES_FORCE_MQRFH2 | C.MQGMO_PROPERTIES_COMPATIBILITY)


_Bad, _version, _wire_version = ST.Bad, ST.version, ST.wire_version


def _pmo_wire(pmo, version: int) -> bytes:
    """Native MQPMO → wire: the two 8-byte pointers become two 4-byte zeros; message handles are
    carried as an MQRFH2 instead, so they travel as zeros."""
    if version == 1:
        return bytes(pmo[:128])
    if version == 2:
        return bytes(pmo[:144]) + _ZERO8
    return bytes(pmo[:144]) + _ZERO8 + _ZERO16 + bytes(pmo[176:184])


def _pmo_native(wire, base) -> bytes:
    """A reply's wire MQPMO → the caller's native MQPMO (the caller's pointers and handles kept)."""
    n = min(len(wire), 144)  # a v1 reply (128 bytes) inside a longer caller's buffer keeps its length
    return bytes(wire[:n]) + bytes(base[n:]) if len(base) > n else bytes(wire[:len(base)])


def _put_request(conn: _Connection, md, pmo, msg, od_wire: bytes = b"") -> tuple[bytes, int, int, int, bytes]:
    """(request body, MD length on the wire, PMO version, PMO options, the MQMD sent)."""
    mdv = _version(md, b"MD  ", C.MQRC_MD_ERROR, _MD_SIZES)
    pmov = _version(pmo, b"PMO ", C.MQRC_PMO_ERROR, _PMO_WIRE_SIZES, _PMO_NATIVE_SIZES)
    md_len = _MD_SIZES[mdv]
    md_w = bytes(md[:md_len])
    data = _msg(msg)
    options = int.from_bytes(pmo[8:12], sys.byteorder, signed=True)
    if pmov >= 3:
        original, new = _PMO_HANDLES.unpack_from(pmo, 160)
        hmsg = original or new
        if hmsg:
            # IBM (MQPMO Action, MQACTP_NEW): a MsgDesc supplied without MQPMO_MD_FOR_OUTPUT_ONLY "is
            # used as the message descriptor unmodified"; an output-only one is composed from the
            # handle's Root.MQMD.* (MQMD's defaults where the handle has none)
            fields = _msghandles.descriptor_of(hmsg) if options & C.MQPMO_MD_FOR_OUTPUT_ONLY else None
            if fields:
                md_obj = N.MQMD.decode(md_w)
                for name, value in fields.items():
                    if hasattr(md_obj, name):
                        setattr(md_obj, name, value.decode("latin-1") if isinstance(value, bytes)
                                and isinstance(getattr(md_obj, name), str) else value)
                try:
                    md_w = N.MQMD.encode(md_obj, md_w, pad=b" ")
                except (NativeError, ValueError, TypeError, struct.error):
                    raise _Bad(C.MQRC_MD_ERROR) from None
            # then the handle's properties go in front of the body the descriptor describes
            fmt = md_w[_MD_FORMAT].decode("latin-1").rstrip(" \0")
            encoding = int.from_bytes(md_w[24:28], sys.byteorder, signed=True)
            ccsid = int.from_bytes(md_w[28:32], sys.byteorder, signed=True)
            try:
                data, new_fmt = _msghandles.encode_for_put(hmsg, fmt, encoding, ccsid, data)
            except ValueError:  # a property value MQRFH2 cannot carry
                raise _Bad(C.MQRC_PROPERTY_VALUE_TOO_BIG) from None
            md_w = md_w[:32] + new_fmt.encode("latin-1").ljust(8)[:8] + md_w[40:]
    body = b"".join((od_wire, md_w, _pmo_wire(pmo, pmov), _I32.pack(len(data)), data))
    return body, md_len, pmov, options, md_w


def _put_reply(reply, md, pmo, md_len: int, od_len: int = 0):
    """The caller's MQMD and MQPMO updated from an MQPUT/MQPUT1 reply (MsgId, PutDate, ...)."""
    body = reply.segment.body
    pos = reply.body_offset + od_len
    r_md_len = _MD_SIZES.get(_wire_version(body, pos), 0)
    wire_md = body[pos:pos + r_md_len]
    if not r_md_len or len(wire_md) < r_md_len or wire_md[:4] != b"MD  ":
        return md, pmo
    pos += r_md_len
    r_pmo_len = _PMO_WIRE_SIZES.get(_wire_version(body, pos), 0)
    wire_pmo = body[pos:pos + r_pmo_len]
    wire_md = (wire_md + bytes(md[len(wire_md):md_len]))[:md_len]
    md_out = wire_md[:32] + bytes(md[32:40]) + wire_md[40:] + bytes(md[md_len:])  # the caller's Format
    pmo_out = _pmo_native(wire_pmo, pmo) if r_pmo_len and len(wire_pmo) == r_pmo_len else pmo
    return md_out, pmo_out


def MQPUT(hconn, hobj, md, pmo, msg):
    """MQPUT → (md, pmo, CompCode, Reason).  With MQPMO_ASYNC_RESPONSE the request is sent and not
    waited for (MQSTAT counts the outcomes); the MsgId is made here when the queue manager would."""
    conn = _lookup(hconn)
    if conn is None:
        return md, pmo, FAILED, C.MQRC_HCONN_ERROR
    if not _LE:
        return _put_slow(conn, hobj, md, pmo, msg)
    try:
        options = int.from_bytes(pmo[8:12], sys.byteorder, signed=True) if len(pmo) >= 12 else 0
        if options & C.MQPMO_ASYNC_RESPONSE and not options & C.MQPMO_SYNC_RESPONSE:
            md = _async_ids(conn, md, options)
        body, md_len, _pmov, options, _md_w = _put_request(conn, md, pmo, msg)
    except _Bad as bad:
        return md, pmo, FAILED, bad.reason
    _sync, errors = _client()
    try:
        if options & C.MQPMO_ASYNC_RESPONSE and not options & C.MQPMO_SYNC_RESPONSE:
            conn.qm.put_nowait(hobj, body)
            return md, pmo, OK, C.MQRC_NONE
        reply = conn.qm.call(fap.MQPUT, hobj, body)
    except errors.MQIError as exc:
        return md, pmo, exc.comp, exc.reason
    except OSError:
        return md, pmo, FAILED, C.MQRC_CONNECTION_BROKEN
    api = reply.api
    md_out, pmo_out = _put_reply(reply, md, pmo, md_len)
    return md_out, pmo_out, api.CompCode, api.Reason


def _async_ids(conn: _Connection, md, options: int):
    """An asynchronous put's MsgId (and CorrelId) are known before the reply: the client makes them
    when the queue manager would (MQPMO_NEW_MSG_ID, or MsgId MQMI_NONE), as IBM's client does."""
    md = bytearray(md)
    if options & C.MQPMO_NEW_MSG_ID or md[48:72] == bytes(24):
        md[48:72] = _new_id(conn)
    if options & C.MQPMO_NEW_CORREL_ID:
        md[72:96] = _new_id(conn)
    return bytes(md)


_id_counter = itertools.count(1)


def _new_id(conn: _Connection) -> bytes:
    # "AMQ " + the queue manager's name blank-padded to 12 + 8 bytes unique to this connection and
    # message, the shape of a queue manager's MsgId (docs/reference/fap.md 15.4)
    qmgr = (conn.qm.agreement.qmgr_name or "").encode("latin-1", "replace")[:12].ljust(12)
    return b"AMQ " + qmgr + conn.qm.connection_id[16:20] + next(_id_counter).to_bytes(4, "big")


def MQPUT1(hconn, od, md, pmo, msg):
    """MQPUT1 → (md, pmo, CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return md, pmo, FAILED, C.MQRC_HCONN_ERROR
    try:
        od_s = N.MQOD.decode(od)
    except NativeError as exc:
        return md, pmo, FAILED, exc.reason
    if not _LE:
        return _put1_slow(conn, od_s, md, pmo, msg)
    from qmlite.pcf.encoding import LITTLE  # noqa: PLC0415
    try:
        od_wire = od_s.pack(LITTLE, conn.qm.codec)
        body, md_len, _pmov, _options, _md_w = _put_request(conn, md, pmo, msg, od_wire)
    except _Bad as bad:
        return md, pmo, FAILED, bad.reason
    except ValueError:
        return md, pmo, FAILED, C.MQRC_OD_ERROR
    _sync, errors = _client()
    try:
        reply = conn.qm.call(fap.MQPUT1, -1, body)
    except errors.MQIError as exc:
        return md, pmo, exc.comp, exc.reason
    except OSError:
        return md, pmo, FAILED, C.MQRC_CONNECTION_BROKEN
    api = reply.api
    if api.CompCode == C.MQCC_FAILED:
        return md, pmo, api.CompCode, api.Reason
    from qmlite.pcf.mqi import MQOD  # noqa: PLC0415
    try:
        _od, od_end = MQOD.unpack(reply.segment.body, reply.body_offset, reply.segment.order, conn.qm.codec)
    except Exception:  # noqa: BLE001 - a reply without the OD: nothing to copy back
        return md, pmo, api.CompCode, api.Reason
    md_out, pmo_out = _put_reply(reply, md, pmo, md_len, od_end - reply.body_offset)
    return md_out, pmo_out, api.CompCode, api.Reason


def MQGET(hconn, hobj, md, gmo, length):
    """MQGET → (data, md, gmo, DataLength, CompCode, Reason).

    On 2080 TRUNCATED_MSG_FAILED / 2079 TRUNCATED_MSG_ACCEPTED the returned MQMD and MQGMO are
    filled in and DataLength is the message's full length (ibmmq retries a 2080 with it).  A GMO v4
    MsgHandle receives the message's properties (asked of the queue manager as an MQRFH2)."""
    conn = _lookup(hconn)
    if conn is None:
        return b"", md, gmo, 0, FAILED, C.MQRC_HCONN_ERROR
    length = int(length or 0)
    if length < 0:
        return b"", md, gmo, 0, FAILED, C.MQRC_BUFFER_LENGTH_ERROR
    if not _LE:
        return _get_slow(conn, hobj, md, gmo, length)
    try:
        mdv = _version(md, b"MD  ", C.MQRC_MD_ERROR, _MD_SIZES)
        gmov = _version(gmo, b"GMO ", C.MQRC_GMO_ERROR, _GMO_SIZES)
    except _Bad as bad:
        return b"", md, gmo, 0, FAILED, bad.reason
    md_len = _MD_SIZES[mdv]
    gmo_len = _GMO_SIZES[gmov]
    options = int.from_bytes(gmo[8:12], sys.byteorder, signed=True)
    hmsg = _GMO_HANDLE.unpack_from(gmo, 104)[0] if gmov >= 4 else 0
    gmo_w = bytes(gmo[:gmo_len])
    into_handle = False
    if hmsg and not options & (C.MQGMO_PROPERTIES_FORCE_MQRFH2 | C.MQGMO_PROPERTIES_COMPATIBILITY
                               | C.MQGMO_NO_PROPERTIES):
        # the properties come back as an MQRFH2 that this transport peels into the handle
        into_handle = True
        wire_options = (options & ~_PROPERTY_OPTIONS) | C.MQGMO_PROPERTIES_FORCE_MQRFH2
        gmo_w = gmo_w[:8] + _I32.pack(wire_options) + gmo_w[12:104] + _ZERO8
    elif gmov >= 4:
        gmo_w = gmo_w[:104] + _ZERO8
    wait_interval = int.from_bytes(gmo[12:16], sys.byteorder, signed=True)
    body = b"".join((bytes(md[:md_len]), gmo_w, _I32.pack(length)))
    _sync, errors = _client()
    try:
        reply = conn.qm.call(fap.MQGET, hobj, body, extra=length, wait_s=_get_wait_s(options, wait_interval))
    except errors.MQIError as exc:
        return b"", md, gmo, 0, exc.comp, exc.reason
    except OSError:
        return b"", md, gmo, 0, FAILED, C.MQRC_CONNECTION_BROKEN
    api = reply.api
    seg_body = reply.segment.body
    pos = reply.body_offset
    # the queue manager answers with the structure versions it chooses: read their lengths from them
    r_md_len = _MD_SIZES.get(_wire_version(seg_body, pos), 0)
    wire_md = seg_body[pos:pos + r_md_len]
    if not r_md_len or len(wire_md) < r_md_len or wire_md[:4] != b"MD  ":
        return b"", md, gmo, 0, api.CompCode, api.Reason  # the API header alone (2033, ...)
    pos += r_md_len
    r_gmo_len = _GMO_SIZES.get(_wire_version(seg_body, pos), 0)
    wire_gmo = seg_body[pos:pos + r_gmo_len]
    pos += r_gmo_len
    if not r_gmo_len or wire_gmo[:4] != b"GMO " or len(seg_body) < pos + 4:
        return b"", md, gmo, 0, FAILED, C.MQRC_UNEXPECTED_ERROR
    wire_md = wire_md[:md_len].ljust(md_len, b"\0") if r_md_len != md_len else wire_md
    wire_gmo = (wire_gmo + bytes(gmo[len(wire_gmo):gmo_len]))[:gmo_len]
    data_length = _I32.unpack_from(seg_body, pos)[0]
    data = seg_body[pos + 4:]
    if data_length < 0:
        return b"", md, gmo, 0, FAILED, C.MQRC_UNEXPECTED_ERROR
    md_out = wire_md + bytes(md[md_len:])
    # the caller's Options and MsgHandle stand; the queue manager's output fields are taken
    gmo_out = bytes(gmo[:12]) + wire_gmo[12:104] + bytes(gmo[104:]) if gmov >= 4 else \
        bytes(gmo[:12]) + wire_gmo[12:] + bytes(gmo[gmo_len:])
    if into_handle and api.CompCode != C.MQCC_FAILED and api.Reason != C.MQRC_TRUNCATED_MSG_FAILED:
        fmt = wire_md[_MD_FORMAT].decode("latin-1").rstrip(" \0")
        encoding = int.from_bytes(wire_md[24:28], "little", signed=True)
        ccsid = int.from_bytes(wire_md[28:32], "little", signed=True)
        data, fmt, encoding, ccsid = _msghandles.decode_from_get(hmsg, bytes(data), fmt, encoding, ccsid)
        data_length = len(data)
        md_out = bytearray(md_out)
        md_out[24:28] = encoding.to_bytes(4, "little", signed=True)
        md_out[28:32] = ccsid.to_bytes(4, "little", signed=True)
        md_out[32:40] = fmt.encode("latin-1").ljust(8)[:8]
        md_out = bytes(md_out)
        try:  # Root.MQMD.* on the handle now describe the message got (IBM, MQGMO MsgHandle)
            _msghandles.md_from_get(hmsg, N.MQMD.decode(md_out))
        except NativeError as exc:  # not expected: the MQMD is the queue manager's
            log.debug("MQGET: the handle's MQMD not updated: %s", exc)
    return bytes(data), md_out, gmo_out, data_length, api.CompCode, api.Reason


# -- the same three verbs through qmlite's dataclasses, for big-endian machines ------------------

def _put_slow(conn, hobj, md, pmo, msg):
    try:
        md_s, pmo_s = N.MQMD.decode(md), N.MQPMO.decode(pmo)
    except NativeError as exc:
        return md, pmo, FAILED, exc.reason
    data = _msg(msg)
    res, cc, rc, _exc = _call(conn, lambda qm: qm.put(hobj, md_s, pmo_s, data))
    if res is None:
        return md, pmo, cc, rc
    md_out, pmo_out = res
    return _encode_out(N.MQMD, md_out, md), _encode_out(N.MQPMO, pmo_out, pmo), cc, rc


def _put1_slow(conn, od_s, md, pmo, msg):
    try:
        md_s, pmo_s = N.MQMD.decode(md), N.MQPMO.decode(pmo)
    except NativeError as exc:
        return md, pmo, FAILED, exc.reason
    data = _msg(msg)
    res, cc, rc, _exc = _call(conn, lambda qm: qm.put1(od_s, md_s, pmo_s, data))
    if res is None:
        return md, pmo, cc, rc
    md_out, pmo_out = res
    return _encode_out(N.MQMD, md_out, md), _encode_out(N.MQPMO, pmo_out, pmo), cc, rc


def _get_slow(conn, hobj, md, gmo, length):
    try:
        md_s, gmo_s = N.MQMD.decode(md), N.MQGMO.decode(gmo)
    except NativeError as exc:
        return b"", md, gmo, 0, FAILED, exc.reason
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


# --------------------------------------------------------------------------------------------------
# MQINQ / MQSET
# --------------------------------------------------------------------------------------------------

def MQINQ(hconn, hobj, selectors, int_attrs=None, int_count=0, char_count=0, char_length=0):
    """MQINQ → (IntAttrs list, CharAttrs bytes, CompCode, Reason).

    ``ibmmq`` passes (hconn, hobj, selectors, [], IntAttrCount, CharAttrCount, CharAttrLength); the
    count of character attributes is implied by the selectors and not needed."""
    # ibmmqc.c (MQINQ, lines 1116-1215): the values are appended to the list ibmmq passes, and only
    # when the call succeeds (CompCode MQCC_OK); the character attributes come back as a buffer of
    # exactly CharAttrLength bytes, None when that is 0
    out = int_attrs if isinstance(int_attrs, list) else []
    char_length = int(char_length or 0)
    empty = bytes(char_length) if char_length > 0 else None
    conn = _lookup(hconn)
    if conn is None:
        return out, empty, FAILED, C.MQRC_HCONN_ERROR
    sels = [int(s) for s in selectors]
    res, cc, rc, _exc = _call(conn, lambda qm: qm.inq(hobj, sels, int(int_count), char_length))
    if res is None:
        return out, empty, cc, rc
    ints, chars = res
    if isinstance(chars, str):
        chars = chars.encode(conn.qm.codec, "replace")
    if cc == OK:
        out.extend(ints)
    return out, (bytes(chars)[:char_length].ljust(char_length, b" ") if char_length > 0 else None), cc, rc


def MQSET(hconn, hobj, selectors, int_attrs, char_attrs):
    """MQSET → (CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    try:
        sels = [int(s) for s in selectors]
        ints = [int(v) for v in (int_attrs or [])]
    except (TypeError, ValueError):
        return FAILED, C.MQRC_SELECTOR_ERROR
    chars = char_attrs or b""
    if isinstance(chars, (bytes, bytearray)):
        chars = bytes(chars).decode(conn.qm.codec, "replace")
    return _call(conn, lambda qm: qm.set(hobj, sels, ints, chars))[1:3]


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
    conn.objects[hsub] = _Object(sd_s.ObjectName, C.MQOT_TOPIC)
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

    MQSTAT_TYPE_ASYNC_ERROR: every outstanding asynchronous put's reply is read, then the counts of
    puts that succeeded, warned and failed since the last MQSTAT come back, with the CompCode, Reason
    and object of the first that did not succeed; the counts start again from zero.  The
    reconnection status types are 2298: this client does not reconnect."""
    conn = _lookup(hconn)
    if conn is None:
        return sts, FAILED, C.MQRC_HCONN_ERROR
    try:
        sts_s = N.MQSTS.decode(sts)
    except NativeError as exc:
        return sts, FAILED, exc.reason
    if status_type in (MQSTAT_TYPE_RECONNECTION, MQSTAT_TYPE_RECONNECTION_ERROR):
        return _reconnection_status(conn, status_type, sts, sts_s)
    if status_type != MQSTAT_TYPE_ASYNC_ERROR:
        return sts, FAILED, C.MQRC_STAT_TYPE_ERROR
    res, cc, rc, _exc = _call(conn, lambda qm: qm.async_status())
    if res is None:
        return sts, cc, rc
    obj = conn.objects.get(res.hobj) if res.hobj is not None else None
    out = replace(sts_s, CompCode=res.comp, Reason=res.reason, PutSuccessCount=res.success,
                  PutWarningCount=res.warning, PutFailureCount=res.failure,
                  ObjectType=obj.type if obj else sts_s.ObjectType,
                  ObjectName=obj.name if obj else "", ObjectQMgrName="", ResolvedObjectName=obj.name if obj else "",
                  ResolvedQMgrName="")
    return _encode_out(N.MQSTS, out, sts), OK, C.MQRC_NONE


def _reconnection_status(conn: _Connection, status_type: int, sts, sts_s):
    """MQSTS for the reconnection types (IBM, MQSTS CompCode/Reason/ObjectName): RECONNECTION gives
    the failure that started a reconnection in progress or failed, with the queue manager's name as
    ObjectName while reconnecting; RECONNECTION_ERROR the failure that ended a reconnection, with
    the object that caused it.  A connection that is not reconnectable is simply connected."""
    status = getattr(conn.qm, "status", None)
    cc, rc, name = OK, C.MQRC_NONE, ""
    if status is not None:
        if status_type == MQSTAT_TYPE_RECONNECTION and status.state != "connected":
            cc, rc = status.cause
            name = status.qmgr_name if status.state == "reconnecting" else ""
        elif status_type == MQSTAT_TYPE_RECONNECTION_ERROR and status.state == "failed":
            (cc, rc), name = status.error, status.error_object
    out = replace(sts_s, CompCode=cc, Reason=rc, PutSuccessCount=0, PutWarningCount=0, PutFailureCount=0,
                  ObjectType=sts_s.ObjectType, ObjectName=name, ObjectQMgrName="", ResolvedObjectName="",
                  ResolvedQMgrName="")
    return _encode_out(N.MQSTS, out, sts), OK, C.MQRC_NONE


# --------------------------------------------------------------------------------------------------
# Asynchronous consume (client/ibmmqc/consume.py) and message handles (client/ibmmqc/msghandles.py)
# --------------------------------------------------------------------------------------------------

def MQCB(hconn, operation, cbd, hobj, md, gmo):
    """MQCB → (CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    return _consume.mqcb(conn.qm, hconn, operation, cbd, hobj, md, gmo)


def MQCTL(hconn, operation, ctlo):
    """MQCTL → (CompCode, Reason)."""
    conn = _lookup(hconn)
    if conn is None:
        return FAILED, C.MQRC_HCONN_ERROR
    return _consume.mqctl(conn.qm, hconn, operation, ctlo)


def MQCBINIT(function):
    """Remember ibmmq's callback dispatcher (called at ``import ibmmq``); MQCTL's dispatcher thread
    calls it with (hconn, md, gmo, buffer, cbc) for every message and event."""
    _consume.set_dispatcher(function)


def MQCRTMH(hconn, cmho):
    """MQCRTMH → (hmsg, CompCode, Reason)."""
    return _msghandles.MQCRTMH(hconn, cmho)


def MQDLTMH(hconn, hmsg, dmho):
    """MQDLTMH → (CompCode, Reason)."""
    return _msghandles.MQDLTMH(hconn, hmsg, dmho)


def MQSETMP(hconn, hmsg, smpo, name, pd, property_type, value, value_length):
    """MQSETMP → (CompCode, Reason)."""
    return _msghandles.MQSETMP(hconn, hmsg, smpo, name, pd, property_type, value, value_length)


def MQINQMP(hconn, hmsg, impo, name, pd, property_type, max_value_length):
    """MQINQMP → (value, DataLength, returned name, CompCode, Reason)."""
    return _msghandles.MQINQMP(hconn, hmsg, impo, name, pd, property_type, max_value_length)


def MQDLTMP(hconn, hmsg, dmpo, name):
    """MQDLTMP → (CompCode, Reason)."""
    return _msghandles.MQDLTMP(hconn, hmsg, dmpo, name)


def MQLOGCF(level, filename=None):
    """Native-layer logging configuration: there is no native layer; Python logging covers it."""
    log.debug("MQLOGCF(%r, %r) ignored", level, filename)


# consume.py and msghandles.py are imported at the top (at ``import ibmmq``, never on first use:
# ibmmq's finalizers call MQCLOSE/MQDISC while the interpreter shuts down, when imports no longer
# work), and neither imports this module: what they need of it is handed to them here.
_consume.set_get(MQGET)
_msghandles.set_connection_table(lambda hconn: _lookup(hconn) is not None)
