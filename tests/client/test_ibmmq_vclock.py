"""A clock the test controls (issue 23 part 2), through IBM's ``ibmmq``: advancing the virtual clock
expires messages, retained publications and subscriptions, ends MQGET and MQCB waits, moves
PutDate/PutTime and ends the statistics and monitoring intervals -- with no sleeping.  The same
clock from MQSC (PCF Escape) and from the REST API, and every malformed step refused precisely."""

from __future__ import annotations

import threading

import httpx
import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.registry.testing.clock import MAX_STEP, ClockError  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
AUTH = ("admin", "passw0rd")
CSRF = {"ibm-mq-rest-csrf-token": "x"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-vclock"), clock="virtual", http_port=0,
                        monitor_interval=10, app_password="app-pw") as srv:
        yield srv


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-realclock"), http_port=0) as srv:
        yield srv


def _connect(server):
    return ibmmq.connect("QM1", ADMIN, server.conn_name, *AUTH)


def _queue(pcf, name):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: name})
    return name


def _get(queue, options=CMQC.MQGMO_NO_WAIT, wait=0):
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Options=options, WaitInterval=wait)
    return md, queue.get(None, md, gmo)


def _nothing(queue):
    with pytest.raises(ibmmq.MQMIError) as info:
        _get(queue)
    assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE


def _escape(pcf, text):
    return pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC, CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})


def _text(response):
    value = response[CMQCFC.MQCACF_ESCAPE_TEXT]
    return (value.decode() if isinstance(value, bytes) else value).rstrip()


@pytest.fixture
def qm(server):
    conn = _connect(server)
    yield conn
    conn.disconnect()


@pytest.fixture
def pcf(qm):
    p = ibmmq.PCFExecute(qm)
    yield p
    p.disconnect()


class _Waiter(threading.Thread):
    """An application blocked in MQGET with a wait, on a connection of its own."""

    def __init__(self, server, queue, wait_ms):
        super().__init__(daemon=True)
        self.server, self.queue, self.wait_ms = server, queue, wait_ms
        self.result = self.error = None

    def run(self):
        conn = _connect(self.server)
        try:
            q = ibmmq.Queue(conn, self.queue, CMQC.MQOO_INPUT_AS_Q_DEF)
            try:
                self.result = _get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, self.wait_ms)[1]
            except ibmmq.MQMIError as exc:
                self.error = exc.reason
            q.close()
        finally:
            conn.disconnect()


# ---- expiry -----------------------------------------------------------------------------------------

def test_a_message_expires_when_the_clock_passes_its_expiry(server, qm, pcf):
    name = _queue(pcf, "VC.EXPIRY")
    q = ibmmq.Queue(qm, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE)
    q.put(b"short", ibmmq.MD(Expiry=50))  # 5 seconds
    q.put(b"forever", ibmmq.MD())
    server.clock.advance(4.9)
    md, data = _get(q, CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT)
    assert data == b"short" and md.Expiry == 1  # a tenth of a second left, on the queue manager's clock
    server.clock.advance(0.1)
    assert _get(q)[1] == b"forever"  # the expired one is gone, the other stays
    _nothing(q)
    q.close()


@pytest.mark.parametrize("ms, want", [(0, 42), (99, 42), (100, 41)])
def test_mqget_gives_back_the_expiry_less_whole_tenths_on_the_queue(server, qm, pcf, ms, want):
    # A peer's suite written against IBM's container reads a request a few milliseconds after it put it,
    # Expiry 42, and expects 42: IBM's Expiry "need not be decremented to reflect small time intervals".
    name = _queue(pcf, "VC.EXPIRY.TENTHS")
    q = ibmmq.Queue(qm, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"request", ibmmq.MD(Expiry=42, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=name))
    server.clock.advance(ms / 1000)
    md, data = _get(q)
    assert (data, md.Expiry) == (b"request", want)
    q.close()


