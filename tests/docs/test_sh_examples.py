"""The docs' shell examples (```sh blocks), run by bash in one working directory holding the files they
name, with ``qmlite`` on the PATH being tests/docs/qmlitestandin.py: every ``qmlite`` line the real
command, aimed at a server this module starts (``serve`` lines checked, not started).  A block passes
when every command in it succeeds (``set -e``, ``pipefail``): runmqsc fails on a command that fails."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys

import pytest

from qmlite.client.pytest_plugin import running_qmlite
from qmlite.pcf import constants as C, pcf as P
from qmlite.registry.qmgr import QueueManager
from tests.docs import qmlitestandin
from tests.support import docexamples as D


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """What the examples' lines name: files for serve's options, MQSC to feed runmqsc, bytes to decode,
    an application for the CCDT, and a data directory for the offline lines."""
    here = tmp_path_factory.mktemp("shdocs")
    (here / "qmlite.toml").write_text("")
    for name in ("10-dev.mqsc", "20-config.mqsc", "setup.mqsc"):
        (here / name).write_text("DEFINE QLOCAL(APP.Q) REPLACE\nDISPLAY QLOCAL(APP.Q) CURDEPTH\n")
    (here / "mqsc").mkdir()
    for name in ("c.pem", "k.pem"):
        (here / name).write_text("")  # serve's check reads only that they are files
    command = P.encode(P.PCFMessage(P.CFH(C.MQCFT_COMMAND, Command=C.MQCMD_INQUIRE_Q_MGR)))
    (here / "capture.bin").write_bytes(command)
    (here / "dump.txt").write_text(command.hex())
    (here / "app.py").write_text("import ibmmq\nibmmq.connect('QM1').disconnect()\n")
    QueueManager.open(here / "data").shutdown()
    bin_dir = here / "bin"
    bin_dir.mkdir()
    standin = bin_dir / "qmlite"
    standin.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(D.ROOT)!r})\n"
                       "from tests.docs.qmlitestandin import main\nsys.exit(main(sys.argv[1:]))\n")
    standin.chmod(standin.stat().st_mode | stat.S_IXUSR)
    return here


@pytest.fixture(scope="module")
def server(workdir):
    with running_qmlite(workdir / "server", http_port=0) as srv:
        yield srv


def _script(text: str) -> str:
    """The block as bash runs it: a server line sent to the background is checked in the foreground."""
    return re.sub(r"^(qmlite serve[^#\n]*?)\s+&", r"\1", text, flags=re.M)


@pytest.mark.parametrize("block", [D.param(b) for b in D.of("sh")])
def test_sh_example(workdir, server, block):
    env = dict(os.environ, PATH=f"{workdir / 'bin'}{os.pathsep}{os.path.dirname(sys.executable)}{os.pathsep}"
               f"{os.environ['PATH']}", QMLITE_DOCS_PORT=str(server.port), QMLITE_DOCS_HTTP_PORT=str(server.http_port),
               # QMLITE_PORT: the local samples' and IBM's command names' server (SM1, CT1)
               PWD=str(workdir), QMLITE_PORT=str(server.port))
    env.pop("MQ_ADMIN_PASSWORD", None)
    env.pop("MQSERVER", None)
    # MQSERVER='...127.0.0.1(1414)' in an example (docs/samples.md) names the test's server
    script = D.on_port(_script(block.text), server.port)
    run = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=workdir, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"{block.where}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"


def test_client_lines_are_aimed_at_the_test_server():
    assert qmlitestandin.arguments(["runmqsc", "-c", "--host", "mq.local", "--port", "1414", "QM1"], "5", "6") == \
        ["runmqsc", "-c", "--host", "127.0.0.1", "--port", "5", "QM1"]
    assert qmlitestandin.arguments(["dspmq"], "5", "6") == ["dspmq", "--host", "127.0.0.1", "--port", "5"]
    assert qmlitestandin.arguments(["runmqsc", "--data-dir", "/var/lib/qmlite", "QM1"], "5", "6") == \
        ["runmqsc", "--data-dir", "./data", "QM1"]
    assert qmlitestandin.arguments(["trace", "--http-port", "9443"], "5", "6") == ["trace", "--http-port", "6",
                                                                                   "--once"]
