"""IBM's ``ibmmq`` configured the way deployed applications are: JSON CCDTs (MQCNO.CCDTUrl, MQCCDTURL,
MQCHLLIB/MQCHLTAB), the client configuration file, IBM's order among them, the queue-manager name
rules, a connection list with a dead first entry, refusals of binary and malformed tables; and
``qmlite ccdt`` / the REST resource whose output ibmmq connects with."""

from __future__ import annotations

import json
import logging
import urllib.request

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC  # noqa: E402

from qmlite import cli  # noqa: E402
from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ccdtkit import (  # noqa: E402
    BINARY_TABLE, MALFORMED, channel, client_env, dead_port, write_ccdt, write_ini)
from tests.support.ibmmqkit import raises  # noqa: E402

__all__ = ["client_env"]  # the fixture, used by name

ADMIN, APP = "DEV.ADMIN.SVRCONN", "DEV.APP.SVRCONN"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ccdt"), http_port=0) as srv:
        yield srv


@pytest.fixture
def live(server):
    return ("127.0.0.1", server.port)


def connect(name: str = "QM1", **kwargs):
    """MQCONNX with no MQCD (as ``ibmmq.connect(name)`` without channel and connection name does), as
    the admin user; returns the QueueManager."""
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options(name, user="admin", password="passw0rd", **kwargs)
    return qm


def qmgr_name(qm) -> str:
    return qm.inquire(CMQC.MQCA_Q_MGR_NAME).decode().strip()


def connects(name: str = "QM1", **kwargs) -> str:
    qm = connect(name, **kwargs)
    try:
        return qmgr_name(qm)
    finally:
        qm.disconnect()


# --------------------------------------------------------------------------------------------------
# Where the CCDT comes from
# --------------------------------------------------------------------------------------------------

def test_mqccdturl_as_file_url_and_as_path(client_env, live, monkeypatch):
    table = write_ccdt(client_env / "ccdt.json", channel(ADMIN, "QM1", live))
    for value in (table.as_uri(), "file://" + "/" + str(table), str(table)):  # file:///p, file:////p, a path
        monkeypatch.setenv("MQCCDTURL", value)
        assert connects("QM1") == "QM1"


def test_mqchllib_and_mqchltab(client_env, live, monkeypatch):
    (client_env / "tables").mkdir()
    write_ccdt(client_env / "tables" / "prod.json", channel(ADMIN, "QM1", live))
    monkeypatch.setenv("MQCHLLIB", str(client_env / "tables"))
    monkeypatch.setenv("MQCHLTAB", "prod.json")
    assert connects() == "QM1"
    monkeypatch.setenv("MQCHLLIB", (client_env / "tables").as_uri())  # IBM: MQCHLLIB may be a URL
    assert connects() == "QM1"


def test_mqchllib_alone_reads_amqclchl_tab_there(client_env, live, monkeypatch):
    # IBM's default table name is AMQCLCHL.TAB; a JSON table under that name is read as JSON
    write_ccdt(client_env / "AMQCLCHL.TAB", channel(ADMIN, "QM1", live))
    monkeypatch.setenv("MQCHLLIB", str(client_env))
    assert connects() == "QM1"


def test_mqcno_ccdturl(client_env, live):
    table = write_ccdt(client_env / "cno.json", channel(ADMIN, "QM1", live))
    cno = ibmmq.CNO(Version=CMQC.MQCNO_VERSION_6)
    cno.CCDTUrl = table.as_uri()
    assert connects("QM1", cno=cno) == "QM1"
    assert cno.CCDTUrl == table.as_uri()  # ibmmq restores the field it turned into a pointer


def test_default_table_in_the_mq_data_directory(client_env, live):
    write_ccdt(client_env / "data" / "AMQCLCHL.TAB", channel(ADMIN, "QM1", live))
    assert connects() == "QM1"


def test_nothing_configured_is_qmgr_not_available(client_env):
    raises(CMQC.MQRC_Q_MGR_NOT_AVAILABLE, connect, "QM1")


def test_a_missing_table_is_client_conn_error(client_env, monkeypatch, caplog):
    monkeypatch.setenv("MQCCDTURL", str(client_env / "nowhere.json"))
    with caplog.at_level(logging.WARNING, logger="qmlite.ibmmqc"):
        raises(CMQC.MQRC_CLIENT_CONN_ERROR, connect, "QM1")
    assert "nowhere.json" in caplog.text and "2278" in caplog.text


# --------------------------------------------------------------------------------------------------
# The client configuration file
# --------------------------------------------------------------------------------------------------

