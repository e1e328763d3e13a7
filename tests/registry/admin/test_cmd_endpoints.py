"""Authentication information, listeners, services and communication information through the
command engine: lifecycles, type rules, status and control, persistence."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.objects import values as V
from qmlite.registry.objects import endpoints as EP
from tests.support.pcfkit import Harness, command, failed, i, il, st

AI_NAME, AI_TYPE = C.MQCA_AUTH_INFO_NAME, C.MQIA_AUTH_INFO_TYPE
LSTR = C.MQCACH_LISTENER_NAME
SVC = C.MQCA_SERVICE_NAME
CI = C.MQCA_COMM_INFO_NAME


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path)
    yield harness
    harness.close()


# ---- authentication information ------------------------------------------------------------------
def test_default_authinfo_objects_and_dev_authinfo(h):
    r = h.run(command(C.MQCMD_INQUIRE_AUTH_INFO, st(AI_NAME, "*")))
    by_name = {o[AI_NAME]: o for o in r.objects}
    for auth_type, name in EP.DEFAULT_AUTHINFO_OF.items():
        assert by_name[name][AI_TYPE] == auth_type
    dev = by_name["DEV.AUTHINFO"]
    assert (dev[AI_TYPE], dev[C.MQIA_CHECK_CLIENT_BINDING], dev[C.MQIA_CHECK_LOCAL_BINDING],
            dev[C.MQIA_ADOPT_CONTEXT]) == (V.MQAIT_IDPW_OS, C.MQCHK_REQUIRED_ADMIN, C.MQCHK_OPTIONAL, C.MQADPCTX_YES)
    assert C.MQCA_AUTH_INFO_CONN_NAME not in dev  # an LDAP attribute: not an IDPWOS object's
    assert C.MQCA_AUTH_INFO_OCSP_URL in by_name["SYSTEM.DEFAULT.AUTHINFO.OCSP"]


def test_the_queue_manager_names_dev_authinfo_as_conn_auth(h):
    r = h.run(command(C.MQCMD_INQUIRE_Q_MGR, il(C.MQIACF_Q_MGR_ATTRS, C.MQCA_CONN_AUTH)))
    assert r.objects[0][C.MQCA_CONN_AUTH] == "DEV.AUTHINFO"


def test_authinfo_lifecycle_and_type_rules(h):
    create = C.MQCMD_CREATE_AUTH_INFO
    assert failed(h.run(command(create, st(AI_NAME, "MY.LDAP"))), C.MQRCCF_PARM_MISSING, AI_TYPE)
    assert failed(h.run(command(create, st(AI_NAME, "MY.LDAP"), i(AI_TYPE, 9))), C.MQRCCF_PARM_VALUE_ERROR, AI_TYPE)
    assert failed(h.run(command(create, st(AI_NAME, "MY.OS"), i(AI_TYPE, V.MQAIT_IDPW_OS),
                                st(C.MQCA_AUTH_INFO_CONN_NAME, "ldap(389)"))),
                  C.MQRCCF_PARM_CONFLICT, C.MQCA_AUTH_INFO_CONN_NAME)
    assert h.run(command(create, st(AI_NAME, "MY.LDAP"), i(AI_TYPE, V.MQAIT_IDPW_LDAP),
                         st(C.MQCA_AUTH_INFO_CONN_NAME, "ldap(389)"), st(C.MQCA_LDAP_PASSWORD, "secret"))).ok
    change = command(C.MQCMD_CHANGE_AUTH_INFO, st(AI_NAME, "MY.LDAP"), i(AI_TYPE, V.MQAIT_IDPW_OS))
    assert failed(h.run(change), C.MQRCCF_PARM_CONFLICT, AI_TYPE)
    assert h.run(command(C.MQCMD_CHANGE_AUTH_INFO, st(AI_NAME, "MY.LDAP"), i(AI_TYPE, V.MQAIT_IDPW_LDAP),
                         i(C.MQIA_CHECK_CLIENT_BINDING, C.MQCHK_REQUIRED))).ok
    [obj] = h.run(command(C.MQCMD_INQUIRE_AUTH_INFO, st(AI_NAME, "MY.LDAP"))).objects
    assert obj[C.MQCA_AUTH_INFO_CONN_NAME] == "ldap(389)" and obj[C.MQIA_CHECK_CLIENT_BINDING] == C.MQCHK_REQUIRED
    assert obj[C.MQCA_LDAP_PASSWORD] == "********"  # never shown
    assert obj[C.MQCA_LDAP_USER_OBJECT_CLASS] == "inetOrgPerson"
    copy = command(C.MQCMD_COPY_AUTH_INFO, st(C.MQCACF_FROM_AUTH_INFO_NAME, "MY.LDAP"),
                   st(C.MQCACF_TO_AUTH_INFO_NAME, "MY.LDAP2"), i(AI_TYPE, V.MQAIT_IDPW_LDAP))
    assert h.run(copy).ok
    names = h.run(command(C.MQCMD_INQUIRE_AUTH_INFO_NAMES, st(AI_NAME, "*"), i(AI_TYPE, V.MQAIT_IDPW_LDAP)))
    assert [n.strip() for n in names.objects[0][C.MQCACF_AUTH_INFO_NAMES]] == \
        ["MY.LDAP", "MY.LDAP2", "SYSTEM.DEFAULT.AUTHINFO.IDPWLDAP"]
    assert h.run(command(C.MQCMD_DELETE_AUTH_INFO, st(AI_NAME, "MY.LDAP2"))).ok
    assert failed(h.run(command(C.MQCMD_DELETE_AUTH_INFO, st(AI_NAME, "MY.LDAP2"))), C.MQRC_UNKNOWN_OBJECT_NAME)


# ---- listeners -----------------------------------------------------------------------------------
def test_listener_defaults_and_lifecycle(h):
    r = h.run(command(C.MQCMD_INQUIRE_LISTENER, st(LSTR, "*")))
    by_name = {o[LSTR]: o for o in r.objects}
    dev = by_name["DEV.LISTENER.TCP"]
    assert (dev[C.MQIACH_PORT], dev[C.MQIACH_LISTENER_CONTROL], dev[C.MQIACH_XMIT_PROTOCOL_TYPE]) == \
        (1414, C.MQSVC_CONTROL_Q_MGR, C.MQXPT_TCP)
    assert by_name["SYSTEM.DEFAULT.LISTENER.TCP"][C.MQIACH_LISTENER_CONTROL] == C.MQSVC_CONTROL_MANUAL
    assert h.run(command(C.MQCMD_CREATE_LISTENER, st(LSTR, "MY.LISTENER"), i(C.MQIACH_PORT, 1415),
                         i(C.MQIACH_BACKLOG, 50))).ok
    assert failed(h.run(command(C.MQCMD_CREATE_LISTENER, st(LSTR, "BAD"), i(C.MQIACH_PORT, 70000))),
                  C.MQRCCF_PARM_VALUE_ERROR, C.MQIACH_PORT)
    assert h.run(command(C.MQCMD_CHANGE_LISTENER, st(LSTR, "MY.LISTENER"),
                         i(C.MQIACH_LISTENER_CONTROL, C.MQSVC_CONTROL_Q_MGR_START))).ok
    [obj] = h.run(command(C.MQCMD_INQUIRE_LISTENER, st(LSTR, "MY.LISTENER"))).objects
    assert (obj[C.MQIACH_PORT], obj[C.MQIACH_BACKLOG], obj[C.MQIACH_LISTENER_CONTROL]) == \
        (1415, 50, C.MQSVC_CONTROL_Q_MGR_START)
    assert h.run(command(C.MQCMD_DELETE_LISTENER, st(LSTR, "MY.LISTENER"))).ok


def test_listener_status_start_and_stop(h):
    assert failed(h.run(command(C.MQCMD_INQUIRE_LISTENER_STATUS, st(LSTR, "*"))), C.MQRCCF_LSTR_STATUS_NOT_FOUND)
    running = h.registry.running
    running.served_listener, running.served_port = "DEV.LISTENER.TCP", 50123
    running.listener_started("DEV.LISTENER.TCP", 50123, 1_700_000_000.0)
    [row] = h.run(command(C.MQCMD_INQUIRE_LISTENER_STATUS, st(LSTR, "*"))).objects
    assert (row[LSTR], row[C.MQIACH_LISTENER_STATUS], row[C.MQIACH_PORT]) == \
        ("DEV.LISTENER.TCP", C.MQSVC_STATUS_RUNNING, 50123)
    assert failed(h.run(command(C.MQCMD_START_CHANNEL_LISTENER, st(LSTR, "DEV.LISTENER.TCP"))),
                  C.MQRCCF_LISTENER_RUNNING)
    assert h.run(command(C.MQCMD_STOP_CHANNEL_LISTENER, st(LSTR, "DEV.LISTENER.TCP"))).ok
    assert not running.accepting()
    assert failed(h.run(command(C.MQCMD_STOP_CHANNEL_LISTENER, st(LSTR, "DEV.LISTENER.TCP"))),
                  C.MQRCCF_LISTENER_STOPPED)
    assert h.run(command(C.MQCMD_START_CHANNEL_LISTENER, st(LSTR, "DEV.LISTENER.TCP"))).ok
    assert running.accepting()
    assert failed(h.run(command(C.MQCMD_START_CHANNEL_LISTENER, st(LSTR, "SYSTEM.DEFAULT.LISTENER.TCP"))),
                  C.MQRCCF_LISTENER_NOT_STARTED)
    assert failed(h.run(command(C.MQCMD_START_CHANNEL_LISTENER, st(LSTR, "NONE"))), C.MQRC_UNKNOWN_OBJECT_NAME, LSTR)


# ---- services ------------------------------------------------------------------------------------
def test_service_lifecycle_and_control(h):
    [default] = h.run(command(C.MQCMD_INQUIRE_SERVICE, st(SVC, "SYSTEM.DEFAULT.SERVICE"))).objects
    assert (default[C.MQIA_SERVICE_TYPE], default[C.MQIA_SERVICE_CONTROL]) == \
        (C.MQSVC_TYPE_COMMAND, C.MQSVC_CONTROL_MANUAL)
    assert failed(h.run(command(C.MQCMD_START_SERVICE, st(SVC, "SYSTEM.DEFAULT.SERVICE"))), C.MQRCCF_NO_START_CMD)
    assert h.run(command(C.MQCMD_CREATE_SERVICE, st(SVC, "MY.SERVICE"), i(C.MQIA_SERVICE_TYPE, C.MQSVC_TYPE_SERVER),
                         st(C.MQCA_SERVICE_START_COMMAND, "/bin/true"))).ok
    assert failed(h.run(command(C.MQCMD_START_SERVICE, st(SVC, "MY.SERVICE"))), C.MQRC_FUNCTION_NOT_SUPPORTED)
    assert failed(h.run(command(C.MQCMD_STOP_SERVICE, st(SVC, "MY.SERVICE"))), C.MQRCCF_SERVICE_STOPPED)
    assert h.run(command(C.MQCMD_STOP_SERVICE, st(SVC, "MY.SERVICE"), i(C.MQIACF_IGNORE_STATE, C.MQIS_YES))).ok
    assert failed(h.run(command(C.MQCMD_INQUIRE_SERVICE_STATUS, st(SVC, "*"))), C.MQRCCF_SERV_STATUS_NOT_FOUND)
    [obj] = h.run(command(C.MQCMD_INQUIRE_SERVICE, st(SVC, "MY.SERVICE"))).objects
    assert obj[C.MQCA_SERVICE_START_COMMAND] == "/bin/true"
    assert failed(h.run(command(C.MQCMD_START_SERVICE, st(SVC, "NONE"))), C.MQRC_UNKNOWN_OBJECT_NAME, SVC)


# ---- communication information -------------------------------------------------------------------
def test_comminfo_lifecycle(h):
    [default] = h.run(command(C.MQCMD_INQUIRE_COMM_INFO, st(CI, "SYSTEM.DEFAULT.COMMINFO"))).objects
    assert (default[C.MQCACH_GROUP_ADDRESS], default[C.MQIACH_PORT], default[C.MQIA_COMM_INFO_TYPE]) == \
        ("239.0.0.0", 1414, V.MQCIT_MULTICAST)
    assert h.run(command(C.MQCMD_CREATE_COMM_INFO, st(CI, "MY.MC"), st(C.MQCACH_GROUP_ADDRESS, "239.1.1.1"))).ok
    assert h.run(command(C.MQCMD_CHANGE_COMM_INFO, st(CI, "MY.MC"), i(C.MQIACH_PORT, 1500))).ok
    [obj] = h.run(command(C.MQCMD_INQUIRE_COMM_INFO, st(CI, "MY.MC"))).objects
    assert (obj[C.MQCACH_GROUP_ADDRESS], obj[C.MQIACH_PORT]) == ("239.1.1.1", 1500)
    assert h.run(command(C.MQCMD_DELETE_COMM_INFO, st(CI, "MY.MC"))).ok
    assert failed(h.run(command(C.MQCMD_INQUIRE_COMM_INFO, st(CI, "MY.MC"))), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_endpoints_survive_a_restart(tmp_path):
    first = Harness(tmp_path)
    assert first.run(command(C.MQCMD_CREATE_LISTENER, st(LSTR, "KEPT"), i(C.MQIACH_PORT, 2000))).ok
    assert first.run(command(C.MQCMD_CREATE_AUTH_INFO, st(AI_NAME, "KEPT.OCSP"), i(AI_TYPE, V.MQAIT_OCSP),
                             st(C.MQCA_AUTH_INFO_OCSP_URL, "http://ocsp"))).ok
    first.close()
    again = Harness(tmp_path)
    try:
        assert again.run(command(C.MQCMD_INQUIRE_LISTENER, st(LSTR, "KEPT"))).objects[0][C.MQIACH_PORT] == 2000
        [ocsp] = again.run(command(C.MQCMD_INQUIRE_AUTH_INFO, st(AI_NAME, "KEPT.OCSP"))).objects
        assert ocsp[C.MQCA_AUTH_INFO_OCSP_URL] == "http://ocsp"
    finally:
        again.close()
