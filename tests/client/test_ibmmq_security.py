"""Security as a real client sees it: IBM's ``ibmmq`` through our transport.  ``app`` on
DEV.APP.SVRCONN is refused a non-DEV queue until the administrator grants it by PCF (Set Authority
Record), and a CHLAUTH BLOCKUSER record refuses its connection until CHLAUTH is disabled."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.registry.security import vocab as A  # noqa: E402

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


def _grant(pcf, profile: bytes, object_type: int, *auths: int) -> None:
    assert pcf.MQCMD_SET_AUTH_REC({
        CMQCFC.MQCACF_AUTH_PROFILE_NAME: profile, CMQCFC.MQIACF_OBJECT_TYPE: object_type,
        CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"], CMQCFC.MQIACF_AUTH_ADD_AUTHS: list(auths)}) == []


def test_a_read_only_explorer_user_sees_what_it_may_display(pcf, conn_name):
    """IBM's recipe for a read-only MQ Explorer user: put on the command queue, dsp on the queue
    manager and on what it may see; PCF then answers with those objects only, and refuses changes."""
    _grant(pcf, b"SYSTEM.ADMIN.COMMAND.QUEUE", CMQC.MQOT_Q, A.MQAUTH_OUTPUT, A.MQAUTH_INQUIRE)
    # its reply queue's model: opened for input (the dynamic queue's authority is checked there) and dsp
    _grant(pcf, b"SYSTEM.DEFAULT.MODEL.QUEUE", CMQC.MQOT_Q, A.MQAUTH_DISPLAY, A.MQAUTH_INPUT)
    _grant(pcf, b"self", CMQC.MQOT_Q_MGR, A.MQAUTH_DISPLAY)
    _grant(pcf, b"DEV.**", CMQC.MQOT_Q, A.MQAUTH_DISPLAY)
    app = _app(conn_name)
    try:
        viewer = ibmmq.PCFExecute(app)
        try:
            names = {r[CMQC.MQCA_Q_NAME].strip() for r in viewer.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"*"})}
            # the DEV queues, the model it may display, and its own reply queue (the creator of a dynamic
            # queue holds every authority to it); none of the other SYSTEM queues
            others = {n for n in names if not n.startswith((b"DEV.", b"PYMQPCF."))}
            assert b"DEV.QUEUE.1" in names and others == {b"SYSTEM.DEFAULT.MODEL.QUEUE"}
            assert _reason(viewer.MQCMD_CHANGE_Q, {CMQC.MQCA_Q_NAME: b"DEV.QUEUE.1", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                                   CMQC.MQCA_Q_DESC: b"not yours"}) == CMQC.MQRC_NOT_AUTHORIZED
        finally:
            viewer.disconnect()
    finally:
        app.disconnect()
        for profile in (b"SYSTEM.ADMIN.COMMAND.QUEUE", b"SYSTEM.DEFAULT.MODEL.QUEUE"):
            pcf.MQCMD_DELETE_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: profile, CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                                       CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"]})
        for profile, object_type in ((b"self", CMQC.MQOT_Q_MGR), (b"DEV.**", CMQC.MQOT_Q)):  # the container's stay
            pcf.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: profile, CMQCFC.MQIACF_OBJECT_TYPE: object_type,
                                    CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"],
                                    CMQCFC.MQIACF_AUTH_REMOVE_AUTHS: [A.MQAUTH_DISPLAY]})
