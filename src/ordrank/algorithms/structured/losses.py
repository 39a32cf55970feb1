r"""Losses L(σ, y) of the Predtron framework: a prediction σ against a label y, L ≥ 0.

Every loss has a zero for each label (the set Σ_y = {σ : L(σ, y) = 0} is not empty). A loss also
tells the surrogate maximizer (:mod:`.spaces`) its structure:

* :class:`MatrixLoss` — finite prediction and label spaces, L given as a k × ℓ matrix (0-1 loss,
  the absolute rank loss |σ − y|); the maximizer enumerates the k predictions.
* :class:`NDCGLoss` — permutations σ of m documents against relevance vectors y; the loss is
  affine in the assignment of documents to positions (Lemma 3 of Jain, Natarajan & Tewari, 2015),
  so the maximizer solves a linear assignment problem.
"""
from __future__ import annotations

import numpy as np

from ordrank.metrics.ranking import dcg_discounts, gains_and_ideal_dcg, ndcg_unchecked


class MatrixLoss:
    r"""A loss on predictions 1..k and labels 1..ℓ given by its matrix: L(σ, y) = matrix[σ−1, y−1].

    Each column needs a zero (Σ_y not empty); entries are finite and ≥ 0. ``c_L`` and ``C_L`` are
    the smallest non-zero and the largest entries (the constants of Theorem 1).
    """

    def __init__(self, matrix):
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 2 or not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
            raise ValueError("a loss matrix must be 2-D, finite and >= 0")
        if not np.all((matrix == 0).any(axis=0)):
            raise ValueError("every label (column) of the loss matrix needs a prediction of loss 0")
        self.matrix = matrix

    @classmethod
    def zero_one(cls, k: int) -> "MatrixLoss":
        """L(σ, y) = 1 if σ ≠ y else 0."""
        return cls(1.0 - np.eye(k))

    @classmethod
    def absolute(cls, k: int) -> "MatrixLoss":
        """The rank loss L(σ, y) = |σ − y| on ranks 1..k."""
        r = np.arange(k)
        return cls(np.abs(r[:, None] - r[None, :]).astype(np.float64))

    @property
    def c_L(self) -> float:
        return float(self.matrix[self.matrix > 0].min())

    @property
    def C_L(self) -> float:
        return float(self.matrix.max())

    def __call__(self, sigma, y) -> np.ndarray:
        """L(σ, y) for arrays of predictions and labels (1-based), elementwise."""
        return self.matrix[np.asarray(sigma) - 1, np.asarray(y) - 1]


class NDCGLoss:
    r"""L(σ, y) = 1 − NDCG(σ, y) (:func:`ordrank.metrics.ndcg`) on permutations of m documents.

    Affine in the assignment: with gains g_i = 2^{y(i)} − 1 and Z(y) the ideal DCG,

    .. math:: L(\sigma, y) = c(y) - \sum_{i=1}^m G_{i, \sigma(i)}, \qquad
              G_{ij} = \frac{g_i}{Z(y)\, \log_2(1 + j)},

    c(y) = 1 (and G = 0, c = 0 when every relevance is 0: then L ≡ 0). ``C_L`` ≤ 1 and ``c_L`` > 0
    depends on the relevance grades (Corollary 5).
    """

    C_L = 1.0

    def __call__(self, positions, relevance) -> np.ndarray:
        """1 − NDCG, unchecked: positions come from a space's pred, relevance from a checked fit."""
        return 1.0 - ndcg_unchecked(np.atleast_2d(positions),
                                    np.atleast_2d(np.asarray(relevance, dtype=np.float64)))

    def position_gains(self, relevance) -> np.ndarray:
        """G of shape (n, m, m): G[q, i, j−1] = g_i / (Z(y) log2(1 + j)), 0 for an all-zero row."""
        relevance = np.atleast_2d(np.asarray(relevance, dtype=np.float64))
        gains, ideal = gains_and_ideal_dcg(relevance)
        scale = np.where(ideal > 0, 1.0 / np.where(ideal > 0, ideal, 1.0), 0.0)
        return (gains * scale[:, None])[:, :, None] * dcg_discounts(relevance.shape[1])[None, None, :]
