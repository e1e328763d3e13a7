"""MQI call bodies (pcf/calls.py): golden fixtures, round trips, lying counts and lengths, total decoding."""

from __future__ import annotations

import struct
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import calls
from qmlite.pcf import constants as C
from qmlite.pcf.calls import (
    REPLY_BODIES, REQUEST_BODIES, EmptyBody, MQCloseRequest, MQGetReply, MQGetRequest, MQInqReply,
    MQInqRequest, MQOpenReply, MQOpenRequest, MQPut1Reply, MQPut1Request, MQPutReply, MQPutRequest,
    MQSubReply, MQSubRequest, MQSubRqReply, MQSubRqRequest,
)
from qmlite.pcf.errors import MQRC, CodecError
from qmlite.pcf.jsonview import to_json
from qmlite.pcf.mqi import FOPA, MQCHARV, MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO

from .test_mqi import I32, ORDERS, mutated, structure
from tests.support.fixtures import FIXTURES

ASSEMBLED = FIXTURES / "real-server" / "emulator-assembled"
BODY = 36 + 16  # TSHM + API header

# Bodies nest MQMD/MQOD/MQSD draws; fewer examples per body class keep the file near 10 s.
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def segment(name: str) -> tuple[bytes, str, int]:
    raw = (ASSEMBLED / name).read_bytes()
    assert raw[:4] == b"TSHM" and len(raw) == struct.unpack_from(">I", raw, 4)[0]
    return raw, "<" if raw[16] == 2 else ">", raw[17]


# --------------------------------------------------------------------------------------------------
# Golden fixtures
# --------------------------------------------------------------------------------------------------


def test_mqopen_reply_fixture():
    raw, order, seg_type = segment("mqopen-reply.bin")
    assert REPLY_BODIES[seg_type] is MQOpenReply
    body, end = MQOpenReply.unpack(raw, BODY, order)
    assert end == len(raw)
    od = body.ObjDesc
    assert (od.Version, od.ObjectType, od.DynamicQName, od.KnownDestCount) == (2, C.MQOT_Q_MGR, "AMQ.*", 1)
    assert od.ObjectName == od.ObjectQMgrName == od.AlternateUserId == ""
    assert body.Options == 0x2020 == C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING
    assert body.Fopa == FOPA(2, 84, -1, -1, -1, -1, "", 84, 0)
    assert body.Trailer == b""
    assert body.pack(order) == raw[BODY:]
    assert calls.unpack_body(seg_type, raw, BODY, order) == body
    view = to_json(body)
    assert view["struct"] == "MQOPEN_REPLY" and view["ObjDesc"]["ObjectType_name"] == "MQOT_Q_MGR"


def test_mqinq_reply_fixture():
    raw, order, seg_type = segment("mqinq-reply.bin")
    assert REPLY_BODIES[seg_type] is MQInqReply
    body, end = MQInqReply.unpack(raw, BODY, order)
    assert end == len(raw)
    assert body.Selectors == [C.MQIA_COMMAND_LEVEL, C.MQIA_PLATFORM, C.MQIA_CODED_CHAR_SET_ID,
                              C.MQCA_Q_MGR_NAME, C.MQCA_Q_MGR_IDENTIFIER, C.MQCA_DEAD_LETTER_Q_NAME]
    assert body.IntAttrs == [912, C.MQPL_UNIX, 819]
    assert len(body.CharAttrs) == 144
    values = [body.CharAttrs[i:i + 48].rstrip() for i in range(0, 144, 48)]
    assert values == ["QM1", "QM1_2019-12-05_11.17.01", "DEV.DEAD.LETTER.QUEUE"]
    assert body.pack(order) == raw[BODY:]


def test_empty_replies():
    for name in ("mqclose-reply.bin", "mqcmit-reply.bin"):
        raw, order, seg_type = segment(name)
        assert REPLY_BODIES[seg_type] is EmptyBody
        body, end = EmptyBody.unpack(raw, BODY, order)
        assert end == BODY == len(raw) and body.pack(order) == b""


def test_body_maps():
    assert set(REQUEST_BODIES) == {0x83, 0x84, 0x85, 0x86, 0x87, 0x89, 0x8A, 0x8B, 0x8E, 0x8F}
    assert set(REPLY_BODIES) == {t | 0x10 for t in REQUEST_BODIES}
    assert REQUEST_BODIES[0x86] is MQPutRequest and REPLY_BODIES[0x96] is MQPutReply
    assert calls.unpack_body(0x81, b"") is None  # MQCONN is decoded elsewhere


