"""The trio drivers of message channels, thin: they move bytes between a socket and a protocol object
(sender.py, receiver.py) and hand what the events carry to the domain (registry/channels/), waiting for
the journal before any answer that depends on it.

* ``run_sender(host, channel)``: a sender (or server) channel started by START CHANNEL: connect to
  CONNAME (each address in turn), retry SHORTRTY times every SHORTTMR seconds, then LONGRTY times every
  LONGTMR, drain the transmission queue in batches, heartbeat while idle, end after DISCINT of
  nothing to send.
* ``serve_message_channel(stream, first_segment_bytes, qm_server, channel)``: the receiving end of a
  connection whose first INITIAL_DATA named a RCVR/RQSTR channel; the listener hands it the stream
  and the bytes it already read.
* START CHANNEL's hook, which runs ``run_sender`` (or requester.py's ``run_requester``), is agents.py's.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog
import trio

from qmlite.pcf import ccdt, fap
from qmlite.pcf import constants as C
from qmlite.pcf import msgchannel as MCF

from qmlite.registry.channels import monitoring as MON
from qmlite.registry.channels import access
from qmlite.registry.channels.mcastatus import status_of
from qmlite.registry.channels.receivingend import ReceivingEnd, SequenceError
from qmlite.registry.channels.sendingend import MCA_USER, ChannelFailure, SendingEnd
from qmlite.registry.cluster.sending import sending_end_for
from qmlite.registry.errors import MQIError
from qmlite.registry.monitoring import events as E
from qmlite.registry.objects import channels as M
from qmlite.registry.objects.instances import ChannelRefused
from qmlite.registry.testing import faults as FR
from qmlite.server.mca import boundary
from qmlite.server.mca.flows import (RUNNING, BatchEnded, Closed, Confirmed, MessageReceived, ResetRequested,
                                     ResyncRequested, Started)
from qmlite.server.mca import security
from qmlite.server.mca.receiver import ReceiverProtocol
from qmlite.server.mca.sender import SenderProtocol

log = structlog.get_logger("qmlite.mca")
_READ = 65536


@dataclass(slots=True)
class Host:
    """What a channel agent needs of its queue manager's server: the queue manager, a wait for the
    journal to reach a position, a wait for a queue to gain a message (at most ``timeout`` seconds) and
    a sleep (the retry intervals), both on the queue manager's clock (``clock_waits``)."""

    qm: object
    durable: Callable[[int], Awaitable[None]]
    wait_for_message: Callable[[str, float], Awaitable[None]]
    tls: object = None  # the queue manager's server/tls.py ServerTLS: a sender's key repository (security.py)
    sleep: Callable[[float], Awaitable[None]] = trio.sleep


def host_of(qm_server) -> Host:
    """The Host of a server/listener.py QueueManagerServer: its group committer and its queues' parking lots."""
    wait_for_message, sleep = clock_waits(qm_server.qm, qm_server.mqi.activity)
    # An agent's sends are not counted replies, so neither are its waits (server/durability.py, JN9).
    return Host(qm_server.qm, functools.partial(qm_server.committer.wait, answered=False), wait_for_message,
                tls=getattr(qm_server, "tls", None), sleep=sleep)


# The parking lot a retry's wait parks in on a virtual clock: no queue has this name (parentheses are
# not in MQ's object-name characters), and a clock move unparks every lot (server/mqi.py notify_all).
_CLOCK_LOT = "(clock)"


