"""The Starlette app of `arena league serve`: pages rendered from Jinja2 templates (arena/web/templates/),
a JSON API over the same data, entrants' uploads (arena/server/upload_routes.py), errors as one line (a page for a
page, JSON under /api), and a lifespan that owns the refresher, the play loop and the upload checker and makes what
the handlers read (`Served`). The event loop only looks things up: whatever reads the catalog, a file or a frame runs
in a thread, so a request kept waiting keeps no other waiting. What the server says goes to `logging`.

Why Starlette and not FastAPI: the server has a dozen GET routes whose only parameters are a label, a game index,
`after` and `variant`, and four small upload routes (a multipart form of three fields, python-multipart parsing it);
FastAPI's gains (pydantic models, OpenAPI) would bring pydantic for nothing, and FastAPI is Starlette underneath.
uvicorn serves it, with one worker: the process is the league's one player.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager, nullcontext
from http import HTTPStatus
from itertools import chain
from pathlib import Path

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.bots.bundles import size_text
from arena.league.catalog import Catalog, LeagueError
from arena.league.standings import versions
from arena.server.answers import answer, current_view, only, page, records, rendered
from arena.server.checker import Checker
from arena.server.final_routes import api_final, favicon, final_page, final_pairing_page, finished_final
from arena.server.player import PlayLoop
from arena.server.render import leaderboard_context, standings_json, templates
from arena.server.replays import KEPT_PAGES, ReplayError, replay_json
from arena.server.upload_routes import (
    HASHING_AT_ONCE,
    api_reinstate,
    api_retire,
    api_upload,
    api_upload_status,
    owner_part,
    request_entrant,
)
from arena.server.views import RECENT_GAMES, LeagueViews, Served, View, served

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
REPORT_STATIC = HERE.parent / "report" / "static"
"""plotly.js's cartesian bundle, which the run report ships too."""
ROUND_PAGE = 20
"""Rounds on a page of the round log, and in an answer of `/api/rounds`: a round of a large league plans a hundred
tables."""
REFRESH_SECONDS = 1.0
"""How often the server looks at the catalog for a finished round or a changed bot."""
COMPUTE_SHARE = 0.25
"""The share of one core the computing process may take: after each look the refresher waits its CPU time divided
by this, so the standings stay within it however large the league, and a view covers the rounds finished
meanwhile. A quarter: at a million games a look then follows a round by about a minute, and play beside it on two
cores lost nothing measurable (docs/benchmarks.md, "Serving a league")."""


def create_app(views: LeagueViews, *, lock_fd: int | None = None, workers: int | None = None,
               address: str | None = None) -> Starlette:
    """The app serving the league of `views`; given `lock_fd` (the caller's locked `play.lock`), its lifespan keeps
    the league played too. Its lifespan runs the upload checker beside it, and makes what the handlers read (a
    `Served`, arena/server/views.py)."""

    @asynccontextmanager
    async def lifespan(app: Starlette):
        views.refresh(history=False)  # `serve` has looked already: nothing new, unless the app is served otherwise
        stop = threading.Event()

        def refresher() -> None:  # the one place that looks at the catalog: requests only read `views.current`
            pause = REFRESH_SECONDS  # not the first look's cost: it read every game, the next reads only new ones
            while not stop.wait(pause):
                try:
                    views.refresh()
                except Exception as error:  # noqa: BLE001 - a failed look keeps the last view; the next may work
                    log.warning("could not read the league: %s: %s", type(error).__name__, error)
                # rounds that finish faster than the standings are computed get one view for several
                pause = max(REFRESH_SECONDS, views.cost / COMPUTE_SHARE)

        thread = threading.Thread(target=refresher, name="arena-league-refresh", daemon=True)
        thread.start()
        loop = PlayLoop(views.directory, lock_fd, workers, address, settled=views.refresh) \
            if lock_fd is not None else None
        if loop:
            loop.start()
        checker = Checker(views.directory)
        checker.start()
        try:
            yield {"served": Served(views, loop, views.settings.uploads, anyio.CapacityLimiter(HASHING_AT_ONCE))}
        finally:
            stop.set()
            checker.stop()
            if loop:
                loop.stop()
            thread.join(REFRESH_SECONDS + 60)
            views.close()

    return Starlette(routes=[
        Route("/", leaderboard), Route("/bots/{label}", bot_page), Route("/rounds", rounds_page),
        Route("/games/{index:int}", game_page), Route("/final", final_page),
        Route("/final/games/{index:int}", final_game_page), Route("/final/pairing", final_pairing_page),
        Route("/enter", enter_page), Route("/enter/bots", enter_bots), Route("/favicon.ico", favicon),
        Route("/api/health", api_health), Route("/api/standings", api_standings), Route("/api/final", api_final),
        Route("/api/games.parquet", api_games),
        Route("/api/bots/{label}", api_bot), Route("/api/rounds", api_rounds),
        Route("/api/bots", api_upload, methods=["POST"]), Route("/api/uploads/{id}", api_upload_status),
        Route("/api/bots/{label}/retire", api_retire, methods=["POST"]),
        Route("/api/bots/{label}/reinstate", api_reinstate, methods=["POST"]),
        Mount("/static/report", StaticFiles(directory=REPORT_STATIC)),
        Mount("/static", StaticFiles(directory=HERE / "static", packages=[("arena.web", "static")])),
    ], lifespan=lifespan, exception_handlers={HTTPException: http_error}, middleware=[Middleware(OneLineErrors)])


