"""Activity trace in the domain (registry/monitoring/activity.py) on the injected clock: ActivityInterval,
every traced verb's OperationId, the call log's lines and filters, nothing recorded when nothing traces,
a broken connection's last message.  Messages parsed by IBM's ``ibmmq`` (PCFExecute.unpack)."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.errors import MQIError
from qmlite.registry.monitoring import activity
from qmlite.registry.qmgr import QueueManager

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQCFC  # noqa: E402

Q = "DEV.QUEUE.1"
TRACEQ = activity.TRACE_QUEUE


@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    yield manager
    manager.shutdown()


def drain(qm):
    contents = qm.registry.messages.contents(TRACEQ)
    out = []
    for msg in list(contents.after(None)):
        params, cfh = ibmmq.PCFExecute.unpack(msg.data)
        assert cfh.Type == CMQCFC.MQCFT_APP_ACTIVITY
        out.append((msg.md, params))
        contents.remove(msg)
    return out


def op_ids(params):
    return [op[CMQCFC.MQIACF_OPERATION_ID] for op in params[CMQCFC.MQGACF_ACTIVITY_TRACE]]


def every_verb(qm, s):
    """One call of each traced verb."""
    h, _ = qm.open_object(s, S.MQOD(ObjectName=Q), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE
                          | C.MQOO_SET)
    qm.put(s, h.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_SYNCPOINT), b"a")
    qm.commit(s)
    qm.put1(s, S.MQOD(ObjectName=Q), S.MQMD(), S.MQPMO(Options=C.MQPMO_SYNCPOINT), b"b")
    qm.backout(s)
    assert qm.get(s, h, S.MQMD(), S.MQGMO(Options=C.MQGMO_NO_SYNCPOINT), 100) is not None
    qm.inquire(s, h.hobj, [C.MQIA_CURRENT_Q_DEPTH], 1, 0)
    qm.set(s, h.hobj, [C.MQIA_INHIBIT_PUT], [C.MQQA_PUT_ALLOWED], "")
    sd = S.MQSD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED | C.MQSO_PUBLICATIONS_ON_REQUEST,
                ObjectString=S.MQCHARV("dev/act"))
    hsub, _, _ = qm.subscribe(s, sd, 0)
    with pytest.raises(MQIError) as none:  # nothing retained: a failed call, traced with its reason
        qm.subscription_request(s, hsub.hobj, C.MQSR_ACTION_PUBLICATION)
    assert none.value.reason == C.MQRC_NO_RETAINED_MSG
    qm.close_object(s, hsub.hobj, C.MQCO_NONE)
    qm.close_object(s, h.hobj, C.MQCO_NONE)


def test_every_verb_has_its_operation_id(qm):
    qm.registry.qmgr.activity_trace = C.MQMON_ON
    s = qm.connect("QM1", user="admin", admin=True, appl_name="every")
    every_verb(qm, s)
    qm.disconnect(s, commit=True)
    [(md, params)] = drain(qm)
    names = ["MQCONNX", "MQOPEN", "MQPUT", "MQCMIT", "MQPUT1", "MQBACK", "MQGET", "MQINQ", "MQSET", "MQSUB",
             "MQSUBRQ", "MQCLOSE", "MQCLOSE", "MQDISC"]
    assert op_ids(params) == [activity.MQXF[n] for n in names]
    assert md.CorrelId == s.connection_id
    ops = params[CMQCFC.MQGACF_ACTIVITY_TRACE]
    assert ops[8][CMQCFC.MQIACF_SELECTORS] == [C.MQIA_INHIBIT_PUT]
    assert ops[9][CMQCFC.MQCACF_OBJECT_NAME].strip() == b"dev/act"
    assert ops[9][CMQCFC.MQIACF_SUB_OPTIONS] & C.MQSO_MANAGED
    assert ops[10][CMQCFC.MQIACF_REASON_CODE] == C.MQRC_NO_RETAINED_MSG
    assert ops[10][CMQCFC.MQIACF_HOBJ] == ops[9][CMQCFC.MQIACF_HOBJ]


def test_activity_interval_on_the_clock(qm, clock):
    qm.registry.qmgr.activity_trace = C.MQMON_ON
    s = qm.connect("QM1", user="app", admin=False, appl_name="ticks")
    qm.open_object(s, S.MQOD(ObjectName=Q), C.MQOO_INQUIRE)
    clock.t += 0.5
    assert qm.activity.tick(qm.now()) == 0  # not a second yet
    clock.t += 0.5
    assert qm.activity.tick(qm.now()) == 1
    assert qm.activity.tick(qm.now()) == 0  # nothing held any more
    qm.disconnect(s, commit=True)
    messages = drain(qm)
    assert [op_ids(p) for _, p in messages] == [[4, 6], [5]]
    assert [p[CMQCFC.MQIACF_SEQUENCE_NUMBER] for _, p in messages] == [0, 1]


def test_a_broken_connection_writes_what_it_held_without_an_mqdisc(qm):
    qm.registry.qmgr.activity_trace = C.MQMON_ON
    s = qm.connect("QM1", user="app", admin=False)
    qm.open_object(s, S.MQOD(ObjectName=Q), C.MQOO_INQUIRE)
    qm.disconnect(s, commit=False)
    [(_, params)] = drain(qm)
    assert op_ids(params) == [activity.MQXF["MQCONNX"], activity.MQXF["MQOPEN"]]
    assert qm.activity.collecting == 0


def test_nothing_traces_nothing_recorded(qm):
    s = qm.connect("QM1", user="admin", admin=True)
    assert s.trace is None and not qm.activity.active
    every_verb(qm, s)
    qm.disconnect(s, commit=True)
    assert qm.activity.calls() == [] and drain(qm) == []


def test_call_log_lines_and_filters(qm):
    qm.activity.recording = True
    a = qm.connect("QM1", user="app", admin=False, appl_name="alpha")
    b = qm.connect("QM1", user="app", admin=False, appl_name="beta")
    with pytest.raises(MQIError):
        qm.open_object(a, S.MQOD(ObjectName="NOT.THERE"), C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
    h, _ = qm.open_object(b, S.MQOD(ObjectName=Q), C.MQOO_OUTPUT)
    md, _, _ = qm.put(b, h.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"12345")
    alpha = qm.activity.calls(appl="alpha")
    assert [c.verb for c in alpha] == ["MQCONNX", "MQOPEN"]
    failed = alpha[1]
    assert failed.reason == C.MQRC_UNKNOWN_OBJECT_NAME and failed.comp == C.MQCC_FAILED
    assert " MQOPEN NOT.THERE MQOO_OUTPUT+MQOO_FAIL_IF_QUIESCING MQRC_UNKNOWN_OBJECT_NAME " in failed.line()
    put = qm.activity.calls(connection=b.connection_id.hex()[-16:])[-1]
    assert put.verb == "MQPUT" and put.msg_id == md.MsgId
    assert f"msgid={md.MsgId.hex().upper()} len=5 " in put.line()
    seqs = [c.seq for c in qm.activity.calls()]
    assert seqs == sorted(seqs) and qm.activity.calls(after=seqs[-2]) == qm.activity.calls()[-1:]
    assert qm.activity.calls(limit=1) == qm.activity.calls()[-1:]
    assert qm.activity.clear() == len(seqs) and qm.activity.calls() == []


@pytest.mark.parametrize("family, value, names", [
    ("MQOO", C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING, "MQOO_OUTPUT+MQOO_FAIL_IF_QUIESCING"),
    ("MQPMO", 0, "MQPMO_NONE"),
    ("MQGMO", C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, "MQGMO_WAIT+MQGMO_NO_SYNCPOINT"),
    ("MQCO", C.MQCO_DELETE_PURGE, "MQCO_DELETE_PURGE"),
])
def test_option_names(family, value, names):
    assert activity.option_names(family, value) == names
