"""Message properties: the MQRFH2 folder text, a typed property model, and the message-data split/join.

IBM MQ carries message properties in MQRFH2 folders at the front of the message data (docs/compat.md,
"Message properties on the wire", lists the IBM pages every rule here comes from).  Three layers:

* :class:`Properties` -- an ordered mapping property name -> :class:`Property` (MQ type, Python value).
  Names follow IBM's mapping: a ``usr`` folder element is the bare name (``Color``), an element of any
  other folder carries the folder as prefix (``mcd.Msd``, ``jms.Dst``, ``mqps.Top``); groups add one
  ``.``-separated level each (``mq_usr.a.b``).  ``usr.Color`` is accepted as a synonym of ``Color``.
* the folder codec -- :func:`parse_folder` reads one NameValueData string (XML-like: elements,
  ``dt='i4'`` types, ``xsi:nil='true'`` nulls, the five entity escapes and numeric references,
  comments, CDATA, blanks between elements, self-closing tags, either quote) into its name, its
  elements and its attributes; :func:`render_folder` writes the compact form (no blanks, ``'`` quotes).
* :func:`split` / :func:`join` -- what a queue manager does with message data: peel every MQRFH2/MQRFH
  off the front (following the Format chain) collecting the properties, or put one MQRFH2 built from a
  :class:`Properties` back in front of a body.

MQRFH version 1 NameValueString text (``MQPSCommand Publish MQPSTopic "a b"``) is read and written by
:func:`parse_name_value_string` / :func:`render_name_value_string`.

Malformed input raises only :class:`~qmlite.pcf.errors.CodecError` (family MQRC): ``MQRC_RFH_ERROR``
for folder text and header structure, ``MQRC_RFH_STRING_ERROR`` for an MQRFH NameValueString.  Values a
caller passes that cannot be written raise ``ValueError``.  Nothing is allocated from a length found in
the data: lengths are checked against the bytes present (mqi.py) and property names are bounded.
Standard library only, no I/O.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field
from typing import Iterable, Iterator, NamedTuple

from . import constants as C
from . import errors
from .encoding import codec_for_ccsid, order_of_encoding
from .errors import CodecError
from .mqi import MQRFH, MQRFH2

__all__ = [
    "Property", "Properties", "Folder", "Split",
    "STRING", "BOOLEAN", "INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BYTES", "NULL",
    "TYPES", "MQTYPE", "PROPERTY_FOLDERS",
    "parse_folder", "render_folder", "decode_value", "encode_value", "float_text", "check_name",
    "split", "join", "parse_name_value_string", "render_name_value_string",
]

_MQRC = errors.MQRC
FOLDER_REASON = C.MQRC_RFH_ERROR  # malformed NameValueData (the brief's choice; see docs/compat.md)
NVS_REASON = C.MQRC_RFH_STRING_ERROR  # malformed MQRFH NameValueString (IBM's 2335 page)

# --------------------------------------------------------------------------------------------------
# Types: the MQRFH2 ``dt`` names, and NULL for xsi:nil='true'
# --------------------------------------------------------------------------------------------------

STRING = "string"  # no dt attribute
BOOLEAN = "boolean"
INT8 = "i1"
INT16 = "i2"
INT32 = "i4"
INT64 = "i8"  # also what dt='int' reads as
FLOAT32 = "r4"
FLOAT64 = "r8"
BYTES = "bin.hex"
NULL = "NULL"
TYPES = frozenset({STRING, BOOLEAN, INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BYTES, NULL})

# MQTYPE_* values (IBM "MQTYPE_* (Property data types)"), for MQINQMP-style callers.
MQTYPE = {NULL: 2, BOOLEAN: 4, BYTES: 8, INT8: 16, INT16: 32, INT32: 64, INT64: 128, FLOAT32: 256,
          FLOAT64: 512, STRING: 1024}

_INT_RANGE = {t: (-(1 << (b - 1)), (1 << (b - 1)) - 1) for t, b in ((INT8, 8), (INT16, 16), (INT32, 32),
                                                                   (INT64, 64))}
_F32 = struct.Struct("<f")

# Folders whose elements are message properties (IBM NameValueData syntax: the defined property
# folders and the ungrouped property folders); any folder with content='properties' is one too.
# psc, pscr and every other folder hold name/value pairs that are not properties.
PROPERTY_FOLDERS = frozenset({"jms", "mcd", "mq_usr", "sib", "sib_context", "sib_usr", "usr",
                              "ibm", "mq", "mqema", "mqext", "mqps", "mq_svc", "mqtt"})
_JOIN_ORDER = ("usr", "mcd", "jms", "mq", "mqext")
USR = "usr"

MAX_NAME = C.MQ_MAX_PROPERTY_NAME_LENGTH  # 4095

# --------------------------------------------------------------------------------------------------
# Value text <-> Python values
# --------------------------------------------------------------------------------------------------

_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                         r"|[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_HEX_TEXT = re.compile(r"(?:[0-9A-Fa-f]{2})*")
_XML_WS = " \t\r\n"


def _err(detail: str, offset: int | None = None) -> CodecError:
    return CodecError(FOLDER_REASON, family=_MQRC, offset=offset, detail=f"NameValueData: {detail}")


def _float32(value: float) -> float | None:
    """``value`` rounded to the nearest float32; None when it does not fit."""
    try:
        return _F32.unpack(_F32.pack(value))[0]
    except OverflowError:
        return None


def decode_value(dt: str | None, text: str) -> tuple[str, object]:
    """(type, value) of an element's text under its ``dt`` attribute.  CodecError when it does not parse.

    A ``dt`` qmlite does not know is kept: the type is the dt text itself and the value the text (IBM's
    MQIMPO TypeString reports such a dt; the property is still there).
    """
    if dt is None:
        return STRING, text
    dt = dt.strip(_XML_WS)
    if dt == STRING:
        return STRING, text
    if dt == BYTES:
        hex_text = text.strip(_XML_WS)
        if _HEX_TEXT.fullmatch(hex_text) is None:
            raise _err(f"bin.hex value {text[:40]!r} is not pairs of hex digits")
        return BYTES, bytes.fromhex(hex_text)
    if dt == "int" or dt in _INT_RANGE:
        kind = INT64 if dt == "int" else dt
        num = text.strip(_XML_WS)
        if len(num) > 24 or _INT_TEXT.fullmatch(num) is None:
            raise _err(f"{dt} value {text[:40]!r} is not an integer")
        value = int(num)
        low, high = _INT_RANGE[kind]
        if not low <= value <= high:
            raise _err(f"{dt} value {value} out of range")
        return kind, value
    if dt == BOOLEAN:
        word = text.strip(_XML_WS).lower()
        if word in ("1", "true"):
            return BOOLEAN, True
        if word in ("0", "false"):
            return BOOLEAN, False
        raise _err(f"boolean value {text[:40]!r}")
    if dt in (FLOAT32, FLOAT64):
        num = text.strip(_XML_WS)
        if len(num) > 64 or _FLOAT_TEXT.fullmatch(num) is None:
            raise _err(f"{dt} value {text[:40]!r} is not a number")
        value: float | None = float(num)
        if dt == FLOAT32:
            value = _float32(value)  # type: ignore[arg-type]
            if value is None:
                raise _err(f"r4 value {num!r} out of range")
        return dt, value
    return dt, text  # unknown dt: kept as text, its name as the type


def float_text(value: float, kind: str) -> str:
    """A float property's text: NaN/Infinity by name, FLOAT32 as the shortest text that reads back the same."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if kind == FLOAT32:
        for digits in range(6, 10):  # the shortest text that reads back as the same float32
            text = f"{value:.{digits}g}"
            if _float32(float(text)) == value:
                return text
    return repr(value)


