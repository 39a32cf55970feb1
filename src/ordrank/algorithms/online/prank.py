"""PRank: the perceptron ranking algorithm of Crammer & Singer (NIPS 2001)."""
from __future__ import annotations

import numpy as np

from ordrank.algorithms._ordinal import TOO_LARGE, check_finite
from ordrank.algorithms.online._base import OnlineOrdinalRegressor


class PRank(OnlineOrdinalRegressor):
    r"""Perceptron ranking with a direction ``w`` and ordered thresholds ``b_1 ≤ … ≤ b_{k-1}``.

    Prediction (``b_k = +∞``):

    .. math:: \hat y = \min\{ r \in 1..k : w\cdot x - b_r < 0 \}

    Update, only on a mistake (:math:`\hat y \ne y`), exactly as in the paper's Figure 2: for
    r = 1..k−1 let :math:`y_r = -1` if :math:`y \le r` else :math:`+1`, and
    :math:`\tau_r = y_r` if :math:`(w\cdot x - b_r)\, y_r \le 0` else 0; then

    .. math:: w \leftarrow w + \Big(\sum_r \tau_r\Big) x, \qquad b_r \leftarrow b_r - \tau_r .

    ``w`` and ``b`` start at 0. The thresholds stay ordered after every update (the paper's order
    preservation lemma) and, on a stream separable with margin γ by a unit-norm rule (w*, b*), the
    cumulative rank loss is at most (k−1)(R²+1)/γ² with R = max ‖x‖.

    Parameters
    ----------
    n_epochs : int, default=1
        Online passes over the data in ``fit``.
    shuffle : bool, default=False
        Shuffle the data before each pass in ``fit``.
    random_state : int, RandomState or None
        Seed for the shuffling.
    average : bool, default=False
        In ``fit``, end with the average of ``w`` and ``b`` over every round of every pass (the
        averaged perceptron), the batch use of PRank; the averaged thresholds stay ordered.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The direction ``w``.
    thresholds_ : ndarray of shape (n_classes - 1,)
        The finite thresholds ``b_1..b_{k-1}``, non-decreasing.
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order.
    """

    _state_keys = ("coef", "thresholds")


    def init_arrays(self, n_copies, n_features, n_ranks):
        return {
            "coef": np.zeros((n_copies, n_features)),
            "thresholds": np.zeros((n_copies, n_ranks - 1)),
        }

    def decision(self, state, X):
        """The projection w·x."""
        return np.einsum("...d,...d->...", state["coef"], X)

    def rank(self, state, X):
        below = self.decision(state, X)[..., None] < state["thresholds"]  # w·x − b_r < 0
        # first r with w·x < b_r; none (argmax of all-False is 0 but below.any() is False) → k
        return np.where(below.any(-1), below.argmax(-1) + 1, below.shape[-1] + 1)

    def step(self, state, X, y):
        w, b = state["coef"], state["thresholds"]
        y_hat = self.rank(state, X)
        margin = self.decision(state, X)[:, None] - b  # (S, k-1)
        check_finite(self, "w·x", margin, X, TOO_LARGE)  # huge inputs: Diverged, not a silent k
        y_r = np.where(y[:, None] <= np.arange(1, b.shape[1] + 1), -1.0, 1.0)
        tau = np.where(margin * y_r <= 0, y_r, 0.0) * (y_hat != y)[:, None]
        w += tau.sum(1)[:, None] * X
        b -= tau
        return y_hat
