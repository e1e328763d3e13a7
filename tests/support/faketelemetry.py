"""A fake MQTT transport at the telemetry service's edge (registry/telemetry/service.py TelemetryIO),
for tests of the administration while the real one (server/mqtt/) is not involved: it "listens" at once
on the port a channel asks for (40000 for PORT(0)), unless the test marks the port taken; and the two
helpers the telemetry tests with a real transport share (``mqsc``, ``connectable``)."""

from __future__ import annotations

import socket


class FakeIO:
    def __init__(self, svc) -> None:
        self.svc = svc
        self.started: list[str] = []
        self.stopped: list[str] = []
        self.taken: set[int] = set()

    def start(self, channel) -> None:
        self.started.append(channel.name)
        if channel.port in self.taken:
            self.svc.failed(channel.name, f"port {channel.port} in use")
        else:
            self.svc.listening(channel.name, channel.port or 40000)

    def stop(self, name: str) -> None:
        self.stopped.append(name)


def mqsc(qm, text):
    """One MQSC command run on ``qm`` in this thread, its one result."""
    from qmlite.registry.mqsc import run_mqsc

    [result] = run_mqsc(qm, text)
    return result


def connectable(port: int) -> bool:
    """Whether something listens on 127.0.0.1 ``port`` now."""
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
