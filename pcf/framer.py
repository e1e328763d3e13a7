"""Incremental framing of a FAP byte stream, reassembly of multi-segment MQI calls, and splitting.

Sans-IO (the h11 model): the caller feeds whatever bytes arrived and gets whole segments back.

* :class:`Framer` — bytes in any chunking -> :class:`~qmlite.pcf.fap.Segment` list.  At most one
  partial segment is buffered.  A length is never trusted before it is checked: SegmentLength
  outside ``header length .. max_segment_length`` raises CodecError(STATUS 11
  PROTOCOL_LENGTH_ERROR) as soon as the 8 bytes StructId + SegmentLength are there, without
  buffering the body; a bad StructId raises as soon as its first bytes are seen.
* :class:`Reassembler` — joins FIRST / middle / LAST segments of an MQI call (docs/reference/fap.md 5.3).
* :func:`split_call` — the reverse, for calls longer than MaxTransmissionSize (defined in
  :mod:`~qmlite.pcf.fap`, which this module builds on; re-exported here).

Error codes (STATUS family):

========================================================  =============================
condition                                                 STATUS code
========================================================  =============================
SegmentLength < header length or > max_segment_length      11 PROTOCOL_LENGTH_ERROR
StructId not TSH/TSHC/TSHM                                 13 PROTOCOL_SEGMENT_ERROR
EBCDIC StructId                                            0xF0 CCSID_NOT_SUPPORTED
ByteOrder not 1/2                                          0xF1 ENCODING_INVALID
middle/LAST segment without a FIRST on that conversation   13 PROTOCOL_SEGMENT_ERROR
FIRST while a call is still open on that conversation      13 PROTOCOL_SEGMENT_ERROR
continuation of a different SegmentType than its FIRST     13 PROTOCOL_SEGMENT_ERROR
reassembled call longer than max_call_length               18 MESSAGE_LENGTH_ERROR
========================================================  =============================
"""

from __future__ import annotations

from typing import Optional

from . import errors
from . import fap
from .fap import (CF1_FIRST, CF1_LAST, PROTOCOL_LENGTH_ERROR, PROTOCOL_SEGMENT_ERROR,
                  MESSAGE_LENGTH_ERROR, Segment, SegmentHeader, TSH_LENGTH, TSHM_LENGTH)
from .fap import split_call  # noqa: F401  (re-exported: it lives in fap, beside api_reply_segments)

# Before negotiation the only legal segments are ID (at most TSHM 36 + ID 240 = 276 bytes at the
# FAP levels we know) and STATUS.  2048 leaves room for longer IDs of future FAP levels while
# keeping an unnegotiated peer from making us buffer more than 2 KiB.
INITIAL_MAX_SEGMENT_LENGTH = 2048
# Largest MaxTransmissionSize a peer can negotiate with qmlite (the real servers' 32748 plus
# slack); use as an upper bound when setting Framer.max_segment_length from an ID.
MAX_TRANSMISSION_SIZE_LIMIT = 65536

_TSHM = b"TSHM"


def _length_error(seglen: int, limit: int, hl: int, offset: int) -> errors.CodecError:
    return errors.CodecError(PROTOCOL_LENGTH_ERROR, family=errors.STATUS, offset=offset,
                             detail=f"SegmentLength {seglen} outside {hl}..{limit}")


class Framer:
    """Split a byte stream into segments.

    ``max_segment_length`` may be changed at any time (e.g. to the negotiated
    MaxTransmissionSize after the ID exchange); it applies to segments whose length has not yet
    been read.  After a CodecError the framer is dead: every later ``feed`` re-raises it.
    """

    __slots__ = ("max_segment_length", "_buf", "_need", "_error")

    def __init__(self, max_segment_length: int = INITIAL_MAX_SEGMENT_LENGTH) -> None:
        self.max_segment_length = max_segment_length
        self._buf = bytearray()  # the one partial segment (may be empty)
        self._need = 0  # its SegmentLength once known, else 0
        self._error: Optional[errors.CodecError] = None

    @property
    def buffered(self) -> int:
        """Bytes of the partial segment held."""
        return len(self._buf)

    def _fail(self, exc: errors.CodecError) -> errors.CodecError:
        self._error = exc
        self._buf = bytearray()
        self._need = 0
        return exc

    def _check_prefix(self, head, offset: int) -> int:
        """StructId + SegmentLength check on 8 bytes at ``head[offset:]``; returns SegmentLength."""
        sid = bytes(head[offset:offset + 4])
        if sid == _TSHM:
            hl = TSHM_LENGTH
        elif sid == b"TSH " or sid == b"TSHC":
            hl = TSH_LENGTH
        else:
            try:
                fap.check_struct_id(sid, offset)
            except errors.CodecError as exc:
                raise self._fail(exc) from None
            raise AssertionError("unreachable")
        seglen = int.from_bytes(head[offset + 4:offset + 8], "big")
        if seglen < hl or seglen > self.max_segment_length:
            raise self._fail(_length_error(seglen, self.max_segment_length, hl, offset + 4))
        return seglen

    def _segment(self, buf, offset: int, seglen: int) -> Segment:
        try:
            header = fap.decode_header(buf, offset)
        except errors.CodecError as exc:
            raise self._fail(exc) from None
        hl = 36 if header.StructId == "TSHM" else 28
        return Segment(header, bytes(buf[offset + hl:offset + seglen]))

    def feed(self, data) -> list[Segment]:
        """Whole segments completed by ``data`` (bytes-like), in stream order."""
        if self._error is not None:
            raise self._error
        buf = self._buf
        n = len(data)
        if not buf and n >= TSHM_LENGTH and type(data) is bytes and data[:4] == _TSHM \
                and int.from_bytes(data[4:8], "big") == n and n <= self.max_segment_length:
            # Exactly one whole TSHM segment (a multiplexed client's every call): the loop below,
            # without the loop (issue 24, decision HP3).
            try:
                header = fap.decode_header(data, 0)
            except errors.CodecError as exc:
                raise self._fail(exc) from None
            return [Segment(header, data[TSHM_LENGTH:])]
        out: list[Segment] = []
        pos = 0
        if buf:
            # Complete the partial segment first, copying only what it needs.
            have = len(buf)
            if have < 8:
                take = min(8 - have, n)
                buf += data[:take]
                pos = take
                have += take
                if have < 8:
                    self._check_partial(buf)
                    return out
                self._need = self._check_prefix(buf, 0)
            need = self._need
            take = min(need - have, n - pos)
            if take:
                buf += data[pos:pos + take]
                pos += take
            if len(buf) < need:
                return out
            out.append(self._segment(buf, 0, need))
            self._buf = buf = bytearray()
            self._need = 0
        # Parse straight from ``data``: no copy of complete segments into the buffer.
        mx = self.max_segment_length
        while pos < n:
            if n - pos < 8:
                self._check_partial(data[pos:n])
                buf += data[pos:n]
                return out
            head = data[pos:pos + 4]
            if head == _TSHM:
                hl = 36
            elif head == b"TSH " or head == b"TSHC":
                hl = 28
            else:
                self._check_prefix(data, pos)  # raises
            seglen = int.from_bytes(data[pos + 4:pos + 8], "big")
            if seglen < hl or seglen > mx:
                raise self._fail(_length_error(seglen, mx, hl, pos + 4))
            end = pos + seglen
            if end > n:
                buf += data[pos:n]
                self._need = seglen
                return out
            try:
                header = fap.decode_header(data, pos)
            except errors.CodecError as exc:
                raise self._fail(exc) from None
            out.append(Segment(header, bytes(data[pos + hl:end])))
            pos = end
        return out

    def _check_partial(self, head) -> None:
        try:
            fap.check_struct_id(bytes(head[:4]))
        except errors.CodecError as exc:
            raise self._fail(exc) from None


