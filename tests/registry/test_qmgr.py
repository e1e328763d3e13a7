"""The queue manager domain, called directly: no sockets, no event loop.

What an MQI verb, a PCF command and a restart must agree on is checked here at the source: open
handles as PCF sees them, one policy point for MQSUB and Create Subscription, units of work,
persistent messages across a reopen, and the journal positions a server's replies wait for.
"""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.errors import MQIError
from qmlite.registry.qmgr import QueueManager
from tests.support.pcfkit import command, i, st

Q = "DEV.QUEUE.1"


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    yield manager
    manager.shutdown()


def admin(qm):
    return qm.connect("QM1", user="admin", admin=True, appl_name="test")


def open_q(qm, session, name=Q, options=C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE):
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=name), options)
    return handle


def put(qm, session, handle, data: bytes, *, persistent=True, syncpoint=False, priority=0):
    md = S.MQMD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT, Priority=priority)
    pmo = S.MQPMO(Options=C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT)
    return qm.put(session, handle.hobj, md, pmo, data)


def get(qm, session, handle, *, syncpoint=False):
    gmo = S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT)
    got = qm.get(session, handle, S.MQMD(), gmo, 1 << 20)
    return None if got is None else got.data


def bodies(qm, name=Q):
    return [m.data for m in qm.registry.messages.contents(name)]


def run(qm, cmd, *params):
    return qm.engine.execute(command(cmd, *params))


def test_pcf_sees_application_handles(qm):
    session = admin(qm)
    handle = open_q(qm, session)
    assert qm.registry.messages.open_counts(Q) == (1, 1)
    deleted = run(qm, C.MQCMD_DELETE_Q, st(C.MQCA_Q_NAME, Q))
    assert deleted[0].header.Reason == C.MQRC_OBJECT_IN_USE  # an open queue cannot be deleted
    cleared = run(qm, C.MQCMD_CLEAR_Q, st(C.MQCA_Q_NAME, Q))
    assert cleared[0].header.Reason == C.MQRC_OBJECT_IN_USE  # nor cleared (IBM: open by an application)
    qm.close_object(session, handle.hobj, C.MQCO_NONE)
    assert qm.registry.messages.open_counts(Q) == (0, 0)
    assert run(qm, C.MQCMD_CLEAR_Q, st(C.MQCA_Q_NAME, Q))[0].header.Reason == 0


@pytest.mark.parametrize("topic, schema, inhibited_at", [
    ("a/b+c/d", C.MQWS_TOPIC, "a/b+c/d"),  # '+' inside a level is literal: the whole string is the point
    ("a/+/d", C.MQWS_TOPIC, "a"),
    ("sport/foot*", C.MQWS_CHAR, "sport"),  # a character-scheme wildcard level ends the point
])
def test_mqsub_and_create_subscription_share_the_policy_point(qm, topic, schema, inhibited_at):
    run(qm, C.MQCMD_CREATE_TOPIC, st(C.MQCA_TOPIC_NAME, "POINT"), st(C.MQCA_TOPIC_STRING, inhibited_at),
        i(C.MQIA_INHIBIT_SUB, C.MQTA_SUB_INHIBITED))
    pcf = run(qm, C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "S"), st(C.MQCA_TOPIC_STRING, topic),
              i(C.MQIACF_WILDCARD_SCHEMA, schema), i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED))
    assert pcf[0].header.Reason == C.MQRC_SUB_INHIBITED
    options = C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE
    if schema == C.MQWS_CHAR:
        options |= C.MQSO_WILDCARD_CHAR
    sd = S.MQSD(Options=options, ObjectString=S.MQCHARV(topic))
    with pytest.raises(MQIError) as err:
        qm.subscribe(admin(qm), sd, 0)
    assert err.value.reason == C.MQRC_SUB_INHIBITED


