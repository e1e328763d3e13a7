"""Automatic client reconnect through IBM's ``ibmmq``, against a queue manager the test restarts in
place (``QmliteServer.restart``: same port, same data; it returns once the queue manager accepts and
wakes the reconnecting clients, so nothing here waits out a backoff delay or sleeps).

Each scenario runs its application in a worker thread joined with a timeout, so a hang fails the
test instead of the suite."""

from __future__ import annotations

import threading

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQXC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.persistentmsgs import drain, put_persistent  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
N = 40  # persistent messages per scenario, counted exactly


@pytest.fixture
def server(tmp_path):
    with running_qmlite(tmp_path / "qm") as srv:
        yield srv


def _connect(server, options=CMQC.MQCNO_RECONNECT, qmgr="QM1", def_reconnect=None):
    cd = ibmmq.CD(ChannelName=ADMIN.encode(), ConnectionName=server.conn_name.encode(),
                  ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)
    if def_reconnect is not None:
        cd.DefReconnect = def_reconnect
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options(qmgr, cd=cd, cno=ibmmq.CNO(Options=options), user="admin", password="passw0rd")
    return qm


def _plain(server):
    return ibmmq.connect(server.qmgr, ADMIN, server.conn_name, "admin", "passw0rd")


def _run(target, timeout=60.0):
    errors = []

    def run():
        try:
            target()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, errors


def _join(t, errors, timeout=60.0):
    t.join(timeout)
    assert not t.is_alive(), "the scenario hung"
    if errors:
        raise errors[0]


def _put_persistent(server, queue, bodies):
    put_persistent(ibmmq, _plain(server), queue, bodies)


def _drain(server, queue):
    return drain(ibmmq, _plain(server), queue)


# --------------------------------------------------------------------------------------------------
# A consumer waiting in MQGET, in syncpoint, across a restart
# --------------------------------------------------------------------------------------------------