def clock_waits(qm, lots):
    """``wait_for_message(queue, timeout)`` and ``sleep(seconds)`` on the queue manager's clock.  Real:
    trio's timeouts.  Virtual (``SET QMLITE CLOCK``, docs/decisions.md MCT4): the time passes only when
    the test moves the clock -- each wait is registered with the clock (DISPLAY QMLITE CLOCK's WAITS, a
    test's ``wait_for_waits``) and woken by the move; a wait for a message returns at a message or at any
    move (its caller works out again what is due: BATCHINT, DISCINT, the next heartbeat)."""
    control = qm.clock_control

    async def wait_for_message(queue: str, timeout: float) -> None:
        virtual = control.virtual
        if virtual is None:
            with trio.move_on_after(timeout):
                await lots.lot(queue).park()
            return
        if timeout <= 0:
            await trio.lowlevel.checkpoint()
            return
        token = virtual.add_wait(qm.now() + timeout)
        try:
            await lots.lot(queue).park()
        finally:
            virtual.remove_wait(token)

    async def sleep(seconds: float) -> None:
        virtual = control.virtual
        if virtual is None:
            await trio.sleep(seconds)
            return
        deadline = qm.now() + seconds
        token = virtual.add_wait(deadline)
        try:
            while qm.now() < deadline:
                await lots.lot(_CLOCK_LOT).park()
        finally:
            virtual.remove_wait(token)

    return wait_for_message, sleep


def offer_of(qm, channel, *, batch_size: int | None = None, requester: bool = False) -> MCF.Offer:
    q = qm.registry.qmgr
    return MCF.Offer(channel.name, q.name, batch_size=batch_size or channel.batch_size,
                    seq_wrap=channel.seq_number_wrap, max_msg_length=channel.max_msg_length,
                    heartbeat_interval=channel.heartbeat_interval, ccsid=q.ccsid, qmgr_id=q.identifier,
                    requester=requester)


class Link:
    """A protocol object on a stream: sends what it has, reads until an event comes.  ``idle``: seconds a
    read may wait; past them the partner is taken as gone (as at the end of its stream).  ``clock_sleep``:
    when set (a queue manager on a virtual clock: ``Host.sleep``), ``idle`` passes on that clock, not in
    real time (decision MCG4)."""

    def __init__(self, stream, proto, idle: float = math.inf) -> None:
        self.stream = stream
        self.proto = proto
        self.idle = idle
        self.clock_sleep: Callable[[float], Awaitable[None]] | None = None

    async def flush(self) -> None:
        data = self.proto.data_to_send()
        if data:
            await self.stream.send_all(data)

    async def event(self):
        """The next event, reading as needed (b"" at the end of the stream closes the protocol)."""
        while (event := self.proto.next_event()) is None:
            await self.flush()
            data = b""
            if self.clock_sleep is not None and self.idle != math.inf:
                data = await self._receive_on_clock()
            else:
                with trio.move_on_after(self.idle):
                    data = await self._receive()
            self.proto.receive_data(data)
        await self.flush()
        return event

    async def _receive(self) -> bytes:
        try:
            return await self.stream.receive_some(_READ)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return b""

    async def _receive_on_clock(self) -> bytes:
        """The next bytes, or b"" once ``idle`` passes first on the queue manager's (virtual) clock."""
        got: list[bytes] = []
        async with trio.open_nursery() as nursery:
            async def read() -> None:
                got.append(await self._receive())
                nursery.cancel_scope.cancel()

            nursery.start_soon(read)
            await self.clock_sleep(self.idle)
            nursery.cancel_scope.cancel()
        return got[0] if got else b""


class Stopped(Exception):
    """STOP CHANNEL, or DISCINT ran out: the channel ends without retrying."""


