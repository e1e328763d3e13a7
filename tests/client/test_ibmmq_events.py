"""Queue-manager events as IBM's ``ibmmq`` sees them (through the ``ibmmqc`` transport): each event's
condition provoked with its switch on gives exactly IBM's message on the right SYSTEM.ADMIN.*.EVENT
queue -- read with MQGET and parsed with ibmmq's own PCF parsing -- and with the switch off, nothing.

Queue switches are set with Change Queue over PCF, the queue manager's with Change Q Mgr (on the
model if a server refuses the parameter: the domain reads the same fields).  The server runs on an injected clock, so
the service-interval events need no sleeping.
"""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

from qmlite.client._thread import TrioThread  # noqa: E402
from qmlite.registry.monitoring import events as E  # noqa: E402
from qmlite.registry.security import vocab as A  # noqa: E402
from tests.support.pcfkit import Clock  # noqa: E402

ON, OFF = CMQCFC.MQEVR_ENABLED, CMQCFC.MQEVR_DISABLED
APP_CHANNEL = "DEV.APP.SVRCONN"
# (PCF parameter of Change Q Mgr, field of the model) for each queue-manager switch
SWITCHES = {
    "AUTHOREV": (CMQC.MQIA_AUTHORITY_EVENT, "authority_event"),
    "INHIBTEV": (CMQC.MQIA_INHIBIT_EVENT, "inhibit_event"),
    "LOCALEV": (CMQC.MQIA_LOCAL_EVENT, "local_event"),
    "REMOTEEV": (CMQC.MQIA_REMOTE_EVENT, "remote_event"),
    "PERFMEV": (CMQC.MQIA_PERFORMANCE_EVENT, "performance_event"),
    "STRSTPEV": (CMQC.MQIA_START_STOP_EVENT, "start_stop_event"),
    "CHLEV": (CMQC.MQIA_CHANNEL_EVENT, "channel_event"),
    "CONFIGEV": (CMQC.MQIA_CONFIGURATION_EVENT, "configuration_event"),
    "CMDEV": (CMQC.MQIA_COMMAND_EVENT, "command_event"),
}


def _serve(data_dir, clock, qm=None):
    """A server on ``data_dir`` whose queue manager runs on ``clock``; returns (srv, stop)."""
    import trio

    from qmlite.registry.qmgr import QueueManager
    from qmlite.server import config
    from qmlite.server.listener import running

    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": data_dir})
    qm = QueueManager.open(data_dir, "QM1", clock=clock, synchronous="NORMAL")
    loop = TrioThread(name="qmlite-events").start()
    stop, done = trio.Event(), trio.Event()

    async def serve(task_status=trio.TASK_STATUS_IGNORED):
        try:
            async with running(cfg, synchronous="NORMAL", qm=qm) as srv:
                task_status.started(srv)
                await stop.wait()
        finally:
            done.set()

    srv = loop.run(lambda: loop.nursery.start(serve))
    srv.loop, srv.clock = loop, clock
    srv.conn_name = f"127.0.0.1({srv.port})"

    def finish():
        try:
            loop.run_sync(stop.set)
            loop.run(done.wait)
        finally:
            loop.stop()
            qm.shutdown()

    return srv, finish


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv, finish = _serve(tmp_path_factory.mktemp("ibmmq-events"), Clock())
    try:
        yield srv
    finally:
        finish()


@pytest.fixture(autouse=True)
def quiet(server, pcf):
    """Every switch off and every event queue empty before each test."""
    for name in SWITCHES:
        set_switch(server, pcf, name, OFF)
    for queue in E.EVENT_QUEUES:
        server.loop.run_sync(lambda q=queue: server.qm.registry.drop_messages(q, keep_queue=True))
    yield


def set_switch(server, pcf, name: str, value: int) -> None:
    pid, field = SWITCHES[name]
    try:
        pcf.MQCMD_CHANGE_Q_MGR({pid: value})
    except ibmmq.MQMIError:  # not yet a Change Q Mgr parameter here (branch qmgr-attrs): the model
        server.loop.run_sync(lambda: setattr(server.qm.registry.qmgr, field, value))


