r"""Support vector ordinal regression (Chu & Keerthi, ICML 2005; Neural Computation 19(3), 2007).

One function :math:`f(x) = \sum_i \beta_i K(x_i, x)` and thresholds :math:`b_1 \le \dots \le
b_{k-1}`; the rank is :math:`1 + \#\{j : f(x) > b_j\}`. Example i and threshold j give the label
:math:`s_{ij} = +1` if :math:`y_i > j` else :math:`-1` and the soft constraint
:math:`s_{ij}(f(x_i) - b_j) \ge 1 - \xi_{ij}`, :math:`\xi_{ij} \ge 0`, at cost
:math:`C \sum \xi_{ij}`. Both variants are solved in the dual, one variable
:math:`g_{ij} \in [0, C]` per kept constraint, as one cvxpy problem (``working_set=False``, and
the default below ``WS_MIN_N`` rows) or as a chain of small restricted problems (the working set,
below):

.. math:: \min_{g,\,\nu}\ \tfrac12 \beta^\top K \beta - \textstyle\sum g_{ij}, \qquad
          \beta_i = \textstyle\sum_j s_{ij} g_{ij}, \qquad
          \textstyle\sum_i s_{ij} g_{ij} = \nu_{j-1} - \nu_j \quad (j = 1..k-1)

- ``constraints="implicit"`` (SVORIM): every example constrains every threshold; there is no
  :math:`\nu` (:math:`\nu \equiv 0`) and the optimal thresholds are ordered by themselves.
- ``constraints="explicit"`` (SVOREX): example i constrains only its two adjacent thresholds,
  :math:`y_i - 1` (:math:`s = +1`, the papers' :math:`\alpha^*`) and :math:`y_i` (:math:`s = -1`,
  :math:`\alpha`); the ordering :math:`b_j \le b_{j+1}` is a constraint with multiplier
  :math:`\nu_j \ge 0` (:math:`\nu_0 = \nu_{k-1} = 0`).

Thresholds from the KKT conditions, with :math:`e_{ij} = f(x_i) - s_{ij}`: a free
:math:`0 < g_{ij} < C` gives :math:`b_j = e_{ij}` (the mean over the free ones is taken); a bound
one only bounds :math:`b_j` (from below if :math:`g = 0, s = -1` or :math:`g = C, s = +1`, else
from above). With no free variable :math:`b_j` is the midpoint of that interval; thresholds tied by
an active :math:`\nu_j > 0` are pooled. The optimal thresholds need not be unique, and midpoints
may come out unordered: then each :math:`b_j` is clipped into its ordered envelope
:math:`[\max_{i \le j} lo_i, \min_{i \ge j} up_i]` and a running maximum is taken, so
``thresholds_`` is always non-decreasing; a ConvergenceWarning says when that envelope is empty
(an inaccurate solution).

The kernel enters the quadratic term in one of two forms. A pivoted (incomplete) Cholesky factor
:math:`K \approx LL^\top`, :math:`L \in \mathbb{R}^{n \times r}`, is tried first: greedy pivots on
the residual's diagonal, stopping once :math:`\operatorname{tr}(K - LL^\top) \le`
``RANK_TOL`` :math:`\cdot \operatorname{tr} K` (:math:`O(nr^2)`). If that takes at most
``MAX_RANK`` :math:`\cdot\, n` and ``RANK_CAP`` columns, the term is :math:`\tfrac12\|u\|^2` with
:math:`u = L^\top\beta` an auxiliary variable: the KKT system gets a dense :math:`r \times n`
block and each interior-point factorization (QDLDL) costs :math:`O(nr^2)`. Since
:math:`0 \preceq K - LL^\top`, the objective at any :math:`\beta` changes by at most
:math:`\tfrac12\|\beta\|^2 \operatorname{tr}(K - LL^\top)`; at ``RANK_TOL`` = 1e-8 the optimum
moved by ~1e-8 relative and the thresholds by ~1e-6 at C = 1 (~1e-6 and ~1e-3 at C = 100).
Otherwise the exact ``cp.quad_form(beta, cp.psd_wrap(K))`` is used, a dense :math:`n \times n`
block, :math:`O(n^3)` per factorization. Linear and polynomial kernels have :math:`r \le` the
feature-space dimension; a Gaussian kernel's spectrum decays fast only in few dimensions or for
small γ: on 2 standard normal features with γ = 0.1, r ≈ 55 at n = 1000 or 2000 (4–8× faster),
on 8 features r = n (even 1e-3 of the trace needs 0.65 n), so the exact form. ``f`` (hence the
thresholds) is always computed with the exact K. C is a ``cp.Parameter``. Compiled
problems (with the solver's workspace) are kept in a small LRU cache keyed on the training rows,
ranks, kernel, variant and solver, so a grid over C, also across GridSearchCV's clones, compiles
once per training set. A cached exact problem holds about 150 bytes per kernel entry (n²), a
factored one about that per entry of L plus K itself; see ``CACHE_SIZE``, ``CACHE_ENTRIES`` and
:func:`clear_cache`.

Working set (``working_set=True``; the default ``"auto"``: implicit constraints from ``WS_MIN_N``
rows). Every interior-point
iteration factors the dense kernel block of the examples that have a variable in the problem, so
the solve is done on restricted problems: a variable set V is optimized with all others fixed at
their values in a feasible g, which puts only the examples E with a variable in V into the kernel
block (:math:`K_{EE}`); the fixed part of β enters linearly. At the optimum few variables are free
(on the benchmark's data 1.4–2.7 % of them, on 170–340 examples at n = 1000 and 2000), so the
restricted problems can be small.

- Implicit constraints (SVORIM; chunking with SMO's maximal violating pairs). (1) First pass:
  SVORIM on ``WS_SAMPLE`` examples (every rank in proportion), C scaled by n / ``WS_SAMPLE``,
  gives f on all examples and b (the equalities' multipliers). (2) Guess: every variable at C if
  its margin :math:`s_{ij}(f_i - b_j)` is below 1, else at 0; the ``WS_FIRST`` variables nearest
  their margin form V, enlarged (nearest first) until every threshold's equality can balance the
  fixed part. (3) Solve the restricted problem at the full tolerance and recompute f on all n
  examples. Without ordering constraints the thresholds decouple: with
  :math:`e_{ij} = f_i - s_{ij}`, each variable bounds :math:`b_j` from below (:math:`g = 0,
  s = -1`; :math:`g = C, s = +1`; free) or from above (the other two; free), and g is the full
  problem's optimum iff no threshold's largest lower bound exceeds its smallest upper bound by
  more than 2·tol (the SMO criterion, the tolerance of skordinal's ``tol``). Else V becomes the
  free variables and, per threshold and side, the ``WS_PAIRS`` most violating ones, and (3)
  repeats; violations left only inside V mean the solver's accuracy could not tell bound from
  free variables there (at C = 100 they stop up to 1e-3·C from their bound), and V is solved
  again with tighter tolerances (:func:`solve_rounds`); after ``WS_ROUNDS_PER_N``·n rounds the
  full problem is solved instead. The rounds are
  small and many: 18–34 at n = 1000 (largest block 190–290 examples), 29–76 at n = 2000
  (270–410), 85–228 at n = 5000 (1000–1200), ~8 interior-point iterations each (QDLDL, the
  faster factorization at these sizes). Tried and slower: more pairs or a larger first working
  set per round (fewer but dearer rounds), a larger sample, averaging chunk solutions over all
  examples as the first pass, loose early rounds (did not converge), a low-rank first pass (this
  kernel's spectrum does not decay). The bound guess is the weak point: f of the guessed g is far
  from the sample's f (mean error 11 against f's mean size 2.6 at n = 1000), so the early rounds
  repair it.
- Explicit constraints (SVOREX; the ordering multipliers ν couple the thresholds). (1) A loose
  first pass (tolerances ``WS_LOOSE``) on the variables at most ``WS_OFFSET`` thresholds from the
  example's own (the others at 0, feasible) gives f and b. (2) Guess: a variable farther than
  ``WS_DELTA`` from its margin is fixed at C (inside the margin) or 0, the rest and the not
  clearly bound ones form V, balanced as above. (3) Solve the restricted problem, recompute f and
  b from the KKT conditions, and check every fixed variable: at 0 it needs a margin
  :math:`\ge 1 - tol`, at C :math:`\le 1 + tol`. If none violates, g is the optimum; else V
  becomes the violators, the free variables and those within ``WS_DELTA`` of their margin, and
  (3) repeats, at most ``WS_MAX_ROUNDS`` times before the full solve. Every SVOREX variable is
  next to its example's own thresholds, so that first pass is the whole problem at a loose
  tolerance, and the working set is slower than the full solve (abalone, n = 1000, C = 10 and
  100: 1.1–1.4 s against 0.6–0.9 s): "auto" never uses it.

Measured (benchmarks/bench_svor.py, 8 features, 10 ranks, implicit, tol = 1e-3; well-separated /
overlapping ranks): the full solve 1.04 / 0.99 s at n = 1000, 4.2 / 3.4 s at n = 2000, 39 / 29 s
at n = 5000; the working set 0.27 / 0.55 s, 0.59 / 1.43 s and 4.2 / 11.2 s (skordinal's SMO
0.13 / 0.21 s, 0.50 / 1.17 s and 6.2 / 12.3 s), with the full solve's objective to 7e-6 and
thresholds to 1e-3. The cache keeps the Gram matrix.

Not cvxpy, in the working set: with Clarabel (the default solver) every restricted problem, the
first pass included, is handed to Clarabel in its standard form (:func:`clarabel_restricted`),
since cvxpy's compilation took 6 ms of a round's 9 ms at n = 1000 (the solve itself ~1 ms) and
these problems change shape every round, so no compiled problem can be reused. The same
problems written in cvxpy (:func:`cvxpy_restricted`, used with OSQP) give the same solution
(tests/test_svor.py). ``working_set=False`` solves everything with cvxpy.
"""
from __future__ import annotations

