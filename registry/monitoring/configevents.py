"""Configuration events (CONFIGEV): which commands make which event, and the object's attributes in it.

IBM puts a Create Object event after a successful define (or copy) of a new object, Change Object
(two messages: the attributes before, then after) after an alter or a define/copy with REPLACE of an
existing one, Delete Object (the attributes it had) after a delete, and Refresh Object for each object
Refresh Queue Manager TYPE(CONFIGEV) selects.  The attributes are the object's own Inquire answer
(the handler of its Inquire command, run here): one set of attribute tables for Inquire, DISPLAY
and events, so they cannot disagree.
"""

from __future__ import annotations

import dataclasses
import fnmatch

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.monitoring import events as E


@dataclasses.dataclass(frozen=True, slots=True)
class Kind:
    object_type: int
    inquire: int
    name_pid: int  # the object's name in its commands and Inquire answer
    to_pid: int  # Copy's new name
    table: str  # the Registry mapping holding the objects (refresh walks it)
    generic_kind: str = ""  # objects kept as generic rows: their kind


_Q = Kind(C.MQOT_Q, C.MQCMD_INQUIRE_Q, C.MQCA_Q_NAME, C.MQCACF_TO_Q_NAME, "queues")
_TOPIC = Kind(C.MQOT_TOPIC, C.MQCMD_INQUIRE_TOPIC, C.MQCA_TOPIC_NAME, C.MQCACF_TO_TOPIC_NAME, "topics")
_CHANNEL = Kind(C.MQOT_CHANNEL, C.MQCMD_INQUIRE_CHANNEL, C.MQCACH_CHANNEL_NAME, C.MQCACF_TO_CHANNEL_NAME, "",
                "channel")
_NAMELIST = Kind(C.MQOT_NAMELIST, C.MQCMD_INQUIRE_NAMELIST, C.MQCA_NAMELIST_NAME, C.MQCACF_TO_NAMELIST_NAME,
                 "namelists")
_PROCESS = Kind(C.MQOT_PROCESS, C.MQCMD_INQUIRE_PROCESS, C.MQCA_PROCESS_NAME, C.MQCACF_TO_PROCESS_NAME, "processes")
_AUTHINFO = Kind(C.MQOT_AUTH_INFO, C.MQCMD_INQUIRE_AUTH_INFO, C.MQCA_AUTH_INFO_NAME, C.MQCACF_TO_AUTH_INFO_NAME, "",
                 "authinfo")
_LISTENER = Kind(C.MQOT_LISTENER, C.MQCMD_INQUIRE_LISTENER, C.MQCACH_LISTENER_NAME, C.MQCACF_TO_LISTENER_NAME, "",
                 "listener")
_SERVICE = Kind(C.MQOT_SERVICE, C.MQCMD_INQUIRE_SERVICE, C.MQCA_SERVICE_NAME, C.MQCACF_TO_SERVICE_NAME, "",
                "service")
_COMMINFO = Kind(C.MQOT_COMM_INFO, C.MQCMD_INQUIRE_COMM_INFO, C.MQCA_COMM_INFO_NAME, C.MQCACF_TO_COMM_INFO_NAME, "",
                 "comminfo")
QMGR = Kind(C.MQOT_Q_MGR, C.MQCMD_INQUIRE_Q_MGR, 0, 0, "")
QUEUE = _Q

CREATE, COPY, CHANGE, DELETE = "create", "copy", "change", "delete"
COMMANDS: dict[int, tuple[Kind, str]] = {}
for _kind, _noun in ((_Q, "Q"), (_TOPIC, "TOPIC"), (_CHANNEL, "CHANNEL"), (_NAMELIST, "NAMELIST"),
                     (_PROCESS, "PROCESS"), (_AUTHINFO, "AUTH_INFO"), (_LISTENER, "LISTENER"),
                     (_SERVICE, "SERVICE"), (_COMMINFO, "COMM_INFO")):
    for _verb in (CREATE, COPY, CHANGE, DELETE):
        COMMANDS[getattr(C, f"MQCMD_{_verb.upper()}_{_noun}")] = (_kind, _verb)
COMMANDS[C.MQCMD_CHANGE_Q_MGR] = (QMGR, CHANGE)
REFRESH_KINDS = (QMGR, _Q, _TOPIC, _CHANNEL, _NAMELIST, _PROCESS, _AUTHINFO, _LISTENER, _SERVICE, _COMMINFO)
# Refresh Queue Manager's ObjectType: a queue type selects queues of that type.
QUEUE_TYPES = {C.MQOT_LOCAL_Q: C.MQQT_LOCAL, C.MQOT_MODEL_Q: C.MQQT_MODEL, C.MQOT_ALIAS_Q: C.MQQT_ALIAS,
               C.MQOT_REMOTE_Q: C.MQQT_REMOTE}


