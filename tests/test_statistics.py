"""Demšar's (JMLR 2006) rank statistics: Friedman and Iman–Davenport against scipy and the paper's
worked example, Nemenyi's CD by hand, ranks with ties, the groups, and the CD diagram on a tiny table."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from ordrank.reports.paired_tests import (cd_groups, friedman, iman_davenport, nemenyi_cd, nemenyi_q, rank_rows,
                                  tie_groups)
from ordrank.reports import ReportSpec, average_ranks, rank_statistics_markdown, rank_table

# Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7:1–30 (2006),
# section 3.2.2's worked example: Table 6, the AUC of C4.5 and three tuned variants on N = 14 UCI data
# sets, each AUC with its rank in the data set (1 = best, ties share the average) and the average ranks
# 3.143, 2.000, 2.893, 1.964; then χ²_F = 9.28, F_F = 3.69, F(3, 39)'s critical value 2.85 at α = 0.05,
# Nemenyi's CD = 2.569·√(4·5/(6·14)) = 1.25 at α = 0.05 and 2.291·√(…) = 1.12 at α = 0.10, and the two
# groups of Figure 1(a) (α = 0.10). Columns: C4.5, C4.5+m, C4.5+cf, C4.5+m+cf.
DEMSAR_ALGORITHMS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_AUC = [  # Table 6, rows: adult (sample), breast cancer, breast cancer wisconsin, cmc,
    # ionosphere, iris, liver disorders, lung cancer, lymphography, mushroom, primary tumor, rheum,
    # voting, wine
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970]]
DEMSAR_TABLE6_RANKS = [  # the ranks printed in parentheses in Table 6
    [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1], [1, 2.5, 4, 2.5],
    [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1], [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5],
    [3, 2, 4, 1], [4, 1, 2, 3], [3, 1, 4, 2]]
DEMSAR_RANKS = [3.143, 2.000, 2.893, 1.964]
VOTING = 12  # the one row whose printed AUCs tie (0.975, 0.975) but whose ranks do not (2, 3): the
# paper ranked the unrounded AUCs


def test_demsar_worked_example():
    """ordrank's statistics on the paper's Table 6 give the paper's numbers."""
    n, k = 14, 4
    # rank_rows (1 = lowest, so on −AUC: 1 = best) gives the printed ranks, but on voting
    ranks = rank_rows(-np.array(DEMSAR_AUC))
    others = np.arange(n) != VOTING
    np.testing.assert_array_equal(ranks[others], np.array(DEMSAR_TABLE6_RANKS)[others])
    np.testing.assert_allclose(rank_rows(DEMSAR_TABLE6_RANKS).mean(0), DEMSAR_RANKS, atol=5e-4)
    # friedman divides the paper's χ²_F by the tie correction C = 1 − Σ(t³ − t)/(N k (k² − 1)); the
    # table has three pairs (iris, lung cancer, primary tumor: 6 each) and one 4-way tie (mushroom: 60)
    got = friedman(DEMSAR_TABLE6_RANKS)
    correction = 1 - (3 * 6 + 60) / (n * k * (k * k - 1))
    assert got["chi2"] * correction == pytest.approx(9.28, abs=0.005)  # the paper's χ²_F
    # Iman–Davenport on the paper's χ²_F: the paper's F_F, df and rejection at α = 0.05
    out = iman_davenport(9.28, n, k)
    assert (out["df1"], out["df2"]) == (3, 39)
    assert out["F"] == pytest.approx(3.69, abs=0.005) and out["F_pvalue"] < 0.05
    # at the paper's critical value F(3, 39) = 2.85 (χ²_F = 2.85·N(k − 1)/(N − 1 + 2.85)), p = 0.05
    at_critical = iman_davenport(2.85 * n * (k - 1) / (n - 1 + 2.85), n, k)
    assert at_critical["F"] == pytest.approx(2.85)
    assert at_critical["F_pvalue"] == pytest.approx(0.05, abs=0.001)
    # Nemenyi: CD 1.25 at α = 0.05 (one group: 3.143 − 1.964 = 1.179 < CD), 1.12 at α = 0.10
    named = dict(zip(DEMSAR_ALGORITHMS, DEMSAR_RANKS))
    cd = nemenyi_cd(k, n)
    assert cd == pytest.approx(1.25, abs=0.005)
    assert cd_groups(named, cd) == [["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]]
    cd10 = nemenyi_cd(k, n, 0.10)
    assert cd10 == pytest.approx(1.12, abs=0.005)
    # Figure 1(a): C4.5 is worse than C4.5+m and C4.5+m+cf; C4.5+cf belongs to either group
    assert cd_groups(named, cd10) == [["C4.5+m+cf", "C4.5+m", "C4.5+cf"], ["C4.5+cf", "C4.5"]]


def test_nemenyi_q_is_demsars_table():
    table = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031, 9: 3.102, 10: 3.164}
    for k, q in table.items():
        assert nemenyi_q(k) == pytest.approx(q, abs=1e-3)
    assert nemenyi_q(2) == pytest.approx(stats.norm.ppf(0.975), abs=1e-6)  # k = 2: the normal
    assert nemenyi_q(4, 0.10) == pytest.approx(2.291, abs=1e-3)  # Table 5(a), α = 0.10
    with pytest.raises(ValueError, match="k ≥ 2"):
        nemenyi_q(1)
    with pytest.raises(ValueError, match="N ≥ 1"):
        nemenyi_cd(4, 0)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 12), st.integers(3, 7), st.integers(0, 2 ** 31 - 1), st.booleans())
