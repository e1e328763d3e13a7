"""Authority record commands (Multiplatforms): Set Authority Record, Delete Authority Record,
Inquire Authority Records, Inquire Entity Authority, Refresh Security.

The records are registry/security/authrecs.py's generic kind.  A change applies to the next MQCONN, MQOPEN,
MQPUT1 or MQSUB at once: IBM's OAM caches authority until REFRESH SECURITY, which qmlite accepts and
needs not (docs/compat.md Part 5).
"""

from __future__ import annotations

import structlog

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.security import authrecs
from qmlite.registry.security import vocab as A
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.params import CommandError, Param, STR_LIST, p_int, p_int_list, p_str, parse

PROFILE_LENGTH = C.MQ_AUTH_PROFILE_NAME_LENGTH  # 48
ENTITY_LENGTH = C.MQ_ENTITY_NAME_LENGTH  # 1024
SERVICE_LENGTH = 48  # MQ_SERVICE_COMPONENT_LENGTH
SERVICE_COMPONENT = "MQSeries.UNIX.auth.service"  # the OAM's name on Linux (what Inquire reports)

_OBJECT_TYPE = p_int(C.MQIACF_OBJECT_TYPE, *authrecs.OBJECT_TYPES)
_PROFILE = p_str(C.MQCACF_AUTH_PROFILE_NAME, PROFILE_LENGTH)
_PRINCIPALS = Param(C.MQCACF_PRINCIPAL_ENTITY_NAMES, STR_LIST, max_length=ENTITY_LENGTH)
_GROUPS = Param(C.MQCACF_GROUP_ENTITY_NAMES, STR_LIST, max_length=ENTITY_LENGTH)
_SERVICE = p_str(C.MQCACF_SERVICE_COMPONENT, SERVICE_LENGTH)
_ALL_AUTHS = frozenset(range(A.MQAUTH_NONE, A.MQAUTH_SYSTEM + 1)) | {A.MQAUTH_ALL, A.MQAUTH_ALL_ADMIN,
                                                                   A.MQAUTH_ALL_MQI}
_ENTITY_TYPE = p_int(C.MQIACF_ENTITY_TYPE, A.MQZAET_PRINCIPAL, A.MQZAET_GROUP)

_SET = (_PROFILE, _OBJECT_TYPE, p_int_list(C.MQIACF_AUTH_ADD_AUTHS), p_int_list(C.MQIACF_AUTH_REMOVE_AUTHS),
        _PRINCIPALS, _GROUPS, _SERVICE)
_DELETE = (_PROFILE, _OBJECT_TYPE, _PRINCIPALS, _GROUPS, _SERVICE)
_INQUIRE = (p_int(C.MQIACF_AUTH_OPTIONS, low=0, high=0x3FF), _PROFILE,
            p_int(C.MQIACF_OBJECT_TYPE, C.MQOT_ALL, *authrecs.OBJECT_TYPES),
            p_str(C.MQCACF_ENTITY_NAME, ENTITY_LENGTH), _ENTITY_TYPE, p_int_list(C.MQIACF_AUTH_PROFILE_ATTRS),
            _SERVICE)
_ENTITY_AUTH = (p_str(C.MQCACF_ENTITY_NAME, ENTITY_LENGTH), _ENTITY_TYPE, _OBJECT_TYPE,
                p_int(C.MQIACF_AUTH_OPTIONS, low=0, high=0x3FF), _PROFILE,
                p_int_list(C.MQIACF_AUTH_PROFILE_ATTRS), _SERVICE)
_REFRESH = (p_int(C.MQIACF_SECURITY_TYPE, A.MQSECTYPE_AUTHSERV, A.MQSECTYPE_SSL, A.MQSECTYPE_CONNAUTH),
            p_int(C.MQIACF_SECURITY_ITEM, low=0))
# What ProfileAttrs may select; always returned are ProfileName, ObjectType, Options, QMgrName.
_SELECTABLE = (C.MQIACF_AUTHORIZATION_LIST, C.MQCACF_ENTITY_NAME, C.MQIACF_ENTITY_TYPE, C.MQIACF_OBJECT_TYPE)


def _object_type(values: dict) -> int:
    if C.MQIACF_OBJECT_TYPE not in values:
        raise CommandError(C.MQRCCF_OBJECT_TYPE_MISSING)
    return values[C.MQIACF_OBJECT_TYPE]  # type: ignore[return-value]


