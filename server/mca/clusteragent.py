"""A queue manager's cluster agent (IBM's repository manager, amqrrmfa): once the queue manager is in a
cluster it keeps SYSTEM.CLUSTER.* queues, tells the full repositories what this queue manager hosts,
takes what other members tell it from SYSTEM.CLUSTER.COMMAND.QUEUE into its repository (kept on
SYSTEM.CLUSTER.REPOSITORY.QUEUE), forwards it when it is a full repository, and starts the
cluster-sender a message waits for on SYSTEM.CLUSTER.TRANSMIT.QUEUE (docs/channels.md "Clusters").

What is exchanged (registry/cluster/snapshots.py, docs/decisions.md CLU1-CLU2):

* Each member sends its snapshot of itself in each cluster (its cluster-receiver channel, its cluster
  queues) to every full repository of the cluster it knows, the first of them reached through its
  hand-defined cluster-sender channels; again whenever it changes.
* A full repository keeps every snapshot newer than its own copy and forwards it to every other member
  it knows; to a member heard from for the first time it sends every snapshot of the cluster it holds.
  So every member learns every other (IBM's partial repositories learn only what they use: CLU1).
* A partial repository keeps what it is sent.
* A queue manager whose cluster-receiver leaves a cluster sends a removal (snapshots.py) where it sent
  its snapshots; RESET CLUSTER ACTION(FORCEREMOVE) on a full repository makes one for another member and
  sends it to every member.  REFRESH CLUSTER discards what was learnt (a partial repository keeps the
  full repositories' records unless REPOS(YES)) and sends this queue manager's snapshot again, asking
  the full repositories to send everything they hold (docs/decisions.md CLV1-CLV3).

The agent wakes when a message arrives on either queue, when an administrative command ran (the
registry's ``cluster_nudge``), and never on a timer.
"""

from __future__ import annotations

import threading

import structlog
import trio

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.channels.syncrecords import correl_id
from qmlite.registry.cluster import snapshots as SN
from qmlite.registry.cluster import pubs, resolution
from qmlite.registry.errors import MQIError
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import clusters as CL
from qmlite.registry.objects.definitions import Queue

log = structlog.get_logger("qmlite.cluster")
VERSION = "09010200"  # registry/admin/commands/qmgr.py VERSION: what DISPLAY CLUSQMGR shows of each member
_BIG = 1 << 24
_SYSTEM_QUEUES = (
    (SN.SCTQ, "IBM MQ Cluster Transmission Queue", C.MQUS_TRANSMISSION),
    (SN.COMMAND_Q, "IBM MQ Cluster Command Queue", C.MQUS_NORMAL),
    (SN.REPOSITORY_Q, "IBM MQ Cluster Repository Queue", C.MQUS_NORMAL),
    (pubs.INTER_QMGR_PUBS, "IBM MQ Inter Queue Manager Publications", C.MQUS_NORMAL),
)


def in_cluster(registry) -> bool:
    """A full repository (REPOS/REPOSNL), or a queue manager with a cluster channel."""
    if CL.repositories(registry):
        return True
    return any(ch.channel_type in (M.CLUSRCVR, M.CLUSSDR) and (ch.cluster_name.strip() or ch.cluster_namelist.strip())
               for ch in registry.objects(M.KIND).values())


