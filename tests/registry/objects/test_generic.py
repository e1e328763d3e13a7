"""The generic definitions table (registry/objects/generic.py, schema 6): objects survive a restart, a field
added later loads with its default, and default objects are seeded once."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from qmlite.registry.objects import generic
from qmlite.registry.storage.catalog import Registry


@dataclasses.dataclass(slots=True)
class Gadget:
    name: str
    size: int = 3
    tags: tuple[str, ...] = ()
    token: bytes = bytes(4)
    created: float = 0.0
    altered: float = 0.0


@pytest.fixture
def gadget_kind():
    kind = generic.register(generic.GenericKind("gadget", Gadget, lambda dev: [Gadget("SYSTEM.DEF.GADGET")]
                                            + ([Gadget("DEV.GADGET", size=9)] if dev else [])))
    yield kind
    generic._KINDS.pop("gadget")
    generic._BY_MODEL.pop(Gadget)


def test_generic_objects_survive_a_restart_with_their_types(tmp_path, gadget_kind):
    reg = Registry.open(tmp_path, synchronous="NORMAL")
    assert set(reg.objects("gadget")) == {"SYSTEM.DEF.GADGET", "DEV.GADGET"}  # seeded at first start
    reg.put_object("gadget", Gadget("MINE", size=7, tags=("a", "b"), token=b"\x00\x01\x02\xff"))
    reg.remove_object("gadget", reg.objects("gadget")["SYSTEM.DEF.GADGET"])
    reg.commit()
    reg.close()
    again = Registry.open(tmp_path, synchronous="NORMAL")
    try:
        assert again.objects("gadget")["MINE"] == Gadget("MINE", 7, ("a", "b"), b"\x00\x01\x02\xff")
        assert "SYSTEM.DEF.GADGET" not in again.objects("gadget")  # a deleted default stays deleted
        assert again.objects("gadget")["DEV.GADGET"].created > 0
    finally:
        again.close()


def test_a_record_missing_a_field_loads_with_its_default_and_unknown_fields_are_ignored(tmp_path, gadget_kind):
    Registry.open(tmp_path, synchronous="NORMAL").close()
    db = sqlite3.connect(tmp_path / "qmlite.db")
    db.execute("INSERT INTO definitions VALUES ('gadget', 'OLD', '{\"name\": \"OLD\", \"gone\": 1}')")
    db.commit()
    db.close()
    reg = Registry.open(tmp_path, synchronous="NORMAL")
    try:
        assert reg.objects("gadget")["OLD"] == Gadget("OLD")
    finally:
        reg.close()


def test_a_kind_new_to_an_existing_data_directory_gets_its_defaults_once(tmp_path):
    Registry.open(tmp_path, synchronous="NORMAL").close()  # made before the kind existed
    kind = generic.register(generic.GenericKind("gadget", Gadget, lambda dev: [Gadget("SYSTEM.DEF.GADGET")]))
    try:
        reg = Registry.open(tmp_path, synchronous="NORMAL")
        assert list(reg.objects("gadget")) == ["SYSTEM.DEF.GADGET"]
        reg.remove_object("gadget", reg.objects("gadget")["SYSTEM.DEF.GADGET"])
        reg.commit()
        reg.close()
        reg = Registry.open(tmp_path, synchronous="NORMAL")
        assert reg.objects("gadget") == {}
        reg.close()
    finally:
        generic._KINDS.pop(kind.name)
        generic._BY_MODEL.pop(Gadget)


def test_system_queues_added_later_reach_an_existing_data_directory_once(tmp_path):
    reg = Registry.open(tmp_path, synchronous="NORMAL")
    stats = reg.queues["SYSTEM.ADMIN.STATISTICS.QUEUE"]
    reg.remove_queue(stats)
    reg.store.set_meta("seeded.system_queues.7", None)  # as a data directory made before the list grew
    reg.store.delete(type(stats), "SYSTEM.ADMIN.QMGR.EVENT")
    reg.commit()
    reg.close()
    db = sqlite3.connect(tmp_path / "qmlite.db")
    db.execute("DELETE FROM meta WHERE key = 'seeded.system_queues.7'")
    db.commit()
    db.close()
    reg = Registry.open(tmp_path, synchronous="NORMAL")
    assert {"SYSTEM.ADMIN.STATISTICS.QUEUE", "SYSTEM.ADMIN.QMGR.EVENT"} <= set(reg.queues)
    reg.remove_queue(reg.queues["SYSTEM.ADMIN.STATISTICS.QUEUE"])  # deleted by an administrator
    reg.commit()
    reg.close()
    reg = Registry.open(tmp_path, synchronous="NORMAL")
    try:
        assert "SYSTEM.ADMIN.STATISTICS.QUEUE" not in reg.queues
    finally:
        reg.close()
