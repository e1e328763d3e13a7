"""Helpers for the CCDT and client-configuration tests (ibmmq's and pymqi's): a clean client
environment, a port nobody listens on, JSON CCDT files and mqclient.ini files."""

from __future__ import annotations

import json
import pathlib
import socket

import pytest

# Every variable that tells IBM's client where its channel is (client/ibmmqc/resolve.py).
CLIENT_VARIABLES = ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB", "MQCLNTCF", "MQSSLKEYR", "MQKEYRPWD",
                    "MQCERTLABL")


@pytest.fixture
def client_env(tmp_path, monkeypatch):
    """No channel configured anywhere: the variables unset, an empty MQ data directory and home, and a
    working directory without mqclient.ini.  Yields the folder to write files in."""
    from qmlite.client import ccdtselect

    for name in CLIENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    work = tmp_path / "client"
    for sub in ("data", "home"):
        (work / sub).mkdir(parents=True)
    monkeypatch.setenv("MQ_DATA_PATH", str(work / "data"))
    monkeypatch.setenv("HOME", str(work / "home"))
    monkeypatch.chdir(work)
    ccdtselect.forget()
    yield work
    ccdtselect.forget()


def dead_port() -> int:
    """A port on 127.0.0.1 that refuses connections (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def channel(name: str, qmgr: str, *addresses: tuple[str, int], **sections) -> dict:
    """One clientConnection entry; ``sections`` are further objects (connectionManagement=...)."""
    out = {"name": name, "type": "clientConnection",
           "clientConnection": {"connection": [{"host": h, "port": p} for h, p in addresses], "queueManager": qmgr}}
    out.update(sections)
    return out


def write_ccdt(path: pathlib.Path, *channels: dict) -> pathlib.Path:
    path.write_text(json.dumps({"channel": list(channels)}, indent=2))
    return path


def write_ini(path: pathlib.Path, **stanzas: dict[str, str]) -> pathlib.Path:
    lines = []
    for stanza, pairs in stanzas.items():
        lines.append(f"{stanza}:")
        lines += [f"  {key}={value}" for key, value in pairs.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


# Malformed CCDTs, one per kind of fault, with the JSON path IBM's AMQ9696-style message names
# ("" for the file as a whole): what the connect tests feed ibmmq and pymqi.
MALFORMED = [
    ("not-json", "{ channel: [", ""),
    ("not-an-object", "[]", ""),
    ("no-channels", '{"channel": []}', "channel"),
    ("unknown-top-key", '{"channels": []}', "channels"),
    ("missing-type", '{"channel": [{"name": "A"}]}', "channel[0].type"),
    ("wrong-type", '{"channel": [{"name": "A", "type": "sender"}]}', "channel[0].type"),
    ("long-name", '{"channel": [{"name": "ABCDEFGHIJKLMNOPQRSTU", "type": "clientConnection"}]}', "channel[0].name"),
    ("port-as-text", '{"channel": [{"name": "A", "type": "clientConnection", "clientConnection": '
                     '{"connection": [{"host": "h", "port": "1414"}]}}]}',
     "channel[0].clientConnection.connection[0].port"),
    ("weight-100", '{"channel": [{"name": "A", "type": "clientConnection", "connectionManagement": '
                   '{"clientWeight": 100}}]}', "channel[0].connectionManagement.clientWeight"),
    ("bad-affinity", '{"channel": [{"name": "A", "type": "clientConnection", "connectionManagement": '
                     '{"affinity": "sticky"}}]}', "channel[0].connectionManagement.affinity"),
    ("bad-reconnect", '{"channel": [{"name": "A", "type": "clientConnection", "connectionManagement": '
                      '{"defaultReconnect": "always"}}]}', "channel[0].connectionManagement.defaultReconnect"),
    ("unknown-key", '{"channel": [{"name": "A", "type": "clientConnection", "tls": {}}]}', "channel[0].tls"),
    ("cipher-not-text", '{"channel": [{"name": "A", "type": "clientConnection", "transmissionSecurity": '
                        '{"cipherSpecification": 5}}]}', "channel[0].transmissionSecurity.cipherSpecification"),
    ("duplicate-key", '{"channel": [{"name": "A", "name": "B", "type": "clientConnection"}]}', "name"),
]

# What IBM's AMQCLCHL.TAB looks like to a reader: fixed-layout binary records.
BINARY_TABLE = (b"AMQR" + bytes(4) + b"\x00\x00\x00\x06" + b"DEV.APP.SVRCONN".ljust(20) + bytes(40)
                + b"QM1".ljust(48) + bytes(200)) * 3
