"""What a member knows of its clusters: one *snapshot* per (cluster, queue manager), the private
record format qmlite queue managers exchange (IBM's own is not public; docs/decisions.md CLU2).

A snapshot is everything one queue manager says of itself in one cluster, as a JSON object::

    {"cluster": "DEMO", "qmgr": "QM2", "qmid": "QM2_...", "repos": true, "stamp": 1764412345.5,
     "suspended": false, "version": "09040000",
     "channel": {"name": "TO.QM2", "conname": "127.0.0.1(1415)", "clwl_rank": 0, "clwl_priority": 0,
                 "clwl_weight": 50, "network_priority": 0, ...},
     "queues": [{"name": "ORDERS", "qtype": 1, "put": true, "clwl_rank": 0, "clwl_priority": 0,
                 "def_bind": 1, "def_persistence": 0, "def_priority": 0, "def_put_response": 1,
                 "description": "", "altered": 1764412345.0}]}

It replaces the one before with the same key when its ``stamp`` is newer, so a queue deleted or a
channel altered is told by the next snapshot, and a snapshot is never older than what is held.
Snapshots travel inside a command message on SYSTEM.CLUSTER.COMMAND.QUEUE (``{"qmlite-cluster": 1,
"from": ..., "snapshots": [...]}``) and are kept, one persistent message each, on
SYSTEM.CLUSTER.REPOSITORY.QUEUE (CorrelId: a digest of the key), so a member restarted knows its
cluster before any channel runs again.

A queue manager that leaves (its cluster-receiver no longer in the cluster) or that a full repository
removes (RESET CLUSTER ACTION(FORCEREMOVE)) is told by a *removal*: ``{"cluster", "qmgr", "qmid",
"stamp", "channel": {"name"}, "removed": true, "queues": [...]}``, newer than its last snapshot.  It
replaces that snapshot (held apart, in ``Repository.removed``, so no reader of ``snapshots`` sees the
member), travels and is kept as a snapshot is, and is itself replaced by a newer snapshot (the queue
manager rejoining).  Its ``queues`` are those RESET CLUSTER QUEUES(NO) leaves in DISPLAY QCLUSTER.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.objects import channels as M
from qmlite.registry.objects import clusters as CL

SCTQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
COMMAND_Q = "SYSTEM.CLUSTER.COMMAND.QUEUE"
REPOSITORY_Q = "SYSTEM.CLUSTER.REPOSITORY.QUEUE"
FORMAT_KEY = "qmlite-cluster"
FORMAT_VERSION = 1
_BIG = 1 << 24
# The cluster-receiver's attributes a snapshot carries: an auto-defined cluster-sender takes them (IBM:
# "the cluster-sender channel is defined from the information in the cluster-receiver definition").
CHANNEL_FIELDS = ("conn_name", "description", "batch_size", "disc_interval", "short_retry_count",
                  "short_retry_interval", "long_retry_count", "long_retry_interval", "seq_number_wrap",
                  "max_msg_length", "heartbeat_interval", "batch_interval", "npm_speed", "batch_heartbeat",
                  "batch_data_limit", "network_priority", "clwl_rank", "clwl_priority", "clwl_weight",
                  "ssl_cipher_spec", "ssl_peer_name", "use_dlq")


def queue_record(cq: CL.ClusterQueue) -> dict:
    q = cq.queue
    return {"name": q.name, "qtype": cq.cluster_q_type, "put": q.inhibit_put != C.MQQA_PUT_INHIBITED,
            "clwl_rank": q.clwl_q_rank, "clwl_priority": q.clwl_q_priority, "def_bind": q.def_bind,
            "def_persistence": q.def_persistence, "def_priority": q.def_priority,
            "def_put_response": q.def_put_response, "description": q.description, "altered": q.altered}


def own_snapshots(registry, version: str) -> dict[str, dict]:
    """This queue manager's snapshot of itself per cluster it has a cluster-receiver channel in (without
    one it cannot be reached, so it tells nobody).  ``stamp`` is left for the publisher to set."""
    qm = registry.qmgr
    repos = set(CL.repositories(registry))
    out: dict[str, dict] = {}
    for ch in CL.cluster_channels(registry, M.CLUSRCVR):
        for cluster in CL.names_of(registry, ch.cluster_name, ch.cluster_namelist):
            if cluster in out:
                continue  # IBM: one cluster-receiver per cluster; the first by name is the one told
            channel = {"name": ch.name, **{f: getattr(ch, f) for f in CHANNEL_FIELDS}}
            out[cluster] = {"cluster": cluster, "qmgr": qm.name, "qmid": qm.identifier,
                            "repos": cluster in repos, "suspended": CL.suspended(registry, cluster),
                            "version": version, "channel": channel, "queues": []}
    for cq in CL.cluster_queues(registry):
        snap = out.get(cq.cluster)
        if snap is not None:
            snap["queues"].append(queue_record(cq))
    if out:  # clustered topics: what this member defines and what it subscribes to below them (pubs.py)
        from qmlite.registry.cluster import pubs

        subs = pubs.own_subscriptions(registry, pubs.clustered_roots(registry, getattr(registry, "cluster_repository",
                                                                                       None)))
        for cluster, snap in out.items():
            snap["topics"], snap["subs"] = pubs.own_topics(registry, cluster), subs
    return out


def same_content(a: dict | None, b: dict | None) -> bool:
    """Whether two snapshots say the same (their stamps aside)."""
    if a is None or b is None:
        return a is b
    return {k: v for k, v in a.items() if k != "stamp"} == {k: v for k, v in b.items() if k != "stamp"}


def removal(snap: dict, stamp: float, keep_queues: bool = False) -> dict:
    """The record telling that ``snap``'s queue manager left its cluster (or was removed from it)."""
    return {"cluster": snap["cluster"], "qmgr": snap["qmgr"], "qmid": snap.get("qmid", ""), "stamp": stamp,
            "channel": {"name": snap["channel"]["name"]}, "removed": True,
            "queues": list(snap.get("queues", ())) if keep_queues else []}


