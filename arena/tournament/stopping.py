"""The statistics of the stopping rules: a run played in rounds of deals that stops once its question is
answered (the planners of arena/tournament/plan.py play the rounds and call these).

`until = "all"` plays every deal. `until = "sprt"` (a match) plays one table of two bots, deal by
deal in rounds, and after each round runs a sequential probability ratio test on the deals played:
H0 says the first bot is elo0 stronger than the second, H1 elo1. `until = "settled"` plays every
table of a variant in rounds and stops the variant once each adjacent pair of its rating table is
separated, or known to be a tie.

Rounds cover the same deals of every table and end at deal boundaries, whatever the workers or the
batch size, and a rule reads only finished rounds: the same config stops at the same deal, bit for
bit, and a resumed run takes the same decisions again from the results on disk.

The test statistic is a deal's score: the first bot's points against the second (1 for placing
above it, 1/2 for the same place, 0 below) averaged over the deal's seat rotations. For two players
this is the pentanomial score of the deal pair divided by two; the luck of the cards, shared by the
games of a deal, cancels inside it. The SPRT is the generalised (normal) approximation used by
fastchess and cutechess-cli with logistic Elo bounds: LLR = N (s1 - s0)(2 m - s0 - s1) / (2 v),
where m and v are the mean and variance of the deal scores and s0, s1 the scores that elo0, elo1
mean. It is checked in simulation against its nominal error rates (tests/test_stopping.py).

With `model = "nelo"` the bounds are normalized Elo, as fastchess's pentanomial model has them: a deal
counts as a pair of games, and nelo = (800 / ln 10) (m - 1/2) / (sigma sqrt 2), sigma the standard
deviation of the deal scores; so s0, s1 = 1/2 + nelo * sigma * sqrt(2) ln 10 / 800, from the deals seen.
Normalized Elo measures how fast a test can tell the bots apart, whatever the share of drawn deals
(tests/test_expert.py checks it against fastchess's formula and in simulation).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy import special

from arena.bots import BotError
from arena.config import RunSettings, SprtSettings
from arena.games import RulesError, get_game, make_rules
from arena.ratings.deals import PENTANOMIAL_KEYS, Z95, paired_difference, pentanomial

_PSEUDO = 1e-3
"""Weight of a pseudo-deal at each of score 0 and 1 in the SPRT's variance, so that a first round
of identical deal scores (zero variance) gives a large but finite LLR, as fastchess regularises."""


def elo_score(elo: float | np.ndarray) -> float | np.ndarray:
    """The expected score of a bot `elo` logistic Elo above its opponent."""
    return 1 / (1 + 10 ** (-np.asarray(elo, dtype=np.float64) / 400))


def score_elo(score: float | np.ndarray) -> float | np.ndarray:
    """The logistic Elo difference that an expected score means (+-inf at 1 and 0)."""
    score = np.clip(np.asarray(score, dtype=np.float64), 0, 1)
    with np.errstate(divide="ignore"):
        return -400 * np.log10(1 / score - 1)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: accept H0 at or below the first, H1 at or above the second."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


NELO_SCALE = 800 / math.log(10)
"""Normalized Elo per unit of (score - 1/2) / standard deviation of one game's score."""


