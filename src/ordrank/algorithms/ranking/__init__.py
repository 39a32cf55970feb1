"""Learning to rank from queries: estimators taking ``fit(X, y, qid=...)``.

Pairwise: :class:`RankSVM` (the ranking SVM), :class:`RankNet` (Burges et al. 2005),
:class:`RankBoost` (Freund et al. 2003; :class:`RankBoostOrdinal` its ordinal use). Pointwise:
:class:`LeastSquaresRanker` (LETOR's regression baseline), :class:`OrdinalRanker` (any ordinal
learner ranking by its latent score). Peers: :class:`LightGBMRanker`, :class:`XGBoostRanker`.
"""
from ordrank.algorithms.ranking._base import RankingEstimator
from ordrank.algorithms.ranking.latent import OrdinalRanker
from ordrank.algorithms.ranking.peers import LightGBMRanker, XGBoostRanker
from ordrank.algorithms.ranking.rankboost import RankBoost
from ordrank.algorithms.ranking.rankboost_ordinal import RankBoostOrdinal
from ordrank.algorithms.ranking.ranknet import RankNet
from ordrank.algorithms.ranking.ranksvm import RankSVM
from ordrank.algorithms.ranking.regression import LeastSquaresRanker

__all__ = ["RankingEstimator", "RankSVM", "RankNet", "RankBoost", "RankBoostOrdinal", "OrdinalRanker",
           "LeastSquaresRanker", "LightGBMRanker", "XGBoostRanker"]
