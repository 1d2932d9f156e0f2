"""The JSON API of `arena league serve` (arena/server/app.py assembles it; the uploads' routes are in
arena/server/upload_routes.py, the final's in arena/server/final_routes.py): the league's health, its standings, its
games as Parquet, a bot's page as JSON and the round log."""

from __future__ import annotations

from itertools import chain

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from arena.league.catalog import LeagueError
from arena.league.standings import versions
from arena.server.answers import answer, current_view, only, records, rendered
from arena.server.pages_routes import bot_context, round_log, round_number
from arena.server.render import standings_json
from arena.server.upload_routes import owner_part
from arena.server.views import View, served


async def api_health(request: Request) -> Response:
    """`/api/health`: the league's size and whether it is playing now."""
    view, loop = current_view(request), served(request).loop
    body = {"status": "ok", "rounds": len(view.rounds), "games": view.game_count,
            "playing": bool(loop and loop.playing)}
    if loop and loop.failure:
        body["play_failure"] = loop.failure
    return JSONResponse(body)


async def api_standings(request: Request) -> Response:
    """`/api/standings`: every variant's rows of `arena league table --format json`."""
    return answer(request, await rendered(request, ("api", "standings"), standings_json), "application/json")


async def api_games(request: Request) -> Response:
    """`/api/games.parquet?variant=V&after=INDEX`: the finished rounds' games (of variant V, with a game index above
    INDEX), streamed as one Parquet file a row group at a time."""
    from arena.league.games import finished_games, parquet_stream

    only(request, {"variant", "after"})
    view = current_view(request)
    text = request.query_params.get("after", "-1")
    if not (text.isdigit() or text == "-1"):
        raise HTTPException(400, f"after={text!r}: expected a game index (0 or more)")
    chunks = parquet_stream(finished_games(served(request).directory, request.query_params.get("variant"),
                                           int(text), view.rounds))  # the view's rounds: one snapshot
    try:
        first = await run_in_threadpool(next, chunks)  # an unknown variant is refused before anything is sent
    except LeagueError as error:
        raise HTTPException(404, str(error)) from None
    name = f"{view.name}-games.parquet"
    return StreamingResponse(chain([first], chunks), media_type="application/vnd.apache.parquet",
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def api_bot(request: Request) -> Response:
    """`/api/bots/{label}`: the bot's versions, rows, head-to-head, history, recent games and forfeits."""
    view, label = current_view(request), request.path_params["label"]
    if view.bot(label) is None:
        raise HTTPException(404, f"no bot {label!r} in this league")
    owner = await owner_part(request, versions(view.bots, label))
    return await run_in_threadpool(_bot_answer, view, label, owner)


def _bot_answer(view: View, label: str, owner: dict) -> Response:
    """The body of `/api/bots/{label}` (made in a thread: pandas), with what its `owner` sees."""
    shown = bot_context(view, label)
    games = ["game_index", "round", "variant", "players", "scores", "ranks", "termination", "seat", "score", "place"]
    return JSONResponse({
        "label": label, "rounds": len(view.rounds),
        "versions": [{"label": b.label, "version": b.version, "hash": b.hash, "kind": b.kind, "status": b.status,
                      "added": b.added, "retired": b.retired, "reason": b.reason} for b in shown["versions"]],
        "rows": {v: records(rows)[0] for v, rows in shown["rows"].items()},
        "pairs": {v: records(pairs) for v, pairs in shown["pairs"].items()},
        "neighbours": {v: records(rows) for v, rows in shown["neighbours"].items()},
        "history": records(shown["history"]),
        "recent_games": records(shown["recent"][games]) if len(shown["recent"]) else [],
        "forfeits": records(shown["forfeits"][games + ["fault"]]) if len(shown["forfeits"]) else [],
        **owner,
    })


async def api_rounds(request: Request) -> Response:
    """`/api/rounds?after=N`: the first ROUND_PAGE finished rounds after round N (default 0), oldest first, with
    their tables and why; ask again after the last one for the next."""
    only(request, {"after"})
    view = current_view(request)
    after = round_number(request, "after", 0)
    found = await run_in_threadpool(round_log, request, view, after, view.last_round, newest_first=False)
    return JSONResponse({"rounds": [{"number": r.number, "first_index": r.first_index, "games": r.games,
                                     "started": r.started, "finished": r.finished, "tables": r.plan}
                                    for r in found]})
