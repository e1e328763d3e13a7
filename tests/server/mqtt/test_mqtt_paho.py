"""paho-mqtt against qmlite's telemetry listener: QoS 0/1/2 both ways, subscriptions as the queue
manager's, retained publications, the will, clean and persistent sessions, reconnecting."""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf.mqtt import packets as MP
from qmlite.registry.telemetry import mapping

from .mqttpeers import Paho, RawMQTT, mqtt_server


async def test_qos_0_1_2_publications_reach_a_subscriber_at_the_lower_qos(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        sub = Paho(listener.port, "subscriber")
        assert (await sub.connect())[0] == 0
        assert await sub.subscribe("dev/sensors/+/temp", 1) == [1]
        pub = Paho(listener.port, "publisher")
        await pub.connect()
        for qos in (0, 1, 2):
            await pub.publish(f"dev/sensors/s{qos}/temp", f"t{qos}".encode(), qos)
        got = [await sub.receive() for _ in range(3)]
        assert [(m.topic, m.payload, m.qos) for m in got] == [
            ("dev/sensors/s0/temp", b"t0", 0), ("dev/sensors/s1/temp", b"t1", 1), ("dev/sensors/s2/temp", b"t2", 1)]
        assert sub.nothing_waiting()
        await pub.disconnect()
        await sub.disconnect()
        depth = server.registry.messages.depth(mapping.TRANSMIT_QUEUE)
        assert depth == 0  # every copy left the transmission queue once acknowledged


async def test_qos_2_subscription_gets_qos_2(tmp_path):
    async with mqtt_server(tmp_path) as (_server, listener):
        sub = Paho(listener.port, "s2")
        await sub.connect()
        assert await sub.subscribe("dev/a/#", 2) == [2]
        pub = Paho(listener.port, "p2")
        await pub.connect()
        await pub.publish("dev/a/b", b"exactly once", 2)
        msg = await sub.receive()
        assert (msg.topic, msg.payload, msg.qos) == ("dev/a/b", b"exactly once", 2)
        await pub.disconnect()
        await sub.disconnect()


async def test_an_mqtt_subscription_is_a_queue_manager_subscription_named_as_ibm_names_it(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        clean = Paho(listener.port, "cleanone")
        await clean.connect()
        await clean.subscribe("dev/x/+/y", 0)
        kept = Paho(listener.port, "keeper", clean=False)
        await kept.connect()
        await kept.subscribe("dev/x/#", 1)
        subs = server.registry.subs
        assert subs["cleanone:dev/x/+/y"].durable == C.MQSUB_DURABLE_NO
        durable = subs["keeper:dev/x/#"]
        assert durable.durable == C.MQSUB_DURABLE_YES
        assert (durable.destination, durable.destination_qmgr) == (mapping.PUBLICATION_QUEUE, "keeper")
        assert durable.resolved_topic == "dev/x/#" and durable.user_data == "1"
        await clean.disconnect()
        await kept.unsubscribe("dev/x/#")
        assert "keeper:dev/x/#" not in subs
        await kept.disconnect()
        assert "cleanone:dev/x/+/y" not in subs  # a clean session's subscriptions end with it


async def test_retained_publication_goes_to_later_subscribers_and_an_empty_one_clears_it(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        pub = Paho(listener.port, "retainer")
        await pub.connect()
        await pub.publish("dev/state/door", b"open", 1, retain=True)
        late = Paho(listener.port, "late")
        await late.connect()
        await late.subscribe("dev/state/#", 1)
        msg = await late.receive()
        assert (msg.topic, msg.payload, msg.retain) == ("dev/state/door", b"open", True)
        await pub.publish("dev/state/door", b"closed", 1)  # not retained: a live delivery, retain flag 0
        msg = await late.receive()
        assert (msg.payload, msg.retain) == (b"closed", False)
        await pub.publish("dev/state/door", b"", 1, retain=True)
        msg = await late.receive()
        assert msg.payload == b""  # delivered as normal (MQTT-3.3.1-10) ...
        assert "dev/state/door" not in server.registry.retained  # ... and nothing kept
        await pub.disconnect()
        await late.disconnect()


async def test_the_will_is_published_when_a_client_goes_without_disconnect(tmp_path):
    async with mqtt_server(tmp_path) as (_server, listener):
        watcher = Paho(listener.port, "watcher")
        await watcher.connect()
        await watcher.subscribe("dev/wills/#", 1)
        raw = await RawMQTT.connect(listener.port)
        await raw.send(MP.Connect("dying", will_topic="dev/wills/dying", will_message=b"gone", will_qos=1))
        assert await raw.packet() == MP.ConnAck(0, False)
        await raw.aclose()  # no DISCONNECT
        msg = await watcher.receive()
        assert (msg.topic, msg.payload) == ("dev/wills/dying", b"gone")
        polite = await RawMQTT.connect(listener.port)
        await polite.send(MP.Connect("polite", will_topic="dev/wills/polite", will_message=b"never"))
        assert await polite.packet() == MP.ConnAck(0, False)
        await polite.send(MP.Disconnect())
        assert await polite.closed()
        await watcher.publish("dev/wills/marker", b"after", 1)
        assert (await watcher.receive()).topic == "dev/wills/marker"  # the polite one's will never came
        await watcher.disconnect()


async def test_a_persistent_session_gets_what_was_published_while_it_was_away(tmp_path):
    async with mqtt_server(tmp_path) as (_server, listener):
        away = Paho(listener.port, "away", clean=False)
        assert await away.connect() == (0, False)
        await away.subscribe("dev/news/#", 1)
        await away.disconnect()
        pub = Paho(listener.port, "newsdesk")
        await pub.connect()
        for i in range(3):
            await pub.publish(f"dev/news/{i}", f"item {i}".encode(), 1)
        await pub.publish("dev/news/lost", b"qos 0 is non-persistent but still queued", 0)
        back = Paho(listener.port, "away", clean=False)
        assert await back.connect() == (0, True)  # the session was present
        got = sorted([(m.topic, m.payload) for m in [await back.receive() for _ in range(4)]])
        assert got == [("dev/news/0", b"item 0"), ("dev/news/1", b"item 1"), ("dev/news/2", b"item 2"),
                       ("dev/news/lost", b"qos 0 is non-persistent but still queued")]
        await back.disconnect()
        fresh = Paho(listener.port, "away", clean=True)
        assert await fresh.connect() == (0, False)  # a clean start discards the session
        await fresh.disconnect()
        await pub.disconnect()


async def test_a_second_connection_with_the_same_client_id_ends_the_first(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        first = await RawMQTT.connect(listener.port)
        await first.send(MP.Connect("twin"))
        assert await first.packet() == MP.ConnAck(0, False)
        second = await RawMQTT.connect(listener.port)
        await second.send(MP.Connect("twin"))
        assert await second.packet() == MP.ConnAck(0, False)
        assert await first.closed()
        await second.send(MP.PingReq())
        assert await second.packet() == MP.PingResp()
        rows = [r for r in server.qm.telemetry.sessions.list() if r.client_id == "twin"]
        assert len(rows) == 1 and rows[0].connected
        await second.aclose()


async def test_paho_over_websockets_on_the_same_port(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        ws = Paho(listener.port, "wsclient", transport="websockets")
        assert (await ws.connect())[0] == 0
        assert await ws.subscribe("dev/ws/#", 2) == [2]
        tcp = Paho(listener.port, "tcpclient")
        await tcp.connect()
        await tcp.publish("dev/ws/a", b"over the web", 2)
        msg = await ws.receive()
        assert (msg.topic, msg.payload, msg.qos) == ("dev/ws/a", b"over the web", 2)
        assert {r.client_id: r.protocol for r in server.qm.telemetry.sessions.list()} == {"wsclient": "HTTP",
                                                                              "tcpclient": "MQTTV311"}
        await ws.disconnect()
        await tcp.disconnect()


async def test_a_channel_without_http_or_a_protocol_level_refuses_it(tmp_path):
    from qmlite.registry.objects import channels as M
    from qmlite.registry.objects import values as V

    channel = M.new("V311ONLY", M.MQTT, protocols=(V.MQPROTO_MQTTV311,))
    async with mqtt_server(tmp_path, channel) as (_server, listener):
        raw = await RawMQTT.connect(listener.port)
        await raw.send(MP.Connect("old", protocol_name="MQIsdp", protocol_level=3))
        assert await raw.packet() == MP.ConnAck(MP.REFUSED_PROTOCOL_VERSION, False)
        web = await RawMQTT.connect(listener.port)
        await web.send(b"GET /mqtt HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n")
        assert await web.packet() is None  # not MQTT, and WebSockets are not the channel's
