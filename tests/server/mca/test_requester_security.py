"""The responder's checks when a requester starts the channel (issue 34, decisions MCG2-MCG3): QM1's SVR (or
SDR) answering QM2's RQSTR checks CHLAUTH once the ID names QM2, as a receiver checks its sender, and the
channel's TLS rules; the requester goes TLS when its SSLCIPH says so.  QM1 and QM2 in servers of their own
in this process, both with the developer objects (so the back-stop refuses whom no record admits); the
channel is started at QM2 through MQSC and its messages got through IBM's ibmmq."""

from __future__ import annotations

import contextlib

import pytest
import trio

from qmlite.keys import testpki
from qmlite.registry.monitoring import events as E
from qmlite.registry.mqsc import run_mqsc
from qmlite.server import config
from qmlite.server.listener import running
from qmlite.server.mca import agents
from tests.registry.monitoring.test_events import events_on, values
from tests.server.mca.test_mqport import _get, _mqsc, _put
from tests.server.mca.test_run import Ended, admitting
from tests.server.mca.test_svr_rqstr import CHANNEL, _sending_side

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC  # noqa: E402


def _cfg(tmp_path, name: str, pki=None):
    more = {"pki_dir": str(pki.pki_dir)} if pki is not None else {}
    return config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / name,
                                              "qmgr_name": name, **more})


@contextlib.asynccontextmanager
async def _pair(tmp_path, *, kind: str = "SVR", svr: str = "", rqstr: str = "", pki=None):
    """QM1 with the transmission queue and its ``kind`` channel (a SDR's CONNAME is QM2's port), QM2 with
    TARGET and the RQSTR to QM1's port (admitting QM1's channel for a callback); both CHLEV(ENABLED).
    Yields both servers and the agents that ended (either side's)."""
    async with running(_cfg(tmp_path, "QM1", pki), synchronous="NORMAL") as qm1, \
            running(_cfg(tmp_path, "QM2", pki), synchronous="NORMAL") as qm2, trio.open_nursery() as nursery:
        ended = Ended()
        agents.register(qm1, nursery, on_end=ended.set)
        agents.register(qm2, nursery, on_end=ended.set)
        _mqsc(qm1.qm, "ALTER QMGR CHLEV(ENABLED)" + _sending_side(kind, f"127.0.0.1({qm2.port})" if kind == "SDR"
                                                                    else "", admit=False))
        if svr:
            _mqsc(qm1.qm, f"ALTER CHANNEL({CHANNEL}) CHLTYPE({kind}) {svr}")
        _mqsc(qm2.qm, f"ALTER QMGR CHLEV(ENABLED)\nDEFINE QLOCAL(TARGET)\n"
                      f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RQSTR) CONNAME('127.0.0.1({qm1.port})') {rqstr}\n"
                      + admitting(CHANNEL, "QM1"))
        yield qm1, qm2, ended
        nursery.cancel_scope.cancel()


def _status(server) -> str:
    (shown,) = run_mqsc(server.qm, f"DISPLAY CHSTATUS({CHANNEL}) STATUS")
    return shown.objects[0]["STATUS"] if shown.objects else ""


def _events(server, reason: int) -> list[dict]:
    return [values(m) for _, m in events_on(server.qm, E.CHANNEL_QUEUE) if m.header.Reason == reason]


async def _refused(qm1, qm2, ended) -> None:
    """A persistent message on QM1's transmission queue and the requester started: it ends STOPPED, the
    message still on QM1 and not on QM2's TARGET."""
    await trio.to_thread.run_sync(_put, qm1.port, [(b"kept", True)])
    _mqsc(qm2.qm, f"START CHANNEL({CHANNEL})")
    with trio.fail_after(30):
        await ended.wait(1)
    assert _status(qm2) == "STOPPED"
    assert qm1.qm.registry.messages.depth("QM2") == 1 and qm2.qm.registry.messages.depth("TARGET") == 0


@pytest.mark.parametrize("kind", ["SVR", "SDR"])
async def test_chlauth_at_the_server_blocks_a_requester_until_a_qmgrmap_admits_it(tmp_path, kind):
    async with _pair(tmp_path, kind=kind) as (qm1, qm2, ended):
        await _refused(qm1, qm2, ended)  # the developer container's back-stop: no record admits QM2
        blocked = _events(qm1, CMQC.MQRC_CHANNEL_BLOCKED)
        assert [(b[CMQCFC.MQIACF_REASON_QUALIFIER], b[CMQCFC.MQCACH_CHANNEL_NAME]) for b in blocked] == [
            (CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS, CHANNEL)]
        assert _status(qm1) == ""  # the server never ran: no status, no callback
        log = (tmp_path / "QM1" / "errors" / "AMQERR01.LOG").read_text()
        assert "AMQ9777E" in log and "QMNAME(QM2)" in log, log

        _mqsc(qm1.qm, admitting(CHANNEL, "QM2"))
        _mqsc(qm2.qm, f"START CHANNEL({CHANNEL})")
        assert await trio.to_thread.run_sync(_get, qm2.port, 1) == [(b"kept", CMQC.MQPER_PERSISTENT)]
        assert _status(qm1) == "RUNNING" and _status(qm2) == "RUNNING"
        _mqsc(qm2.qm, f"STOP CHANNEL({CHANNEL})")
        _mqsc(qm1.qm, f"STOP CHANNEL({CHANNEL})")


