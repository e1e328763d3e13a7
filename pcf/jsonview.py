"""Stable JSON views of decoded structures, for ``qmlite decode`` and logs.

A structure is any dataclass from this package.  Its fields appear under their MQ names in
declaration order; bytes become lower-case hex; nested structures and lists are converted
recursively.  A class may declare ``_json_names = {"Field": "MQFAMILY"}``: the field then also
appears as ``"Field_name"`` with the constant's name (e.g. ``"Command_name":
"MQCMD_CREATE_SUBSCRIPTION"``), or ``null`` when the value has no name in that family.  A tuple of
families is tried in order.
A class may also declare ``_json_type = "MQMD"`` (default: the class name) which is written
as ``"struct"`` first.  The format is documented in docs/decode-json.md; change it only additively.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import constants as C


def to_json(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _struct(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, str):
        return value
    return value


def _name(family: str | tuple[str, ...], value: int) -> str | None:
    """A family, or several tried in order (PCF reasons are MQRCCF_* or MQRC_* values)."""
    for fam in (family,) if isinstance(family, str) else family:
        name = C.name_of(fam, value)
        if name is not None:
            return name
    return None


def _struct(obj: Any) -> dict:
    cls = type(obj)
    out: dict[str, Any] = {"struct": getattr(cls, "_json_type", cls.__name__)}
    names: dict[str, str] = getattr(cls, "_json_names", {})
    for field in dataclasses.fields(obj):
        if field.name.startswith("_"):
            continue
        value = getattr(obj, field.name)
        out[field.name] = to_json(value)
        family = names.get(field.name)
        if family is not None:
            if isinstance(value, int):
                out[field.name + "_name"] = _name(family, value)
            elif isinstance(value, (list, tuple)):
                out[field.name + "_name"] = [_name(family, v) for v in value]
    return out