def read_events(qmgr, queue: str) -> list[tuple]:
    """Every message on an event queue, as (MQMD, parameters, MQCFH) by ibmmq's PCF parsing."""
    q = ibmmq.Queue(qmgr, queue.encode(), CMQC.MQOO_INPUT_SHARED)
    out = []
    try:
        while True:
            md = ibmmq.MD()
            gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_CONVERT)
            try:
                data = q.get(None, md, gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return out
                raise
            # ibmmq's own parser; events carry CompCode MQCC_WARNING, which unpack() would raise on
            params, cfh = ibmmq.PCFExecute._unpack_option(data, True)
            out.append((md, params, cfh))
    finally:
        q.close()


def text(value) -> str:
    return (value.decode() if isinstance(value, bytes) else value).rstrip(" \x00")


def only(qmgr, queue: str, reason: int, command: int) -> dict:
    [(md, params, cfh)] = read_events(qmgr, queue)
    assert md.Format.rstrip() == CMQC.MQFMT_EVENT.rstrip() and md.MsgType == CMQC.MQMT_DATAGRAM
    assert md.PutApplType == CMQC.MQAT_QMGR and text(md.PutApplName) == "QM1"
    assert (cfh.Type, cfh.Command, cfh.CompCode, cfh.Reason) == (CMQCFC.MQCFT_EVENT, command,
                                                                 CMQC.MQCC_WARNING, reason)
    return params


def reason_of(fn, *args, **kwargs) -> int:
    with pytest.raises(ibmmq.MQMIError) as info:
        fn(*args, **kwargs)
    return info.value.reason


def app(server):
    return ibmmq.connect("QM1", APP_CHANNEL, server.conn_name, "app", "")


def switched(server, pcf, qmgr, name, queue, provoke) -> list:
    """Provoke with the switch off (no event), then on; the events the second time.  What setting
    the switch itself raises (a Change Q Mgr's own events) is read away first."""
    set_switch(server, pcf, name, OFF)
    read_events(qmgr, queue)
    provoke()
    assert read_events(qmgr, queue) == []
    set_switch(server, pcf, name, ON)
    read_events(qmgr, queue)
    provoke()
    return read_events(qmgr, queue)


# ---- start and stop ------------------------------------------------------------------------------
def test_queue_manager_active_and_not_active(tmp_path):
    data = tmp_path / "qm"
    srv, finish = _serve(data, Clock())
    try:
        qmgr = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", srv.conn_name, "admin", "passw0rd")
        [(_, params, cfh)] = read_events(qmgr, E.QMGR_QUEUE)  # STRSTPEV(ENABLED) is IBM's default
        assert cfh.Reason == CMQC.MQRC_Q_MGR_ACTIVE and text(params[CMQC.MQCA_Q_MGR_NAME]) == "QM1"
        pcf = ibmmq.PCFExecute(qmgr)  # make the next events persistent, so the stop's survives the restart
        pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: E.QMGR_QUEUE.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQIA_DEF_PERSISTENCE: CMQC.MQPER_PERSISTENT})
        pcf.disconnect()
        qmgr.disconnect()
    finally:
        finish()
    srv, finish = _serve(data, Clock())
    try:
        qmgr = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", srv.conn_name, "admin", "passw0rd")
        got = read_events(qmgr, E.QMGR_QUEUE)
        assert [cfh.Reason for _, _, cfh in got] == [CMQC.MQRC_Q_MGR_NOT_ACTIVE, CMQC.MQRC_Q_MGR_ACTIVE]
        assert got[0][1][CMQCFC.MQIACF_REASON_QUALIFIER] == E.MQRQ_Q_MGR_QUIESCING
        assert got[0][0].Persistence == CMQC.MQPER_PERSISTENT
        qmgr.disconnect()
    finally:
        finish()


