"""A listener for one started telemetry channel: ``start_mqtt_listener(qm_server, definition, port)``
gives a handle with ``.port`` and ``.aclose()`` (START and STOP CHANNEL call them; tests start one
directly).  The definition is read for NAME, MCAUSER, USECLTID and the SSL attributes (mqtttls.py).

Every client of every MQTT listener of a queue manager shares its TelemetrySessions
(``qm.telemetry``) and one task that waits on SYSTEM.MQTT.TRANSMIT.QUEUE and wakes the deliverers
(a message there is for one client, but the transport's parking lots are per queue).
"""

from __future__ import annotations

import itertools
import secrets
import ssl

import trio

from qmlite.registry.telemetry import mapping

from .. import log as qlog
from . import mqtttls
from .websocket import WebSocketStream
from .client import OUTBOUND, SLOW_CLIENT_SECONDS, MQTTClient

ALL_PROTOCOLS = ("MQTTV311", "MQTTV3", "HTTP")
DEFAULT_CHANNEL = "PlainText"  # the channel IBM's telemetry sample configuration defines on 1883


class MQTTListener:
    def __init__(self, server, definition, port: int) -> None:
        self.server = server
        self.qm = server.qm
        self.channel = getattr(definition, "name", "") or DEFAULT_CHANNEL
        self.mca_user = getattr(definition, "mca_user", "") or ""
        use = getattr(definition, "use_client_id", False)
        self.use_client_id = use if isinstance(use, bool) else str(use).upper() in ("YES", "1")
        self.requested_port = port
        self.port = 0
        self.sessions = self.qm.telemetry
        self.clients: set[MQTTClient] = set()
        self.outbound_limit = OUTBOUND  # packets queued for a client before deliveries wait for room
        self.slow_client_seconds = SLOW_CLIENT_SECONDS  # how long a delivery waits for room before the close
        self.log = qlog.get(component="mqtt", channel=self.channel)
        self._scope = trio.CancelScope()
        self._done = trio.Event()
        self._ids = itertools.count(1)
        self.tls = mqtttls.server_context(server, definition)  # None: plain TCP
        # PROTOCOL: which of MQTT 3.1.1, 3.1 and WebSockets the channel takes (IBM's default: all three)
        given = getattr(definition, "protocols", None) or getattr(definition, "protocol", None) or ALL_PROTOCOLS
        self.protocols = {str(p).strip().upper() for p in ([given] if isinstance(given, str) else given)}
        if len(self.protocols) == 1 and "," in next(iter(self.protocols)):
            self.protocols = {p.strip() for p in next(iter(self.protocols)).split(",")}

    def generated_client_id(self) -> str:
        return f"QMLITE{secrets.token_hex(4).upper()}{next(self._ids)}"[:23]

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            with self._scope:
                listeners = await trio.open_tcp_listeners(self.requested_port, host=self.server.cfg.host or None)
                self.port = listeners[0].socket.getsockname()[1]
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._wake_deliverers)
                    task_status.started(self)
                    self.log.info("mqtt_listening", port=self.port)
                    await trio.serve_listeners(self._handle, listeners, handler_nursery=nursery)
        finally:
            for client in list(self.clients):
                client.close()
            self._done.set()

    async def _handle(self, stream: trio.SocketStream) -> None:
        try:
            address = str(stream.socket.getpeername()[0])
        except OSError:
            address = ""
        if self.tls is not None:
            stream = trio.SSLStream(stream, self.tls, server_side=True)
            with trio.move_on_after(self.server.cfg.opening_timeout) as scope:
                try:
                    await stream.do_handshake()
                except (trio.BrokenResourceError, ssl.SSLError, OSError) as exc:
                    self.log.info("mqtt_tls_refused", peer=address, why=str(exc.__cause__ or exc))
                    await stream.transport_stream.aclose()
                    return
            if scope.cancelled_caught:
                self.log.info("mqtt_tls_refused", peer=address, why="no handshake in time")
                await stream.transport_stream.aclose()
                return
        first = b""
        if "HTTP" in self.protocols:  # WebSockets on the same port: an HTTP GET, not a CONNECT (0x10)
            with trio.move_on_after(self.server.cfg.opening_timeout):
                try:
                    first = await stream.receive_some(65_536)
                except (trio.BrokenResourceError, OSError):
                    first = b""
            if not first:
                await stream.aclose()
                return
            if first[:1] == b"G":
                ws = WebSocketStream(stream)
                with trio.move_on_after(self.server.cfg.opening_timeout):
                    if await ws.accept(first):
                        await MQTTClient(self, ws, address, protocol="HTTP").run()
                        return
                await stream.aclose()
                return
        await MQTTClient(self, stream, address, first=first).run()

    async def _wake_deliverers(self) -> None:
        lot = self.server.mqi.activity.lot(mapping.TRANSMIT_QUEUE)
        while True:
            await lot.park()
            for client in self.clients:
                client.more.set()

    async def aclose(self) -> None:
        self._scope.cancel()
        await self._done.wait()


async def start_mqtt_listener(qm_server, definition, port: int, *, nursery: trio.Nursery | None = None) -> MQTTListener:
    """Start listening for MQTT clients for ``definition`` on ``port`` (0: any free port) in
    ``nursery`` (the server's own when not given); returns once the port is open."""
    qm = qm_server.qm
    mapping.ensure_objects(qm)
    qm.telemetry.on_purge = lambda session: mapping.forget_client(qm, session.client_id)
    listener = MQTTListener(qm_server, definition, port)
    await (nursery or qm_server._nursery).start(listener.run)
    return listener
