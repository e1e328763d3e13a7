"""Status commands on a queue manager with real connections and handles (registry/admin/commands/status.py):
Inquire Queue Status, Inquire Connection, Stop Connection, Inquire Queue Manager Status, Reset Queue
Statistics; and the protocol rules every Inquire shares (the filtered attribute is returned, every
command gets a reply).  Each command travels as bytes in both encodings."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.registry.admin import engine
from qmlite.registry.admin.commands import status
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.qmgr import QueueManager
from tests.support.pcfkit import BE, LE, T0, Clock, Reply, bs, check_response_shape, command, failed, i, il, st

Q = "DEV.QUEUE.1"
ENCODINGS = pytest.mark.parametrize("enc", [LE, BE], ids=["LE", "BE"])


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    yield manager
    manager.shutdown()


def run(qm, cmd, *params, enc=LE) -> Reply:
    request = command(cmd, *params)
    out = qm.engine.execute_bytes(P.encode(request, enc), enc, 0)
    decoded = [P.decode(P.encode(r, enc), enc, 819) for r in out]
    check_response_shape(cmd, decoded)
    return Reply(decoded)


def connect(qm, appl="status-test", user="admin"):
    return qm.connect("QM1", user=user, admin=True, appl_name=appl, appl_type=C.MQAT_UNIX, channel="DEV.APP.SVRCONN",
                      conname="10.1.2.3")


def open_q(qm, session, options, name=Q):
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=name), options)
    return handle


def put(qm, session, handle, *, syncpoint=False):
    pmo = S.MQPMO(Options=C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT)
    qm.put(session, handle.hobj, S.MQMD(Persistence=C.MQPER_NOT_PERSISTENT), pmo, b"x")


def get(qm, session, handle, *, syncpoint=False):
    gmo = S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT)
    return qm.get(session, handle, S.MQMD(), gmo, 100)


# ---- Inquire Queue Status ------------------------------------------------------------------------------
@ENCODINGS
def test_queue_status_type_queue_reports_live_counts(qm, clock, enc):
    s = connect(qm)
    out = open_q(qm, s, C.MQOO_OUTPUT)
    inp = open_q(qm, s, C.MQOO_INPUT_SHARED)
    put(qm, s, out)
    clock.t += 5
    put(qm, s, out, syncpoint=True)
    clock.t += 7
    assert get(qm, s, inp, syncpoint=True) is not None  # takes the committed one, under syncpoint
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), enc=enc)
    assert r.ok and len(r.objects) == 1
    o = r.objects[0]
    assert o[C.MQCA_Q_NAME] == Q
    assert o[C.MQIA_CURRENT_Q_DEPTH] == 1  # the uncommitted put counts in the depth
    assert o[C.MQIA_OPEN_INPUT_COUNT] == 1 and o[C.MQIA_OPEN_OUTPUT_COUNT] == 1
    assert o[C.MQIACF_UNCOMMITTED_MSGS] == 2  # one put and one get pending
    # A default queue manager has MONQ(OFF): the monitoring values are "not available" (blank dates).
    assert [o[p] for p in (C.MQCACF_LAST_PUT_DATE, C.MQCACF_LAST_PUT_TIME, C.MQCACF_LAST_GET_DATE,
                           C.MQCACF_LAST_GET_TIME)] == ["", "", "", ""]
    assert o[C.MQIACF_OLDEST_MSG_AGE] == -1 and o[C.MQIACF_Q_TIME_INDICATOR] == (-1, -1)
    assert o[C.MQIA_MONITORING_Q] == C.MQMON_OFF and o[C.MQIACF_Q_STATUS_TYPE] == C.MQIACF_Q_STATUS
    assert o[C.MQCACF_MEDIA_LOG_EXTENT_NAME] == ""


def test_queue_status_monitoring_on_reports_ages(qm, clock):
    qm.registry.qmgr.monitoring_q = C.MQMON_MEDIUM
    s = connect(qm)
    h = open_q(qm, s, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    put(qm, s, h)
    o = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q)).objects[0]
    assert o[C.MQIACF_Q_TIME_INDICATOR] == (-1, -1)  # nothing got yet: no measurement
    assert o[C.MQCACF_LAST_GET_DATE] == "" and o[C.MQCACF_LAST_PUT_TIME] == mq_time(T0)
    put(qm, s, h)
    clock.t += 3
    assert get(qm, s, h) is not None
    clock.t += 4
    o = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q)).objects[0]
    assert o[C.MQIACF_OLDEST_MSG_AGE] == 7
    assert o[C.MQIACF_Q_TIME_INDICATOR] == (3_000_000, 3_000_000)
    assert o[C.MQIA_MONITORING_Q] == C.MQMON_MEDIUM  # the queue's MONQ(QMGR) resolved
    assert o[C.MQCACF_LAST_PUT_DATE] == mq_date(T0) and o[C.MQCACF_LAST_PUT_TIME] == mq_time(T0)
    assert o[C.MQCACF_LAST_GET_DATE] == mq_date(T0 + 3) and o[C.MQCACF_LAST_GET_TIME] == mq_time(T0 + 3)


@pytest.mark.parametrize("queue_level, qmgr_level, effective", [
    (C.MQMON_Q_MGR, C.MQMON_OFF, C.MQMON_OFF), (C.MQMON_Q_MGR, C.MQMON_LOW, C.MQMON_LOW),
    (C.MQMON_Q_MGR, C.MQMON_HIGH, C.MQMON_HIGH), (C.MQMON_HIGH, C.MQMON_OFF, C.MQMON_HIGH),
    (C.MQMON_OFF, C.MQMON_HIGH, C.MQMON_OFF), (C.MQMON_LOW, C.MQMON_NONE, C.MQMON_OFF),
    (C.MQMON_Q_MGR, C.MQMON_NONE, C.MQMON_OFF)])
def test_queue_status_follows_ibms_monq_rule(qm, clock, queue_level, qmgr_level, effective):
    """MONQ(QMGR) takes the queue manager's level; the queue manager's MONQ(NONE) turns every queue off."""
    qm.registry.qmgr.monitoring_q = qmgr_level
    qm.registry.queues[Q].monitoring_q = queue_level
    s = connect(qm)
    h = open_q(qm, s, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    put(qm, s, h)
    put(qm, s, h)
    clock.t += 2
    assert get(qm, s, h) is not None
    o = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q)).objects[0]
    assert o[C.MQIA_MONITORING_Q] == effective
    if effective == C.MQMON_OFF:
        assert (o[C.MQIACF_OLDEST_MSG_AGE], o[C.MQIACF_Q_TIME_INDICATOR], o[C.MQCACF_LAST_GET_TIME]) == (-1, (-1, -1),
                                                                                                         "")
    else:
        assert (o[C.MQIACF_OLDEST_MSG_AGE], o[C.MQIACF_Q_TIME_INDICATOR]) == (2, (2_000_000, 2_000_000))
        assert o[C.MQCACF_LAST_GET_TIME] == mq_time(T0 + 2)


@pytest.mark.parametrize("qtype", [C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS, C.MQQT_REMOTE, C.MQQT_CLUSTER,
                                   C.MQQT_ALL])
def test_queue_status_accepts_every_qtype_and_a_single_selector(qm, qtype):
    """QType is sent by monitoring agents (Datadog's ibm_mq check) though IBM does not list it; QStatusAttrs
    as one MQCFIN (MQIACF_ALL) is what pymqi sends for an int."""
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), i(C.MQIA_Q_TYPE, qtype),
            i(C.MQIACF_Q_STATUS_ATTRS, C.MQIACF_ALL))
    assert r.ok and [o[C.MQCA_Q_NAME] for o in r.objects] == [Q]
    assert set(r.objects[0]) == {a.id for a in status.QUEUE_TABLE.attrs}
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), i(C.MQIACF_Q_STATUS_ATTRS, C.MQIA_CURRENT_Q_DEPTH))
    assert r.objects == [{C.MQCA_Q_NAME: Q, C.MQIACF_Q_STATUS_TYPE: C.MQIACF_Q_STATUS, C.MQIA_CURRENT_Q_DEPTH: 0}]


def test_queue_status_rejects_a_qtype_that_is_no_queue_type(qm):
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), i(C.MQIA_Q_TYPE, 99))
    assert not r.ok and r.reason == C.MQRCCF_PARM_VALUE_ERROR


def test_queue_status_monitor_selector_is_the_monq_values(qm):
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), il(C.MQIACF_Q_STATUS_ATTRS, C.MQIACF_MONITORING))
    assert set(r.objects[0]) == {C.MQCA_Q_NAME, C.MQIACF_Q_STATUS_TYPE, *status.MONITOR_ATTRS}


@ENCODINGS
def test_queue_status_handles_are_the_open_handles(qm, enc):
    s = connect(qm, appl="handle-app", user="admin")
    open_q(qm, s, C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE | C.MQOO_INQUIRE)
    other = connect(qm, appl="putter")
    open_q(qm, other, C.MQOO_OUTPUT)
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), i(C.MQIACF_Q_STATUS_TYPE, C.MQIACF_Q_HANDLE),
            enc=enc)
    by_tag = {o[C.MQCACF_APPL_TAG]: o for o in r.objects}
    assert set(by_tag) == {"handle-app", "putter"}
    o = by_tag["handle-app"]
    assert o[C.MQCA_Q_NAME] == Q and o[C.MQCACF_USER_IDENTIFIER] == "admin"
    assert o[C.MQCACH_CHANNEL_NAME] == "DEV.APP.SVRCONN" and o[C.MQCACH_CONNECTION_NAME] == "10.1.2.3"
    assert o[C.MQIA_APPL_TYPE] == C.MQAT_USER  # IBM's type for an application, not the MQCONN's MQAT_UNIX
    assert o[C.MQIACF_OPEN_OPTIONS] == C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE | C.MQOO_INQUIRE
    assert o[C.MQIACF_OPEN_INPUT_TYPE] == status.MQQSO_EXCLUSIVE and o[C.MQIACF_OPEN_BROWSE] == status.MQQSO_YES
    assert o[C.MQIACF_OPEN_OUTPUT] == status.MQQSO_NO and o[C.MQIACF_OPEN_INQUIRE] == status.MQQSO_YES
    assert o[C.MQIACF_PROCESS_ID] == status.PID and o[C.MQIACF_ASYNC_STATE] == status.MQAS_NONE
    assert by_tag["putter"][C.MQIACF_OPEN_OUTPUT] == status.MQQSO_YES
    # OpenType restricts the handles: OUTPUT shows only the putter's
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), i(C.MQIACF_Q_STATUS_TYPE, C.MQIACF_Q_HANDLE),
            i(C.MQIACF_OPEN_TYPE, status.MQQSOT_OUTPUT), il(C.MQIACF_Q_STATUS_ATTRS, C.MQCACF_APPL_TAG), enc=enc)
    assert r.objects == [{C.MQCA_Q_NAME: Q, C.MQIACF_Q_STATUS_TYPE: C.MQIACF_Q_HANDLE, C.MQCACF_APPL_TAG: "putter"}]


def test_queue_status_generic_names_and_the_command_server(qm):
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, "SYSTEM.ADMIN.COMMAND.*"),
            i(C.MQIACF_Q_STATUS_TYPE, C.MQIACF_Q_HANDLE))
    assert [o[C.MQCACF_APPL_TAG] for o in r.objects] == [status.COMMAND_SERVER_TAG]
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, "*"))
    names = [o[C.MQCA_Q_NAME] for o in r.objects]
    assert Q in names and "SYSTEM.DEFAULT.ALIAS.QUEUE" not in names  # local queues only
    assert names == sorted(names)
    # OpenType INPUT: only queues some handle has open for input
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, "*"), i(C.MQIACF_OPEN_TYPE, status.MQQSOT_INPUT))
    assert [o[C.MQCA_Q_NAME] for o in r.objects] == ["SYSTEM.ADMIN.COMMAND.QUEUE"]


def test_queue_status_reasons(qm):
    assert failed(run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, "NO.SUCH.*")), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, "SYSTEM.DEFAULT.ALIAS.QUEUE")),
                  C.MQRCCF_Q_WRONG_TYPE, C.MQCA_Q_NAME)
    assert failed(run(qm, C.MQCMD_INQUIRE_Q_STATUS), C.MQRCCF_PARM_MISSING, C.MQCA_Q_NAME)
    assert failed(run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), i(C.MQIACF_Q_STATUS_TYPE, 7)),
                  C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_Q_STATUS_TYPE)
    assert failed(run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, Q), i(C.MQIACF_OPEN_TYPE, 9)),
                  C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_OPEN_TYPE)


@ENCODINGS
def test_status_filter_attribute_is_returned_though_not_selected(qm, enc):
    s = connect(qm)
    put(qm, s, open_q(qm, s, C.MQOO_OUTPUT))
    r = run(qm, C.MQCMD_INQUIRE_Q_STATUS, st(C.MQCA_Q_NAME, "DEV.*"),
            il(C.MQIACF_Q_STATUS_ATTRS, C.MQIA_OPEN_OUTPUT_COUNT),
            P.CFIF(C.MQIA_CURRENT_Q_DEPTH, C.MQCFOP_GREATER, 0), enc=enc)
    assert r.objects == [{C.MQCA_Q_NAME: Q, C.MQIACF_Q_STATUS_TYPE: C.MQIACF_Q_STATUS, C.MQIA_CURRENT_Q_DEPTH: 1,
                          C.MQIA_OPEN_OUTPUT_COUNT: 1}]


@ENCODINGS
def test_inquire_queue_filter_attribute_is_returned_though_not_selected(qm, enc):
    s = connect(qm)
    put(qm, s, open_q(qm, s, C.MQOO_OUTPUT))
    r = run(qm, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "*"), il(C.MQIACF_Q_ATTRS, C.MQCA_Q_DESC),
            P.CFIF(C.MQIA_CURRENT_Q_DEPTH, C.MQCFOP_GREATER, 0), enc=enc)
    assert [(o[C.MQCA_Q_NAME], o[C.MQIA_CURRENT_Q_DEPTH]) for o in r.objects] == [(Q, 1)]
    assert C.MQCA_Q_DESC in r.objects[0]


# ---- Inquire Connection / Stop Connection ------------------------------------------------------------
@ENCODINGS
def test_inquire_connection_conn_and_handles(qm, clock, enc):
    s = connect(qm, appl="conn-app", user="admin")
    h = open_q(qm, s, C.MQOO_OUTPUT)
    clock.t += 2
    put(qm, s, h, syncpoint=True)
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_CONNECTION_ID, s.connection_id), enc=enc)
    assert len(r.objects) == 1
    o = r.objects[0]
    assert o[C.MQBACF_CONNECTION_ID] == s.connection_id
    assert o[C.MQCACF_APPL_TAG] == "conn-app" and o[C.MQCACF_USER_IDENTIFIER] == "admin"
    assert o[C.MQCACH_CHANNEL_NAME] == "DEV.APP.SVRCONN" and o[C.MQCACH_CONNECTION_NAME] == "10.1.2.3"
    assert o[C.MQIACF_UOW_STATE] == status.MQUOWST_ACTIVE
    assert o[C.MQCACF_UOW_START_DATE] == mq_date(T0 + 2) and o[C.MQCACF_UOW_START_TIME] == mq_time(T0 + 2)
    assert C.MQCNO_HANDLE_SHARE_BLOCK in o[C.MQIACF_CONNECT_OPTIONS]
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_CONNECTION_ID, s.connection_id),
            i(C.MQIACF_CONN_INFO_TYPE, C.MQIACF_CONN_INFO_HANDLE), enc=enc)
    assert [(o[C.MQCACF_OBJECT_NAME], o[C.MQIACF_OBJECT_TYPE], o[C.MQIACF_OPEN_OPTIONS]) for o in r.objects] == [
        (Q, C.MQOT_Q, C.MQOO_OUTPUT)]
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_CONNECTION_ID, s.connection_id),
            i(C.MQIACF_CONN_INFO_TYPE, C.MQIACF_CONN_INFO_ALL), enc=enc)
    assert len(r.objects) == 2 and C.MQCACF_APPL_TAG in r.objects[0] and C.MQCACF_OBJECT_NAME in r.objects[1]


def test_inquire_connection_generic_and_reasons(qm):
    a, b = connect(qm, appl="a"), connect(qm, appl="b")
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_GENERIC_CONNECTION_ID, b""),
            il(C.MQIACF_CONNECTION_ATTRS, C.MQCACF_APPL_TAG))
    assert sorted(o[C.MQCACF_APPL_TAG] for o in r.objects) == ["a", "b"]
    assert all(set(o) == {C.MQBACF_CONNECTION_ID, C.MQCACF_APPL_TAG} for o in r.objects)
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_GENERIC_CONNECTION_ID, b""),
            P.CFSF(C.MQCACF_APPL_TAG, C.MQCFOP_EQUAL, "b", 0), il(C.MQIACF_CONNECTION_ATTRS, C.MQIA_APPL_TYPE))
    assert [o[C.MQBACF_CONNECTION_ID] for o in r.objects] == [b.connection_id]
    assert r.objects[0][C.MQCACF_APPL_TAG] == "b"  # the filtered attribute, though not selected
    assert failed(run(qm, C.MQCMD_INQUIRE_CONNECTION), C.MQRCCF_PARM_MISSING, C.MQBACF_CONNECTION_ID)
    assert failed(run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_CONNECTION_ID, bytes(24))),
                  C.MQRCCF_CONNECTION_ID_ERROR, C.MQBACF_CONNECTION_ID)
    assert failed(run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_CONNECTION_ID, a.connection_id),
                      bs(C.MQBACF_GENERIC_CONNECTION_ID, b"")), C.MQRCCF_PARM_CONFLICT,
                  C.MQBACF_GENERIC_CONNECTION_ID)
    assert failed(run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_CONNECTION_ID, b"short")),
                  C.MQRCCF_CFBS_STRING_LENGTH_ERR, C.MQBACF_CONNECTION_ID)
    qm.disconnect(a, commit=True)
    qm.disconnect(b, commit=True)
    assert failed(run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_GENERIC_CONNECTION_ID, b"")), C.MQRCCF_NONE_FOUND)


def test_inquire_connection_reports_applications_as_user(qm):
    # IBM lists a client's application as ApplType MQAT_USER (DISPLAY CONN APPLTYPE(USER)), whatever
    # ApplType its MQCONN carried: pymqi's test suite filters Inquire Connection on MQAT_USER.
    a, b = connect(qm, appl="a"), connect(qm, appl="b")
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_GENERIC_CONNECTION_ID, b""),
            i(C.MQIACF_CONN_INFO_TYPE, C.MQIACF_CONN_INFO_CONN), il(C.MQIACF_CONNECTION_ATTRS, C.MQIACF_ALL),
            P.CFIF(C.MQIA_APPL_TYPE, C.MQCFOP_EQUAL, C.MQAT_USER))
    assert sorted(o[C.MQBACF_CONNECTION_ID] for o in r.objects) == sorted([a.connection_id, b.connection_id])
    assert all(o[C.MQIA_APPL_TYPE] == C.MQAT_USER for o in r.objects)
    assert failed(run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_GENERIC_CONNECTION_ID, b""),
                      P.CFIF(C.MQIA_APPL_TYPE, C.MQCFOP_EQUAL, C.MQAT_UNIX)), C.MQRCCF_NONE_FOUND)


def test_stop_connection_marks_the_session(qm):
    s = connect(qm)
    assert run(qm, C.MQCMD_STOP_CONNECTION, bs(C.MQBACF_CONNECTION_ID, s.connection_id)).ok
    assert s.stopped
    assert failed(run(qm, C.MQCMD_STOP_CONNECTION, bs(C.MQBACF_CONNECTION_ID, bytes(24))),
                  C.MQRCCF_CONNECTION_ID_ERROR, C.MQBACF_CONNECTION_ID)
    assert failed(run(qm, C.MQCMD_STOP_CONNECTION), C.MQRCCF_PARM_MISSING, C.MQBACF_CONNECTION_ID)


# ---- Inquire Queue Manager Status -----------------------------------------------------------------------
@ENCODINGS
def test_inquire_q_mgr_status(qm, enc):
    connect(qm)
    connect(qm)
    r = run(qm, C.MQCMD_INQUIRE_Q_MGR_STATUS, enc=enc)
    o = r.objects[0]
    assert o[C.MQCA_Q_MGR_NAME] == "QM1" and o[C.MQIACF_Q_MGR_STATUS] == C.MQQMSTA_RUNNING
    assert o[C.MQCACF_Q_MGR_START_DATE] == mq_date(T0) and o[C.MQCACF_Q_MGR_START_TIME] == mq_time(T0)
    assert o[C.MQIACF_CONNECTION_COUNT] == 2
    assert o[C.MQIACF_CHINIT_STATUS] == C.MQSVC_STATUS_RUNNING
    assert o[C.MQIACF_CMD_SERVER_STATUS] == C.MQSVC_STATUS_RUNNING
    r = run(qm, C.MQCMD_INQUIRE_Q_MGR_STATUS, il(C.MQIACF_Q_MGR_STATUS_ATTRS, C.MQIACF_CONNECTION_COUNT), enc=enc)
    assert r.objects == [{C.MQCA_Q_MGR_NAME: "QM1", C.MQIACF_CONNECTION_COUNT: 2}]


# ---- Reset Queue Statistics -------------------------------------------------------------------------------
@ENCODINGS
def test_reset_queue_statistics_counts_and_resets(qm, clock, enc):
    s = connect(qm)
    h = open_q(qm, s, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for _ in range(3):
        put(qm, s, h)
    put(qm, s, h, syncpoint=True)  # counted when put, committed or not
    assert get(qm, s, h) is not None
    qm.backout(s)  # the uncommitted put is gone, but stays counted (as IBM counts)
    clock.t += 30
    r = run(qm, C.MQCMD_RESET_Q_STATS, st(C.MQCA_Q_NAME, Q), enc=enc)
    assert r.objects == [{C.MQCA_Q_NAME: Q, C.MQIA_TIME_SINCE_RESET: 30, C.MQIA_HIGH_Q_DEPTH: 4,
                          C.MQIA_MSG_ENQ_COUNT: 4, C.MQIA_MSG_DEQ_COUNT: 1}]
    clock.t += 5
    r = run(qm, C.MQCMD_RESET_Q_STATS, st(C.MQCA_Q_NAME, Q), enc=enc)
    assert r.objects == [{C.MQCA_Q_NAME: Q, C.MQIA_TIME_SINCE_RESET: 5, C.MQIA_HIGH_Q_DEPTH: 2,
                          C.MQIA_MSG_ENQ_COUNT: 0, C.MQIA_MSG_DEQ_COUNT: 0}]


def test_reset_queue_statistics_reasons_and_generic(qm):
    assert failed(run(qm, C.MQCMD_RESET_Q_STATS, st(C.MQCA_Q_NAME, "SYSTEM.DEFAULT.ALIAS.QUEUE")),
                  C.MQRCCF_Q_WRONG_TYPE, C.MQCA_Q_NAME)
    assert failed(run(qm, C.MQCMD_RESET_Q_STATS, st(C.MQCA_Q_NAME, "NOPE")), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(run(qm, C.MQCMD_RESET_Q_STATS), C.MQRCCF_PARM_MISSING, C.MQCA_Q_NAME)
    names = [o[C.MQCA_Q_NAME] for o in run(qm, C.MQCMD_RESET_Q_STATS, st(C.MQCA_Q_NAME, "DEV.*")).objects]
    assert Q in names and all(qm.registry.queues[n].qtype == C.MQQT_LOCAL for n in names)


# ---- every command gets a reply ---------------------------------------------------------------------------
@pytest.mark.parametrize("enc", [LE, BE], ids=["LE", "BE"])
def test_every_command_ibm_defines_gets_a_well_formed_reply(qm, enc):
    """With no parameters at all, every MQCMD_* gets an answer (data, a reason, or
    MQRC_FUNCTION_NOT_SUPPORTED for one qmlite does not serve), never a crash or silence."""
    for cmd in sorted(engine._KNOWN_COMMANDS):
        r = run(qm, cmd, enc=enc)
        assert r.messages
        if not r.ok:
            assert r.reason not in (C.MQRC_UNEXPECTED_ERROR, C.MQRCCF_CFH_COMMAND_ERROR), C.describe("MQCMD", cmd)


# ---- Inquire Cluster Queue Manager (no clusters) --------------------------------------------------------
@ENCODINGS
def test_inquire_cluster_q_mgr_outside_every_cluster(qm, enc):
    r = run(qm, C.MQCMD_INQUIRE_CLUSTER_Q_MGR, st(C.MQCA_CLUSTER_Q_MGR_NAME, "*"),
            il(C.MQIACF_CLUSTER_Q_MGR_ATTRS, C.MQIACF_ALL), enc=enc)
    assert failed(r, C.MQRC_UNKNOWN_OBJECT_NAME)
    r = run(qm, C.MQCMD_INQUIRE_CLUSTER_Q_MGR, st(C.MQCA_CLUSTER_Q_MGR_NAME, "*"),
            P.CFIF(C.MQIACH_CHANNEL_STATUS, C.MQCFOP_EQUAL, 3), enc=enc)
    assert failed(r, C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(run(qm, C.MQCMD_INQUIRE_CLUSTER_Q_MGR, enc=enc), C.MQRCCF_PARM_MISSING, C.MQCA_CLUSTER_Q_MGR_NAME)


# ---- attributes IBM defines that qmlite does not model ------------------------------------------------------
@ENCODINGS
def test_unmodelled_attributes_are_returned_with_ibms_default(qm, enc):
    r = run(qm, C.MQCMD_INQUIRE_Q_MGR, il(C.MQIACF_Q_MGR_ATTRS, C.MQIA_CHLAUTH_RECORDS, C.MQIA_SUITE_B_STRENGTH,
                                          C.MQIA_ADOPTNEWMCA_CHECK), enc=enc)
    assert r.objects == [{C.MQCA_Q_MGR_NAME: "QM1", C.MQIA_CHLAUTH_RECORDS: 1,  # CHLAUTH(ENABLED)
                          C.MQIA_SUITE_B_STRENGTH: (C.MQ_SUITE_B_NONE,), C.MQIA_ADOPTNEWMCA_CHECK: 1}]
    r = run(qm, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, Q), il(C.MQIACF_Q_ATTRS, C.MQIA_CAP_EXPIRY,
                                                           C.MQIA_MAX_Q_FILE_SIZE), enc=enc)
    assert r.objects == [{C.MQCA_Q_NAME: Q, C.MQIA_Q_TYPE: C.MQQT_LOCAL, C.MQIA_CAP_EXPIRY: -1,
                          C.MQIA_MAX_Q_FILE_SIZE: -1}]
    # every attribute: the unmodelled ones are part of MQIACF_ALL too
    everything = run(qm, C.MQCMD_INQUIRE_Q_MGR, enc=enc).objects[0]
    assert C.MQIA_REVERSE_DNS_LOOKUP in everything and C.MQIA_CMD_SERVER_CONTROL in everything


def test_inquire_connection_handle_filter_on_an_attribute_both_kinds_have(qm):
    s = connect(qm)
    open_q(qm, s, C.MQOO_OUTPUT)
    open_q(qm, s, C.MQOO_INPUT_SHARED)
    other = connect(qm, appl="other")
    open_q(qm, other, C.MQOO_OUTPUT)
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_GENERIC_CONNECTION_ID, b""),
            i(C.MQIACF_CONN_INFO_TYPE, C.MQIACF_CONN_INFO_HANDLE),
            P.CFBF(C.MQBACF_CONNECTION_ID, C.MQCFOP_EQUAL, s.connection_id))
    assert sorted(o[C.MQIACF_OPEN_OPTIONS] for o in r.objects) == sorted([C.MQOO_OUTPUT, C.MQOO_INPUT_SHARED])
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_GENERIC_CONNECTION_ID, b""),
            i(C.MQIACF_CONN_INFO_TYPE, C.MQIACF_CONN_INFO_HANDLE),
            P.CFIF(C.MQIACF_OPEN_OPTIONS, C.MQCFOP_EQUAL, C.MQOO_OUTPUT))
    assert sorted(o[C.MQBACF_CONNECTION_ID] for o in r.objects) == sorted([s.connection_id, other.connection_id])


# ---- the command server: a large answer is never cut short by the reply queue's depth -------------------------
def test_an_answer_larger_than_the_reply_queues_max_depth_arrives_whole(qm):
    import dataclasses as dc

    reg = qm.registry
    base = reg.queues["SYSTEM.DEFAULT.LOCAL.QUEUE"]
    for n in range(30):
        reg.put_queue(dc.replace(base, name=f"MANY.{n:02d}"))
    s = connect(qm, user="admin")  # app may neither open the model nor put to the command queue
    od = S.MQOD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName="REPLY.*")
    reply, od = qm.open_object(s, od, C.MQOO_INPUT_EXCLUSIVE)
    reply_q = reg.queues[reply.name]
    reg.queues[reply.name] = dc.replace(reply_q, max_depth=10)  # far less than the 30 responses
    request = P.encode(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "MANY.*")), LE)
    md = S.MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=reply.name, Encoding=LE)
    cmd_q = open_q(qm, s, C.MQOO_OUTPUT, name="SYSTEM.ADMIN.COMMAND.QUEUE")
    qm.put(s, cmd_q.hobj, md, S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), request)
    qm.command_server.deliver(qm.command_server.run_batch())
    assert qm.registry.messages.depth(reply.name) == 30
    last = [P.decode(m.data, LE, 819).header.Control for m in qm.registry.messages.contents(reply.name)][-1]
    assert last == C.MQCFC_LAST


def test_topic_objects_report_cap_expiry_as_parent(qm):
    r = run(qm, C.MQCMD_INQUIRE_TOPIC, st(C.MQCA_TOPIC_NAME, "SYSTEM.BASE.TOPIC"),
            il(C.MQIACF_TOPIC_ATTRS, C.MQIA_CAP_EXPIRY))
    assert r.objects[0][C.MQIA_CAP_EXPIRY] == -2  # MQCEX_AS_PARENT


def test_topic_status_ignores_selectors_it_does_not_know(qm):
    """IBM: Inquire Topic Status ignores selectors not valid for the StatusType and raises no error."""
    r = run(qm, C.MQCMD_INQUIRE_TOPIC_STATUS, st(C.MQCA_TOPIC_STRING, "#"),
            il(C.MQIACF_TOPIC_STATUS_ATTRS, C.MQIA_SUB_COUNT, 99_999))
    assert r.ok and r.objects


def test_inquire_connection_reports_a_subscription_handle(qm):
    s = connect(qm)
    sd = S.MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, ObjectString=S.MQCHARV("status/t"),
                SubName=S.MQCHARV("STATUS.SUB"), ResObjectString=S.MQCHARV("", 10240))
    hsub, _, _ = qm.subscribe(s, sd, 0)
    r = run(qm, C.MQCMD_INQUIRE_CONNECTION, bs(C.MQBACF_CONNECTION_ID, s.connection_id),
            i(C.MQIACF_CONN_INFO_TYPE, C.MQIACF_CONN_INFO_HANDLE),
            P.CFSF(C.MQCACF_SUB_NAME, C.MQCFOP_EQUAL, "STATUS.SUB", 0))
    assert len(r.objects) == 1
    o = r.objects[0]
    assert o[C.MQBACF_SUB_ID] == hsub.sub_id and o[C.MQCA_TOPIC_STRING] == "status/t"
    assert o[C.MQIACF_OBJECT_TYPE] == C.MQOT_TOPIC
