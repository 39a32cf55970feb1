"""The sweep driver's parts without an engine: which jobs a table holds, the dry run's packing, the
rows a finished job adds (tests/test_cluster.py runs the whole on real engines)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
import pytest
from hypothesis import given, strategies as st

from conftest import REPO
from ordrank.launch.driver import packed_wall
from ordrank.launch.engines import MIN_TASK_SECONDS, array_tasks, point_tasks
from ordrank.launch.jobs import table_state
from ordrank.launch.sweep import compose_jobs


def compose(overrides, hydra_config=False):
    from hydra import compose as hydra_compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        return hydra_compose("config", overrides=overrides, return_hydra_config=hydra_config)


@pytest.fixture(scope="module")
def jobs():
    return compose_jobs(compose, ["+experiment=svor_benchmark/papers_sizes", "data_dir=/nowhere",
                                  "dataset.name=bank2,census2", "protocol.splits=range(2)", "only=[SVORIM,SVOREX]"])[1]


def rows(job, **changed) -> pd.DataFrame:
    """The two rows (mae, zero_one) a job of ``jobs`` writes, with its config columns."""
    columns = {**job.columns, **changed}
    return pd.DataFrame([{"experiment": "svor_benchmark_papers_sizes", "dataset": "x", "algorithm": job.learner,
                          "bins": 5, "split": 0, "metric": metric, "value": 0.5, **columns}
                         for metric in ("mae", "zero_one")])


def test_the_sweep_is_points_times_learners_with_the_overridden_axes(jobs):
    assert len(jobs) == 2 * 2 * 2 * 2  # data sets x ranks (the experiment's 5, 10) x partitions x learners
    assert {dict(job.values)["dataset.name"] for job in jobs} == {"bank2", "census2"}
    census = next(job for job in jobs if dict(job.values)["dataset.name"] == "census2")
    assert census.columns["config.dataset.redraw.train_size"] == 6000  # resolved per data set
    assert census.config["only"] == [census.learner]


def test_a_table_holds_a_job_only_with_its_own_configuration(jobs):
    first, second = jobs[0], jobs[1]
    table = pd.concat([rows(first), rows(second, **{"config.protocol.cv_folds": 5})], ignore_index=True)
    states = table_state(table, jobs)
    assert states[first] == "done" and states[second] == "stale"
    assert sum(state == "missing" for state in states.values()) == len(jobs) - 2
    assert set(table_state(None, jobs).values()) == {"missing"}


@given(st.lists(st.floats(0.1, 100), min_size=1, max_size=40), st.integers(1, 8))
def test_longest_job_first_is_within_its_bound(seconds, workers):
    wall = packed_wall(seconds, workers)
    lower = max(max(seconds), sum(seconds) / workers)
    assert lower - 1e-9 <= wall <= sum(seconds) / workers + max(seconds) + 1e-9
    assert packed_wall(seconds, 1) == pytest.approx(sum(seconds))


@given(st.lists(st.one_of(st.none(), st.floats(0.01, 500.0)), min_size=1, max_size=60), st.integers(1, 8))
def test_slurm_array_tasks_hold_every_task_once_and_pack_only_short_ones(times, workers):
    jobs = list(range(len(times)))
    seconds = {job: t for job, t in zip(jobs, times) if t is not None}
    arrays = array_tasks([[job] for job in jobs], seconds, workers)
    assert sorted(job for array in arrays for job in array) == jobs and all(arrays)
    assert len(arrays) >= min(len(jobs), 2 * workers)
    cost = [sum(seconds.get(job, MIN_TASK_SECONDS) for job in array) for array in arrays]
    assert cost == sorted(cost, reverse=True)  # longest first
    if len(arrays) < len(jobs):  # packed: no more array tasks than MIN_TASK_SECONDS each, rounded up
        assert len(arrays) <= max(math.ceil(sum(cost) / MIN_TASK_SECONDS), 2 * workers)
    if all(t is None or t >= MIN_TASK_SECONDS for t in times):  # jobs of unknown or long time: one each
        assert len(arrays) == len(jobs)


@dataclass(frozen=True)
class FakeJob:
    values: tuple
    learner: str


@given(st.lists(st.tuples(st.integers(0, 3), st.one_of(st.none(), st.floats(0.01, 100.0))), min_size=1,
                max_size=40, unique_by=lambda t: t))
def test_a_task_holds_short_jobs_of_one_sweep_point(spec):
    jobs = [FakeJob((("split", point),), f"L{i}") for i, (point, _) in enumerate(spec)]
    seconds = {job: t for job, (_, t) in zip(jobs, spec) if t is not None}
    tasks = point_tasks(jobs, seconds)
    assert sorted((j.values, j.learner) for task in tasks for j in task) == sorted((j.values, j.learner) for j in jobs)
    for task in tasks:
        assert len({job.values for job in task}) == 1  # one sweep point a task
        if len(task) > 1:  # together only while short, and none of unknown time
            assert sum(seconds[job] for job in task) < MIN_TASK_SECONDS
    cost = [sum(seconds.get(job, MIN_TASK_SECONDS) for job in task) for task in tasks]
    assert cost == sorted(cost, reverse=True)
