"""pytest plugin: an in-process qmlite queue manager for tests.

Registered as the ``qmlite`` entry point in ``pytest11``, so installing qmlite makes the fixtures
available everywhere:

* ``qmlite_server`` (function scope): a fresh queue manager with its own data directory.
* ``qmlite_server_session`` (session scope): one queue manager shared by the whole session.
* ``qmlite_virtual`` (function scope): a fresh queue manager on a virtual clock (``clock="virtual"``):
  ``server.clock.advance(seconds)`` expires messages and subscriptions, ends MQGET waits and
  statistics/monitoring intervals with no sleeping (docs/mqsc.md "Clock"); ``server.clock`` is a
  :class:`QmliteClock` on every server.
* ``qmlite_reset`` (function scope): the session's queue manager, reset before the test (every queue
  cleared, every object that is not a default deleted: MQSC ``RESET QMLITE``, docs/mqsc.md), so each
  test starts from a fresh queue manager without paying for a new one.

Both yield a :class:`QmliteServer` with ``host``, ``port``, ``qmgr``, ``admin_channel``,
``app_channel``, ``admin_user``, ``admin_password``, ``app_user``, ``conn_name``
(``"127.0.0.1(port)"``, the form pymqi/ibmmq take) and ``data_dir``, plus ``connect()`` for a
ready :class:`qmlite.client.sync.QueueManager`, ``mqsc(text)`` (MQSC over PCF Escape, a list of
:class:`qmlite.registry.mqsc.MqscResult`) and ``reset()``, ``snapshot(name)`` / ``restore(name)`` /
``snapshots()`` / ``delete_snapshot(name)`` (docs/mqsc.md "Snapshots"), and ``stop()`` / ``start()`` / ``restart()`` to
end the queue manager and start it again in place (same port, same data; docs/reconnect.md).  The server runs in a
background thread (its own ``trio.run``) on 127.0.0.1, port 0, with the developer-container defaults and no environment
variables read; it is stopped (clients told QM_TERMINATING, tasks cancelled, registry closed) when
the fixture ends.

Outside pytest: ``with running_qmlite(path) as server: ...``.

* ``qmlite_topology`` (function scope): a function that hosts several queue managers joined by message
  channels and returns once every channel is RUNNING: ``qmlite_topology(qmgrs=["QM1", "QM2"],
  channels=[("QM1", "QM2"), ("QM2", "QM1")])`` gives a :class:`qmlite.client.topology.Topology`
  (``running_topology(path, ...)`` outside pytest; docs/channels.md "A topology in one call").
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
from typing import Iterator

import pytest

# re-exported: the plugin's documented names (``from qmlite.client.pytest_plugin import running_qmlite``)
from .testserver import FaultRules, QmliteClock, QmliteServer, SnapshotFailed, running_qmlite  # noqa: F401

__all__ = ["QmliteServer", "QmliteTLS", "running_qmlite", "qmlite_server", "qmlite_server_session", "qmlite_reset",
           "qmlite_tls_server", "SnapshotFailed", "qmlite_worker", "worker_qmgr_name", "worker_queue_manager",
           "QmliteClock", "qmlite_virtual", "qmlite_topology"]

TLS_CHANNEL = "QMLITE.TLS.SVRCONN"  # the TLS channel qmlite_tls_server defines


@pytest.fixture
def qmlite_server(tmp_path_factory) -> Iterator[QmliteServer]:
    """A fresh in-process qmlite queue manager (QM1, DEV.ADMIN.SVRCONN admin/passw0rd,
    DEV.APP.SVRCONN without password)."""
    with running_qmlite(tmp_path_factory.mktemp("qmlite")) as server:
        _CALLS_FROM[server] = 0
        _REFUSALS_FROM[server] = 0
        yield server


@pytest.fixture
def qmlite_virtual(tmp_path_factory) -> Iterator[QmliteServer]:
    """A fresh queue manager whose clock only the test moves (``server.clock.advance(seconds)``;
    ``qmlite serve --clock virtual``): expiry, MQGET waits and intervals with no sleeping."""
    with running_qmlite(tmp_path_factory.mktemp("qmlite-virtual"), clock="virtual") as server:
        yield server


@pytest.fixture
def qmlite_topology(tmp_path_factory):
    """``qmlite_topology(qmgrs=[...], channels=[(source, target), ...], hosting="one"|"processes", ...)``:
    queue managers joined by SDR/RCVR pairs, every channel RUNNING (client/topology.py), and with
    ``cluster={"name": ..., "repos": [...]}`` members of a cluster (client/clustertopology.py); each
    topology made is ended with the test."""
    from .topology import running_topology

    with contextlib.ExitStack() as stack:
        def make(qmgrs=("QM1", "QM2"), channels=(), **options):
            return stack.enter_context(running_topology(tmp_path_factory.mktemp("qmlite-topology"), qmgrs,
                                                        channels, **options))
        yield make


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
    _CALLS_FROM[qmlite_server_session] = qmlite_server_session.last_call_seq()
    _REFUSALS_FROM[qmlite_server_session] = qmlite_server_session.last_refusal_seq()
    yield qmlite_server_session


# ---- one queue manager per xdist worker on one shared server (docs/multiqm.md) ----------------------
SHARED_ENV = "QMLITE_SHARED"  # "host:port" of a server hosting the workers' queue managers
WORKER_PATTERN = "QM_*"  # the names the shared server creates on connect


def worker_qmgr_name(worker_id: str) -> str:
    """``QM_GW0`` for xdist's worker ``gw0``; ``QM_MAIN`` without xdist (a valid MQ name either way)."""
    import re

    worker = re.sub(r"[^A-Za-z0-9._%]", "_", worker_id or "main").upper()
    return f"QM_{'MAIN' if worker == 'MASTER' else worker}"[:48]


