"""Taking a lock on a path that a finalizer or the interpreter's exit runs.

Once the interpreter is finalizing (``sys.is_finalizing()``: after ``atexit``, while modules are torn
down and ibmmq's and pymqi's ``__del__`` call MQCLOSE and MQDISC), CPython stops every other thread the
next time it wants the GIL, wherever it is: a daemon thread stopped inside a ``with lock:`` never lets
go.  A finalizer that then waited for that lock would wait for ever (docs/decisions.md FN1).

So on those paths a lock is taken with :func:`acquire` or :class:`held`: while the interpreter runs
they wait as usual (the holder is alive and lets go); once it is finalizing they only try, and the
caller goes on without the lock -- safe then, because no other thread runs Python code any more, and
whatever a stopped thread was doing it never finishes.  The locks these guard are re-entrant
(``RLock``), so a finalizer that the garbage collector runs on the thread that holds one goes on too.
Standard library only: ``ibmmqc`` imports it at ``import ibmmq``.
"""

from __future__ import annotations

import sys

__all__ = ["acquire", "held"]


def acquire(lock, _finalizing=sys.is_finalizing) -> bool:
    """Take ``lock`` (a Lock, RLock or Condition) and return True; at interpreter exit take it only if
    it is free, and return whether it was taken.  (``_finalizing`` is bound at definition: late in the
    exit the module's globals are cleared.)"""
    if lock.acquire(False):
        return True
    if _finalizing():
        return False
    return lock.acquire()


class held:  # noqa: N801 - used as ``with held(lock) as taken:``
    """``with held(lock) as taken:`` -- :func:`acquire` for a block that runs either way; ``taken``
    says whether the lock is held (a Condition may be notified only then)."""

    __slots__ = ("_lock", "_taken")

    def __init__(self, lock) -> None:
        self._lock = lock
        self._taken = False

    def __enter__(self) -> bool:
        self._taken = acquire(self._lock)
        return self._taken

    def __exit__(self, *exc) -> None:
        if self._taken:
            self._taken = False
            self._lock.release()
