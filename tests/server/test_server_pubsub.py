"""MQSUB/MQSUBRQ and publications routed by subscriptions, over a real socket."""

from __future__ import annotations

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.registry.objects.definitions import Subscription

from tests.support.rawfap import RawPeer, connect_mq, handshake, mqi_call, running_server

LE = fap.LITTLE


async def _session(server) -> RawPeer:
    peer = await RawPeer.connect(server)
    await handshake(peer)
    assert (await connect_mq(peer)).Reason == 0
    return peer


async def _subscribe(peer, topic: str, options: int, name: str = "", hobj: int = 0):
    sd = mqi.MQSD(Options=options, ObjectString=mqi.MQCHARV(topic), SubName=mqi.MQCHARV(name),
                  ResObjectString=mqi.MQCHARV("", 256))
    api, data = await mqi_call(peer, fap.MQSUB, calls.MQSubRequest(0, 0, sd).pack(LE), hobj=hobj)
    reply = calls.MQSubReply.unpack(data, 0, LE)[0] if api.CompCode == 0 else None
    return api, reply


async def _publish(peer, topic: str, payload: bytes, **pmo_fields) -> fap.ApiHeader:
    od = mqi.MQOD(Version=4, ObjectType=C.MQOT_TOPIC, ObjectString=mqi.MQCHARV(topic))
    put1 = calls.MQPut1Request(od, mqi.MQMD(Format="MQSTR"), mqi.MQPMO(Version=2, **pmo_fields), payload)
    api, _ = await mqi_call(peer, fap.MQPUT1, put1.pack(LE), hobj=-1)
    return api


async def _get(peer, hobj: int, buffer: int = 1000):
    req = calls.MQGetRequest(mqi.MQMD(), mqi.MQGMO(Version=2, MatchOptions=0), buffer)
    api, data = await mqi_call(peer, fap.MQGET, req.pack(LE), hobj=hobj)
    return api, (calls.MQGetReply.unpack(data, 0, LE)[0] if api.CompCode == 0 else None)


