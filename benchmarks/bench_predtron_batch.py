"""CPU time of the batch rankers beside Figure 1 (a) (conf/experiment/predtron_subset_n.yaml), per
repetition, and RankSVM's share spent in Clarabel's QP solves (the cutting plane's simplex QP).

    python benchmarks/bench_predtron_batch.py [--repetitions 1]

For each learner as configured, repetition r = 0.. of the protocol's streams (m = 20, p = 30): a fit
on the first n training queries for each n in the grid, timed by CPU (``time.process_time``, this
process only: the load of a shared machine does not count). The Figure's 20 repetitions take about
20 times the printed figure; the protocol spreads them over ``protocol.n_jobs`` processes.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import clarabel
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate
from sklearn.base import clone

import ordrank.algorithms.ranking.ranksvm_primal as ranksvm_primal
from ordrank.datasets.subset_ranking import GaussianSubsetRanking
from ordrank.protocols.subset_ranking import flat

CONF = Path(__file__).resolve().parents[1] / "conf"
BATCH = ["RankSVM", "RankNet", "LambdaMART", "LeastSquares"]


class TimedSolver:
    """clarabel.DefaultSolver whose construction and solve add their CPU time to ``spent``."""

    spent = 0.0
    real = clarabel.DefaultSolver

    def __init__(self, *args):
        start = time.process_time()
        self.solver = TimedSolver.real(*args)
        TimedSolver.spent += time.process_time() - start

    def solve(self):
        start = time.process_time()
        solution = self.solver.solve()
        TimedSolver.spent += time.process_time() - start
        return solution


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repetitions", type=int, default=1)
    args = parser.parse_args()
    with initialize_config_dir(str(CONF), version_base="1.3"):
        cfg = compose("config", ["+experiment=predtron_subset_n"])
    protocol = instantiate(cfg.protocol, _convert_="all")
    dataset = GaussianSubsetRanking(cfg.dataset.center_scale, cfg.dataset.noise_scale)
    learners = {name: instantiate(cfg.algorithms[name]) for name in BATCH}
    ranksvm_primal.clarabel.DefaultSolver = TimedSolver
    print(f"{'learner':<14}{'CPU s / repetition':>20}   (n = {protocol.n_train}, m = 20, p = 30)")
    for name, learner in learners.items():
        TimedSolver.spent, start = 0.0, time.process_time()
        for r in range(args.repetitions):
            task_rng, _, train_rng = protocol.streams(cfg.seed, r, 20, 30)
            X, y = dataset.task(task_rng, 20, 30).sample(train_rng, max(protocol.n_train))
            for n in protocol.n_train:
                clone(learner).fit(*flat(X[:n], y[:n]))
        spent = (time.process_time() - start) / args.repetitions
        note = f"   Clarabel (setup + solve): {TimedSolver.spent / args.repetitions:.2f}" if name == "RankSVM" else ""
        print(f"{name:<14}{spent:>20.2f}{note}")


if __name__ == "__main__":
    main()
