"""What this queue manager knows about the clusters it is in: what it defines itself, here, and what
the other members told it (registry/cluster/, issue 34: ``members`` and ``learnt_queues`` add their rows).
Its own part, as a full repository alone in its clusters holds it (docs/compat.md, "Clusters";
docs/decisions.md L1-L8):

* This queue manager is a member of every cluster it is a full repository for (REPOS/REPOSNL) or
  has a cluster-receiver channel in; it is listed once per cluster-receiver channel of a cluster
  (DEFTYPE CLUSRCVR), or with no channel for a cluster named only by REPOS.
* A cluster-sender channel defined by hand points at a queue manager this one has never heard
  from; IBM lists it as ``SYSTEM.TEMPQMGR.<conname>`` (QMID ``SYSTEM.TEMPUUID.<conname>``,
  DEFTYPE CLUSSDR) until that queue manager answers (then by name, DEFTYPE CLUSSDRB).
* Every local or alias queue with CLUSTER or CLUSNL is a cluster queue of this queue manager, once
  per cluster it names.

Suspension (SUSPEND/RESUME QMGR CLUSTER) is the one piece of cluster state of its own: a generic
kind, one record per suspended cluster, so it survives a restart as IBM's repository keeps it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from qmlite.pcf import constants as C

from qmlite.registry.objects import channels as M
from qmlite.registry.objects import generic
from qmlite.registry.objects.definitions import Queue

KIND = "cluster_suspension"
TEMP_QMGR_PREFIX = "SYSTEM.TEMPQMGR."
TEMP_QMID_PREFIX = "SYSTEM.TEMPUUID."

# cmqcfc.h: MQIACF_Q_MGR_DEFINITION_TYPE values, MQIACF_Q_MGR_TYPE values, MQIACF_SUSPEND values.
MQQMDT_EXPLICIT_CLUSTER_SENDER = 1
MQQMDT_AUTO_CLUSTER_SENDER = 2
MQQMDT_CLUSTER_RECEIVER = 3
MQQMDT_AUTO_EXP_CLUSTER_SENDER = 4
MQQMT_NORMAL = 0
MQQMT_REPOSITORY = 1
MQSUS_NO = 0
MQSUS_YES = 1
# cmqc.h: MQIA_CLUSTER_Q_TYPE values.
MQCQT_LOCAL_Q = 1
MQCQT_ALIAS_Q = 2
MQCQT_REMOTE_Q = 3
MQCQT_Q_MGR_ALIAS = 4
# cmqcfc.h: MQIACF_MODE values of Suspend Queue Manager Cluster.
MQMODE_FORCE = 0
MQMODE_QUIESCE = 1


@dataclasses.dataclass(slots=True)
class ClusterSuspension:
    """SUSPEND QMGR CLUSTER(name): this queue manager is suspended from cluster ``name``."""

    name: str
    mode: int = MQMODE_QUIESCE
    created: float = 0.0
    altered: float = 0.0


generic.register(generic.GenericKind(KIND, ClusterSuspension))


def names_of(registry, cluster: str, namelist: str) -> tuple[str, ...]:
    """The clusters a CLUSTER / CLUSNL pair names: the one cluster, or the namelist's names (a
    namelist that does not exist names none, as IBM resolves CLUSNL when it is used)."""
    if cluster:
        return (cluster,)
    if namelist:
        nl = registry.namelists.get(namelist)
        return tuple(n for n in nl.names if n) if nl is not None else ()
    return ()


def repositories(registry) -> tuple[str, ...]:
    """The clusters this queue manager is a full repository for (ALTER QMGR REPOS / REPOSNL)."""
    qm = registry.qmgr
    return names_of(registry, getattr(qm, "repository_name", ""), getattr(qm, "repository_namelist", ""))


def cluster_channels(registry, channel_type: int) -> list:
    return sorted((ch for ch in registry.objects(M.KIND).values() if ch.channel_type == channel_type),
                  key=lambda ch: ch.name)


def suspended(registry, cluster: str) -> bool:
    return cluster in registry.objects(KIND)


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterQMgr:
    """One row of DISPLAY CLUSQMGR: a queue manager in a cluster, through one cluster channel."""

    name: str
    cluster: str
    channel: object  # the cluster channel (registry/objects/channels.py ``Channel``) it is known through
    definition_type: int
    qmgr_type: int
    qmid: str
    suspend: int
    since: float  # CLUSDATE/CLUSTIME: when the definition became available here
    version: str
    local: bool
    channel_status: int = C.MQCHS_INACTIVE  # the cluster-sender's to it (registry/cluster/resolution.py)


def members(registry, version: str) -> list[ClusterQMgr]:
    """Every cluster queue manager this repository knows: itself per cluster, then the queue
    managers its hand-defined cluster-sender channels point at; by cluster, then channel."""
    qm = registry.qmgr
    repos = set(repositories(registry))
    rows: list[ClusterQMgr] = []
    receivers = cluster_channels(registry, M.CLUSRCVR)
    clusters: set[str] = set(repos)
    for ch in receivers:
        clusters.update(names_of(registry, ch.cluster_name, ch.cluster_namelist))
    for cluster in sorted(clusters):
        own = [ch for ch in receivers if cluster in names_of(registry, ch.cluster_name, ch.cluster_namelist)]
        qmtype = MQQMT_REPOSITORY if cluster in repos else MQQMT_NORMAL
        suspend = MQSUS_YES if suspended(registry, cluster) else MQSUS_NO
        for ch in own or [None]:
            channel = ch if ch is not None else M.new("", M.CLUSRCVR)
            since = ch.altered if ch is not None else qm.altered
            rows.append(ClusterQMgr(qm.name, cluster, channel, MQQMDT_CLUSTER_RECEIVER, qmtype, qm.identifier,
                                    suspend, since, version, True))
    learnt = getattr(registry, "cluster_repository", None)
    if learnt is not None:  # the other members, as the cluster told this one (registry/cluster/)
        from qmlite.registry.cluster.members import learnt_members

        rows.extend(learnt_members(registry, learnt))
    reached = {(r.cluster, r.channel.name) for r in rows if not r.local}
    for ch in cluster_channels(registry, M.CLUSSDR):
        for cluster in names_of(registry, ch.cluster_name, ch.cluster_namelist):
            if (cluster, ch.name) in reached:
                continue  # its queue manager answered: listed by name (DEFTYPE CLUSSDRB)
            # A hand-defined cluster-sender is taken to point at a full repository (IBM: a partial
            # repository finds its full repositories through its manually defined CLUSSDRs).
            rows.append(ClusterQMgr(TEMP_QMGR_PREFIX + ch.conn_name, cluster, ch, MQQMDT_EXPLICIT_CLUSTER_SENDER,
                                    MQQMT_REPOSITORY, TEMP_QMID_PREFIX + ch.conn_name, MQSUS_NO, ch.altered, "",
                                    False))
    rows.sort(key=lambda r: (r.cluster, not r.local, r.channel.name))  # type: ignore[attr-defined]
    return rows


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterQueue:
    """One row of DISPLAY QCLUSTER: a queue of this queue manager advertised to one cluster."""

    queue: Queue
    cluster: str
    qmgr_name: str
    qmid: str

    @property
    def cluster_q_type(self) -> int:
        q = self.queue
        if q.qtype == C.MQQT_ALIAS:
            return MQCQT_ALIAS_Q
        if q.qtype == C.MQQT_REMOTE:
            return MQCQT_REMOTE_Q if getattr(q, "remote_q_name", "") else MQCQT_Q_MGR_ALIAS
        return MQCQT_LOCAL_Q


def cluster_queues(registry, queues=None) -> Iterator[ClusterQueue]:
    """The cluster queues of this queue manager, queue by queue, cluster by cluster."""
    qm = registry.qmgr
    for queue in (registry.queues.values() if queues is None else queues):
        for cluster in names_of(registry, queue.cluster_name, queue.cluster_namelist):
            yield ClusterQueue(queue, cluster, qm.name, qm.identifier)


def learnt_queues(registry, pattern_matches) -> Iterator[ClusterQueue]:
    """The other members' cluster queues this queue manager was told of (registry/cluster/), by name."""
    learnt = getattr(registry, "cluster_repository", None)
    if learnt is None:
        return iter(())
    from qmlite.registry.cluster.members import learnt_queues as learnt_rows

    return learnt_rows(registry, learnt, pattern_matches)
