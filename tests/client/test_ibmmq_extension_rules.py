"""What IBM's C extension (ibmmqc.c, ibmmq 2.1.2) does to MQCONNX's structures before the MQI sees them,
through IBM's ``ibmmq`` written as applications write it: fields set, ``Version`` left as the class
makes it (docs/extension-rules.md).  A CCDT named by MQCNO.CCDTUrl, a key-repository password in
MQSCO.KeyRepoPassword, an ApplName the queue manager shows as APPLTAG, an MQBNO checked and carried as
IBM's client carries it; and the rules themselves on ibmmq's own packed structures."""

from __future__ import annotations

import struct

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQXC  # noqa: E402

from ibmmqc import _mqi, extrules  # noqa: E402
from ibmmqc import native as N  # noqa: E402
from qmlite.client import protocol  # noqa: E402
from qmlite.pcf import fap  # noqa: E402
from qmlite.pcf.encoding import LITTLE  # noqa: E402
from tests.support.ccdtkit import channel, client_env, write_ccdt  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402
from tests.support.tlsqm import (  # noqa: E402
    CIPHER, TLS_CHANNEL, appltags, made, roundtrip_and_disconnect, server, tls_server, unstashed_repository)

__all__ = ["client_env", "made", "server", "tls_server"]  # fixtures, used by name

APP = "DEV.APP.SVRCONN"


def app_cd(server, name: str = APP):
    return ibmmq.CD(ChannelName=name.encode(), ConnectionName=server.conn_name.encode())


def connect(server=None, **kwargs):
    qm = ibmmq.QueueManager(None)
    if server is not None:
        kwargs.setdefault("cd", app_cd(server))
    qm.connect_with_options("QM1", user="app", password="passw0rd", **kwargs)
    return qm


def version(layout, buf: bytes) -> int:
    return struct.unpack_from("@i", buf, layout.by_name["Version"].offset)[0]


# --------------------------------------------------------------------------------------------------
# Through ibmmq, against a queue manager
# --------------------------------------------------------------------------------------------------

def test_a_ccdt_url_set_on_a_default_cno_is_used(client_env, server):
    """The user's report: ibmmq.CNO() is version 5, where CCDTUrl does not exist; ibmmqc.c raises every
    MQCNO to version 6, so the URL ibmmq points it at is read (before: 2059, no channel found)."""
    table = write_ccdt(client_env / "ccdt.json", channel(APP, "QM1", ("127.0.0.1", server.port)))
    cno = ibmmq.CNO()
    assert cno.Version == CMQC.MQCNO_VERSION_5
    cno.CCDTUrl = table.as_uri()
    qm = connect(cno=cno)
    try:
        assert qm.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == b"QM1"
    finally:
        qm.disconnect()
    assert cno.Version == CMQC.MQCNO_VERSION_5  # the application's object is not changed


def test_the_key_repository_password_set_on_a_default_sco_opens_the_repository(tls_server, made, tmp_path):
    """The user's report: ibmmq.SCO() is version 5; ibmmqc.c raises it to 6 when KeyRepoPassword is set,
    so a repository without a stash opens with it (before: 2381)."""
    repo = unstashed_repository(made, tmp_path)
    cd = app_cd(tls_server, TLS_CHANNEL)
    cd.SSLCipherSpec = CIPHER.encode()

    def sco(password: str | None):
        s = ibmmq.SCO(KeyRepository=str(repo).encode(), CertificateLabel=made.client_label.encode())
        assert s.Version == CMQC.MQSCO_VERSION_5
        if password is not None:
            s.KeyRepoPassword = password.encode()
        return s

    raises(CMQC.MQRC_KEY_REPOSITORY_ERROR, connect, cd=cd, sco=sco(None))  # no stash, no password
    raises(CMQC.MQRC_KEY_REPOSITORY_ERROR, connect, cd=cd, sco=sco("wrong"))
    qm = connect(cd=cd, sco=sco(made.password))
    assert roundtrip_and_disconnect(ibmmq, qm) == b"over tls"


