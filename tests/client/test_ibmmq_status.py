"""Administration the way IBM's own tools do it, through IBM's ``ibmmq`` over our ``ibmmqc`` transport:
MQ Explorer's first big-endian MQCFT_COMMAND version 1 request, status commands that see the test's
own handles and connection, Reset Queue Statistics counters, a filter whose attribute the selectors
do not name, Stop Connection, and a poll like IBM's Go monitoring library (mqmetric) makes, where
every command must get a reply (no timeout)."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.pcf import constants as C  # noqa: E402
from qmlite.pcf import pcf as P  # noqa: E402

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
BIG_ENDIAN = 0x111  # MQENC 273: what IBM's Java PCF agent sends from a big-endian JVM
Q = b"STATUS.TEST.Q"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-status")) as srv:
        yield srv


@pytest.fixture(scope="module", autouse=True)
def test_queue(pcf):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    yield
    pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: Q, CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})


def _reason(fn, *args):
    """A command's replies, or the reason of its failure: never a wait that ran out."""
    try:
        return fn(*args)
    except ibmmq.MQMIError as err:
        assert err.reason != CMQC.MQRC_NO_MSG_AVAILABLE, "the command got no reply"
        return err.reason


# ---- MQ Explorer's first steps, big-endian MQCFT_COMMAND version 1 ------------------------------------------
def _explorer_request(reply_q: bytes, correl: bytes, report: int, ccsid: int = 819):
    header = P.CFH(Type=C.MQCFT_COMMAND, StrucLength=36, Version=1, Command=C.MQCMD_INQUIRE_Q_MGR, MsgSeqNumber=1,
                   Control=C.MQCFC_LAST, CompCode=0, Reason=0, ParameterCount=1)
    body = P.encode(P.PCFMessage(header, [P.CFIL(C.MQIACF_Q_MGR_ATTRS, (C.MQIA_PLATFORM, C.MQCA_Q_MGR_NAME,
                                                                       C.MQIA_COMMAND_LEVEL))]), BIG_ENDIAN)
    md = ibmmq.MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN, Encoding=BIG_ENDIAN, CodedCharSetId=ccsid,
                  ReplyToQ=reply_q, Report=report, CorrelId=correl)
    return md, body


def test_explorer_first_inquiry_big_endian_command_v1(qmgr):
    od = ibmmq.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"EXPLORER.REPLY.*")
    reply = ibmmq.Queue(qmgr, od, CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_INQUIRE)
    reply_name = reply.inquire(CMQC.MQCA_Q_NAME).strip()
    assert reply_name.startswith(b"EXPLORER.REPLY.")
    command_q = ibmmq.Queue(qmgr, b"SYSTEM.ADMIN.COMMAND.QUEUE", CMQC.MQOO_OUTPUT)
    try:
        for report, ccsid in ((CMQC.MQRO_PASS_CORREL_ID, 819), (CMQC.MQRO_NONE, 1208)):
            correl = bytes(range(1, 25))
            md, body = _explorer_request(reply_name, correl, report, ccsid)
            command_q.put(body, md)
            sent_msg_id = md.MsgId
            got_md = ibmmq.MD(Encoding=BIG_ENDIAN, CodedCharSetId=819)
            gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_CONVERT, WaitInterval=5000)
            data = reply.get(None, got_md, gmo)
            assert got_md.Encoding == BIG_ENDIAN  # the request's encoding, as the Java agent reads it
            assert got_md.MsgType == CMQC.MQMT_REPLY and got_md.Format.strip() == CMQC.MQFMT_ADMIN.strip()
            # MQRO_PASS_CORREL_ID: the request's CorrelId; otherwise the request's MsgId (MQ's default)
            assert got_md.CorrelId == (correl if report else sent_msg_id)
            msg = P.decode(data, BIG_ENDIAN, 819)
            assert msg.header.Type == C.MQCFT_RESPONSE and msg.header.Command == C.MQCMD_INQUIRE_Q_MGR
            assert msg.header.CompCode == 0 and msg.header.Control == C.MQCFC_LAST
            values = {p.parameter: p.value for p in msg.parameters}
            assert values == {C.MQIA_PLATFORM: C.MQPL_UNIX, C.MQCA_Q_MGR_NAME: "QM1".ljust(48),
                              C.MQIA_COMMAND_LEVEL: values[C.MQIA_COMMAND_LEVEL]}
    finally:
        command_q.close()
        reply.close()


