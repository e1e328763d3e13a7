"""qmlite's runCommandPCF extension (``POST .../admin/action/qmgr/{qmgr}/pcf``, the web console's way to
the PCF command engine): JSON in, the engine's responses as JSON out, IBM's error JSON for a bad body,
role or CSRF header; and the translation itself with no HTTP."""

from __future__ import annotations

import httpx
import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.server.http import mqscjson, pcfjson
from tests.server.test_rest import APP, rest_server

ADMIN = ("admin", "passw0rd")
CSRF = {"ibm-mq-rest-csrf-token": ""}
PCF = "/ibmmq/rest/v1/admin/action/qmgr/QM1/pcf"


def body(command: str, **parameters) -> dict:
    return {"type": "runCommandPCF", "command": command, "parameters": parameters}


def test_json_becomes_the_pcf_structures_the_names_say():
    msg = pcfjson.command(body("CREATE_SUBSCRIPTION", MQCACF_SUB_NAME="S", MQIACF_DESTINATION_CLASS="MQDC_MANAGED",
                               MQIACF_SUB_ATTRS=[C.MQIACF_ALL], MQCACF_Q_NAMES=["A", "B"],
                               MQBACF_CONNECTION_ID="0a0b"))
    assert msg.header.Command == C.MQCMD_CREATE_SUBSCRIPTION and msg.header.Type == C.MQCFT_COMMAND
    assert msg.parameters == [P.CFST(C.MQCACF_SUB_NAME, "S"), P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED),
                              P.CFIL(C.MQIACF_SUB_ATTRS, (C.MQIACF_ALL,)), P.CFSL(C.MQCACF_Q_NAMES, ("A", "B")),
                              P.CFBS(C.MQBACF_CONNECTION_ID, b"\x0a\x0b")]


@pytest.mark.parametrize("request_body, words", [
    (body("MQCMD_NO_SUCH"), "not a PCF command"),
    ({"type": "runCommandPCF"}, "needs 'command'"),
    (body("INQUIRE_Q", MQCA_NO_SUCH="x"), "not an MQ constant"),
    (body("INQUIRE_Q", Q_NAME="x"), "expected an MQIA"),
    (body("INQUIRE_Q", MQCA_Q_NAME=5), "expected a string"),
    (body("INQUIRE_Q", MQIA_Q_TYPE="MQQT_NOPE"), "not an MQ constant"),
    (body("INQUIRE_Q", MQIA_Q_TYPE=True), "expected an integer"),
    (body("INQUIRE_CONNECTION", MQBACF_GENERIC_CONNECTION_ID="xyz"), "hexadecimal"),
])
def test_a_body_that_names_no_command_is_refused(request_body, words):
    with pytest.raises(mqscjson.TranslationError, match=words):
        pcfjson.command(request_body)


async def test_commands_run_by_the_engine_answer_in_json(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        create = body("MQCMD_CREATE_SUBSCRIPTION", MQCACF_SUB_NAME="REST.SUB", MQCA_TOPIC_STRING="dev/rest",
                      MQIACF_DESTINATION_CLASS="MQDC_MANAGED")
        r = await client.post(PCF, auth=ADMIN, headers=CSRF, json=create)
        assert r.status_code == 200 and r.json() == {
            "commandResponse": [{"completionCode": 0, "reasonCode": 0, "reasonName": "MQRC_NONE", "parameters": {}}],
            "overallCompletionCode": 0, "overallReasonCode": 0}
        r = await client.post(PCF, auth=ADMIN, headers=CSRF, json=create)
        answer = r.json()
        assert r.status_code == 200 and answer["overallCompletionCode"] == 2 and answer["overallReasonCode"] == 3008
        assert answer["commandResponse"][0]["reasonCode"] == 3311
        assert answer["commandResponse"][0]["reasonName"] == "MQRCCF_SUB_ALREADY_EXISTS"
        r = await client.post(PCF, auth=ADMIN, headers=CSRF,
                              json=body("INQUIRE_SUBSCRIPTION", MQCACF_SUB_NAME="REST.*"))
        (sub,) = [item["parameters"] for item in r.json()["commandResponse"]]
        assert sub["MQCACF_SUB_NAME"] == "REST.SUB" and sub["MQCA_TOPIC_STRING"] == "dev/rest"
        assert sub["MQIACF_DESTINATION_CLASS"] == C.MQDC_MANAGED and len(sub["MQBACF_SUB_ID"]) == 48
        r = await client.post(PCF, auth=ADMIN, headers=CSRF, json=body("INQUIRE_Q_STATUS", MQCA_Q_NAME="DEV.QUEUE.1"))
        (status,) = [item["parameters"] for item in r.json()["commandResponse"]]
        assert status["MQCA_Q_NAME"] == "DEV.QUEUE.1" and status["MQIA_CURRENT_Q_DEPTH"] == 0
        r = await client.post(PCF, auth=ADMIN, headers=CSRF, json=body("MQCMD_START_CHANNEL_INIT"))
        assert r.json()["commandResponse"][0]["reasonName"] == "MQRC_FUNCTION_NOT_SUPPORTED"


async def test_role_csrf_and_body_errors_are_ibms_error_json(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        inquire = body("INQUIRE_Q_STATUS", MQCA_Q_NAME="*")
        r = await client.post(PCF, auth=ADMIN, json=inquire)
        assert r.status_code == 403 and r.json()["error"][0]["msgId"] == "MQWB0100E"
        r = await client.post(PCF, auth=APP, headers=CSRF, json=inquire)
        assert r.status_code == 403 and r.json()["error"][0]["msgId"] == "MQWB0103E"
        r = await client.post(PCF, auth=ADMIN, headers=CSRF, json={"type": "runCommand"})
        assert r.status_code == 400 and "runCommandPCF" in r.json()["error"][0]["message"]
        r = await client.post(PCF, auth=ADMIN, headers=CSRF, content=b"{")
        assert r.status_code == 400 and "not valid JSON" in r.json()["error"][0]["message"]
        r = await client.post(PCF, auth=ADMIN, headers=CSRF, json=body("NOPE"))
        assert r.status_code == 400 and "not a PCF command" in r.json()["error"][0]["message"]
        r = await client.post(PCF.replace("QM1", "QM9"), auth=ADMIN, headers=CSRF, json=inquire)
        assert r.status_code == 404 and r.json()["error"][0]["reasonCode"] == 2058
        r = await client.get(PCF, auth=ADMIN)
        assert r.status_code == 405
