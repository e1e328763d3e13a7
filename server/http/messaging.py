"""The messaging REST API over the domain: each request is one connection to the queue manager
(registry/qmgr.py ``connect``), an MQPUT1 or MQOPEN/MQGET/MQCLOSE through the same calls an MQI client
makes, and MQDISC; so authority records, limits, routing and persistence are the queue manager's own.

IBM's headers: ``ibm-mq-md-*`` for descriptor fields, ``ibm-mq-usr`` (REST API v3) for user properties.
Message and correlation ids are 48 hex digits in v1 and v2 and ``ID:`` + 48 hex digits in v3 (a v3
correlation id may also be an application string, kept in the CorrelId's 24 bytes).
"""

from __future__ import annotations

import dataclasses
import re

import trio

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import properties as PR
from qmlite.pcf.errors import CodecError
from qmlite.registry.security import authrecs
from qmlite.registry.errors import MQIError

from . import errors

ZERO24 = bytes(24)
_HEX48 = re.compile(r"^[0-9A-Fa-f]{48}$")
_CODECS = {1208: "utf-8", 819: "latin-1", 367: "ascii", 437: "cp437", 850: "cp850", 1252: "cp1252",
           37: "cp037", 500: "cp500", 1200: "utf-16-be", 1051: "latin-1"}
_USR_TYPES = {"string", "boolean", "byte", "short", "int", "long", "float", "double"}
_MQ_TYPES = {"byte": "i1", "short": "i2", "int": "i4", "long": "i8", "float": "r4", "double": "r8",
             "boolean": "boolean", "string": "string"}
_REST_TYPES = {"i1": "byte", "i2": "short", "i4": "int", "i8": "long", "r4": "float", "r8": "double",
               "boolean": "boolean", "string": "string"}
_TEXT_TYPES = ("text/plain", "text/html", "text/xml", "application/json", "application/xml")
APPL_NAME = "qmlite REST API"
MAX_WAIT_MS = 2_147_483_647


@dataclasses.dataclass(slots=True)
class Outgoing:
    """What the REST call puts: body and descriptor fields from the request's headers."""

    body: bytes
    md: S.MQMD
    props: PR.Properties | None


@dataclasses.dataclass(slots=True)
class Received:
    """A message taken or browsed, as the response will carry it."""

    md: S.MQMD
    body: bytes
    props: PR.Properties | None


# ---- ids ---------------------------------------------------------------------------------------------
def format_id(value: bytes, version: int) -> str:
    text = value.hex().upper() if version < 3 else value.hex()
    return f"ID:{text}" if version >= 3 else text


def parse_id(text: str, what: str, version: int, *, application: bool = False) -> bytes:
    """A message or correlation id from a header or query parameter (RestError 400 when malformed)."""
    raw = text[3:] if version >= 3 and text.startswith("ID:") else text
    if _HEX48.match(raw) and (version < 3 or text.startswith("ID:")):
        return bytes.fromhex(raw)
    if version >= 3 and application and not text.startswith("ID:"):
        data = text.encode("utf-8")
        if len(data) <= 24:
            return data.ljust(24, b"\x00")
    expected = "'ID:' followed by 48 hexadecimal digits" if version >= 3 else "48 hexadecimal digits"
    raise errors.bad_request(f"The {what} '{text}' is not valid: expected {expected}.")


