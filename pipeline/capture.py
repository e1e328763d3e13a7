"""Publications out of a capture decoded by ``qmlite decode`` (docs/decode-json.md).

A capture of a client's conversation(s) with a queue manager holds its publications as MQPUT1 calls
to a topic and as MQPUT calls on a handle an MQOPEN of a topic returned.  Each becomes a publication
row of the pipeline's interface (docs/pipeline.md): topic, size, priority, persistence, expiry,
PubLevel, and the message properties of an MQRFH2 at the front of its data.  Handles are followed per
conversation (the TSHM ConversationId), so a capture should hold one connection, or several whose
conversation ids differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR
from qmlite.pcf.errors import CodecError
from qmlite.registry.pubsub import topics

_DEFAULT_PUB_LEVEL = 9


def is_decoded_capture(first_line: str) -> bool:
    """Does a JSON-lines file start like ``qmlite decode`` output rather than publication rows?"""
    try:
        obj = json.loads(first_line)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("kind") == "segment" and "header" in obj


def _topic(od: dict, topic_objects: dict[str, str]) -> str | None:
    if od.get("ObjectType") != C.MQOT_TOPIC:
        return None
    string = (od.get("ObjectString") or {}).get("VSString", "")
    name = od.get("ObjectName", "")
    base = topic_objects.get(name, "") if name else ""
    return topics.combine(base, string) or None


def _row(offset: int, topic: str, call: dict, message: dict | None) -> dict:
    md = call.get("MsgDesc") or {}
    pmo = call.get("PutMsgOpts") or {}
    row = {"id": f"@{offset}", "topic": topic, "priority": md.get("Priority"), "persistence": md.get("Persistence"),
           "expiry": md.get("Expiry"),
           "pub_level": pmo.get("PubLevel", _DEFAULT_PUB_LEVEL) if pmo.get("Version", 1) >= 3 else _DEFAULT_PUB_LEVEL}
    size = (message or {}).get("length", 0)
    hex_data = (message or {}).get("hex")
    fmt = str(md.get("Format", ""))
    if hex_data and fmt.rstrip() == C.MQFMT_RF_HEADER_2.rstrip():
        try:
            split = PR.split(bytes.fromhex(hex_data), fmt, md.get("Encoding", C.MQENC_NATIVE),
                            md.get("CodedCharSetId", 1208))
        except (CodecError, ValueError):
            split = None
        if split is not None:
            row["properties"] = split.properties.values_for_selectors() or None
            size = len(split.body)
    row["size"] = size
    return row


def publications(objects: Iterable[dict], topic_objects: dict[str, str] | None = None) -> Iterator[dict]:
    """Publication rows from decoded segments, in capture order.  ``topic_objects``: topic object
    name -> topic string (an MQOD may name a topic object rather than, or as well as, a string)."""
    known = topic_objects or {}
    opening: dict[tuple[int, int], str] = {}  # (conversation, request id) -> topic of an MQOPEN in flight
    handles: dict[tuple[int, int], str] = {}  # (conversation, Hobj) -> topic string
    for obj in objects:
        if not isinstance(obj, dict) or obj.get("kind") != "segment" or "error" in obj:
            continue
        header, api, call = obj.get("header") or {}, obj.get("api") or {}, obj.get("call") or {}
        kind = header.get("SegmentType_name")
        conv = header.get("ConversationId", 0)
        if kind == "MQOPEN":
            topic = _topic(call.get("ObjDesc") or {}, known)
            if topic is not None:
                opening[(conv, header.get("RequestId", 0))] = topic
        elif kind == "MQOPEN_REPLY":
            topic = opening.pop((conv, header.get("RequestId", 0)), None)
            if topic is not None and api.get("CompCode") != C.MQCC_FAILED:
                resolved = ((call.get("ObjDesc") or {}).get("ResObjectString") or {}).get("VSString")
                handles[(conv, api.get("Hobj"))] = resolved or topic
        elif kind == "MQCLOSE":
            handles.pop((conv, api.get("Hobj")), None)
        elif kind == "MQPUT1":
            topic = _topic(call.get("ObjDesc") or {}, known)
            if topic is not None:
                yield _row(obj.get("offset", 0), topic, call, obj.get("message"))
        elif kind == "MQPUT":
            topic = handles.get((conv, api.get("Hobj")))
            if topic is not None:
                yield _row(obj.get("offset", 0), topic, call, obj.get("message"))
