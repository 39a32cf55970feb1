"""The cutting plane's model QP over the simplex (ordrank.algorithms.qp.simplex): the exact optimum,
checked against Clarabel's and by its KKT conditions, warm starts, and RankSVM fitted through it."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ordrank.algorithms.qp.simplex import simplex_qp
from ordrank.algorithms.ranking import RankSVM, ranksvm_primal


def clarabel_qp(monkeypatch, G, b):
    """Clarabel's optimum over the one simplex the cutting plane uses (RankSVM's model QP)."""
    monkeypatch.setattr(ranksvm_primal, "simplex_qp", lambda *args, **kwargs: None)
    return ranksvm_primal._simplex_qp(G, b)


def objective(G, b, alpha):
    return 0.5 * alpha @ G @ alpha - b @ alpha


def problem(seed, k, d, duplicates=False):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(k, d)) * 10.0 ** rng.uniform(-3, 3)
    if duplicates:  # repeated cuts: G singular beyond its rank
        A[k // 2:] = A[: k - k // 2]
    b = rng.normal(size=k) * 10.0 ** rng.uniform(-3, 3)
    return A @ A.T, b


def check_kkt(G, b, alpha):
    """Feasible, and optimal: a multiplier ν ≥ 0 with (Gα − b)_k + ν ≥ 0 everywhere, = 0 where
    α_k > 0, and ν = 0 where the sum is below 1."""
    scale = max(np.abs(np.diag(G)).max(), np.abs(b).max(), 1.0)
    assert np.all(alpha >= 0)
    assert alpha.sum() <= 1 + 1e-12
    gradient = (G @ alpha - b) / scale
    nu = -gradient[alpha > 0].mean() if (alpha > 0).any() else 0.0
    if alpha.sum() < 1 - 1e-9:
        nu = 0.0
    assert nu >= -1e-8
    assert np.all(gradient + nu >= -1e-8)
    assert np.allclose(gradient[alpha > 1e-12] + nu, 0, atol=1e-8)


@pytest.mark.parametrize("seed", range(40))
def test_the_optimum_is_clarabels_or_lower(monkeypatch, seed):
    """40 random problems: ranks 1..40, scales 1e-6..1e6, a third with duplicated cuts. The
    objective is never above Clarabel's (tol 1e-11)."""
    rng = np.random.default_rng(seed)
    G, b = problem(seed, int(rng.integers(1, 120)), int(rng.integers(1, 40)), duplicates=seed % 3 == 0)
    alpha = simplex_qp(G, b)
    assert alpha is not None
    oracle = clarabel_qp(monkeypatch, G, b)
    scale = max(np.abs(np.diag(G)).max(), np.abs(b).max(), 1.0)
    assert objective(G, b, alpha) <= objective(G, b, oracle) + 1e-10 * scale
    check_kkt(G, b, alpha)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 60), d=st.integers(1, 12), duplicates=st.booleans())
def test_kkt_from_any_feasible_start(seed, k, d, duplicates):
    """From a random feasible start (as a warm start) the same optimum, to rounding."""
    G, b = problem(seed, k, d, duplicates)
    cold = simplex_qp(G, b)
    start = np.random.default_rng(seed).dirichlet(np.ones(k + 1))[:k]
    warm = simplex_qp(G, b, start)
    assert cold is not None and warm is not None
    check_kkt(G, b, warm)
    scale = max(np.abs(np.diag(G)).max(), np.abs(b).max(), 1.0)
    assert objective(G, b, warm) == pytest.approx(objective(G, b, cold), abs=1e-10 * scale)


def test_it_reports_no_convergence_rather_than_a_wrong_answer():
    G, b = problem(3, 50, 5)
    assert simplex_qp(G, b, max_iter=2) is None


def test_ranksvm_through_it_meets_the_certified_gap_as_through_clarabel(monkeypatch):
    """The cutting plane with the active set stops at the same certified gap; its objective is
    within tol of the one with Clarabel's QPs; every QP of the fit converged (no fallback)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 15))
    qid = np.repeat(np.arange(30), 20)
    y = np.clip(np.round(X @ rng.normal(size=15) / 2 + rng.normal(size=600)), -2, 2).astype(int)
    fallbacks, solve = [], ranksvm_primal.simplex_qp
    monkeypatch.setattr(ranksvm_primal, "simplex_qp",
                        lambda *a, **k: fallbacks.append(1) if (r := solve(*a, **k)) is None else r)
    fast = RankSVM(C=10.0).fit(X, y, qid=qid)
    assert not fallbacks and fast.gap_ <= 1e-5
    monkeypatch.setattr(ranksvm_primal, "simplex_qp", lambda *a, **k: None)
    slow = RankSVM(C=10.0).fit(X, y, qid=qid)
    assert fast.objective_ == pytest.approx(slow.objective_, rel=2e-5)
