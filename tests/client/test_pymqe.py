"""qmlite's ``pymqe`` (pymqi's C extension API) one function at a time, against a qmlite server.

Structures are packed here with ``ibmmqc.native``'s layouts at the sizes pymqe checks (the sizes
pymqi packs with ``pymqe.__mqlevels__``); no pymqi needed.  Shapes and errors are those of pymqi
1.12's ``pymqe.c``: return tuples end with CompCode and Reason, a wrongly sized structure raises
``pymqe.error``, an argument of the wrong Python type ``TypeError``."""

from __future__ import annotations

import ctypes
import socket
import struct

import pytest

import pymqe
from ibmmqc import msghandles as MH
from ibmmqc import native as N
from qmlite.client.pytest_plugin import running_qmlite
from qmlite.pcf import constants as C
from qmlite.pcf import mqi

ADMIN = "DEV.ADMIN.SVRCONN"
OK, FAILED = C.MQCC_OK, C.MQCC_FAILED
MQIMPO_INQ_FIRST = 0
MQSO = C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED | C.MQSO_FAIL_IF_QUIESCING


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("pymqe")) as srv:
        yield srv


# -- structures as pymqi packs them ----------------------------------------------------------------

def cd(conn_name: str, channel: str = ADMIN, **kw) -> bytes:
    fields = {"ChannelName": channel, "Version": 6, "ChannelType": C.MQCHT_CLNTCONN,
              "TransportType": C.MQXPT_TCP, "ConnectionName": conn_name, **kw}
    return N.MQCD.encode(fields, length=1988)  # pymqi's MQCD with '7.1' in __mqlevels__


def sco(strucid: bytes = b"SCO ") -> bytes:
    return strucid + struct.pack("=i", 5) + bytes(620)


def od(name: str, **kw) -> bytes:
    return N.MQOD.encode(mqi.MQOD(ObjectName=name, **kw))


def md(**kw) -> bytes:
    return N.MQMD.encode(mqi.MQMD(**kw))


def pmo(**kw) -> bytes:
    return N.MQPMO.encode(mqi.MQPMO(**kw))


def gmo(**kw) -> bytes:
    return N.MQGMO.encode(mqi.MQGMO(**kw))


def field(layout, buf, name):
    return layout.decode_fields(buf)[name]


def sd_with_topic(topic: str, options: int = MQSO) -> tuple[bytes, object]:
    """An MQSD whose ObjectString points at a ctypes buffer (pymqi's ``set_vs``); keep the buffer."""
    raw = bytearray(N.MQSD.encode(mqi.MQSD(Options=options)))
    text = topic.encode()
    buf = ctypes.create_string_buffer(text)
    f = N.MQSD.by_name["ObjectString"]
    struct.pack_into("@P4i", raw, f.offset, ctypes.addressof(buf), 0, 0, len(text), C.MQCCSI_APPL)
    return bytes(raw), buf


CMHO = b"CMHO" + struct.pack("=ii", 1, C.MQCMHO_DEFAULT_VALIDATION)
SMPO = b"SMPO" + struct.pack("=iiii", 1, 0, C.MQENC_NATIVE, C.MQCCSI_APPL)
PD = b"PD  " + struct.pack("=iiiii", 1, 0, 1, 0, 0x16)


@pytest.fixture(scope="module")
def hconn(server):
    h, cc, rc = pymqe.MQCONNX(b"QM1", C.MQCNO_NONE, cd(server.conn_name),
                              {"user": b"admin", "password": b"passw0rd"}, sco())
    assert (cc, rc) == (OK, 0)
    yield h
    pymqe.MQDISC(h)


@pytest.fixture
def queue(hconn):
    """A fresh local queue opened for input, output, inquire and set: (hobj, name)."""
    name = f"PYMQE.Q.{next(_counter)}"
    res, cc, rc = pymqe.mqaiExecute(hconn, C.MQCMD_CREATE_Q, {C.MQCA_Q_NAME: name.encode(),
                                                                C.MQIA_Q_TYPE: C.MQQT_LOCAL})
    assert (res, cc, rc) == ([{}], OK, 0)  # MQAI: one (empty) bag per response message
    opts = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET | C.MQOO_BROWSE
    hobj, _od, cc, rc = pymqe.MQOPEN(hconn, od(name), opts)
    assert (cc, rc) == (OK, 0)
    yield hobj, name
    pymqe.MQCLOSE(hconn, hobj, C.MQCO_NONE)


_counter = iter(range(1, 10_000))


# --------------------------------------------------------------------------------------------------
# The module
# --------------------------------------------------------------------------------------------------

