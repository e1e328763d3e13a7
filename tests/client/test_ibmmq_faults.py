"""Fault injection (issue 23 part 1, docs/faults.md) through IBM's ``ibmmq`` against a server started here.

Each action with the reason and side effects the real failure has, each matching field, each way a
rule fires (NTH, COUNT, PROB with SEED: the same run fails the same calls twice), the rules listed,
deleted and cleared by RESET QMLITE from MQSC, REST and the pytest plugin alike, and every malformed
rule refused with its precise error."""

from __future__ import annotations

import gc
import threading

import httpx
import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.registry.testing import faults as FR  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
APP = "DEV.APP.SVRCONN"
Q = "DEV.QUEUE.1"
CSRF = {"ibm-mq-rest-csrf-token": ""}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-faults"), http_port=0) as srv:
        yield srv


_OPEN: list = []  # every ibmmq connection a test makes, disconnected here, not by a garbage collection


@pytest.fixture(autouse=True)
def fresh(server):
    server.reset()  # RESET QMLITE: every queue empty and every fault rule gone
    yield
    # A failed call's traceback holds its connection in a reference cycle; collected on the in-process
    # server's thread, ibmmq's __del__ would MQDISC from inside the server and wait on itself.
    while _OPEN:
        qm = _OPEN.pop()
        try:
            qm.disconnect()
        except (ibmmq.MQMIError, ibmmq.PYIFError):
            pass  # already disconnected, or broken
    gc.collect()


def _admin(server):
    qm = ibmmq.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
    _OPEN.append(qm)
    return qm


def _app(server):
    qm = ibmmq.connect("QM1", APP, server.conn_name)
    _OPEN.append(qm)
    return qm


def _depth(server, queue: str = Q) -> int:
    qm = _admin(server)
    try:
        q = ibmmq.Queue(qm, queue, CMQC.MQOO_INQUIRE)
        depth = q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        q.close()
        return depth
    finally:
        qm.disconnect()


def _mqsc(server, text: str):
    (result,) = server.mqsc(text)
    return result


def _rule(server, name: str) -> dict:
    (rule,) = server.faults.list(name)
    return rule


def _rest(server):
    return httpx.Client(base_url=server.rest_url, auth=("admin", "passw0rd"), headers=CSRF, timeout=30)


def _pmo(persistent: bool) -> tuple:
    md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT)
    return md, ibmmq.PMO()


# --------------------------------------------------------------------------------------------------
# FAIL on every MQI verb: the reason the client sees, and what the failure leaves behind
# --------------------------------------------------------------------------------------------------

def _conn_fails(server):
    raises(2059, _admin, server)
    _admin(server).disconnect()  # COUNT(1): the next connect works


def _open_fails(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm)
    raises(2085, q.open, Q, CMQC.MQOO_OUTPUT)
    q.open(Q, CMQC.MQOO_OUTPUT)
    q.close()
    qm.disconnect()


def _put_fails(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q)
    raises(2053, q.put, b"lost")
    assert _depth(server) == 0  # MQRC_Q_FULL leaves nothing on the queue
    q.put(b"second")
    assert _depth(server) == 1


def _put1_fails(server):
    qm = _admin(server)
    raises(2053, qm.put1, Q, b"lost")
    assert _depth(server) == 0
    qm.put1(Q, b"second")
    assert _depth(server) == 1


