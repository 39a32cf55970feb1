"""Scorers by name: what a config writes (``"ndcg@10"``, ``"letor_map"``, ``"mae"``, ...).

:func:`ranking_metric` gives ``metric(y_true, y_score, qid=None) -> float``; :func:`make_ranking_scorer`
wraps it as a scikit-learn scorer that requests ``qid`` through metadata routing, so that with
``sklearn.set_config(enable_metadata_routing=True)``::

    GridSearchCV(ranker, grid, scoring=make_ranking_scorer("letor_map"), cv=GroupKFold())
        .fit(X, y, qid=qid, groups=qid)

scores each validation fold query by query. Names (k an integer ≥ 1):

* standard convention (:mod:`.ranking`; mean over the queries where the metric is defined):
  ``ndcg@k``, ``ndcg`` (whole list), ``p@k``, ``map``, ``err@k``, ``kendall_tau``,
  ``pairwise_accuracy``;
* LETOR's official evaluation (:mod:`.letor`; mean over every query): ``letor_ndcg@k``,
  ``letor_p@k``, ``letor_map`` (``Eval-Score-3.0.pl``), ``letor4_ndcg@k``, ``letor4_p@k``,
  ``letor4_map`` (``Eval-Score-4.0.pl``: P@k differs on queries shorter than k);
  :func:`for_letor_version` renames the first to the second for LETOR 4.0 data;
* ordinal costs (:mod:`.ordinal`, lower is better; ``qid`` unused): ``mae``, ``zero_one``.
"""
from __future__ import annotations

import re
from functools import partial

import numpy as np
import sklearn
from sklearn.metrics import make_scorer

from ordrank.metrics import letor, ranking
from ordrank.metrics.ordinal import SCORINGS

_AT_K = {"ndcg": ranking.ndcg_at_k, "p": ranking.precision_at_k, "err": ranking.err_at_k,
         "letor_ndcg": letor.ndcg_at_k, "letor_p": letor.precision_at_k,
         "letor4_ndcg": partial(letor.ndcg_at_k, version="4.0"),
         "letor4_p": partial(letor.precision_at_k, version="4.0")}
_PLAIN = {"ndcg": partial(ranking.ndcg_at_k, k=None), "map": ranking.average_precision,
          "kendall_tau": ranking.kendall_tau, "pairwise_accuracy": ranking.pairwise_accuracy,
          "letor_map": letor.average_precision,
          "letor4_map": partial(letor.average_precision, version="4.0")}
NAMES = ("ndcg@<k>", "ndcg", "p@<k>", "map", "err@<k>", "kendall_tau", "pairwise_accuracy",
         "letor_ndcg@<k>", "letor_p@<k>", "letor_map", "letor4_ndcg@<k>", "letor4_p@<k>", "letor4_map",
         *SCORINGS)
LETOR_PREFIXES = ("letor_", "letor4_")


def for_letor_version(name: str, version: str) -> str:
    """The scorer name that evaluates as LETOR's ``Eval-Score-<version>.pl``: for ``"4.0"``,
    ``letor_<m>`` becomes ``letor4_<m>`` (other names unchanged); for ``"3.0"``, ``name`` itself."""
    letor.check_version(version, "for_letor_version")
    if version == "4.0" and name.startswith("letor_"):
        return "letor4_" + name[len("letor_"):]
    return name


def _per_query(name: str):
    """The per-query function a ranking name denotes, or None."""
    found = re.fullmatch(r"([a-z0-9_]+)@([1-9][0-9]*)", name)
    if found and found.group(1) in _AT_K:
        return partial(_AT_K[found.group(1)], k=int(found.group(2)))
    return _PLAIN.get(name)


def greater_is_better(name: str) -> bool:
    """False for the ordinal costs (``mae``, ``zero_one``), True for the ranking metrics."""
    ranking_metric(name)
    return name not in SCORINGS


def ranking_metric(name: str):
    """``metric(y_true, y_score, qid=None) -> float`` for a scorer name; ValueError listing the
    valid names for an unknown one."""
    if not isinstance(name, str):
        raise ValueError(f"a scorer name must be a string, got {name!r}")
    if name in SCORINGS:
        cost = SCORINGS[name]

        def ordinal(y_true, y_score, qid=None):
            return cost(y_true, y_score)
        ordinal.__name__ = name
        return ordinal
    per_query = _per_query(name)
    if per_query is None:
        raise ValueError(f"unknown scorer {name!r}; valid names: {', '.join(NAMES)} "
                         f"(k an integer >= 1, e.g. 'ndcg@10')")
    average = np.mean if name.startswith(LETOR_PREFIXES) else ranking.mean_over_queries

    def metric(y_true, y_score, qid=None):
        return float(average(per_query(y_true, y_score, qid)))
    metric.__name__ = name
    return metric


def make_ranking_scorer(name: str):
    """A scikit-learn scorer for ``name`` that requests ``qid`` (metadata routing).

    Ranking scores come from ``decision_function`` (else ``predict``); the ordinal costs from
    ``predict``, negated as scikit-learn maximizes scores. A ranking scorer that receives no ``qid``
    raises (rather than score a whole fold as one query): turn metadata routing on and pass ``qid``.
    """
    metric = ranking_metric(name)
    better = greater_is_better(name)

    def score(y_true, y_pred, qid=None):
        if qid is None and better:
            raise ValueError(
                f"scorer {name!r} received no qid: call sklearn.set_config("
                f"enable_metadata_routing=True) and pass qid=... to fit/score (and groups=qid to "
                f"GroupKFold)")
        return metric(y_true, y_pred, qid)
    score.__name__ = name
    response = ("decision_function", "predict") if better else "predict"
    scorer = make_scorer(score, greater_is_better=better, response_method=response)
    with sklearn.config_context(enable_metadata_routing=True):  # the request is kept either way
        return scorer.set_score_request(qid=True)
