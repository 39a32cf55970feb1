r"""The external: LightGBM's LambdaMART and XGBoost's ranker behind ordrank's ranking API.

Thin adapters (:class:`~ordrank.algorithms.ranking.RankingEstimator`: ``fit(X, y, qid)`` → scores)
around ``lightgbm.LGBMRanker`` and ``xgboost.XGBRanker``; nothing of the learners is re-implemented.

LambdaMART (Burges, "From RankNet to LambdaRank to LambdaMART: an overview", MSR-TR-2010-82) fits
gradient-boosted regression trees to the λ-gradients of RankNet's pairwise cost, each pair weighted
by the change of NDCG its swap would make:

.. math:: \lambda_i = \sum_{j:\,(i,j)} \frac{-\sigma\,|\Delta\mathrm{NDCG}_{ij}|}
          {1 + e^{\sigma (s_i - s_j)}} - \sum_{j:\,(j,i)} \frac{-\sigma\,|\Delta\mathrm{NDCG}_{ji}|}
          {1 + e^{\sigma (s_j - s_i)}},

pairs (i, j) within a query with y_i > y_j. XGBoost's ``rank:pairwise`` is the same pairwise
logistic cost without the NDCG weight, ``rank:ndcg`` with it (LambdaMART as well).

**Labels.** Both libraries use the relevance grades as integer indices of the gain 2^y − 1: they
must be non-negative integers, at most 30 for LightGBM (its default ``label_gain``; pass your own
in ``params`` for more grades: then at most ``len(label_gain) − 1``) and at most 31 for XGBoost's
``rank:ndcg``. The adapters check this before fitting and name the first offending row, rather than
let the libraries fail in C++.

**Inputs the libraries would mangle.** XGBoost stores X as float32: a value beyond float32's range
(3.4e38) would become inf and fail in C++, so it is refused naming the row and column. LightGBM
ignores a parameter name it does not know (its warning is hidden by the adapter's ``verbose=-1``):
a key of ``params`` that is neither an ``LGBMRanker`` keyword nor a LightGBM parameter or alias is
refused, naming the closest known names.

**Queries.** LightGBM takes the group sizes (:func:`ordrank.queries.group_sizes`), XGBoost a
non-decreasing ``qid``: the adapter passes each row's query index 0..n_queries−1
(:func:`ordrank.queries.query_index`), so any contiguous ids work (XGBoost refuses unsorted ids).

**Determinism.** ``n_jobs=1`` by default, LightGBM with ``deterministic=True,
force_col_wise=True`` (histograms built feature by feature: no second, row-wise copy of the bins;
the same trees as row-wise) and the seed ``random_state``, XGBoost with ``tree_method="hist"`` and
``random_state``: two fits on the same data give identical scores.

The libraries are imported inside ``fit``, after the data is checked (ordrank imports without
them); a missing one raises an ImportError saying what to install: ``pip install "lightgbm>=4"``
or ``pip install "xgboost-cpu>=2"`` (both are in ordrank's ``dev`` extra).
"""
from __future__ import annotations

import difflib
import inspect
from importlib import import_module
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ordrank.algorithms.ranking._base import RankingEstimator, max_abs
from ordrank.queries import group_sizes, query_index


def import_external(module: str, package: str, owner: str):
    """``import module``, or an ImportError telling what to pip-install for ``owner``."""
    try:
        return import_module(module)
    except ImportError as exc:
        raise ImportError(f"{owner} needs the {module} package, which is not installed: "
                          f'pip install "{package}" (or ordrank[dev])') from exc


def check_grades(y, owner: str, max_grade: int | None, hint: str = "") -> np.ndarray:
    """``y`` as int64 grades, or a ValueError naming the first row that is not a non-negative integer
    (or above ``max_grade``; ``hint`` ends that message)."""
    bad = (y < 0) | (y != np.round(y))
    if np.any(bad):
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{owner}: relevance labels must be non-negative integers (the library uses "
                         f"them as gain indices 2^y − 1); row {row} has {float(y[row])}")
    if max_grade is not None and len(y) and y.max() > max_grade:
        row = int(np.argmax(y))
        raise ValueError(f"{owner}: relevance label {int(y[row])} at row {row} is above {max_grade}, "
                         f"the highest grade of the library's exponential gain 2^y − 1; rescale the "
                         f"grades{hint}")
    return y.astype(np.int64)


FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_float32(X, owner: str) -> None:
    """Refuse X whose values overflow float32 (the library's storage), naming the first one."""
    if max_abs(X) > FLOAT32_MAX:
        row, column = np.argwhere(np.abs(X) > FLOAT32_MAX)[0]
        raise ValueError(f"{owner}: X[{row}, {column}] = {X[row, column]:.3g} is beyond float32's range "
                         f"(±{FLOAT32_MAX:.3g}), in which the library stores X (it would become inf); "
                         "rescale X (e.g. StandardScaler)")


