"""Requester and server channels in both start directions (issue 34; docs/channels.md "Requester and
server channels"): QM1 holds the transmission queue and its SVR (or SDR), QM2 the RQSTR and the target
queue.  Started through IBM's ibmmq PCF (Start Channel) at either end: the RQSTR on QM2 (it connects,
the SVR sends over its socket; against a SDR, the SDR calls back), or the SVR with a CONNAME on QM1.
QM2 is hosted by the same server as QM1, or is a separate ``qmlite serve``; every connection goes
through test_mqport.py's proxy, whose capture tshark reads."""

from __future__ import annotations

import pytest
import trio

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf import msgchannel as MCF
from qmlite.pcf.framer import Framer
from qmlite.registry.mqsc import run_mqsc
from qmlite.server.listener import running
from qmlite.server.mca import agents
from tests.server.mca.test_mqport import Proxy, _cfg, _get, _mqsc, _put
from tests.server.mca.test_run import admitting
from tests.support.served import Served

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

CHANNEL = "QM2.FROM.QM1"
ADMIN = ("admin", "passw0rd")
BODIES = [(b"m%02d" % n, True) for n in range(5)]  # persistent, BATCHSZ(2): three batches


def _pcf(port: int, qmgr: str, command: str, params: dict):
    """A PCF command through ibmmq: its responses, or the MQMIError's reason."""
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    pcf = ibmmq.PCFExecute(qm)
    try:
        return getattr(pcf, command)(params)
    except ibmmq.MQMIError as exc:
        return exc.reason
    finally:
        pcf.disconnect()
        qm.disconnect()


def _start(port: int, qmgr: str):
    return _pcf(port, qmgr, "MQCMD_START_CHANNEL", {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})


def _status(port: int, qmgr: str) -> tuple[int, int] | int:
    """(CHLTYPE, STATUS) of the channel's current instance, through Inquire Channel Status."""
    got = _pcf(port, qmgr, "MQCMD_INQUIRE_CHANNEL_STATUS", {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})
    if isinstance(got, int):
        return got
    (one,) = got
    return one[CMQCFC.MQIACH_CHANNEL_TYPE], one[CMQCFC.MQIACH_CHANNEL_STATUS]


def _sending_side(kind: str, conname: str = "", *, admit: bool = True) -> str:
    """QM1's MQSC: the transmission queue, the remote queue and its SVR or SDR; with ``admit``, the CHLAUTH
    records that let QM2's requester in past the back-stop (the responder checks every inbound channel)."""
    conn = f"CONNAME('{conname}')" if conname else ""
    return f"""
        DEFINE QLOCAL(QM2) USAGE(XMITQ)
        DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE({kind}) {conn} XMITQ(QM2) BATCHSZ(2) DISCINT(0) +
               SHORTRTY(0) LONGRTY(0)
        """ + (admitting(CHANNEL, "QM2") if admit else "")


def _receiving_side(conname: str, kind: str = "RQSTR") -> str:
    """QM2's MQSC: the target queue, its RQSTR, and the CHLAUTH records that let QM1's channel in past the
    developer container's back-stop when QM1 starts it (docs/channels.md "Security")."""
    return (f"DEFINE QLOCAL(TARGET)\nDEFINE CHANNEL({CHANNEL}) CHLTYPE({kind}) CONNAME('{conname}')\n"
            + admitting(CHANNEL, "QM1"))


async def _move_and_check(qm1_port: int, qm2_port: int, started_at: tuple[int, str]) -> tuple[int, int]:
    """BODIES put on QM1, the channel started by PCF where ``started_at`` says, every message got on QM2
    once and in order; both ends then show the channel RUNNING with their own type."""
    await trio.to_thread.run_sync(_put, qm1_port, BODIES)
    assert not isinstance(await trio.to_thread.run_sync(_start, *started_at), int)  # no PCF error
    got = await trio.to_thread.run_sync(_get, qm2_port, len(BODIES))
    assert got == [(body, CMQC.MQPER_PERSISTENT) for body, _ in BODIES]  # once each, in order
    svr_side = await trio.to_thread.run_sync(_status, qm1_port, "QM1")
    rqstr_side = await trio.to_thread.run_sync(_status, qm2_port, "QM2")
    assert svr_side[1] == rqstr_side[1] == CMQCFC.MQCHS_RUNNING, (svr_side, rqstr_side)
    return svr_side[0], rqstr_side[0]


def _check_flows(proxy: Proxy, ids: int, count: int = len(BODIES)) -> None:
    """tshark reads every frame; the messages went once each, numbered in order; ``ids`` IDs crossed (a
    requester offering BATCHSZ(50) to a SVR of BATCHSZ(2) is answered ERROR and sends its ID again)."""
    result = proxy.dissect(["mq.msh.seqnum", "mq.xqh.remoteq", "mq.id.seqwrap"])
    assert result.malformed == [] and result.expert == []
    assert result.values("mq.msh.seqnum") == [str(n) for n in range(1, count + 1)]
    assert result.values("mq.xqh.remoteq") == ["TARGET"] * count
    assert result.values("mq.id.seqwrap") == ["999999999"] * ids


