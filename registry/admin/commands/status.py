"""Status commands with live data: Inquire Queue Status, Inquire Connection, Stop Connection, Inquire
Queue Manager Status and Reset Queue Statistics (docs/compat.md Part 5).

Everything reported comes from the domain: the sessions (connections) and their open handles kept
by the QueueManager, and each local queue's live counters in registry/messaging/queues.py (open counts,
uncommitted puts, last put and get, the Reset Queue Statistics counters, on-queue times).  The
engine passes the QueueManager in ``ctx.qm``; an engine running without one (engine tests on a bare
Registry) sees no connections.

Stop Connection only marks the session (``Session.stopped``): the server ends the connection when it
next looks, as the domain has no sockets.
"""

from __future__ import annotations

import dataclasses
import os

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import defaults
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import Attr, AttrTable, attr, with_filter
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.admin.params import (BYTES, INT, INT_LIST, STR, CommandError, filter_matches, p_bytes, p_int,
                      p_int_list, p_str, parse, pick)
from qmlite.registry.admin.commands.queues import Q_NAME_LENGTH, check_name, required

# Values IBM defines (cmqcfc.h) that the generated constants module does not carry.
MQAS_NONE = 0
MQHSTATE_INACTIVE, MQHSTATE_ACTIVE = 0, 1
MQQSOT_ALL, MQQSOT_INPUT, MQQSOT_OUTPUT = 1, 2, 3
MQQSO_NO, MQQSO_YES, MQQSO_SHARED, MQQSO_EXCLUSIVE = 0, 1, 1, 2
MQUOWST_NONE, MQUOWST_ACTIVE = 0, 1
MQUOWT_Q_MGR = 0
MQLDAPC_INACTIVE = 0
MQMON_NOT_AVAILABLE = -1
MAX_MONITOR_VALUE = 999_999_999  # IBM: a larger age or time is reported as 999 999 999
# Every queue type IBM names (cmqc.h MQQT_*): QType is accepted with any of them (docs/decisions.md N2).
_Q_TYPES = (C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS, C.MQQT_REMOTE, C.MQQT_CLUSTER, C.MQQT_ALL)

PID = os.getpid()  # a client's handles are held by the server process, as by IBM's channel agent
COMMAND_SERVER_TAG = "amqpcsea"  # the tag IBM's command server shows in Display QStatus / Conn
_INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
_KIND_TYPES = {"qmgr": C.MQOT_Q_MGR, "queue": C.MQOT_Q, "topic": C.MQOT_TOPIC, "namelist": C.MQOT_NAMELIST,
               "process": C.MQOT_PROCESS, "sub": C.MQOT_TOPIC}  # a subscription: its topic


def _sessions(ctx) -> list:
    qm = ctx.qm
    return [s for s in qm.sessions.values() if s.connected] if qm is not None else []


def _date(epoch: float) -> str:
    return mq_date(epoch) if epoch else ""


def _time(epoch: float) -> str:
    return mq_time(epoch) if epoch else ""


def _selected(table: AttrTable, requested, flt) -> tuple[Attr, ...]:
    return with_filter(table, table.select(requested), flt)


# ---- the views the tables read ---------------------------------------------------------------------
@dataclasses.dataclass(slots=True)
class HandleView:
    """One open handle as Inquire Queue Status (HANDLE) and Inquire Connection (HANDLE) report it."""

    session: object  # a Session, or None for the command server's own handle
    handle: object  # a Handle, or None for the command server's own handle
    queue: str = ""  # the local queue the handle reaches (Queue Status)
    sub: object = None  # for a subscription handle (Inquire Connection): its Subscription

    @property
    def options(self) -> int:
        if self.handle is None:  # the command server: its queue open for shared input
            return C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING
        return self.handle.options

    def tag(self) -> str:
        return self.session.appl_name if self.session is not None else COMMAND_SERVER_TAG

    def appl_type(self) -> int:
        if self.session is None:
            return C.MQAT_QMGR
        return C.MQAT_USER  # IBM reports a client's application as USER, whatever ApplType its MQCONN sent

    def channel(self) -> str:
        return self.session.channel if self.session is not None else ""

    def conname(self) -> str:
        return self.session.conname if self.session is not None else ""

    def user(self) -> str:
        return self.session.user if self.session is not None else "mqm"

    def thread(self) -> int:
        # One conversation, one thread of the server process: a stable number per connection.
        return _thread_id(self.session)

    def object_name(self) -> str:
        h = self.handle
        if h is None:
            return defaults.COMMAND_QUEUE
        if h.kind == "queue":
            return h.queue_name or h.name
        if h.kind == "topic":
            return h.object_name
        if h.kind == "sub":
            return ""
        return h.object_name or h.name

    def object_type(self) -> int:
        return C.MQOT_Q if self.handle is None else _KIND_TYPES.get(self.handle.kind, C.MQOT_Q)

    def topic(self) -> str:
        h = self.handle
        if h is None:
            return ""
        if h.kind == "topic":
            return h.name
        if h.kind == "sub" and self.sub is not None:
            return self.sub.resolved_topic
        return ""

    def sub_id(self) -> bytes:
        return self.handle.sub_id if self.handle is not None and self.handle.kind == "sub" else bytes(24)

    def sub_name(self) -> str:
        return self.sub.name if self.sub is not None else ""

    def uow_type(self) -> int:
        return MQUOWT_Q_MGR


