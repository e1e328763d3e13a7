"""The MQSC examples of the docs (```mqsc and ```runmqsc blocks), run on one in-process queue manager with
a virtual clock (so the clock's examples run too), reset before each block: no command may fail, and
what a block shows a command printing is what it prints (dates, times and column padding aside)."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.mqsc import format_report, run_mqsc
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.testing.clock import VirtualClock
from tests.support import docexamples as D


@pytest.fixture(scope="module")
def qm(tmp_path_factory):
    qmgr = QueueManager.open(tmp_path_factory.mktemp("mqscdocs"), clock=VirtualClock())
    yield qmgr
    qmgr.shutdown()


@pytest.fixture
def fresh(qm):
    run_mqsc(qm, "RESET QMLITE")
    return qm


@pytest.mark.parametrize("block", [D.param(b) for b in D.of("mqsc")])
def test_mqsc_example(fresh, block):
    for command, shown in D.mqsc_steps(block.text):
        [result] = run_mqsc(fresh, command)
        assert result.completion_code == C.MQCC_OK, (command, result.text)
        if shown:
            assert D.steady(result.text) == D.steady(shown), command


@pytest.mark.parametrize("block", [D.param(b) for b in D.of("runmqsc")])
def test_runmqsc_session(fresh, block):
    """A whole runmqsc session: its numbered commands run, and the output is the block's."""
    lines = block.text.splitlines()
    commands = []
    for line in lines:
        if line[:6].strip().isdigit() and line[6:9] == " : ":
            commands.append(line[9:])
        elif line.startswith("       : "):
            commands[-1] += "\n" + line[9:]
    assert commands, "no numbered command lines"
    qmgr_name = lines[0].removeprefix("Starting MQSC for queue manager ").rstrip(".")
    report = format_report(run_mqsc(fresh, "\n".join(commands)), qmgr_name=qmgr_name)
    assert report.splitlines() == lines


def test_mqsc_steps_read_continuations_comments_and_output():
    steps = D.mqsc_steps("* a comment\nALTER QMGR +\n  DESCR(x)\nDISPLAY QMGR\nAMQ8408I: Display.\n   QMNAME(QM1)\n")
    assert steps == [("ALTER QMGR +\n  DESCR(x)", []), ("DISPLAY QMGR", ["AMQ8408I: Display.", "   QMNAME(QM1)"])]
