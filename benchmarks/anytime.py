#!/usr/bin/env python3
"""How many games a pair of a league needs to settle under the anytime-valid rule, by the confidence sequence's mixing
parameter and the way a tie is read, simulated from a known truth.

    .venv/bin/python benchmarks/anytime.py [--runs 4000] [--seed 53]

A pair's difference is estimated with a Gaussian error whose standard error falls as 1 / sqrt(games): `--scale` /
sqrt(games), looked at every `--step` games, at most `--looks` times (the defaults: a look every 24 games, as a
three-player league's round of two tables of four deals in three rotations, and an error of 0.14 mu at 2,700
games). For each true difference (0: twins; 0.25: inside the tie margin of 0.5; 0.5: at it; 1 and 2 mu: separated)
it prints the mean games to settle (censored at the last look) of the rule
`arena.league.matchmaker.variant_look` applies (settled when the interval excludes zero, or lies within
+-tie_margin), with the mixing parameter MIXTURE_SE of `arena.ratings.looks.anytime_halfwidth` at each value of
`--mixtures`, and two ways of reading a tie: the same 95% interval within the margin (the rule), and two one-sided
anytime bounds at 95% each (an equivalence test's reading, a 90.2% interval). Beside them, how often twins were called
apart, and a pair at the margin called a tie, at any look: the errors each must keep at or below 5%. The games scale
with `--scale` squared; their ratios across mixing parameters do not.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.special import ndtr

from arena.ratings.looks import anytime_halfwidth

TRUTHS = (0.0, 0.25, 0.5, 1.0, 2.0)
ALPHA = 0.05
TIE_MARGIN = 0.5


def one_sided_alpha(alpha: float) -> float:
    """The two-sided level whose bounds each hold with probability 1 - alpha at every look: the one-sided normal mixture
    martingale (its mixing half-normal) is 2 Phi(S / sqrt(t + rho)) times the two-sided one, and that factor is at
    least 2 Phi(sqrt(2 log(1 / (2 alpha)))) on the boundary (Ville's inequality on the one-sided martingale)."""
    return 2 * alpha * float(ndtr(np.sqrt(2 * np.log(1 / (2 * alpha)))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--step", type=int, default=24, help="games between looks")
    parser.add_argument("--looks", type=int, default=1000)
    parser.add_argument("--scale", type=float, default=7.3, help="the error of the difference times sqrt(games)")
    parser.add_argument("--mixtures", type=float, nargs="+", default=[0.2, 0.3, 0.4, 0.5, 0.7, 1.0])
    args = parser.parse_args()
    games = np.arange(1, args.looks + 1) * args.step
    se = args.scale / np.sqrt(games)
    walk = np.cumsum(np.random.default_rng(args.seed).standard_normal((args.runs, args.looks)), axis=1)
    noise = args.scale * walk * np.sqrt(args.step) / games  # the error of the running mean, the same for every truth
    tie_alpha = one_sided_alpha(ALPHA)
    print(f"mean games to settle (of {args.runs:,} runs, at most {games[-1]:,}); errors at any look; "
          f"one-sided ties at a two-sided level of {1 - tie_alpha:.4f}")
    print("| MIXTURE_SE | ties read on | " + " | ".join(f"difference {t:g}" for t in TRUTHS)
          + " | twins called apart | a pair at the margin called a tie |")
    print("|---:|---|" + "---:|" * (len(TRUTHS) + 2))
    for mixture in args.mixtures:
        half = anytime_halfwidth(se, 1 - ALPHA, mixture)
        one_sided = anytime_halfwidth(se, 1 - tie_alpha, mixture)
        for reading, tie_half in (("the 95% interval", half), ("two one-sided 95% bounds", one_sided)):
            cells, errors = [], {}
            for truth in TRUTHS:
                diff = truth + noise
                apart = np.abs(diff) - half > 0
                tie = np.abs(diff) + tie_half <= TIE_MARGIN
                settled = apart | tie
                first = np.where(settled.any(axis=1), settled.argmax(axis=1), args.looks - 1)
                cells.append(f"{games[first].mean():,.0f}")
                errors[truth] = (apart.any(axis=1).mean(), tie.any(axis=1).mean())
            print(f"| {mixture:g} | {reading} | " + " | ".join(cells)
                  + f" | {errors[0.0][0]:.1%} | {errors[TIE_MARGIN][1]:.1%} |")


if __name__ == "__main__":
    main()
