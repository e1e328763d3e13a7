"""Durable storage of the registry in one SQLite file (WAL, fsync at every commit).

Changes are buffered as pending operations and written in one transaction by ``commit()``; a caller
that acknowledges a command only after ``commit()`` returns never acknowledges a lost change, and a
caller that commits several commands at once (group commit) pays for one fsync.  Either a whole
commit is on disk or none of it is, so a crash never leaves a command half-applied.

The schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS[n]`` turns version n into n + 1.
Subscriptions, which may number a million, are stored as one compact record each (schema 2): reading
one blob per row is several times faster at start-up than reading thirty columns.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import marshal
import operator
import os
import pathlib
import sqlite3
import struct
import threading
from collections.abc import Callable, Iterator

from qmlite.registry.objects.definitions import Namelist, Process, Queue, Subscription, Topic
from qmlite.registry.storage import fsync
from qmlite.registry.storage import journal as J

FILENAME = "qmlite.db"
LOCKNAME = "qmlite.lock"  # held (flock) by the one Store that writes the directory
_META_SQL = "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"  # one meta row: set_meta, the fold, a tie


def _columns(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


# Each version is literal SQL, frozen once released: a migration must not change when the model does,
# or a fresh database and an upgraded one would differ.  A new model field needs a new version with an
# ALTER TABLE (tests/registry/storage/test_sqlite.py fails when a model field has no column).
MIGRATIONS: list[list[str | Callable[[sqlite3.Connection], None]]] = [
    [  # 1
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value)",
        "CREATE TABLE subscriptions (name TEXT NOT NULL, sub_id BLOB NOT NULL PRIMARY KEY, topic_object TEXT NOT NULL,"
        " topic_string TEXT NOT NULL, resolved_topic TEXT NOT NULL, destination TEXT NOT NULL,"
        " destination_qmgr TEXT NOT NULL, destination_class INTEGER NOT NULL, destination_correl_id BLOB NOT NULL,"
        " expiry INTEGER NOT NULL, pub_accounting_token BLOB NOT NULL, pub_appl_identity_data TEXT NOT NULL,"
        " pub_priority INTEGER NOT NULL, psprop INTEGER NOT NULL, selector TEXT NOT NULL,"
        " selector_type INTEGER NOT NULL, sub_level INTEGER NOT NULL, sub_scope INTEGER NOT NULL,"
        " sub_type INTEGER NOT NULL, sub_user TEXT NOT NULL, user_data TEXT NOT NULL, variable_user INTEGER NOT NULL,"
        " wildcard_schema INTEGER NOT NULL, request_only INTEGER NOT NULL, durable INTEGER NOT NULL,"
        " created REAL NOT NULL, altered REAL NOT NULL, resumed REAL NOT NULL, last_message REAL NOT NULL,"
        " message_count INTEGER NOT NULL, active_connection BLOB NOT NULL)",
        "CREATE UNIQUE INDEX subscriptions_name ON subscriptions(name)",
        "CREATE TABLE queues (name TEXT NOT NULL PRIMARY KEY, qtype INTEGER NOT NULL, description TEXT NOT NULL,"
        " max_depth INTEGER NOT NULL, max_msg_length INTEGER NOT NULL, def_persistence INTEGER NOT NULL,"
        " def_priority INTEGER NOT NULL, inhibit_get INTEGER NOT NULL, inhibit_put INTEGER NOT NULL,"
        " shareability INTEGER NOT NULL, def_input_open_option INTEGER NOT NULL, usage INTEGER NOT NULL,"
        " definition_type INTEGER NOT NULL, def_type INTEGER NOT NULL, target TEXT NOT NULL,"
        " target_type INTEGER NOT NULL, created REAL NOT NULL, altered REAL NOT NULL)",
        "CREATE TABLE topics (name TEXT NOT NULL PRIMARY KEY, topic_string TEXT NOT NULL, description TEXT NOT NULL,"
        " durable_subscriptions INTEGER NOT NULL, def_priority INTEGER NOT NULL, def_persistence INTEGER NOT NULL,"
        " def_put_response INTEGER NOT NULL, durable_model_q TEXT NOT NULL, non_durable_model_q TEXT NOT NULL,"
        " inhibit_publications INTEGER NOT NULL, inhibit_subscriptions INTEGER NOT NULL,"
        " pm_delivery INTEGER NOT NULL, npm_delivery INTEGER NOT NULL, pub_scope INTEGER NOT NULL,"
        " sub_scope INTEGER NOT NULL, proxy_subscriptions INTEGER NOT NULL, wildcard_operation INTEGER NOT NULL,"
        " use_dlq INTEGER NOT NULL, multicast INTEGER NOT NULL, topic_type INTEGER NOT NULL, created REAL NOT NULL,"
        " altered REAL NOT NULL)",
    ],
]

# Record format 1 of a subscription: these fields, in this order (frozen like the SQL above; a model
# change needs a migration that rewrites the records).  marshal, not pickle: loading a data file must
# never be able to run code.  The leading byte names the format.
SUBSCRIPTION_RECORD_1 = (
    "name", "sub_id", "topic_object", "topic_string", "resolved_topic", "destination", "destination_qmgr",
    "destination_class", "destination_correl_id", "expiry", "pub_accounting_token", "pub_appl_identity_data",
    "pub_priority", "psprop", "selector", "selector_type", "sub_level", "sub_scope", "sub_type", "sub_user",
    "user_data", "variable_user", "wildcard_schema", "request_only", "durable", "created", "altered", "resumed",
    "last_message", "message_count", "active_connection",
)
_RECORD_1 = b"\x01"
# Record format 2 (issue 9) appends the MQSO options a subscription was made with and the blocking
# topic objects it was made under; a format-1 record reads as one with neither (what every
# subscription made before had in effect).
SUBSCRIPTION_RECORD_2 = SUBSCRIPTION_RECORD_1 + ("sub_options", "blocked_under")
_RECORD_2 = b"\x02"


def encode_record(values: tuple) -> bytes:
    return _RECORD_2 + marshal.dumps(values, 4)


def decode_record(blob: bytes) -> tuple:
    if blob[:1] not in (_RECORD_1, _RECORD_2):
        raise StoreError(f"unknown subscription record format {bytes(blob[:1])!r}")
    return marshal.loads(blob[1:])


def _subscriptions_as_records(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE subscriptions_2 (sub_id BLOB NOT NULL PRIMARY KEY, name TEXT NOT NULL,"
               " record BLOB NOT NULL)")
    cursor = db.execute(f"SELECT {', '.join(SUBSCRIPTION_RECORD_1)} FROM subscriptions")
    while rows := cursor.fetchmany(10_000):
        db.executemany("INSERT INTO subscriptions_2 VALUES (?, ?, ?)",
                       [(row[1], row[0], _RECORD_1 + marshal.dumps(tuple(row), 4)) for row in rows])
    db.execute("DROP TABLE subscriptions")
    db.execute("ALTER TABLE subscriptions_2 RENAME TO subscriptions")
    db.execute("CREATE UNIQUE INDEX subscriptions_name ON subscriptions(name)")


MIGRATIONS.append([_subscriptions_as_records])  # 2
MIGRATIONS.append([  # 3: persistent messages (non-persistent ones are never written, as with NPMCLASS NORMAL)
    "CREATE TABLE messages (seq INTEGER PRIMARY KEY, queue TEXT NOT NULL, priority INTEGER NOT NULL,"
    " msg_id BLOB NOT NULL, correl_id BLOB NOT NULL, put_time REAL NOT NULL, expires_at REAL,"
    " md BLOB NOT NULL, data BLOB NOT NULL)",
])
# (column, declaration) appended to queues by schema 4: the defaults of registry/objects/definitions.py ``Queue``
_QUEUE_COLUMNS_4 = (
    ("backout_threshold", "INTEGER NOT NULL DEFAULT 0"),
    ("backout_requeue_q", "TEXT NOT NULL DEFAULT ''"),
    ("harden_get_backout", "INTEGER NOT NULL DEFAULT 0"),  # MQQA_BACKOUT_NOT_HARDENED
    ("trigger_control", "INTEGER NOT NULL DEFAULT 0"),  # MQTC_OFF
    ("trigger_type", "INTEGER NOT NULL DEFAULT 1"),  # MQTT_FIRST
    ("trigger_depth", "INTEGER NOT NULL DEFAULT 1"),
    ("trigger_msg_priority", "INTEGER NOT NULL DEFAULT 0"),
    ("trigger_data", "TEXT NOT NULL DEFAULT ''"),
    ("initiation_q", "TEXT NOT NULL DEFAULT ''"),
    ("process_name", "TEXT NOT NULL DEFAULT ''"),
    ("property_control", "INTEGER NOT NULL DEFAULT 0"),  # MQPROP_COMPATIBILITY
    ("dist_lists", "INTEGER NOT NULL DEFAULT 0"),  # MQDL_NOT_SUPPORTED
    ("msg_delivery_sequence", "INTEGER NOT NULL DEFAULT 0"),  # MQMDS_PRIORITY
    ("retention_interval", "INTEGER NOT NULL DEFAULT 999999999"),
    ("q_depth_high_limit", "INTEGER NOT NULL DEFAULT 80"),
    ("q_depth_low_limit", "INTEGER NOT NULL DEFAULT 20"),
    ("q_depth_max_event", "INTEGER NOT NULL DEFAULT 1"),  # MQEVR_ENABLED
    ("q_depth_high_event", "INTEGER NOT NULL DEFAULT 0"),  # MQEVR_DISABLED
    ("q_depth_low_event", "INTEGER NOT NULL DEFAULT 0"),
    ("q_service_interval", "INTEGER NOT NULL DEFAULT 999999999"),
    ("q_service_interval_event", "INTEGER NOT NULL DEFAULT 0"),  # MQQSIE_NONE
    ("npm_class", "INTEGER NOT NULL DEFAULT 0"),  # MQNPM_CLASS_NORMAL
    ("def_put_response", "INTEGER NOT NULL DEFAULT 1"),  # MQPRT_SYNC_RESPONSE
    ("def_read_ahead", "INTEGER NOT NULL DEFAULT 0"),  # MQREADA_NO
    ("def_bind", "INTEGER NOT NULL DEFAULT 0"),  # MQBND_BIND_ON_OPEN
    ("cluster_name", "TEXT NOT NULL DEFAULT ''"),
    ("cluster_namelist", "TEXT NOT NULL DEFAULT ''"),
    ("clwl_q_priority", "INTEGER NOT NULL DEFAULT 0"),
    ("clwl_q_rank", "INTEGER NOT NULL DEFAULT 0"),
    ("clwl_use_q", "INTEGER NOT NULL DEFAULT -3"),  # MQCLWL_USEQ_AS_Q_MGR
    ("scope", "INTEGER NOT NULL DEFAULT 1"),  # MQSCO_Q_MGR
    ("accounting_q", "INTEGER NOT NULL DEFAULT -3"),  # MQMON_Q_MGR
    ("monitoring_q", "INTEGER NOT NULL DEFAULT -3"),
    ("statistics_q", "INTEGER NOT NULL DEFAULT -3"),
    ("custom", "TEXT NOT NULL DEFAULT ''"),
)
MIGRATIONS.append([  # 4: every queue attribute MQINQ documents; namelists and process definitions
    *(f"ALTER TABLE queues ADD COLUMN {column} {declaration}" for column, declaration in _QUEUE_COLUMNS_4),
    "CREATE TABLE namelists (name TEXT NOT NULL PRIMARY KEY, description TEXT NOT NULL, names TEXT NOT NULL,"
    " namelist_type INTEGER NOT NULL, created REAL NOT NULL, altered REAL NOT NULL)",
    "CREATE TABLE processes (name TEXT NOT NULL PRIMARY KEY, description TEXT NOT NULL, appl_id TEXT NOT NULL,"
    " appl_type INTEGER NOT NULL, env_data TEXT NOT NULL, user_data TEXT NOT NULL, created REAL NOT NULL,"
    " altered REAL NOT NULL)",
    # Every queue manager has these two; an upgraded one gets them as a new one does (registry/objects/defaults.py).
    "INSERT INTO namelists VALUES ('SYSTEM.DEFAULT.NAMELIST', '', '[]', 0,"
    " CAST(strftime('%s', 'now') AS REAL), CAST(strftime('%s', 'now') AS REAL))",
    "INSERT INTO processes VALUES ('SYSTEM.DEFAULT.PROCESS', '', '', 6, '', '',"  # MQAT_UNIX
    " CAST(strftime('%s', 'now') AS REAL), CAST(strftime('%s', 'now') AS REAL))",
])
MIGRATIONS.append([  # 5: message properties beside the data; retained publications, one per topic
    "ALTER TABLE messages ADD COLUMN props BLOB",
    "CREATE TABLE retained (topic TEXT NOT NULL PRIMARY KEY, md BLOB NOT NULL, props BLOB, data BLOB NOT NULL,"
    " put_time REAL NOT NULL)",
])
MIGRATIONS.append([  # 6: every later object type, one JSON record per object (registry/objects/generic.py)
    "CREATE TABLE definitions (kind TEXT NOT NULL, name TEXT NOT NULL, record TEXT NOT NULL,"
    " PRIMARY KEY (kind, name))",
])
MIGRATIONS.append([  # 7: clustered topics (CLUSTER, CLROUTE); model.Topic's defaults
    "ALTER TABLE topics ADD COLUMN cluster_name TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE topics ADD COLUMN cluster_pub_route INTEGER NOT NULL DEFAULT 0",  # MQCLROUTE_DIRECT
])
_QUEUE_COLUMNS_8 = (  # remote queues and the later Change Queue attributes: objects/definitions.py Queue's defaults
    ("remote_q_name", "TEXT NOT NULL DEFAULT ''"),
    ("remote_qmgr_name", "TEXT NOT NULL DEFAULT ''"),
    ("xmit_q_name", "TEXT NOT NULL DEFAULT ''"),
    ("cap_expiry", "INTEGER NOT NULL DEFAULT -1"),  # MQCEX_NOLIMIT
    ("max_q_file_size", "INTEGER NOT NULL DEFAULT -1"),  # MQQFS_DEFAULT
    ("image_recover_q", "INTEGER NOT NULL DEFAULT 2"),  # MQIMGRCOV_AS_Q_MGR
    ("stream_q", "TEXT NOT NULL DEFAULT ''"),
    ("stream_qos", "INTEGER NOT NULL DEFAULT 0"),  # MQST_BEST_EFFORT
    ("cluster_channel_name", "TEXT NOT NULL DEFAULT ''"),
)
_TOPIC_COLUMNS_8 = (
    ("custom", "TEXT NOT NULL DEFAULT ''"),
    ("comm_info", "TEXT NOT NULL DEFAULT ''"),
    ("cap_expiry", "INTEGER NOT NULL DEFAULT -2"),  # MQCEX_AS_PARENT
)
MIGRATIONS.append([  # 8: every attribute of IBM's Change Queue and Change Topic (docs/compat.md)
    *(f"ALTER TABLE queues ADD COLUMN {column} {declaration}" for column, declaration in _QUEUE_COLUMNS_8),
    *(f"ALTER TABLE topics ADD COLUMN {column} {declaration}" for column, declaration in _TOPIC_COLUMNS_8),
    # SYSTEM.BASE.TOPIC names the default multicast communication information, as on IBM's.
    "UPDATE topics SET comm_info = 'SYSTEM.DEFAULT.COMMINFO.MULTICAST' WHERE topic_string = ''",
])
SCHEMA_VERSION = len(MIGRATIONS)

_TABLES = {Subscription: ("subscriptions", "sub_id"), Queue: ("queues", "name"), Topic: ("topics", "name"),
           Namelist: ("namelists", "name"), Process: ("processes", "name")}
_ROW_TABLES = (Queue, Topic, Namelist, Process)  # one column per field
# Fields that are not a plain column value: a namelist's names are one JSON array of strings.
_TO_COLUMN: dict[type, dict[str, Callable[[object], object]]] = {
    Namelist: {"names": lambda names: json.dumps(list(names), ensure_ascii=False)}}
_FROM_COLUMN: dict[type, dict[str, Callable[[object], object]]] = {
    Namelist: {"names": lambda text: tuple(json.loads(text))}}


class StoreError(RuntimeError):
    pass


# The last properties rendered for the store: the object, what it held then, and its record (one tuple,
# replaced whole, so a reader on another thread never mixes two).  A publication's copies share one
# Properties object (routing.deliveries), so its persistent copies are rendered once, not once per
# subscriber; the snapshot makes a changed object render afresh (docs/decisions.md TQ5).
_last_record: tuple = (None, (), None)


def props_record(props) -> bytes | None:
    """Message properties as stored: the MQRFH2 they travel in (pcf/properties.py), None for none."""
    global _last_record
    if not props:
        return None
    last = _last_record
    if props is last[0] and props.snapshot() == last[1]:
        return last[2]
    from qmlite.pcf import properties

    data, _fmt = properties.join(props, b"", "", 273, 1208)
    _last_record = (props, props.snapshot(), data)
    return data


def props_from_record(blob: bytes | None):
    if blob is None:
        return None
    from qmlite.pcf import properties

    return properties.split(blob, "MQHRF2", 273, 1208).properties


def _row_getter(cls: type) -> Callable[[object], tuple]:
    cols = _columns(cls)
    getter = operator.attrgetter(*cols)
    convert = _TO_COLUMN.get(cls)
    if convert is None:
        return getter
    positions = [(cols.index(name), fn) for name, fn in convert.items()]

    def row(obj: object) -> tuple:
        values = list(getter(obj))
        for i, fn in positions:
            values[i] = fn(values[i])
        return tuple(values)
    return row


def _record_type(f: dataclasses.Field) -> type | tuple[type, ...]:
    """What a record field may hold: a wrong type must fail at put(), never reach the disk."""
    if f.default is dataclasses.MISSING:
        return bytes if f.name == "sub_id" else str
    kind = type(f.default)
    return (int, float) if kind is float else kind


def load_rows(db: sqlite3.Connection, cls: type) -> Iterator:
    """Every stored object of a model class (subscriptions from their records)."""
    if cls is Subscription:
        cursor = db.execute("SELECT record FROM subscriptions")
        cursor.arraysize = 4096
        while rows := cursor.fetchmany():
            for (record,) in rows:
                yield Subscription(*decode_record(record))
        return
    table, _ = _TABLES[cls]
    cols = _columns(cls)
    cursor = db.execute(f"SELECT {', '.join(cols)} FROM {table}")
    cursor.arraysize = 4096
    convert = _FROM_COLUMN.get(cls)
    if convert is not None:
        positions = [(cols.index(name), fn) for name, fn in convert.items()]
    while rows := cursor.fetchmany():
        for row in rows:
            if convert is not None:
                row = list(row)
                for i, fn in positions:
                    row[i] = fn(row[i])
            yield cls(*row)


def load_generic(db: sqlite3.Connection, kind) -> Iterator:
    """Every stored object of a generic kind (registry/objects/generic.py)."""
    from qmlite.registry.objects import generic

    for (record,) in db.execute("SELECT record FROM definitions WHERE kind = ?", (kind.name,)):
        yield generic.from_record(kind.model, record)


def load_retained(db: sqlite3.Connection) -> Iterator[tuple[str, bytes, object, bytes, float]]:
    """(topic, MQMD bytes, properties, body, when retained) of every stored retained publication."""
    for topic, md, props, data, put_time in db.execute("SELECT topic, md, props, data, put_time FROM retained"):
        yield topic, md, props_from_record(props), data, put_time


class ReadOnlyStore:
    """A data directory opened for reading only (SQLite ``mode=ro``): what the Spark pipeline and
    other tools read while a server may be running on it.  It never migrates nor writes; a data
    directory of another schema version is refused rather than misread."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path
        if not path.exists():
            raise StoreError(f"{path} does not exist")
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            self._db.close()
            raise StoreError(f"{path} has schema {version}; this qmlite reads {SCHEMA_VERSION}")

    @classmethod
    def open(cls, data_dir: pathlib.Path) -> ReadOnlyStore:
        return cls(pathlib.Path(data_dir) / FILENAME)

    def load(self, cls: type) -> Iterator:
        return load_rows(self._db, cls)

    def load_generic(self, kind) -> Iterator:
        return load_generic(self._db, kind)

    def meta(self) -> dict[str, object]:
        return dict(self._db.execute("SELECT key, value FROM meta"))

    def load_retained(self) -> Iterator[tuple[str, bytes, object, bytes, float]]:
        return load_retained(self._db)

    def close(self) -> None:
        self._db.close()


