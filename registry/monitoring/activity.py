"""Application activity trace: every MQI call a connection makes, as IBM writes it and as qmlite shows it.

Two outputs from one record per call (``Call``), made in one place: the ``traced`` wrapper around
the queue manager's verbs (registry/qmgr.py).

* IBM's activity trace messages (MQCFH Type MQCFT_APP_ACTIVITY, Command MQCMD_ACTIVITY_TRACE, the
  message-level parameters, one MQGACF_ACTIVITY_TRACE group per MQI call with the documented
  per-verb parameters at TraceLevel MEDIUM), put to SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE when the
  connection collects (ACTVTRC, overridden by MQCNO_ACTIVITY_TRACE_ENABLED/DISABLED when ACTVCONO is
  ENABLED, decided at MQCONN as IBM does) and published on
  ``$SYS/MQ/INFO/QMGR/<qm>/ActivityTrace/{ApplName,ChannelName,ConnectionId}/<value>``.  A message
  is written once ActivityCount (100) calls are held, when ActivityInterval (1 s) has passed
  (monitoring_tick), and at MQDISC, as mqactivity.ini's defaults do (docs/decisions.md AT1-AT3).
* qmlite's call log (a qmlite extension): the last ``LOG_SIZE`` calls of every connection, readable
  as lines (connection, application, verb, object, options and reason by name, message id, timing),
  for ``qmlite trace``, the console, ``DISPLAY QMLTRACE`` and the pytest plugin's ``calls()``.  It
  records while ``recording`` is on (ALTER QMLTRACE RECORD(ON), REST, the plugin); off by default
  so a queue manager nobody watches pays nothing.

When nothing traces (no session collects, the log is off) a verb costs one attribute test more.
"""

from __future__ import annotations

import collections
import functools
import socket
import time
from typing import TYPE_CHECKING

import structlog

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.errors import MQIError
from qmlite.registry.monitoring import records

if TYPE_CHECKING:
    from qmlite.registry.messaging.sessions import Session
    from qmlite.registry.qmgr import QueueManager

log = structlog.get_logger("qmlite.activity")

TRACE_QUEUE = "SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE"
LOG_SIZE = 10_000  # calls the log keeps (the oldest go first)
ACTIVITY_COUNT = 100  # mqactivity.ini ActivityCount: operations per message
ACTIVITY_INTERVAL = 1.0  # mqactivity.ini ActivityInterval: seconds before a message is written

# cmqxc.h: the MQI function identifiers (OperationId); generated constants lack them
MQXF = {"MQCONNX": 4, "MQDISC": 5, "MQOPEN": 6, "MQCLOSE": 7, "MQPUT1": 8, "MQPUT": 9, "MQGET": 10,
        "MQINQ": 12, "MQSET": 13, "MQCMIT": 15, "MQBACK": 16, "MQSUB": 22, "MQSUBRQ": 23}
# cmqcfc.h: APICallerType, APIEnvironment, ApplicationFunctionType, TraceDetail values
MQXACT_EXTERNAL = 1
MQXE_OTHER = 0
MQFUN_TYPE_UNKNOWN = 0
MQACTV_DETAIL_MEDIUM = 2
POINTER_SIZE = 8

# which options each verb's Options field holds, for names
_OPTION_FAMILY = {"MQCONNX": "MQCNO", "MQOPEN": "MQOO", "MQCLOSE": "MQCO", "MQPUT": "MQPMO", "MQPUT1": "MQPMO",
                  "MQGET": "MQGMO", "MQSUB": "MQSO"}
_FAMILY_PARAM = {"MQCNO": C.MQIACF_CONNECT_OPTIONS, "MQOO": C.MQIACF_OPEN_OPTIONS,
                 "MQCO": C.MQIACF_CLOSE_OPTIONS, "MQPMO": C.MQIACF_PUT_OPTIONS, "MQGMO": C.MQIACF_GET_OPTIONS,
                 "MQSO": C.MQIACF_SUB_OPTIONS}
_NOT_OPTIONS = ("_VERSION_", "_STRUC_", "_LENGTH", "_CURRENT", "_NONE", "_DEFAULT", "_MASK", "_ALL")
_FLAG_TABLES: dict[str, list[tuple[int, str]]] = {}
ZERO24 = bytes(24)


