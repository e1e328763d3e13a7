"""Security at the receiving end of a message channel (issue 34, docs/channels.md "Security"): CHLAUTH for
message channels (the developer container's back-stop, QMGRMAP, BLOCKADDR), the MCA user and PUTAUT(DEF|CTX)
on each put, through IBM's ibmmq (PCF and the MQI) against two queue managers hosted in one process
(test_run.py's), and against a receiving ``qmlite serve`` of its own."""

from __future__ import annotations

import contextlib
import pathlib
import struct
import subprocess
import tempfile

import pytest
import trio

from qmlite.keys import testpki
from qmlite.registry.monitoring import events as E
from qmlite.registry.mqsc import run_mqsc
from qmlite.server import config
from qmlite.server.listener import running
from qmlite.server.mca import agents
from tests.server.mca.test_mqport import Proxy, _get
from tests.registry.monitoring.test_events import events_on, values
from tests.server.mca.test_run import ADMIN, CHANNEL, Ended, _depth, _mqsc, _put, admitting, two_queue_managers
from tests.support import wire
from tests.support.served import Served

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC  # noqa: E402

DLQ = "DEV.DEAD.LETTER.QUEUE"  # the developer container's DEADQ


def _pcf(port: int, qmgr: str, command: str, params: dict) -> None:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        getattr(ibmmq.PCFExecute(qm), command)(params)
    finally:
        qm.disconnect()


def _qmgrmap(port: int, qmname: str, mca_user: str = "") -> None:
    """SET CHLAUTH(CHANNEL) TYPE(QMGRMAP) QMNAME(qmname) USERSRC(MAP) MCAUSER(mca_user), or USERSRC(CHANNEL)
    without ``mca_user``, through ibmmq's PCF."""
    mapped = {CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_MAP, CMQCFC.MQCACH_MCA_USER_ID: mca_user.encode()}
    _pcf(port, "QM2", "MQCMD_SET_CHLAUTH_REC", {
        CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL.encode(), CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_QMGRMAP,
        CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REPLACE, CMQC.MQCA_REMOTE_Q_MGR_NAME: qmname.encode(),
        **(mapped if mca_user else {CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_CHANNEL})})


def _grant(port: int, user: str, *auths: int) -> None:
    _pcf(port, "QM2", "MQCMD_SET_AUTH_REC", {
        CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"TARGET", CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
        CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [user.encode()], CMQCFC.MQIACF_AUTH_ADD_AUTHS: list(auths)})


def _get_all(port: int, queue: str, qmgr: str = "QM2") -> list[tuple[bytes, ibmmq.MD]]:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    out = []
    try:
        q = ibmmq.Queue(qm, queue)
        while True:
            md = ibmmq.MD()
            try:
                out.append((q.get(None, md), md))
            except ibmmq.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
    finally:
        qm.disconnect()


def _get_waiting(port: int) -> tuple[bytes, ibmmq.MD]:
    qm = ibmmq.connect("QM2", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        md = ibmmq.MD()
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60_000)
        return ibmmq.Queue(qm, "TARGET").get(None, md, gmo), md
    finally:
        qm.disconnect()


def _dead_lettered(message: bytes, md) -> tuple[int, str, bytes]:
    """An MQDLH's Reason and DestQName, and the message behind it."""
    assert md.Format.strip() == CMQC.MQFMT_DEAD_LETTER_HEADER.strip()
    assert message[:4] == b"DLH "
    (reason,) = struct.unpack_from("<i", message, 8)
    return reason, message[12:60].decode().strip(), message[172:]


async def _start_refused(qm1, qm2, ended) -> None:
    """A persistent message put to TO.QM2 on QM1 and the channel started: it ends refused (SHORTRTY(0)
    LONGRTY(0)), STOPPED, the message still on QM1's transmission queue and not on QM2's TARGET."""
    await trio.to_thread.run_sync(_put, qm1.port, [(b"kept", True)])
    _mqsc(qm1, f"START CHANNEL({CHANNEL})")
    with trio.fail_after(30):
        await ended.wait(1)
    (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL})")
    assert shown.objects[0]["STATUS"] == "STOPPED", shown.text
    assert qm1.qm.registry.messages.depth("QM2") == 1 and qm2.qm.registry.messages.depth("TARGET") == 0