def _thread_id(session) -> int:
    if session is None:
        return 1
    return int.from_bytes(session.connection_id[-4:], "big") & 0x7FFFFFFF


def _input_type(v: HandleView) -> int:
    o = v.options
    if o & C.MQOO_INPUT_EXCLUSIVE:
        return MQQSO_EXCLUSIVE
    if o & C.MQOO_INPUT_SHARED:
        return MQQSO_SHARED
    if o & C.MQOO_INPUT_AS_Q_DEF:
        return MQQSO_SHARED
    return MQQSO_NO


def _yes(bit: int):
    return lambda v: MQQSO_YES if v.options & bit else MQQSO_NO


_APPL_TAG = C.MQ_APPL_TAG_LENGTH
HANDLE_TABLE = AttrTable([
    attr(C.MQCA_Q_NAME, STR, lambda v: v.queue, pad=Q_NAME_LENGTH, always=True),
    attr(C.MQIACF_Q_STATUS_TYPE, INT, lambda v: C.MQIACF_Q_HANDLE, always=True),  # IBM: always returned
    attr(C.MQCACF_APPL_DESC, STR, lambda v: "", pad=C.MQ_APPL_DESC_LENGTH),
    attr(C.MQCACF_APPL_TAG, STR, lambda v: v.tag(), pad=_APPL_TAG),
    attr(C.MQIA_APPL_TYPE, INT, lambda v: v.appl_type()),
    attr(C.MQIACF_ASYNC_STATE, INT, lambda v: MQAS_NONE),
    attr(C.MQCACH_CHANNEL_NAME, STR, lambda v: v.channel(), pad=C.MQ_CHANNEL_NAME_LENGTH),
    attr(C.MQCACH_CONNECTION_NAME, STR, lambda v: v.conname(), pad=C.MQ_CONN_NAME_LENGTH),
    attr(C.MQBACF_EXTERNAL_UOW_ID, BYTES, lambda v: bytes(C.MQ_UOW_ID_LENGTH)),
    attr(C.MQIACF_HANDLE_STATE, INT, lambda v: MQHSTATE_ACTIVE if v.handle is None else MQHSTATE_INACTIVE),
    attr(C.MQIACF_OPEN_BROWSE, INT, _yes(C.MQOO_BROWSE)),
    attr(C.MQIACF_OPEN_INPUT_TYPE, INT, _input_type),
    attr(C.MQIACF_OPEN_INQUIRE, INT, _yes(C.MQOO_INQUIRE)),
    attr(C.MQIACF_OPEN_OPTIONS, INT, lambda v: v.options),
    attr(C.MQIACF_OPEN_OUTPUT, INT, _yes(C.MQOO_OUTPUT)),
    attr(C.MQIACF_OPEN_SET, INT, _yes(C.MQOO_SET)),
    attr(C.MQIACF_PROCESS_ID, INT, lambda v: PID),
    attr(C.MQBACF_Q_MGR_UOW_ID, BYTES, lambda v: bytes(8)),
    attr(C.MQIACF_THREAD_ID, INT, lambda v: v.thread()),
    attr(C.MQIACF_UOW_TYPE, INT, lambda v: v.uow_type()),
    attr(C.MQCACF_USER_IDENTIFIER, STR, lambda v: v.user(), pad=C.MQ_USER_ID_LENGTH),
])


