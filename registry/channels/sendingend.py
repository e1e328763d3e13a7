"""The sending end of a message channel (SDR, SVR): the transmission queue drained in batches, sequence
numbers, the in-doubt batch, and their records (syncrecords.py).  No sockets, no trio: the driver
(server/mca/run.py) asks for messages, sends them, and reports what the partner answered.

A batch's life, and what a SIGKILL at each point leaves (docs/channels.md "Assured delivery"):

1. ``next_message``: messages are got from the transmission queue under syncpoint (a persistent one
   always; a non-persistent one only with NPMSPEED(NORMAL): with FAST it leaves at once, as IBM's fast
   messages do) and numbered.  Killed here: the unit backs out at restart, every message is still on
   the transmission queue.
2. ``harden``: before the batch's end goes out, a second connection writes the ``indoubt`` record
   (LUWID, first and last sequence number, the MsgIds) and commits it; the driver sends the end only
   once that is on disk.  Killed after this: at restart the batch is in doubt.
3. The partner commits its side and confirms.  ``confirmed`` commits the gets, removes the ``indoubt``
   record and writes the new ``sender`` record in one unit of work.  The driver does not wait for that
   commit to reach the disk (decision MCD1): the next batch's ``harden`` fsync carries it, so a batch
   costs one fsync here.  Killed before it is on disk: the batch is in doubt at restart (step 4), and the
   partner's answer commits it.
4. In doubt at restart (``resolve``): the partner says which LUWID it committed last (RESYNC_DATA's
   answer); the same LUWID means the batch arrived: its messages are taken off the transmission queue
   (by MsgId), otherwise they stay and go again with the same sequence numbers.  RESOLVE CHANNEL
   ACTION(COMMIT|BACKOUT) does either by hand.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf.msgchannel import next_seq

from qmlite.registry.channels import monitoring
from qmlite.registry.channels import syncrecords as SR
from qmlite.registry.channels.mcastatus import ZERO_LUW, status_of

MCA_USER = "mqm"  # whom a queue manager's own channel agent runs as (IBM: the MCA runs as mqm)
_BIG = 1 << 30
_XQH = 428  # MQXQH with its version-1 MQMD (pcf/mqi.py MQXQH_LENGTH_1)


class ChannelFailure(Exception):
    """The channel cannot go on; ``code`` is the FAP STATUS code to send (0: none), ``reason`` the MQRC
    or AMQ text for the log; ``value`` the STATUS's value (MSG_SEQUENCE_ERROR: the number expected)."""

    def __init__(self, code: int, why: str, value: int | None = None) -> None:
        super().__init__(why)
        self.code = code
        self.why = why
        self.value = value


@dataclass(slots=True)
class Batch:
    luw: bytes
    started: float
    first: int = 0
    last: int = 0
    count: int = 0
    size: int = 0
    msg_ids: list[str] = field(default_factory=list)  # hex: the messages got under syncpoint


