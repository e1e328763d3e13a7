"""How MQTT maps onto the queue manager, as IBM's telemetry (MQXR) service maps it (docs/mqtt.md, TT1-TT9).

* An MQTT PUBLISH is an MQPUT1 to its topic string by the client's MQ user (authority as any MQI
  application's): QoS 0 non-persistent, QoS 1 and 2 persistent; a byte message (MQFMT_NONE) whose
  MQRFH2 carries ``mcd.Msd=jms_bytes`` and the ``mqtt`` folder (``mqtt.clientId``, ``mqtt.msgId``,
  ``mqtt.qos``); RETAIN is MQPMO_RETAIN and a zero-length retained publication clears the topic's.
* An MQTT subscription is a queue-manager subscription named ``ClientIdentifier:topic filter``, made
  by MQSUB with the handle of SYSTEM.MQTT.PUBLICATION.QUEUE opened on the "queue manager" named by
  the ClientIdentifier, which resolves to SYSTEM.MQTT.TRANSMIT.QUEUE (the default transmission
  queue); durable when the session is not clean; its user data is the QoS granted.
* What reaches a client waits on SYSTEM.MQTT.TRANSMIT.QUEUE behind an MQXQH whose RemoteQMgrName is
  the ClientIdentifier: copies of publications (RemoteQName SYSTEM.MQTT.PUBLICATION.QUEUE, topic in
  ``mqps.Top``) and messages an MQI application put to queue X on queue manager ClientIdentifier
  (topic X).  It goes to the client at QoS min(the subscription's, the message's: non-persistent 0,
  persistent 2, or the QoS an MQTT publisher gave it) and leaves the queue once the client has it (QoS 0:
  sent; 1: PUBACK; 2: PUBREC).  A non-persistent copy for a connected client that nothing else waits for
  is handed to its connection at once instead, counted on the queue as put and taken (``Handover``, TQ1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Iterator

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import properties as PR
from qmlite.pcf.mqtt import packets as MP
from qmlite.registry.monitoring.counters import counted_get, counted_put
from qmlite.registry.objects.definitions import Queue
from qmlite.registry.telemetry.telemetrysessions import Session

if TYPE_CHECKING:
    from qmlite.registry.messaging.queues import Message
    from qmlite.registry.pubsub.routing import Delivery
    from qmlite.registry.messaging.sessions import Session as MQSession
    from qmlite.registry.qmgr import QueueManager

TRANSMIT_QUEUE = "SYSTEM.MQTT.TRANSMIT.QUEUE"
PUBLICATION_QUEUE = "SYSTEM.MQTT.PUBLICATION.QUEUE"
_XQH_LENGTH = 428  # MQXQH: StrucId, Version, RemoteQName (48), RemoteQMgrName (48), MQMD (324)
_RQMNAME = slice(56, 104)
_RQNAME = slice(8, 56)
_MQTT_FOLDER = "mqtt"


@dataclasses.dataclass
class Outbound:
    """One message for a client, as the MQXR service sends it."""

    msg_id: bytes
    topic: str
    payload: bytes
    qos: int
    retained: bool


class TransmitIndex:
    """SYSTEM.MQTT.TRANSMIT.QUEUE's messages by ClientIdentifier, in arrival order, so a client's
    deliverer looks only at its own (a queue of many clients' messages, or one absent client's
    backlog, costs the others nothing).  Fed by the enqueuer as messages arrive; an entry whose
    message left the queue some other way (an MQI getter, CLEAR QLOCAL, expiry) is dropped when seen."""

    def __init__(self) -> None:
        self.by_client: dict[str, dict[bytes, Message]] = {}

    def add(self, msg: Message) -> None:
        client = addressee(msg)
        if client:
            self.by_client.setdefault(client, {})[msg.msg_id] = msg

    def discard(self, client_id: str, msg_id: bytes) -> None:
        mine = self.by_client.get(client_id)
        if mine is not None:
            mine.pop(msg_id, None)
            if not mine:
                del self.by_client[client_id]


class Handover:
    """A publication's QoS 0 copy for a connected client handed to the client's connection as it is
    made, instead of waiting on SYSTEM.MQTT.TRANSMIT.QUEUE behind an MQXQH for the client's deliverer
    to take it off again at once (TQ1).  Only where nothing but that client would ever read the copy
    and the queue's status comes out as the put and the take would leave it:

    * the copy is non-persistent (a persistent one is written and waits for the journal, and only a
      QoS 0 send leaves the queue when sent), outside a unit of work (the caller's check);
    * the client is connected and its connection takes it now (``receivers``: the transport's
      callable answers False when its deliverer is busy, its outbound queue is full, or it is
      answering a packet of its own);
    * nothing else waits for the client on the queue (the copy would overtake it);
    * no MQI application has the queue open for input, PERFMEV is off (its events count depth) and the
      queue is not triggered (TRIGGER: its trigger conditions count messages arriving).

    The queue's status is counted as the put and the take count it (MsgEnqCount, MsgDeqCount, the
    high and low depths, OnQTime, the last put and get, a sequence number used); the subscription's
    and the session's counts are the caller's and the transport's, as on the general path."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm
        # ClientIdentifier -> the connected client's taker: ``take(packet) -> bool``, the PUBLISH's bytes
        # (True: queued to send)
        self.receivers: dict[str, Callable[[bytes], bool]] = {}
        # The last copy's properties, data and destination queue (one publication's copies share them)
        # and its PUBLISH: QoS 0 has no packet identifier, so every client gets the same bytes.
        self._last: tuple | None = None

    def __call__(self, queue: Queue, copy: Delivery, now: float) -> bool:
        receiver = self.receivers.get(copy.qmgr)
        if receiver is None or copy.md.Persistence != C.MQPER_NOT_PERSISTENT:
            return False
        qm = self.qm
        reg = qm.registry
        contents = reg.messages.contents(queue.name)
        if contents.open_input or reg.qmgr.performance_event == C.MQEVR_ENABLED \
                or queue.trigger_control == C.MQTC_ON:
            return False
        if copy.qmgr in index_of(qm).by_client:
            return False
        if not receiver(self._packet(copy)):
            return False
        reg.messages.next_seq()  # the number the put would have given it
        contents.last_put = now
        counted_put(contents, passing=True)
        contents.last_get = taken = qm.now()
        counted_get(contents, taken - now)
        return True

    def _packet(self, copy: Delivery) -> bytes:
        props = copy.props
        held = props.snapshot() if props is not None else None  # an object changed since is not the same
        last = self._last
        if last is not None and last[0] is props and last[1] == held and last[2] is copy.data \
                and last[3] == copy.queue:
            return last[4]
        out = outbound_of(copy.md.MsgId, props, False, copy.data, copy.queue)
        packet = MP.encode(MP.Publish(out.topic, out.payload, 0, out.retained))
        self._last = (props, held, copy.data, copy.queue, packet)
        return packet


