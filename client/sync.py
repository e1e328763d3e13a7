"""``QueueManager``: a blocking MQ client connection that runs in the caller's thread.

A plain socket and a :class:`~qmlite.client.channel.ClientChannel`: each call encodes its request
(:mod:`qmlite.client.verbs`), sends it, and reads until its reply, answering heartbeats on the way --
no event loop, no thread hand-off.  Exceptions are the same ``MQIError`` / ``ConnectionBroken`` the
async client raises.

Threads: a connection may be shared; its calls run one at a time (a lock, as MQCNO_HANDLE_SHARE_BLOCK
does).  A call made *re-entrantly* -- by a finalizer (``__del__``) or callback that the garbage
collector runs on a thread that is inside a call on this same connection -- can neither wait for the
lock (it would wait for itself) nor use the socket mid-call; an MQCLOSE or MQDISC made that way (or
from a finalizer while another thread is inside a call) is deferred and carried out when the current
call ends, and reports success.  Nothing here blocks the process.

Idle connections are heartbeated by one daemon thread for the whole process (as IBM's client keeps
its connections alive): when a connection has been quiet for HeartbeatInterval seconds and no call
holds it, that thread sends a heartbeat request and reads the answer.

Asynchronous puts (:meth:`QueueManager.put_nowait`) send the request and do not wait: the replies
are read as later calls pass, at most ``ASYNC_WINDOW`` stay unread, and :meth:`async_status` reads
them all and returns the counts (MQSTAT's).
"""

from __future__ import annotations

import socket
import ssl
import struct
import sys
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Optional

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO

from . import locks as _locks
from . import protocol as proto
from . import verbs as VB
from .channel import NEED_DATA, ClientChannel, Connected, HeartbeatAck, Reply
from .errors import ConnectionBroken, MQIError

__all__ = ["QueueManager", "AsyncPutStatus", "DEFAULT_REPLY_TIMEOUT"]

DEFAULT_REPLY_TIMEOUT = 60.0
ASYNC_WINDOW = 64  # unread asynchronous put replies before a put waits for some
_RECV = 65536


@dataclass(slots=True)
class AsyncPutStatus:
    """What asynchronous puts did since the last :meth:`QueueManager.async_status` (MQSTS)."""

    success: int = 0
    warning: int = 0
    failure: int = 0
    comp: int = C.MQCC_OK
    reason: int = C.MQRC_NONE
    hobj: Optional[int] = None  # the handle of the first put that warned or failed


def _timeval(seconds: float) -> bytes:
    """A ``struct timeval`` for SO_RCVTIMEO/SO_SNDTIMEO (0 = no timeout; at least 1 ms otherwise)."""
    if seconds <= 0 or seconds == float("inf") or seconds > 10**8:
        return struct.pack("@ll", 0, 0)
    whole = int(seconds)
    micros = max(int((seconds - whole) * 1_000_000), 0 if whole else 1000)
    return struct.pack("@ll", whole, micros)


def _in_finalizer() -> bool:
    """Whether a ``__del__`` is on the stack (the garbage collector may run one on any thread)."""
    frame = sys._getframe(2)
    for _ in range(12):
        if frame is None:
            return False
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


# STATUS codes by which a queue manager refuses a channel's TLS set-up (docs/reference/fap.md section 9).
_TLS_REFUSALS = frozenset({fap.CIPHER_SPEC, fap.PEER_NAME, fap.SSL_CLIENT_CERTIFICATE})


def _tls_alert(exc: Optional[OSError]) -> bool:
    """Whether ``exc`` is a TLS alert the peer sent (OpenSSL's reasons for them read ``..._ALERT_...``:
    SSLV3_ALERT_BAD_CERTIFICATE, TLSV1_ALERT_UNKNOWN_CA, SSLV3_ALERT_CERTIFICATE_EXPIRED ...)."""
    return isinstance(exc, ssl.SSLError) and "_ALERT_" in (exc.reason or "")