@dataclasses.dataclass(slots=True)
class QueueStatusView:
    """A local queue's live status (Inquire Queue Status, StatusType QUEUE).

    ``monitoring`` is the queue's effective MONQ level (its own, or the queue manager's for
    MONQ(QMGR)).  IBM collects the monitoring values -- OldestMsgAge, OnQTime, LastGet/LastPut date
    and time -- only while it is not OFF; otherwise they are "not available": MQMON_NOT_AVAILABLE for
    the numbers, blanks for the dates and times (docs/decisions.md N1).
    """

    name: str
    contents: object  # QueueContents or None (nothing ever put or opened)
    uncommitted: int
    monitoring: int
    now: float

    @property
    def monitored(self) -> bool:
        return self.monitoring != C.MQMON_OFF

    def count(self, field: str, default=0):
        c = self.contents
        return getattr(c, field) if c is not None else default

    def depth(self) -> int:
        c = self.contents
        return len(c) + c.uncommitted if c is not None else 0

    def stamp(self, field: str, fmt) -> str:
        """LastGet/LastPut date or time: blank before the first one, and while MONQ is OFF."""
        at = self.count(field, 0.0)
        return fmt(at) if at and self.monitored else ""

    def oldest_age(self) -> int:
        if not self.monitored:
            return MQMON_NOT_AVAILABLE
        c = self.contents
        if c is None or not len(c):
            return 0  # IBM: an empty queue's oldest message is 0 seconds old
        return min(MAX_MONITOR_VALUE, max(0, int(self.now - min(m.put_time for m in c))))

    def on_q_time(self) -> tuple[int, int]:
        """OnQTime (QTIME): short- and long-period averages of the time gotten messages spent on the
        queue, in microseconds; "not available" until a message has been got (and while MONQ is OFF)."""
        short, long_ = self.count("on_q_short", -1.0), self.count("on_q_long", -1.0)
        if not self.monitored or short < 0:
            return (MQMON_NOT_AVAILABLE, MQMON_NOT_AVAILABLE)
        return (min(MAX_MONITOR_VALUE, int(short * 1_000_000)), min(MAX_MONITOR_VALUE, int(long_ * 1_000_000)))


QUEUE_TABLE = AttrTable([
    attr(C.MQCA_Q_NAME, STR, lambda v: v.name, pad=Q_NAME_LENGTH, always=True),
    attr(C.MQIACF_Q_STATUS_TYPE, INT, lambda v: C.MQIACF_Q_STATUS, always=True),  # IBM: always returned
    attr(C.MQIA_CURRENT_Q_DEPTH, INT, lambda v: v.depth()),
    attr(C.MQCACF_LAST_GET_DATE, STR, lambda v: v.stamp("last_get", mq_date), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCACF_LAST_GET_TIME, STR, lambda v: v.stamp("last_get", mq_time), pad=C.MQ_TIME_LENGTH),
    attr(C.MQCACF_LAST_PUT_DATE, STR, lambda v: v.stamp("last_put", mq_date), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCACF_LAST_PUT_TIME, STR, lambda v: v.stamp("last_put", mq_time), pad=C.MQ_TIME_LENGTH),
    # Linear logging only; qmlite's journal is circular in IBM's terms: blank, as IBM reports it then.
    attr(C.MQCACF_MEDIA_LOG_EXTENT_NAME, STR, lambda v: "", pad=C.MQ_LOG_EXTENT_NAME_LENGTH),
    attr(C.MQIA_MONITORING_Q, INT, lambda v: v.monitoring),
    attr(C.MQIACF_OLDEST_MSG_AGE, INT, lambda v: v.oldest_age()),
    attr(C.MQIACF_Q_TIME_INDICATOR, INT_LIST, lambda v: v.on_q_time()),
    attr(C.MQIA_OPEN_INPUT_COUNT, INT, lambda v: v.count("open_input")),
    attr(C.MQIA_OPEN_OUTPUT_COUNT, INT, lambda v: v.count("open_output")),
    attr(C.MQIACF_UNCOMMITTED_MSGS, INT, lambda v: v.uncommitted),
    # MQ 9.2 and later on Multiplatforms: the queue file's size and its current maximum, in MB.
    attr(C.MQIACF_CUR_Q_FILE_SIZE, INT, lambda v: 0),
    attr(C.MQIACF_CUR_MAX_FILE_SIZE, INT, lambda v: 2_088_960),
])
# QStatusAttrs MQIACF_MONITORING (MQSC DISPLAY QSTATUS MONITOR): the values MONQ governs.
MONITOR_ATTRS = (C.MQCACF_LAST_GET_DATE, C.MQCACF_LAST_GET_TIME, C.MQCACF_LAST_PUT_DATE, C.MQCACF_LAST_PUT_TIME,
                 C.MQIA_MONITORING_Q, C.MQIACF_OLDEST_MSG_AGE, C.MQIACF_Q_TIME_INDICATOR)

