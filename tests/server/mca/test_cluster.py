"""A cluster of three qmlite queue managers (issue 34 item 4): QM1 and QM2 full repositories, QM3 a
partial one with a hand-defined cluster-sender to QM1, hosted by one server (docs/multiqm.md).  What
they tell each other travels over their cluster channels (server/mca/clusteragent.py); a queue on QM1
and QM2 gets QM3's puts as the workload algorithm spreads them (registry/cluster/workload.py)."""

from __future__ import annotations

import contextlib

import pytest
import trio

from qmlite.registry.cluster.repository import repository_of
from qmlite.registry.mqsc import run_mqsc
from qmlite.server import config
from qmlite.server.listener import running

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC  # noqa: E402

ADMIN = ("admin", "passw0rd")
QUEUE = "ORDERS"


def _mqsc(qm, text: str) -> list:
    results = run_mqsc(qm, text)
    for result in results:
        assert not result.syntax_error and result.text[0][:8] not in ("AMQ8405I", "AMQ8147E"), result.text
    return results


def _member(port: int, name: str, *, full: bool, queue: str = "") -> str:
    repos = "ALTER QMGR REPOS(DEMO)\n" if full else ""
    partner = "TO.QM2" if name == "QM1" else "TO.QM1"
    return f"""{repos}DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') CLUSTER(DEMO)
DEFINE CHANNEL({partner}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({port})') CLUSTER(DEMO)
{queue}"""


async def _until(servers, done) -> None:
    """Wait until ``done()`` holds, looking again each time any member keeps a snapshot."""
    while not done():
        changed = trio.Event()
        for server in servers:
            repository_of(server.qm.registry).watchers.append(changed.set)
        try:
            if not done():
                await changed.wait()
        finally:
            for server in servers:
                repository_of(server.qm.registry).watchers.remove(changed.set)


def _knows(server, qmgrs: set[str], queue_on: set[str]) -> bool:
    repo = repository_of(server.qm.registry)
    members = {q for (_, q) in repo.snapshots}
    hosts = {snap["qmgr"] for snap, _ in repo.instances(QUEUE)}
    return qmgrs <= members and queue_on <= hosts


@contextlib.asynccontextmanager
async def _cluster(tmp_path, queue_qm1: str = "", queue_qm2: str = ""):
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / "QM1",
                                             "qmgr_name": "QM1", "qmgrs": ("QM2", "QM3")})
    async with running(cfg, synchronous="NORMAL") as qm1:
        servers = {"QM1": qm1}
        for name in ("QM2", "QM3"):
            server = servers[name] = qm1.servers[name]
            server.ensure_running()
            await server.ready.wait()
        port = qm1.port
        q1 = queue_qm1 or f"DEFINE QLOCAL({QUEUE}) CLUSTER(DEMO)"
        q2 = queue_qm2 or f"DEFINE QLOCAL({QUEUE}) CLUSTER(DEMO)"
        _mqsc(servers["QM1"].qm, _member(port, "QM1", full=True, queue=q1))
        _mqsc(servers["QM2"].qm, _member(port, "QM2", full=True, queue=q2))
        _mqsc(servers["QM3"].qm, _member(port, "QM3", full=False))
        with trio.fail_after(60):
            await _until(servers.values(), lambda: all(
                _knows(s, {"QM1", "QM2", "QM3"} - {n}, {"QM1", "QM2"} - {n}) for n, s in servers.items()))
        yield servers


def _put(port: int, count: int, options: int = 0) -> None:
    qm = ibmmq.connect("QM3", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        queue = ibmmq.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | options)
        for i in range(count):
            queue.put(b"order %d" % i, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        queue.close()
    finally:
        qm.disconnect()


def _drain(port: int, qmgr: str, count: int) -> list[bytes]:
    """``count`` messages from ``qmgr``'s ORDERS, each waited for, then the queue is empty."""
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        queue = ibmmq.Queue(qm, QUEUE)
        out = []
        for _ in range(count):
            gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
            out.append(queue.get(None, ibmmq.MD(), gmo))
        with pytest.raises(ibmmq.MQMIError) as empty:
            queue.get(None, ibmmq.MD())
        assert empty.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        return out
    finally:
        qm.disconnect()


async def _spread(servers, count: int, split: dict[str, int], options: int = CMQC.MQOO_BIND_NOT_FIXED) -> None:
    port = servers["QM1"].port
    await trio.to_thread.run_sync(_put, port, count, options)
    got = {}
    for name, n in split.items():
        got[name] = await trio.to_thread.run_sync(_drain, port, name, n)
    assert sorted(b for bodies in got.values() for b in bodies) == sorted(b"order %d" % i for i in range(count))


def _stop(servers) -> None:
    for name, server in servers.items():
        for channel in ("TO.QM1", "TO.QM2", "TO.QM3"):
            if server.qm.registry.running.instances_of(channel):
                run_mqsc(server.qm, f"STOP CHANNEL({channel})")


async def test_every_member_displays_the_cluster_and_equal_weights_split_the_puts_evenly(tmp_path):
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port

        def display(qmgr: str):
            qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
            try:
                pcf = ibmmq.PCFExecute(qm)
                members = pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR({CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"*"})
                queues = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: QUEUE.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_CLUSTER})
                pcf.disconnect()
                return members, queues
            finally:
                qm.disconnect()

        for qmgr in ("QM1", "QM2", "QM3"):
            members, queues = await trio.to_thread.run_sync(display, qmgr)
            rows = {(m[CMQC.MQCA_CLUSTER_Q_MGR_NAME].decode().strip(), m[CMQCFC.MQIACF_Q_MGR_DEFINITION_TYPE],
                     m[CMQCFC.MQIACF_Q_MGR_TYPE]) for m in members}
            expected = set()
            for other, full in (("QM1", True), ("QM2", True), ("QM3", False)):
                qmtype = CMQCFC.MQQMT_REPOSITORY if full else CMQCFC.MQQMT_NORMAL
                if other == qmgr:
                    deftype = CMQCFC.MQQMDT_CLUSTER_RECEIVER
                elif (qmgr, other) in (("QM1", "QM2"), ("QM2", "QM1"), ("QM3", "QM1")):
                    deftype = CMQCFC.MQQMDT_AUTO_EXP_CLUSTER_SENDER  # a hand-defined CLUSSDR: CLUSSDRB
                else:
                    deftype = CMQCFC.MQQMDT_AUTO_CLUSTER_SENDER
                expected.add((other, deftype, qmtype))
            assert rows == expected, qmgr
            hosts = sorted(q[CMQC.MQCA_CLUSTER_Q_MGR_NAME].decode().strip() for q in queues)
            assert hosts == ["QM1", "QM2"], qmgr
        await _spread(servers, 100, {"QM1": 50, "QM2": 50})
        _stop(servers)
