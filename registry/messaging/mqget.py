"""MQGET: the get path, on its own object (``QueueManager.input_handle``/``get``/``get_ended`` delegate here).

``input_handle`` checks the handle once per MQGET, however long the transport then waits; ``get``
finds the first matching message (by MsgId/CorrelId, a browse cursor, or a selection string), renders
it as the getter asked (conversion, properties, the expiry still to run, truncation), counts it, and
takes it off the queue (a persistent one's delete journalled now, or at MQCMIT under syncpoint).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.pcf.encoding import order_of_encoding
from qmlite.pcf.errors import CodecError

from qmlite.registry.errors import MQIError
from qmlite.registry.messaging import expiry
from qmlite.registry.messaging import properties
from qmlite.registry.messaging.mqput import check_uow_room
from qmlite.registry.messaging.queues import Message, QueueContents
from qmlite.registry.messaging.sessions import Handle, PendingGet, Session
from qmlite.registry.monitoring.counters import count_browse, count_get, counted_get

if TYPE_CHECKING:
    from qmlite.registry.monitoring.activity import ActivityTrace
    from qmlite.registry.monitoring.events import Events
    from qmlite.registry.storage.catalog import Registry
    from qmlite.registry.testing.faults import Faults

ZERO24 = bytes(24)
_ENABLED = C.MQEVR_ENABLED  # an event switch that is on
PCF_FORMATS = frozenset({C.MQFMT_ADMIN.rstrip(), C.MQFMT_EVENT.rstrip(), C.MQFMT_PCF.rstrip()})
INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
BROWSE = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
_BROWSE_SCAN = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT


@dataclasses.dataclass(slots=True)
class Got:
    """What a successful (or truncated) MQGET returns."""

    md: S.MQMD
    gmo: S.MQGMO
    data: bytes
    full_length: int
    comp: int
    reason: int
    durable_after: int  # the journal position the reply must wait for
    resolved_queue: str


class GetPath:
    def __init__(self, registry: Registry, *, events: Events, faults: Faults, activity: ActivityTrace,
                 now: Callable[[], float]) -> None:
        self.registry = registry
        self.events = events
        self.faults = faults
        self.activity = activity
        self.now = now

    def input_handle(self, session: Session, hobj: int, options: int) -> Handle:
        """The handle an MQGET reads, checked once per MQGET (however long it then waits)."""
        handle = session.handles.get(hobj)
        if handle is None or handle.kind != "queue":
            raise MQIError(C.MQRC_HOBJ_ERROR)
        browse = options & BROWSE
        if browse and not handle.options & C.MQOO_BROWSE:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_BROWSE)
        if not browse and not handle.options & INPUT:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_INPUT)
        if self.faults.armed:
            try:
                self.faults.fire_for(session, "MQGET", handle.queue_name or handle.name)
            except MQIError as exc:  # counted and reported as the real refusal is
                self.get_failed(handle, options)
                if exc.reason == C.MQRC_GET_INHIBITED:
                    self.events.get_inhibited(session, handle.queue_name or handle.name)
                raise
        return handle

    def get(self, session: Session, handle: Handle, md: S.MQMD, gmo: S.MQGMO, buffer_length: int) -> Got | None:
        """Take (or browse) the first matching message; None when there is none (yet)."""
        reg = self.registry
        options = gmo.Options
        if options & C.MQGMO_SYNCPOINT and options & C.MQGMO_NO_SYNCPOINT:
            self.get_failed(handle, options)
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        self._check_inhibited(session, handle, options)
        contents = reg.messages.contents(handle.name)
        now = self.now()
        for gone in contents.expire(now):
            if gone.persistent:
                reg.store.delete_message(gone.seq)
        msg = self._find(handle, contents, md, gmo, options)
        if msg is None:
            return None
        data = msg.data
        out_md = msg.md  # only read from here on; conversion makes its own copy
        if options & C.MQGMO_CONVERT:
            data, out_md = _convert(data, out_md, md)
        props = msg.props
        if props:
            queue = reg.queues.get(handle.name)
            control = queue.property_control if queue is not None else C.MQPROP_COMPATIBILITY
            out_md, data = properties.render(props, out_md, data, options, control)
        if msg.expires_at is not None:
            # MQGET returns the expiry time still to run, in tenths.  Set on the stored descriptor
            # itself: the message's expiry is ``expires_at``, so its Expiry field is only ever this.
            out_md.Expiry = expiry.expiry_left(msg.put_time, msg.expires_at, now)
        full = len(data)
        comp = reason = 0
        if full > buffer_length:
            comp = C.MQCC_WARNING
            reason = (C.MQRC_TRUNCATED_MSG_ACCEPTED if options & C.MQGMO_ACCEPT_TRUNCATED_MSG
                      else C.MQRC_TRUNCATED_MSG_FAILED)
            data = data[:buffer_length]
        durable_after = msg.durable_after
        stats = handle.stats  # the queue's counters (through this connection's accounting when it has any)
        if stats is None:
            stats = handle.stats = contents.stats
        persistent = out_md.Persistence == C.MQPER_PERSISTENT
        if options & BROWSE:
            handle.cursor = msg.key
            count_browse(stats, persistent, full)
        elif reason != C.MQRC_TRUNCATED_MSG_FAILED:
            count_get(stats, persistent, full, now - msg.put_time)
            durable_after = self._take(session, handle, contents, msg, options, now, durable_after)
        gmo.ResolvedQName = handle.queue_name or handle.name  # the request's own GMO, echoed back
        gmo.ReturnedLength = len(data)
        return Got(out_md, gmo, data, full, comp, reason, durable_after, handle.queue_name or handle.name)

    def _check_inhibited(self, session: Session, handle: Handle, options: int) -> None:
        """The base queue, and an alias the handle was opened through, must both allow gets."""
        reg = self.registry
        base = reg.queues.get(handle.name)
        inhibited = base is not None and base.inhibit_get == C.MQQA_GET_INHIBITED
        if not inhibited and handle.queue_name != handle.name:  # opened through an alias: it must allow gets too
            alias = reg.queues.get(handle.queue_name)
            inhibited = alias is not None and alias.qtype == C.MQQT_ALIAS and alias.inhibit_get == C.MQQA_GET_INHIBITED
        if inhibited:
            self.get_failed(handle, options)
            self.events.get_inhibited(session, handle.queue_name or handle.name)
            raise MQIError(C.MQRC_GET_INHIBITED)

    def _find(self, handle: Handle, contents: QueueContents, md: S.MQMD, gmo: S.MQGMO,
              options: int) -> Message | None:
        """The message this MQGET reads: under the cursor, the next a browse or a selection string
        accepts, or the first with the MsgId/CorrelId asked for (an index)."""
        match = gmo.MatchOptions if gmo.Version >= 2 else C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
        msg_id = md.MsgId if match & C.MQMO_MATCH_MSG_ID and md.MsgId != ZERO24 else None
        correl_id = md.CorrelId if match & C.MQMO_MATCH_CORREL_ID and md.CorrelId != ZERO24 else None
        if options & (C.MQGMO_BROWSE_MSG_UNDER_CURSOR | C.MQGMO_MSG_UNDER_CURSOR):
            msg = contents.at(handle.cursor)
            if msg is None:
                self.get_failed(handle, options)
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            return msg
        if options & _BROWSE_SCAN or handle.selector is not None:
            # A selector looks at each message in delivery order: what it selects has no index.
            browse = options & _BROWSE_SCAN
            cursor = handle.cursor if options & C.MQGMO_BROWSE_NEXT else None
            selected = handle.selector
            return next((m for m in contents.after(cursor if browse else None)
                         if (msg_id is None or m.msg_id == msg_id) and (correl_id is None or m.correl_id == correl_id)
                         and (selected is None or selected.matches(_resolver(m)))), None)
        return contents.find(msg_id, correl_id)

    def _take(self, session: Session, handle: Handle, contents: QueueContents, msg: Message, options: int,
              now: float, durable_after: int) -> int:
        """A destructive MQGET takes the message: now, or in the unit of work; returns the journal
        position its reply waits for."""
        syncpoint = options & C.MQGMO_SYNCPOINT or (
            options & C.MQGMO_SYNCPOINT_IF_PERSISTENT and msg.md.Persistence == C.MQPER_PERSISTENT)
        if syncpoint:
            check_uow_room(self.registry, session)  # before the message leaves the queue
        self.take_message(handle.name, contents, msg, write=not syncpoint)
        if syncpoint:
            if not session.uow:
                session.uow_started = now
            session.uow.gets.append(PendingGet(handle.name, msg))
        elif msg.persistent:  # its delete is durable before the reply
            durable_after = max(durable_after, self.registry.store.appended)
        return durable_after

    def get_ended(self, session: Session, handle: Handle, gmo: S.MQGMO, reason: int) -> None:
        """An MQGET (or its wait) ended with no message (``reason``): counted, and traced."""
        self.get_failed(handle, gmo.Options)
        self.activity.ended(session, handle, gmo, reason)

    def get_failed(self, handle: Handle, options: int) -> None:
        """An MQGET that failed (no message within its wait included): IBM's GetFailCount, or
        BrowseFailCount for a browse, of the queue and of the connection's accounting."""
        stats = handle.stats
        if stats is None:
            contents = self.registry.messages.peek(handle.name)
            if contents is None:
                return
            stats = contents.stats
        if options & BROWSE:
            stats.browse_fails += 1
        else:
            stats.get_fails += 1

    def take_message(self, name: str, contents: QueueContents, msg: Message, *, write: bool = True) -> None:
        """A destructive get: the message leaves the queue (and the disk, unless a unit of work holds it)."""
        contents.remove(msg)
        now = contents.last_get = self.now()
        counted_get(contents, now - msg.put_time)
        reg = self.registry
        if write and msg.persistent:
            reg.store.delete_message(msg.seq)
        if reg.qmgr.performance_event == _ENABLED:
            queue = reg.queues.get(name)
            if queue is not None:
                self.events.after_get(queue, contents)


def _resolver(msg: Message):
    """What an MQOPEN selection string sees of a queued message: its MQMD and its properties."""
    from qmlite.registry.pubsub import selectors  # only where a selection string is used (docs/decisions.md ST11)

    props = msg.props
    return selectors.message_resolver(msg.md, props.values_for_selectors() if props else {})


def _convert(data: bytes, md: S.MQMD, wanted: S.MQMD) -> tuple[bytes, S.MQMD]:
    """MQGMO_CONVERT for what qmlite carries: PCF re-encoded in the integer order the getter asked for."""
    fmt = md.Format.rstrip()
    if fmt in PCF_FORMATS and order_of_encoding(wanted.Encoding) and order_of_encoding(md.Encoding) \
            and order_of_encoding(wanted.Encoding) != order_of_encoding(md.Encoding):
        try:
            msg = P.decode(data, md.Encoding, 819, strict=False)
            return P.encode(msg, wanted.Encoding, 819), dataclasses.replace(md, Encoding=wanted.Encoding)
        except CodecError:
            return data, md
    return data, md
