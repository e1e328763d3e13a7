"""What statistics, accounting and events cost: IBM's ``ibmmq`` put/get throughput on one connection with
every switch off, then with STATMQI/STATQ/STATCHL/ACCTMQI/ACCTQ ON, STATINT/ACCTINT 1 second and every
queue-manager event switch ENABLED (plus queue depth and service-interval events on the queue), set by
PCF Change Q Mgr / Change Queue.  The two settings take turns, round after round, in the same server
process; each keeps its best round.  A new connection is made for each round, after the switches are
set (accounting is decided at MQCONN).  Switches a server does not know yet answer with an error and
are skipped (the benchmark measures whatever is merged).

    python scripts/bench/monitoring_overhead.py [--calls 5000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as B  # noqa: E402

QUEUE = "DEV.QUEUE.1"
BODY = b"x" * 100


def _switches(ibmmq, CMQC, CMQCFC, on: bool) -> list[tuple[int, dict]]:
    onoff = CMQC.MQMON_ON if on else CMQC.MQMON_OFF
    enabled = 1 if on else 0  # MQEVR_ENABLED, MQEVR_DISABLED (cmqc.h)
    qmgr = {CMQC.MQIA_STATISTICS_MQI: onoff, CMQC.MQIA_STATISTICS_Q: onoff,
            CMQC.MQIA_STATISTICS_CHANNEL: CMQC.MQMON_HIGH if on else CMQC.MQMON_OFF,  # STATCHL has no ON
           
            CMQC.MQIA_ACCOUNTING_MQI: onoff, CMQC.MQIA_ACCOUNTING_Q: onoff,
            CMQC.MQIA_STATISTICS_INTERVAL: 1 if on else 1800, CMQC.MQIA_ACCOUNTING_INTERVAL: 1 if on else 1800}
    for name in ("MQIA_AUTHORITY_EVENT", "MQIA_INHIBIT_EVENT", "MQIA_LOCAL_EVENT", "MQIA_REMOTE_EVENT",
                 "MQIA_START_STOP_EVENT", "MQIA_PERFORMANCE_EVENT", "MQIA_COMMAND_EVENT", "MQIA_CHANNEL_EVENT",
                 "MQIA_CONFIGURATION_EVENT", "MQIA_LOGGER_EVENT", "MQIA_SSL_EVENT", "MQIA_CHANNEL_AUTO_DEF_EVENT",
                 "MQIA_BRIDGE_EVENT"):
        if hasattr(CMQC, name):
            qmgr[getattr(CMQC, name)] = enabled
    queue = {CMQC.MQCA_Q_NAME: QUEUE, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
             CMQC.MQIA_Q_DEPTH_HIGH_EVENT: enabled, CMQC.MQIA_Q_DEPTH_LOW_EVENT: enabled,
             CMQC.MQIA_Q_DEPTH_MAX_EVENT: enabled,
             CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT: 1 if on else 0}  # MQQSIE_HIGH, MQQSIE_NONE (cmqc.h)
    return [(CMQCFC.MQCMD_CHANGE_Q_MGR, qmgr), (CMQCFC.MQCMD_CHANGE_Q, queue)]


def set_switches(port: int, on: bool) -> list[str]:
    import ibmmq
    from ibmmq import CMQC, CMQCFC

    skipped = []
    qm = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({port})", B.USER, B.PASSWORD)
    pcf = ibmmq.PCFExecute(qm)
    try:
        for command, params in _switches(ibmmq, CMQC, CMQCFC, on):
            fixed = {k: v for k, v in params.items() if k in (CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE)}
            for key, value in params.items():
                if key in fixed:
                    continue
                try:
                    getattr(pcf, {CMQCFC.MQCMD_CHANGE_Q_MGR: "MQCMD_CHANGE_Q_MGR",
                                  CMQCFC.MQCMD_CHANGE_Q: "MQCMD_CHANGE_Q"}[command])({**fixed, key: value})
                except ibmmq.MQMIError:
                    skipped.append(str(key))
    finally:
        pcf.disconnect()
        qm.disconnect()
    return skipped


def run(port: int, calls: int) -> dict:
    return B.ibmmq_put_get(port, QUEUE, BODY, calls)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    best: dict[str, dict[str, float]] = {"off": {}, "on": {}}
    skipped: set[str] = set()
    with B.ServerProcess(log_level="warning") as server:
        for _ in range(args.repeat):
            for setting in ("off", "on"):
                skipped.update(set_switches(server.port, setting == "on"))
                for name, rate in run(server.port, args.calls).items():
                    best[setting][name] = max(best[setting].get(name, 0.0), rate)
        set_switches(server.port, False)
    print(f"{'call':8} {'off/s':>9} {'all on/s':>9} {'cost':>6}")
    for name in ("put/s", "get/s"):
        off, on = best["off"][name], best["on"][name]
        print(f"{name:8} {off:9.0f} {on:9.0f} {100 * (1 - on / off):5.1f}%")
    if skipped:
        print("switches the server refused (not merged yet):", ", ".join(sorted(skipped)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
