"""Topic commands: Create/Copy/Change/Delete Topic, Inquire Topic, Inquire Topic Names and
Inquire Topic Status (docs/compat.md (part 2)).

Inquire Topic shows a topic object as defined (AS_PARENT included); Inquire Topic Status shows the
topic tree as it applies: every value resolved up the tree (``Registry.topic_attr``), never AS_PARENT.
"""

from __future__ import annotations

import dataclasses
import re

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import values as V
from qmlite.registry.security import authrecs
from qmlite.registry.admin import responses as R
from qmlite.registry.pubsub import topics
from qmlite.registry.admin.attributes import AttrTable, attr, with_filter
from qmlite.registry.objects.definitions import Subscription, Topic, mq_date, mq_time, stamp_definition
from qmlite.registry.objects import layouts
from qmlite.registry.admin.params import (BYTES, INT, STR, CommandError, filter_matches, p_int, p_int_list,
                      p_str, parse, pick)
from qmlite.registry.admin.commands.queues import check_name, required
from qmlite.registry.cluster import pubs as cluster_pubs

NAME_LENGTH = C.MQ_TOPIC_NAME_LENGTH  # 48
DESC_LENGTH = C.MQ_TOPIC_DESC_LENGTH  # 64
Q_NAME_LENGTH = C.MQ_Q_NAME_LENGTH
COMM_INFO = "SYSTEM.DEFAULT.COMMINFO.MULTICAST"  # SYSTEM.BASE.TOPIC's COMMINFO
RETAINED_NO, RETAINED_YES = 0, 1  # MQQSO_NO, MQQSO_YES: MQIACF_RETAINED_PUBLICATION
MQCLRT_RETAINED = 1  # Clear Topic String's ClearType (cmqcfc)
MQCLRS_LOCAL, MQCLRS_GLOBAL = 1, 2  # and its Scope

TOPIC_NAME = C.MQCA_TOPIC_NAME
TOPIC_STRING = C.MQCA_TOPIC_STRING

# ---- definition parameters (Create, Copy, Change) ------------------------------------------------
DEFINITION = (
    (p_str(C.MQCA_TOPIC_DESC, DESC_LENGTH), "description"),
    (p_int(C.MQIA_DURABLE_SUB, C.MQSUB_DURABLE_AS_PARENT, C.MQSUB_DURABLE_ALLOWED, C.MQSUB_DURABLE_INHIBITED),
     "durable_subscriptions"),
    (p_int(C.MQIA_DEF_PRIORITY, C.MQPRI_PRIORITY_AS_PARENT, *range(10)), "def_priority"),
    (p_int(C.MQIA_TOPIC_DEF_PERSISTENCE, C.MQPER_PERSISTENCE_AS_PARENT, C.MQPER_NOT_PERSISTENT,
           C.MQPER_PERSISTENT), "def_persistence"),
    (p_int(C.MQIA_DEF_PUT_RESPONSE_TYPE, C.MQPRT_RESPONSE_AS_PARENT, C.MQPRT_SYNC_RESPONSE,
           C.MQPRT_ASYNC_RESPONSE), "def_put_response"),
    (p_str(C.MQCA_MODEL_DURABLE_Q, Q_NAME_LENGTH), "durable_model_q"),
    (p_str(C.MQCA_MODEL_NON_DURABLE_Q, Q_NAME_LENGTH), "non_durable_model_q"),
    (p_int(C.MQIA_INHIBIT_PUB, C.MQTA_PUB_AS_PARENT, C.MQTA_PUB_INHIBITED, C.MQTA_PUB_ALLOWED),
     "inhibit_publications"),
    (p_int(C.MQIA_INHIBIT_SUB, C.MQTA_SUB_AS_PARENT, C.MQTA_SUB_INHIBITED, C.MQTA_SUB_ALLOWED),
     "inhibit_subscriptions"),
    (p_int(C.MQIA_PM_DELIVERY, C.MQDLV_AS_PARENT, C.MQDLV_ALL, C.MQDLV_ALL_DUR, C.MQDLV_ALL_AVAIL), "pm_delivery"),
    (p_int(C.MQIA_NPM_DELIVERY, C.MQDLV_AS_PARENT, C.MQDLV_ALL, C.MQDLV_ALL_DUR, C.MQDLV_ALL_AVAIL),
     "npm_delivery"),
    (p_int(C.MQIA_PUB_SCOPE, C.MQSCOPE_AS_PARENT, C.MQSCOPE_ALL, C.MQSCOPE_QMGR), "pub_scope"),
    (p_int(C.MQIA_SUB_SCOPE, C.MQSCOPE_AS_PARENT, C.MQSCOPE_ALL, C.MQSCOPE_QMGR), "sub_scope"),
    (p_int(C.MQIA_PROXY_SUB, C.MQTA_PROXY_SUB_FORCE, C.MQTA_PROXY_SUB_FIRSTUSE), "proxy_subscriptions"),
    (p_int(C.MQIA_WILDCARD_OPERATION, C.MQTA_BLOCK, C.MQTA_PASSTHRU), "wildcard_operation"),
    (p_int(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_AS_PARENT, C.MQUSEDLQ_NO, C.MQUSEDLQ_YES), "use_dlq"),
    (p_int(C.MQIA_MULTICAST, C.MQMC_AS_PARENT, C.MQMC_ENABLED, C.MQMC_DISABLED, C.MQMC_ONLY), "multicast"),
    # Clustered topics (registry/objects/clusters.py): the cluster and how publications route in it.
    (p_str(C.MQCA_CLUSTER_NAME, C.MQ_CLUSTER_NAME_LENGTH), "cluster_name"),
    (p_int(C.MQIA_CLUSTER_PUB_ROUTE, C.MQCLROUTE_DIRECT, C.MQCLROUTE_TOPIC_HOST), "cluster_pub_route"),
    (p_str(C.MQCA_CUSTOM, C.MQ_CUSTOM_LENGTH), "custom"),
    (p_str(C.MQCA_COMM_INFO_NAME, C.MQ_COMM_INFO_NAME_LENGTH), "comm_info"),
    # ASPARENT (-2), NOLIMIT (-1) or 1 to 999 999 999 tenths of a second; 0 is refused in _changes.
    (p_int(C.MQIA_CAP_EXPIRY, low=V.MQCEX_AS_PARENT, high=999_999_999), "cap_expiry"),
)
FIELDS = {p.id: f for p, f in DEFINITION}
_DEFINITION_PARAMS = tuple(p for p, _ in DEFINITION)

