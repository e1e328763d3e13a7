"""One updating progress line on stderr while a Spark job runs: stages, tasks, elapsed time, rate.

    with Progress(spark.sparkContext, label="route", total_rows=n):
        route(...)

A daemon thread asks ``sc.statusTracker()`` every ``interval`` seconds which stages are active and
how many of their tasks are done, and rewrites one line (carriage return, no newline) with it::

    route  stage 3 (parquet at ...)  12/16 tasks  4.2 s  ~1,234,567 rows/s

It runs only when the stream is a terminal (or ``force=True``): in a log file a line rewritten
twice a second is noise.  Progress is a courtesy, never a risk to the job: the thread is a daemon,
leaving the block waits for it at most a moment, and any exception in it (the JVM going away, a
closed stream) ends the thread silently.

Rows done are not something Spark's status tracker knows.  A caller that counts them calls
:meth:`Progress.add_rows`; otherwise, given ``total_rows``, the rate is estimated (shown with ``~``)
from the share of tasks finished in every stage seen so far -- a stage that left the active list
counts as finished -- and the closing line gives the exact ``total_rows / elapsed``.

Spark draws its own console progress bar on stderr too (``spark.ui.showConsoleProgress``); a
session that uses this one should turn that off, or the two lines overwrite each other.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable, Optional, TextIO

NAME_CHARS = 40  # a stage name (Spark's call site) is cut to this on the line
LINE_CHARS = 160  # the whole line is cut to this (or the terminal's width): a wrapped line cannot be rewritten


class Progress:
    def __init__(self, sc, label: str = "job", total_rows: Optional[int] = None, stream: Optional[TextIO] = None,
                 force: bool = False, interval: float = 0.5, clock: Callable[[], float] = time.monotonic) -> None:
        self.sc = sc
        self.label = label
        self.total_rows = total_rows
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.clock = clock
        self.enabled = force or _isatty(self.stream)
        self.rows_done: Optional[int] = None  # set through add_rows by a caller that counts
        self.width = min(LINE_CHARS, _columns(self.stream) - 1)
        self._seen: dict[int, tuple[int, int]] = {}  # stage id -> (tasks done, tasks), for the estimate
        self._started = clock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._write_lock = threading.Lock()
        self._closed = False  # the closing line is written: nothing more
        self._width = 0  # length of the last line written, to blank what a shorter one leaves

    # -- the context manager ------------------------------------------------------------------

    def __enter__(self) -> "Progress":
        self._started = self.clock()
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name=f"progress-{self.label}", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._stop.set()
        if self._thread is not None:
            # A poll stuck in a JVM call must not hold the job up: the thread is a daemon, let it be.
            self._thread.join(timeout=max(1.0, 2 * self.interval))
        if self.enabled:
            try:
                self._write(self.final_line(failed=exc_type is not None), end="\n")
            except Exception:  # noqa: BLE001 -- a closed stream must not turn a finished job into a failed one
                pass

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self.poll_once()
                self._stop.wait(self.interval)
        except Exception:  # noqa: BLE001 -- see the module docstring: progress never breaks the job
            return

    # -- what the line says -------------------------------------------------------------------

    def add_rows(self, n: int) -> None:
        """Count ``n`` more rows done (for a caller that knows; makes the rate exact)."""
        self.rows_done = (self.rows_done or 0) + n

    def elapsed(self) -> float:
        return max(0.0, self.clock() - self._started)

    def poll_once(self) -> str:
        """Ask the status tracker once and rewrite the line; returns the line.  Exceptions propagate
        (the thread's loop is what swallows them)."""
        line = self.line()
        self._write(line)
        return line

    def line(self) -> str:
        tracker = self.sc.statusTracker()
        stages = []
        done = total = 0
        active = sorted(tracker.getActiveStageIds())
        for stage_id, (_, tasks) in self._seen.items():
            if stage_id not in active:
                self._seen[stage_id] = (tasks, tasks)  # gone from the active list: finished
        for stage_id in active:
            info = tracker.getStageInfo(stage_id)
            if info is None:  # finished between the two calls
                continue
            self._seen[stage_id] = (info.numCompletedTasks, info.numTasks)
            name = " ".join(str(info.name).split())  # a call site can carry newlines
            stages.append(f"stage {stage_id} ({_cut(name, NAME_CHARS)})")
            done += info.numCompletedTasks
            total += info.numTasks
        parts = [self.label, ", ".join(stages) if stages else "waiting"]
        if total:
            parts.append(f"{done}/{total} tasks")
        elapsed = self.elapsed()
        parts.append(f"{elapsed:.1f} s")
        rate = self._rate(elapsed)
        if rate:
            parts.append(rate)
        return _cut("  ".join(parts), self.width)

    def _rate(self, elapsed: float) -> str:
        if elapsed <= 0:
            return ""
        if self.rows_done is not None:
            return f"{self.rows_done:,} rows  {self.rows_done / elapsed:,.0f} rows/s"
        done = sum(d for d, _ in self._seen.values())
        total = sum(t for _, t in self._seen.values())
        if self.total_rows and total:
            # An estimate: the share of the work known so far that is done, as a share of the rows.
            return f"~{self.total_rows * done / total / elapsed:,.0f} rows/s"
        return ""

    def final_line(self, failed: bool = False) -> str:
        elapsed = self.elapsed()
        parts = [self.label, "failed" if failed else "done", f"{elapsed:.1f} s"]
        rows = self.rows_done if self.rows_done is not None else self.total_rows
        if rows is not None and not failed:  # a failed job did not get through its rows
            parts.append(f"{rows:,} rows")
            if elapsed > 0:
                parts.append(f"{rows / elapsed:,.0f} rows/s")
        return "  ".join(parts)

    def _write(self, line: str, end: str = "") -> None:
        with self._write_lock:
            if self._closed:
                return  # a poll that outlived the join must not overwrite the closing line
            self._closed = bool(end)
            pad = " " * max(0, self._width - len(line))
            self._width = 0 if end else len(line)
            self.stream.write("\r" + line + pad + end)
            self.stream.flush()


def _cut(text: object, n: int) -> str:
    text = str(text)
    return text if len(text) <= n else text[:n - 1] + "\u2026"


def _columns(stream) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):  # not a terminal (a file, a StringIO, closed)
        return LINE_CHARS + 1
    return columns if columns >= 20 else LINE_CHARS + 1  # some terminals say 0: no width known


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
