"""server/mca/run.py end to end: two queue managers hosted in one process (two servers, two data
directories), a sender channel on QM1 started by START CHANNEL and a receiver on QM2 served by
``serve_message_channel`` from a small listener of the test's own; IBM's ibmmq puts to a remote queue
definition on QM1 and gets the messages on QM2.  The MQ port's own hand-over is test_mqport.py's."""

from __future__ import annotations

import contextlib
import types

import pytest
import trio

from qmlite.pcf import fap
from qmlite.pcf import mqi as S
from qmlite.pcf import msgchannel as MCF
from qmlite.pcf import constants as C
from qmlite.registry.channels import syncrecords as SR
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.objects import channels as M
from qmlite.server import config
from qmlite.server.listener import running
from qmlite.server.mca import agents
from qmlite.server.mca import run as mca
from tests.support import wire

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC  # noqa: E402

CHANNEL = "QM1.TO.QM2"
ADMIN = ("admin", "passw0rd")


async def _read_segment(stream) -> bytes:
    data = b""
    while len(data) < 8 or len(data) < int.from_bytes(data[4:8], "big"):
        chunk = await stream.receive_some(65536)
        if not chunk:
            return b""
        data += chunk
    return data


class Recorded:
    """A stream that copies what crosses it into a capture for tshark (the sender is the "client")."""

    def __init__(self, stream, capture) -> None:
        self.stream, self.capture = stream, capture

    def _record(self, data: bytes, from_client: bool) -> None:
        for i in range(0, len(data), 16384):  # an IPv4 packet holds at most 64 KiB
            self.capture.send(data[i:i + 16384], from_client=from_client)

    async def receive_some(self, max_bytes=None):
        data = await self.stream.receive_some(max_bytes)
        self._record(data, True)
        return data

    async def send_all(self, data) -> None:
        self._record(bytes(data), False)
        await self.stream.send_all(data)


class Receiving:
    """A listener for QM2's message channels: reads the first segment, finds the channel its ID names,
    hands the rest of the conversation to ``serve_message_channel``; records what each served left."""

    def __init__(self, server) -> None:
        self.server = server
        self.served = 0
        self.done = trio.Event()
        self.port = 0
        self.capture = wire.PcapWriter()

    async def handle(self, stream) -> None:
        async with stream:
            first = await _read_segment(stream)
            segment = fap.decode_segment(first, 0, fap.SegmentHeader.unpack(first)[0].SegmentLength)
            ident = fap.InitialData.unpack(segment.body, 0, segment.order)[0]
            channel = self.server.qm.registry.objects(M.KIND).get(ident.ChannelName)
            self.capture.send(first, from_client=True)
            await mca.serve_message_channel(Recorded(stream, self.capture), first, self.server, channel,
                                            peer="127.0.0.1")
        self.served += 1
        self.done.set()


def _mqsc(server, text: str) -> None:
    for result in run_mqsc(server.qm, text):
        assert not result.syntax_error and result.text[0][:8] not in ("AMQ8405I", "AMQ8147E"), result.text


class Ended:
    """The sender agents that ended, and a wait for the next."""

    def __init__(self) -> None:
        self.count = 0
        self._event = trio.Event()

    def set(self, channel) -> None:
        self.count += 1
        self._event.set()

    async def wait(self, count: int) -> None:
        while self.count < count:
            self._event = trio.Event()
            await self._event.wait()


def admitting(channel: str = CHANNEL, sending_qmgr: str = "QM1") -> str:
    """The CHLAUTH records that let ``sending_qmgr``'s channel in past the developer container's back-stop
    (docs/channels.md "Security"): a QMGRMAP, and a BLOCKUSER of the channel's own in place of the
    generic ``*MQADMIN`` one, since a receiver with a blank MCAUSER runs as mqm."""
    return (f"SET CHLAUTH('{channel}') TYPE(QMGRMAP) QMNAME('{sending_qmgr}') USERSRC(CHANNEL)\n"
            f"SET CHLAUTH('{channel}') TYPE(BLOCKUSER) USERLIST('nobody')\n")


@contextlib.asynccontextmanager
async def two_queue_managers(tmp_path, *, sdr="", rcvr="", own_hook=True, rcvr_type="RCVR", admit=True):
    def cfg(name):
        return config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / name,
                                                  "qmgr_name": name})

    async with running(cfg("QM1"), synchronous="NORMAL") as qm1, running(cfg("QM2"), synchronous="NORMAL") as qm2:
        receiving = Receiving(qm2)
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(trio.serve_tcp, receiving.handle, 0, )
            receiving.port = listeners[0].socket.getsockname()[1]
            _mqsc(qm2, f"DEFINE QLOCAL(TARGET)\nDEFINE CHANNEL({CHANNEL}) CHLTYPE({rcvr_type}) {rcvr}\n"
                       + (admitting() if admit else ""))
            _mqsc(qm1, f"""
                DEFINE QLOCAL(QM2) USAGE(XMITQ)
                DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
                DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({receiving.port})') XMITQ(QM2) +
                       SHORTRTY(0) LONGRTY(0) DISCINT(0) {sdr}""")
            ended = Ended()
            if own_hook:  # else the server's own (server/listener.py registers it lazily)
                agents.register(qm1, nursery, on_end=ended.set)
            yield qm1, qm2, receiving, ended
            nursery.cancel_scope.cancel()


