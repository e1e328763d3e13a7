"""pymqi 1.12 configured by a CCDT or a client configuration file, through qmlite's ``pymqe``: the
environment variables and files IBM's C client reads (pymqi has no MQCNO.CCDTUrl), the queue-manager
name rules, a dead first entry, and the tables refused."""

from __future__ import annotations

import json
import logging
import os

import pytest

if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
    import pymqi
else:
    pymqi = pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

from pymqi import CMQC  # noqa: E402

from qmlite import cli  # noqa: E402
from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ccdtkit import (  # noqa: E402
    BINARY_TABLE, MALFORMED, channel, client_env, dead_port, write_ccdt, write_ini)

__all__ = ["client_env"]

ADMIN, APP = "DEV.ADMIN.SVRCONN", "DEV.APP.SVRCONN"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("pymqi-ccdt")) as srv:
        yield srv


@pytest.fixture
def live(server):
    return ("127.0.0.1", server.port)


def reason_of(fn, *args, **kwargs) -> int:
    with pytest.raises(pymqi.MQMIError) as info:
        fn(*args, **kwargs)
    return info.value.reason


def mqconn(name: str):
    """MQCONN (``QueueManager.connect(name)``; ``pymqi.connect`` takes no blank name): the channel
    comes from the environment."""
    qm = pymqi.QueueManager(None)
    qm.connect(name)
    return qm


def mqconnx(name: str):
    """MQCONNX with a user and password and no MQCD."""
    qm = pymqi.QueueManager(None)
    qm.connect_with_options(name, user="admin", password="passw0rd")
    return qm


def works(qm) -> bool:
    """The connection serves MQI calls: an MQOPEN and MQINQ of DEV.QUEUE.1 (which the app user may
    inquire on); then it is closed.  (pymqi's ``QueueManager.inquire`` opens the queue manager object
    by the name connected with, which for ``*GROUP`` names no queue manager: 2086, as on IBM MQ.)"""
    try:
        q = pymqi.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_INQUIRE)
        try:
            return q.inquire(CMQC.MQCA_Q_NAME).strip() == b"DEV.QUEUE.1"
        finally:
            q.close()
    finally:
        qm.disconnect()


def test_mqccdturl_as_file_url_and_as_path(client_env, live, monkeypatch):
    table = write_ccdt(client_env / "ccdt.json", channel(APP, "QM1", live))
    for value in (table.as_uri(), str(table)):
        monkeypatch.setenv("MQCCDTURL", value)
        assert works(mqconn("QM1"))


def test_mqchllib_and_mqchltab(client_env, live, monkeypatch):
    write_ccdt(client_env / "tab.json", channel(ADMIN, "QM1", live))
    monkeypatch.setenv("MQCHLLIB", str(client_env))
    monkeypatch.setenv("MQCHLTAB", "tab.json")
    assert works(mqconnx("QM1"))


def test_mqclntcf_server_connection_parms(client_env, live, monkeypatch):
    ini = write_ini(client_env / "c.ini", CHANNELS={"ServerConnectionParms": f"{APP}/TCP/{live[0]}({live[1]})"})
    monkeypatch.setenv("MQCLNTCF", str(ini))
    assert works(mqconn("QM1"))


def test_mqclntcf_channel_definition_directory_and_file(client_env, live, monkeypatch):
    write_ccdt(client_env / "defs.json", channel(APP, "QM1", live))
    ini = write_ini(client_env / "c.ini", CHANNELS={"ChannelDefinitionDirectory": str(client_env),
                                                    "ChannelDefinitionFile": "defs.json"})
    monkeypatch.setenv("MQCLNTCF", str(ini))
    assert works(mqconn("QM1"))


def test_mqserver_wins_over_the_configuration_file_and_ccdt(client_env, live, monkeypatch):
    dead = ("127.0.0.1", dead_port())
    monkeypatch.setenv("MQCCDTURL", str(write_ccdt(client_env / "dead.json", channel(APP, "QM1", dead))))
    monkeypatch.setenv("MQCLNTCF", str(write_ini(client_env / "c.ini", CHANNELS={
        "ServerConnectionParms": f"{APP}/TCP/{dead[0]}({dead[1]})"})))
    monkeypatch.setenv("MQSERVER", f"{APP}/TCP/{live[0]}({live[1]})")
    assert works(mqconn("QM1"))
    monkeypatch.delenv("MQSERVER")  # now ServerConnectionParms (dead) is the channel: no fall-through
    assert reason_of(mqconn, "QM1") == CMQC.MQRC_HOST_NOT_AVAILABLE


def test_first_entry_down_connects_through_the_second(client_env, live, monkeypatch):
    dead = ("127.0.0.1", dead_port())
    table = write_ccdt(client_env / "list.json", channel(APP, "QM1", dead, live))
    monkeypatch.setenv("MQCCDTURL", str(table))
    assert works(mqconn("QM1"))
    write_ccdt(table, channel("A.FIRST", "QM1", dead), channel(APP, "QM1", live))
    assert works(mqconn("QM1"))


def test_star_name_and_blank_name(client_env, live, monkeypatch):
    dead = ("127.0.0.1", dead_port())
    monkeypatch.setenv("MQCCDTURL", str(write_ccdt(
        client_env / "g.json", channel(APP, "GROUP", live), channel("Z.OTHER", "QM2", dead), channel(APP, "", live))))
    assert works(mqconn("*GROUP"))
    assert reason_of(mqconn, "GROUP") == CMQC.MQRC_Q_MGR_NAME_ERROR
    assert works(mqconn(""))
    assert works(mqconn("*"))
    assert reason_of(mqconn, "*NONE") == CMQC.MQRC_Q_MGR_NAME_ERROR


def test_binary_table_refused(client_env, monkeypatch, caplog):
    (client_env / "AMQCLCHL.TAB").write_bytes(BINARY_TABLE)
    monkeypatch.setenv("MQCHLLIB", str(client_env))
    with caplog.at_level(logging.WARNING, logger="qmlite.ibmmqc"):
        assert reason_of(mqconn, "QM1") == CMQC.MQRC_CLIENT_CONN_ERROR
    assert "binary CCDT" in caplog.text


@pytest.mark.parametrize("kind,text,where", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_table_refused(client_env, monkeypatch, caplog, kind, text, where):
    (client_env / "bad.json").write_text(text)
    monkeypatch.setenv("MQCCDTURL", str(client_env / "bad.json"))
    with caplog.at_level(logging.WARNING, logger="qmlite.ibmmqc"):
        assert reason_of(mqconn, "QM1") == CMQC.MQRC_CLIENT_CONN_ERROR
    assert f"{where}:" in caplog.text if where else "bad.json" in caplog.text


def test_qmlite_ccdt_output_connects_pymqi(client_env, server, monkeypatch):
    out = client_env / "written.json"
    assert cli.main(["ccdt", "--port", str(server.port), "--for-channel", APP, "-o", str(out)]) == 0
    assert [c["name"] for c in json.loads(out.read_text())["channel"]] == [APP]
    monkeypatch.setenv("MQCCDTURL", out.as_uri())
    assert works(mqconn("QM1"))
