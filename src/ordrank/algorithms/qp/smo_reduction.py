r"""Sequential minimal optimization (SMO) of the reduction's SVM dual, compiled with numba.

Reduction-SVM (:class:`ordrank.algorithms.batch.reduction.ReductionSVM`; Li & Lin, NIPS 2006) is a
C-SVM on the extended examples :math:`a = (i_a, k_a)` (training row, rank question), labels
:math:`y_a = \pm 1`, weights :math:`w_a`, with the extended kernel
:math:`K_{ab} = K_0(x_{i_a}, x_{i_b}) + [k_a = k_b]`. Its dual, with :math:`u_a = y_a\alpha_a`,

.. math:: \min_\alpha\ \tfrac12 \beta^\top K_0 \beta + \tfrac12 \textstyle\sum_k h_k^2
          - \sum_a \alpha_a, \qquad 0 \le \alpha_a \le C w_a, \quad \sum_a u_a = 0,

where :math:`\beta_i = \sum_{a: i_a = i} u_a` and :math:`h_k = \sum_{a: k_a = k} u_a`. So the
output on an extended example is :math:`f_{i_a} + h_{k_a}` with :math:`f = K_0\beta`: the solver
keeps f (n numbers) and h (K−1), never the :math:`n(K-1) \times n(K-1)` extended Gram matrix that
LIBSVM needs as a precomputed kernel (23 GB for 6,000 rows and 10 ranks; here :math:`K_0`, 0.3 GB).

A step moves a and b along :math:`\Delta u_a = \delta`, :math:`\Delta u_b = -\delta` (the equality
holds), so with :math:`e_a = f_{i_a} + h_{k_a} - y_a` and
:math:`\eta = K_{aa} + K_{bb} - 2K_{ab}` the objective changes by
:math:`\delta(e_a - e_b) + \tfrac12\eta\delta^2`. a must be able to raise :math:`u_a` (the "up"
set: :math:`y = +1, \alpha < Cw` or :math:`y = -1, \alpha > 0`), b to lower :math:`u_b` (the "low"
set). The pair: b with the largest e of the low set, then a by the second-order rule of Fan, Chen &
Lin (JMLR 6, 2005), the largest :math:`(e_b - e_a)^2/\eta` over the up set with :math:`e_a < e_b`;
stop once :math:`\max_{low} e - \min_{up} e \le tol`, LIBSVM's criterion (its ``eps``, scikit-learn's
``tol``). The decision is :math:`f(x) + h_k + b_0` with :math:`b_0 = -\bar e` over the free
variables (LIBSVM's rule; the midpoint of the two bounds when none is free).

Shrinking (LIBSVM's heuristic): every min(m, 1000) steps, variables at a bound that could not be
chosen at the current bounds leave the active set; only the selection passes run over it (f and h
are updated for all), so no gradient needs rebuilding when they come back: once at a gap of
10·tol, and whenever the active set looks optimal (the stop is decided on every variable).
"""
from __future__ import annotations

import numpy as np

from ordrank.algorithms.qp.smo import TAU, _can_lower as _low, _can_raise as _up, take_step  # per-variable bound
from ordrank.compiled import njit


@njit
def _eta(K0, ia, ka, ib, kb):
    """The curvature K_aa + K_bb − 2K_ab of the extended kernel K₀ + [k = k′], at least TAU."""
    return max(K0[ia, ia] + K0[ib, ib] - 2 * K0[ia, ib] + (0.0 if ka == kb else 2.0), TAU)


@njit
def _select(active, n_active, alpha, f, h, rows, k, y, cap):
    """The smallest e of the up set and the largest of the low set among the active variables, and
    the index of the latter (−1 when the low set is empty)."""
    up_min, low_max, b = np.inf, -np.inf, -1
    for t in range(n_active):
        v = active[t]
        e = f[rows[v]] + h[k[v]] - y[v]
        if e < up_min and _up(alpha[v], y[v], cap[v]):
            up_min = e
        if e > low_max and _low(alpha[v], y[v], cap[v]):
            low_max, b = e, v
    return up_min, low_max, b


@njit
def _shrink(active, n_active, alpha, f, h, rows, k, y, cap, up_min, low_max):
    """Drop the variables at a bound that cannot be chosen while the bounds stay as they are: those
    that may only rise with e above the low set's largest, those that may only fall with e below
    the up set's smallest (LIBSVM's shrinking). Returns the new count; the kept come first."""
    kept = 0
    for t in range(n_active):
        v = active[t]
        up, low = _up(alpha[v], y[v], cap[v]), _low(alpha[v], y[v], cap[v])
        e = f[rows[v]] + h[k[v]] - y[v]
        if (up and not low and e > low_max) or (low and not up and e < up_min):
            continue
        active[kept] = v
        kept += 1
    return kept