def option_names(family: str, value: int) -> str:
    """``MQOO_OUTPUT+MQOO_FAIL_IF_QUIESCING``: the single-bit options of ``family`` set in ``value``."""
    table = _FLAG_TABLES.get(family)
    if table is None:
        seen: dict[int, str] = {}
        for name in dir(C):
            if not name.startswith(family + "_") or any(part in name for part in _NOT_OPTIONS):
                continue
            bit = getattr(C, name)
            if isinstance(bit, int) and bit > 0 and bit & (bit - 1) == 0:
                seen.setdefault(bit, name)
        table = _FLAG_TABLES[family] = sorted(seen.items())
    if not value:
        return f"{family}_NONE"
    names = [name for bit, name in table if value & bit]
    rest = value & ~sum(bit for bit, _ in table)
    if rest:
        names.append(hex(rest))
    return "+".join(names)


class Call:
    """One MQI call: who made it, what, on what, and how it ended."""

    __slots__ = ("seq", "at", "micros", "connection_id", "appl_name", "appl_type", "user", "channel", "conname",
                 "verb", "hobj", "object_type", "object_name", "object_qmgr", "resolved", "options", "comp",
                 "reason", "msg_id", "correl_id", "msg_length", "persistence", "buffer_length", "selectors",
                 "sub_name", "dynamic")

    def __init__(self, verb: str, session: Session, at: float, micros: int) -> None:
        self.seq = 0
        self.at = at
        self.micros = micros
        self.connection_id = session.connection_id
        self.appl_name = session.appl_name
        self.appl_type = session.appl_type
        self.user = session.user
        self.channel = session.channel
        self.conname = session.conname
        self.verb = verb
        self.hobj = 0
        self.object_type = 0
        self.object_name = ""
        self.object_qmgr = ""
        self.resolved = ""
        self.options = 0
        self.comp = 0
        self.reason = 0
        self.msg_id = b""
        self.correl_id = b""
        self.msg_length = -1
        self.persistence = -1
        self.buffer_length = -1
        self.selectors: tuple[int, ...] = ()
        self.sub_name = ""
        self.dynamic = ""

    # ---- for people -------------------------------------------------------------------------------
    @property
    def option_names(self) -> str:
        family = _OPTION_FAMILY.get(self.verb)
        return option_names(family, self.options) if family else ""

    @property
    def reason_name(self) -> str:
        return C.describe("MQRC", self.reason)

    def to_dict(self) -> dict:
        return {
            "seq": self.seq, "time": self.at, "micros": self.micros,
            "connectionId": self.connection_id.hex().upper(), "applName": self.appl_name.strip(),
            "user": self.user.strip(), "channel": self.channel.strip(), "connName": self.conname,
            "verb": self.verb, "hobj": self.hobj, "object": self.object_name.strip(),
            "resolved": self.resolved.strip(), "options": self.options, "optionNames": self.option_names,
            "compCode": self.comp, "reason": self.reason, "reasonName": self.reason_name,
            "msgId": self.msg_id.hex().upper() if self.msg_id else "",
            "correlId": self.correl_id.hex().upper() if self.correl_id else "",
            "msgLength": self.msg_length if self.msg_length >= 0 else None,
        }

    def line(self) -> str:
        """One readable line, as ``qmlite trace`` and DISPLAY QMLTRACE print it."""
        stamp = time.strftime("%H:%M:%S", time.localtime(self.at)) + f".{int(self.at * 1000) % 1000:03d}"
        parts = [stamp, self.connection_id[-8:].hex().upper(), (self.appl_name.strip() or "-")[:28], self.verb]
        if self.object_name.strip():
            parts.append(self.object_name.strip())
        names = self.option_names
        if names:
            parts.append(names)
        parts.append(self.reason_name if self.reason else "OK")
        if self.msg_id and self.msg_id != ZERO24:
            parts.append("msgid=" + self.msg_id.hex().upper())
        if self.msg_length >= 0:
            parts.append(f"len={self.msg_length}")
        parts.append(f"{self.micros}us")
        return " ".join(parts)

    # ---- IBM's operation group ------------------------------------------------------------------------
    def group(self) -> P.CFGR:
        """The MQGACF_ACTIVITY_TRACE group of this call, TraceLevel MEDIUM (IBM's "Variable parameters
        for application activity MQI operations")."""
        t = records.text
        op_date, op_time = _op_stamp(self.at)
        params: list = [P.CFIN(C.MQIACF_OPERATION_ID, MQXF[self.verb]), P.CFIN(C.MQIACF_THREAD_ID, 0),
                        t(C.MQCACF_OPERATION_DATE, op_date, 12), t(C.MQCACF_OPERATION_TIME, op_time, 8)]
        verb = self.verb
        if verb in ("MQOPEN", "MQPUT1"):
            params += [P.CFIN(C.MQIACF_OBJECT_TYPE, self.object_type),
                       t(C.MQCACF_OBJECT_NAME, self.object_name, C.MQ_Q_NAME_LENGTH),
                       t(C.MQCACF_OBJECT_Q_MGR_NAME, self.object_qmgr, C.MQ_Q_MGR_NAME_LENGTH)]
        if verb in ("MQOPEN", "MQCLOSE", "MQPUT", "MQGET", "MQINQ", "MQSET", "MQSUB", "MQSUBRQ"):
            params.append(P.CFIN(C.MQIACF_HOBJ, self.hobj))
        if verb == "MQCONNX":
            params += [P.CFBS(C.MQBACF_CONNECTION_ID, self.connection_id),
                       P.CFIN(C.MQIACF_CONNECT_OPTIONS, self.options)]
        params += [P.CFIN(C.MQIACF_COMP_CODE, self.comp), P.CFIN(C.MQIACF_REASON_CODE, self.reason)]
        family = _OPTION_FAMILY.get(verb)
        if family and verb != "MQCONNX":
            params.append(P.CFIN(_FAMILY_PARAM[family], self.options))
        if verb in ("MQPUT", "MQPUT1", "MQGET"):
            if verb == "MQGET" and self.buffer_length >= 0:
                params.append(P.CFIN(C.MQIACF_BUFFER_LENGTH, self.buffer_length))
            params.append(P.CFIN(C.MQIACF_MSG_LENGTH, max(self.msg_length, 0)))
            params.append(P.CFIN64(C.MQIAMO64_HIGHRES_TIME, int(self.at * 1_000_000)))
            if verb != "MQPUT1":
                params.append(t(C.MQCACF_OBJECT_NAME, self.object_name, C.MQ_Q_NAME_LENGTH))
            params.append(t(C.MQCACF_RESOLVED_Q_NAME, self.resolved, C.MQ_Q_NAME_LENGTH))
            if self.msg_id:
                params += [P.CFBS(C.MQBACF_MSG_ID, self.msg_id), P.CFBS(C.MQBACF_CORREL_ID, self.correl_id)]
            if self.persistence >= 0:
                params.append(P.CFIN(C.MQIACF_PERSISTENCE, self.persistence))
        elif verb in ("MQOPEN", "MQCLOSE", "MQINQ", "MQSET", "MQSUB"):
            if verb != "MQOPEN":
                params.append(t(C.MQCACF_OBJECT_NAME, self.object_name, C.MQ_Q_NAME_LENGTH))
            if verb == "MQOPEN":
                params.append(t(C.MQCACF_RESOLVED_Q_NAME, self.resolved, C.MQ_Q_NAME_LENGTH))
                if self.dynamic:
                    params.append(t(C.MQCACF_DYNAMIC_Q_NAME, self.dynamic, C.MQ_Q_NAME_LENGTH))
            if verb == "MQSUB" and self.sub_name:
                params.append(t(C.MQCACF_SUB_NAME, self.sub_name))
            if verb in ("MQINQ", "MQSET"):
                params += [P.CFIN(C.MQIACF_SELECTOR_COUNT, len(self.selectors)),
                           P.CFIL(C.MQIACF_SELECTORS, self.selectors)]
        return P.CFGR(C.MQGACF_ACTIVITY_TRACE, params)


