"""Authority records: the PCF commands' life cycle and reasons, IBM's generic profile rules, records
across a restart, and their enforcement at MQCONN, MQOPEN and MQPUT1 in the domain."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.registry.security import authrecs
from qmlite.registry.security import vocab as A
from qmlite.registry.errors import MQIError
from qmlite.registry.qmgr import QueueManager
from tests.support.pcfkit import Harness, command, failed, i, il, st

PRIVATE = "APP.PRIVATE"


def sl(pid, *values):
    return P.CFSL(pid, tuple(values), 0)


def set_rec(profile, objtype=C.MQOT_Q, add=(), remove=(), principal="app", group=None):
    params = [st(C.MQCACF_AUTH_PROFILE_NAME, profile), i(C.MQIACF_OBJECT_TYPE, objtype)]
    if add:
        params.append(il(C.MQIACF_AUTH_ADD_AUTHS, *add))
    if remove:
        params.append(il(C.MQIACF_AUTH_REMOVE_AUTHS, *remove))
    if principal:
        params.append(sl(C.MQCACF_PRINCIPAL_ENTITY_NAMES, principal))
    if group:
        params.append(sl(C.MQCACF_GROUP_ENTITY_NAMES, group))
    return command(C.MQCMD_SET_AUTH_REC, *params)


def delete_rec(profile, objtype=C.MQOT_Q, principal="app"):
    return command(C.MQCMD_DELETE_AUTH_REC, st(C.MQCACF_AUTH_PROFILE_NAME, profile), i(C.MQIACF_OBJECT_TYPE, objtype),
                   sl(C.MQCACF_PRINCIPAL_ENTITY_NAMES, principal))


def inquire(options, *params):
    return command(C.MQCMD_INQUIRE_AUTH_RECS, i(C.MQIACF_AUTH_OPTIONS, options), *params)


EXPLICIT = A.MQAUTHOPT_NAME_ALL_MATCHING | A.MQAUTHOPT_ENTITY_EXPLICIT


# ---- the commands ----------------------------------------------------------------------------------
def test_the_developer_containers_records_for_app(h):
    reply = h.run(inquire(EXPLICIT, st(C.MQCACF_ENTITY_NAME, "app"), i(C.MQIACF_ENTITY_TYPE, A.MQZAET_PRINCIPAL)))
    got = {(o[C.MQIACF_OBJECT_TYPE], o[C.MQCACF_AUTH_PROFILE_NAME]): set(o[C.MQIACF_AUTHORIZATION_LIST])
           for o in reply.objects}
    assert got == {
        (C.MQOT_Q_MGR, "self"): {A.MQAUTH_CONNECT, A.MQAUTH_INQUIRE},
        (C.MQOT_Q, "DEV.**"): {A.MQAUTH_BROWSE, A.MQAUTH_INPUT, A.MQAUTH_INQUIRE, A.MQAUTH_OUTPUT},
        (C.MQOT_TOPIC, "DEV.**"): {A.MQAUTH_PUBLISH, A.MQAUTH_SUBSCRIBE},
        (C.MQOT_Q, "DEV.APP.MODEL.QUEUE"): {A.MQAUTH_BROWSE, A.MQAUTH_DISPLAY, A.MQAUTH_INPUT, A.MQAUTH_INQUIRE,
                                            A.MQAUTH_OUTPUT},
    }
    assert all(o[C.MQCACF_ENTITY_NAME] == "app" and o[C.MQCA_Q_MGR_NAME] == "QM1" for o in reply.objects)


def test_set_adds_and_removes_then_delete_removes_the_record(h):
    assert h.run(set_rec("PAY.*", add=(A.MQAUTH_OUTPUT, A.MQAUTH_INQUIRE))).ok
    assert h.run(set_rec("PAY.*", add=(A.MQAUTH_BROWSE,), remove=(A.MQAUTH_INQUIRE,))).ok
    reply = h.run(inquire(A.MQAUTHOPT_NAME_EXPLICIT | A.MQAUTHOPT_ENTITY_EXPLICIT,
                          st(C.MQCACF_AUTH_PROFILE_NAME, "PAY.*"), i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q)))
    assert [set(o[C.MQIACF_AUTHORIZATION_LIST]) for o in reply.objects] == [{A.MQAUTH_OUTPUT, A.MQAUTH_BROWSE}]
    assert h.run(set_rec("PAY.*", remove=(A.MQAUTH_ALL,))).ok  # a record with no authority stays: NONE
    reply = h.run(inquire(A.MQAUTHOPT_NAME_EXPLICIT | A.MQAUTHOPT_ENTITY_EXPLICIT,
                          st(C.MQCACF_AUTH_PROFILE_NAME, "PAY.*"), i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q)))
    assert tuple(reply.objects[0][C.MQIACF_AUTHORIZATION_LIST]) == (A.MQAUTH_NONE,)
    assert h.run(delete_rec("PAY.*")).ok
    assert failed(h.run(delete_rec("PAY.*")), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(h.run(inquire(A.MQAUTHOPT_NAME_EXPLICIT | A.MQAUTHOPT_ENTITY_EXPLICIT,
                                st(C.MQCACF_AUTH_PROFILE_NAME, "PAY.*"), i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q))),
                  C.MQRC_UNKNOWN_OBJECT_NAME)


def test_all_mqi_expands_to_the_object_types_authorities(h):
    assert h.run(set_rec("T.**", C.MQOT_TOPIC, add=(A.MQAUTH_ALL_MQI,))).ok
    rec = h.registry.objects(authrecs.KIND)[authrecs.record_key(C.MQOT_TOPIC, "T.**", A.MQZAET_PRINCIPAL, "app")]
    assert set(rec.auths) == {A.MQAUTH_PUBLISH, A.MQAUTH_SUBSCRIBE, A.MQAUTH_RESUME, A.MQAUTH_PASS_ALL_CONTEXT,
                              A.MQAUTH_PASS_IDENTITY_CONTEXT, A.MQAUTH_SET_ALL_CONTEXT, A.MQAUTH_SET_IDENTITY_CONTEXT}


@pytest.mark.parametrize("request_, reason, parameter", [
    (command(C.MQCMD_SET_AUTH_REC, st(C.MQCACF_AUTH_PROFILE_NAME, "X"), il(C.MQIACF_AUTH_ADD_AUTHS, A.MQAUTH_OUTPUT),
             sl(C.MQCACF_PRINCIPAL_ENTITY_NAMES, "app")), C.MQRCCF_OBJECT_TYPE_MISSING, None),
    (set_rec("X", add=(A.MQAUTH_OUTPUT,), principal=None), C.MQRCCF_ENTITY_NAME_MISSING, None),
    (set_rec("X", add=(A.MQAUTH_OUTPUT,), principal="nosuchuser"), C.MQRC_UNKNOWN_ENTITY,
     C.MQCACF_PRINCIPAL_ENTITY_NAMES),
    (set_rec("X", add=(A.MQAUTH_OUTPUT,), principal=None, group="nosuchgroup"), C.MQRC_UNKNOWN_ENTITY,
     C.MQCACF_GROUP_ENTITY_NAMES),
    (set_rec("X"), C.MQRCCF_AUTH_VALUE_MISSING, None),
    (set_rec("X", add=(A.MQAUTH_PUBLISH,)), C.MQRCCF_AUTH_VALUE_ERROR, C.MQIACF_AUTH_ADD_AUTHS),
    (set_rec("X", add=(99,)), C.MQRCCF_AUTH_VALUE_ERROR, C.MQIACF_AUTH_ADD_AUTHS),
    (set_rec("X", add=(A.MQAUTH_OUTPUT,), remove=(A.MQAUTH_OUTPUT,)), C.MQRCCF_AUTH_VALUE_ERROR,
     C.MQIACF_AUTH_REMOVE_AUTHS),
    (set_rec("A.***", add=(A.MQAUTH_OUTPUT,)), C.MQRCCF_PROFILE_NAME_ERROR, C.MQCACF_AUTH_PROFILE_NAME),
    (set_rec("", add=(A.MQAUTH_OUTPUT,)), C.MQRCCF_PROFILE_NAME_ERROR, C.MQCACF_AUTH_PROFILE_NAME),
    (set_rec("X", 4242, add=(A.MQAUTH_OUTPUT,)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_OBJECT_TYPE),
    (set_rec("OTHERQM", C.MQOT_Q_MGR, add=(A.MQAUTH_CONNECT,)), C.MQRCCF_PROFILE_NAME_ERROR,
     C.MQCACF_AUTH_PROFILE_NAME),
    (command(C.MQCMD_INQUIRE_AUTH_RECS, i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q)), C.MQRCCF_PARM_MISSING,
     C.MQIACF_AUTH_OPTIONS),
    (inquire(A.MQAUTHOPT_NAME_EXPLICIT | A.MQAUTHOPT_ENTITY_SET), C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_AUTH_OPTIONS),
    (inquire(EXPLICIT, st(C.MQCACF_ENTITY_NAME, "app")), C.MQRCCF_ENTITY_TYPE_MISSING, C.MQIACF_ENTITY_TYPE),
    (inquire(EXPLICIT, st(C.MQCACF_ENTITY_NAME, "ghost"), i(C.MQIACF_ENTITY_TYPE, A.MQZAET_PRINCIPAL)),
     C.MQRC_UNKNOWN_ENTITY, C.MQCACF_ENTITY_NAME),
    (command(C.MQCMD_INQUIRE_ENTITY_AUTH, i(C.MQIACF_ENTITY_TYPE, A.MQZAET_PRINCIPAL),
             i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q)), C.MQRCCF_ENTITY_NAME_MISSING, None),
    (command(C.MQCMD_REFRESH_SECURITY, i(C.MQIACF_SECURITY_TYPE, A.MQSECTYPE_CLASSES)), C.MQRCCF_PARM_VALUE_ERROR,
     C.MQIACF_SECURITY_TYPE),
])
def test_bad_input_gets_the_documented_reason(h, request_, reason, parameter):
    assert failed(h.run(request_), reason, parameter)


def test_inquire_name_all_matching_returns_the_profiles_that_apply(h):
    assert h.run(set_rec("DEV.QUEUE.*", add=(A.MQAUTH_BROWSE,))).ok
    reply = h.run(inquire(EXPLICIT, st(C.MQCACF_AUTH_PROFILE_NAME, "DEV.QUEUE.1"), i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q)))
    assert sorted(o[C.MQCACF_AUTH_PROFILE_NAME] for o in reply.objects) == ["DEV.**", "DEV.QUEUE.*"]
    wildcard = h.run(inquire(EXPLICIT | A.MQAUTHOPT_NAME_AS_WILDCARD, st(C.MQCACF_AUTH_PROFILE_NAME, "DEV.APP.**"),
                             i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q)))
    assert [o[C.MQCACF_AUTH_PROFILE_NAME] for o in wildcard.objects] == ["DEV.APP.MODEL.QUEUE"]


def test_entity_set_includes_the_principals_groups(h):
    assert h.run(set_rec("GRP.Q", add=(A.MQAUTH_OUTPUT,), principal=None, group="mqclient")).ok
    options = A.MQAUTHOPT_NAME_ALL_MATCHING | A.MQAUTHOPT_ENTITY_SET
    reply = h.run(inquire(options, st(C.MQCACF_AUTH_PROFILE_NAME, "GRP.Q"), i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q),
                          st(C.MQCACF_ENTITY_NAME, "app"), i(C.MQIACF_ENTITY_TYPE, A.MQZAET_PRINCIPAL)))
    assert [(o[C.MQCACF_ENTITY_NAME], o[C.MQIACF_ENTITY_TYPE]) for o in reply.objects] == [("mqclient", A.MQZAET_GROUP)]


def test_inquire_entity_authority_is_the_cumulative_authority(h):
    assert h.run(set_rec("GRP.Q", add=(A.MQAUTH_SET,), principal=None, group="mqclient")).ok
    assert h.run(set_rec("GRP.*", add=(A.MQAUTH_OUTPUT,))).ok
    reply = h.run(command(C.MQCMD_INQUIRE_ENTITY_AUTH, st(C.MQCACF_ENTITY_NAME, "app"),
                          i(C.MQIACF_ENTITY_TYPE, A.MQZAET_PRINCIPAL), i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q),
                          st(C.MQCACF_AUTH_PROFILE_NAME, "GRP.Q")))
    assert set(reply.objects[0][C.MQIACF_AUTHORIZATION_LIST]) == {A.MQAUTH_SET, A.MQAUTH_OUTPUT}
    mqm = h.run(command(C.MQCMD_INQUIRE_ENTITY_AUTH, st(C.MQCACF_ENTITY_NAME, "mqm"),
                        i(C.MQIACF_ENTITY_TYPE, A.MQZAET_GROUP), i(C.MQIACF_OBJECT_TYPE, C.MQOT_Q_MGR)))
    assert A.MQAUTH_ALT_USER_AUTHORITY in mqm.objects[0][C.MQIACF_AUTHORIZATION_LIST]


def test_refresh_security_is_accepted(h):
    assert h.run(command(C.MQCMD_REFRESH_SECURITY)).ok
    assert h.run(command(C.MQCMD_REFRESH_SECURITY, i(C.MQIACF_SECURITY_TYPE, A.MQSECTYPE_SSL))).ok


def test_records_survive_a_restart(tmp_path, clock):
    first = Harness(tmp_path / "qm", clock=clock)
    assert first.run(set_rec("KEPT.**", add=(A.MQAUTH_OUTPUT,))).ok
    assert first.run(delete_rec("DEV.APP.MODEL.QUEUE")).ok  # a deleted default stays deleted
    first.close()
    again = Harness(tmp_path / "qm", clock=clock)
    try:
        assert authrecs.has(again.registry, "app", C.MQOT_Q, "KEPT.A.B", A.MQAUTH_OUTPUT)
        assert not authrecs.has(again.registry, "app", C.MQOT_Q, "DEV.APP.MODEL.QUEUE", A.MQAUTH_DISPLAY)
    finally:
        again.close()


# ---- generic profiles -----------------------------------------------------------------------------
@pytest.mark.parametrize("profile, name, expected", [
    ("DEV.**", "DEV.QUEUE.1", True), ("DEV.**", "DEV", True), ("DEV.**", "DEVX.Q", False),
    ("DEV.*", "DEV.QUEUE", True), ("DEV.*", "DEV.QUEUE.1", False), ("DEV.QUEUE.?", "DEV.QUEUE.1", True),
    ("DEV.QUEUE.?", "DEV.QUEUE.10", False), ("A.**.Z", "A.Z", True), ("A.**.Z", "A.B.C.Z", True),
    ("**", "ANY.THING", True), ("AB*", "ABC", True), ("AB*", "AB.C", False), ("X", "X", True),
])
def test_ibm_generic_profile_rules(profile, name, expected):
    assert authrecs.profile_matches(profile, name) is expected


def test_the_most_specific_profile_wins_and_groups_add(h):
    reg = h.registry
    assert authrecs.has(reg, "app", C.MQOT_Q, "DEV.QUEUE.1", A.MQAUTH_OUTPUT)
    assert h.run(set_rec("DEV.QUEUE.*", add=(A.MQAUTH_BROWSE,))).ok  # more specific than DEV.**: only browse
    assert not authrecs.has(reg, "app", C.MQOT_Q, "DEV.QUEUE.1", A.MQAUTH_OUTPUT)
    assert authrecs.has(reg, "app", C.MQOT_Q, "DEV.QUEUE.1", A.MQAUTH_BROWSE)
    assert authrecs.has(reg, "app", C.MQOT_Q, "DEV.DEAD.LETTER.QUEUE", A.MQAUTH_OUTPUT)  # DEV.** still applies
    assert h.run(set_rec("DEV.QUEUE.1", add=(A.MQAUTH_SET,), principal=None, group="mqclient")).ok
    assert set(authrecs.authority(reg, "app", C.MQOT_Q, "DEV.QUEUE.1")) == {A.MQAUTH_BROWSE, A.MQAUTH_SET}


# ---- enforcement ----------------------------------------------------------------------------------
@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")
    reply = manager.engine.execute(command(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, PRIVATE),
                                           i(C.MQIA_Q_TYPE, C.MQQT_LOCAL)))
    assert reply[0].header.CompCode == C.MQCC_OK
    yield manager
    manager.shutdown()


def admin_run(qm, request):
    out = qm.engine.execute(request)
    return out[0].header.Reason


def app(qm):
    return qm.connect("QM1", user="app", admin=False, appl_name="test")


def reason_of(fn, *args):
    with pytest.raises(MQIError) as info:
        fn(*args)
    return info.value.reason


def test_connect_needs_connect_authority(qm):
    assert app(qm).user == "app"
    with pytest.raises(MQIError) as info:
        qm.connect("QM1", user="stranger", admin=False)
    assert info.value.reason == C.MQRC_NOT_AUTHORIZED
    assert admin_run(qm, set_rec("self", C.MQOT_Q_MGR, remove=(A.MQAUTH_CONNECT,))) == 0
    with pytest.raises(MQIError) as info:
        app(qm)
    assert info.value.reason == C.MQRC_NOT_AUTHORIZED


def test_set_authority_record_lifts_a_2035_and_delete_imposes_it_again(qm):
    session = app(qm)
    od = lambda: S.MQOD(ObjectName=PRIVATE)  # noqa: E731
    assert reason_of(qm.open_object, session, od(), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED
    assert admin_run(qm, set_rec(PRIVATE, add=(A.MQAUTH_OUTPUT,))) == 0
    handle, _ = qm.open_object(session, od(), C.MQOO_OUTPUT)  # the next MQOPEN: no REFRESH SECURITY needed
    assert reason_of(qm.open_object, session, od(), C.MQOO_INPUT_AS_Q_DEF) == C.MQRC_NOT_AUTHORIZED  # get: still no
    qm.close_object(session, handle.hobj, C.MQCO_NONE)
    assert admin_run(qm, delete_rec(PRIVATE)) == 0
    assert reason_of(qm.open_object, session, od(), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED
    # MQPUT1 asks the same question
    assert reason_of(qm.put1, session, od(), S.MQMD(), S.MQPMO(), b"x") == C.MQRC_NOT_AUTHORIZED


def test_each_open_option_needs_its_authority(qm):
    session = app(qm)
    for options in (C.MQOO_BROWSE, C.MQOO_INQUIRE, C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT):
        handle, _ = qm.open_object(session, S.MQOD(ObjectName="DEV.QUEUE.1"), options)
        qm.close_object(session, handle.hobj, C.MQCO_NONE)
    for options in (C.MQOO_SET, C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT):
        assert reason_of(qm.open_object, session, S.MQOD(ObjectName="DEV.QUEUE.1"), options) == C.MQRC_NOT_AUTHORIZED


def test_set_identity_context_needs_setid(qm):
    session = app(qm)
    opts = C.MQOO_OUTPUT | C.MQOO_SET_IDENTITY_CONTEXT
    assert reason_of(qm.open_object, session, S.MQOD(ObjectName="DEV.QUEUE.1"), opts) == C.MQRC_NOT_AUTHORIZED
    assert admin_run(qm, set_rec("DEV.**", add=(A.MQAUTH_SET_IDENTITY_CONTEXT,))) == 0
    handle, _ = qm.open_object(session, S.MQOD(ObjectName="DEV.QUEUE.1"), opts)
    md = S.MQMD(UserIdentifier="someoneelse")
    stored, _, _ = qm.put(session, handle.hobj, md, S.MQPMO(Options=C.MQPMO_SET_IDENTITY_CONTEXT
                                                           | C.MQPMO_NO_SYNCPOINT), b"hello")
    assert stored.UserIdentifier == "someoneelse"
    # without the MQOO option the identity is the connection's, as before
    plain, _ = qm.open_object(session, S.MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT)
    stored, _, _ = qm.put(session, plain.hobj, S.MQMD(UserIdentifier="someoneelse"),
                          S.MQPMO(Options=C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_NO_SYNCPOINT), b"hello")
    assert stored.UserIdentifier == "app"


def test_alternate_user_authority(qm):
    session = app(qm)
    alt = lambda user: S.MQOD(ObjectName=PRIVATE, AlternateUserId=user)  # noqa: E731
    opts = C.MQOO_OUTPUT | C.MQOO_ALTERNATE_USER_AUTHORITY
    assert reason_of(qm.open_object, session, alt("admin"), opts) == C.MQRC_NOT_AUTHORIZED  # app has no altusr
    assert admin_run(qm, set_rec("self", C.MQOT_Q_MGR, add=(A.MQAUTH_ALT_USER_AUTHORITY,))) == 0
    handle, _ = qm.open_object(session, alt("admin"), opts)  # admin (mqm) may put there
    qm.close_object(session, handle.hobj, C.MQCO_NONE)
    assert reason_of(qm.open_object, session, alt("app"), opts) == C.MQRC_NOT_AUTHORIZED  # app itself may not


def test_dynamic_queues_need_display_on_the_model_and_belong_to_their_creator(qm):
    session = app(qm)
    handle, od = qm.open_object(session, S.MQOD(ObjectName="DEV.APP.MODEL.QUEUE", DynamicQName="APP.REPLY.*"),
                                C.MQOO_INPUT_EXCLUSIVE)
    assert od.ObjectName.startswith("APP.REPLY.")
    put1 = qm.put1(session, S.MQOD(ObjectName=od.ObjectName), S.MQMD(), S.MQPMO(), b"reply")
    assert put1[3] == 0  # the creator may put to its own dynamic queue
    assert reason_of(qm.open_object, session, S.MQOD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE"),
                     C.MQOO_INPUT_EXCLUSIVE) == C.MQRC_NOT_AUTHORIZED


def test_app_cannot_administer(qm):
    session = app(qm)
    assert reason_of(qm.open_object, session, S.MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"),
                     C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED


def test_topics_publish_and_subscribe_through_the_governing_object(qm):
    session = app(qm)
    topic = lambda s: S.MQOD(ObjectType=C.MQOT_TOPIC, ObjectString=S.MQCHARV(s, len(s)))  # noqa: E731
    handle, _ = qm.open_object(session, topic("dev/prices"), C.MQOO_OUTPUT)  # DEV.BASE.TOPIC's dev/ (S30)
    qm.close_object(session, handle.hobj, C.MQCO_NONE)
    assert reason_of(qm.open_object, session, topic("private/prices"), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED
    assert admin_run(qm, set_rec("SYSTEM.BASE.TOPIC", C.MQOT_TOPIC, add=(A.MQAUTH_PUBLISH,))) == 0
    handle, _ = qm.open_object(session, topic("private/prices"), C.MQOO_OUTPUT)  # granted at the tree's root
    qm.close_object(session, handle.hobj, C.MQCO_NONE)


def test_namelists_need_inquire(qm):
    session = app(qm)
    od = S.MQOD(ObjectType=C.MQOT_NAMELIST, ObjectName="SYSTEM.DEFAULT.NAMELIST")
    assert reason_of(qm.open_object, session, od, C.MQOO_INQUIRE) == C.MQRC_NOT_AUTHORIZED
    assert admin_run(qm, set_rec("SYSTEM.DEFAULT.NAMELIST", C.MQOT_NAMELIST, add=(A.MQAUTH_INQUIRE,))) == 0
    od = S.MQOD(ObjectType=C.MQOT_NAMELIST, ObjectName="SYSTEM.DEFAULT.NAMELIST")
    handle, _ = qm.open_object(session, od, C.MQOO_INQUIRE)
    assert handle.kind == "namelist"


def test_a_remembered_topic_grant_goes_when_a_record_or_a_topic_object_changes(qm):
    """check_topic remembers grants (an MQTT client publishes to the same topics again and again): each
    MQPUT1 below is asked after the same one was granted, and answers as the records and objects are now."""
    session = app(qm)

    def put1(topic_string):
        od = S.MQOD(ObjectType=C.MQOT_TOPIC, ObjectString=S.MQCHARV(topic_string, len(topic_string)))
        return qm.put1(session, od, S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x")

    put1("dev/remembered")
    put1("dev/remembered")  # granted from memory
    assert admin_run(qm, set_rec("DEV.**", C.MQOT_TOPIC, remove=(A.MQAUTH_PUBLISH,))) == 0
    assert reason_of(put1, "dev/remembered") == C.MQRC_NOT_AUTHORIZED  # a record changed
    assert admin_run(qm, set_rec("DEV.**", C.MQOT_TOPIC, add=(A.MQAUTH_PUBLISH,))) == 0
    put1("dev/remembered")
    # granted through a topic object whose own records stay when it is deleted (a generic profile):
    # only the topic object's going takes the grant away
    assert admin_run(qm, set_rec("PRIV.**", C.MQOT_TOPIC, add=(A.MQAUTH_PUBLISH,))) == 0
    assert admin_run(qm, command(C.MQCMD_CREATE_TOPIC, st(C.MQCA_TOPIC_NAME, "PRIV.T"),
                                 st(C.MQCA_TOPIC_STRING, "private"))) == 0
    put1("private/remembered")
    put1("private/remembered")
    assert admin_run(qm, command(C.MQCMD_DELETE_TOPIC, st(C.MQCA_TOPIC_NAME, "PRIV.T"))) == 0
    assert reason_of(put1, "private/remembered") == C.MQRC_NOT_AUTHORIZED
