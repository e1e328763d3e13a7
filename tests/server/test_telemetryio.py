"""The server's side of the telemetry service (server/telemetryio.py) with a fake MQTT transport: a
starter that opens a real listening socket on 127.0.0.1 (the real one, server/mqtt/, in
tests/server/mqtt/test_mqtt_admin.py), so
that the service's START/STOP CHANNEL, SYSTEM.MQXR.SERVICE's CONTROL(QMGR), PORT(0) and a port in use
are the real thing."""

from __future__ import annotations

import socket

import pytest
import trio
import trio.testing

from qmlite.pcf import constants as C
from qmlite.registry.qmgr import QueueManager
from qmlite.server import telemetryio

from tests.support.faketelemetry import connectable, mqsc


class Listener:
    def __init__(self, listeners) -> None:
        self.listeners = listeners
        self.port = listeners[0].socket.getsockname()[1]
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True
        for lst in self.listeners:
            await lst.aclose()


class Starter:
    """start_mqtt_listener's shape: binds 127.0.0.1 on the channel's port (0: one the system picks)."""

    def __init__(self) -> None:
        self.handles: dict[str, Listener] = {}

    async def __call__(self, server, channel, port):
        handle = Listener(await trio.open_tcp_listeners(port, host="127.0.0.1"))
        self.handles[channel.name] = handle
        return handle


class Server:
    def __init__(self, qm) -> None:
        self.qm = qm


@pytest.fixture
def qm(tmp_path):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL")
    yield qm
    qm.shutdown()


async def test_the_service_starts_with_the_server_and_channels_listen_and_stop(qm):
    assert mqsc(qm, "DEFINE CHANNEL(MQTT.A) CHLTYPE(MQTT) PORT(0)").completion_code == C.MQCC_OK
    starter = Starter()
    async with trio.open_nursery() as nursery:
        assert telemetryio.plug(nursery, Server(qm), starter) is not None
        assert qm.telemetry.running  # SYSTEM.MQXR.SERVICE is CONTROL(QMGR)
        await trio.testing.wait_all_tasks_blocked()
        run = qm.telemetry.runs["MQTT.A"]
        assert run.status == C.MQCHS_RUNNING and run.port == starter.handles["MQTT.A"].port != 0
        assert connectable(run.port)
        status = mqsc(qm, "DISPLAY CHSTATUS(MQTT.A) CHLTYPE(MQTT)").objects
        assert status == [{"CHANNEL": "MQTT.A", "CHLTYPE": "MQTT", "STATUS": "RUNNING", "CONNECTIONS": "0"}]
        assert mqsc(qm, "STOP CHANNEL(MQTT.A) CHLTYPE(MQTT)").completion_code == C.MQCC_OK
        await trio.testing.wait_all_tasks_blocked()
        assert starter.handles["MQTT.A"].closed and not connectable(run.port)
        assert mqsc(qm, "START CHANNEL(MQTT.A) CHLTYPE(MQTT)").completion_code == C.MQCC_OK
        await trio.testing.wait_all_tasks_blocked()
        assert connectable(qm.telemetry.runs["MQTT.A"].port)
        assert mqsc(qm, "STOP SERVICE(SYSTEM.MQXR.SERVICE)").completion_code == C.MQCC_OK
        await trio.testing.wait_all_tasks_blocked()
        assert starter.handles["MQTT.A"].closed
        nursery.cancel_scope.cancel()


async def test_a_port_in_use_stops_the_channel_and_nothing_else(qm):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert mqsc(qm, f"DEFINE CHANNEL(MQTT.A) CHLTYPE(MQTT) PORT({port})").completion_code == C.MQCC_OK
        assert mqsc(qm, "DEFINE CHANNEL(MQTT.B) CHLTYPE(MQTT) PORT(0)").completion_code == C.MQCC_OK
        async with trio.open_nursery() as nursery:
            telemetryio.plug(nursery, Server(qm), Starter())
            await trio.testing.wait_all_tasks_blocked()
            a, b = qm.telemetry.runs["MQTT.A"], qm.telemetry.runs["MQTT.B"]
            assert (a.status, b.status) == (C.MQCHS_STOPPED, C.MQCHS_RUNNING)
            assert a.failure  # the OS's words for it, in the log too
            nursery.cancel_scope.cancel()


