"""The error log's layout, line by line, its rotation, and the container's console formats
(registry/monitoring/errorlog/, docs/errorlog.md)."""

from __future__ import annotations

import io
import json

import pytest

from qmlite.registry.monitoring import diagnostics
from qmlite.registry.monitoring.errorlog import consolelog as CON
from qmlite.registry.monitoring.errorlog import amqmessages as AMQ
from qmlite.registry.monitoring.errorlog import writer
from tests.support import amqerr

WHO = writer.Identity(pid=4321, user="mqm", host="myhost")
WHEN = 1795941612.345  # 2026-11-29T08:40:12.345Z


def _blocked() -> writer.Entry:
    return writer.Entry(AMQ.get("AMQ9777E"), WHEN, "QM1", {"c1": "DEV.APP.SVRCONN", "c2": "127.0.0.1",
                                                    "c3": "CLNTUSER(app) ADDRESS(127.0.0.1)"}, "127.0.0.1", 5)


def test_an_entry_is_laid_out_as_ibm_writes_it_line_by_line():
    lines = writer.render(_blocked(), WHO).split("\n")
    assert lines[0].endswith(" - Process(4321.5) User(mqm) Program(amqrmppa)")
    assert lines[1:] == [
        "                    Host(myhost) Installation(Installation1)",
        "                    VRMF(9.1.2.0) QMgr(QM1)",
        "                    Time(2026-11-29T08:40:12.345Z)",
        "                    RemoteHost(127.0.0.1)",
        "                    CommentInsert1(DEV.APP.SVRCONN)",
        "                    CommentInsert2(127.0.0.1)",
        "                    CommentInsert3(CLNTUSER(app) ADDRESS(127.0.0.1))",
        "                    ",
        "AMQ9777E: Channel was blocked",
        "",
        "EXPLANATION:",
        "The inbound channel 'DEV.APP.SVRCONN' was blocked from address '127.0.0.1'",
        "because the active values of the channel matched a record configured with",
        "USERSRC(NOACCESS). The active values of the channel were 'CLNTUSER(app)",
        "ADDRESS(127.0.0.1)'.",
        "ACTION:",
        "Contact the systems administrator, who should examine the channel",
        "authentication records to ensure that the correct settings have been",
        "configured. The ALTER QMGR CHLAUTH switch is used to control whether channel",
        "authentication records are used. The command DISPLAY CHLAUTH can be used to",
        "query the channel authentication records.",
        "----- cmqxrsrv.c : 1500 --------------------------------------------------------",
        ""]
    assert len(lines[-2]) == 80
    # the date: local time, month/day/year, a 12-hour clock
    assert amqerr._FIRST.match(lines[0])


def test_arithmetic_inserts_share_a_line_and_the_json_record_carries_every_insert():
    entry = writer.Entry(AMQ.get("AMQ9557E"), WHEN, "QM1", {"a1": 2, "a2": 2035, "c1": "bob", "c2": "bob", "c3": "bob"})
    text = writer.render(entry, WHO)
    assert "\n                    ArithInsert1(2) ArithInsert2(2035)\n" in text
    (parsed,) = amqerr.parse(text)
    assert parsed.inserts == {"a1": 2, "a2": 2035, "c1": "bob", "c2": "bob", "c3": "bob"}
    assert parsed.text == "Queue Manager User ID initialization failed for 'bob'."
    record = writer.record(entry, WHO)
    assert record["ibm_messageId"] == "AMQ9557E" and record["ibm_arithInsert2"] == 2035
    assert record["ibm_commentInsert1"] == "bob" and record["loglevel"] == "ERROR"
    assert record["ibm_datetime"] == "2026-11-29T08:40:12.345Z" and record["ibm_serverName"] == "QM1"
    assert record["message"] == "AMQ9557E: Queue Manager User ID initialization failed for 'bob'."
    assert record["type"] == "mq_log" and record["module"] == "cmqxrsrv.c:2298"


