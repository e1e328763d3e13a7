"""A cluster of three qmlite queue managers (issue 34 item 4): QM1 and QM2 full repositories, QM3 a
partial one with a hand-defined cluster-sender to QM1, hosted by one server (docs/multiqm.md).  What
they tell each other travels over their cluster channels (server/mca/clusteragent.py); a queue on QM1
and QM2 gets QM3's puts as the workload algorithm spreads them (registry/cluster/workload.py)."""

from __future__ import annotations

import contextlib

import pytest
import trio

from qmlite.registry.cluster.snapshots import repository_of
from qmlite.registry.mqsc import run_mqsc
from qmlite.server import config
from qmlite.server.listener import running
from tests.server.mca.test_mqport import Proxy
from tests.support import wire
from tests.support.served import Served

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
{_admitting(name)}{queue}"""


def _admitting(name: str) -> str:
    """Every member let in on this one's cluster-receiver past the developer container's CHLAUTH back-stop
    (docs/channels.md "Security"), as an administrator of the container does for a cluster."""
    return (f"SET CHLAUTH('TO.{name}') TYPE(QMGRMAP) QMNAME('*') USERSRC(CHANNEL)\n"
            f"SET CHLAUTH('TO.{name}') TYPE(BLOCKUSER) USERLIST('nobody')\n")


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


def _queue_attr(server, qmgr: str, field: str, value: int) -> bool:
    """Whether ``server``'s repository holds ``qmgr``'s ORDERS (or, field starting channel., its channel)
    with ``field`` at ``value``."""
    for snap, q in repository_of(server.qm.registry).instances(QUEUE):
        if snap["qmgr"] == qmgr:
            return (snap["channel"] if field.startswith("channel.") else q).get(field.split(".")[-1]) == value
    return False


async def test_clwlwght_clwlprty_and_clwlrank_change_the_split_deterministically(tmp_path):
    async with _cluster(tmp_path) as servers:
        qm3 = servers["QM3"]
        _mqsc(servers["QM1"].qm, "ALTER CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CLWLWGHT(1)")
        _mqsc(servers["QM2"].qm, "ALTER CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CLWLWGHT(3)")
        with trio.fail_after(60):
            await _until([qm3], lambda: _queue_attr(qm3, "QM1", "channel.clwl_weight", 1)
                         and _queue_attr(qm3, "QM2", "channel.clwl_weight", 3))
        await _spread(servers, 100, {"QM1": 25, "QM2": 75})
        # CLWLPRTY: the higher priority queue takes every message
        _mqsc(servers["QM1"].qm, f"ALTER QLOCAL({QUEUE}) CLWLPRTY(5)")
        with trio.fail_after(60):
            await _until([qm3], lambda: _queue_attr(qm3, "QM1", "clwl_priority", 5))
        await _spread(servers, 10, {"QM1": 10, "QM2": 0})
        # CLWLRANK comes before CLWLPRTY in IBM's algorithm: the higher rank wins against the priority
        _mqsc(servers["QM2"].qm, f"ALTER QLOCAL({QUEUE}) CLWLRANK(7)")
        with trio.fail_after(60):
            await _until([qm3], lambda: _queue_attr(qm3, "QM2", "clwl_rank", 7))
        await _spread(servers, 10, {"QM1": 0, "QM2": 10})
        _stop(servers)


async def test_defbind_open_keeps_one_target_per_handle_and_a_stopped_channel_is_routed_around(tmp_path):
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        # DEFBIND(OPEN), the default: every put on one handle goes to the instance chosen at MQOPEN; the
        # next handle gets the other (the least used)
        await _spread(servers, 10, {"QM1": 10, "QM2": 0}, options=0)
        await _spread(servers, 10, {"QM1": 0, "QM2": 10}, options=0)
        # QM3's cluster-sender to QM1 stopped: everything goes to QM2 until it is started again
        assert servers["QM3"].qm.registry.running.instances_of("TO.QM1")
        _mqsc(servers["QM3"].qm, "STOP CHANNEL(TO.QM1)")
        await _spread(servers, 20, {"QM1": 0, "QM2": 20})
        (shown,) = run_mqsc(servers["QM3"].qm, "DISPLAY CLUSQMGR(QM1) STATUS")
        assert shown.objects[0]["STATUS"] == "STOPPED", shown.text
        _stop(servers)


def _escape(port: int, qmgr: str, text: str) -> None:
    """MQSC through ibmmq's PCF Escape, one command a message, each answered without error."""
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        pcf = ibmmq.PCFExecute(qm)
        for line in filter(None, (s.strip() for s in text.splitlines())):
            pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC, CMQCFC.MQCACF_ESCAPE_TEXT: line.encode()})
        pcf.disconnect()
    finally:
        qm.disconnect()


