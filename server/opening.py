"""Opening a queue manager for a server: its data directory, publish exit and start-up MQSC.

``qmlite serve`` opens the data directory on a thread (:class:`Opening`) while its main thread imports
what the server still needs (trio, the transport, the rest of the domain: ~100 ms of CPU).  Opening a
fresh data directory is mostly waiting on the disk -- SQLite's switch to WAL and the first commit of the
default objects fsync, 20-40 ms -- and little CPU (~9 ms), so the wait disappears behind the imports and
the queue manager is ready as soon as they are (issue 24, scripts/bench/start_ready.py).  The thread does
only ``Registry.open``, the same call as ever: what a client sees after start is unchanged, and the
server listens only once it has returned (its commit is on disk by then).
"""

from __future__ import annotations

import pathlib
import threading
import time

from qmlite.registry.storage.catalog import Registry
# What Registry.open imports at its first call, imported here: the opening thread then imports nothing
# while the main thread imports the server (two threads importing the same modules at once is how
# import deadlocks happen).
from qmlite.registry.objects import clusters, endpoints  # noqa: F401
from qmlite.registry.security import chlauth  # noqa: F401
from qmlite.registry.monitoring.diagnostics import errors_dir

from .config import ConfigError, ServerConfig


def open_queue_manager(cfg: ServerConfig, *, synchronous: str = "FULL", registry: Registry | None = None):
    """The queue manager ``cfg`` describes, opened (created) with its publish exit loaded and its start-up
    MQSC run; ``registry``: its data directory, already opened by :class:`Opening`."""
    from qmlite.registry.qmgr import QueueManager

    if registry is None:
        qm = QueueManager.open(pathlib.Path(cfg.data_dir), cfg.qmgr_name, dev_objects=cfg.dev_objects,
                               synchronous=synchronous, max_handles=cfg.max_handles, clock=clock(cfg))
    else:
        qm = QueueManager(registry, max_handles=cfg.max_handles)  # what QueueManager.open does after Registry.open
    # The error log (docs/errorlog.md): errors/ in the queue manager's data directory, rotating at ErrorLogSize.
    qm.diagnostics.open_log(errors_dir(cfg.data_dir), max_bytes=cfg.error_log_size)
    if cfg.publish_exit:
        from qmlite.registry.pubsub import publishexit  # only when one is configured (docs/decisions.md ST11)

        try:
            qm.publish_exit = publishexit.PublishExit(publishexit.load(cfg.publish_exit), cfg.publish_exit)
        except Exception as exc:  # whatever importing the user's module raised
            qm.shutdown()
            raise ConfigError(f"cannot load publish exit {cfg.publish_exit!r}: {exc!r}") from exc
    if cfg.mqtt_port is not None:  # before the start-up MQSC, as IBM's 10-dev.mqsc runs before the user's
        from qmlite.registry.telemetry.service import ensure_developer_channel

        try:
            ensure_developer_channel(qm.registry, cfg.mqtt_port)
            qm.telemetry.developer_port = cfg.mqtt_port  # RESET QMLITE keeps DEV.MQTT
        except ValueError as exc:  # DEV.MQTT defined as another channel type
            qm.shutdown()
            raise ConfigError(str(exc)) from exc
        qm.registry.commit()
    if cfg.mqsc_files or cfg.mqsc_dir:
        from .startup import run_startup

        try:
            run_startup(qm, cfg)
        except ConfigError:
            qm.shutdown()
            raise
    return qm


def clock(cfg: ServerConfig):
    """The queue manager's clock: the real one, or one that only the test moves (--clock virtual)."""
    if cfg.clock == "virtual":
        from qmlite.registry.testing.clock import VirtualClock

        return VirtualClock()
    return time.time


class Opening:
    """``Registry.open`` of ``cfg``'s data directory on a thread, started now; :meth:`result` waits for it
    and finishes the queue manager (:func:`open_queue_manager`) on the caller's thread, raising what the
    open raised."""

    def __init__(self, cfg: ServerConfig, *, synchronous: str = "FULL") -> None:
        self.cfg = cfg
        self._args = (pathlib.Path(cfg.data_dir), cfg.qmgr_name)
        self._kwargs = {"dev_objects": cfg.dev_objects, "clock": clock(cfg), "synchronous": synchronous}
        self._registry: Registry | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._open, name="qmlite-open", daemon=True)
        self._thread.start()

    def _open(self) -> None:
        try:
            self._registry = Registry.open(*self._args, **self._kwargs)
        except BaseException as exc:  # raised again on the caller's thread by result()
            self._error = exc

    def result(self):
        self._thread.join()
        if self._error is not None:
            raise self._error
        return open_queue_manager(self.cfg, registry=self._registry)
