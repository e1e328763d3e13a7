"""MQSC run on a queue manager: runmqsc's output for the pub/sub commands (IBM's documented examples),
errors and authority as for PCF, MQSC and PCF agreeing, the developer defaults as a script, reset."""

from __future__ import annotations

import pathlib
import re

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.registry.mqsc import MqscResult, exit_code, format_report, run_mqsc
from qmlite.registry.mqsc import display
from qmlite.registry.mqsc import keywords as K
from qmlite.registry.qmgr import QueueManager

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "mqsc"
HEX48 = r"[0-9A-F]{48}"


@pytest.fixture
def qm(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    yield qm
    qm.shutdown()


def one(qm, text: str, user: str = "mqm") -> MqscResult:
    results = run_mqsc(qm, text, user=user)
    assert len(results) == 1
    return results[0]


def pcf(qm, command: int, *params) -> list[P.PCFMessage]:
    header = P.CFH(Type=C.MQCFT_COMMAND, StrucLength=36, Version=1, Command=command, MsgSeqNumber=1,
                   Control=C.MQCFC_LAST, ParameterCount=len(params))
    return qm.engine.execute(P.PCFMessage(header, list(params)))


def values(response: P.PCFMessage) -> dict[int, object]:
    return {p.parameter: (p.values if isinstance(p, (P.CFIL, P.CFSL)) else p.value) for p in response.parameters}


# ---- the pub/sub commands, as IBM documents their output --------------------------------------
def test_define_sub_needs_its_destination_then_is_created(qm):
    # IBM "Defining an administrative subscription": "If the queue SUBQ does not exist, this command fails."
    text = "DEFINE SUB (ORANGE) TOPICSTR (ORANGE) DESTCLAS (PROVIDED) DEST (SUBQ) EXPIRY (UNLIMITED) PUBPRTY (ASPUB)"
    failed = one(qm, text)
    assert failed.completion_code == C.MQCC_FAILED and failed.reason_code != 0
    assert one(qm, "DEFINE QLOCAL(SUBQ)").text == ["AMQ8006I: IBM MQ queue created."]
    created = one(qm, text)
    assert (created.completion_code, created.reason_code, created.text) == (
        C.MQCC_OK, 0, ["AMQ8094I: IBM MQ subscription created."])


def _orange(qm) -> None:
    run_mqsc(qm, "DEFINE QLOCAL(SUBQ)\nDEFINE SUB(ORANGE) TOPICSTR(ORANGE) DEST(SUBQ)")


def test_display_sub_as_ibm_documents_it(qm):
    # IBM "Displaying attributes of subscriptions": DISPLAY SUB(ORANGE) SUBID TOPICSTR DURABLE
    _orange(qm)
    result = one(qm, "DISPLAY SUB(ORANGE) +\n        SUBID +\n        TOPICSTR +\n        DURABLE")
    assert result.command == "DISPLAY SUB(ORANGE) SUBID TOPICSTR DURABLE"
    assert result.text[0] == "AMQ8096I: IBM MQ subscription inquired."
    assert re.fullmatch(rf"   SUBID\({HEX48}\)", result.text[1])
    assert result.text[2:] == ["   SUB(ORANGE)                             TOPICSTR(ORANGE)", "   DURABLE(YES)"]
    subid = result.objects[0]["SUBID"]
    assert result.objects == [{"SUBID": subid, "SUB": "ORANGE", "TOPICSTR": "ORANGE", "DURABLE": "YES"}]
    # "An alternate method for displaying subscriptions is to use the SUBID ... gives the same output"
    by_id = one(qm, f"DISPLAY SUB SUBID({subid}) TOPICSTR DURABLE")
    assert by_id.text == result.text


def test_display_sbstatus_as_ibm_documents_it(qm):
    # IBM: DISPLAY SBSTATUS(ORANGE) NUMMSGS -> SUB, SUBID, NUMMSGS
    _orange(qm)
    result = one(qm, "DISPLAY SBSTATUS(ORANGE) NUMMSGS")
    assert result.text[0] == "AMQ8099I: IBM MQ subscription status inquired."
    assert result.text[1] == "   SUB(ORANGE)"
    assert re.fullmatch(rf"   SUBID\({HEX48}\)", result.text[2])
    assert result.text[3:] == ["   NUMMSGS(0)"]


def test_alter_and_delete_sub(qm):
    _orange(qm)
    assert one(qm, "ALTER SUB(ORANGE) USERDATA('audit')").text == ["AMQ8095I: IBM MQ subscription changed."]
    assert one(qm, "DIS SUB(ORANGE) USERDATA").objects[0]["USERDATA"] == "audit"
    assert one(qm, "DELETE SUB(ORANGE)").text == ["AMQ8097I: IBM MQ subscription deleted."]
    gone = one(qm, "DELETE SUB(ORANGE)")
    assert gone.completion_code == C.MQCC_FAILED and gone.text == ["AMQ8147E: IBM MQ object ORANGE not found."]


def test_display_sub_all_shows_every_attribute_in_ibm_order(qm):
    _orange(qm)
    result = one(qm, "DIS SUB(ORANGE) ALL")
    keys = list(result.objects[0])
    assert keys[:3] == ["SUBID", "SUB", "TOPICSTR"]
    for key, value in {"DEST": "SUBQ", "DESTCLAS": "PROVIDED", "DURABLE": "YES", "EXPIRY": "UNLIMITED",
                       "PSPROP": "MSGPROP", "PUBPRTY": "ASPUB", "REQONLY": "NO", "SUBSCOPE": "ALL",
                       "SUBLEVEL": "1", "SUBTYPE": "ADMIN", "VARUSER": "ANY", "WSCHEMA": "TOPIC",
                       "SELECTOR": "", "SUBUSER": "mqm"}.items():
        assert result.objects[0][key] == value, key
    assert "   SELECTOR( )                             SELTYPE(NONE)" in result.text


def test_topic_define_alter_display_delete(qm):
    assert one(qm, "DEFINE TOPIC(ORANGE.TOPIC) TOPICSTR('ORANGE')").text == ["AMQ8690I: IBM MQ topic created."]
    assert one(qm, "ALTER TOPIC(ORANGE.TOPIC) NPMSGDLV(ALLAVAIL) PMSGDLV(ALLAVAIL)").text == [
        "AMQ8691I: IBM MQ topic changed."]
    shown = one(qm, "DISPLAY TOPIC(ORANGE.*)")  # a generic name: the name and type
    assert shown.text == ["AMQ8633I: Display topic details.",
                          "   TOPIC(ORANGE.TOPIC)                     TYPE(LOCAL)"]
    full = one(qm, "DIS TOPIC(ORANGE.TOPIC)").objects[0]  # a specific one: every attribute (IBM's default)
    assert full == one(qm, "DIS TOPIC(ORANGE.TOPIC) ALL").objects[0]
    assert (full["TOPICSTR"], full["NPMSGDLV"], full["PMSGDLV"], full["DURSUB"], full["WILDCARD"]) == (
        "ORANGE", "ALLAVAIL", "ALLAVAIL", "ASPARENT", "PASSTHRU")
    assert one(qm, "DELETE TOPIC(ORANGE.TOPIC)").text == ["AMQ8692I: IBM MQ topic deleted."]


def test_display_tpstatus(qm):
    _orange(qm)
    run_mqsc(qm, "DEFINE TOPIC(ORANGE.TOPIC) TOPICSTR('ORANGE')")
    status = one(qm, "DISPLAY TPSTATUS('ORANGE')")
    assert status.text[0] == "AMQ8754I: Display topic status details."
    assert status.text[1] == "   TOPICSTR(ORANGE)                        ADMIN(ORANGE.TOPIC)"
    assert status.objects[0]["SUBCOUNT"] == "1" and status.objects[0]["RETAINED"] == "NO"
    subs = one(qm, "DISPLAY TPSTATUS('ORANGE') TYPE(SUB)")
    assert subs.objects[0]["SUBTYPE"] == "ADMIN" and re.fullmatch(HEX48, subs.objects[0]["SUBID"])


def test_report_echo_numbers_comments_and_counts(qm):
    results = run_mqsc(qm, "* set-up\nDEFINE QLOCAL(A) +\n   DESCR('x')\nDEFINE QLOCAL(A)\nBOGUS\n")
    assert format_report(results, qmgr_name="QM1").splitlines() == [
        "Starting MQSC for queue manager QM1.", "", "",
        "       : * set-up",
        "     1 : DEFINE QLOCAL(A) +",
        "       :    DESCR('x')",
        "AMQ8006I: IBM MQ queue created.",
        "     2 : DEFINE QLOCAL(A)",
        "AMQ8150E: IBM MQ object already exists.",
        "     3 : BOGUS",
        "AMQ8405I: Syntax error detected at or near end of command segment below:-",
        "BOGUS",
        "",
        "3 MQSC commands read.",
        "One command has a syntax error.",
        "One valid MQSC command could not be processed.",
    ]
    assert exit_code(results) == 10
    assert format_report(results[:1], echo=False).splitlines() == [
        "AMQ8006I: IBM MQ queue created.", "One MQSC command read.", "No commands have a syntax error.",
        "All valid MQSC commands were processed."]
    assert exit_code(results[:1]) == 0


def test_end_stops_reading(qm):
    results = run_mqsc(qm, "DEFINE QLOCAL(A)\nEND\nDEFINE QLOCAL(B)\n")
    assert len(results) == 1 and "B" not in qm.registry.queues


# ---- errors and authority, as for PCF ----------------------------------------------------------
def test_errors_carry_the_pcf_reason(qm):
    missing = one(qm, "DIS QLOCAL(NOPE)")
    assert (missing.completion_code, missing.reason_code, missing.text) == (
        C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME, ["AMQ8147E: IBM MQ object NOPE not found."])
    bad = one(qm, "DEFINE QLOCAL(A) MAXDEPTH(-5)")
    assert bad.reason_code == C.MQRCCF_PARM_VALUE_ERROR and bad.text == [
        f"AMQ8101S: IBM MQ error ({C.MQRCCF_PARM_VALUE_ERROR:X}) has occurred."]
    run_mqsc(qm, "DEFINE QALIAS(AL) TARGET(DEV.QUEUE.1)")
    wrong = one(qm, "DELETE QLOCAL(AL)")
    assert wrong.text == ["AMQ8151E: IBM MQ object has different type."]


def test_a_user_outside_mqm_gets_what_pcf_gives_him(qm):
    denied = one(qm, "DEFINE QLOCAL(APP.Q)", user="app")
    assert (denied.reason_code, denied.text) == (C.MQRC_NOT_AUTHORIZED, ["AMQ8135E: Not authorized."])
    assert "APP.Q" not in qm.registry.queues
    run_mqsc(qm, "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(DSP)\n"
                 "SET AUTHREC PROFILE('DEV.QUEUE.1') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(DSP)")
    shown = one(qm, "DIS QLOCAL(DEV.*)", user="app")
    assert [o["QUEUE"] for o in shown.objects] == ["DEV.QUEUE.1"]


def test_reset_is_for_mqm_only(qm):
    assert one(qm, "RESET QMLITE", user="app").reason_code == C.MQRC_NOT_AUTHORIZED


# ---- MQSC and PCF agree --------------------------------------------------------------------------
@pytest.mark.parametrize("define, inquire, name_pid, attrs_pid, otype, expected", [
    ("DEFINE QLOCAL(AG.Q) MAXDEPTH(77) DEFPSIST(YES) DESCR('Mixed Case') NOTRIGGER GET(DISABLED)",
     C.MQCMD_INQUIRE_Q, C.MQCA_Q_NAME, C.MQIACF_Q_ATTRS, K.QUEUE,
     {C.MQIA_MAX_Q_DEPTH: 77, C.MQIA_DEF_PERSISTENCE: C.MQPER_PERSISTENT, C.MQIA_INHIBIT_GET: C.MQQA_GET_INHIBITED}),
    ("DEFINE TOPIC(AG.T) TOPICSTR('ag/t') DURSUB(NO) WILDCARD(BLOCK) DEFPRTY(7)",
     C.MQCMD_INQUIRE_TOPIC, C.MQCA_TOPIC_NAME, C.MQIACF_TOPIC_ATTRS, K.TOPIC,
     {C.MQIA_DURABLE_SUB: C.MQSUB_DURABLE_INHIBITED, C.MQIA_WILDCARD_OPERATION: C.MQTA_BLOCK,
      C.MQIA_DEF_PRIORITY: 7}),
    ("DEFINE SUB(AG.S) TOPICSTR('ag/#') DESTCLAS(MANAGED) PSPROP(NONE) EXPIRY(600) SELECTOR('a = 1')",
     C.MQCMD_INQUIRE_SUBSCRIPTION, C.MQCACF_SUB_NAME, C.MQIACF_SUB_ATTRS, K.SUB,
     {C.MQIACF_DESTINATION_CLASS: C.MQDC_MANAGED, C.MQIACF_PUBSUB_PROPERTIES: C.MQPSPROP_NONE,
      C.MQIACF_EXPIRY: 600}),
    ("DEFINE CHANNEL(AG.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('app') SHARECNV(3) MAXINST(9)",
     C.MQCMD_INQUIRE_CHANNEL, C.MQCACH_CHANNEL_NAME, C.MQIACF_CHANNEL_ATTRS, K.CHANNEL,
     {C.MQIACH_SHARING_CONVERSATIONS: 3, C.MQIACH_MAX_INSTANCES: 9}),
    ("DEFINE NAMELIST(AG.NL) NAMES(Q1, Q2) DESCR('two')",
     C.MQCMD_INQUIRE_NAMELIST, C.MQCA_NAMELIST_NAME, C.MQIACF_NAMELIST_ATTRS, K.NAMELIST,
     {C.MQIA_NAME_COUNT: 2}),
    ("DEFINE LISTENER(AG.L) TRPTYPE(TCP) PORT(1999) CONTROL(MANUAL)",
     C.MQCMD_INQUIRE_LISTENER, C.MQCACH_LISTENER_NAME, C.MQIACF_LISTENER_ATTRS, K.LISTENER,
     {C.MQIACH_PORT: 1999, C.MQIACH_LISTENER_CONTROL: C.MQSVC_CONTROL_MANUAL}),
])
def test_an_object_defined_by_mqsc_is_displayed_identically_by_pcf(qm, define, inquire, name_pid, attrs_pid, otype,
                                                                  expected):
    assert one(qm, define).completion_code == C.MQCC_OK
    name = define.split("(")[1].split(")")[0]
    [response] = pcf(qm, inquire, P.CFST(name_pid, name), P.CFIL(attrs_pid, (C.MQIACF_ALL,)))
    raw = values(response)
    for pid, value in expected.items():
        assert raw[pid] == value
    by_pcf = {kw.name: text for kw, text in display.to_object(otype, response.parameters)}
    noun = define.split()[1].split("(")[0]
    by_mqsc = one(qm, f"DISPLAY {noun}({name}) ALL").objects[0]
    assert by_mqsc == by_pcf
    assert len(by_mqsc) >= 6


def test_an_object_defined_by_pcf_is_shown_by_mqsc_with_its_values(qm):
    pcf(qm, C.MQCMD_CREATE_Q, P.CFST(C.MQCA_Q_NAME, "BY.PCF"), P.CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
        P.CFIN(C.MQIA_MAX_Q_DEPTH, 42), P.CFST(C.MQCA_Q_DESC, "made by PCF"),
        P.CFIN(C.MQIA_SHAREABILITY, C.MQQA_NOT_SHAREABLE))
    shown = one(qm, "DIS QLOCAL(BY.PCF) MAXDEPTH DESCR SHARE").objects[0]
    assert shown == {"QUEUE": "BY.PCF", "TYPE": "QLOCAL", "MAXDEPTH": "42", "DESCR": "made by PCF", "SHARE": "NOSHARE"}


# ---- the developer container's defaults, as a script --------------------------------------------
def _shown(qm, text: str) -> list[dict[str, str]]:
    out = []
    for result in run_mqsc(qm, text):
        assert result.completion_code == C.MQCC_OK, result.text
        for obj in result.objects:
            out.append({k: v for k, v in obj.items() if k not in ("ALTDATE", "ALTTIME", "CRDATE", "CRTIME", "QMID")})
    return out


_DEV_DISPLAYS = ("DIS QLOCAL(DEV.*) ALL\nDIS QMODEL(DEV.*) ALL\nDIS TOPIC(DEV.*) ALL\nDIS AUTHINFO(DEV.*) ALL\n"
                 "DIS CHANNEL(DEV.*) ALL\nDIS CHLAUTH(DEV.*) ALL\nDIS AUTHREC PRINCIPAL('app')\n"
                 "DIS LISTENER(DEV.*) ALL\nDIS QMGR DEADQ CONNAUTH CHLAUTH")


def test_the_developer_defaults_script_builds_what_a_developer_queue_manager_has(tmp_path):
    plain = QueueManager.open(tmp_path / "plain", dev_objects=False, synchronous="NORMAL")
    dev = QueueManager.open(tmp_path / "dev", dev_objects=True, synchronous="NORMAL")
    try:
        assert "DEV.QUEUE.1" not in plain.registry.queues
        results = run_mqsc(plain, (FIXTURES / "10-dev.mqsc").read_text())
        assert [r.text for r in results if r.completion_code != C.MQCC_OK] == []
        assert len(results) == 21
        assert _shown(plain, _DEV_DISPLAYS) == _shown(dev, _DEV_DISPLAYS)
    finally:
        plain.shutdown()
        dev.shutdown()


def test_the_pubsub_setup_script_routes_publications(qm):
    results = run_mqsc(qm, (FIXTURES / "20-config.mqsc").read_text())
    assert all(r.completion_code == C.MQCC_OK for r in results), [r.text for r in results]
    sub = one(qm, "DIS SUB('APP.PRICES.FRUIT') TOPICSTR TOPICOBJ DEST").objects[0]
    assert (sub["TOPICSTR"], sub["TOPICOBJ"], sub["DEST"]) == ("app/prices/fruit/#", "APP.PRICES.TOPIC", "APP.PRICES")
    delivered = qm.publish("app/prices/fruit/apple", S.MQMD(), b"1.25")
    assert delivered == 2
    depths = one(qm, "DIS QLOCAL('APP.*') CURDEPTH").objects
    assert {o["QUEUE"]: o["CURDEPTH"] for o in depths} == {"APP.AUDIT": "1", "APP.PRICES": "1"}


# ---- reset ----------------------------------------------------------------------------------------
def test_reset_clears_queues_and_deletes_every_non_default_object(qm):
    before = _shown(qm, _DEV_DISPLAYS)
    run_mqsc(qm, (FIXTURES / "20-config.mqsc").read_text())
    run_mqsc(qm, "ALTER QLOCAL(DEV.QUEUE.1) MAXDEPTH(3) DESCR('changed')\nDEFINE CHANNEL(X.SVRCONN) CHLTYPE(SVRCONN)\n"
                 "DEFINE NAMELIST(X.NL)\nDEFINE PROCESS(X.P)\nSET CHLAUTH('X.*') TYPE(BLOCKUSER) USERLIST('bob')\n"
                 "DELETE QLOCAL(DEV.QUEUE.3)")
    qm.put_message(qm.registry.queues["DEV.QUEUE.2"], S.MQMD(), b"left over")
    qm.publish("app/prices/fruit/apple", S.MQMD(), b"1.25")
    result = one(qm, "RESET QMLITE")
    assert result.completion_code == C.MQCC_OK and result.text[0].startswith("QML0001I: qmlite reset: ")
    reg = qm.registry
    assert not any(name.startswith("APP.") for name in reg.queues)
    assert not any(name.startswith("APP.") for name in reg.subs) and "APP.PRICES.TOPIC" not in reg.topics
    assert "X.SVRCONN" not in reg.objects("channel") and "X.NL" not in reg.namelists
    assert "X.P" not in reg.processes
    assert all(reg.messages.depth(name) == 0 for name in reg.queues if name != "SYSTEM.ADMIN.COMMAND.QUEUE")
    assert _shown(qm, _DEV_DISPLAYS) == before  # DEV.QUEUE.1 restored, DEV.QUEUE.3 back
    assert one(qm, "DIS SUB(SYSTEM.DEFAULT.SUB)").completion_code == C.MQCC_OK


def test_reset_gives_the_queue_manager_its_initial_attributes_back(qm, tmp_path, clock):
    fresh = _shown(qm, "DIS QMGR ALL")
    result = one(qm, "ALTER QMGR DESCR('changed') MAXUMSGS(5) PSMODE(DISABLED) MAXHANDS(7) DEADQ(OTHER.DLQ) "
                     "STATMQI(ON) STATINT(60) AUTHOREV(ENABLED) SUITEB(128_BIT,192_BIT) CERTLABL('mine')")
    assert result.completion_code == C.MQCC_OK, result.text
    assert _shown(qm, "DIS QMGR ALL") != fresh
    assert one(qm, "RESET QMLITE").completion_code == C.MQCC_OK
    assert _shown(qm, "DIS QMGR ALL") == fresh  # but the alteration stamp, which records the reset
    qm.registry.commit()
    qm.shutdown()
    again = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)  # and durably so
    try:
        assert _shown(again, "DIS QMGR ALL") == fresh
    finally:
        again.shutdown()


