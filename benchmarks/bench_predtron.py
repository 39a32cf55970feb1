"""How fast is the Predtron: its Figure 1 experiments end to end, the protocol's batched engine beside
fitting each copy on its own, and one mistake-driven update of PredtronRanker.

    python benchmarks/bench_predtron.py [--part all|experiments|engine|update ...] [--repeats N]
                                        [--updates 300]

Parts (``--part``, several allowed; default ``all``):

experiments
    The wall time of each ``python run.py +experiment=<name>`` (interpreter start, Hydra, data,
    training, writing the table), best and median of ``--repeats`` (default 1), and their sum,
    against the target: all three together ≤ 3 minutes on 2 cores (docs/speed.md).
engine
    On a slice of Figure 1 (a) (5 repetitions × 10 values of n, f = 1/i, at most 20 passes), the time
    of the protocol's batched engine against fitting each (repetition, n) copy on its own
    (``protocol.vectorize``); the two tables must agree (checked).
update
    For m = 20 and m = 100 documents per query (p = 30 features) and both margins, the ranker (its
    weights drawn at random, so that every query is a mistake) runs ``--updates`` queries with 5
    relevance grades, one round each through ``PredtronRanker.step`` (scores, prediction, NDCG loss,
    σ_y, the assignment maximizer of Lemma 3, the gradient Xᵀ(rep(σ̃) − rep(σ_y)) and the ℓ2 or ℓ1
    (p-norm) step). Prints the best of ``--repeats`` (default 3) per-update times, and beside it the
    time of the maximizer alone (``Permutations.maximize``, i.e.
    ``scipy.optimize.linear_sum_assignment`` on the m × m gain matrix) on the same queries.
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
from ordrank.algorithms.structured.losses import NDCGLoss
from ordrank.algorithms.structured.ranker import POSITION_FUNCTIONS
from ordrank.algorithms.structured.spaces import Permutations
from ordrank.algorithms.structured.steps import pnorm_exponent, pnorm_link_inverse
from ordrank.datasets.subset_ranking import GaussianSubsetRanking
from ordrank.protocols.subset_ranking import SubsetRankingProtocol

REPO = Path(__file__).resolve().parents[1]
PARTS = ["experiments", "engine", "update"]
EXPERIMENTS = ["predtron_subset_n", "predtron_subset_m", "predtron_l1_vs_l2"]
TARGET_SECONDS = 180.0
P = 30  # features of the update part's queries


def whole_command(experiment: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run([sys.executable, "run.py", f"+experiment={experiment}", f"hydra.run.dir={tmp}"],
                       cwd=REPO, check=True, capture_output=True)
        return time.perf_counter() - start


def experiments(repeats):
    best = {}
    for experiment in EXPERIMENTS:
        times = [whole_command(experiment) for _ in range(repeats)]
        best[experiment] = min(times)
        print(f"python run.py +experiment={experiment}: best {min(times):.1f} s, "
              f"median {np.median(times):.1f} s over {repeats} run(s)")
    total = sum(best.values())
    verdict = "met" if total <= TARGET_SECONDS else "NOT met"
    print(f"all three: {total:.1f} s (target <= {TARGET_SECONDS:.0f} s: {verdict})")


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


def queries(rng, n, m):
    X = rng.normal(size=(n, m, P))
    relevance = rng.integers(0, 5, size=(n, m))
    return X, relevance


def time_updates(m, margin, n_updates, repeats):
    """Best seconds per update over ``repeats`` passes, and the number of mistakes in a pass."""
    rng = np.random.default_rng(m)
    X, relevance = queries(rng, n_updates, m)
    ranker = PredtronRanker(f="power_1.1", margin=margin)
    w0 = rng.normal(size=P)
    best, mistakes = np.inf, 0
    for _ in range(repeats):
        state = ranker.init_state(1, P)
        if margin == "l1":
            state["dual_coef"][0] = w0
            state["coef"][0] = pnorm_link_inverse(w0[None], pnorm_exponent(P))[0]
        else:
            state["coef"][0] = w0
        mistakes = 0
        start = time.perf_counter()
        for q in range(n_updates):
            positions = ranker.step(state, X[q : q + 1], relevance[q : q + 1])
            mistakes += int(ranker.loss(relevance[q : q + 1], positions)[0] > 0)
        best = min(best, (time.perf_counter() - start) / n_updates)
    return best, mistakes


def time_maximizer(m, n_updates, repeats):
    rng = np.random.default_rng(m)
    X, relevance = queries(rng, n_updates, m)
    t = X @ rng.normal(size=P)
    space, loss = Permutations(POSITION_FUNCTIONS["power_1.1"]), NDCGLoss()
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        for q in range(n_updates):
            space.maximize(loss, t[q : q + 1], relevance[q : q + 1])
        best = min(best, (time.perf_counter() - start) / n_updates)
    return best


def update(n_updates, repeats):
    print(f"PredtronRanker, p = {P}, f(i) = -i^1.1: best of {repeats} passes of {n_updates} queries")
    print("|   m | margin | mistakes | µs per update | of which the maximizer (µs) |")
    print("|----:|--------|---------:|--------------:|----------------------------:|")
    for m in (20, 100):
        maximizer = time_maximizer(m, n_updates, repeats)
        for margin in ("l2", "l1"):
            seconds, mistakes = time_updates(m, margin, n_updates, repeats)
            print(f"| {m:3d} | {margin:6s} | {mistakes:4d}/{n_updates:<3d} | {seconds * 1e6:13.0f} | "
                  f"{maximizer * 1e6:27.0f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", nargs="+", choices=["all", *PARTS], default=["all"])
    parser.add_argument("--repeats", type=int, default=None,
                        help="experiments: runs per command (default 1); update: passes (default 3)")
    parser.add_argument("--updates", type=int, default=300, help="update: queries per pass")
    args = parser.parse_args(argv)
    chosen = set(PARTS) if "all" in args.part else set(args.part)
    if "experiments" in chosen:
        experiments(args.repeats or 1)
    if "engine" in chosen:
        engine()
    if "update" in chosen:
        update(args.updates, args.repeats or 3)


if __name__ == "__main__":
    main()
