"""qmlite's ``GET /admin/qmlite/topology`` (server/http/topologyroutes.py, registry/channels/channelgraph.py):
the hosted queue managers, the partners their channels name, one edge per message channel with its
status; running channels, a stopped one, a sender whose partner is another server known by its CONNAME,
a batch in doubt; the role it needs."""

from __future__ import annotations

import httpx
import pytest

from qmlite.client.topology import running_topology
from qmlite.pcf import constants as C
from qmlite.registry.channels.channelgraph import ChannelView, graph

ADMIN = ("admin", "passw0rd")
TOPOLOGY = "/ibmmq/rest/v2/admin/qmlite/topology"


def _read(topo) -> dict:
    r = httpx.get(f"http://127.0.0.1:{topo['QM1'].http_port}{TOPOLOGY}", auth=ADMIN)
    assert r.status_code == 200, r.text
    return r.json()


def _edges(doc: dict) -> dict:
    return {e["name"]: e for e in doc["channel"]}


def test_running_and_stopped_channels_between_hosted_queue_managers(tmp_path):
    with running_topology(tmp_path, ["QM1", "QM2", "QM3"], [("QM1", "QM2"), ("QM2", "QM1"), ("QM1", "QM3")],
                          queues={"QM2": ["IN"]}, http_port=0, app_password="app-passw0rd") as topo:
        topo.put("QM1", "QM2", "IN", b"one")
        assert topo.get("QM2", "IN") == b"one"
        doc = _read(topo)
        assert doc["qmgr"] == [{"name": n, "hosted": True, "state": "running", "connectionName": ""}
                               for n in ("QM1", "QM2", "QM3")]
        edges = _edges(doc)
        assert set(edges) == {"QM1.TO.QM2", "QM2.TO.QM1", "QM1.TO.QM3"}  # one edge per channel, not per end
        e = edges["QM1.TO.QM2"]
        assert (e["from"], e["to"], e["type"], e["definedOn"], e["xmitQueue"]) == ("QM1", "QM2", "SDR", "QM1", "QM2")
        assert (e["status"], e["receiverStatus"], e["state"], e["inDoubt"]) == ("RUNNING", "RUNNING", "running", False)
        assert e["connectionName"] == topo["QM2"].conn_name and e["remoteQmgr"] == "QM2"
        assert (e["msgs"], e["batches"]) == (1, 1)
        assert (edges["QM2.TO.QM1"]["from"], edges["QM2.TO.QM1"]["to"]) == ("QM2", "QM1")

        topo.stop_channel("QM1.TO.QM3")
        topo.wait_for_status("QM1.TO.QM3", "INACTIVE", qmgr="QM3")
        e = _edges(_read(topo))["QM1.TO.QM3"]
        assert (e["status"], e["receiverStatus"], e["state"]) == ("STOPPED", "INACTIVE", "stopped")

        # A sender whose partner does not answer: RETRYING (its Channel Stopped RETRY event ends the wait).
        topo.mqsc("QM3", "DEFINE QLOCAL(NOWHERE) USAGE(XMITQ)\n"
                         "DEFINE CHANNEL(QM3.TO.NOWHERE) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(NOWHERE) "
                         "SHORTRTY(3) SHORTTMR(600) LONGRTY(0)\n"
                         "START CHANNEL(QM3.TO.NOWHERE)")
        topo.wait_for_status("QM3.TO.NOWHERE", "RETRYING", qmgr="QM3")
        e = _edges(_read(topo))["QM3.TO.NOWHERE"]
        assert (e["from"], e["to"], e["status"], e["state"]) == ("QM3", "127.0.0.1(1)", "RETRYING", "retrying")
        topo.stop_channel("QM3.TO.NOWHERE", qmgr="QM3")

        # A reader without MQWebAdmin is refused as IBM refuses it.
        r = httpx.get(f"http://127.0.0.1:{topo['QM1'].http_port}{TOPOLOGY}", auth=("app", "app-passw0rd"))
        assert r.status_code == 403 and r.json()["error"][0]["msgId"] == "MQWB0103E"


def test_a_sender_never_run_to_another_server_is_drawn_to_its_conname(tmp_path):
    with running_topology(tmp_path, ["QM1"], http_port=0) as topo:
        topo.mqsc("QM1", "DEFINE QLOCAL(FAR) USAGE(XMITQ)\n"
                         "DEFINE CHANNEL(QM1.TO.FAR) CHLTYPE(SDR) CONNAME('far.example(1415)') XMITQ(FAR)\n"
                         "DEFINE CHANNEL(FAR.TO.QM1) CHLTYPE(RCVR)")
        doc = _read(topo)
        assert {"name": "far.example(1415)", "hosted": False, "state": "",
                "connectionName": "far.example(1415)"} in doc["qmgr"]
        edges = _edges(doc)
        assert (edges["QM1.TO.FAR"]["from"], edges["QM1.TO.FAR"]["to"], edges["QM1.TO.FAR"]["status"]) == (
            "QM1", "far.example(1415)", "INACTIVE")
        # A receiver never run: its partner is not known yet.
        assert (edges["FAR.TO.QM1"]["from"], edges["FAR.TO.QM1"]["to"], edges["FAR.TO.QM1"]["type"]) == (
            "? FAR.TO.QM1", "QM1", "RCVR")


