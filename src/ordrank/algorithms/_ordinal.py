"""What every ordinal learner shares, online or batch: labels ↔ ranks 1..k, predict, and score.

Labels may be any sortable values; their sorted order is the rank order. A learner works on ranks
1..k internally and implements ``_predict_ranks(X)``; this base maps labels in and out and scores
with minus the mean absolute error counted in ranks.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ordrank.metrics import mean_absolute_error


def check_ordinal_target(y) -> None:
    """Raise unless ``y`` holds discrete labels (binary or multiclass, not continuous)."""
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    if kind not in ("binary", "multiclass"):
        raise ValueError(f"y must hold discrete ordered labels, got target type {kind!r}")


class OrdinalEstimator(ClassifierMixin, BaseEstimator):
    """Base of every ordinal learner: subclasses implement ``_predict_ranks(X) -> ranks in 1..k``.

    ``fit`` in a subclass calls :meth:`_set_classes` (or sets ``classes_``) and works on the ranks
    that :meth:`to_ranks` returns.
    """

    def _set_classes(self, y, classes=None) -> np.ndarray:
        """Set ``classes_`` (the sorted labels, or ``classes``) and return ``y`` as ranks 1..k."""
        check_ordinal_target(y)
        classes = np.unique(np.asarray(y if classes is None else classes))
        if len(classes) < 2:
            raise ValueError(f"need at least 2 ranks (1 class given): classes={classes.tolist()}")
        self.classes_ = classes
        return self.to_ranks(y)

    def to_ranks(self, y) -> np.ndarray:
        """Map labels to ranks 1..k; a label outside ``classes_`` raises a ValueError naming it."""
        y = np.asarray(y)
        idx = np.searchsorted(self.classes_, y)
        idx = np.clip(idx, 0, len(self.classes_) - 1)
        bad = self.classes_[idx] != y
        if np.any(bad):
            unknown = np.unique(y[bad])
            raise ValueError(
                f"label(s) {unknown.tolist()[:10]} not among the ranks {self.classes_.tolist()} "
                f"of {type(self).__name__}"
            )
        return (idx + 1).astype(np.int64)

    @property
    def n_ranks_(self) -> int:
        return len(self.classes_)

    def _checked(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64)

    def _predict_ranks(self, X) -> np.ndarray:
        """Ranks 1..k for validated rows ``X``."""
        raise NotImplementedError

    def predict_ranks(self, X) -> np.ndarray:
        """Predicted ranks 1..k (positions in ``classes_``, 1-based)."""
        return self._predict_ranks(self._checked(X))

    def predict(self, X):
        ranks = self.predict_ranks(X)  # checks the model is fitted first
        return self.classes_[ranks - 1]

    def score(self, X, y, sample_weight=None):
        """Minus the mean absolute error in ranks: −mean |rank(ŷ) − rank(y)| (higher is better)."""
        ranks = self.predict_ranks(X)
        return -mean_absolute_error(self.to_ranks(y), ranks, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags


class FitFailed(RuntimeError):
    """A learner could not be fitted (e.g. its solver did not reach an optimum); the message names
    the learner, its parameters and the solver status. Protocols record it as a failed row."""


class Diverged(FitFailed, FloatingPointError):
    """An online learner's model or scores became non-finite (inf or NaN): a step size too large for
    the inputs' scale, or inputs so large that w·x overflows. Raised on the round it happens, by
    ``partial_fit``/``fit`` and by the vectorized protocol alike; the message names the learner, its
    parameters and what to change. A :class:`FitFailed` and a ``FloatingPointError``."""


TOO_LARGE = "scale the inputs down (e.g. features=standardize)"


def check_finite(learner, what: str, values: np.ndarray, X: np.ndarray, advice: str) -> None:
    """Raise :class:`Diverged` unless every entry of ``values`` is finite.

    ``what`` names the values (e.g. "its weights"), ``X`` is the round's inputs (S, d) whose largest
    squared norm the message reports, ``advice`` says what to change.
    """
    if np.isfinite(values).all():
        return
    with np.errstate(over="ignore", invalid="ignore"):
        norm2 = float(np.max(np.einsum("...d,...d->...", X, X), initial=0.0))
    scale = (f"of squared norm up to {norm2:.3g}" if np.isfinite(norm2)
             else "whose squared norm overflows float64")
    raise Diverged(f"{learner!r} diverged: {what} became inf or NaN on inputs {scale}; {advice}")
