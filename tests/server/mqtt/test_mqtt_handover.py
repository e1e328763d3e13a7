"""A publication's QoS 0 copy handed to a connected client as it is made (registry/telemetry/mapping.py
Handover, decision TQ1) against the general path (the copy on SYSTEM.MQTT.TRANSMIT.QUEUE behind an
MQXQH, taken off by the client's deliverer): the same scenario run both ways gives every client the same
bytes in the same order and leaves the queue manager in the same state (the queue's depth, contents and
put and get counts, each subscription's and each session's counts, the sequence numbers used)."""

from __future__ import annotations

import dataclasses

import pytest
import trio

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf.mqtt import packets as MP
from qmlite.registry.telemetry import mapping
from qmlite.server.mqtt.client import INFLIGHT
from tests.support.pcfkit import command, i, st

from .mqttpeers import RawMQTT, mqtt_server


def _spy_transmissions(server) -> list:
    """Each copy rendered behind an MQXQH (the general path) is recorded."""
    puts = server.qm.puts
    calls = []
    real = puts.for_transmission

    def for_transmission(md, data, remote_q, remote_qmgr):
        calls.append(remote_qmgr)
        return real(md, data, remote_q, remote_qmgr)

    puts.for_transmission = for_transmission
    return calls


async def _connected(port: int, client_id: str, *, clean: bool = True) -> RawMQTT:
    peer = await RawMQTT.connect(port)
    await peer.send(MP.Connect(client_id, clean_session=clean))
    assert await peer.packet() == MP.ConnAck(0, False)
    return peer


async def _subscribed(port: int, client_id: str, topic_filter: str, qos: int, *, clean: bool = True) -> RawMQTT:
    peer = await _connected(port, client_id, clean=clean)
    await peer.send(MP.Subscribe(1, [(topic_filter, qos)]))
    assert await peer.packet() == MP.SubAck(1, [qos])
    return peer


async def _receive(peer: RawMQTT, count: int) -> list:
    """``count`` PUBLISH packets, each QoS 1 one acknowledged as it comes."""
    got = []
    while len(got) < count:
        packet = await peer.packet()
        assert isinstance(packet, MP.Publish), packet
        got.append(packet)
        if packet.qos == 1:
            await peer.send(MP.PubAck(packet.packet_id))
    return got


def _burst(count: int) -> list[MP.Publish]:
    """QoS 0 publications to three topics, a persistent QoS 1 one every tenth, a retained one every twentieth."""
    out = []
    for i in range(count):
        qos = 1 if i % 10 == 5 else 0
        out.append(MP.Publish(f"dev/eq/{i % 3}", b"m%d" % i, qos, i % 20 == 7, False, i + 1 if qos else None))
    return out


def _state(server, seq_before: int) -> dict:
    """What the scenario leaves of the queue manager: everything but clock readings and high-water marks."""
    qm = server.qm
    reg = qm.registry
    contents = reg.messages.contents(mapping.TRANSMIT_QUEUE)
    waiting = [(mapping.addressee(m), mapping.outbound(m).topic, mapping.outbound(m).payload,
                mapping.outbound(m).qos) for m in contents]
    return {
        "depth": len(contents),
        "waiting": waiting,
        "enq": contents.enq_count,
        "deq": contents.deq_count,
        "put and got": (contents.last_put > 0, contents.last_get > 0, contents.on_q_short >= 0),
        "subs": sorted((s.name, s.message_count, s.last_message > 0) for s in reg.subs.values()
                       if s.destination_qmgr in ("eqA", "eqB")),
        "sessions": sorted((s.client_id, s.msgs_sent, s.msgs_received, s.pending_out, s.in_doubt_out)
                           for s in qm.telemetry.sessions.list()),
        "seqs used": reg.messages.next_seq() - seq_before,
    }


