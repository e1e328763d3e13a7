"""Issue 30 items 1 and 2 against a server started in the test: queue-manager names checked at every door
(MQCONN through IBM's ibmmq, REST, MQSC, the command line), QMIDs that fit for every valid name, and
nothing created for a client that has not authenticated, within a cap and a rate (docs/decisions.md
NM1-NM7).  The raw-socket cases are in test_qmgr_names_raw.py."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import httpx
import pytest
import structlog

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.registry import qmgrnames  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
AUTH = ("admin", "passw0rd")
CSRF = {"ibm-mq-rest-csrf-token": "x"}
NAME_29 = "TEST" + "C" * 25  # the issue's: its old QMID (name + "_" + 19) was 49 bytes
NAME_48 = "TEST." + "/%_" * 14 + "A"


def _connect(server, name: str, user: str | None = "admin", password: str | None = "passw0rd"):
    if user is None:
        return ibmmq.connect(name, ADMIN, server.conn_name)
    return ibmmq.connect(name, ADMIN, server.conn_name, user, password)


def _inquire(qm, selector: int) -> str:
    return qm.inquire(selector).decode().rstrip(" \x00")


def _hosted_dirs(server) -> list[str]:
    root = server.data_dir / "qmgrs"
    return sorted(p.name for p in root.iterdir()) if root.is_dir() else []


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("names"), create_on_connect="*", http_port=0,
                        create_rate=0) as srv:
        yield srv


@pytest.mark.parametrize("name", [NAME_29, NAME_48])
def test_a_long_name_is_created_and_served_with_a_qmid_that_fits(server, name):
    assert len(name) in (29, 48) and qmgrnames.is_name(name)
    qm = _connect(server, name)
    try:
        assert _inquire(qm, CMQC.MQCA_Q_MGR_NAME) == name
        qmid = _inquire(qm, CMQC.MQCA_Q_MGR_IDENTIFIER)
        assert len(qmid) <= 48 and qmid.startswith(name[:28] + "_")
        q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
        q.put(b"served")
        assert q.get() == b"served"
        q.close()
    finally:
        qm.disconnect()
    assert (server.data_dir / "qmgrs" / qmgrnames.directory_name(name) / "qmlite.db").is_file()


@pytest.mark.parametrize("name", [".", "..", "QM\x01"])  # the client strips "TEST\\n": see the raw tests
def test_dot_names_are_2058_create_nothing_and_the_server_serves_on(server, name):
    before = _hosted_dirs(server)
    with pytest.raises(ibmmq.MQMIError) as err:
        _connect(server, name)
    assert err.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR
    assert _hosted_dirs(server) == before  # nothing new, not even "TEST"
    qm = _connect(server, "QM1")  # the server is still there
    try:
        assert _inquire(qm, CMQC.MQCA_Q_MGR_NAME) == "QM1"
    finally:
        qm.disconnect()


def test_names_with_a_slash_and_dots_live_in_ibms_directories(server):
    qm = _connect(server, "SLASH/ED.QM")
    try:
        assert _inquire(qm, CMQC.MQCA_Q_MGR_NAME) == "SLASH/ED.QM"
    finally:
        qm.disconnect()
    assert (server.data_dir / "qmgrs" / "SLASH&ED!QM" / "qmlite.db").is_file()
    assert "SLASH/ED.QM" in server.qmgrs()


def test_300_unauthenticated_mqconns_create_nothing(server):
    before = _hosted_dirs(server)
    hosted = server.qmgrs()
    for i in range(300):
        user, password = [(None, None), ("admin", "wrong"), ("nobody", "passw0rd")][i % 3]
        with pytest.raises(ibmmq.MQMIError) as err:
            _connect(server, f"NEW{i}", user, password)
        assert err.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    assert _hosted_dirs(server) == before
    assert server.qmgrs() == hosted


def test_an_authenticated_app_without_connect_authority_creates_nothing(tmp_path):
    with running_qmlite(tmp_path / "d", create_on_connect="*", app_password="app-pw") as srv:
        # app loses connect on the default: the rules an unknown queue manager's client is judged by
        [done] = srv.mqsc("SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHRMV(CONNECT)")
        assert done.completion_code == 0, done.text
        with pytest.raises(ibmmq.MQMIError) as err:
            ibmmq.connect("BY.APP", "DEV.APP.SVRCONN", srv.conn_name, "app", "app-pw")
        assert err.value.reason == CMQC.MQRC_NOT_AUTHORIZED
        assert not (tmp_path / "d" / "qmgrs").exists()


def test_the_cap_and_the_rate_refuse_with_2059_and_a_log_line(tmp_path):
    with structlog.testing.capture_logs() as logs, \
            running_qmlite(tmp_path / "cap", create_on_connect="*", max_qmgrs=2) as srv:
        _connect(srv, "FIRST").disconnect()
        with pytest.raises(ibmmq.MQMIError) as err:
            _connect(srv, "SECOND")
        assert err.value.reason == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
        assert srv.qmgrs() == ["QM1", "FIRST"] and _hosted_dirs(srv) == ["FIRST"]
        [shown] = srv.mqsc("DEFINE QMLITE QMGR(BY.MQSC)")
        assert shown.reason_code == CMQCFC.MQRCCF_OBJECT_LIMIT_EXCEEDED
    with structlog.testing.capture_logs() as logs_rate, \
            running_qmlite(tmp_path / "rate", create_on_connect="*", create_rate=1) as srv:
        _connect(srv, "FIRST").disconnect()
        with pytest.raises(ibmmq.MQMIError) as err:
            _connect(srv, "SECOND")
        assert err.value.reason == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
        assert srv.add_qmgr("BY.ADMIN").qmgr == "BY.ADMIN"  # administrators are not rated
    # structlog's own capture: where printed lines go depends on which test configured structlog first
    refused = [e["why"] for e in logs + logs_rate if e["event"] == "qmgr_not_created"]
    assert any("max_qmgrs" in why for why in refused) and any("create_rate" in why for why in refused), refused


def test_mqsc_refuses_bad_names_with_mqrccf_q_mgr_name_error(server):
    for bad in ("A" * 49, "..", "."):
        [shown] = server.mqsc(f"DEFINE QMLITE QMGR('{bad}')")
        assert shown.reason_code == CMQCFC.MQRCCF_Q_MGR_NAME_ERROR
    assert ".." not in server.qmgrs()


@pytest.mark.parametrize("name", [".", "..", "QM3\n", "QM3\r\n", "\tQM", "A" * 49, "QM 3"])
def test_rest_refuses_bad_names_with_400_and_no_path(server, name):
    with httpx.Client(base_url=server.rest_url, auth=AUTH, headers=CSRF, timeout=30) as http:
        out = http.post("/admin/qmlite/qmgrs", json={"name": name})
    assert out.status_code == 400
    [error] = out.json()["error"]
    assert error["reasonCode"] == CMQC.MQRC_Q_MGR_NAME_ERROR and error["msgId"] == "MQWB0004E"
    assert str(server.data_dir) not in out.text
    assert not (server.data_dir / "qmgrs" / "QM3\n").exists()
    assert not (server.data_dir / "qmgrs" / "qmlite.db").exists()  # "." once put a database there


# ---- a restart after each former crash ---------------------------------------------------------------
def _old_queue_manager(path: pathlib.Path, name: str) -> None:
    """A queue manager in the directory an earlier qmlite made for ``name`` (the name itself)."""
    from qmlite.registry.qmgr import QueueManager

    QueueManager.open(path, name).shutdown()


def test_a_restart_serves_with_whatever_the_crashes_left(tmp_path):
    data = tmp_path / "d"
    root = data / "qmgrs"
    _old_queue_manager(root / NAME_29, NAME_29)  # the 29-character crash created it, then died
    _old_queue_manager(root / "OLD.NAME", "OLD.NAME")  # a dotted name before IBM's transformation
    (root / "QM3\n").mkdir()  # REST's "QM3\n"
    (root / "qmlite.db").write_bytes(b"")  # REST's ".": a database in qmgrs/ itself
    with structlog.testing.capture_logs() as logs, running_qmlite(data, create_on_connect="TEST*") as srv:
        assert srv.qmgrs() == ["QM1", "OLD.NAME", NAME_29]
        for name in (NAME_29, "OLD.NAME"):
            qm = _connect(srv, name)
            try:
                assert len(_inquire(qm, CMQC.MQCA_Q_MGR_IDENTIFIER)) <= 48
            finally:
                qm.disconnect()
        qm = _connect(srv, "TEST" + "D" * 25)  # the next create-on-connect no longer kills it
        qm.disconnect()
    assert any(e["event"] == "qmgr_directory_skipped" and e["directory"] == "QM3\n" for e in logs), logs
    assert (root / "QM3\n").is_dir()  # left alone, not removed


# ---- the command line: a bad default name refuses to start ------------------------------------------
def _serve(tmp_path, *args, env=None):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MQ_")} | (env or {})
    return subprocess.run([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--data-dir",
                           str(tmp_path / "d"), *args], env=environ, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args, env", [(("--qmgr", ".."), None), (("--qmgr", "A" * 49), None),
                                       ((), {"MQ_QMGR_NAME": "."}), ((), {"MQ_QMGR_NAME": "QM1\n"}),
                                       (("--max-qmgrs", "-1"), None), (("--create-rate", "-5"), None)])
def test_serve_refuses_a_bad_name_or_cap_before_starting(tmp_path, args, env):
    done = _serve(tmp_path, *args, env=env)
    assert done.returncode == 2 and done.stderr.startswith("qmlite: ")
    assert not (tmp_path / "d").exists()


def test_a_36_character_default_name_serves(tmp_path):
    name = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"  # the issue's: it died on its first client
    with running_qmlite(tmp_path / "d", qmgr_name=name) as srv:
        qm = _connect(srv, name)
        try:
            assert _inquire(qm, CMQC.MQCA_Q_MGR_IDENTIFIER).startswith(name[:28] + "_")
        finally:
            qm.disconnect()
