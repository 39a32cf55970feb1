r"""Whether the ordered logit / probit maximum-likelihood estimate exists: (quasi-)complete separation.

For a cumulative link model :math:`P(y \le r \mid x) = F(\theta_r - x\cdot\beta)` (no constant column;
the thresholds are the intercept) the log-likelihood is bounded above by 0. Along a direction
:math:`(d, t)` of :math:`(\beta, \theta)` it never decreases iff every observation of rank r keeps

.. math:: t_{r-1} \le x_i\cdot d \le t_r \qquad (t_0 = -\infty,\ t_K = +\infty),

that is, iff the score :math:`x\cdot d` orders the ranks with ties allowed only at the cuts. If such a
direction exists with some inequality strict, the likelihood keeps improving as
:math:`\|\beta\| \to \infty` and the maximum-likelihood estimate does not exist (complete separation
when every inequality is strict, quasi-complete otherwise; Albert & Anderson 1984, extended to
cumulative links by Agresti's *Analysis of Ordinal Categorical Data*, sec. 3.4.5). Fitted anyway, an
optimizer stops wherever its gradient tolerance is met, with coefficients in the hundreds or thousands.

:func:`separating_direction` decides it by one linear programme (scipy's HiGHS), in the manner of
Konis' test for logistic regression: maximize the total slack
:math:`\sum_i (t_{r_i} - x_i\cdot d)[r_i<K] + (x_i\cdot d - t_{r_i-1})[r_i>1]` subject to the
inequalities above and :math:`-1 \le d_j \le 1` on standardized columns. The optimum is 0 (at
d = 0, t = 0) exactly when no such direction exists, since a d whose slacks are all zero makes
:math:`x\cdot d` constant, which the caller's column screening rules out.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize
from sklearn.exceptions import ConvergenceWarning

# the total slack (on standardized columns, |d_j| <= 1) above which the data count as separated, per
# observation: HiGHS meets its constraints to 1e-7, so a non-separated set's optimum is 0 to ~1e-9
SLACK_TOLERANCE = 1e-6


class SeparationWarning(ConvergenceWarning):
    """The ranks are (quasi-)completely separated by a linear score: the maximum-likelihood estimate does
    not exist, the fitted coefficients are wherever the optimizer stopped (a subclass of scikit-learn's
    ConvergenceWarning)."""


def separating_direction(X: np.ndarray, ranks: np.ndarray) -> np.ndarray | None:
    """A direction d (in X's units, unit norm) along which the ordinal likelihood never decreases and
    increases somewhere, or None when the maximum-likelihood estimate exists.

    ``X``: the columns actually fitted (no constant, no column collinear with others and a constant);
    ``ranks``: integers 1..K, every rank present.
    """
    n, p = X.shape
    K = int(ranks.max())
    if p == 0 or n == 0:
        return None
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - X.mean(axis=0)) / scale
    # rows "x_i·d - t_r <= 0" (r_i < K) and "t_{r-1} - x_i·d <= 0" (r_i > 1); columns [d, t_1..t_{K-1}]
    upper, lower = ranks < K, ranks > 1
    T_upper = np.zeros((upper.sum(), K - 1))
    T_upper[np.arange(upper.sum()), ranks[upper] - 1] = -1.0
    T_lower = np.zeros((lower.sum(), K - 1))
    T_lower[np.arange(lower.sum()), ranks[lower] - 2] = 1.0
    A = np.vstack([np.hstack([Z[upper], T_upper]), np.hstack([-Z[lower], T_lower])])
    # maximize the total slack = -(sum of the rows' left-hand sides)
    result = optimize.linprog(A.sum(axis=0), A_ub=A, b_ub=np.zeros(len(A)),
                              bounds=[(-1, 1)] * p + [(None, None)] * (K - 1), method="highs")
    if result.status != 0 or -result.fun <= SLACK_TOLERANCE * n:
        return None
    d = result.x[:p] / scale
    return d / np.linalg.norm(d)
