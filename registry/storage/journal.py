"""The message journal: persistent messages' puts and deletes, appended to a file of qmlite's own.

Why (docs/decisions.md JN1): a persistent round trip wrote two SQLite transactions (an INSERT of ten
columns into a B-tree, then its DELETE), each built on the event loop.  Here a group of writes is one
record appended to a file and one ``fdatasync``; SQLite stays the base the journal is folded into,
so a restart still loads only the placing fields and reads bodies lazily from SQLite.

A journal is a sequence of segment files ``qmlite-journal-<n>`` (n counting up) in the data
directory.  Each starts with ``MAGIC``, then records::

    length: u32   crc: u32   lsn: u64   payload: length bytes (marshal of a list of operations)

``crc`` is CRC-32 of (length, lsn, payload); ``lsn`` counts the records up, across segments.  One
record is one group commit: every operation in it is applied at recovery, or none is, so a unit of
work (whose puts and deletes all land in one group) is all or nothing -- the record's CRC is its
commit marker.  A record that does not check out (short, wrong CRC, an LSN that does not follow, a
length beyond the file: nothing is ever allocated from a length read back) is a torn tail: it and
whatever follows it are dropped.  No record past it was acknowledged: a record is appended only
after the one before it was synced.  Zeros from the first record that does not check out to the end
of the file are the clean end of a preallocated segment, not a torn tail.

Segments are preallocated (docs/decisions.md JN6): a spare file (``SPARE``: ``MAGIC`` then zeros to
the segment size, synced) is made on the server's writer thread, off the event loop, and renamed to
the next segment's name when one starts.  Records then overwrite zeros inside the file instead of
growing it, so an ``fdatasync`` writes the data alone, not the file's new size as well (the
filesystem's own journal commit): on this project's machine 0.13-0.19 ms against 0.29-0.39 ms a
sync after writing 16 KiB (docs/benchmarks.md, issue 35; scripts/bench/journal_sync.py).  Until a
spare is ready a segment grows as it is written; once one is, that segment is closed early and the
spare taken.  A spare left by an earlier run is deleted, never used: a rename that did not reach the
disk before a crash may have left records in it.

Operations: ``(PUT, seq, queue, priority, msg_id, correl_id, put_time, expires_at, md, data,
props)``, ``(DELETE, seq)``, ``(CLEAR, queue)``, and ``(TIED,)`` last in a record whose unit also has a SQLite
transaction (docs/decisions.md JN14).  Each segment keeps in memory the net effect of
its operations (``NetEffect``): a put whose message was got in the same segment -- a round trip's
usual fate -- leaves nothing.  Folding applies closed segments' net effects to SQLite in durable
transactions, records the last LSN folded in SQLite's meta table in the last one, then deletes the
segment files; recovery applies what was not folded (LSN above that) the same way, so a fold cut
short is simply done again (its operations are idempotent on top of their own effect).

A put is written once per sequence number (sequence numbers grow; a restored snapshot first clears
the queue it refills), so a delete that cancels a put of the same segment needs no SQL at all.
"""

from __future__ import annotations

import marshal
import os
import pathlib
import re
import struct
import threading
import zlib

import structlog

log = structlog.get_logger("qmlite.journal")

MAGIC = b"QMLJRN01"
PREFIX = "qmlite-journal-"
SPARE = "qmlite-journal.spare"  # the next segment, preallocated (not a segment's name: never read back)
_SPARE_MAKING = SPARE + ".tmp"  # while it is written; renamed to SPARE once synced
ZEROS = bytes(1 << 20)  # what a segment (and sqlite.py's room ahead of the WAL) is preallocated with
_NAME = re.compile(re.escape(PREFIX) + r"(\d{10})\Z")
HEADER = struct.Struct("<IIQ")  # length, crc, lsn
_CRC_PREFIX = struct.Struct("<IQ")  # what the CRC covers ahead of the payload: length, lsn
MAX_RECORD = 1 << 30  # no group is this large (MaxMsgLength is 100 MB); a longer length is a torn tail
# A segment is closed (and handed to the fold) once it holds this much: the bound on what a restart
# after a crash replays, and on how much one fold writes.  QMLITE_JOURNAL_SEGMENT_BYTES overrides it
# (the crash tests make segments tiny, so folds run under load all the time).
SEGMENT_BYTES = 16 << 20

