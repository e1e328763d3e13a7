"""Requester channels, and the server or sender a requester reaches (IBM "Message channel planning":
requester-server, requester-sender callback).  Roles swap: the end that connects is not always the
one that sends (docs/channels.md "Requester and server channels", decisions MCS1-MCS5).

* ``run_requester(host, channel)``: START CHANNEL of a RQSTR: connect to CONNAME (each address in
  turn; TLS first with SSLCIPH, decision MCG3), send the ID naming the channel with CapFlags1
  REQUEST_INITIATION, then receive as a receiver does (run.py ``serve_message_channel`` on the
  socket it opened).  A requester has no retry
  attributes: a failure stops it (STOPPED), a normal end (the server's DISCINT, a callback) leaves it
  INACTIVE.
* ``serve_requester(stream, first, qm_server, channel)``: the MQ port got a requester's ID naming a
  SVR or SDR here.  A SVR answers the ID and sends from its XMITQ over that socket (run.py
  ``sending_session``) until DISCINT or a failure; it does not retry (its partner started it).  A SDR
  answers the ID, ends the connection normally and starts itself to its own CONNAME: the callback;
  the requester then receives as a RCVR does.  Either checks the requester first, as a receiver checks
  its sender: TLS at the listener, CHLAUTH once the ID names its queue manager (decision MCG2).
"""

from __future__ import annotations

import structlog
import trio

from qmlite.pcf import constants as C
from qmlite.pcf import fap

from qmlite.registry.channels.mcastatus import status_of
from qmlite.registry.channels.sendingend import ChannelFailure
from qmlite.registry.errors import MQIError
from qmlite.registry.monitoring import events as E
from qmlite.registry.objects import channels as M
from qmlite.registry.objects.instances import ChannelRefused
from qmlite.server.mca.flows import Started
from qmlite.server.mca import security
from qmlite.server.mca.run import (Blocked, Host, Link, _admitted, _connect_any, _stopped_event, host_of, offer_of,
                                   sending_session, serve_message_channel)
from qmlite.server.mca.sender import SenderProtocol

log = structlog.get_logger("qmlite.mca")

# What a requester's failure before the ID agreed says (IBM's AMQ numbers for the partner's answer).
_REFUSED = {fap.CHANNEL_WRONG_TYPE: "AMQ9547", fap.NO_CHANNEL: "AMQ9520"}


async def run_requester(host: Host, channel, *, connect=trio.open_tcp_stream) -> None:
    """One requester channel's agent, from START CHANNEL until its connection ends."""
    qm = host.qm
    running = qm.registry.running
    status = status_of(qm.registry, channel)
    logger = log.bind(channel=channel.name, qmgr=qm.registry.qmgr.name)
    try:
        instance = running.start_instance(channel, channel.conn_name, qm.now())
    except ChannelRefused as exc:
        logger.warning("channel_not_started", why=exc.why)
        return
    status.started, status.stop_requested = qm.now(), False
    status.status = C.MQCHS_BINDING
    why = ""
    try:
        try:
            stream, where = await _opened(host, channel, connect, instance, status)
        except (OSError, ChannelFailure) as exc:
            why = f"AMQ9202: {exc}" if isinstance(exc, OSError) else str(exc)
        else:
            async with stream:
                closed = await serve_message_channel(stream, b"", None, channel, host=host, peer=where,
                                                     initiate=True, instance=instance)
            if instance.stop_requested:
                status.status = C.MQCHS_STOPPED  # STOP CHANNEL
                return
            if closed is not None and not (closed.code or closed.cut):
                logger.info("requester_ended", partner=instance.remote_qmgr)  # DISCINT, or a callback
                if not instance.remote_qmgr:
                    status.status = C.MQCHS_INACTIVE
                return
            code = closed.code if closed is not None else 0
            if instance.remote_qmgr:  # it ran: serve_message_channel raised its Channel Stopped
                status.status = C.MQCHS_STOPPED
                return
            why = f"{_REFUSED.get(code, 'AMQ9999')}: the partner refused the channel: STATUS {code}"
        logger.warning("channel_failed", why=why)
        status.status = C.MQCHS_STOPPED
        _stopped_event(qm, channel, status, E.MQRQ_CHANNEL_STOPPED_ERROR, why)
    finally:
        running.end_instance(instance)


