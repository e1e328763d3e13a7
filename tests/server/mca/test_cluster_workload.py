"""Cluster workload and status, second round (issue 34 item 4): CLWLMRUC, clustered aliases, gateways
and queue-manager aliases as routes, SAVED status per cluster-receiver partner, XQMSGSA per
cluster-sender.  The three members of
tests/server/mca/test_cluster.py's harness, hosted by one server, driven through ibmmq."""

from __future__ import annotations

import pytest
import trio

from qmlite.registry.cluster.snapshots import repository_of
from qmlite.registry.mqsc import run_mqsc
from tests.server.mca.test_cluster import ADMIN, _cluster, _mqsc, _spread, _stop, _until

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC  # noqa: E402


def _alter_qmgr(port: int, qmgr: str, params: dict) -> None:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        pcf = ibmmq.PCFExecute(qm)
        pcf.MQCMD_CHANGE_Q_MGR(params)
        pcf.disconnect()
    finally:
        qm.disconnect()


async def test_clwlmruc_one_keeps_every_put_on_the_channel_used_last(tmp_path):
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        await trio.to_thread.run_sync(_alter_qmgr, port, "QM3", {CMQC.MQIA_CLWL_MRU_CHANNELS: 1})
        # BIND_NOT_FIXED chooses at every put: the first goes to QM1 (equal weights, the earlier name), and
        # from then on only the most recently used channel is left
        await _spread(servers, 10, {"QM1": 10, "QM2": 0})
        # CLWLMRUC(2): both channels again, the least used (QM2) catching up first
        await trio.to_thread.run_sync(_alter_qmgr, port, "QM3", {CMQC.MQIA_CLWL_MRU_CHANNELS: 2})
        await _spread(servers, 10, {"QM1": 0, "QM2": 10})
        _stop(servers)


def _put_to(port: int, queue: str, qmgr_name: str = "", body: bytes = b"routed") -> None:
    qm = ibmmq.connect("QM3", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        qm.put1(ibmmq.OD(ObjectName=queue.encode(), ObjectQMgrName=qmgr_name.encode()), body, ibmmq.MD())
    finally:
        qm.disconnect()


def _get_from(port: int, qmgr: str, queue: str) -> bytes:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
        return ibmmq.Queue(qm, queue).get(None, ibmmq.MD(), gmo)
    finally:
        qm.disconnect()


async def test_a_clustered_alias_a_gateway_qremote_and_a_clustered_queue_manager_alias_are_routes(tmp_path):
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        _mqsc(servers["QM1"].qm, """DEFINE QLOCAL(REAL.Q)
            DEFINE QALIAS(ALIAS.Q) TARGET(REAL.Q) CLUSTER(DEMO)
            DEFINE QREMOTE(GATEWAY.Q) RNAME(FINAL.Q) RQMNAME(QM2) CLUSTER(DEMO)
            DEFINE QREMOTE(SHOP) RNAME(' ') RQMNAME(QM1) CLUSTER(DEMO)""")
        _mqsc(servers["QM2"].qm, "DEFINE QLOCAL(FINAL.Q)")
        qm3 = servers["QM3"]
        with trio.fail_after(60):
            await _until([qm3], lambda: {"ALIAS.Q", "GATEWAY.Q", "SHOP"} <= {
                q["name"] for s in repository_of(qm3.qm.registry).snapshots.values() for q in s.get("queues", ())})
        await trio.to_thread.run_sync(_put_to, port, "ALIAS.Q", "", b"by the alias")
        assert await trio.to_thread.run_sync(_get_from, port, "QM1", "REAL.Q") == b"by the alias"
        await trio.to_thread.run_sync(_put_to, port, "GATEWAY.Q", "", b"through the gateway")
        assert await trio.to_thread.run_sync(_get_from, port, "QM2", "FINAL.Q") == b"through the gateway"
        await trio.to_thread.run_sync(_put_to, port, "REAL.Q", "SHOP", b"to the shop")
        assert await trio.to_thread.run_sync(_get_from, port, "QM1", "REAL.Q") == b"to the shop"
        _stop(servers)


async def test_saved_status_per_cluster_receiver_partner_and_xqmsgsa_per_cluster_sender(tmp_path):
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        await _spread(servers, 4, {"QM1": 2, "QM2": 2})
        # QM1's cluster-receiver has had batches from QM2 and QM3: a SAVED status for each
        (shown,) = run_mqsc(servers["QM1"].qm, "DISPLAY CHSTATUS(TO.QM1) SAVED RQMNAME")
        assert sorted(o["RQMNAME"] for o in shown.objects) == ["QM2", "QM3"], shown.text
        # three messages for QM2 wait behind QM3's stopped TO.QM2; TO.QM1's share of SCTQ is none of them
        _mqsc(servers["QM3"].qm, "STOP CHANNEL(TO.QM2)")
        for i in range(3):
            await trio.to_thread.run_sync(_put_to, port, "ORDERS", "QM2", b"held %d" % i)
        (shown,) = run_mqsc(servers["QM3"].qm, "DISPLAY CHSTATUS(TO.*) XQMSGSA")
        assert {o["CHANNEL"]: o["XQMSGSA"] for o in shown.objects if o["CHLTYPE"] == "CLUSSDR"} == {
            "TO.QM1": "0", "TO.QM2": "3"}, shown.text
        _mqsc(servers["QM3"].qm, "START CHANNEL(TO.QM2)")
        for i in range(3):
            assert await trio.to_thread.run_sync(_get_from, port, "QM2", "ORDERS") == b"held %d" % i
        _stop(servers)
