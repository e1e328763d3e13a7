"""``pipeline.route_job`` on a local Spark session: the deliveries and summary of a small replay."""

from __future__ import annotations

import collections
import json
import pathlib
import tempfile

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies

from qmlite.pcf import constants as C
from qmlite.pipeline import route_job, routes
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.storage import definitionsblob
from tests.pipeline.test_routes import _online, _registry, _row, pub_specs, sub_specs
from tests.support.pcfkit import command, i, st

pytest.importorskip("pyspark")


def _admin_sub(qm, name, topic, dest, *extra):
    reply = qm.engine.execute(command(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, name),
                                      st(C.MQCA_TOPIC_STRING, topic), st(C.MQCACF_DESTINATION, dest), *extra))
    assert reply[-1].header.Reason == 0


def test_route_job_writes_deliveries_by_queue_and_a_summary(spark, tmp_path, clock):
    data = tmp_path / "qm"
    qm = QueueManager.open(data, clock=clock, synchronous="NORMAL")
    _admin_sub(qm, "ALL.PRICES", "price/#", "DEV.QUEUE.1")
    _admin_sub(qm, "RED.FRUIT", "price/fruit/+", "DEV.QUEUE.2", st(C.MQCACF_SUB_SELECTOR, "Colour = 'red'"))
    qm.flush()
    rows = [
        {"id": "a", "topic": "price/fruit/apple", "body": "1.20", "properties": {"Colour": "red"},
         "timestamp": "2026-11-23T10:15:00Z"},
        {"id": "b", "topic": "price/fruit/pear", "size": 100, "properties": {"Colour": "green"},
         "timestamp": "2026-11-23T10:45:00Z"},
        {"id": "c", "topic": "news/today", "body": "nobody", "timestamp": "2026-11-23T11:05:00Z"},
        {"topic": "price/veg/leek", "size": 10, "priority": 8, "timestamp": "2026-11-23T11:10:00Z"},
    ]
    pubs = tmp_path / "pubs.jsonl"
    pubs.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    try:  # the job reads the data directory while the queue manager has it open
        summary = route_job.route(spark, str(pubs), str(data), str(tmp_path / "out"))
        expected = list(routes.route_rows(((r, n) for n, r in enumerate(rows, 1)), qm.registry))
    finally:
        qm.shutdown()
    table = pq.read_table(tmp_path / "out" / "deliveries").to_pylist()
    got = sorted((r["publication_id"], str(r["destination_queue"]), r["sub_name"], r["bytes"]) for r in table)
    assert got == sorted((d["publication_id"], d["destination_queue"], d["sub_name"], d["bytes"]) for d in expected)
    assert got == [("4", "DEV.QUEUE.1", "ALL.PRICES", 10),  # no id: its row number, from 1
                   ("a", "DEV.QUEUE.1", "ALL.PRICES", 4), ("a", "DEV.QUEUE.2", "RED.FRUIT", 4),
                   ("b", "DEV.QUEUE.1", "ALL.PRICES", 100)]
    written = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert written == json.loads(json.dumps(summary))
    assert (tmp_path / "out" / "summary.json").read_text() == route_job.summary_text(summary)  # lines encoded ahead
    assert (summary["publications"], summary["deliveries"], summary["publications_not_received"]) == (4, 4, 1)
    assert summary["per_subscription"]["ALL.PRICES"] == {"messages": 3, "bytes": 114}
    assert summary["per_queue_per_hour"]["DEV.QUEUE.1"] == {
        "1795428000": {"messages": 2, "bytes": 104}, "1795431600": {"messages": 1, "bytes": 10}}
    # The strings are written without min/max statistics (SK5); the time and the numbers keep theirs.
    for part in (tmp_path / "out" / "deliveries").rglob("*.parquet"):
        meta = pq.ParquetFile(part).metadata
        chunks = {meta.row_group(0).column(i).path_in_schema: meta.row_group(0).column(i)
                  for i in range(meta.num_columns)}
        assert {name for name, chunk in chunks.items() if not chunk.is_stats_set} == {
            "publication_id", "sub_id", "correl_id", "sub_name", "topic"}, part
        assert chunks["timestamp"].statistics.has_min_max


