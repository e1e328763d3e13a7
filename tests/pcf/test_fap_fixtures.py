"""Golden tests: real and emulator-assembled segments decode to the values in tests/fixtures/README.md
and re-encode byte for byte."""

import pytest

from qmlite.pcf import fap
from qmlite.pcf.framer import Framer
from tests.support.fixtures import FIXTURES

REAL = FIXTURES / "real-server"
SEGMENT_FILES = sorted(REAL.glob("*.bin")) + sorted((REAL / "emulator-assembled").glob("*.bin"))

# file -> (StructId, type, ctl1, conv, req, ByteOrder, Encoding, CCSID)
HEADERS = {
    "id-reply-error-tsh.bin": ("TSH ", 0x01, 0x02, 0, 0, 2, 0x111, 819),
    "id-reply-accepted-tshm.bin": ("TSHM", 0x01, 0x00, 1, 0, 2, 0x222, 819),
    "nmap-probe-id.bin": ("TSH ", 0x01, 0x31, 0, 0, 1, 0x111, 1208),
    "nmap-status-no-channel.bin": ("TSH ", 0x05, 0x0A, 0, 0, 1, 0x222, 1208),
    "mqconn-reply.bin": ("TSHM", 0x91, 0x30, 1, 0, 2, 0x222, 819),
    "mqopen-reply.bin": ("TSHM", 0x93, 0x30, 1, 0, 2, 0x222, 819),
    "mqinq-reply.bin": ("TSHM", 0x99, 0x30, 1, 0, 2, 0x222, 819),
    "mqclose-reply.bin": ("TSHM", 0x94, 0x30, 1, 0, 2, 0x222, 819),
    "mqcmit-reply.bin": ("TSHM", 0x9A, 0x30, 1, 0, 2, 0x222, 819),
    "mqdisc-reply.bin": ("TSHM", 0x92, 0x30, 1, 0, 2, 0x222, 819),
    "socket-action-accept-conv.bin": ("TSHM", 0x0C, 0x00, 3, 0, 2, 0x222, 819),
    "notification-check-msg.bin": ("TSHM", 0x0F, 0x10, 3, 3, 2, 0x01000222, 819),
    "async-message.bin": ("TSHM", 0x0D, 0x30, 3, 1, 2, 0x01000222, 819),
    "spi-query-reply.bin": ("TSHM", 0x9C, 0x30, 1, 0, 2, 0x222, 819),
}

PAL_912 = [1, 0] + [0xFFFF] * 8
R_912 = bytes.fromhex("051b5465bff9cf4adaba0a4c")
CONN_ID = b"AMQCQM1" + b" " * 9 + bytes.fromhex("6445ea5d02b49424")


def load(name):
    path = REAL / name
    if not path.exists():
        path = REAL / "emulator-assembled" / name
    return path.read_bytes()


def test_all_fixtures_listed():
    assert sorted(p.name for p in SEGMENT_FILES) == sorted(HEADERS)


@pytest.mark.parametrize("path", SEGMENT_FILES, ids=lambda p: p.name)
def test_frames_as_one_segment_and_reencodes(path):
    data = path.read_bytes()
    segs = Framer(max_segment_length=32748).feed(data)
    assert len(segs) == 1
    seg = segs[0]
    h = seg.header
    assert h.SegmentLength == len(data)
    assert (h.StructId, h.SegmentType, h.ControlFlags1, h.ConversationId, h.RequestId,
            h.ByteOrder, h.Encoding, h.CCSID) == HEADERS[path.name]
    assert h.ControlFlags2 == 0 and h.LUWIdent == bytes(8) and h.Reserved == 0
    body = seg.decode_body()
    assert h.pack() + fap.encode_body(body, h.order) == data
    assert seg.encode() == data
    fap.to_json(seg), fap.to_json(body)  # JSON view never fails


def check_912_id(d, *, error):
    assert (d.FapLevel, d.CapFlags1, d.ECapFlags1) == (13, 0x26, 0)
    assert d.IniErrFlags1 == (0x94 if error else 0)
    assert (d.MaxTransmissionSize, d.MaxMessageSize) == (32748, 4194304)
    assert d.ChannelName == "DEV.ADMIN.SVRCONN"
    assert (d.CapFlags2, d.ECapFlags2, d.CCSID) == (0x51, 0, 819)
    assert d.QMgrName == "QM1"
    assert (d.HeartbeatInterval, d.EFLLength, d.SharingConversations) == (300, 0, 10)
    assert (d.CapFlags3, d.ECapFlags3) == (0, 0x08 if error else 0)
    assert (d.ProcessId, d.ThreadId, d.TraceId) == (922, 21, 60)
    assert d.ProductId == "MQMM09010200"
    assert d.QMgrId == "QM1_2019-12-05_11.17.01"
    assert d.PAL == PAL_912 and d.R == R_912
    assert d.HdrCompList == bytes.fromhex("00ff") and d.MsgCompList == b"\x00" + b"\xff" * 15
    assert d.Trailer == b""


