"""Issue 23 part 3: 32 queue managers in one ``qmlite serve`` reach ready in <= 2x the time of one, and
what each adds to the process's memory (docs/benchmarks.md "Many queue managers behind one port").

Round after round, alternately, on a fresh data directory each time (the first start, which creates each
queue manager's default objects, is the costly one), it times from the command to the ready line:
  - ``python -m qmlite serve --port 0 --qmgr QM1``;
  - ``python -m qmlite serve --port 0 --qmgr QM1 --qmgr QM2 ... --qmgr QM32``;
then reads the server's resident memory (VmRSS) once it is ready.  ``--restart`` times a second start
on the data directory the first made (every queue manager opened, none created).

    .venv/bin/python scripts/bench/multiqm_ready.py [--rounds 7] [--count 32]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def one_start(data_dir: pathlib.Path, count: int) -> tuple[float, int]:
    """Seconds from Popen to the ready line, and the server's VmRSS (KiB) then."""
    names = [a for i in range(1, count + 1) for a in ("--qmgr", f"QM{i}")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQ_")}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--data-dir", str(data_dir),
                             "--log-level", "warning", *names], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        out = b""
        while b"qmlite ready:" not in out or not out.endswith(b"\n"):
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            chunk = proc.stdout.read1(65536) if ready else b""  # type: ignore[union-attr]
            if not chunk:
                raise SystemExit(f"no ready line from {count} queue managers: {out[-2000:]!r}")
            out += chunk
        seconds = time.perf_counter() - t0
        return seconds, rss_kib(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--count", type=int, default=32)
    args = parser.parse_args()
    results: dict[str, dict[str, list]] = {}
    for _ in range(args.rounds):
        for count in (1, args.count):
            with tempfile.TemporaryDirectory(prefix="qmlite-multiqm-bench-") as tmp:
                data = pathlib.Path(tmp) / "data"
                first = one_start(data, count)
                again = one_start(data, count)  # the restart: every queue manager exists
            for kind, (seconds, rss) in (("first", first), ("restart", again)):
                entry = results.setdefault(f"{kind}_{count}", {"s": [], "rss": []})
                entry["s"].append(seconds)
                entry["rss"].append(rss)
    med = {k: {"ready_ms": round(statistics.median(v["s"]) * 1000, 1),
               "rss_mib": round(statistics.median(v["rss"]) / 1024, 1)} for k, v in results.items()}
    n = args.count
    report = {"rounds": args.rounds, "count": n, "median": med}
    for kind in ("first", "restart"):
        one, many = med[f"{kind}_1"], med[f"{kind}_{n}"]
        report[f"{kind}_ratio"] = round(many["ready_ms"] / one["ready_ms"], 2)
        report[f"{kind}_rss_kib_per_qmgr"] = round((statistics.median(results[f"{kind}_{n}"]["rss"])
                                                    - statistics.median(results[f"{kind}_1"]["rss"])) / (n - 1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
