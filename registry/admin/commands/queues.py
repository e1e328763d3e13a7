"""Queue commands: Create/Copy/Change/Delete/Clear Queue, Inquire Queue and Inquire Queue Names.

Local, model, alias and remote queues (docs/compat.md (part 2)).  Which attributes a command accepts and an
Inquire returns depends on the queue type, as on a real queue manager: an attribute of another queue
type is refused with the parameter-id error of the structure it came in (MQCFIN 3014, MQCFST 3015).
Every check runs before the first change, so a failed command changes nothing.
"""

from __future__ import annotations

import dataclasses
import re

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import defaults
from qmlite.registry.objects import values as V
from qmlite.registry.security import authrecs
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, attr, with_filter
from qmlite.registry.objects.definitions import Queue, mq_date as _date, mq_time as _time, stamp_definition
from qmlite.registry.objects import layouts
from qmlite.registry.admin.params import (INT, STR, CommandError, Param, filter_matches, p_int,
                      p_int_list, p_str, parse, pick)

Q_NAME_LENGTH = C.MQ_Q_NAME_LENGTH  # 48
Q_DESC_LENGTH = C.MQ_Q_DESC_LENGTH  # 64
MAX_Q_DEPTH = 999_999_999
MAX_MSG_LENGTH = 104_857_600  # 100 MB: the Multiplatforms limit for a queue's MAXMSGL

# MQ object names: 1-48 characters of A-Z a-z 0-9 . / _ %
_NAME = re.compile(r"[A-Za-z0-9._/%]+")

SUPPORTED_TYPES = (C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS, C.MQQT_REMOTE)
UNSERVED_TYPES = (C.MQQT_CLUSTER,)  # cluster queues are defined by clustering, never by these commands
_TEMPLATES = {C.MQQT_LOCAL: "SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQQT_MODEL: "SYSTEM.DEFAULT.MODEL.QUEUE",
              C.MQQT_ALIAS: "SYSTEM.DEFAULT.ALIAS.QUEUE", C.MQQT_REMOTE: "SYSTEM.DEFAULT.REMOTE.QUEUE"}


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
_L, _M, _A, _R = C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS, C.MQQT_REMOTE
_LMA, _LM, _LA = (_L, _M, _A), (_L, _M), (_L, _A)
_LMAR, _LAR = (_L, _M, _A, _R), (_L, _A, _R)
_MONITOR_VALUES = (C.MQMON_Q_MGR, C.MQMON_OFF, C.MQMON_LOW, C.MQMON_MEDIUM, C.MQMON_HIGH)  # MONQ
_EVENT = (C.MQEVR_DISABLED, C.MQEVR_ENABLED)
_NAME_VALUED = frozenset({C.MQCA_BASE_Q_NAME, C.MQCA_BACKOUT_REQ_Q_NAME, C.MQCA_INITIATION_Q_NAME,
                          C.MQCA_PROCESS_NAME, C.MQCA_CLUSTER_NAME, C.MQCA_CLUSTER_NAMELIST,
                          C.MQCA_REMOTE_Q_NAME, C.MQCA_REMOTE_Q_MGR_NAME, C.MQCA_XMIT_Q_NAME,
                          C.MQCA_STREAM_QUEUE_NAME})

