"""RankNet's closed forms (Burges et al. 2005, Section 3) and the table of its Figure 1."""
from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import logit

from ordrank.algorithms.ranking.ranknet_theory import (
    combined_probability, equal_combined_probability, figure1_table, pair_cost, pair_probability,
    pairwise_from_adjacent)

from conftest import REPO

probabilities = st.floats(0.0, 1.0)
inner = st.floats(1e-6, 1 - 1e-6)
scores = st.floats(-8.0, 8.0)


def script():
    path = REPO / "experiments" / "ranknet_figure1.py"
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- the table against the closed forms

def test_table_values_are_the_closed_forms():
    table = figure1_table()
    assert list(table.columns) == ["panel", "pbar", "x", "value"]
    cost, combined = table[table.panel == "cost"], table[table.panel == "combined"]
    assert len(cost) == 3 * 201 and len(combined) == 201 and len(table) == 4 * 201
    assert sorted(cost.pbar.unique()) == [0.0, 0.5, 1.0] and combined.pbar.isna().all()
    for target, curve in cost.groupby("pbar"):
        o = curve.x.to_numpy()
        assert o[0] == -5.0 and o[-1] == 5.0 and np.all(np.diff(o) > 0)
        # the formula as printed in the paper, written out independently of the module
        # (the naive form cancels digits where the cost is near 0: hence 1e-11, not 1e-15)
        np.testing.assert_allclose(curve.value, -target * o + np.log(1 + np.exp(o)), rtol=1e-11)
        # ... and as the cross entropy of the target and the pair probability
        p = 1 / (1 + np.exp(-o))
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = -np.where(target > 0, target * np.log(p), 0) \
                - np.where(target < 1, (1 - target) * np.log(1 - p), 0)
        np.testing.assert_allclose(curve.value, entropy, rtol=1e-12)
    p = combined.x.to_numpy()
    assert p[0] == 0.0 and p[-1] == 1.0 and np.all(np.diff(p) > 0)
    np.testing.assert_allclose(combined.value, p**2 / (1 + 2 * p**2 - 2 * p), rtol=1e-15)
    assert combined.value.iloc[0] == 0.0 and combined.value.iloc[-1] == 1.0
    assert combined.loc[np.isclose(combined.x, 0.5), "value"].item() == 0.5


def test_table_combined_curve_equals_composing_pair_probabilities_through_scores():
    """P_ik read off scores s_i, s_j, s_k with s_i − s_j = s_j − s_k = logit P equals the table."""
    combined = figure1_table().query("panel == 'combined'")
    p = combined.x.to_numpy()[1:-1]  # 0 and 1 are infinite score gaps
    gap = np.log(p / (1 - p))
    s_i, s_j, s_k = 2 * gap, gap, np.zeros_like(gap)
    assert np.allclose(1 / (1 + np.exp(-(s_i - s_j))), p) and np.allclose(1 / (1 + np.exp(-(s_j - s_k))), p)
    np.testing.assert_allclose(combined.value.to_numpy()[1:-1], 1 / (1 + np.exp(-(s_i - s_k))), rtol=1e-12)


def test_committed_table_is_the_generated_one_and_both_files_are_byte_stable(tmp_path):
    committed = pd.read_parquet(REPO / "results" / "ranknet_figure1" / "curves.parquet")
    pd.testing.assert_frame_equal(committed, figure1_table())
    module = script()
    runs = []
    for run in ("a", "b"):
        module.main(["--results", str(tmp_path / run / "results"),
                     "--figures", str(tmp_path / run / "figures")])
        runs.append([(tmp_path / run / "results" / module.TABLE).read_bytes(),
                     (tmp_path / run / "figures" / module.FIGURE).read_bytes()])
    assert runs[0] == runs[1]
    assert runs[0][1][:4] == b"\x89PNG"
    # a rebuild from the tables (make figures) leaves the committed files as they are, on this CPU as on the one that
    # wrote them: numpy's exp/log1p differ in the last bit between CPUs, hence the rounded values
    assert runs[0][0] == (REPO / "results" / module.TABLE).read_bytes(), \
        "results/ranknet_figure1/curves.parquet is not what ranknet_figure1.py writes: rerun it"
    assert runs[0][1] == (REPO / "figures" / module.FIGURE).read_bytes()


