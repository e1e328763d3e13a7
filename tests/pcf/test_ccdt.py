"""The JSON CCDT format (pcf/ccdt.py): every key IBM documents read, every kind of bad field refused
with its JSON path and why, and whatever bytes arrive, nothing but CCDTError escapes."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmlite.pcf import ccdt

FULL = {
    "channel": [{
        "name": "APP.SVRCONN",
        "type": "clientConnection",
        "clientConnection": {"connection": [{"host": "mq1.example.com", "port": 1414}, {"host": "10.0.0.2"}],
                             "queueManager": "QM1"},
        "compression": {"header": ["system", "none"], "message": ["zlibfast", "rle", "none"]},
        "connectionManagement": {"affinity": "none", "clientWeight": 40, "defaultReconnect": "queueManager",
                                 "disconnectInterval": 60, "heartbeatInterval": 15, "keepAliveInterval": -1,
                                 "sharingConversations": 1,
                                 "localAddress": [{"host": "10.1.1.1", "port": 4000},
                                                  {"host": "10.1.1.2", "portRange": {"low": 5000, "high": 5010}},
                                                  {"host": "10.1.1.3"}]},
        "exits": {"send": [{"name": "exitlib(SendExit)", "userData": "s"}], "receive": [],
                  "message": [{"name": "msglib(M)"}], "security": {"name": "seclib(Sec)", "userData": "x"}},
        "general": {"description": "the app channel", "maximumMessageLength": 1048576},
        "timestamps": {"altered": "2024-01-02T03:04:05.000Z"},
        "transmissionSecurity": {"cipherSpecification": "ANY_TLS12_OR_HIGHER", "certificateLabel": "appcert",
                                 "certificatePeerName": "CN=QM1,O=Example"},
    }],
}


def test_every_documented_key_is_read():
    [ch] = ccdt.parse(json.dumps(FULL))
    assert ch == ccdt.ClientChannel(
        name="APP.SVRCONN", queue_manager="QM1", connections=(("mq1.example.com", 1414), ("10.0.0.2", 1414)),
        affinity=0, client_weight=40, default_reconnect=2, disconnect_interval=60, heartbeat_interval=15,
        keep_alive_interval=-1, sharing_conversations=1,
        local_address="10.1.1.1(4000),10.1.1.2(5000,5010),10.1.1.3",
        header_compression=(8, 0), message_compression=(2, 1, 0), description="the app channel",
        max_message_length=1048576, cipher_spec="ANY_TLS12_OR_HIGHER", certificate_label="appcert",
        peer_name="CN=QM1,O=Example", exits=("msglib(M)", "exitlib(SendExit)", "seclib(Sec)"),
        altered="2024-01-02T03:04:05.000Z", sequence=0)


def test_ibm_minimal_example_and_defaults():
    [ch] = ccdt.parse('{"channel": [{"name": "SYSTEM.DEF.SVRCONN", "type": "clientConnection"}]}')
    assert (ch.queue_manager, ch.connections, ch.client_weight, ch.affinity, ch.default_reconnect,
            ch.sharing_conversations, ch.heartbeat_interval) == ("", (), 0, 1, 0, 10, 300)


@pytest.mark.parametrize("name,value", [
    ("affinity", ccdt.AFFINITY), ("defaultReconnect", ccdt.DEFAULT_RECONNECT)])
def test_every_choice_value(name, value):
    for text, number in value.items():
        doc = {"channel": [{"name": "C", "type": "clientConnection", "connectionManagement": {name: text}}]}
        [ch] = ccdt.parse(json.dumps(doc))
        assert getattr(ch, "affinity" if name == "affinity" else "default_reconnect") == number


def test_duplicate_names_keep_file_order():
    doc = {"channel": [{"name": "C", "type": "clientConnection"}, {"name": "C", "type": "clientConnection"}]}
    assert [ch.sequence for ch in ccdt.parse(json.dumps(doc))] == [0, 1]


def _with(path: str, value):
    """FULL with the value at a dotted path (``[n]`` for list items) replaced; ``...`` deletes it."""
    doc = copy.deepcopy(FULL)
    node = doc
    keys = []
    for part in path.replace("[", ".[").split("."):
        keys.append(int(part[1:-1]) if part.startswith("[") else part)
    for key in keys[:-1]:
        node = node[key]
    if value is ...:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return doc


C0 = "channel[0]"
BAD = [
    # (path changed, new value, the JSON path reported, a fragment of why)
    ("channel", {}, "channel", "must be an array"),
    ("channel", [], "channel", "no channels defined"),
    ("channel[0]", "APP", C0, "must be an object"),
    ("channel[0].name", ..., f"{C0}.name", "missing"),
    ("channel[0].type", ..., f"{C0}.type", "missing"),
    ("channel[0].name", 7, f"{C0}.name", "must be a string, not an integer"),
    ("channel[0].name", "A" * 21, f"{C0}.name", "longer than 20"),
    ("channel[0].name", "BAD NAME", f"{C0}.name", "is not a channel name"),
    ("channel[0].name", "", f"{C0}.name", "is not a channel name"),
    ("channel[0].type", "sender", f"{C0}.type", "is not supported"),
    ("channel[0].colour", "red", f"{C0}.colour", "unsupported key"),
    ("channel[0].general", [], f"{C0}.general", "must be an object, not an array"),
    ("channel[0].clientConnection.queueManager", 1, f"{C0}.clientConnection.queueManager", "must be a string"),
    ("channel[0].clientConnection.queueManager", "Q" * 49, f"{C0}.clientConnection.queueManager", "longer than 48"),
    ("channel[0].clientConnection.queueManager", "QM 1", f"{C0}.clientConnection.queueManager", "not a queue manager"),
    ("channel[0].clientConnection.connection", {"host": "h"}, f"{C0}.clientConnection.connection", "must be an array"),
    ("channel[0].clientConnection.connection[0]", "h(1)", f"{C0}.clientConnection.connection[0]", "must be an object"),
    ("channel[0].clientConnection.connection[0].host", ..., f"{C0}.clientConnection.connection[0].host", "missing"),
    ("channel[0].clientConnection.connection[0].host", "", f"{C0}.clientConnection.connection[0].host", "not a host"),
    ("channel[0].clientConnection.connection[0].host", "h(1414)", f"{C0}.clientConnection.connection[0].host",
     "not a host"),
    ("channel[0].clientConnection.connection[0].port", "1414", f"{C0}.clientConnection.connection[0].port",
     "must be an integer, not a string"),
    ("channel[0].clientConnection.connection[0].port", 0, f"{C0}.clientConnection.connection[0].port",
     "outside 1-65535"),
    ("channel[0].clientConnection.connection[0].port", 65536, f"{C0}.clientConnection.connection[0].port", "outside"),
    ("channel[0].clientConnection.connection[0].port", 1414.5, f"{C0}.clientConnection.connection[0].port",
     "not a number with a fraction"),
    ("channel[0].clientConnection.connection[0].port", True, f"{C0}.clientConnection.connection[0].port",
     "not a boolean"),
    ("channel[0].clientConnection.connection[0].user", "x", f"{C0}.clientConnection.connection[0].user", "unsupported"),
    ("channel[0].clientConnection.channel", "x", f"{C0}.clientConnection.channel", "unsupported key"),
    ("channel[0].compression.header[0]", "zlibfast", f"{C0}.compression.header[0]", "not one of none, system"),
    ("channel[0].compression.message[0]", "ZLIBFAST", f"{C0}.compression.message[0]", "not one of"),
    ("channel[0].compression.message", "none", f"{C0}.compression.message", "must be an array"),
    ("channel[0].compression.message", ["none"] * 17, f"{C0}.compression.message", "more than 16"),
    ("channel[0].compression.level", 1, f"{C0}.compression.level", "unsupported key"),
    ("channel[0].connectionManagement.affinity", "sticky", f"{C0}.connectionManagement.affinity", "not one of"),
    ("channel[0].connectionManagement.affinity", 1, f"{C0}.connectionManagement.affinity", "must be a string"),
    ("channel[0].connectionManagement.clientWeight", 100, f"{C0}.connectionManagement.clientWeight", "outside 0-99"),
    ("channel[0].connectionManagement.clientWeight", -1, f"{C0}.connectionManagement.clientWeight", "outside 0-99"),
    ("channel[0].connectionManagement.clientWeight", None, f"{C0}.connectionManagement.clientWeight", "not null"),
    ("channel[0].connectionManagement.defaultReconnect", "QMGR", f"{C0}.connectionManagement.defaultReconnect",
     "not one of no, yes, queueManager, disabled"),
    ("channel[0].connectionManagement.disconnectInterval", 1_000_000, f"{C0}.connectionManagement.disconnectInterval",
     "outside"),
    ("channel[0].connectionManagement.heartbeatInterval", 1_000_000, f"{C0}.connectionManagement.heartbeatInterval",
     "outside 0-999999"),
    ("channel[0].connectionManagement.heartInterval", 5, f"{C0}.connectionManagement.heartInterval", "unsupported"),
    ("channel[0].connectionManagement.keepAliveInterval", -2, f"{C0}.connectionManagement.keepAliveInterval",
     "outside"),
    ("channel[0].connectionManagement.sharingConversations", 1_000_000_000,
     f"{C0}.connectionManagement.sharingConversations", "outside"),
    ("channel[0].connectionManagement.localAddress[0].port", 70000, f"{C0}.connectionManagement.localAddress[0].port",
     "outside"),
    ("channel[0].connectionManagement.localAddress[0].portRange", {"low": 1, "high": 2},
     f"{C0}.connectionManagement.localAddress[0]", "cannot both"),
    ("channel[0].connectionManagement.localAddress[1].portRange.high", ...,
     f"{C0}.connectionManagement.localAddress[1].portRange.high", "missing"),
    ("channel[0].connectionManagement.localAddress[1].portRange.low", 6000,
     f"{C0}.connectionManagement.localAddress[1].portRange", "above high"),
    ("channel[0].connectionManagement.localAddress[1].portRange.step", 1,
     f"{C0}.connectionManagement.localAddress[1].portRange.step", "unsupported"),
    ("channel[0].exits.send[0].name", ..., f"{C0}.exits.send[0].name", "missing"),
    ("channel[0].exits.send[0].userData", "x" * 33, f"{C0}.exits.send[0].userData", "longer than 32"),
    ("channel[0].exits.security", [], f"{C0}.exits.security", "must be an object"),
    ("channel[0].exits.scy", {}, f"{C0}.exits.scy", "unsupported"),
    ("channel[0].general.description", "d" * 65, f"{C0}.general.description", "longer than 64"),
    ("channel[0].general.maximumMessageLength", 104_857_601, f"{C0}.general.maximumMessageLength", "outside"),
    ("channel[0].general.name", "x", f"{C0}.general.name", "unsupported"),
    ("channel[0].timestamps.altered", 20240102, f"{C0}.timestamps.altered", "must be a string"),
    ("channel[0].timestamps.created", "x", f"{C0}.timestamps.created", "unsupported"),
    ("channel[0].transmissionSecurity.cipherSpecification", ["TLS"], f"{C0}.transmissionSecurity.cipherSpecification",
     "must be a string"),
    ("channel[0].transmissionSecurity.cipherSpecification", "X" * 33,
     f"{C0}.transmissionSecurity.cipherSpecification", "longer than 32"),
    ("channel[0].transmissionSecurity.certificateLabel", "l" * 65, f"{C0}.transmissionSecurity.certificateLabel",
     "longer than 64"),
    ("channel[0].transmissionSecurity.certificatePeerName", {}, f"{C0}.transmissionSecurity.certificatePeerName",
     "must be a string"),
    ("channel[0].transmissionSecurity.keyRepository", "k", f"{C0}.transmissionSecurity.keyRepository", "unsupported"),
    ("version", 1, "version", "unsupported key"),
]


@pytest.mark.parametrize("path,value,where,why", BAD, ids=[f"{p}={v!r}"[:60] for p, v, _w, _y in BAD])
def test_bad_field_refused_with_its_path_and_reason(path, value, where, why):
    with pytest.raises(ccdt.CCDTError) as info:
        ccdt.parse(json.dumps(_with(path, value)))
    assert (info.value.where, info.value.reason) == (where, ccdt.MQRC_CLIENT_CONN_ERROR)
    assert why in info.value.detail


@pytest.mark.parametrize("text,why", [
    ("", "not valid JSON"),
    ("{", "not valid JSON"),
    ('{"channel": [{"name": "A", "type": "clientConnection",}]}', "not valid JSON"),
    ('{"channel": [{"name": "A", "name": "B", "type": "clientConnection"}]}', "twice"),
    ('{"channel": [{"name": "A", "type": "clientConnection", "general": {"maximumMessageLength": NaN}}]}',
     "not valid JSON"),
    ("[]", "must be a JSON object, not an array"),
    ("null", "must be a JSON object, not null"),
    ("{}", "missing"),
    ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
])
def test_not_a_ccdt(text, why):
    with pytest.raises(ccdt.CCDTError) as info:
        ccdt.parse(text)
    assert why in str(info.value)


def test_binary_table_refused_with_its_reason():
    # A binary CCDT's records: a fixed-layout structure, integers and blank-padded names, NULs among them
    record = b"\x00\x00\x00\x01\x00\x00\x00\x06" + b"DEV.APP.SVRCONN".ljust(20) + bytes(64) + b"QM1".ljust(48)
    with pytest.raises(ccdt.CCDTError) as info:
        ccdt.parse(record * 4)
    assert "binary CCDT" in info.value.detail and info.value.reason == 2278


def test_bytes_with_bom_and_not_utf8():
    assert ccdt.parse(b"\xef\xbb\xbf" + json.dumps(FULL).encode())[0].name == "APP.SVRCONN"
    with pytest.raises(ccdt.CCDTError, match="not UTF-8"):
        ccdt.parse(b'{"channel": [{"name": "\xff", "type": "clientConnection"}]}')


def test_render_reads_back_the_same_channels():
    channels = ccdt.parse(json.dumps(FULL))
    for ch in channels:
        ch.exits = ()  # exits and local addresses are read, not written
        ch.local_address = ""
    again = ccdt.parse(ccdt.render(channels))
    assert again == channels


def test_render_writes_only_what_differs_from_the_defaults():
    out = ccdt.entry(ccdt.ClientChannel("A", queue_manager="QM1", connections=(("h", 1),)))
    assert out == {"name": "A", "type": "clientConnection",
                   "clientConnection": {"connection": [{"host": "h", "port": 1}], "queueManager": "QM1"}}


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["name", "type", "channel", "clientConnection", "connection", "host", "port", "queueManager",
                         "connectionManagement", "clientWeight", "affinity", "general", "transmissionSecurity",
                         "cipherSpecification", "compression", "header", "message", "localAddress", "portRange",
                         "low", "high", "exits", "security", "x"]) | st.text(max_size=8), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(_json_values)
def test_any_json_value_parses_or_is_refused(value):
    try:
        channels = ccdt.parse(json.dumps(value))
    except ccdt.CCDTError as exc:
        assert exc.reason == 2278 and str(exc)
    else:
        assert all(isinstance(ch, ccdt.ClientChannel) for ch in channels)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_parse_or_are_refused(data):
    try:
        ccdt.parse(data)
    except ccdt.CCDTError as exc:
        assert exc.reason == 2278


@settings(max_examples=200, deadline=None)
@given(st.builds(
    ccdt.ClientChannel, name=st.from_regex(r"[A-Z0-9._]{1,20}", fullmatch=True),
    queue_manager=st.from_regex(r"[A-Z0-9._]{0,48}", fullmatch=True),
    connections=st.lists(st.tuples(st.from_regex(r"[a-z0-9.-]{1,30}", fullmatch=True),
                                   st.integers(1, 65535)), max_size=3).map(tuple),
    affinity=st.sampled_from([0, 1]), client_weight=st.integers(0, 99), default_reconnect=st.integers(0, 3),
    heartbeat_interval=st.integers(0, 999_999), sharing_conversations=st.integers(0, 999_999_999),
    max_message_length=st.integers(0, 104_857_600),
    cipher_spec=st.sampled_from(["", "ANY_TLS13", "TLS_AES_128_GCM_SHA256"]),
    message_compression=st.lists(st.sampled_from(sorted(ccdt.MESSAGE_COMPRESSION.values())), min_size=1,
                                 max_size=4).map(tuple)))
def test_render_then_parse_round_trips(ch):
    assert ccdt.parse(ccdt.render([ch])) == [ch]
