"""Cluster commands (registry/objects/clusters.py says what this queue manager holds, registry/cluster/
what the other members told it):

* Inquire Cluster Queue Manager (DISPLAY CLUSQMGR): this queue manager per cluster it is in, the other
  members it was told of, and the queue managers its hand-defined cluster-sender channels point at
  that have not answered yet, with IBM's attributes
  (ClusterDate/Time, QMgrDefinitionType, QMgrType, QMgrIdentifier, Suspend, ChannelStatus, Version,
  XmitQName) and the attributes of the cluster channel each is known through.  ClusterQMgrName,
  Channel and ClusterName select (generic names allowed); one filter on any attribute.
* Inquire Queue with QType MQQT_CLUSTER, or with ClusterInfo (DISPLAY QCLUSTER, DISPLAY QUEUE
  CLUSINFO): this queue manager's cluster queues, one per queue and cluster, then the other members'
  it was told of; Inquire Queue Names
  with QType MQQT_CLUSTER their names.  Both wrap queues.py's handlers, which answer everything else.
* Suspend/Resume Queue Manager Cluster: recorded (DISPLAY CLUSQMGR SUSPEND); Refresh Cluster and
  Reset Cluster: checked, accepted, and handed to the cluster agent, which discards and asks again for
  what the other members told this one, or removes a member (server/mca/clusteragent.py; docs/decisions.md
  CLV1-CLV3; docs/channels.md "Clusters").
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, attr, with_filter
from qmlite.registry.admin.commands import channels as channelcmds
from qmlite.registry.admin.commands import qmgr as QM
from qmlite.registry.admin.commands.queues import check_name, required
from qmlite.registry.admin.params import INT, STR, CommandError, filter_matches, p_int, p_int_list, p_str, parse, pick
from qmlite.registry.cluster.snapshots import repository_of
from qmlite.registry.objects import clusters as CL
from qmlite.registry.objects.definitions import mq_date, mq_time

_CLUSTER = C.MQ_CLUSTER_NAME_LENGTH
_QMGR = C.MQ_Q_MGR_NAME_LENGTH
_CHANNEL = C.MQ_CHANNEL_NAME_LENGTH
_SCTQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"  # DEFCLXQ(SCTQ): every cluster-sender's transmission queue
_SCOPE = p_str(C.MQCACF_COMMAND_SCOPE, _QMGR)


def _generic(values: dict, pid: int) -> str | None:
    pattern = values.get(pid)
    if pattern is None:
        return None
    check_name(pattern, pid, generic=True)  # type: ignore[arg-type]
    return pattern  # type: ignore[return-value]


def _matches(pattern: str | None, name: str) -> bool:
    if pattern is None or pattern == "*":
        return True
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


# ---- Inquire Cluster Queue Manager ---------------------------------------------------------------
def _channel_attr(a):
    return attr(a.id, a.kind, lambda row: a.get(row.channel), pad=a.pad)


def _status(row: CL.ClusterQMgr) -> int:
    """The cluster-sender's to that queue manager, as its agent keeps it (INACTIVE when none ran)."""
    return row.channel_status


_OWN = [
    attr(C.MQCA_CLUSTER_Q_MGR_NAME, STR, "name", pad=_QMGR, always=True),
    attr(C.MQCACH_CHANNEL_NAME, STR, lambda r: r.channel.name, pad=_CHANNEL, always=True),
    attr(C.MQCA_CLUSTER_NAME, STR, "cluster", pad=_CLUSTER, always=True),
    attr(C.MQCA_CLUSTER_DATE, STR, lambda r: mq_date(r.since), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_CLUSTER_TIME, STR, lambda r: mq_time(r.since), pad=C.MQ_TIME_LENGTH),
    attr(C.MQIACF_Q_MGR_DEFINITION_TYPE, INT, "definition_type"),
    attr(C.MQIACF_Q_MGR_TYPE, INT, "qmgr_type"),
    attr(C.MQCA_Q_MGR_IDENTIFIER, STR, "qmid", pad=C.MQ_Q_MGR_IDENTIFIER_LENGTH),
    attr(C.MQIACF_SUSPEND, INT, "suspend"),
    attr(C.MQIACH_CHANNEL_STATUS, INT, _status),
    attr(C.MQCA_VERSION, STR, "version", pad=C.MQ_VERSION_LENGTH),
    attr(C.MQCACH_XMIT_Q_NAME, STR, lambda r: "" if r.local else _SCTQ, pad=C.MQ_Q_NAME_LENGTH),
]
_SKIP = {a.id for a in _OWN} | {C.MQIACH_CHANNEL_TYPE}
CLUSQMGR_TABLE = AttrTable(_OWN + [_channel_attr(a) for a in channelcmds.TABLE.attrs if a.id not in _SKIP])


