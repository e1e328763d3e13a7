"""Security at the receiving end of a message channel (issue 34, docs/channels.md "Security"): CHLAUTH for
message channels (the developer container's back-stop, QMGRMAP, BLOCKADDR), the MCA user and PUTAUT(DEF|CTX)
on each put, through IBM's ibmmq (PCF and the MQI) against two queue managers hosted in one process
(test_run.py's), and against a receiving ``qmlite serve`` of its own."""

from __future__ import annotations

import struct

import pytest
import trio

from qmlite.registry.monitoring import events as E
from qmlite.registry.mqsc import run_mqsc
from qmlite.server import config
from qmlite.server.listener import running
from tests.registry.monitoring.test_events import events_on, values
from tests.server.mca.test_run import ADMIN, CHANNEL, Ended, _depth, _mqsc, _put, two_queue_managers
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


def _get_all(port: int, queue: str) -> list[tuple[bytes, ibmmq.MD]]:
    qm = ibmmq.connect("QM2", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
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


BLOCKS = {
    # The developer container's back-stop, SET CHLAUTH('*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS):
    # a QMGRMAP naming another queue manager does not let QM1 past it.
    "back-stop": ("", E.MQRQ_CHANNEL_BLOCKED_NOACCESS, "AMQ9777E", "QMNAME(QM1)"),
    "BLOCKADDR": ("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.*')", E.MQRQ_CHANNEL_BLOCKED_ADDRESS,
                  "AMQ9782E", "127.0.0.1"),
    # A receiver whose MCAUSER is blank runs as mqm: IBM's default BLOCKUSER('*MQADMIN') refuses it.
    "*MQADMIN": (f"SET CHLAUTH('{CHANNEL}') TYPE(QMGRMAP) QMNAME('QM1') USERSRC(CHANNEL)",
                 E.MQRQ_CHANNEL_BLOCKED_USERID, "AMQ9776E", "MCAUSER(mqm) QMNAME(QM1)"),
}


@pytest.mark.parametrize("mqsc, qualifier, number, active", BLOCKS.values(), ids=BLOCKS.keys())
async def test_a_blocked_receiver_refuses_the_sender_which_keeps_its_messages(tmp_path, mqsc, qualifier, number,
                                                                              active):
    async with two_queue_managers(tmp_path, admit=False) as (qm1, qm2, receiving, ended):
        _mqsc(qm1, "ALTER QMGR CHLEV(ENABLED)")
        await trio.to_thread.run_sync(_qmgrmap, qm2.port, "QM9")
        _mqsc(qm2, f"ALTER QMGR CHLEV(ENABLED)\n{mqsc}")  # (a BLOCKADDR keeps the test's own client out too)
        await trio.to_thread.run_sync(_put, qm1.port, [(b"kept", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(1)  # SHORTRTY(0) LONGRTY(0): the refusal stops it
        (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL})")
        assert shown.objects[0]["STATUS"] == "STOPPED", shown.text
        assert qm1.qm.registry.messages.depth("QM2") == 1  # still on the transmission queue
        assert qm2.qm.registry.messages.depth("TARGET") == 0
    blocked = [values(m) for _, m in events_on(qm2.qm, E.CHANNEL_QUEUE) if m.header.Reason == CMQC.MQRC_CHANNEL_BLOCKED]
    assert [b[CMQCFC.MQIACF_REASON_QUALIFIER] for b in blocked] == [qualifier]
    assert blocked[0][CMQCFC.MQCACH_CONNECTION_NAME] == "127.0.0.1"
    if qualifier != E.MQRQ_CHANNEL_BLOCKED_ADDRESS:  # IBM's event names no channel for an address block
        assert blocked[0][CMQCFC.MQCACH_CHANNEL_NAME] == CHANNEL
    if qualifier == E.MQRQ_CHANNEL_BLOCKED_USERID:
        assert blocked[0][CMQCFC.MQCACF_USER_IDENTIFIER] == "mqm"
    # The receiving side's error log names the block (IBM's message and the channel's active values).
    log = (tmp_path / "QM2" / "errors" / "AMQERR01.LOG").read_text()
    assert number in log and active in log, log
    # The sender: its Channel Stopped event, not retried, with IBM's AMQ9558E (remote channel not available).
    stopped = [values(m) for _, m in events_on(qm1.qm, E.CHANNEL_QUEUE) if m.header.Reason == CMQC.MQRC_CHANNEL_STOPPED]
    assert [(s[CMQCFC.MQIACF_REASON_QUALIFIER], s[CMQCFC.MQIACF_ERROR_IDENTIFIER]) for s in stopped] == [
        (E.MQRQ_CHANNEL_STOPPED_ERROR, 9558)]
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
            from qmlite.server.mca import run as mca

            mca.register(qm1, nursery, on_end=ended.set)
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
