"""Solver settings and statuses shared by the duals: an accuracy ``tol`` as solver options."""
from __future__ import annotations

import clarabel

ACCEPTED = ("optimal", "optimal_inaccurate")  # the latter with a ConvergenceWarning
CLARABEL_STATUS = {"Solved": "optimal", "AlmostSolved": "optimal_inaccurate"}  # as cvxpy names them
FAER = tuple(int(v) for v in clarabel.__version__.split(".")[:2]) >= (0, 10)


def solver_options(tol, max_iter, factored=False) -> dict:
    """cvxpy ``solve`` keywords for Clarabel at accuracy ``tol`` (also Clarabel's settings, less
    ``warm_start``).
    ``warm_start`` reuses the solver's workspace (data update, no new symbolic factorization) on a
    cached problem."""
    # a duality gap of tol/100 gives thresholds within ~tol of the exact optimum; iterative
    # refinement costs 40% of the time and does not change the solution at this tolerance
    opts = {"tol_gap_abs": tol / 100, "tol_gap_rel": tol / 100, "tol_feas": tol,
            "tol_ktratio": tol, "iterative_refinement_enable": False}
    if FAER:  # supernodal LDLᵀ: 2–4× faster than QDLDL on the dense n × n kernel block, but
        # it merges the n × r block of the factored form into one dense (n + r)² front
        opts["direct_solve_method"] = "qdldl" if factored else "faer"
    if max_iter is not None:
        opts["max_iter"] = max_iter
    return {**opts, "warm_start": True}
