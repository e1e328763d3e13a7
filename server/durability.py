"""Group commit off the event loop: replies wait for the journal position their effects reached.

The domain appends writes to the store's journal and says which position each reply depends on.
Whatever is pending goes to a dedicated writer thread, which commits it in one SQLite transaction
(one fsync for every connection waiting on it) while the event loop carries on; when it is done, a
callback on the event loop marks the position durable and runs what waited for it, then hands the
writes that gathered meanwhile to the thread.  One connection's fsync therefore never stalls the
others, and nothing is acknowledged before it is on disk.  If the disk refuses a commit, ``run``
raises, which ends the server (docs/decisions.md S18: crash-only).

The completion runs as a callback rather than waking a committer task: on a lone connection every
command pays the hand-over, so each scheduling round saved is latency saved (about 75 µs remain:
the thread's wake-up and the event loop's).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

import structlog
import trio

log = structlog.get_logger("qmlite.durability")


class GroupCommitter:
    def __init__(self, store, *, alone: Callable[[], bool] = lambda: False) -> None:
        self.store = store
        self._alone = alone
        self._after: list[tuple[int, Callable[[], None]]] = []
        self._in_flight = False
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._token: trio.lowlevel.TrioToken | None = None
        self._wanted = trio.Event()
        self._error: BaseException | None = None
        self.commits = 0

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Own the writer thread for as long as the server runs."""
        self._token = trio.lowlevel.current_trio_token()
        writer = threading.Thread(target=self._writer, name="qmlite-commit", daemon=True)
        writer.start()
        try:
            task_status.started()
            while self._error is None:
                await self._wanted.wait()
                self._wanted = trio.Event()
                self._kick()
            raise self._error
        finally:
            log.info("group_commit", commits=self.commits, writes=self.store.appended)
            self._jobs.put(None)
            # A transaction once begun is finished, even at shutdown; the join cannot be cancelled.
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(writer.join)

    def after(self, position: int, callback: Callable[[], None] | None = None) -> None:
        """Call ``callback`` on the event loop once every write up to ``position`` is on disk
        (without one: just see that a commit reaching ``position`` gets under way)."""
        if self.store.durable >= position:
            if callback is not None:
                callback()
            return
        if callback is not None:
            self._after.append((position, callback))
        if not self._in_flight and self._alone():
            self._kick()  # alone: no one else's writes to wait for, so no hop through the committer task
        elif not self._in_flight:
            # The committer task starts the commit once the tasks that are ready now have run, so
            # their writes join it.
            self._wanted.set()

    async def wait(self, position: int) -> None:
        """Return once every write up to ``position`` is on disk."""
        if self.store.durable >= position:
            return
        task = trio.lowlevel.current_task()
        state = {"parked": False, "done": False}

        def wake() -> None:
            if state["done"]:
                return  # cancelled meanwhile: nothing to wake any more
            state["done"] = True
            if state["parked"]:
                trio.lowlevel.reschedule(task)

        self.after(position, wake)  # alone, the commit may complete right here
        if state["done"]:
            await trio.lowlevel.checkpoint()
            return
        state["parked"] = True

        def abort(_raise_cancel) -> trio.lowlevel.Abort:
            state["done"] = True  # the connection went: the commit goes on without us
            return trio.lowlevel.Abort.SUCCEEDED

        await trio.lowlevel.wait_task_rescheduled(abort)

    def _kick(self) -> None:
        if self._in_flight or self._error is not None:
            return
        store = self.store
        pending, upto = store.take()
        if not pending:
            self._finished(upto, None)
            return
        try:
            store.write(pending)
            if self._alone():
                # One connection: nobody else's reply can be stalled, and the hand-over to the writer
                # thread and back (about 100 µs here) would be pure latency.  Sync right here.
                store.sync()
                store.checkpoint_if_large(store.connection)  # alone, the checkpoint too
                self._finished(upto, None)
                return
        except Exception as exc:
            self._finished(upto, exc)
            return
        self._in_flight = True
        self._jobs.put(upto)

    def _writer(self) -> None:
        store = self.store
        while (upto := self._jobs.get()) is not None:
            error = None
            try:
                store.sync()
            except BaseException as exc:  # handed to the event loop, which stops the server
                error = exc
            try:
                self._token.run_sync_soon(self._finished, upto, error)
            except trio.RunFinishedError:
                return
            if error is None:
                try:
                    store.checkpoint_if_large()
                except Exception as exc:  # a failed checkpoint loses nothing; the next one retries
                    log.warning("checkpoint_failed", reason=str(exc))

    def _finished(self, upto: int, error: BaseException | None) -> None:
        self._in_flight = False
        if error is not None:
            self._error = error
            self._wanted.set()  # the committer task raises it, which ends the server
            return
        if upto > self.store.durable:
            self.store.durable = upto
            self.commits += 1
        durable = self.store.durable
        ready = [cb for pos, cb in self._after if pos <= durable]
        self._after = [(pos, cb) for pos, cb in self._after if pos > durable]
        for callback in ready:
            callback()
        if self._after:
            self._kick()
