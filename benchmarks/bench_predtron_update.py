"""Time of one mistake-driven update of PredtronRanker: the surrogate's maximizer plus the step.

    python benchmarks/bench_predtron_update.py [--updates 300] [--repeats 3]

For m = 20 and m = 100 documents per query (p = 30 features) and both margins, the ranker (its
weights drawn at random, so that every query is a mistake) runs ``--updates`` queries with 5
relevance grades, one round each through ``PredtronRanker.step`` (scores, prediction, NDCG loss,
σ_y, the assignment maximizer of Lemma 3, the gradient Xᵀ(rep(σ̃) − rep(σ_y)) and the ℓ2 or
ℓ1 (p-norm) step). Prints the best of ``--repeats`` per-update times, and beside it the time of the
maximizer alone (``Permutations.maximize``, i.e. ``scipy.optimize.linear_sum_assignment`` on the
m × m gain matrix) on the same queries.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ordrank.algorithms.structured import PredtronRanker
from ordrank.algorithms.structured.losses import NDCGLoss
from ordrank.algorithms.structured.ranker import POSITION_FUNCTIONS
from ordrank.algorithms.structured.spaces import Permutations
from ordrank.algorithms.structured.steps import pnorm_exponent, pnorm_link_inverse

P = 30


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--updates", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"PredtronRanker, p = {P}, f(i) = -i^1.1: best of {args.repeats} passes of "
          f"{args.updates} queries")
    print("|   m | margin | mistakes | µs per update | of which the maximizer (µs) |")
    print("|----:|--------|---------:|--------------:|----------------------------:|")
    for m in (20, 100):
        maximizer = time_maximizer(m, args.updates, args.repeats)
        for margin in ("l2", "l1"):
            seconds, mistakes = time_updates(m, margin, args.updates, args.repeats)
            print(f"| {m:3d} | {margin:6s} | {mistakes:4d}/{args.updates:<3d} | {seconds * 1e6:13.0f} | "
                  f"{maximizer * 1e6:27.0f} |")


if __name__ == "__main__":
    main()
