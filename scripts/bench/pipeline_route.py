#!/usr/bin/env python3
"""``qmlite pipeline route`` cold: publications/s on Spark local[2] and local[1], each run from a
fresh JVM (issue 10; issue 24's target 7).

A data directory with ``--subs`` administered subscriptions (exact 5-level topics, 20% with one "+",
10 queues) and a JSON-lines file of ``--publications`` publications over ``--topics`` distinct topics
(each topic a subscription's, made concrete; 64-byte bodies given by ``size``, ids present, a
timestamp each).  The inputs are generated once into ``--inputs`` (default: a directory under /tmp
named for their sizes) and reused by later runs; the OS page cache may hold the file (Spark does not
cache it: each run is a fresh process).

Each measured run is a fresh process, so a fresh JVM: Spark session start, then the whole job (read,
route, write the deliveries as Parquet by queue, the summary).  The masters alternate round after
round (local[1], local[2], then local[2], local[1], ...) so a busy spell of the machine falls on both;
each figure is the best (and the median) of ``--rounds`` runs.  Printed per master: the job's seconds
and publications/s (what issue 10's table gave), the session start, and the CPU seconds the job took
in the whole process tree (the JVM, its Python workers, the driver): a figure that load from other
work changes little.  Then the scaling local[2] over local[1] and the verdict on the targets
(>= 250,000 publications/s on local[2] cold, >= 1.7x local[1] cold), and the scaling's ceiling in each round:
local[1]'s job time over local[2]'s job CPU spread on its two cores busy from start to end -- the most local[2]
could scale by with the CPU its job took.  A cold local[1] job runs its one task thread beside the JVM's compilers,
its collector and the driver's Python on the machine's other core ("cores used" above 1); local[2] has no idle core
to lend them (docs/decisions.md SK7).

The driver JVM maps the installation's class-data-sharing archive (pipeline/cds.py); the first run that
finds none writes it as its JVM exits, so that run alone starts without it.  ``QMLITE_SPARK_CDS=0`` in
the environment measures without an archive.

``--bound`` adds, in the same rounds, a fresh process that only reads the publications and writes
each once as Parquet partitioned by one of 10 queue names (no routing, join or summary): what input
and output alone cost, cold, on this machine now.

    python scripts/bench/pipeline_route.py --publications 10000000            # the issue's target
    python scripts/bench/pipeline_route.py --publications 1000000 --rounds 3  # a quicker look
    python scripts/bench/pipeline_route.py --publications 10000000 --format parquet --warm
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

TARGET_RATE = 250_000  # publications/s, local[2], cold (issue 24, target 7)
TARGET_SCALING = 1.7  # local[2] over local[1], cold


def _registry(data: pathlib.Path, count: int, rnd: random.Random) -> list[str]:
    from qmlite.pcf import constants as C
    from qmlite.registry.objects.definitions import Queue, Subscription
    from qmlite.registry.qmgr import QueueManager
    from qmlite.registry.pubsub import routing

    qm = QueueManager.open(data, synchronous="OFF")
    reg = qm.registry
    queues = [f"BENCH.PIPE.{n}" for n in range(10)]
    for name in queues:
        reg.put_queue(Queue(name, max_depth=999_999_999))
    topics = []
    for i in range(count):
        levels = [f"l{k}_{rnd.randrange(30)}" for k in range(4)] + [str(i)]
        concrete = "/".join(levels)
        if rnd.random() < 0.2:
            levels[rnd.randrange(1, 5)] = "+"
        pattern = "/".join(levels)
        sub = Subscription(f"BENCH.PIPE.SUB.{i}", reg.ids.sub_id(), topic_string=pattern, resolved_topic=pattern,
                           destination=queues[i % len(queues)], destination_qmgr="QM1",
                           sub_type=C.MQSUBTYPE_ADMIN)
        sub.destination_correl_id = sub.sub_id
        sub.blocked_under = routing.blocks_for(reg, sub)
        reg.put_sub(sub)
        topics.append(concrete)
    qm.flush()
    qm.shutdown()
    return topics


def _publications(path: pathlib.Path, topics: list[str], count: int, distinct: int, rnd: random.Random) -> None:
    pool = rnd.sample(topics, min(distinct, len(topics)))
    with open(path, "w") as f:
        for n in range(count):
            f.write(json.dumps({"id": n, "topic": pool[rnd.randrange(len(pool))], "size": 64,
                                "timestamp": f"2026-11-23T{n % 24:02d}:00:00Z"}) + "\n")


def inputs(args) -> pathlib.Path:
    """The registry and publications, generated once into their directory and reused after."""
    where = pathlib.Path(args.inputs) if args.inputs else pathlib.Path(
        tempfile.gettempdir()) / f"qmlite-pipe-{args.publications}-{args.subs}-{args.topics}-{args.seed}"
    done = where / "inputs.json"
    if not done.exists():
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        t0 = time.perf_counter()
        rnd = random.Random(args.seed)
        topics = _registry(where / "qm", args.subs, rnd)
        _publications(where / "pubs.jsonl", topics, args.publications, args.topics, rnd)
        done.write_text(json.dumps({"publications": args.publications, "subs": args.subs, "topics": args.topics,
                                    "seed": args.seed}))
        print(f"# inputs built in {time.perf_counter() - t0:.1f}s: {where}", file=sys.stderr, flush=True)
    else:
        print(f"# inputs reused: {where}", file=sys.stderr, flush=True)
    if args.format == "parquet" and not (where / "pubs.parquet").exists():
        from qmlite.pipeline import spark

        session = spark.session("local[2]", driver_memory=args.driver_memory)
        try:
            session.read.json(str(where / "pubs.jsonl"), schema="id long, topic string, size long, timestamp string") \
                .write.parquet(str(where / "pubs.parquet"))
        finally:
            session.stop()
    return where


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of a process and every descendant alive, plus those it and they
    have waited for: the JVM, the PySpark daemon and its Python workers, this driver."""
    children: dict[int, list[int]] = {}
    spent: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(entry))
        spent[int(entry)] = sum(int(x) for x in fields[11:15])
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += spent.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total / os.sysconf("SC_CLK_TCK")


