"""keys/credentials.py: the one rule both the server's settings and the local samples read passwords by."""

from __future__ import annotations

import pytest

from qmlite.client.samples import common
from qmlite.keys import credentials
from qmlite.server import config


def _secrets(tmp_path, admin: str | None = None, app: str | None = None) -> dict[str, str]:
    if admin is not None:
        (tmp_path / "mqAdminPassword").write_text(admin + "\n")
    if app is not None:
        (tmp_path / "mqAppPassword").write_text(app + "\n")
    return {"QMLITE_SECRETS_DIR": str(tmp_path)}


@pytest.mark.parametrize("files, env, expected", [
    ({}, {}, {}),
    ({"admin": "fromfile"}, {}, {"admin_password": "fromfile"}),
    ({"admin": "fromfile", "app": "appfile"}, {"MQ_ADMIN_PASSWORD": "fromenv"},
     {"admin_password": "fromenv", "app_password": "appfile"}),
    ({"admin": ""}, {}, {}),  # an empty file is no password: the default stays
    ({}, {"MQ_ADMIN_PASSWORD": ""}, {"admin_password": ""}),  # set, even empty, is the admin's choice
    ({"app": "appfile"}, {"MQ_APP_PASSWORD": ""}, {"app_password": "appfile"}),  # an empty app variable is unset
])
def test_secrets_then_environment(tmp_path, files, env, expected):
    environ = {**_secrets(tmp_path, **files), **env}
    assert credentials.passwords(environ) == expected
    server = config.load(environ=environ, overrides={})
    assert server.admin_password == expected.get("admin_password", credentials.DEFAULT_ADMIN_PASSWORD)
    assert server.app_password == expected.get("app_password")


def test_the_samples_log_in_with_the_password_the_server_was_given(tmp_path, monkeypatch):
    environ = _secrets(tmp_path, admin="s3cret")
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("MQ_ADMIN_PASSWORD", raising=False)
    assert credentials.admin_password() == "s3cret" == config.load(environ=environ, overrides={}).admin_password
    assert common.LOCAL_USER == config.ADMIN_USER == "admin"


def test_an_unreadable_secret_stops_the_server_but_not_a_client(tmp_path):
    (tmp_path / "mqAdminPassword").mkdir()  # a directory where the file should be: unreadable
    environ = {"QMLITE_SECRETS_DIR": str(tmp_path)}
    with pytest.raises(config.ConfigError, match="cannot read"):
        config.load(environ=environ, overrides={})
    assert credentials.admin_password(environ) == credentials.DEFAULT_ADMIN_PASSWORD
