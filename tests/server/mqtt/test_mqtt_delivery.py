"""Deliveries to an MQTT client: a deliverer's batch is queued without a checkpoint while the outbound
queue has room, so the writer sends it in one write; when the queue is full the deliverer waits for room
(the general path).  Both give the client the same bytes in the same order."""

from __future__ import annotations

import types

import pytest
import trio

from qmlite.pcf.mqtt import packets as MP
from qmlite.server.mqtt.client import INFLIGHT, MQTTClient

from .mqttpeers import WAIT, RawMQTT, mqtt_server


class _Recording(trio.abc.Stream):
    """A stream that keeps each write apart."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    async def send_all(self, data) -> None:
        await trio.lowlevel.checkpoint()
        self.writes.append(bytes(data))

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes=None) -> bytes:
        await trio.sleep_forever()

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


def _client(outbound_limit: int) -> tuple[MQTTClient, _Recording]:
    qmgr = types.SimpleNamespace(max_msg_length=4 * 1024 * 1024)
    server = types.SimpleNamespace(qm=types.SimpleNamespace(registry=types.SimpleNamespace(qmgr=qmgr)))
    log = types.SimpleNamespace(bind=lambda **_: None)
    listener = types.SimpleNamespace(server=server, log=log, outbound_limit=outbound_limit, slow_client_seconds=WAIT,
                                     early_qos1=True)
    stream = _Recording()
    return MQTTClient(listener, stream, "127.0.0.1"), stream


PACKETS = [MP.Publish(f"dev/burst/{i}", bytes([i]) * i, i % 3, bool(i % 2), False, i + 1 if i % 3 else None)
           for i in range(50)]


async def _written(outbound_limit: int) -> list[bytes]:
    """The writes a client's stream sees for PACKETS delivered one after another."""
    client, stream = _client(outbound_limit)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client._writer)
        for packet in PACKETS:
            await client._deliver(packet)
        client._send.close()  # the writer ends once it has written what is queued
    return stream.writes


async def test_a_batch_that_fits_the_outbound_queue_is_one_write():
    assert await _written(outbound_limit=1000) == [b"".join(MP.encode(p) for p in PACKETS)]


async def test_a_full_outbound_queue_waits_for_room_and_writes_the_same_bytes():
    writes = await _written(outbound_limit=4)
    assert len(writes) > 1  # the general path: the deliverer waited while the writer wrote
    assert b"".join(writes) == b"".join(MP.encode(p) for p in PACKETS)


@pytest.mark.parametrize("outbound_limit", [4, 1000])
async def test_a_burst_reaches_a_subscriber_whole_and_in_order(tmp_path, outbound_limit):
    async with mqtt_server(tmp_path) as (_server, listener):
        listener.outbound_limit = outbound_limit  # 4: deliveries wait for room; 1000: queued at once
        subscriber = await RawMQTT.connect(listener.port)
        await subscriber.send(MP.Connect("burstsub"))
        assert await subscriber.packet() == MP.ConnAck(0, False)
        await subscriber.send(MP.Subscribe(1, [("dev/burst/#", 0)]))
        assert await subscriber.packet() == MP.SubAck(1, [0])
        publisher = await RawMQTT.connect(listener.port)
        burst = [MP.Publish(f"dev/burst/{i % 7}", b"%d" % i, 0) for i in range(300)]
        await publisher.send(b"".join([MP.encode(MP.Connect("burstpub"))] + [MP.encode(p) for p in burst]))
        assert await publisher.packet() == MP.ConnAck(0, False)
        got = [await subscriber.packet() for _ in burst]
        assert got == burst
        await subscriber.aclose()
        await publisher.aclose()


async def test_a_backlog_goes_out_a_window_in_flight_at_a_time_in_order(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        sub = await RawMQTT.connect(listener.port)
        await sub.send(MP.Connect("backlog", clean_session=False))
        assert await sub.packet() == MP.ConnAck(0, False)
        await sub.send(MP.Subscribe(1, [("dev/backlog", 1)]))
        assert await sub.packet() == MP.SubAck(1, [1])
        await sub.send(MP.Disconnect())
        assert await sub.closed()
        publisher = await RawMQTT.connect(listener.port)
        await publisher.send(MP.Connect("backlogpub"))
        assert await publisher.packet() == MP.ConnAck(0, False)
        for i in range(25):
            await publisher.send(MP.Publish("dev/backlog", b"%d" % i, 1, packet_id=i + 1))
            assert await publisher.packet() == MP.PubAck(i + 1)
        sub = await RawMQTT.connect(listener.port)  # 25 waiting when its deliverer first looks
        await sub.send(MP.Connect("backlog", clean_session=False))
        assert await sub.packet() == MP.ConnAck(0, True)
        got = [await sub.packet() for _ in range(INFLIGHT)]  # the in-flight window (TR3)
        await sub.send(MP.PingReq())
        assert await sub.packet() == MP.PingResp()  # nothing beyond the window was sent
        assert server.qm.telemetry.sessions.get("backlog").pending_out == 25 - INFLIGHT
        while len(got) < 25:
            await sub.send(MP.PubAck(got[len(got) - INFLIGHT].packet_id))  # each acknowledgement lets one more go
            got.append(await sub.packet())
        assert [p.payload for p in got] == [b"%d" % i for i in range(25)]
        assert not any(p.dup for p in got) and len({p.packet_id for p in got[-INFLIGHT:]}) == INFLIGHT
        for p in got[-INFLIGHT:]:
            await sub.send(MP.PubAck(p.packet_id))
        await sub.send(MP.PingReq())
        assert await sub.packet() == MP.PingResp()
        assert server.qm.telemetry.sessions.get("backlog").pending_out == 0
        await sub.aclose()
        await publisher.aclose()