def test_put_date_and_time_follow_the_virtual_clock(server, qm, pcf):
    name = _queue(pcf, "VC.STAMP")
    q = ibmmq.Queue(qm, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    future = server.clock.now() + 86400 * 30
    import time
    day = time.strftime("%Y-%m-%d", time.gmtime(future))
    state = server.clock.set(day, "12.34.56")
    assert (state["date"], state["time"], state["mode"]) == (day, "12.34.56", "VIRTUAL")
    q.put(b"stamped")
    md, _ = _get(q)
    assert md.PutDate == day.replace("-", "").encode() and md.PutTime == b"12345600"
    server.clock.advance(61.25)
    q.put(b"later")
    md, _ = _get(q)
    assert md.PutTime == b"12355725"
    q.close()


def test_sub_expiry_removes_the_subscription_when_the_clock_passes_it(server, qm, pcf):
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED, SubExpiry=100)  # 10 s
    sd.set_vs("ObjectString", "vc/subexpiry")
    sd.set_vs("SubName", "VC.SUBEXPIRY")
    sub = ibmmq.Subscription(qm)
    sub.sub(sub_desc=sd)
    topic = ibmmq.Topic(qm, topic_string="vc/subexpiry")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"before")
    [shown] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"VC.SUBEXPIRY"})
    assert shown[CMQCFC.MQIACF_EXPIRY] == 100
    server.clock.advance(9.9)
    assert pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"VC.SUBEXPIRY"})  # not yet
    server.clock.advance(0.1)
    with pytest.raises(ibmmq.MQMIError) as info:  # IBM: an expired subscription is removed
        pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"VC.SUBEXPIRY"})
    assert info.value.reason == CMQCFC.MQRCCF_SUB_NAME_ERROR or info.value.reason == CMQC.MQRC_NO_SUBSCRIPTION
    with pytest.raises(ibmmq.MQMIError) as info:  # nobody receives a publication now
        topic.pub(b"after", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED))
    assert info.value.reason == CMQC.MQRC_NO_SUBS_MATCHED
    topic.close()


def test_a_retained_publication_expires_with_the_clock(server, qm):
    topic = ibmmq.Topic(qm, topic_string="vc/retained")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"kept", ibmmq.MD(Expiry=30), ibmmq.PMO(Options=CMQC.MQPMO_RETAIN))  # 3 s
    topic.close()

    def subscribe():
        sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
        sd.set_vs("ObjectString", "vc/retained")
        sub = ibmmq.Subscription(qm)
        sub.sub(sub_desc=sd)
        return sub

    first = subscribe()
    md, data = _get(first.get_sub_queue())
    assert data == b"kept" and md.Expiry == 30
    first.close()
    server.clock.advance(3)
    second = subscribe()
    _nothing(second.get_sub_queue())
    second.close()


# ---- waits ------------------------------------------------------------------------------------------

def test_an_mqget_wait_ends_when_the_clock_passes_its_interval(server, qm, pcf):
    name = _queue(pcf, "VC.WAIT")
    waiter = _Waiter(server, name, 60_000)
    waiter.start()
    server.clock.wait_for_waits(1)
    assert server.clock.status()["waits"] == 1
    server.clock.advance(60)
    waiter.join(30)
    assert not waiter.is_alive() and waiter.error == CMQC.MQRC_NO_MSG_AVAILABLE and waiter.result is None
    assert server.clock.status()["waits"] == 0


def test_a_wait_whose_interval_has_not_passed_still_gets_the_message(server, qm, pcf):
    name = _queue(pcf, "VC.WAIT.SHORT")
    waiter = _Waiter(server, name, 60_000)
    waiter.start()
    server.clock.wait_for_waits(1)
    server.clock.advance(59.999)  # woken, it looks again and waits on
    out = ibmmq.Queue(qm, name, CMQC.MQOO_OUTPUT)
    out.put(b"in time")
    out.close()
    waiter.join(30)
    assert not waiter.is_alive() and waiter.result == b"in time" and waiter.error is None


