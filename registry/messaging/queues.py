"""What local queues hold at run time: their messages, in delivery order, and who has them open.

A queue's messages are kept in a sorted map keyed by ``(-priority, seq)``: the first key is the next
message to deliver (highest priority, then arrival), so a GET, a put and a backed-out message's
return to its place all cost O(log n) in the depth, and a browse cursor is simply a key.  MsgId and
CorrelId matching goes through per-id heaps of keys (removed messages leave them lazily), expiry
through a heap of expiry times; nothing walks the whole queue.

The registry owns the definitions; this owns the contents and the live status a queue manager
reports for a queue (open counts, uncommitted messages, last put and get).  Sequence numbers are
unique for the life of the data directory (persistent messages keep theirs across a restart).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator

from sortedcontainers import SortedDict

from qmlite.registry.monitoring.counters import QueueStats

ZERO24 = bytes(24)


class Message:
    """One message: its descriptor, data and keys.

    A persistent message loaded at start-up keeps only its keys in memory; its descriptor and data
    are read from the store the first time anyone looks (``loader``), so a restart with a million
    queued messages reads and holds a fraction of them.  ``key`` is its place in delivery order,
    ``(-priority, seq)``; ``number`` gives it a sequence number (and so a place) on its queue.
    ``durable_after`` is the journal position that must be on disk before anyone may see the
    message: the position of its own write when it is persistent, or of whatever produced it (a
    command's effects, for a reply) when it is not.  ``props`` are its message properties (a
    ``pcf.properties.Properties``, or None for none): kept apart from the data, as a queue manager
    keeps them, and given back as each getter asks (registry/messaging/properties.py ``render``).
    """

    __slots__ = ("_md", "md_raw", "_data", "priority", "msg_id", "correl_id", "put_time", "expires_at", "seq",
                 "key", "persistent", "durable_after", "_loader", "_props")

    def __init__(self, md, data: bytes | None, priority: int, msg_id: bytes, correl_id: bytes, put_time: float,
                 expires_at: float | None = None, seq: int = 0, persistent: bool = False,
                 md_raw: bytes | None = None, durable_after: int = 0, loader=None, props=None) -> None:
        self._props = props
        self._md = md
        self.md_raw = md_raw
        self._data = data
        self.priority = priority
        self.msg_id = msg_id
        self.correl_id = correl_id
        self.put_time = put_time
        self.expires_at = expires_at
        self.seq = seq
        self.key = (-priority, seq)
        self.persistent = persistent
        self.durable_after = durable_after
        self._loader = loader

    def number(self, seq: int) -> None:
        self.seq = seq
        self.key = (-self.priority, seq)

    def _fill(self) -> None:
        self.md_raw, self._data, self._props = self._loader(self.seq)
        self._loader = None

    @property
    def props(self):
        if self._loader is not None:
            self._fill()
        return self._props

    @props.setter
    def props(self, value) -> None:
        self._props = value

    @property
    def data(self) -> bytes:
        if self._data is None and self._loader is not None:
            self._fill()
        return self._data

    @property
    def md(self):
        md = self._md
        if md is None:
            if self.md_raw is None and self._loader is not None:
                self._fill()
            from qmlite.pcf.mqi import MQMD  # stored little-endian by the store (registry/storage/sqlite.py)

            md = self._md = MQMD.unpack(self.md_raw, 0, "<")[0]
        return md

    @md.setter
    def md(self, value) -> None:
        self._md = value
        self.md_raw = None


class QueueContents:
    """One local queue's messages and live status."""

    __slots__ = ("_order", "_by_msg_id", "_by_correl_id", "_expiry", "open_input", "open_output",
                 "exclusive", "uncommitted", "last_put", "last_get", "stats", "enq_count", "deq_count",
                 "high_depth", "stats_reset", "on_q_short", "on_q_long", "depth_hi", "depth_lo",
                 "service_timer", "last_trigger", "__weakref__")

    def __init__(self) -> None:
        self._order: SortedDict = SortedDict()  # (-priority, seq) -> Message
        self._by_msg_id: dict[bytes, list] = {}
        self._by_correl_id: dict[bytes, list] = {}
        self._expiry: list = []  # heap of (expires_at, key)
        self.open_input = 0
        self.open_output = 0
        self.exclusive = 0
        self.uncommitted = 0  # puts made under syncpoint and not yet committed (they count in the depth)
        self.last_put = 0.0
        self.last_get = 0.0
        self.stats = QueueStats()  # MQI activity for the resource-usage publications (registry/monitoring/resource.py)
        # Reset Queue Statistics (registry/admin/commands/status.py): puts and destructive gets since the
        # last reset (uncommitted ones included, backed-out ones not taken back, as IBM counts them),
        # the highest depth since, and when the reset was (0.0: the queue manager's start).
        self.enq_count = 0
        self.deq_count = 0
        self.high_depth = 0
        self.stats_reset = 0.0
        # Inquire Queue Status OnQTime: the time on the queue of recent gets, in seconds, averaged
        # over a short and a long period (exponential averages: no history kept).
        self.on_q_short = -1.0
        self.on_q_long = -1.0
        # The statistics interval's highest and lowest depth (QMaxDepth, QMinDepth of IBM's queue
        # statistics; registry/monitoring/statistics.py sets both to the depth when an interval starts).
        self.depth_hi = 0
        self.depth_lo = 0
        # Queue service interval events (registry/monitoring/events.py): when the service timer last
        # started (a put to an empty queue, a get leaving messages), None while it is off.
        self.service_timer: float | None = None
        # When the last trigger message for this queue was made (registry/messaging/triggers.py: TRIGINT's
        # repeated FIRST trigger), None until one is.
        self.last_trigger: float | None = None

    # ---- size and order --------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._order)

    def __iter__(self) -> Iterator[Message]:
        """Delivery order: highest priority first, FIFO within a priority (a snapshot)."""
        return iter(list(self._order.values()))

    def first(self) -> Message | None:
        order = self._order
        return order.peekitem(0)[1] if order else None

    def after(self, cursor: tuple[int, int] | None) -> Iterator[Message]:
        """Messages after a browse cursor, in delivery order (all of them for no cursor)."""
        order = self._order
        keys = order.irange(minimum=cursor, inclusive=(False, True)) if cursor is not None else iter(order)
        for key in keys:
            yield order[key]

    def at(self, key: tuple[int, int] | None) -> Message | None:
        return None if key is None else self._order.get(key)

    # ---- changes ---------------------------------------------------------------------------------
    def add(self, msg: Message) -> None:
        """A new message, or a backed-out one returning to its place (its key says where)."""
        key = msg.key
        self._order[key] = msg
        heapq.heappush(self._by_msg_id.setdefault(msg.msg_id, []), key)
        if msg.correl_id != ZERO24:
            heapq.heappush(self._by_correl_id.setdefault(msg.correl_id, []), key)
        if msg.expires_at is not None:
            heapq.heappush(self._expiry, (msg.expires_at, key))

    restore = add

    def load(self, msgs: list[Message]) -> None:
        """Messages read back at start-up, in bulk (sorted once rather than inserted one by one)."""
        self._order.update((m.key, m) for m in msgs)
        by_msg_id, by_correl_id, expiry = self._by_msg_id, self._by_correl_id, self._expiry
        for m in msgs:
            key = m.key
            bucket = by_msg_id.get(m.msg_id)
            if bucket is None:
                by_msg_id[m.msg_id] = [key]
            else:
                heapq.heappush(bucket, key)
            if m.correl_id != ZERO24:
                heapq.heappush(by_correl_id.setdefault(m.correl_id, []), key)
            if m.expires_at is not None:
                expiry.append((m.expires_at, key))
        heapq.heapify(expiry)

    def remove(self, msg: Message) -> None:
        order = self._order
        order.pop(msg.key, None)
        self._unindex(self._by_msg_id, msg.msg_id, order)
        if msg.correl_id != ZERO24:
            self._unindex(self._by_correl_id, msg.correl_id, order)
        expiry = self._expiry
        if len(expiry) > 2 * len(order) + 64:  # messages consumed before they expired: rebuild, amortised O(1)
            self._expiry = [(m.expires_at, k) for k, m in order.items() if m.expires_at is not None]
            heapq.heapify(self._expiry)

    @staticmethod
    def _unindex(index: dict[bytes, list], ident: bytes, order: SortedDict) -> None:
        """Drop the keys at the top of an id's heap that left the queue (the removed one, in FIFO
        consumption); a key removed out of order goes when it reaches the top.  An id whose last
        message left is forgotten, so unique MsgIds and CorrelIds never pile up."""
        heap = index.get(ident)
        if heap is None:
            return
        while heap and heap[0] not in order:
            heapq.heappop(heap)
        if not heap:
            del index[ident]

    def clear(self) -> list[Message]:
        gone = list(self._order.values())
        self._order.clear()
        self._by_msg_id.clear()
        self._by_correl_id.clear()
        self._expiry.clear()
        return gone

    def expire(self, now: float) -> list[Message]:
        """Remove the messages whose expiry has passed; returns them (persistent ones need a delete)."""
        heap = self._expiry
        gone = []
        order = self._order
        while heap and heap[0][0] <= now:
            _, key = heapq.heappop(heap)
            msg = order.get(key)
            if msg is not None and msg.expires_at is not None and msg.expires_at <= now:
                self.remove(msg)
                gone.append(msg)
        if gone:
            self.stats.expired += len(gone)
        return gone

    # ---- finding ---------------------------------------------------------------------------------
    def _first_of(self, index: dict[bytes, list], ident: bytes) -> Message | None:
        heap = index.get(ident)
        order = self._order
        while heap:
            msg = order.get(heap[0])
            if msg is not None and (msg.msg_id == ident if index is self._by_msg_id else msg.correl_id == ident):
                return msg
            heapq.heappop(heap)
        if heap is not None:
            del index[ident]
        return None

    def find(self, msg_id: bytes | None, correl_id: bytes | None) -> Message | None:
        """The first message in delivery order with this MsgId and/or CorrelId (None: any)."""
        if msg_id is None and correl_id is None:
            return self.first()
        if msg_id is not None:
            msg = self._first_of(self._by_msg_id, msg_id)
            if msg is None or correl_id is None or msg.correl_id == correl_id:
                return msg
            # Duplicate MsgIds with different CorrelIds: look through that MsgId's messages in order.
            order = self._order
            for key in sorted(k for k in self._by_msg_id.get(msg_id, ()) if k in order):
                cand = order[key]
                if cand.msg_id == msg_id and cand.correl_id == correl_id:
                    return cand
            return None
        return self._first_of(self._by_correl_id, correl_id)


