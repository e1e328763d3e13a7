"""Pieces shared by the benchmarks that drive a ``qmlite serve`` process with our async client
(persistent_roundtrip.py, get_depth.py, message_restart.py).  Not a benchmark itself.

The constants, percentiles and /proc CPU sampling are server_roundtrip.py's own (imported, so every
server benchmark computes them the same way); this adds a server process on a data directory of the
caller's choice (kept or thrown away), queue definitions through PCF, and a fast concurrent fill.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

from server_roundtrip import CHANNEL, PASSWORD, TICKS, USER, cpu_seconds, machine_ticks, pct  # noqa: F401 (re-exported)

HOST = "127.0.0.1"
QMGR = "QM1"  # what ``qmlite serve`` names its queue manager by default
MAX_Q_DEPTH = 999_999_999  # the largest MaxQDepth a queue may have

_READY = re.compile(r"^qmlite ready: .* listening on \S+:(\d+) .*started in (\d+) ms\)")


# ------------------------------------------------------------------------------------------------
# the server process
# ------------------------------------------------------------------------------------------------

class ServerProcess:
    """``python -m qmlite serve --port 0`` in its own process; the port comes from its ready line.

    ``data_dir=None``: a fresh throwaway data directory, deleted by :meth:`stop`.  A given
    ``data_dir`` is used as is and kept.  The server's stderr (its log) goes to a temporary file whose
    tail is shown when the server fails to start."""

    def __init__(self, data_dir: pathlib.Path | None = None, *, log_level: str = "info",
                 start_timeout: float = 600.0, args: tuple[str, ...] = (),
                 launcher: tuple[str, ...] = ("-m", "qmlite")) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="qmlite-bench-", dir="/tmp")
        tmp = pathlib.Path(self._tmp.name)
        self.data_dir = pathlib.Path(data_dir) if data_dir is not None else tmp / "data"
        self.log_path = tmp / "server.log"
        # launcher: what runs ``qmlite`` (command_timeline.py's stamped server takes its place)
        self.cmd = [sys.executable, *launcher, "serve", "--port", "0", "--data-dir", str(self.data_dir),
                    "--log-level", log_level, *args]  # args: more serve flags (``--clock virtual`` ...)
        self._log = open(self.log_path, "wb")
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=self._log)
        self.pid = self.proc.pid
        deadline = time.monotonic() + start_timeout
        line = b""
        while not line.endswith(b"\n"):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-2000:]
                self.stop()
                raise SystemExit(f"server did not start: {' '.join(self.cmd)}\n{tail}")
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                line += os.read(self.proc.stdout.fileno(), 4096)
        self.ready_after_s = time.perf_counter() - t0  # process start to ready line, interpreter start included
        self.ready_line = line.decode().strip()
        m = _READY.match(self.ready_line)
        if m is None:
            self.stop()
            raise SystemExit(f"unexpected first line from the server: {self.ready_line!r}")
        self.port = int(m.group(1))
        self.started_ms = int(m.group(2))  # the server's own figure: registry open + listen

    def status_kib(self, field: str) -> int:
        """A /proc/<pid>/status figure in KiB (VmHWM: peak RSS, VmRSS: current RSS)."""
        return proc_status_kib(field, self.pid)

    def stop(self) -> int | None:
        """SIGTERM (the server quiesces and closes its registry), wait, clean up; the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._log.close()
        self._tmp.cleanup()
        return self.proc.returncode

    def __enter__(self) -> "ServerProcess":
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


def write_json(path: str | None, report: dict) -> None:
    """A bench's report as JSON at ``path`` (its ``--json``), when one was given."""
    if path:
        import json

        with open(path, "w") as fh:
            json.dump(report, fh, indent=2)


