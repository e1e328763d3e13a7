"""Connections to the queue manager (one per MQCONN), the object handles they hold, and their units of work.

Plain records: the rules that change them live in ``qmgr.py``.  A session knows nothing of sockets;
the server keeps one per conversation.
"""

from __future__ import annotations

import dataclasses

from qmlite.registry.messaging.queues import Message


@dataclasses.dataclass(slots=True)
class Handle:
    """What MQOPEN (or MQSUB) returned: an Hobj and what it refers to.

    ``kind`` is "queue", "qmgr", "topic", "namelist", "process" or "sub".  For a queue, ``name`` is
    the local queue messages go to (an alias resolved to its base) and ``queue_name`` the name as
    opened (the alias, or a dynamic queue's generated name); for a topic, ``name`` is the full topic
    string and ``object_name`` the administered topic object whose attributes MQINQ reports.
    """

    hobj: int
    kind: str
    name: str
    options: int
    queue_name: str = ""
    object_name: str = ""
    temporary: bool = False  # a temporary dynamic queue: deleted on close
    cursor: tuple[int, int] | None = None  # the browse cursor: the key of the message last browsed
    sub_id: bytes = b""  # an Hsub: the subscription it holds
    selector: object = None  # MQOPEN's SelectionString, compiled: MQGET returns only what it selects
    stats: object = None  # a queue's QueueStats (registry/monitoring/counters.py), looked up once at MQOPEN for MQPUT
    # A remote queue for another queue manager: (RemoteQName, RemoteQMgrName); ``name`` is then the
    # transmission queue, and MQPUT puts each message there behind an MQXQH.
    remote: tuple[str, str] | None = None
    # A cluster queue's handle (registry/cluster/resolution.py Binding): each MQPUT may choose another instance.
    cluster: object = None


@dataclasses.dataclass(slots=True)
class PendingPut:
    """A message put under syncpoint: invisible (but counted in the depth) until MQCMIT.  A
    publication under syncpoint is routed when it is put, and its copies wait here like puts."""

    queue: str
    message: Message


@dataclasses.dataclass(slots=True)
class PendingGet:
    """A message taken under syncpoint: gone from the queue, back in its place on MQBACK."""

    queue: str
    message: Message


@dataclasses.dataclass(slots=True)
class UnitOfWork:
    puts: list[PendingPut] = dataclasses.field(default_factory=list)
    gets: list[PendingGet] = dataclasses.field(default_factory=list)
    # Publications put with MQPMO_RETAIN under syncpoint: (topic, MQMD, properties, body), retained at MQCMIT.
    retains: list[tuple] = dataclasses.field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.puts or self.gets or self.retains)

    def take(self) -> tuple[list[PendingPut], list[PendingGet], list[tuple]]:
        """End the unit: its records, which MQCMIT or MQBACK then settle."""
        puts, gets, retains = self.puts, self.gets, self.retains
        self.puts, self.gets, self.retains = [], [], []
        return puts, gets, retains


@dataclasses.dataclass(slots=True)
class Session:
    """One connection to the queue manager (an MQCONN), as the domain sees it."""

    connection_id: bytes
    user: str
    admin: bool
    appl_name: str = ""
    appl_type: int = 0
    channel: str = ""
    handles: dict[int, Handle] = dataclasses.field(default_factory=dict)
    next_handle: int = 2
    uow: UnitOfWork = dataclasses.field(default_factory=UnitOfWork)
    connected: bool = True
    # What Inquire Connection and Inquire Queue Status report (registry/admin/commands/status.py).
    conname: str = ""  # the client's address, as CONNAME
    started: float = 0.0  # when MQCONN was made
    uow_started: float = 0.0  # when the current unit of work began (0.0: none)
    # Set by Stop Connection: the server ends the connection, and its next MQI call fails with
    # MQRC_CONNECTION_STOPPED; the domain only marks it (no sockets here).
    stopped: bool = False
    # This connection's accounting record (registry/monitoring/accounting.py), None while accounting is
    # off for it: every count it takes hangs off this one attribute.
    acct: object = None
    # This connection's activity trace (registry/monitoring/activity.py), None while it does not collect,
    # and the MQCNO Options of its MQCONNX (the trace's ConnectOptions).
    trace: object = None
    cno_options: int = 0
    # A fired fault rule the transport carries out after the call (a delayed reply): registry/testing/faults.py.
    fault: object = None
    # A queue manager's own housekeeping process (the cluster repository manager): fault rules, written for
    # applications, pass its calls by, so a rule's NTH and COUNT stay the application's (decision CLU14).
    internal: bool = False

    def add_handle(self, handle: Handle) -> Handle:
        handle.hobj = self.next_handle
        self.next_handle += 1
        self.handles[handle.hobj] = handle
        return handle
