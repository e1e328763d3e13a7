"""Subscription commands through real PCF bytes in both encodings (docs/compat.md (part 1))."""

from __future__ import annotations

import dataclasses
import re
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.messaging.queues import Message
from qmlite.registry.objects.definitions import Subscription, Topic, mq_date, mq_time
from tests.support.pcfkit import BE, Clock, Harness, LE, T0, bs, command, i, il, st

ENCODINGS = pytest.mark.parametrize("enc", [LE, BE], ids=["LE", "BE"])

CREATE, COPY, CHANGE = C.MQCMD_CREATE_SUBSCRIPTION, C.MQCMD_COPY_SUBSCRIPTION, C.MQCMD_CHANGE_SUBSCRIPTION
DELETE, INQ, STATUS = C.MQCMD_DELETE_SUBSCRIPTION, C.MQCMD_INQUIRE_SUBSCRIPTION, C.MQCMD_INQUIRE_SUB_STATUS

NAME, SUBID, TOPIC, TOPICOBJ = C.MQCACF_SUB_NAME, C.MQBACF_SUB_ID, C.MQCA_TOPIC_STRING, C.MQCA_TOPIC_NAME
DEST, DESTCLAS, DESTQMGR, DESTCORL = (C.MQCACF_DESTINATION, C.MQIACF_DESTINATION_CLASS,
                                      C.MQCACF_DESTINATION_Q_MGR, C.MQBACF_DESTINATION_CORREL_ID)


# ---- helpers -------------------------------------------------------------------------------------
def create(h, name, *params, enc=LE, topic="price/fruit", dest="DEV.QUEUE.1"):
    base = [st(NAME, name)]
    if topic is not None:
        base.append(st(TOPIC, topic))
    if dest is not None:
        base.append(st(DEST, dest))
    return h.run(command(CREATE, *base, *params), enc)


def create_ok(h, name, *params, **kw):
    reply = create(h, name, *params, **kw)
    assert reply.ok, reply.messages
    return reply


def inquire(h, name, *params, enc=LE):
    return h.run(command(INQ, st(NAME, name), *params), enc)


def one(h, name, *params, enc=LE) -> dict:
    reply = inquire(h, name, *params, enc=enc)
    assert reply.ok, reply.messages
    assert len(reply.objects) == 1
    return reply.objects[0]


def raw(reply, pid, n=0):
    """The value of ``pid`` in response ``n`` exactly as it travelled (padding included)."""
    return reply.messages[n].get(pid).value


def fails(reply, reason, parameter=None):
    assert not reply.ok
    assert reply.reason == reason, (reply.reason, reply.messages)
    assert len(reply.messages) == 2
    assert reply.messages[0].header.Control == C.MQCFC_NOT_LAST
    assert reply.messages[1].header.Reason == C.MQRCCF_COMMAND_FAILED
    assert reply.error_parameter() == parameter


def snapshot(h):
    reg = h.registry
    return ({n: dataclasses.astuple(s) for n, s in reg.subs.items()},
            {n: dataclasses.astuple(q) for n, q in reg.queues.items()},
            {k: v.name for k, v in reg.subs_by_id.items()})


def put_message(h, queue):
    reg = h.registry
    reg.messages.put(queue, Message(md=None, data=b"pub", priority=0, msg_id=reg.ids.msg_id(),
                                    correl_id=bytes(24), put_time=reg.now()))


# ---- the reference example and the structure traps -----------------------------------------------
EXAMPLE = bytes.fromhex(
    "10000000 24000000 03000000 b1000000 01000000 01000000 00000000 00000000 04000000"
    "04000000 1c000000 500c0000 00000000 05000000 5355422e 41000000"
    "04000000 20000000 2e080000 00000000 0b000000 70726963 652f6672 75697400"
    "03000000 10000000 f9040000 01000000"
    "03000000 10000000 ee030000 01000000".replace(" ", ""))


def test_reference_example_bytes_create_managed_sub(h):
    """docs/reference/pcf.md 11.1: the 128 bytes ibmmq 2.1.2 sends; twice, since it says REPLACE."""
    assert len(EXAMPLE) == 128
    for _ in range(2):
        out = h.engine.execute_bytes(EXAMPLE, 546, 0, h.requester)
        assert len(out) == 1 and out[0].header.CompCode == 0 and out[0].header.Control == C.MQCFC_LAST
    reply = inquire(h, "SUB.A")
    sub = reply.objects[0]
    assert sub[TOPIC] == "price/fruit"
    assert sub[DESTCLAS] == C.MQDC_MANAGED
    assert re.fullmatch(r"SYSTEM\.MANAGED\.DURABLE\.[0-9A-F]{16}", sub[DEST])
    assert len(raw(reply, DEST)) == 48
    queue = h.registry.queues[sub[DEST]]
    assert queue.qtype == C.MQQT_LOCAL and queue.definition_type == C.MQQDT_PERMANENT_DYNAMIC
    model = h.registry.queues["SYSTEM.DURABLE.MODEL.QUEUE"]
    assert (queue.max_depth, queue.def_input_open_option) == (model.max_depth, model.def_input_open_option)
    managed = [q for q in h.registry.queues if q.startswith("SYSTEM.MANAGED.DURABLE.")]
    assert managed == [sub[DEST]]  # the REPLACE kept the one managed queue


@ENCODINGS
def test_subid_as_mqcfst_is_refused(h, enc):
    create_ok(h, "S1", enc=enc)
    sub_id = one(h, "S1")[SUBID]
    as_string = sub_id.decode("latin-1")
    for cmd in (INQ, DELETE, CHANGE, STATUS):
        fails(h.run(command(cmd, st(SUBID, as_string)), enc), C.MQRCCF_CFST_PARM_ID_ERROR, SUBID)
    assert "S1" in h.registry.subs


@ENCODINGS
def test_mqcft_command_version_1_is_accepted(h, enc):
    reply = h.run(command(CREATE, st(NAME, "V1.SUB"), st(TOPIC, "v1/topic"), st(DEST, "DEV.QUEUE.2"),
                          cfh_type=C.MQCFT_COMMAND, version=1), enc)
    assert reply.ok and len(reply.messages) == 1
    reply = h.run(command(INQ, st(NAME, "V1.SUB"), cfh_type=C.MQCFT_COMMAND, version=1), enc)
    assert reply.ok and reply.objects[0][TOPIC] == "v1/topic"
    assert reply.messages[0].header.Version == 3


@ENCODINGS
@pytest.mark.parametrize("cmd", [CREATE, COPY, CHANGE, DELETE, INQ, STATUS])
def test_unknown_parameter_structures(h, enc, cmd):
    fails(h.run(command(cmd, i(C.MQCA_Q_NAME, 1)), enc), C.MQRCCF_CFIN_PARM_ID_ERROR, C.MQCA_Q_NAME)
    fails(h.run(command(cmd, st(C.MQCACF_COMMAND_SCOPE, "QM1")), enc), C.MQRCCF_CFST_PARM_ID_ERROR,
          C.MQCACF_COMMAND_SCOPE)


