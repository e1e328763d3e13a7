"""IBM's own ``test_tls.py`` (ibmmq's code/tests) and pymqi's, unmodified, against qmlite (issue 29 item 3:
a user found IBM's failing because qmlite read its key repository only at start).

Neither file is in this repository (decision KR4).  ibmmq's comes from the sdist of the installed version
on PyPI: ``pip download --no-deps --no-binary :all: ibmmq==<installed>``, with ``CI=1`` because ibmmq's
setup.py refuses to report even its metadata without IBM's C headers unless CI is set.  pymqi's sdists
carry no tests and no package registry this project reaches has them, so pymqi's comes from
``QMLITE_PYMQI_TESTS`` (a directory holding pymqi's code/tests, or a source tarball of pymqi, e.g. GitHub's
archive of dsuch/pymqi at the commit below); without it those cases skip and say so.  Tests reach no host
but 127.0.0.1 and the package index.

Each runs under pytest in a subprocess from a directory of its own files (test_tls.py and the
test_setup.py, config.py and utils.py it imports), configured by the environment variables its
config.py and test_tls.py read, against a fresh qmlite started here on 127.0.0.1 port 0 with KEYRPWD set
by a start-up MQSC file.  The key repositories are PKCS#12 at the stems the test names (``<dir>/mqtest``,
``<dir>/client``), made as its preparation notes make them with runmqakm -- two self-signed RSA 2048
certificates, CN=mqtest and CN=client, each repository trusting the other's -- by the openssl command
line, or by ``qmlite tls init --label mqtest --label client`` (one CA, its stashes).
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile

import pytest

from qmlite.client.pytest_plugin import running_qmlite

pytest.importorskip("ibmmq")

UPSTREAM_FILES = ("test_tls.py", "test_setup.py", "config.py", "utils.py")
PASSWORD = "Secret13"  # the preparation notes' password
# dsuch/pymqi "Releasing 1.12.11" (its code/tests last changed in GH #228, 2022): what this was checked with.
PYMQI_COMMIT = "16184a62f368fde6eaa17d80c818be1b2d4bdbe9"


def _extract(archive: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """The test files of a source archive (an sdist or a repository tarball: ``*/code/tests/<name>``)."""
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        found = {}
        for member in tar.getmembers():
            parts = pathlib.PurePosixPath(member.name).parts
            if member.isfile() and parts[-3:-1] == ("code", "tests") and parts[-1] in UPSTREAM_FILES:
                found[parts[-1]] = member
        missing = sorted(set(UPSTREAM_FILES) - set(found))
        assert not missing, f"{archive.name} has no code/tests/{missing}"
        for name, member in found.items():
            (into / name).write_bytes(tar.extractfile(member).read())
    return into


@pytest.fixture(scope="module")
def ibmmq_tests(tmp_path_factory) -> pathlib.Path:
    version = importlib.metadata.version("ibmmq")
    where = tmp_path_factory.mktemp("ibmmq-sdist")
    got = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                          f"ibmmq=={version}", "-d", str(where), "-q"],
                         env={**os.environ, "CI": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
                         capture_output=True, text=True, timeout=600)
    sdists = list(where.glob("ibmmq-*.tar.gz"))
    assert got.returncode == 0 and sdists, f"cannot download ibmmq {version}'s sdist: {got.stderr[-2000:]}"
    return _extract(sdists[0], tmp_path_factory.mktemp("ibmmq-tests"))


@pytest.fixture(scope="module")
def pymqi_tests(tmp_path_factory) -> pathlib.Path:
    if not os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
        pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")
    given = os.environ.get("QMLITE_PYMQI_TESTS")
    into = tmp_path_factory.mktemp("pymqi-tests")
    if given:
        source = pathlib.Path(given)
        if source.is_dir():
            tests = source / "code" / "tests" if (source / "code" / "tests").is_dir() else source
            for name in UPSTREAM_FILES:
                shutil.copy(tests / name, into / name)
            return into
        return _extract(source, into)
    pytest.skip("pymqi's test_tls.py is in no pymqi release on PyPI: set QMLITE_PYMQI_TESTS to a checkout of "
                f"pymqi (or its code/tests, or a source archive of dsuch/pymqi at {PYMQI_COMMIT[:7]})")


# ---- the key repositories, as test_tls.py's preparation notes make them -----------------------------------
@dataclasses.dataclass(frozen=True)
class Keys:
    qmgr_dir: pathlib.Path  # PY_IBMMQ_TEST_TLS_KEY_REPO_LOCATION_QMGR: mqtest.p12 there
    client_dir: pathlib.Path  # ..._CLIENT: client.p12 there
    password: str
    env: dict  # what the client process needs besides (MQKEYRPWD when there is no stash)


def keys_by_openssl(root: pathlib.Path) -> Keys:
    """runmqakm's -keydb -create / -cert -create / -extract / -add, as openssl commands: each repository
    holds its own self-signed certificate and key under its label, and the other's certificate (trusted,
    under the other's label).  No stash: the queue manager's password is KEYRPWD, the client's MQKEYRPWD."""
    openssl = shutil.which("openssl")
    assert openssl, "the openssl command line is needed: apt-get install openssl (scripts/test does)"
    work, qmgr_dir, client_dir = root / "work", root / "qmgrs" / "QM1" / "ssl", root / "home"
    for d in (work, qmgr_dir, client_dir):
        d.mkdir(parents=True)

    def run(*args: str) -> None:
        done = subprocess.run([openssl, *args], cwd=work, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    for label in ("mqtest", "client"):  # -size 2048 -x509version 3 -expire 365 -sig_alg SHA256WithRSA
        run("req", "-x509", "-newkey", "rsa:2048", "-sha256", "-days", "365", "-nodes", "-subj", f"/CN={label}",
            "-keyout", f"{label}.key", "-out", f"{label}.pem")
    for label, other, into in (("mqtest", "client", qmgr_dir), ("client", "mqtest", client_dir)):
        run("pkcs12", "-export", "-name", label, "-inkey", f"{label}.key", "-in", f"{label}.pem",
            "-certfile", f"{other}.pem", "-caname", other, "-passout", f"pass:{PASSWORD}",
            "-out", str(into / f"{label}.p12"))
    return Keys(qmgr_dir, client_dir, PASSWORD, {"MQKEYRPWD": PASSWORD})


def keys_by_qmlite(root: pathlib.Path) -> Keys:
    """``qmlite tls init DIR --label mqtest --label client``: mqtest.p12 and client.p12 (with their
    stashes) beside each other, both signed by the test CA each trusts."""
    done = subprocess.run([sys.executable, "-m", "qmlite", "tls", "init", str(root), "--password", PASSWORD,
                           "--label", "mqtest", "--label", "client"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (root / "mqtest.p12").is_file() and (root / "client.sth").is_file()
    return Keys(root, root, PASSWORD, {})


MAKERS = {"openssl": keys_by_openssl, "qmlite-tls-init": keys_by_qmlite}


# ---- one run of an upstream test_tls.py -----------------------------------------------------------------
def run_test_tls(tests: pathlib.Path, prefix: str, keys: Keys, data_dir: pathlib.Path) -> subprocess.CompletedProcess:
    """``pytest test_tls.py`` from ``tests``, configured by the ``prefix``ed variables its config.py and
    test_tls.py read, against a queue manager started now with KEYRPWD set at start."""
    startup = data_dir.parent / f"{data_dir.name}-keyrpwd.mqsc"
    startup.write_text(f"ALTER QMGR KEYRPWD('{keys.password}')\n")
    with running_qmlite(data_dir, mqsc_files=(startup,)) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PY_IBMMQ_", "PYMQI_", "MQ"))}
        env.update(keys.env)
        env.update({
            f"{prefix}TEST_QM_NAME": server.qmgr, f"{prefix}TEST_QM_HOST": server.host,
            f"{prefix}TEST_QM_PORT": str(server.port), f"{prefix}TEST_QM_CHANNEL": server.admin_channel,
            f"{prefix}TEST_QM_USER": server.admin_user, f"{prefix}TEST_QM_PASSWORD": server.admin_password,
            f"{prefix}TEST_TLS_SKIP": "0",
            f"{prefix}TEST_TLS_KEY_REPO_LOCATION_QMGR": str(keys.qmgr_dir),
            f"{prefix}TEST_TLS_KEY_REPO_LOCATION_CLIENT": str(keys.client_dir),
            "HOME": str(keys.client_dir),  # the test's default client location is ~
        })
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # pytest alone: none of the plugins installed here (ours too)
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA",
                               "test_tls.py"], cwd=tests, env=env, capture_output=True, text=True, timeout=300)


def assert_passed(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "PASSED test_tls.py::TestTLS::test_connection_with_tls" in done.stdout, done.stdout[-3000:]


@pytest.mark.parametrize("made_by", sorted(MAKERS))
def test_ibms_test_tls(ibmmq_tests, made_by, tmp_path):
    keys = MAKERS[made_by](tmp_path / "keys")
    assert_passed(run_test_tls(ibmmq_tests, "PY_IBMMQ_", keys, tmp_path / "data"))


@pytest.mark.parametrize("made_by", sorted(MAKERS))
def test_pymqis_test_tls(pymqi_tests, made_by, tmp_path):
    keys = MAKERS[made_by](tmp_path / "keys")
    assert_passed(run_test_tls(pymqi_tests, "PYMQI_", keys, tmp_path / "data"))
