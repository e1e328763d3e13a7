"""A TCP proxy between a client and qmlite that counts what crosses it: bytes and TSH segments in each
direction.  Channel status tests compare the queue manager's BytesSent/BytesReceived and
BuffersSent/BuffersReceived with what the client's socket really carried.

Each direction is counted before it is forwarded, so once a client's call has returned, every byte of
its request and of the reply it read has been counted.  Port 0, 127.0.0.1, one thread per direction.
"""

from __future__ import annotations

import dataclasses
import socket
import threading


@dataclasses.dataclass
class Flow:
    """One direction of one connection."""

    bytes: int = 0
    segments: int = 0
    _pending: bytearray = dataclasses.field(default_factory=bytearray)

    def feed(self, data: bytes) -> None:
        self.bytes += len(data)
        buf = self._pending
        buf += data
        while len(buf) >= 8:  # a TSH header: eye-catcher, then the segment length (big-endian)
            length = int.from_bytes(buf[4:8], "big")
            if length < 8 or len(buf) < length:
                break
            del buf[:length]
            self.segments += 1


@dataclasses.dataclass
class Proxied:
    """One client connection through the proxy: what it sent (to the server) and received."""

    to_server: Flow = dataclasses.field(default_factory=Flow)
    to_client: Flow = dataclasses.field(default_factory=Flow)


class CountingProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections: list[Proxied] = []
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, name="counting-proxy", daemon=True)
        self._accepting.start()

    @property
    def conn_name(self) -> str:
        return f"127.0.0.1({self.port})"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            server = socket.create_connection(self.target)
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            proxied = Proxied()
            self.connections.append(proxied)
            self._sockets += [client, server]
            for src, dst, flow in ((client, server, proxied.to_server), (server, client, proxied.to_client)):
                t = threading.Thread(target=self._pump, args=(src, dst, flow), daemon=True)
                self._threads.append(t)
                t.start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket, flow: Flow) -> None:
        try:
            while data := src.recv(65536):
                flow.feed(data)  # counted before the other side can see it
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept (Linux)
        except OSError:
            pass
        self.listener.close()
        self._accepting.join(5)
        for s in self._sockets:
            s.close()
        for t in self._threads:
            t.join(5)
