"""MQSC against a running server: start-up scripts, PCF Escape over the wire, ``qmlite runmqsc`` (client
mode and local), ``dspmq``, ``setmqaut``, and the pytest plugin's reset."""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import sys

import pytest

from qmlite.client.errors import MQIError
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from tests.support.served import ROOT, Served

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "mqsc"


@pytest.fixture(autouse=True)
def _reap():
    yield
    Served.reap_all()


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQ_")}
    env.update(extra)
    return env


def qmlite(*args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qmlite", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, env=_env(**env), timeout=120)


def escape(qm, text: str) -> list[P.PCFMessage]:
    params = [P.CFIN(C.MQIACF_ESCAPE_TYPE, C.MQET_MQSC), P.CFST(C.MQCACF_ESCAPE_TEXT, text)]
    try:
        return qm.pcf(C.MQCMD_ESCAPE, params)
    except MQIError as exc:
        assert exc.responses, exc
        return exc.responses


def escape_text(response: P.PCFMessage) -> str:
    found = {p.parameter: p.value for p in response.parameters}
    assert found[C.MQIACF_ESCAPE_TYPE] == C.MQET_MQSC
    return str(found[C.MQCACF_ESCAPE_TEXT])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def scripts(tmp_path) -> pathlib.Path:
    directory = tmp_path / "mqsc"
    directory.mkdir()
    shutil.copy(FIXTURES / "20-config.mqsc", directory / "20-config.mqsc")
    shutil.copy(FIXTURES / "10-dev.mqsc", directory / "10-dev.mqsc")
    # runs after 20-config.mqsc only if the files run in name order
    (directory / "30-after.mqsc").write_text("ALTER QLOCAL('APP.PRICES') DESCR('altered by 30')\n")
    (directory / "notes.txt").write_text("DEFINE QLOCAL(NOT.A.SCRIPT)\n")
    return directory


# ---- start-up scripts and Escape over the wire ---------------------------------------------------
def test_startup_scripts_run_in_name_order_and_escape_shows_them(tmp_path, scripts):
    served = Served(tmp_path / "data", "--mqsc-dir", str(scripts))
    with served.connect() as qm:
        [response] = escape(qm, "DISPLAY QLOCAL('APP.PRICES') DESCR MAXDEPTH")
        assert response.header.Command == C.MQCMD_INQUIRE_Q
        assert (response.header.CompCode, response.header.Control) == (C.MQCC_OK, C.MQCFC_LAST)
        assert escape_text(response).splitlines() == [
            "AMQ8409I: Display Queue details.",
            "   QUEUE(APP.PRICES)                       TYPE(QLOCAL)",
            "   DESCR(altered by 30)                    MAXDEPTH(50000)"]
        missing = escape(qm, "DIS QLOCAL(NOT.A.SCRIPT)")
        assert missing[0].header.CompCode == C.MQCC_FAILED
        assert escape_text(missing[0]) == "AMQ8147E: IBM MQ object NOT.A.SCRIPT not found."
    assert served.stop() == 0


def test_escape_answers_one_response_per_object_and_the_command_of_the_text(tmp_path):
    served = Served(tmp_path / "data")
    with served.connect() as qm:
        shown = escape(qm, "DIS QLOCAL(DEV.QUEUE.*)")
        assert [r.header.Command for r in shown] == [C.MQCMD_INQUIRE_Q] * 3
        assert [r.header.Control for r in shown] == [C.MQCFC_NOT_LAST, C.MQCFC_NOT_LAST, C.MQCFC_LAST]
        assert [escape_text(r).splitlines()[1].split()[0] for r in shown] == [
            "QUEUE(DEV.QUEUE.1)", "QUEUE(DEV.QUEUE.2)", "QUEUE(DEV.QUEUE.3)"]
        [changed] = escape(qm, "ALTER QLOCAL(DEV.QUEUE.1) MAXDEPTH(10)")
        assert changed.header.Command == C.MQCMD_CHANGE_Q and escape_text(changed) == "AMQ8008I: IBM MQ queue changed."
        [syntax] = escape(qm, "DEFINE QLOCAL(X) NONSENSE(1)")
        assert (syntax.header.CompCode, syntax.header.Reason) == (C.MQCC_FAILED, C.MQRCCF_PARM_SYNTAX_ERROR)
        assert escape_text(syntax).splitlines() == [
            "AMQ8405I: Syntax error detected at or near end of command segment below:-", "DEFINE QLOCAL(X) NONSENSE"]
        with pytest.raises(MQIError) as err:
            qm.pcf(C.MQCMD_ESCAPE, [P.CFIN(C.MQIACF_ESCAPE_TYPE, 99), P.CFST(C.MQCACF_ESCAPE_TEXT, "DIS QMGR")])
        assert err.value.reason == C.MQRCCF_ESCAPE_TYPE_ERROR
    served.stop()


def test_a_failing_startup_command_is_logged_with_file_and_line_and_the_server_starts(tmp_path):
    bad = tmp_path / "bad.mqsc"
    bad.write_text("* two good, one bad\nDEFINE QLOCAL(GOOD.1)\n\nDEFINE QLOCAL(GOOD.1)\nDEFINE QLOCAL(GOOD.2)\n")
    served = Served(tmp_path / "data", "--mqsc", str(bad))
    with served.connect() as qm:
        assert escape(qm, "DIS QLOCAL(GOOD.2)")[0].header.CompCode == C.MQCC_OK
    served.stop()
    assert f"{bad}:4: DEFINE QLOCAL(GOOD.1): AMQ8150E: IBM MQ object already exists." in served.stderr_tail()


def test_strict_stops_the_start_with_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.mqsc"
    bad.write_text("DEFINE QLOCAL(A)\nDEFINE QLOCAL(A) NOSUCH\n")
    done = qmlite("serve", "--port", "0", "--data-dir", str(tmp_path / "data"), "--mqsc", str(bad), "--strict")
    assert done.returncode == 2
    assert "qmlite ready" not in done.stdout
    assert f"{bad}:2: DEFINE QLOCAL(A) NOSUCH: AMQ8405I" in done.stderr


# ---- qmlite runmqsc, dspmq, setmqaut ---------------------------------------------------------------
def test_runmqsc_client_mode_against_a_running_server(tmp_path):
    served = Served(tmp_path / "data")
    port = str(served.port)
    done = qmlite("runmqsc", "-c", "--port", port, "QM1", stdin="DEFINE QLOCAL(RUN.Q) DESCR('via -c')\n"
                                                                 "DIS QLOCAL(RUN.Q) DESCR\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Starting MQSC for queue manager QM1.", "", "",
        "     1 : DEFINE QLOCAL(RUN.Q) DESCR('via -c')",
        "AMQ8006I: IBM MQ queue created.",
        "     2 : DIS QLOCAL(RUN.Q) DESCR",
        "AMQ8409I: Display Queue details.",
        "   QUEUE(RUN.Q)                            TYPE(QLOCAL)",
        "   DESCR(via -c)",
        "2 MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed."]
    # -e: no echo; a failing command: exit 10; -u with the password on stdin's first line
    failed = qmlite("runmqsc", "-c", "-e", "-u", "admin", "--port", port, stdin="passw0rd\nDEFINE QLOCAL(RUN.Q)\n")
    assert failed.returncode == 10
    assert "AMQ8150E: IBM MQ object already exists." in failed.stdout and "     1 :" not in failed.stdout
    refused = qmlite("runmqsc", "-c", "-u", "admin", "--port", port, stdin="wrong-password\nDIS QMGR\n")
    assert refused.returncode == 20 and "AMQ8146E" in refused.stderr
    # without -c a server answering on the port is used the same way
    local = qmlite("runmqsc", "--port", port, stdin="DIS QLOCAL(RUN.Q)\n", MQ_ADMIN_PASSWORD="passw0rd")
    assert local.returncode == 0 and "QUEUE(RUN.Q)" in local.stdout
    served.stop()


def test_runmqsc_without_a_server_runs_on_the_data_directory(tmp_path):
    data, port = str(tmp_path / "data"), str(free_port())
    first = qmlite("runmqsc", "--data-dir", data, "--port", port, stdin="DEFINE TOPIC(T1) TOPICSTR('a/b')\n")
    assert first.returncode == 0, first.stdout + first.stderr
    again = qmlite("runmqsc", "--data-dir", data, "--port", port, "-f", "/dev/stdin",
                   stdin="DIS TOPIC(T1) TOPICSTR\nDIS TOPIC(T2)\n")
    assert again.returncode == 10
    assert "   TOPIC(T1)                               TYPE(LOCAL)" in again.stdout
    assert "TOPICSTR(a/b)" in again.stdout and "AMQ8147E: IBM MQ object T2 not found." in again.stdout
    verify = qmlite("runmqsc", "-v", "--data-dir", data, "--port", port, stdin="DELETE TOPIC(T1)\nDEF X\n")
    assert verify.returncode == 10 and "One command has a syntax error." in verify.stdout
    still = qmlite("runmqsc", "--data-dir", data, "--port", port, stdin="DIS TOPIC(T1)\n")
    assert still.returncode == 0  # -v ran nothing
    assert qmlite("runmqsc", "--data-dir", data, "--port", port, "-f", str(tmp_path / "none.mqsc")).returncode == 20


def test_dspmq_and_setmqaut(tmp_path):
    served = Served(tmp_path / "data")
    port, data = str(served.port), str(tmp_path / "data")
    shown = qmlite("dspmq", "--port", port, "--data-dir", data)
    assert shown.stdout == "QMNAME(QM1)" + " " * 47 + "STATUS(Running)\n"
    granted = qmlite("setmqaut", "-m", "QM1", "-t", "queue", "-n", "DEV.QUEUE.2", "-p", "app", "+dsp", "-put",
                     "--port", port, MQ_ADMIN_PASSWORD="passw0rd")
    assert (granted.returncode, granted.stdout) == (0, "The setmqaut command completed successfully.\n"), granted.stderr
    with served.connect() as qm:
        [record] = escape(qm, "DIS AUTHREC PROFILE(DEV.QUEUE.2) OBJTYPE(QUEUE) PRINCIPAL('app') MATCH(EXACT)")
        assert "AUTHLIST(DSP)" in escape_text(record)
    assert qmlite("setmqaut", "-m", "QM1", "-t", "widget", "-n", "X", "-p", "app", "+put",
                  "--port", port).returncode == 148
    served.stop()
    stopped = qmlite("dspmq", "--port", port, "--data-dir", data)
    assert stopped.stdout.endswith("STATUS(Ended normally)\n")


# ---- the pytest plugin ------------------------------------------------------------------------------
def test_plugin_server_runs_mqsc_and_resets(qmlite_server):
    [created] = qmlite_server.mqsc("DEFINE QLOCAL(PLUGIN.Q)")
    assert created.text == ["AMQ8006I: IBM MQ queue created."]
    qmlite_server.reset()
    [gone] = qmlite_server.mqsc("DIS QLOCAL(PLUGIN.Q)")
    assert gone.completion_code == C.MQCC_FAILED
    [kept] = qmlite_server.mqsc("DIS QLOCAL(DEV.QUEUE.1)")
    assert kept.completion_code == C.MQCC_OK


@pytest.mark.parametrize("round_", [1, 2])
def test_qmlite_reset_fixture_gives_each_test_a_fresh_queue_manager(qmlite_reset, round_):
    [before] = qmlite_reset.mqsc("DIS QLOCAL(LEFT.BY.EARLIER.TEST)")
    assert before.completion_code == C.MQCC_FAILED  # the other round's queue is gone
    [created] = qmlite_reset.mqsc("DEFINE QLOCAL(LEFT.BY.EARLIER.TEST)")
    assert created.completion_code == C.MQCC_OK


# ---- settings ---------------------------------------------------------------------------------------
def test_startup_scripts_from_a_toml_settings_file(tmp_path, scripts):
    from qmlite.server import config

    settings = tmp_path / "qmlite.toml"
    settings.write_text(f'mqsc_files = ["{FIXTURES / "20-config.mqsc"}"]\nmqsc_dir = "{scripts}"\nmqsc_strict = true\n')
    cfg = config.load(environ={}, config_file=settings)
    assert cfg.mqsc_files == (FIXTURES / "20-config.mqsc",) and cfg.mqsc_dir == scripts and cfg.mqsc_strict
    from qmlite.server.startup import scripts as ordered

    assert [p.name for p in ordered(cfg)] == ["20-config.mqsc", "10-dev.mqsc", "20-config.mqsc", "30-after.mqsc"]
    with pytest.raises(config.ConfigError):
        config.load(environ={}, overrides={"mqsc_files": 5})


def test_runmqsc_on_a_terminal_runs_each_command_when_it_is_complete(tmp_path):
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: qmlite runmqsc on the terminal, no server on the port
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "qmlite", "runmqsc", "--data-dir", str(tmp_path / "data"),
                                   "--port", str(free_port())], _env())
    seen = b""

    def until(marker: bytes) -> bytes:
        nonlocal seen
        deadline = time.monotonic() + 60
        while marker not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                try:
                    seen += os.read(fd, 4096)
                except OSError:  # the child ended
                    break
        return seen

    try:
        os.write(fd, b"DEFINE QLOCAL(TTY.Q) +\n")
        until(b"Starting MQSC for queue manager QM1.")
        assert b"AMQ8006I" not in seen  # the command is not complete yet
        os.write(fd, b"  DESCR('typed')\n")
        until(b"AMQ8006I: IBM MQ queue created.")
        os.write(fd, b"end\n")
        until(b"All valid MQSC commands were processed.")
        assert b"One MQSC command read." in seen
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0


def test_running_qmlite_runs_startup_scripts(tmp_path):
    from qmlite.client.pytest_plugin import running_qmlite

    with running_qmlite(tmp_path / "data", mqsc_files=[FIXTURES / "20-config.mqsc"]) as server:
        [shown] = server.mqsc("DIS SUB('APP.AUDIT.ALL') USERDATA PSPROP")
        assert shown.completion_code == C.MQCC_OK
        block = "\n".join(shown.text)
        assert "USERDATA(audit)" in block and "PSPROP(RFH2)" in block
