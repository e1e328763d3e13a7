"""The mqsc endpoint: runCommandJSON -> MQSC text, MQSC results -> IBM's JSON, with a fake runner of
the MQSC engine's interface (``run_mqsc(qmgr, text, *, user) -> list[MqscResult]``); and the request
KEDA's IBM MQ scaler makes, over a real socket."""

from __future__ import annotations

import dataclasses

import httpx
import pytest

from qmlite.pcf import constants as C
from qmlite.server import config
from qmlite.server.http import mqscjson
from qmlite.server.listener import running

ADMIN = ("admin", "passw0rd")
CSRF = {"ibm-mq-rest-csrf-token": "value"}
MQSC = "/ibmmq/rest/v2/admin/action/qmgr/QM1/mqsc"
DEFINE_REST_SUB = "DEFINE SUB(REST.SUB) TOPICSTR('dev/rest') DEST(DEV.QUEUE.2)"


@dataclasses.dataclass
class MqscResult:  # the MQSC engine's result, as its interface fixes it
    command: str
    completion_code: int
    reason_code: int
    text: list[str]
    objects: list[dict[str, str]]


class FakeRunner:
    def __init__(self, *results: MqscResult) -> None:
        self.results = list(results)
        self.calls: list[tuple[str, str]] = []

    def __call__(self, qmgr, text: str, *, user: str = "mqm") -> list[MqscResult]:
        self.calls.append((text, user))
        return self.results


@pytest.mark.parametrize("body, text", [
    ({"command": "display", "qualifier": "qlocal", "name": "DEV.QUEUE.1", "responseParameters": ["CURDEPTH"]},
     "DISPLAY QLOCAL(DEV.QUEUE.1) CURDEPTH"),
    ({"command": "DISPLAY", "qualifier": "QSTATUS", "name": "Q1", "parameters": {"type": "queue"},
      "responseParameters": ["curdepth", "ipprocs"]},
     "DISPLAY QSTATUS(Q1) TYPE(queue) CURDEPTH IPPROCS"),
    ({"command": "display", "qualifier": "qlocal", "name": "*", "responseParameters": ["all"]},
     "DISPLAY QLOCAL(*) ALL"),
    ({"command": "define", "qualifier": "qlocal", "name": "my.queue",
      "parameters": {"maxdepth": 5000, "descr": "It's mine", "replace": "", "defpsist": "yes", "purge": False}},
     "DEFINE QLOCAL('my.queue') MAXDEPTH(5000) DESCR('It''s mine') REPLACE DEFPSIST(yes)"),
    ({"command": "alter", "qualifier": "namelist", "name": "NL", "parameters": {"names": ["A", "b c", 7]}},
     "ALTER NAMELIST(NL) NAMES(A,'b c',7)"),
    ({"command": "display", "qualifier": "qmgr"}, "DISPLAY QMGR"),
    ({"command": "set", "qualifier": "authrec", "parameters": {"profile": "DEV.**", "objtype": "queue",
                                                               "principal": "app", "authadd": ["put", "get"]}},
     "SET AUTHREC PROFILE('DEV.**') OBJTYPE(queue) PRINCIPAL('app') AUTHADD(put,get)"),
])
def test_run_command_json_becomes_one_mqsc_command(body, text):
    assert mqscjson.command_text(body) == text


@pytest.mark.parametrize("body, why", [
    ({"qualifier": "qlocal"}, "'command'"),
    ({"command": "display", "qualifier": "q local"}, "'qualifier'"),
    ({"command": "display", "qualifier": "qlocal", "name": ""}, "'name'"),
    ({"command": "display", "qualifier": "qlocal", "parameters": ["x"]}, "'parameters'"),
    ({"command": "display", "qualifier": "qlocal", "parameters": {"a b": 1}}, "not an MQSC keyword"),
    ({"command": "display", "qualifier": "qlocal", "parameters": {"x": {"y": 1}}}, "value must be"),
    ({"command": "define", "qualifier": "qlocal", "name": "Q", "responseParameters": ["curdepth"]}, "display"),
    ({"command": "display", "qualifier": "qlocal", "responseParameters": "curdepth"}, "list"),
])
def test_bad_run_command_json_is_named(body, why):
    with pytest.raises(mqscjson.TranslationError, match=why):
        mqscjson.command_text(body)


