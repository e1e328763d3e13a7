"""``qmlite serve``: open the queue manager, listen, print one ready line, stop cleanly on SIGTERM/SIGINT."""

from __future__ import annotations

import gc
import os
import resource
import signal
import sys
import time

from qmlite.registry.monitoring.errorlog.consolelog import Console, container_record, install

from . import log as qlog
from .config import ConfigError, ServerConfig


# IBM's container refuses to start without LICENSE=accept; qmlite is Apache-2.0 and needs no
# acceptance, so it accepts and ignores the variable (LICENSE=view prints the licence and exits, as
# IBM's does).  docs/rest.md "Container conventions".
RECONNECT_SIGNAL = signal.SIGUSR1  # endmqm -r: end, asking reconnectable clients to reconnect
LICENSE_TEXT = "qmlite is licensed under the Apache License 2.0; it contains no IBM code and needs no LICENSE=accept."


def license_check(environ) -> int | None:
    """None to go on starting; an exit code when LICENSE asked only to see the licence."""
    value = environ.get("LICENSE", "").strip().lower()
    if value == "view":
        print(LICENSE_TEXT, flush=True)
        return 0
    if value not in ("", "accept"):
        print(f"qmlite: LICENSE={environ['LICENSE']!r} ignored: {LICENSE_TEXT}", file=sys.stderr, flush=True)
    return None


def ready_lines(cfg: ServerConfig, port: int, http_port: int | None, elapsed_ms: float,
                mqtt_port: int | None = None) -> list[str]:
    """qmlite's ready line.  IBM's start messages follow it (``start_lines``).  ``mqtt_port``: DEV.MQTT's,
    listening (``--mqtt-port``; 0 asks the system for one, which only this line tells)."""
    scheme = "https" if cfg.tls_cert else "http"
    http = f" and {scheme}://{cfg.http_host or cfg.host}:{http_port}" if http_port is not None else ""
    if mqtt_port is not None:
        http += f" and mqtt://{cfg.host}:{mqtt_port}"
    return [f"qmlite ready: queue manager {cfg.qmgr_name} listening on {cfg.host}:{port}{http} "
            f"(data {cfg.data_dir}, started in {elapsed_ms:.0f} ms)"]


def console_for(environ) -> Console:
    """The developer container's console on standard output (MQ_LOGGING_CONSOLE_FORMAT, _SOURCE,
    _EXCLUDE_ID: docs/errorlog.md), installed for every queue manager's error log to mirror to.  It holds
    what the start writes until ``start_lines`` prints it after the ready line."""
    console, warnings = Console.from_environment(environ)
    console.background = True  # standard output never blocks the queue manager
    install(console)
    for warning in warnings:
        console.container(container_record(warning, **_who()))
    return console


def _who() -> dict:
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    return {"when": time.time(), "host": socket.gethostname(), "server": os.environ.get("MQ_QMGR_NAME", ""),
            "process": "qmlite", "pid": os.getpid(), "user": user}


def start_lines(console: Console, cfg: ServerConfig, http_port: int | None) -> None:
    """After the ready line, in IBM's container's order (docs/decisions.md EL5): the error log's start
    messages as the container mirrors them (AMQ8003I, the listener's AMQ5026I, AMQ5806I), the container's
    "Started queue manager", then, with the REST API, its "Started web server" -- the lines wait
    strategies look for (IBM's Testcontainers module: AMQ5026, or "Started web server" with the web
    server)."""
    console.release()
    console.container(container_record("Started queue manager", **dict(_who(), server=cfg.qmgr_name)))
    if http_port is not None:
        console.container(container_record("Started web server", **dict(_who(), server=cfg.qmgr_name)))


def open_files_limit(cfg: ServerConfig) -> int:
    """Each client connection is a descriptor: the soft limit on open files goes up to the hard limit
    (commonly 1,024 soft, far below ``max_connections`` at scale), as IBM's queue manager asks of its
    user's ``ulimit -n``.  Returns the limit now in force; a warning when it is below what
    ``max_connections`` needs (the connections beyond it fail at accept, docs/compat.md)."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            wanted = hard if hard != resource.RLIM_INFINITY else max(soft, cfg.max_connections + _SPARE_FILES)
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    except (ValueError, OSError) as exc:
        qlog.get().warning("open_files_limit", reason=str(exc))
        return -1
    if soft != resource.RLIM_INFINITY and soft < cfg.max_connections + _SPARE_FILES:
        qlog.get().warning("open_files_limit", limit=soft, max_connections=cfg.max_connections,
                           needed=cfg.max_connections + _SPARE_FILES)
    return soft


_SPARE_FILES = 64  # descriptors beside the connections: the data directory's files, the listener, logs

# The cyclic garbage collector's first threshold (CPython's default 700).  With thousands of connections
# each call in flight keeps its objects alive across young collections, which then promote them and
# bring on full collections over every connection's state: at 4,000 connections a third of the server's
# CPU per put+get went to the collector.  10,000 makes young collections rare (a put+get leaves almost
# nothing to collect) at the cost of at most that many objects waiting (decision CN3).
GC_THRESHOLD0 = 10_000


def tune_gc() -> None:
    """The serving process's collector thresholds: only ``qmlite serve``'s own process (a server inside a
    test process leaves that process's collector as it is)."""
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD0, gen1, gen2)