import hashlib
import threading
import warnings
from collections import OrderedDict
from numbers import Integral, Real
from typing import NamedTuple

import clarabel
import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ordrank.algorithms._ordinal import FitFailed, OrdinalEstimator
from ordrank.features.kernels import KERNELS, kernel_matrix

ACCEPTED = ("optimal", "optimal_inaccurate")  # the latter with a ConvergenceWarning
CACHE_SIZE = 8         # compiled problems kept, and at most this many kernel entries (Σ n²):
CACHE_ENTRIES = 1.3e7  # enough for 5 CV folds of n = 2000 (about 2 GB)
RANK_TOL = 1e-8  # the factor's residual trace, relative to trace(K)
MAX_RANK = 0.2   # the factor is used if its rank r ≤ min(MAX_RANK·n, RANK_CAP), else the exact
RANK_CAP = 300   # n × n form (at n = 1000, r = 170 was 2× faster, r = 400 1.5× slower)
WS_MIN_N = 1000      # working_set="auto" from this many training rows
WS_OFFSET = 2        # the first pass keeps the thresholds at most this far from an example's own
WS_LOOSE = 0.1       # the first pass's tolerances
WS_DELTA = 0.05      # a variable this close to its margin stays in the working set
WS_MAX_ROUNDS = 20   # explicit: restricted problems before giving up for the exact solve
WS_SAMPLE = 300      # implicit: the first pass's examples
WS_FIRST = 100       # implicit: the first working set's variables (nearest their margin)
WS_PAIRS = 5         # implicit: per threshold and side, the most violating variables added
WS_TIGHTEN = 3       # at most this many 100× tighter solves of an inaccurate working set
WS_ROUNDS_PER_N = 0.2  # implicit: rounds before giving up, per example (needed: 0.02–0.05)
TIGHTEN = "tighten"  # see solve_rounds
FAER = tuple(int(v) for v in clarabel.__version__.split(".")[:2]) >= (0, 10)
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()
cache_stats = {"hits": 0, "misses": 0}


