"""PING CHANNEL over the wire (server/mca/ping.py) through IBM's ibmmq PCFExecute: the command server
answers after the round trip (registry/admin/deferred.py); a partner that is down, a channel that runs,
a channel of the wrong type here or there, each answered with IBM's reason.  Two queue managers in one
process (test_run.py's), the ping captured and read by Wireshark's MQ dissector."""

from __future__ import annotations

import functools
import socket

import pytest
import trio

from qmlite.registry.monitoring import events as E
from qmlite.registry.mqsc import run_mqsc
from tests.registry.monitoring.test_events import events_on
from tests.server.mca.test_run import ADMIN, CHANNEL, _depth, _mqsc, _put, admitting, two_queue_managers
from tests.support import wire

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQCFC  # noqa: E402


def _ping(port: int, qmgr: str, channel: str, extra: dict | None = None) -> int:
    """PING CHANNEL through the command server: 0, or the reason it failed with."""
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    pcf = ibmmq.PCFExecute(qm, response_wait_interval=30_000)
    try:
        pcf.MQCMD_PING_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: channel, **(extra or {})})
        return 0
    except ibmmq.MQMIError as exc:
        return exc.reason
    finally:
        pcf.disconnect()
        qm.disconnect()


def _closed_port() -> int:
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_ping_makes_the_round_trip_and_is_answered_after_it(tmp_path):
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        _mqsc(qm2, "ALTER QMGR CHLEV(ENABLED)")
        assert await trio.to_thread.run_sync(_ping, qm1.port, "QM1", CHANNEL) == 0
        assert await trio.to_thread.run_sync(_ping, qm1.port, "QM1", CHANNEL, {CMQCFC.MQIACH_DATA_COUNT: 1000}) == 0
        assert receiving.served == 2  # each ping was a conversation of its own with the receiver
        # Through QM2's own MQ port, which hands a message channel's socket to its receiving end.
        _mqsc(qm2, "DEFINE CHANNEL(VIA.PORT) CHLTYPE(RCVR)")
        _mqsc(qm2, admitting("VIA.PORT"))  # CHLAUTH is checked at a ping's ID exchange too (the back-stop)
        _mqsc(qm1, f"DEFINE CHANNEL(VIA.PORT) CHLTYPE(SDR) CONNAME('127.0.0.1({qm2.port})') XMITQ(QM2)")
        assert await trio.to_thread.run_sync(_ping, qm1.port, "QM1", "VIA.PORT") == 0
        # The ping starts nothing: no status at this end, the messages stay put until START CHANNEL.
        await trio.to_thread.run_sync(_put, qm1.port, [(b"kept", True)])
        assert CHANNEL not in qm1.qm.registry.running.message_channels
        assert qm1.qm.registry.messages.depth("QM2") == 1
        # IBM raises Channel Started once an instance is negotiated and resynchronised; a ping never is.
        assert events_on(qm2.qm, E.CHANNEL_QUEUE) == []
    result = wire.dissect(receiving.capture, ["mq.ping.length", "mq.tsh.type", "mq.status.code"])
    assert result.malformed == [] and result.expert == []
    # Each ping's PING_DATA out and back: the 4-byte length and 16 (the default) or 1000 bytes.
    assert result.values("mq.ping.length") == ["20", "20", "1004", "1004"]
    assert result.values("mq.status.code") == ["0", "0"]  # each conversation closed normally