def _escape(text: str) -> str:
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _escape_attr(text: str) -> str:
    return _escape(text).replace("'", "&apos;")


def encode_value(kind: str, value: object) -> str:
    """The element text for a value already checked by :func:`_coerce` (NULL has no text)."""
    if kind == STRING:
        return _escape(value)  # type: ignore[arg-type]
    if kind == BOOLEAN:
        return "1" if value else "0"
    if kind in _INT_RANGE:
        return str(value)
    if kind in (FLOAT32, FLOAT64):
        return float_text(value, kind)  # type: ignore[arg-type]
    if kind == BYTES:
        return value.hex().upper()  # type: ignore[union-attr]
    if kind == NULL:
        return ""
    return _escape(str(value))  # an unknown dt read from the wire


def _coerce(value: object, kind: str | None) -> tuple[str, object]:
    """(type, value) for :meth:`Properties.set`: infer the type, check the value.  ValueError if wrong."""
    if kind is None:
        if value is None:
            return NULL, None
        if isinstance(value, bool):
            return BOOLEAN, value
        if isinstance(value, int):
            kind = INT64
        elif isinstance(value, float):
            return FLOAT64, value
        elif isinstance(value, str):
            return STRING, value
        elif isinstance(value, (bytes, bytearray, memoryview)):
            return BYTES, bytes(value)
        else:
            raise ValueError(f"no MQ property type for {type(value).__name__}")
    if kind == NULL:
        if value is not None:
            raise ValueError("a NULL property has the value None")
        return NULL, None
    if kind == STRING:
        if not isinstance(value, str):
            raise ValueError(f"string property needs str, got {type(value).__name__}")
        return STRING, value
    if kind == BOOLEAN:
        if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
            return BOOLEAN, bool(value)
        raise ValueError(f"boolean property needs a bool, got {value!r}")
    if kind in _INT_RANGE:
        if not isinstance(value, int):
            raise ValueError(f"{kind} property needs an int, got {type(value).__name__}")
        low, high = _INT_RANGE[kind]
        if not low <= value <= high:
            raise ValueError(f"{kind} value {value} out of range {low}..{high}")
        return kind, int(value)
    if kind in (FLOAT32, FLOAT64):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{kind} property needs a float, got {type(value).__name__}")
        number: float | None = float(value)
        if kind == FLOAT32:
            number = _float32(number)  # type: ignore[arg-type]
            if number is None:
                raise ValueError(f"r4 value {value!r} out of range")
        return kind, number
    if kind == BYTES:
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise ValueError(f"bin.hex property needs bytes, got {type(value).__name__}")
        return BYTES, bytes(value)
    raise ValueError(f"unknown property type {kind!r}")


