"""Many queue managers behind one port (registry/hosting.py, docs/multiqm.md), through IBM's ibmmq against a
server started in the test: isolation of objects, messages, authority, subscriptions and data directory;
MQCONN's QMgrName choosing (blank: the default; unknown: 2058; matching --create-on-connect: created);
administration of each through PCF, MQSC (Escape and DISPLAY/DEFINE QMLITE) and REST; bad names refused."""

from __future__ import annotations

import pathlib

import httpx
import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite, worker_qmgr_name, worker_queue_manager  # noqa: E402
from qmlite.registry import qmgrnames  # noqa: E402
from qmlite.server import config  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
AUTH = ("admin", "passw0rd")
APP = ("app", "app-passw0rd")
CSRF = {"ibm-mq-rest-csrf-token": "x"}
# Names no queue manager may have (IBM "Rules for naming IBM MQ objects"): too long, characters outside
# A-Z a-z 0-9 . / _ %, empty, and the directories "." and ".." (docs/decisions.md NM1).
BAD_NAMES = ["A" * 49, "QM-2", "QM 2", "QM*", "QM?", "QM#", "QM@1", "Q\u00c9", "", ".", ".."]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("multiqm"), qmgrs=("QM2",), create_on_connect="TEST*",
                        http_port=0, app_password=APP[1]) as srv:
        yield srv


def _connect(server, name: str):
    return ibmmq.connect(name, ADMIN, server.conn_name, *AUTH)


def _name(qm) -> str:
    return qm.inquire(CMQC.MQCA_Q_MGR_NAME).decode().strip()


def _escape(qm, text: str) -> list[str]:
    pcf = ibmmq.PCFExecute(qm)
    try:
        out = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})
    finally:
        pcf.disconnect()
    return [line for r in out for line in r[CMQCFC.MQCACF_ESCAPE_TEXT].decode().rstrip().splitlines()]


@pytest.fixture(scope="module")
def qm1(server):
    qm = _connect(server, "QM1")
    yield qm
    qm.disconnect()


@pytest.fixture(scope="module")
def qm2(server):
    qm = _connect(server, "QM2")
    yield qm
    qm.disconnect()


# ---- choosing the queue manager ----------------------------------------------------------------------
@pytest.mark.parametrize("asked, answered", [("QM1", "QM1"), ("QM2", "QM2"), ("", "QM1"), ("*", "QM1")])
def test_mqconn_qmgr_name_picks_the_queue_manager(server, asked, answered):
    qm = _connect(server, asked)
    try:
        assert _name(qm) == answered
    finally:
        qm.disconnect()


@pytest.mark.parametrize("name", ["NOPE", "QM3", "TES", "XTEST1", *BAD_NAMES[1:4]])
def test_an_unknown_or_invalid_name_is_2058_and_creates_nothing(server, name):
    with pytest.raises(ibmmq.MQMIError) as err:
        _connect(server, name)
    assert err.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR
    assert not (server.data_dir / "qmgrs" / name).exists() or not name


def test_a_name_matching_the_pattern_is_created_by_its_first_mqconn(server):
    assert not (server.data_dir / "qmgrs" / "TEST7").exists()
    first = _connect(server, "TEST7")
    try:
        assert _name(first) == "TEST7"
        assert (server.data_dir / "qmgrs" / "TEST7" / "qmlite.db").is_file()
        q = ibmmq.Queue(first, "DEV.QUEUE.1")
        q.put(b"kept")
        q.close()
        second = _connect(server, "TEST7")  # the second MQCONN finds it, with its message
        try:
            assert ibmmq.Queue(second, "DEV.QUEUE.1").get() == b"kept"
        finally:
            second.disconnect()
    finally:
        first.disconnect()
    assert "TEST7" in server.qmgrs()


def test_without_create_on_connect_an_unknown_name_is_2058(tmp_path):
    with running_qmlite(tmp_path / "d") as srv:
        with pytest.raises(ibmmq.MQMIError) as err:
            _connect(srv, "TEST1")
        assert err.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR
        assert not (tmp_path / "d" / "qmgrs").exists()


