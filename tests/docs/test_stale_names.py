"""Comments, docstrings and docs name modules, files and names that exist (issue 31 item 6; docs/decisions.md
DS8).  Read: the comments and docstrings of every installed module (tests/test_import_graph.py's
``MODULES``), ``README.md`` and ``docs/*.md`` (not the copied notes in docs/reference/).  Checked:

- a dotted module path, ``qmlite.registry.qmgr.QueueManager``, ``ibmmqc.native``, or a bare
  ``registry.pubsub.routing`` / ``pipeline.routes`` (bare ``server.``, ``client.`` and ``pcf.`` are most often
  objects in examples: ``server.clock.advance``, ``pcf.MQCMD_...``): its longest prefix is a module, the next
  part a top-level name of that module (a class's attribute after it when the name is a class), or the whole
  path is a logger name the code uses (``qmlite.journal``), or a bare ``registry.x`` names an attribute of the
  ``Registry`` class (prose calls that object ``registry``: ``registry.put_queue``);
- a file path from a folder of the repository, ``registry/storage/journal.py``, ``server/http/``,
  ``tests/registry/admin/test_cmd_*.py``: it exists (``qmlite/registry/...``, the installed layout, is read
  through pyproject.toml's package roots);
- a name given with a file, ``server/mqi.py``'s ``Mqi``, ``registry/qmgr.py::QueueManager``,
  ``tests/x.py::test_y``: the file defines it (a lone name may be any class's attribute there: a method).

A dotted path ending in a file suffix (``ibmmqc.c``, ``qmlite.db``, ``docs/reference/pcf.md``) is a file name, not a
module (tests/docs/test_citations.py checks the ``*.md`` ones).  A target layout not built yet (a docs/architecture.md
section whose heading says so) names files to come.  What is left over is in ``ELSEWHERE`` (other
projects' names), ``PLANNED`` (a home named before it exists) and ``HISTORY`` (a decision recording what a
thing was called), each entry checked to be still needed.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from tests.docs.test_citations import URL, _prose
from tests.support.wheelkit import setup_py
from tests.test_import_graph import MODULES, ROOT

ROOTS = {name: folder.relative_to(ROOT).as_posix() for name, folder in setup_py().package_roots(ROOT).items()}
FOLDERS = sorted({p.split("/")[0] for p in ROOTS.values()} | {"tests", "scripts", "docs"})
FILE_SUFFIXES = {"md", "c", "h", "so", "py", "toml", "db", "lock", "p12", "sth", "pem", "kdb", "json", "txt", "tab",
                 "html", "css", "js", "zip", "log", "ini", "yaml", "yml", "sh", "whl"}
DOTTED = re.compile(r"(?<![\w./-])((?:qmlite|ibmmqc|pymqe|registry|pipeline)(?:\.\w+)+)")
PATH = re.compile(rf"(?<![\w./-])((?:{'|'.join(FOLDERS)})/[\w./*-]*[\w/*])")
# a name given with its file: path.py's `Name`, path.py ``Name``, path.py::Name
NAMED = re.compile(r"([\w/.-]+\.py)(?:(?:'s|’s)? +`{1,2}([A-Za-z_][\w.]*)(?:\(\))?`{1,2}|::([A-Za-z_][\w.]*))")
LOGGER = re.compile(r"""get_?[lL]ogger\(\s*["'](qmlite[\w.]*)["']""")
REGISTRY = ROOT / "registry" / "storage" / "catalog.py"  # class Registry, the object prose calls ``registry``
NOT_BUILT = re.compile(r"^#+ Target layout.*not built yet", re.I)

# Other projects' names that look like ours.
ELSEWHERE = {
    "ibmmqc.error": "IBM's C extension's exception class (docs/extension-rules.md), not our module's",
    "tests/test_tls.py": "pymqi's test file (docs/decisions.md DS5)",
}
# Homes named before they exist, by work under way; each goes from here when it lands.
PLANNED = {
}
# Names a decision records as what a thing was called before a rename; the decision is the history.
HISTORY = {
    "qmlite.keyrepo", "qmlite.keypaths", "qmlite.pki", "qmlite/keyrepo.py", "qmlite/keypaths.py", "qmlite/pki.py",
    "qmlite.client.ibmmqc", "server/http/faults.py", "server/http/clock.py", "registry/storage/snapshot.py",
    "registry/security/commands.py", "server/http/app.py", "registry.publishexit", "registry/delivery.py",
    "registry/mqsc/__init__.py _extension", "registry.routing", "registry.definitionsblob.dump",
    "registry.storage.snapshot", "tests/test_cmd_*.py",  # DS8's own list of what it fixed
    "tests/server/mqtt/mqttserve.py",  # TT decisions: the SIGKILL test's own server before --mqtt-port (TT13-TT19)
}


def _sources() -> list[Path]:
    return sorted(MODULES.values()) + sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def _lines(path: Path):
    """(line number, text) of a source's prose, without the sections of a layout not built yet."""
    skipping = 0
    for number, line in _prose(path):
        if path.suffix == ".md" and (heading := re.match(r"^(#+) ", line)):
            level = len(heading.group(1))
            if skipping and level <= skipping:
                skipping = 0
            if NOT_BUILT.match(line):
                skipping = level
        if not skipping:
            yield number, URL.sub("", line)


@cache
def _top_level(path: Path) -> dict[str, set[str]]:
    """A module's top-level names -> for a class, its attribute names (else empty)."""
    names: dict[str, set[str]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):  # its body's names and what its methods set on self
            names[node.name] = {n for item in node.body for n in _bound(item)} | {
                t.attr for t in ast.walk(node) if isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store)
                and isinstance(t.value, ast.Name) and t.value.id == "self"}
        else:
            names.update(dict.fromkeys(_bound(node), set()))
    return names


def _bound(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.If, ast.Try)):
        return {n for part in (node.body, node.orelse, *(h.body for h in getattr(node, "handlers", ())))
                for item in part for n in _bound(item)}
    return set()


