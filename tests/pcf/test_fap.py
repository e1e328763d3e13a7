"""FAP segment header and body codecs: round trips, layouts, builders and mutation fuzz."""

import struct

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import errors, fap
from qmlite.pcf.errors import CodecError

ORDERS = st.sampled_from([">", "<"])
u8 = st.integers(0, 0xFF)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
i32 = st.integers(-(2**31), 2**31 - 1)
NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%/-"


def name(n):
    return st.text(NAME_CHARS, max_size=n)


def raw(n):
    return st.binary(min_size=n, max_size=n)


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def roundtrip(cls, obj, order, **kw):
    data = obj.pack(order)
    back, end = cls.unpack(data, 0, order, **kw)
    assert end == len(data)
    assert back == obj
    assert back.pack(order) == data
    return data


def assert_status(exc_info, code):
    assert exc_info.value.family == errors.STATUS
    assert exc_info.value.reason == code


# ----------------------------------------------------------------------------------- header

headers = st.builds(
    lambda sid, conv, req, bo, t, f1, f2, luw, enc, ccsid, res: fap.SegmentHeader(
        sid, 0, conv if sid == "TSHM" else 0, req if sid == "TSHM" else 0, bo, t, f1, f2, luw,
        enc, ccsid, res),
    st.sampled_from(["TSH ", "TSHC", "TSHM"]), u32, u32, st.sampled_from([1, 2]), u8, u8, u8,
    raw(8), u32, u16, u16)


@SETTINGS
@given(headers, st.binary(max_size=64))
def test_header_roundtrip(h, body):
    h.SegmentLength = h.header_length + len(body)
    data = h.pack() + body
    seg = fap.decode_segment(data)
    assert seg.header == h
    assert seg.body == body
    assert seg.encode() == data
    assert fap.decode_header(data) == h


def test_header_layout_byte_orders():
    h = fap.SegmentHeader("TSHM", 0, 0x01020304, 0x05060708, 2, 0x86, 0x30, 0, bytes(8), 0x222, 819)
    h.SegmentLength = 36
    data = h.pack()
    # SegmentLength, ConversationId, RequestId big-endian even in a little-endian segment
    assert data[4:16] == bytes.fromhex("00000024 01020304 05060708")
    assert data[16:20] == bytes([2, 0x86, 0x30, 0])
    assert data[28:32] == struct.pack("<I", 0x222) and data[32:34] == struct.pack("<H", 819)
    h2 = h.copy(ByteOrder=1)
    assert h2.pack()[28:32] == struct.pack(">I", 0x222)
    assert h.header_length == 36 and h.order == "<" and h2.order == ">"
    assert fap.SegmentHeader(StructId="TSH ").header_length == 28


@pytest.mark.parametrize("sid, code", [
    (b"XXXX", fap.PROTOCOL_SEGMENT_ERROR),
    (b"tsh ", fap.PROTOCOL_SEGMENT_ERROR),
    (b"\xe3\xe2\xc8\x40", fap.CCSID_NOT_SUPPORTED),
    (b"\xe3\xe2\xc8\xd4", fap.CCSID_NOT_SUPPORTED),
])
def test_bad_struct_id(sid, code):
    data = sid + bytes.fromhex("0000001c") + bytes(20)
    with pytest.raises(CodecError) as ei:
        fap.decode_segment(data)
    assert_status(ei, code)


@pytest.mark.parametrize("bo", [0, 3, 0xFF])
def test_bad_byte_order(bo):
    data = bytearray(fap.encode_segment(fap.HEARTBEAT, struct_id="TSH "))
    data[8] = bo
    with pytest.raises(CodecError) as ei:
        fap.decode_segment(bytes(data))
    assert_status(ei, fap.ENCODING_INVALID)


@pytest.mark.parametrize("length", [0, 27, 35, 1000])
def test_segment_length_mismatch(length):
    data = bytearray(fap.encode_segment(fap.HEARTBEAT, conversation_id=1))
    data[4:8] = length.to_bytes(4, "big")
    with pytest.raises(CodecError) as ei:
        fap.decode_segment(bytes(data))
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)


