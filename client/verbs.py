"""The MQI verbs as sans-IO generators, shared by every driver.

Each verb is a generator: it yields one :class:`Call` per request it needs, receives the matching
:class:`~qmlite.client.channel.Reply`, and returns the verb's result (or raises ``MQIError``).  A
driver runs it with a few lines (``run`` in :mod:`qmlite.client.sync`, ``_run`` in
:mod:`qmlite.client.aio`), so what a verb sends and how its reply is read exists once, whatever moves
the bytes.  PCF (several calls per command) is a verb like the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generator, Optional

from qmlite.pcf import calls
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf import pcf as P
from qmlite.pcf.encoding import LITTLE
from qmlite.pcf.errors import CodecError
from qmlite.pcf.mqi import FOPA, MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO

from . import protocol as proto
from .channel import ClientChannel, Reply
from .errors import MQIError

PCF_FIRST_BUFFER = 4096  # what pymqi and ibmmq start with (docs/reference/fap.md 16.3)


@dataclass(slots=True)
class Call:
    segment_type: int
    hobj: int
    body: bytes
    extra: int = 0
    wait_s: float = 0.0


Verb = Generator[Call, Reply, object]


def raise_if_failed(api: fap.ApiHeader, what: str) -> None:
    if api.CompCode != C.MQCC_OK:
        raise MQIError(api.CompCode, api.Reason, what)


def _bytes(data) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"message data must be bytes, not {type(data).__name__}")


def get_wait_s(gmo_options: int, wait_interval: int) -> float:
    """How long the server may hold an MQGET's reply (its WaitInterval; -1 = unlimited)."""
    if not gmo_options & C.MQGMO_WAIT:
        return 0.0
    return math.inf if wait_interval < 0 else wait_interval / 1000.0


def open_fopa(ch: ClientChannel) -> Optional[FOPA]:
    # FOPA v1 with -1 (unset) defaults (docs/reference/fap.md 13.4), from FAP 9
    if ch.link.fap_level >= 9:
        return FOPA(Version=1, Length=28, DefPersistence=-1, DefPutResponseType=-1, DefReadAhead=-1,
                    PropertyControl=-1)
    return None


def open_(ch: ClientChannel, od: MQOD, options: int) -> Verb:
    """MQOPEN → (Hobj, the returned MQOD; for a model queue its ObjectName is the dynamic queue's)."""
    body = calls.MQOpenRequest(od, options, open_fopa(ch)).pack(LITTLE, ch.codec)
    extra = od.ResObjectString.VSBufSize if od.Version >= 4 and od.ResObjectString.VSBufSize > 0 else 0
    reply = yield Call(fap.MQOPEN, 0, body, extra)
    api = reply.api
    obj = ch.decode(reply, calls.MQOpenReply)
    raise_if_failed(api, "MQOPEN")
    return api.Hobj, obj.ObjDesc


def close(ch: ClientChannel, hobj: int, options: int = C.MQCO_NONE) -> Verb:
    reply = yield Call(fap.MQCLOSE, hobj, calls.MQCloseRequest(options).pack(LITTLE))
    raise_if_failed(reply.api, "MQCLOSE")


def put(ch: ClientChannel, hobj: int, md: MQMD, pmo: MQPMO, data) -> Verb:
    """MQPUT → (the MQMD as stored, with the MsgId the server generated; the MQPMO)."""
    body = calls.MQPutRequest(md, pmo, _bytes(data)).pack(LITTLE, ch.codec)
    reply = yield Call(fap.MQPUT, hobj, body)
    obj = ch.decode(reply, calls.MQPutReply)
    raise_if_failed(reply.api, "MQPUT")
    return obj.MsgDesc, obj.PutMsgOpts


def put1(ch: ClientChannel, od: MQOD, md: MQMD, pmo: MQPMO, data) -> Verb:
    body = calls.MQPut1Request(od, md, pmo, _bytes(data)).pack(LITTLE, ch.codec)
    reply = yield Call(fap.MQPUT1, -1, body)
    obj = ch.decode(reply, calls.MQPut1Reply)
    raise_if_failed(reply.api, "MQPUT1")
    return obj.MsgDesc, obj.PutMsgOpts


