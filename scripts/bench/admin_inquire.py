#!/usr/bin/env python3
"""Large Inquire answers over loopback: responses per second of Inquire Queue('*') on 10,000 queues and
of Inquire Queue Status('*', HANDLE) with 1,000 open handles (issue 11).

Setup: ``--queues`` local queues BENCH.Q.00000 ... are written into a fresh data directory through the
registry itself (faster than 10,000 Create Queue commands, and the same rows), then one ``qmlite
serve`` process (port 0) starts on it.  The clients' reply queues come from SYSTEM.DEFAULT.MODEL.QUEUE
as it is (MaxQDepth 5,000): the command server's answers are not cut short by it.  ``--handles`` handles are opened with
our async client, MQOO_INPUT_SHARED on BENCH.Q.00000 ... one per queue, spread over connections of at most 250 handles
(MaxHandles is 256) and held open for the whole run.

Measured, each ``--repeat`` times, by two clients:

* ``qmlite``: our AsyncQueueManager.pcf (command and reply queue held open; one MQGET round trip per
  response message, as the client reads each reply with its own MQGET).
* ``ibmmq``: IBM's ``ibmmq`` PCFExecute over qmlite's ``ibmmqc`` transport (MQOPEN/MQPUT/MQCLOSE of the
  command queue per command, then MQGET per response and ibmmq's own PCF parsing in Python).

Commands: Inquire Queue, QName ``*``, every attribute (QAttrs MQIACF_ALL), one response per queue
(the 10,000 BENCH queues plus the default objects); Inquire Queue Status, QName ``*``, StatusType
MQIACF_Q_HANDLE, one response per open handle (the benchmark's plus the command server's).  Figures:
responses/s = responses / wall seconds of the whole command (put to the LAST response), best of the
repeats, with server and client CPU over the timed commands (2 shared cores: a client at 100% is the
bound, not the server).

    python scripts/bench/admin_inquire.py
    python scripts/bench/admin_inquire.py --queues 1000 --handles 100 --repeat 1 --clients qmlite
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import sys
import tempfile
import time

import _common as B

PER_CONNECTION = 250  # handles per connection, below MaxHandles 256
BOUND_QUEUE = "BENCH.BOUND"  # not matched by BENCH.Q.*; its depth is what the bound reads back


def prepare(data_dir: pathlib.Path, queues: int) -> float:
    """Write the BENCH queues with the registry, as Create Queue would (copies of the default local queue)."""
    from qmlite.registry.objects.definitions import stamp_definition
    from qmlite.registry.storage.catalog import Registry

    t0 = time.perf_counter()
    reg = Registry.open(data_dir, B.QMGR, dev_objects=True, synchronous="NORMAL")
    try:
        base = reg.queues["SYSTEM.DEFAULT.LOCAL.QUEUE"]
        now = reg.now()
        for n in range(queues):
            q = dataclasses.replace(base, name=f"BENCH.Q.{n:05d}", description=f"bench queue {n}")
            stamp_definition(q, None, now)
            reg.put_queue(q)
        bound = dataclasses.replace(base, name=BOUND_QUEUE, max_depth=999_999_999)  # the bound's messages
        stamp_definition(bound, None, now)
        reg.put_queue(bound)
        reg.commit()
    finally:
        reg.close()
    return time.perf_counter() - t0


async def open_handles(port: int, count: int) -> list:
    """``count`` MQOO_INPUT_SHARED handles, one per BENCH queue, on connections of PER_CONNECTION."""
    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQOD

    conns = []
    for first in range(0, count, PER_CONNECTION):
        qm = await B.connect(port)
        conns.append(qm)
        for n in range(first, min(count, first + PER_CONNECTION)):
            await qm.open(MQOD(ObjectName=f"BENCH.Q.{n:05d}"), C.MQOO_INPUT_SHARED)
    return conns


def commands():
    from qmlite.pcf import constants as C
    from qmlite.pcf import pcf as P

    return {
        "Inquire Queue(*)": (C.MQCMD_INQUIRE_Q,
                             [P.CFST(C.MQCA_Q_NAME, "*"), P.CFIL(C.MQIACF_Q_ATTRS, (C.MQIACF_ALL,))]),
        "Inquire Queue Status(*) HANDLE": (C.MQCMD_INQUIRE_Q_STATUS, [
            P.CFST(C.MQCA_Q_NAME, "*"), P.CFIN(C.MQIACF_Q_STATUS_TYPE, C.MQIACF_Q_HANDLE)]),
    }


async def run_qmlite(port: int, server_pid: int, repeat: int) -> dict:
    qm = await B.connect(port)
    out = {}
    try:
        for name, (cmd, params) in commands().items():
            await qm.pcf(cmd, params, wait_ms=120_000)  # warm-up: reply queue opened, code paths hot
            best = None
            for _ in range(repeat):
                cpu = B.CpuWindow({"server": server_pid, "client": os.getpid()})
                cpu.start()
                t0 = time.perf_counter()
                responses = await qm.pcf(cmd, params, wait_ms=120_000)
                secs = time.perf_counter() - t0
                result = {"responses": len(responses), "seconds": secs, "per_s": len(responses) / secs,
                          **cpu.stop()}
                if best is None or result["per_s"] > best["per_s"]:
                    best = result
            out[name] = best
    finally:
        await qm.disc()
    return out


def run_ibmmq(port: int, server_pid: int, repeat: int) -> dict:
    import ibmmq
    from ibmmq import CMQC, CMQCFC

    qm = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({port})", B.USER, B.PASSWORD)
    pcf = ibmmq.PCFExecute(qm, response_wait_interval=120_000)
    calls = {
        "Inquire Queue(*)": lambda: pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"*",
                                                         CMQCFC.MQIACF_Q_ATTRS: [CMQCFC.MQIACF_ALL]}),
        "Inquire Queue Status(*) HANDLE": lambda: pcf.MQCMD_INQUIRE_Q_STATUS({
            CMQC.MQCA_Q_NAME: b"*", CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_HANDLE}),
    }
    out = {}
    try:
        answer = len(calls["Inquire Queue(*)"]())  # also a warm-up
        out.update(_ibmmq_bound(qm, server_pid, answer))  # measured first: the handles' queues are idle
        for name, call in calls.items():
            call()  # warm-up
            best = None
            for _ in range(repeat):
                cpu = B.CpuWindow({"server": server_pid, "client": os.getpid()})
                cpu.start()
                t0 = time.perf_counter()
                responses = call()
                secs = time.perf_counter() - t0
                result = {"responses": len(responses), "seconds": secs, "per_s": len(responses) / secs,
                          **cpu.stop()}
                if best is None or result["per_s"] > best["per_s"]:
                    best = result
            out[name] = best
    finally:
        pcf.disconnect()
        qm.disconnect()
    return out


def _ibmmq_bound(qm, server_pid: int, count: int, size: int = 1_500) -> dict:
    """The bound of an answer of ``count`` responses through ibmmq: ``count`` MQGETs of a message the
    size of one Inquire Queue response, from a queue, with no PCF to build or parse."""
    import ibmmq
    from ibmmq import CMQC

    queue = ibmmq.Queue(qm, BOUND_QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        body = b"x" * size
        for _ in range(count):
            queue.put(body)
        cpu = B.CpuWindow({"server": server_pid, "client": os.getpid()})
        cpu.start()
        t0 = time.perf_counter()
        for _ in range(count):
            queue.get()
        secs = time.perf_counter() - t0
        return {f"bound: {count:,} MQGETs of {size:,} bytes": {"responses": count, "seconds": secs,
                                                               "per_s": count / secs, **cpu.stop()}}
    finally:
        queue.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queues", type=int, default=10_000)
    ap.add_argument("--handles", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per command and client; the best counts")
    ap.add_argument("--clients", default="qmlite,ibmmq", help="comma list: qmlite, ibmmq (default both)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args()
    if args.handles > args.queues:
        raise SystemExit("--handles must not exceed --queues (one handle per queue)")

    import trio

    tmp = tempfile.TemporaryDirectory(prefix="qmlite-bench-admin-", dir="/tmp")
    data_dir = pathlib.Path(tmp.name) / "data"
    prep_s = prepare(data_dir, args.queues)
    print(f"# {args.queues:,} queues written in {prep_s:.1f} s", file=sys.stderr, flush=True)
    results: dict = {"queues": args.queues, "handles": args.handles}
    with B.ServerProcess(data_dir, log_level="warning") as server:
        holder: dict = {}

        async def hold_and_measure() -> None:
            conns = await open_handles(server.port, args.handles)
            print(f"# {args.handles:,} handles open on {len(conns)} connections", file=sys.stderr, flush=True)
            try:
                if "qmlite" in args.clients:
                    holder["qmlite"] = await run_qmlite(server.port, server.pid, args.repeat)
                if "ibmmq" in args.clients:
                    # ibmmq blocks: run it on a thread while this loop keeps the handles' connections alive
                    holder["ibmmq"] = await trio.to_thread.run_sync(run_ibmmq, server.port, server.pid, args.repeat)
            finally:
                for qm in conns:
                    await qm.disc()

        trio.run(hold_and_measure)
        results.update(holder)
    tmp.cleanup()
    for client in ("qmlite", "ibmmq"):
        for name, r in results.get(client, {}).items():
            print(f"{client:>6}  {name:<32} {r['responses']:>7,} responses in {r['seconds']:6.2f} s = "
                  f"{r['per_s']:>9,.0f} responses/s  ({B.cpu_note(r)})")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
