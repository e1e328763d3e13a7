"""Queue-manager names: the one check every door uses, the directory a name lives in, its QMID.

Standard library only and cheap to import: ``server/config.py`` checks ``--qmgr`` / ``MQ_QMGR_NAME``
with it before anything else loads (start-up time, issue 24), and MQCONN's create-on-connect, MQSC
``DEFINE QMLITE QMGR``, REST ``/admin/qmlite/qmgrs``, ``dspmq``/``runmqsc`` and the listing of
``<data dir>/qmgrs`` at start all ask the same functions (docs/decisions.md NM1-NM4).

* A name is 1-48 characters of ``A-Z a-z 0-9 . / _ %`` (IBM "Rules for naming IBM MQ objects"; crtmqm
  takes the same set), and never ``.`` or ``..`` as a whole: those name directories, not queue managers.
  Checked with ``fullmatch`` on the whole string: ``$`` would let a trailing newline through.
* Its directory is IBM's "name transformation" of it (``/var/mqm/qmgrs/queue!manager``): each ``.``
  becomes ``!`` and each ``/`` becomes ``&``.  Neither ``!`` nor ``&`` is a name character, so the
  mapping is one to one and a directory name gives back its queue manager's name.
* Its QMID is the name, ``_`` and the creation time ``YYYY-MM-DD_HH.MM.SS``, in the 48 bytes of
  MQCHAR48; for a name longer than 28 characters the name part is cut to 28 so the whole fits (NM3).
"""

from __future__ import annotations

import re
import time

MAX_LENGTH = 48  # MQ_Q_MGR_NAME_LENGTH
QMID_LENGTH = 48  # MQ_Q_MGR_IDENTIFIER_LENGTH
_STAMP = "%Y-%m-%d_%H.%M.%S"
_STAMP_LENGTH = 19  # 2026-11-29_01.20.03
QMID_NAME_LENGTH = QMID_LENGTH - 1 - _STAMP_LENGTH  # 28: what of the name a QMID keeps
CHARACTERS = "A-Z a-z 0-9 . / _ %"

_NAME = re.compile(r"[A-Za-z0-9./_%]{1,48}")
_TO_DIRECTORY = str.maketrans({".": "!", "/": "&"})
_FROM_DIRECTORY = str.maketrans({"!": ".", "&": "/"})


def is_name(name: object) -> bool:
    """Whether ``name`` is a queue-manager name (IBM's rules; not ``.`` or ``..``)."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None and name not in (".", "..")


def why_not(name: object) -> str:
    """What is wrong with a name :func:`is_name` refuses, for a message that says which rule."""
    if not isinstance(name, str):
        return f"invalid queue manager name {name!r}: a name is text"
    if not name:
        return "invalid queue manager name '': it is empty"
    if len(name) > MAX_LENGTH:
        return f"invalid queue manager name {name[:MAX_LENGTH]!r}...: longer than {MAX_LENGTH} characters"
    if name in (".", ".."):
        return f"invalid queue manager name {name!r}: . and .. name directories"
    return f"invalid queue manager name {name!r}: 1 to {MAX_LENGTH} characters from {CHARACTERS}"


def directory_name(name: str) -> str:
    """The directory ``name`` lives in under ``<data dir>/qmgrs``: IBM's transformation (``.`` to ``!``,
    ``/`` to ``&``), so no name makes a path separator, a hidden directory, ``.`` or ``..``."""
    return name.translate(_TO_DIRECTORY)


def name_of_directory(directory: str) -> str | None:
    """The queue manager a directory under ``<data dir>/qmgrs`` holds, None when it can hold none."""
    name = directory.translate(_FROM_DIRECTORY)
    return name if is_name(name) else None


def identifier(name: str, created: float) -> str:
    """The QMID of queue manager ``name`` created at ``created`` (seconds since the epoch, local time as
    IBM shows it): always at most 48 characters."""
    return f"{name[:QMID_NAME_LENGTH]}_{time.strftime(_STAMP, time.localtime(created))}"
