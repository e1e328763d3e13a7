"""PING CHANNEL over the wire: a sender or server channel that is not running opens a connection to
its CONNAME, exchanges its ID, sends DataCount bytes in PING_DATA, reads them back and closes
(docs/channels.md "PING CHANNEL").  The command server's answer waits for this round trip
(registry/admin/deferred.py); what went wrong is the PCF reason IBM answers (docs/decisions.md MCM1-MCM3).
"""

from __future__ import annotations

from collections.abc import Callable

import structlog
import trio

from qmlite.pcf import constants as C
from qmlite.pcf import fap

from qmlite.registry.channels.sendingend import ChannelFailure
from qmlite.server.mca.flows import CLOSED, Closed, Started
from qmlite.server.mca.run import _READ, Host, Link, _connect_any, host_of, offer_of
from qmlite.server.mca.sender import SenderProtocol

log = structlog.get_logger("qmlite.mca")

# A partner that accepts the connection and then says nothing is given this long for each answer (the
# ID, the echo): a client's default opening timeout, so a PING never waits for ever.
ANSWER_TIMEOUT = 60.0

# The partner's STATUS at the ID exchange, as the PCF reason (IBM AMQ9520 "Channel not defined
# remotely" is MQRCCF_UNKNOWN_REMOTE_CHANNEL; a queue manager that is not there or ending).
_REFUSALS = {fap.NO_CHANNEL: C.MQRCCF_UNKNOWN_REMOTE_CHANNEL, fap.QM_UNAVAILABLE: C.MQRCCF_REMOTE_QM_UNAVAILABLE,
             fap.QM_TERMINATING: C.MQRCCF_REMOTE_QM_TERMINATING}


def pattern(count: int) -> bytes:
    """The bytes sent: a counting pattern, so an echo that is cut or shifted does not compare equal."""
    return bytes(i % 256 for i in range(count))


async def ping(host: Host, channel, data_count: int, *, connect=trio.open_tcp_stream,
               timeout: float = ANSWER_TIMEOUT) -> int:
    """One PING CHANNEL's round trip; returns 0 when the partner echoed the data, else the PCF reason."""
    qm = host.qm
    logger = log.bind(channel=channel.name, qmgr=qm.registry.qmgr.name)
    try:
        stream, where = await _connect_any(channel, connect)
    except ChannelFailure as exc:  # no CONNAME, or one that does not parse
        logger.warning("ping_failed", why=exc.why)
        return C.MQRCCF_CONFIGURATION_ERROR
    except OSError as exc:  # refused, unreachable: IBM AMQ9202 "Remote host not available"
        logger.warning("ping_failed", why=str(exc))
        return C.MQRCCF_HOST_NOT_AVAILABLE
    async with stream:
        # A ping's ID is the channel's own: the partner agrees to it as to a start.
        proto = SenderProtocol(offer_of(qm, channel), qm.now)
        link = Link(stream, proto, idle=timeout)
        proto.start()
        event = await link.event()
        if not isinstance(event, Started):
            logger.warning("ping_refused", conname=where, code=event.code)
            if event.eof:  # closed (or silent past the timeout) without a word: IBM AMQ9208
                return C.MQRCCF_CONNECTION_CLOSED
            return _REFUSALS.get(event.code, C.MQRCCF_BIND_FAILED)
        data = pattern(data_count)
        proto.ping(data)
        reason = await _echo(link, timeout)
        if reason == 0 and proto.pings[0] != data:
            reason = C.MQRCCF_PING_DATA_COMPARE_ERROR
        if proto.state != CLOSED:
            proto.close()
            try:
                await link.flush()
            except (trio.BrokenResourceError, OSError):
                pass  # the partner went after its echo: the ping is answered all the same
        logger.info("channel_pinged", conname=where, reason=reason)
        return reason


async def _echo(link: Link, timeout: float) -> int:
    """Read until the partner's PING_DATA comes back (0), the channel is closed or the partner is silent."""
    proto = link.proto
    await link.flush()
    while not proto.pings:
        data = b""
        with trio.move_on_after(timeout):
            try:
                data = await link.stream.receive_some(_READ)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        proto.receive_data(data)
        while (event := proto.next_event()) is not None:
            if isinstance(event, Closed) and not proto.pings:
                return C.MQRCCF_CONNECTION_CLOSED
        await link.flush()
    return 0


def register(qm_server, nursery: trio.Nursery, *, host: Host | None = None) -> None:
    """PING CHANNEL on ``qm_server``'s queue manager makes its round trip in ``nursery``."""
    def start(channel, data_count: int, done: Callable[[int], None]) -> None:
        async def task() -> None:
            try:
                reason = await ping(host or host_of(qm_server), channel, data_count)
            except Exception:  # a bug must not leave the command unanswered
                log.exception("ping_crashed", channel=channel.name)
                reason = C.MQRCCF_PING_ERROR
            done(reason)

        nursery.start_soon(task)

    qm_server.qm.registry.running.ping_message_channel = start
