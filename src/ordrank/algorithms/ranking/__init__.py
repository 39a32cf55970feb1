"""Learning to rank from queries: estimators taking ``fit(X, y, qid=...)``.

Pairwise: :class:`RankSVM` (the ranking SVM), :class:`RankNet` (Burges et al. 2005),
:class:`RankBoost` (Freund et al. 2003; :class:`RankBoostOrdinal` its ordinal use). Pointwise:
:class:`LeastSquaresRanker` (LETOR's regression baseline), :class:`OrdinalRanker` (any ordinal
learner ranking by its latent score). External learners: :class:`LightGBMRanker`, :class:`XGBoostRanker`.

Each is imported from its module on first use (``ordrank.algorithms.ranking.RankBoost`` imports
:mod:`.rankboost`), so importing this package (the Predtron's subset ranker does, for
:class:`RankingEstimator`) loads no ranker, no numba code and no external learner library a run does not use.
"""
from importlib import import_module

_MODULES = {
    "RankingEstimator": "_base", "OrdinalRanker": "latent", "LightGBMRanker": "external",
    "XGBoostRanker": "external", "RankBoost": "rankboost", "RankBoostOrdinal": "rankboost_ordinal",
    "RankNet": "ranknet", "RankSVM": "ranksvm", "LeastSquaresRanker": "regression",
}

__all__ = ["RankingEstimator", "RankSVM", "RankNet", "RankBoost", "RankBoostOrdinal", "OrdinalRanker",
           "LeastSquaresRanker", "LightGBMRanker", "XGBoostRanker"]


def __getattr__(name):
    if name in _MODULES:
        return getattr(import_module(f"ordrank.algorithms.ranking.{_MODULES[name]}"), name)
    raise AttributeError(f"module 'ordrank.algorithms.ranking' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_MODULES))
