"""Who is in a cluster (issue 34 item 4, second round): RESET CLUSTER ACTION(FORCEREMOVE) on a full
repository, REFRESH CLUSTER, and a member leaving, each seen in the other members' DISPLAY CLUSQMGR and
DISPLAY QCLUSTER and in where their puts go.  The three members of tests/server/mca/test_cluster.py's
harness (QM1 and QM2 full repositories, QM3 a partial one), hosted by one server, driven through ibmmq."""

from __future__ import annotations

import pytest
import trio

from qmlite.registry.cluster.snapshots import repository_of
from tests.server.mca.test_cluster import ADMIN, QUEUE, _cluster, _drain, _knows, _mqsc, _spread, _stop, _until

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC  # noqa: E402

KEY3 = ("DEMO", "QM3")


def _pcf(port: int, qmgr: str, command: str, params: dict):
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        pcf = ibmmq.PCFExecute(qm)
        try:
            return getattr(pcf, command)(params)
        finally:
            pcf.disconnect()
    finally:
        qm.disconnect()


async def _views(port: int, qmgr: str) -> tuple[dict[str, int], list[str]]:
    """``qmgr``'s DISPLAY CLUSQMGR (name -> QMTYPE) and DISPLAY QCLUSTER(ORDERS) hosts, through ibmmq."""
    members = await trio.to_thread.run_sync(_pcf, port, qmgr, "MQCMD_INQUIRE_CLUSTER_Q_MGR",
                                            {CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"*"})
    try:
        queues = await trio.to_thread.run_sync(_pcf, port, qmgr, "MQCMD_INQUIRE_Q",
                                               {CMQC.MQCA_Q_NAME: QUEUE.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_CLUSTER})
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        queues = []
    return ({m[CMQC.MQCA_CLUSTER_Q_MGR_NAME].decode().strip(): m[CMQCFC.MQIACF_Q_MGR_TYPE] for m in members},
            sorted(q[CMQC.MQCA_CLUSTER_Q_MGR_NAME].decode().strip() for q in queues))


