#!/usr/bin/env python3
"""pymqi against ibmmq over qmlite's one transport, beside a raw-socket bound (issue 15).

One ``qmlite serve`` process (port 0, throwaway data directory, log level warning) and one client
process (this one).  Measured, each ``--repeat`` times in turn, on one connection each:

* ``ibmmq``: IBM's ``ibmmq`` package over qmlite's ``ibmmqc``: ``Queue.put`` of ``--messages``
  messages of ``--size`` bytes (non-persistent, default MQPMO), then ``Queue.get`` of all of them
  (default MQGMO: no wait), on one queue handle opened INPUT_AS_Q_DEF + OUTPUT.
* ``pymqi``: pymqi 1.12 over qmlite's ``pymqe`` (the same calls, the same queue).
* ``pymqe``: the transport alone: qmlite's ``pymqe.MQPUT``/``MQGET`` called directly with structures
  pymqi packed once before the loop (pymqi's own per-call Python left out).
* ``bound``: the same MQPUT and MQGET requests as raw bytes on a plain blocking socket.  The bytes are
  those pymqi sends (captured from one pymqi put and one get on the connection, which is then taken
  over); the timed loop is ``sendall(request)`` and reading the reply segment (its length from the
  TSH header), with no client code at all: what a client in this process could at best achieve
  against this server.

Figures: calls per second (messages / wall seconds of the loop), the best of the repeats, and the
client's and server's CPU over that loop (2 shared cores: the server process and this one).  The
bound's lines show its request and reply bytes (also in the JSON, ``steps``); the bench exits 3,
naming the bound, when the bound is implausible (a size of 0, or slower than a client it bounds:
scripts/bench/bounds.py, issue 35).

    python scripts/bench/pymqi_vs_ibmmq.py
    python scripts/bench/pymqi_vs_ibmmq.py --messages 20000 --repeat 5 --json /tmp/pymqi.json
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import socket
import struct
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import _common as B  # noqa: E402
from bounds import Bound, fail_if_implausible, problems, sizes_text  # noqa: E402

QUEUE = "BENCH.PYMQI"


def _define_queue(port: int) -> None:
    import trio

    async def go():
        qm = await B.connect(port)
        try:
            await B.define_local_queue(qm, QUEUE)
        finally:
            await qm.disc()

    trio.run(go)


def _measure(loop_put, loop_get, n: int, server_pid: int) -> dict:
    out = {}
    for name, loop in (("put", loop_put), ("get", loop_get)):
        cpu = B.CpuWindow({"server": server_pid, "client": os.getpid()})
        cpu.start()
        t0 = time.perf_counter()
        loop(n)
        secs = time.perf_counter() - t0
        out[name] = {"per_s": n / secs, "seconds": secs, **cpu.stop()}
    return out


def _run_client(module_name: str, port: int, n: int, size: int, server_pid: int) -> dict:
    """Queue.put then Queue.get through ``ibmmq`` or ``pymqi``: the two share their API."""
    import importlib

    mq = importlib.import_module(module_name)
    CMQC = mq.CMQC
    qm = mq.connect(B.QMGR, B.CHANNEL, f"127.0.0.1({port})", B.USER, B.PASSWORD)
    q = mq.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    body = module_name[0].encode() * size

    def put(count):
        for _ in range(count):
            q.put(body)

    def get(count):
        for _ in range(count):
            q.get()

    try:
        return _measure(put, get, n, server_pid)
    finally:
        q.close()
        qm.disconnect()


def run_ibmmq(port: int, n: int, size: int, server_pid: int) -> dict:
    return _run_client("ibmmq", port, n, size, server_pid)


def run_pymqi(port: int, n: int, size: int, server_pid: int) -> dict:
    return _run_client("pymqi", port, n, size, server_pid)


def run_pymqe(port: int, n: int, size: int, server_pid: int) -> dict:
    """The transport alone: pymqe.MQPUT / MQGET with structures pymqi packed once, outside the loop
    (what pymqi's Queue.put/get cost beyond this is pymqi's own Python: an MD and a PMO or GMO built,
    packed and unpacked per call)."""
    import pymqi
    from pymqi import CMQC

    import pymqe

    qm = pymqi.connect(B.QMGR, B.CHANNEL, f"127.0.0.1({port})", B.USER, B.PASSWORD)
    h = qm.get_handle()
    hobj, _od, cc, rc = pymqe.MQOPEN(h, pymqi.OD(ObjectName=QUEUE.encode()).pack(),
                                     CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    assert cc == 0, rc
    md, pmo, gmo = pymqi.MD().pack(), pymqi.PMO().pack(), pymqi.GMO().pack()
    body = b"e" * size

    def put(count):
        for _ in range(count):
            pymqe.MQPUT(h, hobj, md, pmo, body)

    def get(count):
        for _ in range(count):
            pymqe.MQGET(h, hobj, md, gmo, 4096)

    try:
        return _measure(put, get, n, server_pid)
    finally:
        pymqe.MQCLOSE(h, hobj, 0)
        qm.disconnect()


def _read_segment(sock: socket.socket, buf: bytearray) -> None:
    """Read one whole TSH segment (its length is the big-endian word at offset 4) into ``buf``."""
    del buf[:]
    while len(buf) < 8:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the socket")
        buf += chunk
    length = struct.unpack_from(">i", buf, 4)[0]
    while len(buf) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the socket")
        buf += chunk
    if len(buf) != length:
        raise RuntimeError("more than one segment in a reply")


def run_bound(port: int, n: int, size: int, server_pid: int) -> dict:
    """pymqi's MQPUT and MQGET requests, captured once, then replayed raw on the same socket."""
    import pymqi
    from pymqi import CMQC

    from ibmmqc import _mqi

    qm = pymqi.connect(B.QMGR, B.CHANNEL, f"127.0.0.1({port})", B.USER, B.PASSWORD)
    q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    client = _mqi._connections[qm.get_handle()].qm  # noqa: SLF001 - the connection to take over
    sent: list[bytes] = []
    real_sendall = client._sendall  # noqa: SLF001
    client._sendall = lambda data: (sent.append(bytes(data)), real_sendall(data))[1]  # noqa: SLF001
    q.put(b"b" * size)
    put_request = sent[-1]
    assert q.get() == b"b" * size
    get_request = sent[-1]
    client._sendall = real_sendall  # noqa: SLF001
    sock: socket.socket = client._sock  # noqa: SLF001
    sock.settimeout(None)
    buf = bytearray()

    def put(count):
        for _ in range(count):
            sock.sendall(put_request)
            _read_segment(sock, buf)

    def get(count):
        for _ in range(count):
            sock.sendall(get_request)
            _read_segment(sock, buf)
        if len(buf) < size or bytes(buf[-size:]) != b"b" * size:
            raise RuntimeError("the raw MQGET did not return the message")

    # one put and one get before the clock: the sizes the bound moves (issue 35: a bound shows them)
    sock.sendall(put_request)
    _read_segment(sock, buf)
    put_sizes = [(len(put_request), len(buf))]
    sock.sendall(get_request)
    _read_segment(sock, buf)
    get_sizes = [(len(get_request), len(buf))]
    try:
        out = _measure(put, get, n, server_pid)
    finally:
        q.close()
        qm.disconnect()
    out["put"]["steps"], out["get"]["steps"] = put_sizes, get_sizes
    return out


