"""Online TrueSkill: the trueskill package's sequential update, game by game in game-index order.

The engine re-implements trueskill 0.4.5 (`TrueSkill.rate` with one player per team, ranks
as given, ties as draws) on plain floats, with the package's own cdf/pdf/ppf. Two-player games use
the closed form of the truncated-Gaussian update (within about 1e-13 of the package, some 80 times
faster) unless the draw probability is under 1e-3: towards a zero draw margin the package's draws
turn into rounding noise, which only its own operations reproduce.
Games of three or more seats (and all games in that case) replay the package's message passing
operation by operation (bit for bit, about 10 times faster), because its loop stops early
(min_delta, at most 10 rounds) and the result depends on exactly where it stops.

Order matters here, and dynamics (tau) let old games fade: this is `[ratings] method = "online"`,
the leaderboard that moves. See `benchmarks/ratings.py` for the speed.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import trueskill

from arena.config import RatingSettings

MIN_DELTA = trueskill.DELTA
"""The package's default convergence threshold of `TrueSkill.rate` (0.0001)."""
MAX_ITERATIONS = 10
"""The package stops passing messages after this many rounds even when not converged."""
CLOSED_FORM_MIN_DRAW_PROBABILITY = 1e-3
"""Below this draw probability the two-player closed form is not used: towards a zero draw margin the package's
draws turn into rounding noise (see `rate_codes`), which only its own operations, bit for bit, reproduce."""
Z95 = 1.96
"""Normal quantile of the 95% confidence intervals."""

_INF = float("inf")
_SQRT2 = math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_FP_MESSAGE = 'Cannot calculate correctly, set backend to "mpmath"'


# --- the package's math, operation for operation -------------------------------------------------

def _cdf(x: float) -> float:
    """trueskill.backends.cdf(x), bit for bit: its erfc approximation (fractional error < 1.2e-7)."""
    u = -x / _SQRT2
    z = abs(u)
    t = 1. / (1. + z / 2.)
    r = t * math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277)))))))))
    return 0.5 * (2. - r if u < 0 else r)


def _pdf(x: float) -> float:
    """trueskill.backends.pdf(x), bit for bit (`x ** 2`, not `x * x`: they differ in the last bit)."""
    return _INV_SQRT_2PI * math.exp(-(x ** 2 / 2))


def _make_vw(cdf: Callable[[float], float], pdf: Callable[[float], float]):
    """The package's v and w functions of the truncated Gaussian, for a cdf/pdf backend."""

    def vw(diff: float, margin: float, drawn: bool) -> tuple[float, float]:
        """(v, w) as `TrueSkill.v_win`/`w_win` (or `v_draw`/`w_draw`), raising where they raise."""
        if drawn:
            abs_diff = abs(diff)
            a, b = margin - abs_diff, -margin - abs_diff
            denom = cdf(a) - cdf(b)
            if not denom:  # w_draw raises here (v_draw alone would not)
                raise FloatingPointError(_FP_MESSAGE)
            v_abs = (pdf(b) - pdf(a)) / denom
            w = v_abs ** 2 + (a * pdf(a) - b * pdf(b)) / denom
            return (-v_abs if diff < 0 else v_abs), w
        x = diff - margin
        denom = cdf(x)
        v = pdf(x) / denom if denom else -x
        w = v * (v + x)
        if 0 < w < 1:
            return v, w
        raise FloatingPointError(_FP_MESSAGE)

    return vw



