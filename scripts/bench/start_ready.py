"""Issue 24 target 3: start to ready, and RESET QMLITE, each as a ratio against its bound in the same run.

**Start to ready.**  Round after round, alternately: a bare Python process that imports trio and serves
a port (it echoes what it receives), ``python -m qmlite serve`` on a fresh data directory, and the same
with a 1,000-line start-up MQSC script (mqsc_startup.py's).  Each is timed from ``Popen`` to the first
*answered* exchange on its port: the benchmark connects in a loop from the moment it launches the
process (the port is chosen beforehand), sends a client's first FAP ID segment (our client's, as
``ibmmq`` sends it) and waits for the answer: qmlite's ID reply, the bare process's echo.  The moment the
TCP connect was accepted is reported too.  Medians of ``--rounds`` rounds; each process's own CPU time
(from wait4) is reported beside, a figure that other processes on the machine do not stretch.

Separately: import time (``python -c 'import qmlite.server.listener, ...'`` -- what a served queue manager
imports -- against ``python -c 'import trio'``, alternated, CPU and wall) and first-start seeding (``QueueManager.open``
on a fresh data directory against reopening it, in process).

**RESET QMLITE.**  One connection through IBM's ``ibmmq`` (qmlite's ibmmqc transport): 100 local queues
defined and 1,000 messages put (10 a queue, half persistent) untimed, then ``RESET QMLITE`` by PCF Escape
timed, against a PCF Ping Q Mgr round trip on the same connection, alternated round after round.

    .venv/bin/python scripts/bench/start_ready.py [--rounds 9] [--reset-rounds 9] [--skip-reset]

Prints one JSON report and the verdict lines (targets: start <= 2x, start with 1,000 MQSC lines <= 3x,
RESET <= 15x).  Bytecode caches are written before measuring (an installed package has them; a
PYTHONDONTWRITEBYTECODE environment would otherwise recompile every module at every start).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

from mqsc_startup import script as mqsc_script  # noqa: E402  (the same generated 1,000-line script)

BARE = """\
import sys, trio
async def echo(stream):
    data = await stream.receive_some()
    await stream.send_all(data)
async def main():
    await trio.serve_tcp(echo, int(sys.argv[1]), host="127.0.0.1")
trio.run(main)
"""


def _env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_id_bytes() -> bytes:
    """A client's first ID segment (what starts every MQCONN)."""
    from qmlite.client.channel import ClientChannel
    from qmlite.client.protocol import ConnectOptions

    return ClientChannel(ConnectOptions(channel="DEV.ADMIN.SVRCONN", qmgr="QM1")).initiate()


