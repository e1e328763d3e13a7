"""Authentication information, listeners, services and communication information: the definitions
around channels, each a generic kind (registry/objects/generic.py), with the defaults a queue manager starts with.

Default values are those of IBM's SYSTEM.DEFAULT.* objects on a new Linux queue manager; the
developer container adds DEV.AUTHINFO and DEV.LISTENER.TCP (reference: the mq-container
10-dev.mqsc template).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

from qmlite.registry.objects import values as V
from qmlite.registry.objects import generic
from qmlite.registry.objects.defaults import DEV_CONN_AUTH

AUTHINFO, LISTENER, SERVICE, COMMINFO = "authinfo", "listener", "service", "comminfo"
DEV_LISTENER = "DEV.LISTENER.TCP"
DEFAULT_AUTHINFO_OF = {V.MQAIT_IDPW_OS: "SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
                       V.MQAIT_IDPW_LDAP: "SYSTEM.DEFAULT.AUTHINFO.IDPWLDAP",
                       V.MQAIT_CRL_LDAP: "SYSTEM.DEFAULT.AUTHINFO.CRLLDAP",
                       V.MQAIT_OCSP: "SYSTEM.DEFAULT.AUTHINFO.OCSP"}
DEFAULT_LISTENER = "SYSTEM.DEFAULT.LISTENER.TCP"
DEFAULT_SERVICE = "SYSTEM.DEFAULT.SERVICE"
MQXR_SERVICE = "SYSTEM.MQXR.SERVICE"  # the telemetry service (registry/telemetry/service.py)
DEFAULT_COMMINFO = "SYSTEM.DEFAULT.COMMINFO"


@dataclasses.dataclass(slots=True)
class AuthInfo:
    name: str
    auth_info_type: int = V.MQAIT_IDPW_OS
    description: str = ""
    conn_name: str = ""
    ldap_user: str = ""
    ldap_password: str = ""
    ocsp_url: str = ""
    check_client: int = C.MQCHK_REQUIRED_ADMIN
    check_local: int = C.MQCHK_OPTIONAL
    adopt_context: int = C.MQADPCTX_NO
    fail_delay: int = 1
    authentication_method: int = V.MQAUTHENTICATE_OS
    secure_comms: int = C.MQSECCOMM_NO
    base_dn_user: str = ""
    class_user: str = "inetOrgPerson"
    short_user: str = ""
    user_field: str = ""
    authorization_method: int = V.MQLDAP_AUTHORMD_OS
    base_dn_group: str = ""
    class_group: str = "groupOfNames"
    group_field: str = ""
    find_group: str = ""  # FINDGRP: the attribute naming a group's members
    nested_groups: int = V.MQLDAP_NESTGRP_NO
    created: float = 0.0
    altered: float = 0.0


@dataclasses.dataclass(slots=True)
class Listener:
    name: str
    description: str = ""
    transport_type: int = C.MQXPT_TCP
    port: int = 0
    ip_address: str = ""
    backlog: int = 0
    start_mode: int = C.MQSVC_CONTROL_MANUAL
    tp_name: str = ""  # LU 6.2 only
    # Windows' NetBIOS and SPX listeners (IBM's ALTER LISTENER): stored and shown, never run here.
    adapter: int = 0  # ADAPTER (NetBIOS)
    command_count: int = 0  # COMMANDS (NetBIOS)
    local_name: str = ""  # LOCLNAME (NetBIOS)
    name_count: int = 0  # NTBNAMES (NetBIOS)
    session_count: int = 0  # SESSIONS (NetBIOS)
    socket: int = 0  # SOCKET (SPX)
    created: float = 0.0
    altered: float = 0.0


@dataclasses.dataclass(slots=True)
class Service:
    name: str
    description: str = ""
    service_type: int = C.MQSVC_TYPE_COMMAND
    start_command: str = ""
    start_args: str = ""
    stop_command: str = ""
    stop_args: str = ""
    stdout: str = ""
    stderr: str = ""
    start_mode: int = C.MQSVC_CONTROL_MANUAL
    created: float = 0.0
    altered: float = 0.0


@dataclasses.dataclass(slots=True)
class CommInfo:
    name: str
    description: str = ""
    comm_type: int = V.MQCIT_MULTICAST
    group_address: str = "239.0.0.0"
    port: int = 1414
    bridge: int = V.MQMCB_ENABLED
    ccsid: int = 0  # the queue manager's
    comm_event: int = C.MQEVR_DISABLED
    encoding: int = C.MQENC_AS_PUBLISHED
    heartbeat_interval: int = 2000
    msg_history: int = 100
    monitor_interval: int = 60
    multicast_properties: int = V.MQMCP_ALL
    new_subscriber_history: int = V.MQNSH_NONE
    created: float = 0.0
    altered: float = 0.0


def default_authinfo(dev: bool) -> list[AuthInfo]:
    out = [AuthInfo(name, auth_info_type=t) for t, name in DEFAULT_AUTHINFO_OF.items()]
    if dev:  # the developer container's: administrators authenticate, the client's context is adopted
        out.append(AuthInfo(DEV_CONN_AUTH, V.MQAIT_IDPW_OS, check_client=C.MQCHK_REQUIRED_ADMIN,
                            check_local=C.MQCHK_OPTIONAL, adopt_context=C.MQADPCTX_YES))
    return out


def default_listeners(dev: bool) -> list[Listener]:
    out = [Listener(DEFAULT_LISTENER)]
    if dev:
        out.append(Listener(DEV_LISTENER, port=1414, start_mode=C.MQSVC_CONTROL_Q_MGR))
    return out


generic.register(generic.GenericKind(AUTHINFO, AuthInfo, default_authinfo))
generic.register(generic.GenericKind(LISTENER, Listener, default_listeners))
def default_services(dev: bool) -> list[Service]:
    # SYSTEM.MQXR.SERVICE as IBM's telemetry installation defines it (installMQXRService_unix.mqsc):
    # a server service the queue manager starts and stops with itself.  qmlite runs none of the
    # programs it names: START/STOP SERVICE of it run qmlite's own MQTT transport (decision TC6).
    mqxr = Service(MQXR_SERVICE, description="Manages clients using MQXR protocols such as MQTT",
                   service_type=C.MQSVC_TYPE_SERVER, start_mode=C.MQSVC_CONTROL_Q_MGR,
                   start_command="+MQ_INSTALL_PATH+/mqxr/bin/runMQXRService.sh",
                   start_args='-m +QMNAME+ -d "+MQ_Q_MGR_DATA_PATH+" -g "+MQ_DATA_PATH+"',
                   stop_command="+MQ_INSTALL_PATH+/mqxr/bin/endMQXRService.sh", stop_args="-m +QMNAME+",
                   stdout="+MQ_Q_MGR_DATA_PATH+/mqxr.stdout", stderr="+MQ_Q_MGR_DATA_PATH+/mqxr.stderr")
    return [Service(DEFAULT_SERVICE), mqxr]


generic.register(generic.GenericKind(SERVICE, Service, default_services))
generic.register(generic.GenericKind(COMMINFO, CommInfo, lambda dev: [CommInfo(DEFAULT_COMMINFO)]))
