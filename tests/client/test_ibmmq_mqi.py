"""IBM's ``ibmmq`` over qmlite's transport, the breadth of the MQI (issue 12): objects dropped unclosed
inside reference cycles, message properties through handles, asynchronous consume, asynchronous put
with MQSTAT, MQSET, blank-padded MQGET output, connections on many threads.

A hang would show as a thread still alive after its join timeout: every scenario that could block
runs in a worker thread and the test asserts the thread finished."""

from __future__ import annotations

import gc
import threading

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-mqi")) as srv:
        yield srv


def _connect(server):
    return ibmmq.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")


def _finish(target, timeout=60.0):
    """Run ``target`` in a thread; fail (instead of hanging the suite) if it does not end."""
    errors = []

    def run():
        try:
            target()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "the scenario hung"
    if errors:
        raise errors[0]


def _handles_of(pcf, conn_id: bytes) -> list[tuple[int, str]]:
    out = []
    for r in pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b""),
                                           CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_HANDLE}):
        if r[CMQCFC.MQBACF_CONNECTION_ID] == conn_id:
            out.append((r[CMQCFC.MQIACF_OBJECT_TYPE], r[CMQCFC.MQCACF_OBJECT_NAME].decode().strip()))
    return out


def _connection_id_holding(pcf, queue: str) -> bytes:
    for r in pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b""),
                                           CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_HANDLE}):
        if r[CMQCFC.MQCACF_OBJECT_NAME].decode().strip() == queue:
            return r[CMQCFC.MQBACF_CONNECTION_ID]
    raise AssertionError(f"no connection holds {queue}")


# --------------------------------------------------------------------------------------------------
# Objects dropped unclosed inside reference cycles (the cyclic collector runs their __del__ anywhere)
# --------------------------------------------------------------------------------------------------

def test_hundreds_of_objects_dropped_in_cycles_never_hang_and_are_all_closed(server):
    qm = _connect(server)
    marker = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_INQUIRE)  # kept: finds this connection's id
    admin = _connect(server)
    pcf = ibmmq.PCFExecute(admin)
    conn_id = _connection_id_holding(pcf, "DEV.QUEUE.3")
    old = gc.get_threshold()
    gc.set_threshold(25, 2, 2)  # collect often, so finalizers run in the middle of MQI calls
    stop = threading.Event()

    def drop_objects():
        for i in range(300):
            kind = i % 3
            if kind == 0:
                obj = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_OUTPUT)
            elif kind == 1:
                obj = ibmmq.Topic(qm, topic_string=f"cycle/t{i % 7}")
                obj.open(open_opts=CMQC.MQOO_OUTPUT)
            else:
                sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
                sd.set_vs("ObjectString", f"cycle/t{i % 7}")
                obj = ibmmq.Subscription(qm)
                obj.sub(sub_desc=sd)
            cycle = [obj]
            cycle.append(cycle)  # unreachable only through the cyclic collector
            try:
                raise RuntimeError(i)
            except RuntimeError as exc:
                cycle.append(exc)  # a traceback holding the frame, as in the reported hang
            del obj, cycle

    def keep_calling():
        q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        n = 0
        while not stop.is_set():
            q.put(b"m%d" % n)
            q.get()
            n += 1
        q.close()

    try:
        caller = threading.Thread(target=keep_calling, daemon=True)
        caller.start()
        _finish(drop_objects)
        stop.set()
        caller.join(30)
        assert not caller.is_alive(), "the caller thread hung"
        _finish(gc.collect)
        _finish(lambda: marker.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))  # carries out deferred closes
    finally:
        gc.set_threshold(*old)
    left = _handles_of(pcf, conn_id)
    assert left == [(CMQC.MQOT_Q, "DEV.QUEUE.3")], left
    marker.close()
    qm.disconnect()
    admin.disconnect()


