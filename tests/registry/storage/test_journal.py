"""The message journal (registry/storage/journal.py): its reader on damaged files, and the store's
journal + fold against the general path (every operation applied to the messages table in order).

* A segment cut anywhere, or with any byte changed, reads back as exactly the records before the
  damage; a length read back is never trusted (no allocation from it).
* A preallocated segment: zeros after the last record are its clean end (no torn tail); a record cut
  short or damaged before them still stops replay there.  Its records are written in place (the file
  never grows), and a spare left by an earlier run is deleted, never used.
* Any sequence of puts, deletes and queue clears, in any grouping, with segments closing and folds
  running at any point, and the store abandoned (a crash) and reopened at any point, leaves the
  messages table holding exactly what applying each operation in order gives.
* A fold writes in transactions of at most ``_FOLD_ROWS`` rows.
* A restart after a crash with a large journal (a process that exits without closing) finds every
  message, in order, and reads bodies lazily.
"""

from __future__ import annotations

import os
import pathlib
import sqlite3
import subprocess
import sys
import textwrap
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qmlite.registry.messaging.queues import Message
from qmlite.registry.storage import journal as J
from qmlite.registry.storage import sqlite as SQ

ROOT = pathlib.Path(__file__).resolve().parents[3]

# ---- the reader ------------------------------------------------------------------------------------

put_ops = st.builds(
    lambda seq, q, prio, put_time, exp, data, props: (
        J.PUT, seq, q, prio, bytes([seq % 256]) * 24, bytes(24), put_time, exp, b"MD  " + bytes(32), data, props),
    st.integers(1, 2**40), st.sampled_from(["Q.A", "Q.B", "Q.\u00e9"]), st.integers(0, 9),
    st.floats(0, 2e9, allow_nan=False), st.one_of(st.none(), st.floats(0, 2e9, allow_nan=False)),
    st.binary(max_size=64), st.one_of(st.none(), st.binary(max_size=16)))
ops = st.one_of(put_ops, st.builds(lambda s: (J.DELETE, s), st.integers(1, 2**40)),
                st.builds(lambda q: (J.CLEAR, q), st.sampled_from(["Q.A", "Q.B"])))
batches = st.lists(st.lists(ops, min_size=1, max_size=5), min_size=1, max_size=8)


def segment(records: list[list[tuple]], first_lsn: int = 1) -> tuple[bytes, list[int]]:
    """A segment's bytes and where each record ends."""
    data = bytearray(J.MAGIC)
    ends = []
    for i, record in enumerate(records):
        data += J.encode(first_lsn + i, record)
        ends.append(len(data))
    return bytes(data), ends


def read(data: bytes) -> tuple[list[list[tuple]], int | None]:
    got, torn = [], None
    for lsn, record in J.read_records(data):
        if lsn is None:
            torn = record
        else:
            got.append(record)
    return got, torn


@given(batches)
def test_an_intact_segment_reads_back_every_record(records):
    data, _ = segment(records)
    assert read(data) == (records, None)


# Positions are drawn as numbers reduced modulo the segment's length: marshal's output for equal
# values may differ in length (it shares objects by reference count), so a strategy built from the
# length would not replay.
@given(batches, st.integers(0, 2**32))
def test_a_segment_cut_anywhere_reads_back_the_records_before_the_cut(records, where):
    blob, ends = segment(records)
    cut = where % len(blob)
    got, torn = read(blob[:cut])
    whole = sum(1 for end in ends if end <= cut)
    assert got == records[:whole]
    if cut < len(J.MAGIC):
        assert torn == 0  # not even a header: nothing is read
    else:
        assert (torn is None) == (cut in ends or cut == len(J.MAGIC))


@given(batches, st.integers(0, 2**32), st.integers(1, 255))
def test_a_changed_byte_drops_its_record_and_everything_after(records, where, delta):
    blob, ends = segment(records)
    at = len(J.MAGIC) + where % (len(blob) - len(J.MAGIC))
    damaged = bytearray(blob)
    damaged[at] ^= delta
    got, torn = read(bytes(damaged))
    hit = next(i for i, end in enumerate(ends) if at < end)
    assert got == records[:hit]
    assert torn == ([len(J.MAGIC)] + ends)[hit]


@given(st.binary(max_size=200))
def test_garbage_never_raises(garbage):
    got, torn = read(J.MAGIC + garbage)
    assert got == [] or torn is None or torn >= len(J.MAGIC)
    assert read(garbage)[0] == [] or garbage.startswith(J.MAGIC)


