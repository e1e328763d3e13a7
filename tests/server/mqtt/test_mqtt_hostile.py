"""Malformed and hostile MQTT clients: each is answered as the specification says and closed cleanly;
the server goes on serving the next client."""

from __future__ import annotations

import pytest
import trio

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf.mqtt import packets as MP
from qmlite.registry.security import vocab as A
from tests.support.pcfkit import command, i, il, st

from .mqttpeers import WAIT, RawMQTT, mqtt_server


async def _connected(port: int, client_id: str = "c", **fields) -> RawMQTT:
    raw = await RawMQTT.connect(port)
    await raw.send(MP.Connect(client_id, **fields))
    assert await raw.packet() == MP.ConnAck(0, False)
    return raw


async def _still_serving(port: int) -> None:
    raw = await _connected(port, "afterwards")
    await raw.send(MP.PingReq())
    assert await raw.packet() == MP.PingResp()
    await raw.aclose()


@pytest.mark.parametrize("data", [
    b"\x30\xff\xff\xff\x7f",  # a PUBLISH claiming 256 MiB: refused at its length, nothing buffered
    b"\x30\x80\x80\x80\x80\x01",  # five length bytes
    MP.encode(MP.Connect("again")),  # a second CONNECT
    b"\x36\x05\x00\x01a\x00\x01",  # QoS 3
    b"\xf0\x00",  # reserved packet type
    b"\x62\x02\x00\x00",  # PUBREL with packet identifier 0
    b"\x82\x04\x00\x01\x00\x00",  # SUBSCRIBE with an empty filter and no QoS
    MP.encode(MP.ConnAck()),  # a server's packet
])
async def test_a_violation_after_connect_closes_the_connection(tmp_path, data):
    async with mqtt_server(tmp_path) as (_server, listener):
        raw = await _connected(listener.port)
        await raw.send(data)
        assert await raw.closed()
        await _still_serving(listener.port)


@pytest.mark.parametrize("data", [MP.encode(MP.PingReq()), b"GET / HTTP/1.1\r\n\r\n", b"\x10\x00"])
async def test_anything_but_connect_first_is_closed_without_an_answer(tmp_path, data):
    async with mqtt_server(tmp_path) as (_server, listener):
        raw = await RawMQTT.connect(listener.port)
        await raw.send(data)
        assert await raw.packet() is None
        await _still_serving(listener.port)


@pytest.mark.parametrize("connect, code", [
    (MP.Connect("", clean_session=False), MP.REFUSED_IDENTIFIER),  # MQTT-3.1.3-8
    (MP.Connect("x" * 24), MP.REFUSED_IDENTIFIER),  # longer than IBM's 23
    (MP.Connect("v5", protocol_level=5), MP.REFUSED_PROTOCOL_VERSION),
    (MP.Connect("", protocol_name="MQIsdp", protocol_level=3), MP.REFUSED_IDENTIFIER),  # 3.1: 1-23 characters
    (MP.Connect("pw", username="app", password=b"wrong"), MP.REFUSED_BAD_CREDENTIALS),
])
async def test_refused_connects_get_their_connack_code_then_the_close(tmp_path, connect, code):
    async with mqtt_server(tmp_path, app_password="s3cret") as (_server, listener):
        raw = await RawMQTT.connect(listener.port)
        await raw.send(connect)
        assert await raw.packet() == MP.ConnAck(code, False)
        assert await raw.packet() is None


async def test_an_unknown_protocol_name_is_closed_without_connack(tmp_path):
    async with mqtt_server(tmp_path) as (_server, listener):
        raw = await RawMQTT.connect(listener.port)
        await raw.send(MP.Connect("c", protocol_name="AMQP", protocol_level=4))
        assert await raw.packet() is None


