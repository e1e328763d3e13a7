"""MQI semantics over a real socket: FAP levels, byte order, GET ordering, browse, expiry, and the
command server's answers to requests with a bad MQMD."""

from __future__ import annotations

import pytest

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from tests.support.rawfap import RawPeer, connect_mq, handshake, mqi_call, open_q, running_server

LE = fap.LITTLE


@pytest.mark.parametrize("level", [8, 9, 10, 11, 12, 13])
async def test_every_fap_level_real_clients_propose_connects(tmp_path, level):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        theirs = await handshake(peer, "DEV.APP.SVRCONN", user="app", password=None, fap_level=level)
        assert theirs.FapLevel == level
        assert peer.multiplexed == (level >= 10)  # conversations need FAP 10 (TSHM) in the first place
        assert (await connect_mq(peer)).Reason == 0


async def test_a_big_endian_client_is_answered_in_every_call(tmp_path):
    """Each segment is read in its own byte order; the server answers in its own (little-endian)."""
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        BE = fap.BIG
        conn = fap.MQConnBody(QMgrName="QM1", ApplName="be-client", ApplType=C.MQAT_JAVA, Options=3,
                              Fcno=fap.Fcno(Version=2))

        async def call(stype, body, hobj=0):
            api = fap.ApiHeader(CallLength=36 + 16 + len(body), Hobj=hobj).pack(BE)
            await peer.send(fap.encode_segment(stype, api + body, conversation_id=1, byte_order=1))
            seg = await peer.receive()
            assert seg.header.ByteOrder == 2 and seg.header.SegmentType == stype | fap.REPLY
            return fap.decode_body(seg)

        assert (await call(fap.MQCONN, conn.pack(BE))).ApiHeader.Reason == 0
        reply = await call(fap.MQOPEN, calls.MQOpenRequest(mqi.MQOD(ObjectName="DEV.QUEUE.1"),
                                                           C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED).pack(BE))
        hobj = reply.ApiHeader.Hobj
        put = calls.MQPutRequest(mqi.MQMD(Format="MQSTR", Encoding=0x111), mqi.MQPMO(Version=2), b"big end")
        assert (await call(fap.MQPUT, put.pack(BE), hobj)).ApiHeader.CompCode == 0
        got = await call(fap.MQGET, calls.MQGetRequest(mqi.MQMD(), mqi.MQGMO(), 100).pack(BE), hobj)
        assert calls.MQGetReply.unpack(got.Data, 0, LE)[0].Data == b"big end"


async def _session(server, queue="DEV.QUEUE.1"):
    peer = await RawPeer.connect(server)
    await handshake(peer)
    await connect_mq(peer)
    api, _ = await open_q(peer, queue, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE)
    return peer, api.Hobj


async def _put(peer, hobj, data, **md_fields):
    put = calls.MQPutRequest(mqi.MQMD(Format="MQSTR", **md_fields), mqi.MQPMO(Version=2), data)
    api, data = await mqi_call(peer, fap.MQPUT, put.pack(LE), hobj=hobj)
    assert api.CompCode == 0
    return calls.MQPutReply.unpack(data, 0, LE)[0].MsgDesc


async def _get(peer, hobj, options=0, **md_fields):
    req = calls.MQGetRequest(mqi.MQMD(**md_fields), mqi.MQGMO(Version=2, Options=options), 1000)
    api, data = await mqi_call(peer, fap.MQGET, req.pack(LE), hobj=hobj)
    return api, (calls.MQGetReply.unpack(data, 0, LE)[0] if api.CompCode == 0 else None)


