r"""The update of Algorithm 1: a gradient step (ℓ2 margin) or a mirror-descent step (ℓ1 margin).

A step keeps, for S independent copies, the weights ``coef`` (S, …) and applies the gradient of the
surrogate with respect to them, ``grad`` (S, …; zero for the copies without a mistake).

* ℓ2 margin (Algorithm 1, Theorem 1): W ← W − η ∇.
* ℓ1 margin (Algorithm 3 / Corollary 6): online mirror descent with ψ(w) = ½‖w‖_r², over the
  D entries of a copy, r = log D / (log D − 1). The p-norm algorithms of Gentile (2003) and
  Shalev-Shwartz (2011, p. 145) keep the dual θ and map it to the weights by the link:

  .. math:: \theta \leftarrow \theta - \eta \nabla, \qquad w = (\nabla\psi)^{-1}(\theta)
            = \nabla\psi^*(\theta),

  with the closed forms (q = r/(r − 1) the dual exponent, ψ*(θ) = ½‖θ‖_q²)

  .. math:: \nabla\psi(w)_j = \frac{\mathrm{sign}(w_j)\,|w_j|^{r-1}}{\|w\|_r^{r-2}},
            \qquad \nabla\psi^*(\theta)_j
            = \frac{\mathrm{sign}(\theta_j)\,|\theta_j|^{q-1}}{\|\theta\|_q^{q-2}}.

  Since w = ∇ψ*(θ) and θ = ∇ψ(w) are inverse maps, keeping θ is the same as the paper's
  w ← ∇ψ*(∇ψ(w) − η∇). The formula for r needs log D ≥ 2 (D ≥ 8) to give 1 < r ≤ 2; below that
  ½‖w‖_r² is not strongly convex for the formula's r, and r = 2 is used (the Euclidean step,
  which is strongly convex with respect to ‖·‖_1 with modulus 1/D ≥ 1/7).
"""
from __future__ import annotations

import numpy as np


def pnorm_exponent(dim: int) -> float:
    """r = log D / (log D − 1) for D ≥ 8 entries, else 2."""
    if dim < 8:
        return 2.0
    return float(np.log(dim) / (np.log(dim) - 1.0))


def pnorm_link(w, r: float) -> np.ndarray:
    """∇ψ(w) for ψ(w) = ½‖w‖_r², per copy (leading axis); r > 1. The inverse is the link with
    the dual exponent r/(r − 1). Computed on w scaled by its largest entry (no overflow)."""
    if not r > 1:
        raise ValueError(f"the p-norm exponent must be > 1, got r={r}")
    w = np.asarray(w, dtype=np.float64)
    flat = w.reshape(len(w), -1)
    scale = np.abs(flat).max(axis=1, keepdims=True)
    scale = np.where(scale > 0, scale, 1.0)
    u = np.abs(flat) / scale  # in [0, 1], max 1 unless w = 0
    norm = np.sum(u**r, axis=1, keepdims=True) ** (1.0 / r)
    norm = np.where(norm > 0, norm, 1.0)
    # ‖w‖_r sign(w) (|w| / ‖w‖_r)^{r−1}, with ‖w‖_r = scale·norm and |w| = scale·u
    return (scale * np.sign(flat) * u ** (r - 1.0) * norm ** (2.0 - r)).reshape(w.shape)


def pnorm_link_inverse(theta, r: float) -> np.ndarray:
    """(∇ψ)^{-1}(θ) = ∇ψ*(θ): the link with the dual exponent q = r/(r − 1)."""
    return pnorm_link(theta, r / (r - 1.0))


class EuclideanStep:
    """W ← W − η ∇ (the ℓ2-margin Predtron). State: ``coef``."""

    keys = ("coef",)

    def __init__(self, eta: float):
        self.eta = eta

    def init(self, shape) -> dict:
        return {key: np.zeros(shape) for key in self.keys}

    def update(self, state: dict, grad: np.ndarray) -> None:
        state["coef"] -= self.eta * grad


class PNormStep:
    """θ ← θ − η ∇, W = ∇ψ*(θ) (the ℓ1-margin Predtron). State: ``coef`` and its dual ``dual_coef``.

    ``dim`` is the number D of entries of one copy's weights; r = :func:`pnorm_exponent` (D).
    """

    keys = ("coef", "dual_coef")

    init = EuclideanStep.init

    def __init__(self, eta: float, dim: int):
        self.eta = eta
        self.r = pnorm_exponent(dim)

    def update(self, state: dict, grad: np.ndarray) -> None:
        rows = np.flatnonzero(np.any(grad.reshape(len(grad), -1) != 0, axis=1))
        if rows.size:
            state["dual_coef"][rows] -= self.eta * grad[rows]
            state["coef"][rows] = pnorm_link_inverse(state["dual_coef"][rows], self.r)


STATE_KEYS = {"l2": EuclideanStep.keys, "l1": PNormStep.keys}  # what each margin's step keeps


def make_step(margin: str, eta: float, dim: int):
    """The step of ``margin="l2"`` or ``"l1"`` for weights with ``dim`` entries per copy."""
    if margin == "l2":
        return EuclideanStep(eta)
    if margin == "l1":
        return PNormStep(eta, dim)
    raise ValueError(f"margin must be 'l2' or 'l1', got {margin!r}")
