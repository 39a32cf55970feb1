"""Ranking metrics per query, then averaged. (First cut: standard NDCG@k; the package grows here.)"""
from __future__ import annotations

import numpy as np

from ordrank.queries import check_qid, query_slices


def ndcg_at_k(y_true, y_score, qid=None, k: int | None = 10) -> np.ndarray:
    """Standard (trec_eval / ranx) NDCG@k of each query: gain 2^rel − 1, discount 1/log2(1 + rank).

    Documents are ranked by decreasing score (ties: row order). A query without a relevant document
    gets NaN (trec_eval skips such queries). One value per query, in order.
    """
    y_true = np.asarray(y_true, dtype=np.float64)
    y_score = np.asarray(y_score, dtype=np.float64)
    qid = check_qid(qid, len(y_true))
    values = []
    for rows in query_slices(qid):
        rel, score = y_true[rows], y_score[rows]
        cut = len(rel) if k is None else min(k, len(rel))
        discounts = 1.0 / np.log2(np.arange(2, cut + 2))
        ranked = rel[np.argsort(-score, kind="stable")][:cut]
        ideal = np.sort(rel)[::-1][:cut]
        idcg = np.sum((np.exp2(ideal) - 1.0) * discounts)
        dcg = np.sum((np.exp2(ranked) - 1.0) * discounts)
        values.append(dcg / idcg if idcg > 0 else np.nan)
    return np.asarray(values)
