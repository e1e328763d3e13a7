"""Who may do what: every MQCONN, MQOPEN, MQPUT1 and MQSUB asks here, against the authority records
(registry/security/authrecs.py), so the rules have one home (docs/decisions.md S7).

The open options map to authorities as IBM's OAM checks them: INPUT_* -> get, BROWSE -> browse,
OUTPUT -> put, INQUIRE -> inq, SET -> set, the context options -> passid/passall/setid/setall;
ALTERNATE_USER_AUTHORITY needs altusr on the queue manager for the opener and then the alternate
user's own authority to the object.  A failure is MQRC_NOT_AUTHORIZED.
"""

from __future__ import annotations

import weakref

import structlog
from qmlite.pcf import constants as C

from qmlite.registry.security import authrecs
from qmlite.registry.security import vocab as A
from qmlite.registry.errors import MQIError

log = structlog.get_logger("qmlite.authority")
_OPEN_AUTHS = (
    (C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE, A.MQAUTH_INPUT),
    (C.MQOO_BROWSE, A.MQAUTH_BROWSE),
    (C.MQOO_OUTPUT, A.MQAUTH_OUTPUT),
    (C.MQOO_INQUIRE, A.MQAUTH_INQUIRE),
    (C.MQOO_SET, A.MQAUTH_SET),
    (C.MQOO_PASS_IDENTITY_CONTEXT, A.MQAUTH_PASS_IDENTITY_CONTEXT),
    (C.MQOO_PASS_ALL_CONTEXT, A.MQAUTH_PASS_ALL_CONTEXT),
    (C.MQOO_SET_IDENTITY_CONTEXT, A.MQAUTH_SET_IDENTITY_CONTEXT),
    (C.MQOO_SET_ALL_CONTEXT, A.MQAUTH_SET_ALL_CONTEXT),
)
_TOPIC_AUTHS = tuple((opt, auth) for opt, auth in _OPEN_AUTHS if opt not in (C.MQOO_OUTPUT, C.MQOO_INQUIRE))
_SET_IDENTITY = C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT


def needed(options: int, table=_OPEN_AUTHS) -> list[int]:
    return [auth for opt, auth in table if options & opt]


def _deny(user: str = "", object_type: int = 0, name: str = "", auths=()) -> MQIError:
    # What was refused, to whom: the administrator's answer to "why 2035?" (IBM writes AMQ8077W).
    log.info("not_authorized", user=user, object_type=C.describe("MQOT", object_type), object=name,
             needed=list(auths))
    return MQIError(C.MQRC_NOT_AUTHORIZED)


def check_connect(reg, user: str) -> None:
    """MQCONN: connect on the queue manager."""
    if not authrecs.has(reg, user, C.MQOT_Q_MGR, authrecs.QMGR_PROFILE, A.MQAUTH_CONNECT):
        raise _deny(user, C.MQOT_Q_MGR, authrecs.QMGR_PROFILE, [A.MQAUTH_CONNECT])


def acting_user(reg, session, options: int, alternate: str) -> str:
    """Whose authority an open is checked with: with MQOO_ALTERNATE_USER_AUTHORITY the opener needs
    altusr on the queue manager, and the alternate user's own authority then applies."""
    if not options & C.MQOO_ALTERNATE_USER_AUTHORITY:
        return session.user
    if not authrecs.has(reg, session.user, C.MQOT_Q_MGR, authrecs.QMGR_PROFILE, A.MQAUTH_ALT_USER_AUTHORITY):
        raise _deny(session.user, C.MQOT_Q_MGR, authrecs.QMGR_PROFILE, [A.MQAUTH_ALT_USER_AUTHORITY])
    return alternate.strip() or session.user


def check_object(reg, session, object_type: int, name: str, options: int, alternate: str = "") -> None:
    """MQOPEN of a queue (as named: an alias by its own name, a model by the model's), namelist,
    process or the queue manager, for ``options``."""
    user = acting_user(reg, session, options, alternate)
    auths = needed(options)
    if object_type == C.MQOT_Q_MGR:
        auths = [a for a in auths if a == A.MQAUTH_INQUIRE]
    if auths and not authrecs.has(reg, user, object_type, name, *auths):
        raise _deny(user, object_type, name, auths)