def test_display_objects_become_lower_case_parameters_with_integers():
    res = MqscResult("DISPLAY QLOCAL(*)", 0, 0, ["AMQ8409I: Display Queue details."],
                     [{"QUEUE": "007", "TYPE": "QLOCAL", "CURDEPTH": "3", "DESCR": "42", "MAXDEPTH": "5000",
                       "DEFPSIST": "NO"}])
    assert mqscjson.json_responses([res]) == [{"completionCode": 0, "reasonCode": 0, "parameters": {
        "queue": "007", "type": "QLOCAL", "curdepth": 3, "descr": "42", "maxdepth": 5000, "defpsist": "NO"}}]
    failed = MqscResult("DISPLAY QLOCAL(NONE)", 2, 2085, ["AMQ8147E: IBM MQ object NONE not found."], [])
    assert mqscjson.json_responses([failed]) == [
        {"completionCode": 2, "reasonCode": 2085, "message": ["AMQ8147E: IBM MQ object NONE not found."]}]
    assert mqscjson.overall([res, failed]) == {"overallCompletionCode": 2, "overallReasonCode": 3008}
    assert mqscjson.overall([res]) == {"overallCompletionCode": 0, "overallReasonCode": 0}


async def test_keda_scaler_request_reads_curdepth(tmp_path):
    runner = FakeRunner(MqscResult("DISPLAY QLOCAL(DEV.QUEUE.1) CURDEPTH", 0, 0, [],
                                   [{"QUEUE": "DEV.QUEUE.1", "TYPE": "QLOCAL", "CURDEPTH": "10"}]))
    cfg = config.load(environ={}, overrides={"port": 0, "http_port": 0, "data_dir": tmp_path / "data"})
    async with running(cfg, synchronous="NORMAL") as server:
        server.mqsc_runner = runner
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.http_port}") as client:
            # Exactly the scaler's request: its body text, its headers, basic auth.
            r = await client.post(MQSC, auth=ADMIN, headers={**CSRF, "Content-Type": "application/json"},
                                  content=b'{"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", '
                                          b'"name": "DEV.QUEUE.1", "responseParameters" : ["CURDEPTH"]}')
            assert r.status_code == 200
            assert r.json()["commandResponse"][0]["parameters"]["curdepth"] == 10
            assert r.json()["overallCompletionCode"] == 0
            assert runner.calls == [("DISPLAY QLOCAL(DEV.QUEUE.1) CURDEPTH", "admin")]

            runner.results = [MqscResult("DISPLAY QLOCAL(*)", 0, 0, ["AMQ8409I: Display Queue details.",
                                                                     "   QUEUE(DEV.QUEUE.1)"], [])]
            r = await client.post("/ibmmq/rest/v3/admin/action/qmgr/QM1/mqsc", auth=ADMIN, headers=CSRF,
                                  json={"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(*)"}})
            assert r.json() == {"commandResponse": [{"completionCode": 0, "reasonCode": 0, "text": [
                "AMQ8409I: Display Queue details.", "   QUEUE(DEV.QUEUE.1)"]}],
                "overallCompletionCode": 0, "overallReasonCode": 0}
            assert runner.calls[-1] == ("DISPLAY QLOCAL(*)", "admin")

            for bad in (b"{", b"[1]", b'{"type": "runCommand"}', b'{"type": "other"}',
                        b'{"type": "runCommandJSON", "command": "display"}'):
                r = await client.post(MQSC, auth=ADMIN, headers=CSRF, content=bad)
                assert r.status_code == 400 and r.json()["error"][0]["type"] == "rest", bad
            r = await client.post("/ibmmq/rest/v1/admin/action/qmgr/QM1/mqsc", auth=ADMIN, headers=CSRF, json={})
            assert r.status_code == 404  # the mqsc resource is v2 and v3
            r = await client.post("/ibmmq/rest/v2/admin/action/qmgr/QMX/mqsc", auth=ADMIN, headers=CSRF, json={})
            assert r.status_code == 404 and r.json()["error"][0]["msgId"] == "MQWB0009E"
            assert len(runner.calls) == 2


