"""The six PCF commands of a simple definition object, once for every such object type.

Namelists and process definitions (and, to come, channels, authentication information, listeners,
services and communication information) are named, stand-alone definitions that nothing else owns.  Each has Create,
Copy, Change and Delete <object>, Inquire <object> and Inquire <object> Names, with the rules of queues.py: generic
names, attribute selection, one filter, and every check before the first change.  An object type's module describes
the type in one :class:`DefinitionKind` and calls :func:`register`; the handlers here do the rest.

What a new object type must provide
-----------------------------------
* A model dataclass (registry/objects/definitions.py) constructed as ``Model(name)``, with ``name``,
  ``description``, ``created`` and ``altered`` fields and one field per settable attribute.
* On Registry (registry/storage/catalog.py) a dict of the objects by name and the two methods that keep it and
  the store in step, ``put_<x>(obj)`` (add or replace) and ``remove_<x>(obj)``; a store table for
  the model (registry/storage/sqlite.py); and the default object (SYSTEM.DEFAULT.<X>, registry/objects/defaults.py).
* A :class:`DefinitionKind` naming all of that plus the PCF side: the parameter ids of the object
  name, Copy's from- and to-names, Inquire's attribute selector and Inquire Names' answer; the name
  length; ``definition``, every settable attribute as (:class:`Param`, model field); the
  :class:`AttrTable` that Inquire (and MQINQ, registry/messaging/inquire.py) report from; the six MQCMD_* ids
  (:class:`CommandIds`); and, only if an attribute needs a check its :class:`Param` cannot express,
  ``validate``.

What every such type then gets
------------------------------
* Create: the name, then the attributes (``validate``), then MQRCCF_OBJECT_ALREADY_EXISTS unless
  Replace(MQRP_YES); the new object is the default object renamed, description cleared, with the
  command's attributes (the model's defaults if the default object was deleted).  Replacing keeps
  the creation time.
* Copy: from- and to-name, attributes, MQRC_UNKNOWN_OBJECT_NAME for a missing source, then as Create.
* Change and Delete: MQRC_UNKNOWN_OBJECT_NAME for a missing object; RemoveAuthRecs is accepted.
* Inquire: a generic name, the attribute selector, one filter on any attribute in the table;
  MQRC_UNKNOWN_OBJECT_NAME when nothing matches.  Inquire Names: the names, blank-padded to the name
  length, in one MQCFSL.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, with_filter
from qmlite.registry.objects.definitions import stamp_definition
from qmlite.registry.admin.params import CommandError, Param, filter_matches, p_int, p_int_list, p_str, parse, pick
from qmlite.registry.admin.commands.queues import check_name, required

Handler = Callable[[Any, P.PCFMessage], list]

_P_REPLACE = p_int(C.MQIACF_REPLACE, C.MQRP_YES, C.MQRP_NO)
_P_REMOVE_AUTHREC = p_int(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES, C.MQRAR_NO)


@dataclasses.dataclass(frozen=True, slots=True)
class CommandIds:
    """The MQCMD_* ids of an object type's six commands."""

    create: int
    copy: int
    change: int
    delete: int
    inquire: int
    inquire_names: int


class Handlers(NamedTuple):
    """An object type's six command handlers, ``(ctx, request) -> responses``; as in CommandIds."""

    create: Handler
    copy: Handler
    change: Handler
    delete: Handler
    inquire: Handler
    inquire_names: Handler


