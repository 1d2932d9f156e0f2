"""Ratings of a run: TrueSkill (batch and online), deal-clustered statistics, tiers and summaries."""

from arena.config import RatingSettings
from arena.ratings.online import Ratings, rate_games
from arena.ratings.tables import PAIR_COLUMNS, TABLE_COLUMNS, VariantRatings, csv_frames, rate_results

__all__ = ["PAIR_COLUMNS", "TABLE_COLUMNS", "RatingSettings", "Ratings", "VariantRatings", "csv_frames", "rate_games",
           "rate_results"]
