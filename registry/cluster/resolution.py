"""Where a message for a cluster queue goes: MQOPEN of a queue this queue manager does not define (or
defines with CLWLUSEQ(ANY)) resolves through the cluster (IBM Docs "How clusters work"), and each MQPUT
on a handle not bound at open asks the workload algorithm again (workload.py).

A message for another member waits on SYSTEM.CLUSTER.TRANSMIT.QUEUE behind an MQXQH naming that queue
manager, its MQMD's CorrelId the name of the cluster-sender channel that takes it (IBM selects a
cluster-sender's messages so; docs/decisions.md CLU3), so one transmission queue feeds every
cluster-sender and each takes only its own (sending.py).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

from qmlite.registry.channels.syncrecords import correl_id
from qmlite.registry.cluster import workload
from qmlite.registry.cluster.snapshots import SCTQ, Repository
from qmlite.registry.errors import MQIError
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import clusters as CL
from qmlite.registry.security import authority

_INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE
_BINDS = C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED | C.MQOO_BIND_ON_GROUP


def sender_channel(registry, snap: dict, cluster: str = ""):
    """The cluster-sender to ``snap``'s queue manager: the one defined by hand with its cluster-receiver's
    name (IBM's DEFTYPE CLUSSDRB), else one auto-defined from the cluster-receiver's attributes
    (CLUSSDRA); either takes its messages from SYSTEM.CLUSTER.TRANSMIT.QUEUE."""
    info = snap["channel"]
    manual = registry.objects(M.KIND).get(info["name"])
    if manual is not None and manual.channel_type == M.CLUSSDR:
        return dataclasses.replace(manual, xmit_q_name=SCTQ)
    fields = {f: info[f] for f in info if f != "name" and f in M.Channel.__dataclass_fields__}
    return M.new(info["name"], M.CLUSSDR, xmit_q_name=SCTQ, cluster_name=cluster or snap["cluster"],
                 description=info.get("description", ""), **{k: v for k, v in fields.items() if k != "description"})


def auto_defined(registry, snap: dict) -> bool:
    manual = registry.objects(M.KIND).get(snap["channel"]["name"])
    return manual is None or manual.channel_type != M.CLUSSDR


def channel_status(registry, name: str) -> int:
    """The cluster-sender's status as the workload algorithm weighs it (no agent yet: INACTIVE)."""
    running = registry.running
    if name in running.stopped:
        return C.MQCHS_STOPPED
    status = running.message_channels.get(name)
    return status.status if status is not None else C.MQCHS_INACTIVE


@dataclasses.dataclass(slots=True)
class Binding:
    """A cluster queue's handle: the instance chosen and whether each MQPUT chooses again."""

    queue: str
    fixed: int  # MQBND_BIND_ON_OPEN, _NOT_FIXED or _ON_GROUP
    local_only: bool
    chosen: str = ""  # the queue manager chosen last
    correl: bytes = b""  # the CorrelId of its messages on SCTQ (the cluster-sender's name)
    group: bytes = b""  # BIND_ON_GROUP: the group the last choice was made for

    def before_put(self, registry, handle, md) -> None:
        """MQPUT on the handle: choose again unless bound (BIND_ON_OPEN; BIND_ON_GROUP within a group),
        and count the message for the instance it goes to (CLWLWGHT's least used, workload.py)."""
        in_group = bool(md.MsgFlags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP))
        if self.fixed == C.MQBND_BIND_NOT_FIXED or (self.fixed == C.MQBND_BIND_ON_GROUP and not (
                in_group and md.GroupId == self.group and self.chosen)):
            self.group = md.GroupId if in_group else b""
            bind(registry, handle, self)
        repo = registry.cluster_repository
        key = (self.queue, self.chosen)
        repo.sent[key] = repo.sent.get(key, 0) + 1
        if self.chosen != registry.qmgr.name:  # its channel is the most recently used (CLWLMRUC)
            repo.clock += 1
            repo.used[self.chosen] = repo.clock


def instances(registry, repo: Repository, queue: str) -> list[tuple[workload.Instance, dict | None]]:
    """Every instance of cluster queue ``queue`` this queue manager can send to, with the snapshot of its
    queue manager (None: the local instance)."""
    me = registry.qmgr.name
    out: list[tuple[workload.Instance, dict | None]] = []
    local = registry.queues.get(queue)
    if local is not None and local.qtype == C.MQQT_LOCAL and (local.cluster_name or local.cluster_namelist):
        out.append((workload.Instance(me, local=True, put_enabled=local.inhibit_put != C.MQQA_PUT_INHIBITED,
                                      queue_rank=local.clwl_q_rank, queue_priority=local.clwl_q_priority,
                                      sent=repo.sent.get((queue, me), 0)), None))
    seen = {me}
    for snap, q in repo.instances(queue):
        if snap["qmgr"] in seen:
            continue  # one instance per queue manager, however many clusters share it
        seen.add(snap["qmgr"])
        ch = snap["channel"]
        out.append((workload.Instance(
            snap["qmgr"], put_enabled=q.get("put", True), channel_rank=ch.get("clwl_rank", 0),
            queue_rank=q.get("clwl_rank", 0), channel_priority=ch.get("clwl_priority", 0),
            queue_priority=q.get("clwl_priority", 0), weight=ch.get("clwl_weight", 50),
            network_priority=ch.get("network_priority", 0), channel_status=channel_status(registry, ch["name"]),
            suspended=bool(snap.get("suspended")), sent=repo.sent.get((queue, snap["qmgr"]), 0),
            last_used=repo.used.get(snap["qmgr"], 0)), snap))
    return out


