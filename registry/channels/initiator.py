"""The channel initiator's rules (IBM's runmqchi): which channel a trigger message on SYSTEM.CHANNEL.INITQ
starts.  No sockets, no trio: the server's task (server/mca/chinit.py) wakes when the initiation queue
gains a message, takes what ``take`` returns and starts each channel as START CHANNEL would.

IBM "Triggering channels": a transmission queue with TRIGGER and INITQ(SYSTEM.CHANNEL.INITQ) makes a
trigger message (an MQTM, registry/messaging/triggers.py) when its trigger conditions hold; the
channel initiator reads it and starts the channel TRIGDATA names, or, TRIGDATA blank, the sending
channel whose XMITQ is the queue that triggered.  What is not started (docs/decisions.md MCT1-MCT3):

* a channel in STOPPED state -- stopped by STOP CHANNEL or out of retries: "a channel in this state
  can be restarted only by issuing the START CHANNEL command"; an INACTIVE one (ended at DISCINT) can;
* a channel already running or retrying (its agent sends what arrives: one instance of a sender);
* a channel that is not a sender, or a server without a CONNAME (that one waits for its requester);
* a trigger message that is no MQTM: discarded, logged.
"""

from __future__ import annotations

import structlog

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf.errors import CodecError

from qmlite.registry.messaging.triggers import qualifying_depth
from qmlite.registry.objects import channels as M

log = structlog.get_logger("qmlite.chinit")

INITQ = "SYSTEM.CHANNEL.INITQ"
TRIGGERED = (M.SDR, M.SVR)  # the channel types a trigger starts (cluster senders start otherwise)


class ChannelInitiator:
    """One per queue manager while its server runs: holds SYSTEM.CHANNEL.INITQ open for input, as
    runmqchi does (a trigger event needs its initiation queue open for input, and Inquire Queue shows
    IPPROCS 1)."""

    def __init__(self, qm) -> None:
        self.qm = qm
        qm.registry.messages.contents(INITQ).open_input += 1

    def waiting(self) -> list:
        """The channels to start as the initiation queue is opened (the server's start): each triggered
        transmission queue that already holds what would trigger it -- messages left by a stopped channel or
        a restart.  IBM makes a trigger message for such a queue when a trigger monitor opens its initiation
        queue; the channel is started here directly (docs/decisions.md MCT8)."""
        reg = self.qm.registry
        started = {}
        for queue in list(reg.queues.values()):
            if (queue.usage != C.MQUS_TRANSMISSION or queue.trigger_control != C.MQTC_ON
                    or queue.trigger_type == C.MQTT_NONE or queue.initiation_q != INITQ):
                continue
            depth = qualifying_depth(reg, queue)
            if depth < (queue.trigger_depth if queue.trigger_type == C.MQTT_DEPTH else 1):
                continue
            if queue.trigger_type != C.MQTT_EVERY and reg.messages.open_counts(queue.name)[0]:
                continue
            channel = find_channel(reg, queue.trigger_data.strip(), queue.name)
            if isinstance(channel, str):
                log.info("channel_not_triggered", queue=queue.name, trigger_data=queue.trigger_data.strip(),
                         why=channel)
                continue
            log.info("channel_triggered", channel=channel.name, queue=queue.name, at="initiation queue opened")
            started.setdefault(channel.name, channel)
        return list(started.values())

    def pending(self) -> int:
        contents = self.qm.registry.messages.peek(INITQ)
        return len(contents) if contents is not None else 0

    def take(self) -> list:
        """Every trigger message waiting, taken off the queue; the channels they start, each once."""
        qm = self.qm
        contents = qm.registry.messages.contents(INITQ)
        started: dict[str, object] = {}
        while (msg := contents.first()) is not None:
            qm.take_message(INITQ, contents, msg)
            channel = self.channel_for(msg)
            if channel is not None:
                started.setdefault(channel.name, channel)
        return list(started.values())

    def channel_for(self, msg):
        """The channel a trigger message starts, or None (and why, logged)."""
        try:
            if msg.md.Format.rstrip() != C.MQFMT_TRIGGER.rstrip():
                raise ValueError(f"format {msg.md.Format.strip()!r}")
            tm = S.MQTM.unpack(bytes(msg.data))[0]
        except (CodecError, ValueError, IndexError) as exc:
            log.warning("trigger_message_discarded", queue=INITQ, why=str(exc))
            return None
        channel = find_channel(self.qm.registry, tm.TriggerData.strip(), tm.QName.strip())
        if isinstance(channel, str):
            log.info("channel_not_triggered", queue=tm.QName.strip(), trigger_data=tm.TriggerData.strip(),
                     why=channel)
            return None
        log.info("channel_triggered", channel=channel.name, queue=tm.QName.strip())
        return channel


def find_channel(registry, name: str, xmit_q: str):
    """The channel a trigger for transmission queue ``xmit_q`` starts (``name``: TRIGDATA, may be blank),
    or the reason it starts none, as a string."""
    channels = registry.objects(M.KIND)
    if name:
        channel = channels.get(name)
        if channel is None:
            return f"channel {name} not found"
    else:
        channel = next((c for c in channels.values() if c.channel_type in TRIGGERED and c.xmit_q_name == xmit_q),
                       None)
        if channel is None:
            return f"no sender or server channel has XMITQ({xmit_q})"
    if channel.channel_type not in TRIGGERED or (channel.channel_type == M.SVR and not channel.conn_name):
        return "not a sender, or a server without CONNAME"
    running = registry.running
    status = running.message_channels.get(channel.name)
    if channel.name in running.stopped or (status is not None and status.status == C.MQCHS_STOPPED):
        return "channel stopped: START CHANNEL restarts it"
    if running.instances_of(channel.name):
        return "channel already running"
    return channel

