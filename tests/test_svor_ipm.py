"""SVOR's structured interior point (``solver="IPM"``, :mod:`ordrank.algorithms.qp.ipm`) against
Clarabel's solve of the same dual, the authors' C code (skordinal) and the KKT conditions."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from ordrank.algorithms.batch.svor import SVOR
from ordrank.algorithms.batch.svor_dual import Maps
from ordrank.algorithms.qp import ipm
from ordrank.features.kernels import kernel_matrix
from test_svor import ORDINAL_SCORE, PARTITIONS, partition, ranked_data


@parametrize_with_checks([SVOR(solver="IPM"), SVOR("explicit", solver="IPM", kernel="linear")],
                         expected_failed_checks=lambda est: ORDINAL_SCORE)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(4, 40), k=st.integers(2, 6),
       C=st.sampled_from([0.1, 1.0, 100.0]), constraints=st.sampled_from(["implicit", "explicit"]),
       kernel=st.sampled_from(["rbf", "linear", "perceptron"]))
def test_ipm_optimal_feasible_and_ordered(seed, n, k, C, constraints, kernel):
    """Any data (ranks possibly missing, duplicate rows: a singular K): the IPM converges, its g
    is feasible (in [0, C], every balance row within tol), its objective within the tolerance of
    Clarabel's and its thresholds ordered."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 2)), 1)
    y = rng.integers(1, k + 1, size=n)
    if len(np.unique(y)) < 2:
        y[0], y[-1] = 1, 2
    exact = SVOR(constraints, kernel=kernel, gamma=1.0, C=C, tol=1e-7, solver="CLARABEL").fit(X, y)
    classes = np.unique(y)
    maps = Maps(np.searchsorted(classes, y) + 1, len(classes), constraints)
    K = exact._kernels(X)[1]
    g, nu, iterations, converged = ipm.ipm_solve(K, maps, C, 1e-6)
    assert converged and iterations <= ipm.MAX_ITER
    assert np.all((g >= 0) & (g <= C))
    sums = np.bincount(maps.j - 1, maps.s * g, minlength=maps.k - 1)
    if nu is not None:
        assert np.all(nu >= 0)
        sums -= np.concatenate([[0], nu]) - np.concatenate([nu, [0]])
    assert np.abs(sums).max() <= 1e-6 * C
    beta = maps.beta(g)
    objective = 0.5 * beta @ K @ beta - g.sum()
    assert objective <= exact.objective_ + 1e-5 * max(1.0, abs(exact.objective_))
    ours = SVOR(constraints, kernel=kernel, gamma=1.0, C=C, tol=1e-6, solver="IPM").fit(X, y)
    assert np.all(np.diff(ours.thresholds_) >= 0)


def test_ipm_short_of_the_optimum_falls_back_to_clarabel():
    """Stopped by max_iter, the IPM's point is not used: Clarabel solves the full problem (with
    its own iteration limit), exactly as solver="CLARABEL" does."""
    X, y = ranked_data(5, 120, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = SVOR(solver="IPM", C=10.0, max_iter=2).fit(X, y)
    clarabel = SVOR(solver="CLARABEL", C=10.0).fit(X, y)
    assert ours.status_ == "optimal" and ours.n_iter_ == clarabel.n_iter_
    np.testing.assert_array_equal(ours.dual_coef_, clarabel.dual_coef_)
    np.testing.assert_array_equal(ours.thresholds_, clarabel.thresholds_)


def test_ipm_needs_one_factorization_of_the_example_block(monkeypatch):
    """The Newton systems are solved through the n × n matrix M, never the m-variable KKT
    matrix: every Cholesky factorization is n × n (or the p × p Schur complement)."""
    X, y = ranked_data(6, 80, 0.5)
    sizes = []
    real = ipm.cho_factor

    def recording(a, *args, **kwargs):
        sizes.append(a.shape)
        return real(a, *args, **kwargs)

    monkeypatch.setattr(ipm, "cho_factor", recording)
    model = SVOR(solver="IPM", C=1.0).fit(X, y)
    k = len(model.classes_)
    assert set(sizes) == {(80, 80), (k - 1, k - 1)}
    assert len(sizes) == 2 * model.n_iter_


@pytest.mark.parametrize("source", PARTITIONS)
@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
def test_ipm_predicts_like_skordinal(request, source, constraints):
    """C = 100, γ = 1, the C code's 0.001 on the diagonal: the same test predictions as skordinal
    (Chu & Keerthi's SMO in C). Measured (implicit / explicit): machine10's partition 0,
    thresholds within 0.0014 / 0.0010, test scores within 0.0021 / 0.0016, 59 / 59 of 59
    predictions equal; the synthetic partition (test_svor.synthetic_partition), thresholds within
    0.0016 / 0.0011, scores within 0.0046 / 0.0037, 59 / 59 of 59."""
    import skordinal.classifiers as skordinal
    (X, y), (X_test, _) = partition(request, source)
    theirs = skordinal.SVOR(constraints=constraints, C=100.0, gamma=1.0, tol=1e-3).fit(X, y)
    ours = SVOR(constraints, C=100.0, gamma=1.0, diagonal_jitter=0.001, solver="IPM").fit(X, y)
    np.testing.assert_allclose(ours.thresholds_, theirs.thresholds_, atol=5e-3)
    np.testing.assert_allclose(ours.decision_function(X_test), theirs.predict_projection(X_test),
                               atol=1e-2)
    assert np.mean(ours.predict(X_test) == theirs.predict(X_test)) == 1.0


def test_kernel_matrix_unchanged_by_the_solve():
    X, y = ranked_data(7, 60, 0.5)
    K = kernel_matrix(X, X, "rbf", gamma=1.0)
    before = K.copy()
    classes = np.unique(y)
    ipm.ipm_solve(K, Maps(np.searchsorted(classes, y) + 1, len(classes), "implicit"), 10.0, 1e-3)
    np.testing.assert_array_equal(K, before)
