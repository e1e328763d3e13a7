"""Queue-manager events: the PCF event messages IBM MQ puts on the SYSTEM.ADMIN.*.EVENT queues.

Each event is built exactly as IBM's "Event message reference" describes it: an MQMD with Format
MQFMT_EVENT, MsgType MQMT_DATAGRAM and the event queue's priority and persistence (AS_Q_DEF), then
an MQCFH of Type MQCFT_EVENT whose Command names the category (MQCMD_Q_MGR_EVENT, _PERFM_, _CHANNEL_,
_CONFIG_, _COMMAND_), whose Reason is the event's reason code and CompCode MQCC_WARNING, then the
event's documented parameters in IBM's order (docs/compat.md, "Events").

The domain decides: the queue manager, the security checks, the command engine and the channel
checks call here where they see a condition; each method first reads its switch (one attribute
check when it is off).  An event the queue cannot take (no such queue, put-inhibited, full) is
discarded, as IBM discards it: the user's call never fails because of an event.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import structlog

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P

from qmlite.registry.errors import MQIError
from qmlite.registry.objects.definitions import put_stamp

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

log = structlog.get_logger("qmlite.events")

ENABLED = C.MQEVR_ENABLED
QMGR_QUEUE = "SYSTEM.ADMIN.QMGR.EVENT"
PERFM_QUEUE = "SYSTEM.ADMIN.PERFM.EVENT"
CHANNEL_QUEUE = "SYSTEM.ADMIN.CHANNEL.EVENT"
CONFIG_QUEUE = "SYSTEM.ADMIN.CONFIG.EVENT"
COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.EVENT"
EVENT_QUEUES = (QMGR_QUEUE, PERFM_QUEUE, CHANNEL_QUEUE, CONFIG_QUEUE, COMMAND_QUEUE)

# Reason qualifiers and event origins the generated constants lack (cmqc.h: MQRQ_*, MQEVO_*; cmqcfc.h: MQRT_*).
MQRQ_CONN_NOT_AUTHORIZED = 1
MQRQ_OPEN_NOT_AUTHORIZED = 2
MQRQ_CLOSE_NOT_AUTHORIZED = 3
MQRQ_CMD_NOT_AUTHORIZED = 4
MQRQ_Q_MGR_STOPPING = 5
MQRQ_Q_MGR_QUIESCING = 6
MQRQ_CHANNEL_STOPPED_OK = 7
MQRQ_CHANNEL_STOPPED_ERROR = 8
MQRQ_CHANNEL_STOPPED_RETRY = 9
MQRQ_CHANNEL_STOPPED_DISABLED = 10
MQRQ_SUB_NOT_AUTHORIZED = 17
MQRQ_SUB_DEST_NOT_AUTHORIZED = 18
MQRQ_CHANNEL_BLOCKED_ADDRESS = 21
MQRQ_CHANNEL_BLOCKED_USERID = 22
MQRQ_CHANNEL_BLOCKED_NOACCESS = 23
MQRQ_CSP_NOT_AUTHORIZED = 29
# cmqc.h: why a channel's TLS failed, for the Channel SSL Error event
MQRQ_SSL_HANDSHAKE_ERROR = 13
MQRQ_SSL_CIPHER_SPEC_ERROR = 14
MQRQ_SSL_CLIENT_AUTH_ERROR = 15
MQRQ_SSL_PEER_NAME_ERROR = 16
MQEVO_OTHER = 0
MQEVO_CONSOLE = 1
MQEVO_INIT = 2
MQEVO_MSG = 3
MQEVO_MQSET = 4
MQEVO_INTERNAL = 5
MQEVO_REST = 8
MQRT_CONFIGURATION = 1
MQCFH_VERSION_CONFIG = 2  # IBM: version 2 for configuration events, 3 for command events, 1 for the rest
MQCFH_VERSION_COMMAND = 3

_Q = C.MQ_Q_NAME_LENGTH
_QM = C.MQ_Q_MGR_NAME_LENGTH


def _text(pid: int, value: str, pad: int | None = None) -> P.CFST:
    """A string parameter, blank-padded to its MQ_*_LENGTH like the queue manager's own."""
    value = value or ""
    if pad is not None and len(value) < pad:
        value = value + " " * (pad - len(value))
    return P.CFST(pid, value, 0)


