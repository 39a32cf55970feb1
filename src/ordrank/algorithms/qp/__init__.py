"""The QP toolkit: the kernel duals' box-constrained QPs in β-form (SVOR, kernel RankSVM) and the
linear RankSVM cutting plane's model QP.

- :mod:`.cache`: an LRU cache of compiled problems (a grid over C compiles once per training set);
- :mod:`.factor`: the kernel term, exact (PSD-wrapped) or through a pivoted-Cholesky factor;
- :mod:`.options`: Clarabel's settings for an accuracy ``tol``, the accepted statuses;
- :mod:`.clarabel_qp`: the kernel RankSVM's box QP in Clarabel's standard form (or in cvxpy),
  :func:`solve_box_qp`;
- :mod:`.kkt`: bound sides, KKT thresholds and the duality gap of a thresholded dual;
- :mod:`.ipm`: a primal-dual interior point for SVOR's dual, one n × n Cholesky factor per step
  (and SVOREX's ordering terms, :func:`~.ipm.ordering`);
- :mod:`.smo`: sequential minimal optimization of SVOR's dual (numba), no QP solver;
- :mod:`.simplex`: the cutting plane's model QP over the simplex (RankSVM), an exact active set;
- :mod:`.smo_reduction`: the same for Reduction-SVM's dual, on the base kernel only.
"""
