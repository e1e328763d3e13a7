"""Queue commands: Create/Copy/Change/Delete/Clear Queue, Inquire Queue and Inquire Queue Names.

Local, model and alias queues (docs/compat.md (part 2)).  Which attributes a command accepts and an
Inquire returns depends on the queue type, as on a real queue manager: an attribute of another queue
type is refused with the parameter-id error of the structure it came in (MQCFIN 3014, MQCFST 3015).
Every check runs before the first change, so a failed command changes nothing.
"""

from __future__ import annotations

import dataclasses
import re

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from .. import defaults
from .. import responses as R
from ..attributes import AttrTable, attr
from ..model import Queue, mq_date as _date, mq_time as _time, stamp_definition
from ..params import (INT, STR, CommandError, Param, filter_matches, p_int,
                      p_int_list, p_str, parse, pick)

Q_NAME_LENGTH = C.MQ_Q_NAME_LENGTH  # 48
Q_DESC_LENGTH = C.MQ_Q_DESC_LENGTH  # 64
MAX_Q_DEPTH = 999_999_999
MAX_MSG_LENGTH = 104_857_600  # 100 MB: the Multiplatforms limit for a queue's MAXMSGL

# MQ object names: 1-48 characters of A-Z a-z 0-9 . / _ %
_NAME = re.compile(r"[A-Za-z0-9._/%]+")

SUPPORTED_TYPES = (C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS)
UNSERVED_TYPES = (C.MQQT_REMOTE, C.MQQT_CLUSTER)
_TEMPLATES = {C.MQQT_LOCAL: "SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQQT_MODEL: "SYSTEM.DEFAULT.MODEL.QUEUE",
              C.MQQT_ALIAS: "SYSTEM.DEFAULT.ALIAS.QUEUE"}


# ---- shared helpers (also used by topics.py and qmgr.py) -------------------------------------------
def check_name(name: str, pid: int, *, generic: bool = False) -> None:
    """An MQ object name, or for Inquire a generic one (a single trailing "*", or "*" alone)."""
    body = name[:-1] if generic and name.endswith("*") else name
    if generic and name == "*":
        return
    if not _NAME.fullmatch(body):
        raise CommandError(C.MQRCCF_OBJECT_NAME_ERROR, parameter=pid)


def required(values: dict, pid: int) -> object:
    value = values.get(pid)
    if value is None or value == "":
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=pid)
    return value


def wrong_id(param: Param) -> CommandError:
    """A parameter that exists but does not belong to this command or object type."""
    return CommandError(C.MQRCCF_CFIN_PARM_ID_ERROR if param.kind == INT else C.MQRCCF_CFST_PARM_ID_ERROR,
                        parameter=param.id)


# ---- parameters ----------------------------------------------------------------------------------
# (parameter, Queue field) for the attributes a command may set.
_P_DESC = p_str(C.MQCA_Q_DESC, Q_DESC_LENGTH)
_P_PERSISTENCE = p_int(C.MQIA_DEF_PERSISTENCE, C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT)
_P_PRIORITY = p_int(C.MQIA_DEF_PRIORITY, low=0, high=9)
_P_INHIBIT_GET = p_int(C.MQIA_INHIBIT_GET, C.MQQA_GET_ALLOWED, C.MQQA_GET_INHIBITED)
_P_INHIBIT_PUT = p_int(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_ALLOWED, C.MQQA_PUT_INHIBITED)
_P_MAX_DEPTH = p_int(C.MQIA_MAX_Q_DEPTH, low=0, high=MAX_Q_DEPTH)
_P_MAX_MSG = p_int(C.MQIA_MAX_MSG_LENGTH, low=0, high=MAX_MSG_LENGTH)
_P_SHARE = p_int(C.MQIA_SHAREABILITY, C.MQQA_SHAREABLE, C.MQQA_NOT_SHAREABLE)
_P_INPUT = p_int(C.MQIA_DEF_INPUT_OPEN_OPTION, C.MQOO_INPUT_EXCLUSIVE, C.MQOO_INPUT_SHARED)
_P_USAGE = p_int(C.MQIA_USAGE, C.MQUS_NORMAL, C.MQUS_TRANSMISSION)
_P_DEFTYPE = p_int(C.MQIA_DEFINITION_TYPE, C.MQQDT_PERMANENT_DYNAMIC, C.MQQDT_TEMPORARY_DYNAMIC)
_P_BASE = p_str(C.MQCA_BASE_Q_NAME, Q_NAME_LENGTH)
_P_TARGET_TYPE = p_int(C.MQIA_BASE_TYPE, C.MQOT_Q, C.MQOT_TOPIC)

