"""``fap.api_reply_head`` (decision HP4): an MQI reply's segment and API headers, their fixed part packed
once per (type, byte order, encoding, CCSID), against the same segment built field by field through
``SegmentHeader`` and ``ApiHeader`` -- every field chosen by hypothesis, calls of different shapes
interleaved so a remembered fixed part is never another shape's."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from qmlite.pcf import fap

MQI_TYPES = sorted(t for t in fap.SEGMENT_TYPE_NAMES if fap.is_mqi_type(t))
i32 = st.integers(-2**31, 2**31 - 1)


def _reference(request: fap.SegmentHeader, body: bytes, comp: int, reason: int, hobj: int, byte_order: int,
               encoding: int, ccsid: int) -> bytes:
    """The reply as the structures themselves pack it (docs/reference/fap.md 5 and 10)."""
    hl = request.header_length
    total = hl + fap.API_HEADER_LENGTH + len(body)
    t = request.SegmentType
    header = fap.SegmentHeader(request.StructId, total, request.ConversationId if request.StructId == fap.TSHM else 0,
                               request.RequestId if request.StructId == fap.TSHM else 0, byte_order,
                               t | fap.REPLY if fap.is_mqi_type(t) else t, fap.CF1_FIRST | fap.CF1_LAST, 0, bytes(8),
                               encoding, ccsid, 0)
    order = fap.BIG if byte_order == 1 else fap.LITTLE
    return header.pack() + fap.ApiHeader(total - 8, comp, reason, hobj).pack(order) + body


replies = st.tuples(
    st.sampled_from([fap.TSHM, fap.TSH, fap.TSHC]), st.sampled_from(MQI_TYPES + [fap.HEARTBEAT]),
    st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.binary(max_size=40), i32, i32, i32,
    st.sampled_from([1, 2]), st.sampled_from([0x222, 0x111, 0x112, 546]), st.sampled_from([819, 1208, 437, 500]))


@settings(max_examples=300, deadline=None)
@given(st.lists(replies, min_size=1, max_size=6))
def test_the_reply_head_is_the_headers_packed_field_by_field(cases):
    for struct_id, t, conv, req, body, comp, reason, hobj, byte_order, encoding, ccsid in cases:
        if struct_id != fap.TSHM:
            conv = req = 0
        request = fap.SegmentHeader(struct_id, 0, conv, req, 2, t)
        expected = _reference(request, body, comp, reason, hobj, byte_order, encoding, ccsid)
        kw = dict(comp_code=comp, reason=reason, hobj=hobj, byte_order=byte_order, encoding=encoding, ccsid=ccsid)
        assert fap.api_reply_head(request, len(body), **kw) + body == expected
        assert fap.api_reply(request, body, **kw) == expected


def test_the_remembered_fixed_parts_are_bounded():
    fap._REPLY_FIXED.clear()
    request = fap.SegmentHeader(fap.TSHM, 0, 1, 0, 2, fap.MQPUT)
    for ccsid in range(1100):
        head = fap.api_reply_head(request, 0, ccsid=ccsid)
        assert fap.SegmentHeader.unpack(head)[0].CCSID == ccsid
    assert 0 < len(fap._REPLY_FIXED) <= 1024
