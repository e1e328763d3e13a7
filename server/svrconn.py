"""Server-connection channels as the server uses them: the registry's definition governs each new
client channel instance; the configuration adds only who may connect.

* A client names a channel in its first INITIAL_DATA.  ``resolve`` finds it in the registry: no such
  channel is STATUS NO_CHANNEL (the client's MQRC_UNKNOWN_CHANNEL_NAME), a channel of another type
  CHANNEL_WRONG_TYPE (docs/reference/fap.md section 6.4).  SharingConversations, HeartbeatInterval and MaxMsgLength
  come from the definition as it is at that moment, so a channel created or changed by PCF governs
  the next connection; MCAUSER decides whom the connection runs as (Connection.authenticate).
* The configuration's ``channels`` (ServerConfig; the TOML ``[[channels]]``) keep their rules for
  passwords (admin_only, password_required).  At start, ``apply_config`` creates each configured
  channel the registry lacks (when channels are configured at all: the built-in list is the
  registry's seeded channels already), and sets on an existing one the negotiation values the configuration
  gives other than IBM's defaults; after that the registry is the authority (PCF changes stay).
* A channel that is not configured is governed by its definition alone; SYSTEM.* channels are then
  for administrators only (IBM's default channel authentication blocks them for everyone else).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import fap
from qmlite.registry.objects import channels as M

from .config import ChannelConfig, ServerConfig, default_channels

_NEGOTIATED = {"sharing_conversations": "sharing_conversations", "heartbeat_interval": "heartbeat_interval",
               "max_msg_length": "max_msg_length"}  # ChannelConfig field -> Channel field
_DEFAULTS = ChannelConfig("")


class Refused(Exception):
    """The channel cannot be used: ``code`` is the STATUS code to answer with."""

    def __init__(self, code: int, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def resolve(cfg: ServerConfig, registry, name: str) -> tuple[ChannelConfig, M.Channel]:
    """The rules (ChannelConfig) and the definition for a client starting channel ``name``."""
    definition = registry.objects(M.KIND).get(name)
    if definition is None:
        raise Refused(fap.NO_CHANNEL, name)
    if definition.channel_type != M.SVRCONN:
        raise Refused(fap.CHANNEL_WRONG_TYPE, name)
    configured = cfg.channel(name)
    rules = configured if configured is not None else ChannelConfig(name, admin_only=name.startswith("SYSTEM."))
    return dataclasses.replace(rules, sharing_conversations=definition.sharing_conversations,
                               heartbeat_interval=definition.heartbeat_interval,
                               max_msg_length=definition.max_msg_length), definition


def apply_config(cfg: ServerConfig, registry) -> list[str]:
    """Bring the configured channels into the registry (see the module docstring); returns the names
    created or changed.  The caller commits."""
    touched: list[str] = []
    if cfg.channels == default_channels(cfg.dev_objects, cfg.app_password):
        return touched  # nothing configured: the registry's own (seeded once; a deleted one stays deleted)
    channels = registry.objects(M.KIND)
    now = registry.now()
    for configured in cfg.channels:
        given = {field: getattr(configured, key) for key, field in _NEGOTIATED.items()
                 if getattr(configured, key) != getattr(_DEFAULTS, key)}
        existing = channels.get(configured.name)
        if existing is None:
            channel = M.new(configured.name, M.SVRCONN, **given)
            channel.created = channel.altered = now
        elif existing.channel_type == M.SVRCONN and any(getattr(existing, f) != v for f, v in given.items()):
            channel = dataclasses.replace(existing, **given)
            channel.altered = now
        else:
            continue
        registry.put_object(M.KIND, channel)
        touched.append(channel.name)
    return touched
