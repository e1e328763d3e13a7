"""MQMD, MQPMO and MQGMO remember what they decoded and the MQCHAR fields they encoded (pcf/mqi.py,
decision HP2): the answers must be byte for byte and field for field the general path's.

Every version of each structure, both byte orders and three codecs, with hypothesis choosing the
field values: decoding on an empty memo (the general path) and again from the memo give equal
structures; packing with empty encoder tables and again from the tables give the same bytes, which
are also the bytes of a field-by-field ``encode_char`` reference; a decoded structure changed in place
(as the domain fills in a put's MQMD) never changes what the memo answers next."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import mqi
from qmlite.pcf.encoding import encode_char

ORDERS = ("<", ">")
CODECS = ("latin-1", "utf-8", "cp500")
# (class, versions, its memo, {char field: length})
SHAPES = [
    (mqi.MQMD, (1, 2), "_MD_SEEN", {"Format": 8, "ReplyToQ": 48, "ReplyToQMgr": 48, "UserIdentifier": 12,
                                    "ApplIdentityData": 32, "PutApplName": 28, "PutDate": 8, "PutTime": 8,
                                    "ApplOriginData": 4}),
    (mqi.MQPMO, (1, 2, 3), "_PMO_SEEN", {"ResolvedQName": 48, "ResolvedQMgrName": 48}),
    (mqi.MQGMO, (1, 2, 3, 4), "_GMO_SEEN", {"ResolvedQName": 48}),
]
BINARY = {"MsgId": 24, "CorrelId": 24, "AccountingToken": 32, "GroupId": 24, "MsgToken": 16}
SMALL_INTS = {"GroupStatus", "SegmentStatus", "Segmentation", "Reserved1"}  # single MQCHARs (byte values)
WIDE = {"MsgHandle", "OriginalMsgHandle", "NewMsgHandle"}  # 64-bit handles

text = st.text(alphabet=st.sampled_from("ABCXYZ.*_ 0189éü"), max_size=6)


def _reference_pack(obj, order: str, codec: str) -> bytes:
    """The general path: the structure packed after every remembered encoding was forgotten."""
    mqi._ENCODED.clear()
    return obj.pack(order, codec)


@st.composite
def structures(draw, shape):
    cls, versions, _memo, chars = shape
    values = {"Version": draw(st.sampled_from(versions))}
    for f in dataclasses.fields(cls):
        if f.name == "Version":
            continue
        if f.name in chars:
            values[f.name] = draw(text).rstrip(" ")[:chars[f.name] // 2]
        elif f.name in BINARY:
            values[f.name] = draw(st.binary(min_size=BINARY[f.name], max_size=BINARY[f.name]))
        elif f.name in SMALL_INTS:
            values[f.name] = draw(st.integers(0, 255))
        elif f.name in WIDE:
            values[f.name] = draw(st.integers(-2**63, 2**63 - 1))
        else:
            values[f.name] = draw(st.integers(-2**31, 2**31 - 1))
    return cls(**values)


@pytest.mark.parametrize("shape", SHAPES, ids=[s[0].__name__ for s in SHAPES])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_remembered_decoding_and_encoding_are_the_general_paths(shape, data):
    cls, _versions, memo_name, chars = shape
    obj = data.draw(structures(shape))
    order = data.draw(st.sampled_from(ORDERS))
    codec = data.draw(st.sampled_from(CODECS))
    memo = getattr(mqi, memo_name)

    reference = _reference_pack(obj, order, codec)
    assert obj.pack(order, codec) == reference  # now from the encoder tables
    # ... and each MQCHAR field is encode_char's own bytes (the tables never answer another length)
    fixed = cls.unpack(reference, 0, order, codec)[0]
    for name, length in chars.items():
        if name in dataclasses.asdict(fixed):
            assert encode_char(getattr(fixed, name), length, codec) in reference

    memo.clear()
    cold, end_cold = cls.unpack(reference, 0, order, codec)  # the general path
    assert len(memo) == 1
    warm, end_warm = cls.unpack(reference, 0, order, codec)  # from the memo
    assert (warm, end_warm) == (cold, end_cold) and warm is not cold
    assert warm.pack(order, codec) == reference

    # The domain fills a decoded structure in place: the memo's answer stays the bytes' own.
    for name in chars:
        setattr(warm, name, "CHANGED")
    again, _ = cls.unpack(reference, 0, order, codec)
    assert again == cold


def test_the_memo_is_bounded():
    memo = mqi._MD_SEEN
    memo.clear()
    for i in range(memo.LIMIT + 10):
        mqi.MQMD.unpack(mqi.MQMD(Version=2, MsgId=b"%024d" % i).pack("<"), 0, "<")
    assert 0 < len(memo) <= memo.LIMIT


def test_an_encoding_error_is_not_remembered():
    mqi._ENCODED.clear()
    with pytest.raises(ValueError):
        mqi.MQMD(Version=2, UserIdentifier="x" * 13).pack("<")
    assert "x" * 13 not in mqi._encoders("latin-1")[12]