PUT, DELETE, CLEAR = 1, 2, 3
# The last operation of a record written with a SQLite transaction of its own (definitions and messages changed in
# one unit: a restored snapshot, a queue deleted with its messages).  The record is appended first and the
# transaction then stores its LSN (meta ``journal_tied``); a record so marked whose LSN that never reached was cut
# off by a crash between the two, and recovery drops it with whatever follows, as a torn tail: all or nothing.
TIED = 4
_NUMBER = (int, float)  # a test's clock may give whole seconds
_PUT_TYPES = (int, int, str, int, bytes, bytes, _NUMBER, (*_NUMBER, type(None)), bytes, bytes, (bytes, type(None)))


class JournalError(Exception):
    pass


class NetEffect:
    """What a run of operations leaves, relative to the state before it: rows to delete by sequence
    number, queues to empty, and rows (the surviving puts) to write afterwards."""

    __slots__ = ("puts", "deletes", "clears", "strict")

    def __init__(self, *, strict: bool = False) -> None:
        self.puts: dict[int, tuple] = {}
        self.deletes: set[int] = set()
        self.clears: set[str] = set()
        # strict: a delete is kept even when it cancels a put seen here, because that put may be in
        # SQLite already (a fold cut short); what recovery and the fold's merge of segments need.
        # Within one segment's own run (not strict) a cancelled put never reached SQLite.
        self.strict = strict

    def __bool__(self) -> bool:
        return bool(self.puts or self.deletes or self.clears)

    def apply(self, ops) -> None:
        puts = self.puts
        for op in ops:
            kind = op[0]
            if kind == PUT:
                puts[op[1]] = op
            elif kind == DELETE:
                if puts.pop(op[1], None) is None or self.strict:
                    self.deletes.add(op[1])
            elif kind == CLEAR:
                self._clear(op[1])
            elif kind != TIED:
                raise JournalError(f"unknown journal operation {kind!r}")

    def _clear(self, queue: str) -> None:
        puts = self.puts
        for seq in [seq for seq, op in puts.items() if op[2] == queue]:
            del puts[seq]
        self.clears.add(queue)

    def merge(self, later: NetEffect) -> None:
        """Fold the effect of a later run into this one (strictly: an earlier segment's put may be
        in SQLite from a fold cut short, so a later delete of it is always kept)."""
        puts = self.puts
        for seq in later.deletes:
            puts.pop(seq, None)
            self.deletes.add(seq)
        for queue in later.clears:
            self._clear(queue)
        puts.update(later.puts)


def valid_op(op) -> bool:
    """The shape of an operation read back (recovery trusts nothing it did not check)."""
    if type(op) is not tuple or not op or type(op[0]) is not int:
        return False
    if op[0] == PUT:
        return len(op) == len(_PUT_TYPES) and all(isinstance(v, t) and type(v) is not bool
                                                  for v, t in zip(op, _PUT_TYPES))
    if op[0] == DELETE:
        return len(op) == 2 and type(op[1]) is int
    if op[0] == CLEAR:
        return len(op) == 2 and type(op[1]) is str
    if op[0] == TIED:
        return len(op) == 1
    return False


def encode(lsn: int, ops: list[tuple]) -> bytes:
    payload = marshal.dumps(ops, 4)
    length = len(payload)
    crc = zlib.crc32(payload, zlib.crc32(_CRC_PREFIX.pack(length, lsn)))
    return HEADER.pack(length, crc, lsn) + payload


def read_records(data, after_lsn: int = -1):
    """The records of one segment's bytes, as (lsn, ops), up to the first that does not check out;
    then ``(None, offset)`` if anything (a torn tail) was left over.  ``after_lsn``: the LSN the
    first record must exceed (records must count up)."""
    view = memoryview(data)
    size = len(view)
    if size < len(MAGIC) or bytes(view[:len(MAGIC)]) != MAGIC:
        yield None, 0
        return
    pos = len(MAGIC)
    last = after_lsn
    while pos < size:
        if size - pos < HEADER.size:
            break
        length, crc, lsn = HEADER.unpack_from(view, pos)
        start = pos + HEADER.size
        if length > MAX_RECORD or length > size - start or lsn <= last:
            break
        payload = view[start:start + length]
        if zlib.crc32(payload, zlib.crc32(_CRC_PREFIX.pack(length, lsn))) != crc:
            break
        try:
            ops = marshal.loads(payload)
        except (ValueError, EOFError, TypeError):
            break
        if type(ops) is not list or not all(valid_op(op) for op in ops):
            break
        yield lsn, ops
        last = lsn
        pos = start + length
    if pos < size and not _zeros(view[pos:]):  # zeros to the end: a preallocated segment's clean end
        yield None, pos


