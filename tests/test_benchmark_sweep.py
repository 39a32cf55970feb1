"""The batch benchmark end to end: a joblib sweep of the quick experiment, resume, collect, report."""
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]


def sweep(tmp_path, data_dir, *overrides):
    command = [sys.executable, "run.py", "-m", "+experiment=svor_benchmark", "+quick=svor_benchmark",
               "hydra/launcher=joblib", f"hydra.sweep.dir={tmp_path}/sweep", f"data_dir={data_dir}",
               *overrides]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1200,
                          env={**os.environ, "HYDRA_FULL_ERROR": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow  # a 2-job sweep, the collector and a report in subprocesses: about 15 s
def test_quick_sweep_collect_report(tmp_path, shared_data_dir):
    """Two jobs of the quick benchmark on joblib (`make benchmark`'s path); the collector merges them and
    their timings; the report reads both. (A sweep started again runs only the jobs without a finished
    table: tests/test_sweeps.py.)"""
    sweep(tmp_path, shared_data_dir, "dataset.name=pyrim", "protocol.splits=0,1",
          "only=[PRank,Reduction-tree,OrderedLogit,skordinal-SVORIM]")
    tables = sorted((tmp_path / "sweep").rglob("results.parquet"))
    assert [p.parent.relative_to(tmp_path / "sweep").as_posix() for p in tables] == [
        "bins10/pyrim/split0", "bins10/pyrim/split1"]
    merged = tmp_path / "all.parquet"
    subprocess.run([sys.executable, "-m", "ordrank.results", "collect", str(tmp_path / "sweep"),
                    "-o", str(merged)], cwd=REPO, check=True)
    table = pd.read_parquet(merged)
    assert len(table) == 2 * 4 * 2  # splits x algorithms x (mae, zero_one), each row once
    assert not table.duplicated(["algorithm", "split", "metric"]).any()
    timings = pd.read_parquet(tmp_path / "all.timings.parquet")  # collected beside it
    assert len(timings) == 2 * 4 * 2 and set(timings.metric) == {"fit_seconds", "cv_seconds"}
    mae = table[table.metric == "mae"]
    assert mae.value.between(0, 9).all() and (mae.status != "").all()
    subprocess.run([sys.executable, "experiments/report_svor_benchmark.py", "--table", str(merged),
                    "--out", str(tmp_path / "report"), "--figure", str(tmp_path / "scatter.png"),
                    "--reference", "skordinal-SVORIM"], cwd=REPO, check=True)
    report = (tmp_path / "report" / "report.md").read_text()
    assert "PRank" in report.split("## Training time")[1]  # from the timings table


@pytest.mark.slow
def test_quick_benchmark_every_algorithm(quick_reproduction):
    """svor_benchmark_quick as CI runs it (one job per partition x learner on the local engine): every
    algorithm and external learner, two sets, two partitions. The sweep is the one of the session's quick
    reproduction (conftest.py's quick_reproduction: `make reproduce-quick` runs it exactly so)."""
    path = quick_reproduction.out / "results" / "svor_benchmark_quick" / "benchmark.parquet"
    table = pd.read_parquet(path)
    jobs = pd.read_parquet(path.with_name("benchmark.jobs.parquet"))
    assert len(jobs) == 4 * 17 and set(jobs["engine"]) == {"local"}
    mae = table[table.metric == "mae"]
    assert mae.algorithm.nunique() == 17 and len(mae) == 17 * 4
    failed = mae[mae.status.str.startswith("failed")]
    assert failed.empty, failed[["algorithm", "dataset", "split", "status"]].to_string()
    assert mae.value.between(0, 9).all()
