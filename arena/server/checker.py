"""The upload checker of `arena league serve`: a child process that checks the uploads recorded as `checking`, one
at a time, oldest first, as `arena league add` checks a bot (in the sandbox, always), and records each verdict.

Why a process of its own: an upload is a stranger's code, and checking it means running it; the server's process
never does, it only stores the file and records it (arena/league/uploads.py). The child dies with the server
(PR_SET_PDEATHSIG); an upload it leaves `checking` is checked again by the next server's checker, and checking
it twice changes nothing (the same code under the same name is `unchanged`).
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from pathlib import Path

from arena.errors import ArenaError
from arena.isolation.supervisor import Supervisor, child_arguments
from arena.league.entrants import Owner
from arena.league.uploads import Upload, entry_class, pending_uploads, record_verdict

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5
"""How often an idle checker looks for a new upload."""


def verdict(league: Path, upload: Upload) -> tuple[str | None, str | None, str]:
    """Checks one upload and adds it to the league: (label, None, "accepted"), (label, `unchanged: LABEL (STATUS)`,
    "unchanged") when the league held its code already (nothing changed, nothing reinstated), or (None, one-line
    reason, "refused")."""
    from arena.league import load_settings
    from arena.league.frozen import add_bot

    limits = load_settings(league).uploads
    path = league / upload.file
    try:
        if not path.is_file():
            return None, "the uploaded file is missing from the league"
        class_name = upload.class_name
        if class_name is None and path.suffix == ".py":
            class_name = entry_class(path)
        spec = f"{path}:{class_name}" if class_name else str(path)
        added = add_bot(league, spec, name=upload.name, sandboxed=True, games_per_rules=limits.check_games,
                        limits=limits.archive(), owner=Owner(upload.entrant, limits.active_bots),
                        entered=upload.created)  # an upload that arrived before entries closed was on time
    except (ArenaError, OSError) as error:  # every refusal of arena's, one line for the entrant
        return None, _shown(league, str(error)), "refused"
    if added.problems:
        return None, _shown(league, f"failed its checks: {added.problems[0]}"), "refused"
    if not added.new and not added.bot.source.startswith(str(path)):  # not added by this upload, checked before
        return added.bot.label, f"unchanged: {added.bot.label} ({added.bot.status})", "unchanged"
    return added.bot.label, None, "accepted"


def _shown(league: Path, reason: str) -> str:
    """A reason as an entrant sees it: one line, the server's folders taken out (`.../uploads/ID/bot.py` is
    `bot.py`): where the league lives is no entrant's business."""
    return re.sub(re.escape(str(league)) + r"/[^\s:'\"]*/", "", reason).splitlines()[0]


def check_pending(league: Path) -> int:
    """Checks every upload now `checking` and records its verdict; returns how many."""
    uploads = pending_uploads(league)
    for upload in uploads:
        try:
            label, reason, status = verdict(league, upload)
        except Exception as error:  # noqa: BLE001 - one bad upload must not stop the others being checked
            label, reason, status = None, f"internal error while checking ({type(error).__name__})", "refused"
            log.error("checking upload %s: %s: %s", upload.id, type(error).__name__, error)
        record_verdict(league, upload.id, label, reason, status)
    return len(uploads)


class Checker(Supervisor):
    """Keeps a checker process running beside the server until `stop()` (arena/isolation/supervisor.py): started
    again, with a warning in the server's log, whenever it ends; killed at once at `stop()`, an upload it was
    checking is checked again by the next server."""

    def __init__(self, directory: Path) -> None:
        super().__init__("the upload checker", "arena.server.checker", [str(directory)])


def main(argv: list[str]) -> int:
    """The child: checks uploads as they come, until its server dies."""
    parser = argparse.ArgumentParser(prog="python -m arena.server.checker")
    parser.add_argument("directory", type=Path)
    args = child_arguments(parser, argv)
    league = args.directory.resolve()
    while True:
        if not check_pending(league):
            time.sleep(POLL_SECONDS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
