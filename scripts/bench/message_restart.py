#!/usr/bin/env python3
"""Restart cost with N persistent messages queued: wall time of ``Registry.open`` and peak RSS.

The data directory is populated once through the server, the honest way: ``python -m qmlite serve``
on the directory, a local queue BENCH.RESTART (MaxQDepth 999,999,999, DefPersistence PERSISTENT)
defined through PCF, then N persistent 100-byte messages put with our client from
``--fill-connections`` concurrent connections in units of work of ``--fill-commit`` puts
(MQPMO_SYNCPOINT + MQCMIT), MQINQ checking CurrentQDepth = N, and the server stopped with SIGTERM.
The directory is cached under /tmp (qmlite-bench-messages-<N>) and reused while its marker says it
was built for N messages with the current store schema and a load found them all (``--rebuild``
forces a new one).

Each of ``--runs`` measurements opens it in a fresh interpreter (imports first, then the timed
``Registry.open(data_dir, "QM1")``) and reports seconds, VmHWM (that process's own peak RSS) and the
depth of BENCH.RESTART in the loaded registry, which proves the messages came back (targets for
1,000,000 messages: <= 10 s, <= 2 GiB).  Then the server itself is restarted on the directory once:
its own "started in N ms" figure, its VmHWM, and CurrentQDepth through MQINQ.

If the messages did not survive the restart (a server that keeps messages in memory only), the
script says so, drops the cache marker and exits with status 1; the load figures are then those of
an empty queue.

    python scripts/bench/message_restart.py --count 1000000 --runs 3
    python scripts/bench/message_restart.py --count 2000 --runs 1
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import _common as B

QUEUE = "BENCH.RESTART"
MSG_SIZE = 100
TARGET_LOAD_S = 10.0
TARGET_RSS_MIB = 2048.0


def _schema() -> int:
    from qmlite.registry.storage import sqlite

    return sqlite.SCHEMA_VERSION


def cached_dir(count: int) -> pathlib.Path:
    return pathlib.Path(f"/tmp/qmlite-bench-messages-{count}")


def cache_valid(path: pathlib.Path, count: int) -> bool:
    marker = path / "complete.json"
    if not marker.exists():
        return False
    info = json.loads(marker.read_text())
    return info.get("count") == count and info.get("schema") == _schema()


def build(path: pathlib.Path, count: int, args) -> dict:
    """Populate ``path`` through a server process and our client; returns what the build saw."""
    import trio

    shutil.rmtree(path, ignore_errors=True)
    t0 = time.perf_counter()
    server = B.ServerProcess(path, log_level=args.log_level)
    try:
        async def populate() -> tuple[float, int]:
            qm = await B.connect(server.port)
            try:
                await B.define_local_queue(qm, QUEUE, persistent=True)
                seconds = await B.fill(server.port, QUEUE, count, size=MSG_SIZE, persistent=True,
                                       connections=args.fill_connections, per_commit=args.fill_commit)
                return seconds, await B.current_depth(qm, QUEUE)
            finally:
                await qm.disc()

        fill_s, depth = trio.run(populate)
    finally:
        rc = server.stop()
    if depth != count:
        raise SystemExit(f"put {count} messages on {QUEUE} but MQINQ said CurrentQDepth {depth}")
    if rc != 0:
        raise SystemExit(f"the server exited with status {rc} when stopped after the fill")
    info = {"count": count, "schema": _schema(), "fill_s": fill_s, "build_s": time.perf_counter() - t0,
            "fill_connections": args.fill_connections, "fill_commit": args.fill_commit}
    (path / "complete.json").write_text(json.dumps(info))
    return info


def measure(data_dir: pathlib.Path) -> dict:
    """Runs in the child: import first (baseline), then time the open."""
    from qmlite.registry.storage.catalog import Registry

    base_kib = B.proc_status_kib("VmHWM")
    t0 = time.perf_counter()
    reg = Registry.open(data_dir, B.QMGR)
    seconds = time.perf_counter() - t0
    out = {"load_s": seconds, "peak_rss_mib": B.proc_status_kib("VmHWM") / 1024,
           "rss_after_mib": B.proc_status_kib("VmRSS") / 1024, "baseline_mib": base_kib / 1024,
           "queue_defined": QUEUE in reg.queues, "depth": reg.messages.depth(QUEUE)}
    reg.close()
    return out


def server_restart(data_dir: pathlib.Path, log_level: str) -> dict:
    import trio

    server = B.ServerProcess(data_dir, log_level=log_level)
    try:
        peak = server.status_kib("VmHWM") / 1024

        async def depth() -> int:
            qm = await B.connect(server.port)
            try:
                return await B.current_depth(qm, QUEUE)
            finally:
                await qm.disc()

        d = trio.run(depth)
    finally:
        server.stop()
    return {"started_ms": server.started_ms, "ready_after_s": server.ready_after_s, "peak_rss_mib": peak,
            "depth": d}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1_000_000, help="persistent messages queued (default 1,000,000)")
    ap.add_argument("--runs", type=int, default=3, help="fresh-process loads to measure (default 3)")
    ap.add_argument("--rebuild", action="store_true", help="populate the data directory again even if cached")
    ap.add_argument("--fill-connections", type=int, default=4,
                    help="concurrent connections putting the messages (default 4)")
    ap.add_argument("--fill-commit", type=int, default=1000,
                    help="puts per unit of work while populating (MQPMO_SYNCPOINT + MQCMIT) (default 1000)")
    ap.add_argument("--log-level", default="warning", help="the server's --log-level (default warning)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    ap.add_argument("--child", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        print(json.dumps(measure(pathlib.Path(args.child))))
        return 0
    if args.count < 1 or args.runs < 1 or args.fill_connections < 1 or args.fill_commit < 1:
        ap.error("--count, --runs, --fill-connections and --fill-commit must be >= 1")

    data_dir = cached_dir(args.count)
    print(f"# message_restart {time.strftime('%Y-%m-%d %H:%M:%S %Z')} | {os.cpu_count()} CPUs | "
          f"Python {sys.version.split()[0]} | {args.count:,} persistent {MSG_SIZE}-byte messages on {QUEUE}",
          flush=True)
    if args.rebuild or not cache_valid(data_dir, args.count):
        print(f"# populating {data_dir} through the server ...", flush=True)
        info = build(data_dir, args.count, args)
        print(f"# populated in {info['build_s']:.1f} s (puts {info['fill_s']:.1f} s, "
              f"{args.count / info['fill_s']:,.0f}/s, {args.fill_connections} connections, "
              f"MQCMIT every {args.fill_commit}); MQINQ CurrentQDepth {args.count:,} before the stop", flush=True)
    else:
        info = json.loads((data_dir / "complete.json").read_text())
        print(f"# reusing {data_dir} (built in {info['build_s']:.1f} s; --rebuild to build it again)", flush=True)

    results = []
    for _ in range(args.runs):
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(data_dir)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr[-4000:], file=sys.stderr)
            raise SystemExit(f"loading {data_dir} in a fresh process failed (exit {proc.returncode}); see above")
        results.append(json.loads(proc.stdout))
    restart = server_restart(data_dir, args.log_level)

    best = min(r["load_s"] for r in results)
    worst = max(r["load_s"] for r in results)
    peak = max(r["peak_rss_mib"] for r in results)
    depths = sorted({r["depth"] for r in results})
    size = sum(p.stat().st_size for p in data_dir.iterdir() if p.is_file()) / 2**20
    kept = depths == [args.count] and restart["depth"] == args.count
    print()
    print("| measurement | figure |")
    print("|---|---|")
    print(f"| Registry.open, {args.runs} fresh process{'es' if args.runs != 1 else ''} | best {best:.3f} s, "
          f"worst {worst:.3f} s |")
    print(f"| peak RSS (VmHWM) | {peak:.0f} MiB (after imports {results[0]['baseline_mib']:.0f} MiB) |")
    print(f"| {QUEUE} depth in the loaded registry | {', '.join(f'{d:,}' for d in depths)} of {args.count:,} |")
    print(f"| server restart (its ready line) | started in {restart['started_ms']} ms; ready "
          f"{restart['ready_after_s']:.2f} s after exec; VmHWM {restart['peak_rss_mib']:.0f} MiB |")
    print(f"| {QUEUE} CurrentQDepth through MQINQ after the restart | {restart['depth']:,} of {args.count:,} |")
    print(f"| data directory ({data_dir}) | {size:.1f} MiB |")
    print()
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"count": args.count, "runs": results, "server": restart,
                                                       "build": info, "db_mib": size, "kept": kept}, indent=1))
    if not kept:
        (data_dir / "complete.json").unlink(missing_ok=True)  # the next run builds it again
        print(f"MESSAGES NOT KEPT: {args.count:,} persistent messages were on {QUEUE} when the server stopped; "
              f"after the restart the loaded registry holds {', '.join(map(str, depths))} and the restarted "
              f"server reports {restart['depth']}.  This server does not persist messages yet (in memory "
              f"only), so the load time and RSS above are those of an empty queue and say nothing about the "
              f"targets (<= {TARGET_LOAD_S:g} s, <= {TARGET_RSS_MIB:.0f} MiB).")
        return 1
    print(f"message_restart: messages={args.count} runs={args.runs} load_s best={best:.2f} worst={worst:.2f} "
          f"peak_rss_mib={peak:.0f} depth={args.count} db_mib={size:.0f} targets: "
          f"load<={TARGET_LOAD_S:g}s {'OK' if worst <= TARGET_LOAD_S else 'MISSED'}, "
          f"rss<={TARGET_RSS_MIB:.0f}MiB {'OK' if peak <= TARGET_RSS_MIB else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
