"""The queue managers a server hosts and the message channels between them, as a graph (issue 34 item 5:
the console draws it, REST's ``GET /admin/qmlite/topology`` serves it; docs/channels.md "The topology").

``channel_views(qm)`` reads one queue manager's message channels (definitions and the status their agents
keep, registry/channels/mcastatus.py) through the QueueManager facade, the cluster-senders a cluster
auto-defined among them; ``graph(...)`` joins those of every hosted queue manager into nodes (the hosted
queue managers, and the partners their channels name), one edge per message channel (per cluster-sender),
the sending end's status on it, and the clusters the channels name with their members.  No sockets:
the caller says which addresses reach this server."""

from __future__ import annotations

import dataclasses

from qmlite.pcf import ccdt
from qmlite.pcf import constants as C

from qmlite.registry.objects import channels as M

# MQCHS_* as DISPLAY CHSTATUS prints them.
STATUS_WORDS = {C.MQCHS_INACTIVE: "INACTIVE", C.MQCHS_BINDING: "BINDING", C.MQCHS_STARTING: "STARTING",
                C.MQCHS_RUNNING: "RUNNING", C.MQCHS_STOPPING: "STOPPING", C.MQCHS_RETRYING: "RETRYING",
                C.MQCHS_STOPPED: "STOPPED", C.MQCHS_REQUESTING: "REQUESTING", C.MQCHS_PAUSED: "PAUSED",
                C.MQCHS_DISCONNECTED: "DISCONNECTED", C.MQCHS_INITIALIZING: "INITIALIZING",
                C.MQCHS_SWITCHING: "SWITCHING"}
TYPE_WORDS = {M.SDR: "SDR", M.SVR: "SVR", M.RCVR: "RCVR", M.RQSTR: "RQSTR", M.CLUSSDR: "CLUSSDR",
              M.CLUSRCVR: "CLUSRCVR"}
# A cluster-receiver receives from every member: each cluster-sender to it is its own edge (MCQ3).
RECEIVING = frozenset({M.RCVR, M.RQSTR, M.CLUSRCVR})
# SYSTEM.DEF.SENDER ..., SYSTEM.AUTO.RECEIVER: the default and auto-definition templates, never run (MCP4)
TEMPLATES = ("SYSTEM.DEF.", "SYSTEM.AUTO.")


@dataclasses.dataclass(frozen=True, slots=True)
class ChannelView:
    """One message channel as its queue manager knows it: the definition and the agent's status."""

    name: str
    channel_type: int
    qmgr: str  # the queue manager defining it
    conn_name: str  # the definition's CONNAME (a sender's partner); the partner's address once it ran
    xmit_q: str
    status: str  # RUNNING, RETRYING, STOPPED ... INACTIVE when no agent runs it
    in_doubt: bool  # a batch sent and not confirmed, now or saved (the synchronisation records)
    remote_qmgr: str  # the partner's name, once an ID exchange told it
    msgs: int
    batches: int
    cluster: str = ""  # a cluster channel's cluster (a CLUSNL's names joined by commas)
    auto: bool = False  # a cluster-sender the cluster defined (CLUSSDRA), not the queue manager's own

    @property
    def sending(self) -> bool:
        return self.channel_type not in RECEIVING


def channel_views(qm) -> list[ChannelView]:
    """Every message channel ``qm`` (registry/qmgr.py's QueueManager) defines, by name, and the
    cluster-senders its clusters defined to the members they told of (as DISPLAY CHSTATUS sees them)."""
    from qmlite.registry.cluster import members  # loaded with the first topology asked for
    from qmlite.registry.objects import clusters as CL

    registry = qm.registry
    defined = registry.objects(M.KIND)
    repo = getattr(registry, "cluster_repository", None)
    member_of = {snap["channel"]["name"]: member for (_, member), snap in (repo.snapshots if repo else {}).items()
                 if member != registry.qmgr.name}  # a cluster-sender's name -> the member it reaches
    views = []
    for channel in sorted(members.with_cluster_senders(registry).values(), key=lambda c: c.name):
        if channel.channel_type not in M.MESSAGE or channel.name.startswith(TEMPLATES):
            continue
        status = qm.channel_status(channel)
        word = STATUS_WORDS.get(status.status, str(status.status)) if status is not None else "INACTIVE"
        in_doubt = bool(status is not None and status.in_doubt)
        if status is None and channel.channel_type not in RECEIVING:
            # Not run since the queue manager started: a batch a crash left in doubt is in its saved status
            # (a channel that ran keeps INDOUBT in its current status; reading the records is an MQCONN).
            saved = qm.channel_saved_status(channel)
            in_doubt = bool(saved is not None and saved.in_doubt)
        conn_name = channel.conn_name
        if status is not None and status.conn_name and not (conn_name and channel.channel_type not in RECEIVING):
            conn_name = status.conn_name  # a receiver's partner: the address it came from
        remote = status.remote_qmgr if status is not None and status.remote_qmgr else ""
        if channel.channel_type == M.CLUSSDR:
            remote = remote or member_of.get(channel.name, "")
        own = defined.get(channel.name)
        views.append(ChannelView(channel.name, channel.channel_type, registry.qmgr.name, conn_name,
                                 channel.xmit_q_name, word, in_doubt, remote,
                                 status.msgs if status is not None else 0,
                                 status.batches if status is not None else 0,
                                 ",".join(CL.names_of(registry, channel.cluster_name, channel.cluster_namelist)),
                                 own is None or own.channel_type != channel.channel_type))
    return views


