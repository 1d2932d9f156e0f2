"""How a page or an answer of `arena league serve` is made from the current view: rendered once a view and shared
by every reader (an ETag, 304 to a client that holds it), a page or only its live part for htmx, and query
parameters checked. The routes of arena/server/pages_routes.py, api_routes.py and final_routes.py answer through it."""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from arena.server.render import templates, with_etag
from arena.server.views import View, served


def current_view(request: Request) -> View:
    """The view current when the request started: every answer stands on it."""
    return served(request).views.current


async def rendered(request: Request, key: tuple, make: Callable[[View], str]) -> tuple[bytes, str]:
    """What `make` renders of the current view, as bytes and their ETag, rendered once a view (the leaderboard and
    the standings with the view, in the computing process: arena/server/render.py): every reader of a view gets the
    same bytes, so a request costs a look-up, not a template (nor a JSON encoding) of the standings. What is not
    rendered yet is rendered in a thread, with whatever `make` reads (pandas, the catalog): never on the event loop,
    where it would hold up every other request meanwhile."""
    view = current_view(request)
    if key not in view.rendered:
        view.rendered[key] = await run_in_threadpool(lambda: with_etag(make(view)))
    return view.rendered[key]


def answer(request: Request, found: tuple[bytes, str], media_type: str, **headers: str) -> Response:
    """The bytes, or 304 when the client holds them already (If-None-Match): a poll of an unchanged page costs
    neither the page nor its transfer."""
    body, etag = found
    headers = {"ETag": etag, "Cache-Control": "no-cache", **headers}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


async def page(request: Request, name: str, fragment: str, context: Callable[[View], dict]) -> Response:
    """The page, or only its live part when htmx asks for it; 204 (nothing to swap) when the view the page
    shows (`since`) is still the current one."""
    view = current_view(request)
    if request.headers.get("HX-Request") == "true":
        if request.query_params.get("since") == str(view.version):
            return Response(status_code=204, headers={"Vary": "HX-Request"})
        name = fragment
    asked = tuple(sorted((k, v) for k, v in request.query_params.items() if k != "since"))
    found = await rendered(request, (name, request.url.path, asked), lambda view: templates.get_template(name).render(
        view=view, version=view.version, **context(view)))
    return answer(request, found, "text/html; charset=utf-8", Vary="HX-Request")


def only(request: Request, names: set[str]) -> None:
    """400 for a query parameter the path does not take."""
    extra = set(request.query_params) - names
    if extra:
        raise HTTPException(400, f"unknown parameter {sorted(extra)[0]!r}: {request.url.path} takes only "
                                 + ", ".join(f"`{name}`" for name in sorted(names)))


def records(frame) -> list[dict]:
    """Rows of a frame as JSON objects (NaN as null, numpy values as plain ones)."""
    return json.loads(frame.to_json(orient="records", double_precision=10))
