"""Snapshots (registry/storage/savepoints.py): the whole state saved and restored exactly, durably,
touching only what changed; what a live connection holds kept; every bad name and command refused
with its precise reason (MQSC syntax error, MQRCCF_OBJECT_NAME_ERROR, MQRC_UNKNOWN_OBJECT_NAME)."""

from __future__ import annotations

import pathlib

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf.properties import Properties
from qmlite.registry.mqsc import SYNTAX_REASON, run_mqsc
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.storage import savepoints
from qmlite.registry.storage.sqlite import props_record

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "mqsc"

# Every kind of state a snapshot holds, as DISPLAY shows it.
_DISPLAYS = ("DIS QMGR ALL", "DIS QUEUE(*) ALL", "DIS TOPIC(*) ALL", "DIS SUB(*) ALL", "DIS NAMELIST(*) ALL",
             "DIS PROCESS(*) ALL", "DIS CHANNEL(*) ALL", "DIS AUTHINFO(*) ALL", "DIS LISTENER(*) ALL",
             "DIS SERVICE(*) ALL", "DIS COMMINFO(*) ALL", "DIS CHLAUTH(*) ALL", "DIS AUTHREC")


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    yield manager
    manager.shutdown()


def one(qm, text: str, user: str = "mqm"):
    [result] = run_mqsc(qm, text, user=user)
    return result


def state(qm, *, persistent_only: bool = False) -> dict:
    """Everything DISPLAY shows, every queue's messages as a getter would see them, retained publications."""
    shown = {}
    for text in _DISPLAYS:
        result = one(qm, text)
        # CURDEPTH counts non-persistent messages too, which a restart does not keep
        shown[text] = sorted(sorted((k, v) for k, v in o.items() if not (persistent_only and k == "CURDEPTH"))
                             for o in result.objects)
    reg = qm.registry
    shown["messages"] = {
        name: [(m.md.pack("<"), m.data, props_record(m.props)) for m in contents
               if m.persistent or not persistent_only]
        for name, contents in sorted(reg.messages.items()) if len(contents) and name in reg.queues}
    shown["retained"] = {t: (r.md.pack("<"), r.body, r.put_time) for t, r in sorted(reg.retained.items())
                         if r.md.Persistence == C.MQPER_PERSISTENT or not persistent_only}
    return shown


def build(qm) -> None:
    """A queue manager with a bit of everything a snapshot must hold."""
    run_mqsc(qm, (FIXTURES / "20-config.mqsc").read_text())
    results = run_mqsc(qm, "ALTER QMGR DESCR('saved') MAXUMSGS(500)\n"
                           "ALTER QLOCAL(DEV.QUEUE.1) MAXDEPTH(300) DESCR('altered')\n"
                           "DEFINE CHANNEL(SN.SVRCONN) CHLTYPE(SVRCONN)\nDEFINE NAMELIST(SN.NL) NAMES(A, B)\n"
                           "DEFINE PROCESS(SN.P) APPLICID('run')\nDEFINE LISTENER(SN.L) TRPTYPE(TCP) PORT(1515)\n"
                           "SET CHLAUTH('SN.*') TYPE(BLOCKUSER) USERLIST('bob')\n"
                           "SET AUTHREC PROFILE(DEV.QUEUE.2) OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT, GET)\n"
                           "DEFINE QLOCAL(SN.Q)\nDEFINE QALIAS(SN.ALIAS) TARGET(SN.Q)\n"
                           "DEFINE TOPIC(SN.T) TOPICSTR('sn/t')\n"
                           "DEFINE SUB(SN.SUB) TOPICSTR('sn/t/#') DEST(SN.Q)\n"
                           "DEFINE SUB(SN.MANAGED) TOPICSTR('sn/managed') DESTCLAS(MANAGED)")
    assert all(r.completion_code == C.MQCC_OK for r in results), [r.text for r in results if r.completion_code]
    reg = qm.registry
    for n in range(5):
        md = S.MQMD(Persistence=C.MQPER_PERSISTENT if n % 2 else C.MQPER_NOT_PERSISTENT, Priority=n % 3)
        qm.put_message(reg.queues["DEV.QUEUE.1"], md, b"m%d" % n, props=Properties({"n": n}) if n == 3 else None)
    qm.put_message(reg.queues["DEV.QUEUE.2"], S.MQMD(Persistence=C.MQPER_PERSISTENT), b"two")
    qm.publish("sn/t/price", S.MQMD(Persistence=C.MQPER_PERSISTENT), b"1.25", options=C.MQPMO_RETAIN)
    qm.publish("sn/np", S.MQMD(Persistence=C.MQPER_NOT_PERSISTENT), b"np", options=C.MQPMO_RETAIN)
    reg.commit()


