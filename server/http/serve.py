"""Serving the REST app: hypercorn's trio worker in the queue manager's own nursery, stopped by the
server's quiesce (no second thread, no second event loop)."""

from __future__ import annotations

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve

from .. import log as qlog
from . import connguard, h2guard
from .restapp import create_app


def hypercorn_config(cfg) -> Config:
    config = Config()
    host = cfg.http_host or cfg.host
    config.bind = [f"[{host}]:{cfg.http_port}" if ":" in host else f"{host}:{cfg.http_port}"]
    config.accesslog = None  # the app logs one structlog event per request
    config.errorlog = None
    config.graceful_timeout = 2.0
    config.keep_alive_timeout = 30.0
    if cfg.tls_cert and cfg.tls_key:
        config.certfile, config.keyfile = str(cfg.tls_cert), str(cfg.tls_key)
    return config


async def run(server, stopping: trio.Event, *, run_mqsc=None, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Serve until ``stopping`` is set; ``task_status.started`` gets the bound port."""
    cfg = server.cfg
    h2guard.install()  # an HTTP/2 body answered early must not end the server (h2guard.py)
    connguard.install()  # nor any other bug met by one HTTP connection (connguard.py)
    app = create_app(server, run_mqsc=run_mqsc)
    config = hypercorn_config(cfg)

    async def started_port(*, task_status=trio.TASK_STATUS_IGNORED):
        await hypercorn_serve(app, config, shutdown_trigger=stopping.wait, task_status=task_status)

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(started_port)
        port = int(binds[0].rsplit(":", 1)[1])
        qlog.get().info("http_listening", url=binds[0].rsplit(":", 1)[0] + f":{port}", tls=bool(cfg.tls_cert))
        task_status.started(port)