async def _scenario(tmp_path, handover: bool):
    async with mqtt_server(tmp_path) as (server, listener):
        listener.handover = handover
        transmissions = _spy_transmissions(server)
        seq_before = server.qm.registry.messages.next_seq()
        publisher = await _connected(listener.port, "eqpub")
        await publisher.send(MP.Publish("dev/eq/r", b"kept", 0, True))
        a = await _subscribed(listener.port, "eqA", "dev/eq/#", 0)  # gets the retained one at its SUBSCRIBE
        b = await _subscribed(listener.port, "eqB", "dev/eq/+", 1, clean=False)
        got_a, got_b = await _receive(a, 1), await _receive(b, 1)
        burst = _burst(60)
        await publisher.send(b"".join(MP.encode(p) for p in burst))  # one write: copies made back to back
        acks = [await publisher.packet() for p in burst if p.qos]
        assert acks == [MP.PubAck(p.packet_id) for p in burst if p.qos]
        got_a += await _receive(a, len(burst))
        got_b += await _receive(b, len(burst))
        await b.send(MP.PingReq())  # B's last PUBACK read before B goes
        assert await b.packet() == MP.PingResp()
        await b.send(MP.Disconnect())
        assert await b.closed()
        for i in range(5):  # B is away: its copies wait on the queue; A's are handed over
            await publisher.send(MP.Publish("dev/eq/1", b"away%d" % i, 0))
        got_a += await _receive(a, 5)
        await publisher.send(MP.PingReq())
        assert await publisher.packet() == MP.PingResp()
        state = _state(server, seq_before)
        frames = {"eqA": a.frames, "eqB": b.frames, "eqpub": publisher.frames}
        for peer in (a, publisher):
            await peer.aclose()
        return frames, state, transmissions, (got_a, got_b)


async def test_handed_over_copies_are_the_general_paths_bytes_and_state(tmp_path):
    frames, state, general_rendered, (got_a, got_b) = await _scenario(tmp_path / "general", handover=False)
    fast_frames, fast_state, fast_rendered, _ = await _scenario(tmp_path / "handover", handover=True)
    assert fast_frames == frames
    assert fast_state == state
    # the scenario is what it says: every message in order, B's five waiting, and the handover used
    assert [p.payload for p in got_a] == [b"kept"] + [b"m%d" % i for i in range(60)] + [b"away%d" % i for i in range(5)]
    assert [p.payload for p in got_b] == [b"kept"] + [b"m%d" % i for i in range(60)]
    assert state["depth"] == 5 and {w[0] for w in state["waiting"]} == {"eqB"}
    assert len(general_rendered) == state["enq"]  # every copy behind an MQXQH on the general path
    # Handed over at least: the first five of the burst to both (each client idle, nothing waiting for it)
    # and the five to A while B was away; the persistent sixth waits for each deliverer, and the rest of
    # the burst (read at once, before any deliverer runs) waits behind it.
    assert len(fast_rendered) <= len(general_rendered) - 15


async def _rendered_with(tmp_path, prepare) -> tuple[int, int]:
    """One QoS 0 publication to a connected subscriber after ``prepare(server)``: (copies rendered behind
    an MQXQH, copies the subscriber got)."""
    async with mqtt_server(tmp_path) as (server, listener):
        sub = await _subscribed(listener.port, "cond", "dev/cond", 0)
        prepare(server)
        transmissions = _spy_transmissions(server)
        publisher = await _connected(listener.port, "condpub")
        await publisher.send(MP.Publish("dev/cond", b"x", 0))
        got = await _receive(sub, 1)
        for peer in (sub, publisher):
            await peer.aclose()
        return len(transmissions), len(got)


def _nothing(_server) -> None:
    pass


def _perfmev(server) -> None:
    server.qm.registry.qmgr.performance_event = C.MQEVR_ENABLED  # its events count the queue's depth


