"""Statistics of a run whose intervals treat a duplicate deal as one unit.

Every deal of a tournament (the same cards) is played once in every seat rotation, so the games of
one deal are correlated: a deal that suits a bot's style helps it in every rotation, and the luck of
the cards, which favours a seat, cancels when the seats swap. Intervals that count games as
independent are then too narrow (or, when the luck cancels, too wide). Here a *cluster* is one deal,
all the games sharing it, and every interval is computed from the spread between deals.

Everything works on flat numpy arrays, one entry per observation, with integer codes for the group
(a bot, a pairing) and the deal: no loop in Python per game, so millions of entries take a fraction
of a second. The deal bootstrap weights at the end serve statistics without a closed form.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy import special

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

    n = np.bincount(group, minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.bincount(group, weights=values, minlength=n_groups) / n
        # centred sums (a second pass) rather than sums of squares, which lose precision on large scores;
        # the residuals' own mean refines the mean once more, so the cells below are centred exactly
        residual = values - mean[group]
        correction = np.bincount(group, weights=residual, minlength=n_groups) / n
    mean = mean + correction
    cell_group, cell_n, cell_sum = _cells(group, n_groups, cluster, residual)
    cell_dev = cell_sum - correction[cell_group] * cell_n  # Y_c - mean * N_c
    units = np.bincount(cell_group, minlength=n_groups)
    squares = np.bincount(cell_group, weights=cell_dev * cell_dev, minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(units >= 2, np.sqrt(units / (units - 1) * squares) / n, np.nan)

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
    if not np.all((points == 0) | (points == 0.5) | (points == 1)):
        raise ValueError("points must be 0, 0.5 or 1")

    cell_pairing, cell_games, cell_points = _cells(pairing, n_pairings, cluster, points)
    complete = cell_games == 2
    incomplete = np.bincount(cell_pairing[~complete], minlength=n_pairings)
    half_points = np.rint(2 * cell_points[complete]).astype(np.int64)  # 0..4, exact: sums of halves
    counts = np.bincount(cell_pairing[complete] * 5 + half_points, minlength=5 * n_pairings).reshape(n_pairings, 5)
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
    result.update({"score": score, "score_lo": lo, "score_hi": hi, "incomplete": incomplete})
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

    cell_pairing, cell_games, cell_sum = _cells(pairing, n_pairings, cluster, diff)
    per_deal = cell_sum / cell_games
    deals = np.bincount(cell_pairing, minlength=n_pairings)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.bincount(cell_pairing, weights=per_deal, minlength=n_pairings) / deals
        residual = per_deal - mean[cell_pairing]  # centred: differences of large scores keep their precision
        squares = np.bincount(cell_pairing, weights=residual * residual, minlength=n_pairings)
        sd = np.where(deals >= 2, np.sqrt(squares / (deals - 1)), np.nan)
        half = _t975(deals - 1) * sd / np.sqrt(deals)
    return {"deals": deals, "mean": mean, "sd": sd, "lo": mean - half, "hi": mean + half}


def iter_bootstrap_weights(n_clusters: int, replicates: int, seed: int, chunk: int = 16) -> Iterator[np.ndarray]:
    """Deal-bootstrap weights in chunks of at most `chunk` replicates: int32 arrays (rows, n_clusters).

    Row r counts how often each deal was drawn when n_clusters deals are drawn with replacement
    (multinomial counts, each row sums to n_clusters). Every replicate has its own generator, child r
    of np.random.SeedSequence(seed), so the rows are the same bit for bit whatever the chunk size, and
    a statistic can weight its per-deal sums one chunk at a time instead of holding every replicate.
    """
    if n_clusters < 0 or replicates < 0:
        raise ValueError("n_clusters and replicates must not be negative")
    if chunk < 1:
        raise ValueError("chunk must be at least 1")
    children = np.random.SeedSequence(seed).spawn(replicates)
    for start in range(0, replicates, chunk):
        block = children[start:start + chunk]
        weights = np.zeros((len(block), n_clusters), dtype=np.int32)
        if n_clusters:
            for row, child in zip(weights, block, strict=True):
                draws = np.random.default_rng(child).integers(0, n_clusters, size=n_clusters)
                row[:] = np.bincount(draws, minlength=n_clusters)
        yield weights


def bootstrap_weights(n_clusters: int, replicates: int, seed: int) -> np.ndarray:
    """Deal-bootstrap weights, int32 (replicates, n_clusters): the rows of iter_bootstrap_weights at once."""
    if n_clusters < 0 or replicates < 0:
        raise ValueError("n_clusters and replicates must not be negative")
    weights = np.empty((replicates, n_clusters), dtype=np.int32)
    start = 0
    for block in iter_bootstrap_weights(n_clusters, replicates, seed):
        weights[start:start + len(block)] = block
        start += len(block)
    return weights
