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
    with pytest.raises(ValueError, match="a dict with a name"):
        running_topology(tmp_path, ["QM1", "QM2"], cluster="DEMO").__enter__()
    with pytest.raises(ValueError, match="the repos among the members"):
        running_topology(tmp_path, ["QM1", "QM2"], cluster={"name": "DEMO", "repos": ["QM9"]}).__enter__()
    with pytest.raises(ValueError, match="over 20 characters"):
        running_topology(tmp_path, ["QM1"], cluster={"name": "A.LONG.CLUSTER.NAME"}).__enter__()
    with pytest.raises(ValueError, match="in 2 clusters"):
        running_topology(tmp_path, ["QM1"], cluster=[{"name": "A"}, {"name": "B"}],
                         cluster_queues={"QM1": ["Q"]}).__enter__()
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


def _put_many(topo, qmgr: str, queue: str, count: int) -> None:
    """``count`` messages put on ``qmgr`` to ``queue`` (not defined there: the cluster resolves it), each
    MQPUT choosing its instance again (MQOO_BIND_NOT_FIXED)."""
    qm = topo.ibmmq(qmgr)
    try:
        q = ibmmq.Queue(qm, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
        for i in range(count):
            q.put(b"order %d" % i, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        q.close()
    finally:
        qm.disconnect()


def _drain(topo, qmgr: str, queue: str) -> list[bytes]:
    """Every message on ``queue`` of ``qmgr`` now (no wait: the caller waited for its arrival)."""
    got = []
    while True:
        try:
            got.append(topo.get(qmgr, queue, wait=0))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return got


def _cluster_puts_reach_both_full_repositories(topo) -> None:
    everyone = {("DEMO", q) for q in ("QM1", "QM2", "QM3")}
    for qmgr in ("QM1", "QM2", "QM3"):  # every member knows every other, and both instances of ORDERS
        assert {(m.cluster, m.qmgr) for m in topo.cluster_members(qmgr)} == everyone, qmgr
        assert {(q.cluster, q.queue, q.qmgr) for q in topo.cluster_queues(qmgr)} == {
            ("DEMO", "ORDERS", "QM1"), ("DEMO", "ORDERS", "QM2")}, qmgr
    rows = {m.qmgr: m for m in topo.cluster_members("QM3")}
    assert (rows["QM1"].repository, rows["QM2"].repository, rows["QM3"].repository) == (True, True, False)
    assert (rows["QM1"].deftype, rows["QM2"].deftype, rows["QM3"].deftype) == ("CLUSSDRB", "CLUSSDRA", "CLUSRCVR")
    assert (rows["QM1"].channel, rows["QM3"].channel) == ("DEMO.QM1", "DEMO.QM3")
    assert topo.clusters[0].members == ("QM1", "QM2", "QM3") and topo.clusters[0].sends_to("QM3") == ("QM1",)

    _put_many(topo, "QM3", "ORDERS", 10)  # QM3, the partial repository, has no ORDERS of its own
    first = {name: [topo.get(name, "ORDERS")] for name in ("QM1", "QM2")}  # each waited for
    got = {name: first[name] + _drain(topo, name, "ORDERS") for name in first}
    # Each full repository got some (the split is the workload algorithm's: tests/server/mca/test_cluster.py),
    # together every message once.
    assert sorted(got["QM1"] + got["QM2"]) == sorted(b"order %d" % i for i in range(10))


def test_a_three_member_cluster_from_the_fixture_spreads_a_partial_repositorys_puts(qmlite_topology):
    topo = qmlite_topology(qmgrs=["QM1", "QM2", "QM3"], cluster={"name": "DEMO", "repos": ["QM1", "QM2"]},
                           cluster_queues={"QM1": ["ORDERS"], "QM2": ["ORDERS"]})
    _cluster_puts_reach_both_full_repositories(topo)


def test_a_cluster_of_separate_qmlite_serve_processes(tmp_path):
    with running_topology(tmp_path, ["QM1", "QM2", "QM3"], hosting="processes",
                          cluster={"name": "DEMO", "repos": ["QM1", "QM2"],
                                   "queues": {"QM1": ["ORDERS"], "QM2": ["ORDERS"]}}) as topo:
        assert len({topo[name].port for name in topo.names}) == 3
        _cluster_puts_reach_both_full_repositories(topo)


def test_two_clusters_sharing_a_full_repository(qmlite_topology):
    # QM1 a full repository of both (REPOSNL), QM2 a full repository of RED, QM3 of BLUE only.
    topo = qmlite_topology(qmgrs=["QM1", "QM2", "QM3"], cluster=[
        {"name": "RED", "repos": ["QM1", "QM2"], "members": ["QM1", "QM2"], "queues": {"QM2": ["PAINT"]}},
        {"name": "BLUE", "repos": ["QM1", "QM3"], "members": ["QM1", "QM3"], "queues": {"QM3": ["INK"]}}])
    assert [c.name for c in topo.clusters] == ["RED", "BLUE"]
    assert {(m.cluster, m.qmgr) for m in topo.cluster_members("QM1")} == {
        ("RED", "QM1"), ("RED", "QM2"), ("BLUE", "QM1"), ("BLUE", "QM3")}
    assert {(m.cluster, m.qmgr, m.channel) for m in topo.cluster_members("QM2")} >= {("RED", "QM1", "RED.QM1")}
    assert {(q.cluster, q.queue, q.qmgr) for q in topo.cluster_queues("QM1")} == {
        ("RED", "PAINT", "QM2"), ("BLUE", "INK", "QM3")}
    assert [(q.queue, q.qmgr) for q in topo.cluster_queues("QM2", "RED")] == [("PAINT", "QM2")]
    _put_many(topo, "QM1", "INK", 2)  # QM1 resolves BLUE's INK to QM3
    assert [topo.get("QM3", "INK"), topo.get("QM3", "INK")] == [b"order 0", b"order 1"]
