"""The fenced code blocks of README.md and docs/*.md, for tests/docs/, which run every one.

The convention (README.md "Docs"): a block's info string says what it is and so how it is run --
``mqsc`` (MQSC commands, each optionally followed by the lines runmqsc prints for it, compared),
``runmqsc`` (a whole runmqsc session, compared line for line), ``python`` (run; a block defining
``test_`` functions or fixtures runs as a pytest file), ``sh`` (each ``qmlite`` command line run),
``json``, ``ini`` (read by what reads them), ``text`` (not code: diagrams, grammars). An HTML comment
on the line before a block says more: ``<!-- example: skip: why -->`` for the few blocks a test cannot
run, ``<!-- example: POST path -->`` for a REST request body, ``<!-- example: response -->`` for the
answer to the request block before it sent a second time.  Examples connect to ``127.0.0.1`` port
``1414``; a test puts its own server's port in their place.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = ("mqsc", "runmqsc", "python", "sh", "json", "ini", "text")
_FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
_MARKER = re.compile(r"^\s*<!--\s*example:\s*(.*?)\s*-->\s*$")


@dataclasses.dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    marker: str  # the example comment before the block, "" when there is none

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def skip_reason(self) -> str | None:
        return self.marker[len("skip:"):].strip() if self.marker.startswith("skip:") else None


def blocks(paths: list[Path] = DOCS) -> list[Block]:
    out = []
    for path in paths:
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            fence = _FENCE.match(lines[i])
            if not fence:
                i += 1
                continue
            indent, language, start = fence.group(1), fence.group(2), i
            i += 1
            body = []
            while i < len(lines) and not _FENCE.match(lines[i]):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            marker = _MARKER.match(lines[start - 1]) if start else None
            out.append(Block(path, start + 1, language, "\n".join(body) + "\n", marker.group(1) if marker else ""))
            i += 1
    return out


def of(language: str, *, run_only: bool = True) -> list[Block]:
    return [b for b in blocks() if b.language == language and not (run_only and b.skip_reason is not None)]


def param(block: Block):
    """A pytest.param named by the block's place."""
    import pytest

    return pytest.param(block, id=block.where)


def on_port(text: str, port: int) -> str:
    """The example with the test server's port where it says 127.0.0.1 port 1414."""
    return (text.replace("127.0.0.1(1414)", f"127.0.0.1({port})")
            .replace('"127.0.0.1", 1414', f'"127.0.0.1", {port}'))


# ---- MQSC -------------------------------------------------------------------------------------------
_OUTPUT = re.compile(r"^([A-Z]{3}\d{4}[A-Z]:|\s)")  # a message line, or DISPLAY's indented attributes


def mqsc_steps(text: str) -> list[tuple[str, list[str]]]:
    """(command, the output lines the block shows after it) for each command; ``*`` lines are comments,
    a line ending in ``+`` or ``-`` goes on, as runmqsc reads them."""
    steps: list[tuple[str, list[str]]] = []
    going_on = False
    for line in text.splitlines():
        if going_on:
            steps[-1] = (steps[-1][0] + "\n" + line, steps[-1][1])
        elif not line.strip() or line.lstrip().startswith("*"):
            continue
        elif _OUTPUT.match(line) and steps:
            steps[-1][1].append(line)
            continue
        else:
            steps.append((line, []))
        going_on = line.rstrip().endswith(("+", "-"))
    return steps


_VARYING = [(re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "yyyy-mm-dd"), (re.compile(r"\b\d{2}\.\d{2}\.\d{2}\b"), "hh.mm.ss"),
            (re.compile(r"SECONDS\(\d+\.\d+\)"), "SECONDS(n)")]


def steady(lines: list[str]) -> list[str]:
    """Lines with what changes from run to run (dates, times, the clock's seconds) put in words, and
    DISPLAY's column padding made one space."""
    out = []
    for line in lines:
        for pattern, words in _VARYING:
            line = pattern.sub(words, line)
        out.append(re.sub(r"\s+", " ", line.strip()))
    return out
