"""The docs stand alone (issue 31 item 6): every ``*.md`` a comment, docstring or doc cites is in the
repository, nothing names the team's notes outside it, and every decision has one heading that every
reference to it finds (docs/decisions.md DS1-DS3)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".venv", ".git", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis", "node_modules"}
REFERENCE = ROOT / "docs" / "reference"  # a verbatim copy; its paths name other repositories' files
URL = re.compile(r"\w+://\S+")
CITED_MD = re.compile(r"(?<![\w./-])([\w./-]*[\w-]\.md)(?!\.?\w|\()")  # not mq.md.format, not f.md(
NOT_CITATIONS = {
    ("docs/benchmarks/server.md", "msg.md"): "replace(msg.md), an MQMD attribute in a profile",
    ("tests/fixtures/mqsc/README.md", "docs/developer-config.md"): "a file of IBM's mq-container repository",
}
DECISIONS = ROOT / "docs" / "decisions.md"
DECISION_IDS = Path(__file__).with_name("decision_ids.txt")
ID = r"[A-Z]{1,3}[0-9]+[a-z]?"
HEADING = re.compile(rf"^### ({ID}) — \S", re.M)
# "decision X1", "decisions X1-X4", "docs/decisions.md P1–P13", "decisions HC1-HC4"
REFERENCE_TO = re.compile(rf"[Dd]ecisions?(?:\.md)?:? ({ID}(?:[–-](?:[A-Z]{{0,3}}[0-9]+))?)")


def _files(*suffixes: str):
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if any(p in SKIP or p.endswith(".egg-info") for p in parts) or not path.is_file():
            continue
        if path.suffix in suffixes or path.name in suffixes:
            yield path


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    lines.add(body[0].lineno)
    return lines


def _prose(path: Path):
    """(line number, text) of a doc's lines, or of a Python file's comments and docstrings (other
    strings are code: ``path.name == "README.md"`` cites nothing)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        yield from enumerate(text.split("\n"), 1)
        return
    docstrings = _docstring_lines(ast.parse(text))
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.start[0] in docstrings):
            for offset, line in enumerate(tok.string.split("\n")):
                yield tok.start[0] + offset, line


def _citations():
    for path in _files(".py", ".md"):
        if REFERENCE in path.parents:
            continue
        where = path.relative_to(ROOT).as_posix()
        for number, line in _prose(path):
            for match in CITED_MD.finditer(URL.sub("", line)):
                yield where, number, match.group(1), path


def test_every_cited_md_is_in_the_repository():
    missing = [f"{where}:{number}: {cited}" for where, number, cited, path in _citations()
               if (where, cited) not in NOT_CITATIONS
               and not (ROOT / cited).is_file() and not (path.parent / cited).is_file()]
    assert not missing, "cite a path from the repository root (docs/reference/fap.md §4):\n" + "\n".join(missing)


def test_the_citation_scan_sees_comments_docstrings_and_docs():
    """The scan is not vacuous: it finds the notes the code cites most, in each kind of file."""
    seen = {(where.rsplit(".", 1)[1], cited) for where, _, cited, _ in _citations()}
    assert {("py", "docs/reference/fap.md"), ("md", "docs/reference/pcf.md"), ("py", "docs/decisions.md")} <= seen
    assert not any(cited == "decisions.md" for where, _, cited, _ in _citations() if where.endswith(".py"))


def test_the_reference_notes_are_in_the_repository_with_their_provenance():
    for name in ("fap.md", "pcf.md", "container.md", "README.md"):
        head = (REFERENCE / name).read_text(encoding="utf-8")[:1200]
        assert "**Provenance.**" in head and "2026-11-29" in head, name


def test_nothing_names_the_notes_outside_the_repository():
    outside = re.compile(r"\.\./" + "shared|shared/" + "reference|/work/" + "shared")
    files = _files(".py", ".md", ".toml", ".cfg", ".txt", ".sh", ".yml", ".yaml", ".json", "Dockerfile")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").split("\n"), 1)
             if outside.search(line)]
    assert not found


def _headings() -> list[str]:
    return HEADING.findall(DECISIONS.read_text(encoding="utf-8"))


def test_every_decision_is_a_heading_exactly_once():
    """Each id the tables held (decision_ids.txt, written when they became headings) is still there,
    once; no id names two decisions; no decision is left in a table row."""
    headings = _headings()
    recorded = DECISION_IDS.read_text(encoding="utf-8").split()
    assert len(recorded) == len(set(recorded)) > 300
    assert not [i for i in recorded if headings.count(i) != 1]
    assert len(headings) == len(set(headings)), sorted({i for i in headings if headings.count(i) > 1})
    assert not re.search(rf"^\| *{ID} *\|", DECISIONS.read_text(encoding="utf-8"), re.M)


def _expand(ref: str) -> list[str]:
    """The two ends of a range ("HC1-HC4", "P1–P13", "VC5-6"), or the one id."""
    first, _, last = ref.replace("–", "-").partition("-")
    if not last:
        return [first]
    prefix = re.match(r"[A-Z]+", first).group(0)
    return [first, last if last[0].isalpha() else prefix + last]


def test_every_reference_to_a_decision_names_one():
    ids = set(_headings())
    compat = ROOT / "docs" / "compat.md"  # docs/compat.md keeps its own table of D decisions
    ids |= set(re.findall(r"^\| (D[0-9]+) \|", compat.read_text(encoding="utf-8"), re.M))
    wrong = [f"{p.relative_to(ROOT)}:{n}: {ref}" for p in _files(".py", ".md") if REFERENCE not in p.parents
             for n, line in enumerate(p.read_text(encoding="utf-8").split("\n"), 1)
             for ref in REFERENCE_TO.findall(line) if not set(_expand(ref)) <= ids]
    assert not wrong