def _op_stamp(epoch: float) -> tuple[str, str]:
    lt = time.localtime(epoch)
    return time.strftime("%Y-%m-%d", lt), time.strftime("%H.%M.%S", lt)


class ConnTrace:
    """The calls a collecting connection made since its last activity trace message."""

    __slots__ = ("start", "seq", "calls", "queue")

    def __init__(self, start: float, queue: bool) -> None:
        self.start = start
        self.seq = 0  # SeqNumber: 0 for the connection's first message, + 1 per message
        self.calls: list[Call] = []
        self.queue = queue  # to SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE (ACTVTRC); else to the topics alone


# ---- filling a Call from a verb's arguments and answer ----------------------------------------------------
def _text(value) -> str:
    """A name field, or an MQCHARV's string (ObjectString, SubName)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else getattr(value, "VSString", "") or ""


def _od(call: Call, od) -> None:
    call.object_type = od.ObjectType
    topic = _text(getattr(od, "ObjectString", None)) if od.ObjectType == C.MQOT_TOPIC else ""
    call.object_name = topic or od.ObjectName
    call.object_qmgr = od.ObjectQMgrName


def _handle(call: Call, session: Session, hobj: int) -> None:
    call.hobj = hobj
    handle = session.handles.get(hobj)
    if handle is not None:
        call.object_name = handle.queue_name or handle.name
        call.resolved = handle.name


def _fill(call: Call, qm: QueueManager, args: tuple, result) -> None:
    verb = call.verb
    if verb == "MQOPEN":
        _, od, options = args[:3]
        _od(call, od)
        call.options = options
        if result is not None:
            handle, out = result
            call.hobj = handle.hobj
            call.resolved = handle.name
            if handle.temporary or out.ObjectName != call.object_name:
                call.dynamic = out.ObjectName
    elif verb == "MQCLOSE":
        session, hobj, options = args[:3]
        call.options = options
        call.hobj = hobj
        handle = qm.activity.closing
        if handle is not None:
            call.object_name = handle.queue_name or handle.name
            call.resolved = handle.name
    elif verb == "MQPUT":
        session, hobj, md, pmo, data = args[:5]
        _handle(call, session, hobj)
        call.options = pmo.Options
        call.msg_length = len(data)
        call.msg_id, call.correl_id, call.persistence = md.MsgId, md.CorrelId, md.Persistence
    elif verb == "MQPUT1":
        session, od, md, pmo, data = args[:5]
        _od(call, od)
        call.options = pmo.Options
        call.msg_length = len(data)
        call.msg_id, call.correl_id, call.persistence = md.MsgId, md.CorrelId, md.Persistence
        if result is not None:
            call.resolved = result[0].ResolvedQName or call.object_name
    elif verb == "MQGET":
        session, handle, md, gmo = args[:4]
        call.hobj = handle.hobj
        call.object_name = handle.queue_name or handle.name
        call.resolved = handle.name
        call.options = gmo.Options
        if len(args) > 4:
            call.buffer_length = args[4]
        if result is not None and hasattr(result, "md"):
            call.msg_length = result.full_length
            call.msg_id, call.correl_id, call.persistence = result.md.MsgId, result.md.CorrelId, result.md.Persistence
            call.comp, call.reason = result.comp, result.reason
    elif verb in ("MQINQ", "MQSET"):
        session, hobj, selectors = args[:3]
        _handle(call, session, hobj)
        call.selectors = tuple(selectors)
        if verb == "MQINQ" and result is not None:
            call.comp, call.reason = result[2], result[3]
    elif verb == "MQSUB":
        session, sd, hobj = args[:3]
        call.options = sd.Options
        call.object_name = _text(sd.ObjectString) or sd.ObjectName
        call.sub_name = _text(sd.SubName)
        if result is not None:
            call.hobj = result[0].hobj
    elif verb == "MQSUBRQ":
        call.hobj = args[1]
        call.options = args[2]


class ActivityTrace:
    """One queue manager's activity trace: which connections collect, the call log, the messages."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm
        self.recording = False  # qmlite's call log on
        self.log: collections.deque[Call] = collections.deque(maxlen=LOG_SIZE)
        self.seq = 0  # the log's last sequence number
        self.collecting = 0  # sessions with a ConnTrace
        self.closing = None  # the handle an MQCLOSE in progress closes
        self._depth = 0  # a verb inside a verb (MQDISC's commit) is not a call of its own
        self.interval = ACTIVITY_INTERVAL  # ActivityInterval, seconds (tests may move it away)
        self.count = ACTIVITY_COUNT  # ActivityCount
        self.host = socket.gethostname()

    @property
    def active(self) -> bool:
        return self.recording or self.collecting > 0

    # ---- MQCONN -----------------------------------------------------------------------------------------
    def start(self, session: Session, options: int) -> ConnTrace | None:
        """Whether this connection collects: ACTVTRC, the MQCNO options when ACTVCONO is ENABLED, or a
        subscription to its $SYS/.../ActivityTrace topics."""
        qmgr = self.qm.registry.qmgr
        on = qmgr.activity_trace == C.MQMON_ON
        if qmgr.activity_conn_override == C.MQMON_ENABLED:
            if options & C.MQCNO_ACTIVITY_TRACE_ENABLED:
                on = True
            elif options & C.MQCNO_ACTIVITY_TRACE_DISABLED:
                on = False
        if not on and not self._subscribed(session):
            return None
        self.collecting += 1
        return ConnTrace(self.qm.now(), on)

    def topics(self, session: Session) -> list[str]:
        base = f"$SYS/MQ/INFO/QMGR/{self.qm.registry.qmgr.name}/ActivityTrace/"
        out = [base + "ConnectionId/" + session.connection_id.hex().upper()]
        if session.appl_name.strip():
            out.append(base + "ApplName/" + session.appl_name.strip())
        if session.channel.strip():
            out.append(base + "ChannelName/" + session.channel.strip())
        return out

    def _subscribed(self, session: Session) -> bool:
        """A subscription names this connection's ActivityTrace topics (one index lookup per topic;
        a subscription to ``#`` alone does not count: it did not ask for activity trace)."""
        reg = self.qm.registry
        prefix = f"$SYS/MQ/INFO/QMGR/{reg.qmgr.name}/ActivityTrace"
        for topic in self.topics(session):
            for key in reg.routes.match(topic):
                sub = reg.subs_by_id.get(key)
                if sub is not None and sub.resolved_topic.startswith(prefix):
                    return True
        return False

    # ---- a verb ----------------------------------------------------------------------------------------
    def call(self, verb: str, fn, qm: QueueManager, args: tuple, kwargs: dict):
        """Run ``fn`` (a verb) and record it."""
        if self._depth:
            return fn(qm, *args, **kwargs)
        self._depth += 1
        if verb == "MQCLOSE":
            self.closing = args[0].handles.get(args[1])
        started = time.perf_counter()
        try:
            result = fn(qm, *args, **kwargs)
        except MQIError as exc:
            self._depth -= 1
            if verb != "MQCONNX":
                self._record(verb, args, None, exc.comp, exc.reason, started)
            raise
        except BaseException:
            self._depth -= 1
            raise
        self._depth -= 1
        if verb == "MQGET" and result is None:
            return result  # nothing yet: the call goes on waiting, recorded when it ends
        if verb == "MQCONNX":
            self._record(verb, (result,), result, 0, 0, started, session=result)
        elif verb == "MQDISC":
            if kwargs.get("commit", True):  # a connection that broke made no MQDISC: nothing to record
                self._record(verb, args, result, 0, 0, started)
            if args[0].trace is not None:
                self.finish(args[0])
        else:
            comp = C.MQCC_WARNING if verb in ("MQPUT", "MQPUT1") and result[-1] else 0
            reason = result[-1] if comp else 0
            self._record(verb, args, result, comp, reason, started)
        return result

    def ended(self, session: Session, handle, gmo, reason: int) -> None:
        """An MQGET (or its wait) ended with no message: 2033, or 2009 for a stopped connection."""
        if session.trace is None and not self.recording:
            return
        self._record("MQGET", (session, handle, None, gmo), None, C.MQCC_FAILED, reason, time.perf_counter())

    def _record(self, verb: str, args: tuple, result, comp: int, reason: int, started: float, *,
                session: Session | None = None) -> None:
        session = session if session is not None else args[0]
        trace = session.trace
        if trace is None and not self.recording:
            return
        micros = int((time.perf_counter() - started) * 1_000_000)
        call = Call(verb, session, self.qm.now(), micros)
        call.comp, call.reason = comp, reason
        if verb == "MQCONNX":
            call.options = session.cno_options
            call.object_name = self.qm.registry.qmgr.name
        elif verb == "MQGET" and args[2] is None:
            handle = args[1]
            call.hobj, call.object_name, call.resolved = handle.hobj, handle.queue_name or handle.name, handle.name
            call.options = args[3].Options
        else:
            _fill(call, self.qm, args, result)
        if self.recording:
            self.seq += 1
            call.seq = self.seq
            self.log.append(call)
        if trace is not None:
            trace.calls.append(call)
            if len(trace.calls) >= self.count:
                self.write(session)

    # ---- the messages -----------------------------------------------------------------------------------
    def write(self, session: Session, now: float | None = None) -> int:
        """Write the connection's held calls as one activity trace message; returns messages put."""
        trace = session.trace
        if trace is None or not trace.calls:
            return 0
        now = self.qm.now() if now is None else now
        body = records.messages(C.MQCFT_APP_ACTIVITY, C.MQCMD_ACTIVITY_TRACE,
                                self._head(session, trace, now) + [c.group() for c in trace.calls])[0]
        trace.calls = []
        trace.start = now
        trace.seq += 1
        written = records.write(self.qm, TRACE_QUEUE, [body], correl_id=session.connection_id) if trace.queue else 0
        for topic in self.topics(session):
            md = records.system_md(self.qm, correl_id=session.connection_id)
            md.Persistence = C.MQPER_NOT_PERSISTENT
            self.qm.publish(topic, md, body)
        return written

    def _head(self, session: Session, trace: ConnTrace, now: float) -> list:
        t = records.text
        return (records.interval(self.qm, trace.start, now)[:1]
                + [t(C.MQCACF_HOST_NAME, self.host)]
                + records.interval(self.qm, trace.start, now)[1:]
                + [P.CFIN(C.MQIACF_SEQUENCE_NUMBER, trace.seq),
                   t(C.MQCACF_APPL_NAME, session.appl_name, C.MQ_APPL_NAME_LENGTH),
                   P.CFIN(C.MQIA_APPL_TYPE, session.appl_type),
                   P.CFIN(C.MQIACF_PROCESS_ID, 0),  # a client's process is not known to the queue manager
                   t(C.MQCACF_USER_IDENTIFIER, session.user, C.MQ_USER_ID_LENGTH),
                   P.CFIN(C.MQIACF_API_CALLER_TYPE, MQXACT_EXTERNAL),
                   P.CFIN(C.MQIACF_API_ENVIRONMENT, MQXE_OTHER),
                   t(C.MQCACF_APPL_FUNCTION, ""),
                   P.CFIN(C.MQIACF_APPL_FUNCTION_TYPE, MQFUN_TYPE_UNKNOWN),
                   P.CFIN(C.MQIACF_TRACE_DETAIL, MQACTV_DETAIL_MEDIUM),
                   P.CFIN(C.MQIACF_TRACE_DATA_LENGTH, 0),
                   P.CFIN(C.MQIACF_POINTER_SIZE, POINTER_SIZE),
                   P.CFIN(C.MQIA_PLATFORM, self.qm.registry.qmgr.platform),
                   t(C.MQCACH_CHANNEL_NAME, session.channel, C.MQ_CHANNEL_NAME_LENGTH),
                   t(C.MQCACH_CONNECTION_NAME, session.conname, C.MQ_CONN_NAME_LENGTH),
                   P.CFIN(C.MQIACH_CHANNEL_TYPE, C.MQCHT_SVRCONN if session.channel else 0)])

    def finish(self, session: Session) -> int:
        """MQDISC (or a broken connection): the rest of its calls."""
        written = self.write(session)
        session.trace = None
        self.collecting = max(0, self.collecting - 1)
        return written

    def tick(self, now: float) -> int:
        """ActivityInterval: a connection's held calls go once they are a second old."""
        if not self.collecting:
            return 0
        written = 0
        for session in list(self.qm.sessions.values()):
            trace = session.trace
            if trace is not None and trace.calls and now - trace.start >= self.interval:
                written += self.write(session, now)
        return written

    # ---- the call log -----------------------------------------------------------------------------------
    def record(self, on: bool, *, user: str = "", via: str = "") -> None:
        """Start or stop the call log (MQSC ALTER QMLTRACE, REST, the pytest plugin), logged."""
        self.recording = on
        log.info("call_trace_recording", on=on, user=user, command=via, last=self.seq)
    def calls(self, *, after: int = 0, connection: str = "", appl: str = "", limit: int = 0) -> list[Call]:
        out = [c for c in self.log if c.seq > after
               and (not connection or c.connection_id.hex().upper().endswith(connection.upper()))
               and (not appl or c.appl_name.strip() == appl)]
        return out[-limit:] if limit else out

    def clear(self) -> int:
        gone = len(self.log)
        self.log.clear()
        return gone


def traced(verb: str):
    """Record the wrapped queue-manager verb as ``verb`` when anything traces."""
    always = verb == "MQCONNX"  # a connection may start collecting at its MQCONNX: always looked at

    def wrap(fn):
        @functools.wraps(fn)
        def run(qm, *args, **kwargs):
            tracer = qm.activity
            if not (always or tracer.recording or tracer.collecting):
                return fn(qm, *args, **kwargs)
            return tracer.call(verb, fn, qm, args, kwargs)
        return run
    return wrap
