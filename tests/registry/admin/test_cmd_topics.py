"""Topic commands through real PCF bytes: Create/Copy/Change/Delete Topic, Inquire Topic, Inquire Topic
Names and Inquire Topic Status (STATUS, SUB, PUB) (docs/compat.md (part 2))."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.objects.definitions import Subscription, mq_date, mq_time
from tests.support.pcfkit import BE, Harness, LE, T0, command, failed, i, il, st

ENCODINGS = pytest.mark.parametrize("enc", [LE, BE], ids=["LE", "BE"])
NAME, STRING = C.MQCA_TOPIC_NAME, C.MQCA_TOPIC_STRING


def create(h, name, string, *extra, enc=LE):
    return h.run(command(C.MQCMD_CREATE_TOPIC, st(NAME, name), st(STRING, string), *extra), enc)


def inquire(h, name, *extra, enc=LE):
    return h.run(command(C.MQCMD_INQUIRE_TOPIC, st(NAME, name), *extra), enc)


def status(h, string, *extra, enc=LE):
    return h.run(command(C.MQCMD_INQUIRE_TOPIC_STATUS, st(STRING, string), *extra), enc)


def add_sub(h, name, topic, *, schema=C.MQWS_TOPIC, **kw):
    reg = h.registry
    sub = Subscription(name, reg.ids.sub_id(), topic_string=topic, resolved_topic=topic, wildcard_schema=schema,
                       destination="DEV.QUEUE.1", sub_user="app", created=reg.now(), altered=reg.now(), **kw)
    reg.put_sub(sub)
    return sub


# ---- first start -----------------------------------------------------------------------------------
def test_first_start_topics(tmp_path):
    h = Harness(tmp_path)
    r = h.run(command(C.MQCMD_INQUIRE_TOPIC_NAMES, st(NAME, "*")))
    assert [n.rstrip() for n in r.objects[0][C.MQCACF_TOPIC_NAMES]] == ["DEV.BASE.TOPIC", "SYSTEM.BASE.TOPIC"]
    obj = inquire(h, "DEV.BASE.TOPIC").objects[0]
    assert obj[STRING] == "dev/"
    base = inquire(h, "SYSTEM.BASE.TOPIC").objects[0]
    assert base[STRING] == "" and base[C.MQIA_DURABLE_SUB] == C.MQSUB_DURABLE_ALLOWED
    assert base[C.MQCA_MODEL_DURABLE_Q] == "SYSTEM.DURABLE.MODEL.QUEUE"
    assert base[C.MQCA_MODEL_NON_DURABLE_Q] == "SYSTEM.NDURABLE.MODEL.QUEUE"
    h.close()
    h = Harness(tmp_path / "nodev", dev_objects=False)
    r = h.run(command(C.MQCMD_INQUIRE_TOPIC_NAMES, st(NAME, "*")))
    assert [n.rstrip() for n in r.objects[0][C.MQCACF_TOPIC_NAMES]] == ["SYSTEM.BASE.TOPIC"]
    h.close()


# ---- Create ----------------------------------------------------------------------------------------
TOPIC_ATTRS = [
    (st, C.MQCA_TOPIC_DESC, "prices"), (i, C.MQIA_DURABLE_SUB, C.MQSUB_DURABLE_INHIBITED),
    (i, C.MQIA_DEF_PRIORITY, 6), (i, C.MQIA_TOPIC_DEF_PERSISTENCE, C.MQPER_PERSISTENT),
    (i, C.MQIA_DEF_PUT_RESPONSE_TYPE, C.MQPRT_ASYNC_RESPONSE), (st, C.MQCA_MODEL_DURABLE_Q, "DUR.MODEL"),
    (st, C.MQCA_MODEL_NON_DURABLE_Q, "NDUR.MODEL"), (i, C.MQIA_INHIBIT_PUB, C.MQTA_PUB_INHIBITED),
    (i, C.MQIA_INHIBIT_SUB, C.MQTA_SUB_INHIBITED), (i, C.MQIA_PM_DELIVERY, C.MQDLV_ALL),
    (i, C.MQIA_NPM_DELIVERY, C.MQDLV_ALL_DUR), (i, C.MQIA_PUB_SCOPE, C.MQSCOPE_QMGR),
    (i, C.MQIA_SUB_SCOPE, C.MQSCOPE_QMGR), (i, C.MQIA_PROXY_SUB, C.MQTA_PROXY_SUB_FIRSTUSE),
    (i, C.MQIA_WILDCARD_OPERATION, C.MQTA_BLOCK), (i, C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO),
    (i, C.MQIA_MULTICAST, C.MQMC_DISABLED),
]


@ENCODINGS
def test_create_every_attribute_inquired(h, enc):
    r = create(h, "PRICES", "market/prices", i(C.MQIA_TOPIC_TYPE, C.MQTOPT_LOCAL),
               *[mk(pid, v) for mk, pid, v in TOPIC_ATTRS], enc=enc)
    assert r.ok and len(r.messages) == 1
    r = inquire(h, "PRICES", enc=enc)
    assert r.ok and len(r.messages) == 1
    obj = r.objects[0]
    for _, pid, v in TOPIC_ATTRS:
        assert obj[pid] == v, pid
    assert obj[NAME] == "PRICES" and obj[C.MQIA_TOPIC_TYPE] == C.MQTOPT_LOCAL and obj[STRING] == "market/prices"
    assert obj[C.MQCA_ALTERATION_DATE] == mq_date(T0) and obj[C.MQCA_ALTERATION_TIME] == mq_time(T0)
    assert obj[C.MQCA_CLUSTER_NAME] == "" and obj[C.MQIA_CLUSTER_PUB_ROUTE] == C.MQCLROUTE_DIRECT
    raw = {p.parameter: p.value for p in r.messages[0].parameters}
    assert len(raw[NAME]) == 48 and len(raw[C.MQCA_TOPIC_DESC]) == 64 and raw[STRING] == "market/prices"


def test_create_defaults_are_as_parent(h):
    assert create(h, "T1", "a/b").ok
    obj = inquire(h, "T1").objects[0]
    assert obj[C.MQIA_DURABLE_SUB] == C.MQSUB_DURABLE_AS_PARENT
    assert obj[C.MQIA_DEF_PRIORITY] == C.MQPRI_PRIORITY_AS_PARENT
    assert obj[C.MQIA_TOPIC_DEF_PERSISTENCE] == C.MQPER_PERSISTENCE_AS_PARENT
    assert obj[C.MQIA_INHIBIT_PUB] == C.MQTA_PUB_AS_PARENT and obj[C.MQIA_USE_DEAD_LETTER_Q] == C.MQUSEDLQ_AS_PARENT
    assert obj[C.MQCA_MODEL_DURABLE_Q] == "" and obj[C.MQIA_PUB_SCOPE] == C.MQSCOPE_AS_PARENT


def test_create_existing_and_replace(h, clock):
    assert create(h, "T1", "a/b", i(C.MQIA_DEF_PRIORITY, 4)).ok
    assert failed(create(h, "T1", "a/b"), C.MQRCCF_OBJECT_ALREADY_EXISTS, NAME)
    assert failed(create(h, "T1", "a/b", i(C.MQIACF_REPLACE, C.MQRP_NO)), C.MQRCCF_OBJECT_ALREADY_EXISTS, NAME)
    clock.t = T0 + 61
    assert create(h, "T1", "a/b", i(C.MQIACF_REPLACE, C.MQRP_YES), st(C.MQCA_TOPIC_DESC, "again")).ok
    obj = inquire(h, "T1").objects[0]
    assert obj[C.MQCA_TOPIC_DESC] == "again" and obj[C.MQIA_DEF_PRIORITY] == C.MQPRI_PRIORITY_AS_PARENT
    assert obj[C.MQCA_ALTERATION_TIME] == mq_time(T0 + 61)
    # the topic string of an existing object is fixed
    r = create(h, "T1", "a/c", i(C.MQIACF_REPLACE, C.MQRP_YES))
    assert failed(r, C.MQRCCF_ATTR_VALUE_FIXED, STRING)
    # topic strings are unique among topic objects
    assert failed(create(h, "T2", "a/b"), C.MQRCCF_TOPICSTR_ALREADY_EXISTS, STRING)
    assert failed(create(h, "T2", "dev/"), C.MQRCCF_TOPICSTR_ALREADY_EXISTS, STRING)


@pytest.mark.parametrize("params, reason, parameter", [
    ((st(STRING, "x"),), C.MQRCCF_PARM_MISSING, NAME),
    ((st(NAME, "T9"),), C.MQRCCF_PARM_MISSING, STRING),
    ((st(NAME, "T9"), st(STRING, "")), C.MQRCCF_PARM_MISSING, STRING),
    ((st(NAME, "T 9"), st(STRING, "x")), C.MQRCCF_OBJECT_NAME_ERROR, NAME),
    ((st(NAME, "T" * 49), st(STRING, "x")), C.MQRCCF_CFST_STRING_LENGTH_ERR, NAME),
    ((st(NAME, "T9"), st(STRING, "x" * 10241)), C.MQRCCF_CFST_STRING_LENGTH_ERR, STRING),
    ((st(NAME, "T9"), st(STRING, "a/#")), C.MQRC_TOPIC_STRING_ERROR, STRING),
    ((st(NAME, "T9"), st(STRING, "+/b")), C.MQRC_TOPIC_STRING_ERROR, STRING),
    ((st(NAME, "T9"), st(STRING, "x"), st(C.MQCA_TOPIC_DESC, "d" * 65)), C.MQRCCF_CFST_STRING_LENGTH_ERR,
     C.MQCA_TOPIC_DESC),
    ((st(NAME, "T9"), st(STRING, "x"), i(C.MQIA_DEF_PRIORITY, 10)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_DEF_PRIORITY),
    ((st(NAME, "T9"), st(STRING, "x"), i(C.MQIA_DEF_PRIORITY, -1)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_DEF_PRIORITY),
    ((st(NAME, "T9"), st(STRING, "x"), i(C.MQIA_DURABLE_SUB, 3)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_DURABLE_SUB),
    ((st(NAME, "T9"), st(STRING, "x"), i(C.MQIA_TOPIC_DEF_PERSISTENCE, 2)), C.MQRCCF_PARM_VALUE_ERROR,
     C.MQIA_TOPIC_DEF_PERSISTENCE),
    ((st(NAME, "T9"), st(STRING, "x"), i(C.MQIA_DEF_PERSISTENCE, 1)), C.MQRCCF_CFIN_PARM_ID_ERROR,
     C.MQIA_DEF_PERSISTENCE),
    ((st(NAME, "T9"), st(STRING, "x"), i(C.MQIA_PUB_SCOPE, 2)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_PUB_SCOPE),
    ((st(NAME, "T9"), st(STRING, "x"), i(C.MQIA_MULTICAST, 9)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_MULTICAST),
    ((st(NAME, "T9"), st(STRING, "x"), i(C.MQIA_TOPIC_TYPE, C.MQTOPT_CLUSTER)), C.MQRCCF_TOPIC_TYPE_ERROR,
     C.MQIA_TOPIC_TYPE),
    ((st(NAME, "T9"), st(STRING, "x"), st(C.MQCA_MODEL_DURABLE_Q, "BAD Q")), C.MQRCCF_OBJECT_NAME_ERROR,
     C.MQCA_MODEL_DURABLE_Q),
    ((st(NAME, "T9"), st(STRING, "x"), st(C.MQCA_MODEL_NON_DURABLE_Q, "Q" * 49)), C.MQRCCF_CFST_STRING_LENGTH_ERR,
     C.MQCA_MODEL_NON_DURABLE_Q),
])
def test_create_parameter_errors(h, params, reason, parameter):
    for enc in (LE, BE):
        assert failed(h.run(command(C.MQCMD_CREATE_TOPIC, *params), enc), reason, parameter)
    assert "T9" not in h.registry.topics


# ---- Change / Copy / Delete ------------------------------------------------------------------------
@ENCODINGS
def test_change(h, clock, enc):
    assert create(h, "T1", "a/b", i(C.MQIA_DEF_PRIORITY, 4), enc=enc).ok
    clock.t = T0 + 7
    r = h.run(command(C.MQCMD_CHANGE_TOPIC, st(NAME, "T1"), st(STRING, "a/b"),
                      i(C.MQIA_DURABLE_SUB, C.MQSUB_DURABLE_INHIBITED), st(C.MQCA_TOPIC_DESC, "new")), enc)
    assert r.ok
    obj = inquire(h, "T1", enc=enc).objects[0]
    assert obj[C.MQIA_DURABLE_SUB] == C.MQSUB_DURABLE_INHIBITED and obj[C.MQCA_TOPIC_DESC] == "new"
    assert obj[C.MQIA_DEF_PRIORITY] == 4 and obj[C.MQCA_ALTERATION_TIME] == mq_time(T0 + 7)
    r = h.run(command(C.MQCMD_CHANGE_TOPIC, st(NAME, "T1"), st(STRING, "a/c")), enc)
    assert failed(r, C.MQRCCF_ATTR_VALUE_FIXED, STRING)
    assert failed(h.run(command(C.MQCMD_CHANGE_TOPIC, st(NAME, "NOPE")), enc), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(h.run(command(C.MQCMD_CHANGE_TOPIC), enc), C.MQRCCF_PARM_MISSING, NAME)
    r = h.run(command(C.MQCMD_CHANGE_TOPIC, st(NAME, "T1"), i(C.MQIACF_REPLACE, 1)), enc)
    assert failed(r, C.MQRCCF_CFIN_PARM_ID_ERROR, C.MQIACF_REPLACE)


@ENCODINGS
def test_copy(h, enc):
    assert create(h, "SRC", "src", i(C.MQIA_DEF_PRIORITY, 4), st(C.MQCA_TOPIC_DESC, "d"), enc=enc).ok
    r = h.run(command(C.MQCMD_COPY_TOPIC, st(C.MQCACF_FROM_TOPIC_NAME, "SRC"), st(C.MQCACF_TO_TOPIC_NAME, "DST"),
                      st(STRING, "dst"), i(C.MQIA_MULTICAST, C.MQMC_ONLY)), enc)
    assert r.ok
    obj = inquire(h, "DST", enc=enc).objects[0]
    assert obj[STRING] == "dst" and obj[C.MQIA_DEF_PRIORITY] == 4 and obj[C.MQCA_TOPIC_DESC] == "d"
    assert obj[C.MQIA_MULTICAST] == C.MQMC_ONLY


def test_copy_errors(h):
    def copy(*params):
        return h.run(command(C.MQCMD_COPY_TOPIC, *params))

    frm, to = C.MQCACF_FROM_TOPIC_NAME, C.MQCACF_TO_TOPIC_NAME
    assert failed(copy(st(frm, "NOPE"), st(to, "X"), st(STRING, "x")), C.MQRC_UNKNOWN_OBJECT_NAME, frm)
    assert failed(copy(st(frm, "DEV.BASE.TOPIC"), st(to, "X")), C.MQRCCF_PARM_MISSING, STRING)
    assert failed(copy(st(frm, "DEV.BASE.TOPIC"), st(STRING, "x")), C.MQRCCF_PARM_MISSING, to)
    assert failed(copy(st(to, "X"), st(STRING, "x")), C.MQRCCF_PARM_MISSING, frm)
    assert failed(copy(st(frm, "DEV.BASE.TOPIC"), st(to, "X"), st(STRING, "dev/")),
                  C.MQRCCF_TOPICSTR_ALREADY_EXISTS, STRING)
    assert copy(st(frm, "DEV.BASE.TOPIC"), st(to, "X"), st(STRING, "x")).ok
    assert failed(copy(st(frm, "DEV.BASE.TOPIC"), st(to, "X"), st(STRING, "x")), C.MQRCCF_OBJECT_ALREADY_EXISTS, to)
    assert copy(st(frm, "DEV.BASE.TOPIC"), st(to, "X"), st(STRING, "x"), i(C.MQIACF_REPLACE, C.MQRP_YES)).ok
    assert failed(copy(st(frm, "DEV.BASE.TOPIC"), st(to, "X"), st(STRING, "y"), i(C.MQIACF_REPLACE, C.MQRP_YES)),
                  C.MQRCCF_ATTR_VALUE_FIXED, STRING)


@ENCODINGS
def test_delete(h, enc):
    assert create(h, "T1", "a/b", enc=enc).ok
    assert h.run(command(C.MQCMD_DELETE_TOPIC, st(NAME, "T1")), enc).ok
    assert failed(inquire(h, "T1", enc=enc), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert "a/b" not in h.registry.topics_by_string
    assert create(h, "T2", "a/b", enc=enc).ok  # the string is free again
    assert failed(h.run(command(C.MQCMD_DELETE_TOPIC, st(NAME, "T1")), enc), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(h.run(command(C.MQCMD_DELETE_TOPIC, st(NAME, "T*")), enc), C.MQRCCF_OBJECT_NAME_ERROR, NAME)
    assert failed(h.run(command(C.MQCMD_DELETE_TOPIC), enc), C.MQRCCF_PARM_MISSING, NAME)


def test_delete_base_topic_keeps_resolution(h):
    assert create(h, "T1", "a/b").ok
    assert h.run(command(C.MQCMD_DELETE_TOPIC, st(NAME, "SYSTEM.BASE.TOPIC"))).ok
    obj = status(h, "a/b").objects[0]
    assert obj[C.MQIA_DURABLE_SUB] == C.MQSUB_DURABLE_ALLOWED
    assert obj[C.MQCA_MODEL_DURABLE_Q] == "SYSTEM.DURABLE.MODEL.QUEUE"


# ---- Inquire Topic / Topic Names -------------------------------------------------------------------
def test_inquire_generic_selection_filter(h):
    for n in ("APP.A", "APP.B", "OTHER"):
        assert create(h, n, n.lower(), i(C.MQIA_DEF_PRIORITY, 1 if n == "APP.B" else 0)).ok
    r = inquire(h, "APP.*")
    assert [o[NAME] for o in r.objects] == ["APP.A", "APP.B"]
    r = inquire(h, "APP.A", il(C.MQIACF_TOPIC_ATTRS, STRING, C.MQCA_Q_MGR_DESC))  # another type's: skipped
    assert r.objects == [{NAME: "APP.A", C.MQIA_TOPIC_TYPE: C.MQTOPT_LOCAL, STRING: "app.a"}]
    r = inquire(h, "APP.A", il(C.MQIACF_TOPIC_ATTRS, STRING, 77_777))  # no attribute at all
    assert failed(r, C.MQRC_SELECTOR_ERROR)
    r = inquire(h, "*", P.CFIF(C.MQIA_DEF_PRIORITY, C.MQCFOP_EQUAL, 1))
    assert [o[NAME] for o in r.objects] == ["APP.B"]
    r = inquire(h, "*", P.CFSF(STRING, C.MQCFOP_LIKE, "app*", 0))
    assert [o[NAME] for o in r.objects] == ["APP.A", "APP.B"]
    assert len(inquire(h, "*", i(C.MQIA_TOPIC_TYPE, C.MQTOPT_ALL)).objects) == len(h.registry.topics)
    assert failed(inquire(h, "*", i(C.MQIA_TOPIC_TYPE, C.MQTOPT_CLUSTER)), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(inquire(h, "NONE*"), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(inquire(h, "NONE"), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(h.run(command(C.MQCMD_INQUIRE_TOPIC)), C.MQRCCF_PARM_MISSING, NAME)


@ENCODINGS
def test_inquire_topic_names(h, enc):
    assert create(h, "APP.A", "a", enc=enc).ok
    r = h.run(command(C.MQCMD_INQUIRE_TOPIC_NAMES, st(NAME, "APP.*")), enc)
    assert r.ok and [n.rstrip() for n in r.objects[0][C.MQCACF_TOPIC_NAMES]] == ["APP.A"]
    r = h.run(command(C.MQCMD_INQUIRE_TOPIC_NAMES, st(NAME, "NONE.*")), enc)
    assert r.ok and r.objects == [{C.MQCACF_TOPIC_NAMES: ()}]


# ---- Inquire Topic Status --------------------------------------------------------------------------
def test_status_tree_nodes(h):
    assert create(h, "SPORT", "sport").ok
    add_sub(h, "S1", "sport/football/results")
    add_sub(h, "WILD", "sport/#")  # wildcard subscriptions add no node
    add_sub(h, "CHARWILD", "sport/*", schema=C.MQWS_CHAR)
    r = status(h, "#")
    assert [o[STRING] for o in r.objects] == ["dev", "dev/", "sport", "sport/football", "sport/football/results"]
    r = status(h, "sport/+")
    assert [o[STRING] for o in r.objects] == ["sport/football"]
    assert failed(status(h, "sport/*"), C.MQRCCF_TOPIC_STRING_NOT_FOUND)  # "*" is not a wildcard here
    assert failed(status(h, "nothing"), C.MQRCCF_TOPIC_STRING_NOT_FOUND)
    assert failed(status(h, "nothing/#"), C.MQRCCF_TOPIC_STRING_NOT_FOUND)
    assert failed(h.run(command(C.MQCMD_INQUIRE_TOPIC_STATUS)), C.MQRCCF_PARM_MISSING, STRING)
    r = status(h, "#", i(C.MQIACF_TOPIC_STATUS_TYPE, 1234))
    assert failed(r, C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_TOPIC_STATUS_TYPE)


@ENCODINGS
def test_status_resolves_values(h, enc):
    assert create(h, "SPORT", "sport", i(C.MQIA_DEF_PRIORITY, 7), i(C.MQIA_DURABLE_SUB, C.MQSUB_DURABLE_INHIBITED),
                  st(C.MQCA_MODEL_DURABLE_Q, "SPORT.MODEL"), enc=enc).ok
    add_sub(h, "S1", "sport/football")
    add_sub(h, "S2", "sport/football")
    r = status(h, "sport/football", enc=enc)
    assert r.ok and len(r.messages) == 1
    obj = r.objects[0]
    assert obj[STRING] == "sport/football"
    assert obj[C.MQCA_ADMIN_TOPIC_NAME] == ""
    assert obj[C.MQIA_DEF_PRIORITY] == 7  # from SPORT
    assert obj[C.MQIA_DURABLE_SUB] == C.MQSUB_DURABLE_INHIBITED
    assert obj[C.MQCA_MODEL_DURABLE_Q] == "SPORT.MODEL"
    assert obj[C.MQCA_MODEL_NON_DURABLE_Q] == "SYSTEM.NDURABLE.MODEL.QUEUE"  # from SYSTEM.BASE.TOPIC
    assert obj[C.MQIA_TOPIC_DEF_PERSISTENCE] == C.MQPER_NOT_PERSISTENT
    assert obj[C.MQIA_DEF_PUT_RESPONSE_TYPE] == C.MQPRT_SYNC_RESPONSE
    assert obj[C.MQIA_INHIBIT_PUB] == C.MQTA_PUB_ALLOWED and obj[C.MQIA_INHIBIT_SUB] == C.MQTA_SUB_ALLOWED
    assert obj[C.MQIA_PM_DELIVERY] == C.MQDLV_ALL_DUR and obj[C.MQIA_NPM_DELIVERY] == C.MQDLV_ALL_AVAIL
    assert obj[C.MQIA_PUB_SCOPE] == C.MQSCOPE_ALL and obj[C.MQIA_SUB_SCOPE] == C.MQSCOPE_ALL
    assert obj[C.MQIA_USE_DEAD_LETTER_Q] == C.MQUSEDLQ_YES and obj[C.MQIA_MULTICAST] == C.MQMC_DISABLED
    assert obj[C.MQIA_SUB_COUNT] == 2 and obj[C.MQIA_PUB_COUNT] == 0
    assert obj[C.MQIACF_RETAINED_PUBLICATION] == 0
    as_parent = {C.MQSUB_DURABLE_AS_PARENT, C.MQPRI_PRIORITY_AS_PARENT, C.MQPER_PERSISTENCE_AS_PARENT}
    assert obj[C.MQIA_DEF_PRIORITY] not in as_parent
    top = status(h, "sport", enc=enc).objects[0]
    assert top[C.MQCA_ADMIN_TOPIC_NAME] == "SPORT" and top[C.MQIA_SUB_COUNT] == 0
    r = status(h, "sport", il(C.MQIACF_TOPIC_STATUS_ATTRS, C.MQIA_SUB_COUNT, C.MQBACF_SUB_ID), enc=enc)
    assert r.objects == [{STRING: "sport", C.MQIA_SUB_COUNT: 0}]


def test_status_follows_change(h):
    assert create(h, "SPORT", "sport").ok
    assert status(h, "sport").objects[0][C.MQIA_DEF_PRIORITY] == 0
    assert h.run(command(C.MQCMD_CHANGE_TOPIC, st(NAME, "SYSTEM.BASE.TOPIC"), i(C.MQIA_DEF_PRIORITY, 3))).ok
    assert status(h, "sport").objects[0][C.MQIA_DEF_PRIORITY] == 3
    assert h.run(command(C.MQCMD_CHANGE_TOPIC, st(NAME, "SPORT"), i(C.MQIA_DEF_PRIORITY, 5))).ok
    assert status(h, "sport").objects[0][C.MQIA_DEF_PRIORITY] == 5


@ENCODINGS
def test_status_sub(h, clock, enc):
    s1 = add_sub(h, "S1", "news/uk", message_count=5, last_message=T0 + 30)
    s2 = add_sub(h, "S2", "news/uk", durable=C.MQSUB_DURABLE_NO, sub_type=C.MQSUBTYPE_API)
    add_sub(h, "S3", "news/#")
    r = status(h, "news/uk", i(C.MQIACF_TOPIC_STATUS_TYPE, C.MQIACF_TOPIC_SUB), enc=enc)
    assert r.ok and len(r.messages) == 2
    by_id = {o[C.MQBACF_SUB_ID]: o for o in r.objects}
    assert set(by_id) == {s1.sub_id, s2.sub_id}
    o1, o2 = by_id[s1.sub_id], by_id[s2.sub_id]
    assert o1[STRING] == "news/uk" and o1[C.MQCACF_SUB_USER_ID] == "app"
    assert o1[C.MQIACF_DURABLE_SUBSCRIPTION] == C.MQSUB_DURABLE_YES and o1[C.MQIACF_SUB_TYPE] == C.MQSUBTYPE_ADMIN
    assert o1[C.MQIACF_MESSAGE_COUNT] == 5
    assert o1[C.MQCACF_LAST_MSG_DATE] == mq_date(T0 + 30)
    assert o1[C.MQCACF_LAST_MSG_TIME] == mq_time(T0 + 30).replace(".", ":")
    assert o1[C.MQCA_RESUME_DATE] == mq_date(T0) and o1[C.MQCA_RESUME_TIME] == mq_time(T0).replace(".", ":")
    assert o1[C.MQBACF_CONNECTION_ID] == bytes(24)
    assert o2[C.MQIACF_DURABLE_SUBSCRIPTION] == C.MQSUB_DURABLE_NO and o2[C.MQIACF_SUB_TYPE] == C.MQSUBTYPE_API
    assert o2[C.MQCACF_LAST_MSG_DATE] == "" and o2[C.MQCACF_LAST_MSG_TIME] == ""  # never had a message
    raw = {p.parameter: p.value for p in r.messages[0].parameters}
    assert len(raw[C.MQCACF_LAST_MSG_DATE]) == 12 and len(raw[C.MQCACF_SUB_USER_ID]) == 12
    # a node without subscriptions answers with its TopicString only
    r = status(h, "news", i(C.MQIACF_TOPIC_STATUS_TYPE, C.MQIACF_TOPIC_SUB), enc=enc)
    assert r.ok and r.objects == [{STRING: "news"}]
    # selection
    r = status(h, "news/uk", i(C.MQIACF_TOPIC_STATUS_TYPE, C.MQIACF_TOPIC_SUB),
               il(C.MQIACF_TOPIC_STATUS_ATTRS, C.MQIACF_MESSAGE_COUNT, C.MQIA_SUB_COUNT), enc=enc)
    assert sorted(r.objects, key=lambda o: o[C.MQIACF_MESSAGE_COUNT]) == [
        {STRING: "news/uk", C.MQBACF_SUB_ID: s2.sub_id, C.MQIACF_MESSAGE_COUNT: 0},
        {STRING: "news/uk", C.MQBACF_SUB_ID: s1.sub_id, C.MQIACF_MESSAGE_COUNT: 5},
    ]
    r = status(h, "news/#", i(C.MQIACF_TOPIC_STATUS_TYPE, C.MQIACF_TOPIC_SUB), enc=enc)
    assert [o[STRING] for o in r.objects] == ["news", "news/uk", "news/uk"]


@ENCODINGS
def test_status_pub(h, enc):
    add_sub(h, "S1", "news/uk")
    r = status(h, "news/#", i(C.MQIACF_TOPIC_STATUS_TYPE, C.MQIACF_TOPIC_PUB), enc=enc)
    assert r.ok and r.objects == [{STRING: "news"}, {STRING: "news/uk"}]
    r = status(h, "none", i(C.MQIACF_TOPIC_STATUS_TYPE, C.MQIACF_TOPIC_PUB), enc=enc)
    assert failed(r, C.MQRCCF_TOPIC_STRING_NOT_FOUND)


def test_status_persists_across_reopen(tmp_path, clock):
    h = Harness(tmp_path, clock=clock)
    assert create(h, "KEEP", "keep/me", i(C.MQIA_DEF_PRIORITY, 2), st(C.MQCA_TOPIC_DESC, "kept")).ok
    assert h.run(command(C.MQCMD_CHANGE_TOPIC, st(NAME, "KEEP"), i(C.MQIA_INHIBIT_PUB, C.MQTA_PUB_INHIBITED))).ok
    h.close()
    h = Harness(tmp_path, clock=clock)
    obj = inquire(h, "KEEP").objects[0]
    assert obj[C.MQIA_DEF_PRIORITY] == 2 and obj[C.MQCA_TOPIC_DESC] == "kept"
    assert obj[C.MQIA_INHIBIT_PUB] == C.MQTA_PUB_INHIBITED
    assert status(h, "keep/me").objects[0][C.MQCA_ADMIN_TOPIC_NAME] == "KEEP"
    assert failed(create(h, "OTHER", "keep/me"), C.MQRCCF_TOPICSTR_ALREADY_EXISTS, STRING)
    h.close()


# ---- DURSUB(NO) refuses durable subscriptions (the subscription command's check) -----------------
def test_durable_subscription_refused_on_dursub_no(h):
    assert create(h, "NODUR", "nodur", i(C.MQIA_DURABLE_SUB, C.MQSUB_DURABLE_INHIBITED)).ok
    r = h.run(command(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "S.NODUR"), st(C.MQCA_TOPIC_NAME, "NODUR"),
                      i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED)))
    assert r.reason == C.MQRCCF_DURABILITY_NOT_ALLOWED
    # below a DURSUB(NO) node, resolved through AS_PARENT
    r = h.run(command(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "S.NODUR2"),
                      st(C.MQCA_TOPIC_STRING, "nodur/deeper"), i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED)))
    assert r.reason == C.MQRCCF_DURABILITY_NOT_ALLOWED
    assert h.run(command(C.MQCMD_CHANGE_TOPIC, st(NAME, "NODUR"), i(C.MQIA_DURABLE_SUB, C.MQSUB_DURABLE_ALLOWED))).ok
    r = h.run(command(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "S.NODUR"), st(C.MQCA_TOPIC_NAME, "NODUR"),
                      i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED)))
    assert r.ok
