"""Authority for PCF commands: what the command server checks before it runs a command for a user
outside the mqm group, against the authority records (registry/security/authrecs.py).

IBM ("Authority checking for PCF commands", and the per-command table of "Authorizations for MQSC
commands in escape PCFs", Multiplatforms): the command message's UserIdentifier is the user; every
command needs dsp on the queue manager; then Change needs chg on the object, Clear clr, Delete dlt,
Inquire dsp, Create crt (with dsp on the object it is modelled on: the LIKE/from object or the
SYSTEM.DEFAULT one), Ping/Start/Stop Channel and Start/Stop Listener or Service ctrl, Reset and
Resolve Channel ctrlx.  A refusal is MQRC_NOT_AUTHORIZED.

Inquire with a generic name answers only the objects the user may display (an Explorer user with
+dsp on DEV.** sees the DEV queues); a specific name the user may not display is MQRC_NOT_AUTHORIZED.

crt is not specific to an object (IBM: "MQZAO_CREATE is not included [in ALL_ADMIN] as it is not
specific to a particular object or object type"): it is granted on the class profile ``@class`` of
the object type, as ``SET AUTHREC PROFILE('@class') OBJTYPE(QUEUE) AUTHADD(CRT)`` does; a record on
a profile matching the new object's name is accepted too.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.security import authrecs
from qmlite.registry.security import vocab as A
from qmlite.registry.admin.params import CommandError

CLASS_PROFILE = authrecs.CLASS_PROFILE
DSP, CHG, CLR, CRT, DLT = A.MQAUTH_DISPLAY, A.MQAUTH_CHANGE, A.MQAUTH_CLEAR, A.MQAUTH_CREATE, A.MQAUTH_DELETE
CTRL, CTRLX = A.MQAUTH_CONTROL, A.MQAUTH_CONTROL_EXTENDED


@dataclasses.dataclass(frozen=True, slots=True)
class Rule:
    """A command on one object type: the request parameter naming the object, the authority it
    needs there; ``listing`` marks Inquire (objects filtered by dsp) and ``names_param`` the string
    list of an Inquire Names answer; ``like``: for Create/Copy, the parameter naming the object the
    new one is modelled on (dsp needed there), or a default object name."""

    object_type: int
    name_param: int
    authority: int
    listing: bool = False
    names_param: int = 0
    like: int | str = 0


RULES: dict[int, Rule] = {}


def _object_type(object_type: int, name_param: int, commands: dict[str, int], *, names_param: int,
                 from_param: int = 0, to_param: int = 0, default: str = "") -> None:
    """The rules of one object type's commands (``commands``: verb -> MQCMD_*)."""
    for verb, command in commands.items():
        if verb == "inquire":
            RULES[command] = Rule(object_type, name_param, DSP, listing=True)
        elif verb == "names":
            RULES[command] = Rule(object_type, name_param, DSP, listing=True, names_param=names_param)
        elif verb == "create":
            RULES[command] = Rule(object_type, name_param, CRT, like=default)
        elif verb == "copy":
            RULES[command] = Rule(object_type, to_param, CRT, like=from_param)
        else:
            RULES[command] = Rule(object_type, name_param, {"change": CHG, "delete": DLT, "clear": CLR,
                                                            "ctrl": CTRL, "ctrlx": CTRLX}[verb])


_object_type(C.MQOT_Q, C.MQCA_Q_NAME, {
    "create": C.MQCMD_CREATE_Q, "copy": C.MQCMD_COPY_Q, "change": C.MQCMD_CHANGE_Q, "delete": C.MQCMD_DELETE_Q,
    "clear": C.MQCMD_CLEAR_Q, "inquire": C.MQCMD_INQUIRE_Q, "names": C.MQCMD_INQUIRE_Q_NAMES},
    names_param=C.MQCACF_Q_NAMES, from_param=C.MQCACF_FROM_Q_NAME, to_param=C.MQCACF_TO_Q_NAME,
    default="SYSTEM.DEFAULT.LOCAL.QUEUE")
