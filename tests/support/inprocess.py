"""A queue manager served in the test's own process, its domain object at hand: ``srv.qm`` for what a
test reads or sets on the domain directly, ``srv.loop`` to do it on the server's own thread,
``srv.conn_name`` for the clients.  (The plugin's ``running_qmlite`` hides the domain; these tests need
it.  The server is run by the plugin's own runner, so both start and stop it one way.)"""

from __future__ import annotations

import contextlib
import pathlib
from collections.abc import Iterator

from qmlite.client._thread import TrioThread
from qmlite.client.testserver import _Runner


@contextlib.contextmanager
def serving(data_dir: pathlib.Path, name: str, **overrides) -> Iterator[object]:
    """The ``running`` server for ``data_dir`` (settings ``overrides`` on the embedded defaults) on a
    trio thread named ``qmlite-NAME``, until the block ends."""
    from qmlite.server import config

    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": data_dir, **overrides})
    loop = TrioThread(name=f"qmlite-{name}").start()
    runner = _Runner(loop, cfg)
    try:
        srv = runner.start()
        srv.loop = loop
        srv.conn_name = f"127.0.0.1({srv.port})"
        try:
            yield srv
        finally:
            runner.stop()
    finally:
        loop.stop()
