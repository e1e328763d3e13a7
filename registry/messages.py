"""Messages held on local queues: priority then FIFO order, MsgId/CorrelId matching.

The registry owns the definitions; this owns the contents.  Kept separate so the command engine can
report depths, clear and drop queues while the MQI layer puts and gets.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from collections.abc import Iterator


@dataclasses.dataclass(slots=True)
class Message:
    md: object  # the stored MQMD (qmlite.pcf.mqi.MQMD)
    data: bytes
    priority: int
    msg_id: bytes
    correl_id: bytes
    put_time: float
    expires_at: float | None = None
    seq: int = 0


class QueueContents:
    __slots__ = ("_by_priority",)

    def __init__(self) -> None:
        self._by_priority: dict[int, list[Message]] = {}

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_priority.values())

    def add(self, msg: Message) -> None:
        self._by_priority.setdefault(msg.priority, []).append(msg)

    def restore(self, msg: Message) -> None:
        """Put a message back where it was (a backed-out get): FIFO position by its sequence number."""
        bucket = self._by_priority.setdefault(msg.priority, [])
        bucket.insert(bisect.bisect([m.seq for m in bucket], msg.seq), msg)

    def __iter__(self) -> Iterator[Message]:
        """Delivery order: highest priority first, FIFO within a priority."""
        for prio in sorted(self._by_priority, reverse=True):
            yield from list(self._by_priority[prio])

    def remove(self, msg: Message) -> None:
        bucket = self._by_priority[msg.priority]
        bucket.remove(msg)
        if not bucket:
            del self._by_priority[msg.priority]

    def expire(self, now: float) -> int:
        gone = [m for m in self if m.expires_at is not None and m.expires_at <= now]
        for m in gone:
            self.remove(m)
        return len(gone)


class MessageStore:
    def __init__(self) -> None:
        self._queues: dict[str, QueueContents] = {}
        self._seq = itertools.count()

    def contents(self, queue: str) -> QueueContents:
        q = self._queues.get(queue)
        if q is None:
            q = self._queues[queue] = QueueContents()
        return q

    def put(self, queue: str, msg: Message) -> None:
        msg.seq = next(self._seq)
        self.contents(queue).add(msg)

    def restore(self, queue: str, msg: Message) -> None:
        self.contents(queue).restore(msg)

    def depth(self, queue: str) -> int:
        q = self._queues.get(queue)
        return len(q) if q is not None else 0

    def clear(self, queue: str) -> int:
        q = self._queues.pop(queue, None)
        return len(q) if q is not None else 0

    def drop(self, queue: str) -> None:
        self._queues.pop(queue, None)
