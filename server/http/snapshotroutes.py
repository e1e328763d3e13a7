"""qmlite's snapshot resources (docs/rest.md "snapshots"): translation only, onto the one domain object
(registry/storage/savepoints.py) that MQSC's SET/RESET/DISPLAY/DELETE QMLITE SNAPSHOT also reach.

    GET    /admin/qmgr/{qmgr}/snapshot[?name=generic]      the list
    GET    /admin/qmgr/{qmgr}/snapshot/{name}              one
    POST   /admin/action/qmgr/{qmgr}/snapshot/{name}/save  save the state as name
    POST   /admin/action/qmgr/{qmgr}/snapshot/{name}/restore
    DELETE /admin/qmgr/{qmgr}/snapshot/{name}

A bad name is 400 (reason MQRCCF_OBJECT_NAME_ERROR), an unknown one 404 (MQRC_UNKNOWN_OBJECT_NAME),
both in IBM's error JSON; a restore answers once it is on disk.
"""

from __future__ import annotations

import datetime

from qmlite.pcf import constants as C

from qmlite.registry.storage import savepoints

from . import errors


def _error(err: savepoints.SnapshotError, name: str, qmgr: str) -> errors.RestError:
    if err.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
        return errors.RestError(404, "MQWB0009E", f"Could not find the snapshot '{name}' on queue manager '{qmgr}'.",
                                "The snapshot named in the URL was never saved, or was deleted.",
                                "Save it first (POST .../snapshot/{name}/save), or list the snapshots.",
                                reason=err.reason)
    return errors.bad_request(f"The snapshot name '{name}' is not valid: {err.message}",
                              "Use 1 to 48 characters of A-Z a-z 0-9 . / _ % (a trailing * only to list).",
                              reason=err.reason)


def _entry(info: savepoints.SnapshotInfo) -> dict:
    return {"name": info.name,
            "saved": datetime.datetime.fromtimestamp(info.saved_at, datetime.timezone.utc).isoformat(),
            "objects": info.objects, "messages": info.messages, "subscriptions": info.subscriptions,
            "retained": info.retained}


def listing(server, qmgr: str, name: str) -> dict:
    try:
        return {"snapshot": [_entry(i) for i in savepoints.of(server.qm).list(name)]}
    except savepoints.SnapshotError as err:
        raise _error(err, name, qmgr) from None


async def save(server, qmgr: str, name: str) -> dict:
    try:
        done = savepoints.of(server.qm).save(name)
    except savepoints.SnapshotError as err:
        raise _error(err, name, qmgr) from None
    return {"save": {"name": done.name, "objects": done.objects, "messages": done.messages,
                     "subscriptions": done.subscriptions, "retained": done.retained, "replaced": done.replaced,
                     "message": done.message()}}


async def restore(server, qmgr: str, name: str) -> dict:
    try:
        done = savepoints.of(server.qm).restore(name)
    except savepoints.SnapshotError as err:
        raise _error(err, name, qmgr) from None
    await server.mqi.durable(server.qm.position)  # the answer leaves once the whole restore is on disk
    return {"restore": {"name": done.name, "deleted": done.deleted, "restored": done.restored,
                        "queues": done.queues_refilled, "messages": done.messages, "kept": done.kept,
                        "message": done.message()}}


def delete(server, qmgr: str, name: str) -> None:
    try:
        savepoints.of(server.qm).delete(name)
    except savepoints.SnapshotError as err:
        raise _error(err, name, qmgr) from None
