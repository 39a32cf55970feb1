"""Metrics: ordinal losses on ranks 1..k (:mod:`.ordinal`), ranking metrics per query in the
standard convention (:mod:`.ranking`) and in LETOR's official one (:mod:`.letor`), and scorers by
name for configs and model selection (:mod:`.scorers`)."""
from ordrank.metrics.ordinal import (
    SCORINGS,
    mean_absolute_error,
    mean_zero_one_error,
    rank_loss,
    time_averaged,
    zero_one_error,
)
from ordrank.metrics.ranking import (
    average_precision,
    dcg_discounts,
    err_at_k,
    gains_and_ideal_dcg,
    kendall_tau,
    mean_over_queries,
    ndcg,
    ndcg_at_k,
    ndcg_loss,
    pairwise_accuracy,
    precision_at_k,
)
from ordrank.metrics.scorers import make_ranking_scorer, ranking_metric

__all__ = ["rank_loss", "mean_absolute_error", "zero_one_error", "mean_zero_one_error",
           "time_averaged", "SCORINGS", "dcg_discounts", "gains_and_ideal_dcg", "ndcg", "ndcg_loss",
           "ndcg_at_k", "precision_at_k", "average_precision", "err_at_k", "kendall_tau",
           "pairwise_accuracy", "mean_over_queries", "ranking_metric", "make_ranking_scorer"]