def check_queue(reg, session, name: str, options: int, alternate: str = "") -> None:
    check_object(reg, session, C.MQOT_Q, name, options, alternate)


def check_create_dynamic(reg, session, model: str, options: int = 0, alternate: str = "") -> None:
    """A dynamic queue from a model needs dsp on the model (the developer container grants ``app``
    dsp on DEV.APP.MODEL.QUEUE and nothing else for it); crt on the model grants it too."""
    user = acting_user(reg, session, options, alternate)
    if not (authrecs.has(reg, user, C.MQOT_Q, model, A.MQAUTH_DISPLAY)
            or authrecs.has(reg, user, C.MQOT_Q, model, A.MQAUTH_CREATE)):
        raise _deny(user, C.MQOT_Q, model, [A.MQAUTH_DISPLAY])


def governing_topics(reg, topic_string: str) -> list[str]:
    """The administered topic objects whose authority applies at ``topic_string``, nearest first.

    The nearest object in the topic tree and its ancestors (IBM: authority granted at any level above
    applies), and before them an object whose topic string ends in "/" and prefixes this one: the
    developer container's DEV.BASE.TOPIC is ``dev/``, and IBM's container lets ``app`` publish and
    subscribe under it (``dev/prices``, ``dev/#``), although in the topic tree ``dev/`` is the empty
    level below ``dev`` rather than a parent of ``dev/prices`` (docs/decisions.md S30).
    """
    names = [topic.name for topic in reg.topics.values()
             if topic.topic_string.endswith("/") and topic_string.startswith(topic.topic_string)]
    names += [node.name for node in reg.topic_nodes(topic_string) if node.name not in names]
    return names


def check_topic(session, reg, topic_string: str, auth: int = A.MQAUTH_SUBSCRIBE, options: int = 0,
                alternate: str = "") -> None:
    """PUB or SUB on a topic string: granted by a topic object that governs it.  A grant is remembered
    until an authority record or a topic object changes (``_granted``): an MQTT client publishes to
    the same few topics over and over, and finding the governing objects walks every topic object (TQ4)."""
    user = acting_user(reg, session, options, alternate)
    if authrecs.privileged(user):
        return
    extra = needed(options, _TOPIC_AUTHS)
    granted = _granted(reg)
    key = (user, topic_string, auth, *extra)
    if key in granted:
        return
    for name in governing_topics(reg, topic_string):
        if authrecs.has(reg, user, C.MQOT_TOPIC, name, auth, *extra):
            if len(granted) >= 10_000:
                granted.clear()
            granted.add(key)
            return
    raise _deny(user, C.MQOT_TOPIC, topic_string, [auth, *extra])


_GRANTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _granted(reg) -> set:
    """The topic grants made since the authority records (authrecs.generation) and the topic objects
    (the registry's ``topic_generation``) last changed."""
    stamp = (authrecs.generation(reg), reg.topic_generation)
    entry = _GRANTED.get(reg)
    if entry is None or entry[0] != stamp:
        entry = _GRANTED[reg] = (stamp, set())
    return entry[1]


def sub_open_options(sub_options: int) -> int:
    """MQSUB's options as the MQOO ones whose authority they need (altusr, setid)."""
    out = 0
    if sub_options & C.MQSO_ALTERNATE_USER_AUTHORITY:
        out |= C.MQOO_ALTERNATE_USER_AUTHORITY
    if sub_options & C.MQSO_SET_IDENTITY_CONTEXT:
        out |= C.MQOO_SET_IDENTITY_CONTEXT
    return out


def check_publish(session, reg, topic_string: str, options: int, alternate: str = "") -> None:
    check_topic(session, reg, topic_string, A.MQAUTH_PUBLISH, options, alternate)


def may_set_context(session, handle=None) -> bool:
    """MQPUT's SET_*_CONTEXT takes effect on a handle opened with the matching MQOO option (whose
    authority MQOPEN checked); an mqm member may always set it, as before records existed."""
    return session.admin or (handle is not None and bool(handle.options & _SET_IDENTITY))


def may_set_all_context(session, handle=None) -> bool:
    return session.admin or (handle is not None and bool(handle.options & C.MQOO_SET_ALL_CONTEXT))
