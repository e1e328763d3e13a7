"""How the queue manager ends client connections: as ``endmqm`` (STATUS QM_TERMINATING: reconnectable
clients stay away) or as ``endmqm -r`` (SOCKET_ACTION RECONNECT_CLIENTS naming the queue manager: they
come back) -- through the pytest fixture and through ``qmlite serve``'s signals (SIGTERM, SIGUSR1)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from qmlite.client import reconnect as RC
from qmlite.client.channel import ClientChannel
from qmlite.client.errors import ConnectionBroken
from qmlite.client.protocol import ConnectOptions
from qmlite.client.pytest_plugin import running_qmlite
from qmlite.pcf import constants as C
from qmlite.pcf import fap


@pytest.fixture
def server(tmp_path):
    with running_qmlite(tmp_path / "qm") as srv:
        yield srv


@pytest.mark.parametrize("reconnect,status_code,again", [(True, None, True), (False, fap.QM_TERMINATING, False)])
@pytest.mark.parametrize("sharecnv", [10, 0])
def test_each_ending_as_the_client_sees_it(server, reconnect, status_code, again, sharecnv):
    qm = server.connect(sharing_conversations=sharecnv)
    server.stop(reconnect=reconnect)
    with pytest.raises(ConnectionBroken) as info:
        qm.inq(0, [C.MQCA_Q_MGR_NAME], 0, 48)
    assert info.value.reason == C.MQRC_CONNECTION_BROKEN
    assert info.value.status_code == status_code
    assert RC.reconnectable(info.value) is again
    qm.abort()
    server.start()
    with server.connect() as fresh:  # the same port and data
        assert fresh.agreement.qmgr_name == "QM1"


def test_reconnect_request_on_the_wire_names_the_queue_manager(server):
    """A multiplexed conversation gets SOCKET_ACTION type 9 in TSHM on its conversation, with the
    queue manager's name and QMID (the reconnect variant of the body)."""
    qm = server.connect()
    seen = []
    orig = ClientChannel._reconnect_requested

    def spy(seg):
        seen.append((seg.header.StructId, seg.header.ConversationId,
                     fap.SocketAction.unpack(seg.body, 0, seg.order)[0]))
        return orig(seg)

    ClientChannel._reconnect_requested = staticmethod(spy)
    try:
        qmid = qm.agreement.qmgr_id
        server.stop(reconnect=True)
        with pytest.raises(ConnectionBroken):
            qm.inq(0, [C.MQCA_Q_MGR_NAME], 0, 48)
    finally:
        ClientChannel._reconnect_requested = staticmethod(orig)
        qm.abort()
    (sid, conv, action), = seen
    assert (sid, conv, action.Type) == (fap.TSHM, 1, fap.SA_RECONNECT_CLIENTS)
    assert (action.QMgrName, action.QMgrId) == ("QM1", qmid)


def test_a_non_reconnect_socket_action_is_ignored():
    from qmlite.client.channel import State

    ch = ClientChannel(ConnectOptions(channel="X"))
    ch.state = State.CONNECTED
    for kind in (fap.SA_START_CONV, fap.SA_END_CONV, fap.SA_QM_QUIESCE, fap.SA_ACCEPT_CONV):
        seg = fap.Segment(fap.SegmentHeader("TSHM", 0, 1, 0, 2, fap.SOCKET_ACTION, 0, 0, bytes(8), 546, 819, 0),
                          fap.SocketAction(1, 0, kind, 0, 0).pack(fap.LITTLE))
        assert ch._handle(seg) is None and not ch.closed
    seg = fap.Segment(fap.SegmentHeader("TSHM", 0, 1, 0, 2, fap.SOCKET_ACTION, 0, 0, bytes(8), 546, 819, 0),
                      fap.SocketAction(1, 0, fap.SA_RECONNECT_CLIENTS, 0, 0).pack(fap.LITTLE))
    ch._handle(seg)
    assert ch.closed and ch.error.reason == C.MQRC_CONNECTION_BROKEN and ch.error.status_code is None


@pytest.mark.parametrize("sig,reconnect", [(signal.SIGTERM, False), (signal.SIGUSR1, True)])
def test_qmlite_serve_signals(tmp_path, sig, reconnect):
    proc = subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--log-json", "--data-dir",
                             str(tmp_path / "data")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        port = int(line.split("127.0.0.1:")[1].split()[0])
        from qmlite.client.sync import QueueManager

        qm = QueueManager.connect("127.0.0.1", port, "DEV.ADMIN.SVRCONN", "QM1", user="admin", password="passw0rd")
        from qmlite.pcf.mqi import MQGMO, MQMD, MQOD

        hobj, _ = qm.open(MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_INPUT_SHARED)
        proc.send_signal(sig)
        with pytest.raises(ConnectionBroken) as info:  # waiting in MQGET when the queue manager ends
            qm.get(hobj, MQMD(), MQGMO(Options=C.MQGMO_WAIT, WaitInterval=60000), 100)
        qm.abort()
        assert RC.reconnectable(info.value) is reconnect
        assert proc.wait(timeout=30) == 0
        logs = proc.stderr.read()
        assert f'"reconnect_clients": {str(reconnect).lower()}' in logs
    finally:
        proc.kill()
        proc.wait()
