"""Queue managers for the tests of what the C extensions do before MQCONNX, through ibmmq and pymqi
(tests/client/test_*_extension_rules.py): a plain one, and one with a test PKI and a mutual-TLS SVRCONN
with a copy of the client's key repository without its stash, whose password must come from the
application; and the APPLTAG the queue manager shows for a channel's connection."""

from __future__ import annotations

import pathlib
import shutil

import pytest

TLS_CHANNEL = "TLS.XR"
CIPHER = "ANY_TLS12_OR_HIGHER"
SETUP = (f"DEFINE CHANNEL({TLS_CHANNEL}) CHLTYPE(SVRCONN) SSLCIPH({CIPHER}) SSLCAUTH(REQUIRED) MCAUSER('app') REPLACE\n"
         f"SET CHLAUTH('{TLS_CHANNEL}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) ACTION(REPLACE)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from qmlite.client.pytest_plugin import running_qmlite

    with running_qmlite(tmp_path_factory.mktemp("extrules")) as srv:
        yield srv


def appltags(server, channel: str) -> str:
    """DISPLAY CONN's answer for the connections on ``channel``, APPLTAG(...) among it."""
    return " ".join(line for result in server.mqsc(
        f"DISPLAY CONN(*) TYPE(CONN) WHERE(CHANNEL EQ '{channel}') APPLTAG") for line in result.text)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    from qmlite.keys import testpki as pki

    return pki.init(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory, made):
    from qmlite.client.pytest_plugin import running_qmlite

    with running_qmlite(tmp_path_factory.mktemp("tlsqm"), pki_dir=str(made.pki_dir)) as srv:
        for result in srv.mqsc(SETUP):
            assert result.completion_code == 0, result.text
        yield srv


def unstashed_repository(made, folder: pathlib.Path) -> pathlib.Path:
    """The client's PKCS#12 key repository alone in ``folder`` (no .sth beside it)."""
    p12 = folder / "nostash.p12"
    shutil.copy(made.client_p12, p12)
    return p12


def roundtrip_and_disconnect(mod, qm) -> bytes:
    """Put a message on DEV.QUEUE.1 and get it back through ``mod`` (ibmmq or pymqi), then disconnect."""
    try:
        q = mod.Queue(qm, b"DEV.QUEUE.1", mod.CMQC.MQOO_INPUT_AS_Q_DEF | mod.CMQC.MQOO_OUTPUT)
        q.put(b"over tls")
        got = q.get()
        q.close()
        return got
    finally:
        qm.disconnect()
