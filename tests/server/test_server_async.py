"""REQUEST_MSGS / ASYNC_MESSAGE / NOTIFICATION, server heartbeats during waits, and resource limits."""

from __future__ import annotations

import trio

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf.framer import split_call

from tests.support.rawfap import RawPeer, connect_mq, handshake, open_q, running_server
from tests.support.wire import PcapWriter, dissect

LE = fap.LITTLE


async def _ready(server, queue="DEV.QUEUE.1", **handshake_kw):
    peer = await RawPeer.connect(server)
    await handshake(peer, **handshake_kw)
    await connect_mq(peer)
    api, _ = await open_q(peer, queue, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE)
    return peer, api.Hobj


async def _put(peer, hobj, data: bytes, conv: int = 1):
    body = calls.MQPutRequest(mqi.MQMD(Format="MQSTR"), mqi.MQPMO(Version=2), data).pack(LE)
    api = fap.ApiHeader(CallLength=36 + 16 + len(body), Hobj=hobj).pack(LE)
    header = fap.SegmentHeader(StructId=fap.TSHM, ConversationId=conv, SegmentType=fap.MQPUT,
                               ControlFlags1=fap.CF1_FIRST | fap.CF1_LAST)
    for piece in split_call(header, api + body, 32748):  # as a client must above MaxTransmissionSize
        await peer.send(piece)
    reply = await peer.receive()
    assert reply.header.SegmentType == fap.MQPUT_REPLY
    assert fap.decode_body(reply).ApiHeader.CompCode == 0


def _request(hobj: int, *, wait: int = 0, max_len: int = 65536, options: int = C.MQGMO_NO_SYNCPOINT,
             request_id: int = 5) -> bytes:
    req = fap.RequestMsgs(Version=1, Hobj=hobj, RequestedBytes=max_len, MaxMsgLength=max_len,
                          GetMsgOptions=options | (C.MQGMO_WAIT if wait else 0), WaitInterval=wait,
                          SelectionIndex=0, MQMDVersion=2, CodedCharSetId=819, Encoding=546, MsgSeqNumber=1,
                          Offset=0, MatchOptions=0)
    return fap.encode_segment(fap.REQUEST_MSGS, req.pack(LE), conversation_id=1, request_id=request_id)


async def _async_message(peer) -> tuple[list[fap.Segment], bytes]:
    """Every ASYNC_MESSAGE segment of one message and the data they carry."""
    segs, data = [], b""
    while True:
        seg = await peer.receive()
        assert seg.header.SegmentType == fap.ASYNC_MESSAGE and seg.header.RequestId == 1
        body = fap.decode_body(seg)
        segs.append(seg)
        rest = body.Data
        if body.Header.is_first:
            md, end = mqi.MQMD.unpack(rest, 0, LE)
            assert md.Version == 2
            rest = rest[end:]
        data += rest[:body.Header.SegmentLength]
        if seg.header.ControlFlags1 & fap.CF1_LAST:
            return segs, data


