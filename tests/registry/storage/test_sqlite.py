"""The SQLite store and the registry's persistence: schema, migrations, round trips, atomic commits, ids."""

from __future__ import annotations

import dataclasses
import os
import sqlite3

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.storage import sqlite as SQ
from qmlite.registry.objects.definitions import Queue, Subscription, Topic
from qmlite.registry.storage.catalog import Registry

TABLES = {"subscriptions": Subscription, "queues": Queue, "topics": Topic}
SQL_TYPE = {"str": "TEXT", "bytes": "BLOB", "int": "INTEGER", "float": "REAL"}


def db_path(data_dir):
    return data_dir / SQ.FILENAME


def columns(path, table: str) -> dict[str, tuple[str, int, int]]:
    """column name -> (declared type, not null, primary key)"""
    with sqlite3.connect(path) as db:
        rows = db.execute(f"PRAGMA table_info({table})").fetchall()
    return {name: (decl, notnull, pk) for _cid, name, decl, notnull, _default, pk in rows}


def schema(path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return sorted(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))


def user_version(path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


def every_field_set(cls, **required):
    """An instance whose every field differs from its default (so a lost column would show)."""
    values = dict(required)
    for f in dataclasses.fields(cls):
        if f.name in values:
            continue
        default = f.default
        if isinstance(default, bool):
            raise AssertionError("no bool fields expected")
        if isinstance(default, bytes):
            values[f.name] = bytes(range(1, len(default) + 1))
        elif isinstance(default, int):
            values[f.name] = default + 7
        elif isinstance(default, float):
            values[f.name] = default + 1234.5
        elif isinstance(default, str):
            values[f.name] = f"{f.name}-é€𝄞"
    return cls(**values)


def sub(name: str, n: int, **kw) -> Subscription:
    sub_id = b"AMQ TEST        " + n.to_bytes(8, "little")
    kw.setdefault("topic_string", f"t/{n}")
    kw.setdefault("resolved_topic", kw["topic_string"])
    return Subscription(name, sub_id, **kw)


# ---- schema and migrations -------------------------------------------------------------------------

@pytest.mark.parametrize("table, cls", [("queues", Queue), ("topics", Topic)])
def test_latest_schema_has_one_column_per_model_field(tmp_path, table, cls):
    store = SQ.Store.open(tmp_path)
    store.close()
    cols = columns(db_path(tmp_path), table)
    fields = {f.name: f.type for f in dataclasses.fields(cls)}
    assert set(cols) == set(fields), f"{table}: model fields without a column need a migration"
    assert len(cols) == len(fields)
    for name, py_type in fields.items():
        decl, notnull, _pk = cols[name]
        assert decl == SQL_TYPE[py_type], (table, name, decl, py_type)
        assert notnull == 1, (table, name)
    assert [n for n, (_d, _nn, pk) in cols.items() if pk] == ["name"]


def test_subscription_record_layout_is_the_model(tmp_path):
    """A subscription field not in the record format would be lost: adding one needs a migration."""
    assert SQ.SUBSCRIPTION_RECORD_2 == tuple(f.name for f in dataclasses.fields(Subscription))
    assert SQ.SUBSCRIPTION_RECORD_2[:len(SQ.SUBSCRIPTION_RECORD_1)] == SQ.SUBSCRIPTION_RECORD_1
    SQ.Store.open(tmp_path).close()
    cols = columns(db_path(tmp_path), "subscriptions")
    assert cols == {"sub_id": ("BLOB", 1, 1), "name": ("TEXT", 1, 0), "record": ("BLOB", 1, 0)}


def test_version_1_subscriptions_are_migrated_to_records(tmp_path, monkeypatch):
    full = every_field_set(Subscription, name="OLD.ONE", sub_id=b"AMQ TEST        " + bytes(8), sub_options=0)
    monkeypatch.setattr(SQ, "MIGRATIONS", SQ.MIGRATIONS[:1])
    monkeypatch.setattr(SQ, "SCHEMA_VERSION", 1)
    path = db_path(tmp_path)
    SQ.Store.open(tmp_path).close()
    with sqlite3.connect(path) as db:  # a version-1 database, as the first release wrote it
        names = SQ.SUBSCRIPTION_RECORD_1
        db.execute(f"INSERT INTO subscriptions ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                   [getattr(full, n) for n in names])
    monkeypatch.undo()
    store = SQ.Store.open(tmp_path)
    assert store.schema_version == SQ.SCHEMA_VERSION  # migrated through record format 2 to the latest
    assert list(store.load(Subscription)) == [full]  # a format-1 record: no MQSO options were kept
    store.close()


def test_subscription_names_are_unique_in_the_schema(tmp_path):
    SQ.Store.open(tmp_path).close()
    with sqlite3.connect(db_path(tmp_path)) as db:
        indexes = db.execute("PRAGMA index_list(subscriptions)").fetchall()
        unique = [name for _seq, name, is_unique, *_ in indexes if is_unique]
        cols = [db.execute(f"PRAGMA index_info({name})").fetchall() for name in unique]
    assert [[c[2] for c in info] for info in cols].count(["name"]) == 1


def test_fresh_store_is_at_latest_version_and_reopen_is_a_no_op(tmp_path):
    store = SQ.Store.open(tmp_path)
    assert store.schema_version == SQ.SCHEMA_VERSION == len(SQ.MIGRATIONS)
    store.close()
    before = schema(db_path(tmp_path))
    store = SQ.Store.open(tmp_path)
    assert store.schema_version == SQ.SCHEMA_VERSION
    store.close()
    assert schema(db_path(tmp_path)) == before
    assert user_version(db_path(tmp_path)) == SQ.SCHEMA_VERSION


def test_migrations_run_in_order_from_zero_and_only_once(tmp_path, monkeypatch):
    base = len(SQ.MIGRATIONS)
    extra = [
        ["CREATE TABLE probe (step INTEGER NOT NULL)", "INSERT INTO probe VALUES (1)"],
        # depends on the previous version having run first
        ["INSERT INTO probe SELECT max(step) + 1 FROM probe"],
        ["ALTER TABLE probe ADD COLUMN note TEXT NOT NULL DEFAULT 'v'",
         "INSERT INTO probe (step) SELECT max(step) + 1 FROM probe"],
    ]
    monkeypatch.setattr(SQ, "MIGRATIONS", SQ.MIGRATIONS + extra)
    monkeypatch.setattr(SQ, "SCHEMA_VERSION", base + len(extra))
    path = db_path(tmp_path)
    SQ.Store.open(tmp_path).close()
    assert user_version(path) == base + 3
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT step, note FROM probe ORDER BY step").fetchall() == [(1, "v"), (2, "v"), (3, "v")]
    SQ.Store.open(tmp_path).close()  # nothing re-runs
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM probe").fetchone()[0] == 3
    assert user_version(path) == base + 3


def test_upgrade_from_an_older_version_keeps_data(tmp_path, monkeypatch):
    reg = Registry.open(tmp_path, "QM1")
    reg.put_sub(sub("KEEP.ME", 1))
    reg.commit()
    reg.close()
    base = len(SQ.MIGRATIONS)
    monkeypatch.setattr(SQ, "MIGRATIONS", SQ.MIGRATIONS + [["CREATE TABLE later (x)"]])
    monkeypatch.setattr(SQ, "SCHEMA_VERSION", base + 1)
    reg = Registry.open(tmp_path, "QM1")
    assert reg.store.schema_version == base + 1
    assert reg.subs["KEEP.ME"] == sub("KEEP.ME", 1)
    reg.close()


def test_failing_migration_rolls_back_that_version(tmp_path, monkeypatch):
    base = len(SQ.MIGRATIONS)
    monkeypatch.setattr(SQ, "MIGRATIONS", SQ.MIGRATIONS + [["CREATE TABLE half (x)", "THIS IS NOT SQL"]])
    monkeypatch.setattr(SQ, "SCHEMA_VERSION", base + 1)
    with pytest.raises(sqlite3.OperationalError):
        SQ.Store.open(tmp_path)
    path = db_path(tmp_path)
    assert user_version(path) == base  # the earlier versions committed, the failing one did not
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'half'").fetchone()[0] == 0


def test_newer_schema_is_refused(tmp_path):
    SQ.Store.open(tmp_path).close()
    with sqlite3.connect(db_path(tmp_path)) as db:
        db.execute(f"PRAGMA user_version = {SQ.SCHEMA_VERSION + 1}")
    with pytest.raises(SQ.StoreError, match="newer"):
        SQ.Store.open(tmp_path)
    with pytest.raises(SQ.StoreError):
        Registry.open(tmp_path, "QM1")
    assert user_version(db_path(tmp_path)) == SQ.SCHEMA_VERSION + 1  # left alone


def test_store_uses_wal_and_full_sync(tmp_path, monkeypatch):
    """FULL durability: SQLite writes without syncing and the store fsyncs the WAL after every commit
    (what synchronous=FULL does for a WAL commit, but callable off the event loop); closing syncs."""
    store = SQ.Store.open(tmp_path)
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.fsync_commits
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(SQ.os, "fdatasync",
                        lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real_fsync(fd)))
    store.set_meta("k", "v")
    store.commit()
    assert any(path.endswith(SQ.FILENAME + "-wal") for path in synced)  # the commit's own fsync
    assert store.durable == store.appended
    store.close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(SQ.FILENAME))[0] == SQ.FILENAME


