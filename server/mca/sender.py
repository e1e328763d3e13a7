"""The sending end of a message channel as a protocol object (SDR, SVR): it opens the ID exchange, sends
messages, batch ends, RESYNC/RESET/PING and heartbeats when the driver asks, and turns the receiver's
answers into events (docs/channels.md "The flows").  No sockets, no trio, no queue manager.

The ID exchange (flows.py): this end starts it (``start``) when it connected (SDR, SVR with a CONNAME),
or answers a requester's (a SVR or SDR the requester reached, decision MCS2).
"""

from __future__ import annotations

from qmlite.pcf import fap
from qmlite.pcf import msgchannel as MCF

from qmlite.server.mca.flows import AWAIT_ID, CLOSED, RUNNING, Closed, Confirmed, Flows


class SenderProtocol(Flows):
    def __init__(self, offer: MCF.Offer, clock) -> None:
        super().__init__(offer, clock)
        self.awaiting_confirm = False
        self.awaiting_heartbeat = False
        self.pings: list[bytes] = []  # PING CHANNEL answers received
        self._heartbeat_asked = 0.0
        self.heartbeat_times: list[float] = []  # seconds from each heartbeat request to its answer (NETTIME)

    def _cut(self) -> bool:
        return self.awaiting_confirm

    def _segment(self, segment: fap.Segment) -> None:
        t = segment.segment_type
        if segment.header.StructId != fap.TSH:
            self.fail(fap.PROTOCOL_SEGMENT_ERROR)
            return
        if t == fap.STATUS_DATA:
            self._status_segment(segment)
        elif self.state == AWAIT_ID:
            if t == fap.INITIAL_DATA:
                self._id_segment(segment)
            else:
                self.fail(fap.PROTOCOL_SEGMENT_TYPE)
        elif t == fap.PING_DATA:
            self.pings.append(MCF.PingData.unpack(segment.body, 0, segment.order)[0].Data)
        elif t == fap.HEARTBEAT:
            level = self.agreed.fap_level if self.agreed else MCF.MESSAGE_CHANNEL_FAP
            if self.awaiting_heartbeat and not fap.is_heartbeat_request(segment.header.ControlFlags1, level):
                self.heartbeat_times.append(self.clock() - self._heartbeat_asked)  # our request's answer
            self.awaiting_heartbeat = False
            self._heartbeat(segment)
        else:
            self.fail(fap.PROTOCOL_ID_ERROR if t == fap.INITIAL_DATA else fap.PROTOCOL_SEGMENT_TYPE)

    def _status_segment(self, segment: fap.Segment) -> None:
        status = self._status(segment)
        flags = segment.header.ControlFlags1
        if status.ReturnCode == 0 and not flags & (fap.CF1_CLOSE_CHANNEL | fap.CF1_ERROR) and self.state == RUNNING:
            self.awaiting_confirm = False
            self._events.append(Confirmed(status.Value or 0, segment.header.LUWIdent))
            return
        self._close(Closed(status.ReturnCode, by_peer=True, cut=self._cut(), value=status.Value))

    # ---- what the driver sends ------------------------------------------------------------------------
    def _running(self) -> None:
        if self.state != RUNNING:
            raise RuntimeError(f"the channel is {self.state}")

    def send_message(self, seq: int, message: bytes, luw: bytes, *, confirm: bool = False) -> None:
        self._running()
        self._send(*MCF.message_segments(seq, message, luw=luw, confirm=confirm,
                                        max_transmission_size=self.agreed.max_transmission_size))
        self.awaiting_confirm = confirm

    def end_batch(self, luw: bytes) -> None:
        """Ask the receiver to commit the batch ``luw`` (its messages already went)."""
        self._running()
        self._send(MCF.batch_end(luw))
        self.awaiting_confirm = True

    def resync(self, seq: int, luw: bytes) -> None:
        """At start: what this end committed last, or its in-doubt batch; answered by a Confirmed naming
        what the receiver committed last."""
        self._running()
        self._send(MCF.sequence_segment(fap.RESYNC_DATA, seq, luw))
        self.awaiting_confirm = True

    def reset(self, seq: int) -> None:
        self._running()
        self._send(MCF.sequence_segment(fap.RESET_DATA, seq))
        self.awaiting_confirm = True

    def ping(self, data: bytes) -> None:
        self._running()
        self._send(MCF.ping_segment(data))

    def on_timer(self, now: float) -> float | None:
        """Heartbeats: with no batch open, a heartbeat request every HBINT of silence.  Returns when to
        be asked again (None: no heartbeats)."""
        if self.state != RUNNING or not self.agreed or self.agreed.heartbeat_interval <= 0:
            return None
        due = self.last_sent + self.agreed.heartbeat_interval
        if now >= due and not self.awaiting_confirm:
            self.heartbeat_request()
            due = self.last_sent + self.agreed.heartbeat_interval
        return due

    def heartbeat_request(self) -> None:
        """A HEARTBEAT request: the partner answers it (``awaiting_heartbeat`` clears when it does).
        Between batches every HBINT; before a batch's end after BATCHHB of silence (decision MCS6)."""
        self._running()
        self._send(fap.heartbeat(struct_id=fap.TSH, fap_level=self.agreed.fap_level))
        self.awaiting_heartbeat = True
        self._heartbeat_asked = self.last_sent

    def take_heartbeat_times(self) -> list[float]:
        """The round trips of the heartbeats answered since the last call (the driver's NETTIME samples)."""
        times, self.heartbeat_times = self.heartbeat_times, []
        return times


__all__ = ["SenderProtocol", "CLOSED", "RUNNING"]
