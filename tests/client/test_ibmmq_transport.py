"""IBM's ``ibmmq`` package (dev extra) against qmlite through the ``ibmmqc`` transport.

The calls follow IBM's documented style (docs/reference/pcf.md section 11.3): ``ibmmq.connect(qmgr, channel,
'host(port)', user, password)``, ``ibmmq.PCFExecute(qmgr)``, dict arguments, ``ByteString(subid)``.
ibmmq is blocking; the server runs in its own trio thread (``running_qmlite``), one per module."""

from __future__ import annotations

import socket

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # the client engineer's in-process server (client/pytest_plugin.py), one per module for speed
    with running_qmlite(tmp_path_factory.mktemp("ibmmq")) as srv:
        yield srv


_raises = raises  # tests/support/ibmmqkit.py


# --------------------------------------------------------------------------------------------------
# Connecting
# --------------------------------------------------------------------------------------------------

def test_connect_as_admin_and_disconnect(conn_name):
    qm = ibmmq.connect("QM1", ADMIN_CHANNEL, conn_name, "admin", "passw0rd")
    assert qm.get_handle()
    qm.disconnect()
    with pytest.raises(ibmmq.PYIFError):
        qm.get_handle()


def test_connect_with_explicit_cd_and_csp(conn_name):
    cd = ibmmq.CD(ChannelName=ADMIN_CHANNEL.encode(), ConnectionName=conn_name.encode())
    csp = ibmmq.CSP(CSPUserId="admin", CSPPassword="passw0rd")
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options("QM1", cd=cd, csp=csp)
    assert qm.get_handle()
    assert csp.CSPUserId == b"admin"  # ibmmq restores the fields it turned into pointers
    qm.disconnect()


def test_connect_through_mqserver(monkeypatch, server):
    monkeypatch.setenv("MQSERVER", f"{ADMIN_CHANNEL}/TCP/127.0.0.1({server.port})")
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options("QM1", user="admin", password="passw0rd")
    qm.disconnect()


@pytest.mark.parametrize("user, password, channel, qmgr_name, reason", [
    ("admin", "wrong", ADMIN_CHANNEL, "QM1", CMQC.MQRC_NOT_AUTHORIZED),
    ("app", "passw0rd", ADMIN_CHANNEL, "QM1", CMQC.MQRC_NOT_AUTHORIZED),
    ("admin", "passw0rd", "NO.SUCH.SVRCONN", "QM1", CMQC.MQRC_UNKNOWN_CHANNEL_NAME),
    ("admin", "passw0rd", ADMIN_CHANNEL, "QM9", CMQC.MQRC_Q_MGR_NAME_ERROR),
])
def test_connect_refused_with_the_documented_reason(conn_name, user, password, channel, qmgr_name, reason):
    err = _raises(reason, ibmmq.connect, qmgr_name, channel, conn_name, user, password)
    assert err.comp == CMQC.MQCC_FAILED


def test_connect_to_closed_port_is_host_not_available():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening
        _raises(CMQC.MQRC_HOST_NOT_AVAILABLE, ibmmq.connect, "QM1", ADMIN_CHANNEL, f"127.0.0.1({port})",
                "admin", "passw0rd")


def test_connection_list_falls_through_to_the_live_address(server):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
        qm = ibmmq.connect("QM1", ADMIN_CHANNEL, f"127.0.0.1({dead}),127.0.0.1({server.port})", "admin",
                           "passw0rd")
    qm.disconnect()


def test_no_client_configuration_is_qmgr_not_available(monkeypatch):
    monkeypatch.delenv("MQSERVER", raising=False)
    _raises(CMQC.MQRC_Q_MGR_NOT_AVAILABLE, ibmmq.QueueManager, "QM1")


# --------------------------------------------------------------------------------------------------
# PCF administration (PCFExecute)
# --------------------------------------------------------------------------------------------------

def test_pcf_inquire_queue_manager(pcf):
    replies = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [CMQC.MQCA_Q_MGR_NAME,
                                                                   CMQC.MQIA_COMMAND_LEVEL]})
    assert len(replies) == 1
    assert replies[0][CMQC.MQCA_Q_MGR_NAME].strip() == b"QM1"
    assert replies[0][CMQC.MQIA_COMMAND_LEVEL] == ibmmq.__cmdlevel__