def test_a_close_made_from_inside_a_call_is_deferred_to_the_end_of_that_call(server):
    import ibmmqc

    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_OUTPUT)
    hconn = qm.get_handle()
    conn = ibmmqc._mqi._lookup(hconn)
    results = []
    real_call = conn.qm._call_locked

    def call_with_a_finalizer(*args):
        # what the garbage collector does when it runs a finalizer on the calling thread mid-call
        conn.qm._call_locked = real_call
        results.append(ibmmqc.MQCLOSE(hconn, q.get_handle(), CMQC.MQCO_NONE))
        return real_call(*args)

    conn.qm._call_locked = call_with_a_finalizer
    try:
        _finish(lambda: qm.inquire(CMQC.MQCA_Q_MGR_NAME))
    finally:
        conn.qm._call_locked = real_call
    assert results == [(CMQC.MQCC_OK, CMQC.MQRC_NONE)]
    # the close was carried out when the inquire ended: the handle is gone on the server
    raises(CMQC.MQRC_HOBJ_ERROR, q.put, b"x")
    qm.disconnect()


# --------------------------------------------------------------------------------------------------
# Message properties through message handles
# --------------------------------------------------------------------------------------------------

PROPERTIES = [
    ("pBool", True, CMQC.MQTYPE_BOOLEAN),
    ("pByte", b"\x00\x01\xfe", CMQC.MQTYPE_BYTE_STRING),
    ("pInt8", -7, CMQC.MQTYPE_INT8),
    ("pInt16", 3000, CMQC.MQTYPE_INT16),
    ("pInt32", -2_000_000_000, CMQC.MQTYPE_INT32),
    ("pInt64", 9_000_000_000_000, CMQC.MQTYPE_INT64),
    ("pFloat32", 1.5, CMQC.MQTYPE_FLOAT32),
    ("pFloat64", 2.000000000001, CMQC.MQTYPE_FLOAT64),
    ("pString", "héllo wörld", CMQC.MQTYPE_STRING),
    ("pNull", None, CMQC.MQTYPE_NULL),
]


def _set_all(handle):
    for name, value, ptype in PROPERTIES:
        if ptype == CMQC.MQTYPE_STRING:
            handle.properties.set(name, value)
        elif ptype == CMQC.MQTYPE_BYTE_STRING:
            handle.properties.set(name, value, property_type=ptype, value_length=len(value))
        elif ptype == CMQC.MQTYPE_NULL:
            handle.properties.set(name, value, property_type=ptype, value_length=0)
        else:
            handle.properties.set(name, value, property_type=ptype)


def _check_all(handle):
    for name, value, ptype in PROPERTIES:
        got = handle.properties.get(name, property_type=ptype)
        if ptype == CMQC.MQTYPE_STRING:
            assert got == value, name  # ibmmq returns strings as str
        elif ptype == CMQC.MQTYPE_BOOLEAN:
            assert bool(got) is value, name
        elif ptype == CMQC.MQTYPE_FLOAT32:
            assert got == pytest.approx(value), name
        else:
            assert got == value, name


def test_properties_of_every_type_set_on_put_and_read_on_get(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    put_handle = ibmmq.MessageHandle(qm)
    _set_all(put_handle)
    q.put(b"body", ibmmq.MD(), ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, OriginalMsgHandle=put_handle.msg_handle))
    get_handle = ibmmq.MessageHandle(qm)
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=get_handle.msg_handle,
                    Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    assert q.get(None, md, gmo) == b"body"  # the properties are not in the body
    assert md.Format.strip() == b""  # the body's own format, not MQHRF2
    _check_all(get_handle)
    put_handle.dlt()
    get_handle.dlt()
    q.close()
    qm.disconnect()


