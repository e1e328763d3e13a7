"""The group committer against a store that records what happened: nobody is answered before the
writes they depend on are synced, concurrent waiters share one commit, a cancelled waiter does not
disturb the others, and a failing disk ends the committer (so the server)."""

from __future__ import annotations

import threading

import trio
import trio.testing

from qmlite.server.durability import GroupCommitter


class FakeStore:
    """Journal positions like registry.store.Store; ``sync`` blocks until the test releases it."""

    def __init__(self, *, fail: bool = False) -> None:
        self.appended = 0
        self.durable = 0
        self.pending: list = []
        self.written: list[list] = []
        self.synced = 0
        self.fail = fail
        self.release = threading.Event()
        self.syncing = threading.Event()

    def append(self, op) -> int:
        self.pending.append(op)
        self.appended += 1
        return self.appended

    def take(self):
        pending, self.pending = self.pending, []
        return pending, self.appended

    def write(self, pending) -> None:
        self.written.append(list(pending))

    def sync(self) -> None:
        self.syncing.set()
        self.release.wait(10)
        if self.fail:
            raise OSError("disk refuses")
        self.synced += 1

    def checkpoint_due(self) -> bool:
        return False

    connection = None

    def checkpoint_if_large(self, db=None) -> None:
        pass


async def test_waiters_share_a_commit_and_are_answered_only_after_the_sync():
    store = FakeStore()
    committer = GroupCommitter(store)
    answered = []
    async with trio.open_nursery() as nursery:
        await nursery.start(committer.run)

        async def waiter(name):
            position = store.append(name)
            await committer.wait(position)
            answered.append(name)

        for name in ("a", "b", "c"):
            nursery.start_soon(waiter, name)
        await trio.to_thread.run_sync(store.syncing.wait)
        await trio.testing.wait_all_tasks_blocked()
        assert answered == []  # the sync has not returned: nobody may be answered
        store.release.set()
        with trio.fail_after(10):  # a bound, not a synchronisation: the waiters finish on their own
            while len(answered) < 3:
                await trio.sleep(0)
        nursery.cancel_scope.cancel()
    assert sorted(answered) == ["a", "b", "c"]
    assert [sorted(w) for w in store.written] == [["a", "b", "c"]]  # one transaction, one sync for all three
    assert store.synced == 1


async def test_alone_the_commit_runs_inline_and_a_cancelled_waiter_is_harmless():
    store = FakeStore()
    store.release.set()
    committer = GroupCommitter(store, alone=lambda: True)
    async with trio.open_nursery() as nursery:
        await nursery.start(committer.run)
        await committer.wait(store.append("x"))  # completes within the call: no hand-over
        assert store.durable == 1 and store.written == [["x"]]
        with trio.CancelScope() as scope:
            scope.cancel()
            await committer.wait(store.append("y"))  # cancelled at its checkpoint, after the commit
        assert store.durable == 2
        nursery.cancel_scope.cancel()


async def test_a_refused_sync_ends_the_committer():
    store = FakeStore(fail=True)
    store.release.set()
    committer = GroupCommitter(store)
    refused = []
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(committer.run)
            nursery.start_soon(committer.wait, store.append("z"))
    except* OSError as group:
        refused = [str(e) for e in group.exceptions]
    assert refused == ["disk refuses"]
    assert store.durable == 0  # nothing was ever reported durable
