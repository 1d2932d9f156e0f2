"""`arena league upload`: an entrant's side of `POST /api/bots`, over HTTP (httpx): sends the bot, then asks for the
verdict until the league's checker has given it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from arena.league.catalog import LeagueError

POLL_SECONDS = 0.5
"""How often the client asks whether its upload has been checked."""


@dataclass(frozen=True)
class Verdict:
    """The league's answer to an upload: `accepted` with the bot's label, or `refused` with why."""

    status: str
    label: str | None
    reason: str | None


def split_spec(spec: str) -> tuple[Path, str | None]:
    """A spec `path/file.py[:Class]` or `path/bot.zip[:module:Class]` as (file, class or entry, or None)."""
    for suffix in (".py:", ".zip:"):
        where, found, rest = spec.partition(suffix)
        if found:
            return Path(where + suffix[:-1]), rest
    return Path(spec), None


def upload_bot(url: str, spec: str, token: str, *, name: str | None = None, class_name: str | None = None,
               wait: float = 600.0) -> Verdict:
    """Uploads the bot of `spec` to the league served at `url` and waits (at most `wait` seconds) for the verdict.
    An upload the server refuses, or a server that cannot be reached, is a LeagueError with one line."""
    import httpx

    file, spec_class = split_spec(spec)
    if not file.is_file():
        raise LeagueError(f"no bot file {file}")
    form = {key: value for key, value in (("class", class_name or spec_class), ("name", name)) if value}
    base = url.rstrip("/")
    try:
        with httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Bearer {token}"}) as client:
            with file.open("rb") as content:
                sent = client.post("/api/bots", files={"file": (file.name, content)}, data=form)
            upload_id = _answer(sent, base)["upload"]
            deadline = time.monotonic() + wait
            while True:
                body = _answer(client.get(f"/api/uploads/{upload_id}"), base)
                if body["status"] != "checking":
                    return Verdict(body["status"], body.get("label"), body.get("reason"))
                if time.monotonic() > deadline:
                    raise LeagueError(f"no verdict within {wait:g} s; ask again at {base}/api/uploads/{upload_id}")
                time.sleep(POLL_SECONDS)
    except httpx.HTTPError as error:
        raise LeagueError(f"cannot reach the league at {base}: {type(error).__name__}: {error}".splitlines()[0]) \
            from None


def _answer(response, base: str) -> dict:
    """The JSON body of a 2xx answer; a 4xx or 5xx as a LeagueError with the server's one line."""
    try:
        body = response.json()
    except ValueError:
        body = {}
    if response.status_code >= 400 or not isinstance(body, dict):
        said = body.get("error") if isinstance(body, dict) else None
        raise LeagueError(f"{base} answered {response.status_code}: {said or response.reason_phrase}")
    return body
