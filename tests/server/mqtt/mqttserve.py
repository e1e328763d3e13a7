"""A queue manager with an MQTT listener in a process of its own, for the SIGKILL test:
``python -m tests.server.mqtt.mqttserve DATA_DIR`` prints ``MQTT <port>`` once it listens."""

from __future__ import annotations

import pathlib
import sys

import trio

from qmlite.server import config
from qmlite.server.listener import running
from qmlite.server.mqtt.mqttlistener import start_mqtt_listener


async def main(data_dir: pathlib.Path) -> None:
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": data_dir})
    async with running(cfg) as server:
        listener = await start_mqtt_listener(server, None, 0)
        print(f"MQTT {listener.port}", flush=True)
        await trio.sleep_forever()


if __name__ == "__main__":
    trio.run(main, pathlib.Path(sys.argv[1]))