def mess_up(qm) -> None:
    """What a test might do: change, delete and add a bit of everything."""
    reg = qm.registry
    session = qm.connect(reg.qmgr.name, user="admin", admin=True, appl_name="test")
    handle, _ = qm.open_object(session, S.MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_INPUT_AS_Q_DEF)
    gmo = S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT)
    qm.get(session, handle, S.MQMD(), gmo, 1 << 20)
    qm.backout(session)  # the message comes back with BackoutCount 1
    qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT), 1 << 20)
    qm.close_object(session, handle.hobj, 0)
    qm.disconnect(session, commit=True)
    results = run_mqsc(qm, "ALTER QMGR DESCR('changed') MAXUMSGS(7)\nALTER QLOCAL(DEV.QUEUE.1) MAXDEPTH(9)\n"
                           "DELETE SUB(SN.SUB)\nDELETE SUB(SN.MANAGED)\nDELETE QALIAS(SN.ALIAS)\n"
                           "DELETE NAMELIST(SN.NL)\nDELETE CHANNEL(SN.SVRCONN)\n"
                           "DELETE AUTHREC PROFILE(DEV.QUEUE.2) OBJTYPE(QUEUE) PRINCIPAL('app')\n"
                           "DEFINE QLOCAL(NEW.Q)\nDEFINE TOPIC(NEW.T) TOPICSTR('new')\n"
                           "ALTER PROCESS(SN.P) APPLICID('other')\n"
                           "DEFINE SUB(NEW.SUB) TOPICSTR('new/#') DEST(NEW.Q)\nCLEAR QLOCAL(DEV.QUEUE.2)\n"
                           "CLEAR TOPICSTR('sn/t/price') CLRTYPE(RETAINED)")
    assert all(r.completion_code == C.MQCC_OK for r in results), [r.text for r in results if r.completion_code]
    qm.put_message(reg.queues["NEW.Q"], S.MQMD(Persistence=C.MQPER_PERSISTENT), b"new")
    qm.publish("new/x", S.MQMD(Persistence=C.MQPER_PERSISTENT), b"r", options=C.MQPMO_RETAIN)
    reg.commit()


def test_a_restore_gives_back_exactly_the_saved_state(qm):
    build(qm)
    saved = state(qm)
    result = one(qm, "SET QMLITE SNAPSHOT(BASE)")
    assert result.completion_code == C.MQCC_OK and result.text[0].startswith("QML0200I: qmlite snapshot BASE saved: ")
    mess_up(qm)
    assert state(qm) != saved
    result = one(qm, "RESET QMLITE SNAPSHOT(BASE)")
    assert result.completion_code == C.MQCC_OK and result.text[0].startswith("QML0201I: qmlite snapshot BASE restored")
    assert state(qm) == saved
    one(qm, "RESET QMLITE")  # everything gone, then back
    assert state(qm) != saved
    one(qm, "RESET QMLITE SNAPSHOT(BASE)")
    assert state(qm) == saved


def test_a_restore_is_durable_and_whole(qm, tmp_path, clock):
    build(qm)
    saved = state(qm, persistent_only=True)
    one(qm, "SET QMLITE SNAPSHOT(BASE)")
    mess_up(qm)
    reg = qm.registry
    book = savepoints.of(qm)
    before = reg.store.appended
    book.restore("BASE")
    assert reg.store.dirty and reg.store.appended > before  # all of it pending: one transaction
    reg.commit()
    qm.shutdown()
    again = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    try:
        after = state(again, persistent_only=True)
        # A restart keeps persistent messages and retained publications only (as IBM's does).
        assert after == saved
    finally:
        again.shutdown()


def test_a_restore_touches_only_what_changed(qm):
    build(qm)
    book = savepoints.of(qm)
    book.save("BASE")
    unchanged = book.restore("BASE")
    assert (unchanged.deleted, unchanged.restored, unchanged.queues_refilled, unchanged.messages) == (0, 0, 0, 0)
    assert not qm.registry.store.dirty  # nothing to write
    for m in qm.registry.messages.contents("DEV.QUEUE.1"):
        m.md  # reading a message is not a change
    run_mqsc(qm, "DEFINE QLOCAL(ONE.MORE)\nALTER QLOCAL(DEV.QUEUE.3) MAXDEPTH(4)")
    qm.put_message(qm.registry.queues["DEV.QUEUE.2"], S.MQMD(), b"extra")
    out = book.restore("BASE")
    assert (out.deleted, out.restored, out.queues_refilled, out.messages) == (1, 1, 1, 1)


