"""A league's TOML (`league.toml`): a tournament config without bots or deals, plus the matchmaker's knobs.

    name = "club"
    seed = 7
    [[games]]                 # the variants the league plays (every table on duplicate deals)
    game = "go_for_it"
    rules = { players = 4 }
    [run]                     # workers, address, batch_size, move_time_limit, setup_time_limit, wall_backstop,
                              # suspend_after
    [ratings]                 # as in a tournament
    [league]                  # deals per table, tables per round, placement tables, isolation, confidence, tie_margin
    [uploads]                 # what entrants may upload to a served league (UploadLimits)
    [season]                  # closes = 2026-12-01T18:00:00Z: when entries close (`arena league close` overrides it)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from arena.bots.bundles import ArchiveLimits
from arena.config import (
    ConfigError,
    GameEntry,
    RatingSettings,
    RunSettings,
    checked_game,
    checked_rules,
    rating_settings,
    run_settings,
)
from arena.config.models import (
    check_keys,
    checked_confidence,
    checked_integer,
    checked_number,
    checked_string,
    checked_table,
)
from arena.games import get_game, make_rules

RUN_KEYS = {"workers", "address", "batch_size", "move_time_limit", "setup_time_limit", "wall_backstop",
            "suspend_after"}
ISOLATIONS = ("sandbox", "process", "none")


MIB = 1 << 20


@dataclass(frozen=True)
class UploadLimits:
    """What an entrant may upload to a served league: the `[uploads]` table."""

    file_bytes: int = MIB
    """The largest Python file."""
    zip_bytes: int = 20 * MIB
    """The largest zip."""
    request_bytes: int = 21 * MIB
    """The largest request body (the file and the form around it): refused from Content-Length before it is read,
    and counted while it is read. Unset: the largest file plus 1 MiB."""
    active_bots: int = 3
    """Bot names with a version playing, per entrant."""
    uploads_per_hour: int = 20
    """Uploads an entrant may make in any hour."""
    zip_entries: int = ArchiveLimits.files
    """Entries a zip may hold (folders included)."""
    unpacked_bytes: int = ArchiveLimits.unpacked
    """Bytes a zip may unpack to, all its files together (a zip bomb is refused from its directory, unread)."""
    check_games: int = 6
    """Validation games per game and rules variant when an upload is checked (as `arena league add --games`)."""

    def archive(self) -> ArchiveLimits:
        """What a zip may hold, as arena/bots/bundles.py checks it."""
        return ArchiveLimits(files=self.zip_entries, unpacked=self.unpacked_bytes)

    def largest(self, filename: str) -> int:
        """The largest upload of this file's kind."""
        return self.zip_bytes if filename.endswith(".zip") else self.file_bytes


UPLOAD_KEYS = set(UploadLimits.__dataclass_fields__)


@dataclass(frozen=True)
class LeagueSettings:
    name: str
    seed: int
    games: tuple[GameEntry, ...]
    """The variants, each as a games entry without bots (its deals are the matchmaker's)."""
    run: RunSettings
    ratings: RatingSettings
    deals: int = 4
    """Deals a table plays when the matchmaker chooses it (each in every seat rotation)."""
    tables: int = 0
    """Tables per variant a round; 0: one per `players` active bots, at least one."""
    placement: int = 3
    """Tables a newcomer plays against a spread of the field before the uncertain pairs are played."""
    isolation: str = "sandbox"
    """How a frozen bot's code plays: "sandbox" (default, docs/sandbox.md), "process" or "none"."""
    confidence: float = RunSettings.confidence
    """`--until settled`: each adjacent pair's rating difference is separated or a tie at this confidence."""
    tie_margin: float = RunSettings.tie_margin
    uploads: UploadLimits = UploadLimits()
    closes: datetime | None = None
    """`[season] closes`: when entries close (UTC), if the TOML says; `arena league close` overrides it."""
    text: str = ""

    def players(self, game: GameEntry) -> int:
        module = get_game(game.game)
        return module.players(make_rules(module.Rules, game.rules))