# (parameter, Queue field, queue types that have it) for every attribute a command may set; the
# values and ranges are those of IBM's Change, Copy, Create Queue page and the queue types those of
# its ALTER queue parameter table (MQ 9.4, Multiplatforms).
DEFINITION = (
    (p_str(C.MQCA_Q_DESC, Q_DESC_LENGTH), "description", _LMAR),
    (p_int(C.MQIA_DEF_PERSISTENCE, C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT), "def_persistence", _LMAR),
    (p_int(C.MQIA_DEF_PRIORITY, low=0, high=9), "def_priority", _LMAR),
    (p_int(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_ALLOWED, C.MQQA_PUT_INHIBITED), "inhibit_put", _LMAR),
    (p_int(C.MQIA_INHIBIT_GET, C.MQQA_GET_ALLOWED, C.MQQA_GET_INHIBITED), "inhibit_get", _LMA),
    (p_int(C.MQIA_MAX_Q_DEPTH, low=0, high=MAX_Q_DEPTH), "max_depth", _LM),
    (p_int(C.MQIA_MAX_MSG_LENGTH, low=0, high=MAX_MSG_LENGTH), "max_msg_length", _LM),
    (p_int(C.MQIA_SHAREABILITY, C.MQQA_SHAREABLE, C.MQQA_NOT_SHAREABLE), "shareability", _LM),
    (p_int(C.MQIA_DEF_INPUT_OPEN_OPTION, C.MQOO_INPUT_EXCLUSIVE, C.MQOO_INPUT_SHARED), "def_input_open_option",
     _LM),
    (p_int(C.MQIA_USAGE, C.MQUS_NORMAL, C.MQUS_TRANSMISSION), "usage", _LM),
    (p_int(C.MQIA_DEFINITION_TYPE, C.MQQDT_PERMANENT_DYNAMIC, C.MQQDT_TEMPORARY_DYNAMIC), "def_type", (_M,)),
    (p_str(C.MQCA_BASE_Q_NAME, Q_NAME_LENGTH), "target", (_A,)),
    (p_int(C.MQIA_BASE_TYPE, C.MQOT_Q, C.MQOT_TOPIC), "target_type", (_A,)),
    (p_int(C.MQIA_BACKOUT_THRESHOLD, low=0, high=999_999_999), "backout_threshold", _LM),
    (p_str(C.MQCA_BACKOUT_REQ_Q_NAME, Q_NAME_LENGTH), "backout_requeue_q", _LM),
    (p_int(C.MQIA_HARDEN_GET_BACKOUT, C.MQQA_BACKOUT_HARDENED, C.MQQA_BACKOUT_NOT_HARDENED),
     "harden_get_backout", _LM),
    (p_int(C.MQIA_TRIGGER_CONTROL, C.MQTC_OFF, C.MQTC_ON), "trigger_control", _LM),
    (p_int(C.MQIA_TRIGGER_TYPE, C.MQTT_NONE, C.MQTT_FIRST, C.MQTT_EVERY, C.MQTT_DEPTH), "trigger_type", _LM),
    (p_int(C.MQIA_TRIGGER_DEPTH, low=1, high=999_999_999), "trigger_depth", _LM),
    (p_int(C.MQIA_TRIGGER_MSG_PRIORITY, low=0, high=9), "trigger_msg_priority", _LM),
    (p_str(C.MQCA_TRIGGER_DATA, C.MQ_TRIGGER_DATA_LENGTH), "trigger_data", _LM),
    (p_str(C.MQCA_INITIATION_Q_NAME, Q_NAME_LENGTH), "initiation_q", _LM),
    (p_str(C.MQCA_PROCESS_NAME, C.MQ_PROCESS_NAME_LENGTH), "process_name", _LM),
    (p_int(C.MQIA_PROPERTY_CONTROL, C.MQPROP_COMPATIBILITY, C.MQPROP_NONE, C.MQPROP_ALL, C.MQPROP_FORCE_MQRFH2,
           C.MQPROP_V6COMPAT), "property_control", _LMA),
    (p_int(C.MQIA_DIST_LISTS, C.MQDL_SUPPORTED, C.MQDL_NOT_SUPPORTED), "dist_lists", _LM),
    (p_int(C.MQIA_MSG_DELIVERY_SEQUENCE, C.MQMDS_PRIORITY, C.MQMDS_FIFO), "msg_delivery_sequence", _LM),
    (p_int(C.MQIA_RETENTION_INTERVAL, low=0, high=999_999_999), "retention_interval", _LM),
    (p_int(C.MQIA_Q_DEPTH_HIGH_LIMIT, low=0, high=100), "q_depth_high_limit", _LM),
    (p_int(C.MQIA_Q_DEPTH_LOW_LIMIT, low=0, high=100), "q_depth_low_limit", _LM),
    (p_int(C.MQIA_Q_DEPTH_MAX_EVENT, *_EVENT), "q_depth_max_event", _LM),
    (p_int(C.MQIA_Q_DEPTH_HIGH_EVENT, *_EVENT), "q_depth_high_event", _LM),
    (p_int(C.MQIA_Q_DEPTH_LOW_EVENT, *_EVENT), "q_depth_low_event", _LM),
    (p_int(C.MQIA_Q_SERVICE_INTERVAL, low=0, high=999_999_999), "q_service_interval", _LM),
    (p_int(C.MQIA_Q_SERVICE_INTERVAL_EVENT, C.MQQSIE_HIGH, C.MQQSIE_OK, C.MQQSIE_NONE),
     "q_service_interval_event", _LM),
    (p_int(C.MQIA_NPM_CLASS, C.MQNPM_CLASS_NORMAL, C.MQNPM_CLASS_HIGH), "npm_class", _LM),
    (p_int(C.MQIA_DEF_PUT_RESPONSE_TYPE, C.MQPRT_SYNC_RESPONSE, C.MQPRT_ASYNC_RESPONSE), "def_put_response",
     _LMAR),
    (p_int(C.MQIA_DEF_READ_AHEAD, C.MQREADA_NO, C.MQREADA_YES, C.MQREADA_DISABLED), "def_read_ahead", _LMA),
    (p_int(C.MQIA_DEF_BIND, C.MQBND_BIND_ON_OPEN, C.MQBND_BIND_NOT_FIXED, C.MQBND_BIND_ON_GROUP), "def_bind",
     _LMAR),
    (p_str(C.MQCA_CLUSTER_NAME, C.MQ_CLUSTER_NAME_LENGTH), "cluster_name", _LAR),
    (p_str(C.MQCA_CLUSTER_NAMELIST, C.MQ_NAMELIST_NAME_LENGTH), "cluster_namelist", _LAR),
    (p_int(C.MQIA_CLWL_Q_PRIORITY, low=0, high=9), "clwl_q_priority", _LAR),
    (p_int(C.MQIA_CLWL_Q_RANK, low=0, high=9), "clwl_q_rank", _LAR),
    (p_int(C.MQIA_CLWL_USEQ, C.MQCLWL_USEQ_AS_Q_MGR, C.MQCLWL_USEQ_ANY, C.MQCLWL_USEQ_LOCAL), "clwl_use_q",
     (_L,)),
    (p_int(C.MQIA_SCOPE, C.MQSCO_Q_MGR), "scope", _LAR),  # SCOPE(CELL) needs a cell directory: none here
    (p_int(C.MQIA_ACCOUNTING_Q, C.MQMON_Q_MGR, C.MQMON_OFF, C.MQMON_ON), "accounting_q", _LM),
    (p_int(C.MQIA_MONITORING_Q, *_MONITOR_VALUES), "monitoring_q", _LM),
    (p_int(C.MQIA_STATISTICS_Q, C.MQMON_Q_MGR, C.MQMON_OFF, C.MQMON_ON), "statistics_q", _LM),
    (p_str(C.MQCA_CUSTOM, C.MQ_CUSTOM_LENGTH), "custom", _LMAR),
    (p_str(C.MQCA_REMOTE_Q_NAME, Q_NAME_LENGTH), "remote_q_name", (_R,)),
    (p_str(C.MQCA_REMOTE_Q_MGR_NAME, C.MQ_Q_MGR_NAME_LENGTH), "remote_qmgr_name", (_R,)),
    (p_str(C.MQCA_XMIT_Q_NAME, Q_NAME_LENGTH), "xmit_q_name", (_R,)),
    (p_int(C.MQIA_CAP_EXPIRY, low=V.MQCEX_NOLIMIT, high=999_999_999), "cap_expiry", _LMAR),  # 0: _check_values
    (p_int(C.MQIA_MAX_Q_FILE_SIZE, low=V.MQQFS_DEFAULT, high=V.MQQFS_MAX), "max_q_file_size", _LM),
    (p_int(C.MQIA_MEDIA_IMAGE_RECOVER_Q, V.MQIMGRCOV_NO, V.MQIMGRCOV_YES, V.MQIMGRCOV_AS_Q_MGR),
     "image_recover_q", _LM),
    (p_str(C.MQCA_STREAM_QUEUE_NAME, Q_NAME_LENGTH), "stream_q", _LM),
    (p_int(C.MQIA_STREAM_QUEUE_QOS, V.MQST_BEST_EFFORT, V.MQST_MUST_DUP), "stream_qos", _LM),
    (p_str(C.MQCA_CLUS_CHL_NAME, C.MQ_CHANNEL_NAME_LENGTH), "cluster_channel_name", (_L,)),
)
FIELDS = {param.id: field for param, field, _ in DEFINITION}
SETTABLE = {qtype: tuple(param for param, _, types in DEFINITION if qtype in types) for qtype in _LMAR}
_ALL_SETTABLE = tuple(param for param, _, _ in DEFINITION)

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
    _check_values(values)
    allowed = {p.id for p in SETTABLE[qtype]}
    changes: dict[str, object] = {}
    for pid, value in values.items():
        if pid not in FIELDS:
            continue
        if pid not in allowed:
            raise wrong_id(next(p for p in _ALL_SETTABLE if p.id == pid))
        if pid in _NAME_VALUED and value:
            check_name(value, pid)  # type: ignore[arg-type]
        changes[FIELDS[pid]] = value
    return changes


