"""The compiled inner loops of the ratings: loops over games with a few scalars per seat, which numpy could only
run as a temporary array for every step.

numba compiles them (`@njit`): it is the standard JIT compiler for numeric Python, a NumFOCUS project since
2012 with wheels for each new CPython and numpy. cache=True keeps the machine code on disk, so only the first
call after installation compiles (about 7 s of CPU for every kernel here) and a new process loads them in about
0.3 s (`benchmarks/ratings.py` prints both). The EP sweep of the batch TrueSkill (`sweep`, with the truncated
normal's moments), each group's Newton terms for the deal bootstrap (`newton_blocks`), each game's finishing
order (`finishing_order`) and the per-deal sums of the deal-clustered statistics (`deal_sums`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

_SQRT2 = math.sqrt(2)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT_PI = math.sqrt(math.pi)
_SQRT_HALF_PI = math.sqrt(math.pi / 2)
# W. J. Cody's rational approximations of erfcx (netlib specfun CALERF, 1990; relative error below 1e-16 by
# design): they need no exp for x > 0.47, where exp(x²) erfc(x) costs three.
_ERFCX_SMALL = 0.46875
_ERF_A = (3.1611237438705656, 113.864154151050156, 377.485237685302021, 3209.37758913846947, 0.185777706184603153)
_ERF_B = (23.6012909523441209, 244.024637934444173, 1282.61652607737228, 2844.23683343917062)
_ERFCX_C = (0.564188496988670089, 8.88314979438837594, 66.1191906371416295, 298.635138197400131,
            881.95222124176909, 1712.04761263407058, 2051.07837782607147, 1230.33935479799725,
            2.15311535474403846e-8)
_ERFCX_D = (15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019,
            3290.79923573345963, 4362.61909014324716, 3439.36767414372164, 1230.33935480374942)
_ERFCX_P = (0.305326634961232344, 0.360344899949804439, 0.125781726111229246, 0.0160837851487422766,
            6.58749161529837803e-4, 0.0163153871373020978)
_ERFCX_Q = (2.56852019228982242, 1.87295284992346047, 0.527905102951428412, 0.0605183413124413191,
            0.00233520497626869185)


@njit(cache=True)
def erfcx(x):
    """exp(x²) erfc(x), as scipy.special.erfcx (within 1e-12 relative over [-30, 1e6]; inf below -26.6)."""
    y = abs(x)
    if y <= _ERFCX_SMALL:  # 1 - erf(x), erf by its rational approximation in x²
        z = x * x
        top, bottom = _ERF_A[4] * z, z
        for i in range(3):
            top, bottom = (top + _ERF_A[i]) * z, (bottom + _ERF_B[i]) * z
        return math.exp(z) * (1 - x * (top + _ERF_A[3]) / (bottom + _ERF_B[3]))
    if y <= 4:
        top, bottom = _ERFCX_C[8] * y, y
        for i in range(7):
            top, bottom = (top + _ERFCX_C[i]) * y, (bottom + _ERFCX_D[i]) * y
        result = (top + _ERFCX_C[7]) / (bottom + _ERFCX_D[7])
    else:  # the asymptotic series' rational approximation in 1 / x²
        z = 1 / (y * y)
        top, bottom = _ERFCX_P[5] * z, z
        for i in range(4):
            top, bottom = (top + _ERFCX_P[i]) * z, (bottom + _ERFCX_Q[i]) * z
        result = (1 / _SQRT_PI - z * (top + _ERFCX_P[4]) / (bottom + _ERFCX_Q[4])) / y
    if x > 0:
        return result
    return 2 * math.exp(x * x) - result  # erfc(x) = 2 - erfc(-x); exp overflows to inf below -26.6


@njit(cache=True)
def _ndtr(x):
    """The standard normal's cumulative distribution, as scipy.special.ndtr."""
    z = x / _SQRT2
    if abs(z) < 1 / _SQRT2:
        return 0.5 + 0.5 * math.erf(z)
    return 1 - 0.5 * math.erfc(z) if z > 0 else 0.5 * math.erfc(-z)


