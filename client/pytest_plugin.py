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
:class:`qmlite.registry.mqsc.MqscResult`) and ``reset()``.  The server runs in a background thread (its own
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

__all__ = ["QmliteServer", "QmliteTLS", "running_qmlite", "qmlite_server", "qmlite_server_session", "qmlite_reset",
           "qmlite_tls_server"]

TLS_CHANNEL = "QMLITE.TLS.SVRCONN"  # the TLS channel qmlite_tls_server defines


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

    def reset(self) -> None:
        """Every queue cleared, every non-default object deleted (MQSC ``RESET QMLITE``)."""
        result = self.mqsc("RESET QMLITE")[0]
        if result.completion_code != 0:
            raise RuntimeError(f"RESET QMLITE failed: {result.text}")


@contextlib.contextmanager
def running_qmlite(data_dir: pathlib.Path, **overrides) -> Iterator[QmliteServer]:
    """Run a queue manager in a background thread for the duration of the block.  ``overrides``
    are server settings (``qmgr_name``, ``admin_password``, ``app_password``, ...)."""
    import trio

    from qmlite.server import config
    from qmlite.server.listener import running

    data_dir = pathlib.Path(data_dir)
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": data_dir, **overrides})
    loop = TrioThread(name="qmlite-server").start()
    stop, done = trio.Event(), trio.Event()

    async def _serve(task_status=trio.TASK_STATUS_IGNORED):
        # One task enters and leaves the server's context (its nursery), so it runs here, not per call.
        try:
            async with running(cfg, synchronous="NORMAL") as server:
                task_status.started(server)
                await stop.wait()
        finally:
            done.set()

    try:
        server = loop.run(lambda: loop.nursery.start(_serve))
        try:
            yield QmliteServer(host="127.0.0.1", port=server.port, qmgr=cfg.qmgr_name,
                               admin_channel=config.ADMIN_CHANNEL, app_channel=config.APP_CHANNEL,
                               admin_user="admin", admin_password=cfg.admin_password, app_user="app",
                               data_dir=data_dir, http_port=server.http_port)
        finally:
            loop.run_sync(stop.set)
            loop.run(done.wait)
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


@dataclasses.dataclass(frozen=True, slots=True)
class QmliteTLS:
    """A TLS-enabled queue manager and the client's side of the test PKI (docs/tls.md)."""

    server: QmliteServer
    pki: object  # qmlite.pki.TestPKI: the CA, the queue manager's and the client's certificates
    channel: str = TLS_CHANNEL  # SVRCONN, SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL) MCAUSER('app')
    cipher_spec: str = "ANY_TLS12_OR_HIGHER"

    @property
    def key_repository(self) -> str:
        """The client's key repository, as MQSCO KeyRepository or MQSSLKEYR take it (a stem: .p12 beside it)."""
        return self.pki.client_stem

    @property
    def password(self) -> str:
        return self.pki.password

    @property
    def cert_label(self) -> str:
        return self.pki.client_label

    def connect(self, **kw):
        """A :class:`qmlite.client.sync.QueueManager` over TLS on the TLS channel."""
        from .sync import QueueManager
        from .tls import client_tls

        tls = client_tls(channel=kw.pop("channel", self.channel), cipher_spec=kw.pop("cipher_spec", self.cipher_spec),
                         key_repository=self.key_repository, password=self.password, cert_label=self.cert_label)
        return QueueManager.connect(self.server.host, self.server.port, tls.channel, self.server.qmgr, tls=tls, **kw)


@pytest.fixture
def qmlite_tls_server(tmp_path_factory) -> Iterator[QmliteTLS]:
    """A fresh queue manager serving TLS on its port: a test PKI (``qmlite tls init``) mounted as IBM's
    container mounts /etc/mqm/pki, and the channel QMLITE.TLS.SVRCONN requiring TLS 1.2 or higher."""
    from qmlite import pki as test_pki

    made = test_pki.init(tmp_path_factory.mktemp("qmlite-pki"))
    with running_qmlite(tmp_path_factory.mktemp("qmlite"), pki_dir=str(made.pki_dir)) as server:
        # As DEV.APP.SVRCONN: a channel authentication record lets clients in (the back-stop rule
        # blocks every channel that has none), running as the channel's MCAUSER.
        for result in server.mqsc(f"DEFINE CHANNEL({TLS_CHANNEL}) CHLTYPE(SVRCONN) TRPTYPE(TCP) "
                                  "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL) MCAUSER('app') REPLACE\n"
                                  f"SET CHLAUTH({TLS_CHANNEL}) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) "
                                  "CHCKCLNT(ASQMGR) ACTION(REPLACE)"):
            if result.completion_code != 0:
                raise RuntimeError(f"cannot set up {TLS_CHANNEL}: {result.text}")
        yield QmliteTLS(server, made)

