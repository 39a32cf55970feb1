"""ordrank's methods beside their yardsticks (the same method's established code) in the reports."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ordrank.reports.paired_tests import holm
from ordrank.reports import (ReportSpec, write_report, yardstick_markdown, yardstick_tests,
                             yardstick_time_markdown, yardstick_times)

SPEC = ReportSpec(reference="SVORIM", block=("dataset", "bins"), methods=("SVORIM", "SVOREX"),
                  external=("C-SVORIM", "C-SVOREX"), datasets=("b", "a"),
                  yardsticks={"C-SVORIM": "SVORIM", "C-SVOREX": "SVOREX"})
SPLITS = 12


def make_table():
    """C-SVORIM = SVORIM + a known shift per data set, other (C) on splits 0-2 of "a";
    C-SVOREX identical to SVOREX; C-SVORIM's job takes 3 times SVORIM's; SVOREX fails on b/5."""
    rng = np.random.default_rng(3)
    rows, timing = [], []
    for dataset, shift in {"a": 0.02, "b": -0.01}.items():
        base = 0.5 + rng.normal(0, 0.05, SPLITS)
        jitter = rng.uniform(0, 0.01, SPLITS)
        values = {"SVORIM": base, "C-SVORIM": base + shift + jitter, "SVOREX": base + 0.1,
                  "C-SVOREX": base + 0.1}
        for algorithm, mae in values.items():
            for split in range(SPLITS):
                c = 100.0 if (algorithm == "C-SVORIM" and dataset == "a" and split < 3) else 1.0
                failed = algorithm == "SVOREX" and dataset == "b" and split == 5
                key = {"experiment": "x", "dataset": dataset, "bins": 10, "algorithm": algorithm,
                       "split": split, "params": f'{{"C": {c}}}'}
                rows.append({**key, "metric": "mae", "value": np.nan if failed else mae[split],
                             "status": "failed: x" if failed else "ok"})
                seconds = 1.0 + split if algorithm in ("SVORIM", "SVOREX") else 3.0 * (1.0 + split)
                timing += [{**key, "metric": "cv_seconds", "value": 0.9 * seconds, "status": "ok"},
                           {**key, "metric": "fit_seconds", "value": 0.1 * seconds, "status": "ok"}]
    return pd.DataFrame(rows), pd.DataFrame(timing)


@pytest.fixture(scope="module")
def tables():
    return make_table()


def test_differences_and_tests_against_scipy(tables):
    table, _ = tables
    got = yardstick_tests(table, "mae", SPEC).set_index(["dataset", "algorithm"])
    pvalues = []
    for dataset in ["a", "b"]:
        x = table[(table.dataset == dataset) & (table.algorithm == "SVORIM")].sort_values("split").value.to_numpy()
        y = table[(table.dataset == dataset) & (table.algorithm == "C-SVORIM")].sort_values("split").value.to_numpy()
        row = got.loc[(dataset, "SVORIM")]
        assert row["yardstick"] == "C-SVORIM" and row["n_pairs"] == SPLITS
        assert row["mean_difference"] == pytest.approx((x - y).mean())
        assert row["mean"] == pytest.approx(x.mean()) and row["yardstick_mean"] == pytest.approx(y.mean())
        assert row["pvalue"] == pytest.approx(stats.wilcoxon(x, y).pvalue)
        pvalues.append(row["pvalue"])
    assert got.loc[("a", "SVORIM"), "sign"] == "better" and got.loc[("b", "SVORIM"), "sign"] == "worse"
    np.testing.assert_allclose(got.xs("SVORIM", level="algorithm")["pvalue_holm"], holm(np.array(pvalues)))
    assert got.loc[("a", "SVORIM"), "same_params"] == SPLITS - 3
    assert got.loc[("b", "SVORIM"), "same_params"] == SPLITS


def test_identical_codes_and_a_failed_partition(tables):
    table, _ = tables
    got = yardstick_tests(table, "mae", SPEC).set_index(["dataset", "algorithm"])
    row = got.loc[("b", "SVOREX")]
    assert row["n_pairs"] == SPLITS - 1  # the failed partition is not paired
    assert row["mean_difference"] == 0 and row["sign"] == "tie" and row["pvalue"] == 1
    assert row["same_params"] == SPLITS - 1


def test_job_time_ratio(tables):
    _, timings = tables
    got = yardstick_times(timings, SPEC).set_index(["dataset", "algorithm"])
    assert got.loc[("a", "SVORIM"), "ratio"] == pytest.approx(3.0)
    assert got.loc[("a", "SVORIM"), "seconds"] == pytest.approx(np.mean(1.0 + np.arange(SPLITS)))
    assert got.loc[("a", "SVORIM"), "n_pairs"] == SPLITS


def test_markdown_order_and_missing_pairs(tables):
    table, timings = tables
    text = yardstick_markdown(table, "mae", SPEC)
    lines = [line for line in text.splitlines() if line.startswith("| b") or line.startswith("| a")]
    assert [line.split(" | ")[:3] for line in lines] == [
        ["| b", "10", "SVORIM"], ["| a", "10", "SVORIM"], ["| b", "10", "SVOREX"], ["| a", "10", "SVOREX"]]
    assert "9 of 12" in text and "11 of 11" in text
    assert "| 3.00 |" in yardstick_time_markdown(timings, SPEC)
    alone = table[table.algorithm != "C-SVOREX"]
    assert "SVOREX" not in yardstick_tests(alone, "mae", SPEC)["algorithm"].tolist()
    none = table[~table.algorithm.str.startswith("C-")]
    assert yardstick_markdown(none, "mae", SPEC).startswith("No benchmark")


def test_report_has_the_sections_and_csvs(tables, tmp_path):
    table, timings = tables
    write_report(table, tmp_path, spec=SPEC, timings=timings)
    report = (tmp_path / "report.md").read_text()
    assert "### Against the yardsticks" in report and "### The yardsticks' job time" in report
    csv = pd.read_csv(tmp_path / "yardsticks_mae.csv")
    assert len(csv) == 4 and set(csv["yardstick"]) == {"C-SVORIM", "C-SVOREX"}
    assert len(pd.read_csv(tmp_path / "yardsticks_times.csv")) == 4
    plain = ReportSpec(reference="SVORIM", block=("dataset", "bins"))
    write_report(table, tmp_path / "plain", spec=plain, timings=timings)
    assert "yardstick" not in (tmp_path / "plain" / "report.md").read_text()


@pytest.mark.parametrize("yardsticks", [{"C-SVORIM": "PRank"}, {"libsvm": "SVORIM"}])
def test_a_yardstick_must_pair_an_external_learner_with_a_method(yardsticks):
    report = {"reference": "SVORIM", "methods": ["SVORIM"], "external": ["C-SVORIM"], "yardsticks": yardsticks}
    with pytest.raises(ValueError, match="yardsticks maps") as error:
        ReportSpec.from_config(report, "conf/experiment/x.yaml: report")
    assert "conf/experiment/x.yaml" in str(error.value)


def test_the_svor_benchmarks_pair_the_c_codes():
    spec = ReportSpec.for_experiment("svor_benchmark_papers_sizes")
    assert spec.yardsticks == {"skordinal-SVORIM": "SVORIM", "skordinal-SVOREX": "SVOREX",
                               "skordinal-REDSVM": "Reduction-SVM"}