# ---- Create and the full Inquire response --------------------------------------------------------
@ENCODINGS
def test_create_then_inquire_every_attribute(h, clock, enc):
    create_ok(h, "FULL.SUB", enc=enc, dest="DEV.QUEUE.1")
    reply = inquire(h, "FULL.SUB", il(C.MQIACF_SUB_ATTRS, C.MQIACF_ALL), enc=enc)
    assert len(reply.messages) == 1
    sub = reply.objects[0]
    expected_ids = {SUBID, NAME, TOPIC, TOPICOBJ, DEST, DESTQMGR, DESTCLAS, DESTCORL, C.MQIACF_DURABLE_SUBSCRIPTION,
                    C.MQIACF_SUB_TYPE, C.MQCACF_SUB_USER_ID, C.MQCA_CREATION_DATE, C.MQCA_CREATION_TIME,
                    C.MQCA_ALTERATION_DATE, C.MQCA_ALTERATION_TIME, C.MQIACF_EXPIRY, C.MQBACF_ACCOUNTING_TOKEN,
                    C.MQCACF_APPL_IDENTITY_DATA, C.MQIACF_PUB_PRIORITY, C.MQIACF_PUBSUB_PROPERTIES,
                    C.MQIACF_REQUEST_ONLY, C.MQCACF_SUB_SELECTOR, C.MQIACF_SELECTOR_TYPE, C.MQIACF_SUB_LEVEL,
                    C.MQIACF_SUBSCRIPTION_SCOPE, C.MQCACF_SUB_USER_DATA, C.MQIACF_VARIABLE_USER_ID,
                    C.MQIACF_WILDCARD_SCHEMA}
    assert set(sub) == expected_ids and len(expected_ids) == 28  # the MS03 list (docs/reference/pcf.md 9.1)
    sub_id = sub[SUBID]
    assert len(sub_id) == 24 and sub_id[:16] == b"AMQ QM1         "
    assert sub[DESTCORL] == sub_id
    assert sub[NAME] == "FULL.SUB" and raw(reply, NAME) == "FULL.SUB"
    assert raw(reply, TOPIC) == "price/fruit"
    assert raw(reply, TOPICOBJ) == " " * 48
    assert raw(reply, DEST) == "DEV.QUEUE.1".ljust(48)
    assert raw(reply, DESTQMGR) == "QM1".ljust(48)
    assert sub[DESTCLAS] == C.MQDC_PROVIDED
    assert sub[C.MQIACF_DURABLE_SUBSCRIPTION] == C.MQSUB_DURABLE_YES
    assert sub[C.MQIACF_SUB_TYPE] == C.MQSUBTYPE_ADMIN
    assert raw(reply, C.MQCACF_SUB_USER_ID) == "admin".ljust(12)  # the requester
    for pid in (C.MQCA_CREATION_DATE, C.MQCA_ALTERATION_DATE):
        value = raw(reply, pid)
        assert len(value) == 12 and re.fullmatch(r"\d{4}-\d\d-\d\d  ", value)
        assert value.rstrip() == mq_date(clock.t)
    for pid in (C.MQCA_CREATION_TIME, C.MQCA_ALTERATION_TIME):
        value = raw(reply, pid)
        assert re.fullmatch(r"\d\d\.\d\d\.\d\d", value) and value == mq_time(clock.t)
    # SYSTEM.DEFAULT.SUB's defaults (docs/reference/pcf.md 10.1)
    assert sub[C.MQIACF_EXPIRY] == C.MQEI_UNLIMITED
    assert sub[C.MQIACF_PUBSUB_PROPERTIES] == C.MQPSPROP_MSGPROP
    assert sub[C.MQIACF_PUB_PRIORITY] == C.MQPRI_PRIORITY_AS_PUBLISHED
    assert sub[C.MQIACF_REQUEST_ONLY] == C.MQRU_PUBLISH_ALL
    assert sub[C.MQIACF_SUB_LEVEL] == 1
    assert sub[C.MQIACF_SUBSCRIPTION_SCOPE] == C.MQTSCOPE_ALL
    assert sub[C.MQIACF_VARIABLE_USER_ID] == C.MQVU_ANY_USER
    assert sub[C.MQIACF_WILDCARD_SCHEMA] == C.MQWS_TOPIC
    assert sub[C.MQBACF_ACCOUNTING_TOKEN] == bytes(32)
    assert raw(reply, C.MQCACF_APPL_IDENTITY_DATA) == " " * 32
    assert raw(reply, C.MQCACF_SUB_SELECTOR) == "" and sub[C.MQIACF_SELECTOR_TYPE] == C.MQSELTYPE_NONE
    assert raw(reply, C.MQCACF_SUB_USER_DATA) == ""
    # omitted SubscriptionAttrs means all of them too
    assert inquire(h, "FULL.SUB", enc=enc).objects == [sub]


@ENCODINGS
def test_create_with_every_optional_parameter(h, enc):
    reply = h.run(command(
        CREATE, st(NAME, "ALL.PARMS"), st(TOPICOBJ, "DEV.BASE.TOPIC"), st(TOPIC, "x/*"),
        st(DEST, "DEV.QUEUE.3"), i(DESTCLAS, C.MQDC_PROVIDED), bs(DESTCORL, b"CORREL"),
        st(DESTQMGR, "QM1"), i(C.MQIACF_EXPIRY, 36000), bs(C.MQBACF_ACCOUNTING_TOKEN, b"\x01\x02"),
        st(C.MQCACF_APPL_IDENTITY_DATA, "appid"), i(C.MQIACF_PUB_PRIORITY, 7),
        i(C.MQIACF_PUBSUB_PROPERTIES, C.MQPSPROP_RFH2), st(C.MQCACF_SUB_SELECTOR, "colour = 'red'"),
        i(C.MQIACF_SUB_LEVEL, 9), i(C.MQIACF_SUBSCRIPTION_SCOPE, C.MQTSCOPE_QMGR),
        st(C.MQCACF_SUB_USER_ID, "alice"), st(C.MQCACF_SUB_USER_DATA, "my data"),
        i(C.MQIACF_VARIABLE_USER_ID, C.MQVU_FIXED_USER), i(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_CHAR),
        i(C.MQIACF_REQUEST_ONLY, C.MQRU_PUBLISH_ON_REQUEST), i(C.MQIACF_REPLACE, C.MQRP_NO)), enc)
    assert reply.ok, reply.messages
    reply = inquire(h, "ALL.PARMS", enc=enc)
    sub = reply.objects[0]
    assert sub[TOPIC] == "dev//x/*"  # DEV.BASE.TOPIC is "dev/"; the object string, "/", TopicString
    assert raw(reply, TOPICOBJ) == "DEV.BASE.TOPIC".ljust(48)
    assert sub[DESTCORL] == b"CORREL" + bytes(18)
    assert sub[C.MQBACF_ACCOUNTING_TOKEN] == b"\x01\x02" + bytes(30)
    assert raw(reply, C.MQCACF_APPL_IDENTITY_DATA) == "appid".ljust(32)
    assert raw(reply, C.MQCACF_SUB_USER_ID) == "alice".ljust(12)
    assert raw(reply, C.MQCACF_SUB_SELECTOR) == "colour = 'red'"
    assert raw(reply, C.MQCACF_SUB_USER_DATA) == "my data"
    assert (sub[C.MQIACF_EXPIRY], sub[C.MQIACF_PUB_PRIORITY], sub[C.MQIACF_PUBSUB_PROPERTIES]) == (
        36000, 7, C.MQPSPROP_RFH2)
    assert sub[C.MQIACF_SELECTOR_TYPE] == C.MQSELTYPE_STANDARD
    assert (sub[C.MQIACF_SUB_LEVEL], sub[C.MQIACF_SUBSCRIPTION_SCOPE], sub[C.MQIACF_VARIABLE_USER_ID]) == (
        9, C.MQTSCOPE_QMGR, C.MQVU_FIXED_USER)
    assert sub[C.MQIACF_WILDCARD_SCHEMA] == C.MQWS_CHAR
    assert sub[C.MQIACF_REQUEST_ONLY] == C.MQRU_PUBLISH_ON_REQUEST
    defined = inquire(h, "ALL.PARMS", i(C.MQIA_DISPLAY_TYPE, C.MQDOPT_DEFINED), enc=enc).objects[0]
    assert defined[TOPIC] == "x/*"


@ENCODINGS
def test_remote_destination_qmgr_is_not_checked(h, enc):
    create_ok(h, "REMOTE", st(DESTQMGR, "OTHER.QM"), dest="NOT.HERE", enc=enc)
    assert one(h, "REMOTE", enc=enc)[DESTQMGR] == "OTHER.QM"


def test_defaults_follow_system_default_sub(h):
    reply = h.run(command(CHANGE, st(NAME, "SYSTEM.DEFAULT.SUB"), i(C.MQIACF_PUBSUB_PROPERTIES, C.MQPSPROP_NONE),
                          i(C.MQIACF_PUB_PRIORITY, 4), i(C.MQIACF_EXPIRY, 600)))
    assert reply.ok
    create_ok(h, "AFTER")
    sub = one(h, "AFTER")
    assert (sub[C.MQIACF_PUBSUB_PROPERTIES], sub[C.MQIACF_PUB_PRIORITY], sub[C.MQIACF_EXPIRY]) == (
        C.MQPSPROP_NONE, 4, 600)


def test_subids_are_unique_and_destination_correl_id_defaults_to_them(h):
    for n in range(5):
        create_ok(h, f"U.{n}")
    subs = inquire(h, "U.*").objects
    ids = [s[SUBID] for s in subs]
    assert len(set(ids)) == 5
    assert all(s[DESTCORL] == s[SUBID] for s in subs)


# ---- Create errors -------------------------------------------------------------------------------
@ENCODINGS
def test_create_missing_parameters(h, enc):
    fails(h.run(command(CREATE, st(TOPIC, "a"), st(DEST, "DEV.QUEUE.1")), enc), C.MQRCCF_PARM_MISSING, NAME)
    fails(create(h, "M1", topic=None, enc=enc), C.MQRCCF_PARM_MISSING, TOPIC)
    fails(create(h, "M1", dest=None, enc=enc), C.MQRCCF_PARM_MISSING, DEST)
    fails(create(h, "M1", dest="", enc=enc), C.MQRCCF_PARM_MISSING, DEST)