_P_QNAME = p_str(C.MQCA_Q_NAME, Q_NAME_LENGTH)
_INQUIRE_Q_STATUS = (
    _P_QNAME,
    p_int(C.MQIACF_Q_STATUS_TYPE, C.MQIACF_Q_STATUS, C.MQIACF_Q_HANDLE),
    p_int(C.MQIACF_OPEN_TYPE, MQQSOT_ALL, MQQSOT_INPUT, MQQSOT_OUTPUT),
    p_int_list(C.MQIACF_Q_STATUS_ATTRS),
    p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH),  # z/OS only; accepted and ignored
    # Not in IBM's list for this command, but sent by monitoring agents that work against IBM MQ
    # (Datadog's ibm_mq check: MQQT_ALL, earlier MQQT_MODEL): accepted and ignored, as only local
    # queues have status (docs/decisions.md N2).
    p_int(C.MQIA_Q_TYPE, *_Q_TYPES),
)


def monitoring_level(reg, queue) -> int:
    """A queue's effective MONQ: its own level, the queue manager's for MONQ(QMGR); the queue
    manager's MONQ(NONE) turns it off whatever the queue says (IBM's MONQ rule)."""
    qmgr_level = reg.qmgr.monitoring_q
    level = getattr(queue, "monitoring_q", C.MQMON_Q_MGR)
    if qmgr_level == C.MQMON_NONE:
        return C.MQMON_OFF
    if level == C.MQMON_Q_MGR:
        level = qmgr_level
    return C.MQMON_OFF if level in (C.MQMON_NONE, C.MQMON_Q_MGR) else level


def _queue_handles(ctx) -> dict[str, list[HandleView]]:
    """Every open queue handle, by the local queue it reaches; the command server's first."""
    out: dict[str, list[HandleView]] = {defaults.COMMAND_QUEUE: [HandleView(None, None, defaults.COMMAND_QUEUE)]}
    for session in _sessions(ctx):
        for handle in session.handles.values():
            if handle.kind == "queue":
                out.setdefault(handle.name, []).append(HandleView(session, handle, handle.name))
    return out


def _pending_gets(ctx) -> dict[str, int]:
    """Destructive gets under syncpoint not yet committed, per queue (UncommittedMsgs counts them)."""
    out: dict[str, int] = {}
    for session in _sessions(ctx):
        for got in session.uow.gets:
            out[got.queue] = out.get(got.queue, 0) + 1
    return out


def _open_type_matches(open_type: int, options: int) -> bool:
    if open_type == MQQSOT_INPUT:
        return bool(options & _INPUT)
    if open_type == MQQSOT_OUTPUT:
        return bool(options & C.MQOO_OUTPUT)
    return True