def test_properties_reach_a_subscriber_through_msgprop(server):
    qm = _connect(server)
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "props/prices")
    sub = ibmmq.Subscription(qm)
    sub.sub(sub_desc=sd)
    handle = ibmmq.MessageHandle(qm)
    _set_all(handle)
    topic = ibmmq.Topic(qm, topic_string="props/prices")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"tick", ibmmq.MD(), ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, OriginalMsgHandle=handle.msg_handle))
    got = ibmmq.MessageHandle(qm)
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=got.msg_handle,
                    Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    assert sub.get(None, ibmmq.MD(), gmo) == b"tick"
    _check_all(got)
    # MSGPROP: the publication's topic travels as mqps.Top
    assert got.properties.get("mqps.Top") == "props/prices"
    topic.close()
    sub.close()
    qm.disconnect()


def _md_field_names():
    """IBM "Message descriptor fields as properties": every MQMD field but StrucId and Version."""
    return [entry[0] for entry in ibmmq.MD(Version=CMQC.MQMD_VERSION_2)._MQOpts__list
            if entry[0] not in ("_StrucId", "StrucId", "Version")]


def test_root_mqmd_of_a_message_got_into_a_handle(server):
    """After an MQGET into a handle, every Root.MQMD.<field> is the retrieved message's (IBM, MQGMO
    MsgHandle: "the properties and message descriptor associated with this message handle are updated")."""
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_SET_ALL_CONTEXT)
    put_md = ibmmq.MD(Version=CMQC.MQMD_VERSION_2, Report=CMQC.MQRO_COA, MsgType=CMQC.MQMT_REQUEST, Expiry=6000,
                      Feedback=7, CodedCharSetId=1208, Format=CMQC.MQFMT_STRING, Priority=7,
                      Persistence=CMQC.MQPER_PERSISTENT, CorrelId=b"REQ-1".ljust(24, b"\0"),
                      ReplyToQ=b"REPLY.Q", ReplyToQMgr=b"QM1", UserIdentifier=b"alice",
                      AccountingToken=bytes(range(32)), ApplIdentityData=b"ident", PutApplType=CMQC.MQAT_JAVA,
                      PutApplName=b"framework.py", PutDate=b"20240131", PutTime=b"12345678",
                      ApplOriginData=b"orig", GroupId=b"G" * 24, MsgSeqNumber=3, MsgFlags=CMQC.MQMF_MSG_IN_GROUP)
    q.put(b"request", put_md, ibmmq.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_NO_SYNCPOINT))
    handle = ibmmq.MessageHandle(qm)
    got_md = ibmmq.MD(Version=CMQC.MQMD_VERSION_2)
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=handle.msg_handle,
                    Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    assert q.get(None, got_md, gmo) == b"request"
    names = _md_field_names()
    assert len(names) == 27
    for name in names:
        value = handle.properties.get("Root.MQMD." + name)
        want = getattr(got_md, name)
        if isinstance(want, bytes) and name not in ("MsgId", "CorrelId", "AccountingToken", "GroupId"):
            want = want.decode("latin-1").rstrip(" \0")  # MQCHARn: a STRING property
        assert value == want, name
    # the values are the message's, not the handle's defaults
    assert handle.properties.get("Root.MQMD.CorrelId") == b"REQ-1".ljust(24, b"\0")
    assert handle.properties.get("Root.MQMD.Priority") == 7
    assert handle.properties.get("Root.MQMD.ReplyToQ") == "REPLY.Q"
    assert handle.properties.get("Root.MQMD.MsgId") == got_md.MsgId != bytes(24)
    assert handle.properties.get("Root.MQMD.MsgSeqNumber") == 3
    # a wildcard walks the message's properties only: this message has none (as amqsbcg prints "None")
    for pattern in ("%", "Root.MQMD.%"):
        with pytest.raises(ibmmq.MQMIError) as info:
            handle.properties.get(pattern)
        assert info.value.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE, pattern

    # a second get into the same handle describes the second message
    q.put(b"next", ibmmq.MD(Priority=2, CorrelId=b"REQ-2".ljust(24, b"\0")))
    assert q.get(None, ibmmq.MD(), gmo) == b"next"
    assert handle.properties.get("Root.MQMD.Priority") == 2
    assert handle.properties.get("Root.MQMD.CorrelId") == b"REQ-2".ljust(24, b"\0")
    assert handle.properties.get("Root.MQMD.ReplyToQ") == ""
    handle.dlt()
    q.close()
    qm.disconnect()


