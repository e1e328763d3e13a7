"""The server's side of one MQTT network connection, sans-IO (h11's shape).

``receive_data(bytes)`` feeds what arrived (``b""`` at the end of the stream), ``next_event()``
gives the next whole packet, :data:`NEED_DATA` or :data:`CLOSED`, ``send(packet)`` gives the bytes
to write.  What the specification says of the order of packets is kept here: the first packet is
CONNECT (MQTT-3.1.0-1), a second CONNECT is a violation (MQTT-3.1.0-2), a client does not send
CONNACK, SUBACK, UNSUBACK or PINGRESP, nothing follows DISCONNECT (MQTT-3.14.4-1).  A broken rule
raises :class:`~qmlite.pcf.mqtt.packets.ProtocolViolation` and the connection is closed.

A length is never trusted: the remaining length is read from at most four bytes (2.2.3) and a claim
beyond ``max_packet`` is a violation as soon as its last length byte is seen, before anything of
its body is buffered.
"""

from __future__ import annotations

import enum

from . import packets as MP
from .packets import ProtocolViolation


class _Sentinel(enum.Enum):
    NEED_DATA = "NEED_DATA"
    CLOSED = "CLOSED"


NEED_DATA = _Sentinel.NEED_DATA
CLOSED = _Sentinel.CLOSED

AWAIT_CONNECT, CONNECTED, ENDED = "AWAIT_CONNECT", "CONNECTED", "ENDED"
_SERVER_ONLY = {MP.CONNACK, MP.SUBACK, MP.UNSUBACK, MP.PINGRESP}


def connect_refusal(connect: MP.Connect, *, max_client_id: int = MP.V31_MAX_CLIENT_ID) -> int:
    """The CONNACK return code the specification gives a CONNECT (0: accepted so far).

    1 for a protocol level the server does not speak (MQTT-3.1.2-2); 2 for a zero-length client id
    with CleanSession 0 (MQTT-3.1.3-8), for one longer than ``max_client_id``, and for 3.1's empty one.
    """
    if connect.protocol is None:
        return MP.REFUSED_PROTOCOL_VERSION
    cid = connect.client_id
    if not cid and (not connect.clean_session or connect.protocol_level == 3):
        return MP.REFUSED_IDENTIFIER
    if len(cid.encode("utf-8")) > max_client_id:
        return MP.REFUSED_IDENTIFIER
    return MP.ACCEPTED


def known_protocol_name(connect: MP.Connect) -> bool:
    """Whether a refused CONNECT names MQTT at all: one that does not is closed without a CONNACK
    (3.1.2.1: "the Server MAY disconnect")."""
    return connect.protocol_name in ("MQTT", "MQIsdp")


class ServerConnection:
    def __init__(self, *, max_packet: int = MP.MAX_REMAINING_LENGTH) -> None:
        self.max_packet = max_packet
        self.state = AWAIT_CONNECT
        self._buffer = bytearray()
        self._eof = False

    def receive_data(self, data: bytes) -> None:
        if data:
            self._buffer += data
        else:
            self._eof = True

    def _header(self) -> tuple[int, int, int] | None:
        """(first byte, remaining length, header size) once the fixed header is all there."""
        buf = self._buffer
        length, shift = 0, 0
        for i in range(1, 5):
            if i >= len(buf):
                return None
            digit = buf[i]
            length |= (digit & 0x7F) << shift
            shift += 7
            if not digit & 0x80:
                if length > self.max_packet:
                    raise ProtocolViolation(f"remaining length {length} beyond {self.max_packet}")
                return buf[0], length, i + 1
        raise ProtocolViolation("remaining length longer than four bytes")

    def next_event(self) -> MP.Packet | _Sentinel:
        if self.state == ENDED:
            return CLOSED
        if self.state == AWAIT_CONNECT and self._buffer and self._buffer[0] != MP.CONNECT << 4:
            raise ProtocolViolation("the first packet is not CONNECT")  # at its first byte, not its length
        if self._buffer and self._buffer[0] >> 4 in (0, 15):
            raise ProtocolViolation(f"reserved packet type {self._buffer[0] >> 4}")
        header = self._header() if self._buffer else None
        if header is None or len(self._buffer) < header[2] + header[1]:
            if self._eof:
                self.state = ENDED
                return CLOSED  # the end of the stream, mid-packet or between packets
            return NEED_DATA
        first, length, size = header
        body = bytes(self._buffer[size:size + length])
        del self._buffer[:size + length]
        kind = first >> 4
        if self.state == AWAIT_CONNECT and kind != MP.CONNECT:
            raise ProtocolViolation(f"{MP.NAMES.get(kind)} before CONNECT")
        if self.state == CONNECTED and kind == MP.CONNECT:
            raise ProtocolViolation("a second CONNECT")
        if kind in _SERVER_ONLY:
            raise ProtocolViolation(f"{MP.NAMES[kind]} from a client")
        packet = MP.decode(first, body)
        if kind == MP.CONNECT:
            self.state = CONNECTED
        elif kind == MP.DISCONNECT:
            self.state = ENDED
        return packet

    def send(self, packet: MP.Packet) -> bytes:
        return MP.encode(packet)
