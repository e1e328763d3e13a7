"""registry/reset.py: back to a new queue manager's definitions, every queue empty."""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry import authrecs, defaults
from qmlite.registry import authvocab as A
from qmlite.registry.model import Queue, Topic
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.reset import reset_to_defaults


def test_reset_empties_queues_and_removes_what_was_added(tmp_path):
    qm = QueueManager.open(tmp_path / "d", synchronous="OFF")
    reg = qm.registry
    before_queues = set(reg.queues)
    before_kinds = {name: set(reg.objects(name)) for name in ("channel", "authrec")}
    reg.put_queue(Queue(name="APP.Q"))
    reg.put_topic(Topic(name="APP.T", topic_string="app/t"))
    reg.queues["DEV.QUEUE.1"].max_depth = 7  # an altered default comes back as created
    session = qm.connect("QM1", user="mqm", admin=True)
    for name in ("DEV.QUEUE.1", "APP.Q"):
        qm.put1(session, S.MQOD(ObjectName=name), S.MQMD(Persistence=C.MQPER_PERSISTENT), S.MQPMO(), b"x")
    channel = next(iter(reg.objects("channel").values()))
    extra = type(channel)(name="APP.SVRCONN")
    reg.put_object("channel", extra)
    app_queue_rec = next(rec for rec in reg.objects("authrec").values()
                         if rec.entity == "app" and rec.object_type == C.MQOT_Q and rec.profile == "DEV.**")
    reg.remove_object("authrec", app_queue_rec)
    authrecs.invalidate(reg)
    assert not authrecs.has(reg, "app", C.MQOT_Q, "DEV.QUEUE.1", A.MQAUTH_OUTPUT)
    done = reset_to_defaults(qm)
    assert done["messages"] == 2 and done["queues"] == 1 and done["topics"] == 1 and done["objects"] >= 1
    assert set(reg.queues) == before_queues and "APP.T" not in reg.topics
    assert reg.queues["DEV.QUEUE.1"].max_depth == defaults.dev_queues()[0].max_depth
    assert {name: set(reg.objects(name)) for name in ("channel", "authrec")} == before_kinds
    assert authrecs.has(reg, "app", C.MQOT_Q, "DEV.QUEUE.1", A.MQAUTH_OUTPUT)  # the removed record is back
    reg.commit()
    qm.shutdown()
    qm = QueueManager.open(tmp_path / "d", synchronous="OFF")  # what was reset stays reset
    assert qm.registry.messages.depth("DEV.QUEUE.1") == 0 and "APP.Q" not in qm.registry.queues
    qm.shutdown()