def test_figure_refuses_a_table_without_both_panels():
    table = figure1_table()
    expected = r"needs rows of both panels 'cost' and 'combined'; it has \['cost'\]"
    with pytest.raises(ValueError, match=expected):
        script().draw(table[table.panel == "cost"])


# ---------------------------------------------------------------- the cost

@given(st.floats(-40.0, 40.0))
def test_cost_for_target_one_is_log_one_plus_exp_minus_o(o):
    """To 1e-12 relative even where the cost is ~1e-17 (P̄ = 1, o = 40): no cancellation."""
    assert pair_cost(o, 1.0) == pytest.approx(np.log1p(np.exp(-o)), rel=1e-12, abs=1e-300)
    assert pair_cost(o, 0.0) == pytest.approx(np.log1p(np.exp(o)), rel=1e-12, abs=1e-300)
    assert pair_cost(o, 0.5) == pytest.approx(np.log(2 * np.cosh(o / 2)), rel=1e-12)


@given(inner)
def test_cost_minimum_is_at_logit_of_the_target_and_equals_its_entropy(target):
    best = logit(target)
    entropy = -target * np.log(target) - (1 - target) * np.log1p(-target)
    assert pair_cost(best, target) == pytest.approx(entropy, rel=1e-9, abs=1e-12)
    for step in (1e-3, 0.1, 1.0):  # convex: higher on both sides
        assert pair_cost(best - step, target) > pair_cost(best, target)
        assert pair_cost(best + step, target) > pair_cost(best, target)


@pytest.mark.parametrize("target", [0.05, 0.3, 0.5, 0.8, 0.99])
def test_cost_minimum_found_numerically(target):
    found = minimize_scalar(lambda o: pair_cost(o, target), bounds=(-20, 20), method="bounded",
                            options={"xatol": 1e-10})
    assert found.x == pytest.approx(np.log(target / (1 - target)), abs=1e-6)


def test_cost_is_asymptotically_linear_and_finite_far_out():
    o = np.array([-800.0, 800.0])  # exp(800) overflows; logaddexp does not
    np.testing.assert_allclose(pair_cost(o, 0.25), [0.25 * 800, 0.75 * 800])
    np.testing.assert_allclose(pair_probability(o), [0.0, 1.0])


# ---------------------------------------------------------------- combining probabilities

@given(scores, scores, scores)
def test_combined_probability_is_composing_through_scores(s_i, s_j, s_k):
    p_ij, p_jk = pair_probability(s_i - s_j), pair_probability(s_j - s_k)
    if min(p_ij, p_jk) < 1e-9 or max(p_ij, p_jk) > 1 - 1e-9:
        return  # the differences are too large for probabilities in float64 to carry them
    assert combined_probability(p_ij, p_jk) == pytest.approx(pair_probability(s_i - s_k), rel=1e-9, abs=1e-12)


@given(probabilities)
def test_equal_probabilities_are_the_general_formula_on_the_diagonal(p):
    assert equal_combined_probability(p) == pytest.approx(combined_probability(p, p), rel=1e-14, abs=1e-300)


def test_consistency_requirement_of_figure1_right():
    p = np.linspace(0, 1, 10001)
    p_ik = equal_combined_probability(p)
    assert equal_combined_probability(0.5) == 0.5 and p_ik[0] == 0 and p_ik[-1] == 1
    above, below = (p > 0.5) & (p < 1), (p > 0) & (p < 0.5)
    assert np.all(p_ik[above] > p[above]) and np.all(p_ik[below] < p[below])
    np.testing.assert_allclose(p_ik - p, p * (1 - p) * (2 * p - 1) / (1 + 2 * p**2 - 2 * p), atol=1e-15)
    assert equal_combined_probability(0.6) == pytest.approx(0.36 / 0.52)  # the paper's P = 0.6 > 0.6
    assert np.all(np.diff(p_ik) > 0)  # increasing
    np.testing.assert_allclose(p_ik + p_ik[::-1], 1, atol=1e-15)  # P_ik(1 − P) = 1 − P_ik(P)


@given(inner)
def test_p_ik_exceeds_p_above_one_half(p):
    if p > 0.5:
        assert equal_combined_probability(p) > p
    elif p < 0.5:
        assert equal_combined_probability(p) < p