def inquire_q_status(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    status_type = _status_type(request)
    table = HANDLE_TABLE if status_type == C.MQIACF_Q_HANDLE else QUEUE_TABLE
    parsed = parse(request, _INQUIRE_Q_STATUS, filters=table.filter_kinds())
    values, flt = parsed.values, parsed.filter
    pattern = required(values, C.MQCA_Q_NAME)
    check_name(pattern, C.MQCA_Q_NAME, generic=True)  # type: ignore[arg-type]
    open_type = values.get(C.MQIACF_OPEN_TYPE, MQQSOT_ALL)
    requested = values.get(C.MQIACF_Q_STATUS_ATTRS)
    if requested is not None and C.MQIACF_MONITORING in requested and status_type == C.MQIACF_Q_STATUS:
        requested = (*requested, *MONITOR_ATTRS)  # type: ignore[misc]
    selected = _selected(table, requested, flt)
    reg = ctx.registry
    matched = pick(reg.queues, pattern)  # type: ignore[arg-type]
    local = [q for q in matched if q.qtype == C.MQQT_LOCAL]
    if matched and not local and not pattern.endswith("*"):  # type: ignore[union-attr]
        raise CommandError(C.MQRCCF_Q_WRONG_TYPE, parameter=C.MQCA_Q_NAME)
    handles = _queue_handles(ctx)
    objects = []
    if status_type == C.MQIACF_Q_HANDLE:
        for queue in local:
            for view in handles.get(queue.name, ()):
                if not _open_type_matches(open_type, view.options):  # type: ignore[arg-type]
                    continue
                if flt is not None and not filter_matches(flt, table.value(view, flt.parameter)):
                    continue
                objects.append(table.render(view, selected))
    else:
        pending = _pending_gets(ctx)
        now = reg.clock()
        for queue in local:
            contents = reg.messages.peek(queue.name)
            if open_type != MQQSOT_ALL and not any(
                    _open_type_matches(open_type, v.options)
                    for v in handles.get(queue.name, ())):  # type: ignore[arg-type]
                continue
            uncommitted = (contents.uncommitted if contents is not None else 0) + pending.get(queue.name, 0)
            view = QueueStatusView(queue.name, contents, uncommitted, monitoring_level(reg, queue), now)
            if flt is not None and not filter_matches(flt, table.value(view, flt.parameter)):
                continue
            objects.append(table.render(view, selected))
    return R.data(ctx.command, objects, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def _status_type(request: P.PCFMessage) -> int:
    """StatusType decides which table the selectors and the filter belong to: read it first."""
    for item in request.parameters:
        if item.parameter == C.MQIACF_Q_STATUS_TYPE and isinstance(item, P.CFIN):
            return item.value
    return C.MQIACF_Q_STATUS


# ---- Inquire Connection / Stop Connection ------------------------------------------------------------
@dataclasses.dataclass(slots=True)
class ConnView:
    session: object
    now: float

    def uow_state(self) -> int:
        return MQUOWST_ACTIVE if self.session.uow else MQUOWST_NONE

    def uow_start(self) -> float:
        return self.session.uow_started if self.session.uow else 0.0


def _connect_options(v: ConnView) -> tuple[int, ...]:
    # A client connection through a server-connection channel: what IBM lists for one (CONNOPTS
    # MQCNO_HANDLE_SHARE_BLOCK, MQCNO_SHARED_BINDING).
    return (C.MQCNO_HANDLE_SHARE_BLOCK, C.MQCNO_SHARED_BINDING)


CONN_TABLE = AttrTable([
    attr(C.MQBACF_CONNECTION_ID, BYTES, lambda v: v.session.connection_id, always=True),
    attr(C.MQCACF_APPL_DESC, STR, lambda v: "", pad=C.MQ_APPL_DESC_LENGTH),
    attr(C.MQCACF_APPL_TAG, STR, lambda v: v.session.appl_name, pad=_APPL_TAG),
    # USER as for Queue Status handles, whatever ApplType a client's MQCONN sent; the queue manager's own
    # processes (channel agents, the cluster repository manager: they connect as MQAT_QMGR) as QMGR
    attr(C.MQIA_APPL_TYPE, INT, lambda v: C.MQAT_QMGR if v.session.appl_type == C.MQAT_QMGR else C.MQAT_USER),
    attr(C.MQIACF_ASYNC_STATE, INT, lambda v: MQAS_NONE),
    attr(C.MQCACH_CHANNEL_NAME, STR, lambda v: v.session.channel, pad=C.MQ_CHANNEL_NAME_LENGTH),
    attr(C.MQCACH_CONNECTION_NAME, STR, lambda v: v.session.conname, pad=C.MQ_CONN_NAME_LENGTH),
    attr(C.MQIACF_CONNECT_OPTIONS, INT_LIST, _connect_options),
    attr(C.MQCACF_ORIGIN_NAME, STR, lambda v: "", pad=C.MQ_ORIGIN_NAME_LENGTH),
    attr(C.MQBACF_ORIGIN_UOW_ID, BYTES, lambda v: bytes(C.MQ_UOW_ID_LENGTH)),
    attr(C.MQIACF_PROCESS_ID, INT, lambda v: PID),
    attr(C.MQBACF_Q_MGR_UOW_ID, BYTES, lambda v: bytes(8)),
    attr(C.MQCACF_UOW_LOG_EXTENT_NAME, STR, lambda v: "", pad=C.MQ_LOG_EXTENT_NAME_LENGTH),
    attr(C.MQIACF_THREAD_ID, INT, lambda v: _thread_id(v.session)),
    attr(C.MQCACF_UOW_LOG_START_DATE, STR, lambda v: _date(v.uow_start()), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCACF_UOW_LOG_START_TIME, STR, lambda v: _time(v.uow_start()), pad=C.MQ_TIME_LENGTH),
    attr(C.MQCACF_UOW_START_DATE, STR, lambda v: _date(v.uow_start()), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCACF_UOW_START_TIME, STR, lambda v: _time(v.uow_start()), pad=C.MQ_TIME_LENGTH),
    attr(C.MQIACF_UOW_STATE, INT, lambda v: v.uow_state()),
    attr(C.MQIACF_UOW_TYPE, INT, lambda v: MQUOWT_Q_MGR),
    attr(C.MQCACF_USER_IDENTIFIER, STR, lambda v: v.session.user, pad=C.MQ_USER_ID_LENGTH),
])

CONN_HANDLE_TABLE = AttrTable([
    attr(C.MQBACF_CONNECTION_ID, BYTES, lambda v: v.session.connection_id, always=True),
    attr(C.MQCACF_OBJECT_NAME, STR, lambda v: v.object_name(), pad=C.MQ_OBJECT_NAME_LENGTH),
    attr(C.MQIACF_OBJECT_TYPE, INT, lambda v: v.object_type()),
    attr(C.MQIACF_ASYNC_STATE, INT, lambda v: MQAS_NONE),
    attr(C.MQIACF_HANDLE_STATE, INT, lambda v: MQHSTATE_INACTIVE),
    attr(C.MQIACF_OPEN_OPTIONS, INT, lambda v: v.options),
    attr(C.MQCA_TOPIC_STRING, STR, lambda v: v.topic()),
    # A subscription handle (MQSUB): the subscription it holds; blank / zeros for other handles.
    attr(C.MQCACF_SUB_NAME, STR, lambda v: v.sub_name()),
    attr(C.MQBACF_SUB_ID, BYTES, lambda v: v.sub_id()),
])

_INQUIRE_CONN = (
    p_bytes(C.MQBACF_CONNECTION_ID, C.MQ_CONNECTION_ID_LENGTH, exact=True),
    p_bytes(C.MQBACF_GENERIC_CONNECTION_ID, C.MQ_CONNECTION_ID_LENGTH),
    p_int(C.MQIACF_CONN_INFO_TYPE, C.MQIACF_CONN_INFO_CONN, C.MQIACF_CONN_INFO_HANDLE, C.MQIACF_CONN_INFO_ALL),
    p_int_list(C.MQIACF_CONNECTION_ATTRS),
    p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH),
)
_STOP_CONN = (p_bytes(C.MQBACF_CONNECTION_ID, C.MQ_CONNECTION_ID_LENGTH, exact=True),)


def _conn_info_type(request: P.PCFMessage) -> int:
    for item in request.parameters:
        if item.parameter == C.MQIACF_CONN_INFO_TYPE and isinstance(item, P.CFIN):
            return item.value
    return C.MQIACF_CONN_INFO_CONN


def _combined_filter_kinds() -> dict[int, str]:
    kinds = dict(CONN_HANDLE_TABLE.filter_kinds())
    kinds.update(CONN_TABLE.filter_kinds())
    return kinds


_CONN_FILTERS = _combined_filter_kinds()


def inquire_connection(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    info = _conn_info_type(request)
    filters = {C.MQIACF_CONN_INFO_CONN: CONN_TABLE.filter_kinds(),
               C.MQIACF_CONN_INFO_HANDLE: CONN_HANDLE_TABLE.filter_kinds()}.get(info, _CONN_FILTERS)
    parsed = parse(request, _INQUIRE_CONN, filters=filters)
    values, flt = parsed.values, parsed.filter
    exact = values.get(C.MQBACF_CONNECTION_ID)
    generic = values.get(C.MQBACF_GENERIC_CONNECTION_ID)
    if exact is not None and generic is not None:
        raise CommandError(C.MQRCCF_PARM_CONFLICT, parameter=C.MQBACF_GENERIC_CONNECTION_ID)
    if exact is None and generic is None:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQBACF_CONNECTION_ID)
    sessions = sorted(_sessions(ctx), key=lambda s: s.connection_id)
    if exact is not None:
        sessions = [s for s in sessions if s.connection_id == exact]
        if not sessions:
            raise CommandError(C.MQRCCF_CONNECTION_ID_ERROR, parameter=C.MQBACF_CONNECTION_ID)
    else:
        # A generic id matches every connection whose id starts with it; zero length: all of them.
        sessions = [s for s in sessions
                    if s.connection_id.startswith(generic.rstrip(b"\x00"))]  # type: ignore[union-attr]
    requested = values.get(C.MQIACF_CONNECTION_ATTRS)
    # A filter tests connections when it names a connection attribute (and connections are asked
    # for); otherwise the handles, when it names a handle attribute.
    conn_filter = flt if flt is not None and info != C.MQIACF_CONN_INFO_HANDLE and flt.parameter in CONN_TABLE.by_id \
        else None
    handle_filter = flt if flt is not None and conn_filter is None and flt.parameter in CONN_HANDLE_TABLE.by_id \
        else None
    conn_attrs = _selected(CONN_TABLE, requested, conn_filter)
    handle_attrs = _selected(CONN_HANDLE_TABLE, requested, handle_filter)
    now = ctx.registry.clock()
    objects = []
    for session in sessions:
        view = ConnView(session, now)
        if conn_filter is not None and not filter_matches(conn_filter, CONN_TABLE.value(view, conn_filter.parameter)):
            continue
        if info in (C.MQIACF_CONN_INFO_CONN, C.MQIACF_CONN_INFO_ALL):
            objects.append(CONN_TABLE.render(view, conn_attrs))
        if info in (C.MQIACF_CONN_INFO_HANDLE, C.MQIACF_CONN_INFO_ALL):
            for handle in session.handles.values():
                sub = ctx.registry.subs_by_id.get(handle.sub_id) if handle.kind == "sub" else None
                hv = HandleView(session, handle, sub=sub)
                if handle_filter is not None and not filter_matches(
                        handle_filter, CONN_HANDLE_TABLE.value(hv, handle_filter.parameter)):
                    continue
                objects.append(CONN_HANDLE_TABLE.render(hv, handle_attrs))
    return R.data(ctx.command, objects, none_found=C.MQRCCF_NONE_FOUND)


def stop_connection(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _STOP_CONN).values
    conn_id = values.get(C.MQBACF_CONNECTION_ID)
    if conn_id is None:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQBACF_CONNECTION_ID)
    session = next((s for s in _sessions(ctx) if s.connection_id == conn_id), None)
    if session is None:
        raise CommandError(C.MQRCCF_CONNECTION_ID_ERROR, parameter=C.MQBACF_CONNECTION_ID)
    session.stopped = True  # the server ends it (server/mqi.py); the domain keeps no sockets
    # A GET waiting on one of its queues must notice now, not when a message comes: wake the waiters;
    # and a reply a fault rule delays is released now.
    for handle in session.handles.values():
        if handle.kind == "queue":
            ctx.qm.on_available(handle.name)
    ctx.qm.on_stopped(session)
    return R.ok(ctx.command)


