"""INITIAL_DATA negotiation (docs/reference/fap.md section 6.3), sans-IO.

The server answers a client's ID with its own values.  Where it changed one, it sets the matching
IniErrFlags bit and the ERROR control flag; the client then repeats its ID with the server's values,
which is accepted.  Real clients give up after ten rounds, so the rules converge in one: a value the
server lowers is a value the client can always take.
"""

from __future__ import annotations

import dataclasses
import os
import secrets

from qmlite.pcf import encoding
from qmlite.pcf import fap
from qmlite.pcf import product
from qmlite.pcf.agreement import Agreement

from .config import ChannelConfig

MAX_FAP_LEVEL = product.FAP_LEVEL  # the level of the real 9.1.2 replies; FAP 14+ brings FCNO v3/v4 and conn tags
MAX_TRANSMISSION_SIZE = 32748  # the real 9.1.2 value
MIN_TRANSMISSION_SIZE = 2048  # below this not even an MQCONN fits
PRODUCT_ID = product.PRODUCT_ID  # MQ 9.1.2.0, consistent with FAP 13 and CommandLevel 912
CAP_FLAGS1 = 0x26  # CONVERSION_CAPABLE | SPLIT_MESSAGES | MQREQUEST, the real value
CAP_FLAGS2 = 0x01  # DIST_LIST_CAPABLE only: no XA, no SPI, which keeps clients off async put and SPI flows
CAP_FLAGS3 = 0  # MULTIPLEX_SYNCGET refused, as the real server does


@dataclasses.dataclass(frozen=True, slots=True)
class ServerIdentity:
    qmgr_name: str
    qmgr_id: str
    ccsid: int = 819
    created: float = 0.0  # when the queue manager was (or, pending its creation, will be) created


def answer(client: fap.InitialData, channel: ChannelConfig, me: ServerIdentity,
           max_fap: int = MAX_FAP_LEVEL) -> tuple[fap.InitialData, Agreement]:
    """The server's ID for ``client``'s, and whether it is an acceptance (no IniErrFlags set)."""
    ief1 = 0
    fap_level = min(client.FapLevel, max_fap)
    if fap_level != client.FapLevel:
        ief1 |= fap.IEF1_FAP_LEVEL
    asked = client.MaxTransmissionSize
    max_tr = min(asked, MAX_TRANSMISSION_SIZE) if asked else MAX_TRANSMISSION_SIZE
    max_tr = max(max_tr, MIN_TRANSMISSION_SIZE)
    if max_tr != client.MaxTransmissionSize:
        ief1 |= fap.IEF1_MAX_TRANSMISSION_SIZE
    max_msg = min(client.MaxMessageSize, channel.max_msg_length) if client.MaxMessageSize else channel.max_msg_length
    if max_msg != client.MaxMessageSize:
        ief1 |= fap.IEF1_MAX_MSG_SIZE
    heartbeat = channel.heartbeat_interval  # SVRCONN's HBINT rules (docs/reference/fap.md section 6.3)
    if heartbeat != client.HeartbeatInterval:
        ief1 |= fap.IEF1_HEARTBEAT_INTERVAL
    readable = encoding.codec_for_ccsid(client.CCSID) and not encoding.is_ebcdic(client.CCSID)
    ccsid = client.CCSID if readable else me.ccsid
    if client.CCSID and ccsid != client.CCSID:
        ief1 |= fap.IEF1_CCSID_NOT_SUPPORTED
    # Shared conversations travel in TSHM, which FAP 10 brought; below it the answer must be 0.
    sharecnv = min(client.SharingConversations, channel.sharing_conversations) if fap_level >= 10 else 0
    refused3 = client.CapFlags3 & ~CAP_FLAGS3 & 0xFF
    reply = fap.InitialData(
        FapLevel=fap_level, CapFlags1=CAP_FLAGS1, ECapFlags1=0, IniErrFlags1=ief1,
        MaxMsgsPerBatch=0, MaxTransmissionSize=max_tr, MaxMessageSize=max_msg,
        SequenceWrapValue=0, ChannelName=channel.name, CapFlags2=CAP_FLAGS2, ECapFlags2=0,
        CCSID=me.ccsid, QMgrName=me.qmgr_name, HeartbeatInterval=heartbeat, EFLLength=0,
        HdrCompList=b"\x00\xff", MsgCompList=b"\x00" + b"\xff" * 15,
        SharingConversations=sharecnv, CapFlags3=CAP_FLAGS3,
        ECapFlags3=refused3 if ief1 else 0, ProcessId=os.getpid() & 0xFFFFFFFF, ThreadId=1, TraceId=1,
        ProductId=PRODUCT_ID, QMgrId=me.qmgr_id,
        # PAL as the real server offers it (docs/reference/fap.md section 8 option a): the Java client refuses a FAP 13
        # server that offers no algorithm.  Passwords are checked in clear only at FAP <= 12.
        PAL=[1, 0] + [0xFFFF] * 8, R=secrets.token_bytes(12),
    )
    # The ERROR reply reports the client bits we refused; an acceptance carries none.
    agreement = Agreement(fap_level, max_tr, max_msg, heartbeat, sharecnv, ccsid, accepted=ief1 == 0)
    return reply, agreement
