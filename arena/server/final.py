"""The season's final as the server shows it (`/final`, `/api/final`): the rating tables of the run folder
`DIR/final/` once its manifest says it is finished, read by the computing process when its digest first appears
(or changes: a final played again), so the server shows it without a restart and never rates it twice. What it
shows: each variant's champion (the bots of the first tier), a cross-table of every pairing's result, and the
standings; each pairing's games behind its cell."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from arena.league.catalog import BotRow
from arena.league.directory import LeagueDir
from arena.league.standings import with_bots

GAME_COLUMNS = ["game_index", "variant", "table", "players", "scores", "ranks"]
"""What the final's pages read of each game: a pairing's games, each with its result and a link to its replay."""


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
    played: pd.DataFrame
    """A row a game of the final (GAME_COLUMNS), in game-index order."""

    def standings(self) -> dict[str, list[dict]]:
        """Each variant's rows, as `/api/standings` gives them."""
        return {variant: json.loads(frame.to_json(orient="records", double_precision=10))
                for variant, frame in self.frames.items()}

    def champions(self, variant: str) -> pd.DataFrame:
        """The rows of the variant's first tier: the bot ranked 1, or the bots the final did not call apart from it."""
        frame = self.frames[variant]
        return frame[frame["tier"] == frame["tier"].iloc[0]]

    def cross(self, variant: str) -> dict[tuple[str, str], dict]:
        """Each ordered pairing of the variant's finalists, (bot, opponent), with the bot's record against the
        opponent (a row of the rating tables' pairs: games, deals, win rate and mu difference with their intervals,
        LOS)."""
        pairs = self.rated[variant].pairs
        return {(row["bot"], row["opponent"]): row for row in pairs.to_dict("records")}

    def pairing_games(self, variant: str, bot: str, opponent: str) -> pd.DataFrame:
        """The games of the variant that seated both bots, in game-index order, with the bot's seat, score and place
        (1: first) and the opponent's."""
        games = self.played[self.played["variant"] == variant]
        both = games[[bot in players and opponent in players for players in games["players"]]]
        seat = [list(players).index(bot) for players in both["players"]]
        other = [list(players).index(opponent) for players in both["players"]]
        return both.assign(
            score=[scores[i] for scores, i in zip(both["scores"], seat, strict=True)],
            place=[ranks[i] + 1 for ranks, i in zip(both["ranks"], seat, strict=True)],
            opponent_score=[scores[i] for scores, i in zip(both["scores"], other, strict=True)],
            opponent_place=[ranks[i] + 1 for ranks, i in zip(both["ranks"], other, strict=True)])

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
    for column in ("players", "scores", "ranks"):
        games[column] = games[column].map(tuple)
    return FinalView(manifest["digest"], int(manifest["games"]), manifest.get("finished", ""), rated,
                     with_bots(rated, bots), games.sort_values("game_index", ignore_index=True))

