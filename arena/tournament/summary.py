"""What the report reads of a run's results besides the ratings, a part at a time: game counts,
terminations, exact counts of every score, the example games worth a replay, and its moves' times."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from arena.tournament.referee import WALL_FAULT

if TYPE_CHECKING:  # `arena reproduce` reads the results here and rates nothing: numba and scipy stay unimported
    from arena.ratings import VariantRatings

REPLAY_TABLES = 4
"""Example replays per variant: the first game of at most this many tables, plus the biggest upset. Each is
regenerated from its seeds (a full game replay), so the count stays small whatever the size of the run."""

SUMMARY_COLUMNS = ["game_index", "variant", "seed", "players", "scores", "ranks", "termination", "slowest_move_cpu",
                   "slowest_move_wall", "fault_seat", "fault", "llm_tokens_in", "llm_tokens_out", "llm_tries",
                   "llm_seconds"]
"""What the report reads of the results besides the ratings."""


# --- data -------------------------------------------------------------------------------------------

@dataclass
class ResultsSummary:
    """What the report and the manifest read of a run's results besides the ratings, in one pass over its parts."""

    games: dict[str, int]
    """Games per variant, in order of first appearance."""
    terminations: dict[str, dict[str, int]]
    """Per variant, games per termination, in order of first appearance."""
    scores: dict[str, pd.DataFrame]
    """Per variant, per bot: the box-plot statistics of its scores (`ScoreCounts.boxes`)."""
    examples: dict[str, list[tuple[int, str]]]
    """Per variant, the games worth a replay (`example_games`)."""
    move_times: dict | None = None
    """The slowest moves' CPU and wall time (`MoveTimes.result`; None when no move was timed)."""
    suspended: dict[str, dict] | None = None
    """The bots suspended for stalling, by name (`Suspensions.result`; None when none was)."""
    model_use: dict | None = None
    """What each model seat spent (`ModelUse.result`; None when no model played)."""

    @property
    def total(self) -> int:
        """Games of every variant."""
        return sum(self.games.values())


def summarise_results(parts: Iterable[pa.Table], ratings: dict[str, VariantRatings]) -> ResultsSummary:
    """Game counts, terminations, score boxes and example games of results given part by part in game order
    (columns SUMMARY_COLUMNS): the memory of one part, whatever the number of games."""
    games: dict[str, int] = {}
    terminations: dict[str, dict[str, int]] = {}
    scores, examples, times = ScoreCounts(), ExampleFinder(ratings), MoveTimes()
    suspensions, use = Suspensions(), ModelUse()
    for part in parts:
        variant, termination = _strings(part, "variant"), _strings(part, "termination")
        variants, ends = variant.dictionary.to_pylist(), termination.dictionary.to_pylist()
        pair = (variant.indices.to_numpy(zero_copy_only=False).astype(np.int64) * len(ends)
                + termination.indices.to_numpy(zero_copy_only=False))
        found, first, count = np.unique(pair, return_index=True, return_counts=True)
        in_order = np.argsort(first)  # as the games come
        for code, n in zip(found[in_order].tolist(), count[in_order].tolist(), strict=True):
            v, t = divmod(code, len(ends))
            games[variants[v]] = games.get(variants[v], 0) + n
            by_end = terminations.setdefault(variants[v], {})
            by_end[ends[t]] = by_end.get(ends[t], 0) + n
        scores.add(part)
        examples.add(part)
        times.add(part)
        suspensions.add(part)
        use.add(part)
    return ResultsSummary(games, terminations, scores.boxes(), examples.result(), times.result(), suspensions.result(),
                          use.result())


def _strings(table: pa.Table, name: str) -> pa.DictionaryArray:
    """A string column of a part, dictionary-encoded (values in order of first appearance)."""
    return table.column(name).combine_chunks().dictionary_encode()