def test_id_reply_error():
    seg = fap.decode_segment(load("id-reply-error-tsh.bin"))
    assert len(seg.body) == 240
    check_912_id(seg.decode_body(), error=True)
    assert fap.to_json(seg.decode_body())["IniErrFlags1_name"] == [
        "MAX_TRANSMISSION_SIZE", "MAX_MSG_SIZE", "HEARTBEAT_INTERVAL"]


def test_id_reply_accepted():
    seg = fap.decode_segment(load("id-reply-accepted-tshm.bin"))
    check_912_id(seg.decode_body(), error=False)


def test_nmap_probe_id():
    seg = fap.decode_segment(load("nmap-probe-id.bin"))
    assert len(seg.body) == 208
    d = seg.decode_body()
    assert (d.FapLevel, d.CapFlags1, d.MaxTransmissionSize, d.MaxMessageSize) == (
        10, 0x26, 32758, 104857600)
    assert d.ChannelName == "SYSTEM.ADMIN.SVRCONN" and d.CapFlags2 == 0x51
    assert d.QMgrName == "nmap-probe" and d.CCSID == 1208
    assert (d.HeartbeatInterval, d.EFLLength, d.SharingConversations) == (1, 106, 10)
    assert (d.CapFlags3, d.TraceId, d.ProductId, d.QMgrId) == (0, 2, "MQJB00000000", "CANNED_DATA")
    assert d.PAL == [0] * 10 and d.R == bytes(12)  # absent at FAP 10
    assert d.pack(">") == seg.body


def test_status_no_channel():
    body = fap.decode_segment(load("nmap-status-no-channel.bin")).decode_body()
    assert (body.ErrorDataLength, body.ReturnCode, body.Value) == (8, fap.NO_CHANNEL, None)
    # our builder produces the same bytes given the 7.0.1 header choices
    assert fap.status_segment(fap.NO_CHANNEL, byte_order=1, encoding=0x222, ccsid=1208) == load(
        "nmap-status-no-channel.bin")


def test_mqconn_reply():
    call = fap.decode_segment(load("mqconn-reply.bin")).decode_body()
    assert call.ApiHeader == fap.ApiHeader(376, 0, 0, 0)
    c = call.Call
    assert (c.QMgrName, c.ApplName, c.ApplType, c.AccountingToken, c.Options, c.XOptions) == (
        "QM1", "fixture-app", 28, bytes(32), 3, 0)
    assert (c.Fcno.Version, c.Fcno.CapabilityFlags) == (2, 1)
    assert c.Fcno.ConnectionId == CONN_ID and c.Fcno.ConnTag[24:] == bytes(104)
    assert c.ReconnectionId == bytes(24) and c.ReconnectionQmId == bytes(48)
    assert c.Trailer == b"" and call.Data == b""


def test_mqconn_reply_fcno_fragment():
    frag = (REAL / "emulator-fragments" / "mqconn-reply-fcno-212.frag.bin").read_bytes()
    fcno, end = fap.Fcno.unpack(frag, 0, "<")
    assert (fcno.Version, fcno.CapabilityFlags, fcno.ConnectionId) == (2, 1, CONN_ID)
    assert end == 140 and frag[end:] == bytes(72)
    assert fcno.pack("<") == frag[:140]


@pytest.mark.parametrize("name, hobj", [("mqclose-reply.bin", -1), ("mqcmit-reply.bin", 0),
                                        ("mqdisc-reply.bin", 0)])
def test_short_api_replies(name, hobj):
    data = load(name)
    call = fap.decode_segment(data).decode_body()
    assert call.ApiHeader == fap.ApiHeader(44, 0, 0, hobj) and call.Data == b""
    # the builder reproduces the emulator's reply for the same request header
    seg = fap.decode_segment(data)
    req = seg.header.copy(SegmentType=seg.header.SegmentType & ~fap.REPLY)
    assert fap.api_reply(req, hobj=hobj) == data


