"""AMQERR01.LOG as IBM writes it, rotating to AMQERR02.LOG and AMQERR03.LOG (docs/errorlog.md).

An entry, as a queue manager's error log shows one (docs/decisions.md EL1)::

    11/29/2026 08:40:12 AM - Process(1234.1) User(mqm) Program(amqrmppa)
                        Host(myhost) Installation(Installation1)
                        VRMF(9.1.2.0) QMgr(QM1)
                        Time(2026-11-29T08:40:12.345Z)
                        RemoteHost(127.0.0.1)
                        CommentInsert1(DEV.APP.SVRCONN)
                        ...
                        (a line of the indent alone)
    AMQ9777E: Channel was blocked

    EXPLANATION:
    The inbound channel 'DEV.APP.SVRCONN' was blocked ...
    ACTION:
    Contact the systems administrator, ...
    ----- cmqxrsrv.c : 1500 -------------------------------------------------------

The message, EXPLANATION and ACTION are wrapped at 79 columns as IBM's are; the closing line is 80
characters.  Beside it, AMQERR01.json holds the same entry as one JSON object a line, with the fields of
IBM's JSON diagnostic log (``ibm_messageId``, ``ibm_arithInsert1`` ... ``message``), which is what IBM's
container mirrors to its standard output (console.py).  Both rotate together: when an entry would take
AMQERR01 past ``max_bytes`` (qm.ini's ErrorLogSize, default 2 MiB), AMQERR03 is dropped, 02 becomes
03, 01 becomes 02 and a fresh 01 is begun, as IBM rotates its error logs.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import getpass
import json
import os
import pathlib
import socket
import textwrap
import threading

from qmlite.pcf import product

from . import amqmessages as AMQ

DEFAULT_SIZE = 2 * 1024 * 1024  # IBM's ErrorLogSize default (qm.ini QMErrorLog stanza): 2 MiB
MIN_SIZE = 1024  # a floor that still holds an entry (IBM's own minimum is larger; tests rotate at a few KiB)
INDENT = " " * 20
WIDTH = 79
LOG_NAMES = ("AMQERR01.LOG", "AMQERR02.LOG", "AMQERR03.LOG")
JSON_NAMES = ("AMQERR01.json", "AMQERR02.json", "AMQERR03.json")
VRMF = product.VRMF  # the level qmlite presents everywhere (pcf/product.py)
INSTALLATION = "Installation1"


@dataclasses.dataclass(frozen=True, slots=True)
class Identity:
    """Who writes: the header's Process, User, Host, Installation and VRMF."""

    pid: int
    user: str
    host: str
    installation: str = INSTALLATION
    vrmf: str = VRMF

    @classmethod
    def of_process(cls) -> Identity:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):  # a uid with no passwd entry (a container's random uid)
            user = "mqm"
        return cls(os.getpid(), user, socket.gethostname())


def thread_number() -> int:
    # IBM's Process(pid.tid) numbers the process's threads from 1: the main thread is 1 here too.
    return max(1, threading.get_native_id() - os.getpid() + 1)


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    message: AMQ.Message
    when: float  # seconds since the epoch
    qmgr: str
    inserts: dict  # a1, a2 (numbers), c1-c3 (strings)
    remote_host: str = ""
    thread: int = 1

    @property
    def number(self) -> str:
        return self.message.number

    def text(self) -> str:
        return AMQ.fill(self.message.text, self.inserts)

    def explanation(self) -> str:
        return AMQ.fill(self.message.explanation, self.inserts)

    def action(self) -> str:
        return AMQ.fill(self.message.action, self.inserts)

    def arith(self) -> list[tuple[str, int]]:
        return [(f"ArithInsert{i}", self.inserts[f"a{i}"]) for i in (1, 2) if self.inserts.get(f"a{i}") is not None]

    def comments(self) -> list[tuple[str, str]]:
        return [(f"CommentInsert{i}", str(self.inserts[f"c{i}"])) for i in (1, 2, 3)
                if self.inserts.get(f"c{i}") not in (None, "")]


