"""WH: Widrow-Hoff online least squares on the rank, rounded and clipped to 1..k."""
from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from ordrank.algorithms.online._base import OnlineOrdinalRegressor


class WidrowHoff(OnlineOrdinalRegressor):
    r"""Online regression of the rank (LMS), the over-constrained baseline of the PRank paper.

    Prediction: :math:`\hat y = \min(k, \max(1, \lfloor w\cdot x + 1/2 \rfloor))`.

    Update, on every round (not only on mistakes):

    .. math:: w \leftarrow w + \eta_t\, (y - w\cdot x)\, x, \qquad
              \eta_t = \eta \;\text{or, with ``normalized=True``,}\; \eta / \|x\|^2 .

    The plain step is stable for :math:`0 < \eta < 2/\|x\|^2`; on the synthetic experiment
    (degree-2 kernel features, ‖x‖² ≤ 9) η = 0.05 is used. The normalized step (normalized LMS) is
    stable for 0 < η < 2 whatever the scale of x, which rating data with thousands of sparse
    features needs (a zero x gives no update).

    Parameters
    ----------
    eta : float, default=0.05
        The step size η.
    normalized : bool, default=False
        Divide the step by ‖x‖² (normalized LMS).
    n_epochs, shuffle, random_state, average : see :class:`~ordrank.algorithms.PRank`.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The regression weights ``w``.
    classes_ : ndarray of shape (n_classes,)
    """

    _state_keys = ("coef",)
    _parameter_constraints = {
        **OnlineOrdinalRegressor._parameter_constraints,
        "eta": [Interval(Real, 0, None, closed="neither")],
        "normalized": ["boolean"],
    }

    def __init__(self, *, eta=0.05, normalized=False, n_epochs=1, shuffle=False, random_state=None,
                 average=False):
        super().__init__(n_epochs=n_epochs, shuffle=shuffle, random_state=random_state,
                         average=average)
        self.eta = eta
        self.normalized = normalized

    def init_arrays(self, n_copies, n_features, n_ranks):
        return {"coef": np.zeros((n_copies, n_features))}

    def decision(self, state, X):
        """The regressed rank w·x (real-valued)."""
        return np.einsum("...d,...d->...", state["coef"], X)

    def rank(self, state, X):
        return _round_to_rank(self.decision(state, X), state["n_ranks"])

    def step(self, state, X, y):
        w = state["coef"]
        fx = self.decision(state, X)
        step = self.eta * (y - fx)
        if self.normalized:
            norm2 = np.einsum("sd,sd->s", X, X)
            step = np.divide(step, norm2, out=np.zeros_like(step), where=norm2 > 0)
        w += step[:, None] * X
        return _round_to_rank(fx, state["n_ranks"])


def _round_to_rank(fx, n_ranks):
    """Round half up, then clip to 1..k."""
    return np.clip(np.floor(fx + 0.5), 1, n_ranks).astype(np.int64)
