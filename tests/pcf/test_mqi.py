"""MQI structures (pcf/mqi.py): golden fixtures, round trips in both byte orders, total decoding."""

from __future__ import annotations

import dataclasses
import struct

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import constants as C
from qmlite.pcf import mqi
from qmlite.pcf.encoding import order_of_encoding
from qmlite.pcf.errors import MQRC, CodecError
from qmlite.pcf.jsonview import to_json
from qmlite.pcf.mqi import FOPA, MQCHARV, MQGMO, MQMD, MQOD, MQPMO, MQRFH, MQRFH2, MQSD, MQSRO
from tests.support.fixtures import FIXTURES

ASSEMBLED = FIXTURES / "real-server" / "emulator-assembled"

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def segment(name: str) -> tuple[bytes, str]:
    """A fixture segment and its byte order (TSHM byte 16: 1 big, 2 little)."""
    raw = (ASSEMBLED / name).read_bytes()
    assert raw[:4] == b"TSHM"
    return raw, "<" if raw[16] == 2 else ">"


# --------------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------------

I32 = st.integers(-(2**31), 2**31 - 1)
I64 = st.integers(-(2**63), 2**63 - 1)
BYTE = st.integers(0, 255)
ORDERS = st.sampled_from(["<", ">"])


def char(n: int) -> st.SearchStrategy[str]:
    """MQCHAR[n] values as decode_char returns them: latin-1, no trailing blank or NUL."""
    return st.text(st.characters(min_codepoint=0, max_codepoint=255), max_size=n).map(
        lambda s: s.rstrip(" \x00"))


@st.composite
def charv(draw) -> MQCHARV:
    ccsid = draw(st.sampled_from([C.MQCCSI_APPL, 0, 819, 1208, 437]))
    if ccsid == 1208:
        text = draw(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
        n = len(text.encode("utf-8"))
    elif ccsid == 437:
        text = draw(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40))
        n = len(text)
    else:
        text = draw(st.text(st.characters(min_codepoint=0, max_codepoint=255), max_size=40))
        n = len(text)
    bufsize = draw(st.one_of(st.just(mqi.MQVS_USE_VSLENGTH), st.integers(n, n + 300)))
    return MQCHARV(text, bufsize, ccsid)


CHARS = {
    MQMD: {"Format": 8, "ReplyToQ": 48, "ReplyToQMgr": 48, "UserIdentifier": 12, "ApplIdentityData": 32,
           "PutApplName": 28, "PutDate": 8, "PutTime": 8, "ApplOriginData": 4},
    MQOD: {"ObjectName": 48, "ObjectQMgrName": 48, "DynamicQName": 48, "AlternateUserId": 12,
           "ResolvedQName": 48, "ResolvedQMgrName": 48},
    MQPMO: {"ResolvedQName": 48, "ResolvedQMgrName": 48},
    MQGMO: {"ResolvedQName": 48},
    MQSD: {"ObjectName": 48, "AlternateUserId": 12, "PubApplIdentityData": 32},
    FOPA: {"PolicyErrorQueue": 48},
    MQSRO: {},
}
BINS = {
    MQMD: {"MsgId": 24, "CorrelId": 24, "AccountingToken": 32, "GroupId": 24},
    MQOD: {"AlternateSecurityId": 40},
    MQGMO: {"MsgToken": 16},
    MQSD: {"AlternateSecurityId": 40, "SubCorrelId": 24, "PubAccountingToken": 32},
}
INT64 = {"OriginalMsgHandle", "NewMsgHandle", "MsgHandle"}
BYTES1 = {"GroupStatus", "SegmentStatus", "Segmentation", "Reserved1"}
# Number of dataclass fields present in each version (fields after that are not on the wire).
VERSION_FIELDS = {
    MQMD: {1: 23, 2: 28},
    MQOD: {1: 6, 2: 14, 3: 17, 4: 21},
    MQPMO: {1: 9, 2: 15, 3: 19},
    MQGMO: {1: 6, 2: 11, 3: 13, 4: 15},
    MQSD: {1: 16},
    MQSRO: {1: 3},
    FOPA: {1: 6, 2: 9},
}
SIZES = {
    MQMD: {1: 324, 2: 364},
    MQOD: {1: 168, 2: 200, 3: 336, 4: 400},
    MQPMO: {1: 128, 2: 152, 3: 176},
    MQGMO: {1: 72, 2: 80, 3: 100, 4: 112},
    MQSD: {1: 312},
    MQSRO: {1: 16},
    FOPA: {1: 28, 2: 84},
}


