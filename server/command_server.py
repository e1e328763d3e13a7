"""The command server's task: wake when SYSTEM.ADMIN.COMMAND.QUEUE gains requests, let the domain run a
batch (registry/admin/commandserver.py holds every rule), and put the responses once its effects are durable.

Requests that arrive while a batch commits wait and form the next batch, so a busy command server
pays one fsync per batch (up to 64 commands).  Responses are put at once, marked with the
journal position their effects reached, so a reader answers only once they are durable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

    from .durability import GroupCommitter


async def run(qm: QueueManager, lot: trio.lowlevel.ParkingLot, committer: GroupCommitter, *,
              task_status=trio.TASK_STATUS_IGNORED) -> None:
    """``lot``: where the MQI wakes this task when SYSTEM.ADMIN.COMMAND.QUEUE gains a message."""
    commands = qm.command_server
    # A deferred response (PING CHANNEL's) is put later by the task that did its I/O: the commit it
    # needs is started as for a batch's.
    commands.late_reply = lambda: committer.after(qm.position, urgent=False)
    task_status.started()
    while True:
        if not commands.pending():
            await lot.park()
            continue
        # The responses go onto their queues at once, marked with the journal position of the
        # batch's effects: a client's MQGET takes its response without waiting in the background
        # and answers once the commit (already under way, overlapping the client's round trip) is done.
        commands.deliver(commands.run_batch())
        # Start the commit and carry on: commands that arrive meanwhile run at once, and their
        # writes join the next group commit (one is in flight at a time).  Not urgent: the client's
        # next call after its MQPUT (MQCLOSE, or the MQGET that waits for the response) is served
        # before the commit syncs, not after it (decisions JN10, JN12).
        committer.after(qm.position, urgent=False)
        if commands.pending():
            # Requests the batch itself put (a command's own message to the queue): other tasks first.  Otherwise
            # the loop's top parks at once, in this step: a checkpoint here cost the event loop one more step of
            # this task before the client's next request (about 8 µs), and left a task runnable when the
            # connection looked for the loop falling idle to sync (JN15).
            await trio.lowlevel.checkpoint()