def test_mqopen_mqinq_spi_api_headers():
    for name, length, hobj in (("mqopen-reply.bin", 332, 2), ("mqinq-reply.bin", 236, 2),
                               ("spi-query-reply.bin", 324, 0)):
        call = fap.decode_segment(load(name)).decode_body()
        assert call.ApiHeader == fap.ApiHeader(length, 0, 0, hobj)


def test_socket_action_accept_conv():
    sa = fap.decode_segment(load("socket-action-accept-conv.bin")).decode_body()
    assert sa == fap.SocketAction(3, 0, fap.SA_ACCEPT_CONV, 21, 61)
    assert fap.to_json(sa)["Type_name"] == "ACCEPT_CONV"


def test_notification_check_msg():
    n = fap.decode_segment(load("notification-check-msg.bin")).decode_body()
    assert n == fap.Notification(1, 4, fap.NOTIFY_CHECK_MSG, 0)
    frag = (REAL / "emulator-fragments" / "notification-check-msg-body-16.frag.bin").read_bytes()
    assert fap.Notification.unpack(frag, 0, "<")[0] == n


def test_async_message():
    seg = fap.decode_segment(load("async-message.bin"))
    am = seg.decode_body()
    h = am.Header
    assert (h.Version, h.Hobj, h.MessageIndex, h.GlobalMessageIndex, h.SegmentLength,
            h.SegmentIndex, h.SelectionIndex, h.Reason, h.TotalMsgLength, h.ActualMsgLength) == (
        1, 4, 1, 1, 277, 0, 1, 0, 277, 277)
    assert h.MsgToken == bytes.fromhex("6345ea5d410000005f00000000000000")
    assert h.Status == 1 and h.ResolvedQNameLength == 12 and h.ResolvedQName == "DEV.QUEUE.1"
    assert am.data_offset == 68
    assert seg.body[68:72] == b"MD  " and am.Data == seg.body[68:]
    assert len(am.Data) == 364 + 272 + 8


# MQ-Explorer-style first ID, docs/reference/fap.md 30.2 (transcribed from the hex dump)
EXPLORER_ID = bytes.fromhex("""
54 53 48 20 00 00 01 0c 01 01 31 00 00 00 00 00
00 00 00 00 00 00 01 11 04 b8 00 00 49 44 20 20
0d 26 00 00 00 00 00 00 00 00 7f ec 06 40 00 00
00 00 00 00 44 45 56 2e 41 44 4d 49 4e 2e 53 56
52 43 4f 4e 4e 20 20 20 51 00 04 b8 51 4d 31 20
20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20
20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20
20 20 20 20 20 20 20 20 20 20 20 20 00 00 00 01
00 8a 00 00 00 ff 00 ff ff ff ff ff ff ff ff ff
ff ff ff ff ff ff 00 00 00 00 00 00 00 00 00 0a
08 00 00 00 00 00 00 00 00 00 00 00 00 00 00 1b
4d 51 4d 4d 30 39 30 30 30 30 30 30 4d 51 4d 49
44 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20
20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20
20 20 20 20 20 20 20 20 20 20 20 20 00 01 00 00
ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff
f1 18 a6 93 2b 8a 44 3c 67 53 73 08
""")


def test_explorer_first_id():
    assert len(EXPLORER_ID) == 268
    segs = Framer().feed(EXPLORER_ID)
    assert len(segs) == 1
    h = segs[0].header
    assert (h.StructId, h.ByteOrder, h.SegmentType, h.ControlFlags1, h.Encoding, h.CCSID) == (
        "TSH ", 1, 1, 0x31, 0x111, 1208)
    d = segs[0].decode_body()
    assert (d.FapLevel, d.CapFlags1, d.MaxTransmissionSize, d.MaxMessageSize) == (
        13, 0x26, 32748, 104857600)
    assert (d.ChannelName, d.QMgrName, d.CapFlags2, d.CCSID) == ("DEV.ADMIN.SVRCONN", "QM1", 0x51, 1208)
    assert (d.HeartbeatInterval, d.EFLLength, d.SharingConversations, d.CapFlags3) == (1, 138, 10, 0x08)
    assert (d.TraceId, d.ProductId, d.QMgrId) == (0x1b, "MQMM09000000", "MQMID")
    assert d.PAL == [1, 0] + [0xFFFF] * 8 and d.R == bytes.fromhex("f118a6932b8a443c67537308")
    assert segs[0].encode() == EXPLORER_ID
    assert h.pack() + d.pack(">") == EXPLORER_ID