def test_mqclntcf_server_connection_parms(client_env, live, monkeypatch):
    ini = write_ini(client_env / "app.ini", CHANNELS={"ServerConnectionParms": f"{ADMIN}/TCP/{live[0]}({live[1]})"})
    monkeypatch.setenv("MQCLNTCF", str(ini))
    assert connects() == "QM1"


def test_mqclntcf_channel_definition_directory_and_file(client_env, live, monkeypatch):
    (client_env / "defs").mkdir()
    write_ccdt(client_env / "defs" / "mine.json", channel(ADMIN, "QM1", live))
    ini = write_ini(client_env / "app.ini", CHANNELS={"ChannelDefinitionDirectory": str(client_env / "defs"),
                                                      "ChannelDefinitionFile": "mine.json"})
    monkeypatch.setenv("MQCLNTCF", str(ini))
    assert connects() == "QM1"


def test_mqclient_ini_in_the_working_directory(client_env, live):
    write_ccdt(client_env / "here.json", channel(ADMIN, "QM1", live))
    write_ini(client_env / "mqclient.ini", CHANNELS={"ChannelDefinitionDirectory": str(client_env),
                                                     "ChannelDefinitionFile": "here.json"})
    assert connects() == "QM1"


def _sources(client_env, monkeypatch, live_at: int, dead: tuple[str, int], live: tuple[str, int]):
    """Every one of IBM's seven places set, the one numbered ``live_at`` pointing at the live server
    and each lower-precedence one at a dead port.  Returns the MQCNO/MQCD arguments for MQCONNX."""
    def at(n):
        return live if n == live_at else dead

    kwargs = {}
    if live_at <= 1:
        kwargs["cd"] = ibmmq.CD(ChannelName=ADMIN.encode(), ConnectionName=f"{at(1)[0]}({at(1)[1]})".encode())
    if live_at <= 2:
        cno = ibmmq.CNO(Version=CMQC.MQCNO_VERSION_6)
        cno.CCDTUrl = write_ccdt(client_env / "s2.json", channel(ADMIN, "QM1", at(2))).as_uri()
        kwargs["cno"] = cno
    if live_at <= 3:
        monkeypatch.setenv("MQSERVER", f"{ADMIN}/TCP/{at(3)[0]}({at(3)[1]})")
    ini = {}
    if live_at <= 4:
        ini["ServerConnectionParms"] = f"{ADMIN}/TCP/{at(4)[0]}({at(4)[1]})"
    if live_at <= 5:
        monkeypatch.setenv("MQCCDTURL", str(write_ccdt(client_env / "s5.json", channel(ADMIN, "QM1", at(5)))))
    if live_at <= 6:
        (client_env / "lib").mkdir(exist_ok=True)
        write_ccdt(client_env / "lib" / "s6.json", channel(ADMIN, "QM1", at(6)))
        monkeypatch.setenv("MQCHLLIB", str(client_env / "lib"))
        monkeypatch.setenv("MQCHLTAB", "s6.json")
    write_ccdt(client_env / "s7.json", channel(ADMIN, "QM1", at(7)))
    ini.update(ChannelDefinitionDirectory=str(client_env), ChannelDefinitionFile="s7.json")
    monkeypatch.setenv("MQCLNTCF", str(write_ini(client_env / "all.ini", CHANNELS=ini)))
    return kwargs


@pytest.mark.parametrize("place", [1, 2, 3, 4, 5, 6, 7], ids=[
    "MQCD", "MQCNO.CCDTUrl", "MQSERVER", "ServerConnectionParms", "MQCCDTURL", "MQCHLLIB", "ChannelDefinitionFile"])
def test_ibms_order_of_channel_sources(client_env, monkeypatch, live, place):
    # the place given wins over every place after it (all of which point at a dead port) ...
    kwargs = _sources(client_env, monkeypatch, place, ("127.0.0.1", dead_port()), live)
    assert connects("QM1", **kwargs) == "QM1"


@pytest.mark.parametrize("place", [1, 2, 3, 4, 5, 6], ids=[
    "MQCD", "MQCNO.CCDTUrl", "MQSERVER", "ServerConnectionParms", "MQCCDTURL", "MQCHLLIB"])
def test_a_dead_source_does_not_fall_through_to_the_next(client_env, monkeypatch, live, place):
    # ... and is the only one used: pointing it at a dead port fails the connect though a later one is live
    dead = ("127.0.0.1", dead_port())
    kwargs = _sources(client_env, monkeypatch, place, live, dead)  # swapped: the chosen one is dead
    raises(CMQC.MQRC_HOST_NOT_AVAILABLE, connect, "QM1", **kwargs)