def handover_of(qm: QueueManager) -> Handover:
    """The queue manager's handover to connected clients (made with the index, ``index_of``)."""
    index_of(qm)
    return qm.enqueuer.handovers[TRANSMIT_QUEUE]


def index_of(qm: QueueManager) -> TransmitIndex:
    """The queue manager's index, built from the queue once (at the first listener's start)."""
    index = qm.telemetry.transmit
    if index is None:
        index = qm.telemetry.transmit = TransmitIndex()
        contents = qm.registry.messages.peek(TRANSMIT_QUEUE)
        for msg in contents or ():
            index.add(msg)
        qm.enqueuer.watchers[TRANSMIT_QUEUE] = index.add
        qm.enqueuer.handovers[TRANSMIT_QUEUE] = Handover(qm)
    return index


def ensure_objects(qm: QueueManager) -> None:
    """SYSTEM.MQTT.TRANSMIT.QUEUE (a transmission queue) and, when the queue manager has none, the
    default transmission queue set to it, as IBM's telemetry sample configuration does (TT3)."""
    reg = qm.registry
    if TRANSMIT_QUEUE not in reg.queues:
        now = qm.now()
        reg.put_queue(Queue(TRANSMIT_QUEUE, usage=C.MQUS_TRANSMISSION, max_depth=999_999_999,
                            max_msg_length=reg.qmgr.max_msg_length, description="MQTT transmission queue",
                            created=now, altered=now))
    if not reg.qmgr.def_xmit_q:
        reg.qmgr.def_xmit_q = TRANSMIT_QUEUE
        reg.store.set_meta("def_xmit_q", reg.qmgr.meta_value("def_xmit_q"))
    index_of(qm)


