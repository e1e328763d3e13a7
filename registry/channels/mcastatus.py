"""The status of a message channel as both ends keep it: what DISPLAY CHSTATUS / Inquire Channel Status
shows for a message channel (IBM "Inquire Channel Status (Response)": STATUS, MSGS, BATCHES, CURLUWID,
LSTLUWID, CURSEQNO, LSTSEQNO, INDOUBT, SHORTRTS, LONGRTS ...).  Held in memory per queue manager, in
``Running.message_channels``: a restarted queue manager's current status starts again, its saved parts
(the sequence numbers and LUWIDs) come back from SYSTEM.CHANNEL.SYNCQ (syncrecords.py)."""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

from qmlite.registry.channels import syncrecords as SR
from qmlite.registry.channels.monitoring import Measures
from qmlite.registry.errors import MQIError
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import values as V

ZERO_LUW = bytes(8)


@dataclasses.dataclass(slots=True)
class MessageChannelStatus:
    channel: str
    channel_type: int
    conn_name: str = ""
    xmit_q: str = ""
    remote_qmgr: str = ""
    status: int = C.MQCHS_STARTING
    started: float = 0.0
    msgs: int = 0  # messages sent or received since the channel started
    batches: int = 0  # batches committed since the channel started
    bytes_sent: int = 0
    bytes_received: int = 0
    current_luwid: bytes = ZERO_LUW  # CURLUWID: the batch in progress (or in doubt)
    last_luwid: bytes = ZERO_LUW  # LSTLUWID: the last batch committed
    current_seq: int = 0  # CURSEQNO: the last message sent or received
    last_seq: int = 0  # LSTSEQNO: the last message of the last committed batch
    in_doubt: bool = False  # INDOUBT: a batch was sent and its confirmation not yet received
    current_msgs: int = 0  # CURMSGS: messages of the batch in progress
    short_retries_left: int = 0  # SHORTRTS
    long_retries_left: int = 0  # LONGRTS
    heartbeat_interval: int = 0
    batch_size: int = 0
    max_msg_length: int = 0
    last_msg: float = 0.0
    stop_requested: bool = False
    reset_seq: int = 0  # RESET CHANNEL of a running sender: sent at its next batch boundary (decision MCS7)
    wake: object = None  # the running sender's wake-up while it waits for messages (a callable, or None)
    # NETTIME, XQTIME, XBATCHSZ and the statistics interval's counts (monitoring.py)
    measures: Measures = dataclasses.field(default_factory=Measures)

    @property
    def substate(self) -> int:
        """SUBSTATE, from what the agent is doing: connecting (BINDING), a sender waiting for its batch's
        confirmation (END_OF_BATCH), sending one, or waiting on its transmission queue (MQGET); a receiver
        waiting for the partner's data (RECEIVE).  Stopped or retrying: OTHER (docs/decisions.md MCA23)."""
        if self.status == C.MQCHS_BINDING:
            return V.MQCHSSTATE_NET_CONNECTING
        if self.status != C.MQCHS_RUNNING:
            return V.MQCHSSTATE_OTHER
        if self.channel_type not in M.SENDING:
            return V.MQCHSSTATE_RECEIVING
        if self.in_doubt:
            return V.MQCHSSTATE_END_OF_BATCH
        return V.MQCHSSTATE_SENDING if self.current_msgs else V.MQCHSSTATE_IN_MQGET


def status_of(registry, channel) -> MessageChannelStatus:
    """The status record of ``channel`` (a definition) on ``registry``'s queue manager, made at its first use."""
    table = registry.running.message_channels
    status = table.get(channel.name)
    if status is None:
        status = table[channel.name] = MessageChannelStatus(channel.name, channel.channel_type)
    return status


def saved_of(qm, channel, partner: str = "") -> MessageChannelStatus | None:
    """SAVED status (CHLINSTYPE SAVED): what the channel's synchronisation records on SYSTEM.CHANNEL.SYNCQ
    hold.  Both ends write them at each batch's end (the sender also before asking for its confirmation,
    the in-doubt record), as IBM saves status, so they are kept across a restart.  None before the first
    batch (IBM: saved status applies once a batch was sent) or for a channel that is not a message one.
    ``partner``: a cluster-receiver's sending queue manager, whose records are its own (CLU6, CLV9)."""
    if channel.channel_type not in M.MESSAGE:
        return None
    try:
        session = qm.connect(qm.registry.qmgr.name, user="mqm", admin=True, appl_name="amqpcsea",
                             appl_type=C.MQAT_QMGR)
    except MQIError:  # quiescing, or a fault rule on MQCONN: nothing saved can be read
        return None
    try:
        records = SR.SyncRecords(qm, session, SR.cluster_record_key(channel.name, partner) if partner
                                 else channel.name)
    except MQIError:  # SYSTEM.CHANNEL.SYNCQ deleted or get-inhibited: nothing saved can be read
        return None
    finally:
        qm.disconnect(session, commit=False)
    # a CLUSRCVR is in SENDING as its cluster-senders' template; its own records are a receiver's
    sending = channel.channel_type in M.SENDING and channel.channel_type != M.CLUSRCVR
    committed = records.get(SR.SENDER if sending else SR.RECEIVER)
    doubt = records.get(SR.INDOUBT) if sending else None
    if committed is None and doubt is None:
        return None
    known = qm.registry.running.message_channels.get(channel.name)
    saved = MessageChannelStatus(channel.name, channel.channel_type, xmit_q=channel.xmit_q_name,
                                 status=known.status if known is not None else C.MQCHS_INACTIVE)
    if known is not None:
        saved.conn_name, saved.remote_qmgr = known.conn_name, known.remote_qmgr
    if partner:
        saved.remote_qmgr = partner
    committed = committed or {}
    saved.last_seq = saved.current_seq = committed.get("seq", 0)
    saved.last_luwid = saved.current_luwid = bytes.fromhex(committed.get("luw", ZERO_LUW.hex()))
    if doubt is not None:  # the batch sent, its confirmation not received: CURSEQNO and CURLUWID are its own
        saved.in_doubt = True
        saved.current_seq, saved.current_luwid = doubt["last"], bytes.fromhex(doubt["luw"])
    return saved