FIELDS = {
    C.MQCA_Q_DESC: "description", C.MQIA_DEF_PERSISTENCE: "def_persistence",
    C.MQIA_DEF_PRIORITY: "def_priority", C.MQIA_INHIBIT_GET: "inhibit_get", C.MQIA_INHIBIT_PUT: "inhibit_put",
    C.MQIA_MAX_Q_DEPTH: "max_depth", C.MQIA_MAX_MSG_LENGTH: "max_msg_length",
    C.MQIA_SHAREABILITY: "shareability", C.MQIA_DEF_INPUT_OPEN_OPTION: "def_input_open_option",
    C.MQIA_USAGE: "usage", C.MQIA_DEFINITION_TYPE: "def_type", C.MQCA_BASE_Q_NAME: "target",
    C.MQIA_BASE_TYPE: "target_type",
}
_COMMON = (_P_DESC, _P_PERSISTENCE, _P_PRIORITY, _P_INHIBIT_PUT, _P_INHIBIT_GET)
_LOCAL = _COMMON + (_P_MAX_DEPTH, _P_MAX_MSG, _P_SHARE, _P_INPUT, _P_USAGE)
SETTABLE = {
    C.MQQT_LOCAL: _LOCAL,
    C.MQQT_MODEL: _LOCAL + (_P_DEFTYPE,),
    C.MQQT_ALIAS: _COMMON + (_P_BASE, _P_TARGET_TYPE),
}
_ALL_SETTABLE = tuple({p.id: p for ps in SETTABLE.values() for p in ps}.values())

_P_QNAME = p_str(C.MQCA_Q_NAME, Q_NAME_LENGTH)
_P_QTYPE = p_int(C.MQIA_Q_TYPE)  # checked by _queue_type for a precise reason
_P_REPLACE = p_int(C.MQIACF_REPLACE, C.MQRP_YES, C.MQRP_NO)
_P_FORCE = p_int(C.MQIACF_FORCE, 1, 0)  # MQFC_YES / MQFC_NO: accepted, nothing to force
_P_PURGE = p_int(C.MQIACF_PURGE, C.MQPO_YES, C.MQPO_NO)
_P_FROM = p_str(C.MQCACF_FROM_Q_NAME, Q_NAME_LENGTH)
_P_TO = p_str(C.MQCACF_TO_Q_NAME, Q_NAME_LENGTH)
_P_ATTRS = p_int_list(C.MQIACF_Q_ATTRS)


def _queue_type(values: dict) -> int:
    qtype = values.get(C.MQIA_Q_TYPE)
    if qtype is None:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQIA_Q_TYPE)
    if qtype in UNSERVED_TYPES:
        raise CommandError(C.MQRC_FUNCTION_NOT_SUPPORTED, parameter=C.MQIA_Q_TYPE)
    if qtype not in SUPPORTED_TYPES:
        raise CommandError(C.MQRCCF_Q_TYPE_ERROR, parameter=C.MQIA_Q_TYPE)
    return qtype


def _attributes_for(qtype: int, values: dict) -> dict[str, object]:
    """The settable attributes given, checked against what this queue type has."""
    allowed = {p.id for p in SETTABLE[qtype]}
    changes: dict[str, object] = {}
    for pid, value in values.items():
        if pid not in FIELDS:
            continue
        if pid not in allowed:
            raise wrong_id(next(p for p in _ALL_SETTABLE if p.id == pid))
        if pid == C.MQCA_BASE_Q_NAME and value:
            check_name(value, pid)  # type: ignore[arg-type]
        changes[FIELDS[pid]] = value
    return changes


def _template(registry, qtype: int, name: str) -> Queue:
    """A new queue takes its defaults from SYSTEM.DEFAULT.<type>.QUEUE, like MQ."""
    base = registry.queues.get(_TEMPLATES[qtype])
    if base is None or base.qtype != qtype:
        return Queue(name, qtype=qtype)
    return dataclasses.replace(base, name=name, description="", definition_type=C.MQQDT_PREDEFINED)


