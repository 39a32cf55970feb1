r"""Sequential minimal optimization (SMO) of SVOR's dual, compiled with numba.

The dual (:mod:`ordrank.algorithms.batch.svor`): variables :math:`g_m \in [0, C]`, one per kept
constraint (example :math:`i_m`, threshold :math:`j_m`, label :math:`s_m = \pm 1`),
:math:`\beta_i = \sum_{m: i_m = i} s_m g_m`, :math:`f = K\beta`,

.. math:: \min_g\ \tfrac12 \beta^\top K \beta - \textstyle\sum_m g_m, \qquad
          c_j = \textstyle\sum_{m: j_m = j} s_m g_m,

with :math:`c_j = 0` for every threshold (implicit constraints, SVORIM) or, with the ordering
multipliers :math:`\nu_j = -P_j \ge 0` eliminated, the partial sums
:math:`P_j = \sum_{l \le j} c_l \le 0` (:math:`j < k - 1`) and :math:`P_{k-1} = 0` (explicit
constraints, SVOREX).

A step moves two variables a (threshold :math:`j_a`) and b (:math:`j_b`) along
:math:`\Delta g_a = s_a\delta`, :math:`\Delta g_b = -s_b\delta`, so :math:`\Delta\beta = \delta
(e_{i_a} - e_{i_b})` with unit vectors e and, with :math:`e_m = f_{i_m} - s_m` and
:math:`\eta = K_{aa} + K_{bb} - 2K_{ab}`, the objective changes by
:math:`\delta(e_a - e_b) + \tfrac12\eta\delta^2`: a descent for :math:`\delta > 0` iff
:math:`e_b > e_a`. It changes :math:`c_{j_a}` by :math:`+\delta` and :math:`c_{j_b}` by
:math:`-\delta`: SVORIM allows only :math:`j_a = j_b`; SVOREX also :math:`j_a > j_b`, and
:math:`j_a < j_b` while :math:`P_j < 0` for :math:`j_a \le j < j_b` (then :math:`\delta \le
-P_j`). a must be able to raise :math:`\beta_{i_a}` (the "up" set: :math:`s = +1, g < C` or
:math:`s = -1, g > 0`; its e are upper bounds of :math:`b_{j}` at the optimum), b to lower
:math:`\beta_{i_b}` (the "low" set; lower bounds). The pair: b with the largest e of the most
violating allowed (threshold, threshold) combination, then a by the second-order rule of Fan,
Chen & Lin (JMLR 6, 2005), the largest :math:`(e_b - e_a)^2/\eta`; stop once no allowed pair has
:math:`e_b - e_a > 2\,tol` (Keerthi et al.'s criterion, the ``tol`` of the authors' C code), or
at ``max_iter`` steps with that largest :math:`e_b - e_a` (the KKT violation) returned.

The steps grow with C times the kernel's scale (scaling K by :math:`\sigma^2` is the problem at
:math:`C\sigma^2` with the same f and e, the objective divided by :math:`\sigma^2`): where the
optimum holds many variables at C, a pair step moves g by about violation / η, and a
variable's way to C takes many of them.
"""
from __future__ import annotations

import numpy as np

from ordrank.compiled import njit

TAU = 1e-12  # the smallest curvature η of a step (duplicate rows have η = 0)


@njit
def _can_raise(g, s, C):
    """Whether a variable may raise its example's β (the "up" set): s = +1 below C, s = −1 above 0."""
    return g < C if s > 0 else g > 0


@njit
def _can_lower(g, s, C):
    """Whether a variable may lower its example's β (the "low" set)."""
    return g > 0 if s > 0 else g < C


@njit
def take_step(g, c, f, K, a, b, ia, ib, ja, jb, s_a, s_b, top_a, top_b, cap_a, cap_b, delta):
    """One SMO pair step of size δ: g[a] moves by s_a·δ and g[b] by −s_b·δ within [0, top] (set to the
    bound a cap reached, so it lands there exactly), the threshold sums c[ja] += δ, c[jb] −= δ, and
    the scores f += δ (K[ia] − K[ib]) (K symmetric: its rows)."""
    g[a] = (top_a if s_a > 0 else 0.0) if delta == cap_a else g[a] + s_a * delta
    g[b] = (0.0 if s_b > 0 else top_b) if delta == cap_b else g[b] - s_b * delta
    c[ja] += delta
    c[jb] -= delta
    if ia != ib:
        for r in range(K.shape[0]):
            f[r] += delta * (K[ia, r] - K[ib, r])


@njit
def _allowed(jb, P, k, explicit, eps):
    """Which thresholds a may come from when b is at threshold jb (0-based)."""
    ok = np.zeros(k - 1, np.bool_)
    ok[jb] = True
    if explicit:
        for j in range(jb + 1, k - 1):  # a above b: always
            ok[j] = True
        for j in range(jb - 1, -1, -1):  # a below b: while every partial sum between is < 0
            if P[j] >= -eps:
                break
            ok[j] = True
    return ok


@njit
def _by_threshold(j_of, k):
    """The variables grouped by threshold, each group in the given order (a counting sort): ``order``
    (position t holds variable order[t]), ``where`` (variable v sits at position where[v]) and
    ``starts`` (threshold j's group is positions starts[j]..starts[j+1]−1). Loops, not numpy's sort,
    searchsorted and fancy assignment: the same result, and far less for numba to compile."""
    m = len(j_of)
    starts = np.zeros(k, np.int64)
    for v in range(m):
        starts[j_of[v] + 1] += 1
    for j in range(1, k):
        starts[j] += starts[j - 1]
    order, where, fill = np.empty(m, np.int64), np.empty(m, np.int64), starts.copy()
    for v in range(m):
        t = fill[j_of[v]]
        order[t], where[v] = v, t
        fill[j_of[v]] = t + 1
    return order, where, starts


