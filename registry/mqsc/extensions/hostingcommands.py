"""qmlite's MQSC commands for the queue managers a server hosts (docs/mqsc.md "Queue managers"):

* ``DISPLAY QMLITE QMGRS`` (or ``DISPLAY QMLITE QMGR(name)``): each hosted queue manager, its status, whether
  it is the default, its connections and data directory;
* ``DEFINE QMLITE QMGR(name)``: host a new one (what ``--qmgr`` does at start and MQCONN does under
  ``--create-on-connect``);
* ``STOP QMLITE QMGR(name) [RECONNECT]``: IBM's endmqm (``endmqm -r``): the server's default queue
  manager ends, and with it the process, as SIGTERM does (SIGUSR1 with RECONNECT); another ends alone,
  its clients told as the default's are, its data directory closed (it then shows ``STATUS(ENDED)``);
* ``START QMLITE QMGR(name)``: IBM's strmqm of an ended one: it is opened and served again;
* ``DELETE QMLITE QMGR(name)``: IBM's dltmqm of an ended one: its data directory is removed.

All go through ``registry/hosting.py``'s QueueManagers, as REST's ``/admin/qmlite/qmgrs`` and the
pytest plugin do.  Messages are qmlite's own (registry/qmlmessages.py, QML05xx).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.registry import hosting, qmgrnames
from qmlite.registry import qmlmessages as QML
from qmlite.registry.mqsc import display
from qmlite.registry.mqsc.lexer import MqscSyntaxError, Token

MQRCCF_OBJECT_ALREADY_EXISTS = 4001  # cmqcfc.h
VERBS = ("DISPLAY", "DEFINE", "STOP", "START", "DELETE")


@dataclasses.dataclass(frozen=True, slots=True)
class HostingCommand:
    verb: str  # DISPLAY, DEFINE, STOP, START or DELETE
    name: str | None  # None: every queue manager
    reconnect: bool = False  # STOP ... RECONNECT


def parse(text: str, verb: str, tokens: list[Token]) -> HostingCommand:
    """After ``verb QMLITE``: ``QMGRS`` or ``QMGR(name)`` and nothing else (a syntax error otherwise)."""
    rest = tokens[2:]
    subject = rest[0]
    reconnect = verb == "STOP" and len(rest) == 2 and rest[1].word == "RECONNECT" and rest[1].items is None
    if len(rest) > 1 + reconnect:
        raise MqscSyntaxError(text[:rest[1 + reconnect].end])
    if subject.word == "QMGRS":
        if subject.items is not None or verb != "DISPLAY":
            raise MqscSyntaxError(text[:subject.end])
        return HostingCommand(verb, None)
    items = subject.items or ()
    if len(items) != 1 or verb not in VERBS:
        raise MqscSyntaxError(text[:subject.end])
    name = items[0].text
    if verb == "DISPLAY" and name == "*":
        return HostingCommand(verb, None)
    return HostingCommand(verb, name, reconnect)


def run(qm, command: HostingCommand, requester) -> tuple[int, int, list[str], list[dict[str, str]]]:
    """(CompCode, Reason, runmqsc lines, DISPLAY objects) for one command on ``qm``'s hosting.  Its own
    judge of who may run it (anyone may DISPLAY) and of a missing queue manager (extensions.TABLE)."""
    admin = requester.admin
    qmgrs = getattr(qm, "hosting", None) if qm is not None else None
    if command.verb in ("STOP", "START", "DELETE"):
        return _control(qmgrs, command, admin)
    if command.verb == "DEFINE":
        if not admin:
            return C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, ["AMQ8135E: Not authorized."], []
        if qmgrs is None:
            return (C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED,
                    [QML.QMGR_CANNOT_HOST()], [])
        try:
            qmgrs.create(command.name)
        except hosting.HostingError as exc:
            if exc.reason == hosting.MQRC_Q_MGR_EXISTS:
                return (C.MQCC_FAILED, MQRCCF_OBJECT_ALREADY_EXISTS,
                        [QML.QMGR_EXISTS(name=command.name)], [])
            # a command's MQRCCF (NM6): a bad name 3074, a cap or an opening that failed 3209
            line = (QML.QMGR_NAME_INVALID(name=command.name) if exc.reason == hosting.MQRC_Q_MGR_NAME_ERROR
                    else QML.QMGR_NOT_CREATED(name=command.name, why=exc))
            return C.MQCC_FAILED, exc.command_reason, [line], []
        return C.MQCC_OK, 0, [QML.QMGR_CREATED(name=command.name)], []
    try:
        if qmgrs is None:
            own = qm.registry.qmgr.name
            if command.name is not None and command.name != own:
                hosting.check_name(command.name)
                raise hosting.HostingError(hosting.MQRC_Q_MGR_NAME_ERROR, f"queue manager {command.name} "
                                           "is not hosted here")
            shown = [hosting.Hosted(own, True, "QUIESCING" if qm.quiescing else "RUNNING", len(qm.sessions),
                                    str(getattr(qm.registry.store, "path", "")))]
        else:
            shown = qmgrs.describe(command.name)
    except hosting.HostingError as exc:
        line = QML.QMGR_NOT_HOSTED if qmgrnames.is_name(command.name) else QML.QMGR_NAME_INVALID
        return C.MQCC_FAILED, exc.command_reason, [line(name=command.name)], []
    text: list[str] = []
    objects: list[dict[str, str]] = []
    for entry in shown:
        pairs = {"QMNAME": entry.name, "STATUS": entry.status, "DEFAULT": "YES" if entry.default else "NO",
                 "CONNS": str(entry.connections), "DATADIR": entry.data_dir}
        objects.append(pairs)
        text.append(QML.QMGR_SHOWN())
        text += display.lines([f"{key}({value})" for key, value in pairs.items()])
    return C.MQCC_OK, 0, text, objects


def _control(qmgrs, command: HostingCommand, admin: bool) -> tuple[int, int, list[str], list[dict[str, str]]]:
    """STOP (endmqm), START (strmqm), DELETE (dltmqm): mqm only, on a hosting server."""
    if not admin:
        return C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, ["AMQ8135E: Not authorized."], []
    if qmgrs is None:
        return C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, [QML.QMGR_CANNOT_HOST()], []
    name = command.name
    try:
        if command.verb == "STOP":
            qmgrs.end(name, reconnect=command.reconnect)
        elif command.verb == "START":
            qmgrs.start(name)
        else:
            qmgrs.delete(name)
    except hosting.HostingError as exc:
        if exc.reason == hosting.MQRC_Q_MGR_NAME_ERROR:
            line = QML.QMGR_NOT_HOSTED if qmgrnames.is_name(name) else QML.QMGR_NAME_INVALID
            return C.MQCC_FAILED, exc.command_reason, [line(name=name)], []
        # 2298 no hook, 2059 ended already or not reopened, 2222 running: the commands' own exit codes
        failed = {"STOP": QML.QMGR_NOT_ENDED, "START": QML.QMGR_NOT_STARTED}.get(command.verb, QML.QMGR_NOT_DELETED)
        return C.MQCC_FAILED, exc.reason, [failed(name=name, why=exc)], []
    done = {"STOP": QML.QMGR_ENDING, "START": QML.QMGR_STARTED}.get(command.verb, QML.QMGR_DELETED)
    return C.MQCC_OK, 0, [done(name=name)], []
