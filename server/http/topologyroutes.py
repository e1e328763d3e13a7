"""qmlite's ``GET /admin/qmlite/topology``: the queue managers this server hosts, the partners their message
channels name, and one edge per message channel with its status (registry/channels/channelgraph.py; the
console's Topology panel draws it; docs/rest.md "qmlite's own")."""

from __future__ import annotations

from qmlite.registry.channels import channelgraph

# The names a CONNAME may give this server's own address by (besides the listener's host).
_LOOPBACK = ("127.0.0.1", "localhost", "::1", "0.0.0.0")


def document(server) -> dict:
    """The topology as the server's queue managers know it now: each read through its QueueManager."""
    primary = server.primary
    qmgrs = primary.qmgrs
    states, hosted = {}, {}
    for entry in qmgrs.describe():
        states[entry.name] = entry.status.lower()
        qm = qmgrs.get(entry.name) if entry.status != "ENDED" else None
        if qm is not None:
            hosted[entry.name] = qm.message_channel_views()
        else:  # ended: drawn, with no channels (its definitions are not open)
            hosted[entry.name] = []
    port = primary.port
    local = {(host.lower(), port) for host in (*_LOOPBACK, primary.cfg.host)}
    return channelgraph.graph(hosted, states, local)