def test_check_segment_type():
    fap.check_segment_type(fap.MQPUT_REPLY)
    with pytest.raises(CodecError) as ei:
        fap.check_segment_type(0x7F)
    assert_status(ei, fap.PROTOCOL_SEGMENT_TYPE)


def test_name_tables():
    assert fap.segment_type_name(0x91) == "MQCONN_REPLY"
    assert fap.segment_type_name(fap.XA_COMPLETE | fap.REPLY) == "XA_COMPLETE_REPLY"
    assert fap.flag_names(0x94, fap.INI_ERR_FLAGS1_NAMES) == [
        "MAX_TRANSMISSION_SIZE", "MAX_MSG_SIZE", "HEARTBEAT_INTERVAL"]
    assert fap.flag_names(0x31, fap.CONTROL_FLAGS1_NAMES) == ["CONFIRM_REQUEST", "FIRST", "LAST"]
    assert fap.STATUS_NAMES[0xF3] == "NEGOTIATION_FAILED"
    assert fap.SOCKET_ACTION_NAMES[8] == "ACCEPT_CONV"
    assert fap.NOTIFICATION_NAMES[11] == "CHECK_MSG"
    for code, text in fap.STATUS_NAMES.items():
        assert errors.status_name(code) == text


# ----------------------------------------------------------------------------------- ID

LEVEL_LENGTH = {1: 44, 2: 44, 3: 48, 4: 128, 5: 128, 6: 128, 7: 128, 8: 128, 9: 160, 10: 208,
                11: 208, 12: 208, 13: 240, 14: 240, 15: 240, 16: 240}


@st.composite
def initial_data(draw, level=None):
    lvl = draw(st.integers(1, 16)) if level is None else level
    n = fap.id_length_for_fap(lvl)
    d = fap.InitialData(FapLevel=lvl)
    present = {name for name, off, fmt in fap._ID_LAYOUT if off + struct.calcsize(">" + fmt) <= n}
    gens = {
        "CapFlags1": u8, "ECapFlags1": u8, "IniErrFlags1": u8, "Reserved1": u16,
        "MaxMsgsPerBatch": u16, "MaxTransmissionSize": u32, "MaxMessageSize": u32,
        "SequenceWrapValue": u32, "ChannelName": name(20), "CapFlags2": u8, "ECapFlags2": u8,
        "CCSID": u16, "QMgrName": name(48), "HeartbeatInterval": u32, "EFLLength": u16,
        "IniErrFlags2": u8, "Reserved2": u8, "HdrCompList": raw(2), "MsgCompList": raw(16),
        "Reserved3": u16, "SSLKeyResetCount": u32, "SharingConversations": u32, "CapFlags3": u8,
        "ECapFlags3": u8, "Reserved4": u16, "ProcessId": u32, "ThreadId": u32, "TraceId": u32,
        "ProductId": name(12), "QMgrId": name(48), "PAL": st.lists(u16, min_size=10, max_size=10),
        "R": raw(12),
    }
    for field, gen in gens.items():
        if field in present:
            setattr(d, field, draw(gen))
    return d


@pytest.mark.parametrize("level", range(1, 17))
def test_id_length_per_level(level):
    assert fap.id_length_for_fap(level) == LEVEL_LENGTH[level]
    assert len(fap.InitialData(FapLevel=level).pack(">")) == LEVEL_LENGTH[level]


@SETTINGS
@given(initial_data(), ORDERS)
def test_id_roundtrip(d, order):
    data = roundtrip(fap.InitialData, d, order)
    assert len(data) == fap.id_length_for_fap(d.FapLevel)
    assert data[:4] == b"ID  "


@pytest.mark.parametrize("level", range(1, 17))
def test_id_roundtrip_every_level(level):
    @settings(max_examples=15, deadline=None)
    @given(initial_data(level), ORDERS)
    def check(d, order):
        roundtrip(fap.InitialData, d, order)
    check()


