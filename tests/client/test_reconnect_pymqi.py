"""Automatic client reconnect through pymqi 1.12 (qmlite's ``pymqe``), against a queue manager the test
restarts in place.  pymqi has no MQCB or MQSTAT; those are covered through ibmmq
(test_reconnect_ibmmq.py)."""

from __future__ import annotations

import os
import threading

import pytest

if os.environ.get("QMLITE_REQUIRE_PYMQI"):
    import pymqi
else:
    pymqi = pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

from pymqi import CMQC, CMQXC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.persistentmsgs import drain, put_persistent  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
N = 40


@pytest.fixture
def server(tmp_path):
    with running_qmlite(tmp_path / "qm") as srv:
        yield srv


def _connect(server, options=CMQC.MQCNO_RECONNECT, qmgr="QM1"):
    cd = pymqi.CD(ChannelName=ADMIN.encode(), ConnectionName=server.conn_name.encode(),
                  ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)
    qm = pymqi.QueueManager(None)
    qm.connect_with_options(qmgr, opts=options, cd=cd, user="admin", password="passw0rd")
    return qm


def _plain(server):
    return pymqi.connect(server.qmgr, ADMIN, server.conn_name, "admin", "passw0rd")


def _put_persistent(server, queue, bodies):
    put_persistent(pymqi, _plain(server), queue, bodies)


def _drain(server, queue):
    return drain(pymqi, _plain(server), queue)


def test_waiting_get_consumer_survives_a_restart(server):
    got, half, errors = [], threading.Event(), []

    def consumer():
        try:
            qm = _connect(server)
            q = pymqi.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_INPUT_SHARED)
            gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT, WaitInterval=30000)
            while len(got) < N:
                body = q.get(None, pymqi.MD(), gmo)
                qm.commit()
                got.append(body)
                if len(got) == N // 2:
                    half.set()
            q.close()
            qm.disconnect()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
            half.set()

    t = threading.Thread(target=consumer, daemon=True)
    t.start()
    _put_persistent(server, "DEV.QUEUE.1", [b"m%03d" % i for i in range(N // 2)])
    assert half.wait(30)
    server.restart()
    _put_persistent(server, "DEV.QUEUE.1", [b"m%03d" % i for i in range(N // 2, N)])
    t.join(60)
    assert not t.is_alive(), "the consumer hung"
    assert not errors, errors
    assert sorted(got) == [b"m%03d" % i for i in range(N)]
    assert _drain(server, "DEV.QUEUE.1") == []


def test_publisher_survives_a_restart(server):
    server.mqsc("DEFINE QLOCAL(PUBS.DURABLE) REPLACE\n"
                "DEFINE SUB(RC.DURABLE) TOPICSTR('rc/pymqi') DEST(PUBS.DURABLE) REPLACE")
    qm = _connect(server)
    topic = pymqi.Topic(qm, topic_string="rc/pymqi")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    for i in range(N):
        if i == N // 2:
            server.restart()
        topic.pub(b"p%03d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        qm.commit()
    qm.disconnect()
    assert sorted(_drain(server, "PUBS.DURABLE")) == [b"p%03d" % i for i in range(N)]


@pytest.mark.parametrize("options", [CMQC.MQCNO_NONE, CMQC.MQCNO_RECONNECT_DISABLED])
def test_reconnect_disabled_gets_2009(server, options):
    qm = _connect(server, options)
    q = pymqi.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT)
    server.restart()
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"after")
    assert (info.value.comp, info.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN)


def test_reconnect_q_mgr_refuses_another_queue_manager(server, tmp_path):
    qm = _connect(server, CMQC.MQCNO_RECONNECT_Q_MGR, qmgr="")
    q = pymqi.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    server.restart(qmgr_name="QM2", data_dir=tmp_path / "qm2")
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"after")
    assert (info.value.comp, info.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED)


def test_unit_of_work_in_flight_is_backed_out_with_2003(server):
    qm = _connect(server)
    q = pymqi.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    q.put(b"uncommitted", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    server.restart()
    with pytest.raises(pymqi.MQMIError) as info:
        qm.commit()
    assert (info.value.comp, info.value.reason) == (CMQC.MQCC_WARNING, CMQC.MQRC_BACKED_OUT)
    q.put(b"next", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    qm.disconnect()
    assert _drain(server, "DEV.QUEUE.1") == [b"next"]
