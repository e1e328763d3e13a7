"""Clusters in the pytest topology (client/topology.py's ``cluster=``; docs/channels.md "A cluster in the
topology"): the MQSC that makes the topology's queue managers members of one or more clusters, and the
views of what each member has learnt (DISPLAY CLUSQMGR and DISPLAY QCLUSTER, read as PCF).

``cluster={"name": "DEMO", "repos": ["QM1", "QM2"]}`` (or a list of such) makes every queue manager of
the topology (or those ``"members"`` names) a member: each defines a cluster-receiver ``DEMO.QM1`` with
its own port in CONNAME, a full repository a cluster-sender to every other full repository, a partial
one a cluster-sender to the first full repository; REPOS (REPOSNL for more than one cluster); the
CHLAUTH records that let the other members in past the developer container's back-stop; and the
clustered queues ``"queues"`` (or the topology's ``cluster_queues``) names."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from qmlite.pcf import constants as C

# Cluster channels stay RUNNING while idle, as the topology's senders do (IBM's DISCINT ends them at 6000 s).
CLUSTER_CHANNEL_ATTRS = "DISCINT(0)"
REPOS_NAMELIST = "QMLITE.TOPOLOGY.REPOS"  # REPOSNL of a full repository for more than one cluster
TEMP_QMGR_PREFIX = "SYSTEM.TEMPQMGR."  # a hand-defined cluster-sender not yet through to its member
REPOSITORY_QUEUE = "SYSTEM.CLUSTER.REPOSITORY.QUEUE"  # a member keeps each snapshot it learns there
# MQQMDT_* and MQQMT_* as DISPLAY CLUSQMGR prints them
DEFTYPE_WORDS = {1: "CLUSSDR", 2: "CLUSSDRA", 3: "CLUSRCVR", 4: "CLUSSDRB"}
QMTYPE_REPOSITORY = 1


def cluster_channel_name(cluster: str, qmgr: str) -> str:
    """``DEMO.QM1``: ``qmgr``'s cluster-receiver in ``cluster`` (IBM's CLUSTER.QMGR convention, one name per
    cluster so a member of two clusters has a receiver in each); ValueError over 20 characters."""
    name = f"{cluster}.{qmgr}"
    if len(name) > C.MQ_CHANNEL_NAME_LENGTH:
        raise ValueError(f"cluster channel {name} is over {C.MQ_CHANNEL_NAME_LENGTH} characters: give a "
                         "shorter cluster or queue manager name")
    return name


@dataclasses.dataclass(frozen=True)
class TopologyCluster:
    """One cluster of the topology: its full repositories, its members (the repositories first) and the
    clustered queues each member hosts."""

    name: str
    repos: tuple[str, ...]
    members: tuple[str, ...]
    queues: dict = dataclasses.field(default_factory=dict, hash=False)  # qmgr -> tuple of queue names

    def receiver(self, qmgr: str) -> str:
        return cluster_channel_name(self.name, qmgr)

    def sends_to(self, qmgr: str) -> tuple[str, ...]:
        """The members ``qmgr`` defines a cluster-sender to: every other full repository from a full
        repository, the first full repository from a partial one (IBM: one is enough, it learns the rest)."""
        if qmgr in self.repos:
            return tuple(r for r in self.repos if r != qmgr)
        return self.repos[:1]

    def hosts(self) -> set[tuple[str, str]]:
        """(queue, queue manager) for every clustered queue the cluster should show."""
        return {(q, qmgr) for qmgr, names in self.queues.items() for q in names}


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterMember:
    """A row of DISPLAY CLUSQMGR: a member ``qmgr`` of ``cluster`` as one queue manager knows it."""

    cluster: str
    qmgr: str
    repository: bool  # QMTYPE(REPOS)
    deftype: str  # CLUSRCVR (itself), CLUSSDRA (auto-defined), CLUSSDRB (defined by hand), CLUSSDR
    channel: str
    status: str  # the cluster-sender's STATUS (INACTIVE before it ran)


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterQueue:
    """A row of DISPLAY QCLUSTER: ``queue`` hosted by ``qmgr`` in ``cluster``."""

    cluster: str
    queue: str
    qmgr: str


def parse_clusters(spec, qmgrs: list[str], cluster_queues: dict | None) -> list[TopologyCluster]:
    """``spec`` (a dict or a list of dicts: name, repos, members, queues) checked against ``qmgrs``;
    ``cluster_queues`` ({qmgr: [queue ...]}) adds each queue to the one cluster its queue manager is in.
    ValueError for what cannot be built."""
    if spec is None:
        if cluster_queues:
            raise ValueError("cluster_queues needs cluster=")
        return []
    specs = [spec] if isinstance(spec, dict) else list(spec)
    clusters: list[TopologyCluster] = []
    for one in specs:
        if not isinstance(one, dict) or not one.get("name"):
            raise ValueError(f"a cluster is a dict with a name (and repos, members, queues): {one!r}")
        unknown = set(one) - {"name", "repos", "members", "queues"}
        if unknown:
            raise ValueError(f"cluster {one['name']}: unknown keys {sorted(unknown)}")
        members = list(one.get("members") or qmgrs)
        repos = list(one.get("repos") or members[:2])  # IBM's advice: two full repositories
        if not set(members) <= set(qmgrs) or not set(repos) <= set(members) or len(set(members)) != len(members):
            raise ValueError(f"cluster {one['name']}: members {members} and repos {repos} must be distinct "
                             f"queue managers of {qmgrs}, the repos among the members")
        queues = {q: tuple(names) for q, names in (one.get("queues") or {}).items()}
        if not set(queues) <= set(members):
            raise ValueError(f"cluster {one['name']}: queues on {sorted(queues)}, members are {members}")
        ordered = tuple(repos) + tuple(m for m in members if m not in repos)
        for member in ordered:
            cluster_channel_name(one["name"], member)  # too long: refused before anything starts
        clusters.append(TopologyCluster(one["name"], tuple(repos), ordered, queues))
    if len({c.name for c in clusters}) != len(clusters):
        raise ValueError(f"clusters named twice: {[c.name for c in clusters]}")
    for qmgr, names in (cluster_queues or {}).items():
        mine = [c for c in clusters if qmgr in c.members]
        if len(mine) != 1:
            raise ValueError(f"cluster_queues for {qmgr}: it is in {len(mine)} clusters; name the queues in "
                             "the cluster's own 'queues' instead")
        mine[0].queues[qmgr] = mine[0].queues.get(qmgr, ()) + tuple(names)
    for qmgr in qmgrs:
        named = [(q, c.name) for c in clusters for q in c.queues.get(qmgr, ())]
        if len({q for q, _ in named}) != len(named):
            raise ValueError(f"{qmgr}: a queue in more than one cluster needs CLUSNL: define it by hand")
    return clusters


def receiver_definitions(topology, clusters: Iterable[TopologyCluster]) -> dict[str, list[str]]:
    """The first MQSC of each member: the CHLAUTH records admitting the cluster's other members to its
    cluster-receiver, REPOS, the cluster-receiver (CONNAME its own port) and its clustered queues.  Run on
    every member before any cluster-sender is defined, so no sender meets a receiver not there yet."""
    mqsc: dict[str, list[str]] = {name: [] for name in topology.qmgrs}
    repos: dict[str, list[str]] = {}
    for cluster in clusters:
        for member in cluster.members:
            rcvr = cluster.receiver(member)
            # As the topology's receivers do (docs/channels.md "Security"): each other member mapped to the
            # channel's MCAUSER (blank: the agent's own), the channel's own BLOCKUSER in place of '*MQADMIN'.
            mqsc[member] += [f"SET CHLAUTH('{rcvr}') TYPE(QMGRMAP) QMNAME('{other}') USERSRC(CHANNEL) "
                             "ACTION(REPLACE)" for other in cluster.members if other != member]
            mqsc[member].append(f"SET CHLAUTH('{rcvr}') TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)")
            if member in cluster.repos:
                repos.setdefault(member, []).append(cluster.name)
    for member, names in repos.items():
        if len(names) == 1:
            mqsc[member].append(f"ALTER QMGR REPOS({names[0]})")
        else:
            mqsc[member] += [f"DEFINE NAMELIST({REPOS_NAMELIST}) NAMES({','.join(names)}) REPLACE",
                             f"ALTER QMGR REPOSNL({REPOS_NAMELIST})"]
    for cluster in clusters:
        for member in cluster.members:
            mqsc[member].append(f"DEFINE CHANNEL({cluster.receiver(member)}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) "
                                f"CONNAME('{topology.qmgrs[member].conn_name}') CLUSTER({cluster.name}) "
                                f"{CLUSTER_CHANNEL_ATTRS} REPLACE")
            mqsc[member] += [f"DEFINE QLOCAL({q}) CLUSTER({cluster.name}) REPLACE"
                             for q in cluster.queues.get(member, ())]
    return {qmgr: commands for qmgr, commands in mqsc.items() if commands}


def sender_definitions(topology, clusters: Iterable[TopologyCluster]) -> dict[str, list[str]]:
    """The second MQSC: each member's hand-defined cluster-senders, named as the receivers they reach."""
    mqsc: dict[str, list[str]] = {}
    for cluster in clusters:
        for member in cluster.members:
            for target in cluster.sends_to(member):
                mqsc.setdefault(member, []).append(
                    f"DEFINE CHANNEL({cluster.receiver(target)}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) "
                    f"CONNAME('{topology.qmgrs[target].conn_name}') CLUSTER({cluster.name}) "
                    f"{CLUSTER_CHANNEL_ATTRS} REPLACE")
    return mqsc


