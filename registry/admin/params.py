"""Declarative parameter specs for PCF commands, and the one parser that enforces them.

Each command lists the parameters it accepts with their PCF type, maximum length and allowed
values; ``parse`` turns a decoded command into ``{parameter id: value}`` or raises ``CommandError``
with the reason a queue manager answers (docs/reference/pcf.md section 8).  Handlers then only see valid values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import TypeVar

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P


class CommandError(Exception):
    """A failed command: ``reason`` goes in the first response, then MQRCCF_COMMAND_FAILED."""

    def __init__(self, reason: int, *, parameter: int | None = None, selector: int | None = None,
                 error_id: int | None = None, comp_code: int = C.MQCC_FAILED, detail: str = "") -> None:
        super().__init__(C.describe("MQRCCF", reason) if reason >= 3000 else C.describe("MQRC", reason))
        self.reason = reason
        self.parameter = parameter
        self.selector = selector
        self.error_id = error_id
        self.comp_code = comp_code
        self.detail = detail


INT, STR, BYTES, INT_LIST, STR_LIST = "int", "str", "bytes", "int_list", "str_list"

_STRUCT_KIND = {
    P.CFIN: INT, P.CFIN64: INT, P.CFST: STR, P.CFBS: BYTES, P.CFIL: INT_LIST, P.CFIL64: INT_LIST,
    P.CFSL: STR_LIST,
}
# A parameter that arrives in the wrong structure is reported by the structure it arrived in.
_WRONG_ID = {
    P.CFIN: C.MQRCCF_CFIN_PARM_ID_ERROR, P.CFIN64: C.MQRCCF_CFIN_PARM_ID_ERROR,
    P.CFST: C.MQRCCF_CFST_PARM_ID_ERROR, P.CFBS: C.MQRCCF_CFBS_PARM_ID_ERROR,
    P.CFIL: C.MQRCCF_CFIL_PARM_ID_ERROR, P.CFIL64: C.MQRCCF_CFIL_PARM_ID_ERROR,
    P.CFSL: C.MQRCCF_CFSL_PARM_ID_ERROR, P.CFIF: C.MQRCCF_CFIF_PARM_ID_ERROR,
    P.CFSF: C.MQRCCF_CFSF_PARM_ID_ERROR, P.CFBF: C.MQRCCF_CFBF_PARM_ID_ERROR,
    P.CFGR: C.MQRCCF_CFGR_PARM_ID_ERROR,
}
_TOO_LONG = {STR: C.MQRCCF_CFST_STRING_LENGTH_ERR, BYTES: C.MQRCCF_CFBS_STRING_LENGTH_ERR,
             STR_LIST: C.MQRCCF_CFSL_STRING_LENGTH_ERR}
_FILTER_KIND = {P.CFIF: INT, P.CFSF: STR, P.CFBF: BYTES}
# IBM's command server takes a single item where a list is documented: an MQCFIN for an MQCFIL
# parameter (Datadog's ibm_mq check sends QStatusAttrs = MQIACF_ALL as an MQCFIN through pymqi) and
# an MQCFST for an MQCFSL one (pymqi and ibmmq send a bytes value as an MQCFST: Set CHLAUTH Record
# BLOCKUSER with one user).  A rule of the one parser, not of a command: docs/decisions.md N3.
_AS_LIST = {(P.CFIN, INT_LIST): lambda item: P.CFIL(item.parameter, (item.value,)),
            (P.CFIN64, INT_LIST): lambda item: P.CFIL(item.parameter, (item.value,)),
            (P.CFST, STR_LIST): lambda item: P.CFSL(item.parameter, (item.value,))}


@dataclasses.dataclass(frozen=True, slots=True)
class Param:
    id: int
    kind: str
    max_length: int | None = None  # characters for strings, bytes for byte strings
    values: frozenset[int] | None = None  # the allowed values of an integer
    low: int | None = None  # inclusive range of an integer (checked when values is None)
    high: int | None = None
    exact_length: bool = False  # byte strings that must be exactly max_length (ids)


def p_int(pid: int, *values: int, low: int | None = None, high: int | None = None) -> Param:
    return Param(pid, INT, values=frozenset(values) if values else None, low=low, high=high)


def p_str(pid: int, max_length: int) -> Param:
    return Param(pid, STR, max_length=max_length)


def p_bytes(pid: int, length: int, *, exact: bool = False) -> Param:
    return Param(pid, BYTES, max_length=length, exact_length=exact)


def p_int_list(pid: int) -> Param:
    return Param(pid, INT_LIST)


@dataclasses.dataclass(frozen=True, slots=True)
class Filter:
    parameter: int
    operator: int
    value: object
    kind: str


@dataclasses.dataclass(frozen=True, slots=True)
class Parsed:
    values: dict[int, object]
    filter: Filter | None


def strip(value: str) -> str:
    """PCF strings may be padded with blanks or NULs; neither is part of the value."""
    return value.rstrip(" \x00")


def parse(msg: P.PCFMessage, params: Iterable[Param], *, filters: dict[int, str] | None = None) -> Parsed:
    """Validate ``msg``'s parameters against ``params``; ``filters`` maps filterable ids to their kind."""
    spec = {p.id: p for p in params}
    values: dict[int, object] = {}
    found_filter: Filter | None = None
    for item in msg.parameters:
        cls = type(item)
        pid = item.parameter
        if cls in _FILTER_KIND:
            kind = _FILTER_KIND[cls]
            if filters is None:
                raise CommandError(_WRONG_ID[cls], parameter=pid)
            if found_filter is not None:
                raise CommandError(C.MQRCCF_TOO_MANY_FILTERS, parameter=pid)
            if filters.get(pid) not in (kind, kind + "_list"):
                raise CommandError(_WRONG_ID[cls], parameter=pid)
            _check_operator(cls, item.operator, pid, list_attr=filters[pid].endswith("_list"))
            value = strip(item.value) if kind == STR else item.value
            found_filter = Filter(pid, item.operator, value, filters[pid])
            continue
        param = spec.get(pid)
        kind = _STRUCT_KIND.get(cls)
        if param is not None and kind is not None and param.kind != kind:
            widen = _AS_LIST.get((cls, param.kind))
            if widen is not None:  # one item where a list is documented: a list of one
                item, kind = widen(item), param.kind
        if param is None or kind is None or param.kind != kind:
            raise CommandError(_WRONG_ID.get(cls, C.MQRCCF_STRUCTURE_TYPE_ERROR), parameter=pid)
        if pid in values:
            raise CommandError(_duplicate(cls), parameter=pid)
        values[pid] = _value(param, item)
    return Parsed(values, found_filter)


