"""A league's games as ordinary tournament configs: each round the matchmaker chose, and the season's final, share
the league's `[run]` and `[ratings]` settings and name its bots by their frozen code."""

from __future__ import annotations

from dataclasses import dataclass

from arena.config.toml import toml_text
from arena.isolation.clock import WALL_BACKSTOP
from arena.league.catalog import BotRow
from arena.league.settings import LeagueSettings


@dataclass(frozen=True)
class Table:
    """One table the matchmaker chose: a variant (index into the league's games), its bots, and why."""

    variant: int
    bots: tuple[str, ...]
    why: str


def round_config(settings: LeagueSettings, number: int, seed: int, tables: list[Table],
                 bots: dict[str, BotRow]) -> str:
    """A round as a tournament config: a `[[games]]` entry a table (its bots exactly), the league's run and
    ratings settings, the bots' frozen code by path relative to the league directory."""
    games = [{"game": settings.games[t.variant].game, "deals": settings.deals, "duplicate": True,
              "rules": dict(sorted(settings.games[t.variant].rules.items())), "bots": list(t.bots)} for t in tables]
    config = {"name": f"{settings.name}-round-{number}", "seed": seed, **shared_tables(settings),
              "games": games, "bots": bot_entries(settings, bots, sorted({b for t in tables for b in t.bots}))}
    return f"# round {number} of the league {settings.name}\n" + toml_text(config)


def shared_tables(settings: LeagueSettings) -> dict:
    """The `[run]` and `[ratings]` tables of every config the league plays (its rounds and its final)."""
    run, ratings = settings.run, settings.ratings
    return {"run": {"batch_size": run.batch_size, "move_time_limit": run.move_time_limit or 0,
                    "setup_time_limit": run.setup_time_limit,
                    **({"wall_backstop": run.wall_backstop} if run.wall_backstop != WALL_BACKSTOP else {})},
            "ratings": {key: getattr(ratings, key) for key in ("mu", "sigma", "beta", "tau", "draw_probability")}}


def bot_entries(settings: LeagueSettings, bots: dict[str, BotRow], labels: list[str]) -> list[dict]:
    """The `[[bots]]` of a league's config for these labels: each bot's frozen code by its path relative to the
    league (a bundled bot by name), a file bot isolated as the league says (a folder plays in the sandbox always)."""
    entries = []
    for label in labels:
        isolation = settings.isolation if bots[label].kind == "file" else "none"
        entries.append({"name": label, "path": bots[label].spec,
                        **({"isolation": isolation} if isolation != "none" else {})})
    return entries