def test_a_huge_length_read_back_allocates_nothing():
    blob, _ = segment([[(J.DELETE, 1)]])
    liar = J.HEADER.pack(0xFFFF_FFF0, 0, 2) + b"x" * 100  # claims 4 GiB
    tracemalloc.start()
    try:
        got, torn = read(blob + liar)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == [[(J.DELETE, 1)]] and torn == len(blob)
    assert peak < 64 * 1024


def test_records_must_count_up_and_have_the_right_shape():
    good = J.encode(1, [(J.DELETE, 5)])
    again = J.encode(1, [(J.DELETE, 6)])  # an LSN that does not follow
    assert read(J.MAGIC + good + again) == ([[(J.DELETE, 5)]], len(J.MAGIC) + len(good))
    for bad in ([(J.DELETE, "5")], [(9, 1)], [(J.PUT, 1)], [(J.CLEAR, 3)], [[J.DELETE, 1]], [(J.DELETE, True)]):
        assert read(J.MAGIC + J.encode(1, bad)) == ([], len(J.MAGIC)), bad
    import marshal
    assert not J.valid_op(marshal.loads(marshal.dumps((J.DELETE,))))


@given(batches, st.integers(0, 2**32), st.integers(0, 4096))
def test_zeros_after_a_cut_are_a_clean_end_only_where_a_record_ended(records, where, pad):
    """A preallocated segment cut anywhere (the rest still zeros): the records before the cut, and a
    torn tail exactly when bytes of a record cut short reached the file."""
    blob, ends = segment(records)
    cut = len(J.MAGIC) + where % (len(blob) - len(J.MAGIC) + 1)
    data = blob[:cut] + bytes(pad)
    # A record is whole when its bytes are there: those cut off may be zeros the padding gives back.
    whole = sum(1 for end in ends if data[:end] == blob[:end])
    got, torn = read(data)
    assert got == records[:whole]
    last_end = ([len(J.MAGIC)] + ends)[whole]
    assert torn == (last_end if any(data[last_end:]) else None)


@given(batches, st.integers(0, 2**32), st.integers(1, 255), st.integers(0, 4096))
def test_a_changed_byte_before_a_zeroed_tail_still_stops_replay(records, where, delta, pad):
    blob, ends = segment(records)
    at = len(J.MAGIC) + where % (len(blob) - len(J.MAGIC))
    damaged = bytearray(blob)
    damaged[at] ^= delta
    got, torn = read(bytes(damaged) + bytes(pad))
    hit = next(i for i, end in enumerate(ends) if at < end)
    assert got == records[:hit]
    assert torn == ([len(J.MAGIC)] + ends)[hit]


def test_a_preallocated_segment_is_written_in_place_and_recovers_without_a_torn_tail(tmp_path):
    import structlog

    journal = J.Journal(tmp_path, fsync=True, segment_bytes=64 << 10)
    journal.append([(J.DELETE, 1)])  # no spare yet: the first segment grows as it is written
    first = tmp_path / f"{J.PREFIX}{1:010d}"
    assert first.stat().st_size < 64 << 10 and journal.spare_wanted
    journal.prepare_spare()
    assert (tmp_path / J.SPARE).stat().st_size == 64 << 10 and not journal.spare_wanted
    journal.append([(J.DELETE, 2)])  # the spare is ready: the growing segment closes, the spare is taken
    journal.append([(J.CLEAR, "Q.A")])
    second = tmp_path / f"{J.PREFIX}{2:010d}"
    assert not (tmp_path / J.SPARE).exists()
    assert second.stat().st_size == 64 << 10  # written in place: the file did not grow
    assert journal.sync_plan() == ["f" + str(second), "d" + str(tmp_path)]
    journal.prepare_spare()  # the next one, made while the second segment is written
    assert (tmp_path / J.SPARE).exists()
    os.close(journal._fd)  # a crash: nothing closed, nothing folded

    again = J.Journal(tmp_path, fsync=True, segment_bytes=64 << 10)
    with structlog.testing.capture_logs() as logs:
        effect, last, paths = again.recover(0)
    assert [e["event"] for e in logs] == []  # zeros after the last record: no torn tail
    assert last == 3 and paths == [first, second]
    assert effect.deletes == {1, 2} and effect.clears == {"Q.A"}
    assert not (tmp_path / J.SPARE).exists()  # a spare from before the crash is never used


