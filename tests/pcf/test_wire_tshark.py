"""Segments our codec encodes, read back by Wireshark's MQ dissector (tshark -d tcp.port==1414,mq).

An independent implementation of the protocol must find no malformed frame, no warning, and the
field values we meant to send.  Fixtures are real bytes; the segments here are ours.
"""

from __future__ import annotations

import pytest

from qmlite.pcf import fap
from qmlite.pcf import constants as C

from tests.support.wire import PcapWriter, dissect


def _server_id(byte_order: int, struct_id: str, *, error: bool) -> bytes:
    order = fap.BIG if byte_order == 1 else fap.LITTLE
    ident = fap.InitialData(
        FapLevel=13, CapFlags1=0x26, IniErrFlags1=0x94 if error else 0, MaxTransmissionSize=32748,
        MaxMessageSize=4_194_304, ChannelName="DEV.ADMIN.SVRCONN", CapFlags2=0x01, CCSID=819,
        QMgrName="QM1", HeartbeatInterval=300, SharingConversations=10, ProcessId=1, ThreadId=2,
        TraceId=3, ProductId="MQMM09010200", QMgrId="QM1_2026-11-21_13.12.00",
        PAL=[1, 0] + [0xFFFF] * 8, R=bytes(range(12)),
    )
    return fap.encode_segment(fap.INITIAL_DATA, ident.pack(order), struct_id=struct_id,
                              conversation_id=1 if struct_id == fap.TSHM else 0, byte_order=byte_order,
                              control_flags1=fap.CF1_ERROR if error else 0)


@pytest.mark.parametrize("byte_order", [1, 2])
def test_negotiation_segments_decode_cleanly(byte_order):
    order = fap.BIG if byte_order == 1 else fap.LITTLE
    w = PcapWriter()
    w.send(_server_id(byte_order, fap.TSH, error=True), from_client=False)
    w.send(_server_id(byte_order, fap.TSHM, error=False), from_client=False)
    conv = fap.SocketAction(ConversationId=3, RequestId=0, Type=fap.SA_ACCEPT_CONV, Parm1=21, Parm2=61)
    w.send(fap.encode_segment(fap.SOCKET_ACTION, conv.pack(order), conversation_id=3, byte_order=byte_order,
                              control_flags1=0), from_client=False)
    note = fap.Notification(Version=1, Hobj=4, Code=fap.NOTIFY_CHECK_MSG, Value=0)
    w.send(fap.encode_segment(fap.NOTIFICATION, note.pack(order), conversation_id=3, request_id=3,
                              byte_order=byte_order, control_flags1=fap.CF1_FIRST), from_client=False)
    w.send(fap.heartbeat(byte_order=byte_order), from_client=False)
    w.send(fap.status_segment(fap.NO_CHANNEL, byte_order=byte_order), from_client=False)
    d = dissect(w, ["mq.id.faplevel", "mq.id.inierrflg1", "mq.id.convbyskt", "mq.id.qm",
                    "mq.socket.type", "mq.notif.code", "mq.status.code", "mq.tsh.convid"])
    assert d.malformed == [] and d.expert == []
    assert d.values("mq.tsh.type") == ["0x01", "0x01", "0x0c", "0x0f", "0x09", "0x05"]
    assert d.values("mq.id.faplevel") == ["13", "13"]
    assert d.values("mq.id.inierrflg1") == ["0x94", "0x00"]
    assert d.values("mq.id.convbyskt") == ["10", "10"]
    assert [int(v, 0) for v in d.values("mq.socket.type")] == [fap.SA_ACCEPT_CONV]
    assert [int(v, 0) for v in d.values("mq.notif.code")] == [fap.NOTIFY_CHECK_MSG]
    assert [int(v, 0) for v in d.values("mq.status.code")] == [fap.NO_CHANNEL]


@pytest.mark.parametrize("byte_order", [1, 2])
def test_mqi_replies_decode_cleanly(byte_order):
    order = fap.BIG if byte_order == 1 else fap.LITTLE
    request = fap.SegmentHeader(StructId=fap.TSHM, ConversationId=1, RequestId=0, ByteOrder=byte_order,
                                SegmentType=fap.MQCONN)
    conn = fap.MQConnBody(QMgrName="QM1", ApplName="qmlite-test", ApplType=28, Options=3,
                          Fcno=fap.Fcno(Version=2, CapabilityFlags=2,
                                        ConnTag=b"AMQCQM1         " + bytes(range(8)) + bytes(104)))
    w = PcapWriter()
    w.send(fap.api_reply(request, conn.pack(order), byte_order=byte_order), from_client=False)
    close = request.copy(SegmentType=fap.MQCLOSE)
    w.send(fap.api_reply(close, hobj=-1, byte_order=byte_order), from_client=False)
    failed = request.copy(SegmentType=fap.MQDISC)
    w.send(fap.api_reply(failed, comp_code=C.MQCC_FAILED, reason=C.MQRC_Q_MGR_NAME_ERROR, byte_order=byte_order),
           from_client=False)
    d = dissect(w, ["mq.api.completioncode", "mq.api.reasoncode", "mq.api.hobj", "mq.conn.qm", "mq.conn.appname"])
    assert d.malformed == [] and d.expert == []
    assert d.values("mq.tsh.type") == ["0x91", "0x94", "0x92"]
    assert d.values("mq.api.completioncode") == ["0", "0", "2"]
    assert d.values("mq.api.reasoncode") == ["0", "0", str(C.MQRC_Q_MGR_NAME_ERROR)]
    assert d.values("mq.conn.qm") == ["QM1"]
    assert d.values("mq.conn.appname") == ["qmlite-test"]


