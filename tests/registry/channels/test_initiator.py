"""The channel initiator's rules in the domain (registry/channels/initiator.py): the trigger message a
transmission queue makes with no process definition, and which channel each starts, or why none."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.channels.initiator import INITQ, ChannelInitiator
from qmlite.registry.channels.mcastatus import status_of
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.objects import channels as M
from qmlite.registry.qmgr import QueueManager
from tests.registry.messaging.test_triggers import _put


@pytest.fixture
def qm(tmp_path):
    manager = QueueManager.open(tmp_path / "qm", "QM1", synchronous="NORMAL")
    results = run_mqsc(manager, f"""
        DEFINE QLOCAL(XQ.NAMED) USAGE(XMITQ) TRIGGER TRIGTYPE(EVERY) INITQ({INITQ}) TRIGDATA(TO.NAMED)
        DEFINE QLOCAL(XQ.BLANK) USAGE(XMITQ) TRIGGER TRIGTYPE(EVERY) INITQ({INITQ})
        DEFINE QLOCAL(XQ.NONE) USAGE(XMITQ) TRIGGER TRIGTYPE(EVERY) INITQ({INITQ})
        DEFINE QLOCAL(XQ.SVR) USAGE(XMITQ) TRIGGER TRIGTYPE(EVERY) INITQ({INITQ})
        DEFINE QLOCAL(APP.Q) TRIGGER TRIGTYPE(EVERY) INITQ({INITQ})
        DEFINE CHANNEL(TO.NAMED) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(XQ.NAMED)
        DEFINE CHANNEL(TO.BLANK) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(XQ.BLANK)
        DEFINE CHANNEL(SERVES) CHLTYPE(SVR) XMITQ(XQ.SVR)""")
    assert all(r.completion_code == C.MQCC_OK for r in results), [r.text for r in results]
    yield manager
    manager.shutdown()


def test_a_transmission_queue_triggers_without_a_process_and_the_channel_is_found(qm):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    _put(qm, session, "XQ.NAMED")
    assert qm.registry.messages.depth(INITQ) == 0  # nobody holds the initiation queue open: no trigger
    initiator = ChannelInitiator(qm)
    assert qm.registry.messages.open_counts(INITQ) == (1, 0)
    for queue in ("XQ.NAMED", "XQ.NAMED", "XQ.BLANK", "XQ.NONE", "XQ.SVR", "APP.Q"):
        _put(qm, session, queue)
    # An ordinary queue still needs its process: APP.Q made none.  The others made an MQTM each.
    assert initiator.pending() == 5
    (first,) = [m for m in qm.registry.messages.contents(INITQ)][:1]
    tm = S.MQTM.unpack(bytes(first.data))[0]
    assert (first.md.Format, first.md.Persistence) == (C.MQFMT_TRIGGER, C.MQPER_NOT_PERSISTENT)
    assert (tm.QName.strip(), tm.TriggerData.strip(), tm.ProcessName.strip()) == ("XQ.NAMED", "TO.NAMED", "")
    # TRIGDATA's channel, the sender by XMITQ; none for a queue no sender serves or a server with no CONNAME.
    assert [c.name for c in initiator.take()] == ["TO.NAMED", "TO.BLANK"]  # each channel once
    assert initiator.pending() == 0


def test_a_stopped_or_running_channel_is_not_started(qm):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    initiator = ChannelInitiator(qm)
    channels = qm.registry.objects(M.KIND)
    qm.registry.running.stopped.add("TO.NAMED")  # STOP CHANNEL
    status_of(qm.registry, channels["TO.BLANK"]).status = C.MQCHS_STOPPED  # out of retries
    _put(qm, session, "XQ.NAMED")
    _put(qm, session, "XQ.BLANK")
    assert initiator.take() == []
    qm.registry.running.stopped.discard("TO.NAMED")
    status_of(qm.registry, channels["TO.BLANK"]).status = C.MQCHS_INACTIVE  # ended at DISCINT
    instance = qm.registry.running.start_instance(channels["TO.NAMED"], "127.0.0.1(1)", qm.now())  # running
    _put(qm, session, "XQ.NAMED")
    _put(qm, session, "XQ.BLANK")
    assert [c.name for c in initiator.take()] == ["TO.BLANK"]
    qm.registry.running.end_instance(instance)


def test_a_message_that_is_no_trigger_message_is_discarded(qm):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    initiator = ChannelInitiator(qm)
    _put(qm, session, INITQ)  # MQFMT_NONE
    assert initiator.pending() == 1 and initiator.take() == [] and initiator.pending() == 0


def test_opening_the_initiation_queue_starts_the_channels_of_queues_already_holding_messages(qm):
    session = qm.connect("QM1", user="admin", admin=True, appl_name="test")
    assert run_mqsc(qm, "ALTER QLOCAL(XQ.BLANK) TRIGTYPE(DEPTH) TRIGDPTH(2)")[0].completion_code == C.MQCC_OK
    for queue in ("XQ.NAMED", "XQ.BLANK", "XQ.SVR", "APP.Q"):  # no initiator yet: no trigger message
        _put(qm, session, queue)
    assert qm.registry.messages.depth(INITQ) == 0
    # XQ.BLANK holds one of the two its DEPTH trigger needs, XQ.SVR's server has no CONNAME, APP.Q is no XMITQ.
    assert [c.name for c in ChannelInitiator(qm).waiting()] == ["TO.NAMED"]