@pytest.fixture
def _reap():
    yield
    Served.reap_all()


async def test_a_member_in_a_separate_qmlite_serve_gets_its_share_over_flows_tshark_reads(tmp_path, _reap):
    # QM1 and QM2 (full repositories) hosted here, QM3 a partial repository in a `qmlite serve` of its own;
    # every channel into QM1 and QM2 goes through a proxy recording it for tshark.
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / "QM1",
                                             "qmgr_name": "QM1", "qmgrs": ("QM2",)})
    async with running(cfg, synchronous="NORMAL") as qm1, trio.open_nursery() as nursery:
        proxy = Proxy(qm1.port)
        await proxy.start(nursery)
        qm2 = qm1.servers["QM2"]
        qm2.ensure_running()
        await qm2.ready.wait()
        qm3 = await trio.to_thread.run_sync(lambda: Served(tmp_path / "qm3" / "data", "--qmgr", "QM3", qmgr="QM3"))
        _mqsc(qm1.qm, _member(proxy.port, "QM1", full=True))
        _mqsc(qm2.qm, _member(proxy.port, "QM2", full=True, queue=f"DEFINE QLOCAL({QUEUE}) CLUSTER(DEMO)"))
        await trio.to_thread.run_sync(_escape, qm3.port, "QM3", f"""
            {_admitting("QM3")}
            DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({qm3.port})') CLUSTER(DEMO)
            DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({proxy.port})') CLUSTER(DEMO)
            DEFINE QLOCAL({QUEUE}) CLUSTER(DEMO)""")
        with trio.fail_after(60):
            await _until([qm1], lambda: _knows(qm1, {"QM2", "QM3"}, {"QM2", "QM3"}))

        def put_from_qm1() -> None:
            qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({qm1.port})", *ADMIN)
            try:
                queue = ibmmq.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
                for i in range(20):
                    queue.put(b"order %d" % i, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
                queue.close()
            finally:
                qm.disconnect()

        await trio.to_thread.run_sync(put_from_qm1)
        on_qm2 = await trio.to_thread.run_sync(_drain, qm1.port, "QM2", 10)
        on_qm3 = await trio.to_thread.run_sync(_drain, qm3.port, "QM3", 10)
        assert sorted(on_qm2 + on_qm3) == sorted(b"order %d" % i for i in range(20))
        _stop({"QM1": qm1, "QM2": qm2})
        nursery.cancel_scope.cancel()
    assert qm3.stop() == 0
    remote_queues = set()
    for capture in proxy.captures:
        result = wire.dissect(capture, ["mq.xqh.remoteq", "mq.msh.seqnum"])
        assert result.malformed == [] and result.expert == []
        remote_queues.update(result.values("mq.xqh.remoteq"))
    # the members' snapshots, and QM1's puts for QM2 (whose cluster-receiver's CONNAME is the proxy)
    assert remote_queues == {"SYSTEM.CLUSTER.COMMAND.QUEUE", QUEUE}


async def test_display_chstatus_shows_auto_defined_cluster_senders_and_a_restart_remembers_the_cluster(tmp_path):
    async with _cluster(tmp_path) as servers:
        await _spread(servers, 4, {"QM1": 2, "QM2": 2})
        (shown,) = run_mqsc(servers["QM3"].qm, "DISPLAY CHSTATUS(TO.*) XMITQ")
        rows = {(o["CHANNEL"], o["CHLTYPE"], o["XMITQ"], o["STATUS"]) for o in shown.objects}
        # TO.QM1 defined by hand, TO.QM2 auto-defined from QM2's cluster-receiver: both running on SCTQ;
        # QM3's own cluster-receiver runs for the full repositories that told it of the cluster
        assert rows == {("TO.QM1", "CLUSSDR", "SYSTEM.CLUSTER.TRANSMIT.QUEUE", "RUNNING"),
                        ("TO.QM2", "CLUSSDR", "SYSTEM.CLUSTER.TRANSMIT.QUEUE", "RUNNING"),
                        ("TO.QM3", "CLUSRCVR", "", "RUNNING")}, shown.text
        _stop(servers)
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / "QM1",
                                             "qmgr_name": "QM1", "qmgrs": ("QM2", "QM3")})
    async with running(cfg, synchronous="NORMAL") as qm1:
        qm3 = qm1.servers["QM3"]
        qm3.ensure_running()
        await qm3.ready.wait()
        # SYSTEM.CLUSTER.REPOSITORY.QUEUE: QM3 knows both queue hosts before any channel runs again
        with trio.fail_after(60):
            await _until([qm3], lambda: _knows(qm3, {"QM1", "QM2"}, {"QM1", "QM2"}))
        (shown,) = run_mqsc(qm3.qm, f"DISPLAY QCLUSTER({QUEUE}) CLUSQMGR")
        assert sorted(o["CLUSQMGR"] for o in shown.objects) == ["QM1", "QM2"], shown.text
        _stop({"QM1": qm1, "QM3": qm3})