def get(ch: ClientChannel, hobj: int, md: MQMD, gmo: MQGMO, buffer_length: int) -> Verb:
    """MQGET → (the message's MQMD, the returned MQGMO, the data).  A non-zero CompCode raises
    MQIError; for 2080/2079 it carries ``md``, ``gmo``, ``data_length`` (the full length), ``data``."""
    if not isinstance(buffer_length, int) or buffer_length < 0:
        raise ValueError(f"buffer_length must be an int >= 0, not {buffer_length!r}")
    body = calls.MQGetRequest(md, gmo, buffer_length).pack(LITTLE, ch.codec)
    reply = yield Call(fap.MQGET, hobj, body, buffer_length, get_wait_s(gmo.Options, gmo.WaitInterval))
    api = reply.api
    obj = ch.decode(reply, calls.MQGetReply)
    if api.CompCode != C.MQCC_OK:
        if obj is not None:
            full = obj.DataLength if obj.DataLength is not None else len(obj.Data)
            raise MQIError(api.CompCode, api.Reason, "MQGET", md=obj.MsgDesc, gmo=obj.GetMsgOpts,
                           data_length=full, data=obj.Data)
        raise MQIError(api.CompCode, api.Reason, "MQGET")
    return obj.MsgDesc, obj.GetMsgOpts, obj.Data


def inq(ch: ClientChannel, hobj: int, selectors: list[int], int_attr_count: int, char_attr_length: int) -> Verb:
    """MQINQ → (IntAttrs, CharAttrs); CharAttrs keeps each value's blank padding."""
    if int_attr_count < 0 or char_attr_length < 0:
        raise ValueError("int_attr_count and char_attr_length must be >= 0")
    body = calls.MQInqRequest(list(selectors), int_attr_count, char_attr_length).pack(LITTLE, ch.codec)
    reply = yield Call(fap.MQINQ, hobj, body, 4 * int_attr_count + char_attr_length)
    obj = ch.decode(reply, calls.MQInqReply)
    raise_if_failed(reply.api, "MQINQ")
    return list(obj.IntAttrs), obj.CharAttrs


def set_(ch: ClientChannel, hobj: int, selectors: list[int], int_attrs: list[int], char_attrs: str) -> Verb:
    """MQSET: the selectors, then the integer values, then the character values, behind the same three
    counts as an MQINQ reply (docs/reference/fap.md 17, 20)."""
    body = calls.MQInqReply([int(s) for s in selectors], [int(v) for v in int_attrs],
                            char_attrs).pack(LITTLE, ch.codec)
    reply = yield Call(fap.MQSET, hobj, body)
    raise_if_failed(reply.api, "MQSET")


def sub(ch: ClientChannel, sd: MQSD, hobj: int = 0) -> Verb:
    """MQSUB → (Hsub, Hobj, the returned MQSD); Hobj is the managed queue's with MQSO_MANAGED."""
    body = calls.MQSubRequest(0, 0, sd).pack(LITTLE, ch.codec)
    extra = sum(max(cv.VSBufSize, 0) for cv in (sd.ResObjectString, sd.SelectionString, sd.SubUserData))
    reply = yield Call(fap.MQSUB, hobj, body, extra)
    obj = ch.decode(reply, calls.MQSubReply)
    raise_if_failed(reply.api, "MQSUB")
    return obj.Hsub, reply.api.Hobj, obj.SubDesc


def subrq(ch: ClientChannel, hsub: int, action: int, sro: MQSRO) -> Verb:
    body = calls.MQSubRqRequest(action, sro).pack(LITTLE, ch.codec)
    reply = yield Call(fap.MQSUBRQ, hsub, body)
    obj = ch.decode(reply, calls.MQSubRqReply)
    raise_if_failed(reply.api, "MQSUBRQ")
    return obj.SubRqOpts


def cmit(ch: ClientChannel) -> Verb:
    reply = yield Call(fap.MQCMIT, 0, b"")
    raise_if_failed(reply.api, "MQCMIT")


def back(ch: ClientChannel) -> Verb:
    reply = yield Call(fap.MQBACK, 0, b"")
    raise_if_failed(reply.api, "MQBACK")


def disc(ch: ClientChannel) -> Verb:
    reply = yield Call(fap.MQDISC, 0, b"")
    return reply.api


# ------------------------------------------------------------------------------------------------
# PCF
# ------------------------------------------------------------------------------------------------