def test_module_attributes():
    assert pymqe.__mqbuild__ == "client"
    assert isinstance(pymqe.__mqlevels__, tuple)
    assert {"6.0", "7.0", "7.1", "8.0.0"} <= set(pymqe.__mqlevels__)
    assert issubclass(pymqe.error, Exception)
    assert getattr(pymqe, "pymqe.error") is pymqe.error  # the key pymqe.c stores it under
    for verb in ("MQCONN", "MQCONNX", "MQDISC", "MQOPEN", "MQCLOSE", "MQPUT", "MQPUT1", "MQGET", "MQBEGIN",
                 "MQCMIT", "MQBACK", "MQINQ", "MQSET", "MQSUB", "MQCRTMH", "MQSETMP", "MQINQMP", "mqaiExecute"):
        assert callable(getattr(pymqe, verb))


# --------------------------------------------------------------------------------------------------
# Connecting
# --------------------------------------------------------------------------------------------------

def test_mqconnx_with_user_password_and_sco(server):
    h, cc, rc = pymqe.MQCONNX(b"QM1", C.MQCNO_NONE, cd(server.conn_name), {"user": "admin", "password": "passw0rd"},
                              sco())
    assert (cc, rc) == (OK, 0) and isinstance(h, int) and h
    assert pymqe.MQDISC(h) == (OK, 0)
    assert pymqe.MQDISC(h) == (FAILED, C.MQRC_HCONN_ERROR)


def test_mqconnx_without_credentials_on_the_app_channel(server):
    h, cc, rc = pymqe.MQCONNX(b"QM1", C.MQCNO_HANDLE_SHARE_BLOCK, cd(server.conn_name, "DEV.APP.SVRCONN"), {})
    assert (cc, rc) == (OK, 0)
    assert pymqe.MQDISC(h) == (OK, 0)


@pytest.mark.parametrize("creds, qmgr, reason", [
    ({"user": b"admin", "password": b"wrong"}, b"QM1", C.MQRC_NOT_AUTHORIZED),
    ({"user": b"admin", "password": b"passw0rd"}, b"QM9", C.MQRC_Q_MGR_NAME_ERROR),
])
def test_mqconnx_refusals(server, creds, qmgr, reason):
    assert pymqe.MQCONNX(qmgr, 0, cd(server.conn_name), creds, sco()) == (-1, FAILED, reason)  # MQHC_UNUSABLE_HCONN


def test_mqconnx_unknown_channel_and_closed_port(server):
    assert pymqe.MQCONNX(b"QM1", 0, cd(server.conn_name, "NO.SUCH.CHL"), {}, sco())[1:] == (
        FAILED, C.MQRC_UNKNOWN_CHANNEL_NAME)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert pymqe.MQCONNX(b"QM1", 0, cd(f"127.0.0.1({port})"), {}, sco())[1:] == (FAILED, C.MQRC_HOST_NOT_AVAILABLE)


def test_mqconnx_tls_without_a_key_repository_is_2381(server, monkeypatch):
    # A CipherSpec asks for TLS (docs/tls.md); with no MQSCO KeyRepository and no MQSSLKEYR there is no
    # key repository, as IBM's client reports it.
    monkeypatch.delenv("MQSSLKEYR", raising=False)
    tls = cd(server.conn_name, Version=7, SSLCipherSpec="TLS_AES_128_GCM_SHA256")
    assert pymqe.MQCONNX(b"QM1", 0, tls, {}, sco())[1:] == (FAILED, C.MQRC_KEY_REPOSITORY_ERROR)
    unknown = cd(server.conn_name, Version=7, SSLCipherSpec="NOT_A_CIPHERSPEC")
    assert pymqe.MQCONNX(b"QM1", 0, unknown, {}, sco())[1:] == (FAILED, C.MQRC_SSL_INITIALIZATION_ERROR)


def test_mqconnx_bad_arguments(server):
    good = cd(server.conn_name)
    # pymqe.c checks no MQSCO size in MQCONNX: the MQI reads the structure and refuses it
    assert pymqe.MQCONNX(b"QM1", 0, good, {}, bytes(600)) == (-1, FAILED, C.MQRC_SCO_ERROR)
    assert pymqe.MQCONNX(b"QM1", 0, good, {}, sco(b"XXXX")) == (-1, FAILED, C.MQRC_SCO_ERROR)
    with pytest.raises(pymqe.error, match="Failed to parse user/password"):
        pymqe.MQCONNX(b"QM1", 0, good, {"user": 1, "password": b"x"}, sco())
    with pytest.raises(TypeError):
        pymqe.MQCONNX("QM1", 0, good, {}, sco())  # the name is bytes ('y')
    with pytest.raises(TypeError):
        pymqe.MQCONNX(b"QM1", "0", good, {}, sco())
    assert pymqe.MQCONNX(b"QM1", 0, b"short", {}, sco()) == (-1, FAILED, C.MQRC_CD_ERROR)