def test_id_parses_by_length_not_level():
    # FAP 13 claimed but only 208 bytes: the fields present are decoded, the rest default
    d = fap.InitialData(FapLevel=13, QMgrId="QMID", SharingConversations=10, PAL=[1] * 10)
    data = d.pack("<", length=208)
    back, _ = fap.InitialData.unpack(data, 0, "<")
    assert back.QMgrId == "QMID" and back.SharingConversations == 10 and back.PAL == [0] * 10
    # a partial field and bytes beyond 240 are kept raw
    back, _ = fap.InitialData.unpack(data[:210], 0, "<")
    assert back.Trailer == data[208:210]
    assert back.pack("<", length=208) == data[:210]
    long = fap.InitialData(FapLevel=13).pack(">") + b"extra"
    back, _ = fap.InitialData.unpack(long, 0, ">")
    assert back.Trailer == b"extra" and back.pack(">") == long


def test_id_errors():
    with pytest.raises(CodecError) as ei:
        fap.InitialData.unpack(b"ID  " + bytes(39))
    assert_status(ei, fap.PROTOCOL_ID_ERROR)
    with pytest.raises(CodecError) as ei:
        fap.InitialData.unpack(b"XD  " + bytes(236))
    assert_status(ei, fap.PROTOCOL_ID_ERROR)


# ----------------------------------------------------------------------------------- UID / CAUT

uids = st.one_of(
    st.builds(fap.UserIdData, name(12), name(12)),
    st.builds(fap.UserIdData, name(12), name(12), name(64), raw(40)),
)


@SETTINGS
@given(uids, ORDERS)
def test_uid_roundtrip(u, order):
    data = roundtrip(fap.UserIdData, u, order)
    assert len(data) in (28, 132)


def test_uid_layout():
    u = fap.UserIdData("app", "", "longuser", bytes(40))
    data = u.pack()
    assert data[:4] == b"UID " and data[4:16] == b"app".ljust(12) and data[28:36] == b"longuser"
    with pytest.raises(CodecError) as ei:
        fap.UserIdData.unpack(data[:27])
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)


cauts = st.builds(fap.ConAuthInfo, i32, i32, i32, name(40), st.binary(max_size=40),
                  st.binary(max_size=8))


@SETTINGS
@given(cauts, ORDERS)
def test_caut_roundtrip(c, order):
    data = roundtrip(fap.ConAuthInfo, c, order)
    assert data[:4] == b"CAUT"
    assert struct.unpack_from(order + "II", data, 16) == (c.UserIdLength, c.PasswordLength)


@pytest.mark.parametrize("ulen, plen", [(100, 0), (0, 100), (5, 4), (2**32 - 1, 1)])
def test_caut_lying_lengths(ulen, plen):
    data = b"CAUT" + struct.pack(">iiiII", 1, 64, 64, ulen, plen) + b"userpass"
    with pytest.raises(CodecError) as ei:
        fap.ConAuthInfo.unpack(data, 0, ">")
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)


# ----------------------------------------------------------------------------------- STATUS

statuses = st.builds(lambda rc, v, t: fap.StatusData(ReturnCode=rc, Value=v, Trailer=t),
                     u32, st.none() | u32, st.binary(max_size=8).filter(lambda b: len(b) % 4 == 0))


@SETTINGS
@given(statuses, ORDERS)
def test_status_roundtrip(s, order):
    data = s.pack(order)
    back, _ = fap.StatusData.unpack(data, 0, order)
    assert back.pack(order) == data
    assert back.ReturnCode == s.ReturnCode and back.ErrorDataLength == len(data)


@pytest.mark.parametrize("edl", [0, 7, 13, 1000])
def test_status_lying_error_data_length(edl):
    with pytest.raises(CodecError) as ei:
        fap.StatusData.unpack(struct.pack(">II", edl, 1) + bytes(4), 0, ">")
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)


