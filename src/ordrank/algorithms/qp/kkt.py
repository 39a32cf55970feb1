r"""KKT conditions of the thresholded box QP: which variables sit at a bound, the thresholds they
imply, and how far a point is from optimal (the duality gap).

The variables are indexed by ``maps`` (SVOR's :class:`~ordrank.algorithms.batch.svor_dual.Maps`:
example ``i``, threshold ``j`` (1-based), label ``s`` = ±1, ``k`` − 1 thresholds). With
:math:`e_{ij} = f_i - s_{ij}`: a free :math:`0 < g_{ij} < C` gives :math:`b_j = e_{ij}`; a bound
one only bounds :math:`b_j`, from below (:math:`b_j \ge e_{ij}`: :math:`g = 0, s = -1` or
:math:`g = C, s = +1`) or from above (the other two). A variable within ``free_tol``·C of a bound
counts as at it.
"""
from __future__ import annotations

import numpy as np

FAR = 1e-2  # a duality gap above this share of |objective| (and see far_from_optimum): far


def at_bounds(g, C, free_tol=1e-3):
    """Which variables are at 0 and which at C, within ``free_tol``·C: ``(at0, atC)``."""
    return g <= free_tol * C, g >= (1 - free_tol) * C


def bound_sides(g, s, C, free_tol=1e-3):
    """Which variables at a bound (within ``free_tol``·C) bound b_j from below, :math:`b_j \\ge
    e_{ij} = f_i - s_{ij}` (g = 0, s = −1; g = C, s = +1), which from above (g = 0, s = +1;
    g = C, s = −1), and which are free: ``(lower, upper, free)``."""
    at0, atC = at_bounds(g, C, free_tol)
    return (at0 & (s < 0)) | (atC & (s > 0)), (at0 & (s > 0)) | (atC & (s < 0)), ~(at0 | atC)


def kkt_thresholds(f, maps, g, C, nu=None, free_tol=1e-3, slack=1e-2):
    r"""Thresholds b_j from the KKT conditions: the mean :math:`e_{ij}` over the free variables of
    threshold j; with none free, the midpoint of the interval its bound variables leave (one side
    if the other is open); thresholds tied by an active ordering multiplier :math:`\nu_j > 0` are
    pooled into one value. The optimal thresholds need not be unique and midpoints may come out
    unordered: then each :math:`b_j` is clipped into its ordered envelope
    :math:`[\max_{i \le j} lo_i, \min_{i \ge j} up_i]` and a running maximum is taken.

    Returns ``(b, consistent)``: ``b`` is always non-decreasing; ``consistent`` is False when
    ordering it had to leave the KKT intervals by more than ``slack`` (an inaccurate solution).
    """
    e = f[maps.i] - maps.s
    lower, upper, free = bound_sides(g, maps.s, C, free_tol)
    # thresholds tied by an active ordering constraint ν_j > 0 form one block, one value
    tied = np.zeros(maps.k - 2, bool) if nu is None else nu > free_tol * C
    block = np.concatenate([[0], np.cumsum(~tied)])  # block of threshold j = 1..k−1
    blk, n_blocks = block[maps.j - 1], block[-1] + 1
    lo, up = np.full(n_blocks, -np.inf), np.full(n_blocks, np.inf)
    np.maximum.at(lo, blk[lower], e[lower])
    np.minimum.at(up, blk[upper], e[upper])
    n_free = np.bincount(blk[free], minlength=n_blocks)
    pinned = n_free > 0  # a free variable fixes b_j: take the mean over them
    mean = np.bincount(blk[free], e[free], minlength=n_blocks) / np.maximum(n_free, 1)
    with np.errstate(invalid="ignore"):  # both infinite only in a pinned block
        mid = np.where(np.isinf(lo), up, np.where(np.isinf(up), lo, (lo + up) / 2))
    b = np.where(pinned, mean, mid)[block]
    if np.all(np.diff(b) >= 0):
        return b, True
    # order: clip into the envelope [max_{i≤j} lo_i, min_{i≥j} up_i], then a running max
    lo, up = np.where(pinned, mean, lo)[block], np.where(pinned, mean, up)[block]
    env_lo, env_up = np.maximum.accumulate(lo), np.minimum.accumulate(up[::-1])[::-1]
    b = np.maximum.accumulate(np.clip(b, env_lo, np.maximum(env_lo, env_up)))
    return b, bool(np.all(env_lo <= env_up + slack))


def duality_gap(f, beta, maps, g, C, b):
    r"""The primal objective of :math:`(\beta, b)` plus the dual objective at g: with the
    training scores :math:`f = K\beta`,

    .. math:: \bigl(\tfrac12\beta^\top f + C\textstyle\sum \max(0, 1 - s_{ij}(f_i - b_j))\bigr)
              + \bigl(\tfrac12\beta^\top f - \textstyle\sum g_{ij}\bigr),

    the sum over the kept constraints. For a feasible g and ordered b it is ≥ 0 and bounds how
    far the dual objective is above its optimum (and the primal objective of (β, b) above its
    own): a certificate computed from the returned point alone."""
    hinge = np.maximum(0.0, 1.0 - maps.s * (f[maps.i] - b[maps.j - 1]))
    return float(beta @ f - g.sum() + C * hinge.sum())


def far_from_optimum(gap, objective, tol, C, m):
    """Whether a point with duality gap ``gap`` is far from the optimum: above ``FAR`` of
    max(1, |objective|), and above 10 tol · C · m. Each of the m variables adds at most C times
    how far its margin misses its KKT condition to the gap (SVOREX adds ν's ordering terms), so
    a point whose every margin is within 10 tol (a KKT-converged SMO point: 2 tol) is not far."""
    return gap > FAR * max(1.0, abs(objective)) and gap > 10 * tol * C * m
