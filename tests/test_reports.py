"""Benchmark reports and scatter figures from a synthetic tidy table with known differences."""
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ordrank.plotting.scatter import benchmark_scatter_figure
from ordrank.reports import (average_ranks, markdown_table, paired_wilcoxon, summary, time_table,
                             write_report)
from ordrank.results import write_table

DATASETS = {"pyrim": 0.40, "machine": 0.60, "housing": 0.80}
SPLITS = 20


def make_table():
    """SVORIM noisy; Reduction-SVM always 0.05 lower; skordinal-SVORIM identical; PRank 0.2 higher.

    MC-SVM only on two data sets; PRank fails on pyrim partition 3.
    """
    rng = np.random.default_rng(0)
    rows = []
    for dataset, base in DATASETS.items():
        svorim = base + rng.normal(0, 0.02, SPLITS)
        values = {"SVORIM": svorim, "skordinal-SVORIM": svorim.copy(),
                  "Reduction-SVM": svorim - 0.05 + rng.uniform(-0.01, 0.01, SPLITS),
                  "PRank": svorim + 0.2 + rng.normal(0, 0.02, SPLITS)}
        if dataset != "housing":
            values["MC-SVM"] = svorim + 0.1
        for algorithm, mae in values.items():
            for split in range(SPLITS):
                failed = algorithm == "PRank" and dataset == "pyrim" and split == 3
                status = "failed: diverged" if failed else "ok"
                for metric, value in [("mae", mae[split]), ("zero_one", mae[split] / 2),
                                      ("fit_seconds", 1.0 + split), ("cv_seconds", 10.0)]:
                    rows.append({"experiment": "svor_benchmark", "dataset": dataset,
                                 "algorithm": algorithm, "bins": 10, "split": split,
                                 "metric": metric, "value": np.nan if failed else value,
                                 "params": '{"C": 1.0}', "status": status, "config.seed": 0})
    return pd.DataFrame(rows).sample(frac=1.0, random_state=1, ignore_index=True)  # order must not matter


@pytest.fixture(scope="module")
def table():
    return make_table()


def cell(frame, dataset, algorithm):
    return frame[(frame.dataset == dataset) & (frame.algorithm == algorithm)].iloc[0]


def test_summary_against_hand_computation(table):
    got = summary(table, "mae")
    x = table[(table.metric == "mae") & (table.dataset == "machine") & (table.algorithm == "SVORIM")].value
    row = cell(got, "machine", "SVORIM")
    assert row["mean"] == pytest.approx(x.sum() / 20)
    assert row["sem"] == pytest.approx(np.sqrt(((x - x.mean()) ** 2).sum() / 19) / np.sqrt(20))
    assert (row["n"], row["failed"]) == (20, 0)


def test_failed_rows_counted_and_excluded(table):
    row = cell(summary(table, "mae"), "pyrim", "PRank")
    ok = table[(table.metric == "mae") & (table.dataset == "pyrim") & (table.algorithm == "PRank")
               & (table.split != 3)].value
    assert (row["n"], row["failed"]) == (19, 1)
    assert row["mean"] == pytest.approx(ok.mean())
    tests = paired_wilcoxon(table, "mae")
    assert cell(tests, "pyrim", "PRank")["n_pairs"] == 19


def test_wilcoxon_better_and_identical(table):
    tests = paired_wilcoxon(table, "mae", reference="SVORIM")
    assert "SVORIM" not in set(tests.algorithm)
    better = tests[tests.algorithm == "Reduction-SVM"]
    assert (better.pvalue < 1e-4).all() and (better.sign == "better").all()
    same = tests[tests.algorithm == "skordinal-SVORIM"]
    assert (same.pvalue == 1.0).all() and (same.sign == "tie").all()
    assert (tests[tests.algorithm == "PRank"].sign == "worse").all()


