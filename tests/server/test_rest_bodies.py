"""REST request bodies under their limits (server/http/bodies.py, docs/rest.md "Request bodies"): a body
longer than its endpoint takes is answered while the client is still sending it -- by its Content-Length
before a byte of it is sent, chunked as soon as one byte too many has arrived -- with one reason for one
condition; JSON nested too deep is a 400 on every endpoint that parses JSON, never a 500."""

from __future__ import annotations

import base64
import json
import pathlib
import re
import tempfile

import httpx
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.requests import Request

from qmlite import cli
from qmlite.pcf import constants as C
from qmlite.server import config
from qmlite.server.http import bodies, errors
from qmlite.server.http.restapp import create_app
from tests.server.test_rest import ADMIN, APP, CSRF, _error, rest_server
from tests.support.inprocess import serving

PUT = "/ibmmq/rest/v1/messaging/qmgr/QM1/queue/{}/message"
PUBLISH = "/ibmmq/rest/v2/messaging/qmgr/QM1/topic/dev/bodies/message"
MQSC = "/ibmmq/rest/v2/admin/action/qmgr/QM1/mqsc"
PCF = "/ibmmq/rest/v1/admin/action/qmgr/QM1/pcf"
# Every endpoint that parses a JSON body, with the method it takes it on.
JSON_ENDPOINTS = [
    ("POST", MQSC), ("POST", PCF),
    ("POST", "/ibmmq/rest/v1/admin/qmgr/QM1/qmlite/fault"), ("PUT", "/ibmmq/rest/v1/admin/qmgr/QM1/qmlite/fault/F1"),
    ("POST", "/ibmmq/rest/v1/admin/action/qmgr/QM1/clock"), ("POST", "/ibmmq/rest/v1/admin/qmlite/qmgrs"),
    ("POST", "/ibmmq/rest/v1/admin/qmgr/QM1/qmlite/calls"),
]
SMALL = 4096  # --http-max-body for these tests: the admin endpoints' limit


def _head(method: str, path: str, user: tuple[str, str], framing: str,
          content_type: str = "application/json") -> bytes:
    token = base64.b64encode(":".join(user).encode()).decode()
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic {token}\r\n"
            f"ibm-mq-rest-csrf-token: x\r\nContent-Type: {content_type}\r\n{framing}\r\n").encode()


def _chunked(data: bytes, size: int = 1000) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(data[i:i + size]), data[i:i + size]) for i in range(0, len(data), size))


async def _pieces(*parts: bytes):
    """A body httpx sends chunked, in these pieces."""
    for part in parts:
        yield part


