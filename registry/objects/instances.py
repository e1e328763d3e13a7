"""What runs now, as the status commands report it: channel instances, stopped channels, listeners.

Not persisted: a restarted queue manager has no channel instances and its channels are not stopped
(qmlite keeps no channel synchronisation data; docs/compat.md Part 5).  The server tells the
domain when a client channel instance starts (``start_instance``, which also enforces the channel's
STOPPED state, MaxInstances and MaxInstancesPerClient) and ends (``end_instance``); Stop Channel
marks instances to end and calls each one's ``on_stop``, through which the server closes the socket.
No sockets and no trio here.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable

from qmlite.pcf import constants as C

from qmlite.registry.objects.channels import Channel


def _nothing() -> None:
    pass


class ChannelRefused(Exception):
    """A client channel instance may not start; ``why`` names the rule (for the log)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclasses.dataclass(slots=True, eq=False)
class ChannelInstance:
    """One running instance of a server-connection channel: one client socket and its conversations."""

    instance_id: int
    channel: str
    channel_type: int
    conn_name: str  # the client's network address
    started: float
    max_sharing: int = 0  # SharingConversations as negotiated
    conversations: int = 0  # conversations now running on the socket
    mca_user: str = ""  # whom the last conversation to connect runs as
    remote_appl: str = ""  # that conversation's application name
    msgs: int = 0  # MQI calls served
    # What crossed the socket since it was accepted, as the server counts it: every byte, and every
    # TSH segment (IBM's "buffers"), heartbeats and the ID exchange included.
    bytes_sent: int = 0
    bytes_received: int = 0
    buffers_sent: int = 0
    buffers_received: int = 0
    last_msg: float = 0.0
    # As agreed in the ID exchange (what DISPLAY CHSTATUS shows as HBINT and MAXMSGL for this session).
    heartbeat_interval: int = 0
    max_msg_length: int = 0
    remote_product: str = ""  # RPRODUCT: the client's product (its ID's ProductId: MQCC, MQJB, MQNM ...)
    remote_qmgr: str = ""  # RQMNAME: a message channel's partner queue manager (blank for a client)
    remote_version: str = ""  # RVERSION: the eight version digits after it
    local_address: str = ""  # LOCLADDR: the server's end of the socket, host(port)
    process_id: int = 0  # the server's process, for the MCA job name
    stop_requested: bool = False
    ssl_key_resets: int = 0  # qmlite does no TLS secret key reset (docs/tls.md)
    on_stop: Callable[[], None] = _nothing  # the server ends the instance when this is called
    # TLS, when the client connected with it (server/tls.py): the CipherSpec negotiated (IBM's name),
    # the client certificate's subject and issuer DNs as IBM shows them, when its secret key was agreed.
    ssl_cipher: str = ""
    ssl_protocol: str = ""  # "TLSv1.2" / "TLSv1.3" (SECPROT)
    ssl_peer: str = ""
    ssl_cert_issuer: str = ""
    ssl_key_time: float = 0.0


    @property
    def job_name(self) -> str:
        """JOBNAME: on Multiplatforms the MCA's process and thread ids, eight hexadecimal digits each;
        here the server's process and this instance's number (unique per instance, as mqmetric needs)."""
        return f"{self.process_id:08X}{self.instance_id:08X}"


@dataclasses.dataclass(slots=True)
class ListenerRun:
    """A listener that is running: where it listens, since when."""

    name: str
    port: int
    started: float
    ip_address: str = ""
    backlog: int = 0
    process_id: int = 0