# ---- isolation ---------------------------------------------------------------------------------------
def test_objects_and_messages_are_the_queue_managers_own(qm1, qm2):
    pcf1, pcf2 = ibmmq.PCFExecute(qm1), ibmmq.PCFExecute(qm2)
    try:
        pcf1.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"ONLY.ON.QM1", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
        with pytest.raises(ibmmq.MQMIError) as err:
            pcf2.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"ONLY.ON.QM1"})
        assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        with pytest.raises(ibmmq.MQMIError) as err:
            ibmmq.Queue(qm2, "ONLY.ON.QM1", CMQC.MQOO_INPUT_AS_Q_DEF)
        assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    finally:
        pcf1.disconnect()
        pcf2.disconnect()
    put = ibmmq.Queue(qm1, "DEV.QUEUE.2")
    put.put(b"for QM1 only")
    put.close()
    with pytest.raises(ibmmq.MQMIError) as err:
        ibmmq.Queue(qm2, "DEV.QUEUE.2").get()
    assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    assert ibmmq.Queue(qm1, "DEV.QUEUE.2").get() == b"for QM1 only"


def test_subscriptions_and_publications_stay_in_their_queue_manager(qm1, qm2):
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", "multiqm/iso")
    sub = ibmmq.Subscription(qm2)
    sub.sub(sub_desc=sd)
    try:
        ibmmq.Topic(qm1, topic_string="multiqm/iso").pub(b"on QM1")
        with pytest.raises(ibmmq.MQMIError) as err:
            sub.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        ibmmq.Topic(qm2, topic_string="multiqm/iso").pub(b"on QM2")
        assert sub.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"on QM2"
    finally:
        sub.close()


def test_authority_records_are_the_queue_managers_own(server, qm1, qm2):
    _escape(qm2, "SET AUTHREC PROFILE(DEV.QUEUE.3) OBJTYPE(QUEUE) PRINCIPAL('app') AUTHRMV(PUT)")
    shown2 = _escape(qm2, "DISPLAY AUTHREC PROFILE(DEV.QUEUE.3) OBJTYPE(QUEUE) PRINCIPAL('app')")
    shown1 = _escape(qm1, "DISPLAY AUTHREC PROFILE(DEV.QUEUE.3) OBJTYPE(QUEUE) PRINCIPAL('app')")
    assert shown2 != shown1  # QM2's record was changed, QM1's not
    # the app user may still put on QM1's DEV.QUEUE.3, not on QM2's
    app1 = ibmmq.connect("QM1", "DEV.APP.SVRCONN", server.conn_name, *APP)
    app2 = ibmmq.connect("QM2", "DEV.APP.SVRCONN", server.conn_name, *APP)
    try:
        ibmmq.Queue(app1, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT).close()
        with pytest.raises(ibmmq.MQMIError) as err:
            ibmmq.Queue(app2, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT)
        assert err.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        app1.disconnect()
        app2.disconnect()


def test_each_queue_manager_has_its_own_data_directory(server):
    assert (server.data_dir / "qmlite.db").is_file()  # the default keeps the server's directory
    assert (server.data_dir / "qmgrs" / "QM2" / "qmlite.db").is_file()


# ---- administration: PCF, MQSC, REST ------------------------------------------------------------------
def test_pcf_answers_for_the_queue_manager_connected_to(qm2):
    pcf = ibmmq.PCFExecute(qm2)
    try:
        [qmgr] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [CMQC.MQCA_Q_MGR_NAME]})
    finally:
        pcf.disconnect()
    assert qmgr[CMQC.MQCA_Q_MGR_NAME].decode().strip() == "QM2"


def test_mqsc_display_and_define_qmlite_qmgr(qm1, qm2):
    assert "QMNAME(QM2)" in " ".join(_escape(qm2, "DISPLAY QMGR QMNAME"))
    lines = _escape(qm1, "DISPLAY QMLITE QMGRS")
    assert lines[0] == "QML0501I: Display qmlite queue manager details."
    text = " ".join(lines)
    assert "QMNAME(QM1)" in text and "QMNAME(QM2)" in text and "DEFAULT(YES)" in text
    assert _escape(qm1, "DEFINE QMLITE QMGR(MQSC.MADE)") == ["QML0502I: qmlite queue manager MQSC.MADE created."]
    one = " ".join(_escape(qm2, "DISPLAY QMLITE QMGR(MQSC.MADE)"))
    assert "QMNAME(MQSC.MADE)" in one and "DEFAULT(NO)" in one and "STATUS(RUNNING)" in one


