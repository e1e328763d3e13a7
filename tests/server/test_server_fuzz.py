"""Hostile segments against a live server: it answers (an MQI reason, or a STATUS and a close) and
keeps serving everyone else.  The codec's own fuzz tests cover decoding; this covers everything the
server does with what it decoded."""

from __future__ import annotations

import pathlib
import tempfile

import trio
from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C

from tests.support.rawfap import RawPeer, connect_mq, handshake, open_q, running_server

LE = fap.LITTLE


def _mqi(segment_type: int, body: bytes, hobj: int = 2) -> bytes:
    api = fap.ApiHeader(CallLength=36 + 16 + len(body), Hobj=hobj).pack(LE)
    return fap.encode_segment(segment_type, api + body, conversation_id=1)


TEMPLATES = [
    _mqi(fap.MQOPEN, calls.MQOpenRequest(mqi.MQOD(Version=4, ObjectName="DEV.QUEUE.1",
                                                  ObjectString=mqi.MQCHARV("dev/x")), C.MQOO_OUTPUT,
                                         mqi.FOPA(Version=1, Length=28)).pack(LE), hobj=0),
    _mqi(fap.MQPUT, calls.MQPutRequest(mqi.MQMD(Format="MQADMIN", ReplyToQ="DEV.QUEUE.2"), mqi.MQPMO(Version=3),
                                       b"\x10\x00\x00\x00" * 9).pack(LE)),
    _mqi(fap.MQPUT1, calls.MQPut1Request(mqi.MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"),
                                         mqi.MQMD(Format="MQADMIN", MsgType=C.MQMT_REQUEST, ReplyToQ="DEV.QUEUE.2"),
                                         mqi.MQPMO(Version=2), bytes(36)).pack(LE), hobj=-1),
    _mqi(fap.MQGET, calls.MQGetRequest(mqi.MQMD(Version=2), mqi.MQGMO(Version=4), 100).pack(LE)),
    _mqi(fap.MQINQ, calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_NAME], 1, 48).pack(LE)),
    _mqi(fap.MQSUB, calls.MQSubRequest(0, 0, mqi.MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED,
                                                      ObjectString=mqi.MQCHARV("dev/f"))).pack(LE), hobj=0),
    _mqi(fap.MQSUBRQ, calls.MQSubRqRequest(C.MQSR_ACTION_PUBLICATION, mqi.MQSRO()).pack(LE)),
    _mqi(fap.MQCLOSE, calls.MQCloseRequest(C.MQCO_DELETE_PURGE).pack(LE)),
    _mqi(fap.MQCMIT, b""),
    fap.encode_segment(fap.REQUEST_MSGS, fap.RequestMsgs(Version=1, Hobj=2, MaxMsgLength=100, RequestedBytes=100,
                                                         MatchOptions=C.MQMO_MATCH_CORREL_ID, SelectionIndex=0,
                                                         MQMDVersion=2, CodedCharSetId=819, Encoding=546,
                                                         MsgSeqNumber=1, Offset=0, CorrelId=bytes(24)).pack(LE),
                       conversation_id=1, request_id=3),
    fap.encode_segment(fap.SOCKET_ACTION, fap.SocketAction(ConversationId=5, Type=fap.SA_START_CONV).pack(LE),
                       struct_id=fap.TSHC),
    fap.encode_segment(fap.CONAUTH_INFO, fap.ConAuthInfo(UserId="admin", Password=b"passw0rd").pack(LE),
                       conversation_id=1),
    fap.encode_segment(fap.USERID_DATA, fap.UserIdData(UserIdentifier="x").pack(LE), conversation_id=1),
]


@st.composite
def hostile(draw) -> bytes:
    seg = bytearray(draw(st.sampled_from(TEMPLATES)))
    start = draw(st.sampled_from([8, 36]))  # the header's own fields too, or only the body
    for _ in range(draw(st.integers(1, 8))):
        seg[draw(st.integers(start, len(seg) - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        seg = seg[:draw(st.integers(36, len(seg)))]
        seg[4:8] = len(seg).to_bytes(4, "big")  # a whole segment whose body is cut short
    elif draw(st.booleans()):
        # A SegmentLength shorter than the bytes sent: what follows it must be read as a new segment.
        # (A longer one makes the server wait for bytes that never come, as any TCP reader must; the
        # framer's tests show it buffers nothing past the agreed maximum, and the idle watchdog ends it.)
        seg[4:8] = draw(st.integers(0, len(seg) - 1)).to_bytes(4, "big")
    return bytes(seg)


async def _scenario(data_dir: pathlib.Path, payloads: list[bytes]) -> None:
    async with running_server(data_dir) as server:
        witness = await RawPeer.connect(server)
        await handshake(witness)
        assert (await connect_mq(witness)).Reason == 0
        victim = await RawPeer.connect(server)
        await handshake(victim)
        await connect_mq(victim)
        await open_q(victim, "DEV.QUEUE.1", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_INQUIRE)
        alive = True
        for payload in payloads:
            try:
                await victim.send(payload)
                # A heartbeat after each payload: the server handles a connection's segments in order,
                # so its answer (or the connection's end) shows the payload was dealt with.
                await victim.send(fap.heartbeat(request=True))
                with trio.fail_after(10):
                    while True:
                        seg = await victim.receive()
                        if seg is None:
                            alive = False
                            break
                        if seg.header.SegmentType == fap.STATUS_DATA and seg.header.ControlFlags1 & fap.CF1_ERROR:
                            alive = False  # refused with a precise code; the close follows
                            break
                        if seg.header.SegmentType == fap.HEARTBEAT:
                            break
            except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError):
                alive = False
            if not alive:
                break
        api, _ = await open_q(witness, "DEV.QUEUE.1", C.MQOO_OUTPUT)  # everyone else is still served
        assert api.CompCode == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hostile(), min_size=1, max_size=4))
def test_hostile_segments_never_break_the_server(payloads):
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(_scenario, pathlib.Path(tmp), payloads)