# --------------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------------

_PART = re.compile(r"[^\W\d][\w\-]*")  # an element name: letter or _, then letters, digits, _ and -
_SQL_WORDS = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS",
                        "ESCAPE"})


def check_name(name: str) -> str | None:
    """Why ``name`` is not a property name a caller may set (IBM "Property name restrictions"), or None.

    Checked: non-empty ``.``-separated parts that are element names; at most MQ_MAX_PROPERTY_NAME_LENGTH
    characters; not an SQL keyword (bare or after ``usr.``); not beginning ``JMS``/``usr.JMS`` (qmlite
    models no JMS synonyms), ``Body`` or ``Root``; at most one ``.`` in a name beginning ``mq`` (any
    case) other than ``mq_usr``.
    """
    if not isinstance(name, str) or not name:
        return "empty property name"
    if len(name) > MAX_NAME:
        return f"property name longer than {MAX_NAME} characters"
    parts = name.split(".")
    for part in parts:
        if _PART.fullmatch(part) is None:
            return f"property name {name!r}: {part!r} is not an element name"
    bare = name[4:] if parts[0] == USR and len(parts) > 1 else name
    if bare.upper() in _SQL_WORDS:
        return f"property name {name!r} is an SQL keyword"
    if bare.startswith("JMS"):
        return f"property name {name!r}: JMS names are reserved"
    if name.startswith(("Body", "Root")):
        return f"property name {name!r}: Body and Root are reserved"
    lower = parts[0].lower()
    if lower.startswith("mq") and lower != "mq_usr" and len(parts) > 2:
        return f"property name {name!r}: a name beginning mq has at most one '.'"
    return None


def _normal(name: str) -> str:
    """``usr.X`` is the same property as ``X``."""
    return name[4:] if name.startswith("usr.") else name


def _folder_of(name: str) -> str:
    dot = name.find(".")
    return USR if dot < 0 else name[:dot]


def _path_in(name: str, folder: str) -> list[str]:
    """The element path of property ``name`` inside ``folder``."""
    return (name if folder == USR else name[len(folder) + 1:]).split(".")


# --------------------------------------------------------------------------------------------------
# The property model
# --------------------------------------------------------------------------------------------------


class Property(NamedTuple):
    """A property value with its MQ type (one of :data:`TYPES`, or an unknown ``dt`` read from the wire)."""

    type: str
    value: object


def _same(a: tuple, b: tuple) -> bool:
    if a[0] != b[0]:
        return False
    x, y = a[1], b[1]
    if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
        return True
    return x == y


