"""Start-up MQSC: the scripts a queue manager runs when it starts, after its default objects.

As IBM's developer container runs the ``*.mqsc`` files in ``/etc/mqm`` in name order after its own
``10-dev.mqsc``: ``qmlite serve --mqsc FILE ...`` runs the files given, in the order given, then
``--mqsc-dir DIR`` every ``*.mqsc`` in DIR in name order.  A command that fails is logged with its
file and line and the server starts anyway; with ``--strict`` (``mqsc_strict``) the first failing
file stops the start with that message.  Every script runs through registry/mqsc, as user mqm, with
one commit at the end of each file.
"""

from __future__ import annotations

import pathlib
import time

from qmlite.registry.admin.engine import Requester
from qmlite.registry.mqsc import run_with_engine
from qmlite.registry.mqsc.reader import split_commands

from . import log as qlog
from .config import ConfigError, ServerConfig


def scripts(cfg: ServerConfig) -> list[pathlib.Path]:
    files = [pathlib.Path(f) for f in cfg.mqsc_files]
    if cfg.mqsc_dir:
        directory = pathlib.Path(cfg.mqsc_dir)
        if not directory.is_dir():
            raise ConfigError(f"--mqsc-dir {directory}: not a directory")
        files += sorted(directory.glob("*.mqsc"), key=lambda p: p.name)
    return files


def run_startup(qm, cfg: ServerConfig) -> list[str]:
    """Run the start-up scripts; returns one message per failed command (``file:line: text``)."""
    log = qlog.get()
    problems: list[str] = []
    requester = Requester(user="mqm", admin=True)
    for path in scripts(cfg):
        started = time.perf_counter()
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            message = f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}"
            if cfg.mqsc_strict:
                raise ConfigError(message) from exc
            log.error("mqsc_script_unreadable", file=str(path), error=message)
            problems.append(message)
            continue
        qm.engine.log_commands = False  # each failure is logged below; one summary line per script
        try:
            results = run_with_engine(qm.engine, text, requester)
        finally:
            qm.engine.log_commands = True
            qm.registry.commit()
        failed = []
        if any(result.completion_code == 2 for result in results):  # MQCC_FAILED: say where (split only then)
            for source, result in zip(split_commands(text), results):
                if result.completion_code == 2:
                    detail = " ".join(line for line in result.text if line)
                    failed.append(f"{path}:{source.line}: {source.text}: {detail}")
        for message in failed:
            log.error("mqsc_command_failed", detail=message)
        log.info("mqsc_script", file=str(path), commands=len(results), failed=len(failed),
                 ms=round((time.perf_counter() - started) * 1000, 1))
        if failed and cfg.mqsc_strict:
            raise ConfigError(failed[0])
        problems += failed
    return problems
