r"""KKT conditions of the thresholded box QP: which variables sit at a bound, the thresholds they
imply, and how far a point is from optimal.

The variables are indexed by ``maps`` (SVOR's :class:`~ordrank.algorithms.batch.svor_dual.Maps`:
example ``i``, threshold ``j`` (1-based), label ``s`` = ±1, ``k`` − 1 thresholds). With
:math:`e_{ij} = f_i - s_{ij}`: a free :math:`0 < g_{ij} < C` gives :math:`b_j = e_{ij}`; a bound
one only bounds :math:`b_j`, from below (:math:`b_j \ge e_{ij}`: :math:`g = 0, s = -1` or
:math:`g = C, s = +1`) or from above (the other two). A variable within ``free_tol``·C of a bound
counts as at it.
"""
from __future__ import annotations

import numpy as np


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


def margins(f, maps, g, C, nu, tol):
    r"""KKT check at g: thresholds b (:func:`kkt_thresholds`), each variable's margin
    :math:`s_{ij}(f_i - b_j)` (1 where free), its violation (how far the margin is on the wrong
    side of 1 for g at 0 or C, off 1 for a free g) and which variables are free."""
    b, _ = kkt_thresholds(f, maps, g, C, nu, slack=10 * tol)
    margin = maps.s * (f[maps.i] - b[maps.j - 1])
    at0, atC = at_bounds(g, C)
    violation = np.where(at0, 1 - margin, np.where(atC, margin - 1, np.abs(margin - 1)))
    return margin, np.maximum(violation, 0), ~(at0 | atC)


def threshold_bounds(f, maps, g, C):
    r"""SVORIM's optimality check at a feasible g (no ν, so the thresholds decouple). With
    :math:`e_{ij} = f_i - s_{ij}`, the variables at a bound or free put :math:`b_j \ge e_{ij}`
    ("lower": :math:`g = 0, s = -1`; :math:`g = C, s = +1`; free) or :math:`b_j \le e_{ij}`
    ("upper": the other two; free): g is optimal iff for every j the largest lower bound is at most
    the smallest upper bound. Returns (e, lower, upper, those two bounds per threshold)."""
    e = f[maps.i] - maps.s
    lower, upper, free = bound_sides(g, maps.s, C)
    lower, upper = lower | free, upper | free
    lo, up = np.full(maps.k - 1, -np.inf), np.full(maps.k - 1, np.inf)
    np.maximum.at(lo, maps.j[lower] - 1, e[lower])
    np.minimum.at(up, maps.j[upper] - 1, e[upper])
    return e, lower, upper, lo, up


def most_violating(maps, e, lower, upper, lo, up, tol, per_side):
    """For each threshold whose bounds cross by more than 2·tol, the ``per_side`` lower-set
    variables with the largest e and the upper-set ones with the smallest e among those that
    violate (the maximal violating pairs of SMO's working-set selection)."""
    chosen, jj = np.zeros(len(e), bool), maps.j - 1
    for j in np.flatnonzero(lo - up > 2 * tol):
        low = np.flatnonzero(lower & (jj == j) & (e > up[j] + tol))
        high = np.flatnonzero(upper & (jj == j) & (e < lo[j] - tol))
        chosen[low[np.argsort(-e[low], kind="stable")[:per_side]]] = True
        chosen[high[np.argsort(e[high], kind="stable")[:per_side]]] = True
    return chosen


