"""Triggering in the domain, on the test's clock: TRIGINT's repeated FIRST trigger (registry/messaging/triggers.py)."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    results = run_mqsc(manager, "DEFINE PROCESS(T.PROC) APPLICID('/opt/app')\nDEFINE QLOCAL(T.INITQ)\n"
                                "DEFINE QLOCAL(T.APP) TRIGGER TRIGTYPE(FIRST) INITQ(T.INITQ) PROCESS(T.PROC)\n"
                                "ALTER QMGR TRIGINT(5000)")
    assert all(r.completion_code == C.MQCC_OK for r in results), [r.text for r in results]
    yield manager
    manager.shutdown()


def _put(qm, session, name: str) -> None:
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=name), C.MQOO_OUTPUT)
    qm.put(session, handle.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"work")
    qm.close_object(session, handle.hobj, C.MQCO_NONE)


def _triggers(qm) -> int:
    return qm.registry.messages.depth("T.INITQ")


def test_trigint_repeats_a_first_trigger_on_a_queue_that_stayed_full(qm, clock):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    monitor, _ = qm.open_object(session, S.MQOD(ObjectName="T.INITQ"), C.MQOO_INPUT_SHARED)  # the trigger monitor
    _put(qm, session, "T.APP")
    assert _triggers(qm) == 1  # the depth went from 0 to 1
    clock.t += 4.999
    _put(qm, session, "T.APP")
    assert _triggers(qm) == 1  # the queue was not empty and TRIGINT has not passed
    clock.t += 0.001
    _put(qm, session, "T.APP")
    assert _triggers(qm) == 2  # 5000 ms since the last trigger message: another one
    _put(qm, session, "T.APP")
    assert _triggers(qm) == 2  # and not again until another TRIGINT has passed
    clock.t += 5
    _put(qm, session, "T.APP")
    assert _triggers(qm) == 3
    qm.close_object(session, monitor.hobj, C.MQCO_NONE)


def test_the_default_trigint_never_repeats(qm, clock):
    assert run_mqsc(qm, "ALTER QMGR TRIGINT(999999999)")[0].completion_code == C.MQCC_OK
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    monitor, _ = qm.open_object(session, S.MQOD(ObjectName="T.INITQ"), C.MQOO_INPUT_SHARED)
    _put(qm, session, "T.APP")
    clock.t += 86_400
    _put(qm, session, "T.APP")
    assert _triggers(qm) == 1
    qm.close_object(session, monitor.hobj, C.MQCO_NONE)
