"""What each part of the server uses of the queue manager server it runs in, as Protocols.

server/listener.py's ``QueueManagerServer`` plays every role; the parts name the role they need instead of
importing it, so nothing below the listener imports it back (server/ has no import circle:
tests/test_import_graph.py).  A role lists exactly what its users touch; a test stand-in provides the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager
    from qmlite.registry.storage.catalog import Registry

    from .config import ServerConfig
    from .durability import GroupCommitter
    from .negotiation import ServerIdentity


class Calls(Protocol):
    """The MQI as a connection hands it work (server/mqi.py's ``MQI``)."""

    activity: object  # QueueActivity: ``wakes`` counts the wake-ups a call caused

    async def call(self, conn, conv, seg, call) -> None: ...

    async def disconnect(self, conn, conv, *, commit: bool = False) -> None: ...

    async def request_msgs(self, conn, seg) -> None: ...


class Host(Protocol):
    """The queue manager a connection is served by, and how it finds another (docs/multiqm.md)."""

    cfg: ServerConfig
    qm: QueueManager
    identity: ServerIdentity
    connections: set
    mqi: Calls
    committer: GroupCommitter
    registry: Registry

    async def route(self, name: str, logger=None) -> Host | None:
        """The server of the queue manager an ID names, None when none is hosted under it."""

    async def route_channel(self, name: str, *, requester: bool = False) -> Host:
        """The server of the queue manager whose receiving channel a message channel's ID names (for a
        requester's ID, the SVR or SDR that is to send to it)."""

    def pending(self, name: str) -> ServerIdentity | None:
        """The identity of a queue manager the first authenticated MQCONN may create, else None."""

    def create_pending(self, conn, conv, body) -> int:
        """Create the pending queue manager for this MQCONN and move the connection there: 0, or the MQRC."""