def test_segments_split_over_tcp_packets_reassemble():
    seg = _server_id(2, fap.TSH, error=True)
    w = PcapWriter()
    for i in range(0, len(seg), 50):  # one segment spread over six TCP packets
        w.send(seg[i:i + 50], from_client=False)
    d = dissect(w, ["mq.id.faplevel"])
    assert d.malformed == [] and d.expert == []
    assert d.values("mq.id.faplevel") == ["13"]


def _call(segment_type: int, body: bytes, byte_order: int, *, hobj: int = 2, reply: bool = False) -> bytes:
    order = fap.BIG if byte_order == 1 else fap.LITTLE
    total = fap.TSHM_LENGTH + 16 + len(body)
    api = fap.ApiHeader(CallLength=total - 8 if reply else total, Hobj=hobj).pack(order)
    return fap.encode_segment(segment_type, api + body, conversation_id=1, byte_order=byte_order)


def _pcf_command(encoding: int) -> bytes:
    from qmlite.pcf import pcf as P

    msg = P.PCFMessage(P.CFH(Type=C.MQCFT_COMMAND_XR, Command=C.MQCMD_CREATE_SUBSCRIPTION), [
        P.CFST(C.MQCACF_SUB_NAME, "SUB.A"), P.CFST(C.MQCA_TOPIC_STRING, "price/fruit"),
        P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED), P.CFBS(C.MQBACF_DESTINATION_CORREL_ID, bytes(24)),
        P.CFIL(C.MQIACF_SUB_ATTRS, (C.MQIACF_ALL,))])
    return P.encode(msg, encoding)


@pytest.mark.parametrize("byte_order", [1, 2])
def test_mqi_bodies_and_pcf_payloads_decode_cleanly(byte_order):
    from qmlite.pcf import calls, mqi

    order = fap.BIG if byte_order == 1 else fap.LITTLE
    enc = 0x111 if byte_order == 1 else C.MQENC_NATIVE
    od = mqi.MQOD(Version=2, ObjectType=C.MQOT_Q, ObjectName="PYMQPCF.6A1F00000000002A", DynamicQName="PYMQPCF.*")
    open_reply = calls.MQOpenReply(od, C.MQOO_INPUT_EXCLUSIVE, mqi.FOPA()).pack(order)
    md = mqi.MQMD(Version=1, Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, Encoding=enc, Expiry=150,
                  Report=C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG, ReplyToQ="PYMQPCF.6A1F00000000002A")
    put = calls.MQPutRequest(md, mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), _pcf_command(enc)).pack(order)
    reply_md = mqi.MQMD(Version=1, Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REPLY, Encoding=enc,
                        MsgId=b"AMQ QM1 " + bytes(16))
    get = calls.MQGetReply(reply_md, mqi.MQGMO(Version=2), _pcf_command(enc)).pack(order)
    inq = calls.MQInqReply([C.MQIA_COMMAND_LEVEL, C.MQIA_PLATFORM, C.MQCA_Q_MGR_NAME], [912, 3],
                           "QM1".ljust(48)).pack(order)
    w = PcapWriter()
    w.send(_call(fap.MQOPEN_REPLY, open_reply, byte_order, reply=True), from_client=False)
    w.send(_call(fap.MQPUT, put, byte_order), from_client=True)
    w.send(_call(fap.MQGET_REPLY, get, byte_order, reply=True), from_client=False)
    w.send(_call(fap.MQINQ_REPLY, inq, byte_order, reply=True), from_client=False)
    d = dissect(w, ["mq.od.objname", "mq.md.format", "mq.md.replytoq", "mqpcf.cfh.command",
                    "mqpcf.cfh.ParmCount", "mqpcf.parm.string", "mq.inq.intvalue", "mq.put.length"])
    assert d.malformed == [] and d.expert == []
    assert d.values("mq.tsh.type") == ["0x93", "0x86", "0x95", "0x99"]
    assert d.values("mq.od.objname") == ["PYMQPCF.6A1F00000000002A"]
    assert d.values("mq.md.format") == ["MQADMIN", "MQADMIN"]
    assert d.values("mqpcf.cfh.command") == [str(C.MQCMD_CREATE_SUBSCRIPTION)] * 2
    assert d.values("mqpcf.cfh.ParmCount") == ["5", "5"]
    assert "SUB.A" in d.values("mqpcf.parm.string") and "price/fruit" in d.values("mqpcf.parm.string")
