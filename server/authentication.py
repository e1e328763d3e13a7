"""Who a connect on a client channel runs as: connection authentication, then the channel authentication
records (registry/security/chlauth.py), which say whether the client may use the channel and as whom.

The rules of the developer container (docs/reference/container.md): DEV.ADMIN.SVRCONN is the administrator's
and checks the admin password; DEV.APP.SVRCONN runs as MCAUSER ``app``, with the app password when one is
set; a channel without MCAUSER runs as the client's user, an administrator's password checked.  No I/O:
the connection hands in what it knows of the socket (its address, its TLS peer).
"""

from __future__ import annotations

import dataclasses
import hmac

from qmlite.pcf import constants as C
from qmlite.registry.monitoring import events
from qmlite.registry.objects.channels import Channel
from qmlite.registry.security import authrecs, chlauth

from .config import ADMIN_USER, APP_USER, ChannelConfig, ServerConfig

# Users the default channel authentication rule BLOCKUSER(*MQADMIN) keeps off every channel but the
# administrators' own: an MCAUSER naming one is refused (docs/reference/container.md CHLAUTH).
PRIVILEGED = frozenset({ADMIN_USER, "mqm"})


@dataclasses.dataclass(slots=True)
class Verdict:
    reason: int  # MQRC_NONE, or the MQCONN's reason (MQRC_NOT_AUTHORIZED, ...)
    user: str = ""  # the user the connection runs as
    admin: bool = False  # ... who holds the administrator's authorities
    qualifier: int = 0  # a refusal's authority-event reason qualifier when it is not a CHLAUTH block


def password_required(cfg: ServerConfig, channel: ChannelConfig, definition: Channel | None) -> bool:
    """Whether a connect on ``channel`` must give a password (which then travels in clear: FAP 12)."""
    if channel.admin_only:
        return True
    # A channel without MCAUSER runs as the client's user: an administrator's password is checked.
    if definition is not None and not definition.mca_user:
        return True
    return channel.password_required or cfg.app_password is not None


def authenticate(cfg: ServerConfig, registry, qm_events, log, *, channel: ChannelConfig, definition: Channel | None,
                 user: str, password: bytes | None, peer_host: str, tls=None) -> Verdict:
    """The verdict for a connect on ``channel`` by ``user`` (the CONAUTH user, else the UID's) with
    ``password``; warnings and blocks are reported to the queue manager's events (``qm_events``)."""
    connauth = bool(registry.qmgr.conn_auth.strip())
    mca_user = definition.mca_user if definition is not None else ""
    # An admin-only channel, or a channel without MCAUSER that the administrator names himself on.
    as_admin = channel.admin_only or (not mca_user and user == ADMIN_USER)
    refused, authenticated = _check_password(cfg, channel, connauth, as_admin, mca_user, user, password)
    if refused is not None:
        return refused
    # CHLAUTH.  The connection runs as the channel's MCAUSER (DEV.APP.SVRCONN: "app", as in the developer
    # container); a channel without one maps every non-administrator to "app" as well (docs/compat.md, channels).
    verdict = chlauth.check(registry, channel=channel.name, address=peer_host, client_user=user or "",
                            channel_mcauser="" if as_admin else (mca_user or APP_USER),
                            password_given=authenticated is not None or not connauth,
                            authenticated_user=authenticated,
                            ssl_peer=tls.subject if tls else None, ssl_issuer=tls.issuer if tls else None)
    for qualifier, blocked_user, _ in verdict.warnings:  # WARN(YES) records: logged, let in, reported
        qm_events.channel_blocked(qualifier=qualifier, warning=True, channel=channel.name, conname=peer_host,
                                  user=blocked_user)
    if verdict.allowed:
        return Verdict(C.MQRC_NONE, verdict.user, authrecs.privileged(verdict.user))
    log.warning("chlauth_refused", channel=channel.name, user=user, why=verdict.why)
    if verdict.blocked:
        qm_events.channel_blocked(qualifier=verdict.blocked, warning=False, channel=channel.name,
                                  conname=peer_host, user=verdict.user)
        return Verdict(verdict.reason)
    # CHCKCLNT without a password: the MQCSP user and password were not given
    return Verdict(verdict.reason, qualifier=events.MQRQ_CSP_NOT_AUTHORIZED if verdict.needs_password
                   else events.MQRQ_CONN_NOT_AUTHORIZED)


def _check_password(cfg: ServerConfig, channel: ChannelConfig, connauth: bool, as_admin: bool, mca_user: str,
                    user: str, password: bytes | None) -> tuple[Verdict | None, str | None]:
    """Connection authentication: (a refusal or None, the user whose password was checked or None)."""
    if as_admin:
        if not connauth:
            return None, None
        if user != ADMIN_USER or not _same(password, cfg.admin_password):
            return Verdict(C.MQRC_NOT_AUTHORIZED, qualifier=events.MQRQ_CSP_NOT_AUTHORIZED), None
        return None, ADMIN_USER
    if mca_user in PRIVILEGED:
        return Verdict(C.MQRC_NOT_AUTHORIZED, qualifier=events.MQRQ_CONN_NOT_AUTHORIZED), None
    if connauth and (cfg.app_password is not None or channel.password_required):
        if user != APP_USER or not _same(password, cfg.app_password or ""):
            return Verdict(C.MQRC_NOT_AUTHORIZED, qualifier=events.MQRQ_CSP_NOT_AUTHORIZED), None
        return None, APP_USER
    return None, None


def _same(given: bytes | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.rstrip(b"\x00 "), expected.encode())
