"""Attribute tables: how each object type answers Inquire (selection, rendering, filtering).

An ``AttrTable`` lists, per PCF attribute id, how to read the value from an object and how to send it
(type and blank padding).  Selection follows MQ: omitted or MQIACF_ALL means every attribute; the
"always" attributes (names, ids) are sent whatever was asked.

An attribute IBM defines for the object type but qmlite does not model is still in the table, as a
:func:`fixed` attribute: the value a default queue manager reports, so no requested attribute is ever
dropped (docs/compat.md Part 5).  A selector that is no IBM attribute at all (no MQIA_, MQCA_,
MQIACF_, MQCACF_, MQIACH_, MQCACH_, MQIAMO_, MQCAMO_ or MQBACF_ name has its value) is refused with
MQRC_SELECTOR_ERROR and MQIACF_SELECTOR; one that names an attribute of another object type is
skipped, so tools that ask for attributes of later releases keep working.  ``strict=True`` refuses
every selector the table does not have.  The attribute a filter tests is always returned, whatever
the selectors (:func:`with_filter`, IBM's documented rule).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin import responses as R
from qmlite.registry.admin.params import BYTES, INT, INT_LIST, STR, CommandError


@dataclasses.dataclass(frozen=True, slots=True)
class Attr:
    id: int
    kind: str
    get: Callable[[object], object]
    pad: int | None = None  # fixed-length MQ attributes travel blank-padded to this length
    always: bool = False
    # The PCF structure for an object's value, built once per attribute: an Inquire of 10,000 queues
    # renders 500,000 values, so no per-value dispatch on the kind.
    make: Callable[[object], object] = dataclasses.field(default=None, compare=False,
                                                         repr=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        object.__setattr__(self, "make", _maker(self.id, self.kind, self.get, self.pad))


def _maker(pid: int, kind: str, get: Callable[[object], object], pad: int | None) -> Callable[[object], object]:
    ccsid = R.QMGR_CCSID
    if kind == INT:
        return lambda obj: P.CFIN(pid, get(obj))
    if kind == STR:
        if pad:
            return lambda obj: P.CFST(pid, get(obj).ljust(pad), ccsid)  # type: ignore[attr-defined]
        return lambda obj: P.CFST(pid, get(obj), ccsid)
    if kind == BYTES:
        return lambda obj: P.CFBS(pid, get(obj))
    if kind == INT_LIST:
        return lambda obj: P.CFIL(pid, tuple(get(obj)))  # type: ignore[arg-type]

    def str_list(obj: object) -> object:
        vs = tuple(get(obj))  # type: ignore[arg-type]
        width = max((len(v) for v in vs), default=0) if pad is None else pad
        return P.CFSL(pid, tuple(v.ljust(width) for v in vs), ccsid)
    return str_list


class AttrTable:
    def __init__(self, attrs: Iterable[Attr], *, summary: Sequence[int] = ()) -> None:
        self.attrs = tuple(attrs)
        self.by_id = {a.id: a for a in self.attrs}
        self.always = tuple(a for a in self.attrs if a.always)
        self.summary = tuple(summary)

    def filter_kinds(self) -> dict[int, str]:
        return {a.id: a.kind for a in self.attrs}

    def select(self, requested: Sequence[int] | None, *, strict: bool = False,
               lenient: bool = False) -> tuple[Attr, ...]:
        """``lenient``: every selector the table lacks is skipped, IBM's rule for Inquire Topic Status."""
        if requested is None or C.MQIACF_ALL in requested:
            return self.attrs
        chosen: dict[int, Attr] = {a.id: a for a in self.always}
        for sel in requested:
            if sel == C.MQIACF_SUB_SUMMARY and self.summary:
                for sid in self.summary:
                    chosen.setdefault(sid, self.by_id[sid])
                continue
            attr = self.by_id.get(sel)
            if attr is None:
                if strict or (sel not in _ATTRIBUTE_IDS and not lenient):
                    raise CommandError(C.MQRC_SELECTOR_ERROR, selector=sel)
                continue
            chosen.setdefault(sel, attr)
        order = {a.id: i for i, a in enumerate(self.attrs)}
        return tuple(sorted(chosen.values(), key=lambda a: order[a.id]))

    def value(self, obj: object, attr_id: int) -> object:
        return self.by_id[attr_id].get(obj)

    @staticmethod
    def render(obj: object, attrs: Sequence[Attr]) -> list:
        return [a.make(obj) for a in attrs]


def attr(attr_id: int, kind: str, field_or_getter: str | Callable[[object], object], *,
         pad: int | None = None, always: bool = False) -> Attr:
    getter = field_or_getter if callable(field_or_getter) else _field(field_or_getter)
    return Attr(attr_id, kind, getter, pad, always)


def _field(name: str) -> Callable[[object], object]:
    def get(obj: object) -> object:
        return getattr(obj, name)
    get.__name__ = name
    return get


def fixed(attr_id: int, kind: str, value: object, *, pad: int | None = None) -> Attr:
    """An attribute IBM defines that qmlite does not model: always the default queue manager's value."""
    return Attr(attr_id, kind, lambda obj: value, pad)


def with_filter(table: AttrTable, selected: tuple[Attr, ...], flt) -> tuple[Attr, ...]:
    """The selected attributes plus the one a filter tests: IBM returns the filtered attribute even
    when the attribute selectors do not name it."""
    if flt is None or any(a.id == flt.parameter for a in selected):
        return selected
    extra = table.by_id.get(flt.parameter)
    if extra is None:
        return selected
    order = {a.id: i for i, a in enumerate(table.attrs)}
    return tuple(sorted((*selected, extra), key=lambda a: order[a.id]))


# Every attribute identifier IBM names (constants module): a selector outside it is no attribute at all.
_ATTRIBUTE_PREFIXES = ("MQIA_", "MQCA_", "MQIACF_", "MQCACF_", "MQIACH_", "MQCACH_", "MQIAMO_", "MQCAMO_",
                       "MQBACF_", "MQIAMO64_", "MQGACF_")
_ATTRIBUTE_IDS = frozenset(
    v for k, v in vars(C).items()
    if k.startswith(_ATTRIBUTE_PREFIXES) and isinstance(v, int) and not k.endswith(("_FIRST", "_LAST"))
)
