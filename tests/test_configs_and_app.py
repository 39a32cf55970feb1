"""Every config composes and builds; the app runs end to end, deterministically, and fails early."""
import os
import subprocess
import sys

import pandas as pd
import pytest
from hydra.errors import HydraException

from ordrank.app import build, run
from ordrank.results import COLUMNS

from conftest import REPO, make_cfg

CONF = REPO / "conf"
TINY = ["protocol.n_sequences=3", "protocol.n_rounds=120", "protocol.record_every=40"]


def options(group):
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


NOT_SHIPPED = {"eachmovie", "movielens_1m", "movielens_10m", "mslr_web10k", "mslr_web30k", "yahoo_ltr_set1",
               "istella_s"}  # data sets the test data directory lacks
SMALL_GENERATOR = ["dataset.n_users=300", "dataset.n_items=80"]


@pytest.mark.parametrize("experiment", options("experiment"))
def test_every_experiment_composes_and_builds(experiment, shared_data_dir):
    cfg = make_cfg([f"+experiment={experiment}", f"data_dir={shared_data_dir}"])
    if cfg.dataset.name == "eachmovie_style":
        cfg = make_cfg([f"+experiment={experiment}", *SMALL_GENERATOR])
    assert build(cfg)["learners"], experiment


@pytest.mark.parametrize("group", ["protocol", "features", "algorithm"])
def test_every_group_option_composes_and_builds(group):
    for option in options(group):
        if group == "algorithm":
            build(make_cfg(["+experiment=prank_synthetic", f"+algorithm@algorithms.extra={option}"]))
        elif group == "features" and option == "query_level_norm":  # a query protocol's map (per query)
            build(make_cfg(["+experiment=letor_web", "dataset.scale=0.001", f"{group}={option}"]))
        else:
            build(make_cfg(["+algorithm@algorithms.PRank=prank", f"{group}={option}"]))


@pytest.mark.parametrize("dataset", options("dataset"))
def test_every_dataset_builds_or_names_its_missing_file(dataset, shared_data_dir):
    overrides = ["+experiment=prank_eachmovie100", f"dataset={dataset}", f"data_dir={shared_data_dir}"]
    cfg = make_cfg(overrides + (SMALL_GENERATOR if dataset == "eachmovie_style" else []))
    if dataset in NOT_SHIPPED:
        with pytest.raises(FileNotFoundError, match="ORDRANK_DATA"):
            build(cfg)
    else:
        build(cfg)


def test_smoke_run_writes_tidy_table(tmp_path):
    path = run(make_cfg(["+experiment=prank_synthetic", *TINY]), tmp_path)
    table = pd.read_parquet(path)
    assert table.columns[: len(COLUMNS)].tolist() == COLUMNS
    assert set(table.algorithm) == {"PRank", "MCP", "WH", "Predtron-L2", "Predtron-L1"}
    assert set(table.metric) == {"time_avg_rank_loss"}
    assert sorted(table.step.unique()) == [1, 40, 80, 120]
    assert len(table) == 5 * 3 * 4
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
    assert [p.name for p in tmp_path.iterdir()] == ["ERROR"]  # no table, only why (app.run)


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
    published = tmp_path / "results" / "prank_synthetic" / "crammer_singer.parquet"
    assert published.read_bytes() == (tmp_path / "run" / "results.parquet").read_bytes()


def test_table_does_not_depend_on_where_the_data_is(tmp_path, shared_data_dir):
    alias = tmp_path / "elsewhere"
    alias.symlink_to(shared_data_dir, target_is_directory=True)
    tables = []
    for where in (shared_data_dir, alias):
        cfg = make_cfg(["+experiment=prank_eachmovie100", "dataset=movielens_100k", f"data_dir={where}",
                        "protocol.n_targets=4", "protocol.record_every=50"])
        tables.append(run(cfg, tmp_path / str(len(tables))).read_bytes())
    assert tables[0] == tables[1]


def test_only_picks_algorithms_and_names_an_unknown_one(tmp_path):
    path = run(make_cfg(["+experiment=prank_synthetic", *TINY, "only=[WH]"]), tmp_path / "a")
    assert set(pd.read_parquet(path).algorithm) == {"WH"}
    with pytest.raises(ValueError, match=r"only=\['SVM'\] names no configured algorithm"):
        build(make_cfg(["+experiment=prank_synthetic", "only=SVM"]))


def test_logspace_grids_resolve():
    cfg = make_cfg(["+experiment=svor_benchmark"])
    assert list(cfg.grid.C) == [1.0, 10.0, 100.0] and list(cfg.grid.gamma) == [0.01, 0.1, 1.0]
    assert list(cfg.protocol.grids.SVORIM.C) == [1.0, 10.0, 100.0]


def test_resume_skips_only_a_finished_job_of_the_same_config(tmp_path):
    cfg = make_cfg(["+experiment=prank_synthetic", *TINY, "resume=true"])
    path = run(cfg, tmp_path)
    stamp = path.stat().st_mtime_ns
    assert run(cfg, tmp_path).stat().st_mtime_ns == stamp  # kept
    changed = make_cfg(["+experiment=prank_synthetic", *TINY, "resume=true", "seed=4"])
    assert run(changed, tmp_path).stat().st_mtime_ns != stamp  # another config: run again