async def test_the_real_mqsc_engine_answers_keda_and_pubsub_setups(tmp_path):
    """No fake runner: the server's own MQSC engine (registry/mqsc) behind the endpoint."""
    cfg = config.load(environ={}, overrides={"port": 0, "http_port": 0, "data_dir": tmp_path / "data"})
    async with running(cfg, synchronous="NORMAL") as server:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.http_port}") as client:
            for i in range(3):
                r = await client.post(f"/ibmmq/rest/v1/messaging/qmgr/QM1/queue/DEV.QUEUE.1/message",
                                      auth=("app", "passw0rd"), headers=CSRF, content=f"m{i}")
            # KEDA's IBM MQ scaler: runCommandJSON display qstatus, curdepth
            r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={
                "type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "name": "DEV.QUEUE.1",
                "responseParameters": ["CURDEPTH"]})
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["overallCompletionCode"] == 0
            depth = server.qm.registry.messages.depth("DEV.QUEUE.1")
            assert body["commandResponse"][0]["parameters"]["curdepth"] == depth
            # a pub/sub set-up as CI suites write it, then its display
            r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={
                "type": "runCommand", "parameters": {"command": DEFINE_REST_SUB}})
            assert r.status_code == 200 and r.json()["overallCompletionCode"] == 0, r.text
            assert any("AMQ" in line for line in r.json()["commandResponse"][0]["text"])
            r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={
                "type": "runCommandJSON", "command": "display", "qualifier": "sub", "name": "REST.SUB",
                "responseParameters": ["all"]})
            params = r.json()["commandResponse"][0]["parameters"]
            assert params["sub"] == "REST.SUB" and params["topicstr"] == "dev/rest" and params["dest"] == "DEV.QUEUE.2"
            # the same definition a second time: the documented failure, with its reason
            r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={
                "type": "runCommand", "parameters": {"command": DEFINE_REST_SUB}})
            assert r.json()["overallCompletionCode"] == 2
            assert r.json()["commandResponse"][0]["reasonCode"] == C.MQRCCF_SUB_ALREADY_EXISTS


# ---- keywords that take no value: "replace": "yes" (docs/decisions.md U1) ---------------------------

def _flags_of(row):
    """Every keyword-only flag the MQSC keyword table gives this command (its own and its object type's)."""
    from qmlite.registry.mqsc.keywords import FLAG

    seen = {}
    for kw in (*row.extra, *row.otype.keywords):
        if kw.kind == FLAG and kw.name not in seen:
            seen[kw.name] = kw
    return list(seen.values())


def _body(row, parameters):
    from qmlite.registry.mqsc import commands as MC

    body = {"command": row.verb.lower(), "qualifier": row.noun.lower(), "parameters": parameters}
    if row.name != MC.NAME_NONE:
        pid = row.name_pid or 0
        body["name"] = "0A0B" if 6001 <= pid <= 8000 else "1" if 0 < pid < 2001 else "X"
    return body


def _all_flag_cases():
    from qmlite.registry.mqsc import commands as MC

    cases = []
    for (verb, noun), row in sorted(MC.TABLE.items()):
        for kw in _flags_of(row):
            cases.append(pytest.param(row, kw, id=f"{verb}-{noun}-{kw.name}"))
    return cases


FLAG_CASES = _all_flag_cases()


def test_the_sweep_covers_every_keyword_only_flag_of_the_table():
    names = {kw.name for _row, kw in (p.values for p in FLAG_CASES)}
    # REPLACE (DEFINE), PURGE (DELETE QLOCAL), FORCE (ALTER), and the attribute pairs of the object types
    assert {"REPLACE", "PURGE", "FORCE", "TRIGGER", "SHARE", "HARDENBO", "SYNCPT"} <= names
    assert len(FLAG_CASES) > 40


