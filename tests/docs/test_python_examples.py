"""The Python examples of the docs, run: a script against a server this module starts (its port in
place of 1414), a block of pytest tests and fixtures as a pytest file of its own (the plugin's fixtures
are its servers; tests/docs/standins.py stands for the reader's application)."""

from __future__ import annotations

import re

import pytest

from qmlite.client.pytest_plugin import running_qmlite
from qmlite.registry.qmgr import QueueManager
from tests.support import docexamples as D

pytest_plugins = ["pytester"]

PYTEST_STYLE = re.compile(r"^(def test_|@pytest\.fixture)", re.M)
TLS = re.compile(r"SSLCipherSpec")  # an example of TLS on the MQ port: run on the server docs/tls.md sets up
SCRIPTS = [b for b in D.of("python") if not PYTEST_STYLE.search(b.text) and not TLS.search(b.text)]
TLS_SCRIPTS = [b for b in D.of("python") if TLS.search(b.text)]
SUITES = [b for b in D.of("python") if PYTEST_STYLE.search(b.text)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("pydocs")) as srv:
        yield srv


@pytest.fixture(scope="module")
def local_qm(tmp_path_factory):
    """``qm`` for the examples that run MQSC in the server's process (a registry QueueManager)."""
    qm = QueueManager.open(tmp_path_factory.mktemp("pydocs-local"))
    yield qm
    qm.shutdown()


@pytest.mark.parametrize("block", [D.param(b) for b in SCRIPTS])
def test_python_example(server, local_qm, block, capsys):
    server.reset()
    code = D.on_port(block.text, server.port)
    if "1414" in block.text:
        assert code != block.text, "an example names port 1414 in a form on_port does not know"
    namespace = {"__name__": "__doc_example__", "qm": local_qm}
    exec(compile(code, block.where, "exec"), namespace)


@pytest.mark.parametrize("block", [D.param(b) for b in TLS_SCRIPTS])
def test_tls_example(tmp_path, monkeypatch, block):
    """Set up as docs/tls.md's commands say (its ``sh`` block: a test PKI, the server on it, the channel
    defined), in a directory of its own, then run the example there."""
    from qmlite import cli

    [setup] = [b for b in D.of("sh") if b.path == block.path and "qmlite tls init" in b.text]
    monkeypatch.chdir(tmp_path)
    pki = re.search(r"^qmlite tls init (\S+)", setup.text, re.M).group(1)
    assert cli.main(["tls", "init", pki]) == 0
    served = re.search(r"^qmlite serve --pki-dir (\S+)", setup.text, re.M).group(1)
    mqsc = re.search(r'^echo "(.*?)" \| qmlite runmqsc', setup.text, re.M | re.S).group(1)
    with running_qmlite(tmp_path / "data", pki_dir=served) as server:
        assert all(r.completion_code == 0 for r in server.mqsc(mqsc))
        exec(compile(D.on_port(block.text, server.port), block.where, "exec"), {"__name__": "__doc_example__"})


def test_pytest_examples(pytester):
    """Each block of tests and fixtures is a test file of its own; all of them pass in one pytest run."""
    pytester.makepyfile(docstandins=(D.ROOT / "tests" / "docs" / "standins.py").read_text())
    expected = 0
    for n, block in enumerate(SUITES):
        pytester.makepyfile(**{f"test_doc_{n}": "from docstandins import my_app, start_my_app\n"
                                                 "import pytest\n\n" + block.text})
        expected += len(re.findall(r"^def test_", block.text, re.M))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", "-q")
    result.assert_outcomes(passed=expected)