def test_reset_gives_maxhands_the_servers_configured_value(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock, max_handles=40)
    try:
        assert one(qm, "ALTER QMGR MAXHANDS(7)").completion_code == C.MQCC_OK
        assert qm.registry.qmgr.max_handles == 7
        one(qm, "RESET QMLITE")
        assert qm.registry.qmgr.max_handles == 40
    finally:
        qm.shutdown()


def test_reset_takes_milliseconds(qm):
    from qmlite.registry.storage import reset

    run_mqsc(qm, "\n".join(f"DEFINE QLOCAL(R.{n}) REPLACE\nDEFINE SUB(R.{n}) TOPICSTR('r/{n}') DEST(R.{n})"
                           for n in range(200)))
    summary = reset.reset(qm)
    qm.registry.commit()
    assert summary.deleted == 400
    assert summary.elapsed_ms < 1000  # ~10 ms on a quiet machine; generous for a loaded CI box


# ---- every row of the command table runs: an answer, never a crash ------------------------------
def _rows():
    from qmlite.registry.mqsc import commands as MC

    return sorted(MC.TABLE.values(), key=lambda row: (row.verb, row.noun))


@pytest.mark.parametrize("row", _rows(), ids=lambda row: f"{row.verb}-{row.noun}")
def test_every_command_of_the_table_gets_an_answer(qm, row):
    from qmlite.registry.mqsc import commands as MC

    name = {"CONN": "*", "SECURITY": "*"}.get(row.noun, "DEV.QUEUE.1" if row.noun.startswith("Q") else "SMOKE.X")
    text = f"{row.verb} {row.noun}" + (f"({name})" if row.name != MC.NAME_NONE else "")
    for result in run_mqsc(qm, text):
        assert not result.syntax_error, result.text
        assert result.reason_code != C.MQRC_UNEXPECTED_ERROR, result.text
        assert result.text and result.text[0][:3] in ("AMQ", "QML"), result.text
        assert result.completion_code == C.MQCC_OK or result.reason_code != 0