async def _stop_both(qm1_port: int, qm2_port: int) -> None:
    for port, qmgr in ((qm1_port, "QM1"), (qm2_port, "QM2")):
        await trio.to_thread.run_sync(_pcf, port, qmgr, "MQCMD_STOP_CHANNEL", {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})


# ---- two queue managers hosted by one server ---------------------------------------------------------
@pytest.mark.parametrize("start", ["requester", "server"])
async def test_svr_and_rqstr_hosted_in_one_server_move_persistent_messages_whichever_end_starts(tmp_path, start):
    async with running(_cfg(tmp_path, "QM1", qmgrs=("QM2",)), synchronous="NORMAL") as qm1, \
            trio.open_nursery() as nursery:
        qm2 = qm1.servers["QM2"]
        proxy = Proxy(qm1.port)  # both queue managers behind one port: routed by the channel's ID
        await proxy.start(nursery)
        conname = f"127.0.0.1({proxy.port})"
        _mqsc(qm1.qm, _sending_side("SVR", conname if start == "server" else ""))
        _mqsc(qm2.qm, _receiving_side(conname))
        at = (qm1.port, "QM2") if start == "requester" else (qm1.port, "QM1")
        types = await _move_and_check(qm1.port, qm1.port, at)
        assert types == (CMQXC.MQCHT_SERVER, CMQXC.MQCHT_REQUESTER)
        (shown,) = run_mqsc(qm2.qm, f"DISPLAY CHSTATUS({CHANNEL}) ALL")
        assert shown.objects[0]["CHLTYPE"] == "RQSTR" and shown.objects[0]["RQMNAME"] == "QM1", shown.text
        await _stop_both(qm1.port, qm1.port)
        nursery.cancel_scope.cancel()
    _check_flows(proxy, 4 if start == "requester" else 2)


async def test_a_requester_started_against_a_sender_is_called_back_and_receives(tmp_path):
    async with running(_cfg(tmp_path, "QM1", qmgrs=("QM2",)), synchronous="NORMAL") as qm1, \
            trio.open_nursery() as nursery:
        qm2 = qm1.servers["QM2"]
        to_qm1, to_qm2 = Proxy(qm1.port), Proxy(qm1.port)
        await to_qm1.start(nursery)
        await to_qm2.start(nursery)
        _mqsc(qm1.qm, _sending_side("SDR", f"127.0.0.1({to_qm2.port})"))
        _mqsc(qm2.qm, _receiving_side(f"127.0.0.1({to_qm1.port})"))
        types = await _move_and_check(qm1.port, qm1.port, (qm1.port, "QM2"))
        assert types == (CMQXC.MQCHT_SENDER, CMQXC.MQCHT_REQUESTER)
        await _stop_both(qm1.port, qm1.port)
        nursery.cancel_scope.cancel()
    # The requester's call: its ID (REQUEST_INITIATION), the sender's answer, the sender's normal close.
    first = to_qm1.dissect(["mq.id.seqwrap", "mq.status.code", "mq.msh.seqnum"])
    assert first.malformed == [] and first.expert == []
    assert first.values("mq.id.seqwrap") == ["999999999"] * 4 and first.values("mq.msh.seqnum") == []
    assert first.values("mq.status.code") == ["0"]
    _check_flows(to_qm2, 2)  # the callback: a sender's channel from its ID on


# ---- QM2 a separate qmlite serve -----------------------------------------------------------------------
@pytest.mark.parametrize("start", ["requester", "server", "callback"])
async def test_svr_and_rqstr_between_two_qmlite_serve_processes(tmp_path, start):
    async with running(_cfg(tmp_path, "QM1"), synchronous="NORMAL") as qm1, trio.open_nursery() as nursery:
        to_qm1 = Proxy(qm1.port)
        await to_qm1.start(nursery)
        mqsc = tmp_path / "mqsc"
        mqsc.mkdir()
        (mqsc / "rqstr.mqsc").write_text(_receiving_side(f"127.0.0.1({to_qm1.port})"))
        served = await trio.to_thread.run_sync(
            lambda: Served(tmp_path / "qm2" / "data", "--qmgr", "QM2", "--mqsc-dir", str(mqsc), qmgr="QM2"))
        try:
            to_qm2 = Proxy(served.port)
            await to_qm2.start(nursery)
            kind = "SDR" if start == "callback" else "SVR"
            _mqsc(qm1.qm, _sending_side(kind, f"127.0.0.1({to_qm2.port})" if start != "requester" else ""))
            at = (qm1.port, "QM1") if start == "server" else (served.port, "QM2")
            types = await _move_and_check(qm1.port, served.port, at)
            assert types == (CMQXC.MQCHT_SENDER if kind == "SDR" else CMQXC.MQCHT_SERVER, CMQXC.MQCHT_REQUESTER)
            await _stop_both(qm1.port, served.port)
        finally:
            assert served.stop() == 0, served.stderr_tail()
        nursery.cancel_scope.cancel()
    if start == "callback":  # the requester's call ended by the sender, then the sender's own channel
        assert to_qm1.dissect(["mq.status.code"]).values("mq.status.code") == ["0"]
        _check_flows(to_qm2, 2)
    else:
        _check_flows(to_qm1 if start == "requester" else to_qm2, 4 if start == "requester" else 2)


