"""The other members as DISPLAY CLUSQMGR and DISPLAY QCLUSTER show them (registry/objects/clusters.py
lists this queue manager's own rows): each queue manager a snapshot tells of, through the cluster-sender
to it, and each cluster queue it hosts."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from qmlite.pcf import constants as C

from qmlite.registry.cluster import resolution
from qmlite.registry.cluster.snapshots import Repository
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import clusters as CL
from qmlite.registry.objects.definitions import Queue

# MQCQT_* (a snapshot's queue type) -> the queue type a Queue row reports it through (ClusterQueue.cluster_q_type)
_QTYPE = {CL.MQCQT_LOCAL_Q: C.MQQT_LOCAL, CL.MQCQT_ALIAS_Q: C.MQQT_ALIAS, CL.MQCQT_REMOTE_Q: C.MQQT_REMOTE,
          CL.MQCQT_Q_MGR_ALIAS: C.MQQT_REMOTE}


def learnt_members(registry, repo: Repository) -> list[CL.ClusterQMgr]:
    rows = []
    for (cluster, qmgr), snap in sorted(repo.snapshots.items()):
        if qmgr == registry.qmgr.name:
            continue
        deftype = (CL.MQQMDT_AUTO_CLUSTER_SENDER if resolution.auto_defined(registry, snap)
                   else CL.MQQMDT_AUTO_EXP_CLUSTER_SENDER)
        rows.append(CL.ClusterQMgr(qmgr, cluster, resolution.sender_channel(registry, snap), deftype,
                                   CL.MQQMT_REPOSITORY if snap.get("repos") else CL.MQQMT_NORMAL,
                                   snap.get("qmid", ""), CL.MQSUS_YES if snap.get("suspended") else CL.MQSUS_NO,
                                   snap.get("stamp", 0.0), snap.get("version", ""), False,
                                   resolution.channel_status(registry, snap["channel"]["name"])))
    return rows


def learnt_queues(registry, repo: Repository, matches: Callable[[str], bool]) -> Iterator[CL.ClusterQueue]:
    """Each member's cluster queues, and those of a queue manager RESET CLUSTER QUEUES(NO) removed (shown,
    never chosen: docs/decisions.md CLV2)."""
    for (cluster, qmgr), snap in sorted([*repo.snapshots.items(), *repo.removed.items()]):
        if qmgr == registry.qmgr.name:
            continue
        for q in snap.get("queues", ()):
            if not matches(q["name"]):
                continue
            qtype = _QTYPE.get(q.get("qtype"), C.MQQT_LOCAL)
            queue = Queue(q["name"], qtype=qtype, cluster_name=cluster, description=q.get("description", ""),
                          clwl_q_priority=q.get("clwl_priority", 0), clwl_q_rank=q.get("clwl_rank", 0),
                          def_bind=q.get("def_bind", C.MQBND_BIND_ON_OPEN),
                          def_persistence=q.get("def_persistence", C.MQPER_NOT_PERSISTENT),
                          def_priority=q.get("def_priority", 0),
                          def_put_response=q.get("def_put_response", C.MQPRT_SYNC_RESPONSE),
                          inhibit_put=C.MQQA_PUT_ALLOWED if q.get("put", True) else C.MQQA_PUT_INHIBITED,
                          altered=q.get("altered", 0.0), created=q.get("altered", 0.0),
                          remote_q_name=q["name"] if q.get("qtype") == CL.MQCQT_REMOTE_Q else "")
            yield CL.ClusterQueue(queue, cluster, qmgr, snap.get("qmid", ""))


def with_cluster_senders(registry) -> dict:
    """The channel definitions DISPLAY CHSTATUS looks through: the registry's, plus the cluster-senders
    auto-defined to each member the cluster told of (IBM shows their status, not their definitions), a
    hand-defined one that reached its member taking SYSTEM.CLUSTER.TRANSMIT.QUEUE as its agent does."""
    defined = registry.objects(M.KIND)
    repo = getattr(registry, "cluster_repository", None)
    if repo is None or not repo.snapshots:
        return defined
    out = {name: resolution.sender_channel(registry, {"channel": {"name": name}}) if ch.channel_type == M.CLUSSDR
           else ch for name, ch in defined.items()}
    for (_, qmgr), snap in sorted(repo.snapshots.items()):
        if qmgr != registry.qmgr.name:
            out[snap["channel"]["name"]] = resolution.sender_channel(registry, snap)
    return out