BLOCKS = {
    # The developer container's back-stop, SET CHLAUTH('*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS):
    # a QMGRMAP naming another queue manager does not let QM1 past it.
    "back-stop": ("", CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS, "AMQ9777E", "QMNAME(QM1)"),
    "BLOCKADDR": ("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.*')", CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS,
                  "AMQ9782E", "127.0.0.1"),
    # A receiver whose MCAUSER is blank runs as mqm: IBM's default BLOCKUSER('*MQADMIN') refuses it.
    "*MQADMIN": (f"SET CHLAUTH('{CHANNEL}') TYPE(QMGRMAP) QMNAME('QM1') USERSRC(CHANNEL)",
                 CMQCFC.MQRQ_CHANNEL_BLOCKED_USERID, "AMQ9776E", "MCAUSER(mqm) QMNAME(QM1)"),
}


@pytest.mark.parametrize("mqsc, qualifier, number, active", BLOCKS.values(), ids=BLOCKS.keys())
async def test_a_blocked_receiver_refuses_the_sender_which_keeps_its_messages(tmp_path, mqsc, qualifier, number,
                                                                              active):
    async with two_queue_managers(tmp_path, admit=False) as (qm1, qm2, receiving, ended):
        _mqsc(qm1, "ALTER QMGR CHLEV(ENABLED)")
        await trio.to_thread.run_sync(_qmgrmap, qm2.port, "QM9")
        _mqsc(qm2, f"ALTER QMGR CHLEV(ENABLED)\n{mqsc}")  # (a BLOCKADDR keeps the test's own client out too)
        await _start_refused(qm1, qm2, ended)
    blocked = [values(m) for _, m in events_on(qm2.qm, E.CHANNEL_QUEUE) if m.header.Reason == CMQC.MQRC_CHANNEL_BLOCKED]
    assert [b[CMQCFC.MQIACF_REASON_QUALIFIER] for b in blocked] == [qualifier]
    assert blocked[0][CMQCFC.MQCACH_CONNECTION_NAME] == "127.0.0.1"
    if qualifier != CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS:  # IBM's event names no channel for an address block
        assert blocked[0][CMQCFC.MQCACH_CHANNEL_NAME] == CHANNEL
    if qualifier == CMQCFC.MQRQ_CHANNEL_BLOCKED_USERID:
        assert blocked[0][CMQCFC.MQCACF_USER_IDENTIFIER] == "mqm"
    # The receiving side's error log names the block (IBM's message and the channel's active values).
    log = (tmp_path / "QM2" / "errors" / "AMQERR01.LOG").read_text()
    assert number in log and active in log, log
    # The sender: its Channel Stopped event, not retried, with IBM's AMQ9558E (remote channel not available).
    stopped = [values(m) for _, m in events_on(qm1.qm, E.CHANNEL_QUEUE) if m.header.Reason == CMQC.MQRC_CHANNEL_STOPPED]
    assert [(s[CMQCFC.MQIACF_REASON_QUALIFIER], s[CMQCFC.MQIACF_ERROR_IDENTIFIER]) for s in stopped] == [
        (CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED, 9558)]  # out of retries: left STOPPED (MCM9)
    assert stopped[0][CMQCFC.MQCACF_AUX_ERROR_DATA_STR_1].startswith("AMQ9558E")


async def test_a_qmgrmap_maps_the_sending_queue_manager_to_the_mca_user_whose_authority_puts(tmp_path):
    async with two_queue_managers(tmp_path, admit=False) as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_qmgrmap, qm2.port, "QM*", "app")
        await trio.to_thread.run_sync(_grant, qm2.port, "app", CMQCFC.MQAUTH_OUTPUT, CMQCFC.MQAUTH_SET_ALL_CONTEXT)
        await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True), (b"two", False)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 2)
        (shown,) = run_mqsc(qm2.qm, f"DISPLAY CHSTATUS({CHANNEL}) MCAUSER")
        assert shown.objects[0]["MCAUSER"] == "app", shown.text  # the mapped user, as IBM shows it
        got = await trio.to_thread.run_sync(_get_all, qm2.port, "TARGET")
        assert sorted(body for body, _ in got) == [b"one", b"two"]
        assert [md.UserIdentifier.strip() for _, md in got] == [b"admin", b"admin"]  # the sender's context kept
        _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")


