#!/usr/bin/env python3
"""A bare trio server that answers a new MQ connection with the bytes qmlite answered it once (issue 35, the
TLS target's ceiling; run by ``tls.py``).

The client is the real one (IBM's ``ibmmq`` over qmlite's transport) and sends the same bytes on every new
connection of a kind, so the server needs no MQ at all: for each step of the recorded conversation it reads
as many bytes as the client sent there and writes what qmlite wrote back.  One port serves plain
connections, the other TLS ones -- the queue manager's certificate and the channel's CipherSpec as qmlite
presents them, no new ticket for a client resuming a session (qmlite's rule since decision HP11, at its
cheapest: no ClientHello read), and a close_notify at the end as qmlite sends.  What a TLS connection
costs here beyond a plain one is the least any trio server on CPython pays for it with this client.

    python replay_server.py SCRIPT.json PKI_DIR CIPHER CHANNEL    (prints "PLAIN_PORT TLS_PORT")

At SIGTERM it prints ``HANDSHAKES RESUMED`` (its TLS handshakes, and how many resumed a session) and ends:
the ceiling holds only for handshakes resumed as qmlite's are.

SCRIPT.json: ``{"plain": [[client_bytes, reply_hex], ...], "tls": [...]}``, a step a pair.  The socket is
read and written directly, as qmlite's channels do (decision HP1).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import ssl
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import trio  # noqa: E402

_RECEIVE = 65536
handshakes = {"done": 0, "resumed": 0}


async def _send(conn: socket.socket, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[conn.send(view):]
        except BlockingIOError:
            await trio.lowlevel.wait_writable(conn)


async def _recv(conn: socket.socket) -> bytes:
    while True:
        try:
            return conn.recv(_RECEIVE)
        except BlockingIOError:
            await trio.lowlevel.wait_readable(conn)


async def serve_plain(conn: socket.socket, steps: list[tuple[int, bytes]]) -> None:
    held = 0  # bytes read towards the step's request
    for need, reply in steps:
        while held < need:
            data = await _recv(conn)
            if not data:
                return
            held += len(data)
        held -= need
        await _send(conn, reply)
    while await _recv(conn):  # the client closes once its MQDISC is answered
        pass


class _TLS:
    """One server side of TLS over the socket, through memory BIOs (as qmlite's TLSStream)."""

    def __init__(self, conn: socket.socket, ctx: ssl.SSLContext) -> None:
        self.conn = conn
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = ctx.wrap_bio(self.incoming, self.outgoing, server_side=True)

    async def flush(self) -> None:
        data = self.outgoing.read()
        if data:
            await _send(self.conn, data)

    async def fill(self) -> bool:
        await self.flush()
        data = await _recv(self.conn)
        if not data:
            return False
        self.incoming.write(data)
        return True

    async def handshake(self) -> bool:
        while True:
            try:
                self.obj.do_handshake()
                await self.flush()
                return True
            except ssl.SSLWantReadError:
                if not await self.fill():
                    return False

    async def read(self) -> bytes:
        while True:
            try:
                return self.obj.read(_RECEIVE)
            except ssl.SSLWantReadError:
                if not await self.fill():
                    return b""
            except ssl.SSLZeroReturnError:
                return b""


async def serve_tls(conn: socket.socket, ctx: ssl.SSLContext, steps: list[tuple[int, bytes]]) -> None:
    tls = _TLS(conn, ctx)
    if not await tls.handshake():
        return
    handshakes["done"] += 1
    handshakes["resumed"] += tls.obj.session_reused
    ctx.num_tickets = 0  # the client keeps its first session and resumes it: no new ticket (HP11)
    held = 0
    try:
        for need, reply in steps:
            while held < need:
                data = await tls.read()
                if not data:
                    return
                held += len(data)
            held -= need
            tls.obj.write(reply)
            await tls.flush()
        while await tls.read():
            pass
    except (ssl.SSLError, OSError):
        return
    try:
        tls.obj.unwrap()  # close_notify, as qmlite sends before closing
    except (ssl.SSLError, OSError):
        pass
    try:
        await tls.flush()
    except OSError:
        pass


def server_tls(pki_dir: str):
    """qmlite's ``ServerTLS`` over a PKI directory, as the server loads it (its log lines dropped)."""
    import types

    from qmlite.server.tls import ServerTLS

    qmgr = types.SimpleNamespace(ssl_key_repository="", ssl_key_repo_password="", cert_label="")
    log = types.SimpleNamespace(error=lambda *a, **k: None, info=lambda *a, **k: None,
                                warning=lambda *a, **k: None)
    server = ServerTLS(types.SimpleNamespace(pki_dir=pki_dir), types.SimpleNamespace(qmgr=qmgr, diagnostics=None),
                       log)
    if server.reload():
        raise SystemExit(f"the PKI did not load: {server.problem}")
    return server


def server_context(server, cipher: str, channel: str) -> ssl.SSLContext:
    """``server``'s context for ``channel`` (its certificate, CipherSpec and client-certificate rule), as
    qmlite makes it."""
    import types

    return server.context(types.SimpleNamespace(cert_label="", ssl_cipher_spec=cipher, name=channel))


async def main(script: dict, ctx: ssl.SSLContext) -> None:
    steps = {kind: [(int(need), bytes.fromhex(reply)) for need, reply in script[kind]] for kind in ("plain", "tls")}

    async def handle(conn: socket.socket, kind: str) -> None:
        try:
            if kind == "plain":
                await serve_plain(conn, steps["plain"])
            else:
                await serve_tls(conn, ctx, steps["tls"])
        except OSError:
            pass
        finally:
            conn.close()

    async def listen(listener, kind: str, nursery) -> None:
        while True:
            conn, _ = await listener.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            raw = socket.socket(fileno=conn.detach())  # the plain socket: its calls without trio's wrapper
            raw.setblocking(False)
            nursery.start_soon(handle, raw, kind)

    listeners = []
    for _ in range(2):
        listener = trio.socket.socket()
        await listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listeners.append(listener)
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        print(*(listener.getsockname()[1] for listener in listeners), flush=True)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(listen, listeners[0], "plain", nursery)
            nursery.start_soon(listen, listeners[1], "tls", nursery)
            async for _ in signals:
                print(handshakes["done"], handshakes["resumed"], flush=True)
                nursery.cancel_scope.cancel()
                break


if __name__ == "__main__":
    with open(sys.argv[1]) as fh:
        loaded = json.load(fh)
    trio.run(main, loaded, server_context(server_tls(sys.argv[2]), sys.argv[3], sys.argv[4]))
