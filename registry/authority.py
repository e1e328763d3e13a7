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


def check_topic(session, node) -> None:
    """``node``: the administered topic object nearest the topic string (None: only the base)."""
    if session.admin:
        return
    if node is None or not node.name.startswith(_DEV_PREFIX):
        raise MQIError(C.MQRC_NOT_AUTHORIZED)


def may_set_context(session) -> bool:
    return session.admin
