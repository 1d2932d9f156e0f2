"""Misfit: where one number per bot does not predict what two bots' shared tables saw.

The TrueSkill model predicts, for two bots at one table, the chance that one ranks above the other from their
ratings alone. Where tablemates change a bot's results (docs/numbers.md, "Company"), or the game is not
transitive, the record of a pair that shared many games can stand far from that prediction; the table names such
pairs rather than staying silent.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from arena.config import RatingSettings

MISFIT_GAMES = 200
"""Games two bots must have shared before their record is held against what the ratings predict."""
MISFIT_MARGIN = 0.05
"""How far (in the chance of ranking above) a prediction must miss the record's interval to be called a misfit."""


def predicted_above(mu_a, mu_b, sigma_a, sigma_b, settings: RatingSettings):
    """The TrueSkill model's chance that a ranks above b at a table both sit at, a draw counting half: their
    performances differ by N(mu_a - mu_b, 2 beta² + sigma_a² + sigma_b²), a draw within the draw margin."""
    import trueskill
    from scipy import special

    margin = trueskill.calc_draw_margin(settings.draw_probability, 2, settings.env())
    spread = np.sqrt(2 * settings.beta ** 2 + np.square(sigma_a) + np.square(sigma_b))
    above = special.ndtr((np.subtract(mu_a, mu_b) - margin) / spread)
    below = special.ndtr((np.subtract(mu_b, mu_a) - margin) / spread)
    return above + (1 - above - below) / 2


def misfits(pairs: pd.DataFrame, table: pd.DataFrame, settings: RatingSettings, most: int = 5) -> list[str]:
    """The pairs (each once, the higher in the table first) that shared at least MISFIT_GAMES games and whose record
    there ("ranked above", its deal-clustered interval) the ratings' prediction misses by MISFIT_MARGIN or more,
    the worst first: where one number per bot does not fit what the tables saw."""
    if settings.method != "batch" or pairs.empty:
        return []
    rows = table.set_index("bot")
    place = {bot: i for i, bot in enumerate(table["bot"])}
    shared = pairs[(pairs["games"] >= MISFIT_GAMES)
                   & (pairs["bot"].map(place) < pairs["opponent"].map(place))]
    if shared.empty:
        return []
    a, b = rows.loc[shared["bot"]], rows.loc[shared["opponent"]]
    predicted = predicted_above(a["mu"].to_numpy(), b["mu"].to_numpy(), a["sigma"].to_numpy(), b["sigma"].to_numpy(),
                                settings)
    lo, hi = shared["win_rate_lo"].to_numpy(), shared["win_rate_hi"].to_numpy()
    miss = np.maximum(lo - predicted, predicted - hi)
    found = [(float(m), f"{r.bot} above {r.opponent}: predicted {p:.2f}, seen {r.win_rate:.2f} [{r.win_rate_lo:.2f}, "
              f"{r.win_rate_hi:.2f}] in {int(r.games):,} games")
             for m, p, r in zip(miss, predicted, shared.itertuples(index=False), strict=True) if m >= MISFIT_MARGIN]
    return [text for _, text in sorted(found, key=lambda f: -f[0])[:most]]
