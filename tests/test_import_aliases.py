"""One meaning per import alias, and one alias per module, across the tree (issue 31 item 6): ``P`` is
``qmlite.pcf.pcf`` in every module that writes ``P``, ``S`` is ``qmlite.pcf.mqi``, and so on, so a reader who
learnt an alias in one file can trust it in the next (docs/decisions.md DS6, DS7).  Read with ``ast`` from the
modules the packaging installs (tests/test_import_graph.py's ``MODULES``) and every ``*.py`` under tests/ and
scripts/; relative imports are resolved, so ``from . import pcf as P`` inside ``qmlite.pcf`` is the same
``P``."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache

from tests.test_import_graph import MODULES, ROOT


def _tree() -> dict[str, tuple[str, bool]]:
    """module name -> (source, is a package) for the installed modules, tests/ and scripts/ (named by their
    path: ``tests.pcf.test_fap``, ``scripts.bench.codec``)."""
    out = {m: (p.read_text(encoding="utf-8"), p.stem == "__init__") for m, p in MODULES.items()}
    for folder in ("tests", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            package = parts[-1] == "__init__"
            out[".".join(parts[:-1] if package else parts)] = (path.read_text(encoding="utf-8"), package)
    return out


TREE = _tree()


@cache
def _tree_meanings() -> dict[str, dict[str, list[str]]]:
    return meanings(TREE)  # read once for both directions


def _base(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def aliases(module: str, source: str, is_package: bool = False) -> set[tuple[str, str]]:
    """(alias, what it names) for every ``import x as A`` / ``from x import y as A``, at any level."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {(a.asname, a.name) for a in node.names if a.asname}
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, node, is_package)
            found |= {(a.asname, f"{base}.{a.name}") for a in node.names if a.asname}
    return found


def meanings(sources: dict[str, tuple[str, bool]]) -> dict[str, dict[str, list[str]]]:
    """alias -> {what it names -> [modules that say so]}."""
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for module, (source, is_package) in sources.items():
        for alias, target in aliases(module, source, is_package):
            out[alias][target].append(module)
    return out


def test_the_reader_resolves_relative_imports_and_sees_a_second_meaning():
    found = meanings({
        "qmlite.pcf.decode": ("from . import pcf as P", False),
        "qmlite.registry.qmgr": ("from qmlite.pcf import pcf as P\ndef f():\n    import qmlite.pcf.mqi as S\n",
                                 False),
        "qmlite.server.http": ("from ..pcf import properties as P", True),
    })
    assert dict(found["P"]) == {"qmlite.pcf.pcf": ["qmlite.pcf.decode", "qmlite.registry.qmgr"],
                                "qmlite.server.pcf.properties": ["qmlite.server.http"]}
    assert dict(found["S"]) == {"qmlite.pcf.mqi": ["qmlite.registry.qmgr"]}


def names(found: dict[str, dict[str, list[str]]]) -> dict[str, set[str]]:
    """what is imported -> the aliases it goes by.  A leading underscore (a module keeping the name out of
    its own namespace: ``_C``) is the same alias, and the thing's own name is no alias
    (``import reconnect as _reconnect``)."""
    out: dict[str, set[str]] = defaultdict(set)
    for alias, targets in found.items():
        plain = alias.lstrip("_")
        for target in targets:
            if plain != target.rpartition(".")[2]:
                out[target].add(plain)
    return out


def test_a_module_imported_under_two_aliases_is_seen():
    found = meanings({
        "tests.a": ("from qmlite.registry.objects import channels as M", False),
        "tests.b": ("from qmlite.registry.objects import channels as CH", False),
        "qmlite.c": ("from qmlite.pcf import constants as _C\nfrom qmlite.client import reconnect as _reconnect",
                     False),
        "tests.d": ("from qmlite.pcf import constants as C", False),
    })
    assert dict(names(found)) == {"qmlite.registry.objects.channels": {"M", "CH"}, "qmlite.pcf.constants": {"C"}}


def test_the_tree_holds_tests_and_scripts():
    assert {"tests.test_import_aliases", "tests.support", "scripts.bench.codec", "qmlite.pcf.pcf"} <= TREE.keys()


def test_one_alias_names_one_thing_across_the_tree():
    found = _tree_meanings()
    assert {"P", "S", "C"} <= found.keys()  # the reader sees the tree
    assert set(found["P"]) == {"qmlite.pcf.pcf"} and set(found["S"]) == {"qmlite.pcf.mqi"}
    twice = {alias: {t: sorted(ms) for t, ms in targets.items()}
             for alias, targets in found.items() if len(targets) > 1}
    assert not twice


def test_one_module_goes_by_one_alias_across_the_tree():
    twice = {target: sorted(aliases) for target, aliases in names(_tree_meanings()).items() if len(aliases) > 1}
    assert not twice