def _put_as(port: int, user: bytes | None, body: bytes) -> None:
    """A persistent message to TO.QM2 on QM1, with its UserIdentifier set to ``user`` (None: the putter's)."""
    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        options = CMQC.MQOO_OUTPUT | (CMQC.MQOO_SET_IDENTITY_CONTEXT if user else 0)
        queue = ibmmq.Queue(qm, "TO.QM2", options)
        md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
        pmo = ibmmq.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT if user else 0)
        if user:
            md.UserIdentifier = user
        queue.put(body, md, pmo)
        queue.close()
    finally:
        qm.disconnect()


PUTAUT = {
    # PUTAUT(DEF): every put is the MCA user's, app, who may not put to TARGET: both dead-lettered.
    "DEF": ("DEF", [], [b"from-admin", b"from-app"]),
    # PUTAUT(CTX): each put is the message's UserIdentifier's: admin's goes on, app's is dead-lettered.
    "CTX": ("CTX", [b"from-admin"], [b"from-app"]),
}


@pytest.mark.parametrize("putaut, delivered, dead", PUTAUT.values(), ids=PUTAUT.keys())
async def test_a_put_the_user_may_not_make_goes_to_the_dead_letter_queue_not_authorized(tmp_path, putaut,
                                                                                        delivered, dead):
    async with two_queue_managers(tmp_path, rcvr=f"MCAUSER('app') PUTAUT({putaut})", admit=False) as (
            qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_qmgrmap, qm2.port, "QM1")
        await trio.to_thread.run_sync(_put_as, qm1.port, None, b"from-admin")
        await trio.to_thread.run_sync(_put_as, qm1.port, b"app", b"from-app")
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, DLQ, len(dead))
            await _depth(qm2, "TARGET", len(delivered))
        got = await trio.to_thread.run_sync(_get_all, qm2.port, "TARGET")
        assert [body for body, _ in got] == delivered
        dlq = [_dead_lettered(*m) for m in await trio.to_thread.run_sync(_get_all, qm2.port, DLQ)]
        assert dlq == [(CMQC.MQRC_NOT_AUTHORIZED, "TARGET", body) for body in dead]
        (shown,) = run_mqsc(qm2.qm, f"DISPLAY CHSTATUS({CHANNEL}) STATUS MSGS")
        assert (shown.objects[0]["STATUS"], shown.objects[0]["MSGS"]) == ("RUNNING", "2"), shown.text
        _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")


@pytest.fixture(autouse=True)
def _reap():
    yield
    Served.reap_all()


async def test_a_separate_qmlite_serve_blocks_then_admits_by_qmgrmap(tmp_path):
    """QM2 a ``qmlite serve`` of its own: the back-stop refuses QM1's channel; SET CHLAUTH QMGRMAP through
    ibmmq's PCF and START CHANNEL again: the persistent message arrives, put with the mapped user's authority."""
    mqsc = tmp_path / "mqsc"
    mqsc.mkdir()
    (mqsc / "receiving.mqsc").write_text(f"DEFINE QLOCAL(TARGET)\nDEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR)\n"
                                         "SET AUTHREC PROFILE(TARGET) OBJTYPE(QUEUE) PRINCIPAL('app') "
                                         "AUTHADD(PUT,SETALL)\n")
    served = await trio.to_thread.run_sync(
        lambda: Served(tmp_path / "qm2" / "data", "--qmgr", "QM2", "--mqsc-dir", str(mqsc), qmgr="QM2"))
    try:
        cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / "QM1",
                                                 "qmgr_name": "QM1"})
        async with running(cfg, synchronous="NORMAL") as qm1, trio.open_nursery() as nursery:
            ended = Ended()
            agents.register(qm1, nursery, on_end=ended.set)
            _mqsc(qm1, f"""
                DEFINE QLOCAL(QM2) USAGE(XMITQ)
                DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
                DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({served.port})') XMITQ(QM2) +
                       SHORTRTY(0) LONGRTY(0) DISCINT(0)""")
            await trio.to_thread.run_sync(_put, qm1.port, [(b"persistent", True)])
            _mqsc(qm1, f"START CHANNEL({CHANNEL})")
            with trio.fail_after(30):
                await ended.wait(1)
            assert qm1.qm.registry.messages.depth("QM2") == 1
            await trio.to_thread.run_sync(_qmgrmap, served.port, "QM1", "app")
            _mqsc(qm1, f"START CHANNEL({CHANNEL})")
            body, md = await trio.to_thread.run_sync(_get_waiting, served.port)
            assert (body, md.Persistence, md.UserIdentifier.strip()) == (b"persistent", CMQC.MQPER_PERSISTENT, b"admin")
            _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
            nursery.cancel_scope.cancel()
    finally:
        assert served.stop() == 0, served.stderr_tail()
    log = (served.data_dir / "errors" / "AMQERR01.LOG").read_text()
    assert "AMQ9777E" in log and "QMNAME(QM1)" in log, log


