"""EachMovie-style synthetic ratings: heavy-tailed activity and popularity, low-rank correlated tastes.

Model
-----
For user ``u`` and item ``i`` (all draws from ``numpy.random.default_rng(seed)``):

* activity: ``n_u = floor(median_activity * LogNormal(0, activity_sigma))`` clipped to
  1..n_items, so each user has at least one rating;
* popularity: ``w_i ~ LogNormal(0, popularity_sigma)``; user ``u`` rates ``n_u`` distinct items
  drawn one after another with probability proportional to ``w_i`` among the items not yet drawn
  (sampled exactly as the ``n_u`` smallest keys ``Exp(1) / w_i``, Efraimidis & Spirakis 2006);
* score: ``<p_u, q_i> + a_u + b_i + e_ui`` with ``p_u ~ N(0, I / latent_dim)``, ``q_i ~ N(0, I)``
  (so the taste term has unit variance), biases ``a_u ~ N(0, 0.5^2)``, ``b_i ~ N(0, 0.7^2)`` and noise
  ``e_ui ~ N(0, noise^2)``; only the observed entries are ever computed;
* rank: the scores are cut at quantiles so that the share of each level follows ``EACHMOVIE_SHARES``
  (an approximation of EachMovie's histogram, skewed toward the upper-middle scores); for
  ``n_levels != 6`` that histogram is read as a piecewise-uniform density on [0, 1] and split
  into ``n_levels`` equal bins.

Shared item biases and item factors make the ratings of two users on common items positively
correlated on average.

Calibration
-----------
The defaults target EachMovie as used by Crammer & Singer (61,265 users, 1,623 movies, 2.8M
ratings) with the project's targets of about 7,500 users with >= 100 ratings and 2,000-3,000
with >= 200. Measured at the default size with seed 0:
2,980,141 ratings (mean 48.6 per user, median 23, max 1,623), 7,151 users (11.7%) with >= 100
ratings and 2,348 (3.8%) with >= 200; the most popular item is rated by 30,778 users (50%), the
median item by 812. Rank shares equal ``EACHMOVIE_SHARES`` to 0.1%. The mean Pearson correlation
between the 300 most active users, over pairs with >= 20 co-rated items, is 0.18 (90% of pairs
positive; MovieLens-100K: 0.17, 83%). Generation takes about 2 s and 0.33 GB peak resident
memory (``benchmarks/bench_eachmovie.py --part generator``); 200,000 users take about 8 s. A log-normal
with 12% of users above 100 ratings cannot have a mean below about 51 ratings, so the defaults
trade a slightly smaller share above 100 for a total near EachMovie's.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ordrank.datasets.ratings import Ratings

EACHMOVIE_SHARES = np.array([0.09, 0.08, 0.14, 0.23, 0.26, 0.20])
"""Share of the scores 0, 0.2, ..., 1.0: a rough stand-in for EachMovie's histogram (not checked
against the raw data, which is not available here)."""

CHUNK_CELLS = 2**22
"""Users are processed in chunks of about this many (user, item) sampling keys."""


def untied(keys: np.ndarray) -> np.ndarray:
    """Non-negative float32 keys as distinct uint64 keys in the same order, ties broken by column.

    A partition or sort of keys with ties may order the tied entries differently from one
    implementation to another (numpy dispatches to different sorting kernels by CPU), so float32
    sampling keys, which do tie, would give different samples on different machines. The bits of a
    non-negative float32 read as uint32 have the float's order; the column index below them makes
    every key distinct, so any correct partition or sort gives the same answer.
    """
    bits = np.ascontiguousarray(keys, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return (bits << np.uint64(32)) | np.arange(keys.shape[-1], dtype=np.uint64)


def eachmovie_style(n_users: int = 61265, n_items: int = 1623, n_levels: int = 6, latent_dim: int = 8,
                    seed: int = 0, *, median_activity: float = 24.0, activity_sigma: float = 1.2,
                    popularity_sigma: float = 1.5, noise: float = 1.0) -> Ratings:
    """Generate an EachMovie-style sparse matrix of ranks 1..n_levels (see the module docstring).

    Parameters
    ----------
    n_users, n_items : int
        Matrix shape (positive).
    n_levels : int
        Number of rating levels, 2..127.
    latent_dim : int
        Rank of the taste model (positive).
    seed : int
        Seed of ``numpy.random.default_rng``; equal arguments give an identical matrix.
    median_activity : float
        Median number of ratings per user before rounding down and capping at `n_items` (positive).
    activity_sigma : float
        Log-scale spread of the number of ratings per user (>= 0).
    popularity_sigma : float
        Log-scale spread of the item popularity weights (>= 0).
    noise : float
        Standard deviation of the score noise (>= 0).

    Returns
    -------
    Ratings
        ``levels = linspace(0, 1, n_levels)``; user and item ids are the row and column indices.
    """
    for name, value in {"n_users": n_users, "n_items": n_items, "latent_dim": latent_dim}.items():
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not isinstance(n_levels, (int, np.integer)) or not 2 <= n_levels <= 127:
        raise ValueError(f"n_levels must be an integer from 2 to 127, got {n_levels!r}")
    if not median_activity > 0:
        raise ValueError(f"median_activity must be positive, got {median_activity!r}")
    for name, value in {"activity_sigma": activity_sigma, "popularity_sigma": popularity_sigma,
                        "noise": noise}.items():
        if not value >= 0:
            raise ValueError(f"{name} must be >= 0, got {value!r}")

    rng = np.random.default_rng(seed)
    activity = np.clip(np.floor(median_activity * rng.lognormal(0.0, activity_sigma, n_users)), 1, n_items)
    activity = activity.astype(np.int64)
    popularity = rng.lognormal(0.0, popularity_sigma, n_items).astype(np.float32)
    user_factors = rng.normal(0.0, 1.0 / np.sqrt(latent_dim), (n_users, latent_dim))
    item_factors = rng.normal(0.0, 1.0, (n_items, latent_dim))
    user_bias = rng.normal(0.0, 0.5, n_users)
    item_bias = rng.normal(0.0, 0.7, n_items)

    # Most active users first, so each chunk's largest sample size is close to all of its sizes.
    order = np.argsort(-activity, kind="stable")
    step = max(1, CHUNK_CELLS // n_items)
    users, items, tastes = [], [], []
    for start in range(0, n_users, step):
        chunk = order[start:start + step]
        sizes = activity[chunk]
        keys = rng.standard_exponential((len(chunk), n_items), dtype=np.float32) / popularity
        keys = untied(keys)
        smallest = np.argpartition(keys, sizes[0] - 1, axis=1)[:, :sizes[0]]
        by_key = np.argsort(np.take_along_axis(keys, smallest, 1), axis=1)
        smallest = np.take_along_axis(smallest, by_key, 1)
        user = np.repeat(chunk, sizes)
        item = smallest[np.arange(sizes[0]) < sizes[:, None]]
        users.append(user)
        items.append(item)
        tastes.append(np.einsum("ij,ij->i", user_factors[user], item_factors[item]))
    user = np.concatenate(users)
    item = np.concatenate(items)
    score = np.concatenate(tastes) + user_bias[user] + item_bias[item] + rng.normal(0.0, noise, len(user))

    edges = np.linspace(0.0, 1.0, len(EACHMOVIE_SHARES) + 1)
    cumulative = np.interp(np.linspace(0.0, 1.0, n_levels + 1), edges,
                           np.r_[0.0, np.cumsum(EACHMOVIE_SHARES)])
    ranks = np.searchsorted(np.quantile(score, cumulative[1:-1]), score) + 1
    matrix = sp.csr_matrix((ranks.astype(np.int8), (user, item)), shape=(n_users, n_items))
    matrix.eliminate_zeros()
    source = (f"eachmovie_style(n_users={n_users}, n_items={n_items}, n_levels={n_levels}, "
              f"latent_dim={latent_dim}, seed={seed}, median_activity={median_activity}, "
              f"activity_sigma={activity_sigma}, popularity_sigma={popularity_sigma}, noise={noise})")
    return Ratings(matrix, np.linspace(0.0, 1.0, n_levels), np.arange(n_users), np.arange(n_items), source)