# --------------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------------


def test_put_request_shape():
    req = MQPutRequest(MQMD(Format="MQADMIN"), MQPMO(Version=2, Options=C.MQPMO_NEW_MSG_ID), b"hello")
    for order in "<>":
        raw = req.pack(order)
        assert len(raw) == 324 + 152 + 4 + 5
        assert struct.unpack_from(order + "i", raw, 476)[0] == 5 and raw[480:] == b"hello"
        back, end = MQPutRequest.unpack(raw, 0, order)
        assert back == req and end == len(raw)
        assert isinstance(back.Data, bytes)
        # trailing bytes after the declared data are not data
        assert MQPutRequest.unpack(raw + b"\0\0\0", 0, order)[0].Data == b"hello"


def test_put_reply_data_length_optional():
    rep = MQPutReply(MQMD(MsgId=b"AMQ QM1".ljust(16) + bytes(8)), MQPMO(Version=2, KnownDestCount=1), 1024)
    raw = rep.pack("<")
    assert len(raw) == 324 + 152 + 4
    assert MQPutReply.unpack(raw, 0, "<") == (rep, len(raw))
    bare = MQPutReply(rep.MsgDesc, rep.PutMsgOpts, None)
    assert MQPutReply.unpack(bare.pack("<"), 0, "<")[0] == bare
    with pytest.raises(CodecError):
        MQPutReply.unpack(raw[:-2], 0, "<")
    with pytest.raises(CodecError):
        MQPutReply.unpack(MQPutReply(rep.MsgDesc, rep.PutMsgOpts, -5).pack("<"), 0, "<")


def test_get_reply_truncated_message():
    # reason 2080: DataLength is the full length, only BufferLength bytes travel
    rep = MQGetReply(MQMD(), MQGMO(), b"x" * 10, DataLength=5000)
    raw = rep.pack(">")
    assert struct.unpack_from(">i", raw, 324 + 72)[0] == 5000
    back, end = MQGetReply.unpack(raw, 0, ">")
    assert back == rep and end == len(raw)
    full = MQGetReply(MQMD(), MQGMO(), b"abc")
    assert MQGetReply.unpack(full.pack("<"), 0, "<")[0] == full
    with pytest.raises(ValueError):
        MQGetReply(Data=b"abc", DataLength=2).pack()


def test_open_request_with_strings_then_options():
    od = MQOD(Version=4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV("a/b/c", 5, 1208),
              SelectionString=MQCHARV("x = 1", 5, 819), ResObjectString=MQCHARV("", 1024, 1208))
    req = MQOpenRequest(od, C.MQOO_OUTPUT, FOPA(Version=1, Length=28), b"FCMI\x01\x00\x00\x00")
    raw = req.pack("<")
    # OD 400 + "a/b/c" padded to 8 + "x = 1" padded to 8, then Options
    assert struct.unpack_from("<i", raw, 416)[0] == C.MQOO_OUTPUT
    assert raw[420:424] == b"FOPA"
    back, end = MQOpenRequest.unpack(raw, 0, "<")
    assert back == req and end == len(raw)
    # Options are found after the highest string end even when strings are placed out of order
    fixed = bytearray(MQOD(Version=4).pack(">"))
    fixed += b"SEL\0" + b"TOPIC\0\0\0"
    struct.pack_into(">5i", fixed, 336, 0, 404, 0, 5, 819)
    struct.pack_into(">5i", fixed, 356, 0, 400, 0, 3, 819)
    body = bytes(fixed) + struct.pack(">i", 0x2010)
    back, _ = MQOpenRequest.unpack(body, 0, ">")
    assert back.ObjDesc.ObjectString.VSString == "TOPIC" and back.ObjDesc.SelectionString.VSString == "SEL"
    assert back.Options == 0x2010 and back.Fopa is None and back.Trailer == b""


def test_open_request_without_fopa_and_missing_options():
    od = MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE")
    req = MQOpenRequest(od, 0x10)
    raw = req.pack("<")
    assert len(raw) == 172
    assert MQOpenRequest.unpack(raw, 0, "<") == (req, 172)
    with pytest.raises(CodecError) as exc:
        MQOpenRequest.unpack(raw[:170], 0, "<")
    assert exc.value.reason == C.MQRC_OPTIONS_ERROR
    with pytest.raises(CodecError) as exc:  # a FOPA that is cut short
        MQOpenRequest.unpack(raw + FOPA().pack("<")[:40], 0, "<")
    assert exc.value.family == MQRC


