"""Channel triggering, the virtual clock and fault rules on message channels (issue 34): QM1 and QM2
hosted by one server on a virtual clock, a sender QM1.TO.QM2 reaching QM2's receiver through the server's
own MQ port.  IBM's ibmmq puts to a remote queue definition on QM1 and gets on QM2; the channel is
started by the channel initiator from SYSTEM.CHANNEL.INITQ, its DISCINT and retry intervals pass when
the test moves QM1's clock, and a fault rule breaks it mid-batch."""

from __future__ import annotations

import contextlib
import socket

import pytest
import trio
import trio.testing

from qmlite.registry.mqsc import run_mqsc
from qmlite.server.listener import running
from qmlite.server.mca import agents
from tests.server.mca.test_mqport import CHANNEL, RECEIVING, Proxy, _cfg, _get, _mqsc, _put
from tests.server.mca.test_run import Ended

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC  # noqa: E402

INITQ = "SYSTEM.CHANNEL.INITQ"


@contextlib.asynccontextmanager
async def hosted(tmp_path, *, xmitq: str, sdr: str):
    """QM1 (with a virtual clock) hosting QM2; QM2's receiver and TARGET; on QM1 the transmission queue
    QM2 (``xmitq``: its extra attributes), TO.QM2 and the sender (``sdr``: its extra attributes) aimed at
    the server's own port.  Yields QM1's server, QM2's, and the agents that ended."""
    async with running(_cfg(tmp_path, "QM1", qmgrs=("QM2",), clock="virtual"), synchronous="NORMAL") as qm1:
        qm2 = qm1.servers["QM2"]
        _mqsc(qm2.qm, RECEIVING)
        _mqsc(qm1.qm, f"""
            DEFINE QLOCAL(QM2) USAGE(XMITQ) {xmitq}
            DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
            DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({qm1.port})') XMITQ(QM2) {sdr}""")
        async with trio.open_nursery() as nursery:
            ended = Ended()
            agents.register(qm1, nursery, on_end=ended.set)  # the hook START CHANNEL and the initiator call
            yield qm1, qm2, ended
            nursery.cancel_scope.cancel()


def _status(qm) -> dict:
    (shown,) = run_mqsc(qm, f"DISPLAY CHSTATUS({CHANNEL}) ALL")
    return shown.objects[0] if shown.objects else {}


def _depth(qm, queue: str) -> int:
    return qm.registry.messages.depth(queue)


async def _clock_waits(server, count: int = 1) -> None:
    """Until ``count`` waits follow QM1's clock (the sender idle at DISCINT, or waiting to retry)."""
    assert await trio.to_thread.run_sync(server.qm.clock_control.virtual.wait_for_waits, count, 30)


TRIGGERED = f"TRIGGER TRIGTYPE(FIRST) INITQ({INITQ}) TRIGDATA({CHANNEL})"


async def test_a_put_to_a_remote_queue_starts_its_channel_which_ends_at_discint_and_starts_again(tmp_path):
    async with hosted(tmp_path, xmitq=TRIGGERED, sdr="DISCINT(120)") as (qm1, qm2, ended):
        (initq,) = run_mqsc(qm1.qm, f"DISPLAY QLOCAL({INITQ}) IPPROCS")
        assert initq.objects[0]["IPPROCS"] == "1", initq.text  # the channel initiator holds it open
        assert _status(qm1.qm) == {}  # nothing started the channel
        await trio.to_thread.run_sync(_put, qm1.port, [(b"first", True)])
        got = await trio.to_thread.run_sync(_get, qm1.port, 1)  # QM2's TARGET, behind the same port
        assert got == [(b"first", CMQC.MQPER_PERSISTENT)]
        await _clock_waits(qm1)  # idle on its transmission queue until DISCINT
        shown = _status(qm1.qm)
        assert (shown["STATUS"], shown["MSGS"], _depth(qm1.qm, INITQ)) == ("RUNNING", "1", 0), shown

        qm1.qm.clock_control.advance(119)
        await trio.testing.wait_all_tasks_blocked()
        assert ended.count == 0 and _status(qm1.qm)["STATUS"] == "RUNNING"
        qm1.qm.clock_control.advance(1)  # DISCINT has passed: the channel ends normally
        with trio.fail_after(30):
            await ended.wait(1)
        assert _status(qm1.qm) == {}  # INACTIVE: no current status (as IBM's after DISCINT)

        # The next message triggers it again (the transmission queue was empty and no agent has it open).
        await trio.to_thread.run_sync(_put, qm1.port, [(b"second", True), (b"third", False)])
        got = await trio.to_thread.run_sync(_get, qm1.port, 2)
        assert sorted(got) == [(b"second", CMQC.MQPER_PERSISTENT), (b"third", CMQC.MQPER_NOT_PERSISTENT)]
        assert _status(qm1.qm)["STATUS"] == "RUNNING" and ended.count == 1
        assert (_depth(qm1.qm, "QM2"), _depth(qm1.qm, INITQ)) == (0, 0)