def test_friedman_and_iman_davenport_against_scipy(n, k, seed, ties):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, (n, k)).astype(float) if ties else rng.normal(size=(n, k))
    if (values == values[:, :1]).all():
        values[0, 0] -= 1  # not every benchmark a complete tie
    got = friedman(values)
    expected = stats.friedmanchisquare(*values.T)
    assert got["chi2"] == pytest.approx(expected.statistic) and got["pvalue"] == pytest.approx(expected.pvalue)
    f = (n - 1) * got["chi2"] / (n * (k - 1) - got["chi2"]) if n * (k - 1) > got["chi2"] + 1e-9 else math.inf
    assert got["F"] == pytest.approx(f)
    assert got["F_pvalue"] == pytest.approx(0.0 if math.isinf(f) else stats.f.sf(f, k - 1, (k - 1) * (n - 1)))


def test_friedman_edges():
    alike = np.tile([1.0, 2.0, 3.0], (5, 1))  # every benchmark ranks alike: χ² = N(k − 1) = 10
    got = friedman(alike)
    assert got["chi2"] == pytest.approx(10.0) and math.isinf(got["F"]) and got["F_pvalue"] == 0.0
    assert friedman(np.ones((3, 4)))["pvalue"] == 1.0  # all equal: nothing to test
    noise = np.array([[0.3, 0.1 + 0.2, 0.5], [0.2, 0.1, 0.4], [0.6, 0.5, 0.7]])
    exact = noise.copy()
    exact[0, 1] = 0.3
    assert friedman(noise)["chi2"] == friedman(exact)["chi2"]  # float noise of equal means is a tie
    with pytest.raises(ValueError, match="≥ 3 algorithms"):
        friedman(np.ones((4, 2)))


def test_ranks_with_ties_are_averages():
    got = rank_rows([[3.0, 1.0, 2.0, 2.0], [0.3, 0.1 + 0.2, 5.0, 1.0], [1, 1, 1, 1]])
    np.testing.assert_array_equal(got, [[4, 1, 2.5, 2.5], [1.5, 1.5, 4, 3], [2.5, 2.5, 2.5, 2.5]])
    assert stats.rankdata([0.3, 0.1 + 0.2])[0] != 1.5  # what plain ranking does with the noise
    with_nan = rank_rows([[2.0, np.nan, 1.0]])
    assert with_nan[0, 0] == 2 and np.isnan(with_nan[0, 1]) and with_nan[0, 2] == 1
    np.testing.assert_array_equal(tie_groups([[5.0, 1.0, 5.0, 3.0]]), [[2, 0, 2, 1]])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=4, max_size=4), min_size=1, max_size=6))
def test_rank_rows_equal_scipy_on_exact_values(rows):
    values = np.array(rows, dtype=float) / 7  # no float noise between equal values
    np.testing.assert_array_equal(rank_rows(values), stats.rankdata(values, axis=1))
    assert np.allclose(rank_rows(values).sum(axis=1), 4 * 5 / 2)  # ranks always sum to k(k+1)/2


