"""scripts/bench/_common.py: how the machine's idle CPUs wait, printed beside every ping-pong figure, and
``--awake``, the diagnostic that keeps every CPU busy while a bench measures (issue 35, decision BD9)."""

from __future__ import annotations

import importlib
import os
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench"


def _common():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module("_common")


def _machine(root: pathlib.Path, *, driver="haltpoll", governor="haltpoll", poll="0", cmdline="") -> pathlib.Path:
    cpuidle = root / "sys/devices/system/cpu/cpuidle"
    cpuidle.mkdir(parents=True)
    (cpuidle / "current_driver").write_text(driver + "\n")
    (cpuidle / "current_governor_ro").write_text(governor + "\n")
    module = root / "sys/module/haltpoll/parameters"
    module.mkdir(parents=True)
    (module / "guest_halt_poll_ns").write_text(poll + "\n")
    (root / "proc").mkdir()
    (root / "proc/cmdline").write_text(cmdline + "\n")
    return root


def test_a_vm_whose_idle_vcpus_halt_at_once_says_so(tmp_path):
    B = _common()
    root = _machine(tmp_path, cmdline="console=ttyS0 cpuidle_haltpoll.force=1 haltpoll.guest_halt_poll_ns=0 quiet")
    policy = B.idle_policy(root)
    assert policy == {"cpuidle_driver": "haltpoll", "cpuidle_governor": "haltpoll", "guest_halt_poll_ns": 0,
                      "kernel_args": {"cpuidle_haltpoll.force": "1", "haltpoll.guest_halt_poll_ns": "0"}}
    note = B.idle_note(policy)
    assert "guest halt polling 0 ns (an idle vCPU halts at once)" in note
    assert "--awake" not in note
    assert B.idle_note(policy, awake=True).endswith("--awake: every CPU kept busy (a diagnostic)")


def test_a_machine_that_polls_before_halting_and_one_that_hides_sys(tmp_path):
    B = _common()
    polling = B.idle_policy(_machine(tmp_path / "a", driver="acpi_idle", governor="menu", poll="200000"))
    assert polling["guest_halt_poll_ns"] == 200000 and polling["kernel_args"] == {}
    assert "halts at once" not in B.idle_note(polling)
    hidden = B.idle_policy(tmp_path / "nothing")  # a container without /sys or /proc: unknown, not an error
    assert hidden == {"cpuidle_driver": None, "cpuidle_governor": None, "guest_halt_poll_ns": None,
                      "kernel_args": {}}
    assert "cpuidle unknown/unknown, guest halt polling unknown" in B.idle_note(hidden)


def test_awake_runs_one_nice_19_spinner_per_cpu_and_stops_them():
    B = _common()
    with B.Awake(count=2) as awake:
        assert len(awake.procs) == 2
        for p in awake.procs:
            assert p.poll() is None  # spinning
            assert os.getpriority(os.PRIO_PROCESS, p.pid) == 19  # niced before it ran: no race to wait for
        procs = list(awake.procs)
    assert awake.procs == []
    assert all(p.returncode is not None for p in procs)  # killed and reaped: nothing left spinning
    assert B.Awake().count == (os.cpu_count() or 1)


def test_awake_off_starts_nothing():
    B = _common()
    with B.Awake(False) as awake:
        assert awake.procs == []
