"""Slow reproduction checks: the committed tables are what the configs produce, and the paper's shape holds."""

import pandas as pd
import pytest

from ordrank.app import run
from ordrank.results import COLUMNS, summarize
from ordrank.results.files import read_jobs

from conftest import REPO, make_cfg


def rerun(tmp_path, experiment, overrides=()):
    cfg = make_cfg([f"+experiment={experiment}", *overrides])
    return pd.read_parquet(run(cfg, tmp_path))


@pytest.mark.slow
def test_prank_synthetic_reproduces_committed_table_and_figure4_left(tmp_path):
    table = rerun(tmp_path, "prank_synthetic")
    committed = pd.read_parquet(REPO / "results" / "prank_synthetic" / "crammer_singer.parquet")
    pd.testing.assert_frame_equal(table, committed, check_exact=False, rtol=1e-12)
    final = summarize(table[table.step == 7000]).set_index("algorithm")
    assert set(final.index) == {"PRank", "MCP", "WH", "Predtron-L2", "Predtron-L1"}
    final = final.loc[["PRank", "WH", "MCP"]]  # the paper's three; the Predtron is not in its figure
    assert final.loc["PRank", "mean"] < final.loc["WH", "mean"] < final.loc["MCP", "mean"]
    gaps = final["mean"].diff().abs().dropna()
    assert (gaps > 5 * final["sem"].max()).all()  # the ordering is far outside the noise
    assert table.columns[: len(COLUMNS)].tolist() == COLUMNS


def rerun_slice(tmp_path, experiment, overrides, committed, recompute):
    """The run of ``experiment`` that recomputes only the committed rows where ``recompute(committed)``
    holds: the others are handed to it as an earlier attempt's partial table (``resume=true``), which
    it reuses only when their ``config.*`` columns are this configuration (else it recomputes them
    all). Returns the whole table the run writes, to compare with ``committed``."""
    from ordrank.results import partial_path, write_table

    cfg = make_cfg([f"+experiment={experiment}", *overrides, "resume=true"])
    write_table(committed[~recompute(committed)], partial_path(tmp_path / cfg.table_name))
    return pd.read_parquet(run(cfg, tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize("experiment", ["prank_eachmovie100", "prank_eachmovie200"])
@pytest.mark.parametrize("dataset", ["movielens_100k", "eachmovie_style"])
def test_eachmovie_experiments_reproduce_committed_tables(tmp_path, shared_data_dir, experiment, dataset):
    """The full-size configuration recomputes its last batch of targets (every learner, 21 to 64
    targets out of 149 to 500) to the committed numbers; the other batches are the committed rows.
    The last batch pins the number of targets (their draw) and the per-user shuffles."""
    committed = pd.read_parquet(REPO / "results" / experiment / f"{dataset}.parquet")
    n_targets = committed.groupby("algorithm").seed.nunique()
    protocol = make_cfg([f"+experiment={experiment}"]).protocol
    # the targets: protocol.n_targets (500) random users among those with ≥ min_ratings ratings, or
    # all of them if fewer. MovieLens-100K has fewer (364 users with ≥ 100 ratings, 149 with ≥ 200),
    # counted here from u.data itself; the EachMovie-style generator (61,265 users) has more.
    if dataset == "movielens_100k":
        ratings = pd.read_csv(shared_data_dir / "movielens-100k" / "u.data", sep="\t", header=None,
                              names=["user", "item", "rating", "time"])
        expected = int((ratings.groupby("user").size() >= protocol.min_ratings).sum())
        assert expected < protocol.n_targets
    else:
        expected = protocol.n_targets
    assert (n_targets == expected).all()
    batch = protocol.batch_size
    last = (committed.seed.max() // batch) * batch  # the first target of the last batch
    table = rerun_slice(tmp_path, experiment, [f"dataset={dataset}", f"data_dir={shared_data_dir}"],
                        committed, lambda t: t.seed >= last)
    pd.testing.assert_frame_equal(table, committed, check_exact=False, rtol=1e-12)
    assert table.step.max() == int(experiment[-3:])


def test_benchmark_report_is_what_the_committed_table_gives(tmp_path):
    import importlib.util

    path = REPO / "experiments" / "report_svor_benchmark.py"
    spec = importlib.util.spec_from_file_location("report_svor", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    committed = REPO / "results" / "svor_benchmark"
    script.write(pd.read_parquet(committed / "benchmark.parquet"), tmp_path,  # as the script writes it
                 timings=pd.read_parquet(committed / "benchmark.timings.parquet"),
                 jobs=read_jobs(committed / "benchmark.parquet"))
    for name in ("report.md", "summary_mae.csv", "wilcoxon_mae.csv", "ranks_zero_one.csv"):
        assert (tmp_path / name).read_bytes() == (committed / name).read_bytes(), name


@pytest.mark.slow
def test_svor_benchmark_partition_reproduces_committed_rows(tmp_path, shared_data_dir):
    """One job of the full benchmark (machine, 10 bins, partition 0, every learner) gives the committed
    errors. Measured at commit 8578eb8 (this test's overrides, on the shared data): every error and
    every chosen parameter equal to the committed ones. The allowance below is one test prediction
    moved by one rank per learner and metric (1/59 of MAE or zero-one error), and one learner's
    chosen parameters, for a solver's tolerance deciding a near-tie; it is not a measured level."""
    table = rerun(tmp_path, "svor_benchmark", ["dataset.name=machine", "dataset.bins=10", "protocol.splits=0",
                                               f"data_dir={shared_data_dir}"])
    committed = pd.read_parquet(REPO / "results" / "svor_benchmark" / "benchmark.parquet")
    committed = committed[(committed.dataset == "machine") & (committed.bins == 10) & (committed.split == 0)]
    keys = ["algorithm", "metric"]
    errors = ["mae", "zero_one"]
    new = table[table.metric.isin(errors)].set_index(keys).sort_index()
    old = committed[committed.metric.isin(errors)].set_index(keys).sort_index()
    learners = make_cfg(["+experiment=svor_benchmark"]).algorithms  # the 17 of the experiment
    assert len(new) == len(old) == len(learners) * len(errors)
    n_test = 59  # machine10's partition 0 has 59 test rows: each error is a multiple of 1/59
    assert ((old.value * n_test) - (old.value * n_test).round()).abs().max() < 1e-9
    pd.testing.assert_series_equal(new.value, old.value, atol=1 / n_test + 1e-9)
    assert (new.params != old.params).sum() <= len(errors)