def test_pcf_subscription_lifecycle(pcf):
    assert pcf.MQCMD_CREATE_SUBSCRIPTION({
        CMQCFC.MQCACF_SUB_NAME: b"IBMMQ.SUB.A",
        CMQC.MQCA_TOPIC_STRING: b"ibmmq/price/fruit",
        CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED,
        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES}) == []
    # Copy (list form of the arguments, as code/examples/def_queue.py builds them)
    assert pcf.MQCMD_COPY_SUBSCRIPTION([
        ibmmq.CFST(Parameter=CMQCFC.MQCACF_FROM_SUB_NAME, String=b"IBMMQ.SUB.A"),
        ibmmq.CFST(Parameter=CMQCFC.MQCACF_TO_SUB_NAME, String=b"IBMMQ.SUB.B")]) == []
    assert pcf.MQCMD_CHANGE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"IBMMQ.SUB.B",
                                          CMQCFC.MQCACF_SUB_USER_DATA: b"changed by ibmmq"}) == []
    subs = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"IBMMQ.SUB.*",
                                           CMQCFC.MQIACF_SUB_ATTRS: CMQCFC.MQIACF_ALL})
    by_name = {s[CMQCFC.MQCACF_SUB_NAME].strip(): s for s in subs}
    assert set(by_name) == {b"IBMMQ.SUB.A", b"IBMMQ.SUB.B"}
    assert by_name[b"IBMMQ.SUB.B"][CMQC.MQCA_TOPIC_STRING].strip() == b"ibmmq/price/fruit"
    assert by_name[b"IBMMQ.SUB.B"][CMQCFC.MQCACF_SUB_USER_DATA].strip() == b"changed by ibmmq"
    sub_id = by_name[b"IBMMQ.SUB.A"][CMQCFC.MQBACF_SUB_ID]
    assert len(sub_id) == 24
    assert pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQBACF_SUB_ID: ibmmq.ByteString(sub_id)}) == []
    assert pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"IBMMQ.SUB.B"}) == []
    _raises(CMQC.MQRC_NO_SUBSCRIPTION, pcf.MQCMD_INQUIRE_SUBSCRIPTION,
            {CMQCFC.MQCACF_SUB_NAME: b"IBMMQ.SUB.*"})


def test_pcf_subscription_errors(pcf):
    create = {CMQCFC.MQCACF_SUB_NAME: b"IBMMQ.SUB.DUP", CMQC.MQCA_TOPIC_STRING: b"ibmmq/dup",
              CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED}
    pcf.MQCMD_CREATE_SUBSCRIPTION(create)
    try:
        err = _raises(CMQCFC.MQRCCF_SUB_ALREADY_EXISTS, pcf.MQCMD_CREATE_SUBSCRIPTION, create)
        assert err.comp == CMQC.MQCC_FAILED
    finally:
        pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"IBMMQ.SUB.DUP"})
    _raises(CMQC.MQRC_NO_SUBSCRIPTION, pcf.MQCMD_DELETE_SUBSCRIPTION, {CMQCFC.MQCACF_SUB_NAME: b"IBMMQ.SUB.DUP"})
    # raw bytes for the SubId travel as an MQCFST: the server refuses the structure type
    _raises(CMQCFC.MQRCCF_CFST_PARM_ID_ERROR, pcf.MQCMD_DELETE_SUBSCRIPTION, {CMQCFC.MQBACF_SUB_ID: bytes(24)})