def _io_bound(session, source: str, out: pathlib.Path) -> None:
    """Read the publications and write each once, partitioned by one of 10 queue names, as Parquet:
    the job's input and output without routing, joins or summary."""
    from pyspark.sql import functions as F

    from qmlite.pipeline import route_job

    pubs = route_job.read_publications(session, source, numbered=False)
    queue = F.concat(F.lit("BENCH.PIPE."), F.pmod(F.xxhash64("topic"), F.lit(10)).cast("string"))
    pubs.withColumn("destination_queue", queue).write.mode("overwrite") \
        .partitionBy("destination_queue").parquet(str(out))


def measure(args) -> int:
    """One run in this fresh process: the session, the job cold (``--bound``: the I/O bound instead),
    ``--warm``: the job again in the same session; prints one JSON line."""
    t0 = time.perf_counter()
    from qmlite.pipeline import route_job, spark

    session = spark.session(args.measure, driver_memory=args.driver_memory)
    out = {"session": time.perf_counter() - t0}
    try:
        runs = ("cold", "warm") if args.warm and not args.bound else ("cold",)
        for run in runs:
            target = pathlib.Path(f"{args.out}-{run}")
            shutil.rmtree(target, ignore_errors=True)
            cpu0, t1 = tree_cpu(os.getpid()), time.perf_counter()
            if args.bound:
                _io_bound(session, args.source, target)
            else:
                out["deliveries"] = route_job.route(session, args.source, args.data, str(target))["deliveries"]
            out[run] = time.perf_counter() - t1
            out[f"{run}_cpu"] = tree_cpu(os.getpid()) - cpu0
            shutil.rmtree(target, ignore_errors=True)
    finally:
        session.stop()
    print(json.dumps(out))
    return 0