# ---- the sending end -------------------------------------------------------------------------------
async def run_sender(host: Host, channel, *, connect=trio.open_tcp_stream) -> None:
    """One sender channel's agent, from START CHANNEL until it stops, runs out of retries or is idle for
    DISCINT.  Status: STARTING, BINDING, RUNNING, RETRYING, then INACTIVE (normal end) or STOPPED."""
    qm = host.qm
    status = status_of(qm.registry, channel)
    status.short_retries_left, status.long_retries_left = channel.short_retry_count, channel.long_retry_count
    logger = log.bind(channel=channel.name, qmgr=qm.registry.qmgr.name)
    try:
        instance = qm.registry.running.start_instance(channel, channel.conn_name, qm.now())
    except ChannelRefused as exc:
        logger.warning("channel_not_started", why=exc.why)
        return
    scope = trio.CancelScope()
    instance.on_stop = scope.cancel
    status.started, status.stop_requested = qm.now(), False
    status.measures.restart()  # NETTIME, XQTIME and XBATCHSZ are the new instance's
    why = ""
    try:
        with scope:
            while True:
                status.status = C.MQCHS_STARTING
                try:
                    await _sender_connection(host, channel, connect, logger, instance)
                    status.status = C.MQCHS_INACTIVE
                    _stopped_event(qm, channel, status, E.MQRQ_CHANNEL_STOPPED_OK)
                    return
                except Stopped:
                    status.status = C.MQCHS_STOPPED
                    return
                except (OSError, trio.BrokenResourceError, ChannelFailure, MQIError, FR.ConnectionFault) as exc:
                    # FR.ConnectionFault: an MQI fault rule BREAK met the agent's own call (its MQCMIT; the receiving
                    # end's are below): a failure retried as the network's (decision MCT7)
                    why = _why(exc) or "AMQ9999: a fault rule broke the channel agent's MQI call"
                    logger.warning("channel_failed", why=why)
                    if getattr(exc, "code", 0) == fap.MSG_SEQUENCE_ERROR:
                        # Retrying cannot help until RESET CHANNEL (AMQ9526): stopped (decision MCA10).
                        _sequence_error(qm, channel, sent=status.last_seq + 1, expected=exc.value,
                                        partner=status.conn_name)
                        status.status = C.MQCHS_STOPPED
                        _stopped_event(qm, channel, status, E.MQRQ_CHANNEL_STOPPED_DISABLED, why)
                        return
                wait = _next_retry(status, channel)
                if wait is None:  # out of retries: STOPPED, IBM's qualifier for that state (MCM9)
                    status.status = C.MQCHS_STOPPED
                    _stopped_event(qm, channel, status, E.MQRQ_CHANNEL_STOPPED_DISABLED, why)
                    return
                status.status = C.MQCHS_RETRYING
                _stopped_event(qm, channel, status, E.MQRQ_CHANNEL_STOPPED_RETRY, why)
                await host.sleep(wait)  # SHORTTMR/LONGTMR on the queue manager's clock (virtual: MCT4)
        # STOP CHANNEL cancelled it: STOPPED, or INACTIVE for STATUS(INACTIVE) (then a trigger starts it again)
        status.status = C.MQCHS_STOPPED if channel.name in qm.registry.running.stopped else C.MQCHS_INACTIVE
    finally:
        qm.registry.running.end_instance(instance)


def _why(exc: Exception) -> str:
    """A failure's text, starting with the AMQ message IBM's agent writes for it where qmlite has none
    of its own (Channel Stopped's ErrorIdentifier, MCM10): AMQ9202 a partner that cannot be reached,
    AMQ9526 the partner's sequence-number refusal."""
    why = str(exc)
    if why[:3] == "AMQ":
        return why
    if isinstance(exc, OSError):
        return f"AMQ9202: remote host not available: {why}"
    if getattr(exc, "code", 0) == fap.MSG_SEQUENCE_ERROR:
        return f"AMQ9526: message sequence number error: {why}"
    return why


def _sequence_error(qm, channel, *, sent: int, expected: int | None, partner: str) -> None:
    """AMQ9526E in the error log, at either end (IBM writes it at both: decision MCD4).  The sending end
    names the first number of the batch refused and the number the partner's STATUS said it expected."""
    qm.diagnostics.write("AMQ9526E", remote_host=partner.split("(")[0], a1=sent, a2=expected or 0,
                         c1=channel.name, c2=partner)  # RemoteHost: the address alone, as IBM's entries show it


def _stopped_event(qm, channel, status, qualifier: int, why: str = "") -> None:
    """CHLEV's Channel Stopped (docs/decisions.md MCA28): ErrorIdentifier the AMQ number the failure's
    text starts with, AMQ9999 (ended abnormally) for another failure, 0 for a normal end."""
    error = int(why[3:7]) if why[:3] == "AMQ" and why[3:7].isdigit() else (9999 if why else 0)
    qm.events.channel_stopped(channel, qualifier=qualifier, conn_name=status.conn_name, error=error, why=why)