def test_display_qstatus_shows_the_status_type_and_lists_as_runmqsc_does(qm):
    run_mqsc(qm, "ALTER QLOCAL(DEV.QUEUE.1) MONQ(MEDIUM)")
    status = one(qm, "DIS QSTATUS(DEV.QUEUE.1)")
    assert status.text[:2] == ["AMQ8450I: Display queue status details.",
                               "   QUEUE(DEV.QUEUE.1)                      TYPE(QUEUE)"]
    assert status.objects[0]["QTIME"] == " , "  # nothing got yet: IBM's QTIME( , ); later QTIME(10404, 8223)
    assert "   MONQ(MEDIUM)                            MSGAGE(0)" in status.text
    monitor = one(qm, "DIS QSTATUS(DEV.QUEUE.1) MONITOR")
    assert set(monitor.objects[0]) == {"QUEUE", "TYPE", "LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME", "MONQ",
                                       "MSGAGE", "QTIME"}
    run_mqsc(qm, "ALTER QLOCAL(DEV.QUEUE.1) MONQ(OFF)")
    off = one(qm, "DIS QSTATUS(DEV.QUEUE.1) MSGAGE QTIME LPUTDATE")
    assert "   LPUTDATE( )                             MSGAGE( )" in off.text and "   QTIME( , )" in off.text
    handles = one(qm, "DIS QSTATUS(SYSTEM.ADMIN.COMMAND.QUEUE) TYPE(HANDLE) APPLTAG INPUT")
    assert handles.objects == [{"QUEUE": "SYSTEM.ADMIN.COMMAND.QUEUE", "TYPE": "HANDLE", "APPLTAG": "amqpcsea",
                                "INPUT": "SHARED"}]


