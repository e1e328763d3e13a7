"""Pure-Python work on the driver split over forked copies of it, while the executors have nothing to do.

The route job routes its distinct keys on the driver (``route_job.DRIVER_KEYS``): 100k keys take about 2 s of one
core between two Spark jobs, with every core the master has idle (docs/decisions.md SK6).  A forked child shares the
driver's loaded registry without a copy or a load, routes its share of the keys and sends back its rows, pickled,
through a pipe; the driver routes the first share meanwhile.

The child does only that: no Spark, no py4j, no logging, and routing reads the registry's memory, never its SQLite
store (a connection must not be used across a fork).  It leaves through ``os._exit``, so nothing the driver
registered (atexit, a JVM to stop, buffered output) runs or is written twice in it.  A child that fails for any reason
(killed, out of memory, an exception) has its share done again by the driver, which then raises what the work
raises: the result is always the work's own, in order.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import warnings
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")

# Below this many items a fork (page tables copied, then the pages both touch) costs more than the share saves.
MIN_SHARE = 5_000


def can_fork() -> bool:
    """Linux only: os.fork elsewhere is missing (Windows) or unsafe once threads run (macOS's frameworks)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def usable_cores() -> int:
    """The cores this process may run on: its affinity set where the OS has one (Linux: a container's or taskset's
    cores), else the machine's count."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def split_map(work: Callable[[Sequence], list[T]], items: Sequence, processes: int) -> list[T]:
    """``work(items)``, computed as ``work`` of up to ``processes`` contiguous shares of ``items`` concatenated in
    order: the first share in this process, the others each in a forked child.  ``work`` must be pure (its result
    depends only on its share) and its result picklable."""
    shares = max(1, min(processes, len(items) // MIN_SHARE)) if can_fork() else 1
    if shares == 1:
        return work(items)
    size = -(-len(items) // shares)
    parts = [items[i:i + size] for i in range(0, len(items), size)]
    pending: list[tuple[tuple[int, int] | None, Sequence]] = []
    try:
        pending = [(_fork(work, part), part) for part in parts[1:]]
        results = work(parts[0])
        while pending:
            child, part = pending.pop(0)
            results.extend(work(part) if child is None else _collect(*child, work, part))
    finally:
        for child, _ in pending:  # this process failed or was interrupted first: no child outlives it
            if child is not None:
                pid, fd = child
                os.close(fd)
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
    return results


def _fork(work, part) -> tuple[int, int] | None:
    """(pid, the read end of its pipe), or None when no child could be made (the share is then done here)."""
    read, write = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12 warns of fork in a process with threads (py4j's): the child touches none of their locks.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:  # EAGAIN, ENOMEM: too many processes or too little memory to map another copy
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: its share, sent back, and gone without running anything of the driver's
        code = 1
        try:
            os.close(read)
            data = memoryview(pickle.dumps(work(part), protocol=pickle.HIGHEST_PROTOCOL))
            while data:
                data = data[os.write(write, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collect(pid: int, fd: int, work, part) -> list:
    chunks, whole = [], False
    try:
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        whole = True
    finally:
        os.close(fd)
        if not whole:  # interrupted while reading: the child's rows are wanted no more, nor is it waited for
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return work(part)  # the child failed: its share done here, raising what the work raises
    return pickle.loads(b"".join(chunks))
