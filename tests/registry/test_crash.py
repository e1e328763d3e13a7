"""Crash safety: SIGKILL a command server mid-stream, restart, and find exactly the acknowledged commands.

``tests/support/crashprobe.py`` executes Create/Change/Delete Subscription commands through the engine
and prints ``ack n reason`` only after the commit.  The test streams a deterministic pseudo-random
sequence of commands (MANAGED subscriptions included, so a create or delete touches two tables in one
transaction), kills the probe with SIGKILL after a chosen number of acks while later commands are
still queued or executing, reopens the data directory and checks that its state is the model state
after the acknowledged commands, or after those plus the command (or group) that was in flight -- never
anything else.  Acks are the only synchronisation: no sleeps, no timing.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import random
import signal
import sqlite3
import subprocess
import sys
import threading

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.storage import sqlite as SQ
from qmlite.registry.storage.catalog import Registry
from tests.support import crashprobe

ROOT = pathlib.Path(__file__).resolve().parents[2]
PREFIX = "CRASH.SUB."
POOL = 40  # names are reused, so creates, changes and deletes of the same subscription interleave


@dataclasses.dataclass(frozen=True)
class ModelSub:
    topic: str
    managed: bool
    user_data: str
    priority: int


Model = dict[str, ModelSub]


def generate(seed: int, count: int) -> list[dict]:
    """Commands that are mostly valid against the model, with some that must fail (and change nothing)."""
    rng = random.Random(seed)
    live: set[str] = set()
    out = []
    for n in range(count):
        name = f"{PREFIX}{rng.randrange(POOL)}"
        roll = rng.random()
        data = f"u{n}-{rng.randrange(10**6)}"
        prio = rng.randrange(10)
        if name in live:
            if roll < 0.5:
                cmd = {"op": "change", "name": name, "user_data": data, "priority": prio}
            elif roll < 0.9:
                cmd = {"op": "delete", "name": name}
                live.discard(name)
            else:  # already exists: must fail
                cmd = {"op": "create", "name": name, "topic": f"crash/{n}", "managed": False,
                       "user_data": data, "priority": prio}
        elif roll < 0.85:
            cmd = {"op": "create", "name": name, "topic": f"crash/{rng.randrange(8)}/{n}",
                   "managed": rng.random() < 0.5, "user_data": data, "priority": prio}
            live.add(name)
        else:  # no such subscription: must fail
            cmd = {"op": rng.choice(["change", "delete"]), "name": name, "user_data": data, "priority": prio}
        out.append(cmd)
    return out


def apply(model: Model, cmd: dict) -> bool:
    """Apply one command to the model; False when the queue manager must refuse it."""
    name = cmd["name"]
    if cmd["op"] == "create":
        if name in model:
            return False
        model[name] = ModelSub(cmd["topic"], cmd["managed"], cmd["user_data"], cmd["priority"])
    elif cmd["op"] == "change":
        if name not in model:
            return False
        model[name] = dataclasses.replace(model[name], user_data=cmd["user_data"], priority=cmd["priority"])
    else:
        if name not in model:
            return False
        del model[name]
    return True


def model_after(commands: list[dict], n: int) -> Model:
    model: Model = {}
    for cmd in commands[:n]:
        apply(model, cmd)
    return model


def observe(data_dir: pathlib.Path, baseline_queues: set[str]) -> Model:
    """The registry's subscriptions as model entries, after checking the invariants of each one."""
    with sqlite3.connect(data_dir / SQ.FILENAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    reg = Registry.open(data_dir, crashprobe.QMGR)
    try:
        ours = {name: s for name, s in reg.subs.items() if name.startswith(PREFIX)}
        assert len(reg.subs_by_id) == len(reg.subs)  # SubIds unique
        managed_queues = set(reg.queues) - baseline_queues
        used = set()
        state: Model = {}
        for name, s in ours.items():
            managed = s.destination_class == C.MQDC_MANAGED
            dest = s.destination.rstrip()
            if managed:
                assert dest in reg.queues, f"{name}: managed subscription without its queue {dest!r}"
                used.add(dest)
            else:
                assert s.destination_class == C.MQDC_PROVIDED and dest == crashprobe.PROVIDED_QUEUE
            state[name] = ModelSub(s.topic_string.rstrip(), managed, s.user_data.rstrip(), s.pub_priority)
        assert managed_queues == used, f"managed queues without a subscription: {managed_queues - used}"
        return state
    finally:
        reg.close()


def baseline(tmp_path: pathlib.Path) -> set[str]:
    reg = Registry.open(tmp_path / "baseline", crashprobe.QMGR)
    names = set(reg.queues)
    reg.close()
    return names


class Probe:
    running: list[Probe] = []

    def __init__(self, data_dir: pathlib.Path, batch: int, *extra: str) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        with open(data_dir.parent / "probe.stderr", "a") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.support.crashprobe", str(data_dir), "--batch", str(batch), *extra],
                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1,
            )
        Probe.running.append(self)
        assert self.proc.stdout.readline() == "ready\n"

    def feed(self, commands: list[dict]) -> threading.Thread:
        def write() -> None:
            try:
                for cmd in commands:
                    self.proc.stdin.write(json.dumps(cmd) + "\n")
                self.proc.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass  # killed while we were still writing: that is the point

        thread = threading.Thread(target=write, daemon=True)
        thread.start()
        return thread

    def acks(self):
        for line in self.proc.stdout:
            word, n, reason = line.split()
            assert word == "ack"
            yield int(n), int(reason)


@pytest.fixture(autouse=True)
def reap_probes():
    """A failing test must not leave a probe behind: kill and reap every probe it started."""
    yield
    while Probe.running:
        proc = Probe.running.pop().proc
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            try:
                pipe.close()
            except (BrokenPipeError, OSError):
                pass


