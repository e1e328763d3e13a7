"""PCF codec: API, crafted malformed inputs (one per reason), property round trips and mutation fuzz."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qmlite.pcf import constants as C
from qmlite.pcf.encoding import codec_for_ccsid
from qmlite.pcf.errors import CodecError
from qmlite.pcf.jsonview import to_json
from qmlite.pcf.pcf import (
    CFBF, CFBS, CFGR, CFH, CFIF, CFIL, CFIL64, CFIN, CFIN64, CFSF, CFSL, CFST, MAX_GROUP_DEPTH,
    PCFMessage, decode, encode,
)

# --- raw builders (independent of the encoder under test; little-endian unless told) ----------------


def hdr(count, typ=C.MQCFT_COMMAND_XR, sl=36, version=3, command=C.MQCMD_CREATE_SUBSCRIPTION, seq=1,
        control=1, o="<"):
    return struct.pack(o + "9i", typ, sl, version, command, seq, control, 0, 0, count)


def cfin(pid, value=0, sl=16):
    return struct.pack("<4i", C.MQCFT_INTEGER, sl, pid, value)


def cfin64(pid, value=0, sl=24):
    return struct.pack("<4iq", C.MQCFT_INTEGER64, sl, pid, 0, value)


def cfst(pid, raw=b"AB", sl=None, slen=None, ccsid=0):
    slen = len(raw) if slen is None else slen
    body = raw + b"\0" * (-len(raw) & 3)
    sl = 20 + len(body) if sl is None else sl
    return struct.pack("<5i", C.MQCFT_STRING, sl, pid, ccsid, slen) + body


def cfbs(pid, raw=b"\1\2\3\4", sl=None, slen=None):
    slen = len(raw) if slen is None else slen
    body = raw + b"\0" * (-len(raw) & 3)
    sl = 16 + len(body) if sl is None else sl
    return struct.pack("<4i", C.MQCFT_BYTE_STRING, sl, pid, slen) + body


def cfil(pid, values=(1, 2), sl=None, count=None, typ=C.MQCFT_INTEGER_LIST, code="i"):
    size = struct.calcsize("<" + code)
    count = len(values) if count is None else count
    sl = 16 + size * len(values) if sl is None else sl
    return struct.pack("<4i", typ, sl, pid, count) + struct.pack(f"<{len(values)}{code}", *values)


def cfil64(pid, values=(1, 2), **kw):
    return cfil(pid, values, typ=C.MQCFT_INTEGER64_LIST, code="q", **kw)


def cfsl(pid, raws=(b"AAAA", b"BBBB"), sl=None, count=None, slen=None, ccsid=0):
    count = len(raws) if count is None else count
    slen = (len(raws[0]) if raws else 0) if slen is None else slen
    body = b"".join(raws)
    body += b"\0" * (-len(body) & 3)
    sl = 24 + len(body) if sl is None else sl
    return struct.pack("<6i", C.MQCFT_STRING_LIST, sl, pid, ccsid, count, slen) + body


def cfif(pid, op=C.MQCFOP_EQUAL, value=0, sl=20):
    return struct.pack("<5i", C.MQCFT_INTEGER_FILTER, sl, pid, op, value)


def cfsf(pid, raw=b"AB*", op=C.MQCFOP_LIKE, sl=None, flen=None, ccsid=0):
    flen = len(raw) if flen is None else flen
    body = raw + b"\0" * (-len(raw) & 3)
    sl = 24 + len(body) if sl is None else sl
    return struct.pack("<6i", C.MQCFT_STRING_FILTER, sl, pid, op, ccsid, flen) + body


def cfbf(pid, raw=b"\1\2", op=C.MQCFOP_EQUAL, sl=None, flen=None):
    flen = len(raw) if flen is None else flen
    body = raw + b"\0" * (-len(raw) & 3)
    sl = 20 + len(body) if sl is None else sl
    return struct.pack("<5i", C.MQCFT_BYTE_STRING_FILTER, sl, pid, op, flen) + body


def cfgr(pid, count, sl=16):
    return struct.pack("<4i", C.MQCFT_GROUP, sl, pid, count)


def msg(*params, count=None, **kw):
    return hdr(len(params) if count is None else count, **kw) + b"".join(params)


SUB = C.MQCACF_SUB_NAME  # 3152, a string id
DEST = C.MQIACF_DESTINATION_CLASS  # 1273, an integer id
SUBID = C.MQBACF_SUB_ID  # 7016, a byte-string id
GRP = C.MQGACF_Q_STATISTICS_DATA  # 8011
NEST = b"".join(cfgr(GRP, 1) for _ in range(MAX_GROUP_DEPTH + 1))

# (id, bytes, reason name, parameter id, strict-only?)
CASES = [
    ("short-message", hdr(0)[:20], "MQRCCF_MSG_LENGTH_ERROR", None, False),
    ("empty", b"", "MQRCCF_MSG_LENGTH_ERROR", None, False),
    ("cfh-type-param", msg(typ=C.MQCFT_INTEGER), "MQRCCF_CFH_TYPE_ERROR", None, False),
    ("cfh-type-unknown", msg(typ=99), "MQRCCF_CFH_TYPE_ERROR", None, False),
    ("cfh-type-none", msg(typ=0), "MQRCCF_CFH_TYPE_ERROR", None, False),
    ("cfh-length", msg(sl=40), "MQRCCF_CFH_LENGTH_ERROR", None, False),
    ("cfh-version-0", msg(version=0), "MQRCCF_CFH_VERSION_ERROR", None, False),
    ("cfh-version-4", msg(version=4), "MQRCCF_CFH_VERSION_ERROR", None, False),
    ("cfh-seq", msg(seq=0), "MQRCCF_CFH_MSG_SEQ_NUMBER_ERR", None, True),
    ("cfh-control", msg(control=2), "MQRCCF_CFH_CONTROL_ERROR", None, True),
    ("cfh-count-negative", msg(cfin(DEST), count=-1), "MQRCCF_CFH_PARM_COUNT_ERROR", None, False),
    ("cfh-count-huge", msg(cfin(DEST), count=10**9), "MQRCCF_CFH_PARM_COUNT_ERROR", None, False),
    ("cfh-count-one-too-many", msg(cfin(DEST), cfin(C.MQIACF_REPLACE), count=3), "MQRCCF_CFH_PARM_COUNT_ERROR",
     None, False),
    ("trailing-bytes", msg(cfin(DEST)) + b"\0" * 4, "MQRCCF_MSG_LENGTH_ERROR", None, False),
    ("trailing-structure", msg(cfin(DEST), count=0)[:-4] + b"\0" * 4, "MQRCCF_MSG_LENGTH_ERROR", None, False),
    ("fragment-after-last", msg(cfst(SUB, b"ABCD"), count=2) + b"\0" * 12, "MQRCCF_MSG_LENGTH_ERROR", None,
     False),
    ("truncated-cfst", msg(cfst(SUB, b"ABCDEFGH"))[:-4], "MQRCCF_MSG_LENGTH_ERROR", SUB, False),
    # fewer bytes than ParameterCount x 16: refused before any parameter is read
    ("truncated-below-count", msg(cfin(DEST), cfin(1))[:-4], "MQRCCF_CFH_PARM_COUNT_ERROR", None, False),
    ("structure-type", msg(struct.pack("<4i", 99, 16, 1, 0)), "MQRCCF_STRUCTURE_TYPE_ERROR", 1, False),
    ("structure-type-cfh", msg(struct.pack("<4i", C.MQCFT_COMMAND, 16, 1, 0)), "MQRCCF_STRUCTURE_TYPE_ERROR",
     1, False),
    ("cfin-length", msg(cfin(DEST, sl=20) + b"\0" * 4), "MQRCCF_CFIN_LENGTH_ERROR", DEST, False),
    ("cfin-length-small", msg(cfin(DEST, sl=12)), "MQRCCF_CFIN_LENGTH_ERROR", DEST, False),
    ("cfin64-length", msg(cfin64(DEST, sl=16)), "MQRCCF_CFIN_LENGTH_ERROR", DEST, False),
    ("cfin64-truncated", msg(cfin64(DEST))[:-4], "MQRCCF_MSG_LENGTH_ERROR", DEST, False),
    ("cfst-length-small", msg(cfst(SUB, b"", sl=16)), "MQRCCF_CFST_LENGTH_ERROR", SUB, False),
    ("cfst-length-not-4", msg(cfst(SUB, b"ABCDEF", sl=26) + b"\0\0"), "MQRCCF_CFST_LENGTH_ERROR", SUB, False),
    ("cfst-length-vs-string", msg(cfst(SUB, b"ABCD", slen=5)), "MQRCCF_CFST_LENGTH_ERROR", SUB, False),
    ("cfst-string-huge", msg(cfst(SUB, b"ABCD", slen=2**31 - 1)), "MQRCCF_CFST_LENGTH_ERROR", SUB, False),
    ("cfst-string-negative", msg(cfst(SUB, b"ABCD", slen=-1)), "MQRCCF_CFST_STRING_LENGTH_ERR", SUB, False),
    ("cfst-struc-huge", msg(cfst(SUB, b"ABCD", sl=2**31 - 4)), "MQRCCF_MSG_LENGTH_ERROR", SUB, False),
    ("cfbs-length", msg(cfbs(SUBID, b"", sl=12)), "MQRCCF_CFBS_LENGTH_ERROR", SUBID, False),
    ("cfbs-length-not-4", msg(cfbs(SUBID, b"ABCD", sl=18) + b"\0\0"), "MQRCCF_CFBS_LENGTH_ERROR", SUBID,
     False),
    ("cfbs-length-vs-string", msg(cfbs(SUBID, b"ABCD", slen=30)), "MQRCCF_CFBS_LENGTH_ERROR", SUBID, False),
    ("cfbs-string-negative", msg(cfbs(SUBID, slen=-4)), "MQRCCF_CFBS_STRING_LENGTH_ERR", SUBID, False),
    ("cfil-length", msg(cfil(C.MQIACF_SUB_ATTRS, (1, 2), sl=20) + b"\0" * 4), "MQRCCF_CFIL_LENGTH_ERROR",
     C.MQIACF_SUB_ATTRS, False),
    ("cfil-length-not-4", msg(cfil(C.MQIACF_SUB_ATTRS, (1, 2), sl=22) + b"\0\0"), "MQRCCF_CFIL_LENGTH_ERROR",
     C.MQIACF_SUB_ATTRS, False),
    ("cfil-count-huge", msg(cfil(C.MQIACF_SUB_ATTRS, (1,), count=2**31 - 1)), "MQRCCF_CFIL_LENGTH_ERROR",
     C.MQIACF_SUB_ATTRS, False),
    ("cfil-count-negative", msg(cfil(C.MQIACF_SUB_ATTRS, (1,), count=-1)), "MQRCCF_CFIL_COUNT_ERROR",
     C.MQIACF_SUB_ATTRS, False),
    ("cfil-longer-than-count", msg(cfil(C.MQIACF_SUB_ATTRS, (1, 2), count=1)), "MQRCCF_CFIL_LENGTH_ERROR",
     C.MQIACF_SUB_ATTRS, True),
    ("cfil64-length", msg(cfil64(C.MQIAMO64_PUT_BYTES, (1,), sl=20)), "MQRCCF_CFIL_LENGTH_ERROR",
     C.MQIAMO64_PUT_BYTES, False),
    ("cfil64-count", msg(cfil64(C.MQIAMO64_PUT_BYTES, (1,), count=-7)), "MQRCCF_CFIL_COUNT_ERROR",
     C.MQIAMO64_PUT_BYTES, False),
    ("cfsl-length", msg(cfsl(C.MQCACF_TOPIC_NAMES, (), sl=20)), "MQRCCF_CFSL_LENGTH_ERROR",
     C.MQCACF_TOPIC_NAMES, False),
    ("cfsl-length-vs-strings", msg(cfsl(C.MQCACF_TOPIC_NAMES, (b"AAAA", b"BBBB"), count=3)),
     "MQRCCF_CFSL_LENGTH_ERROR", C.MQCACF_TOPIC_NAMES, False),
    ("cfsl-count-negative", msg(cfsl(C.MQCACF_TOPIC_NAMES, count=-1)), "MQRCCF_CFSL_COUNT_ERROR",
     C.MQCACF_TOPIC_NAMES, False),
    ("cfsl-count-empty-strings", msg(cfsl(C.MQCACF_TOPIC_NAMES, (), count=2**31 - 1, slen=0)),
     "MQRCCF_CFSL_COUNT_ERROR", C.MQCACF_TOPIC_NAMES, False),
    ("cfsl-string-negative", msg(cfsl(C.MQCACF_TOPIC_NAMES, slen=-4)), "MQRCCF_CFSL_STRING_LENGTH_ERR",
     C.MQCACF_TOPIC_NAMES, False),
    ("cfif-length", msg(cfif(C.MQIA_CURRENT_Q_DEPTH, sl=24) + b"\0" * 4), "MQRCCF_CFIF_LENGTH_ERROR",
     C.MQIA_CURRENT_Q_DEPTH, False),
    ("cfif-operator", msg(cfif(C.MQIA_CURRENT_Q_DEPTH, op=7)), "MQRCCF_CFIF_OPERATOR_ERROR",
     C.MQIA_CURRENT_Q_DEPTH, False),
    ("cfsf-length", msg(cfsf(C.MQCA_Q_DESC, b"", sl=20)), "MQRCCF_CFSF_LENGTH_ERROR", C.MQCA_Q_DESC, False),
    ("cfsf-length-vs-value", msg(cfsf(C.MQCA_Q_DESC, b"ABCD", flen=8)), "MQRCCF_CFSF_LENGTH_ERROR",
     C.MQCA_Q_DESC, False),
    ("cfsf-value-negative", msg(cfsf(C.MQCA_Q_DESC, flen=-1)), "MQRCCF_CFSF_FILTER_VAL_LEN_ERR", C.MQCA_Q_DESC,
     False),
    ("cfsf-operator", msg(cfsf(C.MQCA_Q_DESC, op=99)), "MQRCCF_CFSF_OPERATOR_ERROR", C.MQCA_Q_DESC, False),
    ("cfbf-length", msg(cfbf(SUBID, b"", sl=16)), "MQRCCF_CFBF_LENGTH_ERROR", SUBID, False),
    ("cfbf-length-vs-value", msg(cfbf(SUBID, b"AB", flen=5)), "MQRCCF_CFBF_LENGTH_ERROR", SUBID, False),
    ("cfbf-value-negative", msg(cfbf(SUBID, flen=-2)), "MQRCCF_CFBF_FILTER_VAL_LEN_ERR", SUBID, False),
    ("cfbf-operator", msg(cfbf(SUBID, op=0)), "MQRCCF_CFBF_OPERATOR_ERROR", SUBID, False),
    ("cfgr-length", msg(cfgr(GRP, 0, sl=20) + b"\0" * 4), "MQRCCF_CFGR_LENGTH_ERROR", GRP, False),
    ("cfgr-count-negative", msg(cfgr(GRP, -1)), "MQRCCF_CFGR_PARM_COUNT_ERROR", GRP, False),
    ("cfgr-count-huge", msg(cfgr(GRP, 10**9) + cfin(DEST)), "MQRCCF_CFGR_PARM_COUNT_ERROR", GRP, False),
    ("cfgr-runs-out", msg(cfgr(GRP, 2) + cfst(SUB, b"A" * 12), count=1), "MQRCCF_CFGR_PARM_COUNT_ERROR", GRP,
     False),
    ("cfgr-swallows-top-level", msg(cfgr(GRP, 2) + cfin(DEST) + cfin(1), count=2), "MQRCCF_CFH_PARM_COUNT_ERROR",
     None, False),
    ("cfgr-too-deep", msg(NEST + cfin(DEST), count=1), "MQRCCF_STRUCTURE_TYPE_ERROR", GRP, False),
    # parameter-id families (strict)
    ("cfin-parm-id", msg(cfin(SUB)), "MQRCCF_CFIN_PARM_ID_ERROR", SUB, True),
    ("cfin-parm-id-0", msg(cfin(0)), "MQRCCF_CFIN_PARM_ID_ERROR", 0, True),
    ("cfin64-parm-id", msg(cfin64(-5)), "MQRCCF_CFIN_PARM_ID_ERROR", -5, True),
    ("cfst-parm-id", msg(cfst(DEST)), "MQRCCF_CFST_PARM_ID_ERROR", DEST, True),
    ("subid-as-cfst", msg(cfst(SUBID, b"\0" * 24)), "MQRCCF_CFST_PARM_ID_ERROR", SUBID, True),
    ("cfbs-parm-id", msg(cfbs(SUB)), "MQRCCF_CFBS_PARM_ID_ERROR", SUB, True),
    ("cfil-parm-id", msg(cfil(SUB)), "MQRCCF_CFIL_PARM_ID_ERROR", SUB, True),
    ("cfil64-parm-id", msg(cfil64(4001)), "MQRCCF_CFIL_PARM_ID_ERROR", 4001, True),
    ("cfsl-parm-id", msg(cfsl(DEST)), "MQRCCF_CFSL_PARM_ID_ERROR", DEST, True),
    ("cfif-parm-id", msg(cfif(C.MQCA_Q_DESC)), "MQRCCF_CFIF_PARM_ID_ERROR", C.MQCA_Q_DESC, True),
    ("cfsf-parm-id", msg(cfsf(C.MQIA_CURRENT_Q_DEPTH)), "MQRCCF_CFSF_PARM_ID_ERROR", C.MQIA_CURRENT_Q_DEPTH,
     True),
    ("cfbf-parm-id", msg(cfbf(8001)), "MQRCCF_CFBF_PARM_ID_ERROR", 8001, True),
    ("cfgr-parm-id", msg(cfgr(7000, 0)), "MQRCCF_CFGR_PARM_ID_ERROR", 7000, True),
    # duplicates at one level (strict)
    ("cfin-duplicate", msg(cfin(DEST), cfin(DEST, 1)), "MQRCCF_CFIN_DUPLICATE_PARM", DEST, True),
    ("cfin64-duplicate", msg(cfin(DEST), cfin64(DEST)), "MQRCCF_CFIN_DUPLICATE_PARM", DEST, True),
    ("cfil-after-cfin", msg(cfin(C.MQIACF_SUB_ATTRS), cfil(C.MQIACF_SUB_ATTRS)), "MQRCCF_CFIN_DUPLICATE_PARM",
     C.MQIACF_SUB_ATTRS, True),
    ("cfst-duplicate", msg(cfst(SUB), cfin(DEST), cfst(SUB, b"X")), "MQRCCF_CFST_DUPLICATE_PARM", SUB, True),
    ("cfbs-duplicate", msg(cfbs(SUBID), cfbs(SUBID)), "MQRCCF_CFBS_DUPLICATE_PARM", SUBID, True),
    ("cfsl-duplicate", msg(cfst(C.MQCACF_TOPIC_NAMES), cfsl(C.MQCACF_TOPIC_NAMES)), "MQRCCF_CFSL_DUPLICATE_PARM",
     C.MQCACF_TOPIC_NAMES, True),
    ("duplicate-in-group", msg(cfgr(GRP, 2) + cfst(SUB) + cfst(SUB), count=1), "MQRCCF_CFST_DUPLICATE_PARM",
     SUB, True),
    # header version needed by a structure (strict)
    ("cfbs-in-version-1", msg(cfbs(SUBID), version=1), "MQRCCF_CFH_VERSION_ERROR", SUBID, True),
    ("cfif-in-version-2", msg(cfif(C.MQIA_CURRENT_Q_DEPTH), version=2), "MQRCCF_CFH_VERSION_ERROR",
     C.MQIA_CURRENT_Q_DEPTH, True),
    ("cfsf-in-version-2", msg(cfsf(C.MQCA_Q_DESC), version=2), "MQRCCF_CFH_VERSION_ERROR", C.MQCA_Q_DESC, True),
    ("cfbf-in-version-2", msg(cfbf(SUBID), version=2), "MQRCCF_CFH_VERSION_ERROR", SUBID, True),
    # character sets
    ("ccsid-unknown", msg(cfst(SUB, ccsid=9999)), "MQRC_SOURCE_CCSID_ERROR", SUB, False),
    ("ccsid-unknown-cfsl", msg(cfsl(C.MQCACF_TOPIC_NAMES, ccsid=-1)), "MQRC_SOURCE_CCSID_ERROR",
     C.MQCACF_TOPIC_NAMES, False),
    ("ccsid-unknown-cfsf", msg(cfsf(C.MQCA_Q_DESC, ccsid=5348)), "MQRC_SOURCE_CCSID_ERROR", C.MQCA_Q_DESC, False),
    ("utf16-odd-bytes", msg(cfst(SUB, b"A", ccsid=1200)), "MQRC_NOT_CONVERTED", SUB, False),
]


@pytest.mark.parametrize("data,reason,parameter,strict_only", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_crafted_input_gives_reason(data, reason, parameter, strict_only):
    with pytest.raises(CodecError) as info:
        decode(data, 546)
    err = info.value
    assert err.reason_name == reason, err
    assert err.reason == C.value_of(reason)
    assert err.parameter == parameter
    if strict_only:
        decode(data, 546, strict=False)  # lenient mode accepts it
    else:
        with pytest.raises(CodecError) as info2:
            decode(data, 546, strict=False)
        assert info2.value.reason == err.reason


def test_every_listed_reason_is_covered():
    wanted = """CFH_TYPE_ERROR CFH_LENGTH_ERROR CFH_VERSION_ERROR CFH_PARM_COUNT_ERROR MSG_LENGTH_ERROR
        STRUCTURE_TYPE_ERROR CFIN_LENGTH_ERROR CFST_LENGTH_ERROR CFST_STRING_LENGTH_ERR CFBS_LENGTH_ERROR
        CFBS_STRING_LENGTH_ERR CFIL_LENGTH_ERROR CFIL_COUNT_ERROR CFSL_LENGTH_ERROR CFSL_COUNT_ERROR
        CFSL_STRING_LENGTH_ERR CFIF_LENGTH_ERROR CFIF_OPERATOR_ERROR CFSF_LENGTH_ERROR CFSF_FILTER_VAL_LEN_ERR
        CFSF_OPERATOR_ERROR CFBF_LENGTH_ERROR CFBF_FILTER_VAL_LEN_ERR CFBF_OPERATOR_ERROR CFGR_LENGTH_ERROR
        CFGR_PARM_COUNT_ERROR CFIN_PARM_ID_ERROR CFST_PARM_ID_ERROR CFBS_PARM_ID_ERROR CFIL_PARM_ID_ERROR
        CFSL_PARM_ID_ERROR CFIF_PARM_ID_ERROR CFSF_PARM_ID_ERROR CFBF_PARM_ID_ERROR CFGR_PARM_ID_ERROR
        CFIN_DUPLICATE_PARM CFST_DUPLICATE_PARM CFBS_DUPLICATE_PARM CFSL_DUPLICATE_PARM
        CFH_MSG_SEQ_NUMBER_ERR CFH_CONTROL_ERROR""".split()
    covered = {c[2] for c in CASES}
    assert {"MQRCCF_" + w for w in wanted} <= covered
    for name in covered:
        C.value_of(name)  # every name exists in constants.py


def test_offsets_point_at_the_structure():
    data = msg(cfin(DEST), cfst(SUB, b"ABCD", slen=-1))
    with pytest.raises(CodecError) as info:
        decode(data)
    assert info.value.offset == 36 + 16
    with pytest.raises(CodecError) as info:
        decode(msg(cfin(DEST)) + b"\0\0\0\0")
    assert info.value.offset == 52
    assert info.value.to_json()["error"] == "MQRCCF_MSG_LENGTH_ERROR"


def test_encoding_without_integer_order():
    with pytest.raises(CodecError) as info:
        decode(msg(cfin(DEST)), 0)
    assert info.value.reason == C.MQRCCF_ENCODING_ERROR
    with pytest.raises(CodecError):
        decode(msg(cfin(DEST)), 0x3)  # integer part 3: undefined


def test_message_ccsid_applies_when_structure_ccsid_is_0():
    data = msg(cfst(SUB, b"\xc1\xc2"))  # EBCDIC "AB"
    assert decode(data, ccsid=500).parameters[0] == CFST(SUB, "AB", 0)
    assert decode(data, ccsid=819).parameters[0] == CFST(SUB, "\xc1\xc2", 0)
    assert decode(msg(cfst(SUB, b"\xc1\xc2", ccsid=37)), ccsid=819).parameters[0].value == "AB"
    # no CCSID anywhere: UTF-8, invalid bytes kept by surrogateescape
    value = decode(msg(cfst(SUB, b"\xff\xc3\xa9"))).parameters[0].value
    assert value == "\udcff\xe9"
    with pytest.raises(CodecError) as info:
        decode(data, ccsid=4242)
    assert info.value.reason == C.MQRC_SOURCE_CCSID_ERROR and info.value.parameter == SUB


def test_string_value_is_never_stripped_and_pad_is_ignored():
    data = msg(cfst(SUB, b"Q1  ", sl=32) + b"\x07" * 8)
    assert decode(data).parameters[0].value == "Q1  "
    data = msg(cfbs(SUBID, b"\0\1", sl=24) + b"\xff" * 4)
    assert decode(data).parameters[0].value == b"\0\1"


def test_lenient_cfil_accepts_longer_structure():
    data = msg(cfil(C.MQIACF_SUB_ATTRS, (7, 8), count=1))
    assert decode(data, strict=False).parameters[0] == CFIL(C.MQIACF_SUB_ATTRS, (7,))


def test_groups_may_repeat_and_ids_repeat_across_levels():
    data = msg(cfst(SUB), cfgr(GRP, 1) + cfst(SUB), cfgr(GRP, 1) + cfst(SUB), cfif(DEST), cfin(DEST))
    m = decode(data)
    assert [type(p) for p in m] == [CFST, CFGR, CFGR, CFIF, CFIN]


def test_nesting_at_the_limit_is_accepted():
    nest = b"".join(cfgr(GRP, 1) for _ in range(MAX_GROUP_DEPTH))
    m = decode(msg(nest + cfin(DEST), count=1))
    depth = 0
    node = m.parameters[0]
    while isinstance(node, CFGR):
        depth += 1
        node = node.parameters[0]
    assert depth == MAX_GROUP_DEPTH and node == CFIN(DEST, 0)
    assert decode(encode(m)) == m


def test_deep_nesting_far_past_the_limit_fails_fast():
    nest = b"".join(cfgr(GRP, 1) for _ in range(100_000))
    with pytest.raises(CodecError) as info:
        decode(msg(nest + cfin(DEST), count=1))
    assert info.value.reason == C.MQRCCF_STRUCTURE_TYPE_ERROR


def test_huge_lies_fail_fast():
    # A 40-byte message claiming a 2^31-element list; a 10^9 parameter count.
    data = hdr(1) + struct.pack("<i", C.MQCFT_INTEGER_LIST)
    with pytest.raises(CodecError):
        decode(data)
    data = msg(cfil(C.MQIACF_SUB_ATTRS, (), sl=2**31 - 4, count=2**29 - 4))
    with pytest.raises(CodecError) as info:
        decode(data)
    assert info.value.reason == C.MQRCCF_MSG_LENGTH_ERROR
    with pytest.raises(CodecError):
        decode(hdr(10**9) + cfin(DEST) * 10)


def test_memoryview_and_bytearray_input():
    data = msg(cfbs(SUBID, b"abcd"))
    for view in (bytearray(data), memoryview(data)):
        m = decode(view)
        assert m.parameters[0].value == b"abcd" and type(m.parameters[0].value) is bytes


# --- API ----------------------------------------------------------------------------------------------


def test_uniform_value_api():
    params = [
        CFIN(1, 5), CFIN64(2, 2**40), CFIL(3, (1, 2)), CFIL64(4, (2**40,)), CFST(2001, "x"),
        CFSL(2002, ("a", "b")), CFBS(7001, b"z"), CFGR(8001, [CFIN(1, 1)]), CFIF(5, C.MQCFOP_LESS, 3),
        CFSF(2003, C.MQCFOP_LIKE, "A*"), CFBF(7002, C.MQCFOP_EQUAL, b"\0"),
    ]
    values = [p.value for p in params]
    assert values == [5, 2**40, (1, 2), (2**40,), "x", ("a", "b"), b"z", [CFIN(1, 1)], 3, "A*", b"\0"]
    assert [p.parameter for p in params] == [1, 2, 3, 4, 2001, 2002, 7001, 8001, 5, 2003, 7002]
    m = PCFMessage(CFH(C.MQCFT_COMMAND_XR, ParameterCount=len(params)), params)
    assert list(m) == params and m.get(8001).get(1) == CFIN(1, 1) and m.get(8001).get(2) is None
    assert decode(encode(m)) == m
    assert CFH(C.MQCFT_COMMAND) == CFH(1, 36, 3, 0, 1, 1, 0, 0, 0)


def test_json_names():
    view = to_json(PCFMessage(CFH(C.MQCFT_RESPONSE, Command=C.MQCMD_INQUIRE_SUBSCRIPTION, CompCode=2,
                                  Reason=C.MQRCCF_SUB_ALREADY_EXISTS), [CFIF(1, C.MQCFOP_GREATER, 0)]))
    h = view["header"]
    assert h["struct"] == "MQCFH" and h["Type_name"] == "MQCFT_RESPONSE"
    assert h["Command_name"] == "MQCMD_INQUIRE_SUBSCRIPTION"
    assert h["CompCode_name"] == "MQCC_FAILED" and h["Reason_name"] == "MQRCCF_SUB_ALREADY_EXISTS"
    assert view["parameters"][0] == {"struct": "MQCFIF", "parameter": 1, "operator": 4,
                                     "operator_name": "MQCFOP_GREATER", "value": 0}


def test_encode_computes_lengths_and_counts():
    m = PCFMessage(CFH(C.MQCFT_COMMAND_XR, StrucLength=99, ParameterCount=77),
                   [CFGR(8001, [CFIN(1, 1), CFST(2001, "abcde")]), CFIN(2, 2)])
    data = encode(m)
    assert struct.unpack_from("<9i", data)[1] == 36 and struct.unpack_from("<9i", data)[8] == 2
    assert struct.unpack_from("<4i", data, 36) == (C.MQCFT_GROUP, 16, 8001, 2)
    assert struct.unpack_from("<5i", data, 36 + 16 + 16) == (C.MQCFT_STRING, 28, 2001, 0, 5)
    assert data[36 + 32 + 25:36 + 32 + 28] == b"\0\0\0"


def test_encode_cfsl_pads_with_blanks_of_the_ccsid():
    data = encode(PCFMessage(CFH(1), [CFSL(2001, ("A", "BBB"), 500)]))
    assert struct.unpack_from("<6i", data, 36) == (C.MQCFT_STRING_LIST, 32, 2001, 500, 2, 3)
    assert data[60:66] == "A  BBB".encode("cp500") and data[61] == 0x40
    assert decode(data).parameters[0].values == ("A  ", "BBB")
    data = encode(PCFMessage(CFH(1), [CFSL(2001, ())]))
    assert decode(data).parameters[0] == CFSL(2001, (), 0)


def test_encode_text_uses_message_ccsid():
    m = PCFMessage(CFH(1, ParameterCount=1), [CFST(2001, "é")])
    assert encode(m)[-4:] == "é".encode("utf-8") + b"\0\0"
    assert encode(m, ccsid=819)[-4:] == b"\xe9\0\0\0"
    assert decode(encode(m, 273, ccsid=819), 273, ccsid=819) == m


@pytest.mark.parametrize("bad", [
    [object()],
    [CFIN(1, 2**31)],
    [CFIN("1", 1)],
    [CFIN64(1, 2**63)],
    [CFIL(1, (1, "2"))],
    [CFST(2001, "€", 819)],
    [CFST(2001, "x", 4242)],
    [CFST(2001, None)],
    [CFBS(7001, "text")],
    [CFBS(7001, 5)],
    [CFSL(2001, "abc")],
    [CFGR(8001, [CFIN(1, 1), "x"])],
])
def test_encode_rejects_unencodable_objects(bad):
    with pytest.raises(ValueError) as info:
        encode(PCFMessage(CFH(1), bad))
    assert not isinstance(info.value, CodecError)


def test_encode_rejects_bad_encoding_ccsid_and_depth():
    with pytest.raises(ValueError):
        encode(PCFMessage(CFH(1), []), 0)
    with pytest.raises(ValueError):
        encode(PCFMessage(CFH(1), [CFST(2001, "x")]), ccsid=4242)
    assert encode(PCFMessage(CFH(1), [CFIN(1, 1)]), ccsid=4242)  # no text: the CCSID is never needed
    inner = CFIN(1, 1)
    for _ in range(MAX_GROUP_DEPTH + 1):
        inner = CFGR(8001, [inner])
    with pytest.raises(ValueError):
        encode(PCFMessage(CFH(1), [inner]))


# --- hypothesis: round trips --------------------------------------------------------------------------

CCSIDS = [0, 819, 1208, 437, 850, 1252, 500, 37]
INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
OPS = st.sampled_from(sorted(v for n, v in vars(C).items() if n.startswith("MQCFOP_")))
MSG_TYPES = st.sampled_from([C.MQCFT_COMMAND, C.MQCFT_RESPONSE, C.MQCFT_COMMAND_XR, C.MQCFT_EVENT,
                             C.MQCFT_STATISTICS, C.MQCFT_USER, C.MQCFT_XR_ITEM, C.MQCFT_STATUS])


def _codec(ccsid: int, msg_ccsid: int) -> str:
    return codec_for_ccsid(ccsid or msg_ccsid) or "utf-8"


def _text(codec: str, max_size: int = 40):
    # Text made from bytes always re-encodes to those bytes (surrogateescape), so any CCSID works.
    from_bytes = st.binary(max_size=max_size).map(lambda b: b.decode(codec, "surrogateescape"))
    if codec == "utf-8":
        return st.one_of(from_bytes, st.text(max_size=max_size))
    return from_bytes


@st.composite
def _param(draw, msg_ccsid: int, valid_ids: bool):
    def pid(lo, hi):
        return draw(st.integers(lo, hi) if valid_ids else INT32)

    kind = draw(st.sampled_from("IJLMSTBFGH"))
    if kind == "I":
        return CFIN(pid(1, 2000), draw(INT32))
    if kind == "J":
        return CFIN64(pid(1, 2000), draw(INT64))
    if kind == "L":
        return CFIL(pid(1, 2000), tuple(draw(st.lists(INT32, max_size=6))))
    if kind == "M":
        return CFIL64(pid(1, 2000), tuple(draw(st.lists(INT64, max_size=6))))
    if kind in "ST":
        ccsid = draw(st.sampled_from(CCSIDS))
        codec = _codec(ccsid, msg_ccsid)
        if kind == "S":
            return CFST(pid(2001, 4000), draw(_text(codec)), ccsid)
        size = draw(st.integers(0, 12))
        raws = draw(st.lists(st.binary(min_size=size, max_size=size), max_size=5))
        return CFSL(pid(2001, 4000), tuple(r.decode(codec, "surrogateescape") for r in raws), ccsid)
    if kind == "B":
        return CFBS(pid(6001, 8000), draw(st.binary(max_size=40)))
    if kind == "F":
        which = draw(st.sampled_from("isb"))
        if which == "i":
            return CFIF(pid(1, 2000), draw(OPS), draw(INT32))
        if which == "s":
            ccsid = draw(st.sampled_from(CCSIDS))
            return CFSF(pid(2001, 4000), draw(OPS), draw(_text(_codec(ccsid, msg_ccsid))), ccsid)
        return CFBF(pid(6001, 8000), draw(OPS), draw(st.binary(max_size=24)))
    return None  # "G"/"H": a group, built by _params


@st.composite
def _params(draw, msg_ccsid: int, valid_ids: bool, depth: int = 0):
    out = []
    for _ in range(draw(st.integers(0, 6 if depth == 0 else 3))):
        p = draw(_param(msg_ccsid, valid_ids))
        if p is None:
            if depth >= 3:
                continue
            gid = draw(st.integers(8001, 2**31 - 1) if valid_ids else INT32)
            p = CFGR(gid, draw(_params(msg_ccsid, valid_ids, depth + 1)))
        out.append(p)
    if valid_ids:  # no duplicate ids at one level (groups and filters would be allowed; keep it simple)
        seen, unique = set(), []
        for p in out:
            if p.parameter not in seen:
                seen.add(p.parameter)
                unique.append(p)
        out = unique
    return out


@st.composite
def messages(draw, valid_ids: bool = True):
    msg_ccsid = draw(st.sampled_from(CCSIDS))
    params = draw(_params(msg_ccsid, valid_ids))
    header = CFH(
        Type=draw(MSG_TYPES), Version=3 if valid_ids else draw(st.integers(1, 3)),
        Command=draw(INT32), MsgSeqNumber=draw(st.integers(1, 2**31 - 1)) if valid_ids else draw(INT32),
        Control=draw(st.sampled_from([0, 1])) if valid_ids else draw(INT32),
        CompCode=draw(INT32), Reason=draw(INT32), ParameterCount=len(params),
    )
    return PCFMessage(header, params), msg_ccsid


ENCODINGS = st.sampled_from([273, 546])
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(messages(valid_ids=True), ENCODINGS)
def test_round_trip_strict(mc, encoding):
    m, ccsid = mc
    data = encode(m, encoding, ccsid)
    assert decode(data, encoding, ccsid) == m
    assert len(data) % 4 == 0


@FAST
@given(messages(valid_ids=False), ENCODINGS)
def test_round_trip_lenient_any_ids(mc, encoding):
    m, ccsid = mc
    assert decode(encode(m, encoding, ccsid), encoding, ccsid, strict=False) == m


# --- hypothesis: mutation fuzz ------------------------------------------------------------------------

LIES = [0, 1, -1, 2, 3, 4, 15, 16, 17, 20, 24, 36, 2**31 - 1, -(2**31), 2**30, 2**16, 8001, 6001, 2001]


@st.composite
def mutated(draw):
    m, ccsid = draw(messages(valid_ids=draw(st.booleans())))
    encoding = draw(ENCODINGS)
    data = bytearray(encode(m, encoding, ccsid))
    order = "<" if encoding == 546 else ">"
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "truncate", "extend", "lie", "lie", "nudge"]))
        if op == "flip" and data:
            i = draw(st.integers(0, len(data) - 1))
            data[i] ^= draw(st.integers(1, 255))
        elif op == "truncate":
            del data[draw(st.integers(0, len(data))):]
        elif op == "extend":
            data += draw(st.binary(min_size=1, max_size=40))
        elif op in ("lie", "nudge") and len(data) >= 4:
            i = draw(st.integers(0, len(data) // 4 - 1)) * 4
            if op == "lie":
                value = draw(st.sampled_from(LIES))
            else:
                old = struct.unpack_from(order + "i", data, i)[0]
                value = max(-(2**31), min(2**31 - 1, old + draw(st.sampled_from([-8, -4, -1, 1, 4, 8]))))
            struct.pack_into(order + "i", data, i, value)
    return bytes(data), encoding, ccsid


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.booleans())
def test_mutations_decode_or_raise_codec_error(case, strict):
    data, encoding, ccsid = case
    for enc in (encoding, 273 if encoding == 546 else 546):
        try:
            m = decode(data, enc, ccsid, strict=strict)
        except CodecError as err:
            assert err.reason != C.MQRCCF_UNEXPECTED_ERROR, err  # the safety net never fires
            assert isinstance(err.reason, int)
            continue
        # Whatever decodes is canonical after one more trip.
        assert decode(encode(m, enc, ccsid), enc, ccsid, strict=strict) == m


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), ENCODINGS, st.sampled_from(CCSIDS + [1200, 4242]), st.booleans())
def test_random_bytes_decode_or_raise_codec_error(data, encoding, ccsid, strict):
    prefix = hdr(3, o="<" if encoding == 546 else ">")
    for candidate in (data, prefix + data):
        try:
            decode(candidate, encoding, ccsid, strict=strict)
        except CodecError as err:
            assert err.reason != C.MQRCCF_UNEXPECTED_ERROR, err


def test_utf16_text_is_decoded_strictly_so_it_round_trips():
    m = PCFMessage(CFH(1, ParameterCount=2), [CFST(2001, "héllo €", 1200), CFSL(2002, ("ab", "c"), 1200)])
    data = encode(m)
    assert decode(data) == PCFMessage(m.header, [m.parameters[0], CFSL(2002, ("ab", "c "), 1200)])
    for bad in (b"\xd8\x00\x00\x41", b"\xdc\x00", b"\x00"):  # lone surrogates, odd length
        with pytest.raises(CodecError) as info:
            decode(msg(cfst(SUB, bad, ccsid=1200)))
        assert info.value.reason == C.MQRC_NOT_CONVERTED
    with pytest.raises(ValueError):
        encode(PCFMessage(CFH(1), [CFST(2001, "\udcff", 1200)]))