def test_pcf_queue_lifecycle(pcf):
    assert pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"IBMMQ.Q.A", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                               CMQC.MQIA_MAX_Q_DEPTH: 100}) == []
    assert pcf.MQCMD_COPY_Q({CMQCFC.MQCACF_FROM_Q_NAME: b"IBMMQ.Q.A", CMQCFC.MQCACF_TO_Q_NAME: b"IBMMQ.Q.B",
                             CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}) == []
    assert pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: b"IBMMQ.Q.B", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                               CMQC.MQIA_MAX_Q_DEPTH: 42, CMQC.MQCA_Q_DESC: b"from ibmmq"}) == []
    queues = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"IBMMQ.Q.*",
                                  CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_Q_NAME, CMQC.MQIA_MAX_Q_DEPTH,
                                                          CMQC.MQCA_Q_DESC]})
    got = {q[CMQC.MQCA_Q_NAME].strip(): q for q in queues}
    assert got[b"IBMMQ.Q.A"][CMQC.MQIA_MAX_Q_DEPTH] == 100
    assert got[b"IBMMQ.Q.B"][CMQC.MQIA_MAX_Q_DEPTH] == 42
    assert got[b"IBMMQ.Q.B"][CMQC.MQCA_Q_DESC].strip() == b"from ibmmq"
    names = pcf.MQCMD_INQUIRE_Q_NAMES({CMQC.MQCA_Q_NAME: b"IBMMQ.Q.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALL})
    assert sorted(n.strip() for n in names[0][CMQCFC.MQCACF_Q_NAMES]) == [b"IBMMQ.Q.A", b"IBMMQ.Q.B"]
    for name in (b"IBMMQ.Q.A", b"IBMMQ.Q.B"):
        assert pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: name}) == []
    _raises(CMQC.MQRC_UNKNOWN_OBJECT_NAME, pcf.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: b"IBMMQ.Q.*"})


def test_pcf_queue_errors(pcf):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"IBMMQ.Q.ERR", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    try:
        _raises(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS, pcf.MQCMD_CREATE_Q,
                {CMQC.MQCA_Q_NAME: b"IBMMQ.Q.ERR", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
        _raises(CMQCFC.MQRCCF_PARM_VALUE_ERROR, pcf.MQCMD_CHANGE_Q,
                {CMQC.MQCA_Q_NAME: b"IBMMQ.Q.ERR", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                 CMQC.MQIA_MAX_Q_DEPTH: -5})
    finally:
        pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"IBMMQ.Q.ERR"})
    _raises(CMQC.MQRC_UNKNOWN_OBJECT_NAME, pcf.MQCMD_DELETE_Q, {CMQC.MQCA_Q_NAME: b"IBMMQ.Q.ERR"})
    _raises(CMQCFC.MQRCCF_OBJECT_NAME_ERROR, pcf.MQCMD_CREATE_Q,
            {CMQC.MQCA_Q_NAME: b"BAD NAME", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})


# --------------------------------------------------------------------------------------------------
# Messaging
# --------------------------------------------------------------------------------------------------

@pytest.fixture
def local_queue(pcf):
    name = b"IBMMQ.MSG.Q"
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    yield name.decode()
    pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: name, CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})


def _pcf_message() -> bytes:
    """An arbitrary PCF message built with ibmmq's own structure classes."""
    params = [ibmmq.CFST(Parameter=CMQCFC.MQCACF_SUB_NAME, String=b"ANY.SUB"),
              ibmmq.CFIN(Parameter=CMQCFC.MQIACF_DESTINATION_CLASS, Value=CMQC.MQDC_MANAGED),
              ibmmq.CFIL(Parameter=CMQCFC.MQIACF_SUB_ATTRS, Values=[1, 2, 3]),
              ibmmq.CFBS(Parameter=CMQCFC.MQBACF_SUB_ID, String=bytes(range(24)))]
    cfh = ibmmq.CFH(Version=CMQCFC.MQCFH_VERSION_3, Type=CMQCFC.MQCFT_USER, Command=CMQCFC.MQCMD_NONE,
                    ParameterCount=len(params))
    return cfh.pack() + b"".join(p.pack() for p in params)