def check_lightgbm_params(lightgbm, extra: dict, owner: str) -> None:
    """Refuse a key of ``params`` LightGBM does not know (it would ignore it silently here)."""
    try:
        aliases = lightgbm.basic._ConfigAliases._get_all_param_aliases()
    except AttributeError:  # another LightGBM version: no list to check against
        return
    known = set(aliases) | {a for names in aliases.values() for a in names}
    known |= set(inspect.signature(lightgbm.LGBMRanker.__init__).parameters) - {"self", "kwargs"}
    for key in extra:
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"{owner}: params has {key!r}, which is neither an LGBMRanker keyword nor a "
                             f"LightGBM parameter (LightGBM would ignore it){hint}")


_SHARED = {
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
    "learning_rate": [Interval(Real, 0, None, closed="neither")],
    "subsample": [Interval(Real, 0, 1, closed="right")],
    "colsample_bytree": [Interval(Real, 0, 1, closed="right")],
    "reg_lambda": [Interval(Real, 0, None, closed="left")],
    "random_state": [Interval(Integral, 0, None, closed="left")],
    "n_jobs": [Interval(Integral, 1, None, closed="left")],
    "params": [dict, None],
}


class _External(RankingEstimator):
    _dtypes = [np.float64, np.float32]  # both libraries take float32 X as it is (no float64 copy)

    def _keywords(self, fixed: dict, **given) -> dict:
        """The library's keywords: the adapter's parameters ``given``, then ``fixed`` (determinism
        and quiet defaults, which ``params`` may override), then ``params``; a key of ``params``
        that is one of the adapter's own parameters is refused (set it directly)."""
        extra = dict(self.params or {})
        clash = sorted(set(extra) & set(self.get_params()))
        if clash:
            raise ValueError(f"{type(self).__name__}: params sets {clash}, parameters of "
                             f"{type(self).__name__} itself; set them directly")
        return {**given, **fixed, **extra}

    def _scores(self, X):
        return np.asarray(self.model_.predict(X), dtype=np.float64)


