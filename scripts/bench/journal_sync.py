#!/usr/bin/env python3
"""What one ``fdatasync`` of the message journal costs on this disk: a segment that grows as it is
written against one preallocated (zeros written and synced once) and overwritten in place.

Two parts, both in a fresh directory under ``--data-parent`` (default /tmp, the disk a server's data
directory is on; /dev/shm would measure nothing):

* files: a record of ``--sizes`` bytes written, then ``fdatasync``, ``--syncs`` times, into a file
  opened O_APPEND (it grows: each sync also commits the new size, a metadata write), into one written
  with zeros first (data only), and into one given its blocks by ``posix_fallocate`` (unwritten
  extents: the first write to each converts it);
* journal: registry/storage/journal.py itself, each group 4 persistent puts of 1 KiB and 4 deletes (a
  group commit's usual size at 16 connections), appended then synced, without a spare (the segment
  grows) and after ``prepare_spare`` (the segment is the preallocated spare, decision JN6);
* wal: registry/storage/sqlite.py's SQLite WAL, each group what a Create Subscription with a managed
  destination writes (the subscription and its queue), written then synced, on a new queue manager's
  store: the WAL growing with each transaction (before decision JN11) and with the zeros the server's
  writer thread keeps ahead of it (``prepare_wal`` between groups, outside the timed sync).

Per case: the sync's wall time (p50, p90) and this process's system CPU per sync.  Rounds alternate
the order of the cases; every round is printed (the disk is shared: compare within a round).

    python scripts/bench/journal_sync.py
    python scripts/bench/journal_sync.py --rounds 6 --syncs 1000 --sizes 2048,16384
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import tempfile
import time

_MIB = 1 << 20


def _timed_syncs(fd: int, write, count: int) -> tuple[float, float, float]:
    """p50 and p90 of ``count`` syncs (ms) after ``write(i)`` each, and system CPU per sync (µs)."""
    times = []
    before = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    for i in range(count):
        write(i)
        t0 = time.perf_counter()
        os.fdatasync(fd)
        times.append(time.perf_counter() - t0)
    system = resource.getrusage(resource.RUSAGE_SELF).ru_stime - before
    times.sort()
    return times[len(times) // 2] * 1e3, times[int(len(times) * 0.9)] * 1e3, system / count * 1e6


def file_case(directory: pathlib.Path, mode: str, size: int, count: int) -> tuple[float, float, float]:
    path = directory / f"{mode}-{size}"
    span = size * (count + 1)
    if mode == "growing":
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    else:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        if mode == "zeroed":
            zeros = bytes(_MIB)
            for start in range(0, span, _MIB):
                os.write(fd, zeros[:min(_MIB, span - start)])
        else:
            os.posix_fallocate(fd, 0, span)
        os.fsync(fd)
    record = os.urandom(size)
    try:
        if mode == "growing":
            return _timed_syncs(fd, lambda i: os.write(fd, record), count)
        return _timed_syncs(fd, lambda i: os.pwrite(fd, record, i * size), count)
    finally:
        os.close(fd)
        path.unlink()


def journal_case(directory: pathlib.Path, preallocated: bool, count: int) -> tuple[float, float, float]:
    from qmlite.registry.storage import journal as J

    body, md = os.urandom(1024), os.urandom(364)

    def group(seq: int) -> list[tuple]:
        puts = [(J.PUT, seq + i, "DEV.QUEUE.1", 0, os.urandom(24), bytes(24), time.time(), None, md, body, None)
                for i in range(4)]
        return puts + [(J.DELETE, seq - 4 + i) for i in range(4)]

    sub = pathlib.Path(tempfile.mkdtemp(dir=directory))
    journal = J.Journal(sub, fsync=True)
    try:
        journal.append(group(8))  # the first segment: a new file
        if preallocated:
            journal.prepare_spare()
            journal.append(group(16))  # takes the spare
            if not journal._preallocated:
                raise SystemExit("the journal did not take its spare")
        os.fdatasync(journal._fd)
        return _timed_syncs(journal._fd, lambda i: journal.append(group(24 + 8 * i)), count)
    finally:
        journal.close()
        shutil.rmtree(sub)


def wal_case(directory: pathlib.Path, room: bool, count: int) -> tuple[float, float, float]:
    from qmlite.registry.objects.definitions import Queue, Subscription
    from qmlite.registry.storage import sqlite as SQ

    sub = pathlib.Path(tempfile.mkdtemp(dir=directory))
    store = SQ.Store.open(sub)  # synchronous FULL, as a server's

    def create(i: int) -> None:
        if room:
            store.prepare_wal()  # the writer thread's maintenance between commits (a no-op unless due)
        name = f"SYSTEM.MANAGED.DURABLE.{i:016X}"
        store.put(Queue(name, description="a managed queue"))
        store.put(Subscription(f"BENCH.{i}", i.to_bytes(24, "little"), topic_string="bench/topic",
                               resolved_topic="bench/topic", destination=name))
        pending, _ = store.take()
        store.write(pending)

    try:
        create(0)
        store.sync()
        fd = os.open(f"{store.path}-wal", os.O_RDONLY)
        try:
            return _timed_syncs(fd, lambda i: create(i + 1), count)
        finally:
            os.close(fd)
    finally:
        store.close()
        shutil.rmtree(sub)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--syncs", type=int, default=600, help="syncs per case and round (default 600)")
    ap.add_argument("--rounds", type=int, default=4, help="rounds, alternating the order of the cases (default 4)")
    ap.add_argument("--sizes", default="2048,16384", help="record sizes of the file cases (default 2048,16384)")
    ap.add_argument("--data-parent", type=pathlib.Path, default=pathlib.Path("/tmp"),
                    help="where the scratch directory goes (default /tmp)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    cases = [("file", mode, size) for size in sizes for mode in ("growing", "zeroed", "fallocate")]
    cases += [("journal", mode, 0) for mode in ("growing", "preallocated")]
    cases += [("wal", mode, 0) for mode in ("growing", "room")]
    directory = pathlib.Path(tempfile.mkdtemp(prefix="qmlite-journal-sync-", dir=args.data_parent))
    print(f"# journal_sync {time.strftime('%Y-%m-%d %H:%M:%S %Z')} | {args.syncs} syncs per case | in {directory}")
    try:
        for r in range(args.rounds):
            for kind, mode, size in (cases if r % 2 == 0 else cases[::-1]):
                if kind == "file":
                    p50, p90, system = file_case(directory, mode, size, args.syncs)
                    label = f"file {size:>6} B {mode}"
                elif kind == "journal":
                    p50, p90, system = journal_case(directory, mode == "preallocated", args.syncs)
                    label = f"journal group {mode}"
                else:
                    p50, p90, system = wal_case(directory, mode == "room", args.syncs)
                    label = f"wal create sub {mode}"
                print(f"round {r + 1}: {label:<28} fdatasync p50 {p50:.3f} ms, p90 {p90:.3f} ms, "
                      f"system CPU {system:.0f} µs per sync", flush=True)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
