"""scripts/bench/command_timeline.py: a short run through ibmmq against its stamped ``qmlite serve``.  No time
is asserted: that both sides' marks are there and each command's own order holds on the one clock."""

from __future__ import annotations

import importlib
import json
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench"
pytest.importorskip("ibmmq")


def _bench():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module("command_timeline")


def test_a_create_subscriptions_timeline_holds_both_sides_in_their_order(tmp_path, capsys):
    bench = _bench()
    import ibmmqc

    calls = {name: getattr(ibmmqc, name) for name in bench.CALLS}
    client, server = bench.run("create", 12)
    for name, real in calls.items():  # the client's stamps wrap ibmmqc's calls for this process's run
        assert getattr(ibmmqc, name) is not real
        setattr(ibmmqc, name, real)
    for events in _commands(client, server):
        m = bench.marks_of(events)
        # the client calls before the server reads; the server answers the put, then runs the command,
        # writes it, syncs it, and only then answers the MQGET that returns the response
        assert m["client MQPUT called"] < m["server MQPUT read"] < m["server MQPUT answers"]
        assert m["server MQPUT answers"] < m["server command begins"] < m["server command ends"]
        assert m["server command ends"] <= m["server SQLite write begins"] < m["server sync ends"]
        assert m["server sync ends"] < m["server commit done begins"] < m["server MQGET answers"]
        assert m["server MQGET answers"] < m["client MQGET returned"]
        assert m["client MQCLOSE called"] < m["server MQCLOSE read"] < m["client MQCLOSE returned"]
    report = bench.timeline(client, server)
    assert report["commands"] == 12
    assert report["marks"]["server MQPUT answers"]["p50"] == 0.0
    assert all(f["p25"] <= f["p50"] <= f["p75"] for f in report["marks"].values())


def _commands(client: list, server: list) -> list[list]:
    events = sorted(client + server)
    cuts = [i for i, (_, label) in enumerate(events) if label == "client command>"]
    return [events[a + 1:b] for a, b in zip(cuts, cuts[1:])]


def test_the_command_line_prints_and_writes_a_pings_timeline(tmp_path, capsys):
    bench = _bench()
    import ibmmqc

    calls = {name: getattr(ibmmqc, name) for name in bench.CALLS}
    try:
        assert bench.main(["--commands", "5", "--command", "ping", "--json", str(tmp_path / "t.json")]) == 0
    finally:
        for name, real in calls.items():
            setattr(ibmmqc, name, real)
    report = json.loads((tmp_path / "t.json").read_text())
    assert report["command"] == "ping" and report["commands"] == 5
    assert "server sync ends" not in report["marks"]  # a Ping writes nothing: no commit to wait for
    assert "server MQGET answers" in capsys.readouterr().out