class MessageStore:
    """The contents of every local queue, by queue name."""

    def __init__(self) -> None:
        self._queues: dict[str, QueueContents] = {}
        self._seq = itertools.count(1)
        self.retired = QueueStats()  # what queues since deleted counted

    def contents(self, queue: str) -> QueueContents:
        q = self._queues.get(queue)
        if q is None:
            q = self._queues[queue] = QueueContents()
        return q

    def peek(self, queue: str) -> QueueContents | None:
        return self._queues.get(queue)

    def items(self):
        """(queue name, contents) of every local queue that has held or been asked for a message."""
        return self._queues.items()

    def next_seq(self) -> int:
        return next(self._seq)

    def start_seq_after(self, seq: int) -> None:
        """After loading stored messages: new ones must sort after them and never reuse a number."""
        self._seq = itertools.count(seq + 1)

    def put(self, queue: str, msg: Message) -> None:
        if not msg.seq:
            msg.number(next(self._seq))
        self.contents(queue).add(msg)

    def depth(self, queue: str) -> int:
        """CURDEPTH: the messages on the queue, uncommitted puts included (as on a queue manager)."""
        q = self._queues.get(queue)
        return len(q) + q.uncommitted if q is not None else 0

    def open_counts(self, queue: str) -> tuple[int, int]:
        """(OpenInputCount, OpenOutputCount) for a local queue."""
        q = self._queues.get(queue)
        return (q.open_input, q.open_output) if q is not None else (0, 0)

    def clear(self, queue: str) -> list[Message]:
        """Clear Queue: the messages are purged (and counted so)."""
        q = self._queues.get(queue)
        if q is None:
            return []
        gone = q.clear()
        q.stats.purged += len(gone)
        return gone

    def drop(self, queue: str) -> list[Message]:
        """A deleted queue: its messages go (returned, so persistent ones can be deleted on disk)."""
        q = self._queues.pop(queue, None)
        if q is None:
            return []
        self.retired.add(q.stats)  # the queue manager's totals keep what a deleted queue did
        return q.clear()

    def totals(self) -> dict[str, int]:
        """Every queue's activity counters summed, deleted queues' included."""
        total = QueueStats()
        total.add(self.retired)
        for q in self._queues.values():
            total.add(q.stats)
        return total.snapshot()
