"""IBM's statistics messages (STATMQI, STATQ, STATCHL), written every STATINT seconds, and when
RESET QMGR TYPE(STATISTICS) asks, to SYSTEM.ADMIN.STATISTICS.QUEUE.

Nothing is counted here.  The MQI paths already count, once, for the resource-usage publications
(registry/monitoring/counters.py: the queue manager's MQIStats and ByObjectType, each queue's
QueueStats); an interval's statistics are the change in those counters since the interval began, so
statistics cost the put/get path nothing whether they are on or off.  The depth range of an interval
(QMinDepth, QMaxDepth) is kept by the queue's contents, which this module resets when an interval starts.

Formats, IBM's "MQI statistics message data", "Queue statistics message data", "Channel statistics
message data": every parameter in IBM's order with IBM's types (the queue group's order as a real
queue manager writes it: tests/fixtures/pcf/statistics_q.dat).  Only queues with activity in
the interval get a QStatisticsData group, and only message channels a ChlStatisticsData group (IBM:
channel statistics are "not relevant for channels with a ChannelType of MQCHT_CLNTCONN or
MQCHT_SVRCONN"): each one that ran or moved messages in the interval, from its agent's measurements
(registry/channels/monitoring.py; docs/compat.md, docs/decisions.md T-entries and MCM6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.monitoring import records
from qmlite.registry.monitoring.counters import OBJECT_TYPES

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

def resolve(own: int, qmgr: int) -> bool:
    """A queue's STATQ or a channel's STATCHL: QMGR takes the queue manager's; anything but OFF
    (ON, or a channel's LOW/MEDIUM/HIGH) collects."""
    value = qmgr if own == C.MQMON_Q_MGR else own
    return value not in (C.MQMON_OFF, C.MQMON_NONE, C.MQMON_Q_MGR)


def _d(now: dict, before: dict, name: str) -> int:
    return now.get(name, 0) - before.get(name, 0)


def _pair(now: dict, before: dict, np: str, p: str) -> tuple[int, int]:
    return (_d(now, before, np), _d(now, before, p))


class Statistics:
    """The statistics interval of one queue manager: when it began, the counters' values then."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm
        self.start = qm.now()
        self._mqi: dict = {}
        self._typed: dict = {}
        self._queues: dict[str, dict] = {}
        self._baseline()

    def _mqi_now(self) -> dict:
        return {**self.qm.registry.messages.totals(), **self.qm.stats.snapshot()}

    def _baseline(self) -> None:
        qm = self.qm
        self._mqi = self._mqi_now()
        self._typed = qm.typed.snapshot()
        qm.stats.conns_max = len(qm.sessions)  # the interval's high-water mark starts from now
        qm.registry.sub_marks.restart(qm.registry.subs_by_id.values())  # and the subscriptions'
        self._queues = {}
        for name, contents in qm.registry.messages.items():
            self._queues[name] = contents.stats.snapshot()
            contents.depth_hi = contents.depth_lo = len(contents) + contents.uncommitted
        for status in qm.registry.running.message_channels.values():  # each channel's interval starts now
            status.measures.take_interval()

    # ---- when -------------------------------------------------------------------------------------
    def due(self, now: float) -> bool:
        return now - self.start >= max(1, self.qm.registry.qmgr.statistics_interval)

    def tick(self, now: float | None = None) -> int:
        """Called by the server's clock: end the interval when STATINT has passed; returns the messages written."""
        now = self.qm.now() if now is None else now
        return self.collect(now) if self.due(now) else 0

    def collect(self, now: float | None = None) -> int:
        """End the interval now (STATINT passed, or RESET QMGR TYPE(STATISTICS)): write the messages of
        the classes switched on, start the next interval; returns the messages written."""
        qm = self.qm
        now = qm.now() if now is None else now
        qmgr = qm.registry.qmgr
        bodies: list[bytes] = []
        if qmgr.statistics_mqi == C.MQMON_ON:
            bodies += self.mqi_messages(now)
        if qmgr.statistics_q != C.MQMON_NONE:
            bodies += self.queue_messages(now)
        if qmgr.statistics_channel != C.MQMON_NONE:
            bodies += self.channel_messages(now)
        self.start = now
        self._baseline()
        return records.write(qm, records.STATISTICS_QUEUE, bodies) if bodies else 0

    # ---- MQI statistics ---------------------------------------------------------------------------
    def mqi_messages(self, now: float) -> list[bytes]:
        qm = self.qm
        n, b = self._mqi_now(), self._mqi
        typed_now = qm.typed.snapshot()

        def typed(name: str) -> P.CFIL:
            before = self._typed.get(name, [0] * OBJECT_TYPES)
            return tuple(x - y for x, y in zip(typed_now[name], before))

        discs = _d(n, b, "discs")
        implicit = _d(n, b, "discs_implicit")
        marks = self.qm.registry.sub_marks
        put_np, put_p = _pair(n, b, "topic_put_np", "topic_put_p")
        put1_np, put1_p = _pair(n, b, "topic_put1_np", "topic_put1_p")
        published, published_p = _pair(n, b, "published", "published_p")
        pub_bytes, pub_bytes_p = _pair(n, b, "published_bytes", "published_bytes_p")
        params = records.interval(qm, self.start, now) + [
            P.CFIN(C.MQIAMO_CONNS, _d(n, b, "conns")),
            P.CFIN(C.MQIAMO_CONNS_FAILED, _d(n, b, "conn_fails")),
            P.CFIN(C.MQIAMO_CONNS_MAX, max(qm.stats.conns_max, len(qm.sessions))),
            P.CFIL(C.MQIAMO_DISCS, (discs - implicit, implicit, 0)),
            P.CFIL(C.MQIAMO_OPENS, typed("opens")),
            P.CFIL(C.MQIAMO_OPENS_FAILED, typed("open_fails")),
            P.CFIL(C.MQIAMO_CLOSES, typed("closes")),
            P.CFIL(C.MQIAMO_CLOSES_FAILED, typed("close_fails")),
            P.CFIL(C.MQIAMO_INQS, typed("inqs")),
            P.CFIL(C.MQIAMO_INQS_FAILED, typed("inq_fails")),
            P.CFIL(C.MQIAMO_SETS, typed("sets")),
            P.CFIL(C.MQIAMO_SETS_FAILED, typed("set_fails")),
            *mqi_message_counts(n, b, put_fails="put_fails", put1_fails="put1_fails"),
            P.CFIN(C.MQIAMO_COMMITS, _d(n, b, "commits")),
            P.CFIN(C.MQIAMO_COMMITS_FAILED, 0),
            P.CFIN(C.MQIAMO_BACKOUTS, _d(n, b, "backouts")),
            P.CFIN(C.MQIAMO_MSGS_EXPIRED, _d(n, b, "expired")),
            P.CFIN(C.MQIAMO_MSGS_PURGED, _d(n, b, "purged")),
            *subscription_counts(n, b),
            P.CFIL(C.MQIAMO_SUB_DUR_HIGHWATER, tuple(marks.high[0])),
            P.CFIL(C.MQIAMO_SUB_DUR_LOWWATER, tuple(marks.low[0])),
            P.CFIL(C.MQIAMO_SUB_NDUR_HIGHWATER, tuple(marks.high[1])),
            P.CFIL(C.MQIAMO_SUB_NDUR_LOWWATER, tuple(marks.low[1])),
            P.CFIL(C.MQIAMO_TOPIC_PUTS, (put_np - put1_np, put_p - put1_p)),
            P.CFIN(C.MQIAMO_TOPIC_PUTS_FAILED, _d(n, b, "topic_put_fails") - _d(n, b, "topic_put1_fails")),
            P.CFIL(C.MQIAMO_TOPIC_PUT1S, (put1_np, put1_p)),
            P.CFIN(C.MQIAMO_TOPIC_PUT1S_FAILED, _d(n, b, "topic_put1_fails")),
            P.CFIL64(C.MQIAMO64_TOPIC_PUT_BYTES, (_d(n, b, "topic_put_bytes"), 0)),
            P.CFIL(C.MQIAMO_PUBLISH_MSG_COUNT, (published - published_p, published_p)),
            P.CFIL64(C.MQIAMO64_PUBLISH_MSG_BYTES, (pub_bytes - pub_bytes_p, pub_bytes_p)),
        ]
        return records.messages(C.MQCFT_STATISTICS, C.MQCMD_STATISTICS_MQI, params)

    # ---- queue statistics -------------------------------------------------------------------------
    def queue_messages(self, now: float) -> list[bytes]:
        reg = self.qm.registry
        qmgr_setting = reg.qmgr.statistics_q
        groups = []
        for name, contents in sorted(reg.messages.items()):
            queue = reg.queues.get(name)
            if queue is None or queue.qtype != C.MQQT_LOCAL:
                continue
            if not resolve(getattr(queue, "statistics_q", C.MQMON_Q_MGR), qmgr_setting):
                continue
            counts = contents.stats.snapshot()
            before = self._queues.get(name, {})
            if any(counts[k] < before.get(k, 0) for k in counts):
                before = {}  # deleted and defined again within the interval: its counters restarted
            if not any(counts[k] != before.get(k, 0) for k in counts if not k.startswith("queue_time")):
                continue  # IBM: only queues with activity in the interval
            groups.append(self._queue_group(queue, contents, counts, before))
        if not groups:
            return []
        head = records.interval(self.qm, self.start, now)
        return records.messages(C.MQCFT_STATISTICS, C.MQCMD_STATISTICS_Q, head, groups)

    def _queue_group(self, queue, contents, n: dict, b: dict) -> P.CFGR:
        gets_np, gets_p = _pair(n, b, "get_np", "get_p")
        waited_p = n["queue_time_p"] - b.get("queue_time_p", 0)
        waited_np = n["queue_time"] - b.get("queue_time", 0) - waited_p
        return P.CFGR(C.MQGACF_Q_STATISTICS_DATA, [
            records.text(C.MQCA_Q_NAME, queue.name, C.MQ_Q_NAME_LENGTH),
            *_creation(queue),
            P.CFIN(C.MQIA_Q_TYPE, queue.qtype),
            P.CFIN(C.MQIA_DEFINITION_TYPE, queue.definition_type),
            P.CFIN(C.MQIAMO_Q_MIN_DEPTH, contents.depth_lo),
            P.CFIN(C.MQIAMO_Q_MAX_DEPTH, contents.depth_hi),
            P.CFIL64(C.MQIAMO64_AVG_Q_TIME, (_micros(waited_np, gets_np), _micros(waited_p, gets_p))),
            P.CFIL(C.MQIAMO_PUTS, _pair(n, b, "put_np", "put_p")),
            P.CFIN(C.MQIAMO_PUTS_FAILED, _d(n, b, "put_fails")),
            P.CFIL(C.MQIAMO_PUT1S, _pair(n, b, "put1_np", "put1_p")),
            P.CFIN(C.MQIAMO_PUT1S_FAILED, _d(n, b, "put1_fails")),
            P.CFIL64(C.MQIAMO64_PUT_BYTES, _pair(n, b, "put_bytes_np", "put_bytes_p")),
            P.CFIL(C.MQIAMO_GETS, (gets_np, gets_p)),
            P.CFIL64(C.MQIAMO64_GET_BYTES, _pair(n, b, "get_bytes_np", "get_bytes_p")),
            P.CFIN(C.MQIAMO_GETS_FAILED, _d(n, b, "get_fails")),
            P.CFIL(C.MQIAMO_BROWSES, _pair(n, b, "browse_np", "browse_p")),
            P.CFIL64(C.MQIAMO64_BROWSE_BYTES, _pair(n, b, "browse_bytes_np", "browse_bytes_p")),
            P.CFIN(C.MQIAMO_BROWSES_FAILED, _d(n, b, "browse_fails")),
            P.CFIN(C.MQIAMO_MSGS_NOT_QUEUED, 0),  # every message qmlite receives is queued first
            P.CFIN(C.MQIAMO_MSGS_EXPIRED, _d(n, b, "expired")),
            P.CFIN(C.MQIAMO_MSGS_PURGED, _d(n, b, "purged")),
        ])

    # ---- channel statistics -----------------------------------------------------------------------
    def channel_messages(self, now: float) -> list[bytes]:
        """One ChlStatisticsData group per message channel that ran or moved messages in the interval,
        from what its agent measured (registry/channels/monitoring.py, docs/decisions.md MCM6)."""
        reg = self.qm.registry
        channels = reg.objects("channel") if "channel" in reg.definitions else {}
        running = reg.running
        groups = []
        for name, status in sorted(running.message_channels.items()):
            interval = status.measures.interval
            if not running.instances_of(name) and not interval.active:
                continue
            channel = channels.get(name)
            if channel is None or not resolve(getattr(channel, "statistics", C.MQMON_Q_MGR),
                                              reg.qmgr.statistics_channel):
                continue
            groups.append(_channel_group(status, status.measures.take_interval()))
        if not groups:
            return []
        head = records.interval(self.qm, self.start, now)
        return records.messages(C.MQCFT_STATISTICS, C.MQCMD_STATISTICS_CHANNEL, head, groups)


def _channel_group(status, i) -> P.CFGR:
    """IBM's ChlStatisticsData, its parameters in IBM's order.  No exit runs here (ExitTime 0) and a
    receiving end dead-letters at once rather than retrying a put (PutRetryCount 0)."""
    return P.CFGR(C.MQGACF_CHL_STATISTICS_DATA, [
        records.text(C.MQCACH_CHANNEL_NAME, status.channel, C.MQ_CHANNEL_NAME_LENGTH),
        P.CFIN(C.MQIACH_CHANNEL_TYPE, status.channel_type),
        records.text(C.MQCA_REMOTE_Q_MGR_NAME, status.remote_qmgr, C.MQ_Q_MGR_NAME_LENGTH),
        records.text(C.MQCACH_CONNECTION_NAME, status.conn_name, C.MQ_CONN_NAME_LENGTH),
        P.CFIN(C.MQIAMO_MSGS, i.msgs),
        P.CFIN64(C.MQIAMO64_BYTES, i.total_bytes),
        P.CFIN(C.MQIAMO_NET_TIME_MIN, i.net_min), P.CFIN(C.MQIAMO_NET_TIME_AVG, i.net_avg),
        P.CFIN(C.MQIAMO_NET_TIME_MAX, i.net_max),
        P.CFIN(C.MQIAMO_EXIT_TIME_MIN, 0), P.CFIN(C.MQIAMO_EXIT_TIME_AVG, 0), P.CFIN(C.MQIAMO_EXIT_TIME_MAX, 0),
        P.CFIN(C.MQIAMO_FULL_BATCHES, i.full_batches), P.CFIN(C.MQIAMO_INCOMPLETE_BATCHES, i.incomplete_batches),
        P.CFIN(C.MQIAMO_AVG_BATCH_SIZE, i.avg_batch_size), P.CFIN(C.MQIAMO_PUT_RETRIES, i.put_retries),
    ])


def mqi_message_counts(n: dict, b: dict, *, put_fails: str, put1_fails: str) -> list:
    """PutCount ... BrowseBytes, shared by the MQI statistics and MQI accounting messages: queue
    messages only (topics have their own counts), arrays indexed [non-persistent, persistent]."""
    return [
        P.CFIL(C.MQIAMO_PUTS, _pair(n, b, "put_np", "put_p")),
        P.CFIN(C.MQIAMO_PUTS_FAILED, _d(n, b, put_fails)),
        P.CFIL(C.MQIAMO_PUT1S, _pair(n, b, "put1_np", "put1_p")),
        P.CFIN(C.MQIAMO_PUT1S_FAILED, _d(n, b, put1_fails)),
        P.CFIL64(C.MQIAMO64_PUT_BYTES, _pair(n, b, "put_bytes_np", "put_bytes_p")),
        P.CFIL(C.MQIAMO_GETS, _pair(n, b, "get_np", "get_p")),
        P.CFIN(C.MQIAMO_GETS_FAILED, _d(n, b, "get_fails")),
        P.CFIL64(C.MQIAMO64_GET_BYTES, _pair(n, b, "get_bytes_np", "get_bytes_p")),
        P.CFIL(C.MQIAMO_BROWSES, _pair(n, b, "browse_np", "browse_p")),
        P.CFIN(C.MQIAMO_BROWSES_FAILED, _d(n, b, "browse_fails")),
        P.CFIL64(C.MQIAMO64_BROWSE_BYTES, _pair(n, b, "browse_bytes_np", "browse_bytes_p")),
    ]


def subscription_counts(n: dict, b: dict) -> list:
    """SubCountDur ... CtlFailCount: IBM's subscribe arrays are indexed [created, altered, resumed]
    (a non-durable subscription is only ever created); MQCB/MQCTL/MQSTAT run in qmlite's client, so
    the queue manager sees none of them: zero."""
    return [
        P.CFIL(C.MQIAMO_SUBS_DUR, (_d(n, b, "subs_durable_created"), _d(n, b, "subs_altered"),
                                   _d(n, b, "subs_resumed"))),
        P.CFIL(C.MQIAMO_SUBS_NDUR, (_d(n, b, "subs_nondurable_created"), 0, 0)),
        P.CFIN(C.MQIAMO_SUBS_FAILED, _d(n, b, "sub_fails")),
        P.CFIL(C.MQIAMO_UNSUBS_DUR, (_d(n, b, "unsubs_dur"), 0, 0)),
        P.CFIL(C.MQIAMO_UNSUBS_NDUR, (_d(n, b, "unsubs_ndur"), 0, 0)),
        P.CFIN(C.MQIAMO_UNSUBS_FAILED, _d(n, b, "unsub_fails")),
        P.CFIN(C.MQIAMO_SUBRQS, _d(n, b, "subrqs")),
        P.CFIN(C.MQIAMO_SUBRQS_FAILED, _d(n, b, "subrq_fails")),
        P.CFIL(C.MQIAMO_CBS, (0, 0, 0, 0)),
        P.CFIN(C.MQIAMO_CBS_FAILED, 0),
        P.CFIL(C.MQIAMO_CTLS, (0, 0, 0)),
        P.CFIN(C.MQIAMO_CTLS_FAILED, 0),
        P.CFIN(C.MQIAMO_STATS, 0),
        P.CFIN(C.MQIAMO_STATS_FAILED, 0),
    ]


def _creation(queue) -> list[P.CFST]:
    from qmlite.registry.objects.definitions import mq_date, mq_time

    created = queue.created
    return [records.text(C.MQCA_CREATION_DATE, mq_date(created) if created else "", C.MQ_CREATION_DATE_LENGTH),
            records.text(C.MQCA_CREATION_TIME, mq_time(created) if created else "", C.MQ_CREATION_TIME_LENGTH)]


def _micros(seconds: float, count: int) -> int:
    return int(round(seconds * 1_000_000 / count)) if count > 0 else 0
