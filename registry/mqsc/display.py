"""Inquire responses into what DISPLAY prints: ``KEYWORD(value)`` items, two to a line.

runmqsc's layout: each line starts with three blanks; an item of up to 38 characters takes a
40-character column, two columns to a line; a longer one has a line of its own (a published
transcript shows the 39-character ``NAMELIST(SYSTEM.QPUBSUB.QUEUE.NAMELIST)`` alone).  Values print
without quotes; a blank string as ``( )``; byte strings in upper-case hexadecimal; an integer with a
word for it (``EXPIRY(UNLIMITED)``) as the word; keyword-pair attributes (``NOTRIGGER``) bare.
"""

from __future__ import annotations

from qmlite.pcf import pcf as P

from qmlite.registry.mqsc.keywords import ENUM, ENUMLIST, FLAG, INT, INTLIST, Keyword, ObjectType

INDENT = "   "
COLUMN = 40


def value_text(kw: Keyword, value: object) -> str:
    """The value as runmqsc prints it inside the parentheses (or the bare word of a FLAG)."""
    kind = kw.kind
    if kind == FLAG:
        return kw.name if value == kw.on_value else (kw.off if value == kw.off_value else str(value))
    if kw.blank is not None and isinstance(value, int) and value == kw.blank:
        return ""  # not available: IBM prints blanks
    if kind in (INT, ENUM) and isinstance(value, int):
        return kw.names.get(value, str(value))
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex().upper()
    if isinstance(value, (tuple, list)):
        if kind == ENUMLIST:
            names = kw.names
            return ",".join(" " if v == kw.blank else names.get(v, str(v)) for v in value)
        if kind == INTLIST:
            if kw.blank is not None and all(v == kw.blank for v in value):
                return " , "  # QTIME( , ): neither period has a measurement
            return ", ".join("" if v == kw.blank else str(v) for v in value)
        return ",".join(str(v).rstrip(" \x00") for v in value)
    if isinstance(value, str):
        return value.rstrip(" \x00")
    return str(value)


def item(kw: Keyword, text: str) -> str:
    if kw.kind == FLAG:
        return text
    return f"{kw.name}({text or ' '})"


def to_object(otype: ObjectType, params: list) -> list[tuple[Keyword, str]]:
    """The response's attributes this object type knows, in runmqsc's order."""
    out: list[tuple[Keyword, str]] = []
    seen: set[str] = set()
    for param in params:
        kw = otype.for_id(param.parameter)
        if kw is None or kw.name in seen:
            continue
        value = param.values if isinstance(param, (P.CFIL, P.CFSL, P.CFIL64)) else param.value
        out.append((kw, value_text(kw, value)))
        seen.add(kw.name)
    order = otype.order  # type: ignore[attr-defined]
    out.sort(key=lambda pair: order.get(pair[0].name, len(order)))
    return out


def lines(items: list[str]) -> list[str]:
    out: list[str] = []
    left: str | None = None
    for text in items:
        if len(text) > COLUMN - 2:
            if left is not None:
                out.append(INDENT + left)
                left = None
            out.append(INDENT + text)
        elif left is None:
            left = text
        else:
            out.append(INDENT + left.ljust(COLUMN) + text)
            left = None
    if left is not None:
        out.append(INDENT + left)
    return out
