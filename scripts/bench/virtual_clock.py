"""What the virtual clock costs (issue 23 part 2): IBM's ``ibmmq`` put/get throughput on one connection
against a server with the real clock and one started ``--clock virtual``, both running, rounds taking
turns in the same run; each keeps its best round.  Three calls are timed: MQPUT, MQGET (no wait) and
MQGET with MQGMO_WAIT when the message is already there (the call a waiting consumer makes; a wait that
has to park registers with the virtual clock, one that finds its message does not).  Then the same
in-process, on the domain alone (``QueueManager.put``/``get``, no network), where a clock read is a
larger share of the call.

    python scripts/bench/virtual_clock.py [--calls 5000] [--repeat 5] [--domain-calls 50000]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as B  # noqa: E402

QUEUE = "DEV.QUEUE.1"
BODY = b"x" * 100
KINDS = ("put/s", "get/s", "get wait/s")


def run(port: int, calls: int) -> dict:
    import ibmmq
    from ibmmq import CMQC

    qm = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({port})", B.USER, B.PASSWORD)
    q = ibmmq.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    wait = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=5000)
    try:
        t0 = time.perf_counter()
        for _ in range(calls):
            q.put(BODY)
        t1 = time.perf_counter()
        for _ in range(calls):
            q.get()
        t2 = time.perf_counter()
        for _ in range(calls):
            q.put(BODY)
        t3 = time.perf_counter()
        for _ in range(calls):
            q.get(None, ibmmq.MD(), wait)
        t4 = time.perf_counter()
    finally:
        q.close()
        qm.disconnect()
    return {"put/s": calls / (t1 - t0), "get/s": calls / (t2 - t1), "get wait/s": calls / (t4 - t3)}


def domain(calls: int, virtual: bool) -> dict:
    from qmlite.pcf import constants as C
    from qmlite.pcf import mqi as S
    from qmlite.registry.qmgr import QueueManager
    from qmlite.registry.testing.clock import VirtualClock

    with tempfile.TemporaryDirectory(prefix="qmlite-bench-") as tmp:
        kw = {"clock": VirtualClock()} if virtual else {}
        qm = QueueManager.open(pathlib.Path(tmp), synchronous="OFF", **kw)
        try:
            session = qm.connect("", user="mqm", admin=True)
            handle, _ = qm.open_object(session, S.MQOD(ObjectName=QUEUE), C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
            pmo = S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT)
            gmo = S.MQGMO(Options=C.MQGMO_NO_SYNCPOINT)
            put_s = get_s = 0.0
            chunk = 1000  # below the queue's MaxQDepth (5,000)
            for _ in range(max(1, calls // chunk)):
                t0 = time.perf_counter()
                for _ in range(chunk):
                    qm.put(session, handle.hobj, S.MQMD(Expiry=600), pmo, BODY)  # an expiry: the clock is read
                t1 = time.perf_counter()
                for _ in range(chunk):
                    qm.get(session, handle, S.MQMD(), gmo, 200)
                t2 = time.perf_counter()
                put_s, get_s = put_s + (t1 - t0), get_s + (t2 - t1)
            done = max(1, calls // chunk) * chunk
        finally:
            qm.shutdown()
    return {"put/s": done / put_s, "get/s": done / get_s}


def _table(title: str, best: dict, kinds) -> None:
    print(title)
    print(f"{'call':11} {'real/s':>9} {'virtual/s':>10} {'cost':>6}")
    for name in kinds:
        real, virtual = best["real"][name], best["virtual"][name]
        print(f"{name:11} {real:9.0f} {virtual:10.0f} {100 * (1 - virtual / real):5.1f}%")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--domain-calls", type=int, default=50_000)
    args = ap.parse_args()
    best: dict[str, dict[str, float]] = {"real": {}, "virtual": {}}
    with B.ServerProcess(log_level="warning") as real, \
            B.ServerProcess(log_level="warning", args=("--clock", "virtual")) as virtual:
        for round_no in range(args.repeat):
            order = (("real", real), ("virtual", virtual))
            for name, server in order if round_no % 2 == 0 else order[::-1]:  # neither always goes first
                for kind, rate in run(server.port, args.calls).items():
                    best[name][kind] = max(best[name].get(kind, 0.0), rate)
    _table(f"ibmmq over loopback, {args.calls} calls, best of {args.repeat}:", best, KINDS)
    inproc: dict[str, dict[str, float]] = {"real": {}, "virtual": {}}
    for round_no in range(args.repeat):
        for name in ("real", "virtual") if round_no % 2 == 0 else ("virtual", "real"):
            for kind, rate in domain(args.domain_calls, name == "virtual").items():
                inproc[name][kind] = max(inproc[name].get(kind, 0.0), rate)
    _table(f"domain in-process, {args.domain_calls} calls, best of {args.repeat}:", inproc, ("put/s", "get/s"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
