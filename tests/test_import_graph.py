"""The import graph of qmlite's own modules, read from the source with ``ast``: no cycle among the imports
that run at import time, and the layering docs/architecture.md draws.

Only module-level imports count (those in a function body run when it is called; those under
``if TYPE_CHECKING:`` never run).  Module names come from the packaging, setup.py's rule (every folder
with an ``__init__.py`` under pyproject.toml's ``package-dir`` roots: the wheel's packages), so
``registry/mqsc/escape.py`` is ``qmlite.registry.mqsc.escape`` and ``client/ibmmqc/_mqi.py`` is
``ibmmqc._mqi``.  ``from P import n`` is an edge to ``P.n`` when that is a
module, and to ``P`` (whose ``__init__`` runs first); a module's own enclosing packages are already being
imported when it runs, so importing them is not an edge.

The layering tests below read imports at every level too (a function's body runs at its call, still an
import): a layer that must not reach up must not do it lazily either.  Where an import at call time is
allowed (the pytest plugin starting an in-process server), the test says so.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.support.wheelkit import setup_py

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package, folder in setup_py().package_folders(ROOT).items():
        for path in folder.glob("*.py"):
            out[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return out


MODULES = _modules()


def _ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:n]) for n in range(1, len(parts))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_time_statements(body: list[ast.stmt]):
    """Every import statement that runs when the module body runs (not in functions or TYPE_CHECKING)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _import_time_statements(node.body)
            yield from _import_time_statements(node.orelse)
        elif isinstance(node, ast.ClassDef):
            yield from _import_time_statements(node.body)
        elif isinstance(node, (ast.Try, ast.TryStar)):
            for part in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                yield from _import_time_statements(part)
        elif isinstance(node, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
            yield from _import_time_statements(node.body)
            yield from _import_time_statements(getattr(node, "orelse", []))


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The modules of ours that ``node``, in ``module``, makes run (or have run)."""
    found: set[str] = set()

    def add(name: str) -> None:
        for candidate in (*_ancestors(name), name):
            if candidate in MODULES:
                found.add(candidate)

    if isinstance(node, ast.Import):
        for alias in node.names:
            add(alias.name)
    else:
        if node.level:
            package = module if MODULES[module].stem == "__init__" else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{node.module}" if node.module else package
        else:
            base = node.module or ""
        add(base)
        for alias in node.names:
            if f"{base}.{alias.name}" in MODULES:
                found.add(f"{base}.{alias.name}")
    return found - _ancestors(module) - {module}


def import_graph(*, every: bool = False) -> dict[str, set[str]]:
    """Who imports whom when the modules run; ``every``: every import statement, in functions and under
    ``TYPE_CHECKING`` too (a dependency all the same: what a reader must know to read the module)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        edges: set[str] = set()
        statements = (n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))) if every \
            else _import_time_statements(tree.body)
        for node in statements:
            edges |= _targets(module, node)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


GRAPH = import_graph()


def test_the_graph_sees_the_packages_and_their_imports():
    # the reader itself: it finds the modules and known edges, so an empty graph cannot pass
    assert {"qmlite.registry.qmgr", "qmlite.server.http.mqscjson", "ibmmqc._mqi", "ibmmqc.consume", "pymqe",
            "qmlite.pcf.constants", "qmlite.registry.mqsc.escape", "qmlite.registry.testing.clock"} <= set(MODULES)
    assert "qmlite.registry.testing.faults" in GRAPH["qmlite.server.mqi"]  # the package a hand list once left out
    assert "qmlite.pcf.constants" in GRAPH["qmlite.registry.qmgr"]
    assert {"ibmmqc.consume", "ibmmqc.msghandles", "ibmmqc.native"} <= GRAPH["ibmmqc._mqi"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_reader_rules():
    tree = ast.parse("import os\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\n"
                     "def f():\n    import y\ntry:\n    import z\nexcept ImportError:\n    import w\n")
    names = [a.name for n in _import_time_statements(tree.body) for a in n.names]
    assert names == ["os", "TYPE_CHECKING", "z", "w"]


def test_no_import_cycle_runs_at_import_time():
    assert cycles(GRAPH) == []


def test_the_server_has_no_circle_even_through_type_only_imports():
    """Issue 31: the parts of server/ name the role they use (server/roles.py) instead of importing the
    listener that imports them (docs/decisions.md SC5)."""
    every = import_graph(every=True)
    server = {m: {t for t in targets if t.startswith("qmlite.server.")}
              for m, targets in every.items() if m.startswith("qmlite.server.")}
    assert cycles(server) == []
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]  # the check sees a circle where there is one


def test_the_client_has_no_circle_even_through_imports_in_functions():
    """The plugin's topology fixture runs client/topology.py, which starts queue managers through
    client/testserver.py: neither the plugin nor the topology imports the other's caller."""
    every = import_graph(every=True)
    client = {m: {t for t in targets if t.startswith("qmlite.client.")}
              for m, targets in every.items() if m.startswith("qmlite.client.")}
    assert cycles(client) == []


