"""Who may do what: the developer container's authority records, as rules over a session.

IBM's developer container grants the ``app`` group connect and inquire on the queue manager and
everything on DEV.** queues and topics under DEV.** topic objects; ``admin`` (mqm) may do anything.
Every MQOPEN, MQPUT1 and MQSUB asks here, so the rules have one home (docs/decisions.md S7).
"""

from __future__ import annotations

from qmlite.pcf import constants as C

from .errors import MQIError

_SET_CONTEXT = C.MQOO_SET | C.MQOO_SET_ALL_CONTEXT | C.MQOO_SET_IDENTITY_CONTEXT
_DEV_PREFIX = "DEV."


def check_queue(session, name: str, options: int) -> None:
    if session.admin:
        return
    if not name.startswith(_DEV_PREFIX):
        raise MQIError(C.MQRC_NOT_AUTHORIZED)  # the developer container grants app DEV.** only
    if options & _SET_CONTEXT:
        raise MQIError(C.MQRC_NOT_AUTHORIZED)


def check_create_dynamic(session) -> None:
    if not session.admin:
        raise MQIError(C.MQRC_NOT_AUTHORIZED)


def check_topic(session, reg, topic_string: str) -> None:
    """PUB/SUB on a topic string: granted by the administered topic object that governs it.

    That is the nearest object in the topic tree, or an object whose topic string ends in "/" and
    prefixes this one: the developer container's DEV.BASE.TOPIC is ``dev/``, and IBM's container
    lets ``app`` publish and subscribe under it (``dev/prices``, ``dev/#``), although in the topic
    tree ``dev/`` is the empty level below ``dev`` rather than a parent of ``dev/prices``
    (docs/decisions.md S30).
    """
    if session.admin:
        return
    node = next(reg.topic_nodes(topic_string), None)
    if node is not None and node.topic_string and node.name.startswith(_DEV_PREFIX):
        return
    for topic in reg.topics.values():
        string = topic.topic_string
        if string.endswith("/") and topic_string.startswith(string) and topic.name.startswith(_DEV_PREFIX):
            return
    raise MQIError(C.MQRC_NOT_AUTHORIZED)


def may_set_context(session) -> bool:
    return session.admin
