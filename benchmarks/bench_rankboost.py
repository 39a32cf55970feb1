"""RankBoost's speed (prints; not a test): 300 rounds on OHSUMED Fold1's training part (≤ 10 s asked)
and on 100,000 synthetic ordinal rows without queries (≤ 60 s asked), every distinct value a
candidate threshold (the default) and 64 quantiles. The factored pair weights make a round O(n·d),
so the pair counts printed are never built.

    python benchmarks/bench_rankboost.py [--rounds 300] [--data-dir DIR]   # DIR: default $ORDRANK_DATA, else data/
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from ordrank.algorithms.ranking import RankBoost, RankBoostOrdinal
from ordrank.datasets.ratings import resolve_data_dir
from ordrank.queries import count_pairs


def timed(make, *args, **kwargs):
    start = time.perf_counter()
    model = make().fit(*args, **kwargs)
    return model, time.perf_counter() - start


def ohsumed(rounds: int, data_dir):
    from ordrank.datasets.letor import LetorData

    folder = resolve_data_dir(data_dir) / "letor3-ohsumed"
    fold = LetorData(path=str(folder), n_features=45).fold(1)
    train, test = fold.train, fold.test
    print(f"OHSUMED Fold1 train: {len(train.y)} documents, {train.n_queries} queries, "
          f"{train.X.shape[1]} features, {count_pairs(train.y, train.qid):,} preference pairs")
    for n_thresholds in (None, 64):
        model, seconds = timed(lambda: RankBoost(rounds, n_thresholds), train.X, train.y, qid=train.qid)
        print(f"  n_thresholds={n_thresholds}: {model.n_iter_} rounds in {seconds:.2f} s (ask: <= 10 s); "
              f"train rloss {model.train_loss_[0]:.4f} -> {model.train_loss_[-1]:.4f}, "
              f"bound {model.loss_bound_[-1]:.4f}; test NDCG@10 {model.score(test.X, test.y, test.qid):.4f}")


def ordinal(rounds: int, n: int = 100_000, d: int = 10, k: int = 5):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    latent = X @ rng.normal(size=d) + rng.normal(0, 1.0, n)
    y = np.digitize(latent, np.quantile(latent, np.arange(1, k) / k)) + 1
    print(f"synthetic ordinal: {n} rows, {d} features, {k} ranks, one query, {count_pairs(y):,} pairs")
    for n_thresholds in (None, 64):
        model, seconds = timed(lambda: RankBoostOrdinal(rounds, n_thresholds), X, y)
        print(f"  RankBoostOrdinal n_thresholds={n_thresholds}: {model.n_iter_} rounds + cut points in "
              f"{seconds:.2f} s (ask: <= 60 s); train MAE {model.train_cost_ / n:.4f}, "
              f"rloss {model.ranker_.train_loss_[-1]:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--data-dir", default=None, help="where the data sets are (default: $ORDRANK_DATA, else data/)")
    parser.add_argument("--skip-ohsumed", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine)")
    if not args.skip_ohsumed:
        ohsumed(args.rounds, args.data_dir)
    ordinal(args.rounds)
