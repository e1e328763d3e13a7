"""IBM MQ's client configuration file (``mqclient.ini``), as IBM's C client reads it, and the reconnect
settings it and a channel definition give (one typed object for the automatic-reconnect code).

Where the file is (IBM, "Location of the client configuration file", Linux), the first that exists:

1. the file ``MQCLNTCF`` names;
2. ``mqclient.ini`` in the application's working directory;
3. ``mqclient.ini`` in the IBM MQ data directory (``MQ_DATA_PATH``, default ``/var/mqm``);
4. ``mqclient.ini`` in the user's home directory.

The format: stanzas (``CHANNELS:``, ``SSL:``, ``TCP:`` ...) each followed by indented ``Key=Value``
lines; a line starting ``#`` or ``;`` is a comment; stanza and key names are not case sensitive.  qmlite's client
uses the CHANNELS and SSL stanzas; the others are read and ignored.  A value that is not valid for its
key is reported (``problems``, and a warning in the log) and left out, so the default applies, as IBM's
client does with a bad configuration value (docs/decisions.md Y5).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import pathlib
import re

from qmlite.client.reconnect import MQRCN_DISABLED, MQRCN_NO, MQRCN_Q_MGR, MQRCN_YES  # cmqxc.h: one home

log = logging.getLogger("qmlite.ibmmqc")

DEF_RECON = {"NO": MQRCN_NO, "YES": MQRCN_YES, "QMGR": MQRCN_Q_MGR, "DISABLED": MQRCN_DISABLED}
OUTBOUND_SNI = ("CHANNEL", "HOSTNAME", "*")
FILE_NAME = "mqclient.ini"


@dataclasses.dataclass(frozen=True, slots=True)
class ChannelsStanza:
    """CHANNELS: the keys qmlite's client acts on (None: not given)."""

    channel_definition_directory: str | None = None  # ChannelDefinitionDirectory (= MQCHLLIB)
    channel_definition_file: str | None = None  # ChannelDefinitionFile (= MQCHLTAB)
    server_connection_parms: str | None = None  # ServerConnectionParms (= MQSERVER)
    def_recon: int | None = None  # DefRecon: NO|YES|QMGR|DISABLED
    reconnect_timeout: int | None = None  # MQReconnectTimeout, seconds
    recon_delay: tuple[tuple[int, int], ...] | None = None  # ReconDelay: ((delay ms, random ms), ...)
    put1_default_always_sync: bool | None = None  # Put1DefaultAlwaysSync=YES|NO
    ccsid: int | None = None  # CCSID (= MQCCSID)


@dataclasses.dataclass(frozen=True, slots=True)
class SSLStanza:
    """SSL: what the TLS set-up reads (None: not given)."""

    key_repository: str | None = None  # SSLKeyRepository (= MQSSLKEYR)
    key_repository_password: str | None = None  # SSLKeyRepositoryPassword (= MQKEYRPWD)
    certificate_label: str | None = None  # CertificateLabel (= MQCERTLABL)
    outbound_sni: str | None = None  # OutboundSNI: CHANNEL|HOSTNAME|*
    fips_required: bool | None = None  # SSLFipsRequired (accepted; Python's ssl uses its OpenSSL)


@dataclasses.dataclass(frozen=True, slots=True)
class ClientConfig:
    path: str = ""  # the file read ("": none)
    channels: ChannelsStanza = ChannelsStanza()
    ssl: SSLStanza = SSLStanza()
    problems: tuple[str, ...] = ()  # values refused, each "STANZA.Key: why"


def reconnect_client_settings(config: ClientConfig):
    """What this file says about reconnection (CHANNELS DefRecon, MQReconnectTimeout, ReconDelay), in the
    form the one reconnect rule takes (``client/reconnect.py``'s ``resolve``, which combines it with the
    MQCNO options and the channel's DEFRECON in IBM's order)."""
    from qmlite.client import reconnect  # noqa: PLC0415 - the rule's own module

    ch = config.channels
    return reconnect.ClientSettings(def_recon=ch.def_recon, reconnect_timeout_s=ch.reconnect_timeout,
                                    recon_delay_ms=ch.recon_delay)


# --------------------------------------------------------------------------------------------------
# Finding and reading the file
# --------------------------------------------------------------------------------------------------

def locate(environ: dict[str, str] | None = None, cwd: str | None = None) -> pathlib.Path | None:
    """The client configuration file IBM's client would read, or None."""
    env = os.environ if environ is None else environ
    named = env.get("MQCLNTCF", "").strip()
    if named:
        path = pathlib.Path(named)
        return path if path.is_file() else None  # IBM: MQCLNTCF names the file; no fallback
    places = [pathlib.Path(cwd or os.getcwd()), pathlib.Path(env.get("MQ_DATA_PATH") or "/var/mqm")]
    home = env.get("HOME")
    if home:
        places.append(pathlib.Path(home))
    for folder in places:
        path = folder / FILE_NAME
        if path.is_file():
            return path
    return None


def load(environ: dict[str, str] | None = None, cwd: str | None = None) -> ClientConfig:
    """The configuration in effect (an empty one when there is no file or it cannot be read)."""
    path = locate(environ, cwd)
    if path is None:
        return ClientConfig()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        log.warning("client configuration file %s cannot be read: %s", path, exc)
        return ClientConfig(str(path), problems=(f"{path}: {exc.strerror}",))
    config = parse(text, str(path))
    for problem in config.problems:
        log.warning("client configuration file %s: %s (the default applies)", path, problem)
    return config


_STANZA = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*$")
_PAIR = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
_DELAY = re.compile(r"\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)")