# ---- TLS on message channels ------------------------------------------------------------------------
SNI = "qm12e-to2e-qm2.chl.mq.ibm.com"  # QM1.TO.QM2 as IBM's channels name it in the ClientHello (docs/tls.md)


def _tls_cfg(tmp_path, name: str, pki):
    return config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / name,
                                              "qmgr_name": name, "pki_dir": str(pki.pki_dir)})


@contextlib.asynccontextmanager
async def _tls_pair(tmp_path, *, sdr: str, rcvr: str):
    """QM1 and QM2 in servers of their own, one test PKI mounted in both (QM1's certificate under
    ibmwebspheremqqm1, QM2's under ibmwebspheremqqm2: each queue manager's default CERTLABL); the sender
    reaches QM2's MQ port through the test's recording proxy."""
    pki = testpki.init(tmp_path / "pki", qmgr="QM1", extra_labels=("ibmwebspheremqqm2",))
    async with running(_tls_cfg(tmp_path, "QM1", pki), synchronous="NORMAL") as qm1, \
            running(_tls_cfg(tmp_path, "QM2", pki), synchronous="NORMAL") as qm2, trio.open_nursery() as nursery:
        proxy = Proxy(qm2.port)
        await proxy.start(nursery)
        ended = Ended()
        agents.register(qm1, nursery, on_end=ended.set)
        _mqsc(qm1, f"""ALTER QMGR CHLEV(ENABLED)
            DEFINE QLOCAL(QM2) USAGE(XMITQ)
            DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
            DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({proxy.port})') XMITQ(QM2) +
                   SHORTRTY(0) LONGRTY(0) DISCINT(0) {sdr}""")
        _mqsc(qm2, f"ALTER QMGR CHLEV(ENABLED)\nDEFINE QLOCAL(TARGET)\n"
                   f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) {rcvr}\n{admitting()}")
        yield qm1, qm2, proxy, ended
        nursery.cancel_scope.cancel()


def _tls_records(proxy: Proxy) -> dict[str, list[str]]:
    """tshark over the proxy's one capture, the MQ port decoded as TLS: the record types and the SNI seen,
    and any frame tshark read as MQ (none may be: nothing crosses in clear)."""
    (capture,) = proxy.captures
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "tls.pcap"
        capture.write(path)
        fields = ["tls.record.content_type", "tls.record.opaque_type", "tls.handshake.extensions_server_name",
                  "mq.tsh.type", "_ws.malformed"]
        out = subprocess.run(["tshark", "-n", "-r", str(path), "-d", f"tcp.port=={wire.SERVER_PORT},tls", "-T",
                              "fields", "-E", "occurrence=a", "-E", "aggregator=,",
                              *(arg for field in fields for arg in ("-e", field))],
                             capture_output=True, text=True, timeout=120, check=True).stdout
    # (TLS 1.3 records show their outer type as tls.record.opaque_type)
    seen: dict[str, list[str]] = {"types": [], "outer": [], "sni": [], "mq": [], "malformed": []}
    for line in out.splitlines():
        for key, column in zip(seen, line.split("\t")):
            seen[key] += [v for v in column.split(",") if v]
    return seen