class Store:
    def __init__(self, path: pathlib.Path, *, synchronous: str = "FULL") -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        # Durability is ours, not SQLite's: transactions are written with synchronous=OFF (no fsync),
        # then ``sync`` fsyncs the WAL file -- on the server's writer thread, as one call that holds
        # no lock the event loop needs.  An fsync of the WAL after COMMIT is exactly what FULL does
        # for a WAL commit.  Checkpoints, which move pages into the database file and let the WAL be
        # reused, run with synchronous=FULL (``checkpoint``), so the file is synced before they end.
        # synchronous="NORMAL" (tests, tools) skips the per-commit fsync, as SQLite's NORMAL does.
        self.fsync_commits = synchronous.upper() in ("FULL", "EXTRA")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("PRAGMA wal_autocheckpoint=0")
        self._db.execute(f"PRAGMA journal_size_limit={self.WAL_LIMIT}")  # a reused WAL is cut back to this
        self._syncer = fsync.Syncer()  # this thread's descriptors for ``sync``
        self._wal_known = False  # whether the WAL's directory entry was synced (once, for a new file)
        self._checkpointer: sqlite3.Connection | None = None
        self._rows_since_checkpoint = 0
        self._pending: list[tuple[str, tuple]] = []
        # Journal positions: every buffered write gets the next one; ``durable`` is the highest
        # position known to be on disk.  A reply that depends on writes up to position p may be
        # sent once durable >= p, which is how group commit serves many connections with one fsync.
        self.appended = 0
        self.durable = 0
        self._write_lock = threading.Lock()  # one transaction at a time, whichever thread runs it
        self._insert = {cls: self._insert_sql(cls) for cls in _ROW_TABLES}
        self._row = {cls: _row_getter(cls) for cls in _ROW_TABLES}
        self._sub_values = operator.attrgetter(*SUBSCRIPTION_RECORD_2)
        self._sub_types = tuple(_record_type(f) for f in dataclasses.fields(Subscription))
        # One writer per data directory: a second process (an offline `qmlite runmqsc` while a server
        # runs on another port) would fold and delete the journal segments the server is appending to.
        self._lock_fd = os.open(path.parent / LOCKNAME, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            self._db.close()
            raise StoreError(f"{path.parent} is in use by another qmlite (is a server running on it?)") from None
        self._migrate()
        # Persistent messages' puts and deletes go to the message journal (registry/storage/journal.py,
        # docs/decisions.md JN1); everything else to SQLite as before.  SQLite is the base the journal
        # is folded into: at start (below), as segments fill (``checkpoint_if_large``) and at close.
        self._journal = J.Journal(path.parent, fsync=self.fsync_commits)
        self._msg_ops: list[tuple | None] = []
        # Puts among _msg_ops not yet taken for writing, by sequence number: a delete of one cancels it
        # there (its slot becomes None), so a message put and got within one group commit -- an MQTT
        # QoS 1 copy acknowledged while its put waited for the journal -- is written not at all (TR4).
        self._unwritten: dict[int, int] = {}
        self._cancelled = 0
        self._wal_dirty = False
        self._rows_since_room_check = self.WAL_CHECK_ROWS  # the first transaction's WAL is looked at (JN11)
        self._wal_room_failed = False
        self._fold_lock = threading.Lock()  # one fold at a time, whichever thread starts it
        self._recover()

    @classmethod
    def open(cls, data_dir: pathlib.Path, **kwargs) -> Store:
        return cls(pathlib.Path(data_dir) / FILENAME, **kwargs)

    @staticmethod
    def _insert_sql(cls: type) -> str:
        table, _ = _TABLES[cls]
        cols = _columns(cls)
        return f"INSERT OR REPLACE INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema {version}, newer than this qmlite ({SCHEMA_VERSION})")
        for target in range(version, SCHEMA_VERSION):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for step in MIGRATIONS[target]:
                    if callable(step):
                        step(self._db)
                    else:
                        self._db.execute(step)
                self._db.execute(f"PRAGMA user_version={target + 1}")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    # Reads: only at start-up.
    def load(self, cls: type) -> Iterator:
        return load_rows(self._db, cls)

    def load_generic(self, kind) -> Iterator:
        return load_generic(self._db, kind)

    def meta(self) -> dict[str, object]:
        return dict(self._db.execute("SELECT key, value FROM meta"))

    # Writes: buffered until commit().
    def put(self, obj: object) -> None:
        cls = type(obj)
        if cls is Subscription:
            values = self._sub_values(obj)
            for value, kind in zip(values, self._sub_types):
                if not isinstance(value, kind) or isinstance(value, bool):
                    raise TypeError(f"subscription field value {value!r} is not {kind}")
            self._append("INSERT OR REPLACE INTO subscriptions (sub_id, name, record) VALUES (?, ?, ?)",
                         (obj.sub_id, obj.name, encode_record(values)))
            return
        self._append(self._insert[cls], self._row[cls](obj))

    def put_generic(self, kind: str, obj: object) -> None:
        from qmlite.registry.objects import generic

        self._append("INSERT OR REPLACE INTO definitions (kind, name, record) VALUES (?, ?, ?)",
                     (kind, obj.name, generic.to_record(obj)))  # type: ignore[attr-defined]

    def delete_generic(self, kind: str, name: str) -> None:
        self._append("DELETE FROM definitions WHERE kind = ? AND name = ?", (kind, name))

    def delete(self, cls: type, key: object) -> None:
        table, column = _TABLES[cls]
        self._append(f"DELETE FROM {table} WHERE {column} = ?", (key,))

    def set_meta(self, key: str, value: object) -> None:
        self._append(_META_SQL, (key, value))

    def _append(self, sql: str, params: tuple) -> None:
        self._pending.append((sql, params))
        self.appended += 1

    # Messages: only persistent ones are written, to the journal.  The MQMD is kept as its
    # little-endian bytes, in the version it was put with (a version 1 descriptor has no version 2
    # field worth keeping).
    def put_message(self, queue: str, msg) -> None:
        # A message that holds its descriptor only as the bytes this store keeps (a restored snapshot's,
        # registry/storage/savepoints.py) is written as those bytes: no unpack and pack again.
        raw = msg.md_raw if msg._md is None and msg.md_raw is not None else msg.md.pack("<")
        self._unwritten[msg.seq] = len(self._msg_ops)
        self._msg_ops.append((J.PUT, msg.seq, queue, msg.priority, msg.msg_id, msg.correl_id, msg.put_time,
                              msg.expires_at, raw, msg.data, props_record(msg.props)))
        self.appended += 1

    def read_message(self, seq: int) -> tuple[bytes, bytes, object]:
        """A stored message's descriptor bytes, data and properties (it is in SQLite: it was loaded from
        there, and its delete, if any, is not folded yet)."""
        row = self._db.execute("SELECT md, data, props FROM messages WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise StoreError(f"message {seq} is not in {self.path}")
        return row[0], row[1], props_from_record(row[2])

    # Retained publications (MQPMO_RETAIN): persistent ones only; a non-persistent one is lost at a
    # restart, as IBM documents.
    def put_retained(self, topic: str, md, props, data: bytes, put_time: float) -> None:
        self._append("INSERT OR REPLACE INTO retained (topic, md, props, data, put_time) VALUES (?, ?, ?, ?, ?)",
                     (topic, md.pack("<"), props_record(props), data, put_time))

    def delete_retained(self, topic: str) -> None:
        self._append("DELETE FROM retained WHERE topic = ?", (topic,))

    def load_retained(self) -> Iterator[tuple[str, bytes, object, bytes, float]]:
        return load_retained(self._db)

    def delete_message(self, seq: int) -> None:
        index = self._unwritten.pop(seq, None)
        if index is not None:  # its put is still pending: neither goes to the journal (TR4)
            self._msg_ops[index] = None
            self._cancelled += 1
        else:
            self._msg_ops.append((J.DELETE, seq))
        self.appended += 1

    def delete_queue_messages(self, queue: str) -> None:
        self._msg_ops.append((J.CLEAR, queue))
        self.appended += 1

    def load_messages(self) -> Iterator[tuple]:
        """(seq, queue, priority, msg_id, correl_id, put_time, expires_at), in seq order: what places a
        message on its queue; its descriptor and data stay on disk until ``read_message``."""
        cursor = self._db.execute("SELECT seq, queue, priority, msg_id, correl_id, put_time, expires_at"
                                  " FROM messages ORDER BY seq")
        cursor.arraysize = 4096
        while rows := cursor.fetchmany():
            yield from rows

    @property
    def dirty(self) -> bool:
        return bool(self._pending) or len(self._msg_ops) > self._cancelled

    def commit(self) -> None:
        """Write every pending change in one transaction and fsync; nothing is written on failure.

        For callers that own the store alone (tools, tests, the synchronous engine API).  A server
        writes with ``take`` + ``write`` on its event loop and runs ``sync`` on its writer thread
        (server/durability.py).
        """
        pending, upto = self.take()
        if pending:
            self.write(pending)
            self.sync()
            self.checkpoint_if_large(self._db)
        self.durable = max(self.durable, upto)

    # Rows written after which a checkpoint moves the WAL's pages into the database file (SQLite's
    # own default is every 1,000 pages).
    CHECKPOINT_ROWS = 2000

    def sync(self) -> None:
        """Make every write so far durable, on this thread (see ``sync_plan``)."""
        plan = self.sync_plan()
        if plan:
            self._syncer.run(plan)

    def sync_plan(self) -> list[str]:
        """What makes every write so far durable (registry/storage/fsync.py): the WAL if a transaction
        was written, then the journal if a record was (nothing unless FULL).  The WAL first: a command
        that changes a definition and messages (DELETE QLOCAL PURGE) never leaves the messages' half
        alone on disk.  Called on the thread that appends; the plan may run anywhere."""
        plan: list[str] = []
        if self._wal_dirty:
            self._wal_dirty = False
            if self.fsync_commits:
                if not self._wal_known:
                    self._wal_known = True
                    plan.append("d" + str(self.path.parent))  # the WAL's directory entry, once
                plan.append("f" + str(self.path) + "-wal")  # data and size, as SQLite syncs a WAL on Linux
        plan += self._journal.sync_plan()
        return plan

    @property
    def connection(self) -> sqlite3.Connection:
        return self._db

    def checkpoint_due(self) -> bool:
        # The WAL file keeps its size when it is reused, so what counts is what was written since
        # the last checkpoint: the writes' rows, an upper bound on the pages they dirtied.
        return self._rows_since_checkpoint >= self.CHECKPOINT_ROWS

    def maintenance_due(self) -> bool:
        """Whether ``checkpoint_if_large``, ``prepare_journal`` or ``prepare_wal`` has work: journal
        segments to fold, a large WAL, the journal's next segment to preallocate, a WAL near the end of
        its zeros.  Called on the event loop after every commit: counts, no system call."""
        return (self._journal.has_closed or self.checkpoint_due() or self._journal.spare_wanted
                or self._wal_room_wanted())

    # Room ahead of the WAL (docs/decisions.md JN11).  A sync of a WAL that grew since the last one
    # commits the file's new size and blocks through the filesystem's own journal too: 180-200 µs here
    # against 100-130 µs for a transaction written over blocks the file already has (a reused WAL).  A
    # new queue manager's WAL grows with every transaction until its first checkpoint -- each
    # definition it is given pays the slow sync.  So the writer thread keeps WAL_STEP of zeros, synced,
    # ahead of the WAL's last frame, as the journal's segments are made ahead (JN6).  Zeros after the
    # last frame are harmless: SQLite reads a WAL's frames up to the first whose salts do not match its
    # header's, and a reused WAL holds old frames there anyway.
    WAL_STEP = 4 << 20
    WAL_LOW = 2 << 20  # fewer zeros than this left after the last frame: write WAL_STEP more
    WAL_LIMIT = 64 << 20  # journal_size_limit: SQLite cuts a reused WAL longer than this back to it
    WAL_CHECK_ROWS = 64  # rows written between two looks at the WAL's end (under WAL_LOW of frames)
    _WAL_CHUNK = 256 << 10  # zeros written per hold of the write lock (at most journal.ZEROS' length)
    # The wal-index header's start (sqlite.org/walformat.html, in the -shm file, native byte order):
    # iVersion, unused, iChange, isInit, bigEndCksum, szPage, mxFrame (the WAL's last valid frame).
    _WAL_INDEX = struct.Struct("=IIIBBHI")
    _WAL_INDEX_VERSION = 3007000

    def _wal_room_wanted(self) -> bool:
        # On the event loop after every commit, so no system call: one would let go of the GIL, which the
        # writer thread, back from a sync, then takes.  A count of rows; the writer thread looks at the WAL.
        return (self.fsync_commits and not self._wal_room_failed
                and self._rows_since_room_check >= self.WAL_CHECK_ROWS)

    def _wal_end(self, size: int) -> int:
        """Where the WAL's last valid frame ends, from the wal-index header; ``size`` (the file's) when the
        header is not one this reads.  With the write lock held: no transaction is moving it."""
        try:
            with open(f"{self.path}-shm", "rb", buffering=0) as shm:
                header = shm.read(self._WAL_INDEX.size)
            version, _, _, is_init, _, page, frames = self._WAL_INDEX.unpack(header)
        except (OSError, struct.error):
            return size
        page = 65536 if page == 1 else page
        if version != self._WAL_INDEX_VERSION or not is_init or page < 512:
            return size
        return 32 + frames * (24 + page)  # the WAL header, then frames of a 24-byte header and a page

    def prepare_wal(self) -> None:
        """Write zeros past the WAL's end, and sync them, so that WAL_STEP of them follow its last frame
        again once fewer than WAL_LOW do: for the server's writer thread, never the event loop (a few
        MiB of writes)."""
        if not self._wal_room_wanted():
            return
        self._rows_since_room_check = 0
        try:
            fd = os.open(f"{self.path}-wal", os.O_WRONLY)  # never created here: the WAL is SQLite's file
        except OSError:
            return
        try:
            target, zeros = 0, memoryview(J.ZEROS)[:self._WAL_CHUNK]
            while True:
                # SQLite appends frames only inside a transaction, and every transaction holds this lock:
                # the end read here is where its frames stop until the lock is let go, so zeros written
                # from there never land on a frame.
                with self._write_lock:
                    size = os.fstat(fd).st_size
                    if not target:
                        end = self._wal_end(size)
                        if size >= min(end + self.WAL_LOW, self.WAL_LIMIT):
                            return  # WAL_LOW or more of zeros (or old frames) still follow the last frame
                        target = min(end + self.WAL_STEP, self.WAL_LIMIT)
                    if size >= target:
                        break
                    os.pwrite(fd, zeros[:target - size], size)
            os.fdatasync(fd)  # the new size and blocks: later syncs of the WAL are its data alone
        except OSError as exc:  # the WAL grows as SQLite writes it, as before: slower syncs, nothing lost
            self._wal_room_failed = True
            J.log.warning("wal_room_failed", reason=str(exc))
        finally:
            os.close(fd)

    def prepare_journal(self) -> None:
        """Preallocate the journal's next segment (registry/storage/journal.py, docs/decisions.md JN6),
        if it wants one: for the server's writer thread, never the event loop (16 MiB of writes)."""
        self._journal.prepare_spare()

    def checkpoint_if_large(self, db: sqlite3.Connection | None = None) -> None:
        """Fold the journal's closed segments into SQLite, and move the WAL's pages into the database
        file once the WAL has grown, with the database file synced before the WAL may be reused.
        ``db``: the connection to do it on -- by default one of the calling thread's own (the
        server's writer thread), so the event loop never waits."""
        if db is None:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db = self._checkpointer
        if self._journal.has_closed:
            self.fold(db)
        if not self.checkpoint_due():
            return
        self._rows_since_checkpoint = 0
        db.execute("PRAGMA synchronous=FULL")
        try:
            # PASSIVE never waits for the writer: the event loop's transactions go on while the bulk of the
            # WAL is copied.  SQLite starts the WAL over (the next write after) only once a checkpoint has
            # copied every frame, and this one stops at the frames there when it began: with commands every
            # millisecond a transaction lands during almost every checkpoint, and the WAL grew for ever.
            # So the few frames written meanwhile are copied again with the write lock held: no transaction
            # adds any while it runs (none to copy: no sync, at once).  Decision JN17.
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            with self._write_lock:
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            if db is self._db:
                db.execute("PRAGMA synchronous=OFF")

    def take(self) -> tuple[tuple, int]:
        """The pending writes (SQL statements, journal operations; empty when there are none) and the
        journal position they reach; called on the thread that appends."""
        ops = self._msg_ops
        if self._cancelled:
            ops = [op for op in ops if op is not None]
        self._forget_msg_ops()
        if not self._pending and not ops:
            return (), self.appended
        pending = (self._pending, ops)
        self._pending = []
        return pending, self.appended

    def _forget_msg_ops(self) -> None:
        self._msg_ops = []
        self._unwritten = {}
        self._cancelled = 0

    def write(self, pending: tuple) -> None:
        """Write ``pending`` (what ``take`` gave), not yet synced: the SQL statements in one transaction
        (any thread; transactions never interleave), the journal operations as one record (on the
        thread that appends)."""
        statements, ops = pending
        if statements and ops:
            # One unit in both files (a restored snapshot: definitions in SQLite, messages in the journal): the
            # record first, marked, then the transaction with its LSN; a crash between leaves a marked record
            # that recovery drops (journal.TIED), so the unit is all there or not at all.
            self._journal.append([*ops, (J.TIED,)])
            statements, ops = [*statements, (_META_SQL, ("journal_tied", self._journal.lsn))], None
        if statements:
            self._write_sql(statements)
            self._wal_dirty = True
        if ops:
            self._journal.append(ops)

    def _write_sql(self, pending: list[tuple[str, tuple]]) -> None:
        with self._write_lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                # Runs of the same statement go in one executemany: fewer round trips into SQLite and,
                # on a writer thread, fewer hand-overs of the GIL to and from the event loop.
                run_sql, run = None, []
                for sql, params in pending:
                    if sql is not run_sql and sql != run_sql:
                        if run:
                            db.executemany(run_sql, run)
                        run_sql, run = sql, []
                    run.append(params)
                if run:
                    db.executemany(run_sql, run)
                db.execute("COMMIT")
                self._rows_since_checkpoint += len(pending)
                self._rows_since_room_check += len(pending)
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def discard(self) -> None:
        self._pending.clear()
        self._forget_msg_ops()

    # ---- the journal's fold into SQLite ------------------------------------------------------------
    _FOLD_ROWS = 4096  # rows per fold transaction: the longest the event loop may wait for a write

    def _recover(self) -> None:
        """At open: apply what the journal holds beyond SQLite's record of the last fold."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'journal_lsn'").fetchone()
        folded = int(row[0]) if row is not None else 0
        row = self._db.execute("SELECT value FROM meta WHERE key = 'journal_tied'").fetchone()
        effect, last, paths = self._journal.recover(folded, int(row[0]) if row is not None else 0)
        if effect or last > folded:
            self._fold_effect(self._db, effect, last)
            J.log.info("journal_recovered", records=last - folded, puts=len(effect.puts),
                       deletes=len(effect.deletes), clears=len(effect.clears), segments=len(paths))
        J.remove_files(paths, self._journal.directory)

    def fold(self, db: sqlite3.Connection | None = None) -> None:
        """Apply the journal's closed segments to SQLite, durably, then delete their files.  Skipped
        when another thread is folding already (it takes these segments too, or the next fold does)."""
        if not self._fold_lock.acquire(blocking=False):
            return
        try:
            closed = self._journal.closed()
            if not closed:
                return
            effect = J.NetEffect(strict=True)
            for _path, segment, _last in closed:
                effect.merge(segment)
            self._fold_effect(db if db is not None else self._db, effect, closed[-1][2])
            self._journal.folded(closed)
        finally:
            self._fold_lock.release()

    def _fold_effect(self, db: sqlite3.Connection, effect: J.NetEffect, lsn: int) -> None:
        """Deletes, then emptied queues, then the surviving puts, in transactions of ``_FOLD_ROWS``
        rows; the last records ``lsn`` as folded.  A fold cut short is done again from the journal
        at the next start: its statements give the same rows when repeated."""
        work: list[tuple[str, list[tuple]]] = []
        for sql, rows in (("DELETE FROM messages WHERE seq = ?", [(seq,) for seq in effect.deletes]),
                          ("DELETE FROM messages WHERE queue = ?", [(queue,) for queue in effect.clears]),
                          ("INSERT OR REPLACE INTO messages (seq, queue, priority, msg_id, correl_id, put_time,"
                           " expires_at, md, data, props) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [op[1:] for op in effect.puts.values()])):
            for start in range(0, len(rows), self._FOLD_ROWS):
                work.append((sql, rows[start:start + self._FOLD_ROWS]))
        work.append((_META_SQL, [("journal_lsn", lsn)]))
        db.execute(f"PRAGMA synchronous={'FULL' if self.fsync_commits else 'OFF'}")
        try:
            for sql, rows in work:
                with self._write_lock:
                    db.execute("BEGIN IMMEDIATE")
                    try:
                        db.executemany(sql, rows)
                        db.execute("COMMIT")
                    except BaseException:
                        db.execute("ROLLBACK")
                        raise
                self._rows_since_checkpoint += len(rows)
                self._rows_since_room_check += len(rows)
        finally:
            if db is self._db:
                db.execute("PRAGMA synchronous=OFF")

    def close(self) -> None:
        self._pending.clear()
        self._forget_msg_ops()
        if self._db is None:
            return  # closed already
        # Everything the journal holds goes into SQLite: a data directory closed cleanly has no journal.
        self._journal.close_current()
        self.fold(self._db)
        self._journal.close()
        self._syncer.close()
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        # Closing checkpoints the WAL into the database file and deletes it: with the file synced first.
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.close()
        self._db = None
        os.close(self._lock_fd)
