"""How much a cluster engine costs per job: the papers'-sizes sweep's small variant on 1 and 2 workers
through each engine (local loky processes, a local Ray, a one-node SLURM) beside joblib running the
same jobs with no driver, table or engine around them.

    python benchmarks/bench_engines.py [--data-dir DIR] [--engines local ray slurm] [--workers 1 2]

The variant is the papers' sizes made small: bank2 with 1,200 training rows, 5 and 10 ranks, 3
partitions, SVOREX and Reduction-SVM with the experiment's 3 x 3 grid, 12 jobs of a few seconds each
(the cluster tests' variant, one grid point, is too short to show a speed-up). The first run (the first
engine on the first worker count) records the job times; every later run, joblib's included, takes the
jobs longest first by them, as the driver does with a table's recorded times, and SLURM packs the short
ones into shared array tasks by them (``ordrank.launch.engines.array_tasks``). For each engine and worker
count it prints the wall time of the whole sweep (the engine started, every job run and added to a
fresh table), the engine's start (a local Ray's processes; a pool spawns its workers with the first
job, SLURM's daemons run already), the overhead per job against joblib at the same worker count
((wall − start − joblib's wall) / jobs: what each job costs, the engine's one start aside) and the
speed-up of 2 workers over 1 (walls, starts included). Every engine's table must equal the local engine's, byte
for byte (checked). SLURM runs on a one-node SLURM started here (``ordrank.launch.one_node_slurm``;
needs root and Debian's slurmctld, slurmd and munge) and stopped at the end. The data folder: ``--data-dir``,
else ``$ORDRANK_DATA``, else ``data/``. Last, the full papers' sizes as the dry run projects them from
the committed job times (``experiments/reproduce.py svor_benchmark_papers_sizes --dry-run --fresh``).
Run on demand (not a test); docs/speed.md shows its output (``bench_reproduce.py --learners bench_engines.py``).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VARIANT = ["dataset.name=bank2", "protocol.splits=range(3)", "train_sizes.bank2=1200", "dataset.redraw.n_splits=3",
           "only=[SVOREX,Reduction-SVM]"]


def jobs(data_dir: str):
    from hydra import compose, initialize_config_dir

    from ordrank.launch.sweep import compose_jobs

    def composed(overrides, hydra_config=False):
        with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
            return compose("config", overrides=overrides, return_hydra_config=hydra_config)

    return compose_jobs(composed, ["+experiment=svor_benchmark/papers_sizes", f"data_dir={data_dir}", *VARIANT])[1]


def joblib_wall(all_jobs, workers: int) -> float:
    """joblib's Parallel on fresh worker processes (its reusable pool shut first), as each engine starts;
    the jobs in the order the driver submits them (longest first)."""
    from joblib import Parallel, delayed
    from joblib.externals.loky import get_reusable_executor

    from ordrank.launch.work import run_job

    get_reusable_executor().shutdown(wait=True, kill_workers=True)
    started = time.perf_counter()
    Parallel(n_jobs=workers)(delayed(run_job)(job) for job in all_jobs)
    return time.perf_counter() - started


def engine_wall(all_jobs, launcher: str, workers: int, folder: Path, estimates: Path | None) \
        -> tuple[float, float, bytes]:
    """The whole sweep's wall time on the engine, the part of it the engine took to start (a local Ray
    cluster's processes, a pool's workers are spawned with the first job), and the table's bytes."""
    from ordrank.launch.driver import drive
    from ordrank.launch.sweep import Engine

    table = folder / "results" / "benchmark.parquet"
    engine = Engine(launcher, workers, folder=folder / "submitit")
    started = time.perf_counter()
    factory, start = engine.factory(None, table), []

    def started_engine():
        began = time.perf_counter()
        made = factory()
        start.append(time.perf_counter() - began)
        return made

    outcome = drive(table, all_jobs, started_engine, say=lambda *_: None, poll=1.0, estimates_from=estimates)
    wall = time.perf_counter() - started
    if not outcome.complete:
        raise RuntimeError(f"{launcher} on {workers} workers: {outcome.failed}")
    return wall, start[0], table.read_bytes()


def main(argv=None) -> None:
    from ordrank.launch.driver import expected_seconds

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.environ.get("ORDRANK_DATA", "data"))
    parser.add_argument("--engines", nargs="+", default=["local", "ray", "slurm"], choices=["local", "ray", "slurm"])
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    args = parser.parse_args(argv)
    all_jobs = jobs(str(Path(args.data_dir).resolve()))
    rows, walls, starts, first, estimates = [], {}, {}, None, None
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as scratch:
        scratch = Path(scratch)
        if "slurm" in args.engines:
            from ordrank.launch import one_node_slurm

            os.environ.update(one_node_slurm.start(scratch / "slurm", cpus=max(args.workers)))
        try:
            for workers in args.workers:
                for launcher in args.engines:
                    folder = scratch / f"{launcher}{workers}"
                    wall, starts[(launcher, workers)], data = engine_wall(all_jobs, launcher, workers, folder,
                                                                         estimates)
                    if estimates is None:  # the first run's job times order (and pack) every later run's jobs
                        estimates = folder / "results" / "benchmark.parquet"
                        order = expected_seconds(estimates, all_jobs)
                        all_jobs = sorted(all_jobs, key=lambda job: -order[job])
                    first = first or data
                    if data != first:
                        raise RuntimeError(f"{launcher} on {workers} workers: its table differs from the first one's")
                    walls[(launcher, workers)] = wall
                walls[("joblib", workers)] = joblib_wall(all_jobs, workers)
        finally:
            if "slurm" in args.engines:
                one_node_slurm.stop(scratch / "slurm")
    n = len(all_jobs)
    print(f"{n} jobs (the papers' sizes made small: {' '.join(VARIANT)}); every engine's table byte-identical\n")
    print("| engine | workers | wall (s) | engine start (s) | overhead per job vs joblib, start aside (s) | "
          "speed-up, 2 workers over 1 |")
    print("|---|---|---|---|---|---|")
    for launcher in ["joblib", *args.engines]:
        for workers in args.workers:
            wall, start = walls[(launcher, workers)], starts.get((launcher, workers))
            overhead = "" if start is None else f"{(wall - start - walls[('joblib', workers)]) / n:+.2f}"
            speedup = f"{walls[(launcher, 1)] / wall:.2f}×" if workers == 2 and 1 in args.workers else ""
            rows.append(f"| {launcher} | {workers} | {wall:.1f} | {'' if start is None else f'{start:.1f}'} | "
                        f"{overhead} | {speedup} |")
    print("\n".join(rows))
    projection = subprocess.run([sys.executable, str(REPO / "experiments" / "reproduce.py"),
                                 "svor_benchmark_papers_sizes", "--dry-run", "--fresh", "--data-dir", args.data_dir],
                                capture_output=True, text=True, check=True).stdout.splitlines()
    print("\nThe full papers' sizes (960 jobs), projected from the committed job times:\n")
    print("\n".join(f"    {line}" for line in projection if "workers:" in line or "expected CPU" in line))


if __name__ == "__main__":
    main()