def _has(row: CL.ClusterQMgr, pid: int) -> bool:
    """Attributes of the row's channel type only; the local queue manager's own entry has no channel
    status (IBM returns none for a cluster-receiver entry)."""
    if pid == C.MQIACH_CHANNEL_STATUS:
        return not row.local
    if pid in _SKIP:
        return True
    return channelcmds.TYPED.has(row.channel, pid)


_INQUIRE_CLUSQMGR = (
    p_str(C.MQCA_CLUSTER_Q_MGR_NAME, _QMGR),
    p_str(C.MQCACH_CHANNEL_NAME, _CHANNEL),
    p_str(C.MQCA_CLUSTER_NAME, _CLUSTER),
    p_int_list(C.MQIACF_CLUSTER_Q_MGR_ATTRS),
    _SCOPE,
)


def inquire_cluster_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parsed = parse(request, _INQUIRE_CLUSQMGR, filters=CLUSQMGR_TABLE.filter_kinds())
    values, flt = parsed.values, parsed.filter
    name = required(values, C.MQCA_CLUSTER_Q_MGR_NAME)
    check_name(name, C.MQCA_CLUSTER_Q_MGR_NAME, generic=True)  # type: ignore[arg-type]
    channel = _generic(values, C.MQCACH_CHANNEL_NAME)
    cluster = _generic(values, C.MQCA_CLUSTER_NAME)
    selected = with_filter(CLUSQMGR_TABLE,
                           CLUSQMGR_TABLE.select(values.get(C.MQIACF_CLUSTER_Q_MGR_ATTRS)),  # type: ignore[arg-type]
                           flt)
    rows = []
    for row in CL.members(ctx.registry, QM.VERSION):
        if not (_matches(name, row.name) and _matches(channel, row.channel.name)  # type: ignore[arg-type]
                and _matches(cluster, row.cluster)):
            continue
        if flt is not None and not (_has(row, flt.parameter)
                                    and filter_matches(flt, CLUSQMGR_TABLE.value(row, flt.parameter))):
            continue
        rows.append(CLUSQMGR_TABLE.render(row, [a for a in selected if _has(row, a.id)]))
    return R.data(ctx.command, rows, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


# ---- cluster queues (Inquire Queue, Inquire Queue Names) -----------------------------------------
def _queue(field: str):
    return lambda cq: getattr(cq.queue, field)


_Q = C.MQ_Q_NAME_LENGTH
QCLUSTER_TABLE = AttrTable([
    attr(C.MQCA_Q_NAME, STR, lambda cq: cq.queue.name, pad=_Q, always=True),
    attr(C.MQIA_Q_TYPE, INT, lambda cq: C.MQQT_CLUSTER, always=True),
    attr(C.MQCA_CLUSTER_Q_MGR_NAME, STR, "qmgr_name", pad=_QMGR, always=True),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda cq: mq_date(cq.queue.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda cq: mq_time(cq.queue.altered), pad=C.MQ_TIME_LENGTH),
    attr(C.MQCA_CLUSTER_DATE, STR, lambda cq: mq_date(cq.queue.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_CLUSTER_TIME, STR, lambda cq: mq_time(cq.queue.altered), pad=C.MQ_TIME_LENGTH),
    attr(C.MQCA_CLUSTER_NAME, STR, "cluster", pad=_CLUSTER),
    attr(C.MQCA_CLUSTER_NAMELIST, STR, _queue("cluster_namelist"), pad=C.MQ_NAMELIST_NAME_LENGTH),
    attr(C.MQIA_CLUSTER_Q_TYPE, INT, lambda cq: cq.cluster_q_type),
    attr(C.MQIA_CLWL_Q_PRIORITY, INT, _queue("clwl_q_priority")),
    attr(C.MQIA_CLWL_Q_RANK, INT, _queue("clwl_q_rank")),
    attr(C.MQIA_DEF_BIND, INT, _queue("def_bind")),
    attr(C.MQIA_DEF_PUT_RESPONSE_TYPE, INT, _queue("def_put_response")),
    attr(C.MQIA_DEF_PERSISTENCE, INT, _queue("def_persistence")),
    attr(C.MQIA_DEF_PRIORITY, INT, _queue("def_priority")),
    attr(C.MQCA_Q_DESC, STR, _queue("description"), pad=C.MQ_Q_DESC_LENGTH),
    attr(C.MQIA_INHIBIT_PUT, INT, _queue("inhibit_put")),
    attr(C.MQCA_Q_MGR_IDENTIFIER, STR, "qmid", pad=C.MQ_Q_MGR_IDENTIFIER_LENGTH),
])
# ClusterInfo (MQCFIN): "cluster information about these queues and other queues in the repository
# that match the selection criteria is returned"; any value asks for it.
_P_CLUSTER_INFO = p_int(C.MQIACF_CLUSTER_INFO)
_Q_TYPE = C.MQIA_Q_TYPE


def _without(request: P.PCFMessage, pid: int) -> P.PCFMessage:
    params = [p for p in request.parameters if getattr(p, "parameter", None) != pid]
    return P.PCFMessage(request.header, params)


def _cluster_rows(ctx, values: dict, flt) -> list[list]:
    pattern = required(values, C.MQCA_Q_NAME)
    check_name(pattern, C.MQCA_Q_NAME, generic=True)  # type: ignore[arg-type]
    selected = with_filter(QCLUSTER_TABLE,
                           QCLUSTER_TABLE.select(values.get(C.MQIACF_Q_ATTRS)), flt)  # type: ignore[arg-type]
    reg = ctx.registry
    queues = pick(reg.queues, pattern)  # type: ignore[arg-type]
    rows = []
    learnt = CL.learnt_queues(reg, lambda name: _matches(pattern, name))  # type: ignore[arg-type]
    for cq in [*CL.cluster_queues(reg, sorted(queues, key=lambda q: q.name)), *learnt]:
        if flt is not None and not (flt.parameter in QCLUSTER_TABLE.by_id
                                    and filter_matches(flt, QCLUSTER_TABLE.value(cq, flt.parameter))):
            continue
        rows.append(QCLUSTER_TABLE.render(cq, selected))
    return rows


def _qtype(request: P.PCFMessage) -> int | None:
    for p in request.parameters:
        if getattr(p, "parameter", None) == _Q_TYPE and isinstance(p, P.CFIN):
            return p.value
    return None


def _cluster_info(request: P.PCFMessage) -> bool:
    return any(getattr(p, "parameter", None) == C.MQIACF_CLUSTER_INFO for p in request.parameters)


_INQUIRE_Q = (p_str(C.MQCA_Q_NAME, _Q), p_int(_Q_TYPE, C.MQQT_CLUSTER, C.MQQT_ALL), p_int_list(C.MQIACF_Q_ATTRS),
              _P_CLUSTER_INFO, _SCOPE)


def inquire_q(local, ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    """Inquire Queue: cluster queues for QType MQQT_CLUSTER; the queue definitions and then the cluster
    queues for ClusterInfo with QType ALL; everything else is queues.py's."""
    qtype = _qtype(request)
    info = _cluster_info(request)
    if qtype != C.MQQT_CLUSTER and not info:
        return local(ctx, request)
    if info and qtype not in (None, C.MQQT_ALL, C.MQQT_CLUSTER):
        return local(ctx, _without(request, C.MQIACF_CLUSTER_INFO))  # a local type: no cluster queue is one
    parsed = parse(request, _INQUIRE_Q, filters=QCLUSTER_TABLE.filter_kinds())
    rows = _cluster_rows(ctx, parsed.values, parsed.filter)
    if qtype != C.MQQT_CLUSTER:
        answers = local(ctx, _without(request, C.MQIACF_CLUSTER_INFO))
        head = answers[0].header
        if head.CompCode == C.MQCC_OK:
            rows = [list(m.parameters) for m in answers] + rows
        elif head.Reason != C.MQRC_UNKNOWN_OBJECT_NAME:
            return answers
    return R.data(ctx.command, rows, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_q_names(local, ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    if _qtype(request) != C.MQQT_CLUSTER:
        return local(ctx, request)
    values = parse(request, (p_str(C.MQCA_Q_NAME, _Q), p_int(_Q_TYPE, C.MQQT_CLUSTER), _SCOPE)).values
    pattern = required(values, C.MQCA_Q_NAME)
    check_name(pattern, C.MQCA_Q_NAME, generic=True)  # type: ignore[arg-type]
    reg = ctx.registry
    names = sorted({cq.queue.name
                    for cq in [*CL.cluster_queues(reg, pick(reg.queues, pattern)),  # type: ignore[arg-type]
                               *CL.learnt_queues(reg, lambda name: _matches(pattern, name))]})
    params = [P.CFSL(C.MQCACF_Q_NAMES, tuple(n.ljust(_Q) for n in names), R.QMGR_CCSID),
              P.CFIL(C.MQIACF_Q_TYPES, tuple(C.MQQT_CLUSTER for _ in names))]
    return R.data(ctx.command, [params] if names else [], none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


# ---- Suspend / Resume Queue Manager Cluster, Refresh Cluster, Reset Cluster ----------------------
_P_CLUSTER = p_str(C.MQCA_CLUSTER_NAME, _CLUSTER)
_P_CLUSNL = p_str(C.MQCA_CLUSTER_NAMELIST, C.MQ_NAMELIST_NAME_LENGTH)
_P_MODE = p_int(C.MQIACF_MODE, CL.MQMODE_QUIESCE, CL.MQMODE_FORCE)


def _clusters_named(ctx, values: dict) -> tuple[str, ...]:
    """ClusterName or ClusterNamelist, exactly one (IBM: both are listed as required, either will do)."""
    cluster, namelist = values.get(C.MQCA_CLUSTER_NAME) or "", values.get(C.MQCA_CLUSTER_NAMELIST) or ""
    if cluster and namelist:
        raise CommandError(C.MQRCCF_CLUSTER_NAME_CONFLICT, parameter=C.MQCA_CLUSTER_NAMELIST)
    if not cluster and not namelist:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQCA_CLUSTER_NAME)
    if cluster:
        check_name(cluster, C.MQCA_CLUSTER_NAME)  # type: ignore[arg-type]
    else:
        check_name(namelist, C.MQCA_CLUSTER_NAMELIST)  # type: ignore[arg-type]
    return CL.names_of(ctx.registry, cluster, namelist)  # type: ignore[arg-type]


def suspend_q_mgr_cluster(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, (_P_CLUSTER, _P_CLUSNL, _P_MODE, _SCOPE)).values
    reg = ctx.registry
    now = reg.now()
    for cluster in _clusters_named(ctx, values):
        old = reg.objects(CL.KIND).get(cluster)
        reg.put_object(CL.KIND,
                       CL.ClusterSuspension(cluster,
                                            values.get(C.MQIACF_MODE, CL.MQMODE_QUIESCE),  # type: ignore[arg-type]
                                            old.created if old is not None else now, now))
    return R.ok(ctx.command)


def resume_q_mgr_cluster(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, (_P_CLUSTER, _P_CLUSNL, _SCOPE)).values
    reg = ctx.registry
    for cluster in _clusters_named(ctx, values):
        old = reg.objects(CL.KIND).get(cluster)
        if old is not None:
            reg.remove_object(CL.KIND, old)
    return R.ok(ctx.command)


_REFRESH = (_P_CLUSTER, p_int(C.MQIACF_REFRESH_REPOSITORY, C.MQCFO_REFRESH_REPOSITORY_YES,
                              C.MQCFO_REFRESH_REPOSITORY_NO), _SCOPE)


def refresh_cluster(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    """Accepted, then carried out by the cluster agent (IBM's repository manager does it after the reply)."""
    values = parse(request, _REFRESH).values
    cluster = required(values, C.MQCA_CLUSTER_NAME)
    check_name(cluster, C.MQCA_CLUSTER_NAME, generic=True)  # type: ignore[arg-type]
    repos = values.get(C.MQIACF_REFRESH_REPOSITORY) == C.MQCFO_REFRESH_REPOSITORY_YES
    _ask_agent(ctx, ("refresh", cluster, repos))
    return R.ok(ctx.command)


def _ask_agent(ctx, request: tuple) -> None:
    repository_of(ctx.registry).requests.append(request)  # the engine nudges the agent after the command


_RESET = (_P_CLUSTER, p_str(C.MQCA_Q_MGR_NAME, _QMGR), p_str(C.MQCA_Q_MGR_IDENTIFIER, C.MQ_Q_MGR_IDENTIFIER_LENGTH),
          p_int(C.MQIACF_ACTION), p_int(C.MQIACF_REMOVE_QUEUES, C.MQCFO_REMOVE_QUEUES_YES, C.MQCFO_REMOVE_QUEUES_NO),
          _SCOPE)


def reset_cluster(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    """RESET CLUSTER ACTION(FORCEREMOVE): a full repository removes another queue manager from the
    cluster, telling every member (the cluster agent does it after the reply)."""
    values = parse(request, _RESET).values
    cluster = required(values, C.MQCA_CLUSTER_NAME)
    check_name(cluster, C.MQCA_CLUSTER_NAME)  # type: ignore[arg-type]
    action = required(values, C.MQIACF_ACTION)
    if action != C.MQACT_FORCE_REMOVE:
        raise CommandError(C.MQRCCF_ACTION_VALUE_ERROR, parameter=C.MQIACF_ACTION)
    qmname, qmid = values.get(C.MQCA_Q_MGR_NAME) or "", values.get(C.MQCA_Q_MGR_IDENTIFIER) or ""
    if qmname and qmid:
        raise CommandError(C.MQRCCF_PARM_CONFLICT, parameter=C.MQCA_Q_MGR_IDENTIFIER)
    if not qmname and not qmid:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQCA_Q_MGR_NAME)
    queues = values.get(C.MQIACF_REMOVE_QUEUES) == C.MQCFO_REMOVE_QUEUES_YES
    _ask_agent(ctx, ("reset", cluster, qmname, qmid, queues))
    return R.ok(ctx.command)


def register(engine) -> None:
    engine.register(C.MQCMD_INQUIRE_CLUSTER_Q_MGR, inquire_cluster_q_mgr)
    engine.register(C.MQCMD_SUSPEND_Q_MGR_CLUSTER, suspend_q_mgr_cluster)
    engine.register(C.MQCMD_RESUME_Q_MGR_CLUSTER, resume_q_mgr_cluster)
    engine.register(C.MQCMD_REFRESH_CLUSTER, refresh_cluster)
    engine.register(C.MQCMD_RESET_CLUSTER, reset_cluster)
    # Registered after queues.py (commands/__init__.py): cluster queues are answered here, the rest there.
    local_q, local_names = engine.handlers[C.MQCMD_INQUIRE_Q], engine.handlers[C.MQCMD_INQUIRE_Q_NAMES]
    engine.register(C.MQCMD_INQUIRE_Q, lambda ctx, request: inquire_q(local_q, ctx, request))
    engine.register(C.MQCMD_INQUIRE_Q_NAMES, lambda ctx, request: inquire_q_names(local_names, ctx, request))
