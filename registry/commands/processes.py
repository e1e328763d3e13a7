"""Process commands: Create/Copy/Change/Delete Process, Inquire Process, Inquire Process Names.

The same patterns as queues.py: generic names, attribute selection, one filter, every check before
the first change.  qmlite starts no trigger monitor, so a process definition is data only.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from .. import defaults
from .. import responses as R
from ..attributes import AttrTable, attr
from ..model import Process, mq_date, mq_time, stamp_definition
from ..params import INT, STR, CommandError, filter_matches, p_int, p_int_list, p_str, parse
from .namelists import matching
from .queues import check_name, required

NAME_LENGTH = C.MQ_PROCESS_NAME_LENGTH  # 48

# (parameter, Process field); ApplType: IBM's MQAT_* values or a user type up to MQAT_USER_LAST.
DEFINITION = (
    (p_str(C.MQCA_PROCESS_DESC, C.MQ_PROCESS_DESC_LENGTH), "description"),
    (p_str(C.MQCA_APPL_ID, C.MQ_PROCESS_APPL_ID_LENGTH), "appl_id"),
    (p_int(C.MQIA_APPL_TYPE, low=0, high=C.MQAT_USER_LAST), "appl_type"),
    (p_str(C.MQCA_ENV_DATA, C.MQ_PROCESS_ENV_DATA_LENGTH), "env_data"),
    (p_str(C.MQCA_USER_DATA, C.MQ_PROCESS_USER_DATA_LENGTH), "user_data"),
)
FIELDS = {param.id: field for param, field in DEFINITION}
_ATTRIBUTES = tuple(param for param, _ in DEFINITION)

_P_NAME = p_str(C.MQCA_PROCESS_NAME, NAME_LENGTH)
_P_REPLACE = p_int(C.MQIACF_REPLACE, C.MQRP_YES, C.MQRP_NO)
_CREATE = (_P_NAME, _P_REPLACE) + _ATTRIBUTES
_COPY = (p_str(C.MQCACF_FROM_PROCESS_NAME, NAME_LENGTH), p_str(C.MQCACF_TO_PROCESS_NAME, NAME_LENGTH),
         _P_REPLACE) + _ATTRIBUTES
_CHANGE = (_P_NAME,) + _ATTRIBUTES
_DELETE = (_P_NAME, p_int(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES, C.MQRAR_NO))


def _changes(values: dict) -> dict[str, object]:
    return {field: values[pid] for pid, field in FIELDS.items() if pid in values}


def _target(registry, name: str, replace: bool, pid: int) -> Process | None:
    existing = registry.processes.get(name)
    if existing is not None and not replace:
        raise CommandError(C.MQRCCF_OBJECT_ALREADY_EXISTS, parameter=pid)
    return existing


def _template(registry, name: str) -> Process:
    """A new process takes SYSTEM.DEFAULT.PROCESS's attributes, like MQ."""
    base = registry.processes.get(defaults.DEFAULT_PROCESS)
    return Process(name) if base is None else dataclasses.replace(base, name=name, description="")


def create_process(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CREATE).values
    name = required(values, C.MQCA_PROCESS_NAME)
    check_name(name, C.MQCA_PROCESS_NAME)  # type: ignore[arg-type]
    reg = ctx.registry
    replace = values.get(C.MQIACF_REPLACE) == C.MQRP_YES
    existing = _target(reg, name, replace, C.MQCA_PROCESS_NAME)  # type: ignore[arg-type]
    process = dataclasses.replace(_template(reg, name), **_changes(values))  # type: ignore[arg-type]
    stamp_definition(process, existing, reg.now())
    reg.put_process(process)
    return R.ok(ctx.command)


