"""MQSC for qmlite's snapshots (registry/storage/savepoints.py), as runmqsc would print them:

    SET QMLITE SNAPSHOT(name)       save the queue manager's state as name (replacing one of that name)
    RESET QMLITE SNAPSHOT(name)     restore it
    DISPLAY QMLITE SNAPSHOT(generic) list them
    DELETE QMLITE SNAPSHOT(name)    forget it

Each answers one QML message line (DISPLAY: a block per snapshot, in DISPLAY's two-column layout) or
fails with the domain's reason: MQRCCF_OBJECT_NAME_ERROR for a bad name, MQRC_UNKNOWN_OBJECT_NAME
for one not saved (docs/mqsc.md "Snapshots").
"""

from __future__ import annotations

import dataclasses
import time

from qmlite.pcf import constants as C

from qmlite.registry import qmlmessages as QML
from qmlite.registry.mqsc import display
from qmlite.registry.mqsc.lexer import MqscSyntaxError, Token
from qmlite.registry.storage import savepoints


@dataclasses.dataclass(frozen=True)
class SnapshotCommand:
    verb: str  # SET, RESET, DISPLAY or DELETE
    name: str  # the snapshot's name as given (DISPLAY's may be generic)


def parse(text: str, verb: str, tokens: list[Token]) -> SnapshotCommand:
    """VERB QMLITE SNAPSHOT(name): one keyword, one value (its validity as a name is the snapshot domain's
    to judge, with MQRCCF_OBJECT_NAME_ERROR).  Any other keyword is a malformed snapshot command."""
    noun_token, rest = tokens[1], tokens[2:]
    if noun_token.items is not None:
        raise MqscSyntaxError(text[:noun_token.end])
    if not rest:
        raise MqscSyntaxError(text, "SNAPSHOT(name) missing")
    token = rest[0]
    if token.word != "SNAPSHOT":
        raise MqscSyntaxError(text[:token.word_end], "unknown keyword")
    if token.items is None or len(token.items) != 1 or token.items[0].text == "":
        raise MqscSyntaxError(text[:token.end], "value missing")
    if len(rest) > 1:
        raise MqscSyntaxError(text[:rest[1].word_end], "unknown keyword")
    return SnapshotCommand(verb, token.items[0].text)


def run(qm, command: SnapshotCommand, requester) -> tuple[int, int, list[str], list[dict[str, str]]]:
    """(completion code, reason, runmqsc lines, DISPLAY objects) for one snapshot command."""
    verb, name = command.verb, command.name
    book = savepoints.of(qm)
    try:
        if verb == "SET":
            return C.MQCC_OK, 0, [book.save(name).message()], []
        if verb == "RESET":
            return C.MQCC_OK, 0, [book.restore(name).message()], []
        if verb == "DELETE":
            book.delete(name)
            return C.MQCC_OK, 0, [QML.SNAPSHOT_DELETED(name=name)], []
        infos = book.list(name)
    except savepoints.SnapshotError as err:
        return C.MQCC_FAILED, err.reason, [err.message], []
    if not infos:
        return C.MQCC_OK, 0, [QML.SNAPSHOT_NONE()], []
    text: list[str] = []
    objects: list[dict[str, str]] = []
    for info in infos:
        pairs = {"SNAPSHOT": info.name,
                 "SAVEDATE": time.strftime("%Y-%m-%d", time.localtime(info.saved_at)),
                 "SAVETIME": time.strftime("%H.%M.%S", time.localtime(info.saved_at)),
                 "OBJECTS": str(info.objects), "MESSAGES": str(info.messages),
                 "SUBS": str(info.subscriptions), "RETAINED": str(info.retained)}
        objects.append(pairs)
        text.append(QML.SNAPSHOT_SHOWN())
        text += display.lines([f"{k}({v})" for k, v in pairs.items()])
    return C.MQCC_OK, 0, text, objects
