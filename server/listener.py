"""The TCP listener: one task per connection inside one nursery, a bounded number of connections."""

from __future__ import annotations

import itertools

import trio

from qmlite.registry.state import Registry

from . import log as qlog
from .command_server import CommandServer
from .config import ServerConfig
from .connection import Connection
from .mqi import MQI
from .negotiation import ServerIdentity


class QueueManagerServer:
    def __init__(self, cfg: ServerConfig, registry: Registry) -> None:
        self.cfg = cfg
        self.registry = registry
        self.connections: set[Connection] = set()
        self._ids = itertools.count(1)
        self.quiescing = False
        self.identity = ServerIdentity(registry.qmgr.name, registry.qmgr.identifier, registry.qmgr.ccsid)
        self.mqi = MQI(self)
        self.command_server = CommandServer(self)

    async def serve(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Listen and run the command server; ``task_status.started`` gets the listeners."""
        listeners = await trio.open_tcp_listeners(self.cfg.port, host=self.cfg.host)
        async with trio.open_nursery() as nursery:
            await nursery.start(self.command_server.run)
            await nursery.start(trio.serve_listeners, self._handle, listeners)
            task_status.started(listeners)

    async def _handle(self, stream: trio.SocketStream) -> None:
        conn_no = next(self._ids)
        try:
            peer = stream.socket.getpeername()
            peer_text = f"{peer[0]}:{peer[1]}"
        except OSError:
            peer_text = "?"
        logger = qlog.get(connection=conn_no, peer=peer_text)
        if self.quiescing or len(self.connections) >= self.cfg.max_connections:
            logger.warning("connection_refused", reason="MAX_CONNS_LIMIT_REACHED" if not self.quiescing
                           else "QM_TERMINATING")
            conn = Connection(self, stream, conn_no, logger)
            await conn.refuse(quiescing=self.quiescing)
            return
        conn = Connection(self, stream, conn_no, logger)
        self.connections.add(conn)
        logger.info("connect")
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)
            logger.info("disconnect", **conn.summary())

    async def quiesce(self) -> None:
        """Tell every client the queue manager is ending, then let the caller cancel the tasks."""
        self.quiescing = True
        for conn in list(self.connections):
            await conn.quiesce()