async def test_a_stopped_channel_is_not_triggered_and_trigdata_blank_finds_the_channel_by_its_xmitq(tmp_path):
    xmitq = f"TRIGGER TRIGTYPE(EVERY) INITQ({INITQ})"
    async with hosted(tmp_path, xmitq=xmitq, sdr="DISCINT(0)") as (qm1, qm2, ended):
        _mqsc(qm1.qm, f"STOP CHANNEL({CHANNEL})")
        await trio.to_thread.run_sync(_put, qm1.port, [(b"held", True)])
        await trio.testing.wait_all_tasks_blocked()  # the initiator took the trigger message, started nothing
        assert (_depth(qm1.qm, INITQ), _depth(qm1.qm, "QM2"), ended.count) == (0, 1, 0)
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")  # only START CHANNEL restarts a stopped channel (IBM)
        assert await trio.to_thread.run_sync(_get, qm1.port, 1) == [(b"held", CMQC.MQPER_PERSISTENT)]
        _mqsc(qm1.qm, f"STOP CHANNEL({CHANNEL}) STATUS(INACTIVE)")
        with trio.fail_after(30):
            await ended.wait(1)
        # INACTIVE: TRIGDATA is blank, so the initiator starts the sender whose XMITQ is QM2.
        await trio.to_thread.run_sync(_put, qm1.port, [(b"again", True)])
        assert await trio.to_thread.run_sync(_get, qm1.port, 1) == [(b"again", CMQC.MQPER_PERSISTENT)]


