"""The command server's task: wake when SYSTEM.ADMIN.COMMAND.QUEUE gains requests, let the domain run a
batch (registry/commandserver.py holds every rule), and have the batch's effects committed.

Requests that arrive while a batch commits wait and form the next batch, so a busy command server
pays one fsync per batch (up to 64 commands), and the domain's responses are read only once what
they report is durable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from qmlite.registry.commandserver import QUEUE

if TYPE_CHECKING:
    from .listener import QueueManagerServer


async def run(server: QueueManagerServer, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
    qm = server.qm
    commands = qm.command_server
    lot = server.mqi.activity.lot(QUEUE)
    task_status.started()
    while True:
        if not commands.pending():
            await lot.park()
            continue
        commands.run_batch()
        await server.mqi.durable(qm.position)
        await trio.sleep(0)  # let the connections that are waiting for these replies run
