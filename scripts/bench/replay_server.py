#!/usr/bin/env python3
"""A bare trio server that answers the real client with the bytes qmlite answered it once (issue 35: the
ceilings of new TLS connections, ``tls.py``, and of PCFExecute's commands, ``pcf_commands.py``).

The client is the real one (IBM's ``ibmmq`` over qmlite's transport, its own Python included) and sends the
same bytes at each step of a conversation of one kind, so the server needs no MQ at all: for each step it
reads as many bytes as the client sent there and writes what qmlite wrote back, with the request's
RequestId (a TSHM's, big-endian at offset 12) in each reply segment as any server answers.  Each recorded
conversation has a port of its own:

* a set-up, then a cycle of steps repeated ``repeat`` times (a command's four calls), then a tear-down;
* TLS or not: TLS with the queue manager's certificate and the channel's CipherSpec as qmlite presents
  them, no new ticket for a client resuming a session (qmlite's rule since decision HP11, at its cheapest:
  no ClientHello read), and a close_notify at the end as qmlite sends;
* a cycle step flagged ``"sync"`` starts, once answered, the least a server that keeps what it acknowledges
  can do -- a record of the step's request size written into a preallocated file and ``fdatasync``-ed on a
  worker thread -- and one flagged ``"synced"`` is answered only once that sync is done (a Create's
  MQPUT and MQGET: the MQCLOSE between is answered meanwhile, as qmlite answers it, decision JN10);
  ``"sync:N"`` first spends N µs of CPU on the event loop, once the step is answered, before that sync
  starts -- a command's own work done by a server with one loop, as qmlite's command server does it
  (``pcf_commands.py --replay``'s third ceiling).

What the real client reaches against it is the most any trio server on CPython can give that client.

    python replay_server.py SCRIPT.json PKI_DIR CIPHER CHANNEL    (prints the conversations' ports)

SCRIPT.json: ``{"data_dir": DIR, "conversations": [{"name", "tls", "setup", "cycle", "repeat", "teardown"}]}``,
each step ``[client_bytes, reply_hex]`` or ``[client_bytes, reply_hex, flag]``.  At SIGTERM it prints
``HANDSHAKES RESUMED`` (its TLS handshakes, and how many resumed a session) and ends: a TLS ceiling holds
only for handshakes resumed as qmlite's are.  The socket is read and written directly, as qmlite's
channels do (decision HP1).
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import ssl
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import trio  # noqa: E402

_RECEIVE = 65536
_SEGMENT = 16 << 20  # the preallocated file a "sync" step writes into, as the journal's segments are (JN6)
handshakes = {"done": 0, "resumed": 0}


def work_us(flag: str) -> int:
    """The µs of CPU a ``"sync:N"`` step spends before its sync (``"sync"``: none)."""
    return int(flag.partition(":")[2] or 0)


class Step:
    """One step: how many bytes the client sends, what goes back, where in it each segment starts; its flag's
    kind and the CPU a ``"sync:N"`` spends, read once here rather than at every turn of the cycle."""

    __slots__ = ("need", "reply", "starts", "flag", "work")

    def __init__(self, need: int, reply_hex: str, flag: str = "") -> None:
        self.need, self.reply = int(need), bytes.fromhex(reply_hex)
        self.flag, self.work = flag.partition(":")[0], work_us(flag)
        self.starts = []
        at = 0
        while at + 16 <= len(self.reply):
            if self.reply[at:at + 4] == b"TSHM":
                self.starts.append(at)
            size = int.from_bytes(self.reply[at + 4:at + 8], "big")
            if size <= 0:
                break
            at += size

    def answer(self, request_head: bytes) -> bytes:
        """The reply, each TSHM segment carrying the request's RequestId."""
        if not self.starts or request_head[:4] != b"TSHM":
            return self.reply
        out = bytearray(self.reply)
        for at in self.starts:
            out[at + 12:at + 16] = request_head[12:16]
        return bytes(out)


def steps_of(conversation: dict):
    """The conversation's steps in order: set-up, the cycle ``repeat`` times, tear-down."""
    setup, cycle, teardown = ([Step(*s) for s in conversation.get(part, [])] for part in ("setup", "cycle", "teardown"))
    return itertools.chain(setup, itertools.chain.from_iterable(itertools.repeat(cycle, conversation.get("repeat", 0))),
                           teardown)


