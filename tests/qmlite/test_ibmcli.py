"""IBM's control commands under IBM's names (qmlite/ibmcli.py), as CI scripts written for IBM's developer
container run them: bash with ``set -e``, ``runmqsc QM1 < setup.mqsc``, ``echo ... | runmqsc QM1``,
``dmpmqcfg -m QM1 -a`` replayed, ``dspmq``, ``dspmqver``, ``setmqaut``/``dspmqaut``/``dmpmqaut``, against
servers the test starts (port 0), the console scripts taken from this environment's bin directory and
the server found as docs/decisions.md CT1 says (QMLITE_PORT).  Output is compared with IBM's
documented formats (docs/control-commands.md)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from qmlite.client import reconnect as RC
from qmlite.client.errors import ConnectionBroken
from qmlite.client.sync import QueueManager
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from tests.support.served import Served

BIN = pathlib.Path(sys.executable).parent
COMMANDS = ("runmqsc", "dspmq", "dspmqver", "setmqaut", "dspmqaut", "dmpmqaut", "dmpmqcfg", "crtmqm", "strmqm",
            "endmqm", "dltmqm")


@pytest.fixture(autouse=True)
def _reap():
    yield
    Served.reap_all()


@pytest.fixture(scope="module", autouse=True)
def _installed():
    missing = [c for c in COMMANDS if not (BIN / c).exists()]
    assert not missing, f"console scripts not installed in {BIN} (pip install -e . again): {missing}"


def sh(script: str, cwd: pathlib.Path, port: int, **env: str) -> subprocess.CompletedProcess:
    """``script`` under bash, as a CI step: the console scripts on PATH, no MQ_* of the caller's."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MQ", "QMLITE_"))}
    base.update(PATH=f"{BIN}{os.pathsep}{base.get('PATH', '')}", QMLITE_PORT=str(port), **env)
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=base, capture_output=True, text=True, timeout=300)


SETUP = """\
* the application's queues
DEFINE QLOCAL(APP.ORDERS) MAXDEPTH(100) REPLACE
DEFINE TOPIC(APP.TOPIC) TOPICSTR('app/orders') REPLACE
"""


def test_a_container_style_setup_script(tmp_path):
    served = Served(tmp_path / "data")
    (tmp_path / "setup.mqsc").write_text(SETUP)
    done = sh("""set -e
runmqsc QM1 < setup.mqsc > setup.out
echo "DISPLAY QLOCAL(APP.ORDERS) CURDEPTH" | runmqsc QM1 > display.out
setmqaut -m QM1 -n APP.ORDERS -t queue -p app +put +get > setmqaut.out
dspmqaut -m QM1 -n APP.ORDERS -t queue -p app > dspmqaut.out
dmpmqaut -m QM1 -n APP.ORDERS -t queue > dmpmqaut.out
dspmq > dspmq.out
dspmq -m QM1 -o all -x > dspmq-all.out
dspmqver -b -f 2 > version.out
dspmqver > dspmqver.out
""", tmp_path, served.port)
    assert done.returncode == 0, done.stderr
    out = {p.stem: p.read_text() for p in tmp_path.glob("*.out")}
    assert out["setup"].splitlines() == [
        "Starting MQSC for queue manager QM1.", "", "",
        "       : * the application's queues",
        "     1 : DEFINE QLOCAL(APP.ORDERS) MAXDEPTH(100) REPLACE", "AMQ8006I: IBM MQ queue created.",
        "     2 : DEFINE TOPIC(APP.TOPIC) TOPICSTR('app/orders') REPLACE", "AMQ8690I: IBM MQ topic created.",
        "2 MQSC commands read.", "No commands have a syntax error.", "All valid MQSC commands were processed."]
    display = out["display"].splitlines()
    assert display[3:6] == ["     1 : DISPLAY QLOCAL(APP.ORDERS) CURDEPTH", "AMQ8409I: Display Queue details.",
                            "   QUEUE(APP.ORDERS)                       TYPE(QLOCAL)"]
    assert display[-3:] == ["One MQSC command read.", "No commands have a syntax error.",
                            "All valid MQSC commands were processed."]
    assert out["setmqaut"] == "The setmqaut command completed successfully.\n"
    assert out["dspmqaut"].splitlines() == ["Entity app has the following authorizations for object APP.ORDERS:",
                                            "\tget", "\tput"]
    assert "profile:     APP.ORDERS\nobject type: queue\nentity:      app\nentity type: principal\n" \
           "authority:   get put\n- - - - - - - - - \n" in out["dmpmqaut"]
    assert out["dspmq"] == "QMNAME(QM1)" + " " * 47 + "STATUS(Running)\n"
    first, instance = out["dspmq-all"].splitlines()
    assert first.startswith("QMNAME(QM1)" + " " * 47 + "STATUS(Running) DEFAULT(yes) INSTNAME(Installation1) "
                            "INSTPATH(/opt/mqm) INSTVER(")
    assert instance.startswith("    INSTANCE(") and instance.endswith(") MODE(Active)")
    assert out["version"] == "9.1.2.0\n"
    labels = [line.split(":")[0] for line in out["dspmqver"].splitlines()]
    assert labels[:3] == ["Name", "Version", "Level"] and "InstPath" in labels


