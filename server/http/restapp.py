"""The Starlette app: IBM's URLs, each handler authenticating, checking the CSRF header and the mqweb
role, then calling admin.py or messaging.py; every refusal is IBM's error JSON (errors.py)."""

from __future__ import annotations

import functools
import json
import time

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .. import log as qlog
from . import admin, auth, bodies, console, errors, messaging
from . import hosted  # qmlite's /admin/qmlite/qmgrs (docs/multiqm.md)
from . import clockroutes  # qmlite's clock resource (issue 23)
from . import faultroutes  # qmlite's fault rules
from . import snapshotroutes  # qmlite's snapshot resources
from . import topologyroutes  # qmlite's topology of message channels (issue 34)

BASE = "/ibmmq/rest/{version}"
MSG = BASE + "/messaging/qmgr/{qmgr}"
_VERSIONS = {"v1": 1, "v2": 2, "v3": 3}
_JSON = "application/json; charset=utf-8"


def _version(request: Request, allowed=(1, 2, 3)) -> int:
    version = _VERSIONS.get(request.path_params.get("version", ""))
    if version is None or version not in allowed:
        raise errors.not_found(request.url.path)
    return version


def _json(body: object, status: int = 200) -> Response:
    return Response(json.dumps(body), status_code=status, media_type=_JSON)