def test_unit_of_work_commit_and_backout(qm):
    session = admin(qm)
    handle = open_q(qm, session)
    put(qm, session, handle, b"committed")
    put(qm, session, handle, b"pending", syncpoint=True)
    assert bodies(qm) == [b"committed"]
    assert qm.registry.messages.depth(Q) == 2  # an uncommitted put counts in CURDEPTH
    assert get(qm, session, handle, syncpoint=True) == b"committed"
    qm.backout(session)
    assert bodies(qm) == [b"committed"]
    restored = qm.registry.messages.contents(Q).first()
    assert restored.md.BackoutCount == 1
    put(qm, session, handle, b"second", syncpoint=True)
    assert get(qm, session, handle, syncpoint=True) == b"committed"
    qm.commit(session)
    assert bodies(qm) == [b"second"]


def test_persistent_messages_survive_a_reopen_and_non_persistent_do_not(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", "QM1", clock=clock)
    session = admin(qm)
    handle = open_q(qm, session)
    put(qm, session, handle, b"low", priority=1)
    put(qm, session, handle, b"gone", persistent=False)
    put(qm, session, handle, b"high", priority=8)
    put(qm, session, handle, b"uncommitted", syncpoint=True)
    put(qm, session, handle, b"taken")
    assert get(qm, session, handle) == b"high"  # destructive, durable before its reply
    put(qm, session, handle, b"high2", priority=8)
    ids = {m.msg_id for m in qm.registry.messages.contents(Q)}
    qm.flush()
    qm.shutdown()  # the unit of work was never committed: after a restart it is backed out
    again = QueueManager.open(tmp_path / "qm", "QM1", clock=clock)
    try:
        assert bodies(again) == [b"high2", b"low", b"taken"]  # priority, then arrival
        session = admin(again)
        handle = open_q(again, session)
        md, _, _ = put(again, session, handle, b"new")
        assert md.MsgId not in ids  # a restarted queue manager never reissues a MsgId
    finally:
        again.shutdown()


def test_replies_depend_on_the_journal_only_for_what_is_written(qm):
    session = admin(qm)
    handle = open_q(qm, session)
    before = qm.position
    put(qm, session, handle, b"np", persistent=False)
    assert qm.position == before  # a non-persistent put writes nothing and waits for nothing
    put(qm, session, handle, b"p")
    assert qm.position > before and qm.durable_position < qm.position
    qm.flush()
    assert qm.durable_position == qm.position


def test_temporary_dynamic_queues_refuse_persistent_messages(qm):
    session = admin(qm)
    handle, od = qm.open_object(session, S.MQOD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName="T.*"),
                                C.MQOO_OUTPUT | C.MQOO_INPUT_EXCLUSIVE)
    with pytest.raises(MQIError) as err:
        put(qm, session, handle, b"p")
    assert err.value.reason == C.MQRC_PERSISTENT_NOT_ALLOWED
    put(qm, session, handle, b"np", persistent=False)
    qm.close_object(session, handle.hobj, C.MQCO_NONE)
    assert od.ObjectName not in qm.registry.queues  # a temporary dynamic queue goes with its handle


def test_disconnect_backs_out_and_releases(qm):
    session = admin(qm)
    handle = open_q(qm, session)
    put(qm, session, handle, b"kept")
    assert get(qm, session, handle, syncpoint=True) == b"kept"
    qm.disconnect(session, commit=False)
    assert bodies(qm) == [b"kept"]
    assert qm.registry.messages.open_counts(Q) == (0, 0)
    assert session.connection_id not in qm.sessions


def test_get_returns_the_expiry_still_to_run(qm, clock):
    session = admin(qm)
    handle = open_q(qm, session)
    qm.put(session, handle.hobj, S.MQMD(Expiry=600), S.MQPMO(), b"e")  # 60 s
    clock.t += 15
    got = qm.get(session, handle, S.MQMD(), S.MQGMO(Version=2), 100)
    assert got.md.Expiry == 450
