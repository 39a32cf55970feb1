"""What every ranking learner shares: ``fit(X, y, qid)``, scores, and ``score`` = mean NDCG@10.

``y`` is graded relevance (finite numbers ≥ 0; larger = more relevant), ``qid`` each row's query
(:mod:`ordrank.queries`: rows of a query contiguous; ``None`` = one query, the ordinal use).
``decision_function(X)`` gives one score per row (larger = ranked higher); ``predict`` gives the same
scores, as LightGBM's and XGBoost's rankers do. ``qid`` is requested by default for ``fit`` and
``score`` through scikit-learn's metadata routing, so with ``sklearn.set_config(enable_metadata_routing
=True)`` a ``Pipeline`` or ``GridSearchCV(..., cv=GroupKFold())`` passes it through:
``search.fit(X, y, qid=qid, groups=qid)``.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from ordrank.queries import check_qid


class RankingEstimator(BaseEstimator):
    """Base of the ranking learners: subclasses implement ``fit`` and ``_scores(X)``."""

    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    def _validate_queries(self, X, y, qid):
        """``(X, y, qid)`` checked: X float64 finite 2-D, y finite 1-D, qid contiguous ids."""
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        if not np.all(np.isfinite(y)):
            row = int(np.flatnonzero(~np.isfinite(y))[0])
            raise ValueError(f"{type(self).__name__}: y has a non-finite relevance at row {row}")
        return X, np.asarray(y, dtype=np.float64), check_qid(qid, len(y))

    def _scores(self, X) -> np.ndarray:
        raise NotImplementedError

    def decision_function(self, X) -> np.ndarray:
        """One score per row; within a query, documents are ranked by decreasing score."""
        check_is_fitted(self)
        return self._scores(validate_data(self, X, dtype=np.float64, reset=False))

    def predict(self, X) -> np.ndarray:
        """The scores (as LightGBM's and XGBoost's rankers); sort them per query to rank."""
        return self.decision_function(X)

    def score(self, X, y, qid=None) -> float:
        """Mean standard NDCG@10 over the queries (trec_eval's and ranx's convention: a query without a
        relevant document scores 0 and counts in the mean). Higher is better."""
        from ordrank.metrics.ranking import ndcg_at_k

        return float(np.mean(ndcg_at_k(y, self.decision_function(X), check_qid(qid, len(y)), k=10)))