def _duplicate(cls: type) -> int:
    if cls is P.CFST:
        return C.MQRCCF_CFST_DUPLICATE_PARM
    if cls is P.CFBS:
        return C.MQRCCF_CFBS_DUPLICATE_PARM
    if cls is P.CFSL:
        return C.MQRCCF_CFSL_DUPLICATE_PARM
    return C.MQRCCF_CFIN_DUPLICATE_PARM


def _value(param: Param, item) -> object:
    kind = param.kind
    if kind == INT:
        v = item.value
        if param.values is not None and v not in param.values:
            raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=param.id)
        if param.values is None and ((param.low is not None and v < param.low)
                                     or (param.high is not None and v > param.high)):
            raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=param.id)
        return v
    if kind == STR:
        v = strip(item.value)
        if param.max_length is not None and len(v) > param.max_length:
            raise CommandError(_TOO_LONG[STR], parameter=param.id)
        return v
    if kind == BYTES:
        v = bytes(item.value)
        if param.max_length is not None and (len(v) > param.max_length
                                             or (param.exact_length and len(v) != param.max_length)):
            raise CommandError(_TOO_LONG[BYTES], parameter=param.id)
        return v
    if kind == STR_LIST:
        vs = tuple(strip(v) for v in item.values)
        if param.max_length is not None and any(len(v) > param.max_length for v in vs):
            raise CommandError(_TOO_LONG[STR_LIST], parameter=param.id)
        return vs
    return tuple(item.values)