class Properties:
    """Ordered mapping property name -> :class:`Property`; each property remembers its MQRFH2 folder.

    ``props[name]`` and ``get`` return a :class:`Property`; :meth:`values_for_selectors` the plain values.
    The folder of a property set by name is the part before the first ``.`` (``usr`` when there is none);
    a property read from a ``usr`` group (``<usr><a><b>1</b></a></usr>`` -> ``a.b``) keeps ``usr``.
    """

    __slots__ = ("_d",)

    def __init__(self, values=None) -> None:
        self._d: dict[str, tuple[str, object, str]] = {}
        if values:
            pairs = values.items() if hasattr(values, "items") else values
            for name, value in pairs:
                self.set(name, value)

    # -- mapping -----------------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Property:
        kind, value, _folder = self._d[_normal(name)]
        return Property(kind, value)

    def get(self, name: str, default=None):
        entry = self._d.get(_normal(name))
        return default if entry is None else Property(entry[0], entry[1])

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and _normal(name) in self._d

    def __len__(self) -> int:
        return len(self._d)

    def __bool__(self) -> bool:
        return bool(self._d)

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def keys(self) -> Iterator[str]:
        return iter(self._d)

    def items(self) -> Iterator[tuple[str, Property]]:
        for name, (kind, value, _folder) in self._d.items():
            yield name, Property(kind, value)

    def folder(self, name: str) -> str:
        """The MQRFH2 folder ``name`` lives in (KeyError when absent)."""
        return self._d[_normal(name)][2]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Properties):
            return NotImplemented
        if self._d.keys() != other._d.keys():
            return False
        return all(_same(entry, other._d[name]) for name, entry in self._d.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{name!r}: {kind}={value!r}" for name, (kind, value, _f) in self._d.items())
        return f"Properties({{{inner}}})"

    def copy(self) -> Properties:
        new = Properties()
        new._d = dict(self._d)
        return new

    def snapshot(self) -> tuple:
        """Every property with its type and folder, in order: equal snapshots render the same MQRFH2."""
        return tuple(self._d.items())

    # -- changing ----------------------------------------------------------------------------------
    def set(self, name: str, value: object, type: str | None = None) -> None:  # noqa: A002 (MQ's word)
        """Set ``name`` to ``value`` of MQ ``type`` (inferred when None: None NULL, bool boolean, int i8,
        float r8, str string, bytes bin.hex).  ValueError for a bad name, type or value."""
        problem = check_name(name)
        if problem is not None:
            raise ValueError(problem)
        kind, checked = _coerce(value, type)
        key = _normal(name)
        old = self._d.get(key)
        if old is not None:
            folder = old[2]  # a property read from a usr group keeps its folder
        else:
            folder = USR if name.startswith("usr.") else _folder_of(key)
        self._d[key] = (kind, checked, folder)

    def delete(self, name: str) -> None:
        """Remove ``name``; KeyError when absent."""
        del self._d[_normal(name)]

    def _put(self, name: str, kind: str, value: object, folder: str) -> None:
        """A property read from the wire: no name or value checks (the parser made them)."""
        self._d[name] = (kind, value, folder)

    def put_known(self, name: str, kind: str, value: object, folder: str) -> None:
        """Set a property whose name, type and value the caller vouches for (a queue manager's own
        ``mqps.Top``), without ``set``'s checks: it runs for every copy of every publication."""
        self._d[name] = (kind, value, folder)

    def values_for_selectors(self) -> dict[str, object]:
        """name -> Python value (None for NULL, bytes for bin.hex), for evaluating selection strings."""
        return {name: entry[1] for name, entry in self._d.items()}

    def _by_folder(self) -> dict[str, list[tuple[list[str], str, object]]]:
        groups: dict[str, list[tuple[list[str], str, object]]] = {}
        for name, (kind, value, folder) in self._d.items():
            groups.setdefault(folder, []).append((_path_in(name, folder), kind, value))
        order = [f for f in _JOIN_ORDER if f in groups] + [f for f in groups if f not in _JOIN_ORDER]
        return {f: groups[f] for f in order}


# --------------------------------------------------------------------------------------------------
# Folder text: parse
# --------------------------------------------------------------------------------------------------

_NAME = re.compile(r"[^\W\d][\w.\-:]*")  # element and attribute names as the parser accepts them
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_DEC_REF = re.compile(r"#[0-9]{1,7}")
_HEX_REF = re.compile(r"#[xX][0-9A-Fa-f]{1,6}")


class Folder(NamedTuple):
    """One parsed NameValueData string: folder name, its leaf elements, the folder tag's attributes.

    ``items`` are ``(name, type, value)`` with ``name`` relative to the folder, groups joined by ``.``.
    """

    name: str
    items: list[tuple[str, str, object]]
    attributes: dict[str, str]

    @property
    def is_properties(self) -> bool:
        """Whether the folder's elements are message properties."""
        return self.name in PROPERTY_FOLDERS or self.attributes.get("content") == "properties"


def _unescape(text: str, offset: int) -> str:
    if "&" not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        amp = text.find("&", pos)
        if amp < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:amp])
        semi = text.find(";", amp + 1, amp + 12)
        if semi < 0:
            raise _err("'&' that starts no entity", offset + amp)
        ref = text[amp + 1:semi]
        char = _ENTITIES.get(ref)
        if char is None:
            if _HEX_REF.fullmatch(ref):
                code = int(ref[2:], 16)
            elif _DEC_REF.fullmatch(ref):
                code = int(ref[1:])
            else:
                raise _err(f"unknown entity &{ref};", offset + amp)
            if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise _err(f"character reference &{ref}; is not a character", offset + amp)
            char = chr(code)
        out.append(char)
        pos = semi + 1


