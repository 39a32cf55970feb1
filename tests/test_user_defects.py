"""Defects a user met: a quick target that rewrote a committed figure, a user's
folder run under another data set's name, hints that did not name the config to use, the data
command's help, a learner parameter that needed `+`, and the report's unstated statistics."""
import os
import re
import shlex
import subprocess
import sys

import pandas as pd
import pytest

from ordrank.app import build
from ordrank.results import flatten_config, write_table

from conftest import REPO, make_cfg
from test_query_folds import write_subsets
from test_reports import make_table
from test_user_partitions import orca_folder

ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}


SVOR_QUICK = ["+experiment=svor_benchmark", "+quick=svor_benchmark"]  # the experiment, then its quick overlay
LETOR_QUICK = ["+experiment=letor_ohsumed", "+quick=letor_ohsumed"]


# --- item 1: the quick targets write only where git ignores ---------------------------------------------

def makefile_recipe(target: str) -> list[str]:
    """The Makefile recipe of ``target``: one string per command (continuation lines joined)."""
    text = (REPO / "Makefile").read_text().replace("\\\n", " ")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def ignored_and_untracked(path: str) -> bool:
    """True when git ignores ``path`` (relative to the repository) and does not track it."""
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=REPO).returncode == 0


def quick_targets() -> list[str]:
    return re.findall(r"^([\w-]+-quick):", (REPO / "Makefile").read_text(), flags=re.M)


OUTPUT_OPTIONS = ("-o", "--out", "--figure", "--cd-figure")


@pytest.mark.parametrize("target", quick_targets())
def test_every_output_a_quick_target_names_is_git_ignored(target):
    """reproduce-quick writes under build/quick/ (its script's default); benchmark-quick names its outputs."""
    for command in makefile_recipe(target):
        words = shlex.split(command)
        for option, value in zip(words, words[1:]):
            if option in OUTPUT_OPTIONS or option.startswith("hydra.sweep.dir="):
                assert ignored_and_untracked(value), f"make {target}: {option} {value} is not git-ignored"


