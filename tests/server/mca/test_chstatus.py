"""Inquire Channel Status / DISPLAY CHSTATUS for message channels (issue 34 item 3): every field IBM's
"Inquire Channel Status (Response)" returns for a message channel, with its type, asked through IBM's
ibmmq PCF client for a running and a stopped sender and a running receiver, current and SAVED, and the
saved status read again after a restart.  Two queue managers hosted in one process (test_run.py's)."""

from __future__ import annotations

import socket

import pytest
import trio

from qmlite.registry.monitoring import events as E
from qmlite.registry.mqsc import run_mqsc
from qmlite.server import config
from qmlite.server.listener import running
from tests.registry.monitoring.test_events import events_on, values
from tests.server.mca.test_run import ADMIN, CHANNEL, _depth, _mqsc, _put, two_queue_managers

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

INT, STR, LIST = int, bytes, list
# IBM's list (Inquire Channel Status (Response): always returned, then returned if requested), the
# fields that apply to a message channel on Multiplatforms, each with its PCF type.
ALWAYS = {CMQCFC.MQCACH_CHANNEL_NAME: STR, CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE: INT,
          CMQCFC.MQIACH_CHANNEL_STATUS: INT, CMQCFC.MQIACH_CHANNEL_TYPE: INT, CMQCFC.MQCACH_CONNECTION_NAME: STR,
          CMQCFC.MQCACH_REMOTE_APPL_TAG: STR, CMQC.MQCA_REMOTE_Q_MGR_NAME: STR,
          CMQCFC.MQIACH_STOP_REQUESTED: INT, CMQCFC.MQIACH_CHANNEL_SUBSTATE: INT, CMQCFC.MQCACH_XMIT_Q_NAME: STR}
SAVED = {CMQCFC.MQCACH_CURRENT_LUWID: STR, CMQCFC.MQIACH_CURRENT_SEQ_NUMBER: INT,
         CMQCFC.MQIACH_INDOUBT_STATUS: INT, CMQCFC.MQCACH_LAST_LUWID: STR, CMQCFC.MQIACH_LAST_SEQ_NUMBER: INT}
REQUESTED = {
    **SAVED, CMQCFC.MQIACH_BATCHES: INT, CMQCFC.MQIACH_BATCH_SIZE: INT, CMQCFC.MQIACH_BATCH_SIZE_INDICATOR: LIST,
    CMQCFC.MQIACH_BUFFERS_RECEIVED: INT, CMQCFC.MQIACH_BUFFERS_SENT: INT, CMQCFC.MQIACH_BYTES_RECEIVED: INT,
    CMQCFC.MQIACH_BYTES_SENT: INT, CMQC.MQIA_MONITORING_CHANNEL: INT, CMQCFC.MQCACH_CHANNEL_START_DATE: STR,
    CMQCFC.MQCACH_CHANNEL_START_TIME: STR, CMQCFC.MQIACH_COMPRESSION_RATE: LIST,
    CMQCFC.MQIACH_COMPRESSION_TIME: LIST, CMQCFC.MQIACH_CURRENT_MSGS: INT, CMQCFC.MQIACH_EXIT_TIME_INDICATOR: LIST,
    CMQCFC.MQIACH_HDR_COMPRESSION: LIST, CMQCFC.MQIACH_HB_INTERVAL: INT, CMQCFC.MQIACH_KEEP_ALIVE_INTERVAL: INT,
    CMQCFC.MQCACH_LAST_MSG_DATE: STR, CMQCFC.MQCACH_LAST_MSG_TIME: STR, CMQCFC.MQCACH_LOCAL_ADDRESS: STR,
    CMQCFC.MQIACH_LONG_RETRIES_LEFT: INT, CMQCFC.MQIACH_MAX_MSG_LENGTH: INT, CMQCFC.MQCACH_MCA_JOB_NAME: STR,
    CMQCFC.MQIACH_MCA_STATUS: INT, CMQCFC.MQCACH_MCA_USER_ID: STR, CMQCFC.MQIACH_MSG_COMPRESSION: LIST,
    CMQCFC.MQIACH_MSGS: INT, CMQCFC.MQIACH_NETWORK_TIME_INDICATOR: LIST, CMQCFC.MQIACH_NPM_SPEED: INT,
    CMQCFC.MQCACH_REMOTE_PRODUCT: STR, CMQCFC.MQCACH_REMOTE_VERSION: STR, CMQCFC.MQIACH_SECURITY_PROTOCOL: INT,
    CMQCFC.MQIACH_SHORT_RETRIES_LEFT: INT, CMQCFC.MQCACH_SSL_CERT_ISSUER_NAME: STR,
    CMQCFC.MQCACH_SSL_CERT_USER_ID: STR, CMQCFC.MQCACH_SSL_CIPHER_SPEC: STR, CMQCFC.MQCACH_SSL_KEY_RESET_DATE: STR,
    CMQCFC.MQIACH_SSL_KEY_RESETS: INT, CMQCFC.MQCACH_SSL_KEY_RESET_TIME: STR,
    CMQCFC.MQCACH_SSL_SHORT_PEER_NAME: STR, CMQCFC.MQIACH_XMITQ_MSGS_AVAILABLE: INT,
    CMQCFC.MQIACH_XMITQ_TIME_INDICATOR: LIST}
