"""The pytest plugin's ``qmlite_topology`` (client/topology.py): several queue managers joined by message
channels in one call, every channel RUNNING when it returns; messages put through IBM's ibmmq move
between them, request and reply; a stopped channel's status waited for.  Hosted in one server, and in
separate ``qmlite serve`` processes."""

from __future__ import annotations

import pytest

from qmlite.client.topology import TopologyChannel, channel_name, running_topology

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC  # noqa: E402

MESH = [("QM1", "QM2"), ("QM2", "QM1"), ("QM1", "QM3"), ("QM3", "QM1"), ("QM2", "QM3"), ("QM3", "QM2")]


def test_three_queue_managers_with_channels_both_ways_move_a_message_from_qm1_to_qm3(qmlite_topology):
    topo = qmlite_topology(qmgrs=["QM1", "QM2", "QM3"], channels=MESH, queues={"QM3": ["ORDERS"]},
                           remote_queues=[("QM1", "ORDERS.QM3", "QM3", "ORDERS")])
    assert topo.names == ["QM1", "QM2", "QM3"]
    assert {c.name for c in topo.channels} == {f"{s}.TO.{t}" for s, t in MESH}
    assert topo.channel("QM1", "QM3") == TopologyChannel("QM1.TO.QM3", "QM1", "QM3", "QM3", "DISCINT(0)")
    # Every channel RUNNING at both ends when the call returned; one server's port behind all three.
    for channel in topo.channels:
        assert topo.status(channel) == "RUNNING"
        assert topo.status(channel, qmgr=channel.target) == "RUNNING"
    assert {topo[name].port for name in topo.names} == {topo["QM1"].port}

    msg_id = topo.put("QM1", "QM3", "ORDERS", b"order 1")  # ObjectQMgrName QM3: the transmission queue QM3
    md = ibmmq.MD()
    assert topo.get("QM3", "ORDERS", md=md) == b"order 1"
    assert (md.MsgId, md.Persistence, md.PutApplType) == (msg_id, CMQC.MQPER_PERSISTENT, CMQC.MQAT_UNIX)
    # The remote queue definition asked for: QM1's ORDERS.QM3 is QM3's ORDERS.
    qm = topo.ibmmq("QM1")
    try:
        queue = ibmmq.Queue(qm, "ORDERS.QM3", CMQC.MQOO_OUTPUT)
        queue.put(b"order 2", ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
        queue.close()
    finally:
        qm.disconnect()
    assert topo.get("QM3", "ORDERS") == b"order 2"


def test_request_and_reply_across_separate_qmlite_serve_processes(tmp_path):
    with running_topology(tmp_path, ["QM1", "QM2"], [("QM1", "QM2"), ("QM2", "QM1")], hosting="processes",
                          queues={"QM1": ["REPLIES"], "QM2": ["REQUESTS"]}) as topo:
        assert topo["QM1"].port != topo["QM2"].port
        request_id = topo.put("QM1", "QM2", "REQUESTS", b"ping?", ReplyToQ=b"REPLIES", ReplyToQMgr=b"QM1",
                              MsgType=CMQC.MQMT_REQUEST)
        request = ibmmq.MD()
        assert topo.get("QM2", "REQUESTS", md=request) == b"ping?"
        assert (request.ReplyToQ.strip(), request.ReplyToQMgr.strip()) == (b"REPLIES", b"QM1")
        # The reply goes back the way IBM's applications send it: to ReplyToQ at ReplyToQMgr.
        topo.put("QM2", request.ReplyToQMgr.strip().decode(), request.ReplyToQ.strip().decode(), b"pong!",
                 CorrelId=request.MsgId, MsgType=CMQC.MQMT_REPLY)
        reply = ibmmq.MD()
        assert topo.get("QM1", "REPLIES", md=reply) == b"pong!"
        assert reply.CorrelId == request_id


def test_a_stopped_channel_is_waited_for_and_started_again(qmlite_topology):
    topo = qmlite_topology(qmgrs=["QM1", "QM2"], channels=[("QM1", "QM2")], queues={"QM2": ["IN"]})
    channel = topo.channel("QM1", "QM2")
    topo.stop_channel(channel)  # returns once STOPPED shows
    assert topo.status(channel) == "STOPPED"
    topo.put("QM1", "QM2", "IN", b"kept")  # waits on the transmission queue while the channel is stopped
    with pytest.raises(TimeoutError, match="is STOPPED, not RUNNING"):
        topo.wait_for_status(channel, "RUNNING", timeout=0.2)
    topo.start_channel(channel)
    assert topo.status(channel) == "RUNNING"
    assert topo.get("QM2", "IN") == b"kept"


def test_bad_topologies_are_refused_before_anything_starts(tmp_path):
    with pytest.raises(ValueError, match="both ends"):
        running_topology(tmp_path, ["QM1"], [("QM1", "QM9")]).__enter__()
    with pytest.raises(ValueError, match="hosting"):
        running_topology(tmp_path, ["QM1"], hosting="containers").__enter__()
    with pytest.raises(NotImplementedError, match="clusters"):
        running_topology(tmp_path, ["QM1", "QM2"], cluster="DEMO").__enter__()
    assert channel_name("QM1", "QM2") == "QM1.TO.QM2"
    assert channel_name("QMGR.ALPHA", "QMGR.BETA") == "QMGR.ALPHA.QMGR.BETA"  # 20 characters: IBM's limit
    with pytest.raises(ValueError, match="at most 20"):
        channel_name("QMGR.ALPHA.LONG", "QMGR.BETA")


def test_sigkill_of_the_receiving_process_then_its_restart_loses_no_persistent_message(tmp_path):
    # The sender retries every second; the receiver comes back on the same port with the same data.
    with running_topology(tmp_path, ["QM1", "QM2"], [("QM1", "QM2", "SHORTRTY(100) SHORTTMR(1)")],
                          hosting="processes", queues={"QM2": ["IN"]}) as topo:
        channel = topo.channel("QM1", "QM2")
        topo.put("QM1", "QM2", "IN", b"before")
        assert topo.get("QM2", "IN") == b"before"
        topo.kill("QM2")
        topo.wait_for_status(channel, "RETRYING")  # the sender saw its partner go
        topo.put("QM1", "QM2", "IN", b"while down")
        topo.restart("QM2")
        topo.wait_for_status(channel, "RUNNING")
        assert topo.get("QM2", "IN") == b"while down"


def test_only_a_queue_manager_in_a_process_of_its_own_is_killed(qmlite_topology):
    topo = qmlite_topology(qmgrs=["QM1"])
    with pytest.raises(ValueError, match="not in a process of its own"):
        topo.kill("QM1")
