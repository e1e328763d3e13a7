"""Cluster commands on a queue manager that is in no cluster: Inquire Cluster Queue Manager.

qmlite is never a member of a cluster (it has no cluster channels and no repository), so the answer
is always the one IBM gives a queue manager outside every cluster: DISPLAY CLUSQMGR finds nothing
(AMQ8147E, MQRC_UNKNOWN_OBJECT_NAME in PCF).  The request is still checked as IBM does, so a
malformed one gets its own reason; monitoring tools (IBM's mqmetric) send this command on every poll
and must get a prompt answer rather than MQRC_FUNCTION_NOT_SUPPORTED.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin.params import CommandError, p_int_list, p_str, parse
from qmlite.registry.admin.commands.queues import check_name, required

_FILTERS = (P.CFIF, P.CFSF, P.CFBF)
_INQUIRE_CLUSQMGR = (
    p_str(C.MQCA_CLUSTER_Q_MGR_NAME, C.MQ_Q_MGR_NAME_LENGTH),
    p_str(C.MQCACH_CHANNEL_NAME, C.MQ_CHANNEL_NAME_LENGTH),
    p_str(C.MQCA_CLUSTER_NAME, C.MQ_CLUSTER_NAME_LENGTH),
    p_int_list(C.MQIACF_CLUSTER_Q_MGR_ATTRS),
    p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH),
)


def inquire_cluster_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    filters = [item for item in request.parameters if isinstance(item, _FILTERS)]
    if len(filters) > 1:
        raise CommandError(C.MQRCCF_TOO_MANY_FILTERS, parameter=filters[1].parameter)
    # A filter narrows an empty answer: whatever attribute it names, nothing matches.
    rest = P.PCFMessage(request.header, [item for item in request.parameters if not isinstance(item, _FILTERS)])
    values = parse(rest, _INQUIRE_CLUSQMGR).values
    name = required(values, C.MQCA_CLUSTER_Q_MGR_NAME)
    check_name(name, C.MQCA_CLUSTER_Q_MGR_NAME, generic=True)  # type: ignore[arg-type]
    raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)  # in no cluster: no cluster queue manager to report


def register(engine) -> None:
    engine.register(C.MQCMD_INQUIRE_CLUSTER_Q_MGR, inquire_cluster_q_mgr)
