"""Who is asking: HTTP basic authentication against the channels' users and passwords (admin with
MQ_ADMIN_PASSWORD, app with MQ_APP_PASSWORD), their mqweb roles, and the CSRF header rule.

Roles as in IBM's developer container (docs/reference/container.md): ``admin`` is in MQWebAdmin only and
``app`` in MQWebUser only.  The admin REST API needs MQWebAdmin; the messaging REST API needs
MQWebUser, and then the queue manager's authority records for that user apply (the domain checks
them, as for an MQI client).  ``app`` has no REST password until MQ_APP_PASSWORD is set.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hmac

from ..config import ServerConfig
from ..config import ADMIN_USER, APP_USER
from . import errors

ADMIN_ROLE = "MQWebAdmin"
USER_ROLE = "MQWebUser"
CSRF_HEADER = "ibm-mq-rest-csrf-token"
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclasses.dataclass(frozen=True, slots=True)
class Principal:
    user: str
    role: str


def authenticate(cfg: ServerConfig, authorization: str | None, path: str) -> Principal:
    """The principal a request's Authorization header proves, else RestError 401."""
    if not authorization or not authorization[:6].lower() == "basic ":
        raise errors.not_authenticated(path)
    try:
        user, sep, password = base64.b64decode(authorization[6:].strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        raise errors.not_authenticated(path) from None
    if not sep:
        raise errors.not_authenticated(path)
    if user == ADMIN_USER and _same(password, cfg.admin_password):
        return Principal(ADMIN_USER, ADMIN_ROLE)
    if user == APP_USER and cfg.app_password is not None and _same(password, cfg.app_password):
        return Principal(APP_USER, USER_ROLE)
    raise errors.not_authenticated(path)


def check_csrf(method: str, headers) -> None:
    """POST, PUT, PATCH and DELETE need the ibm-mq-rest-csrf-token header (any value, even empty)."""
    if method in _UNSAFE and CSRF_HEADER not in headers:
        raise errors.csrf_missing()


def require(principal: Principal, role: str) -> None:
    if principal.role != role:
        raise errors.role_refused(principal.user, role)


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())
