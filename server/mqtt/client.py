"""One MQTT client's network connection: bytes in through pcf/mqtt's state machine, each packet handed
to the queue manager (registry/telemetry/mapping.py), bytes out through a bounded queue.

Three tasks: the reader (packets, the keep-alive of 1.5 times the client's interval, MQTT-3.1.2-24),
the writer (the one task that writes to the stream) and the deliverer (messages waiting for this
client on SYSTEM.MQTT.TRANSMIT.QUEUE, at most ``INFLIGHT`` unacknowledged at QoS 1 and 2); a QoS 0 copy
published while the deliverer is idle and nothing waits for the client is queued for the writer at once
(``_handed``, registry/telemetry/mapping.py ``Handover``).  A client
that does not read fills the outbound queue: it is closed once a delivery has waited
``slow_client_seconds`` for room, not waited for longer.  A protocol violation
closes the connection (MQTT-4.8.0-1); so does a publish the queue manager refuses, as IBM's service
does (MQTT 3.1.1 has no negative acknowledgement).  The will is published when the connection ends
any way but DISCONNECT (MQTT-3.1.2-8).
"""

from __future__ import annotations

import math

import trio

from qmlite.pcf import constants as C
from qmlite.pcf.mqtt import packets as MP
from qmlite.pcf.mqtt.mqttstate import CLOSED, NEED_DATA, ServerConnection, connect_refusal, known_protocol_name
from qmlite.registry.errors import MQIError
from qmlite.registry.telemetry import mapping

from .. import coalesce
from . import authn

# Unacknowledged QoS 1/2 messages per client: IBM documents no figure for its MQXR service; 20 is paho's
# and mosquitto's default window (TR3, which replaces TT8's 10).
INFLIGHT = 20
OUTBOUND = 1000  # packets queued for a client before a delivery waits for room
SLOW_CLIENT_SECONDS = 30.0  # a delivery that waited this long for room closes the client as too slow
MAX_CLIENT_ID = 23  # MQTT 3.1's limit, which IBM's service keeps for 3.1.1 too (TT8)
# Bytes read at a time: a read's publications are published before any other task runs, so its size
# bounds how many copies pile up for each subscriber's writer meanwhile (16 KiB: some 190 small
# publications, well inside OUTBOUND, so QoS 0 copies keep being handed over, TQ3).
READ_SIZE = 16_384


class _Closed(Exception):
    """End this connection (why is logged)."""