async def test_a_request_to_a_cluster_queue_is_answered_on_the_requesters_reply_queue(tmp_path):
    # QM3 asks through ORDERS (on QM1 and QM2); the responder replies with MQPUT1 to the ReplyToQ on the
    # ReplyToQMgr the request carries, QM3: a member the cluster resolves, with no definitions on QM1.
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        _mqsc(servers["QM3"].qm, "DEFINE QLOCAL(REPLY)")

        def ask() -> bytes:
            qm = ibmmq.connect("QM3", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
            try:
                ibmmq.Queue(qm, QUEUE).put(b"how many?", ibmmq.MD(ReplyToQ=b"REPLY"))
                md = ibmmq.MD()
                gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
                return ibmmq.Queue(qm, "REPLY").get(None, md, gmo)
            finally:
                qm.disconnect()

        def answer() -> None:
            qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
            try:
                md = ibmmq.MD()
                gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
                assert ibmmq.Queue(qm, QUEUE).get(None, md, gmo) == b"how many?"
                assert md.ReplyToQMgr.rstrip() == b"QM3"
                od = ibmmq.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
                qm.put1(od, b"42", ibmmq.MD(CorrelId=md.MsgId))
            finally:
                qm.disconnect()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, answer)
            assert await trio.to_thread.run_sync(ask) == b"42"
        _stop(servers)


def _subs_of(server, qmgr: str) -> list:
    return [s for (_, q), s in repository_of(server.qm.registry).snapshots.items() if q == qmgr
            and s.get("subs")]


async def test_a_publication_on_a_clustered_topic_reaches_a_subscriber_on_another_member(tmp_path):
    # PRICES is clustered on QM1 (a full repository); QM2's application subscribes to prices/#; QM3
    # publishes on prices/fruit: DIRECT routing sends it to QM2, whose subscriber gets it once.
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        _mqsc(servers["QM1"].qm, "DEFINE TOPIC(PRICES) TOPICSTR('prices') CLUSTER(DEMO)")
        subscribed, done = trio.Event(), trio.Event()
        token = trio.lowlevel.current_trio_token()

        def subscriber() -> list[bytes]:
            qm = ibmmq.connect("QM2", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
            try:
                sub = ibmmq.Subscription(qm)
                sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
                sd.set_vs("ObjectString", "prices/#")
                sub.sub(sub_desc=sd)
                token.run_sync_soon(subscribed.set)
                gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
                got = [sub.get(None, ibmmq.MD(), gmo)]
                with pytest.raises(ibmmq.MQMIError) as empty:
                    sub.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
                assert empty.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE  # delivered once
                sub.close()
                return got
            finally:
                qm.disconnect()

        def publish() -> None:
            qm = ibmmq.connect("QM3", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
            try:
                topic = ibmmq.Topic(qm, topic_string="prices/fruit")
                topic.open(open_opts=CMQC.MQOO_OUTPUT)
                topic.pub(b"apples 3", ibmmq.MD())
                topic.close()
            finally:
                qm.disconnect()

        got: list = []

        async def run_subscriber() -> None:
            got.extend(await trio.to_thread.run_sync(subscriber))
            done.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_subscriber)
            await subscribed.wait()
            qm3 = servers["QM3"]
            with trio.fail_after(60):  # QM3 told of QM2's subscription (and of the clustered topic)
                await _until([qm3], lambda: bool(_subs_of(qm3, "QM2")) and any(
                    s.get("topics") for s in repository_of(qm3.qm.registry).snapshots.values()))
            await trio.to_thread.run_sync(publish)
            await done.wait()
        assert got == [b"apples 3"]
        _stop(servers)