# Distribution-list records are bounds-checked but not kept, so round trips carry none.
OVERRIDES = {(MQOD, "RecsPresent"): st.just(0)}


def field_strategy(cls, f: dataclasses.Field) -> st.SearchStrategy:
    if (cls, f.name) in OVERRIDES:
        return OVERRIDES[cls, f.name]
    if f.name in CHARS.get(cls, {}):
        return char(CHARS[cls][f.name])
    if f.name in BINS.get(cls, {}):
        n = BINS[cls][f.name]
        return st.binary(min_size=n, max_size=n)
    if f.type in ("MQCHARV", MQCHARV):
        return charv()
    if f.name in INT64:
        return I64
    if f.name in BYTES1:
        return BYTE
    return I32


@st.composite
def structure(draw, cls, version: int | None = None):
    if version is None:
        version = draw(st.sampled_from(sorted(VERSION_FIELDS[cls])))
    fields = dataclasses.fields(cls)
    present = VERSION_FIELDS[cls][version]
    values = {"Version": version}
    for f in fields[1:present]:
        values[f.name] = draw(field_strategy(cls, f))
    return cls(**values)


ALL = [MQMD, MQOD, MQPMO, MQGMO, MQSD, MQSRO, FOPA]


@st.composite
def rfh2(draw) -> MQRFH2:
    ccsid = draw(st.sampled_from([1208, 1200, 819]))
    if ccsid == 819:
        alphabet = st.characters(min_codepoint=0, max_codepoint=255)
    else:
        alphabet = st.characters(blacklist_categories=("Cs",))
    folder = st.text(alphabet, max_size=30).map(lambda s: s.rstrip(" \x00"))
    return MQRFH2(draw(I32), draw(I32), draw(char(8)), draw(I32), ccsid, draw(st.lists(folder, max_size=5)))


@st.composite
def rfh1(draw) -> MQRFH:
    text = draw(st.text(st.characters(min_codepoint=0, max_codepoint=255), max_size=60))
    return MQRFH(draw(I32), draw(I32), draw(char(8)), draw(I32), text.rstrip(" \x00"))


# --------------------------------------------------------------------------------------------------
# Golden fixtures
# --------------------------------------------------------------------------------------------------


def test_mqopen_reply_od_and_fopa():
    raw, order = segment("mqopen-reply.bin")
    od, end = MQOD.unpack(raw, 52, order)
    assert end == 52 + 200
    assert od.Version == 2 and od.ObjectType == C.MQOT_Q_MGR
    assert od.ObjectName == od.ObjectQMgrName == od.AlternateUserId == ""
    assert od.DynamicQName == "AMQ.*"
    assert od.KnownDestCount == 1
    assert (od.RecsPresent, od.UnknownDestCount, od.InvalidDestCount) == (0, 0, 0)
    assert (od.ObjectRecOffset, od.ResponseRecOffset, od.ObjectRecPtr, od.ResponseRecPtr) == (0, 0, 0, 0)
    assert od.pack(order) == raw[52:252]
    assert struct.unpack_from("<i", raw, 252)[0] == 0x2020
    fopa, fend = FOPA.unpack(raw, 256, order)
    assert fend == len(raw)
    assert fopa == FOPA(Version=2, Length=84, DefPersistence=-1, DefPutResponseType=-1, DefReadAhead=-1,
                        PropertyControl=-1, PolicyErrorQueue="", PolicyDataOffset=84, PolicyDataLength=0)
    assert fopa.pack(order) == raw[256:]
    # the separately published FOPA v2 tail agrees with the assembled segment
    fragment = FIXTURES / "real-server" / "emulator-fragments" / "mqopen-reply-fopa-v2-tail-56.frag.bin"
    tail = fragment.read_bytes()
    assert fopa.pack(order)[28:] == tail


