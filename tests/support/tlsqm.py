"""A queue manager with a test PKI and one mutual-TLS SVRCONN, for the tests that connect over TLS the
way an application configures it (tests/client/test_*_extension_rules.py), and a copy of the client's
key repository without its stash, whose password must come from the application."""

from __future__ import annotations

import pathlib
import shutil

import pytest

TLS_CHANNEL = "TLS.XR"
CIPHER = "ANY_TLS12_OR_HIGHER"
SETUP = (f"DEFINE CHANNEL({TLS_CHANNEL}) CHLTYPE(SVRCONN) SSLCIPH({CIPHER}) SSLCAUTH(REQUIRED) MCAUSER('app') REPLACE\n"
         f"SET CHLAUTH('{TLS_CHANNEL}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) ACTION(REPLACE)")


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    from qmlite import pki

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
