"""A clock the test controls (issue 23 part 2; docs/mqsc.md "SET QMLITE CLOCK", decisions VC1-VC8).

The queue manager already reads every time through one injected clock (``Registry.clock``, behind
``QueueManager.now()``): message and subscription expiry, retained publications' remaining expiry,
PutDate/PutTime, status times, and the statistics, accounting and monitoring intervals.  A
:class:`VirtualClock` is such a clock whose time moves only when told to, and :class:`ClockControl` is
the one object the pytest plugin, MQSC (``SET QMLITE CLOCK`` / ``DISPLAY QMLITE CLOCK``) and REST
(``/admin/qmlite/clock``) all call, so the three can never disagree about what a step is or does.

Moving the clock does, at once and on the caller's thread (the server's event loop):

* expired subscriptions go (IBM deletes a subscription whose Expiry has passed);
* the statistics and accounting intervals end when STATINT / ACCTINT have passed, and the
  resource-usage publications go out when the monitoring interval has passed (one publication
  covering the whole step, VC4);
* the listeners are told (the server wakes every MQGET that waits, and each looks again: the message
  expiry is lazy, as IBM's is without an expiry scan, and a wait whose interval has passed ends).

Messages and retained publications expire lazily against the clock, as they always did: the next
MQGET, browse or MQSUB sees them gone.  The real clock stays the default; with it, every control
here answers "the clock is real" (MQRC_ENVIRONMENT_ERROR, VC3).
"""

from __future__ import annotations

import calendar
import math
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import structlog

from qmlite.pcf import constants as C

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

log = structlog.get_logger("qmlite.clock")

REAL = "REAL"
VIRTUAL = "VIRTUAL"
MODES = (REAL, VIRTUAL)
MAX_STEP = 366 * 86400  # seconds one step may move: a year, so a typo cannot throw PutDate into year 9999
SECONDS_FORM = re.compile(r"^[0-9]{1,9}(\.[0-9]{1,3})?$")  # MQSC's SECONDS(n): digits, up to milliseconds
_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")  # DISPLAY's DATE(yyyy-mm-dd), IBM's form
_TIME = re.compile(r"^([0-9]{2})[.:]([0-9]{2})[.:]([0-9]{2})$")  # TIME(hh.mm.ss), IBM's form