# ---- authority events ----------------------------------------------------------------------------
def test_not_authorized_type_1_bad_password(server, pcf, qmgr):
    def provoke():
        assert reason_of(ibmmq.connect, "QM1", "DEV.ADMIN.SVRCONN", server.conn_name, "admin",
                         "wrong") == CMQC.MQRC_NOT_AUTHORIZED

    [(_, params, cfh)] = switched(server, pcf, qmgr, "AUTHOREV", E.QMGR_QUEUE, provoke)
    assert (cfh.Command, cfh.Reason) == (CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED)
    assert params[CMQCFC.MQIACF_REASON_QUALIFIER] == E.MQRQ_CSP_NOT_AUTHORIZED
    assert text(params[CMQCFC.MQCACF_USER_IDENTIFIER]) == "admin"
    assert text(params[CMQCFC.MQCACF_CSP_USER_IDENTIFIER]) == "admin"
    assert text(params[CMQCFC.MQCACH_CHANNEL_NAME]) == "DEV.ADMIN.SVRCONN"
    assert text(params[CMQCFC.MQCACH_CONNECTION_NAME]) == "127.0.0.1"


def test_not_authorized_type_2_open(server, pcf, qmgr):
    conn = app(server)
    try:
        def provoke():
            assert reason_of(ibmmq.Queue, conn, b"SYSTEM.DEFAULT.LOCAL.QUEUE",
                             CMQC.MQOO_OUTPUT) == CMQC.MQRC_NOT_AUTHORIZED

        [(_, params, _)] = switched(server, pcf, qmgr, "AUTHOREV", E.QMGR_QUEUE, provoke)
    finally:
        conn.disconnect()
    assert params[CMQCFC.MQIACF_REASON_QUALIFIER] == E.MQRQ_OPEN_NOT_AUTHORIZED
    assert params[CMQCFC.MQIACF_OPEN_OPTIONS] & CMQC.MQOO_OUTPUT
    assert text(params[CMQC.MQCA_Q_NAME]) == "SYSTEM.DEFAULT.LOCAL.QUEUE"
    assert text(params[CMQCFC.MQCACF_USER_IDENTIFIER]) == "app"
    assert text(params[CMQCFC.MQCACH_CHANNEL_NAME]) == APP_CHANNEL


def test_not_authorized_type_4_command(server, pcf, qmgr):
    # app may put a command (put on the command queue), but may not run Create Queue
    pcf.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"SYSTEM.ADMIN.COMMAND.QUEUE",
                            CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                            CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"],
                            CMQCFC.MQIACF_AUTH_ADD_AUTHS: [A.MQAUTH_OUTPUT]})
    conn = app(server)
    app_pcf = ibmmq.PCFExecute(conn, model_queue_name=b"DEV.APP.MODEL.QUEUE")
    try:
        def provoke():
            assert reason_of(app_pcf.MQCMD_CREATE_Q, {CMQC.MQCA_Q_NAME: b"BY.APP",
                                                      CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}) == CMQC.MQRC_NOT_AUTHORIZED

        [(_, params, _)] = switched(server, pcf, qmgr, "AUTHOREV", E.QMGR_QUEUE, provoke)
    finally:
        app_pcf.disconnect()
        conn.disconnect()
    assert params[CMQCFC.MQIACF_REASON_QUALIFIER] == E.MQRQ_CMD_NOT_AUTHORIZED
    assert params[CMQCFC.MQIACF_COMMAND] == CMQCFC.MQCMD_CREATE_Q
    assert text(params[CMQCFC.MQCACF_USER_IDENTIFIER]) == "app"


def test_not_authorized_type_5_subscribe(server, pcf, qmgr):
    conn = app(server)
    try:
        def provoke():
            sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
            sd.set_vs("ObjectString", "private/events")
            assert reason_of(ibmmq.Subscription(conn).sub, sub_desc=sd) == CMQC.MQRC_NOT_AUTHORIZED

        [(_, params, _)] = switched(server, pcf, qmgr, "AUTHOREV", E.QMGR_QUEUE, provoke)
    finally:
        conn.disconnect()
    assert params[CMQCFC.MQIACF_REASON_QUALIFIER] == E.MQRQ_SUB_NOT_AUTHORIZED
    assert text(params[CMQC.MQCA_TOPIC_STRING]) == "private/events"