# ---- Inquire Queue Manager Status ---------------------------------------------------------------------
@dataclasses.dataclass(slots=True)
class QMgrStatusView:
    name: str
    started: float
    connections: int
    log_path: str


QMGR_STATUS_TABLE = AttrTable([
    attr(C.MQCA_Q_MGR_NAME, STR, lambda v: v.name, pad=C.MQ_Q_MGR_NAME_LENGTH, always=True),
    attr(C.MQIACF_Q_MGR_STATUS, INT, lambda v: C.MQQMSTA_RUNNING),
    attr(C.MQCACF_Q_MGR_START_DATE, STR, lambda v: _date(v.started), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCACF_Q_MGR_START_TIME, STR, lambda v: _time(v.started), pad=C.MQ_TIME_LENGTH),
    attr(C.MQIACF_CONNECTION_COUNT, INT, lambda v: v.connections),
    attr(C.MQIACF_CHINIT_STATUS, INT, lambda v: C.MQSVC_STATUS_RUNNING),
    attr(C.MQIACF_CMD_SERVER_STATUS, INT, lambda v: C.MQSVC_STATUS_RUNNING),
    attr(C.MQCACF_CURRENT_LOG_EXTENT_NAME, STR, lambda v: "", pad=C.MQ_LOG_EXTENT_NAME_LENGTH),
    attr(C.MQCACF_LOG_PATH, STR, lambda v: v.log_path, pad=C.MQ_LOG_PATH_LENGTH),
    attr(C.MQCACF_MEDIA_LOG_EXTENT_NAME, STR, lambda v: "", pad=C.MQ_LOG_EXTENT_NAME_LENGTH),
    attr(C.MQCACF_RESTART_LOG_EXTENT_NAME, STR, lambda v: "", pad=C.MQ_LOG_EXTENT_NAME_LENGTH),
    attr(C.MQCA_INSTALLATION_DESC, STR, lambda v: "", pad=C.MQ_INSTALLATION_DESC_LENGTH),
    attr(C.MQCA_INSTALLATION_NAME, STR, lambda v: "Installation1", pad=C.MQ_INSTALLATION_NAME_LENGTH),
    attr(C.MQCA_INSTALLATION_PATH, STR, lambda v: "/opt/mqm", pad=C.MQ_INSTALLATION_PATH_LENGTH),
    attr(C.MQIACF_LDAP_CONNECTION_STATUS, INT, lambda v: MQLDAPC_INACTIVE),
    attr(C.MQIACF_PERMIT_STANDBY, INT, lambda v: 0),  # MQSTDBY_NOT_PERMITTED: no multi-instance here
    attr(C.MQIACF_ARCHIVE_LOG_SIZE, INT, lambda v: 0),
    attr(C.MQIACF_MEDIA_LOG_SIZE, INT, lambda v: 0),
    attr(C.MQIACF_RESTART_LOG_SIZE, INT, lambda v: 0),
    attr(C.MQIACF_REUSABLE_LOG_SIZE, INT, lambda v: 0),
    attr(C.MQIACF_LOG_IN_USE, INT, lambda v: 0),
    attr(C.MQIACF_LOG_UTILIZATION, INT, lambda v: 0),
])
_INQUIRE_QMGR_STATUS = (p_int_list(C.MQIACF_Q_MGR_STATUS_ATTRS),)