QM1_DN, QM2_DN = "CN=QM1,OU=Queue managers", "CN=ibmwebspheremqqm2,OU=Channels"  # testpki's certificates


async def test_a_requester_with_sslciph_goes_tls_and_the_server_maps_its_certificate(tmp_path):
    pki = testpki.init(tmp_path / "pki", qmgr="QM1", extra_labels=("ibmwebspheremqqm2",))
    svr = "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED) SSLPEER('CN=ibmwebspheremqqm2')"
    rqstr = "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=QM1')"
    async with _pair(tmp_path, svr=svr, rqstr=rqstr, pki=pki) as (qm1, qm2, ended):
        # Only an SSLPEERMAP admits QM2 past the back-stop: CHLAUTH saw the requester's certificate.
        _mqsc(qm1.qm, f"SET CHLAUTH('{CHANNEL}') TYPE(SSLPEERMAP) SSLPEER('CN=ibmwebspheremqqm2') USERSRC(MAP) "
                      "MCAUSER('app')")
        bodies = [(b"tls-%d" % n, True) for n in range(3)]
        await trio.to_thread.run_sync(_put, qm1.port, bodies)
        _mqsc(qm2.qm, f"START CHANNEL({CHANNEL})")
        got = await trio.to_thread.run_sync(_get, qm2.port, len(bodies))
        assert got == [(body, CMQC.MQPER_PERSISTENT) for body, _ in bodies]
        for server, partner in ((qm1, QM2_DN), (qm2, QM1_DN)):  # each end shows the TLS agreed, the other's DN
            (shown,) = run_mqsc(server.qm, f"DISPLAY CHSTATUS({CHANNEL}) SSLPEER SECPROT")
            o = shown.objects[0]
            assert partner in o["SSLPEER"] and o["SECPROT"] in ("TLSV12", "TLSV13"), shown.text
        assert _events(qm1, CMQC.MQRC_CHANNEL_SSL_ERROR) == _events(qm2, CMQC.MQRC_CHANNEL_SSL_ERROR) == []
        _mqsc(qm2.qm, f"STOP CHANNEL({CHANNEL})")
        _mqsc(qm1.qm, f"STOP CHANNEL({CHANNEL})")


TLS_REFUSALS = {
    # The server's SSLPEER does not match the requester's certificate: STATUS PEER_NAME, AMQ9636E and the
    # Channel SSL Error event (peer name) at the server.
    "server SSLPEER": ("SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=QM9')", "SSLCIPH(ANY_TLS12_OR_HIGHER)", "QM1"),
    # A plain requester at a server with SSLCIPH: STATUS CIPHER_SPEC (AMQ9639E) and the event (CipherSpec).
    "plain requester": ("SSLCIPH(ANY_TLS12_OR_HIGHER)", "", "QM1"),
    # The requester's SSLPEER does not match the server's certificate: it ends the channel, its event.
    "requester SSLPEER": ("SSLCIPH(ANY_TLS12_OR_HIGHER)", "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=QM9')", "QM2"),
}
QUALIFIERS = {"server SSLPEER": CMQCFC.MQRQ_SSL_PEER_NAME_ERROR, "plain requester": CMQCFC.MQRQ_SSL_CIPHER_SPEC_ERROR,
              "requester SSLPEER": CMQCFC.MQRQ_SSL_PEER_NAME_ERROR}


@pytest.mark.parametrize("case", TLS_REFUSALS)
async def test_a_tls_mismatch_between_requester_and_server_is_refused_with_its_event(tmp_path, case):
    svr, rqstr, where = TLS_REFUSALS[case]
    pki = testpki.init(tmp_path / "pki", qmgr="QM1", extra_labels=("ibmwebspheremqqm2",))
    async with _pair(tmp_path, svr=svr, rqstr=rqstr, pki=pki) as (qm1, qm2, ended):
        _mqsc(qm1.qm, admitting(CHANNEL, "QM2"))  # CHLAUTH would let it in: TLS is what refuses it
        await _refused(qm1, qm2, ended)
        detected = qm1 if where == "QM1" else qm2
        errors = _events(detected, CMQC.MQRC_CHANNEL_SSL_ERROR)
        assert [(e[CMQCFC.MQIACF_REASON_QUALIFIER], e[CMQCFC.MQCACH_CHANNEL_NAME]) for e in errors] == [
            (QUALIFIERS[case], CHANNEL)]
        assert _status(qm1) == ""  # the server never ran