@pytest.mark.parametrize("layer, forbidden", [
    ("qmlite.registry", ("qmlite.server", "qmlite.client", "ibmmqc", "pymqe", "trio")),
    ("qmlite.pcf", ("qmlite.registry", "qmlite.server", "qmlite.client", "qmlite.pipeline", "qmlite.cli",
                    "ibmmqc", "pymqe", "trio")),
    ("qmlite.keys", ("qmlite.registry", "qmlite.server", "qmlite.client", "qmlite.pipeline", "qmlite.cli",
                     "qmlite.control", "qmlite.ibmcli", "qmlite.trace", "ibmmqc", "pymqe", "trio")),
])
def test_layers_import_only_downwards(layer, forbidden):
    bad = []
    for module, path in MODULES.items():
        if module != layer and not module.startswith(layer + "."):
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):  # any import, even in a function: the layer must not reach up
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:  # ``from qmlite import cli`` too
                names = [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            bad += [(module, n) for n in names if any(n == f or n.startswith(f + ".") for f in forbidden)]
    assert bad == []


def test_pcf_imports_nothing_of_qmlite_but_itself():
    outside = {(m, t) for m, targets in GRAPH.items() if m.startswith("qmlite.pcf")
               for t in targets if not t.startswith("qmlite.pcf") and t != "qmlite"}
    assert outside == set()


# ---- the key leaf, the client and the command line (issue 31; docs/architecture.md "Target layout") --
def _every_import(module: str, source: str) -> set[str]:
    """The modules of ours ``source`` (as ``module``) imports anywhere: at import time or in a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= _targets(module, node)
    return found


def _in(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


# The command line: the modules of the ``qmlite`` folder itself (not ``qmlite`` -- the namespace every
# package is installed under, whose __init__ runs first and holds only the version -- nor its subpackages).
CLI = {m for m, path in MODULES.items()
       if m.startswith("qmlite.") and m.count(".") == 1 and path.parent == ROOT / "qmlite"}
CLIENT = ("qmlite.client", "ibmmqc", "pymqe")  # client/, with the two transports installed top level
# What a client module may import when it is imported: itself, the wire vocabulary and the key leaf (and
# ``qmlite``, the namespace, which ibmmqc's and pymqe's ``from qmlite.pcf import ...`` runs first).
CLIENT_AT_IMPORT = (*CLIENT, "qmlite.pcf", "qmlite.keys")
# Where the client may import the server, and only in a function: client/testserver.py starts in-process
# servers for the plugin, and the plugin and client/topology.py (its topologies) configure them.
CLIENT_STARTS_SERVERS = {"qmlite.client.pytest_plugin", "qmlite.client.testserver", "qmlite.client.topology"}


def client_violations(module: str, source: str) -> list[str]:
    """What a module of client/ imports against the rules: at import time anything but itself, pcf/ and
    keys/; at any time the command line; the server anywhere but in the pytest plugin's functions.  It may
    import registry/ in a function (pymqe's attribute tables, the plugin's and MQSC results' helpers)."""
    bad = [f"{module} -> {t} (the command line)" for t in _every_import(module, source) if t in CLI]
    bad += [f"{module} -> {t} (the server)" for t in _every_import(module, source)
            if _in(t, "qmlite.server") and module not in CLIENT_STARTS_SERVERS]
    at_import: set[str] = set()
    for node in _import_time_statements(ast.parse(source).body):
        at_import |= _targets(module, node)
    bad += [f"{module} -> {t} (at import)" for t in at_import if t != "qmlite" and not _in(t, *CLIENT_AT_IMPORT)]
    return sorted(bad)


def test_the_sets_the_rules_name_are_what_the_checkout_holds():
    assert CLI == {"qmlite.__main__", "qmlite.cli", "qmlite.control", "qmlite.trace", "qmlite.ibmcli"}
    assert {"qmlite.keys.paths", "qmlite.keys.repository", "qmlite.keys.testpki"} <= set(MODULES)
    assert "qmlite.client.mqsc" in GRAPH["qmlite.control"]  # the command line imports what it shares from client/
    assert "qmlite.server.listener" in _every_import("qmlite.client.testserver",
                                                     MODULES["qmlite.client.testserver"].read_text())


@pytest.mark.parametrize("source, broken", [
    ("from qmlite import control\n", "qmlite.control (the command line)"),
    ("def f():\n    from qmlite import control\n", "qmlite.control (the command line)"),
    ("def f():\n    import qmlite.trace\n", "qmlite.trace (the command line)"),
    ("def f():\n    from qmlite.server import listener\n", "qmlite.server.listener (the server)"),
    ("from qmlite.registry import qmgr\n", "qmlite.registry.qmgr (at import)"),
])
def test_the_client_rules_catch_a_client_module_reaching_up(source, broken):
    assert f"qmlite.client.sync -> {broken}" in client_violations("qmlite.client.sync", source)
    assert client_violations("qmlite.client.sync", "from qmlite.pcf import constants\nfrom . import errors\n"
                                                   "def f():\n    from qmlite.keys import repository\n"
                                                   "    from qmlite.registry import qmgr\n") == []


def test_the_client_imports_neither_the_server_nor_the_command_line():
    bad = [v for m, path in MODULES.items() if _in(m, *CLIENT) for v in client_violations(m, path.read_text())]
    assert bad == []


def test_nothing_but_the_command_line_imports_it():
    bad = sorted((m, t) for m, path in MODULES.items() if m not in CLI
                 for t in _every_import(m, path.read_text()) if t in CLI)
    assert bad == []


def test_the_key_leaf_imports_only_pcf_cryptography_and_the_standard_library():
    ours, others = set(), set()
    for module, path in MODULES.items():
        if not _in(module, "qmlite.keys"):
            continue
        tree = ast.parse(path.read_text(), str(path))
        ours |= {t for t in _every_import(module, path.read_text()) if not _in(t, "qmlite.keys", "qmlite.pcf")}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                others |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                others.add((node.module or "").split(".")[0])
    assert ours == set()
    assert others - set(sys.stdlib_module_names) == {"cryptography", "qmlite"}


def test_the_transport_hands_consume_and_msghandles_what_they_need_at_import():
    # ibmmqc imports them at ``import ibmmq`` (finalizers at interpreter exit cannot import), and they
    # import neither _mqi nor each other: _mqi gives them its MQGET and its connection table.
    import subprocess
    import sys

    code = ("import sys\n"
            "import ibmmqc\n"
            "assert {'ibmmqc.consume', 'ibmmqc.msghandles'} <= set(sys.modules)\n"
            "from ibmmqc import _mqi\n"
            "assert ibmmqc.consume._get is _mqi.MQGET\n"
            "assert ibmmqc.msghandles._hconn_ok(12345) is False\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
    for module in ("ibmmqc.consume", "ibmmqc.msghandles"):
        assert module in GRAPH["ibmmqc._mqi"]
        assert not GRAPH[module] & {"ibmmqc._mqi", "ibmmqc"}


# Two modules may share a basename only when they are the same thing seen from two layers (issue 31 item 5:
# distinct names for distinct things).  Each exception names why; one no longer shared fails too.
_ADMIN_HANDLERS = ("registry/admin/commands/ holds one PCF handler module per object type, named for the type "
                   "as the domain module that holds it is")
SHARED_BASENAMES = {
    "authority": _ADMIN_HANDLERS + " (security/authority.py)",
    "channels": _ADMIN_HANDLERS + " (objects/channels.py)",
    "chlauth": _ADMIN_HANDLERS + " (security/chlauth.py)",
    "clusters": _ADMIN_HANDLERS + " (objects/clusters.py)",
    "definitions": _ADMIN_HANDLERS + " (objects/definitions.py)",
    "endpoints": _ADMIN_HANDLERS + " (objects/endpoints.py)",
    "qmgr": _ADMIN_HANDLERS + " (registry/qmgr.py)",
    "queues": _ADMIN_HANDLERS + " (messaging/queues.py)",
    "topics": _ADMIN_HANDLERS + " (pubsub/topics.py)",
    "escape": "PCF Escape: its PCF handler (admin/commands/) and the MQSC it runs (mqsc/escape.py)",
    "errors": "each layer's own errors: pcf's codec errors, the domain's MQIError, the client's, REST's error JSON",
    "mqi": "the MQI structures: their codecs (pcf/mqi.py) and the server's translation of the verbs (server/mqi.py)",
    "properties": "message properties: their wire codec (pcf/) and the domain's (registry/messaging/)",
    "ccdt": "the JSON CCDT: read by clients (pcf/ccdt.py) and the entries the queue manager's channels make",
    "channel": ("the two ends of a client channel as protocol objects: client/channel.py and server/channel.py "
                "(h11's shape)"),
    "tls": "TLS for the client (client/tls.py) and the listener (server/tls.py); another helper's part of issue 31",
}


def test_no_two_modules_share_a_basename_but_the_named_exceptions():
    by_basename: dict[str, list[str]] = {}
    for module, path in MODULES.items():
        if path.stem not in ("__init__", "__main__"):
            by_basename.setdefault(path.stem, []).append(module)
    shared = {base: sorted(modules) for base, modules in by_basename.items() if len(modules) > 1}
    assert {base: modules for base, modules in shared.items() if base not in SHARED_BASENAMES} == {}
    assert sorted(set(SHARED_BASENAMES) - set(shared)) == []  # an exception nothing needs any more
    assert len(by_basename) > 100  # the reader found the tree
