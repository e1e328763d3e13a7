"""The status of a message channel as both ends keep it: what DISPLAY CHSTATUS / Inquire Channel Status
shows for a message channel (IBM "Inquire Channel Status (Response)": STATUS, MSGS, BATCHES, CURLUWID,
LSTLUWID, CURSEQNO, LSTSEQNO, INDOUBT, SHORTRTS, LONGRTS ...).  Held in memory per queue manager, in
``Running.message_channels``: a restarted queue manager's current status starts again, its saved parts
(the sequence numbers and LUWIDs) come back from SYSTEM.CHANNEL.SYNCQ (syncrecords.py)."""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

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

    @property
    def saved(self) -> dict:
        """What IBM saves at the end of each batch (SAVED status): the sequence number, LUWIDs, in doubt."""
        return {"last_seq": self.last_seq, "last_luwid": self.last_luwid.hex(), "in_doubt": self.in_doubt,
                "current_luwid": self.current_luwid.hex()}


def status_of(registry, channel) -> MessageChannelStatus:
    """The status record of ``channel`` (a definition) on ``registry``'s queue manager, made at its first use."""
    table = registry.running.message_channels
    status = table.get(channel.name)
    if status is None:
        status = table[channel.name] = MessageChannelStatus(channel.name, channel.channel_type)
    return status
