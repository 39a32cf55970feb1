"""Speed of the main job: `python run.py +experiment=prank_synthetic`, end to end, and per algorithm.

    python benchmarks/bench_prank_synthetic.py [--repeats 3]

Prints the wall time of the whole command (interpreter start, Hydra, data, 3 × 100 × 7000 rounds,
writing the table) and each learner's throughput in rounds per second through the vectorized protocol.
Target: ≤ 10 s wall for the whole command on 2 cores (docs/speed.md).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ordrank.algorithms import MulticlassPerceptron, PRank, WidrowHoff
from ordrank.features import PolynomialKernelMap
from ordrank.datasets.synthetic import CrammerSinger
from ordrank.protocols.engine import run_sequences

REPO = Path(__file__).resolve().parents[1]


def whole_command(repeats):
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run([sys.executable, "run.py", "+experiment=prank_synthetic",
                            f"hydra.run.dir={tmp}"], cwd=REPO, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
    return times


def per_algorithm(n_sequences=100, n_rounds=7000):
    data = CrammerSinger()
    rngs = [np.random.default_rng(i) for i in range(n_sequences)]
    X, y = data.sequences(rngs, n_rounds)
    X = PolynomialKernelMap().fit_transform(X.reshape(-1, 2)).reshape(n_sequences, n_rounds, -1)
    for learner in (PRank(), MulticlassPerceptron(), WidrowHoff()):
        start = time.perf_counter()
        run_sequences(learner, X, y, data.n_ranks)
        seconds = time.perf_counter() - start
        rate = n_sequences * n_rounds / seconds
        print(f"  {type(learner).__name__:22s} {seconds:6.2f} s  {rate / 1e6:6.2f} M rounds/s "
              f"({n_sequences} sequences × {n_rounds} rounds)")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    times = whole_command(args.repeats)
    print(f"python run.py +experiment=prank_synthetic: best {min(times):.2f} s, "
          f"median {np.median(times):.2f} s over {args.repeats} runs (target ≤ 10 s)")
    print("per algorithm, vectorized protocol only:")
    per_algorithm()


if __name__ == "__main__":
    main()