def test_a_queue_manager_defined_by_mqsc_is_served_at_once(server, qm1):
    _escape(qm1, "DEFINE QMLITE QMGR(BY.MQSC)")
    qm = _connect(server, "BY.MQSC")
    try:
        assert _name(qm) == "BY.MQSC"
        assert "QMNAME(BY.MQSC)" in " ".join(_escape(qm, "DISPLAY QMGR QMNAME"))  # its command server runs
    finally:
        qm.disconnect()


@pytest.mark.parametrize("command, reason", [
    ("DEFINE QMLITE QMGR(QM2)", 4001),  # MQRCCF_OBJECT_ALREADY_EXISTS
    ("DEFINE QMLITE QMGR(QM1)", 4001),
    ("DISPLAY QMLITE QMGR(NOT.HOSTED)", CMQCFC.MQRCCF_Q_MGR_NAME_ERROR),  # a command's MQRCCF (NM6)
    *[(f"DEFINE QMLITE QMGR('{bad}')", CMQCFC.MQRCCF_Q_MGR_NAME_ERROR) for bad in BAD_NAMES],
    *[(f"DISPLAY QMLITE QMGR('{bad}')", CMQCFC.MQRCCF_Q_MGR_NAME_ERROR) for bad in BAD_NAMES if bad not in ("", "QM*")],
])
def test_mqsc_refuses_bad_names_with_their_reason(qm1, command, reason):
    with pytest.raises(ibmmq.MQMIError) as err:
        _escape(qm1, command)
    assert err.value.reason == reason


@pytest.mark.parametrize("command", ["DEFINE QMLITE QMGRS", "DISPLAY QMLITE QMGRS(X)", "DISPLAY QMLITE QMGRS ALL",
                                     "DEFINE QMLITE QMGR", "DEFINE QMLITE QMGR(A,B)", "DELETE QMLITE QMGRS",
                                     "ALTER QMLITE QMGR(QM2)", "START QMLITE QMGR(QM2) RECONNECT"])
def test_mqsc_syntax_errors(command):
    from qmlite.registry.mqsc import check_mqsc

    [result] = check_mqsc(command)
    assert result.syntax_error, command


def test_define_qmlite_qmgr_needs_mqm(server):
    app = ibmmq.connect("QM1", "DEV.APP.SVRCONN", server.conn_name, *APP)
    try:
        with pytest.raises(ibmmq.MQMIError) as err:
            _escape(app, "DEFINE QMLITE QMGR(APP.MADE)")
        assert err.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        app.disconnect()
    assert not (server.data_dir / "qmgrs" / "APP.MADE").exists()


def _rest(server) -> httpx.Client:
    return httpx.Client(base_url=server.rest_url, auth=AUTH, headers=CSRF, timeout=30)


