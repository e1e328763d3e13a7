"""PCF command handlers, one module per object type.  Each module exposes ``register(engine)``.

definitions.py is not an object type: it holds the commands every simple definition type (namelists,
processes) shares; such a module only declares its ``DefinitionKind``.
"""

from __future__ import annotations


def register_all(engine) -> None:
    from . import (authority, channel_status, channels, chlauth, clusters, endpoints, escape, namelists, processes,
                   qmgr, queues, status, subscriptions, topics)

    for module in (qmgr, queues, subscriptions, topics, namelists, processes, channels, channel_status, endpoints,
                   authority, chlauth, status, clusters, escape):
        module.register(engine)
