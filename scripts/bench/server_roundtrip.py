#!/usr/bin/env python3
"""Network round trips per second against ``qmlite serve`` over loopback, with our async client (issue 4).

Measurements (``--which``):

* ``pcf``    -- PCF Create Subscription through ``AsyncQueueManager.pcf`` (the command and reply queues
  held open per connection, as MQ Explorer does: per command one MQPUT and the MQGET of the reply).
* ``pcfexec`` -- the same plus an MQOPEN and MQCLOSE of SYSTEM.ADMIN.COMMAND.QUEUE around every command,
  as pymqi's and ibmmq's PCFExecute do (per command MQOPEN, MQPUT, MQCLOSE, MQGET of the reply on the connection's
  PYMQPCF.* reply queue).  Each command: a unique SubName, TopicString ``bench/<n>``, Destination
  DEV.QUEUE.1 (DestinationClass PROVIDED, the default), or DestinationClass MANAGED with ``--managed``.
* ``putget`` -- MQPUT of a 1 KiB non-persistent message (NO_SYNCPOINT) on DEV.QUEUE.1, then MQGET
  (NO_WAIT, NO_SYNCPOINT, MATCH_MSG_ID with the MsgId the put returned), on one handle opened
  OUTPUT + INPUT_SHARED.  Connections share the queue and each only gets its own messages.

By default the script starts the server itself as a separate process (``python -m qmlite serve`` on a
throwaway data directory, once per ``--log-levels`` entry) and stops it with SIGTERM at the end; with
``--external HOST:PORT`` it measures a running server instead and deletes the subscriptions it created.

The client side runs in worker processes (``--client-procs``, default 1): each worker is one trio
process running its share of the connections as concurrent tasks (one connection per task).  Each
worker connects, warms up for ``--warmup`` seconds, then counts the round trips that complete within
the common measurement window of ``--seconds`` seconds (wall clock, shared by all workers).  The
parent samples the CPU time of the server and of the workers over the window from /proc, so every
result line says which side was busy.

    python scripts/bench/server_roundtrip.py --seconds 10 --connections 1,16 --which pcf,putget
    python scripts/bench/server_roundtrip.py --external 127.0.0.1:1414 --which putget
    python scripts/bench/server_roundtrip.py --which pcf --connections 1 --server-profile /tmp/pcf.prof
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

CHANNEL = "DEV.ADMIN.SVRCONN"
USER, PASSWORD = "admin", "passw0rd"
QUEUE = "DEV.QUEUE.1"
MSG_SIZE = 1024
TICKS = os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------------------------------------
# worker: one trio process, N connections
# ------------------------------------------------------------------------------------------------

async def _pcf_task(qm, spec: dict, conn_no: int, out: dict) -> None:
    from qmlite.pcf import constants as C
    from qmlite.pcf import pcf as P

    ws, we = spec["window_start"], spec["window_end"]
    tag = spec["tag"]
    base = (spec["proc"] * 1000 + conn_no) * 10_000_000
    managed = spec["managed"]
    lat = out["latencies"]
    created = out["created"]
    n = 0
    while True:
        seq = base + n
        n += 1
        name = f"BENCH.{tag}.{seq}"
        params = [P.CFST(C.MQCACF_SUB_NAME, name), P.CFST(C.MQCA_TOPIC_STRING, f"bench/{seq}")]
        if managed:
            params.append(P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED))
        else:
            params.append(P.CFST(C.MQCACF_DESTINATION, QUEUE))
        t0 = time.perf_counter()
        if spec["which"] == "pcfexec":  # PCFExecute's extra round trips: the command queue per command
            from qmlite.pcf.mqi import MQOD

            hcmd, _ = await qm.open(MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"), C.MQOO_OUTPUT)
            await qm.close(hcmd)
        await qm.pcf(C.MQCMD_CREATE_SUBSCRIPTION, params)  # raises MQIError unless every response is OK
        t1 = time.perf_counter()
        created.append(name)
        now = time.time()
        if now > we:
            return
        if now >= ws:
            lat.append(t1 - t0)


async def _putget_task(qm, spec: dict, conn_no: int, out: dict) -> None:
    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO

    ws, we = spec["window_start"], spec["window_end"]
    lat = out["latencies"]
    payload = bytes([65 + conn_no % 26]) * MSG_SIZE
    hobj, _ = await qm.open(MQOD(ObjectName=QUEUE), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING)
    try:
        while True:
            t0 = time.perf_counter()
            md, _ = await qm.put(hobj, MQMD(Persistence=C.MQPER_NOT_PERSISTENT),
                                 MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID), payload)
            gmo = MQGMO(Version=C.MQGMO_VERSION_2, Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT,
                        MatchOptions=C.MQMO_MATCH_MSG_ID)
            _, _, data = await qm.get(hobj, MQMD(MsgId=md.MsgId), gmo, MSG_SIZE)
            t1 = time.perf_counter()
            if data != payload:
                raise RuntimeError(f"connection {conn_no}: got {len(data)} bytes that are not ours")
            now = time.time()
            if now > we:
                return
            if now >= ws:
                lat.append(t1 - t0)
    finally:
        await qm.close(hobj)


async def _cleanup(qm, names: list[str]) -> int:
    from qmlite.client.errors import MQIError
    from qmlite.pcf import constants as C
    from qmlite.pcf import pcf as P

    deleted = 0
    for name in names:
        try:
            await qm.pcf(C.MQCMD_DELETE_SUBSCRIPTION, [P.CFST(C.MQCACF_SUB_NAME, name)])
            deleted += 1
        except MQIError:
            pass
    return deleted


async def _worker(spec: dict) -> dict:
    import trio

    from qmlite.client.aio import AsyncQueueManager

    conns = [await AsyncQueueManager.connect(spec["host"], spec["port"], CHANNEL, "", user=USER, password=PASSWORD)
             for _ in range(spec["connections"])]
    outs = [{"latencies": [], "created": []} for _ in conns]
    task = _pcf_task if spec["which"] in ("pcf", "pcfexec") else _putget_task
    async with trio.open_nursery() as nursery:
        for i, (qm, out) in enumerate(zip(conns, outs)):
            nursery.start_soon(task, qm, spec, i, out)
    deleted = 0
    if spec["cleanup"]:
        async with trio.open_nursery() as nursery:
            counts = []

            async def clean(qm, names):
                counts.append(await _cleanup(qm, names))
            for qm, out in zip(conns, outs):
                nursery.start_soon(clean, qm, out["created"])
        deleted = sum(counts)
    for qm in conns:
        await qm.disc()
    return {"latencies": [x for out in outs for x in out["latencies"]],
            "created": sum(len(out["created"]) for out in outs), "deleted": deleted}


def worker_main(spec_json: str) -> int:
    import trio

    spec = json.loads(spec_json)
    result = trio.run(_worker, spec)
    sys.stdout.write(json.dumps(result))
    sys.stdout.flush()
    return 0


# ------------------------------------------------------------------------------------------------
# parent: server process, workers, CPU sampling, report
# ------------------------------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (its threads included) in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def machine_ticks() -> tuple[int, int, int]:
    """(total, idle, iowait) jiffies over all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v[:8]), v[3], v[4]