def test_async_message_mqmd_v2_and_big_endian_rfh2():
    raw, order = segment("async-message.bin")
    assert order == "<"
    md, pos = MQMD.unpack(raw, 36 + 68, order)
    assert pos == 104 + 364
    assert md.Version == 2 and md.MsgType == C.MQMT_DATAGRAM and md.Expiry == -1
    assert md.Encoding == 0x111 and md.CodedCharSetId == 1208
    assert md.Format == "MQHRF2" and C.MQFMT_RF_HEADER_2.rstrip() == md.Format
    assert md.Priority == 4 and md.Persistence == C.MQPER_PERSISTENT
    assert md.MsgId == bytes.fromhex("414d5120514d3120202020202020202064" "45ea5d04b59424")
    assert md.CorrelId == bytes(24)
    assert md.ReplyToQMgr == "QM1" and md.UserIdentifier == "app"
    assert md.PutApplType == 28 and md.PutApplName == "fixture-app"
    assert md.PutDate == "20191206" and md.PutTime == "12441357"
    assert md.OriginalLength == -1 and md.MsgSeqNumber == 1 and md.GroupId == bytes(24)
    assert md.pack(order) == raw[104:pos]

    data_order = order_of_encoding(md.Encoding)
    assert data_order == ">"
    rfh, end = MQRFH2.unpack(raw, pos, data_order)
    assert end - pos == 272
    assert rfh.Encoding == 0x111 and rfh.CodedCharSetId == 1208 and rfh.Format == "MQSTR"
    assert rfh.Flags == 0 and rfh.NameValueCCSID == 1208
    assert [f[:5] for f in rfh.Folders] == ["<mcd>", "<jms>", "<usr>"]
    assert rfh.Folders[1] == ("<jms><Dst>queue:///DEV.QUEUE.1</Dst><Tms>1575636253574</Tms><Dlv>2</Dlv>"
                              "</jms>")
    assert rfh.Folders[0] == "<mcd><Msd>jms_text</Msd></mcd>"
    assert rfh.pack(data_order) == raw[pos:end]
    assert raw[end:] == b"hello\0\0\0"
    # the same bytes read in the segment's order are not an RFH2 (Version reads as 0x02000000)
    with pytest.raises(CodecError):
        MQRFH2.unpack(raw, pos, "<")
    assert mqi.unpack_rfh(raw, pos, ">")[0] == rfh


def test_msgid_example_round_trips():
    # docs/reference/fap.md §30.5: a MsgId generated by the 9.1.2 queue manager QM1
    msgid = bytes.fromhex("414d5120514d3120202020202020202064 45ea5d04b59424".replace(" ", ""))
    assert msgid[:16] == b"AMQ QM1         "
    for order in "<>":
        for version in (1, 2):
            md = MQMD(Version=version, MsgId=msgid)
            raw = md.pack(order)
            assert raw[48:72] == msgid
            assert MQMD.unpack(raw, 0, order)[0].MsgId == msgid


def test_defaults_and_sizes():
    md = MQMD()
    assert (md.Version, md.MsgType, md.Expiry, md.Encoding) == (1, 8, -1, 546)
    assert (md.Priority, md.Persistence, md.CodedCharSetId) == (-1, 2, 0)
    assert md.MsgId == bytes(24) and md.Format == ""
    for cls, sizes in SIZES.items():
        for version, size in sizes.items():
            obj = cls(Version=version)
            for order in "<>":
                raw = obj.pack(order)
                assert len(raw) == size, (cls, version)
                back, end = cls.unpack(raw, 0, order)
                assert back == obj and end == size


def test_json_view():
    view = to_json(MQMD(Version=2, Persistence=1))
    assert view["struct"] == "MQMD" and view["Persistence_name"] == "MQPER_PERSISTENT"
    assert view["MsgId"] == "00" * 24
    od = to_json(MQOD(Version=4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV("a/b")))
    assert od["ObjectType_name"] == "MQOT_TOPIC" and od["ObjectString"]["VSString"] == "a/b"
    assert to_json(MQGMO(Version=2))["GroupStatus_name"] == "MQGS_NOT_IN_GROUP"


# --------------------------------------------------------------------------------------------------
# MQCHARV placement and rules
# --------------------------------------------------------------------------------------------------