def test_a_torn_record_inside_a_preallocated_segment_stops_replay(tmp_path):
    import structlog

    journal = J.Journal(tmp_path, fsync=True, segment_bytes=64 << 10)
    journal.append([(J.DELETE, 1)])
    journal.prepare_spare()
    for seq in (2, 3, 4):
        journal.append([(J.DELETE, seq)])
    os.close(journal._fd)
    path = tmp_path / f"{J.PREFIX}{2:010d}"
    data = bytearray(path.read_bytes())
    second = len(J.MAGIC) + len(J.encode(2, [(J.DELETE, 2)]))
    data[second + J.HEADER.size] ^= 0xFF  # record 3's payload: record 4 and the zeros follow
    path.write_bytes(bytes(data))

    with structlog.testing.capture_logs() as logs:
        effect, last, _ = J.Journal(tmp_path, fsync=True).recover(0)
    assert effect.deletes == {1, 2} and last == 2
    assert [(e["event"], e["offset"]) for e in logs] == [("journal_torn_tail", second)]


def test_without_fsync_no_spare_is_made(tmp_path):
    journal = J.Journal(tmp_path, fsync=False, segment_bytes=64 << 10)
    journal.append([(J.DELETE, 1)])
    journal.prepare_spare()
    assert not journal.spare_wanted and not (tmp_path / J.SPARE).exists()
    journal.close()


# ---- the store: journal + fold against the general path -------------------------------------------

def message(seq: int, queue_tag: int, body: bytes) -> Message:
    return Message(None, body, seq % 10, seq.to_bytes(24, "big"), bytes(24), float(seq), None, seq, True,
                   md_raw=b"MD  " + bytes([queue_tag]) * 28)


def table(store: SQ.Store) -> dict[int, tuple]:
    return {row[0]: row[1:] for row in store.connection.execute(
        "SELECT seq, queue, priority, msg_id, correl_id, put_time, expires_at, md, data, props FROM messages")}


def group(store: SQ.Store) -> None:
    """One group commit as the server makes it (the fold is left to the writer thread, here to the test)."""
    pending, upto = store.take()
    if pending:
        store.write(pending)
        store.sync()
    store.durable = upto


def abandon(store: SQ.Store) -> None:
    """What a crash leaves: nothing folded, nothing closed cleanly."""
    store._journal.close()
    store._syncer.close()
    if store._checkpointer is not None:
        store._checkpointer.close()
    store._db.close()
    store._db = None
    os.close(store._lock_fd)  # a dead process's lock goes with it


# One step: ("put", n) a new message on queue n % 3; ("get", i) deletes the i-th live one;
# ("clear", q); ("refill", q) clears q and puts its messages back with their own seqs (a snapshot
# restore); ("commit",) ends a group; ("fold",) folds closed segments; ("crash",) abandons the store
# and opens it again; ("cut", k) starts a fold that dies before its k-th transaction, then crashes;
# ("fail", k) has a fold fail so, and the store carries on (the next fold does it again).
steps = st.lists(st.one_of(
    st.tuples(st.just("put"), st.integers(0, 2)), st.tuples(st.just("get"), st.integers(0, 50)),
    st.tuples(st.just("clear"), st.integers(0, 2)), st.tuples(st.just("refill"), st.integers(0, 2)),
    st.just(("commit",)), st.just(("fold",)), st.just(("crash",)), st.tuples(st.just("cut"), st.integers(1, 6)),
    st.tuples(st.just("fail"), st.integers(1, 6))),
    max_size=60)


class CutShort:
    """A connection whose ``at``-th transaction never begins (the process died there)."""

    def __init__(self, db: sqlite3.Connection, at: int) -> None:
        self._db, self._left = db, at

    def execute(self, sql, *args):
        if sql.startswith("BEGIN"):
            self._left -= 1
            if self._left == 0:
                raise RuntimeError("killed mid-fold")
        return self._db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._db, name)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps, st.sampled_from([1, 300, 2000]))
