"""Activity counters the resource-usage publications report (registry/monitoring/resource.py).

Plain integer slots, incremented on the MQI paths: the put/get path is benchmarked, so a count costs
one attribute increment and nothing is computed until a publication is built, every interval.
Counters only grow; a publication reports the change since the one before (IBM's DELTA elements).
"""

from __future__ import annotations


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
                 "conns_max", "discs_implicit", "unsubs_dur", "unsubs_ndur", "unsub_fails", "topic_put1_np", "topic_put1_p",
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
