"""Learning to rank from queries: estimators taking ``fit(X, y, qid=...)``."""
from ordrank.algorithms.ranking._base import RankingEstimator

__all__ = ["RankingEstimator"]
