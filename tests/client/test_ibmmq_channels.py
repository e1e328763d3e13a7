"""Channels through IBM's ``ibmmq`` over our transport: PCF-defined SVRCONN channels govern the next
connection, channel status lists the caller's own connection, Stop Channel ends connections."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-channels")) as srv:
        yield srv


_raises = raises  # tests/support/ibmmqkit.py


def _text(value) -> str:
    return (value.decode() if isinstance(value, bytes) else value).strip()


def test_create_and_inquire_channel(pcf):
    assert pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.SVRCONN",
                                     CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN,
                                     CMQCFC.MQCACH_DESC: b"through ibmmq"}) == []
    [chl] = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.SVRCONN"})
    assert _text(chl[CMQCFC.MQCACH_DESC]) == "through ibmmq"
    assert chl[CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC.MQCHT_SVRCONN
    assert chl[CMQCFC.MQIACH_SHARING_CONVERSATIONS] == 10 and chl[CMQCFC.MQIACH_HB_INTERVAL] == 300
    err = _raises(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, pcf.MQCMD_CHANGE_CHANNEL,
                  {CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.SVRCONN", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_RECEIVER})
    assert err.comp == CMQC.MQCC_FAILED
    pcf.MQCMD_DELETE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.SVRCONN"})


def test_inquire_channel_names(pcf):
    [reply] = pcf.MQCMD_INQUIRE_CHANNEL_NAMES({CMQCFC.MQCACH_CHANNEL_NAME: b"DEV.*",
                                               CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN})
    assert sorted(_text(n) for n in reply[CMQCFC.MQCACH_CHANNEL_NAMES]) == ["DEV.ADMIN.SVRCONN", "DEV.APP.SVRCONN"]


def test_channel_status_lists_this_connection(pcf):
    rows = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: ADMIN_CHANNEL.encode()})
    assert rows, "the test's own connection runs on DEV.ADMIN.SVRCONN"
    row = rows[0]
    assert _text(row[CMQCFC.MQCACH_CHANNEL_NAME]) == ADMIN_CHANNEL
    assert row[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_RUNNING
    assert row[CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC.MQCHT_SVRCONN
    assert _text(row[CMQCFC.MQCACH_CONNECTION_NAME]) == "127.0.0.1"
    assert row[CMQCFC.MQIACH_CURRENT_SHARING_CONVS] >= 1 and row[CMQCFC.MQIACH_MSGS] > 0
    assert _text(row[CMQCFC.MQCACH_MCA_USER_ID]) == "admin"
    _raises(CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND, pcf.MQCMD_INQUIRE_CHANNEL_STATUS,
            {CMQCFC.MQCACH_CHANNEL_NAME: b"SYSTEM.DEF.SVRCONN"})


def _open_chlauth(pcf, channel: bytes, *, admins: bool) -> None:
    """As on the developer container, a new channel is closed by the back-stop CHLAUTH rules (every
    address NOACCESS, *MQADMIN blocked) until records open it, as DEV.APP.SVRCONN's and
    DEV.ADMIN.SVRCONN's do."""
    pcf.MQCMD_SET_CHLAUTH_REC({CMQCFC.MQCACH_CHANNEL_NAME: channel,
                               CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_ADDRESSMAP,
                               CMQCFC.MQCACH_CONNECTION_NAME: b"*", CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_CHANNEL})
    if admins:
        pcf.MQCMD_SET_CHLAUTH_REC({CMQCFC.MQCACH_CHANNEL_NAME: channel,
                                   CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_BLOCKUSER,
                                   CMQCFC.MQCACH_MCA_USER_ID_LIST: [b"nobody"]})


