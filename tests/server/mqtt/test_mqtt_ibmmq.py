"""Across protocols: an MQTT publication reaches an ibmmq (and a pymqi) subscriber with the properties IBM's
telemetry service sets; an ibmmq publication and a message put to the client's "queue manager" reach
an MQTT client; an MQTT subscription is inquired and deleted through PCF."""

from __future__ import annotations

import types

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402

from .mqttpeers import WAIT  # noqa: E402
from paho.mqtt import client as paho  # noqa: E402
import queue as queues  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("mqtt")) as srv:
        # the channel runs as an administrator runs one: DEFINE and START CHANNEL CHLTYPE(MQTT)
        for result in srv.mqsc("DEFINE CHANNEL(MQTT.ACROSS) CHLTYPE(MQTT) PORT(0)\n"
                               "START CHANNEL(MQTT.ACROSS) CHLTYPE(MQTT)"):
            assert result.completion_code == CMQC.MQCC_OK, result.text
        telemetry = srv._runner.server.qm.telemetry
        port = srv._runner.loop.run(lambda: telemetry.io.port_of("MQTT.ACROSS"))
        assert port
        yield types.SimpleNamespace(conn_name=srv.conn_name, mqtt_port=port)


class SyncPaho:
    """paho with its loop in its own thread, waited on by queues (the test thread is not trio's)."""

    def __init__(self, port: int, client_id: str, clean: bool = True) -> None:
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean)
        self.events: queues.Queue = queues.Queue()
        self.messages: queues.Queue = queues.Queue()
        self.client.on_connect = lambda c, u, f, rc, p: self.events.put(("connect", rc))
        self.client.on_subscribe = lambda c, u, mid, codes, p: self.events.put(("suback", codes))
        self.client.on_message = lambda c, u, m: self.messages.put(m)
        self.client.connect("127.0.0.1", port, 60)
        self.client.loop_start()
        assert self.events.get(timeout=WAIT) == ("connect", 0)

    def subscribe(self, topic: str, qos: int) -> None:
        self.client.subscribe(topic, qos)
        assert self.events.get(timeout=WAIT)[0] == "suback"

    def publish(self, topic: str, payload: bytes, qos: int) -> None:
        info = self.client.publish(topic, payload, qos)
        info.wait_for_publish(WAIT)
        assert info.is_published()

    def receive(self):
        return self.messages.get(timeout=WAIT)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def qm(server):
    q = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", server.conn_name, "admin", "passw0rd")
    yield q
    q.disconnect()


def _managed(qm, topic):
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    sub = ibmmq.Subscription(qm)
    sub.sub(sub_desc=sd)
    return sub


def _get(qm, sub):
    handle = ibmmq.MessageHandle(qm)
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=handle.msg_handle, WaitInterval=WAIT * 1000,
                    Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    body = sub.get(None, md, gmo)
    return md, handle.properties, body


def test_an_mqtt_publication_is_a_jms_bytes_message_with_ibms_mqtt_properties(server, qm):
    sub = _managed(qm, "dev/cross/#")
    device = SyncPaho(server.mqtt_port, "sensor1")
    device.publish("dev/cross/temp", b"21.5", 1)
    device.publish("dev/cross/hum", b"40", 0)
    md, props, body = _get(qm, sub)
    assert body == b"21.5"
    assert md.Persistence == CMQC.MQPER_PERSISTENT and md.Format.strip() == b""
    assert props.get("mqtt.clientId") == "sensor1" and props.get("mqtt.qos") == 1
    assert isinstance(props.get("mqtt.msgId"), int) and props.get("mqtt.msgId") > 0
    assert props.get("mcd.Msd") == "jms_bytes" and props.get("mqps.Top") == "dev/cross/temp"
    md, props, body = _get(qm, sub)
    assert (body, md.Persistence, props.get("mqtt.qos")) == (b"40", CMQC.MQPER_NOT_PERSISTENT, 0)
    device.close()
    sub.close()


