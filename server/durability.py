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

With ``on_loop`` (the server's choice, decision JN9) a group's sync runs on the event loop itself, with
several connections open, while nobody else is being served: every reply the run's connections sent since
the last commit followed a wait for a commit (``Coalescer.replies`` against ``Coalescer.waited``).
Everyone the loop would serve during the sync then waits for the disk anyway, and the loop pays neither
the wake-up of another process nor its answer's; requests that arrive meanwhile join the next group.  Held
replies leave first (HP10).  A reply that did not wait -- a non-persistent put, an MQTT packet, a
command's -- sends the next group off the loop, so no such client waits for somebody else's fsync
(decision MCD2); so does a slow disk: a sync on the loop that took longer than ``ON_LOOP_LIMIT`` sends the
next few groups off the loop (more while it stays slow).

With ``sync_helper`` (the server's choice) the syncs off the loop go to a helper process
(registry/storage/fsync.py, docs/decisions.md JN2) once it has started: the event loop writes the
store's sync plan to a pipe and a task reads the answer, so no thread of ours has to take the GIL
back after each fsync.  The writer thread stays for the heavier, occasional work (folding the
message journal into SQLite, checkpoints) and for the syncs until the helper is ready.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from qmlite.registry.storage import fsync

import structlog
import trio
# trio.testing's wait_all_tasks_blocked, from where trio defines it: importing trio.testing imports pytest
# (65 ms, and a test runner inside the server).  tests/server/test_durability.py checks it is the same function.
from trio._core import wait_all_tasks_blocked as _wait_all_tasks_blocked

from . import coalesce

log = structlog.get_logger("qmlite.durability")

# The longest sync the event loop may do itself: every connection waits that long for its next call to be
# read.  The disk's data sync here takes 0.1-0.3 ms; 1 ms is a disk that a neighbour keeps busy.
ON_LOOP_LIMIT = 0.001  # seconds
# Groups synced off the loop after a slow one on it: a few after one slow sync (a neighbour's burst on the
# disk), twice as many each time the next try on the loop is slow again, up to about a second of commits
# here: a disk that stays slow stalls the loop once in that many commits.  A fast try starts again at few.
AFTER_SLOW = 8
AFTER_SLOW_MOST = 1024
# With one connection, a commit nobody waits for yet is written at once and synced on the loop once the loop has
# nothing else to do (decision JN12); if it never falls idle, the sync goes ahead after this long anyway.
IDLE_WAIT = 0.001  # seconds


class GroupCommitter:
    def __init__(self, store, *, alone: Callable[[], bool] = lambda: False, sync_helper: bool = False,
                 crowded: Callable[[], bool] = lambda: True, on_loop: bool = False,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.store = store
        self._alone = alone
        self._on_loop = on_loop
        self._clock = clock
        self._loop = None  # this run's Coalescer: its counts of replies and waits, and the held replies
        self._unwaited = 0  # replies that waited for no commit, as of the last look
        self._off_loop = 0  # groups still to sync off the loop after a slow sync on it
        self._after_slow = AFTER_SLOW  # how many the next slow sync on the loop sends off it
        self.on_loop_commits = 0
        self._use_helper = sync_helper
        self._crowded = crowded  # whether to start the sync helper now (several connections)
        self._helper: subprocess.Popen | None = None
        self._helper_ready = False
        self._to_helper: int | None = None  # the pipe's write end: plans
        self._from_helper: int | None = None  # the read end of the answers (non-blocking, for trio)
        self._helper_upto = 0
        self._nursery: trio.Nursery | None = None
        self._maintaining = False
        self._after: list[tuple[int, Callable[[], None]]] = []
        self._in_flight = False
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._token: trio.lowlevel.TrioToken | None = None
        self._wanted = trio.Event()
        self._error: BaseException | None = None
        self.commits = 0
        self._unsynced = 0  # the position written ahead of its sync (JN12); durable once a sync covers it
        self._idle_sync = False  # the committer task syncs what was written ahead once the loop falls idle

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Own the writer thread for as long as the server runs."""
        self._token = trio.lowlevel.current_trio_token()
        if self._on_loop:
            self._loop = coalesce.of_this_run()
        writer = threading.Thread(target=self._writer, name="qmlite-commit", daemon=True)
        writer.start()
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                task_status.started()
                while self._error is None:
                    await self._wanted.wait()
                    self._wanted = trio.Event()
                    if self._idle_sync:
                        # Written ahead (JN12): whatever is already readable or runnable -- the one
                        # connection's next request -- is served first; then the loop, idle, syncs.
                        self._idle_sync = False
                        with trio.move_on_after(IDLE_WAIT):
                            await _wait_all_tasks_blocked()
                    self._kick()
                nursery.cancel_scope.cancel()  # the helper's answers task: raised below, not in a group
            raise self._error
        finally:
            self._nursery = None
            log.info("group_commit", commits=self.commits, writes=self.store.appended, on_loop=self.on_loop_commits,
                     helper=self._helper_ready)
            self._jobs.put(None)
            # A transaction once begun is finished, even at shutdown; the join cannot be cancelled.
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(writer.join)
                if self._helper is not None:
                    await trio.to_thread.run_sync(self._stop_helper)

    # ---- the sync helper process -----------------------------------------------------------------
    def _start_helper(self) -> None:
        """Spawn the helper (once, at the first commit made while several connections are open: a
        server that never has two, or a hosted queue manager never used so, never pays for one).
        Until it says it is ready, syncs go to the writer thread."""
        self._use_helper = False  # one attempt
        child_reads, parent_writes = os.pipe()
        parent_reads, child_writes = os.pipe()
        try:
            self._helper = subprocess.Popen(
                [sys.executable, "-I", "-S", fsync.__file__, str(child_reads), str(child_writes)],
                pass_fds=(child_reads, child_writes), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                close_fds=True)  # stdout: the server's ready line goes there, and whoever reads it waits for EOF
        except OSError as exc:
            log.warning("sync_helper_not_started", reason=str(exc))
            for fd in (parent_writes, parent_reads):
                os.close(fd)
            return
        finally:
            os.close(child_reads)  # the helper's own now (or nobody's)
            os.close(child_writes)
        self._to_helper, self._from_helper = parent_writes, parent_reads
        os.set_blocking(parent_reads, False)
        self._nursery.start_soon(self._helper_answers)

    async def _helper_answers(self) -> None:
        fd = self._from_helper
        buf = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                await trio.lowlevel.wait_readable(fd)
                continue
            if not chunk:
                if not self._helper_ready:  # it never started: the writer thread keeps the syncs
                    log.warning("sync_helper_not_started", reason="ended before it was ready",
                                returncode=self._helper.poll())
                    return
                # Once it served, its end is the disk's business (crash-only, decision S18): a sync
                # in flight may or may not have happened, so nothing more is acknowledged.
                error = OSError("the sync helper process ended")
                if self._in_flight:
                    self._finished(self._helper_upto, error)
                else:
                    self._error = error
                    self._wanted.set()
                return
            buf += chunk
            while len(buf) >= fsync.ANSWER.size:
                status, errno = fsync.ANSWER.unpack_from(buf)
                buf = buf[fsync.ANSWER.size:]
                if status == fsync.READY:
                    self._helper_ready = True
                    log.info("sync_helper_ready", pid=self._helper.pid)
                elif status == fsync.DONE:
                    self._helper_done(None)
                else:
                    self._helper_done(OSError(errno, f"fsync in the sync helper: {os.strerror(errno)}"))

    def _helper_done(self, error: BaseException | None) -> None:
        self._finished(self._helper_upto, error)
        if error is None:
            self._maintain()

    def _maintain(self) -> None:
        """The store's occasional heavy work (the journal's fold, a checkpoint) on the writer thread."""
        store = self.store
        if self._maintaining or not store.maintenance_due():
            return
        self._maintaining = True
        self._jobs.put(0)

    def _stop_helper(self) -> None:
        os.close(self._to_helper)  # the helper ends at end of file
        try:
            self._helper.wait(30)
        except subprocess.TimeoutExpired:
            self._helper.kill()
            self._helper.wait()
        os.close(self._from_helper)

    def after(self, position: int, callback: Callable[[], None] | None = None, *, urgent: bool = True) -> None:
        """Call ``callback`` on the event loop once every write up to ``position`` is on disk
        (without one: just see that a commit reaching ``position`` gets under way).  ``urgent=False``: no
        reply waits for this commit yet (the command server's batch, whose responses a later MQGET takes;
        the monitor's writes): with one connection its writes are made now and synced once the loop has
        served what waits, the connection's next request first (decision JN12)."""
        if self.store.durable >= position:
            if callback is not None:
                callback()
            return
        if callback is not None:
            self._after.append((position, callback))
        if not self._in_flight and self._alone():
            if urgent:
                self._kick()  # alone: no one else's writes to wait for, so no hop through the committer task
            else:
                self._write_ahead()
        elif not self._in_flight:
            # The committer task starts the commit once the tasks that are ready now have run, so
            # their writes join it.
            self._wanted.set()

    async def wait(self, position: int, *, answered: bool = True) -> None:
        """Return once every write up to ``position`` is on disk.  ``answered``: the caller's next send is
        a counted reply (``Connection.send``, the MQTT writer) -- a channel agent's batches and the
        cluster agent's work are not, so their waits are not counted either (``_nobody_else``)."""
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
        else:
            state["parked"] = True

            def abort(_raise_cancel) -> trio.lowlevel.Abort:
                state["done"] = True  # the connection went: the commit goes on without us
                return trio.lowlevel.Abort.SUCCEEDED

            await trio.lowlevel.wait_task_rescheduled(abort)
        if answered and self._loop is not None:
            self._loop.waited += 1  # the reply that follows waited for the disk (_nobody_else)

    def _write_ahead(self) -> None:
        """One connection, a commit no reply waits for yet (JN12): the writes now, on the loop; their sync by
        the committer task once the loop has served what is waiting -- PCFExecute's MQCLOSE, read while the
        command ran, before the sync its MQGET will wait for -- and fallen idle.  Syncing at once would keep
        that MQCLOSE waiting; syncing on the writer thread costs the hand-overs of the GIL and of a vCPU,
        which on a lone connection are the command's latency."""
        if self._error is not None or self._write_pending() is None:
            return
        if self._unsynced > self.store.durable and not self._idle_sync:
            self._idle_sync = True
            self._wanted.set()

    def sync_idle(self) -> bool:
        """Called by the one connection's read loop as it is about to wait for its socket, having found nothing
        to read: with no other task runnable, that is the loop falling idle, so a commit written ahead (JN12) is
        synced here, now, instead of after trio's idle wait and a pass through the scheduler to the committer
        task and back (decision JN15).  True when it synced: the caller reads again before it waits, and so
        takes at once what the client sent during the sync (the MQGET for the command's response)."""
        if self._unsynced <= self.store.durable or self._in_flight or self._error is not None:
            return False
        if not self._alone() or trio.lowlevel.current_statistics().tasks_runnable:
            return False
        self._kick()
        return True

    def _write_pending(self) -> int | None:
        """Take what is pending and write it, not synced (``_unsynced`` says how far the writes reach); the
        position taken, or None when the write failed (handed to ``_finished``, which ends the committer)."""
        pending, upto = self.store.take()
        if pending:
            try:
                self.store.write(pending)
            except Exception as exc:
                self._finished(upto, exc)
                return None
            self._unsynced = upto
        return upto

    def _kick(self) -> None:
        if self._in_flight or self._error is not None:
            return
        store = self.store
        upto = self._write_pending()
        if upto is None:
            return
        if self._unsynced <= store.durable:  # nothing written that a sync has not covered
            self._finished(upto, None)
            return
        try:
            # One connection: nobody else's reply can be stalled, and the hand-over to the writer thread and
            # back (about 100 µs here) would be pure latency.  Several, all waiting for this sync: the same
            # (JN9).  Sync right here.  A fold or checkpoint due goes to the writer thread: a fold may write
            # thousands of rows.
            alone = self._alone()
            if alone or (self._loop is not None and self._crowded() and self._nobody_else()):
                if alone:
                    store.sync()
                else:
                    self._sync_on_loop()
                self._finished(upto, None)
                self._maintain()
                return
            if self._helper_ready:
                plan = store.sync_plan()
                if not plan:  # nothing to make durable (synchronous NORMAL)
                    self._finished(upto, None)
                    return
                self._in_flight = True
                self._helper_upto = upto
                try:
                    os.write(self._to_helper, fsync.encode(plan))
                except OSError as exc:  # it died before its end was read (EPIPE): say whose end it was
                    raise OSError(exc.errno, f"the sync helper process ended: {exc.strerror}") from exc
                return
        except Exception as exc:
            self._finished(upto, exc)
            return
        self._in_flight = True
        if self._use_helper and self._nursery is not None and self._crowded():
            self._start_helper()
        self._jobs.put(upto)

    def _sync_on_loop(self) -> None:
        """The sync of a group whose waiters are all the loop serves: what the loop holds leaves first (HP10);
        a slow sync sends the next groups off the loop."""
        self._loop.flush()
        began = self._clock()
        self.store.sync()
        took = self._clock() - began
        if took > ON_LOOP_LIMIT:
            self._off_loop = self._after_slow
            self._after_slow = min(2 * self._after_slow, AFTER_SLOW_MOST)
            log.info("group_commit_off_loop", ms=round(took * 1000, 3), groups=self._off_loop)
        else:
            self._after_slow = AFTER_SLOW
        self.on_loop_commits += 1

    def _nobody_else(self) -> bool:
        """Whether a sync on the loop now stalls only those who wait for it: every reply sent since the
        last look followed a wait for a commit (a waiter counts its wait as it resumes, in the same step
        as its reply), and no slow sync on the loop lately."""
        loop = self._loop
        unwaited = loop.replies - loop.waited
        free = unwaited > self._unwaited
        self._unwaited = unwaited
        if self._off_loop:
            self._off_loop -= 1
            return False
        return not free

    def _writer(self) -> None:
        store = self.store
        while (upto := self._jobs.get()) is not None:
            if upto == 0:  # maintenance only (the helper synced)
                self._maintenance()
                try:
                    self._token.run_sync_soon(self._maintained)
                except trio.RunFinishedError:
                    return
                continue
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
                self._maintenance()

    def _maintenance(self) -> None:
        """The writer thread's share besides syncs: room ahead of the WAL, fold, checkpoint, the journal's next
        segment."""
        self.store.prepare_wal()  # its own failure is logged and leaves the WAL growing as before
        try:
            self.store.checkpoint_if_large()
        except Exception as exc:  # a failed fold or checkpoint loses nothing; the next one retries
            log.warning("checkpoint_failed", reason=str(exc))
        self.store.prepare_journal()  # its own failure is logged and leaves segments growing as before

    def _maintained(self) -> None:
        self._maintaining = False

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