def reaches_here(conn_name: str, local: set[tuple[str, int]]) -> bool:
    """Does some address of CONNAME reach this server (``local``: its (host, port) pairs)?"""
    try:
        return any((host.lower(), port) in local for host, port in ccdt.parse_conn_name(conn_name))
    except ValueError:
        return False


def _receiver_here(name: str, hosted: dict[str, list[ChannelView]]) -> str:
    """The hosted queue manager a sender reaching this server's port lands on: the first (the default,
    then the others by name) defining a receiving channel of that name, as the port routes it (MCA20)."""
    for qmgr, views in hosted.items():
        if any(v.name == name and v.channel_type in RECEIVING for v in views):
            return qmgr
    return ""


def _edge_state(status: str, in_doubt: bool) -> str:
    if in_doubt:
        return "indoubt"
    return status.lower() if status in ("RUNNING", "RETRYING", "STOPPED", "INACTIVE") else "other"


def graph(hosted: dict[str, list[ChannelView]], states: dict[str, str], local: set[tuple[str, int]]) -> dict:
    """Nodes and edges: ``hosted`` each hosted queue manager's views (the default first), ``states`` their
    states (running, ended ...), ``local`` the addresses reaching this server.  A sender's partner is the
    name its ID exchange told, else the hosted queue manager its CONNAME reaches here, else its CONNAME;
    a receiver whose sender is hosted too joins that sender's edge (its status as ``receiverStatus``)."""
    nodes: dict[str, dict] = {name: {"name": name, "hosted": True, "state": states.get(name, "running"),
                                     "connectionName": ""} for name in hosted}
    edges: dict[tuple[str, str, str], dict] = {}

    def partner(name: str, conn_name: str) -> str:
        if name not in nodes:
            nodes[name] = {"name": name, "hosted": False, "state": "", "connectionName": conn_name}
        return name

    for qmgr, views in hosted.items():
        for v in views:
            if not v.sending:
                continue
            to = v.remote_qmgr or (_receiver_here(v.name, hosted) if reaches_here(v.conn_name, local) else "")
            to = partner(to or v.conn_name or f"? {v.name}", v.conn_name)
            edges[(v.name, qmgr, to)] = _edge(v, qmgr, to)
    for qmgr, views in hosted.items():
        for v in views:
            if v.sending:
                continue
            joined = [e for (name, _, to), e in edges.items() if name == v.name and to == qmgr]
            if joined:
                for edge in joined:
                    edge["receiverStatus"] = v.status
                continue
            if v.channel_type == M.CLUSRCVR and not v.remote_qmgr:
                continue  # a cluster-receiver no member has used: no partner to draw it from (MCQ3)
            source = partner(v.remote_qmgr or v.conn_name or f"? {v.name}", v.conn_name)
            edges[(v.name, source, qmgr)] = _edge(v, source, qmgr)
    return {"qmgr": list(nodes.values()), "channel": list(edges.values()),
            "cluster": clusters_of(hosted, edges.values())}


def clusters_of(hosted: dict[str, list[ChannelView]], edges) -> list[dict]:
    """Each cluster the channels name, with its members: the queue managers defining a cluster-receiver
    in it, and both ends of each cluster-sender's edge (MCQ4)."""
    found: dict[str, set[str]] = {}
    for qmgr, views in hosted.items():
        for v in views:
            if v.channel_type == M.CLUSRCVR:
                for name in filter(None, v.cluster.split(",")):
                    found.setdefault(name, set()).add(qmgr)
    for edge in edges:
        for name in filter(None, edge["cluster"].split(",")):
            found.setdefault(name, set()).update((edge["from"], edge["to"]))
    return [{"name": name, "qmgr": sorted(qmgrs)} for name, qmgrs in sorted(found.items())]


def _edge(v: ChannelView, source: str, target: str) -> dict:
    return {"name": v.name, "type": TYPE_WORDS.get(v.channel_type, str(v.channel_type)), "definedOn": v.qmgr,
            "from": source, "to": target, "status": v.status, "inDoubt": v.in_doubt,
            "state": _edge_state(v.status, v.in_doubt), "connectionName": v.conn_name, "xmitQueue": v.xmit_q,
            "remoteQmgr": v.remote_qmgr, "msgs": v.msgs, "batches": v.batches,
            "receiverStatus": None if v.sending else v.status, "cluster": v.cluster, "auto": v.auto}
