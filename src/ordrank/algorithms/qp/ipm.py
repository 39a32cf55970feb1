r"""SVOR's dual by a primal-dual interior point that uses the dual's structure: one dense
:math:`n \times n` Cholesky factorization per iteration (LAPACK), nothing larger.

The dual (:mod:`ordrank.algorithms.batch.svor`), scaled by C (:math:`h = g / C \in [0, 1]`,
:math:`\tilde\nu = \nu / C \ge 0`, the objective divided by C):

.. math:: \min_{h,\,\tilde\nu}\ \tfrac C2 \beta^\top K\beta - \mathbf 1^\top h, \qquad
          \beta = Sh, \qquad Th - O\tilde\nu = 0, \qquad 0 \le h \le 1,\ \tilde\nu \ge 0,

with :math:`S` (n × m) holding :math:`s_{ij}` at (i, variable ij), :math:`T` the balance rows
(:math:`\sum_i s_{ij} h_{ij}` per threshold) and :math:`O\tilde\nu` the explicit variant's
ordering terms (:math:`\tilde\nu_{j-1} - \tilde\nu_j`; none for implicit constraints).

Mehrotra's predictor-corrector on the bound constraints (Nocedal & Wright, *Numerical
Optimization*, 2nd ed., §16.6). Each Newton system has the matrix :math:`H = CS^\top KS + D`
(D diagonal, from the bounds' multipliers) beside the p = k − 1 balance rows. Every variable
belongs to one example, so :math:`\Sigma = SD^{-1}S^\top` is diagonal and, with
:math:`M = I + \Sigma^{1/2} CK \Sigma^{1/2}` (eigenvalues ≥ 1),

.. math:: H^{-1}v = D^{-1}\bigl(v - S^\top CK\,\Delta\beta\bigr), \qquad
          \Delta\beta = \Sigma^{1/2} M^{-1} \Sigma^{-1/2} S D^{-1} v,

one Cholesky factorization of M (:math:`n^3/3` flops) per iteration, the balance rows by their
p × p Schur complement :math:`TH^{-1}T^\top`. A general sparse interior point (Clarabel through
cvxpy) factors the m + n + p KKT matrix with its dense n × n block instead, 5–7× slower at
the benchmark's sizes (docs/svor_solver.md).

Stopping rule, in the units of Clarabel's settings that ``tol`` gives (:mod:`.options`): the
balance rows within ``tol``/100, the dual residual (a margin error) within ``tol``/10 and the
duality gap within ``tol``/100, absolute or relative to the objective.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve

MAX_ITER = 100  # Newton steps before giving up (the benchmark's fits take 10–25)
STEP = 0.99     # fraction of the step to the boundary
REFINE = 2      # iterative-refinement steps per Newton solve


def ordering(k):
    """D with :math:`(D\\nu)_j = \\nu_{j-1} - \\nu_j`, SVOREX's ordering terms (k − 1 thresholds)."""
    return sp.diags([np.ones(k - 2), -np.ones(k - 2)], [-1, 0], shape=(k - 1, k - 2), format="csc")


def _max_step(w, dw):
    """The largest α ≤ 1 with w + α·dw ≥ 0 (w > 0)."""
    shrinking = dw < 0
    return min(1.0, float(np.min(-w[shrinking] / dw[shrinking]))) if shrinking.any() else 1.0