def test_a_pcf_created_channel_takes_the_next_connection_and_max_instances_refuses(pcf, conn_name):
    pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.LIMITED", CMQCFC.MQIACH_CHANNEL_TYPE:
                              CMQXC.MQCHT_SVRCONN, CMQCFC.MQIACH_MAX_INSTANCES: 1})
    _open_chlauth(pcf, b"IBMMQ.LIMITED", admins=True)
    first = ibmmq.connect("QM1", "IBMMQ.LIMITED", conn_name, "admin", "passw0rd")
    try:
        [row] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.LIMITED"})
        assert row[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_RUNNING
        _raises(CMQC.MQRC_CHANNEL_NOT_AVAILABLE, ibmmq.connect, "QM1", "IBMMQ.LIMITED", conn_name, "admin",
                "passw0rd")
    finally:
        first.disconnect()
    pcf.MQCMD_CHANGE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.LIMITED", CMQCFC.MQIACH_CHANNEL_TYPE:
                              CMQXC.MQCHT_SVRCONN, CMQCFC.MQIACH_MAX_INSTANCES: 0})
    _raises(CMQC.MQRC_CHANNEL_NOT_AVAILABLE, ibmmq.connect, "QM1", "IBMMQ.LIMITED", conn_name, "admin", "passw0rd")


def test_a_channel_of_another_type_or_unknown_is_refused(conn_name):
    _raises(CMQC.MQRC_UNKNOWN_CHANNEL_NAME, ibmmq.connect, "QM1", "NO.SUCH.CHL", conn_name, "admin", "passw0rd")
    _raises(CMQC.MQRC_CHANNEL_CONFIG_ERROR, ibmmq.connect, "QM1", "SYSTEM.DEF.RECEIVER", conn_name, "admin",
            "passw0rd")


def test_stop_channel_ends_a_connection_until_start(pcf, conn_name):
    app = ibmmq.connect("QM1", "DEV.APP.SVRCONN", conn_name)
    queue = ibmmq.Queue(app, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    assert pcf.MQCMD_STOP_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"DEV.APP.SVRCONN"}) == []
    try:
        _raises(CMQC.MQRC_CONNECTION_BROKEN, queue.put, b"after stop")
        _raises(CMQC.MQRC_CHANNEL_NOT_AVAILABLE, ibmmq.connect, "QM1", "DEV.APP.SVRCONN", conn_name)
    finally:
        assert pcf.MQCMD_START_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"DEV.APP.SVRCONN"}) == []
    again = ibmmq.connect("QM1", "DEV.APP.SVRCONN", conn_name)
    again.disconnect()


def test_listener_status_reports_the_servers_port(pcf, server):
    [row] = pcf.MQCMD_INQUIRE_LISTENER_STATUS({CMQCFC.MQCACH_LISTENER_NAME: b"*"})
    assert _text(row[CMQCFC.MQCACH_LISTENER_NAME]) == "DEV.LISTENER.TCP"
    assert row[CMQCFC.MQIACH_PORT] == server.port
    assert row[CMQCFC.MQIACH_LISTENER_STATUS] == CMQC.MQSVC_STATUS_RUNNING


def test_mcauser_decides_whom_the_connection_runs_as(pcf, conn_name):
    pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.APPUSER", CMQCFC.MQIACH_CHANNEL_TYPE:
                              CMQXC.MQCHT_SVRCONN, CMQCFC.MQCACH_MCA_USER_ID: b"app"})
    _open_chlauth(pcf, b"IBMMQ.APPUSER", admins=False)
    app = ibmmq.connect("QM1", "IBMMQ.APPUSER", conn_name)
    try:
        [row] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.APPUSER"})
        assert _text(row[CMQCFC.MQCACH_MCA_USER_ID]) == "app"
        _raises(CMQC.MQRC_NOT_AUTHORIZED, ibmmq.Queue, app, "SYSTEM.ADMIN.COMMAND.QUEUE", CMQC.MQOO_OUTPUT)
    finally:
        app.disconnect()
    # A privileged MCAUSER is what IBM's default BLOCKUSER(*MQADMIN) rule keeps off such channels.
    pcf.MQCMD_CHANGE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"IBMMQ.APPUSER", CMQCFC.MQIACH_CHANNEL_TYPE:
                              CMQXC.MQCHT_SVRCONN, CMQCFC.MQCACH_MCA_USER_ID: b"mqm"})
    _raises(CMQC.MQRC_NOT_AUTHORIZED, ibmmq.connect, "QM1", "IBMMQ.APPUSER", conn_name)
