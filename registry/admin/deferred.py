"""Responses a command cannot give at once: PING CHANNEL answers only after a network round trip.

The registry decides (the handler checks the command and says what must be done); the server does the
I/O and completes the responses later, without holding up the commands behind it.  As a list a
``Deferred`` holds what a caller that cannot wait gets (runmqsc run in-process, Escape, REST): the answer
the command has without the I/O."""

from __future__ import annotations

from collections.abc import Callable

from qmlite.pcf import pcf as P

Complete = Callable[[list[P.PCFMessage]], None]


class Deferred(list):
    def __init__(self, fallback: list[P.PCFMessage], begin: Callable[[Complete], None]) -> None:
        super().__init__(fallback)
        # begin(complete): start the work (the server's task); complete(responses) once it is done.
        self.begin = begin