def test_journal_and_fold_give_what_applying_each_operation_in_order_gives(tmp_path_factory, steps, segment_bytes):
    data_dir = tmp_path_factory.mktemp("store")
    SQ.Store._FOLD_ROWS = 2  # folds of several transactions, so one can be cut short between them
    os.environ["QMLITE_JOURNAL_SEGMENT_BYTES"] = str(segment_bytes)
    try:
        store = SQ.Store.open(data_dir, synchronous="NORMAL")
    finally:
        del os.environ["QMLITE_JOURNAL_SEGMENT_BYTES"]
    expected: dict[int, tuple] = {}  # the general path: each operation applied in order
    committed: dict[int, tuple] = {}
    seq = 0
    try:
        for step in steps + [("commit",)]:
            kind = step[0]
            if kind == "put":
                seq += 1
                msg = message(seq, step[1], b"body %d" % seq)
                store.put_message(f"Q{step[1]}", msg)
                expected[seq] = (f"Q{step[1]}", msg.priority, msg.msg_id, msg.correl_id, msg.put_time, None,
                                 msg.md_raw, msg.data, None)
            elif kind == "get" and expected:
                gone = sorted(expected)[step[1] % len(expected)]
                store.delete_message(gone)
                del expected[gone]
            elif kind in ("clear", "refill"):
                queue = f"Q{step[1]}"
                store.delete_queue_messages(queue)
                kept = {s: row for s, row in expected.items() if row[0] == queue}
                expected = {s: row for s, row in expected.items() if row[0] != queue}
                if kind == "refill":
                    for s, row in kept.items():
                        store.put_message(queue, message(s, step[1], row[7]))
                        expected[s] = row
            elif kind == "commit":
                group(store)
                committed = dict(expected)
            elif kind == "fold":
                store.fold()
            elif kind in ("cut", "fail"):  # the closed segments only: later ones may undo what it writes
                try:
                    store.fold(CutShort(store.connection, step[1]))
                except RuntimeError:
                    pass
                if kind == "cut":
                    kind = "crash"
            if kind == "crash":
                store.discard()  # uncommitted work never reached the disk
                abandon(store)
                expected = dict(committed)
                store = SQ.Store.open(data_dir, synchronous="NORMAL")
                assert table(store) == expected  # recovery folded everything
                assert not list(J.Journal(data_dir).segments()), "recovery left journal segments"
        assert _live(store, data_dir) == expected
    finally:
        SQ.Store._FOLD_ROWS = 4096
        if store._db is not None:
            store.close()
    reopened = SQ.Store.open(data_dir, synchronous="NORMAL")  # a clean close folds everything
    try:
        assert table(reopened) == expected
        assert not list(J.Journal(data_dir).segments())
    finally:
        reopened.close()


def _live(store: SQ.Store, data_dir: pathlib.Path) -> dict[int, tuple]:
    """The messages table as the journal would leave it after a crash now (recovery in a copy)."""
    journal = J.Journal(data_dir)
    folded = store.connection.execute("SELECT value FROM meta WHERE key = 'journal_lsn'").fetchone()
    effect, _, _ = journal.recover(int(folded[0]) if folded else 0)
    rows = table(store)
    for s in effect.deletes:
        rows.pop(s, None)
    rows = {s: row for s, row in rows.items() if row[0] not in effect.clears}
    rows.update({s: op[2:] for s, op in effect.puts.items()})
    return rows


def test_a_fold_writes_in_bounded_transactions(tmp_path, monkeypatch):
    monkeypatch.setattr(SQ.Store, "_FOLD_ROWS", 50)
    store = SQ.Store.open(tmp_path, synchronous="NORMAL")
    try:
        for seq in range(1, 181):
            store.put_message("Q0", message(seq, 0, b"x"))
        store.commit()
        store._journal.close_current()
        statements: list[str] = []
        db = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
        db.set_trace_callback(statements.append)
        store.fold(db)
        begins = [i for i, sql in enumerate(statements) if sql.startswith("BEGIN")]
        assert len(begins) == 4 + 1  # 180 rows in 50s, then the folded LSN
        rows_per_txn = [sum(1 for sql in statements[a:b] if sql.startswith("INSERT OR REPLACE INTO messages"))
                        for a, b in zip(begins, begins[1:] + [len(statements)])]
        assert rows_per_txn == [50, 50, 50, 30, 0]
        db.close()
        assert len(table(store)) == 180 and not store._journal.closed()
    finally:
        store.close()