def _check_values(values: dict) -> None:
    """Ranges with a hole, which a Param's low/high cannot say: CAPEXPRY is NOLIMIT (-1) or 1 to
    999 999 999; MAXFSIZE is DEFAULT (-1) or 20 to 267 386 880 megabytes."""
    cap = values.get(C.MQIA_CAP_EXPIRY)
    if cap == 0:
        raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=C.MQIA_CAP_EXPIRY)
    size = values.get(C.MQIA_MAX_Q_FILE_SIZE)
    if size is not None and size != V.MQQFS_DEFAULT and size < V.MQQFS_MIN:
        raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=C.MQIA_MAX_Q_FILE_SIZE)


def _template(registry, qtype: int, name: str) -> Queue:
    """A new queue takes its defaults from SYSTEM.DEFAULT.<type>.QUEUE, like MQ."""
    base = registry.queues.get(_TEMPLATES[qtype])
    if base is None or base.qtype != qtype:
        return Queue(name, qtype=qtype)
    return layouts.replace(base, name=name, description="", definition_type=C.MQQDT_PREDEFINED)


# ---- cluster attributes ---------------------------------------------------------------------------
# Queues IBM never lets join a cluster (MQRCCF_CLUSTER_Q_USAGE_ERROR's list of reserved queues).
_NOT_CLUSTERABLE = frozenset({"SYSTEM.CHANNEL.INITQ", "SYSTEM.CHANNEL.SYNCQ", "SYSTEM.CLUSTER.COMMAND.QUEUE",
                              "SYSTEM.CLUSTER.REPOSITORY.QUEUE", "SYSTEM.COMMAND.INPUT",
                              "SYSTEM.QSG.CHANNEL.SYNCQ", "SYSTEM.QSG.TRANSMIT.QUEUE"})


