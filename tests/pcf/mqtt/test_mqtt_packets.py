"""MQTT packets: every packet round-trips, and the specification's rules of one packet hold
(hypothesis over the grammar, then one test per rule)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from qmlite.pcf.mqtt import packets as MP
from qmlite.pcf.mqtt.mqttstate import NEED_DATA, ServerConnection

_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)
_level = _text.filter(lambda s: "+" not in s and "#" not in s)
topic_names = st.lists(_level, min_size=1, max_size=4).map("/".join).filter(bool)
topic_filters = st.lists(st.one_of(_level, st.just("+")), min_size=1, max_size=4).flatmap(
    lambda levels: st.sampled_from(["/".join(levels), "/".join(levels + ["#"]), "#"])).filter(bool)
ids = st.integers(1, 65535)


@st.composite
def connects(draw):
    will = draw(st.booleans())
    level = draw(st.sampled_from([("MQTT", 4), ("MQIsdp", 3)]))
    user = draw(st.one_of(st.none(), _text))
    return MP.Connect(client_id=draw(_text), clean_session=draw(st.booleans()), keep_alive=draw(st.integers(0, 65535)),
                     protocol_name=level[0], protocol_level=level[1],
                     will_topic=draw(topic_names) if will else None,
                     will_message=draw(st.binary(max_size=20)) if will else b"",
                     will_qos=draw(st.integers(0, 2)) if will else 0,
                     will_retain=draw(st.booleans()) if will else False,
                     username=user,
                     password=draw(st.one_of(st.none(), st.binary(max_size=10))) if user is not None else None)


@st.composite
def publishes(draw):
    qos = draw(st.integers(0, 2))
    return MP.Publish(draw(topic_names), draw(st.binary(max_size=300)), qos, draw(st.booleans()),
                     draw(st.booleans()) if qos else False, draw(ids) if qos else None)


packets = st.one_of(
    connects(), publishes(),
    st.builds(MP.ConnAck, st.integers(0, 5), st.booleans()),
    *(st.builds(cls, ids) for cls in (MP.PubAck, MP.PubRec, MP.PubRel, MP.PubComp, MP.UnsubAck)),
    st.builds(MP.Subscribe, ids, st.lists(st.tuples(topic_filters, st.integers(0, 2)), min_size=1, max_size=4)),
    st.builds(MP.SubAck, ids, st.lists(st.sampled_from([0, 1, 2, 0x80]), min_size=1, max_size=4)),
    st.builds(MP.Unsubscribe, ids, st.lists(topic_filters, min_size=1, max_size=4)),
    st.builds(MP.PingReq), st.builds(MP.PingResp), st.builds(MP.Disconnect))


def _split(raw: bytes) -> tuple[int, bytes]:
    at = 1
    while raw[at] & 0x80:
        at += 1
    return raw[0], raw[at + 1:]


@given(packets)
def test_every_packet_round_trips(packet):
    first, body = _split(MP.encode(packet))
    assert MP.decode(first, body) == packet


@given(st.lists(st.one_of(publishes(), st.builds(MP.PingReq),
                          st.builds(MP.Subscribe, ids,
                                    st.lists(st.tuples(topic_filters, st.integers(0, 2)), min_size=1))),
                max_size=6), connects(), st.integers(1, 7))
def test_a_stream_in_any_chunking_gives_the_packets_back(rest, connect, chunk):
    wire = b"".join(MP.encode(p) for p in [connect, *rest])
    conn = ServerConnection()
    got = []
    for i in range(0, len(wire), chunk):
        conn.receive_data(wire[i:i + chunk])
        while (event := conn.next_event()) is not NEED_DATA:
            got.append(event)
    assert got == [connect, *rest]


@given(st.binary(max_size=200), st.integers(0, 255))
def test_arbitrary_bytes_are_a_packet_or_a_violation_never_another_error(body, first):
    try:
        MP.decode(first, body)
    except MP.ProtocolViolation:
        pass


@pytest.mark.parametrize("n", [0, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, MP.MAX_REMAINING_LENGTH])
def test_remaining_length_boundaries(n):
    raw = MP.remaining_length(n)
    assert len(raw) == 1 + (n > 127) + (n > 16_383) + (n > 2_097_151)
    value = sum((b & 0x7F) << (7 * i) for i, b in enumerate(raw))
    assert value == n


@pytest.mark.parametrize("first, body, why", [
    (0x36, b"\x00\x01a\x00\x01", "QoS 3"),
    (0x38, b"\x00\x01a", "DUP on a QoS 0"),
    (0x30, b"\x00\x03a/+", "wildcard"),
    (0x30, b"\x00\x00", "empty topic name"),
    (0x32, b"\x00\x01a\x00\x00", "packet identifier 0"),
    (0x30, b"\x00\x02\xc3\x28", "ill-formed UTF-8"),
    (0x30, b"\x00\x01\x00", "U\\+0000"),
    (0x30, b"\x00\x03\xed\xa0\x80", "ill-formed UTF-8"),  # an encoded surrogate (MQTT-1.5.3-1)
    (0x60, b"\x00\x01", "reserved flags"),  # PUBREL needs 0b0010
    (0x80, b"\x00\x01\x00\x01a\x00", "reserved flags"),
    (0x82, b"\x00\x01", "without a topic filter"),
    (0x82, b"\x00\x01\x00\x01a\x03", "requested QoS"),
    (0x82, b"\x00\x01\x00\x01a\x04", "requested QoS"),
    (0x82, b"\x00\x01\x00\x03a#b\x00", "misplaced '#'"),
    (0x82, b"\x00\x01\x00\x03#/a\x00", "misplaced '#'"),
    (0x82, b"\x00\x01\x00\x02a+\x00", "misplaced '\\+'"),
    (0xA2, b"\x00\x01", "without a topic filter"),
    (0xC1, b"", "reserved flags"),
    (0xE0, b"\x00", "after the packet's last field"),
    (0x40, b"\x00", "ends inside"),
    (0x10, b"\x00\x04MQTT\x04\x01\x00\x00\x00\x00", "reserved CONNECT flag"),
    (0x10, b"\x00\x04MQTT\x04\x1c\x00\x00\x00\x00", "will QoS 3"),
    (0x10, b"\x00\x04MQTT\x04\x08\x00\x00\x00\x00", "without a will"),
    (0x10, b"\x00\x04MQTT\x04\x20\x00\x00\x00\x00", "without a will"),
    (0x10, b"\x00\x04MQTT\x04\x40\x00\x00\x00\x00\x00\x00", "password without a user name"),
    (0x10, b"\x00\x04MQTT\x04\x02\x00\x00\x00\x00\xff", "after the packet's last field"),
    (0x10, b"\x00\x04MQTT\x04\x02\x00\x00\x00\x05ab", "runs past"),
])
def test_rules_of_one_packet(first, body, why):
    with pytest.raises(MP.ProtocolViolation, match=why):
        MP.decode(first, body)


def test_an_unknown_protocol_level_decodes_without_its_payload():
    packet = MP.decode(0x10, b"\x00\x04MQTT\x05\x02\x00\x3c")
    assert packet.protocol is None and packet.keep_alive == 60


def test_mqisdp_level_3_is_mqttv3_and_may_send_a_password_alone():
    packet = MP.decode(0x10, b"\x00\x06MQIsdp\x03\x42\x00\x0a\x00\x01c\x00\x02pw")
    assert (packet.protocol, packet.client_id, packet.username, packet.password) == ("MQTTV3", "c", None, b"pw")