# ---- Create / Copy / Change ----------------------------------------------------------------------
_CREATE = (_P_QNAME, _P_QTYPE, _P_REPLACE) + _ALL_SETTABLE
_COPY = (_P_FROM, _P_TO, _P_QTYPE, _P_REPLACE) + _ALL_SETTABLE
_CHANGE = (_P_QNAME, _P_QTYPE, _P_FORCE) + _ALL_SETTABLE


def _check_target(registry, name: str, qtype: int, replace: bool, pid: int) -> Queue | None:
    existing = registry.queues.get(name)
    if existing is None:
        return None
    if existing.qtype != qtype:
        raise CommandError(C.MQRCCF_OBJECT_WRONG_TYPE, parameter=pid)
    if not replace:
        raise CommandError(C.MQRCCF_OBJECT_ALREADY_EXISTS, parameter=pid)
    return existing


def create_q(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CREATE).values
    name = required(values, C.MQCA_Q_NAME)
    check_name(name, C.MQCA_Q_NAME)  # type: ignore[arg-type]
    qtype = _queue_type(values)
    changes = _attributes_for(qtype, values)  # type: ignore[arg-type]
    reg = ctx.registry
    replace = values.get(C.MQIACF_REPLACE) == C.MQRP_YES
    existing = _check_target(reg, name, qtype, replace, C.MQCA_Q_NAME)  # type: ignore[arg-type]
    queue = dataclasses.replace(_template(reg, qtype, name), **changes)  # type: ignore[arg-type]
    stamp_definition(queue, existing, reg.now())
    reg.put_queue(queue)
    return R.ok(ctx.command)


def copy_q(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _COPY).values
    source_name = required(values, C.MQCACF_FROM_Q_NAME)
    check_name(source_name, C.MQCACF_FROM_Q_NAME)  # type: ignore[arg-type]
    target_name = required(values, C.MQCACF_TO_Q_NAME)
    check_name(target_name, C.MQCACF_TO_Q_NAME)  # type: ignore[arg-type]
    qtype = _queue_type(values)
    changes = _attributes_for(qtype, values)  # type: ignore[arg-type]
    reg = ctx.registry
    source = reg.queues.get(source_name)
    if source is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, parameter=C.MQCACF_FROM_Q_NAME)
    if source.qtype != qtype:
        raise CommandError(C.MQRCCF_OBJECT_WRONG_TYPE, parameter=C.MQCACF_FROM_Q_NAME)
    replace = values.get(C.MQIACF_REPLACE) == C.MQRP_YES
    existing = _check_target(reg, target_name, qtype, replace, C.MQCACF_TO_Q_NAME)  # type: ignore[arg-type]
    queue = dataclasses.replace(source, name=target_name, definition_type=C.MQQDT_PREDEFINED, **changes)
    stamp_definition(queue, existing, reg.now())
    reg.put_queue(queue)
    return R.ok(ctx.command)


def change_q(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CHANGE).values
    name = required(values, C.MQCA_Q_NAME)
    check_name(name, C.MQCA_Q_NAME)  # type: ignore[arg-type]
    qtype = _queue_type(values)
    changes = _attributes_for(qtype, values)  # type: ignore[arg-type]
    reg = ctx.registry
    queue = reg.queues.get(name)
    if queue is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    if queue.qtype != qtype:  # a queue's type never changes: delete and re-create instead
        raise CommandError(C.MQRCCF_OBJECT_WRONG_TYPE, parameter=C.MQIA_Q_TYPE)
    updated = dataclasses.replace(queue, **changes)  # type: ignore[arg-type]
    updated.altered = reg.now()
    reg.put_queue(updated)
    return R.ok(ctx.command)


# ---- Delete / Clear ------------------------------------------------------------------------------
_DELETE = (_P_QNAME, _P_QTYPE, _P_PURGE, p_int(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES, C.MQRAR_NO))
_CLEAR = (_P_QNAME,)