def test_charv_layout_od_v4():
    od = MQOD(Version=4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV("sports/football", 0, 1208),
              ResObjectString=MQCHARV("", 256, 1208))
    raw = od.pack("<")
    assert len(raw) == 400 + 16
    ptr, off, bufsize, length, ccsid = struct.unpack_from("<5i", raw, 336)
    assert (ptr, off, bufsize, length, ccsid) == (0, 400, 15, 15, 1208)
    assert raw[400:415] == b"sports/football" and raw[415] == 0
    assert struct.unpack_from("<5i", raw, 376) == (0, 0, 256, 0, 1208)
    back, end = MQOD.unpack(raw + b"\x00\x00\x00\x07", 0, "<")
    assert end == 416 and back.ObjectString.VSString == "sports/football"


def test_charv_located_only_by_offset():
    # strings in reverse order with a gap: still found, end is the highest string end aligned to 4
    sd = MQSD()
    raw = bytearray(sd.pack(">"))
    raw += b"\xff" * 8 + b"SUBNAME" + b"\0" + b"TOPIC/X"
    struct.pack_into(">5i", raw, 116, 0, 312 + 16, 0, 7, 819)  # ObjectString
    struct.pack_into(">5i", raw, 136, 0, 312 + 8, 0, 7, 819)  # SubName
    back, end = MQSD.unpack(bytes(raw) + b"\x01\x02", 0, ">")
    assert back.ObjectString.VSString == "TOPIC/X" and back.SubName.VSString == "SUBNAME"
    assert end == 312 + 24


def test_charv_null_terminated_and_errors():
    base = bytearray(MQOD(Version=4).pack("<"))
    raw = base + b"abc\0"
    struct.pack_into("<5i", raw, 336, 0, 400, 0, mqi.MQVS_NULL_TERMINATED, 0)
    od, end = MQOD.unpack(bytes(raw), 0, "<")
    assert od.ObjectString.VSString == "abc" and end == 404
    # no terminator within bounds
    with pytest.raises(CodecError) as exc:
        MQOD.unpack(bytes(raw[:-1]), 0, "<")
    assert exc.value.reason == C.MQRC_OBJECT_STRING_ERROR and exc.value.family == MQRC
    # terminator beyond VSBufSize
    struct.pack_into("<5i", raw, 336, 0, 400, 2, mqi.MQVS_NULL_TERMINATED, 0)
    with pytest.raises(CodecError):
        MQOD.unpack(bytes(raw), 0, "<")
    # length beyond the buffer, negative length, offset into the fixed part
    for vals, reason in [((0, 400, 0, 5, 0), C.MQRC_OBJECT_STRING_ERROR),
                         ((0, 400, 0, -7, 0), C.MQRC_OBJECT_STRING_ERROR),
                         ((0, 12, 0, 3, 0), C.MQRC_OBJECT_STRING_ERROR),
                         ((0, -4, 0, 3, 0), C.MQRC_OBJECT_STRING_ERROR),
                         ((0, 2**31 - 1, 0, 2**31 - 1, 0), C.MQRC_OBJECT_STRING_ERROR)]:
        bad = bytearray(base)
        struct.pack_into("<5i", bad, 336, *vals)
        with pytest.raises(CodecError) as exc:
            MQOD.unpack(bytes(bad), 0, "<")
        assert exc.value.reason == reason
    # per-field reasons
    bad = bytearray(base)
    struct.pack_into("<5i", bad, 376, 0, 400, 0, 9, 0)
    with pytest.raises(CodecError) as exc:
        MQOD.unpack(bytes(bad), 0, "<")
    assert exc.value.reason == C.MQRC_RES_OBJECT_STRING_ERROR
    # an empty string's offset is not looked at
    ok = bytearray(base)
    struct.pack_into("<5i", ok, 336, 0, -99999, 64, 0, 1208)
    assert MQOD.unpack(bytes(ok), 0, "<")[0].ObjectString == MQCHARV("", 64, 1208)


def test_charv_bufsize_never_below_length():
    raw = MQOD(Version=4, ObjectString=MQCHARV("abcdef", 2, 819)).pack("<")
    assert struct.unpack_from("<5i", raw, 336)[2:4] == (6, 6)
    raw = MQOD(Version=4, ObjectString=MQCHARV("abcdef", -1, 819)).pack("<")
    assert struct.unpack_from("<5i", raw, 336)[2:4] == (-1, 6)