def _get_fails(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    q.put(b"kept")
    raises(2033, q.get)
    assert _depth(server) == 1  # the message stays where it was
    assert q.get() == b"kept"


def _sub_fails(server):
    qm = _admin(server)
    sub = ibmmq.Subscription(qm)
    raises(2035, sub.sub, topic_string="dev/faults", sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    assert _mqsc(server, "DISPLAY SBSTATUS(*) WHERE(TOPICSTR EQ 'dev/faults')").objects == []


def _cmit_fails(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q)
    q.put(b"in unit", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    raises(2003, qm.commit)  # MQRC_BACKED_OUT: the unit of work is gone, as after a real one
    qm.commit()
    assert _depth(server) == 0
    qm.disconnect()


def _back_fails(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q)
    q.put(b"in unit", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    raises(2102, qm.backout)  # the unit is not backed out by a failed MQBACK
    qm.commit()
    assert _depth(server) == 1
    qm.disconnect()


def _inq_fails(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q, CMQC.MQOO_INQUIRE)
    raises(2067, q.inquire, CMQC.MQIA_CURRENT_Q_DEPTH)
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0


def _set_fails(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    raises(2071, q.set, CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    assert q.inquire(CMQC.MQIA_INHIBIT_PUT) == CMQC.MQQA_PUT_ALLOWED  # nothing was set
    q.close()
    qm.disconnect()


VERB_CASES = {
    "MQCONN": (2059, "QM1", _conn_fails), "MQOPEN": (2085, Q, _open_fails), "MQPUT": (2053, Q, _put_fails),
    "MQPUT1": (2053, Q, _put1_fails), "MQGET": (2033, Q, _get_fails), "MQSUB": (2035, "dev/faults", _sub_fails),
    "MQCMIT": (2003, "*", _cmit_fails), "MQBACK": (2102, "*", _back_fails), "MQINQ": (2067, Q, _inq_fails),
    "MQSET": (2071, Q, _set_fails),
}


def test_every_verb_of_the_brief_is_covered():
    assert set(VERB_CASES) == set(FR.MQI_VERBS)


@pytest.mark.parametrize("verb", sorted(VERB_CASES))
def test_fail_on_each_verb_gives_its_reason_and_leaves_what_the_real_failure_leaves(server, verb):
    reason, obj, scenario = VERB_CASES[verb]
    result = _mqsc(server, f"SET QMLITE FAULT(F.{verb}) VERB({verb}) OBJECT('{obj}') REASON({reason}) COUNT(1)")
    assert result.text == ["QML0400I: qmlite fault rule set."]
    scenario(server)
    rule = _rule(server, f"F.{verb}")
    assert rule["FIRED"] == 1 and rule["MATCHED"] >= 1


def test_fail_carries_every_ibm_reason_code_exactly(server):
    """The sweep: every MQRC in ibmmq's CMQC comes back on the MQPUT exactly as given, and nothing is put."""
    reasons = sorted({v for k, v in vars(CMQC).items() if k.startswith("MQRC_") and isinstance(v, int) and v > 0})
    assert len(reasons) > 300
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q)
    seen = {}
    for reason in reasons:
        server.faults.set("SWEEP", verb="MQPUT", object=Q, reason=reason)
        try:
            q.put(b"never")
        except ibmmq.MQMIError as err:
            seen[reason] = (err.comp, err.reason)
    assert seen == {r: (CMQC.MQCC_FAILED, r) for r in reasons}
    server.faults.clear()
    q.put(b"after")
    assert _depth(server) == 1


# --------------------------------------------------------------------------------------------------
# The other actions
# --------------------------------------------------------------------------------------------------

def test_break_drops_the_connection_before_the_call_acts_and_keeps_what_was_acknowledged(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q)
    q.put(b"acknowledged", *_pmo(True))  # outside syncpoint: acknowledged, so it must survive
    q.put(b"uncommitted", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    server.faults.set("BRK", verb="MQPUT", object=Q, action="BREAK")
    raises(CMQC.MQRC_CONNECTION_BROKEN, q.put, b"never")
    assert _depth(server) == 1  # the unit of work backed out, the broken put never made
    reader = _admin(server)
    assert ibmmq.Queue(reader, Q).get() == b"acknowledged"
    assert _rule(server, "BRK")["FIRED"] == 1


def test_delay_holds_the_reply_after_the_call_has_acted(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q)
    server.faults.set("SLOW", verb="MQPUT", object=Q, delay=1500, count=1)
    done = threading.Event()

    def put():
        q.put(b"slow")
        done.set()

    t = threading.Thread(target=put, daemon=True)
    t.start()
    assert not done.wait(0.5)  # the reply is held back (a bound, not a measurement)
    assert _depth(server) == 1  # while the put itself has already happened
    t.join(30)
    assert done.is_set()
    q.put(b"fast")  # COUNT(1): only the first
    assert _rule(server, "SLOW")["FIRED"] == 1


def _held(server) -> threading.Event:
    """An event set when the server next holds a reply for a DELAY rule (its MQI's table of held replies
    watched from the server's own thread): the release below then certainly meets a held call."""
    held = threading.Event()
    runner = server._runner
    mqi = runner.server.mqi

    class Watched(dict):
        def __setitem__(self, key, value) -> None:
            super().__setitem__(key, value)
            held.set()

    runner.loop.run_sync(lambda: setattr(mqi, "_holds", Watched(mqi._holds)))
    return held


def _delayed_get(server, gmo=None) -> tuple[threading.Thread, dict, object]:
    """An MQGET of the one message on Q, its reply held by a rule: (thread, outcome, qm)."""
    _admin(server).put1(Q, b"held")
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)  # options that mark it
    held = _held(server)
    server.faults.set("SLOW", verb="MQGET", object=Q, delay=3_600_000)
    outcome: dict = {}

    def get() -> None:
        try:
            outcome["data"] = q.get(None, ibmmq.MD(), gmo or ibmmq.GMO())
        except ibmmq.MQMIError as err:
            outcome["reason"] = err.reason

    thread = threading.Thread(target=get, daemon=True)
    thread.start()
    assert held.wait(30)  # the get has acted, its reply is held for an hour
    return thread, outcome, qm


def test_deleting_the_rule_releases_a_delayed_reply_at_once(server):
    thread, outcome, _qm = _delayed_get(server)
    assert "QML0402I" in " ".join(_mqsc(server, "DELETE QMLITE FAULT(SLOW)").text)
    thread.join(30)  # far less than the hour: the deletion ended the delay
    assert outcome == {"data": b"held"}  # the call answered as it acted


def test_reset_qmlite_releases_a_delayed_reply_at_once(server):
    thread, outcome, _qm = _delayed_get(server)
    server.reset()
    thread.join(30)
    assert outcome == {"data": b"held"}


def test_stop_connection_ends_a_delayed_call_with_2009_and_backs_its_unit_of_work_out(server):
    thread, outcome, qm = _delayed_get(server, ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    pcf = ibmmq.PCFExecute(_admin(server))
    found = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b""),
                                         CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_HANDLE})
    (target,) = [h for h in found
                 if h[CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET]
    assert pcf.MQCMD_STOP_CONNECTION({CMQCFC.MQBACF_CONNECTION_ID:
                                      ibmmq.ByteString(target[CMQCFC.MQBACF_CONNECTION_ID])}) == []
    thread.join(30)
    assert outcome == {"reason": CMQC.MQRC_CONNECTION_BROKEN}
    assert _depth(server) == 1  # the get under syncpoint backed out: the message is back


def test_diskfull_fails_persistent_puts_with_2102_and_lets_nonpersistent_ones_through(server):
    _mqsc(server, "SET QMLITE FAULT(DISK) ACTION(DISKFULL)")
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q)
    raises(CMQC.MQRC_RESOURCE_PROBLEM, q.put, b"persistent", *_pmo(True))
    raises(CMQC.MQRC_RESOURCE_PROBLEM, qm.put1, Q, b"persistent", *_pmo(True))
    q.put(b"not persistent", *_pmo(False))
    assert _depth(server) == 1
    rule = _rule(server, "DISK")
    assert rule["VERB"] == ["MQPUT", "MQPUT1"] and rule["FIRED"] == 2 and rule["MATCHED"] == 2


def test_putinh_refuses_put_and_put1_with_2051_and_raises_the_put_inhibited_event(server):
    _mqsc(server, "ALTER QMGR INHIBTEV(ENABLED)")
    events_before = _depth(server, "SYSTEM.ADMIN.QMGR.EVENT")
    _mqsc(server, f"SET QMLITE FAULT(PI) ACTION(PUTINH) OBJECT({Q})")
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)  # MQOPEN works, as on an inhibited queue
    raises(CMQC.MQRC_PUT_INHIBITED, q.put, b"x")
    raises(CMQC.MQRC_PUT_INHIBITED, qm.put1, Q, b"x")
    ibmmq.Queue(qm, "DEV.QUEUE.2").put(b"other queues are not touched")
    assert _depth(server) == 0
    assert _depth(server, "SYSTEM.ADMIN.QMGR.EVENT") == events_before + 2
    _mqsc(server, "ALTER QMGR INHIBTEV(DISABLED)")


def test_getinh_refuses_get_with_2016_and_the_message_stays(server):
    qm = _admin(server)
    q = ibmmq.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    q.put(b"stays")
    _mqsc(server, f"SET QMLITE FAULT(GI) ACTION(GETINH) OBJECT({Q}) COUNT(1)")
    raises(CMQC.MQRC_GET_INHIBITED, q.get)
    assert _depth(server) == 1
    assert q.get() == b"stays"


def test_noreply_leaves_a_pcf_command_unanswered_and_the_others_answered(server):
    _mqsc(server, "SET QMLITE FAULT(QUIET) VERB(MQCMD_INQUIRE_Q) ACTION(NOREPLY)")
    qm = _admin(server)
    pcf = ibmmq.PCFExecute(qm, response_wait_interval=700)
    raises(CMQC.MQRC_NO_MSG_AVAILABLE, pcf.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: Q})
    assert _depth(server, "SYSTEM.ADMIN.COMMAND.QUEUE") == 0  # taken, never answered
    assert pcf.MQCMD_INQUIRE_Q_MGR()[0][CMQC.MQCA_Q_MGR_NAME].strip() == b"QM1"


def test_noreply_on_every_pcf_command_stops_the_command_server_but_mqsc_escape_can_still_remove_it(server):
    _mqsc(server, "SET QMLITE FAULT(DOWN) VERB(PCF) ACTION(NOREPLY)")
    qm = _admin(server)
    pcf = ibmmq.PCFExecute(qm, response_wait_interval=700)
    raises(CMQC.MQRC_NO_MSG_AVAILABLE, pcf.MQCMD_INQUIRE_Q_MGR)
    raises(CMQC.MQRC_NO_MSG_AVAILABLE, pcf.MQCMD_PING_Q_MGR)
    assert _mqsc(server, "DELETE QMLITE FAULT(DOWN)").text == ["QML0402I: qmlite fault rule deleted."]
    assert pcf.MQCMD_INQUIRE_Q_MGR()[0][CMQC.MQCA_Q_MGR_NAME].strip() == b"QM1"


def test_fail_on_a_pcf_command_answers_with_the_reason_and_does_nothing(server):
    _mqsc(server, "SET QMLITE FAULT(NOCREATE) VERB(MQCMD_CREATE_Q) OBJECT('APP.*') REASON(2035)")
    pcf = ibmmq.PCFExecute(_admin(server))
    err = raises(2035, pcf.MQCMD_CREATE_Q, {CMQC.MQCA_Q_NAME: "APP.ONE", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    assert err.comp == CMQC.MQCC_FAILED
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: "OTHER.ONE", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    names = {r[CMQC.MQCA_Q_NAME].strip() for r in pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: "*"})}
    assert b"OTHER.ONE" in names and b"APP.ONE" not in names


# --------------------------------------------------------------------------------------------------
# Matching: object (exact and generic), user, channel, application
# --------------------------------------------------------------------------------------------------

def test_object_exact_and_generic(server):
    for name in ("APP.ONE", "APP.TWO", "APPX"):
        _mqsc(server, f"DEFINE QLOCAL({name})")
    server.faults.set("GEN", verb="MQPUT", object="APP.*", reason=2053)
    server.faults.set("EXACT", verb="MQPUT", object="DEV.QUEUE.2", reason=2030)
    qm = _admin(server)
    raises(2053, ibmmq.Queue(qm, "APP.ONE").put, b"x")
    raises(2053, ibmmq.Queue(qm, "APP.TWO").put, b"x")
    raises(2030, ibmmq.Queue(qm, "DEV.QUEUE.2").put, b"x")
    ibmmq.Queue(qm, "APPX").put(b"x")
    ibmmq.Queue(qm, "DEV.QUEUE.3").put(b"x")
    assert (_rule(server, "GEN")["FIRED"], _rule(server, "EXACT")["FIRED"]) == (2, 1)


def test_user_channel_and_application_each_narrow_the_match(server):
    qm_admin, qm_app = _admin(server), _app(server)
    appl = next(s.appl_name for s in server._runner.server.qm.sessions.values() if s.channel == APP).strip()
    assert appl
    for fields, admin_fails, app_fails in (
            ({"user": "app"}, False, True), ({"user": "adm*"}, True, False),
            ({"channel": APP}, False, True), ({"channel": "DEV.ADMIN.*"}, True, False),
            ({"appl": appl}, True, True), ({"appl": "NOSUCHAPP"}, False, False),
            ({"user": "app", "channel": ADMIN}, False, False)):
        server.faults.set("WHO", verb="MQPUT", object=Q, reason=2053, **fields)
        for qm, fails in ((qm_admin, admin_fails), (qm_app, app_fails)):
            q = ibmmq.Queue(qm, Q)
            if fails:
                raises(2053, q.put, b"x")
            else:
                q.put(b"x")
            q.close()


def test_rules_are_tried_in_the_order_they_were_set(server):
    server.faults.set("FIRST", verb="MQPUT", object="DEV.*", reason=2053, count=1)
    server.faults.set("SECOND", verb="MQPUT", object=Q, reason=2030)
    q = ibmmq.Queue(_admin(server), Q)
    raises(2053, q.put, b"x")
    raises(2030, q.put, b"x")
    assert _rule(server, "SECOND")["MATCHED"] == 1  # the first call stopped at FIRST


# --------------------------------------------------------------------------------------------------
# When a rule fires: NTH, COUNT, PROB with SEED
# --------------------------------------------------------------------------------------------------

def _run(server, puts: int = 40) -> list[int]:
    q = ibmmq.Queue(_admin(server), Q)
    failed = []
    for i in range(puts):
        try:
            q.put(b"x")
        except ibmmq.MQMIError as err:
            assert err.reason == 2053
            failed.append(i)
    return failed


def test_nth_and_count(server):
    server.faults.set("N3", verb="MQPUT", object=Q, reason=2053, nth=3, count=1)
    assert _run(server, 6) == [2]
    server.faults.set("N3", verb="MQPUT", object=Q, reason=2053, nth=2, count=3)
    assert _run(server, 6) == [1, 2, 3]
    server.faults.set("N3", verb="MQPUT", object=Q, reason=2053, nth=4)  # COUNT(0): every match from the 4th
    assert _run(server, 6) == [3, 4, 5]


def test_the_same_seeded_run_fails_the_same_calls_twice(server):
    _mqsc(server, f"SET QMLITE FAULT(DICE) VERB(MQPUT) OBJECT({Q}) REASON(2053) PROB(0.3) SEED(42)")
    first = _run(server)
    _mqsc(server, f"SET QMLITE FAULT(DICE) VERB(MQPUT) OBJECT({Q}) REASON(2053) PROB(0.3) SEED(42)")
    second = _run(server)
    assert first == second
    assert 0 < len(first) < 40
    _mqsc(server, f"SET QMLITE FAULT(DICE) VERB(MQPUT) OBJECT({Q}) REASON(2053) PROB(0.3) SEED(43)")
    assert _run(server) != first


# --------------------------------------------------------------------------------------------------
# Listing, removal and RESET QMLITE; the three surfaces agree
# --------------------------------------------------------------------------------------------------

def test_display_delete_and_reset_qmlite(server):
    _mqsc(server, "SET QMLITE FAULT(A1) VERB(MQPUT, MQGET) OBJECT('APP.*') REASON(2053)")
    _mqsc(server, "SET QMLITE FAULT(A2) VERB(MQOPEN) DELAY(10)")
    _mqsc(server, f"SET QMLITE FAULT(B1) ACTION(GETINH) OBJECT({Q})")
    shown = _mqsc(server, "DISPLAY QMLITE FAULT(A*)")
    assert shown.text.count("QML0401I: Display qmlite fault details.") == 2
    words = " ".join(shown.text).split()
    for item in ("FAULT(A1)", "VERB(MQPUT,MQGET)", "OBJECT(APP.*)", "REASON(2053)", "FAULT(A2)", "ACTION(DELAY)",
                 "DELAY(10)", "MATCHED(0)", "FIRED(0)"):
        assert item in words
    assert "FAULT(B1)" not in words
    assert _mqsc(server, "DELETE QMLITE FAULT(A*)").text == ["QML0402I: qmlite fault rule deleted."]
    assert [r["FAULT"] for r in server.faults.list()] == ["B1"]
    missing = _mqsc(server, "DELETE QMLITE FAULT(A1)")
    assert (missing.reason_code, missing.text) == (2085, ["QML0403E: qmlite fault rule A1 not found."])
    assert _mqsc(server, "DISPLAY QMLITE FAULT(A1)").reason_code == 2085
    _mqsc(server, "RESET QMLITE")
    assert server.faults.list() == []


def test_rest_sets_lists_and_deletes_the_same_rules_mqsc_and_the_plugin_see(server):
    with _rest(server) as http:
        url = "/admin/qmgr/QM1/qmlite/fault"
        answer = http.post(url, json={"name": "R1", "verb": "MQPUT", "object": Q, "reason": 2053, "count": 1})
        assert answer.status_code == 201
        assert answer.json()["fault"][0] == {
            "name": "R1", "verb": ["MQPUT"], "action": "FAIL", "reason": 2053, "delay": 0, "object": Q,
            "user": "*", "channel": "*", "appl": "*", "nth": 1, "count": 1, "probability": 1.0, "seed": 0,
            "matched": 0, "fired": 0}
        assert http.put(url + "/R2", json={"action": "GETINH", "object": Q}).status_code == 201
        raises(2053, ibmmq.Queue(_admin(server), Q).put, b"x")
        assert "FIRED(1)" in " ".join(_mqsc(server, "DISPLAY QMLITE FAULT(R1)").text).split()
        assert [r["name"] for r in http.get(url).json()["fault"]] == ["R1", "R2"]
        assert http.get(url + "/R1").json()["fault"][0]["fired"] == 1
        assert http.delete(url + "/R1").json() == {"deleted": 1}
        missing = http.get(url + "/R1")
        assert missing.status_code == 404 and missing.json()["error"][0]["reasonCode"] == 2085
        assert http.delete(url).json() == {"deleted": 1}
        assert server.faults.list() == []
        assert http.get("/admin/qmgr/QM9/qmlite/fault").status_code == 404


# --------------------------------------------------------------------------------------------------
# Bad input: every malformed rule gets its precise error, on every surface
# --------------------------------------------------------------------------------------------------

# (MQSC keywords after FAULT(name) , the JSON rule, the MQRCCF reason the domain gives)
MALFORMED = [
    ("VERB(MQFOO) REASON(2053)", {"verb": "MQFOO", "reason": 2053}, 3229),
    ("VERB(MQCMD_NO_SUCH) REASON(2053)", {"verb": "MQCMD_NO_SUCH", "reason": 2053}, 3229),
    ("VERB(MQPUT)", {"verb": "MQPUT"}, 3228),
    ("REASON(2053)", {"reason": 2053}, 3228),
    ("VERB(MQPUT) ACTION(FAIL)", {"verb": "MQPUT", "action": "FAIL"}, 3228),
    ("VERB(MQPUT) ACTION(DELAY)", {"verb": "MQPUT", "action": "DELAY"}, 3228),
    ("VERB(MQPUT) ACTION(EXPLODE)", {"verb": "MQPUT", "action": "EXPLODE"}, 3229),
    ("VERB(MQPUT) REASON(1)", {"verb": "MQPUT", "reason": 1}, 3229),
    ("VERB(MQPUT) REASON(0)", {"verb": "MQPUT", "reason": 0}, 3229),
    ("VERB(MQPUT) ACTION(BREAK) REASON(2053)", {"verb": "MQPUT", "action": "BREAK", "reason": 2053}, 3203),
    ("VERB(MQPUT) REASON(2053) DELAY(5)", {"verb": "MQPUT", "reason": 2053, "delay": 5}, 3203),
    ("VERB(MQPUT) DELAY(0)", {"verb": "MQPUT", "delay": 0}, 3229),
    ("VERB(MQPUT) DELAY(3600001)", {"verb": "MQPUT", "delay": 3600001}, 3229),
    ("VERB(MQGET) ACTION(PUTINH)", {"verb": "MQGET", "action": "PUTINH"}, 3203),
    ("VERB(MQPUT) ACTION(GETINH)", {"verb": "MQPUT", "action": "GETINH"}, 3203),
    ("VERB(MQGET) ACTION(DISKFULL)", {"verb": "MQGET", "action": "DISKFULL"}, 3203),
    ("VERB(MQPUT) ACTION(NOREPLY)", {"verb": "MQPUT", "action": "NOREPLY"}, 3203),
    ("VERB(PCF) ACTION(BREAK)", {"verb": "PCF", "action": "BREAK"}, 3203),
    ("VERB(PCF) DELAY(10)", {"verb": "PCF", "delay": 10}, 3203),
    ("VERB(PCF, MQPUT) REASON(2035)", {"verb": ["PCF", "MQPUT"], "reason": 2035}, 3203),
    ("VERB(PCF) CHANNEL(X) REASON(2035)", {"verb": "PCF", "channel": "X", "reason": 2035}, 3203),
    ("VERB(MQPUT) REASON(2053) NTH(0)", {"verb": "MQPUT", "reason": 2053, "nth": 0}, 3229),
    ("VERB(MQPUT) REASON(2053) PROB(0)", {"verb": "MQPUT", "reason": 2053, "probability": 0}, 3229),
    ("VERB(MQPUT) REASON(2053) SEED(2147483648)", {"verb": "MQPUT", "reason": 2053, "seed": 2147483648}, 3229),
    ("VERB(MQPUT) REASON(2053) OBJECT('A*B')", {"verb": "MQPUT", "reason": 2053, "object": "A*B"}, 3229),
    ("VERB(MQPUT) REASON(2053) USER('**')", {"verb": "MQPUT", "reason": 2053, "user": "**"}, 3229),
    # A message channel's steps (decision MCT5): a message breaks or waits; no PCF command beside them.
    ("VERB(MCAMSG) REASON(2009)", {"verb": "MCAMSG", "reason": 2009}, 3203),
    ("VERB(MCASTART, PCF) REASON(2009)", {"verb": ["MCASTART", "PCF"], "reason": 2009}, 3203),
    ("VERB(MCASTART) ACTION(GETINH)", {"verb": "MCASTART", "action": "GETINH"}, 3203),
]


def test_a_message_channel_rule_is_one_rule_to_mqsc_rest_and_the_plugin(server):
    server.faults.set("CUT", verb="MCAMSG", channel="QM1.TO.QM2", action="BREAK", nth=3, count=1)
    shown = _mqsc(server, "DISPLAY QMLITE FAULT(CUT)")
    words = " ".join(shown.text).split()
    assert {"VERB(MCAMSG)", "ACTION(BREAK)", "CHANNEL(QM1.TO.QM2)", "NTH(3)", "COUNT(1)"} <= set(words), shown.text
    with _rest(server) as http:
        url = "/admin/qmgr/QM1/qmlite/fault"
        answer = http.put(url + "/SLOW", json={"verb": "MCASTART", "object": "QM1.*", "delay": 250})
        assert answer.status_code == 201 and answer.json()["fault"][0]["verb"] == ["MCASTART"]
        assert [r["name"] for r in http.get(url).json()["fault"]] == ["CUT", "SLOW"]
    assert [r["VERB"] for r in server.faults.list()] == [["MCAMSG"], ["MCASTART"]]
    server.faults.clear()


@pytest.mark.parametrize("keywords,body,reason", MALFORMED)
def test_a_malformed_rule_is_refused_with_its_reason_by_mqsc_rest_and_the_plugin(server, keywords, body, reason):
    result = _mqsc(server, f"SET QMLITE FAULT(BAD) {keywords}")
    assert (result.completion_code, result.reason_code) == (2, reason)
    assert result.text[0].startswith("QML0404E: qmlite fault rule not valid: ")
    with _rest(server) as http:
        answer = http.post("/admin/qmgr/QM1/qmlite/fault", json={"name": "BAD", **body})
    assert answer.status_code == 400
    error = answer.json()["error"][0]
    assert (error["reasonCode"], error["completionCode"], error["type"]) == (reason, 2, "rest")
    with pytest.raises(FR.FaultRuleError) as info:
        server.faults.set("BAD", **body)
    assert info.value.reason == reason
    assert server.faults.list() == []


SYNTAX = [
    "SET QMLITE FAULT(X) VERB(MQPUT) REASON(12x)",
    "SET QMLITE FAULT(X) VERB(MQPUT) REASON(MQRC_NO_SUCH_THING)",
    "SET QMLITE FAULT(X) VERB(MQPUT) BOGUS(1)",
    "SET QMLITE FAULT(X) VERB(MQPUT) REASON",
    "SET QMLITE FAULT(X) VERB(MQPUT) REASON(2053) REASON(2053)",
    "SET QMLITE FAULT(X) VERB(MQPUT) REASON(2053) NTH(-1)",
    "SET QMLITE FAULT(X) VERB(MQPUT) REASON(2053) PROB(1.5)",
    "SET QMLITE FAULT(X) VERB(MQPUT) REASON(2053) COUNT(1,2)",
    "SET QMLITE FAULT(X) VERB() REASON(2053)",
    "SET QMLITE FAULT VERB(MQPUT) REASON(2053)",
    "SET QMLITE FAULT(X,Y) VERB(MQPUT) REASON(2053)",
    "DISPLAY QMLITE FAULT(*) VERB(MQPUT)",
    "DELETE QMLITE FAULT(X) COUNT(1)",
    "CLEAR QMLITE FAULT(X)",
]


@pytest.mark.parametrize("text", SYNTAX)
def test_malformed_mqsc_is_a_syntax_error(server, text):
    result = _mqsc(server, text)
    assert result.syntax_error and result.reason_code == 3097  # MQRCCF_PARM_SYNTAX_ERROR, AMQ8405I


def test_malformed_rest_bodies(server):
    with _rest(server) as http:
        url = "/admin/qmgr/QM1/qmlite/fault"
        for body, reason in (([1], 3097), ({"name": "X", "verb": "MQPUT", "reason": 2053, "colour": "red"}, 3097),
                             ({"name": "", "verb": "MQPUT", "reason": 2053}, 3229),
                             ({"name": "X" * 49, "verb": "MQPUT", "reason": 2053}, 3229),
                             ({"name": "X", "verb": "MQPUT", "reason": "2053"}, 3229),
                             ({"name": "X", "verb": 7, "reason": 2053}, 3229)):
            answer = http.post(url, json=body)
            assert answer.status_code == 400, body
            assert answer.json()["error"][0]["reasonCode"] == reason, body
        answer = http.post(url, content=b"{not json")
        assert answer.status_code == 400
