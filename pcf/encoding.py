"""Byte order, character sets and MQCHAR fields: the rules every structure shares.

MQ carries its integer order two ways: the TSH ByteOrder byte (1 big, 2 little) for everything in a
segment, and MQMD.Encoding (MQENC_INTEGER_NORMAL / _REVERSED bits) for message data such as PCF.
Both are reduced here to a ``struct`` prefix, ``">"`` or ``"<"``.
"""

from __future__ import annotations

import codecs

from . import constants as C

BIG = ">"
LITTLE = "<"

_INTEGER_MASK = C.MQENC_INTEGER_MASK  # 0x0F


def order_of_encoding(encoding: int) -> str | None:
    """``">"``/``"<"`` for an MQENC value, or None when its integer part is undefined."""
    integer = encoding & _INTEGER_MASK
    if integer == C.MQENC_INTEGER_REVERSED:
        return LITTLE
    if integer == C.MQENC_INTEGER_NORMAL:
        return BIG
    return None


# CCSIDs whose text we decode.  0 (MQCCSI_Q_MGR / "as the message") is resolved by callers.
_CCSID_CODECS = {
    1208: "utf-8", 819: "latin-1", 437: "cp437", 850: "cp850", 1252: "cp1252",
    500: "cp500", 37: "cp037", 367: "ascii", 1051: "latin-1", 912: "iso8859-2",
    923: "iso8859-15", 1200: "utf-16-be",
}
_EBCDIC = frozenset({500, 37})


def codec_for_ccsid(ccsid: int) -> str | None:
    """Python codec for a CCSID, or None when qmlite does not speak it."""
    return _CCSID_CODECS.get(ccsid)


def is_ebcdic(ccsid: int) -> bool:
    return ccsid in _EBCDIC


def supported_ccsids() -> tuple[int, ...]:
    return tuple(sorted(_CCSID_CODECS))


# Decoding never fails on odd bytes: surrogateescape keeps them, so re-encoding gives the same bytes.
_ERRORS = "surrogateescape"


def decode_text(raw: bytes, codec: str) -> str:
    return raw.decode(codec, _ERRORS)


def encode_text(text: str, codec: str) -> bytes:
    return text.encode(codec, _ERRORS)


_BLANK_NUL = b" \x00"


def decode_char(raw: bytes, codec: str = "latin-1") -> str:
    """An MQCHAR[n] field: trailing blanks and NULs are padding, not value."""
    value = raw.rstrip(_BLANK_NUL)
    return value.decode(codec, _ERRORS) if value else ""  # most MQCHAR fields on the wire are blank


_BLANKS: dict[int, bytes] = {}


def encode_char(text: str, length: int, codec: str = "latin-1") -> bytes:
    """An MQCHAR[n] field as MQ writes it: blank-padded.  Raises ValueError when it does not fit."""
    if not text:
        blank = _BLANKS.get(length)
        if blank is None:
            blank = _BLANKS[length] = b" " * length
        return blank
    raw = text.encode(codec, _ERRORS)
    if len(raw) > length:
        raise ValueError(f"{text!r} is longer than {length} bytes")
    return raw.ljust(length)


def pad4(n: int) -> int:
    """``n`` rounded up to a multiple of four (StrucLength and MQCHARV alignment)."""
    return (n + 3) & ~3


# Codec lookups are cached by Python; touching them once keeps the first decode off the slow path.
for _name in set(_CCSID_CODECS.values()):
    codecs.lookup(_name)
del _name
