"""A call read whole is served in one step (server/connection.py ``_received``, decision HP8): the same replies,
byte for byte, as the channel's events give, and the same channel status counts.  One script of calls --
inquiries, puts, gets that find a message and one that does not, calls the queue manager refuses, a call the
codec refuses and the socket's end -- played on one server by two connections in turn, the first with the one
step turned off; the queue manager's clock is virtual and does not move, so no reply may differ."""

from __future__ import annotations

import trio.testing

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf.framer import Framer

from tests.support.rawfap import RawPeer, connect_mq, handshake, open_q, running_server, send_call

QUEUE = "DEV.QUEUE.1"
MSG_ID = b"HP8-WHOLE-CALL".ljust(24, b"\0")


def _script(hobj: int) -> list[tuple[int, bytes, int]]:
    put = calls.MQPutRequest(mqi.MQMD(Version=2, MsgId=MSG_ID, Format="MQSTR"),
                             mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), b"one step").pack(fap.LITTLE)
    get = calls.MQGetRequest(mqi.MQMD(Version=2, MsgId=MSG_ID),
                             mqi.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT,
                                       MatchOptions=C.MQMO_MATCH_MSG_ID), 100).pack(fap.LITTLE)
    inq = calls.MQInqRequest([C.MQIA_CURRENT_Q_DEPTH], 1, 0).pack(fap.LITTLE)
    return [
        (fap.MQINQ, inq, hobj), (fap.MQPUT, put, hobj), (fap.MQPUT, put, hobj), (fap.MQINQ, inq, hobj),
        (fap.MQGET, get, hobj), (fap.MQGET, get, hobj), (fap.MQGET, get, hobj),  # the third finds nothing
        (fap.MQPUT, put, hobj + 100),  # no such handle
        (fap.MQPUT, put[:40], hobj),  # an MQMD cut short: the codec's MQRC
        (fap.MQINQ, inq, hobj),
    ]


async def _play(server, *, whole: bool) -> tuple[list[bytes], tuple[int, int, int, int], int]:
    """The script's reply segments, the connection's status counts and the one step's calls taken."""
    peer = await RawPeer.connect(server)
    await handshake(peer)
    await connect_mq(peer)
    api, _ = await open_q(peer, QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    assert api.CompCode == 0
    (conn,) = server.connections  # the other connection of the test has ended
    ch = conn.ch
    taken = [0]
    one_step = ch.whole_call

    def counted(data):
        found = one_step(data)
        taken[0] += found is not None
        return found

    def _off(data):
        return None

    ch.whole_call = counted if whole else _off
    replies = []
    for segment_type, body, hobj in _script(api.Hobj):
        await send_call(peer, segment_type, body, hobj=hobj)
        seg = await peer.receive()
        assert seg is not None and seg.header.SegmentType == segment_type | fap.REPLY
        replies.append(seg.encode())
    counts = ch.counts
    status = (counts.bytes_received, counts.buffers_received, counts.bytes_sent, counts.buffers_sent)
    await peer.aclose()
    await trio.testing.wait_all_tasks_blocked()
    return replies, status, taken[0]


async def test_a_call_read_whole_is_answered_as_the_channels_events_answer_it(tmp_path):
    async with running_server(tmp_path, clock="virtual") as server:
        general, general_counts, _ = await _play(server, whole=False)
        fast, fast_counts, taken = await _play(server, whole=True)
    assert taken == len(_script(0))  # every call of the script went the one-step way
    assert fast == general
    assert fast_counts == general_counts
    reasons = [fap.decode_body(Framer(1 << 20).feed(r)[0], first=True).ApiHeader.Reason for r in fast]
    assert reasons == [0, 0, 0, 0, 0, 0, C.MQRC_NO_MSG_AVAILABLE, C.MQRC_HOBJ_ERROR, C.MQRC_MD_ERROR, 0]