# ---- status commands seeing this test's own handles ------------------------------------------------------
def test_queue_status_sees_our_open_handle(qmgr, pcf):
    q = ibmmq.Queue(qmgr, Q, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE)
    try:
        handles = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: Q, CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_HANDLE})
        ours = [h for h in handles if h[CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE]
        assert len(ours) == 1
        h = ours[0]
        assert h[CMQC.MQCA_Q_NAME].strip() == Q
        assert h[CMQCFC.MQCACF_USER_IDENTIFIER].strip() == b"admin"
        assert h[CMQCFC.MQCACH_CHANNEL_NAME].strip() == ADMIN_CHANNEL.encode()
        assert h[CMQCFC.MQCACH_CONNECTION_NAME].strip() == b"127.0.0.1"
        assert h[CMQCFC.MQIACF_OPEN_BROWSE] == CMQCFC.MQQSO_YES
        status = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: Q})
        assert len(status) == 1 and status[0][CMQC.MQIA_OPEN_INPUT_COUNT] == 1
        assert status[0][CMQCFC.MQIACF_UNCOMMITTED_MSGS] == 0
    finally:
        q.close()
    handles = _reason(pcf.MQCMD_INQUIRE_Q_STATUS, {CMQC.MQCA_Q_NAME: Q,
                                                   CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_HANDLE})
    assert handles == CMQC.MQRC_UNKNOWN_OBJECT_NAME or all(
        h[CMQCFC.MQIACF_OPEN_OPTIONS] != CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE for h in handles)


def test_inquire_connection_finds_our_connection_and_handle(qmgr, pcf):
    q = ibmmq.Queue(qmgr, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    try:
        found = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b""),
                                             CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_HANDLE})
        ours = [h for h in found if h.get(CMQCFC.MQCACF_OBJECT_NAME, b"").strip() == Q]
        assert len(ours) == 1 and ours[0][CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
        conn_id = ours[0][CMQCFC.MQBACF_CONNECTION_ID]
        conn = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_CONNECTION_ID: ibmmq.ByteString(conn_id)})
        assert len(conn) == 1
        assert conn[0][CMQCFC.MQCACF_USER_IDENTIFIER].strip() == b"admin"
        assert conn[0][CMQCFC.MQIACF_UOW_STATE] == CMQCFC.MQUOWST_NONE
    finally:
        q.close()


def test_reset_queue_statistics_counts_over_the_wire(qmgr, pcf):
    pcf.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: Q})  # start from zero
    q = ibmmq.Queue(qmgr, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        for n in range(3):
            q.put(b"m%d" % n)
        q.get()
    finally:
        q.close()
    stats = pcf.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: Q})
    assert len(stats) == 1
    assert (stats[0][CMQC.MQIA_MSG_ENQ_COUNT], stats[0][CMQC.MQIA_MSG_DEQ_COUNT],
            stats[0][CMQC.MQIA_HIGH_Q_DEPTH]) == (3, 1, 3)
    again = pcf.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: Q})
    assert (again[0][CMQC.MQIA_MSG_ENQ_COUNT], again[0][CMQC.MQIA_MSG_DEQ_COUNT]) == (0, 0)


def test_filtered_attribute_is_returned_though_not_selected(qmgr, pcf):
    q = ibmmq.Queue(qmgr, Q, CMQC.MQOO_OUTPUT)
    try:
        q.put(b"deep")
    finally:
        q.close()
    found = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"STATUS.*", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_Q_DESC]},
                                [ibmmq.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)])
    assert [f[CMQC.MQCA_Q_NAME].strip() for f in found] == [Q]
    assert found[0][CMQC.MQIA_CURRENT_Q_DEPTH] >= 1


