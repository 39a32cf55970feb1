"""The papers'-sizes sweep on real engines, with faults: a local Ray cluster losing a worker node, a
one-node SLURM with a job cancelled, the driver killed with SIGKILL, two drivers on one table.

Every case runs the same small variant of ``svor_benchmark_papers_sizes`` (bank2 with 200 training
rows, 5 and 10 ranks, 2 partitions, SVORIM and Reduction-SVM at one grid point: 8 jobs) through
``experiments/reproduce.py`` in a subprocess, as a user types it, and ends with the table byte for
byte equal to the local run's. Every node and daemon runs on this machine and is stopped by the
fixture that started it, also when the test fails.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

from conftest import REPO, under_ci

pytestmark = pytest.mark.cluster

ENTRY = "svor_benchmark_papers_sizes"
VARIANT = ["dataset.name=bank2", "protocol.splits=range(2)", "train_sizes.bank2=200", "dataset.redraw.n_splits=2",
           "only=[SVORIM,Reduction-SVM]", "grid.C=[1.0]", "grid.gamma=[0.1]"]
N_JOBS = 8


def command(out: Path, data: Path, *options: str) -> list[str]:
    return [sys.executable, str(REPO / "experiments" / "reproduce.py"), ENTRY, *VARIANT, "--out", str(out),
            "--data-dir", str(data), *options]


def table(out: Path) -> Path:
    return out / "results" / ENTRY / "benchmark.parquet"


def jobs_in(out: Path) -> int:
    try:
        return len(pd.read_parquet(table(out).with_name("benchmark.jobs.parquet")))
    except (OSError, ValueError):
        return 0


def done_in(out: Path) -> int:
    """Jobs the results table holds (the resume point: a killed driver may have written a job's row to the
    jobs table and not yet its results)."""
    try:
        results = pd.read_parquet(table(out), columns=["dataset", "bins", "split", "algorithm"])
    except (OSError, ValueError):
        return 0
    return len(results.drop_duplicates())


def run(args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=600, **kwargs)


def start(args, **kwargs) -> subprocess.Popen:
    """The driver in the background, its output in a file (a killed driver's workers may hold a pipe open)."""
    log = Path(tempfile.mkstemp(prefix="driver-", suffix=".log")[1])
    process = subprocess.Popen(args, stdout=log.open("w"), stderr=subprocess.STDOUT, text=True, **kwargs)
    process.log = log
    return process


def wait_for(condition, what: str, process=None, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None:
            pytest.fail(f"the driver ended before {what}:\n{process.log.read_text()}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {timeout:.0f} s")
        time.sleep(0.2)


def finished(process: subprocess.Popen, timeout: float = 400.0) -> tuple[int, str]:
    process.wait(timeout=timeout)
    output = process.log.read_text()
    process.log.unlink()
    return process.returncode, output


def added_by(output: str) -> int:
    """How many jobs a driver found in the table when it started (its first line says)."""
    line = next(line for line in output.splitlines() if "jobs already in the table" in line)
    return int(line.split(": ")[-1].split(" of ")[0])


@pytest.fixture(scope="module")
def expected(shared_data_dir, tmp_path_factory) -> bytes:
    """The variant run locally (2 worker processes): the bytes every engine's table must have."""
    out = tmp_path_factory.mktemp("local")
    done = run(command(out, shared_data_dir, "--launcher", "local", "--workers", "2"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert jobs_in(out) == N_JOBS
    return table(out).read_bytes()


@pytest.fixture
def ray_cluster():
    """A local Ray cluster: a head with no CPU for jobs and two worker nodes of one CPU each."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    try:
        workers = [cluster.add_node(num_cpus=1) for _ in range(2)]
        cluster.wait_for_nodes()
        yield cluster, workers
    finally:
        cluster.shutdown()


def test_ray_worker_node_dies_then_the_same_command_finishes(ray_cluster, expected, shared_data_dir, tmp_path):
    cluster, workers = ray_cluster
    args = command(tmp_path, shared_data_dir, "--launcher", "ray", "--address", cluster.address)
    driver = start(args)
    wait_for(lambda: jobs_in(tmp_path) >= 2, "two jobs in the table", driver)
    cluster.remove_node(workers[0])  # its raylet and worker processes killed mid-job
    code, output = finished(driver)
    before = done_in(tmp_path)
    again = run(args)
    assert again.returncode == 0, again.stdout + again.stderr
    assert added_by(again.stdout + again.stderr) == before  # nothing that had finished ran again
    assert f"{N_JOBS - before} to run" in again.stdout + again.stderr
    assert table(tmp_path).read_bytes() == expected, output
    jobs = pd.read_parquet(table(tmp_path).with_name("benchmark.jobs.parquet"))
    assert len(jobs) == N_JOBS and set(jobs["engine"]) == {"ray"}


@pytest.fixture
def slurm(tmp_path_factory):
    """A one-node SLURM (munged, slurmctld, slurmd on localhost; ordrank.launch.one_node_slurm)."""
    from ordrank.launch import one_node_slurm as slurm_one_node

    folder = tmp_path_factory.mktemp("slurm")
    try:
        env = slurm_one_node.start(folder, cpus=2)
    except RuntimeError as error:
        if under_ci():
            pytest.fail(f"CI: {error}")
        pytest.skip(str(error))
    try:
        yield env
    finally:
        subprocess.run(["scancel", "--user", "root"], env=env, capture_output=True)
        slurm_one_node.stop(folder)


def test_slurm_job_cancelled_then_the_same_command_finishes(slurm, expected, shared_data_dir, tmp_path):
    args = command(tmp_path, shared_data_dir, "--launcher", "slurm", "--workers", "2",
                   "--slurm-folder", str(tmp_path / "submitit"))
    driver = start(args, env=slurm)

    def running() -> list[str]:
        return run(["squeue", "-h", "-r", "-t", "R", "-o", "%i"], env=slurm).stdout.split()

    def state(job: str) -> str:
        text = run(["scontrol", "show", "job", job], env=slurm).stdout
        return text.split("JobState=", 1)[1].split()[0] if "JobState=" in text else "GONE"

    def result_written(job: str) -> bool:  # submitit's result pickle: the job had finished its work
        return any((tmp_path / "submitit").glob(f"{job}_*result.pkl"))

    wait_for(lambda: jobs_in(tmp_path) >= 1 and running(), "a finished job and a running one", driver)
    for _ in range(8):  # a job cancelled after it wrote its result was not cancelled mid-run: take the next
        job = next((j for j in running() if not result_written(j)), None)
        if job is None:
            time.sleep(0.2)
            continue
        run(["scancel", job], env=slurm)
        wait_for(lambda: state(job) not in ("RUNNING", "COMPLETING"), f"job {job} to end")
        if state(job) == "CANCELLED" and not result_written(job):
            break
    else:
        pytest.fail("no job could be cancelled while it ran")
    code, output = finished(driver)
    assert code != 0 and "ended without a result" in output, output
    before = done_in(tmp_path)
    assert before < N_JOBS
    again = run(args, env=slurm)
    assert again.returncode == 0, again.stdout + again.stderr
    assert added_by(again.stdout + again.stderr) == before
    assert table(tmp_path).read_bytes() == expected


def test_driver_killed_and_a_second_driver_refused(expected, shared_data_dir, tmp_path):
    args = command(tmp_path, shared_data_dir, "--launcher", "local", "--workers", "1")
    driver = start(args)
    wait_for(lambda: "jobs already in the table" in driver.log.read_text(), "the driver's lock", driver)
    second = run(args)  # the same table, while the first holds it
    assert second.returncode == 2 and "another driver is adding jobs to" in second.stderr, second.stderr
    wait_for(lambda: jobs_in(tmp_path) >= 2, "two jobs in the table", driver)
    workers = psutil.Process(driver.pid).children(recursive=True)  # its loky workers and resource trackers
    driver.send_signal(signal.SIGKILL)
    code, output = finished(driver, timeout=60)
    assert code == -signal.SIGKILL, f"the sweep ended before it could be killed:\n{output}"
    assert workers
    _, alive = psutil.wait_procs(workers, timeout=30)  # a worker whose driver died exits, with what it held
    assert not alive, [" ".join(p.cmdline()[:4]) for p in alive]
    before = done_in(tmp_path)
    assert len(pd.read_parquet(table(tmp_path))) > 0  # the table a killed driver leaves reads whole
    again = run(args)
    assert again.returncode == 0, again.stdout + again.stderr
    assert added_by(again.stdout + again.stderr) == before
    assert table(tmp_path).read_bytes() == expected
    assert jobs_in(tmp_path) == N_JOBS  # a job row written before the kill, its results not: replaced


def test_dry_run_projects_the_papers_sizes_from_the_committed_times(shared_data_dir):
    done = run([sys.executable, str(REPO / "experiments" / "reproduce.py"), ENTRY, "--dry-run", "--fresh",
                "--data-dir", str(shared_data_dir)], env={**os.environ, "ORDRANK_JOBS": "2"})
    assert done.returncode == 0, done.stderr
    assert "960 to run" in done.stdout and "expected CPU time: 110." in done.stdout, done.stdout
    for workers in (1, 16, 64, 256):
        assert f"on {workers:>4d} workers:" in done.stdout