@ENCODINGS
def test_create_name_errors(h, enc):
    fails(create(h, "", enc=enc), C.MQRCCF_SUB_NAME_ERROR, NAME)
    fails(create(h, "A*", enc=enc), C.MQRCCF_PARM_SYNTAX_ERROR, NAME)
    fails(create(h, "A*B", enc=enc), C.MQRCCF_PARM_SYNTAX_ERROR, NAME)


@ENCODINGS
def test_create_existing_without_replace(h, enc):
    create_ok(h, "DUP", enc=enc)
    fails(create(h, "DUP", enc=enc), C.MQRCCF_SUB_ALREADY_EXISTS)
    fails(create(h, "DUP", i(C.MQIACF_REPLACE, C.MQRP_NO), enc=enc), C.MQRCCF_SUB_ALREADY_EXISTS)


BAD_VALUES = [
    (DESTCLAS, 7), (DESTCLAS, 0), (C.MQIACF_PUB_PRIORITY, 12), (C.MQIACF_PUB_PRIORITY, -2),
    (C.MQIACF_SUB_LEVEL, 10), (C.MQIACF_SUB_LEVEL, -1), (C.MQIACF_EXPIRY, 0), (C.MQIACF_EXPIRY, -5),
    (C.MQIACF_PUBSUB_PROPERTIES, 9), (C.MQIACF_SUBSCRIPTION_SCOPE, 3), (C.MQIACF_VARIABLE_USER_ID, 0),
    (C.MQIACF_WILDCARD_SCHEMA, 0), (C.MQIACF_REQUEST_ONLY, 3), (C.MQIACF_REPLACE, 2),
]


@ENCODINGS
@pytest.mark.parametrize("pid, value", BAD_VALUES)
def test_create_bad_values(h, enc, pid, value):
    fails(create(h, "BAD", i(pid, value), enc=enc), C.MQRCCF_PARM_VALUE_ERROR, pid)
    assert "BAD" not in h.registry.subs


@ENCODINGS
@pytest.mark.parametrize("pid, length", [
    (NAME, 10241), (TOPICOBJ, 49), (DESTQMGR, 49), (C.MQCACF_SUB_USER_ID, 13),
    (C.MQCACF_APPL_IDENTITY_DATA, 33), (C.MQCACF_SUB_SELECTOR, 10241), (C.MQCACF_SUB_USER_DATA, 10241),
])
def test_create_strings_too_long(h, enc, pid, length):
    params = [st(pid, "X" * length)] + ([] if pid == NAME else [st(NAME, "LONG")])
    reply = h.run(command(CREATE, *params, st(TOPIC, "t"), st(DEST, "DEV.QUEUE.1")), enc)
    fails(reply, C.MQRCCF_CFST_STRING_LENGTH_ERR, pid)


@ENCODINGS
def test_create_byte_strings_too_long(h, enc):
    fails(create(h, "B", bs(DESTCORL, bytes(25)), enc=enc), C.MQRCCF_CFBS_STRING_LENGTH_ERR, DESTCORL)
    fails(create(h, "B", bs(C.MQBACF_ACCOUNTING_TOKEN, bytes(33)), enc=enc), C.MQRCCF_CFBS_STRING_LENGTH_ERR,
          C.MQBACF_ACCOUNTING_TOKEN)


@ENCODINGS
def test_create_duplicate_parameter(h, enc):
    fails(create(h, "D", st(DEST, "DEV.QUEUE.2"), enc=enc), C.MQRCCF_CFST_DUPLICATE_PARM, DEST)
    fails(create(h, "D", i(DESTCLAS, 2), i(DESTCLAS, 2), enc=enc), C.MQRCCF_CFIN_DUPLICATE_PARM, DESTCLAS)


@ENCODINGS
def test_create_does_not_take_a_subid(h, enc):
    fails(create(h, "WITHID", bs(SUBID, bytes(24)), enc=enc), C.MQRCCF_CFBS_PARM_ID_ERROR, SUBID)


@ENCODINGS
def test_create_object_and_destination_errors(h, enc):
    fails(create(h, "E", st(TOPICOBJ, "NO.SUCH.TOPIC"), enc=enc), C.MQRC_UNKNOWN_OBJECT_NAME, TOPICOBJ)
    fails(create(h, "E", dest="NO.SUCH.QUEUE", enc=enc), C.MQRC_UNKNOWN_OBJECT_NAME, DEST)
    fails(create(h, "E", st(DESTQMGR, "QM1"), dest="NO.SUCH.QUEUE", enc=enc), C.MQRC_UNKNOWN_OBJECT_NAME, DEST)
    fails(create(h, "E", i(DESTCLAS, C.MQDC_MANAGED), enc=enc), C.MQRCCF_PARM_CONFLICT, DEST)
    assert "E" not in h.registry.subs


@ENCODINGS
@pytest.mark.parametrize("topic, extra", [
    ("a\x00b", []),
    ("AB%C", [i(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_CHAR)]),
    ("AB%", [i(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_CHAR)]),
    ("x" * 10236, [st(TOPICOBJ, "DEV.BASE.TOPIC")]),  # "dev/" + "/" + 10236 > 10240
])
def test_create_bad_topic_string(h, enc, topic, extra):
    fails(create(h, "T", *extra, topic=topic, enc=enc), C.MQRC_TOPIC_STRING_ERROR, TOPIC)


def test_create_topic_object_alone_and_percent_ok_in_topic_schema(h):
    create_ok(h, "OBJ.ONLY", st(TOPICOBJ, "DEV.BASE.TOPIC"), topic=None)
    assert one(h, "OBJ.ONLY")[TOPIC] == "dev/"
    create_ok(h, "PCT", topic="AB%C")  # '%' is only special under WSCHEMA(CHAR)


@ENCODINGS
def test_durable_subscriptions_inhibited(h, enc):
    h.registry.put_topic(Topic("NODUR.TOPIC", "nodur", durable_subscriptions=C.MQSUB_DURABLE_INHIBITED))
    h.registry.commit()
    fails(create(h, "ND", st(TOPICOBJ, "NODUR.TOPIC"), topic=None, enc=enc), C.MQRCCF_DURABILITY_NOT_ALLOWED,
          TOPIC)
    fails(create(h, "ND", topic="nodur/below/it", enc=enc), C.MQRCCF_DURABILITY_NOT_ALLOWED, TOPIC)
    fails(create(h, "ND", i(DESTCLAS, C.MQDC_MANAGED), topic="nodur/#", dest=None, enc=enc),
          C.MQRCCF_DURABILITY_NOT_ALLOWED, TOPIC)
    assert not [q for q in h.registry.queues if q.startswith("SYSTEM.MANAGED")]
    create_ok(h, "ND", topic="other/#", enc=enc)  # a wildcard level above the object is not under it
    create_ok(h, "ND2", topic="nodurable", enc=enc)


@ENCODINGS
def test_subscriptions_inhibited(h, enc):
    h.registry.put_topic(Topic("NOSUB.TOPIC", "nosub", inhibit_subscriptions=C.MQTA_SUB_INHIBITED))
    h.registry.commit()
    fails(create(h, "NS", topic="nosub/x", enc=enc), C.MQRC_SUB_INHIBITED, TOPIC)


def test_managed_queue_comes_from_the_topics_model_queue(h):
    h.registry.put_queue(dataclasses.replace(h.registry.queues["SYSTEM.DURABLE.MODEL.QUEUE"],
                                             name="MY.MODEL", max_depth=42))
    h.registry.put_topic(Topic("MODELLED", "modelled", durable_model_q="MY.MODEL"))
    h.registry.commit()
    create_ok(h, "MOD", i(DESTCLAS, C.MQDC_MANAGED), topic="modelled/+/x", dest=None)
    queue = h.registry.queues[one(h, "MOD")[DEST]]
    assert queue.max_depth == 42 and queue.qtype == C.MQQT_LOCAL
    h.registry.put_topic(Topic("BROKEN", "broken", durable_model_q="NO.SUCH.MODEL"))
    h.registry.commit()
    fails(create(h, "MOD2", i(DESTCLAS, C.MQDC_MANAGED), topic="broken", dest=None), C.MQRC_UNKNOWN_OBJECT_NAME)