@dataclasses.dataclass(frozen=True)
class DefinitionKind:
    """One simple definition object type, as the generic commands need it (see the module docstring)."""

    model: type[Any]  # the dataclass: ``model(name)`` is an object with the model's defaults
    name_param: int  # MQCA_<X>_NAME: the object's name in commands and responses
    from_param: int  # MQCACF_FROM_<X>_NAME (Copy)
    to_param: int  # MQCACF_TO_<X>_NAME (Copy)
    attrs_param: int  # MQIACF_<X>_ATTRS: Inquire's attribute selectors
    names_param: int  # MQCACF_<X>_NAMES: Inquire Names' answer
    name_length: int  # MQ_<X>_NAME_LENGTH
    registry_dict: str  # the Registry attribute holding the objects by name, e.g. "namelists"
    put_method: str  # the Registry method that adds or replaces one, e.g. "put_namelist"
    remove_method: str  # the Registry method that removes one, e.g. "remove_namelist"
    default_name: str  # the object a new definition copies, e.g. SYSTEM.DEFAULT.NAMELIST
    definition: tuple[tuple[Param, str], ...]  # (parameter, model field) for every settable attribute
    table: AttrTable  # what Inquire reports (and MQINQ answers)
    commands: CommandIds
    # Checks a Param cannot express, on the parsed values of Create, Copy and Change: raise CommandError.
    validate: Callable[[dict[int, object]], None] | None = None
    # A generic kind (registry/objects/generic.py): its name; the objects are then ``registry.objects(generic)``
    # and registry_dict, put_method and remove_method are not used.
    generic: str = ""

    # ---- the registry ----------------------------------------------------------------------------
    def objects(self, registry) -> dict[str, Any]:
        if self.generic:
            return registry.objects(self.generic)
        return getattr(registry, self.registry_dict)

    def put(self, registry, obj) -> None:
        if self.generic:
            registry.put_object(self.generic, obj)
        else:
            getattr(registry, self.put_method)(obj)

    def remove(self, registry, obj) -> None:
        if self.generic:
            registry.remove_object(self.generic, obj)
        else:
            getattr(registry, self.remove_method)(obj)

    # ---- the commands' parameters ----------------------------------------------------------------
    @functools.cached_property
    def fields(self) -> dict[int, str]:
        """Parameter id -> model field, for every settable attribute."""
        return {param.id: field for param, field in self.definition}

    @functools.cached_property
    def create_params(self) -> tuple[Param, ...]:
        return (self._name, _P_REPLACE) + self._attributes

    @functools.cached_property
    def copy_params(self) -> tuple[Param, ...]:
        return (p_str(self.from_param, self.name_length), p_str(self.to_param, self.name_length),
                _P_REPLACE) + self._attributes

    @functools.cached_property
    def change_params(self) -> tuple[Param, ...]:
        return (self._name,) + self._attributes

    @functools.cached_property
    def delete_params(self) -> tuple[Param, ...]:
        return (self._name, _P_REMOVE_AUTHREC)

    @functools.cached_property
    def inquire_params(self) -> tuple[Param, ...]:
        return (self._name, p_int_list(self.attrs_param))

    @functools.cached_property
    def inquire_names_params(self) -> tuple[Param, ...]:
        return (self._name,)

    @functools.cached_property
    def _name(self) -> Param:
        return p_str(self.name_param, self.name_length)

    @functools.cached_property
    def _attributes(self) -> tuple[Param, ...]:
        return tuple(param for param, _ in self.definition)

    # ---- the handlers ----------------------------------------------------------------------------
    @functools.cached_property
    def handlers(self) -> Handlers:
        """The six handlers for this type, built once."""
        return Handlers(*(_bind(fn, self) for fn in (create, copy, change, delete, inquire, inquire_names)))


def register(engine, kind: DefinitionKind) -> None:
    """Register ``kind``'s six commands; a Registry without its dict or methods fails here, at startup."""
    if kind.generic:
        if kind.generic not in engine.registry.definitions:
            raise TypeError(f"{kind.generic!r} is not a generic kind (registry/objects/generic.py MODULES)")
    for attribute in () if kind.generic else (kind.registry_dict, kind.put_method, kind.remove_method):
        if not hasattr(engine.registry, attribute):
            raise TypeError(f"Registry has no {attribute!r} for {kind.model.__name__}")
    for command, handler in zip(dataclasses.astuple(kind.commands), kind.handlers, strict=True):
        if command:  # 0: a command the type does not have (listeners have no Inquire Names)
            engine.register(command, handler)


