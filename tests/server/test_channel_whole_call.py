"""``ServerChannel.whole_call`` (decision HP8): the one-step read of a whole one-segment MQI request against
the general path it shortcuts, ``receive_data`` then ``next_event`` until NEED_DATA.  Either it declines and
leaves the channel untouched (the general path then does everything), or it answers exactly the Call the
general path gives, and leaves the channel exactly as the general path leaves it.  hypothesis chooses the
bytes (every field of the header, lengths that lie, bytes after the segment or short of it) and the channel
(each state, shared conversations or not, a partial segment or an open multi-segment call before, the
opening bytes still kept, limits the segment meets or exceeds)."""

from __future__ import annotations

import copy
import dataclasses
import struct

from hypothesis import event, example, given, settings, strategies as st

from qmlite.pcf import fap
from qmlite.pcf.agreement import Agreement
from qmlite.pcf.errors import CodecError
from qmlite.server.channel import NEED_DATA, Call, Conversation, ServerChannel, State

MQI_REQUESTS = sorted(t for t in fap.SEGMENT_TYPE_NAMES if fap.is_mqi_type(t) and not t & fap.REPLY)
TYPES = MQI_REQUESTS + [fap.MQPUT | fap.REPLY, fap.INITIAL_DATA, fap.HEARTBEAT, fap.USERID_DATA, fap.STATUS_DATA,
                        fap.SOCKET_ACTION, fap.REQUEST_MSGS]
WHOLE = fap.CF1_FIRST | fap.CF1_LAST


def channel(state: str = State.RUNNING, multiplexed: bool = True, *, max_segment: int = 32768,
            max_call: int = 4 * 1024 * 1024, opening: bool = False) -> ServerChannel:
    """A channel as the ID exchange leaves it (server/channel.py ``agree``), conversations 1 and 2 open."""
    ch = ServerChannel()
    if state != State.AWAITING_ID:
        ch.agreement = Agreement(12, max_segment, 4 * 1024 * 1024, 300, 10 if multiplexed else 0, 1208)
        ch.multiplexed = multiplexed
        ch.framer.max_segment_length = max_segment
        ch.reassembler.max_call_length = max_call
        for conv_id in (1, 2) if multiplexed else (0,):
            ch.conversations[conv_id] = Conversation(conv_id)
        if not opening:
            ch._opening = None
    ch.state = state
    return ch


def snapshot(ch: ServerChannel) -> tuple:
    """Everything about the channel ``receive_data`` and ``next_event`` may change."""
    framer = ch.framer
    error = framer._error
    return (ch.state, ch.multiplexed, dataclasses.astuple(ch.counts), ch.segments_in, bytes(framer._buf), framer._need,
            None if error is None else (error.family, error.reason), framer.max_segment_length,
            {k: (h, list(parts), total) for k, (h, parts, total) in ch.reassembler._open.items()},
            list(ch._segments), list(ch.outgoing), None if ch._opening is None else bytes(ch._opening),
            sorted(ch.conversations), ch.id_rounds)


def general(ch: ServerChannel, data: bytes) -> list:
    """The general path's events for ``data``, until NEED_DATA (a codec error: its reason)."""
    ch.receive_data(data)
    events = []
    for _ in range(8):
        try:
            event = ch.next_event()
        except CodecError as exc:
            events.append(("raised", exc.family, exc.reason))
            break
        events.append(event)
        if event is NEED_DATA:
            break
    return events


def segment(segment_type: int = fap.MQPUT, body: bytes = bytes(40), *, struct_id: str = fap.TSHM, conv: int = 1,
            request: int = 5, order: int = 2, flags: int = WHOLE) -> bytes:
    data = fap.encode_segment(segment_type, body, struct_id=struct_id, byte_order=order if order in (1, 2) else 2,
                              control_flags1=flags,
                              **({"conversation_id": conv, "request_id": request} if struct_id == fap.TSHM else {}))
    if order not in (1, 2):  # a ByteOrder no encoder writes: the header's byte after the ids
        at = 16 if struct_id == fap.TSHM else 8
        data = data[:at] + bytes([order]) + data[at + 1:]
    return data


def check(ch: ServerChannel, data: bytes) -> bool:
    """whole_call against the general path on a copy of ``ch``; True when whole_call took the bytes."""
    other = copy.deepcopy(ch)
    before = snapshot(ch)
    whole = ch.whole_call(data)
    events = general(other, data)
    if whole is None:
        assert snapshot(ch) == before  # declined: untouched, the general path does everything
        return False
    conv, seg, call = whole
    assert events == [Call(conv, seg), NEED_DATA]
    assert call == fap.decode_call(seg)
    assert conv is ch.conversations[seg.header.ConversationId]
    assert snapshot(ch) == snapshot(other)
    return True


