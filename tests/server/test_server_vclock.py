"""The server's waits under a virtual clock (VC2): an MQCB consumer's wait as IBM's client makes it
(REQUEST_MSGS, answered by a NOTIFICATION when it ends empty) ends when the clock passes its interval;
heartbeats and the real-time bound of every wait stay on real time."""

from __future__ import annotations

import trio
import trio.testing

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C

from tests.server.test_server_async import _put, _ready, _request
from tests.support.rawfap import running_server

LE = fap.LITTLE


async def test_an_mqcb_wait_ends_when_the_virtual_clock_passes_it(tmp_path):
    async with running_server(tmp_path, clock="virtual") as server:
        control = server.qm.clock_control
        peer, hobj = await _ready(server)
        await peer.send(_request(hobj, wait=3_600_000, request_id=9))  # an hour
        await trio.testing.wait_all_tasks_blocked()
        assert control.virtual.waits == 1
        control.advance(3599.999)
        await trio.testing.wait_all_tasks_blocked()
        assert control.virtual.waits == 1  # woken, it looked again and waits on
        control.advance(0.001)
        seg = await peer.receive()
        note = fap.decode_body(seg)
        assert seg.header.SegmentType == fap.NOTIFICATION and seg.header.RequestId == 9
        assert (note.Hobj, note.Code) == (hobj, fap.NOTIFY_CHECK_MSG)
        await trio.testing.wait_all_tasks_blocked()
        assert control.virtual.waits == 0


async def test_a_message_still_reaches_an_mqcb_wait_on_a_virtual_clock(tmp_path):
    async with running_server(tmp_path, clock="virtual") as server:
        peer, hobj = await _ready(server)
        other, ohobj = await _ready(server)
        await peer.send(_request(hobj, wait=5_000))
        await trio.testing.wait_all_tasks_blocked()
        await _put(other, ohobj, b"for the waiter")
        seg = await peer.receive()
        assert seg.header.SegmentType == fap.ASYNC_MESSAGE
        await trio.testing.wait_all_tasks_blocked()
        assert server.qm.clock_control.virtual.waits == 0


async def test_heartbeats_and_the_real_bound_stay_on_real_time(tmp_path, autojump_clock):
    async with running_server(tmp_path, clock="virtual") as server:
        peer, hobj = await _ready(server, queue="DEV.QUEUE.2")
        virtual_before = server.qm.now()
        gmo = mqi.MQGMO(Version=2, Options=C.MQGMO_WAIT, WaitInterval=700_000)
        body = calls.MQGetRequest(mqi.MQMD(), gmo, 10).pack(LE)
        api = fap.ApiHeader(CallLength=36 + 16 + len(body), Hobj=hobj).pack(LE)
        start = trio.current_time()
        await peer.send(fap.encode_segment(fap.MQGET, api + body, conversation_id=1))
        beats = []
        while True:
            seg = await peer.receive()
            if seg.header.SegmentType != fap.HEARTBEAT:
                break
            beats.append(round(trio.current_time() - start))
            await peer.send(fap.heartbeat(request=False))
        assert beats == [300, 600]  # HBINT, in real time: the virtual clock never moved
        assert round(trio.current_time() - start) == 700  # the interval passed in real time: it ends
        assert fap.decode_body(seg, first=True).ApiHeader.Reason == C.MQRC_NO_MSG_AVAILABLE
        assert server.qm.now() == virtual_before