def test_mqconn_and_mqconnx_through_mqserver(server, monkeypatch):
    monkeypatch.delenv("MQSERVER", raising=False)
    assert pymqe.MQCONN(b"QM1") == (-1, FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE)
    monkeypatch.setenv("MQSERVER", f"DEV.APP.SVRCONN/TCP/{server.conn_name}")
    h, cc, rc = pymqe.MQCONN("QM1")
    assert (cc, rc) == (OK, 0)
    assert pymqe.MQDISC(h) == (OK, 0)
    h, cc, rc = pymqe.MQCONNX(b"QM1", 0, None, {"user": b"admin", "password": b"passw0rd"}, sco())
    assert (cc, rc) == (OK, 0)
    pymqe.MQDISC(h)


# --------------------------------------------------------------------------------------------------
# Objects and messages
# --------------------------------------------------------------------------------------------------

def test_mqopen_shapes_and_errors(hconn):
    hobj, od_out, cc, rc = pymqe.MQOPEN(hconn, od("DEV.QUEUE.1"), C.MQOO_INQUIRE)
    assert (cc, rc) == (OK, 0) and len(od_out) == 424
    assert pymqe.MQCLOSE(hconn, hobj, C.MQCO_NONE) == (OK, 0)
    hobj, od_out, cc, rc = pymqe.MQOPEN(hconn, od("NO.SUCH.QUEUE"), C.MQOO_OUTPUT)
    assert (hobj, cc, rc) == (-1, FAILED, C.MQRC_UNKNOWN_OBJECT_NAME) and len(od_out) == 424
    with pytest.raises(pymqe.error, match=r"MQOD wrong size. Given: 168, expected 424"):
        pymqe.MQOPEN(hconn, od("DEV.QUEUE.1")[:168], C.MQOO_OUTPUT)
    with pytest.raises(TypeError):
        pymqe.MQOPEN(hconn, bytearray(od("DEV.QUEUE.1")), C.MQOO_OUTPUT)
    bad = b"XX  " + od("DEV.QUEUE.1")[4:]
    assert pymqe.MQOPEN(hconn, bad, C.MQOO_OUTPUT)[2:] == (FAILED, C.MQRC_OD_ERROR)
    assert pymqe.MQOPEN(99999, od("DEV.QUEUE.1"), C.MQOO_OUTPUT)[2:] == (FAILED, C.MQRC_HCONN_ERROR)


def test_put_get_round_trip_with_mqmd_fields(hconn, queue):
    hobj, _name = queue
    put_md = md(Priority=7, Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING, CorrelId=b"C" * 24,
                ReplyToQ="REPLY.Q", Expiry=5000)
    md_out, pmo_out, cc, rc = pymqe.MQPUT(hconn, hobj, put_md, pmo(Options=C.MQPMO_NO_SYNCPOINT), b"hello")
    assert (cc, rc) == (OK, 0) and len(md_out) == 364 and len(pmo_out) == 184
    msg_id = field(N.MQMD, md_out, "MsgId")
    assert msg_id != bytes(24)
    data, got_md, gmo_out, length, cc, rc = pymqe.MQGET(hconn, hobj, md(), gmo(Options=C.MQGMO_NO_WAIT), 100)
    assert (data, length, cc, rc) == (b"hello", 5, OK, 0)
    assert len(got_md) == 364 and len(gmo_out) == 112
    f = N.MQMD.decode_fields(got_md)
    assert (f["Priority"], f["Persistence"], f["Format"], f["CorrelId"], f["ReplyToQ"], f["MsgId"]) == (
        7, C.MQPER_PERSISTENT, C.MQFMT_STRING.strip(), b"C" * 24, "REPLY.Q", msg_id)
    assert f["PutApplName"] and f["PutDate"]