def test_a_reply_put_through_the_request_handle_keeps_its_own_mqmd(server):
    """A framework's request/reply: the reply is put naming the handle the request was got into, with its
    own MQMD.  IBM (MQPMO Action, MQACTP_NEW): a MsgDesc supplied without MQPMO_MD_FOR_OUTPUT_ONLY "is
    used as the message descriptor unmodified"; with it, the descriptor comes from the handle."""
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"request", ibmmq.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"DEV.QUEUE.3", Priority=8))
    handle = ibmmq.MessageHandle(qm)
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=handle.msg_handle,
                    Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    request_md = ibmmq.MD()
    q.get(None, request_md, gmo)
    request_id = handle.properties.get("Root.MQMD.MsgId")
    assert handle.properties.get("Root.MQMD.ReplyToQ") == "DEV.QUEUE.3"

    reply_md = ibmmq.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=request_id, Priority=1)
    q.put(b"reply", reply_md, ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, OriginalMsgHandle=handle.msg_handle))
    got = ibmmq.MD()
    assert q.get(None, got, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"reply"
    assert (got.MsgType, got.Priority, got.CorrelId) == (CMQC.MQMT_REPLY, 1, request_id)
    assert got.MsgId != request_id and got.ReplyToQ.strip() == b""

    # MD_FOR_OUTPUT_ONLY: the descriptor is the handle's Root.MQMD.* (set, or got), defaults elsewhere
    fresh = ibmmq.MessageHandle(qm)
    fresh.properties.set("Root.MQMD.Priority", 3, property_type=CMQC.MQTYPE_INT32)
    fresh.properties.set("Root.MQMD.CorrelId", b"FROM-HANDLE".ljust(24, b"\0"),
                         property_type=CMQC.MQTYPE_BYTE_STRING, value_length=24)
    fresh.properties.set("Root.MQMD.Format", "MQSTR")
    ignored = ibmmq.MD(Priority=9, CorrelId=b"IGNORED".ljust(24, b"\0"))
    q.put(b"composed", ignored, ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, NewMsgHandle=fresh.msg_handle,
                                           Options=CMQC.MQPMO_MD_FOR_OUTPUT_ONLY | CMQC.MQPMO_NO_SYNCPOINT))
    got = ibmmq.MD()
    assert q.get(None, got, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"composed"
    assert (got.Priority, got.CorrelId, got.Format) == (3, b"FROM-HANDLE".ljust(24, b"\0"), CMQC.MQFMT_STRING)
    assert got.MsgType == CMQC.MQMT_DATAGRAM  # MQMD's default where the handle set nothing
    for h in (handle, fresh):
        h.dlt()
    q.close()
    qm.disconnect()


def test_properties_forced_into_the_body_as_rfh2(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    handle = ibmmq.MessageHandle(qm)
    handle.properties.set("colour", "blue")
    q.put(b"data", ibmmq.MD(), ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, OriginalMsgHandle=handle.msg_handle))
    md = ibmmq.MD()
    raw = q.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2))
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    assert raw.startswith(b"RFH ") and b"<colour>blue</colour>" in raw and raw.endswith(b"data")
    q.close()
    qm.disconnect()


# --------------------------------------------------------------------------------------------------
# Asynchronous consume
# --------------------------------------------------------------------------------------------------

