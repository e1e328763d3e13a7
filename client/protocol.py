"""The client side of the FAP conversation, sans-IO: what to send and how to read what comes back.

Everything byte-level is done by ``qmlite.pcf`` (``fap``, ``framer``, ``calls``, ``mqi``); this
module only decides *which* structures to send with *which* values (docs/reference/fap.md sections 3-12, 21, 22, 26)
and keeps the state both sides agreed on.  :class:`qmlite.client.channel.ClientChannel` runs the
conversation with it; the drivers (:mod:`qmlite.client.sync`, :mod:`qmlite.client.aio`) move the bytes.

Choices (docs/reference/fap.md section numbers in brackets):

* Our segments are little-endian (ByteOrder 2), Encoding 546, CCSID as configured (819 by default),
  like an x86 C client [4].  Incoming segments are read in the order their own ByteOrder byte states.
* The first ID goes in a ``TSH `` [3, 6.3].  When the server answers with ERROR, we take its values
  (FapLevel, MaxTransmissionSize, MaxMessageSize, HeartbeatInterval, SharingConversations, CCSID
  when it flagged IEF1_CCSID_NOT_SUPPORTED) and drop the capability bits it refused (ECapFlags), then
  repeat -- in ``TSHM`` conversation 1 request 0 when the server's answer has SharingConversations > 0
  and FAP >= 10, as the recorded real exchange does [6.3 item 5].  At most ``MAX_ID_ROUNDS`` rounds
  (the Java client gives up after 10 with 2539 CHANNEL_CONFIG_ERROR) [6.3].
* Once accepted: multiplexed (``TSHM``, conversation 1, RequestId 0 for MQI calls) when the accepted
  SharingConversations > 0 and FAP >= 10, else every segment is ``TSH `` [3, 26].  One conversation
  per socket: this client never sends SOCKET_ACTION START_CONV.
* UID (132 bytes, the OS user) without waiting for a reply [7]; CAUT with the user and the password
  *in clear* when credentials are given, then wait for a STATUS (code 0 = go on) [8].  qmlite agrees
  FAP 12 on channels that check passwords, where clear text is what real clients send too.
* MQCONN: Options 3 (MQCONNX), the FCNO version of the agreed FAP (1 below 12, 2 for 12-13, 3 for 14,
  4 from 15; an MQBNO's ApplType, Timeout and Options in FCNO v4's rebalancing fields) and, from FAP
  12, the 72-byte reconnection area (zeros) [11.1, 11.2].
* Request CallLength = the request's length (header included) + what we can take back (MQGET
  BufferLength; MQINQ 4*IntAttrCount + CharAttrLength), as the Java client does [10].
* MQOPEN carries FOPA v1 with -1 (unset) defaults [13.4].
* HEARTBEAT: a request (CONFIRM_REQUEST at FAP >= 10, the inverse below) is answered at once with the
  same StructId and the flag flipped [22]; ``TSHC`` when multiplexed, ``TSH `` otherwise.
* STATUS with ERROR or CLOSE_CHANNEL: the connection is over; the code is mapped to a reason with the
  table in docs/reference/fap.md section 9 (36 PASSWORD_PROTECTION -> 2594 is our addition).
"""

from __future__ import annotations

import dataclasses
import getpass
import os
import struct
import threading
from typing import Optional

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.agreement import Agreement
from qmlite.pcf.encoding import LITTLE, codec_for_ccsid, is_ebcdic

MAX_ID_ROUNDS = 10
MIN_FAP_LEVEL = 8  # FCNO (and so our MQCONN) needs FAP 8
MAX_FAP_LEVEL = 15  # the highest level whose MQCONN/FCNO layout the codec knows
OUR_MAX_TRANSMISSION_SIZE = 32748  # what real clients propose
PRODUCT_ID = "MQMM09000000"  # a C-client-style product id (docs/reference/fap.md 6.1: "C-like MQMM09000000")
CAP_FLAGS1 = 0x26  # CONVERSION_CAPABLE | SPLIT_MESSAGES | MQREQUEST, as every real peer sends
CAP_FLAGS2 = 0x01  # DIST_LIST_CAPABLE; no XA, no SPI
CAP_FLAGS3 = 0x00  # we use the synchronous MQGET and ask for nothing else
OUR_BYTE_ORDER = 2
OUR_ENCODING = C.MQENC_NATIVE  # 546

PCF_COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
PCF_MODEL_QUEUE = "SYSTEM.DEFAULT.MODEL.QUEUE"
PCF_DYNAMIC_NAME = "PYMQPCF.*"


# ------------------------------------------------------------------------------------------------
# STATUS code -> MQRC (docs/reference/fap.md section 9, the Java client's table)
# ------------------------------------------------------------------------------------------------

