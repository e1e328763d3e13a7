#!/usr/bin/env python3
"""``qmlite pipeline route`` throughput: publications/s on Spark local[1] and local[2], and the same
replay in one process without Spark (issue 10).

A data directory with ``--subs`` administered subscriptions (exact 5-level topics, 20% with one "+")
and a JSON-lines file of ``--publications`` publications over ``--topics`` distinct topics (each
topic a subscription's, made concrete; 64-byte bodies given by ``size``).  Each Spark run is the
whole job (read, route, write Parquet deliveries by queue, summary) in a fresh session; the figure
is publications / wall seconds.  The issue's target is 10M publications over 100k topics against
100k subscriptions at >= 250k/s on local[2] and >= 1.7x over local[1].

The bound, measured in the same run on the last master: Spark reading the same publications and
writing each one once as Parquet partitioned by one of 10 queue names (no routing, no join, no
summary): what the input and output alone cost on this machine.

    python scripts/bench/pipeline_route.py                       # 1M publications
    python scripts/bench/pipeline_route.py --publications 10000000
    python scripts/bench/pipeline_route.py --publications 10000000 --format parquet --no-single
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))


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


def _io_bound(session, source: str, out: pathlib.Path) -> float:
    """Seconds for Spark to read the publications and write each once, partitioned by one of 10
    queue names, as Parquet: the job's input and output without routing, joins or summary."""
    from pyspark.sql import functions as F

    from qmlite.pipeline import route_job

    t0 = time.perf_counter()
    pubs = route_job.read_publications(session, source, numbered=False)
    queue = F.concat(F.lit("BENCH.PIPE."), F.pmod(F.xxhash64("topic"), F.lit(10)).cast("string"))
    pubs.withColumn("destination_queue", queue).write.mode("overwrite") \
        .partitionBy("destination_queue").parquet(str(out))
    return time.perf_counter() - t0


def measure(args) -> int:
    """One master in this process: the job cold, then again warm, then (``--bound``) the I/O bound;
    prints one JSON line."""
    from qmlite.pipeline import route_job, spark

    session = spark.session(args.measure, shuffle_partitions=8, driver_memory=args.driver_memory)
    try:
        out = {}
        for run in ("cold", "warm"):
            t0 = time.perf_counter()
            summary = route_job.route(session, args.source, args.data, f"{args.out}-{run}")
            out[run] = time.perf_counter() - t0
            out["deliveries"] = summary["deliveries"]
        if args.bound:
            out["bound"] = _io_bound(session, args.source, pathlib.Path(f"{args.out}-bound"))
    finally:
        session.stop()
    print(json.dumps(out))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subs", type=int, default=100_000)
    ap.add_argument("--publications", type=int, default=1_000_000)
    ap.add_argument("--topics", type=int, default=100_000)
    ap.add_argument("--masters", default="local[1],local[2]")
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--driver-memory", default="6g", help="Spark driver memory (local mode: all of it)")
    ap.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl",
                    help="the publications file the Spark runs read (Parquet written from the same rows)")
    ap.add_argument("--no-single", action="store_true", help="skip the one-process run (minutes at 10M)")
    ap.add_argument("--measure", metavar="MASTER", help=argparse.SUPPRESS)  # one master, in a fresh process
    ap.add_argument("--source", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--bound", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        return measure(args)

    from qmlite.pipeline import route_job, routes, spark
    from qmlite.registry.storage.catalog import Registry

    rnd = random.Random(args.seed)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="qmlite-pipe-"))
    try:
        t0 = time.perf_counter()
        topics = _registry(tmp / "qm", args.subs, rnd)
        pubs = tmp / "pubs.jsonl"
        _publications(pubs, topics, args.publications, args.topics, rnd)
        print(f"# inputs built in {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)
        results = {}
        if not args.no_single:
            reg = Registry.open_readonly(tmp / "qm")
            t0 = time.perf_counter()
            with open(pubs) as f:
                rows = ((json.loads(line), n) for n, line in enumerate(f, 1))
                delivered = sum(1 for _ in routes.route_rows(rows, reg))
            results["one process, no Spark"] = (time.perf_counter() - t0, delivered)
            print(f"# one process: {results['one process, no Spark'][0]:.1f}s", file=sys.stderr, flush=True)
        source = str(pubs)
        if args.format == "parquet":
            source = str(tmp / "pubs.parquet")
            session = spark.session("local[2]", driver_memory=args.driver_memory)
            try:
                session.read.json(str(pubs), schema="id long, topic string, size long, timestamp string") \
                    .write.parquet(source)
            finally:
                session.stop()
        masters = args.masters.split(",")
        for master in masters:
            # Each master in a fresh process: a JVM left from an earlier session is warm (its JIT has
            # compiled the job's code), which would flatter whichever master runs second.
            out = subprocess.run([sys.executable, __file__, "--measure", master, "--source", source,
                                  "--data", str(tmp / "qm"), "--out", str(tmp / "out"),
                                  "--driver-memory", args.driver_memory] + (["--bound"] if master == masters[-1] else []),
                                 check=True, capture_output=True, text=True).stdout
            measured = json.loads(out.strip().splitlines()[-1])
            results[f"Spark {master}, cold JVM (a fresh `qmlite pipeline route`)"] = (measured["cold"], measured["deliveries"])
            results[f"Spark {master}, warm JVM (a second job in the session)"] = (measured["warm"], measured["deliveries"])
            if "bound" in measured:
                results[f"bound: Spark {master}, warm, reads and writes them, no routing"] = \
                    (measured["bound"], args.publications)
            print(f"# {master}: cold {measured['cold']:.1f}s, warm {measured['warm']:.1f}s", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"| run ({args.publications:,} publications, {args.subs:,} subscriptions, {args.topics:,} topics) "
          "| seconds | publications/s | deliveries |")
    print("|---|---:|---:|---:|")
    for name, (seconds, delivered) in results.items():
        print(f"| {name} | {seconds:.1f} | {args.publications / seconds:,.0f} | {delivered:,} |")
    if len(masters) == 2:
        for kind in ("cold", "warm"):
            a, b = (results[k][0] for m in masters for k in results if k.startswith(f"Spark {m}, {kind}"))
            print(f"\nscaling {masters[1]} over {masters[0]}, {kind} JVM: {a / b:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
