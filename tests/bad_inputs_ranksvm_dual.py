"""Bad inputs of the kernel RankSVM dual (``fit_ranksvm_dual``): rows of the bad-input table."""
import numpy as np
from conftest import Case

from ordrank.algorithms import FitFailed
from ordrank.algorithms.ranking.ranksvm_dual import fit_ranksvm_dual
from ordrank.features.kernels import kernel_matrix

K3 = np.eye(3)


def limited(tmp):
    """24 documents, every pair i < j, the solver stopped after one iteration."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 3))
    pairs = np.nonzero(np.arange(24)[:, None] < np.arange(24)[None, :])
    return fit_ranksvm_dual(kernel_matrix(X, None, "rbf", gamma=0.5), *pairs, 1.0, max_iter=1)


CASES = [
    Case("ranksvm-dual-K-not-square", "`fit_ranksvm_dual(np.ones((3, 2)), [0], [1], 1.0)`",
         ValueError, r"^fit_ranksvm_dual: K must be a square \(n, n\) Gram matrix, got shape \(3, 2\)",
         lambda tmp: fit_ranksvm_dual(np.ones((3, 2)), [0], [1], 1.0)),
    Case("ranksvm-dual-K-nan", "a Gram matrix with a NaN", ValueError,
         r"^fit_ranksvm_dual: K has non-finite entries",
         lambda tmp: fit_ranksvm_dual(np.where(K3 == 1, np.nan, 0), [0], [1], 1.0)),
    Case("ranksvm-dual-pair-outside-K", "`fit_ranksvm_dual(np.eye(3), [0, 5], [1, 2], 1.0)`",
         ValueError, r"^fit_ranksvm_dual: pairs_i\[1\] = 5 is not a row of K \(0\.\.2\)",
         lambda tmp: fit_ranksvm_dual(K3, [0, 5], [1, 2], 1.0)),
    Case("ranksvm-dual-float-pairs", "`fit_ranksvm_dual(np.eye(3), [0.0], [1.0], 1.0)`",
         ValueError, r"^fit_ranksvm_dual: pairs_i must be a 1-D integer array of row indices, got "
         r"dtype float64", lambda tmp: fit_ranksvm_dual(K3, [0.0], [1.0], 1.0)),
    Case("ranksvm-dual-pair-lengths", "`fit_ranksvm_dual(np.eye(3), [0, 1], [2], 1.0)`",
         ValueError, r"^fit_ranksvm_dual: pairs_i has 2 entries, pairs_j 1",
         lambda tmp: fit_ranksvm_dual(K3, [0, 1], [2], 1.0)),
    Case("ranksvm-dual-self-pair", "`fit_ranksvm_dual(np.eye(3), [0, 1], [2, 1], 1.0)`",
         ValueError, r"^fit_ranksvm_dual: pair 1 compares row 1 with itself",
         lambda tmp: fit_ranksvm_dual(K3, [0, 1], [2, 1], 1.0)),
    Case("ranksvm-dual-C-zero", "`fit_ranksvm_dual(np.eye(3), [0], [1], 0)`", ValueError,
         r"^fit_ranksvm_dual: C must be a finite number > 0, got 0",
         lambda tmp: fit_ranksvm_dual(K3, [0], [1], 0)),
    Case("ranksvm-dual-loss", "`fit_ranksvm_dual(np.eye(3), [0], [1], 1.0, loss=\"logistic\")`",
         ValueError, r"^fit_ranksvm_dual: loss must be one of \('hinge', 'squared_hinge'\), got "
         r"'logistic'", lambda tmp: fit_ranksvm_dual(K3, [0], [1], 1.0, loss="logistic")),
    Case("ranksvm-dual-solver-limit", "`fit_ranksvm_dual(K, i, j, 1.0, max_iter=1)` (the solver "
         "stops early)", FitFailed, r"^kernel RankSVM dual \(loss='hinge', C=1\.0, 276 pairs\) with "
         r"CLARABEL did not reach an optimum: status=MaxIterations", limited),
]
