"""The listener's TLS environment (server/tls.py ``ServerTLS``, decisions KR1-KR3): set up at the first TLS
handshake from SSLKEYR, KEYRPWD and the queue manager's CERTLABL as they are then, kept until REFRESH
SECURITY TYPE(SSL); a set-up that fails is an error line and a refused handshake, and the next handshake
tries again.  With qmlite's own client (the ibmmq and pymqi tests are tests/client/test_tls_clients.py)."""

from __future__ import annotations

import shutil

import pytest
import structlog

from qmlite.keys import testpki as pki
from qmlite.client.pytest_plugin import running_qmlite
from qmlite.client.sync import MQIError, QueueManager
from qmlite.client.tls import client_tls
from qmlite.pcf import constants as C

CHANNEL = "TLS.ENV"
SETUP = (f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL) MCAUSER('app')\n"
         f"SET CHLAUTH({CHANNEL}) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)")


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return pki.init(tmp_path_factory.mktemp("pki"), extra_labels=("chl1cert",))


def mqsc_ok(server, text: str) -> None:
    for result in server.mqsc(text):
        assert result.completion_code == 0, result.text


def connect(server, made, peer: str | None = None) -> QueueManager:
    tls = client_tls(channel=CHANNEL, cipher_spec="ANY_TLS12_OR_HIGHER", key_repository=made.client_stem,
                     cert_label=made.client_label, peer_name=peer)
    return QueueManager.connect(server.host, server.port, CHANNEL, server.qmgr, tls=tls)


def refused(server, made, peer: str | None = None) -> int:
    with pytest.raises(MQIError) as info:
        connect(server, made, peer)
    return info.value.reason


def test_an_unreadable_repository_at_the_first_handshake_is_logged_and_tried_again(made, tmp_path):
    shutil.copy(made.qmgr_p12, tmp_path / "nostash.p12")  # the password must come from KEYRPWD
    with running_qmlite(tmp_path / "d") as server:
        mqsc_ok(server, SETUP + f"\nALTER QMGR SSLKEYR('{tmp_path / 'nostash'}') KEYRPWD('wrong')")
        with structlog.testing.capture_logs() as logs:  # structlog's own capture, whatever prints its lines
            assert refused(server, made) == C.MQRC_SSL_INITIALIZATION_ERROR
        logged = [e for e in logs if e["event"] == "key_repository_error"]
        assert len(logged) == 1 and logged[0]["log_level"] == "error" and "AMQ9657E" in logged[0]["message"]
        assert "nostash.p12" in logged[0]["why"]  # which repository could not be read
        # Fixed by the administrator: the next handshake sets the environment up, no refresh needed.
        mqsc_ok(server, f"ALTER QMGR KEYRPWD('{made.password}')")
        connect(server, made).close()


def test_the_queue_managers_certlabl_is_taken_when_the_environment_is_set_up(made, tmp_path):
    with running_qmlite(tmp_path / "d", pki_dir=str(made.pki_dir)) as server:
        # Changed before the first TLS channel: served by it.
        mqsc_ok(server, SETUP + "\nALTER QMGR CERTLABL('chl1cert')")
        connect(server, made, peer="CN=chl1cert").close()
        # Changed after it: the environment keeps the label it was set up with until a refresh.
        mqsc_ok(server, f"ALTER QMGR CERTLABL('{made.qmgr_label}')")
        connect(server, made, peer="CN=chl1cert").close()
        assert refused(server, made, peer="CN=QM1") == C.MQRC_SSL_PEER_NAME_MISMATCH
        mqsc_ok(server, "REFRESH SECURITY TYPE(SSL)")
        connect(server, made, peer="CN=QM1").close()
        # A channel's own CERTLABL is the channel's: read when its handshake starts, as IBM reads a channel
        # definition when the channel starts.
        mqsc_ok(server, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) CERTLABL('chl1cert')")
        connect(server, made, peer="CN=chl1cert").close()
