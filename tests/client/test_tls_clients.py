"""TLS channels as production clients use them, through IBM's ``ibmmq`` and through pymqi (each test runs
with both), against a queue manager this module starts with a test PKI mounted as IBM's developer
container mounts ``/etc/mqm/pki``: every ANY_* CipherSpec and a named TLS 1.2 and TLS 1.3 one, mutual
TLS, SSLPEER, CHLAUTH SSLPEERMAP, a channel's own certificate chosen by SNI, the client's SSLPeerName,
the refusals IBM's clients report, MQSSLKEYR/MQKEYRPWD, and REFRESH SECURITY TYPE(SSL)."""

from __future__ import annotations

import ctypes
import dataclasses
import os
import shutil

import pytest

ibmmq = pytest.importorskip("ibmmq")
if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
    import pymqi
else:
    pymqi = pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

from qmlite.keys import testpki as pki  # noqa: E402
from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.pcf import cipherspecs  # noqa: E402
from qmlite.pcf import constants as C  # noqa: E402

CA_DN = "CN=qmlite test CA,OU=CA,O=qmlite,C=GB"
N12, N13 = "ECDHE_RSA_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"
# channel -> its SSLCIPH: each ANY_* alias, a named TLS 1.2 and a named TLS 1.3 CipherSpec
SPEC_CHANNELS = {"TLS.ANY": "ANY", "TLS.ANY12": "ANY_TLS12", "TLS.ANY12H": "ANY_TLS12_OR_HIGHER",
                 "TLS.ANY13": "ANY_TLS13", "TLS.ANY13H": "ANY_TLS13_OR_HIGHER", "TLS.N12": N12, "TLS.N13": N13}
SETUP = "\n".join(
    [f"DEFINE CHANNEL({ch}) CHLTYPE(SVRCONN) SSLCIPH({spec}) SSLCAUTH(OPTIONAL) MCAUSER('app') REPLACE"
     for ch, spec in SPEC_CHANNELS.items()] + [
        "DEFINE CHANNEL(TLS.MUTUAL) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED) MCAUSER('app')",
        "DEFINE CHANNEL(TLS.PEER.OK) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED) "
        "SSLPEER('CN=app, OU=Test, OU=Clients') MCAUSER('app')",
        "DEFINE CHANNEL(TLS.PEER.WILD) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('O=QMLITE;CN=a*') "
        "MCAUSER('app')",
        "DEFINE CHANNEL(TLS.PEER.BAD) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=app, OU=Clients') "
        "MCAUSER('app')",
        "DEFINE CHANNEL(TLS.MAPPED) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) MCAUSER('nobody')",
        "DEFINE CHANNEL(TLS.UNMAPPED) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) MCAUSER('nobody')",
        "DEFINE CHANNEL(TLS.CHL1) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) CERTLABL('chl1cert') MCAUSER('app')",
        "SET CHLAUTH('TLS.*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) ACTION(REPLACE)",
        f"SET CHLAUTH(TLS.MAPPED) TYPE(SSLPEERMAP) SSLPEER('CN=app,OU=Test') SSLCERTI('{CA_DN}') "
        "USERSRC(MAP) MCAUSER('app') ACTION(REPLACE)",
        "SET CHLAUTH(TLS.UNMAPPED) TYPE(SSLPEERMAP) SSLPEER('CN=someone') USERSRC(MAP) MCAUSER('app') ACTION(REPLACE)",
    ])


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return pki.init(tmp_path_factory.mktemp("pki"), extra_labels=("chl1cert",))


@pytest.fixture(scope="module")
def server(tmp_path_factory, made):
    with running_qmlite(tmp_path_factory.mktemp("tls"), pki_dir=str(made.pki_dir)) as srv:
        for result in srv.mqsc(SETUP):
            assert result.completion_code == 0, result.text
        yield srv


