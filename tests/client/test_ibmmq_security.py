"""Security as a real client sees it: IBM's ``ibmmq`` through our transport.  ``app`` on
DEV.APP.SVRCONN is refused a non-DEV queue until the administrator grants it by PCF (Set Authority
Record), and a CHLAUTH BLOCKUSER record refuses its connection until CHLAUTH is disabled."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.registry import authvocab as A  # noqa: E402

APP_CHANNEL = "DEV.APP.SVRCONN"
PRIVATE = b"APP.ORDERS"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-security")) as srv:
        yield srv


def _app(conn_name):
    return ibmmq.connect("QM1", APP_CHANNEL, conn_name, "app", "")


def _reason(fn, *args):
    with pytest.raises(ibmmq.MQMIError) as info:
        fn(*args)
    return info.value.reason


def test_a_set_authority_record_lets_app_open_a_non_dev_queue(pcf, conn_name):
    assert pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: PRIVATE, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}) == []
    app = _app(conn_name)
    try:
        assert _reason(ibmmq.Queue, app, PRIVATE, CMQC.MQOO_OUTPUT) == CMQC.MQRC_NOT_AUTHORIZED
        assert pcf.MQCMD_SET_AUTH_REC({
            CMQCFC.MQCACF_AUTH_PROFILE_NAME: PRIVATE,
            CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
            CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"],
            CMQCFC.MQIACF_AUTH_ADD_AUTHS: [A.MQAUTH_OUTPUT, A.MQAUTH_INQUIRE]}) == []
        queue = ibmmq.Queue(app, PRIVATE, CMQC.MQOO_OUTPUT)  # the same open now succeeds
        queue.put(b"order 1")
        queue.close()
        records = pcf.MQCMD_INQUIRE_AUTH_RECS({
            CMQCFC.MQIACF_AUTH_OPTIONS: A.MQAUTHOPT_NAME_EXPLICIT | A.MQAUTHOPT_ENTITY_EXPLICIT,
            CMQCFC.MQCACF_AUTH_PROFILE_NAME: PRIVATE, CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q})
        assert [sorted(r[CMQCFC.MQIACF_AUTHORIZATION_LIST]) for r in records] == [
            [A.MQAUTH_INQUIRE, A.MQAUTH_OUTPUT]]
        assert pcf.MQCMD_DELETE_AUTH_REC({
            CMQCFC.MQCACF_AUTH_PROFILE_NAME: PRIVATE, CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
            CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"]}) == []
        assert _reason(ibmmq.Queue, app, PRIVATE, CMQC.MQOO_OUTPUT) == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        app.disconnect()


def test_app_cannot_administer(conn_name):
    app = _app(conn_name)
    try:
        assert _reason(ibmmq.Queue, app, b"SYSTEM.ADMIN.COMMAND.QUEUE", CMQC.MQOO_OUTPUT) == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        app.disconnect()


def test_a_blockuser_record_refuses_app_until_chlauth_is_disabled(pcf, conn_name):
    assert pcf.MQCMD_SET_CHLAUTH_REC({
        CMQCFC.MQCACH_CHANNEL_NAME: APP_CHANNEL.encode(), CMQCFC.MQIACF_CHLAUTH_TYPE: A.MQCAUT_BLOCKUSER,
        CMQCFC.MQCACH_MCA_USER_ID_LIST: [b"app"]}) == []
    try:
        assert _reason(_app, conn_name) == CMQC.MQRC_NOT_AUTHORIZED
        assert pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_CHLAUTH_RECORDS: A.MQCHLA_DISABLED}) == []
        _app(conn_name).disconnect()  # ALTER QMGR CHLAUTH(DISABLED): let in
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_CHLAUTH_RECORDS: A.MQCHLA_ENABLED})
        pcf.MQCMD_SET_CHLAUTH_REC({
            CMQCFC.MQCACH_CHANNEL_NAME: APP_CHANNEL.encode(), CMQCFC.MQIACF_CHLAUTH_TYPE: A.MQCAUT_BLOCKUSER,
            CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVEALL})
    _app(conn_name).disconnect()


def test_blank_connauth_switches_password_checks_off(pcf, conn_name):
    with pytest.raises(ibmmq.MQMIError) as info:
        ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", conn_name, "admin", "wrong")
    assert info.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    assert pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_CONN_AUTH: b" "}) == []
    try:  # ALTER QMGR CONNAUTH(' '): no connection authentication; CHLAUTH maps admin to mqm
        ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", conn_name, "admin", "wrong").disconnect()
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_CONN_AUTH: b"DEV.AUTHINFO"})
    with pytest.raises(ibmmq.MQMIError) as info:
        ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", conn_name, "admin", "wrong")
    assert info.value.reason == CMQC.MQRC_NOT_AUTHORIZED
