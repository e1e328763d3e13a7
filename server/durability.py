"""Group commit off the event loop: replies wait for the journal position their effects reached.

The domain appends writes to the store's journal and says which position each reply depends on;
this task writes everything pending in one SQLite transaction on a worker thread (one fsync for
every connection that is waiting), then wakes the waiters whose position is now durable.  While
one commit runs, the next group gathers.  One connection's fsync therefore never stalls the
others, and nothing is acknowledged before it is on disk.  If the disk refuses a commit the task
fails, which ends the server (docs/decisions.md S18: crash-only).
"""

from __future__ import annotations

import trio


class GroupCommitter:
    def __init__(self, store) -> None:
        self.store = store
        self._wanted = trio.Event()
        self._progress = trio.Event()
        self.commits = 0

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        store = self.store
        task_status.started()
        while True:
            await self._wanted.wait()
            self._wanted = trio.Event()
            pending, upto = store.take()
            if pending:
                # Not cancellable: a transaction once begun is finished, even at shutdown.
                await trio.to_thread.run_sync(store.write, pending)
                self.commits += 1
            store.durable = max(store.durable, upto)
            progress, self._progress = self._progress, trio.Event()
            progress.set()

    async def wait(self, position: int) -> None:
        """Return once every write up to ``position`` is on disk."""
        store = self.store
        while store.durable < position:
            progress = self._progress
            self._wanted.set()
            await progress.wait()
