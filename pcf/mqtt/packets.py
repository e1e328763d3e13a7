"""MQTT 3.1 and 3.1.1 control packets: bytes in, packet objects out, and back (OASIS MQTT 3.1.1).

Standard library only, no I/O.  ``decode(first_byte, body)`` takes one whole packet whose fixed
header has already been split off (:mod:`qmlite.pcf.mqtt.mqttstate` frames the stream);
``encode(packet)`` gives the bytes of one packet.  Every rule the specification makes of a single
packet is checked here and broken ones raise :class:`ProtocolViolation` (the server closes the
network connection, MQTT-4.8.0-1): reserved flag bits (2.2.2), QoS 3 (MQTT-3.3.1-4), DUP on QoS 0
(MQTT-3.3.1-2), UTF-8 that is ill-formed or holds U+0000 (MQTT-1.5.3-1/2), wildcards in a topic name
(MQTT-3.3.2-2), misplaced ``+``/``#`` in a filter (4.7.1), SUBSCRIBE/UNSUBSCRIBE without a filter
(MQTT-3.8.3-3, MQTT-3.10.3-2), a password without a user name (MQTT-3.1.2-22), will flags without a
will (MQTT-3.1.2-13..15), bytes after a packet's last field.
"""

from __future__ import annotations

import dataclasses
import struct

CONNECT, CONNACK, PUBLISH, PUBACK, PUBREC, PUBREL, PUBCOMP = 1, 2, 3, 4, 5, 6, 7
SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK, PINGREQ, PINGRESP, DISCONNECT = 8, 9, 10, 11, 12, 13, 14
NAMES = {1: "CONNECT", 2: "CONNACK", 3: "PUBLISH", 4: "PUBACK", 5: "PUBREC", 6: "PUBREL", 7: "PUBCOMP",
         8: "SUBSCRIBE", 9: "SUBACK", 10: "UNSUBSCRIBE", 11: "UNSUBACK", 12: "PINGREQ", 13: "PINGRESP",
         14: "DISCONNECT"}

# CONNACK return codes (3.2.2.3)
ACCEPTED = 0
REFUSED_PROTOCOL_VERSION = 1
REFUSED_IDENTIFIER = 2
REFUSED_SERVER_UNAVAILABLE = 3
REFUSED_BAD_CREDENTIALS = 4
REFUSED_NOT_AUTHORIZED = 5
SUBACK_FAILURE = 0x80

MAX_REMAINING_LENGTH = 268_435_455  # four bytes of seven bits (2.2.3)
PROTOCOL_LEVELS = {("MQTT", 4): "MQTTV311", ("MQIsdp", 3): "MQTTV3"}
# 3.1's CONNECT: "the Client Identifier ... must be between 1 and 23 characters long" (MQTT V3.1
# Protocol Specification, 3.1); 3.1.1 lets a server accept longer ones (MQTT-3.1.3-5).
V31_MAX_CLIENT_ID = 23

# The fixed header's flag bits a packet type must carry (2.2.2); PUBLISH's are its own.
_REQUIRED_FLAGS = {PUBREL: 0b0010, SUBSCRIBE: 0b0010, UNSUBSCRIBE: 0b0010}


class ProtocolViolation(Exception):
    """The peer broke a rule of the specification: close the network connection."""


@dataclasses.dataclass
class Connect:
    client_id: str
    clean_session: bool = True
    keep_alive: int = 0
    protocol_name: str = "MQTT"
    protocol_level: int = 4
    will_topic: str | None = None
    will_message: bytes = b""
    will_qos: int = 0
    will_retain: bool = False
    username: str | None = None
    password: bytes | None = None

    @property
    def protocol(self) -> str | None:
        """IBM's PROTOCOL value for this CONNECT (MQTTV311 or MQTTV3), None when unknown."""
        return PROTOCOL_LEVELS.get((self.protocol_name, self.protocol_level))


@dataclasses.dataclass
class ConnAck:
    return_code: int = ACCEPTED
    session_present: bool = False


@dataclasses.dataclass
class Publish:
    topic: str
    payload: bytes = b""
    qos: int = 0
    retain: bool = False
    dup: bool = False
    packet_id: int | None = None


@dataclasses.dataclass
class PubAck:
    packet_id: int


@dataclasses.dataclass
class PubRec:
    packet_id: int


@dataclasses.dataclass
class PubRel:
    packet_id: int


@dataclasses.dataclass
class PubComp:
    packet_id: int


@dataclasses.dataclass
class Subscribe:
    packet_id: int
    topics: list[tuple[str, int]]  # (filter, requested QoS)


@dataclasses.dataclass
class SubAck:
    packet_id: int
    return_codes: list[int]


@dataclasses.dataclass
class Unsubscribe:
    packet_id: int
    topics: list[str]


@dataclasses.dataclass
class UnsubAck:
    packet_id: int


@dataclasses.dataclass
class PingReq:
    pass


@dataclasses.dataclass
class PingResp:
    pass


@dataclasses.dataclass
class Disconnect:
    pass


