"""START CHANNEL's hook: which agent a message channel's start runs (run.py's sender, requester.py's
requester).  Apart from both so that neither imports the other's caller (requester.py uses run.py's
sending and receiving sessions): the package's import graph stays a tree (tests/test_import_graph.py)."""

from __future__ import annotations

from collections.abc import Callable

import trio

from qmlite.registry.objects import channels as M
from qmlite.server.mca.requester import run_requester
from qmlite.server.mca.run import Host, host_of, run_sender


def register(qm_server, nursery: trio.Nursery, *, host: Host | None = None,
             on_end: Callable[[object], None] | None = None) -> None:
    """START CHANNEL of a sender (or a server with a CONNAME), or of a requester, on ``qm_server``'s queue
    manager runs its agent in ``nursery``; ``on_end(channel)`` when the agent ends (a test's wait)."""
    host = host or host_of(qm_server)

    async def agent(run, channel) -> None:
        qm_server.agents += 1  # counted beside the connections by its committer (decision MCD2)
        try:
            await run(host, channel)
        finally:
            qm_server.agents -= 1
            if on_end is not None:
                on_end(channel)

    def start(channel) -> None:
        if channel.channel_type in (M.SDR, M.CLUSSDR) or (channel.channel_type == M.SVR and channel.conn_name):
            nursery.start_soon(agent, run_sender, channel)
        elif channel.channel_type == M.RQSTR and channel.conn_name:
            nursery.start_soon(agent, run_requester, channel)  # it connects and receives

    qm_server.qm.registry.running.start_message_channel = start
