"""The MQI verbs a client calls over its conversation (fap.md sections 11-20).

Each verb turns a decoded call into reply segments.  Queues hold messages in the registry's
MessageStore; a GET that has to wait runs as a background task of the connection, so heartbeats and
other conversations on the same socket keep flowing, and it is woken by a put to its queue.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from qmlite.pcf import calls, fap
from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.pcf.encoding import order_of_encoding
from qmlite.pcf.errors import CodecError
from qmlite.registry import defaults, topics
from qmlite.registry.messages import Message
from qmlite.registry.model import Queue

if TYPE_CHECKING:
    from .connection import Connection, Conversation
    from .listener import QueueManagerServer

ZERO24 = bytes(24)
_LE = fap.LITTLE
PCF_FORMATS = frozenset({C.MQFMT_ADMIN.rstrip(), C.MQFMT_EVENT.rstrip(), C.MQFMT_PCF.rstrip()})
_INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
_CONTEXT_SET = C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT
_BROWSE = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
_INQ_CHAR_LENGTH = {C.MQCA_Q_MGR_NAME: 48, C.MQCA_Q_MGR_IDENTIFIER: 48, C.MQCA_DEAD_LETTER_Q_NAME: 48,
                    C.MQCA_COMMAND_INPUT_Q_NAME: 48, C.MQCA_Q_NAME: 48, C.MQCA_Q_DESC: 64,
                    C.MQCA_Q_MGR_DESC: 64, C.MQCA_BASE_Q_NAME: 48, C.MQCA_CREATION_DATE: 12,
                    C.MQCA_CREATION_TIME: 8, C.MQCA_TOPIC_STRING: 10240}


_STAMP = [-1, "", ""]  # the second last formatted, its PutDate and its PutTime without hundredths


def put_stamp(now: float) -> tuple[str, str]:
    """PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` in GMT; formatting once a second is enough."""
    second = int(now)
    if second != _STAMP[0]:
        t = time.gmtime(second)
        _STAMP[:] = [second, time.strftime("%Y%m%d", t), time.strftime("%H%M%S", t)]
    return _STAMP[1], f"{_STAMP[2]}{int(now * 100) % 100:02d}"


class MQIFailure(Exception):
    def __init__(self, reason: int, comp: int = C.MQCC_FAILED) -> None:
        super().__init__(C.describe("MQRC", reason))
        self.reason = reason
        self.comp = comp


@dataclasses.dataclass(slots=True)
class Handle:
    hobj: int
    kind: str  # "queue", "qmgr" or "topic"
    name: str  # queue name (an alias resolved to its target), or the topic string
    options: int
    queue_name: str = ""  # as opened (the alias name, or the dynamic queue's name)
    temporary: bool = False  # a temporary dynamic queue: deleted on close
    browsed: set = dataclasses.field(default_factory=set)


@dataclasses.dataclass(slots=True)
class ConvState:
    wait_scope: trio.CancelScope | None = None
    # The unit of work: puts and publications not yet visible, gets not yet final.
    uow_puts: list = dataclasses.field(default_factory=list)  # (queue, md, data) or (None, topic, md, data, pmo)
    uow_gets: list = dataclasses.field(default_factory=list)  # (queue name, Message)


class QueueActivity:
    """Per-queue parking lots: a put wakes the GETs waiting on that queue."""

    def __init__(self) -> None:
        self._lots: dict[str, trio.lowlevel.ParkingLot] = {}

    def lot(self, queue: str) -> trio.lowlevel.ParkingLot:
        lot = self._lots.get(queue)
        if lot is None:
            lot = self._lots[queue] = trio.lowlevel.ParkingLot()
        return lot

    def notify(self, queue: str) -> None:
        lot = self._lots.get(queue)
        if lot is not None:
            lot.unpark_all()


class MQI:
    def __init__(self, server: QueueManagerServer) -> None:
        self.server = server
        self.registry = server.registry
        self.activity = QueueActivity()
        self.open_input: dict[str, int] = {}
        self.open_output: dict[str, int] = {}
        self.exclusive: dict[str, int] = {}  # queue -> number of exclusive input handles
        self._verbs: dict[int, Callable] = {
            fap.MQCONN: self._conn, fap.MQDISC: self._disc, fap.MQOPEN: self._open, fap.MQCLOSE: self._close,
            fap.MQPUT: self._put, fap.MQPUT1: self._put1, fap.MQGET: self._get, fap.MQINQ: self._inq,
            fap.MQCMIT: self._cmit, fap.MQBACK: self._back,
        }
        from . import subscribe  # it builds on Handle and MQIFailure from this module

        self._subscribe = subscribe
        self._verbs[fap.MQSUB] = lambda conn, conv, seg, call: subscribe.mqsub(self, conn, conv, seg, call)
        self._verbs[fap.MQSUBRQ] = lambda conn, conv, seg, call: subscribe.mqsubrq(self, conn, conv, seg, call)

    # ---- entry points from the connection --------------------------------------------------------
    async def call(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        t = seg.header.SegmentType
        verb = self._verbs.get(t)
        try:
            if verb is None:
                raise MQIFailure(C.MQRC_FUNCTION_NOT_SUPPORTED)
            if t != fap.MQCONN and not conv.connected:
                raise MQIFailure(C.MQRC_HCONN_ERROR)
            return await verb(conn, conv, seg, call)
        except MQIFailure as exc:
            conn.log.info("mqi", verb=fap.segment_type_name(t), user=conv.user, reason=C.describe("MQRC", exc.reason))
            return self.reply(conn, seg, comp=exc.comp, reason=exc.reason, hobj=call.ApiHeader.Hobj)
        except CodecError as exc:
            if exc.family == "MQRC":  # a malformed structure: the MQI answer, not a channel error
                conn.log.info("mqi", verb=fap.segment_type_name(t), user=conv.user, reason=exc.reason_name,
                              detail=exc.detail)
                return self.reply(conn, seg, comp=C.MQCC_FAILED, reason=exc.reason, hobj=call.ApiHeader.Hobj)
            raise

    def reply(self, conn: Connection, seg: fap.Segment, body: bytes = b"", *, comp: int = 0, reason: int = 0,
              hobj: int = 0) -> list[bytes]:
        return fap.api_reply_segments(seg.header, body, conn.agreement.max_transmission_size,
                                      comp_code=comp, reason=reason, hobj=hobj)

    async def disconnect(self, conn: Connection, conv: Conversation, *, commit: bool = False) -> None:
        """End a conversation: MQDISC commits its unit of work, a lost connection backs it out."""
        state = self._state(conv)
        if state.wait_scope is not None:
            state.wait_scope.cancel()
        if commit:
            self.commit_uow(state)
        else:
            self.backout_uow(state)
        for handle in list(conv.handles.values()):
            self._release(conv, handle, C.MQCO_NONE)
        conv.handles.clear()
        if conv.connected:
            conn.log.info("disconnect_conversation", conversation=conv.conv_id, user=conv.user)
        conv.connected = False

    @staticmethod
    def _state(conv: Conversation) -> ConvState:
        if conv.state is None:
            conv.state = ConvState()
        return conv.state

    # ---- MQCONN / MQDISC -------------------------------------------------------------------------
    async def _conn(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        body: fap.MQConnBody = call.Call
        comp, reason = C.MQCC_OK, self._connect(conn, conv, body)
        if reason:
            comp = C.MQCC_WARNING if reason == C.MQRC_ALREADY_CONNECTED else C.MQCC_FAILED
            conn.log.warning("connect_refused", user=conv.auth_user or conv.user_id, channel=conn.channel.name,
                             reason=C.describe("MQRC", reason))
        fcno = None
        if body.Fcno is not None:
            conn_id = conv.connection_id if conv.connected else bytes(24)
            fcno = fap.Fcno(Version=min(body.Fcno.Version, 2), CapabilityFlags=2,  # no AMS policies
                            ConnTag=conn_id + bytes(104))
        # A failed connect still echoes the MQCONN structures: clients read them before the reason.
        out = fap.MQConnBody(QMgrName=self.registry.qmgr.name, ApplName=body.ApplName, ApplType=body.ApplType,
                             AccountingToken=body.AccountingToken, Options=body.Options, XOptions=body.XOptions,
                             Fcno=fcno, ReconnectionId=bytes(24) if body.ReconnectionId is not None else None,
                             ReconnectionQmId=bytes(48) if body.ReconnectionQmId is not None else None)
        return self.reply(conn, seg, out.pack(_LE), comp=comp, reason=reason)

    def _connect(self, conn: Connection, conv: Conversation, body: fap.MQConnBody) -> int:
        qmgr = self.registry.qmgr
        if conv.connected:
            return C.MQRC_ALREADY_CONNECTED
        if body.QMgrName not in ("", "*", qmgr.name):
            return C.MQRC_Q_MGR_NAME_ERROR
        if self.server.quiescing:
            return C.MQRC_Q_MGR_QUIESCING
        reason = conn.authenticate(conv)
        if reason:
            return reason
        conv.connected = True
        conv.appl_name, conv.appl_type = body.ApplName, body.ApplType
        conv.connection_id = self.registry.ids.connection_id()
        conn.log.info("connect_conversation", conversation=conv.conv_id, user=conv.user, appl=conv.appl_name,
                      channel=conn.channel.name)
        return C.MQRC_NONE

    async def _disc(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        await self.disconnect(conn, conv, commit=True)
        return self.reply(conn, seg)

    # ---- units of work ---------------------------------------------------------------------------
    async def _cmit(self, conn, conv, seg, call) -> list[bytes]:
        self.commit_uow(self._state(conv))
        return self.reply(conn, seg)

    async def _back(self, conn, conv, seg, call) -> list[bytes]:
        self.backout_uow(self._state(conv))
        return self.reply(conn, seg)

    def commit_uow(self, state: ConvState) -> None:
        puts, state.uow_puts = state.uow_puts, []
        state.uow_gets = []
        for item in puts:
            if item[0] is None:
                _, topic, md, data, pmo = item
                self.publish(topic, md, data, pmo)
                continue
            queue_name, md, data = item
            queue = self.registry.queues.get(queue_name)
            if queue is not None:
                try:
                    self.put_message(queue, md, data)
                except MQIFailure:
                    self._dead_letter(md, data)

    def backout_uow(self, state: ConvState) -> None:
        gets, state.uow_gets = state.uow_gets, []
        state.uow_puts = []
        for queue_name, msg in reversed(gets):
            if queue_name in self.registry.queues:
                msg.md = dataclasses.replace(msg.md, BackoutCount=msg.md.BackoutCount + 1)
                self.registry.messages.restore(queue_name, msg)
                self.activity.notify(queue_name)

    def _dead_letter(self, md: S.MQMD, data: bytes) -> None:
        dlq = self.registry.queues.get(self.registry.qmgr.dead_letter_queue)
        if dlq is not None:
            try:
                self.put_message(dlq, md, data)
            except MQIFailure:
                pass

    # ---- MQOPEN / MQCLOSE ------------------------------------------------------------------------
    async def _open(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        req, _ = calls.MQOpenRequest.unpack(call.Data, 0, seg.header.order)
        handle, od = self.open_object(conv, req.ObjDesc, req.Options)
        fopa = req.Fopa
        if fopa is not None:
            queue = self.registry.queues.get(handle.name) if handle.kind == "queue" else None
            fopa = S.FOPA(Version=fopa.Version, Length=28 if fopa.Version == 1 else 84,
                          DefPersistence=queue.def_persistence if queue else C.MQPER_NOT_PERSISTENT)
        reply = calls.MQOpenReply(od, req.Options, fopa)
        conn.log.debug("open", user=conv.user, object=handle.queue_name or handle.name, hobj=handle.hobj,
                      options=req.Options)
        return self.reply(conn, seg, reply.pack(_LE), hobj=handle.hobj)

    def open_object(self, conv: Conversation, od: S.MQOD, options: int) -> tuple[Handle, S.MQOD]:
        if len(conv.handles) >= self.server.cfg.max_handles:
            raise MQIFailure(C.MQRC_HANDLE_NOT_AVAILABLE)
        reg = self.registry
        if od.ObjectQMgrName not in ("", reg.qmgr.name):
            raise MQIFailure(C.MQRC_UNKNOWN_OBJECT_Q_MGR)
        if od.ObjectType == C.MQOT_Q_MGR:
            if options & ~(C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_ALTERNATE_USER_AUTHORITY):
                raise MQIFailure(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            handle = Handle(0, "qmgr", reg.qmgr.name, options)
        elif od.ObjectType == C.MQOT_TOPIC:
            handle = self._open_topic(conv, od, options)
        elif od.ObjectType == C.MQOT_Q:
            handle = self._open_queue(conv, od, options)
        else:
            raise MQIFailure(C.MQRC_OBJECT_TYPE_ERROR)
        handle.hobj = conv.next_handle
        conv.next_handle += 1
        conv.handles[handle.hobj] = handle
        if handle.kind == "queue":
            if options & _INPUT:
                self.open_input[handle.name] = self.open_input.get(handle.name, 0) + 1
            if options & C.MQOO_INPUT_EXCLUSIVE:
                self.exclusive[handle.name] = self.exclusive.get(handle.name, 0) + 1
            if options & C.MQOO_OUTPUT:
                self.open_output[handle.name] = self.open_output.get(handle.name, 0) + 1
            od.ResolvedQName = handle.name
            od.ResolvedQMgrName = reg.qmgr.name
        return handle, od

    def _open_queue(self, conv: Conversation, od: S.MQOD, options: int) -> Handle:
        reg = self.registry
        name = od.ObjectName
        queue = reg.queues.get(name)
        if queue is None:
            raise MQIFailure(C.MQRC_UNKNOWN_OBJECT_NAME)
        if not conv.admin and not name.startswith("DEV."):
            raise MQIFailure(C.MQRC_NOT_AUTHORIZED)  # the developer container grants app DEV.** only
        if options & (C.MQOO_SET | C.MQOO_SET_ALL_CONTEXT | C.MQOO_SET_IDENTITY_CONTEXT) and not conv.admin:
            raise MQIFailure(C.MQRC_NOT_AUTHORIZED)
        temporary = False
        if queue.qtype == C.MQQT_MODEL:
            queue, temporary = self._create_dynamic(conv, queue, od.DynamicQName)
            od.ObjectName = queue.name
        elif queue.qtype == C.MQQT_ALIAS:
            target = reg.queues.get(queue.target)
            if queue.target_type == C.MQOT_TOPIC:
                raise MQIFailure(C.MQRC_FUNCTION_NOT_SUPPORTED)
            if target is None or target.qtype != C.MQQT_LOCAL:
                raise MQIFailure(C.MQRC_UNKNOWN_ALIAS_BASE_Q)
            queue = target
        if options & _INPUT:
            if queue.inhibit_get == C.MQQA_GET_INHIBITED:
                raise MQIFailure(C.MQRC_GET_INHIBITED)
            exclusive = options & C.MQOO_INPUT_EXCLUSIVE or (
                options & C.MQOO_INPUT_AS_Q_DEF and queue.def_input_open_option == C.MQOO_INPUT_EXCLUSIVE)
            if self.exclusive.get(queue.name) or (exclusive and self.open_input.get(queue.name)):
                raise MQIFailure(C.MQRC_OBJECT_IN_USE)
        if options & C.MQOO_OUTPUT and queue.inhibit_put == C.MQQA_PUT_INHIBITED:
            raise MQIFailure(C.MQRC_PUT_INHIBITED)
        return Handle(0, "queue", queue.name, options, queue_name=od.ObjectName, temporary=temporary)

    def _create_dynamic(self, conv: Conversation, model: Queue, template: str) -> tuple[Queue, bool]:
        reg = self.registry
        template = template or "AMQ.*"
        if not conv.admin:
            raise MQIFailure(C.MQRC_NOT_AUTHORIZED)
        name = reg.ids.dynamic_name(template)
        if name in reg.queues:
            raise MQIFailure(C.MQRC_OBJECT_ALREADY_EXISTS)
        if not name or len(name) > 48:
            raise MQIFailure(C.MQRC_DYNAMIC_Q_NAME_ERROR)
        temporary = model.def_type == C.MQQDT_TEMPORARY_DYNAMIC
        now = reg.now()
        queue = dataclasses.replace(model, name=name, qtype=C.MQQT_LOCAL, definition_type=model.def_type,
                                    created=now, altered=now)
        if temporary:
            reg.queues[name] = queue  # temporary dynamic queues never outlive their handle: not stored
        else:
            reg.put_queue(queue)
            reg.commit()
        return queue, temporary

    def resolve_topic(self, conv: Conversation, object_name: str, object_string: str, *, empty: int) -> str:
        """The full topic string of a topic object + string, checked for ``conv``'s user.

        ``empty`` is the reason when both are blank (MQOPEN and MQSUB answer differently).
        """
        reg = self.registry
        base = ""
        if object_name:
            topic = reg.topics.get(object_name)
            if topic is None:
                raise MQIFailure(C.MQRC_UNKNOWN_OBJECT_NAME)
            base = topic.topic_string
        string = topics.combine(base, object_string)
        if not string:
            raise MQIFailure(empty)
        try:
            topics.validate(string)
        except topics.TopicError:
            raise MQIFailure(C.MQRC_TOPIC_STRING_ERROR) from None
        if not conv.admin:  # the developer container grants app the topics under DEV.* objects only
            node = next(reg.topic_nodes(string), None)
            if node is None or not node.name.startswith("DEV."):
                raise MQIFailure(C.MQRC_NOT_AUTHORIZED)
        return string

    def _open_topic(self, conv: Conversation, od: S.MQOD, options: int) -> Handle:
        reg = self.registry
        string = self.resolve_topic(conv, od.ObjectName, od.ObjectString.VSString, empty=C.MQRC_UNKNOWN_OBJECT_NAME)
        if topics.has_topic_wildcards(string):
            raise MQIFailure(C.MQRC_TOPIC_STRING_ERROR)
        if options & ~(C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_ALTERNATE_USER_AUTHORITY
                       | C.MQOO_PASS_ALL_CONTEXT | C.MQOO_PASS_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT
                       | C.MQOO_SET_IDENTITY_CONTEXT):
            raise MQIFailure(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        if reg.topic_attr(string, "inhibit_publications") == C.MQTA_PUB_INHIBITED:
            raise MQIFailure(C.MQRC_PUT_INHIBITED)
        od.ResObjectString = S.MQCHARV(string, max(od.ResObjectString.VSBufSize, 0))
        return Handle(0, "topic", string, options)

    async def _close(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        req, _ = calls.MQCloseRequest.unpack(call.Data, 0, seg.header.order)
        handle = conv.handles.pop(call.ApiHeader.Hobj, None)
        if handle is None:
            raise MQIFailure(C.MQRC_HOBJ_ERROR)
        self._release(conv, handle, req.Options)
        return self.reply(conn, seg, hobj=C.MQHO_UNUSABLE_HOBJ)

    def _release(self, conv: Conversation, handle: Handle, options: int) -> None:
        if handle.kind == "sub":
            self._subscribe.close_sub(self, conv, handle, options)
            return
        if handle.kind != "queue":
            return
        name = handle.name
        for table, flag in ((self.open_input, _INPUT), (self.open_output, C.MQOO_OUTPUT),
                            (self.exclusive, C.MQOO_INPUT_EXCLUSIVE)):
            if handle.options & flag and table.get(name):
                table[name] -= 1
                if not table[name]:
                    del table[name]
        reg = self.registry
        queue = reg.queues.get(name)
        if queue is None:
            return
        if handle.temporary:
            reg.queues.pop(name, None)
            reg.messages.drop(name)
        elif options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE) and queue.definition_type == C.MQQDT_PERMANENT_DYNAMIC:
            if options & C.MQCO_DELETE and not options & C.MQCO_DELETE_PURGE and reg.messages.depth(name):
                return  # MQ keeps a non-empty queue on DELETE without PURGE
            reg.remove_queue(queue)
            reg.commit()

    # ---- MQPUT / MQPUT1 --------------------------------------------------------------------------
    async def _put(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        req, _ = calls.MQPutRequest.unpack(call.Data, 0, seg.header.order)
        handle = conv.handles.get(call.ApiHeader.Hobj)
        if handle is None:
            raise MQIFailure(C.MQRC_HOBJ_ERROR)
        md, pmo, reason = self.put_handle(conv, handle, req.MsgDesc, req.PutMsgOpts, req.Data)
        reply = calls.MQPutReply(md, pmo, len(req.Data))
        return self.reply(conn, seg, reply.pack(_LE), comp=C.MQCC_WARNING if reason else 0, reason=reason,
                          hobj=handle.hobj)

    async def _put1(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        req, _ = calls.MQPut1Request.unpack(call.Data, 0, seg.header.order)
        options = C.MQOO_OUTPUT | (req.PutMsgOpts.Options & C.MQPMO_FAIL_IF_QUIESCING and C.MQOO_FAIL_IF_QUIESCING)
        handle, od = self.open_object(conv, req.ObjDesc, options)
        try:
            md, pmo, reason = self.put_handle(conv, handle, req.MsgDesc, req.PutMsgOpts, req.Data)
        finally:
            conv.handles.pop(handle.hobj, None)
            self._release(conv, handle, C.MQCO_NONE)
        reply = calls.MQPut1Reply(od, md, pmo, len(req.Data))
        return self.reply(conn, seg, reply.pack(_LE), comp=C.MQCC_WARNING if reason else 0, reason=reason,
                          hobj=C.MQHO_UNUSABLE_HOBJ)

    def put_handle(self, conv: Conversation, handle: Handle, md: S.MQMD, pmo: S.MQPMO,
                   data: bytes) -> tuple[S.MQMD, S.MQPMO, int]:
        if not handle.options & C.MQOO_OUTPUT:
            raise MQIFailure(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        if pmo.Options & C.MQPMO_SYNCPOINT and pmo.Options & C.MQPMO_NO_SYNCPOINT:
            raise MQIFailure(C.MQRC_OPTIONS_ERROR)
        reg = self.registry
        stored = md  # decoded for this call alone: filled in place, then stored and echoed
        now = time.time()
        if pmo.Options & C.MQPMO_NEW_MSG_ID or md.MsgId == ZERO24:
            stored.MsgId = reg.ids.msg_id()
        if pmo.Options & C.MQPMO_NEW_CORREL_ID:
            stored.CorrelId = reg.ids.msg_id()
        if not (pmo.Options & _CONTEXT_SET and conv.admin):
            stored.UserIdentifier = conv.user
            stored.AccountingToken = bytes(32)
            stored.ApplIdentityData = ""
        if not (pmo.Options & C.MQPMO_SET_ALL_CONTEXT and conv.admin):
            stored.PutApplType = conv.appl_type or C.MQAT_DEFAULT
            stored.PutApplName = conv.appl_name[:28]
            stored.PutDate, stored.PutTime = put_stamp(now)
            stored.ApplOriginData = ""
        if stored.ReplyToQ and not stored.ReplyToQMgr:
            stored.ReplyToQMgr = reg.qmgr.name
        stored.BackoutCount = 0
        if stored.Priority != C.MQPRI_PRIORITY_AS_Q_DEF and not 0 <= stored.Priority <= 9:
            raise MQIFailure(C.MQRC_PRIORITY_ERROR)
        if stored.Persistence not in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT, C.MQPER_PERSISTENCE_AS_Q_DEF):
            raise MQIFailure(C.MQRC_PERSISTENCE_ERROR)
        if stored.Expiry == 0 or stored.Expiry < C.MQEI_UNLIMITED:
            raise MQIFailure(C.MQRC_EXPIRY_ERROR)
        out_pmo = pmo
        out_pmo.ResolvedQMgrName = reg.qmgr.name
        syncpoint = bool(pmo.Options & C.MQPMO_SYNCPOINT)
        if handle.kind == "topic" and syncpoint:
            self._state(conv).uow_puts.append((None, handle.name, stored, bytes(data), pmo))
            return stored, out_pmo, 0
        if handle.kind == "topic":
            delivered = self.publish(handle.name, stored, data, pmo)
            out_pmo.ResolvedQName = ""
            if not delivered and pmo.Options & C.MQPMO_WARN_IF_NO_SUBS_MATCHED:
                return stored, out_pmo, C.MQRC_NO_SUBS_MATCHED
            return stored, out_pmo, 0
        queue = reg.queues.get(handle.name)
        if queue is None:
            raise MQIFailure(C.MQRC_Q_DELETED)
        if syncpoint:
            self.check_put(queue, data)
            self._state(conv).uow_puts.append((queue.name, stored, bytes(data)))
        else:
            self.put_message(queue, stored, data, now)
        out_pmo.ResolvedQName = handle.queue_name if handle.temporary else queue.name
        out_pmo.KnownDestCount = 1
        return stored, out_pmo, 0

    def put_message(self, queue: Queue, md: S.MQMD, data: bytes, now: float | None = None) -> None:
        """Put onto a local queue, checking its limits, and wake the GETs waiting on it."""
        reg = self.registry
        now = time.time() if now is None else now
        self.check_put(queue, data)
        if md.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            md.Priority = queue.def_priority
        if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            md.Persistence = queue.def_persistence
        expires = now + md.Expiry / 10.0 if md.Expiry > 0 else None
        reg.messages.put(queue.name, Message(md, bytes(data), md.Priority, md.MsgId, md.CorrelId, now, expires))
        self.activity.notify(queue.name)

    def check_put(self, queue: Queue, data: bytes) -> None:
        reg = self.registry
        if queue.inhibit_put == C.MQQA_PUT_INHIBITED:
            raise MQIFailure(C.MQRC_PUT_INHIBITED)
        if len(data) > queue.max_msg_length:
            raise MQIFailure(C.MQRC_MSG_TOO_BIG_FOR_Q)
        if len(data) > reg.qmgr.max_msg_length:
            raise MQIFailure(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
        if reg.messages.depth(queue.name) >= queue.max_depth:
            raise MQIFailure(C.MQRC_Q_FULL)

    def publish(self, topic: str, md: S.MQMD, data: bytes, pmo: S.MQPMO) -> int:
        """Deliver a publication to the subscriptions that select it; returns how many got a copy."""
        reg = self.registry
        reg.expire_subscriptions()
        subs = [reg.subs_by_id[k] for k in reg.routes.match(topic)]
        # Subscriptions with a selector need the SQL92 selector engine, which is not built yet; MQ
        # never delivers what a selector rejects, so they receive nothing rather than everything.
        subs = [s for s in subs if not s.selector]
        level = pmo.PubLevel if pmo.Version >= 3 else 9
        eligible = [s for s in subs if s.sub_level <= level]
        top = max((s.sub_level for s in eligible), default=0)
        chosen = [s for s in eligible if s.sub_level == top]
        delivered = 0
        now = time.time()
        for sub in chosen:
            queue = reg.queues.get(sub.destination)
            if queue is None:
                continue
            copy = dataclasses.replace(md, MsgId=reg.ids.msg_id(), CorrelId=sub.destination_correl_id)
            if sub.pub_priority >= 0:
                copy.Priority = sub.pub_priority
            elif sub.pub_priority == C.MQPRI_PRIORITY_AS_Q_DEF:
                copy.Priority = C.MQPRI_PRIORITY_AS_Q_DEF
            try:
                self.put_message(queue, copy, data, now)
            except MQIFailure:
                continue
            sub.message_count += 1  # status, kept in memory like a queue manager's status
            sub.last_message = now
            delivered += 1
        return delivered

    # ---- MQGET -----------------------------------------------------------------------------------
    async def _get(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        req, _ = calls.MQGetRequest.unpack(call.Data, 0, seg.header.order)
        handle = self._input_handle(conv, call.ApiHeader.Hobj, req.GetMsgOpts.Options)
        if req.BufferLength < 0:
            raise MQIFailure(C.MQRC_BUFFER_LENGTH_ERROR)
        state = self._state(conv)

        def attempt() -> list[bytes] | None:
            taken = self._take(handle, req.MsgDesc, req.GetMsgOpts, req.BufferLength, state)
            if taken is None:
                return None
            md, gmo, data, full, comp, reason = taken
            body = calls.MQGetReply(md, gmo, data, full).pack(_LE)
            return self.reply(conn, seg, body, comp=comp, reason=reason, hobj=handle.hobj)

        def expired() -> list[bytes]:
            return self.reply(conn, seg, comp=C.MQCC_FAILED, reason=C.MQRC_NO_MSG_AVAILABLE, hobj=handle.hobj)

        gmo = req.GetMsgOpts
        return self._get_or_wait(conn, conv, handle, gmo.Options, gmo.WaitInterval, attempt, expired)

    def _input_handle(self, conv: Conversation, hobj: int, options: int) -> Handle:
        handle = conv.handles.get(hobj)
        if handle is None or handle.kind != "queue":
            raise MQIFailure(C.MQRC_HOBJ_ERROR)
        browse = options & _BROWSE
        if browse and not handle.options & C.MQOO_BROWSE:
            raise MQIFailure(C.MQRC_NOT_OPEN_FOR_BROWSE)
        if not browse and not handle.options & _INPUT:
            raise MQIFailure(C.MQRC_NOT_OPEN_FOR_INPUT)
        return handle

    def _get_or_wait(self, conn: Connection, conv: Conversation, handle: Handle, options: int, wait: int,
                     attempt: Callable[[], list[bytes] | None], expired: Callable[[], list[bytes]]) -> list[bytes]:
        """Answer now, or park a background task that answers when a message arrives or the wait ends."""
        found = attempt()
        if found is not None:
            return found
        wait = wait if options & C.MQGMO_WAIT else 0
        if wait == 0:
            return expired()
        if wait < C.MQWI_UNLIMITED:
            raise MQIFailure(C.MQRC_WAIT_INTERVAL_ERROR)
        state = self._state(conv)
        scope = trio.CancelScope()
        state.wait_scope = scope
        conn.nursery.start_soon(self._wait, conn, conv, handle, wait, attempt, expired, scope)
        return []

    async def _wait(self, conn: Connection, conv: Conversation, handle: Handle, wait_ms: int,
                    attempt: Callable[[], list[bytes] | None], expired: Callable[[], list[bytes]],
                    scope: trio.CancelScope) -> None:
        state = self._state(conv)
        with scope:
            deadline = trio.current_time() + wait_ms / 1000 if wait_ms >= 0 else float("inf")
            beat = max(conn.agreement.heartbeat_interval, 1)
            next_beat = trio.current_time() + beat
            while trio.current_time() < deadline:
                if handle.hobj not in conv.handles:
                    return  # closed or disconnected while waiting
                # Look before every park: a put between our caller's try and this task's first park
                # notified nobody.  No await separates the look from the park, so nothing slips in.
                found = attempt()
                if found is not None:
                    state.wait_scope = None
                    for piece in found:
                        await conn.send(piece)
                    return
                with trio.move_on_at(min(deadline, next_beat)):
                    await self.activity.lot(handle.name).park()
                    continue
                if trio.current_time() >= next_beat:
                    # A silent socket looks dead to a client: keep it alive while the GET waits (fap.md 22).
                    await conn.send_heartbeat()
                    next_beat = trio.current_time() + beat
            state.wait_scope = None
            for piece in expired():
                await conn.send(piece)

    def _take(self, handle: Handle, md: S.MQMD, gmo: S.MQGMO, buffer_length: int,
              state: ConvState) -> tuple[S.MQMD, S.MQGMO, bytes, int, int, int] | None:
        """Take (or browse) the first matching message: (md, gmo, data, full length, comp, reason)."""
        reg = self.registry
        match = gmo.MatchOptions if gmo.Version >= 2 else C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
        msg_id = md.MsgId if match & C.MQMO_MATCH_MSG_ID and md.MsgId != ZERO24 else None
        correl_id = md.CorrelId if match & C.MQMO_MATCH_CORREL_ID and md.CorrelId != ZERO24 else None
        contents = reg.messages.contents(handle.name)
        now = time.time()
        contents.expire(now)
        if gmo.Options & C.MQGMO_BROWSE_FIRST:
            handle.browsed.clear()
        browsing = gmo.Options & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT)
        msg = None
        for candidate in contents:
            if browsing and candidate.seq in handle.browsed:
                continue
            if msg_id is not None and candidate.msg_id != msg_id:
                continue
            if correl_id is not None and candidate.correl_id != correl_id:
                continue
            msg = candidate
            break
        if msg is None:
            return None
        data = msg.data
        out_md = msg.md  # only read from here on; conversion makes its own copy
        if gmo.Options & C.MQGMO_CONVERT:
            data, out_md = _convert(data, out_md, md)
        full = len(data)
        comp = reason = 0
        if full > buffer_length:
            comp = C.MQCC_WARNING
            if gmo.Options & C.MQGMO_ACCEPT_TRUNCATED_MSG:
                reason = C.MQRC_TRUNCATED_MSG_ACCEPTED
            else:
                reason = C.MQRC_TRUNCATED_MSG_FAILED
            data = data[:buffer_length]
        if browsing:
            handle.browsed.add(msg.seq)
        elif reason != C.MQRC_TRUNCATED_MSG_FAILED:
            contents.remove(msg)
            if gmo.Options & C.MQGMO_SYNCPOINT or (
                    gmo.Options & C.MQGMO_SYNCPOINT_IF_PERSISTENT and msg.md.Persistence == C.MQPER_PERSISTENT):
                state.uow_gets.append((handle.name, msg))
        gmo.ResolvedQName = handle.queue_name or handle.name  # the request's own GMO, echoed back
        gmo.ReturnedLength = len(data)
        return out_md, gmo, data, full, comp, reason

    # ---- REQUEST_MSGS / ASYNC_MESSAGE / NOTIFICATION (fap.md sections 23-25) -------------------------
    async def request_msgs(self, conn: Connection, seg: fap.Segment) -> None:
        """A multiplexed client's GET: the message comes back as ASYNC_MESSAGE segments, and a wait
        that ends empty as a NOTIFICATION (CHECK_MSG), as the reference's real replies show."""
        h = seg.header
        req: fap.RequestMsgs = fap.decode_body(seg)
        conv = conn.conversation(h.ConversationId)
        if conv is None or not conv.connected:
            await conn.fail(fap.CONV_ID_ERROR, conv_id=h.ConversationId, detail="REQUEST_MSGS on no connection")
        state = self._state(conv)
        md = S.MQMD(MsgId=req.MsgId or ZERO24, CorrelId=req.CorrelId or ZERO24)
        match = req.MatchOptions if req.MatchOptions is not None else 0
        gmo = S.MQGMO(Version=2, Options=req.GetMsgOptions, WaitInterval=req.WaitInterval, MatchOptions=match)
        try:
            handle = self._input_handle(conv, req.Hobj, req.GetMsgOptions)
        except MQIFailure as exc:
            await self._send_all(conn, self._async_message(conn, h, req, None, exc.reason))
            return

        def attempt() -> list[bytes] | None:
            taken = self._take(handle, md, gmo, max(req.MaxMsgLength, 0), state)
            return None if taken is None else self._async_message(conn, h, req, (handle, *taken), 0)

        def expired() -> list[bytes]:
            note = fap.Notification(Version=1, Hobj=req.Hobj, Code=fap.NOTIFY_CHECK_MSG, Value=0)
            return [fap.encode_segment(fap.NOTIFICATION, note.pack(_LE), struct_id=fap.TSHM,
                                       conversation_id=h.ConversationId, request_id=h.RequestId,
                                       control_flags1=fap.CF1_FIRST)]

        try:
            pieces = self._get_or_wait(conn, conv, handle, req.GetMsgOptions, req.WaitInterval, attempt, expired)
        except MQIFailure as exc:
            pieces = self._async_message(conn, h, req, None, exc.reason)
        await self._send_all(conn, pieces)

    async def _send_all(self, conn: Connection, pieces: list[bytes]) -> None:
        for piece in pieces:
            await conn.send(piece)

    def _async_message(self, conn: Connection, h: fap.SegmentHeader, req: fap.RequestMsgs, taken, reason: int) -> list[bytes]:
        """ASYNC_MESSAGE segments (RequestId 1) carrying MQMD v2 + data, split to fit MaxTransmissionSize."""
        if taken is None:
            header = fap.AsyncMessageHeader(Version=req.Version, Hobj=req.Hobj, Reason=reason, ResolvedQName="")
            first_body, data = header.pack(_LE), b""
        else:
            handle, md, gmo, data, full, _comp, reason = taken
            self._async_index = getattr(self, "_async_index", 0) + 1
            header = fap.AsyncMessageHeader(
                Version=req.Version, Hobj=req.Hobj, MessageIndex=self._async_index,
                GlobalMessageIndex=self._async_index, SegmentLength=len(data), SegmentIndex=0,
                SelectionIndex=req.SelectionIndex or 0, Reason=reason, TotalMsgLength=full,
                ActualMsgLength=len(data), MsgToken=md.MsgId[:16], Status=1,
                ResolvedQName=handle.queue_name or handle.name)
            md2 = dataclasses.replace(md, Version=C.MQMD_VERSION_2)
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

    # ---- MQINQ -----------------------------------------------------------------------------------
    async def _inq(self, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
        req, _ = calls.MQInqRequest.unpack(call.Data, 0, seg.header.order)
        handle = conv.handles.get(call.ApiHeader.Hobj)
        if handle is None:
            raise MQIFailure(C.MQRC_HOBJ_ERROR)
        if not handle.options & C.MQOO_INQUIRE:
            raise MQIFailure(C.MQRC_NOT_OPEN_FOR_INQUIRE)
        ints: list[int] = []
        chars: list[str] = []
        values = self._inq_values(handle)
        for sel in req.Selectors:
            value = values.get(sel)
            if value is None:
                raise MQIFailure(C.MQRC_SELECTOR_ERROR)
            if sel <= 2000:
                ints.append(value)  # type: ignore[arg-type]
            else:
                chars.append(str(value).ljust(_INQ_CHAR_LENGTH.get(sel, 48))[:_INQ_CHAR_LENGTH.get(sel, 48)])
        if len(ints) > req.IntAttrCount:
            raise MQIFailure(C.MQRC_INT_ATTR_COUNT_TOO_SMALL, C.MQCC_WARNING)
        text = "".join(chars)
        if len(text) > req.CharAttrLength:
            raise MQIFailure(C.MQRC_CHAR_ATTRS_TOO_SHORT, C.MQCC_WARNING)
        reply = calls.MQInqReply(list(req.Selectors), ints, text)
        return self.reply(conn, seg, reply.pack(_LE), hobj=handle.hobj)

    def _inq_values(self, handle: Handle) -> dict[int, object]:
        """Every attribute MQINQ can answer for what ``handle`` opened."""
        reg = self.registry
        q = reg.qmgr
        if handle.kind == "qmgr":
            return {
                C.MQIA_COMMAND_LEVEL: q.command_level, C.MQIA_PLATFORM: q.platform,
                C.MQIA_CODED_CHAR_SET_ID: q.ccsid, C.MQIA_MAX_HANDLES: self.server.cfg.max_handles,
                C.MQIA_MAX_MSG_LENGTH: q.max_msg_length, C.MQIA_MAX_PRIORITY: 9,
                C.MQIA_SYNCPOINT: C.MQSP_AVAILABLE, C.MQIA_DIST_LISTS: C.MQDL_NOT_SUPPORTED,
                C.MQCA_Q_MGR_NAME: q.name, C.MQCA_Q_MGR_IDENTIFIER: q.identifier,
                C.MQCA_DEAD_LETTER_Q_NAME: q.dead_letter_queue, C.MQCA_COMMAND_INPUT_Q_NAME: defaults.COMMAND_QUEUE,
                C.MQCA_Q_MGR_DESC: q.description,
            }
        queue = reg.queues.get(handle.name) if handle.kind == "queue" else None
        if queue is None:
            return {}
        return {
            C.MQIA_CURRENT_Q_DEPTH: reg.messages.depth(queue.name), C.MQIA_MAX_Q_DEPTH: queue.max_depth,
            C.MQIA_Q_TYPE: queue.qtype, C.MQIA_DEF_PERSISTENCE: queue.def_persistence,
            C.MQIA_DEF_PRIORITY: queue.def_priority, C.MQIA_INHIBIT_GET: queue.inhibit_get,
            C.MQIA_INHIBIT_PUT: queue.inhibit_put, C.MQIA_MAX_MSG_LENGTH: queue.max_msg_length,
            C.MQIA_SHAREABILITY: queue.shareability, C.MQIA_DEFINITION_TYPE: queue.definition_type,
            C.MQIA_OPEN_INPUT_COUNT: self.open_input.get(queue.name, 0),
            C.MQIA_OPEN_OUTPUT_COUNT: self.open_output.get(queue.name, 0),
            C.MQIA_DEF_INPUT_OPEN_OPTION: queue.def_input_open_option, C.MQIA_USAGE: queue.usage,
            C.MQCA_Q_NAME: handle.queue_name or queue.name, C.MQCA_Q_DESC: queue.description,
        }


def _convert(data: bytes, md: S.MQMD, wanted: S.MQMD) -> tuple[bytes, S.MQMD]:
    """MQGMO_CONVERT for what qmlite carries: PCF re-encoded in the integer order the getter asked for."""
    fmt = md.Format.rstrip()
    if fmt in PCF_FORMATS and order_of_encoding(wanted.Encoding) and order_of_encoding(md.Encoding) \
            and order_of_encoding(wanted.Encoding) != order_of_encoding(md.Encoding):
        try:
            msg = P.decode(data, md.Encoding, 819, strict=False)
            return P.encode(msg, wanted.Encoding, 819), dataclasses.replace(md, Encoding=wanted.Encoding)
        except CodecError:
            return data, md
    return data, md

