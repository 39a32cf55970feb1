r"""Prediction spaces: the representation rep(σ), the decoding pred(t), and the surrogate maximizer.

A space holds unit-norm representations rep(σ) ∈ R^d of its predictions σ and decodes a score
t ∈ R^d by maximum similarity (equation (1) of Jain, Natarajan & Tewari, 2015):

.. math:: \mathrm{pred}(t) \in \arg\max_\sigma \langle \mathrm{rep}(\sigma), t\rangle .

It also solves the loss-augmented problem of the surrogate (:mod:`.surrogate`),

.. math:: \tilde\sigma = \arg\max_\sigma\ L(\sigma, y) + \langle \mathrm{rep}(\sigma), t\rangle,

and picks the member σ_y of the correct set Σ_y = {σ : L(σ, y) = 0} used on a round. Any member
is allowed by the paper's analysis (the surrogate of the round is convex in t and vanishes at a
separating model for each of them); this module takes the one most similar to the current score,
argmax_{σ ∈ Σ_y} ⟨rep(σ), t⟩, so that an update never asks to reorder predictions that are all
correct (e.g. documents of equal relevance). Arrays carry a leading axis over independent rows.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.optimize import linear_sum_assignment


class Permutations:
    r"""Rankings of m documents: σ(i) is the position (1 = top) of document i.

    rep(σ) = f(σ)/Z with f strictly decreasing, applied entrywise, and Z = ‖(f(1), …, f(m))‖, so
    ‖rep(σ)‖ = 1 and d = m. By the rearrangement inequality pred(t) sorts t in decreasing order.
    Ties in t go to the lower document index (a stable sort), as do ties in y when choosing σ_y
    (after the current scores: σ_y sorts by relevance, then by score, then by index).

    The maximizer (Lemma 3) with an :class:`~.losses.NDCGLoss`, L(σ, y) = c(y) − Σ_i G_{i,σ(i)}:

    .. math:: \tilde\sigma = \arg\max_\sigma \sum_{i=1}^m
              \Big(\frac{t_i f(\sigma(i))}{Z} - G_{i,\sigma(i)}\Big),

    a linear assignment of documents to positions (``scipy.optimize.linear_sum_assignment``),
    O(m³) per row.

    Parameters
    ----------
    f : callable
        ``f(positions) -> values`` on an integer array of positions 1..m; checked strictly
        decreasing and finite for every m it is used with.
    """

    def __init__(self, f: Callable):
        self.f = f
        self._tables: dict[int, np.ndarray] = {}

    def table(self, m: int) -> np.ndarray:
        """rep values by position: ``table(m)[j − 1]`` = f(j)/Z, j = 1..m."""
        if m not in self._tables:
            values = np.asarray(self.f(np.arange(1, m + 1)), dtype=np.float64)
            if values.shape != (m,) or not np.all(np.isfinite(values)):
                raise ValueError(f"f must map positions 1..{m} to {m} finite values, "
                                 f"got {values!r}")
            if m > 1 and not np.all(np.diff(values) < 0):
                raise ValueError(f"f must be strictly decreasing on positions 1..{m}, got {values}")
            norm = np.linalg.norm(values)
            if norm == 0:
                raise ValueError("f(1..m) must not be all zero (rep(σ) is f(σ)/‖f‖)")
            self._tables[m] = values / norm
        return self._tables[m]

    def rep(self, positions) -> np.ndarray:
        positions = np.asarray(positions)
        return self.table(positions.shape[-1])[positions - 1]

    def pred(self, t) -> np.ndarray:
        return positions_of(t)

    def correct(self, loss, y, t) -> np.ndarray:
        """σ_y: documents by decreasing relevance, then decreasing score, then index (lexsort is
        stable)."""
        y, t = np.atleast_2d(y), np.atleast_2d(t)
        return _positions(np.lexsort((-t, -y), axis=-1))

    def maximize(self, loss, t, y) -> np.ndarray:
        """σ̃ for each row, by a linear assignment (σ_y only shifts φ by a constant)."""
        t = np.atleast_2d(np.asarray(t, dtype=np.float64))
        gains = loss.position_gains(y)
        values = self.table(t.shape[1])
        out = np.empty(t.shape, dtype=np.int64)
        for q in range(len(t)):
            rows, cols = linear_sum_assignment(t[q][:, None] * values[None, :] - gains[q],
                                               maximize=True)
            out[q, rows] = cols + 1
        return out


def positions_of(t) -> np.ndarray:
    """Positions 1..m sorting each row of t decreasingly; equal scores keep document order."""
    return _positions(np.argsort(-np.asarray(t), axis=-1, kind="stable"))


def _positions(order: np.ndarray) -> np.ndarray:
    """Invert orderings: ``order[q, j]`` is the document at position j + 1 → σ(i) per document."""
    positions = np.empty_like(order)
    np.put_along_axis(positions, order, np.arange(1, order.shape[-1] + 1)[None, :], axis=-1)
    return positions


class FiniteSpace:
    r"""k predictions with representations given as the rows of a matrix R (k, d) of unit norm.

    pred(t) = argmax_σ R_σ·t (ties go to the lowest σ). With a :class:`~.losses.MatrixLoss` the
    maximizer enumerates the k predictions: σ̃ = argmax_σ L(σ, y) + R_σ·t (ties: lowest σ).
    """

    def __init__(self, matrix):
        matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
        if not np.allclose(np.linalg.norm(matrix, axis=1), 1.0):
            raise ValueError("every representation (row) must have unit Euclidean norm")
        self.matrix = matrix

    @classmethod
    def standard_basis(cls, k: int) -> "FiniteSpace":
        """rep(σ) = e_σ ∈ R^k: pred is the argmax of the k scores (multiclass, ordinal)."""
        return cls(np.eye(k))

    @classmethod
    def signs(cls) -> "FiniteSpace":
        """Binary: rep(1) = −1, rep(2) = +1 in R^1, so pred(t) = 2 if t > 0 else 1."""
        return cls([[-1.0], [1.0]])

    def rep(self, sigma) -> np.ndarray:
        return self.matrix[np.asarray(sigma) - 1]

    def similarities(self, t) -> np.ndarray:
        """⟨rep(σ), t⟩ for every σ: shape (n, k)."""
        return np.asarray(t) @ self.matrix.T

    def pred(self, t) -> np.ndarray:
        return self.similarities(t).argmax(-1) + 1

    def correct(self, loss, y, t) -> np.ndarray:
        """σ_y: the member of Σ_y most similar to t (ties: lowest σ)."""
        zero = loss.matrix[:, np.asarray(y) - 1].T == 0  # (n, k)
        return np.where(zero, self.similarities(t), -np.inf).argmax(-1) + 1

    def maximize(self, loss, t, y) -> np.ndarray:
        return (loss.matrix[:, np.asarray(y) - 1].T + self.similarities(t)).argmax(-1) + 1