def test_a_clients_every_mqi_request_is_taken_in_one_step():
    for t in MQI_REQUESTS:
        taken = check(channel(), segment(t))
        assert taken == (t != fap.MQCONN), hex(t)  # MQCONN's body is read by the general path (MQConnBody)
    assert check(channel(State.AGREED), segment(fap.MQOPEN))


def test_what_the_one_step_declines_the_general_path_decides():
    """Each condition alone, on a request it would otherwise take: declined, and the general path's answer."""
    good = segment()
    assert check(channel(), good)
    cases = {
        "partial segment before": (channel(), segment()[:20], good),
        "call open on the conversation": (channel(), segment(flags=fap.CF1_FIRST), good),
        "unknown conversation": (channel(), None, segment(conv=3)),
        "TSH on a shared channel": (channel(), None, segment(struct_id=fap.TSH)),
        "not shared": (channel(multiplexed=False), None, segment(struct_id=fap.TSH)),
        "big-endian": (channel(), None, segment(order=1)),
        "first of several": (channel(), None, segment(flags=fap.CF1_FIRST)),
        "longer than the segment limit": (channel(max_segment=60), None, segment(body=bytes(40))),
        "longer than a call may be": (channel(max_call=39), None, segment(body=bytes(40))),
        "before the ID": (channel(State.AWAITING_ID), None, good),
        "closed": (channel(State.CLOSED), None, good),
        "opening bytes still kept": (channel(opening=True), None, good),
        "two segments": (channel(), None, good + good),
        "length says more": (channel(), None, good[:4] + struct.pack(">I", len(good) + 1) + good[8:]),
        "bytearray": (channel(), None, bytearray(good)),
    }
    for name, (ch, before, data) in cases.items():
        if before is not None:
            general(ch, before)
        assert not check(ch, data), name
    queued = channel()  # two calls read at once, the first one's Call taken: the second waits in the channel
    queued.receive_data(good + segment(fap.MQGET))
    assert type(queued.next_event()) is Call
    assert not check(queued, good)


@st.composite
def requests(draw) -> bytes:
    """Half the time a request the one step takes (any MQI request type but MQCONN, on an open conversation,
    its body at least an API header); else any header field, or the length, changed to anything."""
    body = draw(st.binary(min_size=16, max_size=48))
    fields = {"segment_type": draw(st.sampled_from([t for t in MQI_REQUESTS if t != fap.MQCONN])),
              "conv": draw(st.sampled_from([1, 2])), "request": draw(st.integers(0, 2**32 - 1))}
    change = draw(st.sampled_from(["type", "body", "struct_id", "conv", "order", "flags", "short", "more", "lie"])) \
        if draw(st.booleans()) else None
    if change == "type":
        fields["segment_type"] = draw(st.sampled_from(TYPES) | st.integers(0, 255))
    elif change == "body":
        body = draw(st.binary(max_size=15))
    elif change == "struct_id":
        fields["struct_id"] = draw(st.sampled_from([fap.TSH, fap.TSHC]))
    elif change == "conv":
        fields["conv"] = draw(st.sampled_from([0, 3]) | st.integers(0, 2**32 - 1))
    elif change == "order":
        fields["order"] = draw(st.sampled_from([1, 0, 3]) | st.integers(0, 255))
    elif change == "flags":
        fields["flags"] = draw(st.integers(0, 255))
    data = segment(fields.pop("segment_type"), body, **fields)
    if change == "short":
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif change == "more":
        data += draw(st.binary(min_size=1, max_size=60))
    elif change == "lie":
        data = data[:4] + struct.pack(">I", draw(st.integers(0, 200))) + data[8:]
    return data


@st.composite
def channels(draw) -> ServerChannel:
    """Half the time a running shared channel with the usual limits; else one thing about it changed."""
    change = draw(st.sampled_from(["state", "shared", "segment", "call", "opening"])) if draw(st.booleans()) else None
    kw = {}
    if change == "state":
        kw["state"] = draw(st.sampled_from([State.AGREED, State.AWAITING_ID, State.CLOSED]))
    elif change == "shared":
        kw["multiplexed"] = False
    elif change == "segment":
        kw["max_segment"] = draw(st.integers(36, 120))
    elif change == "call":
        kw["max_call"] = draw(st.integers(0, 60))
    elif change == "opening":
        kw["opening"] = True
    return channel(**kw)


@settings(max_examples=600, deadline=None)
@given(channels(), st.just([]) | st.lists(requests(), max_size=2), requests())
@example(channel(), [], segment(fap.MQGET, bytes(60)))
@example(channel(), [segment(fap.MQPUT, bytes(40), flags=fap.CF1_FIRST)], segment(fap.MQPUT, bytes(4), flags=WHOLE))
def test_one_step_or_the_general_path_the_channel_ends_the_same(ch, before, data):
    for earlier in before:  # whatever came first, read the general way
        general(ch, earlier)
    event("taken in one step" if check(ch, data) else "declined")
