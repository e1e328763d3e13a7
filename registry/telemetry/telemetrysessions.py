"""MQTT client sessions of one queue manager: who is connected (DISPLAY CHSTATUS CHLTYPE(MQTT)), and
what a session keeps between connections when CleanSession is 0 (docs/mqtt.md).

A session outlives its network connection when it is not clean: its subscriptions are durable
queue-manager subscriptions and its undelivered messages wait on SYSTEM.MQTT.TRANSMIT.QUEUE, so
both survive a restart; the packet identifiers in flight are kept in memory only (decision TT7).
The server registers ``close`` on a connected session: ``purge`` (PURGE CHANNEL CLIENTID) and a
second connection with the same ClientIdentifier (MQTT-3.1.4-2) end the first through it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable


def _ignore() -> None:
    pass


@dataclasses.dataclass
class SessionStatus:
    """One row of DISPLAY CHSTATUS(...) CHLTYPE(MQTT), IBM's fields for a telemetry channel."""

    channel: str
    client_id: str
    conname: str
    mcastat: str  # RUNNING while connected
    protocol: str  # MQTTV311 or MQTTV3 (HTTP when over WebSockets)
    kaint: int  # the client's keep-alive interval, seconds
    clntuser: str  # the user name the client gave
    mcauser: str  # the user its authority is checked as
    msgsnt: int
    msgrcvd: int
    lmsgdate: str
    lmsgtime: str
    inflight: int  # messages sent at QoS 1/2 not yet acknowledged
    connected: bool


@dataclasses.dataclass
class Session:
    client_id: str
    clean: bool
    user: str = ""  # the MQ user authority is checked as
    client_user: str = ""
    address: str = ""
    channel: str = ""
    protocol: str = "MQTTV311"
    keep_alive: int = 0
    connected: bool = False
    msgs_sent: int = 0
    msgs_received: int = 0
    last_msg: float = 0.0
    # QoS 2 publications received whose PUBREL has not come: a PUBLISH again with one of these ids is
    # a duplicate, not published twice (MQTT 4.3.3, method B).
    received_qos2: set[int] = dataclasses.field(default_factory=set)
    # outbound packet id -> MsgId on SYSTEM.MQTT.TRANSMIT.QUEUE, sent at QoS 1/2 and not yet PUBACK/PUBREC'd
    inflight: dict[int, bytes] = dataclasses.field(default_factory=dict)
    released: set[int] = dataclasses.field(default_factory=set)  # PUBREL sent, PUBCOMP awaited
    sent: set[bytes] = dataclasses.field(default_factory=set)  # MsgIds sent at QoS 1/2 once: again with DUP
    next_id: int = 1
    close: Callable[[], None] = _ignore  # the live connection's, while there is one

    def packet_id(self) -> int:
        """The next free packet identifier, 1..65535 (MQTT-2.3.1-2: not one in use)."""
        for _ in range(65535):
            pid = self.next_id
            self.next_id = pid % 65535 + 1
            if pid not in self.inflight and pid not in self.released:
                return pid
        raise RuntimeError("every packet identifier is in use")  # the inflight window keeps this far off


class TelemetrySessions:
    """The MQTT sessions of one queue manager, by ClientIdentifier."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.sessions: dict[str, Session] = {}
        # purge(client_id) also removes the client's subscriptions: the mapping hands this in.
        self.on_purge: Callable[[Session], None] = lambda _session: None
        self.transmit = None  # registry/telemetry/mapping.py TransmitIndex, once a listener has started

    def connect(self, client_id: str, clean: bool, user: str, address: str, channel: str, *,
                client_user: str = "", protocol: str = "MQTTV311", keep_alive: int = 0,
                kept: bool = False) -> tuple[Session, bool]:
        """The session a CONNECT opens, and whether one was present (CONNACK's Session Present).

        A connection already using the ClientIdentifier is closed first (MQTT-3.1.4-2); a clean
        session discards what an earlier one kept (MQTT-3.1.2-6).  ``kept``: the queue manager holds
        durable state for the client (subscriptions, messages) from before a restart, when this
        registry of sessions began empty."""
        old = self.sessions.get(client_id)
        if old is None and kept:
            old = Session(client_id, clean=False)  # the session a restart left: its subscriptions are durable
        if old is not None and old.connected:
            old.close()
            old.connected = False
        present = old is not None and not clean and not old.clean
        if old is not None and not present:
            self.on_purge(old)  # a clean start: the earlier session's subscriptions go
            old = None
        session = old or Session(client_id, clean)
        session.clean = clean
        session.user, session.client_user, session.address, session.channel = user, client_user, address, channel
        session.protocol, session.keep_alive, session.connected = protocol, keep_alive, True
        session.close = _ignore
        # What was in flight is sent again (DUP) on this connection (MQTT-4.4.0-1): forget which ids held it.
        session.inflight.clear()
        self.sessions[client_id] = session
        return session, present

    def disconnect(self, session: Session) -> None:
        """The network connection ended; a clean session ends with it (MQTT-3.1.2-6)."""
        session.connected = False
        session.close = _ignore
        if session.clean and self.sessions.get(session.client_id) is session:
            del self.sessions[session.client_id]

    def counted(self, session: Session, *, sent: int = 0, received: int = 0) -> None:
        session.msgs_sent += sent
        session.msgs_received += received
        session.last_msg = self.clock()

    def list(self) -> list[SessionStatus]:
        import time

        rows = []
        for s in self.sessions.values():
            when = time.gmtime(s.last_msg) if s.last_msg else None
            rows.append(SessionStatus(
                channel=s.channel, client_id=s.client_id, conname=s.address,
                mcastat="RUNNING" if s.connected else "STOPPED", protocol=s.protocol, kaint=s.keep_alive,
                clntuser=s.client_user, mcauser=s.user, msgsnt=s.msgs_sent, msgrcvd=s.msgs_received,
                lmsgdate=time.strftime("%Y-%m-%d", when) if when else "",
                lmsgtime=time.strftime("%H.%M.%S", when) if when else "",
                inflight=len(s.inflight), connected=s.connected))
        return rows

    def purge(self, client_id: str) -> bool:
        """PURGE CHANNEL CLIENTID: the session and its subscriptions go, its connection is closed."""
        session = self.sessions.pop(client_id, None)
        if session is None:
            return False
        if session.connected:
            session.close()
            session.connected = False
        self.on_purge(session)
        return True
