"""Where an MQCONNX finds its client channel, in IBM's order, and what it then tries.

IBM's C client takes the first of these that is given ("Connecting IBM MQ MQI client applications to
queue managers" and "URL access to the CCDT", MQ 9.x; docs/ccdt.md has the table):

1. the MQCD of the MQCNO (ClientConnPtr / ClientConnOffset; ibmmq's and pymqi's ``cd`` argument);
2. the CCDT URL of the MQCNO (CCDTUrlPtr, MQCNO version 6);
3. the MQSERVER environment variable (``CHANNEL/TCP/host(port)``);
4. ServerConnectionParms in the CHANNELS stanza of the client configuration file;
5. the MQCCDTURL environment variable (a ``file://`` URL or a path), else MQCHLLIB / MQCHLTAB;
6. ChannelDefinitionDirectory / ChannelDefinitionFile in the CHANNELS stanza;
7. ``AMQCLCHL.TAB`` in the MQ data directory (``MQ_DATA_PATH``, default ``/var/mqm``), when it exists.

A CCDT gives candidates by the queue-manager name rules and channel order of
:mod:`qmlite.client.ccdtselect`; the other sources give one channel.  Every source is turned into
:class:`qmlite.pcf.ccdt.ClientChannel` values, so the connect loop, the TLS set-up and the reconnect
settings see one shape whatever the source.
"""

from __future__ import annotations

import base64
import dataclasses
import logging
import os
import pathlib
import sys
import urllib.parse
import urllib.request

from qmlite.pcf import ccdt
from qmlite.pcf import constants as C

from . import native as N

log = logging.getLogger("qmlite.ibmmqc")

DEFAULT_TABLE = "AMQCLCHL.TAB"
_URL_TIMEOUT = 10.0