def _seated_bots(games: pa.Table) -> tuple[np.ndarray, pa.DictionaryArray]:
    """Seats per game, and every seat's bot (flattened in game then seat order), dictionary-encoded."""
    players = games.column("players").combine_chunks()
    return (pc.list_value_length(players).to_numpy(zero_copy_only=False),
            pc.list_flatten(players).dictionary_encode())


TIMED_CPU = 0.05
"""The slowest move of a game counts towards how far wall time ran past CPU time when it took at least this much
CPU time (s): the clock times shorter moves coarsely (from when its watchdog first saw them), or not at all."""


class MoveTimes:
    """The slowest move of each game, a part at a time: the most CPU time and the most wall time any move took, and
    how many times their CPU time in wall time the slowest moves took (moves that waited for a busy machine took
    more), with a 95% interval that treats a deal (all its rotations) as one unit."""

    def __init__(self) -> None:
        self.cpu = self.wall = 0.0
        self.games = 0
        self.deals: dict[tuple[str, int], list[float]] = {}
        """(variant, deal seed) -> the CPU and wall time of its games' slowest moves of TIMED_CPU or more."""

    def add(self, part: pa.Table) -> None:
        """Takes the slowest moves of one part's games (null where moves had no time limit)."""
        cpu, wall = (part.column(name).to_numpy(zero_copy_only=False).astype(np.float64)
                     for name in ("slowest_move_cpu", "slowest_move_wall"))
        known = ~np.isnan(wall)
        if not known.any():
            return
        self.cpu, self.wall = max(self.cpu, float(cpu[known].max())), max(self.wall, float(wall[known].max()))
        timed = np.flatnonzero(known & (cpu >= TIMED_CPU))
        self.games += len(timed)
        variants, seeds = part.column("variant").to_pylist(), part.column("seed").to_numpy()
        for row in timed.tolist():
            sums = self.deals.setdefault((variants[row], int(seeds[row])), [0.0, 0.0])
            sums[0] += cpu[row]
            sums[1] += wall[row]

    def result(self) -> dict | None:
        """`cpu` and `wall`: the most any move took (s); over the `games` whose slowest move took TIMED_CPU or more,
        in `deals` deals: `wall_per_cpu`, their wall time over their CPU time, with its interval `low`..`high`
        (the delta method over deals; None for fewer than two deals)."""
        if not self.wall:
            return None
        out = {"cpu": round(self.cpu, 4), "wall": round(self.wall, 4), "games": self.games, "deals": len(self.deals)}
        if self.deals:
            cpu, wall = np.array(list(self.deals.values())).T
            ratio, n = wall.sum() / cpu.sum(), len(cpu)
            half = 1.96 * np.sqrt(n / (n - 1) * ((wall - ratio * cpu) ** 2).sum()) / cpu.sum() if n > 1 else None
            out.update(wall_per_cpu=round(float(ratio), 4), low=None if half is None else round(float(ratio - half), 4),
                       high=None if half is None else round(float(ratio + half), 4))
        return out


class Suspensions:
    """The bots a run suspended for stalling (arena/tournament/batch.py), a part at a time: each one's stalls (the
    calls the wall-clock backstop ended), the game of its last stall before its suspension, and the games recorded
    unplayed as its forfeits, from which game on."""

    def __init__(self) -> None:
        self.bots: dict[str, dict] = {}

    def add(self, part: pa.Table) -> None:
        """Takes the stalls and suspended games of one part (few rows: the timeouts)."""
        timeouts = part.filter(pc.equal(part.column("termination"), "timeout"))
        if not timeouts.num_rows:
            return
        from arena.tournament.referee import stalled, suspended

        for game, players, seat, fault in zip(*(timeouts.column(c).to_pylist() for c in
                                                ("game_index", "players", "fault_seat", "fault")), strict=True):
            if seat is None:
                continue
            bot = self.bots.setdefault(players[seat], {"stalls": 0, "last_stall": None, "fault": None,
                                                       "from_game": None, "games": 0})
            if stalled("timeout", fault):
                bot["stalls"] += 1
                if bot["from_game"] is None:
                    bot["last_stall"] = game
            elif suspended("timeout", fault):
                bot["games"] += 1
                if bot["from_game"] is None:
                    bot["from_game"], bot["fault"] = game, fault

    def result(self) -> dict[str, dict] | None:
        """By bot suspended: `fault` ("suspended after N stalls"), `stalls` (in all), `last_stall` (the game index
        of its last stall before it was suspended), `from_game` (the first game recorded unplayed) and `games`
        (how many were); None when no bot was suspended."""
        found = {bot: facts for bot, facts in self.bots.items() if facts["games"]}
        return found or None