# ---- what a member has learnt, through our client's PCF ------------------------------------------------
def _values(response) -> dict:
    return {p.parameter: p.value for p in response.parameters}


def _text(value) -> str:
    return str(value).strip()


def members_of(qm) -> list[ClusterMember]:
    """DISPLAY CLUSQMGR(*) on ``qm`` (our client's connection), a hand-defined cluster-sender that has not
    reached its member yet (SYSTEM.TEMPQMGR.*) left out; sorted by cluster and name."""
    from qmlite.client.errors import MQIError
    from qmlite.pcf import pcf as P
    from qmlite.registry.channels.channelgraph import STATUS_WORDS

    try:
        responses = qm.pcf(C.MQCMD_INQUIRE_CLUSTER_Q_MGR, [
            P.CFST(C.MQCA_CLUSTER_Q_MGR_NAME, "*"), P.CFIL(C.MQIACF_CLUSTER_Q_MGR_ATTRS, (C.MQIACF_ALL,))])
    except MQIError as exc:
        responses = [r for r in (exc.responses or []) if r.header.CompCode != C.MQCC_FAILED]
    rows = []
    for response in responses:
        v = _values(response)
        name = _text(v.get(C.MQCA_CLUSTER_Q_MGR_NAME, ""))
        if not name or name.startswith(TEMP_QMGR_PREFIX):
            continue
        status = v.get(C.MQIACH_CHANNEL_STATUS, C.MQCHS_INACTIVE)
        rows.append(ClusterMember(_text(v.get(C.MQCA_CLUSTER_NAME, "")), name,
                                  v.get(C.MQIACF_Q_MGR_TYPE) == QMTYPE_REPOSITORY,
                                  DEFTYPE_WORDS.get(v.get(C.MQIACF_Q_MGR_DEFINITION_TYPE), ""),
                                  _text(v.get(C.MQCACH_CHANNEL_NAME, "")), STATUS_WORDS.get(status, str(status))))
    return sorted(rows, key=lambda m: (m.cluster, m.qmgr))