def test_cd_groups_by_hand():
    ranks = {"a": 1.0, "b": 1.5, "c": 2.9, "d": 4.0, "e": 4.2}
    assert cd_groups(ranks, 2.0) == [["a", "b", "c"], ["c", "d", "e"]]  # 2.9 − 1.0 < 2; 4.0 − 1.5 ≥ 2
    assert cd_groups(ranks, 1.0) == [["a", "b"], ["d", "e"]]  # c alone: no singleton bars
    assert cd_groups(ranks, 0.1) == []
    assert cd_groups(ranks, 10.0) == [["a", "b", "c", "d", "e"]]
    assert cd_groups({"a": 1.0, "b": 3.0}, 2.0) == []  # a difference of exactly CD is significant


SPEC = ReportSpec(reference="M1", block=("dataset",), methods=("M1", "M2", "M3"), external=("P",))


def tiny_table():
    """4 data sets × 3 partitions; M1 < M2 < M3 everywhere; P a copy of M1 (an external learner copying a method)."""
    rows = []
    for d, dataset in enumerate(["d0", "d1", "d2", "d3"]):
        for split in range(3):
            m1 = 0.2 + 0.1 * d + 0.01 * split
            errors = {"M1": m1, "M2": m1 + 0.05 + 0.01 * d, "M3": m1 + 0.3, "P": m1}
            if dataset == "d3":
                errors["M2"], errors["M3"] = errors["M3"] + 0.1, errors["M2"]  # M3 ahead of M2 once
            rows += [{"experiment": "x", "dataset": dataset, "algorithm": a, "split": split, "metric": m,
                      "value": v * (1 if m == "mae" else 0.5), "status": "ok"}
                     for a, v in errors.items() for m in ("mae", "zero_one")]
    return pd.DataFrame(rows)


def test_ranks_among_methods_and_among_all():
    table = tiny_table()
    among_all = average_ranks(table, "mae", SPEC)[0].set_index("algorithm")["average_rank"]
    methods, friedman_methods = average_ranks(table, "mae", SPEC, among=SPEC.methods)
    methods = methods.set_index("algorithm")["average_rank"]
    assert methods.to_dict() == {"M1": 1.0, "M2": 2.25, "M3": 2.75}
    assert among_all.to_dict() == {"M1": 1.5, "P": 1.5, "M2": 3.25, "M3": 3.75}  # the copy shares rank 1.5
    assert friedman_methods["k"] == 3 and friedman_methods["cd"] == pytest.approx(nemenyi_cd(3, 4))
    assert friedman_methods["statistic"] == pytest.approx(
        stats.friedmanchisquare([1, 1, 1, 1], [2, 2, 2, 3], [3, 3, 3, 2]).statistic)
    ranks = rank_table(table, "mae", SPEC).set_index("algorithm")
    assert ranks.loc["M2", "average_rank_methods"] == 2.25 and np.isnan(ranks.loc["P", "average_rank_methods"])
    text = rank_statistics_markdown(table, "mae", SPEC)
    assert "| among the methods | 3 | 4 |" in text and "| among all algorithms | 4 | 4 |" in text
    assert "| M2 | 2.25 | 3.25 |" in text and "| P | – | 1.50 |" in text
    assert "Paired Wilcoxon tests against M1:" in text


def test_cd_figure_on_a_tiny_table(tmp_path):
    from ordrank.plotting.cd import benchmark_cd_figure, cd_diagram
    import matplotlib.pyplot as plt

    table = tiny_table()
    path = benchmark_cd_figure(table, tmp_path / "cd.png", among=SPEC.methods, spec=SPEC)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig, ax = plt.subplots()
    ranks = {"M1": 1.0, "M2": 2.25, "M3": 2.75}
    cd_diagram(ranks, 2.0, ax, "t")
    texts = {t.get_text() for t in ax.texts}
    assert {"M1 (1.00)", "M2 (2.25)", "M3 (2.75)", "CD = 2.00"} <= texts
    red = [line for line in ax.lines if line.get_color() == "tab:red"]
    assert len(red) == 1 and list(red[0].get_xdata()) == pytest.approx([0.95, 2.80])  # one bar: all three
    plt.close(fig)
    fig, ax = plt.subplots()
    cd_diagram(ranks, nemenyi_cd(3, 4), ax)  # CD = 1.66 < 2.75 − 1.0: M1 and M3 differ
    red = [line for line in ax.lines if line.get_color() == "tab:red"]
    assert sorted(tuple(np.round(line.get_xdata(), 2)) for line in red) == [(0.95, 2.3), (2.2, 2.8)]
    plt.close(fig)
    fig, ax = plt.subplots()
    cd_diagram({}, float("nan"), ax)  # Friedman not applicable: a note, no error
    assert "not applicable" in ax.texts[0].get_text()
    plt.close(fig)
