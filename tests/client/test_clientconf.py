"""The client configuration file (client/clientconf.py): where it is found, its CHANNELS and SSL stanzas,
bad values reported, and the reconnect settings the MQCNO, DEFRECON and DefRecon combine into."""

from __future__ import annotations

import pytest

from qmlite.client import clientconf as CF
from qmlite.pcf import constants as C
from qmlite.client import reconnect as RC

INI = """\
# the developer's client configuration
CHANNELS:
  ChannelDefinitionDirectory=/etc/mq
  ChannelDefinitionFile=ccdt.json
  ServerConnectionParms=DEV.APP.SVRCONN/TCP/mq.example.com(1414)
  DefRecon=QMGR
  MQReconnectTimeout=30
  ReconDelay=(1000,200)(2000)(4000,1000)
  Put1DefaultAlwaysSync=YES
  CCSID=1208
SSL:
  SSLKeyRepository=/keys/client.p12
  SSLKeyRepositoryPassword=pa#ss;word
  CertificateLabel=appcert
  OutboundSNI=HOSTNAME
  SSLFipsRequired=NO
TCP:
  KeepAlive=YES
"""


def test_every_key_of_the_two_stanzas():
    cfg = CF.parse(INI, "x.ini")
    assert cfg.problems == ()
    assert cfg.channels == CF.ChannelsStanza(
        channel_definition_directory="/etc/mq", channel_definition_file="ccdt.json",
        server_connection_parms="DEV.APP.SVRCONN/TCP/mq.example.com(1414)", def_recon=CF.MQRCN_Q_MGR,
        reconnect_timeout=30, recon_delay=((1000, 200), (2000, 0), (4000, 1000)), put1_default_always_sync=True,
        ccsid=1208)
    assert cfg.ssl == CF.SSLStanza(key_repository="/keys/client.p12", key_repository_password="pa#ss;word",
                                   certificate_label="appcert", outbound_sni="HOSTNAME", fips_required=False)


def test_names_are_not_case_sensitive():
    cfg = CF.parse("channels:\n  defrecon=yes\nSsl:\n  outboundsni=*\n")
    assert (cfg.channels.def_recon, cfg.ssl.outbound_sni) == (CF.MQRCN_YES, "*")


@pytest.mark.parametrize("line,problem", [
    ("CHANNELS:\n DefRecon=MAYBE", "CHANNELS.DefRecon"),
    ("CHANNELS:\n MQReconnectTimeout=-5", "CHANNELS.MQReconnectTimeout"),
    ("CHANNELS:\n MQReconnectTimeout=soon", "CHANNELS.MQReconnectTimeout"),
    ("CHANNELS:\n CCSID=70000", "CHANNELS.CCSID"),
    ("CHANNELS:\n ReconDelay=1000,200", "CHANNELS.ReconDelay"),
    ("CHANNELS:\n ReconDelay=(1000)x(2000)", "CHANNELS.ReconDelay"),
    ("CHANNELS:\n ServerConnectionParms=DEV.APP.SVRCONN/LU62/BOX", "CHANNELS.ServerConnectionParms"),
    ("CHANNELS:\n ServerConnectionParms=nohost", "CHANNELS.ServerConnectionParms"),
    ("CHANNELS:\n Put1DefaultAlwaysSync=ALWAYS", "CHANNELS.Put1DefaultAlwaysSync"),
    ("SSL:\n OutboundSNI=IP", "SSL.OutboundSNI"),
    ("SSL:\n SSLFipsRequired=1", "SSL.SSLFipsRequired"),
    ("DefRecon=YES", "line 1"),
    ("CHANNELS:\n just words", "line 2"),
])
def test_bad_values_are_reported_and_left_out(line, problem):
    cfg = CF.parse(line)
    assert len(cfg.problems) == 1 and cfg.problems[0].startswith(problem)
    assert cfg.channels.def_recon is None and cfg.channels.reconnect_timeout is None
    assert cfg.channels.server_connection_parms is None and cfg.ssl.outbound_sni is None


def test_location_order(tmp_path, monkeypatch, caplog):
    work, data, home = tmp_path / "work", tmp_path / "data", tmp_path / "home"
    for folder in (work, data, home):
        folder.mkdir()
        (folder / "mqclient.ini").write_text(f"CHANNELS:\n  ChannelDefinitionFile={folder.name}.json\n")
    env = {"MQ_DATA_PATH": str(data), "HOME": str(home)}
    assert CF.load(env, str(work)).channels.channel_definition_file == "work.json"
    (work / "mqclient.ini").unlink()
    assert CF.load(env, str(work)).channels.channel_definition_file == "data.json"
    (data / "mqclient.ini").unlink()
    assert CF.load(env, str(work)).channels.channel_definition_file == "home.json"
    named = tmp_path / "named.ini"
    named.write_text("CHANNELS:\n  ChannelDefinitionFile=named.json\n  DefRecon=SOMETIMES\n")
    with caplog.at_level("WARNING", logger="qmlite.ibmmqc"):
        cfg = CF.load({**env, "MQCLNTCF": str(named)}, str(work))
    assert cfg.channels.channel_definition_file == "named.json" and cfg.path == str(named)
    assert "DefRecon" in caplog.text
    # MQCLNTCF naming a file that is not there: no configuration (the other places are not searched)
    assert CF.load({**env, "MQCLNTCF": str(tmp_path / "none.ini")}, str(work)) == CF.ClientConfig()


