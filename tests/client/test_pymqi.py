"""pymqi 1.12 scripts, unchanged, against qmlite through qmlite's ``pymqe``.

pymqi is installed the way docs/pymqi.md tells users (``CC=true LDSHARED=true pip install
pymqi==1.12.13``; ``scripts/test`` does it), so it has no compiled ``pymqi.pymqe`` and imports
qmlite's top-level ``pymqe``.  ``tests/client/test_pymqi_venv.py`` checks that install itself in a
fresh virtual environment."""

from __future__ import annotations

import os
import pathlib

import pytest

if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
    import pymqi
else:
    pymqi = pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

from pymqi import CMQC, CMQCFC, CMQXC  # noqa: E402

from ibmmqc import native as N  # noqa: E402
from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402

ADMIN, APP = "DEV.ADMIN.SVRCONN", "DEV.APP.SVRCONN"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("pymqi")) as srv:
        yield srv


@pytest.fixture(scope="module")
def qmgr(server):
    qm = pymqi.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
    yield qm
    qm.disconnect()


@pytest.fixture(scope="module")
def pcf(qmgr):
    p = pymqi.PCFExecute(qmgr)
    yield p


@pytest.fixture
def queue_name(pcf, request):
    name = ("PYMQI." + request.node.name.upper().replace("_", ".").replace("[", ".").replace("]", ""))[:48]
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    yield name
    pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})


def reason_of(fn, *args, **kwargs) -> int:
    with pytest.raises(pymqi.MQMIError) as info:
        fn(*args, **kwargs)
    return info.value.reason


# --------------------------------------------------------------------------------------------------
# The extension in use and the structures pymqi packs
# --------------------------------------------------------------------------------------------------

def test_pymqi_uses_qmlites_pymqe():
    assert pathlib.Path(pymqi.pymqe.__file__).parent.name == "pymqe"
    assert pymqi.pymqe.__file__.endswith(os.path.join("pymqe", "__init__.py"))
    assert pymqi.__mqbuild__ == "client" and "8.0.0" in pymqi.__mqlevels__


def test_native_layouts_read_pymqis_structures():
    cd = pymqi.CD(ChannelName=b"CHL", ConnectionName=b"host(1)", HeartbeatInterval=17, MaxMsgLength=1234,
                  SharingConversations=3, SSLCipherSpec=b"ANY_TLS12", Version=CMQXC.MQCD_VERSION_11,
                  CertificateLabel=b"label", LocalAddress=b"127.0.0.1", KeepAliveInterval=9)
    f = N.MQCD.decode_fields(cd.pack())
    assert (f["ChannelName"], f["ConnectionName"], f["HeartbeatInterval"], f["MaxMsgLength"],
            f["SharingConversations"], f["SSLCipherSpec"], f["Version"], f["CertificateLabel"],
            f["LocalAddress"], f["KeepAliveInterval"], f["TransportType"]) == (
        "CHL", "host(1)", 17, 1234, 3, "ANY_TLS12", 11, "label", "127.0.0.1", 9, CMQC.MQXPT_TCP)
    md = pymqi.MD(Priority=4, Persistence=1, ReplyToQ=b"R", Format=CMQC.MQFMT_STRING, MsgSeqNumber=5, Version=2)
    f = N.MQMD.decode_fields(md.pack())
    assert (f["Priority"], f["Persistence"], f["ReplyToQ"], f["Format"], f["MsgSeqNumber"]) == (4, 1, "R", "MQSTR", 5)
    od = pymqi.OD(ObjectName=b"Q", ObjectType=CMQC.MQOT_Q, DynamicQName=b"DYN.*", Version=4)
    od.set_vs("ObjectString", b"a/b")
    f = N.MQOD.decode_fields(od.pack())
    assert (f["ObjectName"], f["DynamicQName"], f["ObjectString"].VSString, f["Version"]) == ("Q", "DYN.*", "a/b", 4)
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT, Version=3)
    f = N.MQPMO.decode_fields(pmo.pack())
    assert (f["Options"], f["Version"], f["OriginalMsgHandle"]) == (CMQC.MQPMO_SYNCPOINT, 3, 0)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=250, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID, Version=4)
    f = N.MQGMO.decode_fields(gmo.pack())
    assert (f["Options"], f["WaitInterval"], f["MatchOptions"], f["Version"]) == (
        CMQC.MQGMO_WAIT, 250, CMQC.MQMO_MATCH_CORREL_ID, 4)
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE, SubLevel=2)
    sd.set_vs("ObjectString", b"x/y")
    sd.set_vs("SubName", b"S1")
    f = N.MQSD.decode_fields(sd.pack())
    assert (f["Options"], f["SubLevel"], f["ObjectString"].VSString, f["SubName"].VSString) == (
        CMQC.MQSO_CREATE, 2, "x/y", "S1")
    assert len(pymqi.SCO().pack()) == 628


