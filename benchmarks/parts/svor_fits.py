"""bench_svor.py's part ``fits``: one SVOR fit, ordrank's default solver and its cvxpy oracle dual
against skordinal's C SMO; the factored against the exact kernel term; a grid over C on one compiled
problem. What each line shows: the script's docstring."""
from __future__ import annotations

import time
from unittest import mock

import numpy as np
from skordinal.classifiers import SVOR as SkordinalSVOR

from ordrank.algorithms.batch import svor
from ordrank.algorithms.qp import cache, factor
from ordrank.datasets.quantile_ranks import quantile_ranks
from ordrank.features.kernels import kernel_matrix

GRID = [0.01, 0.1, 1.0, 10.0, 100.0]
NOISE = (0.2, 1.0)
def best_of(repeats, fit):
    times = []
    for _ in range(repeats):
        cache.clear_cache()
        start = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - start)
    return min(times), model


def default(X, y):
    return svor.SVOR(C=1.0, gamma=0.1, tol=1e-3).fit(X, y)


def ours(X, y):
    return svor.SVOR(C=1.0, gamma=0.1, tol=1e-3, solver="CLARABEL").fit(X, y)


def theirs(X, y):
    return SkordinalSVOR(C=1.0, gamma=0.1, tol=1e-3, constraints="implicit").fit(X, y)


def form(model):
    return "exact" if model.kernel_rank_ is None else f"r={model.kernel_rank_}"


def needed_rank(X):
    """The least rank of a factor LLᵀ ≼ K with tr(K − LLᵀ) ≤ RANK_TOL·tr(K): the spectrum's tail."""
    if len(X) > 2000:
        return "-"
    tail = np.cumsum(np.linalg.eigvalsh(kernel_matrix(X, gamma=0.1)))  # ascending eigenvalues
    return str(len(X) - np.searchsorted(tail, factor.RANK_TOL * tail[-1], side="right"))


def compare(n, noise, repeats):
    X, y = quantile_ranks(n, noise)
    auto_s, model = best_of(repeats, lambda: default(X, y))
    ref_s, ref = best_of(repeats, lambda: ours(X, y))
    theirs_s, theirs_model = best_of(repeats, lambda: theirs(X, y))
    gap = np.abs(model.thresholds_ - theirs_model.thresholds_).max()
    agree = np.mean(model.predict(X) == theirs_model.predict(X))
    print(f"  n={n:5d}  noise {noise:.1f}  auto {auto_s:6.2f} s (by {model.solver_})  CLARABEL {ref_s:6.2f} s "
          f"({ref.n_iter_} iterations, {form(ref)}, factor needs r >= {needed_rank(X)})  "
          f"skordinal {theirs_s:6.2f} s  ratio auto {auto_s / theirs_s:5.2f}, CLARABEL {ref_s / theirs_s:5.2f}  "
          f"max |Δb| {gap:.4f}  equal predictions {agree:.3f}")


def forms(n, repeats, noise=0.2):
    """Factored against exact form where the factor applies: 2 features."""
    X, y = quantile_ranks(n, noise, n_features=2)
    factor_s, factored = best_of(repeats, lambda: ours(X, y))
    with mock.patch.object(factor, "MAX_RANK", 0.0):
        exact_s, exact = best_of(repeats, lambda: ours(X, y))
    theirs_s, _ = best_of(repeats, lambda: theirs(X, y))
    rel = abs(factored.objective_ / exact.objective_ - 1)
    gap = np.abs(factored.thresholds_ - exact.thresholds_).max()
    agree = np.mean(factored.predict(X) == exact.predict(X))
    print(f"  n={n:5d}  factored ({form(factored)}) {factor_s:6.2f} s  exact {exact_s:6.2f} s  "
          f"({form(exact)})  skordinal {theirs_s:6.2f} s  ratio {factor_s / theirs_s:5.2f}  "
          f"objective rel. diff {rel:.1e}  max |Δb| {gap:.1e}  equal predictions {agree:.4f}")


def grid(repeats, n=150):
    X, y = quantile_ranks(n)

    def one_problem():
        for C in GRID:
            model = svor.SVOR(C=C, gamma=0.1, solver="CLARABEL").fit(X, y)
        return model

    def independent():
        for C in GRID:
            cache.clear_cache()
            model = svor.SVOR(C=C, gamma=0.1, solver="CLARABEL").fit(X, y)
        return model

    shared_s, _ = best_of(repeats, one_problem)
    hits = cache.cache_stats["hits"]
    alone_s, _ = best_of(repeats, independent)
    print(f"  n={n}, C in {GRID}: one compiled problem {shared_s:.3f} s ({hits} cache hits), "
          f"5 independent fits {alone_s:.3f} s")


def run(repeats, large):
    svor.SVOR().fit(*quantile_ranks(30))  # warm up imports
    print("SVOR implicit, rbf, C=1, gamma=0.1, tol=1e-3 (best of "
          f"{repeats}; targets: ratio auto <= 3 at n=1000, <= 4 at n=2000)")
    for n in (150, 1000, 2000, 5000)[: 4 if large else 3]:
        for noise in NOISE:
            compare(n, noise, repeats)
    print(f"factored vs exact kernel term, 2 features (noise 0.2; RANK_TOL={factor.RANK_TOL}):")
    for n in (1000, 2000):
        forms(n, repeats)
    print("grid over C:")
    grid(repeats)