RULES[C.MQCMD_INQUIRE_Q_STATUS] = Rule(C.MQOT_Q, C.MQCA_Q_NAME, DSP, listing=True)
RULES[C.MQCMD_RESET_Q_STATS] = Rule(C.MQOT_Q, C.MQCA_Q_NAME, CHG, listing=True)
_object_type(C.MQOT_TOPIC, C.MQCA_TOPIC_NAME, {
    "create": C.MQCMD_CREATE_TOPIC, "copy": C.MQCMD_COPY_TOPIC, "change": C.MQCMD_CHANGE_TOPIC,
    "delete": C.MQCMD_DELETE_TOPIC, "inquire": C.MQCMD_INQUIRE_TOPIC, "names": C.MQCMD_INQUIRE_TOPIC_NAMES},
    names_param=C.MQCACF_TOPIC_NAMES, from_param=C.MQCACF_FROM_TOPIC_NAME, to_param=C.MQCACF_TO_TOPIC_NAME,
    default="SYSTEM.DEFAULT.TOPIC")
_object_type(C.MQOT_NAMELIST, C.MQCA_NAMELIST_NAME, {
    "create": C.MQCMD_CREATE_NAMELIST, "copy": C.MQCMD_COPY_NAMELIST, "change": C.MQCMD_CHANGE_NAMELIST,
    "delete": C.MQCMD_DELETE_NAMELIST, "inquire": C.MQCMD_INQUIRE_NAMELIST,
    "names": C.MQCMD_INQUIRE_NAMELIST_NAMES},
    names_param=C.MQCACF_NAMELIST_NAMES, from_param=C.MQCACF_FROM_NAMELIST_NAME,
    to_param=C.MQCACF_TO_NAMELIST_NAME, default="SYSTEM.DEFAULT.NAMELIST")
_object_type(C.MQOT_PROCESS, C.MQCA_PROCESS_NAME, {
    "create": C.MQCMD_CREATE_PROCESS, "copy": C.MQCMD_COPY_PROCESS, "change": C.MQCMD_CHANGE_PROCESS,
    "delete": C.MQCMD_DELETE_PROCESS, "inquire": C.MQCMD_INQUIRE_PROCESS, "names": C.MQCMD_INQUIRE_PROCESS_NAMES},
    names_param=C.MQCACF_PROCESS_NAMES, from_param=C.MQCACF_FROM_PROCESS_NAME,
    to_param=C.MQCACF_TO_PROCESS_NAME, default="SYSTEM.DEFAULT.PROCESS")
_object_type(C.MQOT_CHANNEL, C.MQCACH_CHANNEL_NAME, {
    "create": C.MQCMD_CREATE_CHANNEL, "copy": C.MQCMD_COPY_CHANNEL, "change": C.MQCMD_CHANGE_CHANNEL,
    "delete": C.MQCMD_DELETE_CHANNEL, "inquire": C.MQCMD_INQUIRE_CHANNEL, "names": C.MQCMD_INQUIRE_CHANNEL_NAMES,
    "ctrl": C.MQCMD_START_CHANNEL},
    names_param=C.MQCACH_CHANNEL_NAMES, from_param=C.MQCACF_FROM_CHANNEL_NAME,
    to_param=C.MQCACF_TO_CHANNEL_NAME, default="SYSTEM.DEF.SVRCONN")
RULES[C.MQCMD_STOP_CHANNEL] = RULES[C.MQCMD_PING_CHANNEL] = Rule(C.MQOT_CHANNEL, C.MQCACH_CHANNEL_NAME, CTRL)
RULES[C.MQCMD_PURGE_CHANNEL] = Rule(C.MQOT_CHANNEL, C.MQCACH_CHANNEL_NAME, CTRL)  # a telemetry channel's stop (TC9)
RULES[C.MQCMD_RESET_CHANNEL] = RULES[C.MQCMD_RESOLVE_CHANNEL] = Rule(C.MQOT_CHANNEL, C.MQCACH_CHANNEL_NAME, CTRLX)
RULES[C.MQCMD_INQUIRE_CHANNEL_STATUS] = Rule(C.MQOT_CHANNEL, C.MQCACH_CHANNEL_NAME, DSP, listing=True)
_object_type(C.MQOT_AUTH_INFO, C.MQCA_AUTH_INFO_NAME, {
    "create": C.MQCMD_CREATE_AUTH_INFO, "copy": C.MQCMD_COPY_AUTH_INFO, "change": C.MQCMD_CHANGE_AUTH_INFO,
    "delete": C.MQCMD_DELETE_AUTH_INFO, "inquire": C.MQCMD_INQUIRE_AUTH_INFO,
    "names": C.MQCMD_INQUIRE_AUTH_INFO_NAMES},
    names_param=C.MQCACF_AUTH_INFO_NAMES, from_param=C.MQCACF_FROM_AUTH_INFO_NAME,
    to_param=C.MQCACF_TO_AUTH_INFO_NAME, default="SYSTEM.DEFAULT.AUTHINFO.IDPWOS")
