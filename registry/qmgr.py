"""The queue manager: the one domain object every MQI verb, PCF command, MQSC command and REST request goes through.

It owns the registry of definitions, the queues' contents, the sessions (connections and their
handles), units of work, publication routing, the MQSUB rules, authority and the command server's
rules, on an injected clock.  It has no sockets and no event loop: a server decodes a call, calls a
method here, and encodes what it returns.  Plain hooks tell the outside world what it must act
on: ``on_available(queue)`` when a queue gains a message someone may be waiting for, ``on_stopped(session)``
when Stop Connection marks a session, and the store's journal positions (``position`` / ``durable_position``) saying
which writes a reply depends on.

Durability (IBM MQ's promise): a persistent message is written before MQPUT replies (NO_SYNCPOINT)
or before MQCMIT replies; a destructive MQGET of one is written before its reply or at MQCMIT; a
non-persistent message is never written.  Methods here only append writes to the store's journal; a
caller sends the reply once ``durable_position`` has reached the position the call returned with.
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
from collections.abc import Callable

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.security import authority
from qmlite.registry.security import authrecs
from qmlite.registry.pubsub import subscribe
from qmlite.registry.pubsub import routing
from qmlite.registry.pubsub import topics
from qmlite.registry.admin.commandserver import CommandServer
from qmlite.registry.admin.engine import Engine
from qmlite.registry.errors import MQIError
from qmlite.registry.testing.faults import Faults
from qmlite.registry.messaging.enqueue import Enqueuer
from qmlite.registry.messaging.mqget import INPUT, GetPath, Got  # Got: server/mqi.py reads it here
from qmlite.registry.messaging.mqput import ZERO24, PutPath, check_pubsub_enabled
from qmlite.registry.messaging.queues import Message, QueueContents
from qmlite.registry.objects.definitions import Queue
from qmlite.registry.testing.clock import ClockControl
from qmlite.registry.monitoring.resource import Monitor
from qmlite.registry.monitoring.events import MQEVO_MQSET, Events, Origin
from qmlite.registry.messaging.sessions import Handle, Session, UnitOfWork
from qmlite.registry.storage.catalog import Registry
from qmlite.registry.monitoring.counters import ByObjectType, MQIStats
from qmlite.registry.monitoring.accounting import Accounting
from qmlite.registry.monitoring.activity import ActivityTrace, traced
from qmlite.registry.monitoring.statistics import Statistics
from qmlite.registry.monitoring.diagnostics import Diagnostics
from qmlite.registry.objects import channels
from qmlite.registry.telemetry.service import TelemetryService

_ENABLED = C.MQEVR_ENABLED  # an event switch that is on
_TOPIC_OPEN = (C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_ALTERNATE_USER_AUTHORITY
               | C.MQOO_PASS_ALL_CONTEXT | C.MQOO_PASS_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT
               | C.MQOO_SET_IDENTITY_CONTEXT)
_INQUIRE_ONLY = C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_ALTERNATE_USER_AUTHORITY
_OBJECT_KINDS = {C.MQOT_NAMELIST: ("namelist", "namelists"), C.MQOT_PROCESS: ("process", "processes")}
_KIND_TYPES = {"qmgr": C.MQOT_Q_MGR, "queue": C.MQOT_Q, "topic": C.MQOT_TOPIC, "namelist": C.MQOT_NAMELIST,
               "process": C.MQOT_PROCESS}
# The object-type index a handle's MQCLOSE counts under (IBM's arrays stop at 13: a subscription's is its topic's)
_CLOSE_TYPES = {**_KIND_TYPES, "sub": C.MQOT_TOPIC}


def _ignore(_subject: object) -> None:
    pass



class QueueManager:
    def __init__(self, registry: Registry, *, max_handles: int | None = None) -> None:
        self.registry = registry
        if max_handles is not None:
            registry.qmgr.max_handles = max_handles  # MaxHandles has one home: the queue manager's attributes
        self.configured_max_handles = max_handles  # what RESET QMLITE gives MAXHANDS back (decision G3)
        self.sessions: dict[bytes, Session] = {}
        self.engine = Engine(registry, qm=self)  # status commands read the sessions (registry/admin/commands/status.py)
        self.command_server = CommandServer(self)
        # Stop Connection marked a session (registry/admin/commands/status.py): the transport ends what it
        # holds for it now (a delayed reply) rather than at its next call.
        self.on_stopped: Callable[[Session], None] = _ignore
        self.publish_exit = None  # a registry/pubsub/publishexit.py PublishExit, or None
        registry.on_new_subscription = self._administered
        self.quiescing = False
        self.hosting = None  # the registry.hosting.QueueManagers this one is hosted by, when a server hosts several
        self.stats = MQIStats()  # MQI activity for the resource-usage publications and the statistics messages
        self.typed = ByObjectType()  # MQOPEN/MQCLOSE/MQINQ/MQSET per object type, for the statistics messages
        self.monitor = Monitor(self)
        self.statistics = Statistics(self)  # STATMQI/STATQ/STATCHL messages (registry/monitoring/statistics.py)
        self.accounting = Accounting(self)  # ACCTMQI/ACCTQ messages (registry/monitoring/accounting.py)
        self.events = Events(self)  # queue-manager events (registry/monitoring/events.py)
        # The error log and the recent refusals (registry/monitoring/diagnostics.py); the server opens the log.
        self.diagnostics = registry.diagnostics = Diagnostics(registry)
        self.activity = ActivityTrace(self)  # activity trace and the call log (registry/monitoring/activity.py)
        self.started = self.now()  # Inquire Queue Manager Status: StartDate and StartTime
        # the test's clock: virtual when opened with one (registry/testing/clock.py)
        self.clock_control = ClockControl(self)
        self.faults = Faults()  # fault injection for test suites (registry/testing/faults.py)
        # The telemetry (MQXR) service: MQTT channels' running state and the clients' sessions; the
        # server plugs its MQTT transport in (registry/telemetry/service.py).
        self.telemetry = TelemetryService(self.now, self._mqtt_channels, registry.running.services)
        # The verbs' paths, each handed what it uses (registry/messaging/): placing messages on queues,
        # MQPUT/MQPUT1, MQGET.
        self.enqueuer = Enqueuer(registry, self.events, self.now)
        self.puts = PutPath(registry, stats=self.stats, events=self.events, faults=self.faults,
                            enqueuer=self.enqueuer, now=self.now, publish=self.publish,
                            open_object=self._open_object, release=self._release)
        self.gets = GetPath(registry, events=self.events, faults=self.faults, activity=self.activity, now=self.now)

    @classmethod
    def open(cls, data_dir: pathlib.Path, qmgr_name: str = "QM1", *, dev_objects: bool = True,
             synchronous: str = "FULL", max_handles: int | None = None,
             clock: Callable[[], float] = time.time) -> QueueManager:
        """Open (or create) the queue manager whose data lives in ``data_dir``."""
        registry = Registry.open(data_dir, qmgr_name, dev_objects=dev_objects, clock=clock, synchronous=synchronous)
        return cls(registry, max_handles=max_handles)

    def shutdown(self) -> None:
        self.registry.close()

    def now(self) -> float:
        return self.registry.clock()  # one injected clock for definitions, messages and status

    def _mqtt_channels(self) -> list:
        return [ch for ch in self.registry.objects(channels.KIND).values() if ch.channel_type == channels.MQTT]

    # ---- the journal -----------------------------------------------------------------------------
    @property
    def position(self) -> int:
        """The journal position of the last write appended (what a reply sent now depends on)."""
        return self.registry.store.appended

    @property
    def durable_position(self) -> int:
        return self.registry.store.durable

    def flush(self) -> None:
        """Make every appended write durable now, on this thread (for callers without a group committer)."""
        self.registry.commit()

    # ---- MQCONN / MQDISC -------------------------------------------------------------------------
    def check_connect(self, qmgr_name: str) -> None:
        if qmgr_name not in ("", "*", self.registry.qmgr.name):
            # one endmqm ended beside this one is not available (2059), as IBM's stopped queue manager
            ended = self.hosting is not None and self.hosting.is_ended(qmgr_name.rstrip(" \x00"))
            raise MQIError(C.MQRC_Q_MGR_NOT_AVAILABLE if ended else C.MQRC_Q_MGR_NAME_ERROR)
        if self.quiescing:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)

    @traced("MQCONNX")
    def connect(self, qmgr_name: str, *, user: str, admin: bool, appl_name: str = "", appl_type: int = 0,
                channel: str = "", conname: str = "", options: int = 0) -> Session:
        """MQCONN(X); ``options`` are the MQCNO Options (their ACCOUNTING_* flags count when ACCTCONO is ENABLED)."""
        stats = self.stats
        try:
            self.check_connect(qmgr_name)
            authority.check_connect(self.registry, user)  # connect on the queue manager (authrecs)
            fault = self.faults.fire("MQCONN", self.registry.qmgr.name, user, channel, appl_name)
        except MQIError as exc:
            stats.conn_fails += 1
            if exc.reason == C.MQRC_NOT_AUTHORIZED:
                self.events.not_authorized_connect(user=user, appl_type=appl_type, appl_name=appl_name,
                                                   channel=channel, conname=conname)
            raise
        session = Session(self.registry.ids.connection_id(), user, admin, appl_name, appl_type, channel,
                          conname=conname, started=self.now())
        session.fault = fault  # a delayed reply, for the transport
        self.sessions[session.connection_id] = session
        session.acct = self.accounting.start(session, options)  # None unless accounting is on for it
        session.cno_options = options
        session.trace = self.activity.start(session, options)  # None unless activity trace is on for it
        stats.conns += 1
        if len(self.sessions) > stats.conn_hwm:
            stats.conn_hwm = len(self.sessions)
        if len(self.sessions) > stats.conns_max:  # the statistics interval's ConnsMax
            stats.conns_max = len(self.sessions)
        return session

    @traced("MQDISC")
    def disconnect(self, session: Session, *, commit: bool) -> None:
        """MQDISC commits the unit of work; a connection that ends without MQDISC backs it out."""
        if not session.connected:
            return
        self.stats.discs += 1
        if not commit:
            self.stats.discs_implicit += 1  # the connection ended without MQDISC
        if commit:  # not MQCMIT/MQBACK calls: no fault rule sees them
            self._commit(session, explicit=False)
        else:
            self._backout(session, explicit=False)
        for handle in list(session.handles.values()):
            self._release(session, handle, C.MQCO_NONE)
        session.handles.clear()
        session.connected = False
        self.sessions.pop(session.connection_id, None)
        if session.acct is not None:  # IBM writes a connection's accounting when it ends
            self.accounting.finish(session, implicit=not commit)

    # ---- message channels' status -----------------------------------------------------------------
    def channel_status(self, channel):
        """A message channel's current status (registry/channels/mcastatus.py), None before it ever ran."""
        return self.registry.running.message_channels.get(channel.name)

    def channel_saved_status(self, channel, partner: str = ""):
        """A message channel's SAVED status, from its synchronisation records (kept across a restart);
        ``partner``: a cluster-receiver's sending queue manager."""
        from qmlite.registry.channels import mcastatus  # loaded at the first saved-status inquiry

        return mcastatus.saved_of(self, channel, partner)

    def message_channel_views(self) -> list:
        """Every message channel defined here with its status, for the topology (registry/channels/channelgraph.py)."""
        from qmlite.registry.channels import channelgraph  # loaded at the first topology asked for

        return channelgraph.channel_views(self)

    # ---- statistics and accounting ------------------------------------------------------------------
    def monitoring_tick(self, now: float | None = None) -> int:
        """The server's clock, every second or so: the statistics interval ends when STATINT has
        passed, and each long-running connection writes an intermediate accounting record every
        ACCTINT (registry/monitoring/); returns the messages written."""
        now = self.now() if now is None else now
        return self.statistics.tick(now) + self.accounting.tick(now) + self.activity.tick(now)

    # ---- MQOPEN / MQCLOSE ------------------------------------------------------------------------
    @traced("MQOPEN")
    def open_object(self, session: Session, od: S.MQOD, options: int) -> tuple[Handle, S.MQOD]:
        try:
            handle, od = self._open_object(session, od, options)
        except MQIError as exc:
            self.stats.open_fails += 1
            index = od.ObjectType if 0 <= od.ObjectType < len(self.typed.opens) else 0
            self.typed.open_fails[index] += 1
            if session.acct is not None:
                session.acct.counts.open_fails[index] += 1
            self.events.open_failed(session, od, options, exc.reason)
            raise
        self.stats.opens += 1
        index = _KIND_TYPES[handle.kind]
        self.typed.opens[index] += 1
        if handle.kind == "queue":
            handle.stats.opens += 1
        if session.acct is not None:
            session.acct.opened(handle, index, self.now())
        return handle, od

    def open_transmission(self, session: Session, queue: str, qmgr: str, options: int) -> Handle:
        """The telemetry service's own open of queue ``queue`` on queue manager ``qmgr`` (an MQTT
        ClientIdentifier) for a subscription's destination: IBM's MQXR opens it as the service's user,
        so the client's authority is checked on the topic at MQSUB, not on the transmission queue."""
        od = S.MQOD(ObjectName=queue, ObjectQMgrName=qmgr)
        return self._open_object(session, od, options, verb="", service=True)[0]

    def _open_object(self, session: Session, od: S.MQOD, options: int,
                     verb: str = "MQOPEN", service: bool = False) -> tuple[Handle, S.MQOD]:
        reg = self.registry
        if self.faults.armed and verb:
            self.faults.fire_for(session, verb, od.ObjectName or od.ObjectString.VSString)
        if len(session.handles) >= reg.qmgr.max_handles:
            raise MQIError(C.MQRC_HANDLE_NOT_AVAILABLE)
        kind = od.ObjectType
        if od.ObjectQMgrName not in ("", reg.qmgr.name) and kind != C.MQOT_Q:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_Q_MGR)
        if kind == C.MQOT_Q_MGR:
            if options & ~_INQUIRE_ONLY:
                raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            authority.check_object(reg, session, kind, authrecs.QMGR_PROFILE, options, od.AlternateUserId)
            handle = Handle(0, "qmgr", reg.qmgr.name, options, object_name=reg.qmgr.name)
        elif kind == C.MQOT_TOPIC:
            handle = self._open_topic(session, od, options)
        elif kind == C.MQOT_Q:
            handle = self._open_queue(session, od, options, service)
        elif kind in _OBJECT_KINDS:
            handle = self._open_definition(session, od, options, *_OBJECT_KINDS[kind])
        else:
            raise MQIError(C.MQRC_OBJECT_TYPE_ERROR)
        session.add_handle(handle)
        if handle.kind == "queue":
            contents = reg.messages.contents(handle.name)
            handle.stats = contents.stats  # the contents live as long as the queue, which outlives the handle
            if session.acct is not None:  # counted for the queue and for this connection's accounting
                handle.stats = session.acct.tee(handle.name, contents.stats)
            if options & INPUT:
                contents.open_input += 1
            if options & C.MQOO_INPUT_EXCLUSIVE:
                contents.exclusive += 1
            if options & C.MQOO_OUTPUT:
                contents.open_output += 1
            od.ResolvedQName, od.ResolvedQMgrName = handle.remote or (handle.name, reg.qmgr.name)
        return handle, od

    def _open_queue(self, session: Session, od: S.MQOD, options: int, service: bool = False) -> Handle:
        reg = self.registry
        name = od.ObjectName
        alias = reg.queues.get(od.ObjectQMgrName) if od.ObjectQMgrName not in ("", reg.qmgr.name) else None
        if alias is not None and alias.qtype == C.MQQT_REMOTE and not alias.remote_q_name and not alias.xmit_q_name:
            # a queue-manager alias (QREMOTE with a blank RNAME): its RQMNAME in place of the name (CLV8)
            od = dataclasses.replace(od, ObjectQMgrName=alias.remote_qmgr_name)
        if getattr(reg, "cluster_repository", None) is not None:  # a queue or member of the cluster (registry/cluster/)
            from qmlite.registry.cluster import resolution as cluster_resolution

            routed = cluster_resolution.open_handle(self, session, od, options, Handle)
            if routed is not None:
                return routed
        if od.ObjectQMgrName not in ("", reg.qmgr.name):
            return self._open_for_transmission(session, od, options, check=not service)
        queue = reg.queues.get(name)
        if queue is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        alternate = od.AlternateUserId if options & C.MQOO_ALTERNATE_USER_AUTHORITY else ""
        authority.check_queue(reg, session, name, options, alternate)
        temporary = False
        remote = None
        if queue.qtype == C.MQQT_MODEL:
            authority.check_create_dynamic(reg, session, name, options, alternate)
            queue, temporary = self._create_dynamic(session, queue, od.DynamicQName)
            od.ObjectName = queue.name
        elif queue.qtype == C.MQQT_ALIAS:
            target = reg.queues.get(queue.target)
            if queue.target_type == C.MQOT_TOPIC:
                raise MQIError(C.MQRC_FUNCTION_NOT_SUPPORTED)
            if target is None:
                raise MQIError(C.MQRC_UNKNOWN_ALIAS_BASE_Q)
            if target.qtype != C.MQQT_LOCAL:  # IBM 2001: the base is an alias or model queue
                raise MQIError(C.MQRC_ALIAS_BASE_Q_TYPE_ERROR)
            queue = target
        elif queue.qtype == C.MQQT_REMOTE and options & (INPUT | C.MQOO_BROWSE | C.MQOO_OUTPUT):
            queue, remote = self._remote_target(queue, options)  # inquire alone: the definition itself
        if options & INPUT:
            # A get-inhibited queue still opens for input; MQGET fails with 2016 while it stays
            # inhibited (IBM's InhibitGet page: "MQGET calls fail with reason code
            # MQRC_GET_INHIBITED", browses included), as a put-inhibited one opens for output.
            # NOSHARE: "only one application instance can open the queue for input", whatever it asks
            exclusive = options & C.MQOO_INPUT_EXCLUSIVE or queue.shareability == C.MQQA_NOT_SHAREABLE or (
                options & C.MQOO_INPUT_AS_Q_DEF and queue.def_input_open_option == C.MQOO_INPUT_EXCLUSIVE)
            contents = reg.messages.peek(queue.name)
            if contents is not None and (contents.exclusive or (exclusive and contents.open_input)):
                raise MQIError(C.MQRC_OBJECT_IN_USE)
        # A put-inhibited local queue still opens for output; MQPUT/MQPUT1 fail with 2051 while it
        # stays inhibited (IBM's 2051 and 2268 pages: "If there is a local instance, the MQOPEN call
        # succeeds, even if the local instance is put-inhibited").
        handle = Handle(0, "queue", queue.name, options, queue_name=od.ObjectName, object_name=od.ObjectName,
                        temporary=temporary, remote=remote)
        text = od.SelectionString.VSString if od.Version >= C.MQOD_VERSION_4 else ""
        if text:
            from qmlite.registry.pubsub import selectors  # at the first selection string (docs/decisions.md ST11)

            subscribe.check_selector(text)  # MQRC_SELECTOR_SYNTAX_ERROR / MQRC_SELECTION_STRING_ERROR
            handle.selector = selectors.compile_selector(text)
        return handle

    def _open_for_transmission(self, session: Session, od: S.MQOD, options: int, *, check: bool = True) -> Handle:
        """A queue on another queue manager, named in ObjectQMgrName: output (and inquire) only, onto
        its transmission queue behind an MQXQH.  The authority checked is the transmission queue's,
        IBM's rule for a queue manager that is not this one (and what MQTT's direct puts need)."""
        if options & (INPUT | C.MQOO_BROWSE):
            raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        xmitq = self.transmission_queue(od.ObjectQMgrName)
        if check:
            alternate = od.AlternateUserId if options & C.MQOO_ALTERNATE_USER_AUTHORITY else ""
            authority.check_queue(self.registry, session, xmitq.name, options, alternate)
        return Handle(0, "queue", xmitq.name, options, queue_name=od.ObjectName, object_name=od.ObjectName,
                      remote=(od.ObjectName, od.ObjectQMgrName))

    def _remote_target(self, definition: Queue, options: int) -> tuple[Queue, tuple[str, str] | None]:
        """Where a remote queue definition opened for output puts (docs/decisions.md O1).  One naming
        this queue manager resolves to its local queue RNAME; one naming another queue manager to a
        transmission queue: XMITQ, else the local queue named as the queue manager, else the queue
        manager's DEFXMITQ, as IBM resolves them (the second element: RNAME and RQMNAME, for the MQXQH
        each message gets).  IBM: a remote queue opens for output and inquire only."""
        if options & (INPUT | C.MQOO_BROWSE):
            raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        reg = self.registry
        rqm = definition.remote_qmgr_name
        if rqm in ("", reg.qmgr.name):
            target = reg.queues.get(definition.remote_q_name)
            if target is not None and target.qtype == C.MQQT_ALIAS:
                target = reg.queues.get(target.target)
            if target is None or target.qtype != C.MQQT_LOCAL:
                raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
            return target, None
        return self.transmission_queue(rqm, definition.xmit_q_name), (definition.remote_q_name, rqm)

    def transmission_queue(self, rqm: str, named: str = "") -> Queue:
        """The transmission queue a message for queue manager ``rqm`` waits on: ``named`` (a remote
        definition's XMITQ), else the local queue named as the queue manager, else DEFXMITQ, as IBM
        resolves them.  An MQTT client is such a queue manager, its ClientIdentifier the name
        (docs/mqtt.md: SYSTEM.MQTT.TRANSMIT.QUEUE as DEFXMITQ)."""
        reg = self.registry
        if not named and rqm in reg.queues:
            named = rqm
        named = named or reg.qmgr.def_xmit_q
        if not named:
            raise MQIError(C.MQRC_UNKNOWN_REMOTE_Q_MGR)
        xmitq = reg.queues.get(named)
        if xmitq is None:
            raise MQIError(C.MQRC_UNKNOWN_XMIT_Q)
        if xmitq.qtype != C.MQQT_LOCAL:
            raise MQIError(C.MQRC_XMIT_Q_TYPE_ERROR)
        if xmitq.usage != C.MQUS_TRANSMISSION:
            raise MQIError(C.MQRC_XMIT_Q_USAGE_ERROR)
        return xmitq

    def _create_dynamic(self, session: Session, model: Queue, template: str) -> tuple[Queue, bool]:
        reg = self.registry
        template = template or "AMQ.*"
        name = reg.ids.dynamic_name(template)
        if name in reg.queues:
            raise MQIError(C.MQRC_OBJECT_ALREADY_EXISTS)
        if not name or len(name) > 48:
            raise MQIError(C.MQRC_DYNAMIC_Q_NAME_ERROR)
        temporary = model.def_type == C.MQQDT_TEMPORARY_DYNAMIC
        now = self.now()
        queue = dataclasses.replace(model, name=name, qtype=C.MQQT_LOCAL, definition_type=model.def_type,
                                    created=now, altered=now)
        if temporary:
            reg.queues[name] = queue  # temporary dynamic queues never outlive their handle: not stored
        else:
            reg.put_queue(queue)
        authrecs.grant_creator(reg, name, session.user, persistent=not temporary)
        return queue, temporary

    def _open_topic(self, session: Session, od: S.MQOD, options: int) -> Handle:
        reg = self.registry
        check_pubsub_enabled(reg)
        string = subscribe.resolve_topic(reg, od.ObjectName, od.ObjectString.VSString, empty=C.MQRC_UNKNOWN_OBJECT_NAME)
        node = reg.nearest_topic(string)
        alternate = od.AlternateUserId if options & C.MQOO_ALTERNATE_USER_AUTHORITY else ""
        if options & C.MQOO_OUTPUT:
            authority.check_publish(session, reg, string, options, alternate)
        else:
            authority.check_topic(session, reg, string, options=options, alternate=alternate)
        if topics.has_topic_wildcards(string):
            raise MQIError(C.MQRC_TOPIC_STRING_ERROR)
        if options & ~_TOPIC_OPEN:
            raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        if options & C.MQOO_OUTPUT and reg.topic_attr(string, "inhibit_publications") == C.MQTA_PUB_INHIBITED:
            raise MQIError(C.MQRC_PUT_INHIBITED)
        od.ResObjectString = S.MQCHARV(string, max(od.ResObjectString.VSBufSize, 0))
        # MQINQ on a topic handle reports the administered object it was opened by, else the nearest one.
        object_name = od.ObjectName or (node.name if node is not None else "SYSTEM.BASE.TOPIC")
        return Handle(0, "topic", string, options, object_name=object_name)

    def _open_definition(self, session: Session, od: S.MQOD, options: int, kind: str, table: str) -> Handle:
        if options & ~_INQUIRE_ONLY:
            raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        if od.ObjectName not in getattr(self.registry, table):
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        authority.check_object(self.registry, session, od.ObjectType, od.ObjectName, options, od.AlternateUserId)
        return Handle(0, kind, od.ObjectName, options, object_name=od.ObjectName)

    @traced("MQCLOSE")
    def close_object(self, session: Session, hobj: int, options: int) -> None:
        handle = session.handles.pop(hobj, None)
        if handle is None:
            self.stats.close_fails += 1
            self.typed.close_fails[0] += 1  # an unknown handle has no object type: IBM's unused index 0
            if session.acct is not None:
                session.acct.counts.close_fails[0] += 1
            raise MQIError(C.MQRC_HOBJ_ERROR)
        self.stats.closes += 1
        index = _CLOSE_TYPES[handle.kind]
        self.typed.closes[index] += 1
        if handle.kind == "queue":
            contents = self.registry.messages.peek(handle.name)
            if contents is not None:
                contents.stats.closes += 1
        elif handle.kind == "sub":
            self._count_unsub(handle, options, self.stats)
            if session.acct is not None:
                self._count_unsub(handle, options, session.acct.counts)
        if session.acct is not None:
            session.acct.closed(handle, index, self.now())
        self._release(session, handle, options)

    def _count_unsub(self, handle: Handle, options: int, stats) -> None:
        """MQCLOSE of a subscription handle: an unsubscribe when it removes a durable subscription
        (MQCO_REMOVE_SUB) or ends a non-durable one, as IBM's UnsubCountDur/UnsubCountNDur count."""
        sub = self.registry.subs_by_id.get(handle.sub_id)
        if sub is None:
            return
        if sub.durable == C.MQSUB_DURABLE_YES:
            if options & C.MQCO_REMOVE_SUB:
                stats.unsubs_dur += 1
        else:
            stats.unsubs_ndur += 1

    def _release(self, session: Session, handle: Handle, options: int) -> None:
        if handle.kind == "sub":
            subscribe.close_sub(self, handle, options)
            return
        if handle.kind != "queue":
            return
        reg = self.registry
        name = handle.name
        contents = reg.messages.peek(name)
        if contents is not None:
            if handle.options & INPUT and contents.open_input:
                contents.open_input -= 1
            if handle.options & C.MQOO_OUTPUT and contents.open_output:
                contents.open_output -= 1
            if handle.options & C.MQOO_INPUT_EXCLUSIVE and contents.exclusive:
                contents.exclusive -= 1
        queue = reg.queues.get(name)
        if queue is None:
            return
        if handle.temporary:
            reg.queues.pop(name, None)
            reg.messages.drop(name)
        elif options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE) and queue.definition_type == C.MQQDT_PERMANENT_DYNAMIC:
            if options & C.MQCO_DELETE and not options & C.MQCO_DELETE_PURGE and reg.messages.depth(name):
                return  # MQ keeps a non-empty queue on DELETE without PURGE
            reg.remove_queue(queue)

    # ---- MQPUT / MQPUT1 (registry/messaging/mqput.py) ----------------------------------------------
    @traced("MQPUT")
    def put(self, session: Session, hobj: int, md: S.MQMD, pmo: S.MQPMO, data: bytes) -> tuple[S.MQMD, S.MQPMO, int]:
        return self.puts.put(session, hobj, md, pmo, data)

    @traced("MQPUT1")
    def put1(self, session: Session, od: S.MQOD, md: S.MQMD, pmo: S.MQPMO,
             data: bytes, props=None) -> tuple[S.MQOD, S.MQMD, S.MQPMO, int]:
        """``props``: message properties given apart from ``data`` (a ``pcf.properties.Properties``),
        as a message handle gives them; the MQTT service's publications (registry/telemetry/mapping.py)."""
        return self.puts.put1(session, od, md, pmo, data, props)

    # ---- a message onto a queue (registry/messaging/enqueue.py) -----------------------------------
    @property
    def on_available(self) -> Callable[[str], None]:
        """The transport's hook: ``on_available(queue)`` when a queue gains a message someone may wait for."""
        return self.enqueuer.on_available

    @on_available.setter
    def on_available(self, hook: Callable[[str], None]) -> None:
        self.enqueuer.on_available = hook

    def put_message(self, queue: Queue, md: S.MQMD, data: bytes, now: float | None = None, *,
                    durable_after: int = 0, application: bool = True, props=None,
                    depth_limit: bool = True) -> Message:
        """Put onto a local queue (checking its limits), write it if persistent, wake waiting GETs."""
        return self.enqueuer.put_message(queue, md, data, now, durable_after=durable_after,
                                         application=application, props=props, depth_limit=depth_limit)

    def dead_letter(self, md: S.MQMD, data: bytes, *, reason: int = 0, queue: str = "", qmgr: str = "",
                    props=None, uow: UnitOfWork | None = None) -> bool:
        """Onto the dead-letter queue behind an MQDLH saying why (``Enqueuer.dead_letter``)."""
        return self.enqueuer.dead_letter(md, data, reason=reason, queue=queue, qmgr=qmgr, props=props, uow=uow)

    # ---- publish ---------------------------------------------------------------------------------
    def publish(self, topic: str, md: S.MQMD, data: bytes, pub_level: int = routing.DEFAULT_PUB_LEVEL, *,
                options: int = 0, publisher: bytes = ZERO24, uow: UnitOfWork | None = None, props=None) -> int:
        """Deliver a publication to the subscriptions that select it; returns how many matched (a copy
        that went to the dead-letter queue counts as delivered, IBM's MQRC_NO_SUBS_MATCHED rule).

        Raises MQIError when a copy that the topic's PMSGDLV/NPMSGDLV requires cannot be delivered
        (nor dead-lettered): then no subscriber gets one, as IBM's publication is all or nothing.
        Under syncpoint (``uow``) the copies are uncommitted puts of that unit of work.
        """
        reg = self.registry
        if reg.qmgr.pubsub_mode == C.MQPSM_DISABLED:
            return 0  # the queue manager's own publications ($SYS monitoring) stop with the engine
        reg.expire_subscriptions()
        pub = routing.publication(reg, topic, md, data, pub_level, options, publisher, props)
        subs = routing.receivers(reg, pub)
        if subs:
            self.deliver(pub, subs, uow)
        forwarded = 0
        if getattr(reg, "cluster_repository", None) is not None:  # a clustered topic's other members (registry/cluster)
            from qmlite.registry.cluster import pubs as cluster_pubs

            forwarded = cluster_pubs.forward(self, topic, pub.md, pub.body, pub.props,
                                              bool(options & C.MQPMO_RETAIN))
        if options & C.MQPMO_RETAIN:  # only a publication that went out is retained
            retained = (topic, pub.md.copy(), pub.props, pub.body)
            if uow is None:
                reg.retain(*retained)
            else:
                uow.retains.append(retained)
        return len(subs) + forwarded

    def _administered(self, sub) -> None:
        if sub.request_only != C.MQRU_PUBLISH_ON_REQUEST:
            try:
                self.send_retained(sub)
            except MQIError:
                pass  # the subscription stands; what its queue cannot take is not a command error

    def send_retained(self, sub) -> int:
        """Deliver the retained publications a subscription matches (at MQSUB, or MQSUBRQ), marked as
        retained; returns how many were sent."""
        reg = self.registry
        if sub.sub_level > 1 or not reg.retained:
            return 0  # IBM: a retained publication is sent again at PubLevel 1
        if routing.first_wildcard_level(sub) is None:
            kept = reg.retained.get(sub.resolved_topic)
            candidates = [(sub.resolved_topic, kept)] if kept is not None else []
        else:
            candidates = [(t, kept) for t, kept in reg.retained.items()
                          if topics.matches(sub.resolved_topic, t, sub.wildcard_schema)]
        now = self.now()
        sent = 0
        for topic, kept in candidates:
            left = kept.expiry_left(now)
            if left is None:
                reg.forget_retained(topic)  # expired while it waited, as a message on a queue does
                continue
            if sub.blocked_under and routing.blocked(sub, topic):
                continue
            md = kept.md.copy()
            md.Expiry = left
            pub = routing.Publication(topic, md, kept.body, kept.props, pub_level=1, retained=True)
            if sub.selector and not routing.selected(sub, pub):
                continue
            sent += self.deliver(pub, [sub])
        return sent

    def deliver(self, pub: routing.Publication, subs: list, uow: UnitOfWork | None = None) -> int:
        """Put one copy of ``pub`` for each subscription, following the topic's delivery rules."""
        reg = self.registry
        now = self.now()
        copies = routing.deliveries(reg, pub, subs, now, reg.ids.msg_id)
        if self.publish_exit is not None:
            checked = self.publish_exit.run(pub, copies)
        else:
            checked = [(copy, 0) for copy in copies]
        placed: list[tuple[Queue, routing.Delivery]] = []
        failed: list[tuple[routing.Delivery, int]] = []
        added: dict[str, int] = {}  # copies this publication already adds to a queue, for its MaxDepth
        for copy, reason in checked:
            queue = None
            if not reason:
                queue, reason = self._destination(copy, added)
            if reason:
                failed.append((copy, reason))
            else:
                placed.append((queue, copy))
        dead = []
        if failed:
            persistent = pub.md.Persistence == C.MQPER_PERSISTENT
            rule = int(reg.topic_attr(pub.topic, "pm_delivery" if persistent else "npm_delivery"))
            use_dlq = reg.topic_attr(pub.topic, "use_dlq") == C.MQUSEDLQ_YES
        for copy, reason in failed:
            if use_dlq and self._dead_letter_room(added):
                dead.append((copy, reason))
                added[reg.qmgr.dead_letter_queue] = added.get(reg.qmgr.dead_letter_queue, 0) + 1
            elif rule == C.MQDLV_ALL or (rule == C.MQDLV_ALL_DUR and copy.sub.durable == C.MQSUB_DURABLE_YES):
                # IBM: "The publication has not been delivered to any of the subscribers."
                raise MQIError(C.MQRC_PUBLICATION_FAILURE)
        for queue, copy in placed:
            self._put_copy(queue, copy, now, uow)
        for copy, reason in dead:
            self.enqueuer.dead_letter(copy.md, copy.data, reason=reason, queue=copy.queue, qmgr=copy.qmgr,
                                      props=copy.props,
                             uow=uow)
        return len(placed)

    def _destination(self, copy: routing.Delivery, added: dict[str, int]) -> tuple[Queue | None, int]:
        """The local queue a copy goes to, or the reason it cannot go there."""
        reg = self.registry
        if copy.qmgr not in ("", reg.qmgr.name):
            # Another queue manager (an MQTT client is one, named by its ClientIdentifier): its
            # transmission queue, as a put to it resolves; qmlite has no channels that would empty it.
            try:
                queue = self.transmission_queue(copy.qmgr)
            except MQIError as exc:
                return None, exc.reason
        else:
            queue = reg.queues.get(copy.queue)
        if queue is None or queue.qtype != C.MQQT_LOCAL:
            return None, C.MQRC_UNKNOWN_OBJECT_NAME
        if queue.inhibit_put == C.MQQA_PUT_INHIBITED:
            return None, C.MQRC_PUT_INHIBITED
        if len(copy.data) > queue.max_msg_length:
            return None, C.MQRC_MSG_TOO_BIG_FOR_Q
        if len(copy.data) > reg.qmgr.max_msg_length:
            return None, C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
        if reg.messages.depth(queue.name) + added.get(queue.name, 0) >= queue.max_depth:
            return None, C.MQRC_Q_FULL
        added[queue.name] = added.get(queue.name, 0) + 1
        return queue, 0

    def _dead_letter_room(self, added: dict[str, int]) -> bool:
        reg = self.registry
        dlq = reg.queues.get(reg.qmgr.dead_letter_queue)
        return (dlq is not None and dlq.qtype == C.MQQT_LOCAL and dlq.inhibit_put != C.MQQA_PUT_INHIBITED
                and reg.messages.depth(dlq.name) + added.get(dlq.name, 0) < dlq.max_depth)

    def _put_copy(self, queue: Queue, copy: routing.Delivery, now: float, uow: UnitOfWork | None) -> None:
        md, data = copy.md, copy.data
        handed = False
        if queue.name != copy.queue and copy.qmgr not in ("", self.registry.qmgr.name):
            # A copy for an MQTT client its connection takes at once (registry/telemetry/mapping.py Handover).
            handover = self.enqueuer.handovers.get(queue.name) if uow is None else None
            handed = handover is not None and handover(queue, copy, now)
            if not handed:
                md, data = self.puts.for_transmission(md, data, copy.queue, copy.qmgr)
        if not handed:
            self.enqueuer.stage(queue.name, self.enqueuer.message(queue, md, data, now, copy.props), uow)
        sub = copy.sub
        sub.message_count += 1  # status, kept in memory like a queue manager's status
        sub.last_message = now

    # ---- MQGET (registry/messaging/mqget.py) ------------------------------------------------------
    def input_handle(self, session: Session, hobj: int, options: int) -> Handle:
        """The handle an MQGET reads, checked once per MQGET (however long it then waits)."""
        return self.gets.input_handle(session, hobj, options)

    @traced("MQGET")
    def get(self, session: Session, handle: Handle, md: S.MQMD, gmo: S.MQGMO, buffer_length: int) -> Got | None:
        """Take (or browse) the first matching message; None when there is none (yet)."""
        return self.gets.get(session, handle, md, gmo, buffer_length)

    def get_ended(self, session: Session, handle: Handle, gmo: S.MQGMO, reason: int) -> None:
        """An MQGET (or its wait) ended with no message (``reason``): counted, and traced."""
        self.gets.get_ended(session, handle, gmo, reason)

    def get_failed(self, handle: Handle, options: int) -> None:
        self.gets.get_failed(handle, options)

    def take_message(self, name: str, contents: QueueContents, msg: Message, *, write: bool = True) -> None:
        """A destructive get: the message leaves the queue (and the disk, unless a unit of work holds it)."""
        self.gets.take_message(name, contents, msg, write=write)

    # ---- units of work ---------------------------------------------------------------------------
    @traced("MQCMIT")
    def commit(self, session: Session, *, explicit: bool = True) -> None:
        """MQCMIT: the unit's puts appear (persistent ones written), its gets become final.

        CommitCount counts every MQCMIT, one with no outstanding work too, and the commit MQDISC
        makes of a unit with work in it (``explicit=False``), as IBM's statistics pages say."""
        if self.faults.armed:
            try:
                self.faults.fire_for(session, "MQCMIT", "")
            except MQIError as exc:
                if exc.reason == C.MQRC_BACKED_OUT:  # a commit that fails so has backed the unit out
                    self._backout(session, explicit=False)
                raise
        self._commit(session, explicit=explicit)

    def _commit(self, session: Session, *, explicit: bool = True) -> None:
        puts, gets, retains = session.uow.take()
        if explicit or puts or gets or retains:
            self.stats.commits += 1
            if session.acct is not None:
                session.acct.counts.commits += 1
        session.uow_started = 0.0
        reg = self.registry
        store = reg.store
        for retained in retains:
            reg.retain(*retained)
        for got in gets:
            if got.message.persistent:
                store.delete_message(got.message.seq)
        for item in puts:
            self.enqueuer.settle(item)
            if item.queue in reg.queues:
                item.message.put_time = self.now()
                self.enqueuer.enqueue(item.queue, item.message, counted=True)
            else:  # deleted in the meantime: what a queue manager cannot deliver goes to the dead-letter queue
                self.enqueuer.dead_letter(item.message.md, item.message.data)

    @traced("MQBACK")
    def backout(self, session: Session, *, explicit: bool = True) -> None:
        """MQBACK: the unit's puts vanish, its gets return to their places with BackoutCount + 1.

        BackCount counts every MQBACK, and the backout of a unit with work in it when a connection
        ends without MQDISC (``explicit=False``)."""
        if self.faults.armed:
            self.faults.fire_for(session, "MQBACK", "")
        self._backout(session, explicit=explicit)

    def _backout(self, session: Session, *, explicit: bool = True) -> None:
        puts, gets, _retains = session.uow.take()  # what MQPMO_RETAIN asked for goes with the unit
        if explicit or puts or gets or _retains:
            self.stats.backouts += 1
            if session.acct is not None:
                session.acct.counts.backouts += 1
        session.uow_started = 0.0
        reg = self.registry
        for item in puts:
            self.enqueuer.settle(item)
        for got in reversed(gets):
            if got.queue not in reg.queues:
                continue
            msg = got.message
            msg.md = dataclasses.replace(msg.md, BackoutCount=msg.md.BackoutCount + 1)
            reg.messages.contents(got.queue).restore(msg)
            self.on_available(got.queue)

    # ---- MQINQ / MQSET ---------------------------------------------------------------------------
    def _inquiry_target(self, session: Session, hobj: int, needed: int, refusal: int) -> tuple[int, str]:
        handle = session.handles.get(hobj)
        if handle is None or handle.kind == "sub":
            raise MQIError(C.MQRC_HOBJ_ERROR)
        if not handle.options & needed:
            raise MQIError(refusal)
        return _KIND_TYPES[handle.kind], handle.object_name or handle.name

    @traced("MQINQ")
    def inquire(self, session: Session, hobj: int, selectors: list[int], int_count: int,
                char_length: int) -> tuple[list[int], str, int, int]:
        from qmlite.registry.messaging import inquire

        try:
            obj_type, name = self._inquiry_target(session, hobj, C.MQOO_INQUIRE, C.MQRC_NOT_OPEN_FOR_INQUIRE)
            if self.faults.armed:
                self.faults.fire_for(session, "MQINQ", name)
            answer = inquire.mqinq(self.registry, obj_type, name, selectors, int_count, char_length)
        except MQIError:
            self.stats.inq_fails += 1
            self._typed(session, "inq_fails", hobj)
            raise
        self.stats.inqs += 1
        self._typed(session, "inqs", hobj)
        if obj_type == C.MQOT_Q:
            contents = self.registry.messages.peek(name)
            if contents is not None:
                contents.stats.inqs += 1
        return answer

    @traced("MQSET")
    def set(self, session: Session, hobj: int, selectors: list[int], ints: list[int], chars: str) -> None:
        from qmlite.registry.messaging import inquire

        try:
            obj_type, name = self._inquiry_target(session, hobj, C.MQOO_SET, C.MQRC_NOT_OPEN_FOR_SET)
            if self.faults.armed:
                self.faults.fire_for(session, "MQSET", name)
            before = None
            if self.registry.qmgr.configuration_event == _ENABLED and obj_type == C.MQOT_Q:
                from qmlite.registry.monitoring import configevents  # only when CONFIGEV is on (docs/decisions.md ST11)

                before = configevents.attributes(self.engine, configevents.QUEUE, name)  # IBM: MQSET changes too
            inquire.mqset(self.registry, obj_type, name, selectors, ints, chars)
        except MQIError:
            self.stats.set_fails += 1
            self._typed(session, "set_fails", hobj)
            raise
        if before is not None:
            after = configevents.attributes(self.engine, configevents.QUEUE, name)
            if after is not None:
                self.events.config(C.MQRC_CONFIG_CHANGE_OBJECT, Origin(session.user, MQEVO_MQSET), C.MQOT_Q,
                                   before, after=after)
        self.stats.sets += 1
        self._typed(session, "sets", hobj)
        if obj_type == C.MQOT_Q:
            contents = self.registry.messages.peek(name)
            if contents is not None:
                contents.stats.sets += 1

    def _typed(self, session: Session, counter: str, hobj: int) -> None:
        """Count an MQINQ/MQSET by the object type of its handle (index 0 for an unknown handle)."""
        handle = session.handles.get(hobj)
        index = _CLOSE_TYPES[handle.kind] if handle is not None else 0
        getattr(self.typed, counter)[index] += 1
        if session.acct is not None:
            getattr(session.acct.counts, counter)[index] += 1

    # ---- MQSUB / MQSUBRQ -------------------------------------------------------------------------
    @traced("MQSUB")
    def subscribe(self, session: Session, sd: S.MQSD, hobj: int) -> tuple[Handle, S.MQSD, int]:
        stats = self.stats
        name = sd.SubName.VSString
        existed = bool(name) and name in self.registry.subs
        try:
            check_pubsub_enabled(self.registry)
            if self.faults.armed:
                self.faults.fire_for(session, "MQSUB", sd.ObjectString.VSString or sd.ObjectName or name)
            answer = subscribe.subscribe(self, session, sd, hobj)
        except MQIError as exc:
            stats.sub_fails += 1
            if session.acct is not None:
                session.acct.counts.sub_fails += 1
            if exc.reason == C.MQRC_NOT_AUTHORIZED:
                try:
                    topic = subscribe.resolve_topic(self.registry, sd.ObjectName, sd.ObjectString.VSString)
                except MQIError:
                    topic = sd.ObjectString.VSString
                self.diagnostics.subscribe_refused(session, topic)  # the error log, whatever AUTHOREV says
                if self.registry.qmgr.authority_event == C.MQEVR_ENABLED:
                    self.events.not_authorized_subscribe(session, sd.Options, topic)
            raise
        if session.acct is not None:
            self._count_sub(session.acct.counts, existed, answer[0].options)
        self._count_sub(stats, existed, answer[0].options)
        return answer

    @staticmethod
    def _count_sub(stats, existed: bool, options: int) -> None:
        if not existed:
            if options & C.MQSO_DURABLE:
                stats.subs_durable_created += 1
            else:
                stats.subs_nondurable_created += 1
        elif options & C.MQSO_ALTER:
            stats.subs_altered += 1
        else:
            stats.subs_resumed += 1

    @traced("MQSUBRQ")
    def subscription_request(self, session: Session, hsub: int, action: int) -> int:
        try:
            sent = subscribe.subscription_request(self, session, hsub, action)
        except MQIError:
            self.stats.subrq_fails += 1
            if session.acct is not None:
                session.acct.counts.subrq_fails += 1
            raise
        self.stats.subrqs += 1
        if session.acct is not None:
            session.acct.counts.subrqs += 1
        return sent
