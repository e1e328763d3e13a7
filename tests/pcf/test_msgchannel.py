"""pcf/msgchannel.py: the message-channel flows round-trip, refuse bad bytes with the STATUS code a
receiving channel agent sends, and read in tshark (Wireshark's MQ dissector) with no malformed frame."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from qmlite.pcf import errors, fap, msgchannel as MCF
from qmlite.pcf import mqi as S

ORDERS = st.sampled_from([">", "<"])
LUW = st.binary(min_size=8, max_size=8)


def _segments(data: bytes) -> list[fap.Segment]:
    out, p = [], 0
    while p < len(data):
        header, _ = fap.SegmentHeader.unpack(data, p)
        out.append(fap.decode_segment(data, p, p + header.SegmentLength))
        p += header.SegmentLength
    return out


def _xmit_message(data: bytes = b"hello", persistent: bool = True) -> bytes:
    md = S.MQMD(Format="MQSTR", Persistence=1 if persistent else 0)
    return S.MQXQH(RemoteQName="TARGET.Q", RemoteQMgrName="QM2", MsgDesc=md).pack("<") + data


@given(seq=st.integers(0, 2**32 - 1), data_len=st.integers(0, 2**32 - 1), extra=st.integers(0, 1000),
       reserved=st.integers(0, 2**32 - 1), order=ORDERS)
def test_msh_round_trips(seq, data_len, extra, reserved, order):
    msh = MCF.MessageHeader(seq, data_len, reserved, min(data_len + extra, 2**32 - 1))
    raw = msh.pack(order)
    assert len(raw) == MCF.MSH_LENGTH
    assert MCF.MessageHeader.unpack(raw, 0, order) == (msh, MCF.MSH_LENGTH)


@given(raw=st.binary(max_size=40), order=ORDERS)
def test_msh_decoder_answers_any_bytes_with_a_status_code(raw, order):
    try:
        MCF.MessageHeader.unpack(raw, 0, order)
    except errors.CodecError as exc:
        assert exc.family == errors.STATUS
        assert exc.reason in (fap.PROTOCOL_LENGTH_ERROR, fap.PROTOCOL_INVALID_DATA)


@given(seq=st.integers(0, 2**32 - 1), trailer=st.binary(max_size=16), order=ORDERS)
def test_sequence_data_round_trips(seq, trailer, order):
    body = MCF.SequenceData(seq, 8 + len(trailer), trailer)
    assert MCF.SequenceData.unpack(body.pack(order), 0, order)[0] == body


@given(raw=st.binary(max_size=24), order=ORDERS)
def test_sequence_and_ping_decoders_never_trace_back(raw, order):
    for cls in (MCF.SequenceData, MCF.PingData):
        try:
            cls.unpack(raw, 0, order)
        except errors.CodecError as exc:
            assert exc.reason == fap.PROTOCOL_LENGTH_ERROR


@given(data=st.binary(max_size=200), order=ORDERS)
def test_ping_round_trips(data, order):
    assert MCF.PingData.unpack(MCF.PingData(data).pack(order), 0, order)[0].Data == data


@given(message=st.binary(max_size=3000), max_tr=st.integers(MCF.MIN_TRANSMISSION_SIZE, 1500),
       seq=st.integers(1, 999_999_999), luw=LUW, confirm=st.booleans(), byte_order=st.sampled_from([1, 2]))
@settings(max_examples=60)
def test_a_message_split_over_segments_reassembles(message, max_tr, seq, luw, confirm, byte_order):
    raw = MCF.message_segments(seq, message, luw=luw, max_transmission_size=max_tr, confirm=confirm,
                              byte_order=byte_order)
    assert all(len(s) <= max_tr for s in raw)
    assembler = MCF.MessageAssembler(max_msg_length=len(message))
    got = [assembler.feed(seg) for seg in _segments(b"".join(raw))]
    assert got[:-1] == [None] * (len(raw) - 1)
    assert got[-1] == MCF.Message(seq, message, luw, confirm)
    assert not assembler.open


def test_a_continuation_without_first_or_a_second_first_is_a_segment_error():
    one, two = MCF.message_segments(5, b"x" * 500, luw=bytes(8), max_transmission_size=MCF.MIN_TRANSMISSION_SIZE)
    assembler = MCF.MessageAssembler(1000)
    with pytest.raises(errors.CodecError) as exc:
        assembler.feed(_segments(two)[0])
    assert exc.value.reason == fap.PROTOCOL_SEGMENT_ERROR
    assembler = MCF.MessageAssembler(1000)
    assembler.feed(_segments(one)[0])
    assert assembler.open
    with pytest.raises(errors.CodecError) as exc:
        assembler.feed(_segments(one)[0])
    assert exc.value.reason == fap.PROTOCOL_SEGMENT_ERROR


def test_a_message_above_the_agreed_maximum_is_message_length_error():
    (seg,) = MCF.message_segments(1, b"x" * 50, luw=bytes(8), max_transmission_size=1000)
    with pytest.raises(errors.CodecError) as exc:
        MCF.MessageAssembler(49).feed(_segments(seg)[0])
    assert exc.value.reason == fap.MESSAGE_LENGTH_ERROR


def test_message_channel_id_is_not_a_client_id_and_negotiates_to_the_lower_batch():
    sender = MCF.Offer("QM1.TO.QM2", "QM1", batch_size=100, heartbeat_interval=60)
    receiver = MCF.Offer("QM1.TO.QM2", "QM2", batch_size=50, heartbeat_interval=300)
    ident = MCF.message_channel_id(sender)
    assert MCF.is_message_channel_id(ident)
    assert not MCF.is_message_channel_id(fap.InitialData(CapFlags1=0x26))  # a client's (docs/reference/fap.md 6.2)
    parsed = fap.InitialData.unpack(ident.pack("<"), 0, "<")[0]
    reply, flags, agreed = MCF.negotiate(parsed, receiver)
    assert flags == fap.IEF1_MAX_MSG_PER_BATCH | fap.IEF1_HEARTBEAT_INTERVAL and agreed is None
    assert (reply.MaxMsgsPerBatch, reply.HeartbeatInterval, reply.QMgrName) == (50, 300, "QM2")
    again = MCF.message_channel_id(MCF.Offer("QM1.TO.QM2", "QM1", batch_size=reply.MaxMsgsPerBatch,
                                           heartbeat_interval=reply.HeartbeatInterval))
    reply, flags, agreed = MCF.negotiate(again, receiver)
    assert flags == 0
    assert agreed == MCF.Agreed(13, 50, 999_999_999, 4_194_304, 300, 32_748, "QM1")


def test_a_different_sequence_wrap_value_has_no_agreement():
    ident = MCF.message_channel_id(MCF.Offer("C", "QM1", seq_wrap=1000))
    reply, flags, agreed = MCF.negotiate(ident, MCF.Offer("C", "QM2"))
    assert flags & fap.IEF1_SEQ_WRAP_VALUE and agreed is None
    assert reply.SequenceWrapValue == 999_999_999


@pytest.mark.parametrize("seq, wrap, after", [(1, 10, 2), (9, 10, 10), (10, 10, 1), (999_999_999, 999_999_999, 1)])
def test_sequence_numbers_wrap_after_seqwrap_to_one(seq, wrap, after):
    assert MCF.next_seq(seq, wrap) == after


@pytest.mark.parametrize("byte_order", [1, 2])
def test_tshark_reads_every_message_channel_flow(byte_order):
    from tests.support import wire

    offer = MCF.Offer("QM1.TO.QM2", "QM1", batch_size=50)
    luw = bytes.fromhex("0102030405060708")
    sender = [
        MCF.id_segment(MCF.message_channel_id(offer), byte_order=byte_order),
        *MCF.message_segments(1, _xmit_message(b"first"), luw=luw, max_transmission_size=32748,
                             byte_order=byte_order),
        *MCF.message_segments(2, _xmit_message(b"y" * 700), luw=luw,
                             max_transmission_size=MCF.MIN_TRANSMISSION_SIZE, confirm=True,
                             byte_order=byte_order),
        MCF.batch_end(luw, byte_order=byte_order),
        MCF.sequence_segment(fap.RESET_DATA, 77, byte_order=byte_order),
        MCF.sequence_segment(fap.RESYNC_DATA, 2, luw, byte_order=byte_order),
        MCF.ping_segment(b"p" * 16, byte_order=byte_order),
        fap.heartbeat(struct_id=fap.TSH, byte_order=byte_order),
        MCF.close(byte_order=byte_order),
    ]
    receiver = [
        MCF.id_segment(MCF.negotiate(MCF.message_channel_id(offer), MCF.Offer("QM1.TO.QM2", "QM2"))[0],
                      request=False, byte_order=byte_order),
        MCF.confirm(2, luw, byte_order=byte_order),
        fap.status_segment(fap.MSG_SEQUENCE_ERROR, value=3, byte_order=byte_order),
    ]
    writer = wire.PcapWriter()
    for seg in sender:
        writer.send(seg, from_client=True)
    for seg in receiver:
        writer.send(seg, from_client=False)
    result = wire.dissect(writer, ["mq.id.maxmsgbatch", "mq.id.seqwrap", "mq.msh.seqnum", "mq.msh.msglength",
                                   "mq.xqh.remoteq", "mq.xqh.remoteqmgr", "mq.md.format", "mq.reset.seqnum",
                                   "mq.status.code", "mq.status.value", "mq.ping.length"])
    assert result.malformed == [] and result.expert == []
    assert result.values("mq.id.maxmsgbatch") == ["50", "50"]
    assert result.values("mq.id.seqwrap") == ["999999999", "999999999"]
    assert result.values("mq.msh.seqnum") == ["1", "2"]
    assert result.values("mq.xqh.remoteq") == ["TARGET.Q", "TARGET.Q"]
    assert result.values("mq.xqh.remoteqmgr") == ["QM2", "QM2"]
    assert result.values("mq.reset.seqnum")[:1] == ["77"]
    assert "4" in result.values("mq.status.code")
    assert result.values("mq.ping.length") == ["20"]