def test_status_builder():
    data = fap.status_segment(fap.PROTOCOL_LENGTH_ERROR)
    seg = fap.decode_segment(data)
    assert seg.header.StructId == "TSH " and seg.header.SegmentType == fap.STATUS_DATA
    assert seg.header.ControlFlags1 == fap.CF1_ERROR | fap.CF1_CLOSE_CHANNEL
    assert seg.header.ByteOrder == 2 and seg.header.Encoding == 546 and len(data) == 36
    body = seg.decode_body()
    assert (body.ErrorDataLength, body.ReturnCode, body.Value) == (8, 11, None)
    data = fap.status_segment(fap.NO_CHANNEL, struct_id="TSHM", conversation_id=5, byte_order=1,
                              value=7)
    seg = fap.decode_segment(data)
    assert seg.header.ConversationId == 5
    assert seg.decode_body() == fap.StatusData(ErrorDataLength=12, ReturnCode=1, Value=7)
    # header-only STATUS (client close) has no body
    assert fap.decode_body(fap.decode_segment(fap.encode_segment(
        fap.STATUS_DATA, struct_id="TSH ", control_flags1=fap.CF1_CLOSE_CHANNEL))) is None


# ----------------------------------------------------------------------------------- API header

apis = st.builds(fap.ApiHeader, u32, i32, i32, i32)


@SETTINGS
@given(apis, ORDERS)
def test_api_header_roundtrip(a, order):
    data = roundtrip(fap.ApiHeader, a, order)
    assert len(data) == 16
    assert data[:4] == a.CallLength.to_bytes(4, "big")  # big-endian in either order
    assert struct.unpack_from(order + "iii", data, 4) == (a.CompCode, a.Reason, a.Hobj)


def test_api_reply_builder():
    req = fap.SegmentHeader("TSHM", 0, 7, 0, 1, fap.MQCLOSE, 0x30)
    data = fap.api_reply(req, hobj=-1)
    seg = fap.decode_segment(data)
    assert len(data) == 52
    assert (seg.header.SegmentType, seg.header.ConversationId, seg.header.ControlFlags1) == (
        fap.MQCLOSE_REPLY, 7, 0x30)
    call = seg.decode_body()
    assert call.ApiHeader == fap.ApiHeader(44, 0, 0, -1)
    js = fap.to_json(call)
    assert js["ApiHeader"]["CompCode_name"] == "MQCC_OK"


def test_api_reply_segments_split():
    req = fap.SegmentHeader("TSHM", 0, 3, 0, 2, fap.MQGET, 0x30)
    body = bytes(range(256)) * 40
    parts = fap.api_reply_segments(req, body, 1000)
    assert len(parts) > 1 and all(len(p) <= 1000 for p in parts)
    from qmlite.pcf.framer import Reassembler
    r = Reassembler()
    out = [r.add(fap.decode_segment(p)) for p in parts]
    assert out[:-1] == [None] * (len(parts) - 1)
    call = out[-1].decode_body()
    assert call.Data == body and call.ApiHeader.CallLength == 36 + 16 + len(body) - 8


# ----------------------------------------------------------------------------------- MQCONN, FCNO

fcnos = st.one_of(
    st.builds(fap.Fcno, st.sampled_from([1, 2]), i32, raw(128)),
    st.builds(fap.Fcno, st.just(3), i32, raw(128), raw(128)),
    st.builds(fap.Fcno, st.just(4), i32, raw(128), raw(128), i32, i32, i32),
)


@SETTINGS
@given(fcnos, ORDERS)
def test_fcno_roundtrip(f, order):
    data = roundtrip(fap.Fcno, f, order)
    assert len(data) == {1: 140, 2: 140, 3: 268, 4: 280}[f.Version]


@st.composite
def mqconns(draw):
    c = fap.MQConnBody(draw(name(48)), draw(name(28)), draw(i32), draw(raw(32)), draw(i32),
                       draw(i32))
    if draw(st.booleans()):
        c.Fcno = draw(fcnos)
        if draw(st.booleans()):
            c.ReconnectionId, c.ReconnectionQmId = draw(raw(24)), draw(raw(48))
            c.Trailer = draw(st.binary(max_size=30))
        else:
            c.Trailer = draw(st.binary(max_size=71))
    return c


@SETTINGS
@given(mqconns(), ORDERS)
def test_mqconn_roundtrip(c, order):
    roundtrip(fap.MQConnBody, c, order)