def _next_retry(status, channel) -> float | None:
    if status.short_retries_left > 0:
        status.short_retries_left -= 1
        return channel.short_retry_interval
    if status.long_retries_left > 0:
        status.long_retries_left -= 1
        return channel.long_retry_interval
    return None


async def _connect_any(channel, connect):
    """The first address of CONNAME that answers (IBM tries each in turn)."""
    try:
        addresses = ccdt.parse_conn_name(channel.conn_name)
    except ValueError as exc:
        raise ChannelFailure(0, f"AMQ9204: bad CONNAME {channel.conn_name!r}") from exc
    if not addresses:
        raise ChannelFailure(0, "AMQ9204: no CONNAME")
    error: OSError | None = None
    for host, port in addresses:
        try:
            return await connect(host, port), f"{host}({port})"
        except OSError as exc:
            error = exc
    raise error


async def _sender_connection(host: Host, channel, connect, logger, instance) -> None:
    qm = host.qm
    status = status_of(qm.registry, channel)
    if qm.faults.armed:
        await _start_fault(host, channel)
    stream, where = await _connect_any(channel, connect)
    status.conn_name = where
    async with stream:
        if security.wanted(channel):  # SSLCIPH: TLS before the ID exchange (docs/channels.md "Security")
            stream = await security.secure(stream, channel, host.tls, qm, where, instance)
        proto = SenderProtocol(offer_of(qm, channel), qm.now)
        status.status = C.MQCHS_BINDING
        proto.start()
        await sending_session(host, channel, Link(stream, proto), where, logger, instance)


class Blocked(ChannelFailure):
    """CHLAUTH refused the partner at the ID exchange (Channel Blocked raised, STATUS sent)."""


async def sending_session(host: Host, channel, link: Link, where: str, logger, instance, *,
                          admit: Callable[[MCF.Agreed], bool] | None = None) -> None:
    """The sending end once its ID is out (it connected) or its answer is due (a requester reached it,
    server/mca/requester.py): the agreement, the resync, the batches, the close.  ``admit``: the
    responder's CHLAUTH check once the ID names the partner (a requester reached this end); refused, the
    partner gets STATUS CHANNEL_UNAVAILABLE and Blocked is raised."""
    qm = host.qm
    status = status_of(qm.registry, channel)
    proto = link.proto
    end = sending_end_for(qm, channel)  # a cluster-sender's takes its own messages from SCTQ
    try:
        event = await link.event()
        if not isinstance(event, Started):
            raise ChannelFailure(event.code, partner_ended(event.code))
        agreed = event.agreed
        if admit is not None and not admit(agreed):
            proto.fail(fap.CHANNEL_UNAVAILABLE)  # the requester's AMQ9558E, as a blocked sender's
            await link.flush()
            raise Blocked(fap.CHANNEL_UNAVAILABLE, f"the partner {agreed.partner_qmgr} is blocked by CHLAUTH")
        link.idle = math.inf  # agreed: the opening deadline of an accepted connection is over
        end.batch_size, end.max_msg_length = agreed.batch_size, agreed.max_msg_length
        status.remote_qmgr, status.batch_size = agreed.partner_qmgr, agreed.batch_size
        status.heartbeat_interval, status.max_msg_length = agreed.heartbeat_interval, agreed.max_msg_length
        if proto.state != RUNNING:  # refused right after its ID's answer (a CHLAUTH block): its STATUS
            closed = await link.event()
            raise ChannelFailure(closed.code, partner_ended(closed.code))
        # The start's resync: the partner's last committed batch settles ours if it is in doubt.
        proto.resync(*end.resync_point())
        asked = qm.now()
        answer = await _confirmation(link)
        MON.round_trip(status.measures, qm.now() - asked)  # NETTIME: the resync's round trip
        if end.in_doubt is not None:  # else nothing changed: no fsync of its own (decision MCD1)
            await host.durable(end.resolve_with_partner(answer.seq, answer.luw))
        status.status = C.MQCHS_RUNNING
        _agreed_instance(instance, agreed, where)
        qm.events.channel_started(channel, where)  # CHLEV: established, resynchronised, messages can flow
        logger.info("channel_running", partner=agreed.partner_qmgr, conname=where)
        await _send_batches(host, channel, end, link, status, instance)
        proto.close()
        await link.flush()
        await host.durable(qm.position)  # a normal end leaves the last batch's commit on disk
    finally:
        status.bytes_sent, status.bytes_received = proto.bytes_sent, proto.bytes_received
        end.close()  # a batch not confirmed backs out; one in doubt stays in doubt (its record)


