"""The server on a real loopback socket, spoken to byte by byte: refusals, negotiation, security,
conversations, heartbeats, MQI verbs and the command server."""

from __future__ import annotations

import pytest

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from tests.support.rawfap import RawPeer, client_id, connect_mq, handshake, mqi_call, open_q, running_server
from tests.support.fixtures import FIXTURES

REAL = FIXTURES / "real-server"


async def test_nmap_probe_gets_no_channel_and_close(tmp_path):
    async with running_server(tmp_path) as server:
        # The capture is from a queue manager without SYSTEM.ADMIN.SVRCONN; qmlite defines it (MQ Explorer's).
        channels = server.registry.objects("channel")
        server.registry.remove_object("channel", channels["SYSTEM.ADMIN.SVRCONN"])
        peer = await RawPeer.connect(server)
        await peer.send((REAL / "nmap-probe-id.bin").read_bytes())  # asks for SYSTEM.ADMIN.SVRCONN
        seg = await peer.receive()
        assert seg.header.StructId == fap.TSH and seg.header.SegmentType == fap.STATUS_DATA
        assert seg.header.ControlFlags1 == fap.CF1_ERROR | fap.CF1_CLOSE_CHANNEL
        assert fap.decode_body(seg).ReturnCode == fap.NO_CHANNEL
        assert await peer.closed()


async def test_explorer_style_id_is_renegotiated_in_one_round(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        first = client_id("DEV.ADMIN.SVRCONN", hb=1)
        await peer.send(fap.encode_segment(fap.INITIAL_DATA, first.pack(fap.BIG), struct_id=fap.TSH, byte_order=1,
                                           control_flags1=0x31))
        seg = await peer.receive()
        reply = fap.decode_body(seg)
        assert seg.header.ControlFlags1 == fap.CF1_ERROR and seg.header.ByteOrder == 2
        assert reply.FapLevel == 12  # the admin channel checks passwords, which clients send in clear at 12
        assert reply.IniErrFlags1 == fap.IEF1_FAP_LEVEL | fap.IEF1_MAX_MSG_SIZE | fap.IEF1_HEARTBEAT_INTERVAL
        assert (reply.HeartbeatInterval, reply.MaxMessageSize, reply.SharingConversations) == (300, 4194304, 10)
        assert reply.ECapFlags3 == 0x08 and reply.CapFlags3 == 0  # MULTIPLEX_SYNCGET refused, like 9.1.2
        assert reply.QMgrName == "QM1" and reply.ProductId == "MQMM09010200" and reply.QMgrId.startswith("QM1_")
        again = client_id("DEV.ADMIN.SVRCONN", fap_level=12, hb=300, max_msg=4194304, cap3=0)
        await peer.send(fap.encode_segment(fap.INITIAL_DATA, again.pack(fap.BIG), struct_id=fap.TSHM,
                                           conversation_id=1, byte_order=1, control_flags1=0x31))
        seg = await peer.receive()
        assert seg.header.StructId == fap.TSHM and seg.header.ConversationId == 1
        assert seg.header.ControlFlags1 == 0 and fap.decode_body(seg).IniErrFlags1 == 0


async def test_app_channel_without_password_agrees_fap_13(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        theirs = await handshake(peer, "DEV.APP.SVRCONN", user="someone", password=None, hb=300,
                                 max_msg=4194304, cap3=0)
        assert theirs.FapLevel == 13
        api = await connect_mq(peer)
        assert (api.CompCode, api.Reason) == (0, 0)


@pytest.mark.parametrize("user, password, reason", [
    ("admin", "passw0rd", 0),
    ("admin", "wrong", C.MQRC_NOT_AUTHORIZED),
    ("app", "passw0rd", C.MQRC_NOT_AUTHORIZED),
])
async def test_admin_channel_security(tmp_path, user, password, reason):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer, user=user, password=password)
        api = await connect_mq(peer)
        assert api.Reason == reason
        assert api.CompCode == (C.MQCC_FAILED if reason else C.MQCC_OK)


async def test_admin_password_from_environment(tmp_path):
    async with running_server(tmp_path, environ={"MQ_ADMIN_PASSWORD": "s3cret"}) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer, password="passw0rd")
        assert (await connect_mq(peer)).Reason == C.MQRC_NOT_AUTHORIZED
        peer2 = await RawPeer.connect(server)
        await handshake(peer2, password="s3cret")
        assert (await connect_mq(peer2)).Reason == 0