# ---- Replace -------------------------------------------------------------------------------------
@ENCODINGS
def test_replace_keeps_identity_and_rebuilds_from_defaults(h, clock, enc):
    create_ok(h, "REP", i(C.MQIACF_PUB_PRIORITY, 5), st(C.MQCACF_SUB_USER_DATA, "old"), enc=enc)
    before = one(h, "REP", enc=enc)
    clock.t += 3600 * 24 + 61
    create_ok(h, "REP", i(C.MQIACF_REPLACE, C.MQRP_YES), st(C.MQCACF_APPL_IDENTITY_DATA, "new"),
              dest="DEV.QUEUE.2", enc=enc)
    after = one(h, "REP", enc=enc)
    assert after[SUBID] == before[SUBID] and after[DESTCORL] == before[SUBID]
    assert after[C.MQCA_CREATION_DATE] == before[C.MQCA_CREATION_DATE]
    assert after[C.MQCA_CREATION_TIME] == before[C.MQCA_CREATION_TIME]
    assert after[C.MQCA_ALTERATION_DATE] == mq_date(clock.t)
    assert after[C.MQCA_ALTERATION_TIME] == mq_time(clock.t)
    assert after[DEST] == "DEV.QUEUE.2"
    assert after[C.MQCACF_APPL_IDENTITY_DATA] == "new"
    assert after[C.MQIACF_PUB_PRIORITY] == C.MQPRI_PRIORITY_AS_PUBLISHED  # back to the default
    assert after[C.MQCACF_SUB_USER_DATA] == ""


@ENCODINGS
@pytest.mark.parametrize("param, reason", [
    (st(TOPIC, "price/veg"), C.MQRC_TOPIC_NOT_ALTERABLE),
    (i(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_CHAR), C.MQRC_TOPIC_NOT_ALTERABLE),
    (st(C.MQCACF_SUB_SELECTOR, "a = 1"), C.MQRC_SELECTOR_NOT_ALTERABLE),
    (i(C.MQIACF_SUB_LEVEL, 2), C.MQRC_SUBLEVEL_NOT_ALTERABLE),
    (i(C.MQIACF_SUBSCRIPTION_SCOPE, C.MQTSCOPE_QMGR), C.MQRCCF_PARM_CONFLICT),
])
def test_replace_cannot_alter_fixed_attributes(h, enc, param, reason):
    create_ok(h, "FIX", enc=enc)
    before = snapshot(h)
    topic = "price/veg" if param.parameter == TOPIC else "price/fruit"
    reply = create(h, "FIX", i(C.MQIACF_REPLACE, 1), *([] if param.parameter == TOPIC else [param]),
                   topic=topic, enc=enc)
    fails(reply, reason, param.parameter)
    assert snapshot(h) == before


@ENCODINGS
def test_replace_managed_keeps_queue_and_refuses_class_change(h, enc):
    create_ok(h, "RM", i(DESTCLAS, C.MQDC_MANAGED), dest=None, enc=enc)
    queue = one(h, "RM")[DEST]
    put_message(h, queue)
    create_ok(h, "RM", i(DESTCLAS, C.MQDC_MANAGED), i(C.MQIACF_REPLACE, 1), dest=None, enc=enc)
    assert one(h, "RM")[DEST] == queue and h.registry.messages.depth(queue) == 1
    fails(create(h, "RM", i(C.MQIACF_REPLACE, 1), enc=enc), C.MQRC_DEST_CLASS_NOT_ALTERABLE, DESTCLAS)
    fails(create(h, "RM", st(TOPICOBJ, "DEV.BASE.TOPIC"), i(DESTCLAS, C.MQDC_MANAGED), i(C.MQIACF_REPLACE, 1),
                 dest=None, enc=enc), C.MQRC_TOPIC_NOT_ALTERABLE, TOPICOBJ)


# ---- Copy ----------------------------------------------------------------------------------------
@ENCODINGS
def test_copy_with_overrides(h, clock, enc):
    create_ok(h, "SRC", i(C.MQIACF_PUB_PRIORITY, 6), st(C.MQCACF_SUB_USER_DATA, "src data"),
              st(C.MQCACF_SUB_SELECTOR, "x = 1"), enc=enc)
    src = one(h, "SRC", enc=enc)
    clock.t += 10
    reply = h.run(command(COPY, st(C.MQCACF_TO_SUB_NAME, "DST"), st(C.MQCACF_FROM_SUB_NAME, "SRC"),
                          st(C.MQCACF_SUB_USER_DATA, "dst data"), i(C.MQIACF_EXPIRY, 1000)), enc)
    assert reply.ok and len(reply.messages) == 1
    dst = one(h, "DST", enc=enc)
    assert dst[SUBID] != src[SUBID] and dst[SUBID][:16] == b"AMQ QM1         "
    assert dst[DESTCORL] == dst[SUBID]
    assert dst[C.MQCACF_SUB_USER_DATA] == "dst data" and dst[C.MQIACF_EXPIRY] == 1000
    assert dst[C.MQCA_CREATION_TIME] == mq_time(clock.t)
    same = set(src) - {SUBID, NAME, DESTCORL, C.MQCACF_SUB_USER_DATA, C.MQIACF_EXPIRY, C.MQCA_CREATION_TIME,
                       C.MQCA_ALTERATION_TIME, C.MQCA_CREATION_DATE, C.MQCA_ALTERATION_DATE}
    assert {k: dst[k] for k in same} == {k: src[k] for k in same}
    assert one(h, "SRC", enc=enc) == src  # the source is untouched


@ENCODINGS
def test_copy_by_subid_managed_and_replace(h, enc):
    create_ok(h, "MSRC", i(DESTCLAS, C.MQDC_MANAGED), bs(DESTCORL, b"fixed"), dest=None, enc=enc)
    src = one(h, "MSRC", enc=enc)
    reply = h.run(command(COPY, st(C.MQCACF_TO_SUB_NAME, "MDST"), bs(SUBID, src[SUBID])), enc)
    assert reply.ok
    dst = one(h, "MDST", enc=enc)
    assert dst[DESTCLAS] == C.MQDC_MANAGED and dst[DEST] != src[DEST] and dst[DEST] in h.registry.queues
    assert dst[DESTCORL] == b"fixed" + bytes(19)  # an explicit CorrelId is copied
    fails(h.run(command(COPY, st(C.MQCACF_TO_SUB_NAME, "MDST"), st(C.MQCACF_FROM_SUB_NAME, "MSRC")), enc),
          C.MQRCCF_SUB_ALREADY_EXISTS)
    reply = h.run(command(COPY, st(C.MQCACF_TO_SUB_NAME, "MDST"), st(C.MQCACF_FROM_SUB_NAME, "MSRC"),
                          i(C.MQIACF_REPLACE, C.MQRP_YES), st(C.MQCACF_SUB_USER_DATA, "replaced")), enc)
    assert reply.ok
    again = one(h, "MDST", enc=enc)
    assert again[SUBID] == dst[SUBID] and again[DEST] == dst[DEST]
    assert again[C.MQCACF_SUB_USER_DATA] == "replaced"
    # A copy changed to PROVIDED needs its own destination.
    fails(h.run(command(COPY, st(C.MQCACF_TO_SUB_NAME, "P"), st(C.MQCACF_FROM_SUB_NAME, "MSRC"),
                        i(DESTCLAS, C.MQDC_PROVIDED)), enc), C.MQRCCF_PARM_MISSING, DEST)
    assert h.run(command(COPY, st(C.MQCACF_TO_SUB_NAME, "P"), st(C.MQCACF_FROM_SUB_NAME, "MSRC"),
                         i(DESTCLAS, C.MQDC_PROVIDED), st(DEST, "DEV.QUEUE.3")), enc).ok


