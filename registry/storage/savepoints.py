"""Snapshots: the whole state of a queue manager saved under a name and restored, for test suites.

A qmlite extension (no IBM equivalent; docs/mqsc.md "Snapshots", docs/decisions.md SN1-SN6).  A
snapshot holds the queue manager's attributes, every queue, topic, namelist and process definition,
every generic object (channels, authentication information, listeners, services, communication
information, authority and CHLAUTH records), the durable subscriptions, the retained publications and
the committed messages of every local queue (descriptor, properties and data, with their sequence
numbers).  Reached as MQSC ``SET/RESET/DISPLAY/DELETE QMLITE SNAPSHOT(name)`` (registry/mqsc), over
REST (``/admin/qmgr/{qmgr}/snapshot``) and from the pytest plugin -- all through :class:`Savepoints`.

Why restore is cheap: it changes only what differs from the snapshot.  Definitions are compared with
the saved copies (dataclass equality), a queue's messages by identity with the ones the snapshot last
placed or saw there (a message that was got, backed out, expired or replaced is another object, or
has another descriptor object), so a test that touched three queues costs three queues to restore,
however large the rest of the state.  Every change goes through the registry's write-through methods
into the store's pending transaction, which the caller commits (or the server's group commit) as one
transaction: a restore is on disk whole or not at all.

What a live connection holds stays, as ``RESET QMLITE`` keeps it (registry/storage/reset.py): a queue
holding a unit of work in progress (uncommitted puts, or messages got under syncpoint) is left whole,
an open queue the snapshot lacks is emptied but not deleted, a subscription in use or a non-durable
one is kept; each counts as "kept".  Snapshots live in the server process's memory (SN1).
"""

from __future__ import annotations

import copy
import dataclasses
import re
import time

import structlog

from qmlite.pcf import constants as C

from qmlite.registry import qmlmessages as QML
from qmlite.registry.messaging.queues import Message
from qmlite.registry.objects.defaults import COMMAND_QUEUE
from qmlite.registry.objects.definitions import Subscription
from qmlite.registry.storage.catalog import NOT_PERSISTED, QueueManager, Retained
from qmlite.registry.storage.sqlite import props_from_record, props_record

log = structlog.get_logger("qmlite.snapshots")

_NO_CONNECTION = bytes(24)
# A snapshot name is an MQ object name: 1 to 48 of A-Z a-z 0-9 . / _ % (IBM "Rules for naming IBM MQ
# objects"); a generic name (DISPLAY only) ends in one "*", or is "*" alone.
MAX_NAME = 48
_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_QMGR_FIELDS = tuple(f.name for f in dataclasses.fields(QueueManager)
                     if f.name not in NOT_PERSISTED)