def test_a_backed_out_message_comes_back_as_saved(qm):
    build(qm)
    saved = state(qm)
    savepoints.of(qm).save("BASE")
    reg = qm.registry
    session = qm.connect(reg.qmgr.name, user="admin", admin=True)
    handle, _ = qm.open_object(session, S.MQOD(ObjectName="DEV.QUEUE.2"), C.MQOO_INPUT_AS_Q_DEF)
    qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT), 1 << 20)
    qm.backout(session)
    [msg] = reg.messages.contents("DEV.QUEUE.2")
    assert msg.md.BackoutCount == 1
    out = savepoints.of(qm).restore("BASE")
    assert out.queues_refilled == 1
    [msg] = reg.messages.contents("DEV.QUEUE.2")
    assert msg.md.BackoutCount == 0
    qm.close_object(session, handle.hobj, 0)
    qm.disconnect(session, commit=False)
    assert state(qm) == saved


def test_what_a_live_connection_holds_is_kept(qm):
    build(qm)
    book = savepoints.of(qm)
    book.save("BASE")
    run_mqsc(qm, "DEFINE QLOCAL(OPEN.Q)\nDEFINE QLOCAL(UOW.Q)")
    reg = qm.registry
    session = qm.connect(reg.qmgr.name, user="admin", admin=True)
    opened, _ = qm.open_object(session, S.MQOD(ObjectName="OPEN.Q"), C.MQOO_OUTPUT)
    qm.put(session, opened.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"open")
    uow, _ = qm.open_object(session, S.MQOD(ObjectName="UOW.Q"), C.MQOO_OUTPUT)
    qm.put(session, uow.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_SYNCPOINT), b"in flight")
    got, _ = qm.open_object(session, S.MQOD(ObjectName="DEV.QUEUE.2"), C.MQOO_INPUT_AS_Q_DEF)
    qm.get(session, got, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT), 1 << 20)
    out = book.restore("BASE")
    assert out.kept >= 3
    assert "OPEN.Q" in reg.queues and reg.messages.depth("OPEN.Q") == 0  # open: emptied, kept
    assert "UOW.Q" in reg.queues  # a unit of work in progress: left whole
    assert reg.messages.depth("DEV.QUEUE.2") == 0  # its message is the unit of work's, not doubled
    qm.backout(session)
    assert [m.data for m in reg.messages.contents("DEV.QUEUE.2")] == [b"two"]
    assert reg.messages.depth("UOW.Q") == 0
    qm.close_object(session, opened.hobj, 0)
    qm.close_object(session, uow.hobj, 0)
    qm.close_object(session, got.hobj, 0)
    qm.disconnect(session, commit=False)
    out = book.restore("BASE")  # nothing held now: all of it goes
    assert "OPEN.Q" not in reg.queues and "UOW.Q" not in reg.queues and out.kept == 0


def test_display_lists_snapshots_and_delete_forgets_one(qm):
    for name in ("A.ONE", "A.TWO", "B"):
        assert one(qm, f"SET QMLITE SNAPSHOT({name})").completion_code == C.MQCC_OK
    shown = one(qm, "DISPLAY QMLITE SNAPSHOT(A*)")
    assert [o["SNAPSHOT"] for o in shown.objects] == ["A.ONE", "A.TWO"]
    assert set(shown.objects[0]) == {"SNAPSHOT", "SAVEDATE", "SAVETIME", "OBJECTS", "MESSAGES", "SUBS", "RETAINED"}
    assert shown.text[0] == "QML0202I: Display qmlite snapshot details."
    assert [o["SNAPSHOT"] for o in one(qm, "DIS QMLITE SNAPSHOT(*)").objects] == ["A.ONE", "A.TWO", "B"]
    assert one(qm, "DIS QMLITE SNAPSHOT(B)").objects[0]["SNAPSHOT"] == "B"
    assert one(qm, "DELETE QMLITE SNAPSHOT(A.ONE)").text == ["QML0203I: qmlite snapshot A.ONE deleted."]
    assert [o["SNAPSHOT"] for o in one(qm, "DIS QMLITE SNAPSHOT(*)").objects] == ["A.TWO", "B"]
    # a quoted name keeps its case; an unquoted one is folded to upper case, as every MQSC name
    assert one(qm, "SET QMLITE SNAPSHOT('lower')").completion_code == C.MQCC_OK
    assert one(qm, "RESET QMLITE SNAPSHOT(lower)").reason_code == C.MQRC_UNKNOWN_OBJECT_NAME
    assert one(qm, "RESET QMLITE SNAPSHOT('lower')").completion_code == C.MQCC_OK
    # saving again under a name replaces the snapshot
    one(qm, "DEFINE QLOCAL(LATER)")
    assert one(qm, "SET QMLITE SNAPSHOT(B)").completion_code == C.MQCC_OK
    one(qm, "DELETE QLOCAL(LATER)")
    one(qm, "RESET QMLITE SNAPSHOT(B)")
    assert "LATER" in qm.registry.queues


