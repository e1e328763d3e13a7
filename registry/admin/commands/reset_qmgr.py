"""Reset Queue Manager (RESET QMGR): TYPE(STATISTICS), MQACT_COLLECT_STATISTICS, ends the statistics
interval now -- the statistics collected so far are written to SYSTEM.ADMIN.STATISTICS.QUEUE and a
new interval starts (registry/monitoring/statistics.py).  The other actions act on a recovery log
or a publish/subscribe hierarchy, which qmlite has neither of: MQRCCF_ACTION_VALUE_ERROR.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin import responses as R
from qmlite.registry.admin.params import CommandError, p_int, p_str, parse
from qmlite.registry.admin.commands.queues import required

_RESET_Q_MGR = (
    p_int(C.MQIACF_ACTION),
    p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH),
    p_str(C.MQCA_CHILD, C.MQ_Q_MGR_NAME_LENGTH),  # ACTION(PUBSUB)'s: accepted, refused with the action
    p_str(C.MQCA_PARENT, C.MQ_Q_MGR_NAME_LENGTH),
)


def reset_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _RESET_Q_MGR).values
    action = required(values, C.MQIACF_ACTION)
    if action != C.MQACT_COLLECT_STATISTICS:
        raise CommandError(C.MQRCCF_ACTION_VALUE_ERROR, parameter=C.MQIACF_ACTION)
    qm = ctx.qm
    if qm is not None:  # an engine without a running queue manager (runmqsc on a data directory) has no interval
        qm.statistics.collect()
    return R.ok(ctx.command)


def register(engine) -> None:
    engine.register(C.MQCMD_RESET_Q_MGR, reset_q_mgr)