# ---- the two client libraries, driven alike ------------------------------------------------------------
@dataclasses.dataclass
class Driver:
    name: str
    mod: object

    def connect(self, server, channel: str, cipher: str | None = None, *, repo: str | None = None,
                label: str | None = None, peer: str | None = None, password: str | None = None, sco: bool = True):
        m = self.mod
        cd = m.CD()
        cd.ChannelName = channel.encode()
        cd.ConnectionName = server.conn_name.encode()
        cd.ChannelType = C.MQCHT_CLNTCONN
        cd.TransportType = C.MQXPT_TCP
        if cipher:
            cd.SSLCipherSpec = cipher.encode()
        keep = []
        if peer is not None:
            if self.name == "ibmmq":
                cd.SSLPeerNamePtr = peer.encode()  # ibmmq points the MQCD at it
            else:  # pymqi passes the pointer as given
                buf = ctypes.create_string_buffer(peer.encode())
                keep.append(buf)
                cd.SSLPeerNamePtr, cd.SSLPeerNameLength = ctypes.addressof(buf), len(peer)
        kw = {"cd": cd}
        if sco:
            s = m.SCO()
            if repo is not None:
                s.KeyRepository = repo.encode()
            if label is not None:
                s.CertificateLabel = label.encode()
            if password is not None and self.name == "ibmmq":
                s.Version = C.MQSCO_VERSION_6  # KeyRepoPassword came with version 6 (pymqi's SCO stops at 5)
                s.KeyRepoPassword = password.encode()
            kw["sco"] = s
        qm = m.QueueManager(None)
        qm.connect_with_options(server.qmgr, **kw)
        return qm

    def reason(self, fn, *args, **kw) -> int:
        with pytest.raises(self.mod.MQMIError) as info:
            fn(*args, **kw)
        return info.value.reason

    def roundtrip(self, qm, payload: bytes) -> bytes:
        m = self.mod
        q = m.Queue(qm, b"DEV.QUEUE.1", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
        try:
            q.put(payload)
            return q.get()
        finally:
            q.close()


@pytest.fixture(params=["ibmmq", "pymqi"])
def client(request, made):
    drv = Driver(request.param, ibmmq if request.param == "ibmmq" else pymqi)
    drv.repo, drv.label = made.client_stem, made.client_label
    return drv


def tls_connect(client, server, channel, cipher="ANY_TLS12_OR_HIGHER", **kw):
    kw.setdefault("repo", client.repo)
    kw.setdefault("label", client.label)
    return client.connect(server, channel, cipher, **kw)


def chstatus(server, channel: str) -> dict:
    """DISPLAY CHSTATUS's attributes of the one running instance of ``channel``, as runmqsc prints them."""
    import re

    text = " ".join(server.mqsc(f"DISPLAY CHSTATUS({channel}) ALL")[0].text)
    return {k: v.strip() for k, v in re.findall(r"(\w+)\(([^()]*(?:\([^()]*\))?[^()]*)\)", text)}


# ---- CipherSpecs -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("channel", sorted(SPEC_CHANNELS))
def test_each_cipherspec_with_the_same_on_the_client(client, server, channel):
    spec = SPEC_CHANNELS[channel]
    qm = tls_connect(client, server, channel, spec)
    try:
        assert client.roundtrip(qm, f"over {spec}".encode()) == f"over {spec}".encode()
        shown = chstatus(server, channel)["SSLCIPH"]
        if spec in (N12, N13):
            assert shown == spec  # the named CipherSpec itself was negotiated
        else:
            negotiated = cipherspecs.lookup(shown)
            assert negotiated is not None and not negotiated.alias  # IBM's name of the cipher in use
            assert set(negotiated.protocols) <= set(cipherspecs.lookup(spec).protocols)
    finally:
        qm.disconnect()


def test_an_or_higher_client_settles_on_the_channels_tls12(client, server):
    qm = tls_connect(client, server, "TLS.ANY12", "ANY_TLS12_OR_HIGHER")
    try:
        assert cipherspecs.lookup(chstatus(server, "TLS.ANY12")["SSLCIPH"]).protocols == (cipherspecs.TLS12,)
    finally:
        qm.disconnect()


@pytest.mark.parametrize("channel, cipher", [
    ("TLS.ANY12", "ANY_TLS13"),  # protocol
    ("TLS.ANY13", "ANY_TLS12"),
    ("TLS.N12", "ECDHE_RSA_AES_256_GCM_SHA384"),  # another cipher, same protocol
    ("TLS.N12", N13),
    ("TLS.N13", "TLS_AES_256_GCM_SHA384"),
])
def test_a_cipherspec_mismatch_is_refused_with_2393(client, server, channel, cipher):
    assert client.reason(tls_connect, client, server, channel, cipher) == C.MQRC_SSL_INITIALIZATION_ERROR


@pytest.fixture(scope="module")
def refused(tmp_path_factory, made):
    from tests.support.badcerts import refused_client_repositories

    return refused_client_repositories(made, tmp_path_factory.mktemp("refused"))


@pytest.mark.parametrize("certificate", ["unknown CA", "expired"])
@pytest.mark.parametrize("channel", ["TLS.N13", "TLS.ANY13", "TLS.ANY12H", "TLS.ANY12", "TLS.N12"])
def test_a_refused_client_certificate_gives_2393_under_every_cipherspec(client, server, refused, channel,
                                                                        certificate):
    # Under TLS 1.3 the queue manager judges the client's certificate after the client has finished its
    # side of the handshake: the refusal (the server's alert) is read where the ID exchange is awaited.
    spec = SPEC_CHANNELS[channel]
    assert client.reason(tls_connect, client, server, channel, spec, repo=refused[certificate], label="any") \
        == C.MQRC_SSL_INITIALIZATION_ERROR


def test_a_plain_client_on_a_tls_channel_gets_2059(client, server):
    assert client.reason(client.connect, server, "TLS.ANY12H") == C.MQRC_Q_MGR_NOT_AVAILABLE


def test_a_tls_client_on_a_plain_channel_gets_2393(client, server):
    assert client.reason(tls_connect, client, server, "DEV.APP.SVRCONN") == C.MQRC_SSL_INITIALIZATION_ERROR


def test_plain_clients_still_work_beside_tls(client, server):
    qm = client.connect(server, "DEV.APP.SVRCONN")
    try:
        assert client.roundtrip(qm, b"plain") == b"plain"
    finally:
        qm.disconnect()


# ---- mutual TLS, SSLPEER, SSLPEERMAP ---------------------------------------------------------------------
def test_mutual_tls_and_what_channel_status_shows(client, server, made):
    qm = tls_connect(client, server, "TLS.MUTUAL")
    try:
        status = chstatus(server, "TLS.MUTUAL")
        assert "CN=app,OU=Test,OU=Clients,O=qmlite,C=GB" in status["SSLPEER"]
        assert status["SSLPEER"].startswith("SERIALNUMBER=")
        assert status["SSLCERTI"] == CA_DN
        assert status["SSLKEYDA"] and status["SSLKEYTI"]
        assert status["SECPROT"] in ("TLSV12", "TLSV13")
    finally:
        qm.disconnect()


def test_sslcauth_required_refuses_a_client_without_a_certificate(client, server, made):
    # A key repository holding only the CA: the client trusts the queue manager but has no certificate.
    trust_only = str(made.ca_crt)
    assert client.reason(tls_connect, client, server, "TLS.MUTUAL", repo=trust_only, label=None) \
        == C.MQRC_SSL_INITIALIZATION_ERROR
    qm = tls_connect(client, server, "TLS.ANY12H", repo=trust_only, label=None)  # SSLCAUTH(OPTIONAL)
    try:
        assert chstatus(server, "TLS.ANY12H")["SSLPEER"] == ""
    finally:
        qm.disconnect()


@pytest.mark.parametrize("channel", ["TLS.PEER.OK", "TLS.PEER.WILD"])
def test_sslpeer_matching_the_client_dn(client, server, channel):
    qm = tls_connect(client, server, channel)
    qm.disconnect()


def test_sslpeer_not_matching_is_refused(client, server):
    # SSLPEER('CN=app, OU=Clients'): the certificate's first OU is Test, so the OUs do not match in order.
    assert client.reason(tls_connect, client, server, "TLS.PEER.BAD") == C.MQRC_SSL_INITIALIZATION_ERROR


def test_sslpeermap_chooses_the_mcauser(client, server):
    qm = tls_connect(client, server, "TLS.MAPPED")  # the channel's MCAUSER is 'nobody'; the map says 'app'
    try:
        assert chstatus(server, "TLS.MAPPED")["MCAUSER"] == "app"
        assert client.roundtrip(qm, b"mapped") == b"mapped"
    finally:
        qm.disconnect()
    # No SSLPEERMAP matches this certificate: the connection runs as 'nobody', who may not connect.
    assert client.reason(tls_connect, client, server, "TLS.UNMAPPED") == C.MQRC_NOT_AUTHORIZED


# ---- the queue manager's certificate: the client's SSLPeerName, per-channel CERTLABL by SNI ---------------
def test_the_client_checks_the_queue_managers_dn(client, server):
    qm = tls_connect(client, server, "TLS.ANY12H", peer="CN=QM1, OU=Queue managers")
    qm.disconnect()
    assert client.reason(tls_connect, client, server, "TLS.ANY12H", peer="CN=chl1cert") \
        == C.MQRC_SSL_PEER_NAME_MISMATCH
    assert client.reason(tls_connect, client, server, "TLS.ANY12H", peer="CN") == C.MQRC_SSL_PEER_NAME_ERROR


def test_a_channels_certlabl_is_served_through_sni(client, server):
    qm = tls_connect(client, server, "TLS.CHL1", peer="CN=chl1cert")  # the channel's own certificate
    qm.disconnect()
    assert client.reason(tls_connect, client, server, "TLS.CHL1", peer="CN=QM1") == C.MQRC_SSL_PEER_NAME_MISMATCH


# ---- key repositories on the client: the environment, a .kdb -------------------------------------------
def test_mqsslkeyr_and_mqkeyrpwd(client, server, made, tmp_path, monkeypatch):
    shutil.copy(made.client_p12, tmp_path / "env.p12")  # no stash: the password must come from MQKEYRPWD
    monkeypatch.setenv("MQSSLKEYR", str(tmp_path / "env"))
    monkeypatch.setenv("MQKEYRPWD", made.password)
    monkeypatch.setenv("MQCERTLABL", made.client_label)
    qm = client.connect(server, "TLS.MUTUAL", "ANY_TLS12_OR_HIGHER", sco=False)
    qm.disconnect()
    monkeypatch.setenv("MQKEYRPWD", "wrong")
    assert client.reason(client.connect, server, "TLS.MUTUAL", "ANY_TLS12_OR_HIGHER", sco=False) \
        == C.MQRC_KEY_REPOSITORY_ERROR


def test_the_mqsco_password_without_a_stash(server, made, tmp_path):
    shutil.copy(made.client_p12, tmp_path / "pw.p12")
    drv = Driver("ibmmq", ibmmq)
    qm = drv.connect(server, "TLS.MUTUAL", "ANY_TLS12_OR_HIGHER", repo=str(tmp_path / "pw.p12"),
                     label=made.client_label, password=made.password)
    qm.disconnect()


def test_a_cms_kdb_gets_2381(client, server, tmp_path):
    (tmp_path / "key.kdb").write_bytes(b"\x00" * 32)
    assert client.reason(tls_connect, client, server, "TLS.ANY12H", repo=str(tmp_path / "key")) \
        == C.MQRC_KEY_REPOSITORY_ERROR


# ---- when SSLKEYR is read: the first TLS handshake, then REFRESH SECURITY TYPE(SSL) (decisions KR1-KR3) ----
def test_sslkeyr_is_read_at_the_first_tls_handshake_then_only_at_refresh(client, tmp_path_factory):
    first = pki.init(tmp_path_factory.mktemp("first"))
    second = pki.init(tmp_path_factory.mktemp("second"))
    shutil.copy(second.qmgr_p12, second.root / "nostash.p12")  # its password given as KEYRPWD instead
    m = client.mod
    with running_qmlite(tmp_path_factory.mktemp("refresh")) as srv:  # no key repository at start
        for result in srv.mqsc("DEFINE CHANNEL(TLS.R) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) "
                               "SSLCAUTH(OPTIONAL) MCAUSER('app')\n"
                               "SET CHLAUTH(TLS.R) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)"):
            assert result.completion_code == 0, result.text
        admin = m.connect(srv.qmgr, srv.admin_channel, srv.conn_name, srv.admin_user, srv.admin_password)
        pcf = m.PCFExecute(admin)

        def attempt(made):
            return client.connect(srv, "TLS.R", "ANY_TLS12_OR_HIGHER", repo=made.client_stem, label=made.client_label)

        def refresh_ssl():
            pcf.MQCMD_REFRESH_SECURITY({C.MQIACF_SECURITY_TYPE: m.CMQCFC.MQSECTYPE_SSL})

        try:
            # Nothing at SSLKEYR: the handshake fails, and no TLS environment is kept for the next one.
            assert client.reason(attempt, first) == C.MQRC_SSL_INITIALIZATION_ERROR
            # SSLKEYR changed by PCF before any TLS channel ran: the first one reads it, no refresh needed.
            pcf.MQCMD_CHANGE_Q_MGR({C.MQCA_SSL_KEY_REPOSITORY: first.qmgr_stem.encode()})
            attempt(first).disconnect()
            # Changed once a TLS channel has run: the environment set up then stays until a refresh.
            pcf.MQCMD_CHANGE_Q_MGR({C.MQCA_SSL_KEY_REPOSITORY: str(second.root / "nostash").encode(),
                                    C.MQCA_SSL_KEY_REPO_PASSWORD: second.password.encode()})
            attempt(first).disconnect()
            assert client.reason(attempt, second) == C.MQRC_SSL_INITIALIZATION_ERROR  # first's certificate served
            refresh_ssl()
            attempt(second).disconnect()  # the new CA's certificate is served now
            assert client.reason(attempt, first) == C.MQRC_SSL_INITIALIZATION_ERROR  # the old CA is not trusted
            # A repository that cannot be read at a refresh leaves the one in use (MQSC this time).
            refreshed = srv.mqsc("ALTER QMGR SSLKEYR('/nonexistent/key')\nREFRESH SECURITY TYPE(SSL)")
            assert refreshed[1].completion_code == 0
            attempt(second).disconnect()
        finally:
            admin.disconnect()


# ---- definitions: SSLCIPH and SSLPEER are checked when entered ------------------------------------------
def test_every_ibm_cipherspec_name_is_accepted_and_others_refused(server):
    admin = ibmmq.connect(server.qmgr, server.admin_channel, server.conn_name, server.admin_user,
                          server.admin_password)
    try:
        pcf = ibmmq.PCFExecute(admin)
        for name in cipherspecs.CIPHER_SPECS:
            assert pcf.MQCMD_CREATE_CHANNEL({C.MQCACH_CHANNEL_NAME: b"TLS.DEF", C.MQIACH_CHANNEL_TYPE: C.MQCHT_SVRCONN,
                                             C.MQCACH_SSL_CIPHER_SPEC: name.encode(),
                                             C.MQIACF_REPLACE: C.MQRP_YES}) == []
        for bad, param, reason in [
                ({C.MQCACH_SSL_CIPHER_SPEC: b"TLS_RSA_WITH_AES_128_CBC_SHA"}, C.MQCACH_SSL_CIPHER_SPEC,
                 C.MQRCCF_SSL_CIPHER_SPEC_ERROR),
                ({C.MQCACH_SSL_PEER_NAME: b"CN"}, C.MQCACH_SSL_PEER_NAME, C.MQRCCF_SSL_PEER_NAME_ERROR)]:
            with pytest.raises(ibmmq.MQMIError) as info:
                pcf.MQCMD_CHANGE_CHANNEL({C.MQCACH_CHANNEL_NAME: b"TLS.DEF", C.MQIACH_CHANNEL_TYPE: C.MQCHT_SVRCONN,
                                          **bad})
            assert info.value.reason == reason
        pcf.MQCMD_DELETE_CHANNEL({C.MQCACH_CHANNEL_NAME: b"TLS.DEF"})
    finally:
        admin.disconnect()


# ---- the pytest fixture --------------------------------------------------------------------------------
def test_the_qmlite_tls_server_fixture(qmlite_tls_server):
    qm = qmlite_tls_server.connect()  # qmlite's own client over TLS
    assert qm.connected
    qm.close()
    cd = ibmmq.CD(ChannelName=qmlite_tls_server.channel.encode(),
                  ConnectionName=qmlite_tls_server.server.conn_name.encode(),
                  SSLCipherSpec=qmlite_tls_server.cipher_spec.encode())
    sco = ibmmq.SCO(KeyRepository=qmlite_tls_server.key_repository.encode(),
                    CertificateLabel=qmlite_tls_server.cert_label.encode())
    mq = ibmmq.QueueManager(None)
    mq.connect_with_options(qmlite_tls_server.server.qmgr, cd=cd, sco=sco)
    assert mq.inquire(C.MQCA_Q_MGR_NAME).strip() == b"QM1"
    mq.disconnect()


def test_the_queue_managers_certlabl(client, made, tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("certlabl"), pki_dir=str(made.pki_dir)) as srv:
        for result in srv.mqsc("DEFINE CHANNEL(TLS.Q) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) "
                               "SSLCAUTH(OPTIONAL) MCAUSER('app')\n"
                               "SET CHLAUTH(TLS.Q) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)"):
            assert result.completion_code == 0, result.text
        tls_connect(client, srv, "TLS.Q", peer="CN=QM1").disconnect()  # CERTLABL(ibmwebspheremqqm1)
        assert srv.mqsc("ALTER QMGR CERTLABL('chl1cert')\nREFRESH SECURITY TYPE(SSL)")[1].completion_code == 0
        tls_connect(client, srv, "TLS.Q", peer="CN=chl1cert").disconnect()
        assert client.reason(tls_connect, client, srv, "TLS.Q", peer="CN=QM1") == C.MQRC_SSL_PEER_NAME_MISMATCH