class Agent:
    def __init__(self, qm_server) -> None:
        self.server = qm_server
        self.qm = qm_server.qm
        self.registry = self.qm.registry
        self.wake = trio.Event()
        self.session = None
        self.own: dict[str, dict] = {}  # cluster -> this queue manager's snapshot, as last stamped
        self.told: dict[tuple[str, str], float] = {}  # (cluster, target) -> the stamp of ours it was sent
        # Cluster-senders started here whose agent has not made its instance yet (it does at its first step,
        # in the server's nursery): not started twice meanwhile.
        self.launched: dict[str, float | None] = {}  # name -> its status's start time when launched
        self.refreshing: set[str] = set()  # clusters REFRESH CLUSTER ran for, until this one is told again

    # ---- the task -------------------------------------------------------------------------------------
    async def run(self) -> None:
        token = trio.lowlevel.current_trio_token()
        loop_thread = threading.get_ident()

        def nudge() -> None:
            if threading.get_ident() == loop_thread:
                self.wake.set()  # a command run on the event loop (PCF, MQSC, REST): no hop through trio's entry queue
            else:
                token.run_sync_soon(self.wake.set)
        self.registry.cluster_nudge = nudge
        await self.server.ready.wait()
        lots = self.server.mqi.activity
        try:
            while True:
                self.wake = trio.Event()  # before the pass: a command during it wakes the next wait at once
                joined = in_cluster(self.registry)
                failed = False
                if joined:
                    try:
                        await self.step()
                    except MQIError as exc:  # quiescing, a queue deleted: told, then tried at the next wake
                        log.warning("cluster_agent_failed", qmgr=self.registry.qmgr.name,
                                    reason=C.describe("MQRC", exc.reason))
                        failed = True
                    except Exception:  # a bug must not end the queue manager's tasks: told, tried at the next wake
                        log.exception("cluster_agent_crashed", qmgr=self.registry.qmgr.name)
                        failed = True
                    if failed and self.session is not None:
                        try:
                            self.qm.backout(self.session, explicit=False)
                        except MQIError as exc:  # the backout's own failure: the unit of work ends with the session
                            log.warning("cluster_agent_backout_failed", qmgr=self.registry.qmgr.name,
                                        reason=C.describe("MQRC", exc.reason))
                if not joined:
                    # In no cluster only a command can change that: wait for the next one, with no
                    # nursery to open and close for every command the queue manager runs.
                    await self.wake.wait()
                    continue
                async with trio.open_nursery() as nursery:
                    async def woken(wait) -> None:
                        await wait()
                        nursery.cancel_scope.cancel()

                    async def arrival(queue: str, waiting) -> None:
                        # The check and the park with no checkpoint between: no arrival falls in a gap.
                        if not (waiting(queue) and not failed):
                            await lots.lot(queue).park()
                        nursery.cancel_scope.cancel()

                    nursery.start_soon(woken, self.wake.wait)
                    # after a failure: only the next arrival (what failed is still there)
                    nursery.start_soon(arrival, SN.COMMAND_Q, self._has_messages)
                    nursery.start_soon(arrival, pubs.INTER_QMGR_PUBS, self._has_messages)
                    nursery.start_soon(arrival, SN.SCTQ, self._sender_wanted)
        finally:
            self.registry.cluster_nudge = None  # commands after the server ended have no agent to wake
            if self.session is not None:
                self.qm.disconnect(self.session, commit=False)

    def _has_messages(self, queue: str) -> bool:
        contents = self.registry.messages.peek(queue)
        return contents is not None and len(contents) > 0

    def _sender_wanted(self, queue: str) -> bool:
        """A message waits on SCTQ for a cluster-sender that does not run (and was not stopped)."""
        return bool(self._senders_to_start())

    async def step(self) -> None:
        if self.session is None:
            self._ensure_queues()
            self.session = self.qm.connect(self.registry.qmgr.name, user="mqm", admin=True, appl_name="amqrrmfa",
                                           appl_type=C.MQAT_QMGR)
            self.session.internal = True  # the queue manager's own: an application's fault rules pass it by
            repo = SN.repository_of(self.registry)
            if not repo.loaded:
                SN.load(self.qm, self.session, repo)
        self.receive()
        self.republish()
        self.carry_out()
        self.publish()
        self.start_senders()
        await self.server.committer.wait(self.qm.position, answered=False)  # it answers nobody (JN9)

    def _ensure_queues(self) -> None:
        """SYSTEM.CLUSTER.* made when the queue manager first joins a cluster (CLU7): IBM's crtmqm makes them
        always, qmlite's default object list stays as it was for queue managers in no cluster."""
        reg = self.registry
        now = reg.now()
        for name, description, usage in _SYSTEM_QUEUES:
            if name not in reg.queues:
                reg.put_queue(Queue(name, description=description, usage=usage, created=now, altered=now))
        reg.commit()

    # ---- what others tell ---------------------------------------------------------------------------
    def receive(self) -> None:
        qm, session = self.qm, self.session
        repo = SN.repository_of(self.registry)
        me = self.registry.qmgr.name
        handle, _ = qm.open_object(session, S.MQOD(ObjectName=SN.COMMAND_Q), C.MQOO_INPUT_SHARED)
        try:
            while True:
                got = qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT), _BIG)
                if got is None:
                    break
                decoded = SN.decode_request(got.data)
                if decoded is None:
                    log.warning("cluster_command_ignored", qmgr=me, size=len(got.data))
                    continue
                sender, snaps, refreshed = decoded
                told_all = {snap["cluster"] for snap in snaps if self._offered(repo, sender, snap)}
                for cluster in refreshed:  # REFRESH CLUSTER there: everything held, unless just sent
                    target = repo.snapshots.get((cluster, sender))
                    if cluster not in told_all and target is not None and cluster in CL.repositories(self.registry):
                        self._send(target, [s for s in repo.members(cluster) if s["qmgr"] != sender]
                                   + ([self.own[cluster]] if cluster in self.own else []))
            qm.commit(session, explicit=False)
        finally:
            qm.close_object(session, handle.hobj, 0)

    def _offered(self, repo: SN.Repository, sender: str, snap: dict) -> bool:
        """Keep a snapshot or removal another member sent; True when it told a newcomer everything."""
        me = self.registry.qmgr.name
        cluster, origin = snap["cluster"], snap["qmgr"]
        if origin == me:
            return False  # (a removal of this queue manager: it stays until REFRESH CLUSTER, as IBM's does)
        first = (cluster, origin) not in repo.snapshots and not snap.get("removed")
        if not repo.offer(snap):
            return False
        SN.keep(self.qm, self.session, snap)
        log.info("cluster_record", qmgr=me, cluster=cluster, member=origin, sender=sender,
                 queues=len(snap.get("queues", ())), removed=bool(snap.get("removed")))
        if cluster not in CL.repositories(self.registry):
            return False
        for other in repo.members(cluster):  # a full repository forwards what it learns
            if other["qmgr"] not in (origin, sender):
                self._send(other, [snap])
        if not first:
            return False
        # and tells a newcomer everything it holds
        everything = [s for s in repo.members(cluster) if s["qmgr"] != origin]
        own = self.own.get(cluster)
        self._send(snap, everything + ([own] if own is not None else []))
        if own is not None:
            self.told[(cluster, origin)] = own["stamp"]
        return True

    def republish(self) -> None:
        """Publications other members forwarded here (clustered topics), published to this one's subscribers."""
        qm, session = self.qm, self.session
        if pubs.INTER_QMGR_PUBS not in self.registry.queues:
            return
        handle, _ = qm.open_object(session, S.MQOD(ObjectName=pubs.INTER_QMGR_PUBS), C.MQOO_INPUT_SHARED)
        try:
            while (got := qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT),
                                 _BIG)) is not None:
                if not pubs.republish(qm, got.md, got.data):
                    log.warning("cluster_publication_ignored", qmgr=self.registry.qmgr.name, size=len(got.data))
        finally:
            qm.close_object(session, handle.hobj, 0)

    # ---- REFRESH CLUSTER and RESET CLUSTER ------------------------------------------------------------
    def carry_out(self) -> None:
        """The REFRESH CLUSTER and RESET CLUSTER commands run since the last pass, in their order."""
        repo = SN.repository_of(self.registry)
        while repo.requests:
            request = repo.requests.pop(0)
            if request[0] == "refresh":
                self._refresh(repo, request[1], request[2])
            else:
                self._reset(repo, *request[1:])
        self.qm.commit(self.session, explicit=False)

    def _refresh(self, repo: SN.Repository, pattern: str, repos_too: bool) -> None:
        """IBM's REFRESH CLUSTER: a partial repository discards every other member's record but the full
        repositories' (theirs too with REPOS(YES), found again through the hand-defined cluster-senders);
        a full repository keeps everything (REPOS(YES) refused: IBM's AMQ9406E).  Either tells the
        cluster again (publish)."""
        reg = self.registry
        full = set(CL.repositories(reg))
        known = set(self.own) | repo.clusters() | {c for c, _ in repo.removed}
        for cluster in sorted(c for c in known if c == pattern or pattern.endswith("*")
                              and c.startswith(pattern[:-1])):
            if cluster in full and repos_too:
                log.warning("cluster_refresh_refused", qmgr=reg.qmgr.name, cluster=cluster, message="AMQ9406E")
                continue
            if cluster not in full:
                for key, record in [*repo.snapshots.items(), *repo.removed.items()]:
                    if key[0] == cluster and (repos_too or not record.get("repos")):
                        repo.forget(key)
                        SN.discard(self.qm, self.session, *key)
            self.told = {k: v for k, v in self.told.items() if k[0] != cluster}
            self.refreshing.add(cluster)
            log.info("cluster_refreshed", qmgr=reg.qmgr.name, cluster=cluster, repos=repos_too)

    def _reset(self, repo: SN.Repository, cluster: str, qmname: str, qmid: str, queues: bool) -> None:
        """RESET CLUSTER ACTION(FORCEREMOVE) on a full repository: a removal of the member (its queues
        kept in DISPLAY QCLUSTER with QUEUES(NO)), kept and sent to every member; QUEUES(YES) on a member
        removed before drops its queues too."""
        reg = self.registry
        me = reg.qmgr.name
        if cluster not in CL.repositories(reg) or qmname == me or (qmid and qmid == reg.qmgr.identifier):
            log.warning("cluster_reset_ignored", qmgr=me, cluster=cluster, member=qmname or qmid)
            return
        for (c, name), record in sorted([*repo.snapshots.items(), *repo.removed.items()]):
            if c != cluster or (name != qmname if qmname else record.get("qmid") != qmid):
                continue
            if record.get("removed") and not (queues and record.get("queues")):
                continue
            gone = SN.removal(record, max(reg.now(), record["stamp"] + 0.001), keep_queues=not queues)
            repo.offer(gone)
            SN.keep(self.qm, self.session, gone)
            log.info("cluster_member_removed", qmgr=me, cluster=cluster, member=name, queues=queues)
            for other in repo.members(cluster):
                self._send(other, [gone])

    # ---- what this queue manager tells ---------------------------------------------------------------
    def publish(self) -> None:
        reg = self.registry
        repo = SN.repository_of(reg)
        me = reg.qmgr.name
        repos = set(CL.repositories(reg))
        current = SN.own_snapshots(reg, VERSION)
        for cluster in sorted(set(self.own) - set(current)):
            self._leave(repo, cluster)
        for cluster, snap in current.items():
            prev = self.own.get(cluster)
            if prev is None or not SN.same_content(prev, snap) or cluster in self.refreshing:
                snap["stamp"] = max(reg.now(), prev["stamp"] + 0.001 if prev is not None else 0.0)
                self.own[cluster] = snap
            snap = self.own[cluster]
            known = repo.members(cluster) if cluster in repos else repo.full_repositories(cluster)
            targets: list[tuple[str, dict | None, object]] = [(s["qmgr"], s, None) for s in known if s["qmgr"] != me]
            reached = {s["channel"]["name"] for s in repo.members(cluster)}
            for ch in CL.cluster_channels(reg, M.CLUSSDR):  # a full repository not heard from yet
                if cluster in CL.names_of(reg, ch.cluster_name, ch.cluster_namelist) and ch.name not in reached:
                    targets.append(("channel:" + ch.name, None, ch))
            for key, target, manual in targets:
                if self.told.get((cluster, key)) == snap["stamp"]:
                    continue
                refresh = [cluster] if cluster in self.refreshing and cluster not in repos else None
                if target is not None:
                    self._send(target, [snap], refresh)
                else:
                    self._send_by(manual, "", [snap], refresh)
                self.told[(cluster, key)] = snap["stamp"]
        self.refreshing.clear()  # a cluster this queue manager no longer tells of: nothing to ask

    def _leave(self, repo: SN.Repository, cluster: str) -> None:
        """This queue manager's cluster-receiver left ``cluster``: a removal to whom its snapshots went."""
        prev = self.own[cluster]
        if prev.get("removed"):
            return
        gone = self.own[cluster] = SN.removal(prev, max(self.registry.now(), prev["stamp"] + 0.001))
        me = self.registry.qmgr.name
        targets = repo.members(cluster) if prev.get("repos") else repo.full_repositories(cluster)
        for target in targets:
            if target["qmgr"] != me:
                self._send(target, [gone])
        self.told = {k: v for k, v in self.told.items() if k[0] != cluster}
        log.info("cluster_left", qmgr=me, cluster=cluster)

    def _send(self, target: dict, snaps: list[dict], refresh: list[str] | None = None) -> None:
        self._send_by(resolution.sender_channel(self.registry, target), target["qmgr"], snaps, refresh)

    def _send_by(self, channel, qmgr: str, snaps: list[dict], refresh: list[str] | None = None) -> None:
        """A command message to ``qmgr``'s SYSTEM.CLUSTER.COMMAND.QUEUE through cluster-sender ``channel``
        (``qmgr`` blank: whichever queue manager the channel reaches, a full repository not heard from)."""
        qm, session = self.qm, self.session
        body = SN.encode_command(self.registry.qmgr.name, snaps, refresh)
        md = S.MQMD(Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
        outer, data = qm.puts.for_transmission(md, body, SN.COMMAND_Q, qmgr)
        outer.CorrelId = correl_id(channel.name)
        handle, _ = qm.open_object(session, S.MQOD(ObjectName=SN.SCTQ), C.MQOO_OUTPUT)
        qm.put(session, handle.hobj, outer, S.MQPMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID), data)
        qm.close_object(session, handle.hobj, 0)
        qm.commit(session, explicit=False)

    # ---- the cluster-senders --------------------------------------------------------------------------
    def start_senders(self) -> None:
        """Each cluster-sender a message waits for on SCTQ, started unless it runs or was stopped (IBM
        triggers them from SYSTEM.CLUSTER.TRANSMIT.QUEUE)."""
        reg = self.registry
        for name, snap in self._senders_to_start():
            channel = (resolution.sender_channel(reg, snap) if snap is not None
                       else resolution.sender_channel(reg, {"channel": {"name": name}}))
            log.info("cluster_sender_started", qmgr=reg.qmgr.name, channel=name)
            known = reg.running.message_channels.get(name)
            self.launched[name] = known.started if known is not None else None
            reg.running.start_message_channel(channel)

    def _senders_to_start(self) -> list[tuple[str, dict | None]]:
        reg = self.registry
        contents = reg.messages.peek(SN.SCTQ)
        if contents is None or not len(contents):
            return []
        channels: dict[str, dict | None] = {}
        for snap in SN.repository_of(reg).snapshots.values():
            channels.setdefault(snap["channel"]["name"], snap)
        for ch in CL.cluster_channels(reg, M.CLUSSDR):
            channels.setdefault(ch.name, None)
        running = reg.running
        for name, before in list(self.launched.items()):
            status = running.message_channels.get(name)
            if running.instances_of(name) or name in running.stopped or (
                    status is not None and status.started != before):
                del self.launched[name]  # its agent runs (or ran): from now on its instance tells
        return [(name, snap) for name, snap in sorted(channels.items())
                if not running.instances_of(name) and name not in running.stopped and name not in self.launched
                and contents.find(None, correl_id(name)) is not None]


async def run(qm_server) -> None:
    await Agent(qm_server).run()
