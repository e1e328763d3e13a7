"""Replies held until the event loop has run its batch of tasks, then written (issue 35, decision HP10).

A connection's reply used to leave at once, on the socket itself (HP1).  With many connections, the reply
then woke a client that had gone idle while the next connection's call was served: on this VM an idle CPU
halts at once (decision BD9), so each reply paid the wake-up in its ``write`` -- the largest single cost of
a call at 16 connections (docs/benchmarks.md).  Written together, when the loop's batch of tasks is done
and it is about to wait for I/O, a batch's replies wake a client once.  Redis writes its replies in the
same place (``beforeSleep``).

The first reply of a batch leaves at once (it wakes the client, which then works while the batch goes on; a
lone client's reply is never held). A connection holds a later one (``Connection.send``) and asks the
coalescer of this trio run to flush it; the coalescer is a trio instrument, and trio calls its
``before_io_wait`` once a batch, before every wait. It must never raise (trio would remove it, and every
reply held after that would wait for ever) and never wake a task (trio has already chosen how long this wait
may block): what a flush cannot finish, its connection finishes in a task, started through trio's token
(``Connection.flush_out``).
"""

from __future__ import annotations

import trio

# The most a connection holds: a reply larger than this (or one that would take the held bytes past it)
# leaves at once, with what is held before it, as before HP10.
HOLD_LIMIT = 32 * 1024

_COALESCER: trio.lowlevel.RunVar = trio.lowlevel.RunVar("qmlite_coalescer")


class Coalescer(trio.abc.Instrument):
    """The connections holding replies, flushed in the order they first held one; and whether a reply has
    left or been held since the batch began (the batch's first reply leaves at once).  ``replies`` counts
    every reply and packet the run's connections have sent or held, ``waited`` the waits for a commit that
    came before one: the group committer reads both to know whether anyone got an answer that did not wait
    for the disk (server/durability.py, decision JN9)."""

    def __init__(self) -> None:
        self.holding: list = []
        self.sent = False
        self.replies = 0
        self.waited = 0

    def before_io_wait(self, timeout: float) -> None:
        self.flush()

    def flush(self) -> None:
        """Write what the connections hold, now: trio is about to wait for I/O, or the event loop is about to
        block in a sync of its own (server/durability.py).  A new batch begins either way."""
        self.sent = False
        holding = self.holding
        if not holding:
            return
        self.holding = []
        for conn in holding:
            conn.flush_out()


def of_this_run() -> Coalescer:
    """This trio run's coalescer, added as its instrument at the first use."""
    try:
        return _COALESCER.get()
    except LookupError:
        coalescer = Coalescer()
        _COALESCER.set(coalescer)
        trio.lowlevel.add_instrument(coalescer)
        return coalescer
