"""The rating tables of a results frame, variant by variant: ratings, tiers, and deal-level statistics.

Per variant: TrueSkill (batch, order-free, by default; or the package's online pass), every bot's
win rate and mean score, each pairing's record and rating difference, the seat advantage, and for
two-player variants the pentanomial counts and duplicate score difference of deal pairs. Every
interval counts deals, not games: all rotations of a deal share its cards (`arena.ratings.deals`),
and rating intervals come from a bootstrap of whole deals, seeded so the same results always give
the same table. Bots not separated at 95% share a tier. A Plackett-Luce fit of the same games
cross-checks the order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from scipy import special

from arena.config import RatingSettings
from arena.ratings.batch import Outcomes, group_outcomes, rate_outcomes
from arena.ratings.deals import (
    PENTANOMIAL_KEYS,
    Z95,
    clustered_mean,
    iter_bootstrap_weights,
    paired_difference,
    pentanomial,
)
from arena.ratings.online import _rate_codes
from arena.ratings.plackett_luce import order_disagreements, plackett_luce

BOOTSTRAP_REPLICATES = 200
"""Deal-bootstrap replicates behind every rating interval, LOS and tier."""
BOOTSTRAP_SEED = 20261123
"""Fixed, so the same results give the same intervals bit for bit."""
SEPARATED = 0.975
"""Likelihood of superiority at which two adjacent bots are separated: the 95% two-sided interval of
their rating difference excludes zero."""
PROGRESS_POINTS = 12
"""Checkpoints of the estimate-against-deals chart."""

TABLE_COLUMNS = ["rank", "tier", "bot", "mu", "sigma", "mu_lo", "mu_hi", "conservative", "games", "deals", "wins",
                 "win_rate", "win_rate_lo", "win_rate_hi", "mean_score", "mean_score_lo", "mean_score_hi",
                 "forfeits", "pl_rank"]
PAIR_COLUMNS = ["bot", "opponent", "games", "deals", "win_rate", "win_rate_lo", "win_rate_hi", "mu_diff",
                "mu_diff_lo", "mu_diff_hi", "los"]
DUPLICATE_COLUMNS = ["bot", "opponent", "deals", *PENTANOMIAL_KEYS, "score", "score_lo", "score_hi", "score_diff",
                     "score_diff_lo", "score_diff_hi", "incomplete"]


@dataclass
class VariantRatings:
    """The ratings of one variant and the statistics beside them."""

    table: pd.DataFrame
    """Columns TABLE_COLUMNS, best first: rank is the tier's label (`1`, `2=`, `2=`)."""
    pairs: pd.DataFrame
    """Columns PAIR_COLUMNS: every ordered pairing that met (win rate: bot ranked above opponent, ties
    half), its rating difference with a deal-bootstrap interval, and los = P(bot is the better)."""
    seats: pd.DataFrame
    """Columns seat, games, deals, win_rate(_lo/_hi), mean_score(_lo/_hi)."""
    duplicate: pd.DataFrame | None = None
    """Two-player variants: DUPLICATE_COLUMNS per pairing (bot above opponent in the table)."""
    progress: pd.DataFrame | None = None
    """Columns deals, bot, mu, mu_lo, mu_hi: the batch estimate on the first `deals` deals of every table."""
    disagreements: list[str] = field(default_factory=list)
    """Where the Plackett-Luce order differs from the table's."""
    method: str = "batch"
    difference_se: np.ndarray | None = None
    """(bots, bots) in table order: the deal-bootstrap standard error of each rating difference."""

    @property
    def pairwise(self) -> pd.DataFrame:
        """The pairs' win rates as a square matrix in table order (NaN where two bots never met)."""
        order = list(self.table["bot"])
        return self.pairs.pivot(index="bot", columns="opponent", values="win_rate").reindex(index=order, columns=order)


@dataclass(frozen=True)
class _Seats:
    """A results frame flattened to one entry per (game, seat), games in game-index order."""

    rows: pd.DataFrame  # the games, sorted by game_index
    sizes: np.ndarray  # seats per game
    game: np.ndarray  # per seat: the game's row position
    seat: np.ndarray
    player: np.ndarray  # per seat: code into `names`
    names: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    fault: np.ndarray  # per seat: True when this seat was the game's fault_seat
    deal: np.ndarray  # per game: its deal's key (the deal seed; the game itself when unknown)