Packet = (Connect | ConnAck | Publish | PubAck | PubRec | PubRel | PubComp | Subscribe | SubAck | Unsubscribe
          | UnsubAck | PingReq | PingResp | Disconnect)
_ID_ONLY = {PUBACK: PubAck, PUBREC: PubRec, PUBREL: PubRel, PUBCOMP: PubComp, UNSUBACK: UnsubAck}
_EMPTY = {PINGREQ: PingReq, PINGRESP: PingResp, DISCONNECT: Disconnect}
_TYPE_OF = {cls: t for t, cls in {**_ID_ONLY, **_EMPTY, CONNECT: Connect, CONNACK: ConnAck, PUBLISH: Publish,
                                  SUBSCRIBE: Subscribe, SUBACK: SubAck, UNSUBSCRIBE: Unsubscribe}.items()}


# ---- fields --------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, body: bytes) -> None:
        self.body = body
        self.at = 0

    def left(self) -> int:
        return len(self.body) - self.at

    def byte(self) -> int:
        if self.at >= len(self.body):
            raise ProtocolViolation("packet ends inside a field")
        self.at += 1
        return self.body[self.at - 1]

    def u16(self) -> int:
        if self.left() < 2:
            raise ProtocolViolation("packet ends inside a field")
        self.at += 2
        return struct.unpack_from(">H", self.body, self.at - 2)[0]

    def binary(self) -> bytes:
        n = self.u16()
        if self.left() < n:
            raise ProtocolViolation("a length runs past the packet")
        self.at += n
        return self.body[self.at - n:self.at]

    def string(self) -> str:
        return text(self.binary())

    def rest(self) -> bytes:
        data = self.body[self.at:]
        self.at = len(self.body)
        return data

    def end(self) -> None:
        if self.left():
            raise ProtocolViolation("bytes after the packet's last field")


def text(raw: bytes) -> str:
    """A UTF-8 encoded string (1.5.3): well-formed (no surrogates) and free of U+0000."""
    try:
        value = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolViolation("ill-formed UTF-8") from None
    if "\x00" in value:
        raise ProtocolViolation("U+0000 in a string")
    return value


def _string(value: str) -> bytes:
    raw = value.encode("utf-8")
    return struct.pack(">H", len(raw)) + raw


def _binary(value: bytes) -> bytes:
    return struct.pack(">H", len(value)) + value


def _packet_id(value: int) -> int:
    if value == 0:
        raise ProtocolViolation("packet identifier 0")  # MQTT-2.3.1-1: non-zero
    return value


def check_topic_name(topic: str) -> None:
    """A PUBLISH topic name: at least one character, no wildcards (MQTT-4.7.3-1, MQTT-3.3.2-2)."""
    if not topic:
        raise ProtocolViolation("empty topic name")
    if "+" in topic or "#" in topic:
        raise ProtocolViolation("wildcard in a topic name")


def check_topic_filter(topic: str) -> None:
    """A SUBSCRIBE/UNSUBSCRIBE filter: '#' alone in the last level, '+' alone in its level (4.7.1)."""
    if not topic:
        raise ProtocolViolation("empty topic filter")
    levels = topic.split("/")
    for i, level in enumerate(levels):
        if "#" in level and (level != "#" or i != len(levels) - 1):
            raise ProtocolViolation("misplaced '#'")
        if "+" in level and level != "+":
            raise ProtocolViolation("misplaced '+'")


# ---- decoding ------------------------------------------------------------------------------------
def decode(first: int, body: bytes) -> Packet:
    """One packet from its fixed header's first byte and its variable header and payload."""
    kind, flags = first >> 4, first & 0x0F
    if kind == PUBLISH:
        return _publish(flags, body)
    if flags != _REQUIRED_FLAGS.get(kind, 0):
        raise ProtocolViolation(f"reserved flags {flags:#x} on {NAMES.get(kind, kind)}")  # MQTT-2.2.2-2
    r = _Reader(body)
    if kind in _ID_ONLY:
        packet = _ID_ONLY[kind](_packet_id(r.u16()))
    elif kind in _EMPTY:
        packet = _EMPTY[kind]()
    elif kind == CONNECT:
        packet = _connect(r)
        if packet.protocol is None:
            return packet  # a level this server does not speak: its payload is not read (CONNACK 1)
    elif kind == CONNACK:
        ack = r.byte()
        if ack & 0xFE:
            raise ProtocolViolation("reserved CONNACK flags")
        packet = ConnAck(r.byte(), bool(ack & 1))
    elif kind == SUBSCRIBE:
        packet = _subscribe(r)
    elif kind == SUBACK:
        packet = SubAck(_packet_id(r.u16()), list(r.rest()))
    elif kind == UNSUBSCRIBE:
        packet_id = _packet_id(r.u16())
        filters = []
        while r.left():
            filters.append(r.string())
            check_topic_filter(filters[-1])
        if not filters:
            raise ProtocolViolation("UNSUBSCRIBE without a topic filter")  # MQTT-3.10.3-2
        packet = Unsubscribe(packet_id, filters)
    else:
        raise ProtocolViolation(f"packet type {kind}")  # 0 and 15 are reserved
    r.end()
    return packet


