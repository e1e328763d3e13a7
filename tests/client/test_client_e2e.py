"""qmlite.client against the real qmlite server on a loopback socket (port 0): connect and security,
MQI round trips, waits, truncation, subscriptions, PCF through ``pcf()``, the sync facade and the
pytest plugin."""

from __future__ import annotations

import importlib.metadata

import pytest
import trio

from qmlite.client.aio import AsyncQueueManager
from qmlite.client.errors import ConnectionBroken, MQIError
from qmlite.client.pytest_plugin import QmliteServer, qmlite_server, qmlite_server_session  # noqa: F401 - fixtures
from qmlite.client.sync import QueueManager
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf import pcf as P
from qmlite.pcf.mqi import MQCHARV, MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO

from tests.support.rawfap import running_server

ADMIN = "DEV.ADMIN.SVRCONN"
APP = "DEV.APP.SVRCONN"
Q1 = "DEV.QUEUE.1"


async def admin(server, **kw) -> AsyncQueueManager:
    return await AsyncQueueManager.connect("127.0.0.1", server.port, ADMIN, "QM1", user="admin",
                                           password="passw0rd", **kw)


def get_opts(wait_ms: int = 0, match: int = 0, extra: int = 0) -> MQGMO:
    options = C.MQGMO_NO_SYNCPOINT | extra | (C.MQGMO_WAIT if wait_ms else C.MQGMO_NO_WAIT)
    return MQGMO(Version=C.MQGMO_VERSION_2, Options=options, WaitInterval=wait_ms, MatchOptions=match)


PUT = MQPMO(Options=C.MQPMO_NO_SYNCPOINT)


# ------------------------------------------------------------------------------------------------
# connect and security
# ------------------------------------------------------------------------------------------------

async def test_admin_with_password_negotiates_fap12_multiplexed(tmp_path):
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            ag = qm.agreement
            # our FAP 13 is lowered to 12 on a password channel: the ERROR-then-accept path
            assert (ag.fap_level, ag.id_rounds, ag.sharing_conversations) == (12, 2, 10)
            assert qm.multiplexed and ag.qmgr_name == "QM1" and ag.max_transmission_size == 32748
            assert qm.connection_id.startswith(b"AMQCQM1")
            await qm.ping()
            assert qm.heartbeats_sent == 1
        assert not qm.connected


async def test_wrong_password_is_2035(tmp_path):
    async with running_server(tmp_path) as server:
        with pytest.raises(MQIError) as info:
            await AsyncQueueManager.connect("127.0.0.1", server.port, ADMIN, "QM1", user="admin", password="nope")
    assert (info.value.comp, info.value.reason) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)


async def test_unknown_channel_is_2540(tmp_path):
    async with running_server(tmp_path) as server:
        with pytest.raises(ConnectionBroken) as info:
            await AsyncQueueManager.connect("127.0.0.1", server.port, "NO.SUCH.SVRCONN")
    assert info.value.reason == C.MQRC_UNKNOWN_CHANNEL_NAME and info.value.status_code == 1


async def test_app_channel_without_password_is_accepted_at_once(tmp_path):
    async with running_server(tmp_path) as server:
        async with await AsyncQueueManager.connect("127.0.0.1", server.port, APP, "QM1") as qm:
            assert qm.agreement.fap_level == 13 and qm.agreement.id_rounds == 1
            hobj, _ = await qm.open(MQOD(ObjectName=Q1), C.MQOO_OUTPUT)
            await qm.close(hobj)


async def test_wrong_queue_manager_name(tmp_path):
    async with running_server(tmp_path) as server:
        with pytest.raises(MQIError) as info:
            await AsyncQueueManager.connect("127.0.0.1", server.port, APP, "QM9")
    assert info.value.reason == C.MQRC_Q_MGR_NAME_ERROR


