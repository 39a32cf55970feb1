"""ReductionSVM(solver="smo"): the same dual optimum as LIBSVM on the extended kernel, in n² memory."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from ordrank.algorithms.batch import reduction
from ordrank.algorithms.batch.extended_binary import cost_matrix, extended_examples
from ordrank.algorithms.batch.reduction import ReductionSVM, extended_gram
from ordrank.algorithms.qp.smo_reduction import smo_solve
from ordrank.features.kernels import kernel_matrix

V_SHAPED = np.array([[0, 1, 3, 4], [2, 0, 1, 3], [5, 2, 0, 1], [6, 4, 1, 0]], dtype=float)  # unequal weights


def ordinal(n=300, d=4, k=5, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    z = X @ rng.normal(size=d) + np.sin(2 * X[:, 0]) + noise * rng.normal(size=n)
    return X, 1 + np.digitize(z, np.quantile(z, np.linspace(0, 1, k + 1)[1:-1]))


def both_duals(X, y, C, gamma, cost="absolute", tol=1e-3):
    """The dual objective ½ uᵀGu − Σ|u| at LIBSVM's and at SMO's signed multipliers u (every
    extended example), and whether SMO's are feasible (0 ≤ |u| ≤ C·w, Σu = 0)."""
    n_ranks = len(np.unique(y))
    rows, k, labels, weights = extended_examples(y, cost_matrix(cost, n_ranks))
    K0 = kernel_matrix(X, X, "rbf", gamma=gamma)
    G = extended_gram(K0, rows, k)
    svc = SVC(C=C, kernel="precomputed", tol=tol).fit(G, labels, sample_weight=weights)
    u_lib = np.zeros(len(rows))
    u_lib[svc.support_] = svc.dual_coef_[0]
    u_smo, h, _, _, converged = smo_solve(K0, rows, k, labels, weights, C, n_ranks - 1, tol)
    np.testing.assert_allclose(h, np.bincount(k - 1, weights=u_smo), atol=1e-9)  # kept sums

    def dual(u):
        return 0.5 * u @ G @ u - np.abs(u).sum()

    feasible = (converged and np.all(np.abs(u_smo) <= C * weights + 1e-12)
                and np.all(np.sign(u_smo) * labels >= 0) and abs(u_smo.sum()) < 1e-8)
    return dual(u_lib), dual(u_smo), feasible


@pytest.mark.parametrize("C", [1.0, 10.0, 100.0])
@pytest.mark.parametrize("cost", ["absolute", "V-shaped"])
def test_smo_reaches_libsvm_optimum(C, cost):
    cost = V_SHAPED if cost == "V-shaped" else cost
    X, y = ordinal(k=4 if isinstance(cost, np.ndarray) else 5)
    d_lib, d_smo, feasible = both_duals(X, y, C, 0.2, cost)
    assert feasible
    assert d_smo == pytest.approx(d_lib, rel=2e-4)  # both stop at LIBSVM's criterion, tol = 1e-3
    libsvm = ReductionSVM(C=C, gamma=0.2, cost=cost, solver="libsvm").fit(X, y)
    smo = ReductionSVM(C=C, gamma=0.2, cost=cost, solver="smo").fit(X, y)
    assert smo.solver_ == "smo" and smo.estimator_ is None and smo.n_iter_ > 0
    assert np.abs(smo.thresholds_ - libsvm.thresholds_).max() < 0.02
    Xt, _ = ordinal(n=3000, seed=1)
    assert np.mean(smo.predict(Xt) == libsvm.predict(Xt)) > 0.995


def test_tight_tol_reaches_the_exact_optimum():
    """At tol = 1e-9 SMO reaches the exact dual optimum (Clarabel through cvxpy), where
    LIBSVM, whose kernel cache holds floats, stalls below about 1e-5."""
    import cvxpy as cp

    X, y = ordinal(n=60, k=4, seed=2)
    rows, k, labels, weights = extended_examples(y, cost_matrix(V_SHAPED, 4))
    K0 = kernel_matrix(X, X, "rbf", gamma=0.5)
    G, C = extended_gram(K0, rows, k), 10.0
    u = cp.Variable(len(rows))
    problem = cp.Problem(cp.Minimize(0.5 * cp.quad_form(u, cp.psd_wrap(G)) - labels @ u),
                         [cp.multiply(labels, u) >= 0, cp.multiply(labels, u) <= C * weights, cp.sum(u) == 0])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    u_smo, _, _, _, converged = smo_solve(K0, rows, k, labels, weights, C, 3, 1e-9)
    assert converged
    assert 0.5 * u_smo @ G @ u_smo - labels @ u_smo == pytest.approx(problem.value, rel=1e-9)
    # G is singular (rank ≤ n + K − 1), so u is not unique; the outputs Gu on the examples are
    np.testing.assert_allclose(G @ u_smo, G @ u.value, atol=1e-5)


def test_auto_switches_by_extended_examples(monkeypatch):
    X, y = ordinal(n=100)
    assert ReductionSVM().fit(X, y).solver_ == "libsvm"  # 400 extended examples
    monkeypatch.setattr(reduction, "SMO_FROM", 400)
    assert ReductionSVM().fit(X, y).solver_ == "smo"


def test_max_iter_warns():
    X, y = ordinal(n=100)
    with pytest.warns(ConvergenceWarning, match=r"ReductionSVM \(smo\) stopped at max_iter=5"):
        ReductionSVM(solver="smo", max_iter=5).fit(X, y)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), duplicates=st.integers(0, 5), C=st.sampled_from([0.5, 5.0, 50.0]))
def test_smo_feasible_and_no_worse_than_libsvm(seed, duplicates, C):
    """Random data with duplicated rows (η = 0 steps): feasible multipliers and an objective within
    the tolerance of LIBSVM's."""
    X, y = ordinal(n=40, k=4, seed=seed, noise=1.0)
    X, y = np.vstack([X, X[:duplicates]]), np.concatenate([y, y[:duplicates]])
    d_lib, d_smo, feasible = both_duals(X, y, C, 0.5)
    assert feasible
    assert d_smo <= d_lib + 2e-3 * max(1.0, abs(d_lib))
