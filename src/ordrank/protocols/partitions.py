"""The train/test partition protocol of the batch benchmarks (Chu & Keerthi 2005; Li & Lin 2006).

For each partition of a data set and each learner: choose hyper-parameters by k-fold
cross-validation on the training part over a grid (scored by the test cost, MAE by default), refit
on the whole training part with the chosen values, and measure on the test part. One table per
(learner, partition) is yielded as soon as it is finished, so a job that fails or is interrupted keeps
everything before it (the app writes the pieces to a partial table). A learner that fails (a solver that
does not converge, a library error) gets rows with value NaN and ``status = "failed: …"``; the others go on.

Rows (metric, value): ``mae`` and ``zero_one`` on the test part, ``fit_seconds`` (the refit) and
``cv_seconds`` (the model selection); every row carries ``params`` (the chosen values, JSON) and
``status`` (the learner's ``status_`` after the refit, e.g. a solver status, or ``ok``). The
measured seconds are the only values that differ between two runs of the same config: they are
the protocol's ``timing_metrics``, which the app writes to a timings table of their own
(:func:`ordrank.results.timings_path`), so the results table of a rerun is byte for byte the same.
"""
from __future__ import annotations

import json
import logging
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, StratifiedKFold
from sklearn.pipeline import Pipeline

from ordrank.algorithms.pipelines import final_step as _final, prefixed_grid
from ordrank.algorithms.qp.cache import reuse
from ordrank.metrics.ordinal import SCORINGS
from ordrank.results.grid_edges import warn_edges
from ordrank.results.external_cache import data_checksum, piece_key
from ordrank.protocols.staged import grid_scores, staged_groups
from ordrank.progress import progress
from ordrank.protocols._checks import check_choice, check_grid_names, check_positive, check_ranks

log = logging.getLogger(__name__)


def _unprefixed(model, key: str) -> str:
    """``svor__C`` → ``C``: the grid key as configured (without the pipeline step's prefix)."""
    return key.split("__", 1)[1] if isinstance(model, Pipeline) else key


def _plain(model, params: dict) -> str:
    """The chosen values as configured (no pipeline prefix), as sorted JSON."""
    plain = {_unprefixed(model, key): value for key, value in params.items()}
    return json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in sorted(plain.items())})


def _check_grid_value(learner, key: str, value, where: str) -> None:
    """Raise a ValueError naming ``where`` and the value unless ``key=value`` is a valid parameter of
    ``learner`` (and of any estimator inside it that declares its parameter constraints)."""
    try:
        model = clone(learner).set_params(**{key: value})
        for part in [model, *model.get_params(deep=True).values()]:
            if hasattr(part, "_parameter_constraints") and hasattr(part, "_validate_params"):
                part._validate_params()
    except (ValueError, TypeError) as error:
        raise ValueError(f"{where}: the grid value {_unprefixed(learner, key)}={value!r} is not "
                         f"valid: {error}") from None


