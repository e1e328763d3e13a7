"""The MQTT clients' sessions of one queue manager: what a session keeps between connections when
CleanSession is 0 (docs/mqtt.md), and the same sessions as DISPLAY CHSTATUS CHLTYPE(MQTT) CLIENTID(...),
STOP CHANNEL CLIENTID and PURGE CHANNEL see them (IBM, "Inquire Channel Status (Response) (MQTT)").

A session outlives its network connection when it is not clean: its subscriptions are durable
queue-manager subscriptions and its undelivered messages wait on SYSTEM.MQTT.TRANSMIT.QUEUE, so
both survive a restart; the packet identifiers in flight are kept in memory only (decision TT7).
The MQTT transport (server/mqtt/) registers ``on_close`` on a connected session: ``disconnect`` (STOP
CHANNEL CLIENTID), ``purge`` (PURGE CHANNEL CLIENTID) and a second connection with the same
ClientIdentifier (MQTT-3.1.4-2) end the connection through it.  No sockets and no trio.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from qmlite.pcf import constants as C
from qmlite.registry.objects import values as V

# PROTOCOL in the channel status: the CONNECT's protocol level, or HTTP over WebSockets
PROTOCOL_IDS = {"MQTTV311": V.MQPROTO_MQTTV311, "MQTTV3": V.MQPROTO_MQTTV3, "HTTP": V.MQPROTO_HTTP}


def _ignore() -> None:
    pass


@dataclasses.dataclass(eq=False)
class Session:
    """One MQTT client's session: its protocol state and the fields IBM's channel status reports."""

    client_id: str  # CLIENTID
    channel: str = ""  # the telemetry channel it connected through
    clean: bool = True
    conn_name: str = ""  # CONNAME: the client's address
    connected: bool = True  # STATUS RUNNING; a persistent session whose client is away: DISCONNECTED
    protocol: str = "MQTTV311"  # MQTTV311 or MQTTV3 (HTTP when over WebSockets)
    keep_alive: int = 0  # KAINT: the keep-alive the client asked for, seconds
    client_user: str = ""  # CLNTUSER: the user name the client gave in CONNECT
    mca_user: str = ""  # MCAUSER: the MQ user its authority is checked as
    msgs_sent: int = 0  # MSGSNT: publications sent to the client
    msgs_received: int = 0  # MSGRCVD: publications received from it
    last_msg: float = 0.0  # LMSGDATE / LMSGTIME
    started: float = 0.0  # CHSTADA / CHSTATI: when it connected
    pending_out: int = 0  # PENDING: messages waiting for it that the deliverer has not sent yet
    # QoS 2 publications received whose PUBREL has not come: a PUBLISH again with one of these ids is
    # a duplicate, not published twice (MQTT 4.3.3, method B).
    received_qos2: set[int] = dataclasses.field(default_factory=set)
    # outbound packet id -> MsgId on SYSTEM.MQTT.TRANSMIT.QUEUE, sent at QoS 1/2 and not yet PUBACK/PUBREC'd
    inflight: dict[int, bytes] = dataclasses.field(default_factory=dict)
    released: set[int] = dataclasses.field(default_factory=set)  # PUBREL sent, PUBCOMP awaited
    sent: set[bytes] = dataclasses.field(default_factory=set)  # MsgIds sent at QoS 1/2 once: again with DUP
    next_id: int = 1
    on_close: Callable[[], None] = _ignore  # the live connection's: ends it when called

    @property
    def status(self) -> int:
        return C.MQCHS_RUNNING if self.connected else C.MQCHS_DISCONNECTED

    @property
    def protocol_id(self) -> int:
        return PROTOCOL_IDS.get(self.protocol, 0)

    @property
    def in_doubt_in(self) -> int:
        """INDOUBTIN: inbound QoS 2 publications whose PUBREL has not come."""
        return len(self.received_qos2)

    @property
    def in_doubt_out(self) -> int:
        """INDOUBTOUT: outbound QoS 1/2 messages sent and not yet wholly acknowledged."""
        return len(self.inflight) + len(self.released)

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
        # What else a purge cleans up (the client's subscriptions, its pending publications): the MQTT
        # side sets it (registry/telemetry/mapping.py forget_client); the administration only names the client.
        self.on_purge: Callable[[Session], None] = lambda _session: None

    def list(self) -> list[Session]:
        return list(self.sessions.values())

    def get(self, client_id: str) -> Session | None:
        return self.sessions.get(client_id)

    def add(self, session: Session) -> Session:
        """A session as it is, for a test of the administration without an MQTT client."""
        self.sessions[session.client_id] = session
        return session

    def connect(self, client_id: str, clean: bool, user: str, address: str, channel: str, *,
                client_user: str = "", protocol: str = "MQTTV311", keep_alive: int = 0,
                kept: bool = False) -> tuple[Session, bool]:
        """The session a CONNECT opens, and whether one was present (CONNACK's Session Present).

        A connection already using the ClientIdentifier is closed first (MQTT-3.1.4-2); a clean
        session discards what an earlier one kept (MQTT-3.1.2-6).  ``kept``: the queue manager holds
        durable state for the client (subscriptions, messages) from before a restart, when this
        registry of sessions began empty."""
        old = self.sessions.get(client_id)
        if old is None and kept:  # the session a restart left: its subscriptions are durable
            old = Session(client_id, clean=False, connected=False)
        if old is not None and old.connected:
            old.on_close()
            old.connected = False
        present = old is not None and not clean and not old.clean
        if old is not None and not present:
            self.on_purge(old)  # a clean start: the earlier session's subscriptions go
            old = None
        session = old or Session(client_id, clean=clean)
        session.clean, session.channel, session.conn_name = clean, channel, address
        session.mca_user, session.client_user = user, client_user
        session.protocol, session.keep_alive, session.connected = protocol, keep_alive, True
        session.started = self.clock()
        session.on_close = _ignore
        # What was in flight is sent again (DUP) on this connection (MQTT-4.4.0-1): forget which ids held it.
        session.inflight.clear()
        self.sessions[client_id] = session
        return session, present

    def connection_ended(self, session: Session) -> None:
        """The network connection ended; a clean session ends with it (MQTT-3.1.2-6)."""
        session.connected = False
        session.on_close = _ignore
        session.pending_out = 0
        if session.clean and self.sessions.get(session.client_id) is session:
            del self.sessions[session.client_id]

    def counted(self, session: Session, *, sent: int = 0, received: int = 0) -> None:
        session.msgs_sent += sent
        session.msgs_received += received
        session.last_msg = self.clock()

    def disconnect(self, client_id: str) -> bool:
        """STOP CHANNEL CLIENTID: end the client's connection, keep its state.  False: no such client."""
        session = self.sessions.get(client_id)
        if session is None:
            return False
        if session.connected:
            session.on_close()
        return True

    def purge(self, client_id: str) -> bool:
        """PURGE CHANNEL CLIENTID: the session and its subscriptions go, its connection is closed."""
        session = self.sessions.pop(client_id, None)
        if session is None:
            return False
        if session.connected:
            session.on_close()
            session.connected = False
        self.on_purge(session)
        return True
