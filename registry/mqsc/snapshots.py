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

import time

from qmlite.pcf import constants as C

from qmlite.registry import qmlmessages as QML
from qmlite.registry.mqsc import display
from qmlite.registry.storage import savepoints


def run(qm, verb: str, name: str) -> tuple[int, int, list[str], list[dict[str, str]]]:
    """(completion code, reason, runmqsc lines, DISPLAY objects) for one snapshot command."""
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