_P_NAME = p_str(TOPIC_NAME, NAME_LENGTH)
_P_STRING = p_str(TOPIC_STRING, C.MQ_TOPIC_STR_LENGTH)
_P_TYPE = p_int(C.MQIA_TOPIC_TYPE)  # LOCAL only; checked for a precise reason
_P_REPLACE = p_int(C.MQIACF_REPLACE, C.MQRP_YES, C.MQRP_NO)
_P_FROM = p_str(C.MQCACF_FROM_TOPIC_NAME, NAME_LENGTH)
_P_TO = p_str(C.MQCACF_TO_TOPIC_NAME, NAME_LENGTH)

_CREATE = (_P_NAME, _P_STRING, _P_TYPE, _P_REPLACE) + _DEFINITION_PARAMS
_COPY = (_P_FROM, _P_TO, _P_STRING, _P_TYPE, _P_REPLACE) + _DEFINITION_PARAMS
_CHANGE = (_P_NAME, _P_STRING, _P_TYPE) + _DEFINITION_PARAMS
_DELETE = (_P_NAME, p_int(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES, C.MQRAR_NO))


def _changes(values: dict) -> dict[str, object]:
    if C.MQIA_TOPIC_TYPE in values and values[C.MQIA_TOPIC_TYPE] != C.MQTOPT_LOCAL:
        raise CommandError(C.MQRCCF_TOPIC_TYPE_ERROR, parameter=C.MQIA_TOPIC_TYPE)
    if values.get(C.MQIA_CAP_EXPIRY) == 0:
        raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=C.MQIA_CAP_EXPIRY)
    changes: dict[str, object] = {}
    for pid, value in values.items():
        field = FIELDS.get(pid)
        if field is None:
            continue
        if pid in (C.MQCA_MODEL_DURABLE_Q, C.MQCA_MODEL_NON_DURABLE_Q, C.MQCA_CLUSTER_NAME,
                   C.MQCA_COMM_INFO_NAME) and value:
            check_name(value, pid)  # type: ignore[arg-type]
        changes[field] = value
    return changes


def _check_string(value: str) -> None:
    """A topic object's string: no NUL, no "#" or "+" level (objects are nodes, never patterns)."""
    try:
        topics.validate(value, allow_wildcards=False)
    except topics.TopicError:
        raise CommandError(C.MQRC_TOPIC_STRING_ERROR, parameter=TOPIC_STRING) from None


