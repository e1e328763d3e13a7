"""No line of Python over 120 characters in the package roots, tests/ and scripts/ (docs/decisions.md DS9):
the width the code is written to, checked so that a long line is wrapped when it is written."""

from __future__ import annotations

from tests.support.wheelkit import setup_py
from tests.test_import_graph import ROOT

LIMIT = 120


def _files():
    folders = {folder for folder in setup_py().package_roots(ROOT).values()} | {ROOT / "tests", ROOT / "scripts"}
    for path in sorted({p for folder in folders for p in folder.rglob("*.py")}):
        if "__pycache__" not in path.parts:
            yield path


def long_lines(text: str) -> list[int]:
    return [number for number, line in enumerate(text.split("\n"), 1) if len(line) > LIMIT]


def test_a_line_over_the_limit_is_found():
    assert long_lines("x = 1\n" + "y" * 121 + "\n" + "z" * 120) == [2]


def test_no_line_over_120_characters():
    files = list(_files())
    assert {"pcf/pcf.py", "tests/test_line_length.py", "scripts/gen_constants.py"} <= {
        p.relative_to(ROOT).as_posix() for p in files}
    found = [f"{path.relative_to(ROOT)}:{number}" for path in files
             for number in long_lines(path.read_text(encoding="utf-8"))]
    assert not found, f"wrap these at {LIMIT} characters:\n" + "\n".join(found)