async def _opened(host: Host, channel, connect, instance, status):
    """The requester's connection to the first address of CONNAME that answers, with TLS first when the
    channel has SSLCIPH, as a sender's (security.py ``secure``: its certificate, SSLPEER; decision MCG3)."""
    stream, where = await _connect_any(channel, connect)
    status.conn_name = where
    if security.wanted(channel):
        try:
            stream = await security.secure(stream, channel, host.tls, host.qm, where, instance)
        except BaseException:
            await stream.aclose()
            raise
    return stream, where


async def serve_requester(stream, first_segment_bytes: bytes, qm_server, channel, *, host: Host | None = None,
                          peer: str = "", opening_timeout: float = 150.0, tls=None) -> None:
    """Serve a requester's connection with ``channel``, this queue manager's SVR or SDR of the name its ID
    (already read: ``first_segment_bytes``) gives.  Returns when the channel ends; the caller closes
    the stream.  The responder's checks are IBM's for every inbound channel (decision MCG2): the
    listener checked the channel's TLS rules (SSLCIPH, SSLCAUTH, SSLPEER) against ``tls``, what its
    handshake settled; CHLAUTH is checked here once the ID names the requester's queue manager."""
    host = host or host_of(qm_server)
    qm = host.qm
    running = qm.registry.running
    logger = log.bind(channel=channel.name, qmgr=qm.registry.qmgr.name)
    proto = SenderProtocol(offer_of(qm, channel), qm.now)
    link = Link(stream, proto, idle=opening_timeout)
    if channel.name in running.stopped:  # STOP CHANNEL: the partner cannot start it either
        proto.fail(fap.CHANNEL_UNAVAILABLE)
        await link.flush()
        return

    def admit(agreed) -> bool:  # CHLAUTH, the responder's check (MCG2)
        return _admitted(qm, channel, agreed, peer, logger, tls) is not None

    if channel.channel_type == M.SDR:
        await _call_back(host, channel, link, first_segment_bytes, logger, admit)
        return
    try:
        instance = running.start_instance(channel, peer, qm.now())
    except ChannelRefused as exc:
        logger.info("channel_refused", why=exc.why)
        proto.fail(fap.CHANNEL_UNAVAILABLE)
        await link.flush()
        return
    status = status_of(qm.registry, channel)
    status.started, status.stop_requested, status.conn_name = qm.now(), False, peer
    status.status = C.MQCHS_BINDING
    if tls is not None:
        tls.show(instance)  # the listener's handshake, in channel status (SSLCIPH, SSLPEER ...)
    scope = trio.CancelScope()
    instance.on_stop = scope.cancel
    try:
        with scope:
            proto.receive_data(first_segment_bytes)
            try:
                await sending_session(host, channel, link, peer, logger, instance, admit=admit)
            except Blocked:  # Channel Blocked was its event; the channel never ran
                status.status = C.MQCHS_INACTIVE
                return
            except (OSError, trio.BrokenResourceError, ChannelFailure, MQIError) as exc:
                logger.warning("channel_failed", why=str(exc))
                status.status = C.MQCHS_INACTIVE  # started by its partner: no retry of its own (MCS3)
                _stopped_event(qm, channel, status, E.MQRQ_CHANNEL_STOPPED_ERROR, str(exc))
                return
            status.status = C.MQCHS_INACTIVE
            _stopped_event(qm, channel, status, E.MQRQ_CHANNEL_STOPPED_OK)
        if instance.stop_requested:
            status.status = C.MQCHS_STOPPED
    finally:
        running.end_instance(instance)


async def _call_back(host: Host, channel, link: Link, first_segment_bytes: bytes, logger, admit) -> None:
    """A requester reached a SDR: the ID is answered (the definitions pair), the connection ended
    normally, and the sender started to its own CONNAME, as START CHANNEL starts it (MCS5).  A requester
    CHLAUTH blocks (``admit``) is refused at its ID and calls nothing back (MCG2)."""
    qm = host.qm
    proto = link.proto
    proto.receive_data(first_segment_bytes)
    event = await link.event()
    if not isinstance(event, Started):
        await link.flush()
        return
    if not admit(event.agreed):
        proto.fail(fap.CHANNEL_UNAVAILABLE)
        await link.flush()
        return
    proto.close()
    await link.flush()
    if qm.registry.running.instances_of(channel.name):
        return  # already running: it sends to its CONNAME now
    logger.info("channel_callback", partner=event.agreed.partner_qmgr, conname=channel.conn_name)
    qm.registry.running.start_message_channel(channel)
