"""Durable storage of the registry in one SQLite file (WAL, fsync at every commit).

Changes are buffered as pending operations and written in one transaction by ``commit()``; a caller
that acknowledges a command only after ``commit()`` returns never acknowledges a lost change, and a
caller that commits several commands at once (group commit) pays for one fsync.  Either a whole
commit is on disk or none of it is, so a crash never leaves a command half-applied.

The schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS[n]`` turns version n into n + 1.
"""

from __future__ import annotations

import dataclasses
import operator
import pathlib
import sqlite3
from collections.abc import Iterator

from .model import Queue, Subscription, Topic

FILENAME = "qmlite.db"


def _columns(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


# Each version is literal SQL, frozen once released: a migration must not change when the model does,
# or a fresh database and an upgraded one would differ.  A new model field needs a new version with an
# ALTER TABLE (tests/test_store.py fails when a model field has no column).
MIGRATIONS: list[list[str]] = [
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
SCHEMA_VERSION = len(MIGRATIONS)

_TABLES = {Subscription: ("subscriptions", "sub_id"), Queue: ("queues", "name"), Topic: ("topics", "name")}


class StoreError(RuntimeError):
    pass


class Store:
    def __init__(self, path: pathlib.Path, *, synchronous: str = "FULL") -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._pending: list[tuple[str, tuple]] = []
        self._insert = {cls: self._insert_sql(cls) for cls in _TABLES}
        self._row = {cls: operator.attrgetter(*_columns(cls)) for cls in _TABLES}
        self._migrate()

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
                for statement in MIGRATIONS[target]:
                    self._db.execute(statement)
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
        table, _ = _TABLES[cls]
        cols = _columns(cls)
        cursor = self._db.execute(f"SELECT {', '.join(cols)} FROM {table}")
        cursor.arraysize = 4096
        while rows := cursor.fetchmany():
            for row in rows:
                yield cls(*row)

    def meta(self) -> dict[str, object]:
        return dict(self._db.execute("SELECT key, value FROM meta"))

    # Writes: buffered until commit().
    def put(self, obj: object) -> None:
        cls = type(obj)
        self._pending.append((self._insert[cls], self._row[cls](obj)))

    def delete(self, cls: type, key: object) -> None:
        table, column = _TABLES[cls]
        self._pending.append((f"DELETE FROM {table} WHERE {column} = ?", (key,)))

    def set_meta(self, key: str, value: object) -> None:
        self._pending.append(("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value)))

    @property
    def dirty(self) -> bool:
        return bool(self._pending)

    def commit(self) -> None:
        """Write every pending change in one transaction and fsync; nothing is written on failure."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for sql, params in pending:
                db.execute(sql, params)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def discard(self) -> None:
        self._pending.clear()

    def close(self) -> None:
        self._pending.clear()
        self._db.close()
