r"""The Predtron surrogate and one round of Algorithm 1 (Jain, Natarajan & Tewari, NIPS 2015).

For a label y with a correct prediction σ_y ∈ Σ_y, the surrogate (equation (2)) is

.. math:: \phi(t, y) = \max_\sigma\ L(\sigma, y)
          - \langle \mathrm{rep}(\sigma_y) - \mathrm{rep}(\sigma), t\rangle ,

a maximum of affine functions of t, hence convex in t; φ ≥ 0 (take σ = σ_y) and
φ(t, y) ≥ L(pred(t), y) (take σ = pred(t)). Its maximizer σ̃ gives the (sub)gradient

.. math:: \nabla_t \phi = \mathrm{rep}(\tilde\sigma) - \mathrm{rep}(\sigma_y).

A round is mistake driven: the gradient is returned only where L(pred(t), y) > 0, zero elsewhere.
The model's step (:mod:`.steps`) maps it to the weights: t = W x gives ∇_W = ∇_t φ · xᵀ, and for
subset ranking t = X w gives ∇_w = Xᵀ ∇_t φ.
"""
from __future__ import annotations

import numpy as np


def surrogate(space, loss, t, y, sigma_y) -> tuple[np.ndarray, np.ndarray]:
    """φ(t, y) with the given σ_y, and its maximizer σ̃, one per row."""
    sigma_tilde = space.maximize(loss, t, y)
    gap = np.sum((space.rep(sigma_y) - space.rep(sigma_tilde)) * np.asarray(t), axis=-1)
    return loss(sigma_tilde, y) - gap, sigma_tilde


def predtron_round(space, loss, t, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lines 4–9 of Algorithm 1 for n independent rows of scores ``t`` (n, d) and labels ``y``.

    Returns the predictions pred(t), their losses L(pred(t), y), and ∇_t φ (n, d): zero on the
    rows without a mistake, rep(σ̃) − rep(σ_y) on the others.
    """
    t = np.asarray(t, dtype=np.float64)
    predictions = space.pred(t)
    losses = np.asarray(loss(predictions, y), dtype=np.float64)
    grad = np.zeros_like(t)
    mistakes = np.flatnonzero(losses > 0)
    if mistakes.size:
        y_m, t_m = np.asarray(y)[mistakes], t[mistakes]
        sigma_y = space.correct(loss, y_m, t_m)
        sigma_tilde = space.maximize(loss, t_m, y_m)
        grad[mistakes] = space.rep(sigma_tilde) - space.rep(sigma_y)
    return predictions, losses, grad
