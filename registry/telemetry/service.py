"""The telemetry (MQXR) service: SYSTEM.MQXR.SERVICE and the running state of the MQTT channels it
serves, what START/STOP SERVICE, START/STOP/PURGE CHANNEL CHLTYPE(MQTT) and DISPLAY CHSTATUS change
and read (docs/mqtt.md "Administration", docs/decisions.md TC).

IBM runs MQTT channels in the MQXR service, not the channel initiator: a channel runs only while the
service does, the service starts with the queue manager (the service object's CONTROL(QMGR)) and then
starts every channel that was not stopped by STOP CHANNEL ("Any channels in STOPPED state need to be
started manually").  The network side is the server's: it plugs in a :class:`TelemetryIO` (a listener
per channel, server/mqtt/), which reports back through :meth:`TelemetryService.listening` and
:meth:`TelemetryService.failed`.  Start Channel is therefore, as IBM's, a request ("Start IBM MQ
channel accepted"): the status shows STARTING until the transport listens.  No sockets and no trio.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, MutableMapping
from typing import Protocol

from qmlite.pcf import constants as C

from qmlite.registry.objects import channels as M
from qmlite.registry.objects.channels import Channel
from qmlite.registry.telemetry.telemetrysessions import TelemetrySessions

SERVICE_NAME = "SYSTEM.MQXR.SERVICE"


def developer_channel(port: int) -> Channel:
    """DEV.MQTT as the developer objects have it (MCAUSER('app'), as DEV.APP.SVRCONN)."""
    return M.new(M.MQTT_CHANNEL, M.MQTT, port=port, mca_user=M.APP_USER)


def ensure_developer_channel(registry, port: int) -> Channel:
    """The developer objects' MQTT channel on ``port``: defined the first time (MCAUSER('app'), as
    DEV.APP.SVRCONN), its PORT set to ``port`` at every start asked for, nothing else of it touched
    (an administrator's ALTER stays).  ``registry``: the queue manager's catalogue."""
    existing = registry.objects(M.KIND).get(M.MQTT_CHANNEL)
    if existing is not None and existing.channel_type != M.MQTT:
        raise ValueError(f"{M.MQTT_CHANNEL} exists and is not an MQTT channel")
    if existing is not None and existing.port == port:
        return existing
    now = registry.now()
    if existing is None:
        channel = dataclasses.replace(developer_channel(port), created=now, altered=now)
    else:
        channel = dataclasses.replace(existing, port=port, altered=now)
    registry.put_object(M.KIND, channel)
    return channel


class TelemetryError(Exception):
    """A telemetry command refused, with the reason the command answers."""

    def __init__(self, reason: int, parameter: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.parameter = parameter


class TelemetryIO(Protocol):
    """The server's MQTT transport, as the service drives it."""

    def start(self, channel: Channel) -> None:
        """Begin listening for ``channel``; report :meth:`TelemetryService.listening` or ``failed``."""

    def stop(self, name: str) -> None:
        """Stop listening for the channel and end its clients' connections."""


@dataclasses.dataclass(slots=True)
class ChannelRun:
    """A telemetry channel the service runs (or was asked to run)."""

    name: str
    status: int = C.MQCHS_STARTING  # STARTING until the transport listens, then RUNNING
    port: int = 0  # the port it listens on (PORT(0): the one the system chose)
    started: float = 0.0
    failure: str = ""  # why the transport could not listen (a STOPPED run keeps it for the log)


class TelemetryService:
    """``now``: the queue manager's clock; ``definitions``: the MQTT channels defined now;
    ``services``: the running-services map the service status commands read (``Running.services``)."""

    def __init__(self, now: Callable[[], float], definitions: Callable[[], Iterable[Channel]],
                 services: MutableMapping[str, float]) -> None:
        self.now = now
        self._definitions = definitions
        self._services = services
        self.sessions = TelemetrySessions(now)
        self.transmit = None  # SYSTEM.MQTT.TRANSMIT.QUEUE by client (mapping.py TransmitIndex), once a listener started
        self.io: TelemetryIO | None = None
        self.runs: dict[str, ChannelRun] = {}
        self.stopped: set[str] = set()  # stopped by STOP/PURGE CHANNEL: the service does not start them
        # The port the server gave the developer objects' DEV.MQTT (qmlite serve --mqtt-port), or None:
        # RESET QMLITE keeps that channel as a default object (registry/storage/reset.py).
        self.developer_port: int | None = None

    # ---- the service ---------------------------------------------------------------------------
    def attach(self, io: TelemetryIO | None) -> None:
        """The server plugs its MQTT transport in (None: unplugged; the service cannot run)."""
        self.io = io

    @property
    def running(self) -> bool:
        return SERVICE_NAME in self._services

    def start(self) -> None:
        """START SERVICE(SYSTEM.MQXR.SERVICE), or the queue manager starting it (CONTROL(QMGR))."""
        if self.running:
            raise TelemetryError(C.MQRCCF_SERVICE_RUNNING)
        if self.io is None:  # no MQTT transport here (a data directory opened without a server)
            raise TelemetryError(C.MQRC_FUNCTION_NOT_SUPPORTED)
        self._services[SERVICE_NAME] = self.now()
        for channel in sorted(self._definitions(), key=lambda c: c.name):
            if channel.name not in self.stopped:
                self._start(channel)

    def stop(self) -> None:
        """STOP SERVICE(SYSTEM.MQXR.SERVICE): every channel ends with it (and starts again with it)."""
        if not self.running:
            raise TelemetryError(C.MQRCCF_SERVICE_STOPPED)
        for name in list(self.runs):
            self._end(name)
        del self._services[SERVICE_NAME]

    # ---- channels ------------------------------------------------------------------------------
    def _start(self, channel: Channel) -> None:
        self.runs[channel.name] = ChannelRun(channel.name, started=self.now())
        assert self.io is not None
        self.io.start(channel)

    def _end(self, name: str) -> None:
        run = self.runs.pop(name, None)
        if run is not None and self.io is not None:
            self.io.stop(name)
        for session in self.sessions.list():
            if session.channel == name:
                self.sessions.disconnect(session.client_id)

    def is_running(self, name: str) -> bool:
        run = self.runs.get(name)
        return run is not None and run.status != C.MQCHS_STOPPED

    def start_channel(self, channel: Channel) -> None:
        if not self.running:
            raise TelemetryError(C.MQRCCF_CHL_SYSTEM_NOT_ACTIVE)
        if self.is_running(channel.name):
            raise TelemetryError(C.MQRCCF_CHANNEL_IN_USE)
        self.stopped.discard(channel.name)
        self._start(channel)

    def _client(self, name: str, client_id: str) -> str:
        """``client_id``, checked: the service runs and the client is the channel's."""
        if not self.running:
            raise TelemetryError(C.MQRCCF_CHL_SYSTEM_NOT_ACTIVE)
        session = self.sessions.get(client_id) if client_id else None
        if client_id and (session is None or session.channel != name):
            raise TelemetryError(C.MQRCCF_CLIENT_ID_NOT_FOUND, C.MQCACH_CLIENT_ID)
        return client_id

    def stop_channel(self, name: str, client_id: str = "") -> None:
        """STOP CHANNEL CHLTYPE(MQTT): the channel (it stays stopped), or one client's connection."""
        if self._client(name, client_id):
            self.sessions.disconnect(client_id)
            return
        if not self.is_running(name):
            raise TelemetryError(C.MQRCCF_CHANNEL_NOT_ACTIVE)
        self._end(name)
        self.stopped.add(name)

    def purge_channel(self, name: str, client_id: str = "") -> None:
        """PURGE CHANNEL: one client's state (CLIENTID), or every client's and the channel stopped."""
        if self._client(name, client_id):
            self.sessions.purge(client_id)
            return
        for session in self.sessions.list():
            if session.channel == name:
                self.sessions.purge(session.client_id)
        if self.is_running(name):
            self._end(name)
        self.stopped.add(name)

    def forget(self, name: str) -> None:
        """The channel was deleted."""
        self.stopped.discard(name)

    def reset(self) -> None:
        """RESET QMLITE: as a fresh start has it -- no channel stopped, a deleted one no longer running,
        every defined one running while the service runs."""
        self.stopped.clear()
        defined = {channel.name: channel for channel in self._definitions()}
        for name in [n for n in self.runs if n not in defined]:
            self._end(name)
        if self.running:
            for name in sorted(defined):
                if not self.is_running(name):
                    self._start(defined[name])

    # ---- what the transport reports ------------------------------------------------------------
    def listening(self, name: str, port: int) -> None:
        run = self.runs.get(name)
        if run is not None:
            run.status, run.port, run.started = C.MQCHS_RUNNING, port, self.now()

    def failed(self, name: str, why: str) -> None:
        """The transport could not listen (the port in use, a bad key repository): the channel stops."""
        run = self.runs.get(name)
        if run is not None:
            run.status, run.failure = C.MQCHS_STOPPED, why