def _put_from(port: int, qmgr: str, count: int) -> None:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        queue = ibmmq.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
        for i in range(count):
            queue.put(b"order %d" % i, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        queue.close()
    finally:
        qm.disconnect()


async def _queue_on_qm3(servers) -> None:
    _mqsc(servers["QM3"].qm, f"DEFINE QLOCAL({QUEUE}) CLUSTER(DEMO)")
    with trio.fail_after(60):
        await _until(servers.values(), lambda: all(_knows(servers[n], set(), {"QM3"}) for n in ("QM1", "QM2")))


def _reset(queues: int) -> dict:
    return {CMQC.MQCA_CLUSTER_NAME: b"DEMO", CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_FORCE_REMOVE,
            CMQC.MQCA_Q_MGR_NAME: b"QM3", CMQCFC.MQIACF_REMOVE_QUEUES: queues}


async def test_reset_cluster_forceremove_removes_a_member_everywhere_and_refresh_cluster_brings_it_back(tmp_path):
    # QM1's ORDERS takes part in the workload (CLWLUSEQ(ANY)), so QM1's puts show which instances it chooses
    async with _cluster(tmp_path, queue_qm1=f"DEFINE QLOCAL({QUEUE}) CLUSTER(DEMO) CLWLUSEQ(ANY)") as servers:
        port = servers["QM1"].port
        await _queue_on_qm3(servers)
        await trio.to_thread.run_sync(_pcf, port, "QM1", "MQCMD_RESET_CLUSTER", _reset(CMQCFC.MQCFO_REMOVE_QUEUES_NO))
        with trio.fail_after(60):
            await _until(servers.values(), lambda: all(
                KEY3 not in repository_of(servers[n].qm.registry).snapshots for n in ("QM1", "QM2")))
        for qmgr in ("QM1", "QM2"):
            members, hosts = await _views(port, qmgr)
            assert set(members) == {"QM1", "QM2"}, qmgr
            assert hosts == ["QM1", "QM2", "QM3"], qmgr  # QUEUES(NO): its queues stay listed
        # ... but are never chosen: QM1's puts go to QM1 and QM2 only, half each
        await trio.to_thread.run_sync(_put_from, port, "QM1", 20)
        got = [b for n in ("QM1", "QM2") for b in await trio.to_thread.run_sync(_drain, port, n, 10)]
        assert sorted(got) == sorted(b"order %d" % i for i in range(20))
        # QUEUES(YES) on the member already removed takes its queues too
        await trio.to_thread.run_sync(_pcf, port, "QM1", "MQCMD_RESET_CLUSTER",
                                      _reset(CMQCFC.MQCFO_REMOVE_QUEUES_YES))
        with trio.fail_after(60):
            await _until(servers.values(), lambda: all(
                repository_of(servers[n].qm.registry).removed.get(KEY3, {"queues": [1]})["queues"] == []
                for n in ("QM1", "QM2")))
        assert (await _views(port, "QM2"))[1] == ["QM1", "QM2"]
        # REFRESH CLUSTER on the removed queue manager: it tells the full repositories again and rejoins
        await trio.to_thread.run_sync(_pcf, port, "QM3", "MQCMD_REFRESH_CLUSTER", {CMQC.MQCA_CLUSTER_NAME: b"DEMO"})
        with trio.fail_after(60):
            await _until(servers.values(), lambda: all(_knows(servers[n], {"QM3"}, {"QM3"}) for n in ("QM1", "QM2")))
        members, hosts = await _views(port, "QM2")
        assert set(members) == {"QM1", "QM2", "QM3"} and hosts == ["QM1", "QM2", "QM3"]
        _stop(servers)


async def test_a_member_leaving_is_removed_from_the_others_and_a_repository_dropping_repos_shows_as_partial(tmp_path):
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        await _queue_on_qm3(servers)
        # QM2 stops being a full repository: the others show it as a partial one
        _mqsc(servers["QM2"].qm, "ALTER QMGR REPOS(' ')")
        with trio.fail_after(60):
            await _until(servers.values(), lambda: all(
                not repository_of(servers[n].qm.registry).snapshots[("DEMO", "QM2")].get("repos")
                for n in ("QM1", "QM3")))
        members, _ = await _views(port, "QM3")
        assert members == {"QM1": CMQCFC.MQQMT_REPOSITORY, "QM2": CMQCFC.MQQMT_NORMAL,
                           "QM3": CMQCFC.MQQMT_NORMAL}
        # QM3's cluster-receiver leaves the cluster: it tells the full repository, which tells QM2
        _mqsc(servers["QM3"].qm, "ALTER CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CLUSTER(' ')")
        with trio.fail_after(60):
            await _until(servers.values(), lambda: all(
                KEY3 not in repository_of(servers[n].qm.registry).snapshots for n in ("QM1", "QM2")))
        for qmgr in ("QM1", "QM2"):
            members, hosts = await _views(port, qmgr)
            assert set(members) == {"QM1", "QM2"} and hosts == ["QM1", "QM2"], qmgr
        # and it comes back when its cluster-receiver does
        _mqsc(servers["QM3"].qm, "ALTER CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CLUSTER(DEMO)")
        with trio.fail_after(60):
            await _until(servers.values(), lambda: all(_knows(servers[n], {"QM3"}, {"QM3"}) for n in ("QM1", "QM2")))
        _stop(servers)


async def test_refresh_cluster_repos_yes_finds_the_repositories_again_and_a_full_repository_refuses_it(tmp_path):
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        seen: dict[str, list[int]] = {"QM1": [], "QM3": []}
        for name, sizes in seen.items():
            repo = repository_of(servers[name].qm.registry)
            repo.watchers.append(lambda repo=repo, sizes=sizes: sizes.append(len(repo.snapshots)))
        # a full repository refuses REPOS(YES) (IBM's AMQ9406E) and forgets nothing; its next snapshot (the
        # queue's new description) is told after the refused refresh was handled
        await trio.to_thread.run_sync(_pcf, port, "QM1", "MQCMD_REFRESH_CLUSTER",
                                      {CMQC.MQCA_CLUSTER_NAME: b"*",
                                       CMQCFC.MQIACF_REFRESH_REPOSITORY: CMQCFC.MQCFO_REFRESH_REPOSITORY_YES})
        _mqsc(servers["QM1"].qm, f"ALTER QLOCAL({QUEUE}) DESCR('after the refresh')")
        qm3 = servers["QM3"]
        with trio.fail_after(60):
            await _until([qm3], lambda: any(q.get("description") == "after the refresh" for s, q in
                                            repository_of(qm3.qm.registry).instances(QUEUE) if s["qmgr"] == "QM1"))
        assert all(n == 2 for n in seen["QM1"]) and len(repository_of(servers["QM1"].qm.registry).snapshots) == 2
        # a partial repository with REPOS(YES) forgets every member, then learns them again through its
        # hand-defined cluster-sender to QM1
        await trio.to_thread.run_sync(_pcf, port, "QM3", "MQCMD_REFRESH_CLUSTER",
                                      {CMQC.MQCA_CLUSTER_NAME: b"DEMO",
                                       CMQCFC.MQIACF_REFRESH_REPOSITORY: CMQCFC.MQCFO_REFRESH_REPOSITORY_YES})
        with trio.fail_after(60):
            await _until([qm3], lambda: 0 in seen["QM3"] and _knows(qm3, {"QM1", "QM2"}, {"QM1", "QM2"}))
        members, hosts = await _views(port, "QM3")
        assert set(members) == {"QM1", "QM2", "QM3"} and hosts == ["QM1", "QM2"]
        await _spread(servers, 4, {"QM1": 2, "QM2": 2})
        _stop(servers)