def test_exit_codes_and_summary_lines_when_commands_fail(tmp_path):
    served = Served(tmp_path / "data")
    done = sh("""
printf 'DEFINE QLOCAL(X.Q)\\nDEFINE QLOCAL(X.Q)\\nDEFINE QLOCAL(X.Q)\\n' | runmqsc QM1 > twice.out; echo $? > twice.rc
printf 'DEFINE QLOCAL(Y.Q)\\nDEFINE WIDGET(Y)\\n' | runmqsc -e QM1 > syntax.out; echo $? > syntax.rc
printf 'DISPLAY QMGR\\n' | runmqsc NOSUCH > nosuch.out 2> nosuch.err; echo $? > nosuch.rc
runmqsc -Z QM1 < /dev/null 2> usage.err; echo $? > usage.rc
dspmq -m NOSUCH 2> dspmq.err; echo $? > dspmq.rc
dspmq --bogus 2> dspmqusage.err; echo $? > dspmqusage.rc
dmpmqcfg -t widget 2> dmpusage.err; echo $? > dmpusage.rc
dspmqaut -m QM1 -n X.Q -t widget -p app 2> badtype.err; echo $? > badtype.rc
setmqaut -m QM1 -n X.Q -t queue -p app --bogus +put 2> setusage.err; echo $? > setusage.rc
crtmqm QM1 2> crt.err; echo $? > crt.rc
strmqm QM1 > str.out; echo $? > str.rc
strmqm NOSUCH 2> strnone.err; echo $? > strnone.rc
printf 'DEFINE QLOCAL(V.Q)\nDEFINE WIDGET(V)\n' | runmqsc -v QM1 > verify.out; echo $? > verify.rc
echo 'DISPLAY QLOCAL(V.Q)' | runmqsc QM1 > verified.out; echo $? > verified.rc
dspmqver -p 2 2> ver.err; echo $? > ver.rc
setmqaut -m QM1 -n X.Q -t queue -p app +browse > /dev/null
dmpmqaut -m QM1 -n X.Q -t queue -p app -a > aut-a.out
dmpmqaut -m QM1 -n X.Q -t queue -l > aut-l.out
""", tmp_path, served.port)
    assert done.returncode == 0, done.stderr
    read = {p.name: p.read_text() for p in tmp_path.glob("*.*") if p.suffix in (".out", ".err", ".rc")}
    assert read["twice.rc"] == "10\n"
    assert read["twice.out"].splitlines()[-3:] == ["3 MQSC commands read.", "No commands have a syntax error.",
                                                   "2 valid MQSC commands could not be processed."]
    assert read["twice.out"].count("AMQ8150E: IBM MQ object already exists.") == 2
    assert read["syntax.rc"] == "10\n"
    assert "     1 :" not in read["syntax.out"]  # -e: no echo
    assert read["syntax.out"].splitlines()[-3:] == ["2 MQSC commands read.", "One command has a syntax error.",
                                                    "All valid MQSC commands were processed."]
    assert read["nosuch.rc"] == "20\n"
    assert read["nosuch.err"].startswith("AMQ8118E: IBM MQ queue manager does not exist.")
    assert read["usage.rc"] == "20\n" and read["usage.err"].startswith("Usage: runmqsc ")
    assert read["dspmq.rc"] == "72\n"
    assert read["dspmq.err"] == "AMQ7048E: The queue manager name is either not valid or not known.\n"
    assert read["dspmqusage.rc"] == "36\n" and read["dspmqusage.err"].startswith("Usage: dspmq ")
    assert read["dmpusage.rc"] == "36\n" and read["dmpusage.err"].startswith("Usage: dmpmqcfg ")
    assert read["badtype.rc"] == "148\n"
    assert read["setusage.rc"] == "36\n" and read["setusage.err"].startswith("Usage: setmqaut ")
    assert read["crt.rc"] == "8\n" and read["crt.err"] == "AMQ8110E: IBM MQ queue manager already exists.\n"
    assert (read["str.rc"], read["str.out"]) == ("5\n", "IBM MQ queue manager 'QM1' running.\n")
    assert read["strnone.rc"] == "16\n"
    assert read["verify.rc"] == "10\n" and "One command has a syntax error." in read["verify.out"]
    # -v ran nothing
    assert read["verified.rc"] == "10\n" and "AMQ8147E: IBM MQ object V.Q not found." in read["verified.out"]
    assert read["ver.rc"] == "10\n"
    assert read["aut-a.out"] == "setmqaut -m QM1 -n X.Q -t queue -p app +browse\n"
    assert read["aut-l.out"] == "profile: X.Q, type: queue\n"


