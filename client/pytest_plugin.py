"""pytest plugin: an in-process qmlite queue manager for tests.

Registered as the ``qmlite`` entry point in ``pytest11``, so installing qmlite makes the fixtures
available everywhere:

* ``qmlite_server`` (function scope): a fresh queue manager with its own data directory.
* ``qmlite_server_session`` (session scope): one queue manager shared by the whole session.
* ``qmlite_reset`` (function scope): the session's queue manager, reset before the test (every queue
  cleared, every object that is not a default deleted: MQSC ``RESET QMLITE``, docs/mqsc.md), so each
  test starts from a fresh queue manager without paying for a new one.

Both yield a :class:`QmliteServer` with ``host``, ``port``, ``qmgr``, ``admin_channel``,
``app_channel``, ``admin_user``, ``admin_password``, ``app_user``, ``conn_name``
(``"127.0.0.1(port)"``, the form pymqi/ibmmq take) and ``data_dir``, plus ``connect()`` for a
ready :class:`qmlite.client.sync.QueueManager`, ``mqsc(text)`` (MQSC over PCF Escape, a list of
:class:`qmlite.registry.mqsc.MqscResult`) and ``reset()``, and ``stop()`` / ``start()`` / ``restart()`` to end the queue manager and start it again
in place (same port, same data; docs/reconnect.md).  The server runs in a background thread (its own
``trio.run``) on 127.0.0.1, port 0, with the developer-container defaults and no environment
variables read; it is stopped (clients told QM_TERMINATING, tasks cancelled, registry closed) when
the fixture ends.

Outside pytest: ``with running_qmlite(path) as server: ...``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
from typing import Iterator, Optional

import pytest

from ._thread import TrioThread

__all__ = ["QmliteServer", "running_qmlite", "qmlite_server", "qmlite_server_session", "qmlite_reset"]


@dataclasses.dataclass(frozen=True, slots=True)
class QmliteServer:
    host: str
    port: int
    qmgr: str
    admin_channel: str
    app_channel: str
    admin_user: str
    admin_password: str
    app_user: str
    data_dir: pathlib.Path
    http_port: Optional[int] = None  # the REST API's port, when started with http_port=0 (or a port)
    _runner: object = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def conn_name(self) -> str:
        return f"{self.host}({self.port})"

    @property
    def rest_url(self) -> str:
        """``http://127.0.0.1:PORT/ibmmq/rest/v2`` (ValueError when the REST API was not asked for)."""
        if self.http_port is None:
            raise ValueError("no REST API: start the server with http_port=0")
        return f"http://{self.host}:{self.http_port}/ibmmq/rest/v2"

    def connect(self, channel: Optional[str] = None, **kw):
        """A connected :class:`qmlite.client.sync.QueueManager`; the admin channel and credentials
        unless told otherwise (``channel=server.app_channel`` needs no password)."""
        from .sync import QueueManager

        channel = channel or self.admin_channel
        if channel == self.admin_channel:
            kw.setdefault("user", self.admin_user)
            kw.setdefault("password", self.admin_password)
        return QueueManager.connect(self.host, self.port, channel, self.qmgr, **kw)

    def mqsc(self, text: str, *, wait_s: float = 30.0) -> list:
        """Run MQSC on the server as the admin user, each command as a PCF Escape (as ``qmlite runmqsc
        -c``); the results carry runmqsc's text for each command."""
        from qmlite.control import ServerTarget

        target = ServerTarget(self.host, self.port, self.admin_channel, self.admin_user, self.admin_password,
                              self.qmgr, wait_s)
        try:
            return target.run(text)
        finally:
            target.close()

    # -- restarting in place (docs/reconnect.md) ---------------------------------------------------

    def stop(self, *, reconnect: bool = True) -> None:
        """End the queue manager, as ``endmqm -r`` does (``reconnect``: reconnectable clients are asked
        to reconnect) or as ``endmqm`` does; returns once it has stopped and its port is closed."""
        self._runner.stop(reconnect=reconnect)

    def start(self, **overrides) -> "QmliteServer":
        """Start it again on the same port (and, unless ``overrides`` say otherwise -- ``data_dir``,
        ``qmgr_name`` ... -- the same data); returns once it accepts connections, having told this
        process's reconnecting clients to try now instead of waiting out their backoff."""
        import pathlib as _pathlib

        from qmlite.client import reconnect as _reconnect

        runner = self._runner
        if runner.server is not None:
            raise RuntimeError("the queue manager is running: stop() it first, or restart()")
        runner.cfg = dataclasses.replace(runner.cfg, port=self.port,
                                         **{k: (_pathlib.Path(v) if k == "data_dir" else v) for k, v in overrides.items()})
        server = runner.start()
        _reconnect.kick()
        return dataclasses.replace(self, qmgr=runner.cfg.qmgr_name, data_dir=_pathlib.Path(runner.cfg.data_dir),
                                   http_port=server.http_port)

    def restart(self, *, reconnect: bool = True, **overrides) -> "QmliteServer":
        """:meth:`stop` then :meth:`start`: the same port and data, so a test can prove its application
        survives a queue manager restart.  Returns once the queue manager accepts again."""
        self.stop(reconnect=reconnect)
        return self.start(**overrides)

    @property
    def faults(self) -> "FaultRules":
        """The queue manager's fault rules (docs/faults.md): ``faults.set("F1", verb="MQPUT",
        object="APP.*", reason=2053, count=1)``, ``faults.list()``, ``faults.delete("F1")``, ``faults.clear()``."""
        return FaultRules(self._runner)

    def reset(self) -> None:
        """Every queue cleared, every non-default object deleted (MQSC ``RESET QMLITE``)."""
        result = self.mqsc("RESET QMLITE")[0]
        if result.completion_code != 0:
            raise RuntimeError(f"RESET QMLITE failed: {result.text}")


