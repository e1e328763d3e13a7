"""Every connection has deadlines (issue 30 item 3, decisions CX1-CX3): a peer that stops anywhere in its
opening exchange -- at any byte of its first TSH or TSHM header, of its TLS ClientHello, after the ID
exchange -- is closed once ``opening_timeout`` passes and its max-connections slot is free again; the
idle watchdog is armed from the first read on the plain socket path as on the stream path; and a
reply a DELAY rule holds ends with its client (EOF or reset), freeing the slot at once."""

from __future__ import annotations

import math
import socket
import struct
import types

import pytest
import trio
import trio.testing

from qmlite.keys import testpki as pki
from qmlite.pcf import fap
from qmlite.server import config
from qmlite.server.channel import State
from qmlite.server.connection import Connection
from tests.support.rawfap import (RawPeer, client_hello, connect_mq, handshake, id_segment, mqconn_body,
                                  running_server, send_call)

OPENING = 1.0  # seconds: the opening deadline of the servers below (the bounds are only how long a test waits)
PATIENCE = 60


async def _stall(server, data: bytes) -> trio.SocketStream:
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    if data:
        await stream.send_all(data)
    return stream


async def _closed_by_server(stream: trio.SocketStream) -> None:
    """Read (whatever the server still says: a ServerHello, an alert) until the server closes."""
    try:
        while await stream.receive_some(65536):
            pass
    except trio.BrokenResourceError:
        pass  # reset: closed all the same
    await stream.aclose()


async def _all_closed(streams: list[trio.SocketStream]) -> None:
    with trio.fail_after(PATIENCE):
        async with trio.open_nursery() as nursery:
            for stream in streams:
                nursery.start_soon(_closed_by_server, stream)


async def test_a_peer_stalled_at_any_byte_of_its_opening_exchange_is_closed_and_its_slot_freed(tmp_path):
    tsh, tshm = id_segment(fap.TSH), id_segment(fap.TSHM)
    stalls = [b""]  # connects and says nothing
    stalls += [tsh[:n] for n in range(1, fap.TSH_LENGTH + 1)]  # every byte of a TSH header
    stalls += [tshm[:n] for n in range(1, fap.TSHM_LENGTH + 1)]  # ... and of a TSHM header
    stalls += [tsh[:len(tsh) - 1], tshm[:len(tshm) - 1]]  # a whole header, its INITIAL_DATA one byte short
    async with running_server(tmp_path, opening_timeout=OPENING, max_connections=len(stalls) + 2) as server:
        streams = [await _stall(server, data) for data in stalls]
        # after a whole ID exchange, and after USERID_DATA and CONAUTH_INFO too, but no MQCONN
        agreed = []
        for password in (None, "passw0rd"):
            peer = await RawPeer.connect(server)
            await handshake(peer, password=password)
            agreed.append(peer.stream)
        await _all_closed(streams + agreed)
        await trio.testing.wait_all_tasks_blocked()  # each connection task has seen its end through
        assert server.connection_count() == 0
        peer = await RawPeer.connect(server)  # and the server serves as before
        await handshake(peer)
        assert (await connect_mq(peer)).Reason == 0
        await peer.aclose()


async def test_a_tls_client_stalled_at_any_byte_of_its_client_hello_is_closed(tmp_path):
    made = pki.init(tmp_path / "pki")
    hello = client_hello()
    async with running_server(tmp_path / "data", opening_timeout=OPENING, pki_dir=str(made.pki_dir)) as server:
        streams = [await _stall(server, hello[:n]) for n in range(1, len(hello) + 1)]
        await _all_closed(streams)
        await trio.testing.wait_all_tasks_blocked()
        assert server.connection_count() == 0


