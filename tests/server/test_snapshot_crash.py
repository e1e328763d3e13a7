"""A restore is durable and whole, proved by SIGKILL against a real ``qmlite serve`` process: killed
right after ``RESET QMLITE SNAPSHOT`` replied, the data directory holds exactly the snapshot's
persistent state; killed while the restore may still be running (its reply not read), it holds either
the state before or the state after -- never a mix.  The reply is the only synchronisation."""

from __future__ import annotations

import pytest

from qmlite.client.mqsc import ServerTarget
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf.mqi import MQMD, MQOD, MQPMO
from qmlite.registry.qmgr import QueueManager
from tests.support.served import ADMIN_CHANNEL, ADMIN_PASSWORD, ADMIN_USER, Served

QUEUES = 8
PER_QUEUE = 20


@pytest.fixture(autouse=True)
def _reap():
    yield
    Served.reap_all()


def _mqsc(served: Served, text: str) -> list:
    target = ServerTarget("127.0.0.1", served.port, ADMIN_CHANNEL, ADMIN_USER, ADMIN_PASSWORD, served.qmgr)
    try:
        results = target.run(text)
    finally:
        target.close()
    assert all(r.completion_code == C.MQCC_OK for r in results), [r.text for r in results if r.completion_code]
    return results


def _fill(served: Served, prefix: str, tag: bytes) -> None:
    _mqsc(served, "\n".join(f"DEFINE QLOCAL({prefix}.{n}) REPLACE" for n in range(QUEUES)))
    qm = served.connect()
    try:
        for n in range(QUEUES):
            hobj, _ = qm.open(MQOD(ObjectName=f"{prefix}.{n}"), C.MQOO_OUTPUT)
            for i in range(PER_QUEUE):
                qm.put(hobj, MQMD(Persistence=C.MQPER_PERSISTENT), MQPMO(Options=C.MQPMO_NO_SYNCPOINT),
                       b"%s-%d-%d" % (tag, n, i))
            qm.close(hobj)
    finally:
        qm.disc()


def _on_disk(data_dir) -> dict:
    """Queue name -> message bodies in order (the user's queues only) and the queue manager's DESCR."""
    qm = QueueManager.open(data_dir, synchronous="NORMAL")
    try:
        reg = qm.registry
        queues = {name: [m.data for m in reg.messages.contents(name)]
                  for name in sorted(reg.queues) if name.startswith(("BASE.", "LATER."))}
        return {"queues": queues, "descr": reg.qmgr.description}
    finally:
        qm.shutdown()


@pytest.mark.parametrize("wait_for_reply", [True, False])
def test_sigkill_after_a_restore_never_leaves_a_mix(tmp_path, wait_for_reply):
    data_dir = tmp_path / "data"
    served = Served(data_dir)
    _mqsc(served, "ALTER QMGR DESCR('saved')")
    _fill(served, "BASE", b"base")
    _mqsc(served, "SET QMLITE SNAPSHOT(BASE)")
    _mqsc(served, "RESET QMLITE\nALTER QMGR DESCR('later')")
    _fill(served, "LATER", b"later")
    expected_after = {"queues": {f"BASE.{n}": [b"base-%d-%d" % (n, i) for i in range(PER_QUEUE)]
                                 for n in range(QUEUES)}, "descr": "saved"}
    qm = served.connect()
    params = [P.CFIN(C.MQIACF_ESCAPE_TYPE, C.MQET_MQSC), P.CFST(C.MQCACF_ESCAPE_TEXT, "RESET QMLITE SNAPSHOT(BASE)")]
    if wait_for_reply:
        [reply] = qm.pcf(C.MQCMD_ESCAPE, params, wait_ms=30_000)
        assert reply.header.CompCode == C.MQCC_OK
        served.kill()
        assert _on_disk(data_dir) == expected_after
    else:
        # The request is on the command queue (a put acknowledged); the kill may land before, during
        # or after the restore: all of it or none of it is on disk.
        hobj, _ = qm.open(MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"), C.MQOO_OUTPUT)
        request = P.encode(P.PCFMessage(P.CFH(Type=C.MQCFT_COMMAND, StrucLength=36, Version=1,
                                              Command=C.MQCMD_ESCAPE, MsgSeqNumber=1, Control=C.MQCFC_LAST,
                                              ParameterCount=2), params), C.MQENC_NATIVE)
        qm.put(hobj, MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ="DEV.QUEUE.1"),
               MQPMO(Options=C.MQPMO_NO_SYNCPOINT), request)
        served.kill()
        found = _on_disk(data_dir)
        expected_before = {"queues": {f"LATER.{n}": [b"later-%d-%d" % (n, i) for i in range(PER_QUEUE)]
                                      for n in range(QUEUES)}, "descr": "later"}
        assert found in (expected_before, expected_after)