@pytest.mark.parametrize("row, kw", FLAG_CASES)
def test_every_keyword_only_flag_takes_yes_and_no(row, kw):
    from qmlite.registry.mqsc.lexer import MqscSyntaxError
    from qmlite.registry.mqsc.translate import translate

    def text(param, value):
        return mqscjson.command_text(_body(row, {param: value}))

    display = row.verb == "DISPLAY"
    for on in ("yes", "YES", "Yes", True, "", None):
        said = text(kw.name.lower(), on)
        assert said.endswith(" " + kw.name), (on, said)
        translate(said)  # MQSC accepts it: no syntax error
    for off in ("no", "NO", False):
        said = text(kw.name.lower(), off)
        if display:  # DISPLAY names attributes: "no" asks for nothing
            assert kw.name not in said.split()[2:] and kw.off not in said, said
        else:
            assert said.endswith(" " + kw.off), (off, said)
        translate(said)
    if not display:  # the negative keyword as the name: "yes" is itself, "no" the positive
        assert text(kw.off.lower(), "yes").endswith(" " + kw.off)
        assert text(kw.off.lower(), "no").endswith(" " + kw.name)
    # any other value is written as a value, which MQSC refuses as a syntax error (3097)
    for bad in ("maybe", "1", 1):
        said = text(kw.name.lower(), bad)
        assert f"{kw.name}(" in said
        with pytest.raises(MqscSyntaxError):
            translate(said)


async def test_keyword_only_flags_through_the_real_engine(tmp_path):
    """The REST client library's own requests (tested against IBM's container): DEFINE with
    "replace": "yes", DELETE with "purge": "yes", and their "no" forms, on the queue manager itself."""
    cfg = config.load(environ={"MQ_APP_PASSWORD": "app-pw"},
                      overrides={"port": 0, "http_port": 0, "data_dir": tmp_path / "data"})
    async with running(cfg, synchronous="NORMAL") as server:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.http_port}") as client:
            async def run(command, qualifier, name, **parameters):
                r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={
                    "type": "runCommandJSON", "command": command, "qualifier": qualifier, "name": name,
                    "parameters": parameters})
                assert r.status_code == 200, r.text
                return r.json()

            for _ in range(2):  # REPLACE: the second define replaces
                body = await run("define", "qlocal", "REST.FLAGS", replace="yes", descr="flags", trigger="yes",
                                 share="no", hardenbo="yes")
                assert body["overallCompletionCode"] == 0, body
            body = await run("define", "qlocal", "REST.FLAGS", replace="no")
            assert body["commandResponse"][0]["reasonCode"] == C.MQRCCF_OBJECT_ALREADY_EXISTS, body
            body = await run("define", "qlocal", "REST.FLAGS", noreplace="yes")
            assert body["commandResponse"][0]["reasonCode"] == C.MQRCCF_OBJECT_ALREADY_EXISTS, body
            r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={
                "type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "name": "REST.FLAGS",
                "responseParameters": ["trigger", "share", "hardenbo"]})
            shown = r.json()["commandResponse"][0]["parameters"]
            assert (shown["trigger"], shown["share"], shown["hardenbo"]) == ("TRIGGER", "NOSHARE", "HARDENBO")
            q = server.qm.registry.queues["REST.FLAGS"]
            assert (q.trigger_control, q.shareability, q.harden_get_backout) == (
                C.MQTC_ON, C.MQQA_NOT_SHAREABLE, C.MQQA_BACKOUT_HARDENED)

            r = await client.post(MQSC, auth=ADMIN, headers=CSRF, json={
                "type": "runCommandJSON", "command": "set", "qualifier": "authrec",
                "parameters": {"profile": "REST.FLAGS", "objtype": "queue", "principal": "app",
                               "authadd": ["put"]}})
            assert r.json()["overallCompletionCode"] == 0, r.text
            r = await client.post("/ibmmq/rest/v1/messaging/qmgr/QM1/queue/REST.FLAGS/message",
                                  auth=("app", "app-pw"), headers=CSRF, content="kept")
            assert r.status_code == 201, r.text
            body = await run("delete", "qlocal", "REST.FLAGS", purge="no")
            assert body["commandResponse"][0]["reasonCode"] == C.MQRC_Q_NOT_EMPTY, body
            body = await run("delete", "qlocal", "REST.FLAGS", purge="maybe")  # not a value PURGE takes
            assert body["commandResponse"][0]["reasonCode"] == C.MQRCCF_PARM_SYNTAX_ERROR == 3097
            assert body["commandResponse"][0]["message"][0].startswith("AMQ8405I")
            assert "REST.FLAGS" in server.qm.registry.queues
            body = await run("delete", "qlocal", "REST.FLAGS", purge="yes")
            assert body["overallCompletionCode"] == 0, body
            assert "REST.FLAGS" not in server.qm.registry.queues
