"""MQSC through IBM's own ``ibmmq`` PCFExecute (over our ``ibmmqc`` transport): the Escape command a
runmqsc-like tool sends, and the Escape responses IBM's parser reads back."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-mqsc")) as srv:
        yield srv


def _escape(pcf, text: str) -> list[dict]:
    return pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC, CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})


def _text(response: dict) -> str:
    value = response[CMQCFC.MQCACF_ESCAPE_TEXT]
    return (value.decode() if isinstance(value, bytes) else value).rstrip()


def test_ibmmq_runs_mqsc_as_escape_and_reads_the_answers(pcf):
    [created] = _escape(pcf, "DEFINE QLOCAL(IBMMQ.MQSC.Q) DESCR('by escape') REPLACE")
    assert created[CMQCFC.MQIACF_ESCAPE_TYPE] == CMQCFC.MQET_MQSC
    assert _text(created) == "AMQ8006I: IBM MQ queue created."
    shown = _escape(pcf, "DISPLAY QLOCAL(IBMMQ.MQSC.Q) DESCR")
    assert [_text(r).splitlines() for r in shown] == [[
        "AMQ8409I: Display Queue details.",
        "   QUEUE(IBMMQ.MQSC.Q)                     TYPE(QLOCAL)",
        "   DESCR(by escape)"]]
    # the same queue through PCF, as the MQSC defined it
    [queue] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"IBMMQ.MQSC.Q"})
    assert queue[CMQC.MQCA_Q_DESC].strip() == b"by escape"


def test_a_failing_mqsc_command_is_an_mqmi_error_carrying_its_reason(pcf):
    with pytest.raises(ibmmq.MQMIError) as err:
        _escape(pcf, "DISPLAY QLOCAL(IBMMQ.NO.SUCH.Q)")
    assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
