"""``AsyncQueueManager``: an MQ client connection (one socket, one conversation) for trio.

Usage::

    qm = await AsyncQueueManager.connect("127.0.0.1", 1414, "DEV.ADMIN.SVRCONN", "QM1",
                                         user="admin", password="passw0rd")
    async with qm:
        hobj, od = await qm.open(MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT)
        md, pmo = await qm.put(hobj, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"hello")
        responses = await qm.pcf(C.MQCMD_INQUIRE_Q_MGR, [])

Rules:

* One MQI call at a time per connection (a gate); concurrent callers queue.
* Every failure is :class:`~qmlite.client.errors.MQIError` (``comp``, ``reason``); a connection that
  can no longer be used raises :class:`~qmlite.client.errors.ConnectionBroken` (reason 2009, or the
  mapped STATUS code) and every later call raises it again.
* A call whose reply does not come back in time, that is cancelled after its request was sent, or
  whose reply is out of step, breaks the connection (the socket is closed): the protocol state is
  unknown afterwards.  Timeouts: ``reply_timeout`` seconds per call (default 60), plus the
  WaitInterval for an MQGET with MQGMO_WAIT (the wait happens in the server); an unlimited wait is
  bounded only by the heartbeat rule below.
* Heartbeats: requests from the server are answered while a call waits.  When a call hears nothing
  for HeartbeatInterval seconds it sends a heartbeat request itself and breaks the connection if
  nothing arrives within min(60, HeartbeatInterval) seconds.  Pass ``nursery=`` to
  :meth:`AsyncQueueManager.connect` to also heartbeat an idle connection (after HeartbeatInterval
  seconds without traffic, as IBM clients do); without it an idle connection is only checked at the
  next call.
* The conversation's rules are :class:`~qmlite.client.channel.ClientChannel`'s and the verbs'
  requests and replies :mod:`qmlite.client.verbs`'s; this module only moves bytes over a trio stream.
* Structures are sent as given (``MQMD``, ``MQOD``, ... from ``qmlite.pcf.mqi``); values that cannot
  be encoded raise ``ValueError`` before anything is sent, leaving the connection usable.
"""

from __future__ import annotations

import math
from typing import Optional

import trio

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf.mqi import MQCHARV, MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO

from . import protocol as proto
from . import verbs as VB
from .channel import NEED_DATA, ClientChannel, Connected, HeartbeatAck, Reply
from .errors import ConnectionBroken, MQIError

__all__ = ["AsyncQueueManager", "DEFAULT_REPLY_TIMEOUT"]

DEFAULT_REPLY_TIMEOUT = 60.0
_RECEIVE = 65536


class _Gate:
    """Mutual exclusion that parks only when contended: a ``trio.Lock`` yields to the scheduler on
    every acquire, which is a task switch per MQI call for nothing when one task owns the connection."""

    __slots__ = ("_held", "_turn")

    def __init__(self) -> None:
        self._held = False
        self._turn = trio.lowlevel.ParkingLot()

    async def __aenter__(self) -> None:
        while self._held:
            await self._turn.park()
        self._held = True

    async def __aexit__(self, *exc_info) -> None:
        self._held = False
        self._turn.unpark()


