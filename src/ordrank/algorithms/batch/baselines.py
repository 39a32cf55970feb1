"""The two baselines PRank is compared with (Crammer & Singer, NIPS 2001), as batch learners:
regression on the rank, rounded; and nominal multiclass classification, ignoring the order."""
from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.svm import SVC, SVR
from sklearn.utils._param_validation import HasMethods

from ordrank.algorithms._ordinal import OrdinalEstimator


class RoundedRegression(OrdinalEstimator):
    r"""Regress the rank 1..K as a real number, then round: :math:`\hat y = \min(K, \max(1,
    \lfloor s(x) + 1/2 \rfloor))` (halves round up).

    Parameters
    ----------
    regressor : regressor, default=None
        Any scikit-learn regressor (cloned in ``fit``); None means ``SVR()``. Pass it explicitly to
        tune it, e.g. ``GridSearchCV(RoundedRegression(SVR()), {"regressor__C": [...]})``.

    Attributes
    ----------
    estimator_ : regressor
        The fitted regressor of the ranks.
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order.
    """

    _parameter_constraints: dict = {"regressor": [HasMethods(["fit", "predict"]), None]}

    def __init__(self, regressor=None):
        self.regressor = regressor

    def fit(self, X, y):
        self._validate_params()
        X, ranks = self._fit_data(X, y)  # classes_ in rank order (see _ordinal)
        self.estimator_ = clone(SVR() if self.regressor is None else self.regressor)
        self.estimator_.fit(X, ranks.astype(np.float64))
        return self

    def _predict_ranks(self, X):
        s = np.asarray(self.estimator_.predict(X), dtype=np.float64).ravel()
        return np.clip(np.floor(s + 0.5), 1, self.n_ranks_).astype(np.int64)


class NominalClassification(OrdinalEstimator):
    """Multiclass classification of the ranks 1..K as unordered classes.

    Parameters
    ----------
    classifier : classifier, default=None
        Any scikit-learn multiclass classifier (cloned in ``fit``); None means ``SVC()`` (LIBSVM,
        one-vs-one). Pass it explicitly to tune it (``classifier__C``).

    Attributes
    ----------
    estimator_ : classifier
        The fitted classifier of the ranks (its classes are the ranks 1..K).
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order.
    """

    _parameter_constraints: dict = {"classifier": [HasMethods(["fit", "predict"]), None]}

    def __init__(self, classifier=None):
        self.classifier = classifier

    def fit(self, X, y):
        self._validate_params()
        X, ranks = self._fit_data(X, y)  # classes_ in rank order (see _ordinal)
        self.estimator_ = clone(SVC() if self.classifier is None else self.classifier)
        self.estimator_.fit(X, ranks)
        return self

    def _predict_ranks(self, X):
        return np.asarray(self.estimator_.predict(X), dtype=np.int64)