def _profile(ctx, values: dict, object_type: int, *, required: bool = True) -> str:
    """The profile as stored: the queue manager's is ``self`` (blank, ``self`` or its own name)."""
    profile = values.get(C.MQCACF_AUTH_PROFILE_NAME, "")
    if object_type == C.MQOT_Q_MGR:
        if profile not in ("", authrecs.QMGR_PROFILE, ctx.registry.qmgr.name):
            raise CommandError(C.MQRCCF_PROFILE_NAME_ERROR, parameter=C.MQCACF_AUTH_PROFILE_NAME)
        return authrecs.QMGR_PROFILE
    if not profile and required:
        raise CommandError(C.MQRCCF_PROFILE_NAME_ERROR, parameter=C.MQCACF_AUTH_PROFILE_NAME)
    if profile and not authrecs.valid_profile(profile, object_type):  # type: ignore[arg-type]
        raise CommandError(C.MQRCCF_PROFILE_NAME_ERROR, parameter=C.MQCACF_AUTH_PROFILE_NAME)
    return profile  # type: ignore[return-value]


def _service(values: dict) -> None:
    service = values.get(C.MQCACF_SERVICE_COMPONENT, "")
    if service and service != SERVICE_COMPONENT:
        raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=C.MQCACF_SERVICE_COMPONENT)


def _entities(ctx, values: dict) -> list[tuple[str, int]]:
    """The principals then groups named, each one known (MQRC_UNKNOWN_ENTITY otherwise)."""
    entities = [(name, A.MQZAET_PRINCIPAL) for name in values.get(C.MQCACF_PRINCIPAL_ENTITY_NAMES, ())]
    entities += [(name, A.MQZAET_GROUP) for name in values.get(C.MQCACF_GROUP_ENTITY_NAMES, ())]
    entities = [(name, kind) for name, kind in entities if name]
    if not entities:
        raise CommandError(C.MQRCCF_ENTITY_NAME_MISSING)
    for name, kind in entities:
        if not authrecs.known_entity(ctx.registry, name, kind):
            pid = C.MQCACF_GROUP_ENTITY_NAMES if kind == A.MQZAET_GROUP else C.MQCACF_PRINCIPAL_ENTITY_NAMES
            raise CommandError(C.MQRC_UNKNOWN_ENTITY, parameter=pid)
    return entities


def _auth_list(values: dict, pid: int, object_type: int) -> set[int]:
    given = values.get(pid, ())
    for value in given:  # type: ignore[union-attr]
        if value not in _ALL_AUTHS:
            raise CommandError(C.MQRCCF_AUTH_VALUE_ERROR, parameter=pid)
        if value > 0 and value not in authrecs.VALID[object_type]:
            raise CommandError(C.MQRCCF_AUTH_VALUE_ERROR, parameter=pid)  # e.g. +pub on a queue
    return authrecs.expand(object_type, given)


def set_auth_rec(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _SET).values
    object_type = _object_type(values)
    profile = _profile(ctx, values, object_type)
    _service(values)
    if C.MQIACF_AUTH_ADD_AUTHS not in values and C.MQIACF_AUTH_REMOVE_AUTHS not in values:
        raise CommandError(C.MQRCCF_AUTH_VALUE_MISSING)
    add = _auth_list(values, C.MQIACF_AUTH_ADD_AUTHS, object_type)
    remove = _auth_list(values, C.MQIACF_AUTH_REMOVE_AUTHS, object_type)
    if add & remove:
        raise CommandError(C.MQRCCF_AUTH_VALUE_ERROR, parameter=C.MQIACF_AUTH_REMOVE_AUTHS)
    entities = _entities(ctx, values)
    reg = ctx.registry
    now = reg.now()
    for entity, kind in entities:
        key = authrecs.record_key(object_type, profile, kind, entity)
        existing = reg.objects(authrecs.KIND).get(key)
        auths = (set(existing.auths) if existing is not None else set()) | add
        auths -= remove
        record = authrecs.new_record(object_type, profile, kind, entity, auths)
        record.created = existing.created if existing is not None else now
        record.altered = now
        reg.put_object(authrecs.KIND, record)
    authrecs.invalidate(reg)
    return R.ok(ctx.command)