def test_mqconn_unknown_fcno_version_kept_raw():
    fixed = fap.MQConnBody("QM1", "app", 6, bytes(32), 3, 0).pack("<")
    tail = b"FCNO" + struct.pack("<ii", 9, 0) + bytes(300)
    c, _ = fap.MQConnBody.unpack(fixed + tail, 0, "<")
    assert c.Fcno is None and c.Trailer == tail
    with pytest.raises(CodecError) as ei:
        fap.MQConnBody.unpack(fixed[:119], 0, "<")
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)
    with pytest.raises(CodecError) as ei:  # FCNO v3 claims 268 bytes, 140 present
        fap.MQConnBody.unpack(fixed + b"FCNO" + struct.pack("<ii", 3, 0) + bytes(128), 0, "<")
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)


# ----------------------------------------------------------------------------------- SOCKET_ACTION

socket_actions = st.one_of(
    st.builds(fap.SocketAction, u32, u32, i32, i32, i32),
    st.builds(fap.SocketAction, u32, u32, i32, i32, i32, name(48), name(48)),
)


@SETTINGS
@given(socket_actions, ORDERS)
def test_socket_action_roundtrip(s, order):
    data = roundtrip(fap.SocketAction, s, order)
    assert len(data) in (20, 116)


# ----------------------------------------------------------------------------------- REQUEST_MSGS

@st.composite
def request_msgs(draw):
    r = fap.RequestMsgs(*[draw(i32) for _ in range(10)])
    if draw(st.booleans()) or r.RequestFlags & fap.RMF_SET_SELECTION:
        r.SelectionIndex, r.MQMDVersion = draw(u16), draw(u16)
        r.CodedCharSetId, r.Encoding, r.MsgSeqNumber, r.Offset = (draw(i32) for _ in range(4))
        r.MatchOptions = draw(i32)
        for bit, field, size in fap._RM_MATCH:
            if r.MatchOptions & bit:
                setattr(r, field, draw(raw(size)))
        r.Trailer = draw(st.binary(max_size=12))
    return r


@SETTINGS
@given(request_msgs(), ORDERS)
def test_request_msgs_roundtrip(r, order):
    data = roundtrip(fap.RequestMsgs, r, order)
    assert len(data) >= 40


def test_request_msgs_layout():
    r = fap.RequestMsgs(1, 4, 0, 0x10000, 0x10000, 0x4001, 5000, 0, fap.RMF_SET_SELECTION, 1,
                        1, 2, 1208, 0x222, 1, 0, 0x3, b"M" * 24, b"C" * 24)
    data = r.pack("<")
    assert len(data) == 64 + 48
    assert data[64:88] == b"M" * 24 and data[88:112] == b"C" * 24
    with pytest.raises(CodecError) as ei:  # MatchOptions promise a CorrelId that is not there
        fap.RequestMsgs.unpack(data[:100], 0, "<")
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)
    short = fap.RequestMsgs(RequestFlags=0).pack(">")
    assert len(short) == 40
    assert fap.RequestMsgs.unpack(short, 0, ">")[0].MatchOptions is None


# ----------------------------------------------------------------------------------- ASYNC_MESSAGE

async_first = st.builds(
    lambda head, reason, tot, act, tok, status, qname: fap.AsyncMessageHeader(
        *head, SegmentIndex=0, Reason=reason, TotalMsgLength=tot, ActualMsgLength=act,
        MsgToken=tok, Status=status, ResolvedQName=qname),
    st.tuples(i32, i32, i32, i32, i32), i32, i32, i32, raw(16), u16, name(48))
async_later = st.builds(
    lambda head, idx, sel: fap.AsyncMessageHeader(*head, idx, sel, None, None, None, None, None,
                                                  None, None),
    st.tuples(i32, i32, i32, i32, i32), st.integers(1, 0xFFFF), u16)


@SETTINGS
@given(st.one_of(async_first, async_later), ORDERS)
def test_async_header_roundtrip(a, order):
    data = roundtrip(fap.AsyncMessageHeader, a, order)
    assert len(data) == a.length and len(data) % 4 == 0
    assert len(data) == (24 if a.SegmentIndex else 52 + ((3 + a.ResolvedQNameLength + 3) & ~3))