def test_display_topic_attributes_as_ibm_documents_it(qm):
    # IBM "Displaying administrative topic object attributes": DISPLAY TOPIC(ORANGE.TOPIC) TOPICSTR DEFPRTY NPMSGDLV
    run_mqsc(qm, "DEFINE TOPIC(ORANGE.TOPIC) TOPICSTR(ORANGE)")
    shown = one(qm, "DISPLAY TOPIC (ORANGE.TOPIC) +\n TOPICSTR +\n DEFPRTY +\n NPMSGDLV")
    assert shown.text == ["AMQ8633I: Display topic details.",
                          "   TOPIC(ORANGE.TOPIC)                     TYPE(LOCAL)",
                          "   TOPICSTR(ORANGE)                        DEFPRTY(ASPARENT)",
                          "   NPMSGDLV(ASPARENT)"]


def test_two_column_layout_puts_a_39_character_item_on_its_own_line():
    # a published runmqsc transcript: NAMELIST(SYSTEM.QPUBSUB.QUEUE.NAMELIST) (39 characters) alone
    item = "NAMELIST(SYSTEM.QPUBSUB.QUEUE.NAMELIST)"
    assert display.lines([item, "NAMCOUNT(2)", "ALTDATE(2022-09-06)", "ALTTIME(17.07.08)"]) == [
        "   " + item, "   NAMCOUNT(2)                             ALTDATE(2022-09-06)", "   ALTTIME(17.07.08)"]
    assert display.lines(["X" * 38, "Y(1)"]) == ["   " + "X" * 38 + "  Y(1)"]