def test_rest_serves_each_queue_manager(server):
    with _rest(server) as http:
        names = [q["name"] for q in http.get("/admin/qmgr").json()["qmgr"]]
        assert names[0] == "QM1" and "QM2" in names
        out = http.post("/admin/action/qmgr/QM2/mqsc", json={"type": "runCommand", "parameters": {
            "command": "DEFINE QLOCAL(REST.ON.QM2)"}})
        assert out.status_code == 200 and out.json()["overallReasonCode"] == 0
        shown = http.post("/admin/action/qmgr/QM1/mqsc", json={"type": "runCommand", "parameters": {
            "command": "DISPLAY QLOCAL(REST.ON.QM2)"}}).json()
        assert shown["overallReasonCode"] != 0 and "AMQ8147E" in str(shown["commandResponse"])
        app = httpx.BasicAuth(*APP)  # messaging is the MQWebUser role's
        put = http.post("/messaging/qmgr/QM2/queue/DEV.QUEUE.2/message", content=b"via rest", auth=app,
                        headers={"Content-Type": "text/plain"})
        assert put.status_code == 201
        assert http.delete("/messaging/qmgr/QM1/queue/DEV.QUEUE.2/message", auth=app).status_code == 204
        assert http.delete("/messaging/qmgr/QM2/queue/DEV.QUEUE.2/message", auth=app).text == "via rest"
        pcf = http.post("/admin/action/qmgr/QM2/pcf", json={"type": "runCommandPCF", "command": "INQUIRE_Q_MGR"})
        assert pcf.status_code == 200 and "QM2" in pcf.text
        missing = http.get("/admin/qmgr/NOT.HOSTED")
        assert missing.status_code == 404 and missing.json()["error"][0]["reasonCode"] == CMQC.MQRC_Q_MGR_NAME_ERROR


def test_rest_lists_and_creates_queue_managers(server):
    with _rest(server) as http:
        listed = http.get("/admin/qmlite/qmgrs").json()["qmgr"]
        assert listed[0]["name"] == "QM1" and listed[0]["default"] is True
        made = http.post("/admin/qmlite/qmgrs", json={"name": "REST.MADE"})
        assert made.status_code == 201 and made.json()["qmgr"][0]["name"] == "REST.MADE"
        assert http.get("/admin/qmlite/qmgrs/REST.MADE").json()["qmgr"][0]["state"] == "running"
        again = http.post("/admin/qmlite/qmgrs", json={"name": "REST.MADE"})
        assert again.status_code == 400 and again.json()["error"][0]["reasonCode"] == 4001
    qm = _connect(server, "REST.MADE")
    try:
        assert _name(qm) == "REST.MADE"
    finally:
        qm.disconnect()


@pytest.mark.parametrize("body", [*({"name": bad} for bad in BAD_NAMES), {"name": 7}, {}, {"name": "A", "x": 1},
                                  ["QM9"], None])
def test_rest_refuses_bad_names_with_ibms_error_json(server, body):
    with _rest(server) as http:
        out = http.post("/admin/qmlite/qmgrs", json=body)
    assert out.status_code == 400
    [error] = out.json()["error"]
    assert error["reasonCode"] == CMQC.MQRC_Q_MGR_NAME_ERROR and error["msgId"] == "MQWB0004E"


def test_rest_unknown_qmgr_in_list_and_bad_name(server):
    with _rest(server) as http:
        assert http.get("/admin/qmlite/qmgrs/NOT.HOSTED").status_code == 404
        bad = http.get("/admin/qmlite/qmgrs/QM-2")
        assert bad.status_code == 400 and bad.json()["error"][0]["reasonCode"] == CMQC.MQRC_Q_MGR_NAME_ERROR


# ---- configuration, restart, the plugin ---------------------------------------------------------------
@pytest.mark.parametrize("overrides", [*({"qmgrs": (bad,)} for bad in BAD_NAMES), {"qmgrs": ("QM1",)},
                                       {"qmgrs": ("QM2", "QM2")}, {"create_on_connect": "QM-*"},
                                       {"create_on_connect": "A" * 49}, {"qmgrs": 5}])
def test_bad_configuration_is_refused(overrides):
    with pytest.raises(config.ConfigError):
        config.load(environ={}, overrides=overrides)