def test_dmpmqcfg_replayed_by_runmqsc_into_a_fresh_queue_manager(tmp_path):
    first = Served(tmp_path / "first" / "data")
    second = Served(tmp_path / "second" / "data")
    (tmp_path / "setup.mqsc").write_text(
        "DEFINE QLOCAL(APP.Q) DESCR('orders, kept') MAXDEPTH(7) DEFPSIST(YES) REPLACE\n"
        "DEFINE QALIAS(APP.ALIAS) TARGET(APP.Q) REPLACE\n"
        "DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('app') REPLACE\n"
        "SET CHLAUTH('APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) ACTION(REPLACE)\n"
        "SET AUTHREC PROFILE('APP.**') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT,GET)\n"
        "ALTER QMGR DESCR('replayed') MAXMSGL(1048576)\n")
    done = sh(f"""set -e
runmqsc QM1 < setup.mqsc > /dev/null
dmpmqcfg -m QM1 -a > first.mqsc
QMLITE_PORT={second.port} runmqsc QM1 < first.mqsc > replay.out
QMLITE_PORT={second.port} dmpmqcfg -m QM1 -a > second.mqsc
dmpmqcfg -m QM1 -x authrec -o setmqaut > auth.sh
dmpmqcfg -m QM1 -t queue -n 'APP.*' -o 1line > queues.mqsc
""", tmp_path, first.port)
    assert done.returncode == 0, done.stderr
    dumped = (tmp_path / "first.mqsc").read_text().splitlines()
    assert dumped[0] == "*" * 79 and dumped[1].startswith("* Script generated on ")
    assert "* Queue manager name: QM1" in dumped and "* Command issued: dmpmqcfg -m QM1 -a" in dumped
    assert "ALTER QMGR +" in dumped and "   DESCR('replayed') +" in dumped
    replay = (tmp_path / "replay.out").read_text().splitlines()
    assert replay[-2:] == ["No commands have a syntax error.", "All valid MQSC commands were processed."]

    def commands(name: str) -> list[str]:
        return [line for line in (tmp_path / name).read_text().splitlines() if not line.startswith("*")]
    assert commands("second.mqsc") == commands("first.mqsc")
    assert "setmqaut -m QM1 -n 'APP.**' -t queue -p app +get +put" in (tmp_path / "auth.sh").read_text()
    assert commands("queues.mqsc") == [
        "DEFINE QALIAS('APP.ALIAS') TARGET('APP.Q') REPLACE",
        "DEFINE QLOCAL('APP.Q') DEFPSIST(YES) DESCR('orders, kept') MAXDEPTH(7) REPLACE"]