def inquire_q_mgr_status(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE_QMGR_STATUS).values
    selected = QMGR_STATUS_TABLE.select(values.get(C.MQIACF_Q_MGR_STATUS_ATTRS))  # type: ignore[arg-type]
    reg = ctx.registry
    qm = ctx.qm
    started = qm.started if qm is not None else reg.qmgr.created
    data_dir = getattr(reg.store, "path", None)
    log_path = str(data_dir.parent if hasattr(data_dir, "parent") else data_dir or "")
    view = QMgrStatusView(reg.qmgr.name, started, len(_sessions(ctx)), log_path)
    return R.data(ctx.command, [QMGR_STATUS_TABLE.render(view, selected)], none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


# ---- Reset Queue Statistics -----------------------------------------------------------------------------
_RESET_Q_STATS = (_P_QNAME, p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH))


def reset_q_stats(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    """Per local queue: the counts since the last reset (or the start), then zeroed; HighQDepth
    starts again from the depth now, TimeSinceReset from now (IBM's Reset Queue Statistics)."""
    values = parse(request, _RESET_Q_STATS).values
    pattern = required(values, C.MQCA_Q_NAME)
    check_name(pattern, C.MQCA_Q_NAME, generic=True)  # type: ignore[arg-type]
    reg = ctx.registry
    matched = pick(reg.queues, pattern)  # type: ignore[arg-type]
    local = [q for q in matched if q.qtype == C.MQQT_LOCAL]
    if matched and not local and not pattern.endswith("*"):  # type: ignore[union-attr]
        raise CommandError(C.MQRCCF_Q_WRONG_TYPE, parameter=C.MQCA_Q_NAME)
    now = reg.clock()
    qm = ctx.qm
    since_start = qm.started if qm is not None else reg.qmgr.created
    objects = []
    for queue in local:
        contents = reg.messages.contents(queue.name)
        reset_at = contents.stats_reset or since_start
        depth = len(contents) + contents.uncommitted
        objects.append([
            R.text(C.MQCA_Q_NAME, queue.name, Q_NAME_LENGTH),
            P.CFIN(C.MQIA_TIME_SINCE_RESET, max(0, int(now - reset_at))),
            P.CFIN(C.MQIA_HIGH_Q_DEPTH, max(contents.high_depth, depth)),
            P.CFIN(C.MQIA_MSG_ENQ_COUNT, contents.enq_count),
            P.CFIN(C.MQIA_MSG_DEQ_COUNT, contents.deq_count),
        ])
        contents.enq_count = contents.deq_count = 0
        contents.high_depth = depth
        contents.stats_reset = now
    return R.data(ctx.command, objects, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def register(engine) -> None:
    engine.register(C.MQCMD_INQUIRE_Q_STATUS, inquire_q_status)
    engine.register(C.MQCMD_INQUIRE_CONNECTION, inquire_connection)
    engine.register(C.MQCMD_STOP_CONNECTION, stop_connection)
    engine.register(C.MQCMD_INQUIRE_Q_MGR_STATUS, inquire_q_mgr_status)
    engine.register(C.MQCMD_RESET_Q_STATS, reset_q_stats)