def utc_stamp(when: float) -> str:
    """IBM's Time(...) and ibm_datetime: UTC to the millisecond, with a Z."""
    stamp = _dt.datetime.fromtimestamp(when, _dt.timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _local_stamp(when: float) -> str:
    # The header's first field: local time, month/day/year and a 12-hour clock, as IBM writes it on Linux.
    return _dt.datetime.fromtimestamp(when).strftime("%m/%d/%Y %I:%M:%S %p")


def _wrap(text: str) -> list[str]:
    # A text's line breaks are IBM's (a paragraph after a blank line, AMQ5542I's; a line of its own,
    # AMQ5534E's "Additional information"): each line is wrapped by itself.
    return [part for line in text.split("\n")
            for part in textwrap.wrap(line, WIDTH, break_long_words=False, break_on_hyphens=False) or [""]]


def render(entry: Entry, who: Identity) -> str:
    """One entry of AMQERR01.LOG, its closing dashes and newline included."""
    msg = entry.message
    lines = [f"{_local_stamp(entry.when)} - Process({who.pid}.{entry.thread}) User({who.user}) "
             f"Program({msg.program})",
             f"{INDENT}Host({who.host}) Installation({who.installation})",
             f"{INDENT}VRMF({who.vrmf}) QMgr({entry.qmgr})",
             f"{INDENT}Time({utc_stamp(entry.when)})"]
    if entry.remote_host:
        lines.append(f"{INDENT}RemoteHost({entry.remote_host})")
    arith = entry.arith()
    if arith:
        lines.append(INDENT + " ".join(f"{name}({value})" for name, value in arith))
    lines += [f"{INDENT}{name}({value})" for name, value in entry.comments()]
    lines.append(INDENT)
    lines += _wrap(f"{msg.number}: {entry.text()}")
    lines += ["", "EXPLANATION:", *_wrap(entry.explanation()), "ACTION:", *_wrap(entry.action())]
    closing = f"----- {msg.probe} "
    lines.append(closing + "-" * max(0, 80 - len(closing)))
    return "\n".join(lines) + "\n"


def record(entry: Entry, who: Identity) -> dict:
    """The entry as IBM's JSON diagnostic log writes it (AMQERR01.json), the container's mirror's source."""
    msg = entry.message
    out: dict = {"ibm_messageId": msg.number}
    for name, value in entry.arith():
        out["ibm_arithInsert" + name[-1]] = value
    for name, value in entry.comments():
        out["ibm_commentInsert" + name[-1]] = value
    file, _, line = msg.probe.partition(" : ")
    out.update({"ibm_datetime": utc_stamp(entry.when), "ibm_serverName": entry.qmgr, "type": "mq_log",
                "host": who.host, "loglevel": msg.loglevel, "module": f"{file}:{line}",
                "ibm_sequence": str(int(entry.when * 1_000_000_000)), "ibm_remoteHost": entry.remote_host,
                "ibm_processId": who.pid, "ibm_threadId": entry.thread, "ibm_version": who.vrmf,
                "ibm_processName": msg.program, "ibm_userName": who.user,
                "ibm_installationName": who.installation, "message": f"{msg.number}: {entry.text()}"})
    if not entry.remote_host:
        del out["ibm_remoteHost"]
    return out


class ErrorLog:
    """One queue manager's error-log files in ``directory`` (``errors`` in its data directory)."""

    def __init__(self, directory: pathlib.Path, *, max_bytes: int = DEFAULT_SIZE, who: Identity | None = None) -> None:
        self.directory = pathlib.Path(directory)
        self.max_bytes = max(int(max_bytes), MIN_SIZE)
        self.who = who or Identity.of_process()
        self._lock = threading.Lock()  # entries come from the event loop and from threads (hosted openings)
        self.failed = ""  # why the last write failed ("" when it did not): the log never fails a caller

    @property
    def path(self) -> pathlib.Path:
        return self.directory / LOG_NAMES[0]

    def write(self, entry: Entry) -> dict:
        """Append the entry to AMQERR01.LOG and AMQERR01.json, rotating first when it would not fit;
        gives back the JSON record (what the console mirror prints)."""
        text = render(entry, self.who).encode()
        rec = record(entry, self.who)
        line = (json.dumps(rec, separators=(",", ":")) + "\n").encode()
        with self._lock:
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
                try:
                    size = self.path.stat().st_size
                except FileNotFoundError:
                    size = 0
                if size and size + len(text) > self.max_bytes:
                    self._rotate()
                with open(self.path, "ab") as f:
                    f.write(text)
                with open(self.directory / JSON_NAMES[0], "ab") as f:
                    f.write(line)
                self.failed = ""
            except OSError as exc:  # a full disk or a read-only directory: the entry is lost, not the call
                self.failed = str(exc)
        return rec

    def _rotate(self) -> None:
        for names in (LOG_NAMES, JSON_NAMES):
            paths = [self.directory / n for n in names]
            paths[-1].unlink(missing_ok=True)
            for older, newer in zip(reversed(paths[1:]), reversed(paths[:-1])):
                if newer.exists():
                    newer.replace(older)
