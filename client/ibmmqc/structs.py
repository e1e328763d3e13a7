"""The structure checks the MQI verbs and MQCB share: which versions of a caller's MQMD, MQGMO and MQPMO
exist and how long each is, and the check that a buffer is one of them.

Its own module, below ``_mqi`` (MQPUT/MQGET) and ``consume`` (MQCB checks the MQMD and MQGMO it is
given), so that neither has to import the other.
"""

from __future__ import annotations

import sys

# Structure lengths by version: the MQMD and MQGMO are the same natively and on the wire (no
# pointers); the MQPMO's two pointers are 8 bytes natively and 4 on the wire.
MD_SIZES = {1: 324, 2: 364}
GMO_SIZES = {1: 72, 2: 80, 3: 100, 4: 112}
PMO_WIRE_SIZES = {1: 128, 2: 152, 3: 176}
PMO_NATIVE_SIZES = {1: 128, 2: 160, 3: 184}


class Bad(Exception):
    """A caller's structure (or value) the verb refuses with ``reason``."""

    def __init__(self, reason: int) -> None:
        self.reason = reason


def version(buf, strucid: bytes, reason: int, sizes: dict, native_sizes: dict | None = None) -> int:
    """The Version of the native structure ``buf`` (Bad(reason) unless it has ``strucid``, a known
    version, and at least that version's length)."""
    if not isinstance(buf, (bytes, bytearray)) or bytes(buf[0:4]) != strucid or len(buf) < 8:
        raise Bad(reason)
    found = int.from_bytes(buf[4:8], sys.byteorder, signed=True)
    need = (native_sizes or sizes).get(found)
    if need is None or len(buf) < need:
        raise Bad(reason)
    return found


def wire_version(buf, pos: int) -> int:
    """The Version of the (little-endian) wire structure at ``pos``; 0 when the buffer ends first."""
    return int.from_bytes(buf[pos + 4:pos + 8], "little", signed=True) if len(buf) >= pos + 8 else 0
