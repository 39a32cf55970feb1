r"""The ordinal learners as rankers: documents ranked by the learner's latent real score.

An ordinal learner of a threshold model predicts a rank by cutting a real score at ordered
thresholds, :math:`\hat y = 1 + \#\{r : s(x) > b_r\}`; the score s itself orders documents, and is
the ranking function when the relevance grades are taken as the ordinal labels (the pointwise
approach to learning to rank). The learners of ordrank and their latent scores
(``decision_function``):

=====================================  ==========================================================
learner                                latent score s(x)
=====================================  ==========================================================
PRank                                  w·x
WidrowHoff                             w·x (the regressed rank)
SVOR (SVORIM, SVOREX)                  :math:`f(x) = \sum_i \beta_i K(x_i, x)`
OrderedRegression (logit, probit)      x·β
OrdinalReduction, ReductionSVM         :math:`\sum_k g(x, k)` (= (K−1) f(x) − Σθ for the SVM)
=====================================  ==========================================================

Learners whose ``decision_function`` gives one score per class — MulticlassPerceptron (W_r·x) and
PredtronOrdinal (t = W x), prototype models with no single latent axis, for more than two grades —
are refused with a ValueError, as is a learner without ``decision_function`` (RoundedRegression,
NominalClassification).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods

from ordrank.algorithms.ranking._base import RankingEstimator


def _no_latent_score(learner, detail: str) -> ValueError:
    return ValueError(f"OrdinalRanker: {type(learner).__name__} has no latent real score to rank by: "
                      f"{detail}. Use a threshold-model learner (PRank, WidrowHoff, SVOR, "
                      "OrderedRegression, OrdinalReduction, ReductionSVM)")


class OrdinalRanker(RankingEstimator):
    r"""An ordinal learner used as a ranker: fit on the grades, rank by its latent score.

    ``fit(X, y, qid)`` fits (a clone of) ``estimator`` on ``(X, y)``, the relevance grades as ordinal
    labels; ``qid`` is accepted (and routed by GridSearchCV) but not used — a pointwise learner sees
    each document alone. ``decision_function(X)`` is the learner's latent score s(x) (see the module
    docstring), one real number per row; within a query, documents are ranked by decreasing s.

    Parameters
    ----------
    estimator : ordinal learner
        Any ordrank ordinal learner whose ``decision_function`` returns one real per row (tune its
        parameters as ``estimator__C`` etc.).

    Attributes
    ----------
    estimator_ : ordinal learner
        The fitted learner.
    n_features_in_ : int

    Raises
    ------
    ValueError
        In ``fit``, for grades that are not integers, for a learner without ``decision_function``
        or whose ``decision_function`` gives more than one score per row (one per class).
    """

    _parameter_constraints: dict = {"estimator": [HasMethods(["fit"])]}

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y, qid=None):
        """Fit the ordinal learner on ``(X, y)``; ``qid`` is checked, then ignored."""
        self._validate_params()
        if not hasattr(self.estimator, "decision_function"):
            raise _no_latent_score(self.estimator, "it has no decision_function (it predicts ranks "
                                   "only)")
        X, y, _ = self._validate_queries(X, y, qid)
        fractional = np.flatnonzero(y != np.round(y))
        if fractional.size:
            row = int(fractional[0])
            raise ValueError(f"OrdinalRanker: the relevance grades are the ordinal learner's labels "
                             f"and must be integers; row {row} has {float(y[row])}")
        learner = clone(self.estimator).fit(X, y)
        shape = np.shape(learner.decision_function(X[:1]))
        if shape != (1,):
            raise _no_latent_score(learner, f"its decision_function gives {shape[-1]} scores per "
                                   f"row (one per class, shape {shape} for one row), not one")
        self.estimator_ = learner
        return self

    def _scores(self, X):
        return np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