# ---- request headers -> message ----------------------------------------------------------------------
def outgoing(headers, body: bytes, version: int, qmgr: str) -> Outgoing:
    content_type = headers.get("content-type", "text/plain;charset=utf-8")
    media, _, params = content_type.partition(";")
    if media.strip().lower() not in _TEXT_TYPES:
        raise errors.RestError(415, "MQWB0007E", f"The Content-Type '{content_type}' is not supported.",
                               "The messaging REST API sends text: text/plain, text/html, text/xml, "
                               "application/json or application/xml, in UTF-8.",
                               "Resubmit the request with a supported Content-Type.")
    charset = re.search(r"charset\s*=\s*\"?([A-Za-z0-9_-]+)", params)
    if charset and charset.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise errors.RestError(415, "MQWB0007E", f"The charset '{charset.group(1)}' is not supported.",
                               "The messaging REST API accepts UTF-8 text only.",
                               "Resubmit the request with charset=utf-8.")
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.bad_request(f"The message body is not UTF-8 text: {exc}.") from None
    md = S.MQMD(Version=C.MQMD_VERSION_2, Format=C.MQFMT_STRING, CodedCharSetId=1208,
                Persistence=C.MQPER_PERSISTENCE_AS_Q_DEF, Priority=C.MQPRI_PRIORITY_AS_Q_DEF)
    if version < 3:
        md.Priority = 4 if md.Priority == C.MQPRI_PRIORITY_AS_Q_DEF else md.Priority  # IBM: v1/v2 put at 4
    value = headers.get("ibm-mq-md-correlationid")
    if value is not None:
        md.CorrelId = parse_id(value.strip(), "correlation id", version, application=True)
    value = headers.get("ibm-mq-md-expiry")
    if value is not None:
        md.Expiry = _expiry(value.strip())
    value = headers.get("ibm-mq-md-persistence")
    if value is not None:
        md.Persistence = _persistence(value.strip())
    value = headers.get("ibm-mq-md-priority")
    if value is not None:
        if version < 3:
            raise errors.bad_request("The ibm-mq-md-priority header needs REST API v3.")
        if not value.strip().isdigit() or not 0 <= int(value) <= 9:
            raise errors.bad_request(f"The priority '{value}' is not valid: expected 0 to 9.")
        md.Priority = int(value)
    value = headers.get("ibm-mq-md-replyto")
    if value is not None:
        queue, _, reply_qmgr = value.strip().partition("@")
        if not queue or len(queue) > 48 or len(reply_qmgr) > 48:
            raise errors.bad_request(f"The reply-to '{value}' is not valid: expected queue[@qmgr].")
        md.ReplyToQ, md.ReplyToQMgr = queue, reply_qmgr or qmgr
    props = user_properties(headers, version)
    if props:
        data, fmt = PR.join(props, body, md.Format, md.Encoding, md.CodedCharSetId)
        md.Format = fmt
        body = data
    return Outgoing(body, md, props)


def size_limit(qm, queue: str | None) -> tuple[int, int]:
    """(bytes, reason): how long a put's body may be, known before it is read, and the reason for one
    longer.  The lesser of the queue manager's MAXMSGL and, for a local queue or an alias of one, the
    queue's; the reason names the lesser (2030 MSG_TOO_BIG_FOR_Q on a tie, as the domain checks the queue
    first).  Any other target (a topic, a remote or model queue, an unknown name) has the queue
    manager's, and the domain judges the rest once the body is in (docs/decisions.md RB2)."""
    reg = qm.registry
    qmgr_limit = reg.qmgr.max_msg_length
    target = reg.queues.get(queue) if queue else None
    if target is not None and target.qtype == C.MQQT_ALIAS and target.target_type != C.MQOT_TOPIC:
        target = reg.queues.get(target.target)
    if target is None or target.qtype != C.MQQT_LOCAL or target.max_msg_length > qmgr_limit:
        return qmgr_limit, C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
    return target.max_msg_length, C.MQRC_MSG_TOO_BIG_FOR_Q


