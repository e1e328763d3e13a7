"""Several qmlite queue managers joined by message channels, in one call (issue 34 item 5; docs/channels.md
"A topology in one call").

``running_topology(path, qmgrs=["QM1", "QM2", "QM3"], channels=[("QM1", "QM3"), ("QM3", "QM1")])``
hosts the queue managers (in one server by default, or each in a ``qmlite serve`` process of its own with
``hosting="processes"``), defines for each ``(source, target)`` a transmission queue named as the target
on the source, a sender on the source with its CONNAME at the target's port and a receiver of the same
name on the target, starts every sender and returns once each is RUNNING.  The waits follow the
queue managers' channel events (CHLEV is switched on), never a sleep.

The :class:`Topology` it yields has each queue manager's connection details (a
:class:`~qmlite.client.testserver.QmliteServer` each) and helpers: ``ibmmq(qmgr)`` (a connection through
IBM's ibmmq package), ``put(source, target, queue, body)`` (a message for a queue on another queue
manager, resolved as IBM resolves ObjectQMgrName: the transmission queue named as it), ``get``,
``status(channel)`` and ``wait_for_status(channel, "STOPPED")``, ``start_channel`` / ``stop_channel``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator

from qmlite.pcf import constants as C

__all__ = ["Topology", "TopologyChannel", "running_topology", "channel_name", "HOSTINGS"]

HOSTINGS = ("one", "processes")  # every queue manager behind one server's port, or a process each
DEFAULT_CHANNEL_ATTRS = "DISCINT(0)"  # a test's channel stays RUNNING while idle (IBM's default ends it at 6000 s)
EVENT_QUEUE = "SYSTEM.ADMIN.CHANNEL.EVENT"
# A status some change reaches with no channel event after it (STOP CHANNEL raises Stopped By User before
# the agent has stopped): the wait looks again this often while no event comes.
RECHECK_S = 0.5


def channel_name(source: str, target: str) -> str:
    """``QM1.TO.QM2``, IBM's naming convention, or ``QM1.QM2`` when that is too long for a channel name
    (20 characters); ValueError when even that is."""
    for name in (f"{source}.TO.{target}", f"{source}.{target}"):
        if len(name) <= C.MQ_CHANNEL_NAME_LENGTH:
            return name
    raise ValueError(f"no channel name of at most {C.MQ_CHANNEL_NAME_LENGTH} characters joins {source} and "
                     f"{target}: give shorter queue manager names")


@dataclasses.dataclass(frozen=True, slots=True)
class TopologyChannel:
    """One SDR/RCVR pair: ``name`` on both ends, the sender on ``source`` moving ``xmitq`` to ``target``."""

    name: str
    source: str
    target: str
    xmitq: str
    attrs: str = DEFAULT_CHANNEL_ATTRS


class TopologyError(RuntimeError):
    """A definition the topology made was refused (the MQSC and runmqsc's answer), or a wait ran out."""


@dataclasses.dataclass
class Topology:
    qmgrs: dict  # name -> QmliteServer (host, port, qmgr, conn_name, admin_channel, admin_user ...)
    channels: list[TopologyChannel]
    hosting: str = "one"
    clusters: list = dataclasses.field(default_factory=list)  # TopologyCluster each (client/clustertopology.py)

    def __getitem__(self, qmgr: str):
        return self.qmgrs[qmgr]

    @property
    def names(self) -> list[str]:
        return list(self.qmgrs)

    def channel(self, source: str, target: str) -> TopologyChannel:
        for channel in self.channels:
            if (channel.source, channel.target) == (source, target):
                return channel
        raise KeyError(f"no channel from {source} to {target}")

    def _named(self, channel, qmgr: str | None = None) -> TopologyChannel:
        """A channel of the topology, or (``qmgr`` given) any channel that queue manager defines."""
        if isinstance(channel, TopologyChannel):
            return channel
        for known in self.channels:
            if known.name == channel:
                return known
        if qmgr is not None:
            return TopologyChannel(channel, qmgr, "", "")
        raise KeyError(f"no channel {channel!r} in the topology: name the queue manager (qmgr=) for another")

    # -- administration ------------------------------------------------------------------------------
    def mqsc(self, qmgr: str, text: str) -> list:
        """MQSC on ``qmgr`` (PCF Escape as the admin user); TopologyError when a command failed."""
        results = self.qmgrs[qmgr].mqsc(text)
        for result in results:
            if result.completion_code == C.MQCC_FAILED:
                raise TopologyError(f"{qmgr}: {result.command.strip()}: {' '.join(result.text)}")
        return results

    def start_channel(self, channel, *, qmgr: str | None = None, wait: bool = True, timeout: float = 30.0) -> None:
        """START CHANNEL on the sending end (``qmgr`` for a channel the topology did not define); with
        ``wait``, returns once it is RUNNING."""
        channel = self._named(channel, qmgr)
        self.mqsc(channel.source, f"START CHANNEL({channel.name})")
        if wait:
            self.wait_for_status(channel, "RUNNING", timeout=timeout)

    def stop_channel(self, channel, *, qmgr: str | None = None, wait: bool = True, timeout: float = 30.0) -> None:
        """STOP CHANNEL on the sending end (``qmgr`` for a channel the topology did not define); with
        ``wait``, returns once it shows STOPPED."""
        channel = self._named(channel, qmgr)
        self.mqsc(channel.source, f"STOP CHANNEL({channel.name})")
        if wait:
            self.wait_for_status(channel, "STOPPED", timeout=timeout)

    def status(self, channel, *, qmgr: str | None = None) -> str:
        """The channel's STATUS as DISPLAY CHSTATUS shows it at ``qmgr`` (default: its sending end);
        INACTIVE when it has no current status."""
        channel = self._named(channel, qmgr)
        with self._admin(qmgr or channel.source) as qm:
            return _status_of(qm, channel.name)

    def wait_for_status(self, channel, status: str = "RUNNING", *, qmgr: str | None = None,
                        timeout: float = 30.0) -> None:
        """Return once the channel shows ``status`` (RUNNING, RETRYING, STOPPED, INACTIVE ...) at ``qmgr``
        (default its sending end).  The wait browses the queue manager's SYSTEM.ADMIN.CHANNEL.EVENT with
        MQGMO_WAIT: each Channel Started / Stopped event wakes it to look at the status again (the events
        stay on the queue for the test).  TimeoutError after ``timeout`` seconds, naming the last status.
        A channel the topology did not define is named with its ``qmgr``."""
        channel = self._named(channel, qmgr)
        status = status.upper()

        def unmet(qm) -> str:
            seen = _status_of(qm, channel.name)
            return "" if seen == status else f"{channel.name} at {qmgr or channel.source} is {seen}, not {status}"

        self._wait_until(qmgr or channel.source, unmet, timeout)

    def _wait_until(self, qmgr: str, unmet, timeout: float, queues: tuple[str, ...] = (EVENT_QUEUE,)) -> None:
        """Return once ``unmet(qm)`` (our client's connection to ``qmgr``) says nothing is missing ("");
        each message arriving on the first of ``queues`` that opens (browsed, MQGMO_WAIT) wakes it to look
        again, RECHECK_S at the longest.  TimeoutError naming what was still missing."""
        deadline = time.monotonic() + timeout
        with self._admin(qmgr) as qm:
            from qmlite.client.errors import MQIError
            from qmlite.pcf.mqi import MQGMO, MQMD, MQOD

            hobj, opened = None, len(queues)
            while gap := unmet(qm):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{gap}, after {timeout} s")
                for index, queue in enumerate(queues[:opened]):  # a better one than the one open, if any
                    try:
                        better, _ = qm.open(MQOD(ObjectName=queue), C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
                    except MQIError as exc:  # not made yet (a cluster's queues come with its agent)
                        if exc.reason != C.MQRC_UNKNOWN_OBJECT_NAME:
                            raise
                        continue
                    if hobj is not None:
                        qm.close(hobj)
                    hobj, opened = better, index
                    break
                gmo = MQGMO(Options=C.MQGMO_BROWSE_NEXT | C.MQGMO_WAIT | C.MQGMO_ACCEPT_TRUNCATED_MSG,
                            WaitInterval=int(min(left, RECHECK_S) * 1000))
                try:
                    qm.get(hobj, MQMD(), gmo, 0)  # a message (its data not needed): look again
                except MQIError as exc:
                    if exc.reason not in (C.MQRC_NO_MSG_AVAILABLE, C.MQRC_TRUNCATED_MSG_ACCEPTED):
                        raise

    # -- clusters (client/clustertopology.py) ---------------------------------------------------------
    def cluster_members(self, qmgr: str, cluster: str | None = None) -> list:
        """The members ``qmgr`` knows (DISPLAY CLUSQMGR): ClusterMember rows (cluster, qmgr, repository,
        deftype, channel, status), of ``cluster`` only when given."""
        from .clustertopology import members_of

        with self._admin(qmgr) as qm:
            return [m for m in members_of(qm) if cluster in (None, m.cluster)]

    def cluster_queues(self, qmgr: str, cluster: str | None = None) -> list:
        """The clustered queues ``qmgr`` knows (DISPLAY QCLUSTER): ClusterQueue rows (cluster, queue, qmgr)."""
        from .clustertopology import queues_of

        with self._admin(qmgr) as qm:
            return [q for q in queues_of(qm) if cluster in (None, q.cluster)]

    def wait_for_clusters(self, *, timeout: float = 30.0) -> None:
        """Return once every member of every cluster shows every other member (DISPLAY CLUSQMGR) and every
        clustered queue asked for (DISPLAY QCLUSTER).  Each snapshot a member keeps is a message on its
        SYSTEM.CLUSTER.REPOSITORY.QUEUE: the wait browses it (the channel events until it exists)."""
        from .clustertopology import REPOSITORY_QUEUE, missing

        deadline = time.monotonic() + timeout
        for qmgr in self.qmgrs:
            def unmet(qm, name=qmgr) -> str:
                gap = missing(qm, name, self.clusters)
                return gap and f"{name} does not show {gap}"

            self._wait_until(qmgr, unmet, max(deadline - time.monotonic(), 0.0), (REPOSITORY_QUEUE, EVENT_QUEUE))

    # -- a queue manager in a process of its own (hosting="processes") --------------------------------
    def _process(self, qmgr: str) -> "_Process":
        runner = self.qmgrs[qmgr]._runner
        if not isinstance(runner, _Process):
            raise ValueError(f"{qmgr} is not in a process of its own: hosting='processes' kills and restarts")
        return runner

    def kill(self, qmgr: str) -> None:
        """SIGKILL ``qmgr``'s ``qmlite serve`` (hosting="processes"): its partners' channels see the
        connection end, as after a crash."""
        self._process(qmgr).kill()

    def restart(self, qmgr: str) -> None:
        """Start ``qmgr``'s ``qmlite serve`` again on the same port and data (the CONNAMEs naming it stay
        right) after :meth:`kill`, or after a SIGTERM first when it still runs."""
        process = self._process(qmgr)
        process.end()
        process.spawn(self.qmgrs[qmgr].port)

    def wait_running(self, *, timeout: float = 30.0) -> None:
        """Every channel of the topology RUNNING at its sending end."""
        for channel in self.channels:
            self.wait_for_status(channel, "RUNNING", timeout=timeout)

    @contextlib.contextmanager
    def _admin(self, qmgr: str):
        qm = self.qmgrs[qmgr].connect()
        try:
            yield qm
        finally:
            qm.disc()

    # -- applications (IBM's ibmmq package) ----------------------------------------------------------
    def ibmmq(self, qmgr: str, *, app: bool = False):
        """An ``ibmmq.QueueManager`` connected to ``qmgr``: the admin channel as admin/passw0rd, or with
        ``app`` DEV.APP.SVRCONN as app.  The caller disconnects it."""
        import ibmmq

        server = self.qmgrs[qmgr]
        if app:
            return ibmmq.connect(qmgr, server.app_channel, server.conn_name, server.app_user, "")
        return ibmmq.connect(qmgr, server.admin_channel, server.conn_name, server.admin_user, server.admin_password)

    def put(self, source: str, target: str, queue: str, body: bytes, *, persistent: bool = True, **md) -> bytes:
        """Put ``body`` on ``source`` for ``queue`` on ``target`` (MQOD ObjectQMgrName: the transmission
        queue named as ``target`` takes it, as IBM resolves it); ``md``: more MQMD fields (ReplyToQ ...).
        Returns the message's MsgId."""
        import ibmmq

        qm = self.ibmmq(source)
        try:
            q = ibmmq.Queue(qm, ibmmq.OD(ObjectName=queue.encode(), ObjectQMgrName=target.encode()),
                            ibmmq.CMQC.MQOO_OUTPUT)
            descriptor = ibmmq.MD(Persistence=ibmmq.CMQC.MQPER_PERSISTENT if persistent
                                  else ibmmq.CMQC.MQPER_NOT_PERSISTENT, **md)
            q.put(body, descriptor)
            q.close()
            return descriptor.MsgId
        finally:
            qm.disconnect()

    def get(self, qmgr: str, queue: str, *, wait: float = 30.0, md=None) -> bytes:
        """The next message of ``queue`` on ``qmgr``, waited for at most ``wait`` seconds (ibmmq's
        MQMIError 2033 after that); ``md`` an ``ibmmq.MD()`` to fill with its descriptor."""
        import ibmmq

        qm = self.ibmmq(qmgr)
        try:
            q = ibmmq.Queue(qm, queue)
            gmo = ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_WAIT | ibmmq.CMQC.MQGMO_NO_SYNCPOINT
                            | ibmmq.CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=int(wait * 1000))
            try:
                return q.get(None, md if md is not None else ibmmq.MD(), gmo)
            finally:
                q.close()
        finally:
            qm.disconnect()


def _status_of(qm, name: str) -> str:
    """Inquire Channel Status (current) of ``name`` through our client: its STATUS word, INACTIVE for none."""
    from qmlite.client.errors import MQIError
    from qmlite.pcf import pcf as P

    try:
        responses = qm.pcf(C.MQCMD_INQUIRE_CHANNEL_STATUS, [
            P.CFST(C.MQCACH_CHANNEL_NAME, name),
            P.CFIL(C.MQIACH_CHANNEL_INSTANCE_ATTRS, (C.MQIACH_CHANNEL_STATUS,))])
    except MQIError as exc:
        if exc.reason == C.MQRCCF_CHL_STATUS_NOT_FOUND:
            return "INACTIVE"
        raise
    for response in responses:
        for param in response.parameters:
            if param.parameter == C.MQIACH_CHANNEL_STATUS:
                from qmlite.registry.channels.channelgraph import STATUS_WORDS  # as DISPLAY CHSTATUS prints them

                return STATUS_WORDS.get(param.value, str(param.value))
    return "INACTIVE"


# ---- definitions --------------------------------------------------------------------------------------
def _links(qmgrs: list[str], channels: Iterable) -> list[TopologyChannel]:
    links: list[TopologyChannel] = []
    for spec in channels:
        source, target, *more = spec
        if source not in qmgrs or target not in qmgrs or source == target:
            raise ValueError(f"channel {spec!r}: both ends must be different queue managers of {qmgrs}")
        attrs = " ".join([DEFAULT_CHANNEL_ATTRS, *more])
        links.append(TopologyChannel(channel_name(source, target), source, target, target, attrs))
    return links


def _definitions(topology: Topology, queues: dict, remote_queues: Iterable) -> dict[str, list[str]]:
    """The MQSC each queue manager runs, in order: CHLEV on, its local queues, per channel the
    transmission queue and sender (source) or receiver (target), the remote queue definitions."""
    mqsc: dict[str, list[str]] = {name: ["ALTER QMGR CHLEV(ENABLED)"] for name in topology.qmgrs}
    for qmgr, names in (queues or {}).items():
        mqsc[qmgr] += [f"DEFINE QLOCAL({name}) REPLACE" for name in names]
    for link in topology.channels:
        target = topology.qmgrs[link.target]
        mqsc[link.source] += [
            f"DEFINE QLOCAL({link.xmitq}) USAGE(XMITQ) REPLACE",
            f"DEFINE CHANNEL({link.name}) CHLTYPE(SDR) TRPTYPE(TCP) CONNAME('{target.conn_name}') "
            f"XMITQ({link.xmitq}) {link.attrs} REPLACE"]
        mqsc[link.target].append(f"DEFINE CHANNEL({link.name}) CHLTYPE(RCVR) TRPTYPE(TCP) REPLACE")
        # Let the source in past the developer container's CHLAUTH back-stop, as an administrator of the
        # container would (docs/channels.md "Security"): its queue manager mapped to the channel's MCAUSER
        # (blank: the agent's own), the channel's own BLOCKUSER in place of the generic '*MQADMIN'.
        mqsc[link.target].append(f"SET CHLAUTH('{link.name}') TYPE(QMGRMAP) QMNAME('{link.source}') "
                                 "USERSRC(CHANNEL) ACTION(REPLACE)")
        mqsc[link.target].append(f"SET CHLAUTH('{link.name}') TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)")
    for qmgr, name, target_qmgr, *remote in remote_queues or ():
        direct = any((c.source, c.target) == (qmgr, target_qmgr) for c in topology.channels)
        xmitq = f" XMITQ({target_qmgr})" if direct else ""
        mqsc[qmgr].append(f"DEFINE QREMOTE({name}) RNAME({remote[0] if remote else name}) "
                          f"RQMNAME({target_qmgr}){xmitq} REPLACE")
    return mqsc


@contextlib.contextmanager
def running_topology(path: pathlib.Path, qmgrs: Iterable[str] = ("QM1", "QM2"), channels: Iterable = (), *,
                     hosting: str = "one", queues: dict | None = None, remote_queues: Iterable = (),
                     start: bool = True, timeout: float = 30.0, cluster=None, cluster_queues: dict | None = None,
                     **server_options) -> Iterator[Topology]:
    """Host ``qmgrs`` and join them by ``channels`` for the block.

    ``channels``: ``(source, target)`` pairs, or ``(source, target, "MQSC attributes")`` (``"BATCHSZ(10)
    SHORTRTY(0)"`` ...), each one SDR/RCVR pair named ``SOURCE.TO.TARGET`` with DISCINT(0).
    ``hosting``: ``"one"`` (one server in this process hosting them all behind one port, the first the
    default) or ``"processes"`` (a ``qmlite serve`` each, on its own port).  ``queues``:
    ``{"QM3": ["ORDERS"]}`` local queues to define; ``remote_queues``:
    ``(qmgr, name, target_qmgr[, remote_name])`` QREMOTE definitions.  ``start``: start every sender
    and wait (``timeout``) until each is RUNNING.  ``server_options``: server settings for every server
    (``http_port=0`` ...).  ``cluster``: ``{"name": "DEMO", "repos": ["QM1", "QM2"]}`` (``"members"``:
    default every queue manager; ``"repos"``: default the first two members; ``"queues"``:
    ``{"QM1": ["ORDERS"]}``), or a list of such: each member's cluster-receiver and cluster-senders
    (client/clustertopology.py); ``cluster_queues``: ``{"QM1": ["ORDERS"]}`` clustered queues in the one
    cluster their queue manager is in.  With ``start``, it returns once every member shows every
    other and every clustered queue."""
    qmgrs = list(qmgrs)
    if not qmgrs or len(set(qmgrs)) != len(qmgrs):
        raise ValueError(f"qmgrs must name distinct queue managers: {qmgrs}")
    if hosting not in HOSTINGS:
        raise ValueError(f"hosting must be one of {HOSTINGS}, not {hosting!r}")
    from .clustertopology import parse_clusters, receiver_definitions, sender_definitions

    clusters = parse_clusters(cluster, qmgrs, cluster_queues)
    links = _links(qmgrs, channels)
    path = pathlib.Path(path)
    with contextlib.ExitStack() as stack:
        if hosting == "one":
            servers = _hosted_in_one(stack, path, qmgrs, server_options)
        else:
            servers = {name: stack.enter_context(serve_process(path / name, name, server_options))
                       for name in qmgrs}
        topology = Topology(servers, links, hosting, clusters)
        # Every receiver (and cluster-receiver, with the CHLAUTH admitting its senders) before any
        # cluster-sender: none meets a partner not ready for it and waits out a retry interval.
        for step in (_definitions(topology, queues or {}, remote_queues), receiver_definitions(topology, clusters),
                     sender_definitions(topology, clusters)):
            for qmgr, commands in step.items():
                topology.mqsc(qmgr, "\n".join(commands))
        if start:
            for link in links:
                topology.mqsc(link.source, f"START CHANNEL({link.name})")
            topology.wait_running(timeout=timeout)
            if clusters:
                topology.wait_for_clusters(timeout=timeout)
        yield topology


def _hosted_in_one(stack: contextlib.ExitStack, path: pathlib.Path, qmgrs: list[str], options: dict) -> dict:
    from .testserver import running_qmlite

    first = stack.enter_context(running_qmlite(path, qmgr_name=qmgrs[0], qmgrs=tuple(qmgrs[1:]), **options))
    return {name: first.on_qmgr(name) for name in qmgrs}


# ---- a queue manager in a ``qmlite serve`` process of its own ----------------------------------------
READY = "qmlite ready: queue manager "


@contextlib.contextmanager
def serve_process(data_dir: pathlib.Path, qmgr: str, options: dict | None = None):
    """``python -m qmlite serve`` hosting ``qmgr`` on 127.0.0.1, port 0, data in ``data_dir``, with the
    developer defaults (no MQ_* variable of this process passed on); yields its QmliteServer once its
    ready line is read, SIGTERMs it (SIGKILL if it will not end) after the block."""
    from qmlite.server import config

    from .testserver import QmliteServer

    process = _Process(pathlib.Path(data_dir), qmgr, options or {})
    try:
        port, http_port = process.spawn()
        yield QmliteServer(host="127.0.0.1", port=port, qmgr=qmgr, admin_channel=config.ADMIN_CHANNEL,
                           app_channel=config.APP_CHANNEL, admin_user="admin",
                           admin_password=config.DEFAULT_ADMIN_PASSWORD, app_user="app",
                           data_dir=process.data_dir, http_port=http_port, _runner=process)
    finally:
        process.end()


class _Process:
    """The ``qmlite serve`` behind a QmliteServer of ``hosting="processes"``: started, SIGKILLed and
    started again on the same port and data (``Topology.kill`` / ``Topology.restart``)."""

    server = None  # no in-process server: the in-process helpers (calls(), faults ...) are not there

    def __init__(self, data_dir: pathlib.Path, qmgr: str, options: dict) -> None:
        self.data_dir, self.qmgr, self.options = data_dir, qmgr, options
        self.proc: subprocess.Popen | None = None

    def spawn(self, port: int = 0) -> tuple[int, int | None]:
        """Start it (``port`` 0: one the system chooses); its port and REST port, once its ready line came."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "qmlite", "serve", "--host", "127.0.0.1", "--port", str(port),
                "--data-dir", str(self.data_dir), "--qmgr", self.qmgr, "--log-level", "warning"]
        for key, value in self.options.items():
            argv += [f"--{key.replace('_', '-')}", str(value)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("MQ_")}
        with open(self.data_dir / "serve.stderr", "ab") as err:
            self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=err, text=True)
        line = self.proc.stdout.readline()
        prefix = f"{READY}{self.qmgr} listening on 127.0.0.1:"
        if not line.startswith(prefix):
            self.end()
            raise TopologyError(f"qmlite serve for {self.qmgr} did not get ready: {line!r} "
                                f"(see {self.data_dir}/serve.stderr)")
        http = line.split(" and http://127.0.0.1:")
        return int(line[len(prefix):].split()[0]), int(http[1].split()[0]) if len(http) > 1 else None

    def kill(self) -> None:
        """SIGKILL: nothing of the server's shutdown runs (its data as a crash leaves it)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._forget()

    def end(self, timeout: float = 30.0) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._forget()

    def _forget(self) -> None:
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        self.proc = None
