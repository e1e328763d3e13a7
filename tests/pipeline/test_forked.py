"""``pipeline.forked``: work split over forked copies of the driver comes back whole, in order, and leaves no child."""

from __future__ import annotations

import os
import signal

import pytest

from qmlite.pipeline import forked

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="the driver forks on Linux only")


@pytest.fixture
def shares(monkeypatch):
    """Shares of any size, and the children each split made (pids, in order)."""
    monkeypatch.setattr(forked, "MIN_SHARE", 1)
    made = []
    real = forked._fork

    def recording(work, part):
        child = real(work, part)
        made.append(None if child is None else child[0])
        return child
    monkeypatch.setattr(forked, "_fork", recording)
    return made


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # reaped already: no zombie left
    return False


def test_each_share_is_worked_in_a_process_of_its_own_and_comes_back_in_order(shares):
    here = os.getpid()
    result = forked.split_map(lambda part: [(os.getpid(), x * 2) for x in part], list(range(100)), 3)
    assert [x for _, x in result] == [x * 2 for x in range(100)]
    pids = [pid for pid, _ in result]
    assert pids[:34] == [here] * 34  # the first share is this process's
    assert len(set(pids)) == 3 and set(pids) - {here} == set(shares)
    assert all(_gone(pid) for pid in shares)


def test_a_child_that_dies_has_its_share_worked_here(shares):
    here = os.getpid()

    def work(part):
        if os.getpid() != here:
            os._exit(3)  # killed, out of memory: whatever ends it without its rows
        return [x + 1 for x in part]
    assert forked.split_map(work, list(range(10)), 2) == list(range(1, 11))
    assert len(shares) == 1 and _gone(shares[0])


def test_an_error_in_a_childs_share_is_raised_here(shares):
    def work(part):
        if 7 in part:
            raise ValueError("no 7")
        return list(part)
    with pytest.raises(ValueError, match="no 7"):
        forked.split_map(work, list(range(10)), 2)
    assert len(shares) == 1 and _gone(shares[0])


def test_a_failure_here_leaves_no_child_behind(shares):
    here = os.getpid()

    def work(part):
        if os.getpid() == here:
            raise KeyboardInterrupt  # this process's own share, the children still running
        return list(part)
    with pytest.raises(KeyboardInterrupt):
        forked.split_map(work, list(range(30)), 3)
    assert len(shares) == 2 and all(_gone(pid) for pid in shares)


def test_a_fork_refused_has_its_share_worked_here(shares, monkeypatch):
    def refused():
        raise BlockingIOError("fork: Resource temporarily unavailable")
    monkeypatch.setattr(os, "fork", refused)
    assert forked.split_map(lambda part: [os.getpid()] * len(part), list(range(10)), 2) == [os.getpid()] * 10
    assert shares == [None]


def test_small_work_and_one_process_never_fork(monkeypatch):
    calls = []
    monkeypatch.setattr(forked, "_fork", lambda *a: calls.append(a))
    assert forked.split_map(list, list(range(forked.MIN_SHARE * 2 - 1)), 4) == list(range(forked.MIN_SHARE * 2 - 1))
    assert forked.split_map(list, list(range(forked.MIN_SHARE * 4)), 1) == list(range(forked.MIN_SHARE * 4))
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    assert forked.split_map(list, list(range(forked.MIN_SHARE * 4)), 4) == list(range(forked.MIN_SHARE * 4))
    assert calls == []


def test_a_driver_interrupted_while_reading_kills_the_child_it_reads(shares, monkeypatch):
    """The child still working when the driver stops reading it is killed, not waited for."""
    here = os.getpid()

    def interrupted(fd, n):
        raise KeyboardInterrupt
    monkeypatch.setattr(os, "read", interrupted)

    def work(part):
        if os.getpid() != here:
            signal.pause()  # a share that never ends on its own: only a kill ends it
        return list(part)
    with pytest.raises(KeyboardInterrupt):
        forked.split_map(work, list(range(10)), 2)
    assert len(shares) == 1 and _gone(shares[0])