def _put(port: int, bodies: list[tuple[bytes, bool]]) -> None:
    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        queue = ibmmq.Queue(qm, "TO.QM2")
        for body, persistent in bodies:
            md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT)
            queue.put(body, md)
        queue.close()
    finally:
        qm.disconnect()


def _get_all(port: int) -> list[tuple[bytes, int]]:
    qm = ibmmq.connect("QM2", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    out = []
    try:
        queue = ibmmq.Queue(qm, "TARGET")
        while True:
            md = ibmmq.MD()
            try:
                out.append((queue.get(None, md), md.Persistence))
            except ibmmq.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
    finally:
        qm.disconnect()


async def _depth(server, queue: str, depth: int) -> None:
    """Wait until ``queue`` holds ``depth`` messages (woken by the queue manager as each arrives)."""
    lot = server.mqi.activity.lot(queue)
    while server.qm.registry.messages.depth(queue) < depth:
        await lot.park()


async def test_put_to_a_remote_queue_on_qm1_is_got_on_qm2_through_ibmmq(tmp_path):
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_put, qm1.port, [(b"persistent", True), (b"fast", False)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 2)
        got = await trio.to_thread.run_sync(_get_all, qm2.port)
        # NPMSPEED(FAST): the non-persistent message is put outside the batch's unit of work, so it is
        # visible before the batch commits (IBM "Fast, nonpersistent messages"): order across the two differs
        assert sorted(got) == [(b"fast", 0), (b"persistent", 1)]
        assert qm1.qm.registry.messages.depth("QM2") == 0
        status = qm1.qm.registry.running.message_channels[CHANNEL]
        assert (status.msgs, status.last_seq, status.remote_qmgr) == (2, 2, "QM2") or status.in_doubt
        (shown,) = run_mqsc(qm2.qm, f"DISPLAY CHSTATUS({CHANNEL}) ALL")  # the receiving end's instance
        assert shown.objects[0]["STATUS"] == "RUNNING" and shown.objects[0]["RQMNAME"] == "QM1", shown.text
        assert shown.objects[0]["MSGS"] == "2" and shown.objects[0]["CHLTYPE"] == "RCVR"
        (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL})")
        assert shown.objects[0]["STATUS"] == "RUNNING" and shown.objects[0]["XMITQ"] == "QM2", shown.text
        # DISCINT(0): the channel stays; more messages flow in a batch of their own
        await trio.to_thread.run_sync(_put, qm1.port, [(b"again", True)])
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 1)
        received = qm2.qm.registry.running.message_channels[CHANNEL]  # the receiver's, committed with the puts
        assert (received.last_seq, received.batches, received.remote_qmgr) == (3, 2, "QM1")
        records = SR.SyncRecords(qm2.qm, qm2.qm.connect("QM2", user="mqm", admin=True), CHANNEL)
        assert records.get(SR.RECEIVER)["seq"] == 3
    # Every flow of the conversation, as Wireshark's MQ dissector reads it: nothing malformed or unknown.
    result = wire.dissect(receiving.capture, ["mq.msh.seqnum", "mq.xqh.remoteq", "mq.status.code", "mq.id.seqwrap"])
    assert result.malformed == [] and result.expert == []
    assert result.values("mq.msh.seqnum") == ["1", "2", "3"]
    assert result.values("mq.xqh.remoteq") == ["TARGET"] * 3
    assert result.values("mq.id.seqwrap") == ["999999999", "999999999"]


async def test_a_batch_cut_off_mid_segment_is_backed_out_and_the_channel_ends(tmp_path):
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        stream = await trio.open_tcp_stream("127.0.0.1", receiving.port)
        async with stream:
            offer = MCF.Offer(CHANNEL, "QM1")
            await stream.send_all(MCF.id_segment(MCF.message_channel_id(offer)))
            reply = fap.decode_segment(await _read_segment(stream))
            assert reply.segment_type == fap.INITIAL_DATA and not reply.header.ControlFlags1 & fap.CF1_ERROR
            xqh = S.MQXQH(RemoteQName="TARGET", RemoteQMgrName="QM2",
                          MsgDesc=S.MQMD(Persistence=C.MQPER_PERSISTENT)).pack("<")
            luw = bytes(range(8))
            whole = b"".join([*MCF.message_segments(1, xqh + b"first", luw=luw, max_transmission_size=32748),
                              *MCF.message_segments(2, xqh + b"second", luw=luw, max_transmission_size=32748,
                                                   confirm=True)])
            await stream.send_all(whole[:-10])  # the batch's last segment cut short, then the socket closes
        with trio.fail_after(30):
            await receiving.done.wait()
        assert qm2.qm.registry.messages.depth("TARGET") == 0  # the first message's put backed out too
        assert not qm2.qm.registry.running.instances_of(CHANNEL)
        assert qm2.qm.registry.running.message_channels[CHANNEL].last_seq == 0


