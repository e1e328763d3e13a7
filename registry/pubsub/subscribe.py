"""Publish/subscribe rules that MQSUB and the PCF subscription commands share, and MQSUB itself.

One topic resolution (topic object + string), one policy point (where DURSUB and SUB inhibition
are read: the string up to its first wildcard level, by the subscription's wildcard scheme), one
managed-queue rule (SYSTEM.MANAGED.DURABLE./NDURABLE. + 16 hex, from the model queue that applies
at the policy point).  An API subscription and an admin subscription of the same name are the same
object: MQSO_RESUME can pick up one made with Create Subscription.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.security import authority
from qmlite.registry.pubsub import routing
from qmlite.registry.pubsub import topics
from qmlite.registry.pubsub.topics import policy_point
from qmlite.registry.errors import MQIError
from qmlite.registry.objects import layouts
from qmlite.registry.objects.definitions import Queue, Subscription
from qmlite.registry.messaging.sessions import Handle, Session

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

MANAGED_DURABLE_PREFIX = "SYSTEM.MANAGED.DURABLE."
MANAGED_NDURABLE_PREFIX = "SYSTEM.MANAGED.NDURABLE."
_ACTIONS = C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_ALTER
_NO_CONNECTION = bytes(24)
DEFAULT_SUB = "SYSTEM.DEFAULT.SUB"


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
    # layouts.replace: the model's 62 fields copied without dataclasses.replace's walk over them (10-20 µs of each
    # Create Subscription with a managed destination)
    return layouts.replace(model, name=prefix + reg.ids.dynamic_suffix(), qtype=C.MQQT_LOCAL,
                           definition_type=C.MQQDT_PERMANENT_DYNAMIC if durable else C.MQQDT_TEMPORARY_DYNAMIC,
                           created=now, altered=now)


# ---- MQSUB ---------------------------------------------------------------------------------------
def _check_options(opts: int) -> None:
    """Combinations IBM refuses with MQRC_OPTIONS_ERROR."""
    if not opts & _ACTIONS:
        raise MQIError(C.MQRC_OPTIONS_ERROR)
    pairs = ((C.MQSO_DURABLE, C.MQSO_NON_DURABLE), (C.MQSO_FIXED_USERID, C.MQSO_ANY_USERID),
             (C.MQSO_WILDCARD_CHAR, C.MQSO_WILDCARD_TOPIC), (C.MQSO_READ_AHEAD, C.MQSO_NO_READ_AHEAD),
             (C.MQSO_READ_AHEAD_AS_Q_DEF, C.MQSO_READ_AHEAD), (C.MQSO_READ_AHEAD_AS_Q_DEF, C.MQSO_NO_READ_AHEAD))
    for a, b in pairs:
        if opts & a and opts & b:
            raise MQIError(C.MQRC_OPTIONS_ERROR)
    if opts & C.MQSO_NEW_PUBLICATIONS_ONLY and not opts & C.MQSO_CREATE:
        raise MQIError(C.MQRC_OPTIONS_ERROR)  # only a new subscription can skip what is retained
    if opts & C.MQSO_NEW_PUBLICATIONS_ONLY and opts & C.MQSO_PUBLICATIONS_ON_REQUEST:
        raise MQIError(C.MQRC_OPTIONS_ERROR)  # IBM: an on-request subscription only ever gets retained ones
    if opts & C.MQSO_GROUP_SUB and (not opts & C.MQSO_SET_CORREL_ID or opts & C.MQSO_MANAGED):
        raise MQIError(C.MQRC_OPTIONS_ERROR)  # a group is a provided queue + correlation id


def subscribe(qm: QueueManager, session: Session, sd: S.MQSD, hobj: int) -> tuple[Handle, S.MQSD, int]:
    """MQSUB: (the Hsub, the MQSD to return, the Hobj of the destination to return)."""
    opts = sd.Options
    _check_options(opts)
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
    if existing is not None and (existing.sub_type == C.MQSUBTYPE_PROXY or existing.name == DEFAULT_SUB):
        raise MQIError(C.MQRC_INVALID_SUBSCRIPTION)  # IBM RC-2523: not one an application may resume
    if existing is not None and existing.active_connection != _NO_CONNECTION:
        raise MQIError(C.MQRC_SUBSCRIPTION_IN_USE)
    if existing is None:
        sub, dest_hobj = _create(qm, session, sd, hobj, durable)
        created = True
    else:
        sub, dest_hobj = _resume(qm, session, existing, sd, hobj)
        created = False
    sub.active_connection = session.connection_id
    sub.resumed = qm.now()
    hsub = session.add_handle(Handle(0, "sub", sub.resolved_topic, opts, sub_id=sub.sub_id))
    _describe(sub, sd)
    if created and not opts & (C.MQSO_NEW_PUBLICATIONS_ONLY | C.MQSO_PUBLICATIONS_ON_REQUEST):
        qm.send_retained(sub)
    return hsub, sd, dest_hobj


def _describe(sub: Subscription, sd: S.MQSD) -> None:
    """MQSUB returns the subscription's attributes in the MQSD (all of them on RESUME)."""
    sd.ResObjectString = S.MQCHARV(sub.resolved_topic, max(sd.ResObjectString.VSBufSize, len(sub.resolved_topic)))
    sd.SubCorrelId = sub.destination_correl_id
    if sd.Options & C.MQSO_RESUME and not sd.Options & C.MQSO_ALTER:
        sd.ObjectName = sub.topic_object
        sd.ObjectString = S.MQCHARV(sub.topic_string, max(sd.ObjectString.VSBufSize, len(sub.topic_string)))
        sd.SubExpiry = sub.expiry
        sd.SubUserData = S.MQCHARV(sub.user_data, max(sd.SubUserData.VSBufSize, len(sub.user_data)))
        sd.PubPriority = sub.pub_priority
        sd.PubAccountingToken = sub.pub_accounting_token
        sd.PubApplIdentityData = sub.pub_appl_identity_data
        sd.SelectionString = S.MQCHARV(sub.selector, max(sd.SelectionString.VSBufSize, len(sub.selector)))
        sd.SubLevel = sub.sub_level
        kept = sub.sub_options & ~(_ACTIONS | C.MQSO_FAIL_IF_QUIESCING | C.MQSO_ALTERNATE_USER_AUTHORITY)
        durability = C.MQSO_DURABLE if sub.durable == C.MQSUB_DURABLE_YES else C.MQSO_NON_DURABLE
        managed = C.MQSO_MANAGED if sub.destination_class == C.MQDC_MANAGED else 0
        scheme = C.MQSO_WILDCARD_CHAR if sub.wildcard_schema == C.MQWS_CHAR else 0
        sd.Options = (sd.Options & (_ACTIONS | C.MQSO_FAIL_IF_QUIESCING | C.MQSO_ALTERNATE_USER_AUTHORITY)) \
            | (kept & ~(C.MQSO_DURABLE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED)) | durability | managed | scheme


