"""WH: Widrow-Hoff online least squares on the rank, rounded and clipped to 1..k."""
from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from ordrank.algorithms._ordinal import Diverged, check_finite
from ordrank.algorithms.online._base import OnlineOrdinalRegressor

# a stable LMS on ranks 1..k keeps its error y − w·x within a few ranks; an error a million ranks off
# can only come from growth by |1 − η‖x‖²| > 1 per round (the unstable step), long before overflow
DIVERGED_ERROR = 1e6


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

    Divergence is detected by growth: the error y − w·x of a round is multiplied by
    |1 − η‖x‖²| by its update, so with η‖x‖² > 2 it grows geometrically (to 1e235 in 2,000 rounds at
    η = 1 on the synthetic features) while the time-averaged loss of the clipped predictions still
    looks plausible. A stable LMS on ranks 1..k keeps that error within a few ranks, so a round whose
    error exceeds ``DIVERGED_ERROR`` = 1e6 ranks (or whose update leaves ``w`` non-finite) raises
    :class:`~ordrank.algorithms._ordinal.Diverged` on that round, naming the learner, η, the error,
    the largest η‖x‖² seen and the stable range, by ``partial_fit``/``fit`` and by the vectorized
    protocol alike (both call :meth:`step`). A prediction is always a rank in 1..k: ±∞ scores are clipped to 1 or k, and
    a NaN score (w·x overflowing on huge inputs, as ∞ − ∞) raises a ValueError instead of being
    cast to an integer.

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
        with np.errstate(over="ignore", invalid="ignore"):
            fx = self.decision(state, X)
        rows = np.flatnonzero(np.isnan(fx).reshape(-1))
        if rows.size:
            raise ValueError(f"{self!r}: w·x is NaN (it overflowed) for row(s) {rows[:5].tolist()}: "
                             "the inputs are too large for the weights; scale them")
        return _round_to_rank(fx, state["n_ranks"])

    def step(self, state, X, y):
        w = state["coef"]
        with np.errstate(over="ignore", invalid="ignore"):
            fx = self.decision(state, X)
            error = y - fx
            if not (np.abs(error) <= DIVERGED_ERROR).all():  # NaN included
                self._diverged(error, X)
            step = self.eta * error
            if self.normalized:
                norm2 = np.einsum("sd,sd->s", X, X)
                step = np.divide(step, norm2, out=np.zeros_like(step), where=norm2 > 0)
            w += step[:, None] * X
        check_finite(self, "its weights", w, X, self._advice)
        return _round_to_rank(fx, state["n_ranks"])

    def _diverged(self, error, X):
        worst = float(np.max(np.abs(error), initial=0.0))  # NaN when w·x is NaN
        with np.errstate(over="ignore", invalid="ignore"):
            norm2 = np.einsum("...d,...d->...", X, X)
            gain = float(np.max(self.eta * (np.ones_like(norm2) if self.normalized else norm2)))
        raise Diverged(f"{self!r} diverged: its error |y − w·x| grew to {worst:.3g} ranks (past "
                       f"{DIVERGED_ERROR:.0e}; each update multiplies it by |1 − η‖x‖²|, and η‖x‖² is "
                       f"up to {gain:.3g} on this round's inputs); {self._advice()}")

    def _advice(self) -> str:
        if self.normalized:
            return f"eta={self.eta} with normalized=True is stable only for 0 < eta < 2: lower eta"
        return (f"eta={self.eta} is stable only below 2/‖x‖² for every input x: lower eta, scale the "
                "inputs, or set normalized=True (stable for 0 < eta < 2 at any scale)")


def _round_to_rank(fx, n_ranks):
    """Round half up, then clip to 1..k (±∞ go to 1 or k; ``fx`` must not be NaN)."""
    return np.clip(np.floor(fx + 0.5), 1, n_ranks).astype(np.int64)
