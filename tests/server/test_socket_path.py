"""The plain-socket path of a connection (server/connection.py, decision HP1): requests read and replies
written on the socket itself.  What trio's stream did for it must still hold: requests that arrive
together are all answered, in order; a reply larger than the socket takes at once is finished when
the client reads, byte for byte; other connections are served meanwhile; a memory stream keeps the
stream's own methods.  (A TLS stream moves its records on the socket in the same way, decision HP7:
tests/server/test_tls_listener.py.)"""

from __future__ import annotations

import socket
import struct

import structlog
import trio
import trio.testing

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf.framer import Framer

from tests.support.rawfap import RawPeer, mqi_call, opened_queue, running_server

def _request(peer: RawPeer, segment_type: int, body: bytes, hobj: int) -> bytes:
    """An MQI request on conversation 1, in as many segments as the agreed 32748 bytes need."""
    total = fap.TSHM_LENGTH + fap.API_HEADER_LENGTH + len(body)
    api = fap.ApiHeader(CallLength=total, Hobj=hobj).pack(fap.LITTLE)
    header = fap.decode_header(fap.encode_segment(segment_type, b"", struct_id=fap.TSHM, conversation_id=1))
    return b"".join(fap.split_call(header, api + body, 32748))


async def _call(peer: RawPeer, segment_type: int, body: bytes, hobj: int) -> tuple[fap.ApiHeader, bytes]:
    await peer.send(_request(peer, segment_type, body, hobj))
    seg = await peer.receive()
    assert seg is not None and seg.header.SegmentType == segment_type | fap.REPLY
    call = fap.decode_body(seg, first=True)
    return call.ApiHeader, call.Data


async def test_connections_read_and_write_their_socket_directly(tmp_path):
    async with running_server(tmp_path) as server:
        peer, _ = await opened_queue(server)
        (conn,) = server.connections
        assert conn._sock is conn.stream.socket  # a plain TCP stream: the socket path
        await peer.aclose()


async def test_requests_sent_together_are_all_answered_in_order(tmp_path):
    """200 MQPUTs in one write (more than one read's worth, and more than the reads the loop serves
    before it yields), then 200 MQGETs: every reply, in order, each get its own put's message."""
    count = 200
    async with running_server(tmp_path) as server:
        peer, hobj = await opened_queue(server)
        other, other_hobj = await opened_queue(server)
        puts, gets = [], []
        for i in range(count):
            md = mqi.MQMD(Version=2, MsgId=b"HP%06d" % i + bytes(16), Format="MQSTR")
            puts.append(_request(peer, fap.MQPUT, calls.MQPutRequest(
                md, mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), b"message %d" % i).pack(fap.LITTLE), hobj))
            gets.append(_request(peer, fap.MQGET, calls.MQGetRequest(
                mqi.MQMD(Version=2, MsgId=md.MsgId), mqi.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT,
                                                               MatchOptions=C.MQMO_MATCH_MSG_ID), 100).pack(fap.LITTLE),
                hobj))
        await peer.send(b"".join(puts))
        # another connection is answered while the first one's requests are queued up
        api, _ = await mqi_call(other, fap.MQINQ, calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH], 1, 0).pack(fap.LITTLE),
                                hobj=other_hobj)
        assert api.CompCode == 0
        for i in range(count):
            seg = await peer.receive()
            call = fap.decode_body(seg, first=True)
            assert (seg.header.SegmentType, call.ApiHeader.CompCode) == (fap.MQPUT_REPLY, 0)
            assert calls.MQPutReply.unpack(call.Data, 0, fap.LITTLE)[0].MsgDesc.MsgId.startswith(b"HP%06d" % i)
        await peer.send(b"".join(gets))
        for i in range(count):
            seg = await peer.receive()
            call = fap.decode_body(seg, first=True)
            assert (seg.header.SegmentType, call.ApiHeader.CompCode) == (fap.MQGET_REPLY, 0)
            assert calls.MQGetReply.unpack(call.Data, 0, fap.LITTLE)[0].Data == b"message %d" % i
        await peer.aclose()
        await other.aclose()