class AsyncQueueManager:
    """A connected conversation.  Create with :meth:`connect` (or :meth:`connect_stream`)."""

    def __init__(self, stream: trio.abc.Stream, channel: ClientChannel) -> None:
        self._stream = stream
        self._ch = channel
        self._lock = _Gate()
        self._pcf_lock = _Gate()
        self._pcf_queues = VB.PcfQueues()
        self._disconnected = False
        self._keepalive_scope: Optional[trio.CancelScope] = None

    # ------------------------------------------------------------------------------------------
    # connecting
    # ------------------------------------------------------------------------------------------

    @classmethod
    async def connect(cls, host: str, port: int, channel: str, qmgr: str = "", *,
                      user: Optional[str] = None, password: Optional[str] = None,
                      appl_name: str = "qmlite", appl_type: int = C.MQAT_UNIX, fap_level: int = 13,
                      sharing_conversations: int = 10, heartbeat_interval: int = 300,
                      max_message_length: int = 4194304, ccsid: int = 819,
                      reply_timeout: float = DEFAULT_REPLY_TIMEOUT,
                      nursery: Optional[trio.Nursery] = None) -> "AsyncQueueManager":
        """Open a TCP connection and run ID negotiation, UID, CAUT (when ``user`` or ``password``
        is given) and MQCONN.  Raises MQIError: 2538 HOST_NOT_AVAILABLE when the TCP connect fails,
        2540 UNKNOWN_CHANNEL_NAME, 2035 NOT_AUTHORIZED, 2058 Q_MGR_NAME_ERROR, ... as the server says."""
        opts = proto.ConnectOptions(channel=channel, qmgr=qmgr, user=user, password=password,
                                    appl_name=appl_name, appl_type=appl_type, fap_level=fap_level,
                                    sharing_conversations=sharing_conversations,
                                    heartbeat_interval=heartbeat_interval,
                                    max_message_length=max_message_length, ccsid=ccsid)
        opts.validate()
        try:
            with trio.fail_after(reply_timeout):
                stream = await trio.open_tcp_stream(host, port)
        except (OSError, trio.TooSlowError) as exc:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE, f"{host}({port}): {exc}") from exc
        return await cls.connect_stream(stream, opts, reply_timeout=reply_timeout, nursery=nursery)

    @classmethod
    async def connect_stream(cls, stream: trio.abc.Stream, opts: proto.ConnectOptions, *,
                             reply_timeout: float = DEFAULT_REPLY_TIMEOUT,
                             nursery: Optional[trio.Nursery] = None) -> "AsyncQueueManager":
        """:meth:`connect` over an already open stream (tests use in-memory streams)."""
        opts.validate()
        qm = cls(stream, ClientChannel(opts, clock=trio.current_time, reply_timeout=reply_timeout))
        ok = False
        try:
            async with qm._lock:
                await qm._send(qm._ch.initiate())
                while not isinstance(await qm._next_event(), Connected):
                    pass
            ok = True
        finally:
            if not ok:
                await qm._abort()
        if nursery is not None and qm.agreement.heartbeat_interval > 0:
            await nursery.start(qm._keepalive)
        return qm

    # ------------------------------------------------------------------------------------------
    # transport
    # ------------------------------------------------------------------------------------------

    @property
    def channel(self) -> ClientChannel:
        return self._ch

    @property
    def agreement(self) -> Optional[proto.Agreement]:
        return self._ch.agreement

    @property
    def connection_id(self) -> bytes:
        return self._ch.connection_id

    @property
    def heartbeats_answered(self) -> int:
        return self._ch.heartbeats_answered

    @property
    def heartbeats_sent(self) -> int:
        return self._ch.heartbeats_sent

    @property
    def connected(self) -> bool:
        return self._ch.connected and not self._disconnected

    @property
    def multiplexed(self) -> bool:
        return self._ch.multiplexed

    @property
    def options(self) -> proto.ConnectOptions:
        return self._ch.opts

    @property
    def _pcf_reply_q(self) -> Optional[tuple[int, str]]:
        return self._pcf_queues.reply

    async def _send(self, data: bytes) -> None:
        if not data:
            return
        try:
            await self._stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self._ch.abort(f"send failed: {exc!r}")
            await self._abort()
            raise self._error() from None

    def _error(self) -> MQIError:
        try:
            self._ch.next_event()
        except MQIError as exc:
            return exc
        return ConnectionBroken(C.MQRC_CONNECTION_BROKEN, "connection closed")

    async def _next_event(self):
        """The channel's next event, reading (and running its timers) as needed."""
        ch = self._ch
        while True:
            try:
                event = ch.next_event()
            except MQIError:
                await self._abort()
                raise
            await self._send(ch.data_to_send())
            if event is not NEED_DATA:
                return event
            deadline = ch.next_deadline()
            with trio.move_on_at(math.inf if deadline is None else deadline):
                try:
                    data = await self._stream.receive_some(_RECEIVE)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    ch.abort(f"receive failed: {exc!r}")
                    continue
                ch.receive_data(data)
                continue
            ch.on_timer()

    def _stop_keepalive(self) -> None:
        if self._keepalive_scope is not None:
            self._keepalive_scope.cancel()

    async def _abort(self) -> None:
        self._stop_keepalive()
        self._ch.abort()
        with trio.CancelScope(shield=True):
            try:
                await self._stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass

    def _check_usable(self) -> None:
        if self._disconnected:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR, "disconnected")
        self._ch.check_usable()

    async def _call_locked(self, call: VB.Call) -> Reply:
        self._check_usable()
        done = False
        try:
            await self._send(self._ch.send_call(call.segment_type, call.hobj, call.body, extra=call.extra,
                                                wait_s=call.wait_s))
            while True:
                event = await self._next_event()
                if type(event) is Reply:
                    done = True
                    return event
        finally:
            if not done and not self._ch.closed:
                # cancelled (or failed) between request and reply: the conversation is out of step
                self._ch.abort("a call was interrupted")
                await self._abort()

    async def _run(self, verb):
        """Run a verb generator (:mod:`qmlite.client.verbs`) to its result, one call at a time."""
        async with self._lock:
            try:
                call = next(verb)
                while True:
                    call = verb.send(await self._call_locked(call))
            except StopIteration as stop:
                return stop.value

    # ------------------------------------------------------------------------------------------
    # MQI verbs
    # ------------------------------------------------------------------------------------------

    async def open(self, od: MQOD, options: int) -> tuple[int, MQOD]:
        """MQOPEN.  Returns (Hobj, the returned MQOD): for a model queue the OD's ObjectName is the
        name of the dynamic queue created."""
        return await self._run(VB.open_(self._ch, od, options))

    async def close(self, hobj: int, options: int = C.MQCO_NONE) -> None:
        """MQCLOSE of an object or subscription handle."""
        await self._run(VB.close(self._ch, hobj, options))

    async def put(self, hobj: int, md: MQMD, pmo: MQPMO, data: bytes) -> tuple[MQMD, MQPMO]:
        """MQPUT.  Returns the MQMD as stored (with the MsgId the server generated) and the MQPMO."""
        return await self._run(VB.put(self._ch, hobj, md, pmo, data))

    async def put1(self, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes) -> tuple[MQMD, MQPMO]:
        """MQPUT1 (open, put, close in one call)."""
        return await self._run(VB.put1(self._ch, od, md, pmo, data))

    async def get(self, hobj: int, md: MQMD, gmo: MQGMO, buffer_length: int) -> tuple[MQMD, MQGMO, bytes]:
        """MQGET.  Returns (the message's MQMD, the returned MQGMO, the data).

        A non-zero CompCode raises MQIError; for 2080 TRUNCATED_MSG_FAILED (message left on the
        queue) and 2079 TRUNCATED_MSG_ACCEPTED (message removed) the exception carries ``md``,
        ``gmo``, ``data_length`` (the full length) and ``data`` (what came back)."""
        return await self._run(VB.get(self._ch, hobj, md, gmo, buffer_length))

    async def inq(self, hobj: int, selectors: list[int], int_attr_count: int,
                  char_attr_length: int) -> tuple[list[int], str]:
        """MQINQ.  Returns (IntAttrs, CharAttrs); CharAttrs keeps each value's blank padding."""
        return await self._run(VB.inq(self._ch, hobj, selectors, int_attr_count, char_attr_length))

    async def set(self, hobj: int, selectors: list[int], int_attrs: list[int], char_attrs: str) -> None:
        """MQSET."""
        await self._run(VB.set_(self._ch, hobj, selectors, int_attrs, char_attrs))

    async def sub(self, sd: MQSD, hobj: int = 0) -> tuple[int, int, MQSD]:
        """MQSUB.  Returns (Hsub, Hobj, the returned MQSD); Hobj is the managed queue's handle with
        MQSO_MANAGED, else the ``hobj`` passed."""
        return await self._run(VB.sub(self._ch, sd, hobj))

    async def subrq(self, hsub: int, action: int, sro: MQSRO) -> MQSRO:
        """MQSUBRQ.  Returns the MQSRO with NumPubs filled."""
        return await self._run(VB.subrq(self._ch, hsub, action, sro))

    async def cmit(self) -> None:
        await self._run(VB.cmit(self._ch))

    async def back(self) -> None:
        await self._run(VB.back(self._ch))

    async def disc(self) -> None:
        """Close the PCF reply queue (if any), MQDISC, end the conversation, close the socket.
        Idempotent; on an already broken connection it only closes the socket."""
        if self._disconnected:
            return
        if not self._ch.connected:
            self._disconnected = True
            await self._abort()
            return
        self._stop_keepalive()
        try:
            for hobj in self._pcf_queues.held():
                try:
                    await self.close(hobj)
                except ConnectionBroken:
                    raise
                except MQIError:
                    pass
            api = await self._run(VB.disc(self._ch))
            async with self._lock:
                self._disconnected = True
                try:
                    await self._stream.send_all(self._ch.end())
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
            VB.raise_if_failed(api, "MQDISC")
        finally:
            self._disconnected = True
            self._stop_keepalive()
            self._ch.abort("disconnected")
            with trio.CancelScope(shield=True):
                try:
                    await self._stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass

    async def aclose(self) -> None:
        await self.disc()

    async def __aenter__(self) -> "AsyncQueueManager":
        return self

    async def __aexit__(self, *exc_info) -> None:
        try:
            await self.disc()
        except MQIError:
            if exc_info[0] is None:
                raise

    # ------------------------------------------------------------------------------------------
    # heartbeats on an idle connection
    # ------------------------------------------------------------------------------------------

    async def _keepalive(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """After HeartbeatInterval seconds without traffic, send a heartbeat request and wait for
        the answer (min(60, interval) seconds); no answer breaks the connection.  Ends when the
        connection does (disc/abort cancel it)."""
        with trio.CancelScope() as scope:
            self._keepalive_scope = scope
            task_status.started()
            await self._keepalive_loop()

    async def _keepalive_loop(self) -> None:
        ch = self._ch
        hb = ch.agreement.heartbeat_interval
        while self.connected:
            await trio.sleep_until(max(ch.last_heard, ch.last_sent) + hb)
            if not self.connected:
                return
            async with self._lock:
                if not self.connected:
                    return
                if trio.current_time() < max(ch.last_heard, ch.last_sent) + hb:
                    continue
                try:
                    await self._heartbeat_exchange(min(60, hb))
                except MQIError:
                    return

    async def _heartbeat_exchange(self, timeout: float) -> None:
        await self._send(self._ch.send_heartbeat_request(timeout))
        while not isinstance(await self._next_event(), HeartbeatAck):
            pass

    async def ping(self, timeout: float = 60.0) -> None:
        """Send a heartbeat request and wait for the server's answer; ConnectionBroken when none
        comes within ``timeout`` seconds."""
        async with self._lock:
            self._check_usable()
            await self._heartbeat_exchange(timeout)

    # ------------------------------------------------------------------------------------------
    # PCF
    # ------------------------------------------------------------------------------------------

    async def pcf(self, command: int, parameters: list, *, wait_ms: int = 5000,
                  cfh_type: int = C.MQCFT_COMMAND_XR) -> list[P.PCFMessage]:
        """Run one PCF command the way pymqi's / ibmmq's PCFExecute does and return every response
        message (see :func:`qmlite.client.verbs.pcf`)."""
        async with self._pcf_lock:
            return await self._run(VB.pcf(self._ch, self._pcf_queues, command, parameters, wait_ms=wait_ms,
                                         cfh_type=cfh_type))


# re-exported for convenience
__all__ += ["MQCHARV", "MQGMO", "MQMD", "MQOD", "MQPMO", "MQSD", "MQSRO"]
