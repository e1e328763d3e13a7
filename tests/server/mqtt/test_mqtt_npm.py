"""The `mqtt` npm package's client (MQTT.js) against the telemetry listener.

The package is installed by npm into ``.cache/node-mqtt`` at the repository's root the first time
(the pinned major version; npm's own cache makes later installs local), so CI needs only node and npm."""

from __future__ import annotations

import json
import pathlib
import shutil

import trio

from .mqttpeers import WAIT, mqtt_server

ROOT = pathlib.Path(__file__).resolve().parents[3]
PREFIX = ROOT / ".cache" / "node-mqtt"
SCRIPT = pathlib.Path(__file__).with_name("node") / "roundtrip.js"
PACKAGE = "mqtt@5"


async def _installed() -> pathlib.Path:
    modules = PREFIX / "node_modules"
    if not (modules / "mqtt" / "package.json").exists():
        npm = shutil.which("npm")
        assert npm is not None, "npm is required (Debian: apt-get install nodejs npm)"
        PREFIX.mkdir(parents=True, exist_ok=True)
        with trio.fail_after(600):
            await trio.run_process([npm, "install", "--no-audit", "--no-fund", "--prefix", str(PREFIX), PACKAGE],
                                   capture_stdout=True, capture_stderr=True)
    return modules


async def test_mqtt_js_subscribes_and_gets_qos_0_1_2_back(tmp_path):
    modules = await _installed()
    async with mqtt_server(tmp_path) as (server, listener):
        with trio.fail_after(WAIT * 2):
            done = await trio.run_process(["node", str(SCRIPT), str(listener.port), "mqttjs"], capture_stdout=True,
                                          capture_stderr=True, check=False, env={"NODE_PATH": str(modules),
                                                                                  "PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr.decode()
        got = sorted((m["topic"], m["payload"], m["qos"]) for m in json.loads(done.stdout))
        assert got == [("dev/node/q0", "m0", 0), ("dev/node/q1", "m1", 1), ("dev/node/q2", "m2", 2)]