async def test_stalled_peers_hold_their_slots_only_until_the_deadline(tmp_path):
    async with running_server(tmp_path, opening_timeout=OPENING, max_connections=3) as server:
        stalled = []
        for _ in range(3):  # each past its ID exchange (so surely counted), none reaching MQCONN
            peer = await RawPeer.connect(server)
            await handshake(peer)
            stalled.append(peer.stream)
        refused = await RawPeer.connect(server)
        seg = await refused.receive()
        assert seg.header.SegmentType == fap.STATUS_DATA
        assert fap.decode_body(seg).ReturnCode == fap.MAX_CONNS_LIMIT_REACHED  # the client's 2025
        await _all_closed(stalled)
        await trio.testing.wait_all_tasks_blocked()
        peer = await RawPeer.connect(server)
        await handshake(peer)
        assert (await connect_mq(peer)).Reason == 0
        await peer.aclose()


async def test_a_connected_client_is_not_held_to_the_opening_deadline(tmp_path):
    async with running_server(tmp_path, opening_timeout=OPENING) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        assert (await connect_mq(peer)).Reason == 0
        with trio.move_on_after(OPENING * 3):  # three times the deadline: still open
            assert await peer.stream.receive_some(65536) != b""
        assert server.connection_count() == 1
        await peer.aclose()


def test_the_opening_timeout_is_a_setting_a_flag_and_checked(tmp_path):
    from qmlite import cli

    assert config.load(environ={}).opening_timeout == 60.0  # decision CX1's default
    args = cli.build_parser(only_serve=True).parse_args(["serve", "--opening-timeout", "2.5"])
    assert args.opening_timeout == 2.5
    settings = tmp_path / "qmlite.toml"
    settings.write_text("opening_timeout = 7\n")
    assert config.load(environ={}, config_file=settings).opening_timeout == 7
    for bad in (0, -1, "soon", True):
        with pytest.raises(config.ConfigError, match="invalid opening timeout"):
            config.load(environ={}, overrides={"opening_timeout": bad})


# ---- the read loop's watchdogs, on a virtual clock -----------------------------------------------------
class _Log:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def info(self, event: str, **kw) -> None:
        self.events.append((event, kw))

    warning = debug = info


def _bare_server() -> types.SimpleNamespace:
    """What a connection touches before its ID exchange: the settings, the queues' wake count, and before each wait
    the committer's idle sync (JN15: nothing written ahead here)."""
    return types.SimpleNamespace(cfg=config.ServerConfig(), mqi=types.SimpleNamespace(
        activity=types.SimpleNamespace(wakes=0)), committer=types.SimpleNamespace(sync_idle=lambda: False))


async def _pair(plain: bool):
    if plain:
        ours, theirs = trio.socket.socketpair()
        return trio.SocketStream(ours), trio.SocketStream(theirs)
    return trio.testing.memory_stream_pair()


@pytest.mark.parametrize("plain", [True, False], ids=["socket", "stream"])
async def test_a_silent_peer_meets_the_idle_watchdog_on_either_read_path(plain, autojump_clock):
    ours, theirs = await _pair(plain)
    log = _Log()
    conn = Connection(_bare_server(), ours, 1, log)
    assert (conn._sock is not None) == plain  # the plain path reads the socket itself (HP1)
    await theirs.send_all(b"TSH ")  # four bytes of a header, then nothing
    with trio.fail_after(10_000):
        await conn.run()
    assert conn.ch.state == State.CLOSED  # the connection ended; its listener closes the socket (SC3)
    (event, fields), = [(e, kw) for e, kw in log.events if e == "channel_timeout"]
    assert "phase" not in fields and fields["seconds"] == 150  # twice 60 s before any agreement, plus 30


