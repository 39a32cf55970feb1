"""Learning to rank from queries: estimators taking ``fit(X, y, qid=...)``."""
from ordrank.algorithms.ranking._base import RankingEstimator
from ordrank.algorithms.ranking.latent import OrdinalRanker
from ordrank.algorithms.ranking.peers import LightGBMRanker, XGBoostRanker
from ordrank.algorithms.ranking.rankboost import RankBoost, RankBoostOrdinal
from ordrank.algorithms.ranking.regression import LeastSquaresRanker

__all__ = ["RankingEstimator", "OrdinalRanker", "LeastSquaresRanker", "LightGBMRanker",
           "XGBoostRanker", "RankBoost", "RankBoostOrdinal"]