def serve(directory: Path, *, host: str = "127.0.0.1", port: int = 8000, play: bool = True,
          workers: int | None = None, address: str | None = None) -> None:
    """Serves the league until interrupted; with `play`, plays it too, holding `play.lock` throughout (a
    separate `arena league play` is refused meanwhile). Logs the address (at INFO) once it listens."""
    import uvicorn

    from arena.league.play import play_lock

    directory = Path(directory)
    views = LeagueViews(directory)  # a bad directory is one line before anything listens
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets that say so, and without it every answer
    # on a kept-alive connection waited 40 ms for the client's delayed ACK of its headers
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(2048)  # connections made from now on wait for uvicorn rather than being refused
    except OSError as error:
        listener.close()
        raise LeagueError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    with play_lock(directory) if play else nullcontext() as lock:
        app = create_app(views, lock_fd=lock.fileno() if lock else None, workers=workers, address=address)
        # read before the address is logged, so the first answers are whole; the history's first points, where they
        # are dear, come with the refresher's first look (`make_view`)
        views.refresh(history=False)
        bound = listener.getsockname()[1]
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        log.info("serving the league %r at http://%s:%s/%s", views.settings.name, shown, bound,
                 " and playing it" if play else "")
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", workers=1))
        server.run(sockets=[listener])


# --- pages ------------------------------------------------------------------------------------------

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
    before = _round_number(request, "before", 2 ** 62)

    def context(view: View) -> dict:
        shown = _round_log(request, view, 0, before - 1, newest_first=True)
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
        "figure": _history_figure(history, view),
    }


def _history_figure(history, view: View) -> dict:
    """The bot's mu after each round, a line per variant with a marker at every round it was rated after."""
    traces = [{"type": "scatter", "mode": "lines+markers", "name": variant, "x": part["round"].tolist(),
               "y": [round(mu, 3) for mu in part["mu"]], "hovertemplate": "round %{x}: mu %{y:.2f}<extra></extra>"}
              for variant, part in history.groupby("variant", sort=True)]
    return {"data": traces, "layout": {"height": 320, "margin": {"l": 50, "r": 20, "t": 20, "b": 40},
                                       "xaxis": {"title": {"text": "round"}, "dtick": 1 if len(view.rounds) < 20
                                                 else None},
                                       "yaxis": {"title": {"text": "mu"}}, "showlegend": len(traces) > 1}}


# --- the JSON API -----------------------------------------------------------------------------------

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
    after = _round_number(request, "after", 0)
    found = await run_in_threadpool(_round_log, request, view, after, view.last_round, newest_first=False)
    return JSONResponse({"rounds": [{"number": r.number, "first_index": r.first_index, "games": r.games,
                                     "started": r.started, "finished": r.finished, "tables": r.plan}
                                    for r in found]})


def _round_number(request: Request, name: str, default: int) -> int:
    text = request.query_params.get(name, str(default))
    if not text.isdigit():
        raise HTTPException(400, f"{name}={text!r}: expected a round number (0 or more)")
    return int(text)


def _round_log(request: Request, view: View, after: int, upto: int, newest_first: bool) -> list:
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


# --- errors -----------------------------------------------------------------------------------------

def _error(request: Request, status: int, line: str, headers: dict | None = None) -> Response:
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
    return _error(request, error.status_code, line, error.headers)


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
            await _error(request, 500, line)(scope, receive, send)