def parse_settings(text: str) -> LeagueSettings:
    """The league TOML in `text`, checked; every problem is one ConfigError line naming the field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"malformed TOML: {error}") from None
    check_keys(data, {"name", "seed", "games", "run", "ratings", "league", "uploads", "season"}, "")
    for key in ("name", "seed", "games"):
        if key not in data:
            raise ConfigError(f"{key}: missing")
    name = checked_string(data["name"], "name")
    if any(not ch.isalnum() and ch not in "-_." for ch in name):
        raise ConfigError(f"name: letters, digits, - _ and . only, not {name!r}")
    seed = checked_integer(data["seed"], "seed", 0)
    if not isinstance(data["games"], list) or not data["games"]:
        raise ConfigError("games: must be a non-empty array of tables ([[games]])")
    games = tuple(_variant(checked_table(raw, f"games[{i}]"), f"games[{i}].") for i, raw in enumerate(data["games"]))
    labels = [g.label for g in games]
    if len(set(labels)) < len(labels):
        raise ConfigError(f"games: {next(x for x in labels if labels.count(x) > 1)} is listed twice")
    raw_run = checked_table(data.get("run", {}), "run")
    check_keys(raw_run, RUN_KEYS, "run.")
    run = run_settings(raw_run, ())
    ratings = rating_settings(checked_table(data.get("ratings", {}), "ratings"))
    raw = checked_table(data.get("league", {}), "league")
    check_keys(raw, {"deals", "tables", "placement", "isolation", "confidence", "tie_margin"}, "league.")
    isolation = raw.get("isolation", LeagueSettings.isolation)
    if isolation not in ISOLATIONS:
        raise ConfigError(f"league.isolation: must be one of {', '.join(map(repr, ISOLATIONS))}, not {isolation!r}")
    confidence = checked_confidence(raw.get("confidence", LeagueSettings.confidence), "league.confidence")
    return LeagueSettings(name, seed, games, run, ratings,
                          checked_integer(raw.get("deals", LeagueSettings.deals), "league.deals", 1),
                          checked_integer(raw.get("tables", LeagueSettings.tables), "league.tables", 0),
                          checked_integer(raw.get("placement", LeagueSettings.placement), "league.placement", 1),
                          isolation, confidence,
                          checked_number(raw.get("tie_margin", LeagueSettings.tie_margin), "league.tie_margin",
                                         inclusive=True),
                          _upload_limits(checked_table(data.get("uploads", {}), "uploads")),
                          _closes(checked_table(data.get("season", {}), "season")), text)


def _closes(raw: dict) -> datetime | None:
    check_keys(raw, {"closes"}, "season.")
    return None if "closes" not in raw else rfc3339(raw["closes"], "season.closes")


def rfc3339(value: object, where: str) -> datetime:
    """A time given as RFC 3339 (a TOML offset date-time, or a string such as 2026-12-01T18:00:00Z), in UTC;
    ConfigError for anything else, a time without its offset among them (whose clock would it be?)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ConfigError(f"{where}: {value!r} is not an RFC 3339 time such as 2026-12-01T18:00:00Z") from None
    if not isinstance(value, datetime):
        raise ConfigError(f"{where}: an RFC 3339 time such as 2026-12-01T18:00:00Z, not {value!r}")
    if value.tzinfo is None:
        raise ConfigError(f"{where}: {value.isoformat()} has no offset: add Z (UTC) or one such as +01:00")
    return value.astimezone(UTC)


def _upload_limits(raw: dict) -> UploadLimits:
    check_keys(raw, UPLOAD_KEYS, "uploads.")
    given = {key: checked_integer(value, f"uploads.{key}", 1) for key, value in raw.items()}
    limits = UploadLimits(**given)
    if "request_bytes" not in given:  # room for the largest file and the form around it
        limits = replace(limits, request_bytes=max(limits.file_bytes, limits.zip_bytes) + MIB)
    if limits.request_bytes < max(limits.file_bytes, limits.zip_bytes):
        raise ConfigError("uploads.request_bytes: must be at least file_bytes and zip_bytes (the form holds the file)")
    return limits


def _variant(raw: dict, where: str) -> GameEntry:
    check_keys(raw, {"game", "rules"}, where)
    if "game" not in raw:
        raise ConfigError(f"{where}game: missing")
    game = checked_game(raw, where)
    rules, _ = checked_rules(game, raw, where)
    return GameEntry(game.id, 1, True, dict(rules))