async def test_an_empty_client_id_with_a_clean_session_gets_one_assigned(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        raw = await _connected(listener.port, "")
        [row] = server.qm.telemetry.sessions.list()
        assert row.client_id.startswith("QMLITE") and len(row.client_id) <= 23
        await raw.aclose()


async def test_mqtt_31_connects_as_mqttv3(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        raw = await _connected(listener.port, "old", protocol_name="MQIsdp", protocol_level=3)
        assert [r.protocol for r in server.qm.telemetry.sessions.list()] == ["MQTTV3"]
        await raw.aclose()


async def test_keep_alive_expires_after_one_and_a_half_intervals_and_the_will_goes(tmp_path):
    async with mqtt_server(tmp_path) as (_server, listener):
        watcher = await _connected(listener.port, "watcher")
        await watcher.send(MP.Subscribe(1, [("dev/wills/#", 0)]))
        assert await watcher.packet() == MP.SubAck(1, [0])
        quiet = await _connected(listener.port, "quiet", keep_alive=1, will_topic="dev/wills/quiet",
                                 will_message=b"lost")
        assert await quiet.closed()  # nothing sent for 1.5 s: the server closed it
        assert await watcher.packet() == MP.Publish("dev/wills/quiet", b"lost", 0, False)


async def test_a_client_that_does_not_read_is_closed_not_waited_for(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        listener.outbound_limit = 4
        listener.slow_client_seconds = 1  # a delivery that waits 1 s for room ends it
        ended = trio.Event()
        sessions = server.qm.telemetry.sessions
        connection_ended = sessions.connection_ended

        def seen(session):  # the test must not read the slow socket: it learns of the end here
            connection_ended(session)
            if session.client_id == "slow":
                ended.set()

        sessions.connection_ended = seen
        slow = await _connected(listener.port, "slow")
        await slow.send(MP.Subscribe(1, [("dev/flood", 0)]))
        assert await slow.packet() == MP.SubAck(1, [0])
        publisher = await _connected(listener.port, "flooder")
        for _ in range(64):  # 16 MiB for a reader that reads nothing: more than socket buffers hold
            await publisher.send(MP.Publish("dev/flood", bytes(256 * 1024), 0))
        await publisher.send(MP.PingReq())
        assert await publisher.packet() == MP.PingResp()  # the publisher is served throughout
        with trio.fail_after(WAIT):
            await ended.wait()
        assert sessions.get("slow") is None
        assert await slow.closed()  # what was written before the close, then the end of the stream


async def test_topics_are_authorised_as_for_mqi_applications(tmp_path):
    async with mqtt_server(tmp_path) as (_server, listener):
        app = await _connected(listener.port, "appuser")
        await app.send(MP.Subscribe(1, [("dev/ok/#", 1), ("private/#", 1)]))
        assert await app.packet() == MP.SubAck(1, [1, MP.SUBACK_FAILURE])  # app may only use dev/
        await app.send(MP.Publish("private/x", b"no", 1, packet_id=2))
        assert await app.closed()  # a refused publish closes the connection, as IBM's service does
        admin = await _connected(listener.port, "adminuser", username="admin", password=b"passw0rd")
        await admin.send(MP.Subscribe(1, [("private/#", 1)]))
        assert await admin.packet() == MP.SubAck(1, [1])
        await admin.send(MP.Publish("private/x", b"yes", 1, packet_id=2))
        first, second = await admin.packet(), await admin.packet()  # its PUBACK and its own copy, in either order
        [ack] = [p for p in (first, second) if isinstance(p, MP.PubAck)]
        [got] = [p for p in (first, second) if isinstance(p, MP.Publish)]
        assert ack == MP.PubAck(2) and (got.topic, got.payload, got.qos) == ("private/x", b"yes", 1)
        await admin.aclose()


async def test_a_connected_clients_topic_grant_goes_with_its_authority_record(tmp_path):
    """The grant a client's publications to one topic share (remembered, authority.check_topic) ends with
    SET AUTHREC: the next publication is refused and closes the connection."""
    async with mqtt_server(tmp_path) as (server, listener):
        app = await _connected(listener.port, "revoked")
        for pid in (1, 2):
            await app.send(MP.Publish("dev/revoked", b"yes", 1, packet_id=pid))
            assert await app.packet() == MP.PubAck(pid)
        revoke = command(C.MQCMD_SET_AUTH_REC, st(C.MQCACF_AUTH_PROFILE_NAME, "DEV.**"),
                         i(C.MQIACF_OBJECT_TYPE, C.MQOT_TOPIC), il(C.MQIACF_AUTH_REMOVE_AUTHS, A.MQAUTH_PUBLISH),
                         P.CFSL(C.MQCACF_PRINCIPAL_ENTITY_NAMES, ("app",), 0))
        assert server.qm.engine.execute(revoke)[0].header.Reason == 0
        await app.send(MP.Publish("dev/revoked", b"no", 1, packet_id=3))
        assert await app.closed()


async def test_the_whole_qos_2_exchange_both_ways_with_a_resent_publish_published_once(tmp_path):
    async with mqtt_server(tmp_path) as (_server, listener):
        sub = await _connected(listener.port, "q2sub")
        await sub.send(MP.Subscribe(1, [("dev/q2/#", 2)]))
        assert await sub.packet() == MP.SubAck(1, [2])
        pub = await _connected(listener.port, "q2pub")
        await pub.send(MP.Publish("dev/q2/a", b"once", 2, packet_id=7))
        assert await pub.packet() == MP.PubRec(7)
        await pub.send(MP.Publish("dev/q2/a", b"once", 2, dup=True, packet_id=7))  # its PUBREC was lost
        assert await pub.packet() == MP.PubRec(7)
        await pub.send(MP.PubRel(7))
        assert await pub.packet() == MP.PubComp(7)
        got = await sub.packet()
        assert (got.topic, got.payload, got.qos, got.dup) == ("dev/q2/a", b"once", 2, False)
        await sub.send(MP.PubRec(got.packet_id))
        assert await sub.packet() == MP.PubRel(got.packet_id)
        await sub.send(MP.PubComp(got.packet_id))
        await pub.send(MP.Publish("dev/q2/b", b"marker", 1, packet_id=8))
        assert await pub.packet() == MP.PubAck(8)
        marker = await sub.packet()
        assert (marker.topic, marker.payload) == ("dev/q2/b", b"marker")  # not a second "once"
        await sub.aclose()
        await pub.aclose()


async def test_an_unacknowledged_delivery_is_sent_again_with_dup_on_reconnect(tmp_path):
    async with mqtt_server(tmp_path) as (_server, listener):
        sub = await _connected(listener.port, "dupper", clean_session=False)
        await sub.send(MP.Subscribe(1, [("dev/dup", 1)]))
        assert await sub.packet() == MP.SubAck(1, [1])
        pub = await _connected(listener.port, "duppub")
        await pub.send(MP.Publish("dev/dup", b"again", 1, packet_id=3))
        assert await pub.packet() == MP.PubAck(3)
        first = await sub.packet()
        assert (first.payload, first.qos, first.dup) == (b"again", 1, False)
        await sub.aclose()  # no PUBACK
        back = await RawMQTT.connect(listener.port)
        await back.send(MP.Connect("dupper", clean_session=False))
        assert await back.packet() == MP.ConnAck(0, True)
        again = await back.packet()
        assert (again.payload, again.qos, again.dup) == (b"again", 1, True)
        await back.send(MP.PubAck(again.packet_id))
        await back.send(MP.PingReq())
        assert await back.packet() == MP.PingResp()
        await back.aclose()
        await pub.aclose()