def copy_process(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _COPY).values
    source_name = required(values, C.MQCACF_FROM_PROCESS_NAME)
    check_name(source_name, C.MQCACF_FROM_PROCESS_NAME)  # type: ignore[arg-type]
    target_name = required(values, C.MQCACF_TO_PROCESS_NAME)
    check_name(target_name, C.MQCACF_TO_PROCESS_NAME)  # type: ignore[arg-type]
    reg = ctx.registry
    source = reg.processes.get(source_name)
    if source is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, parameter=C.MQCACF_FROM_PROCESS_NAME)
    existing = _target(reg, target_name, values.get(C.MQIACF_REPLACE) == C.MQRP_YES,  # type: ignore[arg-type]
                       C.MQCACF_TO_PROCESS_NAME)
    process = dataclasses.replace(source, name=target_name, **_changes(values))  # type: ignore[arg-type]
    stamp_definition(process, existing, reg.now())
    reg.put_process(process)
    return R.ok(ctx.command)


def change_process(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CHANGE).values
    name = required(values, C.MQCA_PROCESS_NAME)
    check_name(name, C.MQCA_PROCESS_NAME)  # type: ignore[arg-type]
    reg = ctx.registry
    process = reg.processes.get(name)
    if process is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    updated = dataclasses.replace(process, **_changes(values))  # type: ignore[arg-type]
    updated.altered = reg.now()
    reg.put_process(updated)
    return R.ok(ctx.command)


def delete_process(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _DELETE).values
    name = required(values, C.MQCA_PROCESS_NAME)
    check_name(name, C.MQCA_PROCESS_NAME)  # type: ignore[arg-type]
    process = ctx.registry.processes.get(name)
    if process is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    ctx.registry.remove_process(process)
    return R.ok(ctx.command)


# ---- Inquire -------------------------------------------------------------------------------------
TABLE = AttrTable([
    attr(C.MQCA_PROCESS_NAME, STR, "name", pad=NAME_LENGTH, always=True),
    attr(C.MQCA_PROCESS_DESC, STR, "description", pad=C.MQ_PROCESS_DESC_LENGTH),
    attr(C.MQIA_APPL_TYPE, INT, "appl_type"),
    attr(C.MQCA_APPL_ID, STR, "appl_id", pad=C.MQ_PROCESS_APPL_ID_LENGTH),
    attr(C.MQCA_ENV_DATA, STR, "env_data", pad=C.MQ_PROCESS_ENV_DATA_LENGTH),
    attr(C.MQCA_USER_DATA, STR, "user_data", pad=C.MQ_PROCESS_USER_DATA_LENGTH),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda p: mq_date(p.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda p: mq_time(p.altered), pad=C.MQ_TIME_LENGTH),
])

_INQUIRE = (_P_NAME, p_int_list(C.MQIACF_PROCESS_ATTRS))
_INQUIRE_NAMES = (_P_NAME,)


def inquire_process(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parsed = parse(request, _INQUIRE, filters=TABLE.filter_kinds())
    values, flt = parsed.values, parsed.filter
    selected = TABLE.select(values.get(C.MQIACF_PROCESS_ATTRS))  # type: ignore[arg-type]
    objects = [TABLE.render(p, selected) for p in matching(ctx.registry.processes, values, C.MQCA_PROCESS_NAME)
               if flt is None or filter_matches(flt, TABLE.value(p, flt.parameter))]
    return R.data(ctx.command, objects, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_process_names(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE_NAMES).values
    found = matching(ctx.registry.processes, values, C.MQCA_PROCESS_NAME)
    names = tuple(p.name.ljust(NAME_LENGTH) for p in found)
    return R.data(ctx.command, [[P.CFSL(C.MQCACF_PROCESS_NAMES, names, R.QMGR_CCSID)]],
                  none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def register(engine) -> None:
    engine.register(C.MQCMD_CREATE_PROCESS, create_process)
    engine.register(C.MQCMD_COPY_PROCESS, copy_process)
    engine.register(C.MQCMD_CHANGE_PROCESS, change_process)
    engine.register(C.MQCMD_DELETE_PROCESS, delete_process)
    engine.register(C.MQCMD_INQUIRE_PROCESS, inquire_process)
    engine.register(C.MQCMD_INQUIRE_PROCESS_NAMES, inquire_process_names)
