"""qmlite's snapshot resources over REST (server/http/snapshotroutes.py, docs/rest.md): save, list, restore,
delete through the one domain object MQSC reaches too; IBM's error JSON for every bad name, an unknown
snapshot, a wrong role or a missing CSRF header."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.mqsc import run_mqsc
from tests.server.test_rest import APP, CSRF, MSG, rest_server

ADMIN = ("admin", "passw0rd")
LIST = "/ibmmq/rest/v2/admin/qmgr/QM1/snapshot"
ACTION = "/ibmmq/rest/v2/admin/action/qmgr/QM1/snapshot"


def _error(r) -> dict:
    [err] = r.json()["error"]
    assert set(err) == {"msgId", "message", "explanation", "action", "completionCode", "reasonCode", "type"}
    return err


async def test_save_list_restore_delete(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        await client.post(f"{MSG}/DEV.QUEUE.1/message", auth=APP, content="kept", headers=CSRF)
        r = await client.post(f"{ACTION}/BASE/save", auth=ADMIN, headers=CSRF)
        assert r.status_code == 200 and r.json()["save"]["name"] == "BASE" and r.json()["save"]["messages"] >= 1
        r = await client.get(LIST, auth=ADMIN)
        assert r.status_code == 200 and [s["name"] for s in r.json()["snapshot"]] == ["BASE"]
        assert set(r.json()["snapshot"][0]) == {"name", "saved", "objects", "messages", "subscriptions", "retained"}
        run_mqsc(server.qm, "DEFINE QLOCAL(LATER)")  # a test's changes
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message", auth=APP, headers=CSRF)
        assert r.status_code == 200 and r.text == "kept"
        r = await client.post(f"{ACTION}/BASE/restore", auth=ADMIN, headers=CSRF)
        assert r.status_code == 200 and r.json()["restore"]["deleted"] == 1 and r.json()["restore"]["messages"] == 1
        assert "LATER" not in server.qm.registry.queues
        assert server.qm.durable_position >= server.qm.position  # answered once on disk
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message", auth=APP, headers=CSRF)
        assert r.status_code == 200 and r.text == "kept"
        # the same snapshot, as MQSC sees it
        [shown] = run_mqsc(server.qm, "DISPLAY QMLITE SNAPSHOT(BASE)")
        assert shown.objects[0]["SNAPSHOT"] == "BASE"
        # a name with a slash (a valid MQ name character) is reachable too
        r = await client.post(f"{ACTION}/team/a/save", auth=ADMIN, headers=CSRF)
        assert r.status_code == 200 and r.json()["save"]["name"] == "team/a"
        r = await client.get(LIST, params={"name": "te*"}, auth=ADMIN)
        assert [s["name"] for s in r.json()["snapshot"]] == ["team/a"]
        r = await client.delete(f"{LIST}/BASE", auth=ADMIN, headers=CSRF)
        assert r.status_code == 204
        r = await client.get(f"{LIST}/BASE", auth=ADMIN)
        assert r.status_code == 404 and _error(r)["reasonCode"] == C.MQRC_UNKNOWN_OBJECT_NAME


@pytest.mark.parametrize("name", ["A%20B", "A-B", "A*B", "X" * 49, "%C3%89", "A:B", "*"])
async def test_a_bad_name_is_400_with_the_object_name_error(tmp_path, name):
    async with rest_server(tmp_path) as (_, client):
        for r in (await client.post(f"{ACTION}/{name}/save", auth=ADMIN, headers=CSRF),
                  await client.post(f"{ACTION}/{name}/restore", auth=ADMIN, headers=CSRF),
                  await client.delete(f"{LIST}/{name}", auth=ADMIN, headers=CSRF)):
            assert r.status_code == 400, r.text
            err = _error(r)
            assert err["msgId"] == "MQWB0004E" and err["reasonCode"] == C.MQRCCF_OBJECT_NAME_ERROR
            assert err["completionCode"] == C.MQCC_FAILED
        if name != "*":
            r = await client.get(f"{LIST}/{name}", auth=ADMIN)
            assert r.status_code == 400 and _error(r)["reasonCode"] == C.MQRCCF_OBJECT_NAME_ERROR


async def test_unknown_snapshots_roles_csrf_and_actions(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        for r in (await client.post(f"{ACTION}/NOPE/restore", auth=ADMIN, headers=CSRF),
                  await client.delete(f"{LIST}/NOPE", auth=ADMIN, headers=CSRF),
                  await client.get(f"{LIST}/NOPE", auth=ADMIN)):
            assert r.status_code == 404 and _error(r)["msgId"] == "MQWB0009E"
            assert _error(r)["reasonCode"] == C.MQRC_UNKNOWN_OBJECT_NAME
        r = await client.post(f"{ACTION}/S/save", auth=APP, headers=CSRF)
        assert r.status_code == 403 and _error(r)["msgId"] == "MQWB0103E"
        r = await client.post(f"{ACTION}/S/save", auth=ADMIN)
        assert r.status_code == 403 and _error(r)["msgId"] == "MQWB0100E"
        r = await client.post(f"{ACTION}/S/explode", auth=ADMIN, headers=CSRF)
        assert r.status_code == 404 and _error(r)["msgId"] == "MQWB0002E"
        r = await client.get(LIST, auth=ADMIN)
        assert r.status_code == 200 and r.json() == {"snapshot": []}