def test_put_get_round_trip_of_a_pcf_message(qmgr, local_queue):
    body = _pcf_message()
    queue = ibmmq.Queue(qmgr, local_queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INQUIRE)
    try:
        put_md = ibmmq.MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_DATAGRAM, CorrelId=b"C" * 24)
        queue.put(body, put_md, ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        assert put_md.MsgId != bytes(24)  # the queue manager's new MsgId came back in the MQMD
        assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
        get_md = ibmmq.MD()
        got = queue.get(None, get_md, ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        assert got == body
        assert (get_md.MsgId, get_md.CorrelId) == (put_md.MsgId, b"C" * 24)
        assert get_md.Format == CMQC.MQFMT_ADMIN
        assert get_md.PutDate.strip() and get_md.PutTime.strip()
        # and ibmmq's PCF parser reads what came back
        parsed, cfh = ibmmq.PCFExecute.unpack(got)
        assert (cfh.Type, cfh.ParameterCount) == (CMQCFC.MQCFT_USER, 4)
        assert parsed[CMQCFC.MQCACF_SUB_NAME] == b"ANY.SUB"
        assert parsed[CMQCFC.MQIACF_SUB_ATTRS] == [1, 2, 3]
        assert parsed[CMQCFC.MQBACF_SUB_ID] == bytes(range(24))
        _raises(CMQC.MQRC_NO_MSG_AVAILABLE, queue.get)
    finally:
        queue.close()


def test_large_message_is_refetched_after_2080(qmgr, local_queue):
    body = bytes(range(256)) * 40  # 10240 bytes > ibmmq's first 4096-byte buffer
    ibmmq.Queue(qmgr, local_queue).put(body)
    queue = ibmmq.Queue(qmgr, local_queue, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        md = ibmmq.MD()
        assert queue.get(None, md) == body
        assert md.MsgId != bytes(24)
    finally:
        queue.close()


def test_truncation_reasons(qmgr, local_queue):
    ibmmq.Queue(qmgr, local_queue).put(b"0123456789")
    queue = ibmmq.Queue(qmgr, local_queue, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        err = _raises(CMQC.MQRC_TRUNCATED_MSG_FAILED, queue.get, 4)
        assert err.original_length == 10
        err = _raises(CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, queue.get, 4, ibmmq.MD(),
                      ibmmq.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
        assert err.comp == CMQC.MQCC_WARNING and err.message == b"0123"
        _raises(CMQC.MQRC_NO_MSG_AVAILABLE, queue.get)
    finally:
        queue.close()


def test_put1_and_unknown_queue(qmgr, local_queue):
    qmgr.put1(local_queue, b"one shot", ibmmq.MD(Format=CMQC.MQFMT_STRING))
    queue = ibmmq.Queue(qmgr, local_queue, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        assert queue.get() == b"one shot"
    finally:
        queue.close()
    _raises(CMQC.MQRC_UNKNOWN_OBJECT_NAME, ibmmq.Queue, qmgr, "NO.SUCH.QUEUE", CMQC.MQOO_OUTPUT)
    _raises(CMQC.MQRC_UNKNOWN_OBJECT_NAME, qmgr.put1, "NO.SUCH.QUEUE", b"x")


def test_commit_and_backout_are_forwarded(qmgr, local_queue):
    # qmlite's server has no units of work (server/mqi.py: MQCMIT/MQBACK answer OK, messages are put and
    # got at once), so only the round trip of the verbs is checked here, not rollback.
    queue = ibmmq.Queue(qmgr, local_queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        queue.put(b"committed", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        qmgr.commit()
        qmgr.backout()
        assert queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"committed"
        qmgr.commit()
    finally:
        queue.close()


def test_publish_to_a_managed_subscription(qmgr):
    sub = ibmmq.Subscription(qmgr)
    sub.sub(sub_name=b"IBMMQ.API.SUB", topic_string=b"ibmmq/api/topic",
            sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    try:
        topic = ibmmq.Topic(qmgr, topic_string=b"ibmmq/api/topic")
        topic.open(open_opts=CMQC.MQOO_OUTPUT)
        topic.pub(b"published through ibmmq")
        topic.close()
        assert sub.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"published through ibmmq"
    finally:
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)


# --------------------------------------------------------------------------------------------------
# What is refused
# --------------------------------------------------------------------------------------------------

def test_unsupported_verbs_fail_with_function_not_supported(qmgr):
    _raises(CMQC.MQRC_FUNCTION_NOT_SUPPORTED, qmgr.begin)  # no global (XA) units of work


def test_mqstat_async_error_counts_are_zero(qmgr):
    sts = qmgr.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.CompCode, sts.Reason, sts.PutSuccessCount, sts.PutFailureCount) == (0, 0, 0, 0)
    # a client connection that is not reconnectable is simply connected (docs/reconnect.md)
    for kind in (CMQC.MQSTAT_TYPE_RECONNECTION, CMQC.MQSTAT_TYPE_RECONNECTION_ERROR):
        sts = qmgr.stat(kind)
        assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)


def test_calls_on_a_disconnected_handle_fail_with_hconn_error(conn_name):
    import ibmmqc
    qm = ibmmq.connect("QM1", ADMIN_CHANNEL, conn_name, "admin", "passw0rd")
    hconn = qm.get_handle()
    qm.disconnect()
    assert ibmmqc.MQDISC(hconn) == (CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR)
    assert ibmmqc.MQOPEN(hconn, ibmmq.OD(ObjectName=b"Q").pack(), CMQC.MQOO_OUTPUT)[-1] == CMQC.MQRC_HCONN_ERROR


def test_an_mqod_the_transport_cannot_read_is_od_error_and_comes_back_unchanged(qmgr):
    # MQOPEN decodes the caller's MQOD once and writes the reply over it: a structure it cannot decode
    # is refused before anything is sent, the caller's bytes returned as they were
    import ibmmqc
    good = ibmmq.OD(ObjectName=b"DEV.QUEUE.1").pack()
    for bad in (good[:100], b"XX  " + good[4:]):
        hobj, od, cc, rc = ibmmqc.MQOPEN(qmgr.get_handle(), bad, CMQC.MQOO_OUTPUT)
        assert (cc, rc, od) == (CMQC.MQCC_FAILED, CMQC.MQRC_OD_ERROR, bad)
    hobj, od, cc, rc = ibmmqc.MQOPEN(qmgr.get_handle(), good, CMQC.MQOO_OUTPUT)
    assert (cc, rc, len(od)) == (CMQC.MQCC_OK, CMQC.MQRC_NONE, len(good))
    assert ibmmqc.MQCLOSE(qmgr.get_handle(), hobj, 0) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)


def test_inquire_queue_manager_and_queue_attributes(qmgr, local_queue):
    assert qmgr.is_connected
    assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == b"QM1"
    queue = ibmmq.Queue(qmgr, local_queue, CMQC.MQOO_INQUIRE | CMQC.MQOO_OUTPUT)
    try:
        queue.put(b"x")
        attrs = queue.inquire([CMQC.MQCA_Q_NAME, CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQIA_Q_TYPE])
        assert attrs[CMQC.MQCA_Q_NAME].strip() == local_queue.encode()
        assert (attrs[CMQC.MQIA_CURRENT_Q_DEPTH], attrs[CMQC.MQIA_Q_TYPE]) == (1, CMQC.MQQT_LOCAL)
        _raises(CMQC.MQRC_NOT_OPEN_FOR_SET, queue.set, CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    finally:
        queue.close()


def test_subscription_request_on_a_subscription(qmgr):
    sub = ibmmq.Subscription(qmgr)
    sub.sub(sub_name=b"IBMMQ.SUBRQ", topic_string=b"ibmmq/subrq",
            sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED | CMQC.MQSO_PUBLICATIONS_ON_REQUEST)
    try:
        # nothing is retained on this topic (tests/client/test_ibmmq_pubsub.py covers the rest)
        _raises(CMQC.MQRC_NO_RETAINED_MSG, sub.subrq, CMQC.MQSR_ACTION_PUBLICATION, ibmmq.SRO())
    finally:
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)


def test_one_connection_shared_by_threads(qmgr, local_queue):
    import concurrent.futures

    def put_some(n):
        q = ibmmq.Queue(qmgr, local_queue, CMQC.MQOO_OUTPUT)
        try:
            for i in range(10):
                q.put(f"{n}-{i}".encode())
        finally:
            q.close()

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(put_some, range(4)))
    queue = ibmmq.Queue(qmgr, local_queue, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        got = set()
        while True:
            try:
                got.add(queue.get())
            except ibmmq.MQMIError as err:
                assert err.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                break
    finally:
        queue.close()
    assert got == {f"{n}-{i}".encode() for n in range(4) for i in range(10)}
