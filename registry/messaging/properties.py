"""Message properties in the queue manager: taken apart at MQPUT, given back at MQGET, added to publications.

A queue manager keeps a message's properties apart from its data.  An application's MQRFH2 (the
form the client protocol carries properties in, docs/compat.md) is split at MQPUT into properties
and body; MQGET gives them back as the getter's MQGMO_PROPERTIES_* option and the queue's
PropertyControl say.  A publication's copy gets the publish/subscribe fields its subscription's
PublishSubscribeProperties asks for: message properties (MSGPROP), an MQRFH2 ``psc`` folder (RFH2),
an MQRFH version 1 (COMPAT) or nothing (NONE).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR

RFH2 = C.MQFMT_RF_HEADER_2.rstrip()
# The folders whose properties make COMPAT give an MQRFH2 back (IBM: PROPCTL(COMPAT)).
_COMPAT_PREFIXES = ("mcd.", "jms.", "usr.", "mqext.")

# Publish/subscribe message properties (IBM names; folder mqps in an MQRFH2).
TOPIC_STRING = "mqps.Top"  # MQTopicString
SUB_USER_DATA = "mqps.Sud"  # MQSubUserData
IS_RETAINED = "mqps.Ret"  # MQIsRetained


def split_message(md, data: bytes, *, as_sent: bool = False):
    """(md, properties or None, body): an MQRFH2 at the front of ``data`` becomes properties, and the
    descriptor returned (a copy then) has the body's Format, Encoding and CodedCharSetId.

    ``as_sent`` (a message put to a queue): when the MQRFH2 chain holds more than the properties (a
    folder that is not a property folder, or several MQRFH2 headers), the data is kept as sent, its
    properties only read: IBM gives such a message back byte for byte when the getter receives its
    properties in an MQRFH2 (pymqi's RFH2 tests; docs/decisions.md S30), and ``render`` takes them out
    otherwise."""
    if md.Format.rstrip() != RFH2:
        return md, None, data
    split = PR.split(data, md.Format, md.Encoding, md.CodedCharSetId)
    if not split.properties or any(h.Version == 1 for h in split.headers):
        return md, None, data  # nothing to take apart (or an MQRFH v1 in the chain, kept as sent)
    if as_sent and (split.folders or len(split.headers) > 1):
        return md, split.properties, data
    body, fmt = split.body, split.fmt
    if split.folders:  # folders that are not properties (psc, pscr, ...) stay in an MQRFH2 with the body
        body, fmt = PR.join(None, body, fmt, split.encoding, split.ccsid, folders_extra=split.folders)
    md = dataclasses.replace(md, Format=fmt, Encoding=split.encoding, CodedCharSetId=split.ccsid)
    return md, split.properties, body


def properties_length(md, data: bytes) -> int:
    """How many bytes a message's properties take: its MQRFH2 headers in front of the body, when they
    carry properties (what MAXPROPL limits; 0 for a message without).  Only asked when a limit is set."""
    if md.Format.rstrip() != RFH2:
        return 0
    split = PR.split(data, md.Format, md.Encoding, md.CodedCharSetId)
    return len(data) - len(split.body) if split.properties else 0


def _carried(md, data: bytes):
    """The Split of a message kept as sent (its MQRFH2 chain still carries its properties), else None."""
    if md.Format.rstrip() != RFH2:
        return None
    split = PR.split(data, md.Format, md.Encoding, md.CodedCharSetId)
    return split if split.properties else None


def _with(props, extra: list[tuple[str, str, object]]):
    out = props.copy() if props else PR.Properties()
    for name, kind, value in extra:
        out.put_known(name, kind, value, "mqps")
    return out


def shape(sub, pub) -> tuple[object, bytes, str | None]:
    """(properties, data, new Format or None) of a subscription's copy of a publication."""
    mode = sub.psprop
    body = pub.body
    if mode == C.MQPSPROP_MSGPROP:
        extra = [(TOPIC_STRING, PR.STRING, pub.topic)]
        if sub.user_data:
            extra.append((SUB_USER_DATA, PR.STRING, sub.user_data))
        if pub.retained:
            extra.append((IS_RETAINED, PR.BOOLEAN, True))
        return _with(pub.props, extra), body, None
    if mode == C.MQPSPROP_RFH2:
        folder = psc_folder(pub.topic, pub.retained)
        data, fmt = PR.join(None, body, pub.md.Format, pub.md.Encoding, pub.md.CodedCharSetId, folders_extra=[folder])
        return pub.props, data, fmt
    if mode == C.MQPSPROP_COMPAT:
        return pub.props, compat_header(pub) + body, C.MQFMT_RF_HEADER
    return pub.props, body, None  # NONE: nothing added


def psc_folder(topic: str, retained: bool) -> str:
    text = f"<psc><Command>Publish</Command><Topic>{_xml(topic)}</Topic>"
    if retained:
        text += "<PubOpt>RetPub</PubOpt>"
    return text + "</psc>"


def compat_header(pub) -> bytes:
    from qmlite.pcf.encoding import order_of_encoding
    from qmlite.pcf.mqi import MQRFH

    pairs = [("MQPSCommand", "Publish"), ("MQPSTopic", pub.topic)]
    if pub.retained:
        pairs.append(("MQPSPubOpts", "RetainPub"))
    text = PR.render_name_value_string(pairs)
    order = order_of_encoding(pub.md.Encoding) or "<"
    header = MQRFH(Encoding=pub.md.Encoding, CodedCharSetId=pub.md.CodedCharSetId, Format=pub.md.Format,
                   NameValueString=text)
    return header.pack(order)


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ---- MQGET ---------------------------------------------------------------------------------------
def _compat_wants(props) -> bool:
    for name, _value in props.items():
        if "." not in name or name.startswith(_COMPAT_PREFIXES):
            return True
    return False


def render(props, md, data: bytes, options: int, property_control: int):
    """(md, data) an MQGET returns for a message with ``props``.

    MQGMO_NO_PROPERTIES or PROPCTL(NONE) drop them; FORCE_MQRFH2, PROPCTL(FORCE) and PROPCTL(ALL)
    give every property in an MQRFH2; COMPAT (the default, and V6COMPAT) gives them in an MQRFH2 only
    when one is in the usr, mcd, jms or mqext folders.  A getter asking PROPERTIES_IN_HANDLE gets the
    MQRFH2 too: the client's message handle is filled from it (docs/decisions.md P5).
    """
    if not props:
        return md, data
    if options & C.MQGMO_NO_PROPERTIES:
        wanted = False
    elif options & (C.MQGMO_PROPERTIES_FORCE_MQRFH2 | C.MQGMO_PROPERTIES_IN_HANDLE):
        wanted = True
    elif options & C.MQGMO_PROPERTIES_COMPATIBILITY:
        wanted = _compat_wants(props)
    elif property_control == C.MQPROP_NONE:
        wanted = False
    elif property_control in (C.MQPROP_FORCE_MQRFH2, C.MQPROP_ALL):
        wanted = True
    else:
        wanted = _compat_wants(props)
    carried = _carried(md, data)
    if carried is not None:
        if wanted and not options & C.MQGMO_PROPERTIES_IN_HANDLE:
            return md, data  # kept as sent: its own MQRFH2 chain, byte for byte
        # Take the property folders out; the other folders stay in one MQRFH2 before the body.
        data, fmt = PR.join(None, carried.body, carried.fmt, carried.encoding, carried.ccsid,
                           folders_extra=carried.folders)
        md = dataclasses.replace(md, Format=fmt, Encoding=carried.encoding, CodedCharSetId=carried.ccsid)
    if not wanted:
        return md, data
    out, fmt = PR.join(props, data, md.Format, md.Encoding, md.CodedCharSetId)
    return dataclasses.replace(md, Format=fmt, Encoding=md.Encoding, CodedCharSetId=md.CodedCharSetId), out