# --------------------------------------------------------------------------------------------------
# Connecting
# --------------------------------------------------------------------------------------------------

def test_connect_plain_and_disconnect(server):
    qm = pymqi.connect("QM1", APP, server.conn_name)
    assert qm.get_handle()
    assert qm.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == b"QM1"
    qm.disconnect()
    with pytest.raises(pymqi.PYIFError):
        qm.get_handle()


def test_connect_with_cd_user_password_and_sco(server):
    cd = pymqi.CD(ChannelName=ADMIN.encode(), ConnectionName=server.conn_name.encode(),
                  ChannelType=CMQC.MQCHT_CLNTCONN, TransportType=CMQC.MQXPT_TCP)
    sco = pymqi.SCO(KeyRepository=b"/var/mqm/ssl/key")  # no cipher spec: qmlite ignores the MQSCO
    qm = pymqi.QueueManager(None)
    qm.connect_with_options("QM1", user="admin", password="passw0rd", cd=cd, sco=sco,
                            opts=CMQC.MQCNO_HANDLE_SHARE_BLOCK)
    assert qm.is_connected
    qm.disconnect()


def test_connect_refusals(server, monkeypatch):
    monkeypatch.delenv("MQSSLKEYR", raising=False)
    assert reason_of(pymqi.connect, "QM1", ADMIN, server.conn_name, "admin", "nope") == CMQC.MQRC_NOT_AUTHORIZED
    assert reason_of(pymqi.connect, "QM2", ADMIN, server.conn_name, "admin", "passw0rd") == CMQC.MQRC_Q_MGR_NAME_ERROR
    assert reason_of(pymqi.connect, "QM1", "NO.SUCH", server.conn_name) == CMQC.MQRC_UNKNOWN_CHANNEL_NAME
    cd = pymqi.CD(ChannelName=ADMIN.encode(), ConnectionName=server.conn_name.encode(),
                  SSLCipherSpec=b"TLS_AES_128_GCM_SHA256")
    qm = pymqi.QueueManager(None)
    assert reason_of(qm.connect_with_options, "QM1", cd=cd) == CMQC.MQRC_KEY_REPOSITORY_ERROR  # TLS, no repository


def test_connect_through_mqserver(server, monkeypatch):
    monkeypatch.setenv("MQSERVER", f"{APP}/TCP/{server.conn_name}")
    qm = pymqi.QueueManager("QM1")  # MQCONN
    assert qm.get_handle()
    qm.disconnect()


# --------------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------------

def test_put_get_with_mqmd_fields(qmgr, queue_name):
    q = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    md = pymqi.MD(Priority=8, Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING,
                  ReplyToQ=b"REPLY.HERE", CorrelId=b"corr-1".ljust(24, b"\0"), MsgType=CMQC.MQMT_REQUEST)
    q.put(b"hello pymqi", md)
    assert md.MsgId != CMQC.MQMI_NONE and md.PutDate.strip()
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    got = pymqi.MD()
    assert q.get(None, got) == b"hello pymqi"
    assert (got.Priority, got.Persistence, got.Format, got.ReplyToQ.strip(), got.CorrelId, got.MsgType, got.MsgId) == (
        8, CMQC.MQPER_PERSISTENT, CMQC.MQFMT_STRING, b"REPLY.HERE", b"corr-1".ljust(24, b"\0"),
        CMQC.MQMT_REQUEST, md.MsgId)
    assert reason_of(q.get) == CMQC.MQRC_NO_MSG_AVAILABLE
    q.close()


def test_get_by_correl_id_wait_and_truncation(qmgr, queue_name):
    q = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    for i in range(3):
        q.put(b"m%d" % i * 1000, pymqi.MD(CorrelId=(b"c%d" % i).ljust(24, b"\0")))
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=500, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    assert q.get(None, pymqi.MD(CorrelId=b"c2".ljust(24, b"\0")), gmo) == b"m2" * 1000  # refetched after 2080
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(10)
    assert info.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
    gmo = pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(10, pymqi.MD(), gmo)
    assert info.value.reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
    assert q.get() == b"m1" * 1000
    q.close()


def test_browse(qmgr, queue_name):
    q = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for body in (b"first", b"second"):
        q.put(body)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    assert q.get(None, pymqi.MD(), gmo) == b"first"
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    assert q.get(None, pymqi.MD(), gmo) == b"second"
    assert reason_of(q.get, None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)) == CMQC.MQRC_NO_MSG_AVAILABLE
    assert q.get() == b"first"  # browsing removed nothing
    q.close()