def test_async_consumer_receives_messages_and_events_and_stops_cleanly(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    calls = []
    got = threading.Event()

    def consumer(queue_manager, queue, md, gmo, msg, cbc):
        calls.append((cbc.CallType, cbc.Reason, msg))
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED and len([c for c in calls if c[2]]) == 3:
            got.set()

    cbd = ibmmq.CBD(CallbackFunction=consumer,
                    Options=CMQC.MQCBDO_REGISTER_CALL | CMQC.MQCBDO_START_CALL | CMQC.MQCBDO_STOP_CALL
                    | CMQC.MQCBDO_DEREGISTER_CALL)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=300)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=cbd, md=ibmmq.MD(), gmo=gmo)
    qm.ctl(CMQC.MQOP_START, ibmmq.CTLO())
    sender = _connect(server)
    out = ibmmq.Queue(sender, "DEV.QUEUE.2", CMQC.MQOO_OUTPUT)
    for body in (b"one", b"two", b"three"):
        out.put(body)
    assert got.wait(30)
    # no message within the consumer's WaitInterval: an event call with 2033
    deadline = threading.Event()
    while not any(c[0] == CMQC.MQCBCT_EVENT_CALL and c[1] == CMQC.MQRC_NO_MSG_AVAILABLE for c in calls):
        assert not deadline.wait(0.05) and len(calls) < 10_000
    _finish(lambda: qm.ctl(CMQC.MQOP_STOP, ibmmq.CTLO()))
    q.cb(operation=CMQC.MQOP_DEREGISTER, cbd=cbd, md=ibmmq.MD(), gmo=gmo)
    types = [c[0] for c in calls]
    assert types[0] == CMQC.MQCBCT_REGISTER_CALL and types[1] == CMQC.MQCBCT_START_CALL
    assert [c[2] for c in calls if c[0] == CMQC.MQCBCT_MSG_REMOVED] == [b"one", b"two", b"three"]
    assert types[-2:] == [CMQC.MQCBCT_STOP_CALL, CMQC.MQCBCT_DEREGISTER_CALL]
    # the connection is usable again after STOP
    out.put(b"after")
    assert q.get() == b"after"
    out.close()
    sender.disconnect()
    q.close()
    qm.disconnect()


def test_start_wait_returns_when_the_callback_stops_the_connection(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    q.put(b"only")
    seen = []

    def consumer(queue_manager, queue, md, gmo, msg, cbc):
        seen.append(msg)
        queue_manager.ctl(CMQC.MQOP_STOP, ibmmq.CTLO())  # from inside the callback

    q.cb(operation=CMQC.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackFunction=consumer), md=ibmmq.MD(),
         gmo=ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    _finish(lambda: qm.ctl(CMQC.MQOP_START_WAIT, ibmmq.CTLO()))
    assert seen == [b"only"]
    q.close()
    qm.disconnect()


def test_start_wait_with_no_consumer_is_2446_and_bad_operation_2488(server):
    qm = _connect(server)
    raises(CMQC.MQRC_NO_CALLBACKS_ACTIVE, qm.ctl, CMQC.MQOP_START_WAIT, ibmmq.CTLO())
    raises(CMQC.MQRC_OPERATION_ERROR, qm.ctl, 0x40, ibmmq.CTLO())
    qm.disconnect()


def test_event_handler_hears_of_a_broken_connection(server):
    import ibmmqc

    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_INPUT_AS_Q_DEF)
    events = []
    heard = threading.Event()

    def handler(queue_manager, queue, md, gmo, msg, cbc):
        events.append((cbc.CallType, cbc.Reason))
        heard.set()

    def consumer(**kw):
        pass

    qm.cb(operation=CMQC.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackFunction=handler,
                                                      CallbackType=CMQC.MQCBT_EVENT_HANDLER))
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackFunction=consumer), md=ibmmq.MD(),
         gmo=ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    qm.ctl(CMQC.MQOP_START, ibmmq.CTLO())
    ibmmqc._mqi._lookup(qm.get_handle()).qm.abort()  # the socket goes away under the dispatcher
    assert heard.wait(30)
    assert events[0] == (CMQC.MQCBCT_EVENT_CALL, CMQC.MQRC_HCONN_ERROR) or \
        events[0] == (CMQC.MQCBCT_EVENT_CALL, CMQC.MQRC_CONNECTION_BROKEN)
    qm.disconnect()  # the connection is gone already: MQDISC only forgets it


