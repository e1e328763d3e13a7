"""An MQPUT's MQMD+MQPMO and an MQGET's MQMD+MQGMO decoded as one by their bytes (pcf/calls.py, decision
HP6): field for field the general path's, which decodes each structure on its own.

hypothesis chooses every field of the MQMD and the options (each Version of both), the byte order, the codec
and the data; the request is decoded with every memo empty (the general path), then again (from the memo),
then changed in place as the domain does, then decoded again.  Damaged requests -- a StrucId, a Version, a
length cut short, a negative DataLength or BufferLength -- fail with the general path's reason whether or
not their undamaged bytes were remembered."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import calls, mqi
from qmlite.pcf import constants as C
from qmlite.pcf.errors import CodecError

from tests.pcf.test_mqi_memo import CODECS, ORDERS, SHAPES, structures

MD, PMO, GMO = SHAPES


def _forget() -> None:
    for memo in (calls._PUTS, calls._GETS, mqi._MD_SEEN, mqi._PMO_SEEN, mqi._GMO_SEEN):
        memo.clear()


def _general(cls, buf: bytes, order: str, codec: str):
    """The request decoded structure by structure, with no memo to answer from."""
    _forget()
    if cls is calls.MQPutRequest:
        md, pos = mqi.MQMD.unpack(buf, 0, order, codec)
        pmo, pos = mqi.MQPMO.unpack(buf, pos, order, codec)
        _n, data, pos = calls._data(buf, pos, order)
        return calls.MQPutRequest(md, pmo, data), pos
    md, pos = mqi.MQMD.unpack(buf, 0, order, codec)
    gmo, pos = mqi.MQGMO.unpack(buf, pos, order, codec)
    n = calls._int(buf, pos, order, C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
    if n < 0:
        raise CodecError(C.MQRC_BUFFER_LENGTH_ERROR, family="MQRC")
    return calls.MQGetRequest(md, gmo, n), pos + 4


@st.composite
def requests(draw):
    order = draw(st.sampled_from(ORDERS))
    codec = draw(st.sampled_from(CODECS))
    md = draw(structures(MD))
    if draw(st.booleans()):
        req = calls.MQPutRequest(md, draw(structures(PMO)), draw(st.binary(max_size=64)))
    else:
        req = calls.MQGetRequest(md, draw(structures(GMO)), draw(st.integers(0, 2**31 - 1)))
    tail = draw(st.binary(max_size=8))  # bytes after the body are not the request's
    return req, req.pack(order, codec) + tail, order, codec


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(requests())
def test_a_remembered_request_is_the_general_decoding(case):
    req, buf, order, codec = case
    cls = type(req)
    general, end = _general(cls, buf, order, codec)
    memo = calls._PUTS if cls is calls.MQPutRequest else calls._GETS
    cold = cls.unpack(buf, 0, order, codec)  # remembers
    assert len(memo) == 1
    warm = cls.unpack(buf, 0, order, codec)  # from the memo
    assert cold == warm == (general, end)
    assert warm[0].MsgDesc is not cold[0].MsgDesc and warm[0].MsgDesc is not general.MsgDesc
    options = "PutMsgOpts" if cls is calls.MQPutRequest else "GetMsgOpts"
    assert getattr(warm[0], options) is not getattr(cold[0], options)
    assert warm[0].pack(order, codec) == buf[:end]
    # The domain fills a put's MQMD and a get's MQGMO in place: the memo answers the bytes' own values.
    warm[0].MsgDesc.UserIdentifier = "CHANGED"
    warm[0].MsgDesc.MsgId = b"\xff" * 24
    getattr(warm[0], options).ResolvedQName = "CHANGED"
    assert cls.unpack(buf, 0, order, codec) == (general, end)


def _damaged(buf: bytes, order: str, md_size: int):
    """The request's bytes spoiled one way at a time: (what was done, the bytes)."""
    i32 = struct.Struct(order + "i")
    yield "MQMD StrucId", b"XX  " + buf[4:]
    yield "MQMD Version", buf[:4] + i32.pack(9) + buf[8:]
    yield "options StrucId", buf[:md_size] + b"XXX " + buf[md_size + 4:]
    yield "options Version", buf[:md_size + 4] + i32.pack(9) + buf[md_size + 8:]
    for cut in (0, 7, md_size - 1, md_size + 7, len(buf) - 1):
        yield f"cut at {cut}", buf[:cut]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("kind", ["put", "get"])
def test_damaged_requests_fail_as_the_general_path_fails(kind, order):
    md = mqi.MQMD(Version=2, MsgId=b"M" * 24)
    if kind == "put":
        req = calls.MQPutRequest(md, mqi.MQPMO(Version=2), b"payload")
        negative = req.pack(order)[:-len(b"payload") - 4] + struct.pack(order + "i", -1)
    else:
        req = calls.MQGetRequest(md, mqi.MQGMO(Version=2), 100)
        negative = req.pack(order)[:-4] + struct.pack(order + "i", -1)
    cls, buf = type(req), req.pack(order)
    outcomes = 0
    for remembered in (False, True):
        _forget()
        if remembered:
            cls.unpack(buf, 0, order)  # the undamaged bytes' structures in the memo
        for what, bad in [*_damaged(buf, order, 364), ("negative length", negative)]:
            with pytest.raises(CodecError) as general:
                _general(cls, bad, order, "latin-1")
            if remembered:
                cls.unpack(buf, 0, order)
            with pytest.raises(CodecError) as fused:
                cls.unpack(bad, 0, order)
            assert (fused.value.family, fused.value.reason) == (general.value.family, general.value.reason), what
            outcomes += 1
    assert outcomes == 2 * 10


def test_the_request_memos_are_bounded():
    memo = calls._PUTS
    memo.clear()
    for i in range(memo.LIMIT + 10):
        req = calls.MQPutRequest(mqi.MQMD(Version=2, MsgId=b"%024d" % i), mqi.MQPMO(Version=2), b"x")
        calls.MQPutRequest.unpack(req.pack("<"), 0, "<")
    assert 0 < len(memo) <= memo.LIMIT


def test_an_md_field_of_the_wrong_type_or_length_is_refused_as_before():
    for name in ("MsgId", "CorrelId", "GroupId", "AccountingToken"):
        with pytest.raises(ValueError):
            mqi.MQMD(Version=2, **{name: b"short"}).pack("<")
        with pytest.raises(ValueError):
            mqi.MQMD(Version=2, **{name: "x" * (32 if name == "AccountingToken" else 24)}).pack("<")
    as_bytes = mqi.MQMD(Version=2, MsgId=b"A" * 24, AccountingToken=b"T" * 32).pack("<")
    as_bytearray = mqi.MQMD(Version=2, MsgId=bytearray(b"A" * 24), AccountingToken=memoryview(b"T" * 32)).pack("<")
    assert as_bytes == as_bytearray
    # a version 1 MQMD never reads GroupId
    assert mqi.MQMD(Version=1, GroupId=b"short").pack("<") == mqi.MQMD(Version=1).pack("<")