# --------------------------------------------------------------------------------------------------
# Channel selection: connection lists, queue-manager names, weights
# --------------------------------------------------------------------------------------------------

def test_first_entry_down_connects_through_the_second(client_env, live, monkeypatch):
    dead = ("127.0.0.1", dead_port())
    table = write_ccdt(client_env / "list.json", channel(ADMIN, "QM1", dead, live))
    monkeypatch.setenv("MQCCDTURL", str(table))
    assert connects() == "QM1"
    # two channels of one queue manager, tried alphabetically: A.DOWN (dead) then B.UP
    write_ccdt(table, channel("A.DOWN", "QM1", dead), channel(ADMIN, "QM1", live))
    assert connects() == "QM1"


def test_every_entry_down_is_host_not_available(client_env, monkeypatch):
    dead = ("127.0.0.1", dead_port())
    monkeypatch.setenv("MQCCDTURL", str(write_ccdt(client_env / "d.json", channel(ADMIN, "QM1", dead, dead))))
    raises(CMQC.MQRC_HOST_NOT_AVAILABLE, connect, "QM1")


def test_star_name_selects_the_group_and_does_not_check_the_name(client_env, live, monkeypatch):
    dead = ("127.0.0.1", dead_port())
    monkeypatch.setenv("MQCCDTURL", str(write_ccdt(
        client_env / "groups.json",
        channel(ADMIN, "QM1", live), channel("OTHER.CHL", "QM2", dead), channel("GRP.CHL", "SHOP", dead),
        channel(ADMIN, "SHOP", live))))
    assert connects("*QM1") == "QM1"
    assert connects("*SHOP") == "QM1"  # the group SHOP: GRP.CHL (dead) then DEV.ADMIN.SVRCONN; name not checked
    raises(CMQC.MQRC_Q_MGR_NAME_ERROR, connect, "SHOP")  # without *: the queue manager reached must be SHOP
    raises(CMQC.MQRC_HOST_NOT_AVAILABLE, connect, "QM2")  # QM2's only channel is down
    raises(CMQC.MQRC_Q_MGR_NAME_ERROR, connect, "*QM3")  # no channel of the group


def test_blank_name_uses_the_channels_with_a_blank_queue_manager(client_env, live, monkeypatch):
    dead = ("127.0.0.1", dead_port())
    table = write_ccdt(client_env / "blank.json", channel("NAMED", "QM1", dead), channel(ADMIN, "", live))
    monkeypatch.setenv("MQCCDTURL", str(table))
    assert connects("") == "QM1"
    assert connects("*") == "QM1"
    write_ccdt(table, channel(ADMIN, "QM1", live))  # no blank-named channel
    raises(CMQC.MQRC_Q_MGR_NAME_ERROR, connect, "")


def test_weighted_channels_all_connect(client_env, live, monkeypatch):
    dead = ("127.0.0.1", dead_port())
    manage = {"connectionManagement": {"clientWeight": 50, "affinity": "none"}}
    monkeypatch.setenv("MQCCDTURL", str(write_ccdt(
        client_env / "w.json", channel("W.DOWN", "QM1", dead, **manage), channel(ADMIN, "QM1", live, **manage))))
    for _ in range(6):  # whichever order the weights draw, the dead one is passed over
        assert connects("*QM1") == "QM1"


def test_channel_attributes_from_the_ccdt_reach_the_server(client_env, live, monkeypatch, server):
    sections = {"connectionManagement": {"sharingConversations": 1}, "general": {"maximumMessageLength": 65536}}
    monkeypatch.setenv("MQCCDTURL", str(write_ccdt(client_env / "a.json", channel(ADMIN, "QM1", live, **sections))))
    qm = connect()
    try:
        pcf = ibmmq.PCFExecute(qm)
        status = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({
            ibmmq.CMQCFC.MQCACH_CHANNEL_NAME: ADMIN.encode(),
            ibmmq.CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS: [ibmmq.CMQCFC.MQIACF_ALL]})
        # this connection's instance: the sharing and message size negotiated down to the CCDT's values
        assert (1, 65536) in {(s.get(ibmmq.CMQCFC.MQIACH_MAX_SHARING_CONVS), s.get(ibmmq.CMQCFC.MQIACH_MAX_MSG_LENGTH))
                              for s in status}, status
        pcf.disconnect()
    finally:
        qm.disconnect()


