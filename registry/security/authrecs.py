"""Authority records (OAM profiles): who may do what to which objects, as SET AUTHREC keeps them.

A record is one entity's (a principal's or a group's) authorities on one profile of one object type.
A profile is an object name or a generic profile (IBM's OAM rules: ``?`` one character, ``*`` any
characters within a qualifier, ``**`` any number of whole qualifiers; qualifiers are separated by
``.``).  An entity's authority to an object is that of the most specific matching profile holding a
record for that entity; a principal's authority is the union over itself and its groups.

Records are a generic kind (registry/objects/generic.py), key ``<objtype>/<profile>/<entity type>/<entity>``.
The queue manager itself is profile ``self``.  Members of ``mqm`` hold every authority without a
record, as on a real queue manager, where the OAM always grants the mqm group.

Principals and groups: qmlite has no operating-system users.  It knows ``admin`` (group ``mqm``),
``mqm`` (group ``mqm``), ``app`` (group ``mqclient``, the developer container's older group), any
user a channel's MCAUSER or a CHLAUTH record's MCAUSER names, and any entity that already has a
record; the groups are ``mqm`` and ``mqclient``.  docs/compat.md Part 5.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import weakref
from collections.abc import Iterator

from qmlite.pcf import constants as C

from qmlite.registry.security import vocab as A
from qmlite.registry.objects import generic

KIND = "authrec"
QMGR_PROFILE = "self"
ADMIN_GROUP = "mqm"
APP_GROUP = "mqclient"
# Principal -> groups.  Everyone else is in no group (their own records alone apply).
_MEMBERSHIP = {"admin": (ADMIN_GROUP,), "mqm": (ADMIN_GROUP,), "app": (APP_GROUP,)}
GROUPS = frozenset({ADMIN_GROUP, APP_GROUP})

OBJECT_TYPES = {
    C.MQOT_Q: "queue", C.MQOT_Q_MGR: "qmgr", C.MQOT_TOPIC: "topic", C.MQOT_NAMELIST: "namelist",
    C.MQOT_PROCESS: "process", C.MQOT_CHANNEL: "channel", C.MQOT_CLNTCONN_CHANNEL: "clntconn",
    C.MQOT_AUTH_INFO: "authinfo", C.MQOT_LISTENER: "listener", C.MQOT_SERVICE: "service",
    C.MQOT_COMM_INFO: "comminfo", C.MQOT_REMOTE_Q_MGR_NAME: "rqmname",
}

_MQI = frozenset({A.MQAUTH_ALT_USER_AUTHORITY, A.MQAUTH_BROWSE, A.MQAUTH_CONNECT, A.MQAUTH_INPUT,
                  A.MQAUTH_INQUIRE, A.MQAUTH_OUTPUT, A.MQAUTH_PASS_ALL_CONTEXT, A.MQAUTH_PASS_IDENTITY_CONTEXT,
                  A.MQAUTH_SET, A.MQAUTH_SET_ALL_CONTEXT, A.MQAUTH_SET_IDENTITY_CONTEXT, A.MQAUTH_PUBLISH,
                  A.MQAUTH_SUBSCRIBE, A.MQAUTH_RESUME})
_ADMIN = frozenset({A.MQAUTH_CHANGE, A.MQAUTH_CLEAR, A.MQAUTH_CREATE, A.MQAUTH_DELETE, A.MQAUTH_DISPLAY,
                    A.MQAUTH_CONTROL, A.MQAUTH_CONTROL_EXTENDED, A.MQAUTH_SYSTEM})
_CONTEXT = {A.MQAUTH_PASS_ALL_CONTEXT, A.MQAUTH_PASS_IDENTITY_CONTEXT, A.MQAUTH_SET_ALL_CONTEXT,
            A.MQAUTH_SET_IDENTITY_CONTEXT}
_ADMIN4 = {A.MQAUTH_CHANGE, A.MQAUTH_CREATE, A.MQAUTH_DELETE, A.MQAUTH_DISPLAY}
# The authorities each object type takes (IBM: setmqaut, "Specifying authorities for different object types").
VALID = {
    C.MQOT_Q_MGR: frozenset({A.MQAUTH_ALT_USER_AUTHORITY, A.MQAUTH_CHANGE, A.MQAUTH_CONNECT, A.MQAUTH_DELETE,
                             A.MQAUTH_DISPLAY, A.MQAUTH_INQUIRE, A.MQAUTH_SET, A.MQAUTH_SET_ALL_CONTEXT,
                             A.MQAUTH_SET_IDENTITY_CONTEXT, A.MQAUTH_CONTROL, A.MQAUTH_SYSTEM}),
    C.MQOT_Q: frozenset({A.MQAUTH_BROWSE, A.MQAUTH_CHANGE, A.MQAUTH_CLEAR, A.MQAUTH_CREATE, A.MQAUTH_DELETE,
                         A.MQAUTH_DISPLAY, A.MQAUTH_INPUT, A.MQAUTH_INQUIRE, A.MQAUTH_OUTPUT, A.MQAUTH_SET}
                        | _CONTEXT),
    C.MQOT_TOPIC: frozenset({A.MQAUTH_CHANGE, A.MQAUTH_CLEAR, A.MQAUTH_CREATE, A.MQAUTH_CONTROL, A.MQAUTH_DELETE,
                             A.MQAUTH_DISPLAY, A.MQAUTH_PUBLISH, A.MQAUTH_RESUME, A.MQAUTH_SUBSCRIBE} | _CONTEXT),
    C.MQOT_NAMELIST: frozenset(_ADMIN4 | {A.MQAUTH_INQUIRE}),
    C.MQOT_PROCESS: frozenset(_ADMIN4 | {A.MQAUTH_INQUIRE}),
    C.MQOT_CHANNEL: frozenset(_ADMIN4 | {A.MQAUTH_CONTROL, A.MQAUTH_CONTROL_EXTENDED}),
    C.MQOT_CLNTCONN_CHANNEL: frozenset(_ADMIN4),
    C.MQOT_AUTH_INFO: frozenset(_ADMIN4 | {A.MQAUTH_INQUIRE}),
    C.MQOT_LISTENER: frozenset(_ADMIN4 | {A.MQAUTH_CONTROL}),
    C.MQOT_SERVICE: frozenset(_ADMIN4 | {A.MQAUTH_CONTROL}),
    C.MQOT_COMM_INFO: frozenset(_ADMIN4),
    C.MQOT_REMOTE_Q_MGR_NAME: frozenset({A.MQAUTH_OUTPUT}),
}


@dataclasses.dataclass(slots=True)
class AuthRecord:
    name: str  # the store key: record_key(...)
    profile: str = ""
    object_type: int = C.MQOT_Q
    entity: str = ""
    entity_type: int = A.MQZAET_PRINCIPAL
    auths: tuple = ()  # MQAUTH_* values, sorted; empty means AUTHLIST(NONE)
    created: float = 0.0
    altered: float = 0.0


def record_key(object_type: int, profile: str, entity_type: int, entity: str) -> str:
    kind = "group" if entity_type == A.MQZAET_GROUP else "principal"
    return f"{OBJECT_TYPES[object_type]}/{profile}/{kind}/{entity}"


def new_record(object_type: int, profile: str, entity_type: int, entity: str, auths) -> AuthRecord:
    return AuthRecord(record_key(object_type, profile, entity_type, entity), profile, object_type, entity,
                      entity_type, tuple(sorted(auths)))


def _dev_records(dev: bool) -> list[AuthRecord]:
    """The developer container's records for principal ``app`` (docs: docs/reference/container.md, 10-dev.mqsc)."""
    if not dev:
        return []
    P = A.MQZAET_PRINCIPAL
    return [
        new_record(C.MQOT_Q_MGR, QMGR_PROFILE, P, "app", {A.MQAUTH_CONNECT, A.MQAUTH_INQUIRE}),
        new_record(C.MQOT_Q, "DEV.**", P, "app", {A.MQAUTH_BROWSE, A.MQAUTH_INPUT, A.MQAUTH_INQUIRE, A.MQAUTH_OUTPUT}),
        new_record(C.MQOT_TOPIC, "DEV.**", P, "app", {A.MQAUTH_PUBLISH, A.MQAUTH_SUBSCRIBE}),
        new_record(C.MQOT_Q, "DEV.APP.MODEL.QUEUE", P, "app",
                   {A.MQAUTH_BROWSE, A.MQAUTH_DISPLAY, A.MQAUTH_INPUT, A.MQAUTH_INQUIRE, A.MQAUTH_OUTPUT}),
    ]