def test_close_subrq_sub_shapes():
    assert MQCloseRequest(C.MQCO_DELETE).pack(">") == b"\0\0\0\x01"
    assert MQCloseRequest.unpack(b"\0\0\0\x02", 0, ">") == (MQCloseRequest(2), 4)
    with pytest.raises(CodecError) as exc:
        MQCloseRequest.unpack(b"\0\0", 0, "<")
    assert exc.value.reason == C.MQRC_OPTIONS_ERROR

    rq = MQSubRqRequest(C.MQSR_ACTION_PUBLICATION, MQSRO(Options=0x2000))
    raw = rq.pack("<")
    assert raw == struct.pack("<i4s3i", 1, b"SRO ", 1, 0x2000, 0)
    assert MQSubRqRequest.unpack(raw, 0, "<") == (rq, 20)
    rep = MQSubRqReply(1, MQSRO(NumPubs=3))
    assert MQSubRqReply.unpack(rep.pack(">"), 0, ">") == (rep, 20)

    sd = MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED, ObjectString=MQCHARV("price/fruit", 11, 1208),
              SubName=MQCHARV("mysub", -1), ResObjectString=MQCHARV("", 256))
    sub = MQSubRequest(0, 0, sd)
    raw = sub.pack("<")
    assert raw[8:12] == b"SD  " and len(raw) == 8 + 312 + 12 + 8
    assert MQSubRequest.unpack(raw, 0, "<") == (sub, len(raw))
    reply = MQSubReply(0x1234, C.MQREADA_NO, sd)
    assert MQSubReply.unpack(reply.pack(">"), 0, ">") == (reply, len(raw))
    for cls in (MQSubRequest, MQSubReply):
        with pytest.raises(CodecError) as exc:
            cls.unpack(raw[:6], 0, "<")
        assert exc.value.reason == C.MQRC_SD_ERROR


# --------------------------------------------------------------------------------------------------
# Lying counts and lengths
# --------------------------------------------------------------------------------------------------

LIES = [-1, -(2**31), 2**31 - 1, 2**30, 1_000_000]


@pytest.mark.parametrize("order", ["<", ">"])
def test_data_length_lies(order):
    raw = bytearray(MQPutRequest(MQMD(), MQPMO(), b"abcd").pack(order))
    pos = 324 + 128
    for lie in LIES + [5]:
        struct.pack_into(order + "i", raw, pos, lie)
        with pytest.raises(CodecError) as exc:
            MQPutRequest.unpack(bytes(raw), 0, order)
        assert exc.value.reason == C.MQRC_DATA_LENGTH_ERROR and exc.value.offset == pos
    with pytest.raises(CodecError) as exc:
        MQPutRequest.unpack(bytes(raw[:pos + 2]), 0, order)
    assert exc.value.reason == C.MQRC_DATA_LENGTH_ERROR
    raw1 = bytearray(MQPut1Request(MQOD(), MQMD(), MQPMO(), b"abcd").pack(order))
    struct.pack_into(order + "i", raw1, 168 + pos, 2**31 - 1)
    with pytest.raises(CodecError):
        MQPut1Request.unpack(bytes(raw1), 0, order)
    get = bytearray(MQGetRequest(MQMD(), MQGMO(), 4096).pack(order))
    struct.pack_into(order + "i", get, 324 + 72, -1)
    with pytest.raises(CodecError) as exc:
        MQGetRequest.unpack(bytes(get), 0, order)
    assert exc.value.reason == C.MQRC_BUFFER_LENGTH_ERROR
    rep = bytearray(MQGetReply(Data=b"abc").pack(order))
    struct.pack_into(order + "i", rep, 324 + 72, -3)
    with pytest.raises(CodecError) as exc:
        MQGetReply.unpack(bytes(rep), 0, order)
    assert exc.value.reason == C.MQRC_DATA_LENGTH_ERROR


