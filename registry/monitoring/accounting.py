"""IBM's accounting messages (ACCTMQI, ACCTQ): one connection's MQI calls, and its calls per queue,
written to SYSTEM.ADMIN.ACCOUNTING.QUEUE when the connection ends (MQDISC, or broken) and every
ACCTINT seconds while it lasts (IBM's "intermediate" records, SeqNumber counting them).

Whether a connection collects is decided at MQCONN, as IBM does ("changes are only effective for
connections to the queue manager that occur after the change"): the queue manager's ACCTMQI and
ACCTQ, overridden by the MQCNO_ACCOUNTING_MQI/Q_ENABLED/DISABLED options when ACCTCONO is ENABLED;
a queue's own ACCTQ (QMGR, ON, OFF) then picks the queues; the queue manager's ACCTQ(NONE) turns
queue accounting off whatever the queues say.

Counting once: a connection that collects gets a ``ConnAccounting`` on ``Session.acct`` (None
otherwise, so a connection without accounting costs nothing more).  The queue handles it opens carry
a ``Tee`` in place of the queue's counters: each increment the MQPUT/MQGET paths already make lands on
the queue's counters and on this connection's record for that queue, unchanged code on those paths.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.monitoring import records
from qmlite.registry.monitoring.counters import OBJECT_TYPES, QueueStats
from qmlite.registry.monitoring.statistics import _creation, mqi_message_counts, subscription_counts

if TYPE_CHECKING:
    from qmlite.registry.messaging.sessions import Handle, Session
    from qmlite.registry.qmgr import QueueManager

# What ACCTQ means for the queues whose own ACCTQ is QMGR, decided per connection at MQCONN
QUEUES_NONE = 0  # queue accounting off (the queue manager's ACCTQ(NONE)): no queue collects
QUEUES_ON_ONLY = 1  # only queues with ACCTQ(ON)
QUEUES_ALL = 2  # queues with ACCTQ(ON) or ACCTQ(QMGR)

_SIZE_INDEX = {"put_bytes_np": ("put_min", "put_max", 0), "put_bytes_p": ("put_min", "put_max", 1),
               "get_bytes_np": ("get_min", "get_max", 0), "get_bytes_p": ("get_min", "get_max", 1),
               "browse_bytes_np": ("browse_min", "browse_max", 0), "browse_bytes_p": ("browse_min", "browse_max", 1)}


class ConnCounts:
    """One connection's MQI counts that are not a queue's (those live in its QueueRecords)."""

    _TYPED = ("opens", "open_fails", "closes", "close_fails", "inqs", "inq_fails", "sets", "set_fails")
    __slots__ = _TYPED + (
        "put_fails", "put1_fails", "commits", "backouts", "sub_fails", "subrqs", "subrq_fails",
        "subs_durable_created", "subs_nondurable_created", "subs_altered", "subs_resumed", "unsubs_dur",
        "unsubs_ndur", "unsub_fails", "topic_put_np", "topic_put_p", "topic_put1_np", "topic_put1_p",
        "topic_put_fails", "topic_put1_fails", "topic_put_bytes", "published", "published_p", "published_bytes",
        "published_bytes_p")

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, [0] * OBJECT_TYPES if name in self._TYPED else 0)

    def snapshot(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__ if name not in self._TYPED}


class QueueRecord:
    """One connection's use of one queue in the current accounting interval."""

    __slots__ = ("stats", "open_count", "opened", "closed", "put_min", "put_max", "get_min", "get_max",
                 "browse_min", "browse_max", "time_min", "time_max", "last_persistent")

    def __init__(self) -> None:
        self.stats = QueueStats()
        self.open_count = 0
        self.opened = 0.0  # the first MQOPEN in the interval
        self.closed = 0.0  # the last MQCLOSE
        for name in ("put_min", "get_min", "browse_min", "time_min"):
            setattr(self, name, [-1, -1])  # -1: none yet (written as 0)
        for name in ("put_max", "get_max", "browse_max", "time_max"):
            setattr(self, name, [0, 0])
        self.last_persistent = 0

    def sized(self, name: str, size: int) -> None:
        low_name, high_name, index = _SIZE_INDEX[name]
        low, high = getattr(self, low_name), getattr(self, high_name)
        if low[index] < 0 or size < low[index]:
            low[index] = size
        if size > high[index]:
            high[index] = size

    def waited(self, seconds: float) -> None:
        micros = int(round(max(seconds, 0.0) * 1_000_000))
        index = self.last_persistent
        if self.time_min[index] < 0 or micros < self.time_min[index]:
            self.time_min[index] = micros
        if micros > self.time_max[index]:
            self.time_max[index] = micros


