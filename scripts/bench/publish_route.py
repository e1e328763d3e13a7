#!/usr/bin/env python3
"""Publications routed per second in-process, with 100k and 1M subscriptions (issue 9).

A QueueManager on a throwaway data directory holds N administered subscriptions (exact 5-level topic
strings, all to one provided local queue; put straight into the registry's maps as a restart loads
them, not written to disk), and each publication's topic matches exactly one of them.  Three figures per size, in the
same run:

* ``match``   -- ``reg.routes.match(topic)``: the matcher alone (the bound: routing cannot be faster);
* ``route``   -- ``routing.subscribers(reg, pub)``: every routing rule (levels, selectors, groups, ...);
* ``publish`` -- ``QueueManager.publish``: routing plus the copy (MQMD, properties) put on the queue,
  non-persistent, 256-byte body; the queue is cleared between rounds so it never fills.

The target is >= 200k routed/s at 1M subscriptions.  ``--rounds`` keeps each figure's best round.

    python scripts/bench/publish_route.py
    python scripts/bench/publish_route.py --sizes 100000 --publications 20000 --rounds 1
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

TARGET = 200_000
QUEUE = "BENCH.ROUTE.Q"


def _build(n: int):
    from qmlite.pcf import constants as C
    from qmlite.registry.objects.definitions import Queue, Subscription
    from qmlite.registry.qmgr import QueueManager

    tmp = tempfile.TemporaryDirectory(prefix="qmlite-route-")
    qm = QueueManager.open(pathlib.Path(tmp.name), synchronous="OFF")
    reg = qm.registry
    reg.put_queue(Queue(QUEUE, max_depth=999_999_999))
    qm.flush()
    t0 = time.perf_counter()
    topics = []
    for i in range(n):
        topic = f"bench/{i % 97}/{i % 1009}/{i}/price"
        sub = Subscription(f"BENCH.SUB.{i}", reg.ids.sub_id(), topic_string=topic, resolved_topic=topic,
                           destination=QUEUE, destination_qmgr="QM1", sub_type=C.MQSUBTYPE_ADMIN,
                           pub_priority=C.MQPRI_PRIORITY_AS_PUBLISHED)
        sub.destination_correl_id = sub.sub_id
        reg.subs[sub.name] = sub
        reg.subs_by_id[sub.sub_id] = sub
        reg.routes.add(sub.sub_id, topic, C.MQWS_TOPIC)
        topics.append(topic)
    built = time.perf_counter() - t0
    return tmp, qm, topics, built


def _rate(fn, items) -> float:
    t0 = time.perf_counter()
    for item in items:
        fn(item)
    return len(items) / (time.perf_counter() - t0)


def measure(n: int, count: int, rounds: int, seed: int) -> dict:
    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQMD
    from qmlite.registry.pubsub import routing

    rng = random.Random(seed)
    tmp, qm, topics, built = _build(n)
    try:
        reg = qm.registry
        pubs = [rng.choice(topics) for _ in range(count)]
        body = b"x" * 256
        md = MQMD(Format=C.MQFMT_STRING, Persistence=C.MQPER_NOT_PERSISTENT)
        assert len(reg.routes.match(pubs[0])) == 1, "each publication must match exactly one subscription"
        best = {"match": 0.0, "route": 0.0, "publish": 0.0}
        for _ in range(rounds):
            best["match"] = max(best["match"], _rate(reg.routes.match, pubs))
            best["route"] = max(best["route"], _rate(
                lambda t: routing.subscribers(reg, routing.Publication(t, md, body)), pubs))
            rate = _rate(lambda t: qm.publish(t, MQMD(Format=C.MQFMT_STRING, Persistence=0), body), pubs)
            best["publish"] = max(best["publish"], rate)
            delivered = reg.messages.depth(QUEUE)
            assert delivered == count, f"{delivered} copies for {count} publications"
            reg.drop_messages(QUEUE, keep_queue=True)
        return {"subscriptions": n, "publications": count, "build_s": built, **best}
    finally:
        qm.shutdown()
        tmp.cleanup()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000", help="subscription counts (default 100000,1000000)")
    ap.add_argument("--publications", type=int, default=100_000, help="publications per round (default 100000)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; the best of each figure is kept (default 3)")
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    results = []
    for n in (int(x) for x in args.sizes.split(",")):
        r = measure(n, args.publications, args.rounds, args.seed)
        results.append(r)
        print(f"# {n:,} subscriptions built in {r['build_s']:.1f}s: match {r['match']:,.0f}/s, "
              f"route {r['route']:,.0f}/s, publish {r['publish']:,.0f}/s", file=sys.stderr, flush=True)
    print("| subscriptions | matcher alone /s | routed (all rules) /s | published to a queue /s | target |")
    print("|---:|---:|---:|---:|---|")
    for r in results:
        print(f"| {r['subscriptions']:,} | {r['match']:,.0f} | {r['route']:,.0f} | {r['publish']:,.0f} | "
              f"routed >= {TARGET:,}/s: {'met' if r['route'] >= TARGET else 'NOT met'} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