def _string_free(registry, string: str, owner: str) -> None:
    holder = registry.topics_by_string.get(string)
    if holder is not None and holder.name != owner:
        raise CommandError(C.MQRCCF_TOPICSTR_ALREADY_EXISTS, parameter=TOPIC_STRING)


def _target(registry, name: str, replace: bool, pid: int) -> Topic | None:
    existing = registry.topics.get(name)
    if existing is not None and not replace:
        raise CommandError(C.MQRCCF_OBJECT_ALREADY_EXISTS, parameter=pid)
    return existing


def _fixed_string(existing: Topic | None, string: str) -> None:
    """A topic object's TopicString is set at creation and never changes."""
    if existing is not None and existing.topic_string != string:
        raise CommandError(C.MQRCCF_ATTR_VALUE_FIXED, parameter=TOPIC_STRING)


def _template(registry, name: str, string: str) -> Topic:
    """New topics take SYSTEM.DEFAULT.TOPIC's values when it exists, else the documented defaults."""
    base = registry.topics.get("SYSTEM.DEFAULT.TOPIC")
    if base is None:
        return Topic(name, string)
    return layouts.replace(base, name=name, topic_string=string, description="")


def create_topic(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CREATE).values
    name = required(values, TOPIC_NAME)
    check_name(name, TOPIC_NAME)  # type: ignore[arg-type]
    string = required(values, TOPIC_STRING)  # "required and cannot contain an empty string"
    _check_string(string)  # type: ignore[arg-type]
    changes = _changes(values)
    reg = ctx.registry
    existing = _target(reg, name, values.get(C.MQIACF_REPLACE) == C.MQRP_YES, TOPIC_NAME)  # type: ignore[arg-type]
    _fixed_string(existing, string)  # type: ignore[arg-type]
    _string_free(reg, string, name)  # type: ignore[arg-type]
    topic = layouts.replace(_template(reg, name, string), **changes)  # type: ignore[arg-type]
    stamp_definition(topic, existing, reg.now())
    reg.put_topic(topic)
    return R.ok(ctx.command)


def copy_topic(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _COPY).values
    source_name = required(values, C.MQCACF_FROM_TOPIC_NAME)
    check_name(source_name, C.MQCACF_FROM_TOPIC_NAME)  # type: ignore[arg-type]
    target_name = required(values, C.MQCACF_TO_TOPIC_NAME)
    check_name(target_name, C.MQCACF_TO_TOPIC_NAME)  # type: ignore[arg-type]
    string = required(values, TOPIC_STRING)  # required on Copy: strings are unique among objects
    _check_string(string)  # type: ignore[arg-type]
    changes = _changes(values)
    reg = ctx.registry
    source = reg.topics.get(source_name)
    if source is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, parameter=C.MQCACF_FROM_TOPIC_NAME)
    existing = _target(reg, target_name, values.get(C.MQIACF_REPLACE) == C.MQRP_YES,  # type: ignore[arg-type]
                       C.MQCACF_TO_TOPIC_NAME)
    _fixed_string(existing, string)  # type: ignore[arg-type]
    _string_free(reg, string, target_name)  # type: ignore[arg-type]
    topic = layouts.replace(source, name=target_name, topic_string=string, **changes)  # type: ignore[arg-type]
    stamp_definition(topic, existing, reg.now())
    reg.put_topic(topic)
    return R.ok(ctx.command)


def change_topic(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CHANGE).values
    name = required(values, TOPIC_NAME)
    check_name(name, TOPIC_NAME)  # type: ignore[arg-type]
    changes = _changes(values)
    reg = ctx.registry
    topic = reg.topics.get(name)
    if topic is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    if TOPIC_STRING in values:
        _fixed_string(topic, values[TOPIC_STRING])  # type: ignore[arg-type]
    route = changes.get("cluster_pub_route", topic.cluster_pub_route)
    if route != topic.cluster_pub_route and topic.cluster_name and changes.get("cluster_name", topic.cluster_name):
        # IBM: CLROUTE cannot be altered while the topic is in a cluster; take it out first.
        raise CommandError(C.MQRCCF_CLROUTE_NOT_ALTERABLE, parameter=C.MQIA_CLUSTER_PUB_ROUTE)
    updated = layouts.replace(topic, **changes)  # type: ignore[arg-type]
    updated.altered = reg.now()
    reg.put_topic(updated)
    return R.ok(ctx.command)