def test_bold_best_and_marker(table):
    text = markdown_table(table, "mae", reference="SVORIM",
                          order=["SVORIM", "Reduction-SVM", "PRank", "MC-SVM", "skordinal-SVORIM"])
    lines = text.splitlines()
    assert lines[0] == "| dataset | bins | SVORIM | Reduction-SVM | PRank | MC-SVM | skordinal-SVORIM |"
    means = summary(table, "mae")
    for dataset in DATASETS:
        cells = [c.strip() for c in next(line for line in lines if line.startswith(f"| {dataset} |")).split("|")[1:-1]]
        bold = [i for i, c in enumerate(cells) if c.startswith("**")]
        assert bold == [3]  # Reduction-SVM
        expected = cell(means, dataset, "Reduction-SVM")
        assert cells[3] == f"**{expected['mean']:.3f} ± {expected['sem']:.3f}**†"
        assert not cells[2].endswith("†") and not cells[6].endswith("†")  # reference, identical external learner
    assert "(1 failed)" in next(line for line in lines if line.startswith("| pyrim |"))
    assert next(line for line in lines if line.startswith("| housing |")).split("|")[6].strip() == "–"
    assert any(line.startswith("| average rank (all algorithms) |") for line in lines)
    methods_row = next(line for line in lines if line.startswith("| average rank (methods) |"))
    assert methods_row.split("|")[-2].strip() == "–"  # skordinal-SVORIM, an external learner, is not ranked there
    assert "Friedman test among all algorithms: chi2(3)" in text and "Iman–Davenport F(3, 6)" in text
    assert "Left out (results missing on some benchmark): MC-SVM" in text
    assert "Friedman test among the methods: chi2(2)" in text  # 4 methods, MC-SVM left out


def test_average_ranks_and_friedman_against_scipy(table):
    ranks, friedman = average_ranks(table, "mae")
    wide = summary(table, "mae").pivot(index="dataset", columns="algorithm", values="mean")
    for algorithm in wide.columns:
        per_dataset = [stats.rankdata(row.dropna().to_numpy())[list(row.dropna().index).index(algorithm)]
                       for _, row in wide.iterrows() if not np.isnan(row[algorithm])]
        got = ranks.set_index("algorithm").loc[algorithm]
        assert got.average_rank == pytest.approx(np.mean(per_dataset))
        assert got.n_datasets == len(per_dataset)
    assert ranks.algorithm.iloc[0] == "Reduction-SVM"
    complete = ["PRank", "Reduction-SVM", "SVORIM", "skordinal-SVORIM"]
    assert friedman["algorithms"] == complete and friedman["left_out"] == ["MC-SVM"]
    expected = stats.friedmanchisquare(*[wide[a].to_numpy() for a in complete])
    assert friedman["statistic"] == pytest.approx(expected.statistic)
    assert friedman["pvalue"] == pytest.approx(expected.pvalue)


def test_friedman_not_applicable(table):
    two = table[table.algorithm.isin(["SVORIM", "PRank"])]
    _, friedman = average_ranks(two, "mae")
    assert np.isnan(friedman["statistic"]) and friedman["note"].startswith("not applicable")
    one_dataset = table[table.dataset == "pyrim"]
    assert average_ranks(one_dataset, "mae")[1]["note"].startswith("not applicable")


def test_time_table(table):
    times = time_table(table)
    assert list(times.columns) == ["dataset", "algorithm", "fit_seconds", "cv_seconds"]
    row = cell(times, "machine", "SVORIM")
    assert (row.fit_seconds, row.cv_seconds) == (pytest.approx(10.5), 10.0)


def test_time_table_keeps_each_benchmark_apart(table):
    """With ``by=(dataset, bins)`` the 5- and 10-rank times of a data set are two rows, not a mean."""
    from ordrank.reports import time_markdown

    five = table.assign(bins=5, value=np.where(table.metric == "cv_seconds", 2.0, table.value))
    times = time_table(pd.concat([table, five]), by=("dataset", "bins"))
    assert list(times.columns) == ["dataset", "bins", "algorithm", "fit_seconds", "cv_seconds"]
    svorim = times[(times.dataset == "machine") & (times.algorithm == "SVORIM")]
    assert svorim[["bins", "cv_seconds"]].values.tolist() == [[5, 2.0], [10, 10.0]]
    lines = time_markdown(times, order=["SVORIM"]).splitlines()
    assert lines[0].startswith("| dataset | bins | SVORIM |") and len(lines) == 2 + 2 * len(DATASETS)
    assert lines[2].startswith("| housing | 5 | 10.500 / 2.000 |")


def test_report_is_deterministic(table, tmp_path):
    first = write_report(table, tmp_path / "a")
    write_report(table.iloc[::-1], tmp_path / "b")
    names = ["report.md", "summary_mae.csv", "summary_zero_one.csv", "wilcoxon_mae.csv",
             "wilcoxon_zero_one.csv", "ranks_mae.csv", "ranks_zero_one.csv", "times.csv",
             "yardsticks_mae.csv", "yardsticks_zero_one.csv", "yardsticks_times.csv"]  # the config pairs the C codes
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(names)  # no temp files
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    before = first.read_bytes()
    write_report(table, tmp_path / "a")
    assert first.read_bytes() == before
    text = before.decode()
    assert "do not edit by hand" in text and "3 data sets" in text and "20 partitions" in text
    for title in ("## Test mean absolute error", "## Test zero-one error", "## Training time (seconds)"):
        assert title in text


