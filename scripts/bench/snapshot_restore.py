"""Issue 23 part 4: restoring a snapshot against ``RESET QMLITE`` of the same state, same run.

Builds a queue manager (in process, on a fresh data directory, the server's synchronous=FULL: every
commit fsyncs) holding 1,000 objects -- 700 local queues, 150 topics, 150 durable subscriptions --
and 10,000 messages of 256 bytes on 100 of the queues (half persistent), saves it as snapshot BASE,
then times, each ``--runs`` times (median, min, max), with the state rebuilt untimed before each:

* ``reset``: ``RESET QMLITE`` of that state (registry/storage/reset.py) and its commit;
* ``reset and rebuild``: what a restore replaces -- the reset, then the 1,000 DEFINEs and 10,000 puts;
* ``restore, after a test``: a test's worth of changes (10 messages got from one queue, one put to
  another, a queue defined, a queue altered, a subscription deleted), then the restore and its commit;
* ``restore, after RESET QMLITE``: the worst case, everything gone, every object and message put back;
* ``restore, nothing changed``.

The restores are checked: each leaves the state equal to the snapshot's (definitions and messages).

    .venv/bin/python scripts/bench/snapshot_restore.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import structlog  # noqa: E402

from qmlite.pcf import constants as C  # noqa: E402
from qmlite.pcf import mqi as S  # noqa: E402
from qmlite.registry.mqsc import run_mqsc  # noqa: E402
from qmlite.registry.qmgr import QueueManager  # noqa: E402
from qmlite.registry.storage import reset, savepoints  # noqa: E402

QUEUES, TOPICS, SUBS = 700, 150, 150
FILLED, PER_QUEUE = 100, 100


def build(qm) -> None:
    lines = [f"DEFINE QLOCAL(B.Q.{n:04d}) MAXDEPTH(5000)" for n in range(QUEUES)]
    lines += [f"DEFINE TOPIC(B.T.{n:04d}) TOPICSTR('b/{n:04d}')" for n in range(TOPICS)]
    lines += [f"DEFINE SUB(B.S.{n:04d}) TOPICSTR('b/{n:04d}/#') DEST(B.Q.{n:04d})" for n in range(SUBS)]
    results = run_mqsc(qm, "\n".join(lines))
    assert all(r.completion_code == C.MQCC_OK for r in results)
    reg = qm.registry
    body = b"x" * 256
    for n in range(FILLED):
        queue = reg.queues[f"B.Q.{n:04d}"]
        for i in range(PER_QUEUE):
            md = S.MQMD(Persistence=C.MQPER_PERSISTENT if i % 2 else C.MQPER_NOT_PERSISTENT)
            qm.put_message(queue, md, body)
    reg.commit()


def a_test(qm) -> None:
    reg = qm.registry
    contents = reg.messages.contents("B.Q.0001")
    for msg in list(contents)[:10]:
        contents.remove(msg)
        if msg.persistent:
            reg.store.delete_message(msg.seq)
    qm.put_message(reg.queues["B.Q.0002"], S.MQMD(), b"by the test")
    run_mqsc(qm, "DEFINE QLOCAL(T.NEW)\nALTER QLOCAL(B.Q.0003) MAXDEPTH(9)\nDELETE SUB(B.S.0004)")
    reg.commit()


def fingerprint(qm) -> tuple:
    reg = qm.registry
    return (sorted(reg.queues), sorted(reg.topics), sorted(reg.subs),
            {n: [(m.seq, m.data) for m in c] for n, c in reg.messages.items() if n.startswith("B.") and len(c)})


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # warnings and up
    with tempfile.TemporaryDirectory(prefix="qmlite-snap-bench-", dir="/tmp") as tmp:
        qm = QueueManager.open(pathlib.Path(tmp) / "qm", synchronous="FULL")
        reg = qm.registry
        build(qm)
        book = savepoints.of(qm)
        started = time.perf_counter()
        saved = book.save("BASE")
        save_ms = (time.perf_counter() - started) * 1000
        print(f"state: {QUEUES + TOPICS + SUBS} objects defined ({QUEUES} local queues, {TOPICS} topics, {SUBS}"
              f" subscriptions) besides the {saved.objects + saved.subscriptions - QUEUES - TOPICS - SUBS} default"
              f" ones, {saved.messages} messages; save {save_ms:.1f} ms")
        base = fingerprint(qm)
        rows: dict[str, list[float]] = {"reset": [], "reset and rebuild (MQSC, puts)": [],
                                        "restore, after a test": [],
                                        "restore, after RESET QMLITE": [], "restore, nothing changed": []}

        def restore_and_commit() -> None:
            book.restore("BASE")
            reg.commit()

        for _ in range(args.runs):
            rows["reset"].append(timed(lambda: (reset.reset(qm), reg.commit())))
            book.restore("BASE"); reg.commit()  # untimed rebuild
            assert fingerprint(qm) == base
            rows["reset and rebuild (MQSC, puts)"].append(timed(lambda: (reset.reset(qm), reg.commit(), build(qm))))
            book.restore("BASE"); reg.commit()  # the snapshot's very messages again (seqs, MsgIds)
            assert fingerprint(qm) == base
            a_test(qm)
            rows["restore, after a test"].append(timed(restore_and_commit))
            assert fingerprint(qm) == base
            reset.reset(qm); reg.commit()
            rows["restore, after RESET QMLITE"].append(timed(restore_and_commit))
            assert fingerprint(qm) == base
            rows["restore, nothing changed"].append(timed(restore_and_commit))
            assert fingerprint(qm) == base
        qm.shutdown()
    reset_median = statistics.median(rows["reset"])
    print(f"{'operation':32} {'median':>9} {'min':>9} {'max':>9}  vs reset")
    for name, values in rows.items():
        med = statistics.median(values)
        print(f"{name:32} {med:8.1f}ms {min(values):8.1f}ms {max(values):8.1f}ms  {med / reset_median:6.3f}x")


if __name__ == "__main__":
    main()