SVRCONN_ONLY = (CMQCFC.MQIACH_CURRENT_SHARING_CONVS, CMQCFC.MQIACH_MAX_SHARING_CONVS)


def _inquire(port: int, qmgr: str, instance_type: int, attrs: int = CMQCFC.MQIACF_ALL) -> list[dict]:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    pcf = ibmmq.PCFExecute(qm)
    try:
        return pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL,
                                                CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE: instance_type,
                                                CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS: [attrs]})
    except ibmmq.MQMIError as exc:
        return [{"reason": exc.reason}]
    finally:
        pcf.disconnect()
        qm.disconnect()


def _swept(response: dict, fields: dict) -> None:
    """Every field of ``fields`` is there with its type, and no other."""
    assert set(response) == set(fields), (set(fields) - set(response), set(response) - set(fields))
    wrong = {pid: type(response[pid]) for pid, kind in fields.items() if not isinstance(response[pid], kind)}
    assert wrong == {}


def _text(value: bytes) -> str:
    return value.decode().strip()


async def _batches(server, count: int) -> None:
    """Wait until the sender confirmed ``count`` batches: its commit puts its record on SYNCQ."""
    lot = server.mqi.activity.lot("SYSTEM.CHANNEL.SYNCQ")
    status = server.qm.registry.running.message_channels
    while CHANNEL not in status or status[CHANNEL].batches < count or status[CHANNEL].in_doubt:
        await lot.park()