class MQTTClient:
    def __init__(self, listener, stream: trio.abc.Stream, address: str, *, first: bytes = b"",
                 protocol: str = "") -> None:
        self.listener = listener
        self.server = listener.server
        self.qm = listener.server.qm
        self.stream = stream
        self.address = address
        self.conn = ServerConnection(max_packet=self.qm.registry.qmgr.max_msg_length + 65_536)
        if first:
            self.conn.receive_data(first)  # what the listener read to tell MQTT from WebSockets
        self.transport = protocol  # "HTTP" over WebSockets (CHSTATUS's PROTOCOL), else the CONNECT's
        self.log = listener.log.bind(peer=address)
        self.session = None  # registry/telemetry/telemetrysessions.py Session, once connected
        self.mq = None  # the queue manager's session (registry/messaging/sessions.py)
        self.will: MP.Connect | None = None
        self.hsubs: dict[str, int] = {}
        self.more = trio.Event()  # the deliverer looks again
        self.graceful = False
        self._send, self._outbox = trio.open_memory_channel(listener.outbound_limit)
        self._cancel = trio.CancelScope()
        self._flushed = trio.Event()
        self._ended = False
        # Copies handed over at publication (mapping.Handover) wait while the deliverer has a batch
        # out or the reader answers a packet of the client's own: they would overtake either.
        self._busy = False
        self._answering = False
        self._take = self._handed  # the one bound method registered, so it can be found again
        # A QoS 1 copy is sent before the journal holds its put (TR2); tests turn it off to compare.
        self._early = listener.early_qos1

    # ---- the connection's life ------------------------------------------------------------------
    async def run(self) -> None:
        try:
            with self._cancel:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._guard, self._writer)
                    await self._guard(self._reader, nursery)
        finally:
            self._end()
            with trio.CancelScope(shield=True):
                await self.stream.aclose()

    async def _guard(self, task, *args) -> None:
        """Run one of the connection's tasks; when it ends, for whatever reason, the connection ends."""
        try:
            await task(*args)
        except (_Closed, MP.ProtocolViolation, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self.log.info("mqtt_closed", why=str(exc) or type(exc).__name__)
        finally:
            self._cancel.cancel()

    def close(self) -> None:
        """Another connection took the ClientIdentifier, or PURGE CHANNEL: this one's queue-manager
        connection ends now (so the new one's CONNACK comes after it), its socket as its tasks end."""
        self._end()
        self._cancel.cancel()

    def _end(self) -> None:
        qm = self.qm
        listener = self.listener
        listener.clients.discard(self)
        if self.session is None or self._ended:
            return
        self._ended = True
        if not self.graceful and self.will is not None and self.will.will_topic and self.mq is not None:
            w = self.will
            try:
                mapping.publish(qm, self.mq, self.session.client_id, w.will_topic, w.will_message, w.will_qos,
                                w.will_retain, None)
            except MQIError as exc:
                self.log.info("mqtt_will_refused", reason=C.describe("MQRC", exc.reason))
        receivers = mapping.handover_of(qm).receivers
        if receivers.get(self.session.client_id) is self._take:
            del receivers[self.session.client_id]
        if self.mq is not None:
            qm.disconnect(self.mq, commit=True)
        if self.session.clean:
            mapping.forget_client(qm, self.session.client_id)
        if self.session.on_close == self.close:
            listener.sessions.connection_ended(self.session)

    def _queue(self, packet) -> None:
        """An acknowledgement or answer: queued at once (a client that lets the queue fill with
        those is not reading at all)."""
        try:
            self._send.send_nowait(self.conn.send(packet))
        except trio.WouldBlock:
            raise _Closed("slow client: its outbound queue is full") from None

    async def _deliver(self, packet) -> None:
        """A message for the client: queued at once while the outbound queue has room, without a
        checkpoint, so the writer wakes once for the deliverer's whole batch and writes it in one
        system call; when full, waits for room (the rest stay on SYSTEM.MQTT.TRANSMIT.QUEUE), but not
        longer than the listener allows a client that reads nothing."""
        data = self.conn.send(packet)
        try:
            self._send.send_nowait(data)
            return
        except trio.WouldBlock:
            pass
        with trio.move_on_after(self.listener.slow_client_seconds):
            await self._send.send(data)
            return
        raise _Closed("slow client: nothing read for the outbound queue's room")

    def _handed(self, packet: bytes) -> bool:
        """A QoS 0 copy handed over as it is published (mapping.Handover, TQ1), its PUBLISH encoded:
        queued for the writer now, as the deliverer would have queued it; False leaves it to the general
        path (on the transmission queue for the deliverer)."""
        if self._busy or self._answering or self._ended or self._cancel.cancel_called:
            return False
        try:
            self._send.send_nowait(packet)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        self.listener.sessions.counted(self.session, sent=1)
        return True

    async def _writer(self) -> None:
        outbox = self._outbox
        loop = coalesce.of_this_run()
        async for data in outbox:
            batch = [data]
            while True:  # whatever else is queued goes in the same write
                try:
                    batch.append(outbox.receive_nowait())
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
            loop.replies += len(batch)  # answers the group committer sees (server/durability.py, JN9)
            await self.stream.send_all(b"".join(batch) if len(batch) > 1 else data)
        self._flushed.set()

    async def _receive(self, timeout: float) -> bytes:
        with trio.move_on_after(timeout):
            return await self.stream.receive_some(READ_SIZE)
        raise _Closed("keep-alive expired")

    async def _next(self, timeout: float):
        while True:
            event = self.conn.next_event()
            if event is CLOSED:
                raise _Closed("end of stream")
            if event is not NEED_DATA:
                return event
            self.conn.receive_data(await self._receive(timeout))

    # ---- reading ---------------------------------------------------------------------------------
    async def _reader(self, nursery) -> None:
        connect = await self._next(self.server.cfg.opening_timeout)
        if not self._connect(connect):
            await self._drain()
            return
        nursery.start_soon(self._guard, self._deliverer)
        keep_alive = connect.keep_alive * 1.5 if connect.keep_alive else math.inf
        handlers = {MP.Publish: self._publish, MP.PubAck: self._puback, MP.PubRec: self._pubrec,
                    MP.PubRel: self._pubrel, MP.PubComp: self._pubcomp, MP.Subscribe: self._subscribe,
                    MP.Unsubscribe: self._unsubscribe, MP.PingReq: self._ping}
        while True:
            packet = await self._next(keep_alive)
            if isinstance(packet, MP.Disconnect):
                self.graceful = True  # MQTT-3.14.4-3: the will is discarded
                await self._drain()
                return
            self._answering = True  # a copy for this client made while answering goes behind the answer
            try:
                await handlers[type(packet)](packet)
            finally:
                self._answering = False

    async def _drain(self) -> None:
        """What is queued is written before the connection closes (a refusing CONNACK, say)."""
        self._send.close()
        with trio.move_on_after(self.server.cfg.opening_timeout):
            await self._flushed.wait()

    def _connect(self, connect: MP.Connect) -> bool:
        code = connect_refusal(connect, max_client_id=MAX_CLIENT_ID)
        if not code and connect.protocol not in self.listener.protocols:
            code = MP.REFUSED_PROTOCOL_VERSION  # the channel's PROTOCOL does not list this level
        if code == MP.REFUSED_PROTOCOL_VERSION and not known_protocol_name(connect):
            raise _Closed(f"protocol name {connect.protocol_name!r}")  # 3.1.2.1: no CONNACK
        listener = self.listener
        client_id = connect.client_id
        if not code and not client_id:
            client_id = listener.generated_client_id()  # MQTT-3.1.3-6: the server assigns one
        identity = None
        if not code:
            identity = authn.authenticate(self.server.cfg, self.qm.registry, mca_user=listener.mca_user,
                                          use_client_id=listener.use_client_id, client_id=client_id,
                                          username=connect.username, password=connect.password)
            code = identity.refused
        if not code:
            try:
                self.mq = self.qm.connect("", user=identity.user, admin=identity.admin, appl_name="MQXR",
                                          appl_type=C.MQAT_JAVA, channel=listener.channel, conname=self.address)
            except MQIError as exc:
                refused = exc.reason == C.MQRC_NOT_AUTHORIZED
                code = MP.REFUSED_NOT_AUTHORIZED if refused else MP.REFUSED_SERVER_UNAVAILABLE
        if code:
            self.log.info("mqtt_refused", client_id=client_id, code=code)
            self._queue(MP.ConnAck(code))
            return False
        session, present = listener.sessions.connect(
            client_id, connect.clean_session, identity.user, self.address, listener.channel,
            client_user=connect.username or "", protocol=self.transport or connect.protocol or "",
            keep_alive=connect.keep_alive,
            kept=client_id not in listener.sessions.sessions and mapping.kept_state(self.qm, client_id))
        session.on_close = self.close
        self.session = session
        self.will = connect if connect.will_topic is not None else None
        self._queue(MP.ConnAck(MP.ACCEPTED, present))
        for pid in sorted(session.released):  # MQTT-4.4.0-1: a PUBREL not yet completed goes again
            self._queue(MP.PubRel(pid))
        listener.clients.add(self)
        if listener.handover:
            mapping.handover_of(self.qm).receivers[client_id] = self._take
        self.log.info("mqtt_connected", client_id=client_id, user=identity.user, clean=connect.clean_session,
                      present=present)
        return True

    def _when_durable(self, packet) -> None:
        """An acknowledgement of a persistent put goes once the put is on disk; the reader goes on
        meanwhile, so a client's window of publications shares one group commit."""
        position = self.qm.position
        if position <= self.qm.durable_position:
            self._queue(packet)
            return

        def send() -> None:
            try:
                self._queue(packet)
            except (_Closed, trio.ClosedResourceError):
                self._cancel.cancel()

        self.server.committer.after(position, send)

    async def _publish(self, p: MP.Publish) -> None:
        session = self.session
        if p.qos == 2 and p.packet_id in session.received_qos2:
            self._queue(MP.PubRec(p.packet_id))  # a duplicate: published once already (MQTT 4.3.3)
            return
        try:
            mapping.publish(self.qm, self.mq, session.client_id, p.topic, p.payload, p.qos, p.retain, p.packet_id)
        except MQIError as exc:
            raise _Closed(f"publish to {p.topic!r} refused: {C.describe('MQRC', exc.reason)}") from None
        self.listener.sessions.counted(session, received=1)
        if p.qos == 1:
            self._when_durable(MP.PubAck(p.packet_id))
        elif p.qos == 2:
            session.received_qos2.add(p.packet_id)
            self._when_durable(MP.PubRec(p.packet_id))

    async def _pubrel(self, p: MP.PubRel) -> None:
        self.session.received_qos2.discard(p.packet_id)
        self._queue(MP.PubComp(p.packet_id))

    async def _puback(self, p: MP.PubAck) -> None:
        msg_id = self.session.inflight.pop(p.packet_id, None)
        if msg_id is not None:
            self.session.sent.discard(msg_id)
            mapping.take(self.qm, msg_id)
            self.more.set()

    async def _pubrec(self, p: MP.PubRec) -> None:
        session = self.session
        msg_id = session.inflight.pop(p.packet_id, None)
        if msg_id is not None:
            session.sent.discard(msg_id)
            mapping.take(self.qm, msg_id)
            session.released.add(p.packet_id)
            self.more.set()
        self._queue(MP.PubRel(p.packet_id))

    async def _pubcomp(self, p: MP.PubComp) -> None:
        self.session.released.discard(p.packet_id)

    async def _subscribe(self, p: MP.Subscribe) -> None:
        session = self.session
        codes = []
        for topic_filter, qos in p.topics:
            held = self.hsubs.pop(topic_filter, None)
            if held is not None:
                self.qm.close_object(self.mq, held, C.MQCO_NONE)
            try:
                self.hsubs[topic_filter] = mapping.subscribe(self.qm, self.mq, session.client_id, topic_filter, qos,
                                                             durable=not session.clean)
                codes.append(qos)
            except MQIError as exc:
                self.log.info("mqtt_subscribe_refused", topic=topic_filter, reason=C.describe("MQRC", exc.reason))
                codes.append(MP.SUBACK_FAILURE)
        self._queue(MP.SubAck(p.packet_id, codes))
        self.more.set()

    async def _unsubscribe(self, p: MP.Unsubscribe) -> None:
        for topic_filter in p.topics:
            held = self.hsubs.pop(topic_filter, None)
            if held is not None:
                self.qm.close_object(self.mq, held, C.MQCO_REMOVE_SUB)
            else:
                mapping.remove_subscription(self.qm, self.session.client_id, topic_filter)
        self._queue(MP.UnsubAck(p.packet_id))

    async def _ping(self, _p: MP.PingReq) -> None:
        self._queue(MP.PingResp())

    # ---- delivering ------------------------------------------------------------------------------
    async def _deliverer(self) -> None:
        session = self.session
        qm = self.qm
        while True:
            self.more = trio.Event()
            self._busy = True
            position = None
            in_flight = set(session.inflight.values())
            session.pending_out = mapping.pending(qm, session.client_id, in_flight)  # CHSTATUS's PENDING
            # Read as far as this wake-up can send: a full QoS 1/2 window ends the look, so a backlog
            # is not walked again at every acknowledgement.
            room = INFLIGHT - len(session.inflight)
            batch = []
            visible = 0
            for msg in mapping.waiting(qm, session.client_id, in_flight):
                out = mapping.outbound(msg)
                if out.qos:
                    if room <= 0:
                        break
                    room -= 1
                batch.append(out)
                if out.qos != 1 or not self._early:
                    visible = max(visible, msg.durable_after)
            # A message is seen once what made it is on disk, but for a QoS 1 copy (TR2): lost with its
            # put in a crash, its publisher had no PUBACK and sends it again, a duplicate QoS 1 allows;
            # its take at the client's PUBACK is journaled after the put, so never on disk without it.
            if visible > qm.durable_position:
                await self.server.committer.wait(visible)
            for out in batch:
                if out.qos == 0:
                    if not mapping.take(qm, out.msg_id):
                        continue  # gone while the journal was written (PURGE CHANNEL)
                    position = qm.position
                    await self._deliver(MP.Publish(out.topic, out.payload, 0, out.retained))
                else:
                    pid = session.packet_id()
                    session.inflight[pid] = out.msg_id
                    dup = out.msg_id in session.sent
                    session.sent.add(out.msg_id)
                    await self._deliver(MP.Publish(out.topic, out.payload, out.qos, out.retained, dup, pid))
                self.listener.sessions.counted(session, sent=1)
                session.pending_out -= 1
            self._busy = False  # the batch is queued: a copy handed over now goes after it
            # The takes written before more is read; a QoS 1 or 2 send writes nothing (its take is at
            # the acknowledgement), so it waits for no one else's commit.
            if position is not None and position > qm.durable_position:
                await self.server.committer.wait(position, answered=False)  # the batch went before it (JN9)
            await self.more.wait()