# ---- inhibit and local events --------------------------------------------------------------------
def test_put_and_get_inhibited(server, pcf, qmgr):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"EV.INHIBITED", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED, CMQC.MQIA_INHIBIT_GET: CMQC.MQQA_GET_INHIBITED,
                        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    queue = ibmmq.Queue(qmgr, b"EV.INHIBITED", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        def provoke():
            assert reason_of(queue.put, b"x") == CMQC.MQRC_PUT_INHIBITED
            assert reason_of(queue.get) == CMQC.MQRC_GET_INHIBITED

        got = switched(server, pcf, qmgr, "INHIBTEV", E.QMGR_QUEUE, provoke)
    finally:
        queue.close()
    assert [cfh.Reason for _, _, cfh in got] == [CMQC.MQRC_PUT_INHIBITED, CMQC.MQRC_GET_INHIBITED]
    assert {text(p[CMQC.MQCA_Q_NAME]) for _, p, _ in got} == {"EV.INHIBITED"}


def test_local_events(server, pcf, qmgr):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"EV.ALIAS", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS,
                        CMQC.MQCA_BASE_Q_NAME: b"EV.NOT.THERE", CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})

    def provoke():
        assert reason_of(ibmmq.Queue, qmgr, b"EV.NO.SUCH.QUEUE", CMQC.MQOO_OUTPUT) == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        assert reason_of(ibmmq.Queue, qmgr, b"EV.ALIAS", CMQC.MQOO_OUTPUT) == CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q

    got = switched(server, pcf, qmgr, "LOCALEV", E.QMGR_QUEUE, provoke)
    assert [cfh.Reason for _, _, cfh in got] == [CMQC.MQRC_UNKNOWN_OBJECT_NAME, CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q]
    assert text(got[0][1][CMQC.MQCA_Q_NAME]) == "EV.NO.SUCH.QUEUE"
    assert text(got[1][1][CMQC.MQCA_BASE_OBJECT_NAME]) == "EV.NOT.THERE"


# ---- performance events --------------------------------------------------------------------------
def _queue_attrs(pcf, name: bytes) -> dict:
    [attrs] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: name})
    return attrs


