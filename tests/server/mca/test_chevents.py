"""Channel events of a message channel beyond Started and Stopped OK (IBM "Channel Stopped", "Channel
Stopped By User", and CHLEV(EXCEPTION)): read through IBM's ibmmq, two queue managers in one process
(test_run.py's)."""

from __future__ import annotations

import socket

import pytest
import trio

from qmlite.registry.monitoring import events as E
from tests.registry.monitoring.test_events import events_on, values
from tests.server.mca.test_chstatus import one_batch_then_discint
from tests.server.mca.test_run import CHANNEL, _depth, _mqsc, _put, two_queue_managers

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC  # noqa: E402


def _events(server) -> list[tuple[int, int | None, int | None]]:
    """(Reason, ReasonQualifier, ErrorIdentifier) of each channel event, taken off the queue."""
    out = []
    for _, message in events_on(server.qm, E.CHANNEL_QUEUE):
        v = values(message)
        out.append((message.header.Reason, v.get(CMQCFC.MQIACF_REASON_QUALIFIER),
                    v.get(CMQCFC.MQIACF_ERROR_IDENTIFIER)))
    return out


async def test_chlev_exception_raises_the_exceptions_only_stopped_disabled_when_the_channel_is_left_stopped(tmp_path):
    with socket.socket() as unused:  # a port nothing listens on: the connection is refused
        unused.bind(("127.0.0.1", 0))
        dead = unused.getsockname()[1]
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        _mqsc(qm1, "ALTER QMGR CHLEV(EXCEPTION)")
        await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")  # Channel Started: not an exception, not raised
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 1)
        _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")  # Channel Stopped By User: an exception
        with trio.fail_after(30):
            await ended.wait(1)
        assert _events(qm1) == [(CMQC.MQRC_CHANNEL_STOPPED_BY_USER, E.MQRQ_CHANNEL_STOPPED_DISABLED, None)]

        # A sequence-number mismatch leaves the sender STOPPED: Channel Stopped, DISABLED, AMQ9526.
        _mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)\nRESET CHANNEL({CHANNEL}) SEQNUM(50)")
        await trio.to_thread.run_sync(_put, qm1.port, [(b"two", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(2)
        assert _events(qm1) == [(CMQC.MQRC_CHANNEL_STOPPED, E.MQRQ_CHANNEL_STOPPED_DISABLED, 9526)]

        # A partner that cannot be reached: RETRY while retries are left, then DISABLED, both AMQ9202.
        _mqsc(qm1, f"""ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({dead})') +
                           SHORTRTY(1) SHORTTMR(0) LONGRTY(0)""")
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(3)
        assert _events(qm1) == [(CMQC.MQRC_CHANNEL_STOPPED, E.MQRQ_CHANNEL_STOPPED_RETRY, 9202),
                                (CMQC.MQRC_CHANNEL_STOPPED, E.MQRQ_CHANNEL_STOPPED_DISABLED, 9202)]


async def test_chlev_exception_raises_nothing_for_a_channel_that_starts_and_ends_normally(tmp_path):
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        await one_batch_then_discint(qm1, qm2, receiving, ended, chlev="EXCEPTION")
        assert (_events(qm1), _events(qm2)) == ([], [])  # Started and Stopped OK are not exceptions
