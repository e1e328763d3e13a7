"""What a table of 1,000 fault rules costs each MQI call (issue 23 part 1; docs/benchmarks.md).

In-process, on the domain (registry/qmgr.py), where the rule lookup is a visible share of a call:
MQPUT + MQGET of a 100-byte non-persistent message on DEV.QUEUE.1, in rounds alternating between an
empty rule table and one of 1,000 rules that the calls do not meet - rules for every verb on other
exact names, generic names of every prefix length (``DEV.QUEUE.1X*``, ``D9*`` ...), and rules on this
very queue restricted to another user, so the lookup finds candidates and has to reject them.  The
figure is the same-run ratio of the medians (with / without); the brief's bound is 1.05.

    .venv/bin/python scripts/bench/fault_rules.py [--calls 20000] [--rounds 7]
    .venv/bin/python scripts/bench/fault_rules.py --ibmmq --calls 2000   # an application's view
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import tempfile
import time

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.testing import faults as FR

Q = "DEV.QUEUE.1"


def fill(faults: FR.Faults, count: int = 1000) -> None:
    verbs = FR.MQI_VERBS
    for i in range(count):
        kind = i % 4
        verb = verbs[i % len(verbs)]
        if kind == 0:
            faults.define(f"EXACT.{i}", verb=verb, object=f"APP.QUEUE.{i}", reason=2053)
        elif kind == 1:
            faults.define(f"GEN.{i}", verb=verb, object=f"{Q}X{i}"[: 3 + i % 20] + "Z*", reason=2053)
        elif kind == 2:
            faults.define(f"USER.{i}", verb=("MQPUT", "MQGET")[i % 2], object=Q, user=f"user{i}", reason=2053)
        else:
            faults.define(f"PCF.{i}", verb="MQCMD_INQUIRE_Q", object=f"Q{i}", action="NOREPLY")
    assert len(faults) == count


def round_ns(qm: QueueManager, session, handle, calls: int) -> float:
    md_put, data = S.MQMD, b"x" * 100
    started = time.perf_counter_ns()
    for _ in range(calls):
        qm.put(session, handle.hobj, md_put(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), data)
        got = qm.get(session, qm.input_handle(session, handle.hobj, C.MQGMO_NO_SYNCPOINT), S.MQMD(),
                     S.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT), 1000)
        assert got is not None
    return (time.perf_counter_ns() - started) / (2 * calls)


def over_ibmmq(calls: int, rounds: int) -> None:
    """The same through IBM's ibmmq against an in-process server: what an application's MQI call costs."""
    import ibmmq

    from qmlite.client.pytest_plugin import running_qmlite

    with running_qmlite(pathlib.Path(tempfile.mkdtemp())) as server:
        qm = ibmmq.connect("QM1", "DEV.APP.SVRCONN", server.conn_name)
        q = ibmmq.Queue(qm, Q, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        loop = server._runner.loop
        domain = server._runner.server.qm
        table, empty = FR.Faults(), FR.Faults()
        fill(table)

        def one_round() -> float:
            started = time.perf_counter_ns()
            for _ in range(calls):
                q.put(b"x" * 100)
                q.get()
            return (time.perf_counter_ns() - started) / (2 * calls)

        one_round()
        without, with_rules = [], []
        for _ in range(rounds):
            loop.run_sync(setattr, domain, "faults", empty)
            without.append(one_round())
            loop.run_sync(setattr, domain, "faults", table)
            with_rules.append(one_round())
        q.close()
        qm.disconnect()
    a, b = statistics.median(without), statistics.median(with_rules)
    print(f"MQI call (MQPUT+MQGET, ibmmq over the socket): {a / 1000:.1f} us without rules, {b / 1000:.1f} us with "
          f"1,000; ratio {b / a:.3f} (median of {rounds} interleaved rounds of {calls} put+get)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--ibmmq", action="store_true", help="through IBM's ibmmq and a socket instead of in-process")
    args = ap.parse_args()
    if args.ibmmq:
        over_ibmmq(args.calls, args.rounds)
        return
    qm = QueueManager.open(pathlib.Path(tempfile.mkdtemp()), "QM1", synchronous="OFF")
    session = qm.connect("QM1", user="app", admin=True, appl_name="bench", channel="DEV.APP.SVRCONN")
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=Q), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    table = FR.Faults()
    fill(table)
    empty = FR.Faults()
    round_ns(qm, session, handle, 2000)  # warm up
    without, with_rules = [], []
    for _ in range(args.rounds):
        qm.faults = empty
        without.append(round_ns(qm, session, handle, args.calls))
        qm.faults = table
        with_rules.append(round_ns(qm, session, handle, args.calls))
    assert sum(r.fired for r in table.rules()) == 0
    a, b = statistics.median(without), statistics.median(with_rules)
    print(f"MQI call (MQPUT+MQGET, in-process): {a / 1000:.2f} us without rules, {b / 1000:.2f} us with 1,000; "
          f"ratio {b / a:.3f} (median of {args.rounds} interleaved rounds of {args.calls} put+get)")
    qm.shutdown()


if __name__ == "__main__":
    main()
