"""scripts/bench/many_putget.py --steps: the event loop's work per MQI call at several connections, counted
with the server in-process (issue 35).  What it finds is also the guard: a non-persistent put or get costs
the loop one step of its connection's task and no task spawned; a persistent one a second step, once its
group commit is on disk."""

from __future__ import annotations

import importlib
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench"


def _bench():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module("many_putget")


def test_a_non_persistent_call_is_one_task_step():
    work = _bench().scheduler_work(400, 4, False)
    assert work["calls"] >= 400
    assert work["tasks_spawned"] == 0
    assert 0.99 <= work["task_steps"] <= 1.05
    assert 0 < work["io_waits"] <= 1.0


def test_a_persistent_call_is_woken_once_by_its_commit():
    work = _bench().scheduler_work(400, 4, True)
    handler = work["steps_by_task"]["trio._highlevel_serve_listeners._run_handler"]
    assert work["tasks_spawned"] == 0
    assert 1.95 <= handler <= 2.05
