"""Key repositories as IBM MQ 9.3+ reads them (PKCS#12 with a stash, PEM, the container's /etc/mqm/pki
layout, a stem), a CMS .kdb refused with how to convert it, ``qmlite tls init``, and the reasons the
client's TLS set-up gives before any socket opens."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from qmlite.keys import repository as keyrepo
from qmlite.keys import testpki as pki
from qmlite.cli import main as cli_main
from qmlite.client import tls as client_tls
from qmlite.pcf import constants as C


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return pki.init(tmp_path_factory.mktemp("pki"), extra_labels=("chl1cert",))


def test_tls_init_writes_a_ca_a_queue_manager_and_a_client_certificate(tmp_path, capsys):
    assert cli_main(["tls", "init", str(tmp_path / "out"), "--qmgr", "QMX", "--user", "Bob", "--label", "extra"]) == 0
    out = json.loads(capsys.readouterr().out)
    root = tmp_path / "out"
    assert out["qmgr_label"] == "ibmwebspheremqqmx" and out["client_label"] == "ibmwebspheremqbob"
    for name in ("ca.crt", "qmgr.p12", "qmgr.sth", "qmgr.pem", "client.p12", "client.sth", "client.pem",
                 "extra.p12", "pki/keys/ibmwebspheremqqmx/tls.key", "pki/keys/ibmwebspheremqqmx/tls.crt",
                 "pki/keys/ibmwebspheremqqmx/ca.crt", "pki/keys/extra/tls.crt", "pki/trust/0/ca.crt"):
        assert (root / name).is_file(), name
    assert (root / "qmgr.p12").stat().st_mode & 0o077 == 0  # private keys are the owner's only
    assert out["client_dn"] == "CN=Bob,OU=Test,OU=Clients,O=qmlite,C=GB"
    repo = keyrepo.load(out["client_key_repository"])  # the stem, its stash giving the password
    assert repo.labels == ["ibmwebspheremqbob"]


def test_a_pkcs12_repository_by_stem_with_its_stash(made):
    repo = keyrepo.load(made.qmgr_stem)
    assert repo.source.endswith("qmgr.p12")
    entry = repo.entry("IBMWEBSPHEREMQQM1")  # labels compare irrespective of case
    assert entry is not None and keyrepo.name_pairs(entry.cert.subject)[0] == ("CN", "QM1")
    assert [keyrepo.name_pairs(c.subject)[0][1] for c in repo.trusted] == ["qmlite test CA"]
    assert repo.entry("someone.else") is None


def test_a_pkcs12_repository_with_the_password_given_and_a_wrong_one(made, tmp_path):
    p12 = tmp_path / "k.p12"
    shutil.copy(made.client_p12, p12)  # no stash beside this one
    assert keyrepo.load(str(p12), made.password).labels == [made.client_label]
    with pytest.raises(keyrepo.KeyRepositoryError) as info:
        keyrepo.load(str(p12), "wrong")
    assert info.value.reason == C.MQRC_KEY_REPOSITORY_ERROR and not info.value.missing
    with pytest.raises(keyrepo.KeyRepositoryError):
        keyrepo.load(str(p12))  # no password and no stash


def test_a_stash_is_the_password_xor_f5(tmp_path):
    path = tmp_path / "key.p12"
    sth = keyrepo.write_stash(path, "s3cret")
    raw = sth.read_bytes()
    assert len(raw) == 1024 and raw[:6] == bytes(c ^ 0xF5 for c in b"s3cret") and raw[6] == 0xF5
    assert keyrepo.read_stash(path) == "s3cret"
    sth.write_bytes(b"\x01\x02\x03")  # no terminator: not GSKit's classic stash
    with pytest.raises(keyrepo.KeyRepositoryError, match="KEYRPWD"):
        keyrepo.read_stash(path)


def test_a_pem_repository_and_the_stem_rule(made, tmp_path):
    shutil.copy(made.client_pem, tmp_path / "mine.pem")
    repo = keyrepo.load(str(tmp_path / "mine"))  # no mine.p12: mine.pem beside the stem serves
    assert repo.source.endswith("mine.pem")
    assert repo.entry("any label at all") is not None  # a PEM key answers to any label
    shutil.copy(made.client_p12, tmp_path / "mine.p12")
    shutil.copy(made.client_p12.with_suffix(".sth"), tmp_path / "mine.sth")
    assert keyrepo.load(str(tmp_path / "mine")).source.endswith("mine.p12")  # .p12 is preferred


def test_the_container_pki_layout(made):
    repo = keyrepo.load(str(made.pki_dir))
    assert sorted(repo.labels) == sorted([made.qmgr_label, "chl1cert"])  # keys/<label>/ names the label
    assert keyrepo.name_pairs(repo.entry("chl1cert").cert.subject)[0] == ("CN", "chl1cert")
    assert repo.trusted  # trust/0/ca.crt and each keys/<label>/ca.crt


@pytest.mark.parametrize("layout", ["explicit", "stem"])
def test_a_cms_kdb_is_refused_with_how_to_convert_it(tmp_path, layout):
    (tmp_path / "key.kdb").write_bytes(b"\x00" * 64)
    path = str(tmp_path / "key.kdb") if layout == "explicit" else str(tmp_path / "key")
    with pytest.raises(keyrepo.KeyRepositoryError) as info:
        keyrepo.load(path)
    assert info.value.reason == C.MQRC_KEY_REPOSITORY_ERROR
    assert "runmqakm -keydb -convert" in info.value.detail and "p12" in info.value.detail


def test_a_missing_repository(tmp_path):
    for path in (str(tmp_path / "nothing"), str(tmp_path / "nothing.p12")):
        with pytest.raises(keyrepo.KeyRepositoryError) as info:
            keyrepo.load(path)
        assert info.value.missing and info.value.reason == C.MQRC_KEY_REPOSITORY_ERROR


@pytest.mark.parametrize("kwargs, reason", [
    ({"cipher_spec": "NOT_A_CIPHERSPEC"}, C.MQRC_SSL_INITIALIZATION_ERROR),
    ({"peer_name": "CN"}, C.MQRC_SSL_PEER_NAME_ERROR),
    ({"key_repository": ""}, C.MQRC_KEY_REPOSITORY_ERROR),
    ({"key_repository": "/nonexistent/key"}, C.MQRC_KEY_REPOSITORY_ERROR),
    ({"cert_label": "no.such.label"}, C.MQRC_KEY_REPOSITORY_ERROR),
    ({"password": "wrong", "key_repository": "COPY"}, C.MQRC_KEY_REPOSITORY_ERROR),
])
def test_the_client_set_up_refuses_with_ibms_reasons(made, tmp_path, kwargs, reason):
    args = {"channel": "X", "cipher_spec": "ANY_TLS12", "key_repository": made.client_stem,
            "password": None, "cert_label": made.client_label}
    args.update(kwargs)
    if args["key_repository"] == "COPY":
        shutil.copy(made.client_p12, tmp_path / "c.p12")
        args["key_repository"] = str(tmp_path / "c.p12")
    with pytest.raises(client_tls.TLSSetupError) as info:
        client_tls.client_tls(**args)
    assert info.value.reason == reason


def test_the_client_sends_the_channels_sni_by_default(made):
    setup = client_tls.client_tls(channel="TO.QMGR1", cipher_spec="ANY_TLS12_OR_HIGHER",
                                  key_repository=made.client_stem, cert_label=made.client_label)
    assert setup.server_hostname("mq.example.com") == "to2e-qmgr1.chl.mq.ibm.com"
    setup.outbound_sni = "HOSTNAME"
    assert setup.server_hostname("mq.example.com") == "mq.example.com"
    assert setup.server_hostname("127.0.0.1") is None  # no SNI for an address
    setup.outbound_sni = "*"
    assert setup.server_hostname("mq.example.com") is None