async def test_request_msgs_delivers_an_available_message(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _ready(server)
        await _put(peer, hobj, b"async hello")
        await peer.send(_request(hobj))
        segs, data = await _async_message(peer)
        first = fap.decode_body(segs[0]).Header
        assert data == b"async hello" and len(segs) == 1
        assert (first.Hobj, first.Reason, first.TotalMsgLength, first.ActualMsgLength) == (hobj, 0, 11, 11)
        assert first.ResolvedQName == "DEV.QUEUE.1"
        assert server.registry.messages.depth("DEV.QUEUE.1") == 0
        # tshark reads the server's ASYNC_MESSAGE as a full message
        w = PcapWriter()
        w.send(segs[0].encode(), from_client=False)
        d = dissect(w, ["mq.md.format"])
        assert d.malformed == [] and d.expert == [] and d.values("mq.md.format") == ["MQSTR"]


async def test_request_msgs_with_nothing_there_gets_check_msg(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _ready(server)
        await peer.send(_request(hobj, request_id=7))
        seg = await peer.receive()
        note = fap.decode_body(seg)
        assert seg.header.SegmentType == fap.NOTIFICATION and seg.header.RequestId == 7
        assert (note.Hobj, note.Code) == (hobj, fap.NOTIFY_CHECK_MSG)


async def test_waiting_request_msgs_is_served_by_a_later_put(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _ready(server)
        other, ohobj = await _ready(server)
        await peer.send(_request(hobj, wait=5_000))
        await _put(other, ohobj, b"for the waiter")
        _, data = await _async_message(peer)
        assert data == b"for the waiter"


async def test_large_message_is_split_over_async_segments(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _ready(server)
        payload = bytes(range(256)) * 400  # 102,400 bytes: four segments at 32,748
        await _put(peer, hobj, payload)
        await peer.send(_request(hobj, max_len=len(payload)))
        segs, data = await _async_message(peer)
        assert data == payload and len(segs) == 4
        assert [fap.decode_body(s).Header.SegmentIndex for s in segs] == [0, 1, 2, 3]
        assert all(s.header.SegmentLength <= 32748 for s in segs)


async def test_too_long_for_max_msg_length_reports_2080_and_keeps_the_message(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _ready(server)
        await _put(peer, hobj, b"x" * 100)
        await peer.send(_request(hobj, max_len=10))
        segs, data = await _async_message(peer)
        head = fap.decode_body(segs[0]).Header
        assert (head.Reason, head.TotalMsgLength, head.ActualMsgLength) == (C.MQRC_TRUNCATED_MSG_FAILED, 100, 10)
        assert server.registry.messages.depth("DEV.QUEUE.1") == 1


async def test_server_heartbeats_while_a_get_waits(tmp_path, autojump_clock):
    async with running_server(tmp_path) as server:
        peer, hobj = await _ready(server, queue="DEV.QUEUE.2")
        gmo = mqi.MQGMO(Version=2, Options=C.MQGMO_WAIT, WaitInterval=700_000)
        body = calls.MQGetRequest(mqi.MQMD(), gmo, 10).pack(LE)
        api = fap.ApiHeader(CallLength=36 + 16 + len(body), Hobj=hobj).pack(LE)
        start = trio.current_time()
        await peer.send(fap.encode_segment(fap.MQGET, api + body, conversation_id=1))
        beats = []
        while True:
            seg = await peer.receive()
            if seg.header.SegmentType != fap.HEARTBEAT:
                break
            assert seg.header.ControlFlags1 & fap.CF1_CONFIRM_REQUEST and seg.header.StructId == fap.TSHC
            beats.append(round(trio.current_time() - start))
            await peer.send(fap.heartbeat(request=False))
        assert beats == [300, 600]  # the channel's HBINT
        assert fap.decode_body(seg, first=True).ApiHeader.Reason == C.MQRC_NO_MSG_AVAILABLE


async def test_connection_limit(tmp_path):
    async with running_server(tmp_path, max_connections=1) as server:
        first = await RawPeer.connect(server)
        await handshake(first)
        second = await RawPeer.connect(server)
        seg = await second.receive()
        assert fap.decode_body(seg).ReturnCode == fap.MAX_CONNS_LIMIT_REACHED
        assert await second.closed()
        assert (await connect_mq(first)).Reason == 0


async def test_handle_limit(tmp_path):
    async with running_server(tmp_path, max_handles=2) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        for _ in range(2):
            api, _ = await open_q(peer, "DEV.QUEUE.1", C.MQOO_OUTPUT)
            assert api.CompCode == 0
        api, _ = await open_q(peer, "DEV.QUEUE.1", C.MQOO_OUTPUT)
        assert (api.CompCode, api.Reason) == (C.MQCC_FAILED, C.MQRC_HANDLE_NOT_AVAILABLE)
