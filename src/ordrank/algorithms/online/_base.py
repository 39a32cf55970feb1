"""The online rule contract, and what every online ordinal learner shares.

Every online learner of the repository -- the ordinal ones (PRank, MCP, WH, PredtronOrdinal) and
the subset ranker (PredtronRanker) -- is defined by a *rule* (:class:`Rule`): methods that act on a
state of S independent copies of the model at once (arrays with a leading axis of length S), so
that a protocol runs S sequences in one pass and ``partial_fit`` runs the very same rule with S = 1
on views of the fitted attributes (the two can never drift apart).

``init_state(n_copies, n_features, **shape) -> dict``
    The zero model, one named array per fitted attribute (``{"coef": (S, d), ...}``). ``shape``
    holds what else sizes the model: ``n_ranks=k`` for the ordinal rules (the state then also
    holds ``"n_ranks": k``); nothing for the ranker (a query's length m may change every round).
``decision(state, X) -> scores``
    Real-valued scores of one instance per copy: ``X`` is (S, d) for a row (ordinal), (S, m, d)
    for a query of m documents (ranker).
``step(state, X, target) -> prediction``
    One online round per copy: predict for ``X`` (ranks (S,) in 1..k; positions (S, m) in 1..m),
    then update the state in place with the true ``target`` (ranks (S,); relevance (S, m)). The
    prediction is made *before* the update, and returned.
``loss(target, prediction) -> losses``
    The per-copy loss (S,) of a round's prediction: the rank loss |ŷ − y| for ordinal rules, the
    NDCG loss for the ranker. A mistake-driven learner updates exactly where it is > 0.

The engines are :func:`ordrank.protocols.engine.run_sequences` (S sequences of rows) and
:func:`ordrank.protocols.subset_ranking.batched_passes` (S copies making passes over queries).
``step`` returns the prediction rather than the loss so that a protocol may charge another loss
(``run_sequences(..., loss=...)``).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from ordrank.algorithms._ordinal import OrdinalEstimator, check_ordinal_target, rank_order
from ordrank.metrics.ordinal import rank_loss


class Rule(ABC):
    """The online rule contract (see the module docstring); the engines accept any Rule."""

    @abstractmethod
    def init_state(self, n_copies: int, n_features: int, **shape) -> dict:
        """The zero model of ``n_copies`` independent copies."""

    @abstractmethod
    def decision(self, state: dict, X: np.ndarray) -> np.ndarray:
        """Scores of one instance per copy."""

    @abstractmethod
    def step(self, state: dict, X: np.ndarray, target: np.ndarray) -> np.ndarray:
        """Predict, then update in place with ``target``; return the prediction."""

    @abstractmethod
    def loss(self, target: np.ndarray, prediction: np.ndarray) -> np.ndarray:
        """Per-copy loss of ``prediction``."""


class OnlineOrdinalRegressor(Rule, OrdinalEstimator):
    """Base class: subclasses set ``_state_keys`` and implement the rule (see module docstring):
    ``init_arrays``, ``decision``, ``rank`` (predicted ranks (S,) of ``X`` (S, d)) and ``step``.

    Labels ↔ ranks and ``score`` (−MAE in ranks) come from :class:`OrdinalEstimator`; the
    parameters every online learner shares (``n_epochs``, ``shuffle``, ``random_state``,
    ``average``) live here, as scikit-learn's ``BaseSGD`` does for its subclasses.

    ``average=True`` makes ``fit`` keep the average of the model over every round of every epoch
    (the averaged perceptron of Freund & Schapire, 1999) instead of the last one; averaged
    thresholds of ordered threshold vectors stay ordered. ``partial_fit`` always updates the last
    iterate.
    """

    _state_keys: tuple[str, ...] = ()
    _parameter_constraints: dict = {
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "average": ["boolean"],
    }

    def __init__(self, *, n_epochs=1, shuffle=False, random_state=None, average=False):
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average

    # --- the rule (vectorized over S copies) ---------------------------------------------------
    def init_arrays(self, n_copies: int, n_features: int, n_ranks: int) -> dict:
        raise NotImplementedError

    def init_state(self, n_copies: int, n_features: int, *, n_ranks: int) -> dict:
        """The zero model for ``n_copies`` independent copies."""
        return {**self.init_arrays(n_copies, n_features, n_ranks), "n_ranks": n_ranks}

    def decision(self, state: dict, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def loss(self, target: np.ndarray, prediction: np.ndarray) -> np.ndarray:
        """The rank loss |ŷ − y| of each copy."""
        return rank_loss(target, prediction)

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

    def partial_fit(self, X, y, classes=None):
        """One pass over ``(X, y)`` in order; each row is predicted, then learned from.

        ``classes`` (all labels, lowest rank first; numbers are ranked by value whatever the order
        given) is required on the first call.
        """
        first = not hasattr(self, "classes_")
        if first:
            self._validate_params()
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
        X, y = self._validate(X, y, reset=first)
        check_ordinal_target(y)
        if first:
            self._set_classes(y, classes)
            self._start(X.shape[1])
        elif classes is not None and not np.array_equal(
                rank_order(None, classes, ordered=self._ordered_labels), self.classes_):
            raise ValueError(f"classes={list(classes)} differs from classes_={self.classes_.tolist()}")
        self._pass(X, self.to_ranks(y))
        return self

    def fit(self, X, y):
        """Start from the zero model and make ``n_epochs`` online passes over the data."""
        self._validate_params()
        X, ranks = self._fit_data(X, y)  # validated once for all passes; classes_ in rank order
        self._start(X.shape[1])
        rng = check_random_state(self.random_state)
        totals = None
        if self.average:
            totals = {key: np.zeros(getattr(self, key + "_").shape) for key in self._state_keys}
        for _ in range(self.n_epochs):
            order = rng.permutation(len(ranks)) if self.shuffle else slice(None)
            self._pass(X[order], ranks[order], totals)
        if self.average:
            for key in self._state_keys:
                getattr(self, key + "_")[...] = totals[key] / (self.n_epochs * len(ranks))
        return self

    def _start(self, n_features: int) -> None:
        """The zero model as the fitted attributes (``classes_`` set)."""
        state = self.init_state(1, n_features, n_ranks=len(self.classes_))
        for key in self._state_keys:
            setattr(self, key + "_", state[key][0])

    def _pass(self, X, ranks, totals=None):
        """One online pass over validated rows and their ranks; with ``totals`` (dict of arrays),
        add the model after every round."""
        state = self._state()
        for i in range(X.shape[0]):
            self.step(state, X[i : i + 1], ranks[i : i + 1])
            if totals is not None:
                for key in self._state_keys:
                    totals[key] += state[key][0]

    def decision_function(self, X):
        """The rule's real-valued scores (see the subclass for their meaning)."""
        X = self._checked(X)
        return self.decision(self._state(), X)

    def _predict_ranks(self, X):
        return self.rank(self._state(), X)