def delete_auth_rec(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _DELETE).values
    object_type = _object_type(values)
    profile = _profile(ctx, values, object_type)
    _service(values)
    entities = _entities(ctx, values)
    reg = ctx.registry
    records = reg.objects(authrecs.KIND)
    found = [records.get(authrecs.record_key(object_type, profile, kind, entity)) for entity, kind in entities]
    if any(rec is None for rec in found):
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)  # AMQ8459 "not found": nothing is deleted
    for rec in found:
        reg.remove_object(authrecs.KIND, rec)
    authrecs.invalidate(reg)
    return R.ok(ctx.command)


def _options(values: dict) -> int:
    options = values.get(C.MQIACF_AUTH_OPTIONS)
    if options is None:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQIACF_AUTH_OPTIONS)
    return options  # type: ignore[return-value]


def _render(ctx, rec, options: int, selected: set[int], auths=None, profile: str | None = None) -> list:
    out: list = [R.text(C.MQCA_Q_MGR_NAME, ctx.registry.qmgr.name, 48),
                 P.CFIN(C.MQIACF_AUTH_OPTIONS, options),
                 R.text(C.MQCACF_AUTH_PROFILE_NAME, rec.profile if profile is None else profile)]
    if C.MQIACF_OBJECT_TYPE in selected:
        out.append(P.CFIN(C.MQIACF_OBJECT_TYPE, rec.object_type))
    if C.MQCACF_ENTITY_NAME in selected:
        out.append(R.text(C.MQCACF_ENTITY_NAME, rec.entity))
    if C.MQIACF_ENTITY_TYPE in selected:
        out.append(P.CFIN(C.MQIACF_ENTITY_TYPE, rec.entity_type))
    if C.MQIACF_AUTHORIZATION_LIST in selected:
        listed = sorted(rec.auths if auths is None else auths)
        out.append(P.CFIL(C.MQIACF_AUTHORIZATION_LIST, tuple(listed) or (A.MQAUTH_NONE,)))
    return out


def _selected(values: dict) -> set[int]:
    attrs = values.get(C.MQIACF_AUTH_PROFILE_ATTRS)
    if not attrs or C.MQIACF_ALL in attrs:  # type: ignore[operator]
        return set(_SELECTABLE)
    for attr in attrs:  # type: ignore[union-attr]
        if attr not in _SELECTABLE:
            raise CommandError(C.MQRCCF_ATTR_VALUE_ERROR, parameter=C.MQIACF_AUTH_PROFILE_ATTRS)
    return set(attrs)  # type: ignore[arg-type]


