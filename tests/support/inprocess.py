"""A queue manager served in the test's own process, its domain object at hand: ``srv.qm`` for what a
test reads or sets on the domain directly, ``srv.loop`` to do it on the server's own thread,
``srv.conn_name`` for the clients.  (The plugin's ``running_qmlite`` hides the domain; these tests need it.)"""

from __future__ import annotations

import contextlib
import pathlib
from collections.abc import Iterator

from qmlite.client._thread import TrioThread


@contextlib.contextmanager
def serving(data_dir: pathlib.Path, name: str, **overrides) -> Iterator[object]:
    """The ``running`` server for ``data_dir`` (settings ``overrides`` on the embedded defaults) on a
    trio thread named ``qmlite-NAME``, until the block ends."""
    import trio

    from qmlite.server import config
    from qmlite.server.listener import running

    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": data_dir, **overrides})
    loop = TrioThread(name=f"qmlite-{name}").start()
    stop, done = trio.Event(), trio.Event()

    async def serve(task_status=trio.TASK_STATUS_IGNORED):
        try:
            async with running(cfg, synchronous="NORMAL") as srv:
                task_status.started(srv)
                await stop.wait()
        finally:
            done.set()

    try:
        srv = loop.run(lambda: loop.nursery.start(serve))
        srv.loop = loop
        srv.conn_name = f"127.0.0.1({srv.port})"
        yield srv
        loop.run_sync(stop.set)
        loop.run(done.wait)
    finally:
        loop.stop()
