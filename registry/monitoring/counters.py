"""Activity counters the resource-usage publications report (registry/monitoring/resource.py).

Plain integer slots, incremented on the MQI paths: the put/get path is benchmarked, so a count costs
one attribute increment and nothing is computed until a publication is built, every interval.
Counters only grow; a publication reports the change since the one before (IBM's DELTA elements).
"""

from __future__ import annotations

from qmlite.pcf import constants as C


class _Counters:
    __slots__ = ()

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, 0)

    def snapshot(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


class QueueStats(_Counters):
    """One queue's MQI activity (the STATQ class)."""

    __slots__ = ("opens", "closes", "inqs", "sets", "put_np", "put_p", "put1_np", "put1_p", "put_bytes_np",
                 "put_bytes_p", "get_np", "get_p", "get_bytes_np", "get_bytes_p", "browse_np", "browse_p",
                 "browse_bytes_np", "browse_bytes_p", "expired", "purged", "queue_time", "queue_time_p",
                 "put_fails", "put1_fails", "get_fails", "browse_fails")
    # queue_time: seconds, summed over destructive gets, that the messages got had waited (queue_time_p:
    # the persistent ones' part).  The *_fails are counted only on the failure paths.

    def add(self, other: QueueStats) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class MQIStats(_Counters):
    """The queue manager's MQI activity (the STATMQI class)."""

    # MQPUT/MQGET/browse counts are not here: they are the sum of the queues' (MessageStore.totals).
    __slots__ = ("conns", "conn_fails", "conn_hwm", "discs", "opens", "open_fails", "closes", "close_fails",
                 "inqs", "inq_fails", "sets", "set_fails", "put_fails", "put1_fails", "commits", "backouts",
                 "topic_put_np", "topic_put_p", "topic_put_bytes", "topic_put_fails", "published", "published_bytes",
                 "subs_durable_created", "subs_nondurable_created", "subs_resumed", "subs_altered", "sub_fails",
                 "subrqs", "subrq_fails",
                 # for the statistics messages (registry/monitoring/statistics.py): MQDISC vs ended connections,
                 # MQCLOSE of subscriptions, MQPUT1 to topics, publications' persistence
                 "conns_max", "discs_implicit", "unsubs_dur", "unsubs_ndur", "unsub_fails", "topic_put1_np",
                 "topic_put1_p",
                 "topic_put1_fails", "published_p", "published_bytes_p")


OBJECT_TYPES = 13  # IBM's arrays "indexed by object type" have 13 entries (MQOT_Q 1 ... MQOT_TOPIC 8)


class ByObjectType:
    """MQOPEN, MQCLOSE, MQINQ and MQSET counts per object type: the MQCFIL arrays of IBM's MQI
    statistics and accounting messages.  Counted on those verbs only, never on MQPUT/MQGET."""

    __slots__ = ("opens", "open_fails", "closes", "close_fails", "inqs", "inq_fails", "sets", "set_fails")

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, [0] * OBJECT_TYPES)

    def snapshot(self) -> dict[str, list[int]]:
        return {name: list(getattr(self, name)) for name in self.__slots__}


# The index of IBM's SubCount(N)Dur High/LowWater arrays, by subscription type
_SUB_TYPE_INDEX = {C.MQSUBTYPE_API: 0, C.MQSUBTYPE_ADMIN: 1, C.MQSUBTYPE_PROXY: 2}


class SubscriptionMarks:
    """How many durable and non-durable subscriptions exist, by subscription type (API, ADMIN,
    PROXY), and the highest and lowest counts since the statistics interval began (IBM's
    SubCountDurHighWater ... SubCountNDurLowWater).  The catalogue calls ``added``/``removed`` where
    it adds or removes a subscription: two list updates, no scan; the statistics interval
    ``restart``s the marks from the subscriptions there are."""

    __slots__ = ("now", "high", "low")

    def __init__(self) -> None:
        self.restart(())

    @staticmethod
    def _index(sub) -> tuple[int, int]:
        return (0 if sub.durable == C.MQSUB_DURABLE_YES else 1), _SUB_TYPE_INDEX.get(sub.sub_type, 0)

    def added(self, sub) -> None:
        kind, index = self._index(sub)
        count = self.now[kind]
        count[index] += 1
        if count[index] > self.high[kind][index]:
            self.high[kind][index] = count[index]

    def removed(self, sub) -> None:
        kind, index = self._index(sub)
        count = self.now[kind]
        count[index] -= 1
        if count[index] < self.low[kind][index]:
            self.low[kind][index] = count[index]

    def restart(self, subs) -> None:
        """A new interval: the marks start at the subscriptions there are now."""
        self.now = [[0, 0, 0], [0, 0, 0]]
        for sub in subs:
            kind, index = self._index(sub)
            self.now[kind][index] += 1
        self.high = [list(row) for row in self.now]
        self.low = [list(row) for row in self.now]


