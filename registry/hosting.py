"""The queue managers one qmlite process hosts (issue 23 part 3, docs/multiqm.md).

One object holds them, name -> :class:`QueueManager`, so MQCONN (server/connection.py), MQSC
(``DISPLAY QMLITE QMGRS``, ``DEFINE QMLITE QMGR(name)``), REST (``/admin/qmlite/qmgrs``) and the pytest
plugin all create and find queue managers through the same rules:

* the default queue manager keeps the server's data directory itself (a data directory written by a
  single-queue-manager qmlite opens unchanged); every other one lives in ``<data dir>/qmgrs/<name>``
  (docs/decisions.md MQ1);
* a name is an MQ queue-manager name: 1-48 characters of ``A-Z a-z 0-9 . _ %`` (IBM "Rules for naming
  IBM MQ objects": ``/`` is not allowed in queue-manager names);
* a blank name (or ``*``) picks the default, as MQCONN's blank QMgrName picks the default queue manager;
* an unknown name is created when it matches the create-on-connect pattern, else it is unknown
  (MQCONN's MQRC_Q_MGR_NAME_ERROR, 2058).

No sockets and no trio here: the server is told of each new queue manager through ``on_created`` and
starts its tasks (command server, committer, monitoring) itself.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import pathlib
import re
import threading
from collections.abc import Callable

from qmlite.registry.qmgr import QueueManager

QMGR_NAME = re.compile(r"^[A-Za-z0-9._%]{1,48}$")
SUBDIR = "qmgrs"  # <data dir>/qmgrs/<name>: the data directory of each queue manager but the default
# A create-on-connect pattern: queue-manager name characters plus the generic * and ?.
PATTERN = re.compile(r"^[A-Za-z0-9._%*?]{1,48}$")


class HostingError(ValueError):
    """A name or pattern the hosting rules refuse; ``reason`` is the MQRC a caller reports."""

    def __init__(self, reason: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason


MQRC_Q_MGR_NAME_ERROR = 2058  # cmqc.h: the name is not a queue-manager name or names none hosted here
MQRC_Q_MGR_EXISTS = 4001  # cmqcfc.h MQRCCF_OBJECT_ALREADY_EXISTS: crtmqm's "already exists"


def check_name(name: str) -> str:
    if not isinstance(name, str) or not QMGR_NAME.match(name):
        raise HostingError(MQRC_Q_MGR_NAME_ERROR, f"{name!r} is not a valid queue manager name: "
                           "1 to 48 characters from A-Z a-z 0-9 . _ %")
    return name


def check_pattern(pattern: str) -> str:
    if not isinstance(pattern, str) or not PATTERN.match(pattern):
        raise HostingError(MQRC_Q_MGR_NAME_ERROR, f"{pattern!r} is not a valid queue manager name pattern: "
                           "1 to 48 characters from A-Z a-z 0-9 . _ % and the wildcards * ?")
    return pattern


@dataclasses.dataclass(frozen=True, slots=True)
class Hosted:
    """What DISPLAY QMLITE QMGRS and GET /admin/qmlite/qmgrs show of one queue manager."""

    name: str
    default: bool
    status: str  # RUNNING or QUIESCING
    connections: int
    data_dir: str


class QueueManagers:
    """The queue managers of one process.  ``opener(name, data_dir)`` opens one (the server passes its
    settings: dev objects, start-up MQSC, publish exit); the default is opened by the caller and added."""

    def __init__(self, data_dir: pathlib.Path, default: QueueManager, *,
                 opener: Callable[[str, pathlib.Path], QueueManager], create_pattern: str = "") -> None:
        self.data_dir = pathlib.Path(data_dir)
        self.default = default
        self.default_name = default.registry.qmgr.name
        self.create_pattern = check_pattern(create_pattern) if create_pattern else ""
        self._opener = opener
        self._qmgrs: dict[str, QueueManager] = {self.default_name: default}
        self._lock = threading.Lock()  # creations from the REST thread and the event loop
        self.on_created: Callable[[QueueManager], None] | None = None  # the server starts its tasks
        default.hosting = self

    # ---- finding ---------------------------------------------------------------------------------
    def names(self) -> list[str]:
        return [self.default_name] + sorted(n for n in self._qmgrs if n != self.default_name)

    def get(self, name: str) -> QueueManager | None:
        """The queue manager an MQCONN's QMgrName names (blank or ``*``: the default); None if none."""
        name = (name or "").strip()
        if name in ("", "*"):
            return self.default
        return self._qmgrs.get(name)

    def __len__(self) -> int:
        return len(self._qmgrs)

    def __iter__(self):
        return iter([self._qmgrs[n] for n in self.names()])

    def creatable(self, name: str) -> bool:
        return bool(self.create_pattern) and bool(QMGR_NAME.match(name)) \
            and fnmatch.fnmatchcase(name, self.create_pattern)

    def resolve(self, name: str) -> QueueManager | None:
        """MQCONN's choice: the hosted queue manager, one created now when the name matches the
        create-on-connect pattern, or None (the caller answers MQRC_Q_MGR_NAME_ERROR)."""
        found = self.get(name)
        if found is not None or not self.creatable((name or "").strip()):
            return found
        return self.create(name.strip(), exist_ok=True)

    # ---- creating --------------------------------------------------------------------------------
    def data_dir_of(self, name: str) -> pathlib.Path:
        return self.data_dir if name == self.default_name else self.data_dir / SUBDIR / name

    def create(self, name: str, *, exist_ok: bool = False) -> QueueManager:
        check_name(name)
        with self._lock:
            found = self._qmgrs.get(name)
            if found is not None:
                if exist_ok:
                    return found
                raise HostingError(MQRC_Q_MGR_EXISTS, f"queue manager {name} already exists")
            path = self.data_dir_of(name)
            os.makedirs(path, exist_ok=True)
            qm = self._opener(name, path)
            qm.hosting = self
            self._qmgrs[name] = qm
        if self.on_created is not None:
            self.on_created(qm)
        return qm

    def open_existing(self) -> list[str]:
        """The queue managers an earlier run created (``<data dir>/qmgrs/*``): a restarted server hosts
        what it hosted before (docs/decisions.md MQ3)."""
        root = self.data_dir / SUBDIR
        if not root.is_dir():
            return []
        return sorted(e.name for e in root.iterdir() if e.is_dir() and QMGR_NAME.match(e.name)
                      and e.name not in self._qmgrs)

    def create_many(self, names: list[str], *, threads: int = 8) -> None:
        """Open (creating where new) several queue managers at start, ``threads`` at a time: opening one
        is mostly SQLite and fsync, which run outside the GIL, so 32 are ready in little more than the
        time of a few (scripts/bench/multiqm_ready.py).  Already hosted names are skipped."""
        import concurrent.futures

        todo = [check_name(n) for n in dict.fromkeys(names) if n not in self._qmgrs]
        if not todo:
            return
        paths = {name: self.data_dir_of(name) for name in todo}
        for path in paths.values():
            os.makedirs(path, exist_ok=True)
        opened: dict[str, QueueManager] = {}
        failure: BaseException | None = None
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(threads, len(todo)))) as pool:
            futures = {pool.submit(self._opener, name, paths[name]): name for name in todo}
            for future in concurrent.futures.as_completed(futures):
                try:
                    opened[futures[future]] = future.result()
                except BaseException as exc:  # report the first, close what did open
                    failure = failure or exc
        if failure is not None:
            for qm in opened.values():
                qm.shutdown()
            raise failure
        for name in todo:  # in the order asked for, each announced as create() announces it
            qm = opened[name]
            qm.hosting = self
            with self._lock:
                self._qmgrs[name] = qm
            if self.on_created is not None:
                self.on_created(qm)

    # ---- showing and closing ---------------------------------------------------------------------
    def describe(self, name: str | None = None) -> list[Hosted]:
        """Every hosted queue manager (or the one named; HostingError 2058 when none is)."""
        if name is not None:
            check_name(name)
            if name not in self._qmgrs:
                raise HostingError(MQRC_Q_MGR_NAME_ERROR, f"queue manager {name} is not hosted here")
        chosen = [name] if name is not None else self.names()
        return [Hosted(n, n == self.default_name, "QUIESCING" if self._qmgrs[n].quiescing else "RUNNING",
                       len(self._qmgrs[n].sessions), str(self.data_dir_of(n))) for n in chosen]

    def shutdown(self) -> None:
        """Close every queue manager but the default (its opener closes it)."""
        for name, qm in list(self._qmgrs.items()):
            if name != self.default_name:
                qm.shutdown()
