"""``qmlite decode``: explain MQ bytes as JSON lines.

Three inputs are recognised: a FAP segment stream (starts with ``TSH``), a message with its MQMD in
front (starts with ``MD  ``), or a bare PCF message.  Every segment or message becomes one JSON object
with every field decoded and constants named; PCF carried inside MQPUT/MQPUT1/MQGET replies and
ASYNC_MESSAGE segments is decoded too when the MQMD Format says it is PCF.  Malformed input becomes
``{"error": <reason name>, "offset": n}`` with the reason a queue manager would answer.  The JSON is
documented in docs/decode-json.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import calls, fap, mqi
from . import constants as C
from . import pcf as P
from .errors import CodecError
from .framer import MAX_TRANSMISSION_SIZE_LIMIT, Framer, Reassembler
from .jsonview import to_json

PCF_FORMATS = frozenset({C.MQFMT_ADMIN, C.MQFMT_EVENT, C.MQFMT_PCF})
_CFH_TYPES = frozenset(v for k, v in vars(C).items() if k.startswith("MQCFT_") and isinstance(v, int) and 0 < v < 40)
_PARAM_FAMILIES = (
    (1, 2000, ("MQIA", "MQIACF", "MQIACH", "MQIAMO", "MQIAMO64")),
    (2001, 4000, ("MQCA", "MQCACF", "MQCACH", "MQCAMO")),
    (6001, 8000, ("MQBACF",)),
    (8001, 9000, ("MQGACF",)),
    (9001, 10000, ("MQBA",)),
)
_HEX_NOISE = re.compile(r"0x|[\s:,]", re.IGNORECASE)


def parse_hex(text: str) -> bytes:
    """Hex text to bytes; whitespace, ``0x`` prefixes, colons and commas are ignored."""
    return bytes.fromhex(_HEX_NOISE.sub("", text))


def detect(data: bytes) -> str:
    head = bytes(data[:4])
    if head[:3] == b"TSH" or head in fap.EBCDIC_STRUCT_IDS:
        return "fap"
    if head == b"MD  ":
        return "md"
    return "pcf"


def has_error(obj: object) -> bool:
    """True when a decoded object, or anything inside it, reports an error."""
    if isinstance(obj, dict):
        return "error" in obj or any(has_error(v) for v in obj.values())
    if isinstance(obj, list):
        return any(has_error(v) for v in obj)
    return False


def decode_objects(data: bytes, kind: str = "auto") -> Iterator[dict]:
    kind = detect(data) if kind == "auto" else kind
    if kind == "fap":
        yield from _segments(data)
    elif kind == "md":
        yield _md_message(data, 0)
    else:
        yield _bare_pcf(data)


# ---- PCF -----------------------------------------------------------------------------------------
def parameter_name(pid: int) -> str | None:
    for low, high, families in _PARAM_FAMILIES:
        if low <= pid <= high:
            for family in families:
                name = C.name_of(family, pid)
                if name is not None:
                    return name
    return None


def _param_json(param) -> dict:
    out = to_json(param)
    out_named: dict = {}
    for key, value in out.items():
        out_named[key] = value
        if key == "parameter":
            out_named["parameter_name"] = parameter_name(param.parameter)
    if isinstance(param, P.CFGR):
        out_named["parameters"] = [_param_json(p) for p in param.parameters]
    if isinstance(param, (P.CFIF, P.CFSF, P.CFBF)):
        out_named["operator_name"] = C.name_of("MQCFOP", param.operator)
    return out_named


def pcf_json(data: bytes, encoding: int, ccsid: int = 0) -> dict:
    msg = P.decode(data, encoding, ccsid, strict=False)
    return {"kind": "pcf", "encoding": encoding, "header": to_json(msg.header),
            "parameters": [_param_json(p) for p in msg.parameters]}


def _bare_pcf(data: bytes) -> dict:
    if len(data) >= 4:
        le = int.from_bytes(data[:4], "little")
        be = int.from_bytes(data[:4], "big")
        encoding = C.MQENC_NATIVE if le in _CFH_TYPES or be not in _CFH_TYPES else 0x111
    else:
        encoding = C.MQENC_NATIVE
    try:
        return pcf_json(data, encoding)
    except CodecError as exc:
        return {"kind": "pcf", **exc.to_json()}


# ---- messages ------------------------------------------------------------------------------------
def _payload(md: mqi.MQMD, data: bytes) -> dict:
    """Message data after an MQMD: PCF decoded when the Format says so, otherwise hex."""
    fmt = md.Format.ljust(8)
    if fmt in PCF_FORMATS and data:
        try:
            return pcf_json(data, md.Encoding, md.CodedCharSetId)
        except CodecError as exc:
            return {"kind": "pcf", **exc.to_json()}
    return {"kind": "data", "length": len(data), "hex": bytes(data).hex()}


def _md_order(data: bytes, offset: int) -> str:
    version = int.from_bytes(data[offset + 4:offset + 8], "little")
    return "<" if version in (1, 2) else ">"


def _md_message(data: bytes, offset: int) -> dict:
    try:
        md, end = mqi.MQMD.unpack(data, offset, _md_order(data, offset))
    except CodecError as exc:
        return {"kind": "message", **exc.to_json()}
    return {"kind": "message", "md": to_json(md), "data": _payload(md, data[end:])}


# ---- FAP segment streams -------------------------------------------------------------------------
def _segments(data: bytes) -> Iterator[dict]:
    framer = Framer(max_segment_length=MAX_TRANSMISSION_SIZE_LIMIT)
    reassembler = Reassembler()
    offset = 0
    try:
        segments = framer.feed(data)
    except CodecError as exc:
        # Everything before the bad one is still worth showing: frame again up to the failure point.
        segments = _frame_prefix(data, exc.offset or 0)
        failure = exc
    else:
        failure = None
    for seg in segments:
        length = seg.header.SegmentLength
        obj = {"kind": "segment", "offset": offset}
        offset += length
        try:
            whole = reassembler.add(seg)
        except CodecError as exc:
            obj.update(header=fap.to_json(seg.header), **exc.to_json())
            yield obj
            continue
        if whole is None:
            obj.update(header=fap.to_json(seg.header), partial=True)
            yield obj
            continue
        obj["header"] = fap.to_json(whole.header)
        if whole is not seg:
            obj["reassembled_length"] = whole.header.SegmentLength
        obj.update(_segment_body(whole))
        yield obj
    if failure is not None:
        yield {"kind": "segment", **failure.to_json()}
    elif framer.buffered:
        yield {"kind": "segment", "error": "PROTOCOL_LENGTH_ERROR", "offset": offset,
               "detail": f"{framer.buffered} trailing bytes do not make a whole segment"}


def _frame_prefix(data: bytes, bad_offset: int) -> list:
    framer = Framer(max_segment_length=MAX_TRANSMISSION_SIZE_LIMIT)
    segs: list = []
    pos = 0
    while pos < bad_offset:
        try:
            header, _ = fap.SegmentHeader.unpack(data, pos)
        except CodecError:
            break
        end = pos + header.SegmentLength
        if end > bad_offset:
            break
        segs.extend(framer.feed(data[pos:end]))
        pos = end
    return segs


def _segment_body(seg: fap.Segment) -> dict:
    header = seg.header
    order = header.order
    stype = header.SegmentType
    try:
        body = fap.decode_body(seg)
    except CodecError as exc:
        return exc.to_json()
    if isinstance(body, fap.MqiCall):
        out: dict = {"api": fap.to_json(body.ApiHeader)}
        if body.Call is not None:
            out["call"] = fap.to_json(body.Call)
            return out
        cls = calls.REQUEST_BODIES.get(stype) or calls.REPLY_BODIES.get(stype)
        if cls is None or not body.Data:
            if body.Data:
                out["data"] = {"kind": "data", "length": len(body.Data), "hex": bytes(body.Data).hex()}
            return out
        try:
            call, _ = cls.unpack(body.Data, 0, order)
        except CodecError as exc:
            out.update(exc.to_json())
            return out
        out["call"] = fap.to_json(call)
        md = getattr(call, "MsgDesc", None)
        data = getattr(call, "Data", None)
        if md is not None and data is not None:
            out["message"] = _payload(md, data)
        return out
    if isinstance(body, fap.AsyncMessage):
        out = {"async": fap.to_json(body.Header)}
        rest = body.Data
        if body.Header.is_first and rest:
            try:
                md, end = mqi.MQMD.unpack(rest, 0, order)
            except CodecError as exc:
                out.update(exc.to_json())
                return out
            out["md"] = fap.to_json(md)
            out["message"] = _payload(md, rest[end:])
        elif rest:
            out["data"] = {"kind": "data", "length": len(rest), "hex": bytes(rest).hex()}
        return out
    if body is None:
        return {"body": None}
    if isinstance(body, (bytes, bytearray)):
        return {"data": {"kind": "data", "length": len(body), "hex": bytes(body).hex()}}
    return {"body": fap.to_json(body)}
