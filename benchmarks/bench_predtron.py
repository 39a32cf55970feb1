"""Speed of the Predtron Figure 1 experiments, end to end, and of the protocol's batched engine.

    python benchmarks/bench_predtron.py [--repeats 1] [--no-engine]

Prints the wall time of each ``python run.py +experiment=<name>`` (interpreter start, Hydra, data,
training, writing the table) and their sum, against the target: all three together
≤ 3 minutes on the 2-core reference machine. Then, on a slice of Figure 1 (a), the time of the
protocol's batched engine against fitting each (repetition, n) copy on its own (``protocol.vectorize``),
which give the same table.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ordrank.algorithms.structured import PredtronRanker
from ordrank.datasets.subset_ranking import GaussianSubsetRanking
from ordrank.protocols.subset_ranking import SubsetRankingProtocol

REPO = Path(__file__).resolve().parents[1]
EXPERIMENTS = ["predtron_subset_n", "predtron_subset_m", "predtron_l1_vs_l2"]
TARGET_SECONDS = 180.0


def whole_command(experiment: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run([sys.executable, "run.py", f"+experiment={experiment}", f"hydra.run.dir={tmp}"],
                       cwd=REPO, check=True, capture_output=True)
        return time.perf_counter() - start


def engine(n_repetitions=5, n_epochs=20):
    """Batched engine against per-copy fits on Figure 1 (a)'s grid, f = 1/i; the tables must agree."""
    learners = {"inverse": PredtronRanker(n_epochs=n_epochs, stop_when_separated=True)}
    times, tables = {}, {}
    for vectorize in (True, False):
        protocol = SubsetRankingProtocol(n_repetitions=n_repetitions, vectorize=vectorize)
        start = time.perf_counter()
        tables[vectorize] = pd.concat(protocol.iter_run(GaussianSubsetRanking(), learners),
                                      ignore_index=True)
        times[vectorize] = time.perf_counter() - start
    pd.testing.assert_frame_equal(tables[True], tables[False], check_exact=False, rtol=1e-12)
    print(f"engine, Figure 1 (a) grid, {n_repetitions} repetitions x 10 values of n, f = 1/i, "
          f"cap {n_epochs} passes: batched {times[True]:.2f} s, per-copy fit {times[False]:.2f} s "
          f"({times[False] / times[True]:.1f}x), same table")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--no-engine", action="store_true", help="skip the engine comparison")
    args = parser.parse_args()
    best = {}
    for experiment in EXPERIMENTS:
        times = [whole_command(experiment) for _ in range(args.repeats)]
        best[experiment] = min(times)
        print(f"python run.py +experiment={experiment}: best {min(times):.1f} s, "
              f"median {np.median(times):.1f} s over {args.repeats} run(s)")
    total = sum(best.values())
    verdict = "met" if total <= TARGET_SECONDS else "NOT met"
    print(f"all three: {total:.1f} s (target <= {TARGET_SECONDS:.0f} s: {verdict})")
    if not args.no_engine:
        engine()


if __name__ == "__main__":
    main()