# ---- fault rules on a message channel (registry/testing/faults.py MCASTART, MCAMSG; docs/faults.md) ---
async def _start_fault(host: Host, channel) -> None:
    """A rule on the channel's start at the sending end: FAIL is the partner refusing it (AMQ9558, as
    when the remote channel is not available), BREAK the connection lost before the ID exchange
    (AMQ9208); both are retried as those failures are.  DELAY: the attempt waits, on the queue
    manager's clock."""
    fault = host.qm.faults.match_channel(FR.MCASTART, channel.name)
    if fault is None:
        return
    if fault.action == FR.DELAY:
        await host.sleep(fault.delay_ms / 1000)
    elif fault.action == FR.BREAK:
        raise ChannelFailure(0, f"AMQ9208: the connection to the partner ended (fault rule {fault.rule})")
    else:
        raise ChannelFailure(0, f"AMQ9558: the remote channel is not currently available (fault rule "
                                f"{fault.rule}, reason {fault.reason})")


async def _message_fault(host: Host, channel, link: Link) -> None:
    """A rule on the next message of a batch: BREAK sends what the batch holds so far and drops the
    connection, the message unsent (the batch backs out at both ends, the sender retries); DELAY sends
    what is pending, then waits before the message goes."""
    fault = host.qm.faults.match_channel(FR.MCAMSG, channel.name)
    if fault is None:
        return
    await link.flush()
    if fault.action == FR.DELAY:
        await host.sleep(fault.delay_ms / 1000)
        return
    raise ChannelFailure(0, f"AMQ9208: the connection to the partner ended mid-batch (fault rule {fault.rule})")


async def _confirmation(link: Link) -> Confirmed:
    event = await link.event()
    if isinstance(event, Closed) and event.eof:
        # No answer at all (the partner killed, the network cut): it may have committed the batch before
        # it went, so the batch stays in doubt for the next start's resync (code 0: not a refusal).
        raise ChannelFailure(0, "AMQ9208: the connection to the partner ended before its confirmation")
    if not isinstance(event, Confirmed):
        raise _refusal(event)
    return event


def _refusal(event: Closed) -> ChannelFailure:
    """The partner's STATUS as a failure; MSG_SEQUENCE_ERROR's value (the number it expected) kept."""
    if event.code == fap.MSG_SEQUENCE_ERROR:
        why = f"AMQ9526: message sequence number error: the partner expected {event.value}"
    else:
        why = partner_ended(event.code)
    return ChannelFailure(event.code, why, event.value)


# The sending end's error-log message for a partner's refusal by its STATUS code, where IBM's names one.
_ENDED_BY = {fap.CHANNEL_UNAVAILABLE: "AMQ9558E: the remote channel is not currently available",
             fap.CIPHER_SPEC: "AMQ9641E: remote CipherSpec error",
             fap.PEER_NAME: "AMQ9643E: remote TLS peer name error",
             fap.SSL_CLIENT_CERTIFICATE: "AMQ9642E: no TLS certificate for the channel"}


def partner_ended(code: int) -> str:
    known = _ENDED_BY.get(code)
    return f"{known} (STATUS {code})" if known else f"the partner ended the channel: STATUS {code}"


