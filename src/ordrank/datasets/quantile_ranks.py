"""Ordinal data with ranks at the quantiles of a noisy score: the SVOR benchmarks' synthetic data
(benchmarks/bench_svor.py, parts fits and selection)."""
from __future__ import annotations

import numpy as np


def quantile_ranks(n: int, noise: float = 0.2, n_ranks: int = 10, n_features: int = 8, seed: int = 0):
    r"""``(X, y)``: X (n, n_features) standard normal; the score :math:`s = Xw + \sin x_1`, w standard
    normal, plus ``noise``·std(s) Gaussian noise, cut at its n_ranks-quantiles into ranks 1..n_ranks."""
    if n < n_ranks or n_ranks < 2:
        raise ValueError(f"quantile_ranks needs n >= n_ranks >= 2, got n={n}, n_ranks={n_ranks}")
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    s = X @ rng.normal(size=n_features) + np.sin(X[:, 0])
    z = s + noise * s.std() * rng.normal(size=n)
    return X, 1 + np.searchsorted(np.quantile(z, np.linspace(0, 1, n_ranks + 1)[1:-1]), z)
