"""The developer container's conventions: IBM's start lines (AMQ5806I ...) after qmlite's ready line, the
REST port from the command line and the settings file, passwords from /run/secrets, LICENSE."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import urllib.request

import httpx
import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.server import app, config


def _serve(tmp_path, *args: str, env: dict | None = None) -> subprocess.Popen:
    base = {k: v for k, v in os.environ.items() if not k.startswith("MQ_") and k != "LICENSE"}
    return subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--data-dir",
                             str(tmp_path / "data"), "--log-level", "warning", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**base, **(env or {})})


def test_serve_prints_amq5806i_after_the_ready_line_and_serves_rest(tmp_path):
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "mqAppPassword").write_text("from-secret\n")
    proc = _serve(tmp_path, "--http-port", "0", env={"QMLITE_SECRETS_DIR": str(secrets), "LICENSE": "accept"})
    try:
        ready = proc.stdout.readline()
        assert ready.startswith("qmlite ready: queue manager QM1 listening on 127.0.0.1:"), ready
        # then the container's console (basic format): IBM's start lines, the last of them "Started web server"
        after = [proc.stdout.readline().split(" ", 1)[1] for _ in range(5)]
        assert after[2] == "AMQ5806I: Queued Publish/Subscribe Daemon started for queue manager QM1. " \
                           "[CommentInsert1(QM1)]\n"
        assert after[3:] == ["Started queue manager\n", "Started web server\n"]
        http_port = int(ready.split("http://127.0.0.1:")[1].split()[0])
        request = urllib.request.Request(f"http://127.0.0.1:{http_port}/ibmmq/rest/v1/admin/qmgr")
        request.add_header("Authorization", "Basic " + __import__("base64").b64encode(b"app:from-secret").decode())
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200 and b'"name": "QM1"' in answer.read()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()


def test_license_view_prints_the_licence_and_exits(tmp_path):
    proc = _serve(tmp_path, env={"LICENSE": "view"})
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Apache License 2.0" in out and "ready" not in out


def test_other_license_values_are_named_and_ignored(capsys):
    assert app.license_check({"LICENSE": "decline"}) is None
    assert "LICENSE='decline' ignored" in capsys.readouterr().err
    assert app.license_check({"LICENSE": "accept"}) is None and app.license_check({}) is None
    assert capsys.readouterr().err == ""


def test_secrets_files_give_passwords_and_the_environment_overrides_them(tmp_path):
    (tmp_path / "mqAdminPassword").write_text("admin-secret\n")
    (tmp_path / "mqAppPassword").write_text("app-secret")
    cfg = config.load(environ={"QMLITE_SECRETS_DIR": str(tmp_path)})
    assert (cfg.admin_password, cfg.app_password) == ("admin-secret", "app-secret")
    assert cfg.channel(config.APP_CHANNEL).password_required  # an app password secures DEV.APP.SVRCONN
    cfg = config.load(environ={"QMLITE_SECRETS_DIR": str(tmp_path), "MQ_ADMIN_PASSWORD": "from-env"})
    assert (cfg.admin_password, cfg.app_password) == ("from-env", "app-secret")
    cfg = config.load(environ={"QMLITE_SECRETS_DIR": str(tmp_path / "none")})
    assert (cfg.admin_password, cfg.app_password) == (config.DEFAULT_ADMIN_PASSWORD, None)


def test_http_settings_from_the_file_and_their_checks(tmp_path):
    toml = tmp_path / "q.toml"
    toml.write_text('http_port = 9443\nhttp_host = "0.0.0.0"\n')
    cfg = config.load(environ={}, config_file=toml)
    assert (cfg.http_port, cfg.http_host) == (9443, "0.0.0.0")
    assert config.load(environ={}).http_port is None  # off by default
    with pytest.raises(config.ConfigError, match="HTTP port"):
        config.load(environ={}, overrides={"http_port": 70000})
    with pytest.raises(config.ConfigError, match="go together"):
        config.load(environ={}, overrides={"tls_cert": str(toml)})
    with pytest.raises(config.ConfigError, match="no such file"):
        config.load(environ={}, overrides={"tls_cert": str(tmp_path / "c.pem"), "tls_key": str(tmp_path / "k.pem")})


def test_https_with_a_certificate(tmp_path):
    openssl = shutil.which("openssl")
    assert openssl is not None, "openssl makes the test certificate (Debian's openssl package)"
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key_path), "-out", str(cert_path)], check=True, capture_output=True)
    proc = _serve(tmp_path, "--http-port", "0", "--tls-cert", str(cert_path), "--tls-key", str(key_path))
    try:
        ready = proc.stdout.readline()
        port = int(ready.split("https://127.0.0.1:")[1].split()[0])
        with httpx.Client(verify=False) as client:  # curl -k, as CI suites call IBM's self-signed mqweb
            r = client.get(f"https://127.0.0.1:{port}/ibmmq/rest/v1/admin/qmgr", auth=("admin", "passw0rd"))
        assert r.status_code == 200 and r.json()["qmgr"][0]["name"] == "QM1"
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/ibmmq/rest/v1/admin/qmgr", timeout=10)  # no plain HTTP there
    finally:
        proc.kill()
        proc.wait()


def test_running_qmlite_offers_the_rest_api_when_asked(tmp_path):
    from qmlite.client.pytest_plugin import running_qmlite

    with running_qmlite(tmp_path / "d", http_port=0, app_password="plugin-pass") as server:
        r = httpx.post(f"{server.rest_url}/messaging/qmgr/QM1/queue/DEV.QUEUE.1/message", content="via plugin",
                       auth=("app", "plugin-pass"), headers={"ibm-mq-rest-csrf-token": ""})
        assert r.status_code == 201
        with server.connect(server.app_channel, user="app", password="plugin-pass") as qm:  # the sync client
            hobj, _ = qm.open(S.MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_INPUT_AS_Q_DEF)
            _, _, data = qm.get(hobj, S.MQMD(), S.MQGMO(), 1024)
            assert data == b"via plugin"
    with running_qmlite(tmp_path / "e") as server:
        assert server.http_port is None
        with pytest.raises(ValueError):
            server.rest_url


def test_mq_enable_embedded_web_server_false_turns_the_rest_api_off():
    env = {"MQ_ENABLE_EMBEDDED_WEB_SERVER": "false"}
    assert config.load(environ=env, overrides={"http_port": 9443}).http_port is None
    assert config.load(environ={"MQ_ENABLE_EMBEDDED_WEB_SERVER": "true"},
                       overrides={"http_port": 9443}).http_port == 9443