def test_a_restart_after_a_crash_with_a_large_journal_finds_every_message(tmp_path):
    data_dir = tmp_path / "data"
    count = 4_500  # DEV.QUEUE.1 holds 5,000
    script = textwrap.dedent(f"""
        import os
        import pathlib
        from qmlite.pcf import constants as C
        from qmlite.pcf.mqi import MQMD, MQOD, MQPMO
        from qmlite.registry.qmgr import QueueManager
        qm = QueueManager.open(pathlib.Path({str(data_dir)!r}), "QM1")
        s = qm.connect("QM1", user="admin", admin=True)
        h, _ = qm.open_object(s, MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT)
        for i in range({count}):
            qm.put(s, h.hobj, MQMD(Persistence=C.MQPER_PERSISTENT, Priority=i % 3),
                   MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"m%06d" % i)
            if i % 100 == 99:
                qm.flush()
        qm.flush()
        print(len(list(pathlib.Path({str(data_dir)!r}).glob("qmlite-journal-*"))), flush=True)
        os._exit(0)  # no close: the journal is all the disk has of the latest messages
    """)
    env = {**os.environ, "QMLITE_JOURNAL_SEGMENT_BYTES": str(128 << 10)}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) >= 1  # the latest segment was never folded

    from qmlite.registry.storage.catalog import Registry

    reg = Registry.open(data_dir, "QM1")
    try:
        assert not list(data_dir.glob("qmlite-journal-*"))  # folded at open
        msgs = list(reg.messages.contents("DEV.QUEUE.1"))
        assert len(msgs) == count
        assert all(m._data is None for m in msgs)  # bodies stay on disk until asked for
        want = sorted(range(count), key=lambda i: (-(i % 3), i))
        assert [m.data for m in msgs[:50]] + [m.data for m in msgs[-50:]] == \
            [b"m%06d" % i for i in want[:50] + want[-50:]]
        assert [m.priority for m in msgs] == [i % 3 for i in want]
    finally:
        reg.close()


def test_a_fold_cut_short_is_redone_without_bringing_back_what_a_later_segment_deleted(tmp_path, monkeypatch):
    monkeypatch.setenv("QMLITE_JOURNAL_SEGMENT_BYTES", "1")  # a segment per record
    monkeypatch.setattr(SQ.Store, "_FOLD_ROWS", 1)
    store = SQ.Store.open(tmp_path, synchronous="NORMAL")
    store.put_message("Q0", message(1, 0, b"one"))
    store.put_message("Q0", message(2, 0, b"two"))
    group(store)  # segment 1: put 1, put 2
    store.delete_message(1)
    group(store)  # segment 2 (segment 1 closed): delete 1
    try:
        store.fold(CutShort(store.connection, 2))  # segment 1's fold writes message 1, then dies
    except RuntimeError:
        pass
    assert set(table(store)) == {1}  # what the cut fold left: message 1, though segment 2 deleted it
    abandon(store)
    store = SQ.Store.open(tmp_path, synchronous="NORMAL")
    try:
        assert set(table(store)) == {2}
    finally:
        store.close()


def test_a_failed_fold_done_again_with_later_segments_keeps_their_deletes(tmp_path, monkeypatch):
    monkeypatch.setenv("QMLITE_JOURNAL_SEGMENT_BYTES", "1")
    monkeypatch.setattr(SQ.Store, "_FOLD_ROWS", 1)
    store = SQ.Store.open(tmp_path, synchronous="NORMAL")
    try:
        store.put_message("Q0", message(1, 0, b"one"))
        store.put_message("Q0", message(2, 0, b"two"))
        group(store)  # segment 1: put 1, put 2
        store.delete_message(1)
        group(store)  # segment 2: delete 1 (segment 1 closed)
        try:
            store.fold(CutShort(store.connection, 2))  # segment 1's fold writes message 1, then fails
        except RuntimeError:
            pass
        assert set(table(store)) == {1}
        store.put_message("Q0", message(3, 0, b"three"))
        group(store)  # segment 3 (segment 2 closed)
        store.fold()  # segments 1 and 2 again, merged: message 1, written by the failed fold, must go
        assert set(table(store)) == {2}
    finally:
        store.close()


def test_a_second_writer_of_the_same_directory_is_refused(tmp_path):
    import pytest

    store = SQ.Store.open(tmp_path)
    try:
        with pytest.raises(SQ.StoreError, match="in use"):
            SQ.Store.open(tmp_path)  # it would fold and delete the segments this store appends to
    finally:
        store.close()
    SQ.Store.open(tmp_path).close()  # closed, the directory is free again