def _rate_graph(mus: list[float], sigmas: list[float], drawn: list[bool], margin: float, tau: float,
                beta2: float, vw=None, min_delta: float = MIN_DELTA) -> tuple[list[float], list[float]]:
    """New (mus, sigmas) of one game, seats in rank order, by the package's factor graph and schedule.

    drawn[j] says seats j and j+1 tie; vw is None for the default backend (inlined), else `_make_vw(...)`.
    Every line mirrors one Gaussian operation of `trueskill.factorgraph` in the same order, so
    rounding matches the package as well: the loop's early stop makes the result depend on it.
    """
    n = len(mus)
    last = n - 1  # the number of team-difference factors
    tau2 = tau ** 2
    prior_pi, prior_tau, perf_pi, perf_tau, sum_pi, sum_tau = [], [], [], [], [], []
    for mu, sigma in zip(mus, sigmas, strict=True):
        # PriorFactor.down, LikelihoodFactor.down, SumFactor.down (one player per team)
        pi = math.sqrt(sigma ** 2 + tau2) ** -2
        ptau = pi * mu
        a = 1. / (1. + beta2 * pi)
        ppi, pt = a * pi, a * ptau
        spi = 1. / (1 / ppi)
        prior_pi.append(pi)
        prior_tau.append(ptau)
        perf_pi.append(ppi)
        perf_tau.append(pt)
        sum_pi.append(spi)
        sum_tau.append(spi * (pt / ppi))
    team_pi, team_tau = sum_pi[:], sum_tau[:]  # team-performance variables
    zeros = [0.0] * last
    left_pi, left_tau = zeros[:], zeros[:]  # messages from difference j to team j
    right_pi, right_tau = zeros[:], zeros[:]  # ... to team j + 1
    down_pi, down_tau = zeros[:], zeros[:]  # ... to the difference variable j
    trunc_pi, trunc_tau = zeros[:], zeros[:]  # messages from truncation j to difference j
    diff_pi, diff_tau = zeros[:], zeros[:]  # difference variables
    # The package's loop: forward over differences 0..last-2 (then up to the right), backward over
    # last-1..1 (then up to the left); with two teams only difference 0, and nothing sent up.
    if last == 1:
        visits = [(0, 0, drawn[0])]
    else:
        visits = [(j, 1, drawn[j]) for j in range(last - 1)] + [(j, -1, drawn[j]) for j in range(last - 1, 0, -1)]
    sqrt, exp, cdf, k_pdf = math.sqrt, math.exp, _cdf, _INV_SQRT_2PI
    for _ in range(MAX_ITERATIONS):
        delta = 0
        for j, send_up, drawn_j in visits:
            # SumFactor.down, teams j and j + 1 into difference j. Each message is a SumFactor.update:
            # mu = sum of coeff * mu, 1/pi = sum of 1/pi (infinite for a zero pi). Team j's part (a)
            # and team j + 1's part (b) do not change before the message up, so they are reused there.
            api, atau = team_pi[j] - left_pi[j], team_tau[j] - left_tau[j]
            bpi, btau = team_pi[j + 1] - right_pi[j], team_tau[j + 1] - right_tau[j]
            mu_a, inv_a = (atau / api, 1 / api) if api else (api, _INF)
            mu_b, inv_b = (btau / bpi, 1 / bpi) if bpi else (bpi, _INF)
            pi = 1. / (inv_a + inv_b)
            tau_ = pi * (mu_a - mu_b)
            var_pi = diff_pi[j] - down_pi[j] + pi
            var_tau = diff_tau[j] - down_tau[j] + tau_
            down_pi[j], down_tau[j] = pi, tau_
            # TruncateFactor.up (v and w inlined for the default backend)
            old_pi, old_tau = trunc_pi[j], trunc_tau[j]
            dpi, dtau = var_pi - old_pi, var_tau - old_tau
            sqrt_pi = sqrt(dpi)
            diff, eps = dtau / sqrt_pi, margin * sqrt_pi
            if vw is not None:
                v, w = vw(diff, eps, drawn_j)
            elif drawn_j:
                abs_diff = diff if diff >= 0 else -diff
                a, b = eps - abs_diff, -eps - abs_diff
                denom = cdf(a) - cdf(b)
                if not denom:
                    raise FloatingPointError(_FP_MESSAGE)
                pdf_a, pdf_b = k_pdf * exp(-(a ** 2 / 2)), k_pdf * exp(-(b ** 2 / 2))
                v = (pdf_b - pdf_a) / denom
                w = v ** 2 + (a * pdf_a - b * pdf_b) / denom
                if diff < 0:
                    v = -v
            else:
                x = diff - eps
                denom = cdf(x)
                v = k_pdf * exp(-(x ** 2 / 2)) / denom if denom else -x
                w = v * (v + x)
                if not 0 < w < 1:
                    raise FloatingPointError(_FP_MESSAGE)
            denom = 1. - w
            pi, tau_ = dpi / denom, (dtau + sqrt_pi * v) / denom
            trunc_pi[j], trunc_tau[j] = pi + old_pi - var_pi, tau_ + old_tau - var_tau
            diff_pi[j], diff_tau[j] = pi, tau_
            # Variable.set's delta: max(|tau change|, sqrt(|pi change|)), 0 for an infinite pi change
            pi_delta = var_pi - pi if var_pi >= pi else pi - var_pi
            if pi_delta != _INF:
                step = var_tau - tau_ if var_tau >= tau_ else tau_ - var_tau
                root = sqrt(pi_delta)
                if root > step:  # max(a, b) keeps a unless b > a
                    step = root
                if step > delta:
                    delta = step
            if send_up:
                dpi, dtau = pi - down_pi[j], tau_ - down_tau[j]
                mu_d, inv_d = (dtau / dpi, 1 / dpi) if dpi else (dpi, _INF)
                if send_up > 0:  # SumFactor.up(1): to team j + 1, coefficients (1, -1) on (team j, diff)
                    pi = 1. / (inv_a + inv_d)
                    tau_ = pi * (mu_a - mu_d)
                    team_pi[j + 1] = team_pi[j + 1] - right_pi[j] + pi
                    team_tau[j + 1] = team_tau[j + 1] - right_tau[j] + tau_
                    right_pi[j], right_tau[j] = pi, tau_
                else:  # SumFactor.up(0): to team j, coefficients (1, 1) on (diff, team j + 1)
                    pi = 1. / (inv_d + inv_b)
                    tau_ = pi * (mu_d + mu_b)
                    team_pi[j] = team_pi[j] - left_pi[j] + pi
                    team_tau[j] = team_tau[j] - left_tau[j] + tau_
                    left_pi[j], left_tau[j] = pi, tau_
        if delta <= min_delta:
            break
    # SumFactor.up(0) of difference 0 and up(1) of the last one, as the package ends its schedule
    pi, tau_ = _sum_message(diff_pi[0] - down_pi[0], diff_tau[0] - down_tau[0],
                            team_pi[1] - right_pi[0], team_tau[1] - right_tau[0], 1.0)
    team_pi[0], team_tau[0] = team_pi[0] - left_pi[0] + pi, team_tau[0] - left_tau[0] + tau_
    left_pi[0], left_tau[0] = pi, tau_
    j = last - 1
    pi, tau_ = _sum_message(team_pi[j] - left_pi[j], team_tau[j] - left_tau[j],
                            diff_pi[j] - down_pi[j], diff_tau[j] - down_tau[j], -1.0)
    team_pi[last], team_tau[last] = team_pi[last] - right_pi[j] + pi, team_tau[last] - right_tau[j] + tau_
    new_mus, new_sigmas = [], []
    for i in range(n):
        # SumFactor.up(0) to the performance, LikelihoodFactor.up to the skill
        dpi, dtau = team_pi[i] - sum_pi[i], team_tau[i] - sum_tau[i]
        mu = dtau / dpi if dpi else dpi
        pi = 1. / (1.0 / dpi) if dpi else 0.0
        mpi = (perf_pi[i] + pi) - perf_pi[i]
        mtau = (perf_tau[i] + pi * mu) - perf_tau[i]
        a = 1. / (1. + beta2 * mpi)
        rpi, rtau = prior_pi[i] + a * mpi, prior_tau[i] + a * mtau
        mu, sigma = _as_rating(float(rtau / rpi if rpi else rpi), float(sqrt(1 / rpi) if rpi else _INF))
        new_mus.append(mu)
        new_sigmas.append(sigma)
    return new_mus, new_sigmas


