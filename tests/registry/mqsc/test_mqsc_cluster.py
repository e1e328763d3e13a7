"""The cluster MQSC commands: IBM's syntax for DISPLAY CLUSQMGR and QCLUSTER, SUSPEND/RESUME QMGR,
REFRESH CLUSTER and RESET CLUSTER, and the keywords of cluster channels."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager


@pytest.fixture
def qm(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    run_mqsc(qm, "ALTER QMGR REPOS(CL1)\n"
                 "DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1(1414)') CLUSTER(CL1) NETPRTY(3)\n"
                 "DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1(1415)') CLUSTER(CL1) CLWLWGHT(20)\n"
                 "DEFINE QLOCAL(APP.Q) CLUSTER(CL1)")
    yield qm
    qm.shutdown()


def one(qm, text):
    [result] = run_mqsc(qm, text)
    return result


def test_display_clusqmgr_of_a_generic_name_shows_name_channel_and_cluster(qm):
    assert one(qm, "DISPLAY CLUSQMGR(*)").text == [
        "AMQ8441I: Display Cluster Queue Manager details.",
        "   CLUSQMGR(QM1)                           CHANNEL(TO.QM1)",
        "   CLUSTER(CL1)",
        "AMQ8441I: Display Cluster Queue Manager details.",
        "   CLUSQMGR(SYSTEM.TEMPQMGR.127.0.0.1(1415))",
        "   CHANNEL(TO.QM2)                         CLUSTER(CL1)"]


def test_display_clusqmgr_channel_attributes_status_and_where(qm):
    result = one(qm, "DIS CLUSQMGR(*) CHANNEL(TO.QM2) STATUS CLWLWGHT SUSPEND")
    assert result.objects == [{"CLUSQMGR": "SYSTEM.TEMPQMGR.127.0.0.1(1415)", "CHANNEL": "TO.QM2", "CLUSTER": "CL1",
                               "STATUS": "INACTIVE", "SUSPEND": "NO", "CLWLWGHT": "20"}]
    mine = one(qm, "DISPLAY CLUSQMGR(*) WHERE(QMTYPE EQ REPOS) NETPRTY")
    assert [(o["CLUSQMGR"], o.get("NETPRTY")) for o in mine.objects] == [
        ("QM1", "3"), ("SYSTEM.TEMPQMGR.127.0.0.1(1415)", None)]
    assert one(qm, "DISPLAY CLUSQMGR(*) WHERE(DEFTYPE EQ CLUSRCVR)").objects[0]["CLUSQMGR"] == "QM1"


def test_display_qcluster(qm):
    result = one(qm, "DISPLAY QCLUSTER(*) CLUSQT QMID")
    [obj] = result.objects
    assert (obj["QUEUE"], obj["TYPE"], obj["CLUSQMGR"], obj["CLUSQT"]) == ("APP.Q", "QCLUSTER", "QM1", "QLOCAL")
    assert obj["QMID"].startswith("QM1_")


@pytest.mark.parametrize("text, message", [
    ("SUSPEND QMGR CLUSTER(CL1) MODE(FORCE)", "AMQ8559I: Suspend Queue Manager Cluster command accepted."),
    ("RESUME QMGR CLUSTER(CL1)", "AMQ8558I: Resume Queue Manager Cluster command accepted."),
    ("REFRESH CLUSTER(*) REPOS(YES)", "AMQ8557I: Refresh Cluster command accepted."),
    ("RESET CLUSTER(CL1) ACTION(FORCEREMOVE) QMNAME(QM2) QUEUES(YES)", "AMQ8556I: Reset Cluster command accepted."),
])
def test_cluster_commands_answer_as_runmqsc(qm, text, message):
    result = one(qm, text)
    assert (result.completion_code, result.text) == (C.MQCC_OK, [message])


def test_suspend_shows_in_display_clusqmgr_and_bad_forms_fail(qm):
    one(qm, "SUSPEND QMGR CLUSTER(CL1)")
    assert one(qm, "DISPLAY CLUSQMGR(QM1) SUSPEND").objects[0]["SUSPEND"] == "YES"
    assert one(qm, "SUSPEND QMGR").reason_code == C.MQRCCF_PARM_MISSING
    assert one(qm, "RESET CLUSTER(CL1) ACTION(FORCEREMOVE)").reason_code == C.MQRCCF_PARM_MISSING
    assert one(qm, "REFRESH CLUSTER").reason_code == C.MQRCCF_PARM_SYNTAX_ERROR  # the name is required syntax