def proc_status_kib(field: str, pid: int | str = "self") -> int:
    """KiB from /proc/<pid>/status.  VmHWM is that process's own peak RSS: unlike ru_maxrss it does
    not inherit the high-water mark of a parent that forked it."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


class CpuWindow:
    """CPU used by some processes (and by the whole machine) between :meth:`start` and :meth:`stop`,
    as server_roundtrip.py samples it, so a result says which side was busy and whether someone else
    was too (2 shared cores)."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids

    def start(self) -> None:
        self._before = {k: cpu_seconds(p) for k, p in self.pids.items()}
        self._m0 = machine_ticks()
        self._t0 = time.perf_counter()

    def stop(self) -> dict:
        after = {k: cpu_seconds(p) for k, p in self.pids.items()}
        m1 = machine_ticks()
        span = max(1e-9, time.perf_counter() - self._t0)
        m0 = self._m0
        total = max(1, m1[0] - m0[0])
        out = {f"{k}_cpu": (after[k] - self._before[k]) / span * 100 for k in self.pids}
        out["machine_busy"] = 100 * (1 - (m1[1] - m0[1] + m1[2] - m0[2]) / total)
        out["machine_iowait"] = 100 * (m1[2] - m0[2]) / total
        ours = sum(out[f"{k}_cpu"] for k in self.pids)
        out["others_cpu"] = max(0.0, out["machine_busy"] * (os.cpu_count() or 1) - ours)
        return out


def cpu_note(c: dict) -> str:
    others = c["others_cpu"]
    return (f"server {c['server_cpu']:.0f}%, client {c['client_cpu']:.0f}%, iowait {c['machine_iowait']:.0f}%, "
            f"others {others:.0f}%" + (" NOISY" if others > 20 else ""))


def summary_ms(latencies_s: list[float]) -> dict:
    """count, mean, p50, p99 and max of latencies given in seconds, in milliseconds."""
    lat = sorted(latencies_s)
    n = len(lat)
    return {"count": n, "mean_ms": (sum(lat) / n * 1000 if n else float("nan")),
            "p50_ms": pct(lat, 0.50) * 1000, "p99_ms": pct(lat, 0.99) * 1000,
            "max_ms": (lat[-1] * 1000 if n else float("nan"))}


# ------------------------------------------------------------------------------------------------
# client side (trio)
# ------------------------------------------------------------------------------------------------

async def connect(port: int):
    from qmlite.client.aio import AsyncQueueManager

    return await AsyncQueueManager.connect(HOST, port, CHANNEL, "", user=USER, password=PASSWORD)


async def define_local_queue(qm, name: str, *, max_depth: int = MAX_Q_DEPTH, persistent: bool | None = None) -> None:
    """PCF Create Queue (local, Replace yes): the DEV queues' MaxQDepth of 5,000 is too small here."""
    from qmlite.pcf import constants as C
    from qmlite.pcf import pcf as P

    params = [P.CFST(C.MQCA_Q_NAME, name), P.CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
              P.CFIN(C.MQIA_MAX_Q_DEPTH, max_depth), P.CFIN(C.MQIACF_REPLACE, C.MQRP_YES)]
    if persistent is not None:
        params.append(P.CFIN(C.MQIA_DEF_PERSISTENCE, C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT))
    await qm.pcf(C.MQCMD_CREATE_Q, params)


async def delete_queue(qm, name: str) -> None:
    """PCF Delete Queue with Purge yes (its messages go too)."""
    from qmlite.pcf import constants as C
    from qmlite.pcf import pcf as P

    await qm.pcf(C.MQCMD_DELETE_Q, [P.CFST(C.MQCA_Q_NAME, name), P.CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
                                    P.CFIN(C.MQIACF_PURGE, C.MQPO_YES)])