async def test_mqconn_reply_carries_connection_id(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        body = fap.MQConnBody(QMgrName="", ApplName="rawfap", ApplType=C.MQAT_UNIX, Options=3,
                              Fcno=fap.Fcno(Version=2))
        api, conn = await mqi_call(peer, fap.MQCONN, body.pack(fap.LITTLE))
        assert api.CompCode == 0 and api.CallLength == 36 + 16 + 120 + 140 - 8
        assert conn.QMgrName == "QM1" and conn.Fcno.Version == 2
        assert conn.Fcno.ConnectionId.startswith(b"AMQCQM1         ")
        wrong = fap.MQConnBody(QMgrName="QM2", Options=3, Fcno=fap.Fcno(Version=2))
        peer2 = await RawPeer.connect(server)
        await handshake(peer2)
        api, _ = await mqi_call(peer2, fap.MQCONN, wrong.pack(fap.LITTLE))
        assert (api.CompCode, api.Reason) == (C.MQCC_FAILED, C.MQRC_Q_MGR_NAME_ERROR)


async def test_heartbeat_is_answered(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await peer.send(fap.heartbeat(request=True))
        seg = await peer.receive()
        assert seg.header.SegmentType == fap.HEARTBEAT and seg.header.StructId == fap.TSHC
        assert not seg.header.ControlFlags1 & fap.CF1_CONFIRM_REQUEST


@pytest.mark.parametrize("junk, code", [
    (b"GET / HTTP/1.1\r\n\r\n", fap.PROTOCOL_SEGMENT_ERROR),
    (b"TSH \x7f\xff\xff\xff", fap.PROTOCOL_LENGTH_ERROR),  # a lying length: refused after 8 bytes
])
async def test_garbage_gets_status_and_close(tmp_path, junk, code):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await peer.send(junk)
        seg = await peer.receive()
        assert seg.header.SegmentType == fap.STATUS_DATA and fap.decode_body(seg).ReturnCode == code
        assert await peer.closed()


async def test_mqi_before_agreement_is_a_protocol_error(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        api = fap.ApiHeader(CallLength=44).pack(fap.LITTLE)
        await peer.send(fap.encode_segment(fap.MQCONN, api, struct_id=fap.TSH))
        seg = await peer.receive()
        assert fap.decode_body(seg).ReturnCode == fap.PROTOCOL_SEGMENT_TYPE
        assert await peer.closed()


async def test_one_bad_client_does_not_affect_another(tmp_path):
    async with running_server(tmp_path) as server:
        good = await RawPeer.connect(server)
        await handshake(good)
        bad = await RawPeer.connect(server)
        await bad.send(b"\x00" * 64)
        assert await bad.closed()
        assert (await connect_mq(good)).Reason == 0


async def test_put_get_round_trip_with_dynamic_queue(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        api, opened = await open_q(peer, "SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_EXCLUSIVE | C.MQOO_OUTPUT,
                                   dynamic="PYMQPCF.*")
        assert api.CompCode == 0
        name = opened.ObjectDesc.ObjectName if hasattr(opened, "ObjectDesc") else opened.ObjDesc.ObjectName
        assert name.startswith("PYMQPCF.") and len(name) == len("PYMQPCF.") + 16
        hobj = api.Hobj
        md = mqi.MQMD(Format="MQSTR", CorrelId=b"C" * 24)
        put = calls.MQPutRequest(md, mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), b"hello")
        api, data = await mqi_call(peer, fap.MQPUT, put.pack(fap.LITTLE), hobj=hobj)
        put_reply = calls.MQPutReply.unpack(data, 0, fap.LITTLE)[0]
        assert api.CompCode == 0 and put_reply.MsgDesc.MsgId.startswith(b"AMQ QM1")
        assert put_reply.MsgDesc.UserIdentifier == "admin" and put_reply.MsgDesc.PutApplName == "rawfap"
        get = calls.MQGetRequest(mqi.MQMD(CorrelId=b"C" * 24),
                                 mqi.MQGMO(Version=2, MatchOptions=C.MQMO_MATCH_CORREL_ID),
                                 3)
        api, data = await mqi_call(peer, fap.MQGET, get.pack(fap.LITTLE), hobj=hobj)
        got = calls.MQGetReply.unpack(data, 0, fap.LITTLE)[0]
        assert (api.CompCode, api.Reason) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
        assert got.Data == b"hel" and got.DataLength == 5 and got.MsgDesc.MsgId == put_reply.MsgDesc.MsgId
        get.BufferLength = 100
        api, data = await mqi_call(peer, fap.MQGET, get.pack(fap.LITTLE), hobj=hobj)
        assert api.CompCode == 0 and calls.MQGetReply.unpack(data, 0, fap.LITTLE)[0].Data == b"hello"
        api, _ = await mqi_call(peer, fap.MQGET, get.pack(fap.LITTLE), hobj=hobj)
        assert api.Reason == C.MQRC_NO_MSG_AVAILABLE
        api, _ = await mqi_call(peer, fap.MQCLOSE, calls.MQCloseRequest(0).pack(fap.LITTLE), hobj=hobj)
        assert api.CompCode == 0 and api.Hobj == C.MQHO_UNUSABLE_HOBJ
        assert name not in server.registry.queues  # a temporary dynamic queue goes with its handle


async def test_waiting_get_is_woken_by_a_put_on_another_conversation(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        api, _ = await open_q(peer, "DEV.QUEUE.1", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        hobj = api.Hobj
        gmo = mqi.MQGMO(Version=2, Options=C.MQGMO_WAIT, WaitInterval=60_000, MatchOptions=0)
        get = calls.MQGetRequest(mqi.MQMD(), gmo, 100)
        total = 36 + 16 + len(get.pack(fap.LITTLE))
        await peer.send(fap.encode_segment(fap.MQGET, fap.ApiHeader(CallLength=total, Hobj=hobj).pack(fap.LITTLE)
                                           + get.pack(fap.LITTLE), conversation_id=1))
        # A second conversation on the same socket puts the message the first is waiting for.
        start = fap.SocketAction(ConversationId=3, RequestId=0, Type=fap.SA_START_CONV)
        await peer.send(fap.encode_segment(fap.SOCKET_ACTION, start.pack(fap.LITTLE), struct_id=fap.TSHC))
        accepted = await peer.receive()
        assert accepted.header.ConversationId == 3 and fap.decode_body(accepted).Type == fap.SA_ACCEPT_CONV
        await peer.send(fap.encode_segment(fap.USERID_DATA, fap.UserIdData(UserIdentifier="admin").pack(fap.LITTLE),
                                           conversation_id=3))
        caut = fap.ConAuthInfo(UserId="admin", Password=b"passw0rd")
        await peer.send(fap.encode_segment(fap.CONAUTH_INFO, caut.pack(fap.LITTLE), conversation_id=3))
        assert (await peer.receive()).header.SegmentType == fap.STATUS_DATA
        assert (await connect_mq(peer, conv=3)).Reason == 0
        api3, _ = await open_q(peer, "DEV.QUEUE.1", C.MQOO_OUTPUT, conv=3)
        put = calls.MQPutRequest(mqi.MQMD(Format="MQSTR"), mqi.MQPMO(Version=2), b"wake up")
        api, _ = await mqi_call(peer, fap.MQPUT, put.pack(fap.LITTLE), hobj=api3.Hobj, conv=3)
        assert api.CompCode == 0
        seg = await peer.receive()  # the waiting GET's reply on conversation 1
        assert seg.header.ConversationId == 1 and seg.header.SegmentType == fap.MQGET_REPLY
        call = fap.decode_body(seg)
        assert calls.MQGetReply.unpack(call.Data, 0, fap.LITTLE)[0].Data == b"wake up"


async def test_get_wait_times_out_with_2033(tmp_path, autojump_clock):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        api, _ = await open_q(peer, "DEV.QUEUE.2", C.MQOO_INPUT_SHARED)
        gmo = mqi.MQGMO(Version=2, Options=C.MQGMO_WAIT, WaitInterval=5000)
        api, _ = await mqi_call(peer, fap.MQGET, calls.MQGetRequest(mqi.MQMD(), gmo, 10).pack(fap.LITTLE),
                                hobj=api.Hobj)
        assert (api.CompCode, api.Reason) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)


async def test_command_server_answers_pcf(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        api, reply_q = await open_q(peer, "SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_EXCLUSIVE, dynamic="PYMQPCF.*")
        reply_hobj, reply_name = api.Hobj, reply_q.ObjDesc.ObjectName
        request = P.PCFMessage(P.CFH(Type=C.MQCFT_COMMAND_XR, Command=C.MQCMD_INQUIRE_Q_MGR),
                               [P.CFIL(C.MQIACF_Q_MGR_ATTRS,
                                       (C.MQIA_PLATFORM, C.MQCA_Q_MGR_NAME, C.MQIA_COMMAND_LEVEL))])
        md = mqi.MQMD(Format=C.MQFMT_ADMIN.rstrip(), MsgType=C.MQMT_REQUEST, ReplyToQ=reply_name, Expiry=150,
                      Report=C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG)
        od = mqi.MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE")
        put1 = calls.MQPut1Request(od, md, mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), P.encode(request))
        api, data = await mqi_call(peer, fap.MQPUT1, put1.pack(fap.LITTLE), hobj=-1)
        assert api.CompCode == 0
        msg_id = calls.MQPut1Reply.unpack(data, 0, fap.LITTLE)[0].MsgDesc.MsgId
        gmo = mqi.MQGMO(Version=2, Options=C.MQGMO_WAIT, WaitInterval=5000, MatchOptions=C.MQMO_MATCH_CORREL_ID)
        get = calls.MQGetRequest(mqi.MQMD(CorrelId=msg_id), gmo, 4096)
        api, data = await mqi_call(peer, fap.MQGET, get.pack(fap.LITTLE), hobj=reply_hobj)
        got = calls.MQGetReply.unpack(data, 0, fap.LITTLE)[0]
        assert api.CompCode == 0 and got.MsgDesc.MsgType == C.MQMT_REPLY and got.MsgDesc.CorrelId == msg_id
        assert got.MsgDesc.Report == C.MQRO_DISCARD_MSG and 0 < got.MsgDesc.Expiry <= 150
        response = P.decode(got.Data, got.MsgDesc.Encoding)
        assert response.header.Control == C.MQCFC_LAST and response.header.CompCode == 0
        values = {p.parameter: p.value for p in response.parameters}
        assert values[C.MQIA_PLATFORM] == C.MQPL_UNIX and values[C.MQCA_Q_MGR_NAME].rstrip() == "QM1"


async def test_app_user_cannot_open_the_command_queue(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer, "DEV.APP.SVRCONN", user="app", password=None)
        assert (await connect_mq(peer)).Reason == 0
        api, _ = await open_q(peer, "SYSTEM.ADMIN.COMMAND.QUEUE", C.MQOO_OUTPUT)
        assert (api.CompCode, api.Reason) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)
        api, _ = await open_q(peer, "DEV.QUEUE.1", C.MQOO_OUTPUT)
        assert api.CompCode == 0


async def test_mqinq_on_the_queue_manager(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        req = calls.MQOpenRequest(mqi.MQOD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
        api, _ = await mqi_call(peer, fap.MQOPEN, req.pack(fap.LITTLE))
        sel = [C.MQIA_COMMAND_LEVEL, C.MQIA_PLATFORM, C.MQIA_CODED_CHAR_SET_ID, C.MQCA_Q_MGR_NAME,
               C.MQCA_DEAD_LETTER_Q_NAME, C.MQCA_COMMAND_INPUT_Q_NAME]
        api2, data = await mqi_call(peer, fap.MQINQ, calls.MQInqRequest(sel, 3, 144).pack(fap.LITTLE), hobj=api.Hobj)
        reply = calls.MQInqReply.unpack(data, 0, fap.LITTLE)[0]
        assert api2.CompCode == 0 and reply.IntAttrs == [912, 3, 819]
        assert reply.CharAttrs == "".join(name.ljust(48) for name in ("QM1", "DEV.DEAD.LETTER.QUEUE",
                                                                        "SYSTEM.ADMIN.COMMAND.QUEUE"))
        api3, _ = await mqi_call(peer, fap.MQINQ, calls.MQInqRequest([9999], 1, 0).pack(fap.LITTLE), hobj=api.Hobj)
        assert api3.Reason == C.MQRC_SELECTOR_ERROR


async def test_sigterm_style_quiesce_tells_clients(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        await server.quiesce()
        seg = await peer.receive()
        assert fap.decode_body(seg).ReturnCode == fap.QM_TERMINATING


async def _put(peer, hobj, data, options):
    put = calls.MQPutRequest(mqi.MQMD(Format="MQSTR"), mqi.MQPMO(Version=2, Options=options), data)
    api, _ = await mqi_call(peer, fap.MQPUT, put.pack(fap.LITTLE), hobj=hobj)
    assert api.CompCode == 0


async def _get(peer, hobj, options=C.MQGMO_NO_SYNCPOINT):
    get = calls.MQGetRequest(mqi.MQMD(), mqi.MQGMO(Version=2, Options=options, MatchOptions=0), 100)
    api, data = await mqi_call(peer, fap.MQGET, get.pack(fap.LITTLE), hobj=hobj)
    return api, (calls.MQGetReply.unpack(data, 0, fap.LITTLE)[0] if api.CompCode == 0 else None)


async def _two_sessions(server, queue):
    peers = []
    for _ in range(2):
        peer = await RawPeer.connect(server)
        await handshake(peer)
        await connect_mq(peer)
        api, _ = await open_q(peer, queue, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        peers.append((peer, api.Hobj))
    return peers


async def test_syncpoint_put_is_invisible_until_commit(tmp_path):
    async with running_server(tmp_path) as server:
        (a, ha), (b, hb) = await _two_sessions(server, "DEV.QUEUE.1")
        await _put(a, ha, b"later", C.MQPMO_SYNCPOINT)
        api, _ = await _get(b, hb)
        assert api.Reason == C.MQRC_NO_MSG_AVAILABLE
        api, _ = await mqi_call(a, fap.MQCMIT)
        assert api.CompCode == 0
        api, got = await _get(b, hb)
        assert got.Data == b"later"


async def test_backout_restores_a_syncpoint_get_in_place(tmp_path):
    async with running_server(tmp_path) as server:
        (a, ha), (b, hb) = await _two_sessions(server, "DEV.QUEUE.1")
        for data in (b"first", b"second"):
            await _put(a, ha, data, C.MQPMO_NO_SYNCPOINT)
        api, got = await _get(a, ha, C.MQGMO_SYNCPOINT)
        assert got.Data == b"first" and got.MsgDesc.BackoutCount == 0
        api, _ = await mqi_call(a, fap.MQBACK)
        assert api.CompCode == 0
        api, got = await _get(b, hb)
        assert got.Data == b"first" and got.MsgDesc.BackoutCount == 1  # back at the head, counted


async def test_disconnect_commits_and_a_lost_connection_backs_out(tmp_path):
    async with running_server(tmp_path) as server:
        (a, ha), (b, hb) = await _two_sessions(server, "DEV.QUEUE.2")
        await _put(a, ha, b"kept", C.MQPMO_SYNCPOINT)
        await mqi_call(a, fap.MQDISC)  # a normal end commits
        await _put(b, hb, b"other", C.MQPMO_NO_SYNCPOINT)
        api, got = await _get(b, hb, C.MQGMO_SYNCPOINT)
        assert got.Data == b"kept"
        await b.aclose()  # the application dies mid unit of work
        assert b"kept" in [m.data for m in await _wait_restored(server, "DEV.QUEUE.2", b"kept")]


async def _wait_restored(server, queue, data):
    lot = server.mqi.activity.lot(queue)
    while data not in [m.data for m in server.registry.messages.contents(queue)]:
        await lot.park()  # woken by the backout's notify
    return list(server.registry.messages.contents(queue))
