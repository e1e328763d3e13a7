"""Persistent messages put and drained through IBM's ``ibmmq`` or pymqi: the two packages share the MQI
object API (Queue, MD, PMO, GMO, MQMIError, CMQC), so the reconnect tests of both use one copy."""

from __future__ import annotations


def put_persistent(mq, qm, queue: str, bodies) -> None:
    """Put ``bodies`` persistent in one unit of work on ``qm`` (``mq``: the ibmmq or pymqi module), then
    disconnect it."""
    CMQC = mq.CMQC
    q = mq.Queue(qm, queue, CMQC.MQOO_OUTPUT)
    for b in bodies:
        q.put(b, mq.MD(Persistence=CMQC.MQPER_PERSISTENT), mq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    q.close()
    qm.disconnect()


def drain(mq, qm, queue: str) -> list[bytes]:
    """Every message on ``queue``, got without waiting until MQRC_NO_MSG_AVAILABLE; then disconnect."""
    CMQC = mq.CMQC
    q = mq.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED)
    out = []
    while True:
        try:
            out.append(q.get(None, mq.MD(), mq.GMO(Options=CMQC.MQGMO_NO_WAIT)))
        except mq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
    q.close()
    qm.disconnect()
    return out
