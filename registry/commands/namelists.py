"""Namelist commands: Create/Copy/Change/Delete Namelist, Inquire Namelist, Inquire Namelist Names.

The same patterns as queues.py: generic names, attribute selection, one filter, every check before
the first change.  NamelistType is z/OS only (IBM: "This parameter applies to z/OS only"), so it is
neither accepted nor reported here.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from .. import defaults
from .. import responses as R
from ..attributes import AttrTable, attr
from ..model import Namelist, mq_date, mq_time, stamp_definition
from ..params import (INT, STR, STR_LIST, CommandError, Param, filter_matches, p_int, p_int_list, p_str,
                      parse, pick)
from .queues import check_name, required

NAME_LENGTH = C.MQ_NAMELIST_NAME_LENGTH  # 48
DESC_LENGTH = C.MQ_NAMELIST_DESC_LENGTH  # 64
ENTRY_LENGTH = C.MQ_OBJECT_NAME_LENGTH  # each of Names
MAX_NAMES = C.MQNC_MAX_NAMELIST_NAME_COUNT  # 256

_P_NAME = p_str(C.MQCA_NAMELIST_NAME, NAME_LENGTH)
_P_DESC = p_str(C.MQCA_NAMELIST_DESC, DESC_LENGTH)
_P_NAMES = Param(C.MQCA_NAMES, STR_LIST, max_length=ENTRY_LENGTH)
_P_REPLACE = p_int(C.MQIACF_REPLACE, C.MQRP_YES, C.MQRP_NO)
_P_FROM = p_str(C.MQCACF_FROM_NAMELIST_NAME, NAME_LENGTH)
_P_TO = p_str(C.MQCACF_TO_NAMELIST_NAME, NAME_LENGTH)
FIELDS = {C.MQCA_NAMELIST_DESC: "description", C.MQCA_NAMES: "names"}

_CREATE = (_P_NAME, _P_DESC, _P_NAMES, _P_REPLACE)
_COPY = (_P_FROM, _P_TO, _P_DESC, _P_NAMES, _P_REPLACE)
_CHANGE = (_P_NAME, _P_DESC, _P_NAMES)
_DELETE = (_P_NAME, p_int(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES, C.MQRAR_NO))


def _changes(values: dict) -> dict[str, object]:
    names = values.get(C.MQCA_NAMES)
    if names is not None and len(names) > MAX_NAMES:  # type: ignore[arg-type]
        raise CommandError(C.MQRCCF_CFSL_COUNT_ERROR, parameter=C.MQCA_NAMES)
    return {field: values[pid] for pid, field in FIELDS.items() if pid in values}


def _target(registry, name: str, replace: bool, pid: int) -> Namelist | None:
    existing = registry.namelists.get(name)
    if existing is not None and not replace:
        raise CommandError(C.MQRCCF_OBJECT_ALREADY_EXISTS, parameter=pid)
    return existing


def _template(registry, name: str) -> Namelist:
    """A new namelist takes SYSTEM.DEFAULT.NAMELIST's attributes, like MQ."""
    base = registry.namelists.get(defaults.DEFAULT_NAMELIST)
    return Namelist(name) if base is None else dataclasses.replace(base, name=name, description="")


def create_namelist(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CREATE).values
    name = required(values, C.MQCA_NAMELIST_NAME)
    check_name(name, C.MQCA_NAMELIST_NAME)  # type: ignore[arg-type]
    changes = _changes(values)
    reg = ctx.registry
    replace = values.get(C.MQIACF_REPLACE) == C.MQRP_YES
    existing = _target(reg, name, replace, C.MQCA_NAMELIST_NAME)  # type: ignore[arg-type]
    namelist = dataclasses.replace(_template(reg, name), **changes)  # type: ignore[arg-type]
    stamp_definition(namelist, existing, reg.now())
    reg.put_namelist(namelist)
    return R.ok(ctx.command)