def test_async_header_padding_and_lying_qname_length():
    a = fap.AsyncMessageHeader(1, 4, 1, 1, 277, 0, 1, 0, 277, 277, bytes(16), 1,
                               ResolvedQName="Q")
    data = a.pack("<")
    assert len(data) == 56 and data[54] == 1 and data[55:56] == b"Q"
    bad = bytearray(data)
    bad[54] = 200
    with pytest.raises(CodecError) as ei:
        fap.AsyncMessageHeader.unpack(bytes(bad), 0, "<")
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)
    # a later segment forced to be read as a first one, or vice versa
    later, end = fap.AsyncMessageHeader.unpack(data, 0, "<", first=False)
    assert end == 24 and later.MsgToken is None


# ----------------------------------------------------------------------------------- NOTIFICATION

@SETTINGS
@given(st.builds(fap.Notification, i32, i32, i32, i32), ORDERS)
def test_notification_roundtrip(n, order):
    assert len(roundtrip(fap.Notification, n, order)) == 16


# ----------------------------------------------------------------------------------- heartbeat / JSON

def test_heartbeat_builders():
    req = fap.decode_segment(fap.heartbeat())
    assert req.header.StructId == "TSHC" and req.header.SegmentType == fap.HEARTBEAT
    assert req.header.ControlFlags1 == fap.CF1_CONFIRM_REQUEST and req.body == b""
    resp = fap.decode_segment(fap.heartbeat_response(req.header))
    assert resp.header.ControlFlags1 == 0 and resp.header.StructId == "TSHC"
    plain = fap.decode_segment(fap.heartbeat(struct_id="TSH ", byte_order=1))
    assert len(fap.heartbeat(struct_id="TSH ")) == 28 and plain.header.Encoding == 0x111
    assert fap.decode_body(plain) is None


@pytest.mark.parametrize("level, request_flags", [(8, 0), (9, 0), (10, fap.CF1_CONFIRM_REQUEST),
                                                  (13, fap.CF1_CONFIRM_REQUEST)])
def test_heartbeat_flag_sense_turns_at_fap_10(level, request_flags):
    reply_flags = request_flags ^ fap.CF1_CONFIRM_REQUEST
    assert fap.heartbeat_request_flags(level) == request_flags
    assert fap.heartbeat_reply_flags(level) == reply_flags
    assert fap.is_heartbeat_request(request_flags | fap.CF1_FIRST | fap.CF1_LAST, level)
    assert not fap.is_heartbeat_request(reply_flags, level)
    req = fap.decode_segment(fap.heartbeat(fap_level=level))
    assert req.header.ControlFlags1 == request_flags
    assert fap.decode_segment(fap.heartbeat_response(req.header, fap_level=level)).header.ControlFlags1 == reply_flags


def test_json_names():
    seg = fap.decode_segment(fap.status_segment(fap.PROTOCOL_SEGMENT_TYPE))
    js = fap.to_json(seg)
    assert js["header"]["SegmentType_name"] == "STATUS_DATA"
    assert js["header"]["ControlFlags1_name"] == ["ERROR", "CLOSE_CHANNEL"]
    keys = list(js["header"])
    assert keys.index("SegmentType_name") == keys.index("SegmentType") + 1
    body = fap.to_json(seg.decode_body())
    assert body["ReturnCode_name"] == "PROTOCOL_SEGMENT_TYPE"


# ----------------------------------------------------------------------------------- mutation fuzz

