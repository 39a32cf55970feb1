"""Paired tests of the reports: Holm's adjustment (statsmodels and by hand), exact signs, the tests over
benchmarks, and the report's Holm column on a tiny synthetic table."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from ordrank.reports.paired_tests import exact_differences, holm, mean_and_sign, over_benchmarks
from ordrank.reports import ReportSpec, paired_markdown, paired_wilcoxon, write_report


def test_holm_by_hand():
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max(0.06, 0.04) = 0.06
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.5, 0.6]), [1.0, 1.0])  # capped at 1, monotone
    out = holm([0.02, np.nan, 0.01])  # NaN is not in the family (m = 2)
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.02)
    assert holm([]).shape == (0,)


@settings(max_examples=10, deadline=None)  # multipletests runs gc.collect(): ~0.2 s a call here
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_equals_statsmodels(p):
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1])


def test_float_noise_is_a_tie_not_worse():
    x, r = np.array([0.3, 0.1]), np.array([0.2, 0.2])  # +0.1 and −0.1
    assert (x - r).mean() != 0  # what a plain mean says (~1e-17), the bug this guards against
    assert mean_and_sign(exact_differences(x, r)) == (0.0, "tie")
    assert mean_and_sign(exact_differences([0.1 + 0.2], [0.3]))[1] == "tie"  # 5.6e-17 → 0
    assert exact_differences([0.1 + 0.2], [0.3])[0] == 0.0
    assert mean_and_sign([1 / 2000, 0.0]) == (pytest.approx(1 / 4000), "worse")  # a real 1/n_test
    assert mean_and_sign([-0.25]) == (-0.25, "better")
    assert mean_and_sign([])[1] == "n/a"


def test_over_benchmarks_against_scipy():
    diffs, signs = [-0.1, -0.2, 0.05, 0.0, -0.3], ["better", "better", "worse", "tie", "better"]
    over = over_benchmarks(diffs, signs)
    assert (over["better"], over["worse"], over["tie"], over["benchmarks"]) == (3, 1, 1, 5)
    assert over["sign_pvalue"] == pytest.approx(stats.binomtest(3, 4, 0.5).pvalue)
    assert over["wilcoxon_pvalue"] == pytest.approx(stats.wilcoxon([-0.1, -0.2, 0.05, 0.0, -0.3]).pvalue)


SPEC = ReportSpec(reference="R", block=("dataset", "bins"), methods=("A", "R"), external=("P",),
                  datasets=("d0", "d1", "d2"))


def tiny_table():
    """R noisy; A 0.1 lower on d0 (significant), 0.03 lower ± noise on d1, exactly R on d2 up to
    float noise (0.1 + 0.2 against 0.3); P 0.2 higher everywhere."""
    rng = np.random.default_rng(3)
    rows = []
    for d, dataset in enumerate(["d0", "d1", "d2"]):
        ref = 1 + rng.normal(0, 0.05, 20)
        values = {"R": ref, "A": ref - [0.1, 0.03, 0.0][d] + (rng.normal(0, 0.02, 20) if d == 1 else 0),
                  "P": ref + 0.2}
        if dataset == "d2":
            values["R"], values["A"] = np.full(20, 0.3), np.full(20, 0.1 + 0.2)
        for algorithm, mae in values.items():
            rows += [{"experiment": "x", "dataset": dataset, "bins": 10, "algorithm": algorithm,
                      "split": s, "metric": m, "value": v, "status": "ok"}
                     for s in range(20) for m, v in (("mae", mae[s]), ("zero_one", mae[s] / 2),
                                                     ("fit_seconds", 1.0), ("cv_seconds", 2.0))]
    return pd.DataFrame(rows)


def test_report_holm_column_on_a_tiny_table(tmp_path):
    table = tiny_table()
    tests = paired_wilcoxon(table, "mae", spec=SPEC)
    assert list(tests.columns[-3:]) == ["pvalue", "pvalue_holm", "sign"]
    a = tests[tests.algorithm == "A"].set_index("dataset")
    np.testing.assert_allclose(a.pvalue_holm, multipletests(a.pvalue, method="holm")[1])
    assert a.loc["d0", "sign"] == "better" and a.loc["d0", "pvalue_holm"] < 0.05
    assert a.loc["d2", "sign"] == "tie" and a.loc["d2", "pvalue"] == 1.0  # float noise, not "worse"
    p = tests[tests.algorithm == "P"]
    assert (p.sign == "worse").all() and (p.pvalue_holm >= p.pvalue).all()

    text = paired_markdown(table, "mae", spec=SPEC)
    row = next(line for line in text.splitlines() if line.startswith("| d0 | 10 | A |"))
    assert f"| {a.loc['d0', 'pvalue']:.2g} | {a.loc['d0', 'pvalue_holm']:.2g} | **better** |" in row
    assert "**A vs R** over 3 benchmarks: lower mean error on 2, higher on 0, equal on 1" in text

    write_report(table, tmp_path, spec=SPEC, title="Tiny", script="x.py", paired=True)
    report = (tmp_path / "report.md").read_text()
    assert report.startswith("# Tiny\n") and report.count("### Paired tests against R") == 2
    csv = pd.read_csv(tmp_path / "wilcoxon_mae.csv")
    assert "pvalue_holm" in csv.columns and (csv.loc[csv.algorithm == "A", "sign"] != "worse").all()
    write_report(table, tmp_path / "plain", spec=SPEC)  # the default report has no such section
    assert "Paired tests" not in (tmp_path / "plain" / "report.md").read_text()
