"""One HTTP connection's bug ends that connection alone, never the server.

hypercorn's trio worker runs each accepted connection (``hypercorn.trio.tcp_server.TCPServer.run``)
in its own ``server_nursery``, which is a task of the queue manager's nursery (``serve.py``): an
exception hypercorn's per-connection code does not expect -- a UnicodeDecodeError from an HTTP/2
``:method`` or ``:path`` that is not ASCII was one (decision HC2) -- ends hypercorn's nursery and with it
the whole queue manager, every MQ client included.  As ``server/listener.py``'s ``_handle`` does for
the MQ port, the guarded connection catches what escapes it, logs ``http_connection_crashed`` with the
traceback and closes the socket it was given; every other connection goes on.

It also closes a connection as soon as its client has closed and no request is in progress (HC3).
hypercorn, seeing EOF on an idle keep-alive connection, only ends its read loop: the socket stayed open
(CLOSE_WAIT, a descriptor held) until the keep-alive timer ran out, 30 s here -- a client opening and
closing connections in a loop held a descriptor per connection for that long."""

from __future__ import annotations

import hypercorn.trio.run
import trio
from hypercorn.trio.tcp_server import TCPServer

from .. import log as qlog

# No IBM message number: AMQ9999E (the MQ port's, listener.py) is a channel program's, and the mqweb
# server's messages for a connection it drops were not found.
_CRASHED = "HTTP connection ended by an unexpected error; the server and its other connections go on."


class GuardedTCPServer(TCPServer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._peer_gone = trio.Event()  # the read loop has ended: EOF, a reset, a read timeout

    async def _read_data(self) -> None:
        try:
            await super()._read_data()
        finally:
            self._peer_gone.set()

    async def _idle_timeout(self) -> None:
        """hypercorn's keep-alive timer (running only while no request is in progress), which also
        ends at once when the client has gone: nothing more can arrive, so the socket is closed now."""
        with trio.move_on_after(self.config.keep_alive_timeout):
            async with trio.open_nursery() as nursery:
                async def first(wait) -> None:
                    await wait()
                    nursery.cancel_scope.cancel()

                nursery.start_soon(first, self.context.terminated.wait)
                nursery.start_soon(first, self._peer_gone.wait)
        with trio.CancelScope(shield=True):
            await self._initiate_server_close()

    async def run(self) -> None:
        try:
            await super().run()
        except BaseExceptionGroup as group:  # hypercorn's TaskGroup (a nursery) wraps what its tasks raise
            failures, rest = group.split(Exception)
            if failures is None:
                raise  # cancellation (the server stopping), KeyboardInterrupt: not this connection's doing
            await self._crashed()
            if rest is not None:
                raise rest from None
        except Exception:
            await self._crashed()

    async def _crashed(self) -> None:
        """Called in the except block: the log takes the exception being handled."""
        qlog.get(peer=_peer(self.stream)).exception("http_connection_crashed", message=_CRASHED)
        with trio.CancelScope(shield=True):
            try:
                await self.stream.aclose()  # hypercorn's own finally closed it, unless closing was what failed
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass  # already gone: nothing left to close


def _peer(stream) -> str:
    try:
        sock = getattr(stream, "transport_stream", stream).socket
        host, port = sock.getpeername()[:2]
        return f"{host}:{port}"
    except (AttributeError, OSError):
        return "?"


def install() -> None:
    """Make hypercorn's trio worker serve every accepted connection through the guard: ``worker_serve``
    looks ``TCPServer`` up in its own module's globals at each start."""
    hypercorn.trio.run.TCPServer = GuardedTCPServer
