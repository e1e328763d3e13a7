"""registry/messaging/expiry.py: the Expiry a message carries when it is given back is the original less the
whole tenths of a second it spent on the queue, never below 1 (issue 29 item 5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.messaging.expiry import expiry_left, original_expiry, tenths_elapsed
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.testing.clock import VirtualClock

Q = "DEV.QUEUE.1"
START = 1_900_000_000.0


@pytest.mark.parametrize("ms, want", [(0, 42), (1, 42), (99, 42), (100, 41), (101, 41), (199, 41), (200, 40),
                                      (4_100, 1), (4_199, 1)])
def test_whole_tenths_elapsed_are_subtracted(ms, want):
    assert expiry_left(START, START + 4.2, START + ms / 1000) == want


def test_a_clock_that_went_back_subtracts_nothing():
    assert tenths_elapsed(START, START - 5) == 0
    assert expiry_left(START, START + 4.2, START - 5) == 42


@given(put=st.floats(min_value=0, max_value=4e9), expiry=st.integers(min_value=1, max_value=999_999_999),
       tenths=st.integers(min_value=0, max_value=10_000))
def test_the_rule_holds_for_any_put_time(put, expiry, tenths):
    # stored as the queue stores it (expires_at = put + Expiry / 10), read back exactly
    expires_at = put + expiry / 10.0
    assert original_expiry(put, expires_at) == expiry
    assert expiry_left(put, expires_at, put + tenths / 10) == max(1, expiry - tenths)


@pytest.fixture
def clock():
    return VirtualClock(START)


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    yield manager
    manager.shutdown()


def _put(qm, session, handle, expiry, persistent=False):
    md = S.MQMD(Expiry=expiry, Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    qm.put(session, handle.hobj, md, S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"e")


def _get(qm, session, handle, options=C.MQGMO_NO_SYNCPOINT):
    return qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=options), 100)


def _open(qm, session):
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=Q), C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE)
    return handle


@pytest.mark.parametrize("ms, want", [(0, 42), (99, 42), (100, 41)])
def test_mqget_gives_back_the_original_less_whole_tenths(qm, clock, ms, want):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    handle = _open(qm, session)
    _put(qm, session, handle, 42)
    clock.move_to(clock() + ms / 1000)
    got = _get(qm, session, handle)
    assert got.md.Expiry == want


def test_browse_then_get_each_give_back_the_time_at_that_moment(qm, clock):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    handle = _open(qm, session)
    _put(qm, session, handle, 42)
    clock.move_to(clock() + 0.15)
    assert _get(qm, session, handle, C.MQGMO_BROWSE_FIRST).md.Expiry == 41
    clock.move_to(clock() + 0.1)  # the browse wrote 41 on the stored descriptor; the get counts from the put again
    assert _get(qm, session, handle).md.Expiry == 40


def test_never_below_one_while_the_message_is_there(qm, clock):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    handle = _open(qm, session)
    _put(qm, session, handle, 3)
    clock.move_to(clock() + 0.299)
    assert _get(qm, session, handle).md.Expiry == 1


def test_the_virtual_clock_moved_by_mqsc_counts_whole_tenths(qm, clock):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    handle = _open(qm, session)
    _put(qm, session, handle, 600)
    [result] = run_mqsc(qm, "SET QMLITE CLOCK(ADVANCE) SECONDS(12.345)")
    assert result.completion_code == C.MQCC_OK, result.text
    assert _get(qm, session, handle).md.Expiry == 600 - 123


def test_a_persistent_message_keeps_its_count_across_a_restart(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    _put(qm, session, _open(qm, session), 42, persistent=True)
    qm.flush()  # what the server's group commit does before the put's reply
    qm.shutdown()
    clock.move_to(clock() + 0.25)
    qm = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    try:
        session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
        assert _get(qm, session, _open(qm, session)).md.Expiry == 40
    finally:
        qm.shutdown()