def check_selector(text: str) -> int:
    """The SelectorType of a selection string; MQRC_SELECTOR_SYNTAX_ERROR when it does not parse."""
    if not text:
        return C.MQSELTYPE_NONE
    if len(text) > C.MQ_SELECTOR_LENGTH:
        raise MQIError(C.MQRC_SELECTION_STRING_ERROR)
    from qmlite.registry.pubsub import selectors  # at the first selection string, not at start (docs/decisions.md ST11)

    try:
        selectors.compile_selector(text)
    except selectors.SelectorError:
        raise MQIError(C.MQRC_SELECTOR_SYNTAX_ERROR) from None
    return C.MQSELTYPE_STANDARD


def _create(qm: QueueManager, session: Session, sd: S.MQSD, hobj: int, durable: bool) -> tuple[Subscription, int]:
    reg = qm.registry
    opts = sd.Options
    schema = C.MQWS_CHAR if opts & C.MQSO_WILDCARD_CHAR else C.MQWS_TOPIC
    string = resolve_topic(reg, sd.ObjectName, sd.ObjectString.VSString)
    authority.check_topic(session, reg, string, options=authority.sub_open_options(opts),
                          alternate=sd.AlternateUserId)
    check_pattern(string, schema)
    point = policy_point(string, schema)
    refusal = policy_refusal(reg, point, durable)
    if refusal == "durable":
        raise MQIError(C.MQRC_DURABILITY_NOT_ALLOWED)
    if refusal == "inhibited":
        raise MQIError(C.MQRC_SUB_INHIBITED)
    selector = sd.SelectionString.VSString
    selector_type = check_selector(selector)
    if sd.SubLevel < 0 or sd.SubLevel > 9:
        raise MQIError(C.MQRC_SD_ERROR)
    if opts & C.MQSO_PUBLICATIONS_ON_REQUEST and sd.SubLevel > 1:
        raise MQIError(C.MQRC_OPTIONS_ERROR)  # IBM: on-request subscriptions only take retained ones, at level 1
    _check_sd_fields(sd)
    sub_id = reg.ids.sub_id()
    correl = sd.SubCorrelId if opts & C.MQSO_SET_CORREL_ID else sub_id
    if opts & C.MQSO_GROUP_SUB:
        _check_group(reg, session, hobj, string, correl, sd.SubLevel)
    now = qm.now()
    if opts & C.MQSO_MANAGED:
        queue = managed_queue(reg, point, durable, now)
        dest_name, dest_qmgr = queue.name, reg.qmgr.name
        if durable:
            reg.put_queue(queue)
        else:
            reg.queues[queue.name] = queue  # a non-durable managed queue lives and dies in memory
        dest_hobj = _open_managed(qm, session, queue.name)
    else:
        dest_name, dest_qmgr = _provided_queue(session, hobj)
        dest_qmgr = dest_qmgr or reg.qmgr.name
        dest_hobj = hobj
    sub = Subscription(
        name=sd.SubName.VSString or "", sub_id=sub_id, topic_object=sd.ObjectName,
        topic_string=sd.ObjectString.VSString,
        resolved_topic=string, destination=dest_name, destination_qmgr=dest_qmgr,
        destination_class=C.MQDC_MANAGED if opts & C.MQSO_MANAGED else C.MQDC_PROVIDED,
        destination_correl_id=correl, expiry=sd.SubExpiry,
        pub_accounting_token=sd.PubAccountingToken if opts & C.MQSO_SET_IDENTITY_CONTEXT else bytes(32),
        pub_appl_identity_data=sd.PubApplIdentityData if opts & C.MQSO_SET_IDENTITY_CONTEXT else "",
        pub_priority=sd.PubPriority, selector=selector,
        selector_type=selector_type, sub_level=sd.SubLevel,
        sub_scope=C.MQTSCOPE_QMGR if opts & C.MQSO_SCOPE_QMGR else C.MQTSCOPE_ALL, sub_type=C.MQSUBTYPE_API,
        sub_user=session.user, user_data=sd.SubUserData.VSString,
        variable_user=C.MQVU_ANY_USER if opts & C.MQSO_ANY_USERID else C.MQVU_FIXED_USER,  # FIXED: IBM's default
        wildcard_schema=schema,
        request_only=C.MQRU_PUBLISH_ON_REQUEST if opts & C.MQSO_PUBLICATIONS_ON_REQUEST else C.MQRU_PUBLISH_ALL,
        durable=C.MQSUB_DURABLE_YES if durable else C.MQSUB_DURABLE_NO, created=now, altered=now,
        sub_options=opts & _KEPT_OPTIONS)
    if not sub.name:
        # MQ allows unnamed non-durable subscriptions; the registry keys on a name, so give a private one.
        sub.name = "SYSTEM.NDURABLE." + sub_id.hex().upper()
    sub.blocked_under = routing.blocks_for(reg, sub)
    reg.put_sub(sub)
    return sub, dest_hobj