def test_the_benchmark_quick_report_writes_only_git_ignored_files(tmp_path):
    """The report command of `make benchmark-quick`, run as written on a small table (3 data sets, so a
    critical-difference diagram is drawn) in an empty folder: every file it writes is git-ignored."""
    command = next(shlex.split(c) for c in makefile_recipe("benchmark-quick") if "report_svor_benchmark.py" in c)
    args = command[command.index("experiments/report_svor_benchmark.py") + 1:]
    table_path = args[args.index("--table") + 1]
    write_table(make_table().assign(experiment="svor_benchmark_quick"), tmp_path / table_path)
    done = subprocess.run([sys.executable, str(REPO / "experiments" / "report_svor_benchmark.py"), *args],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert any(name.endswith("_cd.png") for name in written), written  # the diagram was drawn
    assert [name for name in written if not ignored_and_untracked(name)] == []


# --- item 2: a user's folder runs under its own name ------------------------------------------------------

def test_a_users_folder_is_not_run_under_the_experiments_data_set_name(tmp_path):
    """svor_benchmark sets dataset.name: pyrim; with dataset=partitions it leaked into the user's rows."""
    folder = orca_folder(tmp_path, n=2)
    overrides = ["+experiment=svor_benchmark", "dataset=partitions", f"dataset.path={folder}",
                 "dataset.bins=null", "only=PRank"]
    with pytest.raises(ValueError, match=r"dataset\.name"):
        build(make_cfg(overrides))
    assert build(make_cfg([*overrides, "dataset.name=auto"]))["dataset"].n_ranks == 3


def test_a_users_folder_cannot_take_a_named_data_sets_name(tmp_path):
    """A sweep of svor_benchmark sets dataset.name=machine, ... for each job: never on the user's folder."""
    folder = orca_folder(tmp_path, n=2)
    overrides = [*SVOR_QUICK, "dataset=partitions", f"dataset.path={folder}",
                 "dataset.bins=null", "only=PRank"]
    for name in ("machine", "letor_ohsumed"):
        with pytest.raises(ValueError, match=rf"dataset\.name={name} .*another data set"):
            build(make_cfg([*overrides, f"dataset.name={name}"]))


def test_a_path_given_to_a_named_letor_set_is_refused(tmp_path):
    """+experiment=letor_ohsumed +quick=letor_ohsumed dataset.path=<mine> ran the user's folder as letor_ohsumed."""
    folder = write_subsets(tmp_path / "data")
    with pytest.raises(ValueError, match=r"dataset=letor dataset\.path="):
        build(make_cfg([*LETOR_QUICK, f"dataset.path={folder}"]))
    cfg = make_cfg([*LETOR_QUICK, "dataset=letor", f"dataset.path={folder}", "only=PRank"])
    assert cfg.dataset.name == "toy"  # the folder's name, not `letor`
    assert build(cfg)["dataset"].n_folds == 5


# --- item 3: dataset.path on a named set names dataset=partitions -----------------------------------------

def test_a_path_appended_to_a_named_benchmark_names_dataset_partitions(tmp_path):
    with pytest.raises(ValueError, match=r"dataset=partitions dataset\.path="):
        build(make_cfg([*SVOR_QUICK, f"+dataset.path={tmp_path}", "only=PRank"]))


def test_run_py_names_dataset_partitions_when_dataset_path_cannot_be_set(tmp_path):
    done = subprocess.run([sys.executable, "run.py", *SVOR_QUICK, f"dataset.path={tmp_path}"],
                          cwd=REPO, env=ENV, capture_output=True, text=True)
    assert done.returncode == 2 and "dataset=partitions" in done.stderr, done.stderr


# --- item 4: the data command's help and hints ------------------------------------------------------------

def test_the_data_commands_help_is_whole_and_names_import(capsys):
    from ordrank import data

    with pytest.raises(SystemExit):
        data.main(["--help"])
    out = capsys.readouterr().out
    description = out.split("positional arguments")[0].split("\n\n", 1)[1]
    assert "``" not in out and "import NAME PATH" in " ".join(description.split())
    assert description.strip().endswith(".")


def test_a_failed_download_points_at_the_offline_import(tmp_path, monkeypatch):
    from ordrank.datasets import fetch as registry

    monkeypatch.setattr(registry, "RETRIES", 0)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with pytest.raises(registry.FetchError, match=r"could not download .*python -m ordrank\.data import "
                                                  r"movielens-100k PATH"):
        registry.fetch("movielens-100k", tmp_path / "data", base_url="http://127.0.0.1:9")
    with pytest.raises(FileNotFoundError, match=r"without internet access: python -m ordrank\.data import NAME PATH"):
        registry.require(["orca"], tmp_path / "data")


def test_the_skip_reason_names_data_and_the_offline_import(tmp_path):
    env = {**ENV, "ORDRANK_DATA": str(tmp_path / "nowhere"), "CI": ""}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           "tests/test_letor.py::test_real_ohsumed"], cwd=REPO, env=env, capture_output=True,
                          text=True)
    assert "1 skipped" in done.stdout, done.stdout[-2000:]
    assert "data/" in done.stdout and "python -m ordrank.data import" in done.stdout, done.stdout[-2000:]


# --- item 5: every estimator parameter is a plain override -------------------------------------------------
# (its YAML lists only what differs from the estimator's defaults: tests/test_config_migration.py)

def test_diagonal_jitter_is_a_plain_override(tmp_path):
    data = ["dataset=partitions", f"dataset.path={orca_folder(tmp_path, n=2)}", "dataset.name=auto",
            "dataset.bins=null", "only=SVORIM"]
    cfg = make_cfg([*SVOR_QUICK, "algorithms.SVORIM.diagonal_jitter=0.001", *data])
    assert build(cfg)["learners"]["SVORIM"][-1].diagonal_jitter == 0.001  # after the standardize step
    from ordrank.config_columns import run_config

    assert run_config(cfg)["algorithms"]["SVORIM"]["diagonal_jitter"] == 0.001  # a set value is a column
    default = make_cfg([*SVOR_QUICK, *data])
    assert build(default)["learners"]["SVORIM"][-1].diagonal_jitter == 0.0
    assert "diagonal_jitter" not in run_config(default)["algorithms"]["SVORIM"]  # the default is not


