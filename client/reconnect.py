"""Automatic client reconnection (MQCNO_RECONNECT*), as IBM's MQ client does it.

Two parts, so that what is decided is apart from what is done:

* :func:`resolve` -- *whether* a connection reconnects and with which timeout and delays: the MQCNO
  options, the client channel's DefReconnect (MQCD field, CCDT ``defaultReconnect``) and the client
  configuration's DefRecon / MQReconnectTimeout / ReconDelay (``CLIENT_SETTINGS``, which the client
  configuration file reader fills), in IBM's order of precedence (docs/reconnect.md, decisions Z1-Z3).
* :class:`ReconnectingQueueManager` -- a :class:`qmlite.client.sync.QueueManager` look-alike that, when
  the connection breaks in a way that allows it, connects again through its connection list within
  the timeout, with IBM's backoff, reopens every handle the application holds (the application keeps
  its Hobj values), remakes subscriptions, and gives the call that was interrupted IBM's outcome
  (decision Z5).  The event handler is told MQRC_RECONNECTING / RECONNECTED / RECONNECT_FAILED, and
  :meth:`ReconnectingQueueManager.reconnection_status` answers MQSTAT's reconnection types.

Nothing here knows ibmmq's native structures: ``client/ibmmqc`` decodes them and hands values in.
"""

from __future__ import annotations

import logging
import random
import struct
import sys
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Iterator, Optional

from qmlite.pcf import constants as C
from qmlite.pcf import fap

from . import locks as _locks
from .errors import ConnectionBroken, MQIError

log = logging.getLogger("qmlite.reconnect")

# cmqxc.h DefReconnect values (MQCD DefReconnect, DEFRECON, mqclient.ini DefRecon)
MQRCN_NO, MQRCN_YES, MQRCN_Q_MGR, MQRCN_DISABLED = 0, 1, 2, 3
_RECONNECT_BITS = C.MQCNO_RECONNECT | C.MQCNO_RECONNECT_DISABLED | C.MQCNO_RECONNECT_Q_MGR

# IBM's defaults: MQReconnectTimeout 1800 s; the C client's delays (ms, random extra ms), the last one
# repeating -- mqclient.ini ReconDelay's form (decision Z2)
DEFAULT_TIMEOUT_S = 1800.0
DEFAULT_DELAYS_MS: tuple[tuple[int, int], ...] = (
    (1000, 250), (2000, 250), (4000, 1000), (8000, 2000), (16000, 4000), (25000, 5000))

# STATUS codes after which a reconnectable client does not reconnect: the queue manager ended without
# asking clients to reconnect (endmqm without -r, qmlite's SIGTERM) or an administrator stopped the
# channel (decision Z4)
FINAL_STATUS_CODES = frozenset({fap.QM_TERMINATING, fap.USER_CLOSED})

NONE, ANY, SAME_QMGR = "none", "any", "qmgr"

# reasons a queue manager that is ending gives: an attempt that meets one is tried again, not failed
_TRANSIENT = frozenset({C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_QUIESCING,
                        C.MQRC_CONNECTION_STOPPING, C.MQRC_Q_MGR_NOT_AVAILABLE, C.MQRC_CONNECTION_BROKEN})


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """What the client configuration file says about reconnection (its CHANNELS stanza); None where
    it says nothing.  ``def_recon`` is an MQRCN_* value."""

    def_recon: Optional[int] = None
    reconnect_timeout_s: Optional[float] = None
    recon_delay_ms: Optional[tuple[tuple[int, int], ...]] = None


# The client configuration in force for this process: the mqclient.ini reader (the CCDT/client
# configuration work) replaces it; tests and benchmarks may too.
CLIENT_SETTINGS: Callable[[], ClientSettings] = ClientSettings


@dataclass(frozen=True, slots=True)
class Settings:
    mode: str = NONE  # NONE | ANY | SAME_QMGR
    timeout_s: float = DEFAULT_TIMEOUT_S
    delays_ms: tuple[tuple[int, int], ...] = DEFAULT_DELAYS_MS

    @property
    def reconnects(self) -> bool:
        return self.mode != NONE


class OptionsError(ValueError):
    """MQCNO options that contradict each other (MQRC_OPTIONS_ERROR)."""


def resolve(cno_options: int, def_reconnect: int = MQRCN_NO,
            client: Optional[ClientSettings] = None) -> Settings:
    """The one rule for whether a connection reconnects (IBM, DefReconnect and MQCNO Options):

    * the client configuration's DefRecon, when set, replaces the channel's DefReconnect;
    * DefReconnect DISABLED: never, whatever MQCONNX asks;
    * MQCNO_RECONNECT_DISABLED: never; MQCNO_RECONNECT: to any queue manager of the connection list;
      MQCNO_RECONNECT_Q_MGR: only to the same queue manager (QMID);
    * MQCNO_RECONNECT_AS_DEF (none of the three): DefReconnect YES / QMGR / NO.

    Raises OptionsError when more than one of the three options is given."""
    client = client if client is not None else CLIENT_SETTINGS()
    bits = cno_options & _RECONNECT_BITS
    if bits & (bits - 1):
        raise OptionsError("more than one MQCNO_RECONNECT option")
    default = client.def_recon if client.def_recon is not None else def_reconnect
    timeout = client.reconnect_timeout_s if client.reconnect_timeout_s is not None else DEFAULT_TIMEOUT_S
    delays = client.recon_delay_ms or DEFAULT_DELAYS_MS
    if default == MQRCN_DISABLED or bits == C.MQCNO_RECONNECT_DISABLED:
        mode = NONE
    elif bits == C.MQCNO_RECONNECT:
        mode = ANY
    elif bits == C.MQCNO_RECONNECT_Q_MGR:
        mode = SAME_QMGR
    else:
        mode = {MQRCN_YES: ANY, MQRCN_Q_MGR: SAME_QMGR}.get(default, NONE)
    return Settings(mode, float(timeout), tuple(delays))


def delays(settings: Settings, rng: Callable[[], float] = random.random) -> Iterator[float]:
    """Seconds to wait before each attempt: each ReconDelay pair is (base ms, up to this many random
    ms more); the last pair repeats."""
    pairs = settings.delays_ms or DEFAULT_DELAYS_MS
    i = 0
    while True:
        base, extra = pairs[min(i, len(pairs) - 1)]
        yield (base + extra * rng()) / 1000.0
        i += 1


def reconnectable(exc: MQIError) -> bool:
    """Whether a broken connection may be reconnected: anything but a STATUS that said the queue
    manager is ending for good or the channel was stopped."""
    if not isinstance(exc, ConnectionBroken):
        return False
    return exc.status_code not in FINAL_STATUS_CODES


# ------------------------------------------------------------------------------------------------
# Waking sleepers: qmlite's own event (the pytest fixture's restart), so a test never waits out a
# backoff delay.  A real client waits its delay; so does one that was not kicked.
# ------------------------------------------------------------------------------------------------

_kick = threading.Condition()
_kicks = 0


def kick() -> None:
    """A queue manager in this process accepts connections again: reconnecting clients try now."""
    global _kicks
    with _kick:
        _kicks += 1
        _kick.notify_all()


def kicks() -> int:
    return _kicks


def _sleep(seconds: float, since_kicks: int, stop: Callable[[], bool]) -> None:
    deadline = time.monotonic() + seconds
    with _kick:
        while _kicks == since_kicks and not stop():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            _kick.wait(min(left, 0.5))


# ------------------------------------------------------------------------------------------------
# The reconnecting connection
# ------------------------------------------------------------------------------------------------

_MD_LEN = {1: 324, 2: 364}
_I32 = struct.Struct("<i")
MQPMO_LOGICAL_ORDER = 0x8000  # cmqc.h
MQGMO_LOGICAL_ORDER = 0x8000  # cmqc.h
MQMO_MATCH_MSG_TOKEN = 0x20  # cmqc.h


@dataclass(slots=True)
class _Handle:
    """What was asked to make a handle, to make it again on a new connection."""

    kind: str  # "open" | "sub"
    real: int
    od: object = None
    options: int = 0
    sd: object = None
    sub_hobj: int = 0  # the virtual Hobj an unmanaged subscription delivers to
    managed_hobj: int = 0  # the virtual Hobj of a managed subscription's queue (its real one is remapped)
    dynamic: str = ""  # the name a model queue's open gave its dynamic queue


@dataclass(slots=True)
class ReconnectStatus:
    """MQSTAT's reconnection answers."""

    state: str = "connected"
    cause: tuple[int, int] = (C.MQCC_OK, C.MQRC_NONE)  # what started the reconnection
    error: tuple[int, int] = (C.MQCC_OK, C.MQRC_NONE)  # what made it fail
    error_object: str = ""
    qmgr_name: str = ""
    reconnections: int = 0


@dataclass(slots=True)
class _Call:
    kind: str  # get | put | put1 | cmit | back | open | close | sub | other
    syncpoint: bool = False


class ReconnectFailed(MQIError):
    def __init__(self, detail: str = "") -> None:
        super().__init__(C.MQCC_FAILED, C.MQRC_RECONNECT_FAILED, detail)


class ReconnectingQueueManager:
    """See the module docstring.  ``connect()`` makes a new :class:`qmlite.client.sync.QueueManager`
    (trying the connection list in order); ``on_event(cc, rc)`` is told of reconnection events."""

    def __init__(self, qm, connect: Callable[[], object], settings: Settings, *,
                 on_event: Optional[Callable[[int, int], None]] = None,
                 rng: Callable[[], float] = random.random) -> None:
        self._qm = qm
        self._connect = connect
        self.settings = settings
        self.on_event = on_event
        self._rng = rng
        self._lock = threading.RLock()
        self._gen = 0
        self._handles: dict[int, _Handle] = {}  # virtual hobj/hsub -> how it was made
        self._qmid = qm.agreement.qmgr_id
        self._qmgr = qm.agreement.qmgr_name
        self._uow_work = False  # a syncpoint put/get succeeded since the last MQCMIT/MQBACK
        self._uow_lost = False  # ... and the unit of work went with a broken connection
        self._kicks_at_connect = kicks()
        self._disconnected = False
        self.status = ReconnectStatus(qmgr_name=self._qmgr)

    # -- what the ibmmqc transport reads ------------------------------------------------------

    @property
    def channel(self):
        return self._qm.channel

    @property
    def agreement(self):
        return self._qm.agreement

    @property
    def connection_id(self) -> bytes:
        return self._qm.connection_id

    @property
    def codec(self) -> str:
        return self._qm.codec

    @property
    def connected(self) -> bool:
        return not self._disconnected and self.status.state != "failed"

    @property
    def inner(self):
        """The current connection (a new one after each reconnection)."""
        return self._qm

    # -- handles ------------------------------------------------------------------------------

    def _real(self, hobj: int) -> int:
        h = self._handles.get(hobj)
        if h is None:
            return hobj
        return h.real

    def _virtual(self, real: int) -> int:
        """The application's handle for a new real one: the same number unless that is taken."""
        if real not in self._handles:
            return real
        v = max(self._handles) + 1
        while v in self._handles:
            v += 1
        return v

    # -- the retry loop -----------------------------------------------------------------------

    def _check(self) -> None:
        if self._disconnected:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR, "disconnected")
        if self.status.state == "failed":
            raise ReconnectFailed("reconnection failed earlier")

    def _do(self, call: _Call, fn):
        """Run ``fn(qm)`` on the current connection; reconnect and apply IBM's outcome for the
        interrupted call when the connection breaks."""
        while True:
            self._check()
            qm, gen = self._qm, self._gen
            qm.poll()  # what arrived while idle (IBM's client has a receive thread for it)
            if qm.channel.closed:  # broken while idle: not in flight, nothing to decide
                err = qm.channel.error
                self._broken(gen, err if isinstance(err, MQIError) else ConnectionBroken())
                continue
            if self._uow_lost:
                if call.syncpoint and call.kind in ("put", "put1", "get"):
                    raise MQIError(C.MQCC_FAILED, C.MQRC_BACKED_OUT,
                                   "the unit of work was backed out by a reconnection")
                if call.kind == "cmit":  # IBM: MQCMIT completes with MQCC_WARNING, the unit of work backed out
                    self._uow_lost = self._uow_work = False
                    raise MQIError(C.MQCC_WARNING, C.MQRC_BACKED_OUT,
                                   "the unit of work was backed out by a reconnection")
            try:
                return fn(qm)
            except ConnectionBroken as exc:
                if self._disconnected:
                    raise
                had_work = self._uow_work
                self._broken(gen, exc)
                self._interrupted(call, had_work)  # raises, or returns to run the call again

    def _interrupted(self, call: _Call, had_work: bool) -> None:
        """IBM's outcome for a call the broken connection interrupted (decision Z5)."""
        kind = call.kind
        if kind == "cmit":
            if had_work:
                self._uow_work = self._uow_lost = False
                raise MQIError(C.MQCC_FAILED, C.MQRC_CALL_INTERRUPTED, "MQCMIT interrupted: outcome unknown")
            return
        if kind == "back":
            self._uow_work = self._uow_lost = False
            raise _Done(None)
        if kind in ("put", "put1", "get") and call.syncpoint:
            if had_work:
                raise MQIError(C.MQCC_FAILED, C.MQRC_BACKED_OUT, "the unit of work was backed out by a reconnection")
            return  # the first work of a unit of work: the server backed it out, it is made again
        if kind in ("put", "put1"):
            raise MQIError(C.MQCC_FAILED, C.MQRC_CALL_INTERRUPTED, "MQPUT interrupted: outcome unknown")
        return  # a get outside syncpoint resumes; opens, closes, inquiries are made again

    def _broken(self, gen: int, exc: MQIError) -> None:
        """The connection of generation ``gen`` broke with ``exc``: reconnect (once, whichever thread
        notices first), or fail for good.  Not at interpreter exit: the process is ending (IBM's
        client does not outlive it either), and the thread holding the lock may be stopped in its
        reconnection for good (docs/decisions.md FN1)."""
        with _locks.held(self._lock):
            if gen != self._gen or self._disconnected:
                return  # another thread reconnected already
            self._check()
            if not reconnectable(exc) or sys.is_finalizing():
                self.status.state = "failed"
                self.status.error = (exc.comp, exc.reason)
                raise exc
            self._reconnect(exc)

    def _reconnect(self, cause: MQIError) -> None:
        st = self.status
        st.state, st.cause = "reconnecting", (cause.comp, cause.reason)
        st.error, st.error_object = (C.MQCC_OK, C.MQRC_NONE), ""
        if self._uow_work:
            self._uow_lost = True
        self._uow_work = False
        log.info("reconnecting: %s", cause)
        self._event(C.MQCC_WARNING, C.MQRC_RECONNECTING)
        old = self._qm
        try:
            old.abort()
        except Exception:  # noqa: BLE001 - the old socket is gone either way
            pass
        started = time.monotonic()
        deadline = started + self.settings.timeout_s
        reason, obj = C.MQRC_RECONNECT_TIMED_OUT, ""
        for delay in delays(self.settings, self._rng):
            if self._disconnected:
                break
            now = time.monotonic()
            if now >= deadline:
                break
            if kicks() == self._kicks_at_connect:  # no restart announced since we connected: wait
                _sleep(min(delay, deadline - now), self._kicks_at_connect, lambda: self._disconnected)
            self._kicks_at_connect = kicks()
            if time.monotonic() >= deadline:
                break
            try:
                qm = self._connect()
            except MQIError as exc:
                log.debug("reconnect attempt failed: %s", exc)
                continue
            if self.settings.mode == SAME_QMGR and qm.agreement.qmgr_id != self._qmid:
                qm.abort()
                reason, obj = C.MQRC_RECONNECT_QMID_MISMATCH, qm.agreement.qmgr_name
                break
            try:
                self._reinstate(qm)
            except MQIError as exc:
                qm.abort()
                if isinstance(exc, ConnectionBroken) or exc.reason in _TRANSIENT:
                    continue  # a queue manager on its way down answered: try again later
                reason, obj = exc.reason, getattr(exc, "object_name", "")
                break
            if self._disconnected:  # MQDISC came while we were reconnecting
                qm.abort()
                break
            self._qm = qm
            self._gen += 1
            self._qmid = qm.agreement.qmgr_id
            st.state, st.qmgr_name = "connected", qm.agreement.qmgr_name
            st.cause = (C.MQCC_OK, C.MQRC_NONE)
            st.reconnections += 1
            log.info("reconnected after %.3f s", time.monotonic() - started)
            self._event(C.MQCC_WARNING, C.MQRC_RECONNECTED)
            return
        st.state, st.error, st.error_object = "failed", (C.MQCC_FAILED, reason), obj
        log.warning("reconnect failed: reason %d %s", reason, obj)
        self._event(C.MQCC_FAILED, C.MQRC_RECONNECT_FAILED)
        raise ReconnectFailed(f"reason {reason}")

    def _event(self, cc: int, rc: int) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(cc, rc)
        except Exception as exc:  # noqa: BLE001 - the application's handler must not stop us
            log.warning("event handler raised %r", exc)

    def _reinstate(self, qm) -> None:
        """Every handle again, in the order it was made, on the new connection ``qm``."""
        for virtual, h in list(self._handles.items()):
            if h.kind == "open":
                try:
                    try:
                        real, _od = qm.open(h.od, h.options)
                    except MQIError as exc:
                        if exc.reason != C.MQRC_OBJECT_ALREADY_EXISTS or not h.dynamic:
                            raise
                        # a permanent dynamic queue outlived the connection: open it by its name
                        real, _od = qm.open(replace(h.od, ObjectName=h.dynamic), h.options)
                except MQIError as exc:
                    exc.object_name = h.dynamic or getattr(h.od, "ObjectName", "")  # type: ignore[attr-defined]
                    raise
                h.real = real
            elif h.kind == "sub":
                sd = h.sd
                options = sd.Options
                if options & C.MQSO_DURABLE:  # it is still there: resume it
                    options = (options & ~(C.MQSO_CREATE | C.MQSO_ALTER)) | C.MQSO_RESUME
                sub_hobj = self._handles[h.sub_hobj].real if h.sub_hobj in self._handles else 0
                try:
                    hsub, hobj, _sd = qm.sub(replace(sd, Options=options), sub_hobj)
                except MQIError as exc:
                    exc.object_name = getattr(sd, "SubName", "") or ""  # type: ignore[attr-defined]
                    raise
                h.real = hsub
                if h.managed_hobj and h.managed_hobj in self._handles:
                    self._handles[h.managed_hobj].real = hobj

    # -- verbs --------------------------------------------------------------------------------

    def call(self, segment_type: int, hobj: int, body: bytes, *, extra: int = 0, wait_s: float = 0.0):
        call = _classify(segment_type, body)
        self._incompatible(segment_type, body)
        try:
            reply = self._do(call, lambda qm: qm.call(segment_type, self._real(hobj) if hobj not in (0, -1) else hobj,
                                                      body, extra=extra, wait_s=wait_s))
        except _Done as done:
            return done.value
        if call.syncpoint and reply.api.CompCode != C.MQCC_FAILED:
            self._uow_work = True
        return reply

    def _incompatible(self, segment_type: int, body: bytes) -> None:
        """Options a reconnection cannot honour (IBM: 2547 RECONNECT_INCOMPATIBLE, 2555 Q_MGR_REQD)."""
        if segment_type not in (fap.MQPUT, fap.MQGET) or len(body) < 8:
            return
        md_len = _MD_LEN.get(_I32.unpack_from(body, 4)[0], 0)
        if not md_len or len(body) < md_len + 12:
            return
        options = _I32.unpack_from(body, md_len + 8)[0]
        if options & MQPMO_LOGICAL_ORDER:  # == MQGMO_LOGICAL_ORDER
            raise MQIError(C.MQCC_FAILED, C.MQRC_RECONNECT_INCOMPATIBLE, "logical order")
        # MQGMO v2+ MatchOptions, after ResolvedQName (offset 72 of the MQGMO)
        if segment_type == fap.MQGET and self.settings.mode == ANY and len(body) >= md_len + 76 \
                and _I32.unpack_from(body, md_len + 4)[0] >= 2:
            if _I32.unpack_from(body, md_len + 72)[0] & MQMO_MATCH_MSG_TOKEN:
                raise MQIError(C.MQCC_FAILED, C.MQRC_RECONNECT_Q_MGR_REQD, "MQMO_MATCH_MSG_TOKEN")

    def open(self, od, options: int):
        def fn(qm):
            return qm.open(od, options)
        real, od_out = self._do(_Call("open"), fn)
        with self._lock:
            virtual = self._virtual(real)
            again, dynamic = od, ""
            if od_out.ObjectName and od.ObjectName != od_out.ObjectName and getattr(od, "DynamicQName", ""):
                # a dynamic queue: made again under the same name, from the same model
                dynamic = od_out.ObjectName
                again = replace(od, DynamicQName=dynamic)
            self._handles[virtual] = _Handle("open", real, od=again, options=options, dynamic=dynamic)
        return virtual, od_out

    def close(self, hobj: Optional[int] = None, options: int = C.MQCO_NONE) -> None:
        if hobj is None:
            self.disc()
            return
        if hobj not in self._handles:
            self._do(_Call("close"), lambda qm: qm.close(hobj, options))
            return
        self._do(_Call("close"), lambda qm: qm.close(self._real(hobj), options))
        with _locks.held(self._lock):  # a finalizer's path (ibmmq's and pymqi's __del__)
            h = self._handles.pop(hobj, None)
            if h is not None and h.kind == "sub" and h.managed_hobj:
                self._handles.pop(h.managed_hobj, None)

    def sub(self, sd, hobj: int = 0):
        if sd.Options & C.MQSO_DURABLE and self.settings.mode == ANY:
            raise MQIError(C.MQCC_FAILED, C.MQRC_RECONNECT_Q_MGR_REQD, "a durable subscription")
        hsub, hobj_out, sd_out = self._do(_Call("sub"), lambda qm: qm.sub(sd, self._real(hobj) if hobj else 0))
        with self._lock:
            v_sub = self._virtual(hsub)
            self._handles[v_sub] = _Handle("sub", hsub, sd=sd, sub_hobj=hobj if not sd.Options & C.MQSO_MANAGED else 0)
            v_hobj = hobj_out
            if sd.Options & C.MQSO_MANAGED and hobj_out not in (0, -1):
                v_hobj = self._virtual(hobj_out)
                self._handles[v_hobj] = _Handle("managed", hobj_out)
                self._handles[v_sub].managed_hobj = v_hobj
            elif hobj:
                v_hobj = hobj
        return v_sub, v_hobj, sd_out

    def subrq(self, hsub: int, action: int, sro):
        return self._do(_Call("other"), lambda qm: qm.subrq(self._real(hsub), action, sro))

    def inq(self, hobj: int, selectors, int_count: int, char_length: int):
        return self._do(_Call("other"), lambda qm: qm.inq(self._real(hobj), selectors, int_count, char_length))

    def set(self, hobj: int, selectors, int_attrs, char_attrs) -> None:
        self._do(_Call("other"), lambda qm: qm.set(self._real(hobj), selectors, int_attrs, char_attrs))

    def put(self, hobj: int, md, pmo, data):
        sync = bool(pmo.Options & C.MQPMO_SYNCPOINT)
        out = self._guarded(_Call("put", sync), lambda qm: qm.put(self._real(hobj), md, pmo, data))
        return out

    def put1(self, od, md, pmo, data):
        sync = bool(pmo.Options & C.MQPMO_SYNCPOINT)
        return self._guarded(_Call("put1", sync), lambda qm: qm.put1(od, md, pmo, data))

    def get(self, hobj: int, md, gmo, buffer_length: int):
        sync = bool(gmo.Options & C.MQGMO_SYNCPOINT)
        return self._guarded(_Call("get", sync), lambda qm: qm.get(self._real(hobj), md, gmo, buffer_length))

    def _guarded(self, call: _Call, fn):
        out = self._do(call, fn)
        if call.syncpoint:
            self._uow_work = True
        return out

    def cmit(self) -> None:
        self._do(_Call("cmit"), lambda qm: qm.cmit())
        self._uow_work = False

    def back(self) -> None:
        if self._uow_lost:
            self._uow_lost = self._uow_work = False
        try:
            self._do(_Call("back"), lambda qm: qm.back())
        except _Done:
            pass
        self._uow_work = False

    def put_nowait(self, hobj: int, body: bytes) -> None:
        self._do(_Call("put"), lambda qm: qm.put_nowait(self._real(hobj), body))

    def async_status(self):
        return self._do(_Call("other"), lambda qm: qm.async_status())

    def pcf(self, command: int, parameters: list, **kw) -> list:
        return self._do(_Call("other"), lambda qm: qm.pcf(command, parameters, **kw))

    def run(self, verb):
        return self._qm.run(verb)

    def ping(self, timeout: float = 60.0) -> None:
        self._do(_Call("other"), lambda qm: qm.ping(timeout))

    def disc(self) -> None:
        if self._disconnected:
            return
        self._disconnected = True
        with _locks.held(_kick) as taken:  # a finalizer's path: not taken only at interpreter exit,
            if taken:                      # when no reconnection is left running to be told
                _kick.notify_all()  # a reconnection in progress gives up
        try:
            self._qm.disc()
        except ConnectionBroken:
            pass

    def abort(self) -> None:
        self._disconnected = True
        self._qm.abort()

    def reconnection_status(self) -> ReconnectStatus:
        return self.status


class _Done(Exception):
    """The interrupted call's outcome is success without running it again (MQBACK)."""

    def __init__(self, value) -> None:
        super().__init__()
        self.value = value


def _classify(segment_type: int, body: bytes) -> _Call:
    """Which verb a raw request is and whether it works in syncpoint (MQPUT/MQGET bodies start with
    the MQMD, then the MQPMO/MQGMO whose Options follow its StrucId and Version)."""
    if segment_type in (fap.MQPUT, fap.MQGET) and len(body) >= 8:
        md_len = _MD_LEN.get(_I32.unpack_from(body, 4)[0], 0)
        if md_len and len(body) >= md_len + 12:
            options = _I32.unpack_from(body, md_len + 8)[0]
            if segment_type == fap.MQPUT:
                return _Call("put", bool(options & C.MQPMO_SYNCPOINT))
            return _Call("get", bool(options & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT)))
    if segment_type == fap.MQPUT1:
        try:
            from qmlite.pcf.encoding import LITTLE
            from qmlite.pcf.mqi import MQOD

            _od, end = MQOD.unpack(body, 0, LITTLE, "latin-1")
            md_len = _MD_LEN.get(_I32.unpack_from(body, end + 4)[0], 0)
            options = _I32.unpack_from(body, end + md_len + 8)[0]
            return _Call("put1", bool(options & C.MQPMO_SYNCPOINT))
        except Exception:  # noqa: BLE001 - unreadable: the server will say why
            return _Call("put1")
    return _Call("other")
