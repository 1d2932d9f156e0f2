"""Statistics of a run whose intervals treat a duplicate deal as one unit.

Every deal of a tournament (the same cards) is played once in every seat rotation, so the games of
one deal are correlated: a deal that suits a bot's style helps it in every rotation, and the luck of
the cards, which favours a seat, cancels when the seats swap. Intervals that count games as
independent are then too narrow (or, when the luck cancels, too wide). Here a *cluster* is one deal,
all the games sharing it, and every interval is computed from the spread between deals.

Everything works on flat numpy arrays, one entry per observation, with integer codes for the group
(a bot, a pairing) and the deal: no loop in Python per game, so millions of entries take a fraction
of a second. Each statistic is also a running sum (`ClusteredMean`, `Pentanomial`, `PairedDifference`)
that takes the entries chunk by chunk, whole deals at a time, so a run of any size is summed in the
memory of one chunk. The Poisson bootstrap weights at the end serve statistics without a closed form:
each deal's weight is a pure function of the seed, the replicate and the deal's own key, so they too
can be drawn chunk by chunk, in any order.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
from scipy import special

from arena.ratings.kernels import contiguous, deal_sums

Z95 = 1.959963984540054
"""Normal quantile of the 95% intervals, scipy.stats.norm.ppf(0.975)."""

# Above this many (group, deal) cells per entry, cells are found by sorting instead of a dense bincount:
# the dense arrays would cost more memory than the entries themselves.
_DENSE_CELLS_PER_ENTRY = 4
_DENSE_MIN = 1 << 20


def _codes(codes, name: str, n: int | None = None) -> np.ndarray:
    """An integer code array as int64, checked to lie in 0..n-1 when n is given."""
    codes = np.asarray(codes)
    if codes.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if codes.size == 0:
        return codes.astype(np.int64)  # an empty list arrives as float64
    if not np.issubdtype(codes.dtype, np.integer):
        raise TypeError(f"{name} must hold integer codes, not {codes.dtype}")
    codes = codes.astype(np.int64, copy=False)
    if n is not None and (codes.min() < 0 or codes.max() >= n):
        raise ValueError(f"{name} codes must lie in 0..{n - 1}")
    return codes


def _floats(values, name: str, size: int) -> np.ndarray:
    """A float array of the given length."""
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (size,):
        raise ValueError(f"{name} has shape {values.shape}, expected ({size},) like the codes")
    return values


def _compact(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Arbitrary integer codes renumbered 0..k-1 (in increasing order of the code), and k."""
    if codes.size == 0:
        return codes, 0
    low, high = int(codes.min()), int(codes.max())
    if low >= 0 and high < max(_DENSE_CELLS_PER_ENTRY * codes.size, _DENSE_MIN):
        # deal codes are usually small: a bincount renumbers them in linear time, no sort
        present = np.bincount(codes, minlength=high + 1) > 0
        renumber = np.cumsum(present) - 1
        return renumber[codes], int(renumber[-1]) + 1
    unique, inverse = np.unique(codes, return_inverse=True)
    return inverse.reshape(-1), len(unique)


