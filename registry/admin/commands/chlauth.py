"""Channel authentication record commands: Set Channel Authentication Record (ADD, REPLACE, REMOVE,
REMOVEALL) and Inquire Channel Authentication Records (MATCH GENERIC, EXACT, ALL, RUNCHECK).

The records are registry/security/chlauth.py's generic kind, which also holds the check a connection makes.
Which parameter goes with which type, action and user source follows IBM's SET CHLAUTH syntax; a
misplaced one is MQRCCF_WRONG_CHLAUTH_TYPE / _ACTION / _USERSRC (docs/compat.md Part 5).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.security import vocab as A
from qmlite.registry.security import chlauth
from qmlite.registry.admin import responses as R
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.admin.params import STR_LIST, CommandError, Param, p_int, p_int_list, p_str, parse

CHANNEL_LENGTH = C.MQ_CHANNEL_NAME_LENGTH  # 20
USER_LENGTH = 64  # MCAUSER and USERLIST entries on Multiplatforms
MAX_USERS = 100  # USERLIST: at most 100 user ids (IBM)
MAX_ADDRESSES = 256  # ADDRLIST: at most 256 addresses (IBM)

_TYPES = frozenset(chlauth.TYPE_NAMES)
_ACTIONS = frozenset({C.MQACT_ADD, C.MQACT_REPLACE, C.MQACT_REMOVE, C.MQACT_REMOVEALL})
_USER_SOURCES = frozenset({A.MQUSRC_MAP, A.MQUSRC_NOACCESS, A.MQUSRC_CHANNEL})
_CHECK_CLIENT = frozenset({C.MQCHK_REQUIRED_ADMIN, C.MQCHK_REQUIRED, C.MQCHK_AS_Q_MGR})

# (parameter, record field)
_FIELDS = (
    (p_str(C.MQCACH_CONNECTION_NAME, C.MQ_CONN_NAME_LENGTH), "address"),
    (Param(C.MQCACH_CONNECTION_NAME_LIST, STR_LIST, max_length=C.MQ_IP_ADDRESS_LENGTH), "addr_list"),
    (Param(C.MQCACH_MCA_USER_ID_LIST, STR_LIST, max_length=USER_LENGTH), "user_list"),
    (p_str(C.MQCACH_CLIENT_USER_ID, C.MQ_CLIENT_USER_ID_LENGTH), "clnt_user"),
    (p_str(C.MQCA_REMOTE_Q_MGR_NAME, C.MQ_Q_MGR_NAME_LENGTH), "qm_name"),
    (p_str(C.MQCACH_SSL_PEER_NAME, C.MQ_SSL_PEER_NAME_LENGTH), "ssl_peer"),
    (p_str(C.MQCA_SSL_CERT_ISSUER_NAME, C.MQ_SSL_PEER_NAME_LENGTH), "ssl_cert_issuer"),
    (p_int(C.MQIACH_USER_SOURCE), "user_source"),
    (p_str(C.MQCACH_MCA_USER_ID, USER_LENGTH), "mca_user"),
    (p_int(C.MQIA_CHECK_CLIENT_BINDING), "check_client"),
    (p_int(C.MQIACH_WARNING, A.MQWARN_NO, A.MQWARN_YES), "warn"),
    (p_str(C.MQCA_CHLAUTH_DESC, C.MQ_CHLAUTH_DESC_LENGTH), "description"),
    (p_str(C.MQCA_CUSTOM, C.MQ_CUSTOM_LENGTH), "custom"),
)
_FIELD_OF = {param.id: field for param, field in _FIELDS}
FIELDS = _FIELDS  # what SET CHLAUTH sets: dmpmqcfg (registry/mqsc/dump.py) writes these
_SET = (p_str(C.MQCACH_CHANNEL_NAME, CHANNEL_LENGTH), p_int(C.MQIACF_CHLAUTH_TYPE), p_int(C.MQIACF_ACTION),
        p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH)) + tuple(param for param, _ in _FIELDS)

# Per type: the parameter naming the record's identity (required), and the others it takes.
_COMMON = {C.MQCA_CHLAUTH_DESC, C.MQCA_CUSTOM, C.MQIACH_WARNING}
_MAPPING = {C.MQIACH_USER_SOURCE, C.MQCACH_MCA_USER_ID, C.MQCACH_CONNECTION_NAME} | _COMMON
_IDENTITY = {
    A.MQCAUT_BLOCKUSER: C.MQCACH_MCA_USER_ID_LIST,
    A.MQCAUT_BLOCKADDR: C.MQCACH_CONNECTION_NAME_LIST,
    A.MQCAUT_ADDRESSMAP: C.MQCACH_CONNECTION_NAME,
    A.MQCAUT_USERMAP: C.MQCACH_CLIENT_USER_ID,
    A.MQCAUT_QMGRMAP: C.MQCA_REMOTE_Q_MGR_NAME,
    A.MQCAUT_SSLPEERMAP: C.MQCACH_SSL_PEER_NAME,
}
_ALLOWED = {
    A.MQCAUT_BLOCKUSER: {C.MQCACH_MCA_USER_ID_LIST} | _COMMON,
    A.MQCAUT_BLOCKADDR: {C.MQCACH_CONNECTION_NAME_LIST} | _COMMON,
    A.MQCAUT_ADDRESSMAP: _MAPPING | {C.MQIA_CHECK_CLIENT_BINDING},
    A.MQCAUT_USERMAP: _MAPPING | {C.MQCACH_CLIENT_USER_ID, C.MQIA_CHECK_CLIENT_BINDING},
    A.MQCAUT_QMGRMAP: _MAPPING | {C.MQCA_REMOTE_Q_MGR_NAME},
    A.MQCAUT_SSLPEERMAP: _MAPPING | {C.MQCACH_SSL_PEER_NAME, C.MQCA_SSL_CERT_ISSUER_NAME, C.MQIA_CHECK_CLIENT_BINDING},
}
# What identifies a mapping record beside its profile (REMOVE may name these and nothing else).
_KEY_PARAMS = {C.MQCACH_CONNECTION_NAME, C.MQCACH_CLIENT_USER_ID, C.MQCA_REMOTE_Q_MGR_NAME, C.MQCACH_SSL_PEER_NAME,
               C.MQCA_SSL_CERT_ISSUER_NAME, C.MQCACH_MCA_USER_ID_LIST, C.MQCACH_CONNECTION_NAME_LIST}


def _profile(values: dict) -> str:
    profile = values.get(C.MQCACH_CHANNEL_NAME, "")
    if not profile:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQCACH_CHANNEL_NAME)
    if not all(ch.isalnum() or ch in "._/%*" for ch in profile):  # type: ignore[union-attr]
        raise CommandError(C.MQRCCF_CHLAUTH_NAME_ERROR, parameter=C.MQCACH_CHANNEL_NAME)
    return profile  # type: ignore[return-value]


def _check_set(values: dict, type_: int, action: int, profile: str) -> None:
    given = set(values) & set(_FIELD_OF)
    wrong_type = given - _ALLOWED[type_]
    if wrong_type:
        raise CommandError(C.MQRCCF_WRONG_CHLAUTH_TYPE, parameter=min(wrong_type))
    if type_ == A.MQCAUT_BLOCKADDR and profile != "*":
        raise CommandError(C.MQRCCF_CHLAUTH_NAME_ERROR, parameter=C.MQCACH_CHANNEL_NAME)
    identity = _IDENTITY[type_]
    if action == C.MQACT_REMOVEALL:
        if given & _KEY_PARAMS:
            raise CommandError(C.MQRCCF_WRONG_CHLAUTH_ACTION, parameter=min(given & _KEY_PARAMS))
        return
    if action == C.MQACT_REMOVE and given - _KEY_PARAMS:
        raise CommandError(C.MQRCCF_WRONG_CHLAUTH_ACTION, parameter=min(given - _KEY_PARAMS))
    if not values.get(identity):
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=identity)
    clnt_user = values.get(C.MQCACH_CLIENT_USER_ID, "")
    if "*" in clnt_user or "?" in clnt_user:  # type: ignore[operator]
        raise CommandError(C.MQRCCF_CHLAUTH_CLNTUSER_ERROR, parameter=C.MQCACH_CLIENT_USER_ID)
    addresses = list(values.get(C.MQCACH_CONNECTION_NAME_LIST, ()))  # type: ignore[arg-type]
    if values.get(C.MQCACH_CONNECTION_NAME):
        addresses.append(values[C.MQCACH_CONNECTION_NAME])
    for address in addresses:
        if not chlauth.valid_address(address):
            raise CommandError(C.MQRCCF_ADDRESS_ERROR, parameter=C.MQCACH_CONNECTION_NAME)
    if len(values.get(C.MQCACH_MCA_USER_ID_LIST, ())) > MAX_USERS or len(  # type: ignore[arg-type]
            values.get(C.MQCACH_CONNECTION_NAME_LIST, ())) > MAX_ADDRESSES:  # type: ignore[arg-type]
        raise CommandError(C.MQRCCF_CHLAUTH_MAX_EXCEEDED, parameter=identity)
    if action == C.MQACT_REMOVE:
        return
    source = values.get(C.MQIACH_USER_SOURCE, A.MQUSRC_MAP)
    if source not in _USER_SOURCES:
        raise CommandError(C.MQRCCF_CHLAUTH_USERSRC_ERROR, parameter=C.MQIACH_USER_SOURCE)
    check = values.get(C.MQIA_CHECK_CLIENT_BINDING)
    if check is not None and check not in _CHECK_CLIENT:
        raise CommandError(C.MQRCCF_CHLAUTH_CHKCLI_ERROR, parameter=C.MQIA_CHECK_CLIENT_BINDING)
    if type_ in chlauth.BLOCKING:
        return
    if source == A.MQUSRC_MAP and not values.get(C.MQCACH_MCA_USER_ID):
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQCACH_MCA_USER_ID)
    if source != A.MQUSRC_MAP and C.MQCACH_MCA_USER_ID in values:
        raise CommandError(C.MQRCCF_WRONG_CHLAUTH_USERSRC, parameter=C.MQCACH_MCA_USER_ID)
    if source != A.MQUSRC_NOACCESS and C.MQIACH_WARNING in values:
        raise CommandError(C.MQRCCF_WRONG_CHLAUTH_USERSRC, parameter=C.MQIACH_WARNING)
    if source == A.MQUSRC_NOACCESS and check is not None:
        raise CommandError(C.MQRCCF_WRONG_CHLAUTH_USERSRC, parameter=C.MQIA_CHECK_CLIENT_BINDING)


def set_chlauth_rec(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _SET).values
    profile = _profile(values)
    if C.MQIACF_CHLAUTH_TYPE not in values:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQIACF_CHLAUTH_TYPE)
    type_ = values[C.MQIACF_CHLAUTH_TYPE]
    if type_ not in _TYPES:
        raise CommandError(C.MQRCCF_CHLAUTH_TYPE_ERROR, parameter=C.MQIACF_CHLAUTH_TYPE)
    action = values.get(C.MQIACF_ACTION, C.MQACT_ADD)
    if action not in _ACTIONS:
        raise CommandError(C.MQRCCF_CHLAUTH_ACTION_ERROR, parameter=C.MQIACF_ACTION)
    _check_set(values, type_, action, profile)  # type: ignore[arg-type]
    reg = ctx.registry
    records = reg.objects(chlauth.KIND)
    fields = {field: values[pid] for pid, field in _FIELD_OF.items() if pid in values}
    probe = chlauth.make(profile, type_, **fields)  # type: ignore[arg-type]
    existing = records.get(probe.name)
    now = reg.now()
    if action == C.MQACT_REMOVEALL:
        doomed = [rec for rec in records.values() if rec.profile == profile and rec.type == type_]
        if not doomed:
            raise CommandError(C.MQRCCF_CHLAUTH_NOT_FOUND)
        for rec in doomed:
            reg.remove_object(chlauth.KIND, rec)
        return R.ok(ctx.command)
    if type_ in chlauth.BLOCKING:
        list_field = "user_list" if type_ == A.MQCAUT_BLOCKUSER else "addr_list"
        given = tuple(dict.fromkeys(getattr(probe, list_field)))
        if action == C.MQACT_REMOVE:
            if existing is None or not set(given) & set(getattr(existing, list_field)):
                raise CommandError(C.MQRCCF_CHLAUTH_NOT_FOUND)
            kept = tuple(v for v in getattr(existing, list_field) if v not in given)
            if not kept:
                reg.remove_object(chlauth.KIND, existing)  # the last entry takes the record with it
            else:
                reg.put_object(chlauth.KIND, dataclasses.replace(existing, **{list_field: kept}, altered=now))
            return R.ok(ctx.command)
        if action == C.MQACT_ADD and existing is not None:  # ADD extends the list
            given = tuple(dict.fromkeys(getattr(existing, list_field) + given))
        limit = MAX_USERS if type_ == A.MQCAUT_BLOCKUSER else MAX_ADDRESSES
        if len(given) > limit:
            raise CommandError(C.MQRCCF_CHLAUTH_MAX_EXCEEDED, parameter=_IDENTITY[type_])
        base = existing if existing is not None else probe
        changes = {k: v for k, v in fields.items() if k != list_field}
        record = dataclasses.replace(base, **changes, **{list_field: given})
    else:
        if action == C.MQACT_REMOVE:
            if existing is None:
                raise CommandError(C.MQRCCF_CHLAUTH_NOT_FOUND)
            reg.remove_object(chlauth.KIND, existing)
            return R.ok(ctx.command)
        if action == C.MQACT_ADD and existing is not None:
            raise CommandError(C.MQRCCF_CHLAUTH_ALREADY_EXISTS)
        record = probe
    record.created = existing.created if existing is not None else now
    record.altered = now
    reg.put_object(chlauth.KIND, record)
    return R.ok(ctx.command)


# ---- Inquire --------------------------------------------------------------------------------------
_INQUIRE = (p_str(C.MQCACH_CHANNEL_NAME, CHANNEL_LENGTH), p_int(C.MQIACF_CHLAUTH_TYPE, A.MQCAUT_ALL, *_TYPES),
            p_int(C.MQIACH_MATCH, A.MQMATCH_GENERIC, A.MQMATCH_RUNCHECK, A.MQMATCH_EXACT, A.MQMATCH_ALL),
            p_str(C.MQCACH_CONNECTION_NAME, C.MQ_CONN_NAME_LENGTH), p_str(C.MQCACH_CLIENT_USER_ID,
                                                                         C.MQ_CLIENT_USER_ID_LENGTH),
            p_str(C.MQCA_REMOTE_Q_MGR_NAME, C.MQ_Q_MGR_NAME_LENGTH), p_str(C.MQCACH_SSL_PEER_NAME,
                                                                          C.MQ_SSL_PEER_NAME_LENGTH),
            p_str(C.MQCA_SSL_CERT_ISSUER_NAME, C.MQ_SSL_PEER_NAME_LENGTH), p_int_list(C.MQIACF_CHLAUTH_ATTRS),
            p_str(C.MQCACF_COMMAND_SCOPE, C.MQ_Q_MGR_NAME_LENGTH))
# Attribute -> (types reporting it, render)
_STR = lambda pid, field: (pid, lambda r: R.text(pid, getattr(r, field)))  # noqa: E731
_REPORT = {
    C.MQCACH_CONNECTION_NAME: ({A.MQCAUT_ADDRESSMAP, A.MQCAUT_USERMAP, A.MQCAUT_QMGRMAP, A.MQCAUT_SSLPEERMAP},
                               lambda r: R.text(C.MQCACH_CONNECTION_NAME, r.address)),
    C.MQCACH_CONNECTION_NAME_LIST: ({A.MQCAUT_BLOCKADDR},
                                    lambda r: P.CFSL(C.MQCACH_CONNECTION_NAME_LIST, r.addr_list, R.QMGR_CCSID)),
    C.MQCACH_MCA_USER_ID_LIST: ({A.MQCAUT_BLOCKUSER},
                                lambda r: P.CFSL(C.MQCACH_MCA_USER_ID_LIST, r.user_list, R.QMGR_CCSID)),
    C.MQCACH_CLIENT_USER_ID: ({A.MQCAUT_USERMAP}, lambda r: R.text(C.MQCACH_CLIENT_USER_ID, r.clnt_user)),
    C.MQCA_REMOTE_Q_MGR_NAME: ({A.MQCAUT_QMGRMAP}, lambda r: R.text(C.MQCA_REMOTE_Q_MGR_NAME, r.qm_name)),
    C.MQCACH_SSL_PEER_NAME: ({A.MQCAUT_SSLPEERMAP}, lambda r: R.text(C.MQCACH_SSL_PEER_NAME, r.ssl_peer)),
    C.MQCA_SSL_CERT_ISSUER_NAME: ({A.MQCAUT_SSLPEERMAP},
                                  lambda r: R.text(C.MQCA_SSL_CERT_ISSUER_NAME, r.ssl_cert_issuer)),
    C.MQIACH_USER_SOURCE: (set(chlauth._MAP_RANK), lambda r: P.CFIN(C.MQIACH_USER_SOURCE, r.user_source)),
    C.MQCACH_MCA_USER_ID: (set(chlauth._MAP_RANK), lambda r: R.text(C.MQCACH_MCA_USER_ID, r.mca_user)),
    C.MQIA_CHECK_CLIENT_BINDING: ({A.MQCAUT_ADDRESSMAP, A.MQCAUT_USERMAP, A.MQCAUT_SSLPEERMAP},
                                  lambda r: P.CFIN(C.MQIA_CHECK_CLIENT_BINDING, r.check_client)),
    C.MQIACH_WARNING: (set(chlauth.TYPE_NAMES), lambda r: P.CFIN(C.MQIACH_WARNING, r.warn)),
    C.MQCA_CHLAUTH_DESC: (set(chlauth.TYPE_NAMES), lambda r: R.text(C.MQCA_CHLAUTH_DESC, r.description)),
    C.MQCA_CUSTOM: (set(chlauth.TYPE_NAMES), lambda r: R.text(C.MQCA_CUSTOM, r.custom)),
    C.MQCA_ALTERATION_DATE: (set(chlauth.TYPE_NAMES), lambda r: R.text(C.MQCA_ALTERATION_DATE, mq_date(r.altered))),
    C.MQCA_ALTERATION_TIME: (set(chlauth.TYPE_NAMES), lambda r: R.text(C.MQCA_ALTERATION_TIME, mq_time(r.altered))),
}


def _render(rec, attrs) -> list:
    out: list = [R.text(C.MQCACH_CHANNEL_NAME, rec.profile), P.CFIN(C.MQIACF_CHLAUTH_TYPE, rec.type)]
    for pid, (types, render) in _REPORT.items():
        if rec.type in types and (attrs is None or pid in attrs):
            out.append(render(rec))
    return out


def inquire_chlauth_recs(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE).values
    profile = values.get(C.MQCACH_CHANNEL_NAME) or "*"
    type_ = values.get(C.MQIACF_CHLAUTH_TYPE, A.MQCAUT_ALL)
    match = values.get(C.MQIACH_MATCH, A.MQMATCH_GENERIC)
    attrs = values.get(C.MQIACF_CHLAUTH_ATTRS)
    if attrs is not None:
        if C.MQIACF_ALL in attrs:  # type: ignore[operator]
            attrs = None
        else:
            for attr in attrs:  # type: ignore[union-attr]
                if attr not in _REPORT:
                    raise CommandError(C.MQRCCF_ATTR_VALUE_ERROR, parameter=C.MQIACF_CHLAUTH_ATTRS)
    reg = ctx.registry
    runtime_only = (C.MQCACH_CONNECTION_NAME, C.MQCACH_CLIENT_USER_ID, C.MQCA_REMOTE_Q_MGR_NAME,
                    C.MQCACH_SSL_PEER_NAME, C.MQCA_SSL_CERT_ISSUER_NAME)
    if match != A.MQMATCH_RUNCHECK:
        for pid in runtime_only:
            if pid in values:
                raise CommandError(C.MQRCCF_WRONG_CHLAUTH_MATCH, parameter=pid)
    records = sorted(reg.objects(chlauth.KIND).values(), key=lambda r: (r.profile, r.type, r.name))
    if match == A.MQMATCH_RUNCHECK:
        # The record the connection-time check would use for this channel, address and user.
        if "*" in profile or type_ != A.MQCAUT_ALL:
            raise CommandError(C.MQRCCF_CHLAUTH_RUNCHECK_ERROR, parameter=C.MQCACH_CHANNEL_NAME)
        address = values.get(C.MQCACH_CONNECTION_NAME, "")
        if not address or "*" in address:  # type: ignore[operator]
            raise CommandError(C.MQRCCF_CHLAUTH_RUNCHECK_ERROR, parameter=C.MQCACH_CONNECTION_NAME)
        found = chlauth.runtime_record(reg, profile, address,
                                       values.get(C.MQCACH_CLIENT_USER_ID, ""))  # type: ignore[arg-type]
        selected = [found] if found is not None else []
    else:
        def wanted(rec) -> bool:
            if type_ != A.MQCAUT_ALL and rec.type != type_:
                return False
            if match == A.MQMATCH_EXACT:
                return rec.profile == profile
            if match == A.MQMATCH_ALL:  # every record whose profile would apply to this channel name
                return chlauth.channel_matches(rec.profile, profile) or chlauth.channel_matches(profile, rec.profile)
            return chlauth.channel_matches(profile, rec.profile)  # GENERIC: the name as a pattern
        selected = [rec for rec in records if wanted(rec)]
    return R.data(ctx.command, [_render(rec, attrs) for rec in selected], none_found=C.MQRCCF_CHLAUTH_NOT_FOUND)


def register(engine) -> None:
    engine.register(C.MQCMD_SET_CHLAUTH_REC, set_chlauth_rec)
    engine.register(C.MQCMD_INQUIRE_CHLAUTH_RECS, inquire_chlauth_recs)