def test_client_mode_through_mqserver_with_the_password_on_stdin(tmp_path):
    served = Served(tmp_path / "data")
    server = f"DEV.ADMIN.SVRCONN/TCP/127.0.0.1({served.port})"
    done = sh("""set -e
printf 'passw0rd\\nDISPLAY QMGR QMNAME\\n' | runmqsc -c -u admin QM1 > client.out
printf 'wrong\\nDISPLAY QMGR QMNAME\\n' | runmqsc -c -u admin QM1 > refused.out 2> refused.err || echo $? > refused.rc
dmpmqcfg -m QM1 -c default -x object -t qmgr -o 1line > qmgr.mqsc
""", tmp_path, 1, MQSERVER=server)  # QMLITE_PORT 1: nothing there, the client channel is MQSERVER's
    assert done.returncode == 0, done.stderr
    assert "QMNAME(QM1)" in (tmp_path / "client.out").read_text()
    assert (tmp_path / "refused.rc").read_text() == "20\n"
    assert "AMQ8146E" in (tmp_path / "refused.err").read_text()
    [line] = (tmp_path / "qmgr.mqsc").read_text().splitlines()[8:]
    assert line.startswith("ALTER QMGR ") and line.endswith(" FORCE")


def test_endmqm_ends_the_server_as_sigterm_does(tmp_path):
    served = Served(tmp_path / "data", "--qmgr", "QM1", "--qmgr", "QM2")
    done = sh("""
endmqm NOSUCH 2> none.err; echo $? > none.rc
dltmqm QM1 2> dlt.err; echo $? > dlt.rc
endmqm -w QM1 > end.out; echo $? > end.rc
""", tmp_path, served.port)
    assert done.returncode == 0, done.stderr
    read = {p.name: p.read_text() for p in tmp_path.glob("*.*") if p.suffix in (".out", ".err", ".rc")}
    assert read["none.rc"] == "16\n" and read["none.err"].startswith("AMQ8118E")
    assert (read["dlt.rc"], read["dlt.err"]) == ("5\n", "IBM MQ queue manager 'QM1' running.\n")
    assert read["end.rc"] == "0\n"
    assert read["end.out"] == "Waiting for queue manager 'QM1' to end.\nIBM MQ queue manager 'QM1' ended.\n"
    assert served.proc.wait(timeout=60) == 0  # a clean end, as after SIGTERM


def _client(served: Served, qmgr: str):
    return QueueManager.connect("127.0.0.1", served.port, "DEV.ADMIN.SVRCONN", qmgr, user="admin",
                                password="passw0rd", reply_timeout=30.0)