_object_type(C.MQOT_LISTENER, C.MQCACH_LISTENER_NAME, {
    "create": C.MQCMD_CREATE_LISTENER, "copy": C.MQCMD_COPY_LISTENER, "change": C.MQCMD_CHANGE_LISTENER,
    "delete": C.MQCMD_DELETE_LISTENER, "inquire": C.MQCMD_INQUIRE_LISTENER, "ctrl": C.MQCMD_START_CHANNEL_LISTENER},
    names_param=0, from_param=C.MQCACF_FROM_LISTENER_NAME, to_param=C.MQCACF_TO_LISTENER_NAME,
    default="SYSTEM.DEFAULT.LISTENER.TCP")
RULES[C.MQCMD_STOP_CHANNEL_LISTENER] = Rule(C.MQOT_LISTENER, C.MQCACH_LISTENER_NAME, CTRL)
RULES[C.MQCMD_INQUIRE_LISTENER_STATUS] = Rule(C.MQOT_LISTENER, C.MQCACH_LISTENER_NAME, DSP, listing=True)
_object_type(C.MQOT_SERVICE, C.MQCA_SERVICE_NAME, {
    "create": C.MQCMD_CREATE_SERVICE, "copy": C.MQCMD_COPY_SERVICE, "change": C.MQCMD_CHANGE_SERVICE,
    "delete": C.MQCMD_DELETE_SERVICE, "inquire": C.MQCMD_INQUIRE_SERVICE, "ctrl": C.MQCMD_START_SERVICE},
    names_param=0, from_param=C.MQCACF_FROM_SERVICE_NAME, to_param=C.MQCACF_TO_SERVICE_NAME,
    default="SYSTEM.DEFAULT.SERVICE")
RULES[C.MQCMD_STOP_SERVICE] = Rule(C.MQOT_SERVICE, C.MQCA_SERVICE_NAME, CTRL)
RULES[C.MQCMD_INQUIRE_SERVICE_STATUS] = Rule(C.MQOT_SERVICE, C.MQCA_SERVICE_NAME, DSP, listing=True)
_object_type(C.MQOT_COMM_INFO, C.MQCA_COMM_INFO_NAME, {
    "create": C.MQCMD_CREATE_COMM_INFO, "copy": C.MQCMD_COPY_COMM_INFO, "change": C.MQCMD_CHANGE_COMM_INFO,
    "delete": C.MQCMD_DELETE_COMM_INFO, "inquire": C.MQCMD_INQUIRE_COMM_INFO},
    names_param=0, from_param=C.MQCACF_FROM_COMM_INFO_NAME, to_param=C.MQCACF_TO_COMM_INFO_NAME,
    default="SYSTEM.DEFAULT.COMMINFO")
# The queue manager itself, and the security commands (which change what others may do: chg on it).
_QMGR_AUTHORITY = {C.MQCMD_CHANGE_Q_MGR: CHG, C.MQCMD_SET_AUTH_REC: CHG, C.MQCMD_DELETE_AUTH_REC: CHG,
                   C.MQCMD_SET_CHLAUTH_REC: CHG, C.MQCMD_REFRESH_SECURITY: CHG,
                   # The cluster commands change what this queue manager is in its clusters.
                   C.MQCMD_SUSPEND_Q_MGR_CLUSTER: CHG, C.MQCMD_RESUME_Q_MGR_CLUSTER: CHG,
                   C.MQCMD_REFRESH_CLUSTER: CHG, C.MQCMD_RESET_CLUSTER: CHG,
                   C.MQCMD_REFRESH_Q_MGR: CHG}


