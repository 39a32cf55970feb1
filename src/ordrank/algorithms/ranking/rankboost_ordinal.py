"""RankBoost on ordinal labels, then the cut points that minimise the training absolute cost."""
from __future__ import annotations

import numpy as np

from ordrank.algorithms._ordinal import OrdinalEstimator
from ordrank.algorithms.ranking._thresholds import absolute_cost_thresholds
from ordrank.algorithms.ranking.rankboost import RankBoost


class RankBoostOrdinal(OrdinalEstimator):
    r"""RankBoost on ordinal labels (all pairs with different ranks, one query), then k − 1 cut points
    on its score fitted on the training set to minimise the absolute cost.

    .. math:: \hat y(x) = 1 + \#\{j : H(x) > b_j\}, \qquad
              b = \arg\min_{b_1 \le \dots \le b_{k-1}} \sum_i |\hat y(x_i) - y_i|,

    found exactly by a dynamic program over the sorted training scores
    (:func:`~ordrank.algorithms.ranking._thresholds.absolute_cost_thresholds`, O(n·k)). RankBoost
    learns an order only; the batch benchmark scores ranks by their mean absolute error, so the
    comparison with Reduction-Boost needs cut points, and these are the ones that minimise that very
    cost on the training set (no further model; ties in H keep one rank).

    Parameters
    ----------
    n_estimators, n_thresholds : as :class:`RankBoost`.

    Attributes
    ----------
    ranker_ : RankBoost
        The fitted ranker (its ``estimators_``, ``alphas_``, ``train_loss_``...).
    thresholds_ : ndarray of shape (n_ranks_ − 1,)
        b, non-decreasing (±inf when a rank is empty on the training set).
    train_cost_ : float
        Σ_i |ŷ(x_i) − y_i| on the training set (in ranks), the DP's minimum.
    n_iter_ : int
    classes_ : ndarray
    n_features_in_ : int
    """

    _parameter_constraints: dict = {k: RankBoost._parameter_constraints[k]
                                    for k in ("n_estimators", "n_thresholds")}

    def __init__(self, n_estimators=100, n_thresholds=None):
        self.n_estimators = n_estimators
        self.n_thresholds = n_thresholds

    def fit(self, X, y):
        self._validate_params()
        X, ranks = self._fit_data(X, y)
        self.ranker_ = RankBoost(self.n_estimators, self.n_thresholds).fit(X, ranks)
        self.n_iter_ = self.ranker_.n_iter_
        self.thresholds_, self.train_cost_ = absolute_cost_thresholds(
            self.ranker_._scores(X), ranks, self.n_ranks_)
        return self

    def decision_function(self, X):
        """The ensemble's score H(x), one real per row (ranks come from cutting it at ``thresholds_``)."""
        X = self._checked(X)
        return self.ranker_._scores(X)

    def _predict_ranks(self, X):
        scores = self.ranker_._scores(X)
        return 1 + np.sum(scores[:, None] > self.thresholds_[None, :], axis=1)
