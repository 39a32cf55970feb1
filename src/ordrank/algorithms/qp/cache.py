"""A small LRU cache of compiled problems, keyed on the training data and on every other thing
that shapes the problem (the caller's ``key_params``: SVOR passes its class, k, kernel and kernel
parameters, variant, diagonal jitter and solver, see ``SVOR._cache_key``; a subclass that builds
another problem from the same parameters therefore gets its own entry).

A cvxpy problem whose data change only through a ``cp.Parameter`` (SVOR's C) is compiled once; its
solver workspace is kept with it, so a grid over that parameter, also across GridSearchCV's clones,
compiles once per training set. Entries are evicted least recently used first, once more than
``CACHE_SIZE`` are kept or their ``size`` attributes (about bytes / 150: a cached exact kernel
problem holds ~150 bytes per kernel entry) sum to more than ``CACHE_ENTRIES``.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

CACHE_SIZE = 8         # compiled problems kept, and at most this many kernel entries (Σ size):
CACHE_ENTRIES = 1.3e7  # enough for 5 CV folds of n = 2000 (about 2 GB)
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()
cache_stats = {"hits": 0, "misses": 0}


def clear_cache() -> None:
    """Drop every cached problem and reset ``cache_stats``."""
    with _cache_lock:
        _cache.clear()
        cache_stats.update(hits=0, misses=0)


def cached(arrays, key_params, build):
    """The cached object for these arrays (hashed: their bytes, dtype-exact) and hashable
    ``key_params``, or ``build()`` stored under LRU eviction (it needs a ``size`` attribute)."""
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    key = (digest.hexdigest(), *(np.shape(a) for a in arrays), *key_params)
    with _cache_lock:
        if key in _cache:
            cache_stats["hits"] += 1
            _cache.move_to_end(key)
            return _cache[key]
        cache_stats["misses"] += 1
    value = build()
    with _cache_lock:
        _cache[key] = value
        while len(_cache) > 1 and (len(_cache) > CACHE_SIZE
                                   or sum(v.size for v in _cache.values()) > CACHE_ENTRIES):
            _cache.popitem(last=False)
    return value
