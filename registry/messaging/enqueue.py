"""Placing a message on a local queue: what MQPUT, a commit, a publication's copies, the command
server's replies, event and statistics messages and the dead-letter queue all go through.

``Enqueuer`` resolves a message's AS_Q_DEF priority and persistence, checks the queue's limits,
numbers and stores it (a persistent one is also appended to the message journal), counts it, raises
the performance events and wakes whoever waits on the queue (``on_available``, the transport's hook).
Under syncpoint it stages the message in the unit of work instead (``stage``); MQCMIT enqueues it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf.encoding import order_of_encoding

from qmlite.registry.errors import MQIError
from qmlite.registry.messaging import triggers
from qmlite.registry.messaging.queues import Message
from qmlite.registry.messaging.sessions import PendingPut, UnitOfWork
from qmlite.registry.monitoring.counters import counted_put
from qmlite.registry.objects.definitions import Queue, put_stamp

if TYPE_CHECKING:
    from qmlite.registry.monitoring.events import Events
    from qmlite.registry.storage.catalog import Registry

_ENABLED = C.MQEVR_ENABLED  # an event switch that is on


def _ignore(_subject: object) -> None:
    pass


class Enqueuer:
    def __init__(self, registry: Registry, events: Events, now: Callable[[], float]) -> None:
        self.registry = registry
        self.events = events
        self.now = now  # the queue manager's injected clock
        self.on_available: Callable[[str], None] = _ignore  # QueueManager.on_available sets and reads it
        # Queue name -> called with each message that reaches it: the MQTT service's index of
        # SYSTEM.MQTT.TRANSMIT.QUEUE by ClientIdentifier (registry/telemetry/mapping.py).
        self.watchers: dict[str, Callable[[Message], None]] = {}
        # Queue name -> called with a publication's copy for another queue manager before it is put there
        # (``QueueManager._put_copy``); True: it was handed over instead (mapping.py Handover, for MQTT clients).
        self.handovers: dict[str, Callable[..., bool]] = {}

    def message(self, queue: Queue, md: S.MQMD, data: bytes, now: float, props=None) -> Message:
        """A message for ``queue`` with its AS_Q_DEF priority and persistence resolved."""
        if md.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            md.Priority = queue.def_priority
        if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            md.Persistence = queue.def_persistence
        expires = now + md.Expiry / 10.0 if md.Expiry > 0 else None
        # A temporary dynamic queue ends with its handle or restart: nothing on it is ever written.
        written = md.Persistence == C.MQPER_PERSISTENT and queue.definition_type != C.MQQDT_TEMPORARY_DYNAMIC
        # MSGDLVSQ(FIFO): delivered in arrival order whatever the priority (the message keeps its Priority);
        # IBM: messages put after a change to FIFO "take the default priority of the queue" for ordering,
        # so those already on it with a higher priority still go first.
        order = md.Priority if queue.msg_delivery_sequence == C.MQMDS_PRIORITY else queue.def_priority
        return Message(md, bytes(data), order, md.MsgId, md.CorrelId, now, expires, persistent=written,
                       props=props)

    def check_put(self, queue: Queue, msg: Message, *, application: bool = True, depth_limit: bool = True) -> None:
        reg = self.registry
        if queue.inhibit_put == C.MQQA_PUT_INHIBITED:
            raise MQIError(C.MQRC_PUT_INHIBITED)
        size = len(msg.data)
        if size > queue.max_msg_length:
            raise MQIError(C.MQRC_MSG_TOO_BIG_FOR_Q)
        if size > reg.qmgr.max_msg_length:
            raise MQIError(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
        if (application and queue.definition_type == C.MQQDT_TEMPORARY_DYNAMIC
                and msg.md.Persistence == C.MQPER_PERSISTENT):
            raise MQIError(C.MQRC_PERSISTENT_NOT_ALLOWED)  # an application may not; the queue manager's
            # own deliveries (publications to a non-durable managed queue) keep their persistence
        if depth_limit and reg.messages.depth(queue.name) >= queue.max_depth:
            raise MQIError(C.MQRC_Q_FULL)

    def put_message(self, queue: Queue, md: S.MQMD, data: bytes, now: float | None = None, *,
                    durable_after: int = 0, application: bool = True, props=None,
                    depth_limit: bool = True) -> Message:
        """Put onto a local queue (checking its limits), write it if persistent, wake waiting GETs.
        ``depth_limit=False``: MaxQDepth is not checked (the command server's replies, see there)."""
        now = self.now() if now is None else now
        msg = self.message(queue, md, data, now, props)
        self.check_put(queue, msg, application=application, depth_limit=depth_limit)
        self.enqueue(queue.name, msg, durable_after)
        return msg

    def enqueue(self, name: str, msg: Message, durable_after: int = 0, *, counted: bool = False) -> None:
        reg = self.registry
        messages = reg.messages
        if not msg.seq:
            msg.number(messages.next_seq())
        contents = messages.contents(name)
        # Performance events (registry/monitoring/events.py): one attribute check when PERFMEV is off.
        perf = not counted and reg.qmgr.performance_event == _ENABLED
        was_empty = perf and not len(contents) and not contents.uncommitted
        contents.add(msg)
        contents.last_put = msg.put_time
        if not counted:  # a committed put was counted when it was made (and raised its events then)
            counted_put(contents)
            if perf:
                queue = reg.queues.get(name)
                if queue is not None:
                    self.events.after_put(queue, contents, was_empty)
        if msg.persistent:
            reg.store.put_message(name, msg)
            durable_after = reg.store.appended
        msg.durable_after = durable_after
        watcher = self.watchers.get(name)
        if watcher is not None:
            watcher(msg)
        self.on_available(name)

    def stage(self, name: str, msg: Message, uow: UnitOfWork | None) -> None:
        """On the queue now, or (under syncpoint) an uncommitted put of ``uow``."""
        if uow is None:
            self.enqueue(name, msg)
        else:
            counted_put(self.registry.messages.contents(name), uncommitted=True)
            uow.puts.append(PendingPut(name, msg))

    def settle(self, put: PendingPut) -> None:
        """An uncommitted put stops counting in its queue's depth (it is now on it, or gone)."""
        contents = self.registry.messages.peek(put.queue)
        if contents is not None and contents.uncommitted:
            contents.uncommitted -= 1

    def trigger(self, queue: Queue, md: S.MQMD, depth_before: int, now: float, uow: UnitOfWork | None) -> None:
        """A trigger event's MQTM onto the initiation queue (registry/messaging/triggers.py), in the unit of
        work of the put that made it; a trigger message the initiation queue cannot take is dropped."""
        made = triggers.trigger_for(self.registry, queue, md, depth_before, now)
        if made is None:
            return
        initq, header, body, changed = made
        self.registry.messages.contents(queue.name).last_trigger = now  # TRIGINT counts from here
        header.MsgId = self.registry.ids.msg_id()
        if changed is not None:  # TRIGTYPE(DEPTH): triggering off until an administrator turns it on again
            changed.altered = now
            self.registry.put_queue(changed)
        msg = self.message(initq, header, body, now)
        try:
            self.check_put(initq, msg, application=False)
        except MQIError:
            return
        self.stage(initq.name, msg, uow)

    def dead_letter(self, md: S.MQMD, data: bytes, *, reason: int = 0, queue: str = "", qmgr: str = "",
                    props=None, uow: UnitOfWork | None = None) -> bool:
        """Put a message the queue manager cannot deliver on the dead-letter queue, behind an MQDLH
        saying why and where it was going (``reason`` 0: as it is, for callers with no reason)."""
        return not self.put_dead_letter(md, data, reason=reason, queue=queue, qmgr=qmgr, props=props, uow=uow)

    def put_dead_letter(self, md: S.MQMD, data: bytes, *, reason: int = 0, queue: str = "", qmgr: str = "",
                        props=None, uow: UnitOfWork | None = None) -> int:
        """``dead_letter``, answering 0 or the MQRC the dead-letter queue refused the message with
        (MQRC_UNKNOWN_OBJECT_NAME when the queue manager names none that exists; MQRC_Q_FULL ...)."""
        reg = self.registry
        dlq = reg.queues.get(reg.qmgr.dead_letter_queue)
        if dlq is None:
            return C.MQRC_UNKNOWN_OBJECT_NAME
        if reason:
            order = order_of_encoding(md.Encoding) or "<"
            date, time_ = put_stamp(self.now())
            header = S.MQDLH(Reason=reason, DestQName=queue, DestQMgrName=qmgr or reg.qmgr.name,
                             Encoding=md.Encoding, CodedCharSetId=md.CodedCharSetId, Format=md.Format,
                             PutApplType=C.MQAT_QMGR, PutApplName=reg.qmgr.name[:28], PutDate=date, PutTime=time_)
            data = header.pack(order) + data
            md = dataclasses.replace(md, Format=C.MQFMT_DEAD_LETTER_HEADER)
        now = self.now()
        msg = self.message(dlq, md, data, now, props)
        try:
            self.check_put(dlq, msg, application=False)
        except MQIError as exc:
            return exc.reason
        self.stage(dlq.name, msg, uow)
        return 0
