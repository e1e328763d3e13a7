"""RESET CHANNEL and RESOLVE CHANNEL on a message channel that is not running: they act on its
synchronisation records (syncrecords.py) through the channel's own ends.  The PCF handlers
(registry/admin/commands/channel_status.py) call these; a running channel refuses both there."""

from __future__ import annotations

from qmlite.pcf import constants as C

from qmlite.registry.channels.mcastatus import status_of
from qmlite.registry.channels.receivingend import ReceivingEnd
from qmlite.registry.channels.sendingend import ChannelFailure, SendingEnd
from qmlite.registry.errors import MQIError
from qmlite.registry.objects import channels as M


class CommandRefused(Exception):
    def __init__(self, reason: int) -> None:
        super().__init__(C.describe("MQRCCF", reason))
        self.reason = reason


def reset(qm, channel, seq: int) -> None:
    """RESET CHANNEL SEQNUM(seq): the next message sent (a sending channel) or expected (a receiving one)
    is number ``seq``.  A sending channel with a batch in doubt refuses (MQRCCF_CHANNEL_INDOUBT): resolve
    it first, or its messages could be lost or doubled (decision MCA11)."""
    if channel.channel_type in M.SENDING:
        end = SendingEnd(qm, channel)
        try:
            if end.in_doubt is not None:
                raise CommandRefused(C.MQRCCF_CHANNEL_INDOUBT)
            end.reset(seq)
        finally:
            end.close()
        return
    end = ReceivingEnd(qm, channel)
    try:
        end.reset(seq)
    finally:
        end.close()


def reset_running(registry, channel, seq: int) -> None:
    """RESET CHANNEL of a running sending channel: its agent sends RESET_DATA with ``seq`` at its next
    batch boundary and both ends' records take it (server/mca/boundary.py, decision MCS7); one idle
    waiting for messages is woken for it."""
    status = status_of(registry, channel)
    status.reset_seq = seq
    if callable(status.wake):
        status.wake()


def resolve(qm, channel, commit: bool) -> None:
    """RESOLVE CHANNEL ACTION(COMMIT|BACKOUT): the sender's in-doubt batch is taken off the transmission
    queue (COMMIT: the partner has it) or left to be sent again (BACKOUT).  Nothing in doubt: no change."""
    end = SendingEnd(qm, channel)
    try:
        end.resolve(commit)
    except MQIError as exc:  # the transmission queue is open elsewhere (its agent) or cannot be opened
        raise CommandRefused(C.MQRCCF_CHANNEL_IN_USE if exc.reason == C.MQRC_OBJECT_IN_USE
                             else C.MQRCCF_XMIT_Q_NAME_ERROR) from exc
    except ChannelFailure as exc:  # no such transmission queue
        raise CommandRefused(C.MQRCCF_XMIT_Q_NAME_ERROR) from exc
    finally:
        end.close()
