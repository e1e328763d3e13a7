"""The Dockerfile built and run with no container daemon (scripts/image: buildah, RUN in a chroot), as CI
can repeat it as root: the image's ENTRYPOINT, user and environment serve IBM's ``ibmmq``.

The container shares the host's network (buildah's chroot isolation has no other), so the ENTRYPOINT
listens on 127.0.0.1 port 0 (the MQ, the HTTP and the MQTT port) instead of 0.0.0.0:1414/9443/1883; every other
argument is the image's own.  Slow (the first build makes a stand-in base image from Debian: minutes;
then ~10 s), so marked ``slow``."""

from __future__ import annotations

import json
import subprocess

import ibmmq
import pytest

import qmlite

from tests.support import wheelkit
from tests.support.served import Served

pytestmark = pytest.mark.slow

TAG = "localhost/qmlite:test"


def _buildah(*args: str) -> str:
    return subprocess.run(["buildah", *args], check=True, capture_output=True, text=True, timeout=120).stdout


@pytest.fixture(scope="module")
def image():
    done = subprocess.run([str(wheelkit.REPO / "scripts" / "image"), TAG], capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr
    return TAG


@pytest.fixture
def container(image):
    name = _buildah("from", "--pull=never", image).strip()
    try:
        yield name
    finally:
        _buildah("rm", name)


def test_the_image_is_configured_as_the_dockerfile_says(image):
    config = json.loads(_buildah("inspect", "--type", "image", image))["Docker"]["config"]
    assert config["Entrypoint"] == wheelkit.entrypoint()
    assert config["User"] == "qmlite" and config["WorkingDir"] == str(wheelkit.last_workdir())
    assert {f"{k}={v}" for k, v in wheelkit.image_env().items()} <= set(config["Env"])
    assert config["Healthcheck"]["Test"] == ["CMD", "chkmqhealthy"]  # IBM's check (docs/samples.md)


def test_the_images_entrypoint_serves_ibmmq(image, container, tmp_path):
    entry = json.loads(_buildah("inspect", "--type", "image", image))["Docker"]["config"]["Entrypoint"]
    local = {"--host": "127.0.0.1", "--port": "0", "--http-port": "0", "--mqtt-port": "0"}
    argv = [local.get(before, arg) for before, arg in zip(["", *entry], entry)]
    served = Served(tmp_path / "data", command=["buildah", "run", "--isolation", "chroot", "--network", "host",
                                                container, "--", *argv], cwd=tmp_path, env=wheelkit.clean_env())
    try:
        who = _buildah("run", "--isolation", "chroot", container, "--", "id", "-un")
        assert who.strip() == "qmlite"  # the image's USER, as the ENTRYPOINT runs
        # as `docker exec` runs: in the WORKDIR, `python -m qmlite` imports the installed package
        version = _buildah("run", "--isolation", "chroot", container, "--", "python", "-m", "qmlite", "--version")
        assert version.startswith(f"qmlite {qmlite.__version__} (presents IBM MQ 9.")
        qmgr = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({served.port})", "admin", "passw0rd")
        queue = ibmmq.Queue(qmgr, "DEV.QUEUE.1", ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF | ibmmq.CMQC.MQOO_OUTPUT)
        queue.put(b"through the image")
        assert queue.get() == b"through the image"
        qmgr.disconnect()
        assert served.http_port
        # IBM's sample at IBM's path, and the HEALTHCHECK's command, as `docker exec` runs them
        script = (f"printf 'sampled\\n' | MQSERVER='DEV.APP.SVRCONN/TCP/127.0.0.1({served.port})' "
                  f"/opt/mqm/samp/bin/amqsputc DEV.QUEUE.1 QM1 && QMLITE_PORT={served.port} chkmqhealthy")
        out = _buildah("run", "--isolation", "chroot", "--network", "host", container, "--", "sh", "-c", script)
        assert out.splitlines() == ["Sample AMQSPUT0 start", "target queue is DEV.QUEUE.1", "Sample AMQSPUT0 end",
                                    "QMNAME(QM1)".ljust(58) + "STATUS(RUNNING)"]
    finally:
        # buildah run passes SIGTERM on but may kill the chroot's processes before qmlite has quiesced, and
        # then exits 1: how a container stops is the engine's business, not the image's
        served.stop()
