"""Telemetry (MQTT) channels through the REST API's mqsc action (runCommandJSON and runCommand), over a
real socket to a running server: defined, shown with IBM's JSON names, the same object PCF and MQSC
see, and the run-time commands' answers while no MQTT transport runs."""

from __future__ import annotations

import httpx

from qmlite.pcf import constants as C
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import values as V
from qmlite.server import config
from qmlite.server.listener import running

ADMIN = ("admin", "passw0rd")
CSRF = {"ibm-mq-rest-csrf-token": "value"}
MQSC = "/ibmmq/rest/v2/admin/action/qmgr/QM1/mqsc"


async def test_define_display_purge_a_telemetry_channel_through_rest(tmp_path):
    cfg = config.load(environ={}, overrides={"port": 0, "http_port": 0, "data_dir": tmp_path / "data"})
    async with running(cfg, synchronous="NORMAL") as server:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.http_port}") as client:
            async def command(**body):
                r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={"type": "runCommandJSON", **body})
                assert r.status_code == 200, r.text
                return r.json()

            made = await command(command="define", qualifier="channel", name="Sensors",
                                 parameters={"chltype": "mqtt", "port": 1884, "protocol": ["mqttv311", "http"],
                                             "usecltid": "yes", "jaascfg": "MQXRConfig", "sslkeyp": "Secret",
                                             "sslcauth": "never", "mcauser": "app"})
            assert made["overallCompletionCode"] == 0, made
            shown = await command(command="display", qualifier="channel", name="Sensors",
                                  parameters={"chltype": "mqtt"}, responseParameters=["all"])
            [params] = [item["parameters"] for item in shown["commandResponse"]]
            assert {k: params[k] for k in ("channel", "chltype", "port", "protocol", "usecltid", "jaascfg",
                                           "sslkeyp", "sslcauth", "mcauser", "backlog")} == {
                "channel": "Sensors", "chltype": "MQTT", "port": 1884, "protocol": "MQTTV311,HTTP",
                "usecltid": "YES", "jaascfg": "MQXRConfig", "sslkeyp": "********", "sslcauth": "NEVER",
                "mcauser": "app", "backlog": 4096}
            channel = server.qm.registry.objects(M.KIND)["Sensors"]  # what PCF and MQSC see
            assert (channel.channel_type, channel.protocols, channel.ssl_key_passphrase) == (
                M.MQTT, (V.MQPROTO_MQTTV311, V.MQPROTO_HTTP), "Secret")
            wrong = await command(command="alter", qualifier="channel", name="Sensors",
                                  parameters={"chltype": "mqtt", "descr": "not for MQTT"})
            assert wrong["commandResponse"][0]["reasonCode"] == C.MQRCCF_WRONG_CHANNEL_TYPE
            # No such client; without an MQTT transport in the build the service is not running either.
            purged = await command(command="purge", qualifier="channel", name="Sensors",
                                   parameters={"chltype": "mqtt", "clientid": "dev-1"})
            assert purged["commandResponse"][0]["reasonCode"] == (
                C.MQRCCF_CLIENT_ID_NOT_FOUND if server.qm.telemetry.running else C.MQRCCF_CHL_SYSTEM_NOT_ACTIVE)
            r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={
                "type": "runCommand", "parameters": {"command": "DISPLAY CHANNEL(*) CHLTYPE(MQTT)"}})
            assert r.json()["commandResponse"][0]["text"][1].strip().startswith("CHANNEL(Sensors)")