async def test_ping_of_a_partner_that_is_down_a_running_channel_and_the_wrong_types(tmp_path):
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        _mqsc(qm1, f"""
            DEFINE CHANNEL(TO.NOWHERE) CHLTYPE(SDR) CONNAME('127.0.0.1({_closed_port()})') XMITQ(QM2)
            DEFINE CHANNEL(NOT.THERE) CHLTYPE(SDR) CONNAME('127.0.0.1({qm2.port})') XMITQ(QM2)
            DEFINE CHANNEL(QM2.SVRCONN) CHLTYPE(SDR) CONNAME('127.0.0.1({qm2.port})') XMITQ(QM2)
            DEFINE CHANNEL(NO.CONNAME) CHLTYPE(SVR) XMITQ(QM2)
            DEFINE CHANNEL(QM1.RCVR) CHLTYPE(RCVR)""")
        _mqsc(qm2, "DEFINE CHANNEL(QM2.SVRCONN) CHLTYPE(SVRCONN)")
        cases = {"TO.NOWHERE": CMQCFC.MQRCCF_HOST_NOT_AVAILABLE,  # IBM AMQ9202: no listener there
                 "NOT.THERE": CMQCFC.MQRCCF_UNKNOWN_REMOTE_CHANNEL,  # QM2's MQ port: STATUS NO_CHANNEL
                 "QM2.SVRCONN": CMQCFC.MQRCCF_BIND_FAILED,  # STATUS CHANNEL_WRONG_TYPE at the ID exchange
                 "NO.CONNAME": CMQCFC.MQRCCF_CONFIGURATION_ERROR,  # a server channel with no partner named
                 "QM1.RCVR": CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR,  # IBM: sender, server, cluster-sender only
                 "NO.SUCH": CMQCFC.MQRCCF_CHANNEL_NOT_FOUND}
        for name, reason in cases.items():
            assert await trio.to_thread.run_sync(_ping, qm1.port, "QM1", name) == reason, name
        # A running channel: its agent owns the connection (IBM: MQRCCF_CHANNEL_IN_USE).
        await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 1)
        assert await trio.to_thread.run_sync(_ping, qm1.port, "QM1", CHANNEL) == CMQCFC.MQRCCF_CHANNEL_IN_USE
        # A DataCount outside 16..32768 is refused before anything is sent.
        assert await trio.to_thread.run_sync(_ping, qm1.port, "QM1", "TO.NOWHERE", {CMQCFC.MQIACH_DATA_COUNT: 8}) == \
            CMQCFC.MQRCCF_PING_DATA_COUNT_ERROR


async def test_other_commands_are_answered_while_a_ping_waits(tmp_path):
    """The ping's wait holds up nothing: a partner that accepts and never answers, a command meanwhile."""
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        silent = trio.Event()
        accepted = trio.Event()

        async def mute(stream) -> None:
            async with stream:
                accepted.set()
                await silent.wait()

        async with trio.open_nursery() as nursery:
            (listener,) = await nursery.start(functools.partial(trio.serve_tcp, mute, 0, host="127.0.0.1"))
            port = listener.socket.getsockname()[1]
            _mqsc(qm1, f"DEFINE CHANNEL(TO.MUTE) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2)")
            pinged: list[int] = []
            answered = trio.Event()

            async def pinging() -> None:
                pinged.append(await trio.to_thread.run_sync(_ping, qm1.port, "QM1", "TO.MUTE"))
                answered.set()

            nursery.start_soon(pinging)
            with trio.fail_after(30):
                await accepted.wait()
                # The ping waits on its partner; another command is answered meanwhile.
                assert await trio.to_thread.run_sync(_ping, qm1.port, "QM1", "QM2") == \
                    CMQCFC.MQRCCF_CHANNEL_NOT_FOUND
            assert pinged == []
            silent.set()  # the partner closes without a word: the ping fails, and is answered
            with trio.fail_after(30):
                await answered.wait()
            assert pinged == [CMQCFC.MQRCCF_CONNECTION_CLOSED]
            nursery.cancel_scope.cancel()


def _escape(port: int, qmgr: str, text: str) -> list:
    """MQSC through the command server (PCF Escape, as runmqsc -c sends it): [(reason, text)]."""
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    pcf = ibmmq.PCFExecute(qm, response_wait_interval=30_000)
    try:
        answers = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC, CMQCFC.MQCACF_ESCAPE_TEXT: text})
        return [(0, a[CMQCFC.MQCACF_ESCAPE_TEXT].decode().strip()) for a in answers]
    except ibmmq.MQMIError as exc:
        return [(exc.reason, "")]
    finally:
        pcf.disconnect()
        qm.disconnect()


async def test_ping_channel_in_mqsc_through_the_command_server(tmp_path):
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        _mqsc(qm1, f"DEFINE CHANNEL(TO.NOWHERE) CHLTYPE(SDR) CONNAME('127.0.0.1({_closed_port()})') XMITQ(QM2)")
        answered = await trio.to_thread.run_sync(_escape, qm1.port, "QM1", f"PING CHANNEL({CHANNEL}) DATALEN(64)")
        assert answered == [(0, "AMQ8020I: Ping IBM MQ channel complete.")]
        assert receiving.served == 1
        answered = await trio.to_thread.run_sync(_escape, qm1.port, "QM1", "PING CHANNEL(TO.NOWHERE)")
        assert [reason for reason, _ in answered] == [CMQCFC.MQRCCF_HOST_NOT_AVAILABLE]
        # In-process (no command server to wait for the round trip): what the command knows at once.
        (result,) = run_mqsc(qm1.qm, f"PING CHANNEL({CHANNEL})")
        assert result.reason_code == CMQCFC.MQRCCF_ALLOCATE_FAILED and receiving.served == 1