def _cfg(def_recon=None, timeout=None, delays=None):
    return CF.ClientConfig(channels=CF.ChannelsStanza(def_recon=def_recon, reconnect_timeout=timeout,
                                                      recon_delay=delays))


OPTIONS = {"AS_DEF": C.MQCNO_RECONNECT_AS_DEF, "RECONNECT": C.MQCNO_RECONNECT,
           "Q_MGR": C.MQCNO_RECONNECT_Q_MGR, "DISABLED": C.MQCNO_RECONNECT_DISABLED}
DEFAULTS = {"NO": CF.MQRCN_NO, "YES": CF.MQRCN_YES, "QMGR": CF.MQRCN_Q_MGR, "DISABLED": CF.MQRCN_DISABLED}
EXPECTED = {  # (MQCNO option, effective default) -> mode, IBM's DefReconnect and MQCNO_RECONNECT_* rules
    ("AS_DEF", "NO"): "NO", ("AS_DEF", "YES"): "YES", ("AS_DEF", "QMGR"): "QMGR", ("AS_DEF", "DISABLED"): "DISABLED",
    ("RECONNECT", "NO"): "YES", ("RECONNECT", "YES"): "YES", ("RECONNECT", "QMGR"): "YES",
    ("RECONNECT", "DISABLED"): "DISABLED",
    ("Q_MGR", "NO"): "QMGR", ("Q_MGR", "YES"): "QMGR", ("Q_MGR", "QMGR"): "QMGR", ("Q_MGR", "DISABLED"): "DISABLED",
    ("DISABLED", "NO"): "NO", ("DISABLED", "YES"): "NO", ("DISABLED", "QMGR"): "NO",
    ("DISABLED", "DISABLED"): "DISABLED",
}


# The file's reconnect keys go to the one reconnect rule (client/reconnect.py ``resolve``), which combines
# them with the MQCNO option and the channel's DEFRECON: NO and DISABLED never reconnect, YES to any
# queue manager of the list, QMGR to the same one only.
_MODE = {"NO": RC.NONE, "DISABLED": RC.NONE, "YES": RC.ANY, "QMGR": RC.SAME_QMGR}


@pytest.mark.parametrize("option,default", sorted(EXPECTED))
def test_reconnect_mode_from_the_channel_default(option, default):
    got = RC.resolve(OPTIONS[option], DEFAULTS[default], client=CF.reconnect_client_settings(_cfg()))
    assert got.mode == _MODE[EXPECTED[option, default]]
    assert got.reconnects == (EXPECTED[option, default] in ("YES", "QMGR"))


@pytest.mark.parametrize("option,default", sorted(EXPECTED))
def test_the_files_defrecon_overrides_the_channels(option, default):
    # the channel says the opposite; the file's DefRecon wins
    channel = CF.MQRCN_DISABLED if default != "DISABLED" else CF.MQRCN_YES
    got = RC.resolve(OPTIONS[option], channel, client=CF.reconnect_client_settings(_cfg(def_recon=DEFAULTS[default])))
    assert got.mode == _MODE[EXPECTED[option, default]]


def test_timeout_and_delays():
    assert RC.resolve(0, 0, client=CF.reconnect_client_settings(_cfg())) == RC.Settings(RC.NONE, 1800.0,
                                                                                        RC.DEFAULT_DELAYS_MS)
    got = RC.resolve(C.MQCNO_RECONNECT, 0, client=CF.reconnect_client_settings(_cfg(timeout=5, delays=((100, 50),))))
    assert (got.timeout_s, got.delays_ms) == (5, ((100, 50),))


@pytest.mark.parametrize("value,parsed", [
    ("CH/TCP/host(1)", ("CH", "TCP", "host(1)")), ("CH/tcp/'h(1),g(2)'", ("CH", "TCP", "h(1),g(2)")),
    ("CH/LU62/x", None), ("/TCP/h", None), ("CH/TCP/", None), ("CH", None), ("", None)])
def test_server_parms(value, parsed):
    assert CF.parse_server(value) == parsed
