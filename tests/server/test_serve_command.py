"""``qmlite serve`` as a user runs it: a separate process, one ready line, SIGTERM stops it cleanly."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys

from tests.support.fixtures import FIXTURES

REAL = FIXTURES / "real-server"


def _serve(tmp_path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--data-dir", str(tmp_path / "data"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_serve_prints_one_ready_line_answers_and_stops_on_sigterm(tmp_path):
    proc = _serve(tmp_path, "--port", "0", "--log-json")
    try:
        line = proc.stdout.readline()  # the ready line is the synchronisation point
        assert line.startswith("qmlite ready: queue manager QM1 listening on 127.0.0.1:"), line
        port = int(line.split("127.0.0.1:")[1].split()[0])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall((REAL / "nmap-probe-id.bin").read_bytes())
            reply = sock.recv(4096)
        assert reply[:4] == b"TSH " and reply[9] == 0x01  # its ID: SYSTEM.ADMIN.SVRCONN is defined
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        logs = proc.stderr.read()
        assert '"event": "quiescing"' in logs and '"signal": "SIGTERM"' in logs
    finally:
        proc.kill()
        proc.wait()
    assert (tmp_path / "data" / "qmlite.db").exists()


def test_a_taken_port_is_reported_not_traced(tmp_path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        proc = _serve(tmp_path, "--port", str(port))
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in err and "Traceback" not in err


def test_environment_names_the_queue_manager(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--data-dir",
                             str(tmp_path / "d")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**__import__("os").environ, "MQ_QMGR_NAME": "QMDEV", "MQ_DEV": "false"})
    try:
        assert "queue manager QMDEV listening" in proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_a_publish_exit_that_cannot_be_loaded_is_reported_not_traced(tmp_path):
    proc = _serve(tmp_path, "--port", "0", "--publish-exit", "no_such_module_here:route")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and out == ""
    assert "cannot load publish exit 'no_such_module_here:route'" in err and "Traceback" not in err
    proc = _serve(tmp_path, "--port", "0", "--publish-exit", "no colon")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "expected module:callable" in err
