"""A registry read without writing (a data directory in use, a snapshot blob) routes as the live one."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.pubsub import routing
from qmlite.registry.storage import definitionsblob
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.storage.catalog import Registry
from qmlite.registry.storage.sqlite import StoreError
from tests.support.pcfkit import command, i, st


def _admin_sub(qm, name, topic, dest="DEV.QUEUE.1", *extra):
    reply = qm.engine.execute(command(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, name),
                                      st(C.MQCA_TOPIC_STRING, topic), st(C.MQCACF_DESTINATION, dest), *extra))
    assert reply[-1].header.Reason == 0


def _routed(reg, topic):
    return sorted(s.name for s in routing.receivers(reg, routing.Publication(topic, S.MQMD(), b"")))


def test_readonly_registry_and_snapshot_route_like_the_live_one(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", clock=clock, synchronous="NORMAL")
    try:
        _admin_sub(qm, "A", "price/#")
        _admin_sub(qm, "B", "price/fruit", "DEV.QUEUE.2", i(C.MQIACF_SUB_LEVEL, 2))
        _admin_sub(qm, "C", "price/+/apple", "DEV.QUEUE.3", st(C.MQCACF_SUB_SELECTOR, "Colour = 'red'"))
        qm.flush()
        live = qm.registry
        ro = Registry.open_readonly(tmp_path / "qm")  # while the queue manager has it open
        again = definitionsblob.load(definitionsblob.dump(ro))
        for topic in ("price/fruit", "price/veg/apple", "price", "other"):
            assert _routed(ro, topic) == _routed(live, topic) == _routed(again, topic), topic
        assert sorted(again.subs) == sorted(live.subs) and sorted(again.topics) == sorted(live.topics)
        assert again.subs["C"].selector == "Colour = 'red'"
    finally:
        qm.shutdown()


def test_readonly_open_refuses_what_it_cannot_read(tmp_path):
    with pytest.raises(StoreError):
        Registry.open_readonly(tmp_path / "nothing-here")
    with pytest.raises(definitionsblob.SnapshotError):
        definitionsblob.load(b"not marshal at all")
