"""``qmlite serve``: open the queue manager, listen, print one ready line, stop cleanly on SIGTERM/SIGINT."""

from __future__ import annotations

import signal
import sys
import time

import trio

from . import log as qlog
from .config import ConfigError, ServerConfig
from .listener import open_queue_manager, running


def run(cfg: ServerConfig, *, log_json: bool = False, log_level: str = "info") -> int:
    qlog.configure(json=log_json, level=log_level)
    started = time.perf_counter()
    try:
        qm = open_queue_manager(cfg)
    except ConfigError as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:
        print(f"qmlite: cannot open {cfg.data_dir}: {exc}", file=sys.stderr)
        return 2
    failure: OSError | None = None
    try:
        trio.run(_main, cfg, qm, started)
    except* OSError as group:  # the port is taken, or the address is not ours
        failure = _first(group)
    finally:
        qm.shutdown()
    if failure is not None:
        print(f"qmlite: cannot listen on {cfg.host}:{cfg.port}: {failure.strerror or failure}", file=sys.stderr)
        return 2
    return 0


def _first(group: BaseException) -> BaseException:
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


async def _main(cfg: ServerConfig, qm, started: float) -> None:
    # The signal receiver is in place before the ready line: a SIGTERM sent the moment a supervisor
    # reads that line must quiesce the queue manager, not kill the process.
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with running(cfg, qm=qm) as server:
            elapsed = (time.perf_counter() - started) * 1000
            print(f"qmlite ready: queue manager {cfg.qmgr_name} listening on {cfg.host}:{server.port} "
                  f"(data {cfg.data_dir}, started in {elapsed:.0f} ms)", flush=True)
            async for signum in signals:
                qlog.get().info("quiescing", signal=signal.Signals(signum).name)
                break
    qlog.get().info("stopped")
