"""Subscription commands: Create, Copy, Change, Delete, Inquire Subscription and Inquire Sub Status.

Reasons and their evidence are in docs/compat.md (part 1).  Every handler validates the whole
command before it touches the registry, so a ``CommandError`` leaves nothing half-done (the engine
commits only after the handler returns).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import defaults
from qmlite.registry.pubsub import subscribe
from qmlite.registry.admin import responses
from qmlite.registry.pubsub import routing
from qmlite.registry.errors import MQIError
from qmlite.registry.admin.attributes import AttrTable, attr, with_filter
from qmlite.registry.objects.definitions import Queue, Subscription, mq_date, mq_time
from qmlite.registry.admin.params import (BYTES, INT, STR, CommandError, filter_matches, generic_match, p_bytes, p_int,
                      p_int_list, p_str, parse, pick)

# ---- parameter ids -------------------------------------------------------------------------------
SUB_NAME = C.MQCACF_SUB_NAME  # 3152
SUB_ID = C.MQBACF_SUB_ID  # 7016
FROM_NAME = C.MQCACF_FROM_SUB_NAME  # 3163
TO_NAME = C.MQCACF_TO_SUB_NAME  # 3164
TOPIC_OBJECT = C.MQCA_TOPIC_NAME  # 2092
TOPIC_STRING = C.MQCA_TOPIC_STRING  # 2094
DESTINATION = C.MQCACF_DESTINATION  # 3154
DEST_CLASS = C.MQIACF_DESTINATION_CLASS  # 1273
DEST_CORREL = C.MQBACF_DESTINATION_CORREL_ID  # 7015
DEST_QMGR = C.MQCACF_DESTINATION_Q_MGR  # 3153
EXPIRY = C.MQIACF_EXPIRY  # 1244
ACCOUNTING = C.MQBACF_ACCOUNTING_TOKEN  # 7010
APPL_IDENTITY = C.MQCACF_APPL_IDENTITY_DATA  # 3135
PUB_PRIORITY = C.MQIACF_PUB_PRIORITY  # 1283
PSPROP = C.MQIACF_PUBSUB_PROPERTIES  # 1271
SELECTOR = C.MQCACF_SUB_SELECTOR  # 3160
SUB_LEVEL = C.MQIACF_SUB_LEVEL  # 1307
SUB_SCOPE = C.MQIACF_SUBSCRIPTION_SCOPE  # 1275
SUB_USER = C.MQCACF_SUB_USER_ID  # 3156
USER_DATA = C.MQCACF_SUB_USER_DATA  # 3159
VARUSER = C.MQIACF_VARIABLE_USER_ID  # 1277
WSCHEMA = C.MQIACF_WILDCARD_SCHEMA  # 1288
REQONLY = C.MQIACF_REQUEST_ONLY  # 1280
REPLACE = C.MQIACF_REPLACE  # 1006
IGNORE_STATE = C.MQIACF_IGNORE_STATE  # 1423
DURABLE = C.MQIACF_DURABLE_SUBSCRIPTION  # 1274
SUB_TYPE = C.MQIACF_SUB_TYPE  # 1289
DISPLAY_TYPE = C.MQIA_DISPLAY_TYPE  # 262
SUB_ATTRS = C.MQIACF_SUB_ATTRS  # 1287
STATUS_ATTRS = C.MQIACF_SUB_STATUS_ATTRS  # 1294

NAME_LENGTH = C.MQ_SUB_NAME_LENGTH  # 10240
OBJECT_LENGTH = 48  # MQ_TOPIC_NAME_LENGTH, MQ_Q_NAME_LENGTH, MQ_Q_MGR_NAME_LENGTH
CORREL_LENGTH = 24  # MQ_CORREL_ID_LENGTH
TOKEN_LENGTH = 32  # MQ_ACCOUNTING_TOKEN_LENGTH
MANAGED_PREFIX = subscribe.MANAGED_DURABLE_PREFIX

# ---- parameter specs (docs/reference/pcf.md 6.2, 6.3) -----------------------------------------------------------
# Parameters every definition command (Create, Copy, Change) accepts, with the Subscription field
# each one sets.
DEFINITION_PARAMS = (
    p_str(TOPIC_OBJECT, OBJECT_LENGTH),
    p_str(TOPIC_STRING, C.MQ_TOPIC_STR_LENGTH),
    p_str(DESTINATION, OBJECT_LENGTH),
    p_int(DEST_CLASS, C.MQDC_MANAGED, C.MQDC_PROVIDED),
    p_bytes(DEST_CORREL, CORREL_LENGTH),
    p_str(DEST_QMGR, OBJECT_LENGTH),
    p_int(EXPIRY, low=C.MQEI_UNLIMITED),  # 0 is refused separately: -1 or > 0
    p_bytes(ACCOUNTING, TOKEN_LENGTH),
    p_str(APPL_IDENTITY, 32),
    p_int(PUB_PRIORITY, C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQPRI_PRIORITY_AS_Q_DEF, *range(10)),
    p_int(PSPROP, C.MQPSPROP_NONE, C.MQPSPROP_COMPAT, C.MQPSPROP_RFH2, C.MQPSPROP_MSGPROP),
    p_str(SELECTOR, C.MQ_SELECTOR_LENGTH),
    p_int(SUB_LEVEL, low=0, high=9),
    p_int(SUB_SCOPE, C.MQTSCOPE_QMGR, C.MQTSCOPE_ALL),
    p_str(SUB_USER, 12),
    p_str(USER_DATA, C.MQ_USER_DATA_LENGTH),
    p_int(VARUSER, C.MQVU_FIXED_USER, C.MQVU_ANY_USER),
    p_int(WSCHEMA, C.MQWS_CHAR, C.MQWS_TOPIC),
    p_int(REQONLY, C.MQRU_PUBLISH_ON_REQUEST, C.MQRU_PUBLISH_ALL),
)
FIELD = {
    TOPIC_OBJECT: "topic_object", TOPIC_STRING: "topic_string", DESTINATION: "destination",
    DEST_CLASS: "destination_class", DEST_CORREL: "destination_correl_id", DEST_QMGR: "destination_qmgr",
    EXPIRY: "expiry", ACCOUNTING: "pub_accounting_token", APPL_IDENTITY: "pub_appl_identity_data",
    PUB_PRIORITY: "pub_priority", PSPROP: "psprop", SELECTOR: "selector", SUB_LEVEL: "sub_level",
    SUB_SCOPE: "sub_scope", SUB_USER: "sub_user", USER_DATA: "user_data", VARUSER: "variable_user",
    WSCHEMA: "wildcard_schema", REQONLY: "request_only",
}
_REPLACE = p_int(REPLACE, C.MQRP_NO, C.MQRP_YES)
_SUB_ID = p_bytes(SUB_ID, CORREL_LENGTH, exact=True)

CREATE_PARAMS = (p_str(SUB_NAME, NAME_LENGTH), _REPLACE, *DEFINITION_PARAMS)
COPY_PARAMS = (p_str(TO_NAME, NAME_LENGTH), p_str(FROM_NAME, NAME_LENGTH), _SUB_ID, _REPLACE,
               *DEFINITION_PARAMS)
CHANGE_PARAMS = (p_str(SUB_NAME, NAME_LENGTH), _SUB_ID, *DEFINITION_PARAMS)
DELETE_PARAMS = (p_str(SUB_NAME, NAME_LENGTH), _SUB_ID, p_int(IGNORE_STATE, C.MQIS_NO, C.MQIS_YES))
_DURABLE_FILTER = p_int(DURABLE, C.MQSUB_DURABLE_YES, C.MQSUB_DURABLE_NO, C.MQSUB_DURABLE_ALL)
_TYPE_FILTER = p_int(SUB_TYPE, C.MQSUBTYPE_API, C.MQSUBTYPE_ADMIN, C.MQSUBTYPE_PROXY, C.MQSUBTYPE_ALL,
                     C.MQSUBTYPE_USER)
INQUIRE_PARAMS = (p_str(SUB_NAME, NAME_LENGTH), _SUB_ID, _DURABLE_FILTER, _TYPE_FILTER,
                  p_int(DISPLAY_TYPE, C.MQDOPT_RESOLVED, C.MQDOPT_DEFINED), p_int_list(SUB_ATTRS))
STATUS_PARAMS = (p_str(SUB_NAME, NAME_LENGTH), _SUB_ID, _DURABLE_FILTER, _TYPE_FILTER,
                 p_int_list(STATUS_ATTRS))

# The attributes a new subscription takes from SYSTEM.DEFAULT.SUB (docs/reference/pcf.md 10.1): altering that object
# changes the defaults of later definitions, as on a queue manager.
DEFAULTED_FIELDS = ("destination_class", "expiry", "psprop", "pub_priority", "request_only", "sub_level",
                    "sub_scope", "variable_user", "wildcard_schema")

# Attributes Change (and Create/Copy with Replace) may restate but not alter (docs/reference/pcf.md 8, decision 1),
# checked in this order, with the reason each answers.
NOT_ALTERABLE = (
    (TOPIC_OBJECT, "topic_object", C.MQRC_TOPIC_NOT_ALTERABLE),
    (TOPIC_STRING, "topic_string", C.MQRC_TOPIC_NOT_ALTERABLE),
    (WSCHEMA, "wildcard_schema", C.MQRC_TOPIC_NOT_ALTERABLE),
    (SELECTOR, "selector", C.MQRC_SELECTOR_NOT_ALTERABLE),
    (DEST_CLASS, "destination_class", C.MQRC_DEST_CLASS_NOT_ALTERABLE),
    (SUB_LEVEL, "sub_level", C.MQRC_SUBLEVEL_NOT_ALTERABLE),
    (SUB_SCOPE, "sub_scope", C.MQRCCF_PARM_CONFLICT),
)

_USER_TYPES = frozenset({C.MQSUBTYPE_ADMIN, C.MQSUBTYPE_API})


def register(engine) -> None:
    engine.register(C.MQCMD_CREATE_SUBSCRIPTION, create)
    engine.register(C.MQCMD_COPY_SUBSCRIPTION, copy)
    engine.register(C.MQCMD_CHANGE_SUBSCRIPTION, change)
    engine.register(C.MQCMD_DELETE_SUBSCRIPTION, delete)
    engine.register(C.MQCMD_INQUIRE_SUBSCRIPTION, inquire)
    engine.register(C.MQCMD_INQUIRE_SUB_STATUS, inquire_status)


# ---- names and lookups ---------------------------------------------------------------------------
def _new_name(values: dict, pid: int) -> str:
    """A name being defined (Create, Copy target): required, not blank, not generic."""
    if pid not in values:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=pid)
    name = values[pid]
    if not name:
        raise CommandError(C.MQRCCF_SUB_NAME_ERROR, parameter=pid)
    if "*" in name:
        raise CommandError(C.MQRCCF_PARM_SYNTAX_ERROR, parameter=pid)
    return name


def _lookup(reg, values: dict, name_pid: int) -> Subscription | None:
    """The subscription named by ``name_pid`` and/or SubId (both must agree); None if there is none.

    A blank name counts as not given.  Neither given: MQRCCF_PARM_MISSING for the name.
    """
    name = values.get(name_pid) or None
    sub_id = values.get(SUB_ID)
    if name is None and sub_id is None:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=name_pid)
    if name is not None and "*" in name:
        raise CommandError(C.MQRCCF_PARM_SYNTAX_ERROR, parameter=name_pid)
    by_name = reg.subs.get(name) if name is not None else None
    by_id = reg.subs_by_id.get(sub_id) if sub_id is not None else None
    if name is not None and sub_id is not None:
        return by_name if by_name is not None and by_name is by_id else None
    return by_name if name is not None else by_id


def _find(reg, values: dict, name_pid: int) -> Subscription:
    sub = _lookup(reg, values, name_pid)
    if sub is None:
        raise CommandError(C.MQRC_NO_SUBSCRIPTION)
    return sub


def _check_generic(name: str, pid: int) -> None:
    """Inquire names: a single trailing '*' is generic; a '*' anywhere else is a syntax error."""
    if "*" in name[:-1]:
        raise CommandError(C.MQRCCF_PARM_SYNTAX_ERROR, parameter=pid)


def _template(reg) -> Subscription:
    return reg.subs.get(defaults.DEFAULT_SUB) or Subscription(defaults.DEFAULT_SUB, bytes(CORREL_LENGTH))


# ---- building definitions ------------------------------------------------------------------------
def _pad(value: bytes, length: int) -> bytes:
    return value + bytes(length - len(value))


def _apply(sub: Subscription, values: dict) -> None:
    """Set every given definition parameter on ``sub`` (a fresh object not yet in the registry)."""
    for pid, name in FIELD.items():
        if pid not in values:
            continue
        value = values[pid]
        if pid == DEST_CORREL:
            if not value:
                continue  # an empty DestinationCorrelId leaves the default (the SubId)
            value = _pad(value, CORREL_LENGTH)
        elif pid == ACCOUNTING:
            value = _pad(value, TOKEN_LENGTH)
        elif pid == SUB_USER and not value:
            continue  # blank: keep the default (the requester)
        setattr(sub, name, value)
    sub.selector_type = C.MQSELTYPE_STANDARD if sub.selector else C.MQSELTYPE_NONE


def _check_values(values: dict) -> None:
    if values.get(EXPIRY) == 0:  # "-1 or greater than 0" (tenths of a second)
        raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=EXPIRY)
    if values.get(SELECTOR):
        try:  # MQSUB's rule: the same selector engine decides what parses
            subscribe.check_selector(values[SELECTOR])
        except MQIError as exc:
            raise CommandError(exc.reason, parameter=SELECTOR) from None


def _check_not_altered(new_values: dict, old: Subscription) -> None:
    """Refuse a different value for an attribute that cannot be altered (docs/compat.md (part 1))."""
    for pid, field, reason in NOT_ALTERABLE:
        if pid in new_values and new_values[pid] != getattr(old, field):
            raise CommandError(reason, parameter=pid)


def _definition_of(sub: Subscription) -> dict:
    return {pid: getattr(sub, field) for pid, field, _ in NOT_ALTERABLE}


def _resolve_topic(reg, sub: Subscription) -> str:
    """The full topic string of a definition, by the rule MQSUB uses too (registry/pubsub/subscribe.py)."""
    try:
        resolved = subscribe.resolve_topic(reg, sub.topic_object, sub.topic_string)
        subscribe.check_pattern(resolved, sub.wildcard_schema)
    except MQIError as exc:
        pid = TOPIC_OBJECT if exc.reason == C.MQRC_UNKNOWN_OBJECT_NAME else TOPIC_STRING
        raise CommandError(exc.reason, parameter=pid) from None
    return resolved


def _check_topic_policy(reg, resolved: str, schema: int) -> str:
    """DURSUB and SUB inhibition at the subscription's policy point (MQSUB's rule); returns that point."""
    point = subscribe.policy_point(resolved, schema)
    refusal = subscribe.policy_refusal(reg, point, durable=True)  # an administered subscription is durable
    if refusal == "durable":
        raise CommandError(C.MQRCCF_DURABILITY_NOT_ALLOWED, parameter=TOPIC_STRING)
    if refusal == "inhibited":
        raise CommandError(C.MQRC_SUB_INHIBITED, parameter=TOPIC_STRING)
    return point


def _is_local_qmgr(reg, name: str) -> bool:
    return not name or name == reg.qmgr.name


def _managed_queue(reg, point: str, now: float) -> Queue:
    """A new managed destination, by the rule MQSUB uses too."""
    try:
        return subscribe.managed_queue(reg, point, True, now)
    except MQIError as exc:
        raise CommandError(exc.reason) from None


def _check_provided_destination(reg, sub: Subscription) -> None:
    if not sub.destination:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=DESTINATION)
    if _is_local_qmgr(reg, sub.destination_qmgr) and sub.destination not in reg.queues:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, parameter=DESTINATION)


def _define(ctx, new: Subscription, values: dict, existing: Subscription | None,
            inherited_destination: str) -> list:
    """Finish a Create/Copy definition and store it; ``existing`` is the definition Replace replaces.

    ``new`` holds defaults (or the Copy source) with the given values applied.  Everything is
    validated before the registry changes.
    """
    reg = ctx.registry
    now = reg.now()
    given_destination = values.get(DESTINATION, "")
    queue: Queue | None = None
    if not new.topic_object and not new.topic_string:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=TOPIC_STRING)
    if existing is not None:
        if existing.sub_type == C.MQSUBTYPE_PROXY:
            raise CommandError(C.MQRCCF_SUBSCRIPTION_IN_USE)
        _check_not_altered(_definition_of(new), existing)
        new.resolved_topic = existing.resolved_topic  # the topic cannot change, so neither does this
    else:
        new.resolved_topic = _resolve_topic(reg, new)
    point = _check_topic_policy(reg, new.resolved_topic, new.wildcard_schema) if existing is None else ""
    if new.destination_class == C.MQDC_MANAGED:
        if given_destination:
            raise CommandError(C.MQRCCF_PARM_CONFLICT, parameter=DESTINATION)
        if existing is not None:
            new.destination = existing.destination  # the managed queue (and its messages) stays
        else:
            queue = _managed_queue(reg, point, now)
            new.destination = queue.name
    else:
        new.destination = given_destination or inherited_destination
        _check_provided_destination(reg, new)
    # Validated: from here on nothing fails.
    if existing is not None:
        new.sub_id = existing.sub_id
        new.created = existing.created
        new.sub_type, new.durable = existing.sub_type, existing.durable
        for status in ("resumed", "last_message", "message_count", "active_connection"):
            setattr(new, status, getattr(existing, status))
    else:
        new.sub_id = reg.ids.sub_id()
        new.created = now
        new.blocked_under = routing.blocks_for(reg, new)
    new.altered = now
    if DEST_CORREL not in values or not values[DEST_CORREL]:
        if new.destination_correl_id in (b"", bytes(CORREL_LENGTH)):
            new.destination_correl_id = new.sub_id
    if queue is not None:
        reg.put_queue(queue)
    reg.put_sub(new)
    if existing is None:
        reg.on_new_subscription(new)  # IBM: a new subscription gets what is retained on its topics
    return responses.ok(ctx.command)


# ---- Create --------------------------------------------------------------------------------------
def create(ctx, request: P.PCFMessage) -> list:
    reg = ctx.registry
    values = parse(request, CREATE_PARAMS).values
    name = _new_name(values, SUB_NAME)
    existing = reg.subs.get(name)
    if existing is not None and values.get(REPLACE) != C.MQRP_YES:
        raise CommandError(C.MQRCCF_SUB_ALREADY_EXISTS)
    _check_values(values)
    template = _template(reg)
    new = Subscription(name, bytes(CORREL_LENGTH), **{f: getattr(template, f) for f in DEFAULTED_FIELDS})
    new.sub_type, new.durable = C.MQSUBTYPE_ADMIN, C.MQSUB_DURABLE_YES
    new.sub_user = ctx.requester.user[:12]
    _apply(new, values)
    return _define(ctx, new, values, existing, "")


# ---- Copy ----------------------------------------------------------------------------------------
def copy(ctx, request: P.PCFMessage) -> list:
    reg = ctx.registry
    values = parse(request, COPY_PARAMS).values
    to_name = _new_name(values, TO_NAME)
    source = _find(reg, values, FROM_NAME)
    existing = reg.subs.get(to_name)
    if existing is not None and values.get(REPLACE) != C.MQRP_YES:
        raise CommandError(C.MQRCCF_SUB_ALREADY_EXISTS)
    _check_values(values)
    new = dataclasses.replace(source, name=to_name, sub_type=C.MQSUBTYPE_ADMIN, durable=C.MQSUB_DURABLE_YES,
                              resumed=0.0, last_message=0.0, message_count=0,
                              active_connection=bytes(CORREL_LENGTH))
    if source.destination_correl_id == source.sub_id:
        new.destination_correl_id = bytes(CORREL_LENGTH)  # generated: the copy gets its own SubId
    _apply(new, values)
    # A managed source's queue belongs to the source; a PROVIDED copy inherits a PROVIDED destination.
    inherited = source.destination if source.destination_class == C.MQDC_PROVIDED else ""
    return _define(ctx, new, values, existing, inherited)


# ---- Change --------------------------------------------------------------------------------------
def change(ctx, request: P.PCFMessage) -> list:
    reg = ctx.registry
    values = parse(request, CHANGE_PARAMS).values
    sub = _find(reg, values, SUB_NAME)
    if sub.sub_type == C.MQSUBTYPE_PROXY:
        raise CommandError(C.MQRCCF_SUBSCRIPTION_IN_USE)
    _check_values(values)
    _check_not_altered(values, sub)
    destination = values.get(DESTINATION, "")
    if destination and sub.destination_class == C.MQDC_MANAGED and destination != sub.destination:
        raise CommandError(C.MQRCCF_PARM_CONFLICT, parameter=DESTINATION)
    new = dataclasses.replace(sub)
    values = {pid: v for pid, v in values.items() if not (pid == DESTINATION and not v)}
    _apply(new, values)
    new.altered = reg.now()
    reg.put_sub(new)
    return responses.ok(ctx.command)


# ---- Delete --------------------------------------------------------------------------------------
def delete(ctx, request: P.PCFMessage) -> list:
    reg = ctx.registry
    values = parse(request, DELETE_PARAMS).values
    sub = _lookup(reg, values, SUB_NAME)
    if sub is None:
        if values.get(IGNORE_STATE) == C.MQIS_YES:  # IGNSTATE(YES): success although it does not exist
            return responses.ok(ctx.command)
        raise CommandError(C.MQRC_NO_SUBSCRIPTION)
    if (sub.sub_type == C.MQSUBTYPE_PROXY or sub.durable != C.MQSUB_DURABLE_YES
            or sub.active_connection != bytes(CORREL_LENGTH)):
        raise CommandError(C.MQRCCF_SUBSCRIPTION_IN_USE)
    reg.delete_sub(sub)  # and its managed queue with the queue's messages
    return responses.ok(ctx.command)


# ---- Inquire -------------------------------------------------------------------------------------
def _date(epoch: float) -> str:
    return mq_date(epoch) if epoch else ""


def _time(epoch: float) -> str:
    return mq_time(epoch) if epoch else ""


def _sub_table(qmgr_name: str, display_type: int) -> AttrTable:
    topic_field = "topic_string" if display_type == C.MQDOPT_DEFINED else "resolved_topic"
    return AttrTable([
        attr(SUB_ID, BYTES, "sub_id", always=True),
        attr(SUB_NAME, STR, "name", always=True),
        attr(TOPIC_STRING, STR, topic_field),
        attr(TOPIC_OBJECT, STR, "topic_object", pad=OBJECT_LENGTH),
        attr(DESTINATION, STR, "destination", pad=OBJECT_LENGTH),
        attr(DEST_QMGR, STR, lambda s: s.destination_qmgr or qmgr_name, pad=OBJECT_LENGTH),
        attr(DEST_CLASS, INT, "destination_class"),
        attr(DEST_CORREL, BYTES, "destination_correl_id"),
        attr(DURABLE, INT, "durable"),
        attr(SUB_TYPE, INT, "sub_type"),
        attr(SUB_USER, STR, "sub_user", pad=12),
        attr(C.MQCA_CREATION_DATE, STR, lambda s: mq_date(s.created), pad=12),
        attr(C.MQCA_CREATION_TIME, STR, lambda s: mq_time(s.created), pad=8),
        attr(C.MQCA_ALTERATION_DATE, STR, lambda s: mq_date(s.altered), pad=12),
        attr(C.MQCA_ALTERATION_TIME, STR, lambda s: mq_time(s.altered), pad=8),
        attr(EXPIRY, INT, "expiry"),
        attr(ACCOUNTING, BYTES, "pub_accounting_token"),
        attr(APPL_IDENTITY, STR, "pub_appl_identity_data", pad=32),
        attr(PUB_PRIORITY, INT, "pub_priority"),
        attr(PSPROP, INT, "psprop"),
        attr(REQONLY, INT, "request_only"),
        attr(SELECTOR, STR, "selector"),
        attr(C.MQIACF_SELECTOR_TYPE, INT, "selector_type"),
        attr(SUB_LEVEL, INT, "sub_level"),
        attr(SUB_SCOPE, INT, "sub_scope"),
        attr(USER_DATA, STR, "user_data"),
        attr(VARUSER, INT, "variable_user"),
        attr(WSCHEMA, INT, "wildcard_schema"),
    ], summary=(DESTINATION, DEST_CORREL, DEST_QMGR, DURABLE, SUB_TYPE, SUB_USER, TOPIC_STRING))


_STATUS_TABLE = AttrTable([
    attr(SUB_ID, BYTES, "sub_id", always=True),
    attr(SUB_NAME, STR, "name", always=True),
    attr(TOPIC_STRING, STR, "resolved_topic"),
    attr(SUB_TYPE, INT, "sub_type"),
    attr(DURABLE, INT, "durable"),
    attr(SUB_USER, STR, "sub_user", pad=12),
    attr(C.MQCA_RESUME_DATE, STR, lambda s: mq_date(s.resumed or s.created), pad=12),
    attr(C.MQCA_RESUME_TIME, STR, lambda s: mq_time(s.resumed or s.created), pad=8),
    attr(C.MQCACF_LAST_MSG_DATE, STR, lambda s: _date(s.last_message), pad=12),
    attr(C.MQCACF_LAST_MSG_TIME, STR, lambda s: _time(s.last_message), pad=8),
    attr(C.MQIACF_MESSAGE_COUNT, INT, "message_count"),
    attr(C.MQBACF_CONNECTION_ID, BYTES, "active_connection"),
])


def _candidates(reg, values: dict) -> Iterable[Subscription]:
    """The subscriptions SubName (generic or not) and SubId select, in SubName order."""
    name = values.get(SUB_NAME) or None
    sub_id = values.get(SUB_ID)
    if name is None and sub_id is None:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=SUB_NAME)
    if name is not None:
        _check_generic(name, SUB_NAME)
    if sub_id is not None:
        sub = reg.subs_by_id.get(sub_id)
        found = [sub] if sub is not None and (name is None or generic_match(name, sub.name)) else []
        return found
    return pick(reg.subs, name)


def _type_matches(wanted: int, sub_type: int) -> bool:
    if wanted == C.MQSUBTYPE_ALL:
        return True
    if wanted == C.MQSUBTYPE_USER:
        return sub_type in _USER_TYPES
    return sub_type == wanted


def _selected(reg, values: dict, durable_default: int) -> list[Subscription]:
    durable = values.get(DURABLE, durable_default)
    sub_type = values.get(SUB_TYPE, C.MQSUBTYPE_USER)
    return [s for s in _candidates(reg, values)
            if (durable == C.MQSUB_DURABLE_ALL or s.durable == durable) and _type_matches(sub_type, s.sub_type)]


def _answer(ctx, table: AttrTable, parsed, subs: list[Subscription], requested) -> list:
    flt = parsed.filter
    if flt is not None:
        subs = [s for s in subs if filter_matches(flt, table.value(s, flt.parameter))]
    chosen = with_filter(table, table.select(requested), flt)
    return responses.data(ctx.command, [table.render(s, chosen) for s in subs],
                          none_found=C.MQRC_NO_SUBSCRIPTION)


def inquire(ctx, request: P.PCFMessage) -> list:
    reg = ctx.registry
    resolved_table = _sub_table(reg.qmgr.name, C.MQDOPT_RESOLVED)  # filter ids are the same in both
    parsed = parse(request, INQUIRE_PARAMS, filters=resolved_table.filter_kinds())
    values = parsed.values
    table = _sub_table(reg.qmgr.name, values.get(DISPLAY_TYPE, C.MQDOPT_RESOLVED))
    subs = _selected(reg, values, C.MQSUB_DURABLE_ALL)
    return _answer(ctx, table, parsed, subs, values.get(SUB_ATTRS))


def inquire_status(ctx, request: P.PCFMessage) -> list:
    reg = ctx.registry
    parsed = parse(request, STATUS_PARAMS, filters=_STATUS_TABLE.filter_kinds())
    values = parsed.values
    subs = _selected(reg, values, C.MQSUB_DURABLE_YES)  # docs/reference/pcf.md decision 12
    return _answer(ctx, _STATUS_TABLE, parsed, subs, values.get(STATUS_ATTRS))
