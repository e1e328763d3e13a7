"""The monitoring clocks: publish the monitoring metadata (retained) when the server starts, then let
the domain publish one interval's figures every ``monitor_interval`` seconds
(registry/monitoring/resource.py holds every rule); and once a second let the domain decide whether a
statistics interval or a connection's accounting interval has ended (registry/monitoring/statistics.py,
accounting.py).  These tasks only keep time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from . import log as qlog

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

    from .durability import GroupCommitter


async def run(qm: QueueManager, committer: GroupCommitter, interval: float, *,
              task_status=trio.TASK_STATUS_IGNORED) -> None:
    monitor = qm.monitor
    monitor.interval = interval
    topics = monitor.publish_metadata()
    # Retaining replaces any stored retained publication: a write, which no reply waits for (JN10).
    committer.after(qm.position, urgent=False)
    qlog.get().debug("monitor_metadata", topics=topics, interval=monitor.interval)
    task_status.started()
    if qm.clock_control.virtual is not None:
        return  # a virtual clock: each step the test makes publishes when the interval has passed (VC4)
    while True:
        await trio.sleep(monitor.interval)
        monitor.publish_resource_usage()
        await trio.lowlevel.checkpoint()


STATISTICS_TICK = 1.0  # seconds: STATINT and ACCTINT are whole seconds


async def run_statistics(qm: QueueManager, committer: GroupCommitter, *,
                         task_status=trio.TASK_STATUS_IGNORED) -> None:
    task_status.started()
    if qm.clock_control.virtual is not None:
        return  # a virtual clock: each step the test makes ends the intervals that have passed (VC4)
    while True:
        await trio.sleep(STATISTICS_TICK)
        written = qm.monitoring_tick()
        if written:
            committer.after(qm.position, urgent=False)  # persistent statistics messages: nobody waits (JN10)
            qlog.get().debug("statistics_written", messages=written)
