"""Reading AMQERR01.LOG back, strictly: every line of an entry must be where IBM's layout puts it
(registry/monitoring/errorlog/writer.py), or the parse fails and says which line."""

from __future__ import annotations

import dataclasses
import pathlib
import re

INDENT = " " * 20
_FIRST = re.compile(r"^(\d\d/\d\d/\d{4} \d\d:\d\d:\d\d [AP]M) - Process\((\d+)\.(\d+)\) User\(([^)]*)\) "
                    r"Program\((\w+)\)$")
_HOST = re.compile(r"^ {20}Host\(([^)]*)\) Installation\((Installation1)\)$")
_VRMF = re.compile(r"^ {20}VRMF\((9\.1\.2\.0)\) QMgr\(([^)]*)\)$")
_TIME = re.compile(r"^ {20}Time\((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\)$")
_REMOTE = re.compile(r"^ {20}RemoteHost\(([^)]*)\)$")
_ARITH = re.compile(r"^ {20}(ArithInsert1\(-?\d+\))( ArithInsert2\(-?\d+\))?$")
_COMMENT = re.compile(r"^ {20}CommentInsert([123])\((.*)\)$")
_NUMBER = re.compile(r"^(AMQ\d{4}[IWE]): (.*)$")
_CLOSING = re.compile(r"^----- (\S+ : \d+) -+$")


@dataclasses.dataclass
class Entry:
    program: str
    qmgr: str
    time: str
    remote_host: str
    inserts: dict
    number: str
    text: str
    explanation: str
    action: str
    probe: str
    lines: list


def _words(lines: list[str]) -> str:
    # An entry's words on one line: a blank line between IBM's paragraphs says no word.
    return " ".join(line.strip() for line in lines if line.strip())


def parse(text: str) -> list[Entry]:
    lines = text.split("\n")
    assert lines[-1] == "", "the log ends with a newline"
    entries, i = [], 0
    while i < len(lines) - 1:
        start = i

        def take(pattern, what):
            nonlocal i
            m = pattern.match(lines[i])
            assert m, f"line {i + 1}: {what} expected, got {lines[i]!r}"
            i += 1
            return m
        first = take(_FIRST, "the date, Process, User and Program")
        take(_HOST, "Host and Installation")
        vrmf = take(_VRMF, "VRMF and QMgr")
        when = take(_TIME, "Time")
        remote = ""
        if _REMOTE.match(lines[i]):
            remote = take(_REMOTE, "RemoteHost").group(1)
        inserts: dict = {}
        if _ARITH.match(lines[i]):
            for n, part in enumerate(re.findall(r"ArithInsert\d\((-?\d+)\)", lines[i]), 1):
                inserts[f"a{n}"] = int(part)
            i += 1
        while _COMMENT.match(lines[i]):
            m = take(_COMMENT, "CommentInsert")
            inserts[f"c{m.group(1)}"] = m.group(2)
        assert lines[i] == INDENT, f"line {i + 1}: the indent alone expected, got {lines[i]!r}"
        i += 1
        wrapped = i  # from the message on, IBM wraps at 80 columns (the header's inserts run on)
        m = take(_NUMBER, "the AMQ message")
        message = [m.group(2)]
        while lines[i] != "":
            message.append(lines[i])
            i += 1
        i += 1
        assert lines[i] == "EXPLANATION:", f"line {i + 1}: EXPLANATION: expected, got {lines[i]!r}"
        i += 1
        explanation = []
        while lines[i] != "ACTION:":
            explanation.append(lines[i])
            i += 1
        i += 1
        action = []
        while not lines[i].startswith("----- "):
            action.append(lines[i])
            i += 1
        closing = take(_CLOSING, "the closing dashes")
        assert len(lines[i - 1]) == 80, f"line {i}: the closing line is 80 characters"
        body = lines[start:i]
        assert all(len(line) <= 80 for line in lines[wrapped:i]), "no message line is longer than 80 characters"
        entries.append(Entry(first.group(5), vrmf.group(2), when.group(1), remote, inserts, m.group(1),
                             _words(message), _words(explanation), _words(action), closing.group(1), body))
    return entries


def read(path: pathlib.Path) -> list[Entry]:
    return parse(pathlib.Path(path).read_text())