generic.register(generic.GenericKind(KIND, AuthRecord, _dev_records))


# ---- authority lists -----------------------------------------------------------------------------
def expand(object_type: int, values) -> set[int]:
    """MQAUTH_ALL / ALL_ADMIN / ALL_MQI as the authorities of ``object_type`` they stand for."""
    valid = VALID[object_type]
    out: set[int] = set()
    for v in values:
        if v == A.MQAUTH_ALL:
            out |= valid
        elif v == A.MQAUTH_ALL_ADMIN:
            out |= valid & _ADMIN
        elif v == A.MQAUTH_ALL_MQI:
            out |= valid & _MQI
        elif v != A.MQAUTH_NONE:
            out.add(v)
    return out


# ---- generic profiles ----------------------------------------------------------------------------
_PROFILE_CHARS = re.compile(r"^[A-Za-z0-9._%/*?]+$")


CLASS_PROFILE = "@class"  # crt on an object type: not specific to any object (registry/security/commandauthority.py)


def valid_profile(profile: str, object_type: int) -> bool:
    if object_type == C.MQOT_Q_MGR or profile == CLASS_PROFILE:
        return True
    if not profile or len(profile) > 48 or not _PROFILE_CHARS.match(profile):
        return False
    return all(q == "**" or "**" not in q for q in profile.split("."))  # *** or A** is no profile


