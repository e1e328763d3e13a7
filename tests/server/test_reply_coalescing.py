"""Replies held until the event loop's batch of tasks is done, then written together (server/coalesce.py,
decision HP10).  The batch's first reply leaves at once, so a lone client's is never held; the later ones
are held.  What the direct write (HP1) gave must still hold: every byte of every send reaches its client,
in order, whatever the sizes and however the sends of several connections interleave; a reply the socket
takes only in part is finished as the client reads, and later replies wait behind it; a socket that breaks
under a flush ends its connection as a send's error did, and the loop goes on flushing the others; what is
held when a connection ends (a STATUS before the close) still leaves."""

from __future__ import annotations

import os
import socket
import types

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from qmlite.pcf import calls, fap
from qmlite.pcf import constants as C
from qmlite.server import coalesce, connection, log as qlog, sockio

from tests.support.rawfap import RawPeer, client_id, opened_queue, running_server, send_call

class _Writes:
    """``sockio.write`` recorded: each write's size, and whether the coalescer's flush made it."""

    def __init__(self, monkeypatch) -> None:
        self.log: list[tuple[int, bool]] = []
        self.flushing = False
        real_write, real_wait = sockio.write, coalesce.Coalescer.before_io_wait

        def write(sock, data) -> int:
            sent = real_write(sock, data)
            self.log.append((sent, self.flushing))
            return sent

        def before_io_wait(coalescer, timeout) -> None:
            self.flushing = True
            try:
                real_wait(coalescer, timeout)
            finally:
                self.flushing = False

        monkeypatch.setattr(sockio, "write", write)
        monkeypatch.setattr(coalesce.Coalescer, "before_io_wait", before_io_wait)


def _request(segment_type: int, body: bytes, hobj: int) -> bytes:
    total = fap.TSHM_LENGTH + fap.API_HEADER_LENGTH + len(body)
    api = fap.ApiHeader(CallLength=total, Hobj=hobj).pack(fap.LITTLE)
    return fap.encode_segment(segment_type, api + body, struct_id=fap.TSHM, conversation_id=1)


async def _inquire(peer: RawPeer, hobj: int) -> int:
    inq = calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH], 1, 0).pack(fap.LITTLE)
    await send_call(peer, fap.MQINQ, inq, hobj=hobj)
    seg = await peer.receive()
    assert seg is not None and seg.header.SegmentType == fap.MQINQ_REPLY
    return fap.decode_body(seg, first=True).ApiHeader.CompCode


async def test_a_lone_clients_replies_leave_at_once_and_a_batchs_later_replies_are_held(tmp_path, monkeypatch):
    writes = _Writes(monkeypatch)
    async with running_server(tmp_path) as server:
        first, hobj = await opened_queue(server)
        second, hobj2 = await opened_queue(server)
        del writes.log[:]
        for _ in range(3):  # one client at a time: each reply is its batch's first
            assert await _inquire(first, hobj) == 0
            assert await _inquire(second, hobj2) == 0
        assert len(writes.log) == 6 and not any(flushed for _, flushed in writes.log)
        # both clients' requests there together: the server reads them in one batch, and of its two
        # replies one leaves at once, the other with the flush as the batch ends
        inq = calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH], 1, 0).pack(fap.LITTLE)
        await trio.testing.wait_all_tasks_blocked()  # both connections' loops wait for their sockets
        del writes.log[:]
        for peer, h in ((first, hobj), (second, hobj2)):
            os.write(peer.stream.socket.fileno(), _request(fap.MQINQ, inq, h))
        for peer in (first, second):
            seg = await peer.receive()
            assert fap.decode_body(seg, first=True).ApiHeader.CompCode == 0
        assert sorted(flushed for _, flushed in writes.log) == [False, True]
        await second.aclose()
        await first.aclose()


