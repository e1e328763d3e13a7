"""Debian's mosquitto-clients (mosquitto_pub, mosquitto_sub) against the telemetry listener."""

from __future__ import annotations


import trio

from qmlite.registry.objects import channels as M
from qmlite.registry.objects import values as V

from .mqttpeers import WAIT, mqtt_server


async def _run(*args: str) -> str:
    with trio.fail_after(WAIT):
        done = await trio.run_process(list(args), capture_stdout=True, capture_stderr=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


async def test_mosquitto_sub_gets_what_mosquitto_pub_sent_to_its_persistent_session(tmp_path):
    async with mqtt_server(tmp_path) as (server, listener):
        port = str(listener.port)
        common = ("-h", "127.0.0.1", "-p", port)
        # -E: exit once the subscription is acknowledged; -c: a persistent session (CleanSession 0)
        await _run("mosquitto_sub", *common, "-i", "mosqsub", "-c", "-q", "1", "-t", "dev/mosq/#", "-E")
        assert "mosqsub:dev/mosq/#" in server.registry.subs
        await _run("mosquitto_pub", *common, "-i", "mosqpub", "-q", "1", "-t", "dev/mosq/a", "-m", "first")
        await _run("mosquitto_pub", *common, "-i", "mosqpub", "-q", "2", "-t", "dev/mosq/b", "-m", "second")
        await _run("mosquitto_pub", *common, "-i", "mosqpub", "-q", "1", "-r", "-t", "dev/mosq/kept", "-m", "retained")
        out = await _run("mosquitto_sub", *common, "-i", "mosqsub", "-c", "-q", "1", "-t", "dev/mosq/#", "-C", "3",
                         "-v")
        assert sorted(out.splitlines()) == ["dev/mosq/a first", "dev/mosq/b second", "dev/mosq/kept retained"]
        out = await _run("mosquitto_sub", *common, "-i", "fresh", "-q", "1", "-t", "dev/mosq/kept", "-C", "1", "-v",
                         "-F", "%t %p %r")
        assert out.split() == ["dev/mosq/kept", "retained", "1"]  # a new subscriber gets the retained one




async def test_mosquitto_clients_over_tls_with_the_channels_key_store(tmp_path):
    from qmlite.keys import testpki

    pki = testpki.init(tmp_path / "pki")
    channel = M.new("SECURE", M.MQTT, ssl_key_repository=str(pki.qmgr_p12), ssl_key_passphrase=pki.password,
                    ssl_cipher_spec="ANY_TLS12_OR_HIGHER", ssl_client_auth=V.MQSCA_NEVER_REQUIRED)
    async with mqtt_server(tmp_path / "data", channel) as (server, listener):
        tls = ("-h", "127.0.0.1", "-p", str(listener.port), "--cafile", str(pki.ca_crt), "--insecure")
        await _run("mosquitto_sub", *tls, "-i", "tlssub", "-c", "-q", "1", "-t", "dev/tls", "-E")
        await _run("mosquitto_pub", *tls, "-i", "tlspub", "-q", "1", "-t", "dev/tls", "-m", "encrypted")
        out = await _run("mosquitto_sub", *tls, "-i", "tlssub", "-c", "-q", "1", "-t", "dev/tls", "-C", "1")
        assert out.strip() == "encrypted"
        assert [r.channel for r in server.qm.telemetry.sessions.list() if r.client_id == "tlssub"] == ["SECURE"]
        with trio.fail_after(WAIT):  # a plain-TCP client is not spoken to
            plain = await trio.run_process(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(listener.port), "-i", "p",
                                            "-t", "dev/tls", "-m", "x"], capture_stderr=True, check=False)
        assert plain.returncode != 0