@pytest.mark.parametrize("order", ["<", ">"])
def test_inq_count_lies(order):
    req = MQInqRequest([C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_NAME], 1, 48).pack(order)
    assert MQInqRequest.unpack(req, 0, order)[0].Selectors == [C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_NAME]
    reply = MQInqReply([3, 2016], [7], "Q".ljust(48)).pack(order)
    cases = [
        (req, 0, 3, C.MQRC_SELECTOR_COUNT_ERROR), (req, 0, -1, C.MQRC_SELECTOR_COUNT_ERROR),
        (req, 0, 2**31 - 1, C.MQRC_SELECTOR_COUNT_ERROR), (req, 4, -1, C.MQRC_INT_ATTR_COUNT_ERROR),
        (req, 8, -(2**31), C.MQRC_CHAR_ATTR_LENGTH_ERROR),
        (reply, 0, 2**31 - 1, C.MQRC_SELECTOR_COUNT_ERROR),
        (reply, 4, 2**31 - 1, C.MQRC_INT_ATTR_COUNT_ERROR),
        (reply, 4, 14, C.MQRC_INT_ATTR_COUNT_ERROR), (reply, 8, 49, C.MQRC_CHAR_ATTR_LENGTH_ERROR),
        (reply, 8, 2**31 - 1, C.MQRC_CHAR_ATTR_LENGTH_ERROR), (reply, 4, -2, C.MQRC_INT_ATTR_COUNT_ERROR),
    ]
    for raw, pos, lie, reason in cases:
        bad = bytearray(raw)
        struct.pack_into(order + "i", bad, pos, lie)
        cls = MQInqRequest if raw is req else MQInqReply
        data = bytes(bad)
        tracemalloc.start()
        with pytest.raises(CodecError) as exc:
            cls.unpack(data, 0, order)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 64 * 1024, peak  # rejected before building anything sized by the lie
        assert exc.value.reason == reason, (pos, lie)
    with pytest.raises(CodecError) as exc:
        MQInqRequest.unpack(req[:11], 0, order)
    assert exc.value.reason == C.MQRC_SELECTOR_COUNT_ERROR


# --------------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------------

DATA = st.binary(max_size=64)
INTS = st.lists(I32, max_size=12)
CHARATTRS = st.text(st.characters(min_codepoint=0, max_codepoint=255), max_size=100)


def _opt_fopa():
    return st.one_of(st.none(), structure(FOPA))


@st.composite
def _get_reply(draw):
    data = draw(DATA)
    length = draw(st.one_of(st.none(), st.integers(len(data) + 1, 2**31 - 1)))
    return MQGetReply(draw(structure(MQMD)), draw(structure(MQGMO)), data, length)


@st.composite
def _open(draw, cls):
    fopa = draw(_opt_fopa())
    # a trailer must not start with "FOPA" when there is no FOPA (it would be read as one)
    trailer = draw(st.binary(max_size=12).filter(lambda b: fopa is not None or not b.startswith(b"FOPA")))
    return cls(draw(structure(MQOD)), draw(I32), fopa, trailer)


BODIES = {
    MQOpenRequest: _open(MQOpenRequest),
    MQOpenReply: _open(MQOpenReply),
    MQCloseRequest: st.builds(MQCloseRequest, I32),
    MQPutRequest: st.builds(MQPutRequest, structure(MQMD), structure(MQPMO), DATA),
    MQPutReply: st.builds(MQPutReply, structure(MQMD), structure(MQPMO),
                          st.one_of(st.none(), st.integers(0, 2**31 - 1))),
    MQPut1Request: st.builds(MQPut1Request, structure(MQOD), structure(MQMD), structure(MQPMO), DATA),
    MQPut1Reply: st.builds(MQPut1Reply, structure(MQOD), structure(MQMD), structure(MQPMO),
                           st.one_of(st.none(), st.integers(0, 2**31 - 1))),
    MQGetRequest: st.builds(MQGetRequest, structure(MQMD), structure(MQGMO), st.integers(0, 2**31 - 1)),
    MQGetReply: _get_reply(),
    MQInqRequest: st.builds(MQInqRequest, INTS, st.integers(0, 2**31 - 1), st.integers(0, 2**31 - 1)),
    MQInqReply: st.builds(MQInqReply, INTS, INTS, CHARATTRS),
    MQSubRequest: st.builds(MQSubRequest, I32, I32, structure(MQSD)),
    MQSubReply: st.builds(MQSubReply, I32, I32, structure(MQSD)),
    MQSubRqRequest: st.builds(MQSubRqRequest, I32, structure(MQSRO)),
    MQSubRqReply: st.builds(MQSubRqReply, I32, structure(MQSRO)),
}


def test_every_body_class_is_covered():
    assert set(REQUEST_BODIES.values()) | set(REPLY_BODIES.values()) == set(BODIES) | {EmptyBody}


