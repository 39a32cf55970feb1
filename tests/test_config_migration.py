"""Configs that list only what differs (issue #59, item 3), and the one migration of what was made before.

Every conf/algorithm/*.yaml lists its estimator's ``_target_`` and non-default settings only; any other
parameter is a plain override (no ``+``) and a misspelt one is refused naming the key and the valid
ones. The settings the YAML files listed at their defaults are no longer set, so they left the config
columns and the fingerprints once (experiments/migrate_config_columns.py), and nothing else moved.

RECORD (tests/config_columns_before.json) is what the code before this change computed; its
``recorded`` entry says how: each experiment's algorithms and its jobs' FINISHED fingerprints, and the
committed tables as they were (rows, config columns, a digest of everything else). SVORIM's and SVOREX's
``solver`` stay out of this proof: the committed rows were made with solver=IPM, the configs now use
SVOR's default (auto), a change of results made on purpose and rerun apart from this.
"""
import hashlib
import importlib.util
import json
import logging
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from omegaconf import OmegaConf

from ordrank.app import build, instantiate, job_key, run
from ordrank.config_columns import estimator_parameters, is_default, is_spec, run_config
from ordrank.results import FINISHED, flatten_config, read_table, write_table

from conftest import REPO, make_cfg


def load_migration():
    """experiments/migrate_config_columns.py as a module."""
    spec = importlib.util.spec_from_file_location("migrate_config_columns",
                                                  REPO / "experiments" / "migrate_config_columns.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


migration = load_migration()

RECORD = json.loads((REPO / "tests" / "config_columns_before.json").read_text())
OPTIONS = sorted(p.stem for p in (REPO / "conf" / "algorithm").glob("*.yaml"))
SOLVER = ("SVORIM", "SVOREX")  # rows made with solver=IPM, made again apart from this migration


def composed_option(option: str) -> dict:
    """The config of ``conf/algorithm/<option>.yaml`` as Hydra composes it (defaults lists included)."""
    cfg = make_cfg([f"+algorithm@algorithms.X={option}"])
    return OmegaConf.to_container(cfg.algorithms.X, resolve=False)


def specs(spec: dict, where: str):
    """(where, spec) for ``spec`` and each ``_target_`` spec nested in it."""
    yield where, spec
    for key, value in spec.items():
        if is_spec(value):
            yield from specs(value, f"{where}.{key}")


@pytest.mark.parametrize("option", OPTIONS)
def test_every_algorithm_yaml_lists_only_what_differs_from_the_defaults(option):
    assert "estimator_default" not in (REPO / "conf" / "algorithm" / f"{option}.yaml").read_text()
    for where, spec in specs(composed_option(option), option):
        parameters = estimator_parameters(spec["_target_"])
        for key, value in spec.items():
            if key.startswith("_") or (isinstance(value, str) and value.startswith("${")):  # ${seed}: a link
                continue
            assert parameters is not None and key in parameters, f"{where}.{key}: no parameter"
            assert is_spec(value) or not is_default(spec["_target_"], key, value), \
                f"conf/algorithm/{option}.yaml: {where}.{key} = {value!r} is the estimator's default"


def test_svorex_is_svorim_but_for_its_constraints():
    svorim, svorex = composed_option("svorim"), composed_option("svorex")
    assert svorex == {**svorim, "constraints": "explicit"}
    assert "defaults:\n  - svorim\n" in (REPO / "conf" / "algorithm" / "svorex.yaml").read_text()
    assert "solver" not in json.dumps([svorim, svorex])  # SVOR's default solver (auto)


def override_value(value) -> str:
    return "null" if value is None else json.dumps(value) if isinstance(value, (bool, str)) else repr(value)


@pytest.mark.parametrize("option", OPTIONS)
def test_every_parameter_is_a_plain_override(option):
    """Each parameter its YAML leaves out is set without ``+`` (to its default here), reaches the
    learner and becomes a config column: a set value is a column."""
    unset = [(f"{where}.{name}".partition(".")[2], p.default) for where, spec in specs(composed_option(option), "X")
             for name, p in (estimator_parameters(spec["_target_"]) or {}).items()
             if name not in spec and (p.default is None or isinstance(p.default, (bool, int, float, str)))]
    overrides = [f"algorithms.X.{key}={override_value(value)}" for key, value in unset]
    cfg = make_cfg(["+experiment=prank_synthetic", f"+algorithm@algorithms.X={option}", *overrides])
    learner = build(cfg)["learners"]["X"]
    params = learner.get_params(deep=True)
    for key, value in unset:
        assert params[key.replace(".", "__")] == value, key
    columns = flatten_config(run_config(cfg))
    assert all(f"config.algorithms.X.{key}" in columns for key, _ in unset)


@pytest.mark.parametrize("override, error, message", [
    ("algorithms.SVORIM.diagonal_jiter=0.001", TypeError,
     r"^algorithms\.SVORIM\.diagonal_jiter: SVOR has no parameter 'diagonal_jiter' \(did you mean "
     r"'diagonal_jitter'\?\); its parameters: C, coef0, constraints, degree, diagonal_jitter, gamma, "),
    ("algorithms.MC-SVM.classifier.cache=500", TypeError,
     r"^algorithms\.MC-SVM\.classifier\.cache: SVC has no parameter 'cache' \(did you mean 'cache_size'\?\)"),
    ("algorithms.SVORM.C=10", ValueError, r"^algorithms\.SVORM is no configured algorithm \(set by "
     r"algorithms\.SVORM\.C\); the configured ones are SVORIM, SVOREX, "),
])
def test_a_misspelt_key_is_refused_before_any_work(override, error, message, tmp_path):
    cfg = make_cfg(["+experiment=svor_benchmark_quick", override])
    with pytest.raises(error, match=message):
        run(cfg, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["ERROR"]


# --- the proof: what the old code computed, against today's configs ----------------------------------------

def job_cases(slow_after: int = 1):
    for name, experiment in RECORD["experiments"].items():
        for index, job in enumerate(experiment["jobs"]):
            marks = [pytest.mark.slow] if index >= slow_after else []
            yield pytest.param(name, index, marks=marks, id=f"{name}-{index}")


@pytest.mark.parametrize("name, index", list(job_cases()))
def test_each_job_is_its_recorded_job_but_for_settings_at_their_defaults(name, index):
    """Today's config of the job, with the algorithms it had before, has the recorded fingerprint (so
    only the algorithms changed), and today's algorithms are those without the settings at their
    defaults (so the same learners): the fingerprint moved once, nothing that makes a row did."""
    experiment = RECORD["experiments"][name]
    job = experiment["jobs"][index]
    cfg = make_cfg([f"+experiment={name}", *job["overrides"]])
    new = run_config(cfg)
    only = OmegaConf.to_container(cfg, resolve=True).get("only")
    assert migration.fingerprint({**new, "algorithms": experiment["algorithms"]}, only) == job["fingerprint"]
    dropped = migration.dropped_defaults(experiment["algorithms"], new["algorithms"], "algorithms")
    assert dropped and job_key(cfg) == migration.fingerprint(new, only)  # the one move
    if index == 0:
        for algorithm, key in experiment["only"].items():
            assert migration.fingerprint({**new, "algorithms": experiment["algorithms"]}, algorithm) == key
        for algorithm, spec in experiment["algorithms"].items():
            before = instantiate(spec).get_params(deep=True)
            after = instantiate(OmegaConf.to_container(cfg.algorithms[algorithm], resolve=True)).get_params(deep=True)
            assert {k: repr(v) for k, v in before.items()} == {k: repr(v) for k, v in after.items()}, algorithm


def results_digest(table: pd.DataFrame, name: str) -> str:
    """A digest of a table's rows but its config columns; SVORIM's and SVOREX's rows left out (made
    again with SVOR's default solver) and a timings table's measured seconds (``value``) too."""
    part = table[[c for c in table.columns if not c.startswith("config.")]]
    if "algorithm" in part:
        part = part[~part["algorithm"].isin(SOLVER)]
    if ".timings." in name:
        part = part.drop(columns="value")
    digest = hashlib.sha256(json.dumps(list(part.columns)).encode())
    digest.update(pd.util.hash_pandas_object(part.reset_index(drop=True), index=False).to_numpy().tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("name", sorted(RECORD["tables"]))
def test_each_committed_table_keeps_its_results_and_drops_only_defaults(name):
    recorded, table = RECORD["tables"][name], read_table(REPO / name)
    assert len(table) == recorded["rows"] and results_digest(table, name) == recorded["results_digest"]
    now = [c for c in table.columns if c.startswith("config.")]
    # where the SVORIM/SVOREX rows were made again with SVOR's default solver (svor_benchmark, _chu),
    # their solver=IPM column went too; papers_sizes' rows (not made again) keep theirs
    made_again = {f"config.algorithms.{name}.solver" for name in SOLVER}
    assert sorted(now) == sorted(c for c in recorded["config_columns"]
                                 if c not in recorded["dropped"] and (c not in made_again or c in now))
    for column, value in recorded["dropped"].items():
        spec, _, parameter = column.rpartition(".")
        assert is_default(table[f"{spec}._target_"].iloc[0], parameter, value), column


def test_an_old_finished_job_is_migrated_and_kept_by_resume(tmp_path, caplog):
    """A job finished before (its FINISHED, its table's config columns and .hydra/ as the old code
    wrote them) gets today's fingerprint and columns, and ``resume=true`` keeps it: no rerun."""
    overrides = ["+experiment=prank_synthetic", "protocol.n_sequences=2", "protocol.n_rounds=60",
                 "protocol.record_every=30"]
    cfg = make_cfg(overrides)
    new_path = run(cfg, tmp_path / "new")
    old_algorithms = RECORD["experiments"]["prank_synthetic"]["algorithms"]
    saved = {**OmegaConf.to_container(cfg, resolve=False), "algorithms": json.loads(json.dumps(old_algorithms))}
    saved["algorithms"]["MCP"]["shuffle"] = "${estimator_default:false}"  # the old marker: no column
    old_config = {**run_config(cfg), "algorithms": old_algorithms}
    job = tmp_path / "old"
    (job / ".hydra").mkdir(parents=True)
    (job / ".hydra" / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(saved)))
    (job / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(overrides))
    rows = read_table(new_path)
    rows = rows[[c for c in rows.columns if not c.startswith("config.")]]
    old_rows = pd.concat([rows, pd.DataFrame({k: [v] * len(rows) for k, v in flatten_config(old_config).items()})],
                         axis=1)
    write_table(old_rows, job / "results.parquet")
    (job / FINISHED).write_text(migration.fingerprint(old_config) + "\n")
    assert migration.legacy_run_config(OmegaConf.load(job / ".hydra" / "config.yaml")) == old_config

    what, dropped = migration.migrate_job(job)
    assert what == "migrated (results.parquet, FINISHED)" and "config.algorithms.WH.normalized" in dropped
    assert (job / FINISHED).read_text() == (tmp_path / "new" / FINISHED).read_text()
    pd.testing.assert_frame_equal(read_table(job / "results.parquet"), read_table(new_path))
    assert migration.migrate_job(job)[0] == "unchanged"
    with caplog.at_level(logging.INFO, logger="ordrank.app"):
        run(make_cfg([*overrides, "resume=true"]), job)
    assert "finished table" in caplog.text and "kept (resume=true)" in caplog.text


@pytest.mark.slow
def test_the_migration_leaves_the_committed_tables_as_they_are_now():
    done = subprocess.run([sys.executable, "experiments/migrate_config_columns.py", "--dry-run", "results"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "migrated" not in done.stdout and "unchanged: results/svor_benchmark/benchmark.parquet" in done.stdout