def _list_column(column: pd.Series) -> tuple[np.ndarray, pa.Array]:
    """(lengths, flattened values) of a column of lists, numpy arrays or Arrow lists."""
    array = pa.array(column)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not pa.types.is_list(array.type) and not pa.types.is_large_list(array.type):
        if len(array) and array.null_count < len(array):
            raise ValueError(f"column {column.name} must hold lists, not {array.type}")
        array = pa.array([[]] * len(array), pa.list_(pa.int64()))  # empty or all-missing column
    return pc.list_value_length(array).to_numpy(zero_copy_only=False).astype(np.int64), pc.list_flatten(array)


def _seats(df: pd.DataFrame) -> _Seats:
    """Flattens a results frame, checking that players, scores and ranks agree."""
    missing = {"game_index", "variant", "players", "ranks"} - set(df.columns)
    if missing:
        raise ValueError(f"results frame lacks column(s) {', '.join(sorted(missing))}")
    rows = df
    if not df["game_index"].is_monotonic_increasing:
        rows = df.sort_values("game_index", kind="stable")
    if not rows.index.equals(pd.RangeIndex(len(rows))):
        rows = rows.reset_index(drop=True)
    sizes, players = _list_column(rows["players"])
    rank_sizes, ranks = _list_column(rows["ranks"])
    if not np.array_equal(sizes, rank_sizes):
        raise ValueError("players and ranks differ in length")
    if "scores" in rows.columns:
        score_sizes, scores = _list_column(rows["scores"])
        if not np.array_equal(sizes, score_sizes):
            raise ValueError("players and scores differ in length")
        score = scores.to_numpy(zero_copy_only=False).astype(np.float64)
    else:
        score = np.full(int(sizes.sum()), np.nan)
    encoded = players.dictionary_encode()
    game = np.repeat(np.arange(len(rows)), sizes)
    seat = np.arange(len(game)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    if "fault_seat" in rows.columns:
        fault_seat = pd.to_numeric(rows["fault_seat"]).to_numpy(dtype=np.float64, na_value=np.nan)
        fault = fault_seat[game] == seat
    else:
        fault = np.zeros(len(game), dtype=bool)
    # All rotations of a deal share its seed (and only they do): the seed is the deal's key.
    key = rows["seed"] if "seed" in rows.columns else rows["game_index"]
    deal = pd.to_numeric(key).to_numpy(dtype=np.int64)
    return _Seats(rows, sizes, game, seat, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                  encoded.dictionary.to_numpy(zero_copy_only=False), score,
                  ranks.to_numpy(zero_copy_only=False).astype(np.int64), fault, deal)


def _by_variant(seats: _Seats):
    """(variant, game mask, seat mask, per-seat compact bot codes, bot names) per variant, sorted by name.

    Bots are numbered in the order of their names, so the numbering never depends on the order of the rows."""
    codes, names = pd.factorize(seats.rows["variant"], sort=True)
    seat_codes = codes[seats.game]
    by_name = np.argsort(seats.names.astype(str), kind="stable")
    rank_of_code = np.empty(len(by_name), dtype=np.int64)
    rank_of_code[by_name] = np.arange(len(by_name))
    for v, variant in enumerate(names):
        game_mask = codes == v
        seat_mask = seat_codes == v
        players = rank_of_code[seats.player[seat_mask]]
        present = np.bincount(players, minlength=len(seats.names)) > 0  # codes in use, renumbered 0.. in order
        yield str(variant), game_mask, seat_mask, (np.cumsum(present) - 1)[players], seats.names[by_name][present]


def rate_results(df: pd.DataFrame, settings: RatingSettings | None = None, *,
                 replicates: int = BOOTSTRAP_REPLICATES) -> dict[str, VariantRatings]:
    """Rates a results frame variant by variant; tables keyed by variant name, in name order."""
    settings = settings or RatingSettings()
    seats = _seats(df)
    out = {}
    for variant, game_mask, seat_mask, bots, names in _by_variant(seats):
        try:
            out[variant] = _rate_variant(seats, game_mask, seat_mask, bots, names, settings, replicates)
        except (FloatingPointError, ZeroDivisionError, ValueError) as error:
            raise type(error)(f"variant {variant}: {error}") from error
    return out


def _rate_variant(seats: _Seats, game_mask, seat_mask, bots, names, settings: RatingSettings,
                  replicates: int) -> VariantRatings:
    """The tables of one variant (its games in game-index order)."""
    sizes = seats.sizes[game_mask]
    n, k = int(sizes[0]), len(names)
    if (sizes != n).any():
        raise ValueError("games of one variant must all have the same number of players")
    if n < 2:
        raise ValueError("every game needs at least two players")
    games = len(sizes)
    bots2, ranks2 = bots.reshape(games, n), seats.rank[seat_mask].reshape(games, n)
    if (np.sort(bots2, axis=1)[:, 1:] == np.sort(bots2, axis=1)[:, :-1]).any():
        raise ValueError("a bot sits more than once at one game")
    scores2 = seats.score[seat_mask].reshape(games, n)
    # deals numbered in order of their keys: the bootstrap draws the same deals whatever the row order
    deal_keys, deal = np.unique(seats.deal[game_mask], return_inverse=True)
    n_deals = len(deal_keys)

    outcomes = group_outcomes(bots2, ranks2)
    batch = rate_outcomes(outcomes, k, settings)
    boot = _bootstrap(outcomes, deal, n_deals, k, settings, batch, replicates)
    if settings.method == "online":
        mu, sigma, _, _ = _rate_codes(sizes, bots, seats.rank[seat_mask], k, settings, False)
        mu, sigma = np.array(mu), np.array(sigma)
        half = Z95 * sigma  # the package's own sigma: the online pass has no deal-level interval
        order = np.lexsort((names.astype(str), -(mu - 3 * sigma)))
    else:
        mu, sigma = batch.mu[0], batch.sigma[0]
        half = Z95 * boot.std(axis=0, ddof=1)
        order = np.lexsort((names.astype(str), -mu))
    diff_se = _difference_se(boot)
    los = _los(mu, diff_se)
    labels, tiers = _tiers(order, los)

    game_of_seat = np.repeat(np.arange(games), n)
    seat_deal = deal[game_of_seat]
    win = clustered_mean(ranks2.reshape(-1) == 0, bots, seat_deal, k, proportion=True)
    score = clustered_mean(scores2.reshape(-1), bots, seat_deal, k)
    strengths = plackett_luce(outcomes.bots, outcomes.drawn, outcomes.counts, k)
    pl_rank = np.empty(k, dtype=np.int64)
    pl_rank[np.lexsort((names.astype(str), -strengths))] = np.arange(1, k + 1)
    table = pd.DataFrame({
        "rank": labels, "tier": tiers, "bot": names.astype(object), "mu": mu, "sigma": sigma,
        "mu_lo": mu - half, "mu_hi": mu + half, "conservative": mu - 3 * sigma, "games": win["n"],
        "deals": win["units"], "wins": np.bincount(bots, weights=ranks2.reshape(-1) == 0, minlength=k).astype(np.int64),
        "win_rate": win["mean"], "win_rate_lo": win["lo"], "win_rate_hi": win["hi"], "mean_score": score["mean"],
        "mean_score_lo": score["lo"], "mean_score_hi": score["hi"],
        "forfeits": np.bincount(bots, weights=seats.fault[seat_mask], minlength=k).astype(np.int64),
        "pl_rank": pl_rank,
    }).iloc[order].reset_index(drop=True)[TABLE_COLUMNS]
    ordered = list(table["bot"])
    disagreements = order_disagreements(list(names), ordered, dict(zip(names, strengths, strict=True)))
    return VariantRatings(
        table, _pairs(bots2, ranks2, deal, names, order, mu, diff_se, los),
        _seat_table(ranks2, scores2, deal),
        _duplicate(bots2, ranks2, scores2, deal, names, order) if n == 2 else None,
        _progress(outcomes, seats.rows["deal"].to_numpy()[game_mask] if "deal" in seats.rows.columns else None,
                  names, k, settings, batch, boot),
        disagreements, settings.method, diff_se[np.ix_(order, order)])


def _bootstrap(outcomes: Outcomes, deal: np.ndarray, n_deals: int, k: int, settings: RatingSettings,
               batch, replicates: int) -> np.ndarray:
    """Batch mu of every bot in each deal-bootstrap replicate: (replicates, bots)."""
    groups, n = outcomes.bots.shape
    chunk = max(1, min(32, 4_000_000 // (groups * n)))  # replicates rated together, within a few hundred MB
    rows = []
    for weights in iter_bootstrap_weights(n_deals, replicates, BOOTSTRAP_SEED, chunk):
        group_weights = np.stack([np.bincount(outcomes.game_group, weights=w[deal], minlength=groups)
                                  for w in weights])
        rows.append(rate_outcomes(outcomes, k, settings, group_weights, start=batch).mu)
    return np.concatenate(rows) if rows else np.zeros((0, k))


def _difference_se(boot: np.ndarray) -> np.ndarray:
    """(bots, bots) bootstrap standard error of every rating difference."""
    if len(boot) < 2:
        return np.full((boot.shape[1],) * 2, np.nan)
    return np.std(boot[:, :, None] - boot[:, None, :], axis=0, ddof=1)


def _los(mu: np.ndarray, diff_se: np.ndarray) -> np.ndarray:
    """(bots, bots) likelihood of superiority: P(row bot is better than column bot), normal approximation."""
    diff = mu[:, None] - mu[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        los = special.ndtr(diff / diff_se)
    los = np.where(diff_se > 0, los, np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5)))
    np.fill_diagonal(los, np.nan)
    return los


def _tiers(order: np.ndarray, los: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank labels and tier numbers by bot code: a bot not separated from the one above it shares its tier."""
    labels = np.empty(len(order), dtype=object)
    tiers = np.zeros(len(order), dtype=np.int64)
    members: list[list[int]] = []
    for position, bot in enumerate(order):
        if position and not los[order[position - 1], bot] >= SEPARATED:
            members[-1].append(bot)
        else:
            members.append([bot])
    position = 1
    for number, tier in enumerate(members, 1):
        for bot in tier:
            labels[bot] = f"{position}=" if len(tier) > 1 else str(position)
            tiers[bot] = number
        position += len(tier)
    return labels, tiers


def _pairs(bots2, ranks2, deal, names, order, mu, diff_se, los) -> pd.DataFrame:
    """Every ordered pairing that met: record with a deal-clustered interval, rating difference, LOS."""
    games, n = bots2.shape
    k = len(names)
    i, j = (a.reshape(-1) for a in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    i, j = i[i != j], j[i != j]
    pair = (bots2[:, i] * k + bots2[:, j]).reshape(-1)
    points = ((ranks2[:, i] < ranks2[:, j]) + 0.5 * (ranks2[:, i] == ranks2[:, j])).reshape(-1)
    stats = clustered_mean(points, pair, np.repeat(deal, len(i)), k * k, proportion=True)
    position = np.empty(k, dtype=np.int64)
    position[order] = np.arange(k)
    a, b = np.divmod(np.arange(k * k), k)
    met = stats["n"] > 0
    diff = (mu[:, None] - mu[None, :]).reshape(-1)
    half = Z95 * diff_se.reshape(-1)
    frame = pd.DataFrame({
        "bot": names[a].astype(object), "opponent": names[b].astype(object), "games": stats["n"],
        "deals": stats["units"], "win_rate": stats["mean"], "win_rate_lo": stats["lo"], "win_rate_hi": stats["hi"],
        "mu_diff": diff, "mu_diff_lo": diff - half, "mu_diff_hi": diff + half, "los": los.reshape(-1),
        "_a": position[a], "_b": position[b]})[met]
    return frame.sort_values(["_a", "_b"]).drop(columns=["_a", "_b"]).reset_index(drop=True)[PAIR_COLUMNS]


def _seat_table(ranks2, scores2, deal) -> pd.DataFrame:
    """Win rate and mean score by seat, with deal-clustered intervals."""
    games, n = ranks2.shape
    seat = np.tile(np.arange(n), games)
    seat_deal = np.repeat(deal, n)
    win = clustered_mean(ranks2.reshape(-1) == 0, seat, seat_deal, n, proportion=True)
    score = clustered_mean(scores2.reshape(-1), seat, seat_deal, n)
    return pd.DataFrame({"seat": np.arange(n), "games": win["n"], "deals": win["units"], "win_rate": win["mean"],
                         "win_rate_lo": win["lo"], "win_rate_hi": win["hi"], "mean_score": score["mean"],
                         "mean_score_lo": score["lo"], "mean_score_hi": score["hi"]})


def _duplicate(bots2, ranks2, scores2, deal, names, order) -> pd.DataFrame:
    """Two-player pairings on duplicate deals: pentanomial counts and the duplicate score difference."""
    k = len(names)
    position = np.empty(k, dtype=np.int64)
    position[order] = np.arange(k)
    upper_first = position[bots2[:, 0]] < position[bots2[:, 1]]  # seat of the bot higher in the table
    up = np.where(upper_first, 0, 1)
    rows = np.arange(len(bots2))
    upper, lower = bots2[rows, up], bots2[rows, 1 - up]
    points = (ranks2[rows, up] < ranks2[rows, 1 - up]) + 0.5 * (ranks2[rows, up] == ranks2[rows, 1 - up])
    pairing = upper * k + lower
    penta = pentanomial(points, pairing, deal, k * k)
    margin = paired_difference(scores2[rows, up] - scores2[rows, 1 - up], pairing, deal, k * k)
    a, b = np.divmod(np.arange(k * k), k)
    frame = pd.DataFrame({"bot": names[a].astype(object), "opponent": names[b].astype(object),
                          "deals": penta["deals"], **{key: penta[key] for key in PENTANOMIAL_KEYS},
                          "score": penta["score"], "score_lo": penta["score_lo"], "score_hi": penta["score_hi"],
                          "score_diff": margin["mean"], "score_diff_lo": margin["lo"], "score_diff_hi": margin["hi"],
                          "incomplete": penta["incomplete"], "_a": position[a], "_b": position[b]})
    frame = frame[np.bincount(pairing, minlength=k * k) > 0]
    return frame.sort_values(["_a", "_b"]).drop(columns=["_a", "_b"]).reset_index(drop=True)[DUPLICATE_COLUMNS]


def _progress(outcomes: Outcomes, deal_numbers: np.ndarray | None, names, k: int, settings: RatingSettings,
              batch, boot: np.ndarray) -> pd.DataFrame | None:
    """The batch estimate on the first d deals of every table, at PROGRESS_POINTS values of d.

    The interval at each point is the model's sigma widened by the full run's design effect (the
    bootstrap standard error over the posterior sigma), so it counts deals as the final one does."""
    if deal_numbers is None or not len(deal_numbers):
        return None
    deal_numbers = np.asarray(deal_numbers, dtype=np.int64)
    last = int(deal_numbers.max()) + 1
    points = np.unique(np.linspace(1, last, min(last, PROGRESS_POINTS)).round().astype(np.int64))
    groups = len(outcomes.counts)
    weights = np.stack([np.bincount(outcomes.game_group[deal_numbers < d], minlength=groups) for d in points])
    rated = rate_outcomes(outcomes, k, settings, weights.astype(np.float64), start=batch)
    widen = boot.std(axis=0, ddof=1) / batch.sigma[0] if len(boot) > 1 else np.ones(k)
    half = Z95 * rated.sigma * widen
    return pd.DataFrame({"deals": np.repeat(points, k), "bot": np.tile(names.astype(object), len(points)),
                         "mu": rated.mu.reshape(-1), "mu_lo": (rated.mu - half).reshape(-1),
                         "mu_hi": (rated.mu + half).reshape(-1)})


def csv_frames(ratings: dict[str, VariantRatings]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """ratings.csv (the tables, a variant column first) and summary.csv (pairs, seats, duplicate deal
    pairs and the estimate against deals, told apart by a kind column)."""
    tables = [r.table.assign(variant=v) for v, r in ratings.items()]
    parts = []
    for variant, rated in ratings.items():
        for kind, frame in (("pair", rated.pairs), ("seat", rated.seats), ("duplicate", rated.duplicate),
                            ("progress", rated.progress)):
            if frame is not None:
                parts.append(frame.assign(variant=variant, kind=kind))
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=["variant", *TABLE_COLUMNS])
    summary = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["variant", "kind"])
    first = ["variant", "kind"]
    return (table[["variant", *TABLE_COLUMNS]],
            summary[first + [c for c in summary.columns if c not in first]])


def rate_run(run, method: str | None = None) -> dict[str, VariantRatings]:
    """Rates a run directory from its result parts (whatever their order), with its config's settings."""
    import dataclasses
    import tomllib

    from arena.config import rating_settings
    from arena.results import RATED_COLUMNS, load_results, results_frame

    settings = rating_settings(tomllib.loads(run.config.read_text()).get("ratings", {}))
    if method is not None:
        settings = dataclasses.replace(settings, method=method)
    frame = results_frame(load_results(run, RATED_COLUMNS))
    return rate_results(frame, settings) if len(frame) else {}