@dataclass
class TrainTestPartitions:
    """Model selection by cross-validation on each training part, refit, test.

    Parameters
    ----------
    splits : which partitions (0-based); ``None`` = all of the data set's, an int = that one.
    cv_folds : folds of the stratified cross-validation on the training part (shuffled, seeded
        by the run seed and the partition).
    scoring : ``"mae"`` (absolute cost) or ``"zero_one"`` (classification cost): the cost that
        model selection minimizes; both are measured on the test part.
    grids : learner name → {parameter: list of values}; a learner without a grid is fitted with
        its configured values and no cross-validation.
    """

    splits: int | list[int] | None = None
    cv_folds: int = 5
    scoring: str = "mae"
    grids: dict = field(default_factory=dict)

    keys = ("bins", "split")  # the table's protocol keys
    timing_metrics = ("fit_seconds", "cv_seconds")  # written to the timings table (app.run)
    splits_data = True  # the app puts a feature map into each learner's pipeline
    external_cache = None   # the app's ordrank.results.external_cache.ExternalCache, if any (not a setting)

    def __post_init__(self):
        check_positive(self, ("cv_folds",))
        if self.cv_folds < 2:
            raise ValueError(f"protocol.cv_folds must be at least 2, got {self.cv_folds}")
        check_choice(self, "scoring", SCORINGS)
        splits = [] if self.splits is None else np.atleast_1d(self.splits).tolist()
        repeated = sorted({split for split in splits if splits.count(split) > 1}, key=str)
        if repeated:  # each would give the same rows twice
            raise ValueError(f"protocol.splits={splits} names partition(s) {repeated} more than once; "
                             "list each partition once")
        for name, grid in self.grids.items():
            if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
                raise ValueError(f"protocol.grids.{name} must map parameter names to non-empty "
                                 f"lists of values, got {grid!r}")

    def chosen_splits(self, n_splits: int) -> list[int]:
        splits = range(n_splits) if self.splits is None else np.atleast_1d(self.splits).tolist()
        for split in splits:
            if not isinstance(split, int) or isinstance(split, bool) or not 0 <= split < n_splits:
                raise ValueError(f"protocol.splits: partition {split!r} is not in 0..{n_splits - 1}")
        return list(splits)

    def check_learners(self, learners: dict) -> None:
        check_grid_names(self.grids, learners)
        for name, learner in learners.items():
            valid = learner.get_params()
            for key, values in prefixed_grid(learner, self.grids.get(name, {})).items():
                if key not in valid:
                    raise ValueError(f"protocol.grids.{name}: {_unprefixed(learner, key)!r} is not a "
                                     f"parameter of {type(_final(learner)).__name__}")
                for value in values:  # each grid point, validated as the learner's own parameter
                    _check_grid_value(learner, key, value, f"protocol.grids.{name}")

    @staticmethod
    def finished_pieces(table) -> set:
        """The pieces a (partial) table holds: ``(algorithm, split)``."""
        return set(table[["algorithm", "split"]].drop_duplicates().itertuples(index=False, name=None))

    def iter_run(self, dataset, learners: dict, features=None, seed: int = 0, skip=frozenset()):
        """Yield one tidy table per (learner, partition), partition by partition, except the
        pieces in ``skip`` (:meth:`finished_pieces` of an earlier attempt)."""
        if features is not None:
            raise ValueError("TrainTestPartitions takes the feature map inside each learner's pipeline")
        self.check_learners(learners)
        splits = self.chosen_splits(dataset.n_splits)
        with progress(len(splits) * len(learners), "partitions x learners") as bar:
            for split in splits:
                if all((name, split) in skip for name in learners):
                    bar.update(len(learners))
                    continue
                X_train, y_train, X_test, y_test = dataset.split(split)
                check_ranks(y_train, dataset.n_ranks, f"training labels of partition {split}")
                check_ranks(y_test, dataset.n_ranks, f"test labels of partition {split}")
                folds = StratifiedKFold(self.cv_folds, shuffle=True, random_state=np.random.SeedSequence(
                    [seed, split]).generate_state(1)[0])
                for name, learner in learners.items():
                    if (name, split) in skip:
                        bar.update()
                        continue
                    bar.set_postfix_str(f"{name} on partition {split}", refresh=False)
                    rows = self.piece_rows(learner, self.grids.get(name, {}), folds, seed, dataset.n_ranks,
                                           split, (X_train, y_train, X_test, y_test))
                    table = pd.DataFrame(rows, columns=["metric", "value", "params", "status"])
                    table.insert(0, "split", split)
                    table.insert(0, "bins", dataset.n_ranks)
                    table.insert(0, "algorithm", name)
                    yield table
                    bar.update()

    def piece_rows(self, learner, grid, folds, seed, n_ranks, split, data) -> list[tuple]:
        """:meth:`evaluate` on ``data`` (X_train, y_train, X_test, y_test), or an external learner's rows from the
        run's external cache (:mod:`ordrank.results.external_cache`) when it holds this piece."""
        if self.external_cache is None:
            return self.evaluate(learner, grid, folds, *data)
        settings = {"protocol": type(self).__name__, "cv_folds": self.cv_folds, "scoring": self.scoring,
                    "seed": seed, "split": split, "n_ranks": n_ranks}
        return self.external_cache.rows(piece_key(learner, grid, settings, lambda: data_checksum(*data)),
                                        {"bins": n_ranks, "split": split},
                                        lambda: self.evaluate(learner, grid, folds, *data))

    def evaluate(self, learner, grid, folds, X_train, y_train, X_test, y_test) -> list[tuple]:
        """Select, refit and test one learner on one partition: rows (metric, value, params, status)."""
        start = time.perf_counter()
        params, cv_seconds, fit_seconds = {}, 0.0, float("nan")
        try:
            if grid:
                params = self.select(learner, grid, folds, X_train, y_train)
                cv_seconds = time.perf_counter() - start
            start = time.perf_counter()
            model = clone(learner).set_params(**params).fit(X_train, y_train)
            fit_seconds = time.perf_counter() - start
            predicted = np.asarray(model.predict(X_test))
            status = str(getattr(_final(model), "status_", "ok"))
            errors = {name: cost(y_test, predicted) for name, cost in SCORINGS.items()}
        except Exception as error:  # noqa: BLE001 - recorded in the table, never lost silently
            status = f"failed: {type(error).__name__}: {error}"[:500]
            log.warning("%s failed: %s", type(_final(learner)).__name__, status)
            errors = dict.fromkeys(SCORINGS, float("nan"))
        chosen = _plain(learner, params)
        warn_edges(type(_final(learner)).__name__, "a training part (cross-validation)", chosen, grid)
        return [(name, value, chosen, status) for name, value in errors.items()] + [
            ("fit_seconds", fit_seconds, chosen, status), ("cv_seconds", cv_seconds, chosen, status)]

    def select(self, learner, grid, folds, X, y) -> dict:
        """The grid point with the lowest mean cross-validated cost.

        The same scores as scikit-learn's ``GridSearchCV(refit=False, error_score=nan)`` (each
        fit a clone with the grid point's values; a fit or prediction that raises scores NaN; the
        mean over the folds), but visited fold by fold and, within a fold, with the grid's first
        parameter in sorted order varying fastest (``C`` sorts before the lower-case names): the
        points that share a kernel are then fitted one after the other, so a learner's cached
        per-training-set work (SVOR's compiled problem, Reduction-SVM's extended Gram matrix; see
        :func:`ordrank.algorithms.qp.cache.reuse`) is reused across C instead of
        evicted by the next kernel. The fits are independent, so the order changes no score.

        Ties go to the first in grid order: scikit-learn's ``ParameterGrid`` order (parameter
        names sorted alphabetically, the first varying slowest, each list in its configured
        order), so with ``{C: [1, 10, 100], gamma: [0.01, 0.1, 1]}`` the smallest C, then the
        smallest γ (the widest Gaussian kernel). ORCA's rule (the smallest kernel width, then the
        smallest C) is not imitated; see docs/protocols.md, section 3."""
        candidates, scores, errors = self.cv_scores(learner, grid, folds, X, y)
        means = np.average(scores, axis=1)
        if not np.isfinite(means).any():
            raise RuntimeError("every grid point failed in cross-validation"
                               + (f" (first error: {errors[0]})" if errors else ""))
        return candidates[int(np.nanargmax(means))]

    def cv_scores(self, learner, grid, folds, X, y) -> tuple[list, np.ndarray, list]:
        """The grid points (``ParameterGrid`` order), their scores (point × fold; NaN for a failed
        fit) and the failures' messages. A learner with a ``staged_param`` (boosting rounds) is
        fitted once per fold and other values with the most rounds; its ``staged_predict`` answers
        the fewer rounds, with the predictions their own fits give (:func:`group_predictions`)."""
        cost = SCORINGS[self.scoring]
        grid = prefixed_grid(learner, grid)
        candidates = list(ParameterGrid(grid))
        fastest_first = sorted(grid)[::-1]  # the order's key: the last name first
        order = sorted(range(len(candidates)), key=lambda c: [
            list(grid[name]).index(candidates[c][name]) for name in fastest_first])
        splits = list(folds.split(X, y))
        scores = np.full((len(candidates), len(splits)), np.nan)
        errors = []
        with reuse(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The least populated class")
            for fold, (train, test) in enumerate(splits):
                X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
                for group in staged_groups(learner, candidates, order):
                    for c, value in grid_scores(learner, candidates, group, X_train, y_train, X_test,
                                                lambda predicted: -cost(y_test, predicted), errors):
                        scores[c, fold] = value
        return candidates, scores, errors