def launch_to_answer(cmd: list[str], port: int, hello: bytes, stderr, timeout: float = 60.0) -> dict:
    """Launch ``cmd``, connect to ``port`` until accepted, send ``hello``, wait for the first answer
    bytes; the process is then killed and its CPU time read from wait4."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr, env=_env())
    try:
        deadline = t0 + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"exited with {proc.returncode} before accepting: {' '.join(cmd)}")
            if time.perf_counter() > deadline:
                raise RuntimeError(f"not accepting after {timeout} s: {' '.join(cmd)}")
            s = socket.socket()
            try:
                s.connect(("127.0.0.1", port))
                break
            except ConnectionRefusedError:
                s.close()
                time.sleep(0.0005)
        accepted = time.perf_counter()
        s.settimeout(timeout)
        s.sendall(hello)
        answer = s.recv(65536)
        answered = time.perf_counter()
        s.close()
        if not answer:
            raise RuntimeError(f"the connection closed without an answer: {' '.join(cmd)}")
    finally:
        if proc.poll() is None:
            proc.kill()  # SIGKILL: the CPU time read is the start's, not a shutdown's (the data is thrown away)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = status
    return {"accepted_ms": (accepted - t0) * 1000, "answered_ms": (answered - t0) * 1000,
            "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000, "answer": answer[:4]}


def start_rounds(rounds: int, lines: int) -> dict:
    hello = first_id_bytes()
    results: dict[str, list[dict]] = {"bare": [], "qmlite": [], "qmlite_mqsc": []}
    with tempfile.TemporaryDirectory(prefix="qmlite-start-bench-", dir="/tmp") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        script_path = tmp / "startup.mqsc"
        script_path.write_text(mqsc_script(lines))
        bare_path = tmp / "bare.py"
        bare_path.write_text(BARE)
        log_path = tmp / "server.log"

        def command(kind: str, port: int, data: pathlib.Path) -> list[str]:
            if kind == "bare":
                return [sys.executable, str(bare_path), str(port)]
            cmd = [sys.executable, "-m", "qmlite", "serve", "--port", str(port), "--data-dir", str(data)]
            return cmd + (["--mqsc", str(script_path)] if kind == "qmlite_mqsc" else [])

        for round_no in range(rounds + 1):  # round 0 warms the caches (bytecode, page cache) and is dropped
            for kind in results:
                data = tmp / f"data-{kind}-{round_no}"
                for attempt in range(3):  # a port another process took meanwhile: choose again
                    port = free_port()
                    with open(log_path, "wb") as err:
                        try:
                            one = launch_to_answer(command(kind, port, data), port, hello, err)
                            break
                        except RuntimeError:
                            if attempt == 2:
                                print(log_path.read_text(errors="replace")[-3000:], file=sys.stderr)
                                raise
                            shutil.rmtree(data, ignore_errors=True)
                if kind != "bare" and one["answer"][:3] != b"TSH":
                    raise SystemExit(f"qmlite answered {one['answer']!r}, not a TSH segment")
                if kind == "qmlite_mqsc":
                    text = log_path.read_text(errors="replace")
                    if f"commands={lines}" not in text or "failed=0" not in text:
                        raise SystemExit("the start-up script did not run cleanly:\n" + text[-2000:])
                shutil.rmtree(data, ignore_errors=True)
                if round_no:
                    results[kind].append(one)
            if round_no:
                print(f"  round {round_no}: " + ", ".join(
                    f"{k} {v[-1]['answered_ms']:.0f} ms" for k, v in results.items()), file=sys.stderr, flush=True)
    out = {}
    for kind, runs in results.items():
        out[kind] = {f"median_{m}": round(statistics.median(r[m] for r in runs), 1)
                     for m in ("accepted_ms", "answered_ms", "cpu_ms")}
        out[kind]["min_answered_ms"] = round(min(r["answered_ms"] for r in runs), 1)
    # per-round ratios, then their median: each ratio's two sides ran next to each other
    for kind in ("qmlite", "qmlite_mqsc"):
        out[kind]["ratio_answered"] = round(statistics.median(
            q["answered_ms"] / b["answered_ms"] for q, b in zip(results[kind], results["bare"])), 2)
        out[kind]["ratio_cpu"] = round(statistics.median(
            q["cpu_ms"] / b["cpu_ms"] for q, b in zip(results[kind], results["bare"])), 2)
    return out


def import_rounds(rounds: int) -> dict:
    """``import trio`` against the imports a served queue manager needs (``qmlite.server.listener``: trio,
    structlog, the transport and the domain), alternated; each process's CPU time (wait4) and wall time."""
    modules = {"trio": "trio", "server": "qmlite.server.listener, qmlite.server.app, qmlite.cli"}
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in modules}
    for round_no in range(rounds + 1):
        for key, module in modules.items():
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-c", f"import {module}"], env=_env())
            _, status, usage = os.wait4(proc.pid, 0)
            wall = (time.perf_counter() - t0) * 1000
            if status:
                raise SystemExit(f"import {module} failed")
            if round_no:
                times[key].append((wall, (usage.ru_utime + usage.ru_stime) * 1000))
    out = {modules[k]: {"median_wall_ms": round(statistics.median(w for w, _ in v), 1),
                        "median_cpu_ms": round(statistics.median(c for _, c in v), 1)} for k, v in times.items()}
    out["qmlite_own_cpu_ms"] = round(statistics.median(s[1] - t[1] for s, t in zip(times["server"], times["trio"])), 1)
    return out


def seeding_rounds(rounds: int) -> dict:
    """QueueManager.open on a fresh data directory (first start: schema and default objects) against
    opening it again (a restart of the same state), in this process, imports done."""
    from qmlite.server import config
    from qmlite.server.opening import open_queue_manager

    fresh, again = [], []
    with tempfile.TemporaryDirectory(prefix="qmlite-seed-bench-", dir="/tmp") as tmp:
        for round_no in range(rounds + 1):
            cfg = config.load(config_file=None, overrides={"port": 0, "data_dir": pathlib.Path(tmp) / f"d{round_no}"})
            for sink in (fresh, again):
                w, c = time.perf_counter(), time.process_time()
                qm = open_queue_manager(cfg)
                w1, c1 = time.perf_counter(), time.process_time()
                qm.shutdown()
                if round_no:
                    sink.append(((w1 - w) * 1000, (c1 - c) * 1000))
    return {name: {"median_wall_ms": round(statistics.median(w for w, _ in v), 1),
                   "median_cpu_ms": round(statistics.median(c for _, c in v), 1)}
            for name, v in (("first_start", fresh), ("reopen", again))}


