r"""Ordinal cut points on a real score that minimise the absolute cost on a training set.

Given training scores :math:`s_i` and ranks :math:`y_i \in 1..k`, find cut points
:math:`b_1 \le \dots \le b_{k-1}` minimising

.. math:: \sum_i \big|\, r(s_i) - y_i \big|, \qquad r(s) = 1 + \#\{j : s > b_j\}.

Only the order of the scores matters, and tied scores always get the same rank (no cut point can
split them), so the problem is: give each of the G distinct score values (sorted) a rank, the ranks
non-decreasing. A dynamic program over the ranks does it exactly in O(G·k) after sorting: with
:math:`C_r[i]` the cost of giving the i lowest distinct values rank r,

.. math:: F_1[i] = C_1[i], \qquad
          F_r[i] = C_r[i] + \min_{0 \le j \le i} \big(F_{r-1}[j] - C_r[j]\big),

(the values j..i−1 get rank r; the inner minimum is a running minimum, so each rank is one vectorized
pass), the optimum is :math:`F_k[G]` and the cut points are read back from the minimisers. Among
optimal solutions, the one found takes the first minimiser at each step (lowest boundary), working
down from the top rank. A cut point between two adjacent distinct values a < b is their midpoint
(a itself if the midpoint rounds to b); a boundary below every value is −inf, above every value +inf
(that rank is then empty on the training set and stays empty).
"""
from __future__ import annotations

import numpy as np


def absolute_cost_thresholds(scores, ranks, n_ranks: int) -> tuple[np.ndarray, float]:
    """Cut points ``b`` (shape (n_ranks − 1,), non-decreasing, ±inf allowed) minimising the total
    absolute cost Σ|r(s_i) − y_i| of ``r(s) = 1 + #{j : s > b_j}``, and that minimal total cost.

    ``scores``: finite reals, one per example; ``ranks``: integers in 1..``n_ranks``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    ranks = np.asarray(ranks)
    if isinstance(n_ranks, bool) or not isinstance(n_ranks, (int, np.integer)) or n_ranks < 1:
        raise ValueError(f"absolute_cost_thresholds: n_ranks must be an integer >= 1, got {n_ranks!r}")
    if scores.ndim != 1 or ranks.shape != scores.shape:
        raise ValueError(f"absolute_cost_thresholds: scores and ranks must be 1-D of one length, got "
                         f"shapes {scores.shape} and {ranks.shape}")
    if not np.all(np.isfinite(scores)):
        row = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise ValueError(f"absolute_cost_thresholds: scores[{row}] = {scores[row]} is not finite")
    if ranks.dtype.kind not in "iu":
        raise ValueError(f"absolute_cost_thresholds: ranks must be integers in 1..{n_ranks}, got dtype "
                         f"{ranks.dtype}")
    bad = np.flatnonzero((ranks < 1) | (ranks > n_ranks))
    if bad.size:
        raise ValueError(f"absolute_cost_thresholds: ranks must be integers in 1..{n_ranks}; "
                         f"ranks[{bad[0]}] = {ranks[bad[0]]}")
    k = int(n_ranks)
    values, group = np.unique(scores, return_inverse=True)
    G = len(values)
    counts = np.bincount(group * k + (ranks - 1), minlength=G * k).reshape(G, k).astype(np.float64)
    # cost[g, r] = Σ_j counts[g, j] |r − j|, from running counts and running sums of j below and above r
    j = np.arange(k, dtype=np.float64)
    n_le, s_le = np.cumsum(counts, axis=1), np.cumsum(counts * j, axis=1)
    n_all, s_all = n_le[:, -1:], s_le[:, -1:]
    cost = (j * n_le - s_le) + ((s_all - s_le) - j * (n_all - n_le))
    C = np.vstack([np.zeros((1, k)), np.cumsum(cost, axis=0)])  # C[i, r]: values 0..i−1 at rank r+1
    F = C[:, 0]
    inner = []
    for r in range(1, k):
        a = F - C[:, r]
        inner.append(a)
        F = C[:, r] + np.minimum.accumulate(a)
    total = float(F[G])
    boundaries = np.empty(k - 1, dtype=np.int64)
    i = G
    for r in range(k - 1, 0, -1):  # the values j..i−1 get rank r+1; the cut b_r sits below value j
        i = int(np.argmin(inner[r - 1][: i + 1]))
        boundaries[r - 1] = i
    return _cut_values(values, boundaries), total


def _cut_values(values: np.ndarray, boundaries: np.ndarray) -> np.ndarray:
    """The cut point below value index ``j`` for each boundary: −inf, +inf or a midpoint."""
    cuts = np.empty(len(boundaries), dtype=np.float64)
    for r, j in enumerate(boundaries):
        if j == 0:
            cuts[r] = -np.inf
        elif j == len(values):
            cuts[r] = np.inf
        else:
            a, b = values[j - 1], values[j]
            mid = a / 2 + b / 2
            cuts[r] = mid if a <= mid < b else a
    return cuts