class _Plain:
    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn

    async def read(self) -> bytes:
        return await receive(self.conn)

    async def write(self, data: bytes) -> None:
        await send_all(self.conn, data)

    async def close(self) -> None:
        pass


class _TLS:
    """The server side of TLS over the socket, through memory BIOs (as qmlite's TLSStream)."""

    def __init__(self, conn: socket.socket, ctx: ssl.SSLContext) -> None:
        self.conn, self.ctx = conn, ctx
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = ctx.wrap_bio(self.incoming, self.outgoing, server_side=True)

    async def flush(self) -> None:
        data = self.outgoing.read()
        if data:
            await send_all(self.conn, data)

    async def fill(self) -> bool:
        await self.flush()
        data = await receive(self.conn)
        if not data:
            return False
        self.incoming.write(data)
        return True

    async def handshake(self) -> bool:
        while True:
            try:
                self.obj.do_handshake()
                await self.flush()
                break
            except ssl.SSLWantReadError:
                if not await self.fill():
                    return False
        handshakes["done"] += 1
        handshakes["resumed"] += self.obj.session_reused
        self.ctx.num_tickets = 0  # the client keeps its first session and resumes it: no new ticket (HP11)
        return True

    async def read(self) -> bytes:
        while True:
            try:
                return self.obj.read(_RECEIVE)
            except ssl.SSLWantReadError:
                if not await self.fill():
                    return b""
            except ssl.SSLZeroReturnError:
                return b""

    async def write(self, data: bytes) -> None:
        self.obj.write(data)
        await self.flush()

    async def close(self) -> None:
        try:
            self.obj.unwrap()  # close_notify, as qmlite sends before closing
            await self.flush()
        except (ssl.SSLError, OSError):
            pass


async def receive(conn: socket.socket) -> bytes:
    """What the non-blocking socket has (b"" at its end), waiting for it only when there is nothing."""
    while True:
        try:
            return conn.recv(_RECEIVE)
        except BlockingIOError:
            await trio.lowlevel.wait_readable(conn)


async def send_all(conn: socket.socket, data: bytes) -> None:
    """All of ``data`` onto the non-blocking socket, waiting for room if need be (the trio echo's too)."""
    view = memoryview(data)
    while view:
        try:
            view = view[conn.send(view):]
        except BlockingIOError:
            await trio.lowlevel.wait_writable(conn)


