"""Queue-manager commands: Inquire Q Mgr (the first command admin tools send), Ping Q Mgr, and
Change Q Mgr for the two attributes qmlite keeps (Description, DeadLetterQName).

Values are consistent with what MQINQ answers on the queue-manager object (fap.md section 17) and
with the FAP level we claim: Platform UNIX, CommandLevel 912, Version 09010200.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from .. import defaults
from .. import responses as R
from ..attributes import AttrTable, attr
from ..model import mq_date, mq_time
from ..params import INT, STR, p_int, p_int_list, p_str, parse
from .queues import check_name

NAME_LENGTH = C.MQ_Q_MGR_NAME_LENGTH  # 48
DESC_LENGTH = C.MQ_Q_MGR_DESC_LENGTH  # 64
VERSION = "09010200"  # MQ 9.1.2.0, matching CommandLevel 912 (MQ_VERSION_LENGTH 8)
MAX_PRIORITY = 9
SYNCPOINT_AVAILABLE = 1  # MQSP_AVAILABLE
MAX_UNCOMMITTED = 10_000  # MAXUMSGS default on Multiplatforms
TRIGGER_INTERVAL = 999_999_999
CPI_LEVEL = 100
INSTALLATION = "Installation1"


class _View:
    """The queue manager as Inquire sees it."""

    __slots__ = ("qmgr", "altered")

    def __init__(self, registry) -> None:
        self.qmgr = registry.qmgr
        self.altered = self.qmgr.altered


TABLE = AttrTable([
    attr(C.MQCA_Q_MGR_NAME, STR, lambda v: v.qmgr.name, pad=NAME_LENGTH, always=True),
    attr(C.MQCA_Q_MGR_DESC, STR, lambda v: v.qmgr.description, pad=DESC_LENGTH),
    attr(C.MQIA_PLATFORM, INT, lambda v: v.qmgr.platform),
    attr(C.MQIA_COMMAND_LEVEL, INT, lambda v: v.qmgr.command_level),
    attr(C.MQIA_CODED_CHAR_SET_ID, INT, lambda v: v.qmgr.ccsid),
    attr(C.MQCA_DEAD_LETTER_Q_NAME, STR, lambda v: v.qmgr.dead_letter_queue, pad=48),
    attr(C.MQCA_COMMAND_INPUT_Q_NAME, STR, lambda v: defaults.COMMAND_QUEUE, pad=48),
    attr(C.MQCA_Q_MGR_IDENTIFIER, STR, lambda v: v.qmgr.identifier, pad=C.MQ_Q_MGR_IDENTIFIER_LENGTH),
    attr(C.MQIA_MAX_HANDLES, INT, lambda v: v.qmgr.max_handles),
    attr(C.MQIA_MAX_MSG_LENGTH, INT, lambda v: v.qmgr.max_msg_length),
    attr(C.MQIA_MAX_PRIORITY, INT, lambda v: MAX_PRIORITY),
    attr(C.MQIA_SYNCPOINT, INT, lambda v: SYNCPOINT_AVAILABLE),
    attr(C.MQIA_PUBSUB_MODE, INT, lambda v: v.qmgr.pubsub_mode),
    attr(C.MQIA_DIST_LISTS, INT, lambda v: C.MQDL_SUPPORTED),
    attr(C.MQIA_MAX_UNCOMMITTED_MSGS, INT, lambda v: MAX_UNCOMMITTED),
    attr(C.MQIA_TRIGGER_INTERVAL, INT, lambda v: TRIGGER_INTERVAL),
    attr(C.MQIA_CPI_LEVEL, INT, lambda v: CPI_LEVEL),
    attr(C.MQIA_MAX_PROPERTIES_LENGTH, INT, lambda v: C.MQPROP_UNRESTRICTED_LENGTH),
    attr(C.MQCA_DEF_XMIT_Q_NAME, STR, lambda v: "", pad=48),
    attr(C.MQCA_INSTALLATION_NAME, STR, lambda v: INSTALLATION),
    attr(C.MQCA_VERSION, STR, lambda v: VERSION, pad=C.MQ_VERSION_LENGTH),
    attr(C.MQCA_CREATION_DATE, STR, lambda v: mq_date(v.qmgr.created), pad=12),
    attr(C.MQCA_CREATION_TIME, STR, lambda v: mq_time(v.qmgr.created), pad=8),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda v: mq_date(v.altered), pad=12),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda v: mq_time(v.altered), pad=8),
])

_INQUIRE = (p_int_list(C.MQIACF_Q_MGR_ATTRS),)
_CHANGE = (p_str(C.MQCA_Q_MGR_DESC, DESC_LENGTH), p_str(C.MQCA_DEAD_LETTER_Q_NAME, NAME_LENGTH),
           p_int(C.MQIACF_FORCE, 1, 0))


def inquire_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE).values
    selected = TABLE.select(values.get(C.MQIACF_Q_MGR_ATTRS))  # type: ignore[arg-type]
    return R.data(ctx.command, [TABLE.render(_View(ctx.registry), selected)],
                  none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def ping_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parse(request, ())
    return R.ok(ctx.command)


def change_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CHANGE).values
    dlq = values.get(C.MQCA_DEAD_LETTER_Q_NAME)
    if dlq:  # blank means "no dead-letter queue"; the queue need not exist (as ALTER QMGR DEADQ)
        check_name(dlq, C.MQCA_DEAD_LETTER_Q_NAME)  # type: ignore[arg-type]
    reg = ctx.registry
    qmgr, store = reg.qmgr, reg.store
    if C.MQCA_Q_MGR_DESC in values:
        qmgr.description = values[C.MQCA_Q_MGR_DESC]  # type: ignore[assignment]
        store.set_meta("description", qmgr.description)
    if dlq is not None:
        qmgr.dead_letter_queue = dlq  # type: ignore[assignment]
        store.set_meta("dead_letter_queue", dlq)
    qmgr.altered = reg.now()
    store.set_meta("altered", qmgr.altered)
    return R.ok(ctx.command)


def register(engine) -> None:
    engine.register(C.MQCMD_INQUIRE_Q_MGR, inquire_q_mgr)
    engine.register(C.MQCMD_PING_Q_MGR, ping_q_mgr)
    engine.register(C.MQCMD_CHANGE_Q_MGR, change_q_mgr)
