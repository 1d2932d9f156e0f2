"""The Starlette app of `arena league serve`, assembled from its routes: pages rendered from Jinja2 templates
(arena/web/templates/, by arena/server/pages_routes.py), a JSON API over the same data (arena/server/api_routes.py),
the final's (arena/server/final_routes.py), entrants' uploads (arena/server/upload_routes.py), errors as one line (a
page for a page, JSON under /api: arena/server/errors.py), and a lifespan that owns the refresher, the play loop and
the upload checker and makes what the handlers read (`Served`). The event loop only looks things up: whatever reads
the catalog, a file or a frame runs in a thread, so a request kept waiting keeps no other waiting. What the server
says goes to `logging`.

Why Starlette and not FastAPI: the server has a dozen GET routes whose only parameters are a label, a game index,
`after` and `variant`, and four small upload routes (a multipart form of three fields, python-multipart parsing it);
FastAPI's gains (pydantic models, OpenAPI) would bring pydantic for nothing, and FastAPI is Starlette underneath.
uvicorn serves it, with one worker: the process is the league's one player.
"""

from __future__ import annotations

import logging
import socket
import threading
from contextlib import asynccontextmanager, nullcontext
from pathlib import Path

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.league.catalog import LeagueError
from arena.server.api_routes import api_bot, api_games, api_health, api_rounds, api_standings
from arena.server.checker import Checker
from arena.server.errors import OneLineErrors, http_error
from arena.server.final_routes import api_final, favicon, final_page, final_pairing_page
from arena.server.pages_routes import (
    bot_page,
    enter_bots,
    enter_page,
    final_game_page,
    game_page,
    leaderboard,
    rounds_page,
)
from arena.server.player import PlayLoop
from arena.server.upload_routes import (
    HASHING_AT_ONCE,
    api_reinstate,
    api_retire,
    api_upload,
    api_upload_status,
)
from arena.server.views import LeagueViews, Served

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
REPORT_STATIC = HERE.parent / "report" / "static"
"""plotly.js's cartesian bundle, which the run report ships too."""
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
    try:
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
    finally:
        views.close()  # the computing process, if the server never got as far as its lifespan
