"""Queue commands through real PCF bytes: Create/Copy/Change/Delete/Clear Queue, Inquire Queue, Inquire
Queue Names, first-start queues, persistence (docs/compat.md (part 2))."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.messaging.queues import Message
from qmlite.registry.objects.definitions import Queue, Subscription, mq_date, mq_time
from tests.support.pcfkit import BE, Harness, LE, T0, command, failed, i, il, st

ENCODINGS = pytest.mark.parametrize("enc", [LE, BE], ids=["LE", "BE"])


def qname(name):
    return st(C.MQCA_Q_NAME, name)


def qtype(t):
    return i(C.MQIA_Q_TYPE, t)


def put_message(h, queue, n=1):
    for k in range(n):
        h.registry.messages.put(queue, Message(md=None, data=b"x", priority=0, msg_id=bytes([k]) * 24,
                                               correl_id=bytes(24), put_time=T0))


def inquire(h, name, *extra, enc=LE):
    return h.run(command(C.MQCMD_INQUIRE_Q, qname(name), *extra), enc)


# ---- first start -----------------------------------------------------------------------------------
SYSTEM_QUEUES = {"SYSTEM.ADMIN.COMMAND.QUEUE": C.MQQT_LOCAL, "SYSTEM.DEFAULT.LOCAL.QUEUE": C.MQQT_LOCAL,
                 "SYSTEM.DEFAULT.MODEL.QUEUE": C.MQQT_MODEL, "SYSTEM.DEFAULT.ALIAS.QUEUE": C.MQQT_ALIAS,
                 "SYSTEM.MQEXPLORER.REPLY.MODEL": C.MQQT_MODEL, "SYSTEM.DURABLE.MODEL.QUEUE": C.MQQT_MODEL,
                 "SYSTEM.NDURABLE.MODEL.QUEUE": C.MQQT_MODEL, "SYSTEM.DEAD.LETTER.QUEUE": C.MQQT_LOCAL,
                 "SYSTEM.ADMIN.STATISTICS.QUEUE": C.MQQT_LOCAL, "SYSTEM.ADMIN.QMGR.EVENT": C.MQQT_LOCAL,
                 "SYSTEM.DEFAULT.INITIATION.QUEUE": C.MQQT_LOCAL, "SYSTEM.JMS.TEMPQ.MODEL": C.MQQT_MODEL,
                 "SYSTEM.CHANNEL.SYNCQ": C.MQQT_LOCAL}
DEV_QUEUES = {"DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE"}


@ENCODINGS
def test_first_start_queues_with_dev_objects(h, enc):
    r = h.run(command(C.MQCMD_INQUIRE_Q_NAMES, qname("*")), enc)
    assert r.ok and len(r.messages) == 1
    obj = r.objects[0]
    names = [n.rstrip() for n in obj[C.MQCACF_Q_NAMES]]
    found = dict(zip(names, obj[C.MQIACF_Q_TYPES]))
    assert names == sorted(names)
    for name, t in SYSTEM_QUEUES.items():
        assert found[name] == t
    assert DEV_QUEUES <= set(found)
    assert all(len(n) == 48 for n in r.messages[0].parameters[0].values)


def test_first_start_queues_without_dev_objects(tmp_path):
    h = Harness(tmp_path, dev_objects=False)
    r = h.run(command(C.MQCMD_INQUIRE_Q_NAMES, qname("*")))
    names = {n.rstrip() for n in r.objects[0][C.MQCACF_Q_NAMES]}
    assert set(SYSTEM_QUEUES) <= names
    assert not {n for n in names if n.startswith("DEV.")}
    assert failed(inquire(h, "DEV.QUEUE.1"), C.MQRC_UNKNOWN_OBJECT_NAME)
    h.close()


def test_system_queue_attributes(h):
    r = inquire(h, "SYSTEM.DURABLE.MODEL.QUEUE")
    obj = r.objects[0]
    assert obj[C.MQIA_Q_TYPE] == C.MQQT_MODEL
    assert obj[C.MQIA_DEFINITION_TYPE] == C.MQQDT_PERMANENT_DYNAMIC
    assert obj[C.MQIA_DEF_INPUT_OPEN_OPTION] == C.MQOO_INPUT_EXCLUSIVE
    obj = inquire(h, "SYSTEM.MQEXPLORER.REPLY.MODEL").objects[0]
    assert obj[C.MQIA_DEFINITION_TYPE] == C.MQQDT_TEMPORARY_DYNAMIC
    obj = inquire(h, "DEV.QUEUE.1").objects[0]
    assert obj[C.MQIA_DEFINITION_TYPE] == C.MQQDT_PREDEFINED


# ---- Create ----------------------------------------------------------------------------------------
LOCAL_ATTRS = [
    (st, C.MQCA_Q_DESC, "orders in"), (i, C.MQIA_MAX_Q_DEPTH, 777), (i, C.MQIA_MAX_MSG_LENGTH, 1024),
    (i, C.MQIA_DEF_PERSISTENCE, C.MQPER_PERSISTENT), (i, C.MQIA_DEF_PRIORITY, 7),
    (i, C.MQIA_INHIBIT_GET, C.MQQA_GET_INHIBITED), (i, C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED),
    (i, C.MQIA_SHAREABILITY, C.MQQA_NOT_SHAREABLE), (i, C.MQIA_DEF_INPUT_OPEN_OPTION, C.MQOO_INPUT_EXCLUSIVE),
    (i, C.MQIA_USAGE, C.MQUS_TRANSMISSION),
]


@ENCODINGS
def test_create_local_every_attribute_inquired(h, enc):
    r = h.run(command(C.MQCMD_CREATE_Q, qname("APP.IN"), qtype(C.MQQT_LOCAL),
                      *[mk(pid, v) for mk, pid, v in LOCAL_ATTRS]), enc)
    assert r.ok and len(r.messages) == 1 and r.messages[0].parameters == []
    put_message(h, "APP.IN", 2)
    r = inquire(h, "APP.IN", enc=enc)
    assert r.ok and len(r.messages) == 1
    obj = r.objects[0]
    for _, pid, v in LOCAL_ATTRS:
        assert obj[pid] == v, pid
    assert obj[C.MQCA_Q_NAME] == "APP.IN" and obj[C.MQIA_Q_TYPE] == C.MQQT_LOCAL
    assert obj[C.MQIA_CURRENT_Q_DEPTH] == 2
    assert obj[C.MQIA_OPEN_INPUT_COUNT] == 0 and obj[C.MQIA_OPEN_OUTPUT_COUNT] == 0
    assert obj[C.MQIA_DEFINITION_TYPE] == C.MQQDT_PREDEFINED
    assert obj[C.MQCA_CREATION_DATE] == mq_date(T0) and obj[C.MQCA_CREATION_TIME] == mq_time(T0)
    assert obj[C.MQCA_ALTERATION_DATE] == mq_date(T0) and obj[C.MQCA_ALTERATION_TIME] == mq_time(T0)
    assert C.MQCA_BASE_Q_NAME not in obj and C.MQIA_BASE_TYPE not in obj
    # fixed-length attributes travel blank-padded
    raw = {p.parameter: p.value for p in r.messages[0].parameters}
    assert len(raw[C.MQCA_Q_NAME]) == 48 and len(raw[C.MQCA_Q_DESC]) == 64
    assert len(raw[C.MQCA_CREATION_DATE]) == 12 and len(raw[C.MQCA_CREATION_TIME]) == 8


def test_create_defaults_come_from_system_default_local_queue(h):
    assert h.run(command(C.MQCMD_CHANGE_Q, qname("SYSTEM.DEFAULT.LOCAL.QUEUE"), qtype(C.MQQT_LOCAL),
                         i(C.MQIA_MAX_Q_DEPTH, 42))).ok
    assert h.run(command(C.MQCMD_CREATE_Q, qname("Q.DEF"), qtype(C.MQQT_LOCAL))).ok
    obj = inquire(h, "Q.DEF").objects[0]
    assert obj[C.MQIA_MAX_Q_DEPTH] == 42
    assert obj[C.MQIA_DEF_PRIORITY] == 0 and obj[C.MQIA_DEF_PERSISTENCE] == C.MQPER_NOT_PERSISTENT
    assert obj[C.MQCA_Q_DESC] == ""


@ENCODINGS
def test_create_model_queue(h, enc):
    r = h.run(command(C.MQCMD_CREATE_Q, qname("APP.MODEL"), qtype(C.MQQT_MODEL),
                      i(C.MQIA_DEFINITION_TYPE, C.MQQDT_PERMANENT_DYNAMIC), i(C.MQIA_MAX_Q_DEPTH, 10)), enc)
    assert r.ok
    obj = inquire(h, "APP.MODEL", enc=enc).objects[0]
    assert obj[C.MQIA_Q_TYPE] == C.MQQT_MODEL
    assert obj[C.MQIA_DEFINITION_TYPE] == C.MQQDT_PERMANENT_DYNAMIC
    assert obj[C.MQIA_MAX_Q_DEPTH] == 10
    for local_only in (C.MQIA_CURRENT_Q_DEPTH, C.MQIA_OPEN_INPUT_COUNT, C.MQCA_CREATION_DATE, C.MQCA_BASE_Q_NAME):
        assert local_only not in obj
    # DefinitionType is a model-queue parameter only
    r = h.run(command(C.MQCMD_CREATE_Q, qname("L2"), qtype(C.MQQT_LOCAL),
                      i(C.MQIA_DEFINITION_TYPE, C.MQQDT_PERMANENT_DYNAMIC)), enc)
    assert failed(r, C.MQRCCF_CFIN_PARM_ID_ERROR, C.MQIA_DEFINITION_TYPE)
    r = h.run(command(C.MQCMD_CREATE_Q, qname("M2"), qtype(C.MQQT_MODEL),
                      i(C.MQIA_DEFINITION_TYPE, C.MQQDT_SHARED_DYNAMIC)), enc)
    assert failed(r, C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_DEFINITION_TYPE)


@ENCODINGS
def test_create_alias_queue(h, enc):
    r = h.run(command(C.MQCMD_CREATE_Q, qname("APP.ALIAS"), qtype(C.MQQT_ALIAS), st(C.MQCA_BASE_Q_NAME, "DEV.QUEUE.1"),
                      i(C.MQIA_DEF_PRIORITY, 3), st(C.MQCA_Q_DESC, "alias")), enc)
    assert r.ok
    obj = inquire(h, "APP.ALIAS", enc=enc).objects[0]
    assert obj[C.MQIA_Q_TYPE] == C.MQQT_ALIAS
    assert obj[C.MQCA_BASE_Q_NAME] == "DEV.QUEUE.1" and obj[C.MQIA_BASE_TYPE] == C.MQOT_Q
    assert obj[C.MQIA_DEF_PRIORITY] == 3 and obj[C.MQCA_Q_DESC] == "alias"
    for absent in (C.MQIA_MAX_Q_DEPTH, C.MQIA_CURRENT_Q_DEPTH, C.MQIA_USAGE, C.MQIA_DEFINITION_TYPE):
        assert absent not in obj
    r = h.run(command(C.MQCMD_CREATE_Q, qname("TOPIC.ALIAS"), qtype(C.MQQT_ALIAS),
                      st(C.MQCA_BASE_Q_NAME, "DEV.BASE.TOPIC"), i(C.MQIA_BASE_TYPE, C.MQOT_TOPIC)), enc)
    assert r.ok
    assert inquire(h, "TOPIC.ALIAS").objects[0][C.MQIA_BASE_TYPE] == C.MQOT_TOPIC
    # attributes of other queue types are refused by the structure they came in
    r = h.run(command(C.MQCMD_CREATE_Q, qname("A3"), qtype(C.MQQT_ALIAS), i(C.MQIA_MAX_Q_DEPTH, 5)), enc)
    assert failed(r, C.MQRCCF_CFIN_PARM_ID_ERROR, C.MQIA_MAX_Q_DEPTH)
    r = h.run(command(C.MQCMD_CREATE_Q, qname("L3"), qtype(C.MQQT_LOCAL), st(C.MQCA_BASE_Q_NAME, "X")), enc)
    assert failed(r, C.MQRCCF_CFST_PARM_ID_ERROR, C.MQCA_BASE_Q_NAME)
    r = h.run(command(C.MQCMD_CREATE_Q, qname("A4"), qtype(C.MQQT_ALIAS), i(C.MQIA_BASE_TYPE, 5)), enc)
    assert failed(r, C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_BASE_TYPE)
    r = h.run(command(C.MQCMD_CREATE_Q, qname("A5"), qtype(C.MQQT_ALIAS), st(C.MQCA_BASE_Q_NAME, "BAD NAME")), enc)
    assert failed(r, C.MQRCCF_OBJECT_NAME_ERROR, C.MQCA_BASE_Q_NAME)


def test_create_existing(h):
    assert h.run(command(C.MQCMD_CREATE_Q, qname("Q1"), qtype(C.MQQT_LOCAL), i(C.MQIA_MAX_Q_DEPTH, 9))).ok
    r = h.run(command(C.MQCMD_CREATE_Q, qname("Q1"), qtype(C.MQQT_LOCAL)))
    assert failed(r, C.MQRCCF_OBJECT_ALREADY_EXISTS, C.MQCA_Q_NAME)
    r = h.run(command(C.MQCMD_CREATE_Q, qname("Q1"), qtype(C.MQQT_LOCAL), i(C.MQIACF_REPLACE, C.MQRP_NO)))
    assert failed(r, C.MQRCCF_OBJECT_ALREADY_EXISTS, C.MQCA_Q_NAME)
    r = h.run(command(C.MQCMD_CREATE_Q, qname("Q1"), qtype(C.MQQT_ALIAS), i(C.MQIACF_REPLACE, C.MQRP_YES)))
    assert failed(r, C.MQRCCF_OBJECT_WRONG_TYPE, C.MQCA_Q_NAME)


def test_create_replace_keeps_messages_and_creation_time(h, clock):
    assert h.run(command(C.MQCMD_CREATE_Q, qname("Q1"), qtype(C.MQQT_LOCAL), i(C.MQIA_MAX_Q_DEPTH, 9),
                         i(C.MQIA_DEF_PRIORITY, 4))).ok
    put_message(h, "Q1", 3)
    clock.t = T0 + 86_400 + 3_661
    r = h.run(command(C.MQCMD_CREATE_Q, qname("Q1"), qtype(C.MQQT_LOCAL), i(C.MQIACF_REPLACE, C.MQRP_YES),
                      i(C.MQIA_MAX_Q_DEPTH, 11)))
    assert r.ok
    obj = inquire(h, "Q1").objects[0]
    assert obj[C.MQIA_MAX_Q_DEPTH] == 11
    assert obj[C.MQIA_DEF_PRIORITY] == 0  # Replace: everything not given is the default again
    assert obj[C.MQIA_CURRENT_Q_DEPTH] == 3
    assert obj[C.MQCA_CREATION_TIME] == mq_time(T0)
    assert obj[C.MQCA_ALTERATION_DATE] == mq_date(clock.t) and obj[C.MQCA_ALTERATION_TIME] == mq_time(clock.t)


@pytest.mark.parametrize("cmd", [C.MQCMD_CREATE_Q, C.MQCMD_CHANGE_Q])
@pytest.mark.parametrize("params, reason, parameter", [
    ((qtype(C.MQQT_LOCAL),), C.MQRCCF_PARM_MISSING, C.MQCA_Q_NAME),
    ((qname("Q9"),), C.MQRCCF_PARM_MISSING, C.MQIA_Q_TYPE),
    ((qname(""), qtype(C.MQQT_LOCAL)), C.MQRCCF_PARM_MISSING, C.MQCA_Q_NAME),
    ((qname("Q9"), qtype(C.MQQT_CLUSTER)), C.MQRC_FUNCTION_NOT_SUPPORTED, C.MQIA_Q_TYPE),
    ((qname("Q9"), qtype(99)), C.MQRCCF_Q_TYPE_ERROR, C.MQIA_Q_TYPE),
    ((qname("Q9"), qtype(C.MQQT_ALL)), C.MQRCCF_Q_TYPE_ERROR, C.MQIA_Q_TYPE),
    ((qname("BAD NAME"), qtype(C.MQQT_LOCAL)), C.MQRCCF_OBJECT_NAME_ERROR, C.MQCA_Q_NAME),
    ((qname("Q*"), qtype(C.MQQT_LOCAL)), C.MQRCCF_OBJECT_NAME_ERROR, C.MQCA_Q_NAME),
    ((qname("Q" * 49), qtype(C.MQQT_LOCAL)), C.MQRCCF_CFST_STRING_LENGTH_ERR, C.MQCA_Q_NAME),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), st(C.MQCA_Q_DESC, "d" * 65)), C.MQRCCF_CFST_STRING_LENGTH_ERR, C.MQCA_Q_DESC),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), i(C.MQIA_DEF_PRIORITY, 10)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_DEF_PRIORITY),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), i(C.MQIA_MAX_Q_DEPTH, -1)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_MAX_Q_DEPTH),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), i(C.MQIA_MAX_MSG_LENGTH, 104_857_601)), C.MQRCCF_PARM_VALUE_ERROR,
     C.MQIA_MAX_MSG_LENGTH),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), i(C.MQIA_DEF_PERSISTENCE, 2)), C.MQRCCF_PARM_VALUE_ERROR,
     C.MQIA_DEF_PERSISTENCE),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), i(C.MQIA_INHIBIT_PUT, 5)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_INHIBIT_PUT),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), i(C.MQIA_DEF_INPUT_OPEN_OPTION, 1)), C.MQRCCF_PARM_VALUE_ERROR,
     C.MQIA_DEF_INPUT_OPEN_OPTION),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), i(C.MQIA_DEF_PRIORITY, 1), i(C.MQIA_DEF_PRIORITY, 2)),
     C.MQRCCF_CFIN_DUPLICATE_PARM, C.MQIA_DEF_PRIORITY),
    ((qname("Q9"), qtype(C.MQQT_LOCAL), st(C.MQIA_DEF_PRIORITY, "1")), C.MQRCCF_CFST_PARM_ID_ERROR,
     C.MQIA_DEF_PRIORITY),
])
def test_create_and_change_parameter_errors(h, cmd, params, reason, parameter):
    if cmd == C.MQCMD_CHANGE_Q:
        assert h.run(command(C.MQCMD_CREATE_Q, qname("Q9"), qtype(C.MQQT_LOCAL))).ok
    for enc in (LE, BE):
        assert failed(h.run(command(cmd, *params), enc), reason, parameter)
    if cmd == C.MQCMD_CREATE_Q:
        assert "Q9" not in h.registry.queues  # nothing half-done


def test_command_v1_and_replace_value_error(h):
    r = h.run(command(C.MQCMD_CREATE_Q, qname("V1"), qtype(C.MQQT_LOCAL), cfh_type=C.MQCFT_COMMAND, version=1))
    assert r.ok
    r = h.run(command(C.MQCMD_CREATE_Q, qname("V1"), qtype(C.MQQT_LOCAL), i(C.MQIACF_REPLACE, 7)))
    assert failed(r, C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_REPLACE)


# ---- Change ----------------------------------------------------------------------------------------
@ENCODINGS
def test_change_local(h, clock, enc):
    assert h.run(command(C.MQCMD_CREATE_Q, qname("Q1"), qtype(C.MQQT_LOCAL), i(C.MQIA_DEF_PRIORITY, 2)), enc).ok
    clock.t = T0 + 3_725
    r = h.run(command(C.MQCMD_CHANGE_Q, qname("Q1"), qtype(C.MQQT_LOCAL), st(C.MQCA_Q_DESC, "changed"),
                      i(C.MQIA_MAX_Q_DEPTH, 1), i(C.MQIA_INHIBIT_GET, C.MQQA_GET_INHIBITED),
                      i(C.MQIACF_FORCE, 1)), enc)
    assert r.ok
    obj = inquire(h, "Q1", enc=enc).objects[0]
    assert obj[C.MQCA_Q_DESC] == "changed" and obj[C.MQIA_MAX_Q_DEPTH] == 1
    assert obj[C.MQIA_INHIBIT_GET] == C.MQQA_GET_INHIBITED
    assert obj[C.MQIA_DEF_PRIORITY] == 2  # omitted attributes stay
    assert obj[C.MQCA_CREATION_TIME] == mq_time(T0)
    assert obj[C.MQCA_ALTERATION_TIME] == mq_time(T0 + 3_725)


def test_change_alias_and_model(h):
    assert h.run(command(C.MQCMD_CHANGE_Q, qname("SYSTEM.DEFAULT.ALIAS.QUEUE"), qtype(C.MQQT_ALIAS),
                         st(C.MQCA_BASE_Q_NAME, "DEV.QUEUE.2"))).ok
    assert inquire(h, "SYSTEM.DEFAULT.ALIAS.QUEUE").objects[0][C.MQCA_BASE_Q_NAME] == "DEV.QUEUE.2"
    assert h.run(command(C.MQCMD_CHANGE_Q, qname("SYSTEM.DEFAULT.MODEL.QUEUE"), qtype(C.MQQT_MODEL),
                         i(C.MQIA_DEFINITION_TYPE, C.MQQDT_PERMANENT_DYNAMIC))).ok
    obj = inquire(h, "SYSTEM.DEFAULT.MODEL.QUEUE").objects[0]
    assert obj[C.MQIA_DEFINITION_TYPE] == C.MQQDT_PERMANENT_DYNAMIC


def test_change_errors(h):
    r = h.run(command(C.MQCMD_CHANGE_Q, qname("NO.SUCH.Q"), qtype(C.MQQT_LOCAL)))
    assert failed(r, C.MQRC_UNKNOWN_OBJECT_NAME)
    # the type of a queue never changes
    r = h.run(command(C.MQCMD_CHANGE_Q, qname("DEV.QUEUE.1"), qtype(C.MQQT_ALIAS), i(C.MQIA_DEF_PRIORITY, 1)))
    assert failed(r, C.MQRCCF_OBJECT_WRONG_TYPE, C.MQIA_Q_TYPE)
    assert inquire(h, "DEV.QUEUE.1").objects[0][C.MQIA_DEF_PRIORITY] == 0


# ---- Copy ------------------------------------------------------------------------------------------
def copy(*params):
    return command(C.MQCMD_COPY_Q, *params)


@ENCODINGS
def test_copy_with_overrides(h, enc):
    assert h.run(command(C.MQCMD_CREATE_Q, qname("SRC"), qtype(C.MQQT_LOCAL), i(C.MQIA_MAX_Q_DEPTH, 55),
                         i(C.MQIA_DEF_PRIORITY, 5), st(C.MQCA_Q_DESC, "source")), enc).ok
    put_message(h, "SRC")
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "SRC"), st(C.MQCACF_TO_Q_NAME, "DST"), qtype(C.MQQT_LOCAL),
                   i(C.MQIA_DEF_PRIORITY, 8)), enc)
    assert r.ok
    obj = inquire(h, "DST", enc=enc).objects[0]
    assert obj[C.MQIA_MAX_Q_DEPTH] == 55 and obj[C.MQCA_Q_DESC] == "source"
    assert obj[C.MQIA_DEF_PRIORITY] == 8
    assert obj[C.MQIA_CURRENT_Q_DEPTH] == 0  # messages are not copied
    assert inquire(h, "SRC").objects[0][C.MQIA_DEF_PRIORITY] == 5


def test_copy_errors(h):
    ok = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "DEV.QUEUE.1"), st(C.MQCACF_TO_Q_NAME, "C1"), qtype(C.MQQT_LOCAL)))
    assert ok.ok
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "DEV.QUEUE.1"), st(C.MQCACF_TO_Q_NAME, "C1"), qtype(C.MQQT_LOCAL)))
    assert failed(r, C.MQRCCF_OBJECT_ALREADY_EXISTS, C.MQCACF_TO_Q_NAME)
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "DEV.QUEUE.1"), st(C.MQCACF_TO_Q_NAME, "C1"), qtype(C.MQQT_LOCAL),
                   i(C.MQIACF_REPLACE, C.MQRP_YES), i(C.MQIA_MAX_Q_DEPTH, 3)))
    assert r.ok and inquire(h, "C1").objects[0][C.MQIA_MAX_Q_DEPTH] == 3
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "NOPE"), st(C.MQCACF_TO_Q_NAME, "C2"), qtype(C.MQQT_LOCAL)))
    assert failed(r, C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCACF_FROM_Q_NAME)
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "DEV.QUEUE.1"), st(C.MQCACF_TO_Q_NAME, "C2"), qtype(C.MQQT_MODEL)))
    assert failed(r, C.MQRCCF_OBJECT_WRONG_TYPE, C.MQCACF_FROM_Q_NAME)
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "SYSTEM.DEFAULT.ALIAS.QUEUE"), st(C.MQCACF_TO_Q_NAME, "C1"),
                   qtype(C.MQQT_ALIAS), i(C.MQIACF_REPLACE, C.MQRP_YES)))
    assert failed(r, C.MQRCCF_OBJECT_WRONG_TYPE, C.MQCACF_TO_Q_NAME)
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "DEV.QUEUE.1"), qtype(C.MQQT_LOCAL)))
    assert failed(r, C.MQRCCF_PARM_MISSING, C.MQCACF_TO_Q_NAME)
    r = h.run(copy(st(C.MQCACF_TO_Q_NAME, "C3"), qtype(C.MQQT_LOCAL)))
    assert failed(r, C.MQRCCF_PARM_MISSING, C.MQCACF_FROM_Q_NAME)
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "DEV.QUEUE.1"), st(C.MQCACF_TO_Q_NAME, "C3")))
    assert failed(r, C.MQRCCF_PARM_MISSING, C.MQIA_Q_TYPE)
    r = h.run(copy(st(C.MQCACF_FROM_Q_NAME, "DEV.QUEUE.1"), st(C.MQCACF_TO_Q_NAME, "C 3"), qtype(C.MQQT_LOCAL)))
    assert failed(r, C.MQRCCF_OBJECT_NAME_ERROR, C.MQCACF_TO_Q_NAME)


# ---- Delete / Clear --------------------------------------------------------------------------------
@ENCODINGS
def test_delete_and_purge(h, enc):
    assert h.run(command(C.MQCMD_CREATE_Q, qname("D1"), qtype(C.MQQT_LOCAL)), enc).ok
    assert h.run(command(C.MQCMD_DELETE_Q, qname("D1")), enc).ok
    assert failed(inquire(h, "D1", enc=enc), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert h.run(command(C.MQCMD_CREATE_Q, qname("D2"), qtype(C.MQQT_LOCAL)), enc).ok
    put_message(h, "D2", 2)
    assert failed(h.run(command(C.MQCMD_DELETE_Q, qname("D2")), enc), C.MQRC_Q_NOT_EMPTY)
    assert failed(h.run(command(C.MQCMD_DELETE_Q, qname("D2"), i(C.MQIACF_PURGE, C.MQPO_NO)), enc), C.MQRC_Q_NOT_EMPTY)
    assert "D2" in h.registry.queues
    r = h.run(command(C.MQCMD_DELETE_Q, qname("D2"), i(C.MQIACF_PURGE, C.MQPO_YES),
                      i(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_YES)), enc)
    assert r.ok
    assert "D2" not in h.registry.queues and h.registry.messages.depth("D2") == 0
    assert failed(h.run(command(C.MQCMD_DELETE_Q, qname("D2")), enc), C.MQRC_UNKNOWN_OBJECT_NAME)
    r = h.run(command(C.MQCMD_DELETE_Q, qname("D3"), i(C.MQIACF_PURGE, 5)), enc)
    assert failed(r, C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_PURGE)


def test_delete_type_and_name_checks(h):
    r = h.run(command(C.MQCMD_DELETE_Q, qname("DEV.QUEUE.1"), qtype(C.MQQT_ALIAS)))
    assert failed(r, C.MQRCCF_OBJECT_WRONG_TYPE, C.MQIA_Q_TYPE)
    assert failed(h.run(command(C.MQCMD_DELETE_Q, qname("DEV.*"))), C.MQRCCF_OBJECT_NAME_ERROR, C.MQCA_Q_NAME)
    assert failed(h.run(command(C.MQCMD_DELETE_Q)), C.MQRCCF_PARM_MISSING, C.MQCA_Q_NAME)
    assert h.run(command(C.MQCMD_DELETE_Q, qname("SYSTEM.DEFAULT.ALIAS.QUEUE"), qtype(C.MQQT_ALIAS))).ok
    assert h.run(command(C.MQCMD_DELETE_Q, qname("SYSTEM.DEFAULT.MODEL.QUEUE"), qtype(C.MQQT_ALL))).ok


def test_delete_in_use(h):
    r = h.run(command(C.MQCMD_DELETE_Q, qname("SYSTEM.ADMIN.COMMAND.QUEUE"), i(C.MQIACF_PURGE, C.MQPO_YES)))
    assert failed(r, C.MQRC_OBJECT_IN_USE)
    reg = h.registry
    reg.put_queue(Queue("SYSTEM.MANAGED.DURABLE.0000000000000001"))
    sub = Subscription("MANAGED.SUB", reg.ids.sub_id(), topic_string="a/b", resolved_topic="a/b",
                       destination="SYSTEM.MANAGED.DURABLE.0000000000000001", destination_class=C.MQDC_MANAGED)
    reg.put_sub(sub)
    r = h.run(command(C.MQCMD_DELETE_Q, qname("SYSTEM.MANAGED.DURABLE.0000000000000001")))
    assert failed(r, C.MQRC_OBJECT_IN_USE)
    reg.remove_sub(sub)
    assert h.run(command(C.MQCMD_DELETE_Q, qname("SYSTEM.MANAGED.DURABLE.0000000000000001"))).ok


@ENCODINGS
def test_clear(h, enc):
    put_message(h, "DEV.QUEUE.2", 4)
    assert inquire(h, "DEV.QUEUE.2", enc=enc).objects[0][C.MQIA_CURRENT_Q_DEPTH] == 4
    assert h.run(command(C.MQCMD_CLEAR_Q, qname("DEV.QUEUE.2")), enc).ok
    assert inquire(h, "DEV.QUEUE.2", enc=enc).objects[0][C.MQIA_CURRENT_Q_DEPTH] == 0
    assert h.run(command(C.MQCMD_CLEAR_Q, qname("DEV.QUEUE.2")), enc).ok  # empty: still fine
    assert failed(h.run(command(C.MQCMD_CLEAR_Q, qname("SYSTEM.DEFAULT.ALIAS.QUEUE")), enc), C.MQRCCF_Q_WRONG_TYPE)
    assert failed(h.run(command(C.MQCMD_CLEAR_Q, qname("SYSTEM.DEFAULT.MODEL.QUEUE")), enc), C.MQRCCF_Q_WRONG_TYPE)
    assert failed(h.run(command(C.MQCMD_CLEAR_Q, qname("NO.SUCH")), enc), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(h.run(command(C.MQCMD_CLEAR_Q, qname("SYSTEM.ADMIN.COMMAND.QUEUE")), enc), C.MQRC_OBJECT_IN_USE)
    assert failed(h.run(command(C.MQCMD_CLEAR_Q), enc), C.MQRCCF_PARM_MISSING, C.MQCA_Q_NAME)
    assert failed(h.run(command(C.MQCMD_CLEAR_Q, qname("DEV.QUEUE.2"), i(C.MQIACF_PURGE, 1)), enc),
                  C.MQRCCF_CFIN_PARM_ID_ERROR, C.MQIACF_PURGE)


# ---- Inquire ---------------------------------------------------------------------------------------
@ENCODINGS
def test_inquire_generic_and_order(h, enc):
    r = inquire(h, "DEV.QUEUE.*", enc=enc)
    assert r.ok and len(r.messages) == 3
    assert [o[C.MQCA_Q_NAME] for o in r.objects] == ["DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3"]
    assert [m.header.Control for m in r.messages] == [C.MQCFC_NOT_LAST, C.MQCFC_NOT_LAST, C.MQCFC_LAST]
    r = inquire(h, "*", enc=enc)
    assert len(r.messages) == len(h.registry.queues)


def test_inquire_no_match_and_bad_names(h):
    assert failed(inquire(h, "NOTHING.*"), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(inquire(h, "NOTHING"), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(inquire(h, "A*B"), C.MQRCCF_OBJECT_NAME_ERROR, C.MQCA_Q_NAME)
    assert failed(h.run(command(C.MQCMD_INQUIRE_Q)), C.MQRCCF_PARM_MISSING, C.MQCA_Q_NAME)
    assert failed(inquire(h, "*", i(C.MQIA_Q_TYPE, 42)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_Q_TYPE)


def test_inquire_type_filter(h):
    r = inquire(h, "*", qtype(C.MQQT_MODEL))
    models = {n for n, q in h.registry.queues.items() if q.qtype == C.MQQT_MODEL}
    assert {o[C.MQCA_Q_NAME] for o in r.objects} == models >= {n for n,
                                                               t in SYSTEM_QUEUES.items() if t == C.MQQT_MODEL} | {
        "DEV.APP.MODEL.QUEUE"}
    assert {o[C.MQCA_Q_NAME] for o in inquire(h, "*", qtype(C.MQQT_ALIAS)).objects} == {"SYSTEM.DEFAULT.ALIAS.QUEUE"}
    assert len(inquire(h, "*", qtype(C.MQQT_ALL)).objects) == len(h.registry.queues)
    assert {o[C.MQCA_Q_NAME] for o in inquire(h, "*", qtype(C.MQQT_REMOTE)).objects} == {"SYSTEM.DEFAULT.REMOTE.QUEUE"}
    assert failed(inquire(h, "*", qtype(C.MQQT_CLUSTER)), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(inquire(h, "DEV.QUEUE.1", qtype(C.MQQT_MODEL)), C.MQRC_UNKNOWN_OBJECT_NAME)


@ENCODINGS
def test_inquire_attribute_selection(h, enc):
    put_message(h, "DEV.QUEUE.1")
    r = inquire(h, "DEV.QUEUE.1", il(C.MQIACF_Q_ATTRS, C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_MGR_DESC), enc=enc)
    assert r.objects == [{C.MQCA_Q_NAME: "DEV.QUEUE.1", C.MQIA_Q_TYPE: C.MQQT_LOCAL, C.MQIA_CURRENT_Q_DEPTH: 1}]
    # a selector that is no IBM attribute at all: MQRC_SELECTOR_ERROR naming it
    r = inquire(h, "DEV.QUEUE.1", il(C.MQIACF_Q_ATTRS, C.MQIA_CURRENT_Q_DEPTH, 99_999), enc=enc)
    assert failed(r, C.MQRC_SELECTOR_ERROR)
    assert r.messages[0].parameters[0].value == 99_999
    r = inquire(h, "DEV.QUEUE.1", il(C.MQIACF_Q_ATTRS, C.MQIACF_ALL), enc=enc)
    assert C.MQIA_MAX_Q_DEPTH in r.objects[0] and C.MQCA_ALTERATION_TIME in r.objects[0]
    # an attribute the queue type does not have is not returned
    r = inquire(h, "SYSTEM.DEFAULT.ALIAS.QUEUE", il(C.MQIACF_Q_ATTRS, C.MQIA_MAX_Q_DEPTH), enc=enc)
    assert r.objects == [{C.MQCA_Q_NAME: "SYSTEM.DEFAULT.ALIAS.QUEUE", C.MQIA_Q_TYPE: C.MQQT_ALIAS}]


@ENCODINGS
def test_inquire_filters(h, enc):
    put_message(h, "DEV.QUEUE.3", 2)
    r = inquire(h, "*", P.CFIF(C.MQIA_CURRENT_Q_DEPTH, C.MQCFOP_GREATER, 0), enc=enc)
    assert [o[C.MQCA_Q_NAME] for o in r.objects] == ["DEV.QUEUE.3"]
    assert h.run(command(C.MQCMD_CHANGE_Q, qname("DEV.QUEUE.2"), qtype(C.MQQT_LOCAL),
                         st(C.MQCA_Q_DESC, "payments in")), enc).ok
    r = inquire(h, "DEV.*", P.CFSF(C.MQCA_Q_DESC, C.MQCFOP_LIKE, "payments*", 0), enc=enc)
    assert [o[C.MQCA_Q_NAME] for o in r.objects] == ["DEV.QUEUE.2"]
    r = inquire(h, "*", P.CFIF(C.MQIA_MAX_Q_DEPTH, C.MQCFOP_EQUAL, 999_999_999), enc=enc)
    assert {o[C.MQCA_Q_NAME] for o in r.objects} == {"SYSTEM.DURABLE.MODEL.QUEUE", "SYSTEM.NDURABLE.MODEL.QUEUE"}
    r = inquire(h, "*", P.CFIF(C.MQIA_DEF_PRIORITY, C.MQCFOP_GREATER, 5), enc=enc)
    assert failed(r, C.MQRC_UNKNOWN_OBJECT_NAME)
    r = inquire(h, "*", P.CFIF(C.MQIA_DEF_PRIORITY, C.MQCFOP_EQUAL, 0), P.CFIF(C.MQIA_USAGE, C.MQCFOP_EQUAL, 0),
                enc=enc)
    assert failed(r, C.MQRCCF_TOO_MANY_FILTERS, C.MQIA_USAGE)
    r = inquire(h, "*", P.CFIF(C.MQCA_Q_DESC, C.MQCFOP_EQUAL, 0), enc=enc)
    assert failed(r, C.MQRCCF_CFIF_PARM_ID_ERROR, C.MQCA_Q_DESC)


# ---- Inquire Queue Names ---------------------------------------------------------------------------
@ENCODINGS
def test_inquire_q_names(h, enc):
    r = h.run(command(C.MQCMD_INQUIRE_Q_NAMES, qname("DEV.*")), enc)
    assert r.ok and len(r.messages) == 1
    names = [n.rstrip() for n in r.objects[0][C.MQCACF_Q_NAMES]]
    # the developer container's model queue (9.4) is a DEV.* queue too
    assert names == ["DEV.APP.MODEL.QUEUE", "DEV.DEAD.LETTER.QUEUE", "DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3"]
    assert r.objects[0][C.MQIACF_Q_TYPES] == (C.MQQT_MODEL,) + (C.MQQT_LOCAL,) * 4
    r = h.run(command(C.MQCMD_INQUIRE_Q_NAMES, qname("SYSTEM.*"), qtype(C.MQQT_MODEL)), enc)
    assert set(r.objects[0][C.MQIACF_Q_TYPES]) == {C.MQQT_MODEL}
    r = h.run(command(C.MQCMD_INQUIRE_Q_NAMES, qname("NONE.*")), enc)
    assert r.ok and r.objects == [{C.MQCACF_Q_NAMES: (), C.MQIACF_Q_TYPES: ()}]
    r = h.run(command(C.MQCMD_INQUIRE_Q_NAMES, qname("DEV.QUEUE.1")), enc)
    assert [n.rstrip() for n in r.objects[0][C.MQCACF_Q_NAMES]] == ["DEV.QUEUE.1"]
    assert failed(h.run(command(C.MQCMD_INQUIRE_Q_NAMES), enc), C.MQRCCF_PARM_MISSING, C.MQCA_Q_NAME)


# ---- persistence -----------------------------------------------------------------------------------
def test_definitions_survive_reopen(tmp_path, clock):
    h = Harness(tmp_path, clock=clock)
    assert h.run(command(C.MQCMD_CREATE_Q, qname("KEEP"), qtype(C.MQQT_LOCAL), i(C.MQIA_MAX_Q_DEPTH, 12),
                         st(C.MQCA_Q_DESC, "kept"))).ok
    assert h.run(command(C.MQCMD_CREATE_Q, qname("KEEP.ALIAS"), qtype(C.MQQT_ALIAS),
                         st(C.MQCA_BASE_Q_NAME, "KEEP"))).ok
    assert h.run(command(C.MQCMD_DELETE_Q, qname("DEV.QUEUE.3"))).ok
    h.close()
    h = Harness(tmp_path, clock=clock)
    obj = inquire(h, "KEEP").objects[0]
    assert obj[C.MQIA_MAX_Q_DEPTH] == 12 and obj[C.MQCA_Q_DESC] == "kept"
    assert obj[C.MQCA_CREATION_TIME] == mq_time(T0)
    assert inquire(h, "KEEP.ALIAS").objects[0][C.MQCA_BASE_Q_NAME] == "KEEP"
    assert failed(inquire(h, "DEV.QUEUE.3"), C.MQRC_UNKNOWN_OBJECT_NAME)
    h.close()