async def test_a_client_served_without_a_wait_for_longer_than_the_idle_limit_is_not_idle(autojump_clock):
    """The socket path's watchdog moves before a wait; a client whose next request is always there when
    the loop reads (pipelining, or a late probe that finds it: SP3) may never make it wait, so the
    watchdog moves where the loop passes its fairness checkpoint too: 100 requests, 10 s apart on the
    virtual clock, all read with no wait -- 1,000 s against an idle limit of 150 -- and no timeout."""
    a, b = socket.socketpair()
    ours = trio.SocketStream(trio.socket.from_stdlib_socket(a))
    log = _Log()
    conn = Connection(_bare_server(), ours, 1, log)
    assert conn._sock is not None
    served = []

    async def received(data: bytes) -> None:  # the channel's work stood in: 10 s of it, then the next request is in
        served.append(data)
        autojump_clock.jump(10)
        if len(served) < 100:
            b.send(b"x")
        else:
            b.close()  # the client ends: the loop reads the end and returns

    conn._received = received
    b.send(b"x")
    with trio.fail_after(100_000):
        await conn._socket_read_loop(conn._sock)
    assert len(served) == 100
    assert [e for e, _ in log.events if e == "channel_timeout"] == []
    a.close()


async def test_the_opening_deadline_comes_first_and_an_mqconn_lifts_it(autojump_clock):
    ours, theirs = await _pair(True)
    log = _Log()
    conn = Connection(_bare_server(), ours, 1, log, opening_deadline=trio.current_time() + 5)
    await theirs.send_all(b"TSHM")
    with trio.fail_after(10_000):
        await conn.run()
    (event, fields), = [(e, kw) for e, kw in log.events if e == "channel_timeout"]
    assert fields["phase"] == "opening" and fields["message"] == "AMQ9271E: Channel '????' timed out."
    assert trio.current_time() < 150  # before the idle watchdog would have

    ours, theirs = await _pair(True)
    log = _Log()
    conn = Connection(_bare_server(), ours, 1, log, opening_deadline=trio.current_time() + 5)
    conn.opened()  # as MQCONN's answer does
    await theirs.send_all(b"TSHM")
    with trio.fail_after(10_000):
        await conn.run()
    assert [kw.get("phase") for e, kw in log.events if e == "channel_timeout"] == [None]  # the idle watchdog's


async def test_a_channel_without_heartbeats_has_no_idle_limit(autojump_clock):
    ours, theirs = await _pair(True)
    conn = Connection(_bare_server(), ours, 1, _Log())
    conn.ch.agreement = types.SimpleNamespace(heartbeat_interval=0)  # HBINT(0) agreed
    assert conn._idle_limit() == math.inf
    with trio.move_on_after(100_000) as scope:
        await conn.run()
    assert scope.cancelled_caught  # still being served when the test stopped waiting


# ---- a held reply ends with its client -----------------------------------------------------------------
def _reset(stream: trio.SocketStream) -> None:
    """Close as a killed process's socket with unread data closes: with a reset."""
    stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    stream.socket.close()


async def test_a_delayed_call_ends_with_its_client_and_frees_its_slot_at_once(tmp_path):
    async with running_server(tmp_path, max_connections=4) as server:
        server.qm.faults.define("SLOW", verb="MQCONN", delay=3_600_000)
        held = []
        for _ in range(4):
            peer = await RawPeer.connect(server)
            await handshake(peer)
            await send_call(peer, fap.MQCONN, mqconn_body())
            held.append(peer)
        await trio.testing.wait_all_tasks_blocked()
        assert len(server.mqi._holds) == 4 and server.connection_count() == 4
        refused = await RawPeer.connect(server)
        assert fap.decode_body(await refused.receive()).ReturnCode == fap.MAX_CONNS_LIMIT_REACHED
        for i, peer in enumerate(held):  # gone as killed clients go: half with a reset, half with a FIN
            if i % 2:
                _reset(peer.stream)
            else:
                await peer.aclose()
        await trio.testing.wait_all_tasks_blocked()
        assert server.mqi._holds == {} and server.connection_count() == 0
        # each connection's MQCONN ended with it (the cluster repository manager's own session stays: CLU14)
        assert [s for s in server.qm.sessions.values() if not s.internal] == []
        server.qm.faults.clear()
        peer = await RawPeer.connect(server)
        await handshake(peer)
        assert (await connect_mq(peer)).Reason == 0
        await peer.aclose()