async def test_a_sender_whose_partner_is_down_retries_only_when_the_virtual_clock_moves(tmp_path):
    with socket.socket() as unused:  # a port nothing listens on: every attempt is refused
        unused.bind(("127.0.0.1", 0))
        dead = unused.getsockname()[1]
    async with hosted(tmp_path, xmitq="", sdr="SHORTRTY(3) SHORTTMR(60) LONGRTY(1) LONGTMR(1200)") as (
            qm1, qm2, ended):
        _mqsc(qm1.qm, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({dead})')")
        clock = qm1.qm.clock_control.virtual
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
        await _clock_waits(qm1)
        shown = _status(qm1.qm)
        assert (shown["STATUS"], shown["SHORTRTS"], shown["LONGRTS"]) == ("RETRYING", "2", "1"), shown
        t0 = clock()  # the first attempt failed now; the next is due at t0 + SHORTTMR
        qm1.qm.clock_control.advance(59)  # not yet SHORTTMR: no attempt
        await trio.testing.wait_all_tasks_blocked()
        assert _status(qm1.qm)["SHORTRTS"] == "2"
        for step, due, short, long in ((1, 60, "1", "1"), (60, 120, "0", "1"), (60, 180, "0", "0")):
            qm1.qm.clock_control.advance(step)  # the interval has passed: one more attempt, then the next wait
            assert await trio.to_thread.run_sync(clock.wait_for_deadline, t0 + due, 30)
            shown = _status(qm1.qm)
            assert (shown["STATUS"], shown["SHORTRTS"], shown["LONGRTS"]) == ("RETRYING", short, long), shown
        # Out of short retries, the last wait is LONGTMR; then the last attempt fails too: STOPPED.
        assert clock.next_deadline() == t0 + 180 + 1200
        qm1.qm.clock_control.advance(1200)  # the last attempt fails too: STOPPED
        with trio.fail_after(30):
            await ended.wait(1)
        assert _status(qm1.qm)["STATUS"] == "STOPPED"


BODIES = [f"order {i}".encode() for i in range(5)]


async def test_a_fault_breaking_the_channel_mid_batch_keeps_every_message_once_then_the_retry_completes(tmp_path):
    async with hosted(tmp_path, xmitq="", sdr="SHORTRTY(1) SHORTTMR(30) LONGRTY(0) BATCHSZ(10)") as (
            qm1, qm2, ended):
        # The third message of a batch: two go out, then the connection drops (the batch unconfirmed).
        _mqsc(qm1.qm, f"SET QMLITE FAULT(CUT) VERB(MCAMSG) CHANNEL({CHANNEL}) ACTION(BREAK) NTH(3) COUNT(1)")
        await trio.to_thread.run_sync(_put, qm1.port, [(body, True) for body in BODIES])
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
        await _clock_waits(qm1)  # broken, waiting SHORTTMR to retry
        shown = _status(qm1.qm)
        assert (shown["STATUS"], shown["SHORTRTS"], shown["INDOUBT"]) == ("RETRYING", "0", "NO"), shown
        (rule,) = run_mqsc(qm1.qm, "DISPLAY QMLITE FAULT(CUT)")
        assert (rule.objects[0]["MATCHED"], rule.objects[0]["FIRED"]) == ("3", "1"), rule.text
        # Every message once: all five still on the transmission queue, none committed on TARGET (the
        # receiver backed out the two it had when the connection ended).
        sending = [m.data for m in qm1.qm.registry.messages.contents("QM2")]
        assert len(sending) == 5 and all(any(body in data for data in sending) for body in BODIES)
        await trio.testing.wait_all_tasks_blocked()  # the receiving end read the end of its stream
        assert _depth(qm2.qm, "TARGET") == 0
        qm1.qm.clock_control.advance(30)  # the retry: the same batch again, whole
        got = await trio.to_thread.run_sync(_get, qm1.port, 5)
        assert got == [(body, CMQC.MQPER_PERSISTENT) for body in BODIES]
        assert _depth(qm1.qm, "QM2") == 0
        assert _status(qm1.qm)["STATUS"] == "RUNNING"


@pytest.mark.parametrize("end", ["sending", "receiving"])
async def test_a_fault_refusing_the_channels_start_is_retried_at_shorttmr(tmp_path, end):
    async with hosted(tmp_path, xmitq="", sdr="SHORTRTY(1) SHORTTMR(45) LONGRTY(0)") as (qm1, qm2, ended):
        ruled = qm1 if end == "sending" else qm2
        _mqsc(ruled.qm, f"SET QMLITE FAULT(NOSTART) VERB(MCASTART) OBJECT({CHANNEL}) REASON(2537) COUNT(1)")
        await trio.to_thread.run_sync(_put, qm1.port, [(b"late", True)])
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
        await _clock_waits(qm1)  # refused (AMQ9558 at the sender, STATUS CHANNEL_UNAVAILABLE from the receiver)
        shown = _status(qm1.qm)
        assert (shown["STATUS"], shown["SHORTRTS"], _depth(qm1.qm, "QM2")) == ("RETRYING", "0", 1), shown
        (rule,) = run_mqsc(ruled.qm, "DISPLAY QMLITE FAULT(NOSTART)")
        assert rule.objects[0]["FIRED"] == "1", rule.text
        qm1.qm.clock_control.advance(45)
        assert await trio.to_thread.run_sync(_get, qm1.port, 1) == [(b"late", CMQC.MQPER_PERSISTENT)]


async def test_a_fault_delaying_a_channels_messages_holds_them_until_the_clock_moves(tmp_path):
    async with hosted(tmp_path, xmitq="", sdr="") as (qm1, qm2, ended):
        _mqsc(qm1.qm, f"SET QMLITE FAULT(SLOW) VERB(MCAMSG) CHANNEL({CHANNEL}) DELAY(5000)")
        await trio.to_thread.run_sync(_put, qm1.port, [(b"slow", True)])
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
        await _clock_waits(qm1)  # the message got, held before it is sent
        shown = _status(qm1.qm)
        assert (shown["STATUS"], shown["CURMSGS"], _depth(qm2.qm, "TARGET")) == ("RUNNING", "1", 0), shown
        qm1.qm.clock_control.advance(5)
        assert await trio.to_thread.run_sync(_get, qm1.port, 1) == [(b"slow", CMQC.MQPER_PERSISTENT)]


@pytest.mark.parametrize("ruled,verb", [("QM1", "MQCMIT"), ("QM2", "MQPUT"), ("QM2", "MQCMIT")])
async def test_an_mqi_rule_breaking_a_channel_agents_own_call_is_a_channel_failure_retried(tmp_path, ruled, verb):
    """The agents' own MQI calls meet MQI rules by their channel's name (CHANNEL): a BREAK there ends the
    channel as a lost connection does, never the server (decision MCT7)."""
    async with hosted(tmp_path, xmitq="", sdr="SHORTRTY(1) SHORTTMR(10) LONGRTY(0)") as (qm1, qm2, ended):
        server = qm1 if ruled == "QM1" else qm2
        _mqsc(server.qm, f"SET QMLITE FAULT(AGENT) VERB({verb}) CHANNEL({CHANNEL}) ACTION(BREAK) COUNT(1)")
        await trio.to_thread.run_sync(_put, qm1.port, [(b"kept", True)])
        _mqsc(qm1.qm, f"START CHANNEL({CHANNEL})")
        await _clock_waits(qm1)  # failed once, waiting to retry
        assert (_status(qm1.qm)["STATUS"], _depth(qm1.qm, "QM2")) == ("RETRYING", 1)
        qm1.qm.clock_control.advance(10)
        assert await trio.to_thread.run_sync(_get, qm1.port, 1) == [(b"kept", CMQC.MQPER_PERSISTENT)]


async def test_messages_left_on_a_triggered_transmission_queue_start_its_channel_when_the_server_starts(tmp_path):
    """The sender reaches the server through a proxy of the test's that outlives it (the restarted server
    listens on another port): its first attempt after the restart finds the proxy aimed at the old port
    and retries; aimed at the new one, the retry delivers."""
    cfg = _cfg(tmp_path, "QM1", qmgrs=("QM2",), clock="virtual")
    async with trio.open_nursery() as nursery:
        proxy = Proxy(0)
        await proxy.start(nursery)
        # First run: the channel stopped, the message put (its trigger message consumed, nothing started).
        async with running(cfg, synchronous="NORMAL") as qm1:
            proxy.target_port = qm1.port
            _mqsc(qm1.servers["QM2"].qm, RECEIVING)
            _mqsc(qm1.qm, f"""
                DEFINE QLOCAL(QM2) USAGE(XMITQ) {TRIGGERED}
                DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
                DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({proxy.port})') XMITQ(QM2) DISCINT(0)
                STOP CHANNEL({CHANNEL})""")
            await trio.to_thread.run_sync(_put, qm1.port, [(b"left", True)])
            await trio.testing.wait_all_tasks_blocked()
            assert (_depth(qm1.qm, "QM2"), _depth(qm1.qm, INITQ), _status(qm1.qm)["STATUS"]) == (1, 0, "STOPPED")
        # Restarted (a channel's STOPPED state is not kept): the channel initiator opens SYSTEM.CHANNEL.INITQ,
        # finds the transmission queue holding a message and starts the channel, no START CHANNEL given.
        async with running(cfg, synchronous="NORMAL") as qm1:
            await _clock_waits(qm1)  # its first attempt reached the old port: retrying
            assert _status(qm1.qm)["STATUS"] == "RETRYING"
            proxy.target_port = qm1.port
            qm1.qm.clock_control.advance(60)  # SHORTTMR
            assert await trio.to_thread.run_sync(_get, qm1.port, 1) == [(b"left", CMQC.MQPER_PERSISTENT)]
            _mqsc(qm1.qm, f"STOP CHANNEL({CHANNEL})")
        nursery.cancel_scope.cancel()