def test_every_catalogued_message_renders_and_reads_back():
    inserts = {"a1": 7, "a2": 2035, "c1": "ONE", "c2": "TWO", "c3": "THREE"}
    for number, message in AMQ.CATALOG.items():
        (parsed,) = amqerr.parse(writer.render(writer.Entry(message, WHEN, "QM1", inserts), WHO))
        assert parsed.number == number and parsed.text == AMQ.fill(message.text, inserts)
        assert parsed.explanation == " ".join(AMQ.fill(message.explanation, inserts).split())
        assert parsed.action == " ".join(AMQ.fill(message.action, inserts).split())
        assert message.source in ("checked", "recalled") and message.evidence


def test_the_log_rotates_to_02_and_03_at_its_size(tmp_path):
    log = writer.ErrorLog(tmp_path, max_bytes=4096, who=WHO)
    size = len(writer.render(_blocked(), WHO))
    per_file = 4096 // size
    for _ in range(per_file * 4 + 1):
        log.write(_blocked())
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["AMQERR01.LOG", "AMQERR01.json", "AMQERR02.LOG", "AMQERR02.json", "AMQERR03.LOG",
                     "AMQERR03.json"]
    for name in ("AMQERR01.LOG", "AMQERR02.LOG", "AMQERR03.LOG"):
        assert (tmp_path / name).stat().st_size <= 4096
        assert all(e.number == "AMQ9777E" for e in amqerr.read(tmp_path / name))
    assert len(amqerr.read(tmp_path / "AMQERR02.LOG")) == per_file  # a full file moved on whole
    # the JSON log rotates with it: one record per entry
    assert len((tmp_path / "AMQERR02.json").read_text().splitlines()) == per_file