def create_app(server, *, run_mqsc: admin.MqscRunner | None = None) -> Starlette:
    """The REST app for a running QueueManagerServer; ``run_mqsc`` is the MQSC runner (default: the
    ``qmlite.registry.mqsc`` module's, imported on first use)."""
    cfg = server.cfg
    log = qlog.get(component="rest")

    async def _json_body(request: Request) -> object:
        """The request's JSON body (an empty body is ``None``), read under cfg.http_max_body (413 when
        longer); anything that is not JSON, or nests too deep, is IBM's 400 error JSON."""
        return await bodies.read_json(request, cfg.http_max_body)

    def endpoint(role: str | None):
        def wrap(handler):
            @functools.wraps(handler)
            async def run(request: Request) -> Response:
                started = time.perf_counter()
                path = request.scope["path"]
                user = ""
                try:
                    principal = auth.authenticate(cfg, request.headers.get("authorization"), path)
                    user = principal.user
                    auth.check_csrf(request.method, request.headers)
                    if role is not None:
                        auth.require(principal, role)
                    response = await handler(request, principal)
                except errors.RestError as exc:
                    response = exc.response()
                except Exception as exc:  # a bug: answered as IBM's unexpected-exception error, logged
                    log.exception("http_error", method=request.method, path=path, error=repr(exc))
                    response = errors.RestError(500, "MQWB0000E", f"An unexpected exception {exc!r} occurred.",
                                                "An exception was thrown which is not otherwise handled.",
                                                "Report the problem with the qmlite log.").response()
                status = response.status_code
                event = log.warning if status >= 500 else log.info if status >= 400 else log.debug
                event("http_request", method=request.method, path=path, status=status, user=user,
                      ms=round((time.perf_counter() - started) * 1000, 2))
                return response
            return run
        return wrap

    def runner() -> admin.MqscRunner:
        chosen = run_mqsc if run_mqsc is not None else server.mqsc_runner
        return chosen if chosen is not None else admin.load_runner()

    # ---- admin ----------------------------------------------------------------------------------
    @endpoint(None)
    async def qmgr_list(request: Request, principal) -> Response:
        _version(request)
        return _json(admin.qmgr_entries(server, request.path_params.get("qmgr"), request.query_params.get("status")))

    @endpoint(None)
    async def installation(request: Request, principal) -> Response:
        _version(request)
        return _json(admin.installation_entries(server, request.path_params.get("name")))

    @endpoint(auth.ADMIN_ROLE)
    async def mqsc(request: Request, principal) -> Response:
        _version(request, (2, 3))
        target = admin.check_qmgr(server, request.path_params["qmgr"])
        body = await _json_body(request)
        text, as_json = admin.mqsc_text(body)
        return _json(await admin.run_mqsc(target, runner(), text, as_json, principal.user))

    @endpoint(auth.ADMIN_ROLE)
    async def pcf(request: Request, principal) -> Response:
        _version(request)
        target = admin.check_qmgr(server, request.path_params["qmgr"])
        body = await _json_body(request)
        return _json(await admin.run_pcf(target, admin.pcf_command(body), principal.user))

    @endpoint(None)
    async def ccdt(request: Request, principal) -> Response:
        _version(request)
        target = admin.check_qmgr(server, request.path_params["qmgr"])
        q = request.query_params
        text = admin.ccdt_text(target, host=q.get("host"), request_host=request.url.hostname or "127.0.0.1",
                               port=q.get("port"), names=q.getlist("channel"))
        return Response(text, status_code=200, media_type=_JSON)

    @endpoint(auth.ADMIN_ROLE)
    async def reset(request: Request, principal) -> Response:
        _version(request)
        target = admin.check_qmgr(server, request.path_params["qmgr"])
        return _json(await admin.reset_qmgr(target))

    # ---- the test's clock (qmlite extension, issue 23: server/http/clockroutes.py) --------------------------
    @endpoint(auth.ADMIN_ROLE)
    async def clock_state(request: Request, principal) -> Response:
        _version(request)
        return _json(clockroutes.state(admin.check_qmgr(server, request.path_params["qmgr"])))

    @endpoint(auth.ADMIN_ROLE)
    async def clock_move(request: Request, principal) -> Response:
        _version(request)
        target = admin.check_qmgr(server, request.path_params["qmgr"])  # a hosted one too (docs/multiqm.md)
        body = await _json_body(request)
        return _json(await clockroutes.move(target, body))

    # ---- qmlite's call trace (registry/monitoring/activity.py; docs/rest.md) --------------------------
    @endpoint(auth.ADMIN_ROLE)
    async def call_trace(request: Request, principal) -> Response:
        _version(request)
        tracer = admin.check_qmgr(server, request.path_params["qmgr"]).qm.activity
        if request.method == "DELETE":
            return _json({"cleared": tracer.clear()})
        if request.method == "POST":
            body = await _json_body(request)
            if not isinstance(body, dict) or set(body) != {"record"} or not isinstance(body["record"], bool):
                raise errors.bad_request('The request body must be {"record": true} or {"record": false}.')
            tracer.record(body["record"], user=principal.user, via="POST qmlite/calls")
            return _json({"recording": tracer.recording, "last": tracer.seq})
        query = request.query_params
        unknown = set(query) - {"after", "connectionId", "applName", "limit"}
        if unknown:
            raise errors.bad_request(f"The query parameter '{sorted(unknown)[0]}' is not valid here.")
        conn = query.get("connectionId", "")
        if conn and (len(conn) > 48 or any(ch not in "0123456789abcdefABCDEF" for ch in conn)):
            raise errors.bad_request(f"The value '{conn}' of connectionId is not hexadecimal.")
        calls = tracer.calls(after=_int_param(request, "after", 0, 2**62), connection=conn,
                             appl=query.get("applName", ""), limit=_int_param(request, "limit", 0, 1_000_000))
        return _json({"recording": tracer.recording, "last": tracer.seq, "calls": [c.to_dict() for c in calls]})
    # ---- qmlite's recent refusals: a 2035 that explains itself (registry/security/refusals.py) ---------
    @endpoint(auth.ADMIN_ROLE)
    async def refusals(request: Request, principal) -> Response:
        _version(request)
        kept = admin.check_qmgr(server, request.path_params["qmgr"]).qm.diagnostics.refusals
        if request.method == "DELETE":
            return _json({"cleared": kept.clear()})
        unknown = set(request.query_params) - {"after", "limit"}
        if unknown:
            raise errors.bad_request(f"The query parameter '{sorted(unknown)[0]}' is not valid here.")
        found = kept.recent(after=_int_param(request, "after", 0, 2**62),
                            limit=_int_param(request, "limit", 0, 1_000_000))
        return _json({"last": kept.seq, "refusal": [r.to_dict() for r in found]})

    # ---- snapshots (qmlite extension; server/http/snapshotroutes.py, docs/rest.md) -------------------
    @endpoint(auth.ADMIN_ROLE)
    async def snapshot_list(request: Request, principal) -> Response:
        _version(request)
        qmgr = request.path_params["qmgr"]
        target = admin.check_qmgr(server, qmgr)
        name = request.path_params.get("name") or request.query_params.get("name", "*")
        return _json(snapshotroutes.listing(target, qmgr, name))

    @endpoint(auth.ADMIN_ROLE)
    async def snapshot_action(request: Request, principal) -> Response:
        _version(request)
        qmgr = request.path_params["qmgr"]
        target = admin.check_qmgr(server, qmgr)
        name, action = request.path_params["name"], request.path_params["action"]
        if action == "save":
            return _json(await snapshotroutes.save(target, qmgr, name))
        if action == "restore":
            return _json(await snapshotroutes.restore(target, qmgr, name))
        raise errors.not_found(request.url.path)

    @endpoint(auth.ADMIN_ROLE)
    async def snapshot_delete(request: Request, principal) -> Response:
        _version(request)
        qmgr = request.path_params["qmgr"]
        target = admin.check_qmgr(server, qmgr)
        snapshotroutes.delete(target, qmgr, request.path_params["name"])
        return Response(status_code=204)

    # ---- qmlite's fault rules (server/http/faultroutes.py, docs/rest.md "Fault rules") ------------------
    @endpoint(auth.ADMIN_ROLE)
    async def fault_list(request: Request, principal) -> Response:
        _version(request)
        target = admin.check_qmgr(server, request.path_params["qmgr"])  # a hosted one too (docs/multiqm.md)
        name = request.path_params.get("name") or request.query_params.get("name", "*")
        return _json(faultroutes.listing(target.qm.faults, name))

    @endpoint(auth.ADMIN_ROLE)
    async def fault_set(request: Request, principal) -> Response:
        _version(request)
        target = admin.check_qmgr(server, request.path_params["qmgr"])
        body = await _json_body(request)
        if isinstance(body, dict) and "name" in request.path_params:
            body = {**body, "name": request.path_params["name"]}
        return _json(faultroutes.define(target.qm.faults, body), 201)

    @endpoint(auth.ADMIN_ROLE)
    async def fault_delete(request: Request, principal) -> Response:
        _version(request)
        target = admin.check_qmgr(server, request.path_params["qmgr"])
        return _json(faultroutes.delete(target.qm.faults, request.path_params.get("name", "*")))

    # ---- messaging ------------------------------------------------------------------------------
    def _messaging(request: Request) -> messaging.Messaging:
        qmgr = request.path_params["qmgr"]
        return messaging.Messaging(admin.check_qmgr(server, qmgr), qmgr)

    def _peer(request: Request) -> str:
        return request.client.host if request.client else ""

    def _ids(request: Request, version: int) -> tuple[bytes | None, bytes | None]:
        q = request.query_params
        msg_id = q.get("messageId")
        correl_id = q.get("correlationId")
        return (messaging.parse_id(msg_id, "message id", version) if msg_id else None,
                messaging.parse_id(correl_id, "correlation id", version, application=True) if correl_id else None)

    def _int_param(request: Request, name: str, default: int, limit: int) -> int:
        text = request.query_params.get(name)
        if text is None:
            return default
        if not text.isdigit() or int(text) > limit:
            raise errors.bad_request(f"The query parameter {name}={text!r} is not valid: expected an integer "
                                     f"from 0 to {limit}.")
        return int(text)

    async def _body(request: Request) -> bytes:
        """The message body, refused as soon as it is known to be longer than its target takes (its
        Content-Length, or the bytes so far), with the reason of the limit passed (messaging.size_limit)."""
        qm = admin.check_qmgr(server, request.path_params["qmgr"]).qm  # the queue manager the URL names
        queue = request.path_params.get("queue")
        limit, reason = messaging.size_limit(qm, queue)
        name = queue or request.path_params.get("topic", "")
        return await bodies.read(request, limit, lambda: errors.from_reason(
            reason, "put to" if queue else "publish to", name, qm.registry.qmgr.name))

    @endpoint(auth.USER_ROLE)
    async def put_message(request: Request, principal) -> Response:
        version = _version(request)
        msg = _messaging(request)
        out = messaging.outgoing(request.headers, await _body(request), version, msg.qmgr_name)
        md = await msg.put(principal.user, _peer(request), request.path_params["queue"], out)
        return Response(status_code=201, headers={"ibm-mq-md-messageId": messaging.format_id(md.MsgId, version)})

    @endpoint(auth.USER_ROLE)
    async def publish(request: Request, principal) -> Response:
        version = _version(request, (2, 3))
        msg = _messaging(request)
        out = messaging.outgoing(request.headers, await _body(request), version, msg.qmgr_name)
        await msg.publish(principal.user, _peer(request), request.path_params["topic"], out)
        return Response(status_code=201)

    async def _get(request: Request, principal, *, browse: bool) -> Response:
        version = _version(request)
        msg = _messaging(request)
        msg_id, correl_id = _ids(request, version)
        wait = _int_param(request, "wait", 0, messaging.MAX_WAIT_MS)
        got = await msg.get(principal.user, _peer(request), request.path_params["queue"], msg_id=msg_id,
                            correl_id=correl_id, wait_ms=wait, browse=browse)
        if got is None:
            return Response(status_code=204)
        text, content_type = messaging.text_of(got, msg.qm.registry.qmgr.ccsid)
        return Response(text.encode("utf-8"), status_code=200, media_type=content_type,
                        headers=messaging.response_headers(got, version))

    @endpoint(auth.USER_ROLE)
    async def get_message(request: Request, principal) -> Response:
        return await _get(request, principal, browse=False)

    @endpoint(auth.USER_ROLE)
    async def browse_message(request: Request, principal) -> Response:
        return await _get(request, principal, browse=True)

    @endpoint(auth.USER_ROLE)
    async def message_list(request: Request, principal) -> Response:
        version = _version(request)
        msg = _messaging(request)
        msg_id, correl_id = _ids(request, version)
        limit = _int_param(request, "limit", 1_000_000, 1_000_000)
        entries = msg.list(principal.user, _peer(request), request.path_params["queue"], msg_id=msg_id,
                           correl_id=correl_id, limit=limit, version=version)
        return _json({"messages": entries})

    # ---- qmlite's own: the queue managers this server hosts (registry/hosting.py, docs/rest.md) ----
    @endpoint(None)
    async def hosted_list(request: Request, principal) -> Response:
        _version(request)
        return _json(hosted.entries(server, request.path_params.get("qmgr")))

    @endpoint(auth.ADMIN_ROLE)
    async def hosted_create(request: Request, principal) -> Response:
        _version(request)
        body = await _json_body(request)
        return _json(hosted.create(server, body), status=201)

    # ---- qmlite's own: the queue managers and the message channels between them (issue 34 item 5) ------
    @endpoint(auth.ADMIN_ROLE)
    async def channel_topology(request: Request, principal) -> Response:
        _version(request)
        return _json(topologyroutes.document(server))

    async def not_found(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 405:
            return errors.RestError(405, "MQWB0007E", f"The method {request.method} is not supported for "
                                    f"'{request.url.path}'.", "The resource does not accept this HTTP method.",
                                    "Use a method docs/rest.md lists for the resource.").response()
        if exc.status_code == 404:
            return errors.not_found(request.url.path).response()
        return JSONResponse({"error": [{"message": str(exc.detail), "type": "rest"}]}, status_code=exc.status_code)

    routes = [
        Route(BASE + "/admin/qmgr", qmgr_list, methods=["GET"]),
        Route(BASE + "/admin/qmgr/{qmgr}", qmgr_list, methods=["GET"]),
        Route(BASE + "/admin/qmgr/{qmgr}/ccdt", ccdt, methods=["GET"]),
        Route(BASE + "/admin/installation", installation, methods=["GET"]),
        Route(BASE + "/admin/installation/{name}", installation, methods=["GET"]),
        Route(BASE + "/admin/action/qmgr/{qmgr}/mqsc", mqsc, methods=["POST"]),
        Route(BASE + "/admin/action/qmgr/{qmgr}/reset", reset, methods=["POST"]),
        Route(BASE + "/admin/action/qmgr/{qmgr}/pcf", pcf, methods=["POST"]),
        Route(BASE + "/admin/qmlite/qmgrs", hosted_list, methods=["GET"]),
        Route(BASE + "/admin/qmlite/qmgrs", hosted_create, methods=["POST"]),
        Route(BASE + "/admin/qmlite/qmgrs/{qmgr}", hosted_list, methods=["GET"]),
        Route(BASE + "/admin/qmlite/topology", channel_topology, methods=["GET"]),
        Route(BASE + "/admin/qmgr/{qmgr}/clock", clock_state, methods=["GET"]),  # qmlite's clock (issue 23)
        Route(BASE + "/admin/action/qmgr/{qmgr}/clock", clock_move, methods=["POST"]),
        Route(BASE + "/admin/qmgr/{qmgr}/qmlite/calls", call_trace, methods=["GET", "POST", "DELETE"]),
        Route(BASE + "/admin/qmgr/{qmgr}/qmlite/refusals", refusals, methods=["GET", "DELETE"]),
        Route(BASE + "/admin/qmgr/{qmgr}/snapshot", snapshot_list, methods=["GET"]),
        Route(BASE + "/admin/qmgr/{qmgr}/snapshot/{name:path}", snapshot_list, methods=["GET"]),
        Route(BASE + "/admin/qmgr/{qmgr}/snapshot/{name:path}", snapshot_delete, methods=["DELETE"]),
        Route(BASE + "/admin/action/qmgr/{qmgr}/snapshot/{name:path}/{action}", snapshot_action, methods=["POST"]),
        Route(BASE + "/admin/qmgr/{qmgr}/qmlite/fault", fault_list, methods=["GET"]),
        Route(BASE + "/admin/qmgr/{qmgr}/qmlite/fault", fault_set, methods=["POST"]),
        Route(BASE + "/admin/qmgr/{qmgr}/qmlite/fault", fault_delete, methods=["DELETE"]),
        Route(BASE + "/admin/qmgr/{qmgr}/qmlite/fault/{name}", fault_list, methods=["GET"]),
        Route(BASE + "/admin/qmgr/{qmgr}/qmlite/fault/{name}", fault_set, methods=["PUT"]),
        Route(BASE + "/admin/qmgr/{qmgr}/qmlite/fault/{name}", fault_delete, methods=["DELETE"]),
        *console.routes(),
        Route(MSG + "/queue/{queue}/message", put_message, methods=["POST"]),
        Route(MSG + "/queue/{queue}/message", get_message, methods=["DELETE"]),
        Route(MSG + "/queue/{queue}/message", browse_message, methods=["GET"]),
        Route(MSG + "/queue/{queue}/messagelist", message_list, methods=["GET"]),
        Route(MSG + "/topic/{topic:path}/message", publish, methods=["POST"]),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: not_found})
