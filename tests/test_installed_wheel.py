"""qmlite as ``pip install`` leaves it, seen from outside the checkout: the wheel built from this working
tree, installed with its dependencies into a fresh virtual environment that runs in a temporary folder
(no project file beside it, no PYTHONPATH).  There the Dockerfile's ENTRYPOINT serves IBM's ``ibmmq``,
the wheel's pytest plugin serves a test run, and ``qmlite --version``, ``tls init``, ``ccdt`` and
``runmqsc`` run.  (A hand list of packages once left ``qmlite.registry.testing`` out of the wheel and
``qmlite serve`` failed at start; every test here would have seen it.)

Slow (one environment for the module, ~30 s with a warm pip cache), so marked ``slow``."""

from __future__ import annotations

import importlib.metadata
import json
import os
import pathlib
import subprocess
import textwrap
import tomllib

import pytest

import qmlite
from tests.support import wheelkit
from tests.support.served import Served

pytestmark = pytest.mark.slow

IBMMQ_SCRIPT = textwrap.dedent('''
    import json, sys
    import ibmmq, qmlite

    qmgr = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", sys.argv[1], "admin", "passw0rd")
    queue = ibmmq.Queue(qmgr, "VENV.Q", ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF | ibmmq.CMQC.MQOO_OUTPUT)
    queue.put(b"through the installed wheel")
    body = queue.get()
    queue.close()
    qmgr.disconnect()
    print(json.dumps({"body": body.decode(), "transport": ibmmq.ibmmqc.__file__, "qmlite": qmlite.__file__}))
''')

PLUGIN_TEST = textwrap.dedent('''
    import sys

    import ibmmq
    import qmlite


    def test_the_installed_plugin_serves(qmlite_server):
        assert qmlite.__file__.startswith(sys.prefix)  # the venv's qmlite, not a checkout's
        [defined] = qmlite_server.mqsc("DEFINE QLOCAL(PLUGIN.Q)")
        assert defined.completion_code == 0
        qmgr = ibmmq.connect(qmlite_server.qmgr, qmlite_server.admin_channel, qmlite_server.conn_name,
                             qmlite_server.admin_user, qmlite_server.admin_password)
        queue = ibmmq.Queue(qmgr, "PLUGIN.Q", ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF | ibmmq.CMQC.MQOO_OUTPUT)
        queue.put(b"plugin")
        assert queue.get() == b"plugin"
        qmgr.disconnect()
''')


@pytest.fixture(scope="module")
def venv(tmp_path_factory, checkout_wheel) -> wheelkit.Venv:
    root = tmp_path_factory.mktemp("installed")
    env = wheelkit.fresh_venv(root / "venv")
    # the same ibmmq and pytest as this run's (pip's cache has them), beside the wheel and its dependencies
    env.pip_install(str(checkout_wheel), f"ibmmq=={importlib.metadata.version('ibmmq')}",
                    f"pytest=={importlib.metadata.version('pytest')}")
    env.env["PATH"] = f"{env.root / 'bin'}{os.pathsep}{env.env.get('PATH', '')}"  # as the image's PATH has qmlite
    return env


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> pathlib.Path:
    """The working folder of every command: nothing of the checkout in it or above it."""
    where = tmp_path_factory.mktemp("outside")
    assert not (where / "qmlite").exists() and wheelkit.REPO not in where.parents
    return where


