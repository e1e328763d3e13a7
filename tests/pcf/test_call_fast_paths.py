"""The framer's one-whole-segment path and ``fap.decode_call`` (decision HP3) against the general
code they shortcut: a sweep over every MQI request and reply type, both byte orders, TSH and TSHM,
first/middle/last flags and body lengths around the API header's 16 bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from qmlite.pcf import fap
from qmlite.pcf.errors import CodecError
from qmlite.pcf.framer import Framer

MQI_TYPES = sorted(t for t in fap.SEGMENT_TYPE_NAMES if fap.is_mqi_type(t))
OTHER_TYPES = [fap.INITIAL_DATA, fap.HEARTBEAT, fap.USERID_DATA, fap.STATUS_DATA, fap.SOCKET_ACTION]
FLAGS = [fap.CF1_FIRST | fap.CF1_LAST, fap.CF1_FIRST, 0, fap.CF1_LAST]
BODIES = [b"", bytes(range(15)), bytes(range(16)), bytes(range(40)), b"\xff" * 300]


def _segments():
    for t in MQI_TYPES + OTHER_TYPES:
        for struct_id in (fap.TSHM, fap.TSH):
            for byte_order in (1, 2):
                for flags in FLAGS:
                    for body in BODIES:
                        ids = {"conversation_id": 3, "request_id": 7} if struct_id == fap.TSHM else {}
                        yield t, fap.encode_segment(t, body, struct_id=struct_id, byte_order=byte_order,
                                                    control_flags1=flags, **ids)


def _bytewise(data: bytes):
    """The general path: the same bytes fed one at a time."""
    framer = Framer(max_segment_length=65536)
    out = []
    for i in range(len(data)):
        out += framer.feed(data[i:i + 1])
    return out


def test_one_whole_segment_is_framed_as_the_general_path_frames_it():
    count = 0
    for _t, data in _segments():
        fast = Framer(max_segment_length=65536).feed(data)
        assert fast == _bytewise(data), data[:40]
        count += 1
    assert count == len(MQI_TYPES + OTHER_TYPES) * 2 * 2 * len(FLAGS) * len(BODIES)


def test_the_one_segment_path_refuses_what_the_general_path_refuses():
    data = fap.encode_segment(fap.MQPUT, b"x" * 100, struct_id=fap.TSHM, conversation_id=1)
    for limit in (len(data) - 1, len(data)):
        outcome = []
        for feed in (lambda d: Framer(max_segment_length=limit).feed(d), _bytewise_limited(limit)):
            try:
                outcome.append(feed(data))
            except CodecError as exc:
                outcome.append((exc.family, exc.reason))
        assert outcome[0] == outcome[1]
    bad_order = bytearray(data)
    bad_order[16] = 3  # ByteOrder neither 1 nor 2
    with pytest.raises(CodecError) as fast:
        Framer(max_segment_length=65536).feed(bytes(bad_order))
    with pytest.raises(CodecError) as general:
        _bytewise(bytes(bad_order))
    assert fast.value.reason == general.value.reason == fap.ENCODING_INVALID


def _bytewise_limited(limit: int):
    def feed(data: bytes):
        framer = Framer(max_segment_length=limit)
        out = []
        for i in range(len(data)):
            out += framer.feed(data[i:i + 1])
        return out
    return feed


@pytest.mark.parametrize("struct_id", [fap.TSHM, fap.TSH])
def test_decode_call_is_decode_body_of_a_first_segment(struct_id):
    checked = 0
    for t, data in _segments():
        if fap.SEGMENT_TYPE_NAMES.get(t) is None or not fap.is_mqi_type(t):
            continue
        (seg,) = Framer(max_segment_length=65536).feed(data)
        if seg.header.StructId != struct_id:
            continue
        try:
            general = fap.decode_body(seg, first=True)
        except CodecError as exc:
            with pytest.raises(CodecError) as fast:
                fap.decode_call(seg)
            assert (fast.value.family, fast.value.reason) == (exc.family, exc.reason)
            continue
        assert fap.decode_call(seg) == general
        checked += 1
    assert checked > len(MQI_TYPES) * 4


def test_decode_whole_call_is_the_header_and_call_the_general_path_decodes():
    """``fap.decode_whole_call`` (decision HP8) on every little-endian MQI segment of the sweep (MQCONN's aside:
    the channel never asks) whose body holds an API header: TSHM ones decode as ``decode_header`` and
    ``decode_call`` decode them; TSH ones, and any whose SegmentLength is not the bytes' length, are declined."""
    taken = declined = 0
    for t, data in _segments():
        if not fap.is_mqi_type(t) or t in (fap.MQCONN, fap.MQCONN_REPLY):
            continue
        if data[16 if data[:4] == b"TSHM" else 8] != 2 or len(data) < fap.TSHM_LENGTH + fap.API_HEADER_LENGTH:
            continue
        if data[:4] != b"TSHM":
            assert fap.decode_whole_call(data) is None
            declined += 1
            continue
        header, call = fap.decode_whole_call(data)
        seg = fap.Segment(fap.decode_header(data), data[fap.TSHM_LENGTH:])
        assert header == seg.header
        assert call == fap.decode_call(seg)
        for wrong in (len(data) - 1, len(data) + 1):  # a SegmentLength that is not the bytes'
            assert fap.decode_whole_call(data[:4] + wrong.to_bytes(4, "big") + data[8:]) is None
        taken += 1
    assert taken and declined


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 255), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 2**24),
       st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1),
       st.sampled_from([1, 2]))
def test_a_reply_head_with_every_default_is_the_general_paths(t, conv, req, length, comp, reason, hobj, order):
    """``api_reply_head`` of a TSHM request with every default (decision HP9) against its general path, taken
    by naming the reply's type: the same bytes, whatever the request's type, ids, byte order and the codes."""
    request = fap.SegmentHeader(fap.TSHM, 0, conv, req, order, t)
    fast = fap.api_reply_head(request, length, comp_code=comp, reason=reason, hobj=hobj)
    general = fap.api_reply_head(request, length, comp_code=comp, reason=reason, hobj=hobj,
                                 segment_type=t | fap.REPLY if fap.is_mqi_type(t) else t)
    assert fast == general
