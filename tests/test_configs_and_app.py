"""Every config composes and builds; the app runs end to end, deterministically, and fails early."""
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import HydraException

from ordrank.app import build, run
from ordrank.results import COLUMNS

REPO = Path(__file__).resolve().parents[1]
CONF = REPO / "conf"
TINY = ["protocol.n_sequences=3", "protocol.n_rounds=120", "protocol.record_every=40"]


def make_cfg(overrides):
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose("config", overrides=overrides)


def options(group):
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


@pytest.mark.parametrize("experiment", options("experiment"))
def test_every_experiment_composes_and_builds(experiment):
    parts = build(make_cfg([f"+experiment={experiment}"]))
    assert parts["learners"], experiment


@pytest.mark.parametrize("group", ["dataset", "protocol", "features", "algorithm"])
def test_every_group_option_composes_and_builds(group):
    base = ["+experiment=prank_synthetic"]
    for option in options(group):
        if group == "algorithm":
            cfg = make_cfg([*base, f"+algorithm@algorithms.extra={option}"])
        else:
            cfg = make_cfg([*base, f"{group}={option}"])
        build(cfg)


def test_smoke_run_writes_tidy_table(tmp_path):
    path = run(make_cfg(["+experiment=prank_synthetic", *TINY]), tmp_path)
    table = pd.read_parquet(path)
    assert table.columns[: len(COLUMNS)].tolist() == COLUMNS
    assert set(table.algorithm) == {"PRank", "MCP", "WH"}
    assert set(table.metric) == {"time_avg_rank_loss"}
    assert sorted(table.step.unique()) == [1, 40, 80, 120]
    assert len(table) == 3 * 3 * 4
    assert table.value.between(0, 4).all()
    assert (table["config.algorithms.WH.eta"] == 0.05).all()


def test_same_config_same_bytes(tmp_path):
    cfg = make_cfg(["+experiment=prank_synthetic", *TINY])
    first = run(cfg, tmp_path / "a").read_bytes()
    assert first == run(cfg, tmp_path / "b").read_bytes()
    other = run(make_cfg(["+experiment=prank_synthetic", *TINY, "seed=1"]), tmp_path / "c")
    assert first != other.read_bytes()


def test_csv_table_too(tmp_path):
    path = run(make_cfg(["+experiment=prank_synthetic", *TINY, "table_name=t.csv"]), tmp_path)
    assert pd.read_csv(path).columns[: len(COLUMNS)].tolist() == COLUMNS


@pytest.mark.parametrize(
    "override, message",
    [
        ("protocol.n_rounds=0", "n_rounds"),
        ("protocol.n_sequences=-3", "n_sequences"),
        ("dataset.thresholds=[]", "at least one"),
        ("algorithms.WH.eta=-1", "eta"),
        ("seed=-1", "seed"),
    ],
)
def test_bad_values_fail_before_any_work(tmp_path, override, message):
    cfg = make_cfg(["+experiment=prank_synthetic", override])
    with pytest.raises(Exception, match=message):
        run(cfg, tmp_path)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "override", ["dataset=no_such_data", "+algorithm@algorithms.X=no_such_algo", "+experiment=nope"]
)
def test_unknown_names_are_named(override):
    with pytest.raises(HydraException, match=override.split("=")[1]):
        make_cfg(["+experiment=prank_synthetic", override] if "experiment" not in override else [override])


def test_no_algorithms_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no algorithms"):
        run(make_cfg([]), tmp_path)


def test_run_py_end_to_end(tmp_path):
    """The real entry point, as a user calls it, with publishing into a scratch results dir."""
    cmd = [sys.executable, "run.py", "+experiment=prank_synthetic", *TINY, "publish=true",
           f"results_dir={tmp_path / 'results'}", f"hydra.run.dir={tmp_path / 'run'}"]
    subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, env={**os.environ, "HYDRA_FULL_ERROR": "1"})
    published = tmp_path / "results" / "prank_synthetic.parquet"
    assert published.read_bytes() == (tmp_path / "run" / "results.parquet").read_bytes()
