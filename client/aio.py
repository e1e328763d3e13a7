"""``AsyncQueueManager``: an MQ client connection (one socket, one conversation) for trio.

Usage::

    qm = await AsyncQueueManager.connect("127.0.0.1", 1414, "DEV.ADMIN.SVRCONN", "QM1",
                                         user="admin", password="passw0rd")
    async with qm:
        hobj, od = await qm.open(MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT)
        md, pmo = await qm.put(hobj, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"hello")
        responses = await qm.pcf(C.MQCMD_INQUIRE_Q_MGR, [])

Rules:

* One MQI call at a time per connection (a gate); concurrent callers queue.
* Every failure is :class:`~qmlite.client.errors.MQIError` (``comp``, ``reason``); a connection that
  can no longer be used raises :class:`~qmlite.client.errors.ConnectionBroken` (reason 2009, or the
  mapped STATUS code) and every later call raises it again.
* A call whose reply does not come back in time, that is cancelled after its request was sent, or
  whose reply is out of step, breaks the connection (the socket is closed): the protocol state is
  unknown afterwards.  Timeouts: ``reply_timeout`` seconds per call (default 60), plus the
  WaitInterval for an MQGET with MQGMO_WAIT (the wait happens in the server); an unlimited wait is
  bounded only by the heartbeat rule below.
* Heartbeats: requests from the server are answered while a call waits.  When a call hears nothing
  for HeartbeatInterval seconds it sends a heartbeat request itself and breaks the connection if
  nothing arrives within min(60, HeartbeatInterval) seconds.  Pass ``nursery=`` to
  :meth:`AsyncQueueManager.connect` to also heartbeat an idle connection (after HeartbeatInterval
  seconds without traffic, as IBM clients do); without it an idle connection is only checked at the
  next call.
* Structures are sent as given (``MQMD``, ``MQOD``, ... from ``qmlite.pcf.mqi``); values that cannot
  be encoded raise ``ValueError`` before anything is sent, leaving the connection usable.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Optional

import trio

from qmlite.pcf import calls
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf import pcf as P
from qmlite.pcf.encoding import LITTLE, codec_for_ccsid
from qmlite.pcf.errors import CodecError
from qmlite.pcf.framer import INITIAL_MAX_SEGMENT_LENGTH, Framer, Reassembler
from qmlite.pcf.mqi import FOPA, MQCHARV, MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO

from . import protocol as proto
from .errors import ConnectionBroken, MQIError

__all__ = ["AsyncQueueManager", "DEFAULT_REPLY_TIMEOUT"]

DEFAULT_REPLY_TIMEOUT = 60.0
PCF_FIRST_BUFFER = 4096  # what pymqi and ibmmq start with (fap.md 16.3)
_RECEIVE = 65536


class _Gate:
    """Mutual exclusion that parks only when contended: a ``trio.Lock`` yields to the scheduler on
    every acquire, which is a task switch per MQI call for nothing when one task owns the connection."""

    __slots__ = ("_held", "_turn")

    def __init__(self) -> None:
        self._held = False
        self._turn = trio.lowlevel.ParkingLot()

    async def __aenter__(self) -> None:
        while self._held:
            await self._turn.park()
        self._held = True

    async def __aexit__(self, *exc_info) -> None:
        self._held = False
        self._turn.unpark()


class AsyncQueueManager:
    """A connected conversation.  Create with :meth:`connect` (or :meth:`connect_stream`)."""

    def __init__(self, stream: trio.abc.Stream, opts: proto.ConnectOptions, *,
                 reply_timeout: float = DEFAULT_REPLY_TIMEOUT) -> None:
        self._stream = stream
        self._opts = opts
        self._codec = opts.codec
        self._reply_timeout = reply_timeout
        self._link = proto.Link(ccsid=opts.ccsid)
        self._framer = Framer(INITIAL_MAX_SEGMENT_LENGTH)
        self._reassembler = Reassembler(max_call_length=opts.max_message_length + 65536)
        self._pending: deque[fap.Segment] = deque()
        self._lock = _Gate()
        self._pcf_lock = _Gate()
        self._broken: Optional[ConnectionBroken] = None
        self._connected = False
        self._disconnected = False
        self._last_heard = trio.current_time()
        self._last_sent = trio.current_time()
        self.agreement: Optional[proto.Agreement] = None
        self.connection_id: bytes = bytes(24)
        self.heartbeats_answered = 0
        self.heartbeats_sent = 0
        self._pcf_reply_q: Optional[tuple[int, str]] = None
        self._pcf_command_q: Optional[int] = None
        self._keepalive_scope: Optional[trio.CancelScope] = None

    # ------------------------------------------------------------------------------------------
    # connecting
    # ------------------------------------------------------------------------------------------

    @classmethod
    async def connect(cls, host: str, port: int, channel: str, qmgr: str = "", *,
                      user: Optional[str] = None, password: Optional[str] = None,
                      appl_name: str = "qmlite", appl_type: int = C.MQAT_UNIX, fap_level: int = 13,
                      sharing_conversations: int = 10, heartbeat_interval: int = 300,
                      max_message_length: int = 4194304, ccsid: int = 819,
                      reply_timeout: float = DEFAULT_REPLY_TIMEOUT,
                      nursery: Optional[trio.Nursery] = None) -> "AsyncQueueManager":
        """Open a TCP connection and run ID negotiation, UID, CAUT (when ``user`` or ``password``
        is given) and MQCONN.  Raises MQIError: 2538 HOST_NOT_AVAILABLE when the TCP connect fails,
        2540 UNKNOWN_CHANNEL_NAME, 2035 NOT_AUTHORIZED, 2058 Q_MGR_NAME_ERROR, ... as the server says."""
        opts = proto.ConnectOptions(channel=channel, qmgr=qmgr, user=user, password=password,
                                    appl_name=appl_name, appl_type=appl_type, fap_level=fap_level,
                                    sharing_conversations=sharing_conversations,
                                    heartbeat_interval=heartbeat_interval,
                                    max_message_length=max_message_length, ccsid=ccsid)
        opts.validate()
        try:
            with trio.fail_after(reply_timeout):
                stream = await trio.open_tcp_stream(host, port)
        except (OSError, trio.TooSlowError) as exc:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE, f"{host}({port}): {exc}") from exc
        return await cls.connect_stream(stream, opts, reply_timeout=reply_timeout, nursery=nursery)

    @classmethod
    async def connect_stream(cls, stream: trio.abc.Stream, opts: proto.ConnectOptions, *,
                             reply_timeout: float = DEFAULT_REPLY_TIMEOUT,
                             nursery: Optional[trio.Nursery] = None) -> "AsyncQueueManager":
        """:meth:`connect` over an already open stream (tests use in-memory streams)."""
        opts.validate()
        qm = cls(stream, opts, reply_timeout=reply_timeout)
        ok = False
        try:
            async with qm._lock:
                await qm._handshake()
            ok = True
        finally:
            if not ok:
                await qm._abort()
        if nursery is not None and qm.agreement.heartbeat_interval > 0:
            await nursery.start(qm._keepalive)
        return qm

    async def _handshake(self) -> None:
        opts = self._opts
        deadline = trio.current_time() + self._reply_timeout
        ours = proto.first_id(opts)
        struct_id = fap.TSH
        for round_no in range(1, proto.MAX_ID_ROUNDS + 1):
            await self._send([self._link.id_segment(ours, struct_id=struct_id)])
            seg = await self._expect({fap.INITIAL_DATA}, deadline)
            try:
                server = fap.decode_body(seg)
            except CodecError as exc:
                raise await self._fail(self._lost(), f"bad ID from the server: {exc}")
            if not seg.header.ControlFlags1 & fap.CF1_ERROR:
                ccsid = ours.CCSID
                self.agreement = proto.agreement_from(server, round_no, ccsid)
                break
            ours = proto.repeat_id(ours, server)
            if server.SharingConversations > 0 and server.FapLevel >= 10 and ours.SharingConversations > 0:
                struct_id = fap.TSHM
        else:
            raise await self._fail(C.MQRC_CHANNEL_CONFIG_ERROR,
                                   f"ID negotiation did not converge in {proto.MAX_ID_ROUNDS} rounds")
        ag = self.agreement
        if ag.fap_level < proto.MIN_FAP_LEVEL or ag.fap_level > opts.fap_level:
            raise await self._fail(C.MQRC_CHANNEL_CONFIG_ERROR, f"server agreed FAP level {ag.fap_level}")
        if ag.max_transmission_size < 512:
            raise await self._fail(C.MQRC_CHANNEL_CONFIG_ERROR,
                                   f"server agreed MaxTransmissionSize {ag.max_transmission_size}")
        self._link = proto.Link(ccsid=ag.ccsid, multiplexed=ag.multiplexed,
                                max_transmission_size=ag.max_transmission_size, fap_level=ag.fap_level)
        self._codec = codec_for_ccsid(ag.ccsid) or self._codec
        # replies are split at the agreed size; a little slack for peers that count differently
        self._framer.max_segment_length = max(ag.max_transmission_size, INITIAL_MAX_SEGMENT_LENGTH) + 64
        self._reassembler = Reassembler(max_call_length=max(ag.max_message_size, opts.max_message_length) + 65536)

        # UID: no reply (fap.md 7)
        await self._send([self._link.segment(fap.USERID_DATA, proto.uid_body())])
        # CAUT: a STATUS comes back (fap.md 8)
        if opts.user is not None or opts.password is not None:
            await self._send([self._link.segment(fap.CONAUTH_INFO,
                                                 proto.caut_body(opts.user, opts.password, self._codec))])
            status = await self._expect({fap.STATUS_DATA}, deadline)
            code = 0
            if status.body:
                try:
                    code = fap.StatusData.unpack(status.body, 0, status.order)[0].ReturnCode
                except CodecError as exc:
                    raise await self._fail(self._lost(), f"bad STATUS after CAUT: {exc}")
            if code:
                raise await self._fail(proto.status_reason(code, False),
                                       f"STATUS {fap.status_code_name(code) or code} after CAUT",
                                       status_code=code)
        # MQCONN
        segs = self._link.mqi(fap.MQCONN, 0, proto.mqconn_body(opts, ag.fap_level))
        await self._send(segs)
        reply = await self._expect({fap.MQCONN_REPLY}, deadline)
        try:
            api, pos = fap.ApiHeader.unpack(reply.body, 0, reply.order)
        except CodecError as exc:
            raise await self._fail(self._lost(), f"bad MQCONN reply: {exc}")
        if api.CompCode != C.MQCC_OK:
            # a refused MQCONN may carry the API header alone
            await self._abort()
            raise MQIError(api.CompCode, api.Reason, "MQCONN")
        try:
            conn, _ = fap.MQConnBody.unpack(reply.body, pos, reply.order)
        except CodecError as exc:
            raise await self._fail(self._lost(), f"bad MQCONN reply: {exc}")
        if conn.Fcno is not None:
            self.connection_id = conn.Fcno.ConnectionId
        self._connected = True

    # ------------------------------------------------------------------------------------------
    # transport
    # ------------------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected and self._broken is None and not self._disconnected

    @property
    def multiplexed(self) -> bool:
        return self._link.multiplexed

    @property
    def options(self) -> proto.ConnectOptions:
        return self._opts

    async def _send(self, segments: list[bytes]) -> None:
        try:
            for data in segments:
                await self._stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise await self._fail(self._lost(), f"send failed: {exc!r}")
        self._last_sent = trio.current_time()

    async def _receive(self, deadline: float) -> fap.Segment:
        """The next segment.  ``deadline`` bounds the whole wait.  Once connected, after
        HeartbeatInterval seconds without a byte from the server we send a heartbeat request and
        give the server min(60, HeartbeatInterval) seconds to send anything (what IBM's Java client
        does, fap.md section 22); so a long MQGET wait stays alive as long as the server answers
        heartbeats, and a dead server is noticed even when the wait is unlimited."""
        probe_deadline: Optional[float] = None
        while not self._pending:
            hb = self.agreement.heartbeat_interval if self.agreement else 0
            if probe_deadline is not None:
                limit = min(deadline, probe_deadline)
            elif hb > 0 and self._connected:
                # quiet time counts from the last byte either way, so an idle gap before a call
                # (no keepalive task) is not mistaken for a dead server
                limit = min(deadline, max(self._last_heard, self._last_sent) + hb)
            else:
                limit = deadline
            with trio.move_on_at(limit):
                try:
                    data = await self._stream.receive_some(_RECEIVE)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    raise await self._fail(self._lost(), f"receive failed: {exc!r}")
                if not data:
                    raise await self._fail(self._status_reason(0), "the server closed the connection")
                self._last_heard = trio.current_time()
                probe_deadline = None
                try:
                    self._pending.extend(self._framer.feed(data))
                except CodecError as exc:
                    raise await self._fail(self._lost(), f"unreadable data from the server: {exc}")
                continue
            now = trio.current_time()
            if now >= deadline:
                raise await self._fail(self._lost(), "no reply from the server in time")
            if probe_deadline is not None:
                raise await self._fail(self._lost(), "the server did not answer a heartbeat request")
            await self._send([self._link.heartbeat_request()])
            self.heartbeats_sent += 1
            probe_deadline = now + min(60, hb)
        return self._pending.popleft()

    def _lost(self) -> int:
        """The reason for a connection lost without a STATUS: 2059 Q_MGR_NOT_AVAILABLE while
        connecting, 2009 CONNECTION_BROKEN once connected (fap.md section 9)."""
        return C.MQRC_CONNECTION_BROKEN if self._connected else C.MQRC_Q_MGR_NOT_AVAILABLE

    def _status_reason(self, code: int) -> int:
        return proto.status_reason(code, self._connected)

    async def _expect(self, types: set[int], deadline: float) -> fap.Segment:
        """Read until a segment of one of ``types`` (MQI replies reassembled) arrives, answering
        heartbeats and failing on STATUS errors on the way."""
        while True:
            seg = await self._receive(deadline)
            h = seg.header
            t = h.SegmentType
            if t == fap.HEARTBEAT:
                if self._link.is_heartbeat_request(h):
                    await self._send([self._link.heartbeat_answer(h)])
                    self.heartbeats_answered += 1
                elif t in types:
                    return seg
                continue
            if t == fap.STATUS_DATA:
                code = 0
                if seg.body:
                    try:
                        code = fap.StatusData.unpack(seg.body, 0, seg.order)[0].ReturnCode
                    except CodecError:
                        code = 0
                if h.ControlFlags1 & (fap.CF1_ERROR | fap.CF1_CLOSE_CHANNEL) or (code and t not in types):
                    name = fap.status_code_name(code) or code
                    raise await self._fail(self._status_reason(code), f"STATUS {name} from the server",
                                           status_code=code)
                if t in types:
                    return seg
                continue
            if fap.is_mqi_type(t):
                try:
                    whole = self._reassembler.add(seg)
                except CodecError as exc:
                    raise await self._fail(self._lost(), f"bad reply segments: {exc}")
                if whole is None:
                    continue
                if whole.header.SegmentType in types:
                    return whole
                raise await self._fail(self._lost(),
                                       f"unexpected {fap.segment_type_name(t) or hex(t)} from the server")
            if t in types:
                return seg
            # ASYNC_MESSAGE, NOTIFICATION, SOCKET_ACTION, ...: nothing this client asked for
            continue

    async def _fail(self, reason: int, detail: str, *, status_code: Optional[int] = None) -> ConnectionBroken:
        """Mark the connection broken, close the socket, return the exception to raise."""
        exc = ConnectionBroken(reason, detail, status_code=status_code)
        if self._broken is None:
            self._broken = exc
        await self._abort()
        return exc

    def _stop_keepalive(self) -> None:
        if self._keepalive_scope is not None:
            self._keepalive_scope.cancel()

    async def _abort(self) -> None:
        self._stop_keepalive()
        if self._broken is None:
            self._broken = ConnectionBroken(C.MQRC_CONNECTION_BROKEN, "connection closed")
        with trio.CancelScope(shield=True):
            try:
                await self._stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass

    def _check_usable(self) -> None:
        if self._disconnected:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR, "disconnected")
        if self._broken is not None:
            raise ConnectionBroken(self._broken.reason, f"connection broken earlier: {self._broken.detail}",
                                   status_code=self._broken.status_code)

    async def _call(self, segment_type: int, hobj: int, body: bytes, *, extra: int = 0,
                    wait_s: float = 0.0) -> fap.Segment:
        """Send one MQI request and return its (reassembled) reply segment."""
        segments = self._link.mqi(segment_type, hobj, body, extra=extra)
        async with self._lock:
            self._check_usable()
            done = False
            try:
                await self._send(segments)
                deadline = trio.current_time() + self._reply_timeout + wait_s
                reply = await self._expect({segment_type | fap.REPLY}, deadline)
                done = True
                return reply
            finally:
                if not done and self._broken is None:
                    # cancelled (or failed) between request and reply: the conversation is out of step
                    self._broken = ConnectionBroken(C.MQRC_CONNECTION_BROKEN, "a call was interrupted")
                    await self._abort()

    def _decode(self, reply: fap.Segment, cls) -> tuple[fap.ApiHeader, object]:
        """API header and body object of a reply.  A body that cannot be decoded is an error only
        when the call succeeded (failed calls may carry the API header alone)."""
        order = reply.order
        codec = codec_for_ccsid(reply.header.CCSID) or self._codec
        body = reply.body
        try:
            api, pos = fap.ApiHeader.unpack(body, 0, order)
        except CodecError as exc:
            raise MQIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, f"malformed reply: {exc}") from None
        if cls is None:
            return api, None
        try:
            obj, _ = cls.unpack(body, pos, order, codec)
        except CodecError as exc:
            if api.CompCode == C.MQCC_OK:
                raise MQIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR,
                               f"malformed {fap.segment_type_name(reply.header.SegmentType)}: {exc}") from None
            obj = None
        return api, obj

    @staticmethod
    def _raise_if_failed(api: fap.ApiHeader, what: str) -> None:
        if api.CompCode != C.MQCC_OK:
            raise MQIError(api.CompCode, api.Reason, what)

    # ------------------------------------------------------------------------------------------
    # MQI verbs
    # ------------------------------------------------------------------------------------------

    async def open(self, od: MQOD, options: int) -> tuple[int, MQOD]:
        """MQOPEN.  Returns (Hobj, the returned MQOD): for a model queue the OD's ObjectName is the
        name of the dynamic queue created."""
        fopa = None
        if self._link.fap_level >= 9:
            fopa = FOPA(Version=1, Length=28, DefPersistence=-1, DefPutResponseType=-1,
                              DefReadAhead=-1, PropertyControl=-1)
        req = calls.MQOpenRequest(od, options, fopa)
        body = req.pack(LITTLE, self._codec)
        extra = od.ResObjectString.VSBufSize if od.Version >= 4 and od.ResObjectString.VSBufSize > 0 else 0
        reply = await self._call(fap.MQOPEN, 0, body, extra=extra)
        api, obj = self._decode(reply, calls.MQOpenReply)
        self._raise_if_failed(api, "MQOPEN")
        return api.Hobj, obj.ObjDesc

    async def close(self, hobj: int, options: int = C.MQCO_NONE) -> None:
        """MQCLOSE of an object or subscription handle."""
        body = calls.MQCloseRequest(options).pack(LITTLE)
        reply = await self._call(fap.MQCLOSE, hobj, body)
        api, _ = self._decode(reply, None)
        self._raise_if_failed(api, "MQCLOSE")

    async def put(self, hobj: int, md: MQMD, pmo: MQPMO, data: bytes) -> tuple[MQMD, MQPMO]:
        """MQPUT.  Returns the MQMD as stored (with the MsgId the server generated) and the MQPMO."""
        body = calls.MQPutRequest(md, pmo, _bytes(data)).pack(LITTLE, self._codec)
        reply = await self._call(fap.MQPUT, hobj, body)
        api, obj = self._decode(reply, calls.MQPutReply)
        self._raise_if_failed(api, "MQPUT")
        return obj.MsgDesc, obj.PutMsgOpts

    async def put1(self, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes) -> tuple[MQMD, MQPMO]:
        """MQPUT1 (open, put, close in one call)."""
        body = calls.MQPut1Request(od, md, pmo, _bytes(data)).pack(LITTLE, self._codec)
        reply = await self._call(fap.MQPUT1, -1, body)
        api, obj = self._decode(reply, calls.MQPut1Reply)
        self._raise_if_failed(api, "MQPUT1")
        return obj.MsgDesc, obj.PutMsgOpts

    async def get(self, hobj: int, md: MQMD, gmo: MQGMO, buffer_length: int) -> tuple[MQMD, MQGMO, bytes]:
        """MQGET.  Returns (the message's MQMD, the returned MQGMO, the data).

        A non-zero CompCode raises MQIError; for 2080 TRUNCATED_MSG_FAILED (message left on the
        queue) and 2079 TRUNCATED_MSG_ACCEPTED (message removed) the exception carries ``md``,
        ``gmo``, ``data_length`` (the full length) and ``data`` (what came back)."""
        if not isinstance(buffer_length, int) or buffer_length < 0:
            raise ValueError(f"buffer_length must be an int >= 0, not {buffer_length!r}")
        body = calls.MQGetRequest(md, gmo, buffer_length).pack(LITTLE, self._codec)
        wait_s = 0.0
        if gmo.Options & C.MQGMO_WAIT:
            wait_s = math.inf if gmo.WaitInterval < 0 else gmo.WaitInterval / 1000.0
        reply = await self._call(fap.MQGET, hobj, body, extra=buffer_length, wait_s=wait_s)
        api, obj = self._decode(reply, calls.MQGetReply)
        if api.CompCode != C.MQCC_OK:
            if obj is not None:
                full = obj.DataLength if obj.DataLength is not None else len(obj.Data)
                raise MQIError(api.CompCode, api.Reason, "MQGET", md=obj.MsgDesc, gmo=obj.GetMsgOpts,
                               data_length=full, data=obj.Data)
            raise MQIError(api.CompCode, api.Reason, "MQGET")
        return obj.MsgDesc, obj.GetMsgOpts, obj.Data

    async def inq(self, hobj: int, selectors: list[int], int_attr_count: int,
                  char_attr_length: int) -> tuple[list[int], str]:
        """MQINQ.  Returns (IntAttrs, CharAttrs); CharAttrs keeps each value's blank padding."""
        if int_attr_count < 0 or char_attr_length < 0:
            raise ValueError("int_attr_count and char_attr_length must be >= 0")
        body = calls.MQInqRequest(list(selectors), int_attr_count, char_attr_length).pack(LITTLE, self._codec)
        reply = await self._call(fap.MQINQ, hobj, body, extra=4 * int_attr_count + char_attr_length)
        api, obj = self._decode(reply, calls.MQInqReply)
        self._raise_if_failed(api, "MQINQ")
        return list(obj.IntAttrs), obj.CharAttrs

    async def sub(self, sd: MQSD, hobj: int = 0) -> tuple[int, int, MQSD]:
        """MQSUB.  Returns (Hsub, Hobj, the returned MQSD); Hobj is the managed queue's handle with
        MQSO_MANAGED, else the ``hobj`` passed."""
        body = calls.MQSubRequest(0, 0, sd).pack(LITTLE, self._codec)
        extra = sum(max(cv.VSBufSize, 0) for cv in (sd.ResObjectString, sd.SelectionString, sd.SubUserData))
        reply = await self._call(fap.MQSUB, hobj, body, extra=extra)
        api, obj = self._decode(reply, calls.MQSubReply)
        self._raise_if_failed(api, "MQSUB")
        return obj.Hsub, api.Hobj, obj.SubDesc

    async def subrq(self, hsub: int, action: int, sro: MQSRO) -> MQSRO:
        """MQSUBRQ.  Returns the MQSRO with NumPubs filled."""
        body = calls.MQSubRqRequest(action, sro).pack(LITTLE, self._codec)
        reply = await self._call(fap.MQSUBRQ, hsub, body)
        api, obj = self._decode(reply, calls.MQSubRqReply)
        self._raise_if_failed(api, "MQSUBRQ")
        return obj.SubRqOpts

    async def cmit(self) -> None:
        reply = await self._call(fap.MQCMIT, 0, b"")
        api, _ = self._decode(reply, None)
        self._raise_if_failed(api, "MQCMIT")

    async def back(self) -> None:
        reply = await self._call(fap.MQBACK, 0, b"")
        api, _ = self._decode(reply, None)
        self._raise_if_failed(api, "MQBACK")

    async def disc(self) -> None:
        """Close the PCF reply queue (if any), MQDISC, end the conversation, close the socket.
        Idempotent; on an already broken connection it only closes the socket."""
        if self._disconnected:
            return
        if self._broken is not None or not self._connected:
            self._disconnected = True
            await self._abort()
            return
        self._stop_keepalive()
        try:
            held = [self._pcf_command_q] if self._pcf_command_q is not None else []
            if self._pcf_reply_q is not None:
                held.append(self._pcf_reply_q[0])
            self._pcf_command_q = self._pcf_reply_q = None
            for hobj in held:
                try:
                    await self.close(hobj)
                except ConnectionBroken:
                    raise
                except MQIError:
                    pass
            reply = await self._call(fap.MQDISC, 0, b"")
            api, _ = self._decode(reply, None)
            async with self._lock:
                self._disconnected = True
                try:
                    await self._stream.send_all(self._link.end())
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
            self._raise_if_failed(api, "MQDISC")
        finally:
            self._disconnected = True
            self._stop_keepalive()
            with trio.CancelScope(shield=True):
                try:
                    await self._stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass

    async def aclose(self) -> None:
        await self.disc()

    async def __aenter__(self) -> "AsyncQueueManager":
        return self

    async def __aexit__(self, *exc_info) -> None:
        try:
            await self.disc()
        except MQIError:
            if exc_info[0] is None:
                raise

    # ------------------------------------------------------------------------------------------
    # heartbeats on an idle connection
    # ------------------------------------------------------------------------------------------

    async def _keepalive(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """After HeartbeatInterval seconds without traffic, send a heartbeat request and wait for
        the answer (min(60, interval) seconds); no answer breaks the connection.  Ends when the
        connection does (disc/abort cancel it)."""
        with trio.CancelScope() as scope:
            self._keepalive_scope = scope
            task_status.started()
            await self._keepalive_loop()

    async def _keepalive_loop(self) -> None:
        hb = self.agreement.heartbeat_interval
        while self.connected:
            idle_since = max(self._last_heard, self._last_sent)
            await trio.sleep_until(idle_since + hb)
            if not self.connected:
                return
            async with self._lock:
                if not self.connected:
                    return
                if trio.current_time() < max(self._last_heard, self._last_sent) + hb:
                    continue
                try:
                    await self._heartbeat_exchange(min(60, hb))
                except MQIError:
                    return

    async def _heartbeat_exchange(self, timeout: float) -> None:
        await self._send([self._link.heartbeat_request()])
        self.heartbeats_sent += 1
        await self._expect({fap.HEARTBEAT}, trio.current_time() + timeout)

    async def ping(self, timeout: float = 60.0) -> None:
        """Send a heartbeat request and wait for the server's answer; ConnectionBroken when none
        comes within ``timeout`` seconds."""
        async with self._lock:
            self._check_usable()
            await self._heartbeat_exchange(timeout)

    # ------------------------------------------------------------------------------------------
    # PCF
    # ------------------------------------------------------------------------------------------

    async def pcf(self, command: int, parameters: list, *, wait_ms: int = 5000,
                  cfh_type: int = C.MQCFT_COMMAND_XR) -> list[P.PCFMessage]:
        """Run one PCF command the way pymqi's / ibmmq's PCFExecute does and return every response
        message (decoded, in order, up to and including the one with Control = LAST).

        * Once per connection: MQOPEN ``SYSTEM.DEFAULT.MODEL.QUEUE`` with DynamicQName
          ``PYMQPCF.*`` (MQOO_INPUT_EXCLUSIVE); the returned ObjectName is the reply queue.  It is
          closed (and so deleted) by :meth:`disc`.
        * Once per connection too: MQOPEN ``SYSTEM.ADMIN.COMMAND.QUEUE`` (MQOO_OUTPUT), kept open as
          MQ Explorer's classes keep it (pymqi and ibmmq open and close it around every command, which
          costs two round trips per command for nothing).
        * Per command: MQPUT of an MQFMT_ADMIN
          request (MsgType REQUEST, ReplyToQ = the reply queue, Report PASS_DISCARD_AND_EXPIRY |
          DISCARD_MSG, Expiry 3 * wait_ms / 100 tenths of a second, Encoding 546, CCSID 0,
          NO_SYNCPOINT; MQCFH Version 3 of type ``cfh_type``); then MQGET (WAIT
          ``wait_ms``, NO_SYNCPOINT, MATCH_CORREL_ID with CorrelId = the MsgId the put returned),
          4096-byte buffer first, retried with the full length on 2080, until Control = LAST.
        * Errors: unlike pymqi/ibmmq (which raise at the first failed response and leave the rest
          on the queue) this reads to LAST first, so the reply queue stays clean, then raises
          ``MQIError(comp, reason)`` of the FIRST response whose CompCode is not 0; the exception's
          ``responses`` holds all of them.  No response within ``wait_ms`` raises MQIError 2033.
        """
        if wait_ms < 0:
            raise ValueError("wait_ms must be >= 0")
        header = P.CFH(Type=cfh_type, Version=C.MQCFH_VERSION_3, Command=command, MsgSeqNumber=1,
                       Control=C.MQCFC_LAST)
        request = P.encode(P.PCFMessage(header, list(parameters)), C.MQENC_NATIVE, 0)
        async with self._pcf_lock:
            reply_hobj, reply_q = await self._pcf_reply_queue()
            if self._pcf_command_q is None:
                self._pcf_command_q, _ = await self.open(MQOD(ObjectName=proto.PCF_COMMAND_QUEUE), C.MQOO_OUTPUT)
            md = MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q,
                      Report=C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG,
                      Expiry=max(3 * wait_ms // 100, 1), Encoding=C.MQENC_NATIVE, CodedCharSetId=0)
            put_md, _ = await self.put(self._pcf_command_q, md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT), request)
            responses: list[P.PCFMessage] = []
            first_error: Optional[tuple[int, int]] = None
            buffer_length = PCF_FIRST_BUFFER
            while True:
                get_md = MQMD(CorrelId=put_md.MsgId)
                gmo = MQGMO(Version=C.MQGMO_VERSION_2,
                            Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING,
                            WaitInterval=wait_ms, MatchOptions=C.MQMO_MATCH_CORREL_ID)
                try:
                    rmd, _gmo, data = await self.get(reply_hobj, get_md, gmo, buffer_length)
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

    async def _pcf_reply_queue(self) -> tuple[int, str]:
        if self._pcf_reply_q is None:
            od = MQOD(ObjectName=proto.PCF_MODEL_QUEUE, DynamicQName=proto.PCF_DYNAMIC_NAME)
            hobj, rod = await self.open(od, C.MQOO_INPUT_EXCLUSIVE)
            self._pcf_reply_q = (hobj, rod.ObjectName)
        return self._pcf_reply_q


def _bytes(data) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"message data must be bytes, not {type(data).__name__}")


# re-exported for convenience
__all__ += ["MQCHARV", "MQGMO", "MQMD", "MQOD", "MQPMO", "MQSD", "MQSRO"]