def with_suspensions(summary: pd.DataFrame, suspended: dict[str, dict] | None) -> pd.DataFrame:
    """summary.csv's rows, and a row of kind `suspended` for each bot suspended (`Suspensions.result`): its
    `games` recorded unplayed, its `stalls`, the game of its `last_stall` before it and the first game unplayed
    (`from_game`), over every variant (the variant column empty)."""
    if not suspended:
        return summary
    rows = pd.DataFrame([{"variant": "", "kind": "suspended", "bot": bot, "games": facts["games"],
                          "stalls": facts["stalls"], "last_stall": facts["last_stall"], "from_game": facts["from_game"]}
                         for bot, facts in suspended.items()])
    return pd.concat([summary, rows], ignore_index=True)
class ModelUse:
    """What the model seats spent (arena/llm/seat.py), per bot, a part at a time: games, tokens in and out, asks of
    the model and the seconds it took to answer, summed over the games where a model played."""

    def __init__(self) -> None:
        self.bots: dict[str, list[float]] = {}
        """bot -> [games, tokens in, tokens out, asks, seconds]."""

    def add(self, part: pa.Table) -> None:
        """Takes the model columns of one part's games (null where no model played)."""
        if "llm_tries" not in part.column_names or part.column("llm_tries").null_count == part.num_rows:
            return
        columns = [part.column(name).to_pylist() for name in
                   ("players", "llm_tokens_in", "llm_tokens_out", "llm_tries", "llm_seconds")]
        for players, *spent in zip(*columns, strict=True):
            if spent[0] is None:
                continue
            for seat, bot in enumerate(players):
                if spent[2][seat]:  # a seat that asked a model
                    sums = self.bots.setdefault(bot, [0, 0, 0, 0, 0.0])
                    sums[0] += 1
                    for i in range(4):
                        sums[i + 1] += spent[i][seat]

    def result(self) -> dict | None:
        """Per bot: `games`, `tokens_in`, `tokens_out`, `tries` (asks) and `seconds` (all summed); None when no model
        played."""
        if not self.bots:
            return None
        return {bot: {"games": int(s[0]), "tokens_in": int(s[1]), "tokens_out": int(s[2]), "tries": int(s[3]),
                      "seconds": round(float(s[4]), 3)} for bot, s in self.bots.items()}


