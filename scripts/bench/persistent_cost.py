#!/usr/bin/env python3
"""What persistence costs the queue manager itself: CPU per MQPUT + MQGET round trip in the domain.

No sockets, no event loop: ``QueueManager.put`` and ``QueueManager.get`` (1 KiB, by MsgId,
NO_SYNCPOINT) on DEV.QUEUE.1, in groups of ``--group`` round trips whose writes are committed
as the server's group commit does (``take`` + ``write`` + ``sync`` once for the puts, once for the
gets; folds and checkpoints when due), persistent against non-persistent.  The figure is
``time.process_time`` per round trip: this process's CPU, so other people's load on the machine
changes it little (the data directory defaults to /dev/shm, so the disk's latency is not in it
either).  Rounds alternate which mode goes first; the best of each is kept.

    python scripts/bench/persistent_cost.py
    python scripts/bench/persistent_cost.py --count 50000 --group 6 --data-parent /tmp
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import tempfile
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=20_000, help="round trips per measurement (default 20,000)")
    ap.add_argument("--group", type=int, default=16, help="round trips per group commit (default 16)")
    ap.add_argument("--rounds", type=int, default=3, help="measurements per mode, alternated (default 3)")
    ap.add_argument("--data-parent", type=pathlib.Path, default=pathlib.Path("/dev/shm"),
                    help="where the throwaway data directory goes (default /dev/shm)")
    args = ap.parse_args()

    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO
    from qmlite.registry.qmgr import QueueManager

    tmp = pathlib.Path(tempfile.mkdtemp(prefix="qmlite-bench-", dir=args.data_parent))
    qm = QueueManager.open(tmp / "data", "QM1")
    try:
        store = qm.registry.store
        session = qm.connect("QM1", user="admin", admin=True)
        handle, _ = qm.open_object(session, MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        body = b"A" * 1024

        def commit() -> None:
            pending, upto = store.take()
            if pending:
                store.write(pending)
                store.sync()
            store.durable = upto
            if store.maintenance_due():
                store.checkpoint_if_large()

        def run(persistence: int) -> float:
            t0 = time.process_time()
            for _ in range(args.count // args.group):
                ids = []
                for _ in range(args.group):
                    md, _, _ = qm.put(session, handle.hobj, MQMD(Persistence=persistence),
                                      MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID), body)
                    ids.append(md.MsgId)
                commit()
                for msg_id in ids:
                    got = qm.get(session, handle, MQMD(MsgId=msg_id),
                                 MQGMO(Version=2, Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT,
                                       MatchOptions=C.MQMO_MATCH_MSG_ID), 2048)
                    if got is None or got.data != body:
                        raise SystemExit("a round trip did not get its own message back")
                commit()
            return (time.process_time() - t0) / args.count * 1e6

        modes = {"non-persistent": C.MQPER_NOT_PERSISTENT, "persistent": C.MQPER_PERSISTENT}
        results: dict[str, list[float]] = {m: [] for m in modes}
        for k in range(args.rounds):
            for mode in (list(modes) if k % 2 == 0 else list(modes)[::-1]):
                results[mode].append(run(modes[mode]))
                print(f"# round {k + 1}: {mode:>14} {results[mode][-1]:.1f} µs CPU per round trip", flush=True)
    finally:
        qm.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    np_us, p_us = min(results["non-persistent"]), min(results["persistent"])
    print(f"domain + store CPU per round trip (best of {args.rounds}, groups of {args.group}): "
          f"non-persistent {np_us:.1f} µs, persistent {p_us:.1f} µs, persistence adds {p_us - np_us:.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
