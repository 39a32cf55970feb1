"""Bad inputs of the ranking metrics and scorers (rows of the table in tests/test_bad_inputs.py)."""
import numpy as np

from ordrank.metrics import letor, ndcg_at_k, precision_at_k, ranking_metric

from conftest import Case

Y = np.array([2, 0, 1, 0])
S = np.array([0.3, 0.1, 0.9, 0.4])


def call(function, *args, **kwargs):
    """A trigger: ``function(*args, **kwargs)``."""
    return lambda tmp: function(*args, **kwargs)


CASES = [
    Case("metric-lengths", "`ndcg_at_k(y_true, y_score[:3], qid)` (4 labels, 3 scores)", ValueError,
         r"^ndcg_at_k: y_true has 4 entries and y_score 3$", call(ndcg_at_k, Y, S[:3], [1, 1, 2, 2])),
    Case("metric-qid-not-contiguous", "`ndcg_at_k(y_true, y_score, qid=[1, 2, 1, 2])`", ValueError,
         r"^qid: the rows of query 1 are not contiguous \(rows from 0 and again from row 2\)",
         call(ndcg_at_k, Y, S, [1, 2, 1, 2])),
    Case("metric-nan-score", "`precision_at_k(y_true, [0.3, nan, 0.9, 0.4], qid)`", ValueError,
         r"^precision_at_k: y_score has the non-finite value nan at row 1$",
         call(precision_at_k, Y, np.array([0.3, np.nan, 0.9, 0.4]), [1, 1, 2, 2])),
    Case("metric-negative-relevance", "`ndcg_at_k([2, -1, 1, 0], y_score, qid)`", ValueError,
         r"^ndcg_at_k: relevance must be >= 0; row 1 has -1$", call(ndcg_at_k, [2, -1, 1, 0], S)),
    Case("metric-letor-negative-label", "`ndcg_at_k([2, 0, -1, 0], y_score, qid, convention=\"letor\")`",
         ValueError, r"^letor ndcg_at_k: relevance must be >= 0; row 2 has -1$",
         call(ndcg_at_k, [2, 0, -1, 0], S, None, convention="letor")),
    Case("metric-letor-fractional-label", "`letor.average_precision([2, 0.5, 1, 0], y_score)`", ValueError,
         r"^letor average_precision: relevance must be an integer grade; row 1 has 0\.5$",
         call(letor.average_precision, [2, 0.5, 1, 0], S)),
    Case("metric-k-zero", "`ndcg_at_k(y_true, y_score, k=0)`", ValueError,
         r"^ndcg_at_k: k must be an integer >= 1 or None, got 0$", call(ndcg_at_k, Y, S, None, 0)),
    Case("metric-convention", "`ndcg_at_k(y_true, y_score, convention=\"trec\")`", ValueError,
         r"^convention must be one of \('standard', 'letor', 'letor4'\), got 'trec'$",
         call(ndcg_at_k, Y, S, convention="trec")),
    Case("metric-scorer-unknown", "scorer name `\"ndcg10\"`", ValueError,
         r"^unknown scorer 'ndcg10'; valid names: ndcg@<k>, ndcg, p@<k>, map, err@<k>, kendall_tau, "
         r"pairwise_accuracy, letor_ndcg@<k>, letor_p@<k>, letor_map, letor4_ndcg@<k>, letor4_p@<k>, letor4_map, "
         r"mae, zero_one \(k an integer >= 1",
         call(ranking_metric, "ndcg10")),
]
