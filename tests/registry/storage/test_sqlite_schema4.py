"""Schema 4 (registry/storage/sqlite.py): the queue attributes MQINQ documents, namelists and process definitions."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.storage import sqlite as SQ
from qmlite.registry.objects.definitions import Namelist, Process, Queue
from qmlite.registry.storage.catalog import Registry

SQL_TYPE = {"str": "TEXT", "int": "INTEGER", "float": "REAL", "tuple[str, ...]": "TEXT"}


def columns(path, table):
    with sqlite3.connect(path) as db:
        rows = db.execute(f"PRAGMA table_info({table})").fetchall()
    return {name: (decl, notnull) for _cid, name, decl, notnull, _d, _pk in rows}


@pytest.mark.parametrize("table, cls", [("queues", Queue), ("namelists", Namelist), ("processes", Process)])
def test_one_not_null_column_per_field_in_field_order(tmp_path, table, cls):
    SQ.Store.open(tmp_path).close()
    cols = columns(tmp_path / SQ.FILENAME, table)
    fields = [(f.name, f.type) for f in dataclasses.fields(cls)]
    assert list(cols) == [name for name, _ in fields]  # Registry._load builds objects by position
    for name, py_type in fields:
        assert cols[name] == (SQL_TYPE[py_type], 1), (table, name)


def test_column_defaults_are_the_model_defaults(tmp_path):
    """An upgraded queue gets exactly what a new one would (the migration is frozen SQL; the model is not)."""
    SQ.Store.open(tmp_path).close()
    with sqlite3.connect(tmp_path / SQ.FILENAME) as db:
        db.execute("INSERT INTO queues (name, qtype, description, max_depth, max_msg_length, def_persistence,"
                   " def_priority, inhibit_get, inhibit_put, shareability, def_input_open_option, usage,"
                   " definition_type, def_type, target, target_type, created, altered)"
                   " VALUES ('OLD.Q', 1, '', 5000, 4194304, 0, 0, 0, 0, 1, 2, 0, 1, 2, '', 1, 0.0, 0.0)")
    store = SQ.Store.open(tmp_path)
    (old,) = [q for q in store.load(Queue) if q.name == "OLD.Q"]
    store.close()
    assert old == Queue("OLD.Q")


def test_a_schema_3_database_is_upgraded_with_the_default_namelist_and_process(tmp_path, monkeypatch, clock):
    monkeypatch.setattr(SQ, "MIGRATIONS", SQ.MIGRATIONS[:3])
    monkeypatch.setattr(SQ, "SCHEMA_VERSION", 3)
    monkeypatch.setattr(SQ, "_ROW_TABLES", (Queue,))  # what schema 3 could store
    store = SQ.Store.open(tmp_path)  # what a schema-3 queue manager left behind
    store.set_meta("qmgr_name", "QM1")
    store.set_meta("created", 1.0)
    store.set_meta("dead_letter_queue", "DEV.DEAD.LETTER.QUEUE")
    store.commit()
    with sqlite3.connect(tmp_path / SQ.FILENAME) as db:
        db.execute("INSERT INTO queues (name, qtype, description, max_depth, max_msg_length, def_persistence,"
                   " def_priority, inhibit_get, inhibit_put, shareability, def_input_open_option, usage,"
                   " definition_type, def_type, target, target_type, created, altered)"
                   " VALUES ('KEPT.Q', 1, 'kept', 7, 100, 1, 3, 0, 0, 1, 2, 0, 1, 2, '', 1, 1.0, 1.0)")
    store.close()
    monkeypatch.undo()
    reg = Registry.open(tmp_path, "QM1", clock=clock, synchronous="NORMAL")
    try:
        assert reg.store.schema_version == SQ.SCHEMA_VERSION
        kept = reg.queues["KEPT.Q"]
        assert (kept.description, kept.max_depth, kept.def_priority) == ("kept", 7, 3)
        assert (kept.trigger_type, kept.retention_interval, kept.clwl_use_q) == (
            C.MQTT_FIRST, 999_999_999, C.MQCLWL_USEQ_AS_Q_MGR)
        assert set(reg.namelists) == {"SYSTEM.DEFAULT.NAMELIST"}
        assert reg.processes["SYSTEM.DEFAULT.PROCESS"].appl_type == C.MQAT_UNIX
        assert reg.qmgr.conn_auth == "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"  # never recorded: the default
    finally:
        reg.close()
