"""The web console (docs/console.md): static HTML, CSS and JavaScript shipped in the package
(``server/http/static/``), served at ``/console/`` with ``/`` redirecting there.  The files hold no data
and need no login; the page's script calls the REST API with the user's basic credentials."""

from __future__ import annotations

import pathlib

from starlette.responses import RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

STATIC = pathlib.Path(__file__).with_name("static")
PATH = "/console/"
# Only the console's own files run: no inline script, no other origin (the page uses no CDN).
_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-cache"),
]


class _WithHeaders:
    """StaticFiles, its answers carrying the console's security headers."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _to_console(request) -> RedirectResponse:
    query = request.url.query
    return RedirectResponse(PATH + (f"?{query}" if query else ""), status_code=302)


def routes() -> list:
    return [
        Route("/", _to_console, methods=["GET", "HEAD"]),
        Route("/console", _to_console, methods=["GET", "HEAD"]),
        Mount("/console", app=_WithHeaders(StaticFiles(directory=STATIC, html=True)), name="console"),
    ]