def copy_namelist(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _COPY).values
    source_name = required(values, C.MQCACF_FROM_NAMELIST_NAME)
    check_name(source_name, C.MQCACF_FROM_NAMELIST_NAME)  # type: ignore[arg-type]
    target_name = required(values, C.MQCACF_TO_NAMELIST_NAME)
    check_name(target_name, C.MQCACF_TO_NAMELIST_NAME)  # type: ignore[arg-type]
    changes = _changes(values)
    reg = ctx.registry
    source = reg.namelists.get(source_name)
    if source is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, parameter=C.MQCACF_FROM_NAMELIST_NAME)
    existing = _target(reg, target_name, values.get(C.MQIACF_REPLACE) == C.MQRP_YES,  # type: ignore[arg-type]
                       C.MQCACF_TO_NAMELIST_NAME)
    namelist = dataclasses.replace(source, name=target_name, **changes)  # type: ignore[arg-type]
    stamp_definition(namelist, existing, reg.now())
    reg.put_namelist(namelist)
    return R.ok(ctx.command)


def change_namelist(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CHANGE).values
    name = required(values, C.MQCA_NAMELIST_NAME)
    check_name(name, C.MQCA_NAMELIST_NAME)  # type: ignore[arg-type]
    changes = _changes(values)
    reg = ctx.registry
    namelist = reg.namelists.get(name)
    if namelist is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    updated = dataclasses.replace(namelist, **changes)  # type: ignore[arg-type]
    updated.altered = reg.now()
    reg.put_namelist(updated)
    return R.ok(ctx.command)


def delete_namelist(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _DELETE).values
    name = required(values, C.MQCA_NAMELIST_NAME)
    check_name(name, C.MQCA_NAMELIST_NAME)  # type: ignore[arg-type]
    namelist = ctx.registry.namelists.get(name)
    if namelist is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    ctx.registry.remove_namelist(namelist)
    return R.ok(ctx.command)


# ---- Inquire -------------------------------------------------------------------------------------
TABLE = AttrTable([
    attr(C.MQCA_NAMELIST_NAME, STR, "name", pad=NAME_LENGTH, always=True),
    attr(C.MQCA_NAMELIST_DESC, STR, "description", pad=DESC_LENGTH),
    attr(C.MQIA_NAME_COUNT, INT, lambda n: len(n.names)),
    attr(C.MQCA_NAMES, STR_LIST, "names", pad=ENTRY_LENGTH),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda n: mq_date(n.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda n: mq_time(n.altered), pad=C.MQ_TIME_LENGTH),
])

_INQUIRE = (_P_NAME, p_int_list(C.MQIACF_NAMELIST_ATTRS))
_INQUIRE_NAMES = (_P_NAME,)


def matching(objects: dict, values: dict, pid: int) -> list:
    """The objects the (possibly generic) name in ``values[pid]`` selects, in name order."""
    pattern = required(values, pid)
    check_name(pattern, pid, generic=True)  # type: ignore[arg-type]
    return pick(objects, pattern)  # type: ignore[arg-type]


def inquire_namelist(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parsed = parse(request, _INQUIRE, filters=TABLE.filter_kinds())
    values, flt = parsed.values, parsed.filter
    selected = TABLE.select(values.get(C.MQIACF_NAMELIST_ATTRS))  # type: ignore[arg-type]
    objects = [TABLE.render(n, selected) for n in matching(ctx.registry.namelists, values, C.MQCA_NAMELIST_NAME)
               if flt is None or filter_matches(flt, TABLE.value(n, flt.parameter))]
    return R.data(ctx.command, objects, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_namelist_names(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE_NAMES).values
    found = matching(ctx.registry.namelists, values, C.MQCA_NAMELIST_NAME)
    names = tuple(n.name.ljust(NAME_LENGTH) for n in found)
    return R.data(ctx.command, [[P.CFSL(C.MQCACF_NAMELIST_NAMES, names, R.QMGR_CCSID)]],
                  none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def register(engine) -> None:
    engine.register(C.MQCMD_CREATE_NAMELIST, create_namelist)
    engine.register(C.MQCMD_COPY_NAMELIST, copy_namelist)
    engine.register(C.MQCMD_CHANGE_NAMELIST, change_namelist)
    engine.register(C.MQCMD_DELETE_NAMELIST, delete_namelist)
    engine.register(C.MQCMD_INQUIRE_NAMELIST, inquire_namelist)
    engine.register(C.MQCMD_INQUIRE_NAMELIST_NAMES, inquire_namelist_names)