@njit
def _every(active, m):
    """Every variable active again, in order (a loop: numba compiles numpy's slice assignment slowly)."""
    for t in range(m):
        active[t] = t


@njit
def smo(K0, rows, k, y, cap, n_questions, tol, max_iter):
    """The dual optimum by SMO (module docstring) with LIBSVM's shrinking; k is 0-based, cap = C·w.

    f and h are kept for every variable, so a shrunk variable's e is always exact: before stopping,
    the whole set is checked and, if a shrunk variable violates, every variable is active again.
    Returns ``(alpha, f, h, bias, iterations, converged)``."""
    n, m = K0.shape[0], len(rows)
    alpha, f, h = np.zeros(m), np.zeros(n), np.zeros(n_questions)
    active, n_active = np.arange(m), m
    every = min(m, 1000)
    counter, unshrunk, converged, it = every, False, False, 0
    while it < max_iter:
        up_min, low_max, b = _select(active, n_active, alpha, f, h, rows, k, y, cap)
        if not unshrunk and low_max - up_min <= 10 * tol:  # near the end: everything once more
            unshrunk, n_active = True, m
            _every(active, m)
            continue
        if b < 0 or low_max - up_min <= tol:
            if n_active == m:
                converged = True
                break
            n_active = m  # the active set is optimal: check the whole set
            _every(active, m)
            counter = every
            continue
        counter -= 1
        if counter == 0:
            counter = every
            n_active = _shrink(active, n_active, alpha, f, h, rows, k, y, cap, up_min, low_max)
        ib, kb = rows[b], k[b]
        best, a, eta_ab = -1.0, -1, 1.0
        for t in range(n_active):  # second order: a among the up set with e_a < e_b
            v = active[t]
            if not _up(alpha[v], y[v], cap[v]):
                continue
            iv = rows[v]
            diff = low_max - (f[iv] + h[k[v]] - y[v])
            if diff <= 0:
                continue
            eta = _eta(K0, iv, k[v], ib, kb)
            if diff * diff / eta > best:
                best, a, eta_ab = diff * diff / eta, v, eta
        if a < 0:  # the up set's best fell out in the shrink above: select again
            continue
        ia, ka = rows[a], k[a]
        cap_a = cap[a] - alpha[a] if y[a] > 0 else alpha[a]
        cap_b = alpha[b] if y[b] > 0 else cap[b] - alpha[b]
        delta = min((low_max - (f[ia] + h[ka] - y[a])) / eta_ab, cap_a, cap_b)
        take_step(alpha, h, f, K0, a, b, ia, ib, ka, kb, y[a], y[b], cap[a], cap[b], cap_a, cap_b, delta)
        it += 1
    up_min, low_max, _ = _select(np.arange(m), m, alpha, f, h, rows, k, y, cap)
    total, free = 0.0, 0
    for v in range(m):
        if 0 < alpha[v] < cap[v]:
            total += f[rows[v]] + h[k[v]] - y[v]
            free += 1
    if free:
        bias = -total / free
    elif np.isfinite(up_min) and np.isfinite(low_max):
        bias = -(up_min + low_max) / 2
    else:
        bias = -(up_min if np.isfinite(up_min) else low_max)
    return alpha, f, h, bias, it, converged


def smo_solve(K0, rows, k, labels, weights, C, n_questions, tol, max_iter=None):
    """:func:`smo` on the extended examples ``(rows, k)`` (k = 1..K−1) of a Gram matrix K0.

    Returns ``(u, h, bias, iterations, converged)`` with u = y·α the signed multipliers. The default
    ``max_iter`` is LIBSVM's, max(10⁷, 100·m)."""
    m = len(rows)
    max_iter = max(10**7, 100 * m) if max_iter is None else int(max_iter)
    y = np.asarray(labels, dtype=np.float64)
    alpha, _, h, bias, iterations, converged = smo(
        np.ascontiguousarray(K0, dtype=np.float64), np.asarray(rows, dtype=np.int64),
        np.asarray(k, dtype=np.int64) - 1, y, float(C) * np.asarray(weights, dtype=np.float64),
        int(n_questions), float(tol), max_iter)
    return y * alpha, h, bias, iterations, converged
