"""A sender idle on its transmission queue while an application's put to it is not committed (issue 34,
decision MCG1): the put counts in the queue's depth but no get can take it, so the agent must wait for
the commit, not go round its loop.  A separate ``qmlite serve`` hosts QM1 and QM2 on a virtual clock, so
a server that stopped answering fails the test (each client call has a deadline) instead of hanging it."""

from __future__ import annotations

import queue
import threading
import types

import pytest

from tests.client.test_ecosystem import _depth
from tests.server.mca.test_cluster import _escape
from tests.server.mca.test_mqport import ADMIN, CHANNEL, RECEIVING, _get
from tests.support.served import Served

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC  # noqa: E402


def _within(seconds: float, fn, *args):
    """``fn(*args)`` in a thread of its own: its result, or AssertionError when the server does not let it
    finish in ``seconds`` (the thread is left to fail when the test's teardown kills the server)."""
    out: queue.Queue = queue.Queue()

    def call() -> None:
        try:
            out.put((True, fn(*args)))
        except BaseException as exc:  # handed to the test
            out.put((False, exc))

    threading.Thread(target=call, daemon=True).start()
    try:
        ok, value = out.get(timeout=seconds)
    except queue.Empty:
        raise AssertionError(f"the server did not answer {fn.__name__} within {seconds} s") from None
    if not ok:
        raise value
    return value


@pytest.fixture
def served(tmp_path):
    server = Served(tmp_path / "data", "--qmgr", "QM1", "--qmgr", "QM2", "--clock", "virtual")
    try:
        yield server
    finally:
        Served.reap_all()


def _inquire_depth(port: int, name: str) -> int:
    """QM1's CURDEPTH of ``name`` through ibmmq's MQINQ (test_ecosystem.py's, given the port's CONNAME)."""
    return _depth(types.SimpleNamespace(conn_name=f"127.0.0.1({port})"), name)


def test_an_uncommitted_put_to_the_xmitq_leaves_the_server_answering_and_goes_at_its_commit(served):
    port = served.port
    _within(60, _escape, port, "QM2", RECEIVING)
    _within(60, _escape, port, "QM1", f"""
        DEFINE QLOCAL(QM2) USAGE(XMITQ)
        DEFINE QREMOTE(TO.QM2) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) DISCINT(0)
        START CHANNEL({CHANNEL})""")
    app = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)  # left to the server's end
    remote = ibmmq.Queue(app, "TO.QM2")
    remote.put(b"first", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert _within(60, _get, port, 1) == [(b"first", CMQC.MQPER_PERSISTENT)]  # running, now idle

    remote.put(b"held", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    # Any move of the virtual clock wakes the idle sender (its heartbeat wait): it finds the depth at 1.
    _within(60, _escape, port, "QM1", "SET QMLITE CLOCK(ADVANCE) SECONDS(1)")
    assert _within(30, _inquire_depth, port, "QM2") == 1  # another client is answered: no spin

    app.commit()
    assert _within(60, _get, port, 1) == [(b"held", CMQC.MQPER_PERSISTENT)]
    assert _within(30, _inquire_depth, port, "QM2") == 0
    remote.close()
    _within(30, app.disconnect)