def _agreed_instance(instance, agreed: MCF.Agreed, where: str) -> None:
    """What DISPLAY CHSTATUS shows of the running instance (registry/admin/commands/channel_status.py)."""
    instance.remote_qmgr, instance.conn_name = agreed.partner_qmgr, where or instance.conn_name
    instance.heartbeat_interval, instance.max_msg_length = agreed.heartbeat_interval, agreed.max_msg_length


def _counted(instance, status, proto) -> None:
    instance.msgs, instance.last_msg = status.msgs, status.last_msg
    instance.bytes_sent, instance.bytes_received = proto.bytes_sent, proto.bytes_received


async def _send_batches(host: Host, channel, end: SendingEnd, link: Link, status, instance) -> None:
    qm = host.qm
    proto = link.proto
    idle_since = qm.now()
    xmitq = channel.xmit_q_name
    while True:
        await boundary.reset_if_asked(host, end, link, status, _confirmation)  # RESET CHANNEL while running
        now = qm.now()
        while (item := end.next_message(now)) is not None:
            seq, data = item
            if qm.faults.armed:
                await _message_fault(host, channel, link)
            proto.send_message(seq, data, end.batch.luw)
            if proto.pending >= _READ:
                await link.flush()
        if end.batch_should_end(qm.now()):
            if boundary.heartbeat_due(channel, proto, qm.now()):
                await boundary.batch_heartbeat(link)  # BATCHHB: no answer backs the batch out, not in doubt
                heartbeats_timed(proto, status)
            full, count = end.batch_full(), end.batch.count
            luw, last, position = end.harden()
            await host.durable(position)  # the in-doubt record before the batch's end
            proto.end_batch(luw)
            asked = qm.now()
            try:
                answer = await _confirmation(link)
            except ChannelFailure as exc:
                if exc.code:  # the receiver refused the batch (its STATUS): it backed it out, nothing in doubt
                    await host.durable(end.refused())
                raise
            # Not waited for (decision MCD1): the next batch's in-doubt record reaches the disk after it,
            # in the same fsync; lost in a crash, the batch is in doubt at restart and RESYNC commits it.
            end.confirmed(answer.seq, answer.luw)
            MON.round_trip(status.measures, qm.now() - asked)  # NETTIME: the batch's end and confirmation
            MON.batch_ended(status.measures, count, full)
            _counted(instance, status, proto)
            idle_since = qm.now()
            continue
        await link.flush()
        if end.batch is not None:  # BATCHINT: wait for more, at most until it runs out
            wait = max(0.0, end.batch.started + channel.batch_interval / 1000 - qm.now())
        else:
            if channel.disc_interval and qm.now() - idle_since >= channel.disc_interval:
                return  # DISCINT: nothing to send for that long, the channel ends normally
            due = proto.on_timer(qm.now())
            await link.flush()
            ends = idle_since + channel.disc_interval if channel.disc_interval else math.inf
            wait = max(0.0, min(ends, due if due is not None else math.inf) - qm.now())
        if not end.waiting() and not status.reset_seq:
            await _idle(host, link, xmitq, min(wait, 3600.0), status)
        heartbeats_timed(proto, status)


def heartbeats_timed(proto: SenderProtocol, status) -> None:
    """NETTIME's samples from the heartbeats answered (decision MCG5), as from the resync and each batch's
    confirmation: a round trip that waited for the partner."""
    for seconds in proto.take_heartbeat_times():
        MON.round_trip(status.measures, seconds)


async def _idle(host: Host, link: Link, queue: str, timeout: float, status=None) -> None:
    """Wait for a message on the transmission queue, at most ``timeout``; the partner's bytes meanwhile
    (a heartbeat answer, its close) are read, and a close ends the channel."""
    closed: list[Closed] = []
    async with trio.open_nursery() as nursery:
        async def watch() -> None:
            try:
                data = await link.stream.receive_some(_READ)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                data = b""
            link.proto.receive_data(data)
            while (event := link.proto.next_event()) is not None:
                if isinstance(event, Closed):
                    closed.append(event)
            nursery.cancel_scope.cancel()

        nursery.start_soon(watch)
        if status is not None:
            status.wake = nursery.cancel_scope.cancel  # RESET CHANNEL while running (server/mca/boundary.py)
        try:
            await host.wait_for_message(queue, timeout)
        finally:
            if status is not None:
                status.wake = None
        nursery.cancel_scope.cancel()
    await link.flush()
    if closed:
        raise _refusal(closed[0])