# What routing and RESUME need of the options a subscription was made with.
_KEPT_OPTIONS = (C.MQSO_GROUP_SUB | C.MQSO_SET_IDENTITY_CONTEXT | C.MQSO_NEW_PUBLICATIONS_ONLY
                 | C.MQSO_PUBLICATIONS_ON_REQUEST | C.MQSO_SET_CORREL_ID | C.MQSO_FIXED_USERID | C.MQSO_ANY_USERID
                 | C.MQSO_NO_MULTICAST | C.MQSO_SCOPE_QMGR | C.MQSO_WILDCARD_CHAR | C.MQSO_WILDCARD_TOPIC
                 | C.MQSO_NO_READ_AHEAD | C.MQSO_READ_AHEAD | C.MQSO_READ_AHEAD_AS_Q_DEF)


def _check_sd_fields(sd: S.MQSD) -> None:
    if sd.SubExpiry == 0 or sd.SubExpiry < C.MQEI_UNLIMITED:
        raise MQIError(C.MQRC_EXPIRY_ERROR)
    if sd.PubPriority not in (C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQPRI_PRIORITY_AS_Q_DEF) \
            and not 0 <= sd.PubPriority <= 9:
        raise MQIError(C.MQRC_PRIORITY_ERROR)


def _provided_queue(session: Session, hobj: int) -> tuple[str, str]:
    """The destination queue and queue manager of a provided destination: a queue on another queue
    manager (MQTT's SYSTEM.MQTT.TRANSMIT.QUEUE handle for a ClientIdentifier) is named as opened."""
    handle = session.handles.get(hobj)
    if handle is None or handle.kind != "queue":
        raise MQIError(C.MQRC_HOBJ_ERROR)
    if not handle.options & (C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE
                             | C.MQOO_OUTPUT):
        raise MQIError(C.MQRC_HOBJ_ERROR)  # IBM: opened for input, browse or output
    if handle.remote is not None:
        return handle.remote
    return handle.name, ""


