"""Ratings of a run: TrueSkill (batch and online), deal-clustered statistics, tiers and summaries."""

from arena.config import RatingSettings
from arena.ratings.online import Ratings, rate_games
from arena.ratings.tables import (
    TABLE_COLUMNS,
    VariantRatings,
    VariantSummary,
    pairwise_matrix,
    rate_results,
    seat_advantage,
    summaries,
    wilson_interval,
)

__all__ = ["TABLE_COLUMNS", "RatingSettings", "Ratings", "VariantRatings", "VariantSummary", "pairwise_matrix",
           "rate_games", "rate_results", "seat_advantage", "summaries", "wilson_interval"]
