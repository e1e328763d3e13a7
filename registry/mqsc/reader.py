"""MQSC script text into commands: comment lines, blank lines, ``+`` and ``-`` continuations, ``;``.

IBM's rules for command scripts (runmqsc on Multiplatforms): a line whose first character is ``*``
is a comment, also between the lines of a continued command (dmpmqcfg writes its display-only
attributes so); blank lines are ignored; when the last non-blank character of a line is ``-`` the
command continues from the start of the next line, when it is ``+`` from the next line's first
non-blank character (either may fall inside a quoted string); a ``;`` ends a command.  Each command
keeps its physical lines and the comment lines before it, which runmqsc echoes (``       : * ...``).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True, slots=True)
class Source:
    """One command: its text with continuations joined, the script line it starts on (1-based), its
    physical lines, and the comment lines read since the previous command."""

    text: str
    line: int
    lines: tuple[str, ...] = ()
    comments: tuple[str, ...] = ()


def split_commands(text: str) -> list[Source]:
    out: list[Source] = []
    parts: list[str] = []
    raw_lines: list[str] = []
    comments: list[str] = []
    start = 0
    strip_next = False  # the previous line ended with "+": drop this line's leading blanks

    def finish() -> None:
        nonlocal parts, raw_lines, comments, strip_next
        joined = "".join(parts).strip()
        if joined:
            out.append(Source(joined, start, tuple(raw_lines), tuple(comments)))
            comments = []
        parts, raw_lines, strip_next = [], [], False

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not parts:
            if not line.strip():
                continue
            if line.startswith("*"):
                comments.append(line)
                continue
            start = number
        elif line.startswith("*") and not _inside_quotes("".join(parts)):
            # a comment inside a continued command (dmpmqcfg's "*  CRDATE(...) +"): skipped, echoed
            raw_lines.append(line)
            continue
        elif strip_next:
            line = line.lstrip()
        raw_lines.append(raw.rstrip())
        ended = False
        if line.endswith(";") and not _inside_quotes("".join(parts) + line[:-1]):
            line, ended = line[:-1].rstrip(), True
            if line.endswith(("+", "-")):  # "+;": the semicolon ends it anyway
                line = line[:-1]
        if not ended and line.endswith(("+", "-")):
            strip_next = line.endswith("+")
            parts.append(line[:-1])
            continue
        parts.append(line)
        finish()
    if parts:  # a continuation at the end of the input ends the command
        finish()
    return out


def _inside_quotes(text: str) -> bool:
    return text.count("'") % 2 == 1