class LightGBMRanker(_External):
    r"""LambdaMART: LightGBM's ``LGBMRanker`` (``objective="lambdarank"``), fitted per query.

    Gradient-boosted regression trees on the λ-gradients above (see the module docstring), with the
    NDCG weights computed on the whole query (``lambdarank_truncation_level`` in ``params`` limits
    them to the top positions). ``objective="rank_xendcg"`` is LightGBM's listwise XE-NDCG-MART.

    Parameters
    ----------
    n_estimators, learning_rate : int, float, default=100, 0.1
        Boosting rounds and shrinkage.
    num_leaves, max_depth : int, default=31, -1
        Tree size (max_depth −1: unlimited).
    min_child_samples : int, default=20
        Fewest documents in a leaf.
    subsample, colsample_bytree : float in (0, 1], default=1.0
        Row (bagging, every round) and feature fractions.
    reg_lambda : float, default=0.0
        L2 penalty on the leaf values.
    objective : {"lambdarank", "rank_xendcg"}, default="lambdarank"
    random_state : int, default=0
        LightGBM's ``seed``.
    n_jobs : int, default=1
        Threads (1: the results are deterministic and the machine is shared).
    params : dict or None
        Any other ``LGBMRanker`` keyword (e.g. ``label_gain``, ``lambdarank_truncation_level``);
        it may override the fixed ``deterministic``, ``force_col_wise``, ``verbose``, not the
        parameters above.

    Attributes
    ----------
    model_ : lightgbm.LGBMRanker
        The fitted booster; ``decision_function`` is its raw score.
    n_features_in_ : int
    """

    external_package = "lightgbm"  # the library it runs: its pieces are cached (ordrank.results.external_cache)
    _parameter_constraints: dict = {
        **_SHARED,
        "num_leaves": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Interval(Integral, -1, None, closed="left")],
        "min_child_samples": [Interval(Integral, 1, None, closed="left")],
        "objective": [StrOptions({"lambdarank", "rank_xendcg"})],
    }

    def __init__(self, n_estimators=100, learning_rate=0.1, num_leaves=31, max_depth=-1, *,
                 min_child_samples=20, subsample=1.0, colsample_bytree=1.0, reg_lambda=0.0,
                 objective="lambdarank", random_state=0, n_jobs=1, params=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.max_depth = max_depth
        self.min_child_samples = min_child_samples
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.reg_lambda = reg_lambda
        self.objective = objective
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.params = params

    def fit(self, X, y, qid=None):
        """Fit LGBMRanker on ``(X, y)`` with the group sizes of ``qid`` (None: one query)."""
        self._validate_params()
        X, y, qid = self._validate_queries(X, y, qid)
        extra = dict(self.params or {})
        gains = next((extra[k] for k in ("label_gain", "label_gains") if k in extra), None)
        if gains is None:
            y = check_grades(y, type(self).__name__, 30, " or pass label_gain (one gain per grade) in params")
        else:
            y = check_grades(y, type(self).__name__, len(np.atleast_1d(gains)) - 1,
                             f" or give params' label_gain a gain for every grade (it has "
                             f"{len(np.atleast_1d(gains))}, for grades 0..{len(np.atleast_1d(gains)) - 1})")
        lightgbm = import_external("lightgbm", "lightgbm>=4", type(self).__name__)
        check_lightgbm_params(lightgbm, extra, type(self).__name__)
        self.model_ = lightgbm.LGBMRanker(**self._keywords(
            {"deterministic": True, "force_col_wise": True, "verbose": -1,
             "subsample_freq": 1 if self.subsample < 1 else 0},
            objective=self.objective, n_estimators=self.n_estimators,
            learning_rate=self.learning_rate, num_leaves=self.num_leaves, max_depth=self.max_depth,
            min_child_samples=self.min_child_samples, subsample=self.subsample,
            colsample_bytree=self.colsample_bytree, reg_lambda=self.reg_lambda,
            random_state=self.random_state, n_jobs=self.n_jobs))
        self.model_.fit(X, y, group=group_sizes(qid))
        return self


class XGBoostRanker(_External):
    r"""XGBoost's ``XGBRanker``: ``rank:pairwise`` (RankNet's pairwise logistic cost, boosted) or
    ``rank:ndcg`` (each pair weighted by |ΔNDCG|, LambdaMART).

    Parameters
    ----------
    n_estimators, learning_rate : int, float, default=100, 0.1
    max_depth : int, default=6
    min_child_weight : float, default=1.0
        Least Hessian sum in a leaf.
    subsample, colsample_bytree : float in (0, 1], default=1.0
    reg_lambda : float, default=1.0
    objective : {"rank:pairwise", "rank:ndcg"}, default="rank:ndcg"
    random_state : int, default=0
    n_jobs : int, default=1
    params : dict or None
        Any other ``XGBRanker`` keyword (e.g. ``lambdarank_pair_method``, ``ndcg_exp_gain``); it
        may override the fixed ``tree_method``, not the parameters above.

    Attributes
    ----------
    model_ : xgboost.XGBRanker
        The fitted booster (``tree_method="hist"``); ``decision_function`` is its margin.
    n_features_in_ : int
    """

    external_package = "xgboost"  # the library it runs: its pieces are cached (ordrank.results.external_cache)
    _parameter_constraints: dict = {
        **_SHARED,
        "max_depth": [Interval(Integral, 0, None, closed="left")],
        "min_child_weight": [Interval(Real, 0, None, closed="left")],
        "objective": [StrOptions({"rank:pairwise", "rank:ndcg"})],
    }

    def __init__(self, n_estimators=100, learning_rate=0.1, max_depth=6, *, min_child_weight=1.0,
                 subsample=1.0, colsample_bytree=1.0, reg_lambda=1.0, objective="rank:ndcg",
                 random_state=0, n_jobs=1, params=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.min_child_weight = min_child_weight
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.reg_lambda = reg_lambda
        self.objective = objective
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.params = params

    def fit(self, X, y, qid=None):
        """Fit XGBRanker on ``(X, y)`` with each row's query index (None: one query)."""
        self._validate_params()
        X, y, qid = self._validate_queries(X, y, qid)
        extra = dict(self.params or {})
        exp_gain = self.objective == "rank:ndcg" and extra.get("ndcg_exp_gain", True)
        y = check_grades(y, type(self).__name__, 31 if exp_gain else None,
                         ' or pass params={"ndcg_exp_gain": False}')
        check_float32(X, type(self).__name__)
        xgboost = import_external("xgboost", "xgboost-cpu>=2", type(self).__name__)
        self.model_ = xgboost.XGBRanker(**self._keywords(
            {"tree_method": "hist"},
            objective=self.objective, n_estimators=self.n_estimators,
            learning_rate=self.learning_rate, max_depth=self.max_depth,
            min_child_weight=self.min_child_weight, subsample=self.subsample,
            colsample_bytree=self.colsample_bytree, reg_lambda=self.reg_lambda,
            random_state=self.random_state, n_jobs=self.n_jobs))
        self.model_.fit(X, y, qid=query_index(qid))
        return self