def test_sd_string_reasons():
    sd = MQSD(ObjectString=MQCHARV("a"), SubName=MQCHARV("n"), SubUserData=MQCHARV("u"),
              SelectionString=MQCHARV("s"), ResObjectString=MQCHARV("r"))
    raw = sd.pack("<")
    for pos, reason in [(116, C.MQRC_OBJECT_STRING_ERROR), (136, C.MQRC_SUB_NAME_ERROR),
                        (156, C.MQRC_SUB_USER_DATA_ERROR), (268, C.MQRC_SELECTION_STRING_ERROR),
                        (292, C.MQRC_RES_OBJECT_STRING_ERROR)]:
        bad = bytearray(raw)
        struct.pack_into("<i", bad, pos + 12, 10_000)
        with pytest.raises(CodecError) as exc:
            MQSD.unpack(bytes(bad), 0, "<")
        assert exc.value.reason == reason


def test_od_records_bounds():
    od = MQOD(Version=2, RecsPresent=2, ObjectRecOffset=200, ResponseRecOffset=392)
    raw = od.pack("<") + bytes(96 * 2 + 8 * 2)
    assert MQOD.unpack(raw + b"\0" * 4, 0, "<")[1] == 200 + 192 + 16
    with pytest.raises(CodecError) as exc:
        MQOD.unpack(raw[:-1], 0, "<")
    assert exc.value.reason == C.MQRC_RESPONSE_RECORDS_ERROR
    bad = MQOD(Version=2, RecsPresent=-1).pack("<")
    with pytest.raises(CodecError) as exc:
        MQOD.unpack(bad, 0, "<")
    assert exc.value.reason == C.MQRC_RECS_PRESENT_ERROR
    huge = MQOD(Version=2, RecsPresent=2**31 - 1, ObjectRecOffset=200).pack("<")
    with pytest.raises(CodecError) as exc:
        MQOD.unpack(huge, 0, "<")
    assert exc.value.reason == C.MQRC_OBJECT_RECORDS_ERROR


# --------------------------------------------------------------------------------------------------
# Header validation
# --------------------------------------------------------------------------------------------------

STRUC_IDS = {MQMD: b"MD  ", MQOD: b"OD  ", MQPMO: b"PMO ", MQGMO: b"GMO ", MQSD: b"SD  ", MQSRO: b"SRO ",
             FOPA: b"FOPA"}
REASONS = {MQMD: C.MQRC_MD_ERROR, MQOD: C.MQRC_OD_ERROR, MQPMO: C.MQRC_PMO_ERROR, MQGMO: C.MQRC_GMO_ERROR,
           MQSD: C.MQRC_SD_ERROR, MQSRO: C.MQRC_SRO_ERROR, FOPA: mqi.FOPA_REASON}


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
@pytest.mark.parametrize("order", ["<", ">"])
def test_header_errors(cls, order):
    reason = REASONS[cls]
    top = max(SIZES[cls])
    raw = cls(Version=top).pack(order)
    for cut in (0, 3, 7, 8, SIZES[cls][top] - 1):
        with pytest.raises(CodecError) as exc:
            cls.unpack(raw[:cut], 0, order)
        assert exc.value.reason == reason and exc.value.family == MQRC and exc.value.offset == 0
    bad_id = b"XX  " + raw[4:]
    with pytest.raises(CodecError) as exc:
        cls.unpack(bad_id, 0, order)
    assert exc.value.reason == reason
    for version in (0, top + 1, -1, 2**31 - 1):
        bad = bytearray(raw)
        struct.pack_into(order + "i", bad, 4, version)
        with pytest.raises(CodecError) as exc:
            cls.unpack(bytes(bad), 0, order)
        assert exc.value.reason == reason
    # a non-zero offset is reported as such
    with pytest.raises(CodecError) as exc:
        cls.unpack(b"\0" * 10 + raw[:9], 10, order)
    assert exc.value.offset == 10
    with pytest.raises(ValueError):
        cls(Version=top + 1).pack(order)


def test_pack_rejects_bad_values():
    with pytest.raises(ValueError):
        MQMD(MsgId=b"short").pack()
    with pytest.raises(ValueError):
        MQMD(Format="TOOLONGFORMAT").pack()
    with pytest.raises(ValueError):
        MQGMO(Version=3, MsgToken=bytes(15)).pack()


def test_memoryview_and_offset():
    raw = b"\xee" * 5 + MQMD(Version=2, ReplyToQ="R").pack(">")
    for buf in (raw, bytearray(raw), memoryview(raw)):
        md, end = MQMD.unpack(buf, 5, ">")
        assert md.ReplyToQ == "R" and end == 5 + 364