class ClockError(ValueError):
    """A clock request the queue manager refuses: ``reason`` is the MQ reason a surface reports
    (MQRCCF_PARM_VALUE_ERROR for a malformed step, MQRC_ENVIRONMENT_ERROR for a real clock)."""

    def __init__(self, reason: int, message: str, parameter: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.parameter = parameter


class VirtualClock:
    """A time that stays where it is until moved.  Callable, like ``time.time``, so it is the
    registry's injected clock.  It starts at the real time (PutDate looks like today) unless told."""

    def __init__(self, start: float | None = None) -> None:
        self._now = float(time.time() if start is None else start)
        self.advanced = 0.0  # seconds moved since the start, for DISPLAY
        # Waits that follow this clock (MQGET WaitInterval, MQCB consumers): token -> deadline.  A test
        # thread may wait (threading) until the application's call has reached the queue manager.
        self._waits: dict[int, float] = {}
        self._next_token = 0
        self._changed = threading.Condition()

    def __call__(self) -> float:
        return self._now

    def move_to(self, when: float) -> None:
        self.advanced += when - self._now
        self._now = when

    # ---- the waits that follow the clock --------------------------------------------------------
    def add_wait(self, deadline: float) -> int:
        with self._changed:
            self._next_token += 1
            self._waits[self._next_token] = deadline
            self._changed.notify_all()
            return self._next_token

    def remove_wait(self, token: int) -> None:
        with self._changed:
            if self._waits.pop(token, None) is not None:
                self._changed.notify_all()

    @property
    def waits(self) -> int:
        return len(self._waits)

    def next_deadline(self) -> float | None:
        finite = [d for d in self._waits.values() if d != math.inf]
        return min(finite) if finite else None

    def wait_for_waits(self, count: int, timeout: float) -> bool:
        """Block the calling (test) thread until at least ``count`` waits follow the clock; False
        when ``timeout`` real seconds pass first.  An event, not a sleep: it returns the moment the
        queue manager parks the application's MQGET."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self._waits) >= count, timeout)

    def wait_for_deadline(self, after: float, timeout: float) -> bool:
        """Block the calling (test) thread until some wait follows the clock with a deadline later than
        ``after`` (a channel agent waiting for its next retry, say, once the last one is done); False
        when ``timeout`` real seconds pass first."""
        with self._changed:
            return self._changed.wait_for(lambda: any(d > after for d in self._waits.values()), timeout)


def parse_seconds(value: object) -> float:
    """A step in seconds, from MQSC text (``SECONDS(n)``), REST JSON or Python: 0 to a year, at most
    millisecond precision (MQGET's WaitInterval unit).  Anything else is MQRCCF_PARM_VALUE_ERROR."""
    if isinstance(value, str):
        text = value.strip()
        if not SECONDS_FORM.match(text):
            raise ClockError(C.MQRCCF_PARM_VALUE_ERROR,
                             f"SECONDS({value}) is not valid: expected a number of seconds, 0 to {MAX_STEP}, "
                             "with at most 3 decimal places", "SECONDS")
        seconds = float(text)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ClockError(C.MQRCCF_PARM_VALUE_ERROR,
                         f"seconds {value!r} is not valid: expected a number of seconds", "SECONDS")
    else:
        seconds = float(value)
        if not math.isfinite(seconds) or seconds != round(seconds, 3):
            raise ClockError(C.MQRCCF_PARM_VALUE_ERROR,
                             f"seconds {value!r} is not valid: expected at most 3 decimal places", "SECONDS")
    if not 0 <= seconds <= MAX_STEP:
        raise ClockError(C.MQRCCF_PARM_VALUE_ERROR,
                         f"seconds {value!r} is out of range: expected 0 to {MAX_STEP}", "SECONDS")
    return seconds


def parse_datetime(date: str, time_of_day: str = "00.00.00") -> float:
    """``DATE(yyyy-mm-dd) TIME(hh.mm.ss)`` in GMT (PutDate/PutTime's zone) as seconds since the epoch."""
    d, t = _DATE.match(str(date).strip()), _TIME.match(str(time_of_day).strip())
    if d is None:
        raise ClockError(C.MQRCCF_PARM_VALUE_ERROR, f"DATE({date}) is not valid: expected yyyy-mm-dd", "DATE")
    if t is None:
        raise ClockError(C.MQRCCF_PARM_VALUE_ERROR, f"TIME({time_of_day}) is not valid: expected hh.mm.ss", "TIME")
    year, month, day = (int(x) for x in d.groups())
    hour, minute, second = (int(x) for x in t.groups())
    try:
        stamp = (year, month, day, hour, minute, second)
        if not (1970 <= year <= 9999 and hour < 24 and minute < 60 and second < 60):
            raise ValueError(stamp)
        when = calendar.timegm(stamp + (0, 0, 0))
        if time.gmtime(when)[:3] != (year, month, day):  # 2026-02-30 and the like
            raise ValueError(stamp)
    except (ValueError, OverflowError):
        raise ClockError(C.MQRCCF_PARM_VALUE_ERROR, f"DATE({date}) TIME({time_of_day}) is not a valid time",
                         "DATE") from None
    return float(when)


class ClockControl:
    """The queue manager's clock as the test suite sees it: its mode and time, and the one way to move
    a virtual clock (``advance``, ``set_time``).  ``on_moved`` listeners run after each move (the
    server wakes the waits that follow the clock)."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm
        clock = qm.registry.clock
        self.virtual: VirtualClock | None = clock if isinstance(clock, VirtualClock) else None
        self.on_moved: list[Callable[[], None]] = []

    @property
    def mode(self) -> str:
        return VIRTUAL if self.virtual is not None else REAL

    def _require_virtual(self) -> VirtualClock:
        if self.virtual is None:
            raise ClockError(C.MQRC_ENVIRONMENT_ERROR,
                             "the queue manager's clock is real: start it with --clock virtual "
                             "(or the fixture's clock='virtual') to move it", "CLOCK")
        return self.virtual

    def status(self) -> dict:
        """What DISPLAY QMLITE CLOCK and GET .../clock show."""
        now = self.qm.now()
        stamp = time.gmtime(now)
        return {"mode": self.mode, "now": round(now, 3), "date": time.strftime("%Y-%m-%d", stamp),
                "time": time.strftime("%H.%M.%S", stamp),
                "advanced": round(self.virtual.advanced, 3) if self.virtual is not None else 0.0,
                "waits": self.virtual.waits if self.virtual is not None else 0}

    def advance(self, seconds: object) -> dict:
        """Move a virtual clock forward by ``seconds`` (validated by :func:`parse_seconds`)."""
        clock = self._require_virtual()
        step = parse_seconds(seconds)
        self._move(clock, clock() + step)
        return self.status()

    def set_time(self, when: float) -> dict:
        """Move a virtual clock to ``when`` (seconds since the epoch), never back: time that ran
        backwards would un-expire messages and reorder PutTimes (MQRCCF_PARM_VALUE_ERROR)."""
        clock = self._require_virtual()
        if isinstance(when, bool) or not isinstance(when, (int, float)) or not math.isfinite(when):
            raise ClockError(C.MQRCCF_PARM_VALUE_ERROR, f"time {when!r} is not valid", "TIME")
        if when < clock():
            raise ClockError(C.MQRCCF_PARM_VALUE_ERROR,
                             "a virtual clock only moves forward: the time given is before its time now", "TIME")
        if when - clock() > MAX_STEP:
            raise ClockError(C.MQRCCF_PARM_VALUE_ERROR, f"the time given is more than {MAX_STEP} seconds ahead",
                             "TIME")
        self._move(clock, float(when))
        return self.status()

    def _move(self, clock: VirtualClock, when: float) -> None:
        qm = self.qm
        step = when - clock()
        clock.move_to(when)
        expired = qm.registry.expire_subscriptions()
        written = qm.monitoring_tick(when)  # statistics and accounting intervals that have passed end now
        published = qm.monitor.publish_resource_usage(when) if qm.monitor.due(when) else 0
        log.info("clock_moved", step=round(step, 3), now=round(when, 3), advanced=round(clock.advanced, 3),
                 waits=clock.waits, subscriptions_expired=len(expired), statistics_written=written,
                 monitor_published=published)
        for listener in list(self.on_moved):
            listener()
