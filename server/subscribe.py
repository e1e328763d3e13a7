"""MQSUB and MQSUBRQ: subscriptions made by applications (fap.md sections 18 and 19).

An API subscription and an admin subscription of the same name are the same object: MQSO_RESUME can
pick up one made with Create Subscription.  Durable subscriptions are stored; non-durable ones live in
memory and end when their handle is closed or their connection goes.  With MQSO_MANAGED the queue
manager makes the destination queue (SYSTEM.MANAGED.DURABLE.* from the topic's durable model queue, or
SYSTEM.MANAGED.NDURABLE.* from its non-durable one) and returns a handle to read it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from qmlite.pcf import calls, fap
from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry import topics
from qmlite.registry.model import Queue, Subscription

from .mqi import Handle, MQIFailure

if TYPE_CHECKING:
    from .connection import Connection, Conversation
    from .mqi import MQI

_ACTIONS = C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_ALTER


@dataclasses.dataclass(slots=True)
class SubHandle(Handle):
    sub_id: bytes = b""


async def mqsub(mqi: MQI, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
    req, _ = calls.MQSubRequest.unpack(call.Data, 0, seg.header.order)
    sd = dataclasses.replace(req.SubDesc)
    opts = sd.Options
    if not opts & _ACTIONS:
        raise MQIFailure(C.MQRC_OPTIONS_ERROR)
    reg = mqi.registry
    name = sd.SubName.VSString
    durable = bool(opts & C.MQSO_DURABLE)
    if durable and not name:
        raise MQIFailure(C.MQRC_SUB_NAME_ERROR)
    existing = reg.subs.get(name) if name else None
    if existing is not None and (opts & C.MQSO_CREATE) and not opts & (C.MQSO_RESUME | C.MQSO_ALTER):
        raise MQIFailure(C.MQRC_SUB_ALREADY_EXISTS)
    if existing is None and not opts & C.MQSO_CREATE:
        raise MQIFailure(C.MQRC_NO_SUBSCRIPTION)
    if existing is not None and existing.active_connection != bytes(24):
        raise MQIFailure(C.MQRC_SUBSCRIPTION_IN_USE)
    if existing is None:
        sub, dest_hobj = _create(mqi, conv, sd, call.ApiHeader.Hobj, durable)
    else:
        sub, dest_hobj = _resume(mqi, conv, existing, sd, call.ApiHeader.Hobj)
    sub.active_connection = conv.connection_id
    sub.resumed = reg.now()
    if sub.durable == C.MQSUB_DURABLE_YES:
        reg.commit()  # a durable subscription exists on disk before the application hears of it
    hsub = SubHandle(conv.next_handle, "sub", sub.resolved_topic, opts, sub_id=sub.sub_id)
    conv.next_handle += 1
    conv.handles[hsub.hobj] = hsub
    sd.ResObjectString = S.MQCHARV(sub.resolved_topic, max(sd.ResObjectString.VSBufSize, len(sub.resolved_topic)))
    sd.SubCorrelId = sub.destination_correl_id
    reply = calls.MQSubReply(hsub.hobj, C.MQREADA_NO, sd)
    conn.log.info("subscribe", user=conv.user, sub=sub.name or sub.sub_id.hex(), topic=sub.resolved_topic,
                  durable=durable, managed=bool(opts & C.MQSO_MANAGED))
    return mqi.reply(conn, seg, reply.pack(fap.LITTLE), hobj=dest_hobj)


def _topic_string(mqi: MQI, conv: Conversation, sd: S.MQSD) -> str:
    string = mqi.resolve_topic(conv, sd.ObjectName, sd.ObjectString.VSString, empty=C.MQRC_TOPIC_STRING_ERROR)
    if sd.Options & C.MQSO_WILDCARD_CHAR:
        try:
            topics.check_char_pattern(string)
        except topics.TopicError:
            raise MQIFailure(C.MQRC_TOPIC_STRING_ERROR) from None
    return string


def _create(mqi: MQI, conv: Conversation, sd: S.MQSD, hobj: int, durable: bool) -> tuple[Subscription, int]:
    reg = mqi.registry
    opts = sd.Options
    string = _topic_string(mqi, conv, sd)
    policy_at = string.split("#", 1)[0].split("+", 1)[0].rstrip("/")
    if durable and reg.topic_attr(policy_at, "durable_subscriptions") == C.MQSUB_DURABLE_INHIBITED:
        raise MQIFailure(C.MQRC_DURABILITY_NOT_ALLOWED)
    if reg.topic_attr(policy_at, "inhibit_subscriptions") == C.MQTA_SUB_INHIBITED:
        raise MQIFailure(C.MQRC_SUB_INHIBITED)
    if sd.SelectionString.VSString:
        raise MQIFailure(C.MQRC_SELECTOR_NOT_SUPPORTED)  # the selector engine is not built yet
    if sd.SubLevel < 0 or sd.SubLevel > 9:
        raise MQIFailure(C.MQRC_SD_ERROR)
    now = reg.now()
    sub_id = reg.ids.sub_id()
    dest_name, dest_hobj = _destination(mqi, conv, opts, hobj, string, durable)
    correl = sd.SubCorrelId if opts & C.MQSO_SET_CORREL_ID else sub_id
    sub = Subscription(
        name=sd.SubName.VSString or "", sub_id=sub_id, topic_object=sd.ObjectName, topic_string=sd.ObjectString.VSString,
        resolved_topic=string, destination=dest_name, destination_qmgr=reg.qmgr.name,
        destination_class=C.MQDC_MANAGED if opts & C.MQSO_MANAGED else C.MQDC_PROVIDED,
        destination_correl_id=correl, expiry=sd.SubExpiry, pub_accounting_token=sd.PubAccountingToken,
        pub_appl_identity_data=sd.PubApplIdentityData, pub_priority=sd.PubPriority, sub_level=sd.SubLevel,
        sub_scope=C.MQTSCOPE_QMGR if opts & C.MQSO_SCOPE_QMGR else C.MQTSCOPE_ALL, sub_type=C.MQSUBTYPE_API,
        sub_user=conv.user, user_data=sd.SubUserData.VSString,
        variable_user=C.MQVU_FIXED_USER if opts & C.MQSO_FIXED_USERID else C.MQVU_ANY_USER,
        wildcard_schema=C.MQWS_CHAR if opts & C.MQSO_WILDCARD_CHAR else C.MQWS_TOPIC,
        request_only=C.MQRU_PUBLISH_ON_REQUEST if opts & C.MQSO_PUBLICATIONS_ON_REQUEST else C.MQRU_PUBLISH_ALL,
        durable=C.MQSUB_DURABLE_YES if durable else C.MQSUB_DURABLE_NO, created=now, altered=now)
    if not sub.name:
        # MQ allows unnamed non-durable subscriptions; the registry keys on a name, so give a private one.
        sub.name = "SYSTEM.NDURABLE." + sub_id.hex().upper()
    reg.put_sub(sub)
    return sub, dest_hobj


def _destination(mqi: MQI, conv: Conversation, opts: int, hobj: int, string: str, durable: bool) -> tuple[str, int]:
    reg = mqi.registry
    if not opts & C.MQSO_MANAGED:
        handle = conv.handles.get(hobj)
        if handle is None or handle.kind != "queue":
            raise MQIFailure(C.MQRC_HOBJ_ERROR)
        return handle.name, hobj
    field = "durable_model_q" if durable else "non_durable_model_q"
    model = reg.queues.get(str(reg.topic_attr(string, field)))
    if model is None or model.qtype != C.MQQT_MODEL:
        raise MQIFailure(C.MQRC_UNKNOWN_OBJECT_NAME)
    prefix = "SYSTEM.MANAGED.DURABLE." if durable else "SYSTEM.MANAGED.NDURABLE."
    now = reg.now()
    queue: Queue = dataclasses.replace(model, name=prefix + reg.ids.dynamic_suffix(), qtype=C.MQQT_LOCAL,
                                       definition_type=C.MQQDT_PERMANENT_DYNAMIC if durable else C.MQQDT_TEMPORARY_DYNAMIC,
                                       created=now, altered=now)
    if durable:
        reg.put_queue(queue)
    else:
        reg.queues[queue.name] = queue
    return queue.name, _open_managed(mqi, conv, queue.name)


def _open_managed(mqi: MQI, conv: Conversation, name: str) -> int:
    handle = Handle(conv.next_handle, "queue", name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE,
                    queue_name=name)
    conv.next_handle += 1
    conv.handles[handle.hobj] = handle
    mqi.open_input[name] = mqi.open_input.get(name, 0) + 1
    return handle.hobj


def _resume(mqi: MQI, conv: Conversation, sub: Subscription, sd: S.MQSD, hobj: int) -> tuple[Subscription, int]:
    reg = mqi.registry
    if sub.sub_type == C.MQSUBTYPE_PROXY:
        raise MQIFailure(C.MQRC_SUBSCRIPTION_IN_USE)
    if sub.variable_user == C.MQVU_FIXED_USER and sub.sub_user and sub.sub_user != conv.user:
        raise MQIFailure(C.MQRC_IDENTITY_MISMATCH)
    if sd.Options & C.MQSO_ALTER:
        if sd.SelectionString.VSString != sub.selector:
            raise MQIFailure(C.MQRC_SELECTOR_NOT_ALTERABLE)
        if bool(sd.Options & C.MQSO_DURABLE) != (sub.durable == C.MQSUB_DURABLE_YES):
            raise MQIFailure(C.MQRC_DURABILITY_NOT_ALTERABLE)
        if sd.SubLevel != sub.sub_level:
            raise MQIFailure(C.MQRC_SUBLEVEL_NOT_ALTERABLE)
        sub.expiry, sub.pub_priority, sub.user_data = sd.SubExpiry, sd.PubPriority, sd.SubUserData.VSString
        sub.altered = reg.now()
    if sub.destination_class == C.MQDC_MANAGED:
        if reg.queues.get(sub.destination) is None:
            raise MQIFailure(C.MQRC_UNKNOWN_OBJECT_NAME)
        dest_hobj = _open_managed(mqi, conv, sub.destination)
    else:
        dest_hobj = hobj if hobj in conv.handles else 0
    reg.put_sub(sub)
    return sub, dest_hobj


def close_sub(mqi: MQI, conv: Conversation, handle: SubHandle, options: int) -> None:
    """MQCLOSE of an Hsub: a non-durable subscription (or REMOVE_SUB) ends; a durable one stays."""
    reg = mqi.registry
    sub = reg.subs_by_id.get(handle.sub_id)
    if sub is None:
        return
    sub.active_connection = bytes(24)
    if sub.durable != C.MQSUB_DURABLE_YES or options & C.MQCO_REMOVE_SUB:
        reg.delete_sub(sub)
        if sub.destination_class == C.MQDC_MANAGED:
            reg.messages.drop(sub.destination)
    else:
        reg.put_sub(sub)
    reg.commit()


async def mqsubrq(mqi: MQI, conn: Connection, conv: Conversation, seg: fap.Segment, call: fap.MqiCall) -> list[bytes]:
    req, _ = calls.MQSubRqRequest.unpack(call.Data, 0, seg.header.order)
    handle = conv.handles.get(call.ApiHeader.Hobj)
    if not isinstance(handle, SubHandle):
        raise MQIFailure(C.MQRC_HOBJ_ERROR)
    if req.Action != C.MQSR_ACTION_PUBLICATION:
        raise MQIFailure(C.MQRC_ACTION_ERROR)
    # No publication is retained by this queue manager, so there is never one to send again.
    raise MQIFailure(C.MQRC_NO_RETAINED_MSG)