def test_mqcb_through_ibmmq_still_consumes_and_stops_on_a_virtual_clock(server, qm, pcf):
    """ibmmqc's dispatcher polls with short waits (client/ibmmqc/consume.py): each ends in real time
    too (VC2), so MQCTL STOP is not held by a clock nobody moves.  (The consumer's own WaitInterval is
    measured by that dispatcher on real time, VC7; the server-side MQCB wait, REQUEST_MSGS as IBM's
    client sends it, follows the virtual clock: tests/server/test_server_vclock.py.)"""
    name = _queue(pcf, "VC.MQCB")
    q = ibmmq.Queue(qm, name, CMQC.MQOO_INPUT_AS_Q_DEF)
    got = threading.Event()
    calls = []

    def consumer(queue_manager, queue, md, gmo, msg, cbc):
        calls.append((cbc.CallType, cbc.Reason, msg))
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
            got.set()

    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=3_600_000)
    cbd = ibmmq.CBD(CallbackFunction=consumer)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=cbd, md=ibmmq.MD(), gmo=gmo)
    qm.ctl(CMQC.MQOP_START, ibmmq.CTLO())
    try:
        server.clock.wait_for_waits(1)  # the dispatcher's poll waits on the queue manager
        sender = _connect(server)
        out = ibmmq.Queue(sender, name, CMQC.MQOO_OUTPUT)
        out.put(b"consumed")
        out.close()
        sender.disconnect()
        assert got.wait(30)
        assert calls == [(CMQC.MQCBCT_MSG_REMOVED, CMQC.MQRC_NONE, b"consumed")]
    finally:
        stopper = threading.Thread(target=lambda: qm.ctl(CMQC.MQOP_STOP, ibmmq.CTLO()), daemon=True)
        stopper.start()
        stopper.join(30)
        assert not stopper.is_alive()  # STOP returned without anyone moving the clock
        q.cb(operation=CMQC.MQOP_DEREGISTER, cbd=cbd, md=ibmmq.MD(), gmo=gmo)
        q.close()


# ---- intervals --------------------------------------------------------------------------------------

def test_the_statistics_interval_ends_when_the_clock_passes_statint(server, qm, pcf):
    pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: b"SYSTEM.ADMIN.STATISTICS.QUEUE"})
    stats = ibmmq.Queue(qm, "SYSTEM.ADMIN.STATISTICS.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF)
    pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_STATISTICS_MQI: CMQC.MQMON_ON, CMQC.MQIA_STATISTICS_INTERVAL: 600})
    pcf.MQCMD_RESET_Q_MGR({CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_COLLECT_STATISTICS})  # a new interval starts now
    _get(stats)  # what that reset wrote
    try:
        server.clock.advance(599)
        _nothing(stats)
        server.clock.advance(1)
        md, body = _get(stats)
        assert md.Format.strip() == b"MQADMIN"
        params, header = ibmmq.PCFExecute.unpack(body)
        assert header.Command == CMQCFC.MQCMD_STATISTICS_MQI
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_STATISTICS_MQI: CMQC.MQMON_OFF})
        stats.close()


def test_monitoring_publications_follow_the_clock(server, qm):
    topic = f"$SYS/MQ/INFO/QMGR/{server.qmgr}/Monitor/CPU/SystemSummary"
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    sub = ibmmq.Subscription(qm)
    sub.sub(sub_desc=sd)
    queue = sub.get_sub_queue()
    try:
        server.clock.advance(10)  # the interval has passed since the last publication, whenever that was
        _get(queue)  # that publication, which covers the time since the last one
        _nothing(queue)
        server.clock.advance(9.999)
        _nothing(queue)  # not yet due
        server.clock.advance(0.001)
        _md, body = _get(queue)
        params, header = ibmmq.PCFExecute.unpack(body)
        assert params[CMQCFC.MQIAMO64_MONITOR_INTERVAL] == 10_000_000  # ten seconds on the virtual clock
        _nothing(queue)
    finally:
        sub.close()


# ---- the three surfaces -----------------------------------------------------------------------------

def test_mqsc_moves_and_shows_the_same_clock(server, pcf):
    before = server.clock.now()
    [moved] = _escape(pcf, "SET QMLITE CLOCK(ADVANCE) SECONDS(12.5)")
    assert _text(moved).startswith("QML0301I: qmlite clock now ")
    assert server.clock.now() == pytest.approx(before + 12.5)
    [shown] = _escape(pcf, "DISPLAY QMLITE CLOCK")
    lines = _text(shown).splitlines()
    assert lines[0] == "QML0302I: Display qmlite clock details."
    text = " ".join(lines)
    for keyword in ("CLOCK(VIRTUAL)", "DATE(", "TIME(", "SECONDS(", "ADVANCED(", "WAITS(0)"):
        assert keyword in text
    assert f"SECONDS({server.clock.now():.3f})" in text


def test_rest_moves_and_shows_the_same_clock(server):
    base = f"http://127.0.0.1:{server.http_port}/ibmmq/rest/v2/admin"
    with httpx.Client(auth=AUTH, headers=CSRF) as client:
        before = client.get(f"{base}/qmgr/QM1/clock").json()["clock"]
        assert before["mode"] == "VIRTUAL" and before["now"] == pytest.approx(server.clock.now())
        moved = client.post(f"{base}/action/qmgr/QM1/clock", json={"advance": 7})
        assert moved.status_code == 200
        assert moved.json()["clock"]["now"] == pytest.approx(before["now"] + 7)
        assert server.clock.now() == pytest.approx(before["now"] + 7)


