"""Reset: the queue manager as a fresh start would have it, in milliseconds, for test suites.

A qmlite extension (no IBM equivalent): every queue is cleared, every object that is not one of the
queue manager's default objects (IBM's SYSTEM ones, and the developer container's DEV ones when the
queue manager has them) is deleted, and a default object that was altered gets its initial
attributes back.  Retained publications go.  Reached as the MQSC command ``RESET QMLITE``
(registry/mqsc), hence over PCF Escape and REST, and as ``qmlite_reset`` in the pytest plugin.

What a live connection holds stays, because deleting it under the connection would break it: a
queue an application has open is cleared but not deleted, a queue holding messages of a unit of work
not yet committed or backed out is left whole, a subscription a connection is using (or a
non-durable one) is kept, and the command queue, which the command server reads, is not cleared.
The queue manager's own attributes (ALTER QMGR) get their initial values back too, since many of them act
(MAXUMSGS, PSMODE, MAXHANDS ...) and would otherwise leak from one test into the next; MAXHANDS returns to
the server's configured value when it has one.  docs/mqsc.md, docs/decisions.md MS6.
"""

from __future__ import annotations

import dataclasses
import time

import structlog

from qmlite.pcf import constants as C

from qmlite.registry import qmlmessages as QML
from qmlite.registry.objects import defaults
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import generic
from qmlite.registry.telemetry.service import developer_channel
from qmlite.registry.storage.catalog import NOT_PERSISTED, QueueManager

log = structlog.get_logger("qmlite.reset")

_NO_CONNECTION = bytes(24)


@dataclasses.dataclass
class ResetSummary:
    deleted: int = 0  # objects deleted
    restored: int = 0  # default objects given their initial attributes back
    cleared: int = 0  # messages removed
    kept: int = 0  # objects kept because a connection holds them
    elapsed_ms: float = 0.0

    def message(self) -> str:
        return QML.RESET_DONE(deleted=self.deleted, restored=self.restored, cleared=self.cleared, kept=self.kept)


def _same(default: object, current: object) -> bool:
    """Equal but for the creation and alteration stamps."""
    return dataclasses.replace(default, created=getattr(current, "created", 0.0),  # type: ignore[type-var]
                               altered=getattr(current, "altered", 0.0)) == current


def _restore(put, default, current, now: float) -> None:
    default.created = current.created
    default.altered = now
    put(default)


def reset(qm) -> ResetSummary:
    started = time.perf_counter()
    reg = qm.registry
    now = reg.clock()
    dev = reg.dev_objects
    out = ResetSummary()
    out.restored += _reset_qmgr(qm, dev, now)

    # Subscriptions first: deleting one may delete its managed queue.
    default_subs = {sub.name for sub in defaults.system_subscriptions(bytes(24))}
    for sub in list(reg.subs.values()):
        if sub.name in default_subs:
            continue
        if sub.durable != C.MQSUB_DURABLE_YES or sub.active_connection != _NO_CONNECTION:
            out.kept += 1
            continue
        reg.delete_sub(sub)
        out.deleted += 1
    qm.faults.clear()  # RESET QMLITE clears the fault rules too (registry/testing/faults.py)
    for topic_string in list(reg.retained):
        reg.forget_retained(topic_string)

    # Queues: cleared; deleted unless default or open; defaults restored.
    default_queues = {q.name: q for q in defaults.system_queues() + (defaults.dev_queues() if dev else [])}
    for name, queue in list(reg.queues.items()):
        is_open = reg.messages.open_counts(name) != (0, 0)
        contents = reg.messages.peek(name)
        if contents is not None and contents.uncommitted:  # a unit of work holds some: leave it whole
            out.kept += 1
            continue
        if name != defaults.COMMAND_QUEUE:
            out.cleared += reg.drop_messages(name, keep_queue=True)
        initial = default_queues.get(name)
        if initial is None:
            if is_open:
                out.kept += 1
            else:
                reg.remove_queue(queue)
                out.deleted += 1
        elif not _same(initial, queue):
            _restore(reg.put_queue, initial, queue, now)
            out.restored += 1
    for name, initial in default_queues.items():
        if name not in reg.queues:
            initial.created = initial.altered = now
            reg.put_queue(initial)
            out.restored += 1

    # Topics, namelists, processes.
    for current, initial_list, put, remove in (
            (reg.topics, defaults.system_topics() + (defaults.dev_topics() if dev else []), reg.put_topic,
             reg.remove_topic),
            (reg.namelists, defaults.system_namelists(), reg.put_namelist, reg.remove_namelist),
            (reg.processes, defaults.system_processes(), reg.put_process, reg.remove_process)):
        _reset_kind(out, current, {o.name: o for o in initial_list}, put, remove, now)

    # Channels, authentication information, listeners, services, communication information,
    # authority and channel-authentication records.
    developer_port = qm.telemetry.developer_port  # qmlite serve --mqtt-port: DEV.MQTT is a default object
    for name, kind in generic.all_kinds().items():
        initial = {o.name: o for o in kind.defaults(dev)}
        if name == M.KIND and dev and developer_port is not None:
            initial[M.MQTT_CHANNEL] = developer_channel(developer_port)
        _reset_kind(out, reg.definitions[name], initial, lambda obj, n=name: reg.put_object(n, obj),
                    lambda obj, n=name: reg.remove_object(n, obj), now)

    qm.telemetry.reset()  # telemetry channels deleted stop, the others run (registry/telemetry/service.py)
    out.elapsed_ms = (time.perf_counter() - started) * 1000
    log.info("reset", deleted=out.deleted, restored=out.restored, cleared=out.cleared, kept=out.kept,
             ms=round(out.elapsed_ms, 2))
    return out


def _reset_qmgr(qm, dev: bool, now: float) -> int:
    """The queue manager's attributes as a fresh start gives them (its name and creation stay): 1 if
    any had been altered, else 0."""
    reg = qm.registry
    current = reg.qmgr
    fresh = QueueManager(current.name, current.created,
                         defaults.DEV_DEAD_LETTER_QUEUE if dev else defaults.SYSTEM_DEAD_LETTER_QUEUE,
                         conn_auth=defaults.DEV_CONN_AUTH if dev else defaults.SYSTEM_CONN_AUTH)
    if qm.configured_max_handles is not None:
        fresh.max_handles = qm.configured_max_handles
    changed = [f.name for f in dataclasses.fields(QueueManager)
               if f.name not in NOT_PERSISTED and f.name != "altered"
               and getattr(fresh, f.name) != getattr(current, f.name)]
    for name in changed:
        setattr(current, name, getattr(fresh, name))
        reg.store.set_meta(name, current.meta_value(name))
    if not changed:
        return 0
    current.altered = now
    reg.store.set_meta("altered", now)
    return 1


def _reset_kind(out: ResetSummary, current: dict, initial: dict, put, remove, now: float) -> None:
    for name, obj in list(current.items()):
        default = initial.get(name)
        if default is None:
            remove(obj)
            out.deleted += 1
        elif not _same(default, obj):
            _restore(put, default, obj, now)
            out.restored += 1
    for name, default in initial.items():
        if name not in current:
            if hasattr(default, "created"):
                default.created = default.altered = now
            put(default)
            out.restored += 1
