"""Issue 13: time from process start to the ready line with a 1,000-line start-up MQSC script.

Generates a script of DEFINE QLOCAL, DEFINE TOPIC, DEFINE SUB and SET AUTHREC commands (a quarter
each, one command per line), then starts ``python -m qmlite serve --port 0 --mqsc SCRIPT`` on a
fresh data directory several times and reports the median wall time from ``Popen`` to the ready line,
and the same without the script for comparison.  Every run must have run all the commands (the
server's ``mqsc_script`` log line says how many and how many failed).

    .venv/bin/python scripts/bench/mqsc_startup.py [--lines 1000] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time

_READY = re.compile(rb"^qmlite ready: .* listening on \S+:(\d+) .*started in (\d+) ms\)")
_SCRIPT = re.compile(r"mqsc_script.*commands=(\d+).*failed=(\d+)")


def script(lines: int) -> str:
    quarter = max(1, lines // 4)
    out = ["* qmlite start-up benchmark: queues, topics, subscriptions, authority records"]
    for n in range(quarter):
        out.append(f"DEFINE QLOCAL(BENCH.Q.{n:04d}) MAXDEPTH(50000) DESCR('bench queue {n}') REPLACE")
    for n in range(quarter):
        out.append(f"DEFINE TOPIC(BENCH.T.{n:04d}) TOPICSTR('bench/{n:04d}') REPLACE")
    for n in range(quarter):
        out.append(f"DEFINE SUB(BENCH.S.{n:04d}) TOPICSTR('bench/{n:04d}/#') DEST(BENCH.Q.{n:04d}) REPLACE")
    for n in range(lines - 3 * quarter):
        out.append(f"SET AUTHREC PROFILE('BENCH.P.{n:04d}.**') OBJTYPE(QUEUE) PRINCIPAL('app') "
                   f"AUTHADD(PUT,GET,BROWSE,INQ)")
    return "\n".join(out) + "\n"


def one_start(mqsc: pathlib.Path | None) -> tuple[float, int, str]:
    """Seconds from Popen to the ready line; the server's own 'started in' ms; its log."""
    with tempfile.TemporaryDirectory(prefix="qmlite-mqsc-bench-", dir="/tmp") as tmp:
        cmd = [sys.executable, "-m", "qmlite", "serve", "--port", "0", "--data-dir", f"{tmp}/data"]
        if mqsc is not None:
            cmd += ["--mqsc", str(mqsc)]
        log = pathlib.Path(tmp) / "server.log"
        with open(log, "wb") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
            line = b""
            try:
                while not line.endswith(b"\n"):
                    ready, _, _ = select.select([proc.stdout], [], [], 30)
                    if not ready or proc.poll() is not None:
                        raise SystemExit(f"server did not start:\n{log.read_text()[-2000:]}")
                    line += proc.stdout.read1(4096)  # type: ignore[union-attr]
                elapsed = time.perf_counter() - t0
            finally:
                proc.terminate()
                proc.wait(10)
        match = _READY.match(line)
        return elapsed, int(match.group(2)) if match else -1, log.read_text(errors="replace")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qmlite-mqsc-script-", dir="/tmp") as tmp:
        path = pathlib.Path(tmp) / "startup.mqsc"
        path.write_text(script(args.lines))
        report: dict[str, object] = {"lines": args.lines, "runs": args.runs}
        for label, mqsc in (("without_script", None), ("with_script", path)):
            walls, selfs = [], []
            for _ in range(args.runs):
                wall, started_ms, log = one_start(mqsc)
                if mqsc is not None:
                    found = _SCRIPT.search(log)
                    if not found or int(found.group(1)) != args.lines or int(found.group(2)) != 0:
                        raise SystemExit(f"the script did not run cleanly: {found and found.group(0)}")
                walls.append(wall * 1000)
                selfs.append(started_ms)
            report[label] = {"median_wall_ms": round(statistics.median(walls), 1),
                             "min_wall_ms": round(min(walls), 1), "max_wall_ms": round(max(walls), 1),
                             "median_started_in_ms": statistics.median(selfs)}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