def _skip_ws(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in _XML_WS:
        pos += 1
    return pos


def _start_tag(text: str, lt: int) -> tuple[str, dict[str, str], bool, int]:
    """Parse the start tag at ``text[lt] == '<'``: (name, attributes, self-closing, position after)."""
    m = _NAME.match(text, lt + 1)
    if m is None:
        raise _err("expected an element name after '<'", lt)
    name = m.group()
    attrs: dict[str, str] = {}
    pos = m.end()
    n = len(text)
    while True:
        at = _skip_ws(text, pos)
        if at >= n:
            raise _err(f"tag <{name} is not closed", lt)
        c = text[at]
        if c == ">":
            return name, attrs, False, at + 1
        if c == "/":
            if text.startswith("/>", at):
                return name, attrs, True, at + 2
            raise _err(f"'/' inside tag <{name}", at)
        if at == pos:
            raise _err(f"attribute of <{name} not preceded by a blank", at)
        m = _NAME.match(text, at)
        if m is None:
            raise _err(f"bad attribute in <{name}", at)
        attr = m.group()
        eq = _skip_ws(text, m.end())
        if eq >= n or text[eq] != "=":
            raise _err(f"attribute {attr} of <{name} has no '='", eq)
        quote_at = _skip_ws(text, eq + 1)
        if quote_at >= n or text[quote_at] not in "'\"":
            raise _err(f"attribute {attr} of <{name} is not quoted", quote_at)
        close = text.find(text[quote_at], quote_at + 1)
        if close < 0:
            raise _err(f"attribute {attr} of <{name} is not closed", quote_at)
        raw = text[quote_at + 1:close]
        if "<" in raw:
            raise _err(f"'<' in attribute {attr} of <{name}", quote_at)
        if attr in attrs:
            raise _err(f"attribute {attr} twice in <{name}", at)
        attrs[attr] = _unescape(raw, quote_at + 1)
        pos = close + 1


def _leaf(name: str, attrs: dict[str, str], text: str, offset: int) -> tuple[str, str, object]:
    nil = attrs.get("xsi:nil")
    if nil is not None and nil.strip(_XML_WS) in ("true", "1"):
        return name, NULL, None
    try:
        kind, value = decode_value(attrs.get("dt"), text)
    except CodecError as exc:
        raise CodecError(FOLDER_REASON, family=_MQRC, offset=offset,
                         detail=f"{exc.detail} (element {name})") from None
    return name, kind, value


def _spend(budget: int, name: str, offset: int) -> int:
    budget -= len(name)
    if budget < 0:
        raise _err("property names longer in all than the folder allows", offset)
    return budget


def parse_folder(text: str) -> Folder:
    """One NameValueData string -> :class:`Folder`.  Raises only CodecError (MQRC_RFH_ERROR).

    An element either holds text (a property or name/value pair) or other elements (a group); text beside
    elements, unclosed or mismatched tags, bad entities, ``<?``/``<!DOCTYPE``, values that do not parse
    under their ``dt``, and anything after the folder's end tag (other than blanks) are errors.
    """
    if not isinstance(text, str):
        raise _err(f"folder text must be str, got {type(text).__name__}")
    n = len(text)
    pos = _skip_ws(text, 0)
    if pos >= n or text[pos] != "<" or text.startswith(("</", "<!", "<?"), pos):
        raise _err("expected a folder start tag", pos)
    folder, folder_attrs, empty, pos = _start_tag(text, pos)
    items: list[tuple[str, str, object]] = []
    budget = 8 * n + 65536  # characters of leaf names this folder may produce (groups share them)
    if not empty:
        # open elements below the folder: [name, attributes, text pieces, holds elements, name prefix]
        stack: list[list] = []
        root_text: list[str] = []
        while True:
            lt = text.find("<", pos)
            if lt < 0:
                open_name = stack[-1][0] if stack else folder
                raise _err(f"<{open_name}> is not closed", pos)
            if lt > pos:
                (stack[-1][2] if stack else root_text).append(_unescape(text[pos:lt], pos))
            if text.startswith("</", lt):
                m = _NAME.match(text, lt + 2)
                if m is None:
                    raise _err("bad end tag", lt)
                gt = _skip_ws(text, m.end())
                if gt >= n or text[gt] != ">":
                    raise _err(f"end tag </{m.group()} is not closed", lt)
                pos = gt + 1
                want = stack[-1][0] if stack else folder
                if m.group() != want:
                    raise _err(f"</{m.group()}> closes <{want}>", lt)
                if not stack:
                    if "".join(root_text).strip(_XML_WS):
                        raise _err(f"text directly inside folder <{folder}>", lt)
                    break
                name, attrs, pieces, group, full = stack.pop()
                value_text = "".join(pieces)
                if group:
                    if value_text.strip(_XML_WS):
                        raise _err(f"<{name}> holds both text and elements", lt)
                else:
                    budget = _spend(budget, full, lt)
                    items.append(_leaf(full, attrs, value_text, lt))
            elif text.startswith("<!--", lt):
                end = text.find("-->", lt + 4)
                if end < 0:
                    raise _err("comment is not closed", lt)
                pos = end + 3
            elif text.startswith("<![CDATA[", lt):
                end = text.find("]]>", lt + 9)
                if end < 0:
                    raise _err("CDATA section is not closed", lt)
                (stack[-1][2] if stack else root_text).append(text[lt + 9:end])
                pos = end + 3
            elif text.startswith(("<!", "<?"), lt):
                raise _err("declarations and processing instructions are not allowed", lt)
            else:
                name, attrs, empty, pos = _start_tag(text, lt)
                if stack:
                    stack[-1][3] = True
                    full = stack[-1][4] + "." + name
                else:
                    full = name
                if len(full) > MAX_NAME:  # also bounds the depth, so the open prefixes' total size
                    raise _err(f"property name longer than {MAX_NAME} characters", lt)
                if empty:
                    budget = _spend(budget, full, lt)
                    items.append(_leaf(full, attrs, "", lt))
                else:
                    stack.append([name, attrs, [], False, full])
    end = _skip_ws(text, pos)
    if end != n and text[end:].strip(" \x00" + _XML_WS):
        raise _err(f"data after </{folder}>", end)
    return Folder(folder, items, folder_attrs)


# --------------------------------------------------------------------------------------------------
# Folder text: render
# --------------------------------------------------------------------------------------------------


def _element(name: str, kind: str, value: object) -> str:
    if kind == NULL:
        return f"<{name} xsi:nil='true'></{name}>"
    if kind == STRING:
        return f"<{name}>{_escape(value)}</{name}>"  # type: ignore[arg-type]
    return f"<{name} dt='{_escape_attr(kind)}'>{encode_value(kind, value)}</{name}>"


def _render(folder: str, attributes: dict[str, str] | None, entries) -> str:
    """entries: (path parts, type, value) with values already checked."""
    attr_text = "".join(f" {k}='{_escape_attr(v)}'" for k, v in (attributes or {}).items())
    out = [f"<{folder}{attr_text}>"]
    open_groups: list[str] = []
    for path, kind, value in entries:
        groups = path[:-1]
        keep = 0
        while keep < len(open_groups) and keep < len(groups) and open_groups[keep] == groups[keep]:
            keep += 1
        for group in reversed(open_groups[keep:]):
            out.append(f"</{group}>")
        del open_groups[keep:]
        for group in groups[keep:]:
            out.append(f"<{group}>")
            open_groups.append(group)
        out.append(_element(path[-1], kind, value))
    for group in reversed(open_groups):
        out.append(f"</{group}>")
    out.append(f"</{folder}>")
    return "".join(out)


def render_folder(name: str, items: Iterable[tuple[str, str, object]],
                  attributes: dict[str, str] | None = None) -> str:
    """The compact NameValueData text for ``items`` (``(name, type, value)``, names relative to the
    folder with groups joined by ``.``).  ValueError for a bad name, type or value."""
    if _NAME.fullmatch(name or "") is None:
        raise ValueError(f"bad folder name {name!r}")
    for attr in attributes or {}:
        if _NAME.fullmatch(attr) is None:
            raise ValueError(f"bad attribute name {attr!r}")
    entries = []
    for item_name, kind, value in items:
        path = item_name.split(".") if isinstance(item_name, str) else [""]
        if any(_NAME.fullmatch(part) is None for part in path):
            raise ValueError(f"bad element name {item_name!r}")
        if kind is None or kind in TYPES:
            kind, value = _coerce(value, kind)
        elif not isinstance(value, str) or _NAME.fullmatch(kind or "") is None:
            raise ValueError(f"unknown property type {kind!r}")
        entries.append((path, kind, value))
    return _render(name, attributes, entries)


def _render_properties(props: Properties) -> list[str]:
    texts = []
    for folder, entries in props._by_folder().items():
        attributes = None if folder in PROPERTY_FOLDERS else {"content": "properties"}
        texts.append(_render(folder, attributes, entries))
    return texts


# --------------------------------------------------------------------------------------------------
# Message data: split and join
# --------------------------------------------------------------------------------------------------

_RF2 = C.MQFMT_RF_HEADER_2.rstrip()  # 'MQHRF2'
_RF1 = C.MQFMT_RF_HEADER_1.rstrip()  # 'MQHRF'
_VERSION = {"<": struct.Struct("<i"), ">": struct.Struct(">i")}


@dataclass(slots=True)
class Split:
    """Message data with its MQRFH2/MQRFH headers taken off the front.

    ``fmt``/``encoding``/``ccsid`` describe ``body`` (the last header's Format, Encoding and
    CodedCharSetId; the caller's values when there was no header).  ``folders`` are the NameValueData
    strings of RFH2 folders that are not property folders (psc, pscr, unknown ones), in order, so that
    ``join(s.properties, s.body, s.fmt, s.encoding, s.ccsid, folders_extra=s.folders)`` rebuilds an
    equivalent message (MQRFH v1 headers are in ``headers`` only).
    """

    properties: Properties
    headers: list = field(default_factory=list)
    body: bytes = b""
    fmt: str = ""
    encoding: int = C.MQENC_NATIVE
    ccsid: int = C.MQCCSI_Q_MGR
    folders: list[str] = field(default_factory=list)


def _header_codec(ccsid: int) -> str:
    codec = codec_for_ccsid(ccsid)
    if codec is None or codec.startswith("utf-16"):
        return "latin-1"  # header fields are single-byte; StrucId and Format are ASCII names
    return codec


def _guess_order(data, pos: int) -> str:
    """The byte order in which the Version field at ``pos + 4`` reads as 1 or 2 (Encoding undefined)."""
    if len(data) - pos >= 8:
        for order in ("<", ">"):
            if _VERSION[order].unpack_from(data, pos + 4)[0] in (1, 2):
                return order
    return "<"


def split(data, fmt: str, encoding: int, ccsid: int) -> Split:
    """Take every MQRFH2 (and MQRFH) off the front of ``data``, following the Format chain.

    ``fmt``/``encoding``/``ccsid`` describe ``data`` (the MQMD's Format, Encoding, CodedCharSetId).  Only
    MQRFH2 folders give properties; an MQRFH (v1) is kept in ``headers`` unparsed.  A header's integers
    are in the order of the Encoding that describes it (the read order is guessed from its Version when
    that Encoding's integer part is undefined); CodedCharSetId MQCCSI_INHERIT (-2) means the header's own.
    When ``fmt`` is not an RFH format the data comes back unchanged (the same object, nothing copied).
    Raises only CodecError.
    """
    current = fmt.rstrip(" \x00") if isinstance(fmt, str) else ""
    if current != _RF2 and current != _RF1:
        return Split(Properties(), [], data, fmt, encoding, ccsid, [])
    props = Properties()
    headers: list = []
    folders: list[str] = []
    pos = 0
    while current == _RF2 or current == _RF1:
        order = order_of_encoding(encoding) or _guess_order(data, pos)
        codec = _header_codec(ccsid)
        if current == _RF2:
            header, end = MQRFH2.unpack(data, pos, order, codec)
            for text in header.Folders:
                if text.strip(_XML_WS):
                    _collect(parse_folder(text), props, folders, text)
        else:
            header, end = MQRFH.unpack(data, pos, order, codec)
        headers.append(header)
        pos = end
        current = header.Format
        encoding = header.Encoding
        if header.CodedCharSetId != C.MQCCSI_INHERIT:
            ccsid = header.CodedCharSetId
    return Split(props, headers, bytes(data[pos:]), current, encoding, ccsid, folders)


def _collect(folder: Folder, props: Properties, others: list[str], text: str) -> None:
    if not folder.is_properties:
        others.append(text)
        return
    name = folder.name
    for item_name, kind, value in folder.items:
        full = item_name if name == USR else f"{name}.{item_name}"
        if len(full) > MAX_NAME:
            raise _err(f"property name longer than {MAX_NAME} characters")
        props._put(full, kind, value, name)


def join(properties: Properties | None, body, fmt: str, encoding: int, ccsid: int, *,
         folders_extra: Iterable[str] = ()) -> tuple[bytes, str]:
    """Put one MQRFH2 carrying ``properties`` (and the raw ``folders_extra``) in front of ``body``.

    ``fmt``/``encoding``/``ccsid`` describe ``body``; they go into the MQRFH2, whose own integers are
    written in the order of ``encoding`` (little-endian when undefined) and NameValueCCSID is 1208.  The
    caller keeps its Encoding and CodedCharSetId for the whole message and sets the returned Format
    (``'MQHRF2  '``).  Folders come in the order usr, mcd, jms, mq, mqext, then the others as first seen;
    a folder outside IBM's property folders is written with ``content='properties'``.  With no properties
    and no extra folders, ``(body, fmt)`` comes back unchanged.  ValueError when a value cannot be written.
    """
    extra = list(folders_extra)
    if not properties and not extra:
        return body, fmt
    texts = _render_properties(properties) if properties else []
    header = MQRFH2(Encoding=encoding, CodedCharSetId=ccsid, Format=fmt.rstrip(" \x00"),
                    Flags=C.MQRFH_NO_FLAGS, NameValueCCSID=1208, Folders=texts + extra)
    order = order_of_encoding(encoding) or "<"
    return header.pack(order, "latin-1") + bytes(body), C.MQFMT_RF_HEADER_2


# --------------------------------------------------------------------------------------------------
# MQRFH (version 1) NameValueString
# --------------------------------------------------------------------------------------------------

_NVS_BLANKS = " \t\r\n"


def _nvs_err(detail: str, offset: int) -> CodecError:
    return CodecError(NVS_REASON, family=_MQRC, offset=offset, detail=f"NameValueString: {detail}")


def parse_name_value_string(text: str) -> list[tuple[str, str]]:
    """``name value name value ...`` -> [(name, value)], in order, repeats kept.  CodecError 2335.

    Tokens are separated by blanks; a token in double quotes keeps its blanks and a doubled ``""`` inside
    stands for one ``"`` (IBM's MQRC_RFH_STRING_ERROR page).  Single quotes are accepted the same way.  A
    NUL ends the string.
    """
    if not isinstance(text, str):
        raise _nvs_err(f"text must be str, got {type(text).__name__}", 0)
    nul = text.find("\0")
    if nul >= 0:
        text = text[:nul]
    tokens: list[str] = []
    n = len(text)
    pos = 0
    while True:
        while pos < n and text[pos] in _NVS_BLANKS:
            pos += 1
        if pos >= n:
            break
        quote = text[pos]
        if quote in "\"'":
            pieces = []
            at = pos + 1
            while True:
                close = text.find(quote, at)
                if close < 0:
                    raise _nvs_err("quoted token is not closed", pos)
                pieces.append(text[at:close])
                if close + 1 < n and text[close + 1] == quote:
                    pieces.append(quote)
                    at = close + 2
                    continue
                break
            end = close + 1
            if end < n and text[end] not in _NVS_BLANKS:
                raise _nvs_err("no blank after a closing quote", end)
            tokens.append("".join(pieces))
            pos = end
        else:
            end = pos
            while end < n and text[end] not in _NVS_BLANKS:
                end += 1
            token = text[pos:end]
            if '"' in token:
                raise _nvs_err("a token containing '\"' must be quoted", pos)
            tokens.append(token)
            pos = end
    if len(tokens) % 2:
        raise _nvs_err(f"name {tokens[-1]!r} has no value", n)
    return list(zip(tokens[0::2], tokens[1::2]))


def _nvs_token(token: str) -> str:
    if not isinstance(token, str):
        raise ValueError(f"NameValueString tokens are str, got {type(token).__name__}")
    if "\0" in token:
        raise ValueError("a NameValueString token cannot contain NUL")
    if token and token[0] != "'" and not any(c in _NVS_BLANKS or c == '"' for c in token):
        return token
    return '"' + token.replace('"', '""') + '"'


def render_name_value_string(pairs: Iterable[tuple[str, str]]) -> str:
    """[(name, value)] -> ``name value ...``, quoting (``"``, doubled inside) what needs it."""
    return " ".join(f"{_nvs_token(name)} {_nvs_token(value)}" for name, value in pairs)
