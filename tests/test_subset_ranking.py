"""The Predtron paper's subset-ranking data (Section 6), its protocol and the Figure 1 experiments."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ordrank.datasets.subset_ranking import (GaussianSubsetRanking, SparseSubsetRanking, level_histogram,
                                             relevance, thresholds)

REPO = Path(__file__).resolve().parents[1]


# --- the generator -------------------------------------------------------------------------------
def zeta(j: int, m: int) -> float:
    """The paper's thresholds: ζ_1 = +∞, ζ_j = 1/j for 2 ≤ j ≤ m, ζ_{m+1} = −∞."""
    return np.inf if j == 1 else (-np.inf if j == m + 1 else 1.0 / j)


@given(m=st.integers(2, 40), s=st.floats(-2.0, 2.0, allow_nan=False))
def test_relevance_is_m_minus_j_for_the_band_holding_the_score(m, s):
    y = int(relevance(np.array([s]), m)[0])
    j = m - y
    assert 0 <= y <= m - 1
    assert zeta(j + 1, m) <= s <= zeta(j, m)
    if s not in (zeta(j, m), zeta(j + 1, m)):  # off the thresholds the band is unique
        assert not any(zeta(k + 1, m) <= s <= zeta(k, m) for k in range(1, m + 1) if k != j)


@pytest.mark.parametrize("m", [2, 5, 20])
def test_relevance_on_the_thresholds_takes_the_higher_level(m):
    assert thresholds(m).tolist() == [1.0 / j for j in range(m, 1, -1)]
    for j in range(2, m + 1):  # s = ζ_j lies in the bands of j − 1 and of j: the higher level m − j + 1
        assert relevance(np.array([1.0 / j]), m)[0] == m - j + 1
    assert relevance(np.array([0.5 + 1e-9, 1e9, 1.0 / m - 1e-9, -3.0]), m).tolist() == [m - 1, m - 1, 0, 0]


@pytest.mark.parametrize("generator, p", [(GaussianSubsetRanking(), 7), (SparseSubsetRanking(n_nonzero=3), 9)])
def test_shapes_levels_and_seeds(generator, p):
    task = generator.task(np.random.default_rng(1), 6, p)
    X, y = task.sample(np.random.default_rng(2), 11)
    assert X.shape == (11, 6, p) and y.shape == (11, 6) and y.dtype.kind == "i"
    assert y.min() >= 0 and y.max() <= 5
    np.testing.assert_array_equal(y, relevance(X @ task.w_star, 6))
    again = generator.task(np.random.default_rng(1), 6, p)
    X2, y2 = again.sample(np.random.default_rng(2), 11)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = again.sample(np.random.default_rng(3), 11)
    assert not np.array_equal(X, X3)
    X4, _ = again.sample(np.random.default_rng(2), 30)  # a larger draw starts with the smaller one
    np.testing.assert_array_equal(X4[:11], X)
    assert task.sample(np.random.default_rng(0), 0)[0].shape == (0, 6, p)


def test_gaussian_rows_centred_on_their_mu_with_unit_w_star():
    generator = GaussianSubsetRanking(center_scale=0.5, noise_scale=0.3)
    task = generator.task(np.random.default_rng(0), 4, 5)
    assert np.linalg.norm(task.w_star) == pytest.approx(1.0)
    X, _ = task.sample(np.random.default_rng(1), 20_000)
    np.testing.assert_allclose(X.mean(0), task.centers, atol=0.02)  # se 0.3/√20000 = 0.002
    np.testing.assert_allclose(X.std(0), 0.3, rtol=0.03)
    assert not np.allclose(task.centers[0], task.centers[1])  # one centre per document position


def test_sparse_w_star_has_s_nonzeros_and_x_in_the_cube():
    task = SparseSubsetRanking(n_nonzero=50, w_norm=0.5).task(np.random.default_rng(0), 20, 500)
    assert np.count_nonzero(task.w_star) == 50
    assert np.linalg.norm(task.w_star) == pytest.approx(0.5)
    X, _ = task.sample(np.random.default_rng(1), 10)
    assert X.min() >= -1 and X.max() <= 1 and X.min() < -0.99 and X.max() > 0.99


@pytest.mark.parametrize("generator, p", [(GaussianSubsetRanking(), 30), (SparseSubsetRanking(), 500)])
def test_default_levels_are_spread(generator, p):
    """At the paper's sizes no level takes nearly all documents and the middle levels are used."""
    rng = np.random.default_rng(0)
    y = np.concatenate([generator.task(rng, 20, p).sample(rng, 50)[1] for _ in range(40)])
    shares = level_histogram(y, 20)
    assert shares.sum() == pytest.approx(1.0)
    assert 0.45 < shares[0] < 0.65 and 0.02 < shares[19] < 0.08
    assert shares[1:19].sum() > 0.3 and (shares[1:19] > 0.002).all()


def test_unit_scales_would_crowd_the_top_level():
    """The reason for the default scale: with tau = sigma = 1 a third of documents tie at the top."""
    rng = np.random.default_rng(0)
    generator = GaussianSubsetRanking(1.0, 1.0)
    y = np.concatenate([generator.task(rng, 20, 30).sample(rng, 50)[1] for _ in range(40)])
    shares = level_histogram(y, 20)
    assert shares[19] > 0.25 and shares[1:19].sum() < 0.2


@pytest.mark.parametrize("make, message", [
    (lambda: GaussianSubsetRanking(noise_scale=0.0), "dataset.noise_scale"),
    (lambda: GaussianSubsetRanking(center_scale=-1.0), "dataset.center_scale"),
    (lambda: GaussianSubsetRanking(center_scale=float("nan")), "dataset.center_scale"),
    (lambda: SparseSubsetRanking(n_nonzero=0), "dataset.n_nonzero"),
    (lambda: SparseSubsetRanking(w_norm=0), "dataset.w_norm"),
    (lambda: SparseSubsetRanking(n_nonzero=50).task(np.random.default_rng(0), 20, 10), "n_nonzero=50 exceeds p=10"),
    (lambda: GaussianSubsetRanking().task(np.random.default_rng(0), 1, 10), "m .* >= 2, got 1"),
    (lambda: GaussianSubsetRanking().task(np.random.default_rng(0), 5, 0), "p .* positive integer, got 0"),
])
def test_bad_generator_values_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()
