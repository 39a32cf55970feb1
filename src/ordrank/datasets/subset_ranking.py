r"""Subset-ranking data of the Predtron paper (Jain, Natarajan & Tewari, NIPS 2015, Section 6).

An instance is a query with m documents, X ∈ R^{m×p}; a fixed w* ∈ R^p scores document i by
s_i = ⟨X(i), w*⟩, and its relevance is read off the thresholds ζ_1 = +∞, ζ_j = 1/j (2 ≤ j ≤ m),
ζ_{m+1} = −∞:

.. math::  y(i) = m - j \iff ζ_{j+1} ≤ s_i ≤ ζ_j, \qquad y(i) ∈ \{0, …, m-1\}.

So s ≥ 1/2 gives the top level m − 1, s < 1/m gives 0, and the bands between shrink as 1/j(j+1) down
the list. A score exactly on a threshold gets the higher level (the paper's bands overlap there).

Two generators, each drawing one *task* (w* and, for the Gaussian one, the centres μ_i) from which
training and test queries are then sampled, so both come from the same w* and μ:

- :class:`GaussianSubsetRanking` (Figure 1 a, b): row i is N(μ_i, σ² I_p). The paper does not give
  μ_i; here μ_i ~ N(0, τ² I_p), drawn once per task, and w* is uniform on the unit sphere. A
  document's score is then N(⟨μ_i, w*⟩, σ²) with ⟨μ_i, w*⟩ ~ N(0, τ²): over documents, s ~ N(0, τ² + σ²).
- :class:`SparseSubsetRanking` (Figure 1 c): X uniform on [−1, 1]^{m×p}; w* has ``n_nonzero`` non-zero
  coordinates (random positions, N(0, 1) values), scaled to ℓ2 norm ``w_norm``; s has variance
  ‖w*‖²/3.

**Scale (a choice; the paper is silent).** With a centred Gaussian score of standard deviation
``sd``, the level histogram is most spread (largest entropy) near sd ≈ 0.25–0.3. At sd = 0.28,
57 % of documents get level 0, 4 % the top level, and the 18 middle levels share the other 39 %
(from 0.4 % at level 1 to 8 % at level 18). At the unit scales one might pick by default
(τ = σ = 1, sd = 1.4) the middle levels share only 12 % and 36 % of documents tie at the top. So
the defaults are τ = σ = 0.2 (sd 0.28) and ‖w*‖₂ = 0.5 (sd 0.29). These shares are over tasks;
within one task the centres shift them. ``python -m ordrank.datasets.subset_ranking`` prints the
histograms at the paper's sizes, pooled over tasks.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np


def thresholds(m: int) -> np.ndarray:
    """The finite thresholds in increasing order: ζ_m, ζ_{m−1}, …, ζ_2 = 1/m, …, 1/2 (m − 1 values)."""
    if not isinstance(m, (int, np.integer)) or m < 2:
        raise ValueError(f"m (documents per query) must be an integer >= 2, got {m!r}")
    return 1.0 / np.arange(m, 1, -1, dtype=np.float64)


def relevance(scores: np.ndarray, m: int) -> np.ndarray:
    """Relevance levels 0..m−1 of ``scores`` (any shape): the number of thresholds ζ_j ≤ s."""
    return np.searchsorted(thresholds(m), np.asarray(scores, dtype=np.float64), side="right")


def level_histogram(y: np.ndarray, m: int) -> np.ndarray:
    """Share of documents at each level 0..m−1."""
    y = np.asarray(y).ravel()
    return np.bincount(y, minlength=m) / max(len(y), 1)


@dataclass(frozen=True)
class SubsetRankingTask:
    """One fixed w* (p,) and, for Gaussian rows, centres μ (m, p) with noise σ; ``centers=None``
    means rows uniform on [−1, 1]^p. :meth:`sample` draws queries of this task."""

    w_star: np.ndarray
    m: int
    centers: np.ndarray | None = None
    noise_scale: float = 0.0

    @property
    def p(self) -> int:
        return len(self.w_star)

    def sample(self, rng: np.random.Generator, n: int):
        """``n`` queries: X (n, m, p) and relevance y (n, m), integers in 0..m−1."""
        if not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"number of queries must be a non-negative integer, got {n!r}")
        shape = (n, self.m, self.p)
        if self.centers is None:
            X = rng.uniform(-1.0, 1.0, size=shape)
        else:
            X = self.centers + self.noise_scale * rng.standard_normal(shape)
        return X, relevance(X @ self.w_star, self.m)


def _check_size(m, p):
    thresholds(m)
    if not isinstance(p, (int, np.integer)) or p < 1:
        raise ValueError(f"p (features per document) must be a positive integer, got {p!r}")


def _check_scale(owner, name, allow_zero=False):
    value = getattr(owner, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) \
            or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"dataset.{name} must be a finite number {bound}, got {value!r}")


@dataclass
class GaussianSubsetRanking:
    """Figure 1 (a, b): rows X(i) ~ N(μ_i, σ² I), μ_i ~ N(0, τ² I) and w* uniform on the unit sphere,
    both drawn once per task. ``center_scale`` is τ, ``noise_scale`` is σ."""

    center_scale: float = 0.2
    noise_scale: float = 0.2

    def __post_init__(self):
        _check_scale(self, "center_scale", allow_zero=True)
        _check_scale(self, "noise_scale")

    def task(self, rng: np.random.Generator, m: int, p: int) -> SubsetRankingTask:
        _check_size(m, p)
        w_star = rng.standard_normal(p)
        w_star /= np.linalg.norm(w_star)
        centers = self.center_scale * rng.standard_normal((m, p))
        return SubsetRankingTask(w_star, int(m), centers, float(self.noise_scale))


@dataclass
class SparseSubsetRanking:
    """Figure 1 (c): rows uniform on [−1, 1]^p; w* has ``n_nonzero`` non-zeros (random positions,
    N(0, 1) values) and ℓ2 norm ``w_norm``, drawn once per task."""

    n_nonzero: int = 50
    w_norm: float = 0.5

    def __post_init__(self):
        if isinstance(self.n_nonzero, bool) or not isinstance(self.n_nonzero, (int, np.integer)) \
                or self.n_nonzero < 1:
            raise ValueError(f"dataset.n_nonzero must be a positive integer, got {self.n_nonzero!r}")
        _check_scale(self, "w_norm")

    def task(self, rng: np.random.Generator, m: int, p: int) -> SubsetRankingTask:
        _check_size(m, p)
        if p < self.n_nonzero:
            raise ValueError(f"dataset.n_nonzero={self.n_nonzero} exceeds p={p} features")
        w_star = np.zeros(p)
        support = rng.choice(p, size=self.n_nonzero, replace=False)
        w_star[support] = rng.standard_normal(self.n_nonzero)
        w_star *= self.w_norm / np.linalg.norm(w_star)
        return SubsetRankingTask(w_star, int(m))


def pooled_levels(generator, rng, m: int, p: int, n_tasks: int, n_queries: int) -> np.ndarray:
    """:func:`level_histogram` of the relevances of ``n_tasks`` tasks of ``n_queries`` queries each
    (m documents, p features), drawn one task after the other from ``rng``."""
    y = [generator.task(rng, m, p).sample(rng, n_queries)[1] for _ in range(n_tasks)]
    return level_histogram(np.concatenate(y), m)


def main(argv=None) -> None:
    """Print the level histogram (% of documents per level, pooled over tasks) at the paper's sizes."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--queries", type=int, default=100, help="queries per task")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    cases = [("Gaussian, tau = sigma = 0.2 (default)", GaussianSubsetRanking(), 30),
             ("Gaussian, tau = sigma = 1", GaussianSubsetRanking(1.0, 1.0), 30),
             ("sparse, s = 50, ||w*|| = 0.5 (default)", SparseSubsetRanking(), 1000)]
    for title, generator, p in cases:
        levels = pooled_levels(generator, rng, 20, p, args.tasks, args.queries)
        shares = " ".join(f"{100 * v:.1f}" for v in levels)
        print(f"{title}, m = 20, p = {p}: % of documents at levels 0..19\n  {shares}")


if __name__ == "__main__":
    main()