@njit
def smo(K, i_of, j_of, s, k, C, tol, max_iter, explicit):
    """SVOR's dual optimum by SMO (see the module docstring); j_of is 0-based.

    The variables are kept grouped by threshold (a stable sort, so each threshold's in their
    given order): the first-order scan then walks each threshold's block with its extremes in
    registers. Ties are broken as a scan in the given order would (the first variable wins), so
    the steps, and g, do not depend on the layout.

    Returns ``(g, P, iterations, converged, violation)``: P the partial sums (ν = −P[:k−2]),
    violation the largest :math:`e_b - e_a` of an allowed pair at g (converged: ≤ 2 tol)."""
    n, m = K.shape[0], len(i_of)
    order, where, starts = _by_threshold(j_of, k)
    i_t, j_t, s_t = i_of[order], j_of[order], s[order]
    g, f = np.zeros(m), np.zeros(n)  # g by position
    c, P = np.zeros(k - 1), np.zeros(k - 1)
    up_min, up_arg = np.empty(k - 1), np.empty(k - 1, np.int64)
    low_max, low_arg = np.empty(k - 1), np.empty(k - 1, np.int64)
    eps = 1e-12 * C
    it = 0
    while True:
        # first order: per threshold, the smallest e of the up set, the largest of the low set
        for j in range(k - 1):
            um, ua, lm, la = np.inf, -1, -np.inf, -1
            for t in range(starts[j], starts[j + 1]):
                st, gt = s_t[t], g[t]
                e = f[i_t[t]] - st
                # _can_raise / _can_lower written out: 10-15 % faster here than the calls
                if (gt < C) if st > 0 else (gt > 0):
                    if e < um:
                        um, ua = e, t
                if (gt > 0) if st > 0 else (gt < C):
                    if e > lm:
                        lm, la = e, t
            up_min[j], up_arg[j], low_max[j], low_arg[j] = um, ua, lm, la
        acc = 0.0
        for j in range(k - 1):
            acc += c[j]
            P[j] = acc
        gap, jb = -np.inf, -1
        for j2 in range(k - 1):
            if low_arg[j2] < 0:
                continue
            ok = _allowed(j2, P, k, explicit, eps)
            for j1 in range(k - 1):
                if ok[j1] and up_arg[j1] >= 0 and low_max[j2] - up_min[j1] > gap:
                    gap, jb = low_max[j2] - up_min[j1], j2
        if gap <= 2 * tol or it == max_iter:  # the KKT violation at the point returned
            return g[where], P, it, gap <= 2 * tol, max(gap, 0.0)
        # second order: a among the allowed up-set variables with e_a < e_b, met in the given
        # order (implicit: only b's threshold is allowed, its block; explicit: every variable)
        b = low_arg[jb]
        ib, eb = i_t[b], low_max[jb]
        ok = _allowed(jb, P, k, explicit, eps)
        best, a = -1.0, -1
        first, stop = (0, m) if explicit else (starts[jb], starts[jb + 1])
        for u in range(first, stop):
            t = where[u] if explicit else u
            if not ok[j_t[t]] or not _can_raise(g[t], s_t[t], C):
                continue
            diff = eb - (f[i_t[t]] - s_t[t])
            if diff <= 0:
                continue
            iv = i_t[t]
            eta = max(K[iv, iv] + K[ib, ib] - 2 * K[ib, iv], TAU)
            if diff * diff / eta > best:
                best, a = diff * diff / eta, t
        ia, ja = i_t[a], j_t[a]
        eta = max(K[ia, ia] + K[ib, ib] - 2 * K[ia, ib], TAU)
        cap_a = C - g[a] if s_t[a] > 0 else g[a]
        cap_b = g[b] if s_t[b] > 0 else C - g[b]
        cap_p = np.inf
        for j in range(ja, jb):  # a below b: the partial sums between rise by δ
            cap_p = min(cap_p, -P[j])
        delta = min((eb - (f[ia] - s_t[a])) / eta, cap_a, cap_b, max(cap_p, 0.0))
        take_step(g, c, f, K, a, b, ia, ib, ja, jb, s_t[a], s_t[b], C, C, cap_a, cap_b, delta)
        it += 1


def smo_solve(K, maps, C, tol, max_iter=None):
    """:func:`smo` on the variables of ``maps`` (SVOR's
    :class:`~ordrank.algorithms.batch.svor_dual.Maps`) with the kernel K of the quadratic term.

    Returns ``(g, nu, iterations, converged, violation)``; nu is None for implicit constraints,
    violation the KKT violation at g in the units of ``tol`` (converged: ≤ 2 tol). The default
    ``max_iter`` is LIBSVM's, max(10⁷, 100·m)."""
    m, explicit = len(maps.i), maps.constraints == "explicit"
    max_iter = max(10**7, 100 * m) if max_iter is None else int(max_iter)
    g, P, iterations, converged, violation = smo(
        np.ascontiguousarray(K, dtype=np.float64), maps.i.astype(np.int64),
        (maps.j - 1).astype(np.int64), maps.s.astype(np.float64), int(maps.k), float(C),
        float(tol), max_iter, explicit)
    nu = np.maximum(-P[: maps.k - 2], 0.0) if explicit and maps.k > 2 else None
    return g, nu, iterations, converged, violation