async def test_not_multiplexed_when_asked_for_zero_sharing(tmp_path):
    async with running_server(tmp_path) as server:
        async with await admin(server, sharing_conversations=0) as qm:
            assert not qm.multiplexed
            await qm.put1(MQOD(ObjectName=Q1), MQMD(), PUT, b"plain TSH")
            hobj, _ = await qm.open(MQOD(ObjectName=Q1), C.MQOO_INPUT_SHARED)
            _, _, data = await qm.get(hobj, MQMD(), get_opts(), 100)
            assert data == b"plain TSH"
            await qm.ping()


# ------------------------------------------------------------------------------------------------
# MQI
# ------------------------------------------------------------------------------------------------

async def test_put_get_round_trip_with_msgid_and_correlid_matching(tmp_path):
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            hobj, od = await qm.open(MQOD(ObjectName=Q1), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
            md1, _ = await qm.put(hobj, MQMD(CorrelId=b"A" * 24, Format=C.MQFMT_STRING), PUT, b"first")
            md2, _ = await qm.put(hobj, MQMD(CorrelId=b"B" * 24), PUT, b"second")
            assert md1.MsgId != bytes(24) and md1.MsgId != md2.MsgId
            gmd, gmo, data = await qm.get(hobj, MQMD(CorrelId=b"B" * 24), get_opts(match=C.MQMO_MATCH_CORREL_ID), 100)
            assert (data, gmd.MsgId, gmd.CorrelId) == (b"second", md2.MsgId, b"B" * 24)
            gmd, _, data = await qm.get(hobj, MQMD(MsgId=md1.MsgId), get_opts(match=C.MQMO_MATCH_MSG_ID), 100)
            assert (data, gmd.Format) == (b"first", C.MQFMT_STRING.rstrip())
            with pytest.raises(MQIError) as info:
                await qm.get(hobj, MQMD(), get_opts(), 100)
            assert info.value.reason == C.MQRC_NO_MSG_AVAILABLE
            await qm.close(hobj)
            with pytest.raises(MQIError) as info:
                await qm.put(hobj, MQMD(), PUT, b"x")
            assert info.value.reason == C.MQRC_HOBJ_ERROR
            assert qm.connected


async def test_get_wait_without_message_is_2033(tmp_path):
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            hobj, _ = await qm.open(MQOD(ObjectName=Q1), C.MQOO_INPUT_SHARED)
            with pytest.raises(MQIError) as info:
                await qm.get(hobj, MQMD(), get_opts(wait_ms=50), 100)
            assert (info.value.comp, info.value.reason) == (2, C.MQRC_NO_MSG_AVAILABLE)
            assert qm.connected


async def test_server_answers_our_heartbeat_probe_during_a_waiting_get(tmp_path):
    from qmlite.server.config import ChannelConfig

    # HeartbeatInterval 1 s on the channel: a 1.5 s wait makes the client probe once mid-GET
    async with running_server(tmp_path, channels=(ChannelConfig(APP, heartbeat_interval=1),)) as server:
        async with await AsyncQueueManager.connect("127.0.0.1", server.port, APP, "QM1") as qm:
            assert qm.agreement.heartbeat_interval == 1
            hobj, _ = await qm.open(MQOD(ObjectName=Q1), C.MQOO_INPUT_SHARED)
            with pytest.raises(MQIError) as info:
                await qm.get(hobj, MQMD(), get_opts(wait_ms=1500), 100)
            assert info.value.reason == C.MQRC_NO_MSG_AVAILABLE
            assert qm.heartbeats_sent >= 1 and qm.connected


async def test_waiting_get_is_satisfied_by_a_put_from_another_connection(tmp_path):
    async with running_server(tmp_path) as server:
        async with await admin(server) as getter, await admin(server) as putter:
            hin, _ = await getter.open(MQOD(ObjectName=Q1), C.MQOO_INPUT_SHARED)
            got = {}

            async def wait_for_it():
                got["msg"] = await getter.get(hin, MQMD(), get_opts(wait_ms=30000), 100)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(wait_for_it)
                await putter.put1(MQOD(ObjectName=Q1), MQMD(), PUT, b"wake up")
            assert got["msg"][2] == b"wake up"


async def test_truncation_2080_keeps_the_message_and_2079_removes_it(tmp_path):
    payload = bytes(range(256)) * 4
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            hobj, _ = await qm.open(MQOD(ObjectName=Q1), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
            put_md, _ = await qm.put(hobj, MQMD(), PUT, payload)
            with pytest.raises(MQIError) as info:
                await qm.get(hobj, MQMD(), get_opts(), 10)
            exc = info.value
            assert (exc.comp, exc.reason, exc.data_length) == (1, C.MQRC_TRUNCATED_MSG_FAILED, 1024)
            assert exc.md.MsgId == put_md.MsgId and exc.gmo is not None
            assert len(exc.data) <= 10
            # retry the way ibmmq does: the returned MD and the full length
            gmd, _, data = await qm.get(hobj, exc.md, get_opts(match=C.MQMO_MATCH_MSG_ID), exc.data_length)
            assert data == payload and gmd.MsgId == put_md.MsgId

            await qm.put(hobj, MQMD(), PUT, payload)
            with pytest.raises(MQIError) as info:
                await qm.get(hobj, MQMD(), get_opts(extra=C.MQGMO_ACCEPT_TRUNCATED_MSG), 10)
            assert (info.value.comp, info.value.reason) == (1, C.MQRC_TRUNCATED_MSG_ACCEPTED)
            assert info.value.data == payload[:10] and info.value.data_length == 1024
            with pytest.raises(MQIError) as info:
                await qm.get(hobj, MQMD(), get_opts(), 2000)
            assert info.value.reason == C.MQRC_NO_MSG_AVAILABLE


async def test_large_message_crosses_segments_both_ways(tmp_path):
    payload = bytes(range(251)) * 1000  # 251000 bytes: 8 segments each way
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            hobj, _ = await qm.open(MQOD(ObjectName=Q1), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
            await qm.put(hobj, MQMD(), PUT, payload)
            _, _, data = await qm.get(hobj, MQMD(), get_opts(), len(payload))
            assert data == payload


async def test_model_queue_open_returns_the_dynamic_name_and_inq(tmp_path):
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            hobj, od = await qm.open(MQOD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName="MYAPP.*"),
                                     C.MQOO_INPUT_EXCLUSIVE)
            assert od.ObjectName.startswith("MYAPP.") and len(od.ObjectName) > len("MYAPP.")
            await qm.put1(MQOD(ObjectName=od.ObjectName), MQMD(), PUT, b"to the dynamic queue")
            _, _, data = await qm.get(hobj, MQMD(), get_opts(), 100)
            assert data == b"to the dynamic queue"
            hq, _ = await qm.open(MQOD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
            ints, chars = await qm.inq(hq, [C.MQIA_COMMAND_LEVEL, C.MQCA_Q_MGR_NAME], 1, 48)
            assert ints[0] >= 900 and chars.rstrip() == "QM1"
            await qm.cmit()
            await qm.back()


async def test_managed_subscription_receives_a_publication(tmp_path):
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            sd = MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE,
                      ObjectString=MQCHARV("client/test/price"), ResObjectString=MQCHARV("", VSBufSize=256))
            hsub, hobj, rsd = await qm.sub(sd)
            assert hsub not in (0, -1) and hobj not in (0, -1)
            assert rsd.ResObjectString.VSString == "client/test/price"
            htopic, _ = await qm.open(MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC,
                                           ObjectString=MQCHARV("client/test/price")), C.MQOO_OUTPUT)
            await qm.put(htopic, MQMD(), PUT, b"42")
            _, _, data = await qm.get(hobj, MQMD(), get_opts(wait_ms=5000), 100)
            assert data == b"42"
            with pytest.raises(MQIError) as info:  # IBM: only an on-request subscription may ask
                await qm.subrq(hsub, C.MQSR_ACTION_PUBLICATION, MQSRO())
            assert info.value.reason == C.MQRC_OPTIONS_ERROR
            await qm.close(hsub, C.MQCO_REMOVE_SUB)


# ------------------------------------------------------------------------------------------------
# PCF
# ------------------------------------------------------------------------------------------------

async def test_pcf_inquire_q_mgr(tmp_path):
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            responses = await qm.pcf(C.MQCMD_INQUIRE_Q_MGR, [])
            assert len(responses) == 1
            head = responses[0].header
            assert (head.Type, head.Command, head.Control, head.CompCode) == (C.MQCFT_RESPONSE, C.MQCMD_INQUIRE_Q_MGR,
                                                                            C.MQCFC_LAST, 0)
            assert responses[0].get(C.MQCA_Q_MGR_NAME).value.rstrip() == "QM1"
            # the reply queue is made once and reused
            first_reply_q = qm._pcf_reply_q
            await qm.pcf(C.MQCMD_INQUIRE_Q_MGR, [P.CFIL(C.MQIACF_Q_MGR_ATTRS, [C.MQCA_Q_MGR_NAME])])
            assert qm._pcf_reply_q == first_reply_q


async def test_pcf_subscription_create_inquire_delete(tmp_path):
    name = "CLIENT.SUB.A"
    topic = "client/" + "t" * 6000  # the Inquire response is bigger than the first 4096-byte buffer
    async with running_server(tmp_path) as server:
        async with await admin(server) as qm:
            create = [P.CFST(C.MQCACF_SUB_NAME, name), P.CFST(C.MQCA_TOPIC_STRING, topic),
                      P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED)]
            assert await qm.pcf(C.MQCMD_CREATE_SUBSCRIPTION, create) != []
            with pytest.raises(MQIError) as info:
                await qm.pcf(C.MQCMD_CREATE_SUBSCRIPTION, create)
            # the specific reason of the first failed response, not the trailing 3008
            assert info.value.reason == C.MQRCCF_SUB_ALREADY_EXISTS
            assert info.value.responses[-1].header.Control == C.MQCFC_LAST
            assert info.value.responses[-1].header.Reason == C.MQRCCF_COMMAND_FAILED
            # everything up to LAST was read: the reply queue is empty
            _hobj, reply_q = qm._pcf_reply_q
            depth = await qm.pcf(C.MQCMD_INQUIRE_Q, [P.CFST(C.MQCA_Q_NAME, reply_q),
                                                     P.CFIL(C.MQIACF_Q_ATTRS, [C.MQIA_CURRENT_Q_DEPTH])])
            assert depth[0].get(C.MQIA_CURRENT_Q_DEPTH).value == 0

            gets = []
            real_call = qm._call_locked

            async def counting_call(call):
                reply = await real_call(call)
                if call.segment_type == fap.MQGET:
                    gets.append(reply.api.Reason)
                return reply

            qm._call_locked = counting_call
            found = await qm.pcf(C.MQCMD_INQUIRE_SUBSCRIPTION,
                                 [P.CFST(C.MQCACF_SUB_NAME, name), P.CFIL(C.MQIACF_SUB_ATTRS, [C.MQIACF_ALL])])
            assert gets == [C.MQRC_TRUNCATED_MSG_FAILED, 0]  # 4096 was too small: retried at full length
            assert len(found) == 1
            assert found[0].get(C.MQCA_TOPIC_STRING).value.rstrip(" \0") == topic
            sub_id = found[0].get(C.MQBACF_SUB_ID).value
            assert len(sub_id) == 24
            await qm.pcf(C.MQCMD_DELETE_SUBSCRIPTION, [P.CFBS(C.MQBACF_SUB_ID, sub_id)])
            with pytest.raises(MQIError) as info:
                await qm.pcf(C.MQCMD_INQUIRE_SUBSCRIPTION, [P.CFST(C.MQCACF_SUB_NAME, name)])
            assert info.value.reason == C.MQRC_NO_SUBSCRIPTION