def inquire_auth_recs(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE).values
    options = _options(values)
    by_name = options & (A.MQAUTHOPT_NAME_ALL_MATCHING | A.MQAUTHOPT_NAME_EXPLICIT)
    by_entity = options & (A.MQAUTHOPT_ENTITY_EXPLICIT | A.MQAUTHOPT_ENTITY_SET)
    # One of each pair; NAME_EXPLICIT and ENTITY_SET together are refused (IBM).
    if by_name not in (A.MQAUTHOPT_NAME_ALL_MATCHING, A.MQAUTHOPT_NAME_EXPLICIT) or by_entity not in (
            A.MQAUTHOPT_ENTITY_EXPLICIT, A.MQAUTHOPT_ENTITY_SET) or (
            by_name == A.MQAUTHOPT_NAME_EXPLICIT and by_entity == A.MQAUTHOPT_ENTITY_SET):
        raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=C.MQIACF_AUTH_OPTIONS)
    object_type = values.get(C.MQIACF_OBJECT_TYPE, C.MQOT_ALL)
    _service(values)
    selected = _selected(values)
    reg = ctx.registry
    profile = values.get(C.MQCACF_AUTH_PROFILE_NAME, "")
    if profile and object_type != C.MQOT_ALL:
        profile = _profile(ctx, values, object_type)  # type: ignore[arg-type]
    entity = values.get(C.MQCACF_ENTITY_NAME, "")
    entity_type = values.get(C.MQIACF_ENTITY_TYPE)
    if entity and entity_type is None:
        raise CommandError(C.MQRCCF_ENTITY_TYPE_MISSING, parameter=C.MQIACF_ENTITY_TYPE)
    if entity and not authrecs.known_entity(reg, entity, entity_type):  # type: ignore[arg-type]
        raise CommandError(C.MQRC_UNKNOWN_ENTITY, parameter=C.MQCACF_ENTITY_NAME)
    entities = None
    if entity:
        entities = {(entity, entity_type)}
        if by_entity == A.MQAUTHOPT_ENTITY_SET and entity_type == A.MQZAET_PRINCIPAL:
            entities |= {(g, A.MQZAET_GROUP) for g in authrecs.groups_of(entity)}  # type: ignore[arg-type]
    wildcard = options & A.MQAUTHOPT_NAME_AS_WILDCARD
    found = []
    for rec in sorted(reg.objects(authrecs.KIND).values(), key=lambda r: (r.object_type, r.profile, r.entity_type,
                                                                           r.entity)):
        if object_type != C.MQOT_ALL and rec.object_type != object_type:
            continue
        if entities is not None and (rec.entity, rec.entity_type) not in entities:
            continue
        if profile:
            if by_name == A.MQAUTHOPT_NAME_EXPLICIT or rec.object_type == C.MQOT_Q_MGR:
                if rec.profile != (authrecs.QMGR_PROFILE if rec.object_type == C.MQOT_Q_MGR else profile):
                    continue
            elif wildcard:
                if not authrecs.profile_matches(profile, rec.profile):  # the name as a pattern on profiles
                    continue
            elif not authrecs.profile_matches(rec.profile, profile):  # profiles that apply to the name
                continue
        found.append(_render(ctx, rec, options, selected))
    return R.data(ctx.command, found, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_entity_auth(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _ENTITY_AUTH).values
    entity = values.get(C.MQCACF_ENTITY_NAME, "")
    if not entity:
        raise CommandError(C.MQRCCF_ENTITY_NAME_MISSING)
    entity_type = values.get(C.MQIACF_ENTITY_TYPE)
    if entity_type is None:
        raise CommandError(C.MQRCCF_ENTITY_TYPE_MISSING, parameter=C.MQIACF_ENTITY_TYPE)
    object_type = _object_type(values)
    options = values.get(C.MQIACF_AUTH_OPTIONS, A.MQAUTHOPT_CUMULATIVE)
    _service(values)
    profile = _profile(ctx, values, object_type)  # an object name here
    if object_type != C.MQOT_Q_MGR and authrecs.is_generic(profile):
        raise CommandError(C.MQRCCF_PROFILE_NAME_ERROR, parameter=C.MQCACF_AUTH_PROFILE_NAME)
    reg = ctx.registry
    if not authrecs.known_entity(reg, entity, entity_type):  # type: ignore[arg-type]
        raise CommandError(C.MQRC_UNKNOWN_ENTITY, parameter=C.MQCACF_ENTITY_NAME)
    auths = authrecs.entity_authority(reg, object_type, profile, entity, entity_type)  # type: ignore[arg-type]
    view = authrecs.new_record(object_type, profile, entity_type, entity, auths)  # type: ignore[arg-type]
    return R.data(ctx.command, [_render(ctx, view, options, _selected(values))], none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


log = structlog.get_logger("qmlite.security")


def refresh_security(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _REFRESH).values
    authrecs.invalidate(ctx.registry)  # nothing is cached beyond a change: accepted, as IBM documents it
    if values.get(C.MQIACF_SECURITY_TYPE) == A.MQSECTYPE_SSL:
        # The key repository is read again for the TLS handshakes that follow; connections running keep
        # their session (docs/tls.md).  A repository that cannot be read leaves the old one in use.
        why = ctx.registry.running.refresh_ssl()
        if why:
            log.warning("refresh_ssl_failed", why=why)
    return R.ok(ctx.command)


def register(engine) -> None:
    engine.register(C.MQCMD_SET_AUTH_REC, set_auth_rec)
    engine.register(C.MQCMD_DELETE_AUTH_REC, delete_auth_rec)
    engine.register(C.MQCMD_INQUIRE_AUTH_RECS, inquire_auth_recs)
    engine.register(C.MQCMD_INQUIRE_ENTITY_AUTH, inquire_entity_auth)
    engine.register(C.MQCMD_REFRESH_SECURITY, refresh_security)