def test_certain_and_opposite_probabilities_have_no_combination():
    with pytest.raises(ValueError, match=r"p_ij = 0 and p_jk = 1 \(at index \(1,\)\) have no combination"):
        combined_probability([0.5, 0.0], [0.5, 1.0])
    assert combined_probability(1.0, 1.0) == 1.0 and combined_probability(0.0, 0.3) == 0.0


# ---------------------------------------------------------------- adjacency posteriors (the seed's example)

def test_seed_example_adjacent_probabilities_fix_every_pair():
    """The seed's chain A, B, C, D, E with adjacent targets 0.777, 0.799, 0.331, 0.673: o_AC = o_AB + o_BC
    = 1.2490 + 1.3806 = 2.6296, and the order A > B > D > C > E (o_BD > 0 as o_CD < 0 < o_BC + o_CD)."""
    # The numbers are the seed blog post's printed outputs (/work/shared/seeds/002_7bd1639fb3ca4ef4.txt,
    # "Ranking learning", section "How much freedom is there to chose the pairwise probabilities?",
    # lines 124-126 of the file): "adjacent probs -> 0.77713275, 0.79908694, 0.33050207, 0.67320075"
    # (drawn there by np.random.uniform(0, 1, 4), unseeded), "distances -> 1.24903487, 1.38059745,
    # -0.70591514, 0.72269752" and o_AC = 1.24903487 + 1.38059745 = 2.62963232.
    adjacent = np.array([0.77713275, 0.79908694, 0.33050207, 0.67320075])
    np.testing.assert_allclose(logit(adjacent), [1.24903487, 1.38059745, -0.70591514, 0.72269752], atol=1e-7)
    P = pairwise_from_adjacent(adjacent)
    np.testing.assert_allclose(logit(P[0, 2]), 2.62963232, atol=1e-7)
    np.testing.assert_allclose(np.diag(P, 1), adjacent, rtol=1e-12)
    np.testing.assert_allclose(P + P.T, 1, atol=1e-15)
    wins = (P > 0.5).sum(axis=1)  # a consistent P is a total order: rank by pairs won
    assert "".join(np.array(list("ABCDE"))[np.argsort(-wins)]) == "ABDCE"


@settings(max_examples=60)
@given(st.lists(st.floats(0.02, 0.98), min_size=1, max_size=7))
def test_random_chains_match_brute_force_scores(adjacent):
    """Every pair's target equals σ(o_i − o_j) for any scores matching the adjacent targets (found by
    walking the chain from an arbitrary start), and equals combining along the path i → j."""
    adjacent = np.array(adjacent)
    P = pairwise_from_adjacent(adjacent)
    m = adjacent.size + 1
    o = np.empty(m)
    o[0] = 3.7  # any offset: only differences matter
    for t in range(m - 1):
        o[t + 1] = o[t] - np.log(adjacent[t] / (1 - adjacent[t]))
    for i, j in itertools.product(range(m), repeat=2):
        assert P[i, j] == pytest.approx(1 / (1 + np.exp(-(o[i] - o[j]))), rel=1e-9)
        if i < j:  # composing the adjacent probabilities pair by pair, o_ij = o_i,i+1 + ... + o_j−1,j
            p = adjacent[i]
            for t in range(i + 1, j):
                p = combined_probability(p, adjacent[t])
            assert P[i, j] == pytest.approx(p, rel=1e-9)


# ---------------------------------------------------------------- bad inputs

@pytest.mark.parametrize("call, message", [
    (lambda: pair_cost(0.0, 1.5), r"^target must be finite in \[0, 1\]; got 1\.5$"),
    (lambda: pair_cost([0.0, np.nan], 0.5), r"^o must be finite; got nan at index 1$"),
    (lambda: combined_probability(-0.1, 0.5), r"^p_ij must be finite in \[0, 1\]; got -0\.1$"),
    (lambda: equal_combined_probability([0.2, 2.0]), r"^p must be finite in \[0, 1\]; got 2\.0 at index 1$"),
    (lambda: pairwise_from_adjacent([0.5, 1.0]),
     r"^p_adjacent must be finite in \(0, 1\); got 1\.0 at index 1$"),
    (lambda: pairwise_from_adjacent([[0.5]]), r"^p_adjacent must be one-dimensional"),
    (lambda: figure1_table(n_o=1), r"^n_o must be an integer >= 2 \(points on the axis\), got 1$"),
])
def test_bad_inputs_raise_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