# ------------------------------------------------------------------------------------------------
# sync facade and pytest plugin
# ------------------------------------------------------------------------------------------------

def test_plugin_fixture_and_sync_facade(qmlite_server):
    s = qmlite_server
    assert isinstance(s, QmliteServer)
    assert (s.host, s.qmgr, s.admin_channel, s.app_channel) == ("127.0.0.1", "QM1", ADMIN, APP)
    assert (s.admin_user, s.admin_password, s.app_user) == ("admin", "passw0rd", "app")
    assert s.conn_name == f"127.0.0.1({s.port})" and s.port > 0
    with QueueManager.connect(s.host, s.port, s.admin_channel, s.qmgr, user=s.admin_user,
                              password=s.admin_password) as qm:
        assert qm.connected and qm.agreement.fap_level == 12
        hobj, _ = qm.open(MQOD(ObjectName=Q1), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        put_md, _ = qm.put(hobj, MQMD(), PUT, b"sync")
        md, _, data = qm.get(hobj, MQMD(), get_opts(), 100)
        assert data == b"sync" and md.MsgId == put_md.MsgId
        with pytest.raises(MQIError) as info:
            qm.get(hobj, MQMD(), get_opts(wait_ms=20), 100)
        assert info.value.reason == C.MQRC_NO_MSG_AVAILABLE
        qm.close(hobj)  # MQCLOSE, the connection stays
        responses = qm.pcf(C.MQCMD_INQUIRE_Q_MGR, [])
        assert responses[0].get(C.MQCA_Q_MGR_NAME).value.rstrip() == "QM1"
        qm.ping()
    assert not qm.connected
    with pytest.raises(MQIError) as info:
        qm.put1(MQOD(ObjectName=Q1), MQMD(), PUT, b"after")
    assert info.value.reason == C.MQRC_HCONN_ERROR
    qm.close()  # idempotent


def test_sync_connect_errors_stop_their_thread(qmlite_server):
    import threading

    before = {t.name for t in threading.enumerate()}
    with pytest.raises(MQIError) as info:
        QueueManager.connect(qmlite_server.host, qmlite_server.port, ADMIN, user="admin", password="bad")
    assert info.value.reason == C.MQRC_NOT_AUTHORIZED
    leftover = {t.name for t in threading.enumerate()} - before
    assert not any(name.startswith("qmlite-client") for name in leftover)


def test_plugin_connect_helper_and_app_channel(qmlite_server):
    with qmlite_server.connect() as qm:
        assert qm.agreement.fap_level == 12
    with qmlite_server.connect(qmlite_server.app_channel) as qm:
        assert qm.agreement.fap_level == 13


def test_plugin_is_registered_as_pytest11_entry_point(request):
    eps = importlib.metadata.entry_points(group="pytest11")
    assert any(ep.name == "qmlite" and ep.value == "qmlite.client.pytest_plugin" for ep in eps)
    plugin = request.config.pluginmanager.get_plugin("qmlite")
    assert plugin is not None and plugin.__name__ == "qmlite.client.pytest_plugin"


def test_sync_queue_manager_shared_by_threads(qmlite_server_session):
    import threading

    errors = []
    with qmlite_server_session.connect() as qm:
        hobj, _ = qm.open(MQOD(ObjectName="DEV.QUEUE.3"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)

        def worker(n: int) -> None:
            try:
                tag = bytes([65 + n]) * 24
                for i in range(5):
                    qm.put(hobj, MQMD(CorrelId=tag), PUT, b"%d-%d" % (n, i))
                    _, _, data = qm.get(hobj, MQMD(CorrelId=tag), get_opts(match=C.MQMO_MATCH_CORREL_ID), 100)
                    assert data == b"%d-%d" % (n, i)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        with pytest.raises(MQIError) as info:
            qm.get(hobj, MQMD(), get_opts(), 100)
        assert info.value.reason == C.MQRC_NO_MSG_AVAILABLE
