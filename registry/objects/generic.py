"""Object types kept in the store's generic ``definitions`` table (schema 6), one row per object.

Queues, topics, subscriptions, namelists and processes have tables of their own (they came first,
and subscriptions need a compact record).  Every later object type — channels, authentication
information, listeners, services, communication information, authority and channel authentication
records — is a :class:`GenericKind`: a dataclass with a ``name`` unique within its kind, stored as
JSON of its fields by field name.  A new field therefore needs no migration: a row written before
it existed loads with the field's default, and a field a model no longer has is ignored.

A kind's default objects (IBM's SYSTEM.DEF.* and the developer container's DEV.* ones) are added
the first time a queue manager starts with the kind known to it — a new queue manager, or an
existing data directory upgraded to a qmlite that knows the kind — and never again, so a default
object an administrator deleted stays deleted (registry/storage/catalog.py, ``seed_generic``).

The modules that declare kinds are listed in ``MODULES``; each calls :func:`register` at import.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable
from typing import Any

# Modules declaring generic kinds (imported by ``all_kinds``): one line per module.
MODULES: list[str] = [
    "qmlite.registry.objects.channels",
    "qmlite.registry.objects.clusters",
    "qmlite.registry.objects.endpoints",
    "qmlite.registry.security.authrecs",
    "qmlite.registry.security.chlauth",
]


@dataclasses.dataclass(frozen=True)
class GenericKind:
    """``name``: the kind's key in the store and in ``Registry.definitions``; ``model``: its
    dataclass, built as ``model(**fields)``; ``defaults(dev_objects)``: the objects a queue manager
    starts with (``dev_objects``: the developer container's DEV.* ones too)."""

    name: str
    model: type[Any]
    defaults: Callable[[bool], list] = lambda dev: []


_KINDS: dict[str, GenericKind] = {}
_BY_MODEL: dict[type, GenericKind] = {}


def register(kind: GenericKind) -> GenericKind:
    if kind.name in _KINDS and _KINDS[kind.name].model is not kind.model:
        raise ValueError(f"generic kind {kind.name!r} registered twice")
    _KINDS[kind.name] = kind
    _BY_MODEL[kind.model] = kind
    return kind


def all_kinds() -> dict[str, GenericKind]:
    for module in MODULES:
        importlib.import_module(module)
    return _KINDS


def kind_of(model: type) -> GenericKind | None:
    return _BY_MODEL.get(model)


# ---- records --------------------------------------------------------------------------------------
def _plain(value: object) -> object:
    if isinstance(value, bytes):
        return {"$b": value.hex()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _typed(value: object, default: object) -> object:
    if isinstance(value, dict) and "$b" in value:
        return bytes.fromhex(value["$b"])  # type: ignore[arg-type]
    if isinstance(value, list):
        return tuple(_typed(v, None) for v in value)
    if isinstance(default, float) and isinstance(value, int):
        return float(value)
    return value


def to_record(obj: object) -> str:
    return json.dumps({f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)},  # type: ignore[arg-type]
                      ensure_ascii=False, separators=(",", ":"))


def from_record(model: type, record: str) -> Any:
    values = json.loads(record)
    kwargs = {}
    for f in dataclasses.fields(model):
        if f.name in values:
            default = f.default if f.default is not dataclasses.MISSING else None
            kwargs[f.name] = _typed(values[f.name], default)
    return model(**kwargs)
