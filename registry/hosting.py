"""The queue managers one qmlite process hosts (issue 23 part 3, docs/multiqm.md).

One object holds them, name -> :class:`QueueManager`, so MQCONN (server/connection.py), MQSC
(``DISPLAY QMLITE QMGRS``, ``DEFINE QMLITE QMGR(name)``), REST (``/admin/qmlite/qmgrs``) and the pytest
plugin all create and find queue managers through the same rules:

* the default queue manager keeps the server's data directory itself (a data directory written by a
  single-queue-manager qmlite opens unchanged); every other one lives in ``<data dir>/qmgrs/<name>``
  (docs/decisions.md MQ1);
* a name is an MQ queue-manager name, checked by ``registry/qmgrnames.py`` (the one check every door
  uses); its directory is IBM's transformation of the name (``.`` to ``!``, ``/`` to ``&``);
* a blank name (or ``*``) picks the default, as MQCONN's blank QMgrName picks the default queue manager;
* an unknown name matching the create-on-connect pattern is created by ``create_on_connect``, which the
  server calls only once the client is authenticated (docs/decisions.md NM5), within a cap on the queue
  managers hosted (``max_qmgrs``) and on the creations per minute (``create_rate``); else it is unknown
  (MQCONN's MQRC_Q_MGR_NAME_ERROR, 2058).

No sockets and no trio here: the server is told of each new queue manager through ``on_created`` and
starts its tasks (command server, committer, monitoring) itself.
"""

from __future__ import annotations

import collections
import dataclasses
import fnmatch
import os
import pathlib
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterable

from qmlite.registry import qmgrnames
from qmlite.registry.qmgr import QueueManager

SUBDIR = "qmgrs"  # <data dir>/qmgrs/<directory name>: the data directory of each queue manager but the default
# A create-on-connect pattern: queue-manager name characters plus the generic * and ?.
PATTERN = re.compile(r"[A-Za-z0-9./_%*?]{1,48}")
RATE_WINDOW = 60.0  # seconds: create_rate counts the creations by MQCONN in the last minute


