"""Publish/subscribe rules that MQSUB and the PCF subscription commands share, and MQSUB itself.

One topic resolution (topic object + string), one policy point (where DURSUB and SUB inhibition
are read: the string up to its first wildcard level, by the subscription's wildcard scheme), one
managed-queue rule (SYSTEM.MANAGED.DURABLE./NDURABLE. + 16 hex, from the model queue that applies
at the policy point).  An API subscription and an admin subscription of the same name are the same
object: MQSO_RESUME can pick up one made with Create Subscription.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from . import authority, topics
from .errors import MQIError
from .model import Queue, Subscription
from .sessions import Handle, Session

if TYPE_CHECKING:
    from .qmgr import QueueManager

MANAGED_DURABLE_PREFIX = "SYSTEM.MANAGED.DURABLE."
MANAGED_NDURABLE_PREFIX = "SYSTEM.MANAGED.NDURABLE."
_ACTIONS = C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_ALTER
_NO_CONNECTION = bytes(24)


# ---- shared rules --------------------------------------------------------------------------------
def resolve_topic(reg, object_name: str, object_string: str, *, empty: int = C.MQRC_TOPIC_STRING_ERROR) -> str:
    """The full topic string of a topic object + string (MQ's combination rule), validated.

    Raises MQIError: UNKNOWN_OBJECT_NAME for a topic object that does not exist, TOPIC_STRING_ERROR
    for a malformed string, ``empty`` when both are blank (MQOPEN and MQSUB answer differently).
    """
    base = ""
    if object_name:
        topic = reg.topics.get(object_name)
        if topic is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        base = topic.topic_string
    string = topics.combine(base, object_string)
    if not string:
        raise MQIError(empty)
    try:
        topics.validate(string)
    except topics.TopicError:
        raise MQIError(C.MQRC_TOPIC_STRING_ERROR) from None
    return string


def check_pattern(string: str, schema: int) -> None:
    if schema == C.MQWS_CHAR:
        try:
            topics.check_char_pattern(string)
        except topics.TopicError:
            raise MQIError(C.MQRC_TOPIC_STRING_ERROR) from None


def policy_point(resolved: str, schema: int) -> str:
    """The topic string up to (not including) its first level holding a wildcard.

    In the topic scheme only a level that is exactly ``#`` or ``+`` is a wildcard (``a/b+c/d`` is
    literal throughout); in the character scheme any level holding ``*`` or ``?`` is.
    """
    kept = []
    for level in resolved.split(topics.SEPARATOR):
        if schema == C.MQWS_CHAR:
            if topics.has_char_wildcards(level):
                break
        elif level in (topics.MULTI, topics.SINGLE):
            break
        kept.append(level)
    return topics.SEPARATOR.join(kept)


def policy_refusal(reg, point: str, durable: bool) -> str | None:
    """"durable" when DURSUB(NO) applies at ``point`` to a durable subscription, "inhibited" when
    subscriptions are inhibited there, else None (the caller names the reason in its own family)."""
    if durable and reg.topic_attr(point, "durable_subscriptions") == C.MQSUB_DURABLE_INHIBITED:
        return "durable"
    if reg.topic_attr(point, "inhibit_subscriptions") == C.MQTA_SUB_INHIBITED:
        return "inhibited"
    return None


def managed_queue(reg, point: str, durable: bool, now: float) -> Queue:
    """A new managed destination from the (resolved) model queue that applies at ``point``."""
    field = "durable_model_q" if durable else "non_durable_model_q"
    model = reg.queues.get(str(reg.topic_attr(point, field)))
    if model is None or model.qtype != C.MQQT_MODEL:
        raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
    prefix = MANAGED_DURABLE_PREFIX if durable else MANAGED_NDURABLE_PREFIX
    return dataclasses.replace(model, name=prefix + reg.ids.dynamic_suffix(), qtype=C.MQQT_LOCAL,
                               definition_type=C.MQQDT_PERMANENT_DYNAMIC if durable else C.MQQDT_TEMPORARY_DYNAMIC,
                               created=now, altered=now)


# ---- MQSUB ---------------------------------------------------------------------------------------
def subscribe(qm: QueueManager, session: Session, sd: S.MQSD, hobj: int) -> tuple[Handle, S.MQSD, int]:
    """MQSUB: (the Hsub, the MQSD to return, the Hobj of the destination to return)."""
    opts = sd.Options
    if not opts & _ACTIONS:
        raise MQIError(C.MQRC_OPTIONS_ERROR)
    reg = qm.registry
    name = sd.SubName.VSString
    durable = bool(opts & C.MQSO_DURABLE)
    if durable and not name:
        raise MQIError(C.MQRC_SUB_NAME_ERROR)
    existing = reg.subs.get(name) if name else None
    if existing is not None and (opts & C.MQSO_CREATE) and not opts & (C.MQSO_RESUME | C.MQSO_ALTER):
        raise MQIError(C.MQRC_SUB_ALREADY_EXISTS)
    if existing is None and not opts & C.MQSO_CREATE:
        raise MQIError(C.MQRC_NO_SUBSCRIPTION)
    if existing is not None and existing.active_connection != _NO_CONNECTION:
        raise MQIError(C.MQRC_SUBSCRIPTION_IN_USE)
    if existing is None:
        sub, dest_hobj = _create(qm, session, sd, hobj, durable)
    else:
        sub, dest_hobj = _resume(qm, session, existing, sd, hobj)
    sub.active_connection = session.connection_id
    sub.resumed = qm.now()
    hsub = session.add_handle(Handle(0, "sub", sub.resolved_topic, opts, sub_id=sub.sub_id))
    sd.ResObjectString = S.MQCHARV(sub.resolved_topic, max(sd.ResObjectString.VSBufSize, len(sub.resolved_topic)))
    sd.SubCorrelId = sub.destination_correl_id
    return hsub, sd, dest_hobj


def _create(qm: QueueManager, session: Session, sd: S.MQSD, hobj: int, durable: bool) -> tuple[Subscription, int]:
    reg = qm.registry
    opts = sd.Options
    schema = C.MQWS_CHAR if opts & C.MQSO_WILDCARD_CHAR else C.MQWS_TOPIC
    string = resolve_topic(reg, sd.ObjectName, sd.ObjectString.VSString)
    authority.check_topic(session, next(reg.topic_nodes(string), None))
    check_pattern(string, schema)
    point = policy_point(string, schema)
    refusal = policy_refusal(reg, point, durable)
    if refusal == "durable":
        raise MQIError(C.MQRC_DURABILITY_NOT_ALLOWED)
    if refusal == "inhibited":
        raise MQIError(C.MQRC_SUB_INHIBITED)
    if sd.SelectionString.VSString:
        raise MQIError(C.MQRC_SELECTOR_NOT_SUPPORTED)  # the selector engine is not built yet
    if sd.SubLevel < 0 or sd.SubLevel > 9:
        raise MQIError(C.MQRC_SD_ERROR)
    now = qm.now()
    if opts & C.MQSO_MANAGED:
        queue = managed_queue(reg, point, durable, now)
        dest_name = queue.name
        if durable:
            reg.put_queue(queue)
        else:
            reg.queues[queue.name] = queue  # a non-durable managed queue lives and dies in memory
        dest_hobj = _open_managed(qm, session, queue.name)
    else:
        handle = session.handles.get(hobj)
        if handle is None or handle.kind != "queue":
            raise MQIError(C.MQRC_HOBJ_ERROR)
        dest_name, dest_hobj = handle.name, hobj
    sub_id = reg.ids.sub_id()
    correl = sd.SubCorrelId if opts & C.MQSO_SET_CORREL_ID else sub_id
    sub = Subscription(
        name=sd.SubName.VSString or "", sub_id=sub_id, topic_object=sd.ObjectName, topic_string=sd.ObjectString.VSString,
        resolved_topic=string, destination=dest_name, destination_qmgr=reg.qmgr.name,
        destination_class=C.MQDC_MANAGED if opts & C.MQSO_MANAGED else C.MQDC_PROVIDED,
        destination_correl_id=correl, expiry=sd.SubExpiry, pub_accounting_token=sd.PubAccountingToken,
        pub_appl_identity_data=sd.PubApplIdentityData, pub_priority=sd.PubPriority, sub_level=sd.SubLevel,
        sub_scope=C.MQTSCOPE_QMGR if opts & C.MQSO_SCOPE_QMGR else C.MQTSCOPE_ALL, sub_type=C.MQSUBTYPE_API,
        sub_user=session.user, user_data=sd.SubUserData.VSString,
        variable_user=C.MQVU_FIXED_USER if opts & C.MQSO_FIXED_USERID else C.MQVU_ANY_USER,
        wildcard_schema=schema,
        request_only=C.MQRU_PUBLISH_ON_REQUEST if opts & C.MQSO_PUBLICATIONS_ON_REQUEST else C.MQRU_PUBLISH_ALL,
        durable=C.MQSUB_DURABLE_YES if durable else C.MQSUB_DURABLE_NO, created=now, altered=now)
    if not sub.name:
        # MQ allows unnamed non-durable subscriptions; the registry keys on a name, so give a private one.
        sub.name = "SYSTEM.NDURABLE." + sub_id.hex().upper()
    reg.put_sub(sub)
    return sub, dest_hobj


def _open_managed(qm: QueueManager, session: Session, name: str) -> int:
    handle = Handle(0, "queue", name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE, queue_name=name,
                    object_name=name)
    session.add_handle(handle)
    qm.registry.messages.contents(name).open_input += 1
    return handle.hobj


def _resume(qm: QueueManager, session: Session, sub: Subscription, sd: S.MQSD, hobj: int) -> tuple[Subscription, int]:
    reg = qm.registry
    if sub.sub_type == C.MQSUBTYPE_PROXY:
        raise MQIError(C.MQRC_SUBSCRIPTION_IN_USE)
    if sub.variable_user == C.MQVU_FIXED_USER and sub.sub_user and sub.sub_user != session.user:
        raise MQIError(C.MQRC_IDENTITY_MISMATCH)
    if sd.Options & C.MQSO_ALTER:
        if sd.SelectionString.VSString != sub.selector:
            raise MQIError(C.MQRC_SELECTOR_NOT_ALTERABLE)
        if bool(sd.Options & C.MQSO_DURABLE) != (sub.durable == C.MQSUB_DURABLE_YES):
            raise MQIError(C.MQRC_DURABILITY_NOT_ALTERABLE)
        if sd.SubLevel != sub.sub_level:
            raise MQIError(C.MQRC_SUBLEVEL_NOT_ALTERABLE)
        sub.expiry, sub.pub_priority, sub.user_data = sd.SubExpiry, sd.PubPriority, sd.SubUserData.VSString
        sub.altered = qm.now()
    if sub.destination_class == C.MQDC_MANAGED:
        if reg.queues.get(sub.destination) is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        dest_hobj = _open_managed(qm, session, sub.destination)
    else:
        dest_hobj = hobj if hobj in session.handles else 0
    reg.put_sub(sub)
    return sub, dest_hobj


def close_sub(qm: QueueManager, handle: Handle, options: int) -> None:
    """MQCLOSE of an Hsub: a non-durable subscription (or REMOVE_SUB) ends; a durable one stays."""
    reg = qm.registry
    sub = reg.subs_by_id.get(handle.sub_id)
    if sub is None:
        return
    sub.active_connection = _NO_CONNECTION
    if sub.durable != C.MQSUB_DURABLE_YES or options & C.MQCO_REMOVE_SUB:
        reg.delete_sub(sub)
        if sub.destination_class == C.MQDC_MANAGED:
            reg.drop_messages(sub.destination)
    else:
        reg.put_sub(sub)


def subscription_request(qm: QueueManager, session: Session, hsub: int, action: int) -> None:
    """MQSUBRQ: no publication is retained by this queue manager, so there is never one to send again."""
    handle = session.handles.get(hsub)
    if handle is None or handle.kind != "sub":
        raise MQIError(C.MQRC_HOBJ_ERROR)
    if action != C.MQSR_ACTION_PUBLICATION:
        raise MQIError(C.MQRC_ACTION_ERROR)
    raise MQIError(C.MQRC_NO_RETAINED_MSG)