async def test_a_tls_channel_carries_persistent_messages_and_tshark_sees_only_tls(tmp_path):
    # SSLCAUTH(REQUIRED) and SSLPEER on the receiver: QM1's certificate is asked for and matched; SSLPEER on
    # the sender: QM2's is matched.
    sdr = "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=ibmwebspheremqqm2,OU=Channels')"
    rcvr = "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED) SSLPEER('CN=QM1,OU=Queue managers')"
    async with _tls_pair(tmp_path, sdr=sdr, rcvr=rcvr) as (qm1, qm2, proxy, ended):
        # SSLPEERMAP, ranked above the QMGRMAP that admits QM1, maps the sender's certificate to app.
        _mqsc(qm2, f"""SET CHLAUTH('{CHANNEL}') TYPE(SSLPEERMAP) SSLPEER('CN=QM1') USERSRC(MAP) MCAUSER('app')
                      SET AUTHREC PROFILE(TARGET) OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT,SETALL)""")
        bodies = [(b"tls-%d" % n, True) for n in range(3)]
        await trio.to_thread.run_sync(_put, qm1.port, bodies)
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        got = await trio.to_thread.run_sync(_get, qm2.port, len(bodies))
        assert got == [(body, CMQC.MQPER_PERSISTENT) for body, _ in bodies]
        # Each end's status shows the TLS agreed and the partner's DN; the receiver runs as the mapped user.
        for server, partner in ((qm1, "CN=ibmwebspheremqqm2,OU=Channels"), (qm2, "CN=QM1,OU=Queue managers")):
            (shown,) = run_mqsc(server.qm, f"DISPLAY CHSTATUS({CHANNEL}) SSLPEER SECPROT MCAUSER")
            o = shown.objects[0]
            assert partner in o["SSLPEER"] and o["SECPROT"] in ("TLSV12", "TLSV13"), shown.text
        assert o["MCAUSER"] == "app", shown.text
        _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(1)
    seen = _tls_records(proxy)
    assert seen["mq"] == [] and seen["malformed"] == []
    types = seen["types"] + seen["outer"]
    assert "22" in types and "23" in types  # handshake, then application data only
    assert set(types) <= {"20", "21", "22", "23"}
    assert seen["sni"] == [SNI]
    ssl_errors = [m for _, m in events_on(qm2.qm, E.CHANNEL_QUEUE) if m.header.Reason == CMQC.MQRC_CHANNEL_SSL_ERROR]
    assert ssl_errors == []


MISMATCHES = {
    # The two ends' CipherSpecs share no cipher: the receiver's handshake (its channel's SSLCIPH, from the
    # SNI) fails; IBM's AMQ9616E there, the Channel SSL Error (handshake) at the sender.
    "SSLCIPH": ("SSLCIPH(ECDHE_RSA_AES_128_GCM_SHA256)", "SSLCIPH(ECDHE_RSA_AES_256_GCM_SHA384)",
                "QM1", CMQCFC.MQRQ_SSL_HANDSHAKE_ERROR, "AMQ9616E", None),
    # The receiver's SSLPEER does not match QM1's certificate: STATUS PEER_NAME, AMQ9636E and the event
    # there, the sender's AMQ9643E.
    "SSLPEER": ("SSLCIPH(ANY_TLS12_OR_HIGHER)", "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=QM9')",
                "QM2", CMQCFC.MQRQ_SSL_PEER_NAME_ERROR, "AMQ9636E", 9643),
    # A sender without SSLCIPH at a receiver with one: STATUS CIPHER_SPEC, AMQ9639E, the sender's AMQ9641E.
    "plain": ("", "SSLCIPH(ANY_TLS12_OR_HIGHER)", "QM2", CMQCFC.MQRQ_SSL_CIPHER_SPEC_ERROR, "AMQ9639E", 9641),
    # SSLCAUTH(REQUIRED), and the sender's CERTLABL names no certificate (so it sends none): STATUS
    # SSL_CLIENT_CERTIFICATE, AMQ9637E and the event (client auth) there, the sender's AMQ9642E.
    "SSLCAUTH": ("SSLCIPH(ANY_TLS12_OR_HIGHER) CERTLABL('nothing.here')",
                 "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED)", "QM2", CMQCFC.MQRQ_SSL_CLIENT_AUTH_ERROR,
                 "AMQ9637E", 9642),
    # The sender's SSLPEER does not match QM2's certificate: the sender ends it (AMQ9636E), its event.
    "sender SSLPEER": ("SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=QM9')", "SSLCIPH(ANY_TLS12_OR_HIGHER)", "QM1",
                       CMQCFC.MQRQ_SSL_PEER_NAME_ERROR, None, 9636),
}


@pytest.mark.parametrize("sdr, rcvr, where, qualifier, number, sender_error", MISMATCHES.values(),
                         ids=MISMATCHES.keys())
