"""QoS 1 and 2 messages for an absent persistent session survive a SIGKILL of the server: after the
restart the client's session is present and it gets each message once."""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading

from .mqttpeers import Paho

ROOT = pathlib.Path(__file__).resolve().parents[3]


@contextlib.contextmanager
def serving(data_dir):
    """``qmlite serve --mqtt-port 0``: DEV.MQTT's port is the one its ready line names."""
    proc = subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--mqtt-port", "0",
                             "--data-dir", str(data_dir)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()  # the ready line comes once DEV.MQTT listens
        found = re.search(r" and mqtt://[^:]+:(\d+) ", line)
        assert found, f"no MQTT port in the ready line: {line!r}"
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # its later lines never fill the pipe
        yield proc, int(found.group(1))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


async def test_qos_1_and_2_for_an_absent_session_survive_sigkill_once_each(tmp_path):
    with serving(tmp_path) as (proc, port):
        away = Paho(port, "durable1", clean=False)
        await away.connect()
        assert await away.subscribe("dev/k/#", 2) == [2]
        await away.disconnect()
        pub = Paho(port, "kpub")
        await pub.connect()
        for i in range(20):
            await pub.publish(f"dev/k/{i}", f"q1-{i}".encode(), 1)  # acknowledged: on disk
            await pub.publish(f"dev/k/{i}", f"q2-{i}".encode(), 2)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        await trio_to_thread_stop(pub)
    with serving(tmp_path) as (_proc, port):
        back = Paho(port, "durable1", clean=False)
        assert await back.connect() == (0, True)  # the session survived the restart
        got = [await back.receive() for _ in range(40)]
        payloads = sorted(m.payload for m in got)
        assert payloads == sorted([f"q1-{i}".encode() for i in range(20)] + [f"q2-{i}".encode() for i in range(20)])
        await back.publish("dev/k/marker", b"end", 1)
        assert (await back.receive()).payload == b"end"  # nothing doubled arrived before the marker
        await back.disconnect()


async def trio_to_thread_stop(client: Paho) -> None:
    """The publisher's network loop ends with its server; stop the thread without a DISCONNECT."""
    import trio

    await trio.to_thread.run_sync(client.client.loop_stop)
