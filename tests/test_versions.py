"""Every results table records the versions of the libraries that made it (parquet metadata)."""
from __future__ import annotations

import json
from importlib import metadata

import pandas as pd

from ordrank.results.files import VERSIONED, library_versions, table_versions, write_table


def test_a_written_table_records_the_installed_versions_and_reads_back_unchanged(tmp_path):
    table = pd.DataFrame({"metric": ["mae", "mae"], "value": [0.25, 1.5]})
    path = write_table(table, tmp_path / "t.parquet")
    recorded = table_versions(path)
    assert set(recorded) == {"python", *VERSIONED}
    assert recorded["numpy"] == metadata.version("numpy") and recorded["skordinal"] == metadata.version("skordinal")
    assert recorded == library_versions()
    assert pd.read_parquet(path).equals(table)
    again = write_table(table, tmp_path / "u.parquet")
    assert again.read_bytes() == path.read_bytes()  # the same table, byte for byte


def test_a_table_written_before_versions_were_recorded_says_none(tmp_path):
    path = tmp_path / "old.parquet"
    pd.DataFrame({"value": [1.0]}).to_parquet(path, index=False)
    assert table_versions(path) is None


def _pins(text, pattern):
    import re
    return {name.lower(): version for name, version in re.findall(pattern, text, re.M)}


def test_environment_yml_pins_what_the_lock_pins_and_the_lock_covers_pyproject():
    """``make setup`` installs requirements.lock; conda users get the same versions (environment.yml)."""
    import re
    import tomllib

    from conftest import REPO
    lock = _pins((REPO / "requirements.lock").read_text(), r"^([A-Za-z0-9_.-]+)==([^ ;\\\n]+)")
    env = _pins((REPO / "environment.yml").read_text(), r"^\s+- ([A-Za-z0-9_.-]+)(?:\[[^]]*\])?==(\S+)$")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    names = {re.match(r"[A-Za-z0-9_.-]+", spec).group(0).lower() for spec in wanted}
    assert names <= set(lock), f"not in requirements.lock (run `make lock`): {sorted(names - set(lock))}"
    assert names <= set(env), f"not pinned in environment.yml: {sorted(names - set(env))}"
    assert {name: env[name] for name in env} == {name: lock[name] for name in env}
    assert "--hash=sha256:" in (REPO / "requirements.lock").read_text()


# Committed tables that record no versions: the papers' sizes' external cache, filled before versions were
# recorded (its results and timings tables have their versions per job, in the jobs table beside them).
PREDATE_THE_RECORD = ("results/svor_benchmark_papers_sizes/external_cache.parquet",)


def test_every_committed_table_records_its_versions_but_those_that_predate_the_record():
    from conftest import REPO
    tables = sorted((REPO / "results").glob("*/*.parquet"))
    assert tables
    unrecorded = {path.relative_to(REPO).as_posix() for path in tables if table_versions(path) is None}
    assert unrecorded <= set(PREDATE_THE_RECORD), sorted(unrecorded)


def test_a_sweep_records_versions_per_job_unknown_where_they_predate_the_record(tmp_path):
    from conftest import REPO
    from ordrank.results.files import jobs_path, read_jobs

    papers = REPO / "results" / "svor_benchmark_papers_sizes" / "benchmark.parquet"
    jobs = read_jobs(papers)
    assert jobs is not None and len(jobs) == 960 and (jobs["versions"] == "unknown").sum() > 0
    assert "unknown" in table_versions(papers)["numpy"]
    table = write_table(pd.DataFrame({"metric": ["mae"], "value": [1.0]}), tmp_path / "benchmark.parquet")
    mine = library_versions()
    write_table(pd.DataFrame({"algorithm": ["A", "B"], "versions": [json.dumps(mine), "unknown"]}), jobs_path(table))
    assert table_versions(table)["numpy"] == ", ".join(sorted([mine["numpy"], "unknown"]))
    assert table_versions(table.with_name("benchmark.timings.parquet"))["numpy"] == table_versions(table)["numpy"]