@ENCODINGS
def test_copy_errors(h, enc):
    create_ok(h, "C1", enc=enc)
    create_ok(h, "C2", enc=enc)
    c2_id = one(h, "C2")[SUBID]
    to, frm = C.MQCACF_TO_SUB_NAME, C.MQCACF_FROM_SUB_NAME
    fails(h.run(command(COPY, st(frm, "C1")), enc), C.MQRCCF_PARM_MISSING, to)
    fails(h.run(command(COPY, st(to, "X")), enc), C.MQRCCF_PARM_MISSING, frm)
    fails(h.run(command(COPY, st(to, ""), st(frm, "C1")), enc), C.MQRCCF_SUB_NAME_ERROR, to)
    fails(h.run(command(COPY, st(to, "X*"), st(frm, "C1")), enc), C.MQRCCF_PARM_SYNTAX_ERROR, to)
    fails(h.run(command(COPY, st(to, "X"), st(frm, "C*")), enc), C.MQRCCF_PARM_SYNTAX_ERROR, frm)
    fails(h.run(command(COPY, st(to, "X"), st(frm, "NOPE")), enc), C.MQRC_NO_SUBSCRIPTION)
    fails(h.run(command(COPY, st(to, "X"), st(frm, "C1"), bs(SUBID, c2_id)), enc), C.MQRC_NO_SUBSCRIPTION)
    fails(h.run(command(COPY, st(to, "X"), st(frm, "C1"), i(DESTCLAS, C.MQDC_MANAGED), st(DEST, "DEV.QUEUE.1")),
                enc), C.MQRCCF_PARM_CONFLICT, DEST)
    fails(h.run(command(COPY, st(to, "X"), st(frm, "C1"), st(DEST, "NO.SUCH.Q")), enc),
          C.MQRC_UNKNOWN_OBJECT_NAME, DEST)
    fails(h.run(command(COPY, st(to, "X"), st(frm, "C1"), i(C.MQIACF_SUB_LEVEL, 11)), enc),
          C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_SUB_LEVEL)
    fails(h.run(command(COPY, st(to, "C2"), st(frm, "C1"), i(C.MQIACF_REPLACE, 1), st(TOPIC, "other")), enc),
          C.MQRC_TOPIC_NOT_ALTERABLE, TOPIC)
    assert set(h.registry.subs) == {"SYSTEM.DEFAULT.SUB", "C1", "C2"}
    # Switching a PROVIDED source's copy to MANAGED drops the inherited queue and makes a managed one.
    assert h.run(command(COPY, st(to, "X"), st(frm, "C1"), i(DESTCLAS, C.MQDC_MANAGED)), enc).ok
    assert one(h, "X")[DEST].startswith("SYSTEM.MANAGED.DURABLE.")


# ---- Change --------------------------------------------------------------------------------------
ALTERABLE = [
    (st(DEST, "DEV.QUEUE.2"), DEST, "DEV.QUEUE.2"),
    (st(DESTQMGR, "FAR.QM"), DESTQMGR, "FAR.QM"),
    (bs(DESTCORL, b"new-correl"), DESTCORL, b"new-correl" + bytes(14)),
    (i(C.MQIACF_EXPIRY, 99999), C.MQIACF_EXPIRY, 99999),
    (bs(C.MQBACF_ACCOUNTING_TOKEN, b"\xff" * 32), C.MQBACF_ACCOUNTING_TOKEN, b"\xff" * 32),
    (st(C.MQCACF_APPL_IDENTITY_DATA, "ident"), C.MQCACF_APPL_IDENTITY_DATA, "ident"),
    (i(C.MQIACF_PUB_PRIORITY, 0), C.MQIACF_PUB_PRIORITY, 0),
    (i(C.MQIACF_PUB_PRIORITY, C.MQPRI_PRIORITY_AS_Q_DEF), C.MQIACF_PUB_PRIORITY, C.MQPRI_PRIORITY_AS_Q_DEF),
    (i(C.MQIACF_PUBSUB_PROPERTIES, C.MQPSPROP_COMPAT), C.MQIACF_PUBSUB_PROPERTIES, C.MQPSPROP_COMPAT),
    (i(C.MQIACF_REQUEST_ONLY, C.MQRU_PUBLISH_ON_REQUEST), C.MQIACF_REQUEST_ONLY, C.MQRU_PUBLISH_ON_REQUEST),
    (st(C.MQCACF_SUB_USER_ID, "bob"), C.MQCACF_SUB_USER_ID, "bob"),
    (st(C.MQCACF_SUB_USER_DATA, "ud"), C.MQCACF_SUB_USER_DATA, "ud"),
    (i(C.MQIACF_VARIABLE_USER_ID, C.MQVU_FIXED_USER), C.MQIACF_VARIABLE_USER_ID, C.MQVU_FIXED_USER),
]


@ENCODINGS
@pytest.mark.parametrize("param, pid, expected", ALTERABLE)
def test_change_alterable(h, clock, enc, param, pid, expected):
    create_ok(h, "CH", enc=enc)
    before = one(h, "CH", enc=enc)
    clock.t += 125
    reply = h.run(command(CHANGE, st(NAME, "CH"), param), enc)
    assert reply.ok and len(reply.messages) == 1
    after = one(h, "CH", enc=enc)
    assert after[pid] == expected
    assert after[C.MQCA_ALTERATION_TIME] == mq_time(clock.t)
    unchanged = set(before) - {pid, C.MQCA_ALTERATION_TIME, C.MQCA_ALTERATION_DATE}
    assert {k: after[k] for k in unchanged} == {k: before[k] for k in unchanged}


NOT_ALTERABLE = [
    (st(TOPICOBJ, "DEV.BASE.TOPIC"), C.MQRC_TOPIC_NOT_ALTERABLE),
    (st(TOPIC, "price/veg"), C.MQRC_TOPIC_NOT_ALTERABLE),
    (i(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_CHAR), C.MQRC_TOPIC_NOT_ALTERABLE),
    (st(C.MQCACF_SUB_SELECTOR, "a = 2"), C.MQRC_SELECTOR_NOT_ALTERABLE),
    (i(DESTCLAS, C.MQDC_MANAGED), C.MQRC_DEST_CLASS_NOT_ALTERABLE),
    (i(C.MQIACF_SUB_LEVEL, 3), C.MQRC_SUBLEVEL_NOT_ALTERABLE),
    (i(C.MQIACF_SUBSCRIPTION_SCOPE, C.MQTSCOPE_QMGR), C.MQRCCF_PARM_CONFLICT),
]


@ENCODINGS
@pytest.mark.parametrize("param, reason", NOT_ALTERABLE)
def test_change_not_alterable(h, enc, param, reason):
    create_ok(h, "NA", st(C.MQCACF_SUB_SELECTOR, "a = 1"), enc=enc)
    before = snapshot(h)
    fails(h.run(command(CHANGE, st(NAME, "NA"), param), enc), reason, param.parameter)
    assert snapshot(h) == before


@ENCODINGS
def test_change_restating_fixed_attributes_is_fine(h, enc):
    create_ok(h, "SAME", st(C.MQCACF_SUB_SELECTOR, "a = 1"), enc=enc)
    reply = h.run(command(CHANGE, st(NAME, "SAME"), st(TOPIC, "price/fruit"), st(TOPICOBJ, ""),
                          i(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_TOPIC), st(C.MQCACF_SUB_SELECTOR, "a = 1"),
                          i(DESTCLAS, C.MQDC_PROVIDED), i(C.MQIACF_SUB_LEVEL, 1),
                          i(C.MQIACF_SUBSCRIPTION_SCOPE, C.MQTSCOPE_ALL), i(C.MQIACF_PUB_PRIORITY, 3)), enc)
    assert reply.ok
    assert one(h, "SAME")[C.MQIACF_PUB_PRIORITY] == 3


@ENCODINGS
def test_change_by_subid_and_lookup_errors(h, enc):
    create_ok(h, "BYID", enc=enc)
    create_ok(h, "OTHER", enc=enc)
    sub_id = one(h, "BYID")[SUBID]
    assert h.run(command(CHANGE, bs(SUBID, sub_id), i(C.MQIACF_EXPIRY, 77)), enc).ok
    assert one(h, "BYID")[C.MQIACF_EXPIRY] == 77
    assert h.run(command(CHANGE, st(NAME, "BYID"), bs(SUBID, sub_id), i(C.MQIACF_EXPIRY, 78)), enc).ok
    fails(h.run(command(CHANGE, st(NAME, "OTHER"), bs(SUBID, sub_id)), enc), C.MQRC_NO_SUBSCRIPTION)
    fails(h.run(command(CHANGE, st(NAME, "NOPE")), enc), C.MQRC_NO_SUBSCRIPTION)
    fails(h.run(command(CHANGE, bs(SUBID, b"AMQ QM1         " + bytes(8))), enc), C.MQRC_NO_SUBSCRIPTION)
    fails(h.run(command(CHANGE, i(C.MQIACF_EXPIRY, 5)), enc), C.MQRCCF_PARM_MISSING, NAME)
    fails(h.run(command(CHANGE, st(NAME, "BY*")), enc), C.MQRCCF_PARM_SYNTAX_ERROR, NAME)
    fails(h.run(command(CHANGE, bs(SUBID, sub_id[:23])), enc), C.MQRCCF_CFBS_STRING_LENGTH_ERR, SUBID)
    fails(h.run(command(CHANGE, bs(SUBID, sub_id + b"x")), enc), C.MQRCCF_CFBS_STRING_LENGTH_ERR, SUBID)
    fails(h.run(command(CHANGE, st(NAME, "BYID"), i(C.MQIACF_EXPIRY, 0)), enc), C.MQRCCF_PARM_VALUE_ERROR,
          C.MQIACF_EXPIRY)