def committed_tables():
    """(path, table) of every committed results table with config columns."""
    listed = subprocess.run(["git", "ls-files", "results/*.parquet"], cwd=REPO, capture_output=True, text=True)
    for name in listed.stdout.split():
        if ".timings." in name or ".jobs." in name:
            continue
        table = pd.read_parquet(REPO / name)
        if any(c.startswith("config.") for c in table.columns):
            yield name, table


# the committed papers'-sizes rows were made with solver=IPM, a column today's configs (SVOR's default
# solver, auto) do not set
SOLVER_MADE_BEFORE = ["config.algorithms.SVORIM.solver", "config.algorithms.SVOREX.solver"]


@pytest.mark.parametrize("name,table", list(committed_tables()), ids=lambda v: v if isinstance(v, str) else "")
def test_the_config_columns_of_committed_tables_are_unchanged(name, table):
    """A parameter at the estimator's default is set nowhere, so it adds no config column (and leaves a
    job's config hash alone): a rerun of today's configs has the committed tables' columns and values."""
    from ordrank.config_columns import run_config
    from ordrank.reports.spec import config_name

    experiment, dataset = table["experiment"].iloc[0], table["dataset"].iloc[0]
    overrides = [f"+experiment={config_name(experiment, REPO / 'conf')}"]
    if (REPO / "conf" / "dataset" / f"{dataset}.yaml").is_file():
        overrides.append(f"dataset={dataset}")
    elif "config.dataset.benchmark" in table:
        overrides.append(f"dataset.name={dataset}")
    expected = flatten_config(run_config(make_cfg(overrides)))
    got = [c for c in table.columns if c.startswith("config.") and (c in expected or c not in SOLVER_MADE_BEFORE)]
    assert list(expected) == got  # the same columns in the same order: the same bytes
    algorithm_columns = [c for c in got if c.startswith("config.algorithms.")]
    row = table.iloc[0]
    assert {c: expected[c] for c in algorithm_columns} == {c: row[c] for c in algorithm_columns}


# --- item 6: report.md states the tie correction and the q source ------------------------------------------

def test_the_report_states_the_tie_correction_and_where_q_comes_from(tmp_path):
    from ordrank.reports.paired_tests import rank_rows
    from ordrank.reports import summary, write_report

    table = make_table()
    text = write_report(table, tmp_path, statistics=True).read_text()
    means = summary(table, "mae").pivot_table(index=["dataset", "bins"], columns="algorithm", values="mean")
    means = means.dropna(axis=1)  # the algorithms on every benchmark: 4 of them, over 3 benchmarks
    n, k = means.shape
    ranks = rank_rows(means.to_numpy()).mean(axis=0)
    uncorrected = 12 * n / (k * (k + 1)) * ((ranks - (k + 1) / 2) ** 2).sum()
    assert re.search(r"corrected for ties.*3 of the 3 benchmarks have tied means.*without the correction"
                     rf".*χ² = {uncorrected:.2f}", text)
    assert "studentized range" in text


def test_the_committed_report_states_demsars_uncorrected_statistic_and_q_beyond_table_5():
    text = (REPO / "results" / "svor_benchmark" / "report.md").read_text()
    # 160.75: the uncorrected χ² of the committed svor_benchmark table (experiments/report_svor_benchmark.py)
    assert re.search(r"9 of the 24 benchmarks have tied means.*160\.75", text)
    assert "q = 3.458 for k = 17 and 3.219 for k = 11, beyond Demšar's Table 5" in text
