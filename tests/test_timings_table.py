"""Measured seconds live in a timings table beside the results table: a rerun's
results table is byte for byte the same; publish and collect carry the timings table along."""
import warnings

import pandas as pd

from conftest import make_cfg
from ordrank.app import run
from ordrank.reports import time_table, write_report
from ordrank.results import main as results_main
from ordrank.results import publish, read_timings, timings_path
from test_partitions import make_orca

CFG = ["+experiment=svor_benchmark", "+quick=svor_benchmark", "dataset.name=pyrim", "dataset.bins=5",
       "only=[PRank,OrderedLogit]", "protocol.splits=[0,1]", "protocol.cv_folds=2"]


def _run(tmp_path, folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(make_cfg([*CFG, f"data_dir={tmp_path / 'data'}"]), tmp_path / folder)


def test_rerun_gives_the_same_results_table_bytes(tmp_path):
    make_orca(tmp_path / "data")
    first, second = _run(tmp_path, "a"), _run(tmp_path, "b")
    assert first.read_bytes() == second.read_bytes()
    results = pd.read_parquet(first)
    assert set(results["metric"]) == {"mae", "zero_one"}
    timings = read_timings(first)
    assert timings_path(first).name == "results.timings.parquet"
    assert set(timings["metric"]) == {"fit_seconds", "cv_seconds"}
    # one timing row per (algorithm, split) and metric, with the same keys and config columns
    assert len(timings) == len(results) == 2 * 2 * 2
    assert list(timings.columns) == list(results.columns)
    assert (timings["value"] >= 0).all()
    times = time_table(timings)
    assert set(times["algorithm"]) == {"PRank", "OrderedLogit"}

    # publish copies both; a sweep's collect merges both
    target = publish(first, tmp_path / "published", "svor_benchmark_quick", "pyrim")
    assert target.read_bytes() == first.read_bytes()
    assert timings_path(target).read_bytes() == timings_path(first).read_bytes()
    sweep = tmp_path / "sweep"
    for name, path in (("a", first), ("b", second)):  # two "jobs" of different splits
        (sweep / name).mkdir(parents=True)
        table = pd.read_parquet(path)
        keep = table["split"] == (0 if name == "a" else 1)
        table[keep].to_parquet(sweep / name / "results.parquet", index=False)
        timed = pd.read_parquet(timings_path(path))
        timed[timed["split"] == (0 if name == "a" else 1)].to_parquet(
            sweep / name / "results.timings.parquet", index=False)
    out = tmp_path / "benchmark.parquet"
    assert results_main(["collect", str(sweep), "-o", str(out)]) == 0
    assert len(pd.read_parquet(out)) == len(results)
    merged = read_timings(out)
    assert len(merged) == len(timings) and set(merged["split"]) == {0, 1}

    # the report's training-time section comes from the timings table
    report = write_report(results, tmp_path / "report", timings=timings).read_text()
    assert "## Training time (seconds)" in report and "PRank" in report.split("Training time")[1]