def check_cluster(queue: Queue) -> None:
    """A queue in a cluster names it by CLUSTER or CLUSNL, not both (MQRCCF_CLUSTER_NAME_CONFLICT),
    and is neither a transmission queue nor a reserved queue (MQRCCF_CLUSTER_Q_USAGE_ERROR)."""
    if queue.cluster_name and queue.cluster_namelist:
        raise CommandError(C.MQRCCF_CLUSTER_NAME_CONFLICT, parameter=C.MQCA_CLUSTER_NAME)
    if (queue.cluster_name or queue.cluster_namelist) and (
            queue.usage == C.MQUS_TRANSMISSION or queue.name in _NOT_CLUSTERABLE):
        raise CommandError(C.MQRCCF_CLUSTER_Q_USAGE_ERROR)


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
    queue = layouts.replace(_template(reg, qtype, name), **changes)  # type: ignore[arg-type]
    check_cluster(queue)
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
    queue = layouts.replace(source, name=target_name, definition_type=C.MQQDT_PREDEFINED, **changes)
    check_cluster(queue)
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
    updated = layouts.replace(queue, **changes)  # type: ignore[arg-type]
    check_cluster(updated)
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
    """Open by an application (or by the command server), or the managed destination of a live subscription."""
    if queue.name == defaults.COMMAND_QUEUE or registry.messages.open_counts(queue.name) != (0, 0):
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
    if values.get(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES) == C.MQRAR_YES:  # IBM's default: AUTHREC(YES)
        authrecs.forget_object(reg, C.MQOT_Q, queue.name)
    return R.ok(ctx.command)


def clear_q(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CLEAR).values
    queue = _existing(ctx, values)
    if queue.qtype != C.MQQT_LOCAL:
        raise CommandError(C.MQRCCF_Q_WRONG_TYPE)
    reg = ctx.registry
    contents = reg.messages.peek(queue.name)
    # The command server has its queue open for input; IBM refuses to clear a queue an application
    # has open or one holding uncommitted messages.
    if queue.name == defaults.COMMAND_QUEUE or reg.messages.open_counts(queue.name) != (0, 0) or (
            contents is not None and contents.uncommitted):
        raise CommandError(C.MQRC_OBJECT_IN_USE)
    reg.drop_messages(queue.name, keep_queue=True)
    return R.ok(ctx.command)


# ---- Inquire -------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class QueueView:
    """A queue as Inquire Queue and MQINQ see it: its definition and its live counts."""

    queue: Queue
    depth: int = 0
    open_input: int = 0
    open_output: int = 0


def queue_view(registry, queue: Queue) -> QueueView:
    if queue.qtype != C.MQQT_LOCAL:
        return QueueView(queue)
    opened = registry.messages.open_counts(queue.name)
    return QueueView(queue, registry.messages.depth(queue.name), opened[0], opened[1])


def _definition_type(v: QueueView) -> int:
    q = v.queue
    return q.def_type if q.qtype == C.MQQT_MODEL else q.definition_type


