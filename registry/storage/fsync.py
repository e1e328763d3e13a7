"""Syncing files to disk from a plan, here or in a helper process of its own (standard library only).

A plan is a list of strings: ``"f" + path`` for a file whose data must be durable (``fdatasync``),
``"d" + path`` for a directory whose entries must be (``fsync``), in the order given.  The store
makes the plan (registry/storage/sqlite.py ``sync_plan``); ``Syncer.run`` carries it out.

Why a process (docs/decisions.md JN2): a server thread that syncs must take the GIL back after each
``fdatasync`` to report, and on a loaded event loop every such hand-over cost the loop about 30 µs
a group (measured: docs/benchmarks.md, issue 24).  Run as a script (``python -I -S fsync.py RFD
WFD``) this module is that helper: it reads plans from RFD and answers on WFD, with a GIL of its
own.  ``fdatasync`` acts on the file (its inode), not on the descriptor it is called through, so a
descriptor opened here syncs what the server wrote through its own.

Messages: a plan is ``u32 length`` + the plan's strings joined by NUL (UTF-8, surrogateescape); each
answer is 5 bytes, ``status`` (0 done, 1 failed, ``R`` ready once at start) + ``u32 errno``.  Both
are shorter than PIPE_BUF (a plan is a few paths), so each arrives whole.
"""

from __future__ import annotations

import os
import struct
import sys

ANSWER = struct.Struct("<cI")
LENGTH = struct.Struct("<I")
READY, DONE, FAILED = b"R", b"\x00", b"\x01"
_KEEP = 8  # descriptors kept open between plans (the WAL, the directory, the current segment)


def encode(plan: list[str]) -> bytes:
    data = "\0".join(plan).encode("utf-8", "surrogateescape")
    return LENGTH.pack(len(data)) + data


class Syncer:
    """Carries out plans, keeping a few descriptors open between them."""

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}

    def run(self, plan: list[str]) -> None:
        fds = self._fds
        for item in plan:
            kind, path = item[0], item[1:]
            fd = fds.get(item)
            if fd is None:
                fd = fds[item] = os.open(path, os.O_RDONLY)
            if kind == "d":
                os.fsync(fd)
            else:
                os.fdatasync(fd)
        if len(fds) > _KEEP:  # old segments: a path is never reused while the server runs
            for item in [i for i in fds if i not in plan]:
                os.close(fds.pop(item))

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


def _read_exactly(fd: int, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def serve(rfd: int, wfd: int) -> None:
    """The helper's loop: until the server closes its end (or dies)."""
    syncer = Syncer()
    os.write(wfd, ANSWER.pack(READY, 0))
    try:
        while True:
            (length,) = LENGTH.unpack(_read_exactly(rfd, LENGTH.size))
            plan = _read_exactly(rfd, length).decode("utf-8", "surrogateescape").split("\0") if length else []
            try:
                syncer.run(plan)
            except OSError as exc:
                os.write(wfd, ANSWER.pack(FAILED, exc.errno or 0))
                continue
            os.write(wfd, ANSWER.pack(DONE, 0))
    except (EOFError, BrokenPipeError):
        pass
    finally:
        syncer.close()


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
