"""Attributes that belong to some subtypes of an object type only (channel types, authentication
information types): one declaration gives the commands' parameters, the Inquire table, and which
attributes each subtype has.

IBM documents each such parameter as "valid only for ... of type ..."; a command that gives one for
another subtype is refused with the object type's reason (channels: MQRCCF_WRONG_CHANNEL_TYPE), and
Inquire reports for each object only the attributes its subtype has.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from qmlite.pcf import constants as C

from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import Attr, AttrTable, attr
from qmlite.registry.objects.definitions import stamp_definition
from qmlite.registry.admin.params import CommandError, Param, parse
from qmlite.registry.admin.commands.definitions import DefinitionKind, _existing, _target, changes, object_name
from qmlite.registry.admin.commands.queues import required


@dataclasses.dataclass(frozen=True)
class Spec:
    """One settable attribute: its parameter, model field, how Inquire sends it, and the subtypes that
    have it (None: every subtype)."""

    param: Param
    field: str
    pad: int | None = None
    types: frozenset[int] | None = None
    get: Callable[[object], object] | None = None  # what Inquire reports, when not the field itself

    def applies(self, subtype: int) -> bool:
        return self.types is None or subtype in self.types


def definition(specs: Iterable[Spec]) -> tuple[tuple[Param, str], ...]:
    return tuple((s.param, s.field) for s in specs)


def attrs(specs: Iterable[Spec]) -> list[Attr]:
    return [attr(s.param.id, s.param.kind, s.get or s.field, pad=s.pad) for s in specs]


def check_applicable(specs: Sequence[Spec], values: dict, subtype: int, reason: int) -> None:
    """Every attribute given must belong to ``subtype``: the first that does not is ``reason``."""
    for s in specs:
        if s.param.id in values and not s.applies(subtype):
            raise CommandError(reason, parameter=s.param.id)


class TypedTable:
    """An AttrTable whose rows leave out the attributes the object's subtype does not have."""

    def __init__(self, table: AttrTable, specs: Sequence[Spec], subtype_of: Callable[[object], int]) -> None:
        self.table = table
        self.subtype_of = subtype_of
        self._types = {s.param.id: s.types for s in specs if s.types is not None}

    def has(self, obj: object, attr_id: int) -> bool:
        types = self._types.get(attr_id)
        return types is None or self.subtype_of(obj) in types

    def render(self, obj: object, selected: Sequence[Attr]) -> list:
        return self.table.render(obj, [a for a in selected if self.has(obj, a.id)])


# ---- Create, Copy and Change for an object type with subtypes -------------------------------------
@dataclasses.dataclass(frozen=True)
class Subtyped:
    """How an object type's subtype works in its commands: the parameter and field that hold it, the
    subtypes there are, the default object each starts from, and the reasons for a bad subtype, a
    subtype that is not the existing object's, and an attribute the subtype does not have."""

    kind: DefinitionKind
    specs: tuple[Spec, ...]
    type_param: int
    type_field: str
    types: tuple[int, ...]
    default_of: dict[int, str]
    new: Callable[[str, int], object]  # an object of a subtype with the model's defaults
    invalid: int
    mismatch: int
    wrong_type: int
    complete: Callable[[object], object] = lambda obj: obj  # what an object of its subtype needs

    def subtype(self, values: dict) -> int:

        value = required(values, self.type_param)
        if value not in self.types:
            raise CommandError(self.invalid, parameter=self.type_param)
        return value  # type: ignore[return-value]

    def same(self, existing, subtype: int) -> None:
        if existing is not None and getattr(existing, self.type_field) != subtype:
            raise CommandError(self.mismatch, parameter=self.type_param)

    def fields(self, values: dict, subtype: int) -> dict[str, object]:

        check_applicable(self.specs, values, subtype, self.wrong_type)
        return changes(self.kind, values)

    def template(self, registry, name: str, subtype: int):
        # A subtype with no default object (a telemetry channel: IBM has no SYSTEM.DEF.MQTT), or its
        # default object deleted: the model's defaults.
        base = self.kind.objects(registry).get(self.default_of.get(subtype, ""))
        if base is None or getattr(base, self.type_field) != subtype:
            return self.new(name, subtype)
        return dataclasses.replace(base, name=name, description="")


def create(st: Subtyped, ctx, request) -> list:

    kind = st.kind
    values = parse(request, kind.create_params).values
    name = object_name(values, kind.name_param)
    subtype = st.subtype(values)
    fields = st.fields(values, subtype)
    reg = ctx.registry
    existing = _target(kind, reg, name, values, kind.name_param)
    st.same(existing, subtype)
    obj = st.complete(dataclasses.replace(st.template(reg, name, subtype), **fields))
    stamp_definition(obj, existing, reg.now())
    kind.put(reg, obj)
    return R.ok(ctx.command)


def copy(st: Subtyped, ctx, request) -> list:


    kind = st.kind
    values = parse(request, kind.copy_params).values
    source_name = object_name(values, kind.from_param)
    target_name = object_name(values, kind.to_param)
    subtype = st.subtype(values)
    fields = st.fields(values, subtype)
    reg = ctx.registry
    source = kind.objects(reg).get(source_name)
    if source is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, parameter=kind.from_param)
    st.same(source, subtype)
    existing = _target(kind, reg, target_name, values, kind.to_param)
    st.same(existing, subtype)
    obj = st.complete(dataclasses.replace(source, name=target_name, **fields))
    stamp_definition(obj, existing, reg.now())
    kind.put(reg, obj)
    return R.ok(ctx.command)


def change(st: Subtyped, ctx, request) -> list:

    kind = st.kind
    values = parse(request, kind.change_params).values
    name = object_name(values, kind.name_param)
    subtype = st.subtype(values)
    fields = st.fields(values, subtype)
    reg = ctx.registry
    existing = _existing(kind, reg, name)
    st.same(existing, subtype)
    updated = st.complete(dataclasses.replace(existing, **fields))
    updated.altered = reg.now()
    kind.put(reg, updated)
    return R.ok(ctx.command)