class _Problem:
    """The scaled dual's data and products (see the module docstring)."""

    def __init__(self, K, maps, C):
        self.n, self.m, self.p = len(K), len(maps.i), maps.k - 1
        self.q = maps.k - 2 if maps.constraints == "explicit" and maps.k > 2 else 0
        self.i, self.s, self.CK = maps.i, maps.s, C * np.asarray(K, dtype=float)
        T = sp.csr_matrix((maps.s, (maps.j - 1, np.arange(self.m))), shape=(self.p, self.m))
        A = sp.hstack([T, -ordering(maps.k)]) if self.q else T
        self.A = A.toarray()  # p ≤ k − 1 rows: dense is simplest and fast
        self.S = sp.csr_matrix((maps.s, (maps.i, np.arange(self.m))), shape=(self.n, self.m))

    def beta(self, h):
        return self.S @ h

    def gradient(self, x):
        """The objective's gradient in x = (h, ν̃) and the objective."""
        beta = self.beta(x[:self.m])
        f = self.CK @ beta
        grad = np.zeros_like(x)
        grad[:self.m] = self.s * f[self.i] - 1.0
        return grad, 0.5 * beta @ f - x[:self.m].sum()

    def factor(self, D):
        """The solve :math:`V \\mapsto H^{-1}V` for the diagonal D (one Cholesky factorization)."""
        m, Dh = self.m, D[:self.m]
        sig = np.bincount(self.i, 1.0 / Dh, minlength=self.n)  # Σ = S D⁻¹ Sᵀ (s² = 1)
        root = np.sqrt(sig)
        M = self.CK * root[:, None] * root[None, :]
        M[np.diag_indices_from(M)] += 1.0
        chol = cho_factor(M, lower=True, overwrite_a=True, check_finite=False)

        def solve(V):
            Vh = V[:m] / Dh[:, None]
            dbeta = root[:, None] * cho_solve(chol, (self.S @ Vh) / root[:, None],
                                              check_finite=False)
            out = np.empty_like(V)
            out[:m] = Vh - (self.S.T @ (self.CK @ dbeta)) / Dh[:, None]
            out[m:] = V[m:] / D[m:, None]
            return out

        return solve

    def hessian_times(self, D, dx):
        """(Q + D)·dx, Q = blockdiag(CSᵀKS, 0)."""
        out = D * dx
        out[:self.m] += self.S.T @ (self.CK @ (self.S @ dx[:self.m]))
        return out

    def newton_system(self, D):
        r"""The solve of :math:`(Q + D)\Delta x - A^\top\Delta y = \rho,\ A\Delta x = r`
        through H⁻¹ and the p × p Schur complement :math:`AH^{-1}A^\top`, with ``REFINE``
        steps of iterative refinement against the exact products (near the optimum D spans
        1e-8 to 1e10 and the factorizations lose digits)."""
        solve, A = self.factor(D), self.A
        HA = solve(A.T.copy())
        schur = A @ HA
        schur = cho_factor((schur + schur.T) / 2, lower=True, check_finite=False)

        def once(rho, r):
            h_rho = solve(rho[:, None])[:, 0]
            dy = cho_solve(schur, r - A @ h_rho, check_finite=False)
            return h_rho + HA @ dy, dy

        def kkt(rho, r):
            dx, dy = once(rho, r)
            scale = max(np.abs(rho).max(), np.abs(r).max(initial=0.0))
            for _ in range(REFINE):
                e_rho, e_r = rho - self.hessian_times(D, dx) + A.T @ dy, r - A @ dx
                if max(np.abs(e_rho).max(), np.abs(e_r).max(initial=0.0)) <= 1e-12 * scale:
                    break
                ex, ey = once(e_rho, e_r)
                dx, dy = dx + ex, dy + ey
            return dx, dy

        return kkt


def ipm_solve(K, maps, C, tol, max_iter=None):
    """SVOR's dual optimum for the kernel K of the quadratic term, the variables of ``maps``
    (:class:`~ordrank.algorithms.batch.svor_dual.Maps`) and C, to the accuracy ``tol`` (see the
    module docstring).

    Returns ``(g, nu, iterations, converged)``; nu is None for implicit constraints."""
    pr = _Problem(K, maps, float(C))
    m, N, A = pr.m, pr.m + pr.q, pr.A
    max_iter = MAX_ITER if max_iter is None else int(max_iter)
    x = np.concatenate([np.full(m, 0.5), np.ones(pr.q)])
    zl, zu, y = np.ones(N), np.ones(m), np.zeros(pr.p)
    n_comp = N + m
    for it in range(max_iter + 1):
        grad, objective = pr.gradient(x)
        r_dual = grad - A.T @ y - zl
        r_dual[:m] += zu
        r_primal = A @ x
        wl, wu = x, 1.0 - x[:m]
        gap = wl @ zl + wu @ zu
        if (np.abs(r_primal).max(initial=0.0) <= tol / 100 and np.abs(r_dual).max() <= tol / 10
                and gap <= tol / 100 * max(1.0 / C, abs(objective))):
            return (*_solution(x, m, pr.q, C), it, True)
        if it == max_iter:
            break
        mu = gap / n_comp
        D = zl / wl
        D[:m] += zu / wu
        try:
            kkt = pr.newton_system(D)
        except np.linalg.LinAlgError:  # not positive definite in floating point: Clarabel instead
            break

        def newton(rl, ru):
            rho = -r_dual + rl / wl
            rho[:m] -= ru / wu
            dx, dy = kkt(rho, -r_primal)
            return dx, dy, (rl - zl * dx) / wl, (ru + zu * dx[:m]) / wu

        def step(dx, dzl, dzu):
            return min(_max_step(wl, dx), _max_step(wu, -dx[:m]), _max_step(zl, dzl),
                       _max_step(zu, dzu))

        dx, _, dzl, dzu = newton(-wl * zl, -wu * zu)  # predictor (affine scaling)
        a = step(dx, dzl, dzu)
        mu_aff = ((wl + a * dx) @ (zl + a * dzl) + (wu - a * dx[:m]) @ (zu + a * dzu)) / n_comp
        sigma_mu = (mu_aff / mu) ** 3 * mu
        dx, dy, dzl, dzu = newton(sigma_mu - wl * zl - dx * dzl,  # corrector
                                  sigma_mu - wu * zu + dx[:m] * dzu)
        a = STEP * step(dx, dzl, dzu)
        x, y, zl, zu = x + a * dx, y + a * dy, zl + a * dzl, zu + a * dzu
    return (*_solution(x, m, pr.q, C), max_iter, False)


def _solution(x, m, q, C):
    g = np.clip(C * x[:m], 0.0, C)
    return g, (C * x[m:] if q else None)
