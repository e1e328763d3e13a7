"""Inquire Pub/Sub Status (MQCMD_INQUIRE_PUBSUB_STATUS; MQSC DISPLAY PUBSUB).

qmlite is a queue manager in no publish/subscribe hierarchy and no publish/subscribe cluster, so it
answers as IBM answers for such a queue manager: one LOCAL entry (QMNAME, TYPE, STATUS, SUBCOUNT,
TPCOUNT) for TYPE(LOCAL) and TYPE(ALL), and no entry for TYPE(PARENT) or TYPE(CHILD) (nothing is
connected there).  STATUS follows the queue manager's PSMODE: ENABLED is ACTIVE, COMPAT is COMPAT (the
queued interface is not running), DISABLED is INACTIVE.  SUBCOUNT counts every subscription of the
local topic tree (administrative, API and proxy alike); TPCOUNT the nodes of that tree, as Inquire
Topic Status lists them (``topics.topic_tree``) plus the root node that SYSTEM.BASE.TOPIC holds.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, attr
from qmlite.registry.admin.commands.topics import topic_tree
from qmlite.registry.admin.params import INT, STR, p_int, p_int_list, p_str, parse

# cmqcfc.h MQPS_STATUS_* (the Status values of Inquire Pub/Sub Status; not in the generated constants).
MQPS_STATUS_INACTIVE, MQPS_STATUS_STARTING, MQPS_STATUS_STOPPING = 0, 1, 2
MQPS_STATUS_ACTIVE, MQPS_STATUS_COMPAT, MQPS_STATUS_ERROR, MQPS_STATUS_REFUSED = 3, 4, 5, 6
_STATUS_BY_MODE = {C.MQPSM_ENABLED: MQPS_STATUS_ACTIVE, C.MQPSM_COMPAT: MQPS_STATUS_COMPAT,
                   C.MQPSM_DISABLED: MQPS_STATUS_INACTIVE}


@dataclasses.dataclass(slots=True)
class PubSubView:
    qmgr: str
    status: int
    subs: int
    nodes: int


TABLE = AttrTable([
    attr(C.MQCA_Q_MGR_NAME, STR, lambda v: v.qmgr, pad=C.MQ_Q_MGR_NAME_LENGTH, always=True),
    attr(C.MQIACF_PS_STATUS_TYPE, INT, lambda v: C.MQPSST_LOCAL, always=True),
    attr(C.MQIACF_PUBSUB_STATUS, INT, lambda v: v.status, always=True),
    attr(C.MQIA_SUB_COUNT, INT, lambda v: v.subs),
    attr(C.MQIA_TOPIC_NODE_COUNT, INT, lambda v: v.nodes),
])

_INQUIRE = (
    p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH),  # z/OS only: accepted and ignored
    p_int(C.MQIACF_PS_STATUS_TYPE, C.MQPSST_ALL, C.MQPSST_LOCAL, C.MQPSST_PARENT, C.MQPSST_CHILD),
    p_int_list(C.MQIACF_PUBSUB_STATUS_ATTRS),
)


def inquire_pubsub_status(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE).values
    kind = values.get(C.MQIACF_PS_STATUS_TYPE, C.MQPSST_ALL)
    if kind not in (C.MQPSST_ALL, C.MQPSST_LOCAL):
        return R.ok(ctx.command)  # no parent, no children: nothing to report
    selected = TABLE.select(values.get(C.MQIACF_PUBSUB_STATUS_ATTRS))  # type: ignore[arg-type]
    reg = ctx.registry
    nodes, _subs_at = topic_tree(reg)
    view = PubSubView(reg.qmgr.name, _STATUS_BY_MODE.get(reg.qmgr.pubsub_mode, MQPS_STATUS_ACTIVE),
                      len(reg.subs), len(nodes) + 1)  # + the root node
    return R.data(ctx.command, [TABLE.render(view, selected)], none_found=C.MQRCCF_NONE_FOUND)


def register(engine) -> None:
    engine.register(C.MQCMD_INQUIRE_PUBSUB_STATUS, inquire_pubsub_status)