def reset_rounds(rounds: int, queues: int, messages: int, *, how: str) -> dict:
    """``how``: "escape" -- RESET QMLITE by PCF Escape on the ibmmq connection, to a ``qmlite serve``
    process; "fixture" -- the pytest plugin's ``QmliteServer.reset()`` (what ``qmlite_reset`` does before
    each test), the server in this process as the plugin runs it."""
    import contextlib

    import ibmmq
    from ibmmq import CMQC, CMQCFC

    from _common import CHANNEL, HOST, PASSWORD, QMGR, USER, ServerProcess

    per_queue = messages // queues
    body = b"R" * 256
    ping_ms, reset_ms, ratios = [], [], []
    with contextlib.ExitStack() as stack:
        if how == "fixture":
            from qmlite.client.pytest_plugin import running_qmlite
            from qmlite.server import log as qlog

            qlog.configure(level="warning")  # the in-process server's log: stderr, warnings only

            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="qmlite-reset-bench-", dir="/tmp"))
            fixture = stack.enter_context(running_qmlite(pathlib.Path(tmp) / "data", record_calls=False))
            port = fixture.port
        else:
            port = stack.enter_context(ServerProcess(log_level="warning")).port
        qm = ibmmq.connect(QMGR, CHANNEL, f"{HOST}({port})", USER, PASSWORD)
        stack.callback(qm.disconnect)
        pcf = ibmmq.PCFExecute(qm)

        def reset() -> str:
            if how == "fixture":
                fixture.reset()
                return ""
            answer = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                       CMQCFC.MQCACF_ESCAPE_TEXT: b"RESET QMLITE"})
            return b" ".join(r[CMQCFC.MQCACF_ESCAPE_TEXT] for r in answer).decode(errors="replace")

        def ping() -> float:
            t0 = time.perf_counter()
            pcf.MQCMD_PING_Q_MGR()
            return (time.perf_counter() - t0) * 1000

        def depth_total() -> int:
            found = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"BENCH.RESET.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                         CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_CURRENT_Q_DEPTH]})
            return len(found)

        for _ in range(20):
            ping()  # warm the command path
        for round_no in range(rounds + 1):
            for n in range(queues):  # the state: untimed
                name = f"BENCH.RESET.{n:03d}"
                pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                    CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
                q = ibmmq.Queue(qm, name, CMQC.MQOO_OUTPUT)
                for i in range(per_queue):
                    md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT if i % 2 else CMQC.MQPER_NOT_PERSISTENT)
                    q.put(body, md)
                q.close()
            pings = [ping() for _ in range(5)]
            t0 = time.perf_counter()
            text = reset()
            took = (time.perf_counter() - t0) * 1000
            pings += [ping() for _ in range(4)]
            if how == "escape":
                cleared = re.search(r"(\d+) messages cleared", text)
                if f"{queues} objects deleted" not in text or not cleared or int(cleared.group(1)) < messages:
                    raise SystemExit(f"RESET QMLITE did not reset the state: {text}")
            try:
                left = depth_total()
            except ibmmq.MQMIError as exc:  # none left: Inquire Queue of a generic name that matches nothing
                left = 0 if exc.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME else -1
            if left:
                raise SystemExit(f"the reset left {left} BENCH.RESET queues")
            ping_median = statistics.median(pings)
            if round_no:
                ping_ms.append(ping_median)
                reset_ms.append(took)
                ratios.append(took / ping_median)
                print(f"  {how} reset round {round_no}: reset {took:.1f} ms, ping {ping_median:.2f} ms",
                      file=sys.stderr, flush=True)
    return {"how": how, "objects": queues, "messages": queues * per_queue,
            "median_reset_ms": round(statistics.median(reset_ms), 2),
            "median_ping_ms": round(statistics.median(ping_ms), 3), "ratio": round(statistics.median(ratios), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9, help="start-up rounds (each: bare, qmlite, qmlite+MQSC)")
    parser.add_argument("--lines", type=int, default=1000, help="lines of the start-up MQSC script")
    parser.add_argument("--reset-rounds", type=int, default=9)
    parser.add_argument("--skip-start", action="store_true")
    parser.add_argument("--skip-reset", action="store_true")
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(ROOT / d) for d in
                    ("pcf", "keys", "registry", "server", "client", "qmlite"))], check=False, stdout=subprocess.DEVNULL,
                   env=_env())
    report: dict[str, object] = {"python": sys.version.split()[0], "load_average": os.getloadavg()}
    verdicts = []
    if not args.skip_start:
        start = start_rounds(args.rounds, args.lines)
        report["start_to_answer"] = start
        report["imports"] = import_rounds(args.rounds)
        report["seeding"] = seeding_rounds(args.rounds)
        verdicts.append(f"start to ready: {start['qmlite']['ratio_answered']}x the bare trio listener "
                        f"(target <= 2x): {'MET' if start['qmlite']['ratio_answered'] <= 2 else 'MISSED'}")
        verdicts.append(f"start to ready with {args.lines} MQSC lines: {start['qmlite_mqsc']['ratio_answered']}x "
                        f"(target <= 3x): {'MET' if start['qmlite_mqsc']['ratio_answered'] <= 3 else 'MISSED'}")
    if not args.skip_reset:
        for how, label in (("escape", "RESET QMLITE by PCF Escape"), ("fixture", "the fixture's reset()")):
            reset = reset_rounds(args.reset_rounds, 100, 1000, how=how)
            report[f"reset_{how}"] = reset
            verdicts.append(f"{label} (100 objects, 1,000 messages): {reset['ratio']}x a PCF Ping Q Mgr "
                            f"(target <= 15x): {'MET' if reset['ratio'] <= 15 else 'MISSED'}")
    print(json.dumps(report, indent=2))
    for line in verdicts:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
