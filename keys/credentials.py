"""The developer container's two users and where their passwords come from, for both ends.

The server checks them (server/config.py reads them into its ServerConfig) and the local control
commands and samples log in with them (client/samples/common.py), so the rule is written once: the
secrets files (``/run/secrets/mqAdminPassword``, ``mqAppPassword``; another directory with
QMLITE_SECRETS_DIR), then the environment (MQ_ADMIN_PASSWORD, MQ_APP_PASSWORD), the environment winning,
as IBM's 9.4 container reads both and still honours the deprecated variables.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Mapping

ADMIN_USER = "admin"
APP_USER = "app"
DEFAULT_ADMIN_PASSWORD = "passw0rd"  # the developer container's documented default
DEFAULT_SECRETS_DIR = "/run/secrets"
SECRET_FILES = (("admin_password", "mqAdminPassword"), ("app_password", "mqAppPassword"))


class CredentialsError(ValueError):
    """A secrets file that exists but cannot be read."""


def read_secret(path: pathlib.Path) -> str | None:
    """A secrets file's password (its trailing newline dropped); None when there is no such file or it is empty."""
    try:
        return path.read_text(encoding="utf-8").rstrip("\r\n") or None
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise CredentialsError(f"cannot read {path}: {exc}") from exc


def passwords(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``admin_password`` and ``app_password`` as the environment sets them; a user absent: not set there."""
    env = os.environ if env is None else env
    found: dict[str, str] = {}
    secrets = pathlib.Path(env.get("QMLITE_SECRETS_DIR", DEFAULT_SECRETS_DIR))
    for field, file_name in SECRET_FILES:
        secret = read_secret(secrets / file_name)
        if secret:
            found[field] = secret
    if "MQ_ADMIN_PASSWORD" in env:
        found["admin_password"] = env["MQ_ADMIN_PASSWORD"]
    if env.get("MQ_APP_PASSWORD"):  # an empty one leaves app without a password, as the container does
        found["app_password"] = env["MQ_APP_PASSWORD"]
    return found


def admin_password(env: Mapping[str, str] | None = None) -> str:
    """The admin password a local program logs in with: what the queue manager was given, or the default."""
    try:
        return passwords(env).get("admin_password", DEFAULT_ADMIN_PASSWORD)
    except CredentialsError:
        return DEFAULT_ADMIN_PASSWORD  # the server refuses to start over it; a client tries the default