def test_queue_depth_high_full_low_with_ibms_switch_flipping(server, pcf, qmgr):
    name = b"EV.DEPTH"
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MAX_Q_DEPTH: 5,
                        CMQC.MQIA_Q_DEPTH_HIGH_LIMIT: 80, CMQC.MQIA_Q_DEPTH_LOW_LIMIT: 20,
                        CMQC.MQIA_Q_DEPTH_HIGH_EVENT: ON, CMQC.MQIA_Q_DEPTH_LOW_EVENT: OFF,
                        CMQC.MQIA_Q_DEPTH_MAX_EVENT: ON, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    set_switch(server, pcf, "PERFMEV", ON)
    queue = ibmmq.Queue(qmgr, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        for _ in range(3):
            queue.put(b"m")
        assert read_events(qmgr, E.PERFM_QUEUE) == []
        queue.put(b"m")  # 4 of 5 = 80%
        params = only(qmgr, E.PERFM_QUEUE, CMQC.MQRC_Q_DEPTH_HIGH, CMQCFC.MQCMD_PERFM_EVENT)
        assert (text(params[CMQC.MQCA_Q_NAME]), params[CMQC.MQIA_HIGH_Q_DEPTH], params[CMQC.MQIA_MSG_ENQ_COUNT]) == (
            "EV.DEPTH", 4, 4)
        attrs = _queue_attrs(pcf, name)
        assert (attrs[CMQC.MQIA_Q_DEPTH_HIGH_EVENT], attrs[CMQC.MQIA_Q_DEPTH_LOW_EVENT],
                attrs[CMQC.MQIA_Q_DEPTH_MAX_EVENT]) == (OFF, ON, ON)
        queue.put(b"m")
        assert reason_of(queue.put, b"m") == CMQC.MQRC_Q_FULL
        params = only(qmgr, E.PERFM_QUEUE, CMQC.MQRC_Q_FULL, CMQCFC.MQCMD_PERFM_EVENT)
        assert params[CMQC.MQIA_MSG_ENQ_COUNT] == 1  # reset by the Depth High event
        assert reason_of(queue.put, b"m") == CMQC.MQRC_Q_FULL
        assert read_events(qmgr, E.PERFM_QUEUE) == []  # Full turned itself off
        for _ in range(4):
            queue.get()  # 1 of 5 = 20%: Depth Low at the fourth
        params = only(qmgr, E.PERFM_QUEUE, CMQC.MQRC_Q_DEPTH_LOW, CMQCFC.MQCMD_PERFM_EVENT)
        assert params[CMQC.MQIA_MSG_DEQ_COUNT] == 4
        attrs = _queue_attrs(pcf, name)
        assert (attrs[CMQC.MQIA_Q_DEPTH_HIGH_EVENT], attrs[CMQC.MQIA_Q_DEPTH_LOW_EVENT],
                attrs[CMQC.MQIA_Q_DEPTH_MAX_EVENT]) == (ON, OFF, ON)
        queue.get()
    finally:
        queue.close()


def test_performance_events_need_perfmev(server, pcf, qmgr):
    name = b"EV.NOPERF"
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MAX_Q_DEPTH: 1,
                        CMQC.MQIA_Q_DEPTH_HIGH_EVENT: ON, CMQC.MQIA_Q_DEPTH_MAX_EVENT: ON,
                        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    queue = ibmmq.Queue(qmgr, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        queue.put(b"m")
        assert reason_of(queue.put, b"m") == CMQC.MQRC_Q_FULL
        queue.get()
    finally:
        queue.close()
    assert read_events(qmgr, E.PERFM_QUEUE) == []


def test_queue_service_interval_high_and_ok(server, pcf, qmgr):
    name = b"EV.SERVICE"
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_Q_SERVICE_INTERVAL: 2000, CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT: CMQCFC.MQQSIE_HIGH,
                        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    set_switch(server, pcf, "PERFMEV", ON)
    queue = ibmmq.Queue(qmgr, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        queue.put(b"m")
        server.loop.run_sync(lambda: setattr(server.clock, "t", server.clock.t + 3))
        queue.put(b"m")  # 3 s without a get: Service Interval High
        only(qmgr, E.PERFM_QUEUE, CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH, CMQCFC.MQCMD_PERFM_EVENT)
        assert _queue_attrs(pcf, name)[CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT] == CMQCFC.MQQSIE_OK
        queue.get()  # restarts the timer (a message is left)
        read_events(qmgr, E.PERFM_QUEUE)
        server.loop.run_sync(lambda: setattr(server.clock, "t", server.clock.t + 1))
        queue.get()  # 1 s: within the interval, Service Interval OK
        only(qmgr, E.PERFM_QUEUE, CMQC.MQRC_Q_SERVICE_INTERVAL_OK, CMQCFC.MQCMD_PERFM_EVENT)
        assert _queue_attrs(pcf, name)[CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT] == CMQCFC.MQQSIE_HIGH
    finally:
        queue.close()


# ---- channel events ------------------------------------------------------------------------------
@pytest.mark.parametrize("record,qualifier", [
    ({CMQCFC.MQCACH_CHANNEL_NAME: APP_CHANNEL.encode(), CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_BLOCKUSER,
      CMQCFC.MQCACH_MCA_USER_ID_LIST: [b"app"]}, E.MQRQ_CHANNEL_BLOCKED_USERID),
    ({CMQCFC.MQCACH_CHANNEL_NAME: b"*", CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_BLOCKADDR,
      CMQCFC.MQCACH_CONNECTION_NAME_LIST: [b"127.0.0.1"]}, E.MQRQ_CHANNEL_BLOCKED_ADDRESS),
    ({CMQCFC.MQCACH_CHANNEL_NAME: APP_CHANNEL.encode(), CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_ADDRESSMAP,
      CMQCFC.MQCACH_CONNECTION_NAME: b"127.0.0.1", CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_NOACCESS},
     E.MQRQ_CHANNEL_BLOCKED_NOACCESS),
])
def test_channel_blocked_by_a_chlauth_record(server, pcf, qmgr, record, qualifier):
    pcf.MQCMD_SET_CHLAUTH_REC({**record, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REPLACE})
    try:
        def provoke():
            assert reason_of(app, server) == CMQC.MQRC_NOT_AUTHORIZED

        [(_, params, cfh)] = switched(server, pcf, qmgr, "CHLEV", E.CHANNEL_QUEUE, provoke)
    finally:
        pcf.MQCMD_SET_CHLAUTH_REC({**{k: v for k, v in record.items() if k in (
            CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACF_CHLAUTH_TYPE, CMQCFC.MQCACH_CONNECTION_NAME)},
            CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVEALL if CMQCFC.MQCACH_CONNECTION_NAME not in record
            else CMQCFC.MQACT_REMOVE})
    assert (cfh.Command, cfh.Reason) == (CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_BLOCKED)
    assert params[CMQCFC.MQIACF_REASON_QUALIFIER] == qualifier
    assert text(params[CMQCFC.MQCACH_CONNECTION_NAME]) == "127.0.0.1"
    assert (CMQCFC.MQCACH_CHANNEL_NAME in params) == (qualifier != E.MQRQ_CHANNEL_BLOCKED_ADDRESS)
    if qualifier == E.MQRQ_CHANNEL_BLOCKED_USERID:
        assert text(params[CMQCFC.MQCACF_USER_IDENTIFIER]) == "app"


def test_channel_started_and_stopped_by_command(server, pcf, qmgr):
    pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"EV.TO.QM2", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SENDER,
                              CMQCFC.MQCACH_CONNECTION_NAME: b"qm2(1414)", CMQCFC.MQCACH_XMIT_Q_NAME: b"QM2",
                              CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})

    def provoke():
        pcf.MQCMD_START_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"EV.TO.QM2"})
        pcf.MQCMD_STOP_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"EV.TO.QM2"})

    got = switched(server, pcf, qmgr, "CHLEV", E.CHANNEL_QUEUE, provoke)
    # The started agent's own failure to reach qm2 (a name that does not resolve) raises Channel Stopped
    # (MQRQ_CHANNEL_STOPPED_RETRY) when it happens to fail before the STOP: not what the commands raise.
    got = [g for g in got if g[2].Reason != CMQC.MQRC_CHANNEL_STOPPED]
    assert [cfh.Reason for _, _, cfh in got] == [CMQC.MQRC_CHANNEL_STARTED, CMQC.MQRC_CHANNEL_STOPPED_BY_USER]
    assert text(got[0][1][CMQCFC.MQCACH_XMIT_Q_NAME]) == "QM2"
    assert got[1][1][CMQCFC.MQIACF_REASON_QUALIFIER] == E.MQRQ_CHANNEL_STOPPED_DISABLED


