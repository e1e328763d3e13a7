"""MQINQ and MQSET, network-free, on the attribute tables the PCF Inquire commands render.

One description per object type (registry/admin/commands/qmgr.py, queues.py, namelists.py, processes.py,
topics.py): an attribute's value, its PCF type and its MQ_*_LENGTH come from there, so MQINQ and
Inquire Queue / Inquire Q Mgr / ... always report the same thing.  This module adds only the MQI
rules (IBM's MQINQ and MQSET pages; docs/compat.md "MQINQ and MQSET"):

* which selectors MQINQ recognises per object type.  A selector it does not recognise for the object
  type fails the call with MQRC_SELECTOR_ERROR; a queue selector that only another queue type has is a
  warning, MQRC_SELECTOR_NOT_FOR_TYPE, its value MQIAV_NOT_APPLICABLE or asterisks;
* the counts: more than 256 selectors MQRC_SELECTOR_LIMIT_EXCEEDED, a negative IntAttrCount
  MQRC_INT_ATTR_COUNT_ERROR, a negative CharAttrLength MQRC_CHAR_ATTR_LENGTH_ERROR; too few integers or
  characters are the warnings MQRC_INT_ATTR_COUNT_TOO_SMALL and MQRC_CHAR_ATTRS_TOO_SHORT with what fits;
* MQSET: queues only, InhibitGet, InhibitPut, DistLists, TriggerControl, TriggerType, TriggerDepth,
  TriggerMsgPriority and TriggerData, every selector and value checked before anything changes.

An alias queue answers with its own attributes, not its base queue's (IBM: "the attribute values
returned by the MQINQ call are those of the alias queue"); a dynamic queue with its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from qmlite.pcf import constants as C

from qmlite.registry.admin.attributes import Attr, AttrTable
from qmlite.registry.admin.commands import namelists
from qmlite.registry.admin.commands import processes
from qmlite.registry.admin.commands import qmgr
from qmlite.registry.admin.commands import queues
from qmlite.registry.admin.commands import topics
from qmlite.registry.errors import MQIError
from qmlite.registry.admin.params import INT_LIST, STR_LIST

MAX_SELECTORS = 256  # IBM: "The maximum number allowed is 256"
# The most characters MQINQ can ever fill: 256 selectors of the longest value (a 256-name namelist's
# Names).  Blank filling stops there, so a huge CharAttrLength cannot make the server allocate it.
MAX_CHAR_ATTRS = MAX_SELECTORS * C.MQNC_MAX_NAMELIST_NAME_COUNT * C.MQ_OBJECT_NAME_LENGTH

# Attributes Inquire Queue reports that MQINQ does not document for queues (their attribute pages give
# no MQINQ selector): asking for them on a queue is MQRC_SELECTOR_ERROR, as on a queue manager.
# MQIA_DEF_READ_AHEAD is not among them: IBM's monitoring library asks it of its reply queues with
# MQINQ on every connect (mq-golang mqmetric/mqif.go), so a queue manager answers it.
QUEUE_PCF_ONLY = frozenset({C.MQIA_DEF_PUT_RESPONSE_TYPE, C.MQIA_ACCOUNTING_Q,
                            C.MQIA_MONITORING_Q, C.MQIA_STATISTICS_Q})

QMGR_SELECTORS = frozenset(a.id for a in qmgr.TABLE.attrs if a.kind != INT_LIST)  # a list has no MQINQ form
QUEUE_SELECTORS = frozenset(queues.TABLE.by_id) - QUEUE_PCF_ONLY
NAMELIST_SELECTORS = frozenset(namelists.TABLE.by_id)
PROCESS_SELECTORS = frozenset(processes.TABLE.by_id)
TOPIC_SELECTORS = frozenset(topics.TOPIC_TABLE.by_id)  # qmlite's answer; IBM documents none (docs/compat.md)
SELECTORS = {C.MQOT_Q_MGR: QMGR_SELECTORS, C.MQOT_Q: QUEUE_SELECTORS, C.MQOT_NAMELIST: NAMELIST_SELECTORS,
             C.MQOT_PROCESS: PROCESS_SELECTORS, C.MQOT_TOPIC: TOPIC_SELECTORS}

# Character attributes whose MQINQ length is not their PCF padding.
_CHAR_LENGTH = {C.MQCA_TOPIC_STRING: C.MQ_TOPIC_STR_LENGTH}  # PCF sends a topic string unpadded


def is_int_selector(selector: int) -> bool:
    return C.MQIA_FIRST <= selector <= C.MQIA_LAST


def attr_length(attr: Attr, value: object = None) -> int:
    """The bytes an MQCA_* attribute takes in CharAttrs (a list: each name at its length, all of them)."""
    if attr.kind == STR_LIST:
        return (attr.pad or 0) * (len(value) if value is not None else 0)  # type: ignore[arg-type]
    return _CHAR_LENGTH.get(attr.id, attr.pad or 0)


@dataclasses.dataclass(frozen=True, slots=True)
class _Target:
    table: AttrTable
    view: object
    selectors: frozenset[int]  # what MQINQ recognises for the object type
    applies: frozenset[int]  # what this object has (all of them, except for queues)


def _target(registry, obj_type: int, name: str) -> _Target:
    if obj_type == C.MQOT_Q_MGR:
        return _Target(qmgr.TABLE, qmgr.qmgr_view(registry), QMGR_SELECTORS, QMGR_SELECTORS)
    if obj_type == C.MQOT_Q:
        queue = registry.queues.get(name)
        if queue is None:  # only a dynamic queue can go while a handle is open
            raise MQIError(C.MQRC_Q_DELETED)
        applies = queues.APPLIES.get(queue.qtype, frozenset()) & QUEUE_SELECTORS
        return _Target(queues.TABLE, queues.queue_view(registry, queue), QUEUE_SELECTORS, applies)
    found = {C.MQOT_NAMELIST: (registry.namelists, namelists.TABLE),
             C.MQOT_PROCESS: (registry.processes, processes.TABLE),
             C.MQOT_TOPIC: (registry.topics, topics.TOPIC_TABLE)}.get(obj_type)
    if found is None:
        raise MQIError(C.MQRC_OBJECT_TYPE_ERROR)
    objects, table = found
    obj = objects.get(name)
    if obj is None and obj_type == C.MQOT_TOPIC:  # opened by topic string: the object that governs it
        obj = next(registry.topic_nodes(name), None)
    if obj is None:
        raise MQIError(C.MQRC_OBJECT_CHANGED)
    selectors = SELECTORS[obj_type]
    return _Target(table, obj, selectors, selectors)


def _chars(attr: Attr, value: object) -> str:
    if attr.kind == STR_LIST:
        return "".join(str(v)[:attr.pad].ljust(attr.pad or 0) for v in value)  # type: ignore[union-attr]
    length = attr_length(attr)
    return str(value)[:length].ljust(length)


def mqinq(registry, obj_type: int, name: str, selectors: Sequence[int], int_count: int,
          char_length: int) -> tuple[list[int], str, int, int]:
    """MQINQ on the object ``name`` of ``obj_type``: (IntAttrs, CharAttrs, CompCode, Reason).

    IntAttrs holds the values of the integer selectors in order, at most ``int_count`` of them.
    CharAttrs is ``char_length`` characters: the character values in selector order, each at its MQ
    length, as many whole values as fit, blanks after (IBM leaves that space "unchanged"; a reply must
    carry something) up to MAX_CHAR_ATTRS.  For a topic (opened by object or by string) the topic
    object's own attributes answer, AS_PARENT values as defined, as in Inquire Topic.
    Failures raise MQIError; the warnings come back as CompCode MQCC_WARNING with their reason, in
    IBM's order of precedence: SELECTOR_NOT_FOR_TYPE, INT_ATTR_COUNT_TOO_SMALL, CHAR_ATTRS_TOO_SHORT.
    """
    if len(selectors) > MAX_SELECTORS:
        raise MQIError(C.MQRC_SELECTOR_LIMIT_EXCEEDED)
    if int_count < 0:
        raise MQIError(C.MQRC_INT_ATTR_COUNT_ERROR)
    if char_length < 0:
        raise MQIError(C.MQRC_CHAR_ATTR_LENGTH_ERROR)
    target = _target(registry, obj_type, name)
    for selector in selectors:
        if selector not in target.selectors:
            raise MQIError(C.MQRC_SELECTOR_ERROR)
    ints: list[int] = []
    texts: list[str] = []
    not_for_type = False
    for selector in selectors:
        attr = target.table.by_id[selector]
        applies = selector in target.applies
        not_for_type |= not applies
        if is_int_selector(selector):
            ints.append(attr.get(target.view) if applies else C.MQIAV_NOT_APPLICABLE)  # type: ignore[arg-type]
        elif applies:
            texts.append(_chars(attr, attr.get(target.view)))
        else:
            texts.append("*" * attr_length(attr))
    reason = C.MQRC_SELECTOR_NOT_FOR_TYPE if not_for_type else C.MQRC_NONE
    if len(ints) > int_count:
        ints = ints[:int_count]
        reason = reason or C.MQRC_INT_ATTR_COUNT_TOO_SMALL
    out: list[str] = []
    room = char_length
    for text in texts:
        if len(text) > room:  # whole values only; this one and every later one are left out
            reason = reason or C.MQRC_CHAR_ATTRS_TOO_SHORT
            break
        out.append(text)
        room -= len(text)
    chars = "".join(out).ljust(min(char_length, MAX_CHAR_ATTRS))
    return ints, chars, (C.MQCC_WARNING if reason else C.MQCC_OK), reason


# ---- MQSET ---------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class Settable:
    field: str  # the Queue field
    qtypes: tuple[int, ...]  # queue types that have the attribute
    values: frozenset[int] | range | None  # valid values of an integer attribute
    reason: int  # the reason for a value outside them


_L, _M, _A = C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS
_INHIBIT_GET = frozenset({C.MQQA_GET_ALLOWED, C.MQQA_GET_INHIBITED})
_INHIBIT_PUT = frozenset({C.MQQA_PUT_ALLOWED, C.MQQA_PUT_INHIBITED})
# IBM's MQSET table for queues.  DistLists has no reason of its own for a bad value: qmlite answers
# MQRC_INT_ATTRS_ARRAY_ERROR, "the IntAttrs parameter is not valid" (docs/decisions.md).
SETTABLE = {
    C.MQIA_INHIBIT_GET: Settable("inhibit_get", (_L, _M, _A), _INHIBIT_GET, C.MQRC_INHIBIT_VALUE_ERROR),
    C.MQIA_INHIBIT_PUT: Settable("inhibit_put", (_L, _M, _A), _INHIBIT_PUT, C.MQRC_INHIBIT_VALUE_ERROR),
    C.MQIA_DIST_LISTS: Settable("dist_lists", (_L, _M), frozenset({C.MQDL_SUPPORTED, C.MQDL_NOT_SUPPORTED}),
                                C.MQRC_INT_ATTRS_ARRAY_ERROR),
    C.MQIA_TRIGGER_CONTROL: Settable("trigger_control", (_L, _M), frozenset({C.MQTC_OFF, C.MQTC_ON}),
                                     C.MQRC_TRIGGER_CONTROL_ERROR),
    C.MQIA_TRIGGER_TYPE: Settable("trigger_type", (_L, _M),
                                  frozenset({C.MQTT_NONE, C.MQTT_FIRST, C.MQTT_EVERY, C.MQTT_DEPTH}),
                                  C.MQRC_TRIGGER_TYPE_ERROR),
    C.MQIA_TRIGGER_DEPTH: Settable("trigger_depth", (_L, _M), range(1, 999_999_999 + 1), C.MQRC_TRIGGER_DEPTH_ERROR),
    C.MQIA_TRIGGER_MSG_PRIORITY: Settable("trigger_msg_priority", (_L, _M), range(0, qmgr.MAX_PRIORITY + 1),
                                          C.MQRC_TRIGGER_MSG_PRIORITY_ERR),
    C.MQCA_TRIGGER_DATA: Settable("trigger_data", (_L, _M), None, C.MQRC_NONE),
}


def mqset(registry, obj_type: int, name: str, selectors: Sequence[int], ints: Sequence[int], chars: str) -> None:
    """MQSET on the queue ``name``: ``ints`` is IntAttrs (IntAttrCount = its length), ``chars`` CharAttrs.

    Every selector, count and value is checked first (MQIError with IBM's reason); then the queue is
    changed in one step through the registry and its AlterationDate/Time move on.  A selector given
    twice takes its last value (IBM).  MQSET has no "not for this type" warning: a settable attribute
    the queue's type lacks is MQRC_SELECTOR_ERROR ("not applicable to the type of object").
    """
    if len(selectors) > MAX_SELECTORS:
        raise MQIError(C.MQRC_SELECTOR_LIMIT_EXCEEDED)
    queue = None
    if obj_type == C.MQOT_Q:
        queue = registry.queues.get(name)
        if queue is None:
            raise MQIError(C.MQRC_Q_DELETED)
    for selector in selectors:
        setting = SETTABLE.get(selector)
        if queue is None or setting is None or queue.qtype not in setting.qtypes:
            raise MQIError(C.MQRC_SELECTOR_ERROR)
    int_selectors = [s for s in selectors if is_int_selector(s)]
    if len(ints) < len(int_selectors):
        raise MQIError(C.MQRC_INT_ATTR_COUNT_ERROR)
    lengths = [queues.TABLE.by_id[s].pad or 0 for s in selectors if not is_int_selector(s)]
    if len(chars) < sum(lengths):
        raise MQIError(C.MQRC_CHAR_ATTR_LENGTH_ERROR)
    changes: dict[str, object] = {}
    int_values = iter(ints)
    char_pos = 0
    for selector in selectors:
        setting = SETTABLE[selector]
        if is_int_selector(selector):
            value = next(int_values)
            if setting.values is not None and value not in setting.values:
                raise MQIError(setting.reason)
            changes[setting.field] = value
        else:
            length = queues.TABLE.by_id[selector].pad or 0
            changes[setting.field] = chars[char_pos:char_pos + length].rstrip(" \x00")
            char_pos += length
    if not changes:
        return
    updated = dataclasses.replace(queue, **changes)  # type: ignore[arg-type]
    updated.altered = registry.now()
    if updated.definition_type == C.MQQDT_TEMPORARY_DYNAMIC:
        registry.queues[updated.name] = updated  # never stored, like the queue itself
    else:
        registry.put_queue(updated)
