"""MQTT over WebSockets (a telemetry channel's PROTOCOL(HTTP)): the HTTP upgrade and the frames, by
wsproto (hypercorn's, already a dependency), as a trio stream the MQTT connection reads and writes
like a socket.  A client's MQTT packets travel in binary messages (MQTT 3.1.1 section 6); the
subprotocol offered, ``mqtt`` (or 3.1's ``mqttv3.1``), is accepted.
"""

from __future__ import annotations

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import (AcceptConnection, BytesMessage, CloseConnection, Message, Ping, RejectConnection,
                            Request, TextMessage)
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

_SUBPROTOCOLS = ("mqtt", "mqttv3.1")


class WebSocketStream(trio.abc.Stream):
    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.ws = WSConnection(ConnectionType.SERVER)
        self._pending = bytearray()
        self._ended = False

    async def accept(self, first: bytes) -> bool:
        """The opening handshake, ``first`` being the bytes already read; False when it failed."""
        data = first
        while True:
            try:
                self.ws.receive_data(data or None)
                for event in self.ws.events():
                    if isinstance(event, Request):
                        offered = [p for p in _SUBPROTOCOLS if p in event.subprotocols]
                        await self.stream.send_all(self.ws.send(AcceptConnection(
                            subprotocol=offered[0] if offered else None)))
                        return True
                    return False
            except (LocalProtocolError, RemoteProtocolError):
                await self._refuse()
                return False
            if not data:
                return False
            data = await self.stream.receive_some(65_536)

    async def _refuse(self) -> None:
        try:
            await self.stream.send_all(self.ws.send(RejectConnection(status_code=400)))
        except (LocalProtocolError, trio.BrokenResourceError, OSError):
            pass

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        while not self._pending and not self._ended:
            try:
                for event in self.ws.events():
                    if isinstance(event, BytesMessage):
                        self._pending += event.data
                    elif isinstance(event, TextMessage):  # MQTT-6.0.0-1: binary frames only
                        raise trio.BrokenResourceError("an MQTT packet in a text frame")
                    elif isinstance(event, Ping):
                        await self.stream.send_all(self.ws.send(event.response()))
                    elif isinstance(event, CloseConnection):
                        await self.stream.send_all(self.ws.send(event.response()))
                        self._ended = True
            except RemoteProtocolError as exc:
                raise trio.BrokenResourceError(f"WebSocket: {exc}") from None
            if self._pending or self._ended:
                break
            data = await self.stream.receive_some(65_536)
            if not data:
                self._ended = True
                break
            self.ws.receive_data(data)
        out = bytes(self._pending)
        self._pending.clear()
        return out

    async def send_all(self, data) -> None:
        try:
            await self.stream.send_all(self.ws.send(Message(data=bytes(data))))
        except LocalProtocolError as exc:  # the peer closed the WebSocket meanwhile
            raise trio.BrokenResourceError(str(exc)) from None

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        try:
            with trio.move_on_after(1):
                await self.stream.send_all(self.ws.send(CloseConnection(code=1000)))
        except (LocalProtocolError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        await self.stream.aclose()