def test_put1_and_queue_set(qmgr, queue_name):
    qmgr.put1(queue_name, b"one shot", pymqi.MD(Priority=2))
    q = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_SET | CMQC.MQOO_OUTPUT)
    q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    assert reason_of(q.put, b"x") == CMQC.MQRC_PUT_INHIBITED
    q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    assert q.get() == b"one shot"
    assert reason_of(qmgr.put1, "NO.SUCH.QUEUE", b"x") == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    q.close()


def test_syncpoint_commit_and_backout_are_forwarded(qmgr, queue_name):
    q = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_OUTPUT)
    q.put(b"in a unit of work", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qmgr.commit()
    qmgr.backout()
    assert reason_of(qmgr.begin) == CMQC.MQRC_FUNCTION_NOT_SUPPORTED
    q.close()


# --------------------------------------------------------------------------------------------------
# PCF
# --------------------------------------------------------------------------------------------------

def test_pcf_inquire_queue(pcf):
    res = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"DEV.QUEUE.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    assert sorted(r[CMQC.MQCA_Q_NAME].strip() for r in res) == [b"DEV.QUEUE.1", b"DEV.QUEUE.2", b"DEV.QUEUE.3"]
    assert all(r[CMQC.MQIA_MAX_Q_DEPTH] > 0 for r in res)
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: b"NO.SUCH.Q"}) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_pcf_subscription_lifecycle_and_reasons(pcf):
    name = b"PYMQI.SUB.A"
    pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name, CMQC.MQCA_TOPIC_STRING: b"price/fruit",
                                   CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED})
    assert reason_of(pcf.MQCMD_CREATE_SUBSCRIPTION, {
        CMQCFC.MQCACF_SUB_NAME: name, CMQC.MQCA_TOPIC_STRING: b"price/fruit",
        CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED}) == CMQCFC.MQRCCF_SUB_ALREADY_EXISTS
    pcf.MQCMD_CHANGE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name, CMQCFC.MQCACF_SUB_USER_DATA: b"changed"})
    (sub,) = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name})
    assert sub[CMQC.MQCA_TOPIC_STRING].rstrip(b"\0 ") == b"price/fruit"  # pymqi keeps the MQCFST padding
    assert sub[CMQCFC.MQCACF_SUB_USER_DATA].rstrip(b"\0 ") == b"changed"
    assert sub[CMQCFC.MQIACF_DESTINATION_CLASS] == CMQC.MQDC_MANAGED
    sub_id = sub[CMQCFC.MQBACF_SUB_ID]
    (by_id,) = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQBACF_SUB_ID: pymqi.ByteString(sub_id)})
    assert by_id[CMQCFC.MQCACF_SUB_NAME].rstrip(b"\0 ") == name
    pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name})
    assert reason_of(pcf.MQCMD_INQUIRE_SUBSCRIPTION, {CMQCFC.MQCACF_SUB_NAME: name}) == CMQC.MQRC_NO_SUBSCRIPTION
    assert reason_of(pcf.MQCMD_CHANGE_SUBSCRIPTION, {CMQCFC.MQCACF_SUB_NAME: name}) == CMQC.MQRC_NO_SUBSCRIPTION


# --------------------------------------------------------------------------------------------------
# Publish/subscribe
# --------------------------------------------------------------------------------------------------

def test_topic_publish_and_subscription(qmgr):
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_name=b"PYMQI.FRUIT", topic_string=b"pymqi/fruit",
            sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    topic = pymqi.Topic(qmgr, topic_string=b"pymqi/fruit")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"apple", pymqi.MD(Format=CMQC.MQFMT_STRING))
    topic.close()
    md = pymqi.MD()
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=2000)
    assert sub.get(None, md, gmo) == b"apple"
    assert md.Format == CMQC.MQFMT_STRING
    sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)


def test_subscription_with_an_sd_and_a_wildcard(qmgr):
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED | CMQC.MQSO_WILDCARD_TOPIC)
    sd.set_vs("ObjectString", b"pymqi/veg/#")
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=sd)
    for leaf in (b"carrot", b"leek"):
        pymqi.Topic(qmgr, topic_string=b"pymqi/veg/" + leaf).pub(leaf)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=2000)
    assert {sub.get(None, pymqi.MD(), gmo), sub.get(None, pymqi.MD(), gmo)} == {b"carrot", b"leek"}
    sub.close(close_sub_queue=True)
    topic = pymqi.Topic(qmgr, topic_name=b"NO.SUCH.TOPIC")
    assert reason_of(topic.open, open_opts=CMQC.MQOO_OUTPUT) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


# --------------------------------------------------------------------------------------------------
# Message properties
# --------------------------------------------------------------------------------------------------