class Server:
    def __init__(self, port: int, log_level: str, profile: str | None) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="qmlite-bench-server-", dir="/tmp")
        self.data_dir = pathlib.Path(self.tmp.name) / "data"
        self.log_path = pathlib.Path(self.tmp.name) / "server.log"
        cmd = [sys.executable]
        if profile:
            cmd += ["-m", "cProfile", "-o", profile]
        cmd += ["-m", "qmlite", "serve", "--port", str(port), "--data-dir", str(self.data_dir),
                "--log-level", log_level]
        self.cmd = cmd
        self.log_file = open(self.log_path, "wb")  # the server's stderr (its structlog output)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log_file)
        deadline = time.monotonic() + 60
        line = b""
        while not line.endswith(b"\n"):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise SystemExit(f"server did not start: {' '.join(cmd)}\n{self.log_path.read_text()[-2000:]}")
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                line += os.read(self.proc.stdout.fileno(), 4096)
        self.ready_line = line.decode().strip()
        if not self.ready_line.startswith("qmlite ready:"):
            self.stop()
            raise SystemExit(f"unexpected first line from the server: {self.ready_line!r}")
        self.port = int(self.ready_line.split(" listening on ", 1)[1].split()[0].rsplit(":", 1)[1])
        self.pid = self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log_file.close()
        self.tmp.cleanup()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, int(round(q * len(sorted_values) + 0.5)) - 1))  # nearest rank
    return sorted_values[k]


_runs = 0


def measure(which: str, connections: int, host: str, port: int, server_pid: int | None, args, tag: str) -> dict:
    global _runs
    _runs += 1
    tag = f"{tag}.{_runs}"  # SubNames unique across measurements too
    procs = max(1, min(args.client_procs, connections))
    shares = [connections // procs + (1 if i < connections % procs else 0) for i in range(procs)]
    connect_allowance = 0.5 + 0.05 * connections
    ws = time.time() + connect_allowance + args.warmup
    we = ws + args.seconds
    workers = []
    for i, share in enumerate(shares):
        spec = {"host": host, "port": port, "which": which, "connections": share, "proc": i, "tag": tag,
                "window_start": ws, "window_end": we, "managed": args.managed,
                "cleanup": which in ("pcf", "pcfexec") and args.external is not None}
        workers.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)],
                                        stdout=subprocess.PIPE))
    pids = ([server_pid] if server_pid else []) + [w.pid for w in workers]
    # The workers count within a shared wall-clock window; the parent samples CPU time at its edges.
    time.sleep(max(0.0, ws - time.time()))
    before = {p: cpu_seconds(p) for p in pids}
    m0 = machine_ticks()
    t0 = time.time()
    time.sleep(max(0.0, we - time.time()))
    after = {p: cpu_seconds(p) for p in pids}
    m1 = machine_ticks()
    span = time.time() - t0
    results = []
    for w in workers:
        out, _ = w.communicate()
        if w.returncode != 0:
            raise SystemExit(f"a client worker failed (exit {w.returncode})")
        results.append(json.loads(out))
    lat = sorted(x for r in results for x in r["latencies"])
    cpu = {p: (after[p] - before[p]) / span * 100 for p in pids}
    return {
        "which": which, "connections": connections, "procs": procs, "count": len(lat),
        "rate": len(lat) / args.seconds,
        "p50_ms": pct(lat, 0.50) * 1000, "p99_ms": pct(lat, 0.99) * 1000, "max_ms": (lat[-1] * 1000 if lat else 0),
        "server_cpu": cpu.get(server_pid) if server_pid else None,
        "client_cpu": [cpu[w.pid] for w in workers],
        "machine_busy": 100 * (1 - (m1[1] - m0[1] + m1[2] - m0[2]) / max(1, m1[0] - m0[0])),
        "machine_iowait": 100 * (m1[2] - m0[2]) / max(1, m1[0] - m0[0]),
        "created": sum(r["created"] for r in results), "deleted": sum(r["deleted"] for r in results),
    }