_STATUS_REASONS = {
    fap.NO_CHANNEL: C.MQRC_UNKNOWN_CHANNEL_NAME,
    fap.CHANNEL_WRONG_TYPE: C.MQRC_CHANNEL_CONFIG_ERROR,
    **{code: C.MQRC_CHANNEL_CONFIG_ERROR for code in range(10, 19)},
    fap.CHANNEL_UNAVAILABLE: C.MQRC_CHANNEL_NOT_AVAILABLE,
    fap.CLOSED_BY_EXIT: C.MQRC_CHANNEL_NOT_AVAILABLE,
    fap.CIPHER_SPEC: C.MQRC_JSSE_ERROR,
    fap.PEER_NAME: C.MQRC_JSSE_ERROR,
    fap.SSL_REFRESHING: C.MQRC_JSSE_ERROR,
    fap.STANDBY_Q_MGR: C.MQRC_STANDBY_Q_MGR,
    fap.MAX_CONNS_LIMIT_REACHED: C.MQRC_MAX_CONNS_LIMIT_REACHED,
    fap.PASSWORD_PROTECTION: C.MQRC_PASSWORD_PROTECTION_ERROR,
}


def status_reason(code: int, connected: bool) -> int:
    """The reason an application sees for a STATUS code: 2059 Q_MGR_NOT_AVAILABLE before MQCONN
    succeeded, 2009 CONNECTION_BROKEN after, for every code the table does not name."""
    reason = _STATUS_REASONS.get(code)
    if reason is not None:
        return reason
    return C.MQRC_CONNECTION_BROKEN if connected else C.MQRC_Q_MGR_NOT_AVAILABLE


# ------------------------------------------------------------------------------------------------
# Connection parameters and ID negotiation
# ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, slots=True)
class ConnectOptions:
    """What the application asked for; checked by :meth:`validate` before any byte is sent."""

    channel: str
    qmgr: str = ""
    user: Optional[str] = None
    password: Optional[str] = None
    appl_name: str = "qmlite"
    appl_type: int = C.MQAT_UNIX
    fap_level: int = 13
    sharing_conversations: int = 10
    heartbeat_interval: int = 300
    max_message_length: int = 4194304
    ccsid: int = 819
    # MQCNO Options, sent in the MQCONN XOptions field (the server honours ACCOUNTING_* when ACCTCONO is ENABLED)
    cno_options: int = 0
    # An MQBNO's (ApplType, Timeout, Options), or None: sent in the FCNO's rebalancing fields, which
    # exist from FCNO v4 (FAP 15); at a lower agreed level there is nowhere to send them
    balance: Optional[object] = None

    def validate(self) -> None:
        def fits(name: str, value: str, n: int) -> None:
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, not {type(value).__name__}")
            if len(value.encode("latin-1", "replace")) > n:
                raise ValueError(f"{name} {value!r} is longer than {n} characters")

        fits("channel", self.channel, 20)
        if not self.channel.strip():
            raise ValueError("channel must not be empty")
        fits("qmgr", self.qmgr, 48)
        fits("appl_name", self.appl_name, 28)
        if self.user is not None:
            fits("user", self.user, 1024)
        if self.password is not None and not isinstance(self.password, str):
            raise TypeError("password must be a str")
        if not MIN_FAP_LEVEL <= self.fap_level <= MAX_FAP_LEVEL:
            raise ValueError(f"fap_level must be {MIN_FAP_LEVEL}..{MAX_FAP_LEVEL}, not {self.fap_level}")
        if not 0 <= self.sharing_conversations <= 999999999:
            raise ValueError(f"sharing_conversations {self.sharing_conversations} out of range")
        if not 0 <= self.heartbeat_interval <= 999999:
            raise ValueError(f"heartbeat_interval {self.heartbeat_interval} out of range")
        if not 1 <= self.max_message_length <= 104857600:
            raise ValueError(f"max_message_length {self.max_message_length} out of range 1..104857600")
        if codec_for_ccsid(self.ccsid) is None or is_ebcdic(self.ccsid) or self.ccsid == 1200:
            raise ValueError(f"ccsid {self.ccsid} is not an ASCII-based CCSID qmlite can encode")

    @property
    def codec(self) -> str:
        return codec_for_ccsid(self.ccsid) or "latin-1"


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in the environment: send blanks, as a daemon would
        return ""


