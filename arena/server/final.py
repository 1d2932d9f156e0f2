"""The season's final as the server shows it (`/final`, `/api/final`): the rating tables of the run folder
`DIR/final/` once its manifest says it is finished, read by the computing process when its digest first appears
(or changes: a final played again), so the server shows it without a restart and never rates it twice."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from arena.league.catalog import BotRow
from arena.league.directory import LeagueDir
from arena.league.standings import with_bots

GAME_COLUMNS = ["game_index", "variant", "table", "players"]
"""What the final's page reads of each game: a row a table, with a link to each game's replay."""


@dataclass(frozen=True)
class FinalView:
    """A finished final: its manifest's digest and counts, its rating tables and its games."""

    digest: str
    games: int
    finished: str
    rated: dict
    """The rating tables (arena.ratings.tables.VariantRatings) by variant."""
    frames: dict[str, pd.DataFrame]
    """Each variant's table with the bots' version, status and added date, as the standings have them."""
    tables: pd.DataFrame
    """A row a table of the final: variant, table, its players (as the first game seats them) and its games' indices
    (`games`, in order)."""

    def standings(self) -> dict[str, list[dict]]:
        """Each variant's rows, as `/api/standings` gives them."""
        return {variant: json.loads(frame.to_json(orient="records", double_precision=10))
                for variant, frame in self.frames.items()}

    def pairs(self, variant: str) -> pd.DataFrame:
        """Each pair of the variant once, the higher placed bot first: its head-to-head record."""
        order = {bot: i for i, bot in enumerate(self.frames[variant]["bot"])}
        pairs = self.rated[variant].pairs
        return pairs[[order.get(a, 0) < order.get(b, 0) for a, b in zip(pairs["bot"], pairs["opponent"],
                                                                          strict=True)]]


def final_digest(directory: LeagueDir | Path) -> str | None:
    """The digest of the league's finished final, or None while there is none (not played, or not finished)."""
    try:
        return LeagueDir.of(directory).final.read_manifest().get("digest")
    except (OSError, ValueError):
        return None


def read_final(directory: LeagueDir | Path, bots: list[BotRow]) -> FinalView | None:
    """The league's finished final, rated from its result parts (None if there is none)."""
    from arena.ratings.tables import rate_run
    from arena.results import iter_results

    run = LeagueDir.of(directory).final
    try:
        manifest = run.read_manifest()
    except (OSError, ValueError):
        return None
    if not manifest:
        return None
    rated = rate_run(run)
    games = pd.concat([part.to_pandas() for part in iter_results(run, GAME_COLUMNS)], ignore_index=True)
    games["players"] = games["players"].map(", ".join)
    tables = games.groupby(["variant", "table"], sort=False).agg(players=("players", "first"),
                                                                  games=("game_index", list))
    return FinalView(manifest["digest"], int(manifest["games"]), manifest.get("finished", ""), rated,
                     with_bots(rated, bots), tables.reset_index())

