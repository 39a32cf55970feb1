r"""RankNet's pair cost and λ over every pair of every query, compiled with numba (no pair list).

At construction (:func:`label_order`) each query's documents are sorted by decreasing label, once;
then the documents of lower label than the one at sorted position a are the positions
``lower[a]:end`` of its query, and those of equal label after it are ``a+1:lower[a]``. The kernel
(:func:`pair_cost`) visits, for each document, exactly these ranges: each preference pair once as
(preferred i, other j), each tied pair once; no label is compared and no pair array is formed.

With ``z = σ(s_i − s_j)`` and ``e = e^{−|z|} ≤ 1``, a preference pair costs
``C = log(1 + e^{−z}) = max(−z, 0) + log1p(e)`` and moves ``λ_i −= σ(1 − P)``, ``λ_j += σ(1 − P)``,
``1 − P = e/(1 + e)`` (z ≥ 0) or ``1/(1 + e)`` (z < 0); a tie with ``P̄ = ½`` costs
``C = log(1 + e^z) − z/2 = |z|/2 + log1p(e)`` and moves ``λ_i += σ(P − ½)``, ``λ_j −= σ(P − ½)``.
Nothing overflows and nothing cancels. Two ways to get e and log1p(e), per query:

- *exponential path* (when ``σ(max s − min s) ≤`` :data:`SPAN` in the query: the usual case):
  each document's ``E_i = e^{σ(s_i − max s)} ∈ [e^{−600}, 1]`` once, then per pair
  ``e = min(E_i, E_j)/max(E_i, E_j)``, ``1 − P = E_j/(E_i + E_j)``, ``P − ½ = (E_i − E_j)/(2(E_i + E_j))``
  and ``log1p(e) = 2 artanh(t)``, ``t = min/(2 max + min) ≤ 1/3``, by its series
  ``2t Σ_k t^{2k}/(2k + 1)`` to 17 terms (truncation below 2e-17 relative). No libm call per pair:
  the compiler vectorizes the loop;
- *direct path* (a query whose scores span more): ``e = exp(−|z|)`` and ``log1p(e)`` per pair.

Queries are spread over numba's threads (``prange``), heaviest first, interleaved so that any split of
the iterations into contiguous equal parts has about the same number of pairs. The result does not
depend on how many threads: the λ of a query's documents are written only by that query's iteration
(a query's sorted positions map to its own rows), each query's cost goes to its own entry of an array,
and the caller sums that array in query order. (Within a query, sums are vectorized in a fixed order
set at compile time; a machine with other vector units may differ in the last bits.)
"""
from __future__ import annotations

import math

import numpy as np
from numba import prange

from ordrank.compiled import njit
from ordrank.queries import query_offsets

SPAN = 600.0  # largest σ·(max s − min s) of a query on the exponential path (e^{−600} ≈ 2.7e-261)
_FAST = {"reassoc", "contract"}  # reorder and fuse the sums, no other liberty (NaN and ∞ kept)
# error_model="numpy": x/0 gives ∞ or NaN instead of a branch that raises (which stops vectorizing);
# no divisor here can be 0 (1 + e ≥ 1, E_i + E_j > 0 on the exponential path)