def first_id(opts: ConnectOptions) -> fap.InitialData:
    """The ID we propose."""
    return fap.InitialData(
        FapLevel=opts.fap_level, CapFlags1=CAP_FLAGS1, MaxMsgsPerBatch=0,
        MaxTransmissionSize=OUR_MAX_TRANSMISSION_SIZE, MaxMessageSize=opts.max_message_length,
        SequenceWrapValue=0, ChannelName=opts.channel, CapFlags2=CAP_FLAGS2, CCSID=opts.ccsid,
        QMgrName=opts.qmgr, HeartbeatInterval=opts.heartbeat_interval, EFLLength=0,
        HdrCompList=b"\x00\xff", MsgCompList=b"\x00" + b"\xff" * 15,
        SharingConversations=opts.sharing_conversations, CapFlags3=CAP_FLAGS3,
        ProcessId=os.getpid() & 0xFFFFFFFF, ThreadId=threading.get_ident() & 0xFFFFFFFF, TraceId=0,
        ProductId=PRODUCT_ID, QMgrId="", PAL=[0] * 10, R=bytes(12),
    )


def repeat_id(previous: fap.InitialData, server: fap.InitialData) -> fap.InitialData:
    """Our next ID after an ERROR reply: the server's values, minus the capabilities it refused."""
    nxt = dataclasses.replace(previous)
    nxt.FapLevel = min(server.FapLevel, previous.FapLevel) or previous.FapLevel
    nxt.MaxTransmissionSize = server.MaxTransmissionSize
    nxt.MaxMessageSize = server.MaxMessageSize
    nxt.HeartbeatInterval = server.HeartbeatInterval
    nxt.SharingConversations = min(server.SharingConversations, previous.SharingConversations)
    nxt.MaxMsgsPerBatch = server.MaxMsgsPerBatch
    nxt.SequenceWrapValue = server.SequenceWrapValue
    if server.IniErrFlags1 & fap.IEF1_CCSID_NOT_SUPPORTED and server.CCSID:
        nxt.CCSID = server.CCSID
    nxt.CapFlags1 = previous.CapFlags1 & ~server.ECapFlags1 & 0xFF
    nxt.CapFlags2 = previous.CapFlags2 & ~server.ECapFlags2 & 0xFF
    nxt.CapFlags3 = previous.CapFlags3 & ~server.ECapFlags3 & 0xFF
    nxt.IniErrFlags1 = 0
    nxt.IniErrFlags2 = 0
    return nxt


def agreement_from(server: fap.InitialData, rounds: int, ccsid: int) -> Agreement:
    return Agreement(server.FapLevel, server.MaxTransmissionSize, server.MaxMessageSize,
                     server.HeartbeatInterval, server.SharingConversations, ccsid, qmgr_name=server.QMgrName,
                     qmgr_id=server.QMgrId, product_id=server.ProductId, id_rounds=rounds)


# ------------------------------------------------------------------------------------------------
# Segment building
# ------------------------------------------------------------------------------------------------

CONVERSATION_ID = 1  # the implicit first conversation (docs/reference/fap.md 6.3, 26)
_SID = {fap.TSHM: b"TSHM", fap.TSH: b"TSH ", fap.TSHC: b"TSHC"}
_U32BE = struct.Struct(">I")
_API_TAIL = struct.Struct("<iii")  # CompCode, Reason, Hobj in our (little-endian) order


