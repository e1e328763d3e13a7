"""IBM's JSON client channel definition table (CCDT), both directions, standard library only.

A JSON CCDT is ``{"channel": [ {channel}, ... ]}``; each channel has the two required keys ``name`` and
``type`` (``"clientConnection"``) and the objects IBM documents ("Channel attributes supported by the
JSON CCDT", MQ 9.1.2 and later, and the ``ccdt_schema.json`` the product ships):

=============================  ==============================================  ================
object                         keys                                            MQSC
=============================  ==============================================  ================
clientConnection               queueManager, connection[] {host, port}         QMNAME, CONNAME
compression                    header[], message[]                             COMPHDR, COMPMSG
connectionManagement           affinity, clientWeight, defaultReconnect,       AFFINITY, CLNTWGHT,
                               disconnectInterval, heartbeatInterval,          DEFRECON, DISCINT,
                               keepAliveInterval, sharingConversations,        HBINT, KAINT,
                               localAddress[] {host, port | portRange}         SHARECNV, LOCLADDR
exits                          receive[], send[], message[] {name, userData},  RCVEXIT, SENDEXIT,
                               security {name, userData}                       MSGEXIT, SCYEXIT
general                        description, maximumMessageLength               DESCR, MAXMSGL
timestamps                     altered                                         ALTDATE/ALTTIME
transmissionSecurity           cipherSpecification, certificateLabel,          SSLCIPH, CERTLABL,
                               certificatePeerName                             SSLPEER
=============================  ==============================================  ================

:func:`parse` reads a document into :class:`ClientChannel` values in file order, refusing anything else
with :class:`CCDTError`: the JSON path of the bad field and why (an unknown key, a wrong type, a value
out of IBM's range), never an exception of another kind.  IBM's client refuses such a table the same
way: MQRC_CLIENT_CONN_ERROR (2278) with AMQ9695 (the file's format) or AMQ9696 (an attribute's value)
naming the attribute (docs/decisions.md Y2).  :func:`render` writes the same format, so ``qmlite ccdt``
and the REST resource produce exactly what the parser (and IBM's clients) read.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

MQRC_CLIENT_CONN_ERROR = 2278  # cmqc.h: the reason IBM's client gives for a CCDT it cannot use

# The values IBM's schema allows, JSON spelling -> the MQ value (cmqxc.h / cmqc.h).
AFFINITY = {"none": 0, "preferred": 1}  # MQCAFTY_NONE, MQCAFTY_PREFERRED
DEFAULT_RECONNECT = {"no": 0, "yes": 1, "queueManager": 2, "disabled": 3}  # MQRCN_NO/YES/Q_MGR/DISABLED
HEADER_COMPRESSION = {"none": 0, "system": 8}  # MQCOMPRESS_NONE, MQCOMPRESS_SYSTEM
MESSAGE_COMPRESSION = {"none": 0, "rle": 1, "zlibfast": 2, "zlibhigh": 4, "lz4fast": 16, "lz4high": 32}
MQKAI_AUTO = -1  # cmqxc.h: KAINT(AUTO)

CHANNEL_NAME_LENGTH = 20  # MQ_CHANNEL_NAME_LENGTH
QMGR_NAME_LENGTH = 48  # MQ_Q_MGR_NAME_LENGTH
_NAME_CHARS = re.compile(r"^[A-Za-z0-9._/%]+$")  # the characters of an MQ object name


class CCDTError(ValueError):
    """A CCDT the client cannot use: ``where`` is the JSON path of the bad field (``""``: the whole
    document), ``detail`` why; ``reason`` is the MQRC the connect fails with."""

    def __init__(self, where: str, detail: str, reason: int = MQRC_CLIENT_CONN_ERROR) -> None:
        super().__init__(f"{where}: {detail}" if where else detail)
        self.where = where
        self.detail = detail
        self.reason = reason


@dataclasses.dataclass(slots=True)
class ClientChannel:
    """One client-connection channel of a CCDT, with MQ's defaults for what the entry leaves out
    (DEFINE CHANNEL CHLTYPE(CLNTCONN) on Multiplatforms)."""

    name: str
    queue_manager: str = ""
    connections: tuple[tuple[str, int], ...] = ()
    affinity: int = 1  # PREFERRED
    client_weight: int = 0
    default_reconnect: int = 0  # MQRCN_NO
    disconnect_interval: int = 0
    heartbeat_interval: int = 300  # SYSTEM.DEF.CLNTCONN's HBINT
    keep_alive_interval: int = MQKAI_AUTO
    sharing_conversations: int = 10
    local_address: str = ""
    header_compression: tuple[int, ...] = (0,)
    message_compression: tuple[int, ...] = (0,)
    description: str = ""
    max_message_length: int = 4_194_304
    cipher_spec: str = ""
    certificate_label: str = ""
    peer_name: str = ""
    exits: tuple[str, ...] = ()  # every exit the entry names (qmlite's client runs none)
    altered: str = ""
    sequence: int = 0  # the entry's position in the file (IBM: same-name CLNTWGHT(0) entries go in file order)


# --------------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------------

def parse(text: str | bytes) -> list[ClientChannel]:
    """The channels of a JSON CCDT, in file order; CCDTError for anything IBM's schema does not allow."""
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        if b"\0" in data[:4096] or not data.lstrip().startswith(b"{"):
            if looks_binary(data):
                raise CCDTError("", "a binary CCDT (AMQCLCHL.TAB format), which qmlite's client cannot read: "
                                    "use a JSON CCDT (qmlite ccdt writes one)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CCDTError("", f"not UTF-8 text (byte {exc.start})") from None
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except _DuplicateKey as exc:
        raise CCDTError(exc.where, "the key appears twice in one object") from None
    except (ValueError, RecursionError) as exc:
        raise CCDTError("", f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise CCDTError("", f"the document must be a JSON object, not {_kind(doc)}")
    for key in doc:
        if key != "channel":
            raise CCDTError(key, "unsupported key (a CCDT holds only \"channel\")")
    if "channel" not in doc:
        raise CCDTError("channel", "missing: a CCDT defines its channels in a \"channel\" array")
    channels = doc["channel"]
    if not isinstance(channels, list):
        raise CCDTError("channel", f"must be an array, not {_kind(channels)}")
    if not channels:
        raise CCDTError("channel", "no channels defined")
    return [_channel(entry, f"channel[{i}]", i) for i, entry in enumerate(channels)]


def looks_binary(data: bytes) -> bool:
    """A binary CCDT: IBM's AMQCLCHL.TAB records are fixed-layout structures full of NUL bytes."""
    head = data[:4096]
    return b"\0" in head or sum(1 for b in head if b < 9 or 13 < b < 32) > len(head) // 10


class _DuplicateKey(ValueError):
    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _object(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise CCDTError(where, f"must be an object, not {_kind(value)}")
    return value


def _array(value: Any, where: str) -> list:
    if not isinstance(value, list):
        raise CCDTError(where, f"must be an array, not {_kind(value)}")
    return value


def _string(value: Any, where: str, max_length: int | None = None) -> str:
    if not isinstance(value, str):
        raise CCDTError(where, f"must be a string, not {_kind(value)}")
    if max_length is not None and len(value) > max_length:
        raise CCDTError(where, f"{value!r} is longer than {max_length} characters")
    return value


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CCDTError(where, f"must be an integer, not {_kind(value)}")
    if not low <= value <= high:
        raise CCDTError(where, f"{value} is outside {low}-{high}")
    return value


def _choice(value: Any, where: str, allowed: dict[str, int]) -> int:
    text = _string(value, where)
    if text not in allowed:
        raise CCDTError(where, f"{text!r} is not one of {', '.join(allowed)}")
    return allowed[text]


def _keys(obj: dict, where: str, allowed: tuple[str, ...]) -> None:
    for key in obj:
        if key not in allowed:
            raise CCDTError(f"{where}.{key}", f"unsupported key (allowed: {', '.join(allowed)})")


def _channel(entry: Any, where: str, sequence: int) -> ClientChannel:
    obj = _object(entry, where)
    for required in ("name", "type"):
        if required not in obj:
            raise CCDTError(f"{where}.{required}", "missing: every channel needs a name and a type")
    name = _string(obj["name"], f"{where}.name", CHANNEL_NAME_LENGTH)
    if not _NAME_CHARS.match(name):
        raise CCDTError(f"{where}.name", f"{name!r} is not a channel name (A-Z a-z 0-9 . / _ %, 1-20 characters)")
    kind = _string(obj["type"], f"{where}.type")
    if kind != "clientConnection":
        raise CCDTError(f"{where}.type", f"{kind!r} is not supported: a CCDT holds clientConnection channels")
    ch = ClientChannel(name=name, sequence=sequence)
    for key, value in obj.items():
        if key in ("name", "type"):
            continue
        reader = _SECTIONS.get(key)
        if reader is None:
            raise CCDTError(f"{where}.{key}", f"unsupported key (allowed: name, type, {', '.join(_SECTIONS)})")
        reader(ch, _object(value, f"{where}.{key}"), f"{where}.{key}")
    return ch


def _client_connection(ch: ClientChannel, obj: dict, where: str) -> None:
    _keys(obj, where, ("connection", "queueManager"))
    if "queueManager" in obj:
        qmgr = _string(obj["queueManager"], f"{where}.queueManager", QMGR_NAME_LENGTH).rstrip()
        if qmgr and not _NAME_CHARS.match(qmgr):
            raise CCDTError(f"{where}.queueManager", f"{qmgr!r} is not a queue manager name")
        ch.queue_manager = qmgr
    if "connection" in obj:
        out = []
        for i, item in enumerate(_array(obj["connection"], f"{where}.connection")):
            at = f"{where}.connection[{i}]"
            conn = _object(item, at)
            _keys(conn, at, ("host", "port"))
            if "host" not in conn:
                raise CCDTError(f"{at}.host", "missing: a connection names its host")
            host = _string(conn["host"], f"{at}.host", 264).strip()
            if not host or any(c in host for c in "(), "):
                raise CCDTError(f"{at}.host", f"{conn['host']!r} is not a host name or address")
            port = _int(conn["port"], f"{at}.port", 1, 65535) if "port" in conn else 1414
            out.append((host, port))
        ch.connections = tuple(out)


def _compression(ch: ClientChannel, obj: dict, where: str) -> None:
    _keys(obj, where, ("header", "message"))
    for key, table, attr in (("header", HEADER_COMPRESSION, "header_compression"),
                             ("message", MESSAGE_COMPRESSION, "message_compression")):
        if key in obj:
            items = _array(obj[key], f"{where}.{key}")
            if len(items) > 16:
                raise CCDTError(f"{where}.{key}", "more than 16 values")
            setattr(ch, attr, tuple(_choice(v, f"{where}.{key}[{i}]", table) for i, v in enumerate(items)))


def _connection_management(ch: ClientChannel, obj: dict, where: str) -> None:
    _keys(obj, where, ("affinity", "clientWeight", "defaultReconnect", "disconnectInterval", "heartbeatInterval",
                       "keepAliveInterval", "localAddress", "sharingConversations"))
    if "affinity" in obj:
        ch.affinity = _choice(obj["affinity"], f"{where}.affinity", AFFINITY)
    if "clientWeight" in obj:
        ch.client_weight = _int(obj["clientWeight"], f"{where}.clientWeight", 0, 99)
    if "defaultReconnect" in obj:
        ch.default_reconnect = _choice(obj["defaultReconnect"], f"{where}.defaultReconnect", DEFAULT_RECONNECT)
    if "disconnectInterval" in obj:
        ch.disconnect_interval = _int(obj["disconnectInterval"], f"{where}.disconnectInterval", 0, 999_999)
    if "heartbeatInterval" in obj:
        ch.heartbeat_interval = _int(obj["heartbeatInterval"], f"{where}.heartbeatInterval", 0, 999_999)
    if "keepAliveInterval" in obj:
        ch.keep_alive_interval = _int(obj["keepAliveInterval"], f"{where}.keepAliveInterval", -1, 99_999)
    if "sharingConversations" in obj:
        ch.sharing_conversations = _int(obj["sharingConversations"], f"{where}.sharingConversations", 0,
                                        999_999_999)
    if "localAddress" in obj:
        parts = []
        for i, item in enumerate(_array(obj["localAddress"], f"{where}.localAddress")):
            at = f"{where}.localAddress[{i}]"
            addr = _object(item, at)
            _keys(addr, at, ("host", "port", "portRange"))
            host = _string(addr.get("host", ""), f"{at}.host", 48)
            if "port" in addr and "portRange" in addr:
                raise CCDTError(at, "port and portRange cannot both be given")
            if "port" in addr:
                parts.append(f"{host}({_int(addr['port'], f'{at}.port', 0, 65535)})")
            elif "portRange" in addr:
                rng = _object(addr["portRange"], f"{at}.portRange")
                _keys(rng, f"{at}.portRange", ("low", "high"))
                for bound in ("low", "high"):
                    if bound not in rng:
                        raise CCDTError(f"{at}.portRange.{bound}", "missing: a port range needs low and high")
                low = _int(rng["low"], f"{at}.portRange.low", 0, 65535)
                high = _int(rng["high"], f"{at}.portRange.high", 0, 65535)
                if low > high:
                    raise CCDTError(f"{at}.portRange", f"low {low} is above high {high}")
                parts.append(f"{host}({low},{high})")
            else:
                parts.append(host)
        ch.local_address = ",".join(parts)


def _exit_item(item: Any, at: str) -> str:
    obj = _object(item, at)
    _keys(obj, at, ("name", "userData"))
    if "name" not in obj:
        raise CCDTError(f"{at}.name", "missing: an exit is named")
    name = _string(obj["name"], f"{at}.name", 128)
    if "userData" in obj:
        _string(obj["userData"], f"{at}.userData", 32)
    return name


def _exits(ch: ClientChannel, obj: dict, where: str) -> None:
    _keys(obj, where, ("message", "receive", "security", "send"))
    names = []
    for key in ("message", "receive", "send"):
        if key in obj:
            names += [_exit_item(v, f"{where}.{key}[{i}]") for i, v in enumerate(_array(obj[key], f"{where}.{key}"))]
    if "security" in obj:
        names.append(_exit_item(obj["security"], f"{where}.security"))
    ch.exits = tuple(n for n in names if n.strip())


def _general(ch: ClientChannel, obj: dict, where: str) -> None:
    _keys(obj, where, ("description", "maximumMessageLength"))
    if "description" in obj:
        ch.description = _string(obj["description"], f"{where}.description", 64)
    if "maximumMessageLength" in obj:
        ch.max_message_length = _int(obj["maximumMessageLength"], f"{where}.maximumMessageLength", 0, 104_857_600)


def _timestamps(ch: ClientChannel, obj: dict, where: str) -> None:
    _keys(obj, where, ("altered",))
    if "altered" in obj:
        ch.altered = _string(obj["altered"], f"{where}.altered", 64)


def _transmission_security(ch: ClientChannel, obj: dict, where: str) -> None:
    _keys(obj, where, ("certificateLabel", "certificatePeerName", "cipherSpecification"))
    if "cipherSpecification" in obj:
        ch.cipher_spec = _string(obj["cipherSpecification"], f"{where}.cipherSpecification", 32).strip()
    if "certificateLabel" in obj:
        ch.certificate_label = _string(obj["certificateLabel"], f"{where}.certificateLabel", 64).strip()
    if "certificatePeerName" in obj:
        ch.peer_name = _string(obj["certificatePeerName"], f"{where}.certificatePeerName", 1024).strip()


_SECTIONS = {
    "clientConnection": _client_connection, "compression": _compression,
    "connectionManagement": _connection_management, "exits": _exits, "general": _general,
    "timestamps": _timestamps, "transmissionSecurity": _transmission_security,
}


# --------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------

def entry(ch: ClientChannel) -> dict:
    """One channel as its JSON CCDT object: what differs from MQ's defaults, plus the connection and
    queue manager (always written, so a reader sees where the channel goes)."""
    default = ClientChannel(ch.name)
    out: dict[str, Any] = {"name": ch.name, "type": "clientConnection"}
    conn: dict[str, Any] = {"connection": [{"host": h, "port": p} for h, p in ch.connections]}
    conn["queueManager"] = ch.queue_manager
    out["clientConnection"] = conn
    manage: dict[str, Any] = {}
    for attr, key, table in (("affinity", "affinity", AFFINITY), ("default_reconnect", "defaultReconnect",
                                                                   DEFAULT_RECONNECT)):
        value = getattr(ch, attr)
        if value != getattr(default, attr):
            manage[key] = _name_of(table, value)
    for attr, key in (("client_weight", "clientWeight"), ("disconnect_interval", "disconnectInterval"),
                      ("heartbeat_interval", "heartbeatInterval"), ("keep_alive_interval", "keepAliveInterval"),
                      ("sharing_conversations", "sharingConversations")):
        value = getattr(ch, attr)
        if value != getattr(default, attr):
            manage[key] = value
    if manage:
        out["connectionManagement"] = manage
    compression = {}
    if ch.header_compression != default.header_compression:
        compression["header"] = [_name_of(HEADER_COMPRESSION, v) for v in ch.header_compression]
    if ch.message_compression != default.message_compression:
        compression["message"] = [_name_of(MESSAGE_COMPRESSION, v) for v in ch.message_compression]
    if compression:
        out["compression"] = compression
    general: dict[str, Any] = {}
    if ch.description:
        general["description"] = ch.description
    if ch.max_message_length != default.max_message_length:
        general["maximumMessageLength"] = ch.max_message_length
    if general:
        out["general"] = general
    security = {}
    if ch.cipher_spec:
        security["cipherSpecification"] = ch.cipher_spec
    if ch.certificate_label:
        security["certificateLabel"] = ch.certificate_label
    if ch.peer_name:
        security["certificatePeerName"] = ch.peer_name
    if security:
        out["transmissionSecurity"] = security
    if ch.altered:
        out["timestamps"] = {"altered": ch.altered}
    return out


def document(channels: list[ClientChannel]) -> dict:
    return {"channel": [entry(ch) for ch in channels]}


def render(channels: list[ClientChannel]) -> str:
    """The JSON CCDT text (two-space indents, a final newline)."""
    return json.dumps(document(channels), indent=2) + "\n"


def _name_of(table: dict[str, int], value: int) -> str:
    for name, number in table.items():
        if number == value:
            return name
    raise ValueError(f"{value} has no JSON CCDT name")


DEFAULT_PORT = 1414  # a CONNAME entry without a port


# CONNAME, as a CCDT, an MQCD and a sender channel's definition give it (client/ibmmqc/resolve.py and
# server/mca/run.py read it here).
def parse_conn_name(text: str) -> tuple[tuple[str, int], ...]:
    """``host(port)[,host(port)...]`` -> ((host, port), ...); the port defaults to 1414."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        host, _, rest = part.partition("(")
        host = host.strip()
        if not host or (rest and not rest.endswith(")")):
            raise ValueError(f"bad connection name {part!r}")
        port_text = rest[:-1].strip() if rest else ""
        if port_text and not port_text.isdigit():
            raise ValueError(f"bad connection name {part!r}")
        out.append((host, int(port_text) if port_text else DEFAULT_PORT))
    return tuple(out)
