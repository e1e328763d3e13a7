#!/usr/bin/env python3
"""Restart cost of a big registry: wall time of ``Registry.open`` and peak RSS with N subscriptions.

The data directory is built once (large transactions, put_sub + commit) and cached under /tmp, then
reused; each measurement opens it in a fresh interpreter so the figures are those of a restart.

    python scripts/bench/registry_load.py --count 1000000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import time

QMGR = "QMBENCH"


def bench_subscription(reg, n: int, now: float):
    """A subscription as Create Subscription makes it (PROVIDED destination, generated SubId).

    Topic strings spread over 1,000 branches; one in ten is a topic-scheme wildcard (trie), the
    rest exact strings (hash lookup), so the routing index is rebuilt in both shapes on load.
    """
    from qmlite.registry.objects.definitions import Subscription

    sub_id = reg.ids.sub_id()
    topic = f"bench/b{n % 1000}/+/leaf{n}" if n % 10 == 0 else f"bench/b{n % 1000}/leaf{n}"
    return Subscription(
        name=f"BENCH.SUB.{n:08d}", sub_id=sub_id, topic_string=topic, resolved_topic=topic,
        destination="DEV.QUEUE.1", destination_correl_id=sub_id, sub_user="admin",
        created=now, altered=now,
    )


def prefill(data_dir: pathlib.Path, count: int, *, per_commit: int = 25_000, start: int = 0) -> float:
    """Add ``count`` subscriptions to the registry in ``data_dir``; returns seconds taken."""
    from qmlite.registry.storage.catalog import Registry

    t0 = time.perf_counter()
    reg = Registry.open(data_dir, QMGR, synchronous="NORMAL")
    now = time.time()
    for n in range(start, start + count):
        reg.put_sub(bench_subscription(reg, n, now))
        if (n + 1 - start) % per_commit == 0:
            reg.commit()
    reg.commit()
    reg.close()
    return time.perf_counter() - t0


def cached_dir(count: int) -> pathlib.Path:
    """A data dir with exactly ``count`` bench subscriptions, built on first use."""
    from qmlite.registry.storage import sqlite

    path = pathlib.Path(f"/tmp/qmlite-bench-registry-{count}")
    marker = path / "complete.json"
    if marker.exists():
        info = json.loads(marker.read_text())
        if info.get("count") == count and info.get("schema") == sqlite.SCHEMA_VERSION:
            return path
    shutil.rmtree(path, ignore_errors=True)
    seconds = prefill(path, count)
    marker.write_text(json.dumps({"count": count, "schema": sqlite.SCHEMA_VERSION, "build_s": seconds}))
    print(f"built {path} with {count} subscriptions in {seconds:.1f} s", file=sys.stderr)
    return path


def _status(field: str) -> int:
    """KiB from /proc/self/status.  VmHWM is this process's own peak RSS: unlike ru_maxrss it does
    not inherit the high-water mark of the parent that forked it (Linux keeps that across exec)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def measure(data_dir: pathlib.Path) -> dict:
    """Runs in the child: import first (baseline), then time the open."""
    from qmlite.registry.storage.catalog import Registry

    base_kib = _status("VmHWM")
    t0 = time.perf_counter()
    reg = Registry.open(data_dir, QMGR)
    seconds = time.perf_counter() - t0
    out = {"subs": len(reg.subs), "routes": len(reg.routes), "load_s": seconds,
           "peak_rss_mib": _status("VmHWM") / 1024, "rss_after_mib": _status("VmRSS") / 1024,
           "ru_maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "baseline_mib": base_kib / 1024}
    reg.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1_000_000, help="subscriptions in the registry")
    ap.add_argument("--runs", type=int, default=3, help="fresh-process loads to measure")
    ap.add_argument("--profile", metavar="FILE", help="cProfile one load into FILE (pstats)")
    ap.add_argument("--child", metavar="DIR", help=argparse.SUPPRESS)
    ap.add_argument("--build", type=int, metavar="N", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        if args.profile:
            import cProfile

            cProfile.runctx("measure(pathlib.Path(args.child))", globals(), {"args": args}, args.profile)
            return
        print(json.dumps(measure(pathlib.Path(args.child))))
        return

    if args.build:
        cached_dir(args.build)
        return
    # Built in a child so that this (forking) parent stays small: see _status.
    subprocess.run([sys.executable, os.path.abspath(__file__), "--build", str(args.count)], check=True)
    data_dir = cached_dir(args.count)
    results = []
    for _ in range(args.runs):
        cmd = [sys.executable, os.path.abspath(__file__), "--child", str(data_dir)]
        if args.profile:
            cmd += ["--profile", args.profile]
        proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
        if args.profile:
            print(f"profile written to {args.profile}")
            return
        results.append(json.loads(proc.stdout))
    for r in results:
        assert r["subs"] == args.count + 1, r  # + SYSTEM.DEFAULT.SUB
    best = min(r["load_s"] for r in results)
    worst = max(r["load_s"] for r in results)
    peak = max(r["peak_rss_mib"] for r in results)
    maxrss = max(r["ru_maxrss_mib"] for r in results)
    size = sum(p.stat().st_size for p in data_dir.iterdir()) / 2**20
    print(f"registry_load: subs={args.count} runs={args.runs} load_s best={best:.2f} worst={worst:.2f} "
          f"peak_rss_mib={peak:.0f} (VmHWM; baseline after imports {results[0]['baseline_mib']:.0f}; "
          f"ru_maxrss {maxrss:.0f}) db_mib={size:.0f} "
          f"targets: load<=10s {'OK' if worst <= 10 else 'MISSED'}, rss<=2048MiB {'OK' if peak <= 2048 else 'MISSED'}")


if __name__ == "__main__":
    main()