def _connect(r: _Reader) -> Connect:
    name = r.string()
    level = r.byte()
    flags = r.byte()
    if flags & 0x01:
        raise ProtocolViolation("reserved CONNECT flag")  # MQTT-3.1.2-3
    will, will_qos, will_retain = bool(flags & 0x04), (flags >> 3) & 0x03, bool(flags & 0x20)
    has_password, has_user = bool(flags & 0x40), bool(flags & 0x80)
    if will_qos == 3:
        raise ProtocolViolation("will QoS 3")  # MQTT-3.1.2-14
    if not will and (will_qos or will_retain):
        raise ProtocolViolation("will QoS or retain without a will")  # MQTT-3.1.2-13, -15
    if has_password and not has_user and level >= 4:
        raise ProtocolViolation("password without a user name")  # MQTT-3.1.2-22 (3.1 allowed neither rule)
    packet = Connect(client_id="", clean_session=bool(flags & 0x02), keep_alive=r.u16(), protocol_name=name,
                     protocol_level=level, will_qos=will_qos, will_retain=will_retain)
    if packet.protocol is None:
        return packet  # the caller answers CONNACK 1 (or closes for a name it does not know): no payload read
    packet.client_id = r.string()
    if will:
        packet.will_topic = r.string()
        check_topic_name(packet.will_topic)
        packet.will_message = r.binary()
    if has_user:
        packet.username = r.string()
    if has_password:
        packet.password = r.binary()
    return packet


def _publish(flags: int, body: bytes) -> Publish:
    dup, qos, retain = bool(flags & 0x08), (flags >> 1) & 0x03, bool(flags & 0x01)
    if qos == 3:
        raise ProtocolViolation("QoS 3")  # MQTT-3.3.1-4
    if dup and qos == 0:
        raise ProtocolViolation("DUP on a QoS 0 PUBLISH")  # MQTT-3.3.1-2
    r = _Reader(body)
    topic = r.string()
    check_topic_name(topic)
    packet_id = _packet_id(r.u16()) if qos else None
    return Publish(topic, r.rest(), qos, retain, dup, packet_id)


def _subscribe(r: _Reader) -> Subscribe:
    packet_id = _packet_id(r.u16())
    topics = []
    while r.left():
        topic = r.string()
        check_topic_filter(topic)
        qos = r.byte()
        if qos > 2:  # the upper six bits are reserved and QoS 3 is not a QoS (MQTT-3.8.3-4)
            raise ProtocolViolation(f"requested QoS byte {qos:#x}")
        topics.append((topic, qos))
    if not topics:
        raise ProtocolViolation("SUBSCRIBE without a topic filter")  # MQTT-3.8.3-3
    return Subscribe(packet_id, topics)


# ---- encoding ------------------------------------------------------------------------------------
def remaining_length(n: int) -> bytes:
    if not 0 <= n <= MAX_REMAINING_LENGTH:
        raise ValueError(f"remaining length {n}")
    out = bytearray()
    while True:
        n, digit = n >> 7, n & 0x7F
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def encode(packet: Packet) -> bytes:
    kind = _TYPE_OF[type(packet)]
    flags = _REQUIRED_FLAGS.get(kind, 0)
    if isinstance(packet, Publish):
        flags = (0x08 if packet.dup else 0) | packet.qos << 1 | (0x01 if packet.retain else 0)
        body = _string(packet.topic) + (struct.pack(">H", packet.packet_id) if packet.qos else b"") + packet.payload
    elif kind in _ID_ONLY:
        body = struct.pack(">H", packet.packet_id)
    elif kind in _EMPTY:
        body = b""
    elif isinstance(packet, ConnAck):
        body = bytes((1 if packet.session_present else 0, packet.return_code))
    elif isinstance(packet, SubAck):
        body = struct.pack(">H", packet.packet_id) + bytes(packet.return_codes)
    elif isinstance(packet, Subscribe):
        body = struct.pack(">H", packet.packet_id) + b"".join(_string(t) + bytes((q,)) for t, q in packet.topics)
    elif isinstance(packet, Unsubscribe):
        body = struct.pack(">H", packet.packet_id) + b"".join(_string(t) for t in packet.topics)
    else:
        body = _connect_body(packet)
    return bytes((kind << 4 | flags,)) + remaining_length(len(body)) + body


def _connect_body(p: Connect) -> bytes:
    flags = (0x02 if p.clean_session else 0)
    if p.will_topic is not None:
        flags |= 0x04 | p.will_qos << 3 | (0x20 if p.will_retain else 0)
    if p.password is not None:
        flags |= 0x40
    if p.username is not None:
        flags |= 0x80
    out = _string(p.protocol_name) + bytes((p.protocol_level, flags)) + struct.pack(">H", p.keep_alive)
    out += _string(p.client_id)
    if p.will_topic is not None:
        out += _string(p.will_topic) + _binary(p.will_message)
    if p.username is not None:
        out += _string(p.username)
    if p.password is not None:
        out += _binary(p.password)
    return out
