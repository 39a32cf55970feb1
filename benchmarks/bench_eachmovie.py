"""How fast is the EachMovie protocol, and its data: speed and memory against the targets, how the
cost grows, and the EachMovie-style generator's own time and statistics.

    python benchmarks/bench_eachmovie.py [--data-dir DIR] [--part all|generator|movielens|protocol|scaling ...]

Parts (``--part``, several allowed; default ``all``, in this order):

generator
    The EachMovie-style generator at EachMovie size, once (default parameters): its wall time, the
    process' peak memory right after it (max RSS; Linux reports it in KiB), the number of ratings, the
    activity per user (median, mean, max), the users with ≥ 100 and ≥ 200 ratings and the histogram of
    the ranks. Run first, so that the peak memory is the generation's.
movielens
    MovieLens-100K (from the data folder: ``--data-dir``, else ``$ORDRANK_DATA``, else ``data/``),
    EachMovie-100 protocol, every kept user (364) a target, PRank + MCP + WH (target ≤ 10 s; the loader
    is included).
protocol
    EachMovie scale from the generator: ≈ 7,150 kept users as features, 500 targets, 100 rounds, all
    three algorithms together (target ≤ 60 s) and each alone, with the generation time and the peak
    memory (max RSS) after the generation and after the protocol.
scaling
    PRank alone (features included) with targets, rounds and kept users.
"""
from __future__ import annotations

import argparse
import functools
import resource
import time

import numpy as np

from ordrank.algorithms import MulticlassPerceptron, PRank, WidrowHoff
from ordrank.datasets.eachmovie_style import eachmovie_style
from ordrank.datasets.data_dir import resolve_data_dir
from ordrank.datasets.ratings import load_movielens_100k
from ordrank.protocols.collaborative import EachMovieProtocol

PARTS = ["generator", "movielens", "protocol", "scaling"]


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


@functools.cache
def generated():
    """The default EachMovie-style data set, generated once per process: (ratings, seconds, peak RSS GB after)."""
    start = time.perf_counter()
    gen = eachmovie_style()
    return gen, time.perf_counter() - start, peak_rss_gb()


def generator():
    ratings, seconds, peak_gb = generated()
    activity = np.diff(ratings.matrix.indptr)
    counts = np.bincount(ratings.matrix.data, minlength=ratings.n_levels + 1)[1:]
    print(ratings.source)
    print(f"shape: {ratings.matrix.shape[0]} users x {ratings.matrix.shape[1]} items")
    print(f"wall time: {seconds:.2f} s")
    print(f"peak memory (max RSS of the process): {peak_gb * 1024:.0f} MB")
    print(f"n_ratings: {ratings.n_ratings}")
    print(f"activity per user: median {np.median(activity):.0f}, mean {activity.mean():.1f}, "
          f"max {activity.max()}")
    print(f"users with >= 100 ratings: {len(ratings.users_with_at_least(100))}")
    print(f"users with >= 200 ratings: {len(ratings.users_with_at_least(200))}")
    shares = ", ".join(f"{r}: {c} ({c / counts.sum():.1%})" for r, c in enumerate(counts, 1))
    print(f"rank histogram: {shares}")


def movielens(data_dir):
    start = time.perf_counter()
    ml = load_movielens_100k(resolve_data_dir(data_dir))
    load = time.perf_counter() - start
    total = load + timed_run(ml, EachMovieProtocol(min_ratings=100, n_targets=None), learners())
    print(f"MovieLens-100K, EachMovie-100, all 364 kept users as targets, 3 algorithms: {total:.2f} s "
          f"(load {load:.2f} s) target ≤ 10 s")


def protocol():
    gen, generation, rss_after_generation = generated()
    kept = len(gen.users_with_at_least(100))
    at_scale = EachMovieProtocol(min_ratings=100, n_targets=500)
    together = timed_run(gen, at_scale, learners())
    print(f"generator at EachMovie scale ({gen.matrix.shape[0]} users × {gen.matrix.shape[1]} movies, "
          f"{gen.n_ratings} ratings): generated in {generation:.2f} s, {kept} kept users")
    print(f"  500 targets × 100 rounds × 3 algorithms: {together:.1f} s target ≤ 60 s")
    print(f"  ({each_alone(gen, at_scale)}; each alone includes building the features)")
    print(f"  peak memory (max RSS): {rss_after_generation:.2f} GB after generation, "
          f"{peak_rss_gb():.2f} GB after the protocol (batch_size=64)")


def scaling():
    gen = generated()[0]
    kept = len(gen.users_with_at_least(100))
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None, help="where the data sets are (default: $ORDRANK_DATA, else data/)")
    parser.add_argument("--part", nargs="+", choices=["all", *PARTS], default=["all"],
                        help="the parts to run, in the docstring's order")
    args = parser.parse_args(argv)
    chosen = set(PARTS) if "all" in args.part else set(args.part)
    runs = {"generator": generator, "movielens": lambda: movielens(args.data_dir), "protocol": protocol,
            "scaling": scaling}
    for part in PARTS:
        if part in chosen:
            runs[part]()


if __name__ == "__main__":
    main()
