"""Telemetry (MQTT) channels in MQSC: IBM's DEFINE/ALTER/DISPLAY CHANNEL (MQTT) keywords round trip
(and survive a restart), the same object PCF sees, START/STOP/PURGE CHANNEL CHLTYPE(MQTT),
DISPLAY CHSTATUS ... CHLTYPE(MQTT) [CLIENTID] and START SERVICE(SYSTEM.MQXR.SERVICE) against a fake
transport, and bad input."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.mqsc import MqscResult, run_mqsc
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import values as V
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.telemetry.telemetrysessions import Session
from tests.support.faketelemetry import FakeIO

DEFINE = ("DEFINE CHANNEL(MQTT.A) CHLTYPE(MQTT) TRPTYPE(TCP) PORT(1884) PROTOCOL(MQTTV311,HTTP) USECLTID(YES) "
          "MCAUSER('app') SSLCIPH('SSL_RSA_WITH_AES_128_CBC_SHA256') SSLCAUTH(OPTIONAL) "
          "SSLKEYR('/var/mqm/keys/mqtt.jks') SSLKEYP('secret') BACKLOG(100) LOCLADDR('127.0.0.1') "
          "JAASCFG('MQXRConfig')")
SHOWN = {"CHANNEL": "MQTT.A", "CHLTYPE": "MQTT", "BACKLOG": "100", "JAASCFG": "MQXRConfig",
         "LOCLADDR": "127.0.0.1", "MCAUSER": "app", "PORT": "1884", "PROTOCOL": "MQTTV311,HTTP",
         "SSLCAUTH": "OPTIONAL", "SSLCIPH": "SSL_RSA_WITH_AES_128_CBC_SHA256", "SSLKEYP": "********",
         "SSLKEYR": "/var/mqm/keys/mqtt.jks", "TRPTYPE": "TCP", "USECLTID": "YES"}


@pytest.fixture
def qm(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    yield qm
    qm.shutdown()


def one(qm, text: str) -> MqscResult:
    [result] = run_mqsc(qm, text)
    return result


def shown(result: MqscResult) -> dict[str, str]:
    [obj] = result.objects
    return {k: v for k, v in obj.items() if k not in ("ALTDATE", "ALTTIME")}


def test_define_display_alter_as_ibm_writes_them_and_after_a_restart(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    try:
        assert one(qm, DEFINE).text == ["AMQ8014I: IBM MQ channel created."]
        display = one(qm, "DISPLAY CHANNEL(MQTT.A) CHLTYPE(MQTT)")
        assert display.text[0] == "AMQ8414I: Display Channel details."
        assert shown(display) == SHOWN
        assert one(qm, "ALTER CHANNEL(MQTT.A) CHLTYPE(MQTT) PROTOCOL(MQTTV3) SSLCAUTH(NEVER)").text == [
            "AMQ8016I: IBM MQ channel changed."]
    finally:
        qm.shutdown()
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    try:
        again = shown(one(qm, "DIS CHL(MQTT.A) CHLTYPE(MQTT) ALL"))
        assert again == {**SHOWN, "PROTOCOL": "MQTTV3", "SSLCAUTH": "NEVER"}
        # The object PCF sees is the one MQSC defined.
        channel = qm.registry.objects(M.KIND)["MQTT.A"]
        assert (channel.protocols, channel.ssl_client_auth, channel.ssl_key_passphrase) == (
            (V.MQPROTO_MQTTV3,), V.MQSCA_NEVER_REQUIRED, "secret")
        # A generic DISPLAY without CHLTYPE(MQTT) lists the MQ channels only.
        assert "MQTT.A" not in {o["CHANNEL"] for o in one(qm, "DISPLAY CHANNEL(*)").objects}
        assert [o["CHANNEL"] for o in one(qm, "DISPLAY CHANNEL(*) CHLTYPE(MQTT)").objects] == ["MQTT.A"]
        assert one(qm, "DELETE CHANNEL(MQTT.A) CHLTYPE(MQTT)").text == ["AMQ8015I: IBM MQ channel deleted."]
    finally:
        qm.shutdown()


@pytest.mark.parametrize("text, reason", [
    ("DEFINE CHANNEL(X) CHLTYPE(MQTT) DESCR('a device channel')", C.MQRCCF_WRONG_CHANNEL_TYPE),
    ("DEFINE CHANNEL(X) CHLTYPE(MQTT) HBINT(30)", C.MQRCCF_WRONG_CHANNEL_TYPE),
    ("DEFINE CHANNEL(X) CHLTYPE(MQTT) PORT(65536)", C.MQRCCF_PORT_NUMBER_ERROR),
    ("DEFINE CHANNEL(X) CHLTYPE(MQTT) BACKLOG(-1)", C.MQRCCF_BACKLOG_OUT_OF_RANGE),
    ("DEFINE CHANNEL(X) CHLTYPE(MQTT) PROTOCOL(HTTP,HTTP)", C.MQRCCF_INVALID_PROTOCOL),
    ("DEFINE CHANNEL(X) CHLTYPE(SVRCONN) USECLTID(YES)", C.MQRCCF_WRONG_CHANNEL_TYPE),
    ("DEFINE CHANNEL(X) CHLTYPE(SVRCONN) SSLCAUTH(NEVER)", C.MQRCCF_SSL_CLIENT_AUTH_ERROR),
])
def test_bad_definitions_get_ibms_reasons(qm, text, reason):
    result = one(qm, text)
    assert (result.completion_code, result.reason_code) == (C.MQCC_FAILED, reason)


@pytest.mark.parametrize("text", ["DEFINE CHANNEL(X) CHLTYPE(MQTT) PROTOCOL(AMQP)",
                                  "DEFINE CHANNEL(X) CHLTYPE(MQTT) PROTOCOL(MQTTV5)",
                                  "DEFINE CHANNEL(X) CHLTYPE(MQTT) USECLTID(MAYBE)"])
def test_words_not_in_ibms_vocabulary_are_syntax_errors(qm, text):
    assert one(qm, text).syntax_error


def test_service_channels_chstatus_stop_and_purge(qm, clock):
    io = FakeIO(qm.telemetry)
    qm.telemetry.attach(io)
    assert one(qm, "DEFINE CHANNEL(MQTT.A) CHLTYPE(MQTT) PORT(1884)").completion_code == C.MQCC_OK
    assert one(qm, "START SERVICE(SYSTEM.MQXR.SERVICE)").text == ["AMQ8733I: Request to start Service accepted."]
    assert io.started == ["MQTT.A"]
    assert one(qm, "DISPLAY SVSTATUS(SYSTEM.MQXR.SERVICE)").objects[0]["STATUS"] == "RUNNING"
    for cid, connected in (("dev1", True), ("dev2", False)):
        qm.telemetry.sessions.add(Session(cid, "MQTT.A", conn_name="127.0.0.1(5000)", connected=connected,
                                                protocol="MQTTV311", keep_alive=30, msgs_sent=2,
                                                started=clock.t, last_msg=clock.t))
    summary = one(qm, "DISPLAY CHSTATUS(MQTT.A) CHLTYPE(MQTT)")
    assert summary.text[0] == "AMQ8417I: Display Channel Status details."
    assert summary.objects == [{"CHANNEL": "MQTT.A", "CHLTYPE": "MQTT", "STATUS": "RUNNING", "CONNECTIONS": "1"}]
    detail = one(qm, "DISPLAY CHSTATUS(MQTT.A) CHLTYPE(MQTT) CLIENTID('dev1') ALL").objects
    assert len(detail) == 1
    assert {k: detail[0][k] for k in ("CLIENTID", "STATUS", "PROTOCOL", "KAINT", "MSGSNT", "CONNAME")} == {
        "CLIENTID": "dev1", "STATUS": "RUNNING", "PROTOCOL": "MQTTV311", "KAINT": "30", "MSGSNT": "2",
        "CONNAME": "127.0.0.1(5000)"}
    away = one(qm, "DISPLAY CHSTATUS(*) CHLTYPE(MQTT) CLIENTID(*) WHERE(STATUS EQ DISCONNECTED)").objects
    assert [o["CLIENTID"] for o in away] == ["dev2"]
    assert one(qm, "STOP CHANNEL(MQTT.A) CHLTYPE(MQTT) CLIENTID('dev1')").completion_code == C.MQCC_OK
    assert one(qm, "PURGE CHANNEL(MQTT.A) CHLTYPE(MQTT) CLIENTID('dev2')").completion_code == C.MQCC_OK
    assert [s.client_id for s in qm.telemetry.sessions.list()] == ["dev1"]
    missing = one(qm, "PURGE CHANNEL(MQTT.A) CHLTYPE(MQTT) CLIENTID('dev2')")
    assert missing.reason_code == C.MQRCCF_CLIENT_ID_NOT_FOUND
    assert one(qm, "STOP CHANNEL(MQTT.A) CHLTYPE(MQTT)").text == ["AMQ8019I: Stop IBM MQ channel accepted."]
    assert one(qm, "DISPLAY CHSTATUS(MQTT.A) CHLTYPE(MQTT)").objects[0]["STATUS"] == "STOPPED"
    assert one(qm, "START CHANNEL(MQTT.A) CHLTYPE(MQTT)").text == ["AMQ8018I: Start IBM MQ channel accepted."]
    assert one(qm, "STOP SERVICE(SYSTEM.MQXR.SERVICE)").completion_code == C.MQCC_OK
    assert one(qm, "DISPLAY CHSTATUS(*) CHLTYPE(MQTT)").reason_code == C.MQRCCF_CHL_SYSTEM_NOT_ACTIVE


def test_an_mqtt_clients_subscription_is_an_ordinary_one_display_sub_and_sbstatus_show(qm):
    # As the MQTT side makes one for a clean-session-false client (issue 33 item 4): an MQSUB on the
    # client's connection through the telemetry channel, durable, named for the client and its filter.
    from qmlite.pcf import mqi as S

    session = qm.connect(qm.registry.qmgr.name, user="app", admin=False, channel="DEV.MQTT",
                         conname="127.0.0.1(50001)")
    sd = S.MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, ObjectString=S.MQCHARV("dev/sensors/#"),
                SubName=S.MQCHARV("dev1:dev/sensors/#"))
    qm.subscribe(session, sd, 0)
    [sub] = one(qm, "DISPLAY SUB('dev1:dev/sensors/#') SUBTYPE DESTCLAS SUBUSER DURABLE TOPICSTR").objects
    assert {k: sub[k] for k in ("SUB", "SUBTYPE", "DESTCLAS", "SUBUSER", "DURABLE", "TOPICSTR")} == {
        "SUB": "dev1:dev/sensors/#", "SUBTYPE": "API", "DESTCLAS": "MANAGED", "SUBUSER": "app", "DURABLE": "YES",
        "TOPICSTR": "dev/sensors/#"}
    [status] = one(qm, "DISPLAY SBSTATUS('dev1:dev/sensors/#') ALL").objects
    assert status["SUB"] == "dev1:dev/sensors/#" and status["ACTCONN"] != "0" * 48  # the client's connection
