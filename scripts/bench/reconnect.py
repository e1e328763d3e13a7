#!/usr/bin/env python3
"""How soon a reconnecting client resumes work after the restarted queue manager accepts again.

A ``qmlite serve`` process on a fixed port and data directory; one application thread, connected
through IBM's ``ibmmq`` with MQCNO_RECONNECT, puts and gets a persistent message in a loop (MQPUT
syncpoint + MQCMIT, then MQGET syncpoint + MQCMIT, per round trip) and records when each one completed.  Each round
ends the server with SIGUSR1 (``endmqm -r``: reconnectable clients are asked to reconnect), starts a
new ``qmlite serve`` on the same port and data, and notes when its ready line came (it listens before
printing it).  The figure per round is the **gap**: the first completed round trip after the ready
line, minus the ready line.  Also shown: the outage (last round trip before the ending to first
after) and the server's own start time.  The client is in this process, the server in another: no
in-process shortcut (``reconnect.kick``) is involved, the client waits its own backoff.

Two client configurations, same run: IBM's default ReconDelay (first attempt after 1 s + up to
0.25 s, then 2 s, 4 s ...) and a short one, ``ReconDelay=(100,50)``, as an mqclient.ini would set it.
Then the pytest fixture's in-process ``restart()``, which wakes the reconnecting clients once the
queue manager accepts (what a test sees).  Nothing may be lost or doubled: the application counts its round trips and
the queue is empty at the end.

    python scripts/bench/reconnect.py --rounds 5
"""

from __future__ import annotations

import argparse
import pathlib
import re
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import ibmmq
from ibmmq import CMQC, CMQXC

from qmlite.client import reconnect as RC

_READY = re.compile(r"started in (\d+) ms")
QUEUE = "DEV.QUEUE.1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, data: pathlib.Path) -> tuple[subprocess.Popen, float, int]:
    proc = subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", str(port), "--data-dir", str(data),
                             "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = b""
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        if not ready:
            raise SystemExit("server did not start")
        line += proc.stdout.read1(4096) if hasattr(proc.stdout, "read1") else proc.stdout.readline()
    accepted = time.monotonic()
    m = _READY.search(line.decode(errors="replace"))
    return proc, accepted, int(m.group(1)) if m else -1


class App:
    """The application: put + get + commit of a persistent message, over and over."""

    def __init__(self, port: int) -> None:
        cd = ibmmq.CD(ChannelName=b"DEV.ADMIN.SVRCONN", ConnectionName=f"127.0.0.1({port})".encode(),
                      ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)
        self.qm = ibmmq.QueueManager(None)
        self.qm.connect_with_options("QM1", cd=cd, cno=ibmmq.CNO(Options=CMQC.MQCNO_RECONNECT), user="admin",
                                     password="passw0rd")
        self.q = ibmmq.Queue(self.qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        self.done: list[float] = []
        self.failures: list[int] = []
        self.stop = threading.Event()
        self.sent = 0
        self.pending = False  # a committed message not yet got back
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        md_opts = dict(Persistence=CMQC.MQPER_PERSISTENT)
        while not self.stop.is_set():
            body = b"rt-%08d" % self.sent
            try:
                if not self.pending:
                    self.q.put(body, ibmmq.MD(**md_opts), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
                    self.qm.commit()
                    self.pending = True
                got = self.q.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT))
                self.qm.commit()
                self.pending = False
            except ibmmq.MQMIError as exc:
                # a unit of work a restart interrupted was backed out (2003): do it again.  An MQCMIT
                # interrupted (2549) has an unknown outcome: look for the message (the put committed, or
                # the get did not) before putting it again (it was not, or the get committed)
                self.failures.append(exc.reason)
                try:
                    self.qm.backout()
                except ibmmq.MQMIError:
                    pass
                if exc.reason == CMQC.MQRC_CALL_INTERRUPTED:  # the put's or the get's MQCMIT
                    self.pending = "unknown"
                elif exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE and self.pending == "unknown":
                    self.pending = False
                continue
            assert got == body, (got, body)
            self.sent += 1
            self.done.append(time.monotonic())

    def first_after(self, t: float, timeout: float = 30.0) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            later = [x for x in self.done[-200:] if x >= t]
            if later:
                return min(later)
            time.sleep(0.001)  # polling the application's own record (a benchmark, not a test)
        import collections

        import ibmmqc
        states = [getattr(c.qm, "status", None) for c in ibmmqc._mqi._connections.values()]
        raise SystemExit(f"the client did not resume: failures {collections.Counter(self.failures)}, "
                         f"pending {self.pending}, alive {self.thread.is_alive()}, {states}")

    def close(self) -> None:
        self.stop.set()
        self.thread.join(60)
        self.q.close()
        self.qm.disconnect()