# ---- room ahead of the WAL (docs/decisions.md JN11) ------------------------------------------------------

def _wal_size(data_dir) -> int:
    return os.stat(db_path(data_dir).with_name(SQ.FILENAME + "-wal")).st_size


def _wal_end(store) -> int:
    with store._write_lock:
        return store._wal_end(-1)


def _commit_meta(store, keys, value=b"x" * 3000) -> None:
    for key in keys:
        store.set_meta(key, value)
        store.commit()


def _crash_image(data_dir, into) -> dict:
    """The database and its WAL as they are on disk with the store still open (a process killed now),
    opened elsewhere: the meta rows SQLite recovers from them."""
    into.mkdir()
    for name in (SQ.FILENAME, SQ.FILENAME + "-wal"):
        (into / name).write_bytes((data_dir / name).read_bytes())
    db = sqlite3.connect(into / SQ.FILENAME)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return dict(db.execute("SELECT key, value FROM meta"))
    finally:
        db.close()


def test_the_wal_index_header_gives_where_the_last_frame_ends(tmp_path):
    store = SQ.Store.open(tmp_path)
    for n in range(3):
        _commit_meta(store, [f"k{n}"])
        assert _wal_end(store) == _wal_size(tmp_path)  # a growing WAL ends at its last frame
    store.close()