def run(cfg: ServerConfig, *, log_json: bool = False, log_level: str = "info") -> int:
    qlog.configure(json=log_json, level=log_level)
    stop = license_check(os.environ)
    if stop is not None:
        return stop
    open_files_limit(cfg)
    tune_gc()
    console = console_for(os.environ)
    started = time.perf_counter()
    from .opening import Opening

    try:
        opening = Opening(cfg)  # the data directory opens on a thread while trio and the transport import
        import trio

        from . import listener  # noqa: F401
        qm = opening.result()
    except ConfigError as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:
        print(f"qmlite: cannot open {cfg.data_dir}: {exc}", file=sys.stderr)
        return 2
    failure: OSError | None = None
    try:
        trio.run(_main, cfg, qm, started, console)
    except* OSError as group:  # the port is taken, or the address is not ours
        failure = _first(group)
    finally:
        qm.shutdown()
        install(None)  # the console is this run's
        console.close()
    if failure is not None:
        print(f"qmlite: cannot listen on {cfg.host}:{cfg.port}: {failure.strerror or failure}", file=sys.stderr)
        return 2
    return 0


def _first(group: BaseException) -> BaseException:
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


async def _main(cfg: ServerConfig, qm, started: float, console: Console) -> None:
    import trio

    from .listener import running

    # The signal receiver is in place before the ready line: a SIGTERM sent the moment a supervisor
    # reads that line must quiesce the queue manager, not kill the process.
    # SIGTERM / SIGINT end the queue manager as ``endmqm`` does (clients told it is ending; reconnectable
    # ones do not come back); SIGUSR1 as ``endmqm -r`` does (reconnectable clients are asked to
    # reconnect, to this queue manager once it is back or to another of their list).
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, RECONNECT_SIGNAL) as signals:
        async with running(cfg, qm=qm) as server:
            elapsed = (time.perf_counter() - started) * 1000
            for line in ready_lines(cfg, server.port, server.http_port, elapsed, server.mqtt_port):
                print(line, flush=True)
            start_lines(console, cfg, server.http_port)
            if not gc.isenabled():  # ``qmlite serve`` switched the collector off while starting (qmlite/cli.py):
                gc.freeze()  # what start-up made lives as long as the process: out of the collector's way
                gc.enable()
            ended = _end_requests(server)  # endmqm: STOP QMLITE QMGR, as a signal would
            async with trio.open_nursery() as waiting:  # the first of a signal and an endmqm ends it
                waiting.start_soon(_first_signal, signals, server, waiting.cancel_scope)
                waiting.start_soon(_first_end, ended, server, waiting.cancel_scope)
    qlog.get().info("stopped")


def _end_requests(server):
    """A channel that receives ``reconnect`` each time an endmqm asks the server to end (registry/hosting.py
    ``QueueManagers.on_end``, from any thread: the command server's, REST's)."""
    import trio

    send, receive = trio.open_memory_channel(1)
    token = trio.lowlevel.current_trio_token()

    def on_end(reconnect: bool) -> None:
        token.run_sync_soon(lambda: _offer(send, reconnect))

    if server.qmgrs is not None:
        server.qmgrs.on_end = on_end
    return receive


def _offer(send, reconnect: bool) -> None:
    import trio

    try:
        send.send_nowait(reconnect)
    except trio.WouldBlock:  # an end is already asked for
        pass


async def _first_signal(signals, server, scope) -> None:
    async for signum in signals:
        server.reconnect_clients = signum == RECONNECT_SIGNAL
        qlog.get().info("quiescing", signal=signal.Signals(signum).name, reconnect_clients=server.reconnect_clients)
        break
    scope.cancel()


async def _first_end(ended, server, scope) -> None:
    server.reconnect_clients = await ended.receive()
    qlog.get().info("quiescing", command="endmqm", reconnect_clients=server.reconnect_clients)
    scope.cancel()