async def test_what_is_held_when_a_connection_ends_still_leaves(tmp_path, monkeypatch):
    """A client's ID and a segment the channel refuses, read together: the ID's answer is the batch's first
    reply and leaves at once, the STATUS after it is held, and is written before the connection's ``run``
    returns -- the listener closes the socket next, whether or not a batch ends first -- so it reaches the
    client before the close."""
    left_held = []
    real_run = connection.Connection.run

    async def run(conn, first=b""):
        await real_run(conn, first)
        left_held.append(conn._out)

    monkeypatch.setattr(connection.Connection, "run", run)
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        ident = fap.encode_segment(fap.INITIAL_DATA, client_id("DEV.ADMIN.SVRCONN").pack(fap.BIG),
                                   struct_id=fap.TSH, byte_order=1,
                                   control_flags1=fap.CF1_CONFIRM_REQUEST | fap.CF1_FIRST | fap.CF1_LAST)
        bad = fap.encode_segment(0x77, b"", struct_id=fap.TSH, byte_order=1)  # no such segment type
        os.write(peer.stream.socket.fileno(), ident + bad)
        seg = await peer.receive()
        assert seg is not None and seg.header.SegmentType == fap.INITIAL_DATA
        seg = await peer.receive()
        assert seg is not None and seg.header.SegmentType == fap.STATUS_DATA
        assert fap.decode_body(seg).ReturnCode == fap.PROTOCOL_SEGMENT_TYPE
        assert await peer.receive() is None  # then the close
    assert left_held == [None]


# ---- the send path on its own: a Connection on real sockets, no queue manager --------------------

def _connection(host, sock: trio.socket.SocketType) -> connection.Connection:
    conn = connection.Connection(host, trio.SocketStream(sock), len(host.connections) + 1,
                                 qlog.get(component="test"))
    host.connections.add(conn)
    return conn


def _pair(*, sndbuf: int | None = None) -> tuple[trio.socket.SocketType, socket.socket]:
    ours, theirs = socket.socketpair()
    if sndbuf is not None:
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, sndbuf)
    theirs.setblocking(False)
    return trio.socket.from_stdlib_socket(ours), theirs


def _segment(tag: int, size: int) -> bytes:
    """A whole segment (``send`` takes whole segments) of ``size`` bytes, its body naming it."""
    body = bytes([tag % 251]) * (size - fap.TSHM_LENGTH)
    return fap.encode_segment(fap.MQINQ_REPLY, body, struct_id=fap.TSHM, conversation_id=1)


def _drain(sock: socket.socket) -> bytes:
    got = bytearray()
    while True:
        try:
            chunk = sock.recv(1 << 20)
        except BlockingIOError:
            return bytes(got)
        if not chunk:
            return bytes(got)
        got += chunk


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from([40, 600, 5000, coalesce.HOLD_LIMIT - 100,
                                                              coalesce.HOLD_LIMIT + 1, 100_000]),
                          st.booleans()), min_size=1, max_size=30))
def test_every_byte_of_every_send_arrives_in_order(script):
    """Sends of three connections, of sizes around the hold limit, interleaved, with passes through the
    scheduler (each a flush) between some, while their clients read: each client reads exactly its
    connection's sends, in order."""

    async def read_all(theirs: trio.socket.SocketType, into: bytearray) -> None:
        while chunk := await theirs.recv(1 << 20):
            into += chunk

    async def play():
        host = types.SimpleNamespace(cfg=None, connections=set())
        pairs = [_pair() for _ in range(3)]
        conns = [_connection(host, ours) for ours, _ in pairs]
        expected = [bytearray() for _ in conns]
        received = [bytearray() for _ in conns]
        async with trio.open_nursery() as nursery:
            for i, (_, theirs) in enumerate(pairs):
                nursery.start_soon(read_all, trio.socket.from_stdlib_socket(theirs), received[i])
            for conn in conns:
                conn.nursery = nursery
            for n, (which, size, checkpoint) in enumerate(script):
                data = _segment(n, size)
                expected[which] += data
                await conns[which].send(data)
                if checkpoint:
                    await trio.lowlevel.checkpoint()
            while any(conn._out is not None or conn._sending for conn in conns):
                await trio.sleep(0)
            for ours, _ in pairs:
                ours.close()  # the clients read to the end
        assert received == expected

    trio.run(play)


