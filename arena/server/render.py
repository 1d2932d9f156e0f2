"""The pages the computing process renders with each view (the leaderboard and `/api/standings`), and the
templates the server renders the others with: one place, shared by the app and the computing process, so that
neither imports the other (a `view` here is an arena.server.views.View, not imported: views imports this)."""

from __future__ import annotations

import hashlib
import json
from urllib.parse import quote

from starlette.templating import Jinja2Templates

from arena.league.season import shown_time
from arena.web import environment
from arena.web.formats import places

POLL_SECONDS = 2
"""How often an open page asks for its live part (only while the tab is visible)."""
VERDICT_POLL_SECONDS = 1
"""How often a page that sent an upload asks for its verdict, until it is given."""

templates = Jinja2Templates(env=environment(
    served=True, bot_href=lambda label: "/bots/" + quote(label, safe="/"),  # as Jinja's urlencode
    poll_seconds=POLL_SECONDS, verdict_poll_seconds=VERDICT_POLL_SECONDS, shown_time=shown_time))


def with_etag(text: str) -> tuple[bytes, str]:
    """The text as bytes and their ETag."""
    body = text.encode()
    return body, f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"'


def leaderboard_context(view) -> dict:
    """What the leaderboard shows beside the view: each variant's places and the bots not rated yet."""
    rated = {label for frame in view.frames.values() for label in frame["bot"]}
    return {"places": {variant: places(frame["pl_rank"]) for variant, frame in view.frames.items()},
            "unrated": [b for b in view.bots if b.label not in rated]}


def standings_json(view) -> str:
    """The body of `/api/standings`."""
    return json.dumps({"rounds": len(view.rounds), "games": view.game_count, "variants": view.standings()})


def prerendered(view) -> dict:
    """The leaderboard (page and live part) and `/api/standings` of a new view, as (bytes, ETag) by key: rendered
    in the computing process with the view, before a request asks."""
    kept = {}
    for name in ("leaderboard.html", "_standings.html"):
        kept[(name, "/", ())] = with_etag(templates.get_template(name).render(view=view, version=view.version,
                                                                          **leaderboard_context(view)))
    kept[("api", "standings")] = with_etag(standings_json(view))
    return kept