def _run(venv: wheelkit.Venv, cwd: pathlib.Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess:
    done = subprocess.run(list(argv), cwd=cwd, env=venv.env, input=stdin, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return done


def _image_root_path(image_path: str, root: pathlib.Path) -> pathlib.Path:
    """An absolute path of the image (/var/lib/qmlite) as a folder under ``root``."""
    local = root / image_path.lstrip("/")
    local.mkdir(parents=True, exist_ok=True)
    return local


@pytest.fixture(scope="module")
def entrypoint_server(venv, outside):
    """The Dockerfile's ENTRYPOINT with the image's ENV, on 127.0.0.1 port 0 (HTTP too) and its folders
    (data, MQSC) moved under a temporary root; every other argument as the Dockerfile gives it."""
    program, *argv = wheelkit.entrypoint()
    root = outside / "image-root"
    local = {"--host": lambda _: "127.0.0.1", "--port": lambda _: "0", "--http-port": lambda _: "0"}
    command = [venv.bin(program)]
    for i, arg in enumerate(argv):
        before = argv[i - 1] if i else ""
        if before in local:
            arg = local[before](arg)
        elif before.startswith("--") and arg.startswith("/"):
            arg = str(_image_root_path(arg, root))
        command.append(arg)
    assert "--data-dir" in command and "--mqsc-dir" in command
    data_dir = pathlib.Path(command[command.index("--data-dir") + 1])
    mqsc_dir = pathlib.Path(command[command.index("--mqsc-dir") + 1])
    (mqsc_dir / "10-venv.mqsc").write_text("DEFINE QLOCAL(VENV.Q) DESCR('from the mqsc folder')\n")
    served = Served(data_dir, command=command, cwd=outside, env={**venv.env, **wheelkit.image_env()})
    try:
        yield served
    finally:
        assert served.stop() == 0, served.stderr_tail()


def test_the_entrypoint_serves_ibmmq(venv, outside, entrypoint_server):
    script = outside / "putget.py"
    script.write_text(IBMMQ_SCRIPT)
    out = _run(venv, outside, venv.python, str(script), f"127.0.0.1({entrypoint_server.port})")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["body"] == "through the installed wheel"  # on VENV.Q, which the --mqsc-dir file defined
    site = pathlib.Path(result["qmlite"]).parents[1]
    assert site.is_relative_to(venv.root) and site.name == "site-packages"
    assert pathlib.Path(result["transport"]) == site / "ibmmqc" / "__init__.py"  # qmlite's, from the wheel
    assert entrypoint_server.http_port  # the ENTRYPOINT's --http-port is served too


def test_the_installed_pytest_plugin_serves_a_test_run(venv, outside):
    suite = outside / "suite"
    suite.mkdir()
    (suite / "test_plugin.py").write_text(PLUGIN_TEST)
    out = _run(venv, suite, venv.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plugin.py")
    assert "1 passed" in out.stdout


def test_version_is_the_distributions(venv, outside):
    dist = _run(venv, outside, venv.python, "-c", "import importlib.metadata as m; print(m.version('qmlite'))")
    assert dist.stdout.strip() == qmlite.__version__
    out = _run(venv, outside, venv.bin("qmlite"), "--version")
    assert out.stdout.startswith(f"qmlite {qmlite.__version__} (presents IBM MQ 9.")


def test_tls_init(venv, outside):
    out = _run(venv, outside, venv.bin("qmlite"), "tls", "init", "pki")
    made = json.loads(out.stdout)
    assert (made["qmgr_label"], made["client_label"]) == ("ibmwebspheremqqm1", "ibmwebspheremqapp")
    for stem in (made["qmgr_key_repository"], made["client_key_repository"]):
        assert (outside / f"{stem}.p12").is_file() and (outside / f"{stem}.sth").is_file()
    assert (outside / made["ca"]).read_text().startswith("-----BEGIN CERTIFICATE-----")


def test_ccdt_of_the_running_server(venv, outside, entrypoint_server):
    port = str(entrypoint_server.port)
    _run(venv, outside, venv.bin("qmlite"), "ccdt", "--port", port, "--for-channel", "DEV.APP.SVRCONN",
         "-o", "ccdt.json")
    [channel] = json.loads((outside / "ccdt.json").read_text())["channel"]
    assert channel["name"] == "DEV.APP.SVRCONN"
    assert channel["clientConnection"]["connection"] == [{"host": "127.0.0.1", "port": entrypoint_server.port}]
    assert channel["clientConnection"]["queueManager"] == "QM1"


def test_runmqsc_against_the_running_server(venv, outside, entrypoint_server):
    out = _run(venv, outside, venv.bin("qmlite"), "runmqsc", "-c", "--port", str(entrypoint_server.port), "QM1",
               stdin="DISPLAY QLOCAL(VENV.Q) DESCR\n")
    assert "AMQ8409I: Display Queue details." in out.stdout
    assert "QUEUE(VENV.Q)" in out.stdout and "DESCR(from the mqsc folder)" in out.stdout


def test_the_samples_and_checks_are_installed_console_scripts(venv, outside, entrypoint_server):
    port = entrypoint_server.port
    env = {**venv.env, "MQSERVER": f"DEV.APP.SVRCONN/TCP/127.0.0.1({port})", "QMLITE_PORT": str(port)}
    put = subprocess.run([venv.bin("amqsputc"), "DEV.QUEUE.2", "QM1"], cwd=outside, env=env, input="from the wheel\n",
                         capture_output=True, text=True, timeout=120)
    assert put.stdout.splitlines() == ["Sample AMQSPUT0 start", "target queue is DEV.QUEUE.2", "Sample AMQSPUT0 end"]
    browse = subprocess.run([venv.bin("amqsgbr"), "DEV.QUEUE.2"], cwd=outside, env=env, capture_output=True,
                            text=True, timeout=120)  # the local name: QMLITE_PORT's server, as admin
    assert "1 <from the wheel>" in browse.stdout.splitlines()
    for check in ("chkmqready", "chkmqhealthy", "chkmqstarted"):
        assert subprocess.run([venv.bin(check)], cwd=outside, env=env, capture_output=True, timeout=120).returncode == 0


def test_ibms_control_commands_are_installed_and_run(venv, outside, entrypoint_server):
    # every console script of IBM's name is in the venv's bin (the image links them into /opt/mqm/bin)
    scripts = tomllib.loads((wheelkit.REPO / "pyproject.toml").read_text())["project"]["scripts"]
    ibm = sorted(name for name, target in scripts.items() if target.startswith("qmlite.ibmcli:"))
    assert ibm and all(pathlib.Path(venv.bin(name)).is_file() for name in ibm)
    env_port = {**venv.env, "QMLITE_PORT": str(entrypoint_server.port)}
    done = subprocess.run([venv.bin("runmqsc"), "QM1"], cwd=outside, env=env_port, input="DISPLAY QLOCAL(VENV.Q)\n",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.endswith("All valid MQSC commands were processed.\n"), done.stderr
