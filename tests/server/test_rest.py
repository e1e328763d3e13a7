"""The REST API over real sockets, as CI suites and KEDA's IBM MQ scaler call it: readiness, put/get,
browse, messagelist, publish, the answers IBM gives to bad credentials, roles, CSRF and unknown names,
and REST and MQI seeing the same queues."""

from __future__ import annotations

import contextlib

import httpx
import trio
import trio.testing

from qmlite.client.aio import AsyncQueueManager
from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.server import config
from qmlite.server.listener import running

ADMIN = ("admin", "passw0rd")
APP = ("app", "app-passw0rd")
CSRF = {"ibm-mq-rest-csrf-token": "token"}
MSG = "/ibmmq/rest/v1/messaging/qmgr/QM1/queue"


@contextlib.asynccontextmanager
async def rest_server(tmp_path, **overrides):
    cfg = config.load(environ={"MQ_APP_PASSWORD": APP[1]}, overrides={
        "host": "127.0.0.1", "port": 0, "http_port": 0, "data_dir": tmp_path / "data", **overrides})
    async with running(cfg, synchronous="NORMAL") as server:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.http_port}") as client:
            yield server, client


def _error(response) -> dict:
    body = response.json()
    assert set(body) == {"error"} and len(body["error"]) == 1
    err = body["error"][0]
    assert err["type"] == "rest" and err["message"].startswith(err["msgId"] + ": ")
    return err