class SnapshotError(Exception):
    """A snapshot command that cannot run: ``reason`` is the MQRC/MQRCCF it fails with."""

    def __init__(self, reason: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def check_name(name: str, *, generic: bool = False) -> str:
    """``name`` when it is a valid snapshot name (or, ``generic``, a generic one); else SnapshotError
    MQRCCF_OBJECT_NAME_ERROR saying why."""
    body = name[:-1] if generic and name.endswith("*") else name
    if generic and name == "*":
        return name
    if not isinstance(name, str) or not name:
        raise SnapshotError(C.MQRCCF_OBJECT_NAME_ERROR, QML.SNAPSHOT_NAME_MISSING())
    if len(name) > MAX_NAME:
        raise SnapshotError(C.MQRCCF_OBJECT_NAME_ERROR,
                            QML.SNAPSHOT_NAME_LONG(name=name, limit=MAX_NAME))
    if not _NAME.fullmatch(body):
        raise SnapshotError(C.MQRCCF_OBJECT_NAME_ERROR,
                            QML.SNAPSHOT_NAME_BAD(name=name, allowed="A-Z a-z 0-9 . / _ %"
                                                  + ("" if generic else ", no generic name")))
    return name


@dataclasses.dataclass(slots=True)
class _SavedMessage:
    """A committed message as saved: what rebuilds it exactly (its seq keeps its place in order)."""

    seq: int
    priority: int
    msg_id: bytes
    correl_id: bytes
    put_time: float
    expires_at: float | None
    persistent: bool
    md_raw: bytes
    data: bytes
    props: bytes | None

    def message(self) -> Message:
        return Message(None, self.data, self.priority, self.msg_id, self.correl_id, self.put_time, self.expires_at,
                       self.seq, self.persistent, md_raw=self.md_raw, props=props_from_record(self.props))


def _saved(msg: Message) -> _SavedMessage:
    return _SavedMessage(msg.seq, msg.priority, msg.msg_id, msg.correl_id, msg.put_time, msg.expires_at,
                         msg.persistent, msg.md.pack("<"), msg.data, props_record(msg.props))


def _fingerprint(msgs) -> list[tuple]:
    """What says a queue's message is still the one saved: the object, and the descriptor and data it
    holds (MQBACK replaces a message's descriptor, BackoutCount + 1, which clears md_raw).  A descriptor
    unpacked lazily from md_raw keeps md_raw, so reading a message does not count as a change."""
    return [(m, m.md_raw if m.md_raw is not None else m._md, m._data) for m in msgs]


@dataclasses.dataclass
class Snapshot:
    name: str
    saved_at: float
    qmgr: QueueManager
    queues: dict
    topics: dict
    namelists: dict
    processes: dict
    definitions: dict  # generic kind -> name -> object
    subs: dict  # name -> durable Subscription
    retained: dict  # topic -> Retained
    messages: dict  # local queue -> [_SavedMessage]
    # What the snapshot last saw or placed: queue -> fingerprint, topic -> Retained object.
    live: dict = dataclasses.field(default_factory=dict)
    live_retained: dict = dataclasses.field(default_factory=dict)

    @property
    def objects(self) -> int:
        return (len(self.queues) + len(self.topics) + len(self.namelists) + len(self.processes)
                + sum(len(v) for v in self.definitions.values()))

    @property
    def message_count(self) -> int:
        return sum(len(v) for v in self.messages.values())


@dataclasses.dataclass
class SaveSummary:
    name: str
    objects: int
    messages: int
    subscriptions: int
    retained: int
    replaced: bool
    elapsed_ms: float = 0.0

    def message(self) -> str:
        return QML.SNAPSHOT_SAVED(name=self.name, objects=self.objects, messages=self.messages,
                                  subscriptions=self.subscriptions, retained=self.retained)


@dataclasses.dataclass
class RestoreSummary:
    name: str
    deleted: int = 0  # objects the snapshot does not have, deleted
    restored: int = 0  # objects defined again or given the snapshot's attributes back
    queues_refilled: int = 0  # queues whose messages were put back as saved
    messages: int = 0  # messages put back
    kept: int = 0  # objects kept because a live connection holds them
    elapsed_ms: float = 0.0

    def message(self) -> str:
        return QML.SNAPSHOT_RESTORED(name=self.name, deleted=self.deleted, restored=self.restored,
                                     messages=self.messages, queues=self.queues_refilled, kept=self.kept)


@dataclasses.dataclass
class SnapshotInfo:
    name: str
    saved_at: float
    objects: int
    messages: int
    subscriptions: int
    retained: int

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _copies(objs: dict) -> dict:
    return {name: copy.copy(obj) for name, obj in objs.items()}


def _connection_owned(queue) -> bool:
    """A temporary dynamic queue belongs to the connection that made it (it goes when that closes it,
    and no restart keeps it): never saved, never touched by a restore (SN3)."""
    return queue.definition_type == C.MQQDT_TEMPORARY_DYNAMIC


def _untouched(reg) -> set[str]:
    """Queues whose contents a snapshot leaves alone: the command queue (the command server reads it:
    the restore's own request may be waiting behind others) and the temporary dynamic queues."""
    return {COMMAND_QUEUE} | {name for name, q in reg.queues.items() if _connection_owned(q)}


class Savepoints:
    """The snapshots of one queue manager, by name: the one domain object MQSC, REST and the pytest
    plugin reach (``of(qm)``)."""

    def __init__(self, qm) -> None:
        self.qm = qm
        self._snapshots: dict[str, Snapshot] = {}

    # ---- save --------------------------------------------------------------------------------------
    def save(self, name: str) -> SaveSummary:
        """Save the queue manager's state as ``name`` (replacing a snapshot of that name)."""
        check_name(name)
        started = time.perf_counter()
        reg = self.qm.registry
        held = self._held_queues()
        untouched = _untouched(reg)
        messages: dict[str, list[_SavedMessage]] = {}
        live: dict[str, list] = {}
        for queue_name, contents in reg.messages.items():
            if queue_name not in reg.queues or queue_name in untouched:
                continue
            msgs = list(contents)  # committed messages, delivery order (uncommitted ones are not on it)
            messages[queue_name] = [_saved(m) for m in msgs]
            if queue_name not in held:
                live[queue_name] = _fingerprint(msgs)
        subs = {}
        for sub in reg.subs.values():
            if sub.durable == C.MQSUB_DURABLE_YES:
                subs[sub.name] = dataclasses.replace(sub, active_connection=_NO_CONNECTION)
        retained = {topic: Retained(r.md.copy(), copy.deepcopy(r.props), r.body, r.put_time)
                    for topic, r in reg.retained.items()}
        queues = {n: copy.copy(q) for n, q in reg.queues.items() if not _connection_owned(q)}
        snap = Snapshot(name, reg.clock(), dataclasses.replace(reg.qmgr), queues, _copies(reg.topics),
                        _copies(reg.namelists), _copies(reg.processes),
                        {kind: _copies(objs) for kind, objs in reg.definitions.items()}, subs, retained, messages,
                        live, dict(reg.retained))
        replaced = name in self._snapshots
        self._snapshots[name] = snap
        out = SaveSummary(name, snap.objects, snap.message_count, len(subs), len(retained), replaced,
                          (time.perf_counter() - started) * 1000)
        log.info("snapshot_saved", snapshot=name, objects=out.objects, messages=out.messages,
                 subscriptions=out.subscriptions, retained=out.retained, replaced=replaced,
                 ms=round(out.elapsed_ms, 2))
        return out

    # ---- restore -----------------------------------------------------------------------------------
    def restore(self, name: str) -> RestoreSummary:
        """Put the queue manager back to snapshot ``name``: every change in the store's pending
        transaction (the caller's commit makes the whole restore durable at once)."""
        check_name(name)
        snap = self._snapshots.get(name)
        if snap is None:
            raise SnapshotError(C.MQRC_UNKNOWN_OBJECT_NAME, QML.SNAPSHOT_NOT_FOUND(name=name))
        started = time.perf_counter()
        qm = self.qm
        reg = qm.registry
        out = RestoreSummary(name)
        now = reg.clock()
        held = self._held_queues() | _untouched(reg)  # the untouched ones count as held, contents and all
        out.restored += self._restore_qmgr(snap)

        # Subscriptions first: deleting one may delete its managed queue (which the queues put back).
        for sub in list(reg.subs.values()):
            saved = snap.subs.get(sub.name)
            if sub.durable != C.MQSUB_DURABLE_YES or sub.active_connection != _NO_CONNECTION:
                out.kept += 1
                continue
            if saved is None:
                reg.delete_sub(sub)
                out.deleted += 1
        for sub_name, saved in snap.subs.items():
            current = reg.subs.get(sub_name)
            if current is not None and (current.active_connection != _NO_CONNECTION
                                        or current.durable != C.MQSUB_DURABLE_YES):
                continue  # in use: kept (counted above)
            if current != saved:
                reg.put_sub(dataclasses.replace(saved))
                out.restored += 1

        # Retained publications.
        for topic in list(reg.retained):
            if topic not in snap.retained:
                reg.forget_retained(topic)
        for topic, saved in snap.retained.items():
            if reg.retained.get(topic) is not snap.live_retained.get(topic):
                again = Retained(saved.md.copy(), copy.deepcopy(saved.props), saved.body, saved.put_time)
                reg.retained[topic] = again
                if again.md.Persistence == C.MQPER_PERSISTENT:
                    reg.store.put_retained(topic, again.md, again.props, again.body, again.put_time)
                else:
                    reg.store.delete_retained(topic)
                snap.live_retained[topic] = again

        # Queues: definitions, then contents.
        for queue_name, queue in list(reg.queues.items()):
            if queue_name in snap.queues or _connection_owned(queue):
                continue
            if queue_name in held:
                out.kept += 1
            elif reg.messages.open_counts(queue_name) != (0, 0):
                out.kept += 1
                reg.drop_messages(queue_name, keep_queue=True)
            else:
                reg.remove_queue(queue)
                out.deleted += 1
        for queue_name, saved in snap.queues.items():
            if queue_name in held and queue_name != COMMAND_QUEUE:
                out.kept += 1
                continue
            current = reg.queues.get(queue_name)
            if current != saved:
                reg.put_queue(copy.copy(saved))
                out.restored += 1
        refilled = self._restore_messages(snap, held, out)

        # Topics, namelists, processes, the generic kinds.
        kinds = [(reg.topics, snap.topics, reg.put_topic, reg.remove_topic),
                 (reg.namelists, snap.namelists, reg.put_namelist, reg.remove_namelist),
                 (reg.processes, snap.processes, reg.put_process, reg.remove_process)]
        for kind, objs in reg.definitions.items():
            kinds.append((objs, snap.definitions.get(kind, {}), lambda o, k=kind: reg.put_object(k, o),
                          lambda o, k=kind: reg.remove_object(k, o)))
        for current, saved, put, remove in kinds:
            for obj_name, obj in list(current.items()):
                if obj_name not in saved:
                    remove(obj)
                    out.deleted += 1
            for obj_name, obj in saved.items():
                if current.get(obj_name) != obj:
                    put(copy.copy(obj))
                    out.restored += 1

        position = reg.store.appended
        for queue_name in refilled:  # nobody sees a restored message before the restore is on disk
            contents = reg.messages.peek(queue_name)
            if contents is not None:
                for msg in contents:
                    msg.durable_after = max(msg.durable_after, position)
        for queue_name in refilled:
            qm.on_available(queue_name)
        out.elapsed_ms = (time.perf_counter() - started) * 1000
        log.info("snapshot_restored", snapshot=name, deleted=out.deleted, restored=out.restored,
                 queues=out.queues_refilled, messages=out.messages, kept=out.kept, at=now,
                 ms=round(out.elapsed_ms, 2))
        return out

    def _restore_qmgr(self, snap: Snapshot) -> int:
        reg = self.qm.registry
        current, saved = reg.qmgr, snap.qmgr
        changed = [f for f in _QMGR_FIELDS if getattr(current, f) != getattr(saved, f)]
        for field in changed:
            setattr(current, field, getattr(saved, field))
            reg.store.set_meta(field, current.meta_value(field))
        return 1 if changed else 0

    def _restore_messages(self, snap: Snapshot, held: set[str], out: RestoreSummary) -> list[str]:
        """Each local queue's messages as saved, where they differ; the queues refilled."""
        reg = self.qm.registry
        store = reg.store
        refilled = []
        for queue_name, saved in snap.messages.items():
            if queue_name in held or queue_name not in reg.queues:
                continue
            contents = reg.messages.peek(queue_name)
            current = list(contents) if contents is not None else []
            if _fingerprint(current) == snap.live.get(queue_name, ()) and (current or not saved):
                continue  # the very messages the snapshot saw or placed, untouched
            if not current and not saved:
                continue
            contents = reg.messages.contents(queue_name)
            contents.clear()
            store.delete_queue_messages(queue_name)
            msgs = [m.message() for m in saved]
            contents.load(msgs)
            for msg in msgs:
                if msg.persistent:
                    store.put_message(queue_name, msg)
            snap.live[queue_name] = _fingerprint(msgs)
            out.queues_refilled += 1
            out.messages += len(msgs)
            refilled.append(queue_name)
        # Local queues with messages the snapshot had no contents for (defined empty): emptied.
        for queue_name, contents in list(reg.messages.items()):
            if (queue_name in snap.messages or queue_name in held or queue_name not in snap.queues
                    or not len(contents)):
                continue
            reg.drop_messages(queue_name, keep_queue=True)
            refilled.append(queue_name)
        return refilled

    def _held_queues(self) -> set[str]:
        """Queues a unit of work in progress holds (uncommitted puts, or messages got under syncpoint)."""
        reg = self.qm.registry
        held = {name for name, contents in reg.messages.items() if contents.uncommitted}
        for session in self.qm.sessions.values():
            uow = session.uow
            if uow:
                held.update(p.queue for p in uow.puts)
                held.update(g.queue for g in uow.gets)
        return held

    # ---- the list ----------------------------------------------------------------------------------
    def delete(self, name: str) -> None:
        check_name(name)
        if self._snapshots.pop(name, None) is None:
            raise SnapshotError(C.MQRC_UNKNOWN_OBJECT_NAME, QML.SNAPSHOT_NOT_FOUND(name=name))
        log.info("snapshot_deleted", snapshot=name)

    def list(self, pattern: str = "*") -> list[SnapshotInfo]:
        """The snapshots whose names match ``pattern`` (a name, or a generic one), by name; SnapshotError
        2085 when a specific name is not found (as DISPLAY of a missing object)."""
        check_name(pattern, generic=True)
        if pattern.endswith("*"):
            names = sorted(n for n in self._snapshots if n.startswith(pattern[:-1]))
        else:
            names = [pattern] if pattern in self._snapshots else []
        if not names and pattern != "*":
            raise SnapshotError(C.MQRC_UNKNOWN_OBJECT_NAME, QML.SNAPSHOT_NOT_FOUND(name=pattern))
        return [self._info(self._snapshots[n]) for n in names]

    @staticmethod
    def _info(snap: Snapshot) -> SnapshotInfo:
        return SnapshotInfo(snap.name, snap.saved_at, snap.objects, snap.message_count, len(snap.subs),
                            len(snap.retained))

    def __contains__(self, name: str) -> bool:
        return name in self._snapshots


def of(qm) -> Savepoints:
    """The queue manager's snapshots (made on first use)."""
    book = getattr(qm, "_savepoints", None)
    if book is None:
        book = qm._savepoints = Savepoints(qm)
    return book