class PcfQueues:
    """The per-connection queues a PCF verb uses: the dynamic reply queue and the command queue,
    opened once and kept (closed by the driver's disc)."""

    __slots__ = ("reply", "command")

    def __init__(self) -> None:
        self.reply: Optional[tuple[int, str]] = None
        self.command: Optional[int] = None

    def held(self) -> list[int]:
        out = [self.command] if self.command is not None else []
        if self.reply is not None:
            out.append(self.reply[0])
        self.command = self.reply = None
        return out


def pcf(ch: ClientChannel, queues: PcfQueues, command: int, parameters: list, *, wait_ms: int = 5000,
        cfh_type: int = C.MQCFT_COMMAND_XR) -> Verb:
    """One PCF command the way pymqi's / ibmmq's PCFExecute runs it; every response message
    (decoded, in order, up to Control = LAST).

    * Once per connection: MQOPEN ``SYSTEM.DEFAULT.MODEL.QUEUE`` with DynamicQName ``PYMQPCF.*``
      (MQOO_INPUT_EXCLUSIVE), the reply queue; and MQOPEN ``SYSTEM.ADMIN.COMMAND.QUEUE`` (MQOO_OUTPUT),
      kept open as MQ Explorer's classes keep it (pymqi and ibmmq open and close it per command).
    * Per command: MQPUT of an MQFMT_ADMIN request (REQUEST, ReplyToQ = the reply queue, Report
      PASS_DISCARD_AND_EXPIRY | DISCARD_MSG, Expiry 3 * wait_ms / 100 tenths, NO_SYNCPOINT, MQCFH v3
      of ``cfh_type``); then MQGET (WAIT ``wait_ms``, MATCH_CORREL_ID with the put's MsgId), 4096-byte
      buffer first, retried with the full length on 2080, until Control = LAST.
    * Errors: reads to LAST first (the reply queue stays clean), then raises MQIError of the FIRST
      failed response with ``responses`` holding all of them; no response within ``wait_ms`` is 2033.
    """
    if wait_ms < 0:
        raise ValueError("wait_ms must be >= 0")
    header = P.CFH(Type=cfh_type, Version=C.MQCFH_VERSION_3, Command=command, MsgSeqNumber=1,
                   Control=C.MQCFC_LAST)
    request = P.encode(P.PCFMessage(header, list(parameters)), C.MQENC_NATIVE, 0)
    if queues.reply is None:
        od = MQOD(ObjectName=proto.PCF_MODEL_QUEUE, DynamicQName=proto.PCF_DYNAMIC_NAME)
        hobj, rod = yield from open_(ch, od, C.MQOO_INPUT_EXCLUSIVE)
        queues.reply = (hobj, rod.ObjectName)
    reply_hobj, reply_q = queues.reply
    if queues.command is None:
        queues.command, _ = yield from open_(ch, MQOD(ObjectName=proto.PCF_COMMAND_QUEUE), C.MQOO_OUTPUT)
    md = MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q,
              Report=C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG,
              Expiry=max(3 * wait_ms // 100, 1), Encoding=C.MQENC_NATIVE, CodedCharSetId=0)
    put_md, _ = yield from put(ch, queues.command, md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT), request)
    responses: list[P.PCFMessage] = []
    first_error: Optional[tuple[int, int]] = None
    buffer_length = PCF_FIRST_BUFFER
    while True:
        gmo = MQGMO(Version=C.MQGMO_VERSION_2,
                    Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING,
                    WaitInterval=wait_ms, MatchOptions=C.MQMO_MATCH_CORREL_ID)
        try:
            rmd, _gmo, data = yield from get(ch, reply_hobj, MQMD(CorrelId=put_md.MsgId), gmo, buffer_length)
        except MQIError as exc:
            if exc.reason == C.MQRC_TRUNCATED_MSG_FAILED and exc.data_length:
                buffer_length = exc.data_length
                continue
            raise
        buffer_length = max(buffer_length, PCF_FIRST_BUFFER)
        try:
            msg = P.decode(data, rmd.Encoding, rmd.CodedCharSetId, strict=False)
        except CodecError as exc:
            raise MQIError(C.MQCC_FAILED, exc.reason, f"undecodable PCF response: {exc}") from None
        responses.append(msg)
        if msg.header.CompCode != C.MQCC_OK and first_error is None:
            first_error = (msg.header.CompCode, msg.header.Reason)
        if msg.header.Control == C.MQCFC_LAST:
            break
    if first_error is not None:
        raise MQIError(first_error[0], first_error[1], f"PCF command {command}", responses=responses)
    return responses