def run(rounds: int, delays: tuple | None) -> dict:
    if delays is not None:
        RC.CLIENT_SETTINGS = lambda: RC.ClientSettings(recon_delay_ms=delays)
    else:
        RC.CLIENT_SETTINGS = RC.ClientSettings
    tmp = tempfile.TemporaryDirectory(prefix="qmlite-bench-reconnect-")
    data = pathlib.Path(tmp.name) / "data"
    port = _free_port()
    proc, _accepted, _ms = start_server(port, data)
    app = App(port)
    gaps, outages, starts = [], [], []
    try:
        for _ in range(rounds):
            app.first_after(time.monotonic())  # working
            last_before = app.done[-1]
            proc.send_signal(signal.SIGUSR1)  # endmqm -r
            proc.wait(60)
            proc, accepted, start_ms = start_server(port, data)
            resumed = app.first_after(accepted)
            last_before = max(x for x in app.done if x <= accepted) if any(x <= accepted for x in app.done) \
                else last_before
            gaps.append(resumed - accepted)
            outages.append(resumed - last_before)
            starts.append(start_ms)
        app.first_after(time.monotonic())
    finally:
        app.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    # nothing left over and nothing doubled: every round trip got back what it put; the queue is empty
    proc2, _a, _m = start_server(port, data)
    try:
        qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", "admin", "passw0rd")
        depth = ibmmq.Queue(qm, QUEUE, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        qm.disconnect()
    finally:
        proc2.send_signal(signal.SIGTERM)
        proc2.wait(60)
    tmp.cleanup()
    return {"gaps": gaps, "outages": outages, "starts": starts, "round_trips": app.sent, "depth": depth,
            "interrupted": sorted(set(app.failures))}


def run_fixture(rounds: int) -> dict:
    """The pytest fixture's way: the queue manager in this process, ``restart()`` (which wakes the
    reconnecting clients once it accepts); the gap counts from ``restart()`` returning."""
    from qmlite.client.pytest_plugin import running_qmlite

    RC.CLIENT_SETTINGS = RC.ClientSettings
    tmp = tempfile.TemporaryDirectory(prefix="qmlite-bench-reconnect-")
    gaps, restarts = [], []
    with running_qmlite(pathlib.Path(tmp.name) / "data") as server:
        app = App(server.port)
        try:
            for _ in range(rounds):
                app.first_after(time.monotonic())
                t0 = time.monotonic()
                server.restart()
                accepted = time.monotonic()
                gaps.append(app.first_after(accepted) - accepted)
                restarts.append(accepted - t0)
        finally:
            app.close()
    tmp.cleanup()
    return {"gaps": gaps, "restarts": restarts, "round_trips": app.sent}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    for label, delays in (("IBM default ReconDelay", None), ("ReconDelay=(100,50)", ((100, 50),))):
        r = run(args.rounds, delays)
        g = r["gaps"]
        print(f"{label}: gap after the server accepts: " + ", ".join(f"{x * 1000:.0f}" for x in g)
              + f" ms (median {statistics.median(g) * 1000:.0f}, max {max(g) * 1000:.0f}); outage "
              + ", ".join(f"{x * 1000:.0f}" for x in r["outages"]) + " ms; server start "
              + ", ".join(str(x) for x in r["starts"]) + f" ms; {r['round_trips']} round trips, depth at end "
              + f"{r['depth']}, interrupted calls' reasons {r['interrupted']}")
        if max(g) > 1.0:
            print(f"  over 1 s in {sum(1 for x in g if x > 1.0)} of {len(g)} rounds")
    r = run_fixture(args.rounds)
    print("pytest fixture restart() in process: restart " + ", ".join(f"{x * 1000:.0f}" for x in r["restarts"])
          + " ms; gap after it returns " + ", ".join(f"{x * 1000:.1f}" for x in r["gaps"])
          + f" ms (max {max(r['gaps']) * 1000:.1f}); {r['round_trips']} round trips")


if __name__ == "__main__":
    main()
