"""SVOR's ``diagonal_jitter`` (the C code's 0.001 on the training Gram matrix's diagonal) and the
compiled-problem cache keyed on everything that shapes the problem (the class included)."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from ordrank.algorithms.batch.svor import SVOR
from ordrank.algorithms.batch.svor_dual import Dual
from ordrank.algorithms.qp import cache
from test_svor import PARTITIONS, partition, small_data


@pytest.mark.parametrize("source", PARTITIONS)
@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
def test_jitter_matches_skordinal_at_large_C(request, source, constraints):
    """C = 100, γ = 1. Measured on machine10 (partitions 0–2, 177 test rows): without the jitter
    164 (implicit) / 172 (explicit) predictions equal skordinal's, thresholds up to 0.16 apart;
    with 0.001, 177 / 177, thresholds within 0.0015 and test scores within 0.0024. On partition 0
    (implicit / explicit): without the jitter thresholds 0.16 / 0.11 apart, 52 / 57 of 59
    predictions equal; with it 0.0014 / 0.0010, scores within 0.0021 / 0.0016, 59 / 59. On the
    synthetic partition (test_svor.synthetic_partition): without the jitter thresholds 0.41 / 0.41
    apart, 58 / 58 of 59 equal; with it 0.0016 / 0.0011, scores within 0.0046 / 0.0037, 59 / 59."""
    import skordinal.classifiers as skordinal
    (X, y), (X_test, _) = partition(request, source)
    theirs = skordinal.SVOR(constraints=constraints, C=100.0, gamma=1.0, tol=1e-3).fit(X, y)
    fits = {}
    for jitter in (0.0, 0.001):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fits[jitter] = SVOR(constraints, C=100.0, gamma=1.0, diagonal_jitter=jitter).fit(X, y)
    agree = {jitter: np.sum(ours.predict(X_test) == theirs.predict(X_test)) for jitter, ours in fits.items()}
    # without the jitter: another problem, thresholds far apart and some test predictions differ
    assert np.abs(fits[0.0].thresholds_ - theirs.thresholds_).max() > 0.05
    assert agree[0.0] < len(X_test)
    # with the C code's 0.001: its problem, solved to the same tolerance
    ours = fits[0.001]
    np.testing.assert_allclose(ours.thresholds_, theirs.thresholds_, atol=5e-3)
    np.testing.assert_allclose(ours.decision_function(X_test), theirs.predict_projection(X_test),
                               atol=1e-2)
    assert agree[0.001] == len(X_test)
    if source == "machine10" and constraints == "implicit":
        assert agree[0.0] <= 0.95 * len(X_test)  # 52/59 measured


def test_jitter_is_the_textbook_dual_of_the_jittered_kernel():
    """ε > 0 solves the dual with K + εI (training) and predicts with the plain kernel."""
    X, y = small_data(3, n=40)
    eps = 0.05
    model = SVOR(C=10.0, gamma=0.5, tol=1e-7, solver="CLARABEL", diagonal_jitter=eps).fit(X, y)
    beta, K = model.dual_coef_, model._gram(X)
    np.testing.assert_allclose(model.decision_function(X), K @ beta, atol=1e-10)
    g_sum = 0.5 * beta @ (K + eps * np.eye(len(X))) @ beta - model.objective_
    assert g_sum > 0
    # the KKT conditions hold with the jittered training scores f = (K + εI)β: a free g_ij puts
    # b_j at f_i − s_ij, so every training example lies on the right side of its thresholds
    plain = SVOR(C=10.0, gamma=0.5, tol=1e-7, solver="CLARABEL").fit(X, y)
    assert not np.allclose(plain.dual_coef_, beta, atol=1e-4)  # the jitter changes the problem
    # the structured interior point and the low-rank factor (linear kernel) reach the same optimum
    ipm = SVOR(C=10.0, gamma=0.5, tol=1e-7, solver="IPM", diagonal_jitter=eps).fit(X, y)
    assert ipm.solver_ == "IPM"  # not its fallback, Clarabel's full solve
    np.testing.assert_allclose(ipm.dual_coef_, beta, atol=1e-4)
    np.testing.assert_allclose(ipm.thresholds_, model.thresholds_, atol=1e-4)
    lin = SVOR(kernel="linear", C=1.0, tol=1e-7, solver="CLARABEL", diagonal_jitter=eps)
    lin_ipm = SVOR(kernel="linear", C=1.0, tol=1e-7, solver="IPM", diagonal_jitter=eps)
    lin.fit(X, y), lin_ipm.fit(X, y)
    assert lin.kernel_rank_ is not None and lin_ipm.solver_ == "IPM"  # the factor, + ε‖β‖²
    np.testing.assert_allclose(lin.dual_coef_, lin_ipm.dual_coef_, atol=1e-4)
    np.testing.assert_allclose(lin.thresholds_, lin_ipm.thresholds_, atol=1e-4)


def test_jitter_rejected_when_negative():
    X, y = small_data()
    with pytest.raises(ValueError, match="diagonal_jitter"):
        SVOR(diagonal_jitter=-1e-3).fit(X, y)


class Doubled(SVOR):
    """A subclass that builds another problem from the same parameters (K doubled)."""

    def _build(self, X, ranks, k):
        K, K_qp = self._kernels(X)
        return Dual(2 * K, 2 * K_qp, ranks, k, self.constraints)


def test_cache_keyed_on_class_and_jitter():
    X, y = small_data(4, n=40)
    cache.clear_cache()
    base = SVOR(C=1.0, gamma=0.5, tol=1e-7, solver="CLARABEL").fit(X, y)
    doubled = Doubled(C=1.0, gamma=0.5, tol=1e-7, solver="CLARABEL").fit(X, y)
    assert cache.cache_stats == {"hits": 0, "misses": 2}  # not base's problem
    assert not np.allclose(doubled.dual_coef_, base.dual_coef_, atol=1e-4)
    fresh = Doubled(C=1.0, gamma=0.5, tol=1e-7, solver="CLARABEL").fit(X, y)
    np.testing.assert_allclose(fresh.dual_coef_, doubled.dual_coef_, atol=1e-6)
    assert cache.cache_stats == {"hits": 1, "misses": 2}
    SVOR(C=1.0, gamma=0.5, tol=1e-7, solver="CLARABEL", diagonal_jitter=1e-3).fit(X, y)
    assert cache.cache_stats["misses"] == 3