def queues_of(qm) -> list[ClusterQueue]:
    """DISPLAY QCLUSTER(*) on ``qm``: every clustered queue the member knows of, with its host."""
    from qmlite.client.errors import MQIError
    from qmlite.pcf import pcf as P

    try:
        responses = qm.pcf(C.MQCMD_INQUIRE_Q, [P.CFST(C.MQCA_Q_NAME, "*"), P.CFIN(C.MQIA_Q_TYPE, C.MQQT_CLUSTER),
                                                 P.CFIL(C.MQIACF_Q_ATTRS, (C.MQIACF_ALL,))])
    except MQIError as exc:
        if exc.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
            return []
        responses = [r for r in (exc.responses or []) if r.header.CompCode != C.MQCC_FAILED]
    rows = {ClusterQueue(_text(v.get(C.MQCA_CLUSTER_NAME, "")), _text(v.get(C.MQCA_Q_NAME, "")),
                         _text(v.get(C.MQCA_CLUSTER_Q_MGR_NAME, ""))) for v in map(_values, responses)}
    return sorted(rows, key=lambda q: (q.cluster, q.queue, q.qmgr))


def missing(qm, qmgr: str, clusters: Iterable[TopologyCluster]) -> str:
    """What member ``qmgr`` (connected as ``qm``) does not show yet of its clusters, "" once it shows every
    other member and every clustered queue."""
    mine = [c for c in clusters if qmgr in c.members]
    if not mine:
        return ""
    known = {(m.cluster, m.qmgr) for m in members_of(qm)}
    gaps = [f"{c.name} member {m}" for c in mine for m in c.members if (c.name, m) not in known]
    if not gaps:
        shown = {(q.cluster, q.queue, q.qmgr) for q in queues_of(qm)}
        gaps = [f"{c.name} queue {q} on {host}" for c in mine for q, host in sorted(c.hosts())
                if (c.name, q, host) not in shown]
    return ", ".join(gaps)
