"""The MQI verbs on the wire (docs/reference/fap.md sections 11-20): decode a call, ask the queue manager,
encode its answer.

Every rule lives in the domain (``qmlite.registry.qmgr.QueueManager``); this module only
translates, and does the two things that need the event loop: a reply is sent once the journal
position it depends on is durable (group commit, server/durability.py), and a GET that has to wait
runs as a background task of its connection (one home for the wait and its heartbeats), woken by the
domain's ``on_available`` hook when its queue gains a message.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from qmlite.pcf import calls, fap
from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf.errors import CodecError
from qmlite.registry.errors import MQIError
from qmlite.registry.testing.faults import ConnectionFault
from qmlite.registry.qmgr import Got
from qmlite.registry.messaging.sessions import Handle

if TYPE_CHECKING:
    from .channel import Conversation
    from .connection import Connection
    from .roles import Host

ZERO24 = bytes(24)
_LONGEST_HEADERS = fap.TSHM_LENGTH + fap.API_HEADER_LENGTH  # a reply's headers, at most
_LE = fap.LITTLE
_I32 = struct.Struct("<i")  # an MQPUT or MQGET reply's DataLength, little-endian as the rest (calls.py)
Replies = tuple[list[bytes], int]  # reply segments, and the journal position they depend on


class QueueActivity:
    """Per-queue parking lots: the domain's on_available hook wakes the GETs waiting on that queue."""

    def __init__(self) -> None:
        self._lots: dict[str, trio.lowlevel.ParkingLot] = {}
        # Notifications so far (a queue someone waits or waited on gained a message: the command
        # server's, a waiting GET's): a connection that sees the count move after a call lets those
        # woken run before it reads its next request, as trio's stream did (HP1).
        self.wakes = 0

    def lot(self, queue: str) -> trio.lowlevel.ParkingLot:
        lot = self._lots.get(queue)
        if lot is None:
            lot = self._lots[queue] = trio.lowlevel.ParkingLot()
        return lot

    def notify(self, queue: str) -> None:
        lot = self._lots.get(queue)
        if lot is not None:
            lot.unpark_all()
            self.wakes += 1  # counted even when no one is parked now: its task may be on its way back

    def notify_all(self) -> None:
        """A virtual clock moved (registry/testing/clock.py): every waiting GET looks again, and ends
        when its interval has passed on that clock."""
        for lot in self._lots.values():
            lot.unpark_all()
        self.wakes += 1