def test_an_appl_name_set_on_a_default_cno_is_the_connections_appltag(server):
    cno = ibmmq.CNO()
    cno.ApplName = b"orders-service"
    qm = connect(server, cno=cno)
    try:
        text = appltags(server, APP)
        assert "APPLTAG(orders-service)" in text
    finally:
        qm.disconnect()


def test_an_mqbno_is_checked_by_the_mqi(server):
    """ibmmqc.c raises the MQCNO to 8 and points it at the MQBNO: the MQI checks it (2602 for values it
    does not know) and accepts IBM's."""
    good = ibmmq.BNO(ApplType=CMQC.MQBNO_BALTYPE_REQREP | CMQC.MQBNO_BALTYPE_RA_MANAGED, Timeout=30,
                     Options=CMQC.MQBNO_OPTIONS_IGNORE_TRANS)
    connect(server, bno=good).disconnect()
    for bad in (ibmmq.BNO(ApplType=7), ibmmq.BNO(Timeout=-3), ibmmq.BNO(Options=2), ibmmq.BNO(Version=2)):
        raises(CMQC.MQRC_BNO_ERROR, connect, server, bno=bad)


def test_an_mqbno_beside_a_cno_the_application_made_version_8_is_not_pointed_at(server):
    """ibmmqc.c points the MQCNO at the MQBNO only when it raises the version to 8 itself: with an MQCNO
    already at 8 the MQBNO never reaches the MQI, so not even a bad one is refused."""
    connect(server, cno=ibmmq.CNO(Version=CMQC.MQCNO_VERSION_8), bno=ibmmq.BNO(ApplType=7)).disconnect()


def test_a_failed_mqconnx_returns_the_unusable_hconn_and_a_name_must_be_bytes(server):
    cno = ibmmq.CNO().pack()
    assert _mqi.MQCONNX(b"QM9", cno, app_cd(server).pack(), None, None, None)[0] == CMQC.MQHC_UNUSABLE_HCONN
    with pytest.raises(TypeError):
        _mqi.MQCONNX("QM1", cno, None, None, None, None)  # ibmmqc.c parses it with "y"


# --------------------------------------------------------------------------------------------------
# The rules on ibmmq's own packed structures (no queue manager)
# --------------------------------------------------------------------------------------------------

def rules(cno=None, cd=None, sco=None, bno=None):
    return extrules.ibmmq_connx(cno.pack() if cno else ibmmq.CNO().pack(), cd.pack() if cd else None, None,
                                sco.pack() if sco else None, bno.pack() if bno else None)


@pytest.mark.parametrize("cno, expected", [
    (ibmmq.CNO(), 6), (ibmmq.CNO(Version=1), 6), (ibmmq.CNO(Version=7), 7),
    (ibmmq.CNO(ApplName=b"app"), 7), (ibmmq.CNO(ApplName=b" app"), 6),  # a leading blank is "no name"
])
def test_the_mqcno_versions(cno, expected):
    assert version(N.MQCNO, rules(cno=cno).cno) == expected


def test_the_mqbno_raises_the_mqcno_to_8_only_from_below():
    bno = ibmmq.BNO()
    low = rules(cno=ibmmq.CNO(ApplName=b"app"), bno=bno)
    assert version(N.MQCNO, low.cno) == 8 and low.bno == bno.pack()
    high = rules(cno=ibmmq.CNO(Version=8), bno=bno)
    assert version(N.MQCNO, high.cno) == 8 and high.bno is None
    assert rules(cno=ibmmq.CNO()).bno is None


@pytest.mark.parametrize("fields, expected", [
    ({}, CMQXC.MQCD_VERSION_11), ({"SPLProtection": 1}, 12), ({"QuantumSafeAlgorithm": 1}, 13),
    ({"QuantumSafeRequired": 1}, 13), ({"SPLProtection": 1, "QuantumSafeRequired": 1}, 13),
    ({"Version": 13}, 13),
])
def test_the_mqcd_versions(fields, expected):
    cd = ibmmq.CD(**fields)
    assert version(N.MQCD, rules(cd=cd).cd) == expected