def describe(r: dict, log_level: str, args) -> str:
    sub = "MANAGED" if args.managed else f"PROVIDED {QUEUE}"
    what = {"pcf": f"PCF Create Subscription ({sub}), our client's pcf()",
            "pcfexec": f"PCF Create Subscription ({sub}), PCFExecute pattern",
            "putget": f"MQPUT+MQGET 1 KiB non-persistent on {QUEUE}"}[r["which"]]
    cpu = ""
    if r["server_cpu"] is not None:
        cpu += f" server_cpu={r['server_cpu']:.0f}%"
    cpu += " client_cpu=" + "+".join(f"{c:.0f}%" for c in r["client_cpu"])
    cpu += f" machine_busy={r['machine_busy']:.0f}% of {os.cpu_count()} CPUs"
    if r["server_cpu"] is not None:  # what neither our server nor our client used: someone else's load
        others = max(0.0, r["machine_busy"] * (os.cpu_count() or 1) - r["server_cpu"] - sum(r["client_cpu"]))
        cpu += f", other processes≈{others:.0f}% of one CPU" + (" (NOISY)" if others > 20 else "")
    extra = f" (deleted {r['deleted']}/{r['created']} subs)" if r["deleted"] else ""
    return (f"{what} | connections={r['connections']} client_procs={r['procs']} server_log={log_level} | "
            f"{r['rate']:,.0f}/s ({r['count']} in {args.seconds:g}s) p50={r['p50_ms']:.2f}ms "
            f"p99={r['p99_ms']:.2f}ms max={r['max_ms']:.2f}ms |{cpu}{extra}")


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        return worker_main(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0, help="measurement window per result (default 10)")
    ap.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds before each window (default 2)")
    ap.add_argument("--connections", default="1,16", help="comma list of connection counts (default 1,16)")
    ap.add_argument("--which", default="pcf,pcfexec,putget", help="comma list: pcf, pcfexec, putget (default all)")
    ap.add_argument("--port", type=int, default=0, help="port for the server we start (default: a free one)")
    ap.add_argument("--external", metavar="HOST:PORT", help="measure an already running server")
    ap.add_argument("--client-procs", type=int, default=1,
                    help="client worker processes sharing the connections (default 1)")
    ap.add_argument("--managed", action="store_true", help="Create Subscription with DestinationClass MANAGED")
    ap.add_argument("--log-levels", default="warning,info",
                    help="server --log-level per server run, comma list (default warning,info)")
    ap.add_argument("--server-profile", metavar="FILE",
                    help="run the server under cProfile (-o FILE; with several log levels, FILE.<level>)")
    ap.add_argument("--json", metavar="FILE", help="also write all results as JSON")
    args = ap.parse_args()

    conn_counts = [int(x) for x in args.connections.split(",") if x]
    which = [x.strip() for x in args.which.split(",") if x.strip()]
    for w in which:
        if w not in ("pcf", "pcfexec", "putget"):
            ap.error(f"unknown measurement {w!r}")
    tag = time.strftime("%H%M%S") + f"{os.getpid() % 1000:03d}"
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')} | {os.cpu_count()} CPUs | Python {sys.version.split()[0]} | "
          f"window {args.seconds:g}s after {args.warmup:g}s warm-up", flush=True)
    all_results = []
    if args.external:
        host, _, port = args.external.rpartition(":")
        for w in which:
            for n in conn_counts:
                r = measure(w, n, host, int(port), None, args, tag)
                r["server_log"] = "external"
                print(describe(r, "external", args), flush=True)
                all_results.append(r)
    else:
        levels = [x for x in args.log_levels.split(",") if x]
        for level in levels:
            profile = args.server_profile
            if profile and len(levels) > 1:
                profile = f"{profile}.{level}"
            server = Server(args.port or free_port(), level, profile)
            try:
                print(f"# server pid {server.pid}: {' '.join(server.cmd)}", flush=True)
                for w in which:
                    for n in conn_counts:
                        r = measure(w, n, "127.0.0.1", server.port, server.pid, args, tag)
                        r["server_log"] = level
                        print(describe(r, level, args), flush=True)
                        all_results.append(r)
            finally:
                server.stop()
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(all_results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