def _cores(master: str) -> int:
    """The cores a local master's tasks run on here: local[N] and local[N,F] N (at most the machine's), local[*]
    the machine's, local one."""
    from qmlite.pipeline import forked

    machine = forked.usable_cores()
    inside = master[master.find("[") + 1:master.find("]")].split(",")[0] if "[" in master else "1"
    return machine if inside == "*" else min(int(inside), machine)


def scaling_ceilings(first: list[dict], second: list[dict], cores: int) -> list[float]:
    """Each round's ceiling of the scaling target: the first master's cold job time over the second's job CPU
    spread on ``cores`` cores busy all along (the least time that CPU can take).  Rounds pair in order."""
    return [a["cold"] / (b["cold_cpu"] / cores) for a, b in zip(first, second)]


def _run(args, where: pathlib.Path, master: str, out: pathlib.Path, bound: bool = False) -> dict:
    source = str(where / ("pubs.parquet" if args.format == "parquet" else "pubs.jsonl"))
    cmd = [sys.executable, __file__, "--measure", master, "--source", source, "--data", str(where / "qm"),
           "--out", str(out), "--driver-memory", args.driver_memory]
    cmd += ["--bound"] if bound else (["--warm"] if args.warm else [])
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subs", type=int, default=100_000)
    ap.add_argument("--publications", type=int, default=1_000_000)
    ap.add_argument("--topics", type=int, default=100_000)
    ap.add_argument("--masters", default="local[1],local[2]", help="two masters: the second is scaled over the first")
    ap.add_argument("--rounds", type=int, default=2, help="runs of each master, alternated (best and median)")
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--inputs", help="where the generated inputs are kept (reused when present)")
    ap.add_argument("--driver-memory", default="6g", help="Spark driver memory (local mode: all of it)")
    ap.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl",
                    help="the publications file the runs read (Parquet written once from the same rows)")
    ap.add_argument("--warm", action="store_true", help="also a second job in each run's session (a warm JVM)")
    ap.add_argument("--bound", action="store_true", help="also the I/O bound, cold, on the last master, each round")
    ap.add_argument("--single", action="store_true", help="also the same routing in one process without Spark")
    ap.add_argument("--no-single", action="store_true",
                    help=argparse.SUPPRESS)  # the default now; kept for old commands
    ap.add_argument("--measure", metavar="MASTER", help=argparse.SUPPRESS)  # one run, in a fresh process
    ap.add_argument("--source", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        return measure(args)

    where = inputs(args)
    if args.rounds < 1:
        return 0  # the inputs only
    masters = args.masters.split(",")
    results: dict[str, list[dict]] = {m: [] for m in masters}
    bounds: list[dict] = []
    single = None
    with tempfile.TemporaryDirectory(prefix="qmlite-pipe-out-") as tmp:
        for n in range(args.rounds):
            # Alternate the order round by round: neither master always runs first (or last).
            for master in (masters if n % 2 == 0 else masters[::-1]):
                measured = _run(args, where, master, pathlib.Path(tmp) / "out")
                results[master].append(measured)
                print(f"# round {n + 1}, {master}: session {measured['session']:.1f}s, "
                      f"job cold {measured['cold']:.1f}s ({measured['cold_cpu']:.1f} CPU s)"
                      + (f", warm {measured['warm']:.1f}s" if "warm" in measured else ""), file=sys.stderr, flush=True)
            if args.bound:
                bounds.append(_run(args, where, masters[-1], pathlib.Path(tmp) / "bound", bound=True))
                print(f"# round {n + 1}, bound on {masters[-1]}: {bounds[-1]['cold']:.1f}s", file=sys.stderr,
                      flush=True)
    if args.single:
        from qmlite.pipeline import routes
        from qmlite.registry.storage.catalog import Registry

        reg = Registry.open_readonly(where / "qm")
        t0 = time.perf_counter()
        with open(where / "pubs.jsonl") as f:
            rows = ((json.loads(line), n) for n, line in enumerate(f, 1))
            delivered = sum(1 for _ in routes.route_rows(rows, reg))
        single = (time.perf_counter() - t0, delivered)

    pubs = args.publications
    print(f"\n{pubs:,} publications ({args.format}), {args.subs:,} subscriptions, {args.topics:,} topics; "
          f"{args.rounds} fresh-JVM runs of each master, alternated")
    print("\n| run | job s, best | job s, median | publications/s, best | session start s | job CPU s, median "
          "| deliveries |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    best = {}
    for master in masters:
        runs = results[master]
        kinds = ("cold", "warm") if args.warm else ("cold",)
        for kind in kinds:
            secs = [r[kind] for r in runs]
            best[(master, kind)] = min(secs)
            print(f"| Spark {master}, {kind} JVM | {min(secs):.1f} | {statistics.median(secs):.1f} | "
                  f"{pubs / min(secs):,.0f} | {statistics.median(r['session'] for r in runs):.1f} | "
                  f"{statistics.median(r[kind + '_cpu'] for r in runs):.1f} | {runs[0]['deliveries']:,} |")
    if bounds:
        secs = [b["cold"] for b in bounds]
        print(f"| bound: Spark {masters[-1]}, cold, read and write only | {min(secs):.1f} | "
              f"{statistics.median(secs):.1f} | "
              f"{pubs / min(secs):,.0f} | {statistics.median(b['session'] for b in bounds):.1f} | "
              f"{statistics.median(b['cold_cpu'] for b in bounds):.1f} | |")
    if single:
        print(f"| one process, no Spark | {single[0]:.1f} | | {pubs / single[0]:,.0f} | | | {single[1]:,} |")
    if len(masters) == 2:
        one, two = masters
        cold_two = best[(two, "cold")]
        rate = pubs / cold_two
        per_round = [a["cold"] / b["cold"] for a, b in zip(results[one], results[two])]
        scaling = best[(one, "cold")] / cold_two
        print(f"\n{two} cold: {rate:,.0f} publications/s (best of {args.rounds}); target >= {TARGET_RATE:,}: "
              f"{'MET' if rate >= TARGET_RATE else 'MISSED'}")
        print(f"{two} over {one}, cold: {scaling:.2f}x (best over best; per round "
              f"{', '.join(f'{r:.2f}x' for r in per_round)}); target >= {TARGET_SCALING}x: "
              f"{'MET' if scaling >= TARGET_SCALING else 'MISSED'}")
        # The most the second master could scale by with the CPU its job took: done in CPU / its cores, every core
        # busy from the job's first instant to its last (docs/decisions.md SK7).  A cold JVM's compilers, its
        # collector and the driver's Python run beside the first master's one task thread on the machine's other
        # cores, so its job takes less than its CPU; the second master has no idle core to lend them.
        cores = _cores(two)
        ceilings = scaling_ceilings(results[one], results[two], cores)
        print(f"{two} over {one}, ceiling (each round: {one}'s job over {two}'s CPU on {cores} busy cores): "
              + ", ".join(f"{c:.2f}x" for c in ceilings)
              + f"; cores used: {one} " + ", ".join(f"{r['cold_cpu'] / r['cold']:.2f}" for r in results[one])
              + f", {two} " + ", ".join(f"{r['cold_cpu'] / r['cold']:.2f}" for r in results[two]))
        with_start = pubs / min(r["cold"] + r["session"] for r in results[two])
        print(f"{two} cold with the session start counted: {with_start:,.0f} publications/s")
        if bounds:
            print(f"{two} cold job over the cold I/O bound: {cold_two / min(b['cold'] for b in bounds):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