# ---- MQTT in ------------------------------------------------------------------------------------
def message(client_id: str, packet_id: int | None, qos: int) -> tuple[S.MQMD, PR.Properties]:
    """The MQMD and the message properties an MQTT publication is put with: IBM's MQRFH2 folders
    ``mcd`` and ``mqtt``, given apart from the payload as a message handle gives them (an MQI getter
    receives them as an MQRFH2 or in its handle, as it asks)."""
    md = S.MQMD(Format=C.MQFMT_NONE, Persistence=C.MQPER_PERSISTENT if qos else C.MQPER_NOT_PERSISTENT,
                Encoding=C.MQENC_NATIVE, CodedCharSetId=1208)
    props = PR.Properties()
    props.put_known("mcd.Msd", PR.STRING, "jms_bytes", "mcd")
    props.put_known("mqtt.clientId", PR.STRING, client_id, _MQTT_FOLDER)
    props.put_known("mqtt.msgId", PR.INT32, packet_id or 0, _MQTT_FOLDER)
    props.put_known("mqtt.qos", PR.INT32, qos, _MQTT_FOLDER)
    return md, props


def publish(qm: QueueManager, mq: MQSession, client_id: str, topic: str, payload: bytes, qos: int, retain: bool,
            packet_id: int | None) -> None:
    """An MQTT PUBLISH onto the topic tree.  Raises MQIError (MQRC_NOT_AUTHORIZED ...) as MQPUT1 does."""
    md, props = message(client_id, packet_id, qos)
    od = S.MQOD(ObjectType=C.MQOT_TOPIC, ObjectString=S.MQCHARV(topic, len(topic)), Version=C.MQOD_VERSION_4)
    pmo = S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING | (C.MQPMO_RETAIN if retain else 0))
    qm.put1(mq, od, md, pmo, payload, props)
    if retain and not payload:
        qm.registry.forget_retained(topic)  # MQTT-3.3.1-10/11: delivered as normal, then no retained one kept


# ---- subscriptions ------------------------------------------------------------------------------
def subscription_name(client_id: str, topic_filter: str) -> str:
    return f"{client_id}:{topic_filter}"