_SCALAR_OPS = frozenset({C.MQCFOP_LESS, C.MQCFOP_EQUAL, C.MQCFOP_GREATER, C.MQCFOP_NOT_LESS,
                         C.MQCFOP_NOT_EQUAL, C.MQCFOP_NOT_GREATER})
_STRING_OPS = _SCALAR_OPS | {C.MQCFOP_LIKE, C.MQCFOP_NOT_LIKE}
_LIST_OPS = frozenset({C.MQCFOP_CONTAINS, C.MQCFOP_EXCLUDES})
_LIST_GEN_OPS = frozenset({C.MQCFOP_CONTAINS_GEN, C.MQCFOP_EXCLUDES_GEN})
_OPERATOR_ERROR = {P.CFIF: C.MQRCCF_CFIF_OPERATOR_ERROR, P.CFSF: C.MQRCCF_CFSF_OPERATOR_ERROR,
                   P.CFBF: C.MQRCCF_CFBF_OPERATOR_ERROR}


def _check_operator(cls: type, op: int, pid: int, *, list_attr: bool) -> None:
    if list_attr:
        allowed = _LIST_OPS | (_LIST_GEN_OPS if cls is P.CFSF else frozenset())
    else:
        allowed = _STRING_OPS if cls is P.CFSF else _SCALAR_OPS
    if op not in allowed:
        raise CommandError(_OPERATOR_ERROR[cls], parameter=pid)


def generic_match(pattern: str, value: str) -> bool:
    """MQ generic names: a single trailing "*" matches any suffix; otherwise an exact match."""
    if pattern.endswith("*"):
        return value.startswith(pattern[:-1])
    return value == pattern


_T = TypeVar("_T")


def pick(objects: Mapping[str, _T], pattern: str) -> list[_T]:
    """The objects (a mapping keyed by name) whose name matches ``pattern``, exact or generic (see
    :func:`generic_match`), in name order.  An exact name is one look-up; a generic one a scan."""
    if not pattern.endswith("*"):
        found = objects.get(pattern)
        return [found] if found is not None else []
    return [objects[name] for name in sorted(name for name in objects if generic_match(pattern, name))]


def filter_matches(flt: Filter, value: object) -> bool:
    """Evaluate an MQCFIF/MQCFSF/MQCFBF against an object's attribute value."""
    op, want = flt.operator, flt.value
    if flt.kind.endswith("_list"):
        items = list(value)  # type: ignore[arg-type]
        if flt.kind == "str_list":
            items = [strip(v) for v in items]
        if op == C.MQCFOP_CONTAINS:
            return want in items
        if op == C.MQCFOP_EXCLUDES:
            return want not in items
        hit = any(generic_match(want, v) for v in items)  # type: ignore[arg-type]
        return hit if op == C.MQCFOP_CONTAINS_GEN else not hit
    if isinstance(value, str):
        value = strip(value)
    if op == C.MQCFOP_LIKE:
        return generic_match(want, value)  # type: ignore[arg-type]
    if op == C.MQCFOP_NOT_LIKE:
        return not generic_match(want, value)  # type: ignore[arg-type]
    if op == C.MQCFOP_EQUAL:
        return value == want
    if op == C.MQCFOP_NOT_EQUAL:
        return value != want
    if op == C.MQCFOP_LESS:
        return value < want  # type: ignore[operator]
    if op == C.MQCFOP_GREATER:
        return value > want  # type: ignore[operator]
    if op == C.MQCFOP_NOT_LESS:
        return value >= want  # type: ignore[operator]
    return value <= want  # type: ignore[operator]
