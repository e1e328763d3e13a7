"""One client socket's transport: it moves bytes between the socket and the channel's protocol object.

The FAP conversation itself -- ID exchange, agreement, conversations, heartbeat answers, which segment may
come in which state -- is server/channel.py's ``ServerChannel``, which does no I/O.  This module reads the
socket into it, writes what it has to send, and acts on its events: the ID's queue manager and channel
(routing, the channel instance, the negotiation's answer), MQI calls handed to the MQI, the end of a
conversation, the close.  It keeps the socket's clocks (the opening deadline, the idle watchdog, heartbeats
while a call is held).  It never closes the socket: the listener that spawned its task does, once
(server/listener.py ``_handle``).  A protocol error is answered with a STATUS segment (ERROR|CLOSE_CHANNEL)
and the connection ends; it never affects another connection.
"""

from __future__ import annotations

import math
import os
import time

import trio

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.errors import STATUS, CodecError
from qmlite.pcf.msgchannel import is_requester_id

from qmlite.registry.errors import MQIError
from qmlite.registry.objects import channels as M
from qmlite.registry.objects.channels import Channel
from qmlite.registry.objects.instances import ChannelInstance, ChannelRefused

from . import authentication, coalesce, negotiation, sockio, svrconn
from .channel import (NEED_DATA, Call, ConversationEnded, ConversationRefused, ConversationStarted, Conversation,
                      IdOffered, Ignored, MessageChannelOffered, PeerClosed, ProtocolError, RequestMsgs, ServerChannel)
from .config import ChannelConfig
from .roles import Host
from .tls import check as tls_check

_RECEIVE = 65536
_PROBE_MISSES = 2  # reads right after a reply that found nothing, in a row, before the loop waits first
_PROBE_EVERY = 16  # ... and then one such read in this many calls, to notice a client that pipelines
_WOKEN_PROBE_AFTER = 100e-6  # seconds the woken ran, after which the next request is read before any wait (JN13)
_HELD_LIMIT = 1 << 20  # bytes kept while a call is held (hold): past it the socket is left unread until the end
_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError)


class Closed(Exception):
    """The connection is over (peer closed, STATUS sent, or shut down)."""


def segment_count(data: bytes) -> int:
    """How many TSH segments ``data`` holds (``send`` is given whole segments only): each header
    carries its segment's length, big-endian, after the 4-byte eye-catcher."""
    end = len(data)
    if end >= 8 and int.from_bytes(data[4:8], "big") == end:
        return 1  # one segment (every MQI reply that fits MaxTransmissionSize): no loop (issue 35, HP5)
    count = offset = 0
    while offset + 8 <= end:
        length = int.from_bytes(data[offset + 4:offset + 8], "big")
        if length <= 0:
            break
        offset += length
        count += 1
    return count


