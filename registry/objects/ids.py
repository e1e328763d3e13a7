"""Identifiers in the formats a real queue manager uses (docs/reference/pcf.md section 10, docs/reference/fap.md
sections 11.3, 15.4).

SubId and MsgId: ``AMQ `` + queue-manager name blank-padded to 12 + 8 bytes; ConnectionId the same
with ``AMQC``.  The 8 bytes are a 4-byte little-endian start time and a 4-byte little-endian counter,
which is what every real example decodes to; dynamic queue names end in the same 8 bytes as 16
upper-case hex digits (``SYSTEM.MANAGED.DURABLE.52A89FE520020903``).  Uniqueness across restarts
comes from the start time: a restarted queue manager has a later one.
"""

from __future__ import annotations

import itertools
import struct
import time

_TAIL = struct.Struct("<II")


class IdGenerator:
    def __init__(self, qmgr_name: str, start_time: int | None = None) -> None:
        name = qmgr_name.encode("ascii", "replace")[:12].ljust(12, b" ")
        self._amq = b"AMQ " + name
        self._amqc = b"AMQC" + name
        self.start_time = int(time.time()) if start_time is None else start_time
        self._counter = itertools.count(1)

    def _tail(self) -> bytes:
        return _TAIL.pack(self.start_time & 0xFFFFFFFF, next(self._counter) & 0xFFFFFFFF)

    def sub_id(self) -> bytes:
        return self._amq + self._tail()

    def msg_id(self) -> bytes:
        return self._amq + self._tail()

    def connection_id(self) -> bytes:
        return self._amqc + self._tail()

    def dynamic_suffix(self) -> str:
        return self._tail().hex().upper()

    def dynamic_name(self, template: str) -> str:
        """Apply MQ's DynamicQName rule: a trailing "*" becomes a unique suffix; 48 characters at most."""
        if template.endswith("*"):
            return (template[:-1] + self.dynamic_suffix())[:48]
        return template