def _cells(group: np.ndarray, n_groups: int, cluster: np.ndarray,
           weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (group, cluster) cell holding entries: the cell's group, its entry count and its sum of weights."""
    deal, n_deals = _compact(cluster)
    size = int(n_groups) * n_deals
    key = group * n_deals + deal
    if size <= max(_DENSE_CELLS_PER_ENTRY * group.size, _DENSE_MIN):
        count = np.bincount(key, minlength=size)
        total = np.bincount(key, weights=weights, minlength=size)
        cells = np.flatnonzero(count)
        return cells // n_deals, count[cells], total[cells]
    # many groups over many deals: sort the entries by cell rather than allocate every possible cell
    bits = max(group.size - 1, 1).bit_length()
    if size.bit_length() + bits < 63:
        # key and position packed in one int64: a plain sort beats an argsort
        packed = (key << bits) | np.arange(group.size)
        packed.sort()
        order, key = packed & ((1 << bits) - 1), packed >> bits
    else:
        order = np.argsort(key)
        key = key[order]
    new_cell = key[1:] != key[:-1]
    starts = np.flatnonzero(np.r_[True, new_cell])
    cell = np.cumsum(np.r_[False, new_cell])
    count = np.bincount(cell, minlength=len(starts))
    total = np.bincount(cell, weights=weights[order], minlength=len(starts))
    return key[starts] // n_deals, count, total


def _t975(dof: np.ndarray) -> np.ndarray:
    """Student t quantile at 0.975 (what scipy.stats.t.ppf computes), NaN where dof < 1."""
    dof = np.asarray(dof, dtype=np.float64)
    quantile = np.full(dof.shape, np.nan)
    ok = dof >= 1
    quantile[ok] = special.stdtrit(dof[ok], 0.975)  # scipy.special spares importing scipy.stats
    return quantile


def _wilson(p: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion p out of a (possibly fractional) sample size n, clipped to [0, 1]."""
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def clustered_mean(values, group, cluster, n_groups: int, proportion: bool = False) -> dict[str, np.ndarray]:
    """Mean of the values per group with a deal-clustered standard error and 95% interval.

    `values` holds one entry per observation, `group` its code in 0..n_groups-1 (the bot, say) and
    `cluster` its deal (any integer codes; a deal may hold entries of several groups). Returns arrays
    of length n_groups: `n` (entries), `units` (deals with entries of the group), `mean`, `se`, `lo`, `hi`.

    The standard error is the cluster-robust (linearisation, sandwich) one of the ratio mean = sum(y) / n:
    with Y_c and N_c the sum and count of the group's entries in deal c and C its number of deals,
    var = C / (C - 1) * sum_c (Y_c - mean * N_c)^2 / n^2. It is NaN where C < 2: one deal says nothing
    about how deals differ.

    Means: lo, hi = mean -+ t(0.975, C - 1) * se, NaN where C < 2 (the deals are the sample, so the
    degrees of freedom are C - 1, whatever the number of entries).

    Proportions (`proportion=True`, values in [0, 1]: 1 a win, 0.5 a tie, 0 a loss): the Wilson score
    interval with the *effective sample size* n_eff = mean * (1 - mean) / se^2. Games of one deal are
    correlated, so they carry less information than as many independent games: the design effect
    n / n_eff is the factor by which clustering inflates the variance, and Wilson's interval on n_eff
    entries has, to first order, the clustered standard error while keeping Wilson's behaviour
    at the edges (never outside [0, 1], not degenerate at 0 or 1 wins). Where a deal's games
    anti-correlate (the seat's luck cancels over the rotations, which is what duplicate deals are
    for), n_eff exceeds the number of games: the design did remove variance, and a brute-force
    bootstrap of whole deals agrees. Where
    the variance says nothing (mean 0 or 1, se 0, or a single deal), n_eff is the number of deals,
    the conservative choice: every deal is worth at least one independent observation. NaN where n is 0.
    """
    group = _codes(group, "group", n_groups)
    cluster = _codes(cluster, "cluster")
    if cluster.shape != group.shape:
        raise ValueError("group and cluster differ in length")
    values = _floats(values, "values", group.size)
    if proportion and values.size and (values.min() < 0 or values.max() > 1):
        raise ValueError("proportions need values in [0, 1]")
    return ClusteredMean(n_groups).add(values, group, cluster).result(proportion)


def grown(array: np.ndarray, size: int) -> np.ndarray:
    """`array` with zero rows appended up to `size` rows (itself when it has as many)."""
    if len(array) >= size:
        return array
    return np.concatenate([array, np.zeros((size - len(array), *array.shape[1:]), dtype=array.dtype)])


class ClusteredMean:
    """The running sums behind `clustered_mean`, fed chunk by chunk; every deal must lie within one chunk.

    Per group it keeps the entry count, the mean, the deals, and three centred sums over the deals:
    sum_c (Y_c - mean * N_c)^2, sum_c N_c (Y_c - mean * N_c) and sum_c N_c^2. Two sets of deals merge
    exactly when the mean moves (the parallel formulas of Chan, Golub and LeVeque, extended to deals of
    several entries), so no sum of squares of raw scores, which loses precision on large scores, is ever
    formed. Group codes may grow from chunk to chunk.
    """

    def __init__(self, n_groups: int = 0) -> None:
        self.n = np.zeros(n_groups, dtype=np.int64)
        self.units = np.zeros(n_groups, dtype=np.int64)
        self.mean = np.zeros(n_groups)
        self.squares = np.zeros(n_groups)  # sum_c (Y_c - mean * N_c)^2
        self.cross = np.zeros(n_groups)  # sum_c N_c (Y_c - mean * N_c)
        self.size_squares = np.zeros(n_groups)  # sum_c N_c^2

    def _grow(self, size: int) -> None:
        for name in ("n", "units", "mean", "squares", "cross", "size_squares"):
            setattr(self, name, grown(getattr(self, name), size))

    def add(self, values, group, cluster) -> ClusteredMean:
        """Adds entries (value, group code, deal code); returns self."""
        group = contiguous(group, np.int64)
        if not group.size:
            return self
        size = max(len(self.n), int(group.max()) + 1)
        self._grow(size)
        deal = contiguous(cluster, np.int64)
        low, high = int(deal.min()), int(deal.max())
        if low >= 0 and high < max(_DENSE_CELLS_PER_ENTRY * deal.size, _DENSE_MIN):  # few gaps: used as they are
            n_deals = high + 1
        else:
            deal, n_deals = _compact(deal)
        deal_sums(contiguous(values, np.float64), group, deal, n_deals, self.n, self.units, self.mean,
                  self.squares, self.cross, self.size_squares)
        return self

    def take(self, codes, flip=None) -> ClusteredMean:
        """The sums of the groups `codes`, renumbered 0..len(codes)-1 (codes never added are empty groups);
        where `flip` is True, of 1 - each value (a proportion seen from the other side: the deviations of
        every deal change sign, their squares do not)."""
        codes = np.asarray(codes, dtype=np.int64)
        size = int(codes.max(initial=-1)) + 1
        out = ClusteredMean()
        for name in ("n", "units", "mean", "squares", "cross", "size_squares"):
            setattr(out, name, grown(getattr(self, name), size)[codes])
        if flip is not None:
            flip = np.asarray(flip, dtype=bool)
            out.mean = np.where(flip & (out.n > 0), 1 - out.mean, out.mean)
            out.cross = np.where(flip, -out.cross, out.cross)
        return out

    def result(self, proportion: bool = False) -> dict[str, np.ndarray]:
        """`n`, `units`, `mean`, `se`, `lo`, `hi` per group, as `clustered_mean` describes them."""
        n, units = self.n, self.units
        mean = np.where(n > 0, self.mean, np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            se = np.where(units >= 2, np.sqrt(units / (units - 1) * self.squares) / n, np.nan)
        if proportion:
            with np.errstate(divide="ignore", invalid="ignore"):
                n_eff = mean * (1 - mean) / (se * se)
            uninformative = ~np.isfinite(n_eff) | (n_eff <= 0) | (mean <= 0) | (mean >= 1)
            n_eff = np.where(uninformative, units, n_eff).astype(np.float64)
            lo, hi = _wilson(mean, n_eff)
            empty = n == 0
            lo[empty] = hi[empty] = np.nan
        else:
            half = _t975(units - 1) * se
            lo, hi = mean - half, mean + half
        return {"n": n, "units": units, "mean": mean, "se": se, "lo": lo, "hi": hi}


PENTANOMIAL_KEYS = ("p0", "p05", "p1", "p15", "p2")
"""Names of the counts of deal pairs scoring 0, 0.5, 1, 1.5 and 2 points."""


def pentanomial(points, pairing, cluster, n_pairings: int) -> dict[str, np.ndarray]:
    """Pentanomial counts and score interval of two-player games played on duplicate deals, per pairing.

    `points` are the first bot's points of each game (1 a win, 0.5 a draw, 0 a loss), `pairing` the
    game's pairing code in 0..n_pairings-1 and `cluster` its deal. The two games of a deal (seats
    swapped) make one pair scoring 0, 0.5, 1, 1.5 or 2 points; deals of a pairing with other than two
    games (duplicate off, a partial run) are left out and counted in `incomplete`.

    Returns arrays of length n_pairings: `deals` (complete pairs), `p0`, `p05`, `p1`, `p15`, `p2` (pairs
    scoring 0 .. 2 points), `score` (points per game over the pairs), `score_lo`, `score_hi` and
    `incomplete`. The interval is normal, from the variance between pairs of the pair score
    s = points / 2: var(score) = var(s) / deals, with the unbiased var(s) (deals - 1 in the denominator,
    so a single pair gives NaN rather than a zero-width interval); clipped to [0, 1], NaN where deals < 2.
    Unlike an interval over games, it holds whether the two games of a deal correlate positively (a deal
    suits a bot) or negatively (the cards favour a seat).
    """
    pairing = _codes(pairing, "pairing", n_pairings)
    cluster = _codes(cluster, "cluster")
    if cluster.shape != pairing.shape:
        raise ValueError("pairing and cluster differ in length")
    points = _floats(points, "points", pairing.size)
    return Pentanomial(n_pairings).add(points, pairing, cluster).result()


class Pentanomial:
    """The counts behind `pentanomial`, fed chunk by chunk; both games of a deal must lie within one chunk."""

    def __init__(self, n_pairings: int = 0) -> None:
        self.counts = np.zeros((n_pairings, 5), dtype=np.int64)
        """(pairings, 5) deal pairs scoring 0, 0.5, 1, 1.5 and 2 points."""
        self.incomplete = np.zeros(n_pairings, dtype=np.int64)

    def add(self, points, pairing, cluster) -> Pentanomial:
        """Adds games (first bot's points, pairing code, deal code); returns self."""
        pairing = np.asarray(pairing, dtype=np.int64)
        points = np.asarray(points, dtype=np.float64)
        if not np.all((points == 0) | (points == 0.5) | (points == 1)):
            raise ValueError("points must be 0, 0.5 or 1")
        if not pairing.size:
            return self
        size = max(len(self.counts), int(pairing.max()) + 1)
        cell_pairing, cell_games, cell_points = _cells(pairing, size, np.asarray(cluster, dtype=np.int64), points)
        complete = cell_games == 2
        half_points = np.rint(2 * cell_points[complete]).astype(np.int64)  # 0..4, exact: sums of halves
        self.counts = grown(self.counts, size) + np.bincount(
            cell_pairing[complete] * 5 + half_points, minlength=5 * size).reshape(size, 5)
        self.incomplete = grown(self.incomplete, size) + np.bincount(cell_pairing[~complete], minlength=size)
        return self

    def take(self, codes, flip=None) -> Pentanomial:
        """The counts of the pairings `codes`, renumbered 0..len(codes)-1; where `flip` is True, seen from the
        second bot (a pair's 2 - points)."""
        codes = np.asarray(codes, dtype=np.int64)
        size = int(codes.max(initial=-1)) + 1
        out = Pentanomial()
        out.counts, out.incomplete = grown(self.counts, size)[codes], grown(self.incomplete, size)[codes]
        if flip is not None:
            out.counts = np.where(np.asarray(flip, dtype=bool)[:, None], out.counts[:, ::-1], out.counts)
        return out

    def result(self) -> dict[str, np.ndarray]:
        """The arrays `pentanomial` returns."""
        counts = self.counts
        deals = counts.sum(axis=1)
        pair_score = np.arange(5) / 4  # s = points / 2 of a pair
        with np.errstate(divide="ignore", invalid="ignore"):
            score = counts @ pair_score / deals
            variance = (counts * (pair_score[None, :] - score[:, None]) ** 2).sum(axis=1) / (deals - 1)
            half = Z95 * np.sqrt(variance / deals)
        few = deals < 2
        lo = np.where(few, np.nan, np.clip(score - half, 0, 1))
        hi = np.where(few, np.nan, np.clip(score + half, 0, 1))
        result = {"deals": deals}
        result.update({key: counts[:, k] for k, key in enumerate(PENTANOMIAL_KEYS)})
        result.update({"score": score, "score_lo": lo, "score_hi": hi, "incomplete": self.incomplete})
        return result


def paired_difference(diff, pairing, cluster, n_pairings: int) -> dict[str, np.ndarray]:
    """Duplicate score difference per pairing: games of a deal averaged into one value, t interval over deals.

    `diff` is, per game, the first bot's score minus the second's (in games of more players too),
    `pairing` the game's pairing code in 0..n_pairings-1 and `cluster` its deal. The games of one deal
    hold the same cards with the seats swapped, so their average cancels the luck of the cards; each
    deal, however many of its games were played, is then one independent value. Returns arrays of
    length n_pairings: `deals`, `mean` (over deals), `sd` (between deals), `lo`, `hi` (95% t interval
    with deals - 1 degrees of freedom); sd, lo and hi are NaN where deals < 2, mean where deals is 0.
    """
    pairing = _codes(pairing, "pairing", n_pairings)
    cluster = _codes(cluster, "cluster")
    if cluster.shape != pairing.shape:
        raise ValueError("pairing and cluster differ in length")
    diff = _floats(diff, "diff", pairing.size)
    return PairedDifference(n_pairings).add(diff, pairing, cluster).result()


class PairedDifference:
    """The sums behind `paired_difference`, fed chunk by chunk; all games of a deal must lie within one chunk.

    Per pairing: the deals, the mean of the per-deal values and their centred sum of squares, merged by
    the parallel formula of Chan, Golub and LeVeque."""

    def __init__(self, n_pairings: int = 0) -> None:
        self.deals = np.zeros(n_pairings, dtype=np.int64)
        self.mean = np.zeros(n_pairings)
        self.squares = np.zeros(n_pairings)

    def add(self, diff, pairing, cluster) -> PairedDifference:
        """Adds games (score difference, pairing code, deal code); returns self."""
        pairing = np.asarray(pairing, dtype=np.int64)
        if not pairing.size:
            return self
        size = max(len(self.deals), int(pairing.max()) + 1)
        diff = np.asarray(diff, dtype=np.float64)
        cell_pairing, cell_games, cell_sum = _cells(pairing, size, np.asarray(cluster, dtype=np.int64), diff)
        per_deal = cell_sum / cell_games
        deals = np.bincount(cell_pairing, minlength=size)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(deals > 0, np.bincount(cell_pairing, weights=per_deal, minlength=size) / deals, 0.0)
        residual = per_deal - mean[cell_pairing]  # centred: differences of large scores keep their precision
        squares = np.bincount(cell_pairing, weights=residual * residual, minlength=size)
        own_deals, own_mean = grown(self.deals, size), grown(self.mean, size)
        total = own_deals + deals
        delta = mean - own_mean
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(total > 0, deals / total, 0.0)
        self.mean = own_mean + delta * share
        self.squares = grown(self.squares, size) + squares + delta * delta * own_deals * share
        self.deals = total
        return self

    def take(self, codes, flip=None) -> PairedDifference:
        """The sums of the pairings `codes`, renumbered 0..len(codes)-1; where `flip` is True, the difference
        is the second bot's score minus the first's."""
        codes = np.asarray(codes, dtype=np.int64)
        size = int(codes.max(initial=-1)) + 1
        out = PairedDifference()
        out.deals, out.mean, out.squares = (grown(a, size)[codes] for a in (self.deals, self.mean, self.squares))
        if flip is not None:
            out.mean = np.where(np.asarray(flip, dtype=bool), -out.mean, out.mean)
        return out

    def result(self) -> dict[str, np.ndarray]:
        """The arrays `paired_difference` returns."""
        deals = self.deals
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(deals > 0, self.mean, np.nan)
            sd = np.where(deals >= 2, np.sqrt(self.squares / (deals - 1)), np.nan)
            half = _t975(deals - 1) * sd / np.sqrt(deals)
        return {"deals": deals, "mean": mean, "sd": sd, "lo": mean - half, "hi": mean + half}


# --- the Poisson bootstrap ---------------------------------------------------------------------------

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
"""SplitMix64's state increment (2^64 / golden ratio)."""


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function (Steele, Lea and Flood 2014) on a uint64 array, in place: a bijection
    whose outputs on the states s, s + golden, s + 2 golden, ... are a well-tested random stream."""
    with np.errstate(over="ignore"):
        z ^= z >> np.uint64(30)
        z *= np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(27)
        z *= np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return z


def _poisson_thresholds() -> np.ndarray:
    """T_k = floor(2^64 P(X <= k)) for X ~ Poisson(1), up to the k whose tail is below 2^-64: a uniform 64-bit
    x gives the draw k = #{j : T_j <= x} (the inverse CDF). Computed in 60-digit decimals, exact to the bit."""
    with localcontext() as context:
        context.prec = 60
        term, cdf, thresholds = Decimal(-1).exp(), Decimal(0), []
        for k in range(1, 64):
            cdf += term
            thresholds.append(int(cdf * 2**64))
            if thresholds[-1] == 2**64 - 1:
                break
            term /= k
    return np.array(thresholds, dtype=np.uint64)


_POISSON_THRESHOLDS = _poisson_thresholds()
_GUIDE_BITS = 16
_STRADDLES = np.uint8(255)


def _guide_table() -> np.ndarray:
    """The draw for each value of the top _GUIDE_BITS bits of x, or _STRADDLES where a threshold falls inside
    the bucket (a handful of the 65536) and the draw needs the full x."""
    width = np.uint64(64 - _GUIDE_BITS)
    first = np.arange(1 << _GUIDE_BITS, dtype=np.uint64) << width
    last = first + ((np.uint64(1) << width) - np.uint64(1))
    low = np.searchsorted(_POISSON_THRESHOLDS, first, side="right")
    high = np.searchsorted(_POISSON_THRESHOLDS, last, side="right")
    return np.where(low == high, low, int(_STRADDLES)).astype(np.uint8)


_GUIDE = _guide_table()


def poisson_weights(keys, replicates: int, seed: int) -> np.ndarray:
    """Poisson bootstrap weights, uint8 (len(keys), replicates): how often each deal counts in each replicate.

    Every deal gets an independent Poisson(1) weight in every replicate (the Poisson bootstrap, which
    approximates drawing as many deals with replacement and, unlike that draw, needs no count of the
    deals up front). The weight of deal `key` in replicate r is a pure function of (seed, r, key): the
    (r + 1)-th output of a SplitMix64 stream whose state starts at a hash of the key and the seed, turned
    into a Poisson(1) draw by the inverse CDF. So the weights are the same bit for bit whatever the order
    or the chunking of the deals, and a longer run of replicates starts with the same ones.
    """
    keys = np.asarray(keys)
    if keys.ndim != 1:
        raise ValueError("keys must be one-dimensional")
    if replicates < 0:
        raise ValueError("replicates must not be negative")
    if keys.size and not np.issubdtype(keys.dtype, np.integer):
        raise TypeError(f"keys must be integers, not {keys.dtype}")
    weights = np.empty((len(keys), replicates), dtype=np.uint8)
    if not weights.size:
        return weights
    seed_state = _mix64(np.array([seed % 2**64], dtype=np.uint64) + _GOLDEN)
    states = _mix64(keys.astype(np.int64).view(np.uint64) ^ seed_state)
    with np.errstate(over="ignore"):
        steps = np.arange(1, replicates + 1, dtype=np.uint64) * _GOLDEN
    block = max(1, (1 << 20) // replicates)  # keys per block: a few MB of 64-bit draws at a time
    for start in range(0, len(keys), block):
        with np.errstate(over="ignore"):
            x = _mix64(states[start:start + block, None] + steps[None, :])
        drawn = _GUIDE[x >> np.uint64(64 - _GUIDE_BITS)]
        straddling = drawn == _STRADDLES
        if straddling.any():
            drawn[straddling] = np.searchsorted(_POISSON_THRESHOLDS, x[straddling], side="right")
        weights[start:start + block] = drawn
    return weights
