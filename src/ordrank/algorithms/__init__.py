"""Learners, each a scikit-learn estimator in a module of its own (math in its docstring).

``online/``: PRank and its paper's baselines (``partial_fit``). ``structured/``: the Predtron
framework and its instances (subset ranking, ordinal regression, classification). ``batch/``:
SVOR (cvxpy), the reduction to binary classification, ordered logit/probit and the
nominal/regression baselines — imported on first use, since they pull in cvxpy and statsmodels.
"""
from importlib import import_module

from ordrank.algorithms._ordinal import FitFailed, OrdinalEstimator
from ordrank.algorithms.online import MulticlassPerceptron, PRank, WidrowHoff
from ordrank.algorithms.structured import PredtronClassifier, PredtronOrdinal, PredtronRanker

_BATCH = {
    "SVOR": "svor",
    "OrdinalReduction": "reduction", "ReductionSVM": "reduction",
    "OrderedRegression": "ordered",
    "RoundedRegression": "baselines", "NominalClassification": "baselines",
}

__all__ = ["PRank", "MulticlassPerceptron", "WidrowHoff", "PredtronRanker", "PredtronOrdinal",
           "PredtronClassifier", "OrdinalEstimator", "FitFailed", *_BATCH]


def __getattr__(name):
    if name in _BATCH:
        return getattr(import_module(f"ordrank.algorithms.batch.{_BATCH[name]}"), name)
    raise AttributeError(f"module 'ordrank.algorithms' has no attribute {name!r}")