@njit(cache=True)
def _moments(lo, hi):
    """Mean and variance of a standard normal truncated to [lo, hi] (hi may be inf: a win), stable far in the
    tails: by erfcx, the ratios of a tail's density to its mass are exact where both underflow."""
    if math.isinf(hi):  # the inverse Mills ratio phi(lo) / Q(lo); it is 0 only where the mean is 0 to double precision
        mean = 1 / (_SQRT_HALF_PI * erfcx(lo / _SQRT2))
        return mean, min(max(1 + lo * mean - mean * mean, 1e-300), 1.0)
    flip = lo > 0  # mirror the right tail into the left, where erfcx keeps the ratios exact
    if flip:
        lo, hi = -hi, -lo
    low = not math.isinf(lo)
    if hi <= 0:  # both ends in the left tail: every term is divided by the density at hi, the larger one
        ratio = math.exp((hi * hi - lo * lo) / 2) if low else 0.0  # phi(lo) / phi(hi)
        mass = _SQRT_HALF_PI * erfcx(-hi / _SQRT2)  # Phi(hi) / phi(hi), less the same below lo
        lo_ratio = 0.0
        if low:
            mass -= _SQRT_HALF_PI * erfcx(-lo / _SQRT2) * ratio
            lo_ratio = lo * ratio
        mean = (ratio - 1) / mass
        var = 1 + (lo_ratio - hi) / mass - mean * mean
    else:  # lo <= 0 < hi: the bulk of the normal, computed directly
        phi_lo = math.exp(-lo * lo / 2 - _LOG_SQRT_2PI) if low else 0.0
        top = not math.isinf(hi)
        phi_hi = math.exp(-hi * hi / 2 - _LOG_SQRT_2PI) if top else 0.0
        bulk = _ndtr(hi) - _ndtr(lo)
        mean = (phi_lo - phi_hi) / bulk
        var = 1 + ((lo * phi_lo if low else 0.0) - (hi * phi_hi if top else 0.0)) / bulk - mean * mean
    return (-mean if flip else mean), min(max(var, 1e-300), 1.0)


@njit(cache=True)
def _moments_of(lo, hi, mean, var):
    for i in range(len(lo)):
        mean[i], var[i] = _moments(lo[i], hi[i])


def contiguous(array, dtype) -> np.ndarray:
    """`array` as a C-contiguous array of `dtype` (itself when it is one): what every kernel is passed. numba compiles
    a kernel again for each layout it meets, a strided column ('A') and a contiguous one ('C') apart, and a compile
    takes seconds where loading one from the cache takes milliseconds; `python -m arena.ratings` compiles each kernel
    once, for contiguous arrays."""
    return np.ascontiguousarray(array, dtype=dtype)