async def test_managed_non_durable_subscription_receives_publications(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await _session(server)
        api, reply = await _subscribe(peer, "dev/prices/#", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE)
        assert api.CompCode == 0 and api.Hobj > 0 and reply.Hsub > 0
        assert reply.SubDesc.ResObjectString.VSString == "dev/prices/#"
        managed = api.Hobj
        assert (await _publish(peer, "dev/prices/apples", b"1.20")).CompCode == 0
        assert (await _publish(peer, "dev/other", b"nope")).CompCode == 0
        api, got = await _get(peer, managed)
        assert api.CompCode == 0 and got.Data == b"1.20"
        assert got.MsgDesc.CorrelId == reply.SubDesc.SubCorrelId and got.MsgDesc.CorrelId.startswith(b"AMQ QM1")
        api, _ = await _get(peer, managed)
        assert api.Reason == C.MQRC_NO_MSG_AVAILABLE  # the other topic was not delivered
        queue = next(q for q in server.registry.queues if q.startswith("SYSTEM.MANAGED.NDURABLE."))
        api, _ = await mqi_call(peer, fap.MQCLOSE, calls.MQCloseRequest(0).pack(LE), hobj=reply.Hsub)
        assert api.CompCode == 0
        assert not any(s.durable == C.MQSUB_DURABLE_NO for s in server.registry.subs.values())
        assert queue not in server.registry.queues


async def test_durable_subscription_survives_close_and_resumes(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await _session(server)
        opts = C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE
        api, reply = await _subscribe(peer, "dev/news", opts, name="NEWS.SUB")
        assert api.CompCode == 0
        api, _ = await mqi_call(peer, fap.MQCLOSE, calls.MQCloseRequest(C.MQCO_KEEP_SUB).pack(LE), hobj=reply.Hsub)
        assert "NEWS.SUB" in server.registry.subs
        assert (await _publish(peer, "dev/news", b"kept while away")).CompCode == 0
        api, _ = await _subscribe(peer, "dev/news", opts, name="NEWS.SUB")
        assert (api.CompCode, api.Reason) == (C.MQCC_FAILED, C.MQRC_SUB_ALREADY_EXISTS)
        api, reply = await _subscribe(peer, "dev/news", C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED,
                                      name="NEWS.SUB")
        assert api.CompCode == 0
        api, got = await _get(peer, api.Hobj)
        assert got.Data == b"kept while away"
        api, _ = await _subscribe(peer, "dev/news", C.MQSO_RESUME | C.MQSO_DURABLE, name="NO.SUCH")
        assert api.Reason == C.MQRC_NO_SUBSCRIPTION


async def test_admin_subscription_routes_to_its_provided_queue_with_sub_id_as_correl_id(tmp_path):
    async with running_server(tmp_path) as server:
        reg = server.registry
        sub = Subscription("ADMIN.SUB", reg.ids.sub_id(), topic_string="fruit/+", resolved_topic="fruit/+",
                           destination="DEV.QUEUE.3", destination_qmgr="QM1")
        sub.destination_correl_id = sub.sub_id
        reg.put_sub(sub)
        reg.commit()
        peer = await _session(server)
        assert (await _publish(peer, "fruit/pears", b"pear")).CompCode == 0
        assert (await _publish(peer, "fruit/pears/ripe", b"too deep")).CompCode == 0
        api = await _publish(peer, "veg", b"none", Options=C.MQPMO_WARN_IF_NO_SUBS_MATCHED)
        assert (api.CompCode, api.Reason) == (C.MQCC_WARNING, C.MQRC_NO_SUBS_MATCHED)
        contents = list(reg.messages.contents("DEV.QUEUE.3"))
        assert [m.data for m in contents] == [b"pear"]
        assert contents[0].correl_id == sub.sub_id
        assert sub.message_count == 1 and sub.last_message > 0


async def test_subrq_sends_the_retained_publication_and_counts_it(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await _session(server)
        api, reply = await _subscribe(peer, "dev/x", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_PUBLICATIONS_ON_REQUEST)
        managed = api.Hobj
        sro = calls.MQSubRqRequest(C.MQSR_ACTION_PUBLICATION, mqi.MQSRO())
        api, _ = await mqi_call(peer, fap.MQSUBRQ, sro.pack(LE), hobj=reply.Hsub)
        assert (api.CompCode, api.Reason) == (C.MQCC_FAILED, C.MQRC_NO_RETAINED_MSG)
        assert (await _publish(peer, "dev/x", b"kept", Options=C.MQPMO_RETAIN)).CompCode == 0
        api, _ = await _get(peer, managed)
        assert api.Reason == C.MQRC_NO_MSG_AVAILABLE  # on request only
        api, data = await mqi_call(peer, fap.MQSUBRQ, sro.pack(LE), hobj=reply.Hsub)
        assert api.CompCode == 0
        assert calls.MQSubRqReply.unpack(data, 0, LE)[0].SubRqOpts.NumPubs == 1
        api, got = await _get(peer, managed)
        assert got.Data == b"kept"
        api, _ = await mqi_call(peer, fap.MQSUBRQ, sro.pack(LE), hobj=9999)
        assert api.Reason == C.MQRC_HOBJ_ERROR


async def test_app_user_subscribes_only_under_dev(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer, "DEV.APP.SVRCONN", user="app", password=None)
        await connect_mq(peer)
        api, _ = await _subscribe(peer, "secret/stuff", C.MQSO_CREATE | C.MQSO_MANAGED)
        assert api.Reason == C.MQRC_NOT_AUTHORIZED
        od = mqi.MQOD(Version=4, ObjectType=C.MQOT_TOPIC, ObjectName="DEV.BASE.TOPIC", ObjectString=mqi.MQCHARV("x"))
        api, _ = await mqi_call(peer, fap.MQOPEN, calls.MQOpenRequest(od, C.MQOO_OUTPUT).pack(LE))
        assert api.CompCode == 0  # DEV.BASE.TOPIC is "dev/": the app may publish under it