class FaultRules:
    """The fault rules of the running queue manager, called on its own thread: the same domain object
    (``QueueManager.faults``, registry/testing/faults.py) that MQSC ``SET QMLITE FAULT`` and the REST API
    reach.  A malformed rule raises the domain's ``FaultRuleError`` (its ``reason``: the MQRCCF code)."""

    def __init__(self, runner) -> None:
        self._runner = runner

    def _call(self, fn):
        runner = self._runner
        if runner.server is None:
            raise RuntimeError("the queue manager is not running")
        server = runner.server
        return runner.loop.run_sync(lambda: fn(server.qm.faults))

    def set(self, name: str, **rule) -> dict:
        """Set (or replace) rule ``name``: ``verb``, ``action``, ``reason``, ``delay`` (ms), ``object``,
        ``user``, ``channel``, ``appl``, ``nth``, ``count``, ``probability``, ``seed``; returns what it shows."""
        return self._call(lambda faults: faults.define(name, **rule).attributes())

    def list(self, name: str = "*") -> list:
        """Each rule ``name`` (exact or generic) names, as DISPLAY QMLITE FAULT shows it, with its MATCHED and FIRED."""
        return self._call(lambda faults: [rule.attributes() for rule in faults.rules(name)])

    def delete(self, name: str) -> int:
        return self._call(lambda faults: faults.delete(name))

    def clear(self) -> int:
        return self._call(lambda faults: faults.clear())


class _Runner:
    """One queue manager in a background trio thread that can be stopped and started again on the same
    port (``QmliteServer.restart``)."""

    def __init__(self, loop, cfg) -> None:
        self.loop = loop
        self.cfg = cfg
        self.server = None
        self._stop = self._done = None

    def start(self):
        import trio

        from qmlite.server.listener import running

        cfg = self.cfg
        stop, done = trio.Event(), trio.Event()

        async def _serve(task_status=trio.TASK_STATUS_IGNORED):
            # One task enters and leaves the server's context (its nursery), so it runs here, not per call.
            try:
                async with running(cfg, synchronous="NORMAL") as server:
                    task_status.started(server)
                    await stop.wait()
            finally:
                done.set()

        self._stop, self._done = stop, done
        self.server = self.loop.run(lambda: self.loop.nursery.start(_serve))
        return self.server

    def stop(self, *, reconnect: bool = False) -> None:
        if self.server is None:
            return
        server, self.server = self.server, None

        def _end():
            server.reconnect_clients = reconnect
            self._stop.set()

        self.loop.run_sync(_end)
        self.loop.run(self._done.wait)


@contextlib.contextmanager
def running_qmlite(data_dir: pathlib.Path, **overrides) -> Iterator[QmliteServer]:
    """Run a queue manager in a background thread for the duration of the block.  ``overrides``
    are server settings (``qmgr_name``, ``admin_password``, ``app_password``, ...)."""
    from qmlite.server import config

    data_dir = pathlib.Path(data_dir)
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": data_dir, **overrides})
    loop = TrioThread(name="qmlite-server").start()
    runner = _Runner(loop, cfg)
    try:
        server = runner.start()
        try:
            yield QmliteServer(host="127.0.0.1", port=server.port, qmgr=cfg.qmgr_name,
                               admin_channel=config.ADMIN_CHANNEL, app_channel=config.APP_CHANNEL,
                               admin_user="admin", admin_password=cfg.admin_password, app_user="app",
                               data_dir=data_dir, http_port=server.http_port, _runner=runner)
        finally:
            runner.stop()
    finally:
        loop.stop()


@pytest.fixture
def qmlite_server(tmp_path_factory) -> Iterator[QmliteServer]:
    """A fresh in-process qmlite queue manager (QM1, DEV.ADMIN.SVRCONN admin/passw0rd,
    DEV.APP.SVRCONN without password)."""
    with running_qmlite(tmp_path_factory.mktemp("qmlite")) as server:
        yield server


@pytest.fixture(scope="session")
def qmlite_server_session(tmp_path_factory) -> Iterator[QmliteServer]:
    """One qmlite queue manager shared by every test of the session."""
    with running_qmlite(tmp_path_factory.mktemp("qmlite-session")) as server:
        yield server


@pytest.fixture
def qmlite_reset(qmlite_server_session) -> Iterator[QmliteServer]:
    """The session's queue manager, reset before this test: no queue, topic, subscription or other
    object but the defaults, every queue empty (connections from earlier tests are not closed)."""
    qmlite_server_session.reset()
    yield qmlite_server_session