@pytest.mark.parametrize("fields, expected", [
    ({}, 5), ({"HTTPSCertValidation": 1}, 7), ({"HTTPSCertRevocation": 1}, 7), ({"Version": 7}, 7),
])
def test_the_mqsco_versions(fields, expected):
    assert version(N.MQSCO, rules(sco=ibmmq.SCO(**fields)).sco) == expected


def test_the_mqsco_is_raised_to_6_for_a_password_pointer():
    raw = bytearray(ibmmq.SCO().pack())
    struct.pack_into("@P", raw, N.MQSCO.by_name["KeyRepoPasswordPtr"].offset, 0x1000)  # never dereferenced here
    assert version(N.MQSCO, extrules.ibmmq_connx(ibmmq.CNO().pack(), None, None, bytes(raw), None).sco) == 6


def test_a_short_structure_is_left_for_the_mqi_to_refuse():
    s = extrules.ibmmq_connx(b"CNO ", b"short", None, b"SCO \x01\x00\x00\x00", None)
    assert (s.cno, s.cd, s.sco) == (b"CNO ", b"short", b"SCO \x01\x00\x00\x00")


# --------------------------------------------------------------------------------------------------
# The MQBNO on the wire: FCNO v4's rebalancing fields, which exist from FAP 15
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("level, fcno_version, carried", [(13, 2, False), (14, 3, False), (15, 4, True)])
def test_balancing_options_travel_in_fcno_v4(level, fcno_version, carried):
    bal = extrules.balance(ibmmq.BNO(ApplType=CMQC.MQBNO_BALTYPE_REQREP, Timeout=30,
                                     Options=CMQC.MQBNO_OPTIONS_IGNORE_TRANS).pack())
    opts = protocol.ConnectOptions(channel=APP, qmgr="QM1", fap_level=level, balance=bal)
    body, _end = fap.MQConnBody.unpack(protocol.mqconn_body(opts, level), 0, LITTLE)
    assert body.Fcno.Version == fcno_version
    got = (body.Fcno.RebalancingType, body.Fcno.RebalancingTimeout, body.Fcno.RebalancingOptions)
    assert got == ((CMQC.MQBNO_BALTYPE_REQREP, 30, CMQC.MQBNO_OPTIONS_IGNORE_TRANS) if carried else (None,) * 3)


# --------------------------------------------------------------------------------------------------
# MQINQ's buffers, as ibmmqc.c hands them back
# --------------------------------------------------------------------------------------------------

def test_mqinq_appends_to_the_callers_list_and_returns_charattrlength_bytes(server):
    qm = connect(server)
    try:
        q = ibmmq.Queue(qm, b"DEV.QUEUE.1", CMQC.MQOO_INQUIRE)
        hconn, hobj = qm.get_handle(), q.get_handle()
        mine = [99]
        ints, chars, cc, rc = _mqi.MQINQ(hconn, hobj, [CMQC.MQIA_MAX_Q_DEPTH, CMQC.MQCA_Q_NAME], mine, 1, 1, 60)
        assert (cc, rc) == (0, 0) and ints is mine and mine[0] == 99 and len(mine) == 2
        assert len(chars) == 60 and chars[:48].rstrip() == b"DEV.QUEUE.1"
        ints, chars, cc, rc = _mqi.MQINQ(hconn, hobj, [CMQC.MQIA_MAX_Q_DEPTH], [], 1, 0, 0)
        assert chars is None and len(ints) == 1  # no character buffer: None, as y# of NULL
        ints, chars, cc, rc = _mqi.MQINQ(hconn, hobj, [CMQC.MQCA_Q_NAME], [], 0, 1, 10)  # too short: 2008
        assert (cc, rc) == (CMQC.MQCC_WARNING, CMQC.MQRC_CHAR_ATTRS_TOO_SHORT) and ints == [] and len(chars) == 10
        q.close()
    finally:
        qm.disconnect()