def bound_problems(best: dict) -> list[str]:
    """The raw-socket bound checked (scripts/bench/bounds.py): no size of 0, and not slower than any
    client it bounds.  Its put and get are not compared with each other: the server's MQPUT and
    MQGET are different work."""
    if "bound" not in best:
        return []
    found = [Bound(f"bound: {verb}", r["per_s"], tuple(map(tuple, r["steps"]))) for verb, r in best["bound"].items()]
    bounded = [(f"bound: {verb}", f"{c}: {verb}", best[c][verb]["per_s"])
               for c in best if c != "bound" for verb in ("put", "get")]
    return problems(found, bounded, compare=set())


RUNNERS = {"ibmmq": run_ibmmq, "pymqi": run_pymqi, "pymqe": run_pymqe, "bound": run_bound}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=10_000, help="puts, then gets, per timed run")
    ap.add_argument("--size", type=int, default=100, help="message bytes")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per client, interleaved; the best counts")
    ap.add_argument("--clients", default="bound,ibmmq,pymqi,pymqe")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args()
    import pymqi  # noqa: F401 - fail early when pymqi is missing (see docs/pymqi.md for the install)

    clients = [c for c in args.clients.split(",") if c]
    best: dict = {c: {} for c in clients}
    with B.ServerProcess(log_level="warning") as server:
        _define_queue(server.port)
        for _ in range(args.repeat):
            for c in clients:
                res = RUNNERS[c](server.port, args.messages, args.size, server.pid)
                for verb, r in res.items():
                    if r["per_s"] > best[c].get(verb, {}).get("per_s", 0):
                        best[c][verb] = r
    print(f"# {args.messages:,} messages of {args.size} bytes, one connection, best of {args.repeat}")
    for verb in ("put", "get"):
        bound = best.get("bound", {}).get(verb, {}).get("per_s")
        for c in clients:
            r = best[c][verb]
            rel = f"  {100 * r['per_s'] / bound:5.1f}% of bound" if bound else ""
            label = "MQ" + verb.upper() if c in ("pymqe", "bound") else "Queue." + verb
            sizes = f", {sizes_text(r['steps'])} bytes" if "steps" in r else ""
            print(f"{c:6} {label + ':':10} {r['per_s']:9,.0f}/s{rel}  ({B.cpu_note(r)}{sizes})")
    if "ibmmq" in best and "pymqi" in best:
        for verb in ("put", "get"):
            ratio = best["pymqi"][verb]["per_s"] / best["ibmmq"][verb]["per_s"]
            print(f"pymqi/ibmmq {verb}: {ratio:.3f}")
    implausible = bound_problems(best)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"messages": args.messages, "size": args.size,
                                                       "repeat": args.repeat, "best": best,
                                                       "implausible": implausible}, indent=2))
    return fail_if_implausible(implausible)


if __name__ == "__main__":
    raise SystemExit(main())