async def test_a_manual_service_waits_for_start_service(qm):
    assert mqsc(qm, "ALTER SERVICE(SYSTEM.MQXR.SERVICE) CONTROL(MANUAL)").completion_code == C.MQCC_OK
    assert mqsc(qm, "DEFINE CHANNEL(MQTT.A) CHLTYPE(MQTT) PORT(0)").completion_code == C.MQCC_OK
    async with trio.open_nursery() as nursery:
        telemetryio.plug(nursery, Server(qm), Starter())
        assert not qm.telemetry.running
        assert mqsc(qm, "START SERVICE(SYSTEM.MQXR.SERVICE)").completion_code == C.MQCC_OK
        await trio.testing.wait_all_tasks_blocked()
        assert qm.telemetry.is_running("MQTT.A")
        nursery.cancel_scope.cancel()


def test_the_hook_plugs_server_mqtts_listener_when_given_no_starter(qm):
    # tests/server/mqtt/test_mqtt_admin.py runs it; here: the hook's default is that listener, loaded late
    io = telemetryio.plug(None, Server(qm))  # type: ignore[arg-type]  # no channel: nothing starts in it
    assert qm.telemetry.io is io and io._starter is telemetryio.start_listener
    assert qm.telemetry.running


# ---- the developer objects' MQTT channel (qmlite serve --mqtt-port) ---------------------------------
def test_mqtt_port_from_the_flag_the_file_and_the_environment_and_its_checks(tmp_path):
    from qmlite.server import config

    assert config.load(environ={}).mqtt_port is None  # no MQTT channel unless asked for
    assert config.load(environ={}, overrides={"mqtt_port": 1883}).mqtt_port == 1883
    toml = tmp_path / "qmlite.toml"
    toml.write_text("mqtt_port = 1884\n")
    assert config.load(environ={}, config_file=toml).mqtt_port == 1884
    assert config.load(environ={"QMLITE_MQTT_PORT": "1885"}, config_file=toml).mqtt_port == 1885
    for bad in ({"QMLITE_MQTT_PORT": "x"}, {"QMLITE_MQTT_PORT": "70000"}):
        with pytest.raises(config.ConfigError, match="MQTT port"):
            config.load(environ=bad)
    with pytest.raises(config.ConfigError, match="MQ_DEV=false"):
        config.load(environ={"MQ_DEV": "false"}, overrides={"mqtt_port": 1883})


def test_serve_with_an_mqtt_port_makes_dev_mqtt_and_moves_it_to_a_new_port(tmp_path):
    from qmlite.server import config
    from qmlite.server.opening import open_queue_manager

    cfg = config.load(environ={}, overrides={"data_dir": str(tmp_path / "data"), "mqtt_port": 1883})
    qm = open_queue_manager(cfg, synchronous="NORMAL")
    try:
        [dev] = mqsc(qm, "DISPLAY CHANNEL(DEV.MQTT) CHLTYPE(MQTT) PORT MCAUSER").objects
        assert (dev["PORT"], dev["MCAUSER"]) == ("1883", "app")
        assert mqsc(qm, "ALTER CHANNEL(DEV.MQTT) CHLTYPE(MQTT) BACKLOG(7)").completion_code == C.MQCC_OK
    finally:
        qm.shutdown()
    qm = open_queue_manager(config.load(environ={}, overrides={"data_dir": str(tmp_path / "data"),
                                                                "mqtt_port": 8883}), synchronous="NORMAL")
    try:
        [dev] = mqsc(qm, "DISPLAY CHANNEL(DEV.MQTT) CHLTYPE(MQTT) PORT BACKLOG").objects
        assert (dev["PORT"], dev["BACKLOG"]) == ("8883", "7")  # the administrator's ALTER stays
    finally:
        qm.shutdown()
    qm = open_queue_manager(config.load(environ={}, overrides={"data_dir": str(tmp_path / "plain")}),
                            synchronous="NORMAL")
    try:
        assert mqsc(qm, "DISPLAY CHANNEL(DEV.MQTT) CHLTYPE(MQTT)").reason_code == C.MQRC_UNKNOWN_OBJECT_NAME
    finally:
        qm.shutdown()