async def test_a_flush_the_socket_takes_in_part_is_finished_as_the_client_reads_and_later_sends_wait():
    host = types.SimpleNamespace(cfg=None, connections=set())
    (ours, theirs), (other_ours, other_theirs) = _pair(sndbuf=4096), _pair()
    conn, other = _connection(host, ours), _connection(host, other_ours)
    pieces = [_segment(i, coalesce.HOLD_LIMIT // 4 - 1) for i in range(4)]  # held together, too much for the socket
    later = _segment(9, 100)
    async with trio.open_nursery() as nursery:
        conn.nursery = other.nursery = nursery
        await other.send(_segment(8, 100))  # the batch's first reply: it leaves at once
        for piece in pieces:
            await conn.send(piece)
        await trio.lowlevel.checkpoint()  # the flush: the socket takes part
        assert conn._sending  # the rest is the connection's own task's
        nursery.start_soon(conn.send, later)  # waits behind the rest
        received = bytearray()
        want = b"".join(pieces) + later
        while len(received) < len(want):
            await trio.sleep(0)
            received += _drain(theirs)
        assert bytes(received) == want
    for sock in (ours, theirs, other_ours, other_theirs):
        sock.close()


async def test_a_socket_that_breaks_under_a_flush_ends_its_connection_and_the_others_go_on():
    host = types.SimpleNamespace(cfg=None, connections=set())
    (ours, theirs), (other_ours, other_theirs) = _pair(), _pair()
    conn, other = _connection(host, ours), _connection(host, other_ours)
    try:
        async with trio.open_nursery() as nursery:
            conn.nursery = other.nursery = nursery
            await other.send(_segment(0, 100))  # the batch's first reply: it leaves at once
            await conn.send(_segment(1, 100))  # held
            theirs.close()  # the client is gone before the batch ends
            await trio.lowlevel.checkpoint()  # the flush meets the broken socket; the connection's task raises it
            await trio.sleep_forever()
    except BaseExceptionGroup as group:
        broken, rest = group.split((trio.BrokenResourceError, ConnectionError))
        assert broken is not None and rest is None, group
    else:
        pytest.fail("the broken socket went unnoticed")
    # the loop's coalescer is still there: another connection's held reply still leaves
    async with trio.open_nursery() as nursery:
        other.nursery = nursery
        assert _drain(other_theirs) == _segment(0, 100)
        await other.send(_segment(2, 100))
        await other.send(_segment(3, 100))
        assert _drain(other_theirs) == _segment(2, 100)  # the second is held
        await trio.lowlevel.checkpoint()
        assert _drain(other_theirs) == _segment(3, 100)
    for sock in (ours, other_ours, other_theirs):
        sock.close()


async def test_a_send_waiting_behind_a_flush_goes_on_when_the_connection_has_ended():
    """A flush's rest is the connection's task's; when the connection has ended before that task could start
    (its nursery closed), a send another task made meanwhile (the command server's) is not left waiting."""
    host = types.SimpleNamespace(cfg=None, connections=set())
    ours, theirs = _pair()
    conn = _connection(host, ours)
    async with trio.open_nursery() as ended:
        pass
    conn.nursery = ended  # closed: the connection's run is over
    done = trio.Event()

    async def later() -> None:
        await conn.send(_segment(9, 100))
        done.set()

    async with trio.open_nursery() as nursery:
        conn._sending = True  # a flush the socket took in part: its rest on its way to the connection's task
        nursery.start_soon(later)
        await trio.testing.wait_all_tasks_blocked()
        assert not done.is_set()  # waiting behind the rest
        conn._finish_out(memoryview(b""), None)  # what trio's token runs next: the nursery is closed
        with trio.fail_after(5):
            await done.wait()
    assert _drain(theirs) == _segment(9, 100)
    ours.close()
    theirs.close()