@pytest.mark.parametrize("cls", list(BODIES), ids=lambda c: c.__name__)
@SETTINGS
@given(data=st.data(), order=ORDERS)
def test_round_trip(cls, data, order):
    body = data.draw(BODIES[cls])
    raw = body.pack(order)
    back, end = cls.unpack(raw, 0, order)
    assert back == body and end == len(raw)
    assert back.pack(order) == raw
    prefixed, end2 = cls.unpack(b"\xaa" * 7 + raw, 7, order)
    assert prefixed == body and end2 == 7 + len(raw)


# --------------------------------------------------------------------------------------------------
# Mutation fuzz
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", list(BODIES), ids=lambda c: c.__name__)
@FUZZ
@given(data=st.data(), order=ORDERS)
def test_mutation_fuzz(cls, data, order):
    raw = data.draw(BODIES[cls]).pack(order)
    bad = data.draw(mutated(raw, order))
    try:
        body, end = cls.unpack(bad, 0, order)
    except CodecError as exc:
        assert exc.family == MQRC and isinstance(exc.reason, int)
    else:
        assert 0 <= end <= len(bad)


@FUZZ
@given(data=st.binary(max_size=600), order=ORDERS)
def test_random_bytes(data, order):
    for seg_type in list(REQUEST_BODIES) + list(REPLY_BODIES):
        try:
            calls.unpack_body(seg_type, data, 0, order)
        except CodecError:
            pass


# --------------------------------------------------------------------------------------------------
# Independent reading: Wireshark's MQ dissector decodes our bodies (segments framed by hand here)
# --------------------------------------------------------------------------------------------------


def _tshm(seg_type: int, body: bytes, handle: int, order: str) -> bytes:
    length = 36 + 16 + len(body)
    head = struct.pack(">4sIII", b"TSHM", length, 1, 0)
    head += bytes([2 if order == "<" else 1, seg_type, 0x30, 0]) + bytes(8)
    head += struct.pack(order + "iHH", 546 if order == "<" else 273, 819, 0)
    api = struct.pack(">I", length - 8) + struct.pack(order + "3i", 0, 0, handle)
    return head + api + body


@pytest.mark.parametrize("order", ["<", ">"])
def test_tshark_reads_our_bodies(order):
    from tests.support import wire

    msgid = bytes.fromhex("414d5120514d31202020202020202020" "6445ea5d04b59424")
    segments = [
        (True, _tshm(0x83, MQOpenRequest(MQOD(Version=2, ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"), 0x2010,
                                         FOPA(Version=1, Length=28)).pack(order), 0, order)),
        (True, _tshm(0x86, MQPutRequest(MQMD(Format="MQSTR", ReplyToQ="PYMQPCF.0001", MsgId=msgid),
                                        MQPMO(Version=2), b"\x01" * 36).pack(order), 2, order)),
        (True, _tshm(0x89, MQInqRequest([31, 2015], 1, 48).pack(order), 2, order)),
        (False, _tshm(0x95, MQGetReply(MQMD(Version=2, CorrelId=msgid), MQGMO(Version=3),
                                       b"reply data").pack(order), 4, order)),
    ]
    writer = wire.PcapWriter()
    for from_client, seg in segments:
        writer.send(seg, from_client=from_client)
    result = wire.dissect(writer, ["mq.od.objname", "mq.open.options", "mq.md.msgid", "mq.md.correlid",
                                   "mq.md.replytoq", "mq.put.length", "mq.inq.sel", "mq.fopa.length"])
    assert result.malformed == [] and result.expert == []
    assert len(result.frames) == 4
    assert result.values("mq.od.objname") == ["SYSTEM.ADMIN.COMMAND.QUEUE"]
    assert [int(v, 0) for v in result.values("mq.open.options")] == [0x2010]
    assert [int(v, 0) for v in result.values("mq.fopa.length")] == [28]
    assert [v.strip() for v in result.values("mq.md.replytoq")] == ["PYMQPCF.0001", ""]
    assert [int(v, 0) for v in result.values("mq.put.length")] == [36, 10]
    assert [int(v, 0) for v in result.values("mq.inq.sel")] == [31, 2015]
    ids = [v.replace(":", "") for v in result.values("mq.md.msgid") + result.values("mq.md.correlid")]
    assert ids.count(msgid.hex()) == 2  # the PUT's MsgId and the GET reply's CorrelId
