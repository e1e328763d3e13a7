"""MQGET's GET(DISABLED) check (registry/messaging/mqget.py ``_check_inhibited``): the base queue, and an alias
the handle was opened through, must both allow gets -- a handle opened by the queue's own name looks at the
one queue (decision HP5: the alias is looked up only when there is one)."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.errors import MQIError
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager


@pytest.fixture
def qm(tmp_path):
    manager = QueueManager.open(tmp_path / "qm", "QM1", synchronous="NORMAL")
    results = run_mqsc(manager, "DEFINE QLOCAL(BASE.Q)\nDEFINE QALIAS(ALIAS.Q) TARGET(BASE.Q)")
    assert all(r.completion_code == C.MQCC_OK for r in results), [r.text for r in results]
    yield manager
    manager.shutdown()


def _get(qm, session, name: str):
    """An MQGET of the first message through a handle opened by ``name``: the message's data, or the MQRC."""
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=name), C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    try:
        gmo = S.MQGMO(Version=2, Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT, MatchOptions=0)
        got = qm.get(session, qm.input_handle(session, handle.hobj, gmo.Options), S.MQMD(), gmo, 100)
        return got.data if got is not None else None
    except MQIError as exc:
        return exc.reason
    finally:
        qm.close_object(session, handle.hobj, C.MQCO_NONE)


@pytest.mark.parametrize("disabled, by_base, by_alias", [
    ("", b"m", b"m"),
    ("ALTER QLOCAL(BASE.Q) GET(DISABLED)", C.MQRC_GET_INHIBITED, C.MQRC_GET_INHIBITED),
    ("ALTER QALIAS(ALIAS.Q) GET(DISABLED)", b"m", C.MQRC_GET_INHIBITED),
])
def test_a_get_is_refused_by_the_base_queue_or_the_alias_it_was_opened_through(qm, disabled, by_base, by_alias):
    session = qm.connect("QM1", user="mqm", admin=True)
    for _ in range(2):
        qm.put(session, qm.open_object(session, S.MQOD(ObjectName="BASE.Q"), C.MQOO_OUTPUT)[0].hobj,
               S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"m")
    if disabled:
        assert all(r.completion_code == C.MQCC_OK for r in run_mqsc(qm, disabled))
    assert (_get(qm, session, "BASE.Q"), _get(qm, session, "ALIAS.Q")) == (by_base, by_alias)
    fails = qm.registry.messages.contents("BASE.Q").stats.get_fails
    assert fails == (by_base != b"m") + (by_alias != b"m")
