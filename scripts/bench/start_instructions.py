"""Issue 24 target 3: start-up instruction counts (valgrind callgrind), deterministic on a shared machine.

Counts the user-space instructions from the interpreter's launch to "ready" for a bare Python process that
imports trio and opens a listening port (the bound of start_ready.py), and for ``qmlite serve`` on a fresh
data directory (launch to the ready line; the process then leaves at once with ``os._exit``, so neither
count includes a shutdown).  Instructions are not time, but they do not move with the machine's load.

    .venv/bin/python scripts/bench/start_instructions.py [--mqsc-lines 1000]

Needs ``valgrind`` on PATH.  Prints one JSON report and the ratio qmlite / bare.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

BARE = """\
import os, trio
async def main():
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    print("ready", flush=True)
    os._exit(0)
trio.run(main)
"""

# ``qmlite serve`` as the command line runs it, leaving the moment the ready line is printed.
QMLITE = """\
import os, sys
from qmlite.server import app
_lines = app.ready_lines
def ready_then_exit(*args, **kwargs):
    for line in _lines(*args, **kwargs):
        print(line, flush=True)
    os._exit(0)
app.ready_lines = ready_then_exit
from qmlite.cli import main
sys.exit(main(sys.argv[1:]))
"""


def count(script: str, args: list[str], tmp: pathlib.Path) -> int:
    path = tmp / "prog.py"
    path.write_text(script)
    out = tmp / "callgrind.out"
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                           sys.executable, str(path), *args], capture_output=True, text=True, env=env)
    if "ready" not in proc.stdout:
        raise SystemExit(f"no ready line:\n{proc.stdout}\n{proc.stderr[-3000:]}")
    found = re.search(r"Collected\s*:\s*(\d+)", proc.stderr) or re.search(r"^summary:\s*(\d+)", out.read_text(), re.M)
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mqsc-lines", type=int, default=0, help="also count a start with this many MQSC lines")
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(ROOT / d) for d in
                    ("pcf", "keys", "registry", "server", "client", "qmlite"))], check=False, stdout=subprocess.DEVNULL)
    report = {}
    with tempfile.TemporaryDirectory(prefix="qmlite-start-insn-", dir="/tmp") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        report["bare_trio_listener"] = count(BARE, [], tmp)
        report["qmlite_serve"] = count(QMLITE, ["serve", "--port", "0", "--data-dir", str(tmp / "d1")], tmp)
        if args.mqsc_lines:
            from mqsc_startup import script as mqsc_script
            script = tmp / "startup.mqsc"
            script.write_text(mqsc_script(args.mqsc_lines))
            report["qmlite_serve_mqsc"] = count(
                QMLITE, ["serve", "--port", "0", "--data-dir", str(tmp / "d2"), "--mqsc", str(script)], tmp)
    print(json.dumps(report, indent=2))
    bare = report["bare_trio_listener"]
    for key in ("qmlite_serve", "qmlite_serve_mqsc"):
        if key in report:
            print(f"{key}: {report[key] / 1e6:,.0f} M instructions, {report[key] / bare:.2f}x the bare "
                  f"trio listener's {bare / 1e6:,.0f} M")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
