"""What activity trace costs: IBM's ``ibmmq`` put/get throughput on one connection with ACTVTRC(OFF),
then ACTVTRC(ON) (every call an operation group, an activity trace message per 100 calls on
SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE), then ACTVTRC(ON) plus qmlite's call log (ALTER QMLTRACE RECORD(ON)).
Set by PCF (Change Q Mgr, and MQSC through PCF Escape), taking turns round after round in one server
process; each setting keeps its best round; a new connection per round (activity trace is decided at
MQCONN); the trace queue is cleared between rounds.

    python scripts/bench/activity_trace.py [--calls 5000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as B  # noqa: E402

QUEUE = "DEV.QUEUE.1"
TRACEQ = "SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE"
BODY = b"x" * 100
SETTINGS = ("off", "actvtrc", "actvtrc+log")


def configure(port: int, setting: str) -> None:
    import ibmmq
    from ibmmq import CMQC, CMQCFC

    qm = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({port})", B.USER, B.PASSWORD)
    pcf = ibmmq.PCFExecute(qm)
    try:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_ACTIVITY_TRACE: CMQC.MQMON_OFF if setting == "off" else CMQC.MQMON_ON})
        pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: TRACEQ})
        record = "ON" if setting == "actvtrc+log" else "OFF"
        pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                          CMQCFC.MQCACF_ESCAPE_TEXT: f"ALTER QMLTRACE RECORD({record})"})
    finally:
        pcf.disconnect()
        qm.disconnect()


def run(port: int, calls: int) -> dict:
    return B.ibmmq_put_get(port, QUEUE, BODY, calls)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    best: dict[str, dict[str, float]] = {s: {} for s in SETTINGS}
    with B.ServerProcess(log_level="warning") as server:
        for _ in range(args.repeat):
            for setting in SETTINGS:
                configure(server.port, setting)
                for name, rate in run(server.port, args.calls).items():
                    best[setting][name] = max(best[setting].get(name, 0.0), rate)
        configure(server.port, "off")
    print(f"{'call':8} {'off/s':>9} {'ACTVTRC/s':>10} {'cost':>6} {'+log/s':>9} {'cost':>6}")
    for name in ("put/s", "get/s"):
        off, on, log = (best[s][name] for s in SETTINGS)
        print(f"{name:8} {off:9.0f} {on:10.0f} {100 * (1 - on / off):5.1f}% {log:9.0f} {100 * (1 - log / off):5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
