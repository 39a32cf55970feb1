r"""PredtronOrdinal: the Predtron for ordinal regression (Section 3 of Jain, Natarajan & Tewari,
NIPS 2015)."""
from __future__ import annotations

from functools import lru_cache

from ordrank.algorithms.structured._finite import FinitePredtron
from ordrank.algorithms.structured.losses import MatrixLoss
from ordrank.algorithms.structured.spaces import FiniteSpace


class PredtronOrdinal(FinitePredtron):
    r"""Ordinal regression by the Predtron: k prototypes, the rank loss, mistake driven.

    rep(σ) = e_σ ∈ R^k, scores t = W x with W ∈ R^{k×p}, pred(t) = argmax_σ t_σ (ties: the lowest
    rank), L(σ, y) = |σ − y|. On a round with L > 0 the surrogate's maximizer is

    .. math:: \tilde\sigma = \arg\max_\sigma\ |\sigma - y| + t_\sigma ,

    the gradient ∇_W = (e_σ̃ − e_y) xᵀ, and the step W ← W − η∇ (``margin="l2"``: the true
    prototype gains ηx and σ̃'s loses ηx) or the p-norm mirror step on the dual of W (``"l1"``,
    r from D = k·p entries). Unlike MCP's uniform update over the error set, σ̃ weighs a rank's
    score by its distance from y. Theorem 1: on a stream separable with margin γ by a unit
    Frobenius-norm W*, with ‖x‖ ≤ R and η = c_L/(4R²) = 1/(4R²), the cumulative rank loss is at
    most 4R²C_L²/(c_L γ²) = 4(k−1)²R²/γ².

    The step size matters even from W = 0: scaling W scales t but not the loss in σ̃.

    Parameters
    ----------
    margin : {"l2", "l1"}, default="l2"
    eta : float > 0, default=1.0
    n_epochs, shuffle, random_state, average : see :class:`~ordrank.algorithms.PRank`.

    Attributes
    ----------
    coef_ : ndarray (n_classes, n_features)
        W, row r−1 for rank r.
    dual_coef_ : ndarray (n_classes, n_features)
        The dual θ (``margin="l1"`` only); ``coef_`` = ∇ψ*(θ).
    classes_ : ndarray (n_classes,)
    """

    @staticmethod
    @lru_cache(maxsize=32)
    def parts(n_ranks):
        return FiniteSpace.standard_basis(n_ranks), MatrixLoss.absolute(n_ranks)
