r"""The cutting plane's model QP over the simplex, exactly, by a primal active set warm-started from
the last round's optimum:

.. math::

    \min_\alpha \tfrac12 \alpha^\top G \alpha - b^\top \alpha \quad\text{s.t.}\quad
    \alpha \ge 0,\ \ \textstyle\sum_k \alpha_k \le 1,

with ``G = A Aᵀ`` positive semidefinite (of rank at most the number of features). A slack (a zero
cut) turns the inequality into ``Σ_k α_k + s = 1``. The free set F holds the variables off their
bound; each step solves the equality-constrained problem on F (its KKT system,
``[[G_FF, 1], [1ᵀ, 0]]``, of the size of F plus one row), moves there or to the first bound on the
way (which leaves F), and at F's optimum frees the variable of most negative reduced cost
``λ_i = (Gα − b)_i + ν``; it stops when none is below ``-tol``. Where the KKT system is singular
(G_FF has a null direction on the constraint's null space) the step follows that direction (zero
curvature, descending) to the first bound, so F stays of full rank (Nocedal & Wright 2006, §16.5;
Fletcher's inertia-controlling active set).

From the last optimum a round adds a few cuts and the optimum moves a little: about 16 steps
(half of them freeing a cut, half reaching a bound) on systems of a few dozen rows, compiled with
numba, against an interior point's full solve each round (Clarabel, about 5 ms on 200 cuts).
:func:`simplex_qp` returns None when it does not get there within ``max_iter`` steps or the
objective goes up (rounding on a nearly singular system); the caller then solves the problem from
scratch (Clarabel).
"""
from __future__ import annotations

import numpy as np

from ordrank.compiled import njit


@njit
def _active_set(H, c, x, tol, max_iter):
    """The active-set loop from the feasible ``x`` (changed in place); True when it converged."""
    n = len(c)
    free = x > 0
    value = 0.5 * x @ (H @ x) - c @ x
    for _ in range(max_iter):
        F = np.flatnonzero(free)
        m = len(F)
        K, rhs = np.zeros((m + 1, m + 1)), np.zeros(m + 1)
        for a in range(m):
            for b in range(m):
                K[a, b] = H[F[a], F[b]]
            K[a, m] = K[m, a] = 1.0
            rhs[a] = c[F[a]] - H[F[a]] @ x
        # eigenvalues below 1e-9 of the largest are null: an LU solve of a nearly singular K
        # passes for a regular one and is wrong
        values, vectors = np.linalg.eigh(K)
        null = np.abs(values) <= 1e-9 * np.max(np.abs(values))
        d = np.zeros(m)
        regular_step = True
        if null.any():  # −gradient projected on the null directions' steps: flat and downhill
            D = vectors[:m][:, null]
            d = D @ (D.T @ rhs[:m])
            regular_step = np.sqrt(d @ d) <= 1e-9 * max(np.sqrt(rhs[:m] @ rhs[:m]), 1e-300)
        if regular_step:  # F's optimum, the least-norm solution
            keep = ~null
            solution = vectors[:, keep] @ ((vectors[:, keep].T @ rhs) / values[keep])
            d = solution[:m]
        elif not (d < 0).any():
            d = -d  # flat along it: either way, to a bound
        step, blocking = 1.0 if regular_step else np.inf, -1
        for a in range(m):
            if d[a] < 0 and -x[F[a]] / d[a] < step:
                step, blocking = -x[F[a]] / d[a], F[a]
        if blocking < 0 and not regular_step:
            return False
        for a in range(m):
            x[F[a]] = max(x[F[a]] + step * d[a], 0.0)
        new_value = 0.5 * x @ (H @ x) - c @ x
        if new_value > value + tol * (1.0 + abs(value)):
            return False  # rounding on a nearly singular system
        value = new_value
        if blocking >= 0:
            x[blocking], free[blocking] = 0.0, False
            continue
        reduced = H @ x - c
        best, j = -tol, -1
        for i in range(n):
            if not free[i] and reduced[i] + solution[m] < best:
                best, j = reduced[i] + solution[m], i
        if j < 0:
            return True
        free[j] = True
    return False


def _in_order_sum(v):
    """Σ v summed left to right (np.sum's pairwise order would move the last bits of the start)."""
    return float(np.cumsum(v)[-1]) if len(v) else 0.0


def simplex_qp(G, b, start=None, max_iter: int | None = None, tol: float = 1e-12):
    """The minimiser α of ``½αᵀGα − bᵀα`` over ``α ≥ 0``, ``Σ α ≤ 1`` (see the module docstring);
    ``start`` a feasible point to begin from (e.g. the last round's α with the new cuts at 0).
    ``tol`` is relative to ``max(|G_kk|, |b_k|, 1)``. None if it does not converge."""
    k = len(b)
    scale = max(float(np.max(np.abs(np.diag(G)), initial=0.0)), float(np.max(np.abs(b), initial=0.0)), 1.0)
    H = np.zeros((k + 1, k + 1))
    H[:k, :k] = G / scale
    c = np.r_[b / scale, 0.0]
    x = np.zeros(k + 1)
    if start is None:
        x[k] = 1.0
    else:
        x[:k] = np.clip(start, 0.0, None)
        x[:k] /= max(_in_order_sum(x[:k]), 1.0)
        x[k] = max(1.0 - _in_order_sum(x[:k]), 0.0)
    converged = _active_set(H, c, x, tol, max_iter or 20 * (k + 1) + 100)
    return x[:k] if converged else None
