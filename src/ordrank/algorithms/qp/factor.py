r"""The kernel term :math:`\tfrac12\beta^\top K\beta` of a dual in one of two forms.

A pivoted (incomplete) Cholesky factor :math:`K \approx LL^\top`, :math:`L \in \mathbb{R}^{n
\times r}`, is tried first: greedy pivots on the residual's diagonal, stopping once
:math:`\operatorname{tr}(K - LL^\top) \le` ``RANK_TOL`` :math:`\cdot \operatorname{tr} K`
(:math:`O(nr^2)`). If that takes at most ``MAX_RANK`` :math:`\cdot\, n` and ``RANK_CAP`` columns,
the term is :math:`\tfrac12\|u\|^2` with :math:`u = L^\top\beta` an auxiliary variable: the KKT
system gets a dense :math:`r \times n` block and each interior-point factorization costs
:math:`O(nr^2)`. Since :math:`0 \preceq K - LL^\top`, the objective at any :math:`\beta` changes
by at most :math:`\tfrac12\|\beta\|^2 \operatorname{tr}(K - LL^\top)`. Otherwise the exact
:math:`n \times n` form, a dense block (:math:`O(n^3)` per factorization); cvxpy is told the
matrix is PSD (``cp.psd_wrap``) rather than checking it. Linear and polynomial kernels have
:math:`r \le` the feature-space dimension; a Gaussian kernel's spectrum decays fast only in few
dimensions or for small γ. A caller with a kernel that is only conditionally PSD centres it first
where its constraints force :math:`\sum_i\beta_i = 0` (the term is then unchanged).
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

RANK_TOL = 1e-8  # the factor's residual trace, relative to trace(K)
MAX_RANK = 0.2   # the factor is used if its rank r ≤ min(MAX_RANK·n, RANK_CAP), else the exact
RANK_CAP = 300   # n × n form (at n = 1000, r = 170 was 2× faster, r = 400 1.5× slower)


def pivoted_cholesky(K, rel_tol, max_rank):
    """L (n × r) with tr(K − LLᵀ) ≤ rel_tol·tr(K), K PSD, by greedy pivoting on the residual's
    diagonal, touching only diag(K) and r rows of K: O(n r²). None if r would exceed max_rank."""
    d = np.diag(K).copy()
    Lt = np.zeros((max_rank, len(d)))  # Lᵀ: its rows contiguous
    stop = rel_tol * d.sum()
    with threadpool_limits(1, "blas"):  # threaded gemv: 25× slower on a busy machine
        for r in range(max_rank + 1):
            if r and np.abs(d).sum() <= stop:  # |d|: an indefinite K never stops early
                return Lt[:r].T.copy()
            if r == max_rank or d.max() <= 0:
                return None
            p = np.argmax(d)
            Lt[r] = (K[p] - Lt[:r, p] @ Lt[:r]) / np.sqrt(d[p])
            d -= Lt[r] ** 2


def low_rank_factor(K):
    """The factor L of K (n × n) where it pays (see the module docstring), else None."""
    return pivoted_cholesky(K, RANK_TOL, min(int(MAX_RANK * len(K)), RANK_CAP))


def dense_csc(A):
    """A dense matrix as CSC with every entry stored, without scanning it for zeros."""
    n, m = A.shape
    return sp.csc_matrix((A.ravel(order="F"), np.tile(np.arange(n), m), np.arange(0, n * m + 1, n)),
                         shape=A.shape)


def kernel_term(beta, K, L=None):
    r"""cvxpy's :math:`\beta^\top K\beta` (twice the term) and its extra constraints: with the
    factor, :math:`\|u\|^2` and :math:`u = L^\top\beta`; else the exact quadratic form of the
    PSD-wrapped K (sparse: compiles faster than a dense constant)."""
    if L is None:
        return cp.quad_form(beta, cp.psd_wrap(dense_csc(K))), []
    u = cp.Variable(L.shape[1])
    return cp.sum_squares(u), [u == L.T @ beta]