# --------------------------------------------------------------------------------------------------
# RFH
# --------------------------------------------------------------------------------------------------


def test_rfh_v1():
    rfh = MQRFH(Format="MQSTR", NameValueString="OPT=1 X=y")
    for order in "<>":
        raw = rfh.pack(order)
        assert len(raw) == 32 + 12 and raw[:4] == b"RFH "
        assert struct.unpack_from(order + "2i", raw, 4) == (1, 44)
        assert MQRFH.unpack(raw, 0, order) == (rfh, 44)
        assert mqi.unpack_rfh(raw, 0, order)[0] == rfh
    with pytest.raises(CodecError):
        MQRFH2.unpack(rfh.pack(), 0, "<")


def test_rfh2_errors():
    rfh = MQRFH2(Folders=["<usr><a>1</a></usr>"])
    raw = rfh.pack("<")
    assert len(raw) == 36 + 4 + 20
    for pos, value in [(8, 35), (8, 61), (8, -1), (36, 21), (36, -4), (36, 2**31 - 1)]:
        bad = bytearray(raw)
        struct.pack_into("<i", bad, pos, value)
        with pytest.raises(CodecError) as exc:
            MQRFH2.unpack(bytes(bad), 0, "<")
        assert exc.value.reason == C.MQRC_RFH_ERROR
    bad = bytearray(MQRFH2().pack("<"))
    struct.pack_into("<i", bad, 8, 38)  # 2 bytes where a NameValueLength should be
    with pytest.raises(CodecError) as exc:
        MQRFH2.unpack(bytes(bad) + b"\0\0", 0, "<")
    assert "NameValueLength" in exc.value.detail


def test_rfh2_utf16_folders():
    rfh = MQRFH2(NameValueCCSID=1200, Folders=["<usr>\u0100</usr>", "<a>"])
    raw = rfh.pack(">")
    assert MQRFH2.unpack(raw, 0, ">")[0] == rfh


# --------------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
@SETTINGS
@given(data=st.data(), order=ORDERS)
def test_round_trip(cls, data, order):
    obj = data.draw(structure(cls))
    raw = obj.pack(order)
    back, end = cls.unpack(raw, 0, order)
    assert back == obj
    assert end == len(raw)
    assert back.pack(order) == raw
    # decoding does not depend on what follows, nor on where the structure starts
    back2, end2 = cls.unpack(b"\x55" * 3 + raw + b"\x00\x01\x02", 3, order)
    assert back2 == obj and end2 == 3 + len(raw)


@SETTINGS
@given(rfh=st.one_of(rfh1(), rfh2()), order=ORDERS)
def test_rfh_round_trip(rfh, order):
    raw = rfh.pack(order)
    assert len(raw) % 4 == 0
    back, end = type(rfh).unpack(raw, 0, order)
    assert back == rfh and end == len(raw)
    assert mqi.unpack_rfh(raw + b"tail", 0, order) == (rfh, len(raw))


def test_mqmd_utf8_codec():
    md = MQMD(Version=2, ReplyToQ="Q.\u00e9\u20ac", PutApplName="app", UserIdentifier="\u00fcser")
    for order in "<>":
        raw = md.pack(order, "utf-8")
        assert raw[100:108] == "Q.\u00e9\u20ac".encode() + b" "
        assert MQMD.unpack(raw, 0, order, "utf-8")[0] == md
    with pytest.raises(ValueError):  # 12 characters, 24 bytes
        MQMD(UserIdentifier="\u00e9" * 12).pack("<", "utf-8")


# --------------------------------------------------------------------------------------------------
# Mutation fuzz: decoding is total — success or CodecError, nothing else
# --------------------------------------------------------------------------------------------------

LIES = st.sampled_from([-1, -2, -(2**31), 2**31 - 1, 2**30, 0x10000, 0, 1, 3, 400, 401, 1000])