def truncated_moments(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of a standard normal truncated to [lo, hi] (hi may be inf), elementwise (`_moments`)."""
    lo, hi = (contiguous(a, np.float64) for a in np.broadcast_arrays(lo, hi))
    mean, var = np.empty(lo.shape), np.empty(lo.shape)
    _moments_of(lo.reshape(-1), hi.reshape(-1), mean.reshape(-1), var.reshape(-1))
    return mean, var


LANES = 8
"""Groups whose chains are passed through together: one group's chain is a sequence of dependent divisions,
square roots and tail functions, and several independent ones interleaved keep the processor busy (a sweep
in 40% less time than one group at a time)."""


@njit(cache=True, inline="always")
def _chain(cav_pi, cav_tau, t_pi, t_tau, drawn, beta2, margin, s_pi, s_tau, work):
    """One pass over the factors of a few groups (rows): refines their truncation messages t_pi, t_tau (in place)
    and writes the messages s_pi, s_tau they send their seats' skills. Per seat: cav_*, s_* (groups, seats); per
    difference: t_*, drawn (groups, seats - 1); work: (6, seats, LANES) scratch.

    The performances form a chain (each truncation ties two neighbours), so every marginal is a product of
    local messages, exactly: without truncation k the chain falls into two independent halves, and the
    cavity of the difference k is the left half's marginal of p_k minus the right half's of p_k+1. The
    right halves' messages come from one pass up the chain; a pass down then refines the truncations in
    turn, as the package's schedule does, each from the left messages of the ones already refined. A last
    pass up gives every performance its two neighbours' messages. O(n).

    A message through a truncated difference (message m_pi, m_tau on d = p_k - p_k+1) from a performance
    (pi, tau) to its neighbour is (m_pi pi, m_pi tau -+ m_tau pi) / (pi + m_pi): - down the chain
    (p_k+1 = p_k - d), + up it; a difference with no message yet (m_pi 0) sends nothing."""
    lanes, n = cav_pi.shape
    perf_pi, perf_tau, up_pi, up_tau, down_pi, down_tau = work[0], work[1], work[2], work[3], work[4], work[5]
    for k in range(n):  # a performance's prior: the skill's cavity plus the noise
        for g in range(lanes):
            skill_var = 1 / cav_pi[g, k]
            perf_pi[k, g] = 1 / (skill_var + beta2)
            perf_tau[k, g] = cav_tau[g, k] * skill_var * perf_pi[k, g]
    for sweep in range(2):
        if sweep:  # down the chain, refining each truncation from the messages of the ones below it
            for g in range(lanes):
                down_pi[0, g] = down_tau[0, g] = 0.0
            for k in range(n - 1):
                for g in range(lanes):
                    left_pi, left_tau = perf_pi[k, g] + down_pi[k, g], perf_tau[k, g] + down_tau[k, g]
                    right_pi, right_tau = perf_pi[k + 1, g] + up_pi[k + 1, g], perf_tau[k + 1, g] + up_tau[k + 1, g]
                    left_var, right_var = 1 / left_pi, 1 / right_pi
                    c_var = left_var + right_var  # the difference's cavity: all but this truncation
                    c_mean = left_tau * left_var - right_tau * right_var
                    c_pi, c_sd = 1 / c_var, math.sqrt(c_var)
                    t, eps = c_mean * c_pi * c_sd, margin * c_pi * c_sd  # over c_sd
                    if drawn[g, k]:
                        z_mean, z_var = _moments(-eps - t, eps - t)
                    else:
                        z_mean, z_var = _moments(eps - t, math.inf)
                    post_pi = c_pi / z_var
                    t_pi[g, k] = post_pi - c_pi
                    t_tau[g, k] = (c_mean + z_mean * c_sd) * post_pi - c_mean * c_pi
                    scale = 1 / (left_pi + t_pi[g, k])
                    down_pi[k + 1, g] = t_pi[g, k] * left_pi * scale
                    down_tau[k + 1, g] = (t_pi[g, k] * left_tau - t_tau[g, k] * left_pi) * scale
        for g in range(lanes):  # the messages from the chain above each performance
            up_pi[n - 1, g] = up_tau[n - 1, g] = 0.0
        for k in range(n - 2, -1, -1):
            for g in range(lanes):
                right_pi, right_tau = perf_pi[k + 1, g] + up_pi[k + 1, g], perf_tau[k + 1, g] + up_tau[k + 1, g]
                scale = 1 / (right_pi + t_pi[g, k])
                up_pi[k, g] = t_pi[g, k] * right_pi * scale
                up_tau[k, g] = (t_pi[g, k] * right_tau + t_tau[g, k] * right_pi) * scale
    for k in range(n):  # the chain's message to each performance, then through the performance noise to the skill
        for g in range(lanes):
            m_pi, m_tau = down_pi[k, g] + up_pi[k, g], down_tau[k, g] + up_tau[k, g]
            scale = 1 / (1 + beta2 * m_pi)
            s_pi[g, k], s_tau[g, k] = m_pi * scale, m_tau * scale


@njit(cache=True)
def _chains(cav_pi, cav_tau, trunc_pi, trunc_tau, drawn, beta2, margin, s_pi, s_tau):
    work = np.empty((6, cav_pi.shape[1], LANES))
    for first in range(0, len(cav_pi), LANES):
        rows = slice(first, min(first + LANES, len(cav_pi)))
        _chain(cav_pi[rows], cav_tau[rows], trunc_pi[rows], trunc_tau[rows], drawn[rows], beta2, margin, s_pi[rows],
               s_tau[rows], work)


def chain_messages(cav_pi, cav_tau, trunc_pi, trunc_tau, drawn, beta2, margin):
    """`_chain` of every group at once: refines the truncation messages (in place) and returns the skill
    posteriors (pi, tau) of the seats. Arrays are (..., n) per seat, (..., n - 1) per difference."""
    shape, n = cav_pi.shape, cav_pi.shape[-1]
    flat = lambda a, width, kind=np.float64: np.array(np.broadcast_to(a, (*shape[:-1], width)).reshape(-1, width),
                                                      dtype=kind)  # a writable copy
    t_pi, t_tau = flat(trunc_pi, n - 1), flat(trunc_tau, n - 1)
    s_pi, s_tau = np.empty((len(t_pi), n)), np.empty((len(t_pi), n))
    _chains(flat(cav_pi, n), flat(cav_tau, n), t_pi, t_tau, flat(drawn, n - 1, np.bool_), beta2, margin, s_pi, s_tau)
    trunc_pi[...], trunc_tau[...] = t_pi.reshape(trunc_pi.shape), t_tau.reshape(trunc_tau.shape)
    return cav_pi + s_pi.reshape(shape), cav_tau + s_tau.reshape(shape)


SWEEP_CHUNKS = 16
"""The factors of a sweep are cut into this many contiguous chunks, swept in parallel, each adding to sums of
its own that are then added in chunk order: a fixed number, so the floats do not depend on the threads."""


PARALLEL_FACTORS = 100_000
"""Sweeps of fewer factors run their chunks on one thread: a small sweep takes a millisecond or so, and starting
the threads for it took twice the CPU of the sweep itself."""


def sweep(q_pi, q_tau, target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi, trunc_tau, drawn, damping,
          last_pi, last_tau, beta2, margin, sums):
    """`_sweep` chunk by chunk, on every core for a large fit (the run's games are played when its rating runs):
    the same floats either way."""
    chunk_sums = np.zeros((SWEEP_CHUNKS, *sums.shape))
    chunks = _parallel_chunks if len(target) >= PARALLEL_FACTORS else _serial_chunks
    chunks(q_pi, q_tau, target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi, trunc_tau, drawn, damping,
           last_pi, last_tau, beta2, margin, chunk_sums)
    sums += chunk_sums.sum(axis=0)


# Two functions rather than one compiled with two sets of options: each then has numba's on-disk cache of its own.
@njit(cache=True, parallel=True)
def _parallel_chunks(q_pi, q_tau, target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi, trunc_tau, drawn,
                     damping, last_pi, last_tau, beta2, margin, chunk_sums):
    for chunk in prange(SWEEP_CHUNKS):
        _sweep_chunk(chunk, q_pi, q_tau, target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi, trunc_tau,
                     drawn, damping, last_pi, last_tau, beta2, margin, chunk_sums)


@njit(cache=True)
def _serial_chunks(q_pi, q_tau, target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi, trunc_tau, drawn,
                   damping, last_pi, last_tau, beta2, margin, chunk_sums):
    for chunk in range(SWEEP_CHUNKS):
        _sweep_chunk(chunk, q_pi, q_tau, target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi, trunc_tau,
                     drawn, damping, last_pi, last_tau, beta2, margin, chunk_sums)


@njit(cache=True)
def _sweep_chunk(chunk, q_pi, q_tau, target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi, trunc_tau, drawn,
                 damping, last_pi, last_tau, beta2, margin, chunk_sums):
    factors = len(target)
    size = -(-factors // SWEEP_CHUNKS)
    first, end = min(chunk * size, factors), min((chunk + 1) * size, factors)
    _sweep(q_pi, q_tau, target[first:end], weight[first:end], replicate[first:end], shift, msg_pi[first:end],
           msg_tau[first:end], trunc_pi[first:end], trunc_tau[first:end], drawn[first:end], damping[first:end],
           last_pi[first:end], last_tau[first:end], beta2, margin, chunk_sums[chunk])


@njit(cache=True)
def _sweep(q_pi, q_tau, target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi, trunc_tau, drawn, damping,
           last_pi, last_tau, beta2, margin, sums):
    """One sweep of EP: every factor refined from the same posterior (q_pi, q_tau, flat by replicate and bot),
    its messages (msg_*, in place) moved first by its replicate's `shift` of the common level, then by its
    step, damped. sums: (4, replicates * bots), to which it adds the new messages and the full steps (pi, tau),
    counted their factors' weights, by (replicate, bot).

    A group's copies share one message, so its update feeds back through its own weight - 1 copies in the
    cavity: heavy groups overshoot and oscillate. Each group's step is damped while it flips direction from
    one sweep to the next without shrinking to half its size, and freed again while it does not: a step that
    flips as it shrinks is converging (as most do, light groups on noise), and damping it would only slow it."""
    factors, n = target.shape
    cavity, skill, work = np.empty((2, LANES, n)), np.empty((2, LANES, n)), np.empty((6, n, LANES))
    cav_pi, cav_tau, s_pi, s_tau = cavity[0], cavity[1], skill[0], skill[1]
    for first in range(0, factors, LANES):
        lanes = min(LANES, factors - first)
        for g in range(lanes):
            f = first + g
            level = shift[replicate[f]]
            for k in range(n):
                msg_tau[f, k] += msg_pi[f, k] * level
                cav_pi[g, k] = q_pi[target[f, k]] - msg_pi[f, k]
                cav_tau[g, k] = q_tau[target[f, k]] - msg_tau[f, k]
        rows = slice(first, first + lanes)
        _chain(cav_pi[:lanes], cav_tau[:lanes], trunc_pi[rows], trunc_tau[rows], drawn[rows], beta2, margin,
               s_pi[:lanes], s_tau[:lanes], work)
        for g in range(lanes):
            f = first + g
            flips = size = last = 0.0
            for k in range(n):
                s_pi[g, k] -= msg_pi[f, k]  # now the step
                s_tau[g, k] -= msg_tau[f, k]
                flips += s_pi[g, k] * last_pi[f, k] + s_tau[g, k] * last_tau[f, k]
                size += s_pi[g, k] * s_pi[g, k] + s_tau[g, k] * s_tau[g, k]
                last += last_pi[f, k] * last_pi[f, k] + last_tau[f, k] * last_tau[f, k]
            damping[f] = damping[f] / 2 if flips < 0 and size > 0.25 * last else min(1.0, damping[f] * 1.5)
            for k in range(n):
                last_pi[f, k], last_tau[f, k] = s_pi[g, k], s_tau[g, k]
                msg_pi[f, k] += damping[f] * s_pi[g, k]
                msg_tau[f, k] += damping[f] * s_tau[g, k]
                bot, w = target[f, k], weight[f]
                sums[0, bot] += w * msg_pi[f, k]
                sums[1, bot] += w * msg_tau[f, k]
                sums[2, bot] += w * s_pi[g, k]
                sums[3, bot] += w * s_tau[g, k]


@njit(cache=True)
def finishing_order(bots, ranks, in_order, drawn):
    """Each game's bots in finishing order, ties by bot code (`in_order`), and where adjacent seats tied (`drawn`):
    an insertion sort of a game's few seats, where a numpy lexsort along rows took a third of the grouping."""
    games, n = bots.shape
    rank = np.empty(n, np.int64)
    for g in range(games):
        for k in range(n):
            bot, r, j = bots[g, k], ranks[g, k], k
            while j and (rank[j - 1] > r or (rank[j - 1] == r and in_order[g, j - 1] > bot)):
                rank[j], in_order[g, j] = rank[j - 1], in_order[g, j - 1]
                j -= 1
            rank[j], in_order[g, j] = r, bot
        for k in range(n - 1):
            drawn[g, k] = rank[k] == rank[k + 1]


@njit(cache=True)
def newton_blocks(trunc_pi, trunc_tau, mu, beta2, gradients, blocks):
    """Each group's gradient (groups, seats) and Hessian block (groups, seats, seats) at the fit (`NewtonTerms`),
    from its truncations and its seats' mu. The performances' precision is tridiagonal (I / beta² plus each
    truncation's precision t_k on its difference p_k - p_k+1), so its inverse has a closed form (Usmani 1994):
    with theta_i the determinant of its first i rows and columns and phi_j that of its rows and columns from j
    on, the covariance of seats i <= j is t_i ... t_j-1 theta_i phi_j+1 / theta_n. O(seats²) a group, on
    scalars, where a batched numpy inverse took half the bootstrap's time."""
    groups, n = mu.shape
    diagonal, theta, phi, pull = np.empty(n), np.empty(n + 1), np.empty(n + 1), np.empty(n)
    cov = np.empty((n, n))
    for g in range(groups):
        for i in range(n):
            diagonal[i] = 1 / beta2 + (trunc_pi[g, i - 1] if i else 0.0) + (trunc_pi[g, i] if i < n - 1 else 0.0)
            pull[i] = mu[g, i] / beta2 + (trunc_tau[g, i] if i < n - 1 else 0.0) - (trunc_tau[g, i - 1] if i else 0.0)
        theta[0], theta[1] = 1.0, diagonal[0]
        for i in range(1, n):
            theta[i + 1] = diagonal[i] * theta[i] - trunc_pi[g, i - 1] ** 2 * theta[i - 1]
        phi[n], phi[n - 1] = 1.0, diagonal[n - 1]
        for i in range(n - 2, -1, -1):
            phi[i] = diagonal[i] * phi[i + 1] - trunc_pi[g, i] ** 2 * phi[i + 2]
        for i in range(n):
            chain = theta[i] / theta[n]  # times t_i ... t_j-1 as j moves right
            for j in range(i, n):
                cov[i, j] = cov[j, i] = chain * phi[j + 1]
                if j < n - 1:
                    chain *= trunc_pi[g, j]
        for i in range(n):
            mean = 0.0
            for j in range(n):
                mean += cov[i, j] * pull[j]
                blocks[g, i, j] = ((1.0 if i == j else 0.0) - cov[i, j] / beta2) / beta2
            gradients[g, i] = (mean - mu[g, i]) / beta2


@njit(cache=True)
def deal_sums(values, group, deal, n_deals, sums_n, sums_units, sums_mean, squares, cross, size_squares):
    """`ClusteredMean.add`: adds entries (value, group code, deal code below `n_deals`) to the running sums by group
    (in place): entries, deals, mean, and the centred sums over deals sum_c (Y_c - mean N_c)^2,
    sum_c N_c (Y_c - mean N_c) and sum_c N_c^2. Centred sums (a second pass) rather than sums of squares, which
    lose precision on large scores; the residuals' own mean refines the mean once more, so the deals' sums are
    centred exactly. Compiled: the entries are put in deal order by a counting sort and each deal's groups summed
    with one mark per group, where numpy sorted the entries by (group, deal) cell for every statistic of every
    part (half the time of a part's sums)."""
    size = len(sums_n)
    n, mean, correction = np.zeros(size, np.int64), np.zeros(size), np.zeros(size)
    for e in range(len(values)):
        n[group[e]] += 1
        mean[group[e]] += values[e]
    for g in range(size):
        mean[g] = mean[g] / n[g] if n[g] else 0.0
    for e in range(len(values)):
        correction[group[e]] += values[e] - mean[group[e]]
    for g in range(size):
        correction[g] = correction[g] / n[g] if n[g] else 0.0
    first = np.zeros(n_deals + 1, np.int64)  # the entries of deal d are order[first[d]:first[d + 1]]
    for e in range(len(values)):
        first[deal[e] + 1] += 1
    for d in range(n_deals):
        first[d + 1] += first[d]
    order, filled = np.empty(len(values), np.int64), first[:-1].copy()
    for e in range(len(values)):
        order[filled[deal[e]]] = e
        filled[deal[e]] += 1
    part_squares, part_cross, part_size_squares, units = (np.zeros(size), np.zeros(size), np.zeros(size),
                                                          np.zeros(size, np.int64))
    seen, touched = np.full(size, -1), np.empty(size, np.int64)  # a group's last deal; the groups of this deal
    cell_n, cell_sum = np.zeros(size, np.int64), np.zeros(size)
    for d in range(n_deals):
        groups = 0
        for i in range(first[d], first[d + 1]):
            e = order[i]
            g = group[e]
            if seen[g] != d:
                seen[g], cell_n[g], cell_sum[g] = d, 0, 0.0
                touched[groups] = g
                groups += 1
            cell_n[g] += 1
            cell_sum[g] += values[e] - mean[g]
        for j in range(groups):
            g = touched[j]
            deviation = cell_sum[g] - correction[g] * cell_n[g]  # Y_c - mean * N_c
            part_squares[g] += deviation * deviation
            part_cross[g] += cell_n[g] * deviation
            part_size_squares[g] += cell_n[g] * cell_n[g]
            units[g] += 1
    for g in range(size):  # both sides re-centred on the merged mean m (the parallel formulas of Chan et al.):
        mean[g] += correction[g]  # sum (Y_c - m N_c)^2 = S + 2 d X + d^2 Q with d = own mean - m
        total = sums_n[g] + n[g]
        merged = sums_mean[g] + (mean[g] - sums_mean[g]) * (n[g] / total if total > 0 else 0.0)
        old, new = sums_mean[g] - merged, mean[g] - merged
        squares[g] += (2 * old * cross[g] + old * old * size_squares[g]
                       + part_squares[g] + 2 * new * part_cross[g] + new * new * part_size_squares[g])
        cross[g] += old * size_squares[g] + part_cross[g] + new * part_size_squares[g]
        size_squares[g] += part_size_squares[g]
        sums_n[g], sums_mean[g] = total, merged
        sums_units[g] += units[g]