def encode_command(sender: str, snapshots: list[dict], refresh: list[str] | None = None) -> bytes:
    """``refresh``: the clusters the sender was refreshed in (REFRESH CLUSTER), for which a full repository
    sends it everything it holds."""
    body: dict = {FORMAT_KEY: FORMAT_VERSION, "from": sender, "snapshots": snapshots}
    if refresh:
        body["refresh"] = sorted(refresh)
    return json.dumps(body, sort_keys=True).encode()


def _well_formed(snap) -> bool:
    """The fields every reader of a snapshot relies on, of the types it relies on."""
    return (isinstance(snap, dict) and isinstance(snap.get("cluster"), str) and isinstance(snap.get("qmgr"), str)
            and bool(snap["cluster"]) and bool(snap["qmgr"]) and isinstance(snap.get("stamp"), (int, float))
            and isinstance(snap.get("channel"), dict) and isinstance(snap["channel"].get("name"), str)
            and isinstance(snap.get("queues", []), list)
            and all(isinstance(q, dict) and isinstance(q.get("name"), str) for q in snap.get("queues", []))
            and isinstance(snap.get("topics", []), list) and isinstance(snap.get("subs", []), list))


def decode_command(data: bytes) -> tuple[str, list[dict]] | None:
    """A command message's sender and its well-formed snapshots; None for anything not in our format."""
    decoded = decode_request(data)
    return None if decoded is None else decoded[:2]


def decode_request(data: bytes) -> tuple[str, list[dict], list[str]] | None:
    """decode_command's answer and the clusters the sender asks to be told everything of (``refresh``)."""
    try:
        body = json.loads(data)
        if not isinstance(body, dict) or body.get(FORMAT_KEY) != FORMAT_VERSION:
            return None
        refresh = body.get("refresh", [])
        return (str(body["from"]), [s for s in body["snapshots"] if _well_formed(s)],
                [c for c in refresh if isinstance(c, str)] if isinstance(refresh, list) else [])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def record_correl(cluster: str, qmgr: str) -> bytes:
    return hashlib.blake2b(f"{cluster}\0{qmgr}".encode(), digest_size=24).digest()


