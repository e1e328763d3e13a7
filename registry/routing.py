"""Publication routing: which subscriptions receive a publication, and the descriptor of each copy.

Network-free and free of the MQI runtime, so the server and the Spark pipeline import the same
rules.  A publication goes to every subscription whose pattern matches its topic string, restricted
to the highest SubLevel not above the publication's PubLevel (interception); the copy's CorrelId is
the subscription's DestinationCorrelId and its priority follows PubPriority.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

from .model import Subscription

DEFAULT_PUB_LEVEL = 9


def subscribers(reg, topic: str, pub_level: int = DEFAULT_PUB_LEVEL) -> list[Subscription]:
    """The subscriptions that get a copy of a publication on ``topic`` (expired ones already gone)."""
    by_id = reg.subs_by_id
    matched = [by_id[k] for k in reg.routes.match(topic)]
    # Subscriptions with a selector need the SQL92 selector engine, which is not built yet; MQ
    # never delivers what a selector rejects, so they receive nothing rather than everything.
    eligible = [s for s in matched if not s.selector and s.sub_level <= pub_level]
    if not eligible:
        return []
    top = max(s.sub_level for s in eligible)
    return [s for s in eligible if s.sub_level == top]


def copy_descriptor(sub: Subscription, md, msg_id: bytes):
    """The MQMD a subscriber's copy carries: a new MsgId, the subscription's correlation id, and
    its PubPriority (AS_PUBLISHED keeps the publication's; AS_Q_DEF leaves it to the queue)."""
    copy = dataclasses.replace(md, MsgId=msg_id, CorrelId=sub.destination_correl_id)
    if sub.pub_priority >= 0:
        copy.Priority = sub.pub_priority
    elif sub.pub_priority == C.MQPRI_PRIORITY_AS_Q_DEF:
        copy.Priority = C.MQPRI_PRIORITY_AS_Q_DEF
    return copy