MALFORMED_MQSC = [
    "SET QMLITE CLOCK(ADVANCE)",  # no step
    "SET QMLITE CLOCK(ADVANCE) SECONDS()",
    "SET QMLITE CLOCK(ADVANCE) SECONDS(abc)",
    "SET QMLITE CLOCK(ADVANCE) SECONDS(-1)",
    "SET QMLITE CLOCK(ADVANCE) SECONDS(1.2345)",  # finer than a millisecond
    "SET QMLITE CLOCK(ADVANCE) SECONDS(1e3)",
    "SET QMLITE CLOCK(ADVANCE) SECONDS(1) SECONDS(2)",
    "SET QMLITE CLOCK(ADVANCE) SECONDS(1,2)",
    "SET QMLITE CLOCK(ADVANCE) SECONDS(1) DATE(2030-01-01)",
    "SET QMLITE CLOCK(BACK) SECONDS(1)",
    "SET QMLITE CLOCK SECONDS(1)",
    "SET QMLITE CLOCK() SECONDS(1)",
    "SET QMLITE(X) CLOCK(ADVANCE) SECONDS(1)",
    "SET QMLITE CLOCK(SET)",
    "SET QMLITE CLOCK(SET) DATE(2030-13-01)",
    "SET QMLITE CLOCK(SET) DATE(2030-02-30)",
    "SET QMLITE CLOCK(SET) DATE(30-01-01)",
    "SET QMLITE CLOCK(SET) DATE(2030-01-01) TIME(25.00.00)",
    "SET QMLITE CLOCK(SET) DATE(2030-01-01) TIME(noon)",
    "SET QMLITE CLOCK(SET) DATE(2030-01-01) SECONDS(1)",
    "DISPLAY QMLITE CLOCK(VIRTUAL)",
    "DISPLAY QMLITE CLOCK NOW",
]


@pytest.mark.parametrize("command", MALFORMED_MQSC)
def test_a_malformed_clock_command_is_a_syntax_error_and_moves_nothing(server, pcf, command):
    before = server.clock.now()
    with pytest.raises(ibmmq.MQMIError) as info:
        _escape(pcf, command)
    assert info.value.reason == CMQCFC.MQRCCF_COMMAND_FAILED or info.value.reason > 0
    from qmlite.registry.mqsc import check_mqsc

    [checked] = check_mqsc(command)
    assert checked.syntax_error and checked.text[0].startswith("AMQ8405I")
    assert server.clock.now() == before


@pytest.mark.parametrize("command, reason", [
    (f"SET QMLITE CLOCK(ADVANCE) SECONDS({MAX_STEP + 1})", CMQCFC.MQRCCF_PARM_VALUE_ERROR),  # more than a year
    ("SET QMLITE CLOCK(SET) DATE(2001-01-01)", CMQCFC.MQRCCF_PARM_VALUE_ERROR),  # the past
    ("SET QMLITE CLOCK(SET) DATE(2999-01-01)", CMQCFC.MQRCCF_PARM_VALUE_ERROR),  # more than a year on
])
def test_a_step_the_clock_refuses_fails_with_its_reason(server, pcf, command, reason):
    before = server.clock.now()
    with pytest.raises(ibmmq.MQMIError) as info:
        _escape(pcf, command)
    assert info.value.reason == reason
    assert server.clock.now() == before


@pytest.mark.parametrize("body", [
    None, [], "advance", {}, {"advance": "x"}, {"advance": -1}, {"advance": True}, {"advance": None},
    {"advance": 1.0001}, {"advance": MAX_STEP + 1}, {"advance": 1, "date": "2030-01-01"}, {"seconds": 1},
    {"date": "2030-02-30"}, {"date": 20300101}, {"date": "2030-01-01", "time": "24.00.00"},
    {"date": "2001-01-01"}, {"time": "12.00.00"},
])
def test_rest_refuses_every_malformed_step_with_a_400(server, body):
    before = server.clock.now()
    url = f"http://127.0.0.1:{server.http_port}/ibmmq/rest/v2/admin/action/qmgr/QM1/clock"
    answer = httpx.post(url, auth=AUTH, headers=CSRF, json=body)
    assert answer.status_code == 400
    [error] = answer.json()["error"]
    assert error["reasonCode"] == CMQCFC.MQRCCF_PARM_VALUE_ERROR and error["completionCode"] == CMQC.MQCC_FAILED
    assert error["msgId"] == "MQWB0004E" and error["type"] == "rest"
    assert server.clock.now() == before


