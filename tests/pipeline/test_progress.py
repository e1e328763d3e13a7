"""pipeline.progress against a fake SparkContext / status tracker (no Spark, no sleeps)."""

from __future__ import annotations

import io
import threading
from types import SimpleNamespace

import pytest

from qmlite.pipeline.progress import Progress

WAIT = 10.0  # seconds an event may take to arrive before the test fails (never a sleep)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Tracker:
    """The part of pyspark's StatusTracker that Progress uses; ``polled`` is set on every call."""

    def __init__(self, stages: dict | None = None, fail: bool = False) -> None:
        self.stages = stages or {}
        self.fail = fail
        self.polled = threading.Event()

    def getActiveStageIds(self):  # noqa: N802 -- pyspark's name
        self.polled.set()
        if self.fail:
            raise RuntimeError("the JVM went away")
        return list(self.stages)

    def getStageInfo(self, stage_id):  # noqa: N802
        return self.stages.get(stage_id)


def _sc(tracker: Tracker):
    return SimpleNamespace(statusTracker=lambda: tracker)


def _stage(name: str, done: int, total: int):
    return SimpleNamespace(name=name, numCompletedTasks=done, numTasks=total)


class TtyStream(io.StringIO):
    def isatty(self) -> bool:
        super().isatty()  # ValueError once closed, like a real stream
        return True


def test_line_shows_stages_tasks_elapsed_and_estimated_rate():
    clock, out = Clock(), io.StringIO()
    tracker = Tracker({5: _stage("save at route_job.py:80", 2, 4), 3: _stage("parquet at\nNative:0", 10, 12)})
    with Progress(_sc(tracker), label="route", total_rows=1000, stream=out, clock=clock) as p:
        clock.now += 2.0
        line = p.poll_once()
    # 12 of 16 tasks done: ~750 of 1000 rows in 2 s.
    assert line == ("route  stage 3 (parquet at Native:0), stage 5 (save at route_job.py:80)  12/16 tasks  2.0 s"
                    "  ~375 rows/s")
    assert out.getvalue() == "\r" + line  # not a terminal, not forced: no closing line either


def test_the_estimate_counts_every_stage_seen_and_a_stage_gone_as_finished():
    clock = Clock()
    tracker = Tracker({1: _stage("read", 1, 2)})
    p = Progress(_sc(tracker), label="j", total_rows=800, stream=io.StringIO(), clock=clock)
    clock.now += 1.0
    assert p.line().endswith("1/2 tasks  1.0 s  ~400 rows/s")
    tracker.stages = {2: _stage("write", 0, 6)}  # stage 1 finished between the polls
    clock.now += 1.0
    assert p.line().endswith("0/6 tasks  2.0 s  ~100 rows/s")  # 2 of the 8 tasks seen: 200 rows in 2 s


def test_the_line_is_cut_to_its_width():
    tracker = Tracker({n: _stage("s" * 60, 0, 1) for n in range(10)})
    p = Progress(_sc(tracker), stream=io.StringIO(), clock=Clock())
    line = p.line()
    assert len(line) == p.width == 160 and line.endswith("\u2026")


def test_counted_rows_make_the_rate_exact():
    clock = Clock()
    p = Progress(_sc(Tracker()), label="load", total_rows=10, stream=io.StringIO(), clock=clock)
    p.add_rows(300)
    p.add_rows(100)
    clock.now += 4.0
    assert p.line() == "load  waiting  4.0 s  400 rows  100 rows/s"
    assert p.final_line() == "load  done  4.0 s  400 rows  100 rows/s"


def test_a_stage_that_finished_between_calls_is_left_out():
    tracker = Tracker({1: _stage("a", 1, 2)})
    tracker.stages[2] = None  # listed as active, gone by the time its info is asked for
    line = Progress(_sc(tracker), stream=io.StringIO(), clock=Clock()).line()
    assert "stage 1 (a)" in line and "stage 2" not in line and "1/2 tasks" in line


def test_a_shorter_line_blanks_what_the_longer_one_left():
    out = io.StringIO()
    tracker = Tracker({1: _stage("x" * 30, 0, 1)})
    p = Progress(_sc(tracker), label="j", stream=out, clock=Clock())
    first = p.poll_once()
    tracker.stages.clear()
    second = p.poll_once()
    assert out.getvalue() == "\r" + first + "\r" + second + " " * (len(first) - len(second))


def test_without_a_terminal_nothing_runs_and_nothing_is_written():
    tracker, out = Tracker({1: _stage("a", 0, 1)}), io.StringIO()
    with Progress(_sc(tracker), stream=out) as p:
        assert not p.enabled and not p.running
    assert out.getvalue() == ""
    assert not tracker.polled.is_set()


def test_on_a_terminal_the_thread_polls_and_the_block_ends_with_a_closing_line():
    tracker, out = Tracker({7: _stage("count at x:1", 3, 8)}), TtyStream()
    with Progress(_sc(tracker), label="route", total_rows=42, stream=out) as p:
        assert p.enabled
        assert tracker.polled.wait(WAIT)
    assert not p.running
    text = out.getvalue()
    assert "route  stage 7 (count at x:1)  3/8 tasks" in text
    assert text.endswith("\n") and "route  done" in text.splitlines()[-1].split("\r")[-1]
    assert "42 rows" in text


def test_forced_progress_runs_without_a_terminal():
    tracker, out = Tracker({1: _stage("a", 0, 1)}), io.StringIO()
    with Progress(_sc(tracker), stream=out, force=True):
        assert tracker.polled.wait(WAIT)
    assert "stage 1 (a)" in out.getvalue()


def test_an_exception_in_the_thread_ends_it_and_not_the_job():
    tracker, out = Tracker(fail=True), io.StringIO()
    with Progress(_sc(tracker), label="route", stream=out, force=True) as p:
        assert tracker.polled.wait(WAIT)
        p._thread.join(WAIT)
        assert not p.running  # ended by the error, while the job goes on
        job_result = 6 * 7
    assert job_result == 42
    assert out.getvalue().startswith("\rroute  done")


def test_a_failing_block_says_so_and_its_exception_propagates():
    out = io.StringIO()
    with pytest.raises(ValueError, match="boom"):
        with Progress(_sc(Tracker()), label="route", total_rows=10, stream=out, force=True, interval=60,
                      clock=Clock()):
            raise ValueError("boom")
    last = out.getvalue().split("\r")[-1]
    assert last.endswith("\n") and last.rstrip() == "route  failed  0.0 s"  # and no claim about rows done


def test_a_closed_stream_never_breaks_the_job():
    out = TtyStream()
    with Progress(_sc(Tracker()), stream=out, interval=60) as p:
        assert p.enabled
        out.close()  # isatty and write now raise ValueError
    assert not p.running
    assert not Progress(_sc(Tracker()), stream=out).enabled  # a closed stream is no terminal