class PlanError(Exception):
    """The connect fails before any socket opens: ``reason`` is what MQCONNX returns."""

    def __init__(self, reason: int, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclasses.dataclass(slots=True)
class Plan:
    source: str  # which of the seven places gave the channel(s), for logs and docs
    channels: list  # ccdt.ClientChannel, in the order to try
    send_name: str  # the queue-manager name sent (checked by the queue manager); "" when not checked
    config: object  # clientconf.ClientConfig in effect
    ccdt_location: str = ""  # the CCDT read ("" when the channel came from an MQCD or MQSERVER)
    qmgr_name: str = ""  # the name the application passed

    def demote(self, channel) -> None:
        """A weighted channel of a PREFERRED CCDT failed: later connects in the process try it last."""
        if self.ccdt_location:
            from qmlite.client import ccdtselect  # noqa: PLC0415

            ccdtselect.demote(channel, self.qmgr_name, source=self.ccdt_location)


def plan(qmgr_name: str, cno: N.CNO | None, cd: N.CD | None, *, environ=None, cwd: str | None = None) -> Plan:
    """The channels an MQCONNX tries; PlanError with IBM's reason when there are none."""
    from qmlite.client import clientconf  # noqa: PLC0415

    env = os.environ if environ is None else environ
    config = clientconf.load(env, cwd)
    if cd is not None:
        return Plan("MQCD", [_from_mqcd(cd)], _send_name(qmgr_name), config, qmgr_name=qmgr_name)
    if cno is not None and cno.Version >= 6 and cno.CCDTUrlPtr and cno.CCDTUrlLength > 0:
        url = N.read_pointer(cno.CCDTUrlPtr, cno.CCDTUrlLength).split(b"\0", 1)[0].decode("utf-8", "replace")
        if url.strip():
            return _from_ccdt("MQCNO.CCDTUrl", url.strip(), qmgr_name, config)
    server = env.get("MQSERVER")
    if server:
        return Plan("MQSERVER", [_from_server(server, "MQSERVER")], _send_name(qmgr_name), config,
                    qmgr_name=qmgr_name)
    if config.channels.server_connection_parms:
        parms = config.channels.server_connection_parms
        return Plan("ServerConnectionParms", [_from_server(parms, "ServerConnectionParms")],
                    _send_name(qmgr_name), config, qmgr_name=qmgr_name)
    url = env.get("MQCCDTURL", "").strip()
    if url:
        return _from_ccdt("MQCCDTURL", url, qmgr_name, config)
    lib, tab = env.get("MQCHLLIB", "").strip(), env.get("MQCHLTAB", "").strip()
    if lib or tab:
        return _from_ccdt("MQCHLLIB/MQCHLTAB", _join(lib or _data_path(env), tab or DEFAULT_TABLE), qmgr_name, config)
    folder, name = config.channels.channel_definition_directory, config.channels.channel_definition_file
    if folder or name:
        return _from_ccdt("ChannelDefinitionDirectory/ChannelDefinitionFile",
                          _join(folder or _data_path(env), name or DEFAULT_TABLE), qmgr_name, config)
    default = pathlib.Path(_data_path(env)) / DEFAULT_TABLE
    if default.is_file():
        return _from_ccdt("default CCDT", str(default), qmgr_name, config)
    # Nothing configured: a real client would look for a local queue manager (there is none here).
    raise PlanError(C.MQRC_Q_MGR_NOT_AVAILABLE, "no client channel: no MQCD, CCDT, MQSERVER or client configuration")


def _send_name(qmgr_name: str) -> str:
    """An MQCD or MQSERVER channel: ``*QM1`` and blank are not checked, ``QM1`` is."""
    from qmlite.client import ccdtselect  # noqa: PLC0415

    return ccdtselect.name_rule(qmgr_name).check


def _data_path(env) -> str:
    return env.get("MQ_DATA_PATH") or "/var/mqm"


def _join(folder: str, name: str) -> str:
    if "://" in folder:
        return folder.rstrip("/") + "/" + name
    return str(pathlib.Path(folder) / name)


# --------------------------------------------------------------------------------------------------
# One channel: an MQCD, MQSERVER or ServerConnectionParms
# --------------------------------------------------------------------------------------------------

def _from_mqcd(cd: N.CD) -> ccdt.ClientChannel:
    if not cd.ConnectionName or cd.Version < 2:
        raise PlanError(C.MQRC_Q_MGR_NOT_AVAILABLE, "the MQCD names no connection")
    if cd.TransportType != C.MQXPT_TCP:
        raise PlanError(C.MQRC_HOST_NOT_AVAILABLE, f"transport type {cd.TransportType} is not TCP")
    try:
        connections = ccdt.parse_conn_name(cd.ConnectionName)
    except ValueError as exc:
        raise PlanError(C.MQRC_HOST_NOT_AVAILABLE, str(exc)) from None
    peer = ""
    if cd.Version >= 7 and cd.SSLPeerNamePtr and cd.SSLPeerNameLength:
        peer = N.read_pointer(cd.SSLPeerNamePtr, cd.SSLPeerNameLength).decode("utf-8", "replace").rstrip("\0 ")
    return ccdt.ClientChannel(
        name=cd.ChannelName.strip(), connections=connections,
        heartbeat_interval=_within(cd.HeartbeatInterval if cd.Version >= 4 else 300, 0, 999_999, 300),
        # MAXMSGL(0) means the largest message the queue manager allows (IBM, MaxMsgLength)
        max_message_length=_within(cd.MaxMsgLength or 104_857_600, 1, 104_857_600, 4_194_304),
        sharing_conversations=_within(cd.SharingConversations if cd.Version >= 9 else 10, 0, 999_999_999, 10),
        default_reconnect=cd.DefReconnect if cd.Version >= 10 else 0,
        cipher_spec=cd.SSLCipherSpec.strip() if cd.Version >= 7 else "",
        certificate_label=cd.CertificateLabel.strip() if cd.Version >= 11 else "",
        peer_name=peer)


def _within(value: int, low: int, high: int, default: int) -> int:
    """An MQCD value the channel can negotiate, or the default (a zero-filled MQCD is common)."""
    return value if low <= value <= high else default


def _from_server(value: str, what: str) -> ccdt.ClientChannel:
    from qmlite.client import clientconf  # noqa: PLC0415

    parsed = clientconf.parse_server(value)
    if parsed is None:
        raise PlanError(C.MQRC_Q_MGR_NOT_AVAILABLE, f"{what} {value!r} is not CHANNEL/TCP/host(port)")
    channel, _transport, conname = parsed
    try:
        connections = ccdt.parse_conn_name(conname)
    except ValueError as exc:
        raise PlanError(C.MQRC_HOST_NOT_AVAILABLE, f"{what}: {exc}") from None
    return ccdt.ClientChannel(name=channel, connections=connections)


# --------------------------------------------------------------------------------------------------
# A CCDT
# --------------------------------------------------------------------------------------------------

def _from_ccdt(source: str, location: str, qmgr_name: str, config) -> Plan:
    from qmlite.client import ccdtselect  # noqa: PLC0415

    try:
        channels = ccdt.parse(read_table(location))
    except ccdt.CCDTError as exc:
        log.warning("MQCONNX: the CCDT %s (%s) cannot be used, reason %d MQRC_CLIENT_CONN_ERROR: %s",
                    location, source, exc.reason, exc)
        raise PlanError(exc.reason, f"CCDT {location}: {exc}") from None
    try:
        ordered, rule = ccdtselect.candidates(channels, qmgr_name, source=location)
    except ccdtselect.NoCandidate as exc:
        log.warning("MQCONNX: CCDT %s: %s, reason %d MQRC_Q_MGR_NAME_ERROR", location, exc, exc.reason)
        raise PlanError(exc.reason, f"CCDT {location}: {exc}") from None
    return Plan(source, ordered, rule.check, config, ccdt_location=location, qmgr_name=qmgr_name)


def read_table(location: str) -> bytes:
    """The bytes of a CCDT named by a path or a ``file://``, ``http(s)://`` or ``ftp://`` URL;
    CCDTError (2278) when it cannot be read."""
    parsed = urllib.parse.urlsplit(location)
    scheme = parsed.scheme.lower()
    if scheme == "file" or not scheme or (len(scheme) == 1 and sys.platform == "win32"):
        path = file_path(location)
        try:
            return pathlib.Path(path).read_bytes()
        except OSError as exc:
            raise ccdt.CCDTError("", f"cannot be read: {exc.strerror or exc}") from None
    if scheme in ("http", "https", "ftp"):
        request = urllib.request.Request(_without_userinfo(parsed) if scheme != "ftp" else location)
        if scheme != "ftp" and parsed.username is not None:  # IBM: basic authentication from the URL
            token = f"{urllib.parse.unquote(parsed.username)}:{urllib.parse.unquote(parsed.password or '')}"
            request.add_header("Authorization", "Basic " + base64.b64encode(token.encode()).decode())
        try:
            with urllib.request.urlopen(request, timeout=_URL_TIMEOUT) as response:  # noqa: S310 - MQ's own URL kinds
                return response.read()
        except (OSError, ValueError) as exc:
            raise ccdt.CCDTError("", f"cannot be fetched: {exc}") from None
    raise ccdt.CCDTError("", f"{scheme}:// is not a CCDT location (file, http, https, ftp or a path)")


def file_path(location: str) -> str:
    """A ``file:`` URL's path (``file:///a/b``, ``file:////a/b`` as IBM's examples write it,
    ``file://localhost/a/b``), or the location itself when it is a path."""
    if not location.lower().startswith("file:"):
        return location
    parsed = urllib.parse.urlsplit(location)
    path = urllib.parse.unquote(parsed.path)
    if parsed.netloc and parsed.netloc.lower() != "localhost":
        path = "//" + parsed.netloc + path
    while path.startswith("//"):
        path = path[1:]
    return path


def _without_userinfo(parsed: urllib.parse.SplitResult) -> str:
    netloc = parsed.hostname or ""
    if ":" in netloc:
        netloc = f"[{netloc}]"
    if parsed.port:
        netloc += f":{parsed.port}"
    return urllib.parse.urlunsplit((parsed.scheme, netloc, parsed.path, parsed.query, parsed.fragment))