def test_the_python_api_refuses_what_mqsc_and_rest_refuse(server):
    for bad in ("x", -1, True, None, 1.0001, MAX_STEP + 1, float("nan"), float("inf")):
        with pytest.raises(ClockError) as info:
            server.clock.advance(bad)
        assert info.value.reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR


def test_a_real_clock_cannot_be_moved_from_any_surface(real_server):
    qm = _connect(real_server)
    pcf = ibmmq.PCFExecute(qm)
    try:
        with pytest.raises(ibmmq.MQMIError) as info:
            _escape(pcf, "SET QMLITE CLOCK(ADVANCE) SECONDS(1)")
        assert info.value.reason == CMQC.MQRC_ENVIRONMENT_ERROR
        [shown] = _escape(pcf, "DISPLAY QMLITE CLOCK")
        assert "CLOCK(REAL)" in _text(shown)
    finally:
        pcf.disconnect()
        qm.disconnect()
    with pytest.raises(ClockError) as err:
        real_server.clock.advance(1)
    assert err.value.reason == CMQC.MQRC_ENVIRONMENT_ERROR
    base = f"http://127.0.0.1:{real_server.http_port}/ibmmq/rest/v2/admin"
    answer = httpx.post(f"{base}/action/qmgr/QM1/clock", auth=AUTH, headers=CSRF, json={"advance": 1})
    assert answer.status_code == 400 and answer.json()["error"][0]["reasonCode"] == CMQC.MQRC_ENVIRONMENT_ERROR
    assert httpx.get(f"{base}/qmgr/QM1/clock", auth=AUTH, headers=CSRF).json()["clock"]["mode"] == "REAL"


def test_qmlite_serve_clock_virtual(tmp_path):
    """The command line's --clock virtual: a separate process whose clock only MQSC (or REST) moves."""
    import os
    import signal
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("MQ_")}
    proc = subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--clock", "virtual",
                             "--data-dir", str(tmp_path / "data"), "--log-level", "warning"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        ready = proc.stdout.readline()
        port = int(ready.split("listening on 127.0.0.1:")[1].split()[0])
        qm = ibmmq.connect("QM1", ADMIN, f"127.0.0.1({port})", *AUTH)
        pcf = ibmmq.PCFExecute(qm)
        try:
            [before] = _escape(pcf, "DISPLAY QMLITE CLOCK SECONDS")
            assert "CLOCK(VIRTUAL)" in _text(before)
            seconds = float(_text(before).split("SECONDS(")[1].split(")")[0])
            _escape(pcf, "SET QMLITE CLOCK(ADVANCE) SECONDS(86400)")
            [after] = _escape(pcf, "DISPLAY QMLITE CLOCK SECONDS ADVANCED")
            assert f"SECONDS({seconds + 86400:.3f})" in _text(after) and "ADVANCED(86400.000)" in _text(after)
        finally:
            pcf.disconnect()
            qm.disconnect()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()


def test_the_qmlite_virtual_fixture(qmlite_virtual):
    """The plugin's fixture: a fresh queue manager on a virtual clock, moved from Python."""
    assert qmlite_virtual.clock.status()["mode"] == "VIRTUAL"
    conn = _connect(qmlite_virtual)
    try:
        q = ibmmq.Queue(conn, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        q.put(b"five seconds", ibmmq.MD(Expiry=50))
        qmlite_virtual.clock.advance(5)
        _nothing(q)
        q.close()
    finally:
        conn.disconnect()


def test_a_rest_get_wait_ends_when_the_clock_passes_it(server):
    """The REST messaging API's ?wait= is an MQGET wait: it follows the clock as the MQI's does."""
    url = f"http://127.0.0.1:{server.http_port}/ibmmq/rest/v2/messaging/qmgr/QM1/queue/DEV.QUEUE.3/message"
    answers = []
    thread = threading.Thread(target=lambda: answers.append(
        httpx.delete(url, params={"wait": 600_000}, auth=("app", "app-pw"), headers=CSRF, timeout=60)), daemon=True)
    thread.start()
    server.clock.wait_for_waits(1)
    server.clock.advance(600)
    thread.join(30)
    assert not thread.is_alive() and answers[0].status_code == 204
