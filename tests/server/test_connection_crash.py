"""A bug met by one client ends that client's connection alone (server/listener.py ``_handle``): the
listener's nursery never sees it, the socket accepted is closed, AMQ9999E is logged with the traceback,
and every other client -- one already connected and one that comes next -- is served as before."""

from __future__ import annotations

import pytest
import structlog
import trio

from qmlite.server.connection import Connection
from qmlite.pcf import constants as C
from tests.support.rawfap import RawPeer, connect_mq, handshake, open_q, running_server


class _Bug(Exception):
    pass


@pytest.mark.parametrize("grouped", [False, True])
async def test_a_bug_in_one_connection_ends_that_connection_alone(tmp_path, monkeypatch, grouped):
    async with running_server(tmp_path) as server:
        bystander = await RawPeer.connect(server)
        await handshake(bystander)
        assert (await connect_mq(bystander)).CompCode == 0

        real = Connection._received
        victims: list[Connection] = []

        async def buggy(self, data):
            if not victims or self is victims[0]:
                victims[:1] = [self]
                if grouped:  # as it arrives from a nursery task: a group, here with a cancellation beside it
                    raise BaseExceptionGroup("tasks", [_Bug("a bug"), trio.Cancelled._create()])
                raise _Bug("a bug")
            return await real(self, data)

        monkeypatch.setattr(Connection, "_received", buggy)
        with structlog.testing.capture_logs() as logs:
            victim = await RawPeer.connect(server)
            await victim.send(b"TSH ")  # any bytes: the connection's first read meets the bug
            assert await victim.closed()  # the server closed this socket ...
            monkeypatch.setattr(Connection, "_received", real)
            # ... and serves the one already connected and the next one (whose round trips also order
            # the crashed task's log line, written after its socket closed, before these checks)
            api, _ = await open_q(bystander, "DEV.QUEUE.1", C.MQOO_OUTPUT)
            assert api.CompCode == 0
            newcomer = await RawPeer.connect(server)
            await handshake(newcomer)
            assert (await connect_mq(newcomer)).CompCode == 0
        crashed = [e for e in logs if e["event"] == "connection_crashed"]
        assert len(crashed) == 1 and "AMQ9999E" in crashed[0]["message"], logs
        await bystander.aclose()
        await newcomer.aclose()