def bind(registry, handle, binding: Binding) -> None:
    """Choose the instance for the next message and point the handle at it (MQRC_CLUSTER_PUT_INHIBITED
    when every instance is put-inhibited, IBM's 2268); the message is counted when it is put."""
    repo = registry.cluster_repository
    found = instances(registry, repo, binding.queue)
    chosen = workload.choose([i for i, _ in found], local_only=binding.local_only,
                             mru=registry.qmgr.clwl_mru_channels)
    if chosen is None:
        raise MQIError(C.MQRC_CLUSTER_PUT_INHIBITED)
    snap = next(s for i, s in found if i is chosen)
    binding.chosen = chosen.qmgr
    if snap is None:
        handle.name, handle.remote, binding.correl = binding.queue, None, b""
    else:
        handle.name, handle.remote = SCTQ, (binding.queue, chosen.qmgr)
        binding.correl = correl_id(snap["channel"]["name"])


def open_handle(qm, session, od, options: int, handle_type):
    """MQOPEN of queue ``od.ObjectName`` through the cluster: a handle on SYSTEM.CLUSTER.TRANSMIT.QUEUE (or
    the local instance) with its Binding, or None when the cluster has no say (no such cluster queue
    elsewhere; a local queue used locally per CLWLUSEQ; an open for input)."""
    reg = qm.registry
    repo: Repository | None = getattr(reg, "cluster_repository", None)
    if repo is None or not repo.snapshots:
        return None
    name = od.ObjectName
    if od.ObjectQMgrName not in ("", reg.qmgr.name):
        return _open_on_member(qm, session, od, options, handle_type, repo)
    local = reg.queues.get(name)
    if (local is not None and local.qtype == C.MQQT_REMOTE and not local.xmit_q_name and options & C.MQOO_OUTPUT
            and local.remote_qmgr_name not in ("", reg.qmgr.name)):
        # a remote definition naming a member with no XMITQ (a gateway's clustered QREMOTE): through the
        # cluster-sender to it, unless a transmission queue of that name is defined here (CLV8)
        via = dataclasses.replace(od, ObjectName=local.remote_q_name or name, ObjectQMgrName=local.remote_qmgr_name)
        return _open_on_member(qm, session, via, options, handle_type, repo)
    local_only = local is None or workload.uses_local(local.clwl_use_q, reg.qmgr.clwl_use_q)
    if local is not None:
        if options & _INPUT or not options & C.MQOO_OUTPUT or local.qtype != C.MQQT_LOCAL:
            return None
        if not (local.cluster_name or local.cluster_namelist) or local_only:
            return None
    remote = [snap for snap, _ in repo.instances(name) if snap["qmgr"] != reg.qmgr.name]
    if not remote:
        return None
    if options & _INPUT:
        raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)  # IBM: a remote cluster queue opens for output and inquire
    _check_sctq(reg, session, od, options)
    fixed = options & _BINDS
    if not fixed:  # MQOO_BIND_AS_Q_DEF: the queue's DEFBIND (the local definition's, else the first instance's)
        first = repo.instances(name)[0][1]
        fixed = local.def_bind if local is not None else first.get("def_bind", C.MQBND_BIND_ON_OPEN)
    fixed = {C.MQOO_BIND_ON_OPEN: C.MQBND_BIND_ON_OPEN, C.MQOO_BIND_NOT_FIXED: C.MQBND_BIND_NOT_FIXED,
             C.MQOO_BIND_ON_GROUP: C.MQBND_BIND_ON_GROUP}.get(fixed, fixed)
    binding = Binding(name, fixed, local_only=local_only)
    handle = handle_type(0, "queue", SCTQ, options, queue_name=name, object_name=name)
    handle.cluster = binding
    if options & C.MQOO_OUTPUT:
        bind(reg, handle, binding)
    else:  # inquire only: the first instance's queue manager, nothing counted
        handle.remote = (name, remote[0]["qmgr"])
    return handle


def _check_sctq(reg, session, od, options: int) -> None:
    if reg.queues.get(SCTQ) is None:
        raise MQIError(C.MQRC_UNKNOWN_XMIT_Q)
    alternate = od.AlternateUserId if options & C.MQOO_ALTERNATE_USER_AUTHORITY else ""
    authority.check_queue(reg, session, SCTQ, options, alternate)  # ClusterQueueAccessControl=Xmitq, IBM's default


def _open_on_member(qm, session, od, options: int, handle_type, repo: Repository):
    """MQOPEN naming another member in ObjectQMgrName (a reply's ReplyToQMgr, typically): its queue, through
    the cluster-sender to it, unless a transmission queue or queue-manager alias of that name is defined
    here (which IBM's name resolution takes first).  None: the cluster does not know that queue manager."""
    reg = qm.registry
    qmgr = od.ObjectQMgrName
    snaps = repo.qmgr(qmgr) or [snap for snap, q in repo.instances(qmgr)  # a clustered queue-manager alias
                                if q.get("qtype") == CL.MQCQT_Q_MGR_ALIAS and snap["qmgr"] != reg.qmgr.name]
    if not snaps or qmgr in reg.queues:
        return None
    if options & _INPUT:
        raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    _check_sctq(reg, session, od, options)
    binding = Binding(od.ObjectName, C.MQBND_BIND_ON_OPEN, local_only=True, chosen=snaps[0]["qmgr"],
                      correl=correl_id(snaps[0]["channel"]["name"]))
    handle = handle_type(0, "queue", SCTQ, options, queue_name=od.ObjectName, object_name=od.ObjectName,
                         remote=(od.ObjectName, qmgr))
    handle.cluster = binding
    return handle