def _field(name: str):
    def get(v: QueueView) -> object:
        return getattr(v.queue, name)
    return get


_Q = Q_NAME_LENGTH
# Every attribute IBM's Inquire Queue reports on Multiplatforms is modelled now (schema 8); the
# list stays for an attribute a later release adds: its default value, with the queue types that have it.
UNMODELLED: tuple = ()
_CHAR_LENGTHS = {  # the MQ_*_LENGTH of each character attribute (PCF pads to it, MQINQ returns it)
    C.MQCA_Q_DESC: Q_DESC_LENGTH, C.MQCA_BASE_Q_NAME: _Q, C.MQCA_BACKOUT_REQ_Q_NAME: _Q,
    C.MQCA_TRIGGER_DATA: C.MQ_TRIGGER_DATA_LENGTH, C.MQCA_INITIATION_Q_NAME: _Q,
    C.MQCA_PROCESS_NAME: C.MQ_PROCESS_NAME_LENGTH, C.MQCA_CLUSTER_NAME: C.MQ_CLUSTER_NAME_LENGTH,
    C.MQCA_CLUSTER_NAMELIST: C.MQ_NAMELIST_NAME_LENGTH, C.MQCA_CUSTOM: C.MQ_CUSTOM_LENGTH,
    C.MQCA_REMOTE_Q_NAME: _Q, C.MQCA_REMOTE_Q_MGR_NAME: C.MQ_Q_MGR_NAME_LENGTH, C.MQCA_XMIT_Q_NAME: _Q,
    C.MQCA_STREAM_QUEUE_NAME: _Q, C.MQCA_CLUS_CHL_NAME: C.MQ_CHANNEL_NAME_LENGTH,
}
TABLE = AttrTable([
    attr(C.MQCA_Q_NAME, STR, lambda v: v.queue.name, pad=_Q, always=True),
    attr(C.MQIA_Q_TYPE, INT, lambda v: v.queue.qtype, always=True),
    attr(C.MQIA_CURRENT_Q_DEPTH, INT, lambda v: v.depth),
    attr(C.MQIA_OPEN_INPUT_COUNT, INT, lambda v: v.open_input),
    attr(C.MQIA_OPEN_OUTPUT_COUNT, INT, lambda v: v.open_output),
    attr(C.MQIA_DEFINITION_TYPE, INT, _definition_type),
    attr(C.MQCA_CREATION_DATE, STR, lambda v: _date(v.queue.created), pad=C.MQ_CREATION_DATE_LENGTH),
    attr(C.MQCA_CREATION_TIME, STR, lambda v: _time(v.queue.created), pad=C.MQ_CREATION_TIME_LENGTH),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda v: _date(v.queue.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda v: _time(v.queue.altered), pad=C.MQ_TIME_LENGTH),
    *(attr(param.id, param.kind, _field(field), pad=_CHAR_LENGTHS.get(param.id))
      for param, field, _ in DEFINITION if param.id != C.MQIA_DEFINITION_TYPE),
    *(a for a, _ in UNMODELLED),
])

# Which queue types have each attribute: what a command may set (DEFINITION) plus the read-only ones.
_TYPES: dict[int, tuple[int, ...]] = {param.id: types for param, _, types in DEFINITION}
_TYPES.update({
    C.MQCA_Q_NAME: _LMAR, C.MQIA_Q_TYPE: _LMAR, C.MQCA_ALTERATION_DATE: _LMAR, C.MQCA_ALTERATION_TIME: _LMAR,
    C.MQIA_DEFINITION_TYPE: _LM, C.MQCA_CREATION_DATE: (_L,), C.MQCA_CREATION_TIME: (_L,),
    C.MQIA_CURRENT_Q_DEPTH: (_L,), C.MQIA_OPEN_INPUT_COUNT: (_L,), C.MQIA_OPEN_OUTPUT_COUNT: (_L,),
    **{a.id: types for a, types in UNMODELLED},
})
APPLIES = {qtype: frozenset(a.id for a in TABLE.attrs if qtype in _TYPES[a.id]) for qtype in _LMAR}
_EVERY_TYPE = APPLIES[_L] & APPLIES[_M] & APPLIES[_A] & APPLIES[_R]
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
    selected = with_filter(TABLE, TABLE.select(values.get(C.MQIACF_Q_ATTRS)), flt)  # type: ignore[arg-type]
    reg = ctx.registry
    objects = []
    for queue in _matching(ctx, values):
        applies = APPLIES[queue.qtype] if queue.qtype in APPLIES else _EVERY_TYPE
        view = queue_view(reg, queue)
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