@dataclasses.dataclass(slots=True)
class Link:
    """How our segments are framed: before and after the ID exchange."""

    ccsid: int = 819
    multiplexed: bool = False
    max_transmission_size: int = OUR_MAX_TRANSMISSION_SIZE
    fap_level: int = 13
    _heads: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)

    @property
    def struct_id(self) -> str:
        return fap.TSHM if self.multiplexed else fap.TSH

    @property
    def conversation_id(self) -> int:
        return CONVERSATION_ID if self.multiplexed else 0

    def segment(self, segment_type: int, body: bytes = b"", *, control_flags1: int = fap.CF1_FIRST | fap.CF1_LAST,
                struct_id: Optional[str] = None) -> bytes:
        sid = struct_id or self.struct_id
        conv = CONVERSATION_ID if sid == fap.TSHM else 0
        return fap.encode_segment(segment_type, body, struct_id=sid, conversation_id=conv, request_id=0,
                                  byte_order=OUR_BYTE_ORDER, control_flags1=control_flags1,
                                  encoding=OUR_ENCODING, ccsid=self.ccsid)

    def id_segment(self, ident: fap.InitialData, *, struct_id: str) -> bytes:
        # CONFIRM_REQUEST|FIRST|LAST, as the real clients' IDs carry (docs/reference/fap.md 5.2)
        return self.segment(fap.INITIAL_DATA, ident.pack(LITTLE), struct_id=struct_id,
                            control_flags1=fap.CF1_CONFIRM_REQUEST | fap.CF1_FIRST | fap.CF1_LAST)

    def mqi(self, segment_type: int, hobj: int, body: bytes, *, extra: int = 0) -> list[bytes]:
        """The segments of one MQI request; split when longer than MaxTransmissionSize (docs/reference/fap.md 5.3)."""
        sid = self.struct_id
        hl = fap.TSHM_LENGTH if sid == fap.TSHM else fap.TSH_LENGTH
        total = hl + fap.API_HEADER_LENGTH + len(body)
        call_length = min(total + max(extra, 0), 0xFFFFFFFF)
        if total <= self.max_transmission_size:
            # the one-segment request every small call makes: everything but the two lengths and the
            # handle is the same for a segment type, so it is packed once per link and type
            head = self._heads.get(segment_type)
            if head is None:
                header = fap.SegmentHeader(sid, 0, self.conversation_id, 0, OUR_BYTE_ORDER, segment_type,
                                           fap.CF1_FIRST | fap.CF1_LAST, 0, bytes(8), OUR_ENCODING, self.ccsid, 0)
                head = self._heads[segment_type] = header.pack()[8:]
            return [b"".join((_SID[sid], _U32BE.pack(total), head, _U32BE.pack(call_length),
                              _API_TAIL.pack(0, 0, hobj), body))]
        payload = fap.ApiHeader(call_length, 0, 0, hobj).pack(LITTLE) + body
        header = fap.SegmentHeader(sid, 0, self.conversation_id, 0, OUR_BYTE_ORDER, segment_type,
                                   fap.CF1_FIRST | fap.CF1_LAST, 0, bytes(8), OUR_ENCODING, self.ccsid, 0)
        from qmlite.pcf.framer import split_call

        return split_call(header, payload, self.max_transmission_size)

    def heartbeat_answer(self, request: fap.SegmentHeader) -> bytes:
        flags = fap.heartbeat_reply_flags(self.fap_level)
        return self.segment(fap.HEARTBEAT, b"", struct_id=request.StructId, control_flags1=flags)

    def heartbeat_request(self) -> bytes:
        flags = fap.heartbeat_request_flags(self.fap_level)
        sid = fap.TSHC if self.multiplexed else fap.TSH
        return self.segment(fap.HEARTBEAT, b"", struct_id=sid, control_flags1=flags)

    def is_heartbeat_request(self, header: fap.SegmentHeader) -> bool:
        return fap.is_heartbeat_request(header.ControlFlags1, self.fap_level)

    def end(self) -> bytes:
        """How we leave: SOCKET_ACTION END_CONV (multiplexed) or a header-only STATUS CLOSE_CHANNEL."""
        if self.multiplexed:
            body = fap.SocketAction(CONVERSATION_ID, 0, fap.SA_END_CONV, 0, 0).pack(LITTLE)
            return self.segment(fap.SOCKET_ACTION, body, struct_id=fap.TSHC, control_flags1=0)
        return self.segment(fap.STATUS_DATA, b"", struct_id=fap.TSH, control_flags1=fap.CF1_CLOSE_CHANNEL)


def uid_body(user: Optional[str] = None) -> bytes:
    """USERID_DATA, 132 bytes: the OS user (12 chars in UserIdentifier, all of it in LongUserId)."""
    name = user if user is not None else _os_user()
    raw = name.encode("latin-1", "replace").decode("latin-1")
    return fap.UserIdData(UserIdentifier=raw[:12], Password="", LongUserId=raw[:64],
                          UserSecurityId=bytes(40)).pack(LITTLE)


def caut_body(user: Optional[str], password: Optional[str], codec: str) -> bytes:
    return fap.ConAuthInfo(AuthenticationType=C.MQCSP_AUTH_USER_ID_AND_PWD, UserIdMaxLength=1024,
                           PasswordMaxLength=256, UserId=user or "",
                           Password=(password or "").encode(codec, "replace")).pack(LITTLE)


def mqconn_body(opts: ConnectOptions, fap_level: int) -> bytes:
    if fap_level < 12:
        fcno_version = 1
    elif fap_level <= 13:
        fcno_version = 2
    elif fap_level == 14:
        fcno_version = 3
    else:
        fcno_version = 4
    body = fap.MQConnBody(QMgrName=opts.qmgr, ApplName=opts.appl_name, ApplType=opts.appl_type,
                          AccountingToken=bytes(32), Options=3, XOptions=opts.cno_options,
                          Fcno=fap.Fcno(Version=fcno_version, CapabilityFlags=0, ConnTag=bytes(128)))
    if fcno_version >= 4 and opts.balance is not None:
        b = opts.balance
        body.Fcno.RebalancingType, body.Fcno.RebalancingTimeout, body.Fcno.RebalancingOptions = \
            b.appl_type, b.timeout, b.options
    if fap_level >= 12:
        body.ReconnectionId = bytes(24)
        body.ReconnectionQmId = bytes(48)
    return body.pack(LITTLE)