def _bind(fn: Callable[..., list], kind: DefinitionKind) -> Handler:
    def handler(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
        return fn(kind, ctx, request)

    handler.__name__ = handler.__qualname__ = f"{fn.__name__}[{kind.model.__name__}]"  # type: ignore[attr-defined]
    return handler


# ---- checks shared by the commands (none changes anything) ---------------------------------------
def object_name(values: dict, pid: int) -> str:
    """The object name parameter ``pid``: present, not blank, and a valid MQ object name."""
    name = required(values, pid)
    check_name(name, pid)  # type: ignore[arg-type]
    return name  # type: ignore[return-value]


def matching(objects: dict, values: dict, pid: int) -> list:
    """The objects the (possibly generic) name in ``values[pid]`` selects, in name order."""
    pattern = required(values, pid)
    check_name(pattern, pid, generic=True)  # type: ignore[arg-type]
    return pick(objects, pattern)  # type: ignore[arg-type]


def changes(kind: DefinitionKind, values: dict) -> dict[str, object]:
    """The model fields the command sets, after ``kind.validate``."""
    if kind.validate is not None:
        kind.validate(values)
    return {field: values[pid] for pid, field in kind.fields.items() if pid in values}


def _target(kind: DefinitionKind, registry, name: str, values: dict, pid: int):
    """The object Create or Copy would replace: MQRCCF_OBJECT_ALREADY_EXISTS unless Replace(yes)."""
    existing = kind.objects(registry).get(name)
    if existing is not None and values.get(C.MQIACF_REPLACE) != C.MQRP_YES:
        raise CommandError(C.MQRCCF_OBJECT_ALREADY_EXISTS, parameter=pid)
    return existing


def _template(kind: DefinitionKind, registry, name: str):
    """A new object takes the default object's attributes, like MQ."""
    base = kind.objects(registry).get(kind.default_name)
    return kind.model(name) if base is None else dataclasses.replace(base, name=name, description="")


def _existing(kind: DefinitionKind, registry, name: str):
    obj = kind.objects(registry).get(name)
    if obj is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
    return obj


# ---- the commands --------------------------------------------------------------------------------
def create(kind: DefinitionKind, ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, kind.create_params).values
    name = object_name(values, kind.name_param)
    fields = changes(kind, values)
    reg = ctx.registry
    existing = _target(kind, reg, name, values, kind.name_param)
    obj = dataclasses.replace(_template(kind, reg, name), **fields)
    stamp_definition(obj, existing, reg.now())
    kind.put(reg, obj)
    return R.ok(ctx.command)


def copy(kind: DefinitionKind, ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, kind.copy_params).values
    source_name = object_name(values, kind.from_param)
    target_name = object_name(values, kind.to_param)
    fields = changes(kind, values)
    reg = ctx.registry
    source = kind.objects(reg).get(source_name)
    if source is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, parameter=kind.from_param)
    existing = _target(kind, reg, target_name, values, kind.to_param)
    obj = dataclasses.replace(source, name=target_name, **fields)
    stamp_definition(obj, existing, reg.now())
    kind.put(reg, obj)
    return R.ok(ctx.command)


def change(kind: DefinitionKind, ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, kind.change_params).values
    name = object_name(values, kind.name_param)
    fields = changes(kind, values)
    reg = ctx.registry
    updated = dataclasses.replace(_existing(kind, reg, name), **fields)
    updated.altered = reg.now()
    kind.put(reg, updated)
    return R.ok(ctx.command)


# The authority-record object type of each definition kind (by its registry dict or generic kind).
_AUTH_OBJECT_TYPES = {"namelists": C.MQOT_NAMELIST, "processes": C.MQOT_PROCESS, "channel": C.MQOT_CHANNEL,
                      "authinfo": C.MQOT_AUTH_INFO, "listener": C.MQOT_LISTENER, "service": C.MQOT_SERVICE,
                      "comminfo": C.MQOT_COMM_INFO}


def forget_authority(kind: DefinitionKind, reg, name: str, values: dict) -> None:
    """RemoveAuthRecs: YES (the default) deletes the records of the deleted object's own profile."""
    object_type = _AUTH_OBJECT_TYPES.get(kind.generic or kind.registry_dict)
    if object_type is not None and values.get(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES) == C.MQRAR_YES:
        from qmlite.registry.security import authrecs

        authrecs.forget_object(reg, object_type, name)


def delete(kind: DefinitionKind, ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, kind.delete_params).values
    name = object_name(values, kind.name_param)
    kind.remove(ctx.registry, _existing(kind, ctx.registry, name))
    forget_authority(kind, ctx.registry, name, values)
    return R.ok(ctx.command)


def inquire(kind: DefinitionKind, ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    table = kind.table
    parsed = parse(request, kind.inquire_params, filters=table.filter_kinds())
    values, flt = parsed.values, parsed.filter
    selected = with_filter(table, table.select(values.get(kind.attrs_param)), flt)  # type: ignore[arg-type]
    objects = [table.render(obj, selected) for obj in matching(kind.objects(ctx.registry), values, kind.name_param)
               if flt is None or filter_matches(flt, table.value(obj, flt.parameter))]
    return R.data(ctx.command, objects, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_names(kind: DefinitionKind, ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, kind.inquire_names_params).values
    found = matching(kind.objects(ctx.registry), values, kind.name_param)
    names = tuple(obj.name.ljust(kind.name_length) for obj in found)
    return R.data(ctx.command, [[P.CFSL(kind.names_param, names, R.QMGR_CCSID)]],
                  none_found=C.MQRC_UNKNOWN_OBJECT_NAME)
