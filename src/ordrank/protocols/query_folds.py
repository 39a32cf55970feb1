"""LETOR's protocol for learning to rank from queries (Qin, Liu, Xu & Li, *LETOR*, Inf. Retr. 2010).

For each fold of a query data set (training, validation and test queries, e.g. LETOR 3.0 OHSUMED's
five folds) and each learner: fit on the training queries once per point of the learner's grid,
choose the point whose model scores best on the validation queries by ``selection`` (LETOR's
baselines used MAP in its own convention, ``letor_map``; ties: the first point in grid order), and
report that model on the test queries — no refit on training + validation, as in LETOR. While a learner
fits, only the fold's training part is in memory: the validation and test parts wait on disk
(:class:`~ordrank.protocols.fold_on_disk.FoldOnDisk`) until the fitted models are scored. Rows
(metric, value) per (algorithm, fold): each of ``metrics`` (names of
:mod:`ordrank.metrics.scorers`, the mean over the test queries), with ``params`` (the chosen values,
JSON) and ``status`` (``ok``, or ``failed: <error>`` with value NaN: the other learners go on).

On a data set with ``evaluation = "4.0"`` (:class:`~ordrank.datasets.letor.LetorData`: the
LETOR 4.0 folders MQ2007 and MQ2008), the ``letor_*`` names of ``selection`` and ``metrics`` are
evaluated as LETOR 4.0's script and written to the table as ``letor4_*`` (P@k differs:
:mod:`ordrank.metrics.letor`), so that the table says which convention it holds.

Learners: a ranker (``fit(X, y, qid=...)``, :class:`~ordrank.algorithms.ranking.RankingEstimator`,
or a pipeline ending in one: ``qid`` is routed by scikit-learn's metadata routing) or any estimator
with ``fit(X, y)`` and a real-valued ``decision_function`` (documents are ranked by it, per query).
No time is recorded in the table, so a rerun of the same config gives the same table byte for byte
(``benchmarks/bench_ranking.py`` measures speed).
"""
from __future__ import annotations

import inspect
import json
import logging
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import sklearn
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import Pipeline

from ordrank.algorithms.pipelines import final_step as _final, prefixed_grid
from ordrank.datasets.letor import Fold, QuerySet
from ordrank.metrics.scorers import for_letor_version, ranking_metric
from ordrank.results.grid_edges import warn_edges
from ordrank.results.external_cache import data_checksum, external_package, piece_key
from ordrank.protocols.fold_on_disk import FoldOnDisk
from ordrank.progress import progress
from ordrank.protocols._checks import check_grid_names

log = logging.getLogger(__name__)
LETOR_METRICS = ([f"letor_ndcg@{k}" for k in range(1, 11)] + [f"letor_p@{k}" for k in range(1, 11)]
                 + ["letor_map", "ndcg@10"])


def _takes_qid(model) -> bool:
    """Whether ``model.fit`` (the pipeline's last step's) accepts ``qid``."""
    return "qid" in inspect.signature(_final(model).fit).parameters


def _plain(params: dict) -> str:
    plain = {key.split("__", 1)[-1]: value for key, value in params.items()}
    return json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in sorted(plain.items())})


def fit_ranker(model, part):
    """``model`` fitted on a :class:`~ordrank.datasets.letor.QuerySet` (qid passed when it takes it)."""
    if not _takes_qid(model):
        return model.fit(part.X, part.y)
    with sklearn.config_context(enable_metadata_routing=isinstance(model, Pipeline)):
        return model.fit(part.X, part.y, qid=part.qid)


def scores_of(model, X) -> np.ndarray:
    """One real score per row; a learner whose ``decision_function`` is not 1-D is refused."""
    scores = np.asarray(model.decision_function(X), dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"{type(_final(model)).__name__}.decision_function gives shape {scores.shape}, "
                         "not one score per document: it cannot rank")
    if not np.all(np.isfinite(scores)):
        raise FloatingPointError(f"{type(_final(model)).__name__} gave non-finite scores")
    return scores


