"""What the Predtron instances with finitely many predictions share: an online learner in the
repository's rule style (:mod:`ordrank.algorithms.online._base`) whose model is a matrix
W (d_rep, n_features) with scores t = W x."""
from __future__ import annotations

from functools import lru_cache
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ordrank.algorithms._ordinal import TOO_LARGE, check_finite
from ordrank.algorithms.online._base import OnlineOrdinalRegressor
from ordrank.algorithms.structured.steps import STATE_KEYS, make_step
from ordrank.algorithms.structured.surrogate import predtron_round


class FinitePredtron(OnlineOrdinalRegressor):
    """Base: subclasses give ``parts(k) -> (space, loss)``; the step comes from ``margin``."""

    _parameter_constraints: dict = {
        **OnlineOrdinalRegressor._parameter_constraints,
        "margin": [StrOptions({"l2", "l1"})],
        "eta": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, *, margin="l2", eta=1.0, n_epochs=1, shuffle=False, random_state=None,
                 average=False):
        super().__init__(n_epochs=n_epochs, shuffle=shuffle, random_state=random_state,
                         average=average)
        self.margin = margin
        self.eta = eta

    @property
    def _state_keys(self):
        return STATE_KEYS[self.margin]

    @staticmethod
    def parts(n_ranks: int):
        raise NotImplementedError

    def _step(self, shape):
        return _cached_step(self.margin, float(self.eta), int(np.prod(shape)))

    # --- the rule ------------------------------------------------------------------------------
    def init_arrays(self, n_copies, n_features, n_ranks):
        shape = (self.parts(n_ranks)[0].matrix.shape[1], n_features)
        return self._step(shape).init((n_copies, *shape))

    def decision(self, state, X):
        """The scores t = W x, (S, d_rep)."""
        return np.einsum("...kd,...d->...k", state["coef"], X)

    def rank(self, state, X):
        return self.parts(state["n_ranks"])[0].pred(self.decision(state, X))

    def step(self, state, X, y):
        space, loss = self.parts(state["n_ranks"])
        scores = self.decision(state, X)
        check_finite(self, "the scores W·x", scores, X, TOO_LARGE)  # huge inputs: Diverged
        y_hat, _, grad_t = predtron_round(space, loss, scores, y)
        self._step(state["coef"].shape[1:]).update(state, grad_t[:, :, None] * X[:, None, :])
        return y_hat

    def decision_function(self, X):
        """Scores t = W x (n, d_rep); with two scores, scikit-learn's binary convention t₂ − t₁."""
        scores = super().decision_function(X)
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores[:, 0] if scores.shape[1] == 1 else scores


@lru_cache(maxsize=64)
def _cached_step(margin, eta, dim):
    return make_step(margin, eta, dim)