# ---- configuration events ------------------------------------------------------------------------
def test_configuration_events_create_change_delete_refresh(server, pcf, qmgr):
    name = b"EV.CONFIG"

    def provoke():
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MAX_Q_DEPTH: 10})
        pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MAX_Q_DEPTH: 20})
        pcf.MQCMD_REFRESH_Q_MGR({CMQCFC.MQIACF_REFRESH_TYPE: E.MQRT_CONFIGURATION,
                                 CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_LOCAL_Q, CMQCFC.MQCACF_OBJECT_NAME: name})
        pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: name})

    got = switched(server, pcf, qmgr, "CONFIGEV", E.CONFIG_QUEUE, provoke)
    assert [(cfh.Reason, cfh.MsgSeqNumber, cfh.Control, cfh.Version) for _, _, cfh in got] == [
        (CMQC.MQRC_CONFIG_CREATE_OBJECT, 1, CMQCFC.MQCFC_LAST, 2),
        (CMQC.MQRC_CONFIG_CHANGE_OBJECT, 1, CMQCFC.MQCFC_NOT_LAST, 2),
        (CMQC.MQRC_CONFIG_CHANGE_OBJECT, 2, CMQCFC.MQCFC_LAST, 2),
        (CMQC.MQRC_CONFIG_REFRESH_OBJECT, 1, CMQCFC.MQCFC_LAST, 2),
        (CMQC.MQRC_CONFIG_DELETE_OBJECT, 1, CMQCFC.MQCFC_LAST, 2)]
    assert [p[CMQC.MQIA_MAX_Q_DEPTH] for _, p, _ in got] == [10, 10, 20, 20, 20]
    for _, params, cfh in got:
        assert cfh.Command == CMQCFC.MQCMD_CONFIG_EVENT
        assert text(params[CMQC.MQCA_Q_NAME]) == "EV.CONFIG"
        assert params[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_Q
        assert params[CMQCFC.MQIACF_EVENT_ORIGIN] == E.MQEVO_MSG  # a command message
        assert text(params[CMQCFC.MQCACF_EVENT_USER_ID]) == "admin"
        assert CMQCFC.MQBACF_EVENT_ACCOUNTING_TOKEN in params


# ---- command events ------------------------------------------------------------------------------
def test_command_events_for_pcf_and_mqsc_not_for_inquiries(server, pcf, qmgr):
    name = b"EV.COMMAND"

    def provoke():
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: name})
        pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                          CMQCFC.MQCACF_ESCAPE_TEXT: b"ALTER QLOCAL(EV.COMMAND) MAXDEPTH(7)"})
        pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                          CMQCFC.MQCACF_ESCAPE_TEXT: b"DISPLAY QLOCAL(EV.COMMAND)"})

    set_switch(server, pcf, "CMDEV", OFF)
    read_events(qmgr, E.COMMAND_QUEUE)
    provoke()
    assert read_events(qmgr, E.COMMAND_QUEUE) == []
    set_switch(server, pcf, "CMDEV", CMQCFC.MQEVR_NO_DISPLAY)
    read_events(qmgr, E.COMMAND_QUEUE)  # a Change Q Mgr that set it raises its own (CMDEV on after it)
    provoke()
    got = read_events(qmgr, E.COMMAND_QUEUE)
    assert [(cfh.Command, cfh.Reason, cfh.Version) for _, _, cfh in got] == [
        (CMQCFC.MQCMD_COMMAND_EVENT, CMQC.MQRC_COMMAND_PCF, 3), (CMQCFC.MQCMD_COMMAND_EVENT, CMQC.MQRC_COMMAND_MQSC, 3)]
    pcf_context = got[0][1][CMQCFC.MQGACF_COMMAND_CONTEXT][0]
    pcf_data = got[0][1][CMQCFC.MQGACF_COMMAND_DATA][0]
    assert pcf_context[CMQCFC.MQIACF_COMMAND] == CMQCFC.MQCMD_CREATE_Q
    assert pcf_context[CMQCFC.MQIACF_EVENT_ORIGIN] == E.MQEVO_MSG
    assert text(pcf_context[CMQCFC.MQCACF_EVENT_USER_ID]) == "admin"
    assert text(pcf_data[CMQC.MQCA_Q_NAME]) == "EV.COMMAND"
    mqsc_context = got[1][1][CMQCFC.MQGACF_COMMAND_CONTEXT][0]
    mqsc_data = got[1][1][CMQCFC.MQGACF_COMMAND_DATA][0]
    assert mqsc_context[CMQCFC.MQIACF_COMMAND] == CMQCFC.MQCMD_CHANGE_Q
    assert mqsc_data[CMQC.MQIA_MAX_Q_DEPTH] == 7
    set_switch(server, pcf, "CMDEV", ON)  # ENABLED: inquiries and DISPLAY too
    read_events(qmgr, E.COMMAND_QUEUE)
    pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: name})
    [(_, params, _)] = read_events(qmgr, E.COMMAND_QUEUE)
    assert params[CMQCFC.MQGACF_COMMAND_CONTEXT][0][CMQCFC.MQIACF_COMMAND] == CMQCFC.MQCMD_INQUIRE_Q


# ---- remote events -------------------------------------------------------------------------------
def test_unknown_remote_queue_manager(server, pcf, qmgr):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"EV.REMOTE", CMQC.MQIA_Q_TYPE: CMQC.MQQT_REMOTE,
                        CMQC.MQCA_REMOTE_Q_NAME: b"THEIR.Q", CMQC.MQCA_REMOTE_Q_MGR_NAME: b"QM2",
                        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})

    def provoke():
        assert reason_of(ibmmq.Queue, qmgr, b"EV.REMOTE", CMQC.MQOO_OUTPUT) == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR

    [(_, params, cfh)] = switched(server, pcf, qmgr, "REMOTEEV", E.QMGR_QUEUE, provoke)
    assert cfh.Reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR and text(params[CMQC.MQCA_Q_NAME]) == "EV.REMOTE"