def per_query(features, fold: Fold, in_place: bool = False) -> Fold:
    """The fold with ``features.transform(X, qid)`` applied to each part (a per-query map, such as
    LETOR's query-level normalization, which learns nothing across queries).

    ``in_place``: each part's X is overwritten (``transform(X, qid, out=X)``) and stays read-only
    afterwards, so the fold holds one copy of its matrices, not two. Only for a fold nobody else holds:
    a dataset whose ``fold(k)`` makes new arrays at each call says so by ``fresh_folds = True``."""
    parts = []
    for p in (fold.train, fold.vali, fold.test):
        if in_place and p.X.dtype.kind == "f":
            p.X.flags.writeable = True  # (its own array, or a view of one: the dataset made it for us)
            X = features.transform(p.X, p.qid, out=p.X)
            X.flags.writeable = False
        else:
            X = features.transform(p.X, p.qid)
        parts.append(QuerySet(X, p.y, p.qid, p.docid, p.path))
    return Fold(fold.name, *parts, fold.files)


@dataclass
class QueryFolds:
    """Per fold: a model per grid point on the training queries, the best on validation, test.

    Parameters
    ----------
    folds : which folds (1-based, as LETOR's Fold1..Fold5); ``None`` = all the data set has.
    selection : the metric model selection maximizes on the validation queries (a scorer name).
    metrics : the metrics reported on the test queries (scorer names).
    grids : learner name → {parameter: list of values}; a learner without a grid is fitted once.
    """

    folds: int | list[int] | None = None
    selection: str = "letor_map"
    metrics: list = field(default_factory=lambda: list(LETOR_METRICS))
    grids: dict = field(default_factory=dict)

    keys = ("fold",)  # the table's protocol keys
    splits_data = True  # a feature map goes into each learner's pipeline (fitted on training rows)
    per_query_features = True  # a per-query map (features=query_level_norm) is applied to each part
    external_cache = None   # the app's ordrank.results.external_cache.ExternalCache, if any (not a setting)

    def __post_init__(self):
        for name in [self.selection, *self.metrics]:
            ranking_metric(name)  # raises naming the valid names
        if not self.metrics or len(set(self.metrics)) != len(self.metrics):
            raise ValueError(f"protocol.metrics must be a non-empty list without repeats, got {self.metrics}")
        for name, grid in self.grids.items():
            if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
                raise ValueError(f"protocol.grids.{name} must map parameter names to non-empty lists of "
                                 f"values, got {grid!r}")

    def chosen_folds(self, n_folds: int) -> list[int]:
        folds = range(1, n_folds + 1) if self.folds is None else np.atleast_1d(self.folds).tolist()
        folds = list(folds)
        for fold in folds:
            if not isinstance(fold, int) or isinstance(fold, bool) or not 1 <= fold <= n_folds:
                raise ValueError(f"protocol.folds: fold {fold!r} is not in 1..{n_folds}")
        if len(set(folds)) != len(folds):
            raise ValueError(f"protocol.folds lists a fold twice: {folds}")
        return folds

    def check_learners(self, learners: dict) -> None:
        check_grid_names(self.grids, learners)
        for name, learner in learners.items():
            grid = prefixed_grid(learner, self.grids.get(name, {}))
            for point in ParameterGrid(grid) if grid else []:
                try:  # every grid value checked as a parameter before any work
                    final = _final(clone(learner).set_params(**point))
                    if hasattr(final, "_parameter_constraints"):  # external learners may lack them
                        final._validate_params()
                except (ValueError, TypeError) as error:
                    raise ValueError(f"protocol.grids.{name}: {point} is not valid for "
                                     f"{type(_final(learner)).__name__}: {error}") from None

    @staticmethod
    def finished_pieces(table) -> set:
        """The pieces a (partial) table holds: ``(algorithm, fold)``."""
        return {(a, int(f)) for a, f in table[["algorithm", "fold"]].drop_duplicates().itertuples(
            index=False, name=None)}

    def iter_run(self, dataset, learners: dict, features=None, seed: int = 0, skip=frozenset()):
        """Yield one tidy table per (learner, fold), fold by fold, except the pieces in ``skip``
        (:meth:`finished_pieces` of an earlier attempt)."""
        if features is not None and not getattr(features, "per_query", False):
            raise ValueError("QueryFolds takes a fitted feature map inside each learner's pipeline; only a "
                             "per-query map (features=query_level_norm) is applied to the parts directly")
        self.check_learners(learners)
        folds = self.chosen_folds(dataset.n_folds)
        version = getattr(dataset, "evaluation", "3.0")
        protocol = self if version == "3.0" else QueryFolds(
            self.folds, for_letor_version(self.selection, version),
            [for_letor_version(name, version) for name in self.metrics], self.grids)
        protocol.external_cache = self.external_cache  # the copy (LETOR 4.0's metric names) keeps the run's cache
        with progress(len(folds) * len(learners), "folds x learners") as bar:
            for fold in folds:
                if all((name, fold) in skip for name in learners):
                    bar.update(len(learners))
                    continue
                parts = dataset.fold(fold) if features is None else per_query(
                    features, dataset.fold(fold), in_place=getattr(dataset, "fresh_folds", False))
                checksum = None
                if self.external_cache is not None and any(map(external_package, learners.values())):
                    checksum = data_checksum(*(getattr(p, a) for p in (parts.train, parts.vali, parts.test)
                                               for a in ("X", "y", "qid")))
                with FoldOnDisk(parts) as on_disk:
                    del parts  # the validation and test parts are now on disk only
                    for name, learner in learners.items():
                        if (name, fold) in skip:
                            bar.update()
                            continue
                        bar.set_postfix_str(f"{name} on fold {fold}", refresh=False)
                        rows = protocol.piece_rows(learner, self.grids.get(name, {}), fold, on_disk, checksum)
                        table = pd.DataFrame(rows, columns=["metric", "value", "params", "status"])
                        table.insert(0, "fold", fold)
                        table.insert(0, "algorithm", name)
                        yield table
                        bar.update()

    def piece_rows(self, learner, grid, fold, parts: FoldOnDisk, checksum: str | None) -> list[tuple]:
        """:meth:`evaluate`, or an external learner's rows from the run's cache (:mod:`ordrank.results.external_cache`)
        when it holds this piece (keyed on ``checksum``, the fold's training, validation and test arrays')."""
        if self.external_cache is None:
            return self.evaluate(learner, grid, parts)
        settings = {"protocol": type(self).__name__, "selection": self.selection, "metrics": self.metrics,
                    "fold": fold}
        return self.external_cache.rows(piece_key(learner, grid, settings, lambda: checksum), {"fold": fold},
                                        lambda: self.evaluate(learner, grid, parts))

    def evaluate(self, learner, grid, parts: FoldOnDisk) -> list[tuple]:
        """Select on validation, test: rows (metric, value, params, status)."""
        try:
            model, params = self.select(learner, grid, parts)
            test = parts.load("test")
            scores = scores_of(model, test.X)
            values = {name: ranking_metric(name)(test.y, scores, test.qid) for name in self.metrics}
            status = str(getattr(_final(model), "status_", "ok"))
        except Exception as error:  # noqa: BLE001 - recorded in the table, never lost silently
            status = f"failed: {type(error).__name__}: {error}"[:500]
            log.warning("%s failed: %s", type(_final(learner)).__name__, status)
            values, params = dict.fromkeys(self.metrics, float("nan")), {}
        chosen = _plain(params)
        warn_edges(type(_final(learner)).__name__, "a fold (validation)", chosen, grid)
        return [(name, float(value), chosen, status) for name, value in values.items()]

    def select(self, learner, grid, parts: FoldOnDisk):
        """The model (fitted on the training queries) of the grid point best on validation: every point
        fitted first, then the validation part loaded once to score them."""
        points = list(ParameterGrid(prefixed_grid(learner, grid))) if grid else [{}]
        metric = ranking_metric(self.selection)
        fitted, errors = {}, {}
        for k, point in enumerate(points):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    fitted[k] = fit_ranker(clone(learner).set_params(**point), parts.train)
            except Exception as error:  # noqa: BLE001 - a failed grid point is skipped, and said
                errors[k] = f"{points[k]}: {type(error).__name__}: {error}"
        vali = parts.load("vali") if fitted else None
        best, best_value = None, -np.inf
        for k, model in fitted.items():
            try:
                value = metric(vali.y, scores_of(model, vali.X), vali.qid)
                log.info("%s %s: validation %s = %.4f", type(_final(learner)).__name__, _plain(points[k]),
                         self.selection, value)
            except Exception as error:  # noqa: BLE001 - a failed grid point is skipped, and said
                errors[k] = f"{points[k]}: {type(error).__name__}: {error}"
                continue
            if best is None or value > best_value:
                best, best_value, best_point = model, value, points[k]
        errors = [errors[k] for k in sorted(errors)]
        if best is None:
            raise RuntimeError(f"every grid point failed; first: {errors[0]}")
        if errors:
            log.warning("%d grid point(s) failed: %s", len(errors), errors[0])
        return best, best_point