def test_get_truncation_browse_and_empty_queue(hconn, queue):
    hobj, _name = queue
    pymqe.MQPUT(hconn, hobj, md(), pmo(), b"0123456789")
    data, _md, _gmo, length, cc, rc = pymqe.MQGET(hconn, hobj, md(), gmo(Options=C.MQGMO_BROWSE_FIRST), 100)
    assert (data, length, cc, rc) == (b"0123456789", 10, OK, 0)
    data, _md, _gmo, length, cc, rc = pymqe.MQGET(hconn, hobj, md(), gmo(), 4)
    assert (length, cc, rc) == (10, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED) and len(data) <= 4
    data, _md, _gmo, length, cc, rc = pymqe.MQGET(hconn, hobj, md(), gmo(Options=C.MQGMO_ACCEPT_TRUNCATED_MSG), 4)
    assert (data, length, cc, rc) == (b"0123", 10, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert pymqe.MQGET(hconn, hobj, md(), gmo(), 100)[4:] == (FAILED, C.MQRC_NO_MSG_AVAILABLE)


def test_put_get_argument_errors(hconn, queue):
    hobj, _name = queue
    with pytest.raises(pymqe.error, match=r"MQMD wrong size. Given: 324, expected 364"):
        pymqe.MQPUT(hconn, hobj, md()[:324], pmo(), b"x")
    with pytest.raises(pymqe.error, match=r"MQPMO wrong size. Given: 128, expected 184"):
        pymqe.MQPUT(hconn, hobj, md(), pmo()[:128], b"x")
    with pytest.raises(TypeError):
        pymqe.MQPUT(hconn, hobj, md(), pmo(), "text")  # message data is bytes ('y#')
    with pytest.raises(pymqe.error, match=r"MQGMO wrong size. Given: 100, expected 112"):
        pymqe.MQGET(hconn, hobj, md(), gmo()[:100], 10)
    with pytest.raises(pymqe.error, match="No memory for message"):
        pymqe.MQGET(hconn, hobj, md(), gmo(), -1)
    bad_md = b"MX  " + md()[4:]
    assert pymqe.MQPUT(hconn, hobj, bad_md, pmo(), b"x")[2:] == (FAILED, C.MQRC_MD_ERROR)
    assert pymqe.MQGET(hconn, hobj, md(), b"GMX " + gmo()[4:], 10)[4:] == (FAILED, C.MQRC_GMO_ERROR)
    assert pymqe.MQPUT(hconn, 12345, md(), pmo(), b"x")[2:] == (FAILED, C.MQRC_HOBJ_ERROR)


def test_put1(hconn, queue):
    hobj, name = queue
    md_out, pmo_out, cc, rc = pymqe.MQPUT1(hconn, od(name), md(Priority=3), pmo(), b"one")
    assert (cc, rc) == (OK, 0) and len(md_out) == 364 and len(pmo_out) == 184
    assert pymqe.MQPUT1(hconn, od("NO.SUCH.Q"), md(), pmo(), b"x")[2:] == (FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
    with pytest.raises(pymqe.error, match="MQOD wrong size"):
        pymqe.MQPUT1(hconn, od(name)[:200], md(), pmo(), b"x")
    data, got, _gmo, _n, cc, rc = pymqe.MQGET(hconn, hobj, md(), gmo(), 10)
    assert (data, field(N.MQMD, got, "Priority"), cc) == (b"one", 3, OK)


def test_units_of_work(hconn, queue):
    hobj, _name = queue
    pymqe.MQPUT(hconn, hobj, md(), pmo(Options=C.MQPMO_SYNCPOINT), b"uow")
    assert pymqe.MQCMIT(hconn) == (OK, 0)
    assert pymqe.MQBACK(hconn) == (OK, 0)
    assert pymqe.MQBEGIN(hconn) == (FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)
    assert pymqe.MQCMIT(424242) == (FAILED, C.MQRC_HCONN_ERROR)


# --------------------------------------------------------------------------------------------------
# MQINQ / MQSET
# --------------------------------------------------------------------------------------------------

def test_mqinq_one_selector(hconn, queue):
    hobj, name = queue
    pymqe.MQPUT(hconn, hobj, md(), pmo(), b"x")
    assert pymqe.MQINQ(hconn, hobj, C.MQIA_CURRENT_Q_DEPTH) == (1, OK, 0)
    value, cc, rc = pymqe.MQINQ(hconn, hobj, C.MQCA_Q_NAME)
    assert (value, cc, rc) == (name.encode().ljust(48), OK, 0)  # MQ_Q_NAME_LENGTH, blank padded
    assert pymqe.MQINQ(hconn, hobj, C.MQCA_Q_MGR_NAME)[1:] == (FAILED, C.MQRC_SELECTOR_ERROR)
    assert pymqe.MQINQ(hconn, 999, C.MQIA_CURRENT_Q_DEPTH)[1:] == (FAILED, C.MQRC_HOBJ_ERROR)
    qm, _od, cc, rc = pymqe.MQOPEN(hconn, od("", ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
    assert pymqe.MQINQ(hconn, qm, C.MQCA_Q_MGR_NAME) == (b"QM1".ljust(48), OK, 0)
    assert pymqe.MQINQ(hconn, qm, C.MQIA_COMMAND_LEVEL)[1:] == (OK, 0)
    pymqe.MQCLOSE(hconn, qm, 0)


def test_mqset_one_selector(hconn, queue):
    hobj, _name = queue
    assert pymqe.MQSET(hconn, hobj, C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED) == (OK, 0)
    assert pymqe.MQPUT(hconn, hobj, md(), pmo(), b"x")[2:] == (FAILED, C.MQRC_PUT_INHIBITED)
    assert pymqe.MQSET(hconn, hobj, C.MQIA_INHIBIT_PUT, C.MQQA_PUT_ALLOWED) == (OK, 0)
    assert pymqe.MQSET(hconn, hobj, C.MQCA_TRIGGER_DATA, b"data".ljust(64)) == (OK, 0)
    assert pymqe.MQINQ(hconn, hobj, C.MQCA_TRIGGER_DATA) == (b"data".ljust(64), OK, 0)
    assert pymqe.MQSET(hconn, hobj, C.MQIA_INHIBIT_PUT, 99) == (FAILED, C.MQRC_INHIBIT_VALUE_ERROR)
    assert pymqe.MQSET(hconn, hobj, C.MQIA_MAX_Q_DEPTH, 5) == (FAILED, C.MQRC_SELECTOR_ERROR)
    with pytest.raises(pymqe.error, match="Arg is not a long integer"):
        pymqe.MQSET(hconn, hobj, C.MQIA_INHIBIT_PUT, b"1")
    with pytest.raises(pymqe.error, match="Arg is not a byte-string"):
        pymqe.MQSET(hconn, hobj, C.MQCA_TRIGGER_DATA, "text")


# --------------------------------------------------------------------------------------------------
# Publish/subscribe
# --------------------------------------------------------------------------------------------------

def test_mqsub_managed_and_publish(hconn):
    sd, keep = sd_with_topic("pymqe/fruit", MQSO | C.MQSO_PUBLICATIONS_ON_REQUEST)
    sd_out, hobj, hsub, cc, rc = pymqe.MQSUB(hconn, sd, 0)
    assert (cc, rc) == (OK, 0) and hobj > 0 and hsub > 0 and len(sd_out) == 344
    # a publication on DEV.BASE.TOPIC's string ("dev/") reaches no subscription on "dev/pymqe"
    pub_od = N.MQOD.encode(mqi.MQOD(ObjectType=C.MQOT_TOPIC, ObjectName="DEV.BASE.TOPIC", Version=4))
    sd2, keep2 = sd_with_topic("dev/pymqe")
    _sd, hobj2, hsub2, cc, rc = pymqe.MQSUB(hconn, sd2, 0)
    assert (cc, rc) == (OK, 0)
    md_out, _pmo, cc, rc = pymqe.MQPUT1(hconn, pub_od, md(), pmo(), b"to dev/")
    assert (cc, rc) == (OK, 0)
    assert pymqe.MQGET(hconn, hobj2, md(), gmo(Options=C.MQGMO_NO_WAIT), 100)[4:] == (FAILED, C.MQRC_NO_MSG_AVAILABLE)
    sro = b"SRO " + struct.pack("=iii", 1, 0, 0)
    sro_out, cc, rc = pymqe.MQSUBRQ(hconn, hsub, C.MQSR_ACTION_PUBLICATION, sro)
    assert (cc, rc) == (FAILED, C.MQRC_NO_RETAINED_MSG) and len(sro_out) == 16  # nothing retained
    for h in (hsub, hobj, hsub2, hobj2):
        assert pymqe.MQCLOSE(hconn, h, 0) == (OK, 0)
    with pytest.raises(pymqe.error, match=r"MQSD wrong size. Given: 300, expected 344"):
        pymqe.MQSUB(hconn, sd[:300], 0)
    assert pymqe.MQSUB(hconn, b"XX  " + sd[4:], 0)[3:] == (FAILED, C.MQRC_SD_ERROR)
    del keep, keep2


def test_publish_reaches_a_subscription_through_pymqe(hconn):
    sd, keep = sd_with_topic("dev/pymqe/a")
    _sd, hobj, hsub, cc, rc = pymqe.MQSUB(hconn, sd, 0)
    assert (cc, rc) == (OK, 0)
    # a topic opened by ObjectName + ObjectString: the string follows through VSPtr
    raw = bytearray(N.MQOD.encode(mqi.MQOD(ObjectType=C.MQOT_TOPIC, Version=4)))
    text = b"dev/pymqe/a"
    buf = ctypes.create_string_buffer(text)
    f = N.MQOD.by_name["ObjectString"]
    struct.pack_into("@P4i", raw, f.offset, ctypes.addressof(buf), 0, 0, len(text), C.MQCCSI_APPL)
    htopic, _od, cc, rc = pymqe.MQOPEN(hconn, bytes(raw), C.MQOO_OUTPUT)
    assert (cc, rc) == (OK, 0)
    assert pymqe.MQPUT(hconn, htopic, md(), pmo(), b"apple")[2:] == (OK, 0)
    data, _md, _gmo, _n, cc, rc = pymqe.MQGET(hconn, hobj, md(), gmo(Options=C.MQGMO_WAIT, WaitInterval=2000), 100)
    assert (data, cc, rc) == (b"apple", OK, 0)
    for h in (htopic, hsub, hobj):
        pymqe.MQCLOSE(hconn, h, 0)
    del keep, buf


def test_mqstat(hconn):
    sts = b"STAT" + struct.pack("=i", 2) + bytes(272)
    sts_out, cc, rc = pymqe.MQSTAT(hconn, 0, sts)  # MQSTAT_TYPE_ASYNC_ERROR
    assert (cc, rc) == (OK, 0) and len(sts_out) == 280
    with pytest.raises(pymqe.error, match="MQSTS wrong size"):
        pymqe.MQSTAT(hconn, 0, sts[:224])


# --------------------------------------------------------------------------------------------------
# Message handles and properties
# --------------------------------------------------------------------------------------------------

def test_message_properties_set_inquire_delete(hconn):
    hmsg, cc, rc = pymqe.MQCRTMH(hconn, CMHO)
    assert (cc, rc) == (OK, 0) and hmsg not in (0, -1)
    assert pymqe.MQSETMP(hconn, hmsg, SMPO, b"colour", PD, MH.MQTYPE_STRING, "red", MH.MQVL_NULL_TERMINATED) == (OK, 0)
    assert pymqe.MQSETMP(hconn, hmsg, SMPO, b"count", PD, MH.MQTYPE_INT32, 42, 4) == (OK, 0)
    assert pymqe.MQSETMP(hconn, hmsg, SMPO, b"flag", PD, MH.MQTYPE_BOOLEAN, True, 4) == (OK, 0)
    assert pymqe.MQSETMP(hconn, hmsg, SMPO, b"raw", PD, MH.MQTYPE_BYTE_STRING, b"\x00\x01", 2) == (OK, 0)
    assert pymqe.MQSETMP(hconn, hmsg, SMPO, b"ratio", PD, MH.MQTYPE_FLOAT64, 0.25, 8) == (OK, 0)
    inq = pymqe.MQINQMP
    assert inq(hconn, hmsg, MQIMPO_INQ_FIRST, b"colour", C.MQPD_NONE, MH.MQTYPE_AS_SET, 64) == ("red", 3, OK, 0)
    assert inq(hconn, hmsg, MQIMPO_INQ_FIRST, b"count", 0, MH.MQTYPE_AS_SET, 64) == (42, 4, OK, 0)
    assert inq(hconn, hmsg, MQIMPO_INQ_FIRST, b"flag", 0, MH.MQTYPE_AS_SET, 64)[::2] == (1, OK)
    assert inq(hconn, hmsg, MQIMPO_INQ_FIRST, b"raw", 0, MH.MQTYPE_AS_SET, 64) == (b"\x00\x01", 2, OK, 0)
    assert inq(hconn, hmsg, MQIMPO_INQ_FIRST, b"ratio", 0, MH.MQTYPE_AS_SET, 64) == (0.25, 8, OK, 0)
    value, length, cc, rc = inq(hconn, hmsg, MQIMPO_INQ_FIRST, b"colour", 0, MH.MQTYPE_AS_SET, 2)
    assert (value, length, cc, rc) == ("re", 3, FAILED, C.MQRC_PROPERTY_VALUE_TOO_BIG)
    assert inq(hconn, hmsg, MQIMPO_INQ_FIRST, b"absent", 0, MH.MQTYPE_AS_SET, 64)[2:] == (
        FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE)
    assert inq(hconn, hmsg, MQIMPO_INQ_FIRST | MH.MQIMPO_CONVERT_TYPE, b"count", 0, MH.MQTYPE_STRING, 64)[:1] == ("42",)
    dmpo = b"DMPO" + struct.pack("=ii", 1, 0)
    assert pymqe.MQDLTMP(hconn, hmsg, dmpo, b"colour") == (OK, 0)
    assert pymqe.MQDLTMP(hconn, hmsg, dmpo, b"colour") == (C.MQCC_WARNING, C.MQRC_PROPERTY_NOT_AVAILABLE)
    dmho = b"DMHO" + struct.pack("=ii", 1, 0)
    assert pymqe.MQDLTMH(hconn, hmsg, dmho) == (OK, 0)
    assert pymqe.MQDLTMH(hconn, hmsg, dmho) == (FAILED, C.MQRC_HMSG_ERROR)


def test_message_property_argument_errors(hconn):
    with pytest.raises(pymqe.error, match=r"MQCMHO wrong size. Given: 8, expected 12"):
        pymqe.MQCRTMH(hconn, CMHO[:8])
    assert pymqe.MQCRTMH(424242, CMHO) == (-1, FAILED, C.MQRC_HCONN_ERROR)
    hmsg, _cc, _rc = pymqe.MQCRTMH(hconn, CMHO)
    with pytest.raises(pymqe.error, match=r"MQSMPO wrong size. Given: 12, expected 20"):
        pymqe.MQSETMP(hconn, hmsg, SMPO[:12], b"a", PD, MH.MQTYPE_INT32, 1, 4)
    with pytest.raises(pymqe.error, match=r"MQPD wrong size. Given: 20, expected 24"):
        pymqe.MQSETMP(hconn, hmsg, SMPO, b"a", PD[:20], MH.MQTYPE_INT32, 1, 4)
    with pytest.raises(TypeError):
        pymqe.MQSETMP(hconn, hmsg, SMPO, "a", PD, MH.MQTYPE_INT32, 1, 4)  # the name is bytes ('y#')
    with pytest.raises(TypeError):
        pymqe.MQINQMP(hconn, hmsg, 0, "a", 0, MH.MQTYPE_AS_SET, 10)
    assert pymqe.MQSETMP(hconn, hmsg, SMPO, b"", PD, MH.MQTYPE_INT32, 1, 4) == (FAILED, C.MQRC_PROPERTY_NAME_LENGTH_ERR)
    assert pymqe.MQSETMP(hconn, hmsg, SMPO, b"a b", PD, MH.MQTYPE_INT32, 1, 4) == (FAILED, C.MQRC_PROPERTY_NAME_ERROR)
    assert pymqe.MQSETMP(hconn, 777, SMPO, b"a", PD, MH.MQTYPE_INT32, 1, 4) == (FAILED, C.MQRC_HMSG_ERROR)
    assert pymqe.MQINQMP(hconn, hmsg, 0x7FFFFFF0, b"a", 0, MH.MQTYPE_AS_SET, 10)[2:] == (FAILED, C.MQRC_OPTIONS_ERROR)


def test_properties_travel_with_put_and_get(hconn, queue):
    hobj, _name = queue
    hmsg, _cc, _rc = pymqe.MQCRTMH(hconn, CMHO)
    pymqe.MQSETMP(hconn, hmsg, SMPO, b"region", PD, MH.MQTYPE_STRING, "emea", MH.MQVL_NULL_TERMINATED)
    put_pmo = bytearray(pmo(Version=3))
    struct.pack_into("=q", put_pmo, 160, hmsg)  # OriginalMsgHandle
    assert pymqe.MQPUT(hconn, hobj, md(), bytes(put_pmo), b"body")[2:] == (OK, 0)
    got, _cc, _rc = pymqe.MQCRTMH(hconn, CMHO)
    get_gmo = bytearray(gmo(Version=4, Options=C.MQGMO_PROPERTIES_IN_HANDLE))
    struct.pack_into("=q", get_gmo, 104, got)  # MsgHandle
    data, _md, _gmo, _n, cc, rc = pymqe.MQGET(hconn, hobj, md(), bytes(get_gmo), 100)
    assert (data, cc, rc) == (b"body", OK, 0)
    assert pymqe.MQINQMP(hconn, got, MQIMPO_INQ_FIRST, b"region", 0, MH.MQTYPE_AS_SET, 64) == ("emea", 4, OK, 0)


# --------------------------------------------------------------------------------------------------
# mqaiExecute
# --------------------------------------------------------------------------------------------------

def test_mqai_execute_inquire_and_errors(hconn):
    res, cc, rc = pymqe.mqaiExecute(hconn, C.MQCMD_INQUIRE_Q, {C.MQCA_Q_NAME: b"DEV.QUEUE.*",
                                                               C.MQIACF_Q_ATTRS: [C.MQIA_CURRENT_Q_DEPTH]})
    assert (cc, rc) == (OK, 0) and len(res) == 3
    names = sorted(r[C.MQCA_Q_NAME].strip() for r in res)
    assert names == [b"DEV.QUEUE.1", b"DEV.QUEUE.2", b"DEV.QUEUE.3"]
    assert all(isinstance(r[C.MQIA_CURRENT_Q_DEPTH], int) for r in res)
    assert pymqe.mqaiExecute(hconn, C.MQCMD_INQUIRE_Q, {C.MQCA_Q_NAME: b"NO.SUCH.Q"}) == (
        [], FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
    assert pymqe.mqaiExecute(424242, C.MQCMD_PING_Q_MGR) == ([], FAILED, C.MQRC_HCONN_ERROR)
    assert pymqe.mqaiExecute(hconn, C.MQCMD_PING_Q_MGR) == ([{}], OK, 0)
    with pytest.raises(pymqe.error, match="is not a dictionary"):
        pymqe.mqaiExecute(hconn, C.MQCMD_INQUIRE_Q, [1])
    with pytest.raises(pymqe.error, match="is not integer"):
        pymqe.mqaiExecute(hconn, C.MQCMD_INQUIRE_Q, {"name": b"x"})
    with pytest.raises(pymqe.error, match="is not a long, bytes nor a pymqi.ByteString"):
        pymqe.mqaiExecute(hconn, C.MQCMD_INQUIRE_Q, {C.MQCA_Q_NAME: "str"})


def test_a_version_1_pmo_comes_back_whole(hconn, queue):
    """pymqi packs a Version 1 MQPMO into 184 bytes: the reply's 128-byte PMO is laid over it and the
    caller's bytes after it stay where they were (ibmmqc's _pmo_native)."""
    hobj, _name = queue
    raw = bytearray(pmo(Version=1))
    raw[128:184] = bytes(range(1, 57))
    _md, pmo_out, cc, rc = pymqe.MQPUT(hconn, hobj, md(), bytes(raw), b"x")
    assert (cc, rc) == (OK, 0)
    assert len(pmo_out) == 184 and pmo_out[128:] == bytes(raw[128:])


ODD_INTS = [0, -1, 1, 2**31 - 1, 2**31, -2**31 - 1, 2**40, 2**63 - 1]


def _zeroed(name: str, head: bytes) -> list[bytes]:
    """Right-sized structures with bad StrucIds and versions (pointer members zero: a garbage pointer
    would be dereferenced, as by IBM's library)."""
    size = pymqe.SIZES[name]
    out = []
    for strucid in (head, b"XXXX", b"\0\0\0\0"):
        for version in (0, 1, 99, -1):
            out.append(strucid + struct.pack("=i", version) + bytes(size - 8))
    return out


def _outcome(fn, *args):
    try:
        res = fn(*args)
    except (TypeError, OverflowError, pymqe.error):
        return "raised"
    assert isinstance(res, tuple) and res[-2] in (OK, C.MQCC_WARNING, FAILED) and isinstance(res[-1], int), res
    return res[-1]


def test_bad_input_gets_a_reason_or_pymqes_exception_never_a_crash(hconn, queue):
    hobj, _name = queue
    for n in ODD_INTS:
        _outcome(pymqe.MQOPEN, hconn, od("DEV.QUEUE.1"), n)
        _outcome(pymqe.MQCLOSE, hconn, n, n)
        _outcome(pymqe.MQPUT, hconn, n, md(), pmo(), b"x")
        _outcome(pymqe.MQGET, hconn, n, md(), gmo(), 10)
        _outcome(pymqe.MQGET, hconn, hobj, md(), gmo(), n)
        _outcome(pymqe.MQINQ, hconn, hobj, n)
        _outcome(pymqe.MQSET, hconn, hobj, n, n)
        _outcome(pymqe.MQSET, hconn, hobj, C.MQIA_INHIBIT_GET, n)
        _outcome(pymqe.MQDISC, n)
        _outcome(pymqe.MQCMIT, n)
        _outcome(pymqe.MQINQMP, hconn, n, n, b"a", n, n, n)
        _outcome(pymqe.MQSETMP, hconn, n, SMPO, b"a", PD, n, n, n)
        _outcome(pymqe.mqaiExecute, hconn, n)
    assert _outcome(pymqe.MQGET, hconn, hobj, md(), gmo(), 2**31) == C.MQRC_BUFFER_LENGTH_ERROR
    for bad in _zeroed("MQOD", b"OD  "):
        _outcome(pymqe.MQOPEN, hconn, bad, C.MQOO_OUTPUT)
        _outcome(pymqe.MQPUT1, hconn, bad, md(), pmo(), b"x")
    for bad in _zeroed("MQMD", b"MD  "):
        _outcome(pymqe.MQPUT, hconn, hobj, bad, pmo(), b"x")
        _outcome(pymqe.MQGET, hconn, hobj, bad, gmo(), 10)
    for bad in _zeroed("MQPMO", b"PMO "):
        _outcome(pymqe.MQPUT, hconn, hobj, md(), bad, b"x")
    for bad in _zeroed("MQGMO", b"GMO "):
        _outcome(pymqe.MQGET, hconn, hobj, md(), bad, 10)
    for bad in _zeroed("MQSD", b"SD  "):
        _outcome(pymqe.MQSUB, hconn, bad, 0)
    for bad in _zeroed("MQCMHO", b"CMHO"):
        _outcome(pymqe.MQCRTMH, hconn, bad)
    for bad in _zeroed("MQSCO", b"SCO "):
        assert _outcome(pymqe.MQCONNX, b"QM1", 0, bytes(2000), {}, bad) in (C.MQRC_SCO_ERROR,
                                                                            C.MQRC_Q_MGR_NOT_AVAILABLE)
    for value in (None, 1.5, "s", [], object()):
        _outcome(pymqe.MQPUT, hconn, hobj, md(), pmo(), value)
        _outcome(pymqe.MQINQ, hconn, hobj, value)
        _outcome(pymqe.MQCONNX, b"QM1", 0, value, {}, sco())
    # the connection still works
    assert pymqe.MQPUT(hconn, hobj, md(), pmo(), b"still fine")[2:] == (OK, 0)