@pytest.fixture(autouse=True)
def _reap():
    yield
    Served.reap_all()


# ---- bad pairings ---------------------------------------------------------------------------------------
async def test_a_requester_against_a_receiver_is_refused_as_the_wrong_type_and_stops(tmp_path):
    async with running(_cfg(tmp_path, "QM1", qmgrs=("QM2",)), synchronous="NORMAL") as qm1, \
            trio.open_nursery() as nursery:
        qm2 = qm1.servers["QM2"]
        qm2.ensure_running()  # its own start registers the server's hook: ours replaces it after
        await qm2.ready.wait()
        ended = trio.Event()
        agents.register(qm2, nursery, on_end=lambda channel: ended.set())
        proxy = Proxy(qm1.port)
        await proxy.start(nursery)
        _mqsc(qm1.qm, f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR)")
        _mqsc(qm2.qm, _receiving_side(f"127.0.0.1({proxy.port})"))
        accepted = await trio.to_thread.run_sync(_start, qm1.port, "QM2")
        assert not isinstance(accepted, int)  # the command is accepted; the agent then fails
        with trio.fail_after(30):
            await ended.wait()
        assert qm2.qm.registry.running.message_channels[CHANNEL].status == C.MQCHS_STOPPED
        assert not qm1.qm.registry.running.instances_of(CHANNEL)
        nursery.cancel_scope.cancel()
    result = proxy.dissect(["mq.status.code"])
    assert result.values("mq.status.code") == [str(fap.CHANNEL_WRONG_TYPE)] and result.malformed == []


async def test_start_channel_of_a_server_without_conname_is_missing_conn_name(tmp_path):
    # A SVR without CONNAME only answers a requester (a RQSTR cannot be defined without one).
    async with running(_cfg(tmp_path, "QM1"), synchronous="NORMAL") as qm1:
        _mqsc(qm1.qm, f"DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE CHANNEL({CHANNEL}) CHLTYPE(SVR) XMITQ(QM2)")
        assert await trio.to_thread.run_sync(_start, qm1.port, "QM1") == C.MQRCCF_MISSING_CONN_NAME
        assert not qm1.qm.registry.running.instances_of(CHANNEL)


PAIRINGS = {  # (the ID's sender is a requester, the channel type here) -> STATUS at the ID
    "requester-to-rcvr": (True, "RCVR", fap.CHANNEL_WRONG_TYPE),
    "requester-to-rqstr": (True, "RQSTR", fap.CHANNEL_WRONG_TYPE),
    "sender-to-svr": (False, "SVR", fap.CHANNEL_WRONG_TYPE),
    "requester-to-nothing": (True, "", fap.NO_CHANNEL),
}


@pytest.mark.parametrize("requester, kind, code", PAIRINGS.values(), ids=PAIRINGS.keys())
async def test_an_id_naming_a_channel_of_the_wrong_type_is_refused_at_the_id(tmp_path, requester, kind, code):
    async with running(_cfg(tmp_path, "QM1"), synchronous="NORMAL") as qm1:
        more = {"SVR": "XMITQ(QM2)", "RQSTR": "CONNAME('127.0.0.1(1)')"}.get(kind, "")
        if kind:
            _mqsc(qm1.qm, f"DEFINE CHANNEL({CHANNEL}) CHLTYPE({kind}) {more}")
        assert (qm1.qm.registry.objects("channel").get(CHANNEL) is not None) == bool(kind)
        stream = await trio.open_tcp_stream("127.0.0.1", qm1.port)
        async with stream:
            ident = MCF.message_channel_id(MCF.Offer(CHANNEL, "QM2", requester=requester))
            assert bool(ident.CapFlags1 & MCF.CF1_REQUEST_INITIATION) == requester
            await stream.send_all(MCF.id_segment(ident))
            data = b""
            with trio.fail_after(30):
                while chunk := await stream.receive_some(65536):  # the STATUS, then the server closes
                    data += chunk
        (status,) = Framer().feed(data)
        assert status.segment_type == fap.STATUS_DATA and fap.decode_body(status).ReturnCode == code
        assert not qm1.qm.registry.running.instances_of(CHANNEL)
