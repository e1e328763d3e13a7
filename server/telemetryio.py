"""The server's side of the telemetry (MQXR) service: the MQTT transport plugged into the queue
manager's ``telemetry`` (registry/telemetry/service.py), one trio task per running MQTT channel.

The domain asks, synchronously, for a channel to start or stop; this starts a task in the server's
nursery that opens the channel's listener (server/mqtt/'s ``start_mqtt_listener``, issue 33's protocol
part, server/mqtt/mqttlistener.py) and reports back -- listening on a port, or failed with the error -- and
closes it when asked.
So START CHANNEL CHLTYPE(MQTT) is accepted at once, as IBM's is, and a port in use shows as a stopped
channel, not as a failed command.  ``plug`` is the one hook the listener calls.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import trio

from qmlite.pcf import constants as C
from qmlite.registry.objects import endpoints as EP
from qmlite.registry.objects.channels import Channel

from . import log as qlog

# start_mqtt_listener(qm_server, channel_definition, port) -> a handle with .port and async .aclose()
Starter = Callable[[Any, Channel, int], Awaitable[Any]]
_AUTOSTART = (C.MQSVC_CONTROL_Q_MGR, C.MQSVC_CONTROL_Q_MGR_START)


class TrioTelemetryIO:
    """``TelemetryIO`` on trio: ``server`` is what the starter is handed (it has ``qm``)."""

    def __init__(self, nursery: trio.Nursery, server, starter: Starter) -> None:
        self._nursery, self._server, self._starter = nursery, server, starter
        self._stops: dict[str, trio.Event] = {}
        self._settled: dict[str, trio.Event] = {}  # set once a channel's latest start listens or fails

    def start(self, channel: Channel) -> None:
        self.stop(channel.name)  # a run still closing ends before the new one listens
        stop = self._stops[channel.name] = trio.Event()
        settled = self._settled[channel.name] = trio.Event()
        self._nursery.start_soon(self._run, channel, stop, settled)

    def stop(self, name: str) -> None:
        stop = self._stops.pop(name, None)
        if stop is not None:
            stop.set()

    async def port_of(self, name: str) -> int | None:
        """The port channel ``name`` listens on once its start has settled; None: not started, or failed
        (the ready line of ``qmlite serve --mqtt-port`` names DEV.MQTT's, server/listener.py)."""
        settled = self._settled.get(name)
        if settled is None:
            return None
        await settled.wait()
        run = self._server.qm.telemetry.runs.get(name)
        return run.port if run is not None and run.status == C.MQCHS_RUNNING else None

    async def _run(self, channel: Channel, stop: trio.Event, settled: trio.Event) -> None:
        service = self._server.qm.telemetry
        try:
            handle = await self._starter(self._server, channel, channel.port)
        except OSError as exc:  # the port in use, an address not here: the channel stops, the server runs on
            qlog.get().error("mqtt_channel_failed", channel=channel.name, port=channel.port,
                             error=exc.strerror or str(exc))
            if self._stops.get(channel.name) is stop:
                del self._stops[channel.name]
                service.failed(channel.name, exc.strerror or str(exc))
            settled.set()
            return
        try:
            if not stop.is_set():
                service.listening(channel.name, handle.port)
                qlog.get().info("mqtt_channel_started", channel=channel.name, port=handle.port)
                settled.set()
                await stop.wait()
        finally:
            settled.set()
            with trio.CancelScope(shield=True):
                await handle.aclose()


async def start_listener(server, channel: Channel, port: int):
    """server/mqtt/'s listener for ``channel``: MQTT's modules load when a channel first starts, not
    with every server (docs/decisions.md ST11)."""
    from .mqtt import start_mqtt_listener

    return await start_mqtt_listener(server, channel, port)


def plug(nursery: trio.Nursery, server, starter: Starter | None = None) -> TrioTelemetryIO:
    """Plug the MQTT transport (server/mqtt/, or ``starter`` in a test) into ``server``'s queue manager
    and start SYSTEM.MQXR.SERVICE when its CONTROL says the queue manager starts it."""
    io = TrioTelemetryIO(nursery, server, starter or start_listener)
    service = server.qm.telemetry
    service.attach(io)
    mqxr = server.qm.registry.objects(EP.SERVICE).get(EP.MQXR_SERVICE)
    if mqxr is not None and mqxr.start_mode in _AUTOSTART and not service.running:
        service.start()
    return io