@contextlib.contextmanager
def worker_queue_manager(tmp_root: pathlib.Path, worker_id: str, shared: str | None = None) -> Iterator[QmliteServer]:
    """The worker's own queue manager: on the shared server at ``shared`` ("host:port", what
    ``--qmlite-shared`` starts once for the whole xdist run) when given, created by its first MQCONN;
    else on a server of this worker's own that hosts it as its default."""
    from qmlite.server import config

    name = worker_qmgr_name(worker_id)
    if not shared:
        with running_qmlite(pathlib.Path(tmp_root) / "qmlite-worker", qmgr_name=name) as server:
            yield server
        return
    host, _, port = shared.rpartition(":")
    server = QmliteServer(host=host or "127.0.0.1", port=int(port), qmgr=name, admin_channel=config.ADMIN_CHANNEL,
                          app_channel=config.APP_CHANNEL, admin_user="admin",
                          admin_password=config.DEFAULT_ADMIN_PASSWORD, app_user="app",
                          data_dir=pathlib.Path(tmp_root))
    server.connect().close()  # the first MQCONN naming it creates it (--create-on-connect QM_*)
    yield server


def pytest_addoption(parser) -> None:
    parser.addoption("--qmlite-shared", action="store_true", default=False,
                     help="qmlite: one server for the whole run; qmlite_worker gives each xdist worker its own "
                          "queue manager on it (docs/multiqm.md)")


def pytest_configure(config) -> None:
    import os

    # The controller (or a run without xdist) starts the shared server before any worker is spawned;
    # the workers inherit its address in QMLITE_SHARED.
    if not config.getoption("--qmlite-shared", default=False) or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import tempfile

    root = pathlib.Path(tempfile.mkdtemp(prefix="qmlite-shared-"))
    manager = running_qmlite(root, create_on_connect=WORKER_PATTERN)
    server = manager.__enter__()
    config._qmlite_shared = (manager, os.environ.get(SHARED_ENV))
    os.environ[SHARED_ENV] = f"{server.host}:{server.port}"


def pytest_unconfigure(config) -> None:
    import os

    held = getattr(config, "_qmlite_shared", None)
    if held is not None:
        manager, before = held
        if before is None:
            os.environ.pop(SHARED_ENV, None)
        else:
            os.environ[SHARED_ENV] = before
        manager.__exit__(None, None, None)


@pytest.fixture(scope="session")
def qmlite_worker(tmp_path_factory) -> Iterator[QmliteServer]:
    """This xdist worker's own queue manager (``QM_GW0``, ``QM_GW1`` ...): on the run's shared server with
    ``--qmlite-shared`` (or QMLITE_SHARED=host:port naming a ``qmlite serve --create-on-connect 'QM_*'``),
    else on a server of its own."""
    import os

    with worker_queue_manager(tmp_path_factory.getbasetemp(), os.environ.get("PYTEST_XDIST_WORKER", "master"),
                              os.environ.get(SHARED_ENV)) as server:
        yield server
@dataclasses.dataclass(frozen=True, slots=True)
class QmliteTLS:
    """A TLS-enabled queue manager and the client's side of the test PKI (docs/tls.md)."""

    server: QmliteServer
    pki: object  # qmlite.keys.testpki.TestPKI: the CA, the queue manager's and the client's certificates
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
    from qmlite.keys import testpki as pki

    made = pki.init(tmp_path_factory.mktemp("qmlite-pki"))
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


# ---- a failing test shows the MQI calls it made, and what the queue manager refused ------------------
_CALLS_FROM: dict = {}  # a server the running test uses -> the call log's sequence number when it began
_REFUSALS_FROM: dict = {}  # and its refusals list's


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    for name in ("qmlite_server", "qmlite_reset"):
        server = getattr(item, "funcargs", {}).get(name)
        if server is None or server not in _CALLS_FROM:
            continue
        try:
            calls = server.calls(after=_CALLS_FROM[server])
        except Exception:  # the server is gone (stopped by the test): nothing to show
            continue
        lines = [c["line"] for c in calls[-200:]]
        report.sections.append(("qmlite calls", "\n".join(lines) or "(no MQI calls)"))
        # Why the queue manager refused what it refused during the test (who, the rule or the missing
        # authority, and the MQSC that would allow it): shown only when it refused something.
        refused = server.refusals(after=_REFUSALS_FROM.get(server, 0))
        if refused:
            report.sections.append(("qmlite refusals", "\n".join(r["line"] for r in refused[-50:])))
