"""Metrics: ordinal losses on ranks 1..k (:mod:`.ordinal`) and ranking metrics per query
(:mod:`.ranking`)."""
from ordrank.metrics.ordinal import (
    dcg_discounts,
    gains_and_ideal_dcg,
    mean_absolute_error,
    ndcg,
    ndcg_loss,
    rank_loss,
    time_averaged,
)
from ordrank.metrics.ranking import ndcg_at_k

__all__ = ["rank_loss", "mean_absolute_error", "time_averaged", "dcg_discounts", "gains_and_ideal_dcg",
           "ndcg", "ndcg_loss", "ndcg_at_k"]