def test_a_message_put_and_deleted_within_one_group_is_not_written(tmp_path):
    """TR4: a delete whose put is still pending cancels it; the hypothesis test above checks the result
    equals applying every operation in order."""
    store = SQ.Store.open(tmp_path, synchronous="NORMAL")
    try:
        before = store.appended
        store.put_message("Q0", message(1, 0, b"gone at once"))
        store.put_message("Q0", message(2, 0, b"stays"))
        store.delete_message(1)
        assert store.appended == before + 3  # positions count every write, cancelled or not
        pending, upto = store.take()
        assert [op[:2] for op in pending[1]] == [(J.PUT, 2)] and upto == before + 3
        store.write(pending)
        store.put_message("Q0", message(3, 0, b"also gone"))
        store.delete_message(3)
        assert not store.dirty and store.take() == ((), before + 5)  # nothing at all to write
        store.delete_message(2)  # its put was taken for writing: the delete is written
        assert store.take()[0][1] == [(J.DELETE, 2)]
    finally:
        store.close()


def test_a_record_marked_tied_counts_only_once_its_transaction_committed(tmp_path):
    """A unit written to both files (decision JN14): its journal record, marked TIED, is applied at recovery only if
    SQLite's meta says its transaction committed; otherwise it is a torn tail, dropped with whatever follows."""
    journal = J.Journal(tmp_path, fsync=False)
    journal.append([(J.DELETE, 1)])
    journal.append([(J.CLEAR, "Q.A"), (J.TIED,)])
    os.close(journal._fd)
    effect, last, _ = J.Journal(tmp_path, fsync=False).recover(0, tied_lsn=2)
    assert (effect.deletes, effect.clears, last) == ({1}, {"Q.A"}, 2)
    effect, last, _ = J.Journal(tmp_path, fsync=False).recover(0, tied_lsn=1)
    assert (effect.deletes, effect.clears, last) == ({1}, set(), 1)


_RESTORE_THEN_DIE = """
    import os
    import pathlib
    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQMD, MQOD, MQPMO
    from qmlite.registry.mqsc import run_mqsc
    from qmlite.registry.qmgr import QueueManager
    from qmlite.registry.storage import savepoints
    from qmlite.registry.storage import sqlite as SQ
    qm = QueueManager.open(pathlib.Path({data!r}), "QM1")
    s = qm.connect("QM1", user="admin", admin=True)

    def fill(prefix, tag):
        run_mqsc(qm, "\\n".join(f"DEFINE QLOCAL({{prefix}}.{{n}})" for n in range(3)), user="mqm")
        for n in range(3):
            h, _ = qm.open_object(s, MQOD(ObjectName=f"{{prefix}}.{{n}}"), C.MQOO_OUTPUT)
            for i in range(5):
                qm.put(s, h.hobj, MQMD(Persistence=C.MQPER_PERSISTENT), MQPMO(Options=C.MQPMO_NO_SYNCPOINT),
                       b"%s-%d-%d" % (tag, n, i))
            qm.close_object(s, h.hobj, 0)  # open, a queue would be kept in use by the reset and the restore
        qm.flush()

    fill("BASE", b"base")
    savepoints.of(qm).save("BASE")
    run_mqsc(qm, "RESET QMLITE", user="mqm")
    fill("LATER", b"later")
    savepoints.of(qm).restore("BASE")
    from qmlite.registry.storage import journal as J

    def then_die(real):
        def write_and_die(*args):
            real(*args)
            os._exit(0)
        return write_and_die

    if {die_between!r}:  # killed as soon as the first of the two files has its half of the unit
        SQ.Store._write_sql = then_die(SQ.Store._write_sql)
        J.Journal.append = then_die(J.Journal.append)
    qm.flush()
    os._exit(0)
"""


def _restored_and_killed(tmp_path, die_between: bool) -> dict:
    data_dir = tmp_path / "data"
    script = textwrap.dedent(_RESTORE_THEN_DIE.format(data=str(data_dir), die_between=die_between))
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    from qmlite.registry.storage.catalog import Registry

    reg = Registry.open(data_dir, "QM1")
    try:
        return {name: [m.data for m in reg.messages.contents(name)]
                for name in sorted(reg.queues) if name.startswith(("BASE.", "LATER."))}
    finally:
        reg.close()


def test_a_restore_killed_between_its_two_files_is_not_there_at_all(tmp_path):
    """A snapshot's restore changes definitions (SQLite) and messages (the journal) as one unit: killed once the first
    file has its half, the data directory is as before it; killed after both, as after."""
    later = {f"LATER.{n}": [b"later-%d-%d" % (n, i) for i in range(5)] for n in range(3)}
    base = {f"BASE.{n}": [b"base-%d-%d" % (n, i) for i in range(5)] for n in range(3)}
    assert _restored_and_killed(tmp_path / "between", True) == later
    assert _restored_and_killed(tmp_path / "after", False) == base