def _expiry(text: str) -> int:
    if text.lower() == "unlimited":
        return C.MQEI_UNLIMITED
    if not text.isdigit() or int(text) == 0:
        raise errors.bad_request(f"The expiry '{text}' is not valid: expected 'unlimited' or milliseconds > 0.")
    return min(max(1, -(-int(text) // 100)), 2_147_483_647)  # MQMD Expiry counts tenths of a second


def _persistence(text: str) -> int:
    words = {"persistent": C.MQPER_PERSISTENT, "nonpersistent": C.MQPER_NOT_PERSISTENT}
    found = words.get(text.lower())
    if found is None:
        raise errors.bad_request(f"The persistence '{text}' is not valid: expected persistent or nonPersistent.")
    return found


def user_properties(headers, version: int) -> PR.Properties | None:
    """``ibm-mq-usr: name1="text", name2=5;int`` (one header, comma-separated; repeated headers add up)."""
    values = headers.getlist("ibm-mq-usr") if hasattr(headers, "getlist") else [headers.get("ibm-mq-usr")]
    values = [v for v in values if v]
    if not values:
        return None
    if version < 3:
        raise errors.bad_request("The ibm-mq-usr header needs REST API v3.")
    props = PR.Properties()
    for header in values:
        for item in _split_items(header):
            name, sep, rest = item.partition("=")
            name = name.strip()
            if not sep or not name:
                raise errors.bad_request(f"The user property '{item}' is not valid: expected name=value.")
            value, kind = _property_value(rest.strip(), item)
            try:
                props.set(f"usr.{name}", value, _MQ_TYPES[kind])
            except ValueError as exc:
                raise errors.bad_request(f"The user property '{name}' is not valid: {exc}.") from None
    return props


def _split_items(header: str) -> list[str]:
    items, current, quoted = [], [], False
    for ch in header:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    return [i for i in (item.strip() for item in items) if i]


def _property_value(text: str, item: str) -> tuple[object, str]:
    if text.startswith('"'):
        end = text.rfind('"')
        if end == 0 or text[end + 1:].strip() not in ("", ";string"):
            raise errors.bad_request(f"The user property '{item}' is not valid: unterminated string.")
        return text[1:end].replace('\\"', '"'), "string"
    value, _, kind = text.rpartition(";") if ";" in text else (text, "", "string")
    kind = kind.strip().lower()
    if kind not in _USR_TYPES:
        raise errors.bad_request(f"The user property '{item}' has an unknown type '{kind}'.")
    try:
        if kind == "boolean":
            if value.lower() not in ("true", "false"):
                raise ValueError(value)
            return value.lower() == "true", kind
        if kind in ("float", "double"):
            return float(value), kind
        if kind != "string":
            return int(value), kind
    except ValueError:
        raise errors.bad_request(f"The user property '{item}' is not a valid {kind}.") from None
    return value, kind


# ---- message -> response headers ---------------------------------------------------------------------
def text_of(received: Received, qmgr_ccsid: int) -> tuple[str, str]:
    """(body text, content type) of a received message."""
    ccsid = received.md.CodedCharSetId
    if ccsid in (0, C.MQCCSI_Q_MGR):
        ccsid = qmgr_ccsid
    return received.body.decode(_CODECS.get(ccsid, "utf-8"), "replace"), "text/plain; charset=utf-8"


def response_headers(received: Received, version: int) -> dict[str, str]:
    md = received.md
    out = {"ibm-mq-md-messageId": format_id(md.MsgId, version),
           "ibm-mq-md-persistence": "persistent" if md.Persistence == C.MQPER_PERSISTENT else "nonPersistent",
           "ibm-mq-md-expiry": "unlimited" if md.Expiry <= 0 else str(md.Expiry * 100)}
    if md.CorrelId != ZERO24:
        out["ibm-mq-md-correlationId"] = format_id(md.CorrelId, version)
    if md.ReplyToQ.strip():
        out["ibm-mq-md-replyTo"] = f"{md.ReplyToQ.strip()}@{md.ReplyToQMgr.strip()}"
    if version >= 3:
        out["ibm-mq-md-priority"] = str(md.Priority)
        if received.props:
            out["ibm-mq-usr"] = ", ".join(_usr_item(name, prop) for name, prop in received.props.items()
                                          if received.props.folder(name) == "usr")
    return {k: v for k, v in out.items() if v}


def _usr_item(name: str, prop) -> str:
    short = name[4:] if name.startswith("usr.") else name
    kind, value = prop[0], prop[1]
    if kind == "string":
        return f'{short}="{value}"'
    if kind == "boolean":
        return f"{short}={'true' if value else 'false'};boolean"
    return f"{short}={value};{_REST_TYPES.get(kind, 'string')}"


def list_entry(md: S.MQMD, version: int) -> dict[str, object]:
    """One message of GET .../messagelist, as IBM's JSON reports it."""
    entry: dict[str, object] = {
        "messageId": format_id(md.MsgId, version),
        "format": md.Format.strip(),
        "persistence": "persistent" if md.Persistence == C.MQPER_PERSISTENT else "nonPersistent",
        "expiry": "unlimited" if md.Expiry <= 0 else md.Expiry * 100,
        "priority": md.Priority,
        "putDate": md.PutDate, "putTime": md.PutTime,
        "userIdentifier": md.UserIdentifier.strip(),
    }
    if md.CorrelId != ZERO24:
        entry["correlationId"] = format_id(md.CorrelId, version)
    if md.ReplyToQ.strip():
        entry["replyTo"] = f"{md.ReplyToQ.strip()}@{md.ReplyToQMgr.strip()}"
    return entry


# ---- the domain calls --------------------------------------------------------------------------------
class Messaging:
    """Put, get, browse and publish for one authenticated user, each in its own connection."""

    def __init__(self, server, qmgr_name: str) -> None:
        self.server = server
        self.qm = server.qm
        self.qmgr_name = qmgr_name

    def _connect(self, user: str, peer: str):
        try:
            return self.qm.connect(self.qmgr_name, user=user, admin=authrecs.privileged(user),
                                   appl_name=APPL_NAME, appl_type=C.MQAT_JAVA, conname=peer)
        except MQIError as exc:
            raise errors.from_reason(exc.reason, "connect to", self.qmgr_name, self.qmgr_name) from None

    async def _durable(self) -> None:
        await self.server.mqi.durable(self.qm.position)

    async def put(self, user: str, peer: str, queue: str, out: Outgoing) -> S.MQMD:
        od = S.MQOD(ObjectType=C.MQOT_Q, ObjectName=queue)
        return await self._put1(user, peer, od, out, queue, "put to")

    async def publish(self, user: str, peer: str, topic: str, out: Outgoing) -> S.MQMD:
        od = S.MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectString=S.MQCHARV(topic))
        return await self._put1(user, peer, od, out, topic, "publish to")

    async def _put1(self, user, peer, od, out: Outgoing, name: str, action: str) -> S.MQMD:
        session = self._connect(user, peer)
        pmo = S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING)
        try:
            _, md, _, _ = self.qm.put1(session, od, out.md, pmo, out.body)
        except MQIError as exc:
            raise errors.from_reason(exc.reason, action, name, self.qmgr_name) from None
        finally:
            self.qm.disconnect(session, commit=True)
        await self._durable()
        return md

    async def get(self, user: str, peer: str, queue: str, *, msg_id: bytes | None, correl_id: bytes | None,
                  wait_ms: int, browse: bool) -> Received | None:
        """Take (or browse) the first matching message, waiting up to ``wait_ms``; None when none came."""
        session = self._connect(user, peer)
        options = (C.MQOO_BROWSE if browse else C.MQOO_INPUT_AS_Q_DEF) | C.MQOO_FAIL_IF_QUIESCING
        try:
            try:
                handle, _ = self.qm.open_object(session, S.MQOD(ObjectType=C.MQOT_Q, ObjectName=queue), options)
            except MQIError as exc:
                raise errors.from_reason(exc.reason, "browse from" if browse else "get from", queue,
                                         self.qmgr_name) from None
            deadline = trio.current_time() + wait_ms / 1000
            # A virtual clock (docs/decisions.md VC2): the wait also ends when that clock passes it, whichever first.
            virtual, virtual_at, timer = self.qm.clock_control.virtual, self.qm.now() + wait_ms / 1000, None
            try:
                while True:
                    got = self._attempt(session, handle, msg_id, correl_id, browse, queue)
                    if got is not None or trio.current_time() >= deadline or self.qm.quiescing:
                        break
                    if virtual is not None:
                        if self.qm.now() >= virtual_at:
                            break
                        if timer is None:
                            timer = virtual.add_wait(virtual_at)
                    with trio.move_on_at(deadline):
                        await self.server.mqi.activity.lot(handle.name).park()
            finally:
                if timer is not None:
                    virtual.remove_wait(timer)
        finally:
            self.qm.disconnect(session, commit=True)
        if got is None:
            return None
        await self._durable()
        return got

    def _attempt(self, session, handle, msg_id, correl_id, browse, queue) -> Received | None:
        match = (C.MQMO_MATCH_MSG_ID if msg_id else 0) | (C.MQMO_MATCH_CORREL_ID if correl_id else 0)
        opts = C.MQGMO_NO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_PROPERTIES_FORCE_MQRFH2
        opts |= C.MQGMO_BROWSE_FIRST if browse else 0
        gmo = S.MQGMO(Version=C.MQGMO_VERSION_2, Options=opts, MatchOptions=match)
        md = S.MQMD(MsgId=msg_id or ZERO24, CorrelId=correl_id or ZERO24)
        try:
            got = self.qm.get(session, handle, md, gmo, 100 * 1024 * 1024)
        except MQIError as exc:
            raise errors.from_reason(exc.reason, "browse from" if browse else "get from", queue,
                                     self.qmgr_name) from None
        if got is None:
            return None
        return _received(got.md, got.data)

    def list(self, user: str, peer: str, queue: str, *, msg_id: bytes | None, correl_id: bytes | None,
             limit: int, version: int) -> list[dict]:
        session = self._connect(user, peer)
        out: list[dict] = []
        try:
            try:
                handle, _ = self.qm.open_object(session, S.MQOD(ObjectType=C.MQOT_Q, ObjectName=queue),
                                                C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
            except MQIError as exc:
                raise errors.from_reason(exc.reason, "browse from", queue, self.qmgr_name) from None
            match = (C.MQMO_MATCH_MSG_ID if msg_id else 0) | (C.MQMO_MATCH_CORREL_ID if correl_id else 0)
            first = True
            while len(out) < limit:
                gmo = S.MQGMO(Version=C.MQGMO_VERSION_2, MatchOptions=match,
                              Options=(C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT)
                              | C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_PROPERTIES)
                first = False
                got = self.qm.get(session, handle, S.MQMD(MsgId=msg_id or ZERO24, CorrelId=correl_id or ZERO24),
                                  gmo, 0)  # the descriptor only: a truncated browse still moves the cursor
                if got is None:
                    break
                out.append(list_entry(got.md, version))
        finally:
            self.qm.disconnect(session, commit=True)
        return out


def _received(md: S.MQMD, data: bytes) -> Received:
    """A got message with any MQRFH2 taken off: the body's own Format and CCSID, and its properties."""
    if md.Format.rstrip() != C.MQFMT_RF_HEADER_2.rstrip() or not data:
        if md.Format.rstrip() == C.MQFMT_RF_HEADER_2.rstrip():
            md = dataclasses.replace(md, Format=C.MQFMT_STRING)
        return Received(md, data, None)
    try:
        split = PR.split(data, md.Format, md.Encoding, md.CodedCharSetId)
    except CodecError:
        return Received(md, data, None)
    md = dataclasses.replace(md, Format=split.fmt, Encoding=split.encoding, CodedCharSetId=split.ccsid)
    return Received(md, bytes(split.body), split.properties or None)
