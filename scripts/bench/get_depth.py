#!/usr/bin/env python3
"""MQGET latency against queue depth: does a get cost more when the queue holds 100,000 messages?

For each depth in ``--depths`` (default 1, 10,000 and 100,000, all in one run against one server
process), on a queue of its own (BENCH.DEPTH.<depth>, a local queue defined through PCF with
MaxQDepth 999,999,999):

1. Fill: ``depth`` non-persistent 100-byte messages, from ``--fill-connections`` concurrent
   connections (our client runs one call at a time per connection, so that is its pipelining), in
   units of work of ``--fill-commit`` puts (MQPMO_SYNCPOINT + MQCMIT; 0 = NO_SYNCPOINT).  MQINQ
   checks CurrentQDepth.
2. Measure, on one connection, for ``--seconds`` seconds after ``--warmup`` seconds, repeating:
   * ``get first``: MQGET, destructive, MQGMO_NO_WAIT | NO_SYNCPOINT, MatchOptions MQMO_NONE (the
     message at the head of the queue) -- timed;
   * MQPUT of one message, so the depth stays constant (not timed);
   * ``get by MsgId``: MQGET with MQMO_MATCH_MSG_ID of the message just put (the newest, at the tail
     of the queue: a matcher that scans from the head pays for the whole queue) -- timed;
   * MQPUT of one message again (not timed).
   Only the MQGET round trips are timed (client call to reply, over loopback).  MQINQ checks the
   depth again afterwards, then the queue is deleted (Purge yes).

The report gives count, mean, p50, p99 and max per depth and kind of get, then the ratio of the mean
at the largest depth to the mean at the smallest (target for get first: <= 1.5x).  The server is
``python -m qmlite serve --port 0`` in its own process on a fresh throwaway data directory, stopped
with SIGTERM at the end.

    python scripts/bench/get_depth.py
    python scripts/bench/get_depth.py --depths 1,1000 --seconds 2 --warmup 0.5 --json /tmp/depth.json
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

import _common as B

MSG_SIZE = 100
TARGET_RATIO = 1.5
KINDS = ("get first", "get by MsgId (newest)")


async def _measure_depth(qm, port: int, server_pid: int, depth: int, args) -> dict:
    import trio

    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO

    queue = f"BENCH.DEPTH.{depth}"
    await B.define_local_queue(qm, queue)
    fill_s = await B.fill(port, queue, depth, size=MSG_SIZE, persistent=False,
                          connections=args.fill_connections, per_commit=args.fill_commit)
    before = await B.current_depth(qm, queue)
    if before != depth:
        raise SystemExit(f"{queue}: filled to {depth} but MQINQ says CurrentQDepth {before}")

    payload = b"D" * MSG_SIZE
    put_md = MQMD(Persistence=C.MQPER_NOT_PERSISTENT)
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING)
    lat_first: list[float] = []
    lat_match: list[float] = []
    cpu = B.CpuWindow({"server": server_pid, "client": os.getpid()})
    hobj, _ = await qm.open(MQOD(ObjectName=queue),
                            C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING)
    try:
        ws = trio.current_time() + args.warmup
        we = ws + args.seconds
        started = False
        while True:
            now = trio.current_time()
            if now >= we:
                break
            measuring = now >= ws
            if measuring and not started:
                cpu.start()
                started = True
            gmo = MQGMO(Version=C.MQGMO_VERSION_2, Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT,
                        MatchOptions=C.MQMO_NONE)
            t0 = time.perf_counter()
            _, _, data = await qm.get(hobj, MQMD(), gmo, MSG_SIZE)
            t1 = time.perf_counter()
            if len(data) != MSG_SIZE:
                raise RuntimeError(f"get first: {len(data)} bytes, not {MSG_SIZE}")
            newest, _ = await qm.put(hobj, put_md, pmo, payload)
            gmo = MQGMO(Version=C.MQGMO_VERSION_2, Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT,
                        MatchOptions=C.MQMO_MATCH_MSG_ID)
            t2 = time.perf_counter()
            got, _, _ = await qm.get(hobj, MQMD(MsgId=newest.MsgId), gmo, MSG_SIZE)
            t3 = time.perf_counter()
            if got.MsgId != newest.MsgId:
                raise RuntimeError("get by MsgId returned another message")
            await qm.put(hobj, put_md, pmo, payload)
            if measuring:
                lat_first.append(t1 - t0)
                lat_match.append(t3 - t2)
    finally:
        await qm.close(hobj)
    window = cpu.stop() if started else {}
    after = await B.current_depth(qm, queue)
    if after != depth:
        raise SystemExit(f"{queue}: depth {after} after the measurement, not {depth}")
    await B.delete_queue(qm, queue)
    return {"depth": depth, "fill_s": fill_s, "fill_rate": depth / fill_s if fill_s else float("nan"),
            "kinds": {KINDS[0]: B.summary_ms(lat_first), KINDS[1]: B.summary_ms(lat_match)}, **window}


async def _run(port: int, server_pid: int, depths: list[int], args) -> list[dict]:
    results = []
    qm = await B.connect(port)
    try:
        for depth in depths:
            r = await _measure_depth(qm, port, server_pid, depth, args)
            results.append(r)
            f, m = r["kinds"][KINDS[0]], r["kinds"][KINDS[1]]
            print(f"# depth {depth:,}: filled in {r['fill_s']:.1f} s ({r['fill_rate']:,.0f}/s); get first mean "
                  f"{f['mean_ms']:.3f} ms, by MsgId mean {m['mean_ms']:.3f} ms ({f['count']} each; CPU: "
                  f"{B.cpu_note(r) if 'server_cpu' in r else '-'})", file=sys.stderr, flush=True)
    finally:
        await qm.disc()
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depths", default="1,10000,100000", help="comma list of queue depths (default 1,10000,100000)")
    ap.add_argument("--seconds", type=float, default=5.0, help="measurement window per depth (default 5)")
    ap.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per depth (default 1)")
    ap.add_argument("--fill-connections", type=int, default=4,
                    help="concurrent connections filling the queue (default 4)")
    ap.add_argument("--fill-commit", type=int, default=1000,
                    help="puts per unit of work while filling (MQPMO_SYNCPOINT + MQCMIT); 0 = NO_SYNCPOINT "
                         "(default 1000)")
    ap.add_argument("--log-level", default="info", help="the server's --log-level (default info, its default)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    args = ap.parse_args()
    try:
        depths = [int(x) for x in args.depths.split(",") if x.strip()]
    except ValueError:
        ap.error("--depths takes a comma list of integers")
    if not depths or min(depths) < 1 or len(set(depths)) != len(depths):
        ap.error("--depths needs distinct depths >= 1")
    if args.seconds <= 0 or args.warmup < 0 or args.fill_connections < 1 or args.fill_commit < 0:
        ap.error("--seconds > 0, --warmup >= 0, --fill-connections >= 1, --fill-commit >= 0 please")

    import trio

    print(f"# get_depth {time.strftime('%Y-%m-%d %H:%M:%S %Z')} | {os.cpu_count()} CPUs | "
          f"Python {sys.version.split()[0]} | window {args.seconds:g}s after {args.warmup:g}s warm-up per depth | "
          f"{MSG_SIZE} B non-persistent messages, one connection", flush=True)
    with B.ServerProcess(log_level=args.log_level) as server:
        print(f"# server pid {server.pid}, log level {args.log_level}, fresh data dir {server.data_dir}", flush=True)
        results = trio.run(_run, server.port, server.pid, depths, args)

    print()
    print("| depth | MQGET | count | mean ms | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        for kind in KINDS:
            s = r["kinds"][kind]
            print(f"| {r['depth']:,} | {kind} | {s['count']:,} | {s['mean_ms']:.3f} | {s['p50_ms']:.3f} "
                  f"| {s['p99_ms']:.3f} | {s['max_ms']:.3f} |")
    print()
    lo = min(results, key=lambda r: r["depth"])
    hi = max(results, key=lambda r: r["depth"])
    ratios = {}
    for kind in KINDS:
        ratio = hi["kinds"][kind]["mean_ms"] / lo["kinds"][kind]["mean_ms"]
        ratios[kind] = ratio
        verdict = ""
        if kind == KINDS[0]:
            verdict = f" (target <= {TARGET_RATIO:g}x: {'met' if ratio <= TARGET_RATIO else 'NOT MET'})"
        print(f"{kind}: mean at depth {hi['depth']:,} / mean at depth {lo['depth']:,} = {ratio:.2f}x{verdict}")
    noisy = [r["depth"] for r in results if r.get("others_cpu", 0) > 20]
    if noisy:
        print(f"note: other processes used more than 20% of a CPU while depth {', '.join(map(str, noisy))} "
              f"was measured (see stderr)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"results": results, "ratios": ratios,
                                                       "seconds": args.seconds, "warmup": args.warmup,
                                                       "message_size": MSG_SIZE}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
