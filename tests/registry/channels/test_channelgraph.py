"""The topology's view of one queue manager's message channels (registry/channels/channelgraph.py, MCP4): a
batch a crash left in doubt shows on the sender's edge as IN DOUBT after the restart, read from its saved
status, until RESOLVE CHANNEL settles it; the receiver's view of the same channel.  The two ends are
driven as test_channel_ends.py drives them (no sockets)."""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.registry.channels.channelgraph import channel_views, graph
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager
from tests.registry.channels.test_channel_ends import CHANNEL, pair  # noqa: F401  (the fixture)
from tests.registry.storage.test_journal import abandon


def _view(qm):
    (view,) = [v for v in qm.message_channel_views() if v.name == CHANNEL]
    return view


def test_a_batch_left_in_doubt_by_a_crash_is_an_in_doubt_edge_until_resolved(pair):  # noqa: F811
    pair.put(b"a", b"b", b"c")
    pair.send_batch()
    sender = _view(pair.qm1)
    assert (sender.channel_type, sender.in_doubt, sender.msgs, sender.batches) == (C.MQCHT_SENDER, False, 3, 1)
    pair.put(b"d", b"e")
    pair.send_batch(stop_at="received")  # the receiver committed; the sender never heard
    for qm in (pair.qm1, pair.qm2):
        abandon(qm.registry.store)
    pair.qm1 = QueueManager.open(pair.dirs[0], "QM1", synchronous="NORMAL")
    pair.qm2 = QueueManager.open(pair.dirs[1], "QM2", synchronous="NORMAL")

    sender, receiver = _view(pair.qm1), _view(pair.qm2)
    assert (sender.status, sender.in_doubt, sender.qmgr, sender.xmit_q) == ("INACTIVE", True, "QM1", "QM2")
    assert (receiver.channel_type, receiver.status, receiver.in_doubt) == (C.MQCHT_RECEIVER, "INACTIVE", False)
    doc = graph({"QM1": channel_views(pair.qm1), "QM2": channel_views(pair.qm2)}, {}, set())
    (edge,) = [e for e in doc["channel"] if e["name"] == CHANNEL and e["definedOn"] == "QM1"]
    assert (edge["state"], edge["inDoubt"], edge["from"], edge["status"]) == ("indoubt", True, "QM1", "INACTIVE")

    (result,) = run_mqsc(pair.qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
    assert result.completion_code == 0, result.text
    assert _view(pair.qm1).in_doubt is False
