"""A fake MQTT transport at the telemetry service's edge (registry/telemetry/service.py TelemetryIO),
for tests of the administration while the real one (server/mqtt/) is not involved: it "listens" at once
on the port a channel asks for (40000 for PORT(0)), unless the test marks the port taken."""

from __future__ import annotations


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
