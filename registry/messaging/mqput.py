"""MQPUT and MQPUT1: the put path, on its own object (``QueueManager.put``/``put1`` delegate here).

A put is checked (handle, options, the MQMD's fields, MAXPROPL, MAXUMSGS), its MQMD stamped with the
context the connection may not set itself, then either published (a topic's handle, through the
queue manager's ``publish``) or placed on its queue by the ``Enqueuer`` (a unit of work's put staged
there), with its trigger message; counted per queue (registry/monitoring/counters.py) and, when
refused, counted and reported as the refusal's events say.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.errors import MQIError
from qmlite.registry.messaging import properties
from qmlite.registry.messaging import triggers
from qmlite.registry.messaging.sessions import Handle, PendingPut, Session
from qmlite.registry.monitoring.counters import count_put_failure, count_queue_put, count_topic_put, counted_put
from qmlite.registry.objects.definitions import put_stamp
from qmlite.registry.pubsub import routing
from qmlite.registry.security import authority

if TYPE_CHECKING:
    from qmlite.registry.messaging.enqueue import Enqueuer
    from qmlite.registry.monitoring.counters import MQIStats
    from qmlite.registry.monitoring.events import Events
    from qmlite.registry.storage.catalog import Registry
    from qmlite.registry.testing.faults import Faults

ZERO24 = bytes(24)
_ENABLED = C.MQEVR_ENABLED  # an event switch that is on
_CONTEXT_SET = C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT
_REPORTS_TO_REPLY_Q = (C.MQRO_EXCEPTION | C.MQRO_EXPIRATION | C.MQRO_COA | C.MQRO_COD | C.MQRO_PAN | C.MQRO_NAN
                      | C.MQRO_ACTIVITY)
_PUT1_CONTEXT = ((C.MQPMO_SET_IDENTITY_CONTEXT, C.MQOO_SET_IDENTITY_CONTEXT),
                 (C.MQPMO_SET_ALL_CONTEXT, C.MQOO_SET_ALL_CONTEXT),
                 (C.MQPMO_PASS_IDENTITY_CONTEXT, C.MQOO_PASS_IDENTITY_CONTEXT),
                 (C.MQPMO_PASS_ALL_CONTEXT, C.MQOO_PASS_ALL_CONTEXT),
                 (C.MQPMO_ALTERNATE_USER_AUTHORITY, C.MQOO_ALTERNATE_USER_AUTHORITY))


class PutPath:
    """MQPUT/MQPUT1.  ``open_object`` and ``release`` are the queue manager's MQOPEN and MQCLOSE steps
    (MQPUT1 is an open, a put and a close), ``publish`` its publication to a topic's subscribers."""

    def __init__(self, registry: Registry, *, stats: MQIStats, events: Events, faults: Faults, enqueuer: Enqueuer,
                 now: Callable[[], float], publish: Callable[..., int],
                 open_object: Callable[..., tuple[Handle, S.MQOD]], release: Callable[..., None]) -> None:
        self.registry = registry
        self.stats = stats
        self.events = events
        self.faults = faults
        self.enqueuer = enqueuer
        self.now = now
        self.publish = publish
        self.open_object = open_object
        self.release = release

    def put(self, session: Session, hobj: int, md: S.MQMD, pmo: S.MQPMO, data: bytes) -> tuple[S.MQMD, S.MQPMO, int]:
        handle = session.handles.get(hobj)
        if handle is None:
            self.stats.put_fails += 1
            raise MQIError(C.MQRC_HOBJ_ERROR)
        try:
            return self.put_handle(session, handle, md, pmo, data)
        except MQIError as exc:
            self.failed(session, handle, exc.reason, one=False)
            raise

    def put1(self, session: Session, od: S.MQOD, md: S.MQMD, pmo: S.MQPMO,
             data: bytes, props=None) -> tuple[S.MQOD, S.MQMD, S.MQPMO, int]:
        options = C.MQOO_OUTPUT | (pmo.Options & C.MQPMO_FAIL_IF_QUIESCING and C.MQOO_FAIL_IF_QUIESCING)
        for pmo_option, oo in _PUT1_CONTEXT:  # MQPUT1 checks the context authority its options need
            if pmo.Options & pmo_option:
                options |= oo
        try:
            handle, od = self.open_object(session, od, options, verb="")  # MQPUT1's rules: at the put
        except MQIError as exc:
            count_put_failure(self.stats, session.acct.counts if session.acct is not None else None, None, one=True)
            self.events.open_failed(session, od, options, exc.reason)
            raise
        try:
            md, pmo, reason = self.put_handle(session, handle, md, pmo, data, one=True, props=props)
        except MQIError as exc:
            self.failed(session, handle, exc.reason, one=True)
            raise
        finally:
            session.handles.pop(handle.hobj, None)
            self.release(session, handle, C.MQCO_NONE)
        return od, md, pmo, reason

    def failed(self, session: Session, handle: Handle, reason: int, *, one: bool) -> None:
        """A refused MQPUT/MQPUT1: counted, and the events it raises: Put Inhibited (INHIBTEV), Queue
        Full (PERFMEV)."""
        count_put_failure(self.stats, session.acct.counts if session.acct is not None else None, handle, one=one)
        if reason == C.MQRC_PUT_INHIBITED:
            if handle.kind == "topic":
                self.events.put_inhibited(session, topic_string=handle.name)
            else:
                self.events.put_inhibited(session, handle.queue_name or handle.name)
        elif reason == C.MQRC_Q_FULL and handle.kind == "queue":
            self.events.queue_full(handle.name)

    def put_handle(self, session: Session, handle: Handle, md: S.MQMD, pmo: S.MQPMO,
                   data: bytes, *, one: bool = False, props=None) -> tuple[S.MQMD, S.MQPMO, int]:
        if not handle.options & C.MQOO_OUTPUT:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        if pmo.Options & C.MQPMO_SYNCPOINT and pmo.Options & C.MQPMO_NO_SYNCPOINT:
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        faults = self.faults
        if faults.armed:
            faults.fire_for(session, "MQPUT1" if one else "MQPUT", handle.queue_name or handle.name,
                            persistent=faults.diskfull and self._persistent(handle, md))
        now = self.now()
        self._stamp(session, handle, md, pmo, data, now)  # decoded for this call alone: filled in place
        syncpoint = bool(pmo.Options & C.MQPMO_SYNCPOINT)
        if syncpoint:
            check_uow_room(self.registry, session)
        if handle.kind == "topic":
            return self._publish(session, handle, md, pmo, data, one, syncpoint, props)
        return self._to_queue(session, handle, md, pmo, data, one, syncpoint, now)

    def _stamp(self, session: Session, handle: Handle, stored: S.MQMD, pmo: S.MQPMO, data: bytes,
               now: float) -> None:
        """The MQMD as the queue manager stores it: identifiers, the context the connection may not set
        itself, and its fields checked."""
        reg = self.registry
        if pmo.Options & C.MQPMO_NEW_MSG_ID or stored.MsgId == ZERO24:
            stored.MsgId = reg.ids.msg_id()
        if pmo.Options & C.MQPMO_NEW_CORREL_ID:
            stored.CorrelId = reg.ids.msg_id()
        may_set = authority.may_set_context(session, handle)
        if not (pmo.Options & _CONTEXT_SET and may_set):
            stored.UserIdentifier = session.user
            stored.AccountingToken = bytes(32)
            stored.ApplIdentityData = ""
        if not (pmo.Options & C.MQPMO_SET_ALL_CONTEXT and authority.may_set_all_context(session, handle)):
            stored.PutApplType = session.appl_type or C.MQAT_DEFAULT
            stored.PutApplName = session.appl_name[:28]
            stored.PutDate, stored.PutTime = put_stamp(now)
            stored.ApplOriginData = ""
        if stored.ReplyToQ and not stored.ReplyToQMgr:
            stored.ReplyToQMgr = reg.qmgr.name
        stored.BackoutCount = 0
        if stored.Priority != C.MQPRI_PRIORITY_AS_Q_DEF and not 0 <= stored.Priority <= 9:
            raise MQIError(C.MQRC_PRIORITY_ERROR)
        if stored.Persistence not in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT, C.MQPER_PERSISTENCE_AS_Q_DEF):
            raise MQIError(C.MQRC_PERSISTENCE_ERROR)
        if stored.Expiry == 0 or stored.Expiry < C.MQEI_UNLIMITED:
            raise MQIError(C.MQRC_EXPIRY_ERROR)
        limit = reg.qmgr.max_properties_length  # MAXPROPL; NOLIMIT costs nothing
        if limit != C.MQPROP_UNRESTRICTED_LENGTH and properties.properties_length(stored, data) > limit:
            raise MQIError(C.MQRC_PROPERTIES_TOO_BIG)
        pmo.ResolvedQMgrName = reg.qmgr.name

    def _publish(self, session: Session, handle: Handle, stored: S.MQMD, pmo: S.MQPMO, data: bytes, one: bool,
                 syncpoint: bool, props=None) -> tuple[S.MQMD, S.MQPMO, int]:
        """A put to a topic's handle: a publication to its subscribers."""
        check_pubsub_enabled(self.registry)  # a handle opened before ALTER QMGR PSMODE(DISABLED)
        if pmo.Options & C.MQPMO_SUPPRESS_REPLYTO and stored.Report & _REPORTS_TO_REPLY_Q:
            raise MQIError(C.MQRC_MISSING_REPLY_TO_Q)  # IBM: a report needs the reply-to it removes
        pmo.ResolvedQName = ""
        pub_level = pmo.PubLevel if pmo.Version >= 3 else routing.DEFAULT_PUB_LEVEL
        delivered = self.publish(handle.name, stored, data, pub_level, options=pmo.Options,
                                 publisher=session.connection_id, uow=session.uow if syncpoint else None, props=props)
        persistent = stored.Persistence == C.MQPER_PERSISTENT
        count_topic_put(self.stats, persistent, one, len(data), delivered)
        if session.acct is not None:
            count_topic_put(session.acct.counts, persistent, one, len(data), delivered)
        if not delivered and pmo.Options & C.MQPMO_WARN_IF_NO_SUBS_MATCHED:
            return stored, pmo, C.MQRC_NO_SUBS_MATCHED
        return stored, pmo, 0

    def _to_queue(self, session: Session, handle: Handle, stored: S.MQMD, pmo: S.MQPMO, data: bytes, one: bool,
                  syncpoint: bool, now: float) -> tuple[S.MQMD, S.MQPMO, int]:
        """A put to a queue's handle: onto the queue (or, under syncpoint, staged in the unit of work)."""
        reg = self.registry
        enqueuer = self.enqueuer
        if handle.cluster is not None:  # a cluster queue: the workload algorithm picks the instance (registry/cluster/)
            handle.cluster.before_put(reg, handle, stored)
        queue = reg.queues.get(handle.name)
        if queue is None:
            raise MQIError(C.MQRC_Q_DELETED)
        if handle.queue_name != handle.name:
            self._as_opened(handle, stored)
        if queue.cap_expiry > 0 and not 0 < stored.Expiry <= queue.cap_expiry:
            stored.Expiry = queue.cap_expiry  # CAPEXPRY of the queue the message lands on
        kept, props, data = properties.split_message(stored, data, as_sent=True)  # the reply echoes ``stored`` as put
        if handle.remote is not None:
            kept, data = self.for_transmission(kept, data, *handle.remote)
            if handle.cluster is not None and handle.cluster.correl:
                kept.CorrelId = handle.cluster.correl  # the cluster-sender that takes it from SCTQ
        triggered = queue.trigger_control == C.MQTC_ON
        depth_before = triggers.qualifying_depth(reg, queue) if triggered else 0
        if syncpoint:
            msg = enqueuer.message(queue, kept, data, now, props)
            enqueuer.check_put(queue, msg)
            contents = reg.messages.contents(queue.name)
            perf = reg.qmgr.performance_event == _ENABLED
            was_empty = perf and not len(contents) and not contents.uncommitted
            counted_put(contents, uncommitted=True)
            if perf:
                self.events.after_put(queue, contents, was_empty)
            if not session.uow:
                session.uow_started = now
            session.uow.puts.append(PendingPut(queue.name, msg))
        else:
            enqueuer.put_message(queue, kept, data, now, props=props)
        if triggered:
            enqueuer.trigger(queue, kept, depth_before, now, session.uow if syncpoint else None)
        stats = handle.stats
        if stats is None:  # a queue handle not made by MQOPEN (a managed destination's)
            stats = handle.stats = reg.messages.contents(queue.name).stats
        count_queue_put(stats, kept.Persistence == C.MQPER_PERSISTENT, one, len(data))
        pmo.ResolvedQName = handle.queue_name if handle.temporary else queue.name
        if handle.remote is not None:
            pmo.ResolvedQName, pmo.ResolvedQMgrName = handle.remote
        pmo.KnownDestCount = 1
        return stored, pmo, 0

    def _persistent(self, handle: Handle, md: S.MQMD) -> bool:
        if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            queue = self.registry.queues.get(handle.name)
            return queue is not None and queue.def_persistence == C.MQPER_PERSISTENT
        return md.Persistence == C.MQPER_PERSISTENT

    def for_transmission(self, md: S.MQMD, data: bytes, remote_q: str, remote_qmgr: str) -> tuple[S.MQMD, bytes]:
        """A message for another queue manager as it waits on a transmission queue: an MQXQH naming
        its destination and holding its MQMD, then its data; the queue's copy of the MQMD says
        MQFMT_XMIT_Q_HEADER (IBM "MQXQH - Transmission-queue header")."""
        header = S.MQXQH(RemoteQName=remote_q, RemoteQMgrName=remote_qmgr, MsgDesc=md)
        outer = md.copy()
        outer.Format = C.MQFMT_XMIT_Q_HEADER
        outer.Encoding, outer.CodedCharSetId = C.MQENC_NATIVE, self.registry.qmgr.ccsid
        return outer, header.pack("<") + bytes(data)  # the header in the outer MQMD's (native) encoding

    def _as_opened(self, handle: Handle, md: S.MQMD) -> None:
        """An alias or remote definition a queue was opened through acts at MQPUT as IBM's first
        definition in the resolution path: its PUT(DISABLED) refuses, its DEFPRTY and DEFPSIST
        answer AS_Q_DEF, and its CAPEXPRY caps the message's Expiry."""
        via = self.registry.queues.get(handle.queue_name)
        if via is None or via.qtype not in (C.MQQT_ALIAS, C.MQQT_REMOTE):
            return
        if via.inhibit_put == C.MQQA_PUT_INHIBITED:
            raise MQIError(C.MQRC_PUT_INHIBITED)
        if md.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            md.Priority = via.def_priority
        if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            md.Persistence = via.def_persistence
        if via.cap_expiry > 0 and not 0 < md.Expiry <= via.cap_expiry:
            md.Expiry = via.cap_expiry


def check_pubsub_enabled(reg: Registry) -> None:
    """ALTER QMGR PSMODE(DISABLED): MQOPEN of a topic, MQPUT/MQPUT1 to one and MQSUB fail with
    MQRC_PUBSUB_INHIBITED (IBM's 2531).  COMPAT stops only the queued interface, which qmlite lacks."""
    if reg.qmgr.pubsub_mode == C.MQPSM_DISABLED:
        raise MQIError(C.MQRC_PUBSUB_INHIBITED)


def check_uow_room(reg: Registry, session: Session) -> None:
    """MAXUMSGS: a unit of work holds at most that many messages, put and got (IBM's
    MQRC_SYNCPOINT_LIMIT_REACHED 2024 for the call that would exceed it)."""
    uow = session.uow
    if len(uow.puts) + len(uow.gets) >= reg.qmgr.max_uncommitted_msgs:
        raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
