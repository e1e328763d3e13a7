"""Routing a set of publications the way the queue manager would: the part each Spark executor runs.

Plain Python over ``registry.pubsub.routing`` (no Spark here, so it is tested directly and shared by every
job): a publication row becomes the MQMD and data an MQPUT would carry, ``routing.publication`` and
``routing.receivers`` decide who receives it exactly as ``QueueManager.publish`` does, and
``routing.deliveries`` builds each copy.  What comes out is one delivery row per copy.

Publication rows (JSON lines or Parquet; issue 10's interface): ``id`` (string or integer; the row
number when absent), ``topic``, ``body`` (text) or ``size``, ``properties`` (name -> JSON value: a
string, integer, float or boolean property), ``priority``, ``persistence`` (0/1), ``expiry`` (tenths,
-1 unlimited), ``pub_level`` (default 9), ``timestamp`` (ISO 8601).  A missing priority or
persistence is the topic's default, as MQPRI_PRIORITY_AS_Q_DEF / MQPER_PERSISTENCE_AS_Q_DEF are.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Iterator

from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR
from qmlite.pcf.mqi import MQMD
from qmlite.registry.pubsub import routing
from qmlite.registry.objects.definitions import put_stamp

MAX_BODY = 100 * 1024 * 1024  # a row's ``size`` beyond this is refused, never allocated
_NO_ID = bytes(24)

DELIVERY_FIELDS = ("publication_id", "sub_name", "sub_id", "destination_queue", "destination_qmgr", "correl_id",
                   "priority", "persistence", "expiry", "bytes", "topic", "timestamp")


class PublicationError(ValueError):
    """A publication row that cannot be routed (its row number and why)."""


def _epoch(text: object, row: int) -> float | None:
    if text in (None, ""):
        return None
    try:
        when = _dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise PublicationError(f"row {row}: timestamp {text!r} is not ISO 8601") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return when.timestamp()


def properties_of(value: object, row: int):
    if value in (None, "", {}):
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise PublicationError(f"row {row}: properties are not a JSON object") from None
    if not isinstance(value, dict):
        raise PublicationError(f"row {row}: properties must be an object of name -> value")
    props = PR.Properties()
    for name, item in value.items():
        try:
            props.set(str(name), item)
        except ValueError as exc:
            raise PublicationError(f"row {row}: property {name!r}: {exc}") from None
    return props


def publication(row: dict, number: int, reg) -> tuple[str, routing.Publication, int, float]:
    """(id, routing Publication, body size, timestamp) of one publication row."""
    topic = row.get("topic")
    if not isinstance(topic, str) or not topic:
        raise PublicationError(f"row {number}: no topic")
    body = row.get("body")
    if body is not None:
        data = str(body).encode("utf-8")
        size = len(data)
    else:
        size = int_field(row, "size", 0, number)
        if not 0 <= size <= MAX_BODY:
            raise PublicationError(f"row {number}: size {size} out of range")
        data = b""  # only its size matters: nothing is allocated for it
    when = _epoch(row.get("timestamp"), number)
    md = MQMD(Format=C.MQFMT_STRING,
              Priority=int_field(row, "priority", C.MQPRI_PRIORITY_AS_Q_DEF, number),
              Persistence=int_field(row, "persistence", C.MQPER_PERSISTENCE_AS_Q_DEF, number),
              Expiry=int_field(row, "expiry", C.MQEI_UNLIMITED, number))
    if when is not None:
        md.PutDate, md.PutTime = put_stamp(when)
    pub = routing.publication(reg, topic, md, data, int_field(row, "pub_level", routing.DEFAULT_PUB_LEVEL, number))
    props = properties_of(row.get("properties"), number)
    if props:
        pub.props = props
    ident = row.get("id")
    return (str(number) if ident is None else str(ident)), pub, size, (when or 0.0)


def int_field(row: dict, name: str, default: int, number: int | None = None) -> int:
    """An integer column (``default`` when absent); a value that is not one is a PublicationError
    naming the row, so a bad row stops the job with a sentence, not a traceback."""
    value = row.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise PublicationError(f"row {number}: {name} {value!r} is not an integer") from None


def no_msg_id() -> bytes:
    return _NO_ID  # a replay has no MsgIds to give: the rows carry no MsgId


def route_rows(rows: Iterable[tuple[dict, int]], reg) -> Iterator[dict]:
    """One delivery row per copy the queue manager would make of each (row, row number)."""
    for row, number in rows:
        ident, pub, size, when = publication(row, number, reg)
        subs = routing.receivers(reg, pub)
        if not subs:
            continue
        for copy in routing.deliveries(reg, pub, subs, when, no_msg_id):
            yield {
                "publication_id": ident, "sub_name": copy.sub.name, "sub_id": copy.sub.sub_id.hex(),
                "destination_queue": copy.queue, "destination_qmgr": copy.qmgr or reg.qmgr.name,
                "correl_id": copy.md.CorrelId.hex(), "priority": routing.delivered_priority(reg, copy),
                "persistence": copy.md.Persistence, "expiry": copy.md.Expiry,
                "bytes": len(copy.data) - len(pub.body) + size, "topic": pub.topic, "timestamp": when,
            }