def parse(text: str, path: str = "") -> ClientConfig:
    """The stanzas of ``text``.  Lines that are neither a stanza, a pair nor a comment are problems."""
    stanzas: dict[str, dict[str, tuple[str, str]]] = {}
    problems: list[str] = []
    current: dict[str, tuple[str, str]] | None = None
    current_name = ""
    for number, raw in enumerate(text.splitlines(), 1):
        # a comment is a whole line starting # or ; (a value may hold either: a password, OutboundSNI=*)
        line = "" if raw.lstrip().startswith(("#", ";")) else raw
        if not line.strip():
            continue
        m = _STANZA.match(line)
        if m:
            current_name = m.group(1).upper()
            current = stanzas.setdefault(current_name, {})
            continue
        m = _PAIR.match(line)
        if m and current is not None:
            current[m.group(1).upper()] = (m.group(1), m.group(2))
            continue
        problems.append(f"line {number}: {raw.strip()!r} is neither a stanza (NAME:) nor Key=Value in one")
    channels = _channels(stanzas.get("CHANNELS", {}), problems)
    ssl = _ssl(stanzas.get("SSL", {}), problems)
    return ClientConfig(path, channels, ssl, tuple(problems))


def _channels(pairs: dict[str, tuple[str, str]], problems: list[str]) -> ChannelsStanza:
    out: dict = {}

    def text(key: str, attr: str) -> None:
        if key in pairs and pairs[key][1]:
            out[attr] = pairs[key][1]

    text("CHANNELDEFINITIONDIRECTORY", "channel_definition_directory")
    text("CHANNELDEFINITIONFILE", "channel_definition_file")
    if "SERVERCONNECTIONPARMS" in pairs:
        name, value = pairs["SERVERCONNECTIONPARMS"]
        if parse_server(value) is None:
            problems.append(f"CHANNELS.{name}: {value!r} is not CHANNEL/TCP/host(port)")
        else:
            out["server_connection_parms"] = value
    if "DEFRECON" in pairs:
        name, value = pairs["DEFRECON"]
        if value.upper() in DEF_RECON:
            out["def_recon"] = DEF_RECON[value.upper()]
        else:
            problems.append(f"CHANNELS.{name}: {value!r} is not one of NO, YES, QMGR, DISABLED")
    for key, attr, high in (("MQRECONNECTTIMEOUT", "reconnect_timeout", 999_999_999), ("CCSID", "ccsid", 65535)):
        if key in pairs:
            name, value = pairs[key]
            if value.isdigit() and int(value) <= high:
                out[attr] = int(value)
            else:
                problems.append(f"CHANNELS.{name}: {value!r} is not a whole number 0-{high}")
    if "RECONDELAY" in pairs:
        name, value = pairs["RECONDELAY"]
        delays = parse_recon_delay(value)
        if delays is None:
            problems.append(f"CHANNELS.{name}: {value!r} is not (delay[,rand])(delay[,rand])... in milliseconds")
        else:
            out["recon_delay"] = delays
    if "PUT1DEFAULTALWAYSSYNC" in pairs:
        name, value = pairs["PUT1DEFAULTALWAYSSYNC"]
        flag = _yes_no(value)
        if flag is None:
            problems.append(f"CHANNELS.{name}: {value!r} is not YES or NO")
        else:
            out["put1_default_always_sync"] = flag
    return ChannelsStanza(**out)


def _ssl(pairs: dict[str, tuple[str, str]], problems: list[str]) -> SSLStanza:
    out: dict = {}
    for key, attr in (("SSLKEYREPOSITORY", "key_repository"), ("SSLKEYREPOSITORYPASSWORD", "key_repository_password"),
                      ("CERTIFICATELABEL", "certificate_label")):
        if key in pairs and pairs[key][1]:
            out[attr] = pairs[key][1]
    if "OUTBOUNDSNI" in pairs:
        name, value = pairs["OUTBOUNDSNI"]
        if value.upper() in OUTBOUND_SNI:
            out["outbound_sni"] = value.upper()
        else:
            problems.append(f"SSL.{name}: {value!r} is not one of CHANNEL, HOSTNAME, *")
    if "SSLFIPSREQUIRED" in pairs:
        name, value = pairs["SSLFIPSREQUIRED"]
        flag = _yes_no(value)
        if flag is None:
            problems.append(f"SSL.{name}: {value!r} is not YES or NO")
        else:
            out["fips_required"] = flag
    return SSLStanza(**out)


def _yes_no(value: str) -> bool | None:
    return {"YES": True, "NO": False}.get(value.strip().upper())


def parse_recon_delay(value: str) -> tuple[tuple[int, int], ...] | None:
    """``(1000,200)(2000)(4000,1000)`` -> ((1000, 200), (2000, 0), (4000, 1000)); None if not that form."""
    text = value.strip()
    pairs = []
    pos = 0
    for m in _DELAY.finditer(text):
        if text[pos:m.start()].strip():
            return None
        pairs.append((int(m.group(1)), int(m.group(2) or 0)))
        pos = m.end()
    if not pairs or text[pos:].strip():
        return None
    return tuple(pairs)


def parse_server(value: str) -> tuple[str, str, str] | None:
    """MQSERVER / ServerConnectionParms: ``CHANNEL/TCP/conname`` -> (channel, transport, conname)."""
    parts = (value or "").split("/", 2)
    if len(parts) != 3 or not parts[0].strip() or not parts[2].strip():
        return None
    channel, transport, conname = (p.strip() for p in parts)
    if transport.upper() != "TCP":
        return None
    return channel, transport.upper(), conname.strip("'\"")
