"""What pymqi's C extension (pymqe.c, pymqi 1.12.13) does to MQCONNX's structures before the MQI sees
them, through pymqi written as applications write it (docs/extension-rules.md): pymqe.c builds an MQCNO
version 5 with the options alone, an MQCSP version 1 from the user and password, and passes pymqi's
MQCD and MQSCO as they are -- no version is raised, so what an application cannot say in those versions
(a CCDT URL, a key-repository password, an ApplName) comes from the environment, as with IBM's library."""

from __future__ import annotations

import os
import sys

import pytest

if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
    import pymqi
else:
    pymqi = pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

from pymqi import CMQC  # noqa: E402

from ibmmqc import _mqi  # noqa: E402
from ibmmqc import native as N  # noqa: E402
from tests.support.ccdtkit import channel, client_env, write_ccdt  # noqa: E402
from tests.support.tlsqm import (  # noqa: E402
    CIPHER, TLS_CHANNEL, appltags, made, roundtrip_and_disconnect, server, tls_server, unstashed_repository)

__all__ = ["client_env", "made", "server", "tls_server"]  # fixtures, used by name

APP = "DEV.APP.SVRCONN"


def app_cd(server, name: str = APP):
    cd = pymqi.CD()
    cd.ChannelName, cd.ConnectionName = name.encode(), server.conn_name.encode()
    return cd


@pytest.fixture
def seen(monkeypatch):
    """The structures pymqe hands the MQI, as decoded from the bytes (the call goes on unchanged)."""
    got = {}
    real = _mqi.connx

    def spy(name, cno, cd, csp, sco, bno):
        got.update(cno=N.MQCNO.decode(cno), csp=N.MQCSP.decode(csp) if csp else None, sco=sco, cd=cd, bno=bno)
        return real(name, cno, cd, csp, sco, bno)

    monkeypatch.setattr(_mqi, "connx", spy)
    return got


def test_pymqe_builds_an_mqcno_v5_and_an_mqcsp_v1_and_raises_nothing(server, seen):
    qm = pymqi.QueueManager(None)
    qm.connect_with_options("QM1", cd=app_cd(server), user="app", password="passw0rd",
                            opts=CMQC.MQCNO_HANDLE_SHARE_BLOCK)
    qm.disconnect()
    cno, csp = seen["cno"], seen["csp"]
    assert (cno.Version, cno.Options, cno.ApplName) == (5, CMQC.MQCNO_HANDLE_SHARE_BLOCK, "")
    assert (csp.Version, csp.AuthenticationType) == (1, CMQC.MQCSP_AUTH_USER_ID_AND_PWD)
    assert seen["sco"] == pymqi.SCO().pack() and seen["bno"] is None  # pymqi's default MQSCO v5, as packed
    assert N.MQCD.decode(seen["cd"]).Version == 6  # pymqi's CD default: not raised by pymqe.c


def test_without_user_and_password_there_is_no_mqcsp(server, seen):
    qm = pymqi.QueueManager(None)
    qm.connect_with_options("QM1", cd=app_cd(server))  # DEV.APP.SVRCONN lets app in without a password
    qm.disconnect()
    assert seen["csp"] is None


def test_the_appltag_is_the_program_name(server):
    """pymqe.c's MQCNO v5 has no ApplName: the client library names the connection after the program."""
    qm = pymqi.QueueManager(None)
    qm.connect_with_options("QM1", cd=app_cd(server), user="app", password="passw0rd")
    try:
        text = appltags(server, APP)
        assert f"APPLTAG({(os.path.basename(sys.argv[0]) or 'python')[-28:]})" in text
    finally:
        qm.disconnect()


def test_a_ccdt_comes_from_mqccdturl(client_env, server, monkeypatch):
    """pymqi has no MQCNO to carry a CCDTUrl: the CCDT is named by the environment."""
    table = write_ccdt(client_env / "ccdt.json", channel(APP, "QM1", ("127.0.0.1", server.port)))
    monkeypatch.setenv("MQCCDTURL", table.as_uri())
    qm = pymqi.QueueManager(None)
    qm.connect_with_options("QM1", user="app", password="passw0rd")
    try:
        assert qm.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == b"QM1"
    finally:
        qm.disconnect()


def test_the_mqsco_v5_with_the_password_from_mqkeyrpwd(tls_server, made, tmp_path, monkeypatch):
    """pymqi's MQSCO stops at version 5 (no KeyRepoPassword) and pymqe.c raises nothing: KeyRepository and
    CertificateLabel are read from it, the password of a repository without a stash from MQKEYRPWD."""
    for name in ("MQSSLKEYR", "MQKEYRPWD", "MQCERTLABL"):
        monkeypatch.delenv(name, raising=False)
    cd = app_cd(tls_server, TLS_CHANNEL)
    cd.SSLCipherSpec = CIPHER.encode()  # pymqi raises the MQCD to 7 for this itself
    sco = pymqi.SCO()
    sco.KeyRepository = str(unstashed_repository(made, tmp_path)).encode()
    sco.CertificateLabel = made.client_label.encode()

    def connect():
        qm = pymqi.QueueManager(None)
        qm.connect_with_options("QM1", cd=cd, sco=sco)
        return qm

    with pytest.raises(pymqi.MQMIError) as info:
        connect()
    assert info.value.reason == CMQC.MQRC_KEY_REPOSITORY_ERROR  # no stash, no password
    monkeypatch.setenv("MQKEYRPWD", made.password)
    qm = connect()
    assert roundtrip_and_disconnect(pymqi, qm) == b"over tls"