async def test_a_reply_larger_than_the_socket_takes_is_finished_as_the_client_reads(tmp_path, monkeypatch):
    """The server's send buffer shrunk to a few KiB: a 1 MiB message's GET reply (32 segments) cannot
    be written at once; it waits for room and arrives whole, and the connection serves the next call."""
    body = bytes(range(256)) * 4096  # 1 MiB
    waits = []
    real_wait = trio.lowlevel.wait_writable

    async def counted(fd):
        waits.append(fd)
        await real_wait(fd)
    monkeypatch.setattr(trio.lowlevel, "wait_writable", counted)
    async with running_server(tmp_path) as server:
        peer, hobj = await opened_queue(server)
        (conn,) = server.connections
        conn._sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        peer.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        api, _ = await _call(peer, fap.MQPUT, calls.MQPutRequest(
            mqi.MQMD(Version=2), mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), body).pack(fap.LITTLE), hobj)
        assert api.CompCode == 0
        get = calls.MQGetRequest(mqi.MQMD(Version=2), mqi.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT), len(body))
        api, data = await mqi_call(peer, fap.MQGET, get.pack(fap.LITTLE), hobj=hobj)
        assert api.CompCode == 0 and calls.MQGetReply.unpack(data, 0, fap.LITTLE)[0].Data == body
        assert waits  # the reply did wait for room
        api, _ = await mqi_call(peer, fap.MQINQ, calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH], 1, 0).pack(fap.LITTLE),
                                hobj=hobj)
        assert api.CompCode == 0
        assert conn.instance.bytes_sent > len(body)  # channel status counted the reply's bytes once
        await peer.aclose()


async def test_a_peer_that_vanishes_mid_reply_ends_only_its_connection(tmp_path):
    """The client resets its socket while a large reply is still being written: that connection ends
    (its GET's message is not lost: a NO_SYNCPOINT get took it, as with trio's stream), another one
    still works."""
    body = b"z" * (512 * 1024)
    async with running_server(tmp_path) as server:
        peer, hobj = await opened_queue(server)
        (conn,) = server.connections
        other, other_hobj = await opened_queue(server)
        api, _ = await _call(peer, fap.MQPUT, calls.MQPutRequest(
            mqi.MQMD(Version=2), mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), body).pack(fap.LITTLE), hobj)
        assert api.CompCode == 0
        for c in server.connections:
            c._sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        peer.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        peer.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        get = calls.MQGetRequest(mqi.MQMD(Version=2), mqi.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT), len(body))
        await peer.send(_request(peer, fap.MQGET, get.pack(fap.LITTLE), hobj))
        await peer.stream.receive_some(1024)  # the reply has started
        await peer.aclose()  # SO_LINGER 0: a reset
        await trio.testing.wait_all_tasks_blocked()
        assert conn not in server.connections
        api, _ = await mqi_call(other, fap.MQINQ, calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH], 1, 0).pack(fap.LITTLE),
                                hobj=other_hobj)
        assert api.CompCode == 0
        await other.aclose()


async def test_a_memory_stream_keeps_the_streams_own_methods(tmp_path):
    """Anything but trio's SocketStream (here a memory stream pair) is served through the stream."""
    from qmlite.server.connection import Connection

    async with running_server(tmp_path) as server:
        client_end, server_end = trio.testing.memory_stream_pair()
        conn = Connection(server, server_end, 999, structlog.get_logger())
        assert conn._sock is None
        await conn.send(fap.status_segment(fap.QM_TERMINATING))
        framer = Framer()
        (seg,) = framer.feed(await client_end.receive_some(1024))
        assert seg.header.SegmentType == fap.STATUS_DATA


class _CountingOs:
    """``os`` as server/connection.py sees it, counting the reads that found nothing (decision SP1)."""

    def __init__(self) -> None:
        self.empty_reads = 0

    def read(self, fd: int, n: int) -> bytes:
        import os
        try:
            return os.read(fd, n)
        except BlockingIOError:
            self.empty_reads += 1
            raise

    def __getattr__(self, name: str):
        import os
        return getattr(os, name)