async def _answer_to_unfinished(port: int, request: bytes) -> httpx.Response:
    """Send ``request`` -- headers and a body that stops short of what they promise -- and read the answer
    to the end: it can only come from a server that judged the body from what it had, and the server
    closes the connection after it rather than read the rest."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(request)
        received = b""
        with trio.fail_after(30):  # a bound for a server that waits for the rest, not a synchronisation
            while chunk := await stream.receive_some(65536):
                received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    return httpx.Response(int(head.split(b" ", 2)[1]), content=body)


async def test_a_put_longer_than_the_queues_maxmsgl_is_refused_before_its_body_is_sent(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        reg = server.qm.registry
        reg.queues["DEV.QUEUE.1"].max_msg_length = 1000
        reg.queues["DEV.QUEUE.2"].max_msg_length = reg.qmgr.max_msg_length + 1000
        # Content-Length over the queue's MAXMSGL: answered with not one byte of the body sent
        r = await _answer_to_unfinished(server.http_port, _head(
            "POST", PUT.format("DEV.QUEUE.1"), APP, "Content-Length: 300000000\r\n", "text/plain"))
        assert r.status_code == 413 and _error(r)["reasonCode"] == C.MQRC_MSG_TOO_BIG_FOR_Q
        assert _error(r)["msgId"] == "MQWB0004E" and "DEV.QUEUE.1" in _error(r)["explanation"]
        # chunked: answered once 1001 bytes are in, the body unfinished, with the same reason
        r = await _answer_to_unfinished(server.http_port, _head(
            "POST", PUT.format("DEV.QUEUE.1"), APP, "Transfer-Encoding: chunked\r\n", "text/plain")
            + _chunked(b"x" * 1001))
        assert r.status_code == 413 and _error(r)["reasonCode"] == C.MQRC_MSG_TOO_BIG_FOR_Q
        # the queue manager's MAXMSGL the lesser: its reason, by either framing
        for framing, data in ((f"Content-Length: {reg.qmgr.max_msg_length + 1}\r\n", b""),
                              ("Transfer-Encoding: chunked\r\n", _chunked(b"y" * (reg.qmgr.max_msg_length + 1),
                                                                          65536))):
            r = await _answer_to_unfinished(server.http_port, _head(
                "POST", PUT.format("DEV.QUEUE.2"), APP, framing, "text/plain") + data)
            assert r.status_code == 413 and _error(r)["reasonCode"] == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
        # exactly MAXMSGL is a message, chunked or not; nothing refused was put
        for content in (b"z" * 1000, _pieces(b"z" * 600, b"z" * 400)):
            r = await client.post(PUT.format("DEV.QUEUE.1"), auth=APP, headers=CSRF, content=content)
            assert r.status_code == 201
        assert reg.messages.depth("DEV.QUEUE.1") == 2 and reg.messages.depth("DEV.QUEUE.2") == 0


async def test_an_alias_puts_under_its_base_queues_maxmsgl_and_a_publication_under_the_qmgrs(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        reg = server.qm.registry
        reg.queues["DEV.QUEUE.1"].max_msg_length = 1000
        r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={"type": "runCommand", "parameters": {
            "command": "DEFINE QALIAS(BODIES.ALIAS) TARGET(DEV.QUEUE.1)"}})
        assert r.json()["overallReasonCode"] == 0
        r = await _answer_to_unfinished(server.http_port, _head(
            "POST", PUT.format("BODIES.ALIAS"), APP, "Content-Length: 1001\r\n", "text/plain"))
        assert r.status_code == 413 and _error(r)["reasonCode"] == C.MQRC_MSG_TOO_BIG_FOR_Q
        r = await _answer_to_unfinished(server.http_port, _head(
            "POST", PUBLISH, APP, "Transfer-Encoding: chunked\r\n", "text/plain")
            + _chunked(b"p" * (reg.qmgr.max_msg_length + 1), 65536))
        assert r.status_code == 413 and _error(r)["reasonCode"] == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
        assert "publish to" in _error(r)["explanation"]


async def test_a_client_streaming_a_huge_put_gets_its_answer_long_before_it_has_sent_it(tmp_path):
    """What a real client sees: httpx streaming 256 MiB from a generator is answered 413 after a few
    MiB at most (what the socket buffers hold), and may go on using the server."""
    total = 256 * 2**20
    async with rest_server(tmp_path) as (server, client):
        for path, auth in ((PUT.format("DEV.QUEUE.1"), APP), (MQSC, ADMIN)):
            sent = 0

            async def endless():
                nonlocal sent
                while sent < total:
                    sent += 65536
                    yield b"a" * 65536

            r = await client.post(path, auth=auth, headers=CSRF, content=endless())
            assert r.status_code == 413 and sent < 32 * 2**20
        r = await client.get("/ibmmq/rest/v1/admin/qmgr", auth=ADMIN)
        assert r.status_code == 200


async def test_an_http2_body_answered_before_it_has_all_arrived_leaves_the_server_serving(tmp_path):
    """HTTP/2 (prior knowledge, plain HTTP): DATA still arriving for a stream already answered -- a 401 or a
    413 -- once ended the whole server through a KeyError in hypercorn (server/http/h2guard.py)."""
    async with rest_server(tmp_path) as (server, client):
        server.qm.registry.queues["DEV.QUEUE.1"].max_msg_length = 1000
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.http_port}", http1=False,
                                     http2=True) as h2client:
            for auth, status in ((APP, 413), (("app", "wrong"), 401), (APP, 413)):
                r = await h2client.post(PUT.format("DEV.QUEUE.1"), auth=auth, headers=CSRF,
                                        content=_pieces(*[b"d" * 65536] * 64))
                assert r.http_version == "HTTP/2" and r.status_code == status
            r = await h2client.post(PUT.format("DEV.QUEUE.1"), auth=APP, headers=CSRF, content=_pieces(b"ok"))
            assert r.status_code == 201
        r = await client.get("/ibmmq/rest/v1/admin/qmgr", auth=ADMIN)
        assert r.status_code == 200 and server.qm.registry.messages.depth("DEV.QUEUE.1") == 1


@pytest.mark.parametrize("method, path", JSON_ENDPOINTS)
async def test_an_admin_body_over_the_limit_is_413_by_either_framing(tmp_path, method, path):
    async with rest_server(tmp_path, http_max_body=SMALL) as (server, client):
        for framing, data in ((f"Content-Length: {50_000_000}\r\n", b""),
                              ("Transfer-Encoding: chunked\r\n", _chunked(b" " * (SMALL + 1)))):
            r = await _answer_to_unfinished(server.http_port, _head(method, path, ADMIN, framing) + data)
            err = _error(r)
            assert r.status_code == 413 and err["msgId"] == "MQWB0007E" and f"{SMALL} bytes" in err["message"]
        # a body of exactly the limit is read and judged by the endpoint itself
        r = await client.request(method, path, auth=ADMIN, headers=CSRF, content=b" " * (SMALL - 4) + b"null")
        assert r.status_code == 400 and "nest" not in r.text and f"{SMALL} bytes" not in r.text


@pytest.mark.parametrize("method, path", JSON_ENDPOINTS)
async def test_json_nested_too_deep_is_400_on_every_json_endpoint(tmp_path, method, path):
    async with rest_server(tmp_path) as (_, client):
        for text in ("[" * 200_000, '{"a":' * 100_000, "[" * 65 + "]" * 65):
            r = await client.request(method, path, auth=ADMIN, headers=CSRF, content=text)
            err = _error(r)
            assert r.status_code == 400 and err["msgId"] == "MQWB0007E"
            assert err["message"] == ("MQWB0007E: The request body is not valid JSON: arrays and objects nest "
                                      "deeper than 64 levels.")
        r = await client.request(method, path, auth=ADMIN, headers=CSRF, content="[" * 64 + "]" * 64)
        assert r.status_code == 400 and "nest" not in r.text  # 64 deep is JSON: the endpoint's own answer


async def test_every_route_that_takes_a_body_answers_a_hostile_one_below_500(tmp_path):
    """Every POST, PUT and DELETE route of the app, path parameters filled, gets a deeply nested body and
    a body over the limit: none answers 500 (a route added later is covered without a new test)."""
    filled = {"version": "v2", "qmgr": "QM1", "queue": "DEV.QUEUE.1", "topic": "dev/x", "name": "N1",
              "action": "save"}
    async with rest_server(tmp_path, http_max_body=SMALL) as (server, client):
        routes = [(method, re.sub(r"{(\w+)(:\w+)?}", lambda m: filled[m[1]], route.path))
                  for route in create_app(server).routes
                  for method in sorted(getattr(route, "methods", None) or ()) if method in ("POST", "PUT", "DELETE")]
        assert len(routes) >= len(JSON_ENDPOINTS) + 6
        for method, path in routes:
            for content in ("[" * 3000, "{" * (SMALL + 1)):
                for auth in (ADMIN, APP):
                    r = await client.request(method, path, auth=auth, headers=CSRF, content=content)
                    assert r.status_code < 500, (method, path, r.text)


def test_the_body_limit_is_a_setting_a_flag_and_checked(tmp_path, capsys):
    assert config.load(environ={}).http_max_body == 1_048_576  # RB3's default
    settings_file = tmp_path / "qmlite.toml"
    settings_file.write_text("http_max_body = 65536\n")
    assert config.load(environ={}, config_file=settings_file).http_max_body == 65536
    for bad in (0, -1, True, "1M"):
        with pytest.raises(config.ConfigError, match="invalid HTTP body limit"):
            config.load(environ={}, overrides={"http_max_body": bad})
    assert cli.main(["serve", "--http-max-body", "0", "--data-dir", str(tmp_path / "d")]) == 2
    assert "invalid HTTP body limit 0" in capsys.readouterr().err


async def test_the_reader_refuses_by_the_announced_length_without_receiving():
    async def receive():
        raise AssertionError("the body was read")

    for announced in (b"1001", b"9" * 5000):  # the second has more digits than int() converts
        request = Request({"type": "http", "method": "POST", "headers": [(b"content-length", announced)]}, receive)
        with pytest.raises(errors.RestError) as refused:
            await bodies.read(request, 1000, lambda: errors.body_too_large(1000))
        assert refused.value.status == 413 and "1000 bytes" in refused.value.message


# ---- the JSON reader itself, and hostile JSON-ish bodies against a running server -----------------------
def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


_TEXT = st.text(st.sampled_from('[]{}"\\:,ab 1'), max_size=8)
_LEAVES = st.none() | st.booleans() | st.integers() | _TEXT
_VALUES = st.recursive(_LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
                       max_leaves=12)


@st.composite
def _nested(draw):
    """A JSON value wrapped in up to 90 arrays or objects (keys full of brackets and escapes)."""
    value = draw(_VALUES)
    for _ in range(draw(st.integers(0, 90))):
        value = [value] if draw(st.booleans()) else {draw(_TEXT): value}
    return value


@settings(max_examples=300, deadline=None)
@given(_nested(), st.booleans())
def test_the_depth_scan_agrees_with_the_value_json_loads_builds(value, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert bodies.too_deep(text) == (_depth(value) > bodies.MAX_JSON_DEPTH)
    if _depth(value) <= bodies.MAX_JSON_DEPTH:
        assert bodies.json_value(text.encode()) == value


_JSONISH = st.one_of(
    st.text(st.sampled_from('[]{}"\\:,.-+eE0123456789 truefalsn\n\t\u00e9'), max_size=400),
    st.binary(max_size=200),
    _nested().map(lambda v: json.dumps(v, ensure_ascii=False)),
    st.builds(lambda n, tail: "[" * n + tail, st.integers(60, 5000), st.text(st.sampled_from('"\\]}x'), max_size=20)),
)


@settings(max_examples=300, deadline=None)
@given(_JSONISH)
def test_the_json_reader_answers_anything_with_a_value_or_a_400(body):
    data = body.encode() if isinstance(body, str) else body
    try:
        bodies.json_value(data)
    except errors.RestError as exc:
        assert exc.status == 400 and exc.msg_id == "MQWB0007E"


def test_hostile_json_bodies_never_get_a_500_from_a_running_server():
    """The same bodies through HTTP to every JSON endpoint of one server (hypothesis drives a blocking
    client; the server runs on its own trio thread)."""
    with tempfile.TemporaryDirectory() as tmp, serving(pathlib.Path(tmp) / "data", "bodies", http_port=0) as srv:
        with httpx.Client(base_url=f"http://127.0.0.1:{srv.http_port}") as client:

            @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
            @given(_JSONISH, st.sampled_from(JSON_ENDPOINTS))
            def post(body, endpoint):
                method, path = endpoint
                r = client.request(method, path, auth=ADMIN, headers=CSRF,
                                   content=body.encode() if isinstance(body, str) else body)
                assert r.status_code < 500, (path, body, r.text)
                assert r.status_code < 400 or _error(r)["msgId"].startswith("MQWB")

            post()
