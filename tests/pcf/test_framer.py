"""Framer (any chunking, bounded buffering), Reassembler and split_call."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import errors, fap
from qmlite.pcf.errors import CodecError
from qmlite.pcf.framer import (INITIAL_MAX_SEGMENT_LENGTH, Framer, Reassembler, split_call)

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_status(exc_info, code):
    assert exc_info.value.family == errors.STATUS
    assert exc_info.value.reason == code


@st.composite
def segments(draw):
    sid = draw(st.sampled_from(["TSH ", "TSHC", "TSHM"]))
    tshm = sid == "TSHM"
    return fap.encode_segment(
        draw(st.sampled_from([1, 5, 9, 0x0C, 0x0D, 0x81, 0x86, 0x95])),
        draw(st.binary(max_size=300)), struct_id=sid,
        conversation_id=draw(st.integers(0, 2**32 - 1)) if tshm else 0,
        request_id=draw(st.integers(0, 2**32 - 1)) if tshm else 0,
        byte_order=draw(st.sampled_from([1, 2])), control_flags1=draw(st.integers(0, 255)),
        encoding=draw(st.integers(0, 2**32 - 1)), ccsid=draw(st.integers(0, 0xFFFF)))


def chunked(data, cuts):
    points = sorted({c % (len(data) + 1) for c in cuts})
    out, prev = [], 0
    for p in points + [len(data)]:
        out.append(data[prev:p])
        prev = p
    return out


@SETTINGS
@given(st.lists(segments(), max_size=8), st.lists(st.integers(0, 10**6), max_size=20),
       st.sampled_from([bytes, bytearray, memoryview]))
def test_any_chunking_gives_the_same_segments(segs, cuts, kind):
    stream = b"".join(segs)
    f = Framer(max_segment_length=4096)
    got = []
    for chunk in chunked(stream, cuts):
        got.extend(f.feed(kind(chunk)))
        assert f.buffered < 400  # never more than one partial segment
    assert [s.encode() for s in got] == segs
    assert [s.header for s in got] == [fap.decode_segment(s).header for s in segs]
    assert f.buffered == 0


def test_one_byte_at_a_time():
    segs = [fap.status_segment(1), fap.heartbeat(), fap.api_reply(
        fap.SegmentHeader("TSHM", 0, 1, 0, 2, fap.MQCONN, 0x30), b"x" * 100)]
    stream = b"".join(segs)
    f = Framer()
    got = []
    for i in range(len(stream)):
        got.extend(f.feed(stream[i:i + 1]))
    assert [s.encode() for s in got] == segs


def test_many_segments_in_one_chunk_and_empty_feed():
    seg = fap.heartbeat()
    f = Framer()
    assert f.feed(b"") == []
    assert len(f.feed(seg * 100)) == 100


@pytest.mark.parametrize("length", [0, 7, 27, INITIAL_MAX_SEGMENT_LENGTH + 1, 2**32 - 1])
def test_lying_segment_length_raises_after_8_bytes(length):
    prefix = b"TSH " + length.to_bytes(4, "big")
    f = Framer()
    for i in range(7):
        assert f.feed(prefix[i:i + 1]) == []
    with pytest.raises(CodecError) as ei:
        f.feed(prefix[7:8])
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)
    assert f.buffered == 0
    with pytest.raises(CodecError):  # the framer stays failed
        f.feed(b"TSH ")


def test_tshm_shorter_than_its_header():
    f = Framer()
    with pytest.raises(CodecError) as ei:
        f.feed(b"TSHM" + (30).to_bytes(4, "big"))
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)


def test_lying_length_in_a_big_chunk_is_not_buffered():
    f = Framer(max_segment_length=32748)
    with pytest.raises(CodecError) as ei:
        f.feed(fap.heartbeat() + b"TSHM" + (10**9).to_bytes(4, "big") + bytes(100000))
    assert_status(ei, fap.PROTOCOL_LENGTH_ERROR)
    assert f.buffered == 0


def test_max_segment_length_is_settable():
    seg = fap.encode_segment(fap.MQPUT, bytes(5000))
    f = Framer()
    with pytest.raises(CodecError):
        f.feed(seg)
    f = Framer()
    f.max_segment_length = 32748
    assert len(f.feed(seg)) == 1
    f.max_segment_length = len(seg)
    assert len(f.feed(seg)) == 1
    f.max_segment_length = len(seg) - 1
    with pytest.raises(CodecError):
        f.feed(seg[:8])


@pytest.mark.parametrize("head, code", [
    (b"X", fap.PROTOCOL_SEGMENT_ERROR), (b"TSX", fap.PROTOCOL_SEGMENT_ERROR),
    (b"TSHX", fap.PROTOCOL_SEGMENT_ERROR), (b"GET / HTTP/1.1\r\n", fap.PROTOCOL_SEGMENT_ERROR),
    (b"\xe3\xe2\xc8\xd4", fap.CCSID_NOT_SUPPORTED),
])
def test_struct_id_checked_from_the_first_bytes(head, code):
    f = Framer()
    with pytest.raises(CodecError) as ei:
        f.feed(head)
    assert_status(ei, code)


def test_struct_id_error_after_a_good_segment_in_a_partial_buffer():
    f = Framer()
    assert len(f.feed(fap.heartbeat() + b"TS")) == 1
    with pytest.raises(CodecError):
        f.feed(b"X")


def test_bad_byte_order_raised_when_complete():
    bad = bytearray(fap.heartbeat())
    bad[8] = 7
    f = Framer()
    with pytest.raises(CodecError) as ei:
        f.feed(bytes(bad))
    assert_status(ei, fap.ENCODING_INVALID)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.lists(st.integers(0, 300), max_size=5))
def test_garbage_raises_only_codec_error(junk, cuts):
    f = Framer()
    try:
        for chunk in chunked(fap.heartbeat() + junk, cuts):
            f.feed(chunk)
            assert f.buffered <= INITIAL_MAX_SEGMENT_LENGTH
    except CodecError as exc:
        assert exc.family == errors.STATUS


# ----------------------------------------------------------------------------------- reassembly

def template(conv=1, seg_type=fap.MQPUT, order=2, sid="TSHM"):
    return fap.SegmentHeader(sid, 0, conv if sid == "TSHM" else 0, 0, order, seg_type, 0x30)


@SETTINGS
@given(st.binary(max_size=5000), st.integers(37, 3000), st.sampled_from(["TSH ", "TSHM"]),
       st.sampled_from([1, 2]), st.integers(0, 1) )
def test_split_then_reassemble_is_identity(body, mts, sid, order, confirm):
    h = template(sid=sid, order=order)
    h.ControlFlags1 |= confirm
    parts = split_call(h, body, mts)
    assert all(len(p) <= mts for p in parts)
    segs = Framer(max_segment_length=mts).feed(b"".join(parts))
    assert len(segs) == len(parts)
    assert segs[0].header.is_first and segs[-1].header.is_last
    assert all(not s.header.is_first for s in segs[1:])
    assert all(not s.header.is_last for s in segs[:-1])
    assert all(s.header.ControlFlags1 & 1 == confirm for s in segs)
    r = Reassembler()
    results = [r.add(s) for s in segs]
    assert results[:-1] == [None] * (len(segs) - 1)
    whole = results[-1]
    assert whole.body == body
    assert whole.header.ControlFlags1 == h.ControlFlags1 | fap.CF1_FIRST | fap.CF1_LAST
    assert whole.header.SegmentLength == h.header_length + len(body)
    assert not r.pending(whole.header.ConversationId)


def test_split_small_and_empty():
    h = template()
    assert len(split_call(h, b"", 100)) == 1
    one = split_call(h, b"abc", 100)
    assert len(one) == 1 and fap.decode_segment(one[0]).header.ControlFlags1 == 0x30
    with pytest.raises(ValueError):
        split_call(h, b"abc", 36)


def test_interleaved_conversations():
    r = Reassembler()
    a = [fap.decode_segment(p) for p in split_call(template(1), b"A" * 300, 136)]
    b = [fap.decode_segment(p) for p in split_call(template(3), b"B" * 300, 136)]
    out = []
    for x, y in zip(a, b):
        out += [r.add(x), r.add(y)]
    done = [s for s in out if s is not None]
    assert [(s.header.ConversationId, s.body) for s in done] == [(1, b"A" * 300), (3, b"B" * 300)]


def test_non_mqi_segments_pass_through():
    r = Reassembler()
    for raw in (fap.heartbeat(), fap.status_segment(1),
                fap.encode_segment(fap.NOTIFICATION, bytes(16), control_flags1=fap.CF1_FIRST),
                fap.encode_segment(fap.SOCKET_ACTION, bytes(20), control_flags1=0)):
        seg = fap.decode_segment(raw)
        assert r.add(seg) is seg


def test_sequence_errors():
    parts = [fap.decode_segment(p) for p in split_call(template(), bytes(500), 136)]
    r = Reassembler()
    with pytest.raises(CodecError) as ei:
        r.add(parts[1])  # middle without FIRST
    assert_status(ei, fap.PROTOCOL_SEGMENT_ERROR)
    with pytest.raises(CodecError) as ei:
        r.add(parts[-1])  # LAST without FIRST
    assert_status(ei, fap.PROTOCOL_SEGMENT_ERROR)
    r.add(parts[0])
    with pytest.raises(CodecError) as ei:
        r.add(parts[0])  # FIRST twice
    assert_status(ei, fap.PROTOCOL_SEGMENT_ERROR)
    r.add(parts[0])
    other = fap.decode_segment(split_call(template(seg_type=fap.MQGET), bytes(500), 136)[1])
    with pytest.raises(CodecError) as ei:
        r.add(other)  # continuation of another call type
    assert_status(ei, fap.PROTOCOL_SEGMENT_ERROR)
    r.add(parts[0])
    r.discard(1)
    assert not r.pending(1)


def test_call_too_long():
    r = Reassembler(max_call_length=1000)
    parts = [fap.decode_segment(p) for p in split_call(template(), bytes(1500), 236)]
    with pytest.raises(CodecError) as ei:
        for p in parts:
            r.add(p)
    assert_status(ei, fap.MESSAGE_LENGTH_ERROR)
    assert not r.pending(1)
    with pytest.raises(CodecError) as ei:
        r.add(fap.decode_segment(fap.encode_segment(fap.MQPUT, bytes(1001))))
    assert_status(ei, fap.MESSAGE_LENGTH_ERROR)