async def test_a_ping_pong_client_is_waited_for_not_probed_each_call(tmp_path, monkeypatch):
    """A client that sends each request once it has its reply: after two reads tried right after a reply
    found nothing, and two tried after a pass through the scheduler (SP3), the loop waits first, probing
    again one call in 16 -- not a failed read per call -- and every call is answered; a client that then
    pipelines is still answered in full, in order."""
    from qmlite.server import connection

    counting = _CountingOs()
    monkeypatch.setattr(connection, "os", counting)
    inq = calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH], 1, 0).pack(fap.LITTLE)
    calls_made = 160
    async with running_server(tmp_path) as server:
        peer, hobj = await opened_queue(server)
        before = counting.empty_reads
        for _ in range(calls_made):
            api, _ = await _call(peer, fap.MQINQ, inq, hobj)
            assert api.CompCode == 0
        empty = counting.empty_reads - before
        # one read per call found nothing before (the client sends only after it read the reply): now
        # two in a row right after a reply and two late ones (SP3), then one of each every 16 calls
        misses, every = connection._PROBE_MISSES, connection._PROBE_EVERY
        assert empty <= 2 * misses + 2 * (calls_made // every) + 2, empty
        assert empty < calls_made // 4, empty
        # now pipelined, one request per write without waiting for replies: all answered, in order
        count = 100
        for i in range(count):
            md = mqi.MQMD(Version=2, MsgId=b"SP%06d" % i + bytes(16))
            await peer.send(_request(peer, fap.MQPUT, calls.MQPutRequest(
                md, mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), b"m%d" % i).pack(fap.LITTLE), hobj))
        for i in range(count):
            seg = await peer.receive()
            call = fap.decode_body(seg, first=True)
            assert (seg.header.SegmentType, call.ApiHeader.CompCode) == (fap.MQPUT_REPLY, 0)
            assert calls.MQPutReply.unpack(call.Data, 0, fap.LITTLE)[0].MsgDesc.MsgId.startswith(b"SP%06d" % i)
        await peer.aclose()


async def _wait_counted_run(tmp_path, monkeypatch, threshold: float) -> int:
    """A ping-pong client (the loop waits before it reads) puts a message; its next request, an MQINQ, reaches the
    socket while what the put woke runs.  Returns how many waits the server's side of the connection made between
    reading the put and reading the inquire, with ``_WOKEN_PROBE_AFTER`` set to ``threshold``."""
    import os

    from qmlite.server import connection

    events: list[str] = []
    fds: list[int] = []
    real_wait = trio.lowlevel.wait_readable

    async def counted(fd):
        if fd in fds:
            events.append("wait")
        await real_wait(fd)

    real_received = connection.Connection._received

    async def received(self, data):
        events.append("read")
        await real_received(self, data)

    monkeypatch.setattr(trio.lowlevel, "wait_readable", counted)
    monkeypatch.setattr(connection.Connection, "_received", received)
    inq = calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH], 1, 0).pack(fap.LITTLE)
    async with running_server(tmp_path) as server:
        peer, hobj = await opened_queue(server)
        for _ in range(8):  # ping-pong: the reads tried after a reply miss, and the loop waits first from now on
            await _call(peer, fap.MQINQ, inq, hobj)
        (conn,) = server.connections
        fds.append(conn._sock.fileno())
        server.mqi.activity.lot("DEV.QUEUE.1")  # a queue a GET waited on: a put to it wakes (a command's MQPUT)
        next_request = [_request(peer, fap.MQINQ, inq, hobj)]
        real_let = connection.Connection._let_woken_run

        async def woken_ran_while_the_client_sent(self):
            await real_let(self)
            if next_request:  # on the wire before the loop looks: as a command's MQCLOSE, sent while it runs
                data = next_request.pop()
                assert os.write(peer.stream.socket.fileno(), data) == len(data)

        monkeypatch.setattr(connection.Connection, "_let_woken_run", woken_ran_while_the_client_sent)
        monkeypatch.setattr(connection, "_WOKEN_PROBE_AFTER", threshold)
        del events[:]
        md = mqi.MQMD(Version=2, Format="MQSTR")
        put = calls.MQPutRequest(md, mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), b"wakes").pack(fap.LITTLE)
        await peer.send(_request(peer, fap.MQPUT, put, hobj))
        seg = await peer.receive()
        assert seg.header.SegmentType == fap.MQPUT_REPLY
        seg = await peer.receive()
        assert seg.header.SegmentType == fap.MQINQ_REPLY
        assert fap.decode_body(seg, first=True).ApiHeader.CompCode == 0
        assert not next_request
        await peer.aclose()
    put_read = events.index("read")
    inquire_read = events.index("read", put_read + 1)
    return events[put_read:inquire_read].count("wait")


async def test_after_a_long_woken_run_the_next_request_is_read_before_any_wait(tmp_path, monkeypatch):
    """What a call woke ran long (a command server's batch after PCFExecute's MQPUT): the client has had that long to
    send its next request, so it is read at once -- no wait, no trip through epoll -- even on a ping-pong connection
    that otherwise waits before it reads.  A short woken run leaves the connection waiting first, as before."""
    with trio.fail_after(30):
        assert await _wait_counted_run(tmp_path / "long", monkeypatch, 0.0) == 0
        assert await _wait_counted_run(tmp_path / "short", monkeypatch, 3600.0) == 1
