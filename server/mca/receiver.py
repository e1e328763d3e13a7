"""The receiving end of a message channel as a protocol object (RCVR, RQSTR): bytes in, events out, the
answers it owes out (docs/channels.md "The flows").  The driver commits what the events carry through
registry/channels/receivingend.py and calls ``confirm`` once that is on disk.

State table (a segment in a state where it is not allowed gets the answer in its cell, then the close):

=================  =======================  ==============================  ======================
state \\ segment    INITIAL_DATA             MESSAGE_DATA, RESYNC, RESET,    STATUS
                                            PING, HEARTBEAT
=================  =======================  ==============================  ======================
awaiting ID        negotiate; ERROR reply    STATUS PROTOCOL_SEGMENT_TYPE    Closed (by the peer)
                   (stay, <= 3 rounds) or
                   accepted: running
running            STATUS PROTOCOL_ID_ERROR  events; PING echoed, HEARTBEAT  Closed (by the peer)
                                            answered
=================  =======================  ==============================  ======================
"""

from __future__ import annotations

from qmlite.pcf import fap
from qmlite.pcf import msgchannel as MCF

from qmlite.server.mca.flows import (AWAIT_ID, BatchEnded, Closed, Flows, MessageReceived, ResetRequested,
                                     ResyncRequested)


class ReceiverProtocol(Flows):
    def __init__(self, offer: MCF.Offer, clock) -> None:
        super().__init__(offer, clock)
        self._assembler: MCF.MessageAssembler | None = None
        self.batch_open = False  # a message of a batch arrived and its end has not

    def _cut(self) -> bool:
        return self.batch_open or (self._assembler is not None and self._assembler.open)

    def _segment(self, segment: fap.Segment) -> None:
        t = segment.segment_type
        if segment.header.StructId != fap.TSH:
            self.fail(fap.PROTOCOL_SEGMENT_ERROR)  # a message channel is never multiplexed
            return
        if t == fap.STATUS_DATA:
            status = self._status(segment)
            self._close(Closed(status.ReturnCode, by_peer=True, cut=self._cut(), value=status.Value))
            return
        if self.state == AWAIT_ID:
            if t != fap.INITIAL_DATA:
                self.fail(fap.PROTOCOL_SEGMENT_TYPE)
                return
            self._id_segment(segment)  # a sender's, or the answer to a requester's (``start``)
            return
        if t == fap.INITIAL_DATA:
            self.fail(fap.PROTOCOL_ID_ERROR)
        elif t == fap.MESSAGE_DATA:
            self._message(segment)
        elif t in (fap.RESYNC_DATA, fap.RESET_DATA):
            body = MCF.SequenceData.unpack(segment.body, 0, segment.order)[0]
            if t == fap.RESYNC_DATA:
                self._events.append(ResyncRequested(body.SeqNum, segment.header.LUWIdent))
            else:
                self._events.append(ResetRequested(body.SeqNum))
        elif t == fap.PING_DATA:
            ping = MCF.PingData.unpack(segment.body, 0, segment.order)[0]
            self._send(MCF.ping_segment(ping.Data, reply=True))
        elif not self._heartbeat(segment):
            self.fail(fap.PROTOCOL_SEGMENT_TYPE)

    def _agreed(self, agreed: MCF.Agreed) -> None:
        self._assembler = MCF.MessageAssembler(agreed.max_msg_length + 428)  # the MQXQH travels with it
        super()._agreed(agreed)

    def _message(self, segment: fap.Segment) -> None:
        flags = segment.header.ControlFlags1
        if not segment.body and not flags & (fap.CF1_FIRST | fap.CF1_LAST):
            if flags & fap.CF1_CONFIRM_REQUEST:  # a batch end after its last message (MCF.batch_end)
                self.batch_open = False
                self._events.append(BatchEnded(segment.header.LUWIdent))
            return
        message = self._assembler.feed(segment)
        if message is None:
            return
        self.batch_open = True
        self._events.append(MessageReceived(message.seq, message.data, message.luw))
        if message.confirm:
            self.batch_open = False
            self._events.append(BatchEnded(message.luw))

    # ---- what the driver answers ----------------------------------------------------------------------
    def confirm(self, last_seq: int, luw: bytes) -> None:
        """The batch (or the resync, or the reset) is committed and on disk."""
        self._send(MCF.confirm(last_seq, luw))

    def refuse_sequence(self, expected: int) -> None:
        """AMQ9526: STATUS MSG_SEQUENCE_ERROR with the number expected, and the close."""
        self.fail(fap.MSG_SEQUENCE_ERROR, value=expected)