# --------------------------------------------------------------------------------------------------
# Asynchronous put and MQSTAT
# --------------------------------------------------------------------------------------------------

def test_async_put_batch_then_mqstat_counts(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    ids = set()
    for i in range(500):
        md = ibmmq.MD()
        q.put(b"async-%d" % i, md, ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NO_SYNCPOINT))
        ids.add(md.MsgId)
    assert len(ids) == 500 and not any(i == CMQC.MQMI_NONE for i in ids)  # made by the client
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.PutSuccessCount, sts.PutWarningCount, sts.PutFailureCount) == (500, 0, 0)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
    got = [q.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) for _ in range(500)]
    assert got == [b"async-%d" % i for i in range(500)]
    # the counts start again at zero
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.PutSuccessCount, sts.PutFailureCount) == (0, 0)
    q.close()
    qm.disconnect()


def test_async_put_failures_are_reported_by_mqstat_with_the_object(server):
    qm = _connect(server)
    pcf = ibmmq.PCFExecute(qm)
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"ASYNC.SMALL", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_MAX_Q_DEPTH: 3})
    q = ibmmq.Queue(qm, "ASYNC.SMALL", CMQC.MQOO_OUTPUT)
    for i in range(5):
        q.put(b"x", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE))
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.PutSuccessCount, sts.PutFailureCount) == (3, 2)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_Q_FULL)
    assert sts.ObjectName.strip() == b"ASYNC.SMALL"
    q.close()
    pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"ASYNC.SMALL", CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})
    qm.disconnect()


# --------------------------------------------------------------------------------------------------
# MQSET
# --------------------------------------------------------------------------------------------------

def test_mqset_inhibits_put_and_allows_it_again(server):
    qm = _connect(server)
    setter = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    setter.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    assert setter.inquire(CMQC.MQIA_INHIBIT_PUT) == CMQC.MQQA_PUT_INHIBITED
    out = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)  # opens: only MQPUT/MQPUT1 are inhibited
    raises(CMQC.MQRC_PUT_INHIBITED, out.put, b"x")
    setter.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    out.put(b"x")
    raises(CMQC.MQRC_SELECTOR_ERROR, setter.set, CMQC.MQIA_CURRENT_Q_DEPTH, 5)  # not settable
    out.close()
    setter.close()
    q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert q.get() == b"x"
    q.close()
    qm.disconnect()


# --------------------------------------------------------------------------------------------------
# MQGET output: names blank-padded, as the queue manager returns them
# --------------------------------------------------------------------------------------------------

def test_mqget_into_a_nul_filled_mqmd_returns_blank_padded_names(server):
    import ibmmqc

    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"hello", ibmmq.MD(Format=CMQC.MQFMT_STRING, ReplyToQ=b"R.Q"))
    md = bytearray(ibmmq.MD().pack())
    for start, size in ((32, 8), (100, 48), (148, 48), (196, 12), (240, 32), (276, 28)):
        md[start:start + size] = bytes(size)  # Format, ReplyToQ, ReplyToQMgr, UserIdentifier, ...
    data, md_out, _gmo, length, cc, rc = ibmmqc.MQGET(qm.get_handle(), q.get_handle(), bytes(md),
                                                       ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT).pack(), 100)
    assert (cc, rc, data, length) == (0, 0, b"hello", 5)
    out = ibmmq.MD().unpack(md_out)
    assert out.Format == b"MQSTR   "
    assert out.ReplyToQ == b"R.Q".ljust(48)
    assert out.ReplyToQMgr == b"QM1".ljust(48)
    assert out.UserIdentifier == b"admin".ljust(12)
    assert out.PutApplName.rstrip() and b"\0" not in out.PutApplName
    q.close()
    qm.disconnect()