def _string(request: P.PCFMessage, pid: int) -> str | None:
    p = request.get(pid)
    return p.value.strip() if p is not None and isinstance(p.value, str) else None


def _is_generic(name: str) -> bool:
    return name.endswith("*")


def _refused(object_type: int, profile: str, authority: int) -> CommandError:
    """MQRC_NOT_AUTHORIZED, carrying what was missing (``refused``: object type, profile, authority) for
    the error log and the refusals list (registry/monitoring/diagnostics.py)."""
    err = CommandError(C.MQRC_NOT_AUTHORIZED)
    err.refused = (object_type, profile, authority)
    return err


def check(reg, user: str, command: int, request: P.PCFMessage) -> None:
    """Before the command: MQRC_NOT_AUTHORIZED unless ``user`` may run it (mqm may run anything)."""
    if authrecs.privileged(user):
        return
    qmgr = reg.qmgr.name
    if not authrecs.has(reg, user, C.MQOT_Q_MGR, qmgr, DSP):
        raise _refused(C.MQOT_Q_MGR, qmgr, DSP)
    needed = _QMGR_AUTHORITY.get(command)
    if needed is not None and not authrecs.has(reg, user, C.MQOT_Q_MGR, qmgr, needed):
        raise _refused(C.MQOT_Q_MGR, qmgr, needed)
    rule = RULES.get(command)
    if rule is None or rule.listing:
        return  # Inquire: filtered afterwards (``visible``)
    name = _string(request, rule.name_param)
    if not name:
        return  # the handler answers the missing name with its own reason
    if rule.authority == CRT:
        if not (authrecs.has(reg, user, rule.object_type, CLASS_PROFILE, CRT)
                or authrecs.has(reg, user, rule.object_type, name, CRT)):
            raise _refused(rule.object_type, CLASS_PROFILE, CRT)
        like = _string(request, rule.like) if isinstance(rule.like, int) and rule.like else rule.like
        if like and not authrecs.has(reg, user, rule.object_type, like, DSP):
            raise _refused(rule.object_type, like, DSP)
    elif not authrecs.has(reg, user, rule.object_type, name, rule.authority):
        raise _refused(rule.object_type, name, rule.authority)


def visible(reg, user: str, command: int, request: P.PCFMessage, responses: list[P.PCFMessage]) -> list:
    """After an Inquire: only the objects ``user`` may display (dsp; chg for Reset Queue Statistics).
    Nothing left: MQRC_NOT_AUTHORIZED for a specific name, the command's none-found reason (kept from
    the responses when there were none) for a generic one."""
    rule = RULES.get(command)
    if rule is None or not rule.listing or authrecs.privileged(user):
        return responses
    if responses and responses[0].header.CompCode == C.MQCC_FAILED:
        return responses  # a failure says nothing about any object
    if rule.names_param:
        out = []
        for msg in responses:
            names = msg.get(rule.names_param)
            if names is None:
                out.append(msg)
                continue
            keep = [i for i, n in enumerate(names.values)
                    if authrecs.has(reg, user, rule.object_type, n.strip(), rule.authority)]
            params = []
            for p in msg.parameters:  # parallel lists (Q names and Q types) keep their pairing
                if isinstance(p, (P.CFSL, P.CFIL)) and len(p.values) == len(names.values):
                    values = tuple(p.values[i] for i in keep)
                    p = P.CFSL(p.parameter, values, p.ccsid) if isinstance(p, P.CFSL) else P.CFIL(p.parameter, values)
                params.append(p)
            msg.parameters = params
            out.append(msg)
        return out
    kept = [msg for msg in responses
            if (name := _string(msg, rule.name_param)) is None
            or authrecs.has(reg, user, rule.object_type, name, rule.authority)]
    if kept:
        for i, msg in enumerate(kept, 1):
            msg.header.MsgSeqNumber = i
            msg.header.Control = C.MQCFC_LAST if i == len(kept) else C.MQCFC_NOT_LAST
        return kept
    from qmlite.registry.admin import responses as R

    requested = _string(request, rule.name_param) or ""
    reason = C.MQRC_UNKNOWN_OBJECT_NAME if _is_generic(requested) else C.MQRC_NOT_AUTHORIZED
    return R.failure(command, CommandError(reason))
