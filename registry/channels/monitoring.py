"""What MONCHL and STATCHL show of a message channel, measured as its agent works (docs/channels.md
"Monitoring and statistics", docs/decisions.md MCM4-MCM8):

* NETTIME: the round trip of a request that waits for the partner's answer -- a batch's end and its
  confirmation, the start's resync -- in microseconds, at the sending end;
* XQTIME: how long each message sat on the transmission queue (its PutDate/PutTime to the get);
* XBATCHSZ: the messages in each batch, at both ends.

Each is a pair, as IBM shows them: a short-term value that follows recent activity and a long-term one
that follows it slowly (moving averages of each sample).  ``Interval`` gathers what a channel
statistics message reports for one STATINT (registry/monitoring/statistics.py), reset when it is written.
No sockets, no trio: the drivers (server/mca/run.py) and the sending end report what happened.
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass, field

NOT_AVAILABLE = -1  # MQMON_NOT_AVAILABLE: nothing measured yet
# The weight of each new sample: the short-term value mostly the last few, the long-term one about the
# last thirty (IBM documents "recent activity over a short period" and "over a longer period").
SHORT_WEIGHT = 0.5
LONG_WEIGHT = 1 / 32


@dataclass(slots=True)
class Indicator:
    short: float = float(NOT_AVAILABLE)
    long: float = float(NOT_AVAILABLE)

    def add(self, value: float) -> None:
        if self.short < 0:
            self.short = self.long = value
            return
        self.short += (value - self.short) * SHORT_WEIGHT
        self.long += (value - self.long) * LONG_WEIGHT

    def pair(self) -> tuple[int, int]:
        if self.short < 0:
            return (NOT_AVAILABLE, NOT_AVAILABLE)
        return (round(self.short), round(self.long))


@dataclass(slots=True)
class Interval:
    """One statistics interval of a channel: IBM's ChlStatisticsData counts."""

    msgs: int = 0
    total_bytes: int = 0
    full_batches: int = 0
    incomplete_batches: int = 0
    batch_msgs: int = 0  # the messages of those batches (AverageBatchSize)
    net_count: int = 0
    net_total: int = 0  # microseconds
    net_min: int = 0
    net_max: int = 0
    put_retries: int = 0  # the receiving end's put retries: qmlite dead-letters at once, so none

    @property
    def active(self) -> bool:
        return bool(self.msgs or self.full_batches or self.incomplete_batches or self.net_count or self.total_bytes)

    @property
    def net_avg(self) -> int:
        return round(self.net_total / self.net_count) if self.net_count else 0

    @property
    def avg_batch_size(self) -> int:
        batches = self.full_batches + self.incomplete_batches
        return round(self.batch_msgs / batches) if batches else 0


@dataclass(slots=True)
class Measures:
    net_time: Indicator = field(default_factory=Indicator)
    xq_time: Indicator = field(default_factory=Indicator)
    batch_size: Indicator = field(default_factory=Indicator)
    interval: Interval = field(default_factory=Interval)

    def restart(self) -> None:
        """A new instance of the channel: its indicators start again (the interval's counts stay)."""
        self.net_time, self.xq_time, self.batch_size = Indicator(), Indicator(), Indicator()

    def take_interval(self) -> Interval:
        """The interval's counts, and a new interval."""
        done, self.interval = self.interval, Interval()
        return done


def micros(seconds: float) -> int:
    return max(0, round(seconds * 1_000_000))


def round_trip(measures: Measures, seconds: float) -> None:
    """A request answered by the partner after ``seconds`` (NETTIME, and the interval's NetTime*)."""
    value = micros(seconds)
    measures.net_time.add(value)
    i = measures.interval
    i.net_min = value if not i.net_count else min(i.net_min, value)
    i.net_max = max(i.net_max, value)
    i.net_count += 1
    i.net_total += value


def batch_ended(measures: Measures, count: int, full: bool) -> None:
    """A batch of ``count`` messages committed; ``full`` when BATCHSZ or BATCHLIM ended it."""
    if count <= 0:
        return
    measures.batch_size.add(count)
    i = measures.interval
    if full:
        i.full_batches += 1
    else:
        i.incomplete_batches += 1
    i.batch_msgs += count


def message_moved(measures: Measures, size: int) -> None:
    measures.interval.msgs += 1
    measures.interval.total_bytes += size


_MIDNIGHTS: dict[str, float] = {}


def put_epoch(put_date: str, put_time: str) -> float | None:
    """An MQMD's PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` (GMT) as seconds since the epoch; None
    when they do not read as a time.  The date's midnight is kept: a channel meets few dates."""
    midnight = _MIDNIGHTS.get(put_date)
    if midnight is None:
        if len(put_date) != 8 or not put_date.isdigit():  # strptime alone would read "2026130" as a date
            return None
        try:
            midnight = float(calendar.timegm(time.strptime(put_date, "%Y%m%d")))
        except ValueError:
            return None
        if len(_MIDNIGHTS) > 64:
            _MIDNIGHTS.clear()
        _MIDNIGHTS[put_date] = midnight
    t = put_time.strip()
    if len(t) != 8 or not t.isdigit():
        return None
    return midnight + int(t[0:2]) * 3600 + int(t[2:4]) * 60 + int(t[4:6]) + int(t[6:8]) / 100


def message_got(measures: Measures, md, size: int, now: float) -> None:
    """A message of ``size`` bytes got from the transmission queue to be sent: XQTIME from its put time."""
    message_moved(measures, size)
    put = put_epoch(md.PutDate, md.PutTime)
    if put is not None:
        measures.xq_time.add(micros(now - put))