def test_ibmmq_publications_reach_an_mqtt_subscriber_at_the_qos_their_persistence_allows(server, qm):
    device = SyncPaho(server.mqtt_port, "listener2")
    device.subscribe("dev/prices/#", 2)
    topic = ibmmq.Topic(qm, topic_string="dev/prices/apples")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"1.20", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT), ibmmq.PMO())
    topic.pub(b"1.25", ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT), ibmmq.PMO())
    topic.close()
    got = [device.receive(), device.receive()]
    # (paho hands a QoS 2 message over at PUBREL, so the QoS 0 one may come first)
    assert sorted((m.topic, m.payload, m.qos) for m in got) == [("dev/prices/apples", b"1.20", 2),
                                                               ("dev/prices/apples", b"1.25", 0)]
    device.close()


def test_a_message_put_to_a_queue_on_the_clients_queue_manager_reaches_it(server, qm):
    device = SyncPaho(server.mqtt_port, "device7")
    od = ibmmq.OD(ObjectName="dev/direct", ObjectQMgrName="device7")
    q = ibmmq.Queue(qm, od, CMQC.MQOO_OUTPUT)
    q.put(b"hello device", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    q.close()
    msg = device.receive()
    assert (msg.topic, msg.payload, msg.qos) == ("dev/direct", b"hello device", 2)
    device.close()


def test_an_mqtt_subscription_through_pcf(server, qm):
    device = SyncPaho(server.mqtt_port, "pcfdev", clean=False)
    device.subscribe("dev/pcf/+", 1)
    pcf = ibmmq.PCFExecute(qm)
    try:
        [answer] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "pcfdev:dev/pcf/+"})
        assert answer[CMQCFC.MQCACF_DESTINATION].strip() == b"SYSTEM.MQTT.PUBLICATION.QUEUE"
        assert answer[CMQCFC.MQCACF_DESTINATION_Q_MGR].strip() == b"pcfdev"
        assert answer[CMQCFC.MQIACF_DURABLE_SUBSCRIPTION] == CMQC.MQSUB_DURABLE_YES
        pcf.MQCMD_CHANGE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "pcfdev:dev/pcf/+", CMQCFC.MQCACF_SUB_USER_DATA: "0"})
        device.publish("dev/pcf/a", b"after change", 1)
        assert device.receive().qos == 0  # the QoS granted is the subscription's user data
        with pytest.raises(ibmmq.MQMIError) as info:  # the connected client has it open
            pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "pcfdev:dev/pcf/+"})
        assert info.value.reason == CMQCFC.MQRCCF_SUBSCRIPTION_IN_USE
        device.close()
        # The session stays (CleanSession 0); a new connection for it ends the old one's use of the
        # subscription before its CONNACK (and does not take it up until it subscribes again).
        device = SyncPaho(server.mqtt_port, "pcfdev", clean=False)
        pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "pcfdev:dev/pcf/+"})
        with pytest.raises(ibmmq.MQMIError):
            pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "pcfdev:dev/pcf/+"})
        device.close()
    finally:
        pcf.disconnect()


def test_an_mqtt_publication_reaches_a_pymqi_subscriber_with_the_mqtt_folder(server):
    import pymqi

    qm = pymqi.connect("QM1", "DEV.ADMIN.SVRCONN", server.conn_name, "admin", "passw0rd")
    try:
        sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
        sd.set_vs("ObjectString", b"dev/pymqi/#")
        sub = pymqi.Subscription(qm)
        sub.sub(sub_desc=sd)
        device = SyncPaho(server.mqtt_port, "pysensor")
        device.publish("dev/pymqi/level", b"7", 2)
        device.close()
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2, WaitInterval=WAIT * 1000)
        data = sub.get(None, md, gmo)
        assert md.Format.strip() == CMQC.MQFMT_RF_HEADER_2.strip() and md.Persistence == CMQC.MQPER_PERSISTENT
        assert data.endswith(b"7")  # the payload after the MQRFH2, its Format MQFMT_NONE
        assert b"<clientId>pysensor</clientId>" in data and b'<qos dt="i4">2</qos>' in data.replace(b"'", b'"')
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    finally:
        qm.disconnect()
