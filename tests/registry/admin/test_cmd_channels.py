"""Channel definitions and channel status through the command engine: every type's rules, the
documented reasons, and persistence across a restart."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.objects import values as V
from qmlite.registry.objects import channels as M
from qmlite.registry.objects.instances import ChannelRefused
from tests.support.pcfkit import Harness, command, failed, i, il, st

NAME = C.MQCACH_CHANNEL_NAME
TYPE = C.MQIACH_CHANNEL_TYPE


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def where(pid, value):
    return P.CFSF(pid, C.MQCFOP_EQUAL, value, 0)


def create(h, name, chltype, *params, cmd=C.MQCMD_CREATE_CHANNEL):
    return h.run(command(cmd, st(NAME, name), i(TYPE, chltype), *params))


def inquire(h, name, *params):
    return h.run(command(C.MQCMD_INQUIRE_CHANNEL, st(NAME, name), *params))


def test_a_new_queue_manager_has_ibms_default_channels_and_the_developer_ones(h):
    names = inquire(h, "*").objects
    by_name = {o[NAME]: o for o in names}
    for chltype, default in M.DEFAULT_OF.items():
        assert by_name[default][TYPE] == chltype
    assert {"SYSTEM.AUTO.RECEIVER", "SYSTEM.AUTO.SVRCONN", "SYSTEM.ADMIN.SVRCONN", "DEV.ADMIN.SVRCONN",
            "DEV.APP.SVRCONN"} <= set(by_name)
    assert by_name["DEV.APP.SVRCONN"][C.MQCACH_MCA_USER_ID] == "app"
    assert by_name["DEV.ADMIN.SVRCONN"][C.MQCACH_MCA_USER_ID] == ""


def test_without_developer_objects_there_are_no_dev_channels(tmp_path):
    harness = Harness(tmp_path, dev_objects=False)
    try:
        assert failed(harness.run(command(C.MQCMD_INQUIRE_CHANNEL, st(NAME, "DEV.*"))), C.MQRC_UNKNOWN_OBJECT_NAME)
        assert harness.run(command(C.MQCMD_INQUIRE_CHANNEL, st(NAME, "SYSTEM.DEF.SVRCONN"))).ok
    finally:
        harness.close()


def test_create_svrconn_takes_ibms_defaults_and_inquire_reports_only_svrconn_attributes(h):
    assert create(h, "MY.SVRCONN", M.SVRCONN, st(C.MQCACH_DESC, "mine")).ok
    [obj] = inquire(h, "MY.SVRCONN").objects
    assert obj[TYPE] == M.SVRCONN and obj[C.MQCACH_DESC] == "mine"
    assert (obj[C.MQIACH_HB_INTERVAL], obj[C.MQIACH_MAX_MSG_LENGTH], obj[C.MQIACH_SHARING_CONVERSATIONS]) == \
        (300, 4_194_304, 10)
    assert (obj[C.MQIACH_MAX_INSTANCES], obj[C.MQIACH_MAX_INSTS_PER_CLIENT]) == (999_999_999, 999_999_999)
    assert obj[C.MQIACH_DISC_INTERVAL] == 0 and obj[C.MQIACH_KEEP_ALIVE_INTERVAL] == V.MQKAI_AUTO
    for absent in (C.MQCACH_XMIT_Q_NAME, C.MQIACH_BATCH_SIZE, C.MQCACH_CONNECTION_NAME, C.MQIACH_SHORT_RETRY,
                   C.MQIACH_CLIENT_CHANNEL_WEIGHT, C.MQCA_CLUSTER_NAME):
        assert absent not in obj


def test_a_sender_needs_a_transmission_queue_and_a_connection_name(h):
    assert failed(create(h, "TO.QM2", M.SDR), C.MQRCCF_XMIT_Q_NAME_ERROR, C.MQCACH_XMIT_Q_NAME)
    assert failed(create(h, "TO.QM2", M.SDR, st(C.MQCACH_XMIT_Q_NAME, "QM2")), C.MQRCCF_MISSING_CONN_NAME,
                  C.MQCACH_CONNECTION_NAME)
    assert create(h, "TO.QM2", M.SDR, st(C.MQCACH_XMIT_Q_NAME, "QM2"), st(C.MQCACH_CONNECTION_NAME, "host(1414)")).ok
    [obj] = inquire(h, "TO.QM2").objects
    assert (obj[C.MQCACH_XMIT_Q_NAME], obj[C.MQIACH_BATCH_SIZE], obj[C.MQIACH_DISC_INTERVAL]) == ("QM2", 50, 6000)
    assert C.MQIACH_SHARING_CONVERSATIONS not in obj and C.MQIACH_MAX_INSTANCES not in obj


def test_a_receiver_and_a_clntconn_take_what_their_types_have(h):
    assert create(h, "FROM.QM2", M.RCVR, i(C.MQIACH_MR_COUNT, 3)).ok
    assert create(h, "TO.QM1", M.CLNTCONN, st(C.MQCACH_CONNECTION_NAME, "localhost(1414)"),
                  st(C.MQCA_Q_MGR_NAME, "QM1"), i(C.MQIACH_CLIENT_CHANNEL_WEIGHT, 5)).ok
    [rcvr] = inquire(h, "FROM.QM2").objects
    [clnt] = inquire(h, "TO.QM1").objects
    assert rcvr[C.MQIACH_MR_COUNT] == 3 and C.MQCACH_CONNECTION_NAME not in rcvr
    assert clnt[C.MQCA_Q_MGR_NAME] == "QM1" and clnt[C.MQIACH_CLIENT_CHANNEL_WEIGHT] == 5
    assert C.MQCACH_MCA_USER_ID not in clnt


@pytest.mark.parametrize("chltype, param", [
    (M.SVRCONN, st(C.MQCACH_XMIT_Q_NAME, "Q")),
    (M.SVRCONN, i(C.MQIACH_BATCH_SIZE, 10)),
    (M.RCVR, i(C.MQIACH_SHARING_CONVERSATIONS, 1)),
    (M.CLNTCONN, st(C.MQCACH_MCA_USER_ID, "app")),
    (M.RCVR, i(C.MQIACH_MAX_INSTANCES, 1)),
])
def test_an_attribute_the_type_does_not_have_is_wrong_channel_type(h, chltype, param):
    extra = (st(C.MQCACH_CONNECTION_NAME, "h(1)"),) if chltype == M.CLNTCONN else ()
    assert failed(create(h, "X.CHL", chltype, param, *extra), C.MQRCCF_WRONG_CHANNEL_TYPE, param.parameter)


def test_channel_type_is_required_and_must_be_a_multiplatforms_type(h):
    assert failed(h.run(command(C.MQCMD_CREATE_CHANNEL, st(NAME, "X"))), C.MQRCCF_PARM_MISSING, TYPE)
    for bad in (C.MQCHT_ALL, C.MQCHT_AMQP, 99):  # an MQTT channel is a telemetry channel (test_telemetry_channels.py)
        assert failed(create(h, "X", bad), C.MQRCCF_CHANNEL_TYPE_ERROR, TYPE)
    assert failed(h.run(command(C.MQCMD_CREATE_CHANNEL, st(NAME, "NAME.LONGER.THAN.20.CHARS"), i(TYPE, M.SVRCONN))),
                  C.MQRCCF_CFST_STRING_LENGTH_ERR, NAME)


def test_change_must_give_the_channels_own_type(h):
    assert create(h, "MY.SVRCONN", M.SVRCONN).ok
    assert failed(create(h, "MY.SVRCONN", M.RCVR, cmd=C.MQCMD_CHANGE_CHANNEL), C.MQRCCF_CHANNEL_TYPE_ERROR, TYPE)
    assert failed(h.run(command(C.MQCMD_CHANGE_CHANNEL, st(NAME, "MY.SVRCONN"))), C.MQRCCF_PARM_MISSING, TYPE)
    assert create(h, "MY.SVRCONN", M.SVRCONN, i(C.MQIACH_MAX_INSTANCES, 2), st(C.MQCACH_MCA_USER_ID, "app"),
                  cmd=C.MQCMD_CHANGE_CHANNEL).ok
    [obj] = inquire(h, "MY.SVRCONN").objects
    assert (obj[C.MQIACH_MAX_INSTANCES], obj[C.MQCACH_MCA_USER_ID]) == (2, "app")
    assert failed(create(h, "NO.SUCH", M.SVRCONN, cmd=C.MQCMD_CHANGE_CHANNEL), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_create_replace_keeps_the_type_rule(h):
    assert create(h, "MY.SVRCONN", M.SVRCONN).ok
    assert failed(create(h, "MY.SVRCONN", M.SVRCONN), C.MQRCCF_OBJECT_ALREADY_EXISTS, NAME)
    assert create(h, "MY.SVRCONN", M.SVRCONN, i(C.MQIACF_REPLACE, C.MQRP_YES), i(C.MQIACH_HB_INTERVAL, 30)).ok
    assert failed(create(h, "MY.SVRCONN", M.RCVR, i(C.MQIACF_REPLACE, C.MQRP_YES)), C.MQRCCF_CHANNEL_TYPE_ERROR, TYPE)
    assert inquire(h, "MY.SVRCONN").objects[0][C.MQIACH_HB_INTERVAL] == 30


def test_copy_takes_the_source_and_its_type(h):
    assert create(h, "MY.SVRCONN", M.SVRCONN, i(C.MQIACH_SHARING_CONVERSATIONS, 3)).ok
    copy = command(C.MQCMD_COPY_CHANNEL, st(C.MQCACF_FROM_CHANNEL_NAME, "MY.SVRCONN"),
                   st(C.MQCACF_TO_CHANNEL_NAME, "MY.COPY"), i(TYPE, M.SVRCONN), i(C.MQIACH_MAX_INSTANCES, 4))
    assert h.run(copy).ok
    [obj] = inquire(h, "MY.COPY").objects
    assert (obj[C.MQIACH_SHARING_CONVERSATIONS], obj[C.MQIACH_MAX_INSTANCES]) == (3, 4)
    wrong = command(C.MQCMD_COPY_CHANNEL, st(C.MQCACF_FROM_CHANNEL_NAME, "MY.SVRCONN"),
                    st(C.MQCACF_TO_CHANNEL_NAME, "MY.COPY2"), i(TYPE, M.RCVR))
    assert failed(h.run(wrong), C.MQRCCF_CHANNEL_TYPE_ERROR, TYPE)
    missing = command(C.MQCMD_COPY_CHANNEL, st(C.MQCACF_FROM_CHANNEL_NAME, "NONE"),
                      st(C.MQCACF_TO_CHANNEL_NAME, "MY.COPY2"), i(TYPE, M.SVRCONN))
    assert failed(h.run(missing), C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCACF_FROM_CHANNEL_NAME)


def test_a_deleted_default_channel_leaves_ibms_defaults(h):
    assert h.run(command(C.MQCMD_DELETE_CHANNEL, st(NAME, "SYSTEM.DEF.SVRCONN"))).ok
    assert create(h, "MY.SVRCONN", M.SVRCONN).ok
    assert inquire(h, "MY.SVRCONN").objects[0][C.MQIACH_SHARING_CONVERSATIONS] == 10


def test_inquire_selects_by_type_generic_name_and_filter(h):
    assert create(h, "A.SVRCONN", M.SVRCONN, st(C.MQCACH_MCA_USER_ID, "app")).ok
    assert create(h, "A.RCVR", M.RCVR).ok
    rcvrs = inquire(h, "A.*", i(TYPE, M.RCVR)).objects
    assert [o[NAME] for o in rcvrs] == ["A.RCVR"]
    by_user = inquire(h, "*", where(C.MQCACH_MCA_USER_ID, "app")).objects
    assert sorted(o[NAME] for o in by_user) == ["A.SVRCONN", "DEV.APP.SVRCONN"]
    picked = inquire(h, "A.SVRCONN", il(C.MQIACF_CHANNEL_ATTRS, C.MQIACH_MAX_INSTANCES)).objects[0]
    assert set(picked) == {NAME, TYPE, C.MQIACH_MAX_INSTANCES}
    assert failed(inquire(h, "NOPE*"), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_inquire_channel_names_takes_channel_type(h):
    def names(*params):
        r = h.run(command(C.MQCMD_INQUIRE_CHANNEL_NAMES, st(NAME, "SYSTEM.DEF.*"), *params))
        return [n.strip() for n in r.objects[0][C.MQCACH_CHANNEL_NAMES]]

    assert len(names()) == 8  # MQCHT_ALL by default
    assert names(i(TYPE, M.SVRCONN)) == ["SYSTEM.DEF.SVRCONN"]
    assert names(i(TYPE, C.MQCHT_ALL)) == names()


def test_delete_refuses_a_running_channel(h):
    channel = h.registry.objects(M.KIND)["DEV.APP.SVRCONN"]
    instance = h.registry.running.start_instance(channel, "127.0.0.1", 0.0)
    assert failed(h.run(command(C.MQCMD_DELETE_CHANNEL, st(NAME, "DEV.APP.SVRCONN"))), C.MQRCCF_CHANNEL_IN_USE)
    h.registry.running.end_instance(instance)
    assert h.run(command(C.MQCMD_DELETE_CHANNEL, st(NAME, "DEV.APP.SVRCONN"))).ok
    assert failed(h.run(command(C.MQCMD_DELETE_CHANNEL, st(NAME, "DEV.APP.SVRCONN"))), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_channels_survive_a_restart(tmp_path):
    first = Harness(tmp_path)
    assert create(first, "KEPT.SVRCONN", M.SVRCONN, i(C.MQIACH_MAX_INSTANCES, 7)).ok
    assert first.run(command(C.MQCMD_DELETE_CHANNEL, st(NAME, "SYSTEM.AUTO.SVRCONN"))).ok
    first.close()
    again = Harness(tmp_path)
    try:
        assert inquire(again, "KEPT.SVRCONN").objects[0][C.MQIACH_MAX_INSTANCES] == 7
        assert failed(inquire(again, "SYSTEM.AUTO.SVRCONN"), C.MQRC_UNKNOWN_OBJECT_NAME)  # stays deleted
    finally:
        again.close()


# ---- status and control --------------------------------------------------------------------------
def status(h, name, *params):
    return h.run(command(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(NAME, name), *params))


def test_no_running_instance_is_chl_status_not_found(h):
    assert failed(status(h, "*"), C.MQRCCF_CHL_STATUS_NOT_FOUND)
    assert failed(status(h, "*", i(C.MQIACH_CHANNEL_INSTANCE_TYPE, 42)), C.MQRCCF_CHL_INST_TYPE_ERROR,
                  C.MQIACH_CHANNEL_INSTANCE_TYPE)


def test_each_running_instance_is_one_status_response(h):
    running = h.registry.running
    channel = h.registry.objects(M.KIND)["DEV.APP.SVRCONN"]
    one = running.start_instance(channel, "10.0.0.1", 1_700_000_000.0)
    one.conversations, one.max_sharing, one.mca_user, one.msgs = 2, 10, "app", 5
    running.start_instance(channel, "10.0.0.2", 1_700_000_000.0)
    rows = status(h, "DEV.*").objects
    assert len(rows) == 2
    first = next(r for r in rows if r[C.MQCACH_CONNECTION_NAME] == "10.0.0.1")
    assert first[NAME] == "DEV.APP.SVRCONN" and first[TYPE] == M.SVRCONN
    assert (first[C.MQIACH_CHANNEL_STATUS], first[C.MQIACH_CHANNEL_INSTANCE_TYPE]) == \
        (C.MQCHS_RUNNING, C.MQOT_CURRENT_CHANNEL)
    assert (first[C.MQIACH_CURRENT_SHARING_CONVS], first[C.MQIACH_MAX_SHARING_CONVS]) == (2, 10)
    assert (first[C.MQCACH_MCA_USER_ID], first[C.MQIACH_MSGS]) == ("app", 5)
    assert first[C.MQCACH_CHANNEL_START_DATE] and first[C.MQCACH_CHANNEL_START_TIME]
    only = status(h, "DEV.*", st(C.MQCACH_CONNECTION_NAME, "10.0.0.2")).objects
    assert [r[C.MQCACH_CONNECTION_NAME] for r in only] == ["10.0.0.2"]
    short = status(h, "DEV.APP.SVRCONN", i(C.MQIACH_CHANNEL_INSTANCE_TYPE, C.MQOT_SHORT_CHANNEL)).objects
    assert C.MQIACH_MSGS not in short[0] and short[0][C.MQIACH_CHANNEL_STATUS] == C.MQCHS_RUNNING
    assert failed(status(h, "DEV.APP.SVRCONN", i(C.MQIACH_CHANNEL_INSTANCE_TYPE, C.MQOT_SAVED_CHANNEL)),
                  C.MQRCCF_CHL_STATUS_NOT_FOUND)


def test_instance_limits_refuse_a_new_instance(h):
    assert create(h, "LIMITED", M.SVRCONN, i(C.MQIACH_MAX_INSTANCES, 2), i(C.MQIACH_MAX_INSTS_PER_CLIENT, 1)).ok
    channel = h.registry.objects(M.KIND)["LIMITED"]
    running = h.registry.running
    running.start_instance(channel, "10.0.0.1", 0.0)
    with pytest.raises(ChannelRefused, match="MAXINSTC"):
        running.start_instance(channel, "10.0.0.1", 0.0)
    running.start_instance(channel, "10.0.0.2", 0.0)
    with pytest.raises(ChannelRefused, match="MAXINST reached"):
        running.start_instance(channel, "10.0.0.3", 0.0)


def test_stop_channel_ends_instances_and_refuses_new_ones_until_start(h):
    running = h.registry.running
    channel = h.registry.objects(M.KIND)["DEV.APP.SVRCONN"]
    instance = running.start_instance(channel, "10.0.0.1", 0.0)
    stopped = []
    instance.on_stop = lambda: stopped.append(True)
    assert h.run(command(C.MQCMD_STOP_CHANNEL, st(NAME, "DEV.APP.SVRCONN"))).ok
    assert stopped == [True] and instance.stop_requested
    assert status(h, "DEV.APP.SVRCONN").objects[0][C.MQIACH_CHANNEL_STATUS] == C.MQCHS_STOPPING
    running.end_instance(instance)  # the server closed the socket
    assert status(h, "DEV.APP.SVRCONN").objects[0][C.MQIACH_CHANNEL_STATUS] == C.MQCHS_STOPPED
    with pytest.raises(ChannelRefused, match="stopped"):
        running.start_instance(channel, "10.0.0.1", 0.0)
    assert failed(h.run(command(C.MQCMD_STOP_CHANNEL, st(NAME, "DEV.APP.SVRCONN"))), C.MQRCCF_CHANNEL_NOT_ACTIVE)
    assert h.run(command(C.MQCMD_START_CHANNEL, st(NAME, "DEV.APP.SVRCONN"))).ok
    assert failed(status(h, "DEV.APP.SVRCONN"), C.MQRCCF_CHL_STATUS_NOT_FOUND)
    running.start_instance(channel, "10.0.0.1", 0.0)


def test_stop_to_inactive_of_a_channel_not_running_is_not_active(h):
    stop = command(C.MQCMD_STOP_CHANNEL, st(NAME, "DEV.APP.SVRCONN"), i(C.MQIACH_CHANNEL_STATUS, C.MQCHS_INACTIVE))
    assert failed(h.run(stop), C.MQRCCF_CHANNEL_NOT_ACTIVE)
    assert h.run(command(C.MQCMD_STOP_CHANNEL, st(NAME, "DEV.APP.SVRCONN"))).ok  # to STOPPED: allowed
    assert "DEV.APP.SVRCONN" in h.registry.running.stopped


@pytest.mark.parametrize("cmd", [C.MQCMD_START_CHANNEL, C.MQCMD_STOP_CHANNEL, C.MQCMD_PING_CHANNEL,
                                 C.MQCMD_RESET_CHANNEL])
def test_control_of_an_unknown_channel_is_channel_not_found(h, cmd):
    assert failed(h.run(command(cmd, st(NAME, "NO.SUCH"))), C.MQRCCF_CHANNEL_NOT_FOUND, NAME)


def test_ping_reset_resolve_follow_the_channel_type(h):
    assert create(h, "TO.QM2", M.SDR, st(C.MQCACH_XMIT_Q_NAME, "QM2"), st(C.MQCACH_CONNECTION_NAME, "h(1)")).ok
    svrconn = st(NAME, "DEV.APP.SVRCONN")
    assert failed(h.run(command(C.MQCMD_PING_CHANNEL, svrconn)), C.MQRCCF_CHANNEL_TYPE_ERROR, NAME)
    assert failed(h.run(command(C.MQCMD_PING_CHANNEL, st(NAME, "TO.QM2"))), C.MQRCCF_ALLOCATE_FAILED)
    assert failed(h.run(command(C.MQCMD_RESET_CHANNEL, svrconn)), C.MQRCCF_CHANNEL_TYPE_ERROR, NAME)
    assert h.run(command(C.MQCMD_RESET_CHANNEL, st(NAME, "TO.QM2"), i(C.MQIACH_MSG_SEQUENCE_NUMBER, 1))).ok
    assert failed(h.run(command(C.MQCMD_RESOLVE_CHANNEL, st(NAME, "TO.QM2"))), C.MQRCCF_PARM_MISSING,
                  C.MQIACH_IN_DOUBT)
    assert h.run(command(C.MQCMD_RESOLVE_CHANNEL, st(NAME, "TO.QM2"), i(C.MQIACH_IN_DOUBT, V.MQIDO_COMMIT))).ok
    assert failed(h.run(command(C.MQCMD_RESOLVE_CHANNEL, svrconn, i(C.MQIACH_IN_DOUBT, V.MQIDO_BACKOUT))),
                  C.MQRCCF_CHANNEL_TYPE_ERROR, NAME)
    assert failed(h.run(command(C.MQCMD_STOP_CHANNEL, st(NAME, "SYSTEM.DEF.CLNTCONN"))),
                  C.MQRCCF_CHANNEL_TYPE_ERROR, NAME)


# IBM's Inquire Channel Status (Response) fields that apply to a running server-connection channel:
# the always-returned set, then every one a SVRCONN instance answers when asked (docs/decisions.md N5).
SVRCONN_ALWAYS = {NAME, TYPE, C.MQCACH_CONNECTION_NAME, C.MQCACH_XMIT_Q_NAME, C.MQIACH_CHANNEL_INSTANCE_TYPE,
                  C.MQIACH_CHANNEL_STATUS, C.MQCACH_REMOTE_APPL_TAG, C.MQCA_REMOTE_Q_MGR_NAME,
                  C.MQIACH_STOP_REQUESTED, C.MQIACH_CHANNEL_SUBSTATE}
SVRCONN_FIELDS = SVRCONN_ALWAYS | {
    C.MQIACH_BUFFERS_RECEIVED, C.MQIACH_BUFFERS_SENT, C.MQIACH_BYTES_RECEIVED, C.MQIACH_BYTES_SENT,
    C.MQIA_MONITORING_CHANNEL, C.MQCACH_CHANNEL_START_DATE, C.MQCACH_CHANNEL_START_TIME, C.MQIACH_COMPRESSION_RATE,
    C.MQIACH_COMPRESSION_TIME, C.MQIACH_CURRENT_SHARING_CONVS, C.MQIACH_EXIT_TIME_INDICATOR,
    C.MQIACH_HDR_COMPRESSION, C.MQIACH_HB_INTERVAL, C.MQIACH_KEEP_ALIVE_INTERVAL, C.MQCACH_LAST_MSG_DATE,
    C.MQCACH_LAST_MSG_TIME, C.MQCACH_LOCAL_ADDRESS, C.MQIACH_MAX_MSG_LENGTH, C.MQIACH_MAX_SHARING_CONVS,
    C.MQCACH_MCA_JOB_NAME, C.MQIACH_MCA_STATUS, C.MQCACH_MCA_USER_ID, C.MQIACH_MSG_COMPRESSION, C.MQIACH_MSGS,
    C.MQCACH_REMOTE_PRODUCT, C.MQCACH_REMOTE_VERSION, C.MQIACH_SECURITY_PROTOCOL, C.MQCACH_SSL_CERT_ISSUER_NAME,
    C.MQCACH_SSL_CERT_USER_ID, C.MQCACH_SSL_CIPHER_SPEC, C.MQCACH_SSL_KEY_RESET_DATE, C.MQIACH_SSL_KEY_RESETS,
    C.MQCACH_SSL_KEY_RESET_TIME, C.MQCACH_SSL_SHORT_PEER_NAME}
# Message-channel fields IBM does not return for a SVRCONN: asked for, they are skipped, never refused.
MESSAGE_CHANNEL_ONLY = (C.MQIACH_BATCHES, C.MQIACH_BATCH_SIZE_INDICATOR, C.MQIACH_NETWORK_TIME_INDICATOR,
                        C.MQIACH_XMITQ_TIME_INDICATOR, C.MQCACH_CURRENT_LUWID, C.MQIACH_CURRENT_SEQ_NUMBER,
                        C.MQIACH_XMITQ_MSGS_AVAILABLE)


def _running(h, **fields):
    channel = h.registry.objects(M.KIND)["DEV.APP.SVRCONN"]
    instance = h.registry.running.start_instance(channel, "10.0.0.1", 1_700_000_000.0)
    for k, v in fields.items():
        setattr(instance, k, v)
    return instance


def test_a_running_svrconn_answers_every_field_ibm_returns_for_one(h):
    _running(h, bytes_sent=1234, bytes_received=567, buffers_sent=9, buffers_received=8, msgs=7,
             remote_product="MQCC", remote_version="09030000", local_address="127.0.0.1(1414)", process_id=0x42,
             heartbeat_interval=5, max_msg_length=4096, remote_appl="app.py", last_msg=1_700_000_010.0)
    row = status(h, "DEV.APP.SVRCONN", il(C.MQIACH_CHANNEL_INSTANCE_ATTRS, C.MQIACF_ALL)).objects[0]
    assert set(row) == SVRCONN_FIELDS
    assert (row[C.MQIACH_BYTES_SENT], row[C.MQIACH_BYTES_RECEIVED]) == (1234, 567)
    assert (row[C.MQIACH_BUFFERS_SENT], row[C.MQIACH_BUFFERS_RECEIVED], row[C.MQIACH_MSGS]) == (9, 8, 7)
    assert (row[C.MQCACH_REMOTE_PRODUCT], row[C.MQCACH_REMOTE_VERSION]) == ("MQCC", "09030000")
    assert row[C.MQCACH_LOCAL_ADDRESS].rstrip() == "127.0.0.1(1414)"
    assert row[C.MQCACH_MCA_JOB_NAME].rstrip() == "0000004200000001"
    assert (row[C.MQIACH_HB_INTERVAL], row[C.MQIACH_MAX_MSG_LENGTH]) == (5, 4096)  # as negotiated
    assert row[C.MQCACH_REMOTE_APPL_TAG].rstrip() == "app.py" and row[C.MQCA_REMOTE_Q_MGR_NAME].strip() == ""
    assert (row[C.MQIACH_SSL_KEY_RESETS], row[C.MQCACH_SSL_KEY_RESET_DATE].strip()) == (0, "")
    assert row[C.MQIACH_SECURITY_PROTOCOL] == C.MQSECPROT_NONE
    assert row[C.MQIACH_HDR_COMPRESSION] == row[C.MQIACH_MSG_COMPRESSION] == (V.MQCOMPRESS_NONE, V.MQCOMPRESS_NONE)
    # a default queue manager has MONCHL(OFF): the monitoring values are not available
    assert row[C.MQIA_MONITORING_CHANNEL] == C.MQMON_OFF
    assert row[C.MQIACH_EXIT_TIME_INDICATOR] == row[C.MQIACH_COMPRESSION_RATE] == (-1, -1)
    asked = status(h, "DEV.APP.SVRCONN", il(C.MQIACH_CHANNEL_INSTANCE_ATTRS, C.MQIACH_BUFFERS_SENT,
                                            *MESSAGE_CHANNEL_ONLY)).objects[0]
    assert set(asked) == SVRCONN_ALWAYS | {C.MQIACH_BUFFERS_SENT}


def test_counters_past_999999999_wrap_as_ibm_reports_them(h):
    _running(h, bytes_sent=1_000_000_005, buffers_received=999_999_999)
    row = status(h, "DEV.APP.SVRCONN", il(C.MQIACH_CHANNEL_INSTANCE_ATTRS, C.MQIACF_ALL)).objects[0]
    assert (row[C.MQIACH_BYTES_SENT], row[C.MQIACH_BUFFERS_RECEIVED]) == (5, 999_999_999)


@pytest.mark.parametrize("channel_level, qmgr_level, effective", [
    (C.MQMON_Q_MGR, C.MQMON_OFF, C.MQMON_OFF), (C.MQMON_Q_MGR, C.MQMON_MEDIUM, C.MQMON_MEDIUM),
    (C.MQMON_HIGH, C.MQMON_OFF, C.MQMON_HIGH), (C.MQMON_OFF, C.MQMON_HIGH, C.MQMON_OFF),
    (C.MQMON_LOW, C.MQMON_NONE, C.MQMON_OFF)])
def test_channel_monitoring_follows_ibms_monchl_rule(h, channel_level, qmgr_level, effective):
    h.registry.qmgr.monitoring_channel = qmgr_level
    h.registry.objects(M.KIND)["DEV.APP.SVRCONN"].monitoring = channel_level
    _running(h)
    row = status(h, "DEV.APP.SVRCONN", il(C.MQIACH_CHANNEL_INSTANCE_ATTRS, C.MQIACF_ALL)).objects[0]
    assert row[C.MQIA_MONITORING_CHANNEL] == effective
    expected = (-1, -1) if effective == C.MQMON_OFF else (0, 0)
    for indicator in (C.MQIACH_EXIT_TIME_INDICATOR, C.MQIACH_COMPRESSION_RATE, C.MQIACH_COMPRESSION_TIME):
        assert row[indicator] == expected


# ---- Inquire Pub/Sub Status ------------------------------------------------------------------------------
def pubsub(h, *params):
    return h.run(command(C.MQCMD_INQUIRE_PUBSUB_STATUS, *params))


def test_pubsub_status_is_one_local_entry_with_the_tree_counts(h):
    from qmlite.registry.admin.commands import pubsub_status as PS
    from qmlite.registry.admin.commands.topics import topic_tree

    before = pubsub(h).objects
    assert len(before) == 1
    o = before[0]
    assert o[C.MQCA_Q_MGR_NAME].strip() == "QM1" and o[C.MQIACF_PS_STATUS_TYPE] == C.MQPSST_LOCAL
    assert o[C.MQIACF_PUBSUB_STATUS] == PS.MQPS_STATUS_ACTIVE
    assert o[C.MQIA_SUB_COUNT] == len(h.registry.subs)
    assert o[C.MQIA_TOPIC_NODE_COUNT] == len(topic_tree(h.registry)[0]) + 1
    assert h.run(command(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "PS.COUNT"),
                         st(C.MQCA_TOPIC_STRING, "ps/count/new/levels"),
                         i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED))).ok
    after = pubsub(h, i(C.MQIACF_PS_STATUS_TYPE, C.MQPSST_LOCAL)).objects[0]
    assert after[C.MQIA_SUB_COUNT] == o[C.MQIA_SUB_COUNT] + 1
    assert after[C.MQIA_TOPIC_NODE_COUNT] == o[C.MQIA_TOPIC_NODE_COUNT] + 4  # ps, ps/count, .../new, .../levels
    only = pubsub(h, il(C.MQIACF_PUBSUB_STATUS_ATTRS, C.MQIA_SUB_COUNT)).objects[0]
    assert set(only) == {C.MQCA_Q_MGR_NAME, C.MQIACF_PS_STATUS_TYPE, C.MQIACF_PUBSUB_STATUS, C.MQIA_SUB_COUNT}


@pytest.mark.parametrize("mode, expected", [(C.MQPSM_ENABLED, 3), (C.MQPSM_COMPAT, 4), (C.MQPSM_DISABLED, 0)])
def test_pubsub_status_follows_psmode(h, mode, expected):
    h.registry.qmgr.pubsub_mode = mode
    assert pubsub(h).objects[0][C.MQIACF_PUBSUB_STATUS] == expected


def test_pubsub_status_has_no_parent_or_children_and_checks_its_type(h):
    for kind in (C.MQPSST_PARENT, C.MQPSST_CHILD):
        reply = pubsub(h, i(C.MQIACF_PS_STATUS_TYPE, kind))
        assert reply.ok and [m.parameters for m in reply.messages] == [[]]  # one OK response, no entry
    assert failed(pubsub(h, i(C.MQIACF_PS_STATUS_TYPE, 9)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_PS_STATUS_TYPE)
    assert failed(pubsub(h, st(C.MQCA_Q_NAME, "X")), C.MQRCCF_CFST_PARM_ID_ERROR, C.MQCA_Q_NAME)
