"""NDCG@k computed by hand, independently of ordrank.metrics, for the tests that check what a ranker's
score and a grid search over rankers report (ordrank.metrics itself is checked against ranx and
pytrec_eval in test_ranking_metrics.py)."""
import math

import numpy as np
from sklearn.base import clone


def ndcg_per_query(y, scores, qid, k=10):
    """NDCG@k of each query (in order of first appearance): documents sorted by decreasing score,
    gain 2^rel − 1, discount 1/log2(1 + rank), ideal from the labels sorted; 0 without a relevant
    document. Tied scores keep the rows' order (a stable sort), ordrank's documented convention."""
    y, scores, qid = np.asarray(y, dtype=float), np.asarray(scores, dtype=float), np.asarray(qid)
    out = []
    for q in dict.fromkeys(qid.tolist()):
        rows = np.flatnonzero(qid == q)
        ranked = y[rows][np.argsort(-scores[rows], kind="stable")]
        ideal = np.sort(y[rows])[::-1]
        dcg = sum((2 ** g - 1) / math.log2(r + 2) for r, g in enumerate(ranked[:k]))
        best = sum((2 ** g - 1) / math.log2(r + 2) for r, g in enumerate(ideal[:k]))
        out.append(dcg / best if best > 0 else 0.0)
    return np.array(out)


def mean_ndcg(y, scores, qid, k=10):
    """The mean over queries of :func:`ndcg_per_query`."""
    return float(np.mean(ndcg_per_query(y, scores, qid, k)))


def cross_validated_ndcg(estimator, X, y, qid, cv, k=10):
    """For each fold of ``cv.split(X, y, groups=qid)``: ``estimator`` fitted on the training queries
    (with their qid), NDCG@k of each test query; the mean over folds of the mean over queries (what
    GridSearchCV reports as mean_test_score when qid is routed to fit and score), and the same with
    each test fold scored as one query (what it would report if score ignored qid)."""
    per_query, one_query = [], []
    for train, test in cv.split(X, y, groups=qid):
        model = clone(estimator).fit(X[train], y[train], qid=qid[train])
        scores = model.decision_function(X[test])
        per_query.append(mean_ndcg(y[test], scores, qid[test], k))
        one_query.append(mean_ndcg(y[test], scores, np.zeros(len(test)), k))
    return float(np.mean(per_query)), float(np.mean(one_query))
