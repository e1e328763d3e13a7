"""Publication routing: which subscriptions receive a publication, and what each copy looks like.

Network-free and free of the MQI runtime, so the server and the Spark pipeline import the same
rules (the pipeline hands in a read-only registry loaded from a data directory or a snapshot).  A
publication goes to the subscriptions that

1. match its topic string (registry/pubsub/topics.py's index, both wildcard schemes),
2. are not blocked by a topic object with WILDCARD(BLOCK) below their first wildcard level,
3. are not the publisher's own when it asked MQPMO_NOT_OWN_SUBS,
4. accept it by their selector (registry/pubsub/selectors.py, over its properties and MQMD),
5. have the highest SubLevel not above its PubLevel (interception), and
6. are the most significant member of their group (MQSO_GROUP_SUB: one copy per destination queue,
   queue manager, correlation id and SubLevel).

``deliveries`` then builds each copy: its MQMD (new MsgId, the subscription's correlation id,
PubPriority, identity, expiry, reply-to), the publish/subscribe properties or headers its
PublishSubscribeProperties asks for, and its data.  Putting them onto queues, dead-lettering what a
queue cannot take and the publish exit are the queue manager's (registry/qmgr.py).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.messaging import properties
from qmlite.registry.pubsub import topics
from qmlite.registry.objects.definitions import Subscription
from qmlite.registry.pubsub.topics import policy_point

DEFAULT_PUB_LEVEL = 9
_NO_CONNECTION = bytes(24)
_NO_CORREL = bytes(24)


@dataclasses.dataclass(slots=True)
class Publication:
    """One publication as routing sees it: the properties already apart from the body."""

    topic: str
    md: S.MQMD  # Persistence and Priority already resolved at the topic (AS_TOPIC_DEF)
    body: bytes
    props: object = None  # pcf.properties.Properties or None
    pub_level: int = DEFAULT_PUB_LEVEL
    options: int = 0  # MQPMO options
    publisher: bytes = _NO_CONNECTION  # the publishing connection, for MQPMO_NOT_OWN_SUBS
    retained: bool = False  # a retained publication sent again (MQSUB, MQSUBRQ): marked as such
    _resolver: object = None

    def resolver(self):
        """What selectors see: the MQMD fields and the message properties (built once per publication)."""
        if self._resolver is None:
            values = self.props.values_for_selectors() if self.props else {}
            # IBM: a selector may test the topic a publication was made on (MQTopicString).
            values.setdefault(properties.TOPIC_STRING, self.topic)
            values.setdefault("MQTopicString", self.topic)
            from qmlite.registry.pubsub import selectors  # a selector's first use (docs/decisions.md ST11)

            self._resolver = selectors.message_resolver(self.md, values)
        return self._resolver


@dataclasses.dataclass(slots=True)
class Delivery:
    """One copy of a publication for one subscription."""

    sub: Subscription
    queue: str
    qmgr: str
    md: S.MQMD
    props: object
    data: bytes


def publication(reg, topic: str, md: S.MQMD, data: bytes, pub_level: int = DEFAULT_PUB_LEVEL, options: int = 0,
                publisher: bytes = _NO_CONNECTION, props=None) -> Publication:
    """A publication as put: its properties taken out of an MQRFH2 (properties.split_message), and
    Persistence and Priority AS_TOPIC_DEF (the value of AS_Q_DEF) resolved at the topic, not at each
    destination.  ``md`` is changed in place when nothing is split (it is the publisher's own copy)."""
    if props is None:
        md, props, body = properties.split_message(md, data)
    else:  # given apart (the MQTT service's): ``data`` is the body
        body = data
    if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
        md.Persistence = int(reg.topic_attr(topic, "def_persistence"))
    if md.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
        md.Priority = int(reg.topic_attr(topic, "def_priority"))
    cap = reg.topic_attr(topic, "cap_expiry")  # CAPEXPRY: a publication lives no longer than the topic allows
    if cap > 0 and not 0 < md.Expiry <= cap:  # type: ignore[operator]
        md.Expiry = cap
    return Publication(topic, md, body, props, pub_level, options, publisher)


# ---- who receives it -----------------------------------------------------------------------------
def receivers(reg, pub: Publication) -> list[Subscription]:
    """The subscriptions a publication is delivered to now: ``subscribers`` less those that take
    publications only on request (MQSUBRQ sends them retained ones)."""
    return [s for s in subscribers(reg, pub) if s.request_only != C.MQRU_PUBLISH_ON_REQUEST]


def subscribers(reg, pub: Publication) -> list[Subscription]:
    """The subscriptions that get a copy of ``pub`` (expired ones already gone)."""
    by_id = reg.subs_by_id
    matched = [by_id[k] for k in reg.routes.match(pub.topic)]
    if not matched:
        return matched
    if pub.options & C.MQPMO_NOT_OWN_SUBS:
        matched = [s for s in matched if s.active_connection != pub.publisher or s.active_connection == _NO_CONNECTION]
    level = pub.pub_level
    eligible = []
    topic = pub.topic
    for sub in matched:
        if sub.sub_level > level:
            continue
        if sub.blocked_under and blocked(sub, topic):
            continue
        if sub.selector and not selected(sub, pub):
            continue
        eligible.append(sub)
    if len(eligible) > 1:
        top = max(s.sub_level for s in eligible)
        eligible = [s for s in eligible if s.sub_level == top]
        if any(s.sub_options & C.MQSO_GROUP_SUB for s in eligible):
            eligible = _one_per_group(eligible)
    return eligible


def first_wildcard_level(sub: Subscription) -> int | None:
    """How many levels of the subscription's topic string stand before its first wildcard (None: no wildcard)."""
    point = policy_point(sub.resolved_topic, sub.wildcard_schema)
    if point == sub.resolved_topic:
        return None
    return len(point.split(topics.SEPARATOR)) if point else 0


def blocks_for(reg, sub: Subscription) -> tuple[str, ...]:
    """The WILDCARD(BLOCK) topic objects a new subscription is blocked under.

    IBM: with BLOCK on a topic object, a subscription whose wildcard stands above that object's level
    ("less specific than the topic string at this topic object") receives no publication at or below
    it; PASSTHRU (the default) lets it.  Read when the subscription is made (IBM: "used when
    subscriptions are defined").
    """
    level = first_wildcard_level(sub)
    if level is None:
        return ()
    point = policy_point(sub.resolved_topic, sub.wildcard_schema)
    out = []
    for node in reg.topics.values():
        string = node.topic_string
        if node.wildcard_operation != C.MQTA_BLOCK or not string:
            continue
        if len(string.split(topics.SEPARATOR)) > level and (not point or string.startswith(point + topics.SEPARATOR)):
            out.append(string)
    return tuple(sorted(out))


def selected(sub: Subscription, pub: Publication) -> bool:
    """Whether ``pub`` passes ``sub``'s selector (``sub.selector`` not empty).  The selector module
    (its parser and SQL92 evaluator) loads here, at the first subscription with a selector, not at
    start: most queue managers never see one (docs/decisions.md ST11)."""
    from qmlite.registry.pubsub import selectors

    return selectors.compile_selector(sub.selector).matches(pub.resolver())


def blocked(sub: Subscription, topic: str) -> bool:
    """Is ``topic`` at or below one of the blocking topic objects ``sub`` was made under?"""
    for string in sub.blocked_under:
        if topic == string or topic.startswith(string + topics.SEPARATOR):
            return True
    return False


def _significance(sub: Subscription) -> tuple:
    # IBM: of a group, the subscription whose topic string is the most specific match wins: the one
    # with the most levels before its first wildcard, then without wildcards at all, then the longest
    # topic string; the name breaks a tie so the choice never depends on dictionary order.
    level = first_wildcard_level(sub)
    exact = level is None
    return (len(sub.resolved_topic.split(topics.SEPARATOR)) if exact else level, exact,
            len(sub.resolved_topic), sub.name)


def _one_per_group(subs: list[Subscription]) -> list[Subscription]:
    best: dict[tuple, Subscription] = {}
    out = []
    for sub in subs:
        if not sub.sub_options & C.MQSO_GROUP_SUB:
            out.append(sub)
            continue
        key = (sub.destination, sub.destination_qmgr, sub.destination_correl_id, sub.sub_level)
        held = best.get(key)
        if held is None or _significance(sub) > _significance(held):
            best[key] = sub
    out.extend(best.values())
    return out


# ---- what each copy looks like -------------------------------------------------------------------
def copy_descriptor(sub: Subscription, md: S.MQMD, msg_id: bytes, *, now: float = 0.0,
                    suppress_reply_to: bool = False) -> S.MQMD:
    """The MQMD a subscriber's copy carries.

    A new MsgId; the subscription's DestinationCorrelId; its PubPriority (AS_PUBLISHED keeps the
    publication's, AS_Q_DEF leaves it to the destination queue); the subscriber's user id, and the
    accounting token and application identity the subscription sets; the lesser of the
    publication's and the subscription's remaining expiry (issue 9's rule: a copy never outlives its
    subscription); no reply-to with SUPPRESS_REPLYTO.
    """
    copy = md.copy()
    copy.MsgId = msg_id
    if sub.destination_correl_id != _NO_CORREL or not sub.sub_options & C.MQSO_SET_CORREL_ID:
        copy.CorrelId = sub.destination_correl_id  # IBM: SET_CORREL_ID with MQCI_NONE keeps the publisher's
    if sub.pub_priority >= 0:
        copy.Priority = sub.pub_priority
    elif sub.pub_priority == C.MQPRI_PRIORITY_AS_Q_DEF:
        copy.Priority = C.MQPRI_PRIORITY_AS_Q_DEF
    if sub.sub_user:
        copy.UserIdentifier = sub.sub_user[:12]
    # IBM: the subscription's PubAccountingToken / PubApplIdentityData (an API subscription sets them
    # only with MQSO_SET_IDENTITY_CONTEXT; without it they are MQACT_NONE and blanks).
    copy.AccountingToken = sub.pub_accounting_token
    copy.ApplIdentityData = sub.pub_appl_identity_data
    at = sub.expires_at()
    if at is not None:
        left = max(1, int((at - now) * 10))
        if copy.Expiry < 0 or left < copy.Expiry:
            copy.Expiry = left
    if suppress_reply_to:
        copy.ReplyToQ = copy.ReplyToQMgr = ""
    return copy


def delivered_priority(reg, copy: Delivery) -> int:
    """The Priority a copy lands with: PubPriority AS_Q_DEF is the destination queue's DefPriority
    (as MQPUT resolves it, registry/qmgr.py); for a queue this registry does not hold, 0."""
    if copy.md.Priority != C.MQPRI_PRIORITY_AS_Q_DEF:
        return copy.md.Priority
    queue = reg.queues.get(copy.queue)
    return queue.def_priority if queue is not None else 0


def deliveries(reg, pub: Publication, subs: list[Subscription], now: float, new_msg_id) -> list[Delivery]:
    """One Delivery per subscription, in the order given; ``new_msg_id()`` makes each copy's MsgId."""
    suppress = bool(pub.options & C.MQPMO_SUPPRESS_REPLYTO)
    shaped: dict[tuple, tuple] = {}  # copies that differ only in their MQMD share their properties and data
    out = []
    for sub in subs:
        md = copy_descriptor(sub, pub.md, new_msg_id(), now=now, suppress_reply_to=suppress)
        key = (sub.psprop, sub.user_data, sub.resolved_topic if sub.psprop != C.MQPSPROP_MSGPROP else "")
        made = shaped.get(key)
        if made is None:
            made = shaped[key] = properties.shape(sub, pub)
        props, data, fmt = made
        if fmt is not None:
            md.Format = fmt
        out.append(Delivery(sub, sub.destination, sub.destination_qmgr, md, props, data))
    return out
