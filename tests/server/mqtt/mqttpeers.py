"""MQTT clients for the tests: paho-mqtt driven from trio (its network loop in its own thread, every
wait a queue with a timeout, never a sleep) and a raw peer speaking bytes through pcf/mqtt."""

from __future__ import annotations

import contextlib
import queue

import trio
from paho.mqtt import client as paho

from qmlite.pcf.mqtt import packets as MP
from qmlite.registry.objects import channels as M
from qmlite.server.mqtt.mqttlistener import start_mqtt_listener

from tests.support.rawfap import running_server

WAIT = 20  # seconds a test waits for something that should come at once before it fails


@contextlib.asynccontextmanager
async def mqtt_server(tmp_path, definition=None, **overrides):
    async with running_server(tmp_path, **overrides) as server:
        # a channel started directly, not through START CHANNEL (that is test_mqtt_admin.py's)
        listener = await start_mqtt_listener(server, definition or M.new("PlainText", M.MQTT, port=0), 0)
        try:
            yield server, listener
        finally:
            await listener.aclose()


class Paho:
    """One paho-mqtt client; ``messages`` gets every message it receives."""

    def __init__(self, port: int, client_id: str, *, clean: bool = True, username=None, password=None,
                 will=None, protocol=paho.MQTTv311, transport: str = "tcp") -> None:
        self.port = port
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean,
                                  protocol=protocol, transport=transport)
        if username is not None:
            self.client.username_pw_set(username, password)
        if will is not None:
            self.client.will_set(*will)
        self.client.reconnect_delay_set(60, 120)  # no automatic reconnects: the tests decide
        self.messages: queue.Queue = queue.Queue()
        self.events: queue.Queue = queue.Queue()
        self.client.on_connect = lambda c, u, flags, rc, props: self.events.put(("connect", rc, flags.session_present))
        self.client.on_subscribe = lambda c, u, mid, codes, props: self.events.put(("suback", mid, list(codes)))
        self.client.on_unsubscribe = lambda c, u, mid, codes, props: self.events.put(("unsuback", mid))
        self.client.on_disconnect = lambda c, u, flags, rc, props: self.events.put(("disconnect", rc))
        self.client.on_message = lambda c, u, msg: self.messages.put(msg)

    def _event(self, kind: str):
        while True:
            event = self.events.get(timeout=WAIT)
            if event[0] == kind:
                return event

    async def connect(self, keepalive: int = 60):
        def go():
            self.client.connect("127.0.0.1", self.port, keepalive)
            self.client.loop_start()
            return self._event("connect")

        _, rc, present = await trio.to_thread.run_sync(go)
        return rc, present

    async def subscribe(self, topic: str, qos: int) -> list:
        def go():
            self.client.subscribe(topic, qos)
            return self._event("suback")[2]

        codes = await trio.to_thread.run_sync(go)
        return [c.value if hasattr(c, "value") else c for c in codes]

    async def unsubscribe(self, topic: str) -> None:
        def go():
            self.client.unsubscribe(topic)
            self._event("unsuback")

        await trio.to_thread.run_sync(go)

    async def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None:
        def go():
            info = self.client.publish(topic, payload, qos, retain)
            info.wait_for_publish(WAIT)
            assert info.is_published()

        await trio.to_thread.run_sync(go)

    async def receive(self):
        return await trio.to_thread.run_sync(lambda: self.messages.get(timeout=WAIT))

    def nothing_waiting(self) -> bool:
        return self.messages.empty()

    async def disconnect(self) -> None:
        def go():
            self.client.disconnect()
            self._event("disconnect")
            self.client.loop_stop()

        await trio.to_thread.run_sync(go)

    async def dropped(self) -> None:
        """Wait for the server to end the connection (no DISCONNECT of ours), then stop the loop."""
        def go():
            self._event("disconnect")
            self.client.loop_stop()

        await trio.to_thread.run_sync(go)


class RawMQTT:
    """Bytes to and from the server, for what no well-behaved client sends."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = bytearray()
        self.frames: list[bytes] = []  # every packet's bytes as received, in order

    @classmethod
    async def connect(cls, port: int) -> RawMQTT:
        return cls(await trio.open_tcp_stream("127.0.0.1", port))

    async def send(self, data) -> None:
        if not isinstance(data, (bytes, bytearray)):
            data = MP.encode(data)
        await self.stream.send_all(data)

    async def packet(self):
        """The next packet, or None once the server has closed the connection."""
        with trio.fail_after(WAIT):
            while True:
                if len(self.buffer) >= 2:
                    length, shift, at = 0, 0, 1
                    while at < len(self.buffer):
                        digit = self.buffer[at]
                        length |= (digit & 0x7F) << shift
                        shift += 7
                        at += 1
                        if not digit & 0x80:
                            break
                    if not self.buffer[at - 1] & 0x80 and len(self.buffer) >= at + length:
                        first, body = self.buffer[0], bytes(self.buffer[at:at + length])
                        self.frames.append(bytes(self.buffer[:at + length]))
                        del self.buffer[:at + length]
                        return MP.decode(first, body)
                try:
                    data = await self.stream.receive_some(65536)
                except (trio.BrokenResourceError, ConnectionResetError):
                    return None
                if not data:
                    return None
                self.buffer += data

    async def closed(self) -> bool:
        """True once the server has closed the connection (whatever it sent before)."""
        while (await self.packet()) is not None:
            pass
        return True

    async def aclose(self) -> None:
        await self.stream.aclose()