def test_duplicate_partitions_rejected(table):
    with pytest.raises(ValueError, match="more than one row per partition"):
        summary(pd.concat([table, table.iloc[:1]]), table.metric.iloc[0])


def test_figure_written_and_deterministic(table, tmp_path):
    pairs = [("SVORIM", "Reduction-SVM"), ("SVORIM", "PRank"), ("skordinal-ORBoost", "Reduction-boost")]
    one = benchmark_scatter_figure(table, pairs, tmp_path / "one.png")
    two = benchmark_scatter_figure(table, pairs, tmp_path / "two.png")
    assert one.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert one.read_bytes() == two.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.png", "two.png"]


def test_cli(table, tmp_path, capsys):
    script = Path(__file__).resolve().parents[1] / "experiments" / "report_svor_benchmark.py"
    spec = importlib.util.spec_from_file_location("report_svor_benchmark", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = write_table(table, tmp_path / "benchmark.parquet")
    module.main(["--table", str(path), "--out", str(tmp_path / "out"),
                 "--figure", str(tmp_path / "fig.png")])
    assert (tmp_path / "out" / "report.md").is_file() and (tmp_path / "fig.png").is_file()
    assert "wrote" in capsys.readouterr().out


def online_table(dataset, scale, n_seeds=5, steps=(1, 50, 100)):
    rng = np.random.default_rng(len(dataset))
    rows = [{"experiment": "e", "dataset": dataset, "algorithm": algorithm, "seed": seed, "step": step,
             "metric": "time_avg_rank_loss", "value": scale * (1 + i) / step + rng.normal(0, 0.1)}
            for i, algorithm in enumerate(["PRank", "MCP"]) for seed in range(n_seeds) for step in steps]
    return pd.DataFrame(rows)


def test_online_figure_shares_one_y_scale_and_draws_one_standard_error():
    import matplotlib.pyplot as plt

    from ordrank.plotting import online_figure
    from ordrank.results import summarize

    small, large = online_table("a", 1.0), online_table("b", 5.0)
    fig = online_figure([("A", small, "seeds"), ("B", large, "seeds")])
    left, right = fig.axes[:2]
    assert left.get_ylim() == right.get_ylim() and left.get_ylim()[0] == 0
    assert right.get_ylim()[1] >= large.value.max()
    band = left.collections[0].get_paths()[0].vertices  # PRank's band (algorithms sorted: MCP, PRank)
    curve = summarize(small[small.algorithm == "MCP"])
    top = curve["mean"] + curve["sem"]
    assert np.isclose(band[:, 1].max(), top.max())  # ± 1 s.e., not 2
    legend, = fig.legends  # one for the figure, below the panels: it covers no curve
    assert legend.get_title().get_text() == "mean ± 1 s.e." and not left.get_legend()
    renderer = fig.canvas.get_renderer()
    assert legend.get_window_extent(renderer).y1 < min(ax.get_tightbbox(renderer).y0 for ax in (left, right))
    plt.close(fig)


def test_scatter_panels_share_one_scale(table, tmp_path):
    import matplotlib.pyplot as plt

    from ordrank.plotting import scatter

    captured = {}
    original = plt.close
    try:
        plt.close = lambda fig=None: captured.setdefault("fig", fig)
        scatter.benchmark_scatter_figure(table, [("SVORIM", "Reduction-SVM"), ("SVORIM", "PRank")],
                                         tmp_path / "f.png")
    finally:
        plt.close = original
    fig = captured["fig"]
    limits = {(ax.get_xlim(), ax.get_ylim()) for ax in fig.axes}
    assert len(limits) == 1
    assert limits.pop()[1][1] >= summary(table, "mae").query("algorithm == 'PRank'")["mean"].max()
    plt.close(fig)


def test_readme_tables_from_tables(table):
    from ordrank.reports import benchmark_readme_markdown, online_comparison_markdown, online_final_markdown

    text = benchmark_readme_markdown(table, columns=["SVORIM", "Reduction-SVM", "MC-SVM"])
    lines = text.splitlines()
    assert lines[0] == "| data set | SVORIM | Reduction-SVM | MC-SVM |"
    assert [line.split("|")[1].strip() for line in lines[2:5]] == ["pyrim", "machine", "housing"]  # papers' order
    means = summary(table, "mae")
    expected = cell(means, "machine", "Reduction-SVM")
    assert f"**{expected['mean']:.3f}** ± {expected['sem']:.3f}" in lines[3]
    assert lines[4].endswith("| – |")  # MC-SVM has no housing results
    assert "mean ± 1 standard error over the 20 partitions" in text

    online = online_table("a", 1.0)
    final = online_final_markdown(online, unit="sequences")
    last = online[online.step == 100].groupby("algorithm").value
    assert final.splitlines()[2] == (f"| PRank | {last.mean()['PRank']:.4f} ± {last.sem()['PRank']:.4f} |")
    assert "Mean ± 1 standard error over the 5 sequences." in final
    online["config.algorithms.MCP.eta"] = 0.5
    row = online_comparison_markdown([("data a", online)], algorithms=("PRank", "MCP")).splitlines()
    assert row[0] == "| data | targets (t = last round) | PRank | MCP (η = 0.5) |"
    assert row[2].startswith("| data a | 5 (t = 100) | **")


def test_report_spec_comes_from_the_experiment_config(table):
    from ordrank.reports import ReportSpec

    spec = ReportSpec.for_experiment("svor_benchmark_quick")  # inherited from svor_benchmark
    assert spec.reference == "SVORIM" and spec.block == ("dataset", "bins")
    assert spec.order[:2] == ["SVORIM", "SVOREX"] and spec.readme_where == {"bins": 10}
    assert ReportSpec.of_table(table) == ReportSpec.for_experiment("svor_benchmark")
    with pytest.raises(ValueError, match="prank_synthetic.yaml: report is missing"):
        ReportSpec.for_experiment("prank_synthetic")
    with pytest.raises(ValueError, match=r"unknown keys \['colums'\]"):
        ReportSpec.from_config({"reference": "A", "colums": ["A"]})
    with pytest.raises(ValueError, match="2 experiments"):
        ReportSpec.of_table(pd.concat([table, table.assign(experiment="other")]))


def test_another_study_with_its_own_block_and_reference(table):
    """A study with other names: block (dataset, fold), reference PRank, pairs by repetition."""
    from ordrank.reports import ReportSpec

    other = table.rename(columns={"bins": "fold", "split": "repetition"}).assign(experiment="letor")
    spec = ReportSpec(reference="PRank", block=("dataset", "fold"), partition="repetition",
                      methods=("PRank", "SVORIM"), readme_columns=("SVORIM", "PRank"),
                      readme_where={"fold": 10}, datasets=("housing", "pyrim"))
    text = markdown_table(other, "mae", spec=spec)
    assert text.splitlines()[0].startswith("| dataset | fold | PRank | SVORIM | MC-SVM |")
    assert "differs from PRank" in text
    tests = paired_wilcoxon(other, "mae", spec=spec)
    assert set(tests.reference) == {"PRank"} and "fold" in tests.columns
    from ordrank.reports import benchmark_readme_markdown
    lines = benchmark_readme_markdown(other, spec=spec).splitlines()
    assert lines[0] == "| data set | SVORIM | PRank |" and lines[2].startswith("| housing |")
    assert "over the 20 partitions; bold" in lines[-1]


def test_report_spec_of_a_variant_in_a_sub_folder():
    """An experiment named in a sub-folder's config (svor_benchmark/papers_sizes names itself
    svor_benchmark_papers_sizes) finds its report section there."""
    from ordrank.reports.spec import CONF_DIR, ReportSpec, config_name

    assert config_name("svor_benchmark_papers_sizes", CONF_DIR) == "svor_benchmark/papers_sizes"
    assert config_name("svor_benchmark", CONF_DIR) == "svor_benchmark"
    spec = ReportSpec.for_experiment("svor_benchmark_papers_sizes")
    assert spec.datasets == ("bank2", "computer2", "calhousing", "census2")


def test_scatter_default_pairs_are_those_the_table_has(table, tmp_path):
    """The default panels skip pairs with an algorithm the table lacks (a variant that runs only
    the kernel methods gets no empty tree / boosting panels)."""
    import matplotlib.pyplot as plt

    from ordrank.plotting import scatter

    captured = {}
    original = plt.close
    try:
        plt.close = lambda fig=None: captured.setdefault("fig", fig)
        scatter.benchmark_scatter_figure(table, None, tmp_path / "f.png")
    finally:
        plt.close = original
    fig = captured["fig"]  # the table has SVORIM and Reduction-SVM, no tree, no boosting
    assert [ax.get_title() for ax in fig.axes] == ["Reduction-SVM vs SVORIM, 10 bins"]
    plt.close(fig)
