"""QoS 1 without needless waits on the journal (decisions TR1-TR3): a QoS 1 copy goes to its subscriber
while its put is still being written (TR2), and the same scenario with that off gives every client the
same bytes and leaves the queue manager in the same state; a QoS 2 copy and a publisher's PUBACK/PUBREC
still wait for the disk; one read's publications share one group commit (TR1)."""

from __future__ import annotations

import contextlib
import threading

import pytest
import trio

from qmlite.pcf.mqtt import packets as MP
from qmlite.registry.telemetry import mapping

from .mqttpeers import RawMQTT, mqtt_server
from .test_mqtt_handover import _connected, _receive, _state, _subscribed


@contextlib.contextmanager
def _disk_held(server):
    """The journal's syncs wait (on the committer's writer thread) until the block ends."""
    store = server.qm.registry.store
    real = store.sync
    gate = threading.Event()

    def sync():
        gate.wait()
        return real()

    store.sync = sync
    try:
        yield
    finally:
        gate.set()
        store.sync = real


async def _nothing_before_pong(peer: RawMQTT) -> None:
    """Nothing else was queued for ``peer``: a PINGREQ's answer comes first."""
    await peer.send(MP.PingReq())
    assert await peer.packet() == MP.PingResp()


def _burst(count: int) -> list[MP.Publish]:
    """QoS 1 publications to three topics, a QoS 0 one every seventh, a retained one every eleventh."""
    qos = [0 if i % 7 == 3 else 1 for i in range(count)]
    return [MP.Publish(f"dev/eq/{i % 3}", b"q%d" % i, qos[i], i % 11 == 5, False, i + 1 if qos[i] else None)
            for i in range(count)]


async def _scenario(tmp_path, early: bool):
    async with mqtt_server(tmp_path) as (server, listener):
        listener.early_qos1 = early
        seq_before = server.qm.registry.messages.next_seq()
        publisher = await _connected(listener.port, "eqpub")
        a = await _subscribed(listener.port, "eqA", "dev/eq/#", 1)
        b = await _subscribed(listener.port, "eqB", "dev/eq/+", 1, clean=False)
        burst = _burst(70)
        await publisher.send(b"".join(MP.encode(p) for p in burst))  # one write: more than a window
        acks = [await publisher.packet() for p in burst if p.qos]
        assert acks == [MP.PubAck(p.packet_id) for p in burst if p.qos]
        got_a = await _receive(a, len(burst))
        got_b = await _receive(b, len(burst))
        await _nothing_before_pong(b)  # B's last PUBACK read before B goes
        await b.send(MP.Disconnect())
        assert await b.closed()
        for i in range(5):  # B is away: its copies wait on the queue
            await publisher.send(MP.Publish("dev/eq/1", b"away%d" % i, 1, packet_id=100 + i))
            assert await publisher.packet() == MP.PubAck(100 + i)
        got_a += await _receive(a, 5)
        await _nothing_before_pong(a)
        state = _state(server, seq_before)
        frames = {"eqA": a.frames, "eqB": b.frames, "eqpub": publisher.frames}
        for peer in (a, publisher):
            await peer.aclose()
        return frames, state, (got_a, got_b)


async def test_early_qos_1_copies_are_the_waiting_paths_bytes_and_state(tmp_path):
    frames, state, (got_a, got_b) = await _scenario(tmp_path / "waiting", early=False)
    early_frames, early_state, _ = await _scenario(tmp_path / "early", early=True)
    assert early_frames == frames
    assert early_state == state
    # the scenario is what it says: every message in order, B's five waiting on the queue
    assert [p.payload for p in got_a] == [b"q%d" % i for i in range(70)] + [b"away%d" % i for i in range(5)]
    assert [p.payload for p in got_b] == [b"q%d" % i for i in range(70)]
    assert state["depth"] == 5 and {w[0] for w in state["waiting"]} == {"eqB"}


@pytest.mark.parametrize("early", [True, False])
async def test_a_qos_1_copy_goes_before_its_put_is_on_disk_a_qos_2_copy_and_the_pubrec_after(tmp_path, early):
    async with mqtt_server(tmp_path) as (server, listener):
        listener.early_qos1 = early
        one = await _subscribed(listener.port, "early1", "dev/disk", 1)
        two = await _subscribed(listener.port, "early2", "dev/disk", 2)
        publisher = await _connected(listener.port, "diskpub")
        contents = server.qm.registry.messages.contents(mapping.TRANSMIT_QUEUE)
        with _disk_held(server):
            await publisher.send(MP.Publish("dev/disk", b"d", 2, packet_id=7))  # a QoS 1 and a QoS 2 copy
            await _nothing_before_pong(publisher)  # no PUBREC: the put is not on disk
            await _nothing_before_pong(two)  # nor the QoS 2 copy
            if early:
                first = await one.packet()
                assert first == MP.Publish("dev/disk", b"d", 1, False, False, first.packet_id)
                await one.send(MP.PubAck(first.packet_id))  # acknowledged before the put is on disk
                await _nothing_before_pong(one)
                assert len(contents) == 1  # the QoS 1 copy taken, the QoS 2 one waiting
            else:
                await _nothing_before_pong(one)
                assert len(contents) == 2
        assert await publisher.packet() == MP.PubRec(7)
        await publisher.send(MP.PubRel(7))
        assert await publisher.packet() == MP.PubComp(7)
        if not early:
            first = await one.packet()
            await one.send(MP.PubAck(first.packet_id))
        second = await two.packet()
        assert (second.payload, second.qos) == (b"d", 2)
        await two.send(MP.PubRec(second.packet_id))
        assert await two.packet() == MP.PubRel(second.packet_id)
        await two.send(MP.PubComp(second.packet_id))
        await _nothing_before_pong(one)
        await _nothing_before_pong(two)
        assert len(contents) == 0
        with trio.fail_after(5):
            for peer in (one, two, publisher):
                await peer.aclose()


async def test_one_reads_publications_share_one_group_commit(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        away = await _subscribed(listener.port, "commitaway", "dev/commit", 1, clean=False)
        await away.send(MP.Disconnect())
        assert await away.closed()  # its copies are written and stay: only the puts reach the journal
        publisher = await _connected(listener.port, "commitpub")
        await _nothing_before_pong(publisher)
        committer = server.committer
        commits = committer.commits
        burst = [MP.Publish("dev/commit", b"c%d" % i, 1, packet_id=i + 1) for i in range(20)]
        await publisher.send(b"".join(MP.encode(p) for p in burst))  # one write, read at once
        assert [await publisher.packet() for _ in burst] == [MP.PubAck(p.packet_id) for p in burst]
        assert committer.commits == commits + 1
        assert len(server.qm.registry.messages.contents(mapping.TRANSMIT_QUEUE)) == 20
        await publisher.aclose()
