"""Request bodies, read under a limit as they arrive: the one reader every REST endpoint that takes a
body goes through (docs/rest.md "Request bodies", docs/decisions.md RB1-RB6).

A body announced longer than the limit by its Content-Length is refused before a byte of it is read;
a chunked one is refused as soon as what has arrived passes the limit.  Either way the app answers at
once and hypercorn, seeing the request unfinished, closes the connection rather than read the rest,
so what the server holds of a hostile body stays bounded by the limit.  A JSON body is also refused
when it nests deeper than MAX_JSON_DEPTH, found by a linear scan before ``json.loads`` (whose C
scanner recurses once per level and would otherwise end in a RecursionError)."""

from __future__ import annotations

import array
import itertools
import json
import re
from collections.abc import Callable

from starlette.requests import Request

from . import errors

# Arrays and objects inside one another: the REST bodies qmlite takes nest 4 deep at most
# (runCommandPCF: body, parameters, a group's list, a group); 64 leaves room and keeps far from
# Python's recursion limit in json.loads and in anything that walks the value afterwards (RB4).
MAX_JSON_DEPTH = 64

# A JSON string, escapes included; one never closed runs to the end of the text, where json.loads stops
# with its error anyway (and no text is ever scanned twice: no quadratic work on a hostile body).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 and -1 as signed bytes


async def read(request: Request, limit: int, refuse: Callable[[], errors.RestError]) -> bytes:
    """The request's body, at most ``limit`` bytes; ``refuse()`` is raised, before anything more is
    read, as soon as the Content-Length or the bytes received so far pass it."""
    length = request.headers.get("content-length", "")
    # h11 refuses a malformed one (400); a number of thousands of digits would not even convert (int's limit)
    if length.isdigit() and (len(length) > 18 or int(length) > limit):
        raise refuse()
    received = bytearray()
    async for chunk in request.stream():
        received += chunk
        if len(received) > limit:
            raise refuse()
    return bytes(received)


def too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep in ``text``, brackets inside strings not
    counted.  Where the text is not JSON the count can only be higher than the depth ``json.loads``
    reaches before its error (the two read strings alike up to that point), never lower."""
    if text.count("[") + text.count("{") <= limit:
        return False  # too few to nest too deep: no scan (every ordinary body)
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii").translate(_STEPS)
    return max(itertools.accumulate(array.array("b", brackets)), default=0) > limit


def json_value(body: bytes) -> object:
    """A JSON body as a value (an empty body is ``None``); anything else is IBM's 400 error JSON."""
    try:
        text = body.decode("utf-8-sig")  # RFC 8259: JSON between systems is UTF-8 (a BOM is tolerated)
    except UnicodeDecodeError as exc:
        raise errors.bad_request(f"The request body is not valid JSON: {exc}.") from None
    if too_deep(text):
        raise errors.bad_request(f"The request body is not valid JSON: arrays and objects nest deeper than "
                                 f"{MAX_JSON_DEPTH} levels.")
    try:
        return json.loads(text or "null")
    except ValueError as exc:
        raise errors.bad_request(f"The request body is not valid JSON: {exc}.") from None


async def read_json(request: Request, limit: int) -> object:
    """A JSON body read under ``limit`` bytes (413 when longer) and parsed (400 when not JSON)."""
    return json_value(await read(request, limit, lambda: errors.body_too_large(limit)))
