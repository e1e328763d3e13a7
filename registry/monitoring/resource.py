"""Resource-usage monitoring as IBM MQ 9 publishes it on system topics (amqsrua, IBM's Prometheus
exporter mq-metric-samples / mq-golang mqmetric).

Metadata, published once as retained publications so a subscriber gets them at MQSUB::

    $SYS/MQ/INFO/QMGR/<qmgr>/Monitor/METADATA/CLASSES          groups MQGACF_MONITOR_CLASS
    $SYS/MQ/INFO/QMGR/<qmgr>/Monitor/METADATA/<class>/TYPES    groups MQGACF_MONITOR_TYPE
    $SYS/MQ/INFO/QMGR/<qmgr>/Monitor/METADATA/<class>/<type>   groups MQGACF_MONITOR_ELEMENT

and every interval the resource-usage publications themselves, on the topic each ELEMENTS message
names: ``.../Monitor/<class>/<type>``, or ``.../Monitor/STATQ/<queue>/<type>`` per queue, made only
for the queues someone subscribes to by name (IBM publishes per-object data on demand).

Each publication carries the class and type indexes, MQIAMO64_MONITOR_INTERVAL (microseconds) and
one MQCFIN64 per element whose Parameter is the element's index.  Class, type and element indexes
and descriptions are IBM's own (the descriptions become the exporter's metric names); what qmlite
cannot measure (disk, log, native HA, lock contention...) is not advertised at all.  Sources and
decisions: docs/compat.md Part 5.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P

from qmlite.registry.errors import MQIError
from qmlite.registry.monitoring.hostusage import HostUsage

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

DEFAULT_INTERVAL = 10.0  # seconds: IBM's publication interval (no public attribute sets it)
ENCODING = C.MQENC_NATIVE  # 546, little-endian integers
CCSID = 1208
OBJECT_PLACEHOLDER = "%s"

UNIT = C.MQIAMO_MONITOR_UNIT
DELTA = C.MQIAMO_MONITOR_DELTA
HUNDREDTHS = C.MQIAMO_MONITOR_HUNDREDTHS
PERCENT = C.MQIAMO_MONITOR_PERCENT
MICROSEC = C.MQIAMO_MONITOR_MICROSEC
MB = C.MQIAMO_MONITOR_MB


@dataclasses.dataclass(frozen=True, slots=True)
class Element:
    index: int
    datatype: int
    desc: str
    counters: tuple[str, ...] = ()  # DELTA: the change in the sum of these counters over the interval
    gauge: str = ""  # otherwise: the value of this gauge now (absent gauges are left out)


@dataclasses.dataclass(frozen=True, slots=True)
class MonType:
    index: int
    name: str
    desc: str
    elements: tuple[Element, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class MonClass:
    index: int
    name: str
    desc: str
    per_object: bool  # MQIAMO_MONITOR_FLAGS_OBJNAME: the topic names an object
    types: tuple[MonType, ...]

    @property
    def flags(self) -> int:
        return C.MQIAMO_MONITOR_FLAGS_OBJNAME if self.per_object else C.MQIAMO_MONITOR_FLAGS_NONE


def _d(index: int, desc: str, *counters: str) -> Element:
    return Element(index, DELTA, desc, counters)


def _g(index: int, datatype: int, desc: str, gauge: str) -> Element:
    return Element(index, datatype, desc, gauge=gauge)


# IBM's indexes and descriptions (amqsruaa.c's sample output, IBM MQ 9.x); gaps are elements IBM
# publishes that qmlite cannot measure.
CATALOGUE: tuple[MonClass, ...] = (
    MonClass(0, "CPU", "Platform central processing units", False, (
        MonType(0, "SystemSummary", "CPU performance - platform wide", (
            _g(0, PERCENT, "User CPU time percentage", "cpu_user"),
            _g(1, PERCENT, "System CPU time percentage", "cpu_system"),
            _g(2, HUNDREDTHS, "CPU load - one minute average", "load1"),
            _g(3, HUNDREDTHS, "CPU load - five minute average", "load5"),
            _g(4, HUNDREDTHS, "CPU load - fifteen minute average", "load15"),
            _g(5, PERCENT, "RAM free percentage", "ram_free_pct"),
            _g(6, MB, "RAM total bytes", "ram_total_mb"),
        )),
        MonType(1, "QMgrSummary", "CPU performance - running queue manager", (
            _g(0, PERCENT, "User CPU time - percentage estimate for queue manager", "qm_cpu_user"),
            _g(1, PERCENT, "System CPU time - percentage estimate for queue manager", "qm_cpu_system"),
            _g(2, MB, "RAM total bytes - estimate for queue manager", "qm_ram_mb"),
        )),
    )),
    MonClass(2, "STATMQI", "API usage statistics", False, (
        MonType(0, "CONNDISC", "MQCONN and MQDISC", (
            _d(0, "MQCONN/MQCONNX count", "conns"),
            _d(1, "Failed MQCONN/MQCONNX count", "conn_fails"),
            _g(2, UNIT, "Concurrent connections - high water mark", "conn_hwm"),
            _d(3, "MQDISC count", "discs"),
        )),
        MonType(1, "OPENCLOSE", "MQOPEN and MQCLOSE", (
            _d(0, "MQOPEN count", "opens"),
            _d(1, "Failed MQOPEN count", "open_fails"),
            _d(2, "MQCLOSE count", "closes"),
            _d(3, "Failed MQCLOSE count", "close_fails"),
        )),
        MonType(2, "INQSET", "MQINQ and MQSET", (
            _d(0, "MQINQ count", "inqs"),
            _d(1, "Failed MQINQ count", "inq_fails"),
            _d(2, "MQSET count", "sets"),
            _d(3, "Failed MQSET count", "set_fails"),
        )),
        MonType(3, "PUT", "MQPUT", (
            _d(0, "Interval total MQPUT/MQPUT1 count", "put_np", "put_p", "put1_np", "put1_p"),
            _d(1, "Interval total MQPUT/MQPUT1 byte count", "put_bytes_np", "put_bytes_p"),
            _d(2, "Non-persistent message MQPUT count", "put_np"),
            _d(3, "Persistent message MQPUT count", "put_p"),
            _d(4, "Failed MQPUT count", "put_fails"),
            _d(5, "Non-persistent message MQPUT1 count", "put1_np"),
            _d(6, "Persistent message MQPUT1 count", "put1_p"),
            _d(7, "Failed MQPUT1 count", "put1_fails"),
            _d(8, "Put non-persistent messages - byte count", "put_bytes_np"),
            _d(9, "Put persistent messages - byte count", "put_bytes_p"),
        )),
        MonType(4, "GET", "MQGET", (
            _d(0, "Interval total destructive get- count", "get_np", "get_p"),
            _d(1, "Interval total destructive get - byte count", "get_bytes_np", "get_bytes_p"),
            _d(2, "Non-persistent message destructive get - count", "get_np"),
            _d(3, "Persistent message destructive get - count", "get_p"),
            _d(5, "Got non-persistent messages - byte count", "get_bytes_np"),
            _d(6, "Got persistent messages - byte count", "get_bytes_p"),
            _d(7, "Non-persistent message browse - count", "browse_np"),
            _d(8, "Persistent message browse - count", "browse_p"),
            _d(10, "Non-persistent message browse - byte count", "browse_bytes_np"),
            _d(11, "Persistent message browse - byte count", "browse_bytes_p"),
            _d(12, "Expired message count", "expired"),
        )),
        MonType(5, "SYNCPOINT", "Commit and rollback", (
            _d(0, "Commit count", "commits"),
            _d(2, "Rollback count", "backouts"),
        )),
        MonType(6, "SUBSCRIBE", "Subscribe", (
            _d(0, "Create durable subscription count", "subs_durable_created"),
            _d(1, "Alter durable subscription count", "subs_altered"),
            _d(2, "Resume durable subscription count", "subs_resumed"),
            _d(3, "Create non-durable subscription count", "subs_nondurable_created"),
            _d(6, "Failed create/alter/resume subscription count", "sub_fails"),
            _d(10, "MQSUBRQ count", "subrqs"),
            _d(11, "Failed MQSUBRQ count", "subrq_fails"),
        )),
        MonType(7, "PUBLISH", "Publish", (
            _d(0, "Topic MQPUT/MQPUT1 interval total", "topic_put_np", "topic_put_p"),
            _d(1, "Interval total topic bytes put", "topic_put_bytes"),
            _d(2, "Published to subscribers - message count", "published"),
            _d(3, "Published to subscribers - byte count", "published_bytes"),
            _d(4, "Non-persistent - topic MQPUT/MQPUT1 count", "topic_put_np"),
            _d(5, "Persistent - topic MQPUT/MQPUT1 count", "topic_put_p"),
            _d(6, "Failed topic MQPUT/MQPUT1 count", "topic_put_fails"),
        )),
    )),
    MonClass(3, "STATQ", "API per-queue usage statistics", True, (
        MonType(0, "OPENCLOSE", "MQOPEN and MQCLOSE", (
            _d(0, "MQOPEN count", "opens"),
            _d(1, "MQCLOSE count", "closes"),
        )),
        MonType(1, "INQSET", "MQINQ and MQSET", (
            _d(0, "MQINQ count", "inqs"),
            _d(1, "MQSET count", "sets"),
        )),
        MonType(2, "PUT", "MQPUT and MQPUT1", (
            _d(0, "MQPUT/MQPUT1 count", "put_np", "put_p", "put1_np", "put1_p"),
            _d(1, "MQPUT byte count", "put_bytes_np", "put_bytes_p"),
            _d(2, "MQPUT non-persistent message count", "put_np"),
            _d(3, "MQPUT persistent message count", "put_p"),
            _d(4, "MQPUT1 non-persistent message count", "put1_np"),
            _d(5, "MQPUT1 persistent message count", "put1_p"),
            _d(6, "non-persistent byte count", "put_bytes_np"),
            _d(7, "persistent byte count", "put_bytes_p"),
        )),
        MonType(3, "GET", "MQGET", (
            _d(0, "MQGET count", "get_np", "get_p"),
            _d(1, "MQGET byte count", "get_bytes_np", "get_bytes_p"),
            _d(2, "destructive MQGET non-persistent message count", "get_np"),
            _d(3, "destructive MQGET persistent message count", "get_p"),
            _d(4, "destructive MQGET non-persistent byte count", "get_bytes_np"),
            _d(5, "destructive MQGET persistent byte count", "get_bytes_p"),
            _d(6, "MQGET browse non-persistent message count", "browse_np"),
            _d(7, "MQGET browse persistent message count", "browse_p"),
            _d(8, "MQGET browse non-persistent byte count", "browse_bytes_np"),
            _d(9, "MQGET browse persistent byte count", "browse_bytes_p"),
        )),
        MonType(4, "GENERAL", "General queue metrics", (
            _d(0, "messages expired", "expired"),
            _d(1, "queue purged count", "purged"),
            _g(2, MICROSEC, "average queue time", "queue_time"),
            _g(3, UNIT, "Queue depth", "depth"),
        )),
    )),
)
CLASSES = {c.name: c for c in CATALOGUE}


def _mqmd() -> S.MQMD:
    return S.MQMD(Format=C.MQFMT_ADMIN.rstrip(), Encoding=ENCODING, CodedCharSetId=CCSID,
                  MsgType=C.MQMT_DATAGRAM, Persistence=C.MQPER_NOT_PERSISTENT, Priority=0,
                  PutApplType=C.MQAT_QMGR, PutApplName="qmlite monitor")


def _message(params: list) -> bytes:
    # MQCFT_STATISTICS: the header type of IBM's other statistics messages (see the Decisions).
    return P.encode(P.PCFMessage(P.CFH(C.MQCFT_STATISTICS, Command=C.MQCMD_NONE), params), ENCODING, CCSID)


def _text(pid: int, value: str) -> P.CFST:
    return P.CFST(pid, value, CCSID)


class Monitor:
    """The resource-usage publisher of one queue manager: the metadata, the counters' baselines, and
    ``publish_resource_usage`` for the server's clock to call every ``interval`` seconds."""

    def __init__(self, qm: QueueManager, *, interval: float = DEFAULT_INTERVAL, host=None) -> None:
        self.qm = qm
        self.interval = interval
        self.host = host if host is not None else HostUsage()
        self._started = qm.now()
        self._last = self._started
        self._mqi_before = self._mqi_counts()
        self._queue_before: dict[str, dict[str, int]] = {}

    def _mqi_counts(self) -> dict[str, int]:
        # The queue manager's MQPUT/MQGET figures are its queues' summed; the rest are its own.
        return {**self.qm.registry.messages.totals(), **self.qm.stats.snapshot()}

    # ---- topics ----------------------------------------------------------------------------------
    @property
    def root(self) -> str:
        return f"$SYS/MQ/INFO/QMGR/{self.qm.registry.qmgr.name}/Monitor"

    def types_topic(self, cls: MonClass) -> str:
        return f"{self.root}/METADATA/{cls.name}/TYPES"

    def elements_topic(self, cls: MonClass, typ: MonType) -> str:
        return f"{self.root}/METADATA/{cls.name}/{typ.name}"

    def resource_topic(self, cls: MonClass, typ: MonType, obj: str = OBJECT_PLACEHOLDER) -> str:
        if cls.per_object:
            # From MQ 9.3 an object name's '/' is written '&' in the topic, to keep the levels.
            return f"{self.root}/{cls.name}/{obj.replace('/', '&')}/{typ.name}"
        return f"{self.root}/{cls.name}/{typ.name}"

    # ---- metadata --------------------------------------------------------------------------------
    def metadata(self) -> dict[str, bytes]:
        """Topic -> PCF body of every metadata publication."""
        out = {f"{self.root}/METADATA/CLASSES": _message([
            P.CFGR(C.MQGACF_MONITOR_CLASS, [
                P.CFIN(C.MQIAMO_MONITOR_CLASS, cls.index), P.CFIN(C.MQIAMO_MONITOR_FLAGS, cls.flags),
                _text(C.MQCAMO_MONITOR_CLASS, cls.name), _text(C.MQCAMO_MONITOR_DESC, cls.desc),
                _text(C.MQCA_TOPIC_STRING, self.types_topic(cls))])
            for cls in CATALOGUE])}
        for cls in CATALOGUE:
            out[self.types_topic(cls)] = _message(
                [P.CFIN(C.MQIAMO_MONITOR_CLASS, cls.index), P.CFIN(C.MQIAMO_MONITOR_FLAGS, cls.flags)]
                + [P.CFGR(C.MQGACF_MONITOR_TYPE, [
                    P.CFIN(C.MQIAMO_MONITOR_TYPE, typ.index), _text(C.MQCAMO_MONITOR_TYPE, typ.name),
                    _text(C.MQCAMO_MONITOR_DESC, typ.desc), _text(C.MQCA_TOPIC_STRING, self.elements_topic(cls, typ))])
                   for typ in cls.types])
            for typ in cls.types:
                out[self.elements_topic(cls, typ)] = _message(
                    [P.CFIN(C.MQIAMO_MONITOR_CLASS, cls.index), P.CFIN(C.MQIAMO_MONITOR_TYPE, typ.index),
                     _text(C.MQCA_TOPIC_STRING, self.resource_topic(cls, typ))]
                    + [P.CFGR(C.MQGACF_MONITOR_ELEMENT, [
                        P.CFIN(C.MQIAMO_MONITOR_ELEMENT, el.index), P.CFIN(C.MQIAMO_MONITOR_DATATYPE, el.datatype),
                        _text(C.MQCAMO_MONITOR_DESC, el.desc)])
                       for el in typ.elements])
        return out

    def publish_metadata(self) -> int:
        """Publish the metadata as retained publications (IBM does so at queue-manager start);
        returns how many topics were published."""
        published = 0
        for topic, body in self.metadata().items():
            self.qm.publish(topic, _mqmd(), body, options=C.MQPMO_RETAIN)
            published += 1
        return published

    # ---- resource usage --------------------------------------------------------------------------
    def watched_queues(self) -> dict[str, set[str]]:
        """Queue name -> STATQ type names that some subscription names literally (wildcards do
        not start per-queue publications: IBM needs the object named in the topic)."""
        prefix = f"{self.root}/STATQ/"
        watched: dict[str, set[str]] = {}
        for sub in self.qm.registry.subs_by_id.values():
            topic = sub.resolved_topic
            if not topic.startswith(prefix):
                continue
            obj, _, type_name = topic[len(prefix):].partition("/")
            if not obj or "/" in type_name or _wild(obj, sub.wildcard_schema):
                continue
            watched.setdefault(obj.replace("&", "/"), set()).add(type_name)
        return watched

    def due(self, now: float) -> bool:
        """The monitoring interval has passed since the last publication (a virtual clock's step asks)."""
        return now - self._last >= self.interval

    def publish_resource_usage(self, now: float | None = None) -> int:
        """Publish one interval's resource usage to whoever subscribes; returns the publications
        that reached a subscriber."""
        qm = self.qm
        reg = qm.registry
        now = qm.now() if now is None else now
        interval_us = max(0, int(round((now - self._last) * 1_000_000)))
        self._last = now
        delivered = 0
        host = self.host.sample()
        mqi_now = self._mqi_counts()
        before, self._mqi_before = self._mqi_before, mqi_now
        gauges = dict(host, conn_hwm=qm.stats.conn_hwm)
        qm.stats.conn_hwm = len(qm.sessions)  # the high-water mark restarts each interval
        for cls in CATALOGUE:
            if cls.per_object:
                continue
            for typ in cls.types:
                values = _values(typ, mqi_now, before, gauges)
                delivered += self._publish(cls, typ, interval_us, values)
        statq = CLASSES["STATQ"]
        watched = self.watched_queues()
        for name in list(self._queue_before):
            if name not in watched:
                del self._queue_before[name]  # no longer watched: a new watch starts a new baseline
        for name, type_names in watched.items():
            queue = reg.queues.get(name)
            contents = reg.messages.peek(name)
            if queue is None or queue.qtype != C.MQQT_LOCAL:
                continue
            counts = contents.stats.snapshot() if contents is not None else {}
            before = self._queue_before.get(name, {})
            self._queue_before[name] = counts
            gets = (counts.get("get_np", 0) + counts.get("get_p", 0)
                    - before.get("get_np", 0) - before.get("get_p", 0))
            waited = counts.get("queue_time", 0) - before.get("queue_time", 0)
            gauges = {"depth": reg.messages.depth(name),
                      "queue_time": int(round(waited * 1_000_000 / gets)) if gets else 0}
            for typ in statq.types:
                if typ.name in type_names:
                    delivered += self._publish(statq, typ, interval_us, _values(typ, counts, before, gauges), name)
        return delivered

    def _publish(self, cls: MonClass, typ: MonType, interval_us: int, values: list, obj: str | None = None) -> int:
        params: list = [_text(C.MQCA_Q_MGR_NAME, self.qm.registry.qmgr.name),
                        P.CFIN(C.MQIAMO_MONITOR_CLASS, cls.index), P.CFIN(C.MQIAMO_MONITOR_TYPE, typ.index),
                        P.CFIN64(C.MQIAMO64_MONITOR_INTERVAL, interval_us)]
        if obj is not None:
            params += [_text(C.MQCA_Q_NAME, obj), P.CFIN(C.MQIACF_OBJECT_TYPE, C.MQOT_Q)]
        params += [P.CFIN64(index, value) for index, value in values]
        topic = self.resource_topic(cls, typ, obj) if obj is not None else self.resource_topic(cls, typ)
        try:
            return 1 if self.qm.publish(topic, _mqmd(), _message(params)) else 0
        except MQIError:
            return 0  # a subscriber's full queue loses this interval's figures, as IBM's would


def _values(typ: MonType, now: dict[str, int], before: dict[str, int], gauges: dict[str, int]) -> list:
    out = []
    for el in typ.elements:
        if el.counters:
            out.append((el.index, sum(now.get(c, 0) - before.get(c, 0) for c in el.counters)))
        elif el.gauge in gauges:
            out.append((el.index, gauges[el.gauge]))
    return out


def _wild(level: str, schema: int) -> bool:
    if schema == C.MQWS_CHAR:
        return "*" in level or "?" in level
    return level in ("#", "+")
