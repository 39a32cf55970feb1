"""Learning to rank from queries: estimators taking ``fit(X, y, qid=...)``."""
from ordrank.algorithms.ranking._base import RankingEstimator
from ordrank.algorithms.ranking.ranknet import RankNet
from ordrank.algorithms.ranking.ranksvm import RankSVM

__all__ = ["RankingEstimator", "RankNet", "RankSVM"]
