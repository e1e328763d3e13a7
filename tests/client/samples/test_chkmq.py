"""The container's health checks as a HEALTHCHECK or a readiness probe runs them: chkmqready,
chkmqhealthy and chkmqstarted exit 1 while the queue manager is not there -- nothing on the port, or
something that is not a queue manager -- and 0 once it answers, on the same port (mq-container's
cmd/chkmq*; docs/decisions.md SM3)."""

from __future__ import annotations

import socket
import threading

import pytest

from .samplerun import environment, run

CHECKS = ("chkmqready", "chkmqhealthy", "chkmqstarted")


def checks(env: dict[str, str]) -> dict[str, tuple[int, str]]:
    out = {}
    for name in CHECKS:
        done = run(name, env)
        assert done.stderr == b""
        out[name] = (done.returncode, done.stdout.decode())
    return out


def status_line(name: str, status: str) -> str:
    return f"QMNAME({name})".ljust(58) + f"STATUS({status})\n"


def test_before_the_queue_manager_starts_and_after(qmlite_server):
    server = qmlite_server
    env = environment(server, MQ_QMGR_NAME="QM1")
    server.stop()
    assert checks(env) == {"chkmqready": (1, ""), "chkmqhealthy": (1, status_line("QM1", "ENDED NORMALLY")),
                           "chkmqstarted": (1, "")}
    server.start()
    assert checks(env) == {"chkmqready": (0, ""), "chkmqhealthy": (0, status_line("QM1", "RUNNING")),
                           "chkmqstarted": (0, "")}


@pytest.fixture
def not_a_queue_manager():
    """A port that accepts connections and closes them without a word (a process that is not MQ)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    done = threading.Event()

    def serve():
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    done.set()
    listener.close()
    thread.join(timeout=5)


def test_a_port_that_answers_without_a_queue_manager_is_not_healthy(qmlite_server, not_a_queue_manager):
    env = environment(qmlite_server, QMLITE_PORT=str(not_a_queue_manager), MQ_QMGR_NAME="QM1")
    assert checks(env) == {"chkmqready": (1, ""), "chkmqhealthy": (1, status_line("QM1", "ENDED UNEXPECTEDLY")),
                           "chkmqstarted": (1, "")}


def test_the_name_is_mq_qmgr_name_else_the_host_name(qmlite_server):
    env = environment(qmlite_server)
    env.pop("MQ_QMGR_NAME", None)
    host = "".join(ch for ch in socket.gethostname() if ch.isalnum() or ch in "._%/")
    assert run("chkmqhealthy", env).stdout.decode() == status_line(host, "RUNNING")