class QueueManager:
    """A connected conversation.  Create with :meth:`connect`."""

    def __init__(self, sock: socket.socket, channel: ClientChannel) -> None:
        self._sock = sock
        self._ch = channel
        # An RLock: its owner test is atomic, so a finalizer that the collector runs on the thread
        # inside a call (at any bytecode, even between acquiring and counting) is recognised as
        # re-entrant by ``_depth`` instead of waiting for itself.
        self._lock = threading.RLock()
        self._depth = 0
        # each outstanding call's destination, oldest first: None for the synchronous call being
        # waited for, else a function taking the reply (asynchronous puts)
        self._pending: deque[Optional[Callable[[Reply], None]]] = deque()
        self._deferred: list[tuple[str, int, int]] = []  # ("close", hobj, options) / ("disc", 0, 0)
        self._pcf_queues = VB.PcfQueues()
        self._async = AsyncPutStatus()
        self._disconnected = False
        self._rcvtimeo = 0.0  # the SO_RCVTIMEO in force (0: none)
        self._lost_by: Optional[OSError] = None  # what broke the socket, when a send or receive failed

    # -- connecting ---------------------------------------------------------------------------

    @classmethod
    def connect(cls, host: str, port: int, channel: str, qmgr: str = "", *,
                user: Optional[str] = None, password: Optional[str] = None,
                appl_name: str = "qmlite", appl_type: int = C.MQAT_UNIX, fap_level: int = 13,
                sharing_conversations: int = 10, heartbeat_interval: int = 300,
                max_message_length: int = 4194304, ccsid: int = 819,
                reply_timeout: float = DEFAULT_REPLY_TIMEOUT, keepalive: bool = True,
                cno_options: int = 0, tls=None, balance=None) -> "QueueManager":
        """Open a TCP connection and run ID negotiation, UID, CAUT (when ``user`` or ``password`` is
        given) and MQCONN.  Raises MQIError: 2538 HOST_NOT_AVAILABLE when the TCP connect fails,
        2540 UNKNOWN_CHANNEL_NAME, 2035 NOT_AUTHORIZED, 2058 Q_MGR_NAME_ERROR, ... as the server says.
        ``tls``: a :class:`qmlite.client.tls.ClientTLS` (``client_tls``) to run the channel over TLS."""
        opts = proto.ConnectOptions(channel=channel, qmgr=qmgr, user=user, password=password,
                                    appl_name=appl_name, appl_type=appl_type, fap_level=fap_level,
                                    sharing_conversations=sharing_conversations,
                                    heartbeat_interval=heartbeat_interval,
                                    max_message_length=max_message_length, ccsid=ccsid, cno_options=cno_options,
                                    balance=balance)
        ch = ClientChannel(opts, reply_timeout=reply_timeout)
        try:
            sock = socket.create_connection((host, port), timeout=reply_timeout)
        except OSError as exc:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE, f"{host}({port}): {exc}") from exc
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls is not None:
            from .tls import TLSSetupError

            try:
                sock = tls.wrap(sock, host, reply_timeout)
            except TLSSetupError as exc:
                raise MQIError(C.MQCC_FAILED, exc.reason, exc.detail) from None
        # A blocking socket (no Python timeout, which costs a poll() per call) with the kernel's own
        # receive timeout set to the channel's next deadline; sends may take at most reply_timeout.
        sock.settimeout(None)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(reply_timeout))
        qm = cls(sock, ch)
        try:
            qm._sendall(ch.initiate())
            while True:
                event = qm._next_event()
                if isinstance(event, Connected):
                    break
            if tls is not None:
                tls.remember(sock, host)
        except MQIError as exc:
            qm._close_socket()
            if getattr(exc, "status_code", None) in _TLS_REFUSALS:
                # The queue manager refused the channel's TLS (a TLS client on a plain channel, a
                # CipherSpec mismatch, SSLPEER, a missing client certificate): IBM's C client reports
                # 2393 when it asked for TLS, 2059 when it did not (docs/decisions.md X6).
                reason = C.MQRC_SSL_INITIALIZATION_ERROR if tls is not None else C.MQRC_Q_MGR_NOT_AVAILABLE
                raise MQIError(C.MQCC_FAILED, reason, str(exc)) from None
            if tls is not None and _tls_alert(qm._lost_by):
                # Under TLS 1.3 the queue manager checks our certificate after our side of the handshake
                # is done: its refusal (an untrusted or expired certificate) arrives as an alert where we
                # wait for the ID exchange.  The same refusal as under TLS 1.2, the same 2393 (CX4).
                raise MQIError(C.MQCC_FAILED, C.MQRC_SSL_INITIALIZATION_ERROR,
                               f"the queue manager refused the TLS connection: {qm._lost_by}") from None
            raise
        except BaseException:
            qm._close_socket()
            raise
        if keepalive and ch.agreement.heartbeat_interval > 0:
            _KEEPALIVE.add(qm)
        return qm

    # -- byte moving --------------------------------------------------------------------------

    def _sendall(self, data: bytes) -> None:
        if not data:
            return
        try:
            self._sock.sendall(data)
        except OSError as exc:
            self._lost_by = exc
            self._ch.abort(f"send failed: {exc!r}")
            self._close_socket()
            raise self._ch_error() from None

    def _ch_error(self) -> MQIError:
        try:
            self._ch.next_event()
        except MQIError as exc:
            return exc
        return ConnectionBroken(C.MQRC_CONNECTION_BROKEN, "connection closed")

    def _next_event(self):
        """The channel's next event, reading (with its timers) as needed."""
        ch = self._ch
        sock = self._sock
        while True:
            try:
                event = ch.next_event()
            except MQIError:
                self._close_socket()
                raise
            if event is not NEED_DATA:
                if ch._out:
                    self._sendall(ch.data_to_send())
                return event
            if ch._out:
                self._sendall(ch.data_to_send())
            deadline = ch.next_deadline()
            timeout = 0.0 if deadline is None else deadline - ch.clock()
            if deadline is not None and timeout <= 0:
                ch.on_timer()
                continue
            self._receive_timeout(timeout)
            try:
                data = sock.recv(_RECV)
            except (BlockingIOError, TimeoutError):  # the receive timeout ran out: a deadline may have come
                ch.on_timer()
                continue
            except OSError as exc:
                self._lost_by = exc
                ch.abort(f"receive failed: {exc!r}")
                continue
            ch.receive_data(data)

    def _receive_timeout(self, seconds: float) -> None:
        """Keep SO_RCVTIMEO at most ``seconds`` (0: no deadline) without a system call per receive: it
        is set again only when it would outlast the deadline or wake far too early."""
        current = self._rcvtimeo
        if isinstance(self._sock, ssl.SSLSocket):
            # OpenSSL retries a read that SO_RCVTIMEO interrupted, so a TLS socket keeps its deadline
            # as Python's socket timeout (a poll per receive).
            wanted = None if seconds <= 0 or seconds == float("inf") else seconds
            if wanted != current and not (wanted and current and wanted / 2 <= current <= wanted):
                self._sock.settimeout(wanted)
                self._rcvtimeo = wanted
            return
        if seconds <= 0 or seconds == float("inf"):
            if current == 0.0:
                return
            seconds = 0.0
        elif current and seconds / 2 <= current <= seconds:
            return
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(seconds))
        self._rcvtimeo = seconds

    def _close_socket(self) -> None:
        _KEEPALIVE.discard(self)
        try:
            self._sock.close()
        except OSError:
            pass

    # -- calls --------------------------------------------------------------------------------

    def _acquire(self) -> bool:
        """Take the connection; False when this thread is already inside a call on it (a
        re-entrant call, from a finalizer or callback the garbage collector ran mid-call), or when
        the interpreter is exiting and another thread holds it (that thread may have been stopped
        inside its call: docs/decisions.md FN1)."""
        if not _locks.acquire(self._lock):
            return False
        if self._depth:
            self._lock.release()
            return False
        self._depth = 1
        return True

    def _release(self) -> None:
        try:
            while self._deferred and not self._ch.closed:
                what, hobj, options = self._deferred.pop(0)
                try:
                    if what == "close":
                        self._run_locked(VB.close(self._ch, hobj, options))
                    else:
                        self._disc_locked()
                except MQIError:
                    pass
        finally:
            self._depth = 0
            self._lock.release()

    def call(self, segment_type: int, hobj: int, body: bytes, *, extra: int = 0, wait_s: float = 0.0) -> Reply:
        """One MQI request and its reply (the reply's CompCode is not checked here)."""
        if not self._acquire():
            raise MQIError(C.MQCC_FAILED, C.MQRC_CALL_IN_PROGRESS, "a call is in progress on this thread")
        try:
            return self._call_locked(segment_type, hobj, body, extra, wait_s)
        finally:
            self._release()

    def _call_locked(self, segment_type: int, hobj: int, body: bytes, extra: int, wait_s: float) -> Reply:
        self._check_usable()
        self._sendall(self._ch.send_call(segment_type, hobj, body, extra=extra, wait_s=wait_s))
        self._pending.append(None)
        return self._reply_for_me()

    def _reply_for_me(self) -> Reply:
        while True:
            event = self._next_event()
            if type(event) is Reply:
                sink = self._pending.popleft()
                if sink is None:
                    return event
                sink(event)

    def _check_usable(self) -> None:
        if self._disconnected:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR, "disconnected")
        self._ch.check_usable()

    def run(self, verb) -> Any:
        """Run a verb generator (:mod:`qmlite.client.verbs`) to its result."""
        if not self._acquire():
            raise MQIError(C.MQCC_FAILED, C.MQRC_CALL_IN_PROGRESS, "a call is in progress on this thread")
        try:
            return self._run_locked(verb)
        finally:
            self._release()

    def _run_locked(self, verb) -> Any:
        try:
            call = next(verb)
            while True:
                reply = self._call_locked(call.segment_type, call.hobj, call.body, call.extra, call.wait_s)
                call = verb.send(reply)
        except StopIteration as stop:
            return stop.value

    def poll(self) -> None:
        """Take in, without waiting, whatever the server sent while no call was running -- a heartbeat
        request, a STATUS, a request to reconnect, the end of the socket -- so that a connection that
        broke while idle is known to be broken *before* a call is sent on it (a reconnecting client
        then reconnects first instead of losing the call's outcome).  Never waits: when another
        thread is inside a call, that call takes in whatever came."""
        if not self._lock.acquire(blocking=False):
            return
        if self._depth:
            self._lock.release()
            return
        self._depth = 1
        try:
            ch = self._ch
            if ch.closed or self._pending or self._disconnected:
                return
            try:
                data = self._sock.recv(_RECV, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                ch.abort(f"receive failed: {exc!r}")
                self._close_socket()
                return
            ch.receive_data(data)
            while True:
                try:
                    event = ch.next_event()
                except MQIError:
                    self._close_socket()
                    return
                if event is NEED_DATA:
                    break
            if ch._out:
                self._sendall(ch.data_to_send())
        finally:
            self._release()

    # -- asynchronous puts --------------------------------------------------------------------

    def put_nowait(self, hobj: int, body: bytes) -> None:
        """Send an MQPUT request (``body`` after the API header) without waiting for its reply; the
        outcome is counted for :meth:`async_status`."""
        if not self._acquire():
            raise MQIError(C.MQCC_FAILED, C.MQRC_CALL_IN_PROGRESS, "a call is in progress on this thread")
        try:
            self._check_usable()
            self._sendall(self._ch.send_call(fap.MQPUT, hobj, body))
            status = self._async

            def sink(reply: Reply, hobj=hobj) -> None:
                api = reply.api
                if api.CompCode == C.MQCC_OK:
                    status.success += 1
                    return
                if api.CompCode == C.MQCC_WARNING:
                    status.warning += 1
                else:
                    status.failure += 1
                if status.hobj is None:
                    status.comp, status.reason, status.hobj = api.CompCode, api.Reason, hobj

            self._pending.append(sink)
            if len(self._pending) > ASYNC_WINDOW:
                self._drain(ASYNC_WINDOW // 2)
        finally:
            self._release()

    def _drain(self, keep: int = 0) -> None:
        while len(self._pending) > keep:
            event = self._next_event()
            if type(event) is Reply:
                self._pending.popleft()(event)

    def async_status(self) -> AsyncPutStatus:
        """Read every outstanding asynchronous put reply; return and reset the counts (MQSTAT)."""
        if not self._acquire():
            raise MQIError(C.MQCC_FAILED, C.MQRC_CALL_IN_PROGRESS, "a call is in progress on this thread")
        try:
            if self._pending and not self._ch.closed:
                self._drain()
            status, self._async = self._async, AsyncPutStatus()
            return status
        finally:
            self._release()

    # -- properties ---------------------------------------------------------------------------

    @property
    def channel(self) -> ClientChannel:
        return self._ch

    @property
    def connected(self) -> bool:
        return not self._disconnected and self._ch.connected

    @property
    def agreement(self) -> proto.Agreement:
        return self._ch.agreement

    @property
    def connection_id(self) -> bytes:
        return self._ch.connection_id

    @property
    def codec(self) -> str:
        return self._ch.codec

    # -- MQI ----------------------------------------------------------------------------------

    def open(self, od: MQOD, options: int) -> tuple[int, MQOD]:
        return self.run(VB.open_(self._ch, od, options))

    def close(self, hobj: Optional[int] = None, options: int = C.MQCO_NONE) -> None:
        """``close(hobj[, options])``: MQCLOSE.  ``close()``: disconnect, like :meth:`disc`.  Deferred
        (see the module docstring) when made re-entrantly or from a finalizer while the connection
        is busy."""
        if hobj is None:
            self.disc()
            return
        if self._defer("close", hobj, options):
            return
        self.run(VB.close(self._ch, hobj, options))

    def _defer(self, what: str, hobj: int, options: int) -> bool:
        if self._lock.acquire(blocking=False):  # free, or held by this very thread
            busy_here = self._depth > 0
            self._lock.release()
        else:  # another thread is inside a call: wait for it, unless this is a finalizer or the
            # interpreter's exit (that thread may be stopped for good: the close never happens, and
            # the queue manager sees the socket close when the process ends, as with IBM's client)
            busy_here = sys.is_finalizing() or _in_finalizer()
        if busy_here:
            self._deferred.append((what, hobj, options))
        return busy_here

    def put(self, hobj: int, md: MQMD, pmo: MQPMO, data: bytes) -> tuple[MQMD, MQPMO]:
        return self.run(VB.put(self._ch, hobj, md, pmo, data))

    def put1(self, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes) -> tuple[MQMD, MQPMO]:
        return self.run(VB.put1(self._ch, od, md, pmo, data))

    def get(self, hobj: int, md: MQMD, gmo: MQGMO, buffer_length: int) -> tuple[MQMD, MQGMO, bytes]:
        return self.run(VB.get(self._ch, hobj, md, gmo, buffer_length))

    def inq(self, hobj: int, selectors: list[int], int_attr_count: int, char_attr_length: int) -> tuple[list[int], str]:
        return self.run(VB.inq(self._ch, hobj, selectors, int_attr_count, char_attr_length))

    def set(self, hobj: int, selectors: list[int], int_attrs: list[int], char_attrs: str) -> None:
        self.run(VB.set_(self._ch, hobj, selectors, int_attrs, char_attrs))

    def sub(self, sd: MQSD, hobj: int = 0) -> tuple[int, int, MQSD]:
        return self.run(VB.sub(self._ch, sd, hobj))

    def subrq(self, hsub: int, action: int, sro: MQSRO) -> MQSRO:
        return self.run(VB.subrq(self._ch, hsub, action, sro))

    def cmit(self) -> None:
        self.run(VB.cmit(self._ch))

    def back(self) -> None:
        self.run(VB.back(self._ch))

    def pcf(self, command: int, parameters: list, *, wait_ms: int = 5000,
            cfh_type: int = C.MQCFT_COMMAND_XR) -> list:
        """Same as :meth:`qmlite.client.aio.AsyncQueueManager.pcf`."""
        return self.run(VB.pcf(self._ch, self._pcf_queues, command, parameters, wait_ms=wait_ms, cfh_type=cfh_type))

    def ping(self, timeout: float = 60.0) -> None:
        """Send a heartbeat request and wait for the server's answer; ConnectionBroken when none
        comes within ``timeout`` seconds."""
        if not self._acquire():
            raise MQIError(C.MQCC_FAILED, C.MQRC_CALL_IN_PROGRESS, "a call is in progress on this thread")
        try:
            self._check_usable()
            self._heartbeat_locked(timeout)
        finally:
            self._release()

    def _heartbeat_locked(self, timeout: float) -> None:
        self._sendall(self._ch.send_heartbeat_request(timeout))
        while True:
            event = self._next_event()
            if type(event) is HeartbeatAck:
                return
            if type(event) is Reply:  # an asynchronous put's late reply
                self._pending.popleft()(event)

    def disc(self) -> None:
        """Close the PCF queues, MQDISC, end the conversation, close the socket.  Idempotent; on a
        broken connection it only closes the socket.  Deferred when made re-entrantly."""
        if self._disconnected:
            return
        if self._defer("disc", 0, 0):
            return
        if not self._acquire():
            return
        try:
            self._disc_locked()
        finally:
            self._depth = 0
            self._lock.release()

    def _disc_locked(self) -> None:
        if self._disconnected:
            return
        self._deferred.clear()
        try:
            if self._ch.connected:
                if self._pending:
                    self._drain()
                for hobj in self._pcf_queues.held():
                    try:
                        self._run_locked(VB.close(self._ch, hobj))
                    except ConnectionBroken:
                        raise
                    except MQIError:
                        pass
                api = self._run_locked(VB.disc(self._ch))
                try:
                    self._sock.sendall(self._ch.end())
                except OSError:
                    pass
                VB.raise_if_failed(api, "MQDISC")
        finally:
            self._disconnected = True
            self._ch.abort("disconnected")
            self._close_socket()

    def abort(self) -> None:
        """Close the socket without MQDISC, as a client that crashed would (the queue manager backs
        the unit of work out)."""
        self._disconnected = True
        self._ch.abort("aborted")
        self._close_socket()

    def __enter__(self) -> "QueueManager":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.disc()
        except MQIError:
            if exc_type is None:
                raise

    # -- keepalive (called by the process's keepalive thread) --------------------------------

    def _idle_deadline(self) -> Optional[float]:
        if self._disconnected or not self._ch.connected:
            return None
        return self._ch.next_deadline()

    def _keepalive_tick(self) -> None:
        """Heartbeat the connection if it is idle and quiet for long enough; never waits for a call."""
        if not self._lock.acquire(blocking=False):
            return
        if self._depth:
            self._lock.release()
            return
        self._depth = 1
        try:
            ch = self._ch
            if self._disconnected or not ch.connected:
                return
            deadline = ch.next_deadline()
            if deadline is None or ch.clock() < deadline:
                return
            hb = ch.agreement.heartbeat_interval
            try:
                self._heartbeat_locked(min(60, hb))
            except MQIError:
                pass
        finally:
            self._release()


class _Keepalive:
    """One daemon thread heartbeating every idle blocking connection of the process.

    The thread holds no lock that anyone else waits for (docs/decisions.md FN1): at interpreter exit
    it is stopped wherever it is, and the finalizers that run after that (MQDISC -> :meth:`discard`)
    must not wait for it.  The connections are a set of weak references (a dead one removes itself;
    adding, discarding and copying a set are single operations, atomic under the GIL), and the thread
    sleeps on a bare lock used as a doorbell, which :meth:`add` rings by releasing it: never a wait.
    The thread may look at a connection just discarded: it finds it disconnected and skips it."""

    def __init__(self) -> None:
        self._conns: set[weakref.ref] = set()
        self._bell = threading.Lock()  # held (silent) until rung; only the keepalive thread acquires it
        self._bell.acquire()
        self._starting = threading.Lock()  # taken by connecting threads only, never by the daemon
        self._thread: Optional[threading.Thread] = None

    def add(self, qm: QueueManager) -> None:
        self._conns.add(weakref.ref(qm, self._conns.discard))
        if sys.is_finalizing():  # no thread can start now, and the process is ending anyway
            return
        with self._starting:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._main, name="qmlite-keepalive", daemon=True)
                self._thread.start()
        self._ring()  # its deadline may be the nearest

    def discard(self, qm: QueueManager) -> None:
        self._conns.discard(weakref.ref(qm))  # equal to the stored reference while qm lives

    def _ring(self) -> None:
        try:
            self._bell.release()
        except RuntimeError:  # rung already: the thread looks before it sleeps again
            pass

    def _main(self) -> None:
        while True:
            wait = 3600.0
            now = time.monotonic()
            for ref in list(self._conns):
                qm = ref()
                deadline = qm._idle_deadline() if qm is not None else None
                if deadline is None:
                    continue
                if deadline <= now:
                    qm._keepalive_tick()
                    deadline = qm._idle_deadline()
                    if deadline is not None and deadline <= time.monotonic():
                        # inside a call, which answers heartbeats itself: look again a little later
                        # rather than spin
                        deadline = now + 0.5
                    if deadline is None:
                        continue
                wait = min(wait, deadline - now)
            qm = None  # no strong reference while asleep: a forgotten connection is collected
            self._bell.acquire(timeout=max(wait, 0.0))


_KEEPALIVE = _Keepalive()
