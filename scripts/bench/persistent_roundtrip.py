#!/usr/bin/env python3
"""MQPUT + MQGET round trips per second, persistent against non-persistent, over loopback.

Each round trip, on one connection: MQPUT of a 1 KiB message on DEV.QUEUE.1 (MQPMO_NO_SYNCPOINT,
NEW_MSG_ID; MQMD.Persistence = MQPER_PERSISTENT or MQPER_NOT_PERSISTENT), then MQGET of that same
message (MQGMO_NO_WAIT, NO_SYNCPOINT, MATCH_MSG_ID with the MsgId the put returned) on the one handle
opened OUTPUT + INPUT_SHARED -- server_roundtrip.py's ``putget`` pattern, so the non-persistent figures
compare with its.  Connections share the queue; each gets only its own messages.  A persistent
message is on disk (SQLite, fsync; group commit) before MQPUT replies, and its destructive MQGET is
durable before the MQGET reply, so a persistent round trip pays for two durable commits.

Both modes are measured in the same run against the same server process (``python -m qmlite serve
--port 0`` on a fresh throwaway data directory, stopped with SIGTERM at the end), for each connection
count: the connections are concurrent trio tasks in this process (the client), the server is another
process.  Per measurement: connect, warm up for ``--warmup`` seconds, then count the round trips that
complete in the next ``--seconds`` seconds.  ``--rounds`` > 1 repeats each measurement, alternating
which mode goes first, and the table keeps each one's best round (other people's load on the shared
2 cores only ever slows a round down; every round is printed on stderr).  The table gives rate, p50
and p99 per mode and connection count, the CPU the server and the client used in the window and what
other processes used, then the ratio persistent / non-persistent (target at 16 connections: >= 60%).
The server's sync helper process (registry/storage/fsync.py, started once several connections are
open) is sampled apart: its CPU, and its answers, one per group commit (its write system calls, from
/proc/<pid>/io), so a result gives the group commits (``fdatasync``s) per round trip and the CPU of
server and helper together per round trip -- figures the neighbours' load moves little.  Groups synced on
the event loop itself (one connection; several, while every answer waits for a commit: decision JN9)
are not seen there: their group commits show as ``-``.

    python scripts/bench/persistent_roundtrip.py --seconds 8 --warmup 2
    python scripts/bench/persistent_roundtrip.py --seconds 1 --warmup 0.5 --connections 1,4 --json /tmp/prt.json
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

import _common as B

QUEUE = "DEV.QUEUE.1"
MSG_SIZE = 1024
MODES = ("non-persistent", "persistent")
TARGET_CONNECTIONS = 16
TARGET_RATIO = 0.60  # issue 24 target 4 (issue 8's was 0.50)


async def _round_trips(qm, conn_no: int, persistent: bool, ws: float, we: float, lat: list[float]) -> None:
    import trio

    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO

    persistence = C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT
    payload = bytes([65 + conn_no % 26]) * MSG_SIZE
    hobj, _ = await qm.open(MQOD(ObjectName=QUEUE), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING)
    try:
        while True:
            t0 = time.perf_counter()
            md, _ = await qm.put(hobj, MQMD(Persistence=persistence),
                                 MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID), payload)
            gmo = MQGMO(Version=C.MQGMO_VERSION_2, Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT,
                        MatchOptions=C.MQMO_MATCH_MSG_ID)
            got, _, data = await qm.get(hobj, MQMD(MsgId=md.MsgId), gmo, MSG_SIZE)
            t1 = time.perf_counter()
            if data != payload:
                raise RuntimeError(f"connection {conn_no}: got {len(data)} bytes that are not ours")
            if got.Persistence != persistence:
                raise RuntimeError(f"connection {conn_no}: put Persistence {persistence}, got {got.Persistence}")
            now = trio.current_time()
            if now > we:
                return
            if now >= ws:
                lat.append(t1 - t0)
    finally:
        await qm.close(hobj)


def _sync_helper(server_pid: int) -> int | None:
    """The server's sync helper process (a child running registry/storage/fsync.py), if it runs."""
    for task in pathlib.Path(f"/proc/{server_pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            if "fsync.py" in pathlib.Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace"):
                return int(child)
    return None