def _defines(path: Path, dotted: str, methods: bool = False) -> bool:
    """``dotted`` is a top-level name of the file (and, after a class, one of its attributes); with
    ``methods``, a lone name may also be any class's attribute (``registry/qmgr.py``'s ``connect``)."""
    first, _, attribute = dotted.partition(".")
    names = _top_level(path)
    if first not in names:
        return methods and not attribute and any(first in members for members in names.values())
    return not attribute or not names[first] or attribute.partition(".")[0] in names[first]


@cache
def _loggers() -> frozenset[str]:
    return frozenset(name for path in MODULES.values() for name in LOGGER.findall(path.read_text(encoding="utf-8")))


def module_path_exists(dotted: str) -> bool:
    parts = dotted.split(".")
    if parts[0] == "registry" and len(parts) > 1 and parts[1] in _top_level(REGISTRY)["Registry"]:
        return True  # the Registry object: registry.put_queue, registry.messages.open_counts
    if parts[0] in ("registry", "pipeline"):
        parts.insert(0, "qmlite")
    if parts[-1] in FILE_SUFFIXES or ".".join(parts) in _loggers():
        return True
    for k in range(len(parts), 0, -1):
        module = ".".join(parts[:k])
        if module in MODULES:
            rest = ".".join(parts[k:])
            return not rest or _defines(MODULES[module], rest)
    return False


def _on_disk(path: str) -> Path:
    """A path as written, or through the installed layout (``qmlite/registry/x.py`` is ``registry/x.py``)."""
    for package, folder in sorted(ROOTS.items(), key=lambda item: -len(item[0])):
        prefix = package.replace(".", "/") + "/"
        if package != "qmlite" and path.startswith(prefix):
            return ROOT / folder / path[len(prefix):]
    return ROOT / path


def file_path_exists(path: str) -> bool:
    candidate = _on_disk(path.rstrip("."))
    if "*" in path:
        return any(ROOT.glob(candidate.relative_to(ROOT).as_posix()))
    return candidate.exists() or candidate.with_name(candidate.name + ".py").is_file()


def file_defines(path: str, name: str) -> bool:
    """False only when the file is ours and does not define ``name``; other paths are the path check's."""
    candidate = _on_disk(path)
    return not candidate.is_file() or _defines(candidate, name, methods=True)


@cache
def _references() -> list[tuple[str, str, bool]]:
    return list(_scan())


def _scan():
    """(where, what, is it true) for every name the prose gives."""
    for path in _sources():
        where = path.relative_to(ROOT).as_posix()
        for number, line in _lines(path):
            for match in DOTTED.finditer(line):
                name = match.group(1)
                yield f"{where}:{number}", name, module_path_exists(name)
            for match in PATH.finditer(line):
                name = match.group(1).rstrip(".")
                yield f"{where}:{number}", name, file_path_exists(name)
            for match in NAMED.finditer(line):
                file, name = match.group(1), match.group(2) or match.group(3)
                if PATH.fullmatch(file) and file_path_exists(file):
                    yield f"{where}:{number}", f"{file} {name}", file_defines(file, name)


def test_every_module_file_and_name_the_prose_gives_exists():
    stale = [f"{where}: {name}" for where, name, true in _references()
             if not true and name not in ELSEWHERE and name not in HISTORY and name not in PLANNED]
    assert not stale, "name what the code holds now:\n" + "\n".join(stale)


def test_every_exception_is_still_needed():
    """An exception that is no longer named, or names something that now exists, goes."""
    named_missing = {name for _, name, true in _references() if not true}
    assert set(ELSEWHERE) | HISTORY | set(PLANNED) <= named_missing


def test_the_scan_sees_each_kind_of_name():
    """Not vacuous: true names of each kind are found, and a made-up one of each kind is caught."""
    true = {name for _, name, ok in _references() if ok}
    assert {"registry/qmgr.py", "registry.pubsub.routing", "qmlite.journal", "registry.put_queue"} <= true
    assert any(" " in name for name in true)  # a file's name
    assert not module_path_exists("qmlite.registry.nosuchmodule")
    assert not module_path_exists("qmlite.registry.qmgr.NoSuchName")
    assert not module_path_exists("qmlite.registry.qmgr.QueueManager.no_such_method")
    assert module_path_exists("qmlite.registry.qmgr.QueueManager") and module_path_exists("pcf.md")
    assert not file_path_exists("registry/nosuch.py") and file_path_exists("qmlite/registry/qmgr.py")
    assert file_path_exists("tests/registry/admin/test_cmd_*.py") and file_path_exists("registry/qmgrnames")
    assert not file_defines("registry/qmgr.py", "NoSuchName") and file_defines("registry/qmgr.py", "QueueManager")


def test_a_layout_not_built_yet_is_skipped_until_its_heading_says_otherwise(tmp_path):
    doc = tmp_path / "layout.md"
    doc.write_text("# A\nregistry/a.py\n## Target layout: x (not built yet)\nregistry/b.py\n### more\nregistry/c.py\n"
                   "## Next\nregistry/d.py\n", encoding="utf-8")
    assert [line for _, line in _lines(doc) if line.startswith("registry/")] == ["registry/a.py", "registry/d.py"]