@st.composite
def mutated(draw, raw: bytes, order: str) -> bytes:
    buf = bytearray(raw)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "truncate", "extend", "lie", "lie"]))
        if kind == "flip" and buf:
            i = draw(st.integers(0, len(buf) - 1))
            buf[i] ^= draw(st.integers(1, 255))
        elif kind == "truncate":
            del buf[draw(st.integers(0, len(buf))):]
        elif kind == "extend":
            buf += draw(st.binary(min_size=1, max_size=64))
        elif kind == "lie" and len(buf) >= 4:
            i = draw(st.integers(0, len(buf) // 4 - 1)) * 4
            struct.pack_into(order + "i", buf, i, draw(LIES))
    return bytes(buf)


def decode_totally(fn, *args):
    try:
        fn(*args)
    except CodecError as exc:
        assert exc.family == MQRC and isinstance(exc.reason, int)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
@FUZZ
@given(data=st.data(), order=ORDERS)
def test_mutation_fuzz(cls, data, order):
    raw = data.draw(structure(cls)).pack(order)
    decode_totally(cls.unpack, data.draw(mutated(raw, order)), 0, order)


@FUZZ
@given(data=st.data(), order=ORDERS)
def test_mutation_fuzz_rfh(data, order):
    raw = data.draw(st.one_of(rfh1(), rfh2())).pack(order)
    bad = data.draw(mutated(raw, order))
    decode_totally(mqi.unpack_rfh, bad, 0, order)
    decode_totally(MQRFH.unpack, bad, 0, order)
    decode_totally(MQRFH2.unpack, bad, 0, order)


@FUZZ
@given(data=st.binary(max_size=500), order=ORDERS)
def test_random_bytes(data, order):
    for cls in ALL:
        decode_totally(cls.unpack, data, 0, order)
        decode_totally(cls.unpack, STRUC_IDS[cls] + data, 0, order)
    decode_totally(mqi.unpack_rfh, b"RFH " + data, 0, order)


# ---- MQXQH (IBM "MQXQH - Transmission-queue header") ---------------------------------------------
@pytest.mark.parametrize("order", ["<", ">"])
def test_mqxqh_round_trips_with_its_version_1_mqmd(order):
    from qmlite.pcf.mqi import MQXQH, MQXQH_LENGTH_1

    md = MQMD(Version=2, Format=C.MQFMT_STRING, Priority=4, MsgId=b"M" * 24, ReplyToQ="REPLY", GroupId=b"G" * 24)
    raw = MQXQH(RemoteQName="APP.IN", RemoteQMgrName="QM2", MsgDesc=md).pack(order)
    assert len(raw) == MQXQH_LENGTH_1 == 428 and raw[:4] == b"XQH " and raw[104:108] == b"MD  "
    back, end = MQXQH.unpack(raw + b"data", 0, order)
    assert end == MQXQH_LENGTH_1
    assert (back.RemoteQName, back.RemoteQMgrName) == ("APP.IN", "QM2")
    assert (back.MsgDesc.Version, back.MsgDesc.Priority, back.MsgDesc.MsgId, back.MsgDesc.ReplyToQ) == (
        1, 4, b"M" * 24, "REPLY")  # embedded as version 1: the version-2 fields are not in an MQXQH
    assert md.Version == 2  # the caller's MQMD is not changed


def test_mqxqh_refuses_a_short_or_foreign_header():
    from qmlite.pcf.errors import CodecError
    from qmlite.pcf.mqi import MQXQH

    raw = MQXQH(RemoteQName="A", RemoteQMgrName="B").pack()
    for bad in (raw[:200], b"XXXX" + raw[4:]):
        with pytest.raises(CodecError) as info:
            MQXQH.unpack(bad)
        assert info.value.reason == C.MQRC_XQH_ERROR


# ---- MQTM (IBM "MQTM - Trigger message") ----------------------------------------------------------
@pytest.mark.parametrize("order", ["<", ">"])
def test_mqtm_round_trips(order):
    from qmlite.pcf.mqi import MQTM, MQTM_LENGTH_1

    tm = MQTM(QName="APP.Q", ProcessName="APP.PROC", TriggerData="td", ApplType=C.MQAT_UNIX, ApplId="/bin/app",
              EnvData="ENV=1", UserData="ud")
    raw = tm.pack(order)
    assert len(raw) == MQTM_LENGTH_1 == 684 and raw[:4] == b"TM  "
    assert MQTM.unpack(raw, 0, order) == (tm, MQTM_LENGTH_1)
    with pytest.raises(CodecError) as info:
        MQTM.unpack(raw[:600], 0, order)
    assert info.value.reason == C.MQRC_TM_ERROR
