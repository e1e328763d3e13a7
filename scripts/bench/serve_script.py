"""Issue 25: README's first command against the server it starts, measured alternately in one run.

Round after round, on a fresh data directory each time, it times from the command to the ready line:
  - ``./scripts/serve --port 0`` (the script: its stamp check, then ``exec .venv/bin/qmlite serve``);
  - ``.venv/bin/qmlite serve --port 0`` (qmlite itself: the bound the script can at best reach).
The environment must already be installed (run ``./scripts/serve`` once). The target: the script's median
<= 1.5x qmlite's own. Also reports qmlite's own "started in" (from the ready line) and the ratio.

    .venv/bin/python scripts/bench/serve_script.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import select
import signal
import statistics
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
_READY = re.compile(rb"^qmlite ready: .*started in (\d+) ms\)")


def one_start(cmd: list[str]) -> tuple[float, int, bytes]:
    """Seconds from Popen to the ready line, the server's own 'started in' ms, and what came before."""
    with tempfile.TemporaryDirectory(prefix="qmlite-serve-bench-") as tmp:
        t0 = time.perf_counter()
        proc = subprocess.Popen([*cmd, "--port", "0", "--data-dir", f"{tmp}/data"], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        out = b""
        try:
            while True:
                ready, _, _ = select.select([proc.stdout], [], [], 60)
                if not ready:
                    raise SystemExit(f"no ready line from {cmd}: {out[-2000:]!r}")
                chunk = proc.stdout.read1(65536)  # type: ignore[union-attr]
                if not chunk:
                    raise SystemExit(f"{cmd} ended before its ready line: {out[-2000:]!r}")
                out += chunk
                for line in out.splitlines(keepends=True):
                    m = _READY.match(line)
                    if m and line.endswith(b"\n"):
                        seconds = time.perf_counter() - t0
                        return seconds, int(m.group(1)), out[: out.index(line)]
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    script = [str(ROOT / "scripts" / "serve")]
    direct = [str(ROOT / ".venv" / "bin" / "qmlite"), "serve"]
    one_start(script)  # installs if needed; not counted
    times: dict[str, list[float]] = {"script": [], "qmlite": []}
    started: list[int] = []
    for _ in range(args.rounds):
        for name, cmd in (("script", script), ("qmlite", direct)):
            seconds, ms, before = one_start(cmd)
            if before:
                raise SystemExit(f"{name} printed before its ready line: {before!r}")
            times[name].append(seconds)
            started.append(ms)
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    print(json.dumps({"rounds": args.rounds, "median_ms": {k: round(v, 1) for k, v in med.items()},
                      "min_ms": {k: round(min(v) * 1000, 1) for k, v in times.items()},
                      "qmlite_started_in_ms_median": statistics.median(started),
                      "ratio_script_to_qmlite": round(med["script"] / med["qmlite"], 3)}, indent=1))


if __name__ == "__main__":
    main()
