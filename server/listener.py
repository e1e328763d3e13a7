"""The TCP listener: one task per connection inside one nursery, a bounded number of connections,
beside the command server's task and the group committer's."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import pathlib
import time
from collections.abc import AsyncIterator

import trio

from qmlite.pcf import constants as C
from qmlite.registry import hosting, qmgrnames
from qmlite.registry.admin.commandserver import QUEUE as COMMAND_QUEUE
from qmlite.registry.errors import MQIError
from qmlite.registry.objects.channels import MQTT_CHANNEL
from qmlite.registry.objects import channels
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.security import authority

from . import command_server, mca, monitor, svrconn
from . import log as qlog
from .config import ServerConfig
from .connection import Connection
from .durability import GroupCommitter
from .mqi import MQI
from .negotiation import ServerIdentity
from .opening import open_queue_manager
from .tls import ServerTLS, first_bytes, is_tls

# IBM's channel program that ends on an unexpected error writes AMQ9999E "Channel program ended abnormally".
_CRASHED = "AMQ9999E: Channel program ended abnormally."


class QueueManagerServer:
    """One queue manager's tasks (committer, command server, monitoring) and connections.  The first
    (``primary``) also owns the TCP listener and the REST API, and hosts the others: each connection is
    handed at its first ID exchange to the server of the queue manager it names (docs/multiqm.md)."""

    def __init__(self, cfg: ServerConfig, qm: QueueManager, *, primary: QueueManagerServer | None = None,
                 synchronous: str = "FULL") -> None:
        self.cfg = cfg
        self.qm = qm
        self.primary = primary or self
        self.synchronous = synchronous
        self.ready = trio.Event()  # its tasks run: connections routed to it may be served
        self._started = False  # its tasks asked for (ensure_running)
        self._nursery: trio.Nursery | None = None
        self.registry = qm.registry
        self.connections: set[Connection] = set()
        self._ids = itertools.count(1)
        self.identity = ServerIdentity(qm.registry.qmgr.name, qm.registry.qmgr.identifier, qm.registry.qmgr.ccsid)
        # With a single connection there is no one whose reply an fsync on the loop could delay.  With none,
        # the writer thread syncs: the start-up's own writes (the monitoring metadata) must not hold up the
        # first connection (issue 24).  With several, the syncs go to the sync helper process, started
        # then (not at start-up, where its interpreter would compete for the CPU; decision JN2) -- unless
        # every reply since the last commit waited for one: then the loop syncs itself (decision JN9).
        # A channel agent START CHANNEL runs (server/mca/agents.py) waits on the committer as a connection
        # does: counted with them, so its fsyncs never run on the loop while a client waits (decision MCD2).
        self.agents = 0
        self.committer = GroupCommitter(qm.registry.store, alone=lambda: len(self.connections) + self.agents == 1,
                                        sync_helper=True, crowded=lambda: len(self.connections) + self.agents > 1,
                                        on_loop=True)
        self.mqi = MQI(self)
        self.port = 0
        self.http_port: int | None = None  # the REST API's bound port, when cfg.http_port is set
        self.mqtt_port: int | None = None  # DEV.MQTT's bound port, when cfg.mqtt_port is set and it listens
        self.stopping = trio.Event()  # set by quiesce: the REST API's shutdown trigger
        self.mqsc_runner = None  # the REST mqsc endpoint's runner; None: qmlite.registry.mqsc.run_mqsc
        self.reconnect_clients = False  # how quiesce ends client connections (endmqm -r when True)
        self._tasks: trio.CancelScope | None = None  # a hosted queue manager's tasks (run_tasks), for endmqm
        self._tasks_done = trio.Event()
        self.drained = trio.lowlevel.ParkingLot()  # woken as each of its connections ends (endmqm waits)
        if svrconn.apply_config(cfg, self.registry):
            self.registry.commit()
        # The TLS environment is set up at the first TLS handshake, and again at REFRESH SECURITY TYPE(SSL):
        # an SSLKEYR/KEYRPWD/CERTLABL changed before the first TLS channel applies to it (decision KR1).
        self.tls = ServerTLS(cfg, self.registry, qlog.get(component="tls"))
        self.registry.running.refresh_ssl = self.tls.reload
        # ---- hosting (primary only): name -> server, and the domain's QueueManagers
        self.servers: dict[str, QueueManagerServer] = {}
        self.qmgrs: hosting.QueueManagers | None = None
        if primary is None:
            self.servers[qm.registry.qmgr.name] = self
            self.qmgrs = hosting.QueueManagers(cfg.data_dir, qm, opener=self._open_hosted,
                                               create_pattern=cfg.create_on_connect, max_qmgrs=cfg.max_qmgrs,
                                               create_rate=cfg.create_rate)
            self.qmgrs.on_created = self._hosted_created
            try:
                # What an earlier run left is hosted again; a directory that is no queue manager's, or
                # one that will not open, is logged and left alone: it cannot stop the start (NM4).
                self.qmgrs.create_many(cfg.qmgrs, found=self.qmgrs.open_existing(report=self._skipped),
                                       report=self._skipped)
            except BaseException:
                self.qmgrs.shutdown()
                raise

    @property
    def quiescing(self) -> bool:
        return self.qm.quiescing

    async def serve(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Listen and run the command server; ``task_status.started`` gets the listeners."""
        listeners = await trio.open_tcp_listeners(self.cfg.port, host=self.cfg.host)
        self.port = listeners[0].socket.getsockname()[1]
        self._listener_started()
        async with trio.open_nursery() as nursery:
            await nursery.start(self.committer.run)
            await self._start_tasks(nursery)
            self.ready.set()
            self._started = True
            # The other queue managers' tasks start when one is first used (ensure_running): opened, they
            # are ready to be routed to, and 32 cost little more than one (scripts/bench/multiqm_ready.py).
            self._nursery = nursery
            mca.register_lazily(self, nursery)  # issue 34: START CHANNEL runs a sender's agent (docs/channels.md)
            token = trio.lowlevel.current_trio_token()  # endmqm of a hosted one asks from any thread
            self.qmgrs.on_end_one = lambda name, reconnect: token.run_sync_soon(
                nursery.start_soon, self._end_hosted, name, reconnect)
            await nursery.start(trio.serve_listeners, self._handle, listeners)
            if self.cfg.http_port is not None:
                from .http import serve as http_serve  # hypercorn and starlette load only when asked for

                self.http_port = await nursery.start(http_serve.run, self, self.stopping)
            # Issue 33: the MQTT transport behind SYSTEM.MQXR.SERVICE, plugged in (server/telemetryio.py).
            from . import telemetryio
            telemetry = telemetryio.plug(nursery, self)
            if self.cfg.mqtt_port is not None:  # the ready line names DEV.MQTT's port (--mqtt-port 0: the one chosen)
                self.mqtt_port = await telemetry.port_of(MQTT_CHANNEL)
            task_status.started(listeners)

    async def _start_tasks(self, nursery: trio.Nursery) -> None:
        """The command server and the monitoring clocks, each handed what it uses."""
        qm, committer = self.qm, self.committer
        await nursery.start(command_server.run, qm, self.mqi.activity.lot(COMMAND_QUEUE), committer)
        await nursery.start(monitor.run, qm, committer, self.cfg.monitor_interval)
        await nursery.start(monitor.run_statistics, qm, committer)
        from .mca import clusteragent  # issue 34: a cluster member's repository and cluster-senders

        nursery.start_soon(clusteragent.run, self)

    # ---- hosting several queue managers (registry/hosting.py) ------------------------------------
    async def run_tasks(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """A hosted queue manager's tasks, in the primary's nursery: no listener of its own."""
        try:
            async with trio.open_nursery() as nursery:
                self._tasks = nursery.cancel_scope
                await nursery.start(self.committer.run)
                await self._start_tasks(nursery)
                mca.register_lazily(self, nursery)  # issue 34: START CHANNEL runs a sender's agent (docs/channels.md)
                running = self.registry.running
                running.served_port, running.served_pid = self.primary.port, os.getpid()
                self.qm.events.qmgr_active()  # STRSTPEV: as the default's, once it can be reached
                self.ready.set()
                task_status.started()
        finally:
            self._tasks_done.set()

    async def _end_hosted(self, name: str, reconnect: bool) -> None:
        """endmqm of hosted queue manager ``name`` (registry/hosting.py ``on_end_one``): its clients told as
        at the server's end (QM_TERMINATING; RECONNECT_CLIENTS with ``-r``), their connections ended, its
        tasks stopped, then its data directory closed; it shows ENDED until strmqm or dltmqm."""
        server = self.servers.get(name)
        if server is None or server is self:
            return
        with trio.CancelScope(shield=True):
            if server._started:
                await server.ready.wait()  # its tasks run: its committer writes what the end writes
                await server.quiesce(reconnect=reconnect)
            else:  # never used since it was opened: no tasks, no clients, no start written to end
                server.qm.quiescing = True
            for conn in list(server.connections):  # a client that goes on calling is not served again
                if conn.nursery is not None:
                    conn.nursery.cancel_scope.cancel()
            while server.connections:
                await server.drained.park()
            if server._tasks is not None:
                server._tasks.cancel()
                await server._tasks_done.wait()
            if self.servers.get(name) is server:  # routed to no more (route), before its data closes
                del self.servers[name]
            await trio.to_thread.run_sync(self.qmgrs.closed, name)
        qlog.get().info("qmgr_ended", qmgr=name, reconnect_clients=reconnect)

    def _open_hosted(self, name: str, data_dir: pathlib.Path) -> QueueManager:
        """Open (create) a hosted queue manager, on whichever thread asks: its channels are configured and
        committed here too, so opening many at start overlaps their fsyncs (registry/hosting.py)."""
        cfg = self.hosted_config(name, data_dir)
        qm = open_queue_manager(cfg, synchronous=self.synchronous)
        if svrconn.apply_config(cfg, qm.registry):
            qm.registry.commit()
        return qm

    def hosted_config(self, name: str, data_dir: pathlib.Path) -> ServerConfig:
        """A hosted queue manager's settings: the server's (channels, passwords, start-up MQSC, publish
        exit, monitoring), its own name and data directory, no listener of its own."""
        return dataclasses.replace(self.cfg, qmgr_name=name, data_dir=data_dir, qmgrs=(), create_on_connect="",
                                   http_port=None)

    def _hosted_created(self, qm: QueueManager) -> None:
        name = qm.registry.qmgr.name
        hosted = QueueManagerServer(self.hosted_config(name, self.qmgrs.data_dir_of(name)), qm, primary=self,
                                    synchronous=self.synchronous)
        self.servers[name] = hosted
        if self._nursery is not None:  # created while serving (by MQCONN, MQSC or REST): used now
            hosted.ensure_running()
        qlog.get().info("qmgr_created", qmgr=name, hosted=len(self.servers))

    def ensure_running(self) -> None:
        """Start a hosted queue manager's tasks once, at its first use (a connection routed to it, a REST
        request naming it, its creation while serving); ``ready`` is set when they run."""
        if not self._started and self.primary._nursery is not None:
            self._started = True
            self.port = self.primary.port  # the one listener's (Inquire Listener Status, the CCDT)
            self.primary._nursery.start_soon(self.run_tasks)

    def hosted(self, name: str) -> QueueManagerServer | None:
        """The server of a hosted queue manager (blank: the default), without creating one."""
        qm = self.primary.qmgrs.get(name)
        return None if qm is None else self.primary.servers.get(qm.registry.qmgr.name)

    async def route(self, name: str, logger=None) -> QueueManagerServer | None:
        """The server of the queue manager an ID exchange names; None when none is hosted under that
        name (MQCONN then answers 2058, unless ``pending`` says its first authenticated MQCONN may
        create it).  Nothing is created here: the client has not said who it is yet (NM5)."""
        primary = self.primary
        if name in ("", "*", primary.qm.registry.qmgr.name):
            return primary
        qm = primary.qmgrs.get(name)
        if qm is None:
            return None
        server = primary.servers.get(qm.registry.qmgr.name)
        if server is None:  # ended (endmqm) while this connection was routed
            return None
        server.ensure_running()
        await server.ready.wait()
        return server

    async def route_channel(self, name: str, *, requester: bool = False) -> QueueManagerServer:
        """The server of the queue manager a message channel's ID reaches: the first (the default, then
        the others by name) with a receiving channel (RCVR, RQSTR) of that name -- for a requester's ID,
        a SVR or SDR (decision MCS2); else the default, which refuses it.  Not QMgrName: it names the
        queue manager starting the channel (decision MCA18)."""
        primary = self.primary
        wanted = channels.ANSWERING if requester else channels.RECEIVING
        for qm in primary.qmgrs:
            definition = qm.registry.objects(channels.KIND).get(name)
            if definition is not None and definition.channel_type in wanted:
                server = primary.servers[qm.registry.qmgr.name]
                server.ensure_running()
                await server.ready.wait()
                return server
        return primary

    def pending(self, name: str) -> ServerIdentity | None:
        """For a name no queue manager has yet but the create-on-connect pattern matches: the identity
        the ID exchange answers with (its name, the QMID it will have), else None."""
        if not self.primary.qmgrs.creatable(name):
            return None
        now = time.time()
        return ServerIdentity(name, qmgrnames.identifier(name, now), self.identity.ccsid, created=now)

    def create_pending(self, conn: Connection, conv, body) -> int:
        """An MQCONN on a connection whose queue manager does not exist yet (``pending``): the client is
        authenticated and authorised by the default queue manager's rules (CONNAUTH, CHLAUTH, connect
        authority: the rules this server's administrator set), and only then is the queue manager
        created, within the caps, and the connection handed to it; 0, or the MQRC the MQCONN fails with
        (NM5, NM7).  The MQCONN then runs on the new queue manager, with its own checks."""
        primary = self.primary
        pending = conn.pending
        if body.QMgrName not in ("", "*", pending.qmgr_name):  # MQCONN names another than the ID did
            return C.MQRC_Q_MGR_NAME_ERROR
        reason, user, _ = conn.authenticate(conv, body.ApplName, body.ApplType)
        if not reason:
            try:
                authority.check_connect(primary.registry, user)
            except MQIError as exc:
                reason = exc.reason
        if reason:
            conn.log.warning("qmgr_not_created", qmgr=pending.qmgr_name, reason=C.describe("MQRC", reason),
                             why="the client is not authenticated")
            return reason
        try:
            qm = primary.qmgrs.create_on_connect(pending.qmgr_name, created=pending.created)
            server = primary.servers[qm.registry.qmgr.name]
            conn.move_to(server)
        except (hosting.HostingError, MQIError) as exc:
            conn.log.warning("qmgr_not_created", qmgr=pending.qmgr_name, reason=C.describe("MQRC", exc.reason),
                             why=str(exc), cause=repr(exc.__cause__) if exc.__cause__ else None)
            return exc.reason
        server.ensure_running()
        return 0

    def _skipped(self, directory: str, why: str) -> None:
        qlog.get().warning("qmgr_directory_skipped", directory=directory, why=why)

    def connection_count(self) -> int:
        return sum(len(s.connections) for s in self.primary.servers.values())

    def _listener_started(self) -> None:
        """Our socket, as Inquire Listener Status reports it: the listener object it stands for is
        the TCP listener the queue manager starts (CONTROL(QMGR) or STARTONLY) on the configured port,
        else the first it starts at all (DEV.LISTENER.TCP in developer mode)."""
        from qmlite.pcf import constants as C
        from qmlite.registry.objects import endpoints

        listeners = [lst for _, lst in sorted(self.registry.objects(endpoints.LISTENER).items())
                     if lst.transport_type == C.MQXPT_TCP
                     and lst.start_mode in (C.MQSVC_CONTROL_Q_MGR, C.MQSVC_CONTROL_Q_MGR_START)]
        chosen = next((lst for lst in listeners if lst.port == self.cfg.port), listeners[0] if listeners else None)
        running = self.registry.running
        running.served_port, running.served_pid = self.port, os.getpid()
        if chosen is not None:
            running.served_listener = chosen.name
            running.listener_started(chosen.name, self.port, self.qm.now(), ip_address=self.cfg.host,
                                     backlog=chosen.backlog, process_id=os.getpid())

    async def _handle(self, stream: trio.SocketStream) -> None:
        """One accepted socket, from accept to close.  trio's serve_listeners runs this in the
        listener's nursery, so whatever escapes it would end the whole server: a bug met by one client
        ends that client's connection alone (logged with its traceback), and the socket accepted here
        is closed here, once, whatever happened to it on the way (trio's serve_listeners: whoever spawns
        closes).  ``streams`` ends with the outermost stream over the socket (TLS's, once handshaken),
        whose close closes the socket under it too."""
        conn_no = next(self._ids)
        streams = [stream]
        try:
            await self._serve(streams, conn_no)
        except* Exception:  # except*: also a bug grouped with a cancellation, which goes on as it should
            qlog.get(connection=conn_no).exception("connection_crashed", message=_CRASHED)
        finally:
            with trio.CancelScope(shield=True):
                await streams[-1].aclose()

    async def _serve(self, streams: list, conn_no: int) -> None:
        """Serve one accepted socket (``streams[0]``); a TLS stream over it is appended for ``_handle``."""
        stream = streams[0]
        opening = trio.current_time() + self.cfg.opening_timeout  # the whole opening exchange, from accept
        try:
            peer = stream.socket.getpeername()
            peer_text = f"{peer[0]}:{peer[1]}"
        except OSError:
            peer_text = "?"
        logger = qlog.get(connection=conn_no, peer=peer_text)
        if not self.registry.running.accepting():  # Stop Listener: no new clients until Start Listener
            logger.info("connection_refused", reason="listener stopped")
            return
        if self.quiescing or self.connection_count() >= self.cfg.max_connections:
            logger.warning("connection_refused", reason="MAX_CONNS_LIMIT_REACHED" if not self.quiescing
                           else "QM_TERMINATING")
            if not self.quiescing:  # the error log's AMQ9513E, and the refusals list (docs/errorlog.md)
                self.registry.diagnostics.max_channels(address=peer_text.rpartition(":")[0],
                                                       limit=self.cfg.max_connections)
            conn = Connection(self, stream, conn_no, logger)
            await conn.refuse(quiescing=self.quiescing)
            return
        # Plain or TLS, told by the first byte; the wait and any handshake are this connection's own
        # (server/tls.py), so a silent or half-finished client never delays another.  Both fit in the
        # opening deadline, which the connection then keeps until its first MQCONN.
        first = await first_bytes(stream, min(self.cfg.tls_handshake_timeout, self.cfg.opening_timeout))
        if not first:
            logger.info("connection_dropped", reason="nothing sent")
            return
        negotiated = None
        raw = stream
        if is_tls(first):
            timeout = max(0.0, min(self.cfg.tls_handshake_timeout, opening - trio.current_time()))
            tls_stream, negotiated, why = await self.tls.handshake(stream, first, timeout)
            if tls_stream is None:
                logger.warning("tls_handshake_failed", reason="MQRC_SSL_INITIALIZATION_ERROR", why=why)
                return
            streams.append(tls_stream)
            stream, first = tls_stream, b""
        conn = Connection(self, stream, conn_no, logger, raw=raw, tls=negotiated, opening_deadline=opening)
        self.connections.add(conn)
        logger.info("connect", tls=negotiated.cipher_spec if negotiated else None)
        serving = conn.run(first)
        first = b""  # the client's first bytes are the connection's now: not held here for its lifetime
        try:
            await serving
        finally:
            conn.server.connections.discard(conn)  # the server it was routed to (docs/multiqm.md)
            conn.server.drained.unpark_all()
            logger.info("disconnect", **conn.summary())

    async def quiesce(self, *, reconnect: bool | None = None) -> None:
        """Tell every client the queue manager is ending, then let the caller cancel the tasks.
        ``reconnect`` (default: ``self.reconnect_clients``) asks reconnectable clients to connect
        again, as ``endmqm -r`` does; without it they are told the queue manager is ending, as after
        ``endmqm`` (docs/reconnect.md)."""
        if reconnect is None:
            reconnect = self.reconnect_clients
        if not self.qm.quiescing:
            self.qm.events.qmgr_not_active(quiescing=True)  # STRSTPEV: Queue Manager Not Active, once
            with trio.move_on_after(5):  # a persistent event is on disk before the queue manager ends
                await self.mqi.durable(self.qm.position)
        self.qm.quiescing = True
        self.stopping.set()
        qlog.get().info("ending", reconnect_clients=reconnect, connections=len(self.connections))
        for conn in list(self.connections):
            await conn.quiesce(reconnect=reconnect)
        if self.primary is self:  # the hosted queue managers end with the process's
            for hosted in list(self.servers.values()):
                if hosted is not self and hosted._started:
                    await hosted.quiesce(reconnect=reconnect)


@contextlib.asynccontextmanager
async def running(cfg: ServerConfig, *, synchronous: str = "FULL",
                  qm: QueueManager | None = None) -> AsyncIterator[QueueManagerServer]:
    """The one way to run a queue manager server (the CLI, the pytest plugin and the tests use it):
    open the data directory, listen, yield the server with its ``port``; on exit tell the clients the
    queue manager is ending, stop every task and close the data directory (when it opened it)."""
    owned = qm is None
    if qm is None:
        qm = open_queue_manager(cfg, synchronous=synchronous)
    server = None
    try:
        server = QueueManagerServer(cfg, qm, synchronous=synchronous)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve)
            qm.events.qmgr_active()  # STRSTPEV: Queue Manager Active, once it listens
            try:
                yield server
            finally:
                with trio.CancelScope(shield=True):
                    await server.quiesce()
                nursery.cancel_scope.cancel()
    finally:
        if server is not None and server.qmgrs is not None:
            server.qmgrs.shutdown()  # the hosted queue managers (the default is the caller's or below)
        if owned:
            qm.shutdown()