# ---- the receiving end -----------------------------------------------------------------------------
def receive_timeout(heartbeat_interval: int) -> float:
    """How long the receiving end waits for its partner once the channel runs: a sender heartbeats every
    HBINT while it has nothing to send, so twice that and 30 s of slack is a dead partner (the client
    channel's rule, decision CX2); HBINT(0): no limit."""
    return heartbeat_interval * 2 + 30 if heartbeat_interval > 0 else math.inf


async def serve_message_channel(stream, first_segment_bytes: bytes, qm_server, channel_definition, *,
                                host: Host | None = None, peer: str = "", opening_timeout: float = 150.0,
                                initiate: bool = False, instance=None, tls=None) -> Closed | None:
    """Serve the receiving end of a message channel on ``stream``, whose first bytes (an INITIAL_DATA
    naming ``channel_definition``, a RCVR or RQSTR) were already read.  Returns when the channel ends,
    or when the partner is silent for ``opening_timeout`` seconds before the ID exchange agrees, for
    ``receive_timeout`` after; the caller closes the stream.  ``initiate``: a requester that connected
    (server/mca/requester.py) sends the first ID itself, in its ``instance``.  ``tls``: what the
    listener's handshake settled (server/tls.py Negotiated), for CHLAUTH's SSLPEERMAP.  Returns how it
    ended."""
    host = host or host_of(qm_server)
    qm = host.qm
    channel = channel_definition
    logger = log.bind(channel=channel.name, qmgr=qm.registry.qmgr.name)
    proto = ReceiverProtocol(offer_of(qm, channel, requester=initiate), qm.now)
    link = Link(stream, proto, idle=opening_timeout)
    if channel.channel_type not in (M.RCVR, M.RQSTR, M.CLUSRCVR):
        proto.fail(fap.CHANNEL_WRONG_TYPE)
        await link.flush()
        return
    if qm.faults.armed:
        fault = qm.faults.match_channel(FR.MCASTART, channel.name)
        if fault is not None:  # a rule on this end's start: refused as unavailable, dropped, or slow
            if fault.action == FR.BREAK:
                return  # the caller closes the socket, unanswered
            if fault.action == FR.DELAY:
                await host.sleep(fault.delay_ms / 1000)
            else:
                proto.fail(fap.CHANNEL_UNAVAILABLE)
                await link.flush()
                return
    try:
        instance = instance or qm.registry.running.start_instance(channel, peer, qm.now())
    except ChannelRefused as exc:
        logger.info("channel_refused", why=exc.why)
        proto.fail(fap.CHANNEL_UNAVAILABLE)
        await link.flush()
        return
    if tls is not None:
        tls.show(instance)  # the listener's handshake, in channel status (SSLCIPH, SSLPEER ...)
    end: ReceivingEnd | None = None
    event = None
    announced = False  # Channel Started raised: IBM's Channel Stopped follows only that (MCM11)
    scope = trio.CancelScope()
    instance.on_stop = scope.cancel
    try:
        with scope:
            if first_segment_bytes:
                proto.receive_data(first_segment_bytes)
            if initiate:
                proto.start()
            while True:
                event = await link.event()
                if isinstance(event, Started):
                    # CHLAUTH is the responder's check of an inbound channel: a requester that connected
                    # out itself (``initiate``) is not asked, its MCAUSER (blank: the agent's own) puts.
                    user = (channel.mca_user.strip() or MCA_USER) if initiate else \
                        _admitted(qm, channel, event.agreed, peer, logger, tls)
                    if user is None:
                        proto.fail(fap.CHANNEL_UNAVAILABLE)  # blocked: the sender's AMQ9558E, it retries
                        break
                    link.idle = receive_timeout(event.agreed.heartbeat_interval)
                    if qm.clock_control.virtual is not None:  # the silence limit on the test's clock (MCG4)
                        link.clock_sleep = host.sleep
                    end = ReceivingEnd(qm, channel, partner_qmgr=event.agreed.partner_qmgr, conn_name=peer,
                                       user=user)
                    instance.mca_user = user
                    _agreed_instance(instance, event.agreed, peer)
                    end.status.status = C.MQCHS_RUNNING
                    end.status.batch_size = event.agreed.batch_size
                    end.status.heartbeat_interval = event.agreed.heartbeat_interval
                    end.status.measures.restart()
                elif isinstance(event, MessageReceived):
                    try:
                        end.accept(event.seq, event.data, qm.now())
                        MON.message_moved(end.status.measures, len(event.data))
                    except SequenceError as exc:
                        logger.warning("channel_sequence_error", why=exc.why)
                        _sequence_error(qm, channel, sent=exc.got, expected=exc.expected, partner=peer)
                        end.backout()
                        proto.refuse_sequence(exc.expected)
                    except ChannelFailure as exc:
                        logger.warning("channel_failed", why=exc.why)
                        end.backout()
                        proto.fail(exc.code)
                elif isinstance(event, BatchEnded):
                    count = end.status.current_msgs
                    await host.durable(end.commit(event.luw))
                    MON.batch_ended(end.status.measures, count, count >= end.status.batch_size)
                    proto.confirm(end.last_seq, event.luw)
                    _counted(instance, end.status, proto)
                elif isinstance(event, ResyncRequested):
                    proto.confirm(*end.resync())
                    if not announced:  # CHLEV, at the receiving end too: once resynchronised (a PING never is)
                        announced = True
                        qm.events.channel_started(channel, peer)
                elif isinstance(event, ResetRequested):
                    await host.durable(end.reset(event.seq))
                    proto.confirm(end.last_seq, end.last_luw)
                elif isinstance(event, Closed):
                    if event.cut:
                        logger.warning("channel_cut", code=event.code)
                    break
            await link.flush()
            if announced:  # CHLEV: the channel ended, normally or not (a STOP CHANNEL raised its own)
                failed = event.cut or event.eof or event.code
                why = f"AMQ9999: the partner ended the channel: STATUS {event.code}" if failed else ""
                _stopped_event(qm, channel, end.status,
                               E.MQRQ_CHANNEL_STOPPED_ERROR if failed else E.MQRQ_CHANNEL_STOPPED_OK, why)
    except FR.ConnectionFault:  # an MQI fault rule BREAK on the agent's own put or commit: the socket is dropped
        logger.warning("channel_broken", why="fault rule")
    finally:
        if end is not None:
            end.backout()  # whatever was not committed (a batch cut off)
            if len(qm.registry.running.instances_of(channel.name)) <= 1:  # not a callback's instance's
                end.status.status = C.MQCHS_INACTIVE
            end.close()
        qm.registry.running.end_instance(instance)
    return event


def _admitted(qm, channel, agreed: MCF.Agreed, peer: str, logger, tls=None) -> str | None:
    """CHLAUTH for the responding end, once the ID names the partner queue manager: the MCA user the
    channel runs as, or None when a record blocks it (registry/channels/access.py, decisions MCX1, MCG2).
    The receiving end asks it of a sender; a SVR or SDR that a requester reached asks it too."""
    verdict = access.admit(qm.registry, qm.events, channel, address=peer, partner_qmgr=agreed.partner_qmgr,
                           ssl_peer=tls.subject if tls else None, ssl_issuer=tls.issuer if tls else None)
    if verdict.allowed:
        return verdict.user
    logger.warning("channel_blocked", partner=agreed.partner_qmgr, address=peer, why=verdict.why)
    return None
