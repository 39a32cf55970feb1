r"""LETOR's "Regression" baseline: least-squares regression of the relevance label on the features."""
from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.utils._param_validation import Interval

from ordrank.algorithms.ranking._base import RankingEstimator, check_scale, max_abs


class LeastSquaresRanker(RankingEstimator):
    r"""Rank by a linear model fitted by least squares to the relevance grades (pointwise).

    .. math:: \min_{w, b}\ \sum_i (w\cdot x_i + b - y_i)^2 + \alpha \|w\|^2,
              \qquad s(x) = w\cdot x + b,

    over every document of every query at once (``qid`` is accepted, routed, and not used: the
    loss is per document). Solved by scikit-learn's :class:`~sklearn.linear_model.Ridge`; the
    default ``alpha`` is tiny, so this is ordinary least squares made well-posed when features are
    collinear or constant (as LETOR's query-normalized features can be).

    This is the "Regression" row of the LETOR 3.0 baselines (Qin, Liu, Xu & Li, "LETOR: a benchmark
    collection for research on learning to rank for information retrieval", Information Retrieval
    13(4), 2010; the LETOR 3.0 baselines page, research.microsoft.com/…/letor3baseline.aspx):
    a linear ranking function obtained by linear regression of the relevance label on the
    features, listed among the "algorithms with linear ranking function"; the page notes that the
    results were preliminary and that regression could be made more robust by adding a
    regularization term, so the published row had none. Larger ``alpha`` gives that regularized
    variant (tune it on validation MAP, as the other rows are tuned).

    Parameters
    ----------
    alpha : float, default=1e-8
        The ridge penalty α ≥ 0 on w (not on b).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        w.
    intercept_ : float
        b (it does not change any ranking).
    n_features_in_ : int
    """

    _parameter_constraints: dict = {"alpha": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, alpha=1e-8):
        self.alpha = alpha

    def fit(self, X, y, qid=None):
        """Least squares of ``y`` (the grades, as numbers) on ``X``; ``qid`` is checked, then ignored.
        Values whose squares overflow float64 (the normal equations) are refused, naming the scale."""
        self._validate_params()
        X, y, _ = self._validate_queries(X, y, qid)
        check_scale(type(self).__name__, max(max_abs(X), max_abs(y)) * np.sqrt(X.size + len(y)),
                    f"max(|x|, |y|) · √(entries) (max|x| = {max_abs(X):.3g}, max|y| = {max_abs(y):.3g})",
                    "rescale X (e.g. StandardScaler)")
        model = Ridge(alpha=self.alpha).fit(X, y)
        self.coef_ = np.asarray(model.coef_, dtype=np.float64)
        self.intercept_ = float(model.intercept_)
        return self

    def _scores(self, X):
        return X @ self.coef_ + self.intercept_