def _check_group(reg, session: Session, hobj: int, string: str, correl: bytes, level: int) -> None:
    """One member of a group per topic string: another grouped subscription to the same queue,
    correlation id and SubLevel on the same topic string is MQRC_DUPLICATE_GROUP_SUB."""
    handle = session.handles.get(hobj)
    dest = handle.name if handle is not None else ""
    for other in reg.subs.values():
        if (other.sub_options & C.MQSO_GROUP_SUB and other.resolved_topic == string and other.destination == dest
                and other.destination_correl_id == correl and other.sub_level == level):
            raise MQIError(C.MQRC_DUPLICATE_GROUP_SUB)


def _open_managed(qm: QueueManager, session: Session, name: str) -> int:
    handle = Handle(0, "queue", name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE, queue_name=name,
                    object_name=name)
    session.add_handle(handle)
    qm.registry.messages.contents(name).open_input += 1
    return handle.hobj


def _resume(qm: QueueManager, session: Session, sub: Subscription, sd: S.MQSD, hobj: int) -> tuple[Subscription, int]:
    reg = qm.registry
    opts = sd.Options
    if sub.variable_user == C.MQVU_FIXED_USER and sub.sub_user and sub.sub_user != session.user:
        raise MQIError(C.MQRC_IDENTITY_MISMATCH)
    if sub.sub_user != session.user:
        # IBM ANY_USERID: another user may take the subscription over if it may subscribe there, and
        # later publications carry that user's identity.
        authority.check_topic(session, reg, sub.resolved_topic)
        sub.sub_user = session.user
    if opts & C.MQSO_ALTER:
        _alter(qm, session, sub, sd, hobj)
    if sub.destination_class == C.MQDC_MANAGED:
        if reg.queues.get(sub.destination) is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        dest_hobj = _open_managed(qm, session, sub.destination)
    else:
        dest_hobj = hobj if hobj in session.handles else 0
    reg.put_sub(sub)
    return sub, dest_hobj


