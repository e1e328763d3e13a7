"""qmlite's own REST resources for the queue managers one server hosts (registry/hosting.py):
``GET /admin/qmlite/qmgrs[/{qmgr}]`` lists them, ``POST /admin/qmlite/qmgrs`` with ``{"name": "QM3"}``
creates one (docs/rest.md "qmlite's own")."""

from __future__ import annotations

from qmlite.registry import hosting, qmgrnames

from . import errors


def _entry(entry: hosting.Hosted) -> dict:
    return {"name": entry.name, "default": entry.default, "state": entry.status.lower(),
            "connectionCount": entry.connections, "dataDirectory": entry.data_dir}


def entries(server, name: str | None) -> dict:
    qmgrs = server.primary.qmgrs
    try:
        return {"qmgr": [_entry(e) for e in qmgrs.describe(name)]}
    except hosting.HostingError as exc:
        if qmgrnames.is_name(name):
            raise errors.unknown_qmgr(name) from None
        raise errors.bad_request(f"{exc}.", reason=exc.reason) from None


def create(server, body: object) -> dict:
    if not isinstance(body, dict) or set(body) != {"name"} or not isinstance(body["name"], str):
        raise errors.bad_request("The request body must be a JSON object {'name': 'a queue manager name'}.",
                                 reason=hosting.MQRC_Q_MGR_NAME_ERROR)
    qmgrs = server.primary.qmgrs
    name = body["name"]
    try:
        qmgrs.create(name)
    except hosting.HostingError as exc:
        raise errors.bad_request(f"{exc}.", reason=exc.reason) from None
    return {"qmgr": [_entry(e) for e in qmgrs.describe(name)]}