async def test_readiness_get_answers_ibms_qmgr_shape_on_every_version(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        for version in ("v1", "v2", "v3"):
            r = await client.get(f"/ibmmq/rest/{version}/admin/qmgr", auth=ADMIN)
            assert r.status_code == 200 and r.json() == {"qmgr": [{"name": "QM1", "state": "running"}]}
        r = await client.get("/ibmmq/rest/v2/admin/qmgr/QM1?status=*", auth=APP)
        status = r.json()["qmgr"][0]["status"]
        assert status["connectionCount"] == 0 and status["started"].endswith("Z")
        r = await client.get("/ibmmq/rest/v1/admin/qmgr/QM9", auth=ADMIN)
        assert r.status_code == 404 and _error(r)["msgId"] == "MQWB0009E" and _error(r)["reasonCode"] == 2058
        r = await client.get("/ibmmq/rest/v9/admin/qmgr", auth=ADMIN)
        assert r.status_code == 404
        r = await client.get("/ibmmq/rest/v1/admin/installation", auth=ADMIN)
        assert r.json() == {"installation": [{"name": "Installation1", "platform": "unix", "version": "9.1.2.0"}]}
        r = await client.get("/ibmmq/rest/v2/admin/installation/Installation2", auth=ADMIN)
        assert r.status_code == 404 and "Installation2" in _error(r)["message"]


async def test_put_then_get_then_nothing_left(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        r = await client.post(f"{MSG}/DEV.QUEUE.1/message", auth=APP, content="héllo",
                              headers={**CSRF, "Content-Type": "text/plain;charset=utf-8",
                                       "ibm-mq-md-persistence": "persistent", "ibm-mq-md-expiry": "60000",
                                       "ibm-mq-md-correlationId": "00" * 23 + "2A",
                                       "ibm-mq-md-replyTo": "DEV.QUEUE.2"})
        assert r.status_code == 201
        msg_id = r.headers["ibm-mq-md-messageId"]
        assert len(msg_id) == 48 and msg_id.startswith("414D5120514D3120")  # "AMQ QM1 "
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message", auth=APP, headers=CSRF)
        assert r.status_code == 200 and r.text == "héllo"
        assert r.headers["content-type"].startswith("text/plain") and "utf-8" in r.headers["content-type"]
        assert r.headers["ibm-mq-md-messageId"] == msg_id
        assert r.headers["ibm-mq-md-correlationId"] == "00" * 23 + "2A"
        assert r.headers["ibm-mq-md-persistence"] == "persistent"
        assert r.headers["ibm-mq-md-replyTo"] == "DEV.QUEUE.2@QM1"
        assert 0 < int(r.headers["ibm-mq-md-expiry"]) <= 60000
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message", auth=APP, headers=CSRF)
        assert r.status_code == 204 and r.content == b""


async def test_get_by_correlation_id_and_message_id(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        ids = []
        for n in range(3):
            r = await client.post(f"{MSG}/DEV.QUEUE.1/message", auth=APP, content=f"m{n}",
                                  headers={**CSRF, "ibm-mq-md-correlationId": f"{n:048X}"})
            ids.append(r.headers["ibm-mq-md-messageId"])
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message?correlationId={2:048X}", auth=APP, headers=CSRF)
        assert r.text == "m2"
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message?messageId={ids[1]}", auth=APP, headers=CSRF)
        assert r.text == "m1"
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message?messageId=xyz", auth=APP, headers=CSRF)
        assert r.status_code == 400 and "48 hexadecimal digits" in _error(r)["message"]


async def test_delete_with_wait_is_woken_by_a_later_put(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        got = {}

        async def getter():
            got["r"] = await client.delete(f"{MSG}/DEV.QUEUE.2/message?wait=30000", auth=APP, headers=CSRF)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(getter)
            await trio.testing.wait_all_tasks_blocked()
            assert "r" not in got  # the DELETE waits: the queue is empty
            r = await client.post(f"{MSG}/DEV.QUEUE.2/message", auth=APP, content="late", headers=CSRF)
            assert r.status_code == 201
        assert got["r"].status_code == 200 and got["r"].text == "late"
        r = await client.delete(f"{MSG}/DEV.QUEUE.2/message?wait=abc", auth=APP, headers=CSRF)
        assert r.status_code == 400


async def test_browse_and_messagelist_leave_messages_on_the_queue(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        for body in ("first", "second"):
            await client.post(f"{MSG}/DEV.QUEUE.3/message", auth=APP, content=body, headers=CSRF)
        r = await client.get(f"{MSG}/DEV.QUEUE.3/message", auth=APP)  # GET needs no CSRF header
        assert r.status_code == 200 and r.text == "first"
        r = await client.get(f"{MSG}/DEV.QUEUE.3/messagelist", auth=APP)
        listed = r.json()["messages"]
        assert [m["format"] for m in listed] == ["MQSTR", "MQSTR"] and listed[0]["persistence"] == "nonPersistent"
        r = await client.get(f"{MSG}/DEV.QUEUE.3/messagelist?limit=1", auth=APP)
        assert len(r.json()["messages"]) == 1
        assert server.qm.registry.messages.depth("DEV.QUEUE.3") == 2
        r = await client.get(f"{MSG}/DEV.QUEUE.1/message", auth=APP)
        assert r.status_code == 204


async def test_v3_ids_priority_and_user_properties(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        base = "/ibmmq/rest/v3/messaging/qmgr/QM1/queue/DEV.QUEUE.1"
        r = await client.post(f"{base}/message", auth=APP, content="{}",
                              headers={**CSRF, "Content-Type": "application/json;charset=utf-8",
                                       "ibm-mq-md-priority": "7", "ibm-mq-md-correlationId": "order-17",
                                       "ibm-mq-usr": 'colour="red, or blue", size=3;int, ok=true;boolean'})
        assert r.status_code == 201 and r.headers["ibm-mq-md-messageId"].startswith("ID:")
        r = await client.delete(f"{base}/message", auth=APP, headers=CSRF)
        assert r.text == "{}" and r.headers["ibm-mq-md-priority"] == "7"
        assert r.headers["ibm-mq-md-correlationId"] == "ID:" + b"order-17".ljust(24, b"\0").hex()
        usr = r.headers["ibm-mq-usr"]
        assert 'colour="red, or blue"' in usr and "size=3;int" in usr and "ok=true;boolean" in usr
        r = await client.post(f"{base}/message", auth=APP, content="x", headers={**CSRF, "ibm-mq-md-priority": "12"})
        assert r.status_code == 400
        r = await client.post(f"{MSG}/DEV.QUEUE.1/message", auth=APP, content="x",
                              headers={**CSRF, "ibm-mq-usr": "a=1;int"})
        assert r.status_code == 400 and "v3" in _error(r)["message"]


async def test_publish_reaches_a_subscriber_queue_through_the_same_routing(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        async with await AsyncQueueManager.connect("127.0.0.1", server.port, "DEV.ADMIN.SVRCONN", "QM1",
                                                   user="admin", password="passw0rd") as qm:
            replies = await qm.pcf(C.MQCMD_CREATE_SUBSCRIPTION, [
                P.CFST(C.MQCACF_SUB_NAME, "REST.SUB"), P.CFST(C.MQCA_TOPIC_STRING, "dev/prices"),
                P.CFST(C.MQCACF_DESTINATION, "DEV.QUEUE.2")])
            assert replies[-1].header.CompCode == 0
        r = await client.post("/ibmmq/rest/v2/messaging/qmgr/QM1/topic/dev/prices/message", auth=APP,
                              content="42", headers=CSRF)
        assert r.status_code == 201
        r = await client.post("/ibmmq/rest/v2/messaging/qmgr/QM1/topic/dev%2Fprices/message", auth=APP,
                              content="43", headers=CSRF)
        assert r.status_code == 201
        got = [(await client.delete(f"{MSG}/DEV.QUEUE.2/message", auth=APP, headers=CSRF)).text for _ in range(2)]
        assert got == ["42", "43"]
        r = await client.post("/ibmmq/rest/v2/messaging/qmgr/QM1/topic/secret/x/message", auth=APP,
                              content="no", headers=CSRF)
        assert r.status_code == 403 and _error(r)["reasonCode"] == 2035  # app has PUB under dev/ only


async def test_rest_put_is_read_over_mqi_and_mqi_put_over_rest(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        r = await client.post(f"{MSG}/DEV.QUEUE.1/message", auth=APP, content="from rest",
                              headers={**CSRF, "ibm-mq-md-persistence": "persistent"})
        rest_id = bytes.fromhex(r.headers["ibm-mq-md-messageId"])
        async with await AsyncQueueManager.connect("127.0.0.1", server.port, "DEV.APP.SVRCONN", "QM1",
                                                   user="app", password=APP[1]) as qm:
            hobj, _ = await qm.open(S.MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
            md, _, data = await qm.get(hobj, S.MQMD(), S.MQGMO(Options=C.MQGMO_NO_WAIT), 1024)
            assert data == b"from rest" and md.MsgId == rest_id and md.Format.strip() == "MQSTR"
            assert md.Persistence == C.MQPER_PERSISTENT and md.UserIdentifier.strip() == "app"
            md, _ = await qm.put(hobj, S.MQMD(Format=C.MQFMT_STRING, CodedCharSetId=819,
                                              CorrelId=b"C" * 24), S.MQPMO(), "from mqi \xe9".encode("latin-1"))
            await qm.close(hobj)
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message", auth=APP, headers=CSRF)
        assert r.text == "from mqi é" and r.headers["ibm-mq-md-messageId"] == md.MsgId.hex().upper()
        assert r.headers["ibm-mq-md-correlationId"] == (b"C" * 24).hex().upper()


async def test_authentication_roles_csrf_and_authority_answers(tmp_path):
    async with rest_server(tmp_path) as (_, client):
        url = f"{MSG}/DEV.QUEUE.1/message"
        r = await client.post(url, content="x", headers=CSRF)
        assert r.status_code == 401 and _error(r)["msgId"] == "MQWB0104E"
        assert r.headers["www-authenticate"].startswith("Basic")
        r = await client.post(url, content="x", headers=CSRF, auth=("app", "wrong-password"))
        assert r.status_code == 401
        r = await client.post(url, content="x", headers={"Authorization": "Basic !!!"})
        assert r.status_code == 401
        r = await client.post(url, content="x", auth=APP)  # no CSRF header
        assert r.status_code == 403 and _error(r)["msgId"] == "MQWB0100E"
        r = await client.delete(url, auth=APP)
        assert r.status_code == 403 and _error(r)["msgId"] == "MQWB0100E"
        r = await client.post(url, content="x", auth=ADMIN, headers=CSRF)  # admin is MQWebAdmin only
        assert r.status_code == 403 and _error(r)["msgId"] == "MQWB0103E"
        r = await client.post("/ibmmq/rest/v2/admin/action/qmgr/QM1/mqsc", auth=APP, headers=CSRF,
                              json={"type": "runCommand", "parameters": {"command": "DISPLAY QMGR"}})
        assert r.status_code == 403 and _error(r)["reasonCode"] == 2035  # app is MQWebUser only
        r = await client.post(f"{MSG}/SYSTEM.ADMIN.COMMAND.QUEUE/message", auth=APP, content="x", headers=CSRF)
        assert r.status_code == 403 and _error(r)["reasonCode"] == 2035  # the authority records apply
        r = await client.delete(f"{MSG}/NO.SUCH.QUEUE/message", auth=APP, headers=CSRF)
        assert r.status_code == 404 and _error(r)["reasonCode"] == 2085
        r = await client.post("/ibmmq/rest/v1/messaging/qmgr/QM2/queue/DEV.QUEUE.1/message", auth=APP,
                              content="x", headers=CSRF)
        assert r.status_code == 404 and _error(r)["reasonCode"] == 2058
        r = await client.post(url, auth=APP, content=b"\xff\xfe", headers=CSRF)
        assert r.status_code == 400
        r = await client.post(url, auth=APP, content="x", headers={**CSRF, "Content-Type": "image/png"})
        assert r.status_code == 415
        r = await client.post(url, auth=APP, content="x", headers={**CSRF, "ibm-mq-md-persistence": "maybe"})
        assert r.status_code == 400 and "nonPersistent" in _error(r)["message"]
        r = await client.put(url, auth=APP, content="x", headers=CSRF)
        assert r.status_code == 405 and "error" in r.json()
        r = await client.get("/ibmmq/rest/v1/nothing/here", auth=APP)
        assert r.status_code == 404 and "error" in r.json()


async def test_app_has_no_rest_password_until_one_is_set(tmp_path):
    cfg = config.load(environ={}, overrides={"port": 0, "http_port": 0, "data_dir": tmp_path / "d"})
    async with running(cfg, synchronous="NORMAL") as server:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.http_port}") as client:
            r = await client.get("/ibmmq/rest/v1/admin/qmgr", auth=("app", ""))
            assert r.status_code == 401
            r = await client.get("/ibmmq/rest/v1/admin/qmgr", auth=ADMIN)
            assert r.status_code == 200


async def test_queue_full_and_too_big_carry_the_mq_reason(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        server.qm.registry.queues["DEV.QUEUE.1"].max_depth = 1
        await client.post(f"{MSG}/DEV.QUEUE.1/message", auth=APP, content="1", headers=CSRF)
        r = await client.post(f"{MSG}/DEV.QUEUE.1/message", auth=APP, content="2", headers=CSRF)
        assert r.status_code == 409 and _error(r)["reasonCode"] == C.MQRC_Q_FULL
        # DEV.QUEUE.2's MAXMSGL is the queue manager's: the queue's limit is the one named, as MQPUT names it
        too_big = server.qm.registry.qmgr.max_msg_length + 1
        r = await client.post(f"{MSG}/DEV.QUEUE.2/message", auth=APP, content="x" * too_big, headers=CSRF)
        assert r.status_code == 413 and _error(r)["reasonCode"] == C.MQRC_MSG_TOO_BIG_FOR_Q


async def test_reset_empties_queues_and_deletes_what_was_defined(tmp_path):
    async with rest_server(tmp_path) as (server, client):
        await client.post(f"{MSG}/DEV.QUEUE.1/message", auth=APP, content="x", headers=CSRF)
        reg = server.qm.registry
        extra = reg.queues["DEV.QUEUE.1"].__class__(name="MY.QUEUE")
        reg.put_queue(extra)
        r = await client.post("/ibmmq/rest/v1/admin/action/qmgr/QM1/reset", auth=APP, headers=CSRF)
        assert r.status_code == 403
        r = await client.post("/ibmmq/rest/v1/admin/action/qmgr/QM1/reset", auth=ADMIN, headers=CSRF)
        # cleared: DEV.QUEUE.1, and SYSTEM.ADMIN.QMGR.EVENT with the Queue Manager Active event that
        # STRSTPEV(ENABLED), IBM's default, put there at start (registry/monitoring/events.py)
        assert r.status_code == 200 and r.json()["reset"]["cleared"] == 2 and r.json()["reset"]["deleted"] >= 1
        assert "MY.QUEUE" not in reg.queues and reg.messages.depth("DEV.QUEUE.1") == 0
        r = await client.delete(f"{MSG}/DEV.QUEUE.1/message", auth=APP, headers=CSRF)
        assert r.status_code == 204
