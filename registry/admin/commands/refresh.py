"""Refresh Queue Manager (MQCMD_REFRESH_Q_MGR; MQSC REFRESH QMGR).

TYPE(CONFIGEV) puts a Refresh Object configuration event for every object the selection names
(registry/monitoring/configevents.py); TYPE(PROXYSUB) is accepted with nothing to resynchronize (qmlite
has no publish/subscribe hierarchy or cluster).  EXPIRY and EARLY are z/OS only: MQRCCF_PARM_VALUE_ERROR
here, as on a distributed queue manager.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin import responses as R
from qmlite.registry.admin.params import CommandError, p_int, p_str, parse
from qmlite.registry.monitoring import configevents
from qmlite.registry.monitoring import events as E

MQRT_PROXYSUB = 4  # cmqcfc.h
# IBM's Refresh Queue Manager ObjectType values on Multiplatforms (MQOT_AUTH_REC and MQOT_CHLAUTH are
# accepted and select nothing: qmlite raises no configuration events for authority or CHLAUTH records).
_OBJECT_TYPES = (C.MQOT_ALL, C.MQOT_AUTH_INFO, C.MQOT_AUTH_REC, C.MQOT_CHANNEL, C.MQOT_CHLAUTH, C.MQOT_COMM_INFO,
                 C.MQOT_LISTENER, C.MQOT_NAMELIST, C.MQOT_PROCESS, C.MQOT_ALIAS_Q, C.MQOT_LOCAL_Q, C.MQOT_MODEL_Q,
                 C.MQOT_REMOTE_Q, C.MQOT_Q, C.MQOT_Q_MGR, C.MQOT_SERVICE, C.MQOT_TOPIC)
_PARAMS = (p_int(C.MQIACF_REFRESH_TYPE, E.MQRT_CONFIGURATION, MQRT_PROXYSUB),
           p_int(C.MQIACF_OBJECT_TYPE, *_OBJECT_TYPES),
           p_str(C.MQCACF_OBJECT_NAME, C.MQ_OBJECT_NAME_LENGTH),
           p_int(C.MQIACF_REFRESH_INTERVAL, low=0, high=999_999),
           p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH))


def refresh_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _PARAMS).values
    kind = values.get(C.MQIACF_REFRESH_TYPE)
    if kind is None:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQIACF_REFRESH_TYPE)
    if kind == E.MQRT_CONFIGURATION and ctx.qm is not None:
        requester = ctx.requester
        origin = E.Origin(requester.user, requester.origin, requester.md)
        configevents.refresh(ctx.qm.engine, origin, values.get(C.MQIACF_OBJECT_TYPE, C.MQOT_ALL),
                             (values.get(C.MQCACF_OBJECT_NAME) or "*").strip() or "*",
                             values.get(C.MQIACF_REFRESH_INTERVAL, 0))
    return R.ok(ctx.command)


def register(engine) -> None:
    engine.register(C.MQCMD_REFRESH_Q_MGR, refresh_q_mgr)
