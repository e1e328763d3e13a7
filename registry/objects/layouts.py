"""``dataclasses.replace`` for the administered objects, with each class's layout worked out once.

``dataclasses.replace`` walks the class's fields on every call and passes every value as a keyword:
20-40 µs for a 62-field ``Queue``, the largest single cost of a DEFINE QLOCAL in a 1,000-line start-up
script (issue 24).  :func:`replace` builds the same object from one ``attrgetter`` call and positional
arguments, through the class's own ``__init__`` (so ``__post_init__`` runs as before).  A class whose
fields are not all plain ``__init__`` parameters in field order (keyword-only, ``init=False``,
``InitVar`` pseudo-fields) goes to ``dataclasses.replace`` itself, as does a change naming no field (which
``dataclasses.replace`` refuses with its own error).  tests/registry/objects/test_layouts.py compares the
two on every field of every object type.
"""

from __future__ import annotations

import dataclasses
import operator

_LAYOUTS: dict[type, tuple | None] = {}


def _layout(cls: type) -> tuple | None:
    try:
        return _LAYOUTS[cls]
    except KeyError:
        pass
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    plain = (len(names) > 1 and set(cls.__dataclass_fields__) == set(names)  # no InitVar / ClassVar pseudo-fields
             and all(f.init and not f.kw_only for f in fields))
    layout = (operator.attrgetter(*names), {name: i for i, name in enumerate(names)}) if plain else None
    _LAYOUTS[cls] = layout
    return layout


def replace(obj, /, **changes):
    """``dataclasses.replace(obj, **changes)``, the same object made faster."""
    layout = _layout(type(obj))
    if layout is None:
        return dataclasses.replace(obj, **changes)
    getter, index = layout
    values = list(getter(obj))
    for name, value in changes.items():
        i = index.get(name)
        if i is None:
            return dataclasses.replace(obj, **changes)
        values[i] = value
    return type(obj)(*values)