def _writes(pid: int | None) -> int:
    """A process's write system calls so far (the helper writes one answer per sync plan)."""
    if pid is None:
        return 0
    for line in pathlib.Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("syscw:"):
            return int(line.split()[1])
    return 0


async def _measure(port: int, server_pid: int, persistent: bool, connections: int, args) -> dict:
    import trio

    conns = [await B.connect(port) for _ in range(connections)]
    lat: list[float] = []
    ws = trio.current_time() + args.warmup
    we = ws + args.seconds
    sampled: dict = {}

    async def sampler() -> None:
        await trio.sleep_until(ws)
        helper = _sync_helper(server_pid)  # started, if at all, by the warm-up's commits
        pids = {"server": server_pid, "client": os.getpid()} | ({"helper": helper} if helper else {})
        cpu = B.CpuWindow(pids)
        syncs = _writes(helper)
        cpu.start()
        await trio.sleep_until(we)
        sampled.update(cpu.stop())
        # None: synced on the loop -- a lone connection's groups, and since JN9 every group while all the
        # server answers waited for one; the helper syncs only groups sent off the loop
        sampled["helper_syncs"] = ((_writes(helper) - syncs) or None) if helper else None
        sampled.setdefault("helper_cpu", 0.0)

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sampler)
            for i, qm in enumerate(conns):
                nursery.start_soon(_round_trips, qm, i, persistent, ws, we, lat)
    finally:
        for qm in conns:
            await qm.disc()
    out = {"mode": "persistent" if persistent else "non-persistent", "connections": connections,
           "rate": len(lat) / args.seconds, **B.summary_ms(lat), **sampled}
    # The server's CPU per round trip: what persistence costs the server, whatever the disk's latency
    # and the neighbours' load (the window's CPU seconds over the round trips that completed in it).
    out["server_us"] = sampled["server_cpu"] / 100 * args.seconds / max(1, len(lat)) * 1e6
    out["helper_us"] = sampled["helper_cpu"] / 100 * args.seconds / max(1, len(lat)) * 1e6
    syncs = sampled["helper_syncs"]
    out["syncs_per_rt"] = syncs / max(1, len(lat)) if syncs is not None else None
    return out


def _syncs(r: dict) -> str:
    return "-" if r["syncs_per_rt"] is None else f"{r['syncs_per_rt']:.2f}"