class Connection:
    def __init__(self, server: Host, stream, conn_no: int, logger, *, raw: trio.SocketStream | None = None,
                 tls=None, opening_deadline: float = math.inf) -> None:
        self.server = server
        self.cfg = server.cfg
        self.stream = stream  # the socket stream, or the TLS stream over it
        self.raw = raw if raw is not None else stream  # the socket itself (addresses)
        self.tls = tls  # server.tls.Negotiated when the client connected with TLS
        self.conn_no = conn_no
        self.log = logger
        self.ch = ServerChannel()  # the FAP conversation's rules and state (server/channel.py)
        self.channel: ChannelConfig | None = None
        self.definition: Channel | None = None  # the registry's channel, as it was at the first ID
        self.instance: ChannelInstance | None = None  # this socket as the status commands see it
        # The queue manager the first ID named when only its first authenticated MQCONN may create it
        # (create-on-connect, NM5): its name and QMID as the ID exchange gave them; None otherwise.
        self.pending: negotiation.ServerIdentity | None = None
        self._sending = False  # a send in progress; others park below (a trio.Lock yields even when free)
        self._out: list[bytes] | None = None  # replies held until the loop's batch of tasks is done (HP10)
        self._out_bytes = 0
        self._coalescer: coalesce.Coalescer | None = None  # this trio run's, from the first send
        self._send_turn = trio.lowlevel.ParkingLot()
        self._closed = False
        self.started = time.monotonic()
        self.nursery: trio.Nursery | None = None
        # The opening exchange's deadline (trio time, from accept: ServerConfig.opening_timeout): lifted
        # once an MQCONN is answered on the socket (``opened``), else the connection ends there.
        self._opening = trio.CancelScope(deadline=opening_deadline)
        self._watchdog: trio.CancelScope | None = None  # the read loop's idle limit (moved by ``hold`` too)
        self._held = bytearray()  # bytes read while a call was held, served before the socket is read again
        self._wakes_seen = 0  # QueueActivity.wakes when this connection last let the woken run
        # The plain TCP socket under the stream, read and written directly (decision HP1); None for a
        # TLS stream or anything else (tests' memory streams), which keep the stream's own methods.
        # (POSIX only: elsewhere a socket is not a file descriptor os.read and os.write accept.)
        self._sock = stream.socket if type(stream) is trio.SocketStream and tls is None and sockio.POSIX else None

    # ---- life cycle ------------------------------------------------------------------------------
    async def run(self, first: bytes = b"") -> None:
        """Serve the connection; ``first``: bytes the listener already read from it."""
        # The end of a connection arrives bare from the read loop or grouped from a nursery task
        # (trio groups what escapes a nursery); except* treats both alike, anything else is a bug.
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                try:
                    with self._opening:
                        if first:
                            await self._received(first)
                            first = b""  # not kept for the connection's lifetime
                        await self._read_loop()
                    if self._opening.cancelled_caught:
                        self._opening_timed_out()
                finally:
                    nursery.cancel_scope.cancel()
        except* (Closed, trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError):
            pass
        finally:
            try:
                await self._drain_out()
            finally:
                await self._cleanup()

    def opened(self) -> None:
        """An MQCONN was answered on this socket: its opening exchange is over, the deadline lifted."""
        self._opening.deadline = math.inf
        self.ch.opened()

    def _opening_timed_out(self) -> None:
        # The client, if still there, sees the socket close.
        self.log.warning("channel_timeout", phase="opening", seconds=self.cfg.opening_timeout,
                         channel=self._channel_name(), message=self._timed_out())

    def _timed_out(self) -> str:
        # IBM's channel that receives nothing in time ends with AMQ9271E (the channel name '????' when
        # the socket never named one).
        return f"AMQ9271E: Channel '{self._channel_name() or '????'}' timed out."

    async def _read_loop(self) -> None:
        if self._sock is not None:
            await self._socket_read_loop(self._sock)
            return
        # One watchdog for the connection: each read only moves its deadline (a scope per read
        # costs more than the read itself on a busy connection).
        with trio.CancelScope() as watchdog:
            self._watchdog = watchdog
            while not self._closed:
                if self._held:
                    data, self._held = bytes(self._held), bytearray()
                else:
                    watchdog.deadline = trio.current_time() + self._idle_limit()
                    data = await self.stream.receive_some(_RECEIVE)
                    if not data:
                        return
                await self._received(data)
                if self.server.mqi.activity.wakes != self._wakes_seen:
                    await self._let_woken_run()  # as below: a TLS stream reads its socket directly too (HP7)
        if watchdog.cancelled_caught:
            self.log.info("channel_timeout", seconds=self._idle_limit(), channel=self._channel_name(),
                          message=self._timed_out())

    async def _socket_read_loop(self, sock) -> None:
        """The read loop of a plain TCP connection, on the socket itself (issue 24, decision HP1).

        A read is tried before any wait: a request already there costs no trip through trio's
        scheduler, and a waiting one costs exactly one (``wait_readable``) -- except for a client whose
        next request is never there yet when its reply has gone (a ping-pong client): its loop tries the
        read once more after one pass through the scheduler, when the other connections' calls have given
        the client time to send (a late probe: no ``epoll_ctl`` re-registration of the socket, decision
        SP3), and when that finds nothing too, waits first and probes now and then (decision SP1).  trio's SocketStream
        pays two more per call (the checkpoint after each receive and after each send), which on a
        ping-pong connection were a third of the server's time.  The idle watchdog is the same as
        the stream loop's: it only moves before a wait, by at least a second at a time, so a silent
        peer ends between the limit and a second past it.  Every wait is a checkpoint, and a run of
        requests that never waits passes one every ``sockio.FAIR_RUN`` reads: the loop stays cancellable,
        and one busy client cannot hold the loop."""
        read, clock = os.read, time.perf_counter
        # Armed from the start: a peer that stops part-way through its first header is closed too.
        with trio.CancelScope(deadline=trio.current_time() + self._idle_limit()) as watchdog:
            self._watchdog = watchdog
            run = 0
            wait_first = False  # wait before reading (the read would find nothing: a wait, or a doomed probe)
            probe = False  # the next read is the one tried right after serving a request
            misses = 0  # such reads in a row that found nothing (decision SP1)
            skipped = 0
            late = False  # the next read is tried after one pass through the scheduler (a late probe)
            late_probe = False  # the read being tried is that late probe
            late_again = False  # ... and, if it finds nothing, once more after another (a held reply: HP10)
            late_misses = 0  # late probes in a row that found nothing
            woken_probe = False  # the read being tried is the one right after the woken ran (not a probe)
            while not self._closed:
                fd = sock.fileno()
                if fd < 0:
                    raise trio.ClosedResourceError("the socket was closed")
                if late:  # a pass through the scheduler, then the read from the top (the socket checked again)
                    late = False
                    late_probe = True
                    await trio.lowlevel.cancel_shielded_checkpoint()
                    continue
                if wait_first:
                    wait_first = False
                    if self._held:  # read while the last call was held: served before any wait
                        continue
                    if self.server.committer.sync_idle():  # the loop falls idle here: the sync, then read (JN15)
                        continue
                    limit = trio.current_time() + self._idle_limit()
                    if watchdog.deadline < limit:
                        watchdog.deadline = limit + 1.0
                    run = 0
                    await trio.lowlevel.wait_readable(fd)
                    continue
                try:
                    if self._held:  # read while a call was held (hold): served first, in order
                        data, self._held = bytes(self._held), bytearray()
                    else:
                        data = read(fd, _RECEIVE)
                except BlockingIOError:
                    if woken_probe:
                        woken_probe = False
                        wait_first = True
                        continue
                    if probe:
                        probe = False
                        misses += 1
                    if late_probe:
                        late_probe = False
                        if late_again:  # the reply left as the pass ended (HP10): the answer may come a pass later
                            late_again = False
                            late = True
                            continue
                        late_misses += 1
                    wait_first = True
                    continue
                except OSError as exc:
                    if isinstance(exc, ConnectionError):
                        raise
                    raise trio.BrokenResourceError(str(exc)) from exc
                if not data:
                    return
                woken_probe = False
                if probe:  # a request was already there when the last one was served: keep probing
                    probe = False
                    misses = 0
                if late_probe:
                    late_probe = False
                    late_again = False
                    late_misses = 0
                run += 1
                if run >= sockio.FAIR_RUN:
                    run = 0
                    # a client served without a wait for a long while is not idle: its watchdog moves here too
                    limit = trio.current_time() + self._idle_limit()
                    if watchdog.deadline < limit:
                        watchdog.deadline = limit + 1.0
                    await trio.lowlevel.checkpoint()
                await self._received(data)
                if self.server.mqi.activity.wakes != self._wakes_seen:
                    began = clock()
                    await self._let_woken_run()
                    if clock() - began >= _WOKEN_PROBE_AFTER:
                        # The woken ran long (a command server's batch): the client has had that long to send
                        # its next request (PCFExecute's MQCLOSE after the command's MQPUT), so it is read
                        # before any wait -- a miss costs one failed read, a wait a trip through epoll.  Not
                        # counted as a probe: a ping-pong client's other calls still wait first (decision JN13).
                        woken_probe = True
                        continue
                # A ping-pong client sends its next request only after it has read this reply: a read
                # tried now finds nothing (a failed system call and an exception per call).  Once
                # _PROBE_MISSES such reads in a row found nothing, try it late: after one pass through
                # the scheduler, when the connections served meanwhile gave the client time to answer
                # -- a wait costs trio an epoll_ctl to re-register the socket (EPOLLONESHOT), a late
                # read that finds the request costs none (decision SP3).  Once late reads miss too (a
                # lone ping-pong client), wait first -- trio's epoll reports a request already there at
                # once -- and try both again one call in _PROBE_EVERY, so a client that starts to
                # pipeline, or a server that gets busy, is read eagerly again (decision SP1).
                if misses < _PROBE_MISSES:
                    probe = True
                elif late_misses < _PROBE_MISSES and len(self.server.connections) > 1:
                    late = True  # (alone, nobody's calls give the client the time: no late probes)
                    late_again = self._out is not None  # a held reply leaves only as the pass ends
                else:
                    skipped += 1
                    if skipped >= _PROBE_EVERY:
                        skipped = 0
                        probe = True
                        late_misses = _PROBE_MISSES - 1
                    else:
                        wait_first = True
        if watchdog.cancelled_caught:
            self.log.info("channel_timeout", seconds=self._idle_limit(), channel=self._channel_name(),
                          message=self._timed_out())

    async def _let_woken_run(self) -> None:
        """The call (or another connection's) woke the command server or a waiting GET: they act before
        this connection's next request, as they did behind trio's stream, which passed a checkpoint after
        each send and after each receive.  Two here for the same reason: whatever order trio runs the
        next batch in, a task woken now runs before this one reads again."""
        self._wakes_seen = self.server.mqi.activity.wakes
        await trio.lowlevel.cancel_shielded_checkpoint()
        await trio.lowlevel.cancel_shielded_checkpoint()

    async def _received(self, data: bytes) -> None:
        """Hand what the socket read to the channel and act on its events, in order."""
        ch = self.ch
        # One whole call with nothing before it (nearly every read) is taken in one step (HP8): the loop
        # below serves it as the Call it would have met first, then finds NEED_DATA as it would have.
        whole = None if self._closed else ch.whole_call(data)
        if whole is None:
            ch.receive_data(data)
        while not self._closed:
            if whole is not None:
                conv, seg, call = whole
                whole = None
            else:
                event = ch.next_event()
                if ch.outgoing:  # the channel's own answers go before anything the event sends
                    if type(event) is ProtocolError:
                        await self._send_quietly(ch.data_to_send())
                    else:
                        await self.send(ch.data_to_send())
                if event is NEED_DATA:
                    return
                if type(event) is not Call:  # a call is nearly every event: no trip through _act (HP3)
                    await self._act(event)
                    continue
                conv, seg, call = event.conversation, event.segment, None
            try:
                await self.server.mqi.call(self, conv, seg, fap.decode_call(seg) if call is None else call)
            except CodecError as exc:
                if exc.family != STATUS:
                    raise
                await self.fail(exc.reason, conv_id=seg.header.ConversationId, detail=exc.detail)

    async def _act(self, event) -> None:
        """What the transport does for one of the channel's events other than a call."""
        kind = type(event)
        if kind is ProtocolError:
            self._protocol_error(event)
        elif kind is IdOffered:
            await self._id_offered(event)
        elif kind is MessageChannelOffered:
            await self._message_channel(event)
        elif kind is RequestMsgs:
            seg = event.segment
            try:
                await self.server.mqi.request_msgs(self, seg)
            except CodecError as exc:
                if exc.family != STATUS:
                    raise
                await self.fail(exc.reason, conv_id=seg.header.ConversationId, detail=exc.detail)
        elif kind is ConversationStarted:
            self._count_conversations()
        elif kind is ConversationEnded:
            self._count_conversations()
            if event.conversation is not None:
                await self.end_conversation(event.conversation)
            if event.last:
                self._closed = True  # the client closes the socket after its last conversation
        elif kind is ConversationRefused:
            self.log.warning("conversation_refused", conversation=event.conv_id, limit=event.limit)
        elif kind is PeerClosed:
            self.log.info("peer_closed", channel=self._channel_name())
            self._closed = True
        elif kind is Ignored:
            self.log.info("socket_action_ignored", type=event.value)

    def _idle_limit(self) -> float:
        # A silent peer is dead after twice the heartbeat interval (plus slack for slow clients); before
        # the ID exchange agrees one, twice 60 s.  HBINT(0) agreed: no heartbeats, so silence says
        # nothing and there is no limit (IBM's receive timeout is twice HBINT; decision CX2).
        agreement = self.ch.agreement
        hb = agreement.heartbeat_interval if agreement else 60
        if hb <= 0:
            return math.inf
        return hb * 2 + 30

    async def hold(self, scope: trio.CancelScope) -> None:
        """Wait, inside ``scope``, before a call's reply leaves (a fault rule's DELAY: its deadline
        ends the wait, and a release -- the rule deleted, RESET QMLITE, Stop Connection -- cancels it),
        still reading the socket meanwhile: what the client sends is kept, in order, for the read loop;
        its end (EOF, reset) ends the connection now, so a client killed while its call waits frees its
        slot at once.  The client is sent a heartbeat every HBINT, as during a waiting GET (docs/reference/fap.md 22);
        its answers move the idle watchdog, which ends a peer that stops answering."""
        beat = self.ch.agreement.heartbeat_interval if self.ch.agreement else 0
        with scope:
            next_beat = trio.current_time() + beat if beat > 0 else math.inf
            while True:
                with trio.move_on_at(next_beat):
                    data = await self._read_while_held()
                    if not data:
                        self.log.info("peer_closed", channel=self._channel_name(), during="held call")
                        self._closed = True
                        raise Closed
                    self._held += data  # counted in channel status when the read loop serves it
                    if self._watchdog is not None:
                        self._watchdog.deadline = max(self._watchdog.deadline,
                                                      trio.current_time() + self._idle_limit())
                    continue
                await self.send_heartbeat()
                next_beat = trio.current_time() + beat

    async def _read_while_held(self) -> bytes:
        """One read for ``hold`` (b"": the peer is gone).  Past ``_HELD_LIMIT`` kept bytes nothing more
        is read: the wait goes on unwatched, as a client that floods a waiting call is no killed one."""
        if len(self._held) >= _HELD_LIMIT:
            await trio.sleep_forever()
        sock = self._sock
        if sock is None:
            return await self.stream.receive_some(_RECEIVE)
        while True:
            fd = sock.fileno()
            if fd < 0:
                raise trio.ClosedResourceError("the socket was closed")
            await trio.lowlevel.wait_readable(fd)
            try:
                return os.read(fd, _RECEIVE)
            except BlockingIOError:
                continue
            except ConnectionError:
                raise
            except OSError as exc:
                raise trio.BrokenResourceError(str(exc)) from exc

    async def _cleanup(self) -> None:
        """Release what the connection holds in the domain.  The socket is the listener's to close."""
        self._closed = True
        self.ch.close()
        conversations = self.ch.conversations
        for conv in list(conversations.values()):
            await self.end_conversation(conv)
        conversations.clear()
        if self.instance is not None:
            self.server.registry.running.end_instance(self.instance)

    def summary(self) -> dict:
        return {"channel": self._channel_name(), "segments": self.ch.segments_in,
                "seconds": round(time.monotonic() - self.started, 3)}

    def _channel_name(self) -> str | None:
        return self.channel.name if self.channel else None

    async def refuse(self, *, quiescing: bool) -> None:
        """Answer a connection we cannot take (listener limits, quiescing); the listener then closes it."""
        code = fap.QM_TERMINATING if quiescing else fap.MAX_CONNS_LIMIT_REACHED
        try:
            await self.stream.send_all(fap.status_segment(code))
        except _BROKEN:
            pass

    async def quiesce(self, *, reconnect: bool = False) -> None:
        """The queue manager is ending: tell the client, as a real one does, before we go.  Without
        ``reconnect`` a STATUS QM_TERMINATING (reconnectable clients do not come back, as after
        ``endmqm``); with it (``endmqm -r``) a SOCKET_ACTION RECONNECT_CLIENTS on each conversation,
        naming this queue manager, and no STATUS: reconnectable clients connect again, the others see
        the connection broken (docs/reconnect.md, decision Z4)."""
        if self._closed:
            return
        if reconnect:
            me = self.server.identity
            await self._send_quietly(self.ch.reconnect_request(me.qmgr_name, me.qmgr_id))
        else:
            await self._send_quietly(self.ch.status(fap.QM_TERMINATING))
        self._closed = True
        self.ch.close()
        self.log.info("quiesce", reconnect=reconnect, channel=self._channel_name())

    # ---- sending ---------------------------------------------------------------------------------
    async def send(self, data: bytes) -> None:
        """Whole segments only: background waiters and the read loop must never interleave bytes."""
        coalescer = self._coalescer
        if coalescer is None:
            coalescer = self._coalescer = coalesce.of_this_run()
        coalescer.replies += 1  # counted when asked for, held or not (server/durability.py, JN9)
        while self._sending:
            await self._send_turn.park()
        counts = self.ch.counts  # the channel instance once it exists
        counts.bytes_sent += len(data)
        # one segment (every reply that fits MaxTransmissionSize): segment_count's first answer, without the call (HP9)
        n = len(data)
        counts.buffers_sent += 1 if n >= 8 and int.from_bytes(data[4:8], "big") == n else segment_count(data)
        sock = self._sock
        if sock is not None:
            # A reply after another in the same batch of the loop's tasks (another connection's, or this
            # one's) is held until the batch is done, and leaves with the batch's others
            # (server/coalesce.py, HP10): a client with many connections is woken once a batch, not once a
            # reply.  The batch's first reply leaves at once: a lone client's reply is never held.  Held
            # or not, no await: nobody else's bytes can come between.
            out = self._out
            if out is not None:
                if self._out_bytes + n <= coalesce.HOLD_LIMIT:
                    out.append(data)
                    self._out_bytes += n
                    return
                self._out = None  # too much to hold: what is held leaves now, this reply after it
                data = b"".join((*out, data))
            else:
                if coalescer.sent and n <= coalesce.HOLD_LIMIT and not self._closed:
                    self._out = [data]
                    self._out_bytes = n
                    coalescer.holding.append(self)
                    return
                coalescer.sent = True
            # A plain socket is written directly (HP1): a reply it takes whole (the usual case) costs
            # one system call and no trip through the scheduler.  What it does not take waits for room
            # below, in turn.
            sent = sockio.write(sock, data)
            if sent == len(data):
                return
            data = memoryview(data)[sent:]
        self._sending = True
        try:
            if sock is None:
                await self.stream.send_all(data)
            else:
                await sockio.send_rest(sock, data)
        finally:
            self._sending = False
            if self._send_turn:
                self._send_turn.unpark()

    def flush_out(self) -> None:
        """Write the replies this connection holds: the coalescer's call, as the loop's batch ends (HP10).
        It never raises and never wakes a task (trio calls it just before it waits): what the socket does
        not take now, or the error it gives, goes to a task of the connection's own, through trio's token,
        and later replies wait behind it."""
        out = self._out
        if out is None:
            return  # sent meanwhile with a reply too large to hold
        self._out = None
        data = out[0] if len(out) == 1 else b"".join(out)
        try:
            sent = sockio.write(self._sock, data)
            if sent == len(data):
                return
            rest, error = memoryview(data)[sent:], None
        except Exception as exc:  # a broken or closed socket: the connection ends as a send's error ends it
            rest, error = None, exc
        self._sending = True
        trio.lowlevel.current_trio_token().run_sync_soon(self._finish_out, rest, error)

    def _finish_out(self, rest, error) -> None:
        # Run by trio's token on the loop's thread, where an exception would end the whole run.
        try:
            self.nursery.start_soon(self._send_out_rest, rest, error)
        except Exception:  # the connection has ended (its nursery closed): nobody is left to answer
            self._sending = False
            if self._send_turn:  # a send from another task (the command server's) waits no more
                self._send_turn.unpark()

    async def _send_out_rest(self, rest, error) -> None:
        try:
            if error is not None:
                raise error
            await sockio.send_rest(self._sock, rest)
        finally:
            self._sending = False
            if self._send_turn:
                self._send_turn.unpark()

    async def _drain_out(self) -> None:
        """What the connection still holds leaves before its socket is closed or handed on: a STATUS sent
        just before the end, the replies of the calls before a fault's break.  (The nursery's exit is a
        checkpoint in trio today, and its batch's end flushes them too; this does not rely on that.)"""
        out = self._out
        if out is None:
            return
        self._out = None
        data = b"".join(out)
        try:
            sent = sockio.write(self._sock, data)
            if sent != len(data):
                await sockio.send_rest(self._sock, memoryview(data)[sent:])
        except _BROKEN:
            pass

    async def _send_quietly(self, data: bytes) -> None:
        """``send`` for a channel that is ending: a peer already gone changes nothing."""
        try:
            await self.send(data)
        except _BROKEN:
            pass

    async def send_heartbeat(self) -> None:
        await self.send(self.ch.heartbeat_request())

    @property
    def agreement(self):
        return self.ch.agreement

    @property
    def multiplexed(self) -> bool:
        return self.ch.multiplexed

    async def abort(self) -> None:
        """Drop the connection without a word, as a network failure would (a fault rule's BREAK): nothing
        more is sent, and the listener closes the socket as the connection ends."""
        self._closed = True
        self.ch.close()
        raise Closed

    async def fail(self, code: int, *, conv_id: int = 0, detail: str = "") -> None:
        """A fatal protocol error: STATUS with ERROR|CLOSE_CHANNEL, then the connection ends."""
        event = self.ch.refuse(code, conv_id=conv_id, detail=detail)
        await self._send_quietly(self.ch.data_to_send())
        self._protocol_error(event)

    def _protocol_error(self, event: ProtocolError) -> None:
        """The channel ended with a STATUS (sent): log it, and end the connection."""
        self.log.warning("channel_error", reason=fap.status_code_name(event.code) or event.code, detail=event.detail,
                         channel=self._channel_name())
        self._closed = True
        raise Closed

    # ---- the ID exchange: which queue manager, which channel, what to answer -----------------------
    async def _id_offered(self, offer: IdOffered) -> None:
        client = offer.client
        if self.instance is None:
            await self._route(client.QMgrName)
            await self._start_instance(client.ChannelName)
        channel = self.channel
        reply, agreement = negotiation.answer(client, channel, self.pending or self.server.identity,
                                              max_fap=self._max_fap(channel))
        self.ch.agree(offer, reply, agreement)
        await self.send(self.ch.data_to_send())
        if not agreement.accepted:
            return
        self.log.info("channel_started", channel=channel.name, fap=agreement.fap_level,
                      sharecnv=agreement.sharing_conversations, max_tr=agreement.max_transmission_size,
                      max_msg=agreement.max_message_size)
        instance = self.instance
        instance.max_sharing = agreement.sharing_conversations
        instance.heartbeat_interval = agreement.heartbeat_interval
        instance.max_msg_length = agreement.max_message_size
        product = client.ProductId.rstrip(" \x00")  # e.g. MQCC09030000: RPRODUCT MQCC, RVERSION 09030000
        instance.remote_product, instance.remote_version = product[:4], product[4:12]
        self._count_conversations()

    async def _route(self, qmgr_name: str) -> None:
        """Hand this connection to the queue manager its first ID names (docs/multiqm.md): the client
        puts MQCONN's QMgrName there, so the channel, the negotiation and every MQI call that follows
        are that queue manager's.  A name none is hosted under stays with the default, whose MQCONN
        then answers MQRC_Q_MGR_NAME_ERROR (2058), as a queue manager with another name does."""
        name = (qmgr_name or "").rstrip(" \x00")  # blanks pad the field; any other character is the name's
        target = await self.server.route(name, self.log)
        if target is None:
            self.pending = self.server.pending(name)  # created, if at all, by an authenticated MQCONN
            self.log.info("pending_qmgr" if self.pending else "unknown_qmgr", qmgr=name)
            return
        self._move(target)

    def _move(self, target: Host) -> None:
        if target is not self.server:
            self.server.connections.discard(self)
            self.server, self.cfg = target, target.cfg
            target.connections.add(self)
            self.log.info("routed", qmgr=target.qm.registry.qmgr.name)

    # ---- a message channel's first ID: the socket is the message channel agent's ---------------------
    async def _message_channel(self, offer: MessageChannelOffered) -> None:
        """A queue manager's channel agent started a channel here: the receiving channel (RCVR, RQSTR) its
        ID names gets the socket, served by server/mca/ until the channel ends; the socket stays the
        listener's to close.  Routed by the channel named: a message channel's ID names the queue manager
        sending it (decision MCA18).  An unknown channel is STATUS NO_CHANNEL, one of another type
        (a SVRCONN, a sender) STATUS CHANNEL_WRONG_TYPE, as a client's ID naming a receiver is."""
        name = offer.client.ChannelName.rstrip(" \x00")
        requester = is_requester_id(offer.client)
        self._move(await self.server.route_channel(name, requester=requester))
        reg = self.server.registry
        definition = reg.objects(M.KIND).get(name)
        if definition is None or definition.channel_type not in (M.ANSWERING if requester else M.RECEIVING):
            why = ("unknown channel" if definition is None
                   else "not a server or sender channel" if requester else "not a receiving channel")
            self.log.warning("unknown_channel" if definition is None else "wrong_channel_type", channel=name,
                             partner=offer.client.QMgrName.rstrip(" \x00"))
            reg.diagnostics.channel_refused(channel=name, address=self.peer_address, why=why)  # error log
            await self.fail(fap.NO_CHANNEL if definition is None else fap.CHANNEL_WRONG_TYPE, detail=why)
        await self._message_channel_tls(definition)
        # The agent's own clocks rule from here: what is left of the opening deadline until its ID exchange
        # agrees, then its receive timeout (HBINT); not the client's idle watchdog.  Quiesce leaves it to
        # the server's cancellation (``_closed``).
        opening = max(0.0, self._opening.deadline - trio.current_time())
        self._opening.deadline = math.inf
        if self._watchdog is not None:
            self._watchdog.deadline = math.inf
        self._closed = True
        self.log.info("message_channel", channel=name, qmgr=reg.qmgr.name, type=definition.channel_type)
        await self._drain_out()  # the agent writes the socket itself from here
        from .mca import run as mca  # the agents load at their first use (decision MCA17)

        if requester:
            from .mca.requester import serve_requester

            await serve_requester(self.stream, offer.data, self.server, definition, peer=self.peer_address,
                                  opening_timeout=opening, tls=self.tls)
            return
        await mca.serve_message_channel(self.stream, offer.data, self.server, definition, peer=self.peer_address,
                                        opening_timeout=opening, tls=self.tls)

    async def _message_channel_tls(self, definition) -> None:
        """A receiving channel's TLS rules, as a SVRCONN's (SSLCIPH, SSLCAUTH, SSLPEER): a refusal is its
        STATUS, the error log's entry and the Channel SSL Error event (server/mca/security.py)."""
        refusal = tls_check(definition, self.tls)
        if refusal is None:
            return
        from .mca import security

        self.log.warning("channel_tls_refused", channel=definition.name, reason=fap.status_code_name(refusal.code),
                         message=refusal.message)
        self.server.registry.diagnostics.tls_refused(channel=definition.name, address=self.peer_address,
                                                     refusal=refusal)
        security.refused(self.server.qm, definition, refusal, self.peer_address)
        await self.fail(refusal.code, detail=refusal.message)

    async def _start_instance(self, name: str) -> None:
        """The registry's channel, and this socket as one of its instances: refused (STATUS, then
        close) for an unknown channel, one of another type, or one stopped or at its instance limits."""
        reg = self.server.registry
        try:
            self.channel, self.definition = svrconn.resolve(self.cfg, reg, name)
            refusal = tls_check(self.definition, self.tls)
            if refusal is not None:
                self.log.warning("channel_tls_refused", channel=name, reason=fap.status_code_name(refusal.code),
                                 message=refusal.message)
                reg.diagnostics.tls_refused(channel=name, address=self.peer_address, refusal=refusal)  # error log
                await self.fail(refusal.code, detail=refusal.message)
            self.instance = reg.running.start_instance(self.definition, self.peer_address, reg.now())
            self._instance_started(self.instance)
        except svrconn.Refused as exc:
            self.log.warning("unknown_channel" if exc.code == fap.NO_CHANNEL else "wrong_channel_type", channel=name)
            reg.diagnostics.channel_refused(channel=name, address=self.peer_address,  # error log
                                            why="unknown channel" if exc.code == fap.NO_CHANNEL else exc.detail)
            await self.fail(exc.code, detail=exc.detail)
        except ChannelRefused as exc:
            self.log.warning("channel_refused", channel=name, reason=exc.why)
            reg.diagnostics.channel_refused(channel=name, address=self.peer_address, why=exc.why,  # error log
                                            definition=self.definition)
            await self.fail(fap.CHANNEL_UNAVAILABLE, detail=exc.why)  # the client's MQRC_CHANNEL_NOT_AVAILABLE
        self.instance.on_stop = self._stop_requested
        if self.tls is not None:
            self.tls.show(self.instance)

    def move_to(self, target: Host) -> None:
        """Hand this connection to the queue manager its first authenticated MQCONN just created
        (``pending``): its channel instance moves there with what it counted so far.  MQIError 2059
        when that queue manager refuses the channel (stopped, at its limits, its TLS rules)."""
        old = self.server
        try:
            _, definition = svrconn.resolve(target.cfg, target.registry, self.channel.name)
            if tls_check(definition, self.tls) is not None:
                raise ChannelRefused("TLS")
            instance = target.registry.running.start_instance(definition, self.peer_address, target.registry.now(),
                                                              carried=self.instance)
        except (svrconn.Refused, ChannelRefused) as exc:
            raise MQIError(C.MQRC_Q_MGR_NOT_AVAILABLE, C.MQCC_FAILED) from exc
        old.registry.running.end_instance(self.instance)
        old.connections.discard(self)
        target.connections.add(self)
        self.server, self.cfg, self.definition, self.instance = target, target.cfg, definition, instance
        self.pending = None
        self.log.info("routed", qmgr=target.qm.registry.qmgr.name, created=True)

    def _count_conversations(self) -> None:
        if self.instance is not None:
            self.instance.conversations = len(self.ch.conversations)

    def _stop_requested(self) -> None:
        """Stop Channel ended this instance (called in the command server's turn, on the loop)."""
        if self.nursery is not None and not self._closed:
            self.nursery.start_soon(self._stop_by_admin)

    async def _stop_by_admin(self) -> None:
        # The client learns at its next call: STATUS USER_CLOSED, which a connected client reports
        # as MQRC_CONNECTION_BROKEN (docs/reference/fap.md section 9), then the socket closes.
        self.log.info("channel_stopped", channel=self._channel_name())
        await self._send_quietly(self.ch.status(fap.USER_CLOSED))
        self._closed = True
        self.ch.close()
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    def _instance_started(self, instance: ChannelInstance) -> None:
        """The instance takes over the socket's counts so far (the segment being dispatched included), and
        counts every later byte and segment: the channel is handed it as its counts."""
        counts = self.ch.counts
        instance.bytes_received = counts.bytes_received
        instance.buffers_received = counts.buffers_received
        instance.bytes_sent = counts.bytes_sent
        instance.buffers_sent = counts.buffers_sent
        self.ch.counts = instance
        instance.local_address = self.local_address
        instance.process_id = os.getpid()

    @property
    def local_address(self) -> str:
        """Our end of the socket as channel status shows LocalAddress: host(port)."""
        try:
            host, port = self.stream.socket.getsockname()[:2]
        except (OSError, AttributeError, ValueError):
            return ""
        return f"{host}({port})"

    @property
    def peer_address(self) -> str:
        """The client's network address, as channel status reports ConnectionName."""
        try:
            return str(self.raw.socket.getpeername()[0])
        except (OSError, AttributeError, IndexError, TypeError):
            return ""  # not a socket (tests' memory streams): only "*" address rules match it

    def _max_fap(self, channel: ChannelConfig) -> int:
        # FAP 13 brings password protection whose algorithm is not public (docs/reference/fap.md section 8); where a
        # password must be checked we agree FAP 12, at which clients send it in clear.
        required = authentication.password_required(self.cfg, channel, self.definition)
        return 12 if required else negotiation.MAX_FAP_LEVEL

    # ---- conversations and calls -------------------------------------------------------------------
    def conversation(self, conv_id: int) -> Conversation | None:
        return self.ch.conversation(conv_id)

    @property
    def conversations(self) -> dict[int, Conversation]:
        return self.ch.conversations

    async def end_conversation(self, conv: Conversation) -> None:
        """Release everything a conversation holds (handles, temporary queues); an unfinished unit of
        work is backed out, as for an application that ends without MQDISC."""
        await self.server.mqi.disconnect(self, conv)

    def authenticate(self, conv: Conversation, appl_name: str = "", appl_type: int = 0) -> tuple[int, str, bool]:
        """(MQRC, user, admin) for a connect on this channel: connection authentication (the developer
        container's passwords; none when the queue manager's CONNAUTH is blank), then the channel
        authentication records, which say whether the client may use the channel and as whom.  A
        refusal is reported to the domain's events (authority type 1, Channel Blocked)."""
        user = conv.auth_user if conv.auth_user is not None else conv.user_id
        password = conv.auth_password if conv.auth_password is not None else conv.uid_password.encode()
        server = self.server
        verdict = authentication.authenticate(server.cfg, server.qm.registry, server.qm.events, self.log,
                                              channel=self.channel, definition=self.definition, user=user,
                                              password=password, peer_host=self.peer_address, tls=self.tls)
        if verdict.reason == C.MQRC_NOT_AUTHORIZED and verdict.qualifier:
            server.qm.events.not_authorized_connect(
                user=user or "", appl_type=appl_type, appl_name=appl_name, channel=self.channel.name,
                conname=self.peer_address, qualifier=verdict.qualifier, csp_user=user or "")
        return verdict.reason, verdict.user, verdict.admin