def attributes(engine, kind: Kind, name: str) -> list | None:
    """The object's attributes as its Inquire command answers them (name first), or None if none."""
    handler = engine.handlers.get(kind.inquire)
    if handler is None:
        return None
    from qmlite.registry.admin.engine import Context, Requester
    from qmlite.registry.admin.params import CommandError

    params = [P.CFST(kind.name_pid, name)] if kind.name_pid else []
    request = P.PCFMessage(P.CFH(Type=C.MQCFT_COMMAND, Command=kind.inquire), params)
    try:
        out = handler(Context(engine.registry, Requester(), kind.inquire, engine.qm), request)
    except CommandError:
        return None
    for response in out:
        if response.header.CompCode != C.MQCC_FAILED and response.parameters:
            return list(response.parameters)
    return None


@dataclasses.dataclass(slots=True)
class Pending:
    """A command that may raise a configuration event: what the object was before it ran."""

    kind: Kind
    verb: str
    name: str
    before: list | None
    enabled_before: bool


def before(engine, command: int, request: P.PCFMessage) -> Pending | None:
    """Called before a command runs, when CONFIGEV is on (or for Change Q Mgr, whose change may turn it on)."""
    entry = COMMANDS.get(command)
    if entry is None:
        return None
    kind, verb = entry
    name = ""
    if kind.name_pid:
        param = request.get(kind.to_pid if verb == COPY else kind.name_pid)
        name = str(param.value).strip() if param is not None else ""
        if not name or "*" in name:
            return None
    enabled = engine.registry.qmgr.configuration_event == E.ENABLED
    # ALTER QMGR raises a Change Object "unless CONFIGEV is DISABLED and is not changed to ENABLED":
    # its attributes before are needed whichever way it goes.
    snapshot = attributes(engine, kind, name) if enabled or kind is QMGR else None
    return Pending(kind, verb, name, snapshot, enabled)


def after(engine, pending: Pending, origin: E.Origin) -> None:
    """Called after the command succeeded: the event(s) it raises."""
    events = engine.qm.events
    reg = engine.registry
    enabled_now = reg.qmgr.configuration_event == E.ENABLED
    kind = pending.kind
    if kind is QMGR:
        if pending.enabled_before or enabled_now:
            now_attrs = attributes(engine, kind, "")
            if pending.before is not None and now_attrs is not None:
                events.config(C.MQRC_CONFIG_CHANGE_OBJECT, origin, kind.object_type, pending.before, after=now_attrs)
        if enabled_now and not pending.enabled_before:
            # IBM: a Refresh Queue Manager TYPE(CONFIGEV) is made when CONFIGEV turns on.
            refresh(engine, origin)
        return
    if not pending.enabled_before and not enabled_now:
        return
    if pending.verb == DELETE:
        if pending.before is not None:
            events.config(C.MQRC_CONFIG_DELETE_OBJECT, origin, kind.object_type, pending.before)
        return
    now_attrs = attributes(engine, kind, pending.name)
    if now_attrs is None:
        return
    if pending.before is None:
        events.config(C.MQRC_CONFIG_CREATE_OBJECT, origin, kind.object_type, now_attrs)
    else:
        events.config(C.MQRC_CONFIG_CHANGE_OBJECT, origin, kind.object_type, pending.before, after=now_attrs)


def _names(reg, kind: Kind) -> list[str]:
    if kind.generic_kind:
        return sorted(reg.definitions.get(kind.generic_kind, {}))
    if kind.table:
        return sorted(getattr(reg, kind.table))
    return [""]


def _object(reg, kind: Kind, name: str):
    if kind is QMGR:
        return reg.qmgr
    if kind.generic_kind:
        return reg.definitions[kind.generic_kind][name]
    return getattr(reg, kind.table)[name]


def refresh(engine, origin: E.Origin, object_type: int = C.MQOT_ALL, name: str = "*",
            interval: int = 0) -> int:
    """Refresh Object events for every object Refresh Queue Manager TYPE(CONFIGEV) selects: its type
    (MQOT_ALL, or one type; a queue type selects queues of that type), its name (generic) and, with
    ``interval`` minutes, only objects altered in that time.  Returns how many were sent."""
    reg = engine.registry
    if reg.qmgr.configuration_event != E.ENABLED:
        return 0
    now = reg.clock()
    sent = 0
    for kind in REFRESH_KINDS:
        if object_type != C.MQOT_ALL and object_type != kind.object_type and not (
                kind is _Q and object_type in QUEUE_TYPES):
            continue
        for obj_name in _names(reg, kind):
            obj = _object(reg, kind, obj_name)
            if not fnmatch.fnmatchcase(obj_name or reg.qmgr.name, name):
                continue
            if kind is _Q and (obj.definition_type == C.MQQDT_TEMPORARY_DYNAMIC
                               or (object_type in QUEUE_TYPES and obj.qtype != QUEUE_TYPES[object_type])):
                continue
            if interval and now - getattr(obj, "altered", 0.0) > interval * 60:
                continue  # INCLINT: only what was altered in the last ``interval`` minutes
            attrs = attributes(engine, kind, obj_name)
            if attrs is not None:
                engine.qm.events.config(C.MQRC_CONFIG_REFRESH_OBJECT, origin, kind.object_type, attrs)
                sent += 1
    return sent