def test_a_log_that_cannot_be_written_never_fails_the_caller(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    log = writer.ErrorLog(blocker / "errors", who=WHO)  # a directory under a file: cannot be made
    log.write(_blocked())
    assert log.failed


def test_errors_dir_is_in_the_queue_managers_own_directory(tmp_path):
    assert diagnostics.errors_dir(tmp_path) == tmp_path / "errors"


# ---- the container's console formats (mq-container cmd/runmqserver/logging.go) ----------------------
def _record() -> dict:
    entry = writer.Entry(AMQ.get("AMQ5026I"), WHEN, "QM1", {"a1": 286, "c1": "SYSTEM.LISTENER.TCP.1"})
    return writer.record(entry, WHO)


def test_basic_is_the_datetime_the_message_and_the_sorted_inserts():
    assert CON.basic(_record()) == ("2026-11-29T08:40:12.345Z AMQ5026I: The listener 'SYSTEM.LISTENER.TCP.1' has "
                                    "started. ProcessId(286). "
                                    "[ArithInsert1(286), CommentInsert1(SYSTEM.LISTENER.TCP.1)]")
    no_inserts = {"ibm_datetime": "2026-11-29T08:40:12.345Z", "message": "Hello", "ibm_arithInsert1": 0}
    assert CON.basic(no_inserts) == "2026-11-29T08:40:12.345Z Hello"  # an arithmetic insert of 0 is left out


def test_json_prints_the_records_json_line():
    out = io.StringIO()
    console = CON.Console("json", stream=out)
    console.release()
    console.entry(_record())
    parsed = json.loads(out.getvalue())
    assert parsed["ibm_messageId"] == "AMQ5026I" and parsed["ibm_arithInsert1"] == 286
    assert parsed["message"].startswith("AMQ5026I: The listener") and parsed["loglevel"] == "INFO"
    assert parsed["host"] == "myhost" and parsed["ibm_serverName"] == "QM1"


def test_the_console_holds_lines_until_released_and_excludes_what_it_is_told():
    out = io.StringIO()
    console, warnings = CON.Console.from_environment({"MQ_LOGGING_CONSOLE_EXCLUDE_ID": "AMQ5026I"}, out)
    assert (console.format, console.sources, warnings) == ("basic", ("qmgr", "web"), [])
    console.entry(_record())
    console.entry(dict(_record(), ibm_messageId="AMQ5806I", message="AMQ5806I: x"))
    assert out.getvalue() == ""
    console.release()
    assert out.getvalue() == ("2026-11-29T08:40:12.345Z AMQ5806I: x "
                              "[ArithInsert1(286), CommentInsert1(SYSTEM.LISTENER.TCP.1)]\n")


@pytest.mark.parametrize("source, sources, valid", [
    ("qmgr,web", ("qmgr", "web"), True), ("web", ("web",), True), (" ", ("qmgr", "web"), True),
    ("QMGR , WEB", ("qmgr", "web"), True), ("qmgr,dummy", ("qmgr",), False), ("", ("qmgr", "web"), True)])
def test_the_console_source_as_the_container_reads_it(source, sources, valid):
    console, warnings = CON.Console.from_environment({"MQ_LOGGING_CONSOLE_SOURCE": source})
    assert console.sources == sources and (warnings == []) == valid
    assert (console.line_for(_record()) is None) == ("qmgr" not in sources)


def test_an_unknown_format_is_basic_and_the_container_lines_are_sorted_json():
    console, _ = CON.Console.from_environment({"MQ_LOGGING_CONSOLE_FORMAT": "xml"})
    assert console.format == "basic"
    record = CON.container_record("Started web server", when=WHEN, host="h", server="QM1", process="qmlite", pid=1,
                                  user="mqm")
    assert console.container_line(record) == "2026-11-29T08:40:12.345Z Started web server"
    line = CON.Console("json").container_line(record)
    assert list(json.loads(line)) == sorted(json.loads(line)) and json.loads(line)["type"] == "mq_containerlog"


def test_ibms_line_breaks_are_kept_each_line_wrapped_by_itself():
    # AMQ5542I's paragraphs, as IBM's AMQERR01.LOG shows them: a blank line between, each wrapped at 79.
    entry = writer.Entry(AMQ.get("AMQ5542I"), WHEN, "QM1", {"c1": "nouser", "c2": "DEV.AUTHINFO",
                                                          "c3": "CHCKLOCL(OPTIONAL)"})
    lines = writer.render(entry, WHO).split("\n")
    explanation = lines[lines.index("EXPLANATION:") + 1:lines.index("ACTION:")]
    assert explanation == ["The user ID 'nouser' and its password were checked because the queue manager",
                           "connection authority (CONNAUTH) configuration refers to an authentication",
                           "information (AUTHINFO) object named 'DEV.AUTHINFO' with CHCKLOCL(OPTIONAL).", "",
                           "This message accompanies a previous error to clarify the reason for the user ID",
                           "and password check."]
    assert lines[lines.index("ACTION:") + 1:lines.index("ACTION:") + 3] == [
        "Refer to the previous error for more information.", ""]


def test_the_catalogue_names_its_evidence():
    checked = [m.number for m in AMQ.CATALOG.values() if m.source == "checked"]
    assert {"AMQ9777E", "AMQ8077W", "AMQ9631E", "AMQ5540E", "AMQ9776E", "AMQ5534E", "AMQ5542I",
            "AMQ8004I"} <= set(checked)
    assert all(m.evidence.startswith(("http", "docs/", "IBM", "an ")) for m in AMQ.CATALOG.values())


def test_in_the_background_a_reader_that_stops_costs_lines_never_a_blocked_caller():
    import threading

    class Stuck(io.StringIO):
        def __init__(self):
            super().__init__()
            self.release = threading.Event()

        def write(self, text):
            self.release.wait()  # a pipe nobody reads
            return super().write(text)

    out = Stuck()
    console = CON.Console(stream=out, background=True)
    console.release()
    for _ in range(CON.PENDING + 10):  # returns at once although nothing can be written
        console.entry(_record())
    assert console.dropped >= 9
    out.release.set()
    console.close(timeout=30)
    assert out.getvalue().count("AMQ5026I") == CON.PENDING + 10 - console.dropped
