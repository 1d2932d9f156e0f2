"""`arena league upload`: an entrant's side of `POST /api/bots`, over HTTP (httpx): sends the bot, then asks for the
verdict until the league's checker has given it."""

from __future__ import annotations

import io
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from arena.bots.bundles import ArchiveLimits, check_folder
from arena.bots.sources import as_folder, resolve
from arena.league.catalog import LeagueError

POLL_SECONDS = 0.5
"""How often the client asks whether its upload has been checked."""


@dataclass(frozen=True)
class Verdict:
    """The league's answer to an upload: `accepted` with the bot's label, `unchanged` with the label of the code the
    league holds already (`reason`: `unchanged: NAME@V (STATUS)`), or `refused` with why."""

    status: str
    label: str | None
    reason: str | None


def upload_bot(url: str, spec: str, token: str, *, name: str | None = None, class_name: str | None = None,
               wait: float = 600.0) -> Verdict:
    """Uploads the bot of `spec` (resolved as every command resolves one, arena/bots/sources.py) to the league served
    at `url` and waits (at most `wait` seconds) for the verdict. An upload the server refuses, or a server that
    cannot be reached, is a LeagueError with one line."""
    import httpx

    filename, data, spec_class = upload_of(f"{spec}:{class_name}" if class_name and spec.endswith(".py") else spec)
    form = {key: value for key, value in (("class", class_name or spec_class), ("name", name)) if value}
    base = url.rstrip("/")
    try:
        with httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Bearer {token}"}) as client:
            sent = _answer(client.post("/api/bots", files={"file": (filename, data)}, data=form), base)
            if sent.get("status") == "unchanged":  # the league holds these bytes already: nothing to check
                return Verdict("unchanged", sent.get("label"), sent.get("reason"))
            upload_id = sent["upload"]
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


def upload_of(spec: str) -> tuple[str, bytes, str | None]:
    """What an upload of `spec` sends: (file name, bytes, class or None). A file bot is its file, a zip as it is, any
    other bot a zip of its code as a folder bot (`as_folder`)."""
    import tempfile

    source = resolve(spec)
    if source.form == "file":
        return Path(source.root).name, Path(source.root).read_bytes(), source.entry.rpartition(":")[2]
    given = Path(spec.partition(":")[0])
    if given.suffix.lower() == ".zip" and given.is_file() and source.entry in (None, source.root):
        return given.name, given.read_bytes(), None
    if source.form not in ("package", "command", "program"):
        raise LeagueError(f"{spec}: an upload is a bot's code (path/file.py:Class, a folder or zip with a bot.toml, "
                          "folder-or.zip:module:Class, \"command: PROGRAM ARGS\"); a bundled bot is every league's "
                          "to add: arena league add DIR NAME")
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as scratch:
        root = as_folder(source, Path(scratch) / "bot")
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in check_folder(root, ArchiveLimits()):
                info = zipfile.ZipInfo(path.relative_to(root).as_posix())
                info.external_attr = (0o100755 if path.stat().st_mode & 0o111 else 0o100644) << 16
                archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    # named after what the user gave: a zip's own root is its unpacked copy, named by its hash
    stem = given.stem if given.suffix.lower() == ".zip" else Path(source.root).name if source.root else "bot"
    return f"{stem}.zip", buffer.getvalue(), None


def _answer(response, base: str) -> dict:
    """The JSON body of a 2xx answer; a 4xx or 5xx as a LeagueError with the server's one line."""
    try:
        body = response.json()
    except ValueError:
        body = {}
    if response.status_code >= 400 or not isinstance(body, dict):
        said = body.get("error") if isinstance(body, dict) else None
        hint = " (check --token, or ARENA_LEAGUE_TOKEN)" if response.status_code == 401 else ""
        raise LeagueError(f"{base} answered {response.status_code}: {said or response.reason_phrase}{hint}")
    return body
