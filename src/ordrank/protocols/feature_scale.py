"""The scale of the features, PRank's threshold step, and the EachMovie protocol run at many scales.

PRank moves each threshold by 1 per mistake while w·x moves by about ‖x‖², so the scale of x sets
how much the thresholds matter. Exactly: PRank started at 0 on the stream (s·x_t, y_t), s > 0, makes
the same predictions as PRank on (x_t, y_t) whose thresholds move by η = 1/s² per mistake:

.. math:: w^{(s)}_t = s\\, w_t, \\qquad b^{(s)}_t = s^2\\, b_t ,

by induction: w^{(s)}·(s x) − b^{(s)}_r = s² (w·x − b_r) has the sign of w·x − b_r, so both make the
same prediction and the same τ, and the updates w^{(s)} += (Σ τ_r) s x, b^{(s)} −= τ keep the relation.
The multiclass perceptron (prototypes W^{(s)} = s W, scores s² W·x, same argmax and error set) and
normalized Widrow-Hoff (w^{(s)} = w / s, step η/‖x‖²) are exactly invariant to s.

:func:`scale_sweep` runs the EachMovie protocol with every feature vector, the constant feature
included, multiplied by s: the predictions of PRank at scale s are those of PRank with threshold step
1/s² at scale 1.
"""
from __future__ import annotations

from dataclasses import replace
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils._param_validation import Interval

from ordrank.algorithms.online.prank import PRank

__all__ = ["ThresholdStepPRank", "scaled_features", "scale_sweep"]


class ThresholdStepPRank(PRank):
    r"""PRank whose thresholds move by ``threshold_step`` = η per mistake (η = 1 is PRank).

    Update on a mistake, with y_r and τ_r as in :class:`~ordrank.algorithms.PRank`:

    .. math:: w \leftarrow w + \Big(\sum_r \tau_r\Big) x, \qquad b_r \leftarrow b_r - \eta\,\tau_r .

    On x it makes the same predictions as PRank on x/√η (module docstring). The thresholds stay
    ordered: each move is η times PRank's, which preserves the order.

    Parameters
    ----------
    threshold_step : float > 0, default=1.0
        η, the thresholds' step.
    n_epochs, shuffle, random_state, average : see :class:`~ordrank.algorithms.PRank`.
    """

    _parameter_constraints = {
        **PRank._parameter_constraints,
        "threshold_step": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, *, threshold_step=1.0, n_epochs=1, shuffle=False, random_state=None,
                 average=False):
        super().__init__(n_epochs=n_epochs, shuffle=shuffle, random_state=random_state,
                         average=average)
        self.threshold_step = threshold_step

    def step(self, state, X, y):
        """PRank's step (see :class:`~ordrank.algorithms.PRank`) with the thresholds moved by η τ."""
        w, b = state["coef"], state["thresholds"]
        y_hat = self.rank(state, X)
        margin = self.decision(state, X)[:, None] - b  # (S, k-1)
        y_r = np.where(y[:, None] <= np.arange(1, b.shape[1] + 1), -1.0, 1.0)
        tau = np.where(margin * y_r <= 0, y_r, 0.0) * (y_hat != y)[:, None]
        w += tau.sum(1)[:, None] * X
        b -= self.threshold_step * tau
        return y_hat


def scaled_features(scale: float) -> FunctionTransformer:
    """x ↦ s·(x, 1): append the constant feature, then multiply the whole vector by ``scale``."""
    if not (isinstance(scale, Real) and np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite positive number, got {scale!r}")
    return FunctionTransformer(_times_with_bias, kw_args={"scale": float(scale)})


def _times_with_bias(X, scale):
    return scale * np.concatenate([X, np.ones((X.shape[0], 1))], axis=1)


def scale_sweep(dataset, learners: dict, scales, protocol, seed: int = 0) -> pd.DataFrame:
    """Run the EachMovie ``protocol`` once per scale s on s·(x, 1); one tidy table with a ``scale`` column.

    ``protocol`` is an :class:`~ordrank.protocols.collaborative.EachMovieProtocol`; its own ``bias``
    is turned off because :func:`scaled_features` appends the constant feature before scaling, so at
    s = 1 the run is the protocol's default run with ``bias=True``.
    """
    scales = [float(s) for s in scales]
    if not scales:
        raise ValueError("scales is empty")
    protocol = replace(protocol, bias=False)
    tables = []
    for scale in scales:
        for table in protocol.iter_run(dataset, learners, scaled_features(scale), seed):
            tables.append(table.assign(scale=scale))
    return pd.concat(tables, ignore_index=True)