def _sum_message(api: float, atau: float, bpi: float, btau: float, sign: float) -> tuple[float, float]:
    """SumFactor.update of two Gaussians with coefficients (1, sign): the message as (pi, tau)."""
    mu_a, inv_a = (atau / api, 1 / api) if api else (api, _INF)
    mu_b, inv_b = (btau / bpi, 1 / bpi) if bpi else (bpi, _INF)
    pi = 1. / (inv_a + inv_b)
    return pi, pi * (mu_a + sign * mu_b)


def _as_rating(mu: float, sigma: float) -> tuple[float, float]:
    """(mu, sigma) as a trueskill.Rating(mu, sigma) reads back: it keeps pi and tau, a last-bit round trip."""
    pi = sigma ** -2
    return (pi * mu / pi if pi else pi), (math.sqrt(1 / pi) if pi else _INF)


# --- the rating loop -------------------------------------------------------------------------------

@dataclass
class Ratings:
    """One rating table after its games: final mu and sigma per bot, and optionally every step."""

    bots: list[str]
    mu: np.ndarray
    sigma: np.ndarray
    history_mu: np.ndarray | None = None
    """Per seat of every game (flattened in game then seat order): the seat's mu after the game."""
    history_sigma: np.ndarray | None = None


def rate_games(players: Sequence[Sequence[str]], ranks: Sequence[Sequence[int]],
               settings: RatingSettings | None = None, *, history: bool = False) -> Ratings:
    """Rates games in order (players and ranks by seat, equal ranks draw) into one table."""
    sizes = np.fromiter(map(len, players), np.int64, len(players))
    if not np.array_equal(sizes, np.fromiter(map(len, ranks), np.int64, len(ranks))):
        raise ValueError("players and ranks differ in length")
    names = [name for seated in players for name in seated]
    codes, bots = pd.factorize(np.asarray(names, dtype=object))
    flat_ranks = np.fromiter((r for seated in ranks for r in seated), np.int64, len(names))
    mu, sigma, hmu, hsigma = rate_codes(sizes, codes, flat_ranks, len(bots), settings or RatingSettings(), history)
    return Ratings(list(bots), np.array(mu), np.array(sigma), hmu, hsigma)