# ---- fuzzing the whole path: generated commands run on a queue manager ---------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from qmlite.registry.mqsc import commands as MC  # noqa: E402

_VALUES = st.sampled_from(["", "*", "X", "DEV.QUEUE.1", "'a b'", "0", "-1", "999999999999", "YES", "NO", "ALL",
                           "ENABLED", "'dev/#'", "414D51", "A,B", "'x''y'"])


@st.composite
def _command(draw):
    row = draw(st.sampled_from(sorted(MC.TABLE.values(), key=lambda r: (r.verb, r.noun))))
    words = [row.verb, row.noun + (f"({draw(_VALUES)})" if row.name != MC.NAME_NONE else "")]
    keywords = sorted({kw.name for kw in (*row.extra, *row.otype.keywords)})
    for name in draw(st.lists(st.sampled_from(keywords or ["ALL"]), max_size=3, unique=True)):
        words.append(name + (f"({draw(_VALUES)})" if draw(st.booleans()) else ""))
    return " ".join(words)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_command())
def test_generated_commands_always_get_an_amq_answer(qm, text):
    for result in run_mqsc(qm, text):
        assert result.text and result.text[0][:3] in ("AMQ", "QML"), (text, result.text)
        assert result.reason_code != C.MQRC_UNEXPECTED_ERROR, (text, result.text)