# --------------------------------------------------------------------------------------------------
# Threads
# --------------------------------------------------------------------------------------------------

def test_eight_threads_each_with_its_own_connection(server):
    results = {}

    def worker(n):
        qm = _connect(server)
        q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        correl = b"T%02d" % n
        for i in range(50):
            q.put(b"%d-%d" % (n, i), ibmmq.MD(CorrelId=correl))
        got = []
        for _ in range(50):
            md = ibmmq.MD(CorrelId=correl)
            got.append(q.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)))
        results[n] = got
        q.close()
        qm.disconnect()

    threads = [threading.Thread(target=worker, args=(n,), daemon=True) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
        assert not t.is_alive()
    assert sorted(results) == list(range(8))
    for n, got in results.items():
        assert got == [b"%d-%d" % (n, i) for i in range(50)]


def test_one_connection_shared_by_threads_serialises_its_calls(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    errors = []

    def worker(n):
        try:
            for i in range(40):
                q.put(b"s%d-%d" % (n, i))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    bodies = [q.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) for _ in range(160)]
    assert sorted(bodies) == sorted(b"s%d-%d" % (n, i) for n in range(4) for i in range(40))
    q.close()
    qm.disconnect()


def test_root_mqmd_fields_on_a_handle_describe_the_put_message_when_the_md_is_output_only(server):
    qm = _connect(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    handle = ibmmq.MessageHandle(qm)
    handle.properties.set("Root.MQMD.Priority", 7, property_type=CMQC.MQTYPE_INT32)
    handle.properties.set("colour", "red")
    for options, priority in ((0, 5), (CMQC.MQPMO_MD_FOR_OUTPUT_ONLY, 7)):  # IBM: a supplied MD is used unmodified
        q.put(b"p", ibmmq.MD(Priority=5), ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, Options=options,
                                                    OriginalMsgHandle=handle.msg_handle))
        md = ibmmq.MD()
        assert q.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES)) == b"p"
        assert md.Priority == priority
    q.close()
    qm.disconnect()


def test_mqset_inhibits_get_the_open_stays_and_mqget_fails_2016(server):
    qm = _connect(server)
    setter = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_SET | CMQC.MQOO_OUTPUT)
    setter.put(b"kept")
    setter.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_INHIBITED)
    q = ibmmq.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE)  # opens
    raises(CMQC.MQRC_GET_INHIBITED, q.get)
    raises(CMQC.MQRC_GET_INHIBITED, q.get, None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    setter.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_ALLOWED)
    assert q.get() == b"kept"
    q.close()
    setter.close()
    qm.disconnect()


def test_a_finalizer_on_the_in_process_servers_thread_does_not_wait_on_that_thread(server):
    """The garbage collector may run ibmmq's ``__del__`` (MQCLOSE, MQDISC) on whatever thread allocates
    when it collects -- the pytest plugin's server thread included.  There a blocking call would wait
    for the loop it blocks (60 s, then 2009): instead the call goes on a thread of its own."""
    import ibmmqc

    qm = _connect(server)
    queue = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    loop = server._runner.loop

    def on_the_loop():  # what a finalizer run there does
        queue.close()
        qm.disconnect()

    _finish(lambda: loop.run_sync(on_the_loop), timeout=20)  # answered at once, not after the client's timeout
    for thread in list(ibmmqc._mqi._deferred):
        thread.join(20)
        assert not thread.is_alive()
    admin = _connect(server)
    try:
        pcf = ibmmq.PCFExecute(admin)
        users = [r for r in pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b""),
                                                          CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_CONN})]
        # the disconnect happened: only this admin connection is left beside the queue manager's own
        # processes (the cluster repository manager, ApplType MQAT_QMGR as IBM's internal connections)
        assert len([r for r in users if r.get(CMQC.MQIA_APPL_TYPE) != CMQC.MQAT_QMGR]) == 1
    finally:
        admin.disconnect()
