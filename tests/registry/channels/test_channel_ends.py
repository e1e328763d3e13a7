"""registry/channels/: the sending and receiving ends of a message channel on two queue managers, driven
here as the trio driver drives them (no sockets): batches, sequence numbers, the records on
SYSTEM.CHANNEL.SYNCQ, in-doubt resolution, RESET, dead-lettering, and a crash of either end at every
point of a batch leaving each persistent message on the receiving queue once or still on the
transmission queue."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.channels import syncrecords as SR
from qmlite.registry.channels.receivingend import ReceivingEnd, SequenceError
from qmlite.registry.channels.sendingend import ChannelFailure, SendingEnd
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager
from tests.registry.storage.test_journal import abandon

CHANNEL = "QM1.TO.QM2"
QM1_SETUP = f"""
DEFINE QLOCAL(QM2) USAGE(XMITQ)
DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
DEFINE QREMOTE(NOWHERE) RNAME(NO.SUCH.QUEUE) RQMNAME(QM2) XMITQ(QM2)
DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(QM2) BATCHSZ(3)
"""
QM2_SETUP = f"""
DEFINE QLOCAL(TARGET)
DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR)
"""


class Pair:
    def __init__(self, tmp_path):
        self.dirs = tmp_path / "qm1", tmp_path / "qm2"
        self.qm1 = QueueManager.open(self.dirs[0], "QM1", synchronous="NORMAL")
        self.qm2 = QueueManager.open(self.dirs[1], "QM2", synchronous="NORMAL")
        for qm, text in ((self.qm1, QM1_SETUP), (self.qm2, QM2_SETUP)):
            results = run_mqsc(qm, text)
            assert all(not r.syntax_error for r in results)
        self.ends()

    def ends(self):
        self.sender = SendingEnd(self.qm1, _channel(self.qm1))
        self.receiver = ReceivingEnd(self.qm2, _channel(self.qm2), partner_qmgr="QM1")

    def put(self, *bodies: bytes, persistent: bool = True, queue: str = "TO.QM2"):
        session = self.qm1.connect("QM1", user="admin", admin=True)
        handle, _ = self.qm1.open_object(session, S.MQOD(ObjectName=queue), C.MQOO_OUTPUT)
        for body in bodies:
            md = S.MQMD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
            self.qm1.put(session, handle.hobj, md, S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), body)
        self.qm1.disconnect(session, commit=True)
        self.qm1.flush()

    def depth(self, qm, queue: str) -> int:
        return qm.registry.messages.depth(queue)

    def got(self, queue: str = "TARGET") -> list[bytes]:
        session = self.qm2.connect("QM2", user="admin", admin=True)
        handle, _ = self.qm2.open_object(session, S.MQOD(ObjectName=queue), C.MQOO_INPUT_SHARED)
        out = []
        while (got := self.qm2.get(session, handle, S.MQMD(), S.MQGMO(Version=2), 1 << 20)) is not None:
            out.append(got.data)
        self.qm2.disconnect(session, commit=True)
        return out

    def send_batch(self, now: float = 0.0, *, stop_at: str = ""):
        """One batch, as the driver runs it; ``stop_at`` leaves it at that point (with what a driver
        would have waited to have on disk, on disk)."""
        luw = None
        while (item := self.sender.next_message(now)) is not None:
            self.receiver.accept(*item, now)
        if stop_at == "sent":
            return
        luw, seq, _pos = self.sender.harden()
        self.qm1.flush()
        if stop_at == "hardened":
            return
        self.receiver.commit(luw)
        self.qm2.flush()
        if stop_at == "received":
            return
        self.sender.confirmed(*self.receiver.resync())
        if stop_at == "confirmed":  # the driver does not wait for this commit (decision MCD1)
            return
        self.qm1.flush()

    def crash_and_restart(self):
        for qm in (self.qm1, self.qm2):
            abandon(qm.registry.store)
        self.qm1 = QueueManager.open(self.dirs[0], "QM1", synchronous="NORMAL")
        self.qm2 = QueueManager.open(self.dirs[1], "QM2", synchronous="NORMAL")
        self.ends()
        # the channel starts again: RESYNC tells the sender what the receiver committed last
        self.sender.resolve_with_partner(*self.receiver.resync())
        self.qm1.flush()

    def close(self):
        for qm in (self.qm1, self.qm2):
            qm.shutdown()


def _channel(qm):
    from qmlite.registry.objects import channels as M

    return qm.registry.objects(M.KIND)[CHANNEL]


@pytest.fixture
def pair(tmp_path):
    p = Pair(tmp_path)
    yield p
    p.close()


def test_batches_of_batchsz_move_the_messages_and_number_them(pair):
    pair.put(*[b"m%d" % i for i in range(7)])
    for _ in range(3):
        pair.send_batch()
    assert pair.got() == [b"m%d" % i for i in range(7)]
    assert pair.depth(pair.qm1, "QM2") == 0
    assert pair.sender.status.batches == 3  # 3 + 3 + 1 with BATCHSZ(3)
    assert pair.sender.records.get(SR.SENDER)["seq"] == 7 == pair.receiver.records.get(SR.RECEIVER)["seq"]
    assert pair.sender.in_doubt is None


@pytest.mark.parametrize("stop_at, arrived", [("sent", False), ("hardened", False), ("received", True),
                                              ("confirmed", True)])
def test_a_crash_at_any_point_of_a_batch_loses_and_doubles_nothing(pair, stop_at, arrived):
    pair.put(b"a", b"b", b"c")
    pair.send_batch(stop_at=stop_at)
    pair.crash_and_restart()
    assert pair.sender.in_doubt is None  # resolved by the partner's answer
    if arrived:
        assert pair.depth(pair.qm1, "QM2") == 0 and pair.got() == [b"a", b"b", b"c"]
    else:
        assert pair.depth(pair.qm1, "QM2") == 3 and pair.got() == []
        pair.send_batch()  # sent again, numbered again from the last committed number
        assert pair.got() == [b"a", b"b", b"c"]
    assert pair.sender.records.get(SR.SENDER)["seq"] == 3 == pair.receiver.last_seq


def test_the_next_batchs_in_doubt_record_carries_the_commit_not_waited_for(pair):
    # Decision MCD1: the commit after batch 1's confirmation is never flushed on its own; batch 2's
    # hardening flush takes it to disk, so a crash then leaves only batch 2 in doubt.
    pair.put(b"a", b"b", b"c", b"d", b"e", b"f")
    pair.send_batch(stop_at="confirmed")
    pair.send_batch(stop_at="hardened")
    for qm in (pair.qm1, pair.qm2):
        abandon(qm.registry.store)
    pair.qm1 = QueueManager.open(pair.dirs[0], "QM1", synchronous="NORMAL")
    pair.qm2 = QueueManager.open(pair.dirs[1], "QM2", synchronous="NORMAL")
    pair.ends()
    assert pair.sender.records.get(SR.SENDER)["seq"] == 3  # batch 1 committed
    assert (pair.sender.in_doubt["first"], pair.sender.in_doubt["last"]) == (4, 6)
    assert pair.depth(pair.qm1, "QM2") == 3


def test_resolve_channel_commit_and_backout_by_hand(pair):
    pair.put(b"x")
    pair.send_batch(stop_at="received")
    assert pair.sender.status.in_doubt
    pair.sender.backout()  # the channel failed: the batch is in doubt, not backed out
    assert pair.sender.in_doubt is not None
    pair.sender.resolve(commit=True)  # RESOLVE CHANNEL ACTION(COMMIT): the partner has it
    assert pair.depth(pair.qm1, "QM2") == 0 and pair.sender.in_doubt is None
    pair.put(b"y")
    pair.send_batch(stop_at="hardened")
    pair.receiver.backout()
    pair.sender.backout()
    pair.sender.resolve(commit=False)  # ACTION(BACKOUT): sent again
    assert pair.depth(pair.qm1, "QM2") == 1
    pair.send_batch()
    assert pair.got() == [b"x", b"y"]


def test_a_sequence_number_out_of_step_is_amq9526_until_reset(pair):
    pair.put(b"one")
    pair.send_batch()
    pair.sender.reset(10)  # RESET CHANNEL SEQNUM(10) on the sender only
    pair.put(b"two")
    with pytest.raises(SequenceError) as exc:
        pair.send_batch()
    assert exc.value.expected == 2 and exc.value.code == 4  # STATUS MSG_SEQUENCE_ERROR
    pair.receiver.backout()
    pair.sender.backout()
    pair.receiver.reset(10)  # RESET_DATA flows to the receiver
    pair.send_batch()
    assert pair.got() == [b"one", b"two"]


def test_seqwrap_numbers_restart_at_one(pair):
    run_mqsc(pair.qm1, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) SEQWRAP(100)")
    run_mqsc(pair.qm2, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(RCVR) SEQWRAP(100)")
    pair.ends()
    pair.sender.reset(99)
    pair.receiver.reset(99)
    pair.put(b"99", b"100", b"1")
    pair.send_batch()
    assert pair.receiver.last_seq == 1 and pair.got() == [b"99", b"100", b"1"]


def test_an_undeliverable_message_goes_to_the_receivers_dlq_with_an_mqdlh(pair):
    run_mqsc(pair.qm2, "ALTER QMGR DEADQ(SYSTEM.DEAD.LETTER.QUEUE)")
    pair.put(b"lost", queue="NOWHERE")
    pair.send_batch()
    (dead,) = pair.got("SYSTEM.DEAD.LETTER.QUEUE")
    dlh = S.MQDLH.unpack(dead, 0, "<")[0]
    assert dlh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME and dlh.DestQName == "NO.SUCH.QUEUE"
    assert dead.endswith(b"lost")


def test_no_dlq_stops_the_channel_and_backs_the_batch_out(pair):
    run_mqsc(pair.qm2, "ALTER QMGR DEADQ(' ')")
    pair.put(b"lost", queue="NOWHERE")
    with pytest.raises(ChannelFailure) as exc:
        pair.send_batch()
    assert exc.value.code == 6  # STATUS CAN_NOT_STORE
    pair.receiver.backout()
    pair.sender.backout()
    assert pair.depth(pair.qm1, "QM2") == 1
