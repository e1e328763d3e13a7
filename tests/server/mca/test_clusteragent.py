"""The cluster agent's wake-ups (server/mca/clusteragent.py): outside a cluster a command costs it one
wake and no task, and a command run off the event loop's thread still wakes it."""

from __future__ import annotations

import trio
import trio.testing

from qmlite.server import config
from qmlite.server.listener import running
from tests.server.mca.test_cluster import _mqsc


class Spawned(trio.abc.Instrument):
    def __init__(self) -> None:
        self.tasks: list[str] = []

    def task_spawned(self, task) -> None:
        self.tasks.append(task.name)


def _agent_connected(qm) -> bool:
    return any(s.appl_name.strip() == "amqrrmfa" for s in qm.sessions.values())


async def test_commands_outside_a_cluster_start_no_task(tmp_path):
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / "QM1"})
    async with running(cfg, synchronous="NORMAL") as server:
        await trio.testing.wait_all_tasks_blocked()
        spawned = Spawned()
        trio.lowlevel.add_instrument(spawned)
        try:
            for n in range(20):  # each a change: each nudges the agent
                _mqsc(server.qm, f"DEFINE QLOCAL(AGENT.Q.{n})")
                await trio.testing.wait_all_tasks_blocked()
        finally:
            trio.lowlevel.remove_instrument(spawned)
        assert spawned.tasks == []
        assert not _agent_connected(server.qm)


async def test_a_command_from_another_thread_wakes_the_agent(tmp_path):
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / "QM1"})
    async with running(cfg, synchronous="NORMAL") as server:
        await trio.testing.wait_all_tasks_blocked()
        assert not _agent_connected(server.qm)
        # Joining a cluster, administered from a worker thread: the nudge goes through trio's entry queue.
        await trio.to_thread.run_sync(_mqsc, server.qm, "ALTER QMGR REPOS(DEMO)\n"
                                      f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({server.port})') "
                                      "CLUSTER(DEMO)")
        with trio.fail_after(30):
            while not _agent_connected(server.qm):
                await trio.testing.wait_all_tasks_blocked()
                await trio.lowlevel.checkpoint()
