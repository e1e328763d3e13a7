"""A publish exit for tests/client/test_ibmmq_pubsub.py, loaded by the server as ``module:callable``."""

from __future__ import annotations

from qmlite.registry.pubsub.publishexit import MQXCC_SUPPRESS_FUNCTION


def route(ctx):
    topic = ctx.PubTopicString
    if topic == "ps/exit/suppress":
        return MQXCC_SUPPRESS_FUNCTION
    if topic == "ps/exit/reroute":
        ctx.DestinationQName = "PS.EXIT.REROUTED"
    elif topic == "ps/exit/change":
        ctx.Data = b"changed by the exit"
        ctx.MsgDesc.Priority = 9
    elif topic == "ps/exit/raise":
        raise RuntimeError("a bug in the user's exit")
    return None
