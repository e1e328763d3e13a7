"""What the hostile-client suite found in hypercorn's per-connection code (decisions HC2, HC3): an HTTP/2
request whose :method or :path is not ASCII ended the whole server; any such bug now ends its own
connection alone (server/http/connguard.py); and a keep-alive connection its client closed held its
socket until the keep-alive timer ran out."""

from __future__ import annotations

import os
import sys
import types

import h2.errors
import httpx
import hypercorn.protocol
import trio
from hypercorn.protocol.h2 import H2Protocol

from qmlite.server.http import connguard
from tests.server.test_rest import ADMIN, rest_server
from tests.support import hostile as H

READY = "/ibmmq/rest/v1/admin/qmgr"


def _server_sockets(port: int) -> list[str]:
    """This process's TCP sockets on ``port`` that are not its listener (the server runs in-process)."""
    return [t for t in H.fd_targets(os.getpid()) if t.startswith(f"tcp {port}->") and not t.endswith("LISTEN")]


async def test_an_http2_request_with_a_non_ascii_method_or_path_is_reset_and_the_connection_serves_on(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        outcome = await trio.to_thread.run_sync(H.h2_exchange, server.http_port, [
            H.h2_headers(method=b"G\xffT"), H.h2_headers(path=READY.encode() + b"\xff"), H.h2_headers()])
        assert outcome == {1: ("reset", h2.errors.ErrorCodes.PROTOCOL_ERROR),
                           3: ("reset", h2.errors.ErrorCodes.PROTOCOL_ERROR), 5: 200}
        assert (await client.get(READY, auth=ADMIN)).status_code == 200


async def test_a_bug_in_hypercorns_connection_code_ends_that_connection_alone(tmp_path, monkeypatch):
    logged = []

    class Recorder:  # the module's logger, taken where the event is made (a cached structlog logger escapes capture)
        def exception(self, event: str, **kw) -> None:
            logged.append((event, repr(sys.exc_info()[1])))

    monkeypatch.setattr(connguard, "qlog", types.SimpleNamespace(get=lambda **context: Recorder()))
    async with rest_server(tmp_path) as (server, client):
        # hypercorn's own HTTP/2 protocol, without h2guard: its UnicodeDecodeError is a bug met by one connection
        monkeypatch.setattr(hypercorn.protocol, "H2Protocol", H2Protocol)
        said = await trio.to_thread.run_sync(H.garbage_before_agreement, server.http_port,
                                             H.h2_request(H.h2_headers(method=b"G\xffT")))
        assert b"HTTP/2" not in said  # closed with no answer (some SETTINGS, perhaps), not left open
        assert (await client.get(READY, auth=ADMIN)).status_code == 200  # everyone else is served on
        outcome = await trio.to_thread.run_sync(H.h2_exchange, server.http_port, [H.h2_headers()])
        assert outcome == {1: 200}
    [(event, error)] = logged
    assert event == "http_connection_crashed" and "UnicodeDecodeError" in error


async def test_a_keep_alive_connection_its_client_closed_is_closed_at_once(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        port = server.http_port

        def one_request_then_close() -> None:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}") as fresh:
                assert fresh.get(READY, auth=ADMIN).status_code == 200

        for _ in range(5):
            await trio.to_thread.run_sync(one_request_then_close)
        # Before HC3 each stayed in CLOSE_WAIT for the 30 s keep-alive timer; the in-process server's
        # socket is gone once the server has run past the close it saw (a round trip on another connection).
        for _ in range(100):
            assert (await client.get(READY, auth=ADMIN)).status_code == 200
            left = [s for s in _server_sockets(port) if "CLOSE_WAIT" in s]
            if not left:
                break
        assert left == []