def is_generic(profile: str) -> bool:
    return "*" in profile or "?" in profile


@functools.lru_cache(maxsize=4096)
def _qualifier(pattern: str) -> re.Pattern:
    return re.compile("".join("[^.]*" if ch == "*" else "[^.]" if ch == "?" else re.escape(ch) for ch in pattern)
                      + r"\Z")


def _match(parts: tuple, names: tuple) -> bool:
    if not parts:
        return not names
    head = parts[0]
    if head == "**":
        return any(_match(parts[1:], names[i:]) for i in range(len(names) + 1))
    return bool(names) and bool(_qualifier(head).match(names[0])) and _match(parts[1:], names[1:])


@functools.lru_cache(maxsize=8192)
def profile_matches(profile: str, name: str) -> bool:
    if not is_generic(profile):
        return profile == name
    return _match(tuple(profile.split(".")), tuple(name.split(".")))


def specificity(profile: str) -> tuple:
    """Sort key, most specific first: an explicit name, then character by character a literal
    before ``?`` before ``*`` before ``**`` (IBM: "the most specific profile is used")."""
    if not is_generic(profile):
        return (0,)
    ranks = []
    i = 0
    while i < len(profile):
        if profile.startswith("**", i):
            ranks.append(3)
            i += 2
            continue
        ranks.append({"?": 1, "*": 2}.get(profile[i], 0))
        i += 1
    return (1, tuple(ranks))


# ---- entities ------------------------------------------------------------------------------------
def groups_of(user: str) -> tuple[str, ...]:
    return _MEMBERSHIP.get(user, ())


def privileged(user: str) -> bool:
    """A member of mqm: every authority, with or without records."""
    return ADMIN_GROUP in groups_of(user)


def known_principals(reg) -> set[str]:
    return set(_principals(reg))


def known_groups(reg) -> set[str]:
    return set(_groups(reg))


def _principals(reg) -> Iterator[str]:
    yield from _MEMBERSHIP
    for kind, field in (("channel", "mca_user"), ("channel", "mcauser"), ("chlauth", "mca_user")):
        for obj in reg.definitions.get(kind, {}).values():
            value = getattr(obj, field, "")
            if value:
                yield value
    for rec in reg.definitions.get(KIND, {}).values():
        if rec.entity_type == A.MQZAET_PRINCIPAL:
            yield rec.entity


def _groups(reg) -> Iterator[str]:
    yield from GROUPS
    yield from (rec.entity for rec in reg.definitions.get(KIND, {}).values() if rec.entity_type == A.MQZAET_GROUP)


