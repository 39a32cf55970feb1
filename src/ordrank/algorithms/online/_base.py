"""What every online ordinal learner shares: labels ↔ ranks, partial_fit / fit, scoring.

A learner is defined by a *rule*: three methods that act on a state of S independent copies of the
model at once (arrays with a leading axis of length S):

``init_arrays(S, d, k) -> dict``
    The zero model, one named array per fitted attribute (``{"coef": (S, d), ...}``); the state is
    these arrays plus ``"n_ranks": k``.
``decision(state, X) -> scores``
    Real-valued scores for one instance per copy, ``X`` of shape (S, d).
``step(state, X, y) -> y_hat``
    One online round per copy: predict ranks ``y_hat`` (S,) in 1..k for ``X``, then update the state
    in place with the true ranks ``y`` (S,). The prediction is made *before* the update.

The vectorized online protocol (:mod:`ordrank.protocols.online`) calls ``step`` with S sequences;
``partial_fit`` calls the very same ``step`` with S = 1, one row at a time, on views of the fitted
attributes, so the two can never drift apart.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ordrank.metrics import mean_absolute_error


class OnlineOrdinalRegressor(ClassifierMixin, BaseEstimator):
    """Base class: subclasses set ``_state_keys`` and implement the rule (see module docstring).

    Labels may be any sortable values; their sorted order is the rank order and they are mapped to
    ranks 1..k on the way in and back on the way out. ``score`` is minus the mean absolute error
    counted in ranks.
    """

    _state_keys: tuple[str, ...] = ()
    _parameter_constraints: dict = {
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    # --- the rule (vectorized over S copies) ---------------------------------------------------
    def init_arrays(self, n_copies: int, n_features: int, n_ranks: int) -> dict:
        raise NotImplementedError

    def init_state(self, n_copies: int, n_features: int, n_ranks: int) -> dict:
        """The zero model for ``n_copies`` independent copies."""
        return {**self.init_arrays(n_copies, n_features, n_ranks), "n_ranks": n_ranks}

    def decision(self, state: dict, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def rank(self, state: dict, X: np.ndarray) -> np.ndarray:
        """Predicted ranks in 1..k for rows of ``X`` (S, d)."""
        raise NotImplementedError

    def step(self, state: dict, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # --- scikit-learn interface -----------------------------------------------------------------
    def _state(self) -> dict:
        """Views with a leading axis of length 1 on the fitted attributes (updates write through)."""
        state = {key: getattr(self, key + "_")[None] for key in self._state_keys}
        return {**state, "n_ranks": len(self.classes_)}

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
                f"of {type(self).__name__}; pass every rank in `classes` on the first partial_fit"
            )
        return (idx + 1).astype(np.int64)

    def _check_targets(self, y):
        kind = type_of_target(y, input_name="y", raise_unknown=True)
        if kind not in ("binary", "multiclass"):
            raise ValueError(f"y must hold discrete ordered labels, got target type {kind!r}")

    def partial_fit(self, X, y, classes=None):
        """One pass over ``(X, y)`` in order; each row is predicted, then learned from.

        ``classes`` (all ranks, in order) is required on the first call.
        """
        first = not hasattr(self, "classes_")
        if first:
            self._validate_params()
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
            classes = np.unique(np.asarray(classes))
            if len(classes) < 2:
                raise ValueError(f"need at least 2 ranks (1 class given): classes={classes.tolist()}")
        X, y = validate_data(self, X, y, reset=first, dtype=np.float64)
        self._check_targets(y)
        if first:
            self.classes_ = classes
            state = self.init_state(1, X.shape[1], len(classes))
            for key in self._state_keys:
                setattr(self, key + "_", state[key][0])
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={list(classes)} differs from classes_={self.classes_.tolist()}")
        ranks = self.to_ranks(y)
        state = self._state()
        for i in range(X.shape[0]):
            self.step(state, X[i : i + 1], ranks[i : i + 1])
        return self

    def fit(self, X, y):
        """Start from the zero model and make ``n_epochs`` online passes over the data."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        self._check_targets(y)
        for key in ("classes_", *(k + "_" for k in self._state_keys)):
            self.__dict__.pop(key, None)
        rng = check_random_state(self.random_state)
        classes = np.unique(y)
        for _ in range(self.n_epochs):
            order = rng.permutation(len(y)) if self.shuffle else slice(None)
            self.partial_fit(X[order], y[order], classes=classes)
        return self

    def _checked(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64)

    def decision_function(self, X):
        """The rule's real-valued scores (see the subclass for their meaning)."""
        X = self._checked(X)
        return self.decision(self._state(), X)

    def predict(self, X):
        X = self._checked(X)
        return self.classes_[self.rank(self._state(), X) - 1]

    def score(self, X, y, sample_weight=None):
        """Minus the mean absolute error in ranks: −mean |rank(ŷ) − rank(y)| (higher is better)."""
        X = self._checked(X)
        y_hat = self.rank(self._state(), X)
        return -mean_absolute_error(self.to_ranks(y), y_hat, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags
