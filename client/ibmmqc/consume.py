"""MQCB / MQCTL: asynchronous consume for ``ibmmq``, with a dispatcher thread per connection as IBM's
client runs it.

``ibmmq`` registers its dispatcher once (``MQCBINIT(_internal_cb)``) and finds the user's function
itself from (hconn, hobj); this module decides *when* to call it and with which MQMD, MQGMO, message
and MQCBC (native bytes, as IBM's C client passes them).

* MQCB REGISTER / DEREGISTER / SUSPEND / RESUME a message consumer (on an open Hobj) or the event
  handler (Hobj ignored).  Control calls (MQCBCT_REGISTER_CALL, _DEREGISTER_CALL, _START_CALL,
  _STOP_CALL) are made when the MQCBD's Options ask for them.
* MQCTL START runs the dispatcher on a thread of its own and returns; START_WAIT runs it on the
  caller's thread until the connection is stopped (from a callback, or by every consumer being
  deregistered or suspended: MQRC_NO_CALLBACKS_ACTIVE); STOP ends it (from another thread it waits
  for the callback in progress); SUSPEND / RESUME pause it.
* The dispatcher reads with ordinary MQGETs on the connection (each consumer's MQMD and MQGMO as
  registered, NO_WAIT first; when a pass over every consumer finds nothing, a waiting MQGET of at most
  ``SLICE`` seconds, shared out among them), so an MQCTL STOP from another thread is seen within
  ``SLICE``.  Callbacks run outside the connection's lock: they may make MQI calls on the connection.
* A consumer whose MQGMO has MQGMO_WAIT and a WaitInterval is called with MQCBCT_EVENT_CALL and
  MQRC_NO_MSG_AVAILABLE when no message came in that interval.  A consumer-specific failure (2016
  GET_INHIBITED, ...) goes to that consumer (MQCBCT_EVENT_CALL) and suspends it; a broken connection
  goes to the event handler and every consumer, and stops the dispatcher.
* As IBM requires, the connection must share conversations (SHARECNV > 0), else 2012
  MQRC_ENVIRONMENT_ERROR.
"""

from __future__ import annotations

import logging
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from qmlite.client.locks import held as _held
from qmlite.pcf import constants as C

from . import structs as ST

log = logging.getLogger("qmlite.ibmmqc")

# cmqc.h's asynchronous-consume values, which qmlite's generated constants lack
MQOP_START, MQOP_START_WAIT, MQOP_STOP = 0x1, 0x2, 0x4
MQOP_REGISTER, MQOP_DEREGISTER, MQOP_SUSPEND, MQOP_RESUME = 0x100, 0x200, 0x10000, 0x20000
MQCBT_MESSAGE_CONSUMER, MQCBT_EVENT_HANDLER = 1, 2
MQCBDO_START_CALL, MQCBDO_STOP_CALL, MQCBDO_REGISTER_CALL, MQCBDO_DEREGISTER_CALL = 0x1, 0x4, 0x100, 0x200
MQCBCT_START_CALL, MQCBCT_STOP_CALL, MQCBCT_REGISTER_CALL, MQCBCT_DEREGISTER_CALL = 1, 2, 3, 4
MQCBCT_EVENT_CALL, MQCBCT_MSG_REMOVED, MQCBCT_MSG_NOT_REMOVED = 5, 6, 7
MQCS_NONE, MQCS_SUSPENDED, MQCS_STOPPED = 0, 3, 4

OK, WARNING, FAILED = C.MQCC_OK, C.MQCC_WARNING, C.MQCC_FAILED
SLICE = 0.2  # seconds a dispatcher waits in one MQGET before it looks at its controls again

_CBD = struct.Struct("@4siiiPP128sii")  # MQCBD: StrucId .. MaxMsgLength, Reserved (168 bytes)
_CBC = struct.Struct("@4siiiPPiiiiiiii")  # MQCBC v2 (64 bytes)
_CTLO = struct.Struct("@4siiiP")  # MQCTLO (24 bytes)

_dispatch: Optional[Callable] = None  # ibmmq's _internal_cb
# The transport's MQGET (hconn, hobj, md, gmo, length) -> (data, md, gmo, DataLength, CompCode, Reason),
# handed over by _mqi when it is imported (set_get): this module does not import _mqi.
_get: Optional[Callable] = None
_controls: dict[int, "_Control"] = {}
# Re-entrant (a finalizer's MQDISC may run on a thread inside _control's block) and taken with
# locks.held on MQCLOSE's and MQDISC's paths, as is each control's lock: at interpreter exit a
# dispatcher stopped inside ``with ctl.lock`` never lets go (docs/decisions.md FN1).
_table = threading.RLock()


def set_dispatcher(function) -> None:
    global _dispatch
    _dispatch = function


def set_get(function) -> None:
    """The MQGET the dispatcher reads with (the transport's own, so a consumer's get is any get)."""
    global _get
    _get = function


@dataclass(slots=True)
class _Consumer:
    hobj: int
    options: int  # MQCBDO_*
    max_length: int  # MaxMsgLength; -1: the whole message
    md: bytes
    gmo: bytes
    suspended: bool = False
    started: bool = False  # START_CALL made
    waited_since: float = 0.0


@dataclass(slots=True)
class _Control:
    hconn: int
    qm: object
    consumers: dict = field(default_factory=dict)  # hobj -> _Consumer
    event_handler: Optional[_Consumer] = None
    state: str = "stopped"  # stopped | started | suspended
    stop: bool = False
    thread: Optional[threading.Thread] = None
    dispatcher_ident: Optional[int] = None
    # control calls owed to consumers; ibmmq files a callback away only once MQCB has returned, so
    # a REGISTER_CALL is made by the dispatcher (at START, or at its next turn when running)
    owed: list = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)
    wake: threading.Condition = None  # set in __post_init__

    def __post_init__(self) -> None:
        self.wake = threading.Condition(self.lock)


def _control(qm, hconn: int) -> _Control:
    with _table:
        ctl = _controls.get(hconn)
        if ctl is None:
            ctl = _controls[hconn] = _Control(hconn, qm)
        return ctl


def drop_connection(hconn: int) -> None:
    """MQDISC: the dispatcher stops; nothing more is called."""
    with _held(_table):
        ctl = _controls.pop(hconn, None)
    if ctl is not None:
        with _held(ctl.lock) as taken:
            ctl.stop = True
            ctl.consumers.clear()
            if taken:  # (not taken only at interpreter exit: the dispatcher is stopped already)
                ctl.wake.notify_all()


def notify_event(hconn: int, cc: int, rc: int) -> None:
    """A connection event (reconnection: MQRC_RECONNECTING, RECONNECTED, RECONNECT_FAILED) for the
    connection's event handler, called on the thread that noticed it; nothing when none is registered
    or it is suspended."""
    ctl = _controls.get(hconn)
    if ctl is None:
        return
    handler = ctl.event_handler
    if handler is not None and not handler.suspended:
        _invoke(ctl, handler, MQCBCT_EVENT_CALL, cc, rc)


def forget(hconn: int, hobj: int) -> None:
    """MQCLOSE deregisters the handle's consumer (IBM: "if the handle is closed, the callback is
    deregistered automatically")."""
    ctl = _controls.get(hconn)
    if ctl is not None:
        with _held(ctl.lock):
            ctl.consumers.pop(hobj, None)


# ------------------------------------------------------------------------------------------------
# MQCB
# ------------------------------------------------------------------------------------------------

def mqcb(qm, hconn: int, operation: int, cbd, hobj: int, md, gmo) -> tuple[int, int]:
    register = operation & MQOP_REGISTER
    deregister = operation & MQOP_DEREGISTER
    suspend = operation & MQOP_SUSPEND
    resume = operation & MQOP_RESUME
    if operation & ~(MQOP_REGISTER | MQOP_DEREGISTER | MQOP_SUSPEND | MQOP_RESUME) or \
            (register and deregister) or (suspend and resume) or not operation:
        return FAILED, C.MQRC_OPERATION_ERROR
    if not qm.channel.multiplexed:
        return FAILED, C.MQRC_ENVIRONMENT_ERROR
    ctl = _control(qm, hconn)
    callback_type, options, max_length = MQCBT_MESSAGE_CONSUMER, 0, -1
    if register:
        if not isinstance(cbd, (bytes, bytearray)) or len(cbd) < _CBD.size or bytes(cbd[:4]) != b"CBD ":
            return FAILED, C.MQRC_CBD_ERROR
        _sid, _v, callback_type, options, _area, _fn, _name, max_length, _r = _CBD.unpack_from(cbd)
        if callback_type not in (MQCBT_MESSAGE_CONSUMER, MQCBT_EVENT_HANDLER):
            return FAILED, C.MQRC_CALLBACK_TYPE_ERROR
        if max_length < -1:
            return FAILED, C.MQRC_MAX_MSG_LENGTH_ERROR
    calls = []
    with ctl.lock:
        if register:
            if callback_type == MQCBT_EVENT_HANDLER:
                ctl.event_handler = _Consumer(C.MQHO_NONE, options, -1, b"", b"", suspended=bool(suspend))
                return OK, C.MQRC_NONE
            if not isinstance(hobj, int) or hobj in (C.MQHO_NONE, -1):
                return FAILED, C.MQRC_HOBJ_ERROR
            try:
                ST.version(md, b"MD  ", C.MQRC_MD_ERROR, ST.MD_SIZES)
                ST.version(gmo, b"GMO ", C.MQRC_GMO_ERROR, ST.GMO_SIZES)
            except ST.Bad as bad:
                return FAILED, bad.reason
            old = ctl.consumers.get(hobj)
            cons = _Consumer(hobj, options, max_length, bytes(md), bytes(gmo), suspended=bool(suspend),
                             waited_since=time.monotonic())
            ctl.consumers[hobj] = cons
            if old is None and options & MQCBDO_REGISTER_CALL:
                ctl.owed.append((cons, MQCBCT_REGISTER_CALL))
            ctl.wake.notify_all()
        else:
            target = ctl.event_handler if hobj in (C.MQHO_NONE, None) and ctl.event_handler is not None \
                else ctl.consumers.get(hobj)
            if target is None:
                return FAILED, C.MQRC_CALLBACK_NOT_REGISTERED
            if deregister:
                if target is ctl.event_handler:
                    ctl.event_handler = None
                else:
                    del ctl.consumers[hobj]
                    if target.started and target.options & MQCBDO_STOP_CALL:
                        calls.append((target, MQCBCT_STOP_CALL, C.MQRC_NONE))
                    if target.options & MQCBDO_DEREGISTER_CALL:
                        calls.append((target, MQCBCT_DEREGISTER_CALL, C.MQRC_NONE))
            if suspend:
                target.suspended = True
            if resume:
                target.suspended = False
                target.waited_since = time.monotonic()
            ctl.wake.notify_all()
    for cons, call_type, reason in calls:
        _invoke(ctl, cons, call_type, OK, reason)
    return OK, C.MQRC_NONE


# ------------------------------------------------------------------------------------------------
# MQCTL
# ------------------------------------------------------------------------------------------------

def mqctl(qm, hconn: int, operation: int, ctlo) -> tuple[int, int]:
    if operation not in (MQOP_START, MQOP_START_WAIT, MQOP_STOP, MQOP_SUSPEND, MQOP_RESUME):
        return FAILED, C.MQRC_OPERATION_ERROR
    if operation in (MQOP_START, MQOP_START_WAIT) and (
            not isinstance(ctlo, (bytes, bytearray)) or len(ctlo) < _CTLO.size or bytes(ctlo[:4]) != b"CTLO"):
        return FAILED, C.MQRC_CTLO_ERROR
    if not qm.channel.multiplexed:
        return FAILED, C.MQRC_ENVIRONMENT_ERROR
    ctl = _control(qm, hconn)
    me = threading.get_ident()
    with ctl.lock:
        if operation == MQOP_STOP:
            if ctl.state == "stopped":
                return OK, C.MQRC_NONE
            ctl.stop = True
            ctl.wake.notify_all()
            thread = ctl.thread
        elif operation == MQOP_SUSPEND:
            if ctl.state == "started":
                ctl.state = "suspended"
            return OK, C.MQRC_NONE
        elif operation == MQOP_RESUME:
            if ctl.state == "suspended":
                ctl.state = "started"
                ctl.wake.notify_all()
            return OK, C.MQRC_NONE
        else:
            if ctl.state != "stopped":
                return FAILED, C.MQRC_HCONN_ASYNC_ACTIVE
            if operation == MQOP_START_WAIT and not _active(ctl):
                return FAILED, C.MQRC_NO_CALLBACKS_ACTIVE
            ctl.state = "started"
            ctl.stop = False
            if operation == MQOP_START:
                ctl.thread = threading.Thread(target=_run, args=(ctl,), name=f"qmlite-mqctl-{hconn}",
                                              daemon=True)
                ctl.thread.start()
                return OK, C.MQRC_NONE
    if operation == MQOP_STOP:
        if thread is not None and thread.ident != me and ctl.dispatcher_ident != me and not sys.is_finalizing():
            thread.join()  # (at interpreter exit the dispatcher is stopped for good: never joined)
        return OK, C.MQRC_NONE
    return _run(ctl)  # START_WAIT: the caller's thread dispatches


def _active(ctl: _Control) -> list[_Consumer]:
    return [c for c in ctl.consumers.values() if not c.suspended]


# ------------------------------------------------------------------------------------------------
# The dispatcher
# ------------------------------------------------------------------------------------------------

def _run(ctl: _Control) -> tuple[int, int]:
    ctl.dispatcher_ident = threading.get_ident()
    result = (OK, C.MQRC_NONE)
    try:
        _pay_owed(ctl)
        with ctl.lock:
            starting = [c for c in ctl.consumers.values() if c.options & MQCBDO_START_CALL]
            for c in ctl.consumers.values():
                c.started = True
                c.waited_since = time.monotonic()
        for c in starting:
            _invoke(ctl, c, MQCBCT_START_CALL, OK, C.MQRC_NONE)
        found_any = True
        while True:
            with ctl.lock:
                while not ctl.stop and ctl.state == "suspended":
                    ctl.wake.wait(SLICE)
                if ctl.stop:
                    break
                active = _active(ctl)
                if not active:
                    if ctl.thread is None:  # START_WAIT returns when nothing can be called
                        result = (FAILED, C.MQRC_NO_CALLBACKS_ACTIVE)
                        break
                    ctl.wake.wait(SLICE)
                    continue
            _pay_owed(ctl)
            wait = 0.0 if found_any else SLICE / len(active)
            found_any = False
            for cons in active:
                if ctl.stop:
                    break
                outcome = _consume_one(ctl, cons, wait)
                if outcome == "message":
                    found_any = True
                elif outcome == "broken":
                    result = (FAILED, C.MQRC_CONNECTION_BROKEN)
                    ctl.stop = True
                    break
    finally:
        with ctl.lock:
            stopping = [c for c in ctl.consumers.values() if c.started and c.options & MQCBDO_STOP_CALL]
            for c in ctl.consumers.values():
                c.started = False
            ctl.state = "stopped"
            ctl.thread = None
            ctl.dispatcher_ident = None
            ctl.wake.notify_all()
        for c in stopping:
            _invoke(ctl, c, MQCBCT_STOP_CALL, OK, C.MQRC_NONE)
    return result


def _pay_owed(ctl: _Control) -> None:
    with ctl.lock:
        owed, ctl.owed = ctl.owed, []
    for cons, call_type in owed:
        if cons.hobj in ctl.consumers:
            _invoke(ctl, cons, call_type, OK, C.MQRC_NONE)


def _consume_one(ctl: _Control, cons: _Consumer, wait_s: float) -> str:
    gmo = bytearray(cons.gmo)
    options = int.from_bytes(gmo[8:12], sys.byteorder, signed=True)
    user_wait = options & C.MQGMO_WAIT
    interval = int.from_bytes(gmo[12:16], sys.byteorder, signed=True)
    get_options = options & ~C.MQGMO_WAIT
    if wait_s > 0:
        get_options |= C.MQGMO_WAIT
    gmo[8:12] = get_options.to_bytes(4, sys.byteorder, signed=True)
    gmo[12:16] = int(wait_s * 1000).to_bytes(4, sys.byteorder, signed=True)
    length = cons.max_length if cons.max_length >= 0 else 65536
    while True:
        data, md, gmo_out, data_length, cc, rc = _get(ctl.hconn, cons.hobj, cons.md, bytes(gmo), length)
        if rc == C.MQRC_TRUNCATED_MSG_FAILED and cons.max_length < 0 and data_length > length:
            length = data_length  # the whole message, as MQCBD_FULL_MSG_LENGTH asks
            continue
        break
    if cc != FAILED or rc == C.MQRC_TRUNCATED_MSG_ACCEPTED:
        cons.waited_since = time.monotonic()
        call_type = MQCBCT_MSG_NOT_REMOVED if rc == C.MQRC_TRUNCATED_MSG_FAILED else MQCBCT_MSG_REMOVED
        gmo_out = bytes(cons.gmo[:8]) + bytes(gmo_out[8:]) if len(gmo_out) >= 8 else cons.gmo
        _invoke(ctl, cons, call_type, cc, rc, md=md, gmo=gmo_out, data=data, data_length=data_length,
                buffer_length=length)
        return "message"
    if rc == C.MQRC_NO_MSG_AVAILABLE:
        if user_wait and interval >= 0 and time.monotonic() - cons.waited_since >= interval / 1000.0:
            cons.waited_since = time.monotonic()
            _invoke(ctl, cons, MQCBCT_EVENT_CALL, FAILED, C.MQRC_NO_MSG_AVAILABLE)
        return "empty"
    if rc in (C.MQRC_CONNECTION_BROKEN, C.MQRC_HCONN_ERROR, C.MQRC_Q_MGR_STOPPING, C.MQRC_Q_MGR_QUIESCING,
              C.MQRC_CONNECTION_QUIESCING, C.MQRC_CONNECTION_STOPPING, C.MQRC_RECONNECT_FAILED):
        handler = ctl.event_handler
        # a failed reconnection has told the event handler already (notify_event)
        if handler is not None and not handler.suspended and rc != C.MQRC_RECONNECT_FAILED:
            _invoke(ctl, handler, MQCBCT_EVENT_CALL, FAILED, rc)
        return "broken"
    # specific to this consumer (2016 GET_INHIBITED, 2019 HOBJ_ERROR, ...): tell it, and suspend it
    # so that the failure is not repeated in a loop
    cons.suspended = True
    _invoke(ctl, cons, MQCBCT_EVENT_CALL, cc, rc)
    return "failed"


def _invoke(ctl: _Control, cons: _Consumer, call_type: int, cc: int, rc: int, *, md: bytes = b"",
            gmo: bytes = b"", data: bytes = b"", data_length: int = 0, buffer_length: int = 0) -> None:
    if _dispatch is None:
        return
    state = MQCS_SUSPENDED if cons.suspended else (MQCS_STOPPED if ctl.state == "stopped" else MQCS_NONE)
    hobj = cons.hobj if cons.hobj is not None else C.MQHO_NONE
    cbc = _CBC.pack(b"CBC ", 2, call_type, hobj, 0, 0, cc, rc, state, data_length, buffer_length, 0, 0, 0)
    if call_type not in (MQCBCT_MSG_REMOVED, MQCBCT_MSG_NOT_REMOVED):
        md, gmo, data = cons.md or None, cons.gmo or None, None
    try:
        _dispatch(ctl.hconn, md, gmo, data, cbc)
    except Exception as exc:  # noqa: BLE001 - a callback that does not end normally
        log.warning("MQCB callback for hobj %s raised %r", hobj, exc)
        handler = ctl.event_handler
        if handler is not None and handler is not cons and not handler.suspended:
            try:
                cbc = _CBC.pack(b"CBC ", 2, MQCBCT_EVENT_CALL, C.MQHO_NONE, 0, 0, FAILED,
                                C.MQRC_CALLBACK_ROUTINE_ERROR, state, 0, 0, 0, 0, 0)
                _dispatch(ctl.hconn, None, None, None, cbc)
            except Exception:  # noqa: BLE001 - the event handler failing too: nothing more to tell
                pass
