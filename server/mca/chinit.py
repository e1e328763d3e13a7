"""The channel initiator's task (IBM's runmqchi): wake when SYSTEM.CHANNEL.INITQ gains a trigger message,
let the domain say which channels they start (registry/channels/initiator.py), start each as START
CHANNEL does (``Running.start_message_channel``, the agent's hook: server/mca/agents.py ``register``)."""

from __future__ import annotations

import trio

from qmlite.registry.channels.initiator import INITQ, ChannelInitiator


def start(qm_server, nursery: trio.Nursery) -> None:
    """The queue manager's channel initiator, holding its initiation queue open from now on (so the
    first put to a triggered transmission queue finds it), its loop in ``nursery``."""
    initiator = ChannelInitiator(qm_server.qm)
    nursery.start_soon(run, qm_server.qm, initiator, qm_server.mqi.activity.lot(INITQ))


async def run(qm, initiator: ChannelInitiator, lot: trio.lowlevel.ParkingLot) -> None:
    running = qm.registry.running
    for channel in initiator.waiting():  # transmission queues that held messages when the queue was opened
        running.start_message_channel(channel)
    while True:
        if not initiator.pending():
            await lot.park()
            continue
        for channel in initiator.take():
            running.start_message_channel(channel)
        await trio.lowlevel.checkpoint()
