"""qmlite.client.locks: waiting for a lock while the interpreter runs, only trying once it is exiting
(docs/decisions.md FN1).  The interpreter's state is handed in (``_finalizing``): these tests cannot
end the interpreter they run in (tests/client/test_process_exit.py ends real ones)."""

from __future__ import annotations

import threading

import pytest

from qmlite.client import locks


@pytest.fixture(params=[threading.Lock, threading.RLock, threading.Condition])
def stopped_holder(request):
    """A lock of each kind held by another thread until the test ends (a thread that stopped)."""
    lock = request.param()
    ready, end = threading.Event(), threading.Event()

    def hold():
        with lock:
            ready.set()
            end.wait()

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    assert ready.wait(30)
    yield lock
    end.set()
    t.join(30)


def test_at_exit_a_lock_another_thread_holds_is_not_waited_for(stopped_holder):
    assert locks.acquire(stopped_holder, _finalizing=lambda: True) is False


def test_at_exit_a_free_lock_is_taken():
    lock = threading.Lock()
    assert locks.acquire(lock, _finalizing=lambda: True) is True
    assert not lock.acquire(False)  # held now
    lock.release()


def test_while_running_it_waits_for_the_holder():
    lock = threading.Lock()
    lock.acquire()
    got = []
    t = threading.Thread(target=lambda: got.append(locks.acquire(lock, _finalizing=lambda: False)), daemon=True)
    t.start()
    assert got == []  # the waiter cannot have it yet: this thread still holds it
    lock.release()
    t.join(30)
    assert got == [True]
    assert not lock.acquire(False)  # the waiter holds it
    lock.release()


def test_held_runs_the_block_either_way_and_releases_only_what_it_took(stopped_holder, monkeypatch):
    with locks.held(threading.RLock()) as taken:
        assert taken is True
    lock = threading.RLock()
    with locks.held(lock):
        pass
    assert lock.acquire(False)  # released at the end of the block
    lock.release()
    ran = []
    monkeypatch.setattr(locks.acquire, "__defaults__", (lambda: True,))  # as at interpreter exit
    with locks.held(stopped_holder) as taken:
        ran.append(taken)
    assert ran == [False]  # the block ran without the lock, and nothing was released