def check_acks(commands: list[dict], acks: list[tuple[int, int]], model: Model | None = None) -> None:
    """Each acked command succeeded exactly when the model says it should have."""
    model = {} if model is None else dict(model)
    for (n, reason), cmd in zip(acks, commands):
        valid = apply(model, cmd)
        assert (reason == 0) == valid, f"command {n} {cmd}: reason {reason}, expected {'0' if valid else 'a failure'}"
    assert [n for n, _ in acks] == list(range(1, len(acks) + 1))


def kill_points(commands: list[dict], seed: int, batch: int, kills: int) -> list[int]:
    """Ack counts after which to kill.  Mostly just before a command that touches two tables (a
    managed create, or any delete: a half-applied one would leave a subscription or queue behind)."""
    rng = random.Random(seed * 7919 + batch)
    risky = [n for n, cmd in enumerate(commands[:-40])
             if n >= 5 and n % batch == 0 and (cmd["op"] == "delete" or cmd.get("managed"))]
    points = set(rng.sample(risky, kills - 1)) | {rng.randrange(5, len(commands) - 40)}
    return sorted(points)


def run_until_killed(data_dir: pathlib.Path, batch: int, commands: list[dict], kill_after: int):
    """Stream ``commands``; SIGKILL after ``kill_after`` acks; return every ack the probe printed."""
    probe = Probe(data_dir, batch)
    writer = probe.feed(commands)
    acks = []
    stream = probe.acks()
    for ack in stream:
        acks.append(ack)
        if len(acks) == kill_after:
            probe.proc.send_signal(signal.SIGKILL)
            break
    acks.extend(stream)  # acks the probe printed before it died are acknowledged too
    assert probe.proc.wait() == -signal.SIGKILL
    writer.join()
    assert kill_after <= len(acks) < len(commands), "the kill must land while commands are in flight"
    return acks


@pytest.mark.parametrize("batch", [1, 8], ids=["execute", "group8"])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_sigkill_mid_stream_keeps_exactly_the_acknowledged_commands(tmp_path, seed, batch):
    total = 400
    commands = generate(seed, total)
    data_dir = tmp_path / "data"
    queues = baseline(tmp_path)

    done = 0  # commands known to be durable: each restart carries on from there
    for point in kill_points(commands, seed, batch, kills=4):
        if point <= done:
            continue
        acks = run_until_killed(data_dir, batch, commands[done:], point - done)
        check_acks(commands[done:], acks, model_after(commands, done))
        # Commits happen per command (batch 1) or per group of `batch`: a group is durable as soon as
        # any of its acks was printed, and the next group may or may not have committed.
        durable = done + -(-len(acks) // batch) * batch
        candidates = {n: model_after(commands, min(n, total)) for n in (durable, durable + batch)}
        state = observe(data_dir, queues)
        matched = [n for n, model in candidates.items() if model == state]
        assert matched, (f"killed after {done + len(acks)} acks: the registry matches neither "
                         f"{sorted(candidates)} commands applied")
        done = min(min(matched), total)

    # The recovered registry carries on: the rest of the stream runs to completion on it.
    probe = Probe(data_dir, batch)
    probe.feed(commands[done:]).join()
    rest = list(probe.acks())
    assert probe.proc.wait() == 0
    assert len(rest) == total - done
    check_acks(commands[done:], rest, model_after(commands, done))
    assert observe(data_dir, queues) == model_after(commands, total)


@pytest.mark.parametrize("batch", [1, 8], ids=["execute", "group8"])
def test_kill_inside_a_commit_applies_none_of_it(tmp_path, batch):
    """The probe kills itself just before the S-th SQL statement of its commits (BEGIN, a write of a
    command, or COMMIT): whatever part of the transaction had run, none of it may be visible."""
    total = 240
    commands = generate(100 + batch, total)
    data_dir = tmp_path / "data"
    queues = baseline(tmp_path)
    rng = random.Random(batch)
    done = 0
    for _ in range(12):
        statement = rng.randrange(1, 60)  # well inside the statements of the commands left
        probe = Probe(data_dir, batch, "--kill-at", str(statement))
        writer = probe.feed(commands[done:])
        acks = list(probe.acks())
        assert probe.proc.wait() == -signal.SIGKILL, "the probe must die inside a commit"
        writer.join()
        assert len(acks) % batch == 0  # every group's acks follow its commit, so none is partial here
        check_acks(commands[done:], acks, model_after(commands, done))
        done += len(acks)
        assert observe(data_dir, queues) == model_after(commands, done), f"kill at statement {statement}"
    assert done > total // 4


def test_model_generator_mixes_every_kind_of_command():
    commands = generate(1, 400)
    model: Model = {}
    kinds = {}
    for cmd in commands:
        key = (cmd["op"], apply(model, cmd))
        kinds[key] = kinds.get(key, 0) + 1
    assert set(kinds) == {(op, ok) for op in ("create", "change", "delete") for ok in (True, False)}
    assert sum(1 for c in commands if c["op"] == "create" and c.get("managed")) > 40


def test_clean_run_without_a_kill_keeps_every_command(tmp_path):
    """Control case: without a kill every command is acked and present."""
    commands = generate(9, 60)
    data_dir = tmp_path / "data"
    queues = baseline(tmp_path)
    probe = Probe(data_dir, 1)
    probe.feed(commands).join()
    acks = list(probe.acks())
    assert probe.proc.wait() == 0
    check_acks(commands, acks)
    assert len(acks) == 60
    assert observe(data_dir, queues) == model_after(commands, 60)
