"""Crammer & Singer's synthetic ranking data (PRank paper, Figure 4 left)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class CrammerSinger:
    r"""x uniform on [0,1]², rank :math:`y = \max\{r : 10(x_1-½)(x_2-½) + ξ > b_r\}`, ξ ~ N(0, σ²).

    ``thresholds`` are the finite b_2..b_k (b_1 = −∞); the default (−1, −0.1, 0.25, 1) gives k = 5.
    The rank rule is quadratic in x: learners need a degree-2 feature map.
    """

    noise_sd: float = 0.125
    thresholds: list = field(default_factory=lambda: [-1.0, -0.1, 0.25, 1.0])

    def __post_init__(self):
        self.thresholds = [float(b) for b in self.thresholds]
        if len(self.thresholds) < 1:
            raise ValueError("dataset.thresholds must have at least one value (k = len + 1 >= 2)")
        if np.any(np.diff(self.thresholds) <= 0):
            raise ValueError(f"dataset.thresholds must increase strictly, got {self.thresholds}")
        if not (np.isfinite(self.noise_sd) and self.noise_sd >= 0):
            raise ValueError(f"dataset.noise_sd must be a finite number >= 0, got {self.noise_sd}")

    @property
    def n_ranks(self) -> int:
        return len(self.thresholds) + 1

    def sample(self, rng: np.random.Generator, n: int):
        """``n`` examples: X (n, 2) and ranks y (n,) in 1..k."""
        X = rng.uniform(size=(n, 2))
        score = 10 * (X[:, 0] - 0.5) * (X[:, 1] - 0.5) + rng.normal(0.0, self.noise_sd, n)
        return X, np.searchsorted(self.thresholds, score, side="left") + 1

    def sequences(self, rngs, n_rounds: int):
        """One sequence per generator: X (S, T, 2) and y (S, T)."""
        samples = [self.sample(rng, n_rounds) for rng in rngs]
        return np.stack([s[0] for s in samples]), np.stack([s[1] for s in samples])