def _reader(server) -> None:
    qm = server.qm  # an MQI application reading the transmission queue would see the copy
    session = qm.connect("", user="admin", admin=True, appl_name="reader")
    qm.open_object(session, S.MQOD(ObjectName=mapping.TRANSMIT_QUEUE), C.MQOO_INPUT_SHARED)


def _triggered(server) -> None:
    queue = server.qm.registry.queues[mapping.TRANSMIT_QUEUE]
    server.qm.registry.put_queue(dataclasses.replace(queue, trigger_control=C.MQTC_ON))


@pytest.mark.parametrize("prepare, rendered", [(_nothing, 0), (_perfmev, 1), (_reader, 1), (_triggered, 1)])
async def test_the_general_path_where_someone_else_sees_the_queue(tmp_path, prepare, rendered):
    assert await _rendered_with(tmp_path, prepare) == (rendered, 1)


async def test_a_copy_waits_behind_what_is_waiting_for_its_client(tmp_path):
    """A client whose earlier messages still wait (its QoS 1 window full) gets a QoS 0 copy after them."""
    async with mqtt_server(tmp_path) as (server, listener):
        sub = await _subscribed(listener.port, "behind", "dev/behind", 1)
        publisher = await _connected(listener.port, "behindpub")
        for i in range(INFLIGHT + 2):  # two more than the in-flight window
            await publisher.send(MP.Publish("dev/behind", b"p%d" % i, 1, packet_id=i + 1))
            assert await publisher.packet() == MP.PubAck(i + 1)
        first = [await sub.packet() for _ in range(INFLIGHT)]
        transmissions = _spy_transmissions(server)
        await publisher.send(MP.Publish("dev/behind", b"zero", 0))
        await publisher.send(MP.PingReq())
        assert await publisher.packet() == MP.PingResp()
        assert transmissions == ["behind"]  # not handed over: two wait before it
        for p in first:
            await sub.send(MP.PubAck(p.packet_id))
        rest = await _receive(sub, 3)
        assert [p.payload for p in first + rest] == [b"p%d" % i for i in range(INFLIGHT + 2)] + [b"zero"]
        with trio.fail_after(5):
            await sub.aclose()
            await publisher.aclose()


async def _to_a_named_queue(tmp_path, handover: bool) -> tuple[list[bytes], int]:
    """An administrative subscription without publish/subscribe properties (PSPROP NONE) whose destination
    is queue DIRECT.Q on the "queue manager" of a connected client: the client gets each copy on topic
    DIRECT.Q, as an MQI put to that queue there would reach it (TT5)."""
    async with mqtt_server(tmp_path) as (server, listener):
        listener.handover = handover
        transmissions = _spy_transmissions(server)
        create = command(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "DIRECT.SUB"),
                         st(C.MQCA_TOPIC_STRING, "dev/direct"), st(C.MQCACF_DESTINATION, "DIRECT.Q"),
                         st(C.MQCACF_DESTINATION_Q_MGR, "direct"), i(C.MQIACF_PUBSUB_PROPERTIES, C.MQPSPROP_NONE))
        assert server.qm.engine.execute(create)[0].header.Reason == 0
        client = await _connected(listener.port, "direct")
        publisher = await _connected(listener.port, "directpub")
        for n in range(3):
            await publisher.send(MP.Publish("dev/direct", b"d%d" % n, 0))
        got = await _receive(client, 3)
        assert [(p.topic, p.payload) for p in got] == [("DIRECT.Q", b"d%d" % n) for n in range(3)]
        for peer in (client, publisher):
            await peer.aclose()
        return client.frames, len(transmissions)


async def test_a_copy_for_a_named_queue_on_the_clients_queue_manager_is_the_same_handed_over(tmp_path):
    frames, rendered = await _to_a_named_queue(tmp_path / "general", handover=False)
    fast_frames, fast_rendered = await _to_a_named_queue(tmp_path / "handover", handover=True)
    assert fast_frames == frames
    assert (rendered, fast_rendered) == (3, 0)