class MQI:
    def __init__(self, server: Host) -> None:
        self.server = server
        self.qm = server.qm
        self.activity = QueueActivity()
        self.qm.on_available = self.activity.notify
        self.qm.clock_control.on_moved.append(self.activity.notify_all)
        # Replies held by a DELAY rule (scope -> its rule and session): released at once when the rule
        # goes (DELETE QMLITE FAULT, RESET QMLITE) or the session is stopped (Stop Connection).
        self._holds: dict[trio.CancelScope, tuple[str, object]] = {}
        self.qm.faults.on_change.append(self._faults_changed)
        self.qm.on_stopped = self._session_stopped
        self._async_index = 0
        self._verbs: dict[int, Callable[..., Replies]] = {
            fap.MQCONN: self._conn, fap.MQDISC: self._disc, fap.MQOPEN: self._open, fap.MQCLOSE: self._close,
            fap.MQPUT: self._put, fap.MQPUT1: self._put1, fap.MQGET: self._get, fap.MQINQ: self._inq,
            fap.MQSET: self._set, fap.MQCMIT: self._cmit, fap.MQBACK: self._back, fap.MQSUB: self._sub,
            fap.MQSUBRQ: self._subrq,
        }

    # ---- entry points from the connection --------------------------------------------------------
    async def call(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> None:
        t = seg.header.SegmentType
        if conv.session is not None and conv.session.stopped:
            await self._stopped(conn, conv, seg, call)
            return
        verb = self._verbs.get(t)
        qm = self.qm
        instance = conn.instance
        if instance is not None:  # channel status: MQI calls served, and when the last one was
            instance.msgs += 1
            instance.last_msg = qm.now()
        before = qm.position
        depends_on = 0
        try:
            if verb is None:
                raise MQIError(C.MQRC_FUNCTION_NOT_SUPPORTED)
            if t != fap.MQCONN and conv.session is None:
                raise MQIError(C.MQRC_HCONN_ERROR)
            replies, depends_on = verb(conn, conv, seg, call)
        except ConnectionFault:
            await self._break(conn, conv, t)
        except MQIError as exc:
            conn.log.info("mqi", verb=fap.segment_type_name(t), user=conv.user, reason=C.describe("MQRC", exc.reason))
            replies = self.reply(conn, seg, comp=exc.comp, reason=exc.reason, hobj=call.ApiHeader.Hobj)
        except CodecError as exc:
            if exc.family != "MQRC":
                raise
            # A malformed structure: the MQI answer, not a channel error.
            conn.log.info("mqi", verb=fap.segment_type_name(t), user=conv.user, reason=exc.reason_name,
                          detail=exc.detail)
            replies = self.reply(conn, seg, comp=C.MQCC_FAILED, reason=exc.reason, hobj=call.ApiHeader.Hobj)
        except Exception:  # a bug must not leave the caller without an answer: MQ's own reply to one
            conn.log.exception("mqi_crashed", verb=fap.segment_type_name(t), user=conv.user)
            replies = self.reply(conn, seg, comp=C.MQCC_FAILED, reason=C.MQRC_UNEXPECTED_ERROR,
                                 hobj=call.ApiHeader.Hobj)
        session = conv.session
        if session is not None and session.fault is not None:
            if not await self._delay(conn, conv, session, seg, call):
                return  # stopped while it waited: answered as a stopped call
        if conn.server is not self.server:  # this MQCONN created its queue manager: its tasks first
            await conn.server.ready.wait()
        # _answer, inline (HP3): the reply leaves once what it depends on is durable
        after = qm.position
        position = depends_on if after <= before or depends_on > after else after
        if position > qm.durable_position:
            await self.server.committer.wait(position)
        for piece in replies:
            await conn.send(piece)

    # ---- fault injection: the transport's part (registry/testing/faults.py decides) ---------------
    async def _break(self, conn: Connection, conv: Conversation, t: int) -> None:
        """A rule broke the connection: the call did nothing; the socket drops unanswered (the client
        sees MQRC_CONNECTION_BROKEN) and every conversation on it ends with its unit of work backed out."""
        conn.log.warning("fault_break", verb=fap.segment_type_name(t), user=conv.user, channel=conn.channel.name,
                         conversation=conv.conv_id)
        await conn.abort()

    async def _delay(self, conn: Connection, conv: Conversation, session, seg: fap.Segment,
                     call: fap.MqiCall) -> bool:
        """A rule delayed the reply: the call has acted; its answer leaves ``delay_ms`` later, or as soon
        as the rule is deleted (or RESET QMLITE clears it).  The connection keeps reading meanwhile, so a
        client that goes away ends it at once.  False when Stop Connection ended the wait: the call is
        then answered as a stopped one (2009, its unit of work backed out; docs/faults.md, decision CX3)."""
        fault, session.fault = session.fault, None
        verb = fap.segment_type_name(seg.header.SegmentType)
        conn.log.info("fault_delay", verb=verb, user=conv.user, ms=fault.delay_ms)
        scope = trio.CancelScope(deadline=trio.current_time() + fault.delay_ms / 1000)
        self._holds[scope] = (fault.rule, session)
        try:
            await conn.hold(scope)
        finally:
            del self._holds[scope]
        if session.stopped:
            await self._stopped(conn, conv, seg, call)
            return False
        if trio.current_time() < scope.deadline:  # released early: the rule is gone
            conn.log.info("fault_delay_released", verb=verb, user=conv.user, rule=fault.rule)
        return True

    def _faults_changed(self) -> None:
        faults = self.qm.faults
        for scope, (rule, _session) in list(self._holds.items()):
            if rule not in faults:
                scope.cancel()

    def _session_stopped(self, session) -> None:
        for scope, (_rule, held) in list(self._holds.items()):
            if held is session:
                scope.cancel()

    async def _stopped(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> None:
        """Stop Connection marked this connection (registry/admin/commands/status.py): it ends here, its
        unit of work backed out, and the call fails as a client sees its broken channel instance."""
        await self.disconnect(conn, conv)
        conn.log.info("connection_stopped", conversation=conv.conv_id)
        await self._send_all(conn, self.reply(conn, seg, comp=C.MQCC_FAILED, reason=C.MQRC_CONNECTION_BROKEN,
                                              hobj=call.ApiHeader.Hobj))

    async def _answer(self, conn: Connection, pieces: list[bytes], depends_on: int, before: int) -> None:
        """Send a call's reply once what it depends on is durable: the writes the call itself made
        (the journal moved past ``before``) and ``depends_on`` (the message it returns)."""
        after = self.qm.position
        await self.durable(max(depends_on, after if after > before else 0))
        await self._send_all(conn, pieces)

    async def durable(self, position: int) -> None:
        if position > self.qm.durable_position:
            await self.server.committer.wait(position)

    def reply(self, conn: Connection, seg: fap.Segment, body: bytes = b"", *, comp: int = 0, reason: int = 0,
              hobj: int = 0) -> list[bytes]:
        max_tr = conn.agreement.max_transmission_size
        if len(body) + _LONGEST_HEADERS <= max_tr:  # one segment: api_reply_segments' own first answer
            return [fap.api_reply(seg.header, body, comp_code=comp, reason=reason, hobj=hobj)]
        return fap.api_reply_segments(seg.header, body, conn.agreement.max_transmission_size,
                                      comp_code=comp, reason=reason, hobj=hobj)

    def _reply_of(self, conn: Connection, seg: fap.Segment, parts: tuple[bytes, ...], *, comp: int = 0,
                  reason: int = 0, hobj: int = 0) -> list[bytes]:
        """``reply`` for a body in pieces (an MQPUT's or MQGET's structures, its length, its data): when
        one segment holds it, its headers and pieces are joined once, not the body first (HP4)."""
        length = sum(map(len, parts))
        if length + _LONGEST_HEADERS <= conn.agreement.max_transmission_size:
            return [b"".join((fap.api_reply_head(seg.header, length, comp_code=comp, reason=reason, hobj=hobj),
                              *parts))]
        return self.reply(conn, seg, b"".join(parts), comp=comp, reason=reason, hobj=hobj)

    async def disconnect(self, conn: Connection, conv: Conversation, *, commit: bool = False) -> None:
        """End a conversation: MQDISC commits its unit of work, a lost connection backs it out."""
        if conv.wait_scope is not None:
            conv.wait_scope.cancel()
            conv.wait_scope = None
        session = conv.session
        if session is None:
            return
        conv.session = None
        self.qm.disconnect(session, commit=commit)
        conn.log.info("disconnect_conversation", conversation=conv.conv_id, user=session.user)

    # ---- MQCONN / MQDISC -------------------------------------------------------------------------
    def _conn(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        body: fap.MQConnBody = call.Call
        comp, reason = C.MQCC_OK, self._connect(conn, conv, body)
        if conv.session is not None:
            conn.opened()  # the socket's opening exchange is done: its deadline no longer applies
        if reason:
            comp = C.MQCC_WARNING if reason == C.MQRC_ALREADY_CONNECTED else C.MQCC_FAILED
            conn.log.warning("connect_refused", user=conv.auth_user or conv.user_id, channel=conn.channel.name,
                             reason=C.describe("MQRC", reason))
        fcno = None
        if body.Fcno is not None:
            conn_id = conv.session.connection_id if conv.session is not None else bytes(24)
            fcno = fap.Fcno(Version=min(body.Fcno.Version, 2), CapabilityFlags=2,  # no AMS policies
                            ConnTag=conn_id + bytes(104))
        # A failed connect still echoes the MQCONN structures: clients read them before the reason.
        out = fap.MQConnBody(QMgrName=conn.server.qm.registry.qmgr.name, ApplName=body.ApplName, ApplType=body.ApplType,
                             AccountingToken=body.AccountingToken, Options=body.Options, XOptions=body.XOptions,
                             Fcno=fcno, ReconnectionId=bytes(24) if body.ReconnectionId is not None else None,
                             ReconnectionQmId=bytes(48) if body.ReconnectionQmId is not None else None)
        return self.reply(conn, seg, out.pack(_LE), comp=comp, reason=reason), 0

    def _connect(self, conn: Connection, conv: Conversation, body: fap.MQConnBody) -> int:
        if conv.session is not None:
            return C.MQRC_ALREADY_CONNECTED
        if conn.pending is not None:  # create-on-connect: only once the client is authenticated (NM5)
            reason = self.server.create_pending(conn, conv, body)
            if reason:
                return reason
        qm = conn.server.qm  # the queue manager just created, when it was
        try:
            qm.check_connect(body.QMgrName)
            reason, user, admin = conn.authenticate(conv, body.ApplName, body.ApplType)
            if reason:
                return reason
            conv.session = qm.connect(body.QMgrName, user=user, admin=admin, appl_name=body.ApplName,
                                      appl_type=body.ApplType, channel=conn.channel.name,
                                      conname=_conname(conn), options=body.XOptions)
            if conn.instance is not None:
                conn.instance.mca_user, conn.instance.remote_appl = user, body.ApplName
        except MQIError as exc:
            return exc.reason
        conn.log.info("connect_conversation", conversation=conv.conv_id, user=user, appl=body.ApplName,
                      channel=conn.channel.name)
        return C.MQRC_NONE

    def _disc(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        if conv.wait_scope is not None:
            conv.wait_scope.cancel()
            conv.wait_scope = None
        session, conv.session = conv.session, None
        self.qm.disconnect(session, commit=True)
        conn.log.info("disconnect_conversation", conversation=conv.conv_id, user=session.user)
        return self.reply(conn, seg), 0

    # ---- units of work ---------------------------------------------------------------------------
    def _cmit(self, conn, conv, seg, call) -> Replies:
        self.qm.commit(conv.session)
        return self.reply(conn, seg), 0

    def _back(self, conn, conv, seg, call) -> Replies:
        self.qm.backout(conv.session)
        return self.reply(conn, seg), 0

    # ---- MQOPEN / MQCLOSE ------------------------------------------------------------------------
    def _open(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        req, _ = calls.MQOpenRequest.unpack(call.Data, 0, seg.header.order)
        handle, od = self.qm.open_object(conv.session, req.ObjDesc, req.Options)
        fopa = req.Fopa
        if fopa is not None:
            queue = self.qm.registry.queues.get(handle.name) if handle.kind == "queue" else None
            fopa = S.FOPA(Version=fopa.Version, Length=28 if fopa.Version == 1 else 84,
                          DefPersistence=queue.def_persistence if queue else C.MQPER_NOT_PERSISTENT)
        reply = calls.MQOpenReply(od, req.Options, fopa)
        conn.log.debug("open", user=conv.user, object=handle.queue_name or handle.name, hobj=handle.hobj,
                       options=req.Options)
        return self.reply(conn, seg, reply.pack(_LE), hobj=handle.hobj), 0

    def _close(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        req, _ = calls.MQCloseRequest.unpack(call.Data, 0, seg.header.order)
        self.qm.close_object(conv.session, call.ApiHeader.Hobj, req.Options)
        return self.reply(conn, seg, hobj=C.MQHO_UNUSABLE_HOBJ), 0

    # ---- MQPUT / MQPUT1 --------------------------------------------------------------------------
    def _put(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        req, _ = calls.MQPutRequest.unpack(call.Data, 0, seg.header.order)
        hobj = call.ApiHeader.Hobj
        md, pmo, reason = self.qm.put(conv.session, hobj, req.MsgDesc, req.PutMsgOpts, req.Data)
        # calls.MQPutReply(md, pmo, len(req.Data)).pack(_LE), in pieces (HP4)
        return self._reply_of(conn, seg, (md.pack(_LE), pmo.pack(_LE), _I32.pack(len(req.Data))),
                              comp=C.MQCC_WARNING if reason else 0, reason=reason, hobj=hobj), 0

    def _put1(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        req, _ = calls.MQPut1Request.unpack(call.Data, 0, seg.header.order)
        od, md, pmo, reason = self.qm.put1(conv.session, req.ObjDesc, req.MsgDesc, req.PutMsgOpts, req.Data)
        reply = calls.MQPut1Reply(od, md, pmo, len(req.Data))
        return self.reply(conn, seg, reply.pack(_LE), comp=C.MQCC_WARNING if reason else 0, reason=reason,
                          hobj=C.MQHO_UNUSABLE_HOBJ), 0

    # ---- MQGET -----------------------------------------------------------------------------------
    def _get(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        req, _ = calls.MQGetRequest.unpack(call.Data, 0, seg.header.order)
        gmo = req.GetMsgOpts
        session = conv.session
        handle = self.qm.input_handle(session, call.ApiHeader.Hobj, gmo.Options)
        if req.BufferLength < 0:
            raise MQIError(C.MQRC_BUFFER_LENGTH_ERROR)
        # The message there now (nearly every MQGET of a busy queue): answered without building the
        # waiting machinery below (HP4); the wait's first look is this one.
        got = self.qm.get(session, handle, req.MsgDesc, gmo, req.BufferLength)
        if got is not None:
            return self._got(conn, seg, handle, got)

        def attempt() -> Replies | None:
            got = self.qm.get(session, handle, req.MsgDesc, gmo, req.BufferLength)
            if got is None:
                return None
            return self._got(conn, seg, handle, got)

        def expired() -> list[bytes]:
            reason = C.MQRC_CONNECTION_BROKEN if session.stopped else C.MQRC_NO_MSG_AVAILABLE
            self.qm.get_ended(session, handle, gmo, reason)  # counted and traced (registry/monitoring/activity.py)
            return self.reply(conn, seg, comp=C.MQCC_FAILED, reason=reason, hobj=handle.hobj)

        return self._get_or_wait(conn, conv, handle, gmo.Options, gmo.WaitInterval, attempt, expired, looked=True)

    def _got(self, conn: Connection, seg: fap.Segment, handle: Handle, got: Got) -> Replies:
        """The reply to an MQGET that found its message: ``calls.MQGetReply`` of its descriptor, options, data
        and full length packed, in pieces (HP4); it leaves once the message's journal position is durable."""
        parts = (got.md.pack(_LE), got.gmo.pack(_LE), _I32.pack(got.full_length), got.data)
        return self._reply_of(conn, seg, parts, comp=got.comp, reason=got.reason, hobj=handle.hobj), got.durable_after

    def _get_or_wait(self, conn: Connection, conv: Conversation, handle: Handle, options: int, wait: int,
                     attempt: Callable[[], Replies | None], expired: Callable[[], list[bytes]], *,
                     looked: bool = False) -> Replies:
        """Answer now, or park a background task that answers when a message arrives or the wait ends.
        ``looked``: the caller has just tried ``attempt``'s look and found nothing."""
        if not looked:
            found = attempt()
            if found is not None:
                return found
        wait = wait if options & C.MQGMO_WAIT else 0
        if wait == 0:
            return expired(), 0
        if wait < C.MQWI_UNLIMITED:
            raise MQIError(C.MQRC_WAIT_INTERVAL_ERROR)
        scope = trio.CancelScope()
        conv.wait_scope = scope
        # A virtual clock (VC2): the wait's deadline is on the queue manager's clock, registered with it
        # now -- before any reply -- so a test can see the application waiting and then move the clock.
        virtual = self.qm.clock_control.virtual
        timer = None
        if virtual is not None:
            at = self.qm.now() + wait / 1000 if wait >= 0 else float("inf")
            timer = (virtual.add_wait(at), at)
        conn.nursery.start_soon(self._wait, conn, conv, handle, wait, attempt, expired, scope, timer)
        return [], 0

    async def _wait(self, conn: Connection, conv: Conversation, handle: Handle, wait_ms: int,
                    attempt: Callable[[], Replies | None], expired: Callable[[], list[bytes]],
                    scope: trio.CancelScope, timer: tuple[int, float] | None = None) -> None:
        """The one home of a waiting GET: look, park until the queue gains a message, heartbeat the
        client every HBINT while it waits (docs/reference/fap.md 22), answer empty when the wait is over.  With a
        virtual clock (``timer``, VC2) the interval is measured on the queue manager's clock, which wakes
        this task when it moves; heartbeats stay on real time."""
        virtual = self.qm.clock_control.virtual if timer is not None else None
        try:
            await self._wait_on(conn, conv, handle, wait_ms, attempt, expired, scope, virtual,
                                timer[1] if timer is not None else None)
        finally:
            if virtual is not None:
                virtual.remove_wait(timer[0])

    async def _wait_on(self, conn: Connection, conv: Conversation, handle: Handle, wait_ms: int,
                       attempt: Callable[[], Replies | None], expired: Callable[[], list[bytes]],
                       scope: trio.CancelScope, virtual, virtual_deadline: float | None) -> None:
        with scope:
            session = conv.session
            # The interval in real time; with a virtual clock also on that clock, whichever passes first
            # (VC2): a step ends the wait early, and no client's own timer sees a reply come later than
            # the interval it asked for.
            deadline = trio.current_time() + wait_ms / 1000 if wait_ms >= 0 else float("inf")
            virtual_at = virtual_deadline if virtual is not None else None
            beat = max(conn.agreement.heartbeat_interval, 1)
            next_beat = trio.current_time() + beat
            while trio.current_time() < deadline and (virtual_at is None or virtual() < virtual_at):
                if session is None or handle.hobj not in session.handles:
                    return  # closed or disconnected while waiting
                if session.stopped:
                    break  # Stop Connection: the wait ends now, answered by ``expired``
                # Look before every park: a put between our caller's try and this task's first park
                # notified nobody.  No await separates the look from the park, so nothing slips in.
                found = attempt()
                if found is not None:
                    conv.wait_scope = None
                    pieces, position = found
                    if position > self.qm.durable_position:
                        with trio.CancelScope(shield=True):  # the message is gone from the queue: answer
                            await self.server.committer.wait(position)
                    for piece in pieces:
                        await conn.send(piece)
                    return
                with trio.move_on_at(min(deadline, next_beat)):
                    await self.activity.lot(handle.name).park()
                    continue
                if trio.current_time() >= next_beat:
                    # A silent socket looks dead to a client: keep it alive while the GET waits.
                    await conn.send_heartbeat()
                    next_beat = trio.current_time() + beat
            conv.wait_scope = None
            for piece in expired():
                await conn.send(piece)
            if session is not None and session.stopped:
                await self.disconnect(conn, conv)  # its unit of work backed out, as for any stopped call

    # ---- REQUEST_MSGS / ASYNC_MESSAGE / NOTIFICATION (docs/reference/fap.md sections 23-25) -------------------------
    async def request_msgs(self, conn: Connection, seg: fap.Segment) -> None:
        """A multiplexed client's GET: the message comes back as ASYNC_MESSAGE segments, and a wait
        that ends empty as a NOTIFICATION (CHECK_MSG), as the reference's real replies show."""
        h = seg.header
        req: fap.RequestMsgs = fap.decode_body(seg)
        conv = conn.conversation(h.ConversationId)
        if conv is None or conv.session is None:
            await conn.fail(fap.CONV_ID_ERROR, conv_id=h.ConversationId, detail="REQUEST_MSGS on no connection")
        session = conv.session
        md = S.MQMD(MsgId=req.MsgId or ZERO24, CorrelId=req.CorrelId or ZERO24)
        match = req.MatchOptions if req.MatchOptions is not None else 0
        gmo = S.MQGMO(Version=2, Options=req.GetMsgOptions, WaitInterval=req.WaitInterval, MatchOptions=match)
        try:
            handle = self.qm.input_handle(session, req.Hobj, req.GetMsgOptions)
        except MQIError as exc:
            await self._send_all(conn, self._async_message(conn, h, req, None, exc.reason))
            return

        def attempt() -> Replies | None:
            got = self.qm.get(session, handle, md, gmo, max(req.MaxMsgLength, 0))
            if got is None:
                return None
            return self._async_message(conn, h, req, got, 0), got.durable_after

        def expired() -> list[bytes]:
            note = fap.Notification(Version=1, Hobj=req.Hobj, Code=fap.NOTIFY_CHECK_MSG, Value=0)
            return [fap.encode_segment(fap.NOTIFICATION, note.pack(_LE), struct_id=fap.TSHM,
                                       conversation_id=h.ConversationId, request_id=h.RequestId,
                                       control_flags1=fap.CF1_FIRST)]

        before = self.qm.position
        try:
            pieces, position = self._get_or_wait(conn, conv, handle, req.GetMsgOptions, req.WaitInterval,
                                                 attempt, expired)
        except MQIError as exc:
            pieces, position = self._async_message(conn, h, req, None, exc.reason), 0
        await self._answer(conn, pieces, position, before)

    async def _send_all(self, conn: Connection, pieces: list[bytes]) -> None:
        for piece in pieces:
            await conn.send(piece)

    def _async_message(self, conn: Connection, h: fap.SegmentHeader, req: fap.RequestMsgs, got: Got | None,
                       reason: int) -> list[bytes]:
        """ASYNC_MESSAGE segments (RequestId 1) carrying MQMD v2 + data, split to fit MaxTransmissionSize."""
        if got is None:
            header = fap.AsyncMessageHeader(Version=req.Version, Hobj=req.Hobj, Reason=reason, ResolvedQName="")
            first_body, data = header.pack(_LE), b""
        else:
            data = got.data
            self._async_index += 1
            header = fap.AsyncMessageHeader(
                Version=req.Version, Hobj=req.Hobj, MessageIndex=self._async_index,
                GlobalMessageIndex=self._async_index, SegmentLength=len(data), SegmentIndex=0,
                SelectionIndex=req.SelectionIndex or 0, Reason=got.reason, TotalMsgLength=got.full_length,
                ActualMsgLength=len(data), MsgToken=got.md.MsgId[:16], Status=1, ResolvedQName=got.resolved_queue)
            md2 = dataclasses.replace(got.md, Version=C.MQMD_VERSION_2)
            first_body = header.pack(_LE) + md2.pack(_LE)
        limit = conn.agreement.max_transmission_size - fap.TSHM_LENGTH
        room = max(limit - len(first_body), 0)
        chunks = [data[:room]]
        rest = data[room:]
        while rest:
            step = limit - fap.ASYNC_SHORT_LENGTH
            chunks.append(rest[:step])
            rest = rest[step:]
        out = []
        for i, chunk in enumerate(chunks):
            flags = (fap.CF1_FIRST if i == 0 else 0) | (fap.CF1_LAST if i == len(chunks) - 1 else 0)
            if i == 0:
                body = first_body + chunk
            else:
                short = fap.AsyncMessageHeader(Version=req.Version, Hobj=req.Hobj, MessageIndex=header.MessageIndex,
                                               GlobalMessageIndex=header.GlobalMessageIndex, SegmentLength=len(chunk),
                                               SegmentIndex=i, SelectionIndex=header.SelectionIndex, Reason=None,
                                               TotalMsgLength=None, ActualMsgLength=None, MsgToken=None, Status=None,
                                               ResolvedQName=None)
                body = short.pack(_LE) + chunk
            out.append(fap.encode_segment(fap.ASYNC_MESSAGE, body, struct_id=fap.TSHM,
                                          conversation_id=h.ConversationId, request_id=1, control_flags1=flags))
        return out

    # ---- MQINQ / MQSET ---------------------------------------------------------------------------
    def _inq(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        req, _ = calls.MQInqRequest.unpack(call.Data, 0, seg.header.order)
        hobj = call.ApiHeader.Hobj
        ints, chars, comp, reason = self.qm.inquire(conv.session, hobj, list(req.Selectors), req.IntAttrCount,
                                                    req.CharAttrLength)
        reply = calls.MQInqReply(list(req.Selectors), ints, chars)
        return self.reply(conn, seg, reply.pack(_LE), comp=comp, reason=reason, hobj=hobj), 0

    def _set(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        # MQSET carries the selectors, then the integer values, then the character values, with the
        # same three counts in front as an MQINQ reply (docs/reference/fap.md section 17; Wireshark's MQ dissector).
        req, _ = calls.MQInqReply.unpack(call.Data, 0, seg.header.order)
        hobj = call.ApiHeader.Hobj
        self.qm.set(conv.session, hobj, list(req.Selectors), list(req.IntAttrs), req.CharAttrs)
        return self.reply(conn, seg, hobj=hobj), 0

    # ---- MQSUB / MQSUBRQ -------------------------------------------------------------------------
    def _sub(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        req, _ = calls.MQSubRequest.unpack(call.Data, 0, seg.header.order)
        sd = dataclasses.replace(req.SubDesc)
        hsub, sd, dest_hobj = self.qm.subscribe(conv.session, sd, call.ApiHeader.Hobj)
        conn.log.info("subscribe", user=conv.user, topic=hsub.name, durable=bool(sd.Options & C.MQSO_DURABLE),
                      managed=bool(sd.Options & C.MQSO_MANAGED))
        reply = calls.MQSubReply(hsub.hobj, C.MQREADA_NO, sd)
        return self.reply(conn, seg, reply.pack(_LE), hobj=dest_hobj), 0

    def _subrq(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> Replies:
        req, _ = calls.MQSubRqRequest.unpack(call.Data, 0, seg.header.order)
        sent = self.qm.subscription_request(conv.session, call.ApiHeader.Hobj, req.Action)
        req.SubRqOpts.NumPubs = sent
        reply = calls.MQSubRqReply(req.Action, req.SubRqOpts)
        return self.reply(conn, seg, reply.pack(_LE), hobj=call.ApiHeader.Hobj), 0


def _conname(conn: Connection) -> str:
    """The client's address as IBM shows CONNAME for a client connection: its IP address."""
    try:
        peer = conn.raw.socket.getpeername()
    except (AttributeError, OSError):
        return ""
    return str(peer[0]) if isinstance(peer, tuple) else str(peer)
