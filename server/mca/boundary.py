"""What a running sending end does at a batch boundary besides ending the batch: the batch heartbeat
(BATCHHB) before the end is asked for, and RESET CHANNEL's new sequence number between batches.
Called by run.py's ``_send_batches``; the protocol object is sender.py's.

* BATCHHB (decision MCS6): IBM "Batch Heartbeat Interval": if nothing came from the receiving end
  for BATCHHB milliseconds, a heartbeat goes to it before the batch is committed, and the sender waits
  for its answer "for an interval, based on the number of seconds specified in HBINT".  No answer: the
  batch backs out (its messages stay on the transmission queue, not in doubt) and the channel fails,
  to retry as any failure does.
* RESET CHANNEL of a running sender (decision MCS7): the command leaves the number on the channel's
  status; the agent sends RESET_DATA at its next batch boundary, the receiver commits the number and
  confirms, and the sender writes it to its own record: the next message is that number.
"""

from __future__ import annotations

import trio

from qmlite.registry.channels.sendingend import ChannelFailure, SendingEnd
from qmlite.server.mca.flows import CLOSED

_READ = 65536
NO_HBINT_WAIT = 60.0  # HBINT(0) gives no interval to wait for the answer: a minute (decision MCS6)


def heartbeat_due(channel, proto, now: float) -> bool:
    """Whether the batch's end must be preceded by a batch heartbeat: BATCHHB set and the receiver
    silent for at least that long."""
    interval = channel.batch_heartbeat
    return interval > 0 and now - proto.last_received >= interval / 1000


async def batch_heartbeat(link) -> None:
    """Send a heartbeat and wait for its answer (HBINT seconds at most): ChannelFailure when none comes,
    or when the partner ends the channel meanwhile.  The caller has not hardened the batch yet, so the
    failure leaves nothing in doubt."""
    proto = link.proto
    proto.heartbeat_request()
    await link.flush()
    wait = proto.agreed.heartbeat_interval or NO_HBINT_WAIT
    with trio.move_on_after(wait):
        while proto.awaiting_heartbeat and proto.state != CLOSED:
            try:
                data = await link.stream.receive_some(_READ)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                data = b""
            proto.receive_data(data)
    if proto.awaiting_heartbeat:
        raise ChannelFailure(0, f"AMQ9999: no answer to the batch heartbeat within {wait:g} s; the batch is "
                                "backed out")


async def reset_if_asked(host, end: SendingEnd, link, status, confirmation) -> None:
    """Between batches: a RESET CHANNEL the command left on the status goes as RESET_DATA; once the
    partner confirms it, this end's record takes the number (``confirmation`` reads the answer)."""
    seq = status.reset_seq
    if not seq or end.batch is not None:
        return
    status.reset_seq = 0
    link.proto.reset(seq)
    await confirmation(link)
    await host.durable(end.reset(seq))

