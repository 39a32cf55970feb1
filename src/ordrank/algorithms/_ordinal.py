"""What every ordinal learner shares, online or batch: labels ↔ ranks 1..k, predict, and score.

A learner works on ranks 1..k internally and implements ``_predict_ranks(X)``; this base maps
labels in and out and scores with minus the mean absolute error counted in ranks.

**The rank order of the labels** (``classes_``, lowest rank first) is, in this priority:

1. numeric (or boolean) labels: increasing value, always (a ``classes`` list or a Categorical
   only says which labels exist);
2. ``classes`` given to ``partial_fit``: its order, as given;
3. ``y`` a pandas *ordered* Categorical (a ``Series`` or ``pd.Categorical``): the order of its
   categories (those present in ``y``);
4. anything else (strings, objects, an unordered Categorical of strings): refused with a
   ValueError saying how to give the order. Sorting strings alphabetically would rank
   ``["high", "low", "medium"]`` as high < low < medium without a word.

scikit-learn's ``check_classifiers_classes`` fits every classifier on unordered string labels
("one", "two", "three"); rule 4 refuses them as it refuses any others, and the repository's
estimator-check tests declare that check an expected failure for the ordinal learners. Learners for
which the order means nothing (a nominal classifier scored by accuracy) set the class attribute
``_ordered_labels = False``: their labels are always sorted.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ordrank.metrics.ordinal import mean_absolute_error

HOW_TO_ORDER = ("give their order: y as an ordered pandas Categorical, e.g. pd.Categorical(y, "
                "categories=[lowest, ..., highest], ordered=True), or classes=[lowest, ..., highest] "
                "in partial_fit")


def check_ordinal_target(y) -> None:
    """Raise unless ``y`` holds discrete labels (binary or multiclass, not continuous)."""
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    if kind not in ("binary", "multiclass"):
        raise ValueError(f"y must hold discrete ordered labels, got target type {kind!r}")


def declared_order(y) -> np.ndarray | None:
    """The categories present in ``y``, in order, if ``y`` is a pandas ordered Categorical; else None.

    Call it on ``y`` as given, before validation turns it into a plain array.
    """
    if isinstance(getattr(y, "dtype", None), pd.CategoricalDtype) and y.dtype.ordered:
        present = pd.Categorical(y).remove_unused_categories().categories
        return np.asarray(present)
    return None


def _numeric(values: np.ndarray) -> bool:
    return values.dtype.kind in "biuf"


def rank_order(y: np.ndarray, classes=None, *, owner: str = "the learner", ordered: bool = True):
    """The labels in rank order (lowest first), by the rules of the module docstring.

    ``y`` are the (validated) labels; ``classes`` an explicit order (``partial_fit``'s argument or
    :func:`declared_order`). ``ordered=False`` (nominal learners) sorts any labels. Raises a
    ValueError naming ``owner`` for duplicated ``classes`` or for labels that need an order.
    """
    if classes is not None:
        given = np.asarray(classes)
        unique = np.unique(given)
        if len(unique) < len(given):
            raise ValueError(f"classes must not repeat a label, got {given.tolist()}")
        return unique if _numeric(given) or not ordered else given
    labels = np.unique(np.asarray(y))
    if _numeric(labels) or not ordered:
        return labels
    raise ValueError(f"{owner}: the labels {labels.tolist()[:10]} are not numbers, so their rank order "
                     f"is unknown (sorting would rank them alphabetically); {HOW_TO_ORDER}")


class OrdinalEstimator(ClassifierMixin, BaseEstimator):
    """Base of every ordinal learner: subclasses implement ``_predict_ranks(X) -> ranks in 1..k``.

    ``fit`` in a subclass calls :meth:`_fit_data` (validation, ``classes_`` in rank order, the
    ranks), or validates itself and calls :meth:`_set_classes`, and works on the ranks 1..k.
    The rank order of the labels follows the rules of :mod:`ordrank.algorithms._ordinal`.
    """

    _ordered_labels = True  # False: a nominal learner, whose labels are sorted whatever they are

    def _fit_data(self, X, y):
        """``(X, ranks)`` for ``fit``: validated ``X`` (float64, finite) and ``y`` as ranks 1..k,
        ``classes_`` set in rank order (an ordered Categorical ``y`` gives it)."""
        declared = declared_order(y)  # before validation turns y into an array
        X, y = self._validate(X, y)
        return X, self._set_classes(y, declared)

    def _validate(self, X, y="no_validation", reset=True):
        """scikit-learn's ``validate_data`` (float64, finite; ``y`` as it takes it), with short
        messages for NaN/inf (where they are) and for a 1-D ``X`` (its shape, not its values)."""
        try:
            if isinstance(y, str) and y == "no_validation":
                return validate_data(self, X, reset=reset, dtype=np.float64)
            return validate_data(self, X, y, reset=reset, dtype=np.float64)
        except ValueError as error:
            text, owner = str(error), type(self).__name__
            if text.startswith("Expected 2D array, got 1D array"):  # not the whole array, as sklearn's
                raise ValueError(f"{owner}: X must be 2-D (n_samples, n_features), got shape "
                                 f"{np.shape(X)}. Reshape your data: X.reshape(-1, 1) for a single "
                                 "feature or X.reshape(1, -1) for a single sample") from None
            if not text.startswith(("Input X contains", "Input y contains")):
                raise
            raise ValueError(_non_finite_message(owner, text, X, y)) from None

    def _set_classes(self, y, classes=None) -> np.ndarray:
        """Set ``classes_`` (the labels in rank order; ``classes`` an explicit order) and return
        ``y`` as ranks 1..k."""
        check_ordinal_target(y)
        classes = rank_order(y, classes, owner=type(self).__name__, ordered=self._ordered_labels)
        if len(classes) < 2:
            raise ValueError(f"need at least 2 ranks (1 class given): classes={classes.tolist()}")
        self.classes_ = classes
        return self.to_ranks(y)

    def to_ranks(self, y) -> np.ndarray:
        """Map labels to ranks 1..k; a label outside ``classes_`` raises a ValueError naming it."""
        y = np.asarray(y)
        sorter = np.argsort(self.classes_, kind="stable")
        try:
            idx = np.searchsorted(self.classes_, y, sorter=sorter)
        except TypeError:  # labels not comparable with the classes (e.g. numbers and strings)
            idx = np.zeros(y.shape, dtype=np.int64)
        position = sorter[np.clip(idx, 0, len(self.classes_) - 1)]
        bad = self.classes_[position] != y
        if np.any(bad):
            unknown = pd.unique(y[bad].ravel())
            raise ValueError(
                f"label(s) {unknown.tolist()[:10]} not among the ranks {self.classes_.tolist()} "
                f"of {type(self).__name__}"
            )
        return (position + 1).astype(np.int64)

    @property
    def n_ranks_(self) -> int:
        return len(self.classes_)

    def _checked(self, X):
        check_is_fitted(self)
        return self._validate(X, reset=False)

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


def _non_finite_message(owner: str, text: str, X, y) -> str:
    """``owner: X has NaN at row i, column j (n entries) ...`` or ``owner: y has NaN at row i ...``
    (scikit-learn's first line when the values cannot be located)."""
    if text.startswith("Input y"):
        what, values, advice = "y", _floats(y), "every example needs a label; drop the unlabelled rows"
    else:
        what, values, advice = "X", _floats(X), "the learners need finite features; drop or impute them"
    bad = None if values is None else ~np.isfinite(values)
    if bad is None or not bad.any():
        return f"{owner}: {text.splitlines()[0]} ({what} must be finite)"
    where = np.argwhere(bad)[0]
    kind = "NaN" if np.isnan(values[tuple(where)]) else "an infinite value"
    at = f"row {where[0]}" + (f", column {where[1]}" if len(where) > 1 else "")
    return f"{owner}: {what} has {kind} at {at} ({bad.sum()} NaN or infinite entries): {advice}"


def _floats(values) -> np.ndarray | None:
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return None


class FitFailed(RuntimeError):
    """A learner could not be fitted (e.g. its solver did not reach an optimum); the message names
    the learner, its parameters and the solver status. Protocols record it as a failed row."""


class Diverged(FitFailed, FloatingPointError):
    """An online learner's model or scores became non-finite (inf or NaN): a step size too large for
    the inputs' scale, or inputs so large that w·x overflows. Raised on the round it happens, by
    ``partial_fit``/``fit`` and by the vectorized protocol alike; the message names the learner, its
    parameters and what to change. A :class:`FitFailed` and a ``FloatingPointError``."""


TOO_LARGE = "scale the inputs down (e.g. features=standardize)"


def check_finite(learner, what: str, values: np.ndarray, X: np.ndarray, advice) -> None:
    """Raise :class:`Diverged` unless every entry of ``values`` is finite.

    ``what`` names the values (e.g. "its weights"), ``X`` is the round's inputs (S, d) whose largest
    squared norm the message reports, ``advice`` says what to change (a string, or a callable
    returning it, so that a learner's per-round check builds no message until it fails).
    """
    if np.isfinite(values).all():
        return
    advice = advice() if callable(advice) else advice
    with np.errstate(over="ignore", invalid="ignore"):
        norm2 = float(np.max(np.einsum("...d,...d->...", X, X), initial=0.0))
    scale = (f"of squared norm up to {norm2:.3g}" if np.isfinite(norm2)
             else "whose squared norm overflows float64")
    raise Diverged(f"{learner!r} diverged: {what} became inf or NaN on inputs {scale}; {advice}")