def test_message_properties_round_trip(qmgr, queue_name):
    q = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set(b"colour", "red")  # MQTYPE_STRING, null-terminated
    handle.properties.set(b"size", 42, CMQC.MQTYPE_INT32, 4)
    handle.properties.set(b"ripe", True, CMQC.MQTYPE_BOOLEAN, 4)
    pmo = pymqi.PMO(Version=CMQC.MQPMO_VERSION_3, OriginalMsgHandle=handle.msg_handle)
    q.put(b"with properties", pymqi.MD(Version=CMQC.MQMD_VERSION_2), pmo)

    got = pymqi.MessageHandle(qmgr)
    gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=got.msg_handle,
                    Options=CMQC.MQGMO_PROPERTIES_IN_HANDLE | CMQC.MQGMO_NO_WAIT)
    got_md = pymqi.MD(Version=CMQC.MQMD_VERSION_2)
    assert q.get(None, got_md, gmo) == b"with properties"
    assert got.properties.get(b"colour") == "red"
    # the handle's message descriptor is the message's (IBM, MQGMO MsgHandle)
    assert got.properties.get(b"Root.MQMD.MsgId") == got_md.MsgId != bytes(24)
    assert got.properties.get(b"Root.MQMD.Priority") == got_md.Priority
    assert got.properties.get(b"Root.MQMD.PutApplName") == got_md.PutApplName.decode().rstrip()
    assert got.properties[b"size"] == 42
    assert got.properties.get(b"ripe") == 1
    with pytest.raises(pymqi.MQMIError) as info:
        got.properties.get(b"absent")
    assert info.value.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
    with pytest.raises(pymqi.MQMIError) as info:
        got.properties.get(b"colour", max_value_length=1)
    assert info.value.reason == CMQC.MQRC_PROPERTY_VALUE_TOO_BIG
    q.close()


def test_mqai_execute_with_pymqis_filters(qmgr):
    """pymqe.mqaiExecute (pymqe.c's MQAI call) takes pymqi's filter objects."""
    f = pymqi.Filter(CMQC.MQCA_Q_NAME).like(b"DEV.QUEUE.*")
    res, cc, rc = pymqi.pymqe.mqaiExecute(qmgr.get_handle(), CMQCFC.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: b"DEV.*"}, [f])
    assert (cc, rc) == (0, 0)
    assert sorted(r[CMQC.MQCA_Q_NAME].strip() for r in res) == [b"DEV.QUEUE.1", b"DEV.QUEUE.2", b"DEV.QUEUE.3"]
    f = pymqi.Filter(CMQC.MQIA_Q_TYPE).equal(CMQC.MQQT_MODEL)
    res, cc, rc = pymqi.pymqe.mqaiExecute(qmgr.get_handle(), CMQCFC.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: b"*"}, [f])
    assert (cc, rc) == (0, 0) and res and all(r[CMQC.MQIA_Q_TYPE] == CMQC.MQQT_MODEL for r in res)


def test_rfh2_chain_put_with_put_rfh2_comes_back_as_put(qmgr, queue_name):
    # pymqi's own test suite (test_rfh2_put_get) puts MQRFH2 chains with Queue.put_rfh2 -- a psc folder,
    # an application folder and an mcd folder, in one or two headers, big-endian -- and expects MQGET to
    # give the bytes back unchanged, and get_rfh2 to find every header and folder.
    folders = [b"<psc><Command>RegSub</Command><Topic>a/b</Topic></psc>",
               b"<testFolder><testVar>testValue</testVar></testFolder>", b"<mcd><Msd>xmlnsc</Msd></mcd>"]
    headers = []
    for fmt, names in ((CMQC.MQFMT_RF_HEADER_2, folders[:2]), (CMQC.MQFMT_STRING, folders)):
        rfh2 = pymqi.RFH2()
        for key, value in (("Encoding", 273), ("CodedCharSetId", 1208), ("Format", fmt), ("NameValueCCSID", 1208)):
            rfh2[key] = value
        for folder in names:
            rfh2.add_folder(folder)
        headers.append(rfh2)
    sent = headers[0].pack(273) + headers[1].pack(273) + b"<testData/>"
    queue = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    md = pymqi.MD(Format=CMQC.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
    queue.put_rfh2(b"<testData/>", md, pymqi.PMO(), headers)
    assert queue.get(None, pymqi.MD()) == sent
    queue.put(sent, pymqi.MD(Format=CMQC.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208))
    got = []
    assert queue.get_rfh2(None, pymqi.MD(), pymqi.GMO(), got) == b"<testData/>"
    assert [len(h.get()) for h in got] == [12, 14]  # every folder of both headers
    assert got[1]["mcd"] == b"<mcd><Msd>xmlnsc</Msd></mcd>"
    queue.close()
