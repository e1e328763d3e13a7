"""Authentication information, listener, service and communication information commands.

Each is a DefinitionKind (definitions.py).  Authentication information has subtypes
(AuthInfoType, required on Create, Copy and Change, as ChannelType is for channels).  Listeners,
services and communication information have no Inquire Names command on Multiplatforms.

Status and control (IBM, "Inquire Channel Listener Status", "Start/Stop Channel Listener",
"Inquire/Start/Stop Service"): the listener the server's socket belongs to is RUNNING on the
server's actual port; Stop Listener stops it taking new clients (running channels go on), Start
Listener lets it take them again.  qmlite opens no further sockets, so starting another listener is
MQRCCF_LISTENER_NOT_STARTED; and it runs no programs, so Start Service of a service with a command is
MQRC_FUNCTION_NOT_SUPPORTED (one without is MQRCCF_NO_START_CMD, as IBM documents).
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import values as V
from qmlite.registry.objects import endpoints as EP
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, attr
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.admin.params import INT, STR, CommandError, filter_matches, p_int, p_int_list, p_str, parse
from qmlite.registry.admin.commands import definitions
from qmlite.registry.admin.commands import typed
from qmlite.registry.admin.commands.definitions import CommandIds, DefinitionKind, matching, object_name
from qmlite.registry.admin.commands.typed import Spec, Subtyped, TypedTable, attrs, definition


def _dates() -> list:
    return [attr(C.MQCA_ALTERATION_DATE, STR, lambda o: mq_date(o.altered), pad=C.MQ_DATE_LENGTH),
            attr(C.MQCA_ALTERATION_TIME, STR, lambda o: mq_time(o.altered), pad=C.MQ_TIME_LENGTH)]


def _never_shown(field: str):
    return lambda o: "********" if getattr(o, field) else ""


# ---- authentication information ------------------------------------------------------------------
_OS, _LDAP, _CRL, _OCSP = V.MQAIT_IDPW_OS, V.MQAIT_IDPW_LDAP, V.MQAIT_CRL_LDAP, V.MQAIT_OCSP
_IDPW = frozenset({_OS, _LDAP})
_CHECKS = (C.MQCHK_NONE, C.MQCHK_OPTIONAL, C.MQCHK_REQUIRED, C.MQCHK_REQUIRED_ADMIN)
_FIELD, _CLASS = C.MQ_LDAP_FIELD_LENGTH, C.MQ_LDAP_CLASS_LENGTH
AUTHINFO_SPECS = (
    Spec(p_str(C.MQCA_AUTH_INFO_DESC, C.MQ_AUTH_INFO_DESC_LENGTH), "description", C.MQ_AUTH_INFO_DESC_LENGTH),
    Spec(p_str(C.MQCA_AUTH_INFO_CONN_NAME, C.MQ_AUTH_INFO_CONN_NAME_LENGTH), "conn_name",
         C.MQ_AUTH_INFO_CONN_NAME_LENGTH, frozenset({_LDAP, _CRL})),
    Spec(p_str(C.MQCA_LDAP_USER_NAME, C.MQ_DISTINGUISHED_NAME_LENGTH), "ldap_user", None, frozenset({_LDAP, _CRL})),
    Spec(p_str(C.MQCA_LDAP_PASSWORD, C.MQ_LDAP_PASSWORD_LENGTH), "ldap_password", C.MQ_LDAP_PASSWORD_LENGTH,
         frozenset({_LDAP, _CRL}), _never_shown("ldap_password")),
    Spec(p_str(C.MQCA_AUTH_INFO_OCSP_URL, C.MQ_AUTH_INFO_OCSP_URL_LENGTH), "ocsp_url",
         C.MQ_AUTH_INFO_OCSP_URL_LENGTH, frozenset({_OCSP})),
    Spec(p_int(C.MQIA_CHECK_CLIENT_BINDING, *_CHECKS), "check_client", types=_IDPW),
    Spec(p_int(C.MQIA_CHECK_LOCAL_BINDING, *_CHECKS), "check_local", types=_IDPW),
    Spec(p_int(C.MQIA_ADOPT_CONTEXT, C.MQADPCTX_NO, C.MQADPCTX_YES), "adopt_context", types=_IDPW),
    Spec(p_int(C.MQIA_AUTHENTICATION_FAIL_DELAY, low=0, high=60), "fail_delay", types=_IDPW),
    Spec(p_int(C.MQIA_AUTHENTICATION_METHOD, V.MQAUTHENTICATE_OS, V.MQAUTHENTICATE_PAM), "authentication_method",
         types=frozenset({_OS})),
    Spec(p_int(C.MQIA_LDAP_SECURE_COMM, C.MQSECCOMM_NO, C.MQSECCOMM_YES, C.MQSECCOMM_ANON), "secure_comms",
         types=frozenset({_LDAP})),
    Spec(p_str(C.MQCA_LDAP_BASE_DN_USERS, C.MQ_LDAP_BASE_DN_LENGTH), "base_dn_user", None, frozenset({_LDAP})),
    Spec(p_str(C.MQCA_LDAP_USER_OBJECT_CLASS, _CLASS), "class_user", _CLASS, frozenset({_LDAP})),
    Spec(p_str(C.MQCA_LDAP_SHORT_USER_FIELD, _FIELD), "short_user", _FIELD, frozenset({_LDAP})),
    Spec(p_str(C.MQCA_LDAP_USER_ATTR_FIELD, _FIELD), "user_field", _FIELD, frozenset({_LDAP})),
    Spec(p_int(C.MQIA_LDAP_AUTHORMD, V.MQLDAP_AUTHORMD_OS, V.MQLDAP_AUTHORMD_SEARCHGRP,
               V.MQLDAP_AUTHORMD_SEARCHUSR, V.MQLDAP_AUTHORMD_SRCHGRPSN), "authorization_method",
         types=frozenset({_LDAP})),
    Spec(p_str(C.MQCA_LDAP_BASE_DN_GROUPS, C.MQ_LDAP_BASE_DN_LENGTH), "base_dn_group", None, frozenset({_LDAP})),
    Spec(p_str(C.MQCA_LDAP_GROUP_OBJECT_CLASS, _CLASS), "class_group", _CLASS, frozenset({_LDAP})),
    Spec(p_str(C.MQCA_LDAP_GROUP_ATTR_FIELD, _FIELD), "group_field", _FIELD, frozenset({_LDAP})),
    Spec(p_str(C.MQCA_LDAP_FIND_GROUP_FIELD, _FIELD), "find_group", _FIELD, frozenset({_LDAP})),
    Spec(p_int(C.MQIA_LDAP_NESTGRP, V.MQLDAP_NESTGRP_NO, V.MQLDAP_NESTGRP_YES), "nested_groups",
         types=frozenset({_LDAP})),
)
AUTHINFO_TABLE = AttrTable([
    attr(C.MQCA_AUTH_INFO_NAME, STR, "name", pad=C.MQ_AUTH_INFO_NAME_LENGTH, always=True),
    attr(C.MQIA_AUTH_INFO_TYPE, INT, "auth_info_type", always=True),
    *attrs(AUTHINFO_SPECS), *_dates(),
])
AUTHINFO_TYPED = TypedTable(AUTHINFO_TABLE, AUTHINFO_SPECS, lambda a: a.auth_info_type)
AUTHINFO = DefinitionKind(
    model=EP.AuthInfo, name_param=C.MQCA_AUTH_INFO_NAME, from_param=C.MQCACF_FROM_AUTH_INFO_NAME,
    to_param=C.MQCACF_TO_AUTH_INFO_NAME, attrs_param=C.MQIACF_AUTH_INFO_ATTRS,
    names_param=C.MQCACF_AUTH_INFO_NAMES, name_length=C.MQ_AUTH_INFO_NAME_LENGTH,
    registry_dict="", put_method="", remove_method="", default_name="",
    definition=((p_int(C.MQIA_AUTH_INFO_TYPE), "auth_info_type"),) + definition(AUTHINFO_SPECS),
    table=AUTHINFO_TABLE,
    commands=CommandIds(C.MQCMD_CREATE_AUTH_INFO, C.MQCMD_COPY_AUTH_INFO, C.MQCMD_CHANGE_AUTH_INFO,
                        C.MQCMD_DELETE_AUTH_INFO, C.MQCMD_INQUIRE_AUTH_INFO, C.MQCMD_INQUIRE_AUTH_INFO_NAMES),
    generic=EP.AUTHINFO,
)
# No reason names an attribute of the wrong AuthInfoType or a type that is not the object's: IBM's
# Change/Copy/Create Authentication Information lists neither, so both are MQRCCF_PARM_CONFLICT.
AUTHINFO_SUBTYPED = Subtyped(AUTHINFO, AUTHINFO_SPECS, C.MQIA_AUTH_INFO_TYPE, "auth_info_type",
                             (_OS, _LDAP, _CRL, _OCSP), EP.DEFAULT_AUTHINFO_OF,
                             lambda name, t: EP.AuthInfo(name, auth_info_type=t),
                             invalid=C.MQRCCF_PARM_VALUE_ERROR, mismatch=C.MQRCCF_PARM_CONFLICT,
                             wrong_type=C.MQRCCF_PARM_CONFLICT)
_P_AUTHINFO_TYPE = p_int(C.MQIA_AUTH_INFO_TYPE, V.MQAIT_ALL, _OS, _LDAP, _CRL, _OCSP)


def _of_type(values: dict, objects: list) -> list:
    wanted = values.get(C.MQIA_AUTH_INFO_TYPE, V.MQAIT_ALL)
    return objects if wanted == V.MQAIT_ALL else [o for o in objects if o.auth_info_type == wanted]


def inquire_auth_info(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parsed = parse(request, AUTHINFO.inquire_params + (_P_AUTHINFO_TYPE,), filters=AUTHINFO_TABLE.filter_kinds())
    values, flt = parsed.values, parsed.filter
    selected = AUTHINFO_TABLE.select(values.get(AUTHINFO.attrs_param))  # type: ignore[arg-type]
    found = _of_type(values, matching(AUTHINFO.objects(ctx.registry), values, AUTHINFO.name_param))
    rows = [AUTHINFO_TYPED.render(a, selected) for a in found
            if flt is None or (AUTHINFO_TYPED.has(a, flt.parameter)
                               and filter_matches(flt, AUTHINFO_TABLE.value(a, flt.parameter)))]
    return R.data(ctx.command, rows, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_auth_info_names(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, AUTHINFO.inquire_names_params + (_P_AUTHINFO_TYPE,)).values
    found = _of_type(values, matching(AUTHINFO.objects(ctx.registry), values, AUTHINFO.name_param))
    names = tuple(a.name.ljust(AUTHINFO.name_length) for a in found)
    return R.data(ctx.command, [[P.CFSL(AUTHINFO.names_param, names, R.QMGR_CCSID)]],
                  none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


# ---- listeners -----------------------------------------------------------------------------------
_CONTROL = (C.MQSVC_CONTROL_Q_MGR, C.MQSVC_CONTROL_Q_MGR_START, C.MQSVC_CONTROL_MANUAL)
LISTENER_DEFINITION = (
    (p_str(C.MQCACH_LISTENER_DESC, C.MQ_LISTENER_DESC_LENGTH), "description"),
    (p_int(C.MQIACH_XMIT_PROTOCOL_TYPE, C.MQXPT_TCP, C.MQXPT_LU62, C.MQXPT_NETBIOS, C.MQXPT_SPX), "transport_type"),
    (p_int(C.MQIACH_PORT, low=0, high=65535), "port"),
    (p_str(C.MQCACH_IP_ADDRESS, C.MQ_IP_ADDRESS_LENGTH), "ip_address"),
    (p_int(C.MQIACH_BACKLOG, low=0, high=999_999_999), "backlog"),
    (p_int(C.MQIACH_LISTENER_CONTROL, *_CONTROL), "start_mode"),
    (p_str(C.MQCACH_TP_NAME, C.MQ_TP_NAME_LENGTH), "tp_name"),
    # Windows NetBIOS and SPX (no range documented: any count from 0, docs/decisions.md O3)
    (p_int(C.MQIACH_ADAPTER, low=0, high=999_999_999), "adapter"),
    (p_int(C.MQIACH_COMMAND_COUNT, low=0, high=999_999_999), "command_count"),
    (p_str(C.MQCACH_LOCAL_NAME, C.MQ_CONN_NAME_LENGTH), "local_name"),
    (p_int(C.MQIACH_NAME_COUNT, low=0, high=999_999_999), "name_count"),
    (p_int(C.MQIACH_SESSION_COUNT, low=0, high=999_999_999), "session_count"),
    (p_int(C.MQIACH_SOCKET, low=0, high=65535), "socket"),
)
LISTENER_TABLE = AttrTable([
    attr(C.MQCACH_LISTENER_NAME, STR, "name", pad=C.MQ_LISTENER_NAME_LENGTH, always=True),
    attr(C.MQCACH_LISTENER_DESC, STR, "description", pad=C.MQ_LISTENER_DESC_LENGTH),
    attr(C.MQIACH_XMIT_PROTOCOL_TYPE, INT, "transport_type"),
    attr(C.MQIACH_PORT, INT, "port"),
    attr(C.MQCACH_IP_ADDRESS, STR, "ip_address", pad=C.MQ_IP_ADDRESS_LENGTH),
    attr(C.MQIACH_BACKLOG, INT, "backlog"),
    attr(C.MQIACH_LISTENER_CONTROL, INT, "start_mode"),
    attr(C.MQCACH_TP_NAME, STR, "tp_name", pad=C.MQ_TP_NAME_LENGTH),
    attr(C.MQIACH_ADAPTER, INT, "adapter"),
    attr(C.MQIACH_COMMAND_COUNT, INT, "command_count"),
    attr(C.MQCACH_LOCAL_NAME, STR, "local_name", pad=C.MQ_CONN_NAME_LENGTH),
    attr(C.MQIACH_NAME_COUNT, INT, "name_count"),
    attr(C.MQIACH_SESSION_COUNT, INT, "session_count"),
    attr(C.MQIACH_SOCKET, INT, "socket"),
    *_dates(),
])
LISTENER = DefinitionKind(
    model=EP.Listener, name_param=C.MQCACH_LISTENER_NAME, from_param=C.MQCACF_FROM_LISTENER_NAME,
    to_param=C.MQCACF_TO_LISTENER_NAME, attrs_param=C.MQIACF_LISTENER_ATTRS, names_param=0,
    name_length=C.MQ_LISTENER_NAME_LENGTH, registry_dict="", put_method="", remove_method="",
    default_name=EP.DEFAULT_LISTENER, definition=LISTENER_DEFINITION, table=LISTENER_TABLE,
    commands=CommandIds(C.MQCMD_CREATE_LISTENER, C.MQCMD_COPY_LISTENER, C.MQCMD_CHANGE_LISTENER,
                        C.MQCMD_DELETE_LISTENER, C.MQCMD_INQUIRE_LISTENER, 0),
    generic=EP.LISTENER,
)


class _ListenerRow:
    def __init__(self, listener: EP.Listener, run) -> None:
        self.listener, self.run = listener, run


_LSTATUS = AttrTable([
    attr(C.MQCACH_LISTENER_NAME, STR, lambda r: r.listener.name, pad=C.MQ_LISTENER_NAME_LENGTH, always=True),
    attr(C.MQIACH_LISTENER_STATUS, INT, lambda r: C.MQSVC_STATUS_RUNNING),
    attr(C.MQCACH_LISTENER_DESC, STR, lambda r: r.listener.description, pad=C.MQ_LISTENER_DESC_LENGTH),
    attr(C.MQIACH_XMIT_PROTOCOL_TYPE, INT, lambda r: r.listener.transport_type),
    attr(C.MQIACH_PORT, INT, lambda r: r.run.port),
    attr(C.MQCACH_IP_ADDRESS, STR, lambda r: r.run.ip_address, pad=C.MQ_IP_ADDRESS_LENGTH),
    attr(C.MQIACH_BACKLOG, INT, lambda r: r.run.backlog),
    attr(C.MQIACH_LISTENER_CONTROL, INT, lambda r: r.listener.start_mode),
    attr(C.MQCACH_LISTENER_START_DATE, STR, lambda r: mq_date(r.run.started), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCACH_LISTENER_START_TIME, STR, lambda r: mq_time(r.run.started), pad=C.MQ_TIME_LENGTH),
    attr(C.MQIACF_PROCESS_ID, INT, lambda r: r.run.process_id),
])


def inquire_listener_status(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parsed = parse(request, (p_str(C.MQCACH_LISTENER_NAME, C.MQ_LISTENER_NAME_LENGTH),
                             p_int_list(C.MQIACF_LISTENER_STATUS_ATTRS)), filters=_LSTATUS.filter_kinds())
    values, flt = parsed.values, parsed.filter
    reg = ctx.registry
    found = matching(reg.objects(EP.LISTENER), values, C.MQCACH_LISTENER_NAME)
    rows = [_ListenerRow(lst, reg.running.listeners[lst.name]) for lst in found if lst.name in reg.running.listeners]
    if flt is not None:
        rows = [r for r in rows if filter_matches(flt, _LSTATUS.value(r, flt.parameter))]
    selected = _LSTATUS.select(values.get(C.MQIACF_LISTENER_STATUS_ATTRS))  # type: ignore[arg-type]
    return R.data(ctx.command, [_LSTATUS.render(r, selected) for r in rows],
                  none_found=C.MQRCCF_LSTR_STATUS_NOT_FOUND)


def _named(reg, values: dict, kind: str, param: int):
    """The existing object of a generic ``kind`` that ``values[param]`` names (Start/Stop/status)."""
    found = reg.objects(kind).get(object_name(values, param))
    if found is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, parameter=param)
    return found


def _listener(reg, values: dict) -> EP.Listener:
    return _named(reg, values, EP.LISTENER, C.MQCACH_LISTENER_NAME)


def start_listener(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, (p_str(C.MQCACH_LISTENER_NAME, C.MQ_LISTENER_NAME_LENGTH),)).values
    reg = ctx.registry
    listener = _listener(reg, values)
    running = reg.running
    if listener.name in running.listeners:
        raise CommandError(C.MQRCCF_LISTENER_RUNNING)
    if listener.name != running.served_listener:
        raise CommandError(C.MQRCCF_LISTENER_NOT_STARTED)  # qmlite listens on one socket only
    running.listener_started(listener.name, running.served_port, reg.now(), ip_address=listener.ip_address,
                             backlog=listener.backlog, process_id=running.served_pid)
    return R.ok(ctx.command)


def stop_listener(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, (p_str(C.MQCACH_LISTENER_NAME, C.MQ_LISTENER_NAME_LENGTH),)).values
    reg = ctx.registry
    listener = _listener(reg, values)
    if listener.name not in reg.running.listeners:
        raise CommandError(C.MQRCCF_LISTENER_STOPPED)
    reg.running.listener_stopped(listener.name)
    return R.ok(ctx.command)


# ---- services ------------------------------------------------------------------------------------
_CMD, _ARGS, _PATH = C.MQ_SERVICE_COMMAND_LENGTH, C.MQ_SERVICE_ARGS_LENGTH, C.MQ_SERVICE_PATH_LENGTH
SERVICE_DEFINITION = (
    (p_str(C.MQCA_SERVICE_DESC, C.MQ_SERVICE_DESC_LENGTH), "description"),
    (p_int(C.MQIA_SERVICE_TYPE, C.MQSVC_TYPE_COMMAND, C.MQSVC_TYPE_SERVER), "service_type"),
    (p_str(C.MQCA_SERVICE_START_COMMAND, _CMD), "start_command"),
    (p_str(C.MQCA_SERVICE_START_ARGS, _ARGS), "start_args"),
    (p_str(C.MQCA_SERVICE_STOP_COMMAND, _CMD), "stop_command"),
    (p_str(C.MQCA_SERVICE_STOP_ARGS, _ARGS), "stop_args"),
    (p_str(C.MQCA_STDOUT_DESTINATION, _PATH), "stdout"),
    (p_str(C.MQCA_STDERR_DESTINATION, _PATH), "stderr"),
    (p_int(C.MQIA_SERVICE_CONTROL, *_CONTROL), "start_mode"),
)
SERVICE_TABLE = AttrTable([
    attr(C.MQCA_SERVICE_NAME, STR, "name", pad=C.MQ_OBJECT_NAME_LENGTH, always=True),
    attr(C.MQCA_SERVICE_DESC, STR, "description", pad=C.MQ_SERVICE_DESC_LENGTH),
    attr(C.MQIA_SERVICE_TYPE, INT, "service_type"),
    attr(C.MQCA_SERVICE_START_COMMAND, STR, "start_command", pad=_CMD),
    attr(C.MQCA_SERVICE_START_ARGS, STR, "start_args", pad=_ARGS),
    attr(C.MQCA_SERVICE_STOP_COMMAND, STR, "stop_command", pad=_CMD),
    attr(C.MQCA_SERVICE_STOP_ARGS, STR, "stop_args", pad=_ARGS),
    attr(C.MQCA_STDOUT_DESTINATION, STR, "stdout", pad=_PATH),
    attr(C.MQCA_STDERR_DESTINATION, STR, "stderr", pad=_PATH),
    attr(C.MQIA_SERVICE_CONTROL, INT, "start_mode"),
    *_dates(),
])
SERVICE = DefinitionKind(
    model=EP.Service, name_param=C.MQCA_SERVICE_NAME, from_param=C.MQCACF_FROM_SERVICE_NAME,
    to_param=C.MQCACF_TO_SERVICE_NAME, attrs_param=C.MQIACF_SERVICE_ATTRS, names_param=0,
    name_length=C.MQ_OBJECT_NAME_LENGTH, registry_dict="", put_method="", remove_method="",
    default_name=EP.DEFAULT_SERVICE, definition=SERVICE_DEFINITION, table=SERVICE_TABLE,
    commands=CommandIds(C.MQCMD_CREATE_SERVICE, C.MQCMD_COPY_SERVICE, C.MQCMD_CHANGE_SERVICE,
                        C.MQCMD_DELETE_SERVICE, C.MQCMD_INQUIRE_SERVICE, 0),
    generic=EP.SERVICE,
)


def _service(reg, values: dict) -> EP.Service:
    return _named(reg, values, EP.SERVICE, C.MQCA_SERVICE_NAME)


def inquire_service_status(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, (p_str(C.MQCA_SERVICE_NAME, C.MQ_OBJECT_NAME_LENGTH),
                             p_int_list(C.MQIACF_SERVICE_STATUS_ATTRS)), filters={}).values
    reg = ctx.registry
    found = matching(reg.objects(EP.SERVICE), values, C.MQCA_SERVICE_NAME)
    # qmlite starts no service programs, so no service ever has status to report.
    running = [s for s in found if s.name in reg.running.services]
    return R.data(ctx.command, [[R.text(C.MQCA_SERVICE_NAME, s.name, C.MQ_OBJECT_NAME_LENGTH),
                                 P.CFIN(C.MQIACF_SERVICE_STATUS, C.MQSVC_STATUS_RUNNING)] for s in running],
                  none_found=C.MQRCCF_SERV_STATUS_NOT_FOUND)


def start_service(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, (p_str(C.MQCA_SERVICE_NAME, C.MQ_OBJECT_NAME_LENGTH),)).values
    service = _service(ctx.registry, values)
    if service.name == EP.MQXR_SERVICE:  # the telemetry service qmlite runs itself (docs/mqtt.md)
        from qmlite.registry.admin.commands import telemetry
        return telemetry.start_service(ctx)
    if service.name in ctx.registry.running.services:
        raise CommandError(C.MQRCCF_SERVICE_RUNNING)
    if not service.start_command:
        raise CommandError(C.MQRCCF_NO_START_CMD)
    raise CommandError(C.MQRC_FUNCTION_NOT_SUPPORTED)  # qmlite runs no programs


def stop_service(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, (p_str(C.MQCA_SERVICE_NAME, C.MQ_OBJECT_NAME_LENGTH),
                             p_int(C.MQIACF_IGNORE_STATE, C.MQIS_NO, C.MQIS_YES))).values
    service = _service(ctx.registry, values)
    if service.name == EP.MQXR_SERVICE:
        from qmlite.registry.admin.commands import telemetry
        return telemetry.stop_service(ctx, values.get(C.MQIACF_IGNORE_STATE) == C.MQIS_YES)
    if service.name not in ctx.registry.running.services:
        if values.get(C.MQIACF_IGNORE_STATE) == C.MQIS_YES:
            return R.ok(ctx.command)
        raise CommandError(C.MQRCCF_SERVICE_STOPPED)
    if not service.stop_command:
        raise CommandError(C.MQRCCF_NO_STOP_CMD)
    raise CommandError(C.MQRC_FUNCTION_NOT_SUPPORTED)


# ---- communication information -------------------------------------------------------------------
COMMINFO_DEFINITION = (
    (p_str(C.MQCA_COMM_INFO_DESC, C.MQ_COMM_INFO_DESC_LENGTH), "description"),
    (p_int(C.MQIA_COMM_INFO_TYPE, V.MQCIT_MULTICAST), "comm_type"),
    (p_str(C.MQCACH_GROUP_ADDRESS, C.MQ_IP_ADDRESS_LENGTH), "group_address"),
    (p_int(C.MQIACH_PORT, low=1, high=65535), "port"),
    (p_int(C.MQIA_MCAST_BRIDGE, V.MQMCB_DISABLED, V.MQMCB_ENABLED), "bridge"),
    (p_int(C.MQIA_CODED_CHAR_SET_ID, low=0, high=65535), "ccsid"),
    (p_int(C.MQIA_COMM_EVENT, C.MQEVR_DISABLED, C.MQEVR_ENABLED, C.MQEVR_EXCEPTION), "comm_event"),
    (p_int(C.MQIACF_ENCODING, C.MQENC_AS_PUBLISHED, C.MQENC_NORMAL, C.MQENC_REVERSED, C.MQENC_S390,
           C.MQENC_TNS), "encoding"),
    (p_int(C.MQIACH_MC_HB_INTERVAL, low=0, high=999_999), "heartbeat_interval"),
    (p_int(C.MQIACH_MSG_HISTORY, low=0, high=999_999_999), "msg_history"),
    (p_int(C.MQIA_MONITOR_INTERVAL, low=0, high=999_999), "monitor_interval"),
    (p_int(C.MQIACH_MULTICAST_PROPERTIES, V.MQMCP_ALL, V.MQMCP_REPLY, V.MQMCP_USER, V.MQMCP_NONE,
           V.MQMCP_COMPAT), "multicast_properties"),
    (p_int(C.MQIACH_NEW_SUBSCRIBER_HISTORY, V.MQNSH_NONE, V.MQNSH_ALL), "new_subscriber_history"),
)
COMMINFO_TABLE = AttrTable([
    attr(C.MQCA_COMM_INFO_NAME, STR, "name", pad=C.MQ_COMM_INFO_NAME_LENGTH, always=True),
    *(attr(param.id, param.kind, field, pad=param.max_length) for param, field in COMMINFO_DEFINITION),
    *_dates(),
])
COMMINFO = DefinitionKind(
    model=EP.CommInfo, name_param=C.MQCA_COMM_INFO_NAME, from_param=C.MQCACF_FROM_COMM_INFO_NAME,
    to_param=C.MQCACF_TO_COMM_INFO_NAME, attrs_param=C.MQIACF_COMM_INFO_ATTRS, names_param=0,
    name_length=C.MQ_COMM_INFO_NAME_LENGTH, registry_dict="", put_method="", remove_method="",
    default_name=EP.DEFAULT_COMMINFO, definition=COMMINFO_DEFINITION, table=COMMINFO_TABLE,
    commands=CommandIds(C.MQCMD_CREATE_COMM_INFO, C.MQCMD_COPY_COMM_INFO, C.MQCMD_CHANGE_COMM_INFO,
                        C.MQCMD_DELETE_COMM_INFO, C.MQCMD_INQUIRE_COMM_INFO, 0),
    generic=EP.COMMINFO,
)


def register(engine) -> None:
    for kind in (LISTENER, SERVICE, COMMINFO):
        definitions.register(engine, kind)
    a = AUTHINFO
    for command, handler in (
            (C.MQCMD_CREATE_AUTH_INFO, lambda ctx, req: typed.create(AUTHINFO_SUBTYPED, ctx, req)),
            (C.MQCMD_COPY_AUTH_INFO, lambda ctx, req: typed.copy(AUTHINFO_SUBTYPED, ctx, req)),
            (C.MQCMD_CHANGE_AUTH_INFO, lambda ctx, req: typed.change(AUTHINFO_SUBTYPED, ctx, req)),
            (C.MQCMD_DELETE_AUTH_INFO, a.handlers.delete),
            (C.MQCMD_INQUIRE_AUTH_INFO, inquire_auth_info),
            (C.MQCMD_INQUIRE_AUTH_INFO_NAMES, inquire_auth_info_names),
            (C.MQCMD_INQUIRE_LISTENER_STATUS, inquire_listener_status),
            (C.MQCMD_START_CHANNEL_LISTENER, start_listener), (C.MQCMD_STOP_CHANNEL_LISTENER, stop_listener),
            (C.MQCMD_INQUIRE_SERVICE_STATUS, inquire_service_status),
            (C.MQCMD_START_SERVICE, start_service), (C.MQCMD_STOP_SERVICE, stop_service)):
        engine.register(command, handler)
