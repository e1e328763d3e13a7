"""The MQTT clients a queue manager knows, as DISPLAY CHSTATUS CHLTYPE(MQTT) CLIENTID(...) and PURGE
CHANNEL see them (IBM, "Inquire Channel Status (Response) (MQTT)").

The MQTT transport (server/mqtt/) keeps one :class:`SessionStatus` per client identifier here, while
the client is connected and, for a clean-session-false client, while it is away (status DISCONNECTED);
the status commands only read them, and PURGE CHANNEL / STOP CHANNEL CLIENTID ask the transport,
through each session's ``on_close``, to end the client's network connection.  No sockets and no trio.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from qmlite.pcf import constants as C


def _nothing() -> None:
    pass


@dataclasses.dataclass(slots=True, eq=False)
class SessionStatus:
    """One MQTT client's session, in the fields IBM's channel status reports for it."""

    client_id: str  # CLIENTID
    channel: str  # the telemetry channel it connected through
    conn_name: str = ""  # CONNAME: the client's address, host(port)
    connected: bool = True  # STATUS RUNNING; a persistent session whose client is away: DISCONNECTED
    protocol: int = 0  # PROTOCOL: MQPROTO_MQTTV3 / MQPROTO_MQTTV311 (registry/objects/values.py)
    keep_alive: int = 0  # KAINT: the keep-alive the client asked for, seconds
    client_user: str = ""  # CLNTUSER: the user name the client gave in CONNECT
    mca_user: str = ""  # MCAUSER: whom its MQ work runs as
    msgs_sent: int = 0  # MSGSNT: publications sent to the client
    msgs_received: int = 0  # MSGRCVD: publications received from it
    last_msg: float = 0.0  # LMSGDATE / LMSGTIME: the last message sent
    started: float = 0.0  # CHSTADA / CHSTATI: when it connected
    in_doubt_in: int = 0  # INDOUBTIN: inbound QoS 2 messages not yet released
    in_doubt_out: int = 0  # INDOUBTOUT: outbound messages sent, not yet acknowledged
    pending_out: int = 0  # PENDING: outbound messages waiting to be sent
    on_close: Callable[[], None] = _nothing  # the transport ends the client's connection when called

    @property
    def status(self) -> int:
        return C.MQCHS_RUNNING if self.connected else C.MQCHS_DISCONNECTED


class TelemetrySessions:
    """The MQTT sessions of one queue manager, by client identifier."""

    def __init__(self) -> None:
        self._sessions: dict[str, SessionStatus] = {}
        # What else a purge cleans up (the client's subscriptions, its pending publications, its will):
        # the MQTT side sets it; the administration only names the client.
        self.on_purge: Callable[[SessionStatus], None] = lambda session: None

    def list(self) -> list[SessionStatus]:
        return list(self._sessions.values())

    def get(self, client_id: str) -> SessionStatus | None:
        return self._sessions.get(client_id)

    def add(self, session: SessionStatus) -> SessionStatus:
        self._sessions[session.client_id] = session
        return session

    def remove(self, client_id: str) -> None:
        self._sessions.pop(client_id, None)

    def disconnect(self, client_id: str) -> bool:
        """STOP CHANNEL CLIENTID: end the client's connection, keep its state.  False: no such client."""
        session = self._sessions.get(client_id)
        if session is None:
            return False
        if session.connected:
            session.on_close()
        return True

    def purge(self, client_id: str) -> bool:
        """PURGE CHANNEL CLIENTID: end the client's connection and forget its state (subscriptions,
        pending publications, will).  False: no such client."""
        session = self._sessions.pop(client_id, None)
        if session is None:
            return False
        if session.connected:
            session.on_close()
        self.on_purge(session)
        return True
