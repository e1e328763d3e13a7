"""The Expiry a message carries when it is given back: one rule for MQGET, the command server's replies
and retained publications.

IBM (MQMD Expiry): "the value is decremented to reflect the time the message spends on the queue" and
"the value need not be decremented to reflect small time intervals".  qmlite subtracts the whole tenths
of a second that have passed since the put, so a message read a few milliseconds after it was put
carries the Expiry its sender gave (decision EXP1 in docs/decisions.md).
"""

from __future__ import annotations

import math

# Clock readings are floats of ~1.8e9 seconds, whose last bit is 2.4e-7 s: (now - put) * 10 for exactly
# 0.1 s may come out as 0.999999.  A tolerance of 10 µs absorbs that and changes nothing a client can see.
_NOISE = 1e-4


def tenths_elapsed(put_time: float, now: float) -> int:
    """Whole tenths of a second from ``put_time`` to ``now`` (0 for a clock that went back)."""
    return max(0, math.floor((now - put_time) * 10 + _NOISE))


def original_expiry(put_time: float, expires_at: float) -> int:
    """The Expiry (tenths) a message was put with, from the two times the queue keeps."""
    return round((expires_at - put_time) * 10)


def expiry_left(put_time: float, expires_at: float, now: float) -> int:
    """The Expiry an MQGET gives back: the original less the whole tenths spent on the queue, never
    below 1 (a message whose time is up is not given back at all)."""
    return max(1, original_expiry(put_time, expires_at) - tenths_elapsed(put_time, now))