def label_order(y, qid) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(order, lower, offsets, schedule)``: ``order`` the rows sorted by query, then by decreasing
    label (stable); ``lower[a]`` the first sorted position, in the query of position a, whose label is
    below ``y[order[a]]`` (the query's end if none); ``offsets`` the queries' row offsets;
    ``schedule`` the queries in the order the parallel loop takes them (heaviest first, interleaved)."""
    y = np.asarray(y, dtype=np.float64)
    offsets = query_offsets(qid).astype(np.int64)
    n, n_queries = len(y), len(offsets) - 1
    query = np.repeat(np.arange(n_queries), np.diff(offsets))
    order = np.lexsort((-y, query)).astype(np.int64)  # rows of a query stay within its offsets
    ys = y[order]
    # a run = a maximal range of equal labels within one query; lower[a] = the end of a's run
    starts = np.r_[True, (ys[1:] != ys[:-1]) | (query[1:] != query[:-1])] if n else np.zeros(0, bool)
    run = np.cumsum(starts) - 1
    ends = np.r_[np.flatnonzero(starts)[1:], n].astype(np.int64)
    lower = np.ascontiguousarray(ends[run] if n else np.zeros(0), dtype=np.int64)
    # all pairs of a query (preferred or tied) bound its work; sort by it, then deal in bit-reversed
    # order: the first half of the iterations takes ranks 0, 2, 4, ..., the second 1, 3, 5, ...
    sizes = np.diff(offsets)
    by_work = np.argsort(-(sizes * sizes), kind="stable")
    bits = max(int(n_queries - 1).bit_length(), 1)
    rank = np.arange(n_queries)
    reversed_rank = np.zeros(n_queries, dtype=np.int64)
    for bit in range(bits):
        reversed_rank |= ((rank >> bit) & 1) << (bits - 1 - bit)
    schedule = np.ascontiguousarray(by_work[np.argsort(reversed_rank, kind="stable")], dtype=np.int64)
    return order, lower, offsets, schedule


@njit(fastmath=_FAST, error_model="numpy")
def _log1p_ratio(small, big):
    """``log1p(small/big)`` for ``0 < small ≤ big``: ``2 artanh(t)``, ``t = small/(2 big + small) ≤ 1/3``."""
    t = small / (2.0 * big + small)
    w = t * t
    p = 1.0 / 33.0
    p = p * w + 1.0 / 31.0
    p = p * w + 1.0 / 29.0
    p = p * w + 1.0 / 27.0
    p = p * w + 1.0 / 25.0
    p = p * w + 1.0 / 23.0
    p = p * w + 1.0 / 21.0
    p = p * w + 1.0 / 19.0
    p = p * w + 1.0 / 17.0
    p = p * w + 1.0 / 15.0
    p = p * w + 1.0 / 13.0
    p = p * w + 1.0 / 11.0
    p = p * w + 1.0 / 9.0
    p = p * w + 1.0 / 7.0
    p = p * w + 1.0 / 5.0
    p = p * w + 1.0 / 3.0
    p = p * w + 1.0
    return 2.0 * t * p


@njit(fastmath=_FAST, error_model="numpy")
def _preferred(si, ei, ss, es, ls, sigma):
    """Σ C and Σ σ(1 − P) of a document (s_i = si, E_i = ei) preferred to each of ss, es (exponential
    path); ``ls`` (λ of those) gets + σ(1 − P) each. Indices from 0: the loop vectorizes."""
    total = 0.0
    la = 0.0
    for b in range(len(ss)):
        z = sigma * (si - ss[b])
        eb = es[b]
        below = eb < ei  # (selects, not max/min: they vectorize)
        total += (-z if z < 0.0 else 0.0) + _log1p_ratio(eb if below else ei, ei if below else eb)
        g = sigma * (eb / (ei + eb))  # σ(1 − P)
        la += g
        ls[b] += g
    return total, la


@njit(fastmath=_FAST, error_model="numpy")
def _tied(si, ei, ss, es, ls, sigma):
    """Σ C and Σ σ(P − ½) of a document tied with each of ss, es (``P̄ = ½``; exponential path);
    ``ls`` gets − σ(P − ½) each."""
    total = 0.0
    la = 0.0
    for b in range(len(ss)):
        z = sigma * (si - ss[b])
        eb = es[b]
        below = eb < ei
        total += 0.5 * (z if z > 0.0 else -z) + _log1p_ratio(eb if below else ei, ei if below else eb)
        g = sigma * ((ei - eb) / (2.0 * (ei + eb)))  # σ(P − ½)
        la += g
        ls[b] -= g
    return total, la


@njit(error_model="numpy")
def _exponential_path(ss, es, ls, a, first_lower, m, sigma, half):
    """Document a's pairs (as preferred, and its later ties) by the exponential path: (Σ C, λ_a part)."""
    total, down = _preferred(ss[a], es[a], ss[first_lower:m], es[first_lower:m], ls[first_lower:m], sigma)
    la = -down
    if half and a + 1 < first_lower:
        cost, up = _tied(ss[a], es[a], ss[a + 1:first_lower], es[a + 1:first_lower],
                         ls[a + 1:first_lower], sigma)
        total += cost
        la += up
    return total, la


@njit(error_model="numpy")
def _direct_path(ss, ls, a, first_lower, m, sigma, half):
    """The same by ``e = exp(−|z|)`` and ``log1p`` per pair (a query whose scores span beyond SPAN)."""
    si = ss[a]
    total = 0.0
    la = 0.0
    for b in range(first_lower, m):
        z = sigma * (si - ss[b])
        e = math.exp(-abs(z))
        total += max(-z, 0.0) + math.log1p(e)
        g = sigma * (e if z >= 0.0 else 1.0) / (1.0 + e)  # σ(1 − P)
        la -= g
        ls[b] += g
    if half:
        for b in range(a + 1, first_lower):
            z = sigma * (si - ss[b])
            e = math.exp(-abs(z))
            total += 0.5 * abs(z) + math.log1p(e)
            g = sigma * ((1.0 if z >= 0.0 else e) / (1.0 + e) - 0.5)  # σ(P − ½)
            la += g
            ls[b] -= g
    return total, la


@njit(parallel=True, error_model="numpy")
def _pair_cost(s, order, lower, offsets, schedule, sigma, half, lam, per_query, s_sorted, e_sorted,
               lam_sorted):
    """Σ C per query into ``per_query`` and Σ_j ∂C_ij/∂s_i into ``lam`` (by row); see the module.
    ``s_sorted``, ``e_sorted``, ``lam_sorted``: scratch of length n (each query uses its own range)."""
    for k in prange(len(schedule)):
        q = schedule[k]
        start, end = offsets[q], offsets[q + 1]
        m = end - start
        ss = s_sorted[start:end]  # the query's s, E and λ in sorted order
        es = e_sorted[start:end]
        ls = lam_sorted[start:end]
        top, bottom = -np.inf, np.inf
        for a in range(m):
            ss[a] = s[order[start + a]]
            ls[a] = 0.0
            top = max(top, ss[a])
            bottom = min(bottom, ss[a])
        exponential = m > 0 and sigma * (top - bottom) <= SPAN
        if exponential:
            for a in range(m):
                es[a] = math.exp(sigma * (ss[a] - top))
        total = 0.0
        for a in range(m):
            first_lower = lower[start + a] - start
            if exponential:
                cost, la = _exponential_path(ss, es, ls, a, first_lower, m, sigma, half)
            else:
                cost, la = _direct_path(ss, ls, a, first_lower, m, sigma, half)
            total += cost
            ls[a] += la
        per_query[q] = total
        for a in range(m):
            lam[order[start + a]] = ls[a]


def pair_cost(s, order, lower, offsets, schedule, sigma: float, half: bool) -> tuple[float, np.ndarray]:
    """``(Σ C, λ)`` over the pairs of every query (ties with ``P̄ = ½`` when ``half``), unnormalized;
    ``order, lower, offsets, schedule`` from :func:`label_order`. The total is the per-query costs
    summed in query order (:func:`math.fsum`): the same for any number of threads."""
    s = np.ascontiguousarray(s, dtype=np.float64)
    n = len(s)
    lam, s_sorted, e_sorted, lam_sorted = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    per_query = np.empty(len(offsets) - 1)
    _pair_cost(s, order, lower, offsets, schedule, float(sigma), bool(half), lam, per_query,
               s_sorted, e_sorted, lam_sorted)
    return math.fsum(per_query), lam