def delete_topic(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _DELETE).values
    name = required(values, TOPIC_NAME)
    check_name(name, TOPIC_NAME)  # type: ignore[arg-type]
    topic = ctx.registry.topics.get(name)
    if topic is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    # SYSTEM.BASE.TOPIC may go too: "If this object does not exist, its default values are still
    # used" (IBM); Registry.topic_attr falls back to BASE_TOPIC_VALUES.
    ctx.registry.remove_topic(topic)
    if values.get(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES) == C.MQRAR_YES:  # IBM's default: AUTHREC(YES)
        authrecs.forget_object(ctx.registry, C.MQOT_TOPIC, name)
    return R.ok(ctx.command)


# ---- Inquire Topic / Topic Names -----------------------------------------------------------------
TOPIC_TABLE = AttrTable([
    attr(TOPIC_NAME, STR, "name", pad=NAME_LENGTH, always=True),
    attr(C.MQIA_TOPIC_TYPE, INT, "topic_type", always=True),
    attr(TOPIC_STRING, STR, "topic_string"),
    attr(C.MQCA_TOPIC_DESC, STR, "description", pad=DESC_LENGTH),
    attr(C.MQCA_CLUSTER_NAME, STR, "cluster_name", pad=C.MQ_CLUSTER_NAME_LENGTH),
    attr(C.MQIA_CLUSTER_PUB_ROUTE, INT, "cluster_pub_route"),
    # CLSTATE: the state of the topic's cluster definition; a one-queue-manager cluster has no peer
    # to wait for, so a clustered topic is ACTIVE at once (a blank one reports ACTIVE too, as IBM's).
    attr(C.MQIA_CLUSTER_OBJECT_STATE, INT, lambda t: C.MQCLST_ACTIVE),
    attr(C.MQCA_COMM_INFO_NAME, STR, "comm_info", pad=C.MQ_COMM_INFO_NAME_LENGTH),
    attr(C.MQCA_CUSTOM, STR, "custom", pad=C.MQ_CUSTOM_LENGTH),
    attr(C.MQIA_DURABLE_SUB, INT, "durable_subscriptions"),
    attr(C.MQIA_DEF_PRIORITY, INT, "def_priority"),
    attr(C.MQIA_TOPIC_DEF_PERSISTENCE, INT, "def_persistence"),
    attr(C.MQIA_DEF_PUT_RESPONSE_TYPE, INT, "def_put_response"),
    attr(C.MQCA_MODEL_DURABLE_Q, STR, "durable_model_q", pad=Q_NAME_LENGTH),
    attr(C.MQCA_MODEL_NON_DURABLE_Q, STR, "non_durable_model_q", pad=Q_NAME_LENGTH),
    attr(C.MQIA_INHIBIT_PUB, INT, "inhibit_publications"),
    attr(C.MQIA_INHIBIT_SUB, INT, "inhibit_subscriptions"),
    attr(C.MQIA_PM_DELIVERY, INT, "pm_delivery"),
    attr(C.MQIA_NPM_DELIVERY, INT, "npm_delivery"),
    attr(C.MQIA_PUB_SCOPE, INT, "pub_scope"),
    attr(C.MQIA_SUB_SCOPE, INT, "sub_scope"),
    attr(C.MQIA_PROXY_SUB, INT, "proxy_subscriptions"),
    attr(C.MQIA_WILDCARD_OPERATION, INT, "wildcard_operation"),
    attr(C.MQIA_USE_DEAD_LETTER_Q, INT, "use_dlq"),
    attr(C.MQIA_MULTICAST, INT, "multicast"),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda t: mq_date(t.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda t: mq_time(t.altered), pad=C.MQ_TIME_LENGTH),
    attr(C.MQIA_CAP_EXPIRY, INT, "cap_expiry"),
])

_P_TYPE_FILTER = p_int(C.MQIA_TOPIC_TYPE, C.MQTOPT_LOCAL, C.MQTOPT_CLUSTER, C.MQTOPT_ALL)
_INQUIRE = (_P_NAME, _P_TYPE_FILTER, p_int_list(C.MQIACF_TOPIC_ATTRS))
_INQUIRE_NAMES = (_P_NAME, _P_TYPE_FILTER)


