"""registry/objects/layouts.py's replace gives what dataclasses.replace gives, field by field, for every
object type the command handlers copy (docs/decisions.md ST10)."""

from __future__ import annotations

import dataclasses

import pytest

from qmlite.registry.objects import channels, defaults, generic, layouts
from qmlite.registry.objects.definitions import Namelist, Process, Queue, Subscription, Topic


def _samples() -> list:
    out = [*defaults.system_queues(), *defaults.dev_queues(), *defaults.system_topics(), *defaults.dev_topics(),
           *defaults.system_namelists(), *defaults.system_processes(), *defaults.system_subscriptions(bytes(24)),
           *channels.default_channels(True)]
    for kind in generic.all_kinds().values():
        out += list(kind.defaults(True))
    return out


def _other(value):
    """A value of the same type that differs."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return value + "X"
    if isinstance(value, bytes):
        return value + b"\x01"
    if isinstance(value, tuple):
        return value + ("X",)
    if isinstance(value, list):
        return [*value, "X"]
    if isinstance(value, dict):
        return {**value, "X": 1}
    return None


@pytest.mark.parametrize("obj", _samples(), ids=lambda o: f"{type(o).__name__}:{o.name}")
def test_replace_gives_what_dataclasses_replace_gives_for_every_field(obj):
    assert layouts.replace(obj) == dataclasses.replace(obj)
    assert layouts.replace(obj) is not obj
    for field in dataclasses.fields(obj):
        changed = _other(getattr(obj, field.name))
        if changed is None:
            continue
        fast, general = layouts.replace(obj, **{field.name: changed}), dataclasses.replace(obj, **{field.name: changed})
        assert type(fast) is type(general) and fast == general, field.name
        assert getattr(fast, field.name) == changed
    several = {f.name: _other(getattr(obj, f.name)) for f in dataclasses.fields(obj)[:5]
               if _other(getattr(obj, f.name)) is not None}
    assert layouts.replace(obj, **several) == dataclasses.replace(obj, **several)


@pytest.mark.parametrize("cls", [Queue, Topic, Namelist, Process, Subscription, channels.Channel])
def test_every_object_type_takes_the_precompiled_path(cls):
    assert layouts._layout(cls) is not None


def test_a_change_that_names_no_field_is_refused_as_dataclasses_refuses_it():
    queue = Queue("Q")
    with pytest.raises(TypeError) as general:
        dataclasses.replace(queue, no_such_field=1)
    with pytest.raises(TypeError) as fast:
        layouts.replace(queue, no_such_field=1)
    assert str(fast.value) == str(general.value)


def test_a_class_with_keyword_only_or_non_init_fields_goes_to_dataclasses_replace():
    @dataclasses.dataclass
    class Odd:
        a: int
        b: int = dataclasses.field(default=2, init=False)

    @dataclasses.dataclass(kw_only=True)
    class KwOnly:
        a: int = 1
        c: int = 3

    assert layouts._layout(Odd) is None and layouts._layout(KwOnly) is None
    assert layouts.replace(Odd(1), a=5) == dataclasses.replace(Odd(1), a=5)
    assert layouts.replace(KwOnly(a=1), c=9) == KwOnly(a=1, c=9)
