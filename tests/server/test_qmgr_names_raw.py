"""Queue-manager names an MQ client library would not send (it strips or refuses them), sent byte by byte
in the ID exchange and MQCONN: nothing is created, the answer is 2058, the server serves on; and the
QMID a pending queue manager's ID exchange announces is the one it has once created (decisions NM3, NM5)."""

from __future__ import annotations

import pytest

from qmlite.pcf import fap
from qmlite.pcf import constants as C

from tests.support.rawfap import RawPeer, id_naming, mqconn_naming, mqi_call, running_server

async def _session(server, raw_name: bytes, password: str | None = "passw0rd") -> tuple[RawPeer, fap.InitialData]:
    """ID exchange naming ``raw_name`` (accepted in one round: our values are the server's), then the
    user's UID and CAUT on conversation 1."""
    peer = await RawPeer.connect(server)
    await peer.send(id_naming(raw_name))
    seg = await peer.receive()
    assert seg.header.SegmentType == fap.INITIAL_DATA and not seg.header.ControlFlags1 & fap.CF1_ERROR
    theirs = fap.decode_body(seg)
    peer.sid = fap.TSHM if theirs.SharingConversations else fap.TSH
    conv = 1 if peer.sid == fap.TSHM else 0
    await peer.send(fap.encode_segment(fap.USERID_DATA, fap.UserIdData(UserIdentifier="admin").pack(fap.LITTLE),
                                       struct_id=peer.sid, conversation_id=conv))
    if password is not None:
        caut = fap.ConAuthInfo(UserIdMaxLength=1024, PasswordMaxLength=1024, UserId="admin", Password=password.encode())
        await peer.send(fap.encode_segment(fap.CONAUTH_INFO, caut.pack(fap.LITTLE), struct_id=peer.sid,
                                           conversation_id=conv))
        assert (await peer.receive()).header.SegmentType == fap.STATUS_DATA
    return peer, theirs


async def _mqconn(peer: RawPeer, raw_name: bytes) -> int:
    api, _ = await mqi_call(peer, fap.MQCONN, mqconn_naming(raw_name))
    return api.Reason


def _hosted(server) -> list[str]:
    return server.qmgrs.names()


@pytest.mark.parametrize("raw_name", [b"TEST\n", b"\tTEST", b"TEST\r\n", b"..", b".", b"TE\x00ST", b"\xff" * 48,
                                      b"TEST" + b"\x01" * 44])
async def test_names_no_client_library_sends_are_2058_and_create_nothing(tmp_path, raw_name):
    async with running_server(tmp_path, create_on_connect="*") as server:
        peer, theirs = await _session(server, raw_name)
        assert theirs.QMgrName == "QM1"  # not pending: the default answered the ID
        assert await _mqconn(peer, raw_name) == C.MQRC_Q_MGR_NAME_ERROR
        await peer.aclose()
        assert _hosted(server) == ["QM1"] and not (tmp_path / "qmgrs").exists()
        peer, _ = await _session(server, b"QM1")  # and the server serves on
        assert await _mqconn(peer, b"QM1") == 0


async def test_a_pending_queue_manager_is_created_only_by_an_authenticated_mqconn(tmp_path):
    name = "TEST" + "Q" * 40  # 44 characters: its QMID keeps 28 of them
    async with running_server(tmp_path, create_on_connect="TEST*") as server:
        for password in (None, "wrong"):
            peer, theirs = await _session(server, name.encode(), password)
            assert theirs.QMgrName == name and len(theirs.QMgrId) <= 48
            assert await _mqconn(peer, name.encode()) == C.MQRC_NOT_AUTHORIZED
            await peer.aclose()
        assert _hosted(server) == ["QM1"] and not (tmp_path / "qmgrs").exists()
        peer, theirs = await _session(server, name.encode())
        promised = theirs.QMgrId
        assert promised == f"{name[:28]}_{promised[-19:]}"
        assert await _mqconn(peer, b"TESTOTHER") == C.MQRC_Q_MGR_NAME_ERROR  # MQCONN must name what the ID did
        assert _hosted(server) == ["QM1"]
        assert await _mqconn(peer, name.encode()) == 0
        created = server.qmgrs.get(name)
        assert created is not None and created.registry.qmgr.identifier == promised
        assert (tmp_path / "qmgrs" / name / "qmlite.db").is_file()
        [instance] = created.registry.running.instances.values()  # the channel instance moved with it
        assert instance.channel == "DEV.ADMIN.SVRCONN" and instance.bytes_received > 0
        assert not server.registry.running.instances
        await peer.aclose()
