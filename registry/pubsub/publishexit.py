"""The publish exit: a user's callable that sees, and may change or stop, each copy of a publication.

IBM's queue manager calls a publish exit once per delivery with the publish exit parameters (MQPSXP)
and the subscription's context (MQSBC).  qmlite calls a Python callable, named ``module:callable``
(``qmlite serve --publish-exit`` or ``publish_exit`` in the config file), with one
``PublishExitContext`` per delivery.  The callable may

* change ``DestinationQName`` / ``DestinationQMgrName`` (the copy goes there instead),
* change ``MsgDesc`` (an MQMD), ``Properties`` or ``Data`` (the copy is delivered as changed),
* suppress the delivery: set ``ExitResponse = MQXCC_SUPPRESS_FUNCTION`` or return it (or False),
* fail it: ``MQXCC_FAILED``, or raise.  A failed delivery is an undeliverable copy with reason
  MQRC_PUBLISH_EXIT_ERROR: dead-lettered or failing the publication as the topic's PMSGDLV/NPMSGDLV
  say, the exception logged, never a crash of the queue manager.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable

import structlog

from qmlite.pcf import constants as C

from qmlite.registry.pubsub.routing import Delivery, Publication

log = structlog.get_logger("qmlite.publish_exit")

# cmqxc.h exit responses
MQXCC_OK = 0
MQXCC_SUPPRESS_FUNCTION = -1
MQXCC_FAILED = -8


@dataclasses.dataclass(slots=True)
class PublishExitContext:
    """One delivery as the exit sees it: MQSBC's fields, the publication's topic, and the copy."""

    # MQSBC (the subscription)
    DestinationQMgrName: str
    DestinationQName: str
    SubType: int
    SubOptions: int
    ObjectName: str
    ObjectString: str
    SubTopicString: str
    SubName: str
    SubId: bytes
    SelectionString: str
    SubLevel: int
    PSProperties: int
    # MQPSXP (the publication) and the copy
    PubTopicString: str
    MsgDesc: object
    Properties: object
    Data: bytes
    ExitResponse: int = MQXCC_OK


def _own(props):
    """Copies may share one Properties object (routing.deliveries); what an exit changes must be one copy's."""
    from qmlite.pcf.properties import Properties

    return props.copy() if props else Properties()


def load(spec: str) -> Callable[[PublishExitContext], object]:
    """``module:callable`` (``package.module:object.attr`` works too) -> the callable."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"publish exit {spec!r}: expected module:callable")
    target: object = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"publish exit {spec!r} is not callable")
    return target  # type: ignore[return-value]


class PublishExit:
    def __init__(self, fn: Callable[[PublishExitContext], object], name: str = "") -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", repr(fn))

    def run(self, pub: Publication, copies: list[Delivery]) -> list[tuple[Delivery, int]]:
        """Each copy the exit lets through, with 0, or with MQRC_PUBLISH_EXIT_ERROR when it failed."""
        out = []
        for copy in copies:
            sub = copy.sub
            ctx = PublishExitContext(
                copy.qmgr, copy.queue, sub.sub_type, sub.sub_options, sub.topic_object, sub.topic_string,
                sub.resolved_topic, sub.name, sub.sub_id, sub.selector, sub.sub_level, sub.psprop,
                pub.topic, copy.md, _own(copy.props), copy.data)
            try:
                answer = self.fn(ctx)
            except Exception as exc:  # a user's code: whatever it raises fails this delivery only
                log.error("publish_exit_failed", exit=self.name, sub=sub.name, topic=pub.topic,
                          reason="MQRC_PUBLISH_EXIT_ERROR", error=repr(exc))
                out.append((copy, C.MQRC_PUBLISH_EXIT_ERROR))
                continue
            response = ctx.ExitResponse
            if answer is False:
                response = MQXCC_SUPPRESS_FUNCTION
            elif isinstance(answer, int) and not isinstance(answer, bool):
                response = answer
            if response == MQXCC_SUPPRESS_FUNCTION:
                continue
            copy = dataclasses.replace(copy, queue=ctx.DestinationQName, qmgr=ctx.DestinationQMgrName,
                                       md=ctx.MsgDesc, props=ctx.Properties, data=bytes(ctx.Data))
            if response != MQXCC_OK:
                log.warning("publish_exit_failed", exit=self.name, sub=sub.name, topic=pub.topic,
                            reason="MQRC_PUBLISH_EXIT_ERROR", response=response)
                out.append((copy, C.MQRC_PUBLISH_EXIT_ERROR))
                continue
            out.append((copy, 0))
        return out
