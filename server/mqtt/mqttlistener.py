"""A listener for one started telemetry channel: ``start_mqtt_listener(qm_server, definition, port)``
gives a handle with ``.port`` and ``.aclose()`` (START and STOP CHANNEL call them; tests start one
directly).  The definition (a CHLTYPE(MQTT) channel) is read for NAME, MCAUSER, USECLTID, PROTOCOL, BACKLOG,
LOCLADDR and the SSL attributes (mqtttls.py).

Every client of every MQTT listener of a queue manager shares its TelemetrySessions
(``qm.telemetry.sessions``) and one task that waits on SYSTEM.MQTT.TRANSMIT.QUEUE and wakes the deliverers
(a message there is for one client, but the transport's parking lots are per queue).
"""

from __future__ import annotations

import itertools
import secrets
import ssl

import trio

from qmlite.keys.paths import KeyRepositoryError
from qmlite.registry.objects import values as V
from qmlite.registry.objects.channels import Channel
from qmlite.registry.telemetry import mapping
from qmlite.registry.telemetry.telemetrysessions import PROTOCOL_IDS

from .. import log as qlog
from . import mqtttls
from .websocket import WebSocketStream
from .client import OUTBOUND, SLOW_CLIENT_SECONDS, MQTTClient



class MQTTListener:
    def __init__(self, server, definition: Channel, port: int) -> None:
        self.server = server
        self.qm = server.qm
        self.channel = definition.name
        self.mca_user = definition.mca_user
        self.use_client_id = definition.use_client_id == V.MQUCI_YES
        self.requested_port = port
        self.port = 0
        self.sessions = self.qm.telemetry.sessions
        self.clients: set[MQTTClient] = set()
        self.outbound_limit = OUTBOUND  # packets queued for a client before deliveries wait for room
        self.slow_client_seconds = SLOW_CLIENT_SECONDS  # how long a delivery waits for room before the close
        self.handover = True  # QoS 0 copies handed to connected clients as published (TQ1); tests turn it off
        self.early_qos1 = True  # QoS 1 copies sent before their put is on disk (TR2); tests turn it off
        self.log = qlog.get(component="mqtt", channel=self.channel)
        self._scope = trio.CancelScope()
        self._done = trio.Event()
        self._ids = itertools.count(1)
        self.tls = mqtttls.server_context(server, definition)  # None: plain TCP
        # PROTOCOL: which of MQTT 3.1.1, 3.1 and WebSockets the channel takes (IBM's default: all three)
        self.protocols = {name for name, pid in PROTOCOL_IDS.items() if pid in definition.protocols}
        self.backlog = definition.backlog
        self.host = definition.local_address.strip() or self.server.cfg.host or None  # LOCLADDR, else the server's

    def generated_client_id(self) -> str:
        return f"QMLITE{secrets.token_hex(4).upper()}{next(self._ids)}"[:23]

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            with self._scope:
                listeners = await trio.open_tcp_listeners(self.requested_port, host=self.host,
                                                         backlog=self.backlog)
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
        index = mapping.index_of(self.server.qm)
        while True:
            await lot.park()
            addressed = index.by_client
            for client in self.clients:
                if client.session.client_id in addressed:  # a deliverer sends only what the index holds
                    client.more.set()

    async def aclose(self) -> None:
        self._scope.cancel()
        await self._done.wait()


async def start_mqtt_listener(qm_server, definition: Channel, port: int, *,
                             nursery: trio.Nursery | None = None) -> MQTTListener:
    """Start listening for MQTT clients for ``definition`` on ``port`` (0: any free port) in
    ``nursery`` (the server's own when not given); returns once the port is open.  Raises OSError
    when it cannot listen: the port, or the channel's key store (the channel stops, server/telemetryio.py)."""
    qm = qm_server.qm
    mapping.ensure_objects(qm)
    mapping.restore_sessions(qm, definition.name)
    qm.telemetry.sessions.on_purge = lambda session: mapping.forget_client(qm, session.client_id)
    try:
        listener = MQTTListener(qm_server, definition, port)
    except (KeyRepositoryError, RuntimeError) as exc:  # SSLKEYR unreadable, no queue-manager key repository
        raise OSError(f"{definition.name}: {exc}") from exc
    await (nursery or qm_server._nursery).start(listener.run)
    return listener
