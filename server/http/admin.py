"""The administrative resources: ``GET /admin/qmgr``, ``POST /admin/action/qmgr/{qmgr}/mqsc`` (through the
injected MQSC runner) and qmlite's own ``POST /admin/action/qmgr/{qmgr}/reset``."""

from __future__ import annotations

import datetime
from collections.abc import Callable

from qmlite.registry.storage import reset

from . import errors, mqscjson, pcfjson

MqscRunner = Callable[..., list]


def load_runner() -> MqscRunner:
    """The MQSC engine's ``run_mqsc``, imported when first needed (RestError 503 when absent)."""
    try:
        from qmlite.registry.mqsc import run_mqsc  # type: ignore[import-not-found]
    except ImportError as exc:
        raise errors.unavailable("The MQSC command runner (qmlite.registry.mqsc)", str(exc)) from None
    return run_mqsc


def qmgr_entries(server, name: str | None, status: str | None) -> dict:
    qm = server.qm
    own = qm.registry.qmgr.name
    if name is not None and name != own:
        raise errors.unknown_qmgr(name)
    entry: dict[str, object] = {"name": own, "state": "quiescing" if qm.quiescing else "running"}
    if status is not None:
        started = datetime.datetime.fromtimestamp(qm.started, datetime.timezone.utc)
        entry["status"] = {
            "started": started.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
            "channelInitiatorState": "running",
            "ldapConnectionState": "disconnected",
            "connectionCount": len(qm.sessions),
            "publishSubscribeState": "running",
        }
    return {"qmgr": [entry]}


INSTALLATION = "Installation1"  # the name IBM's first installation has (the developer container's)


def installation_entries(server, name: str | None) -> dict:
    """``GET /admin/installation``: the one installation, at the version the queue manager's command
    level claims (dspmqver's answer, in IBM's JSON)."""
    if name is not None and name != INSTALLATION:
        raise errors.RestError(404, "MQWB0002E", f"Could not find the installation '{name}'.",
                               "The REST API was invoked specifying an installation name which cannot be located.",
                               f"Resubmit the request with the installation name {INSTALLATION} or none.")
    level = server.qm.registry.qmgr.command_level
    return {"installation": [{"name": INSTALLATION, "platform": "unix",
                              "version": f"{level // 100}.{level // 10 % 10}.{level % 10}.0"}]}


def ccdt_text(server, *, host: str | None, request_host: str, port: str | None, names: list[str]) -> str:
    """qmlite's ``GET /admin/qmgr/{qmgr}/ccdt``: the JSON CCDT for the SVRCONN channels
    (registry/objects/ccdt.py), each connection at ``host`` (default the listener's address, or the host
    the request reached when the listener is on every address) and ``port`` (default the MQ listener's)."""
    from qmlite.registry.objects import ccdt, channels

    if port is not None and not (port.isdigit() and 1 <= int(port) <= 65535):
        raise errors.bad_request(f"The query parameter port={port!r} is not valid: expected 1 to 65535.")
    listen = server.cfg.host
    where = host or (listen if listen not in ("0.0.0.0", "", "::") else request_host)
    try:
        return ccdt.render(server.qm.registry.objects(channels.KIND).values(), qmgr_name=server.qm.registry.qmgr.name,
                           host=where, port=int(port) if port else server.port, names=names)
    except ccdt.UnknownChannel as exc:
        raise errors.RestError(404, "MQWB0009E", f"Could not find the channel: {exc}.",
                               "The request named a channel that is not a server-connection channel.",
                               "Resubmit the request with the name of a SVRCONN channel, or none.") from None


def check_qmgr(server, name: str) -> None:
    if name != server.qm.registry.qmgr.name:
        raise errors.unknown_qmgr(name)


def mqsc_text(body: object) -> tuple[str, bool]:
    """(MQSC text, JSON answer wanted) from the request body (RestError 400 when it is not one IBM takes)."""
    if not isinstance(body, dict):
        raise errors.bad_request("The request body must be a JSON object with a 'type' of runCommand or "
                                 "runCommandJSON.")
    kind = body.get("type")
    if kind == "runCommand":
        params = body.get("parameters")
        command = params.get("command") if isinstance(params, dict) else None
        if not isinstance(command, str) or not command.strip():
            raise errors.bad_request("runCommand needs 'parameters': {'command': 'an MQSC command'}.")
        return command.strip(), False
    if kind == "runCommandJSON":
        try:
            return mqscjson.command_text(body), True
        except mqscjson.TranslationError as exc:
            raise errors.bad_request(f"The runCommandJSON request is not valid: {exc}.") from None
    raise errors.bad_request(f"The request type {kind!r} is not valid: expected runCommand or runCommandJSON.")


async def run_mqsc(server, runner: MqscRunner, text: str, as_json: bool, user: str) -> dict:
    results = runner(server.qm, text, user=user)
    await server.mqi.durable(server.qm.position)
    items = mqscjson.json_responses(results) if as_json else mqscjson.text_responses(results)
    return {"commandResponse": items, **mqscjson.overall(results)}


def pcf_command(body: object):
    """The PCF command a runCommandPCF body asks for (RestError 400 when it is not one)."""
    if not isinstance(body, dict) or body.get("type") != "runCommandPCF":
        raise errors.bad_request("The request body must be a JSON object with 'type': 'runCommandPCF'.")
    try:
        return pcfjson.command(body)
    except mqscjson.TranslationError as exc:
        raise errors.bad_request(f"The runCommandPCF request is not valid: {exc}.") from None


async def run_pcf(server, request, user: str) -> dict:
    """qmlite's extension: one PCF command through the queue manager's command engine, as the command
    server runs it for an MQI client (the user's authority records apply unless it is in mqm); the
    answer waits for the journal like a command server's reply."""
    from qmlite.registry.security import authrecs
    from qmlite.registry.admin.engine import Requester
    from qmlite.registry.monitoring import events

    qm = server.qm
    (messages,) = qm.engine.run_batch([(request, Requester(user=user, admin=authrecs.privileged(user),
                                                           origin=events.MQEVO_REST))])
    await server.mqi.durable(qm.position)
    return pcfjson.responses(messages)


async def reset_qmgr(server) -> dict:
    done = reset.reset(server.qm)  # the one reset, as MQSC's RESET QMLITE runs it
    await server.mqi.durable(server.qm.position)
    return {"reset": {"deleted": done.deleted, "restored": done.restored, "cleared": done.cleared,
                      "kept": done.kept, "message": done.message()}}
