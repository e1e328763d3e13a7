"""registry/cluster/resolution.py: MQOPEN of a queue through the cluster, on one queue manager whose
repository is filled by hand (what the cluster agent would have been told)."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.channels.syncrecords import correl_id
from qmlite.registry.cluster.snapshots import SCTQ, repository_of
from qmlite.registry.errors import MQIError
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager


def _snapshot(qmgr: str, *, put: bool = True, weight: int = 50) -> dict:
    return {"cluster": "DEMO", "qmgr": qmgr, "qmid": qmgr + "_1", "repos": False, "stamp": 1.0,
            "suspended": False, "version": "09010200",
            "channel": {"name": "TO." + qmgr, "conn_name": "127.0.0.1(1414)", "clwl_weight": weight},
            "queues": [{"name": "ORDERS", "qtype": 1, "put": put, "def_bind": C.MQBND_BIND_NOT_FIXED}]}


@pytest.fixture
def qm(tmp_path):
    qmgr = QueueManager.open(tmp_path / "qm", "QM3")
    run_mqsc(qmgr, f"DEFINE QLOCAL({SCTQ}) USAGE(XMITQ)")
    yield qmgr
    qmgr.shutdown()


def _open(qm, options: int):
    session = qm.connect("QM3", user="mqm", admin=True)
    handle, od = qm.open_object(session, S.MQOD(ObjectName="ORDERS"), options)
    return session, handle, od


def _put(qm, session, handle, count: int) -> list[tuple[str, bytes]]:
    for i in range(count):
        qm.put(session, handle.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"m%d" % i)
    out = []
    xmitq, _ = qm.open_object(session, S.MQOD(ObjectName=SCTQ), C.MQOO_INPUT_SHARED)
    while (got := qm.get(session, xmitq, S.MQMD(), S.MQGMO(Version=2), 1 << 20)) is not None:
        out.append((S.MQXQH.unpack(got.data, 0, "<")[0].RemoteQMgrName, got.md.CorrelId))
    return out


def test_a_queue_on_two_members_alternates_each_message_named_for_its_cluster_sender(qm):
    repo = repository_of(qm.registry)
    repo.offer(_snapshot("QM1"))
    repo.offer(_snapshot("QM2"))
    session, handle, od = _open(qm, C.MQOO_OUTPUT | C.MQOO_BIND_AS_Q_DEF)  # DEFBIND(NOTFIXED) of the instances
    assert handle.name == SCTQ
    assert _put(qm, session, handle, 4) == [("QM1", correl_id("TO.QM1")), ("QM2", correl_id("TO.QM2"))] * 2


def test_bind_on_open_keeps_the_instance_chosen_at_mqopen(qm):
    repo = repository_of(qm.registry)
    repo.offer(_snapshot("QM1"))
    repo.offer(_snapshot("QM2"))
    session, handle, od = _open(qm, C.MQOO_OUTPUT | C.MQOO_BIND_ON_OPEN)
    assert (od.ResolvedQName, od.ResolvedQMgrName) == ("ORDERS", "QM1")
    assert [q for q, _ in _put(qm, session, handle, 3)] == ["QM1"] * 3


def test_an_open_for_input_of_a_queue_only_elsewhere_is_2045_and_all_put_inhibited_is_2268(qm):
    repo = repository_of(qm.registry)
    repo.offer(_snapshot("QM1", put=False))
    with pytest.raises(MQIError) as refused:
        _open(qm, C.MQOO_INPUT_SHARED)
    assert refused.value.reason == C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    with pytest.raises(MQIError) as inhibited:
        _open(qm, C.MQOO_OUTPUT)
    assert inhibited.value.reason == C.MQRC_CLUSTER_PUT_INHIBITED


def test_a_local_instance_is_used_alone_unless_clwluseq_any(qm):
    repo = repository_of(qm.registry)
    repo.offer(_snapshot("QM1"))
    run_mqsc(qm, "DEFINE QLOCAL(ORDERS) CLUSTER(DEMO) DEFBIND(NOTFIXED)")
    session, handle, _ = _open(qm, C.MQOO_OUTPUT)
    assert handle.name == "ORDERS" and handle.cluster is None  # CLWLUSEQ(QMGR), the queue manager's LOCAL
    run_mqsc(qm, "ALTER QLOCAL(ORDERS) CLWLUSEQ(ANY)")
    session, handle, _ = _open(qm, C.MQOO_OUTPUT)
    assert [q for q, _ in _put(qm, session, handle, 4)] == ["QM1", "QM1"]  # the other two stayed here
    assert qm.registry.messages.depth("ORDERS") == 2


def test_a_queue_named_on_another_member_goes_to_its_cluster_sender(qm):
    repository_of(qm.registry).offer(_snapshot("QM1"))
    session = qm.connect("QM3", user="mqm", admin=True)
    handle, od = qm.open_object(session, S.MQOD(ObjectName="REPLY", ObjectQMgrName="QM1"), C.MQOO_OUTPUT)
    assert (od.ResolvedQName, od.ResolvedQMgrName) == ("REPLY", "QM1")
    assert _put(qm, session, handle, 2) == [("QM1", correl_id("TO.QM1"))] * 2
    with pytest.raises(MQIError) as unknown:  # a queue manager the cluster does not know: as before
        qm.open_object(session, S.MQOD(ObjectName="REPLY", ObjectQMgrName="QM9"), C.MQOO_OUTPUT)
    assert unknown.value.reason == C.MQRC_UNKNOWN_REMOTE_Q_MGR
