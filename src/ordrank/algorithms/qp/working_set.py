r"""The working-set solve: the exact dual optimum by a chain of small restricted problems.

Every interior-point iteration factors the dense kernel block of the examples that have a variable
in the problem, so the dual is solved on restricted problems: a variable set V is optimized with
all others fixed at their values in a feasible g, which puts only the examples E with a variable
in V into the kernel block (:math:`K_{EE}`); the fixed part of β enters linearly
(:mod:`.clarabel_qp`). At the optimum few variables are free, so the restricted problems can be
small. Every restricted problem goes to :func:`~.clarabel_qp.solve_box_qp` (Clarabel in its
standard form: these problems change shape every round, so no compiled problem could be reused).

- Implicit constraints (SVORIM; chunking with SMO's maximal violating pairs). (1) First pass:
  SVORIM on ``WS_SAMPLE`` examples (every rank in proportion), C scaled by n / ``WS_SAMPLE``,
  gives f on all examples and b (the equalities' multipliers). (2) Guess: every variable at C if
  its margin :math:`s_{ij}(f_i - b_j)` is below 1, else at 0; the ``WS_FIRST`` variables nearest
  their margin form V, enlarged (nearest first) until every threshold's equality can balance the
  fixed part. (3) Solve the restricted problem at the full tolerance and recompute f on all n
  examples. Without ordering constraints the thresholds decouple, and g is the full problem's
  optimum iff no threshold's largest lower bound exceeds its smallest upper bound by more than
  2·tol (:func:`~.kkt.threshold_bounds`; the SMO criterion). Else V becomes the free variables
  and, per threshold and side, the ``WS_PAIRS`` most violating ones, and (3) repeats; violations
  left only inside V mean the solver's accuracy could not tell bound from free variables there,
  and V is solved again with tighter tolerances (:func:`solve_rounds`); after
  ``WS_ROUNDS_PER_N``·n rounds the caller solves the full problem instead.
- Explicit constraints (SVOREX; the ordering multipliers ν couple the thresholds). (1) A loose
  first pass (tolerances ``WS_LOOSE``) on the variables at most ``WS_OFFSET`` thresholds from the
  example's own (the others at 0, feasible) gives f and b. (2) Guess: a variable farther than
  ``WS_DELTA`` from its margin is fixed at C (inside the margin) or 0, the rest and the not
  clearly bound ones form V, balanced as above. (3) Solve the restricted problem, recompute f and
  b from the KKT conditions, and check every fixed variable: at 0 it needs a margin
  :math:`\ge 1 - tol`, at C :math:`\le 1 + tol`. If none violates, g is the optimum; else V
  becomes the violators, the free variables and those within ``WS_DELTA`` of their margin, and
  (3) repeats, at most ``WS_MAX_ROUNDS`` times before the caller's full solve.

``gram`` is what the solve keeps of a training set: ``maps`` (the variables' index maps, see
:class:`~ordrank.algorithms.batch.svor_dual.Maps`) and ``K_qp`` (the kernel of the quadratic term).
The measurements behind the constants are in docs/svor_solver.md.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ordrank.algorithms.qp.clarabel_qp import BoxQP, solve_box_qp
from ordrank.algorithms.qp.kkt import margins, most_violating, threshold_bounds
from ordrank.algorithms.qp.options import ACCEPTED, solver_options

WS_OFFSET = 2        # the first pass keeps the thresholds at most this far from an example's own
WS_LOOSE = 0.1       # the first pass's tolerances
WS_DELTA = 0.05      # a variable this close to its margin stays in the working set
WS_MAX_ROUNDS = 20   # explicit: restricted problems before giving up for the exact solve
WS_SAMPLE = 300      # implicit: the first pass's examples
WS_FIRST = 100       # implicit: the first working set's variables (nearest their margin)
WS_PAIRS = 5         # implicit: per threshold and side, the most violating variables added
WS_TIGHTEN = 3       # at most this many 100× tighter solves of an inaccurate working set
WS_ROUNDS_PER_N = 0.2  # implicit: rounds before giving up, per example (needed: 0.02–0.05)
WS_MAX_SHARE = 0.5   # give up (the caller solves the full problem) once a restricted problem holds
                     # this share of the n examples: on heavily overlapping ranks (ORCA's bank2 at
                     # 5 ranks, C = 1) the set grew to 71 % of n in 55 rounds, 10x the full solve's time
WS_SHARE_MIN_N = 1000  # ... from this many examples (abalone's 40 refits: at most 29 %)
TIGHTEN = "tighten"  # see solve_rounds


class Restricted(NamedTuple):
    """One restricted problem's solution: g with V updated, ν, the thresholds b (the equalities'
    multipliers), |E|, the solver's status and iterations."""
    g: np.ndarray
    nu: np.ndarray | None
    b: np.ndarray | None
    size: int
    status: str
    iterations: int


