"""qmlite's MQSC extensions, one table (registry/mqsc/extensions/, docs/architecture.md): every row's module
parses and runs, the rows' QML ranges are the catalogue's, each command reaches the row that owns it, and
importing MQSC loads none of the extension modules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from qmlite.pcf import constants as C
from qmlite.registry import qmlmessages as QML
from qmlite.registry.admin.engine import Requester
from qmlite.registry.mqsc import check_mqsc, extensions, run_mqsc
from qmlite.registry.mqsc.lexer import MqscSyntaxError
from qmlite.registry.mqsc.translate import translate
from qmlite.registry.qmgr import QueueManager


@pytest.fixture
def qm(tmp_path):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL")
    yield qm
    qm.shutdown()


def test_every_row_names_a_module_with_parse_and_run():
    folder = Path(extensions.__file__).parent
    modules = {path.stem for path in folder.glob("*.py")} - {"__init__"}
    assert modules == {row.module for row in extensions.TABLE}  # no module outside the table, none twice
    assert len(extensions.TABLE) == len(modules)
    for row in extensions.TABLE:
        code = row.code()
        assert callable(code.parse) and callable(code.run), row.module


def test_the_rows_ranges_are_the_catalogues_and_each_module_prints_only_its_own():
    assert sorted(row.messages for row in extensions.TABLE) == sorted(QML.RANGES)
    for row in extensions.TABLE:
        source = Path(row.code().__file__).read_text()
        used = set(re.findall(r"\bQML\.([A-Z_]+)\b", source))
        assert {name for name in used if getattr(QML, name).extension != row.messages} == set(), row.module


@pytest.mark.parametrize("text, module", [
    ("DISPLAY QMLITE CLOCK", "clockcommands"),
    ("SET QMLITE CLOCK(ADVANCE) SECONDS(5)", "clockcommands"),
    ("DISPLAY QMLITE QMGRS", "hostingcommands"),
    ("DEFINE QMLITE QMGR(QM2)", "hostingcommands"),
    ("STOP QMLITE QMGR(QM1) RECONNECT", "hostingcommands"),
    ("DISPLAY QMLTRACE LIMIT(3)", "tracecommands"),
    ("ALTER QMLTRACE RECORD(ON)", "tracecommands"),
    ("SET QMLITE FAULT(F1) VERB(MQPUT) REASON(2053)", "faultcommands"),
    ("DELETE QMLITE FAULT(F1)", "faultcommands"),
    ("RESET QMLITE", "resetcommands"),
    ("RESET QMLITE SNAPSHOT(S1)", "snapshotcommands"),
    ("DISPLAY QMLITE SNAPSHOT(*)", "snapshotcommands"),
])
def test_each_command_reaches_the_row_that_owns_it(text, module):
    tr = translate(text)
    assert tr.row is None and tr.message is None
    assert tr.extension is not None and tr.extension.extension.module == module


@pytest.mark.parametrize("text, segment", [
    ("RESET QMLITE(X)", "RESET QMLITE(X)"),  # the reset takes no value
    ("DELETE QMLITE CLOCK", "DELETE QMLITE CLOCK"),  # no DELETE for the clock: a malformed snapshot command
    ("SET QMLITE", "SET QMLITE"),  # SNAPSHOT(name) missing
    ("DISPLAY QMLITE(X) QMGRS", "DISPLAY QMLITE(X)"),  # a value on the noun: no hosting row, a bad snapshot
])
def test_what_no_row_parses_is_runmqscs_syntax_error(text, segment):
    with pytest.raises(MqscSyntaxError) as err:
        translate(text)
    assert err.value.segment == segment


def test_ibms_commands_have_no_extension():
    tr = translate("DISPLAY QLOCAL(DEV.QUEUE.1) MAXDEPTH")
    assert tr.extension is None and tr.row is not None and tr.selectors == ("MAXDEPTH",)


def test_the_table_checks_the_administrator_and_the_queue_manager(qm):
    tr = translate("RESET QMLITE")
    assert extensions.run(qm, tr.extension, Requester(user="app", admin=False))[:2] == (
        C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)
    assert extensions.run(None, tr.extension, Requester())[:2] == (C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)
    hosting = translate("DISPLAY QMLITE QMGRS")  # the hosting commands judge for themselves: anyone may DISPLAY
    cc, reason, text, objects = extensions.run(qm, hosting.extension, Requester(user="app", admin=False))
    assert (cc, reason) == (C.MQCC_OK, 0) and objects[0]["QMNAME"] == qm.registry.qmgr.name


def test_run_mqsc_and_check_mqsc_go_through_the_table(qm):
    (result,) = run_mqsc(qm, "DISPLAY QMLITE CLOCK")
    assert result.completion_code == C.MQCC_OK and result.objects[0]["CLOCK"] == "REAL"
    assert [r.text for r in check_mqsc("SET QMLITE SNAPSHOT(S1)\nCLEAR QMLTRACE")] == [[], []]


def test_importing_mqsc_loads_no_extension_module():
    code = ("import sys; import qmlite.registry.mqsc, qmlite.registry.mqsc.translate, qmlite.registry.mqsc.escape;"
            "print(sorted(m for m in sys.modules if m.startswith('qmlite.registry.mqsc.extensions.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_stop_qmlite_qmgr_asks_the_server_to_end_its_default_queue_manager(tmp_path):
    """endmqm's command (qmlite/ibmcli.py): the hosting object's on_end is told, with -r's RECONNECT;
    a hosted queue manager cannot end alone, a name not hosted is 3074, only mqm may."""
    from qmlite.registry import hosting

    qm = QueueManager.open(tmp_path / "qm", synchronous="OFF")
    qmgrs = hosting.QueueManagers(tmp_path, qm, opener=lambda name, path: QueueManager.open(path, name,
                                                                                              synchronous="OFF"))
    try:
        [unhooked] = run_mqsc(qm, "STOP QMLITE QMGR(QM1)")
        assert (unhooked.completion_code, unhooked.reason_code) == (C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)
        asked: list[bool] = []
        qmgrs.on_end = asked.append
        [ended] = run_mqsc(qm, "STOP QMLITE QMGR(QM1)\nSTOP QMLITE QMGR(QM1) RECONNECT")[:1]
        assert ended.text == ["QML0509I: qmlite queue manager QM1 ending."]
        assert asked == [False, True]
        qmgrs.create("QM2")
        [alone] = run_mqsc(qm, "STOP QMLITE QMGR(QM2)")  # no server to end it alone
        assert alone.reason_code == C.MQRC_FUNCTION_NOT_SUPPORTED and alone.text[0].startswith("QML0510E")
        [unknown] = run_mqsc(qm, "STOP QMLITE QMGR(QM9)")
        assert unknown.reason_code == C.MQRCCF_Q_MGR_NAME_ERROR
        [refused] = run_mqsc(qm, "STOP QMLITE QMGR(QM1)", user="app")
        assert refused.reason_code == C.MQRC_NOT_AUTHORIZED
        [bad] = run_mqsc(qm, "STOP QMLITE QMGR(QM1) NOW")
        assert bad.syntax_error
        assert asked == [False, True]
    finally:
        qmgrs.shutdown()
        qm.shutdown()


def test_stop_start_and_delete_qmlite_qmgr_end_start_and_delete_a_hosted_queue_manager(tmp_path):
    """endmqm, strmqm and dltmqm of a hosted queue manager other than the default: STOP asks the server
    (on_end_one), which calls ``closed`` once it has ended it; it shows ENDED, START opens it again with its
    data, DELETE removes an ended one's directory; each refuses the wrong state with its reason."""
    from qmlite.registry import hosting

    qm = QueueManager.open(tmp_path / "qm", synchronous="OFF")
    qmgrs = hosting.QueueManagers(tmp_path, qm, opener=lambda name, path: QueueManager.open(path, name,
                                                                                              synchronous="OFF"))
    asked: list[tuple[str, bool]] = []
    qmgrs.on_end_one = lambda name, reconnect: asked.append((name, reconnect))
    try:
        run_mqsc(qmgrs.create("QM2"), "DEFINE QLOCAL(KEPT.Q)")
        [ending] = run_mqsc(qm, "STOP QMLITE QMGR(QM2) RECONNECT")
        assert ending.text == ["QML0509I: qmlite queue manager QM2 ending."] and asked == [("QM2", True)]
        [running] = run_mqsc(qm, "DELETE QMLITE QMGR(QM2)")
        assert running.reason_code == C.MQRC_Q_MGR_ACTIVE and running.text[0].startswith("QML0514E")
        qmgrs.closed("QM2")  # what the server does once its clients and tasks are gone
        assert qmgrs.get("QM2") is None
        assert "STATUS(ENDED)" in " ".join(run_mqsc(qm, "DISPLAY QMLITE QMGR(QM2)")[0].text)
        [again] = run_mqsc(qm, "STOP QMLITE QMGR(QM2)")
        assert again.reason_code == C.MQRC_Q_MGR_NOT_AVAILABLE and asked == [("QM2", True)]
        [exists] = run_mqsc(qm, "DEFINE QMLITE QMGR(QM2)")  # crtmqm of an ended one: it exists
        assert exists.reason_code == 4001
        [started] = run_mqsc(qm, "START QMLITE QMGR(QM2)")
        assert started.text == ["QML0511I: qmlite queue manager QM2 started."]
        assert "QUEUE(KEPT.Q)" in " ".join(run_mqsc(qmgrs.get("QM2"), "DISPLAY QLOCAL(KEPT.Q)")[0].text)
        [twice] = run_mqsc(qm, "START QMLITE QMGR(QM2)")
        assert twice.reason_code == C.MQRC_Q_MGR_ACTIVE and twice.text[0].startswith("QML0512E")
        [default] = run_mqsc(qm, "DELETE QMLITE QMGR(QM1)")
        assert default.reason_code == C.MQRC_Q_MGR_ACTIVE
        qmgrs.closed("QM2")
        [deleted] = run_mqsc(qm, "DELETE QMLITE QMGR(QM2)")
        assert deleted.text == ["QML0513I: qmlite queue manager QM2 deleted."]
        assert not qmgrs.data_dir_of("QM2").exists()
        for command in ("START", "DELETE", "STOP"):
            [unknown] = run_mqsc(qm, f"{command} QMLITE QMGR(QM2)")
            assert unknown.reason_code == C.MQRCCF_Q_MGR_NAME_ERROR
        [refused] = run_mqsc(qm, "START QMLITE QMGR(QM2)", user="app")
        assert refused.reason_code == C.MQRC_NOT_AUTHORIZED
    finally:
        qmgrs.shutdown()
        qm.shutdown()