def known_entity(reg, entity: str, entity_type: int) -> bool:
    # ``in`` stops at the first match: a known user (app, mqm ...) costs nothing however many records there
    # are, where building the whole set made a script of n SET AUTHREC commands O(n^2) (issue 24).
    return entity in (_groups(reg) if entity_type == A.MQZAET_GROUP else _principals(reg))


# ---- effective authority -------------------------------------------------------------------------
_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


_GENERATIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def invalidate(reg) -> None:
    """Records changed: the next check reads them afresh (IBM caches until REFRESH SECURITY; qmlite
    applies a change at once)."""
    _CACHES.pop(reg, None)
    _GENERATIONS[reg] = _GENERATIONS.get(reg, 0) + 1


def generation(reg) -> int:
    """How often the records changed (``invalidate``): what remembers decisions made from them keys on it."""
    return _GENERATIONS.get(reg, 0)


def entity_records(reg, object_type: int, name: str, entity: str, entity_type: int) -> AuthRecord | None:
    """The record of the most specific profile matching ``name`` that ``entity`` has, if any."""
    best = None
    for rec in reg.definitions.get(KIND, {}).values():
        if (rec.object_type == object_type and rec.entity == entity and rec.entity_type == entity_type
                and profile_matches(rec.profile, name)):
            if best is None or specificity(rec.profile) < specificity(best.profile):
                best = rec
    return best


def entity_authority(reg, object_type: int, name: str, entity: str, entity_type: int) -> frozenset[int]:
    """What ``entity`` may do to the object: for a principal, the union over itself and its groups."""
    if object_type == C.MQOT_Q_MGR:
        name = QMGR_PROFILE
    if (entity_type == A.MQZAET_GROUP and entity == ADMIN_GROUP) or (
            entity_type == A.MQZAET_PRINCIPAL and privileged(entity)):
        return VALID[object_type]
    entities = [(entity, entity_type)]
    if entity_type == A.MQZAET_PRINCIPAL:
        entities += [(g, A.MQZAET_GROUP) for g in groups_of(entity)]
    out: set[int] = set()
    for who, kind in entities:
        rec = entity_records(reg, object_type, name, who, kind)
        if rec is not None:
            out.update(rec.auths)
    return frozenset(out)


def authority(reg, user: str, object_type: int, name: str) -> frozenset[int]:
    """``user``'s authority to an object, remembered until the records change."""
    cache = _CACHES.get(reg)
    if cache is None:
        cache = _CACHES[reg] = {}
    key = (user, object_type, name)
    found = cache.get(key)
    if found is None:
        if len(cache) > 10_000:
            cache.clear()
        found = cache[key] = entity_authority(reg, object_type, name, user, A.MQZAET_PRINCIPAL)
    return found


_OWNERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def forget_object(reg, object_type: int, name: str) -> int:
    """Delete <object> with RemoveAuthRecs(YES), IBM's default on Multiplatforms: the records whose
    profile is exactly the object's name go with it (generic profiles stay: they name no one object).
    Returns how many went."""
    gone = [rec for rec in reg.objects(KIND).values() if rec.object_type == object_type and rec.profile == name]
    for rec in gone:
        reg.remove_object(KIND, rec)
    if gone:
        invalidate(reg)
    owners = _OWNERS.get(reg)
    if owners and object_type == C.MQOT_Q:
        owners.pop(name, None)
    return len(gone)


def grant_creator(reg, queue: str, user: str, *, persistent: bool) -> None:
    """The creator of a dynamic queue holds every authority to it (IBM's OAM grants it).  For a
    permanent dynamic queue that is a record; a temporary one lives only as long as its handle, so
    the grant is remembered in memory, without a write per request/reply queue."""
    if privileged(user):
        return
    if persistent:
        rec = new_record(C.MQOT_Q, queue, A.MQZAET_PRINCIPAL, user, VALID[C.MQOT_Q])
        rec.created = rec.altered = reg.now()
        reg.put_object(KIND, rec)
        invalidate(reg)
    else:
        _OWNERS.setdefault(reg, {})[queue] = user


def has(reg, user: str, object_type: int, name: str, *needed: int) -> bool:
    if privileged(user):
        return True
    if object_type == C.MQOT_Q:
        owners = _OWNERS.get(reg)
        if owners and owners.get(name) == user:
            return True
    granted = authority(reg, user, object_type, name)
    return all(n in granted for n in needed)