def clear_cache() -> None:
    """Drop every compiled problem and reset ``cache_stats``."""
    with _cache_lock:
        _cache.clear()
        cache_stats.update(hits=0, misses=0)


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


def dense_csc(A):
    """A dense matrix as CSC with every entry stored, without scanning it for zeros."""
    n, m = A.shape
    return sp.csc_matrix((A.ravel(order="F"), np.tile(np.arange(n), m), np.arange(0, n * m + 1, n)),
                         shape=A.shape)


class Maps:
    """The dual's index maps: variable m is g_{i[m], j[m]} with label s[m]; ``offset[m]`` is how
    many thresholds lie between j[m] and example i[m]'s own two, y − 1 and y (0 for those)."""

    def __init__(self, ranks, k, constraints):
        n = len(ranks)
        j, i = np.tile(np.arange(1, k), n), np.repeat(np.arange(n), k - 1)
        if constraints == "explicit":  # only the thresholds y−1 and y next to each example
            keep = (j == ranks[i] - 1) | (j == ranks[i])
            i, j = i[keep], j[keep]
        self.i, self.j, self.s, self.k = i, j, np.where(ranks[i] > j, 1.0, -1.0), k
        self.offset = np.where(j >= ranks[i], j - ranks[i], ranks[i] - 1 - j)
        self.ranks, self.n, self.constraints = ranks, n, constraints

    def beta(self, g):
        r""":math:`\beta_i = \sum_j s_{ij} g_{ij}`, shape (n,)."""
        return np.bincount(self.i, self.s * g, minlength=self.n)