def _zeros(view: memoryview) -> bool:
    return bytes(view).count(0) == len(view)


class Journal:
    """The segment files of one data directory: appending (the event loop's thread), syncing (the
    writer thread, never at the same time as an append: group commit alternates them), and the
    closed segments a fold takes."""

    def __init__(self, directory: pathlib.Path, *, fsync: bool = True, segment_bytes: int | None = None) -> None:
        self.directory = pathlib.Path(directory)
        self.fsync = fsync
        if segment_bytes is None:
            segment_bytes = int(os.environ.get("QMLITE_JOURNAL_SEGMENT_BYTES", SEGMENT_BYTES))
        self.segment_bytes = max(1, segment_bytes)
        self.lsn = 0  # the last LSN written (or recovered)
        self._fd: int | None = None
        self._number = 0  # of the current segment
        self._size = 0
        self._current = NetEffect()
        self._current_first = 0  # the current segment's first LSN (0: none yet)
        self._dir_dirty = False
        self._dirty = False
        self._preallocated = False  # whether the current segment is a spare taken (written in place)
        self._spare_ready = False  # set by the writer thread once SPARE is whole; cleared when taken
        self._spare_failed = False  # a spare could not be made: not again until the next segment
        self._lock = threading.Lock()  # guards ``_closed``, which the fold reads on another thread
        # closed segments, oldest first: (path, net effect, last LSN)
        self._closed: list[tuple[pathlib.Path, NetEffect, int]] = []

    # ---- recovery --------------------------------------------------------------------------------
    def segments(self) -> list[tuple[int, pathlib.Path]]:
        found = []
        for path in self.directory.iterdir():
            m = _NAME.match(path.name)
            if m:
                found.append((int(m.group(1)), path))
        return sorted(found)

    def recover(self, folded_lsn: int, tied_lsn: int = 0) -> tuple[NetEffect, int, list[pathlib.Path]]:
        """The net effect of every record after ``folded_lsn`` in the segments on disk, the last LSN
        seen, and the segment files (to delete once that effect is folded).  Stops at the first
        record that does not check out (a torn tail): nothing after it is applied.  ``tied_lsn``: the
        last record marked ``TIED`` whose SQLite transaction committed; a later one marked so is a torn
        tail too (its transaction never committed)."""
        effect = NetEffect(strict=True)  # a fold cut short may have written some of these rows
        last = folded_lsn
        paths = []
        seen = -1
        torn = False
        for name in (SPARE, _SPARE_MAKING):  # never used: a segment's records may be in it (see above)
            try:
                (self.directory / name).unlink()
            except FileNotFoundError:
                pass
        for number, path in self.segments():
            paths.append(path)
            self._number = max(self._number, number)
            if torn:
                continue  # after a torn record nothing counts (none of it was acknowledged)
            with open(path, "rb") as f:
                data = f.read()  # the file's own size: a bound we trust
            for lsn, ops in read_records(data, seen):
                if lsn is None:
                    torn = True
                    log.warning("journal_torn_tail", segment=path.name, offset=ops, size=len(data))
                    break
                if lsn > tied_lsn and ops and ops[-1][0] == TIED and lsn > folded_lsn:
                    torn = True  # its SQLite half never committed: neither half happened
                    log.warning("journal_untied_record", segment=path.name, lsn=lsn, tied=tied_lsn)
                    break
                seen = lsn
                if lsn > folded_lsn:
                    effect.apply(ops)
                last = max(last, lsn)
        self.lsn = last
        return effect, last, paths

    # ---- appending (one thread) ------------------------------------------------------------------
    def append(self, ops: list[tuple]) -> None:
        """Write one record for ``ops`` (not yet synced)."""
        if self._fd is None or self._size >= self.segment_bytes or (self._spare_ready and not self._preallocated):
            self._rotate()
        self.lsn += 1
        record = encode(self.lsn, ops)
        view = memoryview(record)
        at = self._size
        while view:
            written = os.pwrite(self._fd, view, at)
            view = view[written:]
            at += written
        self._size = at
        self._current.apply(ops)
        self._dirty = True

    def _rotate(self) -> None:
        """Close the current segment (its effect goes to the fold) and start the next one."""
        self.close_current()
        self._number += 1
        path = self.directory / f"{PREFIX}{self._number:010d}"
        self._preallocated = self._spare_ready
        self._spare_failed = False
        if self._spare_ready:
            os.rename(self.directory / SPARE, path)  # MAGIC and zeros, synced
            self._spare_ready = False  # the writer thread may make the next one now
            self._fd = os.open(path, os.O_WRONLY)
        else:
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.write(self._fd, MAGIC)
        self._size = len(MAGIC)
        self._dir_dirty = True  # the new name's directory entry must be durable with its first sync

    # ---- the spare segment (the writer thread) ---------------------------------------------------
    @property
    def spare_wanted(self) -> bool:
        """Whether ``prepare_spare`` has work: segments are being written and synced, and no spare
        is ready (a server that never writes a persistent message never makes one)."""
        return self.fsync and self._fd is not None and not self._spare_ready and not self._spare_failed

    def prepare_spare(self) -> None:
        """Make the spare: ``MAGIC`` and zeros to the segment size, synced, then renamed to ``SPARE``.
        Off the event loop (16 MiB of writes); only ever one thread at a time calls it."""
        if not self.spare_wanted:
            return
        making = self.directory / _SPARE_MAKING
        try:
            fd = os.open(making, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, MAGIC)
                left = max(0, self.segment_bytes - len(MAGIC))
                while left:
                    left -= os.write(fd, ZEROS[:min(left, len(ZEROS))])
                os.fsync(fd)  # data and size: the records' syncs will be data alone
            finally:
                os.close(fd)
            os.rename(making, self.directory / SPARE)
        except OSError as exc:  # a segment grows as it is written, as before: slower syncs, nothing lost
            self._spare_failed = True
            log.warning("journal_spare_failed", reason=str(exc))
            return
        self._spare_ready = True

    def close_current(self) -> None:
        if self._fd is None:
            return
        path = self.directory / f"{PREFIX}{self._number:010d}"
        if self._dirty and self.fsync:
            os.fdatasync(self._fd)  # a closed segment is whole on disk (group commit synced it already)
        os.close(self._fd)
        self._fd = None
        self._dirty = False
        effect, self._current = self._current, NetEffect()
        with self._lock:
            self._closed.append((path, effect, self.lsn))

    def sync_plan(self) -> list[str]:
        """What makes every record appended so far durable (registry/storage/fsync.py): one
        ``fdatasync`` of the current segment, and its directory entry once for a new one."""
        if not self._dirty:
            return []
        self._dirty = False
        if not self.fsync or self._fd is None:
            return []
        plan = ["f" + str(self.directory / f"{PREFIX}{self._number:010d}")]
        if self._dir_dirty:
            self._dir_dirty = False
            plan.append("d" + str(self.directory))
        return plan

    # ---- folding (any thread) --------------------------------------------------------------------
    @property
    def has_closed(self) -> bool:
        return bool(self._closed)  # a glance (len is atomic); ``closed`` takes the list properly

    def closed(self) -> list[tuple[pathlib.Path, NetEffect, int]]:
        with self._lock:
            return list(self._closed)

    def folded(self, upto: list[tuple[pathlib.Path, NetEffect, int]]) -> None:
        """These closed segments are in SQLite now: their files go."""
        with self._lock:
            del self._closed[:len(upto)]
        remove_files([path for path, _, _ in upto], self.directory)

    @property
    def size(self) -> int:
        return self._size

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        for name in (SPARE, _SPARE_MAKING):  # a clean close leaves no journal files
            try:
                (self.directory / name).unlink()
            except FileNotFoundError:
                pass


def remove_files(paths: list[pathlib.Path], directory: pathlib.Path) -> None:
    for path in paths:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
    # Not needed for correctness (a segment that comes back holds only LSNs already folded); it keeps
    # a crash from leaving files to read again.
    if paths:
        fsync_dir(directory)


def fsync_dir(directory: pathlib.Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