def test_endmqm_ends_a_hosted_queue_manager_alone_and_strmqm_dltmqm_follow(tmp_path):
    """endmqm of a hosted queue manager other than the default ends that one alone: its clients told as
    IBM tells them (QM_TERMINATING; -r: asked to reconnect), dspmq shows it ended; strmqm starts it again
    with its data, dltmqm deletes an ended one with its directory, each with IBM's exit codes."""
    served = Served(tmp_path / "data", "--qmgr", "QM1", "--qmgr", "QM2", "--qmgr", "QM3", "--qmgr", "QM4")
    told, asked = _client(served, "QM2"), _client(served, "QM3")  # QM4 is never used: its tasks never start
    done = sh("""
echo "DEFINE QLOCAL(KEPT.Q)" | runmqsc QM2 > /dev/null
endmqm -w QM2 > end.out; echo $? > end.rc
endmqm -r -i QM3 > endr.out; echo $? > endr.rc
endmqm -w QM4 > /dev/null; echo $? > unused.rc
dspmq > ended.out
endmqm QM2 2> again.err; echo $? > again.rc
echo "DISPLAY QMGR" | runmqsc QM2 > down.out 2> down.err; echo $? > down.rc
strmqm QM2 > str.out; echo $? > str.rc
echo "DISPLAY QLOCAL(KEPT.Q)" | runmqsc QM2 > kept.out; echo $? > kept.rc
strmqm QM2 > running.out; echo $? > running.rc
dltmqm QM2 2> dltrunning.err; echo $? > dltrunning.rc
dltmqm QM3 > dlt.out; echo $? > dlt.rc
dspmq > after.out
strmqm QM3 2> gone.err; echo $? > gone.rc
dltmqm QM3 2> dltgone.err; echo $? > dltgone.rc
echo "DISPLAY QMGR QMNAME" | runmqsc QM1 > still.out; echo $? > still.rc
""", tmp_path, served.port)
    assert done.returncode == 0, done.stderr
    read = {p.name: p.read_text() for p in tmp_path.glob("*.*") if p.suffix in (".out", ".err", ".rc")}
    assert (read["end.rc"], read["end.out"]) == (
        "0\n", "Waiting for queue manager 'QM2' to end.\nIBM MQ queue manager 'QM2' ended.\n")
    assert (read["endr.rc"], read["endr.out"]) == (
        "0\n", "IBM MQ queue manager 'QM3' ending.\nIBM MQ queue manager 'QM3' ended.\n")
    with pytest.raises(ConnectionBroken) as ending:
        told.inq(0, [C.MQCA_Q_MGR_NAME], 0, 48)
    assert ending.value.status_code == fap.QM_TERMINATING and not RC.reconnectable(ending.value)
    with pytest.raises(ConnectionBroken) as reconnecting:
        asked.inq(0, [C.MQCA_Q_MGR_NAME], 0, 48)
    assert reconnecting.value.status_code is None and RC.reconnectable(reconnecting.value)
    told.abort()
    asked.abort()
    assert [line.split() for line in read["ended.out"].splitlines()] == [
        ["QMNAME(QM1)", "STATUS(Running)"], ["QMNAME(QM2)", "STATUS(Ended", "normally)"],
        ["QMNAME(QM3)", "STATUS(Ended", "normally)"], ["QMNAME(QM4)", "STATUS(Ended", "normally)"]]
    assert read["unused.rc"] == "0\n"
    assert (read["again.rc"], read["again.err"]) == ("40\n", "AMQ8146E: IBM MQ queue manager not available.\n")
    assert read["down.rc"] == "20\n" and read["down.err"].startswith("AMQ8146E: IBM MQ queue manager not available.")
    assert read["str.rc"] == "0\n"
    assert read["str.out"].splitlines() == [
        "IBM MQ queue manager 'QM2' starting.", "The queue manager is associated with installation 'Installation1'.",
        "IBM MQ queue manager 'QM2' started using V9.1.2.0."]
    assert read["kept.rc"] == "0\n" and "QUEUE(KEPT.Q)" in read["kept.out"]  # its data directory kept
    assert (read["running.rc"], read["running.out"]) == ("5\n", "IBM MQ queue manager 'QM2' running.\n")
    assert (read["dltrunning.rc"], read["dltrunning.err"]) == ("5\n", "IBM MQ queue manager 'QM2' running.\n")
    assert (read["dlt.rc"], read["dlt.out"]) == ("0\n", "IBM MQ queue manager 'QM3' deleted.\n")
    assert not (tmp_path / "data" / "qmgrs" / "QM3").exists() and (tmp_path / "data" / "qmgrs" / "QM2").is_dir()
    assert [line.split()[0] for line in read["after.out"].splitlines()] == ["QMNAME(QM1)", "QMNAME(QM2)",
                                                                           "QMNAME(QM4)"]
    assert (read["gone.rc"], read["gone.err"]) == ("16\n", "AMQ8118E: IBM MQ queue manager does not exist.\n")
    assert read["dltgone.rc"] == "16\n"
    assert read["still.rc"] == "0\n" and "QMNAME(QM1)" in read["still.out"]
    assert served.proc.poll() is None  # the server, and QM1 with it, goes on