# --------------------------------------------------------------------------------------------------
# Tables refused
# --------------------------------------------------------------------------------------------------

def test_binary_table_refused_with_a_reason(client_env, monkeypatch, caplog):
    (client_env / "AMQCLCHL.TAB").write_bytes(BINARY_TABLE)
    monkeypatch.setenv("MQCHLLIB", str(client_env))
    with caplog.at_level(logging.WARNING, logger="qmlite.ibmmqc"):
        raises(CMQC.MQRC_CLIENT_CONN_ERROR, connect, "QM1")
    assert "binary CCDT" in caplog.text and "AMQCLCHL.TAB" in caplog.text


@pytest.mark.parametrize("kind,text,where", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_table_refused_with_the_field(client_env, monkeypatch, caplog, kind, text, where):
    (client_env / "bad.json").write_text(text)
    monkeypatch.setenv("MQCCDTURL", str(client_env / "bad.json"))
    with caplog.at_level(logging.WARNING, logger="qmlite.ibmmqc"):
        raises(CMQC.MQRC_CLIENT_CONN_ERROR, connect, "QM1")
    assert "bad.json" in caplog.text and f"{where}:" in caplog.text if where else "bad.json" in caplog.text


# --------------------------------------------------------------------------------------------------
# The other direction: qmlite writes the CCDT
# --------------------------------------------------------------------------------------------------

def test_qmlite_ccdt_output_connects_ibmmq(client_env, server, monkeypatch, capsys):
    out = client_env / "written.json"
    assert cli.main(["ccdt", "--port", str(server.port), "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    names = [c["name"] for c in doc["channel"]]
    assert names == sorted(names) and {ADMIN, APP, "SYSTEM.ADMIN.SVRCONN"} <= set(names)
    assert "SYSTEM.DEF.SVRCONN" not in names and "SYSTEM.AUTO.SVRCONN" not in names
    admin = next(c for c in doc["channel"] if c["name"] == ADMIN)
    assert admin["clientConnection"] == {"connection": [{"host": "127.0.0.1", "port": server.port}],
                                         "queueManager": "QM1"}
    monkeypatch.setenv("MQCCDTURL", out.as_uri())
    assert connects("QM1") == "QM1"
    # one channel, to standard output, and a channel that is not a SVRCONN refused
    assert cli.main(["ccdt", "--port", str(server.port), "--for-channel", APP, "--conn-host", "mq.example"]) == 0
    only = json.loads(capsys.readouterr().out)
    assert [(c["name"], c["clientConnection"]["connection"][0]["host"]) for c in only["channel"]] == [
        (APP, "mq.example")]
    assert cli.main(["ccdt", "--port", str(server.port), "--for-channel", "NO.SUCH"]) == 10


def test_qmlite_ccdt_from_the_data_directory(client_env, tmp_path):
    from qmlite.registry.qmgr import QueueManager

    data = tmp_path / "qmdata"
    QueueManager.open(data, "QMX").shutdown()
    out = client_env / "offline.json"
    assert cli.main(["ccdt", "--data-dir", str(data), "--port", str(dead_port()), "--conn-port", "1414",
                     "-o", str(out), "QMX"]) == 0
    doc = json.loads(out.read_text())
    assert {c["clientConnection"]["queueManager"] for c in doc["channel"]} == {"QMX"}
    assert {c["clientConnection"]["connection"][0]["port"] for c in doc["channel"]} == {1414}


def test_rest_resource_returns_the_same_ccdt_and_ibmmq_reads_it_by_url(client_env, server, monkeypatch):
    base = f"http://127.0.0.1:{server.http_port}/ibmmq/rest/v2/admin/qmgr/QM1/ccdt"
    request = urllib.request.Request(base, headers={"Authorization": "Basic YWRtaW46cGFzc3cwcmQ="})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200 and response.headers["content-type"].startswith("application/json")
        served = response.read().decode()
    out = client_env / "cli.json"
    assert cli.main(["ccdt", "--port", str(server.port), "-o", str(out)]) == 0
    assert served == out.read_text()  # the command and the resource write the same file
    monkeypatch.setenv("MQCCDTURL",
                       f"http://admin:passw0rd@127.0.0.1:{server.http_port}/ibmmq/rest/v2/admin/qmgr/QM1/ccdt")
    assert connects("QM1") == "QM1"


@pytest.mark.parametrize("query,status", [("?channel=NO.SUCH", 404), ("?port=0", 400), ("?port=x", 400)])
def test_rest_resource_refusals(server, query, status):
    url = f"http://127.0.0.1:{server.http_port}/ibmmq/rest/v2/admin/qmgr/QM1/ccdt{query}"
    request = urllib.request.Request(url, headers={"Authorization": "Basic YWRtaW46cGFzc3cwcmQ="})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=10)
    assert info.value.code == status


def test_rest_resource_for_an_unknown_qmgr_or_no_user(server):
    url = f"http://127.0.0.1:{server.http_port}/ibmmq/rest/v2/admin/qmgr/QM9/ccdt"
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(urllib.request.Request(url, headers={"Authorization": "Basic YWRtaW46cGFzc3cwcmQ="}))
    assert info.value.code == 404
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(url.replace("QM9", "QM1"))
    assert info.value.code == 401


# --------------------------------------------------------------------------------------------------
# What the CCDT and the configuration file hand on: TLS set-up and reconnect settings
# --------------------------------------------------------------------------------------------------

def test_transmission_security_and_the_ssl_stanza_make_a_tls_connection(client_env, monkeypatch, qmlite_tls_server):
    tls = qmlite_tls_server
    where = ("127.0.0.1", tls.server.port)
    security = {"transmissionSecurity": {"cipherSpecification": "ANY_TLS12_OR_HIGHER",
                                         "certificateLabel": tls.cert_label}}
    table = write_ccdt(client_env / "tls.json", channel(tls.channel, "QM1", where, **security))
    ini = client_env / "tls.ini"
    monkeypatch.setenv("MQCLNTCF", str(write_ini(ini, CHANNELS={"ChannelDefinitionDirectory": str(client_env),
                                                                "ChannelDefinitionFile": "tls.json"},
                                                 SSL={"SSLKeyRepository": tls.key_repository,
                                                      "SSLKeyRepositoryPassword": tls.password,
                                                      "OutboundSNI": "CHANNEL"})))
    assert connects("QM1") == "QM1"
    # the queue manager saw a TLS channel: the CipherSpec it negotiated is in the channel status
    qm = connect("QM1")
    try:
        (shown,) = tls.server.mqsc(f"DISPLAY CHSTATUS({tls.channel}) SSLCIPH")
        assert "SSLCIPH(TLS" in " ".join(shown.text), shown.text
    finally:
        qm.disconnect()
    # the same table without a key repository anywhere: IBM's reason for it
    write_ini(ini, CHANNELS={"ChannelDefinitionDirectory": str(client_env), "ChannelDefinitionFile": "tls.json"})
    raises(2381, connect, "QM1")  # MQRC_KEY_REPOSITORY_ERROR
    # the queue manager's certificate must match certificatePeerName
    monkeypatch.setenv("MQSSLKEYR", tls.key_repository)
    monkeypatch.setenv("MQKEYRPWD", tls.password)
    security["transmissionSecurity"]["certificatePeerName"] = "CN=someone.else"
    write_ccdt(table, channel(tls.channel, "QM1", where, **security))
    raises(2398, connect, "QM1")  # MQRC_SSL_PEER_NAME_MISMATCH


def test_reconnect_settings_handed_to_the_reconnect_code(client_env, live, monkeypatch):
    import ibmmqc

    from qmlite.client import reconnect as RC

    manage = {"connectionManagement": {"defaultReconnect": "yes"}}
    write_ccdt(client_env / "r.json", channel(ADMIN, "QM1", live, **manage))
    ini = {"ChannelDefinitionDirectory": str(client_env), "ChannelDefinitionFile": "r.json"}
    monkeypatch.setenv("MQCLNTCF", str(write_ini(client_env / "r.ini", CHANNELS={
        **ini, "MQReconnectTimeout": "45", "ReconDelay": "(500,100)(1000)"})))
    qm = connect("QM1")
    try:
        conn = ibmmqc._mqi._connections[qm.get_handle()]
        assert conn.reconnect == RC.Settings(RC.ANY, 45.0, ((500, 100), (1000, 0)))
        assert conn.channel.name == ADMIN and [c.name for c in conn.plan.channels] == [ADMIN]
    finally:
        qm.disconnect()
    # the file's DefRecon=DISABLED wins over the channel's and the application's MQCNO_RECONNECT
    monkeypatch.setenv("MQCLNTCF", str(write_ini(client_env / "r.ini", CHANNELS={**ini, "DefRecon": "DISABLED"})))
    qm = connect("QM1", cno=ibmmq.CNO(Options=CMQC.MQCNO_RECONNECT))
    try:
        assert ibmmqc._mqi._connections[qm.get_handle()].reconnect.mode == RC.NONE
    finally:
        qm.disconnect()