class ScoreCounts:
    """How often each bot scored each score, per variant: exact box-plot statistics from counts, in memory
    that grows with the distinct scores, not the games."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        """(variant, bot) -> (distinct scores ascending, how often each)."""

    def add(self, part: pa.Table) -> None:
        """Counts the scores of one part's games."""
        if not part.num_rows:
            return
        variant = _strings(part, "variant")
        sizes, bots = _seated_bots(part)
        score = pc.list_flatten(part.column("scores").combine_chunks()).to_numpy(zero_copy_only=False)
        owner = (np.repeat(variant.indices.to_numpy(zero_copy_only=False).astype(np.int64), sizes)
                 * len(bots.dictionary) + bots.indices.to_numpy(zero_copy_only=False))
        low = int(score.min())
        span = int(score.max()) - low + 1
        found, count = np.unique(owner * span + (score - low), return_counts=True)  # by owner, then score
        owners, scores = np.divmod(found, span)
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        variants, names = variant.dictionary.to_pylist(), bots.dictionary.to_pylist()
        for start, stop in zip(starts.tolist(), [*starts[1:].tolist(), len(found)], strict=True):
            v, b = divmod(int(owners[start]), len(names))
            values, counts = scores[start:stop] + low, count[start:stop]
            held = self.counts.get((variants[v], names[b]))
            if held is not None:
                values, inverse = np.unique(np.concatenate([held[0], values]), return_inverse=True)
                counts = np.bincount(inverse, weights=np.concatenate([held[1], counts])).astype(np.int64)
            self.counts[(variants[v], names[b])] = (values, counts)

    def boxes(self) -> dict[str, pd.DataFrame]:
        """Per variant, per bot: quartiles (linear interpolation, as pandas), Tukey whiskers (the furthest scores
        within 1.5 IQR of the box), mean, min and max."""
        rows: dict[str, dict[str, dict[str, float]]] = {}
        for (variant, bot), (values, counts) in self.counts.items():
            cumulative = np.cumsum(counts)
            n = int(cumulative[-1])

            def quantile(q: float, values=values, cumulative=cumulative, n=n) -> float:
                position = (n - 1) * q
                below = int(np.floor(position))
                low, high = values[np.searchsorted(cumulative, [below, min(below + 1, n - 1)], side="right")]
                return float(low + (high - low) * (position - below))

            q1, median, q3 = quantile(0.25), quantile(0.5), quantile(0.75)
            iqr = q3 - q1
            rows.setdefault(variant, {})[bot] = {
                "q1": q1, "median": median, "q3": q3, "mean": float(values @ counts / n),
                "lowerfence": float(values[np.searchsorted(values, q1 - 1.5 * iqr, side="left")]),
                "upperfence": float(values[np.searchsorted(values, q3 + 1.5 * iqr, side="right") - 1]),
                "min": float(values[0]), "max": float(values[-1])}
        return {variant: pd.DataFrame.from_dict(bots, orient="index") for variant, bots in rows.items()}


def example_games(parts: pa.Table | Iterable[pa.Table],
                  ratings: dict[str, VariantRatings]) -> dict[str, list[tuple[int, str]]]:
    """Per variant, the games worth a replay, as (game index, what it shows), in game order.

    The first game of each table (each set of bots; at most REPLAY_TABLES of them), and the biggest upset, of the
    games that timing did not decide (a stall, whose replay waits for the backstop again, or a suspension):
    of the games in which the player with the lowest μ in the variant's rating table ranked above the
    player with the highest μ, the one with the largest μ gap between those two, then the largest score
    margin between them, then the earliest. `parts`: the results (a table, or parts in game order).
    """
    finder = ExampleFinder(ratings)
    for part in [parts] if isinstance(parts, pa.Table) else parts:
        finder.add(part)
    return finder.result()