@dataclasses.dataclass(frozen=True, slots=True)
class Origin:
    """Where a command came from, for configuration and command events (IBM's EventOrigin and the
    command message's context: only a command message (MQEVO_MSG) carries the context fields)."""

    user: str = "mqm"
    origin: int = MQEVO_CONSOLE
    md: S.MQMD | None = None


class Events:
    """The event generator of one queue manager (``qm.events``)."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm
        self.registry = qm.registry
        self._emitting = False  # an event's own put raises no performance event

    # ---- the message ----------------------------------------------------------------------------
    def put(self, queue_name: str, command: int, reason: int, params: list, *, version: int = C.MQCFH_VERSION_1,
            seq: int = 1, last: bool = True) -> bool:
        """Put one event message; False when it was discarded (the queue is missing, inhibited or full)."""
        reg = self.registry
        queue = reg.queues.get(queue_name)
        if queue is None or queue.qtype != C.MQQT_LOCAL:
            log.info("event_discarded", queue=queue_name, reason=C.describe("MQRC", reason), why="no event queue")
            return False
        header = P.CFH(Type=C.MQCFT_EVENT, Version=version, Command=command, MsgSeqNumber=seq,
                       Control=C.MQCFC_LAST if last else C.MQCFC_NOT_LAST, CompCode=C.MQCC_WARNING,
                       Reason=reason, ParameterCount=len(params))
        data = P.encode(P.PCFMessage(header, params), C.MQENC_NATIVE, reg.qmgr.ccsid)
        now = self.qm.now()
        date, time_ = put_stamp(now)
        qmgr = reg.qmgr.name
        md = S.MQMD(Version=C.MQMD_VERSION_1, Report=C.MQRO_NONE, MsgType=C.MQMT_DATAGRAM, Expiry=C.MQEI_UNLIMITED,
                    Feedback=C.MQFB_NONE, Encoding=C.MQENC_NATIVE, CodedCharSetId=reg.qmgr.ccsid,
                    Format=C.MQFMT_EVENT, Priority=C.MQPRI_PRIORITY_AS_Q_DEF,
                    Persistence=C.MQPER_PERSISTENCE_AS_Q_DEF, MsgId=reg.ids.msg_id(), CorrelId=bytes(24),
                    ReplyToQ="", ReplyToQMgr=qmgr, UserIdentifier="", AccountingToken=bytes(32),
                    ApplIdentityData="", PutApplType=C.MQAT_QMGR, PutApplName=qmgr[:28], PutDate=date,
                    PutTime=time_, ApplOriginData="")
        self._emitting = True
        try:
            self.qm.put_message(queue, md, data, now, application=False)
        except MQIError as exc:
            log.info("event_discarded", queue=queue_name, discarded=C.describe("MQRC", reason),
                     reason=C.describe("MQRC", exc.reason))
            return False
        finally:
            self._emitting = False
        return True

    def _qmgr(self) -> P.CFST:
        return _text(C.MQCA_Q_MGR_NAME, self.registry.qmgr.name, _QM)

    @staticmethod
    def _appl(session) -> list:
        return [P.CFIN(C.MQIA_APPL_TYPE, session.appl_type or C.MQAT_DEFAULT),
                _text(C.MQCACF_APPL_NAME, session.appl_name, C.MQ_APPL_NAME_LENGTH)]

    @staticmethod
    def _client(session) -> list:
        """ConnName and ChannelName: 'Returned: if the application ... is a client-connected application'."""
        if not session.channel:
            return []
        return [_text(C.MQCACH_CONNECTION_NAME, session.conname, C.MQ_CONN_NAME_LENGTH),
                _text(C.MQCACH_CHANNEL_NAME, session.channel, C.MQ_CHANNEL_NAME_LENGTH)]

    def _object_qmgr(self, od) -> list:
        name = getattr(od, "ObjectQMgrName", "") or ""
        if name.strip() and name.strip() != self.registry.qmgr.name:
            return [_text(C.MQCACF_OBJECT_Q_MGR_NAME, name, _QM)]
        return []

    # ---- authority events (AUTHOREV): SYSTEM.ADMIN.QMGR.EVENT --------------------------------------
    def not_authorized_connect(self, *, user: str, appl_type: int, appl_name: str, channel: str = "",
                               conname: str = "", qualifier: int = MQRQ_CONN_NOT_AUTHORIZED,
                               csp_user: str | None = None) -> None:
        """Not Authorized (type 1): MQCONN refused (connect authority, or the MQCSP user and password)."""
        # The error log and the refusals list hear of it whether or not AUTHOREV is on (diagnostics.py).
        self.qm.diagnostics.connect_refused(qualifier=qualifier, user=user, appl=(appl_name or "").strip(),
                                            channel=channel, address=conname)
        if self.registry.qmgr.authority_event != ENABLED:
            return
        params = [self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER, qualifier),
                  _text(C.MQCACF_USER_IDENTIFIER, user, C.MQ_USER_ID_LENGTH),
                  P.CFIN(C.MQIA_APPL_TYPE, appl_type or C.MQAT_DEFAULT),
                  _text(C.MQCACF_APPL_NAME, appl_name, C.MQ_APPL_NAME_LENGTH)]
        if channel:
            params += [_text(C.MQCACH_CONNECTION_NAME, conname, C.MQ_CONN_NAME_LENGTH),
                       _text(C.MQCACH_CHANNEL_NAME, channel, C.MQ_CHANNEL_NAME_LENGTH)]
        if qualifier == MQRQ_CSP_NOT_AUTHORIZED and csp_user is not None:
            params.append(_text(C.MQCACF_CSP_USER_IDENTIFIER, csp_user, C.MQ_USER_ID_LENGTH))
        self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, C.MQRC_NOT_AUTHORIZED, params)

    def not_authorized_open(self, session, od, options: int, topic_string: str = "") -> None:
        """Not Authorized (type 2): MQOPEN or MQPUT1 refused for the options given."""
        if self.registry.qmgr.authority_event != ENABLED:
            return
        params = [self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER, MQRQ_OPEN_NOT_AUTHORIZED),
                  P.CFIN(C.MQIACF_OPEN_OPTIONS, options),
                  _text(C.MQCACF_USER_IDENTIFIER, session.user, C.MQ_USER_ID_LENGTH),
                  *self._appl(session), *self._object_qmgr(od)]
        if od.ObjectType == C.MQOT_PROCESS:
            params.append(_text(C.MQCA_PROCESS_NAME, od.ObjectName, C.MQ_PROCESS_NAME_LENGTH))
        elif od.ObjectType == C.MQOT_TOPIC:
            from qmlite.registry.security import authority

            params += [P.CFST(C.MQCA_TOPIC_STRING, topic_string, 0),
                       P.CFSL(C.MQCA_ADMIN_TOPIC_NAME, tuple(
                           n.ljust(C.MQ_TOPIC_NAME_LENGTH) for n in authority.governing_topics(self.registry,
                                                                                              topic_string)), 0)]
        else:
            params.append(_text(C.MQCA_Q_NAME, od.ObjectName, _Q))
        params += self._client(session)
        self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, C.MQRC_NOT_AUTHORIZED, params)

    def not_authorized_command(self, user: str, command: int) -> None:
        """Not Authorized (type 4): a command the user may not run."""
        if self.registry.qmgr.authority_event != ENABLED:
            return
        self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, C.MQRC_NOT_AUTHORIZED, [
            self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER, MQRQ_CMD_NOT_AUTHORIZED),
            P.CFIN(C.MQIACF_COMMAND, command), _text(C.MQCACF_USER_IDENTIFIER, user, C.MQ_USER_ID_LENGTH)])

    def not_authorized_subscribe(self, session, options: int, topic_string: str) -> None:
        """Not Authorized (type 5): MQSUB refused on the topic."""
        if self.registry.qmgr.authority_event != ENABLED:
            return
        from qmlite.registry.security import authority

        admin = tuple(n.ljust(C.MQ_TOPIC_NAME_LENGTH) for n in authority.governing_topics(self.registry, topic_string))
        self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, C.MQRC_NOT_AUTHORIZED, [
            self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER, MQRQ_SUB_NOT_AUTHORIZED),
            P.CFIN(C.MQIACF_SUB_OPTIONS, options), _text(C.MQCACF_USER_IDENTIFIER, session.user, C.MQ_USER_ID_LENGTH),
            *self._appl(session), P.CFST(C.MQCA_TOPIC_STRING, topic_string, 0),
            P.CFSL(C.MQCA_ADMIN_TOPIC_NAME, admin, 0), *self._client(session)])

    # ---- inhibit events (INHIBTEV) ------------------------------------------------------------------
    def get_inhibited(self, session, queue_name: str) -> None:
        if self.registry.qmgr.inhibit_event != ENABLED:
            return
        self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, C.MQRC_GET_INHIBITED, [
            self._qmgr(), _text(C.MQCA_Q_NAME, queue_name, _Q), *self._appl(session), *self._client(session)])

    def put_inhibited(self, session, queue_name: str = "", topic_string: str | None = None, od=None) -> None:
        if self.registry.qmgr.inhibit_event != ENABLED:
            return
        params = [self._qmgr()]
        if topic_string is None:
            params.append(_text(C.MQCA_Q_NAME, queue_name, _Q))
        params += [*self._appl(session), *self._object_qmgr(od)]
        if topic_string is not None:
            params.append(P.CFST(C.MQCA_TOPIC_STRING, topic_string, 0))
        params += self._client(session)
        self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, C.MQRC_PUT_INHIBITED, params)

    # ---- local events (LOCALEV) and remote events (REMOTEEV) -----------------------------------------
    def open_failed(self, session, od, options: int, reason: int) -> None:
        """The events an MQOPEN or MQPUT1 that failed with ``reason`` raises (the caller saw the failure)."""
        qmgr = self.registry.qmgr
        if reason == C.MQRC_NOT_AUTHORIZED:
            topic = ""
            if od.ObjectType == C.MQOT_TOPIC:
                from qmlite.registry.pubsub import subscribe

                try:
                    topic = subscribe.resolve_topic(self.registry, od.ObjectName, od.ObjectString.VSString)
                except MQIError:
                    topic = od.ObjectString.VSString
            self.qm.diagnostics.open_refused(session, od, options, topic)  # AMQ8077W, whatever AUTHOREV says
            if qmgr.authority_event == ENABLED:
                self.not_authorized_open(session, od, options, topic)
        elif reason == C.MQRC_PUT_INHIBITED and od.ObjectType == C.MQOT_TOPIC:
            if qmgr.inhibit_event == ENABLED:
                from qmlite.registry.pubsub import subscribe

                topic = subscribe.resolve_topic(self.registry, od.ObjectName, od.ObjectString.VSString)
                self.put_inhibited(session, topic_string=topic, od=od)
        elif reason in _LOCAL_REASONS:
            if qmgr.local_event == ENABLED:
                self._local(session, od, reason)
        elif reason in _REMOTE_REASONS:
            if qmgr.remote_event == ENABLED:
                self._remote(session, od, reason)

    def _local(self, session, od, reason: int) -> None:
        params = [self._qmgr()]
        if reason == C.MQRC_UNKNOWN_OBJECT_NAME:
            # Unknown Object Name: ApplType, ApplName, ObjectQMgrName, QName or ProcessName, ConnName ...
            params += [*self._appl(session), *self._object_qmgr(od)]
            if od.ObjectType == C.MQOT_PROCESS:
                params.append(_text(C.MQCA_PROCESS_NAME, od.ObjectName, C.MQ_PROCESS_NAME_LENGTH))
            else:
                params.append(_text(C.MQCA_Q_NAME, od.ObjectName, _Q))
        else:
            alias = self.registry.queues.get(od.ObjectName)
            base = getattr(alias, "target", "") if alias is not None else ""
            params += [_text(C.MQCA_Q_NAME, od.ObjectName, _Q), _text(C.MQCA_BASE_OBJECT_NAME, base, _Q)]
            if reason == C.MQRC_ALIAS_BASE_Q_TYPE_ERROR:
                target = self.registry.queues.get(base)
                params.append(P.CFIN(C.MQIA_Q_TYPE, target.qtype if target is not None else 0))
            params += [*self._appl(session), *self._object_qmgr(od)]
            if reason == C.MQRC_UNKNOWN_ALIAS_BASE_Q:
                params.append(P.CFIN(C.MQIA_BASE_TYPE, getattr(alias, "target_type", C.MQOT_Q)))
        params += self._client(session)
        self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, reason, params)

    def _remote(self, session, od, reason: int) -> None:
        """Remote events: QMgrName, QName, then the transmission queue the resolution reached (XmitQName;
        the queue manager's DefXmitQName for the default-transmission-queue events; none for Unknown
        Remote Queue Manager), its QType for the type errors, then the application."""
        reg = self.registry
        queue = reg.queues.get(od.ObjectName)
        params = [self._qmgr(), _text(C.MQCA_Q_NAME, od.ObjectName, _Q)]
        if reason != C.MQRC_UNKNOWN_REMOTE_Q_MGR:
            if reason in _DEF_XMIT_REASONS:
                xmitq = reg.qmgr.def_xmit_q
            else:
                xmitq = (getattr(queue, "xmit_q_name", "") or getattr(queue, "remote_qmgr_name", "")
                         if queue is not None else "")
            params.append(_text(C.MQCA_XMIT_Q_NAME, xmitq, _Q))
            if reason in (C.MQRC_XMIT_Q_TYPE_ERROR, C.MQRC_DEF_XMIT_Q_TYPE_ERROR):
                target = reg.queues.get(xmitq)
                params.append(P.CFIN(C.MQIA_Q_TYPE, target.qtype if target is not None else 0))
        params += [*self._appl(session), *self._object_qmgr(od), *self._client(session)]
        self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, reason, params)

    # ---- start and stop events (STRSTPEV) ------------------------------------------------------------
    def qmgr_active(self) -> None:
        self.qm.diagnostics.started()  # the error log's AMQ8003I, AMQ5026I, AMQ5806I
        if self.registry.qmgr.start_stop_event == ENABLED:
            self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, C.MQRC_Q_MGR_ACTIVE, [self._qmgr()])

    def qmgr_not_active(self, *, quiescing: bool = True) -> None:
        self.qm.diagnostics.ended()  # the error log's AMQ8004I
        if self.registry.qmgr.start_stop_event == ENABLED:
            self.put(QMGR_QUEUE, C.MQCMD_Q_MGR_EVENT, C.MQRC_Q_MGR_NOT_ACTIVE, [
                self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER,
                                     MQRQ_Q_MGR_QUIESCING if quiescing else MQRQ_Q_MGR_STOPPING)])

    # ---- channel events (CHLEV) -----------------------------------------------------------------------
    def channel_blocked(self, *, qualifier: int, warning: bool, channel: str, conname: str,
                        user: str = "") -> None:
        """Channel Blocked: a CHLAUTH record refused an inbound channel (MQRC_CHANNEL_BLOCKED_WARNING
        when the record has WARN(YES) and the channel was let in)."""
        if self.registry.qmgr.channel_event != ENABLED:
            return
        params = [self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER, qualifier)]
        if qualifier != MQRQ_CHANNEL_BLOCKED_ADDRESS:  # blocked before the channel name is known
            params.append(_text(C.MQCACH_CHANNEL_NAME, channel, C.MQ_CHANNEL_NAME_LENGTH))
        if qualifier == MQRQ_CHANNEL_BLOCKED_USERID:
            params.append(_text(C.MQCACF_USER_IDENTIFIER, user, C.MQ_USER_ID_LENGTH))
        params.append(_text(C.MQCACH_CONNECTION_NAME, conname, C.MQ_CONN_NAME_LENGTH))
        self.put(CHANNEL_QUEUE, C.MQCMD_CHANNEL_EVENT,
                 C.MQRC_CHANNEL_BLOCKED_WARNING if warning else C.MQRC_CHANNEL_BLOCKED, params)

    def channel_started(self, channel, conn_name: str | None = None) -> None:
        """Channel Started, for a Start Channel command (client connections raise none), or a message
        channel's instance established at either end (``conn_name``: its partner's address)."""
        if self.registry.qmgr.channel_event != ENABLED:
            return
        params = [self._qmgr(), _text(C.MQCACH_CHANNEL_NAME, channel.name, C.MQ_CHANNEL_NAME_LENGTH)]
        if getattr(channel, "xmit_q_name", ""):
            params.append(_text(C.MQCACH_XMIT_Q_NAME, channel.xmit_q_name, _Q))
        where = getattr(channel, "conn_name", "") if conn_name is None else conn_name
        params.append(_text(C.MQCACH_CONNECTION_NAME, where, C.MQ_CONN_NAME_LENGTH))
        self.put(CHANNEL_QUEUE, C.MQCMD_CHANNEL_EVENT, C.MQRC_CHANNEL_STARTED, params)

    def _channel_event(self, exception: bool) -> bool:
        """CHLEV: ENABLED raises every channel event, EXCEPTION only the exceptions (IBM: Channel Stopped
        with ERROR, RETRY or DISABLED, Channel Stopped By User, Activated, Not Activated, Conversion Error)."""
        chlev = self.registry.qmgr.channel_event
        return chlev == ENABLED or (exception and chlev == C.MQEVR_EXCEPTION)

    def channel_stopped(self, channel, *, qualifier: int, conn_name: str, error: int = 0, why: str = "") -> None:
        """Channel Stopped: a message channel's instance ended by itself (MQRQ_CHANNEL_STOPPED_OK: normally;
        _RETRY: with an error, to be retried; _DISABLED: with an error, left STOPPED; _ERROR: with an
        error, neither).  ``error``: the AMQ message number (ErrorIdentifier), ``why`` its text
        (AuxErrorDataStr1)."""
        if not self._channel_event(exception=qualifier != MQRQ_CHANNEL_STOPPED_OK):
            return
        params = [self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER, qualifier),
                  _text(C.MQCACH_CHANNEL_NAME, channel.name, C.MQ_CHANNEL_NAME_LENGTH),
                  P.CFIN(C.MQIACF_ERROR_IDENTIFIER, error), P.CFIN(C.MQIACF_AUX_ERROR_DATA_INT_1, 0),
                  P.CFIN(C.MQIACF_AUX_ERROR_DATA_INT_2, 0), _text(C.MQCACF_AUX_ERROR_DATA_STR_1, why),
                  _text(C.MQCACF_AUX_ERROR_DATA_STR_2, ""), _text(C.MQCACF_AUX_ERROR_DATA_STR_3, "")]
        if getattr(channel, "xmit_q_name", ""):
            params.append(_text(C.MQCACH_XMIT_Q_NAME, channel.xmit_q_name, _Q))
        params.append(_text(C.MQCACH_CONNECTION_NAME, conn_name, C.MQ_CONN_NAME_LENGTH))
        self.put(CHANNEL_QUEUE, C.MQCMD_CHANNEL_EVENT, C.MQRC_CHANNEL_STOPPED, params)

    def channel_ssl_error(self, channel, *, qualifier: int, conn_name: str, stage: str = "", code: int = 0,
                          peer: str = "") -> None:
        """Channel SSL Error: a message channel's TLS failed at this end (MQRQ_SSL_*).  ``stage``/``code``:
        for a handshake error, what failed and its return code; ``peer``: the DN a peer-name error refused."""
        if self.registry.qmgr.channel_event != ENABLED:
            return
        params = [self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER, qualifier),
                  _text(C.MQCACH_CHANNEL_NAME, channel.name, C.MQ_CHANNEL_NAME_LENGTH)]
        if getattr(channel, "xmit_q_name", ""):
            params.append(_text(C.MQCACH_XMIT_Q_NAME, channel.xmit_q_name, _Q))
        params.append(_text(C.MQCACH_CONNECTION_NAME, conn_name, C.MQ_CONN_NAME_LENGTH))
        if qualifier == MQRQ_SSL_HANDSHAKE_ERROR:
            params += [_text(C.MQCACH_SSL_HANDSHAKE_STAGE, stage, C.MQ_SSL_HANDSHAKE_STAGE_LENGTH),
                       P.CFIN(C.MQIACH_SSL_RETURN_CODE, code)]
        if qualifier == MQRQ_SSL_PEER_NAME_ERROR:
            params.append(_text(C.MQCACH_SSL_SHORT_PEER_NAME, peer, C.MQ_SHORT_DNAME_LENGTH))
        self.put(CHANNEL_QUEUE, C.MQCMD_CHANNEL_EVENT, C.MQRC_CHANNEL_SSL_ERROR, params)

    def channel_stopped_by_user(self, channel) -> None:
        """Channel Stopped By User, for a Stop Channel command (an exception: CHLEV(EXCEPTION) raises it)."""
        if not self._channel_event(exception=True):
            return
        self.put(CHANNEL_QUEUE, C.MQCMD_CHANNEL_EVENT, C.MQRC_CHANNEL_STOPPED_BY_USER, [
            self._qmgr(), P.CFIN(C.MQIACF_REASON_QUALIFIER, MQRQ_CHANNEL_STOPPED_DISABLED),
            _text(C.MQCACH_CHANNEL_NAME, channel.name, C.MQ_CHANNEL_NAME_LENGTH)])

    # ---- performance events (PERFMEV with the queue's switches) --------------------------------------
    def _statistics(self, queue_name: str, contents) -> list:
        """QMgrName, QName and the queue's statistics since they were last reset; reset now (every
        performance event resets them, as Reset Queue Statistics does)."""
        now = self.qm.now()
        reset_at = contents.stats_reset or self.qm.started
        depth = len(contents) + contents.uncommitted
        params = [self._qmgr(), _text(C.MQCA_Q_NAME, queue_name, _Q),
                  P.CFIN(C.MQIA_TIME_SINCE_RESET, max(0, int(now - reset_at))),
                  P.CFIN(C.MQIA_HIGH_Q_DEPTH, max(contents.high_depth, depth)),
                  P.CFIN(C.MQIA_MSG_ENQ_COUNT, contents.enq_count),
                  P.CFIN(C.MQIA_MSG_DEQ_COUNT, contents.deq_count)]
        contents.enq_count = contents.deq_count = 0
        contents.high_depth = depth
        contents.stats_reset = now
        return params

    def _switch(self, queue, **changes) -> None:
        """IBM turns the queue's event switches as it raises the event; the change is the queue's own
        (DISPLAY shows it, a restart keeps it)."""
        reg = self.registry
        current = reg.queues.get(queue.name)
        if current is None:
            return
        reg.put_queue(dataclasses.replace(current, **changes))

    def after_put(self, queue, contents, was_empty: bool) -> None:
        """A message was added to ``queue`` (PERFMEV is on): Queue Depth High, Service Interval High,
        and the service timer."""
        if self._emitting:
            return
        now = self.qm.now()
        if queue.q_service_interval_event == C.MQQSIE_HIGH and contents.service_timer is not None \
                and (now - contents.service_timer) * 1000 > queue.q_service_interval:
            self.put(PERFM_QUEUE, C.MQCMD_PERFM_EVENT, C.MQRC_Q_SERVICE_INTERVAL_HIGH,
                     self._statistics(queue.name, contents))
            self._switch(queue, q_service_interval_event=C.MQQSIE_OK)
            queue = self.registry.queues[queue.name]
        if was_empty:
            contents.service_timer = now
        if queue.q_depth_high_event == ENABLED and queue.max_depth:
            depth = len(contents) + contents.uncommitted
            if depth * 100 >= queue.q_depth_high_limit * queue.max_depth:
                self.put(PERFM_QUEUE, C.MQCMD_PERFM_EVENT, C.MQRC_Q_DEPTH_HIGH, self._statistics(queue.name, contents))
                self._switch(queue, q_depth_high_event=C.MQEVR_DISABLED, q_depth_low_event=ENABLED,
                             q_depth_max_event=ENABLED)

    def after_get(self, queue, contents) -> None:
        """A message left ``queue`` by a destructive get (PERFMEV is on): Queue Depth Low, the
        service interval events, and the service timer."""
        if self._emitting:
            return
        now = self.qm.now()
        timer = contents.service_timer
        if timer is not None:
            elapsed = (now - timer) * 1000
            if queue.q_service_interval_event == C.MQQSIE_HIGH and elapsed > queue.q_service_interval:
                self.put(PERFM_QUEUE, C.MQCMD_PERFM_EVENT, C.MQRC_Q_SERVICE_INTERVAL_HIGH,
                         self._statistics(queue.name, contents))
                self._switch(queue, q_service_interval_event=C.MQQSIE_OK)
            elif queue.q_service_interval_event == C.MQQSIE_OK and elapsed <= queue.q_service_interval:
                self.put(PERFM_QUEUE, C.MQCMD_PERFM_EVENT, C.MQRC_Q_SERVICE_INTERVAL_OK,
                         self._statistics(queue.name, contents))
                self._switch(queue, q_service_interval_event=C.MQQSIE_HIGH)
            queue = self.registry.queues.get(queue.name, queue)
        depth = len(contents) + contents.uncommitted
        contents.service_timer = now if depth else None
        if queue.q_depth_low_event == ENABLED and depth * 100 <= queue.q_depth_low_limit * queue.max_depth:
            self.put(PERFM_QUEUE, C.MQCMD_PERFM_EVENT, C.MQRC_Q_DEPTH_LOW, self._statistics(queue.name, contents))
            self._switch(queue, q_depth_low_event=C.MQEVR_DISABLED, q_depth_high_event=ENABLED,
                         q_depth_max_event=ENABLED)

    def queue_full(self, queue_name: str) -> None:
        """Queue Full: an MQPUT or MQPUT1 was refused because the queue is at MaxQDepth."""
        reg = self.registry
        if reg.qmgr.performance_event != ENABLED:
            return
        queue = reg.queues.get(queue_name)
        if queue is None or queue.q_depth_max_event != ENABLED:
            return
        self.put(PERFM_QUEUE, C.MQCMD_PERFM_EVENT, C.MQRC_Q_FULL,
                 self._statistics(queue.name, reg.messages.contents(queue.name)))
        self._switch(queue, q_depth_max_event=C.MQEVR_DISABLED, q_depth_low_event=ENABLED)

    # ---- configuration events (CONFIGEV) -------------------------------------------------------------
    def _origin_params(self, origin: Origin) -> list:
        """EventUserId, EventOrigin, EventQMgr, then the command message's context (MQEVO_MSG only)."""
        params = [_text(C.MQCACF_EVENT_USER_ID, origin.user, C.MQ_USER_ID_LENGTH),
                  P.CFIN(C.MQIACF_EVENT_ORIGIN, origin.origin),
                  _text(C.MQCACF_EVENT_Q_MGR, self.registry.qmgr.name, _QM)]
        md = origin.md
        if origin.origin == MQEVO_MSG and md is not None:
            params += [P.CFBS(C.MQBACF_EVENT_ACCOUNTING_TOKEN, bytes(md.AccountingToken)),
                       _text(C.MQCACF_EVENT_APPL_IDENTITY, md.ApplIdentityData, C.MQ_APPL_IDENTITY_DATA_LENGTH),
                       P.CFIN(C.MQIACF_EVENT_APPL_TYPE, md.PutApplType),
                       _text(C.MQCACF_EVENT_APPL_NAME, md.PutApplName, C.MQ_APPL_NAME_LENGTH),
                       _text(C.MQCACF_EVENT_APPL_ORIGIN, md.ApplOriginData, C.MQ_APPL_ORIGIN_DATA_LENGTH)]
        return params

    def config(self, reason: int, origin: Origin, object_type: int, attributes: list, *,
               after: list | None = None) -> None:
        """Create, Delete or Refresh Object (one message), or Change Object (``after`` given: the
        attributes before, NOT_LAST, then after, LAST).  ``attributes`` are the object's Inquire
        parameters, its name first (IBM: ObjectType, ObjectName, then every attribute)."""
        head = [*self._origin_params(origin), P.CFIN(C.MQIACF_OBJECT_TYPE, object_type)]
        if after is None:
            self.put(CONFIG_QUEUE, C.MQCMD_CONFIG_EVENT, reason, head + attributes, version=MQCFH_VERSION_CONFIG)
            return
        self.put(CONFIG_QUEUE, C.MQCMD_CONFIG_EVENT, reason, head + attributes, version=MQCFH_VERSION_CONFIG,
                 seq=1, last=False)
        self.put(CONFIG_QUEUE, C.MQCMD_CONFIG_EVENT, reason, head + after, version=MQCFH_VERSION_CONFIG,
                 seq=2, last=True)

    # ---- command events (CMDEV) ------------------------------------------------------------------------
    def command(self, origin: Origin, request: P.PCFMessage, *, mqsc: bool) -> None:
        """Command: a command that ran successfully, its context and its data (on Multiplatforms the
        data is PCF even for an MQSC command, whose reason is MQRC_COMMAND_MQSC)."""
        context = [*self._origin_params(origin), P.CFIN(C.MQIACF_COMMAND, request.header.Command)]
        data = list(request.parameters)
        self.put(COMMAND_QUEUE, C.MQCMD_COMMAND_EVENT, C.MQRC_COMMAND_MQSC if mqsc else C.MQRC_COMMAND_PCF,
                 [P.CFGR(C.MQGACF_COMMAND_CONTEXT, context), P.CFGR(C.MQGACF_COMMAND_DATA, data)],
                 version=MQCFH_VERSION_COMMAND)


_LOCAL_REASONS = frozenset({C.MQRC_UNKNOWN_OBJECT_NAME, C.MQRC_UNKNOWN_ALIAS_BASE_Q, C.MQRC_ALIAS_BASE_Q_TYPE_ERROR})
_DEF_XMIT_REASONS = frozenset({C.MQRC_DEF_XMIT_Q_TYPE_ERROR, C.MQRC_DEF_XMIT_Q_USAGE_ERROR, C.MQRC_UNKNOWN_DEF_XMIT_Q})
_REMOTE_REASONS = frozenset({C.MQRC_UNKNOWN_REMOTE_Q_MGR, C.MQRC_UNKNOWN_XMIT_Q, C.MQRC_XMIT_Q_TYPE_ERROR,
                             C.MQRC_XMIT_Q_USAGE_ERROR}) | _DEF_XMIT_REASONS
