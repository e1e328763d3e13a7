"""PCF command handlers, one module per object type.  Each module exposes ``register(engine)``.

definitions.py is not an object type: it holds the commands every simple definition type (namelists,
processes) shares; such a module only declares its ``DefinitionKind``.
"""

from __future__ import annotations


def register_all(engine) -> None:
    from qmlite.registry.admin.commands import authority
    from qmlite.registry.admin.commands import channel_status
    from qmlite.registry.admin.commands import channels
    from qmlite.registry.admin.commands import chlauth
    from qmlite.registry.admin.commands import clusters
    from qmlite.registry.admin.commands import endpoints
    from qmlite.registry.admin.commands import escape
    from qmlite.registry.admin.commands import namelists
    from qmlite.registry.admin.commands import processes
    from qmlite.registry.admin.commands import pubsub_status
    from qmlite.registry.admin.commands import qmgr
    from qmlite.registry.admin.commands import queues
    from qmlite.registry.admin.commands import reset_qmgr
    from qmlite.registry.admin.commands import refresh
    from qmlite.registry.admin.commands import status
    from qmlite.registry.admin.commands import subscriptions
    from qmlite.registry.admin.commands import telemetry
    from qmlite.registry.admin.commands import topics

    for module in (qmgr, queues, subscriptions, topics, namelists, processes, channels, channel_status, endpoints,
                   authority, chlauth, status, pubsub_status, clusters, escape, reset_qmgr, refresh,
                   telemetry):
        module.register(engine)