def _tee_property(name: str) -> property:
    def get(self):
        return getattr(self.shared, name)

    def set_(self, value):
        shared = self.shared
        delta = value - getattr(shared, name)
        setattr(shared, name, value)
        rec = self.rec
        mine = rec.stats
        setattr(mine, name, getattr(mine, name) + delta)
        if name in _SIZE_INDEX:
            rec.sized(name, delta)
        elif name == "get_p" or name == "browse_p":
            rec.last_persistent = 1
        elif name == "get_np" or name == "browse_np":
            rec.last_persistent = 0
        elif name == "queue_time":
            rec.waited(delta)

    return property(get, set_)


class Tee:
    """A queue handle's counters for a connection that collects accounting: reads the queue's,
    and every increment goes to the queue's counters and to the connection's record of the queue."""

    __slots__ = ("shared", "rec")

    def __init__(self, shared: QueueStats, rec: QueueRecord) -> None:
        self.shared = shared
        self.rec = rec


for _name in QueueStats.__slots__:
    setattr(Tee, _name, _tee_property(_name))


class ConnAccounting:
    """A connection's accounting: what it collects, since when, and its counts."""

    __slots__ = ("mqi", "queues_mode", "start", "seq", "counts", "queues")

    def __init__(self, mqi: bool, queues_mode: int, start: float) -> None:
        self.mqi = mqi
        self.queues_mode = queues_mode
        self.start = start  # the interval's start: MQCONN, or the last intermediate record
        self.seq = 0  # SeqNumber: 0 for the first record, then + 1 per record (IBM)
        self.counts = ConnCounts()
        self.queues: dict[str, QueueRecord] = {}

    def queue(self, name: str) -> QueueRecord:
        rec = self.queues.get(name)
        if rec is None:
            rec = self.queues[name] = QueueRecord()
        return rec

    def tee(self, name: str, shared: QueueStats) -> Tee:
        return Tee(shared, self.queue(name))

    def opened(self, handle: Handle, index: int, now: float) -> None:
        self.counts.opens[index] += 1
        if handle.kind == "queue":
            rec = self.queue(handle.name)
            rec.open_count += 1
            if not rec.opened:
                rec.opened = now

    def closed(self, handle: Handle, index: int, now: float) -> None:
        self.counts.closes[index] += 1
        if handle.kind == "queue":
            self.queue(handle.name).closed = now