class SendingEnd:
    def __init__(self, qm, channel, *, batch_size: int | None = None, max_msg_length: int | None = None) -> None:
        self.qm = qm
        self.channel = channel
        self.batch_size = batch_size or channel.batch_size
        self.max_msg_length = max_msg_length or channel.max_msg_length
        name = qm.registry.qmgr.name
        self.session = qm.connect(name, user=MCA_USER, admin=True, appl_name="runmqchl", channel=channel.name,
                                  appl_type=C.MQAT_QMGR)
        self.side = qm.connect(name, user=MCA_USER, admin=True, appl_name="runmqchl", channel=channel.name,
                               appl_type=C.MQAT_QMGR)  # writes the in-doubt record in a unit of its own
        try:
            self.records = SR.SyncRecords(qm, self.session, channel.name)
        except BaseException:  # SYSTEM.CHANNEL.SYNCQ deleted or put-inhibited: the caller retries
            self.close()
            raise
        self.status = status_of(qm.registry, channel)
        self.status.xmit_q = channel.xmit_q_name
        self._xmitq = None
        self.batch: Batch | None = None
        committed = self.records.get(SR.SENDER) or {}
        self.seq = committed.get("seq", 0)  # the last sequence number sent
        self.status.last_seq = self.status.current_seq = self.seq
        self.status.last_luwid = bytes.fromhex(committed.get("luw", ZERO_LUW.hex()))
        self.status.in_doubt = self.in_doubt is not None

    # ---- the transmission queue --------------------------------------------------------------------
    def _queue(self):
        if self._xmitq is None:
            name = self.channel.xmit_q_name
            queue = self.qm.registry.queues.get(name)
            if not name or queue is None or queue.usage != C.MQUS_TRANSMISSION:
                raise ChannelFailure(0, f"AMQ9519: transmission queue {name!r} not found or not USAGE(XMITQ)")
            self._xmitq, _ = self.qm.open_object(self.session, S.MQOD(ObjectName=name), self.open_options)
        return self._xmitq

    # What the agent takes from its transmission queue: all of it, alone (a cluster-sender shares
    # SYSTEM.CLUSTER.TRANSMIT.QUEUE and takes its own messages: registry/cluster/sending.py).
    open_options = C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE | C.MQOO_INQUIRE

    def wanted(self) -> tuple[S.MQMD, int | None]:
        """The MQMD and MatchOptions of each get (None: the MQGMO's own, any message)."""
        return S.MQMD(), None

    def waiting(self) -> bool:
        """Whether the transmission queue has a message to send now: a committed one, which a get can take.
        Not the depth: an application's uncommitted put counts in it, and the driver, finding something
        waiting that no get returns, would go round its loop without waiting (decision MCG1)."""
        contents = self.qm.registry.messages.peek(self.channel.xmit_q_name)
        return contents is not None and len(contents) > 0

    @property
    def in_doubt(self) -> dict | None:
        return self.records.get(SR.INDOUBT)

    def resync_point(self) -> tuple[int, bytes]:
        """What RESYNC_DATA tells the partner at start: the in-doubt batch's last number and LUWID, or
        the last batch committed."""
        doubt = self.in_doubt
        if doubt is not None:
            return doubt["last"], bytes.fromhex(doubt["luw"])
        committed = self.records.get(SR.SENDER) or {}
        return committed.get("seq", 0), bytes.fromhex(committed.get("luw", ZERO_LUW.hex()))

    def batch_full(self) -> bool:
        batch = self.batch
        if batch is None:
            return False
        limit = self.channel.batch_data_limit
        return batch.count >= self.batch_size or (limit > 0 and batch.size >= limit * 1024)

    def next_message(self, now: float) -> tuple[int, bytes] | None:
        """The next message to send, numbered, or None (the queue is empty, or the batch is full).
        A message longer than the agreed MAXMSGL goes to this queue manager's dead-letter queue
        (MQRC_MSG_TOO_BIG_FOR_CHANNEL) within the batch's unit of work, and the next one is tried."""
        while not self.batch_full():
            handle = self._queue()
            fast = self.channel.npm_speed == C.MQNPMS_FAST
            gmo = S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT_IF_PERSISTENT if fast else C.MQGMO_SYNCPOINT)
            md, match = self.wanted()
            if match is not None:
                gmo.MatchOptions = match
            got = self.qm.get(self.session, handle, md, gmo, _BIG)
            if got is None:
                return None
            data = got.data
            if self.batch is None:
                self.batch = Batch(secrets.token_bytes(8), now)
                self.status.current_luwid = self.batch.luw
            if len(data) - _XQH > self.max_msg_length:
                self._too_big(got)
                continue
            self.seq = next_seq(self.seq, self.channel.seq_number_wrap)
            batch = self.batch
            batch.first = batch.first or self.seq
            batch.last = self.seq
            batch.count += 1
            batch.size += len(data)
            if got.md.Persistence == C.MQPER_PERSISTENT or not fast:
                batch.msg_ids.append(got.md.MsgId.hex())
            status = self.status
            status.current_seq, status.current_msgs = self.seq, batch.count
            status.msgs += 1
            status.last_msg = now
            monitoring.message_got(status.measures, got.md, len(data), now)  # XQTIME, MsgCount, TotalBytes
            return self.seq, data
        return None

    def _too_big(self, got) -> None:
        header = S.MQXQH.unpack(got.data, 0, "<")[0]
        self.qm.dead_letter(header.MsgDesc, got.data[_XQH:], reason=C.MQRC_MSG_TOO_BIG_FOR_CHANNEL,
                            queue=header.RemoteQName, qmgr=header.RemoteQMgrName, uow=self.session.uow)

    def batch_should_end(self, now: float) -> bool:
        """The batch ends when it is full, or the queue is empty and BATCHINT has run out since it began."""
        batch = self.batch
        if batch is None:
            return False
        if self.batch_full():
            return True
        return not self.waiting() and now - batch.started >= self.channel.batch_interval / 1000

    # ---- the end of a batch ------------------------------------------------------------------------
    def harden(self) -> tuple[bytes, int, int]:
        """Write the in-doubt record (committed on its own connection): (LUWID, last sequence number,
        the journal position that must be on disk before the batch's end is sent)."""
        batch = self.batch
        assert batch is not None
        record = {"luw": batch.luw.hex(), "first": batch.first, "last": batch.last, "msg_ids": batch.msg_ids}
        self.records.write(self.side, SR.INDOUBT, record, syncpoint=True)
        self.qm.commit(self.side, explicit=False)
        self.status.in_doubt = True
        return batch.luw, self.seq, self.qm.position

    def confirmed(self, partner_seq: int, partner_luw: bytes) -> int:
        """The partner committed the batch: commit its gets, its new record and the in-doubt record's
        removal as one unit; returns the journal position."""
        batch = self.batch
        if batch is None or partner_luw != batch.luw or partner_seq != self.seq:
            raise ChannelFailure(0, f"confirmation of {partner_luw.hex()}/{partner_seq} for batch "
                                    f"{batch.luw.hex() if batch else '-'}/{self.seq}")
        self._commit(batch.luw, self.seq)
        status = self.status
        status.batches += 1
        status.current_msgs = 0
        self.batch = None
        return self.qm.position

    def _commit(self, luw: bytes, seq: int) -> None:
        self.records.write(self.session, SR.INDOUBT, None)
        self.records.write(self.session, SR.SENDER, {"seq": seq, "luw": luw.hex()})
        self.qm.commit(self.session, explicit=False)
        status = self.status
        status.last_seq, status.last_luwid, status.in_doubt = seq, luw, False

    def backout(self) -> None:
        """The batch did not arrive (the channel failed before its end was confirmed, and it was not in
        doubt): its messages go back to the transmission queue."""
        self.qm.backout(self.session, explicit=False)
        self.batch = None
        self.records = SR.SyncRecords(self.qm, self.session, self.channel.name)
        committed = self.records.get(SR.SENDER) or {}
        doubt = self.in_doubt
        self.seq = doubt["last"] if doubt else committed.get("seq", 0)
        self.status.current_seq = self.seq
        self.status.current_msgs = 0

    def refused(self) -> int:
        """The receiver answered the batch's end with an error STATUS: it backed its side out (it answers
        so only before committing), so the batch is not in doubt; its messages go back.  Returns the
        position the cleared record reaches."""
        self.backout()
        return self.resolve(commit=False)

    # ---- in doubt -----------------------------------------------------------------------------------
    def resolve(self, commit: bool) -> int:
        """Settle the in-doubt batch: commit (its messages leave the transmission queue, by MsgId) or back
        out (they stay, and are numbered again from the last committed number).  Returns the position."""
        doubt = self.in_doubt
        if doubt is None:
            return self.qm.position
        luw = bytes.fromhex(doubt["luw"])
        if commit:
            handle = self._queue()
            for msg_id in doubt["msg_ids"]:
                md = S.MQMD(MsgId=bytes.fromhex(msg_id))
                gmo = S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT, MatchOptions=C.MQMO_MATCH_MSG_ID)
                self.qm.get(self.session, handle, md, gmo, _BIG)
            self._commit(luw, doubt["last"])
            self.seq = doubt["last"]
        else:
            self.records.write(self.session, SR.INDOUBT, None)
            self.qm.commit(self.session, explicit=False)
            committed = self.records.get(SR.SENDER) or {}
            self.seq = committed.get("seq", 0)
            self.status.in_doubt = False
        self.status.current_seq = self.seq
        return self.qm.position

    def resolve_with_partner(self, partner_seq: int, partner_luw: bytes) -> int:
        """At start: the partner's last committed LUWID decides the in-doubt batch (IBM resolves so)."""
        doubt = self.in_doubt
        if doubt is None:
            return self.qm.position
        return self.resolve(commit=partner_luw == bytes.fromhex(doubt["luw"]))

    def reset(self, seq: int) -> int:
        """RESET CHANNEL SEQNUM(seq): the next message sent is number ``seq``."""
        committed = self.records.get(SR.SENDER) or {}
        self.records.write(self.session, SR.SENDER, {"seq": seq - 1, "luw": committed.get("luw", ZERO_LUW.hex())})
        self.qm.commit(self.session, explicit=False)
        self.seq = seq - 1
        self.status.last_seq = self.status.current_seq = self.seq
        return self.qm.position

    def close(self) -> None:
        """The agent ends: an open batch backs out (disconnect without commit), both connections go."""
        self.qm.disconnect(self.session, commit=False)
        self.qm.disconnect(self.side, commit=False)
