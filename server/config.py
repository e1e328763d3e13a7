"""Server configuration: the IBM MQ developer container's defaults, its environment variables, a file.

Precedence, lowest first: embedded defaults, the TOML file (``--config``), the developer container's
secrets files (``/run/secrets/mqAdminPassword``, ``/run/secrets/mqAppPassword``; another directory with
QMLITE_SECRETS_DIR), the environment (MQ_QMGR_NAME, MQ_ADMIN_PASSWORD, MQ_APP_PASSWORD, MQ_DEV), then
command-line flags.  IBM's container (9.4) reads the secrets files and still honours the deprecated
variables; here a variable set for one run overrides a mounted secret.  A team can
therefore swap the IBM container for qmlite without touching its CI variables.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from collections.abc import Mapping

from qmlite.keys import credentials
from qmlite.registry import qmgrnames  # standard library only: the one check of queue-manager names (NM1)

DEFAULT_QMGR = "QM1"
DEFAULT_PORT = 1414
ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
APP_CHANNEL = "DEV.APP.SVRCONN"
# The developer container's two users (MQ_ADMIN_PASSWORD, MQ_APP_PASSWORD): the MQ port, the REST API and
# the local control commands all use them, so they live in the key leaf (keys/credentials.py).
ADMIN_USER, APP_USER = credentials.ADMIN_USER, credentials.APP_USER
DEFAULT_ADMIN_PASSWORD = credentials.DEFAULT_ADMIN_PASSWORD

class ConfigError(ValueError):
    pass


@dataclasses.dataclass(frozen=True, slots=True)
class ChannelConfig:
    name: str
    admin_only: bool = False
    password_required: bool = False
    sharing_conversations: int = 10  # SHARECNV default of a real SVRCONN
    heartbeat_interval: int = 300  # HBINT default
    max_msg_length: int = 4_194_304  # MAXMSGL default


@dataclasses.dataclass(frozen=True, slots=True)
class ServerConfig:
    qmgr_name: str = DEFAULT_QMGR
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    data_dir: pathlib.Path = pathlib.Path("data")
    admin_password: str = DEFAULT_ADMIN_PASSWORD
    app_password: str | None = None
    dev_objects: bool = True  # MQ_DEV=false leaves out DEV.* queues, topic and channels
    max_connections: int = 1000
    # MAXHANDS: None keeps the queue manager's own (256 until ALTER QMGR MAXHANDS changes it, persisted);
    # a number here is applied over it at every start (docs/decisions.md G3).
    max_handles: int | None = None
    publish_exit: str = ""  # "module:callable" called per delivery (registry/pubsub/publishexit.py)
    monitor_interval: float = 10.0  # seconds between resource-usage publications (IBM's 10 s)
    http_port: int | None = None  # the mqweb-shaped REST API (server/http/); None: off (IBM's 9443 in Docker)
    http_host: str = ""  # address for the REST API; "" = the same as host
    # The developer objects' MQTT channel DEV.MQTT listens here (IBM's MQTT port is 1883); None: no such
    # channel is made (MQTT channels defined by MQSC still run: docs/mqtt.md "Administration").
    mqtt_port: int | None = None
    tls_cert: str = ""  # PEM certificate and key: the REST API speaks https when both are given
    tls_key: str = ""
    # The longest request body a REST endpoint other than a message put reads (a put's limit is MAXMSGL):
    # longer is refused 413 before it is read whole (server/http/bodies.py, docs/decisions.md RB3).
    http_max_body: int = 1_048_576
    # The MQ listener's TLS (server/tls.py, docs/tls.md): a directory laid out like IBM's container's
    # /etc/mqm/pki (keys/<label>/, trust/<n>/), read beside the queue manager's SSLKEYR.  "" = /etc/mqm/pki
    # when it exists (QMLITE_PKI_DIR sets it too).
    pki_dir: str = ""
    tls_handshake_timeout: float = 10.0  # seconds a client may take over its TLS handshake
    # Seconds from accept until the socket's first MQCONN is answered (its first bytes, any TLS handshake,
    # the ID exchange, MQCONN): a client still short of it then is closed and its slot freed
    # (docs/compat.md "Deadlines", decision CX1).
    opening_timeout: float = 60.0
    # Bytes errors/AMQERR01.LOG may reach before it rotates to AMQERR02/03 (qm.ini's ErrorLogSize; IBM's default
    # 2 MiB; docs/errorlog.md).
    error_log_size: int = 2 * 1024 * 1024
    channels: tuple[ChannelConfig, ...] = ()
    # Start-up MQSC (server/startup.py): these files in order, then every *.mqsc of mqsc_dir by name.
    mqsc_files: tuple[pathlib.Path, ...] = ()
    mqsc_dir: pathlib.Path | None = None
    mqsc_strict: bool = False  # a failing start-up command stops the start
    # Several queue managers behind one port (registry/hosting.py, docs/multiqm.md): these beside the
    # default (qmgr_name), and a pattern of names an MQCONN creates ("" = none).
    qmgrs: tuple[str, ...] = ()
    create_on_connect: str = ""
    # Caps on what MQCONNs may create (docs/multiqm.md, decisions NM7): queue managers hosted at most
    # (the default included) and creations by MQCONN per minute; 0 = no limit.
    max_qmgrs: int = 100
    create_rate: int = 60
    # "real" (time.time) or "virtual": a clock only the test moves (registry/testing/clock.py, issue 23)
    clock: str = "real"

    def channel(self, name: str) -> ChannelConfig | None:
        for ch in self.channels:
            if ch.name == name:
                return ch
        return None


def _truthy(value: str) -> bool:
    return value.strip().lower() not in ("false", "0", "no", "off", "")


def default_channels(dev_objects: bool, app_password: str | None) -> tuple[ChannelConfig, ...]:
    # SYSTEM.DEF.SVRCONN exists on every queue manager; the DEV channels only in developer mode.
    channels = [ChannelConfig("SYSTEM.DEF.SVRCONN", admin_only=True, password_required=True)]
    if dev_objects:
        channels.append(ChannelConfig(ADMIN_CHANNEL, admin_only=True, password_required=True))
        channels.append(ChannelConfig(APP_CHANNEL, password_required=app_password is not None))
    return tuple(channels)


def load(*, environ: Mapping[str, str] | None = None, config_file: pathlib.Path | None = None,
         overrides: Mapping[str, object] | None = None) -> ServerConfig:
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    if config_file is not None:
        import tomllib  # only for a settings file (start-up time, issue 24)

        try:
            data = tomllib.loads(config_file.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read {config_file}: {exc}") from exc
        values.update(_from_file(data))
    try:
        values.update(credentials.passwords(env))
    except credentials.CredentialsError as exc:
        raise ConfigError(str(exc)) from None
    if "MQ_QMGR_NAME" in env:
        values["qmgr_name"] = env["MQ_QMGR_NAME"]
    if env.get("QMLITE_PKI_DIR"):
        values["pki_dir"] = env["QMLITE_PKI_DIR"]
    if env.get("QMLITE_MQTT_PORT"):  # qmlite's own, as IBM's container has no MQTT (decision TC10)
        try:
            values["mqtt_port"] = int(env["QMLITE_MQTT_PORT"])
        except ValueError:
            raise ConfigError(f"invalid MQTT port {env['QMLITE_MQTT_PORT']!r}") from None
    if "MQ_DEV" in env:
        values["dev_objects"] = _truthy(env["MQ_DEV"])
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = value
    if not _truthy(env.get("MQ_ENABLE_EMBEDDED_WEB_SERVER", "true")):
        values["http_port"] = None  # IBM's switch for its web server: off even when a flag (the image's) asks
    if "data_dir" in values:
        values["data_dir"] = pathlib.Path(str(values["data_dir"]))
    if "mqsc_files" in values:
        files = values["mqsc_files"]
        if isinstance(files, (str, pathlib.Path)):
            files = [files]
        if not isinstance(files, (list, tuple)):
            raise ConfigError(f"mqsc_files must be a list of paths, not {files!r}")
        values["mqsc_files"] = tuple(pathlib.Path(str(f)) for f in files)
    if values.get("mqsc_dir") is not None:
        values["mqsc_dir"] = pathlib.Path(str(values["mqsc_dir"]))
    if "qmgrs" in values:
        names = values["qmgrs"]
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, (list, tuple)):
            raise ConfigError(f"qmgrs must be a list of queue manager names, not {names!r}")
        values["qmgrs"] = tuple(names)
    cfg = ServerConfig(**values)  # type: ignore[arg-type]
    if not qmgrnames.is_name(cfg.qmgr_name):
        raise ConfigError(qmgrnames.why_not(cfg.qmgr_name))
    _check_hosting(cfg)
    if not 0 <= cfg.port <= 65535:
        raise ConfigError(f"invalid port {cfg.port}")
    if not (isinstance(cfg.max_connections, int) and cfg.max_connections > 0):
        raise ConfigError(f"invalid max connections {cfg.max_connections!r}: expected a number > 0")
    if isinstance(cfg.error_log_size, bool) or not (isinstance(cfg.error_log_size, int) and cfg.error_log_size >= 1024):
        raise ConfigError(f"invalid error log size {cfg.error_log_size!r}: expected a number of bytes >= 1024")
    if not (isinstance(cfg.monitor_interval, (int, float)) and cfg.monitor_interval > 0):
        raise ConfigError(f"invalid monitor interval {cfg.monitor_interval!r}: expected seconds > 0")
    for name in ("opening_timeout", "tls_handshake_timeout"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not (isinstance(value, (int, float)) and value > 0):
            raise ConfigError(f"invalid {name.replace('_', ' ')} {value!r}: expected seconds > 0")
    if cfg.http_port is not None and not (isinstance(cfg.http_port, int) and 0 <= cfg.http_port <= 65535):
        raise ConfigError(f"invalid HTTP port {cfg.http_port!r}")
    if cfg.mqtt_port is not None:
        if isinstance(cfg.mqtt_port, bool) or not (isinstance(cfg.mqtt_port, int) and 0 <= cfg.mqtt_port <= 65535):
            raise ConfigError(f"invalid MQTT port {cfg.mqtt_port!r}")
        if not cfg.dev_objects:
            raise ConfigError("--mqtt-port makes the developer objects' MQTT channel, and MQ_DEV=false leaves "
                              "them out: define an MQTT channel by MQSC instead (docs/mqtt.md)")
    if not (isinstance(cfg.http_max_body, int) and not isinstance(cfg.http_max_body, bool)
            and cfg.http_max_body > 0):
        raise ConfigError(f"invalid HTTP body limit {cfg.http_max_body!r}: expected a number of bytes > 0")
    if cfg.clock not in ("real", "virtual"):
        raise ConfigError(f"invalid clock {cfg.clock!r}: expected real or virtual")
    if bool(cfg.tls_cert) != bool(cfg.tls_key):
        raise ConfigError("--tls-cert and --tls-key go together")
    for path in (cfg.tls_cert, cfg.tls_key):
        if path and not pathlib.Path(path).is_file():
            raise ConfigError(f"cannot read {path}: no such file")
    if cfg.publish_exit and ":" not in cfg.publish_exit:
        raise ConfigError(f"publish exit {cfg.publish_exit!r}: expected module:callable")
    if not cfg.channels:
        cfg = dataclasses.replace(cfg, channels=default_channels(cfg.dev_objects, cfg.app_password))
    return cfg


def _check_hosting(cfg: ServerConfig) -> None:
    """Every extra queue-manager name valid and distinct; the create-on-connect pattern valid."""
    seen = {cfg.qmgr_name}
    for name in cfg.qmgrs:
        if not qmgrnames.is_name(name):
            raise ConfigError(qmgrnames.why_not(name))
        if name in seen:
            raise ConfigError(f"queue manager {name} named twice")
        seen.add(name)
    for field in ("max_qmgrs", "create_rate"):
        value = getattr(cfg, field)
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
            raise ConfigError(f"invalid {field} {value!r}: expected a number >= 0 (0: no limit)")
    if cfg.max_qmgrs and len(seen) > cfg.max_qmgrs:
        raise ConfigError(f"{len(seen)} queue managers named, more than max_qmgrs {cfg.max_qmgrs}")
    if cfg.create_on_connect:
        from qmlite.registry import hosting  # only then: it imports the whole domain (start-up time, issue 24)

        try:
            hosting.check_pattern(cfg.create_on_connect)
        except hosting.HostingError as exc:
            raise ConfigError(str(exc)) from None


_FILE_KEYS = {f.name for f in dataclasses.fields(ServerConfig)} - {"channels"}
_CHANNEL_KEYS = {f.name for f in dataclasses.fields(ChannelConfig)}


def _from_file(data: dict) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in data.items():
        if key == "channels":
            if not isinstance(value, list):
                raise ConfigError("channels must be an array of tables")
            chans = []
            for entry in value:
                unknown = set(entry) - _CHANNEL_KEYS
                if unknown or "name" not in entry:
                    raise ConfigError(f"bad channel entry {entry!r}")
                chans.append(ChannelConfig(**entry))
            out["channels"] = tuple(chans)
        elif key in _FILE_KEYS:
            out[key] = value
        else:
            raise ConfigError(f"unknown setting {key!r}")
    return out