@dataclass
class Repository:
    """The snapshots one queue manager holds, by (cluster, queue manager); ``sent`` counts the messages
    the workload algorithm sent each queue manager (per cluster queue name), for CLWLWGHT."""

    snapshots: dict[tuple[str, str], dict] = field(default_factory=dict)
    sent: dict[tuple[str, str], int] = field(default_factory=dict)
    loaded: bool = False
    watchers: list = field(default_factory=list)  # called after each snapshot kept (a test's wait)
    removed: dict[tuple[str, str], dict] = field(default_factory=dict)  # removals (module docstring)
    # REFRESH CLUSTER and RESET CLUSTER, for the cluster agent to carry out (it holds the session):
    # ("refresh", cluster pattern, REPOS(YES)) and ("reset", cluster, qmgr name, qmid, QUEUES(YES))
    requests: list[tuple] = field(default_factory=list)
    used: dict[str, int] = field(default_factory=dict)  # queue manager -> when its channel was last chosen
    clock: int = 0  # the counter ``used`` is stamped from

    def held(self, key: tuple[str, str]) -> dict | None:
        """The newest record held for (cluster, qmgr): its snapshot or its removal."""
        return self.snapshots.get(key) or self.removed.get(key)

    def offer(self, snap: dict) -> bool:
        """Keep ``snap`` (a snapshot or a removal) if it is newer than what is held for its key; True when
        it was kept."""
        key = (snap["cluster"], snap["qmgr"])
        old = self.held(key)
        if old is not None and old.get("stamp", 0) >= snap.get("stamp", 0):
            return False
        if snap.get("removed"):
            self.snapshots.pop(key, None)
            self.removed[key] = snap
        else:
            self.removed.pop(key, None)
            self.snapshots[key] = snap
        for watcher in self.watchers:
            watcher()
        return True

    def forget(self, key: tuple[str, str]) -> None:
        """Drop what is held for (cluster, qmgr), snapshot and removal (REFRESH CLUSTER)."""
        self.snapshots.pop(key, None)
        self.removed.pop(key, None)
        for watcher in self.watchers:
            watcher()

    def members(self, cluster: str) -> list[dict]:
        return [s for (c, _), s in sorted(self.snapshots.items()) if c == cluster]

    def clusters(self) -> set[str]:
        return {c for c, _ in self.snapshots}

    def full_repositories(self, cluster: str) -> list[dict]:
        return [s for s in self.members(cluster) if s.get("repos")]

    def instances(self, queue: str) -> list[tuple[dict, dict]]:
        """Every (snapshot, queue record) of a cluster queue of that name held here."""
        out = []
        for (_, _), snap in sorted(self.snapshots.items()):
            for q in snap.get("queues", ()):
                if q["name"] == queue:
                    out.append((snap, q))
        return out

    def qmgr(self, name: str) -> list[dict]:
        return [s for (_, q), s in sorted(self.snapshots.items()) if q == name]


def repository_of(registry) -> Repository:
    """The registry's repository, made at its first use (the agent fills it; commands read it)."""
    repo = getattr(registry, "cluster_repository", None)
    if repo is None:
        repo = registry.cluster_repository = Repository()
    return repo


# ---- kept on SYSTEM.CLUSTER.REPOSITORY.QUEUE ---------------------------------------------------------
_OPEN = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING


def load(qm, session, repo: Repository) -> None:
    """Every snapshot kept on the repository queue (a restart's memory of the cluster)."""
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=REPOSITORY_Q), _OPEN)
    options = C.MQGMO_BROWSE_FIRST
    while True:
        got = qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=options | C.MQGMO_NO_SYNCPOINT), _BIG)
        if got is None:
            break
        options = C.MQGMO_BROWSE_NEXT
        try:
            snap = json.loads(got.data)
        except ValueError:
            continue  # not a snapshot of ours: left alone
        if _well_formed(snap):
            repo.offer(snap)
    repo.loaded = True


def keep(qm, session, snap: dict) -> None:
    """Replace the snapshot's message on the repository queue, the old one's removal and the new one's
    put in one unit of work (the caller commits)."""
    handle = _drop(qm, session, snap["cluster"], snap["qmgr"])
    correl = record_correl(snap["cluster"], snap["qmgr"])
    md = S.MQMD(CorrelId=correl, Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
    pmo = S.MQPMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)
    qm.put(session, handle.hobj, md, pmo, json.dumps(snap, sort_keys=True).encode())
    qm.close_object(session, handle.hobj, 0)


def discard(qm, session, cluster: str, qmgr: str) -> None:
    """Remove (cluster, qmgr)'s record from the repository queue (the caller commits)."""
    handle = _drop(qm, session, cluster, qmgr)
    qm.close_object(session, handle.hobj, 0)


def _drop(qm, session, cluster: str, qmgr: str):
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=REPOSITORY_Q), _OPEN)
    correl = record_correl(cluster, qmgr)
    gmo = S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT, MatchOptions=C.MQMO_MATCH_CORREL_ID)
    while qm.get(session, handle, S.MQMD(CorrelId=correl), gmo, _BIG) is not None:
        pass
    return handle
