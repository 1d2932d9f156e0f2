"""How `arena league serve` refuses or fails: one line, as JSON under /api and as a small HTML page elsewhere, and an
unexpected failure logged once with its traceback (arena/server/app.py installs both)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.server.render import templates

log = logging.getLogger(__name__)


def error_response(request: Request, status: int, line: str, headers: dict | None = None) -> Response:
    """A 4xx/5xx as one line: JSON `{"error": line}` under /api, a small HTML page with the status elsewhere."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": line}, status_code=status, headers=headers)
    return templates.TemplateResponse(request, "error.html", {"line": line, "status": status,
                                                              "phrase": HTTPStatus(status).phrase},
                                      status_code=status, headers=headers)


async def http_error(request: Request, error: HTTPException) -> Response:
    """A refusal (a bad parameter, an unknown bot or game, ...) as one line."""
    line = error.detail if error.status_code != 404 or error.detail != "Not Found" else \
        f"no such page: {request.url.path}"
    return error_response(request, error.status_code, line, error.headers)


class OneLineErrors:
    """Answers an unexpected failure with one line for the client (never a traceback) and logs it, request and
    traceback, once. Starlette's own handler of last resort raises the error again once it has answered, and uvicorn
    then logs the traceback a second time and closes the connection: a client's next request on it failed."""

    def __init__(self, app: Callable) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        started = False

        async def sending(message: dict) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as error:
            if scope["type"] != "http" or started:  # half an answer is sent: only dropping the connection tells
                raise
            request = Request(scope)
            log.error("%s %s failed", request.method, request.url.path, exc_info=error)
            line = f"internal error ({type(error).__name__}); the server's log has the details"
            await error_response(request, 500, line)(scope, receive, send)