def test_display_pubsub_as_ibm_answers_a_queue_manager_in_no_hierarchy(qm):
    shown = one(qm, "DISPLAY PUBSUB")
    assert shown.text[0] == "AMQ8723I: Display pub/sub status details."
    assert shown.text[1] == "   QMNAME(QM1)                             TYPE(LOCAL)"
    (o,) = shown.objects
    assert o["STATUS"] == "ACTIVE" and int(o["SUBCOUNT"]) == len(qm.registry.subs) and int(o["TPCOUNT"]) >= 1
    assert one(qm, "DIS PUBSUB TYPE(LOCAL) SUBCOUNT").objects == [{"QMNAME": "QM1", "TYPE": "LOCAL",
                                                                   "STATUS": "ACTIVE", "SUBCOUNT": o["SUBCOUNT"]}]
    assert one(qm, "DIS PUBSUB TYPE(PARENT)").objects == []  # no parent: nothing to display
    qm.registry.qmgr.pubsub_mode = C.MQPSM_COMPAT  # PSMODE is not alterable yet (the qmgr-attrs work)
    assert one(qm, "DIS PUBSUB ALL").objects[0]["STATUS"] == "COMPAT"
    assert one(qm, "DIS PUBSUB TYPE(NEIGHBOUR)").syntax_error


def test_display_chstatus_shows_the_svrconn_fields(qm):
    from qmlite.registry.objects import channels as M

    channel = qm.registry.objects(M.KIND)["DEV.APP.SVRCONN"]
    instance = qm.registry.running.start_instance(channel, "10.0.0.9", qm.now())
    instance.buffers_sent, instance.buffers_received, instance.local_address = 12, 11, "10.0.0.1(1414)"
    shown = one(qm, "DIS CHSTATUS(DEV.APP.SVRCONN) ALL")
    (o,) = shown.objects
    assert (o["BUFSSENT"], o["BUFSRCVD"], o["LOCLADDR"], o["SSLRKEYS"]) == ("12", "11", "10.0.0.1(1414)", "0")
    assert (o["COMPHDR"], o["COMPMSG"], o["SECPROT"], o["MONCHL"]) == ("NONE, ", "NONE, ", "NONE", "OFF")
    assert (o["EXITTIME"], o["COMPRATE"], o["COMPTIME"]) == (" , ", " , ", " , ")  # MONCHL(OFF): blanks
    assert o["RAPPLTAG"] == "" and o["STOPREQ"] == "NO" and o["SUBSTATE"] == "RECEIVE"