def _matching(ctx, values: dict) -> list[Topic]:
    pattern = required(values, TOPIC_NAME)
    check_name(pattern, TOPIC_NAME, generic=True)  # type: ignore[arg-type]
    wanted = values.get(C.MQIA_TOPIC_TYPE, C.MQTOPT_ALL)
    candidates = pick(ctx.registry.topics, pattern)  # type: ignore[arg-type]
    if wanted == C.MQTOPT_CLUSTER:
        # The cluster's view of this queue manager's clustered topics (DISPLAY TOPIC TYPE(CLUSTER)):
        # in a one-queue-manager cluster, its own clustered topic objects, reported as cluster topics.
        return [layouts.replace(t, topic_type=C.MQTOPT_CLUSTER) for t in candidates if t.cluster_name]
    return [t for t in candidates if wanted == C.MQTOPT_ALL or t.topic_type == wanted]


def inquire_topic(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parsed = parse(request, _INQUIRE, filters=TOPIC_TABLE.filter_kinds())
    values, flt = parsed.values, parsed.filter
    selected = with_filter(TOPIC_TABLE, TOPIC_TABLE.select(values.get(C.MQIACF_TOPIC_ATTRS)),  # type: ignore[arg-type]
                           flt)
    objects = [TOPIC_TABLE.render(t, selected) for t in _matching(ctx, values)
               if flt is None or filter_matches(flt, TOPIC_TABLE.value(t, flt.parameter))]
    return R.data(ctx.command, objects, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_topic_names(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE_NAMES).values
    names = tuple(t.name.ljust(NAME_LENGTH) for t in _matching(ctx, values))
    return R.data(ctx.command, [[P.CFSL(C.MQCACF_TOPIC_NAMES, names, R.QMGR_CCSID)]],
                  none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


# ---- Inquire Topic Status ------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class _Node:
    registry: object
    string: str
    subs: tuple[Subscription, ...]

    def resolved(self, field: str) -> object:
        return self.registry.topic_attr(self.string, field)  # type: ignore[attr-defined]

    @property
    def admin_topic(self) -> str:
        obj = self.registry.topics_by_string.get(self.string)  # type: ignore[attr-defined]
        return obj.name if obj is not None else ""


def _resolved(field: str):
    def get(node: _Node) -> object:
        return node.resolved(field)
    return get


def _cluster_route(node: _Node) -> int:
    """CLROUTE as it applies: that of the topic object that puts the node in its cluster (defined here, or
    told of by another member: registry/cluster/pubs.py)."""
    for obj in node.registry.topic_nodes(node.string):  # type: ignore[attr-defined]
        if obj.cluster_name:
            return obj.cluster_pub_route
    learnt = cluster_pubs.learnt_topic(node.registry, node.string)
    return learnt[1] if learnt is not None else C.MQCLROUTE_DIRECT


def _cluster_name(node: _Node) -> object:
    """CLUSTER as it applies: this member's topic objects', else a clustered topic another member defines."""
    own = node.resolved("cluster_name")
    learnt = None if own else cluster_pubs.learnt_topic(node.registry, node.string)
    return learnt[0] if learnt is not None else own


STATUS_TABLE = AttrTable([
    attr(TOPIC_STRING, STR, lambda n: n.string, always=True),
    attr(C.MQCA_ADMIN_TOPIC_NAME, STR, lambda n: n.admin_topic, pad=NAME_LENGTH),
    attr(C.MQCA_CLUSTER_NAME, STR, _cluster_name, pad=C.MQ_CLUSTER_NAME_LENGTH),
    attr(C.MQIA_CLUSTER_PUB_ROUTE, INT, lambda n: _cluster_route(n)),
    attr(C.MQCA_COMM_INFO_NAME, STR, _resolved("comm_info"), pad=C.MQ_COMM_INFO_NAME_LENGTH),
    attr(C.MQIA_DEF_PRIORITY, INT, _resolved("def_priority")),
    attr(C.MQIA_DEF_PUT_RESPONSE_TYPE, INT, _resolved("def_put_response")),
    attr(C.MQIA_TOPIC_DEF_PERSISTENCE, INT, _resolved("def_persistence")),
    attr(C.MQIA_DURABLE_SUB, INT, _resolved("durable_subscriptions")),
    attr(C.MQIA_INHIBIT_PUB, INT, _resolved("inhibit_publications")),
    attr(C.MQIA_INHIBIT_SUB, INT, _resolved("inhibit_subscriptions")),
    attr(C.MQIA_MULTICAST, INT, _resolved("multicast")),
    attr(C.MQCA_MODEL_DURABLE_Q, STR, _resolved("durable_model_q"), pad=Q_NAME_LENGTH),
    attr(C.MQCA_MODEL_NON_DURABLE_Q, STR, _resolved("non_durable_model_q"), pad=Q_NAME_LENGTH),
    attr(C.MQIA_PM_DELIVERY, INT, _resolved("pm_delivery")),
    attr(C.MQIA_NPM_DELIVERY, INT, _resolved("npm_delivery")),
    attr(C.MQIACF_RETAINED_PUBLICATION, INT,
         lambda n: RETAINED_YES if n.string in n.registry.retained else RETAINED_NO),  # type: ignore[attr-defined]
    attr(C.MQIA_PUB_COUNT, INT, lambda n: 0),  # no publisher tracking yet
    attr(C.MQIA_SUB_COUNT, INT, lambda n: len(n.subs)),
    attr(C.MQIA_SUB_SCOPE, INT, _resolved("sub_scope")),
    attr(C.MQIA_PUB_SCOPE, INT, _resolved("pub_scope")),
    attr(C.MQIA_USE_DEAD_LETTER_Q, INT, _resolved("use_dlq")),
])


def _status_date(epoch: float) -> str:
    return mq_date(epoch) if epoch else ""


def _status_time(epoch: float) -> str:
    # TPSTATUS times use colons (IBM's mq-golang: "TPSTATUS uses a colon format time, QSTATUS the dots")
    return mq_time(epoch).replace(".", ":") if epoch else ""


@dataclasses.dataclass(frozen=True, slots=True)
class _SubAt:
    string: str
    sub: Subscription


SUB_TABLE = AttrTable([
    attr(TOPIC_STRING, STR, lambda s: s.string, always=True),
    attr(C.MQBACF_SUB_ID, BYTES, lambda s: s.sub.sub_id, always=True),
    attr(C.MQCACF_SUB_USER_ID, STR, lambda s: s.sub.sub_user, pad=12),
    attr(C.MQIACF_DURABLE_SUBSCRIPTION, INT, lambda s: s.sub.durable),
    attr(C.MQIACF_SUB_TYPE, INT, lambda s: s.sub.sub_type),
    attr(C.MQCA_RESUME_DATE, STR, lambda s: _status_date(s.sub.resumed or s.sub.created), pad=12),
    attr(C.MQCA_RESUME_TIME, STR, lambda s: _status_time(s.sub.resumed or s.sub.created), pad=8),
    attr(C.MQCACF_LAST_MSG_DATE, STR, lambda s: _status_date(s.sub.last_message), pad=12),
    attr(C.MQCACF_LAST_MSG_TIME, STR, lambda s: _status_time(s.sub.last_message), pad=8),
    attr(C.MQIACF_MESSAGE_COUNT, INT, lambda s: s.sub.message_count),
    attr(C.MQBACF_CONNECTION_ID, BYTES, lambda s: s.sub.active_connection),
])

# Publishers are not tracked yet: a PUB inquiry lists the matching nodes with TopicString only.
PUB_TABLE = AttrTable([
    attr(TOPIC_STRING, STR, lambda n: n.string, always=True),
])

_STATUS_TYPES = (C.MQIACF_TOPIC_STATUS, C.MQIACF_TOPIC_SUB, C.MQIACF_TOPIC_PUB)
_INQUIRE_STATUS = (_P_STRING, p_int(C.MQIACF_TOPIC_STATUS_TYPE, *_STATUS_TYPES),
                   p_int_list(C.MQIACF_TOPIC_STATUS_ATTRS))


def _unescape_char(pattern: str) -> str:
    return re.sub(r"%([*?%])", r"\1", pattern)


def _sub_node(sub: Subscription) -> str | None:
    """The tree node a subscription sits on, or None for a wildcard subscription."""
    string = sub.resolved_topic
    if sub.wildcard_schema == C.MQWS_CHAR:
        return None if topics.has_char_wildcards(string) else _unescape_char(string)
    return None if topics.has_topic_wildcards(string) else string


def _with_ancestors(string: str, into: set[str]) -> None:
    levels = string.split(topics.SEPARATOR)
    for depth in range(1, len(levels) + 1):
        node = topics.SEPARATOR.join(levels[:depth])
        if node:
            into.add(node)


def topic_tree(registry) -> tuple[set[str], dict[str, list[Subscription]]]:
    """Every node of the topic tree (topic objects, subscriptions, their ancestors; the root "" is
    SYSTEM.BASE.TOPIC's and not listed), and the non-wildcard subscriptions on each node."""
    nodes: set[str] = set()
    subs_at: dict[str, list[Subscription]] = {}
    for string in registry.topics_by_string:
        _with_ancestors(string, nodes)
    for string in registry.retained:  # a retained publication keeps its node in the tree
        _with_ancestors(string, nodes)
    for string in cluster_pubs.learnt_topic_strings(registry):  # clustered topics other members define
        _with_ancestors(string, nodes)
    for sub in registry.subs.values():
        node = _sub_node(sub)
        if node is None:
            continue
        subs_at.setdefault(node, []).append(sub)
        _with_ancestors(node, nodes)
    return nodes, subs_at


def inquire_topic_status(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE_STATUS).values
    pattern = required(values, TOPIC_STRING)
    status_type = values.get(C.MQIACF_TOPIC_STATUS_TYPE, C.MQIACF_TOPIC_STATUS)
    requested = values.get(C.MQIACF_TOPIC_STATUS_ATTRS)
    reg = ctx.registry
    nodes, subs_at = topic_tree(reg)
    if topics.has_topic_wildcards(pattern):  # type: ignore[arg-type]
        matched = sorted(n for n in nodes if topics.matches(pattern, n))  # type: ignore[arg-type]
    else:  # a trailing "*" is an ordinary character here
        matched = [pattern] if pattern in nodes else []
    if not matched:
        raise CommandError(C.MQRCCF_TOPIC_STRING_NOT_FOUND)
    objects: list[list] = []
    if status_type == C.MQIACF_TOPIC_STATUS:
        selected = STATUS_TABLE.select(requested, lenient=True)  # type: ignore[arg-type]
        for n in matched:
            objects.append(STATUS_TABLE.render(_Node(reg, n, tuple(subs_at.get(n, ()))), selected))
    elif status_type == C.MQIACF_TOPIC_SUB:
        selected = SUB_TABLE.select(requested, lenient=True)  # type: ignore[arg-type]
        for n in matched:
            subs = sorted(subs_at.get(n, ()), key=lambda s: s.sub_id)
            if not subs:  # a node without subscribers: TopicString only
                objects.append([R.text(TOPIC_STRING, n)])
            objects.extend(SUB_TABLE.render(_SubAt(n, s), selected) for s in subs)
    else:
        selected = PUB_TABLE.select(requested, lenient=True)  # type: ignore[arg-type]
        objects.extend(PUB_TABLE.render(_Node(reg, n, ()), selected) for n in matched)
    return R.data(ctx.command, objects, none_found=C.MQRCCF_TOPIC_STRING_NOT_FOUND)


# ---- Clear Topic String -------------------------------------------------------------------------
_CLEAR = (p_str(TOPIC_STRING, C.MQ_TOPIC_STR_LENGTH), p_int(C.MQIACF_CLEAR_TYPE, MQCLRT_RETAINED),
          p_int(C.MQIACF_CLEAR_SCOPE, MQCLRS_LOCAL, MQCLRS_GLOBAL))


def clear_topic_string(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    """CLEAR TOPICSTR CLRTYPE(RETAINED): forget the topic's retained publication.  IBM: it succeeds
    whether or not there is one."""
    values = parse(request, _CLEAR).values
    string = required(values, TOPIC_STRING)
    required(values, C.MQIACF_CLEAR_TYPE)
    _check_string(string)  # type: ignore[arg-type]
    ctx.registry.forget_retained(string)
    return R.ok(ctx.command)


def register(engine) -> None:
    engine.register(C.MQCMD_CLEAR_TOPIC_STRING, clear_topic_string)
    engine.register(C.MQCMD_CREATE_TOPIC, create_topic)
    engine.register(C.MQCMD_COPY_TOPIC, copy_topic)
    engine.register(C.MQCMD_CHANGE_TOPIC, change_topic)
    engine.register(C.MQCMD_DELETE_TOPIC, delete_topic)
    engine.register(C.MQCMD_INQUIRE_TOPIC, inquire_topic)
    engine.register(C.MQCMD_INQUIRE_TOPIC_NAMES, inquire_topic_names)
    engine.register(C.MQCMD_INQUIRE_TOPIC_STATUS, inquire_topic_status)
