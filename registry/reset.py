"""Back to a freshly created queue manager, for CI between test cases (a qmlite extension; IBM has no
such command).  Every queue is emptied, every definition the queue manager did not create is deleted
and every default it did create is put back as created; subscriptions other than the system's go,
retained publications too.  Queue-manager attributes (ALTER QMGR) are left as they are.

Kept apart from ``qmgr.py`` so that the MQSC ``reset`` work can adopt or replace it in one place.
"""

from __future__ import annotations

import copy

from qmlite.pcf import constants as C

from . import authrecs, defaults, kinds


def reset_to_defaults(qm) -> dict[str, int]:
    """Reset ``qm`` (a registry.qmgr.QueueManager); returns what was done, by kind, for the log.

    Queues a connection holds open as temporary dynamic queues are emptied but kept (their handles
    own them).  Connections stay connected; their units of work are not touched.
    """
    reg = qm.registry
    dev = reg.qmgr.dead_letter_queue == defaults.DEV_DEAD_LETTER_QUEUE
    now = reg.clock()
    done = {"messages": 0, "queues": 0, "topics": 0, "subscriptions": 0, "objects": 0, "retained": 0}

    default_queues = {q.name: q for q in defaults.system_queues() + defaults.more_system_queues()
                      + (defaults.dev_queues() if dev else [])}
    for name, queue in list(reg.queues.items()):
        done["messages"] += reg.drop_messages(name, keep_queue=True)
        if name in default_queues or queue.definition_type == C.MQQDT_TEMPORARY_DYNAMIC:
            continue
        reg.remove_queue(queue)
        authrecs.forget_object(reg, C.MQOT_Q, name)
        done["queues"] += 1
    for name, fresh in default_queues.items():
        fresh.created = fresh.altered = now
        if name in reg.queues:
            reg.messages.contents(name)  # the contents (and their statistics) stay; the definition is renewed
        reg.put_queue(fresh)

    system_sub_names = {s.name for s in defaults.system_subscriptions(bytes(24))}
    for sub in list(reg.subs.values()):
        if sub.name not in system_sub_names:
            reg.delete_sub(sub)
            done["subscriptions"] += 1

    default_topics = {t.name: t for t in defaults.system_topics() + (defaults.dev_topics() if dev else [])}
    for name, topic in list(reg.topics.items()):
        if name not in default_topics:
            reg.remove_topic(topic)
            authrecs.forget_object(reg, C.MQOT_TOPIC, name)
            done["topics"] += 1
    for fresh in default_topics.values():
        fresh.created = fresh.altered = now
        reg.put_topic(fresh)

    for topic in list(reg.retained):
        reg.forget_retained(topic)
        done["retained"] += 1

    for table, removers, made in ((reg.namelists, reg.remove_namelist, defaults.system_namelists()),
                                  (reg.processes, reg.remove_process, defaults.system_processes())):
        keep = {obj.name for obj in made}
        for name, obj in list(table.items()):
            if name not in keep:
                removers(obj)
                done["objects"] += 1

    for kind_name, kind in kinds.all_kinds().items():
        wanted = {obj.name: obj for obj in kind.defaults(dev)}
        for name, obj in list(reg.objects(kind_name).items()):
            if name not in wanted:
                reg.remove_object(kind_name, obj)
                done["objects"] += 1
        for name, obj in wanted.items():
            obj = copy.copy(obj)
            if hasattr(obj, "created"):
                obj.created = obj.altered = now
            reg.put_object(kind_name, obj)
    authrecs.invalidate(reg)
    return done