def _alter(qm: QueueManager, session: Session, sub: Subscription, sd: S.MQSD, hobj: int) -> None:
    """MQSO_ALTER: what IBM lets an existing subscription change, and the reason for each thing it does not."""
    opts = sd.Options
    reg = qm.registry
    schema = C.MQWS_CHAR if opts & C.MQSO_WILDCARD_CHAR else C.MQWS_TOPIC
    string = resolve_topic(reg, sd.ObjectName, sd.ObjectString.VSString) \
        if (sd.ObjectName or sd.ObjectString.VSString) else sub.resolved_topic
    if string != sub.resolved_topic or schema != sub.wildcard_schema:
        raise MQIError(C.MQRC_TOPIC_NOT_ALTERABLE)
    if bool(opts & C.MQSO_DURABLE) != (sub.durable == C.MQSUB_DURABLE_YES):
        raise MQIError(C.MQRC_DURABILITY_NOT_ALTERABLE)
    if bool(opts & C.MQSO_MANAGED) != (sub.destination_class == C.MQDC_MANAGED):
        raise MQIError(C.MQRC_DEST_CLASS_NOT_ALTERABLE)
    if sd.SubLevel != sub.sub_level:
        raise MQIError(C.MQRC_SUBLEVEL_NOT_ALTERABLE)
    if bool(opts & C.MQSO_GROUP_SUB) != bool(sub.sub_options & C.MQSO_GROUP_SUB):
        raise MQIError(C.MQRC_GROUPING_NOT_ALTERABLE)
    if sd.SelectionString.VSString:
        raise MQIError(C.MQRC_SELECTOR_NOT_ALTERABLE)  # IBM: any SelectionString on ALTER, even the same one
    _check_sd_fields(sd)
    if not sub.destination_class == C.MQDC_MANAGED:
        queue, qmgr = _provided_queue(session, hobj)
        if sub.sub_options & C.MQSO_GROUP_SUB and queue != sub.destination:
            raise MQIError(C.MQRC_GROUPING_NOT_ALTERABLE)
        sub.destination, sub.destination_qmgr = queue, qmgr or qm.registry.qmgr.name
    if opts & C.MQSO_SET_CORREL_ID:
        if sub.sub_options & C.MQSO_GROUP_SUB and sd.SubCorrelId != sub.destination_correl_id:
            raise MQIError(C.MQRC_GROUPING_NOT_ALTERABLE)  # a group is its queue and correlation id
        sub.destination_correl_id = sd.SubCorrelId
    sub.expiry, sub.pub_priority, sub.user_data = sd.SubExpiry, sd.PubPriority, sd.SubUserData.VSString
    if opts & C.MQSO_SET_IDENTITY_CONTEXT:
        sub.pub_accounting_token, sub.pub_appl_identity_data = sd.PubAccountingToken, sd.PubApplIdentityData
    sub.variable_user = C.MQVU_ANY_USER if opts & C.MQSO_ANY_USERID else C.MQVU_FIXED_USER
    sub.request_only = C.MQRU_PUBLISH_ON_REQUEST if opts & C.MQSO_PUBLICATIONS_ON_REQUEST else C.MQRU_PUBLISH_ALL
    sub.sub_options = opts & _KEPT_OPTIONS
    sub.sub_user = session.user
    sub.altered = qm.now()


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


def subscription_request(qm: QueueManager, session: Session, hsub: int, action: int) -> int:
    """MQSUBRQ: send the subscription the retained publications it matches again; returns how many
    (MQSRO NumPubs).  None retained is MQRC_NO_RETAINED_MSG.  IBM: only a subscription made with
    MQSO_PUBLICATIONS_ON_REQUEST may ask (docs/pubsub-facts.md section 7)."""
    handle = session.handles.get(hsub)
    if handle is None or handle.kind != "sub":
        raise MQIError(C.MQRC_HOBJ_ERROR)
    if action != C.MQSR_ACTION_PUBLICATION:
        raise MQIError(C.MQRC_ACTION_ERROR)
    sub = qm.registry.subs_by_id.get(handle.sub_id)
    if sub is None:
        raise MQIError(C.MQRC_HOBJ_ERROR)
    if sub.request_only != C.MQRU_PUBLISH_ON_REQUEST:
        raise MQIError(C.MQRC_OPTIONS_ERROR)
    sent = qm.send_retained(sub)
    if not sent:
        raise MQIError(C.MQRC_NO_RETAINED_MSG)
    return sent