def test_zeros_are_written_ahead_of_a_growing_wal_and_later_transactions_land_in_them(tmp_path, monkeypatch):
    data = tmp_path / "qm"
    store = SQ.Store.open(data)
    _commit_meta(store, ["k0"])
    end = _wal_end(store)
    assert store._wal_room_wanted()  # the first transaction's WAL is looked at
    synced, real_fdatasync = [], os.fdatasync
    monkeypatch.setattr(SQ.os, "fdatasync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")),
                                                         real_fdatasync(fd)))
    store.prepare_wal()
    monkeypatch.undo()
    assert [path.rsplit("/", 1)[1] for path in synced] == [SQ.FILENAME + "-wal"]  # the zeros' size and blocks
    assert _wal_size(data) == end + SQ.Store.WAL_STEP
    assert not store._wal_room_wanted()  # looked at: again only after WAL_CHECK_ROWS rows
    keys = [f"k{n}" for n in range(1, 40)]
    _commit_meta(store, keys)  # about 20 KiB a commit: within the zeros
    assert _wal_end(store) > end + 39 * 3000
    assert _wal_size(data) == end + SQ.Store.WAL_STEP  # the file kept its size: each sync is data alone
    recovered = _crash_image(data, tmp_path / "image")
    assert set(recovered) >= {"k0", *keys}  # every committed frame is read back, the zeros after them ignored
    store.close()
    assert not (data / (SQ.FILENAME + "-wal")).exists()  # a clean close still folds the WAL away