def test_waiting_get_consumer_survives_a_restart(server):
    got, half = [], threading.Event()

    def consumer():
        qm = _connect(server)
        q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_INPUT_SHARED)
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT, WaitInterval=30000)
        while len(got) < N:
            body = q.get(None, ibmmq.MD(), gmo)
            qm.commit()
            got.append(body)
            if len(got) == N // 2:
                half.set()
        q.close()
        qm.disconnect()

    t, errors = _run(consumer)
    _put_persistent(server, "DEV.QUEUE.1", [b"m%03d" % i for i in range(N // 2)])
    assert half.wait(30)
    server.restart()  # the consumer is waiting in MQGET now: its wait is resumed after the restart
    _put_persistent(server, "DEV.QUEUE.1", [b"m%03d" % i for i in range(N // 2, N)])
    _join(t, errors)
    assert sorted(got) == [b"m%03d" % i for i in range(N)]  # nothing lost, nothing doubled
    assert _drain(server, "DEV.QUEUE.1") == []


# --------------------------------------------------------------------------------------------------
# An MQCB consumer and the event handler
# --------------------------------------------------------------------------------------------------

def test_mqcb_consumer_and_event_handler_across_a_restart(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_INPUT_SHARED)
    got, events, lock = [], [], threading.Lock()
    half, done, reconnected = threading.Event(), threading.Event(), threading.Event()
    statuses = []

    def consumer(queue_manager, queue, md, gmo, msg, cbc):
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
            queue_manager.commit()
            with lock:
                got.append(msg)
                if len(got) == N // 2:
                    half.set()
                if len(got) == N:
                    done.set()

    def handler(queue_manager, queue, md, gmo, msg, cbc):
        events.append((cbc.CallType, cbc.CompCode, cbc.Reason))
        if cbc.Reason == CMQC.MQRC_RECONNECTING:  # MQSTAT while reconnecting: what broke it
            sts = queue_manager.stat(CMQC.MQSTAT_TYPE_RECONNECTION)
            statuses.append((sts.CompCode, sts.Reason, sts.ObjectName.strip(b"\0 ")))
        if cbc.Reason == CMQC.MQRC_RECONNECTED:
            reconnected.set()

    qm.cb(operation=CMQC.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackFunction=handler,
                                                      CallbackType=CMQC.MQCBT_EVENT_HANDLER))
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackFunction=consumer), md=ibmmq.MD(),
         gmo=ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.ctl(CMQC.MQOP_START, ibmmq.CTLO())
    _put_persistent(server, "DEV.QUEUE.2", [b"c%03d" % i for i in range(N // 2)])
    assert half.wait(30)
    server.restart()
    assert reconnected.wait(30)
    _put_persistent(server, "DEV.QUEUE.2", [b"c%03d" % i for i in range(N // 2, N)])
    assert done.wait(30)
    qm.ctl(CMQC.MQOP_STOP, ibmmq.CTLO())
    assert sorted(got) == [b"c%03d" % i for i in range(N)]
    assert events == [(CMQC.MQCBCT_EVENT_CALL, CMQC.MQCC_WARNING, CMQC.MQRC_RECONNECTING),
                      (CMQC.MQCBCT_EVENT_CALL, CMQC.MQCC_WARNING, CMQC.MQRC_RECONNECTED)]
    assert statuses == [(CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN, b"QM1")]
    sts = qm.stat(CMQC.MQSTAT_TYPE_RECONNECTION)  # connected again: nothing to report
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
    qm.disconnect()
    assert _drain(server, "DEV.QUEUE.2") == []


# --------------------------------------------------------------------------------------------------
# A publisher (and a non-durable subscriber, remade) across a restart
# --------------------------------------------------------------------------------------------------

def test_publisher_and_nondurable_subscriber_survive_a_restart(server):
    server.mqsc("DEFINE QLOCAL(PUBS.DURABLE) REPLACE\n"
                "DEFINE SUB(RC.DURABLE) TOPICSTR('rc/orders') DEST(PUBS.DURABLE) REPLACE")
    pub_qm, sub_qm = _connect(server), _connect(server)
    topic = ibmmq.Topic(pub_qm, topic_string="rc/orders")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    sub = ibmmq.Subscription(sub_qm)
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", "rc/orders")
    sub.sub(sub_desc=sd)

    def publish(rng):
        for i in rng:
            topic.pub(b"p%03d" % i, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT),
                      ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            pub_qm.commit()

    publish(range(N // 2))
    before = [sub.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) for _ in range(N // 2)]
    server.restart()
    # the subscriber's next call reconnects it and remakes its subscription (publications made while a
    # non-durable subscription did not exist are not its, as with IBM); the durable one keeps them all
    with pytest.raises(ibmmq.MQMIError) as info:
        sub.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
    assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    publish(range(N // 2, N))  # the publisher's topic handle is reopened; its Hobj unchanged
    after = [sub.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000))
             for _ in range(N // 2)]  # the subscription was remade on the new connection
    assert before == [b"p%03d" % i for i in range(N // 2)]
    assert after == [b"p%03d" % i for i in range(N // 2, N)]
    assert sorted(_drain(server, "PUBS.DURABLE")) == [b"p%03d" % i for i in range(N)]
    sub.close()
    pub_qm.disconnect()
    sub_qm.disconnect()


# --------------------------------------------------------------------------------------------------
# Not reconnecting: 2009 as IBM gives it
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("options,def_reconnect", [
    (CMQC.MQCNO_NONE, None),  # MQCNO_RECONNECT_AS_DEF with the MQCD's default DefReconnect NO
    (CMQC.MQCNO_RECONNECT_DISABLED, None),
    (CMQC.MQCNO_RECONNECT_DISABLED, CMQXC.MQRCN_YES),
    (CMQC.MQCNO_RECONNECT, CMQXC.MQRCN_DISABLED),  # DefReconnect DISABLED wins over MQCONNX
])
def test_reconnect_disabled_gets_2009(server, options, def_reconnect):
    qm = _connect(server, options, def_reconnect=def_reconnect)
    q = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT)
    server.restart()
    with pytest.raises(ibmmq.MQMIError) as info:
        q.put(b"after")
    assert (info.value.comp, info.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN)
    qm.disconnect()


@pytest.mark.parametrize("def_reconnect", [CMQXC.MQRCN_YES, CMQXC.MQRCN_Q_MGR])
def test_reconnect_as_def_follows_the_channels_defreconnect(server, def_reconnect):
    qm = _connect(server, CMQC.MQCNO_RECONNECT_AS_DEF, def_reconnect=def_reconnect)
    q = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT)
    server.restart()
    q.put(b"after", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert _drain(server, "DEV.QUEUE.3") == [b"after"]
    qm.disconnect()


def test_endmqm_without_r_does_not_bring_reconnectable_clients_back(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT)
    server.stop(reconnect=False)  # as endmqm: clients told the queue manager is ending
    server.start()
    with pytest.raises(ibmmq.MQMIError) as info:
        q.put(b"after")
    assert info.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    sts = qm.stat(CMQC.MQSTAT_TYPE_RECONNECTION_ERROR)
    assert sts.Reason == CMQC.MQRC_CONNECTION_BROKEN
    qm.disconnect()


# --------------------------------------------------------------------------------------------------
# MQCNO_RECONNECT_Q_MGR: the same queue manager only
# --------------------------------------------------------------------------------------------------

def test_reconnect_q_mgr_refuses_another_queue_manager(server, tmp_path):
    qm = _connect(server, CMQC.MQCNO_RECONNECT_Q_MGR, qmgr="")
    q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    other = server.restart(qmgr_name="QM2", data_dir=tmp_path / "qm2")  # another queue manager, same port
    with pytest.raises(ibmmq.MQMIError) as info:
        q.put(b"after")
    assert (info.value.comp, info.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED)
    sts = qm.stat(CMQC.MQSTAT_TYPE_RECONNECTION_ERROR)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_QMID_MISMATCH)
    assert sts.ObjectName.strip(b"\0 ") == b"QM2"
    sts = qm.stat(CMQC.MQSTAT_TYPE_RECONNECTION)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN)
    qm.disconnect()
    assert other.qmgr == "QM2" and _drain(other, "DEV.QUEUE.1") == []


def test_reconnect_any_goes_to_another_queue_manager(server, tmp_path):
    qm = _connect(server, CMQC.MQCNO_RECONNECT, qmgr="")
    q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    other = server.restart(qmgr_name="QM2", data_dir=tmp_path / "qm2")
    q.put(b"to QM2", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert qm.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == b"QM2"
    qm.disconnect()
    assert _drain(other, "DEV.QUEUE.1") == [b"to QM2"]


# --------------------------------------------------------------------------------------------------
# Units of work and MQSTAT
# --------------------------------------------------------------------------------------------------

def test_unit_of_work_in_flight_is_backed_out_with_2003(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    q.put(b"committed", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    q.put(b"uncommitted", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    server.restart()
    with pytest.raises(ibmmq.MQMIError) as info:  # more work in the lost unit of work
        q.put(b"more", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert (info.value.comp, info.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_BACKED_OUT)
    with pytest.raises(ibmmq.MQMIError) as info:
        qm.commit()
    assert (info.value.comp, info.value.reason) == (CMQC.MQCC_WARNING, CMQC.MQRC_BACKED_OUT)
    q.put(b"next", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    qm.disconnect()
    assert _drain(server, "DEV.QUEUE.1") == [b"committed", b"next"]


def test_mqstat_reconnection_types_while_connected(server):
    for options in (CMQC.MQCNO_RECONNECT, CMQC.MQCNO_NONE):
        qm = _connect(server, options)
        for kind in (CMQC.MQSTAT_TYPE_RECONNECTION, CMQC.MQSTAT_TYPE_RECONNECTION_ERROR):
            sts = qm.stat(kind)
            assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
        with pytest.raises(ibmmq.MQMIError) as info:
            qm.stat(99)
        assert info.value.reason == CMQC.MQRC_STAT_TYPE_ERROR
        qm.disconnect()


def test_handles_keep_their_values_and_pcf_works_after_a_restart(server):
    qm = _connect(server)
    q1 = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    q2 = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    h1, h2 = q1.get_handle(), q2.get_handle()
    pcf = ibmmq.PCFExecute(qm)
    before = pcf.MQCMD_INQUIRE_Q_MGR()[0][CMQC.MQCA_Q_MGR_NAME]
    server.restart()
    q2.put(b"two", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert (q1.get_handle(), q2.get_handle()) == (h1, h2)
    assert q2.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1 and q1.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    assert pcf.MQCMD_INQUIRE_Q_MGR()[0][CMQC.MQCA_Q_MGR_NAME] == before
    pcf.disconnect()
    qm.disconnect()
    assert _drain(server, "DEV.QUEUE.2") == [b"two"]


def test_two_options_at_once_are_refused(server):
    with pytest.raises(ibmmq.MQMIError) as info:
        _connect(server, CMQC.MQCNO_RECONNECT | CMQC.MQCNO_RECONNECT_DISABLED)
    assert info.value.reason == CMQC.MQRC_OPTIONS_ERROR


def test_temporary_dynamic_queue_is_made_again_under_its_name(server):
    qm = _connect(server)
    od = ibmmq.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"RC.REPLY.*")
    q = ibmmq.Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    name = q.inquire(CMQC.MQCA_Q_NAME).strip()
    assert name.startswith(b"RC.REPLY.")
    server.restart()  # a temporary dynamic queue ends with its connection; it is made again
    q.put(b"reply")
    assert q.inquire(CMQC.MQCA_Q_NAME).strip() == name
    assert q.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"reply"
    qm.disconnect()


def test_the_qmlite_server_fixture_restarts_in_place(qmlite_server):
    """The plugin's own fixture: restart() keeps the port and the data, and returns once it accepts."""
    _put_persistent(qmlite_server, "DEV.QUEUE.1", [b"kept"])
    again = qmlite_server.restart()
    assert (again.port, again.data_dir, again.qmgr) == (qmlite_server.port, qmlite_server.data_dir, "QM1")
    assert _drain(again, "DEV.QUEUE.1") == [b"kept"]  # connecting right away works: it accepts
    with pytest.raises(RuntimeError):
        qmlite_server.start()  # already running