async def current_depth(qm, name: str) -> int:
    """CurrentQDepth through MQOPEN(INQUIRE) + MQINQ + MQCLOSE."""
    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQOD

    hobj, _ = await qm.open(MQOD(ObjectName=name), C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
    try:
        ints, _ = await qm.inq(hobj, [C.MQIA_CURRENT_Q_DEPTH], 1, 0)
    finally:
        await qm.close(hobj)
    return ints[0]


async def fill(port: int, queue: str, count: int, *, size: int, persistent: bool, connections: int = 4,
               per_commit: int = 1000, progress_every: float = 15.0) -> float:
    """Put ``count`` messages of ``size`` bytes on ``queue`` from ``connections`` concurrent
    connections (our client runs one MQI call at a time per connection, so concurrency is the only
    pipelining there is).  ``per_commit`` > 0: MQPMO_SYNCPOINT and an MQCMIT every ``per_commit``
    puts (one group commit per unit of work for persistent messages); 0: MQPMO_NO_SYNCPOINT.
    Returns the seconds taken.  Progress goes to stderr every ``progress_every`` seconds."""
    import trio

    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQMD, MQOD, MQPMO

    if count <= 0:
        return 0.0
    connections = max(1, min(connections, count))
    shares = [count // connections + (1 if i < count % connections else 0) for i in range(connections)]
    payload = b"F" * size
    md = MQMD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    pmo = MQPMO(Options=(C.MQPMO_SYNCPOINT if per_commit > 0 else C.MQPMO_NO_SYNCPOINT)
                | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING)
    done = [0]
    t0 = time.perf_counter()

    async def one(share: int) -> None:
        qm = await connect(port)
        try:
            hobj, _ = await qm.open(MQOD(ObjectName=queue), C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
            in_uow = 0
            for _ in range(share):
                await qm.put(hobj, md, pmo, payload)
                done[0] += 1
                if per_commit > 0:
                    in_uow += 1
                    if in_uow == per_commit:
                        await qm.cmit()
                        in_uow = 0
            if in_uow:
                await qm.cmit()
            await qm.close(hobj)
        finally:
            await qm.disc()

    async def report(cancel: trio.CancelScope) -> None:
        with cancel:
            while True:
                await trio.sleep(progress_every)
                rate = done[0] / (time.perf_counter() - t0)
                print(f"  ... {done[0]:,}/{count:,} put on {queue} ({rate:,.0f}/s)", file=sys.stderr, flush=True)

    async with trio.open_nursery() as outer:
        progress = trio.CancelScope()
        outer.start_soon(report, progress)
        async with trio.open_nursery() as nursery:
            for share in shares:
                nursery.start_soon(one, share)
        progress.cancel()
    return time.perf_counter() - t0


def ibmmq_put_get(port: int, queue: str, body: bytes, calls: int) -> dict:
    """IBM's ``ibmmq`` on one connection: ``calls`` MQPUTs of ``body`` to ``queue``, then as many MQGETs;
    their rates (``put/s``, ``get/s``).  The workload the monitoring and activity-trace benchmarks share."""
    import ibmmq
    from ibmmq import CMQC

    qm = ibmmq.connect(QMGR, CHANNEL, f"{HOST}({port})", USER, PASSWORD)
    q = ibmmq.Queue(qm, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        t0 = time.perf_counter()
        for _ in range(calls):
            q.put(body)
        t1 = time.perf_counter()
        for _ in range(calls):
            q.get()
        t2 = time.perf_counter()
    finally:
        q.close()
        qm.disconnect()
    return {"put/s": calls / (t1 - t0), "get/s": calls / (t2 - t1)}


def loop_work():
    """A trio instrument counting the event loop's work rather than timing it (issue 35): task steps by
    task, tasks spawned, waits for I/O (each an ``epoll_wait``); ``per(n)`` gives them per unit of work."""
    import collections

    import trio

    class LoopWork(trio.abc.Instrument):
        def __init__(self) -> None:
            self.steps: collections.Counter = collections.Counter()
            self.spawned = self.waits = 0

        def before_task_step(self, task) -> None:
            self.steps[task.name] += 1

        def task_spawned(self, task) -> None:
            self.spawned += 1

        def before_io_wait(self, timeout) -> None:
            self.waits += 1

        def per(self, n: int, digits: int = 2) -> dict:
            n = max(n, 1)
            return {"task_steps": round(sum(self.steps.values()) / n, digits),
                    "tasks_spawned": round(self.spawned / n, digits), "io_waits": round(self.waits / n, digits),
                    "steps_by_task": {k: round(v / n, digits) for k, v in self.steps.most_common(6)}}

    return LoopWork()



# ---- how this machine's idle CPUs wait (issue 35) ---------------------------------------------------
# A ping-pong between two processes pays for every wake-up of a CPU that went idle in between.  What one
# costs depends on the machine: on a VM whose idle vCPUs halt at once (guest halt polling off, as on the
# Firecracker VMs these figures were taken on) each wake-up is a trip through the host.  The benches print
# the policy beside their figures, and ``--awake`` measures the same run with the CPUs kept busy, so the
# wake-ups' share of a figure is measured rather than guessed (docs/decisions.md BD9).

_HALT_POLL_ARG = re.compile(r"(?:^|\s)(haltpoll\.guest_halt_poll_ns|cpuidle_haltpoll\.force)=(\S+)")


def _read(path: pathlib.Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def idle_policy(root: str | os.PathLike = "/") -> dict:
    """How an idle CPU waits here: the cpuidle driver and governor, guest halt polling (the haltpoll
    driver's ``guest_halt_poll_ns``: 0 means an idle vCPU halts at once) and what the kernel's command
    line set of it.  Missing files give None (a container may hide /sys)."""
    root = pathlib.Path(root)
    cpuidle = root / "sys/devices/system/cpu/cpuidle"
    governor = _read(cpuidle / "current_governor_ro") or _read(cpuidle / "current_governor")
    poll = _read(root / "sys/module/haltpoll/parameters/guest_halt_poll_ns")
    cmdline = _read(root / "proc/cmdline") or ""
    return {"cpuidle_driver": _read(cpuidle / "current_driver"), "cpuidle_governor": governor,
            "guest_halt_poll_ns": int(poll) if poll is not None and poll.isdigit() else None,
            "kernel_args": dict(_HALT_POLL_ARG.findall(cmdline))}


def idle_note(policy: dict, awake: bool = False) -> str:
    """One line for a bench's header: the policy, and whether ``--awake`` kept the CPUs busy."""
    poll = policy["guest_halt_poll_ns"]
    halts = " (an idle vCPU halts at once)" if poll == 0 else ""
    return (f"idle CPUs: cpuidle {policy['cpuidle_driver'] or 'unknown'}/{policy['cpuidle_governor'] or 'unknown'}, "
            f"guest halt polling {'unknown' if poll is None else f'{poll} ns'}{halts}"
            + ("; --awake: every CPU kept busy (a diagnostic)" if awake else ""))


_SPIN = "while True:\n    pass\n"


class Awake:
    """``--awake``: one busy process per CPU at nice 19 for as long as the block runs, so no CPU goes idle
    and no wake-up waits for one.  A diagnostic, not a condition for a target's figure: the spinners take
    what the scheduler leaves them (about 1.5% of a CPU each against a nice-0 process under CFS, more of an
    idle one), which CpuWindow shows as "others"."""

    def __init__(self, enabled: bool = True, count: int | None = None) -> None:
        self.enabled = enabled
        self.count = count if count is not None else (os.cpu_count() or 1)
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "Awake":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        if self.enabled:
            for _ in range(self.count):
                # niced in the child before it runs Python, so it is at 19 once Popen returns
                self.procs.append(subprocess.Popen([sys.executable, "-I", "-S", "-c", _SPIN],
                                                   preexec_fn=lambda: os.nice(19), stdin=subprocess.DEVNULL))

    def stop(self) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
        self.procs.clear()


def add_awake_option(ap) -> None:
    ap.add_argument("--awake", action="store_true",
                    help="keep every CPU busy with a nice-19 spinner while measuring: what the idle CPUs' "
                         "wake-ups cost the figures (a diagnostic; targets are judged without it)")


def in_process(drive, *, environ: dict | None = None, synchronous: str = "NORMAL") -> None:
    """A server in this process (a fresh data directory, its info lines off) while ``drive(port)`` runs its
    client in a worker thread: the set-up of the benches that count the event loop's work (``--steps``)."""
    import structlog
    import trio

    from qmlite.server import config
    from qmlite.server.listener import running

    async def run() -> None:
        with tempfile.TemporaryDirectory(prefix="qmlite-steps-") as tmp:
            cfg = config.load(environ=environ or {}, overrides={"host": HOST, "port": 0, "data_dir": f"{tmp}/{QMGR}"})
            async with running(cfg, synchronous=synchronous) as server:
                await trio.to_thread.run_sync(drive, server.port)

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(30))
    trio.run(run)


@contextlib.contextmanager
def counting(work):
    """From ``in_process``'s worker thread: the block's event-loop work counted by ``work`` (``loop_work``'s
    instrument, added and removed on the loop's own thread)."""
    import trio

    trio.from_thread.run_sync(trio.lowlevel.add_instrument, work)
    try:
        yield work
    finally:
        trio.from_thread.run_sync(trio.lowlevel.remove_instrument, work)