async def test_the_servers_own_hook_runs_the_sender_at_start_channel(tmp_path):
    async with two_queue_managers(tmp_path, own_hook=False) as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_put, qm1.port, [(b"via the listener's hook", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 1)
        assert qm1.qm.registry.running.instances_of(CHANNEL)


async def test_batchsz_cuts_batches_and_a_long_message_spans_segments(tmp_path):
    bodies = [(b"m%d" % i, True) for i in range(6)] + [(b"L" * 100_000, True)]
    async with two_queue_managers(tmp_path, sdr="BATCHSZ(3)") as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_put, qm1.port, bodies)
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 7)
        got = await trio.to_thread.run_sync(_get_all, qm2.port)
        assert [body for body, _ in got] == [body for body, _ in bodies]  # in order
        received = qm2.qm.registry.running.message_channels[CHANNEL]
        assert (received.batches, received.last_seq, received.batch_size) == (3, 7, 3)
    result = wire.dissect(receiving.capture, ["mq.msh.seqnum", "mq.msh.msglength"])
    assert result.malformed == [] and result.expert == []
    assert result.values("mq.msh.seqnum") == [str(n) for n in range(1, 8)]
    assert result.values("mq.msh.msglength")[-1] == str(428 + 100_000)  # then continuation segments


async def test_a_receiver_refuses_a_different_seqwrap_and_the_sender_stops(tmp_path):
    async with two_queue_managers(tmp_path, rcvr="SEQWRAP(1000)") as (qm1, qm2, receiving, ended):
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(1)
        status = qm1.qm.registry.running.message_channels[CHANNEL]
        assert status.status == C.MQCHS_STOPPED  # no retries left (SHORTRTY(0) LONGRTY(0))
        assert not qm1.qm.registry.running.instances_of(CHANNEL)


@pytest.mark.parametrize("rcvr_type, extra", [("SDR", "CONNAME('x') XMITQ(QM2)"), ("SVRCONN", "")])
async def test_a_wrong_channel_type_at_the_other_end_refuses_the_channel(tmp_path, rcvr_type, extra):
    async with two_queue_managers(tmp_path, rcvr_type=rcvr_type, rcvr=extra) as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_put, qm1.port, [(b"kept", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(1)
        assert qm1.qm.registry.running.message_channels[CHANNEL].status == C.MQCHS_STOPPED
        assert qm1.qm.registry.messages.depth("QM2") == 1  # nothing lost
    result = wire.dissect(receiving.capture, ["mq.status.code"])
    assert result.values("mq.status.code") == [str(fap.CHANNEL_WRONG_TYPE)] and result.malformed == []


async def test_a_sequence_number_mismatch_stops_the_channel_until_reset(tmp_path):
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 1)
        _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
        status = qm1.qm.registry.running.message_channels[CHANNEL]
        with trio.fail_after(30):
            await ended.wait(1)
        # The batch may still be in doubt (stopped before its confirmation arrived): RESET refuses then;
        # the receiver has it, so RESOLVE ACTION(COMMIT) settles it.
        _mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
        assert qm1.qm.registry.messages.depth("QM2") == 0
        _mqsc(qm1, f"RESET CHANNEL({CHANNEL}) SEQNUM(50)")  # the sender's number moves on alone
        await trio.to_thread.run_sync(_put, qm1.port, [(b"two", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(2)
        assert status.status == C.MQCHS_STOPPED  # AMQ9526: no retry helps until RESET CHANNEL
        assert qm1.qm.registry.messages.depth("QM2") == 1  # still on the transmission queue
        assert qm2.qm.registry.messages.depth("TARGET") == 1
        (result,) = run_mqsc(qm1.qm, f"RESET CHANNEL({CHANNEL}) SEQNUM(2)")  # back in step with the receiver
        assert result.text[0].startswith("AMQ8023I"), result.text
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 2)


async def test_a_channel_agent_waits_for_the_disk_without_counting_as_a_reply():
    """An agent's batches are not replies the group committer counts, so its waits are not counted either
    (server/durability.py, decision JN9): each would hide one application reply that waited for nothing."""
    calls = []

    class Committer:
        async def wait(self, position, *, answered=True):
            calls.append((position, answered))

    server = types.SimpleNamespace(qm=types.SimpleNamespace(clock_control=None),
                                   mqi=types.SimpleNamespace(activity=None), committer=Committer())
    await mca.host_of(server).durable(7)
    assert calls == [(7, False)]
