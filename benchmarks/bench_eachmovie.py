"""Speed and memory of the EachMovie protocol against its targets, and how its cost grows.

    python benchmarks/bench_eachmovie.py [--data-dir DIR] [--skip-scaling]

1. MovieLens-100K, EachMovie-100 protocol, every kept user (364) a target, PRank + MCP + WH
   (target ≤ 10 s; the loader is included).
2. EachMovie scale from the generator: ≈ 7,150 kept users as features, 500 targets, 100 rounds,
   all three algorithms (target ≤ 60 s), with the generation time and the peak memory (max RSS).
3. Scaling of PRank alone (features included) with targets, rounds and kept users.
"""
from __future__ import annotations

import argparse
import resource
import time

from ordrank.algorithms import MulticlassPerceptron, PRank, WidrowHoff
from ordrank.datasets.eachmovie_style import eachmovie_style
from ordrank.datasets.ratings import load_movielens_100k, resolve_data_dir
from ordrank.protocols.collaborative import EachMovieProtocol


def learners():
    return {"PRank": PRank(), "MCP": MulticlassPerceptron(), "WH": WidrowHoff(eta=0.5, normalized=True)}


def timed_run(ratings, protocol, algos):
    """Seconds for the whole protocol (features are built once per batch, shared by the learners)."""
    start = time.perf_counter()
    for _ in protocol.iter_run(ratings, algos):
        pass
    return time.perf_counter() - start


def each_alone(ratings, protocol):
    return ", ".join(f"{name} alone {timed_run(ratings, protocol, {name: learner}):.1f} s"
                     for name, learner in learners().items())


def peak_rss_gb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", default=None, help="where the data sets are (default: $ORDRANK_DATA, else data/)")
    parser.add_argument("--skip-scaling", action="store_true")
    args = parser.parse_args()

    start = time.perf_counter()
    ml = load_movielens_100k(resolve_data_dir(args.data_dir))
    load = time.perf_counter() - start
    total = load + timed_run(ml, EachMovieProtocol(min_ratings=100, n_targets=None), learners())
    print(f"MovieLens-100K, EachMovie-100, all 364 kept users as targets, 3 algorithms: {total:.2f} s "
          f"(load {load:.2f} s) target ≤ 10 s")

    start = time.perf_counter()
    gen = eachmovie_style()
    generation = time.perf_counter() - start
    kept = len(gen.users_with_at_least(100))
    rss_after_generation = peak_rss_gb()
    protocol = EachMovieProtocol(min_ratings=100, n_targets=500)
    together = timed_run(gen, protocol, learners())
    print(f"generator at EachMovie scale ({gen.matrix.shape[0]} users × {gen.matrix.shape[1]} movies, "
          f"{gen.n_ratings} ratings): generated in {generation:.2f} s, {kept} kept users")
    print(f"  500 targets × 100 rounds × 3 algorithms: {together:.1f} s target ≤ 60 s")
    print(f"  ({each_alone(gen, protocol)}; each alone includes building the features)")
    print(f"  peak memory (max RSS): {rss_after_generation:.2f} GB after generation, "
          f"{peak_rss_gb():.2f} GB after the protocol (batch_size=64)")

    if args.skip_scaling:
        return
    print("scaling, PRank only (seconds):")
    for n_targets in (125, 250, 500):
        t = timed_run(gen, EachMovieProtocol(min_ratings=100, n_targets=n_targets), {"PRank": PRank()})
        print(f"  targets {n_targets:4d}, rounds 100, kept users {kept}: {t:.2f}")
    for n_rounds in (25, 50, 100):
        t = timed_run(gen, EachMovieProtocol(min_ratings=100, n_targets=250, n_rounds=n_rounds), {"PRank": PRank()})
        print(f"  targets  250, rounds {n_rounds:3d}, kept users {kept}: {t:.2f}")
    for n_users in (15000, 30000):
        small = eachmovie_style(n_users=n_users)
        t = timed_run(small, EachMovieProtocol(min_ratings=100, n_targets=250), {"PRank": PRank()})
        print(f"  targets  250, rounds 100, kept users {len(small.users_with_at_least(100))}: {t:.2f}")


if __name__ == "__main__":
    main()