@ENCODINGS
def test_change_managed_destination(h, enc):
    create_ok(h, "CM", i(DESTCLAS, C.MQDC_MANAGED), dest=None, enc=enc)
    queue = one(h, "CM")[DEST]
    fails(h.run(command(CHANGE, st(NAME, "CM"), st(DEST, "DEV.QUEUE.1")), enc), C.MQRCCF_PARM_CONFLICT, DEST)
    assert h.run(command(CHANGE, st(NAME, "CM"), st(DEST, queue)), enc).ok  # restating it is fine


def test_change_destination_is_not_checked_and_proxy_is_in_use(h):
    create_ok(h, "CD")
    assert h.run(command(CHANGE, st(NAME, "CD"), st(DEST, "NOT.YET.DEFINED"))).ok  # ALTER SUB does not check
    proxy = Subscription("PROXY.SUB", h.registry.ids.sub_id(), topic_string="p", resolved_topic="p",
                         sub_type=C.MQSUBTYPE_PROXY)
    h.registry.put_sub(proxy)
    fails(h.run(command(CHANGE, st(NAME, "PROXY.SUB"), i(C.MQIACF_EXPIRY, 5))), C.MQRCCF_SUBSCRIPTION_IN_USE)
    fails(h.run(command(DELETE, st(NAME, "PROXY.SUB"))), C.MQRCCF_SUBSCRIPTION_IN_USE)


# ---- Delete --------------------------------------------------------------------------------------
@ENCODINGS
def test_delete_by_name_and_by_subid(h, enc):
    create_ok(h, "D1", enc=enc)
    create_ok(h, "D2", enc=enc)
    d2 = one(h, "D2")[SUBID]
    reply = h.run(command(DELETE, st(NAME, "D1")), enc)
    assert reply.ok and len(reply.messages) == 1
    assert h.run(command(DELETE, bs(SUBID, d2)), enc).ok
    assert "D1" not in h.registry.subs and d2 not in h.registry.subs_by_id
    fails(h.run(command(DELETE, st(NAME, "D1")), enc), C.MQRC_NO_SUBSCRIPTION)
    assert h.run(command(DELETE, st(NAME, "D1"), i(C.MQIACF_IGNORE_STATE, C.MQIS_YES)), enc).ok
    fails(h.run(command(DELETE, st(NAME, "D1"), i(C.MQIACF_IGNORE_STATE, C.MQIS_NO)), enc), C.MQRC_NO_SUBSCRIPTION)
    fails(h.run(command(DELETE, st(NAME, "D1"), i(C.MQIACF_IGNORE_STATE, 5)), enc), C.MQRCCF_PARM_VALUE_ERROR,
          C.MQIACF_IGNORE_STATE)
    fails(h.run(command(DELETE, st(NAME, "D*")), enc), C.MQRCCF_PARM_SYNTAX_ERROR, NAME)
    fails(h.run(command(DELETE), enc), C.MQRCCF_PARM_MISSING, NAME)


@ENCODINGS
def test_delete_managed_removes_queue_and_messages(h, enc):
    create_ok(h, "DM", i(DESTCLAS, C.MQDC_MANAGED), dest=None, enc=enc)
    queue = one(h, "DM")[DEST]
    put_message(h, queue)
    put_message(h, queue)
    assert h.registry.messages.depth(queue) == 2
    assert h.run(command(DELETE, st(NAME, "DM")), enc).ok
    assert queue not in h.registry.queues and h.registry.messages.depth(queue) == 0


def test_delete_in_use_or_non_durable(h):
    create_ok(h, "INUSE")
    h.registry.subs["INUSE"].active_connection = b"AMQC" + bytes(20)
    fails(h.run(command(DELETE, st(NAME, "INUSE"))), C.MQRCCF_SUBSCRIPTION_IN_USE)
    api = Subscription("API.ND", h.registry.ids.sub_id(), topic_string="t", resolved_topic="t",
                       sub_type=C.MQSUBTYPE_API, durable=C.MQSUB_DURABLE_NO)
    h.registry.put_sub(api)
    fails(h.run(command(DELETE, st(NAME, "API.ND"))), C.MQRCCF_SUBSCRIPTION_IN_USE)


# ---- Inquire -------------------------------------------------------------------------------------
@ENCODINGS
def test_generic_inquire_one_response_each_sorted(h, enc):
    for name in ("G.C", "G.A", "G.B", "H.A"):
        create_ok(h, name, enc=enc)
    reply = inquire(h, "G.*", enc=enc)
    assert [o[NAME] for o in reply.objects] == ["G.A", "G.B", "G.C"]
    assert [m.header.Control for m in reply.messages] == [0, 0, 1]
    everything = inquire(h, "*", enc=enc)
    assert [o[NAME] for o in everything.objects] == ["G.A", "G.B", "G.C", "H.A", "SYSTEM.DEFAULT.SUB"]
    assert everything.objects[-1][C.MQIACF_SUB_TYPE] == C.MQSUBTYPE_ADMIN
    fails(inquire(h, "Z*", enc=enc), C.MQRC_NO_SUBSCRIPTION)
    fails(inquire(h, "G.X", enc=enc), C.MQRC_NO_SUBSCRIPTION)
    fails(inquire(h, "G*.A", enc=enc), C.MQRCCF_PARM_SYNTAX_ERROR, NAME)
    fails(h.run(command(INQ), enc), C.MQRCCF_PARM_MISSING, NAME)


@ENCODINGS
def test_inquire_by_subid(h, enc):
    create_ok(h, "ID.A", enc=enc)
    create_ok(h, "ID.B", enc=enc)
    b_id = one(h, "ID.B")[SUBID]
    reply = h.run(command(INQ, bs(SUBID, b_id)), enc)
    assert [o[NAME] for o in reply.objects] == ["ID.B"]
    assert [o[NAME] for o in h.run(command(INQ, st(NAME, "ID.*"), bs(SUBID, b_id)), enc).objects] == ["ID.B"]
    fails(h.run(command(INQ, st(NAME, "ID.A"), bs(SUBID, b_id)), enc), C.MQRC_NO_SUBSCRIPTION)


@ENCODINGS
def test_inquire_attribute_selection(h, enc):
    create_ok(h, "SEL", enc=enc)
    reply = inquire(h, "SEL", il(C.MQIACF_SUB_ATTRS, TOPIC), enc=enc)
    assert set(reply.objects[0]) == {SUBID, NAME, TOPIC}
    reply = inquire(h, "SEL", il(C.MQIACF_SUB_ATTRS, SUBID), enc=enc)  # pymqi issue 189
    assert set(reply.objects[0]) == {SUBID, NAME}
    reply = inquire(h, "SEL", il(C.MQIACF_SUB_ATTRS, C.MQIACF_SUB_SUMMARY), enc=enc)
    assert set(reply.objects[0]) == {SUBID, NAME, DEST, DESTCORL, DESTQMGR, C.MQIACF_DURABLE_SUBSCRIPTION,
                                     C.MQIACF_SUB_TYPE, C.MQCACF_SUB_USER_ID, TOPIC}
    reply = inquire(h, "SEL", il(C.MQIACF_SUB_ATTRS, C.MQCA_Q_DESC, C.MQIACF_EXPIRY), enc=enc)  # unknown skipped
    assert set(reply.objects[0]) == {SUBID, NAME, C.MQIACF_EXPIRY}
    fails(inquire(h, "SEL", i(C.MQIA_DISPLAY_TYPE, 4), enc=enc), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_DISPLAY_TYPE)


def _add_api_and_proxy(h):
    reg = h.registry
    for name, sub_type, durable in (("T.API", C.MQSUBTYPE_API, C.MQSUB_DURABLE_YES),
                                    ("T.API.ND", C.MQSUBTYPE_API, C.MQSUB_DURABLE_NO),
                                    ("T.PROXY", C.MQSUBTYPE_PROXY, C.MQSUB_DURABLE_YES)):
        sid = reg.ids.sub_id()
        reg.put_sub(Subscription(name, sid, topic_string="t", resolved_topic="t", sub_type=sub_type,
                                 durable=durable, destination_correl_id=sid, created=reg.now(),
                                 altered=reg.now()))
    reg.commit()