class Accounting:
    """The accounting rules of one queue manager: who collects, and writing the records."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm

    # ---- MQCONN -----------------------------------------------------------------------------------
    def start(self, session: Session, options: int) -> ConnAccounting | None:
        qmgr = self.qm.registry.qmgr
        mqi = qmgr.accounting_mqi == C.MQMON_ON
        queues = qmgr.accounting_q
        if qmgr.accounting_conn_override == C.MQMON_ENABLED:
            if options & C.MQCNO_ACCOUNTING_MQI_ENABLED:
                mqi = True
            elif options & C.MQCNO_ACCOUNTING_MQI_DISABLED:
                mqi = False
            if queues != C.MQMON_NONE:
                if options & C.MQCNO_ACCOUNTING_Q_ENABLED:
                    queues = C.MQMON_ON
                elif options & C.MQCNO_ACCOUNTING_Q_DISABLED:
                    queues = C.MQMON_OFF
        if queues == C.MQMON_NONE:
            mode = QUEUES_NONE
        elif queues == C.MQMON_ON:
            mode = QUEUES_ALL
        elif any(getattr(q, "accounting_q", C.MQMON_Q_MGR) == C.MQMON_ON for q in self.qm.registry.queues.values()):
            mode = QUEUES_ON_ONLY  # ACCTQ(OFF) at the queue manager: the queues that say ON still collect
        else:
            mode = QUEUES_NONE
        if not mqi and mode == QUEUES_NONE:
            return None
        return ConnAccounting(mqi, mode, self.qm.now())

    # ---- when -------------------------------------------------------------------------------------
    def tick(self, now: float | None = None) -> int:
        """Called by the server's clock: an intermediate record for each connection that has collected
        for ACCTINT seconds; returns the messages written."""
        qm = self.qm
        now = qm.now() if now is None else now
        limit = max(1, qm.registry.qmgr.accounting_interval)
        written = 0
        for session in list(qm.sessions.values()):
            acct = session.acct
            if acct is not None and now - acct.start >= limit:
                written += self.write(session, now, ended=False)
        return written

    def finish(self, session: Session, *, implicit: bool) -> int:
        """The connection ended: its last record (DiscType NORMAL for MQDISC, IMPLICIT otherwise)."""
        return self.write(session, self.qm.now(), ended=True, implicit=implicit)

    def write(self, session: Session, now: float, *, ended: bool, implicit: bool = False) -> int:
        acct = session.acct
        bodies: list[bytes] = []
        if acct.mqi:
            bodies += self.mqi_messages(session, acct, now, ended=ended, implicit=implicit)
        if acct.queues_mode != QUEUES_NONE:
            bodies += self.queue_messages(session, acct, now)
        # the next interval starts now, with nothing counted
        acct.start = now
        acct.seq += 1
        acct.counts = ConnCounts()
        acct.queues = {}
        for handle in session.handles.values():
            if handle.kind == "queue" and isinstance(handle.stats, Tee):
                handle.stats.rec = acct.queue(handle.name)
        return records.write(self.qm, records.ACCOUNTING_QUEUE, bodies) if bodies else 0

    # ---- the records ------------------------------------------------------------------------------
    def _identity(self, session: Session, acct: ConnAccounting, now: float) -> list:
        return records.interval(self.qm, acct.start, now) + [
            P.CFBS(C.MQBACF_CONNECTION_ID, session.connection_id),
            P.CFIN(C.MQIACF_SEQUENCE_NUMBER, acct.seq),
            records.text(C.MQCACF_APPL_NAME, session.appl_name, C.MQ_APPL_NAME_LENGTH),
            P.CFIN(C.MQIACF_PROCESS_ID, 0),  # a client's process is not known to the queue manager
            P.CFIN(C.MQIACF_THREAD_ID, 0),
            records.text(C.MQCACF_USER_IDENTIFIER, session.user, C.MQ_USER_ID_LENGTH),
        ]

    def mqi_messages(self, session: Session, acct: ConnAccounting, now: float, *, ended: bool,
                     implicit: bool) -> list[bytes]:
        counts = acct.counts
        total = QueueStats()
        for rec in acct.queues.values():
            total.add(rec.stats)
        n = {**total.snapshot(), **counts.snapshot()}
        n["put_fails"] = counts.put_fails + total.put_fails
        n["put1_fails"] = counts.put1_fails + total.put1_fails
        params = self._identity(session, acct, now) + [
            *records.stamp(C.MQCAMO_CONN_DATE, C.MQCAMO_CONN_TIME, session.started),
            records.text(C.MQCACH_CONNECTION_NAME, session.conname, C.MQ_CONN_NAME_LENGTH),
            records.text(C.MQCACH_CHANNEL_NAME, session.channel, C.MQ_CHANNEL_NAME_LENGTH),
        ]
        if ended:
            params += [*records.stamp(C.MQCAMO_DISC_DATE, C.MQCAMO_DISC_TIME, now),
                       P.CFIN(C.MQIAMO_DISC_TYPE,
                              records.MQDISCONNECT_IMPLICIT if implicit else records.MQDISCONNECT_NORMAL)]
        zero: dict = {}
        params += [
            P.CFIL(C.MQIAMO_OPENS, tuple(counts.opens)),
            P.CFIL(C.MQIAMO_OPENS_FAILED, tuple(counts.open_fails)),
            P.CFIL(C.MQIAMO_CLOSES, tuple(counts.closes)),
            P.CFIL(C.MQIAMO_CLOSES_FAILED, tuple(counts.close_fails)),
            *mqi_message_counts(n, zero, put_fails="put_fails", put1_fails="put1_fails"),
            P.CFIN(C.MQIAMO_COMMITS, counts.commits),
            P.CFIN(C.MQIAMO_COMMITS_FAILED, 0),
            P.CFIN(C.MQIAMO_BACKOUTS, counts.backouts),
            P.CFIL(C.MQIAMO_INQS, tuple(counts.inqs)),
            P.CFIL(C.MQIAMO_INQS_FAILED, tuple(counts.inq_fails)),
            P.CFIL(C.MQIAMO_SETS, tuple(counts.sets)),
            P.CFIL(C.MQIAMO_SETS_FAILED, tuple(counts.set_fails)),
            *subscription_counts(n, zero),
            P.CFIL(C.MQIAMO_TOPIC_PUTS, (counts.topic_put_np - counts.topic_put1_np,
                                          counts.topic_put_p - counts.topic_put1_p)),
            P.CFIN(C.MQIAMO_TOPIC_PUTS_FAILED, counts.topic_put_fails),
            P.CFIL(C.MQIAMO_TOPIC_PUT1S, (counts.topic_put1_np, counts.topic_put1_p)),
            P.CFIN(C.MQIAMO_TOPIC_PUT1S_FAILED, counts.topic_put1_fails),
            P.CFIL64(C.MQIAMO64_TOPIC_PUT_BYTES, (counts.topic_put_bytes, 0)),
        ]
        return records.messages(C.MQCFT_ACCOUNTING, C.MQCMD_ACCOUNTING_MQI, params)

    def queue_messages(self, session: Session, acct: ConnAccounting, now: float) -> list[bytes]:
        reg = self.qm.registry
        groups = []
        for name, rec in sorted(acct.queues.items()):
            queue = reg.queues.get(name)
            if queue is None:
                continue
            own = getattr(queue, "accounting_q", C.MQMON_Q_MGR)
            if own == C.MQMON_OFF or (own == C.MQMON_Q_MGR and acct.queues_mode != QUEUES_ALL):
                continue
            groups.append(self._queue_group(queue, rec))
        if not groups:
            return []
        return records.messages(C.MQCFT_ACCOUNTING, C.MQCMD_ACCOUNTING_Q, self._identity(session, acct, now), groups)

    @staticmethod
    def _queue_group(queue, rec: QueueRecord) -> P.CFGR:
        s = rec.stats

        def low(pair: list[int]) -> tuple[int, int]:
            return (max(pair[0], 0), max(pair[1], 0))

        gets = (s.get_np, s.get_p)
        waited_p = s.queue_time_p
        waited = (s.queue_time - waited_p, waited_p)
        average = tuple(int(round(w * 1_000_000 / g)) if g else 0 for w, g in zip(waited, gets))
        return P.CFGR(C.MQGACF_Q_ACCOUNTING_DATA, [
            records.text(C.MQCA_Q_NAME, queue.name, C.MQ_Q_NAME_LENGTH),
            *_creation(queue),
            P.CFIN(C.MQIA_Q_TYPE, queue.qtype),
            P.CFIN(C.MQIA_DEFINITION_TYPE, queue.definition_type),
            P.CFIN(C.MQIAMO_OPENS, rec.open_count),
            *records.stamp(C.MQCAMO_OPEN_DATE, C.MQCAMO_OPEN_TIME, rec.opened),
            *records.stamp(C.MQCAMO_CLOSE_DATE, C.MQCAMO_CLOSE_TIME, rec.closed),
            P.CFIL(C.MQIAMO_PUTS, (s.put_np, s.put_p)),
            P.CFIN(C.MQIAMO_PUTS_FAILED, s.put_fails),
            P.CFIL(C.MQIAMO_PUT1S, (s.put1_np, s.put1_p)),
            P.CFIN(C.MQIAMO_PUT1S_FAILED, s.put1_fails),
            P.CFIL64(C.MQIAMO64_PUT_BYTES, (s.put_bytes_np, s.put_bytes_p)),
            P.CFIL(C.MQIAMO_PUT_MIN_BYTES, low(rec.put_min)),
            P.CFIL(C.MQIAMO_PUT_MAX_BYTES, tuple(rec.put_max)),
            P.CFIL(C.MQIAMO_GENERATED_MSGS, (0, 0)),  # report messages qmlite generates are not counted
            P.CFIL(C.MQIAMO_GETS, gets),
            P.CFIN(C.MQIAMO_GETS_FAILED, s.get_fails),
            P.CFIL64(C.MQIAMO64_GET_BYTES, (s.get_bytes_np, s.get_bytes_p)),
            P.CFIL(C.MQIAMO_GET_MIN_BYTES, low(rec.get_min)),
            P.CFIL(C.MQIAMO_GET_MAX_BYTES, tuple(rec.get_max)),
            P.CFIL(C.MQIAMO_BROWSES, (s.browse_np, s.browse_p)),
            P.CFIN(C.MQIAMO_BROWSES_FAILED, s.browse_fails),
            P.CFIL64(C.MQIAMO64_BROWSE_BYTES, (s.browse_bytes_np, s.browse_bytes_p)),
            P.CFIL(C.MQIAMO_BROWSE_MIN_BYTES, low(rec.browse_min)),
            P.CFIL(C.MQIAMO_BROWSE_MAX_BYTES, tuple(rec.browse_max)),
            P.CFIL64(C.MQIAMO64_Q_TIME_MIN, low(rec.time_min)),
            P.CFIL64(C.MQIAMO64_Q_TIME_AVG, average),
            P.CFIL64(C.MQIAMO64_Q_TIME_MAX, tuple(rec.time_max)),
            P.CFIN(C.MQIAMO_CBS, 0),
            P.CFIN(C.MQIAMO_CBS_FAILED, 0),
        ])
