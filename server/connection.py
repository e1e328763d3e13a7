"""One client socket: framing, ID negotiation, conversations, heartbeats, and MQI dispatch.

The order of events on a connection (docs/reference/fap.md sections 6-12, 21, 22, 28): INITIAL_DATA until both sides
agree, then per conversation USERID_DATA (no reply), optionally CONAUTH_INFO, MQCONN, MQI calls,
MQDISC.  On a multiplexed connection (SharingConversations > 0) every segment after the first ID
exchange is TSHM, further conversations start with SOCKET_ACTION START_CONV, and replies travel on the
request's ConversationId and RequestId.  A protocol error is answered with a STATUS segment
(ERROR|CLOSE_CHANNEL) and the socket is closed; it never affects another connection.
"""

from __future__ import annotations

import dataclasses
import hmac
import math
import os
import time
from typing import TYPE_CHECKING

import trio

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.errors import STATUS, CodecError
from qmlite.pcf.framer import Framer, Reassembler

from qmlite.registry.errors import MQIError
from qmlite.registry.security import authrecs
from qmlite.registry.security import chlauth
from qmlite.registry.monitoring import events
from qmlite.registry.objects.channels import Channel
from qmlite.registry.objects.instances import ChannelInstance, ChannelRefused
from qmlite.registry.messaging.sessions import Session

from qmlite.pcf import dn

from . import negotiation, svrconn
from .tls import check as tls_check
from .config import ADMIN_USER, APP_USER, ChannelConfig

if TYPE_CHECKING:
    from .listener import QueueManagerServer

_RECEIVE = 65536
# MQI requests: types 0x80 and up without the REPLY bit (fap.is_mqi_type and not a reply)
_MQI_REQUEST_MASK, _MQI_REQUEST = 0x80 | fap.REPLY, 0x80
_FAIR_RUN = 32  # reads served in a row without a wait before the loop yields to other connections
_POSIX = os.name == "posix"
_MAX_ID_ROUNDS = 3  # real clients give up after ten; we always converge in one
_HELD_LIMIT = 1 << 20  # bytes kept while a call is held (hold): past it the socket is left unread until the end
_REPLY_ENC, _REPLY_CCSID = C.MQENC_NATIVE, 819  # the real x86 server's own values (docs/reference/fap.md section 4)
# Users the default channel authentication rule BLOCKUSER(*MQADMIN) keeps off every channel but the
# administrators' own: an MCAUSER naming one is refused (docs/reference/container.md CHLAUTH).
PRIVILEGED = frozenset({ADMIN_USER, "mqm"})


class Closed(Exception):
    """The connection is over (peer closed, STATUS sent, or shut down)."""


@dataclasses.dataclass(slots=True)
class Conversation:
    """Per-conversation state: what the client said about itself, and its session once connected."""

    conv_id: int
    user_id: str = ""  # from USERID_DATA
    uid_password: str = ""  # the UID's compatibility-mode password field
    auth_user: str | None = None  # from CONAUTH_INFO
    auth_password: bytes | None = None
    session: Session | None = None  # the queue manager's view of this MQCONN
    wait_scope: trio.CancelScope | None = None  # a GET waiting in the background

    @property
    def user(self) -> str:
        return self.session.user if self.session is not None else ""


def _write(sock, data) -> int:
    """Bytes of ``data`` the non-blocking plain socket ``sock`` took now (0 when it has no room);
    a closed or broken socket raises what trio's stream would (decision HP1)."""
    fd = sock.fileno()
    if fd < 0:
        raise trio.ClosedResourceError("the socket was closed")
    try:
        return os.write(fd, data)
    except BlockingIOError:
        return 0
    except ConnectionError:
        raise
    except OSError as exc:
        raise trio.BrokenResourceError(str(exc)) from exc


def segment_count(data: bytes) -> int:
    """How many TSH segments ``data`` holds (``send`` is given whole segments only): each header
    carries its segment's length, big-endian, after the 4-byte eye-catcher."""
    count = offset = 0
    end = len(data)
    while offset + 8 <= end:
        length = int.from_bytes(data[offset + 4:offset + 8], "big")
        if length <= 0:
            break
        offset += length
        count += 1
    return count