class Dual(Maps):
    """The dual of one (training set, kernel, variant) as a cvxpy problem, and its index maps."""

    def __init__(self, K, K_qp, ranks, k, constraints):
        super().__init__(ranks, k, constraints)
        n = len(ranks)
        self.K = K  # the Gram matrix of f on the training rows
        L = pivoted_cholesky(K_qp, RANK_TOL, min(int(MAX_RANK * n), RANK_CAP))  # ≈ LLᵀ, or None
        self.rank = None if L is None else L.shape[1]
        self.size = n * n if L is None else n * (L.shape[1] + n // 20)  # ~ bytes / 150
        i, j = self.i, self.j
        m = len(i)
        S = sp.csr_matrix((self.s, (i, np.arange(m))), shape=(n, m))  # β = S g
        T = sp.csr_matrix((self.s, (j - 1, np.arange(m))), shape=(k - 1, m))  # Σ_i s g, per j
        self.C = cp.Parameter(nonneg=True, value=1.0)
        self.g, beta = cp.Variable(m), cp.Variable(n)
        sums, self.nu = T @ self.g, None
        if constraints == "explicit" and k > 2:
            self.nu = cp.Variable(k - 2, nonneg=True)
            sums = sums - ordering(k) @ self.nu  # Σ_i s_ij g_ij = ν_{j−1} − ν_j
        cons = [beta == S @ self.g, sums == 0, self.g >= 0, self.g <= self.C]
        if L is None:  # sparse: faster compile than dense
            quad = cp.quad_form(beta, cp.psd_wrap(dense_csc(K_qp)))
        else:  # ½‖u‖², u = Lᵀβ
            u = cp.Variable(L.shape[1])
            quad = cp.sum_squares(u)
            cons.append(u == L.T @ beta)
        self.problem = cp.Problem(cp.Minimize(0.5 * quad - cp.sum(self.g)), cons)
        self.lock = threading.Lock()


def compiled(X, ranks, k, key_params, build) -> Dual:
    """The cached dual of this training set, or ``build()`` stored under LRU eviction."""
    digest = hashlib.blake2b(np.ascontiguousarray(X).tobytes(), digest_size=16)
    digest.update(np.ascontiguousarray(ranks, dtype=np.int64).tobytes())
    key = (digest.hexdigest(), X.shape, k, *key_params)
    with _cache_lock:
        if key in _cache:
            cache_stats["hits"] += 1
            _cache.move_to_end(key)
            return _cache[key]
        cache_stats["misses"] += 1
    dual = build()
    with _cache_lock:
        _cache[key] = dual
        while len(_cache) > 1 and (len(_cache) > CACHE_SIZE
                                   or sum(d.size for d in _cache.values()) > CACHE_ENTRIES):
            _cache.popitem(last=False)
    return dual


def solver_options(solver, tol, max_iter, factored=False) -> dict:
    """cvxpy ``solve`` keywords for ``tol``. ``warm_start`` reuses the solver's workspace (Clarabel:
    data update, no new symbolic factorization; OSQP: also its last iterate) on a cached problem."""
    if solver == "CLARABEL":
        # a duality gap of tol/100 gives thresholds within ~tol of the exact optimum; iterative
        # refinement costs 40% of the time and does not change the solution at this tolerance
        opts = {"tol_gap_abs": tol / 100, "tol_gap_rel": tol / 100, "tol_feas": tol,
                "tol_ktratio": tol, "iterative_refinement_enable": False}
        if FAER:  # supernodal LDLᵀ: 2–4× faster than QDLDL on the dense n × n kernel block, but
            # it merges the n × r block of the factored form into one dense (n + r)² front
            opts["direct_solve_method"] = "qdldl" if factored else "faer"
    else:
        opts = {"eps_abs": tol, "eps_rel": tol}
    if max_iter is not None:
        opts["max_iter"] = max_iter
    return {**opts, "warm_start": True}


def at_bounds(g, C, free_tol=1e-3):
    """Which variables are at 0 and which at C, within ``free_tol``·C: ``(at0, atC)``."""
    return g <= free_tol * C, g >= (1 - free_tol) * C


def bound_sides(g, s, C, free_tol=1e-3):
    """Which variables at a bound (within ``free_tol``·C) bound b_j from below, :math:`b_j \\ge
    e_{ij} = f_i - s_{ij}` (g = 0, s = −1; g = C, s = +1), which from above (g = 0, s = +1;
    g = C, s = −1), and which are free: ``(lower, upper, free)``."""
    at0, atC = at_bounds(g, C, free_tol)
    return (at0 & (s < 0)) | (atC & (s > 0)), (at0 & (s > 0)) | (atC & (s < 0)), ~(at0 | atC)


def kkt_thresholds(f, dual: Dual, g, C, nu=None, free_tol=1e-3, slack=1e-2):
    """Thresholds b_j from the KKT conditions (see the module docstring).

    Returns ``(b, consistent)``: ``b`` is always non-decreasing; ``consistent`` is False when
    ordering it had to leave the KKT intervals by more than ``slack`` (an inaccurate solution).
    """
    e = f[dual.i] - dual.s
    lower, upper, free = bound_sides(g, dual.s, C, free_tol)
    # thresholds tied by an active ordering constraint ν_j > 0 form one block, one value
    tied = np.zeros(dual.k - 2, bool) if nu is None else nu > free_tol * C
    block = np.concatenate([[0], np.cumsum(~tied)])  # block of threshold j = 1..k−1
    blk, n_blocks = block[dual.j - 1], block[-1] + 1
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


def margins(f, maps: Maps, g, C, nu, tol):
    r"""KKT check at g: thresholds b (:func:`kkt_thresholds`), each variable's margin
    :math:`s_{ij}(f_i - b_j)` (1 where free), its violation (how far the margin is on the wrong
    side of 1 for g at 0 or C, off 1 for a free g) and which variables are free."""
    b, _ = kkt_thresholds(f, maps, g, C, nu, slack=10 * tol)
    margin = maps.s * (f[maps.i] - b[maps.j - 1])
    at0, atC = at_bounds(g, C)
    violation = np.where(at0, 1 - margin, np.where(atC, margin - 1, np.abs(margin - 1)))
    return margin, np.maximum(violation, 0), ~(at0 | atC)


class Gram:
    """What the working-set solve keeps of one training set: the index maps, K and K_qp."""

    def __init__(self, K, K_qp, ranks, k, constraints):
        self.maps, self.K, self.K_qp = Maps(ranks, k, constraints), K, K_qp
        self.size = len(K) ** 2 // 15  # 8 or 16 bytes per entry, in units of ~150 bytes


class Restricted(NamedTuple):
    """One restricted problem's solution: g with V updated, ν, the thresholds b (the equalities'
    multipliers), |E|, the solver's status and iterations."""
    g: np.ndarray
    nu: np.ndarray | None
    b: np.ndarray | None
    size: int
    status: str
    iterations: int


CLARABEL_STATUS = {"Solved": "optimal", "AlmostSolved": "optimal_inaccurate"}


def restricted_solve(gram: Gram, g, V, C, solver, opts) -> Restricted:
    r"""Minimize the dual over the variables ``V`` with the others fixed at their values in the
    feasible ``g``: only the examples E with a variable in V enter the quadratic block
    :math:`K_{EE}`, the fixed part of β enters linearly
    (:math:`\beta_E^\top K_{E,\cdot}\beta_{fixed}`) and in the equality constraints.

    With Clarabel the problem goes to Clarabel in its standard form (:func:`clarabel_restricted`),
    with OSQP it is a cvxpy problem (:func:`cvxpy_restricted`); the two are the same problem
    (tests/test_svor.py checks that they agree)."""
    maps, K = gram.maps, gram.K_qp
    n, k, fixed, work = len(K), maps.k, ~V, np.flatnonzero(V)
    E = np.zeros(n, bool)
    E[maps.i[work]] = True
    rows, loc, m = np.flatnonzero(E), np.cumsum(E) - 1, len(work)
    fixed_beta = maps.beta(np.where(fixed, g, 0.0))
    parts = dict(
        K=K[np.ix_(rows, rows)], linear=K[rows] @ np.where(E, 0.0, fixed_beta),
        fixed_beta=fixed_beta[rows],
        fixed_sums=np.bincount(maps.j[fixed] - 1, maps.s[fixed] * g[fixed], minlength=k - 1),
        S=sp.csc_matrix((maps.s[work], (loc[maps.i[work]], np.arange(m))), shape=(len(rows), m)),
        T=sp.csc_matrix((maps.s[work], (maps.j[work] - 1, np.arange(m))), shape=(k - 1, m)),
        explicit=maps.constraints == "explicit" and k > 2, C=C)
    solve = clarabel_restricted if solver == "CLARABEL" else cvxpy_restricted
    gw, nu, b, status, iterations = solve(parts, solver, opts)
    if gw is not None:
        g = g.copy()
        g[work] = np.clip(gw, 0.0, C)
    return Restricted(g, nu, b, len(rows), status, iterations)


def ordering(k):
    """D with :math:`(D\\nu)_j = \\nu_{j-1} - \\nu_j`, the explicit variant's ordering terms."""
    return sp.diags([np.ones(k - 2), -np.ones(k - 2)], [-1, 0], shape=(k - 1, k - 2), format="csc")


def cvxpy_restricted(parts, solver, opts):
    """The restricted problem as a cvxpy problem: (g_V, ν, b, status, iterations)."""
    S, T, C = parts["S"], parts["T"], parts["C"]
    gw, beta = cp.Variable(S.shape[1]), cp.Variable(S.shape[0])
    sums, nu = T @ gw + parts["fixed_sums"], None
    if parts["explicit"]:
        nu = cp.Variable(T.shape[0] - 1, nonneg=True)
        sums = sums - ordering(T.shape[0] + 1) @ nu
    quad = cp.quad_form(beta, cp.psd_wrap(dense_csc(parts["K"])))
    balance = sums == 0
    problem = cp.Problem(cp.Minimize(0.5 * quad + parts["linear"] @ beta - cp.sum(gw)),
                         [beta == S @ gw + parts["fixed_beta"], balance, gw >= 0, gw <= C])
    problem.solve(solver=solver, **{"ignore_dpp": True, **opts})
    if problem.status not in ACCEPTED or gw.value is None:
        return None, None, None, problem.status, problem.solver_stats.num_iters or 0
    return (gw.value, None if nu is None else nu.value, -balance.dual_value, problem.status,
            problem.solver_stats.num_iters or 0)


def clarabel_restricted(parts, solver, opts):
    r"""The restricted problem in Clarabel's standard form,
    :math:`\min \tfrac12 x^\top Px + q^\top x` subject to :math:`Ax + s = b`,
    :math:`s \in \{0\}^{|E| + k - 1} \times \mathbb{R}_+^{2|V| + (k - 2)}`, with
    :math:`x = (g_V, \beta_E, \nu)`: rows
    :math:`S g_V - \beta_E = -\beta^{fixed}_E` (β's definition), :math:`T g_V - D\nu =
    -\text{sums}^{fixed}` (the balance per threshold), then :math:`g_V \ge 0`, :math:`g_V \le C`,
    :math:`\nu \ge 0`. Built here because cvxpy's compilation (~6 ms) costs more than solving
    one of these small problems (~1 ms). Returns (g_V, ν, b, status, iterations)."""
    S, T, C = parts["S"], parts["T"], parts["C"]
    (e, m), t = S.shape, T.shape[0]
    r = t - 1 if parts["explicit"] else 0
    Z = sp.csc_matrix
    P = sp.block_diag([Z((m, m)), sp.triu(dense_csc(parts["K"])), Z((r, r))], format="csc")
    I = sp.identity(m, format="csc")
    blocks = [[S, -sp.identity(e)], [T, None], [-I, None], [I, None]]
    if r:
        blocks = [row + [None] for row in blocks] + [[None, None, -sp.identity(r)]]
        blocks[1][2] = -ordering(t + 1)
    A = sp.bmat(blocks, format="csc")
    q = np.concatenate([-np.ones(m), parts["linear"], np.zeros(r)])
    b = np.concatenate([-parts["fixed_beta"], -parts["fixed_sums"], np.zeros(m), np.full(m, C),
                        np.zeros(r)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    for key, value in opts.items():
        if key != "warm_start":  # cvxpy's keyword
            setattr(settings, key, value)
    cones = [clarabel.ZeroConeT(e + t), clarabel.NonnegativeConeT(2 * m + r)]
    solution = clarabel.DefaultSolver(P, q, A, b, cones, settings).solve()
    status = CLARABEL_STATUS.get(str(solution.status), str(solution.status))
    if status not in ACCEPTED:
        return None, None, None, status, solution.iterations
    x, z = np.asarray(solution.x), np.asarray(solution.z)
    return x[:m], x[m + e:] if r else None, -z[e:e + t], status, solution.iterations


def make_feasible(maps: Maps, g, V, margin, C):
    r"""Move fixed variables into V, those nearest their margin first, until for every threshold j
    the working variables can balance the fixed ones, :math:`\sum_i s_{ij} g_{ij} = 0` (ν = 0)."""
    V, fixed = V.copy(), ~V
    for j in range(1, maps.k):
        at = maps.j == j
        rest = np.sum((maps.s * g)[at & fixed])  # the working sum must be −rest
        room_up, room_down = C * np.sum(at & V & (maps.s > 0)), C * np.sum(at & V & (maps.s < 0))
        if -rest > room_up:  # a fixed s = −1 at C or s = +1 at 0 moved in frees C of room
            helps, short = (maps.s < 0) == (g > C / 2), -rest - room_up
        elif rest > room_down:
            helps, short = (maps.s > 0) == (g > C / 2), rest - room_down
        else:
            continue
        candidates = np.flatnonzero(at & fixed & helps)
        nearest = candidates[np.argsort(np.abs(margin[candidates] - 1), kind="stable")]
        V[nearest[: int(np.ceil(short / C)) + 1]] = True
    return V


def solve_rounds(gram: Gram, g, V, C, solver, opts, max_rounds, select):
    """Restricted problems from the feasible g: after each, ``select(f, g, ν, V)`` (f on all n
    examples) returns the next V; None where the KKT conditions hold on every variable; or
    ``TIGHTEN`` where only the variables in V violate them, by more than the solver's accuracy
    lets it tell a variable at its bound (g ≤ 1e-3·C from it) from a free one (at C = 100 an
    interior point stops with such g up to 0.1): then V is solved again with 100× tighter
    tolerances, at most ``WS_TIGHTEN`` times.

    Returns ``(g, nu, status, iterations, rounds, largest |E|)``, or None if a round fails or
    ``max_rounds`` do not get there."""
    maps, K, iterations, largest, worst = gram.maps, gram.K_qp, 0, 0, "optimal"
    opts, tightened = dict(opts), 0
    for rounds in range(1, max_rounds + 1):
        if not V.any():
            return None
        g, nu, _, size, status, its = restricted_solve(gram, g, V, C, solver, opts)
        if status not in ACCEPTED:
            return None
        worst = status if status != "optimal" else worst
        iterations += its
        largest = max(largest, size)
        selected = select(K @ maps.beta(g), g, nu, V)
        if selected is None:
            return g, nu, worst, iterations, rounds, largest
        if selected is TIGHTEN:
            if tightened == WS_TIGHTEN:
                return None
            tightened += 1
            opts = {key: value / 100 if key.startswith(("tol_", "eps_")) else value
                    for key, value in opts.items()}
        else:
            V = selected
    return None


def working_set_solve(gram: Gram, C, tol, solver, max_iter):
    """The exact dual optimum by a sequence of restricted problems (see the module docstring), or
    None where it does not get there in ``WS_MAX_ROUNDS`` (the caller then solves exactly).

    Returns ``(g, nu, status, iterations, rounds, largest |E|)``."""
    maps, K = gram.maps, gram.K_qp
    exact = solver_options(solver, tol, max_iter)
    loose = ({"tol_gap_abs": WS_LOOSE, "tol_gap_rel": WS_LOOSE, "tol_feas": WS_LOOSE,
              "tol_ktratio": WS_LOOSE, "iterative_refinement_enable": False}
             if solver == "CLARABEL" else {"eps_abs": WS_LOOSE, "eps_rel": WS_LOOSE})
    g = np.zeros(len(maps.i))
    V = maps.offset <= WS_OFFSET  # first pass: loose, far thresholds fixed at 0 (feasible)
    g, nu, _, _, status, _ = restricted_solve(gram, g, V, C, solver, loose)
    if status not in ACCEPTED:
        return None
    margin, _, _ = margins(K @ maps.beta(g), maps, g, C, nu, tol)
    # guess: the variables clear of their margin at their bound, the others (and enough to
    # balance the guess) in the working set
    V = (np.abs(margin - 1) < WS_DELTA) | ((g > 0.05 * C) & (g < 0.95 * C))
    g = np.where(margin < 1, C, 0.0)
    V = make_feasible(maps, g, V, margin, C)

    def select(f, g, nu, V):  # the violators, the free variables and those near their margin
        margin, violation, free = margins(f, maps, g, C, nu, tol)
        violated = ~V & (violation > tol)
        if violated.any():
            return violated | free | (np.abs(margin - 1) < WS_DELTA)
        return None if violation.max() <= 2 * tol else TIGHTEN

    return solve_rounds(gram, g, V, C, solver, exact, WS_MAX_ROUNDS, select)


def threshold_bounds(f, maps: Maps, g, C):
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


def most_violating(maps: Maps, e, lower, upper, lo, up, tol, per_side):
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


def working_set_implicit(gram: Gram, C, tol, solver, max_iter):
    """SVORIM's exact dual optimum by a sequence of small restricted problems (see the module
    docstring), or None where it does not get there in ``WS_ROUNDS_PER_N``·n rounds (the caller
    then solves exactly).

    Returns ``(g, nu, status, iterations, rounds, largest |E|)``."""
    maps, K = gram.maps, gram.K_qp
    n, m = len(K), len(maps.i)
    exact = solver_options(solver, tol, max_iter)
    if solver == "CLARABEL":
        exact["direct_solve_method"] = "qdldl"  # small blocks: less overhead per iteration
    # first pass: SVORIM on a rank-stratified subsample with C scaled up to the full sample's
    sample = np.zeros(n, bool)
    sample[np.argsort(maps.ranks, kind="stable")[:: max(1, n // WS_SAMPLE)]] = True
    g, _, b, _, status, _ = restricted_solve(gram, np.zeros(m), sample[maps.i],
                                             C * n / sample.sum(), solver, exact)
    if status not in ACCEPTED:
        return None
    f = K[:, sample] @ maps.beta(g)[sample]
    margin = maps.s * (f[maps.i] - b[maps.j - 1])
    # guess: every variable at the bound its margin asks for; the WS_FIRST nearest their
    # margin (and enough to balance the guess) in the working set
    g = np.where(margin < 1, C, 0.0)
    V = np.zeros(m, bool)
    V[np.argsort(np.abs(margin - 1), kind="stable")[:WS_FIRST]] = True
    V = make_feasible(maps, g, V, margin, C)

    def select(f, g, nu, V):  # the most violating variables and the free ones
        e, lower, upper, lo, up = threshold_bounds(f, maps, g, C)
        add = most_violating(maps, e, lower, upper, lo, up, tol, WS_PAIRS)
        if (add & ~V).any():
            return add | (lower & upper)
        return None if np.max(lo - up) <= 2 * tol else TIGHTEN

    return solve_rounds(gram, g, V, C, solver, exact, int(WS_ROUNDS_PER_N * n), select)


class SVOR(OrdinalEstimator):
    r"""Support vector ordinal regression with implicit (SVORIM) or explicit (SVOREX) constraints.

    The dual solved and how the thresholds are recovered are in the module docstring.

    Parameters
    ----------
    constraints : {"implicit", "explicit"}, default="implicit"
        Every example constrains every threshold (SVORIM), or only its two adjacent ones, with
        explicit ordering constraints (SVOREX).
    C : float, default=1.0
        Cost of a unit of slack, > 0.
    kernel : {"linear", "rbf", "poly", "perceptron"}, default="rbf"
        See :mod:`ordrank.features.kernels`; rbf is :math:`\exp(-\gamma\|x - x'\|^2)`. The
        perceptron kernel :math:`-\|x - x'\|` is centred in the quadratic form (PSD there; the
        constraints force :math:`\sum_i \beta_i = 0`, so the objective is unchanged).
    gamma : float, default=1.0
        Kernel coefficient of rbf and poly.
    degree : int, default=2
        Degree of poly.
    coef0 : float, default=1.0
        Constant of poly.
    solver : {"CLARABEL", "OSQP"}, default="CLARABEL"
        The cvxpy solver. Clarabel (interior point) is accurate; OSQP (ADMM) is looser at the same
        ``tol`` and not faster here.
    tol : float, default=1e-3
        Accuracy. Clarabel: ``tol_gap_abs = tol_gap_rel = tol/100``, ``tol_feas = tol_ktratio =
        tol``; OSQP: ``eps_abs = eps_rel = tol``.
    max_iter : int or None, default=None
        The solver's iteration limit (None: its default).
    working_set : bool or "auto", default="auto"
        Solve by a sequence of restricted problems, KKT-checked on every variable (see the module
        docstring): the same optimum, 1.8–9× faster from n = 1000 with implicit constraints,
        slower with explicit ones. "auto": implicit constraints from ``WS_MIN_N`` training rows,
        else the full solve. False: the one full problem (C a cp.Parameter of a cached compiled
        problem).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order.
    thresholds_ : ndarray of shape (n_classes - 1,)
        :math:`b_1 \le \dots \le b_{k-1}`.
    dual_coef_ : ndarray of shape (n_samples,)
        :math:`\beta`: ``decision_function`` is :math:`\sum_i \beta_i K(x_i, x)`.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training rows.
    status_ : str
        The solver's status: "optimal", or "optimal_inaccurate" (accepted, with a
        ConvergenceWarning); any other status raises :class:`FitFailed`.
    n_iter_ : int or None
        The solver's iteration count.
    objective_ : float
        The dual objective :math:`\tfrac12\beta^\top K\beta - \sum g` at the solution (minus the
        primal optimum); with the factor, :math:`K` there is :math:`LL^\top`.
    kernel_rank_ : int or None
        The rank r of the factor :math:`K \approx LL^\top` in the quadratic term, or None where
        the exact :math:`n \times n` kernel was used (see the module docstring).
    n_rounds_ : int
        Restricted problems solved after the working-set solve's first pass; 0 for the full solve.
    working_set_size_ : int
        The most examples in a restricted problem's kernel block; n_samples for the full solve.
    """

    _parameter_constraints: dict = {
        "constraints": [StrOptions({"implicit", "explicit"})],
        "C": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "solver": [StrOptions({"CLARABEL", "OSQP"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "working_set": ["boolean", StrOptions({"auto"})],
    }

    def __init__(self, constraints="implicit", *, C=1.0, kernel="rbf", gamma=1.0, degree=2,
                 coef0=1.0, solver="CLARABEL", tol=1e-3, max_iter=None, working_set="auto"):
        self.constraints = constraints
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.working_set = working_set

    def _gram(self, X, Y=None):
        return kernel_matrix(X, Y, self.kernel, gamma=self.gamma, degree=self.degree,
                             coef0=self.coef0)

    def _kernels(self, X):
        """K, and K_qp for the quadratic term (the perceptron kernel centred)."""
        K = self._gram(X)
        K_qp = K - K.mean(0) - K.mean(1)[:, None] + K.mean() if self.kernel == "perceptron" else K
        return K, K_qp

    def _build(self, X, ranks, k):
        return Dual(*self._kernels(X), ranks, k, self.constraints)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        X, ranks = self._fit_data(X, y)  # classes_ in rank order (see _ordinal)
        k = len(self.classes_)
        kernel = {"linear": (), "perceptron": (), "rbf": (self.gamma,),
                  "poly": (self.gamma, self.degree, self.coef0)}[self.kernel]
        key = (self.kernel, *kernel, self.constraints, self.solver)
        what = (f"SVOR(constraints={self.constraints!r}, C={self.C}, kernel={self.kernel!r}, "
                f"gamma={self.gamma}) with {self.solver}")
        solved = None
        if self.working_set is True or (self.working_set == "auto" and len(X) >= WS_MIN_N
                                        and self.constraints == "implicit"):
            gram = compiled(X, ranks, k, (*key, "working set"),
                            lambda: Gram(*self._kernels(X), ranks, k, self.constraints))
            args = (gram, float(self.C), self.tol, self.solver, self.max_iter)
            try:
                solved = (working_set_implicit(*args) if self.constraints == "implicit" else
                          working_set_solve(*args))
            except cp.error.SolverError:  # then the full problem, which raises FitFailed
                solved = None
        if solved is not None:
            g, nu, status, self.n_iter_, self.n_rounds_, self.working_set_size_ = solved
            maps, K = gram.maps, gram.K
            beta = maps.beta(g)
            self.objective_ = float(0.5 * beta @ gram.K_qp @ beta - g.sum())
            self.kernel_rank_ = None
        else:
            maps = compiled(X, ranks, k, key, lambda: self._build(X, ranks, k))
            g, nu, status = self._solve_full(maps, what)
            K, self.n_rounds_, self.working_set_size_ = maps.K, 0, len(X)
            self.kernel_rank_ = maps.rank
        self.status_ = status
        if status != "optimal":
            warnings.warn(f"{what}: status={status}", ConvergenceWarning, stacklevel=2)
        self.dual_coef_ = maps.beta(g)
        self.X_fit_ = X
        f = K @ self.dual_coef_
        self.thresholds_, consistent = kkt_thresholds(f, maps, g, self.C, nu, slack=10 * self.tol)
        if not consistent:
            warnings.warn(f"{what}: the KKT intervals of the thresholds are not ordered (an "
                          "inaccurate solution); thresholds forced into order",
                          ConvergenceWarning, stacklevel=2)
        return self

    def _solve_full(self, dual: Dual, what):
        """The one full problem (cached, C a parameter): (g, ν, status); sets n_iter_ and
        objective_."""
        with dual.lock:
            dual.C.value = float(self.C)
            try:
                dual.problem.solve(solver=self.solver, **solver_options(
                    self.solver, self.tol, self.max_iter, dual.rank is not None))
            except cp.error.SolverError as exc:
                raise FitFailed(f"{what} failed: status=solver_error ({exc})") from exc
            status = dual.problem.status
            if status not in ACCEPTED or dual.g.value is None:
                raise FitFailed(f"{what} did not reach an optimum: status={status}")
            g = np.clip(dual.g.value, 0.0, self.C)
            nu = None if dual.nu is None else dual.nu.value
            self.n_iter_ = dual.problem.solver_stats.num_iters
            self.objective_ = float(dual.problem.value)
        return g, nu, status

    def _score(self, X):
        support = self.dual_coef_ != 0
        return self._gram(X, self.X_fit_[support]) @ self.dual_coef_[support]

    def decision_function(self, X):
        """The latent score :math:`f(x) = \\sum_i \\beta_i K(x_i, x)`, shape (n_samples,)."""
        return self._score(self._checked(X))

    def _predict_ranks(self, X):
        return 1 + (self._score(X)[:, None] > self.thresholds_).sum(1)