def test_timestamps_are_read_as_the_instants_they_name(spark, tmp_path):
    """A "Z" is read as UTC without Spark resolving the zone's name (SK5); offsets and zoneless times as before."""
    stamps = ["2026-11-23T10:15:00Z", "2026-11-23T10:15:00.250Z", "2026-11-23T11:15:00+01:00", "2026-11-23T10:15:00",
              "2026-11-23"]
    pubs = tmp_path / "pubs.jsonl"
    pubs.write_text("".join(json.dumps({"id": str(n), "topic": "t", "timestamp": t}) + "\n"
                            for n, t in enumerate(stamps)))
    got = {r["id"]: r["timestamp"] for r in route_job.read_publications(spark, str(pubs), numbered=False).collect()}
    assert got == {"0": 1795428900.0, "1": 1795428900.25, "2": 1795428900.0, "3": 1795428900.0, "4": 1795392000.0}


def test_route_job_reads_a_snapshot_and_parquet(spark, tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", clock=clock, synchronous="NORMAL")
    try:
        _admin_sub(qm, "S", "t/+", "DEV.QUEUE.3")
        snap = tmp_path / "registry.snapshot"
        snap.write_bytes(definitionsblob.dump(qm.registry))
    finally:
        qm.shutdown()
    import pyarrow as pa

    pq.write_table(pa.table({"id": ["x", "y", "z"], "topic": ["t/1", "u/1", None], "size": [5, 6, 7]}),
                   tmp_path / "p.parquet")
    # an output directory whose name Hadoop would read as a glob (the benchmark's out-local[2])
    summary = route_job.route(spark, str(tmp_path / "p.parquet"), str(snap), str(tmp_path / "out-local[2]{x}"))
    assert (summary["deliveries"], summary["publications_not_received"]) == (1, 2)
    assert summary["publications_without_topic"] == 1  # counted, never routed
    assert summary["per_queue"] == {"DEV.QUEUE.3": {"messages": 1, "bytes": 5}}


def test_the_command_line_reports_a_bad_registry_or_input_without_starting_spark(tmp_path):
    """(The job itself is tested above on the shared session; a second JVM here would double the cost.)"""
    import subprocess
    import sys

    (tmp_path / "p.jsonl").write_text('{"topic": "cli/x", "body": "hi"}\n')
    for registry, publications, says in ((tmp_path / "no-such-dir", tmp_path / "p.jsonl", "No such file"),
                                         (tmp_path / "p.jsonl", tmp_path / "p.jsonl", "not a registry snapshot")):
        bad = subprocess.run([sys.executable, "-m", "qmlite", "pipeline", "route", "--publications",
                              str(publications), "--registry", str(registry), "--out", str(tmp_path / "out")],
                             capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and says in bad.stderr and "Traceback" not in bad.stderr, bad.stderr


def _inputs(tmp: pathlib.Path, subs, pubs):
    """A queue manager in ``tmp/qm`` holding the random registry (written to disk), and the
    publications as ``tmp/pubs.jsonl``; returns (the open queue manager, the rows)."""
    qm = QueueManager.open(tmp / "qm", synchronous="OFF")
    _registry(qm, subs)
    qm.flush()
    rows = [_row(n, spec) for n, spec in enumerate(pubs)]
    (tmp / "pubs.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return qm, rows


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(subs=sub_specs, pubs=pub_specs)
def test_the_spark_job_delivers_what_the_queue_manager_delivers(spark, subs, pubs):
    """The online router (QueueManager.publish) and the Spark job, on the same random registry and
    publications: identical deliveries, selectors, grouping and SubLevel included."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        qm, rows = _inputs(tmp, subs, pubs)
        try:
            summary = route_job.route(spark, str(tmp / "pubs.jsonl"), str(tmp / "qm"), str(tmp / "out"))
            expected = _online(qm, rows)
        finally:
            qm.shutdown()
        table = pq.read_table(tmp / "out" / "deliveries").to_pylist()
        got = collections.Counter(
            (r["publication_id"], str(r["destination_queue"]), r["correl_id"], r["priority"], r["persistence"],
             r["expiry"]) for r in table)
        assert got == expected
        # The summary is computed from the traffic per key, not from the deliveries: it must still
        # say what the deliveries written say.
        assert {k: summary[k] for k in _COUNTED} == _summary_of(table, len(rows))


_COUNTED = ("publications", "deliveries", "publications_not_received", "per_subscription", "per_queue",
            "per_topic", "per_queue_per_hour")


def _summary_of(deliveries: list[dict], publications: int) -> dict:
    """The summary's counts, straight from the delivery rows."""
    def per(key):
        out: dict = {}
        for d in deliveries:
            entry = out.setdefault(key(d), {"messages": 0, "bytes": 0})
            entry["messages"] += 1
            entry["bytes"] += d["bytes"]
        return out

    hourly: dict = {}
    for d in deliveries:
        hour = "unknown" if d["timestamp"] is None else str(int(d["timestamp"] // 3600) * 3600)
        entry = hourly.setdefault(str(d["destination_queue"]), {}).setdefault(hour, {"messages": 0, "bytes": 0})
        entry["messages"] += 1
        entry["bytes"] += d["bytes"]
    return {"publications": publications, "deliveries": len(deliveries),
            "publications_not_received": publications - len({d["publication_id"] for d in deliveries}),
            "per_subscription": per(lambda d: d["sub_name"]), "per_queue": per(lambda d: str(d["destination_queue"])),
            "per_topic": per(lambda d: d["topic"]), "per_queue_per_hour": hourly}


def test_diff_names_the_deliveries_a_change_adds_removes_and_changes(spark, tmp_path, clock):
    before = QueueManager.open(tmp_path / "before", clock=clock, synchronous="NORMAL")
    try:
        _admin_sub(before, "KEEP", "d/#", "DEV.QUEUE.1")
        _admin_sub(before, "GOES", "d/x", "DEV.QUEUE.2")
        _admin_sub(before, "MOVES", "d/+", "DEV.QUEUE.2")
    finally:
        before.shutdown()
    after = QueueManager.open(tmp_path / "after", clock=clock, synchronous="NORMAL")
    try:
        _admin_sub(after, "KEEP", "d/#", "DEV.QUEUE.1")
        _admin_sub(after, "MOVES", "d/+", "DEV.QUEUE.3")  # another queue: every delivery changes
        _admin_sub(after, "COMES", "d/y", "DEV.QUEUE.1", st(C.MQCACF_SUB_SELECTOR, "Colour = 'red'"))
    finally:
        after.shutdown()
    rows = [{"id": "x1", "topic": "d/x", "size": 1}, {"id": "y1", "topic": "d/y", "size": 2,
                                                      "properties": {"Colour": "red"}},
            {"id": "y2", "topic": "d/y", "size": 3, "properties": {"Colour": "blue"}}]
    (tmp_path / "p.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    result = route_job.diff(spark, str(tmp_path / "p.jsonl"), str(tmp_path / "before"), str(tmp_path / "after"),
                            str(tmp_path / "out"))
    assert (result["added"], result["removed"], result["changed"]) == (1, 1, 3)
    assert result["per_subscription"] == {"COMES": {"added": 1}, "GOES": {"removed": 1}, "MOVES": {"changed": 3}}
    table = pq.read_table(tmp_path / "out" / "diff").to_pylist()
    moved = sorted((r["publication_id"], r["before_destination_queue"], r["after_destination_queue"])
                   for r in table if r["change"] == "changed")
    assert moved == [("x1", "DEV.QUEUE.2", "DEV.QUEUE.3"), ("y1", "DEV.QUEUE.2", "DEV.QUEUE.3"),
                     ("y2", "DEV.QUEUE.2", "DEV.QUEUE.3")]
    assert json.loads((tmp_path / "out" / "diff.json").read_text()) == json.loads(json.dumps(result))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(subs=sub_specs, pubs=pub_specs)
def test_split_by_topic_prefix_routes_as_the_broadcast_does(spark, subs, pubs):
    """A subscription set too large to broadcast is split by the literal first level of its topic
    strings (wildcard-first subscriptions in every part); the deliveries must not change."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        _inputs(tmp, subs, pubs)[0].shutdown()
        broadcast = route_job.route(spark, str(tmp / "pubs.jsonl"), str(tmp / "qm"), str(tmp / "a"))
        split = route_job.route(spark, str(tmp / "pubs.jsonl"), str(tmp / "qm"), str(tmp / "b"), limit=0)

        def delivered(out):
            return collections.Counter(
                (r["publication_id"], str(r["destination_queue"]), r["correl_id"], r["priority"], r["bytes"])
                for r in pq.read_table(tmp / out / "deliveries").to_pylist())
        assert delivered("b") == delivered("a")
        assert split == broadcast


def test_a_spark_failure_is_told_in_one_line():
    from qmlite.cli import _first_line

    report = ("An error occurred while calling o123.parquet.\n: org.apache.spark.SparkException: Job aborted\n"
              "  File \"/x/routes.py\", line 40, in publication\n"
              "qmlite.pipeline.routes.PublicationError: row 7: timestamp 'yesterday' is not ISO 8601\n"
              "\tat py4j.Gateway.invoke(Gateway.java:282)")
    assert _first_line(RuntimeError(report)) == (
        "qmlite.pipeline.routes.PublicationError: row 7: timestamp 'yesterday' is not ISO 8601")
    assert _first_line(RuntimeError("")) == "RuntimeError"


def _written(out: pathlib.Path) -> collections.Counter:
    """Every column of every delivery written (the queue from its partition directory)."""
    return collections.Counter(tuple(sorted((k, str(v) if k == "destination_queue" else v) for k, v in r.items()))
                               for r in pq.read_table(out / "deliveries").to_pylist())


def _both_ways(spark, tmp: pathlib.Path):
    """The job with its keys routed on the driver (the default, issue 24) and on the executors (the
    general path, which ``DRIVER_KEYS = 0`` forces): (deliveries, summary) of each."""
    on_driver = route_job.route(spark, str(tmp / "pubs.jsonl"), str(tmp / "qm"), str(tmp / "driver"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(route_job, "DRIVER_KEYS", 0)
        on_executors = route_job.route(spark, str(tmp / "pubs.jsonl"), str(tmp / "qm"), str(tmp / "executors"))
    return (_written(tmp / "driver"), on_driver), (_written(tmp / "executors"), on_executors)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(subs=sub_specs, pubs=pub_specs)
def test_keys_routed_on_the_driver_give_the_rows_the_executors_give(spark, subs, pubs):
    """Random registries (wildcards, selectors, SubLevel, grouping, PubPriority) and publications
    (PubLevel, priority, persistence, properties): every column of every delivery and the summary
    are the same whether the driver or the executors route the keys."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        _inputs(tmp, subs, pubs)[0].shutdown()
        driver, executors = _both_ways(spark, tmp)
        assert driver == executors
        assert sum(driver[0].values()) == driver[1]["deliveries"]


def test_every_routing_rule_gives_the_same_rows_on_the_driver_and_the_executors(spark, tmp_path, clock):
    """One input with each rule the job applies: '#' and '+', selectors (routed one by one), a
    subscription expiry (one by one), SubLevel against PubLevel, a group sharing a CorrelId,
    PubPriority, the topic's default priority and persistence, ids absent (row numbers) and present, a
    row without a topic; every delivery is also the one the row-by-row router gives."""
    qm = QueueManager.open(tmp_path / "qm", clock=clock, synchronous="NORMAL")
    try:
        # (pattern, queue, SubLevel, selector, group, PubPriority): tests/pipeline/test_routes.py's specs
        _registry(qm, [("r/#", "PIPE.Q.1", 1, "", None, -1), ("r/+/x", "PIPE.Q.2", 1, "", None, 4),
                       ("r/s/+", "PIPE.Q.3", 1, "Colour = 'red'", None, -1), ("r/l", "PIPE.Q.3", 2, "", None, -3),
                       ("r/g", "PIPE.Q.2", 1, "", 1, -1), ("r/g", "PIPE.Q.2", 1, "", 1, -1),
                       ("r/s/+", "PIPE.Q.1", 1, "Size > 2", 2, -1)])
        _admin_sub(qm, "EXPIRES", "r/e", "PIPE.Q.2", i(C.MQIACF_EXPIRY, 500))
        rows = [{"id": "a", "topic": "r/a/x", "size": 3, "timestamp": "2026-11-23T10:15:00Z"},
                {"topic": "r/s/1", "body": "red one", "properties": {"Colour": "red", "Size": 3}},
                {"id": 7, "topic": "r/s/2", "size": 4, "properties": {"Colour": "blue"}, "priority": 2},
                {"id": "e", "topic": "r/e", "size": 5, "expiry": 100, "timestamp": "2026-11-23T11:00:00Z"},
                {"id": "l1", "topic": "r/l", "size": 6, "pub_level": 1},
                {"id": "l9", "topic": "r/l", "size": 6, "pub_level": 9, "persistence": 1},
                {"id": "g", "topic": "r/g", "size": 9, "priority": 0},
                {"id": "none", "size": 1}]
        reference = collections.Counter(
            (d["publication_id"], d["sub_name"], d["correl_id"], d["priority"], d["persistence"], d["expiry"],
             d["bytes"])
            for d in routes.route_rows(((r, n) for n, r in enumerate(rows, 1) if "topic" in r), qm.registry))
    finally:
        qm.shutdown()
    (tmp_path / "pubs.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    driver, executors = _both_ways(spark, tmp_path)
    assert driver == executors
    got = collections.Counter(
        tuple(dict(r)[k]
              for k in ("publication_id", "sub_name", "correl_id", "priority", "persistence", "expiry", "bytes"))
        for r in driver[0].elements())
    assert got == reference
    names = {name for _, name, *_ in got}
    assert {"PIPE.SUB.2", "PIPE.SUB.6", "EXPIRES", "PIPE.SUB.3"} <= names  # selectors, expiry and SubLevel delivered
    assert len(names & {"PIPE.SUB.4", "PIPE.SUB.5"}) == 1  # the group gets one copy
    assert driver[1]["publications_without_topic"] == 1


def test_keys_routed_in_forked_shares_give_the_table_one_process_gives(tmp_path, clock, monkeypatch):
    """The driver's keys split over forked copies of it (pipeline/forked.py, SK6): the routed-key table is the one a
    single process builds, row for row and in order, whichever rule a key meets (copies, groups, PubPriority,
    SubLevel, a selector routed one by one)."""
    import pyarrow as pa

    from qmlite.pipeline import forked

    qm = QueueManager.open(tmp_path / "qm", clock=clock, synchronous="NORMAL")
    try:
        _registry(qm, [("r/#", "PIPE.Q.1", 1, "", None, -1), ("r/+/x", "PIPE.Q.2", 1, "", None, 4),
                       ("r/s/+", "PIPE.Q.3", 1, "Colour = 'red'", None, -1), ("r/l", "PIPE.Q.3", 2, "", None, -3),
                       ("r/g", "PIPE.Q.2", 1, "", 1, -1), ("r/g", "PIPE.Q.2", 1, "", 1, -1)])
        keys = [(topic, level, priority, persistence, -1) for topic in ("r/a/x", "r/s/1", "r/l", "r/g", "q", "r/b/x")
                for level in (1, 9) for priority in (-1, 0, 7) for persistence in (0, 2)]
        table = pa.table({name: [k[n] for k in keys] for n, name in enumerate(route_job.KEY)})
        alone = route_job.route_keys_table(qm.registry, table, 1)
        forks = []
        monkeypatch.setattr(forked, "MIN_SHARE", 1)
        monkeypatch.setattr(forked, "_fork", lambda work, part, real=forked._fork: forks.append(1) or real(work, part))
        shared = route_job.route_keys_table(qm.registry, table, 3)
    finally:
        qm.shutdown()
    assert len(forks) == 2  # three shares: two of them worked in forked children
    assert shared.equals(alone)
    kinds = set(alone["kind"].to_pylist())
    assert {"copy", "each", "selector"} <= kinds and alone.num_rows > len(keys)


NAMES = strategies.text(strategies.sampled_from('a}{", \\/é\n1'), max_size=6)  # braces, quotes, commas: a split's traps
COUNTS = strategies.dictionaries(strategies.sampled_from(["messages", "bytes", "hit_rate"]),
                                 strategies.integers(-5, 10**12) | strategies.floats(0, 1))


@settings(max_examples=60, deadline=None)
@given(strategies.dictionaries(NAMES, COUNTS, max_size=8),
       strategies.dictionaries(NAMES, strategies.dictionaries(NAMES, strategies.integers()), max_size=3))
@example({}, {'", ': {}, "1": {}})  # an escaped quote ending a name, then the next: '\", "1' read as a split
def test_summary_json_is_the_summary_with_an_entry_a_line(table, nested):
    """summary.json reads back as the summary, however the names look; each entry of a per-name table
    has a line of its own, and a value of any other shape is indented as json.dumps does it."""
    summary = {"publications": 7, "per_topic": table, "per_queue_per_hour": nested, "selector_hit_rates": {}}
    text = route_job.summary_text(summary)
    assert json.loads(text) == summary
    lines = text.split("\n")
    if table:
        start = lines.index('  "per_topic": {')
        assert lines[start + len(table) + 1] in ("  }", "  },")  # one line per entry, then the table closes
    assert all(line.startswith("  ") for line in lines[1:-1])
    # Entries encoded ahead (the job encodes all but the hours' while their job runs) give the same text.
    ahead = {key: route_job.summary_line(key, summary[key]) for key in ("per_topic", "selector_hit_rates")}
    assert route_job.summary_text(summary, ahead) == text


def test_a_registry_already_loaded_routes_as_its_directory_does(spark, tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", clock=clock, synchronous="NORMAL")
    try:
        _admin_sub(qm, "S", "t/+", "DEV.QUEUE.3")
        qm.flush()
    finally:
        qm.shutdown()
    pubs = tmp_path / "pubs.jsonl"
    pubs.write_text("".join(json.dumps({"id": str(n), "topic": t, "size": n}) + "\n"
                            for n, t in enumerate(["t/1", "t/2", "u/1"])))
    by_path = route_job.route(spark, str(pubs), str(tmp_path / "qm"), str(tmp_path / "a"))
    loaded = route_job.route(spark, str(pubs), route_job.load_registry(str(tmp_path / "qm")), str(tmp_path / "b"))
    assert by_path == loaded
    assert (loaded["deliveries"], loaded["publications_not_received"]) == (2, 1)


def test_a_summary_that_fails_cancels_its_hourly_job(spark, monkeypatch):
    """The hours are counted in a thread while the driver sums the tables: when the sums fail, that job is
    cancelled rather than waited for (leaving the thread pool waits for its thread)."""
    deliveries = spark.createDataFrame([("Q", 3600.0, 10)], "destination_queue string, timestamp double, bytes long")
    cancelled = []
    monkeypatch.setattr(spark.sparkContext, "cancelJobGroup", cancelled.append)

    def broken(*args):
        raise RuntimeError("the sums failed")
    monkeypatch.setattr(route_job, "_summary_of_keys", broken)
    with pytest.raises(RuntimeError, match="the sums failed"):
        route_job.summarize(None, None, None, deliveries, 1)
    assert len(cancelled) == 1 and cancelled[0].startswith("qmlite-hours-")


def test_the_driver_routes_with_the_masters_cores_at_most_its_own(monkeypatch):
    """local[N] gives N shares, never more than the cores the driver may run on (sched_getaffinity where the OS has
    it, the machine's count elsewhere)."""
    import os
    import types

    def master(cores):
        return types.SimpleNamespace(sparkContext=types.SimpleNamespace(defaultParallelism=cores))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert [route_job._driver_cores(master(n)) for n in (1, 2, 8)] == [1, 2, 3]
    monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert [route_job._driver_cores(master(n)) for n in (2, 8)] == [2, 4]


@given(size=strategies.integers(1, 1 << 40), largest=strategies.integers(16 << 20, 1 << 31),
       cores=strategies.integers(1, 64))  # files to a TiB, splits of 16 MB up (Spark's default is 128)
@example(size=1_054_394_917, largest=128 << 20, cores=2)  # the bench's 10M publications: 8 equal splits, not 7 + 1
def test_an_even_split_reads_a_large_file_in_whole_waves_of_equal_tasks(size, largest, cores):
    split = route_job.even_split_bytes(size, largest, cores)
    assert 1 <= split <= largest
    tasks = -(-size // split)  # how Spark cuts one file: splits of `split` bytes, the last the remainder
    if size <= largest * cores:  # one wave at most: Spark's own split (the file over the cores) is kept
        assert split == largest
        return
    assert tasks % cores == 0  # whole waves ...
    assert tasks == cores * -(-size // (largest * cores))  # ... as many as Spark's own splits fill, no more
    assert size - split * (tasks - 1) > split - tasks  # ... and the last short of the others by fewer bytes than tasks


def test_the_route_job_reads_its_file_in_whole_waves_and_leaves_the_split_size_as_it_was(spark, tmp_path):
    """The split size set for the job is the one Spark cuts the file by (six equal tasks on local[2], not four of the
    largest and a short fifth), and the session's own setting is back afterwards."""
    pubs = tmp_path / "pubs.jsonl"
    pubs.write_text("".join(json.dumps({"id": str(n), "topic": "t/%05d" % n}) + "\n" for n in range(200)))
    size = pubs.stat().st_size
    largest = -(-size // 5) + 10  # five splits of at most `largest`: four full ones and a short fifth
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(largest))
    try:
        assert spark.read.json(str(pubs)).rdd.getNumPartitions() == 5
        restore = route_job._even_splits(spark, str(pubs))
        assert restore == str(largest)
        assert int(spark.conf.get("spark.sql.files.maxPartitionBytes")) == route_job.even_split_bytes(size, largest, 2)
        assert spark.read.json(str(pubs)).rdd.getNumPartitions() == 6
        spark.conf.set("spark.sql.files.maxPartitionBytes", restore)
        assert route_job._even_splits(spark, str(tmp_path)) is None  # a directory: Spark's own splits
        summary = route_job.route(spark, str(pubs), str(_empty_registry(tmp_path)), str(tmp_path / "out"))
        assert summary["publications"] == 200
        assert spark.conf.get("spark.sql.files.maxPartitionBytes") == str(largest)
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")


def _empty_registry(tmp_path: pathlib.Path) -> pathlib.Path:
    data = tmp_path / "qm"
    QueueManager.open(data, synchronous="NORMAL").shutdown()
    return data


def test_a_session_without_a_jvm_keeps_sparks_own_splits(tmp_path):
    """Spark Connect's session has no JVM to read the split size from: the job leaves its splits as they are."""
    import types

    pubs = tmp_path / "pubs.jsonl"
    pubs.write_text("{}\n")
    remote = types.SimpleNamespace(conf=None, sparkContext=types.SimpleNamespace(defaultParallelism=2))
    assert route_job._even_splits(remote, str(pubs)) is None