def _existing(ctx, values: dict) -> Queue:
    name = required(values, C.MQCA_Q_NAME)
    check_name(name, C.MQCA_Q_NAME)  # type: ignore[arg-type]
    queue = ctx.registry.queues.get(name)
    if queue is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    return queue


def _in_use(registry, queue: Queue) -> bool:
    """Held open by the command server, or the managed destination of a live subscription."""
    if queue.name == defaults.COMMAND_QUEUE:
        return True
    return any(s.destination_class == C.MQDC_MANAGED and s.destination == queue.name
               for s in registry.subs.values())


def delete_q(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _DELETE).values
    queue = _existing(ctx, values)
    qtype = values.get(C.MQIA_Q_TYPE)
    if qtype is not None and qtype != C.MQQT_ALL and qtype != queue.qtype:
        raise CommandError(C.MQRCCF_OBJECT_WRONG_TYPE, parameter=C.MQIA_Q_TYPE)
    reg = ctx.registry
    if _in_use(reg, queue):
        raise CommandError(C.MQRC_OBJECT_IN_USE)
    if (queue.qtype == C.MQQT_LOCAL and reg.messages.depth(queue.name)
            and values.get(C.MQIACF_PURGE, C.MQPO_NO) != C.MQPO_YES):
        raise CommandError(C.MQRC_Q_NOT_EMPTY)
    reg.remove_queue(queue)
    return R.ok(ctx.command)


def clear_q(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CLEAR).values
    queue = _existing(ctx, values)
    if queue.qtype != C.MQQT_LOCAL:
        raise CommandError(C.MQRCCF_Q_WRONG_TYPE)
    if queue.name == defaults.COMMAND_QUEUE:  # the command server has it open for input
        raise CommandError(C.MQRC_OBJECT_IN_USE)
    ctx.registry.messages.clear(queue.name)
    return R.ok(ctx.command)


# ---- Inquire -------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class _View:
    queue: Queue
    depth: int


def _definition_type(v: _View) -> int:
    q = v.queue
    return q.def_type if q.qtype == C.MQQT_MODEL else q.definition_type


TABLE = AttrTable([
    attr(C.MQCA_Q_NAME, STR, lambda v: v.queue.name, pad=Q_NAME_LENGTH, always=True),
    attr(C.MQIA_Q_TYPE, INT, lambda v: v.queue.qtype, always=True),
    attr(C.MQCA_Q_DESC, STR, lambda v: v.queue.description, pad=Q_DESC_LENGTH),
    attr(C.MQIA_DEF_PERSISTENCE, INT, lambda v: v.queue.def_persistence),
    attr(C.MQIA_DEF_PRIORITY, INT, lambda v: v.queue.def_priority),
    attr(C.MQIA_INHIBIT_GET, INT, lambda v: v.queue.inhibit_get),
    attr(C.MQIA_INHIBIT_PUT, INT, lambda v: v.queue.inhibit_put),
    attr(C.MQIA_MAX_Q_DEPTH, INT, lambda v: v.queue.max_depth),
    attr(C.MQIA_CURRENT_Q_DEPTH, INT, lambda v: v.depth),
    attr(C.MQIA_MAX_MSG_LENGTH, INT, lambda v: v.queue.max_msg_length),
    attr(C.MQIA_SHAREABILITY, INT, lambda v: v.queue.shareability),
    attr(C.MQIA_DEF_INPUT_OPEN_OPTION, INT, lambda v: v.queue.def_input_open_option),
    attr(C.MQIA_USAGE, INT, lambda v: v.queue.usage),
    attr(C.MQIA_DEFINITION_TYPE, INT, _definition_type),
    attr(C.MQCA_BASE_Q_NAME, STR, lambda v: v.queue.target, pad=Q_NAME_LENGTH),
    attr(C.MQIA_BASE_TYPE, INT, lambda v: v.queue.target_type),
    attr(C.MQIA_OPEN_INPUT_COUNT, INT, lambda v: 0),  # no open-handle tracking yet (compat doc)
    attr(C.MQIA_OPEN_OUTPUT_COUNT, INT, lambda v: 0),
    attr(C.MQCA_CREATION_DATE, STR, lambda v: _date(v.queue.created), pad=12),
    attr(C.MQCA_CREATION_TIME, STR, lambda v: _time(v.queue.created), pad=8),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda v: _date(v.queue.altered), pad=12),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda v: _time(v.queue.altered), pad=8),
])