def sprt_llr(count, total, total_sq, elo0: float, elo1: float, model: str = "logistic"):
    """The generalised SPRT's log-likelihood ratio of `count` deal scores with this sum and sum of squares,
    elo0 and elo1 in logistic Elo or (model "nelo") normalized Elo."""
    n = np.asarray(count, dtype=np.float64)
    weight = n + 2 * _PSEUDO
    mean = (np.asarray(total) + _PSEUDO) / weight
    variance = (np.asarray(total_sq) + _PSEUDO) / weight - mean ** 2
    if model == "nelo":  # a deal as a game pair: a game's standard deviation is sqrt(2 variance)
        s0, s1 = (0.5 + elo * np.sqrt(2 * variance) / NELO_SCALE for elo in (elo0, elo1))
    else:
        s0, s1 = elo_score(elo0), elo_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def simulate_sprt(draw_deals, runs: int, sprt: SprtSettings, max_deals: int, look_every: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(verdict, deals) of `runs` independent tests whose deal scores come from `draw_deals(rng, shape)`,
    looked at every `look_every` deals as a match does: verdict 1 = H1 accepted, -1 = H0, 0 = undecided."""
    lower, upper = sprt_bounds(sprt.alpha, sprt.beta)
    verdict, deals = np.zeros(runs, dtype=np.int64), np.full(runs, max_deals, dtype=np.int64)
    total, total_sq = np.zeros(runs), np.zeros(runs)
    open_, played = np.arange(runs), 0
    while played < max_deals and len(open_):
        step = min(look_every, max_deals - played)
        scores = draw_deals(rng, (len(open_), step))
        total[open_] += scores.sum(axis=1)
        total_sq[open_] += (scores ** 2).sum(axis=1)
        played += step
        llr = sprt_llr(played, total[open_], total_sq[open_], sprt.elo0, sprt.elo1, sprt.model)
        decided = (llr >= upper) | (llr <= lower)
        verdict[open_[decided]] = np.where(llr[decided] >= upper, 1, -1)
        deals[open_[decided]] = played
        open_ = open_[~decided]
    return verdict, deals


@dataclass(frozen=True)
class MatchStats:
    """Where a match stands: the first bot's deal scores against the second, and the test on them."""

    deals: int
    score: float
    """Mean deal score of the first bot (its expected points per game against the second)."""
    score_lo: float
    score_hi: float
    elo: float
    elo_lo: float
    elo_hi: float
    llr: float
    lower: float
    upper: float
    verdict: str
    """`H0 accepted`, `H1 accepted` or `undecided`."""
    penta: tuple[int, ...] | None
    """Two players: the counts of deal pairs in which the first bot scored 0, 0.5, 1, 1.5 and 2 points."""
    score_diff: float
    """Mean over deals of the first bot's game score minus the second's, with its 95% interval."""
    score_diff_lo: float
    score_diff_hi: float

    def line(self) -> str:
        """The live progress line: deals, score, Elo with its interval, LLR and its bounds."""
        return (f"{self.deals:,} deals  score {self.score:.3f}  Elo {_signed(self.elo)} "
                f"[{_signed(self.elo_lo)}, {_signed(self.elo_hi)}]  LLR {self.llr:.2f} "
                f"({self.lower:.2f}, {self.upper:.2f})")

    def as_dict(self) -> dict:
        data = {key: getattr(self, key) for key in self.__dataclass_fields__}
        return {k: (list(v) if isinstance(v, tuple) else _finite(v)) for k, v in data.items()}


def _signed(value: float) -> str:
    return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _finite(value):
    """A float for JSON (which has no infinity or NaN): None then."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def match_stats(results: pa.Table, sprt: SprtSettings) -> MatchStats:
    """The match statistics and the test's verdict on the results of a match's deals (all rotations of each)."""
    first, second = sprt.bots
    players = pc.list_flatten(results["players"]).to_numpy(zero_copy_only=False).astype(str)
    games = results.num_rows
    n = len(players) // max(games, 1)
    players = players.reshape(games, n)
    ranks = pc.list_flatten(results["ranks"]).to_numpy(zero_copy_only=False).reshape(games, n)
    scores = pc.list_flatten(results["scores"]).to_numpy(zero_copy_only=False).astype(np.float64).reshape(games, n)
    rows = np.arange(games)
    a, b = np.argmax(players == first, axis=1), np.argmax(players == second, axis=1)
    points = (ranks[rows, a] < ranks[rows, b]) + 0.5 * (ranks[rows, a] == ranks[rows, b])
    deal = results["deal"].to_numpy()
    _, deal_code = np.unique(deal, return_inverse=True)
    per_deal = np.bincount(deal_code, weights=points) / np.bincount(deal_code)
    count = len(per_deal)
    mean = float(per_deal.mean()) if count else 0.5
    se = float(per_deal.std(ddof=1) / math.sqrt(count)) if count > 1 else math.inf
    lo, hi = mean - Z95 * se, mean + Z95 * se
    llr = (float(sprt_llr(count, per_deal.sum(), (per_deal ** 2).sum(), sprt.elo0, sprt.elo1, sprt.model))
           if count else 0.0)
    lower, upper = sprt_bounds(sprt.alpha, sprt.beta)
    verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "undecided"
    zeros = np.zeros(games, dtype=np.int64)
    penta = None
    if n == 2:
        counts = pentanomial(points, zeros, deal_code, 1)
        penta = tuple(int(counts[key][0]) for key in PENTANOMIAL_KEYS)
    diff = paired_difference(scores[rows, a] - scores[rows, b], zeros, deal_code, 1)
    return MatchStats(count, mean, max(lo, 0.0), min(hi, 1.0), float(score_elo(mean)), float(score_elo(lo)),
                      float(score_elo(hi)), llr, lower, upper, verdict, penta, float(diff["mean"][0]),
                      float(diff["lo"][0]), float(diff["hi"][0]))


def settled_pairs(rated, looks: int, confidence: float, margin: float) -> list[str]:
    """Each adjacent pair of a variant's table that is not yet settled, as `upper/lower`.

    A pair is settled when the interval of its rating difference excludes zero (separated) or lies
    within +-margin (a tie). Every look is a chance to be wrong, so each uses 1 - (1 - confidence) /
    looks (Bonferroni over the looks the run may take). The pairs come from the data, so that is no
    bound: tests/test_stopping.py measures the rate of wrong settlements in simulation."""
    z = float(special.ndtri(1 - (1 - confidence) / (2 * looks)))
    mu, bots, se = rated.table["mu"].to_numpy(), list(rated.table["bot"]), rated.difference_se
    open_ = []
    for upper in range(len(bots) - 1):
        diff, half = mu[upper] - mu[upper + 1], z * se[upper, upper + 1]
        if not (diff - half > 0 or abs(diff) + half <= margin):
            open_.append(f"{bots[upper]}/{bots[upper + 1]}")
    return open_


def _bot_names(specs: list[str]) -> list[str]:
    """Each bot's name: as its source or the registry tells it, else as the bot tells it in a process of its own
    within the default setup time limit (its code never runs here)."""
    from arena.bots.sources import resolve
    from arena.isolation import SetupTimeout, tell_sources

    limit = RunSettings.setup_time_limit
    sources = {spec: resolve(spec) for spec in dict.fromkeys(specs)}
    untold = [spec for spec, source in sources.items() if not source.told]
    told = dict(zip(untold, tell_sources([sources[spec] for spec in untold], limit), strict=True))
    for spec, answer in told.items():
        if isinstance(answer, SetupTimeout):
            raise BotError(f"bot {spec!r} could not be built within setup_time_limit = {limit:g}s")
        if isinstance(answer, Exception):
            raise BotError(f"bot {spec}: {str(answer).removeprefix('BotError: ')}")
    return [(told[spec].get("name") or spec) if spec in told else sources[spec].name for spec in specs]


def match_config(game: str, first: str, second: str, *, sprt: list[float], max_deals: int, rules: dict[str, str],
                 players: int | None, field: str, seed: int, model: str = "logistic") -> str:
    """The TOML config of a match: A and B (and field bots in the other seats) on duplicate deals of one
    game, stopped by the SPRT. Saved in the run directory, it makes the match reproducible like any run."""
    game_module = get_game(game)
    rules = dict(rules)
    if players is not None:
        if "players" not in game_module.Rules.__dataclass_fields__:
            raise RulesError(f"{game} has no players option: it is always {game_module.min_players} players")
        rules["players"] = str(players)
    made = make_rules(game_module.Rules, rules)
    seats = game_module.players(made)
    specs = [first, second] + [field] * (seats - 2)
    names = _bot_names(specs)
    if names[1] == names[0]:
        names[1] += "-2"  # a self-match: the same bot entered twice
    names[2:] = [f"{name} (field {i})" for i, name in enumerate(names[2:], 1)]
    text = json.dumps  # a JSON string is a TOML basic string
    values = {k: _toml(getattr(made, k)) for k in sorted(rules)}
    label = "-".join(f"{k}={v}" for k, v in values.items())
    name = re.sub(r"[^A-Za-z0-9_.=+-]+", "_", "-".join(["match", game, *([label] if label else []), names[0],
                                                         "vs", names[1]]))
    inline = ", ".join(f"{k} = {v}" for k, v in values.items())
    elo0, elo1, *errors = sprt
    alpha, beta = errors or (0.05, 0.05)
    lines = [f"# arena match {game} {first} {second}", f"name = {text(name)}", f"seed = {seed}", "", "[[games]]",
             f"game = {text(game)}", "duplicate = true", f"rules = {{{f' {inline} ' if inline else ''}}}", ""]
    for name_, spec in zip(names, specs, strict=True):
        lines += ["[[bots]]", f"name = {text(name_)}", *([f"path = {text(spec)}"] if spec != name_ else []), ""]
    lines += ["[run]", 'until = "sprt"', f"max_deals = {max_deals}",
              f"sprt = {{ bots = [{text(names[0])}, {text(names[1])}], elo0 = {elo0!r}, elo1 = {elo1!r}, "
              f"alpha = {alpha!r}, beta = {beta!r}{f', model = {text(model)}' if model != 'logistic' else ''} }}"]
    return "\n".join(lines) + "\n"


def _toml(value) -> str:
    """A rules value as TOML."""
    return ("true" if value else "false") if isinstance(value, bool) else json.dumps(value)
