"""qmlite.client against a scripted server on an in-memory stream: negotiation, STATUS, heartbeats,
segmentation, timeouts and error paths, using real server bytes where we have them
(tests/fixtures/real-server)."""

from __future__ import annotations

import socket
from collections import deque

import pytest
import trio
import trio.testing

from qmlite.client import protocol as proto
from qmlite.client.aio import AsyncQueueManager
from qmlite.client.errors import ConnectionBroken, MQIError
from qmlite.pcf import calls
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.encoding import LITTLE
from qmlite.pcf.framer import Framer, Reassembler
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO
from tests.support.fixtures import FIXTURES

REAL = FIXTURES / "real-server"
ID_ERROR_TSH = REAL / "id-reply-error-tsh.bin"
ID_ACCEPTED_TSHM = REAL / "id-reply-accepted-tshm.bin"
STATUS_NO_CHANNEL = REAL / "nmap-status-no-channel.bin"
MQCONN_REPLY = REAL / "emulator-assembled" / "mqconn-reply.bin"
MQINQ_REPLY = REAL / "emulator-assembled" / "mqinq-reply.bin"



class Peer:
    """The server end of the stream: reads the client's segments, sends scripted bytes."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.framer = Framer(1 << 20)
        self.reassembler = Reassembler()
        self.pending: deque[fap.Segment] = deque()
        self.seen: list[fap.Segment] = []

    async def recv(self) -> fap.Segment:
        while not self.pending:
            data = await self.stream.receive_some(65536)
            if not data:
                raise EOFError("client closed the stream")
            self.pending.extend(self.framer.feed(data))
        seg = self.pending.popleft()
        self.seen.append(seg)
        return seg

    async def recv_call(self) -> fap.Segment:
        while True:
            whole = self.reassembler.add(await self.recv())
            if whole is not None:
                return whole

    async def send(self, data: bytes) -> None:
        await self.stream.send_all(data)


def server_id(**changes) -> fap.InitialData:
    values = dict(FapLevel=13, CapFlags1=0x26, MaxTransmissionSize=32748, MaxMessageSize=4194304,
                  ChannelName="DEV.APP.SVRCONN", CapFlags2=0x01, CCSID=819, QMgrName="QM1",
                  HeartbeatInterval=300, SharingConversations=10, ProductId="MQMM09010200",
                  QMgrId="QM1_2024-01-01_00.00.00", HdrCompList=b"\x00\xff", MsgCompList=b"\x00" + b"\xff" * 15)
    values.update(changes)
    return fap.InitialData(**values)


def id_reply(ident: fap.InitialData, *, struct_id: str = fap.TSH, error: bool = False) -> bytes:
    return fap.encode_segment(fap.INITIAL_DATA, ident.pack(LITTLE), struct_id=struct_id,
                              conversation_id=1 if struct_id == fap.TSHM else 0,
                              control_flags1=fap.CF1_ERROR if error else 0)


def mqconn_reply(request: fap.Segment, comp: int = 0, reason: int = 0) -> bytes:
    call = fap.decode_body(request, first=True)
    conn = call.Call
    conn.Fcno = fap.Fcno(Version=2, CapabilityFlags=2, ConnTag=b"AMQCQM1         12345678" + bytes(104))
    body = conn.pack(LITTLE) if comp == 0 else b""
    return fap.api_reply(request.header, body, comp_code=comp, reason=reason)


async def serve_connect(peer: Peer, multiplexed: bool = True, caut: bool = False) -> list[fap.Segment]:
    """A direct-accept ID exchange, UID, optional CAUT/STATUS, MQCONN."""
    first = await peer.recv()
    assert first.header.SegmentType == fap.INITIAL_DATA
    await peer.send(id_reply(server_id(SharingConversations=10 if multiplexed else 0)))
    uid = await peer.recv()
    assert uid.header.SegmentType == fap.USERID_DATA
    out = [first, uid]
    if caut:
        seg = await peer.recv()
        assert seg.header.SegmentType == fap.CONAUTH_INFO
        out.append(seg)
        await peer.send(fap.encode_segment(fap.STATUS_DATA, fap.StatusData(ReturnCode=0).pack(LITTLE),
                                           struct_id=seg.header.StructId,
                                           conversation_id=seg.header.ConversationId))
    conn = await peer.recv_call()
    assert conn.header.SegmentType == fap.MQCONN
    out.append(conn)
    await peer.send(mqconn_reply(conn))
    return out


def opts(**kw) -> proto.ConnectOptions:
    kw.setdefault("channel", "DEV.APP.SVRCONN")
    kw.setdefault("qmgr", "QM1")
    return proto.ConnectOptions(**kw)


async def connected(nursery, *, multiplexed=True, **kw) -> tuple[AsyncQueueManager, Peer]:
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)
    nursery.start_soon(serve_connect, peer, multiplexed)
    qm = await AsyncQueueManager.connect_stream(client_end, opts(**kw))
    return qm, peer


# ------------------------------------------------------------------------------------------------
# negotiation
# ------------------------------------------------------------------------------------------------

async def test_error_then_accept_with_real_912_replies_switches_to_tshm():
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)
    seen: dict = {}

    async def server():
        first = await peer.recv()
        seen["first"] = first
        await peer.send(ID_ERROR_TSH.read_bytes())
        seen["repeat"] = await peer.recv()
        await peer.send(ID_ACCEPTED_TSHM.read_bytes())
        seen["uid"] = await peer.recv()
        conn = await peer.recv_call()
        seen["conn"] = conn
        await peer.send(MQCONN_REPLY.read_bytes())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        qm = await AsyncQueueManager.connect_stream(
            client_end, opts(channel="DEV.ADMIN.SVRCONN", heartbeat_interval=1, max_message_length=104857600))

    first, repeat = seen["first"], seen["repeat"]
    assert first.header.StructId == fap.TSH
    assert first.header.ControlFlags1 == fap.CF1_CONFIRM_REQUEST | fap.CF1_FIRST | fap.CF1_LAST
    first_id = fap.decode_body(first)
    assert (first_id.FapLevel, first_id.ChannelName, first_id.QMgrName) == (13, "DEV.ADMIN.SVRCONN", "QM1")
    assert (first_id.HeartbeatInterval, first_id.MaxMessageSize, first_id.SharingConversations) == (1, 104857600, 10)
    # the repeat takes the server's values and travels in TSHM conversation 1, request 0 (docs/reference/fap.md 6.3)
    assert (repeat.header.StructId, repeat.header.ConversationId, repeat.header.RequestId) == (fap.TSHM, 1, 0)
    repeat_id = fap.decode_body(repeat)
    assert (repeat_id.HeartbeatInterval, repeat_id.MaxMessageSize, repeat_id.MaxTransmissionSize) == (300, 4194304,
                                                                                                      32748)
    assert repeat_id.CapFlags3 & 0x08 == 0
    assert seen["uid"].header.StructId == fap.TSHM
    assert seen["conn"].header.StructId == fap.TSHM and seen["conn"].header.ConversationId == 1
    conn = fap.decode_body(seen["conn"], first=True).Call
    assert (conn.QMgrName, conn.ApplName, conn.ApplType, conn.Options) == ("QM1", "qmlite", C.MQAT_UNIX, 3)
    assert conn.Fcno.Version == 2 and conn.ReconnectionId == bytes(24)
    ag = qm.agreement
    assert ag.multiplexed and ag.id_rounds == 2 and ag.heartbeat_interval == 300
    assert ag.qmgr_name == "QM1" and ag.product_id == "MQMM09010200"
    assert qm.connection_id == b"AMQCQM1         " + bytes.fromhex("6445ea5d02b49424")
    assert qm.connected and qm.multiplexed


@pytest.mark.parametrize("multiplexed", [True, False])
async def test_direct_accept(multiplexed):
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery, multiplexed=multiplexed)
    first, uid, conn = peer.seen[0], peer.seen[1], peer.seen[2]
    assert first.header.StructId == fap.TSH
    want = fap.TSHM if multiplexed else fap.TSH
    assert uid.header.StructId == want and conn.header.StructId == want
    assert qm.multiplexed is multiplexed
    assert qm.agreement.id_rounds == 1
    assert qm.connection_id == b"AMQCQM1         12345678"
    body = fap.decode_body(uid)
    assert body.LongUserId is not None  # the 132-byte form
    # neither UID nor MQCONN waited for anything in between (docs/reference/fap.md 7): 3 segments, in order
    assert [s.header.SegmentType for s in peer.seen] == [fap.INITIAL_DATA, fap.USERID_DATA, fap.MQCONN]


async def test_error_reply_lowering_fap_and_sharing_zero_stays_tsh():
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)

    async def server():
        await peer.recv()
        await peer.send(id_reply(server_id(FapLevel=12, SharingConversations=0,
                                           IniErrFlags1=fap.IEF1_FAP_LEVEL), error=True))
        repeat = await peer.recv()
        assert repeat.header.StructId == fap.TSH
        assert fap.decode_body(repeat).FapLevel == 12
        assert fap.decode_body(repeat).SharingConversations == 0
        await peer.send(id_reply(server_id(FapLevel=12, SharingConversations=0)))
        await peer.recv()
        conn = await peer.recv_call()
        assert conn.header.StructId == fap.TSH
        await peer.send(mqconn_reply(conn))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        qm = await AsyncQueueManager.connect_stream(client_end, opts())
    assert qm.agreement.fap_level == 12 and not qm.multiplexed and qm.agreement.id_rounds == 2


async def test_negotiation_that_never_converges_gives_2539():
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)
    rounds = 0

    async def server():
        nonlocal rounds
        while True:
            try:
                await peer.recv()
            except EOFError:
                return
            rounds += 1
            await peer.send(id_reply(server_id(IniErrFlags1=fap.IEF1_HEARTBEAT_INTERVAL), error=True))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        with pytest.raises(ConnectionBroken) as info:
            await AsyncQueueManager.connect_stream(client_end, opts())
        nursery.cancel_scope.cancel()
    assert info.value.reason == C.MQRC_CHANNEL_CONFIG_ERROR
    assert rounds == proto.MAX_ID_ROUNDS


async def test_status_no_channel_at_id_time_gives_2540():
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)

    async def server():
        await peer.recv()
        await peer.send(STATUS_NO_CHANNEL.read_bytes())  # real MQ 7.0.1 bytes, big-endian

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        with pytest.raises(MQIError) as info:
            await AsyncQueueManager.connect_stream(client_end, opts(channel="NO.SUCH.CHANNEL"))
    assert isinstance(info.value, ConnectionBroken)
    assert (info.value.comp, info.value.reason, info.value.status_code) == (2, 2540, 1)
    assert info.value.reason_name == "MQRC_UNKNOWN_CHANNEL_NAME"


@pytest.mark.parametrize("code,connected,reason", [
    (1, False, 2540), (2, False, 2539), (13, True, 2539), (3, False, 2059), (3, True, 2009),
    (5, True, 2009), (22, False, 2537), (24, False, 2397), (32, False, 2543), (37, False, 2025),
    (36, False, 2594), (99, True, 2009),
])
def test_status_code_mapping(code, connected, reason):
    assert proto.status_reason(code, connected) == reason


async def test_caut_sends_password_in_clear_then_mqconn_2035():
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)
    got = {}

    async def server():
        await peer.recv()
        await peer.send(id_reply(server_id(FapLevel=12)))
        await peer.recv()
        caut = await peer.recv()
        got["caut"] = fap.decode_body(caut)
        await peer.send(fap.encode_segment(fap.STATUS_DATA, fap.StatusData(ReturnCode=0).pack(LITTLE),
                                           conversation_id=1, control_flags1=fap.CF1_FIRST | fap.CF1_LAST))
        conn = await peer.recv_call()
        await peer.send(mqconn_reply(conn, comp=2, reason=C.MQRC_NOT_AUTHORIZED))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        with pytest.raises(MQIError) as info:
            await AsyncQueueManager.connect_stream(client_end, opts(fap_level=12, user="admin", password="wrong"))
    assert (info.value.comp, info.value.reason) == (2, 2035), info.value.detail
    assert not isinstance(info.value, ConnectionBroken)
    assert got["caut"].UserId == "admin" and got["caut"].Password == b"wrong"
    assert got["caut"].AuthenticationType == 1


async def test_caut_answered_with_status_error_breaks():
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)

    async def server():
        await peer.recv()
        await peer.send(id_reply(server_id()))
        await peer.recv()
        await peer.recv()
        await peer.send(fap.status_segment(fap.PASSWORD_PROTECTION, struct_id=fap.TSHM, conversation_id=1))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        with pytest.raises(ConnectionBroken) as info:
            await AsyncQueueManager.connect_stream(client_end, opts(user="admin", password="x"))
    assert info.value.reason == C.MQRC_PASSWORD_PROTECTION_ERROR


async def test_server_closing_during_negotiation_is_2059():
    client_end, server_end = trio.testing.memory_stream_pair()

    async def server():
        await server_end.receive_some(65536)
        await server_end.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        with pytest.raises(ConnectionBroken) as info:
            await AsyncQueueManager.connect_stream(client_end, opts())
    assert info.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE


@pytest.mark.parametrize("kw,exc", [
    (dict(channel="A" * 21), ValueError), (dict(channel=""), ValueError), (dict(qmgr="Q" * 49), ValueError),
    (dict(appl_name="x" * 29), ValueError), (dict(fap_level=7), ValueError), (dict(fap_level=16), ValueError),
    (dict(ccsid=500), ValueError), (dict(ccsid=4242), ValueError), (dict(channel=5), TypeError),
    (dict(max_message_length=0), ValueError), (dict(password=b"pw"), TypeError),
])
def test_bad_connect_options_are_refused_before_sending(kw, exc):
    with pytest.raises(exc):
        opts(**kw).validate()


async def test_connect_to_a_closed_port_is_2538():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(MQIError) as info:
        await AsyncQueueManager.connect("127.0.0.1", port, "DEV.APP.SVRCONN")
    assert info.value.reason == C.MQRC_HOST_NOT_AVAILABLE


# ------------------------------------------------------------------------------------------------
# calls, heartbeats, segmentation
# ------------------------------------------------------------------------------------------------

async def test_heartbeat_request_is_answered_while_waiting_for_a_reply():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            req = await peer.recv_call()
            assert req.header.SegmentType == fap.MQINQ
            await peer.send(fap.heartbeat(request=True, struct_id=fap.TSHC))
            answer = await peer.recv()
            assert answer.header.SegmentType == fap.HEARTBEAT
            assert answer.header.StructId == fap.TSHC
            assert answer.header.ControlFlags1 & fap.CF1_CONFIRM_REQUEST == 0
            await peer.send(MQINQ_REPLY.read_bytes())

        nursery.start_soon(server)
        ints, chars = await qm.inq(2, [31, 32, 2, 2015, 2032, 2006], 3, 144)
    assert ints == [912, 3, 819]
    assert chars[:48].rstrip() == "QM1" and chars[96:].rstrip() == "DEV.DEAD.LETTER.QUEUE"
    assert qm.heartbeats_answered == 1


async def test_non_multiplexed_heartbeat_uses_tsh():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery, multiplexed=False)

        async def server():
            req = await peer.recv_call()
            await peer.send(fap.heartbeat(request=True, struct_id=fap.TSH))
            answer = await peer.recv()
            assert answer.header.StructId == fap.TSH and answer.header.SegmentType == fap.HEARTBEAT
            await peer.send(fap.api_reply(req.header))

        nursery.start_soon(server)
        await qm.cmit()
    assert qm.heartbeats_answered == 1


async def test_keepalive_heartbeats_an_idle_connection(autojump_clock):
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)
    requests = []

    async def server():
        await peer.recv()
        await peer.send(id_reply(server_id(HeartbeatInterval=5)))
        await peer.recv()
        conn = await peer.recv_call()
        await peer.send(mqconn_reply(conn))
        while True:
            seg = await peer.recv()
            if seg.header.SegmentType == fap.HEARTBEAT:
                requests.append((trio.current_time(), seg.header))
                await peer.send(fap.heartbeat(request=False, struct_id=fap.TSHC))
            else:
                assert seg.header.SegmentType == fap.MQDISC
                await peer.send(fap.api_reply(seg.header))
                return

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        qm = await AsyncQueueManager.connect_stream(client_end, opts(heartbeat_interval=5), nursery=nursery)
        start = trio.current_time()
        await trio.sleep(12)
        await qm.disc()
    assert len(requests) == 2
    assert requests[0][0] - start == pytest.approx(5, abs=0.01)
    assert all(h.StructId == fap.TSHC and h.ControlFlags1 & fap.CF1_CONFIRM_REQUEST for _, h in requests)
    assert qm.heartbeats_sent == 2


async def test_keepalive_without_answer_breaks_the_connection(autojump_clock):
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)

    async def server():
        await peer.recv()
        await peer.send(id_reply(server_id(HeartbeatInterval=5)))
        await peer.recv()
        conn = await peer.recv_call()
        await peer.send(mqconn_reply(conn))
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        qm = await AsyncQueueManager.connect_stream(client_end, opts(heartbeat_interval=5), nursery=nursery)
        await trio.sleep(20)
        assert not qm.connected
        with pytest.raises(ConnectionBroken):
            await qm.cmit()
        nursery.cancel_scope.cancel()


async def serve_answering_heartbeats(peer: Peer, seconds: float) -> list[float]:
    """Answer heartbeat requests for ``seconds``; returns when they arrived."""
    times = []
    with trio.move_on_after(seconds):
        while True:
            seg = await peer.recv()
            assert seg.header.SegmentType == fap.HEARTBEAT
            times.append(trio.current_time())
            await peer.send(fap.heartbeat(request=False, struct_id=seg.header.StructId))
    return times


async def test_call_after_a_long_idle_gap_without_keepalive(autojump_clock):
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)

    async def server():
        await peer.recv()
        await peer.send(id_reply(server_id(HeartbeatInterval=5)))
        await peer.recv()
        conn = await peer.recv_call()
        await peer.send(mqconn_reply(conn))
        req = await peer.recv_call()
        await peer.send(fap.api_reply(req.header))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        qm = await AsyncQueueManager.connect_stream(client_end, opts(heartbeat_interval=5))
        await trio.sleep(1000)  # idle far longer than the heartbeat interval, nobody heartbeating
        await qm.cmit()
    assert qm.connected and qm.heartbeats_sent == 0


async def test_long_unlimited_get_stays_alive_on_heartbeats(autojump_clock):
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)
    probes = []

    async def server():
        await peer.recv()
        await peer.send(id_reply(server_id(HeartbeatInterval=5)))
        await peer.recv()
        conn = await peer.recv_call()
        await peer.send(mqconn_reply(conn))
        req = await peer.recv_call()
        probes.extend(await serve_answering_heartbeats(peer, 102))
        greq, _ = calls.MQGetRequest.unpack(req.body, 16, LITTLE)
        await peer.send(fap.api_reply(req.header, calls.MQGetReply(MQMD(), greq.GetMsgOpts, b"late").pack(LITTLE)))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        qm = await AsyncQueueManager.connect_stream(client_end, opts(heartbeat_interval=5), reply_timeout=10)
        start = trio.current_time()
        _, _, data = await qm.get(5, MQMD(), MQGMO(Options=C.MQGMO_WAIT, WaitInterval=-1), 100)
    assert data == b"late"
    # one probe per 5 quiet seconds for the 102 s the server held the GET
    assert len(probes) == 20 and probes[0] - start == pytest.approx(5, abs=0.01)
    assert qm.heartbeats_sent == 20 and qm.connected


async def test_silent_server_during_unlimited_wait_breaks_after_an_unanswered_probe(autojump_clock):
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)

    async def server():
        await peer.recv()
        await peer.send(id_reply(server_id(HeartbeatInterval=5)))
        await peer.recv()
        conn = await peer.recv_call()
        await peer.send(mqconn_reply(conn))
        await peer.recv_call()
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        qm = await AsyncQueueManager.connect_stream(client_end, opts(heartbeat_interval=5))
        start = trio.current_time()
        with pytest.raises(ConnectionBroken) as info:
            await qm.get(5, MQMD(), MQGMO(Options=C.MQGMO_WAIT, WaitInterval=-1), 100)
        # quiet for 5 s -> probe; no answer within min(60, 5) s -> broken
        assert trio.current_time() - start == pytest.approx(10, abs=0.01)
        nursery.cancel_scope.cancel()
    assert "heartbeat" in info.value.detail and qm.heartbeats_sent == 1


async def test_large_put_is_split_and_large_get_reply_is_reassembled():
    payload = bytes(range(256)) * 400  # 102400 bytes: four segments at 32748
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            put = await peer.recv_call()
            body = fap.decode_body(put, first=True)
            req, _ = calls.MQPutRequest.unpack(body.Data, 0, LITTLE)
            assert req.Data == payload
            md = req.MsgDesc
            md.MsgId = b"AMQ QM1         00000001"
            await peer.send(fap.api_reply(put.header, calls.MQPutReply(md, req.PutMsgOpts, len(payload)).pack(LITTLE)))
            get = await peer.recv_call()
            api, _ = fap.ApiHeader.unpack(get.body, 0, LITTLE)
            greq, _ = calls.MQGetRequest.unpack(get.body, 16, LITTLE)
            assert greq.BufferLength == 200000
            assert api.CallLength == get.header.SegmentLength + 200000
            reply = calls.MQGetReply(md, greq.GetMsgOpts, payload).pack(LITTLE)
            for seg in fap.api_reply_segments(get.header, reply, 1000):
                await peer.send(seg)

        nursery.start_soon(server)
        md, _ = await qm.put(5, MQMD(), MQPMO(), payload)
        assert md.MsgId == b"AMQ QM1         00000001"
        gmd, _, data = await qm.get(5, MQMD(), MQGMO(), 200000)
    put_segments = [s for s in peer.seen if s.header.SegmentType == fap.MQPUT]
    assert len(put_segments) == 4
    assert all(s.header.SegmentLength <= 32748 for s in put_segments)
    assert put_segments[0].header.ControlFlags1 & fap.CF1_FIRST and put_segments[-1].header.ControlFlags1 & fap.CF1_LAST
    assert data == payload and gmd.MsgId == md.MsgId


async def test_truncated_get_raises_with_md_gmo_and_full_length():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            get = await peer.recv_call()
            greq, _ = calls.MQGetRequest.unpack(get.body, 16, LITTLE)
            md = MQMD(MsgId=b"M" * 24, CorrelId=b"C" * 24, Format="MQADMIN")
            body = calls.MQGetReply(md, greq.GetMsgOpts, b"", 10000).pack(LITTLE)
            await peer.send(fap.api_reply(get.header, body, comp_code=1, reason=C.MQRC_TRUNCATED_MSG_FAILED))

        nursery.start_soon(server)
        with pytest.raises(MQIError) as info:
            await qm.get(5, MQMD(), MQGMO(), 100)
    exc = info.value
    assert (exc.comp, exc.reason, exc.data_length) == (1, 2080, 10000)
    assert exc.md.MsgId == b"M" * 24 and exc.md.Format == "MQADMIN"
    assert exc.gmo is not None and exc.data == b""
    assert qm.connected  # a failed call leaves the connection usable


async def test_failed_call_with_header_only_reply():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            req = await peer.recv_call()
            await peer.send(fap.api_reply(req.header, comp_code=2, reason=C.MQRC_UNKNOWN_OBJECT_NAME))

        nursery.start_soon(server)
        with pytest.raises(MQIError) as info:
            await qm.open(MQOD(ObjectName="NOPE"), C.MQOO_OUTPUT)
    assert (info.value.comp, info.value.reason) == (2, 2085)
    assert qm.connected


async def test_open_request_shape_and_returned_dynamic_name():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            req = await peer.recv_call()
            api, _ = fap.ApiHeader.unpack(req.body, 0, LITTLE)
            body, _ = calls.MQOpenRequest.unpack(req.body, 16, LITTLE)
            assert api.Hobj == 0
            assert body.Options == C.MQOO_INPUT_EXCLUSIVE
            assert body.Fopa is not None and body.Fopa.Version == 1
            od = body.ObjDesc
            od.ObjectName = "PYMQPCF.0123456789ABCDEF"
            reply = calls.MQOpenReply(od, body.Options, body.Fopa).pack(LITTLE)
            await peer.send(fap.api_reply(req.header, reply, hobj=7))

        nursery.start_soon(server)
        hobj, od = await qm.open(MQOD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName="PYMQPCF.*"),
                                 C.MQOO_INPUT_EXCLUSIVE)
    assert hobj == 7 and od.ObjectName == "PYMQPCF.0123456789ABCDEF"


async def test_reply_timeout_breaks_the_connection(autojump_clock):
    client_end, server_end = trio.testing.memory_stream_pair()
    peer = Peer(server_end)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve_connect, peer, True)
        qm = await AsyncQueueManager.connect_stream(client_end, opts(), reply_timeout=10)
        start = trio.current_time()
        with pytest.raises(ConnectionBroken) as info:
            await qm.get(5, MQMD(), MQGMO(Options=C.MQGMO_WAIT, WaitInterval=3000), 100)
        # the server holds the GET for WaitInterval, so the client allows that plus reply_timeout
        assert trio.current_time() - start == pytest.approx(13, abs=0.01)
    assert info.value.reason == C.MQRC_CONNECTION_BROKEN
    with pytest.raises(ConnectionBroken):
        await qm.cmit()


async def test_server_dropping_the_socket_mid_call_is_2009_and_sticky():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            await peer.recv_call()
            await peer.stream.aclose()

        nursery.start_soon(server)
        with pytest.raises(ConnectionBroken) as info:
            await qm.cmit()
    assert info.value.reason == 2009
    with pytest.raises(ConnectionBroken):
        await qm.back()
    await qm.disc()  # quiet on a broken connection


async def test_status_error_after_connect_is_2009():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            await peer.recv_call()
            await peer.send(fap.status_segment(fap.QM_TERMINATING, struct_id=fap.TSHM, conversation_id=1))

        nursery.start_soon(server)
        with pytest.raises(ConnectionBroken) as info:
            await qm.cmit()
    assert (info.value.reason, info.value.status_code) == (2009, fap.QM_TERMINATING)


async def test_cancelled_call_breaks_the_connection():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)
        sent = trio.Event()

        async def server():
            await peer.recv_call()
            sent.set()

        nursery.start_soon(server)
        with trio.CancelScope() as scope:
            nursery.start_soon(_cancel_when, sent, scope)
            await qm.cmit()
    assert scope.cancelled_caught
    assert not qm.connected
    with pytest.raises(ConnectionBroken):
        await qm.cmit()


async def _cancel_when(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


async def test_unencodable_input_leaves_the_connection_usable():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)
        with pytest.raises(ValueError):
            await qm.put(5, MQMD(MsgId=b"short"), MQPMO(), b"x")
        with pytest.raises(TypeError):
            await qm.put(5, MQMD(), MQPMO(), "text")
        with pytest.raises(ValueError):
            await qm.get(5, MQMD(), MQGMO(), -1)

        async def server():
            req = await peer.recv_call()
            assert req.header.SegmentType == fap.MQCMIT
            await peer.send(fap.api_reply(req.header))

        nursery.start_soon(server)
        await qm.cmit()
    assert qm.connected


async def test_wrong_reply_type_breaks_the_connection():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            req = await peer.recv_call()
            await peer.send(fap.api_reply(req.header, segment_type=fap.MQBACK_REPLY))

        nursery.start_soon(server)
        with pytest.raises(ConnectionBroken):
            await qm.cmit()


async def test_disc_sends_mqdisc_then_end_conv():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery)

        async def server():
            req = await peer.recv_call()
            assert req.header.SegmentType == fap.MQDISC
            await peer.send(fap.api_reply(req.header))
            end = await peer.recv()
            assert end.header.SegmentType == fap.SOCKET_ACTION and end.header.StructId == fap.TSHC
            assert fap.decode_body(end).Type == fap.SA_END_CONV

        nursery.start_soon(server)
        async with qm:
            pass
    assert not qm.connected
    with pytest.raises(MQIError) as info:
        await qm.cmit()
    assert info.value.reason == C.MQRC_HCONN_ERROR


async def test_disc_non_multiplexed_sends_status_close_channel():
    async with trio.open_nursery() as nursery:
        qm, peer = await connected(nursery, multiplexed=False)

        async def server():
            req = await peer.recv_call()
            await peer.send(fap.api_reply(req.header))
            end = await peer.recv()
            assert (end.header.SegmentType, end.header.StructId) == (fap.STATUS_DATA, fap.TSH)
            assert end.header.ControlFlags1 == fap.CF1_CLOSE_CHANNEL and end.body == b""

        nursery.start_soon(server)
        await qm.disc()


def test_mqi_split_keeps_api_header_once():
    link = proto.Link(multiplexed=True, max_transmission_size=100)
    segs = link.mqi(fap.MQPUT, 3, bytes(250))
    framer = Framer(1000)
    parsed = [framer.feed(s)[0] for s in segs]
    # 36-byte TSHM + 64 bytes of body per segment: 266 bytes of API header + data -> 5 segments
    assert [p.header.ControlFlags1 for p in parsed] == [0x10, 0, 0, 0, 0x20]
    assert all(len(s) <= 100 for s in segs)
    whole = Reassembler().add(parsed[0])
    assert whole is None
    r = Reassembler()
    out = [r.add(p) for p in parsed]
    api, _ = fap.ApiHeader.unpack(out[-1].body, 0, LITTLE)
    assert api.Hobj == 3 and len(out[-1].body) == 16 + 250
