"""Who an MQTT client is, checked as qmlite checks any client connection (docs/mqtt.md, TT6).

The user name and password are the developer users' (server/config.py: ``admin`` with the admin
password, ``app`` with the app password) when CONNAUTH is set; a wrong password is refused (CONNACK 4).
The MQ user the connection runs as -- whose authority every publish and subscribe is checked against
-- is the ClientIdentifier with USECLTID(YES), else the channel's MCAUSER, else the authenticated user,
else ``app`` (as a SVRCONN channel without MCAUSER maps a client).  CHLAUTH records are not
consulted: IBM's telemetry channels do not use them (their connections are authenticated by the
service's JAAS configuration), and the developer configuration's ADDRESSMAP('*') NOACCESS backstop
would otherwise refuse every MQTT client (TT6).  The queue manager's connect authority is checked by
MQCONN itself.
"""

from __future__ import annotations

import dataclasses
import hmac

from qmlite.registry.security import authrecs

from ..config import ADMIN_USER, APP_USER


@dataclasses.dataclass
class Identity:
    refused: int  # 0, or the CONNACK return code (4 bad user name or password, 5 not authorized)
    user: str = ""
    admin: bool = False


def _same(given: bytes, expected: str | None) -> bool:
    return expected is not None and hmac.compare_digest(given, expected.encode())


def authenticate(cfg, registry, *, mca_user: str, use_client_id: bool, client_id: str,
                 username: str | None, password: bytes | None) -> Identity:
    connauth = bool(registry.qmgr.conn_auth.strip())
    authenticated = None
    if password is not None and connauth:
        if username == ADMIN_USER and _same(password, cfg.admin_password):
            authenticated = ADMIN_USER
        elif username == APP_USER and _same(password, cfg.app_password):
            authenticated = APP_USER
        else:
            return Identity(4)
    user = client_id if use_client_id else (mca_user or authenticated or APP_USER)
    return Identity(0, user, authrecs.privileged(user))