def test_the_zeros_stay_ahead_of_the_frames_never_past_the_size_the_wal_is_cut_back_to(tmp_path, monkeypatch):
    monkeypatch.setattr(SQ.Store, "WAL_STEP", 64 << 10)
    monkeypatch.setattr(SQ.Store, "WAL_LOW", 32 << 10)
    monkeypatch.setattr(SQ.Store, "WAL_LIMIT", 512 << 10)  # a new WAL: 160 KiB
    monkeypatch.setattr(SQ.Store, "WAL_CHECK_ROWS", 1)
    data = tmp_path / "qm"
    store = SQ.Store.open(data)
    assert store._db.execute("PRAGMA journal_size_limit").fetchone()[0] == 512 << 10
    sizes, n = [], 0
    while _wal_end(store) < SQ.Store.WAL_LIMIT - (SQ.Store.WAL_STEP - SQ.Store.WAL_LOW):
        _commit_meta(store, [f"k{n}"])
        n += 1
        store.prepare_wal()
        size, end = _wal_size(data), _wal_end(store)
        assert size >= min(end + SQ.Store.WAL_LOW, SQ.Store.WAL_LIMIT)  # never fewer zeros than WAL_LOW
        if not sizes or size != sizes[-1]:
            sizes.append(size)
    assert len(sizes) >= 3 and sizes == sorted(sizes) and sizes[-1] == SQ.Store.WAL_LIMIT
    _commit_meta(store, ["past"])
    store.prepare_wal()
    assert _wal_size(data) == SQ.Store.WAL_LIMIT  # SQLite would cut any more zeros off again
    assert set(_crash_image(data, tmp_path / "image")) >= {f"k{i}" for i in range(n)} | {"past"}
    store.close()


def test_a_reused_wal_gets_no_zeros_while_its_old_frames_leave_room(tmp_path, monkeypatch):
    monkeypatch.setattr(SQ.Store, "WAL_CHECK_ROWS", 1)
    store = SQ.Store.open(tmp_path)
    _commit_meta(store, [f"k{n}" for n in range(300)])  # about 6 MiB of frames, past the first zeros
    store.prepare_wal()
    store._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    _commit_meta(store, ["again"])  # SQLite starts the WAL over: its frames go over the old ones
    size, end = _wal_size(tmp_path), _wal_end(store)
    assert end < SQ.Store.WAL_LOW < size - end
    monkeypatch.setattr(SQ.os, "pwrite", None)  # no zeros written (would raise)
    store.prepare_wal()
    assert _wal_size(tmp_path) == size and not store._wal_room_failed
    store.close()