def test_a_restarted_server_hosts_what_it_hosted(tmp_path):
    with running_qmlite(tmp_path / "d", create_on_connect="*") as srv:
        qm = _connect(srv, "LATER")
        q = ibmmq.Queue(qm, "DEV.QUEUE.1")
        q.put(b"persistent", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        q.close()
        qm.disconnect()
    with running_qmlite(tmp_path / "d") as srv:  # no pattern now: hosted because it exists
        assert srv.qmgrs() == ["QM1", "LATER"]
        qm = _connect(srv, "LATER")
        try:
            assert ibmmq.Queue(qm, "DEV.QUEUE.1").get() == b"persistent"
        finally:
            qm.disconnect()


def test_the_plugin_adds_queue_managers(server):
    other = server.add_qmgr("PLUGIN.MADE")
    assert other.qmgr == "PLUGIN.MADE" and other.port == server.port
    [shown] = other.mqsc("DISPLAY QMGR QMNAME")  # through a connection to it
    assert "QMNAME(PLUGIN.MADE)" in " ".join(shown.text)
    assert "PLUGIN.MADE" in server.qmgrs()
    with pytest.raises(ValueError, match="4001"):
        server.add_qmgr("PLUGIN.MADE")


@pytest.mark.parametrize("worker, name", [("gw0", "QM_GW0"), ("gw13", "QM_GW13"), ("master", "QM_MAIN"),
                                          ("", "QM_MAIN"), ("a-b", "QM_A_B")])
def test_worker_names_are_queue_manager_names(worker, name):
    assert worker_qmgr_name(worker) == name
    assert qmgrnames.is_name(name)


def test_xdist_workers_get_their_own_queue_manager_on_a_shared_server(tmp_path):
    with running_qmlite(tmp_path / "shared", create_on_connect="QM_*") as shared:
        address = f"{shared.host}:{shared.port}"
        with worker_queue_manager(tmp_path / "w0", "gw0", address) as w0, \
                worker_queue_manager(tmp_path / "w1", "gw1", address) as w1:
            assert (w0.port, w1.port) == (shared.port, shared.port)
            a, b = _connect(w0, w0.qmgr), _connect(w1, w1.qmgr)
            try:
                assert (_name(a), _name(b)) == ("QM_GW0", "QM_GW1")
                q = ibmmq.Queue(a, "DEV.QUEUE.1")
                q.put(b"gw0's")
                q.close()
                with pytest.raises(ibmmq.MQMIError) as err:
                    ibmmq.Queue(b, "DEV.QUEUE.1").get()
                assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            finally:
                a.disconnect()
                b.disconnect()
        assert shared.qmgrs() == ["QM1", "QM_GW0", "QM_GW1"]


def test_without_a_shared_server_a_worker_runs_its_own(tmp_path):
    with worker_queue_manager(tmp_path, "gw2", None) as own:
        qm = _connect(own, "QM_GW2")
        try:
            assert _name(qm) == "QM_GW2"
        finally:
            qm.disconnect()
    assert pathlib.Path(tmp_path / "qmlite-worker" / "qmlite.db").is_file()


# ---- the command line: serve --qmgr ... , runmqsc QM2, dspmq ------------------------------------------
def _cli(*args: str, stdin: str = "") -> "subprocess.CompletedProcess":
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("MQ_")}
    return subprocess.run([sys.executable, "-m", "qmlite", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120)


def test_serve_runmqsc_and_dspmq_reach_each_queue_manager(tmp_path):
    from tests.support.served import Served

    data = tmp_path / "data"
    served = Served(data, "--qmgr", "QM1", "--qmgr", "QM2", "--create-on-connect", "CI*")
    try:
        port = str(served.port)
        done = _cli("runmqsc", "-c", "--port", port, "QM2", stdin="DEFINE QLOCAL(CLI.Q2)\nDIS QMGR QMNAME\n")
        assert done.returncode == 0, done.stderr
        assert "Starting MQSC for queue manager QM2." in done.stdout and "QMNAME(QM2)" in done.stdout
        on_qm1 = _cli("runmqsc", "-c", "--port", port, "QM1", stdin="DIS QLOCAL(CLI.Q2)\n")
        assert "AMQ8147E" in on_qm1.stdout  # QM1 has no such queue
        made = _cli("runmqsc", "-c", "--port", port, "CI1", stdin="DIS QMLITE QMGRS\n")  # created on connect
        assert made.returncode == 0 and "QMNAME(CI1)" in made.stdout and "QMNAME(QM2)" in made.stdout
        shown = _cli("dspmq", "--port", port, "--data-dir", str(data))
        assert [line.split()[0] for line in shown.stdout.splitlines()] == ["QMNAME(QM1)", "QMNAME(CI1)",
                                                                            "QMNAME(QM2)"]
        assert all("STATUS(Running)" in line for line in shown.stdout.splitlines())
        assert _cli("dspmq", "-m", "QM2", "--port", port, "--data-dir", str(data)).stdout.startswith("QMNAME(QM2)")
        assert _cli("dspmq", "-m", "QM9", "--port", port, "--data-dir", str(data)).returncode == 72
    finally:
        served.stop()
    # no server: runmqsc opens QM2's own data directory
    local = _cli("runmqsc", "--data-dir", str(data), "--port", port, "QM2", stdin="DIS QLOCAL(CLI.Q2)\n")
    assert local.returncode == 0, local.stderr
    assert "QUEUE(CLI.Q2)" in local.stdout
    offline = _cli("runmqsc", "--data-dir", str(data), "--port", port, "QM2", stdin="DEFINE QMLITE QMGR(QM5)\n")
    assert "QML0506E" in offline.stdout


@pytest.mark.parametrize("args", [("--qmgr", "QM1", "--qmgr", "QM-2"), ("--qmgr", "QM1", "--qmgr", "QM1"),
                                  ("--create-on-connect", "A-B")])
def test_serve_refuses_bad_names(tmp_path, args):
    done = _cli("serve", "--port", "0", "--data-dir", str(tmp_path / "d"), *args)
    assert done.returncode == 2 and "qmlite:" in done.stderr


# ---- the plugin's --qmlite-shared in a pytest run of its own ------------------------------------------
INNER = '''
import os

def test_inner(qmlite_worker):
    assert qmlite_worker.qmgr == os.environ["EXPECT_QMGR"]
    assert qmlite_worker.port == int(os.environ["QMLITE_SHARED"].rpartition(":")[2])
    [shown] = qmlite_worker.mqsc("DISPLAY QMGR QMNAME")
    assert "QMNAME(" + os.environ["EXPECT_QMGR"] + ")" in " ".join(shown.text)
'''


def _inner_pytest(tmp_path, *args: str, **env: str):
    import os
    import subprocess
    import sys

    (tmp_path / "test_inner.py").write_text(INNER)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("MQ_", "PYTEST_", "QMLITE_SHARED"))}
    environ.update(env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           str(tmp_path / "test_inner.py"), *args], capture_output=True, text=True, env=environ,
                          cwd=tmp_path, timeout=300)


