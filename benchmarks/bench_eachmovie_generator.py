"""Time the EachMovie-style generator at EachMovie size and print its activity and rank statistics.

Run from the repository root: ``PYTHONPATH=src python benchmarks/bench_eachmovie_generator.py``.
Peak memory is the process' maximum resident set size (Linux reports it in KiB).
"""
import resource
import time

import numpy as np

from ordrank.datasets.eachmovie_style import eachmovie_style


def main() -> None:
    """Generate the default data set once and print the measurements."""
    start = time.perf_counter()
    ratings = eachmovie_style()
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    activity = np.diff(ratings.matrix.indptr)
    counts = np.bincount(ratings.matrix.data, minlength=ratings.n_levels + 1)[1:]
    print(ratings.source)
    print(f"shape: {ratings.matrix.shape[0]} users x {ratings.matrix.shape[1]} items")
    print(f"wall time: {seconds:.2f} s")
    print(f"peak memory (max RSS of the process): {peak_mb:.0f} MB")
    print(f"n_ratings: {ratings.n_ratings}")
    print(f"activity per user: median {np.median(activity):.0f}, mean {activity.mean():.1f}, "
          f"max {activity.max()}")
    print(f"users with >= 100 ratings: {len(ratings.users_with_at_least(100))}")
    print(f"users with >= 200 ratings: {len(ratings.users_with_at_least(200))}")
    shares = ", ".join(f"{r}: {c} ({c / counts.sum():.1%})" for r, c in enumerate(counts, 1))
    print(f"rank histogram: {shares}")


if __name__ == "__main__":
    main()