_EVERY_TYPE = {C.MQCA_Q_NAME, C.MQIA_Q_TYPE, C.MQCA_Q_DESC, C.MQIA_DEF_PERSISTENCE, C.MQIA_DEF_PRIORITY,
               C.MQIA_INHIBIT_GET, C.MQIA_INHIBIT_PUT, C.MQCA_ALTERATION_DATE, C.MQCA_ALTERATION_TIME}
_QUEUE_PROPS = {C.MQIA_MAX_Q_DEPTH, C.MQIA_MAX_MSG_LENGTH, C.MQIA_SHAREABILITY, C.MQIA_DEF_INPUT_OPEN_OPTION,
                C.MQIA_USAGE, C.MQIA_DEFINITION_TYPE}
APPLIES = {
    C.MQQT_LOCAL: frozenset(_EVERY_TYPE | _QUEUE_PROPS | {
        C.MQIA_CURRENT_Q_DEPTH, C.MQIA_OPEN_INPUT_COUNT, C.MQIA_OPEN_OUTPUT_COUNT,
        C.MQCA_CREATION_DATE, C.MQCA_CREATION_TIME}),
    C.MQQT_MODEL: frozenset(_EVERY_TYPE | _QUEUE_PROPS),
    C.MQQT_ALIAS: frozenset(_EVERY_TYPE | {C.MQCA_BASE_Q_NAME, C.MQIA_BASE_TYPE}),
}
_Q_TYPE_FILTER = p_int(C.MQIA_Q_TYPE, *SUPPORTED_TYPES, *UNSERVED_TYPES, C.MQQT_ALL)
_INQUIRE = (_P_QNAME, _Q_TYPE_FILTER, _P_ATTRS)
_INQUIRE_NAMES = (_P_QNAME, _Q_TYPE_FILTER)


def _matching(ctx, values: dict) -> list[Queue]:
    pattern = required(values, C.MQCA_Q_NAME)
    check_name(pattern, C.MQCA_Q_NAME, generic=True)  # type: ignore[arg-type]
    qtype = values.get(C.MQIA_Q_TYPE, C.MQQT_ALL)
    candidates = pick(ctx.registry.queues, pattern)  # type: ignore[arg-type]
    return [q for q in candidates if qtype == C.MQQT_ALL or q.qtype == qtype]


def inquire_q(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parsed = parse(request, _INQUIRE, filters=TABLE.filter_kinds())
    values, flt = parsed.values, parsed.filter
    selected = TABLE.select(values.get(C.MQIACF_Q_ATTRS))  # type: ignore[arg-type]
    reg = ctx.registry
    objects = []
    for queue in _matching(ctx, values):
        applies = APPLIES[queue.qtype] if queue.qtype in APPLIES else _EVERY_TYPE
        view = _View(queue, reg.messages.depth(queue.name) if queue.qtype == C.MQQT_LOCAL else 0)
        if flt is not None:
            if flt.parameter not in applies or not filter_matches(flt, TABLE.value(view, flt.parameter)):
                continue
        objects.append(TABLE.render(view, [a for a in selected if a.id in applies]))
    return R.data(ctx.command, objects, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_q_names(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE_NAMES).values
    queues = _matching(ctx, values)
    names = tuple(q.name.ljust(Q_NAME_LENGTH) for q in queues)
    params = [P.CFSL(C.MQCACF_Q_NAMES, names, R.QMGR_CCSID), P.CFIL(C.MQIACF_Q_TYPES, tuple(q.qtype for q in queues))]
    return R.data(ctx.command, [params], none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def register(engine) -> None:
    engine.register(C.MQCMD_CREATE_Q, create_q)
    engine.register(C.MQCMD_COPY_Q, copy_q)
    engine.register(C.MQCMD_CHANGE_Q, change_q)
    engine.register(C.MQCMD_DELETE_Q, delete_q)
    engine.register(C.MQCMD_CLEAR_Q, clear_q)
    engine.register(C.MQCMD_INQUIRE_Q, inquire_q)
    engine.register(C.MQCMD_INQUIRE_Q_NAMES, inquire_q_names)
