"""The pages of `arena league serve` (arena/server/app.py assembles them): the leaderboard, a bot's page, the round
log, a game's replay (of the league or its final), and the entrants' page, each rendered from the current view
(arena/server/answers.py); with what a bot's page and the round log show, which the JSON API answers too."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from arena.bots.bundles import size_text
from arena.league.catalog import Catalog
from arena.league.standings import versions
from arena.server.answers import current_view, only, page
from arena.server.final_routes import finished_final
from arena.server.render import leaderboard_context, templates
from arena.server.replays import KEPT_PAGES, ReplayError, replay_json
from arena.server.upload_routes import request_entrant
from arena.server.views import RECENT_GAMES, View, served

ROUND_PAGE = 20
"""Rounds on a page of the round log, and in an answer of `/api/rounds`: a round of a large league plans a hundred
tables."""


async def leaderboard(request: Request) -> Response:
    """`/`: the standing table of each variant."""
    return await page(request, "leaderboard.html", "_standings.html", leaderboard_context)


async def bot_page(request: Request) -> Response:
    """`/bots/{label}`: versions, rating history, head-to-head, recent games and forfeits."""
    label = request.path_params["label"]
    if current_view(request).bot(label) is None:
        raise HTTPException(404, f"no bot {label!r} in this league")
    return await page(request, "bot.html", "_bot.html",
                       lambda view: {"bot": view.bot(label), **bot_context(view, label)})


async def rounds_page(request: Request) -> Response:
    """`/rounds`: the round log, newest first, with why each table was chosen: ROUND_PAGE rounds a page, and
    `?before=N` the page of those before round N."""
    only(request, {"before", "since"})  # `since`: the view an htmx poll shows
    before = round_number(request, "before", 2 ** 62)

    def context(view: View) -> dict:
        shown = round_log(request, view, 0, before - 1, newest_first=True)
        return {"shown": shown, "older": shown[-1].number if shown and shown[-1].number > 1 else None}

    return await page(request, "rounds.html", "_rounds.html", context)


async def game_page(request: Request) -> Response:
    """`/games/{index}`: the step-through replay page of one league game, regenerated in a child process."""
    index = request.path_params["index"]
    if not 0 <= index < current_view(request).game_count:
        raise HTTPException(404, f"no game {index} in the finished rounds of this league")
    return await _replay_page(request, index, final=False)


async def final_game_page(request: Request) -> Response:
    """`/final/games/{index}`: the replay page of one game of the final."""
    index, final = request.path_params["index"], finished_final(request)
    if not 0 <= index < final.games:
        raise HTTPException(404, f"no game {index} in the final (its games are 0 to {final.games - 1})")
    return await _replay_page(request, index, final=True)


async def _replay_page(request: Request, index: int, final: bool) -> Response:
    """A game's replay page (of the league, or of its `final`), regenerated in a child process, the last KEPT_PAGES
    kept."""
    from arena.report.replay_page import replay_page_html

    kept = served(request).replays
    key = (final, finished_final(request).digest if final else "", index)  # a final played again is another game
    if key not in kept:
        try:
            data = await replay_json(served(request).directory, index, final)
        except ReplayError as error:
            raise HTTPException(500, str(error)) from None
        name = current_view(request).name
        back = ("/final", f"the final of {name}") if final else ("/", f"the league {name}")
        kept[key] = await run_in_threadpool(replay_page_html, data, back=back)
        while len(kept) > KEPT_PAGES:
            kept.popitem(last=False)
    kept.move_to_end(key)
    return HTMLResponse(kept[key])


async def enter_page(request: Request) -> Response:
    """`/enter`: the entrants' page: a token and a file in, the check's verdict in place (its script asks
    `/api/uploads/{id}`), and the entrant's bots (`/enter/bots`); while entries are open, else when they closed."""
    limits = served(request).upload_limits
    return await page(request, "enter.html", "enter.html", lambda view: {"limits": limits, "size": size_text})


async def enter_bots(request: Request) -> Response:
    """`/enter/bots`: the part of `/enter` that the entrant of the Bearer token sees: each of their bots' versions
    with its status, and their last uploads with the verdicts (HTML; 401 for a missing, wrong or revoked token)."""
    from arena.league.uploads import entrant_bots

    server = served(request)
    entrant = await request_entrant(request)
    if entrant is None:
        raise HTTPException(401, "missing, wrong or revoked token", headers={"WWW-Authenticate": "Bearer"})
    bots, uploads = await run_in_threadpool(entrant_bots, server.directory, entrant)
    active = {b.name for b in bots if b.status == "active"}
    return templates.TemplateResponse(request, "_entrant.html", {
        "entrant": entrant, "bots": bots, "uploads": uploads, "active": sorted(active),
        "limits": server.upload_limits}, headers={"Cache-Control": "no-store"})


def bot_context(view: View, label: str) -> dict:
    """What the bot's page and `/api/bots/{label}` show of it."""
    games = view.bot_games(label)
    history = view.history[view.history["bot"] == label]
    return {
        "versions": versions(view.bots, label),
        "rows": {v: f[f["bot"] == label] for v, f in view.frames.items() if label in set(f["bot"])},
        "pairs": view.pairs(label),
        "neighbours": view.neighbours(label),
        "history": history,
        "recent": games.head(RECENT_GAMES),
        "forfeits": view.forfeits(label),
        "figure": history_figure(history, view),
    }


def history_figure(history, view: View) -> dict:
    """The bot's mu after each round, a line per variant with a marker at every round it was rated after."""
    traces = [{"type": "scatter", "mode": "lines+markers", "name": variant, "x": part["round"].tolist(),
               "y": [round(mu, 3) for mu in part["mu"]], "hovertemplate": "round %{x}: mu %{y:.2f}<extra></extra>"}
              for variant, part in history.groupby("variant", sort=True)]
    return {"data": traces, "layout": {"height": 320, "margin": {"l": 50, "r": 20, "t": 20, "b": 40},
                                       "xaxis": {"title": {"text": "round"}, "dtick": 1 if len(view.rounds) < 20
                                                 else None},
                                       "yaxis": {"title": {"text": "mu"}}, "showlegend": len(traces) > 1}}


def round_number(request: Request, name: str, default: int) -> int:
    text = request.query_params.get(name, str(default))
    if not text.isdigit():
        raise HTTPException(400, f"{name}={text!r}: expected a round number (0 or more)")
    return int(text)


def round_log(request: Request, view: View, after: int, upto: int, newest_first: bool) -> list:
    """A page of the finished rounds numbered above `after` and up to `upto` (never past the view's last round),
    read from the catalog: ROUND_PAGE rounds' plans, a few milliseconds, or as long as another process holds the
    catalog (called in a thread)."""
    if upto <= after:
        return []
    catalog = Catalog(served(request).directory)
    try:
        return catalog.finished_rounds(after, min(upto, view.last_round), ROUND_PAGE, newest_first)
    finally:
        catalog.close()
