"""The server's side of an MQTT connection: packet order, lengths never trusted, CONNACK codes."""

from __future__ import annotations

import pytest

from qmlite.pcf.mqtt import packets as MP
from qmlite.pcf.mqtt.mqttstate import (CLOSED, NEED_DATA, ServerConnection, connect_refusal,
                                        known_protocol_name)

CONNECT = MP.encode(MP.Connect("c1"))


def _events(conn: ServerConnection, data: bytes) -> list:
    conn.receive_data(data)
    out = []
    while (event := conn.next_event()) not in (NEED_DATA, CLOSED):
        out.append(event)
    return out


def test_the_first_packet_must_be_connect():
    conn = ServerConnection()
    conn.receive_data(MP.encode(MP.PingReq()))
    with pytest.raises(MP.ProtocolViolation, match="not CONNECT"):
        conn.next_event()


def test_a_second_connect_is_a_violation():
    conn = ServerConnection()
    assert _events(conn, CONNECT) == [MP.Connect("c1")]
    with pytest.raises(MP.ProtocolViolation, match="second CONNECT"):
        _events(conn, CONNECT)


@pytest.mark.parametrize("packet", [MP.ConnAck(), MP.SubAck(1, [0]), MP.UnsubAck(1), MP.PingResp()])
def test_server_packets_from_a_client_are_violations(packet):
    conn = ServerConnection()
    _events(conn, CONNECT)
    with pytest.raises(MP.ProtocolViolation, match="from a client"):
        _events(conn, MP.encode(packet))


def test_a_256_mib_claim_is_refused_at_its_length_bytes_not_buffered():
    conn = ServerConnection(max_packet=4 * 1024 * 1024)
    _events(conn, CONNECT)
    conn.receive_data(b"\x30\xff\xff\xff\x7f")  # 268,435,455 bytes claimed, none sent
    with pytest.raises(MP.ProtocolViolation, match="beyond"):
        conn.next_event()


def test_a_fifth_length_byte_is_a_violation():
    conn = ServerConnection()
    _events(conn, CONNECT)
    conn.receive_data(b"\x30\x80\x80\x80\x80\x01")
    with pytest.raises(MP.ProtocolViolation, match="four bytes"):
        conn.next_event()


@pytest.mark.parametrize("first", [0x00, 0xF0])
def test_reserved_packet_types(first):
    conn = ServerConnection()
    _events(conn, CONNECT)
    conn.receive_data(bytes((first, 0)))
    with pytest.raises(MP.ProtocolViolation, match="reserved packet type"):
        conn.next_event()


def test_nothing_after_disconnect_and_end_of_stream_is_closed():
    conn = ServerConnection()
    events = _events(conn, CONNECT + MP.encode(MP.Disconnect()) + MP.encode(MP.PingReq()))
    assert events == [MP.Connect("c1"), MP.Disconnect()]
    assert conn.next_event() is CLOSED
    other = ServerConnection()
    other.receive_data(CONNECT[:5])
    assert other.next_event() is NEED_DATA
    other.receive_data(b"")
    assert other.next_event() is CLOSED


@pytest.mark.parametrize("connect, code", [
    (MP.Connect("", clean_session=False), MP.REFUSED_IDENTIFIER),
    (MP.Connect("", clean_session=True), MP.ACCEPTED),
    (MP.Connect("", protocol_name="MQIsdp", protocol_level=3), MP.REFUSED_IDENTIFIER),
    (MP.Connect("x" * 24), MP.REFUSED_IDENTIFIER),
    (MP.Connect("x" * 23), MP.ACCEPTED),
    (MP.Connect("c", protocol_level=5), MP.REFUSED_PROTOCOL_VERSION),
])
def test_connack_codes_the_specification_gives(connect, code):
    assert connect_refusal(connect) == code


def test_a_protocol_name_not_mqtt_is_closed_without_connack():
    assert not known_protocol_name(MP.Connect("c", protocol_name="HTTP", protocol_level=4))
    assert known_protocol_name(MP.Connect("c", protocol_name="MQIsdp", protocol_level=9))