class HostingError(ValueError):
    """A name or pattern the hosting rules refuse, or a queue manager they cannot create now; ``reason``
    is the MQRC an MQCONN or REST reports, ``command_reason`` the MQRCCF an MQSC command reports."""

    def __init__(self, reason: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def command_reason(self) -> int:
        return _COMMAND_REASONS.get(self.reason, self.reason)


MQRC_Q_MGR_NAME_ERROR = 2058  # cmqc.h: the name is not a queue-manager name or names none hosted here
MQRC_Q_MGR_NOT_AVAILABLE = 2059  # cmqc.h: a valid name that cannot be served now (a cap, or its opening failed)
MQRC_Q_MGR_EXISTS = 4001  # cmqcfc.h MQRCCF_OBJECT_ALREADY_EXISTS: crtmqm's "already exists"
MQRCCF_Q_MGR_NAME_ERROR = 3074  # cmqcfc.h: "queue manager name not valid or not known"
MQRCCF_OBJECT_LIMIT_EXCEEDED = 3209  # cmqcfc.h: "queue manager local object limit exceeded"
MQRC_FUNCTION_NOT_SUPPORTED = 2298  # cmqc.h: what this server cannot do (a server with no end hook)
MQRC_Q_MGR_ACTIVE = 2222  # cmqc.h "queue manager active": strmqm's and dltmqm's "running" (5)
_COMMAND_REASONS = {MQRC_Q_MGR_NAME_ERROR: MQRCCF_Q_MGR_NAME_ERROR,
                    MQRC_Q_MGR_NOT_AVAILABLE: MQRCCF_OBJECT_LIMIT_EXCEEDED}


def check_name(name: str) -> str:
    if not qmgrnames.is_name(name):
        raise HostingError(MQRC_Q_MGR_NAME_ERROR, qmgrnames.why_not(name))
    return name


def check_pattern(pattern: str) -> str:
    if not isinstance(pattern, str) or not PATTERN.fullmatch(pattern):
        raise HostingError(MQRC_Q_MGR_NAME_ERROR, f"{pattern!r} is not a valid queue manager name pattern: "
                           f"1 to 48 characters from {qmgrnames.CHARACTERS} and the wildcards * ?")
    return pattern


@dataclasses.dataclass(frozen=True, slots=True)
class Hosted:
    """What DISPLAY QMLITE QMGRS and GET /admin/qmlite/qmgrs show of one queue manager."""

    name: str
    default: bool
    status: str  # RUNNING, QUIESCING or ENDED (endmqm ended it; strmqm starts it again)
    connections: int
    data_dir: str


class QueueManagers:
    """The queue managers of one process.  ``opener(name, data_dir)`` opens one (the server passes its
    settings: dev objects, start-up MQSC, publish exit); the default is opened by the caller and added.
    ``max_qmgrs`` caps how many are hosted (the default included; 0: no cap), ``create_rate`` how many
    MQCONNs may create in a minute (0: no limit); ``clock`` measures that minute."""

    def __init__(self, data_dir: pathlib.Path, default: QueueManager, *,
                 opener: Callable[[str, pathlib.Path], QueueManager], create_pattern: str = "",
                 max_qmgrs: int = 0, create_rate: int = 0, clock: Callable[[], float] = time.monotonic) -> None:
        self.data_dir = pathlib.Path(data_dir)
        self.default = default
        self.default_name = default.registry.qmgr.name
        self.create_pattern = check_pattern(create_pattern) if create_pattern else ""
        self.max_qmgrs = max_qmgrs
        self.create_rate = create_rate
        self._clock = clock
        self._created_at: collections.deque[float] = collections.deque()  # create-on-connect times, last minute
        self._opener = opener
        self._qmgrs: dict[str, QueueManager] = {self.default_name: default}
        self._lock = threading.Lock()  # creations from the REST thread and the event loop
        self.on_created: Callable[[QueueManager], None] | None = None  # the server starts its tasks
        # endmqm (STOP QMLITE QMGR): the server ends the process's queue managers as at SIGTERM
        # (``reconnect``: as at SIGUSR1, endmqm -r); called on any thread, it only asks
        self.on_end: Callable[[bool], None] | None = None
        # endmqm of a hosted queue manager other than the default: the server ends that one alone (its
        # connections told, its tasks stopped) and then calls ``closed``; called on any thread, it only asks
        self.on_end_one: Callable[[str, bool], None] | None = None
        self._ended: set[str] = set()  # ended by endmqm, data directory kept: strmqm starts, dltmqm deletes
        default.hosting = self

    # ---- finding ---------------------------------------------------------------------------------
    def names(self) -> list[str]:
        return [self.default_name] + sorted(n for n in self._qmgrs if n != self.default_name)

    def get(self, name: str) -> QueueManager | None:
        """The queue manager an MQCONN's QMgrName names (blank or ``*``: the default); None if none."""
        name = (name or "").rstrip(" \x00")  # padding; a newline or tab is part of a (bad) name
        if name in ("", "*"):
            return self.default
        return self._qmgrs.get(name)

    def __len__(self) -> int:
        return len(self._qmgrs)

    def __iter__(self):
        return iter([self._qmgrs[n] for n in self.names()])

    def creatable(self, name: str) -> bool:
        """Whether an MQCONN naming ``name`` may create it (once its client is authenticated)."""
        return bool(self.create_pattern) and qmgrnames.is_name(name) and fnmatch.fnmatchcase(name, self.create_pattern)

    def create_on_connect(self, name: str, *, created: float | None = None) -> QueueManager:
        """What an authenticated MQCONN naming ``name`` gets: the hosted queue manager, or one created now
        when the name matches the pattern and neither cap is reached (HostingError 2058 / 2059 otherwise).
        ``created``: the creation time its QMID was already given with (the ID exchange's answer)."""
        found = self.get(name)
        if found is not None:
            return found
        if not self.creatable(name):
            raise HostingError(MQRC_Q_MGR_NAME_ERROR, f"queue manager {name} is not hosted here")
        with self._lock:
            now = self._clock()
            while self._created_at and self._created_at[0] <= now - RATE_WINDOW:
                self._created_at.popleft()
            if self.create_rate and len(self._created_at) >= self.create_rate:
                raise HostingError(MQRC_Q_MGR_NOT_AVAILABLE, f"queue manager {name} not created: "
                                   f"{self.create_rate} created by MQCONN in the last minute (create_rate)")
            self._created_at.append(now)
        return self.create(name, exist_ok=True, created=created)

    # ---- creating --------------------------------------------------------------------------------
    def data_dir_of(self, name: str) -> pathlib.Path:
        """Where queue manager ``name`` lives: the server's data directory for the default, else
        ``<data dir>/qmgrs/<IBM's transformation of the name>``; a directory an earlier qmlite made under
        the name itself (before NM2) is used where it exists and the transformed one does not."""
        if name == self.default_name:
            return self.data_dir
        root = self.data_dir / SUBDIR
        path = root / qmgrnames.directory_name(name)
        if path.name != name and "/" not in name and not path.exists() and (root / name).is_dir():
            return root / name
        return path

    def create(self, name: str, *, exist_ok: bool = False, created: float | None = None) -> QueueManager:
        check_name(name)
        with self._lock:
            found = self._qmgrs.get(name)
            if found is not None:
                if exist_ok:
                    return found
                raise HostingError(MQRC_Q_MGR_EXISTS, f"queue manager {name} already exists")
            if name in self._ended:  # crtmqm of an ended one: it exists; MQCONN to it: not available
                raise (HostingError(MQRC_Q_MGR_NOT_AVAILABLE, f"queue manager {name} has ended") if exist_ok
                       else HostingError(MQRC_Q_MGR_EXISTS, f"queue manager {name} already exists"))
            qm = self._add(name, created)
        if self.on_created is not None:
            self.on_created(qm)
        return qm

    def _add(self, name: str, created: float | None) -> QueueManager:
        """Open ``name`` and host it, the lock held; ``create`` and ``start`` announce it after."""
        if self.max_qmgrs and len(self._qmgrs) >= self.max_qmgrs:
            raise HostingError(MQRC_Q_MGR_NOT_AVAILABLE, f"queue manager {name} not created: "
                               f"{len(self._qmgrs)} hosted, the most allowed (max_qmgrs)")
        path = self.data_dir_of(name)
        fresh = not path.exists()
        qm = self._open(name, path, fresh)
        if fresh and created is not None:
            qm.registry.set_created(created)  # the QMID its first client was told (NM5)
        qm.hosting = self
        self._qmgrs[name] = qm
        return qm

    def _open(self, name: str, path: pathlib.Path, fresh: bool) -> QueueManager:
        """Open (create) one; a failure is HostingError 2059 naming no path (the cause chained for the
        server's log), and a directory made for it is removed again: nothing half-made stays behind."""
        try:
            os.makedirs(path, exist_ok=True)
            return self._opener(name, path)
        except Exception as exc:
            if fresh:
                shutil.rmtree(path, ignore_errors=True)
            raise HostingError(MQRC_Q_MGR_NOT_AVAILABLE, f"queue manager {name} could not be opened "
                               f"({type(exc).__name__})") from exc

    def open_existing(self, report: Callable[[str, str], None] | None = None) -> list[str]:
        """The queue managers an earlier run created (``<data dir>/qmgrs/*``): a restarted server hosts
        what it hosted before (docs/decisions.md MQ3).  A directory whose name gives no queue-manager
        name is left alone and ``report(directory, why)`` told of it."""
        root = self.data_dir / SUBDIR
        if not root.is_dir():
            return []
        found: list[str] = []
        for entry in sorted(root.iterdir()):
            if not entry.is_dir():
                continue
            name = qmgrnames.name_of_directory(entry.name)
            if name is None:
                if report is not None:
                    report(entry.name, "not a queue manager name")
            elif name not in self._qmgrs and name not in found and self.data_dir_of(name) == entry:
                found.append(name)
        return found

    def create_many(self, names: Iterable[str], *, found: Iterable[str] = (), threads: int = 8,
                    report: Callable[[str, str], None] | None = None) -> None:
        """Open (creating where new) several queue managers at start, ``threads`` at a time: opening one
        is mostly SQLite and fsync, which run outside the GIL, so 32 are ready in little more than the
        time of a few (scripts/bench/multiqm_ready.py).  Already hosted names are skipped.  ``names``
        must open (the first failure is raised); ``found`` (directories of an earlier run) that fail to
        open are left out and ``report(name, why)`` told, so one bad directory cannot stop a start."""
        import concurrent.futures

        wanted = [check_name(n) for n in dict.fromkeys(names)]
        optional = [n for n in dict.fromkeys(found) if n not in wanted]
        todo = [n for n in wanted + optional if n not in self._qmgrs]
        if not todo:
            return
        paths = {name: self.data_dir_of(name) for name in todo}
        opened: dict[str, QueueManager] = {}
        failure: BaseException | None = None
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(threads, len(todo)))) as pool:
            futures = {pool.submit(self._open, name, paths[name], not paths[name].exists()): name for name in todo}
            for future in concurrent.futures.as_completed(futures):
                name = futures[future]
                try:
                    opened[name] = future.result()
                except HostingError as exc:
                    if name in wanted:  # raise the first one's own error, close what did open
                        failure = failure or exc.__cause__ or exc
                    elif report is not None:
                        report(name, f"{exc}: {exc.__cause__!r}")
        if failure is not None:
            for qm in opened.values():
                qm.shutdown()
            raise failure
        for name in todo:  # in the order asked for, each announced as create() announces it
            qm = opened.get(name)
            if qm is None:
                continue
            qm.hosting = self
            with self._lock:
                self._qmgrs[name] = qm
            if self.on_created is not None:
                self.on_created(qm)

    # ---- ending, starting again, deleting (endmqm, strmqm, dltmqm) -------------------------------------
    def _known(self, name: str) -> None:
        check_name(name)
        if name not in self._qmgrs and name not in self._ended:
            raise HostingError(MQRC_Q_MGR_NAME_ERROR, f"queue manager {name} is not hosted here")

    def end(self, name: str, *, reconnect: bool = False) -> None:
        """endmqm ``name``: the default ends the server and every queue manager it hosts (``on_end``: the
        default is the process's); another ends alone (``on_end_one``, then ``closed``).  Unknown: 2058;
        ended already: 2059 (IBM's endmqm "not available"); no hook to ask: 2298."""
        self._known(name)
        if name in self._ended:
            raise HostingError(MQRC_Q_MGR_NOT_AVAILABLE, f"queue manager {name} has ended")
        hook = self.on_end if name == self.default_name else self.on_end_one
        if hook is None:
            raise HostingError(MQRC_FUNCTION_NOT_SUPPORTED, f"queue manager {name} cannot be ended here: "
                               "this server was not started by qmlite serve")
        if name == self.default_name:
            self.on_end(reconnect)
        else:
            self.on_end_one(name, reconnect)

    def is_ended(self, name: str) -> bool:
        """Whether ``name`` is a hosted queue manager endmqm ended (MQCONN to it: 2059, not 2058)."""
        return name in self._ended

    def closed(self, name: str) -> None:
        """The server has ended hosted queue manager ``name`` (its connections and tasks are gone): its
        data directory is closed and it shows ENDED until strmqm or dltmqm."""
        with self._lock:
            qm = self._qmgrs.pop(name, None)
            if qm is None or name == self.default_name:
                return
            self._ended.add(name)
        qm.shutdown()

    def start(self, name: str) -> QueueManager:
        """strmqm ``name``: an ended one is opened again and announced as created (its tasks start);
        running: HostingError MQRC_Q_MGR_ACTIVE (strmqm's 5); unknown: 2058 (16)."""
        self._known(name)
        with self._lock:
            if name not in self._ended:
                raise HostingError(MQRC_Q_MGR_ACTIVE, f"queue manager {name} is running")
            qm = self._add(name, None)
            self._ended.discard(name)
        if self.on_created is not None:
            self.on_created(qm)
        return qm

    def delete(self, name: str) -> None:
        """dltmqm ``name``: an ended one's data directory is removed and its name forgotten; running:
        MQRC_Q_MGR_ACTIVE (dltmqm's 5); unknown: 2058 (16)."""
        self._known(name)
        with self._lock:
            if name not in self._ended:
                raise HostingError(MQRC_Q_MGR_ACTIVE, f"queue manager {name} is running")
            self._ended.discard(name)
            shutil.rmtree(self.data_dir_of(name), ignore_errors=True)

    # ---- showing and closing ---------------------------------------------------------------------
    def describe(self, name: str | None = None) -> list[Hosted]:
        """Every hosted queue manager (or the one named; HostingError 2058 when none is)."""
        if name is not None:
            self._known(name)
        chosen = [name] if name is not None else self.names() + sorted(self._ended)
        return [Hosted(n, n == self.default_name, self._status(n), len(self._qmgrs[n].sessions) if n in self._qmgrs
                       else 0, str(self.data_dir_of(n))) for n in chosen]

    def _status(self, name: str) -> str:
        qm = self._qmgrs.get(name)
        return "ENDED" if qm is None else "QUIESCING" if qm.quiescing else "RUNNING"

    def shutdown(self) -> None:
        """Close every queue manager but the default (its opener closes it)."""
        for name, qm in list(self._qmgrs.items()):
            if name != self.default_name:
                qm.shutdown()