def rate_codes(sizes: np.ndarray, seat_bots: np.ndarray, seat_ranks: np.ndarray, n_bots: int,
               settings: RatingSettings, history: bool, ratings: tuple[list[float], list[float]] | None = None,
               games_before: int = 0):
    """The rating loop over flattened games: final (mu, sigma) lists per bot code, and the history.

    `ratings`: (mu, sigma) lists by bot code to go on from, updated in place (and extended with new bots'
    initial ratings), so that games fed in several calls are rated as one sequence; `games_before`: the
    games of the earlier calls, to number a failing game within the whole sequence."""
    if len(sizes) and sizes.min() < 2:
        raise ValueError("every game needs at least two players")
    # The package would rate a bot seated twice as two players and keep one of them: refuse it.
    seat_keys = np.repeat(np.arange(len(sizes)), sizes) * max(n_bots, 1) + seat_bots
    if len(np.unique(seat_keys)) != len(seat_keys):
        raise ValueError("a bot sits more than once at one game")
    env = settings.env()
    margin = trueskill.calc_draw_margin(settings.draw_probability, 2, env)
    tau, beta2 = env.tau, env.beta ** 2
    tau2, two_beta2 = tau * tau, 2 * beta2
    vw = None if settings.backend is None else _make_vw(env.cdf, env.pdf)
    # Only the default backend's math is inlined; others take the op-by-op path for every game. So does a
    # table with a (near-)zero draw margin. draw_probability 0 gives margin 5.3e-8 beta (the package's
    # ppf(0.5) is 3.8e-8, not 0), and a draw's v and w then come from cdf(a) - cdf(b) of two cdfs about
    # 1e-8 apart near 0.5: rounding noise (w lands anywhere in about [-0.5, 1], not near 1 as it should). A
    # game of three or more seats with such a draw loops on that noise for all its 10 rounds, so a last-bit
    # difference in its input ratings -- which the closed form leaves, 1e-16 after a win, 1e-8 after such a
    # draw -- comes out 1e-7 to 0.1 sigma away. Only the package's operations, bit for bit, reproduce it.
    # (From 1e-3 on the closed form stays within 1e-11 sigma of the package, even with beta = sigma / 50.)
    closed_form = settings.backend is None and settings.draw_probability >= CLOSED_FORM_MIN_DRAW_PROBABILITY
    two = 2 if closed_form else -1
    offsets = np.cumsum(sizes) - sizes
    # Two-seat games: sign +1 when seat 0 ranks better, -1 when seat 1 does, 0 for a draw.
    # (Lists of small ints only: CPython shares those objects, so a million games cost 8 bytes an entry.)
    signs = np.sign(seat_ranks[offsets + 1] - seat_ranks[offsets]).tolist()
    first, second = seat_bots[offsets].tolist(), seat_bots[offsets + 1].tolist()
    bots_list, ranks_list = seat_bots.tolist(), seat_ranks.tolist()
    mu0, sigma0 = _as_rating(float(settings.mu), float(settings.sigma))  # as env.create_rating() reads
    mu, sg = ratings if ratings is not None else ([], [])
    mu += [mu0] * (n_bots - len(mu))
    sg += [sigma0] * (n_bots - len(sg))
    hmu = array("d", bytes(8 * len(bots_list))) if history else None  # 8 bytes a float, as fast as a list
    hsg = array("d", bytes(8 * len(bots_list))) if history else None
    exp, sqrt, sqrt2, k_pdf, cdf = math.exp, math.sqrt, _SQRT2, _INV_SQRT_2PI, _cdf
    off = following = 0
    try:
        for n, a, b, sgn in zip(sizes.tolist(), first, second, signs, strict=True):
            off, following = following, following + n
            if n == two:
                m0, s0, m1, s1 = mu[a], sg[a], mu[b], sg[b]
                var0, var1 = s0 * s0 + tau2, s1 * s1 + tau2
                c2 = var0 + var1 + two_beta2
                c = sqrt(c2)
                eps = margin / c
                if sgn:
                    # v_win, w_win at x = t - eps, with the package's erfc inlined
                    x = sgn * (m0 - m1) / c - eps
                    u = -x / sqrt2
                    z = u if u >= 0 else -u
                    t = 1. / (1. + z / 2.)
                    r = t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
                        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
                            -0.82215223 + t * 0.17087277)))))))))
                    phi = 0.5 * (2. - r if u < 0 else r)  # cdf(x)
                    v = k_pdf * exp(-(x ** 2 / 2)) / phi if phi else -x
                    w = v * (v + x)
                    d = sgn * v / c
                else:
                    # v_draw, w_draw on the interval [-eps, eps] around t
                    t = (m0 - m1) / c
                    at = t if t >= 0 else -t
                    lo, hi = -eps - at, eps - at
                    denom = cdf(hi) - cdf(lo)  # draws are the rarer case: no need to inline erfc twice
                    if denom:
                        pdf_hi, pdf_lo = k_pdf * exp(-(hi ** 2 / 2)), k_pdf * exp(-(lo ** 2 / 2))
                        v = (pdf_lo - pdf_hi) / denom
                        w = v ** 2 + (hi * pdf_hi - lo * pdf_lo) / denom
                        d = (-v if t < 0 else v) / c
                    else:
                        w = -1.0  # let the factor graph raise exactly as the package does
                if 0 < w < 1:
                    mu[a] = m0 + var0 * d
                    mu[b] = m1 - var1 * d
                    s0 = sg[a] = sqrt(var0 * (1. - var0 / c2 * w))
                    s1 = sg[b] = sqrt(var1 * (1. - var1 / c2 * w))
                    if hmu is not None:
                        hmu[off], hmu[off + 1] = mu[a], mu[b]
                        hsg[off], hsg[off + 1] = s0, s1
                    continue
                # numerically hopeless (a huge upset): the op-by-op path gives the package's outcome
            ids = bots_list[off:off + n]
            rk = ranks_list[off:off + n]
            order = sorted(range(n), key=rk.__getitem__)  # stable, as the package's sort by rank
            new_mu, new_sigma = _rate_graph([mu[ids[i]] for i in order], [sg[ids[i]] for i in order],
                                            [rk[order[j]] == rk[order[j + 1]] for j in range(n - 1)],
                                            margin, tau, beta2, vw)
            for i, m, s in zip(order, new_mu, new_sigma, strict=True):
                mu[ids[i]], sg[ids[i]] = m, s
                if hmu is not None:
                    hmu[off + i], hsg[off + i] = m, s
    except (FloatingPointError, ZeroDivisionError, ValueError) as error:
        game = games_before + int(np.searchsorted(offsets, off, side="right")) - 1
        raise type(error)(f"game {game} of the table: {error}") from error
    if hmu is not None:
        return mu, sg, np.frombuffer(hmu, dtype=np.float64), np.frombuffer(hsg, dtype=np.float64)
    return mu, sg, None, None