async def test_get_order_is_priority_then_fifo(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _session(server)
        for data, prio in ((b"low-1", 1), (b"high-1", 8), (b"low-2", 1), (b"high-2", 8), (b"default", -1)):
            await _put(peer, hobj, data, Priority=prio)
        order = []
        while True:
            api, got = await _get(peer, hobj)
            if got is None:
                break
            order.append(got.Data)
        assert order == [b"high-1", b"high-2", b"low-1", b"low-2", b"default"]  # queue DEFPRTY is 0


async def test_get_matches_msg_id(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _session(server)
        await _put(peer, hobj, b"first")
        second = await _put(peer, hobj, b"second")
        req = calls.MQGetRequest(mqi.MQMD(MsgId=second.MsgId),
                                 mqi.MQGMO(Version=2, MatchOptions=C.MQMO_MATCH_MSG_ID), 100)
        api, data = await mqi_call(peer, fap.MQGET, req.pack(LE), hobj=hobj)
        assert calls.MQGetReply.unpack(data, 0, LE)[0].Data == b"second"


async def test_browse_first_and_next_leave_messages(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _session(server)
        for data in (b"a", b"b"):
            await _put(peer, hobj, data)
        _, first = await _get(peer, hobj, C.MQGMO_BROWSE_FIRST)
        _, second = await _get(peer, hobj, C.MQGMO_BROWSE_NEXT)
        api, _ = await _get(peer, hobj, C.MQGMO_BROWSE_NEXT)
        assert (first.Data, second.Data, api.Reason) == (b"a", b"b", C.MQRC_NO_MSG_AVAILABLE)
        _, again = await _get(peer, hobj, C.MQGMO_BROWSE_FIRST)
        assert again.Data == b"a" and server.registry.messages.depth("DEV.QUEUE.1") == 2


async def test_expired_messages_are_never_delivered(tmp_path):
    async with running_server(tmp_path) as server:
        peer, hobj = await _session(server)
        now = [1_800_000_000.0]
        server.registry.clock = lambda: now[0]  # the queue manager's injected clock
        await _put(peer, hobj, b"short-lived", Expiry=10)  # one second
        await _put(peer, hobj, b"forever")
        now[0] += 2
        api, got = await _get(peer, hobj)
        assert got.Data == b"forever"
        assert server.registry.messages.depth("DEV.QUEUE.1") == 0


async def _command_reply(server, md: mqi.MQMD, data: bytes):
    peer = await RawPeer.connect(server)
    await handshake(peer)
    await connect_mq(peer)
    api, reply_q = await open_q(peer, "SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_EXCLUSIVE, dynamic="T.*")
    md.ReplyToQ = md.ReplyToQ and reply_q.ObjDesc.ObjectName
    put1 = calls.MQPut1Request(mqi.MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"), md, mqi.MQPMO(Version=2), data)
    _, out = await mqi_call(peer, fap.MQPUT1, put1.pack(LE), hobj=-1)
    msg_id = calls.MQPut1Reply.unpack(out, 0, LE)[0].MsgDesc.MsgId
    gmo = mqi.MQGMO(Version=2, Options=C.MQGMO_WAIT, WaitInterval=2000, MatchOptions=C.MQMO_MATCH_CORREL_ID)
    api2, out = await mqi_call(peer, fap.MQGET, calls.MQGetRequest(mqi.MQMD(CorrelId=msg_id), gmo, 4096).pack(LE),
                               hobj=api.Hobj)
    return api2, (calls.MQGetReply.unpack(out, 0, LE)[0] if api2.CompCode == 0 else None)


def _inquire_qmgr() -> bytes:
    return P.encode(P.PCFMessage(P.CFH(Type=C.MQCFT_COMMAND_XR, Command=C.MQCMD_INQUIRE_Q_MGR), []))


async def test_command_in_the_wrong_format_gets_md_format_error(tmp_path):
    async with running_server(tmp_path) as server:
        md = mqi.MQMD(Format="MQSTR", MsgType=C.MQMT_REQUEST, ReplyToQ="x")
        api, got = await _command_reply(server, md, _inquire_qmgr())
        response = P.decode(got.Data, got.MsgDesc.Encoding)
        assert response.header.Reason == C.MQRCCF_MD_FORMAT_ERROR
        assert response.header.Command == C.MQCMD_INQUIRE_Q_MGR


async def test_command_that_is_not_a_request_goes_to_the_dead_letter_queue(tmp_path):
    async with running_server(tmp_path) as server:
        md = mqi.MQMD(Format="MQADMIN", MsgType=C.MQMT_DATAGRAM, ReplyToQ="x")
        api, got = await _command_reply(server, md, _inquire_qmgr())
        assert api.Reason == C.MQRC_NO_MSG_AVAILABLE  # never answered, never executed
        dead = list(server.registry.messages.contents("DEV.DEAD.LETTER.QUEUE"))
        assert [m.data for m in dead] == [_inquire_qmgr()]


async def test_pass_correl_id_answers_with_the_request_correl_id(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        api, reply_q = await open_q(peer, "SYSTEM.MQEXPLORER.REPLY.MODEL", C.MQOO_INPUT_EXCLUSIVE, dynamic="EXP.*")
        md = mqi.MQMD(Format="MQADMIN", MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q.ObjDesc.ObjectName,
                      Report=C.MQRO_PASS_CORREL_ID, Expiry=300)  # what MQ Explorer sends (docs/reference/fap.md 29)
        put1 = calls.MQPut1Request(mqi.MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"), md,
                                   mqi.MQPMO(Version=2, Options=C.MQPMO_NEW_CORREL_ID), _inquire_qmgr())
        _, out = await mqi_call(peer, fap.MQPUT1, put1.pack(LE), hobj=-1)
        correl = calls.MQPut1Reply.unpack(out, 0, LE)[0].MsgDesc.CorrelId
        assert correl != bytes(24)
        gmo = mqi.MQGMO(Version=2, Options=C.MQGMO_WAIT, WaitInterval=2000, MatchOptions=C.MQMO_MATCH_CORREL_ID)
        api2, out = await mqi_call(peer, fap.MQGET, calls.MQGetRequest(mqi.MQMD(CorrelId=correl), gmo, 4096).pack(LE),
                                   hobj=api.Hobj)
        got = calls.MQGetReply.unpack(out, 0, LE)[0]
        assert api2.CompCode == 0 and got.MsgDesc.CorrelId == correl and got.MsgDesc.Expiry == C.MQEI_UNLIMITED
