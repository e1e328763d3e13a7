"""An MQPUT's and MQGET's reply joined from its pieces (server/mqi.py ``_reply_of`` and ``_got``, decision
HP4) and a one-segment send counted without the loop (server/connection.py ``segment_count``, HP5): byte for
byte what the general path builds -- ``calls.MQPutReply``/``calls.MQGetReply`` packed, then ``MQI.reply``
(split into segments when MaxTransmissionSize is exceeded) -- with hypothesis choosing the structures,
the data, the truncation, the reason and the channel's MaxTransmissionSize."""

from __future__ import annotations

import types

from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import calls, fap
from qmlite.pcf import constants as C
from qmlite.registry.messaging.mqget import Got
from qmlite.server.connection import segment_count
from qmlite.server.mqi import MQI

from tests.pcf.test_mqi_memo import SHAPES, structures

MD, PMO, GMO = SHAPES
LE = fap.LITTLE


def _mqi() -> MQI:
    return object.__new__(MQI)  # _reply_of, _got and reply use neither the server nor the queue manager


def _conn(max_tr: int):
    return types.SimpleNamespace(agreement=types.SimpleNamespace(max_transmission_size=max_tr))


def _request(struct_id: str, segment_type: int, conv: int, req: int) -> fap.Segment:
    if struct_id != fap.TSHM:
        conv = req = 0
    return fap.Segment(fap.SegmentHeader(struct_id, 0, conv, req, 2, segment_type), b"")


requests = st.builds(_request, st.sampled_from([fap.TSHM, fap.TSH]), st.just(0), st.integers(0, 2**31 - 1),
                     st.integers(0, 2**31 - 1))
max_trs = st.sampled_from([600, 1000, 4096, 32768, 1 << 20])
reasons = st.sampled_from([(0, 0), (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED),
                           (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED), (C.MQCC_WARNING, C.MQRC_NO_SUBS_MATCHED)])
def _case(data, segment_type: int, options_shape):
    """A request of ``segment_type``, its reply's MQMD and options, (CompCode, Reason) and a connection."""
    seg = data.draw(requests)
    seg.header.SegmentType = segment_type
    md, options = data.draw(structures(MD)), data.draw(structures(options_shape))
    return seg, md, options, data.draw(reasons), _conn(data.draw(max_trs))


settings_ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@settings_
@given(st.data())
def test_an_mqput_reply_from_its_pieces_is_the_general_reply(data):
    seg, md, pmo, (comp, reason), conn = _case(data, fap.MQPUT, PMO)
    length, hobj, mqi = data.draw(st.integers(0, 2**31 - 1)), data.draw(st.integers(0, 2**31 - 1)), _mqi()
    general = mqi.reply(conn, seg, calls.MQPutReply(md, pmo, length).pack(LE), comp=comp, reason=reason, hobj=hobj)
    pieces = (md.pack(LE), pmo.pack(LE), length.to_bytes(4, "little", signed=True))
    assert mqi._reply_of(conn, seg, pieces, comp=comp, reason=reason, hobj=hobj) == general


@settings_
@given(st.data())
def test_an_mqget_reply_from_its_pieces_is_the_general_reply(data):
    seg, md, gmo, (comp, reason), conn = _case(data, fap.MQGET, GMO)
    message = data.draw(st.binary(max_size=3000))
    kept = data.draw(st.integers(0, len(message)))  # a truncated message keeps its first bytes
    got = Got(md, gmo, message[:kept], len(message), comp, reason, data.draw(st.integers(0, 99)), "Q")
    handle = types.SimpleNamespace(hobj=data.draw(st.integers(0, 2**31 - 1)))
    mqi, max_tr = _mqi(), conn.agreement.max_transmission_size
    body = calls.MQGetReply(got.md, got.gmo, got.data, got.full_length).pack(LE)
    general = mqi.reply(conn, seg, body, comp=comp, reason=reason, hobj=handle.hobj)
    assert mqi._got(conn, seg, handle, got) == (general, got.durable_after)
    if len(body) + fap.TSHM_LENGTH + fap.API_HEADER_LENGTH > max_tr:
        assert len(general) > 1  # the split path was exercised too


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([fap.TSHM, fap.TSH, fap.TSHC]), st.binary(max_size=50)), max_size=5),
       st.binary(max_size=7))
def test_a_segment_count_is_the_headers_counted(segments, tail):
    data = b"".join(fap.encode_segment(fap.MQPUT_REPLY, body, struct_id=sid) for sid, body in segments)
    assert segment_count(data) == len(segments)
    if segments and tail:
        assert segment_count(data + tail) == len(segments)  # a fragment after the last is not one