def restricted_solve(gram, g, V, C, solver, opts) -> Restricted:
    r"""Minimize the dual over the variables ``V`` with the others fixed at their values in the
    feasible ``g``: only the examples E with a variable in V enter the quadratic block
    :math:`K_{EE}`, the fixed part of β enters linearly
    (:math:`\beta_E^\top K_{E,\cdot}\beta_{fixed}`) and in the equality constraints."""
    maps, K = gram.maps, gram.K_qp
    n, k, fixed, work = len(K), maps.k, ~V, np.flatnonzero(V)
    E = np.zeros(n, bool)
    E[maps.i[work]] = True
    rows, loc, m = np.flatnonzero(E), np.cumsum(E) - 1, len(work)
    fixed_beta = maps.beta(np.where(fixed, g, 0.0))
    qp = BoxQP(
        K=K[np.ix_(rows, rows)], linear=K[rows] @ np.where(E, 0.0, fixed_beta),
        S=sp.csc_matrix((maps.s[work], (loc[maps.i[work]], np.arange(m))), shape=(len(rows), m)),
        fixed_beta=fixed_beta[rows],
        T=sp.csc_matrix((maps.s[work], (maps.j[work] - 1, np.arange(m))), shape=(k - 1, m)),
        fixed_sums=np.bincount(maps.j[fixed] - 1, maps.s[fixed] * g[fixed], minlength=k - 1),
        ordered=maps.constraints == "explicit" and k > 2, C=C)
    gw, nu, b, status, iterations = solve_box_qp(qp, solver, opts)
    if gw is not None:
        g = g.copy()
        g[work] = np.clip(gw, 0.0, C)
    return Restricted(g, nu, b, len(rows), status, iterations)


def make_feasible(maps, g, V, margin, C):
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


def solve_rounds(gram, g, V, C, solver, opts, max_rounds, select):
    """Restricted problems from the feasible g: after each, ``select(f, g, ν, V)`` (f on all n
    examples) returns the next V; None where the KKT conditions hold on every variable; or
    ``TIGHTEN`` where only the variables in V violate them, by more than the solver's accuracy
    lets it tell a variable at its bound (g ≤ 1e-3·C from it) from a free one (at C = 100 an
    interior point stops with such g up to 0.1): then V is solved again with 100× tighter
    tolerances, at most ``WS_TIGHTEN`` times.

    Returns ``(g, nu, status, iterations, rounds, largest |E|)``, or None if a round fails, a
    restricted problem holds more than ``WS_MAX_SHARE`` of the examples or ``max_rounds`` do not
    get there."""
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
        if len(K) >= WS_SHARE_MIN_N and largest > WS_MAX_SHARE * len(K):
            return None
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


def working_set_explicit(gram, C, tol, solver, max_iter):
    """SVOREX's exact dual optimum by a sequence of restricted problems (see the module
    docstring), or None where it does not get there in ``WS_MAX_ROUNDS`` (the caller then solves
    exactly).

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


def working_set_implicit(gram, C, tol, solver, max_iter):
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