class Running:
    def __init__(self) -> None:
        self.instances: dict[int, ChannelInstance] = {}
        # The same instances by channel, and how many each (channel, client address) runs: MAXINST and
        # MAXINSTC are checked at every connect, which must not scan all of them (10,000 connections).
        self._by_channel: dict[str, dict[int, ChannelInstance]] = {}
        self._per_client: dict[tuple[str, str], int] = {}
        self.stopped: set[str] = set()  # channels in STOPPED state (Stop Channel STATUS(STOPPED))
        # Message channels' status (registry/channels/mcastatus.py): channel name -> MessageChannelStatus.
        self.message_channels: dict = {}
        # START CHANNEL of a sender: the server runs its agent (server/mca/run.py register); nothing
        # before a server registers (the command then only clears STOPPED, as before).
        self.start_message_channel: Callable[[Channel], None] = lambda channel: None
        # PING CHANNEL of a sender: ping(channel, data_count, done) makes the round trip and calls
        # done(reason), 0 when the partner echoed the data (server/mca/ping.py); None without a server.
        self.ping_message_channel: Callable[[Channel, int, Callable[[int], None]], None] | None = None
        self.listeners: dict[str, ListenerRun] = {}
        self.served_listener = ""  # the listener whose socket the server owns, once it listens
        self.served_port = 0  # and the port that socket listens on
        self.served_pid = 0  # the server's process (what a listener's status calls its process)
        self.services: dict[str, float] = {}  # running services: start time (qmlite starts none)
        # REFRESH SECURITY TYPE(SSL): the server sets this to reload its key repository (server/tls.py);
        # it returns "" or why the new repository cannot be used (the old one then stays in use).
        self.refresh_ssl: Callable[[], str] = lambda: ""
        self._ids = itertools.count(1)

    # ---- channel instances -----------------------------------------------------------------------
    def start_instance(self, channel: Channel, conn_name: str, now: float, *,
                       carried: ChannelInstance | None = None) -> ChannelInstance:
        """A client starts ``channel``: refused when it is stopped or its instance limits are reached
        (IBM: the client sees MQRC_CHANNEL_NOT_AVAILABLE for all three).  ``carried``: the instance the
        socket had on another queue manager of the same server, whose counts continue here (a
        connection its MQCONN's create-on-connect handed over, server/listener.py)."""
        if channel.name in self.stopped:
            raise ChannelRefused("channel stopped")
        mine = self._by_channel.get(channel.name, {})
        if len(mine) >= channel.max_instances:
            raise ChannelRefused("MAXINST reached")
        client = (channel.name, conn_name)
        if self._per_client.get(client, 0) >= channel.max_instances_per_client:
            raise ChannelRefused("MAXINSTC reached")
        if carried is None:
            instance = ChannelInstance(next(self._ids), channel.name, channel.channel_type, conn_name, now)
        else:
            instance = dataclasses.replace(carried, instance_id=next(self._ids))
        self.instances[instance.instance_id] = instance
        self._by_channel.setdefault(channel.name, {})[instance.instance_id] = instance
        self._per_client[client] = self._per_client.get(client, 0) + 1
        return instance

    def end_instance(self, instance: ChannelInstance) -> None:
        if self.instances.pop(instance.instance_id, None) is None:
            return
        mine = self._by_channel.get(instance.channel)
        if mine is not None:
            mine.pop(instance.instance_id, None)
            if not mine:
                del self._by_channel[instance.channel]
        client = (instance.channel, instance.conn_name)
        left = self._per_client.get(client, 0) - 1
        if left > 0:
            self._per_client[client] = left
        else:
            self._per_client.pop(client, None)

    def instances_of(self, channel: str) -> list[ChannelInstance]:
        return list(self._by_channel.get(channel, {}).values())

    def stop(self, channel: str, *, conn_name: str = "", to_status: int = C.MQCHS_STOPPED) -> int:
        """Stop Channel: end the channel's instances (those from ``conn_name`` only, when given) and,
        for STATUS(STOPPED), refuse new ones until Start Channel.  Returns how many were ended."""
        ended = 0
        for instance in self.instances_of(channel):
            if conn_name and instance.conn_name != conn_name:
                continue
            if not instance.stop_requested:
                instance.stop_requested = True
                instance.on_stop()
            ended += 1
        if to_status == C.MQCHS_STOPPED:
            self.stopped.add(channel)
        return ended

    def start(self, channel: str) -> None:
        self.stopped.discard(channel)

    # ---- listeners -------------------------------------------------------------------------------
    def listener_started(self, name: str, port: int, now: float, *, ip_address: str = "",
                         backlog: int = 0, process_id: int = 0) -> ListenerRun:
        run = ListenerRun(name, port, now, ip_address, backlog, process_id)
        self.listeners[name] = run
        return run

    def listener_stopped(self, name: str) -> None:
        self.listeners.pop(name, None)

    def accepting(self) -> bool:
        """Whether the server's socket takes new clients: not once its listener is stopped."""
        return not self.served_listener or self.served_listener in self.listeners
