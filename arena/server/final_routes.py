"""The final's routes of `arena league serve`: `/final` (each variant's champion, a cross-table of every pairing whose
cells open its games, the standings; before the final is finished, where it stands, asking again every few seconds),
`/final/pairing` (one cell: a pairing's record and its games), `/api/final` (where the final stands, then its
standings) and the league's icon."""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from arena.league.season import final_state
from arena.server.answers import answer, current_view, only, page, records, rendered
from arena.server.final import FinalView
from arena.server.render import templates, with_etag
from arena.server.views import View, served
from arena.web import FAVICON

NO_FINAL = "no final yet: once entries are closed, `arena league final` plays it"


def finished_final(request: Request) -> FinalView:
    """The view's final, or 404."""
    final = current_view(request).final
    if final is None:
        raise HTTPException(404, NO_FINAL)
    return final


async def final_progress(request: Request) -> dict:
    """Where the final stands (arena.league.season.final_state), read in a thread, when the view has no final: a
    final finished but not yet rated by the view is said as playing its last games."""
    state = await run_in_threadpool(final_state, served(request).directory)
    if state["status"] == "finished":
        state = {"status": "playing", "played": state["games"], "total": state["games"]}
    return state


async def final_page(request: Request) -> Response:
    """`/final`: each variant's champion, a cross-table of every pairing (each cell opening its games) and the
    standings; before the final is finished, where it stands, in a part that asks again every few seconds and turns
    into the final once it is finished."""
    only(request, {"since"})  # `since`: the view a page shows
    view = current_view(request)
    if view.final is not None:
        return await page(request, "final.html", "_final.html", lambda view: {"final": view.final})
    name = "_final_progress.html" if request.headers.get("HX-Request") == "true" else "final.html"
    text = templates.get_template(name).render(view=view, version=view.version, final=None,
                                               progress=await final_progress(request))
    return answer(request, with_etag(text), "text/html; charset=utf-8", Vary="HX-Request")


async def final_pairing_page(request: Request) -> Response:
    """`/final/pairing?variant=V&bot=A&opponent=B`: one cell of the final's cross-table: A's record against B and
    the games that seated both, each opening its replay."""
    only(request, {"variant", "bot", "opponent", "since"})
    final = finished_final(request)
    asked = {name: request.query_params.get(name) for name in ("variant", "bot", "opponent")}
    if missing := [name for name, value in asked.items() if not value]:
        raise HTTPException(400, f"/final/pairing takes `variant`, `bot` and `opponent`: {missing[0]} is missing")
    variant, bot, opponent = asked.values()
    if variant not in final.frames:
        raise HTTPException(404, f"no variant {variant!r} in the final (it has {', '.join(final.frames)})")
    if (bot, opponent) not in final.cross(variant):
        raise HTTPException(404, f"no pairing {bot!r} v {opponent!r} in the final's {variant}")
    return await page(request, "final_pairing.html", "final_pairing.html", lambda view: {
        "final": view.final, "variant": variant, "bot": bot, "opponent": opponent,
        "record": view.final.cross(variant)[(bot, opponent)],
        "games": view.final.pairing_games(variant, bot, opponent)})


async def favicon(request: Request) -> Response:
    """`/favicon.ico`, which browsers ask for on every page that names none (a replay page among them)."""
    return FileResponse(FAVICON, media_type="image/x-icon", headers={"Cache-Control": "max-age=86400"})


async def api_final(request: Request) -> Response:
    """`/api/final`: where the final stands: `{"status": "not started"}`, `{"status": "playing", "played": N, "total":
    M}` (or "stopped", cut short), and once finished its rows by variant as `/api/standings` has the league's, each
    pair's record and each variant's champions."""
    if current_view(request).final is None:
        return JSONResponse(await final_progress(request), headers={"Cache-Control": "no-cache"})
    return answer(request, await rendered(request, ("api", "final"), final_json), "application/json")


def final_json(view: View) -> str:
    """The body of `/api/final` for a finished final."""
    final = view.final
    return json.dumps({"status": "finished", "games": final.games, "digest": final.digest,
                       "finished": final.finished, "variants": final.standings(),
                       "champions": {variant: final.champions(variant)["bot"].tolist() for variant in final.frames},
                       "pairs": {variant: records(final.pairs(variant)) for variant in final.frames}})
