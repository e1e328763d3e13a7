"""README's first command, ./scripts/serve, in a fresh clone: the first run installs (quietly), the second
installs nothing and prints nothing before qmlite's ready line (issue 25)."""

from __future__ import annotations

import os
import pathlib
import queue
import signal
import subprocess
import sys
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
READY = "qmlite ready: queue manager QM1 listening on "


def _run_until_ready(clone: pathlib.Path) -> tuple[list[str], list[str]]:
    """Run ``./scripts/serve --port 0`` (README's command, on a free port) until its ready line, then
    stop it with SIGTERM as a user's Ctrl-C would. Returns (lines before ready, lines from ready on)."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.Popen(["./scripts/serve", "--port", "0"], cwd=clone, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    before: list[str] = []
    after: list[str] = []
    try:
        while True:
            line = lines.get(timeout=600)  # a first run installs from the package index
            assert line is not None, f"./scripts/serve ended before its ready line: {before}"
            if line.startswith(READY):
                after.append(line)
                break
            before.append(line)
        for _ in range(4):  # IBM's start lines (AMQ8003I, AMQ5026I, AMQ5806I, Started queue manager) follow it
            after.append(lines.get(timeout=60))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    while (line := lines.get(timeout=60)) is not None:
        after.append(line)
    return before, after


def _installed(clone: pathlib.Path) -> dict[str, float]:
    """What .venv holds: every entry of site-packages and the install stamps, with their mtimes."""
    venv = clone / ".venv"
    paths = [*venv.glob("lib/python*/site-packages/*"), *venv.glob(".stamp-*")]
    return {str(p.relative_to(venv)): p.stat().st_mtime for p in paths}


@pytest.mark.slow
def test_a_second_serve_installs_nothing_and_prints_qmlite_lines_only(tmp_path):
    clone = tmp_path / "qmlite"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)

    first_before, first_after = _run_until_ready(clone)
    # The first run says once that it installs, and pip is quiet: no notices, no deprecation warnings.
    assert first_before == ["qmlite: installing into .venv (once; again only when pyproject.toml changes)..."]
    installed = _installed(clone)
    assert ".stamp-serve" in installed

    second_before, second_after = _run_until_ready(clone)
    assert second_before == []  # the ready line is the first line printed
    assert " AMQ5806I: Queued Publish/Subscribe Daemon started for queue manager QM1." in second_after[3]
    assert _installed(clone) == installed  # nothing installed, nothing rewritten
    for line in first_after + second_after:
        assert "warning" not in line.lower() and "deprecat" not in line.lower(), line


@pytest.mark.slow
def test_a_changed_pyproject_installs_again(tmp_path):
    clone = tmp_path / "qmlite"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    _run_until_ready(clone)
    stamp = (clone / ".venv" / ".stamp-serve").read_text()
    with (clone / "pyproject.toml").open("a") as f:
        f.write("\n# a change to the project's metadata\n")
    before, _ = _run_until_ready(clone)
    assert before == ["qmlite: installing into .venv (once; again only when pyproject.toml changes)..."]
    assert (clone / ".venv" / ".stamp-serve").read_text() != stamp


def test_version_names_the_mq_level_presented():
    from qmlite.cli import version_text
    from qmlite import __version__

    out = subprocess.run([str(pathlib.Path(sys.executable).parent / "qmlite"), "--version"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.strip() == version_text()
    assert out.stdout.startswith(f"qmlite {__version__} (presents IBM MQ 9.1.2.0: command level 912, FAP level 13)")
