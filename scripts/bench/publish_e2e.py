#!/usr/bin/env python3
"""Publications against plain MQPUTs, end to end over loopback through IBM's ``ibmmq`` (issue 9).

One ``qmlite serve`` process (port 0, throwaway data directory).  On one ibmmq connection (through
qmlite's ``ibmmqc`` transport), alternating in the same run:

* ``put``   -- ``Queue.put`` of a 256-byte non-persistent message to a local queue (the bound);
* ``pub/1`` -- ``Topic.pub`` of the same message to a topic with 1 matching subscription;
* ``pub/10`` -- the same to a topic with 10 matching subscriptions.

The subscriptions are administered ones (PCF Create Subscription, made through ibmmq's PCFExecute)
to local queues with a MaxQDepth large enough that no copy is ever refused; every queue is cleared
between rounds (PCF Clear Queue).  Each figure is calls/s over ``--seconds`` after ``--warmup``;
``--rounds`` keeps each one's best round.  Targets: pub/1 >= 80% and pub/10 >= 40% of put.

ibmmq's own cost per call (about 1 ms through today's transport, issue 12) hides the server's, so
``--client qmlite`` runs the same three calls through qmlite's trio client (a few times faster per
call), which shows what publishing costs the server next to a put.

    python scripts/bench/publish_e2e.py
    python scripts/bench/publish_e2e.py --client qmlite
    python scripts/bench/publish_e2e.py --seconds 2 --warmup 0.5 --rounds 1
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import _common as B

SIZE = 256
TARGETS = {"pub/1": 0.80, "pub/10": 0.40}
MAX_DEPTH = 999_999_999


def _setup(pcf, CMQC, CMQCFC) -> None:
    def queue(name: str) -> None:
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQIA_MAX_Q_DEPTH: MAX_DEPTH, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})

    queue("BENCH.PUT")
    for topic, count in (("bench/one", 1), ("bench/ten", 10)):
        for i in range(count):
            name = f"BENCH.{topic.split('/')[1].upper()}.{i}"
            queue(name)
            pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name, CMQC.MQCA_TOPIC_STRING: topic,
                                           CMQCFC.MQCACF_DESTINATION: name, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})


def _clear(pcf, CMQC) -> None:
    names = ["BENCH.PUT"] + [f"BENCH.ONE.{i}" for i in range(1)] + [f"BENCH.TEN.{i}" for i in range(10)]
    for name in names:
        pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: name})


def _rate(call, seconds: float, warmup: float) -> float:
    end_warm = time.perf_counter() + warmup
    while time.perf_counter() < end_warm:
        call()
    n = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while True:
        call()
        n += 1
        if n % 32 == 0 and time.perf_counter() >= end:
            break
    return n / (time.perf_counter() - t0)


async def _qmlite_client(port: int, args, body: bytes) -> dict:
    from qmlite.pcf import constants as C
    from qmlite.pcf import pcf as P
    from qmlite.pcf.mqi import MQCHARV, MQMD, MQOD, MQPMO

    qm = await B.connect(port)
    hq, _ = await qm.open(MQOD(ObjectName="BENCH.PUT"), C.MQOO_OUTPUT)
    topics = {}
    for name, string in (("pub/1", "bench/one"), ("pub/10", "bench/ten")):
        topics[name], _ = await qm.open(MQOD(Version=4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV(string)),
                                        C.MQOO_OUTPUT)
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)

    def caller(hobj):
        async def call():
            await qm.put(hobj, MQMD(Format=C.MQFMT_STRING, Persistence=0), pmo, body)
        return call

    calls = {"put": caller(hq), "pub/1": caller(topics["pub/1"]), "pub/10": caller(topics["pub/10"])}

    async def rate(call) -> float:
        end_warm = time.perf_counter() + args.warmup
        while time.perf_counter() < end_warm:
            await call()
        n, t0 = 0, time.perf_counter()
        while True:
            await call()
            n += 1
            if n % 32 == 0 and time.perf_counter() >= t0 + args.seconds:
                return n / (time.perf_counter() - t0)

    best = {k: 0.0 for k in calls}
    for r in range(args.rounds):
        for name in (list(calls) if r % 2 == 0 else list(calls)[::-1]):
            value = await rate(calls[name])
            best[name] = max(best[name], value)
            print(f"# round {r + 1}: {name:>6} {value:,.0f}/s", file=sys.stderr, flush=True)
            await qm.close(hq)
            for queue in ["BENCH.PUT"] + [f"BENCH.ONE.{i}" for i in range(1)] + [f"BENCH.TEN.{i}" for i in range(10)]:
                await qm.pcf(C.MQCMD_CLEAR_Q, [P.CFST(C.MQCA_Q_NAME, queue)])
            hq, _ = await qm.open(MQOD(ObjectName="BENCH.PUT"), C.MQOO_OUTPUT)
            calls["put"] = caller(hq)
    await qm.disc()
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--client", choices=["ibmmq", "qmlite"], default="ibmmq")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()

    import ibmmq
    from ibmmq import CMQC, CMQCFC

    body = b"p" * SIZE
    with B.ServerProcess() as server:
        if args.client == "qmlite":
            import trio

            qm = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({server.port})", B.USER, B.PASSWORD)
            pcf = ibmmq.PCFExecute(qm)
            _setup(pcf, CMQC, CMQCFC)
            pcf.disconnect()
            qm.disconnect()
            best = trio.run(_qmlite_client, server.port, args, body)
            return _report(best, "qmlite's trio client", args)
        qm = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({server.port})", B.USER, B.PASSWORD)
        pcf = ibmmq.PCFExecute(qm)
        _setup(pcf, CMQC, CMQCFC)
        queue = ibmmq.Queue(qm, "BENCH.PUT")
        queue.open("BENCH.PUT", CMQC.MQOO_OUTPUT)
        one = ibmmq.Topic(qm, topic_string="bench/one")
        one.open(open_opts=CMQC.MQOO_OUTPUT)
        ten = ibmmq.Topic(qm, topic_string="bench/ten")
        ten.open(open_opts=CMQC.MQOO_OUTPUT)
        md = ibmmq.MD(Format=CMQC.MQFMT_STRING, Persistence=CMQC.MQPER_NOT_PERSISTENT)
        pmo = ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID)
        calls = {"put": lambda: queue.put(body, md, pmo), "pub/1": lambda: one.pub(body, md, pmo),
                 "pub/10": lambda: ten.pub(body, md, pmo)}
        best = {k: 0.0 for k in calls}
        for r in range(args.rounds):
            order = list(calls) if r % 2 == 0 else list(calls)[::-1]
            for name in order:
                rate = _rate(calls[name], args.seconds, args.warmup)
                best[name] = max(best[name], rate)
                print(f"# round {r + 1}: {name:>6} {rate:,.0f}/s", file=sys.stderr, flush=True)
                queue.close()  # Clear Queue refuses an open queue
                _clear(pcf, CMQC)
                queue.open("BENCH.PUT", CMQC.MQOO_OUTPUT)
        queue.close()
        one.close()
        ten.close()
        pcf.disconnect()
        qm.disconnect()
    return _report(best, "ibmmq", args)


def _report(best: dict, client: str, args) -> int:
    print(f"| call through {client} ({SIZE} B, non-persistent) | calls/s | share of MQPUT | target |")
    print("|---|---:|---:|---|")
    for name in best:
        share = best[name] / best["put"]
        target = TARGETS.get(name)
        verdict = "bound" if target is None else f">= {target:.0%}: {'met' if share >= target else 'NOT met'}"
        print(f"| {name} | {best[name]:,.0f} | {share:.0%} | {verdict} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(best, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