def _samples():
    sa = fap.encode_segment(fap.SOCKET_ACTION, fap.SocketAction(3, 0, 8, 21, 61).pack("<"),
                            conversation_id=3, control_flags1=0)
    uid = fap.encode_segment(fap.USERID_DATA, fap.UserIdData("app", "", "app", bytes(40)).pack("<"))
    caut = fap.encode_segment(fap.CONAUTH_INFO,
                              fap.ConAuthInfo(1, 1024, 256, "app", b"secret").pack("<"))
    idseg = fap.encode_segment(fap.INITIAL_DATA, fap.InitialData(FapLevel=13).pack(">"),
                               struct_id="TSH ", byte_order=1)
    conn = fap.encode_segment(fap.MQCONN, fap.ApiHeader(400).pack("<") + fap.MQConnBody(
        "QM1", "app", 28, bytes(32), 3, 0, fap.Fcno(2), bytes(24), bytes(48)).pack("<"))
    am = fap.encode_segment(fap.ASYNC_MESSAGE, fap.AsyncMessageHeader(
        1, 4, 1, 1, 10, 0, 0, 0, 10, 10, bytes(16), 1, ResolvedQName="DEV.QUEUE.1").pack("<")
        + b"MD  " + bytes(20), request_id=1)
    rm = fap.encode_segment(fap.REQUEST_MSGS, fap.RequestMsgs(
        1, 4, 0, 1, 1, 0, 0, 0, 0x10, 0, 0, 2, 0, 0, 0, 0, 0x23, bytes(24), bytes(24), None,
        bytes(16)).pack("<"))
    st_ = fap.status_segment(1, value=3)
    notif = fap.encode_segment(fap.NOTIFICATION, fap.Notification(1, 4, 11, 0).pack("<"))
    return [sa, uid, caut, idseg, conn, am, rm, st_, notif]


SAMPLES = _samples()


def _decode_all(data):
    seg = fap.decode_segment(data)
    body = fap.decode_body(seg)
    for first in (True, False):
        fap.decode_body(seg, first=first)
    if body is not None:
        fap.encode_body(body, seg.order)
    for cls in (fap.InitialData, fap.UserIdData, fap.ConAuthInfo, fap.StatusData, fap.ApiHeader,
                fap.MQConnBody, fap.Fcno, fap.SocketAction, fap.RequestMsgs,
                fap.AsyncMessageHeader, fap.Notification):
        for order in (">", "<"):
            try:
                cls.unpack(seg.body, 0, order)
            except CodecError:
                pass


def _only_codec_error(data):
    try:
        _decode_all(data)
    except CodecError as exc:
        assert exc.family == errors.STATUS


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SAMPLES), st.lists(st.tuples(st.integers(0, 10**6), u8), max_size=6),
       st.integers(0, 10**6), st.binary(max_size=40))
def test_mutations_raise_only_codec_error(data, flips, cut, junk):
    buf = bytearray(data)
    for pos, val in flips:
        buf[pos % len(buf)] = val
    _only_codec_error(bytes(buf))
    _only_codec_error(bytes(buf[: cut % (len(buf) + 1)]))
    _only_codec_error(bytes(buf) + junk)
    # keep SegmentLength consistent so the body parsers see the damage
    grown = bytearray(buf + junk)
    grown[4:8] = len(grown).to_bytes(4, "big")
    _only_codec_error(bytes(grown))
    shrunk = bytearray(buf[: max(36, cut % (len(buf) + 1))])
    shrunk[4:8] = len(shrunk).to_bytes(4, "big")
    _only_codec_error(bytes(shrunk))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SAMPLES), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2, 3, 4]))
def test_lying_length_fields(data, value, which):
    """Overwrite the length field of each body type with an arbitrary value."""
    seg = fap.decode_segment(data)
    hl = seg.header.header_length
    t = seg.header.SegmentType
    buf = bytearray(data)
    o = seg.order
    if which == 0:
        buf[4:8] = value.to_bytes(4, "big")  # SegmentLength
    elif t == fap.STATUS_DATA:
        buf[hl:hl + 4] = struct.pack(o + "I", value)  # ErrorDataLength
    elif t == fap.CONAUTH_INFO:
        pos = hl + (16 if which % 2 else 20)  # UserIdLength / PasswordLength
        buf[pos:pos + 4] = struct.pack(o + "I", value)
    elif t == fap.ASYNC_MESSAGE:
        buf[hl + 54] = value & 0xFF  # ResolvedQNameLength
    elif t == fap.MQCONN:
        buf[hl + 16 + 124:hl + 16 + 128] = struct.pack(o + "I", value & 0x7 or 9)  # FCNO Version
    else:
        buf[hl + (value % len(seg.body))] ^= 0xFF
    _only_codec_error(bytes(buf))
