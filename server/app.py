"""``qmlite serve``: open the registry, listen, print one ready line, stop cleanly on SIGTERM/SIGINT."""

from __future__ import annotations

import signal
import sys
import time

import trio

from qmlite.registry.state import Registry

from . import log as qlog
from .config import ServerConfig
from .listener import QueueManagerServer


def run(cfg: ServerConfig, *, log_json: bool = False, log_level: str = "info") -> int:
    qlog.configure(json=log_json, level=log_level)
    started = time.perf_counter()
    try:
        registry = Registry.open(cfg.data_dir, cfg.qmgr_name, dev_objects=cfg.dev_objects)
    except (ValueError, OSError) as exc:
        print(f"qmlite: cannot open {cfg.data_dir}: {exc}", file=sys.stderr)
        return 2
    failure: OSError | None = None
    try:
        trio.run(_main, cfg, registry, started)
    except* OSError as group:  # the port is taken, or the address is not ours
        failure = _first(group)
    finally:
        registry.close()
    if failure is not None:
        print(f"qmlite: cannot listen on {cfg.host}:{cfg.port}: {failure.strerror or failure}", file=sys.stderr)
        return 2
    return 0


def _first(group: BaseException) -> BaseException:
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


async def _main(cfg: ServerConfig, registry: Registry, started: float) -> None:
    server = QueueManagerServer(cfg, registry)
    # The signal receiver is in place before the ready line: a SIGTERM sent the moment a supervisor
    # reads that line must quiesce the queue manager, not kill the process (a signal that arrives
    # while we start is queued and handled once we are up).
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(server.serve)
            port = listeners[0].socket.getsockname()[1]
            elapsed = (time.perf_counter() - started) * 1000
            print(f"qmlite ready: queue manager {cfg.qmgr_name} listening on {cfg.host}:{port} "
                  f"(data {cfg.data_dir}, started in {elapsed:.0f} ms)", flush=True)
            async for signum in signals:
                qlog.get().info("quiescing", signal=signal.Signals(signum).name)
                break
            await server.quiesce()
            nursery.cancel_scope.cancel()
    qlog.get().info("stopped")
