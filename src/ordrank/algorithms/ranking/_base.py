"""What every ranking learner shares: ``fit(X, y, qid)``, scores, and ``score`` = mean NDCG@10.

``y`` is graded relevance (finite numbers ≥ 0; larger = more relevant), ``qid`` each row's query
(:mod:`ordrank.queries`: rows of a query contiguous; ``None`` = one query, the ordinal use).
``decision_function(X)`` gives one score per row (larger = ranked higher); ``predict`` gives the same
scores, as LightGBM's and XGBoost's rankers do. ``qid`` is requested by default for ``fit`` and
``score`` through scikit-learn's metadata routing, so with ``sklearn.set_config(enable_metadata_routing
=True)`` a ``Pipeline`` or ``GridSearchCV(..., cv=GroupKFold())`` passes it through:
``search.fit(X, y, qid=qid, groups=qid)``. ``score`` without ``qid`` raises on a ranker fitted with
``qid``: without routing, ``GridSearchCV`` passes ``qid`` to ``fit`` but not to ``score``, which would
score a whole validation fold as one query (for one query, pass ``qid=np.zeros(len(y))``). A ranker
fitted without ``qid`` (one query, the ordinal use) scores without it as one query, as scikit-learn's
own estimator checks call ``fit(X, y)`` then ``score(X, y)``.

Numbers too large for float64 arithmetic are refused before fitting (:func:`check_scale`), and every
iterative learner that stops at ``max_iter`` short of its tolerance warns
(:func:`warn_not_converged`, a ``ConvergenceWarning``).
"""
from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ordrank.queries import check_qid

SCALE_LIMIT = 1e150  # a magnitude whose square (and a few products) stays finite in float64


def check_scale(owner: str, scale: float, what: str, fix: str) -> None:
    """Refuse a problem whose ``scale`` (a bound on the magnitudes the solver forms, whose square
    enters it) is beyond :data:`SCALE_LIMIT`: the fit would overflow float64 and return a silent
    all-zero or NaN model. ``what`` names the quantity, ``fix`` what to change."""
    if not np.isfinite(scale) or scale > SCALE_LIMIT:
        raise ValueError(f"{owner}: {what} is {scale:.3g}, beyond {SCALE_LIMIT:.0e}: the fit would "
                         f"overflow float64 (its square enters the solver); {fix}")


def max_abs(X) -> float:
    """The largest |entry| of X (0 for an empty array), without overflow."""
    X = np.asarray(X)  # max and −min: no |X| copy of a large matrix
    return float(max(np.max(X, initial=0.0), -np.min(X, initial=0.0)))


def warn_not_converged(owner, max_iter: int, detail: str) -> None:
    """The ConvergenceWarning every iterative ranking learner gives when it stops short."""
    warnings.warn(f"{owner}: max_iter={max_iter} reached {detail}; raise max_iter or tol",
                  ConvergenceWarning, stacklevel=3)


def numeric_labels(y, owner: str):
    """``y`` unchanged if numeric, else a ValueError naming the first row that is not a number
    (string labels would otherwise fail inside numpy with "ufunc 'isfinite' not supported")."""
    array = np.asarray(y)
    if array.dtype.kind in "iufbc":  # complex: scikit-learn's validation refuses it by name
        return y
    for row, value in enumerate(array.ravel()):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)) or \
                isinstance(value, (complex, np.complexfloating)):
            raise ValueError(f"{owner}: y must hold numeric relevance grades (larger = more "
                             f"relevant); row {row} has {_plain(value)!r} (dtype {array.dtype})")
    return array.astype(np.float64)


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


class RankingEstimator(BaseEstimator):
    """Base of the ranking learners: subclasses implement ``fit`` and ``_scores(X)``."""

    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}
    _dtypes = [np.float64]  # X's dtypes kept as given (a learner with float32 arithmetic adds np.float32)

    def _validate_queries(self, X, y, qid):
        """``(X, y, qid)`` checked: X finite 2-D (float64, or one of ``_dtypes`` kept as given), y finite
        1-D, qid contiguous ids."""
        y = numeric_labels(y, type(self).__name__)
        X, y = validate_data(self, X, y, dtype=self._dtypes, y_numeric=True)
        self._fitted_with_qid = qid is not None
        if not np.all(np.isfinite(y)):
            row = int(np.flatnonzero(~np.isfinite(y))[0])
            raise ValueError(f"{type(self).__name__}: y has a non-finite relevance at row {row}")
        return X, np.asarray(y, dtype=np.float64), check_qid(qid, len(y))

    def _scores(self, X) -> np.ndarray:
        raise NotImplementedError

    def decision_function(self, X) -> np.ndarray:
        """One score per row; within a query, documents are ranked by decreasing score."""
        check_is_fitted(self)
        return self._scores(validate_data(self, X, dtype=self._dtypes, reset=False))

    def predict(self, X) -> np.ndarray:
        """The scores (as LightGBM's and XGBoost's rankers); sort them per query to rank."""
        return self.decision_function(X)

    def score(self, X, y, qid=None) -> float:
        """Mean standard NDCG@10 over the queries (trec_eval's and ranx's convention: a query without a
        relevant document scores 0 and counts in the mean). Higher is better.

        ``qid`` is required when the ranker was fitted with ``qid`` (a ValueError without it, as
        :func:`~ordrank.metrics.make_ranking_scorer`): scikit-learn's model selection without
        metadata routing passes ``qid`` to ``fit`` but calls ``score(X, y)``, which would score each
        validation fold as a single query. One query: ``qid=np.zeros(len(y))``. A ranker fitted
        without ``qid`` (every row one query) scores ``score(X, y)`` as one query too."""
        from ordrank.metrics.ranking import ndcg_at_k

        if qid is None and getattr(self, "_fitted_with_qid", True):
            raise ValueError(
                f"{type(self).__name__}.score received no qid, though fitted with one: it would score every "
                "row as one query; "
                "pass qid=... (one query: qid=np.zeros(len(y))); in GridSearchCV or cross_validate, "
                "call sklearn.set_config(enable_metadata_routing=True) and pass qid=... and "
                "groups=qid to fit, or use scoring=ordrank.metrics.make_ranking_scorer('ndcg@10')")
        return float(np.mean(ndcg_at_k(y, self.decision_function(X), check_qid(qid, len(y)), k=10)))