class Reassembler:
    """Join the segments of multi-segment MQI calls (docs/reference/fap.md 5.3), per ConversationId.

    ``add(segment)`` returns a segment to act on, or None while a call is incomplete:

    * non-MQI types (ID, STATUS, HEARTBEAT, SOCKET_ACTION, ASYNC_MESSAGE, NOTIFICATION, ...) are
      returned unchanged (their FIRST/LAST bits carry no reassembly meaning for a server);
    * an MQI segment with FIRST|LAST is returned unchanged;
    * FIRST opens a call; middles append; LAST closes it and returns one logical segment: the
      FIRST segment's header with LAST added and SegmentLength = header + all bodies (it may
      exceed MaxTransmissionSize), body = the concatenated bodies (API header from the FIRST).

    ``max_call_length`` bounds the sum of bodies of one call (API header and structures included).
    The default is qmlite's default MaxMessageSize (4 MiB) plus 64 KiB for the MQI structures
    that travel with the data.
    """

    __slots__ = ("max_call_length", "_open")

    def __init__(self, max_call_length: int = 4194304 + 65536) -> None:
        self.max_call_length = max_call_length
        self._open: dict[int, tuple[SegmentHeader, list[bytes], int]] = {}

    def pending(self, conversation_id: int) -> bool:
        return conversation_id in self._open

    def discard(self, conversation_id: int) -> None:
        """Forget a half-received call (conversation ended)."""
        self._open.pop(conversation_id, None)

    def _error(self, code: int, detail: str) -> errors.CodecError:
        return errors.CodecError(code, family=errors.STATUS, detail=detail)

    def add(self, segment: Segment) -> Optional[Segment]:
        h = segment.header
        if h.SegmentType < 0x80:
            return segment
        flags = h.ControlFlags1 & (CF1_FIRST | CF1_LAST)
        conv = h.ConversationId
        state = self._open.get(conv)
        if flags & CF1_FIRST:
            if state is not None:
                del self._open[conv]
                raise self._error(PROTOCOL_SEGMENT_ERROR,
                                  f"FIRST segment while a call is open on conversation {conv}")
            if len(segment.body) > self.max_call_length:
                raise self._error(MESSAGE_LENGTH_ERROR,
                                  f"call longer than {self.max_call_length} bytes")
            if flags & CF1_LAST:
                return segment
            self._open[conv] = (h, [segment.body], len(segment.body))
            return None
        if state is None:
            raise self._error(PROTOCOL_SEGMENT_ERROR,
                              f"continuation segment without FIRST on conversation {conv}")
        first, parts, total = state
        if h.SegmentType != first.SegmentType:
            del self._open[conv]
            raise self._error(PROTOCOL_SEGMENT_ERROR,
                              f"segment type 0x{h.SegmentType:02x} inside a 0x"
                              f"{first.SegmentType:02x} call")
        total += len(segment.body)
        if total > self.max_call_length:
            del self._open[conv]
            raise self._error(MESSAGE_LENGTH_ERROR, f"call longer than {self.max_call_length} bytes")
        parts.append(segment.body)
        if not flags & CF1_LAST:
            self._open[conv] = (first, parts, total)
            return None
        del self._open[conv]
        header = first.copy(SegmentLength=first.header_length + total,
                            ControlFlags1=first.ControlFlags1 | CF1_LAST)
        return Segment(header, b"".join(parts))