# ---- what the MQI paths count (registry/messaging/mqput.py, mqget.py) -----------------------------------
def count_put_failure(stats: MQIStats, acct, handle, *, one: bool) -> None:
    """One refused MQPUT (``one``: MQPUT1) in the queue manager's, the queue's and the connection's
    counters (``acct``: its accounting counts, or None).  ``handle`` None: an MQPUT1 whose open failed.

    A queue's handle counts for the queue and, through its accounting tee, the connection; a handle
    with no queue counters (a bad one, a namelist's) counts for the connection alone.  A topic's
    MQPUT1 counts as a topic put too, but only as an MQPUT1 in the connection's accounting."""
    if handle is not None and handle.kind == "topic":
        stats.topic_put_fails += 1
        if one:
            stats.topic_put1_fails += 1
            if acct is not None:
                acct.topic_put1_fails += 1
        elif acct is not None:
            acct.topic_put_fails += 1
        return
    field = "put1_fails" if one else "put_fails"
    setattr(stats, field, getattr(stats, field) + 1)
    # the queue's counters (which tee into the connection's accounting), else the connection's alone
    owner = handle.stats if handle is not None and handle.stats is not None else acct
    if owner is not None:
        setattr(owner, field, getattr(owner, field) + 1)


def count_topic_put(stats, persistent: bool, one: bool, size: int, delivered: int) -> None:
    """One publication put (MQPUT or MQPUT1 to a topic) and the ``delivered`` copies it made."""
    if persistent:
        stats.topic_put_p += 1
        if one:
            stats.topic_put1_p += 1
        stats.published_p += delivered
        stats.published_bytes_p += delivered * size
    else:
        stats.topic_put_np += 1
        if one:
            stats.topic_put1_np += 1
    stats.topic_put_bytes += size
    stats.published += delivered
    stats.published_bytes += delivered * size


def count_queue_put(stats: QueueStats, persistent: bool, one: bool, size: int) -> None:
    """One message put to a queue, counted per queue only (the queue manager's totals are their sum,
    made each interval): two increments on the benchmarked path."""
    if persistent:
        if one:
            stats.put1_p += 1
        else:
            stats.put_p += 1
        stats.put_bytes_p += size
    else:
        if one:
            stats.put1_np += 1
        else:
            stats.put_np += 1
        stats.put_bytes_np += size


def count_get(stats: QueueStats, persistent: bool, size: int, waited: float) -> None:
    """One destructive MQGET of a message that had waited ``waited`` seconds."""
    if persistent:
        stats.get_p += 1
        stats.get_bytes_p += size
        stats.queue_time_p += waited
    else:
        stats.get_np += 1
        stats.get_bytes_np += size
    stats.queue_time += waited


def count_browse(stats: QueueStats, persistent: bool, size: int) -> None:
    if persistent:
        stats.browse_p += 1
        stats.browse_bytes_p += size
    else:
        stats.browse_np += 1
        stats.browse_bytes_np += size


def counted_put(contents, *, uncommitted: bool = False, passing: bool = False) -> None:
    """Reset Queue Statistics' counters of a queue's contents for one put (IBM counts uncommitted puts too).
    ``passing``: a message counted as put that is not added (MQTT's handover, which counts its take next)."""
    if uncommitted:
        contents.uncommitted += 1
    contents.enq_count += 1
    depth = len(contents) + contents.uncommitted + passing
    if depth > contents.high_depth:
        contents.high_depth = depth
    if depth > contents.depth_hi:  # the statistics interval's QMaxDepth
        contents.depth_hi = depth


def counted_get(contents, on_queue: float) -> None:
    """One destructive get: MsgDeqCount, and OnQTime's short- and long-period averages."""
    contents.deq_count += 1
    depth = len(contents) + contents.uncommitted
    if depth < contents.depth_lo:  # the statistics interval's QMinDepth
        contents.depth_lo = depth
    on_queue = max(on_queue, 0.0)
    short, long_ = contents.on_q_short, contents.on_q_long
    contents.on_q_short = on_queue if short < 0 else short + (on_queue - short) / 8
    contents.on_q_long = on_queue if long_ < 0 else long_ + (on_queue - long_) / 128