@ENCODINGS
@pytest.mark.parametrize("params, names", [
    ([], ["T.ADMIN", "T.API", "T.API.ND"]),
    ([i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_USER)], ["T.ADMIN", "T.API", "T.API.ND"]),
    ([i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_ADMIN)], ["T.ADMIN"]),
    ([i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_API)], ["T.API", "T.API.ND"]),
    ([i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_PROXY)], ["T.PROXY"]),
    ([i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_ALL)], ["T.ADMIN", "T.API", "T.API.ND", "T.PROXY"]),
    ([i(C.MQIACF_DURABLE_SUBSCRIPTION, C.MQSUB_DURABLE_NO)], ["T.API.ND"]),
    ([i(C.MQIACF_DURABLE_SUBSCRIPTION, C.MQSUB_DURABLE_YES)], ["T.ADMIN", "T.API"]),
    ([i(C.MQIACF_DURABLE_SUBSCRIPTION, C.MQSUB_DURABLE_ALL), i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_ALL)],
     ["T.ADMIN", "T.API", "T.API.ND", "T.PROXY"]),
])
def test_inquire_type_and_durable_filters(h, enc, params, names):
    create_ok(h, "T.ADMIN", enc=enc)
    _add_api_and_proxy(h)
    assert [o[NAME] for o in inquire(h, "T.*", *params, enc=enc).objects] == names


@ENCODINGS
def test_inquire_bad_filter_values(h, enc):
    fails(inquire(h, "*", i(C.MQIACF_SUB_TYPE, 9), enc=enc), C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_SUB_TYPE)
    fails(inquire(h, "*", i(C.MQIACF_DURABLE_SUBSCRIPTION, 0), enc=enc), C.MQRCCF_PARM_VALUE_ERROR,
          C.MQIACF_DURABLE_SUBSCRIPTION)


@ENCODINGS
def test_inquire_filters(h, enc):
    create_ok(h, "F.PROV", topic="sports/golf", enc=enc)
    create_ok(h, "F.MAN", i(DESTCLAS, C.MQDC_MANAGED), topic="sports/tennis", dest=None, enc=enc)
    create_ok(h, "F.NEWS", topic="news/today", enc=enc)
    cfif = P.CFIF(DESTCLAS, C.MQCFOP_EQUAL, C.MQDC_MANAGED)
    assert [o[NAME] for o in inquire(h, "F.*", cfif, enc=enc).objects] == ["F.MAN"]
    cfif = P.CFIF(C.MQIACF_EXPIRY, C.MQCFOP_LESS, 0)
    assert len(inquire(h, "F.*", cfif, enc=enc).objects) == 3
    cfsf = P.CFSF(TOPIC, C.MQCFOP_LIKE, "sports/*", 0)
    assert [o[NAME] for o in inquire(h, "F.*", cfsf, enc=enc).objects] == ["F.MAN", "F.PROV"]
    cfsf = P.CFSF(DEST, C.MQCFOP_EQUAL, "DEV.QUEUE.1", 0)  # compared without its padding
    assert [o[NAME] for o in inquire(h, "F.*", cfsf, enc=enc).objects] == ["F.NEWS", "F.PROV"]
    # the filter only filters; selected attributes stay as asked
    reply = inquire(h, "F.*", il(C.MQIACF_SUB_ATTRS, TOPIC), P.CFSF(TOPIC, C.MQCFOP_NOT_LIKE, "sports*", 0), enc=enc)
    assert reply.objects == [{SUBID: reply.objects[0][SUBID], NAME: "F.NEWS", TOPIC: "news/today"}]
    news_id = reply.objects[0][SUBID]
    cfbf = P.CFBF(SUBID, C.MQCFOP_EQUAL, news_id)
    assert [o[NAME] for o in inquire(h, "*", cfbf, enc=enc).objects] == ["F.NEWS"]
    fails(inquire(h, "F.*", P.CFIF(DESTCLAS, C.MQCFOP_EQUAL, 99), enc=enc), C.MQRC_NO_SUBSCRIPTION)
    fails(inquire(h, "F.*", P.CFIF(C.MQIA_CURRENT_Q_DEPTH, C.MQCFOP_EQUAL, 0), enc=enc),
          C.MQRCCF_CFIF_PARM_ID_ERROR, C.MQIA_CURRENT_Q_DEPTH)
    fails(inquire(h, "F.*", P.CFIF(DESTCLAS, C.MQCFOP_EQUAL, 1), P.CFIF(C.MQIACF_EXPIRY, C.MQCFOP_EQUAL, 1),
                  enc=enc), C.MQRCCF_TOO_MANY_FILTERS, C.MQIACF_EXPIRY)


# ---- Inquire Sub Status --------------------------------------------------------------------------
@ENCODINGS
def test_sub_status(h, clock, enc):
    create_ok(h, "ST.A", enc=enc, topic="status/a")
    _add_api_and_proxy(h)
    reply = h.run(command(STATUS, st(NAME, "ST.A")), enc)
    assert len(reply.messages) == 1
    s = reply.objects[0]
    assert set(s) == {SUBID, NAME, TOPIC, C.MQIACF_SUB_TYPE, C.MQIACF_DURABLE_SUBSCRIPTION, C.MQCACF_SUB_USER_ID,
                      C.MQCA_RESUME_DATE, C.MQCA_RESUME_TIME, C.MQCACF_LAST_MSG_DATE, C.MQCACF_LAST_MSG_TIME,
                      C.MQIACF_MESSAGE_COUNT, C.MQBACF_CONNECTION_ID}
    assert s[TOPIC] == "status/a" and s[C.MQIACF_MESSAGE_COUNT] == 0
    assert raw(reply, C.MQCACF_LAST_MSG_DATE) == " " * 12 and raw(reply, C.MQCACF_LAST_MSG_TIME) == " " * 8
    assert raw(reply, C.MQCA_RESUME_DATE) == mq_date(clock.t) + "  "
    assert raw(reply, C.MQCA_RESUME_TIME) == mq_time(clock.t)
    assert raw(reply, C.MQCACF_SUB_USER_ID) == "admin".ljust(12)
    assert s[C.MQBACF_CONNECTION_ID] == bytes(24)
    sub = h.registry.subs["ST.A"]
    sub.message_count, sub.last_message = 17, clock.t + 90
    sub.active_connection = b"AMQCQM1         " + bytes(8)
    reply = h.run(command(STATUS, bs(SUBID, sub.sub_id), il(C.MQIACF_SUB_STATUS_ATTRS, C.MQIACF_MESSAGE_COUNT,
                                                            C.MQCACF_LAST_MSG_DATE, C.MQCACF_LAST_MSG_TIME,
                                                            C.MQBACF_CONNECTION_ID)), enc)
    s = reply.objects[0]
    assert set(s) == {SUBID, NAME, C.MQIACF_MESSAGE_COUNT, C.MQCACF_LAST_MSG_DATE, C.MQCACF_LAST_MSG_TIME,
                      C.MQBACF_CONNECTION_ID}
    assert s[C.MQIACF_MESSAGE_COUNT] == 17
    assert raw(reply, C.MQCACF_LAST_MSG_DATE) == mq_date(clock.t + 90) + "  "
    assert raw(reply, C.MQCACF_LAST_MSG_TIME) == mq_time(clock.t + 90)
    assert s[C.MQBACF_CONNECTION_ID] == b"AMQCQM1         " + bytes(8)
    # Durable defaults to YES here (docs/reference/pcf.md decision 12); SubscriptionType to USER.
    names = [o[NAME] for o in h.run(command(STATUS, st(NAME, "T.*")), enc).objects]
    assert names == ["T.API"]
    names = [o[NAME] for o in h.run(command(STATUS, st(NAME, "T.*"), i(C.MQIACF_DURABLE_SUBSCRIPTION,
                                                                         C.MQSUB_DURABLE_ALL),
                                            i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_ALL)), enc).objects]
    assert names == ["T.API", "T.API.ND", "T.PROXY"]
    flt = P.CFIF(C.MQIACF_MESSAGE_COUNT, C.MQCFOP_GREATER, 10)
    assert [o[NAME] for o in h.run(command(STATUS, st(NAME, "*"), flt), enc).objects] == ["ST.A"]
    fails(h.run(command(STATUS, st(NAME, "NOPE")), enc), C.MQRC_NO_SUBSCRIPTION)
    fails(h.run(command(STATUS), enc), C.MQRCCF_PARM_MISSING, NAME)