def _view(name, ctype, qmgr, conn_name="", status="RUNNING", in_doubt=False, remote=""):
    return ChannelView(name, ctype, qmgr, conn_name, "X" if ctype == C.MQCHT_SENDER else "", status, in_doubt,
                       remote, 0, 0)


@pytest.mark.parametrize("status, in_doubt, state", [("RUNNING", False, "running"), ("RETRYING", False, "retrying"),
                                                     ("STOPPED", True, "indoubt"), ("BINDING", False, "other")])
def test_the_edge_state_the_console_colours(status, in_doubt, state):
    hosted = {"QM1": [_view("A", C.MQCHT_SENDER, "QM1", "127.0.0.1(1414)", status, in_doubt)],
              "QM2": [_view("A", C.MQCHT_RECEIVER, "QM2", status="INACTIVE")]}
    doc = graph(hosted, {}, {("127.0.0.1", 1414)})
    [edge] = doc["channel"]
    assert (edge["from"], edge["to"], edge["state"], edge["receiverStatus"]) == ("QM1", "QM2", state, "INACTIVE")


def test_a_partner_in_another_process_is_named_by_its_id_exchange():
    hosted = {"QM1": [_view("QM1.TO.QM2", C.MQCHT_SENDER, "QM1", "127.0.0.1(1500)", remote="QM2"),
                      _view("QM2.TO.QM1", C.MQCHT_RECEIVER, "QM1", "127.0.0.1(40000)", remote="QM2")]}
    doc = graph(hosted, {"QM1": "running"}, {("127.0.0.1", 1414)})
    assert [n["name"] for n in doc["qmgr"]] == ["QM1", "QM2"] and doc["qmgr"][1]["hosted"] is False
    assert [(e["name"], e["from"], e["to"]) for e in doc["channel"]] == [
        ("QM1.TO.QM2", "QM1", "QM2"), ("QM2.TO.QM1", "QM2", "QM1")]


def test_a_cluster_s_channels_are_edges_carrying_their_cluster(tmp_path):
    # QM1 and QM2 full repositories, QM3 a partial one: each member's own cluster-senders (CLUSSDRB) and
    # those the cluster defined (CLUSSDRA) are edges to the member they reach; each cluster-receiver joins
    # the edges into it (hosted here too); the document lists the cluster with its members.
    with running_topology(tmp_path, ["QM1", "QM2", "QM3"], cluster={"name": "DEMO", "repos": ["QM1", "QM2"]},
                          cluster_queues={"QM1": ["ORDERS"]}, http_port=0) as topo:
        topo.wait_for_status("DEMO.QM2", qmgr="QM3")  # QM3 has sent its snapshot to both full repositories
        doc = _read(topo)
        edges = {(e["name"], e["from"], e["to"]): e for e in doc["channel"]}
        assert {(name, src, to, e["type"], e["definedOn"], e["auto"], e["cluster"])
                for (name, src, to), e in edges.items()} == {
            ("DEMO.QM2", "QM1", "QM2", "CLUSSDR", "QM1", False, "DEMO"),
            ("DEMO.QM3", "QM1", "QM3", "CLUSSDR", "QM1", True, "DEMO"),
            ("DEMO.QM1", "QM2", "QM1", "CLUSSDR", "QM2", False, "DEMO"),
            ("DEMO.QM3", "QM2", "QM3", "CLUSSDR", "QM2", True, "DEMO"),
            ("DEMO.QM1", "QM3", "QM1", "CLUSSDR", "QM3", False, "DEMO"),
            ("DEMO.QM2", "QM3", "QM2", "CLUSSDR", "QM3", True, "DEMO")}
        e = edges[("DEMO.QM2", "QM3", "QM2")]
        assert (e["status"], e["receiverStatus"], e["xmitQueue"], e["remoteQmgr"]) == (
            "RUNNING", "RUNNING", "SYSTEM.CLUSTER.TRANSMIT.QUEUE", "QM2")
        assert doc["cluster"] == [{"name": "DEMO", "qmgr": ["QM1", "QM2", "QM3"]}]
        assert [n["name"] for n in doc["qmgr"]] == ["QM1", "QM2", "QM3"]  # no partner node besides them


def test_channels_of_no_cluster_name_none():
    hosted = {"QM1": [_view("A", C.MQCHT_SENDER, "QM1", "127.0.0.1(1414)")],
              "QM2": [_view("A", C.MQCHT_RECEIVER, "QM2"),
                      ChannelView("DEMO.QM2", C.MQCHT_CLUSRCVR, "QM2", "", "", "INACTIVE", False, "", 0, 0, "DEMO")]}
    doc = graph(hosted, {}, {("127.0.0.1", 1414)})
    [edge] = doc["channel"]  # a cluster-receiver no member used yet is no edge
    assert (edge["name"], edge["cluster"], edge["auto"]) == ("A", "", False)
    assert doc["cluster"] == [{"name": "DEMO", "qmgr": ["QM2"]}]