def test_stop_connection_ends_the_other_connection(conn_name, pcf):
    other = ibmmq.connect("QM1", ADMIN_CHANNEL, conn_name, "admin", "passw0rd")
    # a handle with options nothing else uses marks the other connection in Inquire Connection
    marker = ibmmq.Queue(other, Q, CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
    found = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b""),
                                         CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_HANDLE})
    target = [h for h in found if h[CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET]
    assert len(target) == 1
    assert pcf.MQCMD_STOP_CONNECTION({CMQCFC.MQBACF_CONNECTION_ID:
                                      ibmmq.ByteString(target[0][CMQCFC.MQBACF_CONNECTION_ID])}) == []
    with pytest.raises(ibmmq.MQMIError) as info:
        marker.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    assert info.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    try:
        other.disconnect()
    except ibmmq.MQMIError:
        pass  # already ended by the queue manager


# ---- a monitoring poll like IBM's mqmetric: every command gets a reply ---------------------------------------
def test_monitoring_poll_every_command_gets_a_reply(pcf):
    poll = [
        (pcf.MQCMD_INQUIRE_Q_NAMES, {CMQC.MQCA_Q_NAME: b"*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}),
        (pcf.MQCMD_INQUIRE_CHANNEL_NAMES, {CMQCFC.MQCACH_CHANNEL_NAME: b"*"}),
        (pcf.MQCMD_INQUIRE_Q_STATUS, {CMQC.MQCA_Q_NAME: b"*",
                                      CMQCFC.MQIACF_Q_STATUS_ATTRS: [CMQC.MQIA_CURRENT_Q_DEPTH,
                                                                     CMQCFC.MQIACF_OLDEST_MSG_AGE]}),
        (pcf.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: b"*", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_MAX_Q_DEPTH]}),
        (pcf.MQCMD_INQUIRE_Q_MGR_STATUS, {}),
        (pcf.MQCMD_INQUIRE_TOPIC_STATUS, {CMQC.MQCA_TOPIC_STRING: b"#"}),
        (pcf.MQCMD_INQUIRE_SUB_STATUS, {CMQCFC.MQCACF_SUB_NAME: b"*"}),
        (pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR, {CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"*"}),
        (pcf.MQCMD_RESET_Q_STATS, {CMQC.MQCA_Q_NAME: b"DEV.*"}),
        (pcf.MQCMD_INQUIRE_CHANNEL_STATUS, {CMQCFC.MQCACH_CHANNEL_NAME: b"*"}),
    ]
    answers = [_reason(fn, args) for fn, args in poll]
    names, channels, qstatus, queues, qmstatus, tpstatus, substatus, clusqmgr, resets, chstatus = answers
    assert isinstance(names, list) and Q in [n.strip() for n in names[0][CMQCFC.MQCACF_Q_NAMES]]
    assert isinstance(channels, list) or channels == CMQC.MQRC_FUNCTION_NOT_SUPPORTED
    assert isinstance(qstatus, list) and any(s[CMQC.MQCA_Q_NAME].strip() == Q for s in qstatus)
    assert isinstance(queues, list) and isinstance(qmstatus, list)
    assert qmstatus[0][CMQCFC.MQIACF_Q_MGR_STATUS] == CMQCFC.MQQMSTA_RUNNING
    assert isinstance(tpstatus, list)
    assert isinstance(substatus, list) or substatus == CMQC.MQRC_NO_SUBSCRIPTION
    assert clusqmgr == CMQC.MQRC_UNKNOWN_OBJECT_NAME  # in no cluster
    assert isinstance(resets, list) and all(CMQC.MQIA_MSG_ENQ_COUNT in r for r in resets)
    assert isinstance(chstatus, (list, int))


def test_stop_connection_ends_a_waiting_get(conn_name, pcf):
    import threading

    empty = b"STATUS.WAIT.Q"  # a queue of its own: nothing on it for the GET to find
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: empty, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    other = ibmmq.connect("QM1", ADMIN_CHANNEL, conn_name, "admin", "passw0rd")
    waiter = ibmmq.Queue(other, empty, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
    found = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b""),
                                         CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_HANDLE})
    target = [h for h in found
              if h[CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET]
    assert len(target) == 1
    outcome: dict = {}

    def wait_for_a_message() -> None:
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=60_000)
        try:
            waiter.get(None, ibmmq.MD(), gmo)
            outcome["got"] = True
        except ibmmq.MQMIError as err:
            outcome["reason"] = err.reason

    thread = threading.Thread(target=wait_for_a_message)
    thread.start()
    assert pcf.MQCMD_STOP_CONNECTION({CMQCFC.MQBACF_CONNECTION_ID:
                                      ibmmq.ByteString(target[0][CMQCFC.MQBACF_CONNECTION_ID])}) == []
    thread.join(30)  # far less than the GET's 60 s wait: the stop ended it (or the GET came after it)
    assert not thread.is_alive()
    assert outcome == {"reason": CMQC.MQRC_CONNECTION_BROKEN}
    try:
        other.disconnect()
    except ibmmq.MQMIError:
        pass
    # the stopped connection's handle is gone: the queue is no longer in use
    assert pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: empty}) == []


def test_stop_connection_ends_an_asynchronous_consumer_with_2009(conn_name, pcf):
    import threading

    empty = b"STATUS.MQCB.Q"  # nothing on it: the consumer waits
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: empty, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    other = ibmmq.connect("QM1", ADMIN_CHANNEL, conn_name, "admin", "passw0rd")
    marked = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET
    q = ibmmq.Queue(other, empty, marked)
    events: list = []
    heard = threading.Event()

    def handler(queue_manager, queue, md, gmo, msg, cbc):
        events.append((cbc.CallType, cbc.Reason))
        heard.set()

    other.cb(operation=CMQC.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackFunction=handler,
                                                         CallbackType=CMQC.MQCBT_EVENT_HANDLER))
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackFunction=lambda **kw: None), md=ibmmq.MD(),
         gmo=ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=CMQC.MQWI_UNLIMITED))
    other.ctl(CMQC.MQOP_START, ibmmq.CTLO())
    found = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b""),
                                         CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_HANDLE})
    (target,) = [h for h in found if h[CMQCFC.MQIACF_OPEN_OPTIONS] == marked]
    assert pcf.MQCMD_STOP_CONNECTION({CMQCFC.MQBACF_CONNECTION_ID:
                                      ibmmq.ByteString(target[CMQCFC.MQBACF_CONNECTION_ID])}) == []
    assert heard.wait(30)  # far less than the unlimited wait: the stop ended it
    assert events[0] == (CMQC.MQCBCT_EVENT_CALL, CMQC.MQRC_CONNECTION_BROKEN)
    try:
        other.disconnect()
    except ibmmq.MQMIError:
        pass  # the queue manager ended it already
    assert pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: empty}) == []  # its handle is gone: the queue is not in use
