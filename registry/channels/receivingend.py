"""The receiving end of a message channel (RCVR, RQSTR): each message put where its MQXQH says, the batch
committed with the receiver's record in one unit of work (syncrecords.py), undeliverable messages to
the dead-letter queue behind an MQDLH.  No sockets, no trio (server/mca/run.py drives it).

Killed before ``commit``: the batch's puts back out at restart, the record still names the batch
before, and the sender -- which has the batch in doubt, or never sent its end -- sends it again or
backs it out.  Killed after: the record names this batch, and the sender's resync commits its side.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import errors, fap
from qmlite.pcf import mqi as S
from qmlite.pcf.msgchannel import next_seq

from qmlite.registry.channels import access
from qmlite.registry.channels import syncrecords as SR
from qmlite.registry.channels.syncrecords import cluster_record_key
from qmlite.registry.channels.mcastatus import ZERO_LUW, status_of
from qmlite.registry.channels.sendingend import MCA_USER, ChannelFailure
from qmlite.registry.errors import MQIError
from qmlite.registry.objects import channels as M

_XQH = 428
_OPEN = C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT | C.MQOO_FAIL_IF_QUIESCING


class ReceivingEnd:
    def __init__(self, qm, channel, *, partner_qmgr: str = "", conn_name: str = "", user: str = MCA_USER) -> None:
        """``user``: the MCA user CHLAUTH gave the channel (registry/channels/access.py); its puts are
        checked with its authority (PUTAUT(DEF)) or the message's user's (PUTAUT(CTX))."""
        self.qm = qm
        self.channel = channel
        self.user = user
        self.session = qm.connect(qm.registry.qmgr.name, user=MCA_USER, admin=True, appl_name="amqrmppa",
                                  channel=channel.name, conname=conn_name, appl_type=C.MQAT_QMGR)
        # A cluster-receiver is one channel name for every member sending to it: its records are kept per
        # partner, as IBM keys them (docs/decisions.md CLU6).
        self.record_key = channel.name if channel.channel_type != M.CLUSRCVR else cluster_record_key(
            channel.name, partner_qmgr)
        try:
            self.records = SR.SyncRecords(qm, self.session, self.record_key)
        except BaseException:
            self.close()
            raise
        committed = self.records.get(SR.RECEIVER) or {}
        self.last_seq = committed.get("seq", 0)
        self.last_luw = bytes.fromhex(committed.get("luw", ZERO_LUW.hex()))
        self.seq = self.last_seq  # the last message received (in this batch, when one is open)
        self._handles: dict[tuple[str, str], int] = {}
        status = self.status = status_of(qm.registry, channel)
        status.remote_qmgr, status.conn_name = partner_qmgr, conn_name
        status.last_seq = status.current_seq = self.last_seq
        status.last_luwid = self.last_luw

    def resync(self) -> tuple[int, bytes]:
        """The answer to RESYNC_DATA: the last sequence number committed and that batch's LUWID."""
        return self.last_seq, self.last_luw

    def _handle(self, queue: str, qmgr: str, user: str = "") -> int:
        key = (queue, qmgr, user)
        hobj = self._handles.get(key)
        if hobj is None:
            od = S.MQOD(ObjectName=queue, ObjectQMgrName=qmgr, AlternateUserId=user)
            handle, _ = self.qm.open_object(self.session, od, access.open_options(_OPEN, user))
            hobj = self._handles[key] = handle.hobj
        return hobj

    def accept(self, seq: int, data: bytes, now: float) -> None:
        """One message of the batch: its number must follow the last (else MSG_SEQUENCE_ERROR, the STATUS
        value the number expected); put under syncpoint (a non-persistent one with NPMSPEED(FAST) at
        once), or dead-lettered with the put's reason."""
        expected = next_seq(self.seq, self.channel.seq_number_wrap)
        if seq != expected:
            raise SequenceError(expected, seq)
        try:
            header = S.MQXQH.unpack(data, 0, "<")[0]
        except errors.CodecError as exc:
            raise ChannelFailure(fap.PROTOCOL_INVALID_DATA, f"message {seq}: {exc}") from exc
        md = header.MsgDesc
        body = data[_XQH:]
        fast = self.channel.npm_speed == C.MQNPMS_FAST and md.Persistence != C.MQPER_PERSISTENT
        options = (C.MQPMO_NO_SYNCPOINT if fast else C.MQPMO_SYNCPOINT) | C.MQPMO_SET_ALL_CONTEXT
        try:
            user = access.put_identity(self.channel, self.user, md)
            hobj = self._handle(header.RemoteQName, header.RemoteQMgrName, user)
            self.qm.put(self.session, hobj, md, S.MQPMO(Options=options), body)
        except MQIError as exc:
            self._dead_letter(header, body, exc.reason, fast)
        self.seq = seq
        status = self.status
        status.msgs += 1
        status.current_seq = seq
        status.current_msgs += 1
        status.last_msg = now

    def _dead_letter(self, header, body: bytes, reason: int, fast: bool) -> None:
        if self.channel.use_dlq != C.MQUSEDLQ_YES or not self.qm.dead_letter(
                header.MsgDesc, body, reason=reason, queue=header.RemoteQName, qmgr=header.RemoteQMgrName,
                uow=None if fast else self.session.uow):
            # IBM: a message that can be neither delivered nor dead-lettered stops the channel (AMQ9544).
            raise ChannelFailure(fap.CAN_NOT_STORE,
                                 f"AMQ9544: message to {header.RemoteQName} not put ({C.describe('MQRC', reason)})")

    def commit(self, luw: bytes) -> int:
        """The batch's end: its puts and the new record commit as one unit; returns the position the
        confirmation must wait for."""
        self.records.write(self.session, SR.RECEIVER, {"seq": self.seq, "luw": luw.hex()})
        self.qm.commit(self.session, explicit=False)
        self.last_seq, self.last_luw = self.seq, luw
        status = self.status
        status.batches += 1
        status.current_msgs = 0
        status.last_seq, status.last_luwid, status.current_luwid = self.seq, luw, luw
        return self.qm.position

    def backout(self) -> None:
        """The batch was cut off: its puts vanish."""
        self.qm.backout(self.session, explicit=False)
        self.records = SR.SyncRecords(self.qm, self.session, self.record_key)
        self.seq = self.last_seq
        self.status.current_msgs = 0
        self.status.current_seq = self.seq

    def reset(self, seq: int) -> int:
        """RESET_DATA from the sender, or RESET CHANNEL here: the next message expected is ``seq``."""
        self.records.write(self.session, SR.RECEIVER, {"seq": seq - 1, "luw": self.last_luw.hex()})
        self.qm.commit(self.session, explicit=False)
        self.last_seq = self.seq = seq - 1
        self.status.last_seq = self.status.current_seq = self.seq
        return self.qm.position

    def close(self) -> None:
        self.qm.disconnect(self.session, commit=False)


class SequenceError(ChannelFailure):
    """AMQ9526: the message's sequence number is not the one expected."""

    def __init__(self, expected: int, got: int) -> None:
        super().__init__(fap.MSG_SEQUENCE_ERROR,
                         f"AMQ9526: message sequence number {got} received, {expected} expected")
        self.expected, self.got = expected, got