class Connection:
    def __init__(self, server: QueueManagerServer, stream, conn_no: int, logger, *, raw: trio.SocketStream | None = None,
                 tls=None, opening_deadline: float = math.inf) -> None:
        self.server = server
        self.cfg = server.cfg
        self.stream = stream  # the socket stream, or the TLS stream over it
        self.raw = raw if raw is not None else stream  # the socket itself (addresses)
        self.tls = tls  # server.tls.Negotiated when the client connected with TLS
        self.conn_no = conn_no
        self.log = logger
        self.framer = Framer()
        self.reassembler = Reassembler()
        self.channel: ChannelConfig | None = None
        self.definition: Channel | None = None  # the registry's channel, as it was at the first ID
        self.instance: ChannelInstance | None = None  # this socket as the status commands see it
        # The queue manager the first ID named when only its first authenticated MQCONN may create it
        # (create-on-connect, NM5): its name and QMID as the ID exchange gave them; None otherwise.
        self.pending: negotiation.ServerIdentity | None = None
        self.agreement: negotiation.Agreement | None = None
        self._agreed = False  # the agreement is an acceptance (set with it)
        self._mux = False  # ... and multiplexed: every segment after the first ID exchange is TSHM
        self.id_rounds = 0
        self.conversations: dict[int, Conversation] = {}
        self._sending = False  # a send in progress; others park below (a trio.Lock yields even when free)
        self._send_turn = trio.lowlevel.ParkingLot()
        self._closed = False
        self.started = time.monotonic()
        self.segments_in = 0
        # What crossed the socket before the channel instance existed (the first ID exchange): the
        # instance starts from these, so channel status counts every byte and segment of the socket.
        self._bytes_in_before = 0
        self._bytes_out_before = 0
        self._segments_out_before = 0
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
        self._sock = stream.socket if type(stream) is trio.SocketStream and tls is None and _POSIX else None

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
            await self._cleanup()

    def opened(self) -> None:
        """An MQCONN was answered on this socket: its opening exchange is over, the deadline lifted."""
        self._opening.deadline = math.inf

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
        if watchdog.cancelled_caught:
            self.log.info("channel_timeout", seconds=self._idle_limit(), channel=self._channel_name(),
                          message=self._timed_out())

    async def _socket_read_loop(self, sock) -> None:
        """The read loop of a plain TCP connection, on the socket itself (issue 24, decision HP1).

        A read is tried before any wait: a request already there costs no trip through trio's
        scheduler, and a waiting one costs exactly one (``wait_readable``).  trio's SocketStream
        pays two more per call (the checkpoint after each receive and after each send), which on a
        ping-pong connection were a third of the server's time.  The idle watchdog is the same as
        the stream loop's: it only moves before a wait, by at least a second at a time, so a silent
        peer ends between the limit and a second past it.  Every wait is a checkpoint, and a run of
        requests that never waits passes one every ``_FAIR_RUN`` reads: the loop stays cancellable,
        and one busy client cannot hold the loop."""
        read = os.read
        # Armed from the start: a peer that stops part-way through its first header is closed too.
        with trio.CancelScope(deadline=trio.current_time() + self._idle_limit()) as watchdog:
            self._watchdog = watchdog
            run = 0
            while not self._closed:
                fd = sock.fileno()
                if fd < 0:
                    raise trio.ClosedResourceError("the socket was closed")
                try:
                    if self._held:  # read while a call was held (hold): served first, in order
                        data, self._held = bytes(self._held), bytearray()
                    else:
                        data = read(fd, _RECEIVE)
                except BlockingIOError:
                    limit = trio.current_time() + self._idle_limit()
                    if watchdog.deadline < limit:
                        watchdog.deadline = limit + 1.0
                    run = 0
                    await trio.lowlevel.wait_readable(fd)
                    continue
                except OSError as exc:
                    if isinstance(exc, ConnectionError):
                        raise
                    raise trio.BrokenResourceError(str(exc)) from exc
                if not data:
                    return
                run += 1
                if run >= _FAIR_RUN:
                    run = 0
                    await trio.lowlevel.checkpoint()
                await self._received(data)
                activity = self.server.mqi.activity
                if activity.wakes != self._wakes_seen:
                    # The call (or another connection's) woke the command server or a waiting GET:
                    # they act before this connection's next request, as they did behind trio's
                    # stream, which passed a checkpoint after each send and after each receive.  Two
                    # here for the same reason: whatever order trio runs the next batch in, a task
                    # woken now runs before this one reads again.
                    self._wakes_seen = activity.wakes
                    await trio.lowlevel.cancel_shielded_checkpoint()
                    await trio.lowlevel.cancel_shielded_checkpoint()
        if watchdog.cancelled_caught:
            self.log.info("channel_timeout", seconds=self._idle_limit(), channel=self._channel_name(),
                          message=self._timed_out())

    async def _received(self, data: bytes) -> None:
        if self.instance is not None:
            self.instance.bytes_received += len(data)
        else:
            self._bytes_in_before += len(data)
        try:
            segments = self.framer.feed(data)
        except CodecError as exc:
            await self.fail(exc.reason, detail=exc.detail)
            return
        for seg in segments:
            self.segments_in += 1
            if self.instance is not None:
                self.instance.buffers_received += 1  # IBM's BUFSRCVD: one per TSH segment
            h = seg.header
            if h.SegmentType & _MQI_REQUEST_MASK == _MQI_REQUEST and self._agreed \
                    and not (self._mux and h.StructId == fap.TSH):
                # An MQI request on an agreed connection (nearly every segment): the branch of
                # _dispatch's chain it would take, and _mqi, without their coroutines (HP3).
                try:
                    whole = self.reassembler.add(seg)
                    if whole is not None:
                        conv = self.conversations.get(whole.header.ConversationId if self._mux else 0)
                        if conv is None:
                            await self._mqi(whole)  # fails the call as it always did
                        else:
                            await self.server.mqi.call(self, conv, whole, fap.decode_call(whole))
                except CodecError as exc:
                    if exc.family == STATUS:
                        await self.fail(exc.reason, conv_id=h.ConversationId, detail=exc.detail)
                    raise
            else:
                await self._dispatch(seg)
            if self._closed:
                return

    def _idle_limit(self) -> float:
        # A silent peer is dead after twice the heartbeat interval (plus slack for slow clients); before
        # the ID exchange agrees one, twice 60 s.  HBINT(0) agreed: no heartbeats, so silence says
        # nothing and there is no limit (IBM's receive timeout is twice HBINT; decision CX2).
        hb = self.agreement.heartbeat_interval if self.agreement else 60
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
        beat = self.agreement.heartbeat_interval if self.agreement else 0
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
        self._closed = True
        for conv in list(self.conversations.values()):
            await self.end_conversation(conv)
        self.conversations.clear()
        if self.instance is not None:
            self.server.registry.running.end_instance(self.instance)
        with trio.CancelScope(shield=True):
            await self.stream.aclose()

    def summary(self) -> dict:
        return {"channel": self._channel_name(), "segments": self.segments_in,
                "seconds": round(time.monotonic() - self.started, 3)}

    def _channel_name(self) -> str | None:
        return self.channel.name if self.channel else None

    async def refuse(self, *, quiescing: bool) -> None:
        """Answer a connection we cannot take, then close (listener limits, quiescing)."""
        code = fap.QM_TERMINATING if quiescing else fap.MAX_CONNS_LIMIT_REACHED
        try:
            await self.stream.send_all(fap.status_segment(code))
        except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError):
            pass
        await self.stream.aclose()

    async def quiesce(self, *, reconnect: bool = False) -> None:
        """The queue manager is ending: tell the client, as a real one does, before we go.  Without
        ``reconnect`` a STATUS QM_TERMINATING (reconnectable clients do not come back, as after
        ``endmqm``); with it (``endmqm -r``) a SOCKET_ACTION RECONNECT_CLIENTS on each conversation,
        naming this queue manager, and no STATUS: reconnectable clients connect again, the others see
        the connection broken (docs/reconnect.md, decision Z4)."""
        if self._closed:
            return
        try:
            if reconnect:
                await self.send(self._reconnect_request())
            else:
                await self.send(self._status(fap.QM_TERMINATING))
        except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError):
            pass
        self._closed = True
        self.log.info("quiesce", reconnect=reconnect, channel=self._channel_name())

    def _reconnect_request(self) -> bytes:
        if not self.multiplexed:
            return b""  # a conversation in TSH has no SOCKET_ACTION: the socket just closes
        me = self.server.identity
        out = []
        for conv_id in sorted(self.conversations) or [1]:
            body = fap.SocketAction(conv_id, 0, fap.SA_RECONNECT_CLIENTS, 0, 0, QMgrName=me.qmgr_name,
                                    QMgrId=me.qmgr_id).pack(fap.LITTLE)
            out.append(fap.encode_segment(fap.SOCKET_ACTION, body, struct_id=fap.TSHM, conversation_id=conv_id,
                                          control_flags1=0, encoding=_REPLY_ENC, ccsid=_REPLY_CCSID))
        return b"".join(out)

    # ---- sending ---------------------------------------------------------------------------------
    async def send(self, data: bytes) -> None:
        """Whole segments only: background waiters and the read loop must never interleave bytes."""
        while self._sending:
            await self._send_turn.park()
        instance = self.instance
        if instance is not None:
            instance.bytes_sent += len(data)
            instance.buffers_sent += segment_count(data)
        else:
            self._bytes_out_before += len(data)
            self._segments_out_before += segment_count(data)
        sock = self._sock
        if sock is not None:
            # A plain socket is written directly (HP1): a reply it takes whole (the usual case) costs
            # one system call and no trip through the scheduler -- and, with no await, nobody else's
            # bytes can come between.  What it does not take waits for room below, in turn.
            sent = _write(sock, data)
            if sent == len(data):
                return
            data = memoryview(data)[sent:]
        self._sending = True
        try:
            if sock is None:
                await self.stream.send_all(data)
            else:
                while data:
                    await trio.lowlevel.wait_writable(sock)
                    data = data[_write(sock, data):]
        finally:
            self._sending = False
            if self._send_turn:
                self._send_turn.unpark()

    async def send_heartbeat(self) -> None:
        """A heartbeat request (its flags at the agreed FAP level: ``fap.heartbeat_request_flags``)."""
        flags = fap.heartbeat_request_flags(self.agreement.fap_level)
        await self.send(fap.encode_segment(fap.HEARTBEAT, b"", struct_id=fap.TSHC if self.multiplexed else fap.TSH,
                                           control_flags1=flags, encoding=_REPLY_ENC, ccsid=_REPLY_CCSID))

    @property
    def multiplexed(self) -> bool:
        return self._mux

    def _status(self, code: int, conv_id: int = 0) -> bytes:
        if self.multiplexed:
            return fap.status_segment(code, struct_id=fap.TSHM, conversation_id=conv_id)
        return fap.status_segment(code)

    async def abort(self) -> None:
        """Drop the socket without a word, as a network failure would (a fault rule's BREAK)."""
        self._closed = True
        with trio.CancelScope(shield=True):
            await self.stream.aclose()
        raise Closed

    async def fail(self, code: int, *, conv_id: int = 0, detail: str = "") -> None:
        """A fatal protocol error: STATUS with ERROR|CLOSE_CHANNEL, then close the socket."""
        self.log.warning("channel_error", reason=fap.status_code_name(code) or code, detail=detail,
                         channel=self._channel_name())
        try:
            await self.send(self._status(code, conv_id))
        except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError):
            pass
        self._closed = True
        raise Closed

    # ---- dispatch --------------------------------------------------------------------------------
    async def _dispatch(self, seg: fap.Segment) -> None:
        h = seg.header
        t = h.SegmentType
        if t == fap.INITIAL_DATA:
            await self._initial_data(seg)
            return
        if self.agreement is None or not self.agreement.accepted:
            await self.fail(fap.PROTOCOL_SEGMENT_TYPE, detail="segment before INITIAL_DATA was agreed")
        if self.multiplexed and h.StructId == fap.TSH:
            await self.fail(fap.PROTOCOL_SEGMENT_ERROR, detail="TSH on a multiplexed connection")
        try:
            if t == fap.HEARTBEAT:
                await self._heartbeat(seg)
            elif t == fap.USERID_DATA:
                self._userid(seg)
            elif t == fap.CONAUTH_INFO:
                await self._conauth(seg)
            elif t == fap.SOCKET_ACTION:
                await self._socket_action(seg)
            elif t == fap.STATUS_DATA:
                self.log.info("peer_closed", channel=self._channel_name())
                self._closed = True
            elif fap.is_mqi_type(t) and not t & fap.REPLY:
                whole = self.reassembler.add(seg)
                if whole is not None:
                    await self._mqi(whole)
            elif t == fap.REQUEST_MSGS:
                await self._request_msgs(seg)
            else:
                await self.fail(fap.PROTOCOL_SEGMENT_TYPE, detail=f"segment type 0x{t:02x}")
        except CodecError as exc:
            if exc.family == STATUS:
                await self.fail(exc.reason, conv_id=h.ConversationId, detail=exc.detail)
            raise

    # ---- INITIAL_DATA ----------------------------------------------------------------------------
    async def _initial_data(self, seg: fap.Segment) -> None:
        if self.agreement is not None and self.agreement.accepted:
            await self.fail(fap.PROTOCOL_ID_ERROR, detail="INITIAL_DATA after agreement")
        self.id_rounds += 1
        if self.id_rounds > _MAX_ID_ROUNDS:
            await self.fail(fap.NEGOTIATION_FAILED, detail="the client would not take our values")
        try:
            client = fap.decode_body(seg)
        except CodecError as exc:
            await self.fail(exc.reason if exc.family == STATUS else fap.PROTOCOL_ID_ERROR, detail=exc.detail)
        if self.instance is None:
            await self._route(client.QMgrName)
            await self._start_instance(client.ChannelName)
        channel = self.channel
        reply, agreement = negotiation.answer(client, channel, self.pending or self.server.identity,
                                              max_fap=self._max_fap(channel))
        self.agreement = agreement
        self._agreed = agreement.accepted
        self._mux = agreement.accepted and agreement.multiplexed
        h = seg.header
        body = reply.pack(fap.LITTLE)
        await self.send(fap.encode_segment(
            fap.INITIAL_DATA, body, struct_id=h.StructId,
            conversation_id=h.ConversationId if h.StructId == fap.TSHM else 0,
            control_flags1=0 if agreement.accepted else fap.CF1_ERROR, encoding=_REPLY_ENC, ccsid=_REPLY_CCSID))
        if agreement.accepted:
            self.framer.max_segment_length = agreement.max_transmission_size
            self.reassembler = Reassembler(max_call_length=agreement.max_message_size + 65536)
            self.log.info("channel_started", channel=channel.name, fap=agreement.fap_level,
                          sharecnv=agreement.sharing_conversations, max_tr=agreement.max_transmission_size,
                          max_msg=agreement.max_message_size)
            if not agreement.multiplexed:
                self.conversations[0] = Conversation(0)
            else:
                # The first conversation is implicit: the ID exchange and MQCONN run on it.
                self.conversations[1] = Conversation(1)
            self.instance.max_sharing = agreement.sharing_conversations
            self.instance.heartbeat_interval = agreement.heartbeat_interval
            self.instance.max_msg_length = agreement.max_message_size
            product = client.ProductId.rstrip(" \x00")  # e.g. MQCC09030000: RPRODUCT MQCC, RVERSION 09030000
            self.instance.remote_product, self.instance.remote_version = product[:4], product[4:12]
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
        if target is not self.server:
            self.server.connections.discard(self)
            self.server, self.cfg = target, target.cfg
            target.connections.add(self)
            self.log.info("routed", qmgr=target.qm.registry.qmgr.name)

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
                reg.diagnostics.tls_refused(channel=name, address=self._peer_host(), refusal=refusal)  # error log
                await self.fail(refusal.code, detail=refusal.message)
            self.instance = reg.running.start_instance(self.definition, self.peer_address, reg.now())
            self._instance_started(self.instance)
        except svrconn.Refused as exc:
            self.log.warning("unknown_channel" if exc.code == fap.NO_CHANNEL else "wrong_channel_type", channel=name)
            reg.diagnostics.channel_refused(channel=name, address=self._peer_host(),  # error log
                                            why="unknown channel" if exc.code == fap.NO_CHANNEL else exc.detail)
            await self.fail(exc.code, detail=exc.detail)
        except ChannelRefused as exc:
            self.log.warning("channel_refused", channel=name, reason=exc.why)
            reg.diagnostics.channel_refused(channel=name, address=self._peer_host(), why=exc.why,  # error log
                                            definition=self.definition)
            await self.fail(fap.CHANNEL_UNAVAILABLE, detail=exc.why)  # the client's MQRC_CHANNEL_NOT_AVAILABLE
        self.instance.on_stop = self._stop_requested
        if self.tls is not None:
            self.instance.ssl_cipher = self.tls.cipher_spec
            self.instance.ssl_protocol = self.tls.protocol
            self.instance.ssl_peer = dn.render(self.tls.subject) if self.tls.subject else ""
            self.instance.ssl_cert_issuer = dn.render(self.tls.issuer) if self.tls.issuer else ""
            self.instance.ssl_key_time = self.tls.at

    def move_to(self, target: QueueManagerServer) -> None:
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
            self.instance.conversations = len(self.conversations)

    def _stop_requested(self) -> None:
        """Stop Channel ended this instance (called in the command server's turn, on the loop)."""
        if self.nursery is not None and not self._closed:
            self.nursery.start_soon(self._stop_by_admin)

    async def _stop_by_admin(self) -> None:
        # The client learns at its next call: STATUS USER_CLOSED, which a connected client reports
        # as MQRC_CONNECTION_BROKEN (docs/reference/fap.md section 9), then the socket closes.
        self.log.info("channel_stopped", channel=self._channel_name())
        try:
            await self.send(self._status(fap.USER_CLOSED))
        except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError):
            pass
        self._closed = True
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    def _instance_started(self, instance: ChannelInstance) -> None:
        """The instance takes over the socket's counts so far (the segment being dispatched included)."""
        instance.bytes_received = self._bytes_in_before
        instance.buffers_received = self.segments_in
        instance.bytes_sent = self._bytes_out_before
        instance.buffers_sent = self._segments_out_before
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
        except (OSError, AttributeError, IndexError):
            return ""

    def _max_fap(self, channel: ChannelConfig) -> int:
        # FAP 13 brings password protection whose algorithm is not public (docs/reference/fap.md section 8); where a
        # password must be checked we agree FAP 12, at which clients send it in clear.
        return 12 if self._password_required(channel) else negotiation.MAX_FAP_LEVEL

    def _password_required(self, channel: ChannelConfig) -> bool:
        if channel.admin_only:
            return True
        # A channel without MCAUSER runs as the client's user: an administrator's password is checked.
        if self.definition is not None and not self.definition.mca_user:
            return True
        return channel.password_required or self.cfg.app_password is not None

    # ---- small control flows ---------------------------------------------------------------------
    async def _heartbeat(self, seg: fap.Segment) -> None:
        h = seg.header
        if fap.is_heartbeat_request(h.ControlFlags1, self.agreement.fap_level):
            flags = fap.heartbeat_reply_flags(self.agreement.fap_level)
            await self.send(fap.encode_segment(fap.HEARTBEAT, b"", struct_id=h.StructId, control_flags1=flags,
                                               encoding=_REPLY_ENC, ccsid=_REPLY_CCSID))

    def conversation(self, conv_id: int) -> Conversation | None:
        return self.conversations.get(conv_id if self._mux else 0)

    def _userid(self, seg: fap.Segment) -> None:
        conv = self.conversation(seg.header.ConversationId)
        if conv is None:
            return
        uid = fap.decode_body(seg)
        conv.user_id = uid.LongUserId.strip() if uid.LongUserId else uid.UserIdentifier
        conv.uid_password = uid.Password

    async def _conauth(self, seg: fap.Segment) -> None:
        h = seg.header
        conv = self.conversation(h.ConversationId)
        if conv is None:
            await self.fail(fap.CONV_ID_ERROR, conv_id=h.ConversationId)
        caut = fap.decode_body(seg)
        conv.auth_user = caut.UserId
        conv.auth_password = caut.Password
        # The client waits for a STATUS; ESH code 0 without ERROR is the accepted answer (docs/reference/fap.md section
        # 8; decision in docs/decisions.md).  The verdict comes with the MQCONN reply, as on a real one.
        on_conversation = h.StructId == fap.TSHM
        await self.send(fap.status_segment(
            0, struct_id=h.StructId, conversation_id=h.ConversationId if on_conversation else 0,
            request_id=h.RequestId if on_conversation else 0,
            control_flags1=fap.CF1_FIRST | fap.CF1_LAST if on_conversation else 0,
            encoding=_REPLY_ENC, ccsid=_REPLY_CCSID))

    async def _socket_action(self, seg: fap.Segment) -> None:
        if not self.multiplexed:
            await self.fail(fap.PROTOCOL_SEGMENT_TYPE, detail="SOCKET_ACTION on a connection without sharing")
        action = fap.decode_body(seg)
        if action.Type == fap.SA_START_CONV:
            conv_id = action.ConversationId
            limit = self.agreement.sharing_conversations
            if conv_id in self.conversations or conv_id <= 0 or len(self.conversations) >= limit:
                self.log.warning("conversation_refused", conversation=conv_id, limit=limit)
                await self.send(fap.status_segment(fap.CONV_ID_ERROR if conv_id in self.conversations
                                                   else fap.MAX_CONNS_LIMIT_REACHED,
                                                   struct_id=fap.TSHM, conversation_id=conv_id,
                                                   control_flags1=fap.CF1_ERROR))
                return
            self.conversations[conv_id] = Conversation(conv_id)
            self._count_conversations()
            accept = fap.SocketAction(ConversationId=conv_id, RequestId=action.RequestId, Type=fap.SA_ACCEPT_CONV,
                                      Parm1=action.Parm1, Parm2=action.Parm2)
            await self.send(fap.encode_segment(fap.SOCKET_ACTION, accept.pack(fap.LITTLE), struct_id=fap.TSHM,
                                               conversation_id=conv_id, request_id=0, control_flags1=0,
                                               encoding=_REPLY_ENC, ccsid=_REPLY_CCSID))
        elif action.Type == fap.SA_END_CONV:
            conv = self.conversations.pop(action.ConversationId, None)
            self._count_conversations()
            if conv is not None:
                await self.end_conversation(conv)
            if not self.conversations:
                self._closed = True  # the client closes the socket after its last conversation
        else:
            self.log.info("socket_action_ignored", type=action.Type)

    async def end_conversation(self, conv: Conversation) -> None:
        """Release everything a conversation holds (handles, temporary queues); an unfinished unit of
        work is backed out, as for an application that ends without MQDISC."""
        await self.server.mqi.disconnect(self, conv)

    async def _request_msgs(self, seg: fap.Segment) -> None:
        await self.server.mqi.request_msgs(self, seg)

    # ---- MQI -------------------------------------------------------------------------------------
    async def _mqi(self, seg: fap.Segment) -> None:
        h = seg.header
        conv = self.conversation(h.ConversationId)
        if conv is None:
            await self.fail(fap.CONV_ID_ERROR, conv_id=h.ConversationId, detail="MQI call on no conversation")
        call = fap.decode_call(seg)
        await self.server.mqi.call(self, conv, seg, call)

    def authenticate(self, conv: Conversation, appl_name: str = "", appl_type: int = 0) -> tuple[int, str, bool]:
        """(MQRC, user, admin) for a connect on this channel: connection authentication (the developer
        container's passwords; none when the queue manager's CONNAUTH is blank), then the channel
        authentication records, which say whether the client may use the channel and as whom.  A
        refusal is reported to the domain's events (authority type 1, Channel Blocked)."""
        reason, user, admin, qualifier = self._authenticate(conv)
        if reason == C.MQRC_NOT_AUTHORIZED and qualifier:
            given = conv.auth_user if conv.auth_user is not None else conv.user_id
            self.server.qm.events.not_authorized_connect(
                user=given or "", appl_type=appl_type, appl_name=appl_name, channel=self.channel.name,
                conname=self._peer_host(), qualifier=qualifier, csp_user=given or "")
        return reason, user, admin

    def _authenticate(self, conv: Conversation) -> tuple[int, str, bool, int]:
        """authenticate's answer, and the authority-event reason qualifier of a refusal that is not a
        CHLAUTH block (MQRQ_CSP_NOT_AUTHORIZED: the user and password; MQRQ_CONN_NOT_AUTHORIZED)."""
        channel = self.channel
        user = conv.auth_user if conv.auth_user is not None else conv.user_id
        password = conv.auth_password if conv.auth_password is not None else conv.uid_password.encode()
        registry = self.server.qm.registry
        connauth = bool(registry.qmgr.conn_auth.strip())
        mca_user = self.definition.mca_user if self.definition is not None else ""
        authenticated = None  # the user a password was checked for (adopted: ADOPTCTX(YES))
        # An admin-only channel, or a channel without MCAUSER that the administrator names himself on.
        as_admin = channel.admin_only or (not mca_user and user == ADMIN_USER)
        if as_admin:
            if connauth:
                if user != ADMIN_USER or not _same(password, self.cfg.admin_password):
                    return C.MQRC_NOT_AUTHORIZED, "", False, events.MQRQ_CSP_NOT_AUTHORIZED
                authenticated = ADMIN_USER
        elif mca_user in PRIVILEGED:
            return C.MQRC_NOT_AUTHORIZED, "", False, events.MQRQ_CONN_NOT_AUTHORIZED
        elif connauth and (self.cfg.app_password is not None or channel.password_required):
            expected = self.cfg.app_password or ""
            if user != APP_USER or not _same(password, expected):
                return C.MQRC_NOT_AUTHORIZED, "", False, events.MQRQ_CSP_NOT_AUTHORIZED
            authenticated = APP_USER
        # ---- adm-security: CHLAUTH (registry/security/chlauth.py).  The connection runs as the channel's
        # MCAUSER (DEV.APP.SVRCONN: "app", as in the developer container); a channel without one maps
        # every non-administrator to "app" as well (docs/compat.md, channels).
        verdict = chlauth.check(registry, channel=channel.name, address=self._peer_host(), client_user=user or "",
                                channel_mcauser="" if as_admin else (mca_user or APP_USER),
                                password_given=authenticated is not None or not connauth,
                                authenticated_user=authenticated,
                                ssl_peer=self.tls.subject if self.tls else None,
                                ssl_issuer=self.tls.issuer if self.tls else None)
        registry_events = self.server.qm.events
        for qualifier, blocked_user in verdict.warnings:  # WARN(YES) records: logged, let in, reported
            registry_events.channel_blocked(qualifier=qualifier, warning=True, channel=channel.name,
                                            conname=self._peer_host(), user=blocked_user)
        if not verdict.allowed:
            self.log.warning("chlauth_refused", channel=channel.name, user=user, why=verdict.why)
            if verdict.blocked:
                registry_events.channel_blocked(qualifier=verdict.blocked, warning=False, channel=channel.name,
                                                conname=self._peer_host(), user=verdict.user)
                return verdict.reason, "", False, 0
            # CHCKCLNT without a password: the MQCSP user and password were not given
            return verdict.reason, "", False, (events.MQRQ_CSP_NOT_AUTHORIZED if verdict.needs_password
                                               else events.MQRQ_CONN_NOT_AUTHORIZED)
        return C.MQRC_NONE, verdict.user, authrecs.privileged(verdict.user), 0

    def _peer_host(self) -> str:
        try:
            return str(self.raw.socket.getpeername()[0])
        except (AttributeError, OSError, IndexError, TypeError):
            return ""  # not a socket (tests' memory streams): only "*" address rules match it


def _same(given: bytes | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.rstrip(b"\x00 "), expected.encode())
