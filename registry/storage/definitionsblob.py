"""A registry's definitions as one blob: what the Spark pipeline ships to its executors.

``dump(reg)`` keeps what routing reads (the queue manager's name, subscriptions, topic objects,
queues; no messages) in marshal form, which loads fast and can never run code; ``load(blob)`` gives
back a read-only ``Registry`` built by the same loading code as a restart, so routing against a
snapshot, a data directory or the running queue manager is the same routing.
"""

from __future__ import annotations

import dataclasses
import marshal
import operator
from collections.abc import Iterator

from qmlite.registry.objects.definitions import Namelist, Process, Queue, Subscription, Topic
from qmlite.registry.storage.catalog import QueueManager, Registry
from qmlite.registry.storage.sqlite import SUBSCRIPTION_RECORD_2

FORMAT = 1
_SUB = operator.attrgetter(*SUBSCRIPTION_RECORD_2)
_TOPIC = operator.attrgetter(*(f.name for f in dataclasses.fields(Topic)))
_QUEUE = operator.attrgetter(*(f.name for f in dataclasses.fields(Queue)))


class SnapshotError(ValueError):
    pass


def dump(reg: Registry, subs=None) -> bytes:
    """The registry's definitions; ``subs``: only these subscriptions (a part of the set, routed apart)."""
    return marshal.dumps({
        "format": FORMAT, "qmgr": reg.qmgr.name, "dead_letter_queue": reg.qmgr.dead_letter_queue,
        "created": reg.qmgr.created,
        "subscriptions": [_SUB(s) for s in (reg.subs.values() if subs is None else subs)],
        "topics": [_TOPIC(t) for t in reg.topics.values()],
        "queues": [_QUEUE(q) for q in reg.queues.values()],
    }, 4)


class _SnapshotStore:
    """What ``Registry._load_definitions`` reads, served from a snapshot."""

    def __init__(self, data: dict) -> None:
        self._data = data

    def load(self, cls: type) -> Iterator:
        if cls is Subscription:
            return (Subscription(*row) for row in self._data["subscriptions"])
        if cls is Topic:
            return (Topic(*row) for row in self._data["topics"])
        if cls is Queue:
            return (Queue(*row) for row in self._data["queues"])
        if cls in (Namelist, Process):
            return iter(())
        raise SnapshotError(f"a snapshot holds no {cls.__name__}")

    def load_retained(self) -> Iterator:
        return iter(())

    def load_generic(self, kind) -> Iterator:
        return iter(())  # routing needs no generic kinds (channels, authority records, ...)


def load(blob: bytes) -> Registry:
    try:
        data = marshal.loads(blob)
    except (EOFError, ValueError, TypeError) as exc:
        raise SnapshotError(f"not a registry snapshot: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SnapshotError("not a registry snapshot of format 1")
    qmgr = QueueManager(data["qmgr"], data["created"], data["dead_letter_queue"])
    reg = Registry(_SnapshotStore(data), qmgr)  # type: ignore[arg-type]
    reg._load_definitions()
    return reg
