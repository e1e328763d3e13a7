"""Channel authentication records: Set and Inquire CHLAUTH through the engine, the records across a
restart, and the connection-time check (registry/chlauth.check)."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.security import vocab as A
from qmlite.registry.security import chlauth
from tests.support.pcfkit import Harness, command, failed, i, il, st

APP = "DEV.APP.SVRCONN"
ADMIN = "DEV.ADMIN.SVRCONN"


def sl(pid, *values):
    return P.CFSL(pid, tuple(values), 0)


def set_ca(profile, type_, *params, action=None):
    extra = [i(C.MQIACF_ACTION, action)] if action is not None else []
    return command(C.MQCMD_SET_CHLAUTH_REC, st(C.MQCACH_CHANNEL_NAME, profile), i(C.MQIACF_CHLAUTH_TYPE, type_),
                   *extra, *params)


def inq(profile, *params):
    return command(C.MQCMD_INQUIRE_CHLAUTH_RECS, st(C.MQCACH_CHANNEL_NAME, profile), *params)


def check(reg, channel=APP, user="app", address="10.1.2.3", **kw):
    kw.setdefault("channel_mcauser", "" if channel == ADMIN else "app")
    return chlauth.check(reg, channel=channel, address=address, client_user=user, **kw)


# ---- the defaults and the check ---------------------------------------------------------------------
def test_the_developer_containers_records(h):
    reply = h.run(inq("*"))
    got = {(o[C.MQCACH_CHANNEL_NAME], o[C.MQIACF_CHLAUTH_TYPE]) for o in reply.objects}
    assert got == {("*", A.MQCAUT_BLOCKUSER), ("*", A.MQCAUT_ADDRESSMAP), ("SYSTEM.*", A.MQCAUT_ADDRESSMAP),
                   ("SYSTEM.ADMIN.SVRCONN", A.MQCAUT_ADDRESSMAP), (APP, A.MQCAUT_ADDRESSMAP),
                   (ADMIN, A.MQCAUT_BLOCKUSER), (ADMIN, A.MQCAUT_USERMAP)}
    usermap = next(o for o in reply.objects if o[C.MQIACF_CHLAUTH_TYPE] == A.MQCAUT_USERMAP)
    assert usermap[C.MQCACH_CLIENT_USER_ID] == "admin" and usermap[C.MQCACH_MCA_USER_ID] == "mqm"


def test_default_check_app_channel_runs_as_app_and_admin_needs_a_password(h):
    reg = h.registry
    assert check(reg, user="anyone") == chlauth.Verdict(True, "app")  # USERSRC(CHANNEL): MCAUSER app
    refused = check(reg, ADMIN, "admin")  # USERMAP admin -> mqm, CHCKCLNT(REQDADM): a password is needed
    assert not refused.allowed and refused.reason == C.MQRC_NOT_AUTHORIZED
    assert check(reg, ADMIN, "admin", password_given=True, authenticated_user="admin") == chlauth.Verdict(True, "admin")
    assert not check(reg, "SYSTEM.DEF.SVRCONN", "admin", password_given=True).allowed  # SYSTEM.* NOACCESS
    assert not check(reg, "OTHER.SVRCONN", "app").allowed  # the back-stop


def test_blockuser_refuses_and_chlauth_disabled_lets_in(h):
    reg = h.registry
    assert h.run(set_ca(APP, A.MQCAUT_BLOCKUSER, sl(C.MQCACH_MCA_USER_ID_LIST, "app"))).ok
    verdict = check(reg)
    assert not verdict.allowed and verdict.reason == C.MQRC_NOT_AUTHORIZED
    assert h.run(command(C.MQCMD_CHANGE_Q_MGR, i(C.MQIA_CHLAUTH_RECORDS, A.MQCHLA_DISABLED))).ok
    assert check(reg).allowed
    assert h.run(command(C.MQCMD_INQUIRE_Q_MGR, il(C.MQIACF_Q_MGR_ATTRS, C.MQIA_CHLAUTH_RECORDS))).objects[0][
        C.MQIA_CHLAUTH_RECORDS] == A.MQCHLA_DISABLED


def test_mqadmin_blocks_privileged_users_on_channels_without_their_own_blockuser(h):
    reg = h.registry
    assert h.run(set_ca("OPS.SVRCONN", A.MQCAUT_ADDRESSMAP, st(C.MQCACH_CONNECTION_NAME, "*"),
                        i(C.MQIACH_USER_SOURCE, A.MQUSRC_CHANNEL))).ok
    assert check(reg, "OPS.SVRCONN", "bob", channel_mcauser="").allowed
    assert not check(reg, "OPS.SVRCONN", "mqm", channel_mcauser="", password_given=True).allowed  # *MQADMIN


def test_blockaddr_addressmap_and_warn(h):
    reg = h.registry
    assert h.run(set_ca("*", A.MQCAUT_BLOCKADDR, sl(C.MQCACH_CONNECTION_NAME_LIST, "10.9.*", "192.168.1.1-20"))).ok
    assert not check(reg, address="10.9.0.1").allowed
    assert not check(reg, address="192.168.1.7").allowed
    assert check(reg, address="192.168.1.21").allowed
    assert h.run(set_ca(APP, A.MQCAUT_ADDRESSMAP, st(C.MQCACH_CONNECTION_NAME, "172.16.*"),
                        i(C.MQIACH_USER_SOURCE, A.MQUSRC_MAP), st(C.MQCACH_MCA_USER_ID, "partner"))).ok
    assert check(reg, address="172.16.5.5").user == "partner"  # a more specific address wins
    assert h.run(set_ca(APP, A.MQCAUT_USERMAP, st(C.MQCACH_CLIENT_USER_ID, "joe"),
                        i(C.MQIACH_USER_SOURCE, A.MQUSRC_NOACCESS), i(C.MQIACH_WARNING, A.MQWARN_YES))).ok
    assert check(reg, user="joe").allowed  # WARN(YES): logged, let in


# ---- Set CHLAUTH ------------------------------------------------------------------------------------
def test_blockuser_lists_add_replace_remove_removeall(h):
    reg = h.registry
    users = lambda: reg.objects(chlauth.KIND)["blockuser/X.SVRCONN"].user_list  # noqa: E731
    assert h.run(set_ca("X.SVRCONN", A.MQCAUT_BLOCKUSER, sl(C.MQCACH_MCA_USER_ID_LIST, "a", "b"))).ok
    assert h.run(set_ca("X.SVRCONN", A.MQCAUT_BLOCKUSER, sl(C.MQCACH_MCA_USER_ID_LIST, "c"))).ok  # ADD extends
    assert users() == ("a", "b", "c")
    assert h.run(set_ca("X.SVRCONN", A.MQCAUT_BLOCKUSER, sl(C.MQCACH_MCA_USER_ID_LIST, "b"),
                        action=C.MQACT_REMOVE)).ok
    assert users() == ("a", "c")
    assert h.run(set_ca("X.SVRCONN", A.MQCAUT_BLOCKUSER, sl(C.MQCACH_MCA_USER_ID_LIST, "z"),
                        action=C.MQACT_REPLACE)).ok
    assert users() == ("z",)
    assert h.run(set_ca("X.SVRCONN", A.MQCAUT_BLOCKUSER, action=C.MQACT_REMOVEALL)).ok
    assert "blockuser/X.SVRCONN" not in reg.objects(chlauth.KIND)
    assert failed(h.run(set_ca("X.SVRCONN", A.MQCAUT_BLOCKUSER, action=C.MQACT_REMOVEALL)),
                  C.MQRCCF_CHLAUTH_NOT_FOUND)


def test_mapping_add_exists_replace_remove(h):
    rec = (st(C.MQCACH_CONNECTION_NAME, "10.0.0.1"), i(C.MQIACH_USER_SOURCE, A.MQUSRC_MAP),
           st(C.MQCACH_MCA_USER_ID, "u1"))
    assert h.run(set_ca("M.SVRCONN", A.MQCAUT_ADDRESSMAP, *rec)).ok
    assert failed(h.run(set_ca("M.SVRCONN", A.MQCAUT_ADDRESSMAP, *rec)), C.MQRCCF_CHLAUTH_ALREADY_EXISTS)
    assert h.run(set_ca("M.SVRCONN", A.MQCAUT_ADDRESSMAP, *rec[:2], st(C.MQCACH_MCA_USER_ID, "u2"),
                        action=C.MQACT_REPLACE)).ok
    reply = h.run(inq("M.SVRCONN", i(C.MQIACH_MATCH, A.MQMATCH_EXACT)))
    assert reply.objects[0][C.MQCACH_MCA_USER_ID] == "u2"
    assert h.run(set_ca("M.SVRCONN", A.MQCAUT_ADDRESSMAP, rec[0], action=C.MQACT_REMOVE)).ok
    assert failed(h.run(set_ca("M.SVRCONN", A.MQCAUT_ADDRESSMAP, rec[0], action=C.MQACT_REMOVE)),
                  C.MQRCCF_CHLAUTH_NOT_FOUND)


@pytest.mark.parametrize("request_, reason, parameter", [
    (set_ca("X", 77), C.MQRCCF_CHLAUTH_TYPE_ERROR, C.MQIACF_CHLAUTH_TYPE),
    (set_ca("X", A.MQCAUT_BLOCKUSER, sl(C.MQCACH_MCA_USER_ID_LIST, "a"), action=C.MQACT_FAIL),
     C.MQRCCF_CHLAUTH_ACTION_ERROR, C.MQIACF_ACTION),
    (set_ca("X", A.MQCAUT_BLOCKUSER), C.MQRCCF_PARM_MISSING, C.MQCACH_MCA_USER_ID_LIST),
    (set_ca("X", A.MQCAUT_BLOCKADDR, sl(C.MQCACH_CONNECTION_NAME_LIST, "1.2.3.4")), C.MQRCCF_CHLAUTH_NAME_ERROR,
     C.MQCACH_CHANNEL_NAME),
    (set_ca("*", A.MQCAUT_BLOCKADDR, sl(C.MQCACH_CONNECTION_NAME_LIST, "1.2.3.999")), C.MQRCCF_ADDRESS_ERROR,
     C.MQCACH_CONNECTION_NAME),
    (set_ca("X", A.MQCAUT_BLOCKUSER, sl(C.MQCACH_MCA_USER_ID_LIST, "a"), st(C.MQCACH_MCA_USER_ID, "m")),
     C.MQRCCF_WRONG_CHLAUTH_TYPE, C.MQCACH_MCA_USER_ID),
    (set_ca("X", A.MQCAUT_USERMAP, st(C.MQCACH_CLIENT_USER_ID, "j*"), i(C.MQIACH_USER_SOURCE, A.MQUSRC_CHANNEL)),
     C.MQRCCF_CHLAUTH_CLNTUSER_ERROR, C.MQCACH_CLIENT_USER_ID),
    (set_ca("X", A.MQCAUT_USERMAP, st(C.MQCACH_CLIENT_USER_ID, "j")), C.MQRCCF_PARM_MISSING, C.MQCACH_MCA_USER_ID),
    (set_ca("X", A.MQCAUT_USERMAP, st(C.MQCACH_CLIENT_USER_ID, "j"), i(C.MQIACH_USER_SOURCE, 9)),
     C.MQRCCF_CHLAUTH_USERSRC_ERROR, C.MQIACH_USER_SOURCE),
    (set_ca("X", A.MQCAUT_USERMAP, st(C.MQCACH_CLIENT_USER_ID, "j"), i(C.MQIACH_USER_SOURCE, A.MQUSRC_CHANNEL),
            st(C.MQCACH_MCA_USER_ID, "m")), C.MQRCCF_WRONG_CHLAUTH_USERSRC, C.MQCACH_MCA_USER_ID),
    (set_ca("X", A.MQCAUT_USERMAP, st(C.MQCACH_CLIENT_USER_ID, "j"), i(C.MQIACH_USER_SOURCE, A.MQUSRC_CHANNEL),
            i(C.MQIA_CHECK_CLIENT_BINDING, 42)), C.MQRCCF_CHLAUTH_CHKCLI_ERROR, C.MQIA_CHECK_CLIENT_BINDING),
    (set_ca("X", A.MQCAUT_ADDRESSMAP, st(C.MQCACH_CONNECTION_NAME, "*"), action=C.MQACT_REMOVEALL),
     C.MQRCCF_WRONG_CHLAUTH_ACTION, C.MQCACH_CONNECTION_NAME),
    (set_ca("X", A.MQCAUT_ADDRESSMAP, st(C.MQCACH_CONNECTION_NAME, "*"), st(C.MQCA_CHLAUTH_DESC, "d"),
            action=C.MQACT_REMOVE), C.MQRCCF_WRONG_CHLAUTH_ACTION, C.MQCA_CHLAUTH_DESC),
    (inq("*", st(C.MQCACH_CONNECTION_NAME, "1.2.3.4")), C.MQRCCF_WRONG_CHLAUTH_MATCH, C.MQCACH_CONNECTION_NAME),
    (inq("DEV.*", i(C.MQIACH_MATCH, A.MQMATCH_RUNCHECK), st(C.MQCACH_CONNECTION_NAME, "1.2.3.4")),
     C.MQRCCF_CHLAUTH_RUNCHECK_ERROR, C.MQCACH_CHANNEL_NAME),
    (inq("NOTHING.HERE", i(C.MQIACH_MATCH, A.MQMATCH_EXACT)), C.MQRCCF_CHLAUTH_NOT_FOUND, None),
])
def test_bad_input_gets_the_documented_reason(h, request_, reason, parameter):
    assert failed(h.run(request_), reason, parameter)


def test_inquire_matches(h):
    all_for_app = h.run(inq(APP, i(C.MQIACH_MATCH, A.MQMATCH_ALL)))
    assert {o[C.MQCACH_CHANNEL_NAME] for o in all_for_app.objects} == {"*", APP}
    runcheck = h.run(inq(APP, i(C.MQIACH_MATCH, A.MQMATCH_RUNCHECK), st(C.MQCACH_CONNECTION_NAME, "10.0.0.1")))
    assert [(o[C.MQCACH_CHANNEL_NAME], o[C.MQIACH_USER_SOURCE]) for o in runcheck.objects] == [
        (APP, A.MQUSRC_CHANNEL)]
    only_blockusers = h.run(inq("*", i(C.MQIACF_CHLAUTH_TYPE, A.MQCAUT_BLOCKUSER)))
    assert {o[C.MQCACH_CHANNEL_NAME] for o in only_blockusers.objects} == {"*", ADMIN}


def test_records_and_switches_survive_a_restart(tmp_path, clock):
    first = Harness(tmp_path / "qm", clock=clock)
    assert first.run(set_ca(APP, A.MQCAUT_BLOCKUSER, sl(C.MQCACH_MCA_USER_ID_LIST, "app"))).ok
    assert first.run(command(C.MQCMD_CHANGE_Q_MGR, i(C.MQIA_CHLAUTH_RECORDS, A.MQCHLA_DISABLED),
                             st(C.MQCA_CONN_AUTH, " "))).ok
    first.close()
    again = Harness(tmp_path / "qm", clock=clock)
    try:
        assert again.registry.qmgr.chlauth_records == A.MQCHLA_DISABLED
        assert again.registry.qmgr.conn_auth == ""
        assert "blockuser/" + APP in again.registry.objects(chlauth.KIND)
    finally:
        again.close()


def test_no_developer_records_without_the_developer_objects(tmp_path):
    bare = Harness(tmp_path / "qm", dev_objects=False)
    try:
        assert bare.registry.objects(chlauth.KIND) == {}
        assert check(bare.registry, "SYSTEM.DEF.SVRCONN", "admin", channel_mcauser="").allowed
    finally:
        bare.close()