# ---- Expiry, persistence, atomicity --------------------------------------------------------------
@ENCODINGS
def test_expiry_removes_subscription_and_managed_queue(h, clock, enc):
    create_ok(h, "EXP", i(DESTCLAS, C.MQDC_MANAGED), i(C.MQIACF_EXPIRY, 50), dest=None, enc=enc)
    create_ok(h, "KEEP", enc=enc)
    queue = one(h, "EXP")[DEST]
    put_message(h, queue)
    clock.t += 4.9
    assert one(h, "EXP", enc=enc)[C.MQIACF_EXPIRY] == 50
    clock.t += 0.2
    fails(inquire(h, "EXP", enc=enc), C.MQRC_NO_SUBSCRIPTION)
    assert queue not in h.registry.queues and h.registry.messages.depth(queue) == 0
    assert one(h, "KEEP", enc=enc)[NAME] == "KEEP"


def test_change_expiry_counts_from_creation(h, clock):
    create_ok(h, "EXP2")
    clock.t += 100
    assert h.run(command(CHANGE, st(NAME, "EXP2"), i(C.MQIACF_EXPIRY, 1001))).ok
    clock.t += 0.05
    assert one(h, "EXP2")[NAME] == "EXP2"
    clock.t += 0.1
    fails(inquire(h, "EXP2"), C.MQRC_NO_SUBSCRIPTION)


def test_persistence_across_reopen(tmp_path, clock):
    data = tmp_path / "persist"
    h = Harness(data, clock=clock)
    create_ok(h, "P.PROV", st(C.MQCACF_SUB_SELECTOR, "a = 1"), bs(DESTCORL, b"c"), i(C.MQIACF_EXPIRY, 10 ** 8))
    create_ok(h, "P.MAN", i(DESTCLAS, C.MQDC_MANAGED), st(TOPICOBJ, "DEV.BASE.TOPIC"), dest=None)
    assert h.run(command(COPY, st(C.MQCACF_TO_SUB_NAME, "P.COPY"), st(C.MQCACF_FROM_SUB_NAME, "P.PROV"))).ok
    assert h.run(command(CHANGE, st(NAME, "P.COPY"), st(C.MQCACF_SUB_USER_DATA, "changed"))).ok
    create_ok(h, "P.GONE")
    assert h.run(command(DELETE, st(NAME, "P.GONE"))).ok
    before = h.run(command(INQ, st(NAME, "*"), i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_ALL)))
    status_before = h.run(command(STATUS, st(NAME, "*")))
    managed = before.objects[[o[NAME] for o in before.objects].index("P.MAN")][DEST]
    h.close()
    clock.t += 30
    h2 = Harness(data, clock=clock)
    try:
        after = h2.run(command(INQ, st(NAME, "*"), i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_ALL)))
        assert [m.parameters for m in after.messages] == [m.parameters for m in before.messages]
        assert [o[NAME] for o in after.objects] == ["P.COPY", "P.MAN", "P.PROV", "SYSTEM.DEFAULT.SUB"]
        status_after = h2.run(command(STATUS, st(NAME, "*")))
        assert [m.parameters for m in status_after.messages] == [m.parameters for m in status_before.messages]
        assert managed in h2.registry.queues
        create_ok(h2, "P.NEW")  # fresh ids after a restart do not collide
        ids = [o[SUBID] for o in inquire(h2, "*", i(C.MQIACF_SUB_TYPE, C.MQSUBTYPE_ALL)).objects]
        assert len(set(ids)) == len(ids)
    finally:
        h2.close()


# Random command sequences: a failing command changes nothing; the registry stays consistent.
_NAMES = strategies.sampled_from(["R1", "R2", "R1", "R2", "R3", "", "R*"])
_OPTIONAL = strategies.sampled_from([
    i(DESTCLAS, C.MQDC_MANAGED), i(DESTCLAS, C.MQDC_PROVIDED), i(DESTCLAS, 9), st(DEST, "DEV.QUEUE.2"),
    st(DEST, "NO.SUCH.Q"), st(DEST, ""), i(C.MQIACF_EXPIRY, 0), i(C.MQIACF_EXPIRY, 20), i(C.MQIACF_SUB_LEVEL, 2),
    st(TOPIC, "r/b"), st(TOPIC, ""), st(TOPICOBJ, "DEV.BASE.TOPIC"), st(TOPICOBJ, "NOPE"),
    i(C.MQIACF_REPLACE, 1), i(C.MQIACF_REPLACE, 1), st(C.MQCACF_SUB_USER_DATA, "u"),
    st(C.MQCACF_SUB_SELECTOR, "s = 1"), i(C.MQIACF_PUB_PRIORITY, 4),
])
_STEP = strategies.tuples(strategies.sampled_from([CREATE, CREATE, COPY, CHANGE, CHANGE, DELETE]), _NAMES, _NAMES,
                  strategies.lists(_OPTIONAL, max_size=4, unique_by=lambda p: p.parameter), strategies.floats(0, 3))


def _random_command(cmd, name, other, params):
    if cmd == DELETE:
        return command(DELETE, st(NAME, name))
    if cmd == COPY:
        return command(COPY, st(C.MQCACF_TO_SUB_NAME, name), st(C.MQCACF_FROM_SUB_NAME, other), *params)
    if cmd == CHANGE:
        return command(CHANGE, st(NAME, name), *params)
    given_ = {p.parameter: p for p in params}
    base = {TOPIC: st(TOPIC, "r/a"), DEST: st(DEST, "DEV.QUEUE.1")}
    if given_.get(DESTCLAS) is not None and given_[DESTCLAS].value == C.MQDC_MANAGED:
        del base[DEST]
    base.update(given_)
    return command(CREATE, st(NAME, name), *base.values())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=strategies.lists(_STEP, min_size=1, max_size=12))
def test_random_sequences_are_atomic_and_consistent(tmp_path_factory, steps):
    clock = Clock()
    h = Harness(tmp_path_factory.mktemp("rand"), clock=clock)
    try:
        create_ok(h, "R1", topic="r/a")
        create_ok(h, "R2", i(DESTCLAS, C.MQDC_MANAGED), topic="r/a", dest=None)
        for cmd, name, other, params, dt in steps:
            clock.t += dt
            h.registry.expire_subscriptions()
            h.registry.commit()
            before = snapshot(h)
            reply = h.run(_random_command(cmd, name, other, params))
            if not reply.ok:
                assert snapshot(h) == before
            reg = h.registry
            assert {s.name for s in reg.subs_by_id.values()} == set(reg.subs)
            for sub in reg.subs.values():
                assert reg.subs_by_id[sub.sub_id] is sub
                assert len(sub.destination_correl_id) == 24
                if sub.destination_class == C.MQDC_MANAGED:
                    assert sub.destination in reg.queues
                elif sub.name != "SYSTEM.DEFAULT.SUB":
                    assert sub.destination
            owned = {s.destination for s in reg.subs.values() if s.destination_class == C.MQDC_MANAGED}
            assert {q for q in reg.queues if q.startswith("SYSTEM.MANAGED.")} == owned
    finally:
        h.close()


def test_failed_command_is_not_persisted(tmp_path, clock):
    data = tmp_path / "atomic"
    h = Harness(data, clock=clock)
    create_ok(h, "A1")
    fails(create(h, "A2", i(DESTCLAS, C.MQDC_MANAGED)), C.MQRCCF_PARM_CONFLICT, DEST)
    h.close()
    h2 = Harness(data, clock=clock)
    try:
        assert set(h2.registry.subs) == {"A1", "SYSTEM.DEFAULT.SUB"}
        assert not [q for q in h2.registry.queues if q.startswith("SYSTEM.MANAGED.")]
    finally:
        h2.close()


def test_subid_layout(h):
    create_ok(h, "LAYOUT")
    sub_id = one(h, "LAYOUT")[SUBID]
    start, counter = struct.unpack("<II", sub_id[16:])
    assert start >= int(T0) and counter > 0


@ENCODINGS
def test_empty_resolved_topic_is_refused(h, enc):
    fails(create(h, "EMPTY", st(TOPICOBJ, "SYSTEM.BASE.TOPIC"), topic=None, enc=enc), C.MQRC_TOPIC_STRING_ERROR,
          TOPIC)


def test_replace_of_proxy_is_in_use_and_status_name_syntax(h):
    proxy = Subscription("PX", h.registry.ids.sub_id(), topic_string="p", resolved_topic="p",
                         sub_type=C.MQSUBTYPE_PROXY)
    h.registry.put_sub(proxy)
    fails(create(h, "PX", i(C.MQIACF_REPLACE, 1), topic="p"), C.MQRCCF_SUBSCRIPTION_IN_USE)
    fails(h.run(command(STATUS, st(NAME, "P*X"))), C.MQRCCF_PARM_SYNTAX_ERROR, NAME)
