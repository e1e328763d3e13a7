"""qmlite's call log (a qmlite extension over the activity trace domain, registry/monitoring/activity.py):
the same calls from the pytest plugin's ``calls()``, MQSC ``DISPLAY QMLTRACE`` and REST
``/admin/qmgr/QM1/qmlite/calls``, made by IBM's ``ibmmq``; every malformed MQSC keyword and REST
parameter answered precisely."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")
httpx = pytest.importorskip("httpx")

from ibmmq import CMQC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402

pytest_plugins = ["pytester"]  # the failing-test report is checked in a pytest run of its own

Q = "DEV.QUEUE.1"
ADMIN = ("admin", "passw0rd")
HEADERS = {"ibm-mq-rest-csrf-token": "x"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("calls"), http_port=0) as srv:
        yield srv


def _app_calls(server):
    qm = ibmmq.connect(server.qmgr, server.admin_channel, server.conn_name, "admin", "passw0rd")
    queue = ibmmq.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    md = ibmmq.MD()
    queue.put(b"hello", md, ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING))
    queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    with pytest.raises(ibmmq.MQMIError):
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    queue.close()
    qm.disconnect()
    return md.MsgId


def test_three_surfaces_show_the_same_calls(server):
    start = server.last_call_seq()
    msg_id = _app_calls(server)
    calls = server.calls(after=start)
    verbs = [c["verb"] for c in calls]
    assert verbs[0] == "MQCONNX" and verbs[-1] == "MQDISC"
    put = next(c for c in calls if c["verb"] == "MQPUT")
    assert put["object"] == Q and put["msgId"] == msg_id.hex().upper() and put["msgLength"] == 5
    assert put["optionNames"] == "MQPMO_NO_SYNCPOINT+MQPMO_FAIL_IF_QUIESCING"
    gets = [c for c in calls if c["verb"] == "MQGET"]
    assert [g["reasonName"] for g in gets] == ["MQRC_NONE", "MQRC_NO_MSG_AVAILABLE"]
    assert "MQRC_NO_MSG_AVAILABLE" in gets[1]["line"] and Q in gets[1]["line"]
    conn = put["connectionId"]
    # REST: the same records
    with httpx.Client(base_url=server.rest_url, auth=ADMIN, headers=HEADERS) as client:
        r = client.get(f"/admin/qmgr/{server.qmgr}/qmlite/calls", params={"after": start, "connectionId": conn})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["recording"] is True
        assert [c["seq"] for c in body["calls"]] == [c["seq"] for c in calls if c["connectionId"] == conn]
        assert [c["verb"] for c in body["calls"]] == [c["verb"] for c in calls if c["connectionId"] == conn]
    # MQSC: the same lines
    [result] = server.mqsc(f"DISPLAY QMLTRACE AFTER({start}) CONN({conn})")
    assert result.completion_code == 0
    assert result.text[0].startswith("QML0100I")
    lines = [line.strip() for line in result.text[1:] if line.strip()]
    assert len(lines) == len(body["calls"])
    assert all(line.split(" ", 1)[1] == c["line"] for line, c in zip(lines, calls))


def test_record_off_and_clear(server):
    [off] = server.mqsc("ALTER QMLTRACE RECORD(OFF)")
    assert off.completion_code == 0 and off.text[0].startswith("QML0101I")
    before = server.last_call_seq()
    _app_calls(server)
    assert server.last_call_seq() == before  # nothing recorded while off
    with httpx.Client(base_url=server.rest_url, auth=ADMIN, headers=HEADERS) as client:
        r = client.post(f"/admin/qmgr/{server.qmgr}/qmlite/calls", json={"record": True})
        assert r.status_code == 200 and r.json()["recording"] is True
        _app_calls(server)
        assert server.calls(after=before)
        r = client.delete(f"/admin/qmgr/{server.qmgr}/qmlite/calls")
        assert r.status_code == 200 and r.json()["cleared"] > 0
    assert server.calls() == []
    [cleared] = server.mqsc("CLEAR QMLTRACE")
    assert cleared.text[0].startswith("QML0102I")


@pytest.mark.parametrize("text, segment", [
    ("DISPLAY QMLTRACE AFTER(x)", "DISPLAY QMLTRACE AFTER(x)"),
    ("DISPLAY QMLTRACE AFTER(1) AFTER(2)", "DISPLAY QMLTRACE AFTER(1) AFTER(2)"),
    ("DISPLAY QMLTRACE CONN(XYZ)", "DISPLAY QMLTRACE CONN(XYZ)"),
    ("DISPLAY QMLTRACE LIMIT(-1)", "DISPLAY QMLTRACE LIMIT(-1)"),
    ("DISPLAY QMLTRACE COLOUR(RED)", "DISPLAY QMLTRACE COLOUR"),
    ("DISPLAY QMLTRACE(X)", "DISPLAY QMLTRACE(X)"),
    ("ALTER QMLTRACE", "ALTER QMLTRACE"),
    ("ALTER QMLTRACE RECORD(MAYBE)", "ALTER QMLTRACE RECORD(MAYBE)"),
    ("ALTER QMLTRACE RECORD", "ALTER QMLTRACE RECORD"),
    ("CLEAR QMLTRACE ALL(YES)", "CLEAR QMLTRACE ALL"),
    ("DEFINE QMLTRACE", "DEFINE QMLTRACE"),
])
def test_malformed_mqsc_is_a_syntax_error(text, segment):
    from qmlite.registry.mqsc.lexer import MqscSyntaxError
    from qmlite.registry.mqsc.translate import translate

    with pytest.raises(MqscSyntaxError) as err:
        translate(text)
    assert err.value.segment == segment


@pytest.mark.parametrize("method, params, body", [
    ("GET", {"after": "x"}, None),
    ("GET", {"limit": "-4"}, None),
    ("GET", {"connectionId": "nothex"}, None),
    ("GET", {"colour": "red"}, None),
    ("POST", None, {"record": "yes"}),
    ("POST", None, {"record": True, "extra": 1}),
    ("POST", None, [1]),
])
def test_malformed_rest_is_400_with_ibms_error(server, method, params, body):
    with httpx.Client(base_url=server.rest_url, auth=ADMIN, headers=HEADERS) as client:
        r = client.request(method, f"/admin/qmgr/{server.qmgr}/qmlite/calls", params=params, json=body)
    assert r.status_code == 400
    [error] = r.json()["error"]
    assert error["msgId"].startswith("MQWB") and error["type"] == "rest"


def test_unknown_qmgr_is_404(server):
    with httpx.Client(base_url=server.rest_url, auth=ADMIN, headers=HEADERS) as client:
        r = client.get("/admin/qmgr/QM9/qmlite/calls")
    assert r.status_code == 404


def test_failing_test_report_shows_its_calls(pytester):
    """The plugin adds a 'qmlite calls' section to a failing test's report."""
    pytester.makepyfile("""
        import ibmmq
        def test_fails(qmlite_server):
            qm = ibmmq.connect(qmlite_server.qmgr, qmlite_server.admin_channel, qmlite_server.conn_name,
                               "admin", "passw0rd")
            try:
                ibmmq.Queue(qm, "NOT.THERE", ibmmq.CMQC.MQOO_OUTPUT)
            finally:
                qm.disconnect()
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*qmlite calls*", "*MQOPEN NOT.THERE*MQRC_UNKNOWN_OBJECT_NAME*"])


def test_qmlite_trace_cli_prints_the_calls(server, capsys):
    """``qmlite trace --once --all`` prints one readable line per recorded call."""
    from qmlite import cli

    start = server.last_call_seq()
    _app_calls(server)
    wanted = server.calls(after=start)
    assert cli.main(["trace", "--http-port", str(server.http_port), "--once", "--all"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-len(wanted):] == [c["line"] for c in wanted]  # the same line as DISPLAY QMLTRACE
    put = next(line for line in out if " MQPUT " in line)
    assert Q in put and "MQPMO_NO_SYNCPOINT" in put and "msgid=" in put and "len=5" in put
    assert any("MQGET" in line and "MQRC_NO_MSG_AVAILABLE" in line for line in out)


def test_qmlite_trace_cli_without_rest_says_so(capsys):
    from qmlite import cli

    assert cli.main(["trace", "--http-port", "1", "--once"]) == 20
    assert "no qmlite REST API" in capsys.readouterr().err