async def _run(port: int, server_pid: int, conn_counts: list[int], args) -> list[dict]:
    results = []
    for n in conn_counts:
        for k in range(args.rounds):
            for mode in (MODES if k % 2 == 0 else MODES[::-1]):  # alternate which mode goes first
                r = await _measure(port, server_pid, mode == "persistent", n, args)
                r["round"] = k + 1
                results.append(r)
                print(f"# round {k + 1}: {r['mode']:>14} x{n:<3} {r['rate']:>9,.0f}/s p50={r['p50_ms']:.2f}ms "
                      f"p99={r['p99_ms']:.2f}ms server {r['server_us']:.0f} µs/round trip "
                      f"+ sync helper {r['helper_us']:.0f} µs, {_syncs(r)} syncs/round trip "
                      f"({r['count']} in {args.seconds:g}s; CPU: {B.cpu_note(r)}, helper {r['helper_cpu']:.0f}%)",
                      file=sys.stderr, flush=True)
    qm = await B.connect(port)
    try:
        left = await B.current_depth(qm, QUEUE)
    finally:
        await qm.disc()
    if left:
        raise SystemExit(f"{left} messages left on {QUEUE}: a round trip did not get its own message back")
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=8.0, help="measurement window per result (default 8)")
    ap.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds before each window (default 2)")
    ap.add_argument("--connections", default="1,16", help="comma list of connection counts (default 1,16)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure each mode and connection count this many times, alternating which mode goes "
                         "first; the table shows each one's best round by rate (default 1)")
    ap.add_argument("--log-level", default="info", help="the server's --log-level (default info, its default)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    ap.add_argument("--data-parent", metavar="DIR", type=pathlib.Path,
                    help="make the server's fresh data directory under DIR (default: under /tmp).  "
                         "--data-parent /dev/shm takes the disk's fsync latency out (tmpfs): what is left is "
                         "the server's own work for persistence, for development on a machine whose disk is shared")
    B.add_awake_option(ap)
    args = ap.parse_args()
    conn_counts = [int(x) for x in args.connections.split(",") if x.strip()]
    if not conn_counts or min(conn_counts) < 1:
        ap.error("--connections needs counts >= 1")
    if args.rounds < 1 or args.seconds <= 0 or args.warmup < 0:
        ap.error("--rounds >= 1, --seconds > 0 and --warmup >= 0 please")

    import shutil
    import tempfile

    import trio

    print(f"# persistent_roundtrip {time.strftime('%Y-%m-%d %H:%M:%S %Z')} | {os.cpu_count()} CPUs | "
          f"Python {sys.version.split()[0]} | window {args.seconds:g}s after {args.warmup:g}s warm-up | "
          f"{MSG_SIZE} B on {QUEUE}, matched by MsgId", flush=True)
    print("# " + B.idle_note(B.idle_policy(), args.awake),
          flush=True)
    data_dir = None
    if args.data_parent is not None:
        data_dir = pathlib.Path(tempfile.mkdtemp(prefix="qmlite-bench-", dir=args.data_parent)) / "data"
    try:
        with B.Awake(args.awake), B.ServerProcess(data_dir, log_level=args.log_level) as server:
            print(f"# server pid {server.pid}, log level {args.log_level}, fresh data dir {server.data_dir}",
                  flush=True)
            results = trio.run(_run, server.port, server.pid, conn_counts, args)
    finally:
        if data_dir is not None:
            shutil.rmtree(data_dir.parent, ignore_errors=True)

    best: dict[tuple[str, int], dict] = {}
    for r in results:
        key = (r["mode"], r["connections"])
        if key not in best or r["rate"] > best[key]["rate"]:
            best[key] = r
    table = [best[(mode, n)] for n in conn_counts for mode in MODES]
    print()
    if args.rounds > 1:
        print(f"Best of {args.rounds} rounds by rate (every round is on stderr):")
        print()
    print("| mode | connections | rate/s | p50 ms | p99 ms | server CPU per round trip "
          "| sync helper CPU per round trip | group commits per round trip | CPU in the window |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in table:
        print(f"| {r['mode']} | {r['connections']} | {r['rate']:,.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} "
              f"| {r['server_us']:.0f} µs | {r['helper_us']:.0f} µs | {_syncs(r)} "
              f"| {B.cpu_note(r)}, helper {r['helper_cpu']:.0f}% |")
    print()
    ratios = {}
    for n in conn_counts:
        rate = {r["mode"]: r["rate"] for r in table if r["connections"] == n}
        ratio = rate["persistent"] / rate["non-persistent"] if rate.get("non-persistent") else float("nan")
        ratios[n] = ratio
        verdict = ""
        if n == TARGET_CONNECTIONS:
            verdict = f" (target >= {TARGET_RATIO:.0%}: {'met' if ratio >= TARGET_RATIO else 'NOT MET'})"
        print(f"persistent / non-persistent at {n} connection{'s' if n != 1 else ''}: {ratio:.0%}{verdict}")
        us = {r["mode"]: r["server_us"] for r in table if r["connections"] == n}
        print(f"  server CPU per round trip at {n}: persistent {us['persistent']:.0f} µs, non-persistent "
              f"{us['non-persistent']:.0f} µs "
              f"(non-persistent / persistent {us['non-persistent'] / us['persistent']:.0%}: "
              f"the rate ratio a CPU-bound server would reach)")
    if TARGET_CONNECTIONS not in conn_counts:
        print(f"(the target applies at {TARGET_CONNECTIONS} connections, which this run did not measure)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"results": results, "best": table, "ratios": ratios,
                                                       "seconds": args.seconds, "warmup": args.warmup,
                                                       "message_size": MSG_SIZE, "queue": QUEUE,
                                                       "idle": B.idle_policy(), "awake": args.awake}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
