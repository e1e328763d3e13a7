"""The developer container's console log: what IBM's container prints on standard output
(docs/errorlog.md, docs/decisions.md EL4-EL6).

IBM's container (mq-container, cmd/runmqserver/logging.go) mirrors the queue manager's JSON error log
(AMQERR01.json) to standard output, as each entry is written, in the format MQ_LOGGING_CONSOLE_FORMAT
names: ``json`` prints the log's JSON line unchanged; ``basic`` (the default, and what any other value
means) prints ``<ibm_datetime> <message>``, followed, when the entry has inserts, by `` [ArithInsert1(n),
CommentInsert1(x), ...]`` (the inserts sorted by name, an arithmetic insert only when not 0), emulating
MQ's MessageDetail=Extended.  MQ_LOGGING_CONSOLE_SOURCE (default ``qmgr,web``) says which logs are
mirrored: ``qmgr`` the queue manager's; ``web`` the web server's (qmlite has no Liberty log: nothing more
is printed for it).  MQ_LOGGING_CONSOLE_EXCLUDE_ID (default IBM's ``AMQ5041I,AMQ5052I,AMQ5051I,AMQ5037I,
AMQ5975I``) names messages left out.  The container's own lines ("Started queue manager", "Started web
server") come from its logger: ``<datetime> <message>`` in basic, a JSON object of type
``mq_containerlog`` with its keys sorted (Go's encoding of a map) in json.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import queue
import sys
import threading
from typing import Callable, TextIO

DEFAULT_EXCLUDE = "AMQ5041I,AMQ5052I,AMQ5051I,AMQ5037I,AMQ5975I"
# Lines waiting for standard output, at most: a reader that stops reading (a pipe nobody drains) costs the
# lines beyond these, never a blocked queue manager (docs/decisions.md EL4).
PENDING = 1000
SOURCES = ("qmgr", "web", "mqsc")


def basic(record: dict) -> str:
    """formatBasic's line for an error-log record (no newline)."""
    inserts = []
    for key, value in record.items():
        if key.startswith("ibm_commentInsert"):
            inserts.append(f"Comment{key[len('ibm_comment'):]}({value})")
        elif key.startswith("ibm_arithInsert") and value != 0:
            inserts.append(f"Arith{key[len('ibm_arith'):]}({value})")
    if inserts:
        return f"{record['ibm_datetime']} {record['message']} [{', '.join(sorted(inserts))}]"
    return f"{record['ibm_datetime']} {record['message']}".replace("\n", "\\n")


def container_record(message: str, *, when: float, host: str, server: str, process: str, pid: int,
                     user: str, level: str = "INFO") -> dict:
    """A line of the container's own logger (pkg/logger): its fields, as its JSON encoding orders them."""
    stamp = _dt.datetime.fromtimestamp(when, _dt.timezone.utc)
    entry = {"message": message, "ibm_datetime": stamp.strftime("%Y-%m-%dT%H:%M:%S.")
             + f"{stamp.microsecond // 1000:03d}Z", "loglevel": level, "host": host, "ibm_serverName": server,
             "ibm_processName": process, "ibm_processId": str(pid), "ibm_userName": user, "type": "mq_containerlog"}
    return dict(sorted(entry.items()))


@dataclasses.dataclass
class Console:
    """Standard output as the container's console: ``entry(record)`` mirrors an error-log record,
    ``container(record)`` prints one of the container's own lines.  Lines may be held until ``release``
    (``qmlite serve`` prints its ready line first, then what the start wrote)."""

    format: str = "basic"
    sources: tuple = ("qmgr", "web")
    exclude: tuple = tuple(DEFAULT_EXCLUDE.split(","))
    stream: TextIO | None = None
    held: list | None = dataclasses.field(default_factory=list)  # None once released
    background: bool = False  # write from a thread of its own (``qmlite serve``), never blocking the caller
    dropped: int = 0  # lines lost to a full buffer (background only)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    _pending: queue.Queue = dataclasses.field(default_factory=lambda: queue.Queue(PENDING))
    _writer: threading.Thread | None = None

    @classmethod
    def from_environment(cls, environ, stream: TextIO | None = None) -> tuple[Console, list[str]]:
        """The console MQ_LOGGING_CONSOLE_FORMAT/_SOURCE/_EXCLUDE_ID describe, and the warnings the container
        gives for values it does not know (an unknown format is basic; an unknown source is ignored)."""
        warnings: list[str] = []
        fmt = (environ.get("MQ_LOGGING_CONSOLE_FORMAT") or environ.get("LOG_FORMAT") or "").strip().lower()
        if fmt not in ("basic", "json"):
            fmt = "basic"
        raw = environ.get("MQ_LOGGING_CONSOLE_SOURCE", "")
        given = [s.strip().lower() for s in raw.split(",") if s.strip()]
        sources = tuple(s for s in given if s in SOURCES) if given else ("qmgr", "web")
        if given and len(sources) != len(given):
            warnings.append("One or more invalid value is provided for MQ_LOGGING_CONSOLE_SOURCE. Allowed values "
                            "are 'qmgr','web' and 'mqsc' in csv format")
        exclude = environ.get("MQ_LOGGING_CONSOLE_EXCLUDE_ID", DEFAULT_EXCLUDE)
        ids = tuple(i.strip().upper() for i in exclude.split(",") if i.strip())
        return cls(fmt, sources, ids, stream), warnings

    def line_for(self, record: dict) -> str | None:
        """The console line for an error-log record; None when the settings leave it out."""
        if "qmgr" not in self.sources or record.get("ibm_messageId", "") in self.exclude:
            return None
        return json.dumps(record, separators=(",", ":")) if self.format == "json" else basic(record)

    def container_line(self, record: dict) -> str:
        if self.format == "json":
            return json.dumps(record, separators=(",", ":"))
        return f"{record['ibm_datetime']} {record['message']}"

    def entry(self, record: dict) -> None:
        line = self.line_for(record)
        if line is not None:
            self._emit(line)

    def container(self, record: dict) -> None:
        self._emit(self.container_line(record))

    def _emit(self, line: str) -> None:
        with self._lock:
            if self.held is not None:
                self.held.append(line)
                return
        self._print(line)

    def release(self) -> None:
        """Print what was held, in order; from now on lines are printed as they come."""
        with self._lock:
            held, self.held = self.held or [], None
        for line in held:
            self._print(line)

    def _print(self, line: str) -> None:
        if not self.background:
            self._write(line)
            return
        if self._writer is None:
            self._writer = threading.Thread(target=self._drain, name="qmlite-console", daemon=True)
            self._writer.start()
        try:
            self._pending.put_nowait(line)
        except queue.Full:
            self.dropped += 1

    def _drain(self) -> None:
        while (line := self._pending.get()) is not None:
            self._write(line)

    def close(self, timeout: float = 2.0) -> None:
        """Write what is pending (for at most ``timeout`` seconds: a reader that stopped cannot hold the
        process's end), then stop the writer."""
        if self._writer is None:
            return
        try:
            self._pending.put(None, timeout=timeout)
        except queue.Full:
            return
        self._writer.join(timeout)

    def _write(self, line: str) -> None:
        stream = self.stream or sys.stdout
        try:
            stream.write(line + "\n")
            stream.flush()
        except (OSError, ValueError):  # stdout closed (the supervisor went away): the log file still has it
            pass


# The process's console, when ``qmlite serve`` installs one (standard output is one per process); every
# queue manager's error log mirrors to it.
_console: Console | None = None
Sink = Callable[[dict], None]


def install(console: Console | None) -> None:
    global _console
    _console = console


def installed() -> Console | None:
    return _console
