"""IBM's MQTT mapping in the domain, no sockets: publications, subscriptions, what waits for a client."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.errors import MQIError
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.telemetry import mapping


@pytest.fixture
def qm(tmp_path):
    q = QueueManager.open(tmp_path, synchronous="OFF")
    mapping.ensure_objects(q)
    yield q
    q.shutdown()


def _put_to_client(qm, session, client_id: str, queue: str, body: bytes, persistent: bool = True) -> None:
    od = S.MQOD(ObjectName=queue, ObjectQMgrName=client_id)
    md = S.MQMD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    qm.put1(session, od, md, S.MQPMO(), body)


def test_the_listener_makes_the_transmission_queue_the_default(qm):
    assert qm.registry.queues[mapping.TRANSMIT_QUEUE].usage == C.MQUS_TRANSMISSION
    assert qm.registry.qmgr.def_xmit_q == mapping.TRANSMIT_QUEUE


def test_each_client_sees_only_its_own_messages_in_arrival_order(qm):
    app = qm.connect("", user="admin", admin=True)
    for i in range(3):
        _put_to_client(qm, app, "alpha", "dev/a", f"a{i}".encode())
        _put_to_client(qm, app, "beta", "dev/b", f"b{i}".encode(), persistent=False)
    alpha = [mapping.outbound(m) for m in mapping.waiting(qm, "alpha")]
    assert [(o.topic, o.payload, o.qos) for o in alpha] == [("dev/a", b"a0", 2), ("dev/a", b"a1", 2),
                                                            ("dev/a", b"a2", 2)]
    beta = [mapping.outbound(m) for m in mapping.waiting(qm, "beta")]
    assert [(o.payload, o.qos) for o in beta] == [(b"b0", 0), (b"b1", 0), (b"b2", 0)]
    assert mapping.take(qm, alpha[0].msg_id)
    assert [o.payload for o in map(mapping.outbound, mapping.waiting(qm, "alpha", {alpha[1].msg_id}))] == [b"a2"]


def test_a_message_taken_by_an_mqi_getter_leaves_the_clients_view(qm):
    app = qm.connect("", user="admin", admin=True)
    _put_to_client(qm, app, "gamma", "dev/g", b"stolen")
    contents = qm.registry.messages.peek(mapping.TRANSMIT_QUEUE)
    qm.take_message(mapping.TRANSMIT_QUEUE, contents, contents.first())  # as an MQGET by an MQI application
    assert list(mapping.waiting(qm, "gamma")) == []
    assert "gamma" not in qm.telemetry.transmit.by_client


def test_the_mqtt_publishers_qos_caps_delivery_and_the_subscriptions_user_data_is_its_qos(qm):
    sub = qm.connect("", user="app", admin=False)
    mapping.subscribe(qm, sub, "subber", "dev/q/#", 2, durable=True)
    assert qm.registry.subs["subber:dev/q/#"].user_data == "2"
    pub = qm.connect("", user="app", admin=False)
    for qos in (0, 1, 2):
        mapping.publish(qm, pub, "pubber", f"dev/q/{qos}", b"x", qos, False, qos or None)
    assert [mapping.outbound(m).qos for m in mapping.waiting(qm, "subber")] == [0, 1, 2]


def test_a_publication_the_user_may_not_make_is_refused(qm):
    app = qm.connect("", user="app", admin=False)
    with pytest.raises(MQIError) as info:
        mapping.publish(qm, app, "c", "private/topic", b"x", 1, False, 1)
    assert info.value.reason == C.MQRC_NOT_AUTHORIZED


def test_forgetting_a_client_removes_its_subscriptions_and_messages(qm):
    app = qm.connect("", user="app", admin=False)
    mapping.subscribe(qm, app, "gone", "dev/f/#", 1, durable=True)
    qm.disconnect(app, commit=True)
    admin = qm.connect("", user="admin", admin=True)
    _put_to_client(qm, admin, "gone", "dev/f", b"left behind")
    assert mapping.kept_state(qm, "gone")
    mapping.forget_client(qm, "gone")
    assert not mapping.kept_state(qm, "gone") and "gone:dev/f/#" not in qm.registry.subs