async def test_a_tls_mismatch_is_refused_with_the_channel_ssl_error_event(tmp_path, sdr, rcvr, where, qualifier,
                                                                           number, sender_error):
    async with _tls_pair(tmp_path, sdr=sdr, rcvr=rcvr) as (qm1, qm2, proxy, ended):
        await _start_refused(qm1, qm2, ended)
    # Each queue manager's channel events, read once (reading takes them off the queue).
    seen = {name: [(m.header.Reason, values(m)) for _, m in events_on(server.qm, E.CHANNEL_QUEUE)]
            for name, server in (("QM1", qm1), ("QM2", qm2))}
    ssl_errors = [v for reason, v in seen[where] if reason == CMQC.MQRC_CHANNEL_SSL_ERROR]
    assert [(e[CMQCFC.MQIACF_REASON_QUALIFIER], e[CMQCFC.MQCACH_CHANNEL_NAME]) for e in ssl_errors] == [
        (qualifier, CHANNEL)]
    if qualifier == CMQCFC.MQRQ_SSL_PEER_NAME_ERROR:  # the DN refused, as IBM renders it (SERIALNUMBER first)
        refused = ",CN=QM1,OU=Queue managers,O=qmlite,C=GB" if where == "QM2" else ",CN=ibmwebspheremqqm2,OU=Channels"
        assert refused in ssl_errors[0][CMQCFC.MQCACH_SSL_SHORT_PEER_NAME]
    if number is not None:
        log = (tmp_path / "QM2" / "errors" / "AMQERR01.LOG").read_text()
        assert number in log, log
    if sender_error is not None:
        stopped = [v for reason, v in seen["QM1"] if reason == CMQC.MQRC_CHANNEL_STOPPED]
        assert [s[CMQCFC.MQIACF_ERROR_IDENTIFIER] for s in stopped] == [sender_error]


# ---- MAXMSGL ----------------------------------------------------------------------------------------
async def test_maxmsgl_the_ends_agree_the_smaller_and_each_limit_dead_letters_with_its_reason(tmp_path):
    """RCVR MAXMSGL(1000) against the sender's 4 MB: the ID exchange agrees 1000 (both ends show it); a
    message over it goes to the sending queue manager's dead-letter queue (MQRC_MSG_TOO_BIG_FOR_CHANNEL),
    one within it but over the target queue's MAXMSGL(500) to the receiving one's (MQRC_MSG_TOO_BIG_FOR_Q)."""
    async with two_queue_managers(tmp_path, rcvr="MAXMSGL(1000)") as (qm1, qm2, receiving, ended):
        _mqsc(qm2, "ALTER QLOCAL(TARGET) MAXMSGL(500)")
        await trio.to_thread.run_sync(_put, qm1.port, [(b"s" * 300, True), (b"m" * 700, True), (b"l" * 2000, True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 1)
            await _depth(qm2, DLQ, 1)
            await _depth(qm1, DLQ, 1)
        for server in (qm1, qm2):
            (shown,) = run_mqsc(server.qm, f"DISPLAY CHSTATUS({CHANNEL}) MAXMSGL")
            assert shown.objects[0]["MAXMSGL"] == "1000", shown.text
        got = await trio.to_thread.run_sync(_get_all, qm2.port, "TARGET")
        assert [body for body, _ in got] == [b"s" * 300]
        dlq = [_dead_lettered(*m) for m in await trio.to_thread.run_sync(_get_all, qm2.port, DLQ)]
        assert dlq == [(CMQC.MQRC_MSG_TOO_BIG_FOR_Q, "TARGET", b"m" * 700)]
        sent_back = [_dead_lettered(*m) for m in await trio.to_thread.run_sync(_get_all, qm1.port, DLQ, "QM1")]
        assert [(reason, body) for reason, _, body in sent_back] == [(CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL, b"l" * 2000)]
        _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")


async def test_a_put_refused_with_no_dead_letter_queue_stops_the_channel_and_keeps_the_message(tmp_path):
    """PUTAUT(DEF), an MCA user without put, and no DEADQ at the receiver: the message can be neither put nor
    dead-lettered, so the receiver ends the channel (AMQ9544, STATUS CAN_NOT_STORE) and backs the batch out;
    the sender keeps it on the transmission queue (docs/decisions.md MCX5)."""
    async with two_queue_managers(tmp_path, rcvr="MCAUSER('app')", admit=False) as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_qmgrmap, qm2.port, "QM1")
        _mqsc(qm2, "ALTER QMGR DEADQ(' ')")
        await _start_refused(qm1, qm2, ended)
        assert qm2.qm.registry.messages.depth(DLQ) == 0
