"""The pytest plugin adds what the queue manager refused to a failing test's report ("qmlite refusals":
who, why, IBM's error-log message and the MQSC that would allow it; docs/errorlog.md)."""

from __future__ import annotations

pytest_plugins = ["pytester"]  # the failing-test report is checked in a pytest run of its own

_TESTS = """
import pytest
from qmlite.client.errors import MQIError
from qmlite.client.sync import QueueManager
from qmlite.pcf import constants as C
from qmlite.pcf import mqi

def _put(server):
    server.mqsc("DEFINE QLOCAL(ORDERS) REPLACE")
    qm = QueueManager.connect(server.host, server.port, server.app_channel, server.qmgr, user="app")
    try:
        qm.open(mqi.MQOD(ObjectName="ORDERS"), C.MQOO_OUTPUT)
    finally:
        qm.close()

def test_refused_put(qmlite_server):
    _put(qmlite_server)

def test_refused_put_on_the_shared_server(qmlite_reset):
    _put(qmlite_reset)

def test_fails_without_a_refusal(qmlite_reset):
    assert qmlite_reset.refusals(after=qmlite_reset.last_refusal_seq()) == []
    assert False, "no refusal here"
"""


def test_a_failing_tests_report_shows_its_refusals_and_the_fix(pytester):
    pytester.makepyfile(_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", "-rN")
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    sections = out.split("qmlite refusals")
    assert len(sections) == 3  # the two refused puts have the section; the test with no refusal has none
    for section in sections[1:]:
        lines = section.split("\n")
        assert "2035 MQRC_NOT_AUTHORIZED authority: user=app address=127.0.0.1 channel=DEV.APP.SVRCONN " \
               "object=ORDERS (missing PUT) [AMQ8077W]" in lines[1]
        assert lines[2] == "    fix: SET AUTHREC PROFILE('ORDERS') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT)"
    # the shared server's section shows the refusals of its own test only, not the earlier test's
    assert sections[2].count("AMQ8077W") == 1