class ExampleFinder:
    """`example_games` a part at a time: the tables seen so far and the biggest upset so far, per variant.
    Vectorised over the seats of a part, so a million games cost little."""

    def __init__(self, ratings: dict[str, VariantRatings]) -> None:
        self.ratings = ratings
        self.seats: dict[str, int] = {}  # seats per game; 0 once a variant shows games of different sizes
        self.tables: dict[str, dict[tuple, tuple[int, str]]] = {v: {} for v in ratings}  # table -> first game
        self.upsets: dict[str, tuple[float, float, int, str]] = {}  # (gap, margin, index, what it shows)

    def add(self, part: pa.Table) -> None:
        """Looks through one part's games."""
        if "fault" in part.column_names:  # games timing decided (a stall, a suspension) show nothing worth a wait
            fault = pc.fill_null(part.column("fault"), "")
            part = part.filter(pc.invert(pc.and_(pc.equal(part.column("termination"), "timeout"), pc.or_(
                pc.ends_with(fault, WALL_FAULT), pc.starts_with(fault, "suspended after ")))))
        for variant, rated in self.ratings.items():
            games = part.filter(pc.equal(part.column("variant"), variant))
            if not games.num_rows or self.seats.get(variant) == 0:
                continue
            sizes, bots = _seated_bots(games)
            n = self.seats.setdefault(variant, int(sizes[0]))
            if (sizes != n).any():  # a variant fixes the number of seats; anything else gets no examples
                self.seats[variant] = 0
                continue
            names = np.array(bots.dictionary.to_pylist(), dtype=object)[
                bots.indices.to_numpy(zero_copy_only=False).reshape(-1, n)]
            rated_code = pd.Index(rated.table["bot"]).get_indexer(bots.dictionary.to_pylist())  # -1: not rated
            seats = rated_code[bots.indices.to_numpy(zero_copy_only=False)].reshape(-1, n)
            indices = games.column("game_index").to_numpy()
            tables = self.tables[variant]
            if len(tables) < REPLAY_TABLES:  # a table is its set of bots: the first row of each set is its first game
                _, first = np.unique(np.sort(seats, axis=1), axis=0, return_index=True)
                for row in sorted(first.tolist()):
                    key = tuple(np.sort(seats[row]).tolist())
                    if key not in tables and len(tables) < REPLAY_TABLES:
                        tables[key] = (int(indices[row]), "first game of table " + ", ".join(names[row]))
            mu = np.append(rated.table["mu"].to_numpy(np.float64), np.nan)[seats]  # -1 (unrated) reads as NaN
            scores, ranks = (pc.list_flatten(games.column(name).combine_chunks()).to_numpy(zero_copy_only=False)
                             .reshape(-1, n) for name in ("scores", "ranks"))
            rows = np.arange(len(indices))
            low = np.where(np.isnan(mu), np.inf, mu).argmin(axis=1)
            high = np.where(np.isnan(mu), -np.inf, mu).argmax(axis=1)
            gap = mu[rows, high] - mu[rows, low]
            margin = scores[rows, low] - scores[rows, high]
            upsets = np.flatnonzero((ranks[rows, low] < ranks[rows, high]) & (gap > 0))
            if not len(upsets):
                continue
            best = upsets[np.lexsort((indices[upsets], -margin[upsets], -gap[upsets]))[0]]
            held = self.upsets.get(variant)
            if held is not None and (held[0], held[1]) >= (gap[best], margin[best]):
                continue  # an earlier game is at least as big an upset
            lo, hi = names[best, low[best]], names[best, high[best]]
            self.upsets[variant] = (float(gap[best]), float(margin[best]), int(indices[best]),
                                    f"biggest upset: {lo} (μ {mu[best, low[best]]:.1f}) above {hi} "
                                    f"(μ {mu[best, high[best]]:.1f}), by {int(margin[best])} points")

    def result(self) -> dict[str, list[tuple[int, str]]]:
        """Per variant with examples, (game index, what it shows) in game order."""
        out: dict[str, list[tuple[int, str]]] = {}
        for variant in self.ratings:
            if not self.seats.get(variant):
                continue
            picks = dict(self.tables[variant].values())
            if variant in self.upsets:
                _, _, index, upset = self.upsets[variant]
                picks[index] = f"{picks[index]}; {upset}" if index in picks else upset
            out[variant] = sorted(picks.items())
        return out


def timing_decided(first, second) -> tuple[int, int]:
    """How many games differ between two runs of one config (RunDirs) in the digest's columns, and how many of those
    timing decided: in each run a `timeout` of the same seat that is a stall or a suspension
    (arena/tournament/batch.py), which several workers place by when their batches ran."""
    from arena.results import DIGEST_COLUMNS, load_results
    from arena.tournament.referee import stalled, suspended

    rows = [load_results(run, DIGEST_COLUMNS).sort_by("game_index").to_pylist() for run in (first, second)]
    differ = timed = 0
    for a, b in zip(*rows, strict=False):
        if a != b:
            differ += 1
            timed += all(r["fault_seat"] == a["fault_seat"] and (stalled(r["termination"], r["fault"])
                                                                 or suspended(r["termination"], r["fault"]))
                         for r in (a, b))
    return differ + abs(len(rows[0]) - len(rows[1])), timed