def subscribe(qm: QueueManager, mq: MQSession, client_id: str, topic_filter: str, qos: int, durable: bool) -> int:
    """MQSUB for one topic filter; returns the subscription handle (the caller closes it, MQCO_NONE,
    before the same filter is subscribed again).  Raises MQIError: the caller answers 0x80."""
    name = subscription_name(client_id, topic_filter)
    handle = qm.open_transmission(mq, PUBLICATION_QUEUE, client_id, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
    try:
        existing = qm.registry.subs.get(name)
        options = (C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_FAIL_IF_QUIESCING | C.MQSO_WILDCARD_TOPIC
                   | (C.MQSO_DURABLE if durable else C.MQSO_NON_DURABLE))
        if existing is not None:
            options |= C.MQSO_ALTER
            if (existing.durable == C.MQSUB_DURABLE_YES) != durable:
                qm.registry.delete_sub(existing)  # a clean session's subscription replaces a kept one
                options &= ~C.MQSO_ALTER
                existing = None
        sd = S.MQSD(Options=options, ObjectString=S.MQCHARV(topic_filter, len(topic_filter)),
                    SubName=S.MQCHARV(name, len(name)), SubUserData=S.MQCHARV(str(qos), 1))
        hsub, _sd, _hobj = qm.subscribe(mq, sd, handle.hobj)
        if existing is not None:  # MQTT-3.8.4-3: a replaced subscription gets its retained messages again
            qm.send_retained(qm.registry.subs[name])
        return hsub.hobj
    finally:
        qm.close_object(mq, handle.hobj, C.MQCO_NONE)


def remove_subscription(qm: QueueManager, client_id: str, topic_filter: str) -> None:
    sub = qm.registry.subs.get(subscription_name(client_id, topic_filter))
    if sub is not None and sub.destination_qmgr == client_id:
        qm.registry.delete_sub(sub)


def forget_client(qm: QueueManager, client_id: str) -> None:
    """A session that ends (clean start, PURGE CHANNEL): its subscriptions and waiting messages go."""
    reg = qm.registry
    for sub in [s for s in reg.subs.values() if s.destination_qmgr == client_id
                and s.name.startswith(client_id + ":")]:
        reg.delete_sub(sub)
    contents = reg.messages.peek(TRANSMIT_QUEUE)
    if contents is not None:
        for msg in [m for m in contents if addressee(m) == client_id]:
            qm.take_message(TRANSMIT_QUEUE, contents, msg)
    index_of(qm).by_client.pop(client_id, None)


def kept_state(qm: QueueManager, client_id: str) -> bool:
    """Whether the queue manager holds anything of a client's earlier session: a subscription
    of its, or a message waiting for it (what survives a restart, TT7)."""
    reg = qm.registry
    prefix = client_id + ":"
    if any(s.destination_qmgr == client_id and s.name.startswith(prefix) for s in reg.subs.values()):
        return True
    contents = reg.messages.peek(TRANSMIT_QUEUE)
    return contents is not None and any(addressee(m) == client_id for m in contents)


def restore_sessions(qm: QueueManager, channel: str) -> None:
    """After a restart, the away clients whose durable subscriptions survived as DISCONNECTED persistent
    sessions, so DISPLAY CHSTATUS shows them and PURGE CHANNEL CLIENTID finds them; credited to
    ``channel``, the first started (TT19).  Messages alone make no session: the transmission queue may
    be the queue manager's DEFXMITQ, holding what was put to any remote queue manager."""
    reg = qm.registry
    clients = {s.destination_qmgr for s in reg.subs.values()
               if s.destination_qmgr and s.name.startswith(s.destination_qmgr + ":")}
    sessions = qm.telemetry.sessions
    for client_id in sorted(clients):
        if sessions.get(client_id) is None:
            sessions.add(Session(client_id, channel, clean=False, connected=False))


# ---- MQTT out -----------------------------------------------------------------------------------
def addressee(msg: Message) -> str:
    """The ClientIdentifier a transmission-queue message is for: its MQXQH's RemoteQMgrName."""
    data = msg.data
    if len(data) < _XQH_LENGTH or data[:4] != b"XQH ":
        return ""
    return data[_RQMNAME].decode("latin-1").rstrip(" \x00")


def waiting(qm: QueueManager, client_id: str, skip: set[bytes] | frozenset = frozenset()) -> Iterator[Message]:
    """The messages waiting for a client, in arrival order, not among ``skip`` (those in flight).
    The caller sends none before the journal is on disk up to its ``durable_after``."""
    index = index_of(qm)
    mine = index.by_client.get(client_id)
    if not mine:
        return
    contents = qm.registry.messages.peek(TRANSMIT_QUEUE)
    now = qm.now()
    for msg_id, msg in list(mine.items()):
        if msg_id in skip:
            continue
        if contents is None or contents.at(msg.key) is not msg:  # one look-up by its place, not by MsgId
            index.discard(client_id, msg_id)  # it left the queue another way
            continue
        if msg.expires_at is not None and msg.expires_at <= now:
            continue
        yield msg


def pending(qm: QueueManager, client_id: str, in_flight: set[bytes]) -> int:
    """How many messages wait for a client and are not in flight (CHSTATUS's PENDING), counted from the
    index without reading the messages: one that left the queue another way counts until ``waiting``
    reaches it."""
    mine = index_of(qm).by_client.get(client_id)
    if not mine:
        return 0
    return len(mine) - sum(1 for msg_id in in_flight if msg_id in mine)


def outbound(msg: Message) -> Outbound:
    data = msg.data
    return outbound_of(msg.msg_id, msg.props, msg.persistent, data[_XQH_LENGTH:],
                       data[_RQNAME].decode("latin-1").rstrip(" \x00"))


def outbound_of(msg_id: bytes, props, persistent: bool, payload: bytes, queue: str) -> Outbound:
    """What a client gets of a message: its topic (a copy's ``mqps.Top``; else, for a message put to
    queue X on queue manager ClientIdentifier, X: ``queue``, the MQXQH's RemoteQName), its payload, and
    the QoS and retained flag its properties and persistence give it."""
    top = props.get("mqps.Top") if props is not None else None
    if top is not None:
        topic = str(top.value)
        sud = props.get("mqps.Sud")
        try:
            sub_qos = int(str(sud.value)) if sud is not None else 0
        except ValueError:
            sub_qos = 0
    else:  # put to queue X on queue manager ClientIdentifier: the topic is X (IBM, TT5)
        topic = queue
        sub_qos = 2
    ret = props.get("mqps.Ret") if props is not None else None
    published = props.get("mqtt.qos") if props is not None else None  # an MQTT client's publication
    message_qos = (int(published.value) if published is not None else 2) if persistent else 0
    qos = max(0, min(sub_qos, message_qos, 2))
    return Outbound(msg_id, topic, payload, qos, bool(ret is not None and ret.value))


def take(qm: QueueManager, msg_id: bytes) -> bool:
    """The client has the message: it leaves SYSTEM.MQTT.TRANSMIT.QUEUE."""
    contents = qm.registry.messages.peek(TRANSMIT_QUEUE)
    msg = contents.find(msg_id, None) if contents is not None else None
    if msg is None:
        return False
    qm.take_message(TRANSMIT_QUEUE, contents, msg)
    index_of(qm).discard(addressee(msg), msg_id)
    return True