def test_qmlite_shared_starts_one_server_for_the_run(tmp_path):
    done = _inner_pytest(tmp_path, "--qmlite-shared", EXPECT_QMGR="QM_MAIN")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed" in done.stdout


def test_a_worker_takes_its_queue_manager_on_the_shared_server(tmp_path):
    with running_qmlite(tmp_path / "shared", create_on_connect="QM_*") as shared:
        done = _inner_pytest(tmp_path, EXPECT_QMGR="QM_GW3", PYTEST_XDIST_WORKER="gw3",
                             QMLITE_SHARED=f"{shared.host}:{shared.port}")
        assert done.returncode == 0, done.stdout[-3000:]
        assert "QM_GW3" in shared.qmgrs()


def test_rest_snapshots_and_call_trace_act_on_the_queue_manager_named(server):
    with _rest(server) as http:
        saved = http.post("/admin/action/qmgr/QM2/snapshot/MQ.ISO/save")
        assert saved.status_code == 200, saved.text
        on_qm2 = [s["name"] for s in http.get("/admin/qmgr/QM2/snapshot").json()["snapshot"]]
        on_qm1 = [s["name"] for s in http.get("/admin/qmgr/QM1/snapshot").json()["snapshot"]]
        assert "MQ.ISO" in on_qm2 and "MQ.ISO" not in on_qm1
        assert http.post("/admin/qmgr/QM2/qmlite/calls", json={"record": True}).json()["recording"] is True
    qm = _connect(server, "QM2")
    try:
        _name(qm)
    finally:
        qm.disconnect()
    with _rest(server) as http:
        verbs2 = {c["verb"] for c in http.get("/admin/qmgr/QM2/qmlite/calls").json()["calls"]}
        assert "MQCONN" in verbs2 or "MQCONNX" in verbs2