def test_a_checkpoint_that_leaves_frames_behind_is_finished_so_the_wal_starts_over(tmp_path, monkeypatch):
    """SQLite starts the WAL over only after a checkpoint that copied every frame.  The server's checkpoint runs on
    the writer thread while the event loop goes on writing, and copies only the frames there when it began: with a
    command every millisecond, a transaction landed during almost every checkpoint and the WAL grew for ever.
    Here a reader's snapshot keeps the first pass from the last frames, as a transaction landing during it would;
    the reader is gone as that pass returns."""
    monkeypatch.setattr(SQ.Store, "CHECKPOINT_ROWS", 10**9)  # only the checkpoint called here
    store = SQ.Store.open(tmp_path)
    _commit_meta(store, [f"k{n}" for n in range(100)])
    reader = sqlite3.connect(store.path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM meta").fetchone()  # its snapshot: the frames so far
    _commit_meta(store, [f"late{n}" for n in range(5)])  # frames past the reader's snapshot
    before = _wal_end(store)
    checkpointer = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
    passes = []

    class FirstPassHeldBack:
        def execute(self, sql, *args):
            cursor = checkpointer.execute(sql, *args)
            if "wal_checkpoint" in sql:
                passes.append(cursor.fetchone())
                if reader.in_transaction:
                    reader.execute("COMMIT")
            return cursor

    store._rows_since_checkpoint = SQ.Store.CHECKPOINT_ROWS
    store.checkpoint_if_large(FirstPassHeldBack())
    busy, frames, copied = passes[0]
    assert copied < frames  # the first pass left the late frames
    _commit_meta(store, ["after"])
    assert _wal_end(store) < before // 10  # the WAL started over: "after" among its first frames
    checkpointer.close()
    reader.close()
    assert {"late4", "after"} <= set(_crash_image(tmp_path, tmp_path / "image"))
    store.close()


def test_looking_whether_the_wal_wants_room_makes_no_system_call(tmp_path, monkeypatch):
    """It runs on the event loop after every commit: a system call there lets go of the GIL, which the writer
    thread, back from a sync, then takes."""
    store = SQ.Store.open(tmp_path)
    _commit_meta(store, ["k0"])

    def refused(*args):
        raise AssertionError("a system call")

    for name in ("stat", "fstat", "open", "pread", "read"):
        monkeypatch.setattr(SQ.os, name, refused)
    monkeypatch.setattr("builtins.open", refused)
    assert store._wal_room_wanted() and store.maintenance_due()
    monkeypatch.undo()
    store.close()


def test_the_zeros_go_only_past_the_end_read_while_no_transaction_can_write(tmp_path, monkeypatch):
    """SQLite appends frames only in a transaction, and every transaction holds the store's write lock:
    the end is read, and zeros written from it, while that lock is held, so no frame is ever overwritten."""
    monkeypatch.setattr(SQ.Store, "_WAL_CHUNK", 16 << 10)
    store = SQ.Store.open(tmp_path)
    _commit_meta(store, ["k0"])
    ends, writes, headers = [], [], []
    real_fstat, real_pwrite, real_wal_end = os.fstat, os.pwrite, store._wal_end

    def fstat(fd):
        assert store._write_lock.locked()
        result = real_fstat(fd)
        ends.append(result.st_size)
        return result

    def pwrite(fd, data, offset):
        assert store._write_lock.locked() and offset == ends[-1]
        writes.append(len(data))
        return real_pwrite(fd, data, offset)

    def wal_end(size):
        headers.append(store._write_lock.locked())
        return real_wal_end(size)

    monkeypatch.setattr(SQ.os, "fstat", fstat)
    monkeypatch.setattr(SQ.os, "pwrite", pwrite)
    monkeypatch.setattr(store, "_wal_end", wal_end)
    store.prepare_wal()
    monkeypatch.undo()
    assert headers == [True]
    assert len(writes) == SQ.Store.WAL_STEP // (16 << 10) and sum(writes) == SQ.Store.WAL_STEP
    store.close()


def test_a_wal_whose_zeros_cannot_be_written_grows_as_before(tmp_path, monkeypatch):
    import structlog

    store = SQ.Store.open(tmp_path)
    _commit_meta(store, ["k0"])

    def full(fd, data, offset):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(SQ.os, "pwrite", full)
    with structlog.testing.capture_logs() as logs:
        store.prepare_wal()
    monkeypatch.undo()
    assert [(e["event"], e["log_level"]) for e in logs] == [("wal_room_failed", "warning")]
    assert "No space left" in logs[0]["reason"]
    _commit_meta(store, [f"k{n}" for n in range(1, 2 * SQ.Store.WAL_CHECK_ROWS)])
    assert not store._wal_room_wanted()  # not tried again: the WAL grows with its frames
    store.close()
    store = SQ.Store.open(tmp_path)
    assert store.meta()["k2"] == b"x" * 3000
    store.close()


def test_a_store_that_does_not_sync_writes_no_zeros(tmp_path):
    store = SQ.Store.open(tmp_path, synchronous="NORMAL")
    _commit_meta(store, ["k0", "k1"])
    assert not store._wal_room_wanted() and not store.maintenance_due()
    store.close()


# ---- round trips through Registry.open -----------------------------------------------------------------

def snapshot(reg: Registry) -> dict:
    return {
        "subs": dict(reg.subs),
        "subs_by_id": dict(reg.subs_by_id),
        "queues": dict(reg.queues),
        "topics": dict(reg.topics),
        "topics_by_string": dict(reg.topics_by_string),
        "qmgr": dataclasses.asdict(reg.qmgr),
        "routes": len(reg.routes),
        "expiring": set(reg._expiring),
    }


def test_round_trip_through_reopen(tmp_path):
    reg = Registry.open(tmp_path, "QM7", dev_objects=False)
    system = snapshot(reg)
    full = every_field_set(Subscription, name="FULL.SUB", sub_id=b"AMQ QM7         \x01\x02\x03\x04\x05\x06\x07\x08",
                           topic_string="a/b", resolved_topic="a/b", expiry=600, wildcard_schema=C.MQWS_TOPIC,
                           durable=C.MQSUB_DURABLE_YES, active_connection=bytes(24))  # none after a restart
    reg.put_sub(full)
    for n in range(20):
        reg.put_sub(sub(f"S.{n}", n, topic_string=f"x/{n}/#" if n % 3 else f"x/{n}",
                        destination_class=C.MQDC_MANAGED if n % 2 else C.MQDC_PROVIDED))
    reg.put_queue(every_field_set(Queue, name="Q.FULL"))
    reg.put_queue(Queue("Q.PLAIN"))
    reg.put_topic(every_field_set(Topic, name="T.FULL", topic_string="full/topic"))
    reg.put_topic(Topic("T.PLAIN", "plain"))
    reg.commit()
    # changes and deletions after the first commit
    reg.remove_sub(reg.subs["S.3"])
    reg.put_sub(dataclasses.replace(reg.subs["S.4"], user_data="changed", altered=99.5))
    reg.put_sub(dataclasses.replace(reg.subs["S.5"], name="S.5.RENAMED"))  # same SubId, new name
    reg.remove_queue(reg.queues["Q.PLAIN"])
    reg.put_topic(dataclasses.replace(reg.topics["T.PLAIN"], topic_string="plain/moved"))
    reg.remove_topic(reg.topics["T.FULL"])
    reg.commit()
    before = snapshot(reg)
    reg.put_sub(sub("NON.DURABLE", 99, durable=C.MQSUB_DURABLE_NO))  # dies with its connection
    reg.commit()
    reg.close()

    again = Registry.open(tmp_path, "QM7", dev_objects=False)
    after = snapshot(again)
    assert after == before
    assert "S.3" not in after["subs"] and "S.5" not in after["subs"]
    assert after["subs"]["S.4"].user_data == "changed"
    assert after["subs"]["FULL.SUB"] == full
    assert after["expiring"] == {full.sub_id}
    assert "Q.PLAIN" not in after["queues"] and "T.FULL" not in after["topics"]
    assert set(after["topics_by_string"]) == set(system["topics_by_string"]) | {"plain/moved"}
    assert again.routes.match("x/7/anything") == {again.subs["S.7"].sub_id}
    assert again.routes.match("x/6") == {again.subs["S.6"].sub_id}
    again.close()


def test_meta_round_trip(tmp_path):
    clock = lambda: 1_700_000_000.25  # noqa: E731
    reg = Registry.open(tmp_path, "QMETA", dev_objects=True, clock=clock)
    first = dataclasses.asdict(reg.qmgr)
    assert reg.qmgr.dead_letter_queue == "DEV.DEAD.LETTER.QUEUE"
    reg.close()
    later = lambda: 1_800_000_000.0  # noqa: E731
    reg = Registry.open(tmp_path, "QMETA", dev_objects=False, clock=later)  # dev_objects only matters once
    assert dataclasses.asdict(reg.qmgr) == first
    assert reg.qmgr.created == 1_700_000_000.25
    meta = reg.store.meta()
    assert meta["qmgr_name"] == "QMETA" and meta["id_epoch"] == 1_800_000_000
    reg.close()


def test_other_queue_managers_data_is_refused(tmp_path):
    Registry.open(tmp_path, "QMA").close()
    with pytest.raises(ValueError, match="QMA"):
        Registry.open(tmp_path, "QMB")


def test_first_start_objects_are_durable(tmp_path):
    reg = Registry.open(tmp_path, "QM1")
    assert not reg.store.dirty
    before = snapshot(reg)
    reg.close()
    assert snapshot(Registry.open(tmp_path, "QM1")) == before


# ---- atomic commits ---------------------------------------------------------------------------------

def rows(path, table: str) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return sorted(db.execute(f"SELECT * FROM {table}").fetchall())


def test_commit_failing_midway_leaves_database_as_before(tmp_path):
    store = SQ.Store.open(tmp_path)
    store.put(sub("A", 1))
    store.commit()
    path = db_path(tmp_path)
    before = {t: rows(path, t) for t in (*TABLES, "meta")}

    store.put(sub("B", 2))
    store.delete(Subscription, sub("A", 1).sub_id)
    store.put(Queue("Q.NEW"))
    store.set_meta("k", "v")
    store.put(Queue(None))  # NOT NULL name: the transaction fails here, after four statements ran
    store.put(sub("C", 4))
    with pytest.raises(sqlite3.IntegrityError):
        store.commit()
    assert {t: rows(path, t) for t in (*TABLES, "meta")} == before
    assert not store.dirty  # the failed operations are gone, not retried by the next commit

    store.put(sub("D", 5))  # the store is usable again (no transaction left open)
    store.commit()
    store.close()
    reopened = SQ.Store.open(tmp_path)
    assert sorted(s.name for s in reopened.load(Subscription)) == ["A", "D"]
    reopened.close()


def test_a_value_of_the_wrong_type_is_refused_before_it_is_buffered(tmp_path):
    store = SQ.Store.open(tmp_path)
    store.put(sub("A", 1))
    with pytest.raises(TypeError):
        store.put(sub("B", 2, user_data=["not", "a", "string"]))
    store.commit()
    store.close()
    reopened = SQ.Store.open(tmp_path)
    assert [s.name for s in reopened.load(Subscription)] == ["A"]
    reopened.close()


def test_discard_drops_pending_changes(tmp_path):
    store = SQ.Store.open(tmp_path)
    store.put(sub("KEPT", 1))
    store.commit()
    store.put(sub("DROPPED", 2))
    store.delete(Subscription, sub("KEPT", 1).sub_id)
    store.set_meta("dropped", 1)
    assert store.dirty
    store.discard()
    assert not store.dirty
    store.commit()
    store.close()
    store = SQ.Store.open(tmp_path)
    assert [s.name for s in store.load(Subscription)] == ["KEPT"]
    assert "dropped" not in store.meta()
    store.close()


def test_uncommitted_changes_are_lost_on_close(tmp_path):
    reg = Registry.open(tmp_path, "QM1")
    reg.put_sub(sub("NEVER.COMMITTED", 1))
    assert reg.store.dirty
    reg.close()
    assert "NEVER.COMMITTED" not in Registry.open(tmp_path, "QM1").subs


def test_many_commands_in_one_commit_are_all_or_nothing(tmp_path):
    store = SQ.Store.open(tmp_path)
    for n in range(500):
        store.put(sub(f"G.{n}", n))
    store.put(Queue(None))  # NOT NULL name, last in the group
    with pytest.raises(sqlite3.IntegrityError):
        store.commit()
    for n in range(500):
        store.put(sub(f"G.{n}", n))
    store.commit()
    store.close()
    assert len(rows(db_path(tmp_path), "subscriptions")) == 500


# ---- identifiers across restarts -----------------------------------------------------------------------

def test_sub_ids_are_unique_across_reopens_in_the_same_second(tmp_path):
    frozen = lambda: 1_700_000_000.9  # noqa: E731
    seen: set[bytes] = set()
    epochs = []
    for _ in range(4):
        reg = Registry.open(tmp_path, "QM1", clock=frozen)
        epochs.append(reg.ids.start_time)
        seen.update(reg.subs_by_id)
        fresh = [reg.ids.sub_id() for _ in range(5)]
        assert not seen.intersection(fresh)
        seen.update(fresh)
        # persist one so the next open loads it
        reg.put_sub(Subscription(f"S.{len(epochs)}", fresh[0], topic_string="t", resolved_topic="t"))
        reg.commit()
        reg.close()
    assert epochs == [1_700_000_000, 1_700_000_001, 1_700_000_002, 1_700_000_003]


def test_id_epoch_survives_a_clock_that_goes_backwards(tmp_path):
    reg = Registry.open(tmp_path, "QM1", clock=lambda: 2_000_000_000.0)
    first = reg.ids.sub_id()
    reg.close()
    reg = Registry.open(tmp_path, "QM1", clock=lambda: 1_000_000_000.0)
    assert reg.ids.start_time == 2_000_000_001
    assert reg.ids.sub_id() != first
    reg.close()
    reg = Registry.open(tmp_path, "QM1", clock=lambda: 3_000_000_000.0)
    assert reg.ids.start_time == 3_000_000_000  # a later real clock wins again
    reg.close()


def test_the_properties_record_is_rendered_once_for_the_same_unchanged_properties():
    """A publication's persistent copies share one Properties object: rendered once, and rendered afresh
    once the object changed (the record is always what a fresh rendering gives)."""
    from qmlite.pcf import properties as PR

    def fresh(props):
        return PR.join(props, b"", "", 273, 1208)[0]

    props = PR.Properties()
    props.put_known("mqps.Top", PR.STRING, "dev/a", "mqps")
    first = SQ.props_record(props)
    assert first == fresh(props)
    assert SQ.props_record(props) is first  # the same object unchanged: the same record
    props.put_known("mqps.Top", PR.STRING, "dev/b", "mqps")  # changed in place
    second = SQ.props_record(props)
    assert second == fresh(props) and second != first
    other = props.copy()  # equal content, another object: rendered (and equal)
    assert SQ.props_record(other) == second
    props.put_known("mqtt.qos", PR.INT32, 1, "mqtt")
    assert SQ.props_record(props) == fresh(props)