async def test_every_message_channel_field_current_and_saved_running_and_stopped(tmp_path):
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True), (b"two", True), (b"three", True)])
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await _depth(qm2, "TARGET", 3)
            await _batches(qm1, 1)
        (sender,) = await trio.to_thread.run_sync(_inquire, qm1.port, "QM1", CMQC.MQOT_CURRENT_CHANNEL)
        (receiver,) = await trio.to_thread.run_sync(_inquire, qm2.port, "QM2", CMQC.MQOT_CURRENT_CHANNEL)
        for shown in (sender, receiver):
            _swept(shown, {**ALWAYS, **REQUESTED})
            assert not any(pid in shown for pid in SVRCONN_ONLY)
            assert shown[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_RUNNING
            assert (shown[CMQCFC.MQIACH_MSGS], shown[CMQCFC.MQIACH_BATCHES]) == (3, 1)
            assert (shown[CMQCFC.MQIACH_LAST_SEQ_NUMBER], shown[CMQCFC.MQIACH_CURRENT_SEQ_NUMBER]) == (3, 3)
            assert shown[CMQCFC.MQIACH_INDOUBT_STATUS] == CMQCFC.MQCHIDS_NOT_INDOUBT
            assert shown[CMQCFC.MQIACH_CURRENT_MSGS] == 0
        # Both ends name the same batch: the sender's LUWID is the one the receiver committed.
        luwid = _text(sender[CMQCFC.MQCACH_LAST_LUWID])
        assert len(luwid) == 16 and luwid != "0" * 16
        assert _text(receiver[CMQCFC.MQCACH_LAST_LUWID]) == luwid == _text(receiver[CMQCFC.MQCACH_CURRENT_LUWID])
        assert (_text(sender[CMQC.MQCA_REMOTE_Q_MGR_NAME]), _text(receiver[CMQC.MQCA_REMOTE_Q_MGR_NAME])) == (
            "QM2", "QM1")
        assert sender[CMQCFC.MQIACH_CHANNEL_SUBSTATE] == CMQCFC.MQCHSSTATE_IN_MQGET  # idle on its XMITQ
        assert receiver[CMQCFC.MQIACH_CHANNEL_SUBSTATE] == CMQCFC.MQCHSSTATE_RECEIVING
        assert (sender[CMQCFC.MQIACH_XMITQ_MSGS_AVAILABLE], sender[CMQCFC.MQIACH_NPM_SPEED]) == (0, CMQXC.MQNPMS_FAST)
        assert sender[CMQCFC.MQIACH_BATCH_SIZE] == 50 and _text(sender[CMQCFC.MQCACH_XMIT_Q_NAME]) == "QM2"

        for server, qmgr in ((qm1, "QM1"), (qm2, "QM2")):  # SAVED: what each end committed at the batch's end
            (saved,) = await trio.to_thread.run_sync(_inquire, server.port, qmgr, CMQC.MQOT_SAVED_CHANNEL)
            _swept(saved, {**ALWAYS, **SAVED})
            assert saved[CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE] == CMQC.MQOT_SAVED_CHANNEL
            assert (saved[CMQCFC.MQIACH_LAST_SEQ_NUMBER], _text(saved[CMQCFC.MQCACH_LAST_LUWID])) == (3, luwid)

        _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(1)
        (stopped,) = await trio.to_thread.run_sync(_inquire, qm1.port, "QM1", CMQC.MQOT_CURRENT_CHANNEL)
        _swept(stopped, {**ALWAYS, **REQUESTED})
        assert stopped[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_STOPPED
        assert stopped[CMQCFC.MQIACH_MCA_STATUS] == CMQCFC.MQMCAS_STOPPED
        assert stopped[CMQCFC.MQIACH_LAST_SEQ_NUMBER] == 3
        # MQSC shows the same, and the instance type as runmqsc prints it (CURRENT / SAVED, bare).
        (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL}) ALL")
        o = shown.objects[0]
        assert (o["STATUS"], o["LSTSEQNO"], o["INDOUBT"], o["LSTLUWID"], o["BATCHES"]) == (
            "STOPPED", "3", "NO", luwid, "1"), shown.text
        assert "CURRENT" in " ".join(shown.text)
        (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")
        o = shown.objects[0]
        assert (o["LSTSEQNO"], o["CURSEQNO"], o["CURLUWID"]) == ("3", "3", luwid), shown.text
        assert "SAVED" in " ".join(shown.text) and "MSGS" not in o

    # Saved status is kept across a restart; the current status starts again (none until the channel runs).
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path / "QM2",
                                             "qmgr_name": "QM2"})
    async with running(cfg, synchronous="NORMAL") as qm2:
        (saved,) = await trio.to_thread.run_sync(_inquire, qm2.port, "QM2", CMQC.MQOT_SAVED_CHANNEL)
        assert (saved[CMQCFC.MQIACH_LAST_SEQ_NUMBER], _text(saved[CMQCFC.MQCACH_LAST_LUWID])) == (3, luwid)
        assert saved[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_INACTIVE
        (current,) = await trio.to_thread.run_sync(_inquire, qm2.port, "QM2", CMQC.MQOT_CURRENT_CHANNEL)
        assert current == {"reason": CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND}


async def one_batch_then_discint(qm1, qm2, receiving, ended, *, chlev: str) -> None:
    """CHLEV(``chlev``) at both ends; one message sent, then the channel ends normally at DISCINT(1)."""
    _mqsc(qm1, f"ALTER QMGR CHLEV({chlev})\nALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) DISCINT(1)")
    _mqsc(qm2, f"ALTER QMGR CHLEV({chlev})")
    await trio.to_thread.run_sync(_put, qm1.port, [(b"one", True)])
    _mqsc(qm1, f"START CHANNEL({CHANNEL})")
    with trio.fail_after(30):
        await ended.wait(1)  # DISCINT(1) after its batch: the channel ends normally
        while receiving.served < 1:
            await receiving.done.wait()


async def test_channel_events_at_both_ends_of_a_message_channel(tmp_path):
    """CHLEV(ENABLED): Channel Started when the instance is established (both ends, with the partner's
    address), Channel Stopped (MQRQ_CHANNEL_STOPPED_OK) when it ends normally at DISCINT (both ends)."""
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        await one_batch_then_discint(qm1, qm2, receiving, ended, chlev="ENABLED")
    sent = [(m.header.Reason, values(m)) for _, m in events_on(qm1.qm, E.CHANNEL_QUEUE)]
    got = [(m.header.Reason, values(m)) for _, m in events_on(qm2.qm, E.CHANNEL_QUEUE)]
    where = f"127.0.0.1({receiving.port})"
    # The command's Channel Started, then the established instance's (IBM: "either ... a Start Channel
    # command, or an instance of a channel has been successfully established"), then its normal end.
    assert [reason for reason, _ in sent] == [CMQC.MQRC_CHANNEL_STARTED, CMQC.MQRC_CHANNEL_STARTED,
                                              CMQC.MQRC_CHANNEL_STOPPED]
    assert sent[1][1][CMQCFC.MQCACH_CONNECTION_NAME] == where and sent[1][1][CMQCFC.MQCACH_XMIT_Q_NAME] == "QM2"
    stopped = sent[2][1]
    assert (stopped[CMQCFC.MQIACF_REASON_QUALIFIER], stopped[CMQCFC.MQIACF_ERROR_IDENTIFIER]) == (
        E.MQRQ_CHANNEL_STOPPED_OK, 0)
    assert [reason for reason, _ in got] == [CMQC.MQRC_CHANNEL_STARTED, CMQC.MQRC_CHANNEL_STOPPED]
    assert got[0][1][CMQCFC.MQCACH_CHANNEL_NAME] == CHANNEL
    assert got[1][1][CMQCFC.MQIACF_REASON_QUALIFIER] == E.MQRQ_CHANNEL_STOPPED_OK


async def test_a_sender_that_cannot_reach_its_partner_is_retrying_with_its_retries_left(tmp_path):
    with socket.socket() as unused:  # a port nothing listens on: the connection is refused
        unused.bind(("127.0.0.1", 0))
        dead = unused.getsockname()[1]
    async with two_queue_managers(tmp_path) as (qm1, qm2, receiving, ended):
        _mqsc(qm1, f"""ALTER QMGR CHLEV(ENABLED)
            ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({dead})') SHORTRTY(2) SHORTTMR(3600)""")
        _mqsc(qm1, f"START CHANNEL({CHANNEL})")
        lot = qm1.mqi.activity.lot(E.CHANNEL_QUEUE)
        status = qm1.qm.registry.running.message_channels
        with trio.fail_after(30):  # its Channel Stopped (RETRY) event is put as it starts waiting
            while CHANNEL not in status or status[CHANNEL].status != CMQCFC.MQCHS_RETRYING:
                await lot.park()
        (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL}) ALL")
        o = shown.objects[0]
        assert (o["STATUS"], o["SHORTRTS"], o["LONGRTS"], o["SUBSTATE"], o["MSGS"]) == (
            "RETRYING", "1", "0", "OTHER", "0"), shown.text
        (saved,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")
        assert saved.objects == []  # no batch ever ended: nothing saved
        _mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
        with trio.fail_after(30):
            await ended.wait(1)
        (shown,) = run_mqsc(qm1.qm, f"DISPLAY CHSTATUS({CHANNEL})")
        assert shown.objects[0]["STATUS"] == "STOPPED", shown.text
    reasons = [(m.header.Reason, values(m).get(CMQCFC.MQIACF_REASON_QUALIFIER)) for _, m in
               events_on(qm1.qm, E.CHANNEL_QUEUE)]
    assert reasons[:2] == [(CMQC.MQRC_CHANNEL_STARTED, None), (CMQC.MQRC_CHANNEL_STOPPED, E.MQRQ_CHANNEL_STOPPED_RETRY)]
