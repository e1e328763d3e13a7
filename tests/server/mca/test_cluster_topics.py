"""Clustered topics, second round (issue 34 item 4): TOPICHOST routing through the topic's host, message
properties on forwarded publications, retained publications across members.  The three members of
tests/server/mca/test_cluster.py's harness, hosted by one server, driven through ibmmq."""

from __future__ import annotations

import pytest
import trio

from qmlite.registry.channels.syncrecords import correl_id
from qmlite.registry.cluster.snapshots import SCTQ, repository_of
from qmlite.registry.mqsc import run_mqsc
from tests.server.mca.test_cluster import ADMIN, _cluster, _mqsc, _stop, _until

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC  # noqa: E402


def _told_of_sub(server, qmgr: str) -> bool:
    """``server`` knows a subscription of ``qmgr``'s below a clustered topic."""
    return any(q == qmgr and s.get("subs") for (_, q), s in repository_of(server.qm.registry).snapshots.items())


def _publish(port: int, topic: str, body: bytes, *, colour: str, retain: bool = False) -> None:
    qm = ibmmq.connect("QM3", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        handle = ibmmq.MessageHandle(qm)
        handle.properties.set("colour", colour)
        opened = ibmmq.Topic(qm, topic_string=topic)
        opened.open(open_opts=CMQC.MQOO_OUTPUT)
        options = CMQC.MQPMO_RETAIN if retain else 0
        opened.pub(body, ibmmq.MD(), ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, Options=options,
                                               OriginalMsgHandle=handle.msg_handle))
        opened.close()
    finally:
        qm.disconnect()


def _property(handle, name: str):
    try:
        return handle.properties.get(name)
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
        return None


class Subscriber:
    """An application on QM2 subscribed to prices/#, in a thread; ``got`` its messages' bodies and
    properties (colour, MQIsRetained)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.subscribed = trio.Event()
        self.got: list[tuple[bytes, str | None, int | None]] = []

    def run(self, token, count: int) -> None:
        qm = ibmmq.connect("QM2", "DEV.ADMIN.SVRCONN", f"127.0.0.1({self.port})", *ADMIN)
        try:
            sub = ibmmq.Subscription(qm)
            sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
            sd.set_vs("ObjectString", "prices/#")
            sub.sub(sub_desc=sd)
            token.run_sync_soon(self.subscribed.set)
            for _ in range(count):
                handle = ibmmq.MessageHandle(qm)
                gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=handle.msg_handle, WaitInterval=60_000,
                                Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
                body = sub.get(None, ibmmq.MD(), gmo)
                self.got.append((body, _property(handle, "colour"), _property(handle, "mqps.Ret")))
            with pytest.raises(ibmmq.MQMIError) as empty:
                sub.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
            assert empty.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE  # each delivered once
            sub.close()
        finally:
            qm.disconnect()


async def test_topichost_routes_through_the_host_and_the_publications_properties_travel(tmp_path):
    # PRICES is clustered with CLROUTE(TOPICHOST) on QM1 only; QM3 publishes, QM2 subscribes.  QM3's
    # cluster-sender to QM2 is stopped: only the route through the host QM1 can bring the publication.
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        _mqsc(servers["QM1"].qm, "DEFINE TOPIC(PRICES) TOPICSTR('prices') CLUSTER(DEMO) CLROUTE(TOPICHOST)")
        qm3 = servers["QM3"]
        run_mqsc(qm3.qm, "STOP CHANNEL(TO.QM2)")  # running or not (AMQ9533E), it is not started while stopped
        assert "TO.QM2" in qm3.qm.registry.running.stopped
        subscriber = Subscriber(port)
        token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, subscriber.run, token, 1)
            await subscriber.subscribed.wait()
            with trio.fail_after(60):  # QM1 and QM3 told of QM2's subscription (and of the clustered topic)
                await _until([servers["QM1"], qm3], lambda: _told_of_sub(servers["QM1"], "QM2")
                             and _told_of_sub(qm3, "QM2"))
            await trio.to_thread.run_sync(lambda: _publish(port, "prices/fruit", b"apples 3", colour="red"))
        assert subscriber.got == [(b"apples 3", "red", None)]
        waiting = qm3.qm.registry.messages.peek(SCTQ)
        direct = [m for m in (waiting or ()) if m.correl_id == correl_id("TO.QM2")
                  and m.data[4 + 4:4 + 4 + 48].rstrip() == b"SYSTEM.INTER.QMGR.PUBS"]  # MQXQH's RemoteQName
        assert direct == []  # nothing went direct (what waits for TO.QM2 is QM3's snapshot)
        # QM3 does not define PRICES: DISPLAY TPSTATUS there shows the cluster and route QM1 told of
        (shown,) = run_mqsc(qm3.qm, "DISPLAY TPSTATUS('prices') CLUSTER CLROUTE")
        assert [(o["CLUSTER"], o["CLROUTE"]) for o in shown.objects] == [("DEMO", "TOPICHOST")], shown.text
        _stop(servers)


async def test_a_retained_publication_reaches_a_later_subscriber_on_another_member(tmp_path, monkeypatch):
    # DIRECT routing (PRICES on QM1): QM3 publishes a retained publication before anyone subscribes; every
    # member keeps it, so QM2's subscriber made afterwards gets it at once, marked retained.
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        _mqsc(servers["QM1"].qm, "DEFINE TOPIC(PRICES) TOPICSTR('prices') CLUSTER(DEMO)")
        qm3 = servers["QM3"]
        with trio.fail_after(60):
            await _until([qm3], lambda: any(s.get("topics") for s in repository_of(qm3.qm.registry).snapshots.values()))
        registry2, kept = servers["QM2"].qm.registry, trio.Event()
        retain = registry2.retain

        def retain_and_tell(topic, *rest) -> None:  # QM2's agent keeping the forwarded publication
            retain(topic, *rest)
            kept.set()

        monkeypatch.setattr(registry2, "retain", retain_and_tell)
        await trio.to_thread.run_sync(lambda: _publish(port, "prices/veg", b"leeks 2", colour="green", retain=True))
        with trio.fail_after(60):
            await kept.wait()
        assert "prices/veg" in registry2.retained
        subscriber = Subscriber(port)
        await trio.to_thread.run_sync(subscriber.run, trio.lowlevel.current_trio_token(), 1)
        assert subscriber.got == [(b"leeks 2", "green", 1)]
        _stop(servers)
