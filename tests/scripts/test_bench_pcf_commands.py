"""scripts/bench/pcf_commands.py: a short run through ibmmq against a real ``qmlite serve``.  No timing is
asserted: that both commands ran (a refused one raises in ibmmq) and the server's CPU was read."""

from __future__ import annotations

import importlib
import json
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench"
pytest.importorskip("ibmmq")


def _module(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


def _run(tmp_path, *args: str) -> dict:
    """pcf_commands.py's main with ``args`` (and --json), its report."""
    assert _module("pcf_commands").main([*args, "--json", str(tmp_path / "r.json")]) == 0
    return json.loads((tmp_path / "r.json").read_text())


def test_a_short_run_reports_both_commands(tmp_path, capsys):
    report = _run(tmp_path, "--commands", "5", "--rounds", "2", "--steps", "20")
    for name in ("ping", "create"):
        figures = report["results"][name]
        assert figures["per_s"]["best"] >= figures["per_s"]["median"] > 0
        assert figures["server_cpu_us"]["median"] >= figures["server_cpu_us"]["best"] >= 0
    assert "create  server CPU" in capsys.readouterr().out
    work = report["event_loop_per_ping"]
    assert work["tasks_spawned"] == 0  # no task per command (docs/decisions.md CLU15)
    assert 0 < work["io_waits"] <= work["task_steps"]
    # The command server runs a Ping and parks again in one step (no checkpoint between, when nothing else is pending);
    # the cluster agent of a queue manager in no cluster sleeps through it (CLU16).
    assert work["steps_by_task"]["qmlite.server.command_server.run"] == 1.0
    assert "qmlite.server.mca.clusteragent.run" not in work["steps_by_task"]


def test_the_ceilings_measure_every_bound_of_both_commands(tmp_path, capsys):
    bounds = _run(tmp_path, "--commands", "3", "--rounds", "1", "--steps", "0", "--ceilings", "5")["ceilings"]
    kinds = ["ibmmq alone", "over a blocking echo", "over a trio echo", "over a trio echo, Create synced", "qmlite"]
    for label in ("PCFExecute Ping Q Mgr", "PCFExecute Create Subscription"):
        assert list(bounds[label]) == kinds
        assert all(len(f["rounds"]) == 1 and f["best"] > 0 for f in bounds[label].values())
    assert "over a trio echo, Create synced" in capsys.readouterr().out


def test_the_split_times_each_transport_call_of_both_commands_and_puts_ibmmq_back(tmp_path, capsys):
    bench = _module("pcf_commands")
    import ibmmqc

    before = {name: getattr(ibmmqc, name) for name in bench.SPLIT_CALLS}
    split = _run(tmp_path, "--commands", "3", "--rounds", "2", "--steps", "0", "--split", "5")["split"]
    assert {name: getattr(ibmmqc, name) for name in bench.SPLIT_CALLS} == before  # the timers are gone
    for kind in ("ping", "create"):
        f = split[kind]
        # every call ran and was timed: its wall time covers its CPU, and the command's covers its calls
        assert all(f[f"{name} wall_us"] >= f[f"{name} cpu_us"] > 0 for name in bench.SPLIT_CALLS)
        assert f["wall_us"] >= sum(f[f"{name} wall_us"] for name in bench.SPLIT_CALLS)
        assert f["client_cpu_us"] >= f["ibmmq_cpu_us"] > 0
    assert "MQCLOSE" in capsys.readouterr().out


def test_the_replayed_ceiling_answers_ibmmq_over_qmlites_transport(tmp_path, capsys):
    # The bare server answers every PCFExecute call with qmlite's recorded bytes, each reply carrying its
    # request's RequestId: a wrong or missing answer raises in ibmmq (2033, 2009, a parse error) and
    # the run fails.  Ping and Create each measured through qmlite, the bare server and ibmmq alone.
    replay = _run(tmp_path, "--commands", "3", "--rounds", "2", "--steps", "0", "--replay", "4")["replay"]
    for label in ("PCFExecute Ping Q Mgr", "PCFExecute Create Subscription"):
        figures = replay[label]
        for where in ("qmlite", "bare", "ibmmq alone"):
            assert len(figures[where]["rounds"]) == 2 and figures[where]["best"] == max(figures[where]["rounds"]) > 0
        assert figures["ceiling: bare / alone"] == round(figures["bare"]["best"] / figures["ibmmq alone"]["best"], 3)
    # the third: the Create replayed with the command's own work spent on the bare server's loop
    pcf_commands = _module("pcf_commands")
    work = replay[pcf_commands.WORK_LABEL]
    assert set(work) == {"bare", "ibmmq alone", "ceiling: bare / alone", "command work"}
    assert len(work["bare"]["rounds"]) == 2 and work["bare"]["best"] > 0
    assert work["ibmmq alone"] == replay["PCFExecute Create Subscription"]["ibmmq alone"]
    pieces = work["command work"]
    assert all(pieces[f"{name}_us"] > 0 for name in ("engine", "responses", "write", "total"))
    out = capsys.readouterr().out
    assert "ceiling" in out and f"spending {pieces['total_us']:.0f} µs of CPU on its loop" in out


def test_the_command_work_is_a_create_subscription_run_in_process():
    pieces = _module("pcf_commands").command_work(20)
    assert set(pieces) == {"engine_us", "responses_us", "write_us", "total_us"}
    assert pieces["total_us"] >= max(pieces["engine_us"], pieces["responses_us"], pieces["write_us"]) > 0


def test_a_sync_step_names_the_work_spent_before_its_sync():
    replay_server = _module("replay_server")
    assert [replay_server.work_us(flag) for flag in ("sync", "sync:0", "sync:127")] == [0, 0, 127]


def test_a_step_answers_with_the_requests_request_id():
    replay_server = _module("replay_server")
    one = b"TSHM" + (40).to_bytes(4, "big") + (1).to_bytes(4, "big") + (7).to_bytes(4, "big") + bytes(24)
    two = b"TSHM" + (20).to_bytes(4, "big") + (1).to_bytes(4, "big") + (7).to_bytes(4, "big") + bytes(4)
    step = replay_server.Step(100, (one + two).hex())
    request = b"TSHM" + (100).to_bytes(4, "big") + (1).to_bytes(4, "big") + (9).to_bytes(4, "big")
    answer = step.answer(request)
    assert answer[12:16] == answer[40 + 12:40 + 16] == (9).to_bytes(4, "big")  # both segments
    assert answer[:12] == one[:12] and answer[16:40] == one[16:] and answer[56:] == two[16:]
    assert step.answer(b"TSH " + bytes(12)) == one + two  # a TSH request: nothing to carry over
