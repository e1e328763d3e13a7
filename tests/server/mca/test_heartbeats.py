"""Heartbeats and silence on a running message channel (issue 34, decisions MCG4-MCG5): the receiving
end's silence limit (twice HBINT and 30 s) passes on its queue manager's virtual clock, and the sender
times each heartbeat's round trip as a NETTIME sample.  QM1 (sending) hosting QM2 (receiving) in one
server, each on a virtual clock of its own (test_trigger.py's ``hosted``); messages through IBM's ibmmq."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from qmlite.registry.mqsc import run_mqsc
from tests.server.mca.test_mqport import CHANNEL, _get, _mqsc, _put
from tests.server.mca.test_trigger import hosted

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC  # noqa: E402

HBINT = 5
LIMIT = 2 * HBINT + 30  # the receiving end's silence limit (run.py receive_timeout)


def _status(server) -> dict:
    (shown,) = run_mqsc(server.qm, f"DISPLAY CHSTATUS({CHANNEL}) ALL")
    return shown.objects[0] if shown.objects else {}


async def _running_and_delivered(qm1) -> None:
    _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
    await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True)])
    assert await trio.to_thread.run_sync(_get, qm1.port, 1) == [(b"one", CMQC.MQPER_PERSISTENT)]


async def _waiting_past(server, after: float) -> None:
    """Until a wait on ``server``'s clock has a deadline later than ``after`` (an agent's, parked)."""
    virtual = server.qm.clock_control.virtual
    assert await trio.to_thread.run_sync(virtual.wait_for_deadline, after, 30)


async def test_the_receiving_end_ends_a_silent_channel_when_its_virtual_clock_passes_the_limit(tmp_path):
    sdr = f"HBINT({HBINT}) DISCINT(0) SHORTRTY(0) LONGRTY(0)"
    async with hosted(tmp_path, xmitq="", sdr=sdr) as (qm1, qm2, ended):
        assert qm2.qm.clock_control.virtual is not None
        _mqsc(qm2.qm, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(RCVR) HBINT({HBINT})")
        await _running_and_delivered(qm1)
        # QM1's clock stands still, so its sender sends no heartbeat: QM2 hears nothing from it.
        await _waiting_past(qm2, qm2.qm.now() + LIMIT - 1)  # the receiving end reads, its limit on QM2's clock
        qm2.qm.clock_control.advance(LIMIT - 1)
        await trio.testing.wait_all_tasks_blocked()
        assert _status(qm2)["STATUS"] == "RUNNING" and ended.count == 0
        qm2.qm.clock_control.advance(1)  # the limit: the receiving end takes the partner as gone and closes
        with trio.fail_after(30):
            await ended.wait(1)  # the sender saw the connection end: out of retries
        assert _status(qm2) == {} and _status(qm1)["STATUS"] == "STOPPED"


async def test_an_answered_heartbeat_is_a_nettime_sample(tmp_path):
    sdr = f"HBINT({HBINT}) DISCINT(0) MONCHL(HIGH)"
    async with hosted(tmp_path, xmitq="", sdr=sdr) as (qm1, qm2, ended):
        _mqsc(qm2.qm, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(RCVR) HBINT({HBINT})")
        await _running_and_delivered(qm1)
        measures = qm1.qm.registry.running.message_channels[CHANNEL].measures  # what MONCHL, STATCHL show
        await _waiting_past(qm1, qm1.qm.now() + HBINT - 1)  # the sender idle until its heartbeat is due
        before = measures.interval.net_count  # the resync's round trip and the batch's
        assert before == 2
        qm1.qm.clock_control.advance(HBINT)  # the heartbeat goes; the receiver answers it
        await _waiting_past(qm1, qm1.qm.now() + HBINT - 1)  # idle again, the next heartbeat due
        # The sender parks for its next heartbeat as soon as the request is out; the answer is read by its
        # idle watch after that: wait until every task here (both queue managers are hosted) is blocked again.
        await trio.testing.wait_all_tasks_blocked(cushion=0.05)
        assert measures.interval.net_count == before + 1
        assert _status(qm1)["NETTIME"] != "", _status(qm1)  # measured (0 µs: the virtual clock stood still)
        _mqsc(qm1.qm, f"STOP CHANNEL({CHANNEL})")