class Syncer:
    """The least durability: a record of the request's size into a preallocated file, synced off the loop
    (the trio echo of ``ibmmq_mqi.py`` syncs with it too)."""

    def __init__(self, data_dir: str) -> None:
        fd, path = tempfile.mkstemp(prefix="qmlite-replay-", dir=data_dir)
        os.unlink(path)
        os.write(fd, bytes(_SEGMENT))
        os.fsync(fd)
        self.fd, self.at = fd, 0

    async def sync(self, size: int, done: trio.Event) -> None:
        os.pwrite(self.fd, bytes(size), self.at)
        self.at = (self.at + 4096 * (1 + size // 4096)) % _SEGMENT
        await trio.to_thread.run_sync(os.fdatasync, self.fd)
        done.set()


def spin(us: int) -> None:
    """Keep this thread busy for ``us`` µs: CPU a server spends on a command, nothing else runs on the loop."""
    if us <= 0:
        return
    end = time.perf_counter_ns() + us * 1000
    while time.perf_counter_ns() < end:
        pass


async def converse(io, conversation: dict, syncer: Syncer, nursery) -> None:
    held = bytearray()  # what the client has sent towards the step's request
    synced = trio.Event()
    synced.set()
    for step in steps_of(conversation):
        while len(held) < step.need:
            data = await io.read()
            if not data:
                return
            held += data
        head = bytes(held[:16])
        del held[:step.need]
        if step.flag == "synced":
            await synced.wait()
        await io.write(step.answer(head))
        if step.flag == "sync":
            spin(step.work)  # the command's own work: the loop serves nothing meanwhile
            synced = trio.Event()
            nursery.start_soon(syncer.sync, step.need, synced)
    while await io.read():  # the client closes once its MQDISC is answered
        pass


async def listening():
    """A listening trio socket on 127.0.0.1, a port of the kernel's choice."""
    listener = trio.socket.socket()
    await listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    return listener


async def accepting(listener, nursery, handle, *args) -> None:
    """``handle(conn, *args)`` in ``nursery`` for each connection: the plain non-blocking socket, read and
    written directly rather than through trio's wrapper (decision HP1)."""
    while True:
        conn, _ = await listener.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        raw = socket.socket(fileno=conn.detach())
        raw.setblocking(False)
        nursery.start_soon(handle, raw, *args)


async def main(script: dict, ctx: ssl.SSLContext) -> None:
    syncer = Syncer(script.get("data_dir") or tempfile.gettempdir())

    async def handle(conn: socket.socket, conversation: dict) -> None:
        try:
            async with trio.open_nursery() as nursery:
                if conversation.get("tls"):
                    io = _TLS(conn, ctx)
                    if not await io.handshake():
                        return
                else:
                    io = _Plain(conn)
                try:
                    await converse(io, conversation, syncer, nursery)
                except ssl.SSLError:
                    return
                await io.close()
        except OSError:
            pass
        finally:
            conn.close()

    listeners = [await listening() for _ in script["conversations"]]
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        print(*(listener.getsockname()[1] for listener in listeners), flush=True)
        async with trio.open_nursery() as nursery:
            for listener, conversation in zip(listeners, script["conversations"]):
                nursery.start_soon(accepting, listener, nursery, handle, conversation)
            async for _ in signals:
                print(handshakes["done"], handshakes["resumed"], flush=True)
                nursery.cancel_scope.cancel()
                break


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


class Recorder:
    """In the client's process: what the real client sends and receives through qmlite's transport, read
    where the transport hands it over (above TLS, so the same for a TLS connection), cut into steps --
    each the bytes the client sent (their count) and what came back (hex).  ``mark()`` between two calls
    says where a part (set-up, cycle, tear-down) ends."""

    def __enter__(self) -> "Recorder":
        from qmlite.client.channel import ClientChannel
        from qmlite.client.sync import QueueManager

        events = self.events = []
        self._saved = sendall, receive = QueueManager._sendall, ClientChannel.receive_data

        def sending(qm, data):
            if data:
                events.append(("c", bytes(data)))
            return sendall(qm, data)

        def receiving(ch, data):
            events.append(("s", bytes(data)))
            return receive(ch, data)

        QueueManager._sendall, ClientChannel.receive_data = sending, receiving
        return self

    def __exit__(self, *exc_info) -> None:
        from qmlite.client.channel import ClientChannel
        from qmlite.client.sync import QueueManager

        QueueManager._sendall, ClientChannel.receive_data = self._saved

    def mark(self) -> int:
        return len(self.events)

    def steps(self, start: int = 0, end: int | None = None) -> list[list]:
        steps: list[list] = []
        sent = 0
        for kind, data in self.events[start:end]:
            if kind == "c":
                sent += len(data)
            elif steps and sent == 0:
                steps[-1][1] += data  # the answer arrived in more than one read
            else:
                steps.append([sent, data])
                sent = 0
        if sent:
            steps.append([sent, b""])  # bytes nothing answers (none in MQ's calls)
        return [[need, reply.hex()] for need, reply in steps]


class Replaying:
    """``replay_server.py`` in its own process for ``conversations``; ``ports`` in their order; ``stop()``
    gives (TLS handshakes, resumed)."""

    def __init__(self, conversations: list[dict], pki_dir: str = "", cipher: str = "", channel: str = "",
                 data_dir: str = "") -> None:
        import subprocess

        self._script = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        with self._script as fh:
            json.dump({"data_dir": data_dir, "conversations": conversations}, fh)
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), fh.name, pki_dir, cipher, channel],
                                     stdout=subprocess.PIPE)
        self.ports = [int(p) for p in self.proc.stdout.readline().split()]

    def stop(self) -> tuple[int, int]:
        import subprocess

        self.proc.terminate()
        try:
            done, resumed = map(int, self.proc.communicate(timeout=30)[0].split())
        except (subprocess.TimeoutExpired, ValueError):
            self.proc.kill()
            self.proc.wait()
            done = resumed = 0
        os.unlink(self._script.name)
        return done, resumed


if __name__ == "__main__":
    with open(sys.argv[1]) as fh:
        loaded = json.load(fh)
    context = server_context(server_tls(sys.argv[2]), sys.argv[3], sys.argv[4]) if sys.argv[2] else None
    trio.run(main, loaded, context)
