"""PCF command handlers, one module per object type.  Each module exposes ``register(engine)``."""

from __future__ import annotations


def register_all(engine) -> None:
    from . import namelists, processes, qmgr, queues, subscriptions, topics

    for module in (qmgr, queues, subscriptions, topics, namelists, processes):
        module.register(engine)
