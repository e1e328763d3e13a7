"""The MQTT protocol and its administration as one thing: START CHANNEL CHLTYPE(MQTT) runs server/mqtt/'s
listener through the telemetry service (server/telemetryio.py), DISPLAY CHSTATUS shows paho's session
from the one ``qm.telemetry.sessions``, STOP and PURGE CHANNEL CLIENTID end its connection, STOP CHANNEL
closes the port; ``qmlite serve --mqtt-port 0`` names DEV.MQTT's port in its ready line."""

from __future__ import annotations

import re
import subprocess
import sys

import trio
import trio.testing

from qmlite.pcf import constants as C

from tests.support.faketelemetry import connectable, mqsc
from tests.support.rawfap import running_server

from .mqttpeers import Paho, WAIT


async def test_start_channel_runs_the_listener_chstatus_shows_paho_and_purge_drops_it(tmp_path):
    async with running_server(tmp_path) as server:
        qm = server.qm
        assert qm.telemetry.running  # SYSTEM.MQXR.SERVICE starts with the queue manager (CONTROL(QMGR))
        assert mqsc(qm, "DEFINE CHANNEL(SENSORS) CHLTYPE(MQTT) PORT(0) MCAUSER('app')").completion_code == C.MQCC_OK
        assert mqsc(qm, "START CHANNEL(SENSORS) CHLTYPE(MQTT)").completion_code == C.MQCC_OK
        with trio.fail_after(WAIT):
            port = await qm.telemetry.io.port_of("SENSORS")
        assert port and qm.telemetry.runs["SENSORS"].status == C.MQCHS_RUNNING

        sensor = Paho(port, "sensor1", clean=False)
        assert await sensor.connect() == (0, False)
        assert await sensor.subscribe("dev/sensors/#", 1) == [1]
        assert "sensor1:dev/sensors/#" in server.registry.subs
        [summary] = mqsc(qm, "DISPLAY CHSTATUS(SENSORS) CHLTYPE(MQTT)").objects
        assert (summary["STATUS"], summary["CONNECTIONS"]) == ("RUNNING", "1")
        [row] = mqsc(qm, "DISPLAY CHSTATUS(SENSORS) CHLTYPE(MQTT) CLIENTID('sensor1') ALL").objects
        assert (row["CLIENTID"], row["STATUS"], row["MCAUSER"], row["PROTOCOL"]) == (
            "sensor1", "RUNNING", "app", "MQTTV311")
        assert row["CONNAME"].startswith("127.0.0.1")

        # STOP CHANNEL CLIENTID: the connection ends, the persistent session stays (DISCONNECTED)
        assert mqsc(qm, "STOP CHANNEL(SENSORS) CHLTYPE(MQTT) CLIENTID('sensor1')").completion_code == C.MQCC_OK
        await sensor.dropped()
        [row] = mqsc(qm, "DISPLAY CHSTATUS(SENSORS) CHLTYPE(MQTT) CLIENTID('sensor1')").objects
        assert row["STATUS"] == "DISCONNECTED" and "sensor1:dev/sensors/#" in server.registry.subs

        back = Paho(port, "sensor1", clean=False)
        assert await back.connect() == (0, True)  # the session was kept
        assert mqsc(qm, "PURGE CHANNEL(SENSORS) CHLTYPE(MQTT) CLIENTID('sensor1')").completion_code == C.MQCC_OK
        await back.dropped()
        assert "sensor1:dev/sensors/#" not in server.registry.subs  # its subscriptions went with its state
        assert qm.telemetry.sessions.get("sensor1") is None
        purged = mqsc(qm, "DISPLAY CHSTATUS(SENSORS) CHLTYPE(MQTT) CLIENTID('sensor1')")
        assert purged.reason_code == C.MQRCCF_CHL_STATUS_NOT_FOUND
        again = Paho(port, "sensor1", clean=False)
        assert await again.connect() == (0, False)  # nothing of the purged session is present
        await again.disconnect()

        assert mqsc(qm, "STOP CHANNEL(SENSORS) CHLTYPE(MQTT)").completion_code == C.MQCC_OK
        await trio.testing.wait_all_tasks_blocked()
        assert not connectable(port)
        stopped = mqsc(qm, "DISPLAY CHSTATUS(SENSORS) CHLTYPE(MQTT)").objects
        assert stopped[0]["STATUS"] == "STOPPED"


async def test_a_channel_whose_key_store_cannot_be_read_stops_and_the_server_goes_on(tmp_path):
    async with running_server(tmp_path) as server:
        qm = server.qm
        missing = tmp_path / "no-such-store.p12"
        assert mqsc(qm, f"DEFINE CHANNEL(SECURE) CHLTYPE(MQTT) PORT(0) SSLKEYR('{missing}') "
                        "SSLCIPH(ANY_TLS12_OR_HIGHER)").completion_code == C.MQCC_OK
        assert mqsc(qm, "START CHANNEL(SECURE) CHLTYPE(MQTT)").completion_code == C.MQCC_OK
        with trio.fail_after(WAIT):
            assert await qm.telemetry.io.port_of("SECURE") is None
        run = qm.telemetry.runs["SECURE"]
        assert run.status == C.MQCHS_STOPPED and "SECURE" in run.failure
        assert mqsc(qm, "DISPLAY QMGR").completion_code == C.MQCC_OK  # the queue manager serves on


def test_serve_with_mqtt_port_0_names_dev_mqtts_port_and_paho_connects(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--mqtt-port", "0",
                             "--data-dir", str(tmp_path / "data")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()  # the ready line is the synchronisation point
        found = re.search(r" and mqtt://127\.0\.0\.1:(\d+) ", line)
        assert found, line
        port = int(found.group(1))
        assert port != 0 and connectable(port)
    finally:
        proc.kill()
        proc.wait()


async def test_after_a_restart_an_away_persistent_client_shows_disconnected_and_can_be_purged(tmp_path):
    async with running_server(tmp_path) as server:
        assert mqsc(server.qm, "DEFINE CHANNEL(SENSORS) CHLTYPE(MQTT) PORT(0)").completion_code == C.MQCC_OK
        assert mqsc(server.qm, "START CHANNEL(SENSORS) CHLTYPE(MQTT)").completion_code == C.MQCC_OK
        with trio.fail_after(WAIT):
            port = await server.qm.telemetry.io.port_of("SENSORS")
        keeper = Paho(port, "keeper", clean=False)
        await keeper.connect()
        assert await keeper.subscribe("dev/kept/#", 1) == [1]
        await keeper.disconnect()
    async with running_server(tmp_path) as server:  # SYSTEM.MQXR.SERVICE starts SENSORS again
        qm = server.qm
        with trio.fail_after(WAIT):
            assert await qm.telemetry.io.port_of("SENSORS")
        [row] = mqsc(qm, "DISPLAY CHSTATUS(*) CHLTYPE(MQTT) CLIENTID('keeper')").objects
        assert (row["CHANNEL"], row["STATUS"]) == ("SENSORS", "DISCONNECTED")
        assert mqsc(qm, "PURGE CHANNEL(SENSORS) CHLTYPE(MQTT) CLIENTID('keeper')").completion_code == C.MQCC_OK
        assert "keeper:dev/kept/#" not in server.registry.subs