# ---- bad input: every malformed command and name, with its precise reason ------------------------
@pytest.mark.parametrize("text", [
    "SET QMLITE", "DELETE QMLITE", "DISPLAY QMLITE",  # SNAPSHOT(name) missing
    "SET QMLITE SNAPSHOT", "SET QMLITE SNAPSHOT()", "RESET QMLITE SNAPSHOT()", "DELETE QMLITE SNAPSHOT",
    "SET QMLITE SNAPSHOT(A, B)", "SET QMLITE SNAPSHOT(A) SNAPSHOT(B)", "SET QMLITE SNAPSHOT(A) REPLACE",
    "SET QMLITE NAME(A)", "SET QMLITE(A) SNAPSHOT(B)", "RESET QMLITE SNAP(A)", "SET QMLITE SNAPSHOT('A",
    "DEFINE QMLITE SNAPSHOT(A)", "ALTER QMLITE SNAPSHOT(A)",
])
def test_a_malformed_snapshot_command_is_a_syntax_error(qm, text):
    result = one(qm, text)
    assert (result.completion_code, result.reason_code) == (C.MQCC_FAILED, SYNTAX_REASON)
    assert result.syntax_error


@pytest.mark.parametrize("verb", ["SET", "RESET", "DELETE", "DISPLAY"])
@pytest.mark.parametrize(("name", "message"), [("'A B'", "QML0212E"), ("'A-B'", "QML0212E"), ("'A*B'", "QML0212E"),
                                             ("'" + "X" * 49 + "'", "QML0211E"), ("'É'", "QML0212E"),
                                             ("'A:B'", "QML0212E"), ("' '", "QML0212E")])
def test_an_invalid_snapshot_name_is_an_object_name_error(qm, verb, name, message):
    result = one(qm, f"{verb} QMLITE SNAPSHOT({name})")
    assert (result.completion_code, result.reason_code) == (C.MQCC_FAILED, C.MQRCCF_OBJECT_NAME_ERROR)
    assert result.text[0].startswith(f"{message}: qmlite snapshot name ")


@pytest.mark.parametrize("verb", ["SET", "RESET", "DELETE"])
@pytest.mark.parametrize("name", ["*", "A*"])
def test_a_generic_name_is_for_display_only(qm, verb, name):
    result = one(qm, f"{verb} QMLITE SNAPSHOT({name})")
    assert result.reason_code == C.MQRCCF_OBJECT_NAME_ERROR


def test_the_longest_name_is_48_characters(qm):
    assert one(qm, f"SET QMLITE SNAPSHOT({'N' * 48})").completion_code == C.MQCC_OK


@pytest.mark.parametrize("verb", ["RESET", "DELETE", "DISPLAY"])
def test_an_unknown_snapshot_is_unknown_object_name(qm, verb):
    result = one(qm, f"{verb} QMLITE SNAPSHOT(NEVER.SAVED)")
    assert (result.completion_code, result.reason_code) == (C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
    assert result.text == ["QML0213E: qmlite snapshot NEVER.SAVED not found."]


@pytest.mark.parametrize("verb", ["SET", "RESET", "DELETE", "DISPLAY"])
def test_snapshots_are_for_mqm_only(qm, verb):
    one(qm, "SET QMLITE SNAPSHOT(S)")
    assert one(qm, f"{verb} QMLITE SNAPSHOT(S)", user="app").reason_code == C.MQRC_NOT_AUTHORIZED


def test_reset_qmlite_alone_is_still_the_reset(qm):
    one(qm, "DEFINE QLOCAL(GONE)")
    assert one(qm, "RESET QMLITE").text[0].startswith("QML0001I: qmlite reset: ")
    assert "GONE" not in qm.registry.queues
